/*
 * MaxUnpool suite: the round trip from MaxPool's Indices (tests/reference.c's
 * ref_maxpool) against PyTorch's max_unpool built independently (each argmax
 * position keeps its input value, every other element is 0), for 1-D, 2-D
 * and 3-D windows with pads and strides below and above the window; random
 * X and indices, some outside their plane, with and without output_shape
 * under both index readings, against ref_max_unpool bit for bit, skipped
 * counts included; the planned path of typical calls; and every bad-input
 * path's status and message.
 *
 * Elements move as bits, so the programs are one per element size whatever
 * the shapes: the cases are many, the programs four.
 *
 * Every run checks guarded images ([offset bytes of sentinel][tensor][CU_GUARD
 * sentinel bytes]): inputs unchanged, the output's and the counter's guards intact.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "../host/planners.h"
#include "check_util.h"
#include "reference.h"

/* MaxPool's dtypes, which MaxUnpool takes: four element sizes. */
static const clpool_dtype mu_dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                         CLPOOL_BFLOAT16, CLPOOL_INT8, CLPOOL_UINT8};
#define MU_DTYPES (sizeof mu_dtypes / sizeof mu_dtypes[0])

typedef enum mu_api { API_CTX_QUEUE, API_OWN_QUEUE, API_HOST } mu_api;

typedef struct mu_case {
    clpool_dtype dtype;
    clpool_shape x; /* X's and the Indices' shape */
    clpool_max_unpool_params p;
    size_t x_off, idx_off, out_off, skip_off; /* byte offsets (ignored by API_HOST) */
    int count;                                /* pass a skipped counter */
    mu_api api;
} mu_case;

static void case_init(mu_case *c, clpool_dtype dtype, const clpool_shape *x, const int64_t *kernel)
{
    memset(c, 0, sizeof *c);
    c->dtype = dtype;
    c->x = *x;
    ck_assert_int_eq(clpool_max_unpool_params_init(&c->p, x->rank - 2, kernel), CLPOOL_SUCCESS);
    c->count = 1;
}

static const char *describe(const mu_case *c, const char *label, char *buf, size_t len)
{
    const int32_t ns = c->x.rank - 2;
    buf[0] = '\0';
    cu_append(buf, len, "%s: MaxUnpool %s X ", label, clpool_dtype_name(c->dtype));
    cu_append_dims(buf, len, c->x.dims, c->x.rank);
    cu_append(buf, len, " kernel ");
    cu_append_dims(buf, len, c->p.window.kernel_shape, ns);
    cu_append(buf, len, " strides ");
    cu_append_dims(buf, len, c->p.window.strides, ns);
    cu_append(buf, len, " pads ");
    cu_append_dims(buf, len, c->p.window.pads, 2 * ns);
    if (c->p.has_output_shape) {
        cu_append(buf, len, " output_shape ");
        cu_append_dims(buf, len, c->p.output_shape.dims, c->p.output_shape.rank);
        cu_append(buf, len, " indices of the %s", c->p.indices == CLPOOL_UNPOOL_INDICES_OUTPUT ? "output" : "inferred");
    }
    cu_append(buf, len, " offsets %zu/%zu/%zu api %d", c->x_off, c->idx_off, c->out_off, (int)c->api);
    return buf;
}

/* The shape the attributes infer, written out here: (X - 1) * stride + kernel - pads per spatial dim. */
static clpool_shape inferred_of(const mu_case *c)
{
    clpool_shape s = c->x;
    const int32_t ns = c->x.rank - 2;
    for (int32_t i = 0; i < ns; ++i)
        s.dims[2 + i] = (c->x.dims[2 + i] - 1) * c->p.window.strides[i] + c->p.window.kernel_shape[i] -
                        c->p.window.pads[i] - c->p.window.pads[ns + i];
    return s;
}

static clpool_shape output_of(const mu_case *c) { return c->p.has_output_shape ? c->p.output_shape : inferred_of(c); }

static clpool_shape index_space_of(const mu_case *c)
{
    return c->p.has_output_shape && c->p.indices == CLPOOL_UNPOOL_INDICES_OUTPUT ? c->p.output_shape : inferred_of(c);
}

/* ------------------------------------------------------ running a case */

#define SKIP_START 7u /* the counter's value before a call: the op adds to it */

/* Runs the op; returns the output image [lead][n_y elements][CU_GUARD] with *lead set, *skipped the count it
 * added (0 where the case passes no counter). */
static unsigned char *execute(const mu_case *c, const void *x, const int64_t *idx, size_t *lead, uint32_t *skipped,
                              const char *desc)
{
    const size_t es = ref_dtype_size(c->dtype);
    const clpool_shape ys = output_of(c);
    const size_t n_x = (size_t)ref_shape_elements(&c->x), x_bytes = n_x * es, i_bytes = n_x * 8;
    const size_t y_bytes = (size_t)ref_shape_elements(&ys) * es;
    const int host = c->api == API_HOST, own = c->api == API_OWN_QUEUE;
    *lead = host ? CU_GUARD : c->out_off;
    unsigned char *y_img = cu_sentinel_image(*lead, NULL, y_bytes);
    *skipped = 0;
    if (host) {
        unsigned char *x_img = cu_sentinel_image(CU_GUARD, x, x_bytes);
        int64_t *i_copy = malloc(i_bytes + 8);
        memcpy(i_copy, idx, i_bytes);
        cu_assert_ok(clpool_max_unpool_host(cu_ctx, &c->p, c->dtype, &c->x, x_img + CU_GUARD, i_copy,
                                            y_img + *lead, c->count ? skipped : NULL),
                     "host call", desc);
        ck_assert_msg(memcmp(x_img + CU_GUARD, x, x_bytes) == 0 && memcmp(i_copy, idx, i_bytes) == 0,
                      "%s: an input changed", desc);
        free(x_img);
        free(i_copy);
    } else {
        unsigned char *x_img = cu_sentinel_image(c->x_off, x, x_bytes);
        unsigned char *i_img = cu_sentinel_image(c->idx_off, idx, i_bytes);
        const uint32_t start = SKIP_START;
        unsigned char *s_img = cu_sentinel_image(c->skip_off, &start, sizeof start);
        cl_mem x_mem = cu_buffer_from(x_img, CU_IMAGE_BYTES(c->x_off, x_bytes));
        cl_mem i_mem = cu_buffer_from(i_img, CU_IMAGE_BYTES(c->idx_off, i_bytes));
        cl_mem y_mem = cu_buffer_from(y_img, CU_IMAGE_BYTES(*lead, y_bytes));
        cl_mem s_mem = cu_buffer_from(s_img, CU_IMAGE_BYTES(c->skip_off, sizeof start));
        cl_event ev = NULL;
        cu_assert_ok(clpool_enqueue_max_unpool(cu_ctx, own ? cu_own_queue : NULL, &c->p, c->dtype, &c->x, x_mem,
                                               c->x_off, i_mem, c->idx_off, y_mem, c->out_off,
                                               c->count ? s_mem : NULL, c->skip_off, 0, NULL, &ev),
                     "enqueue", desc);
        ck_assert_msg(ev != NULL, "%s: no event returned", desc);
        cu_wait_done(own ? cu_own_queue : clpool_context_cl_queue(cu_ctx), ev, desc);
        clReleaseEvent(ev);
        const cl_command_queue q = clpool_context_cl_queue(cu_ctx);
        cu_assert_buffer_unchanged(q, x_mem, x_img, CU_IMAGE_BYTES(c->x_off, x_bytes), "X", desc);
        cu_assert_buffer_unchanged(q, i_mem, i_img, CU_IMAGE_BYTES(c->idx_off, i_bytes), "indices", desc);
        cu_read_back(q, y_mem, y_img, CU_IMAGE_BYTES(*lead, y_bytes), desc);
        cu_read_back(q, s_mem, s_img, CU_IMAGE_BYTES(c->skip_off, sizeof start), desc);
        cu_assert_guards(s_img, c->skip_off, sizeof start, "skipped", desc);
        uint32_t after;
        memcpy(&after, s_img + c->skip_off, sizeof after);
        if (c->count) *skipped = after - SKIP_START;
        else ck_assert_msg(after == SKIP_START, "%s: the counter changed without being passed", desc);
        clReleaseMemObject(x_mem);
        clReleaseMemObject(i_mem);
        clReleaseMemObject(y_mem);
        clReleaseMemObject(s_mem);
        free(x_img);
        free(i_img);
        free(s_img);
    }
    cu_assert_guards(y_img, *lead, y_bytes, "output", desc);
    return y_img;
}

/* Runs a case against `expect` (the output's bytes) and `expect_skipped`; 0, or 1 with `why` filled. */
static int run_against(const mu_case *c, const void *x, const int64_t *idx, const unsigned char *expect,
                       int64_t expect_skipped, const char *label, char *why, size_t why_len)
{
    char desc[1024];
    describe(c, label, desc, sizeof desc);
    const clpool_shape ys = output_of(c);
    clpool_shape lib;
    cu_assert_ok(clpool_max_unpool_output_shape(&c->x, &c->p, &lib), "output shape", desc);
    cu_assert_shape_eq(&lib, &ys, desc);
    const size_t es = ref_dtype_size(c->dtype), n_y = (size_t)ref_shape_elements(&ys);
    size_t lead;
    uint32_t skipped;
    unsigned char *img = execute(c, x, idx, &lead, &skipped, desc);
    int bad = 0;
    for (size_t e = 0; e < n_y && !bad; ++e) {
        if (memcmp(img + lead + e * es, expect + e * es, es) == 0) continue;
        snprintf(why, why_len, "%s: output element %zu differs from the reference", desc, e);
        bad = 1;
    }
    if (!bad && c->count && (int64_t)skipped != expect_skipped) {
        snprintf(why, why_len, "%s: %u indices counted as skipped, the reference skips %lld", desc, skipped,
                 (long long)expect_skipped);
        bad = 1;
    }
    free(img);
    return bad;
}

/* Runs a case against ref_max_unpool. */
static int run_case(const mu_case *c, const void *x, const int64_t *idx, const char *label, char *why, size_t why_len)
{
    const clpool_shape ys = output_of(c), is = index_space_of(c);
    unsigned char *expect = malloc((size_t)ref_shape_elements(&ys) * ref_dtype_size(c->dtype) + 1);
    const int64_t skipped = ref_max_unpool(c->dtype, &c->x, x, idx, &is, &ys, expect);
    ck_assert_msg(skipped >= 0, "%s: the reference rejects the case", label);
    const int bad = run_against(c, x, idx, expect, skipped, label, why, why_len);
    free(expect);
    return bad;
}

/* Random values of any bit pattern but the sentinel's (NaN payloads, -0 and infinities move as bits too). */
static void fill_bits(ref_rng *r, clpool_dtype dtype, void *data, int64_t n)
{
    const size_t es = ref_dtype_size(dtype);
    unsigned char *b = data;
    for (size_t i = 0; i < (size_t)n * es; ++i) {
        b[i] = (unsigned char)ref_rng_next(r);
        if (b[i] == CU_SENTINEL) b[i] = 0x5A;
    }
}

/* ------------------------------------------------------------ round trip */

/* MaxPool (ref_maxpool, storage_order 0) of a random input, unpooled into the input's shape: PyTorch's
 * max_unpool keeps each argmax position's value and zeroes the rest, whatever windows share it. */
static void round_trip(clpool_dtype dtype, const clpool_shape *in_shape, const int64_t *k, const int64_t *s,
                       const int64_t *pads, int ceil_mode, mu_api api, uint64_t seed, const char *label)
{
    const int32_t ns = in_shape->rank - 2;
    clpool_maxpool_params mp;
    ck_assert_int_eq(clpool_maxpool_params_init(&mp, ns, k), CLPOOL_SUCCESS);
    for (int32_t i = 0; i < ns; ++i) mp.strides[i] = s[i];
    for (int32_t i = 0; i < 2 * ns; ++i) mp.pads[i] = pads[i];
    mp.ceil_mode = ceil_mode;
    clpool_shape pooled;
    ck_assert_msg(ref_maxpool_shape(in_shape, &mp, &pooled, NULL, NULL, 0) == 0, "%s: bad MaxPool case", label);
    const size_t es = ref_dtype_size(dtype), n_in = (size_t)ref_shape_elements(in_shape);
    const size_t n_x = (size_t)ref_shape_elements(&pooled);
    unsigned char *input = malloc(n_in * es + 1), *x = malloc(n_x * es + 1), *expect = calloc(n_in + 1, es);
    int64_t *idx = malloc(n_x * 8 + 8);
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (size_t i = 0; i < n_in; ++i) /* distinct values in 8 bits' range: ties stay rare but are exercised */
        ref_store(dtype, input, (int64_t)i, (double)ref_rng_range(&r, -100, 100));
    ck_assert_int_eq(ref_maxpool(dtype, in_shape, &mp, input, x, idx), 0);
    for (size_t e = 0; e < n_x; ++e) memcpy(expect + (size_t)idx[e] * es, input + (size_t)idx[e] * es, es);
    mu_case c;
    case_init(&c, dtype, &pooled, k);
    memcpy(c.p.window.strides, mp.strides, sizeof mp.strides);
    memcpy(c.p.window.pads, mp.pads, sizeof mp.pads);
    c.p.has_output_shape = 1;
    c.p.output_shape = *in_shape;
    c.p.indices = CLPOOL_UNPOOL_INDICES_OUTPUT;
    c.api = api;
    c.x_off = api == API_HOST ? 0 : es * 3;
    c.idx_off = api == API_HOST ? 0 : 16;
    c.out_off = api == API_HOST ? 0 : es * 5;
    c.skip_off = 12;
    char why[1024];
    ck_assert_msg(run_against(&c, x, idx, expect, 0, label, why, sizeof why) == 0, "%s", why);
    free(input);
    free(x);
    free(expect);
    free(idx);
}

START_TEST(test_round_trip)
{
    static const struct {
        int32_t rank;
        int64_t dims[5], k[3], s[3], pads[6];
        int ceil_mode;
    } cases[] = {
        {3, {2, 8, 17}, {3}, {2}, {1, 1}, 0},                         /* 1-D, overlapping windows */
        {3, {1, 4, 20}, {2}, {5}, {0, 0}, 0},                         /* stride above the window */
        {4, {4, 5, 9, 11}, {2, 2}, {2, 2}, {0, 0, 0, 0}, 0},          /* SegNet's 2x2/s2, odd sizes */
        {4, {1, 5, 12, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0},         /* 3x3/s2/p1: shared argmaxes */
        {4, {2, 2, 13, 8}, {3, 2}, {1, 3}, {0, 1, 2, 0}, 1},          /* per-axis, ceil_mode */
        {5, {1, 3, 6, 7, 9}, {2, 3, 3}, {2, 2, 2}, {0, 1, 1, 1, 0, 1}, 0}, /* 3-D */
        {5, {2, 9, 5, 6, 5}, {1, 2, 2}, {1, 3, 3}, {0, 0, 0, 0, 0, 0}, 0},
    };
    for (size_t d = 0; d < MU_DTYPES; ++d) {
        if (!cu_dtype_runs(mu_dtypes[d], "round trip")) continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            clpool_shape in = {cases[i].rank, {0}};
            memcpy(in.dims, cases[i].dims, sizeof cases[i].dims);
            char label[64];
            snprintf(label, sizeof label, "round trip %zu", i);
            round_trip(mu_dtypes[d], &in, cases[i].k, cases[i].s, cases[i].pads, cases[i].ceil_mode,
                       (mu_api)((d + i) % 3), 0x7e5a0000u + 16 * d + i, label);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ random */

/* Random attributes and X of rank 3 to 5; indices mostly inside their plane of the index space, in X's order
 * or shuffled, some in another plane, negative or past the end; half the cases with an output_shape, larger
 * or smaller than the inferred one, read either way. Indices are distinct within a plane unless duplicates
 * carry one value. */
static void random_case(ref_rng *r, clpool_dtype dtype, mu_case *c, void **x, int64_t **idx)
{
    const int32_t ns = (int32_t)ref_rng_range(r, 1, 3);
    clpool_shape xs = {ns + 2, {0}};
    xs.dims[0] = ref_rng_range(r, 1, 4); /* up to 48 planes: both CPU paths */
    xs.dims[1] = ref_rng_range(r, 1, 12);
    int64_t k[3];
    for (int32_t i = 0; i < ns; ++i) {
        xs.dims[2 + i] = ref_rng_range(r, 1, ns == 3 ? 5 : 9);
        k[i] = ref_rng_range(r, 1, 4);
    }
    case_init(c, dtype, &xs, k);
    for (int32_t i = 0; i < ns; ++i) {
        c->p.window.strides[i] = ref_rng_range(r, 1, 4);
        c->p.window.pads[i] = ref_rng_range(r, 0, k[i] - 1);
        c->p.window.pads[ns + i] = ref_rng_range(r, 0, k[i] - 1);
    }
    for (int32_t i = 0; i < ns; ++i) /* every inferred dim >= 1: without pads it is */
        if (inferred_of(c).dims[2 + i] < 1) c->p.window.pads[i] = c->p.window.pads[ns + i] = 0;
    if (ref_rng_chance(r, 0.5)) {
        c->p.has_output_shape = 1;
        c->p.output_shape = inferred_of(c);
        for (int32_t i = 0; i < ns; ++i) {
            const int64_t d = c->p.output_shape.dims[2 + i] + ref_rng_range(r, -2, 3);
            c->p.output_shape.dims[2 + i] = d < 1 ? 1 : d;
        }
        c->p.indices = ref_rng_chance(r, 0.5) ? CLPOOL_UNPOOL_INDICES_OUTPUT : CLPOOL_UNPOOL_INDICES_INFERRED;
    }
    const clpool_shape is = index_space_of(c);
    const int64_t n_x = ref_shape_elements(&xs), planes = xs.dims[0] * xs.dims[1], x_plane = n_x / planes;
    const int64_t idx_plane = ref_shape_elements(&is) / planes;
    *x = malloc((size_t)n_x * ref_dtype_size(dtype) + 1);
    *idx = malloc((size_t)n_x * 8 + 8);
    fill_bits(r, dtype, *x, n_x);
    const double bad_share = ref_rng_chance(r, 0.5) ? 0.0 : 0.1;
    /* a plane's slots in X's order, or shuffled: indices in any order */
    int64_t *slot = malloc((size_t)x_plane * sizeof *slot);
    for (int64_t j = 0; j < x_plane; ++j) slot[j] = j;
    if (ref_rng_chance(r, 0.5))
        for (int64_t j = x_plane - 1; j > 0; --j) {
            const int64_t o = ref_rng_range(r, 0, j), t = slot[j];
            slot[j] = slot[o], slot[o] = t;
        }
    for (int64_t e = 0; e < n_x; ++e) {
        const int64_t q = e / x_plane, j = slot[e % x_plane];
        /* positions j * step spread over the plane, distinct while x_plane <= idx_plane */
        int64_t pos = x_plane <= idx_plane ? (j * (idx_plane / x_plane) + ref_rng_range(r, 0, idx_plane / x_plane - 1))
                                           : ref_rng_range(r, 0, idx_plane - 1);
        if (x_plane > idx_plane) /* more X than positions: repeats must carry one value */
            memcpy((unsigned char *)*x + (size_t)e * ref_dtype_size(dtype), *x, ref_dtype_size(dtype));
        int64_t v = q * idx_plane + pos;
        if (ref_rng_chance(r, bad_share)) {
            switch (ref_rng_range(r, 0, 3)) {
            case 0: v = -1 - ref_rng_range(r, 0, 5); break;
            case 1: v = (q + 1) * idx_plane + ref_rng_range(r, 0, 3); break; /* the next plane */
            case 2: v = q * idx_plane - 1 - ref_rng_range(r, 0, 3); break;   /* the previous one */
            default: v = INT64_MAX - ref_rng_range(r, 0, 3); break;
            }
        }
        (*idx)[e] = v;
    }
    free(slot);
}

START_TEST(test_random)
{
    const clpool_dtype dtype = mu_dtypes[_i % MU_DTYPES];
    if (!cu_dtype_runs(dtype, "random")) return;
    ref_rng r;
    ref_rng_seed(&r, 0xa11c0000u + (uint64_t)_i);
    cu_tally t = {0};
    for (int n = 0; n < 30; ++n) {
        mu_case c;
        void *x;
        int64_t *idx;
        random_case(&r, dtype, &c, &x, &idx);
        c.api = (mu_api)(n % 3);
        c.count = n % 4 != 3;
        const size_t es = ref_dtype_size(dtype);
        c.x_off = c.api == API_HOST ? 0 : es * (size_t)ref_rng_range(&r, 0, 3);
        c.idx_off = c.api == API_HOST ? 0 : 8 * (size_t)ref_rng_range(&r, 0, 2);
        c.out_off = c.api == API_HOST ? 0 : es * (size_t)ref_rng_range(&r, 0, 3);
        c.skip_off = 4 * (size_t)ref_rng_range(&r, 0, 2);
        char label[48], why[1024];
        snprintf(label, sizeof label, "random %d/%d", (int)_i, n);
        cu_tally_add(&t, run_case(&c, x, idx, label, why, sizeof why), why);
        free(x);
        free(idx);
    }
    cu_tally_check(&t);
}
END_TEST

/* ------------------------------------------------------------ contract */

/* The ONNX node test with_output_shape, and the same call read as PyTorch does. */
START_TEST(test_index_readings)
{
    const int64_t k[2] = {2, 2};
    const clpool_shape xs = {4, {1, 1, 2, 2}};
    const float x[4] = {5, 6, 7, 8};
    const int64_t idx[4] = {5, 7, 13, 15};
    mu_case c;
    case_init(&c, CLPOOL_FLOAT32, &xs, k);
    c.p.window.strides[0] = c.p.window.strides[1] = 2;
    c.p.has_output_shape = 1;
    c.p.output_shape = (clpool_shape){4, {1, 1, 5, 5}};
    float want[25] = {0}, out[25];
    /* inferred 4x4: (1,1), (1,3), (3,1), (3,3) keep their coordinates in the 5x5 output */
    want[6] = 5, want[8] = 6, want[16] = 7, want[18] = 8;
    cu_assert_ok(clpool_max_unpool_host(cu_ctx, &c.p, CLPOOL_FLOAT32, &xs, x, idx, out, NULL), "inferred", "inferred");
    ck_assert_msg(memcmp(out, want, sizeof want) == 0, "the inferred reading differs from ONNX's node test");
    c.p.indices = CLPOOL_UNPOOL_INDICES_OUTPUT;
    memset(want, 0, sizeof want);
    want[5] = 5, want[7] = 6, want[13] = 7, want[15] = 8; /* flat positions of the 5x5 plane */
    cu_assert_ok(clpool_max_unpool_host(cu_ctx, &c.p, CLPOOL_FLOAT32, &xs, x, idx, out, NULL), "output", "output");
    ck_assert_msg(memcmp(out, want, sizeof want) == 0, "the output reading differs from PyTorch's");
}
END_TEST

/* The counter adds and saturates; indices outside their plane write nothing anywhere. */
START_TEST(test_skipped_counter)
{
    const int64_t k[1] = {2};
    const clpool_shape xs = {3, {2, 1, 3}};
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t idx[6] = {0, 6, -1, 6, 11, 12}; /* plane 0: 0, then two out; plane 1 (6..11): 6, 11, then 12 */
    clpool_max_unpool_params p;
    ck_assert_int_eq(clpool_max_unpool_params_init(&p, 1, k), CLPOOL_SUCCESS);
    p.window.strides[0] = 2;
    const uint32_t start[2] = {UINT32_MAX - 5, 0};
    cl_mem xm = cu_buffer_from(x, sizeof x), im = cu_buffer_from(idx, sizeof idx), ym = cu_zero_buffer(12 * 4);
    cl_mem sm = cu_buffer_from(start, sizeof start);
    for (int run = 0; run < 3; ++run) {
        cl_event ev = NULL;
        cu_assert_ok(clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0, sm, 0, 0,
                                               NULL, &ev),
                     "enqueue", "counter");
        cu_wait_done(clpool_context_cl_queue(cu_ctx), ev, "counter");
        clReleaseEvent(ev);
        uint32_t got[2];
        cu_read_back(clpool_context_cl_queue(cu_ctx), sm, got, sizeof got, "counter");
        const uint32_t want = run < 1 ? UINT32_MAX - 2 : UINT32_MAX; /* 3 per call, then saturated */
        ck_assert_msg(got[0] == want && got[1] == 0, "run %d: counter %u (next word %u), expected %u", run, got[0],
                      got[1], want);
    }
    float y[12];
    cu_read_back(clpool_context_cl_queue(cu_ctx), ym, y, sizeof y, "counter");
    const float want_y[12] = {1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 5};
    ck_assert_msg(memcmp(y, want_y, sizeof y) == 0, "outputs of the valid indices only");
    clReleaseMemObject(xm);
    clReleaseMemObject(im);
    clReleaseMemObject(ym);
    clReleaseMemObject(sm);
}
END_TEST

/* An empty output completes its event; the wait list gates the op. */
START_TEST(test_empty_output_and_wait_list)
{
    const int64_t k[2] = {2, 2};
    clpool_max_unpool_params p;
    ck_assert_int_eq(clpool_max_unpool_params_init(&p, 2, k), CLPOOL_SUCCESS);
    const clpool_shape empty = {4, {0, 3, 2, 2}};
    cl_mem m = cu_zero_buffer(64);
    cl_event ev = NULL;
    const clpool_status st =
        clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &empty, m, 0, m, 0, m, 0, NULL, 0, 0, NULL, &ev);
    cu_assert_enqueue_status("empty", "clpool_enqueue_max_unpool", st, ev, CLPOOL_SUCCESS, NULL);
    const clpool_shape xs = {4, {1, 1, 1, 1}};
    const float x = 3.0f;
    const int64_t idx = 3;
    cl_mem xm = cu_buffer_from(&x, sizeof x), im = cu_buffer_from(&idx, sizeof idx), ym = cu_zero_buffer(16);
    cl_event gate = cu_user_event();
    ev = NULL;
    cu_assert_ok(clpool_enqueue_max_unpool(cu_ctx, cu_own_queue, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0, NULL, 0,
                                           1, &gate, &ev),
                 "enqueue", "gated");
    cu_assert_pending(cu_own_queue, ev, "MaxUnpool behind a closed gate");
    clSetUserEventStatus(gate, CL_COMPLETE);
    cu_wait_done(cu_own_queue, ev, "gated");
    float y[4];
    cu_read_back(clpool_context_cl_queue(cu_ctx), ym, y, sizeof y, "gated");
    ck_assert(y[0] == 0 && y[1] == 0 && y[2] == 0 && y[3] == 3.0f);
    clReleaseEvent(ev);
    clReleaseEvent(gate);
    clReleaseMemObject(m);
    clReleaseMemObject(xm);
    clReleaseMemObject(im);
    clReleaseMemObject(ym);
}
END_TEST

/* ------------------------------------------------------ planned paths */

/* CPUs with planes to spread take whole planes per work-item; few planes, and GPUs, zero then scatter. Each
 * path this device's kind plans runs here against the reference, for every element size. */
START_TEST(test_paths)
{
    static const struct {
        int64_t dims[4];
        int gpu;
        clpool__path path;
    } cases[] = {
        {{4, 16, 6, 6}, 0, CLPOOL__PATH_MAX_UNPOOL_PLANES},
        {{1, 2, 40, 40}, 0, CLPOOL__PATH_MAX_UNPOOL_SCATTER},
        {{4, 16, 6, 6}, 1, CLPOOL__PATH_MAX_UNPOOL_SCATTER},
    };
    clpool__device_caps dev;
    clpool__device_caps_of(cu_ctx, &dev);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const int64_t k[2] = {2, 2};
        const clpool_shape xs = {4, {cases[i].dims[0], cases[i].dims[1], cases[i].dims[2], cases[i].dims[3]}};
        clpool__device_caps caps = dev;
        caps.cpu = !cases[i].gpu;
        caps.cpu_simd = caps.cpu;
        const int64_t planes = xs.dims[0] * xs.dims[1], x_plane = xs.dims[2] * xs.dims[3], w = xs.dims[3];
        const clpool__max_unpool_desc d = {.dtype = CLPOOL_FLOAT32, .esize = 4, .planes = planes, .x_plane = x_plane,
                                           .y_plane = 4 * x_plane, .idx_plane = 4 * x_plane, .ns = 2};
        clpool__plan plan;
        clpool__max_unpool_plan_call(&caps, &d, &plan);
        ck_assert_msg(plan.path == cases[i].path, "case %zu: planned %s, expected %s", i,
                      clpool__families[plan.path].name, clpool__families[cases[i].path].name);
        ck_assert_int_eq(plan.first_tier, 1);
        for (size_t t = 0; t < MU_DTYPES && cases[i].gpu == !dev.cpu; ++t) {
            if (!cu_dtype_runs(mu_dtypes[t], "paths")) continue;
            mu_case c;
            case_init(&c, mu_dtypes[t], &xs, k);
            c.p.window.strides[0] = c.p.window.strides[1] = 2;
            ref_rng r;
            ref_rng_seed(&r, 0x9a7b0000u + i);
            const int64_t n_x = ref_shape_elements(&xs);
            unsigned char *x = malloc((size_t)n_x * 8);
            int64_t *idx = malloc((size_t)n_x * 8);
            fill_bits(&r, mu_dtypes[t], x, n_x);
            for (int64_t e = 0; e < n_x; ++e) { /* one tap (2i + a, 2j + b) of each 2x2 window of the 2H x 2W plane */
                const int64_t row = (e % x_plane) / w, col = e % w;
                const int64_t a = ref_rng_range(&r, 0, 1), b = ref_rng_range(&r, 0, 1);
                idx[e] = (e / x_plane) * 4 * x_plane + (2 * row + a) * 2 * w + 2 * col + b;
            }
            char why[1024];
            ck_assert_msg(run_case(&c, x, idx, "path", why, sizeof why) == 0, "%s", why);
            free(x);
            free(idx);
        }
    }
}
END_TEST

/* ------------------------------------------------------ bad inputs */

START_TEST(test_bad_inputs)
{
    const int64_t k[2] = {2, 2};
    const clpool_shape xs = {4, {1, 1, 2, 2}};
    float x[4] = {0}, y[16];
    int64_t idx[4] = {0};
    clpool_max_unpool_params p;
    clpool_shape os;
    const char *fs = "clpool_max_unpool_output_shape";
    cu_assert_status("init NULL", "clpool_max_unpool_params_init", clpool_max_unpool_params_init(NULL, 2, k),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    cu_assert_status("init rank", "clpool_max_unpool_params_init", clpool_max_unpool_params_init(&p, 11, k),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "spatial_rank 11");
    ck_assert_int_eq(clpool_max_unpool_params_init(&p, 2, k), CLPOOL_SUCCESS);
    cu_assert_status("NULL params", fs, clpool_max_unpool_output_shape(&xs, NULL, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "NULL");
    cu_assert_status("NULL output", fs, clpool_max_unpool_output_shape(&xs, &p, NULL), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "NULL");
    p.struct_size = 4;
    cu_assert_status("struct_size", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "clpool_max_unpool_params_init");
    p.struct_size = sizeof p;
    p.window.struct_size = 0;
    cu_assert_status("window struct_size", fs, clpool_max_unpool_output_shape(&xs, &p, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "params.window.struct_size");
    p.window.struct_size = sizeof p.window;
    p.window.dilations[1] = 2;
    cu_assert_status("dilations", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "dilations[1] = 2, but MaxUnpool has no dilations");
    p.window.dilations[1] = 1;
    p.window.ceil_mode = 1;
    cu_assert_status("ceil_mode", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "MaxUnpool has no ceil_mode");
    p.window.ceil_mode = 0;
    p.window.auto_pad = CLPOOL_AUTO_PAD_VALID;
    cu_assert_status("auto_pad", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "MaxUnpool has no auto_pad");
    p.window.auto_pad = CLPOOL_AUTO_PAD_NOTSET;
    p.window.pads[0] = -1;
    cu_assert_status("pads", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "pads[0] = -1 must be >= 0");
    p.window.pads[0] = 2; /* (2 - 1) * 1 + 2 - 2 - 1 = 0 */
    p.window.pads[2] = 1;
    cu_assert_status("inferred < 1", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "along spatial axis 0 the output size (X 2 - 1) * stride 1 + kernel 2 - pads 2 - 1 = 0 is < 1");
    p.window.pads[0] = p.window.pads[2] = 0;
    p.window.strides[0] = INT64_MAX / 2;
    const clpool_shape wide = {4, {1, 1, 4, 2}};
    cu_assert_status("overflow", fs, clpool_max_unpool_output_shape(&wide, &p, &os), CLPOOL_ERROR_OVERFLOW,
                     "overflows int64");
    p.window.strides[0] = INT64_MAX - 1; /* (2 - 1) * stride fits; adding the kernel does not */
    cu_assert_status("overflow adding the kernel", fs, clpool_max_unpool_output_shape(&xs, &p, &os),
                     CLPOOL_ERROR_OVERFLOW, "the output size along spatial axis 0 overflows int64");
    p.window.strides[0] = 1;
    p.window.pads[0] = p.window.pads[2] = INT64_MAX; /* 3 - pad fits; taking the end pad too does not */
    cu_assert_status("overflow taking the pads", fs, clpool_max_unpool_output_shape(&xs, &p, &os),
                     CLPOOL_ERROR_OVERFLOW, "the output size along spatial axis 0 overflows int64");
    p.window.pads[0] = p.window.pads[2] = 0;
    p.has_output_shape = 2;
    cu_assert_status("has_output_shape", fs, clpool_max_unpool_output_shape(&xs, &p, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "has_output_shape = 2 must be 0 or 1");
    p.has_output_shape = 0;
    p.indices = (clpool_unpool_indices)5;
    cu_assert_status("indices", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "indices = 5 is not a clpool_unpool_indices value");
    p.indices = CLPOOL_UNPOOL_INDICES_INFERRED;
    const clpool_shape flat = {3, {1, 1, 4}}, two = {2, {1, 4}}, zero = {4, {1, 1, 0, 2}};
    cu_assert_status("rank", fs, clpool_max_unpool_output_shape(&flat, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "kernel_shape has 2 dims but X has 1 spatial dims");
    cu_assert_status("rank 2", fs, clpool_max_unpool_output_shape(&two, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "X rank 2 must be >= 3");
    cu_assert_status("X dim 0", fs, clpool_max_unpool_output_shape(&zero, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "X spatial dim 0 is 0");
    p.has_output_shape = 1;
    p.output_shape = (clpool_shape){4, {1, 2, 3, 3}};
    cu_assert_status("output_shape C", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "output_shape [1,2,3,3] must have X's rank and its N and C");
    p.output_shape = (clpool_shape){4, {2, 1, 3, 3}};
    cu_assert_status("output_shape N", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "output_shape [2,1,3,3] must have X's rank and its N and C");
    p.output_shape = (clpool_shape){3, {1, 1, 3}};
    cu_assert_status("output_shape rank", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "must have X's rank");
    p.output_shape = (clpool_shape){4, {1, 1, 3, 0}};
    cu_assert_status("output_shape dim", fs, clpool_max_unpool_output_shape(&xs, &p, &os), CLPOOL_ERROR_INVALID_SHAPE,
                     "output_shape spatial dim 1 is 0");
    p.output_shape = (clpool_shape){4, {1, 1, -3, 3}};
    cu_assert_status("output_shape negative", fs, clpool_max_unpool_output_shape(&xs, &p, &os),
                     CLPOOL_ERROR_INVALID_SHAPE, "output_shape");
    p.has_output_shape = 0;
    cu_assert_status("dtype", "clpool_enqueue_max_unpool",
                     clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_INT32, &xs, NULL, 0, NULL, 0, NULL, 0, NULL, 0,
                                               0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "not supported by MaxUnpool");
    cu_assert_status("host NULL", "clpool_max_unpool_host",
                     clpool_max_unpool_host(cu_ctx, &p, CLPOOL_FLOAT32, &xs, x, NULL, y, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    cu_assert_status("host dtype", NULL, clpool_max_unpool_host(cu_ctx, &p, CLPOOL_UINT16, &xs, x, idx, y, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "not supported by MaxUnpool");
    /* buffers */
    cl_mem xm = cu_zero_buffer(sizeof x), im = cu_zero_buffer(sizeof idx), ym = cu_zero_buffer(sizeof y);
    cl_mem small = cu_zero_buffer(8);
    const char *fe = "clpool_enqueue_max_unpool";
    cl_event ev = NULL;
    cu_assert_enqueue_status("X NULL", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, NULL, 0, im, 0, ym, 0,
                                                       NULL, 0, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "X buffer is NULL");
    cu_assert_enqueue_status("indices size", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, small, 0, ym, 0,
                                                       NULL, 0, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_BUFFER_TOO_SMALL, "indices buffer holds 8 bytes");
    cu_assert_enqueue_status("indices offset", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 4, ym, 0,
                                                       NULL, 0, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "indices offset 4 is not a multiple");
    cu_assert_enqueue_status("output size", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, small, 0,
                                                       NULL, 0, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_BUFFER_TOO_SMALL, "output buffer holds 8 bytes");
    cu_assert_enqueue_status("skipped offset", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0,
                                                       small, 8, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_BUFFER_TOO_SMALL, "skipped buffer holds 8 bytes");
    cu_assert_enqueue_status("skipped alignment", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0,
                                                       small, 2, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "skipped offset 2");
    cu_assert_enqueue_status("wait list", fe,
                             clpool_enqueue_max_unpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0,
                                                       NULL, 0, 1, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "event_wait_list must be NULL exactly when");
    cu_assert_enqueue_status("NULL ctx", fe,
                             clpool_enqueue_max_unpool(NULL, NULL, &p, CLPOOL_FLOAT32, &xs, xm, 0, im, 0, ym, 0, NULL,
                                                       0, 0, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    clReleaseMemObject(xm);
    clReleaseMemObject(im);
    clReleaseMemObject(ym);
    clReleaseMemObject(small);
    cu_assert_context_computes(cu_ctx, "after the bad inputs");
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("max_unpool");
    TCase *tc = cu_tcase(s, "random", 1);
    tcase_add_test(tc, test_round_trip);
    tcase_add_loop_test(tc, test_random, 0, 2 * (int)MU_DTYPES);
    tc = cu_tcase(s, "fixed", 1);
    tcase_add_test(tc, test_index_readings);
    tcase_add_test(tc, test_skipped_counter);
    tcase_add_test(tc, test_empty_output_and_wait_list);
    tcase_add_test(tc, test_paths);
    tcase_add_test(tc, test_bad_inputs);
    return cu_run_suite(s, CK_ENV);
}
