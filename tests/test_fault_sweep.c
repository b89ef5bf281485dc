/*
 * The fault sweep: every OpenCL call an op makes fails in turn (SQLite's
 * method). For each op and path, call n = 1, 2, ... of the op is made to
 * fail with CL_OUT_OF_RESOURCES (tests/cl_interpose.c) until a run no
 * longer reaches call n. Each failed run must
 *   - return CLPOOL_ERROR_OPENCL (BUILD_FAILED for clBuildProgram) with a
 *     message naming the failed call and its error, and no event;
 *   - after the caller follows the header's contract (finish the queue),
 *     have released every buffer and event it made (the interposer counts
 *     creates, retains and releases); kernels and programs it pooled go with
 *     the context, checked once the context is released;
 *   - leave the context usable: the same call then succeeds with results
 *     equal to the references of tests/reference*.c.
 * A run may also succeed despite its failed call (a fallback: the 3-D
 * two-pass scratch, an optional device query); its results are then checked.
 *
 * Each test uses one context for all its ops and small shapes: programs are
 * built once per context, so most runs cost a few enqueues. The context
 * creation and program build calls are swept separately, with a context
 * made (or adopted) inside each run. Every op prints its failure points.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "cl_interpose.h"
#include "reference.h"
#include "reference_ops.h"

#define INJECTED CL_OUT_OF_RESOURCES
#define MAX_INPUTS 8

typedef enum {
    OP_MAXPOOL,
    OP_GLOBAL_MAX,
    OP_GLOBAL_AVG,
    OP_GLOBAL_LP,
    OP_AVERAGE_POOL, /* count_include_pad 1 */
    OP_MAXPOOL_VIEW, /* the input a view reversed along its last dim (clpool_enqueue_maxpool_view) */
    OP_MAX_VIEW,     /* every input reversed along its last dim (clpool_enqueue_max_view: -DVIEW=1) */
    OP_MAX,
    OP_MAXPOOL_HOST,
    OP_GLOBAL_AVG_HOST,
    OP_LP_POOL_HOST, /* p = 2 */
    OP_MAX_HOST,
    OP_MAX_UNPOOL,      /* X and Indices of a 2x2/s2 window, the output twice X's size */
    OP_MAX_UNPOOL_VIEW, /* the same, X a view reversed along its last dim (clpool_enqueue_max_unpool_view) */
    OP_MAX_UNPOOL_HOST,
    OP_TENSORS,
    OP_WARM_UP
} op_kind;

/* One op on one path: inputs, the reference result, and the op's output. */
typedef struct sweep_case {
    const char *name;
    op_kind op;
    clpool_maxpool_params p;
    int with_indices;
    size_t n_in;
    clpool_shape shapes[MAX_INPUTS], out_shape;
    float *x[MAX_INPUTS];
    cl_mem in[MAX_INPUTS], out, idx; /* device ops */
    cl_command_queue queue;          /* NULL: the context's */
    int64_t n_out;
    float *want, *got;
    double *want_d; /* average / Lp references */
    int64_t *want_idx, *got_idx;
    int64_t *unpool_idx;  /* MaxUnpool's indices */
    cl_mem unpool_idx_mem; /* and their buffer (device ops) */
} sweep_case;

static void fill_float(float *x, int64_t n, uint64_t seed)
{
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; ++i) x[i] = (float)(ref_rng_unit(&r) * 2.0 - 1.0);
}

static int is_host(op_kind op)
{
    return op == OP_MAXPOOL_HOST || op == OP_GLOBAL_AVG_HOST || op == OP_LP_POOL_HOST || op == OP_MAX_HOST ||
           op == OP_MAX_UNPOOL_HOST;
}
static int is_unpool(op_kind op) { return op == OP_MAX_UNPOOL || op == OP_MAX_UNPOOL_VIEW || op == OP_MAX_UNPOOL_HOST; }

/* MaxUnpool's params: the case's kernel_shape and strides. */
static clpool_max_unpool_params unpool_params(const sweep_case *c)
{
    clpool_max_unpool_params up;
    ck_assert_int_eq(clpool_max_unpool_params_init(&up, c->p.spatial_rank, c->p.kernel_shape), CLPOOL_SUCCESS);
    memcpy(up.window.strides, c->p.strides, sizeof up.window.strides);
    return up;
}
static int is_maxpool(op_kind op) { return op == OP_MAXPOOL || op == OP_MAXPOOL_HOST || op == OP_MAXPOOL_VIEW; }
static int is_view(op_kind op) { return op == OP_MAXPOOL_VIEW || op == OP_MAX_VIEW || op == OP_MAX_UNPOOL_VIEW; }
static int is_sum_pool(op_kind op) { return op == OP_AVERAGE_POOL || op == OP_LP_POOL_HOST; }

/* The window of a case's MaxPool params (AveragePool and LpPool cases carry theirs there). */
static clpool_window_params window_of(const sweep_case *c)
{
    clpool_window_params w;
    ck_assert_int_eq(clpool_window_params_init(&w, c->p.spatial_rank, c->p.kernel_shape), CLPOOL_SUCCESS);
    memcpy(w.strides, c->p.strides, sizeof w.strides);
    memcpy(w.pads, c->p.pads, sizeof w.pads);
    return w;
}
static int is_max(op_kind op) { return op == OP_MAX || op == OP_MAX_HOST || op == OP_MAX_VIEW; }

/* A view op's input i: the buffer's elements with the last dim reversed, element 0 at the row's end. */
static clpool_view reversed_view(const sweep_case *c, size_t i)
{
    clpool_view v;
    ck_assert_int_eq(clpool_view_contiguous(&v, c->in[i], 0, &c->shapes[i]), CLPOOL_SUCCESS);
    const int32_t last = c->shapes[i].rank - 1;
    if (last >= 0 && c->shapes[i].dims[last] > 1) {
        v.offset = (size_t)(c->shapes[i].dims[last] - 1) * sizeof(float);
        v.strides[last] = -1;
    }
    return v;
}

/* The logical tensor of reversed_view over `x` (a reference's input). */
static float *reversed_rows(const float *x, const clpool_shape *shape)
{
    const int64_t n = clpool_shape_elements(shape), w = shape->rank ? shape->dims[shape->rank - 1] : 1;
    float *r = malloc((size_t)(n ? n : 1) * sizeof(float));
    ck_assert_ptr_nonnull(r);
    for (int64_t e = 0; e < n; ++e) r[e] = x[e - e % w + (w - 1 - e % w)];
    return r;
}

/* Inputs, reference and buffers of a case whose name, op, shapes (and params) are set. */
static void case_setup(sweep_case *c, clpool_context *ctx)
{
    const cl_context cl = clpool_context_cl_context(ctx);
    for (size_t i = 0; i < c->n_in; ++i) {
        const int64_t n = clpool_shape_elements(&c->shapes[i]);
        c->x[i] = malloc((size_t)n * sizeof(float));
        ck_assert_ptr_nonnull(c->x[i]);
        fill_float(c->x[i], n, 100 + i);
        if (!is_host(c->op)) {
            cl_int err;
            c->in[i] = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)n * sizeof(float), c->x[i],
                                      &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
    }
    clpool_window_params w;
    if (is_sum_pool(c->op)) w = window_of(c);
    if (is_maxpool(c->op))
        ck_assert_int_eq(ref_maxpool_shape(&c->shapes[0], &c->p, &c->out_shape, NULL, NULL, 0), 0);
    else if (is_sum_pool(c->op))
        ck_assert_int_eq(ref_window_shape(&c->shapes[0], &w, 0, &c->out_shape, NULL, NULL, 0), 0);
    else if (is_max(c->op))
        ck_assert_int_eq(ref_max_shape(c->n_in, c->shapes, &c->out_shape), 0);
    else if (is_unpool(c->op)) {
        const clpool_max_unpool_params up = unpool_params(c);
        ck_assert_int_eq(clpool_max_unpool_output_shape(&c->shapes[0], &up, &c->out_shape), CLPOOL_SUCCESS);
    }
    else if (c->op == OP_TENSORS || c->op == OP_WARM_UP)
        c->out_shape = c->shapes[0]; /* the tensor's round trip */
    else
        ck_assert_int_eq(ref_global_pool_shape(&c->shapes[0], &c->out_shape), 0);
    c->n_out = clpool_shape_elements(&c->out_shape);
    const size_t n_out = (size_t)c->n_out;
    c->want = calloc(n_out, sizeof(float));
    c->got = calloc(n_out, sizeof(float));
    c->want_d = calloc(n_out, sizeof(double));
    c->want_idx = calloc(n_out, sizeof(int64_t));
    c->got_idx = calloc(n_out, sizeof(int64_t));
    ck_assert(c->want && c->got && c->want_d && c->want_idx && c->got_idx);
    const void *inputs[MAX_INPUTS];
    float *logical[MAX_INPUTS] = {NULL}; /* a view op's inputs as the reference sees them */
    for (size_t i = 0; i < c->n_in; ++i)
        inputs[i] = is_view(c->op) ? (logical[i] = reversed_rows(c->x[i], &c->shapes[i])) : c->x[i];
    switch (c->op) {
    case OP_MAXPOOL:
    case OP_MAXPOOL_HOST:
    case OP_MAXPOOL_VIEW:
        ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &c->shapes[0], &c->p, inputs[0], c->want, c->want_idx), 0);
        break;
    case OP_GLOBAL_MAX:
        ck_assert_int_eq(ref_global_max_pool(CLPOOL_FLOAT32, &c->shapes[0], c->x[0], c->want), 0);
        break;
    case OP_GLOBAL_AVG:
    case OP_GLOBAL_AVG_HOST:
        ck_assert_int_eq(ref_global_average_pool(CLPOOL_FLOAT32, &c->shapes[0], c->x[0], c->want_d, NULL), 0);
        break;
    case OP_GLOBAL_LP:
        ck_assert_int_eq(ref_global_lp_pool(CLPOOL_FLOAT32, &c->shapes[0], 2.0, c->x[0], c->want_d), 0);
        break;
    case OP_AVERAGE_POOL:
    case OP_LP_POOL_HOST:
        ck_assert_int_eq(ref_sum_pool(CLPOOL_FLOAT32, &c->shapes[0], &w, 1, c->op == OP_LP_POOL_HOST, 2.0, c->x[0],
                                      c->want_d, NULL),
                         0);
        break;
    case OP_MAX:
    case OP_MAX_HOST:
    case OP_MAX_VIEW:
        ck_assert_int_eq(ref_max(CLPOOL_FLOAT32, c->n_in, c->shapes, inputs, c->want), 0);
        break;
    case OP_MAX_UNPOOL:
    case OP_MAX_UNPOOL_VIEW:
    case OP_MAX_UNPOOL_HOST: { /* a tap of each 2x2 window, every one in its plane */
        const int64_t n_x = clpool_shape_elements(&c->shapes[0]), cols = c->shapes[0].dims[3];
        const int64_t x_plane = c->shapes[0].dims[2] * cols;
        c->unpool_idx = malloc((size_t)n_x * sizeof(int64_t));
        ck_assert_ptr_nonnull(c->unpool_idx);
        for (int64_t e = 0; e < n_x; ++e)
            c->unpool_idx[e] = e / x_plane * 4 * x_plane + (2 * (e % x_plane / cols) + e % 2) * 2 * cols +
                               2 * (e % cols) + e / 3 % 2;
        ck_assert_int_eq(ref_max_unpool(CLPOOL_FLOAT32, &c->shapes[0], inputs[0], c->unpool_idx, &c->out_shape,
                                        &c->out_shape, c->want),
                         0);
        if (c->op != OP_MAX_UNPOOL_HOST) {
            cl_int err;
            c->unpool_idx_mem = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               (size_t)n_x * sizeof(int64_t), c->unpool_idx, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
        break;
    }
    default:
        break;
    }
    for (size_t i = 0; i < c->n_in; ++i) free(logical[i]);
    if (!is_host(c->op) && c->op != OP_TENSORS && c->op != OP_WARM_UP) {
        cl_int err;
        c->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, n_out * sizeof(float), NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        c->idx = clCreateBuffer(cl, CL_MEM_READ_WRITE, n_out * sizeof(int64_t), NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
    }
}

static void case_free(sweep_case *c)
{
    for (size_t i = 0; i < c->n_in; ++i) {
        free(c->x[i]);
        if (c->in[i]) clReleaseMemObject(c->in[i]);
    }
    if (c->out) clReleaseMemObject(c->out);
    if (c->idx) clReleaseMemObject(c->idx);
    if (c->unpool_idx_mem) clReleaseMemObject(c->unpool_idx_mem);
    free(c->unpool_idx);
    free(c->want);
    free(c->got);
    free(c->want_d);
    free(c->want_idx);
    free(c->got_idx);
}

static cl_command_queue case_queue(const sweep_case *c, clpool_context *ctx)
{
    return c->queue ? c->queue : clpool_context_cl_queue(ctx);
}

/* Sentinels where the op writes: an element it leaves unwritten shows. */
static void case_prepare(sweep_case *c, clpool_context *ctx)
{
    memset(c->got, CU_SENTINEL, (size_t)c->n_out * sizeof(float));
    memset(c->got_idx, CU_SENTINEL, (size_t)c->n_out * sizeof(int64_t));
    if (c->out) {
        const cl_command_queue q = case_queue(c, ctx);
        const cl_uchar s = CU_SENTINEL;
        ck_assert_int_eq(clEnqueueFillBuffer(q, c->out, &s, 1, 0, (size_t)c->n_out * sizeof(float), 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueFillBuffer(q, c->idx, &s, 1, 0, (size_t)c->n_out * sizeof(int64_t), 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    }
}

/* A tensor's round trip; what it made is released whatever fails. */
static clpool_status tensor_round_trip(clpool_context *ctx, sweep_case *c)
{
    clpool_tensor *t = NULL;
    clpool_status st = clpool_tensor_create(ctx, CLPOOL_FLOAT32, &c->shapes[0], &t);
    if (st == CLPOOL_SUCCESS) st = clpool_tensor_upload(t, c->x[0], (size_t)c->n_out * sizeof(float));
    if (st == CLPOOL_SUCCESS) st = clpool_tensor_download(t, c->got, (size_t)c->n_out * sizeof(float));
    clpool_tensor_release(t);
    return st;
}

/* The op of `c` once; *ev receives the event of an enqueue. */
static clpool_status case_run(sweep_case *c, clpool_context *ctx, cl_event *ev)
{
    const void *inputs[MAX_INPUTS];
    size_t offsets[MAX_INPUTS] = {0};
    for (size_t i = 0; i < c->n_in; ++i) inputs[i] = c->x[i];
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    if (is_sum_pool(c->op)) {
        ck_assert_int_eq(clpool_average_pool_params_init(&avg, c->p.spatial_rank, c->p.kernel_shape), CLPOOL_SUCCESS);
        ck_assert_int_eq(clpool_lp_pool_params_init(&lp, c->p.spatial_rank, c->p.kernel_shape), CLPOOL_SUCCESS);
        avg.window = lp.window = window_of(c);
        avg.count_include_pad = 1;
    }
    switch (c->op) {
    case OP_MAXPOOL:
        return clpool_enqueue_maxpool(ctx, c->queue, &c->p, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0, c->out, 0,
                                      c->with_indices ? c->idx : NULL, 0, 0, NULL, ev);
    case OP_GLOBAL_MAX:
        return clpool_enqueue_global_max_pool(ctx, c->queue, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0, c->out, 0, 0,
                                              NULL, ev);
    case OP_GLOBAL_AVG:
        return clpool_enqueue_global_average_pool(ctx, c->queue, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0, c->out, 0,
                                                  0, NULL, ev);
    case OP_GLOBAL_LP:
        return clpool_enqueue_global_lp_pool(ctx, c->queue, 2.0, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0, c->out, 0,
                                             0, NULL, ev);
    case OP_AVERAGE_POOL:
        return clpool_enqueue_average_pool(ctx, c->queue, &avg, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0, c->out, 0,
                                           0, NULL, ev);
    case OP_LP_POOL_HOST:
        return clpool_lp_pool_host(ctx, &lp, CLPOOL_FLOAT32, &c->shapes[0], c->x[0], c->got);
    case OP_MAXPOOL_VIEW:
    case OP_MAX_VIEW: {
        clpool_view in[MAX_INPUTS], out, idx;
        for (size_t i = 0; i < c->n_in; ++i) in[i] = reversed_view(c, i);
        ck_assert_int_eq(clpool_view_contiguous(&out, c->out, 0, &c->out_shape), CLPOOL_SUCCESS);
        ck_assert_int_eq(clpool_view_contiguous(&idx, c->idx, 0, &c->out_shape), CLPOOL_SUCCESS);
        return c->op == OP_MAX_VIEW
                   ? clpool_enqueue_max_view(ctx, c->queue, CLPOOL_FLOAT32, c->n_in, in, &out, 0, NULL, ev)
                   : clpool_enqueue_maxpool_view(ctx, c->queue, &c->p, CLPOOL_FLOAT32, &in[0], &out,
                                                 c->with_indices ? &idx : NULL, 0, NULL, ev);
    }
    case OP_MAX:
        return clpool_enqueue_max(ctx, c->queue, CLPOOL_FLOAT32, c->n_in, c->shapes, c->in, offsets, c->out, 0, 0, NULL,
                                  ev);
    case OP_MAXPOOL_HOST:
        return clpool_maxpool_host(ctx, &c->p, CLPOOL_FLOAT32, &c->shapes[0], c->x[0], c->got,
                                   c->with_indices ? c->got_idx : NULL);
    case OP_GLOBAL_AVG_HOST:
        return clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &c->shapes[0], c->x[0], c->got);
    case OP_MAX_HOST:
        return clpool_max_host(ctx, CLPOOL_FLOAT32, c->n_in, c->shapes, inputs, c->got);
    case OP_MAX_UNPOOL: {
        const clpool_max_unpool_params up = unpool_params(c);
        return clpool_enqueue_max_unpool(ctx, c->queue, &up, CLPOOL_FLOAT32, &c->shapes[0], c->in[0], 0,
                                         c->unpool_idx_mem, 0, c->out, 0, NULL, 0, 0, NULL, ev);
    }
    case OP_MAX_UNPOOL_VIEW: {
        const clpool_max_unpool_params up = unpool_params(c);
        const clpool_view x = reversed_view(c, 0);
        clpool_view idx, out;
        ck_assert_int_eq(clpool_view_contiguous(&idx, c->unpool_idx_mem, 0, &c->shapes[0]), CLPOOL_SUCCESS);
        ck_assert_int_eq(clpool_view_contiguous(&out, c->out, 0, &c->out_shape), CLPOOL_SUCCESS);
        return clpool_enqueue_max_unpool_view(ctx, c->queue, &up, CLPOOL_FLOAT32, &x, &idx, &out, NULL, 0, 0, NULL,
                                              ev);
    }
    case OP_MAX_UNPOOL_HOST: {
        const clpool_max_unpool_params up = unpool_params(c);
        uint32_t skipped = 1;
        const clpool_status st = clpool_max_unpool_host(ctx, &up, CLPOOL_FLOAT32, &c->shapes[0], c->x[0],
                                                        c->unpool_idx, c->got, &skipped);
        ck_assert_msg(st != CLPOOL_SUCCESS || skipped == 0, "%s: %u indices skipped", c->name, skipped);
        return st;
    }
    case OP_TENSORS:
        return tensor_round_trip(ctx, c);
    case OP_WARM_UP:
        return clpool_context_warm_up(ctx, CLPOOL_FLOAT32);
    }
    return CLPOOL_ERROR_INVALID_ARGUMENT;
}

/* After a successful run: the results against the reference. */
static void case_check(sweep_case *c, clpool_context *ctx, const char *desc)
{
    if (c->op == OP_WARM_UP) {
        cu_assert_context_computes(ctx, desc);
        return;
    }
    const size_t n = (size_t)c->n_out;
    if (c->out) {
        cu_read_back(case_queue(c, ctx), c->out, c->got, n * sizeof(float), desc);
        if (c->with_indices) cu_read_back(case_queue(c, ctx), c->idx, c->got_idx, n * sizeof(int64_t), desc);
    }
    if (c->op == OP_TENSORS) {
        ck_assert_msg(memcmp(c->got, c->x[0], n * sizeof(float)) == 0, "%s: the tensor's round trip differs", desc);
    } else if (c->op == OP_GLOBAL_AVG || c->op == OP_GLOBAL_AVG_HOST || c->op == OP_GLOBAL_LP || is_sum_pool(c->op)) {
        for (size_t i = 0; i < n; ++i)
            cu_expect(fabs((double)c->got[i] - c->want_d[i]) <= 1e-6 + 1e-5 * fabs(c->want_d[i]),
                      "%s: plane %zu: %.9g, reference %.9g", desc, i, (double)c->got[i], c->want_d[i]);
    } else {
        ck_assert_msg(memcmp(c->got, c->want, n * sizeof(float)) == 0, "%s: result differs from the reference", desc);
        if (c->with_indices)
            ck_assert_msg(memcmp(c->got_idx, c->want_idx, n * sizeof(int64_t)) == 0,
                          "%s: Indices differ from the reference", desc);
    }
}

/* The status and message a run failed at `call` must give. */
static void assert_failure_reported(const char *desc, const char *call, clpool_status st, cl_event ev)
{
    const clpool_status want = strcmp(call, "clBuildProgram") == 0 ? CLPOOL_ERROR_BUILD_FAILED : CLPOOL_ERROR_OPENCL;
    const char *msg = clpool_last_error();
    ck_assert_msg(st == want, "%s: status %s, expected %s (%s)", desc, clpool_status_string(st),
                  clpool_status_string(want), msg);
    ck_assert_msg(strstr(msg, call) != NULL, "%s: the message does not name %s: %s", desc, call, msg);
    ck_assert_msg(strstr(msg, "CL_OUT_OF_RESOURCES") != NULL, "%s: the message does not name the error: %s", desc, msg);
    ck_assert_msg(ev == NULL, "%s: a failed call returned an event", desc);
}

/* Buffers and events the library made in `desc` are all released (pooled scratch was trimmed first). */
static void assert_nothing_live(const char *desc, const char *kind)
{
    if (ci_live(kind) == 0) return;
    char what[1024];
    ci_describe_live(what, sizeof what);
    ck_abort_msg("%s: leaked: %s", desc, what);
}

static void assert_buffers_and_events_released(clpool_context *ctx, const char *desc)
{
    clpool_context_trim(ctx);
    assert_nothing_live(desc, "cl_event");
    assert_nothing_live(desc, "cl_mem");
}

/*
 * Fails call n of the op for n = 1, 2, ... until a run no longer reaches
 * call n; returns the number of failure points. The context's scratch is
 * trimmed before each run, so every run allocates what it needs.
 */
static int sweep(sweep_case *c, clpool_context *ctx)
{
    char desc[256];
    /* A first run builds the programs and fills the kernel pools. */
    case_prepare(c, ctx);
    const int wants_event = c->op <= OP_MAX; /* the enqueue ops */
    cl_event ev = NULL;
    cu_assert_ok(case_run(c, ctx, wants_event ? &ev : NULL), c->name, "first run");
    if (ev) {
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
    }
    case_check(c, ctx, c->name);
    int n = 1, recovered = 0;
    for (;; ++n) {
        snprintf(desc, sizeof desc, "%s, OpenCL call %d fails", c->name, n);
        case_prepare(c, ctx);
        clpool_context_trim(ctx);
        ev = NULL;
        ci_arm(desc, NULL, n, INJECTED);
        const clpool_status st = case_run(c, ctx, wants_event ? &ev : NULL);
        ci_disarm();
        const char *call = ci_failed_call();
        if (!call) { /* run n made fewer than n calls: nothing left to fail */
            cu_assert_ok(st, c->name, desc);
            if (ev) {
                ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
                clReleaseEvent(ev);
            }
            case_check(c, ctx, desc);
            break;
        }
        cu_append(desc, sizeof desc, " (%s)", call);
        if (st == CLPOOL_SUCCESS) { /* a fallback took over: the result must still be exact */
            ++recovered;
            if (ev) {
                ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
                clReleaseEvent(ev);
            }
            case_check(c, ctx, desc);
        } else {
            assert_failure_reported(desc, call, st, ev);
            /* The contract: earlier passes may still run; finish the queue before touching the buffers. */
            ck_assert_int_eq(clFinish(case_queue(c, ctx)), CL_SUCCESS);
        }
        assert_buffers_and_events_released(ctx, desc);
        /* The context stays usable: the same call succeeds. */
        case_prepare(c, ctx);
        ev = NULL;
        cu_assert_ok(case_run(c, ctx, wants_event ? &ev : NULL), c->name, desc);
        if (ev) {
            ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
            clReleaseEvent(ev);
        }
        case_check(c, ctx, desc);
    }
    printf("note: %s: %d failure points (%d of them recovered by a fallback)\n", c->name, n - 1, recovered);
    return n - 1;
}

/* Releases the context and asserts that every object made while armed (kernels and programs too) is gone. */
static void release_and_assert_all_released(clpool_context *ctx, const char *desc)
{
    clpool_context_release(ctx);
    assert_nothing_live(desc, NULL);
    ci_forget();
}

/* ----------------------------------------------------------------- cases */

static void maxpool_case(sweep_case *c, const char *name, op_kind op, clpool_shape shape, int32_t ns, const int64_t *k,
                         int64_t stride, int64_t pad, int with_indices)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->op = op;
    c->n_in = 1;
    c->shapes[0] = shape;
    c->with_indices = with_indices;
    ck_assert_int_eq(clpool_maxpool_params_init(&c->p, ns, k), CLPOOL_SUCCESS);
    for (int32_t i = 0; i < ns; ++i) {
        c->p.strides[i] = stride;
        c->p.pads[i] = c->p.pads[ns + i] = pad;
    }
}

static void one_input_case(sweep_case *c, const char *name, op_kind op, clpool_shape shape)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->op = op;
    c->n_in = 1;
    c->shapes[0] = shape;
}

/* Max of n inputs: [2,3,8,16] and broadcasting partners. */
static void max_case(sweep_case *c, const char *name, op_kind op, size_t n)
{
    static const clpool_shape shapes[6] = {{4, {2, 3, 8, 16}}, {2, {8, 16}},  {4, {2, 3, 8, 16}},
                                           {3, {3, 1, 16}},    {1, {16}},    {4, {2, 1, 8, 1}}};
    memset(c, 0, sizeof *c);
    c->name = name;
    c->op = op;
    c->n_in = n;
    for (size_t i = 0; i < n; ++i) c->shapes[i] = shapes[i];
}

static int run_cases(sweep_case *cases, size_t n, clpool_context *ctx)
{
    int total = 0;
    for (size_t i = 0; i < n; ++i) {
        case_setup(&cases[i], ctx);
        total += sweep(&cases[i], ctx);
    }
    for (size_t i = 0; i < n; ++i) case_free(&cases[i]);
    return total;
}

START_TEST(maxpool_paths)
{
    clpool_context *ctx = cu_context_create();
    const int64_t k3[3] = {3, 3, 3}, k9[2] = {9, 9}, k_window[2] = {2, 16}, k4[4] = {2, 2, 2, 2}, k_whole[2] = {6, 7};
    sweep_case cases[10];
    size_t n = 0;
    maxpool_case(&cases[n++], "MaxPool 2-D 3x3/s2 with Indices", OP_MAXPOOL, (clpool_shape){4, {2, 3, 10, 10}}, 2,
                 k3, 2, 1, 1);
    maxpool_case(&cases[n++], "MaxPool 2-D 3x3/s2", OP_MAXPOOL, (clpool_shape){4, {2, 3, 10, 10}}, 2, k3, 2, 1, 0);
    /* stride 1 windows without Indices: the flat (3x3) and plane (9x9) paths on CPUs with 512-bit vectors */
    maxpool_case(&cases[n++], "MaxPool 2-D 3x3/s1 (flat path)", OP_MAXPOOL, (clpool_shape){4, {1, 2, 20, 20}}, 2, k3,
                 1, 1, 0);
    maxpool_case(&cases[n++], "MaxPool 2-D 9x9/s1 (plane path)", OP_MAXPOOL, (clpool_shape){4, {1, 2, 20, 20}}, 2, k9,
                 1, 4, 0);
    /* windows wider than twice the output row: the window kernel */
    maxpool_case(&cases[n++], "MaxPool 2-D 2x16 (window kernel)", OP_MAXPOOL, (clpool_shape){4, {1, 2, 6, 20}}, 2,
                 k_window, 1, 0, 0);
    maxpool_case(&cases[n++], "MaxPool 4-D (N-D kernel)", OP_MAXPOOL, (clpool_shape){6, {1, 2, 4, 5, 4, 5}}, 4, k4, 1,
                 0, 1);
    /* 3-D float32 at row stride 2 without Indices: one pass on CPUs; with Indices: two passes through scratch */
    maxpool_case(&cases[n++], "MaxPool 3-D 3x3x3/s2 (one pass)", OP_MAXPOOL, (clpool_shape){5, {2, 3, 6, 9, 21}}, 3,
                 k3, 2, 1, 0);
    maxpool_case(&cases[n++], "MaxPool 3-D 3x3x3/s3 (two passes)", OP_MAXPOOL, (clpool_shape){5, {1, 2, 5, 7, 9}}, 3,
                 k3, 3, 1, 0);
    maxpool_case(&cases[n++], "MaxPool whole-plane window", OP_MAXPOOL, (clpool_shape){4, {2, 3, 6, 7}}, 2, k_whole, 1,
                 0, 0);
    maxpool_case(&cases[n++], "MaxPool whole-plane window with Indices", OP_MAXPOOL, (clpool_shape){4, {2, 3, 6, 7}}, 2,
                 k_whole, 1, 0, 1);
    const int total = run_cases(cases, n, ctx);
    release_and_assert_all_released(ctx, "MaxPool paths, context released");
    printf("note: MaxPool: %d failure points over %zu paths\n", total, n);
}
END_TEST

START_TEST(pools_and_max)
{
    clpool_context *ctx = cu_context_create();
    const clpool_shape small = {4, {2, 3, 7, 7}}, long_planes = {4, {1, 2, 64, 64}};
    const int64_t k3[2] = {3, 3};
    const int64_t k2[2] = {2, 2};
    sweep_case cases[15];
    size_t n = 0;
    maxpool_case(&cases[n++], "AveragePool 3x3/s1/p1 count_include_pad", OP_AVERAGE_POOL, small, 2, k3, 1, 1, 0);
    maxpool_case(&cases[n++], "MaxUnpool 2x2/s2 (whole planes)", OP_MAX_UNPOOL, (clpool_shape){4, {4, 8, 5, 6}}, 2,
                 k2, 2, 0, 0);
    maxpool_case(&cases[n++], "MaxUnpool 2x2/s2 (zero, then scatter)", OP_MAX_UNPOOL, (clpool_shape){4, {1, 1, 40, 40}},
                 2, k2, 2, 0, 0);
    one_input_case(&cases[n++], "GlobalMaxPool (one pass)", OP_GLOBAL_MAX, small);
    one_input_case(&cases[n++], "GlobalAveragePool (one pass)", OP_GLOBAL_AVG, small);
    one_input_case(&cases[n++], "GlobalLpPool (one pass)", OP_GLOBAL_LP, small);
    one_input_case(&cases[n++], "GlobalMaxPool (two passes)", OP_GLOBAL_MAX, long_planes);
    one_input_case(&cases[n++], "GlobalAveragePool (two passes)", OP_GLOBAL_AVG, long_planes);
    one_input_case(&cases[n++], "GlobalLpPool (two passes)", OP_GLOBAL_LP, long_planes);
    max_case(&cases[n++], "Max of 3 inputs (one pass)", OP_MAX, 3);
    max_case(&cases[n++], "Max of 4 inputs (one pass)", OP_MAX, 4);
    max_case(&cases[n++], "Max of 6 inputs (two passes)", OP_MAX, 6);
    maxpool_case(&cases[n++], "MaxPool 3x3/s2 on a reversed view, Indices", OP_MAXPOOL_VIEW, small, 2, k3, 2, 1, 1);
    max_case(&cases[n++], "Max of 6 reversed views (two passes)", OP_MAX_VIEW, 6);
    maxpool_case(&cases[n++], "MaxUnpool 2x2/s2 of a reversed view", OP_MAX_UNPOOL_VIEW, (clpool_shape){4, {2, 3, 5, 6}},
                 2, k2, 2, 0, 0);
    const int total = run_cases(cases, n, ctx);
    release_and_assert_all_released(ctx, "global pools and Max, context released");
    printf("note: AveragePool, MaxUnpool, global pools, Max and views: %d failure points\n", total);
}
END_TEST

/* The same enqueues on a caller's out-of-order queue (passes chained by events, not by queue order). */
START_TEST(caller_out_of_order_queue)
{
    clpool_context *ctx = cu_context_create();
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clpool_context_cl_context(ctx), clpool_context_cl_device(ctx),
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (!q) q = clCreateCommandQueue(clpool_context_cl_context(ctx), clpool_context_cl_device(ctx), 0, &err);
    ck_assert_ptr_nonnull(q);
    const int64_t k3[3] = {3, 3, 3};
    sweep_case cases[3];
    maxpool_case(&cases[0], "MaxPool 3-D two passes, caller's queue", OP_MAXPOOL, (clpool_shape){5, {1, 2, 5, 7, 9}}, 3,
                 k3, 3, 1, 1);
    one_input_case(&cases[1], "GlobalAveragePool two passes, caller's queue", OP_GLOBAL_AVG,
                   (clpool_shape){4, {1, 2, 64, 64}});
    max_case(&cases[2], "Max of 6 inputs, caller's queue", OP_MAX, 6);
    for (int i = 0; i < 3; ++i) cases[i].queue = q;
    run_cases(cases, 3, ctx);
    clReleaseCommandQueue(q);
    release_and_assert_all_released(ctx, "caller's queue, context released");
}
END_TEST

START_TEST(host_calls_tensors_and_warm_up)
{
    clpool_context *ctx = cu_context_create();
    const int64_t k3[2] = {3, 3};
    const int64_t k2[2] = {2, 2};
    sweep_case cases[7];
    size_t n = 0;
    maxpool_case(&cases[n++], "clpool_max_unpool_host 2x2/s2", OP_MAX_UNPOOL_HOST, (clpool_shape){4, {2, 3, 4, 5}}, 2,
                 k2, 2, 0, 0);
    maxpool_case(&cases[n++], "clpool_lp_pool_host 3x3/s2", OP_LP_POOL_HOST, (clpool_shape){4, {2, 3, 10, 10}}, 2, k3, 2,
                 0, 0);
    maxpool_case(&cases[n++], "clpool_maxpool_host with Indices", OP_MAXPOOL_HOST, (clpool_shape){4, {2, 3, 10, 10}},
                 2, k3, 2, 1, 1);
    one_input_case(&cases[n++], "clpool_global_average_pool_host (two passes)", OP_GLOBAL_AVG_HOST,
                   (clpool_shape){4, {1, 2, 64, 64}});
    max_case(&cases[n++], "clpool_max_host of 6 inputs", OP_MAX_HOST, 6);
    one_input_case(&cases[n++], "tensor create, upload, download", OP_TENSORS, (clpool_shape){2, {3, 5}});
    one_input_case(&cases[n++], "clpool_context_warm_up (float32)", OP_WARM_UP, (clpool_shape){2, {1, 1}});
    const int total = run_cases(cases, n, ctx);
    release_and_assert_all_released(ctx, "host calls, context released");
    printf("note: host calls, tensors and warm-up: %d failure points\n", total);
}
END_TEST

/*
 * Context creation, adoption and the first program build: each run makes
 * (or adopts) a context, uses it and releases it. A made context runs
 * MaxPool 2-D with Indices on host arrays, which builds its program; an
 * adopted one a tensor's round trip (its queue, made on first need where
 * none was adopted, and buffers), as the build's failure points are the
 * same in every context and each costs a compile. Everything made while
 * armed must be gone after each run.
 */
typedef enum { MAKE_DEFAULT, ADOPT_WITH_QUEUE, ADOPT_WITHOUT_QUEUE } context_kind;

static clpool_status fresh_context_run(context_kind kind, cl_context cl, cl_device_id dev, cl_command_queue q,
                                       sweep_case *c)
{
    clpool_context *ctx = NULL;
    clpool_status st = kind == MAKE_DEFAULT ? clpool_context_create(NULL, &ctx)
                                            : clpool_context_create_from_cl(cl, dev, kind == ADOPT_WITH_QUEUE ? q : NULL,
                                                                            &ctx);
    if (st != CLPOOL_SUCCESS) {
        ck_assert_ptr_null(ctx);
        return st;
    }
    st = case_run(&c[kind == MAKE_DEFAULT ? 0 : 1], ctx, NULL);
    clpool_context_release(ctx);
    return st;
}

START_TEST(context_creation_and_program_build)
{
    static const char *names[3] = {"clpool_context_create + first MaxPool",
                                   "clpool_context_create_from_cl (with a queue) + tensor",
                                   "clpool_context_create_from_cl (no queue) + tensor"};
    clpool_context *host = cu_context_create(); /* the caller's OpenCL objects for adoption */
    const cl_context cl = clpool_context_cl_context(host);
    const cl_device_id dev = clpool_context_cl_device(host);
    const cl_command_queue q = clpool_context_cl_queue(host);
    const cl_uint context_refs = cu_context_refcount(cl), queue_refs = cu_queue_refcount(q);
    const int64_t k3[2] = {3, 3};
    sweep_case c[2];
    maxpool_case(&c[0], "fresh context", OP_MAXPOOL_HOST, (clpool_shape){4, {1, 2, 6, 6}}, 2, k3, 2, 1, 1);
    one_input_case(&c[1], "adopted context", OP_TENSORS, (clpool_shape){2, {3, 5}});
    case_setup(&c[0], host);
    case_setup(&c[1], host);
    for (int kind = MAKE_DEFAULT; kind <= ADOPT_WITHOUT_QUEUE; ++kind) {
        int n = 1;
        for (;; ++n) {
            char desc[256];
            snprintf(desc, sizeof desc, "%s, OpenCL call %d fails", names[kind], n);
            sweep_case *used = &c[kind == MAKE_DEFAULT ? 0 : 1];
            case_prepare(used, host);
            ci_arm(desc, NULL, n, INJECTED);
            const clpool_status st = fresh_context_run((context_kind)kind, cl, dev, q, c);
            ci_disarm();
            const char *call = ci_failed_call();
            if (!call) {
                cu_assert_ok(st, names[kind], desc);
                case_check(used, host, desc);
                break;
            }
            cu_append(desc, sizeof desc, " (%s)", call);
            if (st == CLPOOL_SUCCESS)
                case_check(used, host, desc); /* an optional query failed: defaults, same result */
            else
                assert_failure_reported(desc, call, st, NULL);
            assert_nothing_live(desc, NULL); /* the context and all it made are gone */
        }
        printf("note: %s: %d failure points\n", names[kind], n - 1);
    }
    case_free(&c[0]);
    case_free(&c[1]);
    /* The adopted objects are the caller's and intact (rusticl drops finished
       commands' references on its worker thread, hence the settled counts). */
    ck_assert_uint_eq(cu_settled_context_refcount(cl, context_refs), context_refs);
    ck_assert_uint_eq(cu_settled_queue_refcount(q, queue_refs), queue_refs);
    clpool_context_release(host);
    ci_forget();
}
END_TEST

/*
 * The header's contract for a call failing after earlier passes were
 * enqueued: Max of 6 inputs on a caller's queue, its first pass held back by
 * a closed user event, its second pass's launch failing. No event comes
 * back and the library holds none; the first pass is still queued; the
 * caller opens the gate, finishes the queue and may then release or reuse
 * everything; the same call then succeeds.
 */
START_TEST(failed_later_pass_contract)
{
    clpool_context *ctx = cu_context_create();
    cl_int err;
    const cl_context cl = clpool_context_cl_context(ctx);
    cl_command_queue q = clCreateCommandQueue(cl, clpool_context_cl_device(ctx), 0, &err);
    ck_assert_ptr_nonnull(q);
    sweep_case c;
    max_case(&c, "Max of 6 inputs, second pass fails behind a closed gate", OP_MAX, 6);
    c.queue = q;
    case_setup(&c, ctx);
    case_prepare(&c, ctx);
    cu_assert_ok(case_run(&c, ctx, NULL), c.name, "first run"); /* builds both passes' programs */
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    case_check(&c, ctx, c.name);

    case_prepare(&c, ctx);
    cl_event gate = clCreateUserEvent(cl, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    const size_t offsets[MAX_INPUTS] = {0};
    cl_event ev = NULL;
    ci_arm(c.name, "clEnqueueNDRangeKernel", 2, INJECTED);
    const clpool_status st =
        clpool_enqueue_max(ctx, q, CLPOOL_FLOAT32, c.n_in, c.shapes, c.in, offsets, c.out, 0, 1, &gate, &ev);
    ci_disarm();
    ck_assert_int_eq(ci_calls(), 2);
    assert_failure_reported(c.name, "clEnqueueNDRangeKernel", st, ev);
    assert_nothing_live(c.name, "cl_event"); /* the first pass's event went with the failure */
    cl_event marker = NULL;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker), CL_SUCCESS);
    cu_assert_pending(q, marker, "%s: the first pass behind the gate", c.name);
    /* The caller's part: let the queue drain, then everything may go. */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_SUCCESS);
    clReleaseEvent(marker);
    clReleaseEvent(gate);
    /* The output holds whatever the first pass wrote (unspecified); the same call succeeds. */
    case_prepare(&c, ctx);
    cu_assert_ok(case_run(&c, ctx, &ev), c.name, "after the failure");
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    case_check(&c, ctx, "after the failure");
    case_free(&c);
    clReleaseCommandQueue(q);
    release_and_assert_all_released(ctx, "contract, context released");
}
END_TEST

/*
 * Handles the driver calls invalid: a queue or a buffer whose info query answers CL_INVALID_COMMAND_QUEUE or
 * CL_INVALID_MEM_OBJECT is the caller's mistake (INVALID_ARGUMENT, the handle named), any other error the
 * driver's (OPENCL). The objects are real; the interposer gives the answers (an invalid handle itself may
 * crash the ICD loader before any driver sees it).
 */
START_TEST(invalid_handles_named)
{
    clpool_context *ctx = cu_context_create();
    const clpool_shape shape = {4, {1, 2, 4, 4}};
    const int64_t k2[2] = {2, 2};
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, k2), CLPOOL_SUCCESS);
    cl_int err;
    const cl_context cl = clpool_context_cl_context(ctx);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, 128, NULL, &err), out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 128,
                                                                                             NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue q = clpool_context_cl_queue(ctx);
    const char *fn = "clpool_enqueue_maxpool";
#define POOL() clpool_enqueue_maxpool(ctx, q, &p, CLPOOL_FLOAT32, &shape, in, 0, out, 0, NULL, 0, 0, NULL, NULL)
    ci_arm("an invalid queue", "clGetCommandQueueInfo", 1, CL_INVALID_COMMAND_QUEUE);
    clpool_status st = POOL();
    ci_disarm();
    cu_assert_status("invalid queue", fn, st, CLPOOL_ERROR_INVALID_ARGUMENT,
                     "queue is not a valid command queue (CL_INVALID_COMMAND_QUEUE)");
    ci_arm("a failed queue query", "clGetCommandQueueInfo", 1, CL_OUT_OF_HOST_MEMORY);
    st = POOL();
    ci_disarm();
    cu_assert_status("failed queue query", fn, st, CLPOOL_ERROR_OPENCL, "clGetCommandQueueInfo(queue) failed");
    ci_arm("an invalid buffer", "clGetMemObjectInfo", 1, CL_INVALID_MEM_OBJECT);
    st = POOL();
    ci_disarm();
    cu_assert_status("invalid buffer", fn, st, CLPOOL_ERROR_INVALID_ARGUMENT,
                     "input is not a valid cl_mem (CL_INVALID_MEM_OBJECT)");
    cu_assert_ok(POOL(), fn, "the same call with the answers real");
#undef POOL
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    clReleaseMemObject(in), clReleaseMemObject(out);
    release_and_assert_all_released(ctx, "invalid handles, context released");
}
END_TEST

/* Every op's entry points (host helpers, the contiguous enqueue and the views) refuse float64 on `ctx`, whose
 * device went without cl_khr_fp64, with the rule and their own name. */
static void float64_refused_by_every_op(clpool_context *ctx, const char *desc)
{
    static const char *rule = "float64 needs cl_khr_fp64, which device '";
    const int64_t k[1] = {2};
    const clpool_shape in = {3, {1, 1, 4}}, half = {3, {1, 1, 2}};
    const double x[4] = {1, 5, 2, 3};
    double y[4];
    int64_t idx[4] = {0, 1, 2, 3};
    const void *inputs[2] = {x, x};
    const clpool_shape shapes[2] = {in, in};
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    clpool_max_unpool_params up;
    ck_assert_int_eq(clpool_average_pool_params_init(&avg, 1, k), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_lp_pool_params_init(&lp, 1, k), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_max_unpool_params_init(&up, 1, k), CLPOOL_SUCCESS);
    up.window.strides[0] = 2;
    const clpool_dtype F64 = CLPOOL_FLOAT64;
    cu_assert_status(desc, "clpool_enqueue_average_pool", clpool_average_pool_host(ctx, &avg, F64, &in, x, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_lp_pool", clpool_lp_pool_host(ctx, &lp, F64, &in, x, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_max_unpool", clpool_max_unpool_host(ctx, &up, F64, &half, x, idx, y, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_max_pool", clpool_global_max_pool_host(ctx, F64, &in, x, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_average_pool", clpool_global_average_pool_host(ctx, F64, &in, x, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_lp_pool", clpool_global_lp_pool_host(ctx, 2, F64, &in, x, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_max", clpool_max_host(ctx, F64, 2, shapes, inputs, y),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    /* the views: X 1x1x4, a window's output 1x1x3, a global output 1x1x1, MaxUnpool's X and Indices 1x1x2 */
    cl_int err;
    cl_mem m = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE, 256, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    const clpool_shape win = {3, {1, 1, 3}}, one = {3, {1, 1, 1}};
    clpool_view vx, vwin, vone, vhalf, vidx, vout;
    ck_assert_int_eq(clpool_view_contiguous(&vx, m, 0, &in), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&vwin, m, 64, &win), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&vone, m, 64, &one), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&vhalf, m, 0, &half), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&vidx, m, 32, &half), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_view_contiguous(&vout, m, 64, &in), CLPOOL_SUCCESS);
    clpool_maxpool_params mp;
    ck_assert_int_eq(clpool_maxpool_params_init(&mp, 1, k), CLPOOL_SUCCESS);
    const clpool_view two[2] = {vx, vx};
    cu_assert_status(desc, "clpool_enqueue_maxpool_view",
                     clpool_enqueue_maxpool_view(ctx, NULL, &mp, F64, &vx, &vwin, NULL, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_average_pool_view",
                     clpool_enqueue_average_pool_view(ctx, NULL, &avg, F64, &vx, &vwin, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_lp_pool_view",
                     clpool_enqueue_lp_pool_view(ctx, NULL, &lp, F64, &vx, &vwin, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_max_unpool_view",
                     clpool_enqueue_max_unpool_view(ctx, NULL, &up, F64, &vhalf, &vidx, &vout, NULL, 0, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_max_pool_view",
                     clpool_enqueue_global_max_pool_view(ctx, NULL, F64, &vx, &vone, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_average_pool_view",
                     clpool_enqueue_global_average_pool_view(ctx, NULL, F64, &vx, &vone, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_global_lp_pool_view",
                     clpool_enqueue_global_lp_pool_view(ctx, NULL, 2, F64, &vx, &vone, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    cu_assert_status(desc, "clpool_enqueue_max_view", clpool_enqueue_max_view(ctx, NULL, F64, 2, two, &vout, 0, NULL, NULL),
                     CLPOOL_ERROR_UNSUPPORTED_DEVICE, rule);
    clReleaseMemObject(m);
}

/* Listing the devices: no platform (the ICD loader's CL_PLATFORM_NOT_FOUND_KHR), platforms without devices
 * (CL_DEVICE_NOT_FOUND from each), or platforms whose devices cannot be listed (another error: the first one
 * is the answer) each fail with their own status and message, for the count, the info and a context. */
START_TEST(device_listing_failures_are_named)
{
    static const struct {
        const char *what, *call;
        cl_int error;
        clpool_status status;
        const char *message;
    } cases[] = {
        {"no platform", "clGetPlatformIDs", -1001 /* CL_PLATFORM_NOT_FOUND_KHR */, CLPOOL_ERROR_NO_DEVICE,
         "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)"},
        {"platforms without devices", "clGetDeviceIDs", CL_DEVICE_NOT_FOUND, CLPOOL_ERROR_NO_DEVICE,
         "no OpenCL device found on "},
        {"devices not listed", "clGetDeviceIDs", CL_OUT_OF_HOST_MEMORY, CLPOOL_ERROR_OPENCL,
         "clGetDeviceIDs failed: CL_OUT_OF_HOST_MEMORY"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ci_arm(cases[i].what, cases[i].call, -1, cases[i].error);
        uint32_t count = 7;
        const clpool_status counted = clpool_device_count(&count);
        cu_assert_status(cases[i].what, NULL, counted, cases[i].status, cases[i].message);
        ck_assert_uint_eq(count, 0);
        clpool_device_info info;
        cu_assert_status(cases[i].what, NULL, clpool_device_get_info(0, &info), cases[i].status, cases[i].message);
        clpool_context *ctx = NULL;
        cu_assert_status(cases[i].what, NULL, clpool_context_create(NULL, &ctx), cases[i].status, cases[i].message);
        ck_assert_ptr_null(ctx);
        ci_disarm();
    }
    ci_forget();
}
END_TEST

/* A build that fails (a broken maxpool2d.cl through CLPOOL_KERNEL_DIR) whose log cannot be read, its size or
 * its text (clGetProgramBuildInfo), still fails with the build's status and message, without the log. */
START_TEST(unread_build_logs_keep_the_build_failure)
{
    char dir[1024], cmd[2300], path[1100];
    snprintf(dir, sizeof dir, "%s/fault-sweep-broken-%d", cu_tmpdir(), (int)getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(cmd, sizeof cmd, "cp '%s'/kernels/*.h '%s'/kernels/*.cl '%s/'", CLPOOL_SOURCE_DIR, CLPOOL_SOURCE_DIR, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/maxpool2d.cl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("__kernel void maxpool2d(__global float *x) { this is not OpenCL C; }\n", f);
    fclose(f);
    setenv("CLPOOL_KERNEL_DIR", dir, 1);
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    const clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    float y[3];
    for (int at = 1; at <= 2; ++at) {
        clpool_context *ctx = cu_context_create();
        const char *what = at == 1 ? "the log's size unread" : "the log unread";
        ci_arm(what, "clGetProgramBuildInfo", at, INJECTED);
        const clpool_status st = clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL);
        ci_disarm();
        ck_assert_str_eq(ci_failed_call() ? ci_failed_call() : "(none)", "clGetProgramBuildInfo");
        cu_assert_status(what, NULL, st, CLPOOL_ERROR_BUILD_FAILED, "building kernels/maxpool2d.cl with '");
        const char *log = strstr(clpool_last_error(), "build log:\n");
        ck_assert_msg(log && log[strlen("build log:\n")] == '\0', "%s: a log after all: %s", what, clpool_last_error());
        clpool_context_release(ctx);
    }
    unsetenv("CLPOOL_KERNEL_DIR");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ci_forget();
}
END_TEST

/* A device whose extensions cannot be read is taken to lack cl_khr_fp64: each clGetDeviceInfo of context
 * creation fails in turn; where the context is still made, float64 MaxPool is refused with the rule (the
 * extension queries; then by every op) or runs right, and float32 runs. */
START_TEST(unread_extensions_refuse_float64)
{
    clpool_context *probe = cu_context_create();
    clpool_device_info dev;
    ck_assert_int_eq(clpool_context_device_info(probe, &dev), CLPOOL_SUCCESS);
    clpool_context_release(probe);
    if (!dev.has_fp64) return; /* float64 is refused anyway (test_core) */
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    const clpool_shape in = {3, {1, 1, 4}};
    const double x[4] = {1, 5, 2, 3};
    int n = 1, refused = 0;
    for (;; ++n) {
        char desc[96];
        snprintf(desc, sizeof desc, "clGetDeviceInfo %d of context creation fails", n);
        ci_arm(desc, "clGetDeviceInfo", n, INJECTED);
        clpool_context *ctx = NULL;
        const clpool_status made = clpool_context_create(NULL, &ctx);
        ci_disarm();
        if (made != CLPOOL_SUCCESS) continue;
        double y[3] = {0, 0, 0};
        const clpool_status st = clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT64, &in, x, y, NULL);
        if (st == CLPOOL_SUCCESS) {
            ck_assert_msg(y[0] == 5 && y[1] == 5 && y[2] == 3, "%s: float64 MaxPool wrong", desc);
        } else {
            cu_assert_status(desc, "clpool_enqueue_maxpool", st, CLPOOL_ERROR_UNSUPPORTED_DEVICE,
                             "float64 needs cl_khr_fp64, which device '");
            if (refused++ == 0) float64_refused_by_every_op(ctx, desc);
        }
        cu_assert_context_computes(ctx, desc);
        clpool_context_release(ctx);
        if (!ci_failed_call()) break;
    }
    ck_assert_msg(refused >= 1, "no failed query left float64 refused (%d queries)", n - 1);
    ci_forget();
}
END_TEST

static Suite *fault_sweep_suite(void)
{
    Suite *s = suite_create("fault_sweep");
    TCase *t = cu_tcase(s, "maxpool", 0);
    tcase_add_test(t, maxpool_paths);
    t = cu_tcase(s, "pools_and_max", 0);
    tcase_add_test(t, pools_and_max);
    tcase_add_test(t, caller_out_of_order_queue);
    t = cu_tcase(s, "host_calls", 0);
    tcase_add_test(t, host_calls_tensors_and_warm_up);
    t = cu_tcase(s, "contexts", 0);
    tcase_add_test(t, context_creation_and_program_build);
    tcase_add_test(t, unread_extensions_refuse_float64);
    tcase_add_test(t, device_listing_failures_are_named);
    tcase_add_test(t, unread_build_logs_keep_the_build_failure);
    t = cu_tcase(s, "contract", 0);
    tcase_add_test(t, failed_later_pass_contract);
    tcase_add_test(t, invalid_handles_named);
    return s;
}

int main(void)
{
    return cu_run_suite(fault_sweep_suite(), CK_NORMAL);
}
