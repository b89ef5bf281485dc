/*
 * `clpool bench [--csv] [--device DEV] [--repeat R] [--filter TEXT | --sweep | --overhead | --startup]`
 *
 * Times the reference cases of the performance plan on one device, next to a
 * plain copy kernel over the same number of bytes in the same run. Device
 * time of a whole op = end of its final event minus end of a marker enqueued
 * just before it on the same in-order profiling queue (multi-pass ops
 * included); where the device reports no timestamps (Mesa's rusticl), host
 * time from that enqueue to clFinish instead, for the op and the copy alike.
 * Medians over R repeats after one warm-up, each run from evicted caches and
 * the op's runs alternating with the copy's (time_op_and_copy). bytes = all
 * inputs + all outputs; GB/s = bytes / time.
 *   --sweep     MaxPool 3x3/s2/p1 and Max (same shape) from 64 KiB to 512 MiB
 *   --overhead  median host cost of one enqueue call over 10,000 tiny ops, with the
 *               device running them and with the device idle
 *   --startup   the first result of each reference case (batch 1) and of
 *               clpool_context_warm_up in fresh processes from empty caches,
 *               against a trivial copy kernel's, and calls 2-20 of each key
 *               (tools/cli_startup.c); R defaults to 5
 * POCL_AFFINITY defaults to 1 here (a value in the environment wins): unpinned,
 * PoCL's worker threads can share one core and every kernel, the copy
 * included, runs at a fraction of its speed in that process. CLPOOL_TIERED
 * defaults to 0 except with --startup, which measures what a new user gets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clpool/clpool.h>

#include "cli.h"

/* B_MAXPOOL_NAN: MaxPool on an input with one NaN in each plane (the exact path's share) */
/* B_AVGPOOL: count_include_pad 0; B_LPPOOL2: p = 2 (the window as MaxPool's: k, s, p) */
/* B_MAXUNPOOL: X and Indices from MaxPool (the window) of in[0], unpooled into in[0]'s shape */
typedef enum bench_op {
    B_MAXPOOL, B_MAXPOOL_NAN, B_MAXPOOL_IDX, B_AVGPOOL, B_LPPOOL2, B_MAXUNPOOL, B_GLOBAL_AVG, B_GLOBAL_MAX, B_GLOBAL_LP2,
    B_MAX
} bench_op;

typedef struct bench_case {
    char name[96];
    bench_op op;
    clpool_dtype dtype;
    int64_t k, s, p;          /* MaxPool window of every spatial dim... */
    int64_t lead_k;           /* ...but the first of 3, if not 0 (its stride 1, pads 0): video models' 1xkxk */
    int n_inputs;
    clpool_shape in[2];
    int channels_last;        /* the windowed ops: every tensor channels-last (views) */
    int64_t dilation;         /* of every spatial dim, if not 0 */
    int64_t kernel[4];        /* the window per spatial dim instead of k, if kernel[0] is not 0 (strides 1, pads 0) */
} bench_case;

typedef struct bench_env {
    clpool_context *ctx;
    cl_context cl;
    cl_command_queue q;       /* in-order, profiling */
    cl_kernel copy;
    cl_kernel evict;          /* reads evict_src to push everything else out of the caches */
    cl_mem evict_src, evict_sums;
    cl_ulong evict_n16;       /* evict_src holds evict_n16 blocks of 16 float4 */
    int repeat;
    int host_clock; /* the device gave no timestamps: host time, noted once on stderr */
} bench_env;

static const char *bench_kernels_source =
    "__kernel void copy(__global const float4 *src, __global float4 *dst, const ulong n) {\n"
    "    const ulong i = get_global_id(0);\n"
    "    if (i < n) dst[i] = src[i];\n"
    "}\n"
    /* Read-only, so evicting its lines later costs no write-back; one float
     * written per 256 bytes read keeps the reads from being optimised away. */
    "__kernel void evict(__global const float4 *src, __global float *sums, const ulong n16) {\n"
    "    const ulong i = get_global_id(0);\n"
    "    if (i >= n16) return;\n"
    "    float4 acc = (float4)(0.0f);\n"
    "    for (int k = 0; k < 16; ++k) acc += src[i * 16 + k];\n"
    "    sums[i] = acc.x + acc.y + acc.z + acc.w;\n"
    "}\n";

/* Device time from the end of `before` to the end of `done` in ms, or -1
 * where the device reports no timestamps (Mesa's rusticl 22.3 gives 0). */
static double event_span_ms(cl_event before, cl_event done)
{
    cl_ulong a = 0, b = 0;
    if (clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof a, &a, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS || b <= a)
        return -1;
    return (double)(b - a) / 1e6;
}

/* Deterministic, tie-rich data of a dtype: normal floats in [0.5, 2) (no
 * denormals or NaN to distort timings), integers over their whole range. */
static void fill_values(clpool_dtype dtype, unsigned char *host, size_t bytes)
{
    uint32_t x = 12345;
    const size_t es = clpool_dtype_size(dtype), n = bytes / es;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        const uint32_t r = x >> 8;
        switch (dtype) {
        case CLPOOL_FLOAT32: ((float *)host)[i] = 0.5f + (float)(r & 0xfff) / 2731.0f; break;
        case CLPOOL_FLOAT64: ((double *)host)[i] = 0.5 + (double)(r & 0xfff) / 2731.0; break;
        case CLPOOL_FLOAT16: ((uint16_t *)host)[i] = (uint16_t)(0x3800 + (r & 0x7ff)); break;
        case CLPOOL_BFLOAT16: ((uint16_t *)host)[i] = (uint16_t)(0x3f00 + (r & 0xff)); break;
        default: memcpy(host + i * es, &r, es < sizeof r ? es : sizeof r); break;
        }
    }
}

/* One quiet NaN in each plane of a float32/float16 tensor of `shape` in host
 * memory, at a row and column that vary from plane to plane. */
static void plant_nans(clpool_dtype dtype, const clpool_shape *shape, unsigned char *host)
{
    const int64_t h = shape->dims[shape->rank - 2], w = shape->dims[shape->rank - 1];
    const int64_t planes = clpool_shape_elements(shape) / (h * w);
    const uint32_t nan32 = 0x7fc00000u;
    const uint16_t nan16 = 0x7e00u;
    const size_t es = clpool_dtype_size(dtype);
    for (int64_t p = 0; p < planes; ++p) {
        const int64_t at = (p * h + (p * 7) % h) * w + (p * 13) % w;
        memcpy(host + (size_t)at * es, dtype == CLPOOL_FLOAT16 ? (const void *)&nan16 : (const void *)&nan32, es);
    }
}

/* A device buffer of `bytes`, filled with fill_values() of fill_dtype (0:
 * left unset) and, where nan_planes is not NULL, plant_nans() over that shape. */
static cl_mem make_buffer(bench_env *env, size_t bytes, clpool_dtype fill_dtype, const clpool_shape *nan_planes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &err);
    if (!m || !fill_dtype) return m;
    unsigned char *host = calloc(1, bytes ? bytes : 1);
    if (!host) {
        clReleaseMemObject(m);
        return NULL;
    }
    fill_values(fill_dtype, host, bytes);
    if (nan_planes) plant_nans(fill_dtype, nan_planes, host);
    clEnqueueWriteBuffer(env->q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    free(host);
    return m;
}

typedef clpool_status (*enqueue_fn)(bench_env *env, void *state, cl_event *done);

/* Device time of one run of `run` (which enqueues one op and returns its final
 * event) in *ms; returns -1 after a message when the enqueue fails. */
static int time_once(bench_env *env, enqueue_fn run, void *state, double *ms)
{
    cl_event before = NULL, done = NULL;
    const double t0 = cli_now_ms();
    clEnqueueMarkerWithWaitList(env->q, 0, NULL, &before);
    if (run(env, state, &done) != CLPOOL_SUCCESS) {
        fprintf(stderr, "clpool bench: %s\n", clpool_last_error());
        if (before) clReleaseEvent(before);
        return -1;
    }
    clFinish(env->q);
    *ms = event_span_ms(before, done);
    if (*ms < 0) { /* both sides of a ratio are timed the same way */
        *ms = cli_now_ms() - t0;
        if (!env->host_clock) {
            env->host_clock = 1;
            fprintf(stderr, "clpool bench: the device reports no profiling timestamps; "
                            "timing with the host clock (enqueue to clFinish) instead\n");
        }
    }
    clReleaseEvent(before);
    clReleaseEvent(done);
    return 0;
}

/* Enqueue one of the bench's own kernels (src, dst, n: n work-items, 64 a group). */
static cl_int enqueue_bench_kernel(bench_env *env, cl_kernel k, cl_mem src, cl_mem dst, cl_ulong n, cl_event *done)
{
    clSetKernelArg(k, 0, sizeof src, &src);
    clSetKernelArg(k, 1, sizeof dst, &dst);
    clSetKernelArg(k, 2, sizeof n, &n);
    size_t local = 64, global = (size_t)((n + local - 1) / local) * local;
    return clEnqueueNDRangeKernel(env->q, k, 1, NULL, &global, &local, 0, NULL, done);
}

/* Read the eviction buffer and wait: the caches then hold none of the next
 * run's data and no dirty lines for it to write back. */
static int evict_caches(bench_env *env)
{
    const cl_int err = enqueue_bench_kernel(env, env->evict, env->evict_src, env->evict_sums, env->evict_n16, NULL);
    return err == CL_SUCCESS && clFinish(env->q) == CL_SUCCESS ? 0 : -1;
}

/* Median times of `op` and `copy`, R runs each after one warm-up of each
 * (kernel builds, scratch leases). The two alternate run by run, as in an A/B
 * test, so that slow spells of this shared machine weigh on both sides of the
 * ratio alike. Every run starts from evicted caches: back to back, a run found
 * its own data in the last-level cache as far as it fitted, and the copy's
 * times fell by a third over 21 runs, so the ratio depended on the size of the
 * cache, on --repeat and on when the slow spells came. Cold, both sides
 * stream from memory: the bandwidth limit the ratio is about. */
static int time_op_and_copy(bench_env *env, enqueue_fn op, void *op_state, enqueue_fn copy, void *copy_state,
                            double *op_ms, double *copy_ms)
{
    double *t = malloc(sizeof(double) * 2 * (size_t)env->repeat);
    int rc = t ? 0 : -1;
    for (int r = -1; rc == 0 && r < env->repeat; ++r) {
        double a = 0, b = 0;
        rc = evict_caches(env) != 0 || time_once(env, op, op_state, &a) != 0 || evict_caches(env) != 0 ||
                     time_once(env, copy, copy_state, &b) != 0
                 ? -1
                 : 0;
        if (r >= 0) t[r] = a, t[env->repeat + r] = b;
    }
    if (rc == 0) {
        *op_ms = cli_median(t, env->repeat);
        *copy_ms = cli_median(t + env->repeat, env->repeat);
    }
    free(t);
    return rc;
}

typedef struct op_state {
    const bench_case *c;
    clpool_maxpool_params params;
    clpool_average_pool_params avg; /* B_AVGPOOL and B_LPPOOL2: the same window */
    clpool_lp_pool_params lp;
    clpool_max_unpool_params unpool;
    clpool_shape pooled; /* B_MAXUNPOOL: X's shape */
    clpool_shape out_shape;
    cl_mem in[2], out, idx;
} op_state;

static clpool_status run_case_once(bench_env *env, void *state, cl_event *done)
{
    op_state *s = state;
    const bench_case *c = s->c;
    size_t offsets[2] = {0, 0};
    if (c->channels_last && c->op == B_MAXUNPOOL) { /* X and Indices channels-last from MaxPool, the output too */
        clpool_view x, idx, out;
        clpool_view_channels_last(&x, s->in[1], 0, &s->pooled);
        clpool_view_channels_last(&idx, s->idx, 0, &s->pooled);
        clpool_view_channels_last(&out, s->out, 0, &c->in[0]);
        return clpool_enqueue_max_unpool_view(env->ctx, env->q, &s->unpool, c->dtype, &x, &idx, &out, NULL, 0, 0, NULL,
                                              done);
    }
    if (c->channels_last) {
        clpool_view in, out, idx;
        clpool_view_channels_last(&in, s->in[0], 0, &c->in[0]);
        clpool_view_channels_last(&out, s->out, 0, &s->out_shape);
        clpool_view_channels_last(&idx, s->idx, 0, &s->out_shape);
        if (c->op == B_AVGPOOL)
            return clpool_enqueue_average_pool_view(env->ctx, env->q, &s->avg, c->dtype, &in, &out, 0, NULL, done);
        if (c->op == B_LPPOOL2)
            return clpool_enqueue_lp_pool_view(env->ctx, env->q, &s->lp, c->dtype, &in, &out, 0, NULL, done);
        return clpool_enqueue_maxpool_view(env->ctx, env->q, &s->params, c->dtype, &in, &out,
                                           c->op == B_MAXPOOL_IDX ? &idx : NULL, 0, NULL, done);
    }
    switch (c->op) {
    case B_MAXPOOL:
    case B_MAXPOOL_NAN:
    case B_MAXPOOL_IDX:
        return clpool_enqueue_maxpool(env->ctx, env->q, &s->params, c->dtype, &c->in[0], s->in[0], 0, s->out, 0,
                                      c->op == B_MAXPOOL_IDX ? s->idx : NULL, 0, 0, NULL, done);
    case B_AVGPOOL:
        return clpool_enqueue_average_pool(env->ctx, env->q, &s->avg, c->dtype, &c->in[0], s->in[0], 0, s->out, 0, 0,
                                           NULL, done);
    case B_LPPOOL2:
        return clpool_enqueue_lp_pool(env->ctx, env->q, &s->lp, c->dtype, &c->in[0], s->in[0], 0, s->out, 0, 0, NULL,
                                      done);
    case B_MAXUNPOOL:
        return clpool_enqueue_max_unpool(env->ctx, env->q, &s->unpool, c->dtype, &s->pooled, s->in[1], 0,
                                         s->idx, 0, s->out, 0, NULL, 0, 0, NULL, done);
    case B_GLOBAL_AVG:
        return clpool_enqueue_global_average_pool(env->ctx, env->q, c->dtype, &c->in[0], s->in[0], 0, s->out, 0, 0, NULL,
                                                  done);
    case B_GLOBAL_MAX:
        return clpool_enqueue_global_max_pool(env->ctx, env->q, c->dtype, &c->in[0], s->in[0], 0, s->out, 0, 0, NULL, done);
    case B_GLOBAL_LP2:
        return clpool_enqueue_global_lp_pool(env->ctx, env->q, 2.0, c->dtype, &c->in[0], s->in[0], 0, s->out, 0, 0, NULL,
                                             done);
    case B_MAX:
        return clpool_enqueue_max(env->ctx, env->q, c->dtype, (size_t)c->n_inputs, c->in, s->in, offsets, s->out, 0, 0,
                                  NULL, done);
    }
    return CLPOOL_ERROR_INVALID_ARGUMENT;
}

typedef struct copy_state {
    cl_mem src, dst;
    cl_ulong n4;
} copy_state;

static clpool_status run_copy_once(bench_env *env, void *state, cl_event *done)
{
    const copy_state *s = state;
    return enqueue_bench_kernel(env, env->copy, s->src, s->dst, s->n4, done) == CL_SUCCESS ? CLPOOL_SUCCESS
                                                                                           : CLPOOL_ERROR_OPENCL;
}

/* Run one case and a plain copy of as many bytes (bytes/2 read + bytes/2
 * written): returns 0 and fills bytes, ms and copy_gbps, or -1. */
static int bench_case_run(bench_env *env, const bench_case *c, double *bytes, double *ms, double *copy_gbps)
{
    op_state s;
    memset(&s, 0, sizeof s);
    copy_state cs;
    memset(&cs, 0, sizeof cs);
    double copy_ms = 0;
    s.c = c;
    clpool_shape out;
    clpool_status st;
    const size_t es = clpool_dtype_size(c->dtype);
    const int windowed = c->op <= B_MAXUNPOOL;
    if (windowed) {
        const int32_t ns = c->in[0].rank - 2;
        int64_t ks[CLPOOL_MAX_SPATIAL];
        for (int32_t i = 0; i < ns; ++i) ks[i] = c->kernel[0] ? c->kernel[i] : c->k;
        clpool_maxpool_params_init(&s.params, ns, ks);
        for (int32_t i = 0; i < ns; ++i) {
            s.params.strides[i] = c->s;
            s.params.pads[i] = s.params.pads[ns + i] = c->p;
        }
        if (c->lead_k) {
            s.params.kernel_shape[0] = c->lead_k;
            s.params.strides[0] = 1;
            s.params.pads[0] = s.params.pads[ns] = 0;
        }
        for (int32_t i = 0; i < ns; ++i) {
            if (c->dilation) s.params.dilations[i] = c->dilation;
            if (c->kernel[0]) s.params.strides[i] = 1;
        }
        st = clpool_maxpool_output_shape(&c->in[0], &s.params, &out);
        /* AveragePool and LpPool: the same window (clpool_maxpool_params starts with its fields) */
        clpool_average_pool_params_init(&s.avg, ns, ks);
        clpool_lp_pool_params_init(&s.lp, ns, ks);
        memcpy(s.avg.window.kernel_shape, s.params.kernel_shape, sizeof s.params.kernel_shape);
        memcpy(s.avg.window.strides, s.params.strides, sizeof s.params.strides);
        memcpy(s.avg.window.pads, s.params.pads, sizeof s.params.pads);
        s.lp.window = s.avg.window;
        clpool_max_unpool_params_init(&s.unpool, ns, ks);
        memcpy(s.unpool.window.strides, s.params.strides, sizeof s.params.strides);
        memcpy(s.unpool.window.pads, s.params.pads, sizeof s.params.pads);
        s.unpool.has_output_shape = 1;
        s.unpool.output_shape = c->in[0];
        s.unpool.indices = CLPOOL_UNPOOL_INDICES_OUTPUT; /* MaxPool's Indices of in[0] */
    } else if (c->op == B_MAX) {
        st = clpool_max_output_shape((size_t)c->n_inputs, c->in, &out);
    } else {
        st = clpool_global_pool_output_shape(&c->in[0], &out);
    }
    if (st != CLPOOL_SUCCESS) return -1;
    s.out_shape = out;
    *bytes = 0;
    int rc = -1;
    for (int i = 0; i < c->n_inputs; ++i) {
        const size_t n = (size_t)clpool_shape_elements(&c->in[i]) * es;
        *bytes += (double)n;
        const clpool_shape *nan_planes = i == 0 && c->op == B_MAXPOOL_NAN ? &c->in[0] : NULL;
        if (!(s.in[i] = make_buffer(env, n, c->dtype, nan_planes))) goto done;
    }
    const size_t n_out = (size_t)clpool_shape_elements(&out);
    const int with_idx = c->op == B_MAXPOOL_IDX || c->op == B_MAXUNPOOL;
    *bytes += (double)(n_out * es) + (with_idx ? (double)n_out * 8 : 0);
    if (!(s.out = make_buffer(env, n_out * es, (clpool_dtype)0, NULL))) goto done;
    if (with_idx && !(s.idx = make_buffer(env, n_out * 8, (clpool_dtype)0, NULL))) goto done;
    if (c->op == B_MAXUNPOOL) { /* MaxPool's X and Indices in s.in[1] and s.idx; the output has in[0]'s shape */
        s.in[1] = s.out;
        s.pooled = out;
        const size_t n_y = (size_t)clpool_shape_elements(&c->in[0]) * es;
        clpool_view vin, vx, vidx; /* channels-last cases pool in that layout */
        clpool_view_channels_last(&vin, s.in[0], 0, &c->in[0]);
        clpool_view_channels_last(&vx, s.in[1], 0, &out);
        clpool_view_channels_last(&vidx, s.idx, 0, &out);
        if (!(s.out = make_buffer(env, n_y, (clpool_dtype)0, NULL)) ||
            (c->channels_last ? clpool_enqueue_maxpool_view(env->ctx, env->q, &s.params, c->dtype, &vin, &vx, &vidx, 0,
                                                            NULL, NULL)
                              : clpool_enqueue_maxpool(env->ctx, env->q, &s.params, c->dtype, &c->in[0], s.in[0], 0,
                                                       s.in[1], 0, s.idx, 0, 0, NULL, NULL)) != CLPOOL_SUCCESS ||
            clFinish(env->q) != CL_SUCCESS)
            goto done;
        *bytes = (double)(n_out * es) + (double)n_out * 8 + (double)n_y; /* X, Indices, the output: not in[0] */
    }
    cs.n4 = (cl_ulong)(*bytes / 2 / 16);
    if (cs.n4 == 0) cs.n4 = 1;
    if (!(cs.src = make_buffer(env, (size_t)cs.n4 * 16, CLPOOL_FLOAT32, NULL)) ||
        !(cs.dst = make_buffer(env, (size_t)cs.n4 * 16, (clpool_dtype)0, NULL)))
        goto done;
    rc = time_op_and_copy(env, run_case_once, &s, run_copy_once, &cs, ms, &copy_ms);
    if (rc == 0) *copy_gbps = (double)cs.n4 * 32 / (copy_ms * 1e6);
done:
    clpool_context_trim(env->ctx); /* the next case starts without this one's scratch */
    for (int i = 0; i < 2; ++i)
        if (s.in[i]) clReleaseMemObject(s.in[i]);
    if (s.out) clReleaseMemObject(s.out);
    if (s.idx) clReleaseMemObject(s.idx);
    if (cs.src) clReleaseMemObject(cs.src);
    if (cs.dst) clReleaseMemObject(cs.dst);
    return rc;
}

static const char *dtype_tag(clpool_dtype d)
{
    switch (d) {
    case CLPOOL_FLOAT32: return "f32";
    case CLPOOL_FLOAT16: return "f16";
    case CLPOOL_INT8: return "i8";
    case CLPOOL_UINT8: return "u8";
    default: return clpool_dtype_name(d);
    }
}

#define SHAPE4(a, b, c, d) {4, {a, b, c, d}}

static void add_case(bench_case *out, size_t cap, size_t *n, bench_case c)
{
    if (*n < cap) out[(*n)++] = c;
}

/* The reference cases (float32) plus float16 and int8/uint8 variants. */
static size_t build_cases(bench_case *out, size_t cap)
{
    static const clpool_dtype variants[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT16, CLPOOL_INT8, CLPOOL_UINT8};
    size_t n = 0;
    for (size_t v = 0; v < 4; ++v) {
        const clpool_dtype d = variants[v];
        const char *t = dtype_tag(d);
        bench_case c = {"", B_MAXPOOL, d, 3, 2, 1, 0, 1, {SHAPE4(8, 64, 112, 112)}, 0, 0, {0}};
        snprintf(c.name, sizeof c.name, "maxpool_3x3s2p1_8x64x112x112_%s", t);
        add_case(out, cap, &n, c);
        if (d == CLPOOL_FLOAT32 || d == CLPOOL_FLOAT16) { /* beyond the plan: NaN in the input */
            c.op = B_MAXPOOL_NAN;
            snprintf(c.name, sizeof c.name, "maxpool_3x3s2p1_8x64x112x112_nan_%s", t);
            add_case(out, cap, &n, c);
        }
        if (d == CLPOOL_FLOAT32) {
            c.op = B_MAXPOOL_IDX;
            snprintf(c.name, sizeof c.name, "maxpool_idx_3x3s2p1_8x64x112x112_%s", t);
            add_case(out, cap, &n, c);
        }
        c = (bench_case){"", B_MAXPOOL, d, 2, 2, 0, 0, 1, {SHAPE4(8, 128, 56, 56)}, 0, 0, {0}};
        snprintf(c.name, sizeof c.name, "maxpool_2x2s2_8x128x56x56_%s", t);
        add_case(out, cap, &n, c);
        if (d == CLPOOL_FLOAT32) { /* beyond the plan: SPPF's and SPP's stride-1 windows (YOLO necks) */
            add_case(out, cap, &n, (bench_case){"maxpool_5x5s1p2_8x512x20x20_f32", B_MAXPOOL, d, 5, 1, 2, 0, 1, {SHAPE4(8, 512, 20, 20)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool_13x13s1p6_8x512x20x20_f32", B_MAXPOOL, d, 13, 1, 6, 0, 1, {SHAPE4(8, 512, 20, 20)}, 0, 0, {0}});
            /* 1-D (audio) and 3-D (video) pooling, through 2-D views of the tensors */
            add_case(out, cap, &n, (bench_case){"maxpool1d_3s2p1_8x256x4096_f32", B_MAXPOOL, d, 3, 2, 1, 0, 1, {{3, {8, 256, 4096}}}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool3d_1x3x3s1x2x2p0x1x1_2x64x16x56x56_f32", B_MAXPOOL, d, 3, 2, 1, 1, 1,
                                                {{5, {2, 64, 16, 56, 56}}}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool3d_3x3x3s2p1_2x64x16x56x56_f32", B_MAXPOOL, d, 3, 2, 1, 0, 1,
                                                {{5, {2, 64, 16, 56, 56}}}, 0, 0, {0}});
            /* the general kernel: stride 3, dilation, stride 5, a window over the first and last of 4 dims */
            add_case(out, cap, &n, (bench_case){"maxpool_3x3s3_8x64x112x112_f32", B_MAXPOOL, d, 3, 3, 0, 0, 1, {SHAPE4(8, 64, 112, 112)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool_3x3s2p2d2_8x64x112x112_f32", B_MAXPOOL, d, 3, 2, 2, 0, 1,
                                                {SHAPE4(8, 64, 112, 112)}, 0, 2, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool_3x3s5_8x64x112x112_f32", B_MAXPOOL, d, 3, 5, 0, 0, 1, {SHAPE4(8, 64, 112, 112)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool4d_3x1x1x3_2x16x16x16x16x16_f32", B_MAXPOOL, d, 0, 1, 0, 0, 1,
                                                {{6, {2, 16, 16, 16, 16, 16}}}, 0, 0, {3, 1, 1, 3}});
            /* windows over whole planes (CBAM), with Indices: the window kernel */
            add_case(out, cap, &n, (bench_case){"maxpool_idx_28x28_8x512x28x28_f32", B_MAXPOOL_IDX, d, 28, 1, 0, 0, 1, {SHAPE4(8, 512, 28, 28)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool3d_idx_3x3x3s2p1_2x64x16x56x56_f32", B_MAXPOOL_IDX, d, 3, 2, 1, 0, 1,
                                                {{5, {2, 64, 16, 56, 56}}}, 0, 0, {0}});
        }
        if (d == CLPOOL_FLOAT32 || d == CLPOOL_FLOAT16) { /* Inception's 3x3/s1/p1 and DenseNet's 2x2/s2 */
            c = (bench_case){"", B_AVGPOOL, d, 3, 1, 1, 0, 1, {SHAPE4(8, 192, 35, 35)}, 0, 0, {0}};
            snprintf(c.name, sizeof c.name, "avgpool_3x3s1p1_8x192x35x35_%s", t);
            add_case(out, cap, &n, c);
            c = (bench_case){"", B_AVGPOOL, d, 2, 2, 0, 0, 1, {SHAPE4(8, 256, 56, 56)}, 0, 0, {0}};
            snprintf(c.name, sizeof c.name, "avgpool_2x2s2_8x256x56x56_%s", t);
            add_case(out, cap, &n, c);
        }
        if (d == CLPOOL_FLOAT32) {
            add_case(out, cap, &n, (bench_case){"avgpool_5x5s3_8x512x17x17_f32", B_AVGPOOL, d, 5, 3, 0, 0, 1, {SHAPE4(8, 512, 17, 17)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"avgpool3d_2x2x2s2_2x64x16x56x56_f32", B_AVGPOOL, d, 2, 2, 0, 0, 1,
                                                {{5, {2, 64, 16, 56, 56}}}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"lppool2_3x3s2_8x64x112x112_f32", B_LPPOOL2, d, 3, 2, 0, 0, 1, {SHAPE4(8, 64, 112, 112)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxunpool_2x2s2_8x64x28x28_f32", B_MAXUNPOOL, d, 2, 2, 0, 0, 1, {SHAPE4(8, 64, 56, 56)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxunpool_3x3s2p1_8x64x56x56_f32", B_MAXUNPOOL, d, 3, 2, 1, 0, 1, {SHAPE4(8, 64, 112, 112)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"globalavg_32x2048x7x7_f32", B_GLOBAL_AVG, d, 0, 0, 0, 0, 1, {SHAPE4(32, 2048, 7, 7)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"globalmax_32x2048x7x7_f32", B_GLOBAL_MAX, d, 0, 0, 0, 0, 1, {SHAPE4(32, 2048, 7, 7)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"globalavg_8x256x56x56_f32", B_GLOBAL_AVG, d, 0, 0, 0, 0, 1, {SHAPE4(8, 256, 56, 56)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"globallp2_8x256x56x56_f32", B_GLOBAL_LP2, d, 0, 0, 0, 0, 1, {SHAPE4(8, 256, 56, 56)}, 0, 0, {0}});
            add_case(out, cap, &n, (bench_case){"globalavg_1x3x1024x1024_f32", B_GLOBAL_AVG, d, 0, 0, 0, 0, 1, {SHAPE4(1, 3, 1024, 1024)}, 0, 0, {0}});
        }
        if (d == CLPOOL_FLOAT32 || d == CLPOOL_FLOAT16) { /* channels-last views: the reference shapes in NHWC */
            c = (bench_case){"", B_MAXPOOL, d, 3, 2, 1, 0, 1, {SHAPE4(8, 64, 112, 112)}, 1, 0, {0}};
            snprintf(c.name, sizeof c.name, "maxpool_3x3s2p1_8x64x112x112_nhwc_%s", t);
            add_case(out, cap, &n, c);
            c = (bench_case){"", B_AVGPOOL, d, 3, 1, 1, 0, 1, {SHAPE4(8, 192, 35, 35)}, 1, 0, {0}};
            snprintf(c.name, sizeof c.name, "avgpool_3x3s1p1_8x192x35x35_nhwc_%s", t);
            add_case(out, cap, &n, c);
        }
        if (d == CLPOOL_FLOAT32) {
            add_case(out, cap, &n, (bench_case){"maxpool_idx_3x3s2p1_8x64x112x112_nhwc_f32", B_MAXPOOL_IDX, d, 3, 2, 1, 0, 1,
                                                {SHAPE4(8, 64, 112, 112)}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool_2x2s2_8x128x56x56_nhwc_f32", B_MAXPOOL, d, 2, 2, 0, 0, 1,
                                                {SHAPE4(8, 128, 56, 56)}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxpool3d_3x3x3s2p1_2x64x16x56x56_ndhwc_f32", B_MAXPOOL, d, 3, 2, 1, 0, 1,
                                                {{5, {2, 64, 16, 56, 56}}}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"avgpool_2x2s2_8x256x56x56_nhwc_f32", B_AVGPOOL, d, 2, 2, 0, 0, 1,
                                                {SHAPE4(8, 256, 56, 56)}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"lppool2_3x3s2_8x64x112x112_nhwc_f32", B_LPPOOL2, d, 3, 2, 0, 0, 1,
                                                {SHAPE4(8, 64, 112, 112)}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxunpool_2x2s2_8x64x28x28_nhwc_f32", B_MAXUNPOOL, d, 2, 2, 0, 0, 1,
                                                {SHAPE4(8, 64, 56, 56)}, 1, 0, {0}});
            add_case(out, cap, &n, (bench_case){"maxunpool_3x3s2p1_8x64x56x56_nhwc_f32", B_MAXUNPOOL, d, 3, 2, 1, 0, 1,
                                                {SHAPE4(8, 64, 112, 112)}, 1, 0, {0}});
        }
        c = (bench_case){"", B_MAX, d, 0, 0, 0, 0, 2, {SHAPE4(16, 64, 128, 128), SHAPE4(16, 64, 128, 128)}, 0, 0, {0}};
        snprintf(c.name, sizeof c.name, "max_16x64x128x128_%s", t);
        add_case(out, cap, &n, c);
        c = (bench_case){"", B_MAX, d, 0, 0, 0, 0, 2, {SHAPE4(16, 64, 128, 128), SHAPE4(1, 64, 1, 1)}, 0, 0, {0}};
        snprintf(c.name, sizeof c.name, "max_bcast_16x64x128x128_1x64x1x1_%s", t);
        add_case(out, cap, &n, c);
    }
    return n;
}

/* The eviction buffer: twice the device's global memory cache, at least 64 MiB
 * (a device may report no cache size), written once so that its pages are
 * its own (never written, a CPU driver's pages may all map one zero page). */
static int evict_buffers_init(bench_env *env, cl_device_id dev)
{
    cl_ulong cache = 0;
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    const cl_ulong bytes = 2 * cache > ((cl_ulong)64 << 20) ? 2 * cache : (cl_ulong)64 << 20;
    env->evict_n16 = bytes / 256;
    env->evict_src = make_buffer(env, (size_t)bytes, CLPOOL_FLOAT32, NULL);
    env->evict_sums = make_buffer(env, (size_t)env->evict_n16 * sizeof(float), (clpool_dtype)0, NULL);
    return env->evict_src && env->evict_sums ? 0 : -1;
}

static int bench_env_init(bench_env *env, const char *device)
{
    clpool_context *probe = cli_open_context(device, "clpool bench");
    if (!probe) return -1;
    /* Our own profiling queue, adopted by a clpool context: how a pipeline embeds clpool. */
    cl_int err = CL_SUCCESS;
    env->cl = clpool_context_cl_context(probe);
    clRetainContext(env->cl);
    cl_device_id dev = clpool_context_cl_device(probe);
    clpool_context_release(probe);
    env->q = clCreateCommandQueue(env->cl, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_program prog = env->q ? clCreateProgramWithSource(env->cl, 1, &bench_kernels_source, NULL, &err) : NULL;
    const int ok = prog && clBuildProgram(prog, 1, &dev, "", NULL, NULL) == CL_SUCCESS &&
                   (env->copy = clCreateKernel(prog, "copy", &err)) && (env->evict = clCreateKernel(prog, "evict", &err)) &&
                   evict_buffers_init(env, dev) == 0 &&
                   clpool_context_create_from_cl(env->cl, dev, env->q, &env->ctx) == CLPOOL_SUCCESS;
    if (prog) clReleaseProgram(prog);
    if (!ok) {
        fprintf(stderr, "clpool bench: cannot set up the profiling queue, copy and evict kernels (%d)\n", (int)err);
        return -1;
    }
    return 0;
}

static void bench_env_release(bench_env *env)
{
    clpool_context_release(env->ctx);
    if (env->copy) clReleaseKernel(env->copy);
    if (env->evict) clReleaseKernel(env->evict);
    if (env->evict_src) clReleaseMemObject(env->evict_src);
    if (env->evict_sums) clReleaseMemObject(env->evict_sums);
    if (env->q) clReleaseCommandQueue(env->q);
    if (env->cl) clReleaseContext(env->cl);
}

/*
 * 10,000 tiny MaxPools: the host cost of one enqueue call (argument checks,
 * program lookup, kernel checkout, clSetKernelArg, clEnqueueNDRangeKernel),
 * in batches of 100 and a clFinish. Measured twice: with the device running
 * the ops as they arrive, and with each batch held behind a user event until
 * its last call returned. On a CPU device the first figure includes the
 * device's own work on the same cores (PoCL's worker threads run and retire
 * each command while the next is enqueued); the second is the host cost alone,
 * as on a GPU. Returns 1 and the median (us) in *us.
 */
static int overhead_run(bench_env *env, int device_idle, cl_mem x, cl_mem y, double *t, double *us)
{
    enum { N = 10000, BATCH = 100 };
    const int64_t ks[2] = {2, 2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 2, ks);
    const clpool_shape in = {4, {1, 1, 4, 4}};
    cl_event gate = NULL;
    /* the steady state: with tiers on, the first call's background build done */
    int ok = clpool_enqueue_maxpool(env->ctx, env->q, &p, CLPOOL_FLOAT32, &in, x, 0, y, 0, NULL, 0, 0, NULL, NULL) ==
                 CLPOOL_SUCCESS &&
             clFinish(env->q) == CL_SUCCESS && clpool_context_wait_builds(env->ctx) == CLPOOL_SUCCESS;
    for (int i = 0; ok && i < N; ++i) {
        if (device_idle && i % BATCH == 0) {
            cl_int err;
            gate = clCreateUserEvent(env->cl, &err);
            ok = gate && clEnqueueMarkerWithWaitList(env->q, 1, &gate, NULL) == CL_SUCCESS;
        }
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        ok = ok && clpool_enqueue_maxpool(env->ctx, env->q, &p, CLPOOL_FLOAT32, &in, x, 0, y, 0, NULL, 0, 0, NULL,
                                          NULL) == CLPOOL_SUCCESS;
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
        if (i % BATCH == BATCH - 1 || !ok) {
            if (gate) {
                clSetUserEventStatus(gate, CL_COMPLETE);
                clReleaseEvent(gate);
                gate = NULL;
            }
            clFinish(env->q);
        }
    }
    *us = cli_median(t, N);
    return ok;
}

static int bench_overhead(bench_env *env, int csv)
{
    enum { N = 10000 };
    cl_mem x = make_buffer(env, 64, CLPOOL_FLOAT32, NULL), y = make_buffer(env, 64, (clpool_dtype)0, NULL);
    double *t = malloc(sizeof(double) * N), busy = 0, idle = 0;
    const int ok = x && y && t && overhead_run(env, 0, x, y, t, &busy) && overhead_run(env, 1, x, y, t, &idle);
    if (ok) {
        if (csv) {
            printf("host_overhead_maxpool_1x1x4x4,%d,%.5f,,\n", N, busy / 1e3);
            printf("host_overhead_idle_device_maxpool_1x1x4x4,%d,%.5f,,\n", N, idle / 1e3);
        } else {
            printf("host overhead per enqueue (median of %d tiny MaxPools): %.2f us while the device runs them, "
                   "%.2f us with the device idle\n",
                   N - 100, busy, idle);
        }
    } else {
        fprintf(stderr, "clpool bench: overhead run failed: %s\n", clpool_last_error());
    }
    free(t);
    if (x) clReleaseMemObject(x);
    if (y) clReleaseMemObject(y);
    return ok ? 0 : -1;
}

/* Time vs input tensor size, 64 KiB .. 512 MiB in steps of 2x: MaxPool
 * 3x3/s2/p1 on 1 x 64 x side x side float32 and Max of two such tensors.
 * Returns -1 (after a message) when a size cannot run. */
static int bench_sweep(bench_env *env, int csv)
{
    if (!csv) printf("%-10s %14s %12s %10s %10s\n", "op", "bytes", "median ms", "GB/s", "copy GB/s");
    else printf("sweep_op,bytes,median_ms,gbps,copy_gbps\n");
    for (int op = 0; op < 2; ++op) {
        for (int64_t kib = 64; kib <= 512 * 1024; kib *= 2) {
            /* Input of ~kib KiB float32: 64 channels of side x side. */
            const int64_t elems = kib * 256, side_sq = elems / 64;
            int64_t side = 1;
            while ((side + 1) * (side + 1) <= side_sq) ++side;
            bench_case c;
            memset(&c, 0, sizeof c);
            c.dtype = CLPOOL_FLOAT32;
            c.in[0] = (clpool_shape){4, {1, 64, side, side}};
            if (op == 0) {
                c.op = B_MAXPOOL;
                c.k = 3, c.s = 2, c.p = 1, c.n_inputs = 1;
            } else {
                c.op = B_MAX;
                c.n_inputs = 2;
                c.in[1] = c.in[0];
            }
            double bytes = 0, ms = 0, cg = 0;
            if (bench_case_run(env, &c, &bytes, &ms, &cg) != 0) {
                fprintf(stderr, "clpool bench: sweep stopped at %lld KiB: %s\n", (long long)kib, clpool_last_error());
                return -1;
            }
            const char *name = op == 0 ? "maxpool" : "max";
            if (csv) printf("%s,%.0f,%.4f,%.3f,%.3f\n", name, bytes, ms, bytes / (ms * 1e6), cg);
            else printf("%-10s %14.0f %12.4f %10.2f %10.2f\n", name, bytes, ms, bytes / (ms * 1e6), cg);
            fflush(stdout);
        }
    }
    return 0;
}

int cli_bench(int argc, char **argv)
{
    const char *device = NULL, *filter = NULL;
    const char *startup_case = NULL; /* internal: one start-up case, in a child process, its calls --pace ms apart */
    int pace_ms = -1;
    int csv = 0, sweep = 0, overhead = 0, startup = 0, repeat_given = 0;
    bench_env env;
    memset(&env, 0, sizeof env);
    env.repeat = 15;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (cli_is_help(a)) return cli_help("bench");
        if (strcmp(a, "--csv") == 0) csv = 1;
        else if (strcmp(a, "--sweep") == 0) sweep = 1;
        else if (strcmp(a, "--overhead") == 0) overhead = 1;
        else if (strcmp(a, "--startup") == 0) startup = 1;
        else if (strcmp(a, "--device") != 0 && strcmp(a, "--filter") != 0 && strcmp(a, "--repeat") != 0 &&
                 strcmp(a, "--startup-case") != 0 && strcmp(a, "--pace") != 0)
            return cli_usage_error("bench", "unexpected argument '%s'", a);
        else if (i + 1 == argc) return cli_usage_error("bench", "%s needs a value", a);
        else if (strcmp(a, "--device") == 0) device = argv[++i];
        else if (strcmp(a, "--startup-case") == 0) startup_case = argv[++i];
        else if (strcmp(a, "--pace") == 0) pace_ms = atoi(argv[++i]);
        else if (strcmp(a, "--filter") == 0) filter = argv[++i];
        else {
            char *end = NULL;
            const long r = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || r < 1 || r > 100000)
                return cli_usage_error("bench", "--repeat must be 1..100000, not '%s'", argv[i]);
            env.repeat = (int)r;
            repeat_given = 1;
        }
    }
    if (sweep + overhead + startup + (filter != NULL) > 1)
        return cli_usage_error("bench", "--filter, --sweep, --overhead and --startup exclude one another");
    bench_case cases[64];
    const size_t n_cases = build_cases(cases, 64);
    size_t matched = 0;
    for (size_t i = 0; i < n_cases; ++i) matched += !filter || strstr(cases[i].name, filter) != NULL;
    if (matched == 0) return cli_usage_error("bench", "no case matches --filter '%s'", filter);
    setenv("POCL_AFFINITY", "1", 0); /* before the first OpenCL call; see the top comment */
    /* Throughput is the specialised kernels': no first tier in the warm-up run. */
    if (!startup && !startup_case) setenv("CLPOOL_TIERED", "0", 0);
    if (startup_case) return cli_bench_startup_child(startup_case, device, pace_ms);
    if (startup) return cli_bench_startup(device, repeat_given ? env.repeat : 5, csv);
    if (bench_env_init(&env, device) != 0) {
        bench_env_release(&env);
        return 1;
    }
    int rc = 0;
    if (sweep) {
        rc = bench_sweep(&env, csv) != 0;
    } else if (overhead) {
        rc = bench_overhead(&env, csv) != 0;
    } else {
        if (csv) printf("case,bytes,median_ms,gbps,copy_gbps\n");
        else printf("%-46s %12s %10s %8s %9s %6s\n", "case", "bytes", "median ms", "GB/s", "copy GB/s", "ratio");
        for (size_t i = 0; i < n_cases; ++i) {
            if (filter && !strstr(cases[i].name, filter)) continue;
            double bytes = 0, ms = 0, cg = 0;
            if (bench_case_run(&env, &cases[i], &bytes, &ms, &cg) != 0) {
                rc = 1;
                break;
            }
            const double g = bytes / (ms * 1e6);
            if (csv) printf("%s,%.0f,%.4f,%.3f,%.3f\n", cases[i].name, bytes, ms, g, cg);
            else printf("%-46s %12.0f %10.3f %8.2f %9.2f %6.2f\n", cases[i].name, bytes, ms, g, cg, g / cg);
            fflush(stdout);
        }
        if (!filter && bench_overhead(&env, csv) != 0) rc = 1;
    }
    bench_env_release(&env);
    return rc;
}
