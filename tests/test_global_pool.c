/*
 * Global pools suite: GlobalMaxPool (bit-exact), GlobalAveragePool and
 * GlobalLpPool (tolerance against a long double reference) on every float
 * dtype, from tiny to 10^6-element planes, with NaN and infinities, against
 * tests/reference_ops.c.
 *
 * Every run goes through run_case(): the input and output cl_mem are images
 * [offset bytes of sentinel][tensor][CU_GUARD sentinel bytes]; afterwards the
 * input image must be unchanged, the output's sentinel regions intact, and
 * every output element must match the reference.
 *
 * Check forks every test; the OpenCL context is created inside the child by
 * the checked fixture of check_util.c, never in main().
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "reference.h"
#include "reference_ops.h"

/* --------------------------------------------------------------- cases */

typedef enum gp_op { OP_MAX, OP_AVG, OP_LP } gp_op;
typedef enum run_api { API_CTX_QUEUE, API_OWN_QUEUE, API_HOST } run_api;

static const char *const op_names[] = {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"};

typedef struct gp_case {
    gp_op op;
    double p; /* GlobalLpPool only */
    clpool_dtype dtype;
    clpool_shape shape;
    size_t in_off, out_off; /* byte offsets (ignored by API_HOST) */
    run_api api;
    int want_event; /* ask for the event (else clFinish) */
} gp_case;

static gp_case make_case(gp_op op, double p, clpool_dtype dtype, int32_t rank, const int64_t *dims)
{
    gp_case c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.p = p;
    c.dtype = dtype;
    c.shape.rank = rank;
    memcpy(c.shape.dims, dims, (size_t)rank * sizeof *dims);
    c.in_off = 3 * ref_dtype_size(dtype);
    c.out_off = 5 * ref_dtype_size(dtype);
    c.api = API_CTX_QUEUE;
    c.want_event = 1;
    return c;
}

static const char *describe(const gp_case *c, const char *label, char *buf, size_t len)
{
    buf[0] = '\0';
    cu_append(buf, len, "%s: %s %s", label, op_names[c->op], clpool_dtype_name(c->dtype));
    if (c->op == OP_LP) cu_append(buf, len, " p=%g", c->p);
    cu_append(buf, len, " input ");
    cu_append_dims(buf, len, c->shape.dims, c->shape.rank);
    cu_append(buf, len, " offsets %zu/%zu api %d event %d", c->in_off, c->out_off, (int)c->api, c->want_event);
    return buf;
}

/* ------------------------------------------------------ running a case */

static clpool_status call_host(const gp_case *c, const void *in, void *out)
{
    switch (c->op) {
    case OP_MAX: return clpool_global_max_pool_host(cu_ctx, c->dtype, &c->shape, in, out);
    case OP_AVG: return clpool_global_average_pool_host(cu_ctx, c->dtype, &c->shape, in, out);
    default: return clpool_global_lp_pool_host(cu_ctx, c->p, c->dtype, &c->shape, in, out);
    }
}

static clpool_status call_enqueue(const gp_case *c, cl_command_queue q, cl_mem in, cl_mem out, cl_uint num_wait,
                                  const cl_event *wait, cl_event *ev)
{
    switch (c->op) {
    case OP_MAX:
        return clpool_enqueue_global_max_pool(cu_ctx, q, c->dtype, &c->shape, in, c->in_off, out, c->out_off, num_wait,
                                              wait, ev);
    case OP_AVG:
        return clpool_enqueue_global_average_pool(cu_ctx, q, c->dtype, &c->shape, in, c->in_off, out, c->out_off,
                                                  num_wait, wait, ev);
    default:
        return clpool_enqueue_global_lp_pool(cu_ctx, q, c->p, c->dtype, &c->shape, in, c->in_off, out, c->out_off,
                                             num_wait, wait, ev);
    }
}

/* Runs the op; returns the output image [lead][planes elements][CU_GUARD] with *lead set. */
static unsigned char *execute(const gp_case *c, const void *input, int64_t n_in, int64_t planes, size_t *lead,
                              const char *desc)
{
    const size_t es = ref_dtype_size(c->dtype), in_bytes = (size_t)n_in * es, out_bytes = (size_t)planes * es;
    const int host = c->api == API_HOST, own = c->api == API_OWN_QUEUE;
    const size_t in_lead = host ? CU_GUARD : c->in_off, in_size = CU_IMAGE_BYTES(in_lead, in_bytes);
    *lead = host ? CU_GUARD : c->out_off;
    unsigned char *in_img = cu_sentinel_image(in_lead, input, in_bytes);
    unsigned char *out_img = cu_sentinel_image(*lead, NULL, out_bytes);
    if (host) {
        unsigned char *in_host = cu_sentinel_image(in_lead, input, in_bytes); /* what the helper reads */
        cu_assert_ok(call_host(c, in_host + in_lead, out_img + *lead), "host call", desc);
        ck_assert_msg(memcmp(in_host, in_img, in_size) == 0, "%s: the input buffer changed", desc);
        free(in_host);
    } else {
        cl_mem in_mem = cu_buffer_from(in_img, in_size);
        cl_mem out_mem = cu_buffer_from(out_img, CU_IMAGE_BYTES(*lead, out_bytes));
        cl_event ev = NULL;
        cu_assert_ok(call_enqueue(c, own ? cu_own_queue : NULL, in_mem, out_mem, 0, NULL, c->want_event ? &ev : NULL),
                     "enqueue", desc);
        if (c->want_event) ck_assert_msg(ev != NULL, "%s: no event returned", desc);
        cu_wait_done(own ? cu_own_queue : clpool_context_cl_queue(cu_ctx), ev, desc);
        if (ev) clReleaseEvent(ev);
        const cl_command_queue q = clpool_context_cl_queue(cu_ctx);
        cu_assert_buffer_unchanged(q, in_mem, in_img, in_size, "input", desc);
        cu_read_back(q, out_mem, out_img, CU_IMAGE_BYTES(*lead, out_bytes), desc);
        clReleaseMemObject(in_mem);
        clReleaseMemObject(out_mem);
    }
    cu_assert_guards(out_img, *lead, out_bytes, "output", desc);
    free(in_img);
    return out_img;
}

/*
 * Average/Lp: NaN must stay NaN, infinities exact, finite values within
 * tol * max(|ref|, scale, tiny). Returns 0, or 1 with a message in `why`.
 */
static int check_value(const gp_case *c, double ref, double scale, double got, char *why, size_t why_len)
{
    if (isnan(ref)) {
        if (isnan(got)) return 0;
        snprintf(why, why_len, "expected NaN, got %.17g", got);
        return 1;
    }
    if (isinf(ref)) {
        if (got == ref) return 0;
        snprintf(why, why_len, "expected %g, got %.17g", ref, got);
        return 1;
    }
    double mag = fabs(ref);
    if (scale > mag) mag = scale;
    if (cu_smallest_normal(c->dtype) > mag) mag = cu_smallest_normal(c->dtype);
    const double bound = cu_global_pool_tolerance(c->dtype) * mag;
    if (isfinite(got) && fabs(got - ref) <= bound) return 0;
    snprintf(why, why_len, "expected %.17g, got %.17g (error %.3g > bound %.3g, relative %.3g)", ref, got,
             fabs(got - ref), bound, fabs(got - ref) / fmax(fabs(ref), cu_smallest_normal(c->dtype)));
    return 1;
}

/*
 * The one runner: reference vs library (bit-exact for Max, tolerance for
 * Average/Lp). API misuse, statuses, guards and the input are hard
 * assertions; value mismatches are returned (count of wrong planes, the
 * first one described in `why`) so that a suite can finish and list them all.
 */
static int run_case(const gp_case *c, const void *input, const char *label, char *why, size_t why_len)
{
    char desc[400];
    describe(c, label, desc, sizeof desc);
    const clpool_dtype dt = c->dtype;
    clpool_shape ref_shape, lib_shape;
    ck_assert_msg(ref_global_pool_shape(&c->shape, &ref_shape) == 0, "%s: the reference rejects the shape", desc);
    cu_assert_ok(clpool_global_pool_output_shape(&c->shape, &lib_shape), "clpool_global_pool_output_shape", desc);
    cu_assert_shape_eq(&lib_shape, &ref_shape, desc);

    const int64_t n_in = ref_shape_elements(&c->shape), planes = ref_shape_elements(&ref_shape);
    const int64_t plane_size = planes ? n_in / planes : 0;
    void *want_bits = malloc((size_t)planes * 8 + 8);
    double *want = malloc((size_t)planes * sizeof(double) + 8), *scale = malloc((size_t)planes * sizeof(double) + 8);
    ck_assert(want_bits && want && scale);
    if (c->op == OP_MAX) {
        ck_assert_int_eq(ref_global_max_pool(dt, &c->shape, input, want_bits), 0);
    } else if (c->op == OP_AVG) {
        ck_assert_int_eq(ref_global_average_pool(dt, &c->shape, input, want, scale), 0);
    } else {
        ck_assert_int_eq(ref_global_lp_pool(dt, &c->shape, c->p, input, want), 0);
        for (int64_t i = 0; i < planes; ++i) scale[i] = 0.0; /* every term is >= 0: |ref| is the scale */
    }

    size_t lead;
    unsigned char *out_img = execute(c, input, n_in, planes, &lead, desc);
    const unsigned char *got = out_img + lead;
    int wrong = 0;
    for (int64_t i = 0; i < planes; ++i) {
        char msg[200];
        int bad;
        if (c->op == OP_MAX) {
            const uint64_t w = ref_load_bits(dt, want_bits, i), g = ref_load_bits(dt, got, i);
            bad = w != g;
            if (bad) {
                int64_t at_w = -1, at_g = -1; /* where the expected / returned bits first sit in the plane */
                for (int64_t j = 0; j < plane_size; ++j) {
                    const uint64_t b = ref_load_bits(dt, input, i * plane_size + j);
                    if (at_w < 0 && b == w) at_w = j;
                    if (at_g < 0 && b == g) at_g = j;
                }
                char where[48] = "not an input element";
                if (at_g >= 0) snprintf(where, sizeof where, "first at %lld", (long long)at_g);
                snprintf(msg, sizeof msg, "expected 0x%llx (%g, first at %lld), got 0x%llx (%g, %s)",
                         (unsigned long long)w, ref_load(dt, want_bits, i), (long long)at_w, (unsigned long long)g,
                         ref_load(dt, got, i), where);
            }
        } else {
            bad = check_value(c, want[i], scale[i], ref_load(dt, got, i), msg, sizeof msg);
        }
        if (bad && wrong++ == 0) {
            why[0] = '\0';
            cu_append(why, why_len, "%s: plane %lld: %s", desc, (long long)i, msg);
        }
    }
    if (wrong > 1) cu_append(why, why_len, " (and %d more planes)", wrong - 1);
    free(out_img);
    free(want_bits);
    free(want);
    free(scale);
    return wrong;
}

/* Runs a case to the end; a failure is printed and counted (cu_tally). */
static void tally_case(cu_tally *t, const gp_case *c, const void *input, const char *label)
{
    char why[1024] = "";
    cu_tally_add(t, run_case(c, input, label, why, sizeof why), why);
}

/* ------------------------------------------------------ random inputs */

static const double p_values[] = {1.0, 2.0, 3.0, 0.5, 2.5};

typedef enum value_mode { VALUES_POSITIVE, VALUES_MIXED, VALUES_INTEGERS } value_mode;

/* Special planes: none, NaN(s), +inf, -inf, +inf and -inf, NaN and inf. */
typedef enum special { SPECIAL_NONE, SPECIAL_NAN, SPECIAL_PINF, SPECIAL_NINF, SPECIAL_BOTH_INF, SPECIAL_NAN_INF } special;

static void put_special(ref_rng *r, clpool_dtype dtype, void *data, int64_t base, int64_t size, special kind)
{
    const uint64_t *nan = cu_nan_patterns(dtype);
    const int count = (int)ref_rng_range(r, 1, 3);
    for (int k = 0; k < count; ++k) {
        const int64_t at = base + ref_rng_range(r, 0, size - 1);
        switch (kind) {
        case SPECIAL_NAN: ref_store_bits(dtype, data, at, nan[ref_rng_range(r, 0, CU_N_NAN - 1)]); break;
        case SPECIAL_PINF: ref_store(dtype, data, at, INFINITY); break;
        case SPECIAL_NINF: ref_store(dtype, data, at, -INFINITY); break;
        case SPECIAL_BOTH_INF: ref_store(dtype, data, at, k % 2 ? -INFINITY : INFINITY); break;
        case SPECIAL_NAN_INF:
            if (k % 2) ref_store(dtype, data, at, INFINITY);
            else ref_store_bits(dtype, data, at, nan[ref_rng_range(r, 0, CU_N_NAN - 1)]);
            break;
        case SPECIAL_NONE: break;
        }
    }
}

/*
 * Fills planes x size elements: values of magnitude <= scale (positive, mixed
 * sign or small integers), zeros stored as +0.0 (the sign of a zero maximum is
 * tested separately); a plane gets special values with probability special_rate.
 */
static void fill_planes(ref_rng *r, clpool_dtype dtype, void *data, int64_t planes, int64_t size, value_mode mode,
                        double scale, double special_rate)
{
    for (int64_t i = 0; i < planes * size; ++i) {
        const double u = ref_rng_unit(r);
        double v = mode == VALUES_POSITIVE ? scale * (0.25 + 0.75 * u)
                   : mode == VALUES_MIXED  ? scale * (2.0 * u - 1.0)
                                           : (double)ref_rng_range(r, -3, 3) * scale / 3.0;
        ref_store(dtype, data, i, v);
        if (ref_load(dtype, data, i) == 0.0) ref_store(dtype, data, i, 0.0);
    }
    for (int64_t pl = 0; pl < planes && special_rate > 0; ++pl)
        if (ref_rng_chance(r, special_rate))
            put_special(r, dtype, data, pl * size, size, (special)ref_rng_range(r, SPECIAL_NAN, SPECIAL_NAN_INF));
}

/* Value scale that keeps every result finite in the output type (float16 tops out at 65504). */
static double value_scale(const gp_case *c, int64_t plane_size, double wanted)
{
    if (c->dtype != CLPOOL_FLOAT16 || c->op != OP_LP) return wanted;
    const double growth = pow((double)plane_size, 1.0 / (c->p < 1.0 ? c->p : 1.0));
    return fmin(wanted, 30000.0 / growth);
}

static void random_shape(ref_rng *r, clpool_shape *s)
{
    memset(s, 0, sizeof *s);
    s->rank = (int32_t)ref_rng_range(r, 3, 6);
    const int32_t ns = s->rank - 2;
    const double kind = ref_rng_unit(r);
    if (kind < 0.25) { /* tiny planes: one element */
        s->dims[0] = ref_rng_range(r, 1, 4);
        s->dims[1] = ref_rng_range(r, 1, 16);
        for (int32_t i = 0; i < ns; ++i) s->dims[2 + i] = 1;
    } else if (kind < 0.65) { /* small */
        static const int64_t hi[] = {0, 40, 12, 6, 4};
        s->dims[0] = ref_rng_range(r, 1, 3);
        s->dims[1] = ref_rng_range(r, 1, 6);
        for (int32_t i = 0; i < ns; ++i) s->dims[2 + i] = ref_rng_range(r, 1, hi[ns]);
    } else if (kind < 0.85) { /* few big planes: two passes */
        s->dims[0] = 1;
        s->dims[1] = ref_rng_range(r, 1, 3);
        int64_t rest = ref_rng_range(r, 2048, 30000);
        for (int32_t i = 0; i < ns - 1; ++i) {
            s->dims[2 + i] = ref_rng_range(r, 1, 4);
            rest /= s->dims[2 + i];
        }
        s->dims[1 + ns] = rest;
    } else { /* many small planes */
        s->dims[0] = ref_rng_range(r, 1, 4);
        s->dims[1] = ref_rng_range(r, 50, 400);
        for (int32_t i = 0; i < ns; ++i) s->dims[2 + i] = ref_rng_range(r, 1, 3);
    }
    if (ref_rng_chance(r, 0.03)) s->dims[ref_rng_range(r, 0, 1)] = 0; /* no planes */
}

static void random_suite(clpool_dtype dtype, uint64_t seed, int cases)
{
    if (!cu_dtype_runs(dtype, "global pool")) return;
    ref_rng r;
    ref_rng_seed(&r, seed);
    int per_op[3] = {0, 0, 0}, specials = 0;
    cu_tally t = {0, 0, ""};
    for (int k = 0; k < cases; ++k) {
        clpool_shape s;
        random_shape(&r, &s);
        const gp_op op = (gp_op)ref_rng_range(&r, OP_MAX, OP_LP);
        gp_case c = make_case(op, p_values[ref_rng_range(&r, 0, 4)], dtype, s.rank, s.dims);
        const size_t es = ref_dtype_size(dtype);
        c.in_off = es * (size_t)ref_rng_range(&r, 1, 9);
        c.out_off = es * (size_t)ref_rng_range(&r, 1, 9);
        const double a = ref_rng_unit(&r);
        c.api = a < 0.1 ? API_HOST : a < 0.55 ? API_OWN_QUEUE : API_CTX_QUEUE;
        c.want_event = ref_rng_chance(&r, 0.7);
        const int64_t n = ref_shape_elements(&s), planes = s.dims[0] * s.dims[1];
        const int64_t size = planes ? n / planes : 1;
        const value_mode mode = (value_mode)ref_rng_range(&r, VALUES_POSITIVE, VALUES_INTEGERS);
        const double scale = value_scale(&c, size, (double[]){1.0, 8.0, 100.0}[ref_rng_range(&r, 0, 2)]);
        const double special_rate = ref_rng_chance(&r, 0.4) ? 0.3 : 0.0;
        void *input = malloc((size_t)n * es + 8);
        ck_assert_ptr_nonnull(input);
        fill_planes(&r, dtype, input, planes, size, mode, scale, special_rate);
        char label[64];
        snprintf(label, sizeof label, "seed 0x%llx case %d", (unsigned long long)seed, k);
        tally_case(&t, &c, input, label);
        free(input);
        ++per_op[op];
        specials += special_rate > 0;
    }
    printf("global pool random %s: %d of %d cases passed (max %d, average %d, lp %d; %d with NaN/inf planes)\n",
           clpool_dtype_name(dtype), cases - t.failed, cases, per_op[0], per_op[1], per_op[2], specials);
    cu_tally_check(&t);
}

#define RANDOM_CASES 40

START_TEST(test_random_float32) { random_suite(CLPOOL_FLOAT32, 0x9001, RANDOM_CASES); }
END_TEST
START_TEST(test_random_float64) { random_suite(CLPOOL_FLOAT64, 0x9002, RANDOM_CASES); }
END_TEST
START_TEST(test_random_float16) { random_suite(CLPOOL_FLOAT16, 0x9003, RANDOM_CASES); }
END_TEST
START_TEST(test_random_bfloat16) { random_suite(CLPOOL_BFLOAT16, 0x9004, RANDOM_CASES); }
END_TEST

/* Each op and every p through the blocking host helpers, on a small and a two-pass shape. */
START_TEST(test_host_api)
{
    ref_rng r;
    ref_rng_seed(&r, 0x9101);
    static const int64_t small[] = {2, 3, 5, 7}, big[] = {1, 2, 3000};
    cu_tally tl = {0, 0, ""};
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        if (!cu_dtype_runs(dt, "global pool")) continue;
        for (int op = OP_MAX; op <= OP_LP; ++op) {
            for (int b = 0; b < 2; ++b) {
                gp_case c = make_case((gp_op)op, p_values[(t + (size_t)op + (size_t)b) % 5], dt, b ? 3 : 4,
                                      b ? big : small);
                c.api = API_HOST;
                const int64_t n = ref_shape_elements(&c.shape), planes = c.shape.dims[0] * c.shape.dims[1];
                void *input = malloc((size_t)n * 8);
                ck_assert_ptr_nonnull(input);
                fill_planes(&r, dt, input, planes, n / planes, VALUES_MIXED, value_scale(&c, n / planes, 4.0), 0.3);
                tally_case(&tl, &c, input, "host helper");
                free(input);
            }
        }
    }
    cu_tally_check(&tl);
}
END_TEST

/* --------------------------------------------- big shapes, accuracy */

/* 32 x 2048 planes of 7x7 (the ResNet head), once. */
START_TEST(test_many_small_planes)
{
    ref_rng r;
    ref_rng_seed(&r, 0x9201);
    gp_case c = make_case(OP_AVG, 0, CLPOOL_FLOAT32, 4, (int64_t[]){32, 2048, 7, 7});
    c.in_off = 64, c.out_off = 12;
    const int64_t n = ref_shape_elements(&c.shape);
    float *input = malloc((size_t)n * sizeof(float));
    ck_assert_ptr_nonnull(input);
    fill_planes(&r, CLPOOL_FLOAT32, input, 32 * 2048, 49, VALUES_MIXED, 10.0, 0.001);
    cu_tally t = {0, 0, ""};
    tally_case(&t, &c, input, "32x2048x7x7");
    free(input);
    cu_tally_check(&t);
}
END_TEST

/*
 * Plane sizes around the 16-lane vectors and the grouped kernels' limits
 * (on CPUs: 16 float32/float64 planes per work-item, the sums up to 256
 * elements, a ragged end as an overlapping vector whose counted lanes are
 * dropped): 35 planes (two whole groups and a short one) of 15, 16, 17, 49,
 * 255, 256 and 257 elements, every op and p, a third of the planes with
 * NaN/inf.
 */
START_TEST(test_group_sizes)
{
    ref_rng r;
    ref_rng_seed(&r, 0x9301);
    static const int64_t sizes[] = {15, 16, 17, 49, 255, 256, 257};
    cu_tally t = {0, 0, ""};
    for (size_t d = 0; d < 2; ++d) {
        const clpool_dtype dt = d ? CLPOOL_FLOAT64 : CLPOOL_FLOAT32;
        if (!cu_dtype_runs(dt, "global pool")) continue;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            const int64_t dims[] = {5, 7, sizes[i]};
            for (int op = OP_MAX; op <= OP_LP; ++op) {
                for (int k = 0; k < (op == OP_LP ? 5 : 1); ++k) {
                    gp_case c = make_case((gp_op)op, p_values[k], dt, 3, dims);
                    c.api = (run_api)((i + (size_t)op + (size_t)k) % 3);
                    void *input = malloc((size_t)(35 * sizes[i]) * 8);
                    ck_assert_ptr_nonnull(input);
                    fill_planes(&r, dt, input, 35, sizes[i], VALUES_MIXED, value_scale(&c, sizes[i], 8.0), 0.3);
                    char label[64];
                    snprintf(label, sizeof label, "35 planes of %lld", (long long)sizes[i]);
                    tally_case(&t, &c, input, label);
                    free(input);
                }
            }
        }
    }
    cu_tally_check(&t);
}
END_TEST

/*
 * 1x3x1024x1024 float32 (two passes): plane 0 mixed-sign finite, plane 1
 * positive with one +inf in the middle, plane 2 with three different NaNs,
 * the first one late in the plane; every op on the same data.
 */
START_TEST(test_huge_planes)
{
    ref_rng r;
    ref_rng_seed(&r, 0x9301);
    const int64_t plane = 1024 * 1024;
    float *input = malloc((size_t)(3 * plane) * sizeof(float));
    ck_assert_ptr_nonnull(input);
    fill_planes(&r, CLPOOL_FLOAT32, input, 1, plane, VALUES_MIXED, 50.0, 0.0);
    fill_planes(&r, CLPOOL_FLOAT32, input + plane, 1, plane, VALUES_POSITIVE, 50.0, 0.0);
    fill_planes(&r, CLPOOL_FLOAT32, input + 2 * plane, 1, plane, VALUES_POSITIVE, 50.0, 0.0);
    input[7] = 1000.0f; /* plane 0's maximum, early */
    input[plane + plane / 2 + 3] = INFINITY;
    ref_store_bits(CLPOOL_FLOAT32, input, 2 * plane + 700001, cu_nan_patterns(CLPOOL_FLOAT32)[2]);
    ref_store_bits(CLPOOL_FLOAT32, input, 2 * plane + 900000, cu_nan_patterns(CLPOOL_FLOAT32)[1]);
    ref_store_bits(CLPOOL_FLOAT32, input, 2 * plane + plane - 1, cu_nan_patterns(CLPOOL_FLOAT32)[3]);
    const int64_t dims[] = {1, 3, 1024, 1024};
    cu_tally t = {0, 0, ""};
    for (int op = OP_MAX; op <= OP_LP; ++op) {
        gp_case c = make_case((gp_op)op, 2.0, CLPOOL_FLOAT32, 4, dims);
        c.api = op == OP_AVG ? API_OWN_QUEUE : API_CTX_QUEUE;
        tally_case(&t, &c, input, "1x3x1024x1024");
    }
    free(input);
    cu_tally_check(&t);
}
END_TEST

/*
 * The accuracy requirement: one 2*10^6-element plane of positive float32
 * values just above 1 (a plain float32 running sum loses ~5e-4 of it).
 * Average and Lp (p = 1, 2, 3) within 1e-5 relative; float16 and bfloat16
 * planes of the same size within their tolerances.
 */
START_TEST(test_accuracy_large_plane)
{
    ref_rng r;
    ref_rng_seed(&r, 0x9401);
    const int64_t n = 2000 * 1000, dims[] = {1, 1, 2000, 1000};
    float *input = malloc((size_t)n * sizeof(float));
    uint16_t *half = malloc((size_t)n * sizeof(uint16_t));
    ck_assert(input && half);
    for (int64_t i = 0; i < n; ++i) input[i] = 1.0f + (float)ref_rng_unit(&r) * 0x1p-7f;
    static const struct {
        gp_op op;
        double p;
    } runs[] = {{OP_AVG, 0}, {OP_LP, 1.0}, {OP_LP, 2.0}, {OP_LP, 3.0}};
    cu_tally tl = {0, 0, ""};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
        gp_case c = make_case(runs[k].op, runs[k].p, CLPOOL_FLOAT32, 4, dims);
        tally_case(&tl, &c, input, "2*10^6 positive float32");
    }
    for (int t = 0; t < 2; ++t) {
        const clpool_dtype dt = t ? CLPOOL_BFLOAT16 : CLPOOL_FLOAT16;
        for (int64_t i = 0; i < n; ++i) ref_store(dt, half, i, 0.5 + ref_rng_unit(&r));
        gp_case c = make_case(OP_AVG, 0, dt, 4, dims);
        tally_case(&tl, &c, half, "2*10^6 positive 16-bit");
        c = make_case(OP_LP, 2.0, dt, 4, dims);
        tally_case(&tl, &c, half, "2*10^6 positive 16-bit");
    }
    free(input);
    free(half);
    cu_tally_check(&tl);
}
END_TEST

/* ------------------------------------------------ accuracy, pinned */

/*
 * The documented bound (README, Semantics): GlobalAveragePool's sum within ACC_SUM_ULPS units of float32's
 * u (2^-24; float64's 2^-53) of the sum of |terms|, then one rounding to the output type. Adversarial
 * planes against a long double sum: one huge value among 10^6 and 10^7 small ones, whose partial sums a
 * plain combination drops whole (each below half the huge value's ulp); alternating +-a with small
 * residues (large cancellation); float16 and bfloat16 planes whose sums far exceed float16's range. A sum
 * without compensation misses by hundreds of units there, and float16 accumulation overflows.
 */
#define ACC_SUM_ULPS 24.0

static void pinned_plane(clpool_dtype dtype, int64_t n, int kind, void *data, long double *exact, long double *abs)
{
    ref_rng r;
    ref_rng_seed(&r, 0xacc0u + (uint64_t)kind);
    *exact = *abs = 0;
    for (int64_t i = 0; i < n; ++i) {
        double v;
        if (kind == 0) /* huge first; a part of ~2000 small ones sums below half its ulp (128, 256 for float64) */
            v = i == 0 ? (dtype == CLPOOL_FLOAT64 ? 0x1p60 : 0x1p30) : 0.03 + 0.01 * ref_rng_unit(&r);
        else if (kind == 1) v = (i % 2 ? -1.0e4 : 1.0e4) + ref_rng_unit(&r) * 0.01; /* cancellation */
        else v = 0.5 + ref_rng_unit(&r);                                             /* 16-bit: sums past 65504 */
        ref_store(dtype, data, i, v);
        const long double stored = ref_load(dtype, data, i); /* the value the op reads */
        if (i > 0) *exact += stored; /* element 0 last: long double would drop small ones added to 2^60 */
        *abs += fabsl(stored);
    }
    *exact += ref_load(dtype, data, 0);
}

START_TEST(test_accuracy_pinned)
{
    static const struct {
        clpool_dtype dtype;
        int64_t n;
        int kind;
    } planes[] = {{CLPOOL_FLOAT32, 1000000, 0}, {CLPOOL_FLOAT32, 10000000, 0}, {CLPOOL_FLOAT32, 1000000, 1},
                  {CLPOOL_FLOAT64, 1000000, 0}, {CLPOOL_FLOAT16, 1000000, 2}, {CLPOOL_BFLOAT16, 1000000, 2}};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; ++i) {
        const clpool_dtype dt = planes[i].dtype;
        if (!cu_dtype_runs(dt, "pinned accuracy")) continue;
        const int64_t n = planes[i].n;
        void *data = malloc((size_t)n * ref_dtype_size(dt));
        ck_assert_ptr_nonnull(data);
        long double exact, abs;
        pinned_plane(dt, n, planes[i].kind, data, &exact, &abs);
        const clpool_shape shape = {3, {1, 1, n}};
        unsigned char out[8];
        cu_assert_ok(clpool_global_average_pool_host(cu_ctx, dt, &shape, data, out), "GlobalAveragePool", "pinned");
        const double u = dt == CLPOOL_FLOAT64 ? 0x1p-53 : 0x1p-24;
        /* the bound on the sum, divided by n, plus the output's rounding (an ulp of the mean's binade at most) */
        const long double mean = exact / (long double)n;
        const double out_ulp = dt == CLPOOL_FLOAT64 ? 0x1p-52 : dt == CLPOOL_FLOAT32 ? 0x1p-23
                             : dt == CLPOOL_FLOAT16 ? 0x1p-10 : 0x1p-7;
        const long double bound = ACC_SUM_ULPS * u * abs / (long double)n + out_ulp * fabsl(mean);
        const long double got = ref_load(dt, out, 0), err = fabsl(got - mean);
        ck_assert_msg(err <= bound,
                      "%s plane %zu (%lld elements): mean %.12Lg, got %.12Lg, error %.3Lg > bound %.3Lg (%.1Lf u of "
                      "the sum of |x|)",
                      clpool_dtype_name(dt), i, (long long)n, mean, got, err, bound,
                      err * (long double)n / ((long double)u * abs));
        printf("note: pinned accuracy, %s plane %zu: error %.2Lf u of the sum of |x| (bound %.0f)\n",
               clpool_dtype_name(dt), i, err * (long double)n / ((long double)u * abs), ACC_SUM_ULPS);
        free(data);
    }
}
END_TEST

/*
 * One rounding, to nearest even: float16 and bfloat16 planes of 1024 elements whose float32 sum and mean are
 * exact, the mean at a tie (to the even neighbour), just above a midpoint, and at a midpoint whose lower
 * neighbour is odd, so that truncation or a rounding of its own anywhere gives other bits.
 */
START_TEST(test_rounding_pinned)
{
    static const clpool_dtype dts[] = {CLPOOL_FLOAT16, CLPOOL_BFLOAT16};
    /* plane q: (1024 - m) elements of lo + m of lo + step, with lo = 1 + a * step; the mean is lo + m/1024 step */
    static const struct { int a, m; } planes[] = {{0, 512}, {1, 512}, {0, 768}, {1, 768}, {2, 256}, {5, 512}};
    enum { P = sizeof planes / sizeof planes[0], N = 1024 };
    for (size_t t = 0; t < 2; ++t) {
        const clpool_dtype dt = dts[t];
        const double step = dt == CLPOOL_FLOAT16 ? 0x1p-10 : 0x1p-7;
        uint16_t in[P * N], out[P], want[P];
        for (int q = 0; q < P; ++q) {
            const double lo = 1.0 + planes[q].a * step, sign = q % 2 ? -1.0 : 1.0;
            for (int e = 0; e < N; ++e) ref_store(dt, in, q * N + e, sign * (e < N - planes[q].m ? lo : lo + step));
            ref_store(dt, want, q, sign * (lo + step * planes[q].m / N)); /* exact in float32, rounded once */
        }
        const clpool_shape shape = {4, {1, P, 32, 32}};
        cu_assert_ok(clpool_global_average_pool_host(cu_ctx, dt, &shape, in, out), "GlobalAveragePool", "rounding");
        for (int q = 0; q < P; ++q)
            ck_assert_msg(out[q] == want[q], "%s plane %d: bits 0x%04x, expected 0x%04x (round to nearest even)",
                          clpool_dtype_name(dt), q, out[q], want[q]);
    }
}
END_TEST

/* ------------------------------------------------- special values */

/*
 * Six planes per dtype, with specials spread over the plane (so they land in
 * different partial sums of the two-pass path): +inf alone, +inf with -inf,
 * NaNs, -inf only, all-negative finite, NaN with +inf. Plane sizes 5 and 5000.
 */
START_TEST(test_nan_and_inf)
{
    cu_tally tl = {0, 0, ""};
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        if (!cu_dtype_runs(dt, "global pool")) continue;
        const uint64_t *nan = cu_nan_patterns(dt);
        for (int big = 0; big < 2; ++big) {
            const int64_t size = big ? 5000 : 5, planes = 6;
            const int64_t at[3] = {size / 5, size / 2, size - 1};
            unsigned char *input = malloc((size_t)(planes * size) * 8);
            ck_assert_ptr_nonnull(input);
            /* float16 Lp with p = 0.5 over 5000 elements would overflow 65504 at magnitude 1. */
            const double m = dt == CLPOOL_FLOAT16 && big ? 0x1p-11 : 1.0;
            for (int64_t i = 0; i < planes * size; ++i) ref_store(dt, input, i, m * (1.0 + (double)(i % 7) / 4.0));
            ref_store(dt, input, 0 * size + at[1], INFINITY);
            ref_store(dt, input, 1 * size + at[0], INFINITY);
            ref_store(dt, input, 1 * size + at[2], -INFINITY);
            ref_store_bits(dt, input, 2 * size + at[1], nan[2]);
            ref_store_bits(dt, input, 2 * size + at[2], nan[1]);
            for (int64_t i = 0; i < size; ++i) ref_store(dt, input, 3 * size + i, -INFINITY);
            for (int64_t i = 0; i < size; ++i) ref_store(dt, input, 4 * size + i, -m * (1.0 + (double)(i % 5) / 2.0));
            ref_store(dt, input, 4 * size + at[2], -0.5 * m);
            ref_store(dt, input, 5 * size + at[0], INFINITY);
            ref_store_bits(dt, input, 5 * size + at[2], nan[3]);
            const clpool_shape shape = {3, {2, 3, size}};

            /* Pin the reference's IEEE behaviour first. */
            double mean[6], lp[6];
            unsigned char mx[6 * 8];
            ck_assert_int_eq(ref_global_average_pool(dt, &shape, input, mean, NULL), 0);
            ck_assert_int_eq(ref_global_lp_pool(dt, &shape, 2.0, input, lp), 0);
            ck_assert_int_eq(ref_global_max_pool(dt, &shape, input, mx), 0);
            ck_assert(mean[0] == INFINITY && isnan(mean[1]) && isnan(mean[2]) && mean[3] == -INFINITY &&
                      isfinite(mean[4]) && isnan(mean[5]));
            ck_assert(lp[0] == INFINITY && lp[1] == INFINITY && isnan(lp[2]) && lp[3] == INFINITY && isfinite(lp[4]) &&
                      isnan(lp[5]));
            ck_assert(ref_load(dt, mx, 0) == INFINITY && ref_load(dt, mx, 1) == INFINITY &&
                      ref_load_bits(dt, mx, 2) == nan[2] && ref_load(dt, mx, 3) == -INFINITY &&
                      ref_load(dt, mx, 4) == -0.5 * m && ref_load_bits(dt, mx, 5) == nan[3]);

            for (int op = OP_MAX; op <= OP_LP; ++op) {
                const int n_p = op == OP_LP ? 5 : 1;
                for (int k = 0; k < n_p; ++k) {
                    gp_case c = make_case((gp_op)op, p_values[k], dt, 3, shape.dims);
                    c.api = (run_api)((op + k + big) % 3);
                    tally_case(&tl, &c, input, big ? "NaN/inf planes of 5000" : "NaN/inf planes of 5");
                }
            }
            free(input);
        }
    }
    cu_tally_check(&tl);
}
END_TEST

/*
 * GlobalMaxPool ties of -0.0 and +0.0: the first maximum's bits, as MaxPool
 * and Max do (and as a one-pass loop does). Pairs of zeros / NaNs sit at
 * neighbouring and far-apart positions, so a reduction split into
 * interleaved or blocked partial results sees them in another order.
 * Plane sizes 4 (one pass), 49 (34 planes: on CPUs, float maxima of 16
 * planes per work-item, the last group short), 4096 and 2^20 (two passes).
 */
START_TEST(test_max_order_across_partials)
{
    cu_tally tl = {0, 0, ""};
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        if (!cu_dtype_runs(dt, "global pool")) continue;
        const uint64_t *nan = cu_nan_patterns(dt);
        for (int big = 0; big < 4; ++big) {
            static const int64_t sizes[4] = {4, 49, 4096, 1 << 20};
            const int64_t size = sizes[big], planes = size == 49 ? 34 : 6;
            unsigned char *input = malloc((size_t)(planes * size) * 8);
            ck_assert_ptr_nonnull(input);
            for (int64_t i = 0; i < planes * size; ++i) ref_store(dt, input, i, -1.0 - (double)(i % 3));
            /* plane: {first position, its bits}, {second position, its bits} */
            const uint64_t nz = dt == CLPOOL_FLOAT64 ? 0x8000000000000000ull
                                : dt == CLPOOL_FLOAT32 ? 0x80000000u : 0x8000u;
            const struct {
                int64_t at0;
                uint64_t b0;
                int64_t at1;
                uint64_t b1;
            } pairs[6] = {
                {1, nz, size - 1, 0},                              /* -0 early, +0 last */
                {0, 0, size - 2, nz},                              /* +0 first, -0 late */
                {3, nz, 3 + (size > 4), 0},                        /* neighbours: -0, then +0 */
                {size / 2 - 1, nz, size / 2, 0},                   /* neighbours in the middle */
                {3, nan[2], 3 + (size > 4), nan[0]}, /* two NaNs, neighbours */
                {size / 3, nan[1], size - 1, nan[2]}, /* two NaNs, far apart */
            };
            /* Planes 6 and up of the 49-element case: +-0 pairs only in 16..21 (a
             * NaN-free group of 16 with zero maxima), NaN pairs in 32..33 (the short group). */
            for (int64_t pl = 0; pl < planes; ++pl) {
                const int k = pl < 6 ? (int)pl : pl >= 16 && pl < 22 ? (int)(pl - 16) % 4 : pl >= 32 ? (int)pl - 28 : -1;
                if (k < 0) continue;
                ref_store_bits(dt, input, pl * size + pairs[k].at1, pairs[k].b1);
                ref_store_bits(dt, input, pl * size + pairs[k].at0, pairs[k].b0);
            }
            gp_case c = make_case(OP_MAX, 0, dt, 3, (int64_t[]){2, planes / 2, size});
            static const char *what[4] = {"tie order, plane 4", "tie order, 34 planes of 49", "tie order, plane 4096",
                                          "tie order, plane 2^20"};
            tally_case(&tl, &c, input, what[big]);
            free(input);
        }
    }
    cu_tally_check(&tl);
}
END_TEST

/* ------------------------------------------- empty output, events */

/* N = 0 (and C = 0): success, and the returned event waits for the wait list. */
START_TEST(test_empty_output_and_wait_list)
{
    cl_mem in = cu_zero_buffer(256), out = cu_zero_buffer(256);
    const clpool_shape empty = {4, {0, 3, 4, 4}}, no_channels = {3, {2, 0, 9}};
    for (int op = OP_MAX; op <= OP_LP; ++op) {
        gp_case c = make_case((gp_op)op, 2.0, CLPOOL_FLOAT32, 4, empty.dims);
        cl_event gate = cu_user_event(), done = NULL;
        cu_assert_ok(call_enqueue(&c, NULL, in, out, 1, &gate, &done), op_names[op], "empty, gated");
        ck_assert_ptr_nonnull(done);
        cu_assert_pending(clpool_context_cl_queue(cu_ctx), done, "empty %s", op_names[op]);
        ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        cu_wait_done(clpool_context_cl_queue(cu_ctx), done, op_names[op]);
        clReleaseEvent(done);
        clReleaseEvent(gate);

        /* C = 0 on the caller's queue, float16, no wait list. */
        c = make_case((gp_op)op, 0.5, CLPOOL_FLOAT16, 3, no_channels.dims);
        done = NULL;
        cu_assert_ok(call_enqueue(&c, cu_own_queue, in, out, 0, NULL, &done), op_names[op], "C = 0");
        ck_assert_ptr_nonnull(done);
        ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);

        /* Without an event, and through the host helper. */
        ck_assert_int_eq(call_enqueue(&c, NULL, in, out, 0, NULL, NULL), CLPOOL_SUCCESS);
        unsigned char host_in[1], host_out[1];
        ck_assert_int_eq(call_host(&c, host_in, host_out), CLPOOL_SUCCESS);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}
END_TEST

/* A two-pass reduction gated by a user event on the caller's (out-of-order) queue. */
START_TEST(test_wait_list_honoured)
{
    const int64_t size = 50000;
    float *input = malloc((size_t)size * sizeof(float));
    ck_assert_ptr_nonnull(input);
    for (int64_t i = 0; i < size; ++i) input[i] = (float)(i % 100);
    cl_mem in = cu_buffer_from(input, (size_t)size * sizeof(float));
    float init[2] = {-1.0f, -1.0f};
    cl_mem out = cu_buffer_from(init, sizeof init);
    for (int op = OP_MAX; op <= OP_LP; ++op) {
        gp_case c = make_case((gp_op)op, 1.0, CLPOOL_FLOAT32, 3, (int64_t[]){1, 1, size});
        c.in_off = 0, c.out_off = 4;
        cl_event gate = cu_user_event(), done = NULL;
        cu_assert_ok(call_enqueue(&c, cu_own_queue, in, out, 1, &gate, &done), op_names[op], "gated");
        cu_assert_pending(cu_own_queue, done, "%s", op_names[op]);
        float got[2];
        cu_read_back(clpool_context_cl_queue(cu_ctx), out, got, sizeof got, op_names[op]);
        ck_assert_msg(got[1] == -1.0f, "%s wrote its output before the gate opened", op_names[op]);
        ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(cu_own_queue, out, CL_TRUE, 0, sizeof got, got, 1, &done, NULL),
                         CL_SUCCESS);
        const float want = op == OP_MAX ? 99.0f : op == OP_AVG ? 49.5f : 49.5f * (float)size;
        ck_assert_msg(fabsf(got[1] - want) <= 1e-5f * want, "%s: got %g, expected %g", op_names[op], got[1], want);
        ck_assert_msg(got[0] == -1.0f, "%s wrote before its output offset", op_names[op]);
        clReleaseEvent(done);
        clReleaseEvent(gate);
        const float reset = -1.0f;
        ck_assert_int_eq(clEnqueueWriteBuffer(cu_own_queue, out, CL_TRUE, 4, 4, &reset, 0, NULL, NULL), CL_SUCCESS);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(input);
}
END_TEST

/* ------------------------------------------------------- validation */

#define VBUF 4096 /* every buffer; the default 1x2x4x4 float32 call needs 128 / 8 bytes */

typedef struct vcall {
    gp_op op;
    double p;
    clpool_context *ctx;
    clpool_dtype dtype;
    clpool_shape shape;
    const clpool_shape *shape_ptr;
    cl_mem input, output;
    size_t in_off, out_off;
    cl_uint num_wait;
    const cl_event *wait;
} vcall;

typedef struct vcase {
    const char *name;
    gp_op op;
    void (*mutate)(vcall *v);
    clpool_status status;
    const char *message; /* substring of clpool_last_error(), after the function name */
    int shape_fn_too;    /* clpool_global_pool_output_shape must reject it the same way */
} vcase;

static void m_none(vcall *v) { (void)v; }
static void m_null_ctx(vcall *v) { v->ctx = NULL; }
static void m_rank_2(vcall *v) { v->shape.rank = 2; }
static void m_rank_0(vcall *v) { v->shape.rank = 0; }
static void m_rank_13(vcall *v) { v->shape.rank = CLPOOL_MAX_RANK + 1; }
static void m_int32(vcall *v) { v->dtype = CLPOOL_INT32; }
static void m_uint8(vcall *v) { v->dtype = CLPOOL_UINT8; }
static void m_int64(vcall *v) { v->dtype = CLPOOL_INT64; }
static void m_bogus_dtype(vcall *v) { v->dtype = (clpool_dtype)99; }
static void m_p_zero(vcall *v) { v->p = 0.0; }
static void m_p_negative(vcall *v) { v->p = -2.0; }
static void m_p_inf(vcall *v) { v->p = INFINITY; }
static void m_p_nan(vcall *v) { v->p = NAN; }
static void m_zero_spatial(vcall *v) { v->shape.dims[3] = 0; }
static void m_zero_spatial_n0(vcall *v) { v->shape.dims[0] = 0, v->shape.dims[2] = 0; }
static void m_negative_dim(vcall *v) { v->shape.dims[1] = -1; }
static void m_count_overflow(vcall *v) { v->shape.dims[0] = v->shape.dims[1] = INT64_C(1) << 32; }
static void m_bytes_overflow(vcall *v) { v->shape.dims[0] = INT64_C(1) << 56; } /* 2^61 elements */
static void m_spatial_overflow_n0(vcall *v) { v->shape.dims[0] = 0, v->shape.dims[2] = v->shape.dims[3] = INT64_C(1) << 32; }
static void m_null_shape(vcall *v) { v->shape_ptr = NULL; }
static void m_null_input(vcall *v) { v->input = NULL; }
static void m_null_output(vcall *v) { v->output = NULL; }
static void m_input_too_small(vcall *v) { v->in_off = VBUF - 64; }
static void m_output_too_small(vcall *v) { v->out_off = VBUF - 4; }
static void m_input_misaligned(vcall *v) { v->in_off = 2; }
static void m_output_misaligned(vcall *v) { v->dtype = CLPOOL_FLOAT64, v->out_off = 4; }
static void m_half_misaligned(vcall *v) { v->dtype = CLPOOL_BFLOAT16, v->in_off = 7; }
static void m_wait_mismatch(vcall *v) { v->num_wait = 1, v->wait = NULL; }

static const vcase vcases[] = {
    {"valid max", OP_MAX, m_none, CLPOOL_SUCCESS, "", 1},
    {"valid average", OP_AVG, m_none, CLPOOL_SUCCESS, "", 1},
    {"valid lp", OP_LP, m_none, CLPOOL_SUCCESS, "", 1},
    {"NULL ctx", OP_AVG, m_null_ctx, CLPOOL_ERROR_INVALID_ARGUMENT, "ctx is NULL", 0},
    {"rank 2", OP_MAX, m_rank_2, CLPOOL_ERROR_INVALID_SHAPE, "input rank 2 must be >= 3", 1},
    {"rank 0", OP_LP, m_rank_0, CLPOOL_ERROR_INVALID_SHAPE, "input rank 0 must be >= 3", 1},
    {"rank 13", OP_AVG, m_rank_13, CLPOOL_ERROR_INVALID_SHAPE, "rank 13 is outside 0..12", 1},
    {"int32", OP_AVG, m_int32, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int32 (6) is not supported by GlobalAveragePool",
     0},
    {"uint8", OP_MAX, m_uint8, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype uint8 (2) is not supported by GlobalMaxPool", 0},
    {"int64", OP_LP, m_int64, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int64 (7) is not supported by GlobalLpPool", 0},
    {"dtype 99", OP_MAX, m_bogus_dtype, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "(99) is not supported by GlobalMaxPool", 0},
    {"p = 0", OP_LP, m_p_zero, CLPOOL_ERROR_INVALID_ARGUMENT, "p = 0 must be finite and > 0", 0},
    {"p < 0", OP_LP, m_p_negative, CLPOOL_ERROR_INVALID_ARGUMENT, "p = -2 must be finite and > 0", 0},
    {"p = inf", OP_LP, m_p_inf, CLPOOL_ERROR_INVALID_ARGUMENT, "p = inf must be finite and > 0", 0},
    {"p = NaN", OP_LP, m_p_nan, CLPOOL_ERROR_INVALID_ARGUMENT, "nan must be finite and > 0", 0},
    {"zero spatial dim", OP_AVG, m_zero_spatial, CLPOOL_ERROR_INVALID_SHAPE,
     "spatial dim 1 is 0; a global pool needs at least one element per plane", 1},
    {"zero spatial dim with N = 0", OP_MAX, m_zero_spatial_n0, CLPOOL_ERROR_INVALID_SHAPE, "spatial dim 0 is 0", 1},
    {"negative dim", OP_LP, m_negative_dim, CLPOOL_ERROR_INVALID_SHAPE, "input shape dim 1 is negative", 1},
    {"element count overflow", OP_MAX, m_count_overflow, CLPOOL_ERROR_OVERFLOW,
     "input shape element count overflows int64", 1},
    {"byte size overflow", OP_AVG, m_bytes_overflow, CLPOOL_ERROR_OVERFLOW, "input shape byte size overflows size_t", 1},
    {"spatial size overflow with N = 0", OP_LP, m_spatial_overflow_n0, CLPOOL_ERROR_OVERFLOW,
     "the spatial size of the input overflows int64", 1},
    {"NULL shape", OP_MAX, m_null_shape, CLPOOL_ERROR_INVALID_ARGUMENT, "input shape is NULL", 1},
    {"NULL input", OP_AVG, m_null_input, CLPOOL_ERROR_INVALID_ARGUMENT, "input buffer is NULL", 0},
    {"NULL output", OP_LP, m_null_output, CLPOOL_ERROR_INVALID_ARGUMENT, "output buffer is NULL", 0},
    {"input buffer too small", OP_MAX, m_input_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "input buffer holds 4096 bytes but offset 4032 + 128 bytes are needed", 0},
    {"output buffer too small", OP_LP, m_output_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "output buffer holds 4096 bytes but offset 4092 + 8 bytes are needed", 0},
    {"input offset misaligned", OP_AVG, m_input_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "input offset 2 is not a multiple of the element size 4", 0},
    {"output offset misaligned", OP_MAX, m_output_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "output offset 4 is not a multiple of the element size 8", 0},
    {"bfloat16 offset misaligned", OP_LP, m_half_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "input offset 7 is not a multiple of the element size 2", 0},
    {"wait list mismatch", OP_AVG, m_wait_mismatch, CLPOOL_ERROR_INVALID_ARGUMENT,
     "event_wait_list must be NULL exactly when num_events_in_wait_list is 0", 0},
};
#define N_VCASES ((int)(sizeof vcases / sizeof vcases[0]))

static const char *const enqueue_names[] = {"clpool_enqueue_global_max_pool", "clpool_enqueue_global_average_pool",
                                            "clpool_enqueue_global_lp_pool"};

START_TEST(test_validation)
{
    const vcase *vc = &vcases[_i];
    vcall v;
    memset(&v, 0, sizeof v);
    v.op = vc->op;
    v.p = 2.0;
    v.ctx = cu_ctx;
    v.dtype = CLPOOL_FLOAT32;
    v.shape = (clpool_shape){4, {1, 2, 4, 4}};
    v.shape_ptr = &v.shape;
    v.input = cu_zero_buffer(VBUF);
    v.output = cu_zero_buffer(VBUF);
    cl_mem mems[2] = {v.input, v.output};
    vc->mutate(&v);
    if (v.dtype == CLPOOL_FLOAT64 && !cu_dtype_runs(v.dtype, "global pool")) {
        clReleaseMemObject(mems[0]);
        clReleaseMemObject(mems[1]);
        return;
    }

    cl_event ev = NULL;
    clpool_status st;
    switch (v.op) {
    case OP_MAX:
        st = clpool_enqueue_global_max_pool(v.ctx, NULL, v.dtype, v.shape_ptr, v.input, v.in_off, v.output, v.out_off,
                                            v.num_wait, v.wait, &ev);
        break;
    case OP_AVG:
        st = clpool_enqueue_global_average_pool(v.ctx, NULL, v.dtype, v.shape_ptr, v.input, v.in_off, v.output,
                                                v.out_off, v.num_wait, v.wait, &ev);
        break;
    default:
        st = clpool_enqueue_global_lp_pool(v.ctx, NULL, v.p, v.dtype, v.shape_ptr, v.input, v.in_off, v.output,
                                           v.out_off, v.num_wait, v.wait, &ev);
        break;
    }
    cu_assert_enqueue_status(vc->name, enqueue_names[v.op], st, ev, vc->status, vc->message);
    if (vc->shape_fn_too) {
        clpool_shape out;
        const clpool_status st2 = clpool_global_pool_output_shape(v.shape_ptr, &out);
        cu_assert_status(vc->name, "clpool_global_pool_output_shape", st2, vc->status, vc->message);
    }
    clReleaseMemObject(mems[0]);
    clReleaseMemObject(mems[1]);
}
END_TEST

/* Host helpers validate like the enqueue calls; the shape function needs no device. */
START_TEST(test_validation_host_and_shape)
{
    const clpool_shape ok = {5, {2, 3, 4, 5, 6}};
    float in[720], out[6];
    memset(in, 0, sizeof in);
    ck_assert_int_eq(clpool_global_lp_pool_host(cu_ctx, -1.0, CLPOOL_FLOAT32, &ok, in, out), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "p = -1 must be finite and > 0"));
    ck_assert_int_eq(clpool_global_max_pool_host(cu_ctx, CLPOOL_INT16, &ok, in, out), CLPOOL_ERROR_UNSUPPORTED_DTYPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "not supported by GlobalMaxPool"));
    const clpool_shape rank2 = {2, {3, 4}};
    ck_assert_int_eq(clpool_global_average_pool_host(cu_ctx, CLPOOL_FLOAT32, &rank2, in, out), CLPOOL_ERROR_INVALID_SHAPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "input rank 2 must be >= 3"));

    clpool_shape s;
    for (int32_t rank = 3; rank <= CLPOOL_MAX_RANK; ++rank) {
        clpool_shape in_shape = {rank, {0}}, want;
        for (int32_t i = 0; i < rank; ++i) in_shape.dims[i] = 1 + (i * 3) % 4;
        ck_assert_int_eq(clpool_global_pool_output_shape(&in_shape, &s), CLPOOL_SUCCESS);
        ck_assert_int_eq(ref_global_pool_shape(&in_shape, &want), 0);
        ck_assert_int_eq(s.rank, want.rank);
        for (int32_t i = 0; i < rank; ++i) ck_assert_int_eq(s.dims[i], want.dims[i]);
    }
    ck_assert_int_eq(clpool_global_pool_output_shape(&ok, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "clpool_global_pool_output_shape: output is NULL"));
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("global_pool");
    TCase *tc = cu_tcase(s, "random", 1);
    tcase_add_test(tc, test_random_float32);
    tcase_add_test(tc, test_random_float64);
    tcase_add_test(tc, test_random_float16);
    tcase_add_test(tc, test_random_bfloat16);
    tcase_add_test(tc, test_host_api);

    tc = cu_tcase(s, "large", 1);
    tcase_add_test(tc, test_many_small_planes);
    tcase_add_test(tc, test_group_sizes);
    tcase_add_test(tc, test_huge_planes);
    tcase_add_test(tc, test_accuracy_large_plane);
    tcase_add_test(tc, test_accuracy_pinned);
    tcase_add_test(tc, test_rounding_pinned);

    tc = cu_tcase(s, "semantics", 1);
    tcase_add_test(tc, test_nan_and_inf);
    tcase_add_test(tc, test_max_order_across_partials);

    tc = cu_tcase(s, "events", 1);
    tcase_add_test(tc, test_empty_output_and_wait_list);
    tcase_add_test(tc, test_wait_list_honoured);

    tc = cu_tcase(s, "validation", 1);
    tcase_add_loop_test(tc, test_validation, 0, N_VCASES);
    tcase_add_test(tc, test_validation_host_and_shape);

    return cu_run_suite(s, CK_ENV);
}
