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
 * The library-wide NaN rule for max-like ops: NaN propagates. `v` replaces
 * `best` when it is larger, or when it is the first NaN seen; once `best` is
 * NaN it stays (so Indices point at the first NaN in tap order). Ties keep
 * the earlier element (strict comparison).
 */
#if IS_FLOAT_TYPE
#define MAX_BETTER(v, best) (!isnan(best) && !((v) <= (best)))
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
