/*
 * clpool-demo [--device DEV]: show the library at work on a device (default:
 * the default one). Each case generates data with a fixed seed, runs the op
 * through the enqueue API, checks the result against the tests' plain-C
 * reference (tests/reference*.c; bit for bit, or within the dtype's tolerance
 * for sums) and times the op: median of several runs, wall clock around
 * enqueue + clFinish. Exit 0 only if every check passes, 1 if one fails, 2 on
 * a usage error. A program of the build tree (tools/demo.sh runs it): the
 * installed clpool tool links no test code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "reference.h"
#include "reference_ops.h"

#define DEMO_REPEATS 7
#define DEMO_MAX_INPUTS 2

/* DEMO_AVGPOOL: 3x3/s1/p1 count_include_pad 0 (Inception); DEMO_LPPOOL2: 3x3/s2, p = 2;
 * DEMO_MAXUNPOOL: the reference MaxPool 3x3/s2/p1's output and Indices (its input: inputs[0]) unpooled back */
typedef enum demo_kind {
    DEMO_MAXPOOL, DEMO_MAXPOOL_INDICES, DEMO_AVGPOOL, DEMO_LPPOOL2, DEMO_MAXUNPOOL, DEMO_GLOBAL_MAX, DEMO_GLOBAL_AVG,
    DEMO_GLOBAL_LP2, DEMO_MAX
} demo_kind;

typedef struct demo_case {
    const char *label;
    demo_kind kind;
    clpool_dtype dtype;
    int n_inputs;
    clpool_shape inputs[DEMO_MAX_INPUTS];
} demo_case;

/* Everything one case needs on host and device. */
typedef struct demo_run {
    const demo_case *c;
    clpool_maxpool_params params; /* MaxPool cases: 3x3/s2/p1 or 2x2/s2 */
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    clpool_max_unpool_params unpool;
    clpool_shape x_shape; /* the op's input: inputs[0], or MaxUnpool's X */
    clpool_shape out_shape;
    void *host_in[DEMO_MAX_INPUTS], *host_out, *want;
    int64_t *host_idx, *want_idx;
    double *want_sum; /* per-plane reference of Average/Lp */
    clpool_tensor *in[DEMO_MAX_INPUTS], *out, *idx;
    double bytes;
} demo_run;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Random data with many ties; positive for the sums so relative error is meaningful. */
static void fill_random(clpool_dtype dtype, void *data, int64_t n, uint64_t seed, int positive)
{
    ref_rng rng;
    ref_rng_seed(&rng, seed);
    for (int64_t i = 0; i < n; ++i) {
        double v = (double)ref_rng_range(&rng, positive || dtype == CLPOOL_UINT8 ? 1 : -100, 100);
        if (ref_dtype_is_float(dtype)) v /= 4.0;
        ref_store(dtype, data, i, v);
    }
}

static clpool_status enqueue(clpool_context *ctx, cl_command_queue q, demo_run *r)
{
    const demo_case *c = r->c;
    cl_mem mems[DEMO_MAX_INPUTS];
    size_t offsets[DEMO_MAX_INPUTS] = {0};
    for (int i = 0; i < c->n_inputs; ++i) mems[i] = clpool_tensor_mem(r->in[i]);
    cl_mem out = clpool_tensor_mem(r->out);
    switch (c->kind) {
    case DEMO_MAXPOOL:
    case DEMO_MAXPOOL_INDICES:
        return clpool_enqueue_maxpool(ctx, q, &r->params, c->dtype, &c->inputs[0], mems[0], 0, out, 0,
                                      c->kind == DEMO_MAXPOOL_INDICES ? clpool_tensor_mem(r->idx) : NULL, 0, 0, NULL,
                                      NULL);
    case DEMO_AVGPOOL:
        return clpool_enqueue_average_pool(ctx, q, &r->avg, c->dtype, &c->inputs[0], mems[0], 0, out, 0, 0, NULL, NULL);
    case DEMO_LPPOOL2:
        return clpool_enqueue_lp_pool(ctx, q, &r->lp, c->dtype, &c->inputs[0], mems[0], 0, out, 0, 0, NULL, NULL);
    case DEMO_GLOBAL_MAX:
        return clpool_enqueue_global_max_pool(ctx, q, c->dtype, &c->inputs[0], mems[0], 0, out, 0, 0, NULL, NULL);
    case DEMO_GLOBAL_AVG:
        return clpool_enqueue_global_average_pool(ctx, q, c->dtype, &c->inputs[0], mems[0], 0, out, 0, 0, NULL, NULL);
    case DEMO_GLOBAL_LP2:
        return clpool_enqueue_global_lp_pool(ctx, q, 2.0, c->dtype, &c->inputs[0], mems[0], 0, out, 0, 0, NULL, NULL);
    case DEMO_MAX:
        return clpool_enqueue_max(ctx, q, c->dtype, (size_t)c->n_inputs, c->inputs, mems, offsets, out, 0, 0, NULL,
                                  NULL);
    case DEMO_MAXUNPOOL:
        return clpool_enqueue_max_unpool(ctx, q, &r->unpool, c->dtype, &r->x_shape, mems[0], 0,
                                         clpool_tensor_mem(r->idx), 0, out, 0, NULL, 0, 0, NULL, NULL);
    }
    return CLPOOL_ERROR_INVALID_ARGUMENT;
}

/* MaxUnpool's X and Indices: the reference MaxPool of random data of inputs[0]'s shape; the output is that
 * shape again (PyTorch's reading of the Indices). Returns 0 or -1. */
static int prepare_unpool(demo_run *r)
{
    const demo_case *c = r->c;
    const size_t es = clpool_dtype_size(c->dtype);
    static const int64_t k3[2] = {3, 3};
    clpool_maxpool_params_init(&r->params, 2, k3);
    clpool_max_unpool_params_init(&r->unpool, 2, k3);
    for (int i = 0; i < 2; ++i) r->params.strides[i] = r->unpool.window.strides[i] = 2;
    for (int i = 0; i < 4; ++i) r->params.pads[i] = r->unpool.window.pads[i] = 1;
    r->unpool.has_output_shape = 1;
    r->unpool.output_shape = c->inputs[0];
    r->unpool.indices = CLPOOL_UNPOOL_INDICES_OUTPUT;
    if (clpool_maxpool_output_shape(&c->inputs[0], &r->params, &r->x_shape) != CLPOOL_SUCCESS ||
        clpool_max_unpool_output_shape(&r->x_shape, &r->unpool, &r->out_shape) != CLPOOL_SUCCESS)
        return -1;
    const int64_t n = clpool_shape_elements(&c->inputs[0]), n_x = clpool_shape_elements(&r->x_shape);
    void *input = malloc((size_t)n * es);
    r->host_in[0] = malloc((size_t)n_x * es);
    r->host_idx = malloc((size_t)n_x * 8);
    r->want = malloc((size_t)n * es);
    r->host_out = malloc((size_t)n * es);
    int rc = input && r->host_in[0] && r->host_idx && r->want && r->host_out ? 0 : -1;
    if (rc == 0) {
        fill_random(c->dtype, input, n, 42, 0);
        rc = ref_maxpool(c->dtype, &c->inputs[0], &r->params, input, r->host_in[0], r->host_idx);
    }
    if (rc == 0 && ref_max_unpool(c->dtype, &r->x_shape, r->host_in[0], r->host_idx, &r->out_shape, &r->out_shape,
                                  r->want) != 0)
        rc = -1;
    r->bytes = (double)n_x * (double)(es + 8) + (double)n * (double)es;
    free(input);
    return rc;
}

/* Output shape and the reference result. Returns 0 or -1. */
static int prepare(demo_run *r)
{
    const demo_case *c = r->c;
    r->x_shape = c->inputs[0];
    if (c->kind == DEMO_MAXUNPOOL) return prepare_unpool(r);
    const size_t es = clpool_dtype_size(c->dtype);
    const int sums = c->kind == DEMO_GLOBAL_AVG || c->kind == DEMO_GLOBAL_LP2 || c->kind == DEMO_AVGPOOL ||
                     c->kind == DEMO_LPPOOL2;
    for (int i = 0; i < c->n_inputs; ++i) {
        const int64_t n = clpool_shape_elements(&c->inputs[i]);
        if (!(r->host_in[i] = malloc((size_t)n * es))) return -1;
        fill_random(c->dtype, r->host_in[i], n, 42 + (uint64_t)i, sums);
        r->bytes += (double)n * (double)es;
    }
    clpool_status st;
    if (c->kind == DEMO_MAXPOOL || c->kind == DEMO_MAXPOOL_INDICES) {
        const int64_t k = c->inputs[0].dims[2] >= 112 ? 3 : 2, ks[2] = {k, k};
        clpool_maxpool_params_init(&r->params, 2, ks);
        r->params.strides[0] = r->params.strides[1] = 2;
        for (int i = 0; i < 4; ++i) r->params.pads[i] = k == 3;
        st = clpool_maxpool_output_shape(&c->inputs[0], &r->params, &r->out_shape);
    } else if (c->kind == DEMO_AVGPOOL || c->kind == DEMO_LPPOOL2) {
        static const int64_t k3[2] = {3, 3};
        clpool_average_pool_params_init(&r->avg, 2, k3);
        clpool_lp_pool_params_init(&r->lp, 2, k3);
        for (int i = 0; i < 4; ++i) r->avg.window.pads[i] = 1;
        r->lp.window.strides[0] = r->lp.window.strides[1] = 2;
        st = c->kind == DEMO_AVGPOOL ? clpool_average_pool_output_shape(&c->inputs[0], &r->avg, &r->out_shape)
                                     : clpool_lp_pool_output_shape(&c->inputs[0], &r->lp, &r->out_shape);
    } else if (c->kind == DEMO_MAX) {
        st = clpool_max_output_shape((size_t)c->n_inputs, c->inputs, &r->out_shape);
    } else {
        st = clpool_global_pool_output_shape(&c->inputs[0], &r->out_shape);
    }
    if (st != CLPOOL_SUCCESS) return -1;
    const int64_t n_out = clpool_shape_elements(&r->out_shape);
    r->bytes += (double)n_out * (double)es * (c->kind == DEMO_MAXPOOL_INDICES ? 1.0 + 8.0 / (double)es : 1.0);
    r->host_out = malloc((size_t)n_out * es);
    r->want = malloc((size_t)n_out * es);
    r->host_idx = malloc((size_t)n_out * 8);
    r->want_idx = malloc((size_t)n_out * 8);
    r->want_sum = malloc((size_t)n_out * sizeof(double));
    if (!r->host_out || !r->want || !r->host_idx || !r->want_idx || !r->want_sum) return -1;
    switch (c->kind) {
    case DEMO_MAXPOOL:
    case DEMO_MAXPOOL_INDICES:
        return ref_maxpool(c->dtype, &c->inputs[0], &r->params, r->host_in[0], r->want, r->want_idx);
    case DEMO_AVGPOOL:
        return ref_sum_pool(c->dtype, &c->inputs[0], &r->avg.window, 0, 0, 0.0, r->host_in[0], r->want_sum, NULL);
    case DEMO_LPPOOL2:
        return ref_sum_pool(c->dtype, &c->inputs[0], &r->lp.window, 0, 1, 2.0, r->host_in[0], r->want_sum, NULL);
    case DEMO_GLOBAL_MAX: return ref_global_max_pool(c->dtype, &c->inputs[0], r->host_in[0], r->want);
    case DEMO_GLOBAL_AVG: return ref_global_average_pool(c->dtype, &c->inputs[0], r->host_in[0], r->want_sum, NULL);
    case DEMO_GLOBAL_LP2: return ref_global_lp_pool(c->dtype, &c->inputs[0], 2.0, r->host_in[0], r->want_sum);
    case DEMO_MAX:
        return ref_max(c->dtype, (size_t)c->n_inputs, c->inputs, (const void *const *)r->host_in, r->want);
    case DEMO_MAXUNPOOL: return -1; /* prepare_unpool's */
    }
    return -1;
}

/* Compare the downloaded result with the reference. */
static int check(const demo_run *r)
{
    const demo_case *c = r->c;
    const int64_t n_out = clpool_shape_elements(&r->out_shape);
    const size_t es = clpool_dtype_size(c->dtype);
    if (c->kind == DEMO_GLOBAL_AVG || c->kind == DEMO_GLOBAL_LP2 || c->kind == DEMO_AVGPOOL || c->kind == DEMO_LPPOOL2) {
        /* float32 accumulation is tested to 1e-5; narrower outputs add their own rounding. */
        const double tol = c->dtype == CLPOOL_FLOAT16 ? 2e-3 : c->dtype == CLPOOL_BFLOAT16 ? 1e-2
                         : c->dtype == CLPOOL_FLOAT64 ? 1e-12 : 1e-5;
        for (int64_t i = 0; i < n_out; ++i) {
            const double got = ref_load(c->dtype, r->host_out, i), want = r->want_sum[i];
            if (!(fabs(got - want) <= tol * fabs(want))) return 0;
        }
        return 1;
    }
    if (memcmp(r->host_out, r->want, (size_t)n_out * es) != 0) return 0;
    return c->kind != DEMO_MAXPOOL_INDICES || memcmp(r->host_idx, r->want_idx, (size_t)n_out * 8) == 0;
}

static void release(demo_run *r)
{
    for (int i = 0; i < DEMO_MAX_INPUTS; ++i) {
        clpool_tensor_release(r->in[i]);
        free(r->host_in[i]);
    }
    clpool_tensor_release(r->out);
    clpool_tensor_release(r->idx);
    free(r->host_out);
    free(r->want);
    free(r->host_idx);
    free(r->want_idx);
    free(r->want_sum);
}

/* Run one case; prints its table row and returns 1 if it passed. */
static int run_case(clpool_context *ctx, const demo_case *c)
{
    char shape[96] = "";
    for (int i = 0; i < c->n_inputs; ++i) {
        size_t used = strlen(shape);
        snprintf(shape + used, sizeof shape - used, "%s", i ? " & " : "");
        for (int d = 0; d < c->inputs[i].rank; ++d) {
            used = strlen(shape);
            snprintf(shape + used, sizeof shape - used, d ? "x%lld" : "%lld", (long long)c->inputs[i].dims[d]);
        }
    }
    printf("%-30s %-9s %-28s ", c->label, clpool_dtype_name(c->dtype), shape);
    demo_run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    const char *problem = NULL;
    double times[DEMO_REPEATS + 1];
    cl_command_queue q = clpool_context_cl_queue(ctx);
    if (prepare(&r) != 0) {
        problem = "could not prepare the case (host memory or reference)";
        goto done;
    }
    const int unpool = c->kind == DEMO_MAXUNPOOL; /* Indices in: X's shape, uploaded */
    for (int i = 0; i < c->n_inputs && !problem; ++i)
        if (clpool_tensor_create(ctx, c->dtype, i ? &c->inputs[i] : &r.x_shape, &r.in[i]) != CLPOOL_SUCCESS ||
            clpool_tensor_upload(r.in[i], r.host_in[i], clpool_tensor_bytes(r.in[i])) != CLPOOL_SUCCESS)
            problem = clpool_last_error();
    if (!problem && (clpool_tensor_create(ctx, c->dtype, &r.out_shape, &r.out) != CLPOOL_SUCCESS ||
                     clpool_tensor_create(ctx, CLPOOL_INT64, unpool ? &r.x_shape : &r.out_shape, &r.idx) !=
                         CLPOOL_SUCCESS ||
                     (unpool && clpool_tensor_upload(r.idx, r.host_idx, clpool_tensor_bytes(r.idx)) != CLPOOL_SUCCESS)))
        problem = clpool_last_error();
    for (int rep = 0; rep <= DEMO_REPEATS && !problem; ++rep) { /* run 0 is the warm-up (kernel build) */
        const double t0 = now_ms();
        if (enqueue(ctx, q, &r) != CLPOOL_SUCCESS || clFinish(q) != CL_SUCCESS) problem = clpool_last_error();
        times[rep] = now_ms() - t0;
    }
    if (!problem && (clpool_tensor_download(r.out, r.host_out, clpool_tensor_bytes(r.out)) != CLPOOL_SUCCESS ||
                     (!unpool && clpool_tensor_download(r.idx, r.host_idx, clpool_tensor_bytes(r.idx)) != CLPOOL_SUCCESS)))
        problem = clpool_last_error();
done:
    if (problem) {
        printf("%10s %8s  FAILED: %s\n", "-", "-", problem);
        release(&r);
        return 0;
    }
    qsort(times + 1, DEMO_REPEATS, sizeof times[0], cmp_double);
    const double median = times[1 + DEMO_REPEATS / 2];
    const int ok = check(&r);
    printf("%10.3f %8.2f  %s\n", median, r.bytes / (median * 1e6), ok ? "matches reference" : "MISMATCH");
    release(&r);
    return ok;
}

#define SHAPE4(a, b, c, d) {4, {a, b, c, d}}

static const demo_case cases[] = {
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_FLOAT32, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 3x3/s2/p1 +Indices", DEMO_MAXPOOL_INDICES, CLPOOL_FLOAT32, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 2x2/s2", DEMO_MAXPOOL, CLPOOL_FLOAT32, 1, {SHAPE4(4, 128, 56, 56)}},
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_FLOAT16, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_BFLOAT16, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_INT8, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_UINT8, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxPool 3x3/s2/p1", DEMO_MAXPOOL, CLPOOL_FLOAT64, 1, {SHAPE4(2, 64, 112, 112)}},
    {"AveragePool 3x3/s1/p1", DEMO_AVGPOOL, CLPOOL_FLOAT32, 1, {SHAPE4(8, 192, 35, 35)}},
    {"AveragePool 3x3/s1/p1", DEMO_AVGPOOL, CLPOOL_FLOAT16, 1, {SHAPE4(8, 192, 35, 35)}},
    {"LpPool p=2 3x3/s2", DEMO_LPPOOL2, CLPOOL_FLOAT32, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxUnpool 3x3/s2/p1", DEMO_MAXUNPOOL, CLPOOL_FLOAT32, 1, {SHAPE4(4, 64, 112, 112)}},
    {"MaxUnpool 3x3/s2/p1", DEMO_MAXUNPOOL, CLPOOL_UINT8, 1, {SHAPE4(4, 64, 112, 112)}},
    {"GlobalAveragePool", DEMO_GLOBAL_AVG, CLPOOL_FLOAT32, 1, {SHAPE4(32, 2048, 7, 7)}},
    {"GlobalMaxPool", DEMO_GLOBAL_MAX, CLPOOL_FLOAT32, 1, {SHAPE4(32, 2048, 7, 7)}},
    {"GlobalAveragePool", DEMO_GLOBAL_AVG, CLPOOL_FLOAT32, 1, {SHAPE4(1, 3, 1024, 1024)}},
    {"GlobalLpPool p=2", DEMO_GLOBAL_LP2, CLPOOL_FLOAT16, 1, {SHAPE4(8, 256, 56, 56)}},
    {"Max (same shape)", DEMO_MAX, CLPOOL_FLOAT32, 2, {SHAPE4(16, 64, 64, 64), SHAPE4(16, 64, 64, 64)}},
    {"Max (broadcast)", DEMO_MAX, CLPOOL_FLOAT32, 2, {SHAPE4(16, 64, 64, 64), SHAPE4(1, 64, 1, 1)}},
    {"Max (same shape)", DEMO_MAX, CLPOOL_INT8, 2, {SHAPE4(16, 64, 64, 64), SHAPE4(16, 64, 64, 64)}},
};

/* "clpool-demo: MESSAGE ['ARG'] (see 'clpool-demo --help')" on stderr; exit status 2. */
static int usage_error(const char *message, const char *arg)
{
    fprintf(stderr, "clpool-demo: %s%s%s%s (see 'clpool-demo --help')\n", message, arg ? " '" : "", arg ? arg : "",
            arg ? "'" : "");
    return 2;
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: clpool-demo [--device DEV]\n"
                   "Run each op on generated data, check it against the C reference, time it.\n"
                   "  --device DEV     as for clpool run\n");
            return 0;
        }
        if (strcmp(argv[i], "--device") != 0) return usage_error("unexpected argument", argv[i]);
        if (i + 1 == argc) return usage_error("--device needs a value", NULL);
        device = argv[++i];
    }
    clpool_context *ctx = NULL;
    const clpool_status st = clpool_context_create(device, &ctx);
    if (st != CLPOOL_SUCCESS) {
        fprintf(stderr, "clpool-demo: %s: %s\n", clpool_status_string(st), clpool_last_error());
        return 1;
    }
    clpool_device_info info;
    clpool_context_device_info(ctx, &info);
    printf("clpool %s on %s / %s (%u compute units, fp64 %s)\n\n", clpool_version_string(), info.platform_name,
           info.device_name, info.compute_units, info.has_fp64 ? "yes" : "no");
    printf("%-30s %-9s %-28s %10s %8s  %s\n", "op", "dtype", "input", "median ms", "GB/s", "check");
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (cases[i].dtype == CLPOOL_FLOAT64 && !info.has_fp64) {
            printf("%-30s %-9s %-28s %10s %8s  skipped: device has no cl_khr_fp64\n", cases[i].label, "float64", "",
                   "-", "-");
            continue;
        }
        failed += !run_case(ctx, &cases[i]);
    }
    clpool_context_release(ctx);
    printf("\n%s\n", failed ? "demo FAILED" : "all results match the C reference");
    return failed ? 1 : 0;
}
