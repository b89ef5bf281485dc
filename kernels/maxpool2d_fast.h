/* The 2-D fast path (no Indices): after maxpool2d_common.h. */
#if !WITH_INDICES
/*
 * The fast path's FVW-lane types, written with operators only (OpenCL's
 * built-ins stop at 16 lanes): fast_vec (compared values: keys for
 * float16/bfloat16), fast_bits (storage), fast_mask (fast_vec's element
 * width), fast_int (lane columns).
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define FAST_ELEM short
#else
#define FAST_ELEM CLPOOL_SCALAR
#endif
#if WIDE_VECTORS
typedef FAST_ELEM fast_vec __attribute__((ext_vector_type(FVW)));
typedef T fast_bits __attribute__((ext_vector_type(FVW)));
typedef MASK_SCALAR fast_mask __attribute__((ext_vector_type(FVW)));
typedef int fast_int __attribute__((ext_vector_type(FVW)));
typedef T __attribute__((ext_vector_type(FVW), aligned(sizeof(T)))) fast_bits_elem_aligned;
#define AS_FAST_VEC(x) __builtin_astype((x), fast_vec)
#define AS_FAST_BITS(x) __builtin_astype((x), fast_bits)
#define TO_FAST_MASK(m) __builtin_convertvector((m), fast_mask)
#else
typedef CLPOOL_XPASTE(FAST_ELEM, VW) fast_vec;
typedef TV(VW) fast_bits;
typedef MASKV(VW) fast_mask;
typedef INTV(VW) fast_int;
typedef TV(VW) __attribute__((aligned(sizeof(T)))) fast_bits_elem_aligned;
#define AS_FAST_VEC(x) CLPOOL_XPASTE(CLPOOL_XPASTE(as_, FAST_ELEM), VW)(x)
#define AS_FAST_BITS(x) CLPOOL_XPASTE(as_ushort, VW)(x)
#define TO_FAST_MASK(m) TO_MASKV(VW, m)
#endif
#define FAST_LOAD(space, p) (*(space const fast_bits_elem_aligned *)(p))

/*
 * Fast path without Indices: a window's maximum is the maximum of its rows'
 * maxima (separable: KW - 1 + KH - 1 combines per output instead of KH * KW
 * - 1), and each combine is one instruction, `b > a ? b : a`:
 *  - integers: max;
 *  - float32/float64: x86 maxps/maxpd, which keeps the earlier of two equal
 *    values, so +-0 ties go to the first in tap order;
 *  - float16/bfloat16: max of order keys (below).
 * Combining row maxima in row order keeps the row-major first-wins rule. It
 * is exact unless a block's input holds a NaN (maxps drops it) or, for the
 * 16-bit floats, a -0 (the tie rule wants the first zero's bits, and the
 * keys rank -0 below +0): then the exact path redoes the block, overwriting
 * what it stored. The block's watch (fast_watch: folded per loaded vector
 * and, for the 16-bit floats, per output vector) says whether it must.
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
/*
 * 16-bit float keys, in 16-bit wrap-around arithmetic on the storage bits b:
 * b itself for a clear sign bit, INF - b for a set one (the same function
 * turns keys back into bits). Finite values and infinities keep their order
 * from -inf (SHRT_MIN) to +inf (KEY_OF_INF), -0 ranks below +0, and every
 * NaN, of either sign, lies above +inf: a NaN in a window surfaces in its
 * maximum, so one check per output vector finds it. -0 is watched on the
 * raw bits (their signed minimum). Non-negative bits are their own keys:
 * a block converts (and watches) only from its first row that holds a set
 * sign bit on (signed_rows, fast_row_max), so the non-negative input of a
 * ReLU skips both. Two instructions where clang compiles for AVX-512BW
 * (sign mask, masked subtract, in inline assembly: LLVM turns the select
 * into four).
 */
#define FAST_LOWEST ((short)SHRT_MIN)
#define FAST_HIGHEST ((short)SHRT_MAX)
#define KEY_OF_INF KEY_INF
#if WIDE_VECTORS && FVW == 32 && defined(__clang__) && defined(__x86_64__) && defined(__AVX512BW__)
__attribute__((always_inline)) static inline fast_vec key_flip(const fast_vec b)
{
    fast_vec k = b;
    __asm__("vpmovw2m %1, %%k1\n\tvpsubw %1, %2, %0 %{%%k1%}" : "+v"(k) : "v"(b), "v"((fast_vec)KEY_INF) : "k1");
    return k;
}
#define ANY_SIGN_BIT(v) (__builtin_ia32_cvtw2mask512(v) != 0)
#else
#define key_flip(b) ((b) < (short)0 ? (fast_vec)KEY_INF - (b) : (b))
#if WIDE_VECTORS
#define ANY_SIGN_BIT(v) (__builtin_reduce_or((v) < (short)0) != 0)
#else
#define ANY_SIGN_BIT(v) any(v)
#endif
#endif
#define FAST_KEY(b) key_flip(AS_FAST_VEC(b))
#define FAST_BITS(k) AS_FAST_BITS(key_flip(k))
/* per lane the lowest storage bits seen, as short: SHRT_MIN is a -0 (or a NaN output, WATCH_OUTPUT) */
typedef fast_vec fast_watch;
#define FAST_WATCH_INIT ((fast_vec)SHRT_MAX)
#define FAST_WATCH(ok, a, b) (*(ok) = MIN_KEEP_FIRST(*(ok), MIN_KEEP_FIRST(AS_FAST_VEC(a), AS_FAST_VEC(b))))
#define WATCHES_OUTPUT 1
#else
#define FAST_LOWEST LOWEST_BITS
#if defined(DT_FLOAT32)
#define FAST_HIGHEST INFINITY
#elif defined(DT_FLOAT64)
#define FAST_HIGHEST ((double)INFINITY)
#elif defined(DT_INT8)
#define FAST_HIGHEST ((char)127)
#else
#define FAST_HIGHEST ((uchar)255)
#endif
#define FAST_KEY(v) (v)
#define FAST_BITS(k) (k)
typedef fast_mask fast_watch; /* lanes with no NaN seen */
#define FAST_WATCH_INIT ((fast_mask)-1)
#if IS_FLOAT_TYPE
#define FAST_WATCH WATCH_ORDERED
#else
#define FAST_WATCH WATCH_NOTHING
#endif
#define WATCHES_OUTPUT 0
#endif
#if WATCHES_OUTPUT /* the 16-bit floats' taps stay bits: fast_row_max makes keys where it must */
#define BITS_AS_FAST_VEC(b) AS_FAST_VEC(b)
DEFINE_ROW_TAPS(row_taps_fast, fast_bits, fast_vec, FVW, fast_watch, FAST_LOAD, BITS_AS_FAST_VEC, WATCH_NOTHING)
#else
DEFINE_ROW_TAPS(row_taps_fast, fast_bits, fast_vec, FVW, fast_watch, FAST_LOAD, FAST_KEY, FAST_WATCH)
#endif
DEFINE_LANES_INSIDE_ROW(fast_lanes_inside_row, fast_mask, fast_int, FVW, TO_FAST_MASK)

/* Outside the interior each tap is min()-ed with its kernel column's cap:
 * per lane the highest value where the tap lies inside the row, the lowest
 * where it is padding. A min keeps the taps in the compared type, so the
 * maxima stay x86 maxps; a mask select had turned every combine after it
 * into a compare and a blend. (min() turns a NaN tap into its cap, but the
 * block's NaN check sends it to the exact path anyway.) */
typedef struct block_edges {
    fast_vec cap[KW];
} block_edges;
#define INTERIOR_NEEDS_ROWS 0 /* fast_row_max checks every row */

__attribute__((always_inline)) static inline void block_edges_init(block_edges *e, const int W, const int w0,
                                                            const int interior)
{
    fast_mask valid[KW];
    fast_lanes_inside_row(valid, W, w0, interior);
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) e->cap[kw] = valid[kw] ? (fast_vec)(FAST_HIGHEST) : (fast_vec)(FAST_LOWEST);
}
#define CAPPED(tap, cap) MIN_KEEP_FIRST(cap, tap) /* x86 minps */

/* Stores `lanes` (1..FVW) lanes of v at p. A partial block (a row shorter
 * than FVW): on x86 with AVX-512 (PoCL there) one byte-masked store;
 * elsewhere through a private copy, as VW-lane stores, the last one ending at
 * `lanes` (overlapping the one before), single elements only below VW lanes.
 * The copy costs a store-forwarding stall per VW lanes, where AVX-512 can
 * mask instead. A macro, not a function: a wide
 * vector argument would change the ABI (-Wpsabi) on targets without AVX-512. */
#if defined(DT_FLOAT64)
#define T_BYTES 8
#elif defined(DT_FLOAT32)
#define T_BYTES 4
#elif defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define T_BYTES 2
#else
#define T_BYTES 1
#endif
#define FAST_BYTES (FVW * T_BYTES)
#if defined(__clang__) && defined(__x86_64__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    (FAST_BYTES == 16 || FAST_BYTES == 32 || FAST_BYTES == 64)
typedef char fast_bytes __attribute__((ext_vector_type(FAST_BYTES)));
#if FAST_BYTES == 64
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi512_mask
#define BYTE_MASK(n) ((n) >= 64 ? ~0ul : (1ul << (n)) - 1)
#elif FAST_BYTES == 32
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi256_mask
#define BYTE_MASK(n) ((n) >= 32 ? ~0u : (1u << (n)) - 1)
#else
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi128_mask
#define BYTE_MASK(n) ((ushort)((1u << min((n), 16)) - 1))
#endif
#define STORE_PARTIAL(v, lanes, p) \
    MASKED_STORE_BYTES((__global fast_bytes *)(p), __builtin_astype((v), fast_bytes), BYTE_MASK((lanes) * T_BYTES))
#else
#define STORE_PARTIAL(v, lanes, p)                                                           \
    do {                                                                                     \
        T lane_[FVW]; /* no run-time vector subscripts in OpenCL C 1.2 */                     \
        *(fast_bits_elem_aligned *)lane_ = (v);                                              \
        if ((lanes) < VW) {                                                                  \
            for (int j_ = 0; j_ < (lanes); ++j_) (p)[j_] = lane_[j_];                        \
        } else {                                                                             \
            for (int j_ = 0; j_ < (lanes); j_ += VW) {                                       \
                const int at_ = min(j_, (lanes) - VW);                                       \
                STORE_BITSV(VW, VLOADV(VW, lane_ + at_), (p) + at_);                         \
            }                                                                                \
        }                                                                                    \
    } while (0)
#endif
/* A whole fast-path output vector; under -DSTREAM_STORES (common.h) around
 * the cache where aligned. The exact path's redo of a block stores again
 * from the same thread; two work-items' overlapping edge blocks store the
 * same values. */
#define STORE_WHOLE(v, p) STORE_STREAMED(fast_bits, v, p, *(__global fast_bits_elem_aligned *)(p) = (v))
#define STORE_FAST(v, lanes, p)                                                              \
    do {                                                                                     \
        if ((lanes) == FVW)                                                                  \
            STORE_WHOLE(v, p);                                                               \
        else                                                                                 \
            STORE_PARTIAL(v, lanes, p);                                                      \
    } while (0)

/* *m = the maximum of input row h's KW taps per lane (padding taps are the
 * lowest value, a row outside the plane all lowest); folds the row's loads
 * into *ok. `interior` is about columns only (no caps, no guard): every
 * row is checked, so the first and last row groups of a plane stay interior.
 * 16-bit floats: taps with a set sign bit set *signed_rows, and from then on
 * the block's taps are made keys and watched for -0 (non-negative bits are
 * their own keys and hold no -0; a NaN among them surfaces in the output). */
__attribute__((always_inline)) static inline void fast_row_max(__global const T *plane, const int H, const int W, const long h,
                                                        const int w0, const fast_vec *cap, const int interior,
                                                        const int guarded, const long buf_lo, const long buf_hi,
                                                        fast_watch *row_ok, int *signed_rows, fast_vec *m)
{
    if (!row_inside_plane(h, H)) {
        *m = (fast_vec)(FAST_LOWEST);
        return;
    }
    fast_vec taps[KW];
    fast_watch ok = *row_ok;
    READ_ROW(row_taps_fast, FVW, h, w0);
#if WATCHES_OUTPUT
    if (!*signed_rows) {
        fast_vec any_bits = taps[0];
#pragma unroll
        for (int kw = 1; kw < KW; ++kw) any_bits |= taps[kw];
        *signed_rows = ANY_SIGN_BIT(any_bits);
    }
    if (*signed_rows) {
        fast_vec lowest = taps[0];
#pragma unroll
        for (int kw = 1; kw < KW; ++kw) lowest = MIN_KEEP_FIRST(lowest, taps[kw]);
        ok = MIN_KEEP_FIRST(ok, lowest);
#pragma unroll
        for (int kw = 0; kw < KW; ++kw) taps[kw] = key_flip(taps[kw]);
    }
#else
    (void)signed_rows;
#endif
    *row_ok = ok;
#pragma unroll
    for (int kw = 0; kw < KW; ++kw)
        if (!interior) taps[kw] = CAPPED(taps[kw], cap[kw]);
    /* from the first term, not from the lowest value (the compiler cannot drop a max with -inf: NaN) */
    fast_vec row_max = taps[0];
#pragma unroll
    for (int kw = 1; kw < KW; ++kw) row_max = MAX_KEEP_FIRST(row_max, taps[kw]);
    *m = row_max;
}

/*
 * Columns first (COLUMNS_FIRST: the row taps' stride-2 shuffles, 2- and
 * 1-byte types, at most one carried input row): an output row's input rows
 * are combined lane-wise as loaded, and the KW taps are shuffled out of that
 * column maximum once, not out of every row: half the shuffles and caps of
 * 3x3/s2. Its tap order is column-major, so only types whose ties are
 * exact (integers; 16-bit float keys, whose -0 and NaN the watch sends to
 * the exact path) take it: float32/float64 keep row-major order for +-0.
 * Under ODD_START the broadcast element is one more load (ROW_LOADS), so tap
 * 0's one-lane shift is made once per output row (the host asks for it for
 * 16-bit floats).
 */
#if ROW_TAPS && CARRY <= 1 && NEW <= 4 && !defined(DT_FLOAT32) && !defined(DT_FLOAT64)
#define COLUMNS_FIRST 1
#define CARRIED_VECTORS ROW_LOADS /* a row's loads */
#else
#define COLUMNS_FIRST 0
#define CARRIED_VECTORS CARRY_SLOTS
#endif
/* What a block carries from one output row to the next, and its NaN check. */
typedef struct block_carry {
    fast_vec max[CARRIED_VECTORS]; /* row maxima of the carried input rows, or (COLUMNS_FIRST) its loads */
    int signed_rows;               /* 16-bit floats: a set sign bit met (fast_row_max) */
} block_carry;
/* No struct: rusticl (Mesa 22.3) crashed compiling a block state that wrapped
 * the watch in one. For the 16-bit floats a NaN output folds SHRT_MIN into
 * the watch, as a -0 input does. */
typedef fast_watch block_ok;
#define BLOCK_OK_INIT FAST_WATCH_INIT
#if WATCHES_OUTPUT
/* C - key saturates at SHRT_MIN exactly for the keys above +inf's (NaN), C =
 * SHRT_MIN + KEY_OF_INF + 1: one vpsubsw. OpenCL's sub_sat stops at 16 lanes;
 * clang before 15 has no __builtin_elementwise_sub_sat (a compare then). */
#if !WIDE_VECTORS
#define NAN_OUT_TO_MIN(key) sub_sat((fast_vec)(SHRT_MIN + KEY_OF_INF + 1), key)
#elif defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_sub_sat)
#define NAN_OUT_TO_MIN(key) __builtin_elementwise_sub_sat((fast_vec)(SHRT_MIN + KEY_OF_INF + 1), key)
#endif
#endif
#ifndef NAN_OUT_TO_MIN
#define NAN_OUT_TO_MIN(key) ((fast_vec)SHRT_MIN & ((key) > KEY_OF_INF))
#endif
#define WATCH_OUTPUT(ok, key) (*(ok) = MIN_KEEP_FIRST(*(ok), NAN_OUT_TO_MIN(key)))
#define BLOCK_DONE(ok) MASK_ALL((ok) != (short)SHRT_MIN) /* no -0 in, no NaN out */
#else
#define WATCH_OUTPUT(ok, key) ((void)(ok))
#define BLOCK_DONE(ok) MASK_ALL(ok) /* no NaN seen */
#endif

#if COLUMNS_FIRST
/* Input rows h .. h + count - 1 (count <= NEW, a constant once inlined):
 * m[i] = per lane the maximum of their i-th loads (as keys; the lowest key
 * where no row is inside the plane) and last[i] row h + count - 1's. The
 * 16-bit floats check the rows' sign bits together (fast_row_max). */
__attribute__((always_inline)) static inline void fast_rows_columns(__global const T *plane, const int H, const int W,
                                                             const long h, const int count, const int w0,
                                                             const int guarded, const long buf_lo, const long buf_hi,
                                                             fast_watch *row_ok, int *signed_rows, fast_vec *m,
                                                             fast_vec *last)
{
    fast_vec rows[NEW][4];
    int inside[NEW];
    fast_watch ok = *row_ok;
#pragma unroll
    for (int j = 0; j < NEW; ++j) { /* a constant bound: unrolled before `count` is known */
        fast_vec *const taps = rows[j]; /* READ_ROW's destination */
        inside[j] = j < count && row_inside_plane(h + j, H);
        if (inside[j]) {
            READ_ROW(row_taps_fast_loads, FVW, h + j, w0);
        } else {
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) taps[i] = (fast_vec)0; /* no sign bit, no -0; dropped below */
        }
    }
#if WATCHES_OUTPUT
    if (!*signed_rows) {
        fast_vec any_bits = rows[0][0];
#pragma unroll
        for (int j = 0; j < NEW; ++j)
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) any_bits |= rows[j][i];
        *signed_rows = ANY_SIGN_BIT(any_bits);
    }
    if (*signed_rows) {
        fast_vec lowest = rows[0][0];
#pragma unroll
        for (int j = 0; j < NEW; ++j)
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) {
                lowest = MIN_KEEP_FIRST(lowest, rows[j][i]);
                rows[j][i] = key_flip(rows[j][i]);
            }
        ok = MIN_KEEP_FIRST(ok, lowest);
    }
#else
    (void)signed_rows;
#endif
    *row_ok = ok;
#pragma unroll
    for (int i = 0; i < ROW_LOADS; ++i) {
        fast_vec col = (fast_vec)(FAST_LOWEST);
#pragma unroll
        for (int j = 0; j < NEW; ++j) {
            const fast_vec v = inside[j] ? rows[j][i] : (fast_vec)(FAST_LOWEST);
            if (j < count) col = MAX_KEEP_FIRST(col, v);
            if (j == count - 1) last[i] = v;
        }
        m[i] = col;
    }
}
#endif

/* A block's first CARRY input rows from h0: the row maxima the first output
 * row's window carries in. */
__attribute__((always_inline)) static inline void block_prime(__global const T *plane, const int H, const int W,
                                                       const long h0, const int w0, const block_edges *e,
                                                       const int interior, const int guarded, const long buf_lo,
                                                       const long buf_hi, block_ok *ok, block_carry *c)
{
    c->signed_rows = 0;
#if COLUMNS_FIRST
    fast_vec m[4];
    (void)e, (void)interior;
    if (CARRY) fast_rows_columns(plane, H, W, h0, 1, w0, guarded, buf_lo, buf_hi, ok, &c->signed_rows, m, c->max);
#else
#pragma unroll
    for (int i = 0; i < CARRY; ++i)
        fast_row_max(plane, H, W, h0 + i, w0, e->cap, interior, guarded, buf_lo, buf_hi, ok, &c->signed_rows,
                     &c->max[i]);
#endif
}

/*
 * One output row of a block by the fast path, streamed: its window (first
 * input row h) keeps the CARRY row maxima it shares with the output row above
 * and reads NEW = min(SH, KH) more, so every input row is read once per block
 * whatever the window's height. Stores the row and leaves its last CARRY row
 * maxima in *c for the next. Only KH row maxima and one row's taps are live:
 * unrolling rows x input rows had kept every loaded vector live until the
 * NaN check at the end (register spills).
 */
__attribute__((always_inline)) static inline void block_output_row(__global const T *plane, __global T *out,
                                                            index_sink indices, const int H, const int W,
                                                            const long nc, const long h, const int w0,
                                                            const block_edges *e, const int lanes, const long o,
                                                            const int interior, const int guarded,
                                                            const long buf_lo, const long buf_hi, block_carry *c,
                                                            block_ok *ok)
{
    (void)indices, (void)nc;
#if COLUMNS_FIRST
    fast_vec col[4], last[4], taps[KW];
    fast_rows_columns(plane, H, W, h + CARRY, NEW, w0, guarded, buf_lo, buf_hi, ok, &c->signed_rows, col, last);
#pragma unroll
    for (int i = 0; i < ROW_LOADS * CARRY; ++i) {
        col[i] = MAX_KEEP_FIRST(c->max[i], col[i]);
        c->max[i] = last[i];
    }
    ROW_TAPS_OF_LOADS(fast_vec, FVW, col, taps);
    fast_vec best = interior ? taps[0] : CAPPED(taps[0], e->cap[0]);
#pragma unroll
    for (int kw = 1; kw < KW; ++kw) best = MAX_KEEP_FIRST(best, interior ? taps[kw] : CAPPED(taps[kw], e->cap[kw]));
#else
    fast_vec win[KH];
#pragma unroll
    for (int i = 0; i < CARRY; ++i) win[i] = c->max[i];
#pragma unroll
    for (int j = 0; j < NEW; ++j)
        fast_row_max(plane, H, W, h + CARRY + j, w0, e->cap, interior, guarded, buf_lo, buf_hi, ok,
                     &c->signed_rows, &win[CARRY + j]);
    /* in row order: keeps the row-major first-wins rule */
    fast_vec best = win[0];
#pragma unroll
    for (int i = 1; i < KH; ++i) best = MAX_KEEP_FIRST(best, win[i]);
#endif
    WATCH_OUTPUT(ok, best);
#if WATCHES_OUTPUT
    /* before the block's first set sign bit every key is the bits themselves */
    if (!c->signed_rows)
        STORE_FAST(AS_FAST_BITS(best), lanes, out + o);
    else
#endif
        STORE_FAST(FAST_BITS(best), lanes, out + o);
#if !COLUMNS_FIRST
#pragma unroll
    for (int i = 0; i < CARRY; ++i) c->max[i] = win[NEW + i];
#endif
}
#endif
