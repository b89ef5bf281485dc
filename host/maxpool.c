/* MaxPool: attribute validation, shape inference and launch. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Mirrors `maxpool_geom` in kernels/maxpool.cl. */
typedef struct clpool__maxpool_geom {
    cl_long in_dims[CLPOOL_MAX_SPATIAL];
    cl_long out_dims[CLPOOL_MAX_SPATIAL];
    cl_long ksize[CLPOOL_MAX_SPATIAL];
    cl_long stride[CLPOOL_MAX_SPATIAL];
    cl_long pad_begin[CLPOOL_MAX_SPATIAL];
    cl_long dilation[CLPOOL_MAX_SPATIAL];
    cl_long in_plane;
    cl_long items;
    cl_long in_offset;
    cl_long out_offset;
    cl_long idx_offset;
    cl_long in_limit;
} clpool__maxpool_geom;

_Static_assert(sizeof(clpool__maxpool_geom) == (6 * CLPOOL_MAX_SPATIAL + 6) * 8, "geometry must have no padding");

/* Mirrors `maxpool2d_sizes` in kernels/maxpool.cl: one by-value argument instead of
 * 11-12 scalars, because PoCL copies (mallocs and frees) each argument at every enqueue. */
typedef struct clpool__maxpool2d_sizes {
    cl_long H, W, OH, OW;
    cl_long pad_h, pad_w;
    cl_long in_offset, out_offset, idx_offset;
    cl_long in_limit;
    cl_long planes;
    cl_long rows;
    cl_long gap;
} clpool__maxpool2d_sizes;

_Static_assert(sizeof(clpool__maxpool2d_sizes) == 13 * 8, "2-D sizes must have no padding");

/* Mirrors `maxpool3d_sizes` in kernels/maxpool3d.cl (the one-pass 3-D kernel). */
typedef struct clpool__maxpool3d_sizes {
    cl_long D, H, W, OD, OH, OW;
    cl_long stride_d;
    cl_long pad_d, pad_h, pad_w;
    cl_long in_offset, out_offset, idx_offset;
    cl_long in_limit;
    cl_long planes, band_rows, bands;
} clpool__maxpool3d_sizes;

_Static_assert(sizeof(clpool__maxpool3d_sizes) == 17 * 8, "3-D sizes must have no padding");

/* Per-dim results of validation: effective padding and output size. */
typedef struct maxpool_plan {
    int32_t ns;
    int64_t pad_begin[CLPOOL_MAX_SPATIAL];
    int64_t out[CLPOOL_MAX_SPATIAL];
} maxpool_plan;

clpool_status clpool_maxpool_params_init(clpool_maxpool_params *p, int32_t spatial_rank, const int64_t *kernel_shape)
{
    CLPOOL_REQUIRE_NOT_NULL(p, "clpool_maxpool_params_init");
    CLPOOL_REQUIRE_NOT_NULL(kernel_shape, "clpool_maxpool_params_init");
    if (spatial_rank < 1 || spatial_rank > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "clpool_maxpool_params_init: spatial_rank %d is outside 1..%d",
                            (int)spatial_rank, CLPOOL_MAX_SPATIAL);
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->spatial_rank = spatial_rank;
    for (int32_t i = 0; i < spatial_rank; ++i) {
        p->kernel_shape[i] = kernel_shape[i];
        p->strides[i] = 1;
        p->dilations[i] = 1;
    }
    return CLPOOL_SUCCESS;
}

/* Attribute ranges that do not depend on the input. */
static clpool_status check_attributes(const clpool_maxpool_params *p, const char *fn)
{
    if (p->struct_size != sizeof *p)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.struct_size is %zu, expected %zu (initialise with clpool_maxpool_params_init)", fn,
                            p->struct_size, sizeof *p);
    const int32_t ns = p->spatial_rank;
    if (ns < 1 || ns > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: spatial_rank %d is outside 1..%d", fn, (int)ns,
                            CLPOOL_MAX_SPATIAL);
    for (int32_t i = 0; i < ns; ++i) {
        if (p->kernel_shape[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: kernel_shape[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->kernel_shape[i]);
        if (p->strides[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: strides[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->strides[i]);
        if (p->dilations[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: dilations[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->dilations[i]);
    }
    for (int32_t i = 0; i < 2 * ns; ++i) {
        if (p->pads[i] < 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads[%d] = %lld must be >= 0", fn, (int)i,
                                (long long)p->pads[i]);
        if (p->pads[i] != 0 && p->auto_pad != CLPOOL_AUTO_PAD_NOTSET)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads must be 0 when auto_pad is not NOTSET (pads[%d] = %lld)",
                                fn, (int)i, (long long)p->pads[i]);
    }
    if (p->ceil_mode != 0 && p->ceil_mode != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: ceil_mode = %d must be 0 or 1", fn, (int)p->ceil_mode);
    if (p->storage_order != 0 && p->storage_order != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: storage_order = %d must be 0 or 1", fn,
                            (int)p->storage_order);
    if (p->auto_pad < CLPOOL_AUTO_PAD_NOTSET || p->auto_pad > CLPOOL_AUTO_PAD_VALID)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: auto_pad = %d is not a clpool_auto_pad value", fn,
                            (int)p->auto_pad);
    return CLPOOL_SUCCESS;
}

/* Does window `o` of a dim hold at least one tap inside [0, in)? */
static int window_has_tap(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb)
{
    const int64_t start = o * s - pb;
    const int64_t lo = start < 0 ? (-start - 1) / d + 1 : 0; /* ceil(-start / d), no overflow */
    return lo < k && start + lo * d < in;
}

/* Validate everything and compute padding + output size per spatial dim. */
static clpool_status plan_maxpool(const clpool_shape *input, const clpool_maxpool_params *params, const char *fn,
                                  maxpool_plan *plan)
{
    clpool_status status = clpool__check_shape(input, fn, "input shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_REQUIRE_NOT_NULL(params, fn);
    const clpool_maxpool_params *p = params;
    if ((status = check_attributes(p, fn)) != CLPOOL_SUCCESS) return status;
    if (input->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: input rank %d must be >= 3 (N x C x D1 ...)", fn,
                            (int)input->rank);
    const int32_t ns = input->rank - 2;
    if (p->spatial_rank != ns)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                            "%s: kernel_shape has %d dims but the input has %d spatial dims", fn, (int)p->spatial_rank,
                            (int)ns);
    plan->ns = ns;
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t in = input->dims[2 + i], k = p->kernel_shape[i], s = p->strides[i], d = p->dilations[i];
        int64_t e, pb = p->pads[i], pe = p->pads[ns + i], out, span;
        /* e = (k-1)*d + 1; every later sum must also stay in range. */
        if (__builtin_mul_overflow(k - 1, d, &e) || __builtin_add_overflow(e, 1, &e) ||
            __builtin_add_overflow(in, pb, &span) || __builtin_add_overflow(span, pe, &span) ||
            __builtin_add_overflow(span, s, &out))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: kernel/dilation/pads along spatial axis %d overflow int64", fn,
                                (int)i);
        if (p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER || p->auto_pad == CLPOOL_AUTO_PAD_SAME_LOWER) {
            out = in / s + (in % s != 0);
            int64_t total = out > 0 ? (out - 1) * s + e - in : 0;
            if (total < 0) total = 0;
            const int64_t small = total / 2;
            pb = p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER ? small : total - small;
            pe = total - pb;
            span = in + pb + pe;
        } else {
            /* NOTSET and VALID (pads are 0) share the floor/ceil formula. */
            if (span < e)
                return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                    "%s: along spatial axis %d the padded input (%lld) is smaller than the dilated kernel (%lld)",
                                    fn, (int)i, (long long)span, (long long)e);
            out = (span - e) / s + 1;
            if (p->ceil_mode) {
                out += (span - e) % s != 0;
                /* A window may not start in the right padding (onnx PR 5741). */
                if ((out - 1) * s >= in + pb) --out;
            }
        }
        if (in == 0 || out <= 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: spatial axis %d has size %lld, giving output size %lld", fn,
                                (int)i, (long long)in, (long long)out);
        /* A window starting inside [0, in) holds its first tap; only windows
         * starting in the padding need a look (few: about pads/stride). */
        const int64_t first_inside = (pb + s - 1) / s;     /* first o with start >= 0 */
        const int64_t first_after = (in + pb + s - 1) / s; /* first o with start >= in */
        for (int64_t o = 0; o < out; ++o) {
            if (o >= first_inside && o < first_after) {
                o = first_after - 1;
                continue;
            }
            if (!window_has_tap(o, in, k, s, d, pb))
                return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                    "%s: output position %lld along spatial axis %d has a window with no input element "
                                    "(pads/dilations too large for kernel_shape)",
                                    fn, (long long)o, (int)i);
        }
        plan->pad_begin[i] = pb;
        plan->out[i] = out;
    }
    return CLPOOL_SUCCESS;
}

/* The output (and Indices) shape a plan implies. */
static void plan_output_shape(const clpool_shape *input, const maxpool_plan *plan, clpool_shape *output)
{
    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 0; i < plan->ns; ++i) output->dims[2 + i] = plan->out[i];
}

clpool_status clpool_maxpool_output_shape(const clpool_shape *input, const clpool_maxpool_params *params,
                                          clpool_shape *output)
{
    static const char *fn = "clpool_maxpool_output_shape";
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    maxpool_plan plan;
    clpool_status status = plan_maxpool(input, params, fn, &plan);
    if (status == CLPOOL_SUCCESS) plan_output_shape(input, &plan, output);
    return status;
}

static int maxpool_dtype_ok(clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: case CLPOOL_FLOAT64: case CLPOOL_FLOAT16:
    case CLPOOL_BFLOAT16: case CLPOOL_INT8: case CLPOOL_UINT8:
        return 1;
    default:
        return 0;
    }
}

/* One validated MaxPool call: what both kernels need (offsets in elements). */
typedef struct maxpool_call {
    const clpool_maxpool_params *params;
    const maxpool_plan *plan;
    const clpool_shape *in;
    clpool_dtype dtype;
    cl_mem input, output, indices; /* indices may be NULL */
    cl_mem index_map; /* the 2-D kernel maps its Indices through this (launch_3d_in_two_passes); usually NULL */
    cl_long in_off, out_off, idx_off;
    cl_long in_limit; /* elements in the input cl_mem: vector loads may read up to here */
    size_t esize;
    int64_t n_out;
} maxpool_call;

/* Build options shared by all kernels: dtype and the Indices variant. */
static void common_options(const maxpool_call *c, clpool__options *o)
{
    clpool__options_start(o, c->dtype);
    clpool__options_define(o, "WITH_INDICES", c->indices != NULL);
    clpool__options_define(o, "STORAGE_ORDER", c->indices ? c->params->storage_order : 0);
    if (c->index_map) clpool__options_define(o, "INDEX_MAP", 1);
}

/* Arguments 0..1 (0..2 with Indices, 0..3 with an index map): the buffers;
 * returns the next index. */
static clpool_status set_buffers(clpool__kernel *k, const maxpool_call *c, cl_uint *next)
{
    clpool_status status = clpool__set_buffer_arg(k, 0, c->input);
    if (status == CLPOOL_SUCCESS) status = clpool__set_buffer_arg(k, 1, c->output);
    *next = 2;
    if (status == CLPOOL_SUCCESS && c->indices) status = clpool__set_buffer_arg(k, (*next)++, c->indices);
    if (status == CLPOOL_SUCCESS && c->index_map)
        status = clpool__set_buffer_arg(k, (*next)++, c->index_map);
    return status;
}

/* set_buffers, then the 2-D kernels' sizes (`rows` output rows per
 * work-item, `gap` fill between the plane kernel's array rows) as the last argument. */
static clpool_status set_buffers_and_sizes(clpool__kernel *k, const maxpool_call *c, int64_t rows, int64_t gap)
{
    const clpool__maxpool2d_sizes sz = {
        .H = c->in->dims[2],
        .W = c->in->dims[3],
        .OH = c->plan->out[0],
        .OW = c->plan->out[1],
        .pad_h = c->plan->pad_begin[0],
        .pad_w = c->plan->pad_begin[1],
        .in_offset = c->in_off,
        .out_offset = c->out_off,
        .idx_offset = c->idx_off,
        .in_limit = c->in_limit,
        .planes = c->in->dims[0] * c->in->dims[1],
        .rows = rows,
        .gap = gap,
    };
    cl_uint a = 0;
    clpool_status status = set_buffers(k, c, &a);
    return status == CLPOOL_SUCCESS ? clpool__set_arg(k, a, sizeof sz, &sz) : status;
}

/* Outputs per row of a 2-D work-item: 16 lanes (8 for 8-byte types) where its vectors are the
 * device's SIMD; 8 elsewhere (GPUs, llvmpipe), where each lane is a register of its own and
 * wider programs take several times longer to build (see docs/design.md). */
static int vector_width(const clpool_context *ctx, const maxpool_call *c)
{
    return c->esize >= 8 || !ctx->cpu_simd ? 8 : 16;
}

/* The widest stride along a row whose taps load as vectors, in both
 * kernels: 4 with 16 lanes (four loads and clang shuffles), else 2. */
static int64_t vector_stride_max(int vw) { return vw == 16 ? 4 : 2; }

/* Output rows per work-item of the exact path (the NaN fallback): 4 where a work-item's vectors
 * are the device's SIMD and the window is at most 3 rows tall (they share input rows), else 1:
 * it unrolls rows x taps, so more rows multiply the build time. */
static int exact_rows(const clpool_context *ctx, const maxpool_call *c)
{
    return ctx->cpu_simd && c->params->kernel_shape[0] <= 3 && c->plan->out[0] >= 4 ? 4 : 1;
}

/* Output rows per work-item of the fast and argmax paths: 64 (16 with Indices), halved while fewer
 * than 8 work-items per compute unit would remain; 1 where work-items are not SIMD (GPUs). Their
 * row loop reads shared input rows fewer times and spreads the set-up, at no build cost. */
static int stream_rows(const clpool_context *ctx, const maxpool_call *c, int64_t col_items)
{
    if (!ctx->cpu_simd) return 1;
    const int64_t planes = c->in->dims[0] * c->in->dims[1], oh = c->plan->out[0];
    int rows = c->indices ? 16 : 64;
    while (rows > 1 && planes * col_items * ((oh + rows - 1) / rows) < 8 * (int64_t)ctx->info.compute_units) rows /= 2;
    return rows;
}

/* Whether the fast path may run blocks wider than vector_width(): CPUs with
 * 512-bit vectors, without Indices. */
static int wide_blocks(const clpool_context *ctx, const maxpool_call *c)
{
    return !c->indices && ctx->cpu_simd && ctx->vector_bytes >= 64;
}

/* Fast-path lanes per row as a multiple of vector_width(), at most: 2 for 2-byte and 4 for 1-byte
 * types on CPUs with 512-bit vectors, so one vector fills a register; 1 on narrower devices and
 * with Indices. The plane path runs this width. */
static int widest(const clpool_context *ctx, const maxpool_call *c)
{
    if (!wide_blocks(ctx, c) || c->esize > 2) return 1;
    return c->esize == 1 ? 4 : 2;
}

/* Whether consecutive output rows' windows share input rows (kh > sh). */
static int windows_share_rows(const maxpool_call *c)
{
    return c->params->kernel_shape[0] > c->params->strides[0];
}

/* Inputs beyond an eighth of the device's cache (4 MiB of PoCL's 32): most
 * likely read from memory rather than left in cache by the previous op. */
static int beyond_cache_reach(const clpool_context *ctx, const maxpool_call *c)
{
    const uint64_t in_bytes = (uint64_t)clpool_shape_elements(c->in) * c->esize;
    const uint64_t cache = ctx->info.cache_bytes;
    return in_bytes > (cache > 0 ? cache / 8 : (uint64_t)4 << 20);
}

/* The 2-D path's width: widest(), halved while over a quarter of a block's lanes would pass the
 * row's end (a partial block stores through a private copy). Beyond the cache's reach, float32 rows
 * of two 16-lane blocks with shared rows become one 32-lane block: one work-item streams each row. */
static int fast_widen(const clpool_context *ctx, const maxpool_call *c)
{
    const int vw = vector_width(ctx, c);
    const int64_t ow = c->plan->out[1];
    int widen = widest(ctx, c);
    if (c->esize == 4 && wide_blocks(ctx, c) && windows_share_rows(c) && ow <= 2 * vw && beyond_cache_reach(ctx, c))
        widen = 2;
    while (widen > 1 && vw * widen * 3 > 4 * ow) widen /= 2;
    return widen;
}

/* Stride 2 with an odd left pad (-DODD_START, CPUs): row loads start aligned and tap 0 comes from one
 * broadcast element. float32 and the 16-bit floats without Indices only: 1-byte types lose (their
 * one-lane shift takes seven shuffles without AVX-512 VBMI), and so does float32 with Indices. */
static int odd_start_loads(const clpool_context *ctx, const maxpool_call *c)
{
    return ctx->cpu_simd && c->params->strides[1] == 2 && c->plan->pad_begin[1] % 2 != 0 &&
           (c->esize == 4 || c->esize == 2) && !c->indices;
}

/* Column blocks a work-item sweeps across its rows (-DSWEEP_BLOCKS; 0: one block), on CPUs: inputs beyond an
 * eighth of the cache with rows of 3 blocks or more (2 where windows share no rows), and windows one row high
 * (they carry nothing). The sweep reads the input front to back, a stream the prefetcher follows. */
static int sweep_blocks(const clpool_context *ctx, const maxpool_call *c, int block)
{
    if (!ctx->cpu_simd) return 0;
    const int64_t row_blocks = (c->plan->out[1] + block - 1) / block;
    const int one_row = c->params->kernel_shape[0] == 1; /* windows one row high carry nothing */
    if (row_blocks < (windows_share_rows(c) ? 3 : 2) || (!one_row && !beyond_cache_reach(ctx, c))) return 0;
    /* Per block: kh - min(sh, kh) input rows (at least one) of a vector, 4 with Indices; 1- and 2-byte types at
     * row stride 2 carry a row's loads instead (COLUMNS_FIRST, kernels/maxpool.cl): 2, +1 for taps 2 or more
     * past the first, +1 for odd_start_loads' broadcast element. */
    const int64_t kh = c->params->kernel_shape[0], sh = c->params->strides[0], kw = c->params->kernel_shape[1];
    const int columns_first = c->esize <= 2 && !c->indices && c->params->strides[1] == 2 && kh - sh <= 1;
    const int odd = odd_start_loads(ctx, c);
    const int64_t carry_vectors = columns_first ? 2 + (kw - odd > 2) + odd : kh > sh ? kh - sh : 1;
    const int64_t carry_bytes = carry_vectors * block * (int64_t)c->esize * (c->indices ? 4 : 1);
    int n = 16;
    while (n < row_blocks && n < 64 && 2 * n * carry_bytes <= 16384) n *= 2;
    return n;
}

/* The 2-D kernel, specialised on window and stride, serves windows up to 13x13 without dilation, strides 1-2
 * (3-4 with 16 lanes); the general kernel takes the rest, keeping programs few. Its argmax and exact paths
 * keep a lane's best tap at the element's width: with Indices, 1-byte types allow 127 taps. */
static int use_2d_fast_path(const clpool_context *ctx, const maxpool_call *c)
{
    const clpool_maxpool_params *p = c->params;
    const int64_t H = c->in->dims[2], W = c->in->dims[3];
    if (c->plan->ns != 2 || H > INT32_MAX / 2 || W > INT32_MAX / 2) return 0; /* int lane math */
    const int64_t max_stride = vector_stride_max(vector_width(ctx, c));
    for (int i = 0; i < 2; ++i)
        if (p->kernel_shape[i] > 13 || p->strides[i] > max_stride || p->dilations[i] != 1) return 0;
    if (c->indices && c->esize == 4) {
        const int64_t row_step = p->storage_order ? 1 : W, col_step = p->storage_order ? H : 1;
        const int64_t cols = p->kernel_shape[1] - 1 + p->strides[1] * 15; /* a window's and 16 lanes' reach */
        if ((p->kernel_shape[0] - 1) * row_step + cols * col_step > INT32_MAX) return 0;
    }
    return !(c->indices && c->esize == 1 && p->kernel_shape[0] * p->kernel_shape[1] > 127);
}

/* Bytes of each of the plane path's two private arrays (maxpool.cl): 16 KiB in
 * all, half of a core's L1 data cache. */
#define PLANE_BYTES 8192

/* The plane path's geometry: `gap` lowest values between rows (at least the
 * windows' reach past either end of a row) and `band` output rows per
 * work-item, the most whose arrays fit PLANE_BYTES. */
typedef struct plane_plan {
    int64_t gap, band, elems;
} plane_plan;

/* Whether stride-1 windows without Indices take the plane path, and its plan: CPUs with 512-bit vectors (the
 * private arrays stay in L1), windows of 9 taps or more (5 for 1- and 2-byte types; float32 5x5 is faster on
 * column blocks), bands of at least 2(k - 1) output rows or the whole plane, so that re-read rows stay few. */
static int plane_path(const clpool_context *ctx, const maxpool_call *c, plane_plan *pp)
{
    const clpool_maxpool_params *p = c->params;
    if (c->indices || !ctx->cpu_simd || ctx->vector_bytes < 64 || p->strides[0] != 1 || p->strides[1] != 1) return 0;
    const int64_t kh = p->kernel_shape[0], kw = p->kernel_shape[1];
    const int64_t k = kh > kw ? kh : kw;
    if (k < 9 && (k < 5 || c->esize >= 4)) return 0;
    const int64_t W = c->in->dims[3], OH = c->plan->out[0], OW = c->plan->out[1], pad_w = c->plan->pad_begin[1];
    const int64_t right = OW - 1 - pad_w + kw - 1 - (W - 1);
    pp->gap = pad_w > right ? pad_w : right;
    if (pp->gap < 0) pp->gap = 0;
    pp->elems = PLANE_BYTES / (int64_t)c->esize;
    const int64_t pitch = W + pp->gap, lanes = vector_width(ctx, c) * widest(ctx, c);
    /* the lead gap and the rows, then a vector of rounding up and the tails
     * the passes read and fill (maxpool2d_plane: 3 vectors + kw) */
    const int64_t room = pp->elems - pp->gap - 4 * lanes - kw;
    const int64_t band = room / pitch - (kh - 1);
    const int64_t need = OH < 2 * (kh - 1) ? OH : 2 * (kh - 1); /* >= 1 */
    if (band < need) return 0;
    pp->band = band < OH ? band : OH;
    return 1;
}

/* The 2-D kernels' options: common_options, the window, the strides and
 * the lanes (VW, and WIDEN blocks of them at once). */
static void options_2d(const clpool_context *ctx, const maxpool_call *c, int widen, clpool__options *o)
{
    const clpool_maxpool_params *p = c->params;
    common_options(c, o);
    clpool__options_define(o, "KH", p->kernel_shape[0]);
    clpool__options_define(o, "KW", p->kernel_shape[1]);
    clpool__options_define(o, "SH", p->strides[0]);
    clpool__options_define(o, "SW", p->strides[1]);
    clpool__options_define(o, "VW", vector_width(ctx, c));
    clpool__options_define(o, "WIDEN", widen);
    clpool__options_define(o, "EXACT_ROWS", exact_rows(ctx, c));
    /* a row's last block overlaps its neighbour on CPUs only (kernels/maxpool.cl, block_start) */
    clpool__options_define(o, "OVERLAP_BLOCKS", ctx->cpu_simd);
}

static clpool_status launch_plane(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                                  const plane_plan *pp, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const cl_long planes = c->in->dims[0] * c->in->dims[1];
    clpool__options options;
    options_2d(ctx, c, widest(ctx, c), &options);
    clpool__options_define(&options, "PLANE_ELEMS", pp->elems);
    clpool_status status = clpool__kernel_get(ctx, "maxpool.cl", &options, "maxpool2d_plane", k);
    if (status == CLPOOL_SUCCESS) status = set_buffers_and_sizes(k, c, pp->band, pp->gap);
    if (status != CLPOOL_SUCCESS) return status;
    const uint64_t items[2] = {(uint64_t)planes, (uint64_t)((c->plan->out[0] + pp->band - 1) / pp->band)};
    return clpool__launch(ctx, q, k, 2, items, 1, num_wait, wait, event);
}

/* Bytes of the flat path's private array (maxpool.cl): half of a core's L1 data cache, so that
 * bands stay tall (8 KiB: 1.6x slower on SPP's 13x13 over 64-wide rows, see docs/design.md). */
#define FLAT_BYTES 16384

/* The flat path and its band, on CPUs with 512-bit vectors: stride 1 without Indices, OW == W ("same" padding:
 * SPPF, SPP), types of at most 4 bytes (1-byte: rows of at most 127), where column blocks would idle over a quarter
 * of their lanes or the plane path would take the call. The band must hold 2(kh - 1) output rows or the plane. */
static int flat_path(const clpool_context *ctx, const maxpool_call *c, int64_t *band)
{
    const clpool_maxpool_params *p = c->params;
    if (c->esize > 4 || c->indices || !ctx->cpu_simd || ctx->vector_bytes < 64 || p->strides[0] != 1 ||
        p->strides[1] != 1)
        return 0;
    const int64_t W = c->in->dims[3], OH = c->plan->out[0], kh = p->kernel_shape[0];
    if (c->esize == 1 && W > 127) return 0; /* its lane columns are bytes */
    const int64_t lanes = vector_width(ctx, c) * widest(ctx, c), block_lanes = (W + lanes - 1) / lanes * lanes;
    plane_plan pp;
    if (c->plan->out[1] != W || (4 * W >= 3 * block_lanes && !plane_path(ctx, c, &pp))) return 0;
    /* the band's rows, then the vector the last one's loads may run past and the fill after it */
    const int64_t b = (FLAT_BYTES / (int64_t)c->esize - 2 * lanes) / W - (kh - 1);
    const int64_t need = OH < 2 * (kh - 1) ? OH : 2 * (kh - 1);
    if (b < need || b < 1) return 0;
    *band = b < OH ? b : OH;
    return 1;
}

static clpool_status launch_flat(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                                 int64_t band, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const cl_long planes = c->in->dims[0] * c->in->dims[1];
    clpool__options options;
    options_2d(ctx, c, widest(ctx, c), &options);
    clpool__options_define(&options, "FLAT_ELEMS", FLAT_BYTES / (int64_t)c->esize);
    clpool__options_define(&options, "PAD_W", c->plan->pad_begin[1]);
    clpool_status status = clpool__kernel_get(ctx, "maxpool.cl", &options, "maxpool2d_flat", k);
    if (status == CLPOOL_SUCCESS) status = set_buffers_and_sizes(k, c, band, 0);
    if (status != CLPOOL_SUCCESS) return status;
    const uint64_t items[2] = {(uint64_t)planes, (uint64_t)((c->plan->out[0] + band - 1) / band)};
    return clpool__launch(ctx, q, k, 2, items, 1, num_wait, wait, event);
}

static clpool_status launch_2d(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                               cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const int vw = vector_width(ctx, c);
    plane_plan pp;
    int64_t band;
    if (flat_path(ctx, c, &band)) return launch_flat(ctx, q, k, c, band, num_wait, wait, event);
    if (plane_path(ctx, c, &pp)) return launch_plane(ctx, q, k, c, &pp, num_wait, wait, event);
    const int widen = fast_widen(ctx, c);
    const int block = vw * widen; /* outputs per row of a work-item's block */
    const int sweep = sweep_blocks(ctx, c, block);
    const int64_t item_cols = (int64_t)block * (sweep ? sweep : 1); /* outputs per row of a work-item */
    const int64_t col_items = (c->plan->out[1] + item_cols - 1) / item_cols;
    const int rows = stream_rows(ctx, c, col_items);
    const int odd_start = odd_start_loads(ctx, c);
    /* the fast path's whole output vectors around the cache (kernels/maxpool.cl, STORE_WHOLE) */
    const int stream = !c->indices && clpool__stream_stores(ctx, ((uint64_t)clpool_shape_elements(c->in) +
                                                                  (uint64_t)c->n_out) * c->esize);
    clpool__options options;
    options_2d(ctx, c, widen, &options);
    clpool__options_define(&options, "SWEEP_BLOCKS", sweep);
    clpool__options_define(&options, "ODD_START", odd_start);
    clpool__options_define(&options, "STREAM_STORES", stream);
    clpool_status status = clpool__kernel_get(ctx, "maxpool.cl", &options, "maxpool2d", k);
    if (status == CLPOOL_SUCCESS) status = set_buffers_and_sizes(k, c, rows, 0);
    if (status != CLPOOL_SUCCESS) return status;
    const uint64_t items[3] = {(uint64_t)col_items,
                               (uint64_t)((c->plan->out[0] + rows - 1) / rows),
                               (uint64_t)(c->in->dims[0] * c->in->dims[1])};
    return clpool__launch(ctx, q, k, 3, items, 1, num_wait, wait, event);
}

/* The general kernels' geometry of a call (all but `items`). */
static void fill_geometry(const maxpool_call *c, clpool__maxpool_geom *g)
{
    memset(g, 0, sizeof *g);
    g->in_plane = 1;
    for (int32_t i = 0; i < c->plan->ns; ++i) {
        g->in_dims[i] = c->in->dims[2 + i];
        g->out_dims[i] = c->plan->out[i];
        g->ksize[i] = c->params->kernel_shape[i];
        g->stride[i] = c->params->strides[i];
        g->pad_begin[i] = c->plan->pad_begin[i];
        g->dilation[i] = c->params->dilations[i];
        g->in_plane *= g->in_dims[i];
    }
    g->in_offset = c->in_off;
    g->out_offset = c->out_off;
    g->idx_offset = c->idx_off;
    g->in_limit = c->in_limit;
}

/* Builds (or finds) general kernel `name` with `options` and runs g->items work-items. */
static clpool_status launch_general(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                                    const char *name, const clpool__options *options, const clpool__maxpool_geom *g,
                                    cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool_status status = clpool__kernel_get(ctx, "maxpool.cl", options, name, k);
    cl_uint a = 0;
    if (status == CLPOOL_SUCCESS) status = set_buffers(k, c, &a);
    if (status == CLPOOL_SUCCESS) status = clpool__set_arg(k, a, sizeof *g, g);
    if (status != CLPOOL_SUCCESS) return status;
    return clpool__launch_1d(ctx, q, k, (uint64_t)g->items, CLPOOL__LOCAL_BUDGET, num_wait, wait, event);
}

/* The general kernel: VW outputs along the last spatial dim per work-item,
 * its stride compiled in where the taps load as vectors (1 or 2; 3 or 4 with 16 lanes). */
static clpool_status launch_nd(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                               cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const int32_t ns = c->plan->ns;
    const int vw = vector_width(ctx, c);
    clpool__maxpool_geom g;
    fill_geometry(c, &g);
    const int64_t ow = c->plan->out[ns - 1];
    const int64_t blocks = (ow + vw - 1) / vw, nb = ctx->cpu_simd ? (blocks < 4 ? blocks : 4) : 1;
    g.items = c->n_out / ow * ((blocks + nb - 1) / nb);
    const int64_t sw = c->params->strides[ns - 1];
    clpool__options options;
    common_options(c, &options);
    clpool__options_define(&options, "NS", ns);
    clpool__options_define(&options, "VW", vw);
    clpool__options_define(&options, "NB", nb);
    clpool__options_define(&options, "SW", sw <= vector_stride_max(vw) ? sw : 0);
    return launch_general(ctx, q, k, c, "maxpool", &options, &g, num_wait, wait, event);
}

/* The window kernel (one output per work-item, lanes along the window's row of taps) for rows of few
 * outputs under wide windows (at least 8 taps and twice the row's outputs), where the row kernel's lanes idle. */
static int use_window_kernel(const clpool_context *ctx, const maxpool_call *c)
{
    const int32_t last = c->plan->ns - 1;
    const int64_t kw = c->params->kernel_shape[last];
    return ctx->cpu_simd && kw >= 8 && kw >= 2 * c->plan->out[last];
}

static clpool_status launch_window(clpool_context *ctx, cl_command_queue q, clpool__kernel *k, const maxpool_call *c,
                                   cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool__maxpool_geom g;
    fill_geometry(c, &g);
    g.items = c->n_out;
    clpool__options options;
    common_options(c, &options);
    clpool__options_define(&options, "NS", c->plan->ns);
    clpool__options_define(&options, "VW", vector_width(ctx, c));
    clpool__options_define(&options, "NB", 1);
    clpool__options_define(&options, "SW", 0);
    clpool__options_define(&options, "WINDOW_INT_AT", g.in_plane <= INT32_MAX);
    return launch_general(ctx, q, k, c, "maxpool_window", &options, &g, num_wait, wait, event);
}

/* A call's view: `shape` (rank 4: one batch of `planes` planes of h x w)
 * pooled by the windows of c's spatial dims `dims` (two indices; -1: a
 * window of 1, the dim passes through); params, plan and shape are *view's. */
static void view_2d(const maxpool_call *c, int64_t planes, int64_t h, int64_t w, const int32_t dims[2],
                    maxpool_call *view, clpool_maxpool_params *params, maxpool_plan *plan, clpool_shape *shape)
{
    const clpool_maxpool_params *p = c->params;
    *view = *c;
    *params = *p;
    *plan = *c->plan;
    *shape = (clpool_shape){4, {1, planes, h, w}};
    params->spatial_rank = plan->ns = 2;
    for (int32_t i = 0; i < 2; ++i) {
        const int32_t d = dims[i];
        params->kernel_shape[i] = d >= 0 ? p->kernel_shape[d] : 1;
        params->strides[i] = d >= 0 ? p->strides[d] : 1;
        params->dilations[i] = d >= 0 ? p->dilations[d] : 1;
        plan->pad_begin[i] = d >= 0 ? c->plan->pad_begin[d] : 0;
        plan->out[i] = d >= 0 ? c->plan->out[d] : shape->dims[2 + i];
    }
    view->n_out = planes * plan->out[0] * plan->out[1];
    view->params = params;
    view->plan = plan;
    view->in = shape;
}

/* Returns 1 and fills *view (pointing at *params, *plan, *shape) where the call is 2-D pooling in all but name,
 * so that the 2-D kernels take it: 1-D as rows of height 1, leading windows of 1 (video's 1xkxk) folded into
 * planes. Flat offsets, so Indices, stay the same; column-major Indices over 3+ dims keep the general kernel. */
static int view_as_2d(const maxpool_call *c, maxpool_call *view, clpool_maxpool_params *params, maxpool_plan *plan,
                      clpool_shape *shape)
{
    const clpool_maxpool_params *p = c->params;
    const int32_t ns = c->plan->ns;
    if (ns == 2 || (ns > 2 && c->indices && p->storage_order == 1)) return 0;
    int64_t planes = c->in->dims[0] * c->in->dims[1];
    /* The leading dims fold into the planes where their windows are 1 and
     * keep the dim's size: stride 1 and no pads (validation rejects a window
     * of 1 in the padding), or a dim of 1. */
    for (int32_t i = 0; i < ns - 2; ++i) {
        if (p->kernel_shape[i] != 1 || c->plan->out[i] != c->in->dims[2 + i]) return 0;
        planes *= c->in->dims[2 + i];
    }
    if (ns == 1) /* rows of height 1 */
        view_2d(c, planes, 1, c->in->dims[2], (const int32_t[]){-1, 0}, view, params, plan, shape);
    else
        view_2d(c, planes, c->in->dims[ns], c->in->dims[ns + 1], (const int32_t[]){ns - 2, ns - 1}, view, params,
                plan, shape);
    return 1;
}

/* A call of 2 spatial dims (or a view as one) by the 2-D kernels where they
 * serve it, else (and for any other rank) by the general kernel. */
static clpool_status launch(clpool_context *ctx, cl_command_queue q, const maxpool_call *c, cl_uint num_wait,
                            const cl_event *wait, cl_event *event)
{
    clpool__kernel k = {0};
    const clpool_status status = use_window_kernel(ctx, c) ? launch_window(ctx, q, &k, c, num_wait, wait, event)
                                 : use_2d_fast_path(ctx, c) ? launch_2d(ctx, q, &k, c, num_wait, wait, event)
                                                             : launch_nd(ctx, q, &k, c, num_wait, wait, event);
    clpool__kernel_put(ctx, &k);
    return status;
}

/* 3-D windows in two 2-D passes through a context scratch buffer, the last two dims' windows and then the first
 * dim's over rows of OH*OW: each input row is read once, where the general kernel reads it for up to 3 output
 * planes. Each pass keeps its first maximum (and first NaN), so the first in (d, h, w) order wins. */
static clpool_status launch_3d_in_two_passes(clpool_context *ctx, cl_command_queue q, const maxpool_call *c,
                                             cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const int64_t planes = c->in->dims[0] * c->in->dims[1], D = c->in->dims[2];
    const int64_t across_out = planes * D * c->plan->out[1] * c->plan->out[2];
    maxpool_call across, down;
    clpool_maxpool_params across_params, down_params;
    maxpool_plan across_plan, down_plan;
    clpool_shape across_shape, down_shape;
    view_2d(c, planes * D, c->in->dims[3], c->in->dims[4], (const int32_t[]){1, 2}, &across, &across_params,
            &across_plan, &across_shape);
    view_2d(c, planes, D, c->plan->out[1] * c->plan->out[2], (const int32_t[]){0, -1}, &down, &down_params, &down_plan,
            &down_shape);
    if (c->indices && (c->params->storage_order != 0 || !use_2d_fast_path(ctx, &down)))
        return launch(ctx, q, c, num_wait, wait, event); /* only the 2-D kernels map Indices */
    /* Indices: the first pass's flat offsets go ahead of its values and the second maps its own through them
     * (-DINDEX_MAP, the 2-D kernels only). Layout: [Indices][values][16 elements the map loads may overrun]. */
    const size_t index_bytes = c->indices ? (size_t)across_out * sizeof(cl_long) : 0;
    const size_t tail = c->indices ? 16 * sizeof(cl_long) : 0;
    clpool__scratch_lease mid;
    clpool_status status = clpool__scratch_get(ctx, q, index_bytes + (size_t)across_out * c->esize + tail,
                                               "clpool_enqueue_maxpool", "3-D pooling's first pass", &mid);
    if (status == CLPOOL_ERROR_OPENCL) /* no memory for it: the general kernel needs none */
        return launch(ctx, q, c, num_wait, wait, event);
    if (status != CLPOOL_SUCCESS) return status;
    across.output = mid.mem;
    across.out_off = (cl_long)(index_bytes / c->esize);
    across.indices = c->indices ? mid.mem : NULL;
    across.idx_off = 0;
    down.input = mid.mem;
    down.in_off = across.out_off;
    down.in_limit = across.out_off + across_out;
    down.index_map = across.indices;
    cl_event first = NULL, last = NULL;
    status = launch(ctx, q, &across, num_wait, wait, &first);
    if (status == CLPOOL_SUCCESS) status = launch(ctx, q, &down, 1, &first, &last);
    clpool__scratch_done(ctx, &mid, first, last, event);
    return status;
}

/* Whether a 3-D call takes the one-pass kernel (kernels/maxpool3d.cl): float32 on CPUs with 16-lane vectors,
 * row-major Indices or none, no dilation, windows of at most 7 taps a side (its loops unroll them), height and
 * row strides of at most 7 and 2, planes whose offsets fit an int. */
static int fused_3d(const clpool_context *ctx, const maxpool_call *c)
{
    const clpool_maxpool_params *p = c->params;
    const int64_t plane = c->in->dims[2] * c->in->dims[3] * c->in->dims[4];
    if (c->plan->ns != 3 || (c->indices && p->storage_order != 0) || c->dtype != CLPOOL_FLOAT32 ||
        vector_width(ctx, c) != 16 || p->strides[1] > 7 || p->strides[2] > 2 || plane > INT32_MAX / 2)
        return 0;
    for (int32_t i = 0; i < 3; ++i)
        if (p->kernel_shape[i] > 7 || p->dilations[i] != 1) return 0;
    return 1;
}

/* 3-D windows in one pass, which reads the input once and writes no intermediate: a work-item per plane through
 * every output depth slice, or per band of output rows where planes alone leave fewer than 8 work-items per
 * compute unit (the device would idle). */
static clpool_status launch_3d_fused(clpool_context *ctx, cl_command_queue q, const maxpool_call *c,
                                     cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    const clpool_maxpool_params *p = c->params;
    const int64_t planes = c->in->dims[0] * c->in->dims[1], OH = c->plan->out[1];
    const int64_t want = 8 * (int64_t)ctx->info.compute_units;
    int64_t bands = planes >= want ? 1 : (want + planes - 1) / planes;
    if (bands > OH) bands = OH;
    const int64_t band_rows = (OH + bands - 1) / bands;
    bands = (OH + band_rows - 1) / band_rows;
    const clpool__maxpool3d_sizes sz = {
        .D = c->in->dims[2],
        .H = c->in->dims[3],
        .W = c->in->dims[4],
        .OD = c->plan->out[0],
        .OH = OH,
        .OW = c->plan->out[2],
        .stride_d = p->strides[0],
        .pad_d = c->plan->pad_begin[0],
        .pad_h = c->plan->pad_begin[1],
        .pad_w = c->plan->pad_begin[2],
        .in_offset = c->in_off,
        .out_offset = c->out_off,
        .idx_offset = c->idx_off,
        .in_limit = c->in_limit,
        .planes = planes,
        .band_rows = band_rows,
        .bands = bands,
    };
    clpool__options options;
    common_options(c, &options);
    clpool__options_define(&options, "KD", p->kernel_shape[0]);
    clpool__options_define(&options, "KH", p->kernel_shape[1]);
    clpool__options_define(&options, "KW", p->kernel_shape[2]);
    clpool__options_define(&options, "SH", p->strides[1]);
    clpool__options_define(&options, "SW", p->strides[2]);
    clpool__kernel k = {0};
    cl_uint a = 0;
    clpool_status status = clpool__kernel_get(ctx, "maxpool3d.cl", &options, "maxpool3d", &k);
    if (status == CLPOOL_SUCCESS) status = set_buffers(&k, c, &a);
    if (status == CLPOOL_SUCCESS) status = clpool__set_arg(&k, a, sizeof sz, &sz);
    if (status == CLPOOL_SUCCESS)
        status = clpool__launch_1d(ctx, q, &k, (uint64_t)(planes * bands), 1, num_wait, wait, event);
    clpool__kernel_put(ctx, &k);
    return status;
}

/* Whether every window is the whole plane (one output per plane, each
 * window's taps inside the input covering every element): GlobalMaxPool
 * then computes the same result (first NaN, else first maximum). */
static int windows_are_whole_planes(const clpool_shape *in, const clpool_maxpool_params *p, const maxpool_plan *plan)
{
    for (int32_t i = 0; i < plan->ns; ++i) {
        const int64_t n = in->dims[2 + i];
        /* a dim of 1: validation left the window a tap, element 0 */
        if (plan->out[i] != 1 ||
            (n > 1 && (p->dilations[i] != 1 || p->kernel_shape[i] - 1 - plan->pad_begin[i] < n - 1)))
            return 0;
    }
    return 1;
}

clpool_status clpool_enqueue_maxpool(clpool_context *ctx, cl_command_queue queue, const clpool_maxpool_params *params,
                                     clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_mem indices,
                                     size_t indices_offset, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_maxpool";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    if (!maxpool_dtype_ok(dtype))
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by MaxPool (float32, float64, float16, bfloat16, int8, uint8)",
                            fn, clpool_dtype_name(dtype), (int)dtype);
    clpool_shape out_shape;
    maxpool_plan plan;
    clpool_status status = plan_maxpool(input_shape, params, fn, &plan);
    if (status != CLPOOL_SUCCESS) return status;
    plan_output_shape(input_shape, &plan, &out_shape);
    const size_t esize = clpool_dtype_size(dtype);
    const int64_t n_in = clpool_shape_elements(input_shape), n_out = clpool_shape_elements(&out_shape);
    if ((status = clpool__check_dtype_device(ctx, dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    cl_command_queue q;
    if ((status = clpool__resolve_queue(ctx, queue, fn, &q)) != CLPOOL_SUCCESS) return status;
    size_t in_bytes = 0; /* the input cl_mem's size: vector loads may read up to its end */
    if ((status = clpool__check_buffer(input, input_offset, n_in, esize, fn, "input", &in_bytes)) != CLPOOL_SUCCESS)
        return status;
    if ((status = clpool__check_buffer(output, output_offset, n_out, esize, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    if (indices &&
        (status = clpool__check_buffer(indices, indices_offset, n_out, sizeof(cl_long), fn, "indices", NULL)) !=
            CLPOOL_SUCCESS)
        return status;
    if (n_out == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    /* Windows over whole planes (CBAM's channel attention, SPP's top bin) without Indices: GlobalMaxPool's
     * kernels, which split long planes across work-items. */
    const int col_major = params->storage_order != 0;
    if (windows_are_whole_planes(input_shape, params, &plan)) {
        if (!indices && clpool__global_pool_dtype_ok(dtype))
            return clpool__launch_global_max(ctx, q, dtype, n_out, n_in / n_out, input, input_offset, output,
                                             output_offset, num_wait, wait, event, fn);
        /* With Indices too, on CPUs (see global_max_pool_indices). */
        if (indices && clpool__global_max_indices_ok(ctx, dtype, n_out, n_in / n_out, plan.ns, col_major)) {
            int64_t dims[3] = {1, 1, 1};
            for (int32_t i = 0; i < plan.ns && i < 3; ++i) dims[i] = input_shape->dims[2 + i];
            return clpool__launch_global_max_indices(ctx, q, dtype, n_out, n_in / n_out, input, input_offset, output,
                                                     output_offset, indices, indices_offset, col_major, dims, num_wait,
                                                     wait, event);
        }
    }

    maxpool_call call = {.params = params, .plan = &plan, .in = input_shape, .input = input, .output = output,
                         .indices = indices, .in_off = (cl_long)(input_offset / esize),
                         .out_off = (cl_long)(output_offset / esize),
                         .idx_off = (cl_long)(indices_offset / sizeof(cl_long)), .n_out = n_out, .esize = esize};
    call.dtype = dtype;
    call.in_limit = (cl_long)(in_bytes / esize);
    maxpool_call view;
    clpool_maxpool_params view_params;
    maxpool_plan view_plan;
    clpool_shape view_shape;
    if (view_as_2d(&call, &view, &view_params, &view_plan, &view_shape))
        return launch(ctx, q, &view, num_wait, wait, event);
    if (plan.ns == 3)
        return fused_3d(ctx, &call) ? launch_3d_fused(ctx, q, &call, num_wait, wait, event)
                                    : launch_3d_in_two_passes(ctx, q, &call, num_wait, wait, event);
    return launch(ctx, q, &call, num_wait, wait, event);
}
