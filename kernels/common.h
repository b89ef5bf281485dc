/*
 * Shared kernel definitions, prepended to every clpool program.
 *
 * Exactly one DT_* macro selects the element type:
 *   T        storage type (what the buffer holds)
 *   CT       compute/compare type (float for float16/bfloat16)
 *   LOAD(p, i)       element i of p as CT
 *   IS_FLOAT_TYPE    1 for the floating types (NaN rules apply)
 * float16 is storage-only (vload_half/vstore_half, core OpenCL C 1.2), so it
 * works without cl_khr_fp16. bfloat16 is the upper half of a float32.
 */
#if defined(DT_FLOAT64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if defined(DT_FLOAT32)
typedef float T;
typedef float CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 1
#elif defined(DT_FLOAT64)
typedef double T;
typedef double CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 1
#elif defined(DT_FLOAT16)
typedef ushort T;
typedef float CT;
#define LOAD(p, i) vload_half((i), (const __global half *)(p))
#define IS_FLOAT_TYPE 1
#elif defined(DT_BFLOAT16)
typedef ushort T;
typedef float CT;
#define LOAD(p, i) as_float((uint)(p)[i] << 16)
#define IS_FLOAT_TYPE 1
#elif defined(DT_INT8)
typedef char T;
typedef char CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_UINT8)
typedef uchar T;
typedef uchar CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_INT16)
typedef short T;
typedef short CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_UINT16)
typedef ushort T;
typedef ushort CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_INT32)
typedef int T;
typedef int CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_UINT32)
typedef uint T;
typedef uint CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_INT64)
typedef long T;
typedef long CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#elif defined(DT_UINT64)
typedef ulong T;
typedef ulong CT;
#define LOAD(p, i) ((p)[i])
#define IS_FLOAT_TYPE 0
#else
#error "clpool: no DT_* dtype macro given"
#endif

/*
 * Vector forms for kernels that give each work-item 8 outputs:
 *   T8, T16        storage vectors (ushort8 for float16/bfloat16)
 *   CT8, CT16      compute vectors (float8 for float16/bfloat16)
 *   TO_CT8(r), TO_CT16(r)   storage -> compute (exact)
 *   VLOAD8C(p), VLOAD16C(p) load as compute vectors
 *   MAX_BETTER8(v, best)    per-lane MAX_BETTER as an int8 mask (-1 = take v)
 *   SELECT_MASK8(m), RAW_MASK8(m)  that mask at CT8's / T8's element width
 * Max-like kernels select the storage bits alongside the values and store
 * the bits, so results are exact for every dtype (float16/bfloat16 NaN
 * payloads included) without converting back.
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
typedef ushort8 T8;
typedef ushort16 T16;
typedef float8 CT8;
typedef float16 CT16;
#define RAW_MASK8(m) convert_short8(m)
#if defined(DT_FLOAT16)
/* Bit-level half -> float (vload_half is slow on PoCL): scaling by 2^112
 * converts normals and subnormals alike; inf/NaN keep their payload. */
#define CLPOOL_HALF_TO_FLOAT(n)                                                              \
    inline float##n half##n##_to_float(ushort##n h)                                         \
    {                                                                                        \
        const uint##n x = convert_uint##n(h);                                                \
        const uint##n em = x & 0x7fffu;                                                      \
        const uint##n finite = as_uint##n(as_float##n(em << 13) * 0x1p112f);                \
        const uint##n special = (em << 13) | 0x7f800000u;                                    \
        return as_float##n(select(finite, special, convert_uint##n(em >= 0x7c00u)) |         \
                           ((x & 0x8000u) << 16));                                           \
    }
CLPOOL_HALF_TO_FLOAT(8)
CLPOOL_HALF_TO_FLOAT(16)
#define TO_CT8(r) half8_to_float(r)
#define TO_CT16(r) half16_to_float(r)
#else
#define TO_CT8(r) as_float8(convert_uint8(r) << 16)
#define TO_CT16(r) as_float16(convert_uint16(r) << 16)
#endif
#else
#if defined(DT_FLOAT32)
#define CLPOOL_SCALAR float
#elif defined(DT_FLOAT64)
#define CLPOOL_SCALAR double
#elif defined(DT_INT8)
#define CLPOOL_SCALAR char
#elif defined(DT_UINT8)
#define CLPOOL_SCALAR uchar
#elif defined(DT_INT16)
#define CLPOOL_SCALAR short
#elif defined(DT_UINT16)
#define CLPOOL_SCALAR ushort
#elif defined(DT_INT32)
#define CLPOOL_SCALAR int
#elif defined(DT_UINT32)
#define CLPOOL_SCALAR uint
#elif defined(DT_INT64)
#define CLPOOL_SCALAR long
#else
#define CLPOOL_SCALAR ulong
#endif
#define CLPOOL_VEC2(t, n) t##n
#define CLPOOL_VEC(t, n) CLPOOL_VEC2(t, n)
typedef CLPOOL_VEC(CLPOOL_SCALAR, 8) T8;
typedef CLPOOL_VEC(CLPOOL_SCALAR, 16) T16;
typedef T8 CT8;
typedef T16 CT16;
#define TO_CT8(r) (r)
#define TO_CT16(r) (r)
#define RAW_MASK8(m) SELECT_MASK8(m)
#endif
#define VLOAD8C(p) TO_CT8(vload8(0, (p)))
#define VLOAD16C(p) TO_CT16(vload16(0, (p)))

#if IS_FLOAT_TYPE
/* Written as isgreater | (isnan & !isnan): the equivalent ~isnan(best) & ~(v <= best)
 * made PoCL's code 14x slower on a plain two-input Max. */
#define MAX_BETTER8(v, best) convert_int8(isgreater(v, best) | (isnan(v) & ~isnan(best)))
#else
#define MAX_BETTER8(v, best) convert_int8((v) > (best))
#endif
/* A 64-bit select() mask from an int8 one. Not plain convert_long8(m):
 * rusticl (Mesa 22.3) folds the sign test of a widened comparison result to
 * false, so select() would never take b; a fresh 64-bit compare is kept. */
#define LONG_MASK8(m) (convert_long8(m) != 0)
/* select() wants a mask with CT8's element width. */
#if defined(DT_FLOAT64) || defined(DT_INT64) || defined(DT_UINT64)
#define SELECT_MASK8(m) LONG_MASK8(m)
#elif defined(DT_INT8) || defined(DT_UINT8)
#define SELECT_MASK8(m) convert_char8(m)
#elif defined(DT_INT16) || defined(DT_UINT16)
#define SELECT_MASK8(m) convert_short8(m)
#else
#define SELECT_MASK8(m) (m)
#endif

/*
 * The library-wide NaN rule for max-like ops: NaN propagates. `v` replaces
 * `best` when it is larger, or when it is the first NaN seen; once `best` is
 * NaN it stays (so Indices point at the first NaN in tap order). Ties keep
 * the earlier element (strict comparison).
 */
#if IS_FLOAT_TYPE
#define MAX_BETTER(v, best) (isgreater(v, best) || (isnan(v) && !isnan(best)))
#else
#define MAX_BETTER(v, best) ((v) > (best))
#endif

/* Maximum spatial rank handled by the kernels; equals CLPOOL_MAX_SPATIAL. */
#define CLPOOL_KERNEL_MAX_SPATIAL 10

/*
 * Reductions accumulate in AT: float for float32/float16/bfloat16, double
 * for float64. STORE(p, i, v) rounds an AT once to the storage type
 * (round to nearest even; NaN stays NaN).
 */
#if defined(DT_FLOAT64)
typedef double AT;
#define STORE(p, i, v) ((p)[i] = (v))
#elif defined(DT_FLOAT16)
typedef float AT;
#define STORE(p, i, v) vstore_half_rte((v), (i), (__global half *)(p))
#elif defined(DT_BFLOAT16)
typedef float AT;
inline ushort float_to_bfloat16(float f)
{
    uint u = as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (ushort)(u >> 16);
}
#define STORE(p, i, v) ((p)[i] = float_to_bfloat16(v))
#elif IS_FLOAT_TYPE
typedef float AT;
#define STORE(p, i, v) ((p)[i] = (v))
#endif
