/*
 * Embedding clpool in a caller's OpenCL pipeline: ops chained only through
 * events on an out-of-order queue, every tensor at an odd byte offset in one
 * arena buffer, reference counts balanced, one context shared by 8 threads,
 * and several (sub-)devices in one cl_context. Results are checked against
 * the plain-C references.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "reference.h"
#include "reference_ops.h"

static void fill_floats(float *x, int64_t n, uint64_t seed)
{
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; ++i) x[i] = (float)ref_rng_range(&r, -50, 50) / 4.0f;
}

/* A caller-owned cl_context + out-of-order queue (in-order if unsupported). */
typedef struct pipeline {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    int out_of_order;
} pipeline;

static void pipeline_open(pipeline *p)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_device_get_info(0, &info), CLPOOL_SUCCESS);
    cl_int err;
    p->device = info.device;
    p->context = clCreateContext(NULL, 1, &p->device, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(p->device, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    p->out_of_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    p->queue = clCreateCommandQueue(p->context, p->device, p->out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0,
                                    &err);
    ck_assert_int_eq(err, CL_SUCCESS);
}

static void pipeline_close(pipeline *p)
{
    clReleaseCommandQueue(p->queue);
    clReleaseContext(p->context);
}

/*
 * MaxPool -> GlobalAveragePool -> Max, enqueued behind a user event that is
 * completed only after all three are queued, chained by their events alone
 * (no clFinish, no blocking call), every tensor at an odd offset in one arena.
 */
START_TEST(ops_chain_through_events_in_one_arena)
{
    pipeline p;
    pipeline_open(&p);
    const cl_uint queue_refs = cu_queue_refcount(p.queue);
    clpool_context *ctx = NULL;
    ck_assert_int_eq(clpool_context_create_from_cl(p.context, p.device, p.queue, &ctx), CLPOOL_SUCCESS);

    const clpool_shape x_shape = {4, {2, 8, 16, 16}}, w_shape = {4, {1, 8, 1, 1}};
    const int64_t k[2] = {2, 2};
    clpool_maxpool_params mp;
    clpool_maxpool_params_init(&mp, 2, k);
    mp.strides[0] = mp.strides[1] = 2;
    clpool_shape y_shape, z_shape, r_shape;
    ck_assert_int_eq(clpool_maxpool_output_shape(&x_shape, &mp, &y_shape), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_global_pool_output_shape(&y_shape, &z_shape), CLPOOL_SUCCESS);
    const clpool_shape max_in[2] = {z_shape, w_shape};
    ck_assert_int_eq(clpool_max_output_shape(2, max_in, &r_shape), CLPOOL_SUCCESS);

    /* Arena layout: offsets are multiples of 4 bytes only, never of CL_DEVICE_MEM_BASE_ADDR_ALIGN. */
    const size_t nx = 2 * 8 * 16 * 16, ny = 2 * 8 * 8 * 8, nz = 16, nw = 8, nr = 16;
    const size_t off_x = 12, off_y = off_x + nx * 4 + 4, off_z = off_y + ny * 4 + 20, off_w = off_z + nz * 4 + 36,
                 off_r = off_w + nw * 4 + 4, arena_bytes = off_r + nr * 4 + 8;
    float x[2 * 8 * 16 * 16], w[8];
    fill_floats(x, (int64_t)nx, 1);
    fill_floats(w, (int64_t)nw, 2);
    cl_int err;
    cl_mem arena = clCreateBuffer(p.context, CL_MEM_READ_WRITE, arena_bytes, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueWriteBuffer(p.queue, arena, CL_TRUE, off_x, nx * 4, x, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueWriteBuffer(p.queue, arena, CL_TRUE, off_w, nw * 4, w, 0, NULL, NULL), CL_SUCCESS);

    cl_event gate = clCreateUserEvent(p.context, &err), e1 = NULL, e2 = NULL, e3 = NULL;
    ck_assert_int_eq(clpool_enqueue_maxpool(ctx, p.queue, &mp, CLPOOL_FLOAT32, &x_shape, arena, off_x, arena, off_y,
                                            NULL, 0, 1, &gate, &e1),
                     CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_enqueue_global_average_pool(ctx, p.queue, CLPOOL_FLOAT32, &y_shape, arena, off_y, arena,
                                                        off_z, 1, &e1, &e2),
                     CLPOOL_SUCCESS);
    const cl_mem bufs[2] = {arena, arena};
    const size_t offs[2] = {off_z, off_w};
    ck_assert_int_eq(clpool_enqueue_max(ctx, p.queue, CLPOOL_FLOAT32, 2, max_in, bufs, offs, arena, off_r, 1, &e2, &e3),
                     CLPOOL_SUCCESS);
    /* Nothing may have run yet: the whole chain hangs on the gate. */
    cl_int state = 0;
    clGetEventInfo(e3, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    ck_assert_int_ne(state, CL_COMPLETE);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    float r[16];
    ck_assert_int_eq(clEnqueueReadBuffer(p.queue, arena, CL_TRUE, off_r, nr * 4, r, 1, &e3, NULL), CL_SUCCESS);

    float y[2 * 8 * 8 * 8], want[16];
    double z[16];
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &x_shape, &mp, x, y, NULL), 0);
    ck_assert_int_eq(ref_global_average_pool(CLPOOL_FLOAT32, &y_shape, y, z, NULL), 0);
    float zf[16];
    for (int i = 0; i < 16; ++i) zf[i] = (float)z[i];
    const void *max_data[2] = {zf, w};
    ck_assert_int_eq(ref_max(CLPOOL_FLOAT32, 2, max_in, max_data, want), 0);
    for (int i = 0; i < 16; ++i) cu_expect(fabsf(r[i] - want[i]) <= 1e-5f * (1 + fabsf(want[i])), "r[%d] = %g, want %g", i, r[i], want[i]);

    clReleaseEvent(gate);
    clReleaseEvent(e1);
    clReleaseEvent(e2);
    clReleaseEvent(e3);
    clReleaseMemObject(arena);
    ck_assert_int_eq(clFinish(p.queue), CL_SUCCESS);
    /* Drivers may hold references of commands that waited on a user event
     * after clFinish returns (PoCL 3.1 drops its queue reference from a
     * notifier thread, sometimes late; rusticl holds context references), so
     * wait for the count to settle at clpool's one reference before reading
     * it, then compare around clpool's own release: exactly that reference.
     * Full balance without user events: reference_counts_balance_after_ops. */
    const cl_uint queue_refs_in_use = cu_settled_queue_refcount(p.queue, queue_refs + 1);
    ck_assert_uint_ge(queue_refs_in_use, queue_refs + 1);
    clpool_context_release(ctx);
    ck_assert_uint_eq(cu_settled_queue_refcount(p.queue, queue_refs_in_use - 1), queue_refs_in_use - 1);
    pipeline_close(&p);
}
END_TEST

/* Every op kind (two-pass global pool with its temporary buffer, Max over 9
 * inputs in three event-chained passes), then release: the caller's context
 * and queue are back at their starting reference counts. */
START_TEST(reference_counts_balance_after_ops)
{
    pipeline p;
    pipeline_open(&p);
    const cl_uint ctx_refs = cu_context_refcount(p.context), queue_refs = cu_queue_refcount(p.queue);
    clpool_context *ctx = NULL;
    ck_assert_int_eq(clpool_context_create_from_cl(p.context, p.device, p.queue, &ctx), CLPOOL_SUCCESS);
    cl_int err;
    cl_mem a = clCreateBuffer(p.context, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    cl_mem b = clCreateBuffer(p.context, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    const cl_uchar zero = 0;
    ck_assert_int_eq(clEnqueueFillBuffer(p.queue, a, &zero, 1, 0, 1 << 20, 0, NULL, NULL), CL_SUCCESS);
    cl_event e[3];
    const int64_t k[2] = {3, 3};
    clpool_maxpool_params mp;
    clpool_maxpool_params_init(&mp, 2, k);
    const clpool_shape img = {4, {1, 2, 32, 32}}, plane = {4, {1, 1, 1, 65536}};
    ck_assert_int_eq(clpool_enqueue_maxpool(ctx, p.queue, &mp, CLPOOL_FLOAT32, &img, a, 0, b, 0, NULL, 0,
                                            0, NULL, &e[0]),
                     CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_enqueue_global_average_pool(ctx, p.queue, CLPOOL_FLOAT32, &plane, a, 0, b, 0, 1, &e[0], &e[1]),
                     CLPOOL_SUCCESS);
    clpool_shape shapes[9];
    cl_mem mems[9];
    size_t offs[9];
    for (int i = 0; i < 9; ++i) {
        shapes[i] = (clpool_shape){2, {4, 16}};
        mems[i] = a;
        offs[i] = (size_t)i * 256;
    }
    ck_assert_int_eq(clpool_enqueue_max(ctx, p.queue, CLPOOL_FLOAT32, 9, shapes, mems, offs, b, 0, 1, &e[1], &e[2]),
                     CLPOOL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &e[2]), CL_SUCCESS);
    for (int i = 0; i < 3; ++i) clReleaseEvent(e[i]);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    ck_assert_int_eq(clFinish(p.queue), CL_SUCCESS);
    clpool_context_release(ctx);
    ck_assert_int_eq(clFinish(p.queue), CL_SUCCESS);
    ck_assert_uint_eq(cu_settled_context_refcount(p.context, ctx_refs), ctx_refs);
    ck_assert_uint_eq(cu_settled_queue_refcount(p.queue, queue_refs), queue_refs);
    pipeline_close(&p);
}
END_TEST

/* ------------------------------------------------------------ threads */

#define THREADS 8
#define OPS_PER_THREAD 1000

typedef struct worker {
    clpool_context *ctx;
    int id;
    int ops;
    int failures;
    char first_failure[256];
} worker;

static void note_failure(worker *w, const char *what)
{
    if (w->failures++ == 0) snprintf(w->first_failure, sizeof w->first_failure, "thread %d: %s", w->id, what);
}

/* Mixed small ops on the thread's own queue, each verified against the reference. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(clpool_context_cl_context(w->ctx), clpool_context_cl_device(w->ctx), 0, &err);
    if (!q) {
        note_failure(w, "clCreateCommandQueue failed");
        return NULL;
    }
    ref_rng rng;
    ref_rng_seed(&rng, 1000 + (uint64_t)w->id);
    const clpool_shape in_shape = {4, {1, 2, 6, 6}}, b_shape = {4, {1, 2, 1, 6}};
    const clpool_shape in_3d = {5, {1, 2, 3, 3, 4}}; /* the same 72 floats */
    const clpool_shape long_planes = {4, {1, 2, 64, 64}}; /* the global pools' two-pass form */
    float x[72], b[12], got[72], want[72];
    enum { LONG_N = 2 * 64 * 64 };
    float *yy = malloc(LONG_N * sizeof(float));
    cl_mem xin = clCreateBuffer(clpool_context_cl_context(w->ctx), CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    cl_mem yin = clCreateBuffer(clpool_context_cl_context(w->ctx), CL_MEM_READ_WRITE, LONG_N * sizeof(float), NULL, &err);
    cl_mem bin = clCreateBuffer(clpool_context_cl_context(w->ctx), CL_MEM_READ_WRITE, sizeof b, NULL, &err);
    cl_mem out = clCreateBuffer(clpool_context_cl_context(w->ctx), CL_MEM_READ_WRITE, sizeof got, NULL, &err);
    for (int op = 0; op < w->ops && w->failures < 5; ++op) {
        fill_floats(x, 72, ref_rng_next(&rng));
        fill_floats(b, 12, ref_rng_next(&rng));
        clEnqueueWriteBuffer(q, xin, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, bin, CL_TRUE, 0, sizeof b, b, 0, NULL, NULL);
        clpool_status st;
        int64_t n_out;
        const int kind = op % 5;
        if (kind == 0) {
            const int64_t k[2] = {3, 3};
            clpool_maxpool_params p;
            clpool_maxpool_params_init(&p, 2, k);
            p.pads[0] = p.pads[1] = p.pads[2] = p.pads[3] = 1;
            p.strides[0] = p.strides[1] = 2;
            n_out = 2 * 3 * 3;
            st = clpool_enqueue_maxpool(w->ctx, q, &p, CLPOOL_FLOAT32, &in_shape, xin, 0, out, 0, NULL, 0, 0, NULL, NULL);
            ref_maxpool(CLPOOL_FLOAT32, &in_shape, &p, x, want, NULL);
        } else if (kind == 1) {
            n_out = 2;
            st = clpool_enqueue_global_max_pool(w->ctx, q, CLPOOL_FLOAT32, &in_shape, xin, 0, out, 0, 0, NULL, NULL);
            ref_global_max_pool(CLPOOL_FLOAT32, &in_shape, x, want);
        } else if (kind == 3) { /* two passes through the context's scratch */
            const int64_t k[3] = {2, 2, 2};
            clpool_maxpool_params p;
            clpool_maxpool_params_init(&p, 3, k);
            n_out = 2 * 2 * 2 * 3;
            st = clpool_enqueue_maxpool(w->ctx, q, &p, CLPOOL_FLOAT32, &in_3d, xin, 0, out, 0, NULL, 0, 0, NULL, NULL);
            ref_maxpool(CLPOOL_FLOAT32, &in_3d, &p, x, want, NULL);
        } else if (kind == 4) { /* two passes, partials in the context's scratch */
            fill_floats(yy, LONG_N, ref_rng_next(&rng));
            clEnqueueWriteBuffer(q, yin, CL_TRUE, 0, LONG_N * sizeof(float), yy, 0, NULL, NULL);
            st = clpool_enqueue_global_average_pool(w->ctx, q, CLPOOL_FLOAT32, &long_planes, yin, 0, out, 0, 0, NULL,
                                                    NULL);
            double mean[2];
            ref_global_average_pool(CLPOOL_FLOAT32, &long_planes, yy, mean, NULL);
            if (st == CLPOOL_SUCCESS) {
                clEnqueueReadBuffer(q, out, CL_TRUE, 0, 2 * sizeof(float), got, 0, NULL, NULL);
                for (int i = 0; i < 2; ++i)
                    if (fabs(got[i] - mean[i]) > 1e-6 + 1e-5 * fabs(mean[i])) note_failure(w, "GlobalAveragePool mismatch");
            } else {
                note_failure(w, clpool_last_error());
            }
            continue;
        } else {
            const clpool_shape shapes[2] = {in_shape, b_shape};
            const cl_mem mems[2] = {xin, bin};
            const size_t offs[2] = {0, 0};
            const void *data[2] = {x, b};
            n_out = 72;
            st = clpool_enqueue_max(w->ctx, q, CLPOOL_FLOAT32, 2, shapes, mems, offs, out, 0, 0, NULL, NULL);
            ref_max(CLPOOL_FLOAT32, 2, shapes, data, want);
        }
        if (st != CLPOOL_SUCCESS) {
            note_failure(w, clpool_last_error());
            continue;
        }
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, (size_t)n_out * 4, got, 0, NULL, NULL);
        if (memcmp(got, want, (size_t)n_out * 4) != 0)
            note_failure(w, kind == 0 ? "MaxPool mismatch" : kind == 1 ? "GlobalMaxPool mismatch"
                            : kind == 3 ? "3-D MaxPool mismatch" : "Max mismatch");
    }
    free(yy);
    clReleaseMemObject(yin);
    clReleaseMemObject(xin);
    clReleaseMemObject(bin);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    return NULL;
}

/* Tiers off (each key's first call builds its program), then on (first calls run the first tiers while the
 * context's thread builds the specialised programs, released with builds possibly in flight). */
START_TEST(one_context_shared_by_eight_threads)
{
    for (int tiered = 0; tiered < 2; ++tiered) {
        setenv("CLPOOL_TIERED", tiered ? "1" : "0", 1);
        clpool_context *ctx = NULL;
        ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_SUCCESS);
        pthread_t threads[THREADS];
        worker workers[THREADS];
        for (int i = 0; i < THREADS; ++i) {
            workers[i] = (worker){.ctx = ctx, .id = i, .ops = tiered ? OPS_PER_THREAD / 4 : OPS_PER_THREAD};
            ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
        }
        int failures = 0;
        for (int i = 0; i < THREADS; ++i) {
            pthread_join(threads[i], NULL);
            if (workers[i].failures) fprintf(stderr, "tiers %s: %s\n", tiered ? "on" : "off", workers[i].first_failure);
            failures += workers[i].failures;
        }
        clpool_context_release(ctx);
        ck_assert_int_eq(failures, 0);
    }
    setenv("CLPOOL_TIERED", "0", 1);
}
END_TEST

/* Two sub-devices of one CPU in one cl_context, one clpool context per device. */
START_TEST(several_devices_in_one_context)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_device_get_info(0, &info), CLPOOL_SUCCESS);
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    cl_device_id subs[8];
    cl_uint n = 0, max_subs = 0;
    /* Ask first: rusticl (Mesa 22.3) reports 0 and its clCreateSubDevices entry is NULL (calling it crashes). */
    if (clGetDeviceInfo(info.device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max_subs, &max_subs, NULL) != CL_SUCCESS)
        max_subs = 0;
    if (info.compute_units < 2 || max_subs < 2 || clCreateSubDevices(info.device, props, 8, subs, &n) != CL_SUCCESS ||
        n < 2) {
        printf("note: device cannot be partitioned into sub-devices; multi-device test skipped\n");
        return;
    }
    cl_int err;
    cl_context c = clCreateContext(NULL, 2, subs, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    for (int d = 0; d < 2; ++d) {
        clpool_context *ctx = NULL;
        ck_assert_msg(clpool_context_create_from_cl(c, subs[d], NULL, &ctx) == CLPOOL_SUCCESS, "%s", clpool_last_error());
        const int64_t k[1] = {2};
        clpool_maxpool_params p;
        clpool_maxpool_params_init(&p, 1, k);
        const clpool_shape in = {3, {1, 1, 5}};
        const float x[5] = {1, 7, 3, 2, 9};
        float y[4];
        ck_assert_int_eq(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL), CLPOOL_SUCCESS);
        ck_assert(y[0] == 7 && y[1] == 7 && y[2] == 3 && y[3] == 9);
        clpool_context_release(ctx);
    }
    clReleaseContext(c);
    for (cl_uint i = 0; i < n; ++i) clReleaseDevice(subs[i]);
}
END_TEST

static long resident_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) sscanf(line + 6, "%ld", &kb);
    if (f) fclose(f);
    return kb;
}


/*
 * Launches that repeat most of the last call's kernel arguments and change
 * some: clpool does not set again a by-value argument equal to the one it
 * last set on that kernel (launch.c), and always sets buffers, so every
 * change must still reach the device.
 * 48 rounds from a fixed seed pick the op, the input and output buffers, their
 * offsets and the shape; a quarter repeat the last call exactly, and one
 * input is released and replaced halfway. The output region is filled with
 * NaN before each call, so a result written elsewhere or from the other input
 * fails the comparison.
 */
START_TEST(repeated_launches_follow_every_argument_change)
{
    pipeline p;
    pipeline_open(&p);
    clpool_context *ctx = NULL;
    ck_assert_int_eq(clpool_context_create_from_cl(p.context, p.device, p.queue, &ctx), CLPOOL_SUCCESS);
    enum { CAP = 1024, ROUNDS = 48 }; /* elements per buffer: the largest shape plus the largest offset */
    const clpool_shape shapes[3] = {{4, {1, 2, 8, 8}}, {4, {2, 3, 10, 12}}, {4, {1, 1, 6, 6}}};
    const size_t offsets[3] = {0, 4, 64}; /* bytes */
    float host_in[2][CAP];
    cl_mem in[2], out[2], idx[2];
    cl_int err;
    for (int b = 0; b < 2; ++b) {
        fill_floats(host_in[b], CAP, 100 + (uint64_t)b);
        in[b] = clCreateBuffer(p.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host_in[b], host_in[b],
                               &err);
        out[b] = clCreateBuffer(p.context, CL_MEM_READ_WRITE, CAP * sizeof(float), NULL, &err);
        idx[b] = clCreateBuffer(p.context, CL_MEM_READ_WRITE, CAP * sizeof(int64_t), NULL, &err);
        ck_assert(in[b] && out[b] && idx[b]);
    }
    const int64_t k[2] = {2, 2};
    clpool_maxpool_params mp;
    clpool_maxpool_params_init(&mp, 2, k);
    mp.strides[0] = mp.strides[1] = 2;
    ref_rng r;
    ref_rng_seed(&r, 24);
    int op = 0, a = 0, o = 0, s = 0, in_off = 0, out_off = 0;
    for (int round = 0; round < ROUNDS; ++round) {
        if (round == ROUNDS / 2) { /* a new cl_mem, perhaps at the released one's address */
            clReleaseMemObject(in[1]);
            fill_floats(host_in[1], CAP, 200);
            in[1] = clCreateBuffer(p.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host_in[1], host_in[1],
                                   &err);
            ck_assert_int_eq(err, CL_SUCCESS);
        }
        if (round == 0 || !ref_rng_chance(&r, 0.25)) {
            op = (int)ref_rng_range(&r, 0, 3); /* MaxPool, MaxPool with Indices, GlobalMaxPool, Max */
            a = (int)ref_rng_range(&r, 0, 1);
            o = (int)ref_rng_range(&r, 0, 1);
            s = (int)ref_rng_range(&r, 0, 2);
            in_off = (int)ref_rng_range(&r, 0, 2);
            out_off = (int)ref_rng_range(&r, 0, 2);
        }
        const clpool_shape *x = &shapes[s];
        const float *x_host = host_in[a] + offsets[in_off] / sizeof(float);
        const float *other_host = host_in[1 - a] + offsets[in_off] / sizeof(float);
        clpool_shape y_shape;
        float want[CAP], got[CAP];
        int64_t want_idx[CAP], got_idx[CAP];
        const clpool_shape max_in[2] = {*x, *x};
        const void *max_data[2] = {x_host, other_host};
        if (op <= 1) {
            ck_assert_int_eq(clpool_maxpool_output_shape(x, &mp, &y_shape), CLPOOL_SUCCESS);
            ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, x, &mp, x_host, want, op ? want_idx : NULL), 0);
        } else if (op == 2) {
            ck_assert_int_eq(clpool_global_pool_output_shape(x, &y_shape), CLPOOL_SUCCESS);
            ck_assert_int_eq(ref_global_max_pool(CLPOOL_FLOAT32, x, x_host, want), 0);
        } else {
            y_shape = *x;
            ck_assert_int_eq(ref_max(CLPOOL_FLOAT32, 2, max_in, max_data, want), 0);
        }
        const size_t ny = (size_t)clpool_shape_elements(&y_shape);
        const float nan = NAN;
        const int64_t minus_one = -1;
        ck_assert_int_eq(clEnqueueFillBuffer(p.queue, out[o], &nan, sizeof nan, 0, CAP * sizeof(float), 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueFillBuffer(p.queue, idx[o], &minus_one, sizeof minus_one, 0, CAP * sizeof(int64_t), 0,
                                             NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clFinish(p.queue), CL_SUCCESS);
        cl_event done = NULL;
        clpool_status st;
        if (op <= 1)
            st = clpool_enqueue_maxpool(ctx, p.queue, &mp, CLPOOL_FLOAT32, x, in[a], offsets[in_off], out[o],
                                        offsets[out_off], op ? idx[o] : NULL, offsets[out_off] * 2, 0, NULL, &done);
        else if (op == 2)
            st = clpool_enqueue_global_max_pool(ctx, p.queue, CLPOOL_FLOAT32, x, in[a], offsets[in_off], out[o],
                                                offsets[out_off], 0, NULL, &done);
        else {
            const cl_mem bufs[2] = {in[a], in[1 - a]};
            const size_t offs[2] = {offsets[in_off], offsets[in_off]};
            st = clpool_enqueue_max(ctx, p.queue, CLPOOL_FLOAT32, 2, max_in, bufs, offs, out[o], offsets[out_off], 0,
                                    NULL, &done);
        }
        ck_assert_msg(st == CLPOOL_SUCCESS, "round %d: %s", round, clpool_last_error());
        ck_assert_int_eq(clEnqueueReadBuffer(p.queue, out[o], CL_TRUE, offsets[out_off], ny * sizeof(float), got, 1,
                                             &done, NULL),
                         CL_SUCCESS);
        if (op == 1)
            ck_assert_int_eq(clEnqueueReadBuffer(p.queue, idx[o], CL_TRUE, offsets[out_off] * 2, ny * sizeof(int64_t),
                                                 got_idx, 1, &done, NULL),
                             CL_SUCCESS);
        clReleaseEvent(done);
        for (size_t i = 0; i < ny; ++i) {
            cu_expect(got[i] == want[i],
                      "round %d (op %d, input %d at +%zu, output %d at +%zu, shape %d): y[%zu] = %g, want %g", round,
                      op, a, offsets[in_off], o, offsets[out_off], s, i, got[i], want[i]);
            if (op == 1)
                cu_expect(got_idx[i] == want_idx[i], "round %d: indices[%zu] = %lld, want %lld", round, i,
                          (long long)got_idx[i], (long long)want_idx[i]);
        }
    }
    for (int b = 0; b < 2; ++b) {
        clReleaseMemObject(in[b]);
        clReleaseMemObject(out[b]);
        clReleaseMemObject(idx[b]);
    }
    clpool_context_release(ctx);
    pipeline_close(&p);
}
END_TEST

/* 200 create / use / release cycles: every op still right, resident memory
 * within 8 KiB a cycle over the last 150, after the first 50 warm the
 * driver's caches (PoCL 3.1: about 0.5 KiB a cycle). ASan's quarantine makes
 * RSS meaningless there: 50 cycles, and LSan checks for leaks at exit
 * instead. A cycle builds its program (30 ms from PoCL's cache). */
#if defined(__SANITIZE_ADDRESS__)
enum { CONTEXT_CYCLES = 50, WARM_CYCLES = 50 };
#else
enum { CONTEXT_CYCLES = 200, WARM_CYCLES = 50 };
#endif
START_TEST(context_cycles_keep_memory_stable)
{
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    const clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    long rss_after_warmup = 0;
    for (int cycle = 1; cycle <= CONTEXT_CYCLES; ++cycle) {
        clpool_context *ctx = cu_context_create();
        float y[3] = {0};
        ck_assert_int_eq(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, y, NULL), CLPOOL_SUCCESS);
        ck_assert(y[0] == 5 && y[1] == 5 && y[2] == 3);
        clpool_context_release(ctx);
        if (cycle == WARM_CYCLES) rss_after_warmup = resident_kb();
    }
#if !defined(__SANITIZE_ADDRESS__)
    const long growth = resident_kb() - rss_after_warmup, measured = CONTEXT_CYCLES - WARM_CYCLES;
    printf("%d context cycles: resident memory grew %ld kB over the last %ld\n", CONTEXT_CYCLES, growth, measured);
    ck_assert_msg(growth < 8 * measured, "resident memory grew %ld kB over %ld cycles", growth, measured);
#else
    (void)rss_after_warmup; /* LSan checks for leaks at exit */
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("interop");
    TCase *tc = cu_tcase(s, "interop", 0);
    tcase_add_test(tc, ops_chain_through_events_in_one_arena);
    tcase_add_test(tc, reference_counts_balance_after_ops);
    tcase_add_test(tc, one_context_shared_by_eight_threads);
    tcase_add_test(tc, several_devices_in_one_context);
    tcase_add_test(tc, repeated_launches_follow_every_argument_change);
    tcase_add_test(tc, context_cycles_keep_memory_stable);
    return cu_run_suite(s, CK_NORMAL);
}
