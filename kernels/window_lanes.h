/*
 * The window kernels' lane lists and strided loads, shared by the N-D kernels
 * (maxpool_nd.cl, sum_pool_nd.cl) and the 2-D kernels (maxpool2d*.cl): all take -DVW (a
 * work-item's vector lanes) and -DSW (the row stride, where compiled in).
 */

/* Constant lane lists for __builtin_shufflevector and vector literals:
 * LANES(f, n, m, p) = f(0, n, m, p), ..., f(n - 1, n, m, p) for n = 8, 16, 32, 64. */
#define LANES8(f, b, n, m, p)                                                                           \
    f((b) + 0, n, m, p), f((b) + 1, n, m, p), f((b) + 2, n, m, p), f((b) + 3, n, m, p), f((b) + 4, n, m, p), \
        f((b) + 5, n, m, p), f((b) + 6, n, m, p), f((b) + 7, n, m, p)
#define LANES_8(f, n, m, p) LANES8(f, 0, n, m, p)
#define LANES_16(f, n, m, p) LANES8(f, 0, n, m, p), LANES8(f, 8, n, m, p)
#define LANES_32(f, n, m, p) LANES_16(f, n, m, p), LANES8(f, 16, n, m, p), LANES8(f, 24, n, m, p)
#define LANES_64(f, n, m, p) \
    LANES_32(f, n, m, p), LANES8(f, 32, n, m, p), LANES8(f, 40, n, m, p), LANES8(f, 48, n, m, p), LANES8(f, 56, n, m, p)
#define LANES(f, n, m, p) CLPOOL_XPASTE(LANES_, n)(f, n, m, p)
#define LANE_ID(j, n, m, p) (j)
#define EVEN_SRC(j, n, m, p) (2 * (j))
#define ODD_SRC(j, n, m, p) (2 * (j) + 1)
#define LANE_IDS ((INTV(VW))(LANES(LANE_ID, VW, 0, 0)))

/* Every SW-th of n * SW elements from p (SW 3 or 4, n lanes, clang):
 * lanes below element 2n from the first two vectors, the rest from the
 * third and fourth. Where x86 has 512-bit registers an empty asm keeps each
 * load whole: LLVM had split them into a dozen narrow loads and inserts
 * per tap. */
#define STRIDED_LO(j, n, s, p) ((j) * (s) < 2 * (n) ? (j) * (s) : 0)
#define STRIDED_HI(j, n, s, p) ((j) * (s) >= 2 * (n) ? (j) * (s) - 2 * (n) : 0)
#define STRIDED_PICK(j, n, s, p) ((j) * (s) < 2 * (n) ? (j) : (n) + (j))
#if defined(__x86_64__) && defined(__AVX512F__) && !defined(DT_FLOAT64) /* a register holds 16 lanes */
#define WHOLE_LOAD(v) __asm__("" : "+v"(v))
#else
#define WHOLE_LOAD(v) (void)0
#endif
#if defined(__clang__) && VW == 16 && (SW == 3 || SW == 4)
#define STRIDED16_TAPS 1 /* both kernels' taps at strides 3 and 4 */
__attribute__((always_inline)) static inline T16 strided16(T16 v0, T16 v1, T16 v2, T16 v3)
{
    WHOLE_LOAD(v0);
    WHOLE_LOAD(v1);
    WHOLE_LOAD(v2);
    WHOLE_LOAD(v3);
    const T16 lo = __builtin_shufflevector(v0, v1, LANES(STRIDED_LO, 16, SW, 0));
    const T16 hi = __builtin_shufflevector(v2, v3, LANES(STRIDED_HI, 16, SW, 0));
    return __builtin_shufflevector(lo, hi, LANES(STRIDED_PICK, 16, SW, 0));
}
/* (any address space) */
#define STRIDED_LOAD16(p) strided16(vload16(0, (p)), vload16(1, (p)), vload16(2, (p)), vload16(SW == 4 ? 3 : 2, (p)))
#elif defined(__clang__) && VW == 16 && SW >= 5 && SW <= 8
#define STRIDED16_TAPS 1 /* the N-D kernels' taps at strides 5 to 8 */
/* Lane j's element j * SW - b (b = 0 for the lanes below element 64, 64 above) from a group of four vectors:
 * below 32 from its first two, else from its last two; then the lanes of each group picked. */
#define WIDE_LO(j, n, s, b) ((j) * (s) - (b) >= 0 && (j) * (s) - (b) < 2 * (n) ? (j) * (s) - (b) : 0)
#define WIDE_HI(j, n, s, b) ((j) * (s) - (b) >= 2 * (n) && (j) * (s) - (b) < 4 * (n) ? (j) * (s) - (b) - 2 * (n) : 0)
#define WIDE_PICK(j, n, s, b) ((j) * (s) - (b) < 2 * (n) ? (j) : (n) + (j))
#define WIDE_HALF(j, n, s, b) ((j) * (s) < 4 * (n) ? (j) : (n) + (j))
__attribute__((always_inline)) static inline T16 strided16_group(T16 v0, T16 v1, T16 v2, T16 v3, const int b)
{
    WHOLE_LOAD(v0);
    WHOLE_LOAD(v1);
    WHOLE_LOAD(v2);
    WHOLE_LOAD(v3);
    const T16 lo = b ? __builtin_shufflevector(v0, v1, LANES(WIDE_LO, 16, SW, 64))
                     : __builtin_shufflevector(v0, v1, LANES(WIDE_LO, 16, SW, 0));
    const T16 hi = b ? __builtin_shufflevector(v2, v3, LANES(WIDE_HI, 16, SW, 64))
                     : __builtin_shufflevector(v2, v3, LANES(WIDE_HI, 16, SW, 0));
    return b ? __builtin_shufflevector(lo, hi, LANES(WIDE_PICK, 16, SW, 64))
             : __builtin_shufflevector(lo, hi, LANES(WIDE_PICK, 16, SW, 0));
}
/* Vector i of the second group where lane 15 reaches it, else vector 4 again: the loads stay within
 * TAP_SPAN (16 * SW elements). (any address space) */
#define WIDE_V(i) ((i) * 16 <= 15 * SW ? (i) : 4)
#define STRIDED_LOAD16(p)                                                                                      \
    __builtin_shufflevector(strided16_group(vload16(0, (p)), vload16(1, (p)), vload16(2, (p)), vload16(3, (p)), 0), \
                            strided16_group(vload16(4, (p)), vload16(WIDE_V(5), (p)), vload16(WIDE_V(6), (p)),     \
                                            vload16(WIDE_V(7), (p)), 1),                                          \
                            LANES(WIDE_HALF, 16, SW, 0))
#else
#define STRIDED16_TAPS 0
#endif

/* The N-D kernels' taps along the last dim (maxpool_nd.cl, sum_pool_nd.cl). */
/* VW elements base[at[0]], ..., base[at[VW - 1]] (at: a private long array). */
#define GATHER_SRC(j, n, base, at) ((base)[(at)[j]])
#define GATHER(base, at) ((TV(VW))(LANES(GATHER_SRC, VW, base, at)))
/* SW = 1 to 8 (the last dim's stride; 3 to 8 only with 16 lanes, through
 * clang's shuffles): a tap's VW lanes load as vectors from lane 0's element
 * p, reading TAP_SPAN elements; VW loads of single elements otherwise (x86's
 * gathers ran stride 3 at a third of the speed). */
#if SW == 1 || SW == 2 || STRIDED16_TAPS
#define VECTOR_TAPS 1
#define TAP_SPAN (SW * VW)
#if SW == 1
#define TAP_LOAD(p) VLOADV(VW, p)
#elif SW == 2 && VW == 16
#define TAP_LOAD(p) ((T16)(vload16(0, (p)).even, vload16(1, (p)).even))
#elif SW == 2
#define TAP_LOAD(p) (vload16(0, (p)).even)
#else
#define TAP_LOAD(p) STRIDED_LOAD16(p)
#endif
#else
#define VECTOR_TAPS 0
#endif
/* The last dim's stride: a constant where taps load as vectors (the N-D kernels name their block g). */
#if VECTOR_TAPS
#define STRIDE_W SW
#else
#define STRIDE_W g.w.strides[LAST]
#endif

#ifdef NS
/* The N-D kernels' taps of one tap row along the last dim. Lane l of a work-item reads column
 * col0 + lane_at[l] + kw * DW for tap kw; its live lanes end at last_col. */
typedef struct row_taps {
    long in_lo, in_hi;   /* taps where every live lane is inside the row */
    long any_lo, any_hi; /* taps where some lane is; the rest are all padding */
} row_taps;

static inline row_taps row_taps_of(long col0, long last_col, long W, long KW, long DW)
{
    row_taps t;
    t.in_lo = min(tap_ceil_div(-col0, DW), KW);
    t.in_hi = max(min(KW, tap_ceil_div(W - last_col, DW)), t.in_lo);
    t.any_lo = min(tap_ceil_div(-last_col, DW), t.in_lo);
    t.any_hi = max(min(KW, tap_ceil_div(W - col0, DW)), t.in_hi);
    return t;
}

/* The end of the taps [in_lo, in_hi) that load as vectors, whose last load leaves `room` elements of the
 * buffer after its start: only near the buffer's end does a division bound them. */
static inline long vector_taps_end(row_taps t, long room, long DW)
{
    if (room >= (t.in_hi - 1) * DW) return t.in_hi;
    return room < 0 ? t.in_lo : max(min(t.in_hi, room / DW + 1), t.in_lo);
}

/* Block b of a tap whose lanes are all inside the row, lane 0 at element `at` of the plane. */
#if VECTOR_TAPS
#define INSIDE_TAP(plane, at, b, lane_at) TAP_LOAD((plane) + (at) + (b) * VW * SW)
#else
#define INSIDE_TAP(plane, at, b, lane_at) GATHER((plane) + (at), (lane_at) + (b) * VW)
#endif

/* The lanes of block b whose column lies inside the row [0, W) for a tap at lane 0's column c: the
 * columns grow with the lane, so those are the lanes [first, end) of the work-item's `lanes`. */
static inline INTV(VW) edge_lanes_inside(long c, long W, long stride, int b, int lanes)
{
    const int first = (int)min(tap_ceil_div(-c, stride), (long)lanes);
    const int end = (int)min(tap_ceil_div(W - c, stride), (long)lanes);
    const INTV(VW) lane = LANE_IDS + b * VW;
    return (lane >= first) & (lane < end);
}

/* Block b of a tap with lanes in the padding, lane 0 at column c of the tap row at row_at: the vector
 * where it stays in the buffer (padding lanes read the neighbouring elements), else the lanes' columns
 * clamped into the row. Callers mask the padding lanes out. */
static inline TV(VW) edge_tap(__global const T *in, long plane_at, long row_at, long c, int b, const long *lane_at,
                              long W, long in_limit)
{
#if VECTOR_TAPS
    const long from = plane_at + row_at + c + b * VW * SW;
    if (from >= 0 && from + TAP_SPAN <= in_limit) return TAP_LOAD(in + from);
#else
    (void)in_limit;
#endif
    long clamped[VW];
    for (int l = 0; l < VW; ++l) clamped[l] = clamp(c + lane_at[b * VW + l], 0L, W - 1);
    return GATHER(in + plane_at + row_at, clamped);
}
#endif
