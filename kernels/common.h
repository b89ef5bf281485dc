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
 * Vector forms for kernels that give each work-item n = 8 or 16 outputs
 * (n may be a macro such as VW: the pasting helpers expand it first):
 *   TV(n), CTV(n)          storage / compute vectors (ushortn / floatn for
 *                          float16 and bfloat16); T8, CT8, T16, CT16 name them
 *   TO_CTV(n, r)           storage -> compute (exact)
 *   VLOADV(n, p), VSTOREV(n, v, p)  vloadn(0, p) / vstoren(v, 0, p)
 * The max rule and its masks are reduce_max.h's, the sums' reduce_sum.h's.
 */
#define CLPOOL_PASTE(a, b) a##b
#define CLPOOL_XPASTE(a, b) CLPOOL_PASTE(a, b)

/* Every (any) lane of a 0/-1 mask set. Where clang compiles for the CPU itself one
 * kortest (PoCL's all() and any() test lane by lane, and stops at 16 lanes). */
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define MASK_ALL(m) (__builtin_reduce_and(m) != 0)
#define MASK_ANY(m) (__builtin_reduce_or(m) != 0)
#else
#define MASK_ALL(m) all(m)
#define MASK_ANY(m) any(m)
#endif
#define VLOADV(n, p) CLPOOL_XPASTE(vload, n)(0, (p))
#define VSTOREV(n, v, p) CLPOOL_XPASTE(vstore, n)((v), 0, (p))
#define INTV(n) CLPOOL_XPASTE(int, n)
#define LONGV(n) CLPOOL_XPASTE(long, n)
#define CONVERT_INTV(n, x) CLPOOL_XPASTE(convert_int, n)(x)
#define CONVERT_LONGV(n, x) CLPOOL_XPASTE(convert_long, n)(x)
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define TV(n) CLPOOL_XPASTE(ushort, n)
#define CTV(n) CLPOOL_XPASTE(float, n)
#define RAW_MASKV(n, m) CLPOOL_XPASTE(convert_short, n)(m)
#if defined(DT_FLOAT16)
/* Bit-level half -> float (vload_half is slow on PoCL): scaling by 2^112
 * converts normals and subnormals alike; inf/NaN keep their payload. */
#define CLPOOL_HALF_TO_FLOAT(n)                                                              \
    static inline float##n half##n##_to_float(ushort##n h)                                         \
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
#define TO_CTV(n, r) CLPOOL_XPASTE(CLPOOL_XPASTE(half, n), _to_float)(r)
#else
#define TO_CTV(n, r) CLPOOL_XPASTE(as_float, n)(CLPOOL_XPASTE(convert_uint, n)(r) << 16)
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
#define TV(n) CLPOOL_XPASTE(CLPOOL_SCALAR, n)
#define CTV(n) TV(n)
#define TO_CTV(n, r) (r)
#define RAW_MASKV(n, m) SELECT_MASKV(n, m)
#endif
typedef TV(8) T8;
typedef TV(16) T16;
typedef CTV(8) CT8;
typedef CTV(16) CT16;
/*
 * STORE_BITSV(n, v, p), STORE_LONGV(n, v, p): vstoren(v, 0, p) for storage vectors and int64 Indices as one
 * store through an element-aligned vector type: PoCL 3.1 lowers vstore16 of chars to 16 single-byte stores.
 */
typedef TV(8) __attribute__((aligned(sizeof(T)))) T8_elem_aligned;
typedef TV(16) __attribute__((aligned(sizeof(T)))) T16_elem_aligned;
typedef long8 __attribute__((aligned(8))) long8_elem_aligned;
typedef long16 __attribute__((aligned(8))) long16_elem_aligned;
#define STORE_BITSV(n, v, p) (*(__global CLPOOL_XPASTE(CLPOOL_XPASTE(T, n), _elem_aligned) *)(p) = (v))
#define STORE_LONGV(n, v, p) (*(__global CLPOOL_XPASTE(CLPOOL_XPASTE(long, n), _elem_aligned) *)(p) = (v))
/* Stores `lanes` (1..VW, the including kernel's lanes) lanes of v at p with
 * store_vector (STORE_BITSV, STORE_LONGV) when whole (no run-time vector
 * subscripts in OpenCL C 1.2). */
#define STORE_LANES(etype, store_vector, v, lanes, p)        \
    do {                                                     \
        if ((lanes) == VW) {                                 \
            store_vector(VW, (v), (p));                      \
        } else {                                             \
            etype lane_[VW];                                 \
            VSTOREV(VW, (v), lane_);                         \
            for (int j_ = 0; j_ < (lanes); ++j_)             \
                (p)[j_] = lane_[j_];                         \
        }                                                    \
    } while (0)
/*
 * SHARED_ITEM: a work-item several kernels of one program run, each with its own
 * constant. On CPU targets (PoCL) not inlined at build, where PoCL would optimise
 * a copy per kernel; its code generation inlines it into each kernel anyway.
 * Elsewhere, and for the kernel warnings check (-DCLPOOL_INLINE_SHARED), inlined.
 * Figures: docs/performance.md, Kernels of one program.
 */
#if (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__)) && \
    !defined(CLPOOL_INLINE_SHARED)
#define SHARED_ITEM __attribute__((noinline)) static
#else
#define SHARED_ITEM __attribute__((always_inline)) static inline
#endif

/*
 * -DSTREAM_STORES=1 (clpool__stream_stores_for): STORE_STREAMED(vec_t, v, p, cached) stores a whole aligned vector
 * non-temporally (else runs `cached`), so lines overwritten whole are not first read for ownership. x86-64 only
 * (PoCL): the stores are weakly ordered, so a work-item ends with STREAM_FENCE() (sfence) before it is done.
 */
#ifndef STREAM_STORES
#define STREAM_STORES 0
#endif
#if STREAM_STORES && defined(__clang__) && defined(__x86_64__)
#define STREAM_FENCE() __builtin_ia32_sfence()
#define STORE_STREAMED(vec_t, v, p, cached)                                          \
    do {                                                                            \
        if (((ulong)(p) & (sizeof(vec_t) - 1)) == 0)                                \
            __builtin_nontemporal_store((v), (__global vec_t *)(p));                \
        else                                                                        \
            cached;                                                                 \
    } while (0)
#else
#define STREAM_FENCE() ((void)0)
#define STORE_STREAMED(vec_t, v, p, cached) cached
#endif
/*
 * PREFETCH(p) hints that the line at global pointer p is read soon; prefetch_bytes(p, bytes) each 64-byte line
 * of a range. Only where clang compiles to the CPU's own instructions (PoCL): one flat address space and no
 * faulting prefetch, so ranges may run past a buffer's end. OpenCL's prefetch() is a no-op in PoCL 3.1.
 */
#define CACHE_LINE_BYTES 64
/* How far ahead of their reads streaming loops (the MaxPool row sweep, the global sums) prefetch. */
#define PREFETCH_AHEAD_BYTES 4096
/* Kernels whose work-item takes a whole plane (or a group of planes)
 * prefetch the next one's where planes are at most this long: shorter runs
 * than the hardware prefetcher ramps up on (global_max_pool.cl, maxpool2d.cl, maxpool2d_flat.cl). */
#define PREFETCH_PLANE_BYTES 4096
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define PREFETCH(p) __builtin_prefetch((const void *)(ulong)(p)) /* no generic pointers in OpenCL C 1.2 */
#define PREFETCH_WRITE(p) __builtin_prefetch((const void *)(ulong)(p), 1)
#else
#define PREFETCH(p) ((void)(p))
#define PREFETCH_WRITE(p) ((void)(p))
#endif
static inline void prefetch_bytes(const __global void *p, long bytes)
{
    for (long b = 0; b < bytes; b += CACHE_LINE_BYTES) PREFETCH((const __global char *)p + b);
}
/* prefetch_bytes for lines about to be written (x86 prefetchw: fetched for
 * ownership, so the stores do not wait for it). */
static inline void prefetch_write_bytes(__global void *p, long bytes)
{
    for (long b = 0; b < bytes; b += CACHE_LINE_BYTES) PREFETCH_WRITE((__global char *)p + b);
}

#define TO_CT8(r) TO_CTV(8, r)
#define TO_CT16(r) TO_CTV(16, r)
#define VLOAD8C(p) TO_CT8(vload8(0, (p)))
#define VLOAD16C(p) TO_CT16(vload16(0, (p)))

/* A 64-bit select() mask from an int mask. Not plain convert_longn(m):
 * rusticl (Mesa 22.3) folds the sign test of a widened comparison result to
 * false, so select() would never take b; a fresh 64-bit compare is kept. */
#define LONG_MASKV(n, m) (CONVERT_LONGV(n, m) != 0)
#define LONG_MASK8(m) LONG_MASKV(8, m)
/* select() wants a mask with CTV's element width. */
#if defined(DT_FLOAT64) || defined(DT_INT64) || defined(DT_UINT64)
#define SELECT_MASKV(n, m) LONG_MASKV(n, m)
#elif defined(DT_INT8) || defined(DT_UINT8)
#define SELECT_MASKV(n, m) CLPOOL_XPASTE(convert_char, n)(m)
#elif defined(DT_INT16) || defined(DT_UINT16)
#define SELECT_MASKV(n, m) CLPOOL_XPASTE(convert_short, n)(m)
#else
#define SELECT_MASKV(n, m) (m)
#endif
#define SELECT_MASK8(m) SELECT_MASKV(8, m)
#define RAW_MASK8(m) RAW_MASKV(8, m)

/*
 * Select masks: MASKV(n) has the storage element's width, so select() on
 * keys and storage bits needs no conversion; TO_MASKV(n, m) makes an intn
 * mask (0 / -1) one.
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define MASK_SCALAR short
#elif defined(DT_FLOAT32) || defined(DT_INT32) || defined(DT_UINT32)
#define MASK_SCALAR int
#elif defined(DT_FLOAT64) || defined(DT_INT64) || defined(DT_UINT64)
#define MASK_SCALAR long
#elif defined(DT_INT8) || defined(DT_UINT8)
#define MASK_SCALAR char
#else
#define MASK_SCALAR short
#endif
#define MASKV(n) CLPOOL_XPASTE(MASK_SCALAR, n)
#if defined(DT_FLOAT32) || defined(DT_INT32) || defined(DT_UINT32)
#define TO_MASKV(n, m) (m)
#elif defined(DT_FLOAT64) || defined(DT_INT64) || defined(DT_UINT64)
#define TO_MASKV(n, m) LONG_MASKV(n, m)
#else
#define TO_MASKV(n, m) CLPOOL_XPASTE(CLPOOL_XPASTE(convert_, MASK_SCALAR), n)(m)
#endif

/* On a kernel: 512-bit vectors where the target has them (LLVM otherwise
 * prefers 256-bit ones on skylake-avx512 and splits every 16-float op);
 * clang-only, other compilers would warn about the attribute. */
#if defined(__clang__)
#define CLPOOL_WIDE_VECTORS __attribute__((min_vector_width(512)))
#else
#define CLPOOL_WIDE_VECTORS
#endif

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
static inline ushort float_to_bfloat16(float f)
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
