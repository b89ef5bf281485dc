/*
 * The windowed ops' planner (planners.h): every path choice and -D value of
 * MaxPool, AveragePool and LpPool, from plain data. The rules read only the
 * device's capabilities and the call's descriptor; views of a call (1-D, N-D
 * as 2-D, the two 3-D passes) are descriptors too, planned by the same rules.
 */
#include <string.h>

#include "planners.h"

/* ------------------------------------------------------------ thresholds */

/* SIMD registers of 512 bits: where the widened, plane and flat paths pay. */
#define WIDE_SIMD_BYTES 64
/* Lanes per row where a work-item's vectors are the CPU's SIMD (PoCL). */
#define LANES_SIMD 16
/* Lanes elsewhere and for 8-byte types: each lane is a register across
 * work-items (GPUs, llvmpipe), and more lanes multiply rusticl's build time. */
#define LANES_OTHER 8
/* The 2-D kernels unroll windows up to SPP's 13x13. */
#define MAX_2D_WINDOW 13
/* 1-byte types' argmax keeps a window's best tap in the element's width. */
#define ARGMAX_BYTE_TAPS 127
/* Exact-path rows per work-item on CPU SIMD for windows at most 3 tall:
 * rows share input and set-up; more rows multiply the unrolled build. Not
 * cut for short planes (their spare rows are dropped): one program per window. */
#define EXACT_ROWS_SIMD 4
#define EXACT_ROWS_MAX_KH 3
/* Fast-path (argmax-path) rows per work-item on CPU SIMD: a longer stream
 * re-reads the rows neighbouring windows share fewer times. */
#define STREAM_ROWS 64
#define STREAM_ROWS_INDICES 16
/* Inputs beyond this share of the cache are most likely read from memory. */
#define CACHE_REACH_DIVISOR 8
#define CACHE_REACH_UNKNOWN ((uint64_t)4 << 20) /* where the device does not say */
/* Row sweeps cover 16 to 64 blocks (powers of two keep the programs few),
 * with the blocks' carries within 16 KiB (they stay in L1). */
#define SWEEP_MIN_BLOCKS 16
#define SWEEP_MAX_BLOCKS 64
#define SWEEP_CARRY_BYTES 16384
/* Each of the plane path's two private arrays: together half of an L1. */
#define PLANE_BYTES 8192
/* The plane path's windows: at least 9 taps a side (5 for 1- and 2-byte
 * types), where column blocks re-read the most. */
#define PLANE_MIN_TAPS 9
#define PLANE_MIN_TAPS_NARROW 5
/* The flat path's private array: half of an L1. */
#define FLAT_BYTES 16384
/* 1-byte types' flat-path lane columns are bytes. */
#define FLAT_BYTE_MAX_W 127
/* The window kernel: rows of few outputs under windows at least this wide. */
#define WINDOW_MIN_TAPS 8
/* The general kernel's blocks per work-item on CPU SIMD: spreads an item's cost. */
#define ND_BLOCKS_SIMD 4
/* CPU SIMD: output rows per work-item of MaxPool's general kernel, its column setup shared by them
 * (docs/performance.md, the general kernel's rows) */
#define ND_ROWS 16
/* The one-pass 3-D kernel unrolls windows up to 7 a side, height strides
 * up to 7 and row strides up to 2 (its row loads). */
#define FUSED_3D_MAX_TAPS 7
#define FUSED_3D_MAX_SH 7
#define FUSED_3D_MAX_SW 2
/* sum_pool_nd's output rows per work-item on CPU SIMD: a row's own work is a few vectors per tap, and
 * the columns' setup (lane offsets, divisors, tap ranges) is shared by the rows. */
#define SUM_ROWS 8
/* The sum pools' row kernels: output rows per work-item on CPU SIMD (the first sums KH input rows, each
 * further one SH: long bands approach one row's sums per input row), and the window rows (depth x
 * height) their ring holds in registers. */
#define SUM_ROWS_BAND 32
#define SUM_RING_ROWS 16
/* The sum pools' row kernels on CPU SIMD: column blocks per work-item, walked row by row, so a work-item reads
 * whole rows as they lie in memory (one block each read rows in strided pieces, well below the copy speed). */
#define SUM_ROWS_BLOCKS 4
/* Elements the two-pass route's map loads may read past the Indices. */
#define INDEX_MAP_TAIL 16

/* ------------------------------------------------------------ shapes */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t in_elements(const clpool__pool_desc *d) { return clpool__window_in_elements(&d->w); }

static int64_t out_elements(const clpool__pool_desc *d) { return clpool__window_out_elements(&d->w); }

/* ------------------------------------------------------------ rules */

/* Outputs per row of a work-item: the CPU's SIMD width, else 8. */
int clpool__window_lanes(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    return d->esize >= 8 || !caps->cpu_simd ? LANES_OTHER : LANES_SIMD;
}

/* The widest row stride whose taps load as vectors: 4 with 16 lanes (four
 * loads and shuffles), else 2. */
static int64_t vector_stride_max(int vw) { return vw == LANES_SIMD ? 4 : 2; }
/* The N-D kernels' widest (window_lanes.h): 8 with 16 lanes (eight loads and seven shuffles a tap), else 2. */
static int64_t nd_vector_stride_max(int vw) { return vw == LANES_SIMD ? 8 : 2; }

/* The exact path's rows per work-item (-DEXACT_ROWS): of the window, not the shape. */
static int exact_rows(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    return caps->cpu_simd && d->w.kernel_shape[0] <= EXACT_ROWS_MAX_KH ? EXACT_ROWS_SIMD : 1;
}

/* The fast and argmax paths' rows per work-item: STREAM_ROWS, halved while
 * fewer than CLPOOL__ITEMS_PER_CU work-items per compute unit would be left; 1 off
 * CPU SIMD. col_items: work-items across a row. */
static int stream_rows(const clpool__device_caps *caps, const clpool__pool_desc *d, int64_t col_items)
{
    if (!caps->cpu_simd) return 1;
    int rows = d->indices ? STREAM_ROWS_INDICES : STREAM_ROWS;
    while (rows > 1 && d->w.planes * col_items * ceil_div(d->w.out[0], rows) < CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units)
        rows /= 2;
    return rows;
}

/* Whether the fast path may run blocks wider than clpool__window_lanes(). */
static int wide_blocks(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    return !d->indices && caps->cpu_simd && caps->vector_bytes >= WIDE_SIMD_BYTES;
}

/* Fast-path blocks per row at most (-DWIDEN): 2 for 2-byte and 4 for 1-byte
 * types with 512-bit SIMD, so one vector fills a register. */
static int widest(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    if (!wide_blocks(caps, d) || d->esize > 2) return 1;
    return d->esize == 1 ? 4 : 2;
}

static int windows_share_rows(const clpool__pool_desc *d) { return d->w.kernel_shape[0] > d->w.strides[0]; }

static int beyond_cache_reach(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const uint64_t in_bytes = (uint64_t)in_elements(d) * (uint64_t)d->esize;
    return in_bytes > (caps->cache_bytes > 0 ? caps->cache_bytes / CACHE_REACH_DIVISOR : CACHE_REACH_UNKNOWN);
}

/* The 2-D path's width: widest(), halved while over a quarter of a block's
 * lanes would pass the row's end; float32 rows of two 16-lane blocks whose
 * windows share rows are one 32-lane block beyond the cache's reach (one
 * work-item then reads each row front to back). */
static int fast_widen(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const int vw = clpool__window_lanes(caps, d);
    const int64_t ow = d->w.out[1];
    int widen = widest(caps, d);
    if (d->esize == 4 && wide_blocks(caps, d) && windows_share_rows(d) && ow <= 2 * vw && beyond_cache_reach(caps, d))
        widen = 2;
    while (widen > 1 && vw * widen * 3 > 4 * ow) widen /= 2;
    return widen;
}

/* Stride 2 under an odd left pad (-DODD_START): row loads aligned, tap 0 from
 * a broadcast; float32 and the 16-bit floats without Indices on CPU SIMD,
 * the types and variant where it pays. */
static int odd_start_loads(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    return caps->cpu_simd && d->w.strides[1] == 2 && d->w.pad_begin[1] % 2 != 0 && (d->esize == 4 || d->esize == 2) &&
           !d->indices;
}

/* Column blocks a work-item sweeps across its rows (sizes2d.sweep; 0: one
 * block): on CPU SIMD, for inputs beyond the cache's reach (any input for
 * windows one row high, which carry nothing) whose rows hold at least 3
 * blocks (2 where windows share no rows), so the input streams front to back;
 * `bound` gets the kernel's bound on them (-DSWEEP_BLOCKS), 0 where it returns 0. */
static int sweep_blocks(const clpool__device_caps *caps, const clpool__pool_desc *d, int block, int *bound)
{
    *bound = 0;
    if (!caps->cpu_simd) return 0;
    const int64_t row_blocks = ceil_div(d->w.out[1], block);
    const int one_row = d->w.kernel_shape[0] == 1;
    if (row_blocks < (windows_share_rows(d) ? 3 : 2) || (!one_row && !beyond_cache_reach(caps, d))) return 0;
    /* per block, kh - min(sh, kh) input rows (one slot at least) of a vector, 4x with Indices; 1- and
     * 2-byte types at row stride 2 carry a row's loads instead (COLUMNS_FIRST, ROW_LOADS) */
    const int64_t kh = d->w.kernel_shape[0], sh = d->w.strides[0], kw = d->w.kernel_shape[1];
    const int columns_first = d->esize <= 2 && !d->indices && d->w.strides[1] == 2 && kh - sh <= 1;
    const int odd = odd_start_loads(caps, d);
    const int64_t carry_vectors = columns_first ? 2 + (kw - odd > 2) + odd : kh > sh ? kh - sh : 1;
    const int64_t carry_bytes = carry_vectors * block * d->esize * (d->indices ? 4 : 1);
    /* the bound sizes the kernel's carries (-DSWEEP_BLOCKS): of the window, so one program serves every row */
    *bound = SWEEP_MIN_BLOCKS;
    while (*bound < SWEEP_MAX_BLOCKS && 2 * *bound * carry_bytes <= SWEEP_CARRY_BYTES) *bound *= 2;
    int n = SWEEP_MIN_BLOCKS;
    while (n < row_blocks && n < *bound) n *= 2;
    return n;
}

/* The 2-D kernels serve windows up to 13x13, strides up to
 * vector_stride_max(), no dilation, int lane math; Indices need their
 * offsets within an int (float32) or a window's taps within a byte (int8). */
static int use_2d_kernels(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const int64_t H = d->w.in[0], W = d->w.in[1];
    if (d->w.ns != 2 || H > INT32_MAX / 2 || W > INT32_MAX / 2) return 0;
    const int64_t max_stride = vector_stride_max(clpool__window_lanes(caps, d));
    for (int i = 0; i < 2; ++i)
        if (d->w.kernel_shape[i] > MAX_2D_WINDOW || d->w.strides[i] > max_stride || d->w.dilations[i] != 1) return 0;
    if (d->indices && d->esize == 4) {
        const int64_t row_step = d->storage_order ? 1 : W, col_step = d->storage_order ? H : 1;
        const int64_t cols = d->w.kernel_shape[1] - 1 + d->w.strides[1] * 15; /* a window's and 16 lanes' reach */
        if ((d->w.kernel_shape[0] - 1) * row_step + cols * col_step > INT32_MAX) return 0;
    }
    return !(d->indices && d->esize == 1 && d->w.kernel_shape[0] * d->w.kernel_shape[1] > ARGMAX_BYTE_TAPS);
}

/* The plane path's geometry: `gap` lowest values between rows (the windows'
 * reach past either end of a row), `band` output rows per work-item. */
typedef struct plane_geometry {
    int64_t gap, band, elems;
} plane_geometry;

/* Whether stride-1 windows without Indices take the plane path (512-bit CPU
 * SIMD, large windows) and its geometry: the band must hold 2(kh - 1) output
 * rows or the whole plane, so re-read rows stay few. */
static int plane_path(const clpool__device_caps *caps, const clpool__pool_desc *d, plane_geometry *pg)
{
    if (d->indices || !caps->cpu_simd || caps->vector_bytes < WIDE_SIMD_BYTES || d->w.strides[0] != 1 ||
        d->w.strides[1] != 1)
        return 0;
    const int64_t kh = d->w.kernel_shape[0], kw = d->w.kernel_shape[1];
    const int64_t k = kh > kw ? kh : kw;
    if (k < PLANE_MIN_TAPS && (k < PLANE_MIN_TAPS_NARROW || d->esize >= 4)) return 0;
    const int64_t W = d->w.in[1], OH = d->w.out[0], OW = d->w.out[1], pad_w = d->w.pad_begin[1];
    const int64_t right = OW - 1 - pad_w + kw - 1 - (W - 1);
    pg->gap = pad_w > right ? pad_w : right; /* right is the end pad at stride 1: >= 0 */
    pg->elems = PLANE_BYTES / d->esize;
    const int64_t pitch = W + pg->gap, lanes = clpool__window_lanes(caps, d) * widest(caps, d);
    /* the lead gap and the rows, then a vector of rounding up and the tails the passes read and fill */
    const int64_t room = pg->elems - pg->gap - 4 * lanes - kw;
    const int64_t band = room / pitch - (kh - 1);
    const int64_t need = OH < 2 * (kh - 1) ? OH : 2 * (kh - 1);
    if (band < need) return 0;
    pg->band = band < OH ? band : OH;
    return 1;
}

/* Whether a call takes the flat path, and its band: types of at most 4
 * bytes at stride 1 without Indices on 512-bit CPU SIMD, output rows as wide
 * as the input's, where column blocks would idle over a quarter of their
 * lanes or the plane path would take the call. */
static int flat_path(const clpool__device_caps *caps, const clpool__pool_desc *d, int64_t *band)
{
    if (d->esize > 4 || d->indices || !caps->cpu_simd || caps->vector_bytes < WIDE_SIMD_BYTES || d->w.strides[0] != 1 ||
        d->w.strides[1] != 1)
        return 0;
    const int64_t W = d->w.in[1], OH = d->w.out[0], kh = d->w.kernel_shape[0];
    if (d->esize == 1 && W > FLAT_BYTE_MAX_W) return 0;
    const int64_t lanes = clpool__window_lanes(caps, d) * widest(caps, d), block_lanes = ceil_div(W, lanes) * lanes;
    plane_geometry pg;
    if (d->w.out[1] != W || (4 * W >= 3 * block_lanes && !plane_path(caps, d, &pg))) return 0;
    /* the band's rows, then the vector the last one's loads may run past and the fill after it */
    const int64_t b = (FLAT_BYTES / d->esize - 2 * lanes) / W - (kh - 1);
    const int64_t need = OH < 2 * (kh - 1) ? OH : 2 * (kh - 1);
    if (b < need || b < 1) return 0;
    *band = b < OH ? b : OH;
    return 1;
}

/* The window kernel: rows of few outputs under wide windows, where the row
 * kernel's lanes would mostly idle (CPU SIMD). */
static int use_window_kernel(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const int64_t kw = d->w.kernel_shape[d->w.ns - 1];
    return caps->cpu_simd && kw >= WINDOW_MIN_TAPS && kw >= 2 * d->w.out[d->w.ns - 1];
}

/* The one-pass 3-D kernel: float32 on 16-lane CPU SIMD, row-major Indices
 * or none, no dilation, windows and strides its loops unroll, planes whose
 * offsets fit an int. */
static int fused_3d(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    if (d->w.ns != 3 || (d->indices && d->storage_order != 0) || d->dtype != CLPOOL_FLOAT32 ||
        clpool__window_lanes(caps, d) != LANES_SIMD || d->w.strides[1] > FUSED_3D_MAX_SH || d->w.strides[2] > FUSED_3D_MAX_SW ||
        d->w.in[0] * d->w.in[1] * d->w.in[2] > INT32_MAX / 2)
        return 0;
    for (int32_t i = 0; i < 3; ++i)
        if (d->w.kernel_shape[i] > FUSED_3D_MAX_TAPS || d->w.dilations[i] != 1) return 0;
    return 1;
}

/* Whether every window is its whole plane (one output per plane, the taps
 * inside the input covering every element): GlobalMaxPool's result. */
static int windows_are_whole_planes(const clpool__pool_desc *d)
{
    for (int32_t i = 0; i < d->w.ns; ++i) {
        const int64_t n = d->w.in[i];
        /* a dim of 1: validation left the window a tap, element 0 */
        if (d->w.out[i] != 1 || (n > 1 && (d->w.dilations[i] != 1 || d->w.kernel_shape[i] - 1 - d->w.pad_begin[i] < n - 1))) return 0;
    }
    return 1;
}

/* The whole-plane windows of a windowed call as its global pool's call (0: not whole planes, a dtype the
 * global pools do not take, or AveragePool counting pads in its divisor). */
int clpool__window_as_global(const clpool__pool_desc *d, clpool__global_desc *g)
{
    if (!windows_are_whole_planes(d) || !clpool__global_pool_dtype_ok(d->dtype)) return 0;
    if (d->op == CLPOOL__OP_AVERAGE_POOL && d->count_include_pad)
        for (int32_t i = 0; i < d->w.ns; ++i)
            if (d->w.pad_begin[i] != 0 || d->w.pad_end[i] != 0) return 0;
    memset(g, 0, sizeof *g);
    g->op = d->op == CLPOOL__OP_AVERAGE_POOL ? CLPOOL__OP_GLOBAL_AVERAGE_POOL
            : d->op == CLPOOL__OP_LP_POOL    ? CLPOOL__OP_GLOBAL_LP_POOL
                                             : CLPOOL__OP_GLOBAL_MAX_POOL;
    g->p = d->p;
    g->dtype = d->dtype;
    g->esize = d->esize;
    g->planes = out_elements(d);
    g->plane_size = in_elements(d) / g->planes;
    g->indices = d->indices;
    g->col_major = d->storage_order != 0;
    for (int32_t i = 0; i < 3; ++i) g->dims[i] = i < d->w.ns ? d->w.in[i] : 1;
    g->in_off = d->in_off;
    g->out_off = d->out_off;
    g->idx_off = d->idx_off;
    return 1;
}

/* ------------------------------------------------------------ launches */

/* Options every MaxPool program has: the dtype and the Indices variant. */
static void common_options(const clpool__pool_desc *d, clpool__options *o)
{
    clpool__options_start(o, d->dtype);
    clpool__options_define(o, "WITH_INDICES", d->indices);
    clpool__options_define(o, "STORAGE_ORDER", d->indices ? d->storage_order : 0);
    if (d->index_map) clpool__options_define(o, "INDEX_MAP", 1);
}

/* The options of the programs every windowed op shares: the dtype, the reduction and, for the sums, p's kind. */
void clpool__window_reduce_options(const clpool__pool_desc *d, clpool__options *o)
{
    clpool__options_start(o, d->dtype);
    clpool__options_define(o, "OP", d->op == CLPOOL__OP_AVERAGE_POOL ? CLPOOL__OP_REDUCE_AVG
                                    : d->op == CLPOOL__OP_LP_POOL    ? CLPOOL__OP_REDUCE_LP
                                                                     : CLPOOL__OP_REDUCE_MAX);
    if (d->op != CLPOOL__OP_MAXPOOL)
        clpool__options_define(o, "LP_KIND", d->op == CLPOOL__OP_LP_POOL ? clpool__lp_kind(d->p) : 0);
}

/* A launch of `path` with the common options and the buffer arguments: input, output, then Indices and the
 * index map where used (the argument block follows). */
static void start_launch(clpool__path path, const char *kernel, const clpool__pool_desc *d, clpool__launch *l)
{
    clpool__launch_start(l, path, kernel);
    common_options(d, &l->options);
    clpool__launch_buffer(l, d->input);
    clpool__launch_buffer(l, d->output);
    if (d->indices) clpool__launch_buffer(l, d->index_buf);
    if (d->index_map) clpool__launch_buffer(l, d->map_buf);
}

/* The 2-D kernels' options after the common ones: window, strides, lanes. */
static void options_2d(const clpool__device_caps *caps, const clpool__pool_desc *d, int widen, clpool__options *o)
{
    clpool__options_define(o, "KH", d->w.kernel_shape[0]);
    clpool__options_define(o, "KW", d->w.kernel_shape[1]);
    clpool__options_define(o, "SH", d->w.strides[0]);
    clpool__options_define(o, "SW", d->w.strides[1]);
    clpool__options_define(o, "VW", clpool__window_lanes(caps, d));
    clpool__options_define(o, "WIDEN", widen);
    clpool__options_define(o, "EXACT_ROWS", exact_rows(caps, d));
    /* a row's last block overlaps its neighbour on CPUs only (kernels/maxpool2d_block.h, block_start) */
    clpool__options_define(o, "OVERLAP_BLOCKS", caps->cpu_simd);
}

/* The 2-D kernels' sizes: `rows` output rows per work-item, `gap` fill
 * between the plane kernel's array rows. */
static void sizes_2d(const clpool__pool_desc *d, int64_t rows, int64_t gap, clpool__launch *l)
{
    clpool__launch_block(l, sizeof l->block.sizes2d);
    l->block.sizes2d = (clpool__maxpool2d_sizes){
        .H = d->w.in[0], .W = d->w.in[1], .OH = d->w.out[0], .OW = d->w.out[1],
        .pad_h = d->w.pad_begin[0], .pad_w = d->w.pad_begin[1],
        .in_offset = d->in_off, .out_offset = d->out_off, .idx_offset = d->idx_off,
        .in_limit = d->in_limit, .planes = d->w.planes, .rows = rows, .gap = gap,
    };
}

/* A work-item per (plane, band of `band` output rows). */
static void plane_items(const clpool__pool_desc *d, int64_t band, clpool__launch *l)
{
    l->dims = 2;
    l->items[0] = (uint64_t)d->w.planes;
    l->items[1] = (uint64_t)ceil_div(d->w.out[0], band);
    l->cpu_local = 1;
}

static void plan_2d(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    plane_geometry pg;
    int64_t band;
    if (flat_path(caps, d, &band)) {
        /* a kernel per left pad, 0 to kw - 1 where OW == W (maxpool2d_flat.cl) */
        start_launch(CLPOOL__PATH_MAXPOOL_FLAT, clpool__families[CLPOOL__PATH_MAXPOOL_FLAT].kernels[d->w.pad_begin[1]], d, l);
        options_2d(caps, d, widest(caps, d), &l->options);
        clpool__options_define(&l->options, "FLAT_ELEMS", FLAT_BYTES / d->esize);
        sizes_2d(d, band, 0, l);
        plane_items(d, band, l);
        return;
    }
    if (plane_path(caps, d, &pg)) {
        start_launch(CLPOOL__PATH_MAXPOOL_PLANE, "maxpool2d_plane", d, l);
        options_2d(caps, d, widest(caps, d), &l->options);
        clpool__options_define(&l->options, "PLANE_ELEMS", pg.elems);
        sizes_2d(d, pg.band, pg.gap, l);
        plane_items(d, pg.band, l);
        return;
    }
    const int widen = fast_widen(caps, d);
    const int block = clpool__window_lanes(caps, d) * widen; /* outputs per row of a work-item's block */
    int sweep_bound;
    const int sweep = sweep_blocks(caps, d, block, &sweep_bound);
    const int64_t item_cols = (int64_t)block * (sweep ? sweep : 1); /* outputs per row of a work-item */
    const int64_t col_items = ceil_div(d->w.out[1], item_cols);
    const int rows = stream_rows(caps, d, col_items);
    /* the fast path's whole output vectors around the cache (STORE_WHOLE) */
    const uint64_t moved = ((uint64_t)in_elements(d) + (uint64_t)out_elements(d)) * (uint64_t)d->esize;
    const int stream = !d->indices && clpool__stream_stores_for(caps->cpu_simd, caps->cache_bytes, moved);
    start_launch(CLPOOL__PATH_MAXPOOL_2D, "maxpool2d", d, l);
    options_2d(caps, d, widen, &l->options);
    clpool__options_define(&l->options, "SWEEP_BLOCKS", sweep_bound); /* 0 when not sweeping */
    clpool__options_define(&l->options, "ODD_START", odd_start_loads(caps, d));
    clpool__options_define(&l->options, "STREAM_STORES", stream);
    sizes_2d(d, rows, 0, l);
    l->block.sizes2d.sweep = sweep;
    l->dims = 3;
    l->items[0] = (uint64_t)col_items;
    l->items[1] = (uint64_t)ceil_div(d->w.out[0], rows);
    l->items[2] = (uint64_t)d->w.planes;
    l->cpu_local = 1;
}

/* The windows as the window kernels read them (args.h). */
void clpool__window_geom_of(const clpool__pool_desc *d, clpool__window_geom *g)
{
    memset(g, 0, sizeof *g);
    g->in_plane = 1;
    g->count_pad = d->op == CLPOOL__OP_AVERAGE_POOL && d->count_include_pad;
    for (int32_t i = 0; i < d->w.ns; ++i) {
        g->in_dims[i] = d->w.in[i];
        g->out_dims[i] = d->w.out[i];
        g->kernel_shape[i] = d->w.kernel_shape[i];
        g->strides[i] = d->w.strides[i];
        g->pad_begin[i] = d->w.pad_begin[i];
        g->pad_end[i] = d->w.pad_end[i];
        g->dilations[i] = d->w.dilations[i];
        g->in_plane *= d->w.in[i];
    }
}

/* The N-D kernels' argument block and work: `items` work-items in one dim, groups of the budget. */
static void geometry_block(const clpool__pool_desc *d, int64_t items, clpool__launch *l)
{
    clpool__launch_block(l, sizeof l->block.geom);
    clpool__window_nd_geom *g = &l->block.geom;
    memset(g, 0, sizeof *g);
    clpool__window_geom_of(d, &g->w);
    g->items = items;
    g->rows = 1;
    g->out_rows = out_elements(d) / d->w.out[d->w.ns - 1];
    g->in_offset = d->in_off;
    g->out_offset = d->out_off;
    g->idx_offset = d->idx_off;
    g->in_limit = d->in_limit;
    l->dims = 1;
    l->items[0] = (uint64_t)items;
    l->cpu_local = CLPOOL__LOCAL_BUDGET;
}

/* geometry_block for the N-D kernels' work-items of `col_items` column blocks and `most` output rows each on
 * CPU SIMD (1 elsewhere), their column setup shared by the rows; halved while fewer than
 * CLPOOL__ITEMS_PER_CU work-items per compute unit would be left. */
static void geometry_rows(const clpool__device_caps *caps, const clpool__pool_desc *d, int64_t col_items, int64_t most,
                          clpool__launch *l)
{
    const int64_t out_rows = out_elements(d) / d->w.out[d->w.ns - 1];
    int64_t rows = caps->cpu_simd ? most : 1;
    while (rows > 1 && ceil_div(out_rows, rows) * col_items < CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units) rows /= 2;
    geometry_block(d, ceil_div(out_rows, rows) * col_items, l);
    l->block.geom.rows = rows;
}

/* The general kernel: NB blocks of VW outputs along the last dim per
 * work-item, its stride compiled in where the taps load as vectors. */
static void plan_nd(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    const int vw = clpool__window_lanes(caps, d);
    const int64_t ow = d->w.out[d->w.ns - 1], sw = d->w.strides[d->w.ns - 1];
    const int64_t blocks = ceil_div(ow, vw);
    const int64_t nb = caps->cpu_simd ? (blocks < ND_BLOCKS_SIMD ? blocks : ND_BLOCKS_SIMD) : 1;
    /* a kernel per block count, all in one program on CPU SIMD (maxpool_nd.cl) */
    start_launch(CLPOOL__PATH_MAXPOOL_ND, clpool__families[CLPOOL__PATH_MAXPOOL_ND].kernels[nb - 1], d, l);
    clpool__options_define(&l->options, "NS", d->w.ns);
    clpool__options_define(&l->options, "VW", vw);
    if (caps->cpu_simd) clpool__options_define(&l->options, "NB_MAX", ND_BLOCKS_SIMD);
    clpool__options_define(&l->options, "SW", sw <= nd_vector_stride_max(vw) ? sw : 0);
    geometry_rows(caps, d, ceil_div(blocks, nb), ND_ROWS, l);
}

/* The window kernel: one output per work-item, its lanes along the window's row. */
static void plan_window(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    start_launch(CLPOOL__PATH_MAXPOOL_WINDOW, "maxpool_window", d, l);
    geometry_block(d, out_elements(d), l);
    clpool__options_define(&l->options, "NS", d->w.ns);
    clpool__options_define(&l->options, "VW", clpool__window_lanes(caps, d));
    clpool__options_define(&l->options, "SW", 0);
    clpool__options_define(&l->options, "WINDOW_INT_AT", l->block.geom.w.in_plane <= INT32_MAX);
}

/* One launch for a call of 2 spatial dims (or a view as one) by the 2-D
 * kernels where they serve it, else (any rank) by a general kernel. */
static void plan_one(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    if (use_window_kernel(caps, d))
        plan_window(caps, d, l);
    else if (use_2d_kernels(caps, d))
        plan_2d(caps, d, l);
    else
        plan_nd(caps, d, l);
}

/* The one-pass 3-D kernel: a work-item per plane through every output depth
 * slice, or per band of its output rows where planes alone leave fewer than
 * CLPOOL__ITEMS_PER_CU work-items per compute unit. */
static void plan_3d(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    const int64_t planes = d->w.planes, OH = d->w.out[1];
    const int64_t want = CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units;
    int64_t bands = planes >= want ? 1 : ceil_div(want, planes);
    if (bands > OH) bands = OH;
    const int64_t band_rows = ceil_div(OH, bands);
    bands = ceil_div(OH, band_rows);
    start_launch(CLPOOL__PATH_MAXPOOL_3D, "maxpool3d", d, l);
    clpool__options_define(&l->options, "KD", d->w.kernel_shape[0]);
    clpool__options_define(&l->options, "KH", d->w.kernel_shape[1]);
    clpool__options_define(&l->options, "KW", d->w.kernel_shape[2]);
    clpool__options_define(&l->options, "SH", d->w.strides[1]);
    clpool__options_define(&l->options, "SW", d->w.strides[2]);
    clpool__launch_block(l, sizeof l->block.sizes3d);
    l->block.sizes3d = (clpool__maxpool3d_sizes){
        .D = d->w.in[0], .H = d->w.in[1], .W = d->w.in[2], .OD = d->w.out[0], .OH = OH, .OW = d->w.out[2],
        .stride_d = d->w.strides[0], .pad_d = d->w.pad_begin[0], .pad_h = d->w.pad_begin[1], .pad_w = d->w.pad_begin[2],
        .in_offset = d->in_off, .out_offset = d->out_off, .idx_offset = d->idx_off, .in_limit = d->in_limit,
        .planes = planes, .band_rows = band_rows, .bands = bands,
    };
    l->dims = 1;
    l->items[0] = (uint64_t)(planes * bands);
    l->cpu_local = 1;
}

/* ------------------------------------------------------------ views */

/* A 2-D view of d: `planes` planes pooled by the windows of d's spatial dims `dims` (two indices; -1: a
 * window of one tap over `taps` elements). */
static void view_2d(const clpool__pool_desc *d, int64_t planes, const int32_t dims[2], int64_t taps,
                    clpool__pool_desc *view)
{
    *view = *d;
    view->w.ns = 2;
    view->w.planes = planes;
    for (int32_t i = 0; i < 2; ++i)
        if (dims[i] >= 0)
            clpool__window_copy_dim(&view->w, i, &d->w, dims[i]);
        else
            clpool__window_tap_dim(&view->w, i, taps);
}

/* d with its one-tap dims folded away (clpool__window_fold); column-major Indices over 2+ dims count
 * their offsets by the dims as they are: no view. Returns 0 where no dim folds. */
static int view_folded(const clpool__pool_desc *d, clpool__pool_desc *view)
{
    clpool__window w;
    if ((d->w.ns > 1 && d->indices && d->storage_order == 1) || !clpool__window_fold(&d->w, &w)) return 0;
    *view = *d;
    view->w = w;
    return 1;
}

/*
 * 3-D windows in two 2-D passes through scratch: the last two dims' windows
 * ([planes*D, H, W] -> [planes*D, OH, OW]), then the first dim's over rows
 * of OH*OW. Each pass keeps its first maximum, so the (d, h, w) first wins.
 * With Indices the first pass's go to scratch ahead of its values and the
 * second maps its own through them (-DINDEX_MAP, the 2-D kernel only: where
 * the second pass would not take it, nor does the call). Returns 0 then.
 */
static int plan_two_passes(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__plan *plan)
{
    const int64_t planes = d->w.planes, D = d->w.in[0];
    const int64_t across_out = planes * D * d->w.out[1] * d->w.out[2];
    clpool__pool_desc across, down;
    view_2d(d, planes * D, (const int32_t[]){1, 2}, 0, &across);
    view_2d(d, planes, (const int32_t[]){0, -1}, d->w.out[1] * d->w.out[2], &down);
    if (d->indices && (d->storage_order != 0 || !use_2d_kernels(caps, &down))) return 0;
    /* scratch: [the first pass's Indices, if any][its values][the map loads' overrun] */
    const int64_t index_bytes = d->indices ? across_out * 8 : 0;
    const int64_t tail = d->indices ? INDEX_MAP_TAIL * 8 : 0;
    plan->scratch_bytes = (size_t)(index_bytes + across_out * d->esize + tail);
    plan->scratch_purpose = "3-D pooling's first pass";
    across.output = CLPOOL__ROLE_SCRATCH;
    across.out_off = index_bytes / d->esize;
    across.index_buf = d->indices ? CLPOOL__ROLE_SCRATCH : CLPOOL__ROLE_NONE;
    across.idx_off = 0;
    down.input = CLPOOL__ROLE_SCRATCH;
    down.in_off = across.out_off;
    down.in_limit = across.out_off + across_out;
    down.index_map = d->indices;
    down.map_buf = CLPOOL__ROLE_SCRATCH;
    plan_one(caps, &across, &plan->launch[0]);
    plan_one(caps, &down, &plan->launch[1]);
    /* without scratch memory, the general kernel (it needs none) */
    plan_one(caps, d, &plan->fallback);
    plan->has_fallback = 1;
    plan->launches = 2;
    return 1;
}

void clpool__maxpool_plan_call(const clpool__device_caps *caps, const clpool__pool_desc *d,
                               clpool__plan *plan)
{
    /* Windows over whole planes: GlobalMaxPool's plans, which split long
     * planes across work-items; with Indices where global_max_pool_indices serves. */
    clpool__global_desc global;
    if (clpool__window_as_global(d, &global) && (!d->indices || clpool__global_indices_ok(caps, &global, d->w.ns))) {
        clpool__global_plan_call(caps, &global, plan);
        return;
    }
    memset(plan, 0, sizeof *plan);
    clpool__pool_desc folded;
    const clpool__pool_desc *v = view_folded(d, &folded) ? &folded : d;
    plan->launches = 1;
    if (v->w.ns == 3 && fused_3d(caps, v)) {
        plan_3d(caps, v, &plan->launch[0]);
    } else if (v->w.ns == 3 && plan_two_passes(caps, v, plan)) {
        plan->path = CLPOOL__PATH_MAXPOOL_3D_TWO_PASS;
        return;
    } else {
        plan_one(caps, v, &plan->launch[0]);
    }
    plan->path = plan->launch[0].path;
}

/* The sum pools' row kernels: 2-D and 3-D windows without dilation, rows of at most CLPOOL__SUM_CHUNK
 * taps, at most SUM_RING_ROWS rows (depth x height) in the ring, row strides the lanes pick (4 on CPU
 * SIMD at either width), columns and pads in int lanes. */
static int use_sum_rows(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const int32_t ns = d->w.ns;
    if ((ns != 2 && ns != 3) || d->w.in[ns - 2] > INT32_MAX / 2 || d->w.in[ns - 1] > INT32_MAX / 2) return 0;
    for (int32_t i = 0; i < ns; ++i)
        if (d->w.dilations[i] != 1) return 0;
    /* row columns (from -pad_begin to past the end padding) in int lanes */
    if (d->w.pad_begin[ns - 1] > INT32_MAX / 4 || d->w.pad_end[ns - 1] > INT32_MAX / 4) return 0;
    if (d->w.kernel_shape[ns - 2] > SUM_RING_ROWS || (ns == 3 && d->w.kernel_shape[0] > SUM_RING_ROWS)) return 0;
    const int64_t rows = d->w.kernel_shape[ns - 2] * (ns == 3 ? d->w.kernel_shape[0] : 1);
    const int64_t max_sw = caps->cpu_simd ? vector_stride_max(LANES_SIMD) : vector_stride_max(clpool__window_lanes(caps, d));
    return rows <= SUM_RING_ROWS && d->w.kernel_shape[ns - 1] <= CLPOOL__SUM_CHUNK && d->w.strides[ns - 1] <= max_sw;
}

/* The row kernels' lanes: clpool__window_lanes(), or 8 on CPU SIMD for rows of at most 8 outputs (half the
 * work of 16 lanes there). */
static int sum_rows_width(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    const int vw = clpool__window_lanes(caps, d);
    return caps->cpu_simd && vw == LANES_SIMD && d->w.out[d->w.ns - 1] <= LANES_OTHER ? LANES_OTHER : vw;
}

/* A work-item per band of output rows (of one depth) and SUM_ROWS_BLOCKS blocks of VW outputs (the last of a
 * row fewer; one where output rows share input rows), walked row by row: SUM_ROWS_BAND rows on CPU SIMD,
 * halved while the device would idle; one block of one row elsewhere. */
static void plan_sum_rows(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__launch *l)
{
    const int vw = sum_rows_width(caps, d);
    const int32_t ns = d->w.ns;
    const clpool__path path = ns == 3 ? CLPOOL__PATH_SUM_POOL_3D : CLPOOL__PATH_SUM_POOL_2D;
    clpool__launch_start(l, path, clpool__families[path].kernels[0]);
    clpool__window_reduce_options(d, &l->options);
    if (ns == 3) {
        clpool__options_define(&l->options, "KD", d->w.kernel_shape[0]);
        clpool__options_define(&l->options, "SD", d->w.strides[0]);
    }
    clpool__options_define(&l->options, "KH", d->w.kernel_shape[ns - 2]);
    clpool__options_define(&l->options, "KW", d->w.kernel_shape[ns - 1]);
    clpool__options_define(&l->options, "SH", d->w.strides[ns - 2]);
    clpool__options_define(&l->options, "SW", d->w.strides[ns - 1]);
    clpool__options_define(&l->options, "VW", vw);
    clpool__options_define(&l->options, "OVERLAP_BLOCKS", caps->cpu_simd);
    /* windows whose output rows share input rows keep one block: the kernel's ring carries them */
    const int64_t blocks = caps->cpu_simd && d->w.kernel_shape[ns - 2] <= d->w.strides[ns - 2] ? SUM_ROWS_BLOCKS : 1;
    if (blocks > 1) clpool__options_define(&l->options, "NB_MAX", blocks);
    clpool__launch_buffer(l, d->input);
    clpool__launch_buffer(l, d->output);
    const int64_t col_items = ceil_div(ceil_div(d->w.out[ns - 1], vw), blocks), oh = d->w.out[ns - 2];
    const int64_t slices = ns == 3 ? d->w.planes * d->w.out[0] : d->w.planes;
    int64_t rows = caps->cpu_simd ? (oh < SUM_ROWS_BAND ? oh : SUM_ROWS_BAND) : 1;
    while (rows > 1 && slices * col_items * ceil_div(oh, rows) < CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units)
        rows = (rows + 1) / 2;
    geometry_block(d, slices * col_items * ceil_div(oh, rows), l);
    l->block.geom.rows = rows;
    clpool__launch_p(l, d->dtype, d->p);
}

/* The sum pools' general kernel: NB blocks of VW outputs along the last dim per work-item, as plan_nd. A
 * general p, whose pow dominates, takes the first tier's kernel (one output per work-item). */
void clpool__sum_pool_plan_call(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__plan *plan)
{
    clpool__global_desc global;
    if (clpool__window_as_global(d, &global)) {
        clpool__global_plan_call(caps, &global, plan);
        return;
    }
    if (d->op == CLPOOL__OP_LP_POOL && clpool__lp_kind(d->p) == 0) {
        clpool__window_plan_first_tier(caps, d, plan);
        plan->first_tier = 0; /* the plan itself, not a stand-in for one */
        return;
    }
    memset(plan, 0, sizeof *plan);
    plan->launches = 1;
    if (use_sum_rows(caps, d)) {
        plan_sum_rows(caps, d, &plan->launch[0]);
        plan->path = plan->launch[0].path;
        return;
    }
    plan->path = CLPOOL__PATH_SUM_POOL_ND;
    clpool__launch *l = &plan->launch[0];
    const int vw = clpool__window_lanes(caps, d);
    const int64_t ow = d->w.out[d->w.ns - 1], sw = d->w.strides[d->w.ns - 1];
    const int64_t blocks = ceil_div(ow, vw);
    const int64_t nb = caps->cpu_simd ? (blocks < ND_BLOCKS_SIMD ? blocks : ND_BLOCKS_SIMD) : 1;
    clpool__launch_start(l, CLPOOL__PATH_SUM_POOL_ND, clpool__families[CLPOOL__PATH_SUM_POOL_ND].kernels[nb - 1]);
    clpool__window_reduce_options(d, &l->options);
    clpool__options_define(&l->options, "NS", d->w.ns);
    clpool__options_define(&l->options, "VW", vw);
    if (caps->cpu_simd) clpool__options_define(&l->options, "NB_MAX", ND_BLOCKS_SIMD);
    clpool__options_define(&l->options, "SW", sw <= nd_vector_stride_max(vw) ? sw : 0);
    clpool__launch_buffer(l, d->input);
    clpool__launch_buffer(l, d->output);
    geometry_rows(caps, d, ceil_div(blocks, nb), SUM_ROWS, l);
    clpool__launch_p(l, d->dtype, d->p);
}
