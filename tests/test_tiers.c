/*
 * Tiers (docs/design.md, "Tiers"): with CLPOOL_TIERED=1 a key's first call
 * in a context runs its op's first tier (the windowed ops' window_first_tier,
 * the global pools' global_pool_direct) and a later call the specialised
 * program. Both tiers are checked against the reference, MaxPool's bit for
 * bit and against each other. Which kernels ran and how many programs were
 * built come from the interposer (tests/cl_interpose.c), not from timing.
 * ctest runs the other suites with CLPOOL_TIERED=0; each test here sets it.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builder.h" /* the helper's request (host/) */
#include "check_util.h"
#include "cl_interpose.h"
#include "reference.h"
#include "reference_ops.h"
#include "windows.h"

#define GENERIC "window_first_tier"
/* A specialised kernel ran (which one is the planner's choice for the device). */
#define ASSERT_SPECIALISED(kernels, desc)                                                                          \
    ck_assert_msg(*(kernels) && strstr((kernels), GENERIC) == NULL, "%s: ran '%s', not a specialised kernel", (desc), \
                  (kernels))

/* Arm the interposer for this thread's calls only: the context's build thread runs kernels and builds
 * programs of its own meanwhile. */
static void arm_here(const char *phase, const char *only)
{
    ci_arm(phase, only, 0, CL_SUCCESS);
    ci_threads(1);
}

static void sleep_ms(long ms)
{
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

/* A context with tiers on (or off). */
static clpool_context *tiered_context(const char *tiered)
{
    setenv("CLPOOL_TIERED", tiered, 1);
    return cu_context_create();
}

static int has_fp64(clpool_context *ctx)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    return info.has_fp64;
}

/* ------------------------------------------------------------ MaxPool */

typedef struct mp_case {
    char desc[512];
    clpool_dtype dtype;
    clpool_shape in, out;
    clpool_maxpool_params p;
    int indices;
    unsigned char *x; /* input */
    size_t out_bytes;
} mp_case;

/* A random valid call: 1-4 spatial dims, every attribute, tie- and NaN-rich
 * data; with `window`, its kernel, strides, dilations and Indices. */
static void mp_random(ref_rng *rng, clpool_dtype dtype, int32_t ns, const cu_window *window, mp_case *c)
{
    memset(c, 0, sizeof *c);
    c->dtype = dtype;
    for (;;) {
        int64_t k[CLPOOL_MAX_SPATIAL];
        c->in.rank = ns + 2;
        c->in.dims[0] = ref_rng_range(rng, 1, 2);
        c->in.dims[1] = ref_rng_range(rng, 1, 3);
        for (int32_t d = 0; d < ns; ++d) {
            c->in.dims[2 + d] = ref_rng_range(rng, 1, ns > 2 ? 7 : 12);
            k[d] = window ? window->kernel[d] : ref_rng_range(rng, 1, 4);
        }
        clpool_maxpool_params_init(&c->p, ns, k);
        if (ref_rng_chance(rng, 0.2)) {
            c->p.auto_pad = (clpool_auto_pad)ref_rng_range(rng, 1, 3);
        } else {
            for (int32_t d = 0; d < 2 * ns; ++d) c->p.pads[d] = ref_rng_range(rng, 0, k[d % ns] - 1);
        }
        for (int32_t d = 0; d < ns && !window; ++d) {
            c->p.strides[d] = ref_rng_range(rng, 1, 3);
            c->p.dilations[d] = ref_rng_range(rng, 1, 2);
        }
        c->p.ceil_mode = (int)ref_rng_range(rng, 0, 1);
        if (window) {
            cu_window_apply(window, &c->p);
            c->indices = window->with_indices;
        } else {
            c->p.storage_order = (int)ref_rng_range(rng, 0, 1);
            c->indices = ref_rng_chance(rng, 0.5);
        }
        if (ref_maxpool_shape(&c->in, &c->p, &c->out, NULL, NULL, 0) == 0) break;
    }
    const int64_t n = ref_shape_elements(&c->in);
    c->x = malloc((size_t)n * ref_dtype_size(dtype));
    const uint64_t *nans = cu_nan_patterns(dtype);
    for (int64_t i = 0; i < n; ++i) {
        if (nans && ref_rng_chance(rng, 0.03)) ref_store_bits(dtype, c->x, i, nans[ref_rng_range(rng, 0, 4)]);
        else if (ref_dtype_is_float(dtype) && ref_rng_chance(rng, 0.1)) ref_store(dtype, c->x, i, -0.0);
        else ref_store(dtype, c->x, i, (double)ref_rng_range(rng, -4, 4)); /* ties */
    }
    c->out_bytes = (size_t)ref_shape_elements(&c->out) * ref_dtype_size(dtype);
    snprintf(c->desc, sizeof c->desc, "%s in", clpool_dtype_name(dtype));
    cu_append_dims(c->desc, sizeof c->desc, c->in.dims, c->in.rank);
    cu_append(c->desc, sizeof c->desc, " kernel");
    cu_append_dims(c->desc, sizeof c->desc, c->p.kernel_shape, ns);
    cu_append(c->desc, sizeof c->desc, " strides");
    cu_append_dims(c->desc, sizeof c->desc, c->p.strides, ns);
    cu_append(c->desc, sizeof c->desc, " dilations");
    cu_append_dims(c->desc, sizeof c->desc, c->p.dilations, ns);
    cu_append(c->desc, sizeof c->desc, " pads");
    cu_append_dims(c->desc, sizeof c->desc, c->p.pads, 2 * ns);
    cu_append(c->desc, sizeof c->desc, " auto_pad %d ceil %d order %d indices %d", (int)c->p.auto_pad, c->p.ceil_mode,
              c->p.storage_order, c->indices);
}

/* Runs the case through ctx, checks output and Indices against the
 * reference bit for bit, and returns the kernels that ran. */
static const char *mp_run_checked(clpool_context *ctx, const mp_case *c, unsigned char *y, int64_t *idx,
                                  const char *which)
{
    const int64_t n_out = ref_shape_elements(&c->out);
    unsigned char *want = malloc(c->out_bytes);
    int64_t *want_idx = malloc((size_t)n_out * sizeof *want_idx);
    ck_assert_int_eq(ref_maxpool(c->dtype, &c->in, &c->p, c->x, want, c->indices ? want_idx : NULL), 0);
    arm_here(c->desc, NULL);
    cu_assert_ok(clpool_maxpool_host(ctx, &c->p, c->dtype, &c->in, c->x, y, c->indices ? idx : NULL),
                 "clpool_maxpool_host", c->desc);
    ci_disarm();
    for (int64_t i = 0; i < n_out; ++i) {
        cu_expect(ref_load_bits(c->dtype, y, i) == ref_load_bits(c->dtype, want, i),
                  "%s (%s, kernels %s): output %lld has bits %llx, the reference %llx", c->desc, which, ci_kernels(),
                  (long long)i, (unsigned long long)ref_load_bits(c->dtype, y, i),
                  (unsigned long long)ref_load_bits(c->dtype, want, i));
        cu_expect(!c->indices || idx[i] == want_idx[i], "%s (%s, kernels %s): index %lld is %lld, the reference %lld",
                  c->desc, which, ci_kernels(), (long long)i, (long long)idx[i], (long long)want_idx[i]);
    }
    free(want);
    free(want_idx);
    return ci_kernels();
}

/* The first tier on 150 random calls (every dtype, 1-4 spatial dims, every
 * attribute), each the first call of a new context: exact against the
 * reference. */
START_TEST(first_tier_matches_reference)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x7153);
    int fp64 = -1;
    for (int i = 0; i < 150; ++i) {
        const clpool_dtype dtype = cu_maxpool_dtypes[i % 6];
        mp_case c;
        mp_random(&rng, dtype, (int32_t)(1 + (i / 6) % 4), NULL, &c);
        clpool_context *ctx = tiered_context("1");
        if (fp64 < 0) fp64 = has_fp64(ctx);
        if (dtype != CLPOOL_FLOAT64 || fp64) {
            unsigned char *y = malloc(c.out_bytes);
            int64_t *idx = malloc((size_t)ref_shape_elements(&c.out) * sizeof *idx);
            const char *ran = mp_run_checked(ctx, &c, y, idx, "first call");
            ck_assert_msg(strcmp(ran, GENERIC) == 0, "%s: the first call ran '%s'", c.desc, ran);
            free(y), free(idx);
        }
        free(c.x);
        clpool_context_release(ctx);
    }
}
END_TEST

/* A key's first call runs the first tier and builds only its program; the
 * second builds and runs the specialised one; the results are identical,
 * bit for bit, Indices included. */
START_TEST(second_call_tiers_up)
{
    ref_rng rng;
    ref_rng_seed(&rng, 0x2ca11);
    for (int i = 0; i < 12; ++i) {
        const clpool_dtype dtype = cu_maxpool_dtypes[i % 6];
        clpool_context *ctx = tiered_context("1");
        mp_case c;
        /* a window of the suite-wide catalogue: the specialised program is one other suites build too */
        const cu_window window = cu_catalogue_window(dtype, i < 6 ? 2 : 3, 0);
        mp_random(&rng, dtype, i < 6 ? 2 : 3, &window, &c);
        if (dtype == CLPOOL_FLOAT64 && !has_fp64(ctx)) {
            free(c.x);
            clpool_context_release(ctx);
            continue;
        }
        const int64_t n_out = ref_shape_elements(&c.out);
        unsigned char *y1 = malloc(c.out_bytes), *y2 = malloc(c.out_bytes);
        int64_t *i1 = malloc((size_t)n_out * sizeof *i1), *i2 = malloc((size_t)n_out * sizeof *i2);
        char first[1024];
        snprintf(first, sizeof first, "%s", mp_run_checked(ctx, &c, y1, i1, "first call"));
        ck_assert_msg(strcmp(first, GENERIC) == 0, "%s: the first call ran '%s'", c.desc, first);
        cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", c.desc);
        const char *second = mp_run_checked(ctx, &c, y2, i2, "second call");
        ck_assert_msg(strstr(second, GENERIC) == NULL && *second, "%s: the second call ran '%s'", c.desc, second);
        ck_assert_msg(memcmp(y1, y2, c.out_bytes) == 0, "%s: the tiers' outputs differ", c.desc);
        ck_assert_msg(!c.indices || memcmp(i1, i2, (size_t)n_out * sizeof *i1) == 0, "%s: the tiers' Indices differ",
                      c.desc);
        /* A third call builds nothing. */
        arm_here(c.desc, "clBuildProgram");
        cu_assert_ok(clpool_maxpool_host(ctx, &c.p, dtype, &c.in, c.x, y2, c.indices ? i2 : NULL), "clpool_maxpool_host",
                     c.desc);
        ci_disarm();
        ck_assert_msg(ci_calls() == 0, "%s: the third call built %d programs", c.desc, ci_calls());
        free(y1), free(y2), free(i1), free(i2), free(c.x);
        clpool_context_release(ctx);
    }
}
END_TEST

/* Windows over whole planes with Indices (global_max_pool_indices' path):
 * the first call runs the first tier, the second that kernel, identically. */
START_TEST(whole_plane_indices_tier_up)
{
    clpool_context *ctx = tiered_context("1");
    mp_case c;
    memset(&c, 0, sizeof c);
    c.dtype = CLPOOL_FLOAT32;
    c.in = (clpool_shape){4, {8, 64, 6, 7}};
    const int64_t k[2] = {6, 7};
    clpool_maxpool_params_init(&c.p, 2, k);
    c.p.storage_order = 1;
    c.indices = 1;
    ck_assert_int_eq(ref_maxpool_shape(&c.in, &c.p, &c.out, NULL, NULL, 0), 0);
    snprintf(c.desc, sizeof c.desc, "whole-plane windows 6x7 over 8x64 planes, column-major Indices");
    const int64_t n = ref_shape_elements(&c.in), n_out = ref_shape_elements(&c.out);
    c.x = malloc((size_t)n * 4);
    ref_rng rng;
    ref_rng_seed(&rng, 0x3a);
    for (int64_t i = 0; i < n; ++i) ref_store(c.dtype, c.x, i, (double)ref_rng_range(&rng, -3, 3));
    c.out_bytes = (size_t)n_out * 4;
    unsigned char *y1 = malloc(c.out_bytes), *y2 = malloc(c.out_bytes);
    int64_t *i1 = malloc((size_t)n_out * 8), *i2 = malloc((size_t)n_out * 8);
    char first[1024];
    snprintf(first, sizeof first, "%s", mp_run_checked(ctx, &c, y1, i1, "first call"));
    ck_assert_str_eq(first, GENERIC);
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", c.desc);
    const char *second = mp_run_checked(ctx, &c, y2, i2, "second call");
    ASSERT_SPECIALISED(second, c.desc);
    printf("note: %s: the second call ran %s\n", c.desc, second);
    ck_assert(memcmp(y1, y2, c.out_bytes) == 0 && memcmp(i1, i2, (size_t)n_out * 8) == 0);
    free(y1), free(y2), free(i1), free(i2), free(c.x);
    clpool_context_release(ctx);
}
END_TEST

/* ------------------------------------------------------------ global pools */

/* GlobalMax/Average/LpPool where the planes take the grouped kernel
 * (2x64x7x7 on CPUs) or two passes (1x2x96x96): the first call runs
 * global_pool_direct, the second the planned kernels; both within the
 * suite's tolerance of the reference, GlobalMaxPool's bit for bit. */
START_TEST(global_pools_tier_up)
{
    const clpool_shape shapes[2] = {{4, {2, 64, 7, 7}}, {4, {1, 2, 96, 96}}};
    ref_rng rng;
    ref_rng_seed(&rng, 0x610b);
    for (int s = 0; s < 2; ++s) {
        for (int op = 0; op < 3; ++op) {
            clpool_context *ctx = tiered_context("1");
            const clpool_dtype dtype = CLPOOL_FLOAT32;
            const clpool_shape *in = &shapes[s];
            const int64_t n = ref_shape_elements(in), planes = in->dims[0] * in->dims[1];
            float *x = malloc((size_t)n * sizeof *x), y[2][128];
            for (int64_t i = 0; i < n; ++i) x[i] = (float)ref_rng_range(&rng, -1000, 1000) / 64.0f;
            double want[128];
            float want_max[128];
            if (op == 0) ck_assert_int_eq(ref_global_max_pool(dtype, in, x, want_max), 0);
            if (op == 1) ck_assert_int_eq(ref_global_average_pool(dtype, in, x, want, NULL), 0);
            if (op == 2) ck_assert_int_eq(ref_global_lp_pool(dtype, in, 2.0, x, want), 0);
            char kernels[2][1024], desc[128];
            snprintf(desc, sizeof desc, "%s on [%lld,%lld,%lld,%lld]", op == 0 ? "GlobalMaxPool" : op == 1 ? "GlobalAveragePool" : "GlobalLpPool",
                     (long long)in->dims[0], (long long)in->dims[1], (long long)in->dims[2], (long long)in->dims[3]);
            for (int call = 0; call < 2; ++call) {
                if (call == 1) cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", desc);
                arm_here(desc, NULL);
                const clpool_status st = op == 0   ? clpool_global_max_pool_host(ctx, dtype, in, x, y[call])
                                         : op == 1 ? clpool_global_average_pool_host(ctx, dtype, in, x, y[call])
                                                   : clpool_global_lp_pool_host(ctx, 2.0, dtype, in, x, y[call]);
                ci_disarm();
                cu_assert_ok(st, "global pool", desc);
                snprintf(kernels[call], sizeof kernels[call], "%s", ci_kernels());
                for (int64_t i = 0; i < planes; ++i) {
                    const double got = y[call][i], ref = op == 0 ? want_max[i] : want[i];
                    cu_expect(fabs(got - ref) <= cu_global_pool_tolerance(dtype) * fabs(ref) + 1e-30,
                              "%s, call %d (%s): plane %lld is %.9g, the reference %.9g", desc, call + 1,
                              kernels[call], (long long)i, got, ref);
                }
            }
            ck_assert_msg(strcmp(kernels[0], "global_pool_direct") == 0, "%s: the first call ran '%s'", desc, kernels[0]);
            ck_assert_msg(strstr(kernels[1], "global_pool_direct") == NULL, "%s: the second call ran '%s'", desc,
                          kernels[1]);
            if (op == 0) ck_assert_msg(memcmp(y[0], y[1], (size_t)planes * sizeof(float)) == 0, "%s: tiers differ", desc);
            free(x);
            clpool_context_release(ctx);
        }
    }
}
END_TEST

/* AveragePool and LpPool: the first call runs window_first_tier, the second the planned kernel; both
 * within the reference's bound, and identical bit for bit (the same sums in the same order). Data of
 * mixed magnitudes, so float32 and float64 sums round and their order shows. Every p kind in float32,
 * AveragePool in the other dtypes (LpPool p = 2 in bfloat16), over the windows of tier_window. */
typedef enum tier_window {
    TW_2D,        /* 3x2/s2x1: sum_pool_2d */
    TW_3D,        /* 2x3x2: sum_pool_3d */
    TW_DILATED,   /* 3x2, the rows dilated: sum_pool_nd */
    TW_GROUPS,    /* 5x5/s3x2: two groups of rows, the second wholly in the end padding for the last row */
    TW_LONG_ROWS, /* 3x20: rows cut into chunks of 16 taps, sum_pool_nd */
    TW_LONG_INF,  /* the same with infinities: lanes not finite take the plain sum, the others the Kahan one */
} tier_window;

START_TEST(sum_pools_tier_up)
{
    static const struct {
        clpool_dtype dtype;
        int kind; /* 0: AveragePool, else LpPool's p */
        tier_window window;
    } runs[] = {{CLPOOL_FLOAT32, 0, TW_2D},      {CLPOOL_FLOAT32, 1, TW_DILATED}, {CLPOOL_FLOAT32, 2, TW_3D},
                {CLPOOL_FLOAT32, 3, TW_DILATED}, {CLPOOL_FLOAT64, 0, TW_2D},      {CLPOOL_FLOAT16, 0, TW_DILATED},
                {CLPOOL_BFLOAT16, 2, TW_3D},     {CLPOOL_FLOAT32, 0, TW_GROUPS},  {CLPOOL_FLOAT32, 0, TW_LONG_ROWS},
                {CLPOOL_FLOAT32, 1, TW_LONG_INF}};
    static const char *const second_kernel[] = {"sum_pool_2d", "sum_pool_3d", "sum_pool_nd",
                                                "sum_pool_2d", "sum_pool_nd", "sum_pool_nd"};
    ref_rng rng;
    ref_rng_seed(&rng, 0x5a3d7);
    for (int i = 0; i < (int)(sizeof runs / sizeof runs[0]); ++i) {
        const clpool_dtype dtype = runs[i].dtype;
        const int kind = runs[i].kind;
        const tier_window tw = runs[i].window;
        clpool_context *ctx = tiered_context("1");
        if (dtype == CLPOOL_FLOAT64 && !has_fp64(ctx)) {
            clpool_context_release(ctx);
            continue;
        }
        const int32_t ns = tw == TW_3D ? 3 : 2;
        const clpool_shape in = ns == 3 ? (clpool_shape){5, {2, 3, 4, 11, 37}} : (clpool_shape){4, {2, 3, 11, 37}};
        const int64_t n = ref_shape_elements(&in);
        const int64_t kernel[3] = {tw == TW_3D ? 2 : tw == TW_GROUPS ? 5 : 3,
                                   tw == TW_3D ? 3 : tw == TW_GROUPS ? 5 : tw >= TW_LONG_ROWS ? 20 : 2, 2};
        clpool_window_params w;
        ck_assert_int_eq(clpool_window_params_init(&w, ns, kernel), CLPOOL_SUCCESS);
        w.strides[ns - 2] = tw == TW_GROUPS ? 3 : 2;
        w.pads[ns - 2] = w.pads[2 * ns - 1] = 1;
        if (tw == TW_GROUPS) w.strides[1] = 2, w.pads[2] = w.pads[3] = 3; /* row stride 2: sum_pool_2d on 8 lanes too */
        w.ceil_mode = 1;
        w.dilations[ns - 1] = tw == TW_DILATED ? 2 : 1;
        clpool_average_pool_params a;
        clpool_lp_pool_params l;
        ck_assert_int_eq(clpool_average_pool_params_init(&a, ns, kernel), CLPOOL_SUCCESS);
        ck_assert_int_eq(clpool_lp_pool_params_init(&l, ns, kernel), CLPOOL_SUCCESS);
        a.window = l.window = w;
        a.count_include_pad = i % 2;
        l.p = kind;
        clpool_shape out;
        ck_assert_int_eq(kind ? clpool_lp_pool_output_shape(&in, &l, &out) : clpool_average_pool_output_shape(&in, &a, &out),
                         CLPOOL_SUCCESS);
        const int64_t n_out = ref_shape_elements(&out);
        const size_t es = ref_dtype_size(dtype);
        unsigned char *x = malloc((size_t)n * es), *y[2] = {malloc((size_t)n_out * es), malloc((size_t)n_out * es)};
        double *want = malloc((size_t)n_out * sizeof *want), *scale = malloc((size_t)n_out * sizeof *scale);
        for (int64_t e = 0; e < n; ++e) {
            const double v = (2 * ref_rng_unit(&rng) - 1) * ldexp(1.0, (int)ref_rng_range(&rng, -4, 4));
            ref_store(dtype, x, e, tw == TW_LONG_INF && e % 97 == 5 ? (e % 2 ? INFINITY : -INFINITY) : v);
        }
        ck_assert_int_eq(ref_sum_pool(dtype, &in, &w, a.count_include_pad, kind != 0, l.p, x, want, scale), 0);
        char desc[96], kernels[2][1024];
        snprintf(desc, sizeof desc, "%s %s p=%d count_include_pad=%d window %d", kind ? "LpPool" : "AveragePool",
                 clpool_dtype_name(dtype), kind, a.count_include_pad, (int)tw);
        for (int call = 0; call < 2; ++call) {
            if (call == 1) cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", desc);
            arm_here(desc, NULL);
            const clpool_status st = kind ? clpool_lp_pool_host(ctx, &l, dtype, &in, x, y[call])
                                          : clpool_average_pool_host(ctx, &a, dtype, &in, x, y[call]);
            ci_disarm();
            cu_assert_ok(st, "sum pool", desc);
            snprintf(kernels[call], sizeof kernels[call], "%s", ci_kernels());
            for (int64_t e = 0; e < n_out; ++e) {
                const double got = ref_load(dtype, y[call], e), ref = want[e];
                /* the error scales with the mean of |x| (AveragePool) or the result (LpPool: terms >= 0) */
                const double mag = fmax(fmax(fabs(ref), kind ? 0.0 : scale[e]), 1.0);
                cu_expect(isnan(ref) ? isnan(got) : isinf(ref) ? got == ref : fabs(got - ref) <= cu_global_pool_tolerance(dtype) * mag,
                          "%s, call %d (%s): output %lld is %.9g, the reference %.9g", desc, call + 1, kernels[call],
                          (long long)e, got, ref);
            }
        }
        const char *second = second_kernel[tw];
        ck_assert_msg(strcmp(kernels[0], GENERIC) == 0, "%s: the first call ran '%s'", desc, kernels[0]);
        ck_assert_msg(strncmp(kernels[1], second, strlen(second)) == 0, "%s: the second call ran '%s', not %s", desc,
                      kernels[1], second);
        ck_assert_msg(memcmp(y[0], y[1], (size_t)n_out * es) == 0, "%s: the tiers' outputs differ", desc);
        free(x), free(y[0]), free(y[1]), free(want), free(scale);
        clpool_context_release(ctx);
    }
}
END_TEST

/* ------------------------------------------------------------ the rules */

static const int64_t k3[2] = {3, 3};

/* MaxPool 3x3/s2 on `in` through ctx, returning the kernels that ran and the programs built on this thread. */
static const char *maxpool_once(clpool_context *ctx, const clpool_shape *in, clpool_dtype dtype, int *builds)
{
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 2, k3);
    p.strides[0] = p.strides[1] = 2;
    clpool_shape out;
    ck_assert_int_eq(clpool_maxpool_output_shape(in, &p, &out), CLPOOL_SUCCESS);
    const size_t es = clpool_dtype_size(dtype);
    unsigned char *x = calloc((size_t)clpool_shape_elements(in), es), *y = malloc((size_t)clpool_shape_elements(&out) * es);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    arm_here("maxpool_once", "clBuildProgram");
    cu_assert_ok(clpool_maxpool_host(ctx, &p, dtype, in, x, y, NULL), "clpool_maxpool_host", "maxpool_once");
    ci_disarm();
    *builds = ci_calls();
    free(x), free(y);
    return ci_kernels();
}

/* CLPOOL_TIERED=0: the first call builds and runs its specialised program. */
START_TEST(tiers_off)
{
    clpool_context *ctx = tiered_context("0");
    const clpool_shape in = {4, {1, 4, 16, 16}};
    int builds = 0;
    const char *kernels = maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds);
    ASSERT_SPECIALISED(kernels, "CLPOOL_TIERED=0");
    ck_assert_int_eq(builds, 1);
    clpool_context_release(ctx);
}
END_TEST

START_TEST(tiered_value_rejected)
{
    const char *bad[3] = {"2", "yes", "01"};
    for (int i = 0; i < 3; ++i) {
        setenv("CLPOOL_TIERED", bad[i], 1);
        clpool_context *ctx = NULL;
        char want[64];
        snprintf(want, sizeof want, "CLPOOL_TIERED='%s' is not 0 or 1", bad[i]);
        cu_assert_status(bad[i], NULL, clpool_context_create(NULL, &ctx), CLPOOL_ERROR_INVALID_ARGUMENT, want);
        ck_assert_ptr_null(ctx);
    }
}
END_TEST

/* Inputs above 64 MiB skip the first tier: the op's own time would rival the compile it saves. */
START_TEST(large_input_skips_first_tier)
{
    clpool_context *ctx = tiered_context("1");
    const clpool_shape small = {4, {1, 1, 8192, 8192}}, large = {4, {1, 1, 8200, 8200}}; /* 64 MiB, and above */
    int builds = 0;
    ck_assert_str_eq(maxpool_once(ctx, &small, CLPOOL_INT8, &builds), GENERIC);
    const char *kernels = maxpool_once(ctx, &large, CLPOOL_INT8, &builds);
    ASSERT_SPECIALISED(kernels, "int8 input above 64 MiB");
    clpool_context_release(ctx);
}
END_TEST

/* A program the binary cache holds loads in milliseconds: its first call in a new context uses it. */
START_TEST(binary_cache_entry_skips_first_tier)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tiers-cache-%ld", cu_tmpdir(), (long)getpid());
    setenv("CLPOOL_CACHE_DIR", dir, 1);
    const clpool_shape in = {4, {1, 4, 16, 16}};
    int builds = 0;
    clpool_context *ctx = tiered_context("1");
    ck_assert_str_eq(maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds), GENERIC);
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", "binary cache"); /* built, stored */
    char second[1024];
    snprintf(second, sizeof second, "%s", maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds));
    ASSERT_SPECIALISED(second, "second call");
    clpool_context_release(ctx);
    ctx = tiered_context("1");
    ck_assert_str_eq(maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds), second);
    ck_assert_str_eq(maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds), second); /* and stays */
    ck_assert_int_eq(builds, 0);
    clpool_cache_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
    ck_assert_int_eq(info.hits, 1);
    ck_assert_int_eq(info.misses, 0);
    clpool_context_release(ctx);
    setenv("CLPOOL_CACHE_DIR", "off", 1);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* With tiers on, warm-up builds the first tiers: a later first call of a
 * MaxPool key and of a global pool builds nothing on the caller's thread, and
 * warm-up asked for no specialised key (the first call queues its build). */
START_TEST(warm_up_builds_first_tiers)
{
    clpool_context *ctx = tiered_context("1");
    cu_assert_ok(clpool_context_warm_up(ctx, CLPOOL_FLOAT32), "clpool_context_warm_up", "float32");
    /* int32: Max's program only; a value that is no dtype is refused */
    cu_assert_ok(clpool_context_warm_up(ctx, CLPOOL_INT32), "clpool_context_warm_up", "int32");
    cu_assert_status("dtype 99", "clpool_context_warm_up", clpool_context_warm_up(ctx, (clpool_dtype)99),
                     CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype 99 is not a clpool_dtype");
    const clpool_shape in = {4, {1, 3, 20, 20}};
    int builds = 0;
    ck_assert_str_eq(maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds), GENERIC);
    ck_assert_int_eq(builds, 0);
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", "after warm-up");
    const char *kernels = maxpool_once(ctx, &in, CLPOOL_FLOAT32, &builds);
    ASSERT_SPECIALISED(kernels, "second call after warm-up");
    ck_assert_int_eq(builds, 0);
    const clpool_shape planes = {4, {2, 64, 7, 7}};
    float x[2 * 64 * 49] = {0}, y[128];
    arm_here("GlobalAveragePool after warm-up", "clBuildProgram");
    cu_assert_ok(clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &planes, x, y), "clpool_global_average_pool_host",
                 "after warm-up");
    ci_disarm();
    ck_assert_int_eq(ci_calls(), 0);
    ck_assert_str_eq(ci_kernels(), "global_pool_direct");
    /* AveragePool and LpPool p = 2: their first tiers are built too */
    static const int64_t k2[2] = {2, 2};
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    ck_assert_int_eq(clpool_average_pool_params_init(&avg, 2, k2), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_lp_pool_params_init(&lp, 2, k2), CLPOOL_SUCCESS);
    float out[3 * 19 * 19];
    arm_here("AveragePool after warm-up", "clBuildProgram");
    cu_assert_ok(clpool_average_pool_host(ctx, &avg, CLPOOL_FLOAT32, &in, x, out), "clpool_average_pool_host",
                 "after warm-up");
    ci_disarm();
    ck_assert_int_eq(ci_calls(), 0);
    ck_assert_str_eq(ci_kernels(), GENERIC);
    arm_here("LpPool after warm-up", "clBuildProgram");
    cu_assert_ok(clpool_lp_pool_host(ctx, &lp, CLPOOL_FLOAT32, &in, x, out), "clpool_lp_pool_host", "after warm-up");
    ci_disarm();
    ck_assert_int_eq(ci_calls(), 0);
    ck_assert_str_eq(ci_kernels(), GENERIC);
    clpool_context_release(ctx);
}
END_TEST

/* ------------------------------------------------------------ background builds */

/* A random float32 2-D MaxPool over the catalogue's window `which` (seeded), and room for two runs' outputs
 * and Indices; returns the output's elements. */
static int64_t catalogue_case(uint64_t seed, int which, mp_case *c, unsigned char **ya, unsigned char **yb,
                              int64_t **ia, int64_t **ib)
{
    ref_rng rng;
    ref_rng_seed(&rng, seed);
    const cu_window window = cu_catalogue_window(CLPOOL_FLOAT32, 2, which);
    mp_random(&rng, CLPOOL_FLOAT32, 2, &window, c);
    const int64_t n_out = ref_shape_elements(&c->out);
    *ya = malloc(c->out_bytes), *yb = malloc(c->out_bytes);
    *ia = malloc((size_t)n_out * 8), *ib = malloc((size_t)n_out * 8);
    ck_assert(*ya && *yb && *ia && *ib);
    return n_out;
}

/* A key's calls never build on the caller's thread: the first runs the first tier and queues the build,
 * the ones made while it runs take either tier (exact, identical), the context's thread builds the one
 * program, and after clpool_context_wait_builds every call takes the specialised kernel. */
START_TEST(calls_never_wait_for_builds)
{
    clpool_context *ctx = tiered_context("1");
    mp_case c;
    unsigned char *y0, *y;
    int64_t *i0, *idx;
    const int64_t n_out = catalogue_case(0xb11d, 0, &c, &y0, &y, &i0, &idx);
    ci_arm(c.desc, "clBuildProgram", 0, CL_SUCCESS);
    ci_threads(2); /* the build thread's builds */
    ck_assert_int_eq(clpool_maxpool_host(ctx, &c.p, c.dtype, &c.in, c.x, y0, c.indices ? i0 : NULL), CLPOOL_SUCCESS);
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", c.desc);
    ci_disarm();
    ck_assert_msg(ci_calls() == 1, "%s: the build thread built %d programs, not the key's one", c.desc, ci_calls());
    clpool_context_release(ctx);

    ctx = tiered_context("1");
    char first[1024];
    snprintf(first, sizeof first, "%s", mp_run_checked(ctx, &c, y0, i0, "first call"));
    ck_assert_str_eq(first, GENERIC);
    for (int call = 2; call <= 30; ++call) {
        int builds;
        char desc[600];
        snprintf(desc, sizeof desc, "%s, call %d", c.desc, call);
        const char *kernels = mp_run_checked(ctx, &c, y, idx, desc);
        builds = 0;
        arm_here(desc, "clBuildProgram");
        ck_assert_int_eq(clpool_maxpool_host(ctx, &c.p, c.dtype, &c.in, c.x, y, c.indices ? idx : NULL), CLPOOL_SUCCESS);
        ci_disarm();
        builds = ci_calls();
        ck_assert_msg(builds == 0, "%s (%s): the caller's thread built %d programs", desc, kernels, builds);
        ck_assert_msg(memcmp(y, y0, c.out_bytes) == 0 && (!c.indices || memcmp(idx, i0, (size_t)n_out * 8) == 0),
                      "%s: differs from the first tier", desc);
        if (call % 10 == 0) sleep_ms(50); /* some calls while the build runs, some after */
    }
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", c.desc);
    ASSERT_SPECIALISED(mp_run_checked(ctx, &c, y, idx, "after the build"), c.desc);
    free(y0), free(y), free(i0), free(idx), free(c.x);
    clpool_context_release(ctx);
}
END_TEST

/* Released with builds queued, waiting, building or running: the release returns, the build thread and
 * every OpenCL object it made are gone (the interposer's balance), and nothing it did shows. */
START_TEST(release_with_builds_in_flight)
{
    static const long delays_ms[] = {0, 60, 150, 400};
    for (size_t d = 0; d < sizeof delays_ms / sizeof delays_ms[0]; ++d) {
        char phase[64];
        snprintf(phase, sizeof phase, "release after %ld ms", delays_ms[d]);
        ci_arm(phase, NULL, 0, CL_SUCCESS);
        clpool_context *ctx = tiered_context("1");
        const clpool_shape in = {4, {1, 3, 20, 20}};
        for (int k = 2; k <= 4; ++k) { /* three keys: three builds queued */
            const int64_t ks[2] = {k, k};
            clpool_maxpool_params p;
            clpool_maxpool_params_init(&p, 2, ks);
            float x[3 * 20 * 20] = {0}, y[3 * 20 * 20];
            cu_assert_ok(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL), "clpool_maxpool_host", phase);
        }
        sleep_ms(delays_ms[d]);
        clpool_context_release(ctx);
        ci_disarm();
        char live[512];
        ci_describe_live(live, sizeof live);
        ck_assert_msg(ci_live(NULL) == 0, "%s: still live: %s", phase, live);
        ci_forget();
    }
}
END_TEST

/* A first call whose first tier fails still queues the key's build (started at once: there is no run to
 * wait for), and a call in a buffer too large to copy (a 300 MiB arena) is built without the run; both keys'
 * next calls take their specialised kernels. */
START_TEST(builds_after_a_failed_call_and_for_large_buffers)
{
    clpool_context *ctx = tiered_context("1");
    const clpool_shape in = {4, {1, 2, 9, 9}};
    float x[2 * 81], y[2 * 16];
    for (int i = 0; i < 2 * 81; ++i) x[i] = (float)((i * 7) % 11);
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 2, k3);
    p.strides[0] = p.strides[1] = 2;
    ci_arm("a failed first call", "clEnqueueNDRangeKernel", 1, CL_OUT_OF_RESOURCES);
    ci_threads(1);
    ck_assert_int_eq(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL), CLPOOL_ERROR_OPENCL);
    ci_disarm();
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", "after a failed call");
    arm_here("after a failed call", NULL);
    cu_assert_ok(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL), "clpool_maxpool_host", "second call");
    ci_disarm();
    ASSERT_SPECIALISED(ci_kernels(), "after a failed first call");
    float want[2 * 16];
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &in, &p, x, want, NULL), 0);
    ck_assert(memcmp(y, want, sizeof want) == 0);

    /* an arena of 300 MiB holding the 1x2x9x9 input at an offset */
    cl_int err;
    const size_t arena_bytes = (size_t)300 << 20, offset = (size_t)200 << 20;
    cl_mem arena = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE, arena_bytes, NULL, &err);
    ck_assert_ptr_nonnull(arena);
    cl_command_queue q = clpool_context_cl_queue(ctx);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, arena, CL_TRUE, offset, sizeof x, x, 0, NULL, NULL), CL_SUCCESS);
    p.strides[0] = p.strides[1] = 1;
    for (int call = 0; call < 2; ++call) {
        arm_here("a 300 MiB arena", NULL);
        cu_assert_ok(clpool_enqueue_maxpool(ctx, q, &p, CLPOOL_FLOAT32, &in, arena, offset, arena, 0, NULL, 0, 0, NULL,
                                            NULL),
                     "clpool_enqueue_maxpool", "a 300 MiB arena");
        ck_assert_int_eq(clFinish(q), CL_SUCCESS);
        ci_disarm();
        if (call == 0) {
            ck_assert_str_eq(ci_kernels(), GENERIC);
            cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", "a 300 MiB arena");
        } else {
            ASSERT_SPECIALISED(ci_kernels(), "a 300 MiB arena");
        }
        float got[2 * 49], ref[2 * 49];
        ck_assert_int_eq(clEnqueueReadBuffer(q, arena, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &in, &p, x, ref, NULL), 0);
        ck_assert(memcmp(got, ref, sizeof ref) == 0);
    }
    clReleaseMemObject(arena);
    clpool_context_release(ctx);
}
END_TEST

/* The fault sweep of the background build: the n-th OpenCL call of the context's build thread fails, for
 * every n. The caller never sees it: its calls succeed and stay exact; a program whose build failed is
 * built by the next call that needs it; every object the thread made is released with the context. */
START_TEST(background_build_faults)
{
    mp_case c;
    unsigned char *y1, *y2;
    int64_t *i1, *i2;
    const int64_t n_out = catalogue_case(0xfa17, 1, &c, &y1, &y2, &i1, &i2);
    printf("note: background build failure points:");
    /* the thread's own calls only: the helper process's failures are helper_failures_fall_back's */
    setenv("CLPOOL_BUILDER", "off", 1);
    int n = 1;
    for (; n <= 64; ++n) {
        char phase[64];
        snprintf(phase, sizeof phase, "background build, call %d failed", n);
        clpool_context *ctx = tiered_context("1");
        mp_run_checked(ctx, &c, y1, i1, phase); /* the first tier; the build starts 100 ms after it */
        ci_arm(phase, NULL, n, CL_OUT_OF_RESOURCES);
        ci_threads(2);
        cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", phase);
        ci_disarm();
        const char *failed = ci_failed_call();
        if (failed) printf(" %d:%s", n, failed);
        const char *kernels = mp_run_checked(ctx, &c, y2, i2, phase);
        ASSERT_SPECIALISED(kernels, phase);
        ck_assert_msg(memcmp(y1, y2, c.out_bytes) == 0 && (!c.indices || memcmp(i1, i2, (size_t)n_out * 8) == 0),
                      "%s: the tiers differ", phase);
        clpool_context_release(ctx);
        char live[512];
        ci_describe_live(live, sizeof live);
        ck_assert_msg(ci_live(NULL) == 0, "%s: still live: %s", phase, live);
        ci_forget();
        if (!failed) break;
    }
    printf("\n");
    unsetenv("CLPOOL_BUILDER");
    ck_assert_msg(n > 3 && n <= 64, "the sweep ended at call %d", n);
    free(y1), free(y2), free(i1), free(i2), free(c.x);
}
END_TEST

/* ------------------------------------------------------------ the helper process */

static int on_pocl(clpool_context *ctx)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    return strstr(info.platform_name, "Portable Computing Language") != NULL;
}

static long file_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* A key's first call, its build awaited, then a call that must take the specialised kernel; both exact. */
static void tier_up_checked(const char *desc)
{
    clpool_context *ctx = tiered_context("1");
    mp_case c;
    unsigned char *y0, *y;
    int64_t *i0, *idx;
    const int64_t n_out = catalogue_case(0xb01d, 0, &c, &y0, &y, &i0, &idx);
    ck_assert_str_eq(mp_run_checked(ctx, &c, y0, i0, desc), GENERIC);
    cu_assert_ok(clpool_context_wait_builds(ctx), "clpool_context_wait_builds", desc);
    ASSERT_SPECIALISED(mp_run_checked(ctx, &c, y, idx, desc), desc);
    ck_assert_msg(memcmp(y, y0, c.out_bytes) == 0 && (!c.indices || memcmp(idx, i0, (size_t)n_out * 8) == 0),
                  "%s: the tiers differ", desc);
    free(y0), free(y), free(i0), free(idx), free(c.x);
    clpool_context_release(ctx);
}

/* On PoCL the background build runs first in the helper process (clpool-builder, beside the library),
 * which builds and runs the plan and exits 0, holding none of the program's descriptors (a pipe left
 * open, not close-on-exec); elsewhere no helper is started. */
START_TEST(helper_process_builds_first)
{
    const char *real = getenv("CLPOOL_TEST_BUILDER");
    ck_assert_msg(real && *real, "CLPOOL_TEST_BUILDER (the clpool-builder to wrap) is not set");
    char log[4096], fd_list[4096], body[13000];
    snprintf(log, sizeof log, "%s/builder-%d.log", cu_tmpdir(), (int)getpid());
    snprintf(fd_list, sizeof fd_list, "%s/builder-%d.fds", cu_tmpdir(), (int)getpid());
    unlink(log), unlink(fd_list);
    snprintf(body, sizeof body, "for f in /proc/$$/fd/*; do readlink \"$f\"; done > \"%s\"\n\"%s\" \"$@\"; echo $? >> \"%s\"",
             fd_list, real, log);
    setenv("CLPOOL_BUILDER", cu_write_script("builder-wrap", body), 1);
    int pipe_fds[2];
    struct stat pipe_st;
    ck_assert_int_eq(pipe(pipe_fds), 0);
    ck_assert_int_eq(fstat(pipe_fds[1], &pipe_st), 0);
    clpool_context *ctx = tiered_context("1");
    const int pocl = on_pocl(ctx);
    clpool_context_release(ctx);
    tier_up_checked("through the helper");
    unsetenv("CLPOOL_BUILDER");
    close(pipe_fds[0]), close(pipe_fds[1]);
    if (pocl) {
        ck_assert_msg(file_long(log) == 0, "the helper's exit status was %ld (-1: it did not run)", file_long(log));
        char want[64], line[4096];
        snprintf(want, sizeof want, "pipe:[%lu]", (unsigned long)pipe_st.st_ino);
        FILE *f = fopen(fd_list, "r");
        ck_assert_ptr_nonnull(f);
        while (fgets(line, sizeof line, f)) ck_assert_msg(!strstr(line, want), "the helper holds the program's %s", want);
        fclose(f);
    } else {
        ck_assert_msg(access(log, F_OK) != 0, "a helper ran on a platform other than PoCL");
    }
    unlink(log), unlink(fd_list);
}
END_TEST

/* A helper that is off, missing, fails, is killed, does nothing, or whose children the program does not wait
 * for (SIGCHLD ignored; CLPOOL_BUILDER empty: the default helper): the build thread builds the plan itself,
 * and the key still tiers up exactly. */
START_TEST(helper_failures_fall_back)
{
    char crash[4096];
    snprintf(crash, sizeof crash, "%s", cu_write_script("builder-crash", "kill -KILL $$"));
    const char *const builders[] = {"off", "/nonexistent/clpool-builder", "/bin/false", crash,
                                    cu_write_script("builder-nothing", "exit 0"), ""};
    for (int i = 0; i < 6; ++i) {
        char desc[4200];
        setenv("CLPOOL_BUILDER", builders[i], 1);
        if (!*builders[i]) signal(SIGCHLD, SIG_IGN);
        snprintf(desc, sizeof desc, "CLPOOL_BUILDER='%s'%s", builders[i], *builders[i] ? "" : ", SIGCHLD ignored");
        tier_up_checked(desc);
        unsetenv("CLPOOL_BUILDER");
        signal(SIGCHLD, SIG_DFL);
    }
    /* PoCL's kernel cache off: the helper's results would be lost, so none starts */
    char mark[4096], body[4200];
    snprintf(mark, sizeof mark, "%s/builder-%d.ran", cu_tmpdir(), (int)getpid());
    unlink(mark);
    snprintf(body, sizeof body, "touch \"%s\"", mark);
    setenv("CLPOOL_BUILDER", cu_write_script("builder-mark", body), 1);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    tier_up_checked("POCL_KERNEL_CACHE=0");
    unsetenv("POCL_KERNEL_CACHE");
    unsetenv("CLPOOL_BUILDER");
    ck_assert_msg(access(mark, F_OK) != 0, "a helper ran with PoCL's kernel cache off");
    char long_path[5000];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    setenv("CLPOOL_BUILDER", long_path, 1);
    tier_up_checked("a CLPOOL_BUILDER path longer than PATH_MAX");
    unsetenv("CLPOOL_BUILDER");
}
END_TEST

/* Released while the helper runs: the helper is killed and reaped, so no process outlives the context. */
START_TEST(release_kills_the_helper)
{
    char pid_file[4096], body[3 * 4096 + 100];
    snprintf(pid_file, sizeof pid_file, "%s/builder-%d.pid", cu_tmpdir(), (int)getpid());
    unlink(pid_file);
    snprintf(body, sizeof body, "echo $$ > \"%s.tmp\" && mv \"%s.tmp\" \"%s\" && exec sleep 60", pid_file, pid_file,
             pid_file);
    setenv("CLPOOL_BUILDER", cu_write_script("builder-sleep", body), 1);
    clpool_context *ctx = tiered_context("1");
    const int pocl = on_pocl(ctx);
    mp_case c;
    unsigned char *y0, *y;
    int64_t *i0, *idx;
    catalogue_case(0xb01d, 0, &c, &y0, &y, &i0, &idx);
    mp_run_checked(ctx, &c, y0, i0, "the helper sleeps");
    for (int waited = 0; pocl && access(pid_file, F_OK) != 0 && waited < 20000; waited += 10) sleep_ms(10);
    const long pid = file_long(pid_file);
    const time_t before = time(NULL);
    clpool_context_release(ctx);
    const double release_s = difftime(time(NULL), before);
    unsetenv("CLPOOL_BUILDER");
    if (pocl) {
        ck_assert_msg(pid > 0, "the helper did not start within 20 s");
        ck_assert_msg(kill((pid_t)pid, 0) != 0 && errno == ESRCH, "the helper (pid %ld) outlived the context", pid);
        /* not waited out: the helper would have slept 60 s */
        ck_assert_msg(release_s < 30, "the release waited %.0f s for the helper", release_s);
    }
    unlink(pid_file);
    free(y0), free(y), free(i0), free(idx), free(c.x);
}
END_TEST

/* The helper run on `request` (a file) with `library`; its exit status, -1 if it did not exit. */
static int run_helper(const char *helper, const char *library, const char *request)
{
    char cmd[3 * 4096 + 64];
    snprintf(cmd, sizeof cmd, "\"%s\" %s%s%s < \"%s\" 2>/dev/null", helper, library ? "\"" : "", library ? library : "",
             library ? "\"" : "", request);
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, bytes, f), bytes);
    fclose(f);
}

/* The helper serves a request of its own library (exit 0) and nothing else: a request cut short or too long,
 * of another format or plan layout, a plan it cannot hold (exit 2); a device it does not have, a library
 * without its entry point, no request at all (exit 1 or 2). A request saved from a real build is the base. */
START_TEST(helper_rejects_what_is_not_a_request)
{
    const char *real = getenv("CLPOOL_TEST_BUILDER");
    ck_assert_msg(real && *real, "CLPOOL_TEST_BUILDER (the clpool-builder to wrap) is not set");
    clpool_context *ctx = tiered_context("1");
    const int pocl = on_pocl(ctx);
    clpool_context_release(ctx);
    if (!pocl) return; /* no helper runs elsewhere */
    char saved[4096], lib_file[4096], body[4 * 4096], library[4096] = "", bad[4200];
    snprintf(saved, sizeof saved, "%s/builder-%d.request", cu_tmpdir(), (int)getpid());
    snprintf(lib_file, sizeof lib_file, "%s/builder-%d.library", cu_tmpdir(), (int)getpid());
    snprintf(bad, sizeof bad, "%s/builder-%d.bad", cu_tmpdir(), (int)getpid());
    snprintf(body, sizeof body, "cat > \"%s\"; printf %%s \"$1\" > \"%s\"; exec \"%s\" \"$@\" < \"%s\"", saved, lib_file,
             real, saved);
    setenv("CLPOOL_BUILDER", cu_write_script("builder-save", body), 1);
    tier_up_checked("a request saved");
    unsetenv("CLPOOL_BUILDER");
    FILE *f = fopen(lib_file, "r");
    ck_assert_msg(f && fgets(library, sizeof library, f), "the helper was not started");
    fclose(f);
    clpool__builder_request req;
    f = fopen(saved, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(fread(&req, sizeof req, 1, f) == 1, "the saved request is short");
    fclose(f);
    ck_assert_int_eq(run_helper(real, library, saved), 0);

    /* the base, then one field broken per case */
    typedef struct broken {
        const char *what;
        size_t bytes;
        int want;
    } broken;
    const broken cases[] = {
        {"cut short", sizeof req - 1, 2},     {"one byte too many", sizeof req + 1, 2}, {"another magic", 0, 2},
        {"another plan size", 0, 2},          {"three launches", 0, 2},                {"a path past the table", 0, 2},
        {"a negative define count", 0, 2},    {"a kernel past its family", 0, 2},      {"another device", 0, 1},
        {"no launch", 0, 2},                  {"no path", 0, 2},                       {"too many defines", 0, 2},
        {"a negative kernel", 0, 2},          {"a path without a program", 0, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        clpool__builder_request r = req;
        unsigned char buf[sizeof req + 1] = {0};
        switch (i) {
        case 2: r.magic[0] ^= 1; break;
        case 3: r.plan_size += 8; break;
        case 4: r.plan.launches = 3; break;
        case 5: r.plan.launch[0].path = CLPOOL__PATHS; break;
        case 6: r.plan.launch[0].options.count = -1; break;
        case 7: r.wire[0].kernel = 1000; break;
        case 8: snprintf(r.device, sizeof r.device, "no such device"); break;
        case 9: r.plan.launches = 0; break;
        case 10: r.plan.launch[0].path = CLPOOL__PATH_NONE; break;
        case 11: r.plan.launch[0].options.count = CLPOOL__OPTIONS_DEFINES + 1; break;
        case 12: r.wire[0].kernel = -1; break;
        case 13: r.plan.launch[0].path = CLPOOL__PATH_MAXPOOL_3D_TWO_PASS; break;
        default: break;
        }
        memcpy(buf, &r, sizeof r);
        write_file(bad, buf, cases[i].bytes ? cases[i].bytes : sizeof r);
        const int got = run_helper(real, library, bad);
        ck_assert_msg(got == cases[i].want, "%s: the helper exited with %d, not %d", cases[i].what, got, cases[i].want);
    }
    ck_assert_int_eq(run_helper(real, NULL, saved), 2);                     /* no library named */
    ck_assert_int_eq(run_helper(real, "/nonexistent/libclpool.so", saved), 1); /* nothing to load */
    ck_assert_int_eq(run_helper(real, library, "/dev/null"), 2);            /* no request */
    ck_assert_int_eq(run_helper(real, library, "/"), 2);                    /* stdin unreadable */
    unlink(saved), unlink(lib_file), unlink(bad);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tiers");
    TCase *tc = cu_tcase(s, "tiers", 0);
    tcase_add_test(tc, first_tier_matches_reference);
    tcase_add_test(tc, second_call_tiers_up);
    tcase_add_test(tc, whole_plane_indices_tier_up);
    tcase_add_test(tc, global_pools_tier_up);
    tcase_add_test(tc, sum_pools_tier_up);
    tcase_add_test(tc, tiers_off);
    tcase_add_test(tc, tiered_value_rejected);
    tcase_add_test(tc, large_input_skips_first_tier);
    tcase_add_test(tc, binary_cache_entry_skips_first_tier);
    tcase_add_test(tc, warm_up_builds_first_tiers);
    tcase_add_test(tc, calls_never_wait_for_builds);
    tcase_add_test(tc, release_with_builds_in_flight);
    tcase_add_test(tc, builds_after_a_failed_call_and_for_large_buffers);
    tcase_add_test(tc, background_build_faults);
    tcase_add_test(tc, helper_process_builds_first);
    tcase_add_test(tc, helper_failures_fall_back);
    tcase_add_test(tc, release_kills_the_helper);
    tcase_add_test(tc, helper_rejects_what_is_not_a_request);
    return cu_run_suite(s, CK_NORMAL);
}
