/*
 * AveragePool and LpPool suite: random cases with fixed seeds over every
 * attribute (rank, kernel, strides, dilations, pads, ceil_mode, auto_pad,
 * count_include_pad, p) and every float dtype, with NaN, infinities, -0 and
 * float16's largest values, against tests/reference.c's long double
 * ref_sum_pool; hand-checked divisors; the planned path of typical calls;
 * and every bad-input path's status and message.
 *
 * The general kernel (kernels/sum_pool_nd.cl) compiles in the dtype, the
 * op, p's kind, the spatial rank and the last dim's stride, so each (dtype,
 * op) draws its rank and last stride from a small fixed set, shared with
 * test_kinds and test_tiers; the row kernels (sum_pool_rows.cl) also compile
 * in the window and the lanes, so 2-D and 3-D windows come from the
 * suite-wide catalogue (windows.h), each with one lane width per kind.
 * Everything else is drawn at random: many cases, few programs.
 *
 * Every run checks guarded images: [offset bytes of sentinel][tensor][CU_GUARD
 * sentinel bytes]; the input must be unchanged and the output's guards intact.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "../host/planners.h"
#include "check_util.h"
#include "windows.h"
#include "reference.h"

/* --------------------------------------------------------------- cases */

typedef enum sp_api { API_CTX_QUEUE, API_OWN_QUEUE, API_HOST } sp_api;

typedef struct sp_case {
    int lp; /* 0 AveragePool, 1 LpPool */
    double p;
    int32_t count_include_pad;
    clpool_dtype dtype;
    clpool_shape shape;
    clpool_window_params w;
    size_t in_off, out_off; /* byte offsets (ignored by API_HOST) */
    sp_api api;
} sp_case;

static void avg_params(const sp_case *c, clpool_average_pool_params *a)
{
    ck_assert_int_eq(clpool_average_pool_params_init(a, c->w.spatial_rank, c->w.kernel_shape), CLPOOL_SUCCESS);
    a->window = c->w;
    a->count_include_pad = c->count_include_pad;
}

static void lp_params(const sp_case *c, clpool_lp_pool_params *l)
{
    ck_assert_int_eq(clpool_lp_pool_params_init(l, c->w.spatial_rank, c->w.kernel_shape), CLPOOL_SUCCESS);
    l->window = c->w;
    l->p = c->p;
}

static const char *describe(const sp_case *c, const char *label, char *buf, size_t len)
{
    static const char *const pads[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    const int32_t ns = c->w.spatial_rank;
    buf[0] = '\0';
    cu_append(buf, len, "%s: %s %s", label, c->lp ? "LpPool" : "AveragePool", clpool_dtype_name(c->dtype));
    if (c->lp) cu_append(buf, len, " p=%g", c->p);
    else cu_append(buf, len, " count_include_pad=%d", (int)c->count_include_pad);
    cu_append(buf, len, " input ");
    cu_append_dims(buf, len, c->shape.dims, c->shape.rank);
    cu_append(buf, len, " kernel ");
    cu_append_dims(buf, len, c->w.kernel_shape, ns);
    cu_append(buf, len, " strides ");
    cu_append_dims(buf, len, c->w.strides, ns);
    cu_append(buf, len, " dilations ");
    cu_append_dims(buf, len, c->w.dilations, ns);
    cu_append(buf, len, " pads ");
    cu_append_dims(buf, len, c->w.pads, 2 * ns);
    cu_append(buf, len, " ceil %d auto_pad %s offsets %zu/%zu api %d", (int)c->w.ceil_mode, pads[c->w.auto_pad],
              c->in_off, c->out_off, (int)c->api);
    return buf;
}

/* ------------------------------------------------------ running a case */

static clpool_status output_shape(const sp_case *c, clpool_shape *out)
{
    clpool_average_pool_params a;
    clpool_lp_pool_params l;
    if (c->lp) {
        lp_params(c, &l);
        return clpool_lp_pool_output_shape(&c->shape, &l, out);
    }
    avg_params(c, &a);
    return clpool_average_pool_output_shape(&c->shape, &a, out);
}

static clpool_status call_host(const sp_case *c, const void *in, void *out)
{
    clpool_average_pool_params a;
    clpool_lp_pool_params l;
    if (c->lp) {
        lp_params(c, &l);
        return clpool_lp_pool_host(cu_ctx, &l, c->dtype, &c->shape, in, out);
    }
    avg_params(c, &a);
    return clpool_average_pool_host(cu_ctx, &a, c->dtype, &c->shape, in, out);
}

static clpool_status call_enqueue(const sp_case *c, cl_command_queue q, cl_mem in, cl_mem out, cl_event *ev)
{
    clpool_average_pool_params a;
    clpool_lp_pool_params l;
    if (c->lp) {
        lp_params(c, &l);
        return clpool_enqueue_lp_pool(cu_ctx, q, &l, c->dtype, &c->shape, in, c->in_off, out, c->out_off, 0, NULL, ev);
    }
    avg_params(c, &a);
    return clpool_enqueue_average_pool(cu_ctx, q, &a, c->dtype, &c->shape, in, c->in_off, out, c->out_off, 0, NULL,
                                       ev);
}

/* Runs the op; returns the output image [lead][n_out elements][CU_GUARD] with *lead set. */
static unsigned char *execute(const sp_case *c, const void *input, int64_t n_in, int64_t n_out, size_t *lead,
                              const char *desc)
{
    const size_t es = ref_dtype_size(c->dtype), in_bytes = (size_t)n_in * es, out_bytes = (size_t)n_out * es;
    const int host = c->api == API_HOST, own = c->api == API_OWN_QUEUE;
    const size_t in_lead = host ? CU_GUARD : c->in_off, in_size = CU_IMAGE_BYTES(in_lead, in_bytes);
    *lead = host ? CU_GUARD : c->out_off;
    unsigned char *in_img = cu_sentinel_image(in_lead, input, in_bytes);
    unsigned char *out_img = cu_sentinel_image(*lead, NULL, out_bytes);
    if (host) {
        unsigned char *in_host = cu_sentinel_image(in_lead, input, in_bytes);
        cu_assert_ok(call_host(c, in_host + in_lead, out_img + *lead), "host call", desc);
        ck_assert_msg(memcmp(in_host, in_img, in_size) == 0, "%s: the input buffer changed", desc);
        free(in_host);
    } else {
        cl_mem in_mem = cu_buffer_from(in_img, in_size);
        cl_mem out_mem = cu_buffer_from(out_img, CU_IMAGE_BYTES(*lead, out_bytes));
        cl_event ev = NULL;
        cu_assert_ok(call_enqueue(c, own ? cu_own_queue : NULL, in_mem, out_mem, &ev), "enqueue", desc);
        ck_assert_msg(ev != NULL, "%s: no event returned", desc);
        cu_wait_done(own ? cu_own_queue : clpool_context_cl_queue(cu_ctx), ev, desc);
        clReleaseEvent(ev);
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

/* The bound on |got - ref| relative to max(|ref|, scale): the output type's
 * rounding (float16, bfloat16) or a few units of the accumulation type, and
 * for a p other than 1 and 2 pow's error (OpenCL allows 16 ulp). */
static double tolerance(const sp_case *c)
{
    const int pow_kind = c->lp && c->p != 1.0 && c->p != 2.0;
    switch (c->dtype) {
    case CLPOOL_FLOAT16: return 0x1p-10;
    case CLPOOL_BFLOAT16: return 0x1p-7;
    case CLPOOL_FLOAT64: return pow_kind ? 32 * DBL_EPSILON : 4 * DBL_EPSILON;
    default: return pow_kind ? 32 * FLT_EPSILON : 4 * FLT_EPSILON;
    }
}

static int check_value(const sp_case *c, double ref, double scale, double got, char *why, size_t why_len)
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
    const double mag = fmax(fmax(fabs(ref), scale), cu_smallest_normal(c->dtype));
    const double bound = tolerance(c) * mag;
    if (isfinite(got) && fabs(got - ref) <= bound) return 0;
    /* past the output type's largest finite value the one rounding gives inf: so may a result within the
     * bound of that threshold */
    uint64_t rounded_bits = 0;
    ref_store(c->dtype, &rounded_bits, 0, ref + copysign(bound, ref));
    if (isinf(got) && got == ref_load(c->dtype, &rounded_bits, 0)) return 0;
    snprintf(why, why_len, "expected %.17g, got %.17g (error %.3g > bound %.3g)", ref, got, fabs(got - ref), bound);
    return 1;
}

/* Reference vs library: statuses, shapes, guards and the input are hard
 * assertions; wrong values are counted, the first described in `why`. */
static int run_case(const sp_case *c, const void *input, const char *label, char *why, size_t why_len)
{
    char desc[600];
    describe(c, label, desc, sizeof desc);
    clpool_shape ref_shape, lib_shape;
    char reason[200] = "";
    ck_assert_msg(ref_window_shape(&c->shape, &c->w, 0, &ref_shape, NULL, reason, sizeof reason) == 0,
                  "%s: the reference rejects the call (%s)", desc, reason);
    cu_assert_ok(output_shape(c, &lib_shape), "output_shape", desc);
    cu_assert_shape_eq(&lib_shape, &ref_shape, desc);
    const int64_t n_in = ref_shape_elements(&c->shape), n_out = ref_shape_elements(&ref_shape);
    double *want = malloc((size_t)n_out * sizeof(double) + 8), *scale = malloc((size_t)n_out * sizeof(double) + 8);
    ck_assert(want && scale);
    ck_assert_int_eq(ref_sum_pool(c->dtype, &c->shape, &c->w, c->count_include_pad, c->lp, c->p, input, want, scale),
                     0);
    size_t lead;
    unsigned char *out_img = execute(c, input, n_in, n_out, &lead, desc);
    int wrong = 0;
    for (int64_t i = 0; i < n_out; ++i) {
        char msg[200];
        /* Lp: every term >= 0, |ref| is the scale */
        if (check_value(c, want[i], c->lp ? 0.0 : scale[i], ref_load(c->dtype, out_img + lead, i), msg, sizeof msg) &&
            wrong++ == 0) {
            why[0] = '\0';
            cu_append(why, why_len, "%s: output %lld: %s", desc, (long long)i, msg);
        }
    }
    if (wrong > 1) cu_append(why, why_len, " (and %d more)", wrong - 1);
    free(out_img);
    free(want);
    free(scale);
    return wrong;
}

/* Runs a case to the end; a failure is printed and counted (cu_tally). */
static void tally_case(cu_tally *t, const sp_case *c, const void *input, const char *label)
{
    char why[1024] = "";
    cu_tally_add(t, run_case(c, input, label, why, sizeof why), why);
}

/* ------------------------------------------------------ random cases */

/* The ops and p kinds a random case takes: AveragePool, and LpPool with
 * p = 1, 2, 3 (closed forms and squaring) and 1.5 (pow). */
static const double lp_values[] = {0.0, 1.0, 2.0, 3.0, 1.5};
#define SP_KINDS 5

/* Values: mixed signs (AveragePool) or any sign (LpPool), -0.0 among them,
 * float16 up to its largest finite value; now and then NaN or infinities. */
static void fill(ref_rng *r, const sp_case *c, void *data, int64_t n)
{
    const double big = c->dtype == CLPOOL_FLOAT16 && (!c->lp || c->p <= 2.0) ? 65504.0 : 1000.0;
    const uint64_t *nan = cu_nan_patterns(c->dtype);
    const int specials = ref_rng_chance(r, 0.3);
    for (int64_t i = 0; i < n; ++i) {
        const double u = ref_rng_unit(r);
        double v = ref_rng_chance(r, 0.05) ? big * (u < 0.5 ? -1.0 : 1.0) : 100.0 * (2.0 * u - 1.0);
        if (ref_rng_chance(r, 0.05)) v = u < 0.5 ? -0.0 : 0.0;
        ref_store(c->dtype, data, i, v);
        if (specials && ref_rng_chance(r, 0.02)) {
            const int64_t kind = ref_rng_range(r, 0, 2);
            if (kind == 0) ref_store_bits(c->dtype, data, i, nan[ref_rng_range(r, 0, CU_N_NAN - 1)]);
            else ref_store(c->dtype, data, i, kind == 1 ? INFINITY : -INFINITY);
        }
    }
}

/* A random call of (dtype, kind) at spatial rank ns whose last dim has stride last_stride; NULL-free and
 * valid (redrawn until the reference accepts it). 2-D and 3-D windows, whose kernels sum_pool_2d and
 * sum_pool_3d compile in, take their kernel, strides but the last and dilations from the suite-wide
 * catalogue (windows.h): window `window` (-1: a random one), its dilations 1 where `undilated`. */
static void catalogue_case(ref_rng *r, clpool_dtype dtype, int kind, int32_t ns, int64_t last_stride, int window,
                           int undilated, sp_case *c)
{
    for (;;) {
        memset(c, 0, sizeof *c);
        c->dtype = dtype;
        c->lp = kind != 0;
        c->p = lp_values[kind];
        int64_t k[CLPOOL_MAX_SPATIAL];
        for (int32_t i = 0; i < ns; ++i) k[i] = ref_rng_range(r, 1, ns > 2 ? 3 : 5);
        const int j = window >= 0 ? window : (int)ref_rng_range(r, 0, CU_CATALOGUE_WINDOWS - 1);
        const int from_catalogue = ns == 2 || ns == 3;
        const cu_window cw = cu_catalogue_window(dtype, from_catalogue ? ns : 2, j);
        if (from_catalogue) memcpy(k, cw.kernel, sizeof k);
        ck_assert_int_eq(clpool_window_params_init(&c->w, ns, k), CLPOOL_SUCCESS);
        c->shape.rank = ns + 2;
        c->shape.dims[0] = ref_rng_range(r, 1, 2);
        c->shape.dims[1] = ref_rng_range(r, 1, 3);
        /* The row kernels' lanes follow the output rows' width on CPU SIMD (8 up to 8 outputs, else 16), so
           each (window, kind) keeps one side of 8: one program per window, not two. Wide rows: past 8
           strides and the widest dilated window (10). */
        const int narrow = (j + kind) % 2 == 0;
        for (int32_t i = 0; i < ns; ++i) {
            c->shape.dims[2 + i] = ref_rng_range(r, 1, ns == 1 ? 70 : ns == 2 ? 24 : 9);
            if (from_catalogue && i == ns - 1 && !narrow) c->shape.dims[2 + i] = 8 * last_stride + ref_rng_range(r, 10, 26);
            c->w.strides[i] = i == ns - 1 ? last_stride : ref_rng_range(r, 1, 3);
            c->w.dilations[i] = ref_rng_chance(r, 0.25) ? ref_rng_range(r, 2, 3) : 1;
            if (from_catalogue) {
                if (i < ns - 1) c->w.strides[i] = cw.strides[i];
                c->w.dilations[i] = undilated ? 1 : cw.dilations[i];
            }
        }
        const double mode = ref_rng_unit(r);
        c->w.auto_pad = mode < 0.6 ? CLPOOL_AUTO_PAD_NOTSET : (clpool_auto_pad)ref_rng_range(r, 1, 3);
        if (c->w.auto_pad == CLPOOL_AUTO_PAD_NOTSET) {
            /* pads up to the kernel's reach, so some windows lie wholly in the padding */
            for (int32_t i = 0; i < 2 * ns; ++i)
                c->w.pads[i] = ref_rng_chance(r, 0.5) ? ref_rng_range(r, 0, k[i % ns] + (ref_rng_chance(r, 0.1) ? 1 : -1)) : 0;
            for (int32_t i = 0; i < 2 * ns; ++i)
                if (c->w.pads[i] < 0) c->w.pads[i] = 0;
            c->w.ceil_mode = ref_rng_chance(r, 0.4);
        }
        c->count_include_pad = !c->lp && ref_rng_chance(r, 0.5);
        c->in_off = (size_t)ref_rng_range(r, 0, 3) * ref_dtype_size(dtype);
        c->out_off = (size_t)ref_rng_range(r, 0, 3) * ref_dtype_size(dtype);
        c->api = (sp_api)ref_rng_range(r, 0, 2);
        clpool_shape out;
        if (ref_window_shape(&c->shape, &c->w, 0, &out, NULL, NULL, 0) != 0) continue;
        if (!from_catalogue || (out.dims[ns + 1] <= 8) == narrow) return;
    }
}

static void random_case(ref_rng *r, clpool_dtype dtype, int kind, int32_t ns, int64_t last_stride, sp_case *c)
{
    catalogue_case(r, dtype, kind, ns, last_stride, -1, 0, c);
}

/* Each (dtype, kind) pair: its spatial ranks and last stride (the compiled-in part of a program), the rest
 * drawn per case. */
START_TEST(test_random)
{
    const clpool_dtype dtype = cu_float_dtypes[_i / SP_KINDS];
    const int kind = _i % SP_KINDS;
    if (!cu_dtype_runs(dtype, "AveragePool/LpPool")) return;
    ref_rng r;
    ref_rng_seed(&r, 0x5a3d0000u + (uint64_t)_i);
    cu_tally t = {0, 0, ""};
    for (int n = 0; n < 40; ++n) {
        /* The programs test_kinds builds where it can: float32 at rank 2, last strides 1 and 2; the other
         * dtypes one rank (1, 2 or 3 by pair) and one last stride (1 or 2) per pair: one program each. */
        const int32_t ns = (int32_t)(dtype == CLPOOL_FLOAT32 ? 2 : 1 + _i % 3);
        const int64_t last_stride = dtype == CLPOOL_FLOAT32 ? 1 + n % 2 : 1 + (_i / SP_KINDS + _i) % 2;
        sp_case c;
        random_case(&r, dtype, kind, ns, last_stride, &c);
        const int64_t n_in = ref_shape_elements(&c.shape);
        void *in = calloc((size_t)n_in + 1, ref_dtype_size(dtype));
        ck_assert_ptr_nonnull(in);
        fill(&r, &c, in, n_in);
        char label[48];
        snprintf(label, sizeof label, "random %d/%d", _i, n);
        tally_case(&t, &c, in, label);
        free(in);
    }
    cu_tally_check(&t);
}
END_TEST

/* Last-dim strides 4 and 5 (strided vector loads with 16 lanes, gathers past them; 3 is test_kinds'),
 * float32 AveragePool. */
START_TEST(test_strides)
{
    ref_rng r;
    ref_rng_seed(&r, 0x5a3d1000u);
    cu_tally t = {0, 0, ""};
    for (int n = 0; n < 16; ++n) {
        sp_case c;
        random_case(&r, CLPOOL_FLOAT32, 0, 2, 4 + n % 2, &c);
        const int64_t n_in = ref_shape_elements(&c.shape);
        float *in = calloc((size_t)n_in + 1, sizeof *in);
        ck_assert_ptr_nonnull(in);
        fill(&r, &c, in, n_in);
        tally_case(&t, &c, in, "strides");
        free(in);
    }
    cu_tally_check(&t);
}
END_TEST

/* Each op and p kind at last-dim strides 1 to 3 (float32, 2-D), ranks 1 and 3, float16 and bfloat16, a
 * general p, and strides 6 and 8: every kernel path the planner plans for these ops on any device, few
 * programs (the rusticl run). */
START_TEST(test_kinds)
{
    static const struct {
        clpool_dtype dtype;
        int kind;
        int32_t ns;
        int64_t last_stride;
    } runs[] = {
        {CLPOOL_FLOAT32, 0, 2, 1}, {CLPOOL_FLOAT32, 0, 2, 2}, {CLPOOL_FLOAT32, 0, 2, 3}, {CLPOOL_FLOAT32, 1, 2, 1},
        {CLPOOL_FLOAT32, 1, 2, 2}, {CLPOOL_FLOAT32, 1, 2, 3}, {CLPOOL_FLOAT32, 2, 2, 1}, {CLPOOL_FLOAT32, 2, 2, 2},
        {CLPOOL_FLOAT32, 2, 2, 3}, {CLPOOL_FLOAT32, 3, 2, 1}, {CLPOOL_FLOAT32, 3, 2, 2}, {CLPOOL_FLOAT32, 3, 2, 3},
        {CLPOOL_FLOAT32, 4, 2, 1}, {CLPOOL_FLOAT32, 0, 1, 1}, {CLPOOL_FLOAT32, 2, 3, 1}, {CLPOOL_FLOAT32, 0, 3, 1},
        {CLPOOL_FLOAT16, 1, 3, 1}, {CLPOOL_BFLOAT16, 3, 3, 1}, {CLPOOL_FLOAT16, 0, 2, 1}, {CLPOOL_BFLOAT16, 2, 2, 1},
        {CLPOOL_BFLOAT16, 2, 1, 1}, {CLPOOL_FLOAT64, 0, 2, 1},
        /* strides 5 to 8 along rows: sum_pool_nd's eight-load taps on CPUs */
        {CLPOOL_FLOAT32, 0, 2, 6}, {CLPOOL_FLOAT16, 2, 1, 8},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x5a3d3000u);
    cu_tally t = {0, 0, ""};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        if (!cu_dtype_runs(runs[i].dtype, "AveragePool/LpPool")) continue;
        for (int n = 0; n < 3; ++n) {
            sp_case c;
            /* each catalogue window in turn: sum_pool_2d, or sum_pool_nd for a dilated one */
            catalogue_case(&r, runs[i].dtype, runs[i].kind, runs[i].ns, runs[i].last_stride, (n + 1) % CU_CATALOGUE_WINDOWS,
                           runs[i].ns == 3 && n == 0, &c); /* 3-D: sum_pool_3d on one window, however dilated */
            const int64_t n_in = ref_shape_elements(&c.shape);
            void *in = calloc((size_t)n_in + 1, ref_dtype_size(c.dtype));
            ck_assert_ptr_nonnull(in);
            fill(&r, &c, in, n_in);
            tally_case(&t, &c, in, "kinds");
            free(in);
        }
    }
    cu_tally_check(&t);
}
END_TEST

/* sum_pool_2d's windows beyond the catalogue's: several groups of rows (5x5, 13x13, rows of 16 taps, one
 * group each), strides 3 and 4 along rows, taller and wider than the stride; windows no taller than their
 * row stride on rows of up to 80 outputs (several column blocks per work-item on CPU SIMD, the last
 * work-item of a row with fewer); random shapes, pads and data, so some windows start in the padding and
 * some rows have fewer outputs than lanes. */
START_TEST(test_windows_2d)
{
    static const struct {
        int64_t kernel[2], strides[2];
        int kind;
        int64_t max_w;
    } windows[] = {
        {{5, 5}, {3, 3}, 0, 40}, {{13, 13}, {1, 1}, 0, 40}, {{2, 16}, {1, 2}, 0, 40}, {{4, 5}, {2, 4}, 0, 40},
        {{7, 3}, {3, 1}, 2, 40}, {{2, 2}, {2, 2}, 0, 160}, {{3, 2}, {3, 1}, 3, 90},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x5a3d2000u);
    cu_tally t = {0, 0, ""};
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; ++i) {
        for (int n = 0; n < 6; ++n) {
            sp_case c;
            clpool_shape out;
            do { /* the catalogue's case with this window, its pads up to the window's reach */
                random_case(&r, CLPOOL_FLOAT32, windows[i].kind, 2, windows[i].strides[1], &c);
                for (int d = 0; d < 2; ++d) {
                    c.w.kernel_shape[d] = windows[i].kernel[d];
                    c.w.strides[d] = windows[i].strides[d];
                    c.w.dilations[d] = 1;
                    c.shape.dims[2 + d] = ref_rng_range(&r, 1, d ? windows[i].max_w : 40);
                    if (c.w.auto_pad == CLPOOL_AUTO_PAD_NOTSET)
                        c.w.pads[d] = ref_rng_range(&r, 0, windows[i].kernel[d]), c.w.pads[d + 2] = ref_rng_range(&r, 0, 2);
                }
            } while (ref_window_shape(&c.shape, &c.w, 0, &out, NULL, NULL, 0) != 0);
            const int64_t n_in = ref_shape_elements(&c.shape);
            float *in = calloc((size_t)n_in + 1, sizeof *in);
            ck_assert_ptr_nonnull(in);
            fill(&r, &c, in, n_in);
            tally_case(&t, &c, in, "windows 2-D");
            free(in);
        }
    }
    cu_tally_check(&t);
}
END_TEST

/* ------------------------------------------------------ hand-checked */

/* 1x1x4x4 of 1..16, kernel 3x3, stride 2, pads 1, ceil_mode: the divisors of
 * each mode written out, and the window that runs past the end padding. */
START_TEST(test_divisors)
{
    float in[16], out[4];
    for (int i = 0; i < 16; ++i) in[i] = (float)(i + 1);
    const clpool_shape shape = {4, {1, 1, 4, 4}};
    const int64_t k[2] = {3, 3};
    clpool_average_pool_params a;
    ck_assert_int_eq(clpool_average_pool_params_init(&a, 2, k), CLPOOL_SUCCESS);
    ck_assert_int_eq(a.count_include_pad, 0);
    ck_assert_int_eq(a.window.strides[0], 1);
    a.window.strides[0] = a.window.strides[1] = 2;
    for (int i = 0; i < 4; ++i) a.window.pads[i] = 1;
    a.window.ceil_mode = 1;
    clpool_shape os;
    cu_assert_ok(clpool_average_pool_output_shape(&shape, &a, &os), "output_shape", "divisors");
    ck_assert_int_eq(os.dims[2], 3); /* (4 + 2 - 3) / 2 + 1 = 2.5 -> 3; window 2 starts at 3 < 4 + 1 */
    float out9[9];
    cu_assert_ok(clpool_average_pool_host(cu_ctx, &a, CLPOOL_FLOAT32, &shape, in, out9), "host", "divisors");
    /* output (0,0): taps rows/cols -1..1, inside 0..1: (1+2+5+6)/4 */
    ck_assert_float_eq(out9[0], 14.0f / 4.0f);
    /* output (2,2): rows/cols 3..5, inside 3 only: 16/1 */
    ck_assert_float_eq(out9[8], 16.0f);
    a.count_include_pad = 1;
    cu_assert_ok(clpool_average_pool_host(cu_ctx, &a, CLPOOL_FLOAT32, &shape, in, out9), "host", "divisors");
    ck_assert_float_eq(out9[0], 14.0f / 9.0f); /* every tap in [-1, 5) counts */
    /* (2,2): rows/cols 3..5, the padded input ends at 4 (pad 1): taps 3 and 4 count, 5 is the ceil overrun */
    ck_assert_float_eq(out9[8], 16.0f / 4.0f);
    /* LpPool p = 2 over the same windows: pads add 0 */
    clpool_lp_pool_params l;
    ck_assert_int_eq(clpool_lp_pool_params_init(&l, 2, k), CLPOOL_SUCCESS);
    ck_assert_double_eq(l.p, 2.0);
    l.window = a.window;
    cu_assert_ok(clpool_lp_pool_host(cu_ctx, &l, CLPOOL_FLOAT32, &shape, in, out9), "host", "divisors");
    ck_assert_float_eq_tol(out9[0], sqrtf(1 + 4 + 25 + 36), 1e-5f);
    ck_assert_float_eq(out9[8], 16.0f);
    (void)out;
}
END_TEST

/* Windows wholly in the padding: AveragePool 0/0 = NaN without count_include_pad, 0 with it; LpPool 0. */
START_TEST(test_empty_windows)
{
    const float in[2] = {3.0f, 5.0f};
    float out[8];
    const clpool_shape shape = {3, {1, 1, 2}};
    const int64_t k[1] = {2};
    clpool_average_pool_params a;
    ck_assert_int_eq(clpool_average_pool_params_init(&a, 1, k), CLPOOL_SUCCESS);
    a.window.pads[0] = 2;
    a.window.pads[1] = 2; /* windows start at -2, -1, 0, 1, 2: the first holds only padding */
    clpool_shape os;
    cu_assert_ok(clpool_average_pool_output_shape(&shape, &a, &os), "output_shape", "empty");
    ck_assert_int_eq(os.dims[2], 5);
    cu_assert_ok(clpool_average_pool_host(cu_ctx, &a, CLPOOL_FLOAT32, &shape, in, out), "host", "empty");
    ck_assert(isnan(out[0]) && isnan(out[4]));
    ck_assert_float_eq(out[1], 3.0f);
    ck_assert_float_eq(out[2], 4.0f);
    a.count_include_pad = 1;
    cu_assert_ok(clpool_average_pool_host(cu_ctx, &a, CLPOOL_FLOAT32, &shape, in, out), "host", "empty");
    ck_assert_float_eq(out[0], 0.0f);
    ck_assert_float_eq(out[1], 1.5f);
    clpool_lp_pool_params l;
    ck_assert_int_eq(clpool_lp_pool_params_init(&l, 1, k), CLPOOL_SUCCESS);
    l.window = a.window;
    cu_assert_ok(clpool_lp_pool_host(cu_ctx, &l, CLPOOL_FLOAT32, &shape, in, out), "host", "empty");
    ck_assert_float_eq(out[0], 0.0f);
    ck_assert_float_eq(out[2], sqrtf(34.0f));
}
END_TEST

/* ------------------------------------------------ accuracy, pinned */

/*
 * The documented bound (README, Semantics), as the global pools': a window's sum (of |x|^p for LpPool)
 * within 24 units of u (2^-24; 2^-53 for float64) of its sum of |terms|, then one rounding. Two windows of
 * 10^6 taps each (AveragePool, LpPool p = 1 and 2; the general kernel: half a plane per window), one
 * huge value and small ones below half its ulp: a lane sum without compensation drops every small one.
 */
START_TEST(test_accuracy_pinned)
{
    const int64_t taps = 1000000, n = 2 * taps;
    float *x = malloc((size_t)n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    ref_rng r;
    ref_rng_seed(&r, 0xacc5u);
    long double exact[3][2] = {{0}}, abs[3][2] = {{0}};
    for (int64_t i = n - 1; i >= 0; --i) { /* the huge one (element 0 of each window) added last, exactly */
        x[i] = i % taps == 0 ? 0x1p30f : 0.03f + 0.01f * (float)ref_rng_unit(&r);
        for (int k = 0; k < 3; ++k) {
            const long double v = k == 2 ? (long double)x[i] * x[i] : fabsl((long double)x[i]);
            exact[k][i / taps] += k == 0 ? (long double)x[i] : v;
            abs[k][i / taps] += v;
        }
    }
    const clpool_shape shape = {3, {1, 1, n}};
    for (int k = 0; k < 3; ++k) {
        sp_case c;
        memset(&c, 0, sizeof c);
        c.lp = k > 0;
        c.p = k;
        c.dtype = CLPOOL_FLOAT32;
        c.shape = shape;
        ck_assert_int_eq(clpool_window_params_init(&c.w, 1, &taps), CLPOOL_SUCCESS);
        c.w.strides[0] = taps;
        c.api = API_HOST;
        float out[2];
        cu_assert_ok(call_host(&c, x, out), "pinned", "pinned accuracy");
        for (int o = 0; o < 2; ++o) {
            const long double sum = exact[k][o], want = k == 0 ? sum / taps : k == 1 ? sum : sqrtl(sum);
            /* the sum's bound carried through the finish (the mean; Lp's root halves a relative error) */
            const long double sum_bound = 24.0L * 0x1p-24L * abs[k][o];
            const long double bound = (k == 0 ? sum_bound / taps : k == 1 ? sum_bound : sum_bound / (2 * sqrtl(sum))) +
                                      0x1p-23L * fabsl(want);
            ck_assert_msg(fabsl((long double)out[o] - want) <= bound,
                          "%s window %d: got %.10g, want %.10Lg, error %.3Lg > bound %.3Lg", k ? "LpPool" : "AveragePool",
                          o, (double)out[o], want, fabsl((long double)out[o] - want), bound);
        }
    }
    free(x);
}
END_TEST

/* ------------------------------------------------------ planned paths */

static void plan_of(const sp_case *c, clpool__plan *plan)
{
    clpool_average_pool_params a;
    clpool_lp_pool_params l;
    clpool__pool_desc desc;
    avg_params(c, &a);
    lp_params(c, &l);
    cu_assert_ok(clpool__sum_pool_describe(&c->shape, c->lp ? NULL : &a, c->lp ? &l : NULL, c->dtype, "plan", &desc),
                 "describe", "plan");
    clpool__device_caps caps;
    clpool__device_caps_of(cu_ctx, &caps);
    clpool__sum_pool_plan_call(&caps, &desc, plan);
}

/* 2-D windows take sum_2d, 3-D ones sum_3d, others sum_nd; whole-plane windows the global pools; a general p the first
 * tier's kernel. */
START_TEST(test_paths)
{
    static const struct {
        int lp;
        double p;
        int32_t cip;
        int32_t rank;
        int64_t dims[5], kernel[3], pads;
        clpool__path path;
    } cases[] = {
        {0, 0, 0, 4, {2, 3, 9, 9}, {3, 3}, 1, CLPOOL__PATH_SUM_POOL_2D},
        {1, 2, 0, 5, {1, 2, 4, 5, 6}, {2, 2, 2}, 0, CLPOOL__PATH_SUM_POOL_3D},
        {0, 0, 0, 4, {2, 3, 5, 7}, {5, 7}, 0, CLPOOL__PATH_GLOBAL_SUM_DIRECT},
        {0, 0, 1, 4, {2, 3, 5, 7}, {5, 7}, 1, CLPOOL__PATH_SUM_POOL_2D}, /* pads in the divisor */
        {0, 0, 0, 4, {2, 3, 9, 40}, {3, 17}, 1, CLPOOL__PATH_SUM_POOL_ND}, /* rows over CLPOOL__SUM_CHUNK taps */
        {1, 1.5, 0, 4, {2, 3, 9, 9}, {3, 3}, 0, CLPOOL__PATH_WINDOW_FIRST_TIER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        sp_case c;
        memset(&c, 0, sizeof c);
        c.lp = cases[i].lp;
        c.p = c.lp ? cases[i].p : 2.0;
        c.count_include_pad = cases[i].cip;
        c.dtype = CLPOOL_FLOAT32;
        c.shape.rank = cases[i].rank;
        memcpy(c.shape.dims, cases[i].dims, sizeof cases[i].dims);
        ck_assert_int_eq(clpool_window_params_init(&c.w, c.shape.rank - 2, cases[i].kernel), CLPOOL_SUCCESS);
        for (int32_t d = 0; d < 2 * (c.shape.rank - 2); ++d) c.w.pads[d] = cases[i].pads;
        clpool__plan plan;
        plan_of(&c, &plan);
        /* the global pools pick direct/grouped/two-pass by size: any global sum path is whole planes */
        const clpool__path got = plan.path == CLPOOL__PATH_GLOBAL_SUM_GROUPED ? CLPOOL__PATH_GLOBAL_SUM_DIRECT : plan.path;
        ck_assert_msg(got == cases[i].path, "case %zu: planned %s, expected %s", i, clpool__families[plan.path].name,
                      clpool__families[cases[i].path].name);
        ck_assert_int_eq(plan.first_tier, 0);
        /* and the planned path computes what the reference does */
        const int64_t n_in = ref_shape_elements(&c.shape);
        float *in = calloc((size_t)n_in, sizeof *in);
        ref_rng r;
        ref_rng_seed(&r, 0x5a3d2000u + i);
        fill(&r, &c, in, n_in);
        char why[1024];
        ck_assert_msg(run_case(&c, in, "path", why, sizeof why) == 0, "%s", why);
        free(in);
    }
}
END_TEST

/* ------------------------------------------------------ bad inputs */

START_TEST(test_bad_inputs)
{
    const int64_t k[2] = {2, 2};
    const clpool_shape shape = {4, {1, 1, 4, 4}};
    float in[16] = {0}, out[16];
    clpool_average_pool_params a;
    clpool_lp_pool_params l;
    clpool_shape os;
    cu_assert_status("init NULL", "clpool_average_pool_params_init", clpool_average_pool_params_init(NULL, 2, k),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    cu_assert_status("init rank", "clpool_lp_pool_params_init", clpool_lp_pool_params_init(&l, 0, k),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "spatial_rank 0");
    ck_assert_int_eq(clpool_average_pool_params_init(&a, 2, k), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_lp_pool_params_init(&l, 2, k), CLPOOL_SUCCESS);

    a.struct_size = 8;
    cu_assert_status("struct_size", "clpool_average_pool_output_shape", clpool_average_pool_output_shape(&shape, &a, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "clpool_average_pool_params_init");
    a.struct_size = sizeof a;
    a.window.struct_size = 0;
    cu_assert_status("window struct_size", "clpool_average_pool_output_shape",
                     clpool_average_pool_output_shape(&shape, &a, &os), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "params.window.struct_size");
    a.window.struct_size = sizeof a.window;
    l.struct_size = 8;
    cu_assert_status("lp struct_size", "clpool_lp_pool_output_shape", clpool_lp_pool_output_shape(&shape, &l, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "clpool_lp_pool_params_init");
    l.struct_size = sizeof l;
    a.count_include_pad = 2;
    cu_assert_status("count_include_pad", "clpool_enqueue_average_pool",
                     clpool_enqueue_average_pool(cu_ctx, NULL, &a, CLPOOL_FLOAT32, &shape, NULL, 0, NULL, 0, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "count_include_pad = 2 must be 0 or 1");
    a.count_include_pad = 0;
    static const double bad_p[] = {0.0, -1.0, INFINITY, NAN};
    for (size_t i = 0; i < 4; ++i) {
        l.p = bad_p[i];
        cu_assert_status("p", "clpool_lp_pool_output_shape", clpool_lp_pool_output_shape(&shape, &l, &os),
                         CLPOOL_ERROR_INVALID_ARGUMENT, "must be > 0 and finite");
    }
    l.p = 2.0;
    cu_assert_status("NULL params", "clpool_average_pool_output_shape", clpool_average_pool_output_shape(&shape, NULL, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    cu_assert_status("NULL params", "clpool_enqueue_lp_pool",
                     clpool_enqueue_lp_pool(cu_ctx, NULL, NULL, CLPOOL_FLOAT32, &shape, NULL, 0, NULL, 0, 0, NULL, NULL),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "params is NULL");
    cu_assert_status("NULL params", "clpool_lp_pool_host", clpool_lp_pool_host(cu_ctx, NULL, CLPOOL_FLOAT32, &shape, in, out),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "NULL");
    cu_assert_status("dtype", "clpool_enqueue_average_pool",
                     clpool_enqueue_average_pool(cu_ctx, NULL, &a, CLPOOL_INT8, &shape, NULL, 0, NULL, 0, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "not supported by AveragePool");
    cu_assert_status("dtype", NULL, clpool_lp_pool_host(cu_ctx, &l, CLPOOL_UINT8, &shape, in, out),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "not supported by LpPool");
    /* the window layer's rules, named by the op's own function */
    a.window.strides[1] = 0;
    cu_assert_status("strides", NULL, clpool_average_pool_host(cu_ctx, &a, CLPOOL_FLOAT32, &shape, in, out),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "strides[1] = 0 must be >= 1");
    a.window.strides[1] = 1;
    const clpool_shape flat = {3, {1, 1, 4}};
    cu_assert_status("rank", "clpool_average_pool_output_shape", clpool_average_pool_output_shape(&flat, &a, &os),
                     CLPOOL_ERROR_INVALID_SHAPE, "kernel_shape has 2 dims but the input has 1 spatial dims");
    l.window.kernel_shape[0] = 9;
    cu_assert_status("kernel", "clpool_lp_pool_output_shape", clpool_lp_pool_output_shape(&shape, &l, &os),
                     CLPOOL_ERROR_INVALID_SHAPE, "smaller than the dilated kernel");
    l.window.kernel_shape[0] = 2;
    l.window.auto_pad = CLPOOL_AUTO_PAD_VALID;
    l.window.pads[0] = 1;
    cu_assert_status("pads with auto_pad", "clpool_lp_pool_output_shape", clpool_lp_pool_output_shape(&shape, &l, &os),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "pads must be 0 when auto_pad is not NOTSET");
    l.window.auto_pad = CLPOOL_AUTO_PAD_NOTSET;
    l.window.pads[0] = 0;
    /* buffers: too small an output */
    cl_mem in_mem = cu_zero_buffer(sizeof in), small = cu_zero_buffer(8);
    cl_event ev = NULL;
    cu_assert_enqueue_status("output size", "clpool_enqueue_lp_pool",
                             clpool_enqueue_lp_pool(cu_ctx, NULL, &l, CLPOOL_FLOAT32, &shape, in_mem, 0, small, 0, 0,
                                                    NULL, &ev),
                             ev, CLPOOL_ERROR_BUFFER_TOO_SMALL, "output buffer holds 8 bytes");
    cu_assert_enqueue_status("offset", "clpool_enqueue_average_pool",
                             clpool_enqueue_average_pool(cu_ctx, NULL, &a, CLPOOL_FLOAT32, &shape, in_mem, 2, small, 0,
                                                         0, NULL, &ev),
                             ev, CLPOOL_ERROR_INVALID_ARGUMENT, "input");
    clReleaseMemObject(in_mem);
    clReleaseMemObject(small);
    cu_assert_context_computes(cu_ctx, "after the bad inputs");
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("sum_pool");
    TCase *tc = cu_tcase(s, "random", 1);
    tcase_add_loop_test(tc, test_random, 0, 4 * SP_KINDS);
    tcase_add_test(tc, test_strides);
    tcase_add_test(tc, test_kinds);
    tc = cu_tcase(s, "fixed", 1);
    tcase_add_test(tc, test_divisors);
    tcase_add_test(tc, test_windows_2d);
    tcase_add_test(tc, test_accuracy_pinned);
    tcase_add_test(tc, test_empty_windows);
    tcase_add_test(tc, test_paths);
    tcase_add_test(tc, test_bad_inputs);
    return cu_run_suite(s, CK_ENV);
}
