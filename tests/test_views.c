/*
 * Views (clpool_view): the windowed ops on tensors of any strides give the
 * results of the first tier bit for bit, in contiguous, channels-last (C
 * innermost), permuted, stepped (a slice with a step) and, for inputs,
 * reversed (negative strides) layouts, with every element outside an output
 * view left as it was; the planned paths; the views' checks, each bad input
 * with its status and message. The reference is the first tier, reached
 * through padded rows (a view it takes whatever the window): test_tiers
 * checks it bit for bit against every contiguous path and the C reference,
 * and it builds one program per op where the contiguous paths would build
 * one per window.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "planners.h"
#include "reference.h"
#include "reference_ops.h"

/* A deterministic generator (fixed seeds: a failing case repeats). */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int64_t rng_int(int64_t lo, int64_t hi) { return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1)); }

/* ------------------------------------------------------------ layouts */

/* PADDED: row-major with one element after each innermost row, the first tier's reference layout */
typedef enum layout { CONTIGUOUS, CHANNELS_LAST, PERMUTED, STEPPED, REVERSED, LAYOUTS, PADDED = LAYOUTS } layout;
static const char *const layout_names[LAYOUTS] = {"contiguous", "channels-last", "permuted", "stepped", "reversed"};

/* A tensor stored in a layout: its view (mem filled in later) and the buffer's elements. */
typedef struct stored {
    clpool_view view;
    int64_t offset;   /* element 0's element offset */
    int64_t elements; /* the buffer's */
} stored;

/* dims in layout `how`: the storage order of the dims (outermost first), a step per dim, reversed dims. */
static void store(const clpool_shape *shape, layout how, size_t esize, stored *s)
{
    const int32_t rank = shape->rank;
    int32_t order[CLPOOL_MAX_RANK];
    int64_t step[CLPOOL_MAX_RANK];
    int flip[CLPOOL_MAX_RANK];
    for (int32_t d = 0; d < rank; ++d) order[d] = d, step[d] = 1, flip[d] = 0;
    if (how == CHANNELS_LAST) {
        for (int32_t d = 1; d + 1 < rank; ++d) order[d] = d + 1;
        order[rank - 1] = 1;
    } else if (how == PERMUTED) {
        for (int32_t d = rank - 1; d > 0; --d) { /* Fisher-Yates */
            const int32_t k = (int32_t)rng_int(0, d), t = order[d];
            order[d] = order[k], order[k] = t;
        }
        int identity = 1; /* not the contiguous order */
        for (int32_t d = 0; d < rank; ++d) identity &= order[d] == d;
        if (identity) order[rank - 1] = 1, order[1] = rank - 1;
    } else if (how == STEPPED) { /* a step in C's dim at least: not the contiguous layout */
        for (int32_t d = 0; d < rank; ++d) step[d] = rng_int(1, 3);
        step[1] = rng_int(2, 3);
    } else if (how == PADDED) {
        step[rank - 1] = 1;
    } else if (how == REVERSED) {
        for (int32_t d = 0; d < rank; ++d) flip[d] = (int)rng_int(0, 1);
        flip[rank - 1] = 1;
    }
    memset(s, 0, sizeof *s);
    s->view.rank = rank;
    int64_t at = 1;
    for (int32_t k = rank - 1; k >= 0; --k) {
        const int32_t d = order[k];
        s->view.dims[d] = shape->dims[d];
        s->view.strides[d] = how == PADDED ? at : at * step[d];
        at = how == PADDED ? at * shape->dims[d] + (k == rank - 1) : at * step[d] * shape->dims[d];
    }
    const int64_t lead = rng_int(0, 3); /* element 0 away from the buffer's start */
    s->offset = lead;
    for (int32_t d = 0; d < rank; ++d)
        if (flip[d] && shape->dims[d] > 0) {
            s->offset += (shape->dims[d] - 1) * s->view.strides[d];
            s->view.strides[d] = -s->view.strides[d];
        }
    s->elements = lead + (at > 0 ? at : 1) + rng_int(0, 3);
    s->view.offset = (size_t)s->offset * esize;
}

/* The storage element of logical element i (row-major index). */
static int64_t stored_at(const stored *s, int64_t i)
{
    int64_t at = s->offset;
    for (int32_t d = s->view.rank - 1; d >= 0; --d) {
        at += i % s->view.dims[d] * s->view.strides[d];
        i /= s->view.dims[d];
    }
    return at;
}

/* A buffer image of `s`: CU_SENTINEL bytes with the n elements of `data` at their places. */
static unsigned char *image_of(const stored *s, const void *data, int64_t n, size_t esize)
{
    unsigned char *img = malloc((size_t)s->elements * esize);
    ck_assert_ptr_nonnull(img);
    memset(img, CU_SENTINEL, (size_t)s->elements * esize);
    for (int64_t i = 0; data && i < n; ++i)
        memcpy(img + (size_t)stored_at(s, i) * esize, (const unsigned char *)data + (size_t)i * esize, esize);
    return img;
}

/* Gathers the n elements of `s` from its image into `data`; 1 if every byte outside the view is still
 * CU_SENTINEL (an output view writes only its own elements). */
static int gather(const stored *s, const unsigned char *img, void *data, int64_t n, size_t esize)
{
    unsigned char *mine = calloc((size_t)s->elements, 1);
    ck_assert_ptr_nonnull(mine);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t at = stored_at(s, i);
        memcpy((unsigned char *)data + (size_t)i * esize, img + (size_t)at * esize, esize);
        mine[at] = 1;
    }
    int untouched = 1;
    for (int64_t e = 0; e < s->elements; ++e)
        if (!mine[e] && !cu_all_sentinel(img + (size_t)e * esize, esize)) untouched = 0;
    free(mine);
    return untouched;
}

/* ------------------------------------------------------------ cases */

typedef enum op { OP_MAX, OP_AVG, OP_LP } op;

typedef struct view_case {
    op op;
    clpool_dtype dtype;
    clpool_shape in;
    clpool_maxpool_params mp; /* the window for every op */
    int indices, count_include_pad;
    double p;
} view_case;

static void describe(const view_case *c, char *buf, size_t len)
{
    buf[0] = 0;
    cu_append(buf, len, "%s %s in", c->op == OP_MAX ? "MaxPool" : c->op == OP_AVG ? "AveragePool" : "LpPool",
              clpool_dtype_name(c->dtype));
    cu_append_dims(buf, len, c->in.dims, c->in.rank);
    cu_append(buf, len, " kernel");
    cu_append_dims(buf, len, c->mp.kernel_shape, c->mp.spatial_rank);
    cu_append(buf, len, " strides");
    cu_append_dims(buf, len, c->mp.strides, c->mp.spatial_rank);
    cu_append(buf, len, " dilations");
    cu_append_dims(buf, len, c->mp.dilations, c->mp.spatial_rank);
    cu_append(buf, len, " pads");
    cu_append_dims(buf, len, c->mp.pads, 2 * c->mp.spatial_rank);
    cu_append(buf, len, " ceil %d indices %d order %d cip %d p %g", (int)c->mp.ceil_mode, c->indices,
              (int)c->mp.storage_order, c->count_include_pad, c->p);
}

/* The case's window as a clpool_window_params (MaxPool's params start with its fields). */
static clpool_window_params window_of(const view_case *c)
{
    clpool_window_params w;
    clpool_window_params_init(&w, c->mp.spatial_rank, c->mp.kernel_shape);
    memcpy(w.strides, c->mp.strides, sizeof w.strides);
    memcpy(w.dilations, c->mp.dilations, sizeof w.dilations);
    memcpy(w.pads, c->mp.pads, sizeof w.pads);
    w.ceil_mode = c->mp.ceil_mode;
    return w;
}

static void average_params(const view_case *c, clpool_average_pool_params *a)
{
    clpool_average_pool_params_init(a, c->mp.spatial_rank, c->mp.kernel_shape);
    a->window = window_of(c);
    a->count_include_pad = c->count_include_pad;
}

static void lp_params(const view_case *c, clpool_lp_pool_params *l)
{
    clpool_lp_pool_params_init(l, c->mp.spatial_rank, c->mp.kernel_shape);
    l->window = window_of(c);
    l->p = c->p;
}

/* The case's output shape, or 0 where its attributes are refused (the draw is retried). */
static int output_shape(const view_case *c, clpool_shape *out)
{
    if (c->op == OP_MAX) return clpool_maxpool_output_shape(&c->in, &c->mp, out) == CLPOOL_SUCCESS;
    if (c->op == OP_AVG) {
        clpool_average_pool_params a;
        average_params(c, &a);
        return clpool_average_pool_output_shape(&c->in, &a, out) == CLPOOL_SUCCESS;
    }
    clpool_lp_pool_params l;
    lp_params(c, &l);
    return clpool_lp_pool_output_shape(&c->in, &l, out) == CLPOOL_SUCCESS;
}

/* Runs the case on views (contiguous ones: the contiguous call); out and idx are the output's and the
 * Indices' views with their mems set. */
static clpool_status run_views(const view_case *c, const clpool_view *in, const clpool_view *out,
                               const clpool_view *idx)
{
    cl_event ev = NULL;
    clpool_status st;
    if (c->op == OP_MAX) {
        st = clpool_enqueue_maxpool_view(cu_ctx, NULL, &c->mp, c->dtype, in, out, c->indices ? idx : NULL, 0, NULL,
                                         &ev);
    } else if (c->op == OP_AVG) {
        clpool_average_pool_params a;
        average_params(c, &a);
        st = clpool_enqueue_average_pool_view(cu_ctx, NULL, &a, c->dtype, in, out, 0, NULL, &ev);
    } else {
        clpool_lp_pool_params l;
        lp_params(c, &l);
        st = clpool_enqueue_lp_pool_view(cu_ctx, NULL, &l, c->dtype, in, out, 0, NULL, &ev);
    }
    if (st == CLPOOL_SUCCESS) {
        cu_wait_done(NULL, ev, "view call");
        clReleaseEvent(ev);
    }
    return st;
}

/* Random data of the dtype: small integers with ties, signed zeros and, for floats, NaN and inf now and then. */
static void fill(void *data, int64_t n, clpool_dtype dtype)
{
    const size_t esize = clpool_dtype_size(dtype);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t r = rng_int(0, 99);
        const double v = r < 2 ? (r ? -0.0 : INFINITY) : r < 3 ? NAN : (double)rng_int(-40, 40) / 8;
        unsigned char *e = (unsigned char *)data + (size_t)i * esize;
        switch (dtype) {
        case CLPOOL_FLOAT32: { const float f = (float)v; memcpy(e, &f, 4); break; }
        case CLPOOL_FLOAT64: memcpy(e, &v, 8); break;
        case CLPOOL_BFLOAT16: { const float f = (float)v; uint32_t u; memcpy(&u, &f, 4); const uint16_t h = (uint16_t)(u >> 16); memcpy(e, &h, 2); break; }
        case CLPOOL_FLOAT16: { /* k/8 for |k| <= 40, -0, inf, NaN: exact in half */
            uint16_t h;
            if (isnan(v)) h = 0x7e00;
            else if (isinf(v)) h = 0x7c00;
            else if (v == 0) h = signbit(v) ? 0x8000 : 0;
            else {
                const float a = fabsf((float)v);
                int ex;
                const float m = frexpf(a, &ex); /* a = m * 2^ex, m in [0.5, 1) */
                h = (uint16_t)(((ex + 14) << 10) | (uint16_t)((m * 2 - 1) * 1024));
                if (v < 0) h |= 0x8000;
            }
            memcpy(e, &h, 2);
            break;
        }
        default: { const int8_t k = (int8_t)rng_int(-128, 127); memcpy(e, &k, 1); break; }
        }
    }
}

/* A random window of `ns` spatial dims (0: 1 to 3) over a random input whose C is one of `channels`. */
static void draw(view_case *c, op which, clpool_dtype dtype, const int64_t *channels, int n_channels, int32_t ns)
{
    if (ns == 0) ns = (int32_t)rng_int(1, 3);
    for (;;) {
        memset(c, 0, sizeof *c);
        c->op = which;
        c->dtype = dtype;
        c->in.rank = ns + 2;
        c->in.dims[0] = rng_int(1, 2);
        c->in.dims[1] = channels[rng_int(0, n_channels - 1)];
        int64_t kernel[CLPOOL_MAX_SPATIAL];
        for (int32_t d = 0; d < ns; ++d) {
            c->in.dims[2 + d] = rng_int(1, ns == 3 ? 5 : 8);
            kernel[d] = rng_int(1, 3);
        }
        clpool_maxpool_params_init(&c->mp, ns, kernel);
        int whole = 1; /* a window over whole planes without pads: the contiguous sums take the global pools' order */
        for (int32_t d = 0; d < ns; ++d) {
            c->mp.strides[d] = rng_int(1, 3);
            c->mp.dilations[d] = rng_int(1, 2);
            c->mp.pads[d] = rng_int(0, kernel[d] - 1);
            c->mp.pads[ns + d] = rng_int(0, kernel[d] - 1);
            whole &= kernel[d] == c->in.dims[2 + d] && c->mp.pads[d] == 0 && c->mp.pads[ns + d] == 0;
        }
        c->mp.ceil_mode = (int32_t)rng_int(0, 1);
        c->mp.storage_order = (int32_t)rng_int(0, 1);
        c->indices = which == OP_MAX && rng_int(0, 1);
        c->count_include_pad = which == OP_AVG && rng_int(0, 1);
        static const double ps[] = {1, 2, 3, 2.5};
        c->p = which == OP_LP ? ps[rng_int(0, 3)] : 0;
        clpool_shape out;
        if (output_shape(c, &out) && !(whole && which != OP_MAX)) return;
    }
}

/* Whether the bits of a float dtype's element are a NaN. */
static int is_nan(uint64_t bits, clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: return (bits & 0x7fffffffu) > 0x7f800000u;
    case CLPOOL_FLOAT64: return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    case CLPOOL_FLOAT16: return (bits & 0x7fffu) > 0x7c00u;
    case CLPOOL_BFLOAT16: return (bits & 0x7fffu) > 0x7f80u;
    default: return 0;
    }
}

/* Runs case c with its input, output and Indices in the layouts given and checks the results against
 * the first tier's (bit for bit) and the bytes around the output views. Returns wrong elements. */
static int run_case(const view_case *c, layout in_how, layout out_how, layout idx_how, char *why, size_t len)
{
    const size_t esize = clpool_dtype_size(c->dtype);
    clpool_shape out_shape;
    ck_assert(output_shape(c, &out_shape));
    const int64_t n_in = clpool_shape_elements(&c->in), n_out = clpool_shape_elements(&out_shape);
    void *x = malloc((size_t)n_in * esize + 1), *want = malloc((size_t)n_out * esize + 1),
         *got = malloc((size_t)n_out * esize + 1);
    int64_t *want_idx = malloc((size_t)n_out * 8 + 8), *got_idx = malloc((size_t)n_out * 8 + 8);
    ck_assert(x && want && got && want_idx && got_idx);
    fill(x, n_in, c->dtype);

    /* the reference: the first tier */
    stored cin, cout, cidx;
    store(&c->in, PADDED, esize, &cin);
    store(&out_shape, PADDED, esize, &cout);
    store(&out_shape, PADDED, 8, &cidx);
    stored sin, sout, sidx;
    store(&c->in, in_how, esize, &sin);
    store(&out_shape, out_how == REVERSED ? STEPPED : out_how, esize, &sout);
    store(&out_shape, idx_how == REVERSED ? STEPPED : idx_how, 8, &sidx);
    stored *all[6] = {&cin, &cout, &cidx, &sin, &sout, &sidx};
    unsigned char *img[6];
    for (int k = 0; k < 6; ++k) {
        const size_t es = k == 2 || k == 5 ? 8 : esize;
        img[k] = image_of(all[k], k % 3 == 0 ? x : NULL, n_in, es);
        all[k]->view.mem = cu_buffer_from(img[k], (size_t)all[k]->elements * es);
    }
    cu_assert_ok(run_views(c, &cin.view, &cout.view, &cidx.view), "first tier call", why);
    cu_assert_ok(run_views(c, &sin.view, &sout.view, &sidx.view), "view call", why);
    for (int k = 0; k < 6; ++k) {
        const size_t es = k == 2 || k == 5 ? 8 : esize;
        if (k % 3) cu_read_back(cu_own_queue, all[k]->view.mem, img[k], (size_t)all[k]->elements * es, why);
    }
    int wrong = 0;
    cu_expect(gather(&cout, img[1], want, n_out, esize), "%s: the first tier wrote outside its output", why);
    if (!gather(&sout, img[4], got, n_out, esize)) {
        cu_append(why, len, " [wrote outside the output view]");
        ++wrong;
    }
    for (int64_t i = 0; i < n_out; ++i) { /* the first element that differs, its bytes as hex */
        uint64_t a = 0, b = 0;
        memcpy(&a, (unsigned char *)want + i * esize, esize);
        memcpy(&b, (unsigned char *)got + i * esize, esize);
        /* a sum's NaN is any NaN (the float16 stores' encodings differ); MaxPool copies bits */
        if (a != b && !(c->op != OP_MAX && is_nan(a, c->dtype) && is_nan(b, c->dtype))) {
            cu_append(why, len, " [output %lld: 0x%llx, expected 0x%llx]", (long long)i, (unsigned long long)b,
                      (unsigned long long)a);
            ++wrong;
            break;
        }
    }
    if (c->indices) {
        gather(&cidx, img[2], want_idx, n_out, 8);
        if (!gather(&sidx, img[5], got_idx, n_out, 8)) {
            cu_append(why, len, " [wrote outside the Indices view]");
            ++wrong;
        }
        if (memcmp(want_idx, got_idx, (size_t)n_out * 8) != 0) ++wrong;
    }
    for (int k = 0; k < 6; ++k) {
        clReleaseMemObject(all[k]->view.mem);
        free(img[k]);
    }
    free(x), free(want), free(got), free(want_idx), free(got_idx);
    return wrong;
}

/* Every op in float32 over random windows (LpPool's 2-D: a channels-last program per p kind), each draw
 * all channels-last and in a random layout triple (the input's not contiguous: with contiguous outputs
 * that would be the contiguous paths, a program per window). */
static void layouts_match(int draws, int loop)
{
    static const int64_t channels[] = {2, 3, 16, 21, 40};
    rng_state = 0x5eed0001u + (uint64_t)loop;
    cu_tally tally = {0};
    for (int n = 0; n < draws; ++n) {
        view_case c;
        draw(&c, (op)(n % 3), CLPOOL_FLOAT32, channels, 5, n % 3 == OP_LP ? 2 : 0);
        for (int pass = 0; pass < 2; ++pass) {
            const layout in = pass ? (layout)rng_int(CHANNELS_LAST, LAYOUTS - 1) : CHANNELS_LAST;
            const layout out = pass ? (layout)rng_int(0, LAYOUTS - 1) : CHANNELS_LAST;
            const layout idx = pass ? (layout)rng_int(0, LAYOUTS - 1) : CHANNELS_LAST;
            char why[1024];
            describe(&c, why, sizeof why);
            cu_append(why, sizeof why, " layouts in %s out %s indices %s", layout_names[in], layout_names[out],
                      layout_names[idx]);
            cu_tally_add(&tally, run_case(&c, in, out, idx, why, sizeof why), why);
        }
    }
    cu_tally_check(&tally);
}

START_TEST(test_layouts_match_first_tier) { layouts_match(48, _i); }
END_TEST

/* Kinds of view call: a dtype and an op (and p). */
typedef struct view_kind {
    clpool_dtype dtype;
    op op;
    double p;
} view_kind;

/* Each kind on 2-D windows: channels-last (the channels-last kernel where C is at least a vector's lanes)
 * and, with `other`, another layout (the first tier). */
static void run_kinds(const view_kind *kinds, size_t n, int other, uint64_t seed)
{
    static const int64_t channels[] = {20, 33};
    rng_state = seed;
    cu_tally tally = {0};
    for (size_t k = 0; k < n; ++k) {
        if (!cu_dtype_runs(kinds[k].dtype, "views")) continue;
        for (int i = 0; i < 2; ++i) {
            view_case c;
            draw(&c, kinds[k].op, kinds[k].dtype, channels, 2, 2);
            if (c.op == OP_LP) c.p = kinds[k].p;
            const layout how = (layout)rng_int(PERMUTED, LAYOUTS - 1);
            char why[1024];
            describe(&c, why, sizeof why);
            cu_append(why, sizeof why, " channels-last");
            cu_tally_add(&tally, run_case(&c, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, why, sizeof why), why);
            if (!other) continue;
            describe(&c, why, sizeof why);
            cu_append(why, sizeof why, " %s", layout_names[how]);
            cu_tally_add(&tally, run_case(&c, how, CHANNELS_LAST, how, why, sizeof why), why);
        }
    }
    cu_tally_check(&tally);
}

/* The view kinds: first every dtype and p kind the planners plan the channels-last kernel for (the
 * rusticl subset's share: that run must reach them), then float64 and the sums in float16 and bfloat16. */
static const view_kind kinds[] = {
    {CLPOOL_FLOAT32, OP_MAX, 0}, {CLPOOL_FLOAT16, OP_MAX, 0}, {CLPOOL_BFLOAT16, OP_MAX, 0},
    {CLPOOL_INT8, OP_MAX, 0},    {CLPOOL_UINT8, OP_MAX, 0},   {CLPOOL_FLOAT32, OP_AVG, 0},
    {CLPOOL_FLOAT32, OP_LP, 1},  {CLPOOL_FLOAT32, OP_LP, 2},  {CLPOOL_FLOAT32, OP_LP, 3},
    {CLPOOL_FLOAT16, OP_AVG, 0}, {CLPOOL_BFLOAT16, OP_AVG, 0}, {CLPOOL_FLOAT64, OP_MAX, 0},
    {CLPOOL_FLOAT64, OP_AVG, 0}};
#define PLANNED_KINDS 9

/* The planned kinds, channels-last only. */
START_TEST(test_kinds_planned) { run_kinds(kinds, PLANNED_KINDS, 0, 0x5eed0100u); }
END_TEST

/* Every kind, channels-last and in another layout. */
START_TEST(test_kinds_more) { run_kinds(kinds, sizeof kinds / sizeof *kinds, 1, 0x5eed0110u); }
END_TEST

/* The sums' strips down H (-DSTRIP: windows overlapping there, no dilation there, one row group): top and
 * bottom pads with and without count_include_pad (an output's own divisor and rows), ceil_mode's windows
 * past the end pad, a last strip of fewer outputs, Lp; then strides of 2^40 (no prefetch); against the
 * first tier. */
START_TEST(test_strips)
{
    static const struct {
        op op;
        int64_t h, w, c, kh, kw, sh, pt, pb;
        int ceil, cip;
        double p;
    } cases[] = {
        {OP_AVG, 7, 6, 16, 3, 3, 1, 1, 1, 0, 0, 0}, {OP_AVG, 7, 6, 40, 3, 3, 1, 1, 1, 0, 1, 0},
        {OP_AVG, 9, 5, 21, 3, 2, 2, 2, 2, 1, 0, 0}, {OP_AVG, 6, 4, 16, 2, 3, 1, 1, 0, 1, 0, 0},
        {OP_AVG, 5, 3, 16, 3, 1, 1, 2, 2, 0, 0, 0}, {OP_LP, 8, 7, 33, 3, 3, 1, 1, 1, 0, 0, 2},
        {OP_LP, 10, 3, 16, 3, 2, 2, 2, 1, 1, 0, 1},
    };
    rng_state = 0x5eed0700u;
    cu_tally tally = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        view_case c;
        memset(&c, 0, sizeof c);
        c.op = cases[i].op;
        c.dtype = CLPOOL_FLOAT32;
        c.in = (clpool_shape){4, {2, cases[i].c, cases[i].h, cases[i].w}};
        const int64_t kernel[2] = {cases[i].kh, cases[i].kw};
        clpool_maxpool_params_init(&c.mp, 2, kernel);
        c.mp.strides[0] = cases[i].sh;
        c.mp.pads[0] = cases[i].pt, c.mp.pads[2] = cases[i].pb;
        c.mp.pads[1] = c.mp.pads[3] = cases[i].kw / 2;
        c.mp.ceil_mode = cases[i].ceil;
        c.count_include_pad = cases[i].cip;
        c.p = cases[i].p;
        char why[1024];
        describe(&c, why, sizeof why);
        cu_tally_add(&tally, run_case(&c, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, why, sizeof why), why);
    }
    /* strides of 2^40 along W: a position's step is no span to prefetch (planned without -DPREFETCH_AHEAD) */
    for (int o = 0; o < 2; ++o) {
        view_case c;
        memset(&c, 0, sizeof c);
        c.op = o ? OP_AVG : OP_MAX;
        c.dtype = CLPOOL_FLOAT32;
        c.in = (clpool_shape){4, {2, 16, 64, 3}}; /* positions enough for several per work-item */
        const int64_t kernel[2] = {1, 1};
        clpool_maxpool_params_init(&c.mp, 2, kernel);
        c.mp.strides[1] = (int64_t)1 << 40;
        char why[1024];
        describe(&c, why, sizeof why);
        cu_tally_add(&tally, run_case(&c, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, why, sizeof why), why);
    }
    cu_tally_check(&tally);
}
END_TEST

/* Channel counts that take the widest block runs (-DCB 8 and 16), MaxPool with and without Indices. */
START_TEST(test_wide_channels)
{
    static const int64_t channels[] = {130, 300};
    rng_state = 0x5eed0300u;
    cu_tally tally = {0};
    for (int n = 0; n < 4; ++n) {
        view_case c;
        draw(&c, OP_MAX, CLPOOL_FLOAT32, channels, 2, 2);
        c.indices = n % 2;
        char why[1024];
        describe(&c, why, sizeof why);
        cu_append(why, sizeof why, " channels-last");
        cu_tally_add(&tally, run_case(&c, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, why, sizeof why), why);
    }
    cu_tally_check(&tally);
}
END_TEST

/* ------------------------------------------------------------ global pools */

/* A global pool (0 max, 1 average, 2 Lp with p = 3) of x stored in `in_how` into an output stored in
 * `out_how`; the output read back to `got` (N x C elements). */
static void global_call(int which, const clpool_shape *shape, const void *x, layout in_how, layout out_how, float *got,
                        const char *why)
{
    clpool_shape out_shape = *shape;
    for (int32_t d = 2; d < shape->rank; ++d) out_shape.dims[d] = 1;
    const int64_t n_in = clpool_shape_elements(shape), n_out = clpool_shape_elements(&out_shape);
    stored si, so;
    store(shape, in_how, 4, &si);
    store(&out_shape, out_how, 4, &so);
    unsigned char *ii = image_of(&si, x, n_in, 4), *oi = image_of(&so, NULL, n_out, 4);
    si.view.mem = cu_buffer_from(ii, (size_t)si.elements * 4);
    so.view.mem = cu_buffer_from(oi, (size_t)so.elements * 4);
    cl_event ev = NULL;
    const clpool_status st =
        which == 0   ? clpool_enqueue_global_max_pool_view(cu_ctx, NULL, CLPOOL_FLOAT32, &si.view, &so.view, 0, NULL, &ev)
        : which == 1 ? clpool_enqueue_global_average_pool_view(cu_ctx, NULL, CLPOOL_FLOAT32, &si.view, &so.view, 0, NULL,
                                                            &ev)
                  : clpool_enqueue_global_lp_pool_view(cu_ctx, NULL, 3.0, CLPOOL_FLOAT32, &si.view, &so.view, 0, NULL,
                                                       &ev);
    cu_assert_ok(st, "global pool view", why);
    cu_wait_done(NULL, ev, why);
    clReleaseEvent(ev);
    cu_read_back(cu_own_queue, so.view.mem, oi, (size_t)so.elements * 4, why);
    cu_expect(gather(&so, oi, got, n_out, 4), "%s: wrote outside the output view", why);
    clReleaseMemObject(si.view.mem), clReleaseMemObject(so.view.mem);
    free(ii), free(oi);
}

/* The global pools on views, float32, ranks 3-5: GlobalMaxPool gives the contiguous call's bits, the
 * sums the first tier's (one window over the plane, through padded rows) in every layout, and the
 * contiguous call's within 1e-5. */
START_TEST(test_global_pools)
{
    rng_state = 0x5eed0400u;
    cu_tally tally = {0};
    for (int n = 0; n < 18; ++n) {
        const int which = n % 3;
        clpool_shape shape = {(int32_t)rng_int(3, 5), {rng_int(1, 2), n % 2 ? 40 : rng_int(2, 24)}};
        for (int32_t d = 2; d < shape.rank; ++d) shape.dims[d] = rng_int(1, shape.rank == 5 ? 5 : 9);
        const int64_t n_in = clpool_shape_elements(&shape), planes = shape.dims[0] * shape.dims[1];
        float *x = malloc((size_t)n_in * 4), *ref = malloc((size_t)planes * 4), *tier = malloc((size_t)planes * 4),
              *got = malloc((size_t)planes * 4);
        ck_assert(x && ref && tier && got);
        fill(x, n_in, CLPOOL_FLOAT32);
        const layout in_how = (layout)rng_int(CHANNELS_LAST, LAYOUTS - 1), out_how = (layout)rng_int(0, 1);
        char why[512];
        snprintf(why, sizeof why, "%s, input %s",
                 which == 0 ? "GlobalMaxPool" : which == 1 ? "GlobalAveragePool" : "GlobalLpPool",
                 layout_names[in_how]);
        cu_append_dims(why, sizeof why, shape.dims, shape.rank);
        global_call(which, &shape, x, CONTIGUOUS, CONTIGUOUS, ref, why);
        global_call(which, &shape, x, PADDED, CONTIGUOUS, tier, why);
        global_call(which, &shape, x, in_how, out_how, got, why);
        int wrong = 0;
        for (int64_t i = 0; i < planes; ++i) {
            const float want = which == 0 ? ref[i] : tier[i];
            wrong += memcmp(&got[i], &want, 4) != 0 && !(which && isnan(got[i]) && isnan(want));
            wrong += which && !(isnan(ref[i]) ? isnan(got[i]) : isinf(ref[i]) ? got[i] == ref[i]
                                                                         : fabs(got[i] - ref[i]) <= 1e-5 * fabs(ref[i]) + 1e-6);
        }
        cu_tally_add(&tally, wrong, why);
        free(x), free(ref), free(tier), free(got);
    }
    cu_tally_check(&tally);
}
END_TEST

/* ------------------------------------------------------------ plans */

/* The view paths the planner takes: channels-last views with C >= the lanes in every tensor the
 * channels-last kernel, anything else the first tier. */
START_TEST(test_planned_paths)
{
    const clpool__device_caps caps = {.cpu = 1, .cpu_simd = 1, .vector_bytes = 64, .cache_bytes = 1 << 25,
                                      .compute_units = 2, .local_size = 4096};
    static const struct {
        op op;
        int64_t channels;
        layout in, out, idx;
        int indices;
        double p;
        clpool__path path;
    } rows[] = {
        {OP_MAX, 64, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 1, 0, CLPOOL__PATH_WINDOW_CHANNELS_LAST},
        {OP_MAX, 16, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 0, 0, CLPOOL__PATH_WINDOW_CHANNELS_LAST},
        {OP_AVG, 20, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 0, 0, CLPOOL__PATH_WINDOW_CHANNELS_LAST},
        {OP_LP, 32, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 0, 3, CLPOOL__PATH_WINDOW_CHANNELS_LAST},
        {OP_MAX, 15, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 0, 0, CLPOOL__PATH_WINDOW_FIRST_TIER},
        {OP_MAX, 64, CHANNELS_LAST, CHANNELS_LAST, CONTIGUOUS, 1, 0, CLPOOL__PATH_WINDOW_FIRST_TIER},
        {OP_MAX, 64, CHANNELS_LAST, CONTIGUOUS, CHANNELS_LAST, 0, 0, CLPOOL__PATH_WINDOW_FIRST_TIER},
        {OP_AVG, 64, STEPPED, CHANNELS_LAST, CHANNELS_LAST, 0, 0, CLPOOL__PATH_WINDOW_FIRST_TIER},
        {OP_LP, 64, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, 0, 2.5, CLPOOL__PATH_WINDOW_FIRST_TIER},
    };
    for (size_t r = 0; r < sizeof rows / sizeof *rows; ++r) {
        view_case c;
        memset(&c, 0, sizeof c);
        c.op = rows[r].op;
        c.dtype = CLPOOL_FLOAT32;
        c.in.rank = 4;
        c.in.dims[0] = 2, c.in.dims[1] = rows[r].channels, c.in.dims[2] = 9, c.in.dims[3] = 9;
        const int64_t kernel[2] = {3, 3};
        clpool_maxpool_params_init(&c.mp, 2, kernel);
        c.mp.strides[0] = c.mp.strides[1] = 2;
        c.indices = rows[r].indices;
        c.p = rows[r].p;
        clpool_shape out;
        ck_assert(output_shape(&c, &out));
        clpool__pool_desc d;
        if (c.op == OP_MAX) {
            ck_assert_int_eq(clpool__maxpool_describe(&c.in, &c.mp, c.dtype, c.indices, "test", &d), CLPOOL_SUCCESS);
        } else {
            clpool_average_pool_params a;
            clpool_lp_pool_params l;
            average_params(&c, &a);
            lp_params(&c, &l);
            ck_assert_int_eq(clpool__sum_pool_describe(&c.in, c.op == OP_AVG ? &a : NULL, c.op == OP_LP ? &l : NULL,
                                                       c.dtype, "test", &d),
                             CLPOOL_SUCCESS);
        }
        stored si, so, sx;
        store(&c.in, rows[r].in, 4, &si);
        store(&out, rows[r].out, 4, &so);
        store(&out, rows[r].idx, 8, &sx);
        d.strided = 1;
        d.channels = rows[r].channels;
        memcpy(d.in_strides, si.view.strides, sizeof d.in_strides);
        memcpy(d.out_strides, so.view.strides, sizeof d.out_strides);
        memcpy(d.idx_strides, sx.view.strides, sizeof d.idx_strides);
        clpool__plan plan;
        clpool__window_plan_view(&caps, &d, &plan);
        ck_assert_msg(plan.path == rows[r].path, "row %zu: planned %s, expected %s", r,
                      clpool__families[plan.path].name, clpool__families[rows[r].path].name);
        ck_assert_int_eq(plan.first_tier, 0);
    }
}
END_TEST

/* ------------------------------------------------------------ bad inputs */

/* ------------------------------------------------------------ Max */

static const clpool_dtype all_dtypes[12] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16, CLPOOL_BFLOAT16,
                                            CLPOOL_INT8,    CLPOOL_UINT8,   CLPOOL_INT16,   CLPOOL_UINT16,
                                            CLPOOL_INT32,   CLPOOL_UINT32,  CLPOOL_INT64,   CLPOOL_UINT64};

/* A layout `shape` can take: channels-last from rank 3, permuted and stepped from rank 2; reversed for
 * inputs only. */
static layout random_layout(int32_t rank, int input)
{
    for (;;) {
        const layout how = (layout)rng_int(0, input ? REVERSED : STEPPED);
        if ((how == CHANNELS_LAST && rank < 3) || ((how == PERMUTED || how == STEPPED) && rank < 2)) continue;
        return how;
    }
}

/* Data of any dtype: floats with ties, -0, inf and NaN (fill), integers as random bits. */
static void fill_any(void *data, int64_t n, clpool_dtype dtype)
{
    const size_t es = clpool_dtype_size(dtype);
    if (dtype == CLPOOL_FLOAT32 || dtype == CLPOOL_FLOAT64 || dtype == CLPOOL_FLOAT16 || dtype == CLPOOL_BFLOAT16) {
        fill(data, n, dtype);
        return;
    }
    for (int64_t i = 0; i < n * (int64_t)es; ++i) ((unsigned char *)data)[i] = (unsigned char)rng_int(0, 3) * 85;
}

/* Max over views of random layouts against the C reference on the logical tensors, bit for bit: 1-6
 * inputs (two passes above 4), numpy broadcasting, explicit repeats (a stride 0 on a dim of more than
 * one element), outputs contiguous, channels-last, permuted or stepped, in place on input 0 now and
 * then; every element outside the output view unchanged. */
static void max_views(int dtypes)
{
    rng_state = 0x5eed0300u;
    const int fp64 = cu_device_has_fp64();
    cl_command_queue q = clpool_context_cl_queue(cu_ctx);
    for (int c = 0; c < 48; ++c) {
        const clpool_dtype dtype = all_dtypes[c % dtypes];
        if (dtype == CLPOOL_FLOAT64 && !fp64) continue;
        const size_t es = clpool_dtype_size(dtype);
        const size_t n = (size_t)rng_int(1, 6);
        clpool_shape out = {(int32_t)rng_int(1, 5), {0}};
        for (int32_t d = 0; d < out.rank; ++d) out.dims[d] = rng_int(1, c % 3 ? 6 : out.rank <= 2 ? 40 : 9);
        const int in_place = n > 1 && rng_int(0, 3) == 0;
        stored st[7];
        clpool_shape shapes[6];
        void *data[6];
        unsigned char *img[7];
        cl_mem mems[7];
        clpool_view views[6];
        char desc[512];
        int len = snprintf(desc, sizeof desc, "case %d: %s, %zu inputs into", c, clpool_dtype_name(dtype), n);
        for (int32_t d = 0; d < out.rank; ++d) len += snprintf(desc + len, sizeof desc - (size_t)len, " %lld", (long long)out.dims[d]);
        for (size_t i = 0; i <= n; ++i) {
            const int is_out = i == n;
            if (is_out) ck_assert_int_eq(clpool_max_output_shape(n, shapes, &out), CLPOOL_SUCCESS); /* stretched */
            clpool_shape sh = out;
            if (!is_out && !(in_place && i == 0)) { /* lower ranks and stretched dims */
                sh.rank = (int32_t)rng_int(1, out.rank);
                for (int32_t d = 0; d < sh.rank; ++d)
                    sh.dims[d] = rng_int(0, 2) ? out.dims[out.rank - sh.rank + d] : 1;
            }
            const int is_target = is_out || (in_place && i == 0); /* the output's view: strides >= 0, no repeat */
            const layout how = is_out && in_place ? CONTIGUOUS : random_layout(sh.rank, !is_target);
            if (is_out && in_place) {
                st[n] = st[0];
            } else {
                store(&sh, how, es, &st[i]);
                if (!is_target && rng_int(0, 4) == 0) { /* a repeat: stride 0 on a dim of more than one element */
                    const int32_t d = (int32_t)rng_int(0, sh.rank - 1);
                    if (sh.dims[d] > 1) st[i].view.strides[d] = 0;
                }
            }
            len += snprintf(desc + len, sizeof desc - (size_t)len, "%s %s", i == 0 ? ";" : ",",
                            is_out && in_place ? "in place" : layout_names[how]);
            const int64_t elems = clpool_shape_elements(&sh);
            if (!is_out) {
                shapes[i] = sh;
                data[i] = malloc((size_t)(elems ? elems : 1) * es);
                fill_any(data[i], elems, dtype);
                img[i] = image_of(&st[i], data[i], elems, es);
                gather(&st[i], img[i], data[i], elems, es); /* repeats: the logical tensor is what is stored */
            } else {
                img[n] = in_place ? NULL : image_of(&st[n], NULL, 0, es);
            }
        }
        for (size_t i = 0; i <= n; ++i) {
            if (i == n && in_place) {
                mems[n] = mems[0];
                continue;
            }
            mems[i] = cu_buffer_from(img[i], (size_t)st[i].elements * es);
        }
        for (size_t i = 0; i < n; ++i) views[i] = st[i].view, views[i].mem = mems[i];
        clpool_view ov = st[n].view;
        ov.mem = mems[n];
        const int64_t n_out = clpool_shape_elements(&out);
        unsigned char *want = malloc((size_t)(n_out ? n_out : 1) * es), *got = malloc((size_t)(n_out ? n_out : 1) * es);
        ck_assert_int_eq(ref_max(dtype, n, shapes, (const void *const *)data, want), 0);
        cu_assert_ok(clpool_enqueue_max_view(cu_ctx, NULL, dtype, n, views, &ov, 0, NULL, NULL),
                     "clpool_enqueue_max_view", desc);
        unsigned char *after = malloc((size_t)st[n].elements * es);
        ck_assert_int_eq(clEnqueueReadBuffer(q, mems[n], CL_TRUE, 0, (size_t)st[n].elements * es, after, 0, NULL, NULL),
                         CL_SUCCESS);
        if (in_place) { /* the output's image is input 0's: outside the view it stays as it was */
            gather(&st[n], after, got, n_out, es);
            unsigned char *mine = calloc((size_t)st[n].elements, 1);
            for (int64_t i = 0; i < n_out; ++i) mine[stored_at(&st[n], i)] = 1;
            for (int64_t e = 0; e < st[n].elements; ++e)
                ck_assert_msg(mine[e] || memcmp(after + (size_t)e * es, img[0] + (size_t)e * es, es) == 0,
                              "%s: wrote outside the output view", desc);
            free(mine);
        } else {
            ck_assert_msg(gather(&st[n], after, got, n_out, es), "%s: wrote outside the output view", desc);
        }
        for (int64_t i = 0; i < n_out; ++i)
            ck_assert_msg(memcmp(got + (size_t)i * es, want + (size_t)i * es, es) == 0, "%s: element %lld differs",
                          desc, (long long)i);
        free(after), free(want), free(got);
        for (size_t i = 0; i <= n; ++i) {
            if (!(i == n && in_place)) clReleaseMemObject(mems[i]);
            free(img[i]);
            if (i < n) free(data[i]);
        }
    }
}

/* Every dtype; the rusticl subset runs float32 and float64 (skipped without fp64), float16 and bfloat16:
 * both programs (the contiguous form and -DVIEW=1) of 2- and 4-byte types, fewer builds on llvmpipe. */
START_TEST(test_max_views) { max_views(12); }
END_TEST
START_TEST(test_max_views_few) { max_views(4); }
END_TEST

/* Max on views: each bad call with its status and message; exact in-place use runs. */
START_TEST(test_bad_max_views)
{
    const clpool_shape shape = {4, {1, 2, 4, 4}}, bias = {4, {1, 2, 1, 1}};
    cl_mem buf = cu_zero_buffer(4096);
    clpool_view a, b, o;
    ck_assert_int_eq(clpool_view_channels_last(&a, buf, 0, &shape), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&b, buf, 512, &bias), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_channels_last(&o, buf, 1024, &shape), CLPOOL_SUCCESS);
    const char *fn = "clpool_enqueue_max_view";
    clpool_view ins[5] = {a, b, b, b, b};
#define MAXV(n, i, out) clpool_enqueue_max_view(cu_ctx, NULL, CLPOOL_FLOAT32, (n), (i), (out), 0, NULL, NULL)
    cu_assert_status("good views", fn, MAXV(2, ins, &o), CLPOOL_SUCCESS, NULL);
    cu_assert_status("in place", fn, MAXV(2, ins, &a), CLPOOL_SUCCESS, NULL);
    clpool_view empty[2] = {a, b}, empty_out = o;
    empty[0].dims[2] = empty_out.dims[2] = 0; /* no element: nothing to do, an event all the same */
    cl_event ev = NULL;
    cu_assert_status("empty", fn, clpool_enqueue_max_view(cu_ctx, NULL, CLPOOL_FLOAT32, 2, empty, &empty_out, 0, NULL, &ev),
                     CLPOOL_SUCCESS, NULL);
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    ck_assert_int_eq(clFinish(clpool_context_cl_queue(cu_ctx)), CL_SUCCESS);
    cu_assert_status("no inputs", fn, MAXV(0, ins, &o), CLPOOL_ERROR_INVALID_ARGUMENT, "Max needs at least one input");
    cu_assert_status("NULL inputs", fn, MAXV(2, NULL, &o), CLPOOL_ERROR_INVALID_ARGUMENT, "inputs is NULL");
    cu_assert_status("NULL output", fn, MAXV(2, ins, NULL), CLPOOL_ERROR_INVALID_ARGUMENT, "output is NULL");
    cu_assert_status("bad dtype", fn,
                     clpool_enqueue_max_view(cu_ctx, NULL, (clpool_dtype)99, 2, ins, &o, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype 99 is not a clpool_dtype");
    clpool_view v = o;
    v.dims[3] = 3;
    cu_assert_status("output dims", fn, MAXV(2, ins, &v), CLPOOL_ERROR_INVALID_SHAPE,
                     "output view dims [1,2,4,3] differ from the output shape [1,2,4,4]");
    clpool_view bad[2] = {a, b};
    bad[1].dims[1] = 3;
    cu_assert_status("no broadcast", fn, MAXV(2, bad, &o), CLPOOL_ERROR_INVALID_SHAPE,
                     "input 1 shape [1,3,1,1] does not broadcast");
    bad[1] = b;
    bad[1].strides[1] = 1000;
    cu_assert_status("input outside its buffer", fn, MAXV(2, bad, &o), CLPOOL_ERROR_BUFFER_TOO_SMALL,
                     "inputs[1]");
    v = o;
    v.strides[1] = -1;
    v.offset += 4;
    cu_assert_status("negative output stride", fn, MAXV(2, ins, &v), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view stride -1 of dim 1 is negative");
    v = a;
    v.offset += 4; /* input 0's elements shifted by one: overlapping, not the same */
    cu_assert_status("overlap", fn, MAXV(2, ins, &v), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "inputs[0] overlaps the output without being the same view");
    /* the same buffer and offset as the output, but another view: rank, dims, or strides of a dim over 1 */
    clpool_view lower = o;
    lower.rank = 3;
    for (int d = 0; d < 3; ++d) lower.dims[d] = o.dims[d + 1], lower.strides[d] = o.strides[d + 1];
    clpool_view alias[2] = {lower, b};
    cu_assert_status("overlap of another rank", fn, MAXV(2, alias, &o), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "inputs[0] overlaps the output without being the same view");
    alias[0] = o;
    alias[0].dims[2] = 1;
    alias[1] = a; /* the output's shape still */
    cu_assert_status("overlap of other dims", fn, MAXV(2, alias, &o), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "inputs[0] overlaps the output without being the same view");
    ck_assert_int_eq(clpool_view_contiguous(&alias[0], buf, 1024, &shape), CLPOOL_SUCCESS);
    cu_assert_status("overlap in another layout", fn, MAXV(2, alias, &o), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "inputs[0] overlaps the output without being the same view");
    alias[0] = o;
    alias[0].strides[0] = 7; /* N is 1: its stride is never used, so still the same view */
    cu_assert_status("in place, another stride of a dim of 1", fn, MAXV(2, alias, &o), CLPOOL_SUCCESS, NULL);
    ck_assert_int_eq(clFinish(clpool_context_cl_queue(cu_ctx)), CL_SUCCESS);
    clpool_view five[5] = {b, b, b, b, a};
    cu_assert_status("in place too late", fn, MAXV(5, five, &a), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "the output is inputs[4]; only inputs 0..3 may be the output");
    cu_assert_status("wait list", fn, clpool_enqueue_max_view(cu_ctx, NULL, CLPOOL_FLOAT32, 2, ins, &o, 1, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "event_wait_list must be NULL exactly when");
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &(cl_device_id){clpool_context_cl_device(cu_ctx)}, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue foreign = clCreateCommandQueue(other, clpool_context_cl_device(cu_ctx), 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cu_assert_status("another context's queue", fn,
                     clpool_enqueue_max_view(cu_ctx, foreign, CLPOOL_FLOAT32, 2, ins, &o, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "queue belongs to another cl_context");
    clReleaseCommandQueue(foreign);
    clReleaseContext(other);
#undef MAXV
    clReleaseMemObject(buf);
}
END_TEST

START_TEST(test_bad_views)
{
    const clpool_shape in_shape = {4, {1, 2, 4, 4}}, out_shape = {4, {1, 2, 2, 2}};
    const int64_t kernel[2] = {2, 2};
    clpool_maxpool_params mp;
    clpool_maxpool_params_init(&mp, 2, kernel);
    mp.strides[0] = mp.strides[1] = 2;
    cl_mem big = cu_zero_buffer(4096), small = cu_zero_buffer(16);
    clpool_view in, out, idx;
    ck_assert_int_eq(clpool_view_contiguous(&in, big, 0, &in_shape), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_channels_last(&out, big, 1024, &out_shape), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&idx, big, 2048, &out_shape), CLPOOL_SUCCESS);
    const char *fn = "clpool_enqueue_maxpool_view";
#define CALL(i, o, x) clpool_enqueue_maxpool_view(cu_ctx, NULL, &mp, CLPOOL_FLOAT32, (i), (o), (x), 0, NULL, NULL)
    cu_assert_status("good views", fn, CALL(&in, &out, &idx), CLPOOL_SUCCESS, NULL);
    ck_assert_int_eq(clFinish(clpool_context_cl_queue(cu_ctx)), CL_SUCCESS);
    cu_assert_status("NULL input", fn, CALL(NULL, &out, NULL), CLPOOL_ERROR_INVALID_ARGUMENT, "input is NULL");
    cu_assert_status("NULL output", fn, CALL(&in, NULL, NULL), CLPOOL_ERROR_INVALID_ARGUMENT, "output view is NULL");
    clpool_view v = out;
    v.dims[3] = 3;
    cu_assert_status("output dims", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_SHAPE,
                     "output view dims [1,2,2,3] differ from the output shape [1,2,2,2]");
    v = idx;
    v.rank = 3;
    cu_assert_status("indices rank", fn, CALL(&in, &out, &v), CLPOOL_ERROR_INVALID_SHAPE,
                     "indices view dims [1,2,2] differ from the indices shape [1,2,2,2]");
    v = out;
    v.strides[2] = -v.strides[2];
    v.offset += 4 * 2 * 2;
    cu_assert_status("negative output stride", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view stride -4 of dim 2 is negative: an output's strides are >= 0");
    v = out;
    v.strides[1] = 0;
    cu_assert_status("broadcast output", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view's elements overlap: dim 1's stride 0 is within the span 0");
    v = out;
    v.strides[3] = 1; /* C's stride too: elements (c, w) and (c + 1, w - 1) share memory */
    cu_assert_status("overlapping output", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view's elements overlap: dim 3's stride 1 is within the span 1");
    v = in;
    v.strides[3] = -1;
    cu_assert_status("input before its buffer", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "input view reaches 3 elements before its buffer's start (negative strides)");
    v = in;
    v.mem = small;
    cu_assert_status("input past its buffer", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_BUFFER_TOO_SMALL,
                     "input buffer holds 16 bytes but the view reaches 128 bytes");
    v = in;
    v.strides[0] = INT64_MAX / 2;
    v.dims[0] = 3;
    cu_assert_status("strides past 2^63", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_OVERFLOW,
                     "input view reaches past 2^63 elements");
    v = in;
    v.offset = 2;
    cu_assert_status("misaligned offset", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "input offset 2 is not a multiple of the element size 4");
    v = in;
    v.mem = NULL;
    cu_assert_status("NULL buffer", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_INVALID_ARGUMENT, "input buffer is NULL");
    v = in;
    v.rank = 13;
    cu_assert_status("rank", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_INVALID_SHAPE, "rank");
    v = out;
    v.rank = -1;
    cu_assert_status("output rank", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view rank -1 is outside 0..12");
    v.rank = 13;
    cu_assert_status("output rank 13", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view rank 13 is outside 0..12");
    v = out;
    v.dims[2] = -2;
    cu_assert_status("output dim", fn, CALL(&in, &v, NULL), CLPOOL_ERROR_INVALID_SHAPE, "output");
    v = in;
    v.strides[2] = INT64_MIN;
    cu_assert_status("stride INT64_MIN", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_OVERFLOW,
                     "input view reaches past 2^63 elements (dim 2: 4 x stride");
    v = in;
    v.strides[2] = -(INT64_MAX / 4);
    v.strides[3] = -(INT64_MAX / 4);
    cu_assert_status("negative strides past 2^63", fn, CALL(&v, &out, NULL), CLPOOL_ERROR_OVERFLOW,
                     "input view reaches past 2^63 elements (dim 3");
    v = idx;
    v.strides[3] = 0;
    cu_assert_status("broadcast indices", fn, CALL(&in, &out, &v), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "indices view's elements overlap");
#undef CALL
    cu_assert_status("int32", fn,
                     clpool_enqueue_maxpool_view(cu_ctx, NULL, &mp, CLPOOL_INT32, &in, &out, NULL, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int32 (6) is not supported by MaxPool");
    cu_assert_status("wait list on the view path", fn,
                     clpool_enqueue_maxpool_view(cu_ctx, NULL, &mp, CLPOOL_FLOAT32, &in, &out, NULL, 1, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "event_wait_list must be NULL exactly when");
    clpool_average_pool_params ap;
    clpool_average_pool_params_init(&ap, 2, kernel);
    cu_assert_status("AveragePool int8", "clpool_enqueue_average_pool_view",
                     clpool_enqueue_average_pool_view(cu_ctx, NULL, &ap, CLPOOL_INT8, &in, &out, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int8 (3) is not supported by AveragePool");
    cu_assert_status("LpPool NULL params", "clpool_enqueue_lp_pool_view",
                     clpool_enqueue_lp_pool_view(cu_ctx, NULL, NULL, CLPOOL_FLOAT32, &in, &out, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "params is NULL");
    const clpool_shape flat = {2, {2, 3}};
    cu_assert_status("channels-last rank 2", "clpool_view_channels_last",
                     clpool_view_channels_last(&v, big, 0, &flat), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "shape rank 2: channels-last needs N, C and at least one spatial dim");
    cu_assert_status("NULL view", "clpool_view_contiguous", clpool_view_contiguous(NULL, big, 0, &flat),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "view is NULL");
    cu_assert_status("NULL shape", "clpool_view_channels_last", clpool_view_channels_last(&v, big, 0, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "shape is NULL");
    const clpool_shape negative = {3, {1, -1, 2}};
    cu_assert_status("negative dim", "clpool_view_contiguous", clpool_view_contiguous(&v, big, 0, &negative),
                     CLPOOL_ERROR_INVALID_SHAPE, "shape");
    /* the global pools' own checks before the views' */
    const char *gfn = "clpool_enqueue_global_average_pool_view";
    clpool_view gout;
    const clpool_shape g_shape = {4, {1, 2, 1, 1}};
    ck_assert_int_eq(clpool_view_channels_last(&gout, big, 1024, &g_shape), CLPOOL_SUCCESS);
    cu_assert_status("global NULL ctx", gfn,
                     clpool_enqueue_global_average_pool_view(NULL, NULL, CLPOOL_FLOAT32, &in, &gout, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    cu_assert_status("global NULL input", gfn,
                     clpool_enqueue_global_average_pool_view(cu_ctx, NULL, CLPOOL_FLOAT32, NULL, &gout, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "input is NULL");
    cu_assert_status("global int8", "clpool_enqueue_global_max_pool_view",
                     clpool_enqueue_global_max_pool_view(cu_ctx, NULL, CLPOOL_INT8, &in, &gout, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int8 (3) is not supported by GlobalMaxPool");
    cu_assert_status("global p", "clpool_enqueue_global_lp_pool_view",
                     clpool_enqueue_global_lp_pool_view(cu_ctx, NULL, -1.0, CLPOOL_FLOAT32, &in, &gout, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "p = -1 must be finite and > 0");
    v = in;
    v.rank = 2;
    cu_assert_status("global rank 2", gfn,
                     clpool_enqueue_global_average_pool_view(cu_ctx, NULL, CLPOOL_FLOAT32, &v, &gout, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_SHAPE, "input rank 2 must be >= 3");
    v = gout;
    v.dims[3] = 2;
    cu_assert_status("global output dims", gfn,
                     clpool_enqueue_global_average_pool_view(cu_ctx, NULL, CLPOOL_FLOAT32, &in, &v, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_SHAPE, "output view dims [1,2,1,2] differ from the output shape [1,2,1,1]");
    clReleaseMemObject(big);
    clReleaseMemObject(small);
}
END_TEST

/* Empty views (N = 0) enqueue nothing and still give an event; contiguous input and output with Indices
 * in another layout take the first tier; with tiers on, a view's first call runs the first tier. */
START_TEST(test_views_edge_calls)
{
    const int64_t kernel[2] = {2, 2};
    clpool_maxpool_params mp;
    clpool_maxpool_params_init(&mp, 2, kernel);
    const clpool_shape empty = {4, {0, 20, 4, 4}}, empty_out = {4, {0, 20, 3, 3}};
    cl_mem buf = cu_zero_buffer(64);
    clpool_view vin, vout;
    ck_assert_int_eq(clpool_view_channels_last(&vin, buf, 0, &empty), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_channels_last(&vout, buf, 0, &empty_out), CLPOOL_SUCCESS);
    vin.strides[1] = 7; /* not contiguous: the views' path */
    cl_event ev = NULL;
    const clpool_status st = clpool_enqueue_maxpool_view(cu_ctx, NULL, &mp, CLPOOL_FLOAT32, &vin, &vout, NULL, 0, NULL,
                                                         &ev);
    cu_assert_enqueue_status("empty views", "clpool_enqueue_maxpool_view", st, ev, CLPOOL_SUCCESS, NULL);
    clReleaseMemObject(buf);

    view_case c;
    memset(&c, 0, sizeof c);
    c.op = OP_MAX;
    c.dtype = CLPOOL_FLOAT32;
    c.in = (clpool_shape){4, {2, 24, 6, 7}};
    c.mp = mp;
    c.indices = 1;
    char why[256] = "contiguous input and output, channels-last Indices";
    rng_state = 0x5eed0500u;
    ck_assert_int_eq(run_case(&c, CONTIGUOUS, CONTIGUOUS, CHANNELS_LAST, why, sizeof why), 0);

    setenv("CLPOOL_TIERED", "1", 1);
    clpool_context *fixture = cu_ctx, *tiered = NULL;
    cu_assert_ok(clpool_context_create_from_cl(clpool_context_cl_context(fixture), clpool_context_cl_device(fixture),
                                               clpool_context_cl_queue(fixture), &tiered),
                 "clpool_context_create_from_cl", "tiers on");
    unsetenv("CLPOOL_TIERED");
    cu_ctx = tiered;
    strcpy(why, "tiers on: the first call of a channels-last key");
    const int wrong = run_case(&c, CHANNELS_LAST, CHANNELS_LAST, CHANNELS_LAST, why, sizeof why);
    cu_ctx = fixture;
    clpool_context_release(tiered);
    ck_assert_msg(wrong == 0, "%s", why);
}
END_TEST

/* ------------------------------------------------------------ MaxUnpool */

/* A random MaxUnpool call: X of rank 3 to 5 (C 16 or 32 now and then: channels-last at width), a window
 * whose inferred output is not empty, half the calls with an output_shape larger or smaller than it, read
 * either way. Sets *index_space to the shape the indices count positions in. */
static void unpool_case(clpool_max_unpool_params *p, clpool_shape *x, clpool_shape *out, clpool_shape *index_space)
{
    const int32_t ns = (int32_t)rng_int(1, 3);
    int64_t k[3];
    *x = (clpool_shape){ns + 2, {0}};
    x->dims[0] = rng_int(1, 3);
    x->dims[1] = rng_int(0, 3) ? rng_int(1, 12) : 16 * rng_int(1, 2);
    for (int32_t i = 0; i < ns; ++i) x->dims[2 + i] = rng_int(1, ns == 3 ? 4 : 7), k[i] = rng_int(1, 3);
    ck_assert_int_eq(clpool_max_unpool_params_init(p, ns, k), CLPOOL_SUCCESS);
    for (int32_t i = 0; i < ns; ++i) {
        p->window.strides[i] = rng_int(1, 3);
        p->window.pads[i] = rng_int(0, k[i] - 1), p->window.pads[ns + i] = rng_int(0, k[i] - 1);
        if ((x->dims[2 + i] - 1) * p->window.strides[i] + k[i] - p->window.pads[i] - p->window.pads[ns + i] < 1)
            p->window.pads[i] = p->window.pads[ns + i] = 0;
    }
    ck_assert_int_eq(clpool_max_unpool_output_shape(x, p, index_space), CLPOOL_SUCCESS);
    *out = *index_space;
    if (rng_int(0, 1)) {
        p->has_output_shape = 1;
        for (int32_t i = 0; i < ns; ++i) {
            const int64_t d = out->dims[2 + i] + rng_int(-2, 3);
            out->dims[2 + i] = d < 1 ? 1 : d;
        }
        p->output_shape = *out;
        p->indices = rng_int(0, 1) ? CLPOOL_UNPOOL_INDICES_OUTPUT : CLPOOL_UNPOOL_INDICES_INFERRED;
        if (p->indices == CLPOOL_UNPOOL_INDICES_OUTPUT) *index_space = *out;
    }
}

/* Indices for X of shape `x`: distinct positions of each plane of `index_space` (repeats, where X has more
 * elements than positions, carry one value), in any order; with `bad`, some outside their plane. */
static void unpool_indices(const clpool_shape *x, const clpool_shape *index_space, int bad, void *xdata, size_t es,
                           int64_t *idx)
{
    const int64_t planes = x->dims[0] * x->dims[1], x_plane = clpool_shape_elements(x) / planes;
    const int64_t idx_plane = clpool_shape_elements(index_space) / planes;
    int64_t *slot = malloc((size_t)idx_plane * sizeof *slot);
    ck_assert_ptr_nonnull(slot);
    for (int64_t q = 0; q < planes; ++q) {
        for (int64_t j = 0; j < idx_plane; ++j) slot[j] = j;
        for (int64_t j = idx_plane - 1; j > 0; --j) { /* Fisher-Yates */
            const int64_t o = rng_int(0, j), t = slot[j];
            slot[j] = slot[o], slot[o] = t;
        }
        for (int64_t j = 0; j < x_plane; ++j) {
            const int64_t e = q * x_plane + j;
            if (x_plane > idx_plane) memcpy((unsigned char *)xdata + (size_t)e * es, xdata, es);
            idx[e] = q * idx_plane + slot[j % idx_plane];
            if (bad && rng_int(0, 9) == 0) idx[e] = rng_int(0, 1) ? -1 - rng_int(0, 3) : (q + 1) * idx_plane + rng_int(0, 2);
        }
    }
    free(slot);
}

/* MaxUnpool on views against ref_max_unpool bit for bit: X and the Indices contiguous, channels-last,
 * permuted, stepped or reversed, the output any layout but reversed; some indices outside their plane,
 * counted; every element outside the output view unchanged. The first `dtypes` of MaxPool's six. */
static void max_unpool_views(int dtypes)
{
    rng_state = 0x5eed0600u;
    const int fp64 = cu_device_has_fp64();
    cl_command_queue q = clpool_context_cl_queue(cu_ctx);
    for (int c = 0; c < 40; ++c) {
        const clpool_dtype dtype = cu_maxpool_dtypes[c % dtypes];
        if (dtype == CLPOOL_FLOAT64 && !fp64) continue;
        const size_t es = clpool_dtype_size(dtype);
        clpool_max_unpool_params p;
        clpool_shape xs, ys, is;
        unpool_case(&p, &xs, &ys, &is);
        const int64_t n_x = clpool_shape_elements(&xs), n_y = clpool_shape_elements(&ys);
        void *x = malloc((size_t)n_x * es);
        int64_t *idx = malloc((size_t)n_x * sizeof *idx);
        unsigned char *want = malloc((size_t)n_y * es), *got = malloc((size_t)n_y * es);
        fill_any(x, n_x, dtype);
        unpool_indices(&xs, &is, rng_int(0, 2) == 0, x, es, idx);
        const int64_t want_skipped = ref_max_unpool(dtype, &xs, x, idx, &is, &ys, want);
        ck_assert_int_ge(want_skipped, 0);
        const layout xhow = random_layout(xs.rank, 1), ihow = random_layout(xs.rank, 1),
                     yhow = random_layout(ys.rank, 0);
        char desc[256];
        snprintf(desc, sizeof desc, "case %d: %s, rank %d, C %lld, X %s, indices %s, output %s", c,
                 clpool_dtype_name(dtype), (int)xs.rank, (long long)xs.dims[1], layout_names[xhow],
                 layout_names[ihow], layout_names[yhow]);
        stored sx, si, sy;
        store(&xs, xhow, es, &sx);
        store(&xs, ihow, sizeof(int64_t), &si);
        store(&ys, yhow, es, &sy);
        unsigned char *ximg = image_of(&sx, x, n_x, es), *iimg = image_of(&si, idx, n_x, sizeof(int64_t)),
                      *yimg = image_of(&sy, NULL, 0, es);
        const cl_uint start = 7;
        cl_mem mx = cu_buffer_from(ximg, (size_t)sx.elements * es),
               mi = cu_buffer_from(iimg, (size_t)si.elements * sizeof(int64_t)),
               my = cu_buffer_from(yimg, (size_t)sy.elements * es), mc = cu_buffer_from(&start, sizeof start);
        clpool_view vx = sx.view, vi = si.view, vy = sy.view;
        vx.mem = mx, vi.mem = mi, vy.mem = my;
        cu_assert_ok(clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, dtype, &vx, &vi, &vy, mc, 0, 0, NULL, NULL),
                     "clpool_enqueue_max_unpool_view", desc);
        cl_uint skipped = 0;
        ck_assert_int_eq(clEnqueueReadBuffer(q, my, CL_TRUE, 0, (size_t)sy.elements * es, yimg, 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof skipped, &skipped, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_msg(gather(&sy, yimg, got, n_y, es), "%s: wrote outside the output view", desc);
        for (int64_t i = 0; i < n_y; ++i)
            ck_assert_msg(memcmp(got + (size_t)i * es, want + (size_t)i * es, es) == 0, "%s: element %lld differs",
                          desc, (long long)i);
        ck_assert_msg(skipped == start + (cl_uint)want_skipped, "%s: %u skipped, the reference %lld", desc,
                      skipped - start, (long long)want_skipped);
        clReleaseMemObject(mx), clReleaseMemObject(mi), clReleaseMemObject(my), clReleaseMemObject(mc);
        free(ximg), free(iimg), free(yimg), free(x), free(idx), free(want), free(got);
    }
}

/* Every dtype; the rusticl subset runs the 4- and 2-byte ones and float64 (skipped without fp64). */
START_TEST(test_max_unpool_views) { max_unpool_views(6); }
END_TEST
START_TEST(test_max_unpool_views_few) { max_unpool_views(4); }
END_TEST

/* MaxUnpool on views: each bad call with its status and message; empty views run. */
START_TEST(test_bad_max_unpool_views)
{
    const clpool_shape xs = {4, {1, 2, 2, 2}}, ys = {4, {1, 2, 4, 4}};
    const int64_t kernel[2] = {2, 2};
    clpool_max_unpool_params p;
    ck_assert_int_eq(clpool_max_unpool_params_init(&p, 2, kernel), CLPOOL_SUCCESS);
    p.window.strides[0] = p.window.strides[1] = 2;
    cl_mem buf = cu_zero_buffer(4096), counter = cu_zero_buffer(4);
    clpool_view x, i, y;
    ck_assert_int_eq(clpool_view_channels_last(&x, buf, 0, &xs), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&i, buf, 512, &xs), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_channels_last(&y, buf, 1024, &ys), CLPOOL_SUCCESS);
    const char *fn = "clpool_enqueue_max_unpool_view";
#define UNPOOLV(vx, vi, vy) \
    clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, CLPOOL_FLOAT32, (vx), (vi), (vy), counter, 0, 0, NULL, NULL)
    cu_assert_status("good views", fn, UNPOOLV(&x, &i, &y), CLPOOL_SUCCESS, NULL);
    cu_assert_status("NULL X", fn, UNPOOLV(NULL, &i, &y), CLPOOL_ERROR_INVALID_ARGUMENT, "x is NULL");
    cu_assert_status("NULL indices", fn, UNPOOLV(&x, NULL, &y), CLPOOL_ERROR_INVALID_ARGUMENT, "indices is NULL");
    cu_assert_status("NULL output", fn, UNPOOLV(&x, &i, NULL), CLPOOL_ERROR_INVALID_ARGUMENT, "output is NULL");
    clpool_view v = i;
    v.dims[3] = 3;
    cu_assert_status("indices dims", fn, UNPOOLV(&x, &v, &y), CLPOOL_ERROR_INVALID_SHAPE,
                     "indices view dims [1,2,2,3] differ from the indices shape [1,2,2,2]");
    v = y;
    v.dims[2] = 5;
    cu_assert_status("output dims", fn, UNPOOLV(&x, &i, &v), CLPOOL_ERROR_INVALID_SHAPE,
                     "output view dims [1,2,5,4] differ from the output shape [1,2,4,4]");
    v = y;
    v.strides[1] = -1;
    v.offset += 4;
    cu_assert_status("negative output stride", fn, UNPOOLV(&x, &i, &v), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view stride -1 of dim 1 is negative");
    v = y;
    v.strides[3] = 1; /* W's stride 1 is C's: elements shared */
    cu_assert_status("overlapping output", fn, UNPOOLV(&x, &i, &v), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "output view's elements overlap");
    v = x;
    v.strides[0] = 1000;
    v.dims[0] = 2;
    cu_assert_status("X dims", fn, UNPOOLV(&v, &i, &y), CLPOOL_ERROR_INVALID_SHAPE,
                     "indices view dims [1,2,2,2] differ from the indices shape [2,2,2,2]");
    v = x;
    v.strides[1] = 2000;
    cu_assert_status("X outside its buffer", fn, UNPOOLV(&v, &i, &y), CLPOOL_ERROR_BUFFER_TOO_SMALL, "X buffer");
    v = i;
    v.offset = 4;
    cu_assert_status("misaligned indices", fn, UNPOOLV(&x, &v, &y), CLPOOL_ERROR_INVALID_ARGUMENT, "indices");
    cu_assert_status("counter past its buffer", fn,
                     clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &x, &i, &y, counter, 4, 0, NULL,
                                                    NULL),
                     CLPOOL_ERROR_BUFFER_TOO_SMALL, "skipped");
    cu_assert_status("bad dtype", fn,
                     clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, CLPOOL_INT32, &x, &i, &y, NULL, 0, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "MaxUnpool");
    clpool_view ex = x, ei = i, ey = y; /* N = 0: nothing to do, an event all the same */
    ex.dims[0] = ei.dims[0] = ey.dims[0] = 0;
    cl_event ev = NULL;
    const clpool_status st =
        clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &ex, &ei, &ey, NULL, 0, 0, NULL, &ev);
    cu_assert_enqueue_status("empty views", fn, st, ev, CLPOOL_SUCCESS, NULL);
#undef UNPOOLV
    clReleaseMemObject(buf), clReleaseMemObject(counter);
}
END_TEST

/* The constructors' strides. */
START_TEST(test_view_constructors)
{
    const clpool_shape s = {5, {2, 3, 4, 5, 6}};
    clpool_view v;
    ck_assert_int_eq(clpool_view_contiguous(&v, NULL, 8, &s), CLPOOL_SUCCESS);
    const int64_t dense[5] = {360, 120, 30, 6, 1}, last[5] = {360, 1, 90, 18, 3};
    ck_assert_int_eq(v.rank, 5);
    ck_assert_uint_eq(v.offset, 8);
    for (int d = 0; d < 5; ++d) ck_assert_int_eq(v.strides[d], dense[d]);
    ck_assert_int_eq(clpool_view_channels_last(&v, NULL, 0, &s), CLPOOL_SUCCESS);
    for (int d = 0; d < 5; ++d) ck_assert_int_eq(v.strides[d], last[d]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("views");
    TCase *tc = cu_tcase(s, "views", 1);
    tcase_add_loop_test(tc, test_layouts_match_first_tier, 0, 2);
    tcase_add_test(tc, test_kinds_planned);
    tcase_add_test(tc, test_kinds_more);
    tcase_add_test(tc, test_wide_channels);
    tcase_add_test(tc, test_strips);
    tcase_add_test(tc, test_global_pools);
    tcase_add_test(tc, test_planned_paths);
    tcase_add_test(tc, test_max_views);
    tcase_add_test(tc, test_max_views_few);
    tcase_add_test(tc, test_bad_max_views);
    tcase_add_test(tc, test_bad_views);
    tcase_add_test(tc, test_max_unpool_views);
    tcase_add_test(tc, test_max_unpool_views_few);
    tcase_add_test(tc, test_bad_max_unpool_views);
    tcase_add_test(tc, test_view_constructors);
    tcase_add_test(tc, test_views_edge_calls);
    return cu_run_suite(s, CK_NORMAL);
}
