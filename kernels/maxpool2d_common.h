/*
 * The 2-D kernels' shared part (maxpool2d.cl, maxpool2d_plane.cl,
 * maxpool2d_flat.cl), built after window_lanes.h.
 *
 * 2-D fast path for the common windows: kernel up to 13x13, strides 1 or 2 (3 and 4 with 16 lanes),
 * no dilation (other attributes take the general kernels, maxpool_nd.cl). Specialised
 * on kernel and stride (-DKH -DKW -DSH -DSW: small constants, loops fully
 * unrolled) over a 3-D NDRange (column block, row group, n*C), so no
 * work-item divides.
 *
 * A work-item owns VW (16, or 8 for 8-byte types) neighbouring outputs of
 * each of `block_rows` rows (a kernel argument) and loads each tap as one vector (vloadVW, or the even
 * lanes of wider loads at stride 2), with padding masked per lane: explicit
 * SIMD, which PoCL does not get from its work-item loops, and wide loads on
 * GPUs. A row whose vector loads would leave the input buffer itself
 * (first/last rows of a tensor at the very start/end of its cl_mem) is read
 * through a private copy (READ_ROW). in_limit = elements in the input
 * cl_mem; H and W must fit in int (the host checks).
 */

/*
 * Where a work-item's Indices go. -DINDEX_MAP=1 (with Indices, row-major):
 * the input is the first pass of 3-D pooling in two passes, and the flat
 * index of each winner, an offset into that pass's output, is mapped
 * through the first pass's own Indices (index_map) as it is stored, so that
 * every writer of an output (blocks shifted to a row's end overlap) writes
 * the same final index.
 */
#if !defined(INDEX_MAP)
#define INDEX_MAP 0
#endif
#if INDEX_MAP
typedef struct index_sink {
    __global long *at;
    __global const long *map;
} index_sink;
#else
typedef __global long *index_sink;
#endif

/*
 * Three paths: the fast path (no Indices), the argmax path (Indices) and
 * the exact path, which redoes the blocks the other two hand back (NaN, and
 * for the fast path float16/bfloat16 -0). The argmax and exact paths cover
 * VW outputs per row, ROWS and EXACT_ROWS rows. Without Indices a work-item covers
 * WIDEN * VW outputs per row (-DWIDEN, 1 unless the host asks for more:
 * 2 for 2-byte and 4 for 1-byte types on CPUs, so a vector fills a 512-bit
 * register). Where clang compiles straight to the CPU's own instruction set
 * (PoCL defines __x86_64__ or __aarch64__) the fast path runs on
 * FVW = WIDEN * VW lanes at once; elsewhere, SPIR/SPIR-V above all (rusticl
 * defines neither, nor always __SPIR__, and its backend rejects vectors of
 * more than 16 lanes), it runs WIDEN blocks of VW lanes one after another
 * (FAST_SUBBLOCKS). So do windows wider than 7 at stride 2 (their taps are
 * loaded one by one as the even lanes of vload16 pairs, VW lanes at most)
 * and strides 3 and 4 (four loads and shuffles per tap, 16 lanes).
 */
#ifndef WIDEN
#define WIDEN 1
#endif
#ifndef EXACT_ROWS
#error "-DEXACT_ROWS: output rows per exact-path block"
#endif
#if WIDEN > 1 && VW == 16 && defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__)) && \
    (SW == 1 || (SW == 2 && KW <= 7))
#define WIDE_VECTORS 1
#define FAST_SUBBLOCKS 1
#if WIDEN == 2
#define FVW 32
#elif WIDEN == 4
#define FVW 64
#else
#error "WIDEN must be 1, 2 or 4"
#endif
#else
#define WIDE_VECTORS 0
#define FAST_SUBBLOCKS WIDEN
#define FVW VW
#endif

/* Tap kw = 2m + p of lane j: lane j + m of the even (p = 0) or odd (p = 1)
 * elements while it exists, then the third load's element 2(j - (n - m)) + p. */
#define TAP_SRC(j, n, m, p) ((j) < (n) - (m) ? (j) + (m) : (n) + 2 * ((j) - ((n) - (m))) + (p))
/* Lane j - 1 of the odd elements, lane 0 from the element before them. */
#define PREV_SRC(j, n, m, p) ((j) == 0 ? (n) : (j) - 1)

/*
 * Storage bits of the taps of n outputs at stride SW. ROW_TAPS (stride 2,
 * dilation 1, 16 lanes or more, clang): a kernel row's loads are shared by
 * all its taps: the row's even and odd elements (one two-source permute
 * each), and for kw >= 2 those shifted down by kw/2 lanes with the top lanes
 * from a third load. Separate loads per tap would each extract the even
 * lanes of two vectors, which LLVM turns into piecemeal loads for 1- and
 * 2-byte types. The loads start at the block's first output column times 2,
 * a multiple of 2n (aligned where rows are): an odd left pad (-DODD_START=1,
 * 3x3/s2/p1) puts the first window's column 1 before that, and its tap 0 is
 * the odd elements moved up a lane under that one element (a broadcast).
 * Loads from the window's column had split a cache line each: float32
 * 3x3/s2/p1 spent a fifth of its time on it. SPAN(n) = elements read from a
 * block's first window's column on one row.
 */
#ifndef ODD_START
#define ODD_START 0
#endif
#if SW == 2 && VW == 16 && KW <= 7 && defined(__clang__)
#define ROW_TAPS 1
#define THIRD_LOAD (KW - ODD_START > 2) /* a tap 2 or more past the loads' first column */
#define BEFORE_LOAD (2 + THIRD_LOAD)                 /* where the element before the loads goes (ODD_START) */
#define ROW_LOADS (BEFORE_LOAD + ODD_START)          /* vectors a row's loads fill (DEFINE_ROW_LOADS_IN) */
#define SPAN(n) (ODD_START + (THIRD_LOAD ? 3 : 2) * (n))
#define ROW_TAP(v, r2, n, m, p) __builtin_shufflevector(v, r2, LANES(TAP_SRC, n, m, p))
#else
#define ROW_TAPS 0
#define SPAN(n) ((KW - 1) + SW * (n))
#if SW == 1
#define TAPV(load, space, p) load(space, p)
#elif SW == 2 && VW == 8
#define TAPV(load, space, p) (vload16(0, (p)).even)
#elif SW == 2
#define TAPV(load, space, p) ((T16)(vload16(0, (p)).even, vload16(1, (p)).even))
#elif STRIDED16_TAPS
#define TAPV(load, space, p) STRIDED_LOAD16(p)
#else /* strides 3 and 4 element by element: compilers other than clang */
#define STRIDE_SRC(j, n, s, p) (p)[(j) * (s)]
#define TAPV(load, space, p) ((TV(VW))(LANES(STRIDE_SRC, VW, SW, p)))
#endif
#endif
/* The fast and argmax paths stream over a block's output rows: the next
 * output row's window shares CARRY input rows with this one's and adds NEW. */
#define CARRY (KH > SH ? KH - SH : 0)
#define NEW (KH - CARRY)
#define CARRY_SLOTS (CARRY > 0 ? CARRY : 1) /* no zero-length arrays */
/* Elements a block reads from its first column on one row: the fast path's
 * FAST_SUBBLOCKS loads or the exact path's WIDEN ones, whichever reach further. */
#define BLOCK_SPAN                                                                  \
    max(SPAN(FVW) + (FAST_SUBBLOCKS - 1) * FVW * SW, SPAN(VW) + (WIDEN - 1) * VW * SW)
#define VLOAD_VW(space, p) VLOADV(VW, p)

/* The storage bits of the type's lowest value (-inf for floats): what a
 * padding tap reads as when no Indices are wanted. It never beats a real tap,
 * and where it ties one the bits are the same. */
#if defined(DT_FLOAT32)
#define LOWEST_BITS (-INFINITY)
#elif defined(DT_FLOAT64)
#define LOWEST_BITS (-(double)INFINITY)
#elif defined(DT_FLOAT16)
#define LOWEST_BITS ((ushort)0xfc00)
#elif defined(DT_BFLOAT16)
#define LOWEST_BITS ((ushort)0xff80)
#elif defined(DT_INT8)
#define LOWEST_BITS ((char)-128)
#else
#define LOWEST_BITS ((uchar)0)
#endif

/*
 * DEFINE_ROW_TAPS(name, raw, type, n, watch_t, load, convert, watch):
 * `void name(row, taps, ok)` loads the KW tap vectors (n lanes) of one input
 * row as `type` from __global memory, `name_private` the same from a private
 * copy (READ_ROW); `load(space, p)` reads n storage elements (`raw`), `convert`
 * (lane-wise on the storage bits, so it commutes with the lane shuffles) is
 * applied once per loaded vector, and `watch(ok, a, b)` folds two loaded
 * vectors' storage bits into *ok (watch_t): the fast and argmax paths use it
 * to notice input the exact path must redo (NaN, float16/bfloat16 -0); the
 * exact path watches nothing. Under ODD_START it is given the converted taps
 * instead: only float32's fast path watches there, whose `convert` is the
 * identity.
 */
#if ROW_TAPS
/* name_loads(row, r, ok): a row's ROW_LOADS vectors, converted: its loads in
 * r[0..1] (r[2] too with THIRD_LOAD) and under ODD_START the element before
 * them, broadcast, in r[BEFORE_LOAD]. Under ODD_START it watches nothing:
 * name (below) watches the taps; its other caller, COLUMNS_FIRST, runs only
 * for types whose loads are not watched (integers, 16-bit floats). */
#define DEFINE_ROW_LOADS_IN(name, space, raw, type, n, watch_t, load, convert, watch)             \
    __attribute__((always_inline)) static inline void name(space const T *row, type *r, watch_t *ok)      \
    {                                                                                              \
        space const T *from = row + ODD_START;                                                     \
        const raw a0 = load(space, from), a1 = load(space, from + (n));                            \
        /* without a tap 2 past `from` the third load is not made (SPAN) */                        \
        const raw a2 = THIRD_LOAD ? load(space, from + 2 * (n)) : a0;                              \
        const raw before = ODD_START ? (raw)(row[0]) : a0; /* the element before `from` */         \
        if (!ODD_START) { /* under ODD_START name (below) watches the taps */                     \
            watch(ok, a0, a1);                                                                     \
            if (THIRD_LOAD) watch(ok, a2, a2);                                                     \
        }                                                                                          \
        r[0] = convert(a0);                                                                        \
        r[1] = convert(a1);                                                                        \
        if (THIRD_LOAD) r[2] = convert(a2);                                                        \
        if (ODD_START) r[BEFORE_LOAD] = convert(before);                                           \
    }
/* The KW taps of n lanes from a row's loads r (name_loads), lane-wise
 * functions of the loaded elements taken before the shuffles. */
#define ROW_TAPS_OF_LOADS(type, n, r, taps)                                                        \
    do {                                                                                           \
        const type even = __builtin_shufflevector((r)[0], (r)[1], LANES(EVEN_SRC, n, 0, 0));       \
        const type odd = __builtin_shufflevector((r)[0], (r)[1], LANES(ODD_SRC, n, 0, 0));         \
        _Pragma("unroll") for (int kw = 0; kw < KW; ++kw)                                          \
        {                                                                                          \
            switch (kw - ODD_START) { /* a constant after unrolling: the tap's column past `from` */ \
            case -1: (taps)[kw] = __builtin_shufflevector(odd, (r)[BEFORE_LOAD], LANES(PREV_SRC, n, 0, 0)); break; \
            case 0: (taps)[kw] = even; break;                                                      \
            case 1: (taps)[kw] = odd; break;                                                       \
            case 2: (taps)[kw] = ROW_TAP(even, (r)[2], n, 1, 0); break;                            \
            case 3: (taps)[kw] = ROW_TAP(odd, (r)[2], n, 1, 1); break;                             \
            case 4: (taps)[kw] = ROW_TAP(even, (r)[2], n, 2, 0); break;                            \
            case 5: (taps)[kw] = ROW_TAP(odd, (r)[2], n, 2, 1); break;                             \
            default: (taps)[kw] = ROW_TAP(even, (r)[2], n, 3, 0); break;                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#define DEFINE_ROW_TAPS_IN(name, loads, space, raw, type, n, watch_t, load, convert, watch)       \
    DEFINE_ROW_LOADS_IN(loads, space, raw, type, n, watch_t, load, convert, watch)                 \
    __attribute__((always_inline)) static inline void name(space const T *row, type *taps, watch_t *ok)   \
    {                                                                                              \
        type r[4];                                                                                 \
        loads(row, r, ok);                                                                         \
        ROW_TAPS_OF_LOADS(type, n, r, taps);                                                       \
        /* Under ODD_START the taps are watched, in pairs, rather than the loads and `before`:   \
         * a compare of the splat becomes a scalar compare and mask broadcasts, and a compare    \
         * of tap 0 alone a second copy of its shuffles. */                                      \
        if (ODD_START)                                                                             \
            _Pragma("unroll") for (int kw = 0; kw < KW; kw += 2) watch(ok, taps[kw], taps[min(kw + 1, KW - 1)]); \
    }
#else
#define DEFINE_ROW_TAPS_IN(name, loads, space, raw, type, n, watch_t, load, convert, watch)       \
    __attribute__((always_inline)) static inline void name(space const T *row, type *taps, watch_t *ok)   \
    {                                                                                              \
        /* in pairs: one ordered compare watches two loads */                                      \
        _Pragma("unroll") for (int kw = 0; kw < KW; kw += 2)                                       \
        {                                                                                          \
            const raw a = TAPV(load, space, row + kw), b = TAPV(load, space, row + min(kw + 1, KW - 1)); \
            watch(ok, a, b);                                                                       \
            taps[kw] = convert(a);                                                                 \
            if (kw + 1 < KW) taps[kw + 1] = convert(b);                                            \
        }                                                                                          \
    }
#endif
#define DEFINE_ROW_TAPS(name, ...)                                  \
    DEFINE_ROW_TAPS_IN(name, name##_loads, __global, __VA_ARGS__)   \
    DEFINE_ROW_TAPS_IN(name##_private, name##_loads_private, __private, __VA_ARGS__)

/*
 * READ_ROW(fn, n, h, w0): fn(row h from column w0, taps, &ok), reading the
 * SPAN(n) elements fn's loads cover. In a block whose loads may leave the
 * input buffer (`guarded`: only blocks at the very start or end of the
 * cl_mem) a row that would is copied first, elements outside the buffer
 * (offsets from `plane` outside [buf_lo, buf_hi)) as the lowest value: they
 * lie outside the row, so they are masked like padding. Needs `plane`,
 * `guarded`, `buf_lo`, `buf_hi`, `taps` and `ok` in scope.
 */
#define READ_ROW(fn, n, h, w0)                                                                     \
    do {                                                                                           \
        const long at_ = (long)(h) * W + (w0);                                                     \
        if (guarded && (at_ < buf_lo || at_ + SPAN(n) > buf_hi)) {                                 \
            T copy_[SPAN(n)];                                                                      \
            for (int e_ = 0; e_ < SPAN(n); ++e_)                                                   \
                copy_[e_] = at_ + e_ >= buf_lo && at_ + e_ < buf_hi ? plane[at_ + e_] : LOWEST_BITS; \
            fn##_private(copy_, taps, &ok);                                                        \
        } else {                                                                                   \
            fn(plane + at_, taps, &ok);                                                            \
        }                                                                                          \
    } while (0)

/* Whether input row h lies inside the plane (uniform for the work-item).
 * Compared as int (the host keeps H in int): llvmpipe (Mesa 22.3) got the
 * long compares wrong in the streamed paths and read the row above a plane
 * as inside it. */
__attribute__((always_inline)) static inline int row_inside_plane(const long h, const int H)
{
    const int row = (int)h;
    return row >= 0 && row < H;
}

#define ROW_BITS(v) (v)
#define WATCH_NOTHING(ok, a, b) ((void)(ok))
/* *ok (a 0/-1 mask) keeps the lanes where a and b hold no NaN: x == x is one
 * ordered compare (isunordered() lowers to integer bit tests on PoCL). */
#define WATCH_ORDERED(ok, a, b) (*(ok) &= ((a) == (a)) & ((b) == (b)))
DEFINE_ROW_TAPS(row_taps_bits, TV(VW), TV(VW), VW, MASKV(VW), VLOAD_VW, ROW_BITS, WATCH_NOTHING)
/* The Indices path's row taps (argmax_row): float32/float64
 * compare values with a plain `>`, exact only while the input holds no NaN
 * (WATCH_ORDERED checks); the other types' keys rank NaN themselves. */
#if WITH_INDICES
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
#define ARGMAX_FALLBACK 1
#define ARGMAX_WATCH WATCH_ORDERED
#else
#define ARGMAX_FALLBACK 0
#define ARGMAX_WATCH WATCH_NOTHING
#endif
DEFINE_ROW_TAPS(row_taps_argmax, TV(VW), TV(VW), VW, MASKV(VW), VLOAD_VW, ROW_BITS, ARGMAX_WATCH)
/* Blocks the exact path may have to redo: with Indices, float32/float64 ones
 * with a NaN; without, those of every floating type (see the fast path). */
#define EXACT_PATH ARGMAX_FALLBACK
#else
#define EXACT_PATH IS_FLOAT_TYPE
#endif

/* DEFINE_LANES_INSIDE_ROW(name, mask, ints, n, to_mask): `void name(valid, W,
 * w0, interior)` sets, per kernel column, which of n lanes' taps fall inside
 * a row (all rows alike); `ints` holds lane columns, `to_mask` turns their
 * int comparison into `mask`. */
#define DEFINE_LANES_INSIDE_ROW(name, mask, ints, n, to_mask)                                           \
    __attribute__((always_inline)) static inline void name(mask *valid, const int W, const int w0, const int interior) \
    {                                                                                                   \
        _Pragma("unroll") for (int kw = 0; kw < KW; ++kw)                                               \
        {                                                                                               \
            const ints col = w0 + kw + (ints)(LANES(LANE_ID, n, 0, 0)) * SW;                            \
            valid[kw] = interior ? (mask)(-1) : to_mask((col >= 0) & (col < W));                        \
        }                                                                                               \
    }
#define TO_MASK_VW(m) TO_MASKV(VW, m)
DEFINE_LANES_INSIDE_ROW(lanes_inside_row, MASKV(VW), INTV(VW), VW, TO_MASK_VW)

