/*
 * Device allocation failures. Every clCreateBuffer the library makes —
 * clpool_tensor_create (and the blocking host helpers built on it), the
 * two-pass global pools' partials, clpool_context_warm_up's scratch — is
 * made to fail; each failure must return CLPOOL_ERROR_OPENCL with a message
 * naming the call and the OpenCL error, return no event, release whatever
 * the call had already made, and leave the context usable (the same call
 * then succeeds and its results are checked).
 *
 * Genuine driver failures where a driver can be made to fail:
 *   - a buffer above CL_DEVICE_MAX_MEM_ALLOC_SIZE (both PoCL and rusticl
 *     reject it in clCreateBuffer); ctest runs this suite with
 *     POCL_MEMORY_LIMIT=1, which lowers PoCL's limit to 256 MiB;
 *   - device memory exhausted below that limit: the address space of the
 *     process is capped (RLIMIT_AS) so that the allocation cannot be backed.
 *     Mesa rusticl (llvmpipe) allocates in clCreateBuffer and reports
 *     CL_OUT_OF_RESOURCES. PoCL 3.1 allocates lazily at the first command that
 *     uses the buffer, and a failure there trips an assertion inside PoCL
 *     (pocl_create_migration_commands) that aborts the process, so that case
 *     is probed and skipped with a note on lazy drivers.
 * Neither driver enforces CL_DEVICE_GLOBAL_MEM_SIZE (PoCL hands out 3 GiB in
 * 256 MiB buffers under POCL_MEMORY_LIMIT=1), and the partials buffer is at
 * most a few hundred KiB by construction, so the partials and warm-up paths
 * cannot be made to fail by the drivers here. For those, and to fail every
 * allocation of a call in turn, this file interposes clCreateBuffer: the
 * executable's definition below takes precedence over the ICD loader's for
 * libclpool, forwards to the real one, and can return
 * CL_MEM_OBJECT_ALLOCATION_FAILURE (what a driver returns when an allocation
 * fails) for the n-th call. The library is not changed for testing.
 *
 * Leaks: the interposer retains every buffer the library creates while it is
 * armed; once the context is released (its pooled kernels may hold argument
 * references), each such buffer must be down to that one reference.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "reference.h"
#include "reference_ops.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* ------------------------------------------------ interposed clCreateBuffer */

#define SHIM_MAX_MADE 256

typedef cl_mem (*create_buffer_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);

static struct {
    create_buffer_fn real;
    int armed;         /* count calls and keep (retain) what is made */
    int calls;         /* clCreateBuffer calls since shim_arm() */
    int fail_at;       /* 1-based call that fails; 0 = none */
    const char *phase; /* names the case for leak reports */
    struct {
        cl_mem mem;
        size_t size;
        const char *phase;
    } made[SHIM_MAX_MADE];
    int n_made;
} shim;

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                                               cl_int *errcode_ret)
{
    if (!shim.real) {
        void *sym = dlsym(RTLD_NEXT, "clCreateBuffer");
        if (!sym) abort(); /* no OpenCL library after us: nothing can work */
        memcpy(&shim.real, &sym, sizeof sym);
    }
    if (shim.armed && ++shim.calls == shim.fail_at) {
        if (errcode_ret) *errcode_ret = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    cl_mem m = shim.real(context, flags, size, host_ptr, errcode_ret);
    if (m && shim.armed && shim.n_made < SHIM_MAX_MADE) {
        clRetainMemObject(m);
        shim.made[shim.n_made].mem = m;
        shim.made[shim.n_made].size = size;
        shim.made[shim.n_made].phase = shim.phase;
        ++shim.n_made;
    }
    return m;
}

/* Count (and keep) the library's allocations from now on; fail the fail_at-th (0 = none). */
static void shim_arm(const char *phase, int fail_at)
{
    shim.armed = 1;
    shim.calls = 0;
    shim.fail_at = fail_at;
    shim.phase = phase;
}

static void shim_disarm(void) { shim.armed = 0; }

static cl_uint mem_refcount(cl_mem m)
{
    cl_uint n = 0;
    ck_assert_int_eq(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}

/*
 * Call after the context is released: every buffer the library made while
 * armed must be down to the interposer's reference (polled for up to 2 s:
 * rusticl drops the references of finished commands on its own thread).
 */
static void assert_all_released(void)
{
    ck_assert_msg(shim.n_made < SHIM_MAX_MADE, "more than %d buffers made: raise SHIM_MAX_MADE", SHIM_MAX_MADE);
    for (int i = 0; i < shim.n_made; ++i) {
        cl_uint n = mem_refcount(shim.made[i].mem);
        for (int t = 0; t < 200 && n != 1; ++t) {
            const struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
            n = mem_refcount(shim.made[i].mem);
        }
        ck_assert_msg(n == 1, "%s: a %zu-byte buffer the library created still has %u reference(s) after the call "
                              "and the context are gone (leaked)",
                      shim.made[i].phase, shim.made[i].size, n - 1);
        clReleaseMemObject(shim.made[i].mem);
    }
    shim.n_made = 0;
}

/* The failure every injected case must report. */
static void assert_injected_failure(const char *name, clpool_status st, const char *call)
{
    cu_assert_status(name, NULL, st, CLPOOL_ERROR_OPENCL, call);
    cu_assert_status(name, NULL, st, CLPOOL_ERROR_OPENCL, "CL_MEM_OBJECT_ALLOCATION_FAILURE");
}

/* ------------------------------------------------------------- test data */

static void fill_float(float *x, int64_t n, uint64_t seed)
{
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; ++i) x[i] = (float)(ref_rng_unit(&r) * 2.0 - 1.0);
}

static void fill_bytes(void *x, size_t n, uint64_t seed)
{
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (size_t i = 0; i < n; ++i) ((unsigned char *)x)[i] = (unsigned char)ref_rng_next(&r);
}

static clpool_device_info device_info(clpool_context *ctx)
{
    clpool_device_info info;
    cu_assert_ok(clpool_context_device_info(ctx, &info), "clpool_context_device_info", "device info");
    return info;
}

/* A global-pool input with two planes of 4096: few planes, long ones, so both devices take the two-pass path. */
static const clpool_shape two_pass_shape = {4, {1, 2, 64, 64}};

/* G_WHOLE_PLANE: MaxPool with a window over the whole plane, which takes GlobalMaxPool's kernels */
typedef enum { G_MAX, G_AVG, G_LP, G_WHOLE_PLANE } global_kind;

static const char *global_fn(global_kind g)
{
    return g == G_MAX ? "clpool_enqueue_global_max_pool"
         : g == G_AVG ? "clpool_enqueue_global_average_pool"
         : g == G_LP  ? "clpool_enqueue_global_lp_pool"
                      : "clpool_enqueue_maxpool";
}

static clpool_status enqueue_global(global_kind g, cl_command_queue q, const clpool_shape *shape, cl_mem in,
                                    cl_mem out, cl_uint num_wait, const cl_event *wait, cl_event *ev)
{
    switch (g) {
    case G_MAX:
        return clpool_enqueue_global_max_pool(cu_ctx, q, CLPOOL_FLOAT32, shape, in, 0, out, 0, num_wait, wait, ev);
    case G_AVG:
        return clpool_enqueue_global_average_pool(cu_ctx, q, CLPOOL_FLOAT32, shape, in, 0, out, 0, num_wait, wait, ev);
    case G_WHOLE_PLANE: {
        clpool_maxpool_params p;
        ck_assert_int_eq(clpool_maxpool_params_init(&p, shape->rank - 2, shape->dims + 2), CLPOOL_SUCCESS);
        return clpool_enqueue_maxpool(cu_ctx, q, &p, CLPOOL_FLOAT32, shape, in, 0, out, 0, NULL, 0, num_wait, wait, ev);
    }
    default:
        return clpool_enqueue_global_lp_pool(cu_ctx, q, 2.0, CLPOOL_FLOAT32, shape, in, 0, out, 0, num_wait, wait, ev);
    }
}

/* float32 global-pool results against the long-double references. */
static void check_global(global_kind g, const clpool_shape *shape, const float *in, const float *got, const char *desc)
{
    const int64_t planes = shape->dims[0] * shape->dims[1];
    double *want = malloc((size_t)planes * sizeof *want);
    float *want_max = malloc((size_t)planes * sizeof *want_max);
    ck_assert(want && want_max);
    if (g == G_MAX || g == G_WHOLE_PLANE) {
        ck_assert_int_eq(ref_global_max_pool(CLPOOL_FLOAT32, shape, in, want_max), 0);
        for (int64_t i = 0; i < planes; ++i) want[i] = want_max[i];
    } else if (g == G_AVG) {
        ck_assert_int_eq(ref_global_average_pool(CLPOOL_FLOAT32, shape, in, want, NULL), 0);
    } else {
        ck_assert_int_eq(ref_global_lp_pool(CLPOOL_FLOAT32, shape, 2.0, in, want), 0);
    }
    for (int64_t i = 0; i < planes; ++i) {
        const double tol = g == G_MAX || g == G_WHOLE_PLANE ? 0.0 : 1e-6 + 1e-5 * fabs(want[i]);
        cu_expect(fabs((double)got[i] - want[i]) <= tol, "%s: plane %lld: %.9g, reference %.9g", desc,
                  (long long)i, (double)got[i], want[i]);
    }
    free(want);
    free(want_max);
}

/* ----------------------------------------------- genuine driver failures */

START_TEST(tensor_above_max_alloc_is_rejected_by_the_driver)
{
    clpool_context *ctx = cu_context_create();
    const clpool_device_info info = device_info(ctx);
    clpool_shape too_big = {2, {1, (int64_t)info.max_alloc_bytes + 1}};
    clpool_tensor *t = NULL;
    shim_arm("tensor above max alloc", 0);
    clpool_status st = clpool_tensor_create(ctx, CLPOOL_UINT8, &too_big, &t);
    shim_disarm();
    char allows[64];
    snprintf(allows, sizeof allows, "allows %llu per buffer", (unsigned long long)info.max_alloc_bytes);
    cu_assert_status("tensor above max alloc", "clpool_tensor_create", st, CLPOOL_ERROR_OPENCL, allows);
    cu_assert_status("tensor above max alloc", "clpool_tensor_create", st, CLPOOL_ERROR_OPENCL, "clCreateBuffer(");
    ck_assert_ptr_null(t);
    ck_assert_int_eq(shim.calls, 1); /* the driver's own answer, passed through */
    printf("note: %s, %llu bytes max alloc: %s\n", info.device_name, (unsigned long long)info.max_alloc_bytes,
           clpool_last_error());

    /* The context still works. */
    clpool_shape ok = {2, {3, 5}};
    cu_assert_ok(clpool_tensor_create(ctx, CLPOOL_INT16, &ok, &t), "clpool_tensor_create", "after the failure");
    int16_t in[15], out[15];
    for (int i = 0; i < 15; ++i) in[i] = (int16_t)(i * 977 - 7000);
    cu_assert_ok(clpool_tensor_upload(t, in, sizeof in), "clpool_tensor_upload", "after the failure");
    cu_assert_ok(clpool_tensor_download(t, out, sizeof out), "clpool_tensor_download", "after the failure");
    ck_assert_mem_eq(in, out, sizeof in);
    clpool_tensor_release(t);
    clpool_context_release(ctx);
    assert_all_released();
}
END_TEST

/*
 * The blocking helpers allocate several tensors; when a later one exceeds the
 * device limit, the earlier ones (already uploaded) must be released. The
 * host arrays are honest sizes: output arrays are allocated but never
 * touched (the call fails before writing), so they cost no memory.
 */
START_TEST(host_helpers_release_earlier_tensors_when_a_later_one_is_too_big)
{
    clpool_context *ctx = cu_context_create();
    const clpool_device_info info = device_info(ctx);
    const int64_t limit = (int64_t)info.max_alloc_bytes;

    /* Max: two small int8 inputs whose broadcast output exceeds the limit. */
    {
        const int64_t a = 4096, b = limit / 4096 + 1;
        const clpool_shape shapes[2] = {{2, {a, 1}}, {2, {1, b}}};
        int8_t *x = malloc((size_t)a), *y = malloc((size_t)b), *out = malloc((size_t)(a * b));
        ck_assert(x && y && out);
        fill_bytes(x, (size_t)a, 1);
        fill_bytes(y, (size_t)b, 2);
        const void *inputs[2] = {x, y};
        shim_arm("clpool_max_host, output above max alloc", 0);
        const clpool_status st = clpool_max_host(ctx, CLPOOL_INT8, 2, shapes, inputs, out);
        shim_disarm();
        cu_assert_status("clpool_max_host, output above max alloc", "clpool_tensor_create", st, CLPOOL_ERROR_OPENCL,
                         "clCreateBuffer(");
        ck_assert_int_eq(shim.calls, 3); /* two inputs made, the output refused */
        free(out);

        /* Same inputs, an output that fits: correct. */
        const clpool_shape small[2] = {{2, {64, 1}}, {2, {1, 100}}};
        int8_t got[6400], want[6400];
        cu_assert_ok(clpool_max_host(ctx, CLPOOL_INT8, 2, small, inputs, got), "clpool_max_host", "after the failure");
        ck_assert_int_eq(ref_max(CLPOOL_INT8, 2, small, inputs, want), 0);
        ck_assert_mem_eq(got, want, sizeof want);
        free(x);
        free(y);
    }
    /* MaxPool: input and output fit, the int64 Indices (8x the bytes) do not. */
    {
        const int64_t n = limit / 8 + 1, k[1] = {1};
        clpool_maxpool_params p;
        cu_assert_ok(clpool_maxpool_params_init(&p, 1, k), "clpool_maxpool_params_init", "maxpool");
        const clpool_shape shape = {3, {1, 1, n}};
        uint8_t *x = malloc((size_t)n), *out = malloc((size_t)n);
        int64_t *idx = malloc((size_t)n * sizeof *idx);
        ck_assert(x && out && idx);
        fill_bytes(x, (size_t)n, 3);
        shim_arm("clpool_maxpool_host, indices above max alloc", 0);
        const clpool_status st = clpool_maxpool_host(ctx, &p, CLPOOL_UINT8, &shape, x, out, idx);
        shim_disarm();
        cu_assert_status("clpool_maxpool_host, indices above max alloc", "clpool_tensor_create", st,
                         CLPOOL_ERROR_OPENCL, "clCreateBuffer(");
        ck_assert_int_eq(shim.calls, 3);
        free(idx);
        free(out);

        const clpool_shape small = {3, {1, 1, 1000}};
        const int64_t k3[1] = {3};
        cu_assert_ok(clpool_maxpool_params_init(&p, 1, k3), "clpool_maxpool_params_init", "maxpool");
        uint8_t got[998], want[998];
        int64_t got_idx[998], want_idx[998];
        cu_assert_ok(clpool_maxpool_host(ctx, &p, CLPOOL_UINT8, &small, x, got, got_idx), "clpool_maxpool_host",
                     "after the failure");
        ck_assert_int_eq(ref_maxpool(CLPOOL_UINT8, &small, &p, x, want, want_idx), 0);
        ck_assert_mem_eq(got, want, sizeof want);
        ck_assert_mem_eq(got_idx, want_idx, sizeof want_idx);
        free(x);
    }
    clpool_context_release(ctx);
    assert_all_released();
}
END_TEST

/* VmSize of this process in bytes (0 if unknown). */
static size_t address_space_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmSize:", 7) == 0) kb = strtoull(line + 7, NULL, 10);
    fclose(f);
    return kb * 1024;
}

START_TEST(device_memory_exhausted_below_max_alloc)
{
    if (UNDER_ASAN) {
        printf("note: address-space exhaustion not tried under ASan (its allocator and shadow need the address space "
               "the test would cap)\n");
        return;
    }
    clpool_context *ctx = cu_context_create();
    const clpool_device_info info = device_info(ctx);
    /* float32 rows of 16384: 512 MiB, or half the device's max alloc if that is less; the
     * address space left is half of it, so the allocation cannot be backed. */
    size_t bytes = (size_t)512 << 20;
    if (bytes > info.max_alloc_bytes / 2) bytes = (size_t)(info.max_alloc_bytes / 2);
    const int64_t row = 16384, rows = (int64_t)(bytes / sizeof(float)) / row;
    ck_assert_int_gt(rows, 0);
    const clpool_shape shape = {4, {1, 1, rows, row}};
    bytes = (size_t)(rows * row) * sizeof(float);
    const size_t headroom = bytes / 2;
    float *x = malloc(bytes);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < bytes / sizeof *x; ++i) x[i] = (float)(i % 1000) * 0.001f;
    float mean[1] = {0};
    /* Programs built before the cap, so only the allocation can fail. */
    const clpool_shape warm = {4, {1, 1, 2, 4096}};
    cu_assert_ok(clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &warm, x, mean), "warm-up", "exhaustion");

    struct rlimit old, capped;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
    const size_t vm = address_space_bytes();
    ck_assert_uint_gt(vm, 0);
    capped = old;
    capped.rlim_cur = (rlim_t)(vm + headroom);
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < capped.rlim_cur) capped.rlim_cur = old.rlim_cur;
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &capped), 0);

    /* A lazy driver (PoCL 3.1) hands out the buffer now and would fail inside the first command that uses it. */
    cl_int err = CL_SUCCESS;
    cl_mem probe = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (probe) {
        clReleaseMemObject(probe); /* never used, so never allocated */
        ck_assert_int_eq(setrlimit(RLIMIT_AS, &old), 0);
        printf("note: %s allocates device memory at first use, not in clCreateBuffer; a failure there cannot be "
               "provoked in-process (PoCL 3.1 aborts in an assertion), exhaustion below max alloc skipped\n",
               info.device_name);
        free(x);
        clpool_context_release(ctx);
        return;
    }
    printf("note: %s: clCreateBuffer(%zu bytes) with %zu MiB of address space left: %d\n", info.device_name, bytes,
           headroom >> 20, (int)err);
    clpool_tensor *t = NULL;
    shim_arm("exhaustion: clpool_tensor_create", 0);
    clpool_status st = clpool_tensor_create(ctx, CLPOOL_FLOAT32, &shape, &t);
    cu_assert_status("exhaustion: clpool_tensor_create", "clpool_tensor_create", st, CLPOOL_ERROR_OPENCL,
                     "clCreateBuffer(");
    ck_assert_ptr_null(t);
    printf("note: %s\n", clpool_last_error());
    shim.phase = "exhaustion: clpool_global_average_pool_host";
    st = clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &shape, x, mean);
    shim_disarm();
    cu_assert_status("exhaustion: clpool_global_average_pool_host", "clpool_tensor_create", st, CLPOOL_ERROR_OPENCL,
                     "clCreateBuffer(");
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &old), 0);

    /* Memory back: the same calls succeed. */
    cu_assert_ok(clpool_tensor_create(ctx, CLPOOL_FLOAT32, &shape, &t), "clpool_tensor_create", "after exhaustion");
    clpool_tensor_release(t);
    cu_assert_ok(clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &shape, x, mean),
                 "clpool_global_average_pool_host", "after exhaustion");
    double want = 0;
    ck_assert_int_eq(ref_global_average_pool(CLPOOL_FLOAT32, &shape, x, &want, NULL), 0);
    ck_assert_msg(fabs(mean[0] - want) <= 1e-5 * fabs(want), "mean %.9g, reference %.9g", (double)mean[0], want);
    free(x);
    clpool_context_release(ctx);
    assert_all_released();
}
END_TEST

/* ------------------------------------------- injected allocation failures */

START_TEST(global_pool_partials_allocation_failure)
{
    const clpool_shape *shape = &two_pass_shape;
    const int64_t n = clpool_shape_elements(shape), planes = shape->dims[0] * shape->dims[1];
    float *x = malloc((size_t)n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    fill_float(x, n, 7);
    cl_mem in = cu_buffer_from(x, (size_t)n * sizeof *x);
    unsigned char *sentinel = cu_sentinel_image(0, NULL, (size_t)planes * sizeof(float));
    for (global_kind g = G_MAX; g <= G_WHOLE_PLANE; ++g) {
        const char *fn = global_fn(g);
        cl_mem out = cu_buffer_from(sentinel, (size_t)planes * sizeof(float));
        /* Behind a closed gate: the failed call must not have queued anything on it. */
        cl_event gate = cu_user_event(), ev = NULL;
        clpool_context_trim(cu_ctx); /* no kept scratch: the call must allocate its partials */
        shim_arm(fn, 1);
        clpool_status st = enqueue_global(g, cu_own_queue, shape, in, out, 1, &gate, &ev);
        shim_disarm();
        ck_assert_msg(shim.calls == 1, "%s: %d clCreateBuffer calls reached the interposer, expected the partials "
                                       "only (is clCreateBuffer interposed? is the shape two-pass?)",
                      fn, shim.calls);
        assert_injected_failure(fn, st, "clCreateBuffer(global pool partials");
        cu_assert_status(fn, fn, st, CLPOOL_ERROR_OPENCL, "clCreateBuffer(global pool partials");
        ck_assert_msg(ev == NULL, "%s: a failed call returned an event", fn);
        ck_assert_int_eq(shim.n_made, 0);
        ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        ck_assert_int_eq(clFinish(cu_own_queue), CL_SUCCESS);
        cu_assert_buffer_unchanged(cu_own_queue, out, sentinel, (size_t)planes * sizeof(float), "output", fn);

        /* The same call now succeeds. */
        st = enqueue_global(g, cu_own_queue, shape, in, out, 0, NULL, &ev);
        cu_assert_enqueue_status(fn, fn, st, ev, CLPOOL_SUCCESS, "");
        float got[2];
        cu_read_back(cu_own_queue, out, got, sizeof got, fn);
        check_global(g, shape, x, got, fn);
        clReleaseEvent(gate);
        clReleaseMemObject(out);
    }
    clReleaseMemObject(in);
    free(sentinel);
    free(x);
}
END_TEST

/*
 * The context keeps the scratch of multi-pass ops (global pools' partials,
 * 3-D MaxPool's first pass) for the next call: reused once its last command
 * is done, or at once on the same in-order queue, never by a call in flight
 * on another queue (which would gain a dependency); with every slot busy a
 * call gets a buffer of its own; clpool_context_trim() frees them.
 */
START_TEST(scratch_reused_until_trimmed)
{
    const clpool_shape *shape = &two_pass_shape;
    const int64_t n = clpool_shape_elements(shape);
    float *x = malloc((size_t)n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    fill_float(x, n, 8);
    cl_mem in = cu_buffer_from(x, (size_t)n * sizeof *x);
    enum { QUEUES = 6 }; /* one more than the context's slots */
    cl_command_queue queues[QUEUES];
    cl_mem outs[QUEUES + 1];
    for (int i = 0; i < QUEUES; ++i) {
        cl_int err;
        queues[i] = clCreateCommandQueue(clpool_context_cl_context(cu_ctx), clpool_context_cl_device(cu_ctx), 0, &err);
        ck_assert_ptr_nonnull(queues[i]);
    }
    for (int i = 0; i <= QUEUES; ++i) outs[i] = cu_zero_buffer(2 * sizeof(float));
    float got[2];

    /* One after another on one queue: the first call allocates, the next reuses, after a trim one allocates. */
    clpool_context_trim(cu_ctx);
    static const char *steps[] = {"first call", "second call", "after trim"};
    static const int allocations[] = {1, 0, 1};
    for (int i = 0; i < 3; ++i) {
        if (i == 2) clpool_context_trim(cu_ctx);
        shim_arm(steps[i], 0);
        cl_event ev = NULL;
        const clpool_status st = enqueue_global(G_AVG, queues[0], shape, in, outs[0], 0, NULL, &ev);
        shim_disarm();
        cu_assert_enqueue_status(steps[i], "clpool_enqueue_global_average_pool", st, ev, CLPOOL_SUCCESS, ""); /* waits */
        ck_assert_msg(shim.calls == allocations[i], "%s: %d clCreateBuffer calls, expected %d", steps[i], shim.calls,
                      allocations[i]);
        cu_read_back(queues[0], outs[0], got, sizeof got, steps[i]);
        check_global(G_AVG, shape, x, got, steps[i]);
    }

    /* In flight behind a closed gate: the calls on the first four queues take a slot each, those on the fifth
     * and sixth find all four busy and get buffers of their own, and a second call on the first queue reuses
     * that queue's slot while it is still in use. */
    clpool_context_trim(cu_ctx);
    cl_event gate = cu_user_event(), evs[QUEUES + 1];
    shim_arm("calls in flight", 0);
    for (int i = 0; i <= QUEUES; ++i) {
        const int qi = i < QUEUES ? i : 0;
        evs[i] = NULL;
        cu_assert_status("call in flight", "clpool_enqueue_global_average_pool",
                         enqueue_global(G_AVG, queues[qi], shape, in, outs[i], 1, &gate, &evs[i]), CLPOOL_SUCCESS, "");
        const int want = i < QUEUES ? i + 1 : QUEUES; /* 4 slots, then buffers of their own; the last reuses */
        ck_assert_msg(shim.calls == want, "call %d in flight (queue %d): %d clCreateBuffer calls in all, expected %d",
                      i, qi, shim.calls, want);
    }
    shim_disarm();
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(QUEUES + 1, evs), CL_SUCCESS);
    for (int i = 0; i <= QUEUES; ++i) {
        cu_read_back(queues[i < QUEUES ? i : 0], outs[i], got, sizeof got, "call in flight");
        check_global(G_AVG, shape, x, got, "call in flight");
        clReleaseEvent(evs[i]);
        clReleaseMemObject(outs[i]);
    }
    clReleaseEvent(gate);
    for (int i = 0; i < QUEUES; ++i) clReleaseCommandQueue(queues[i]);
    clReleaseMemObject(in);
    free(x);
}
END_TEST

/*
 * Where 3-D MaxPool cannot allocate its first pass's scratch, the general
 * kernel runs the call: success, same result. A row stride of 3 keeps the
 * call off the one-pass kernel (row strides 1 and 2, float32 without
 * Indices on CPUs), which needs no scratch: maxpool_3d_one_pass_no_scratch.
 */
START_TEST(maxpool_3d_scratch_failure_falls_back)
{
    const clpool_shape shape = {5, {1, 2, 5, 7, 9}};
    const int64_t n = clpool_shape_elements(&shape), k[3] = {2, 3, 3};
    clpool_maxpool_params p;
    cu_assert_ok(clpool_maxpool_params_init(&p, 3, k), "clpool_maxpool_params_init", "3-D");
    p.strides[1] = 2;
    p.strides[2] = 3;
    p.pads[1] = p.pads[4] = 1;
    clpool_shape out_shape;
    cu_assert_ok(clpool_maxpool_output_shape(&shape, &p, &out_shape), "clpool_maxpool_output_shape", "3-D");
    const int64_t n_out = clpool_shape_elements(&out_shape);
    float *x = malloc((size_t)n * sizeof *x), *want = malloc((size_t)n_out * sizeof *want),
          *got = malloc((size_t)n_out * sizeof *got);
    int64_t *want_idx = malloc((size_t)n_out * sizeof *want_idx), *got_idx = malloc((size_t)n_out * sizeof *got_idx);
    ck_assert(x && want && got && want_idx && got_idx);
    fill_float(x, n, 9);
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &shape, &p, x, want, want_idx), 0);
    cl_mem in = cu_buffer_from(x, (size_t)n * sizeof *x), out = cu_zero_buffer((size_t)n_out * sizeof *got),
           idx = cu_zero_buffer((size_t)n_out * sizeof *got_idx);
    /* without Indices and with them (whose scratch also holds the first pass's Indices) */
    for (int with_idx = 0; with_idx <= 1; ++with_idx) {
        for (int fail = 1; fail >= 0; --fail) {
            char name[96];
            snprintf(name, sizeof name, "3-D MaxPool%s, scratch %s", with_idx ? " with Indices" : "",
                     fail ? "allocation fails" : "allocated");
            clpool_context_trim(cu_ctx);
            shim_arm(name, fail);
            cl_event ev = NULL;
            const clpool_status st = clpool_enqueue_maxpool(cu_ctx, cu_own_queue, &p, CLPOOL_FLOAT32, &shape, in, 0,
                                                            out, 0, with_idx ? idx : NULL, 0, 0, NULL, &ev);
            shim_disarm();
            cu_assert_enqueue_status(name, "clpool_enqueue_maxpool", st, ev, CLPOOL_SUCCESS, "");
            ck_assert_msg(shim.calls == 1, "%s: %d clCreateBuffer calls, expected 1 (the scratch)", name, shim.calls);
            cu_read_back(cu_own_queue, out, got, (size_t)n_out * sizeof *got, name);
            ck_assert_msg(memcmp(got, want, (size_t)n_out * sizeof *got) == 0, "%s: result differs from the reference",
                          name);
            if (with_idx) {
                cu_read_back(cu_own_queue, idx, got_idx, (size_t)n_out * sizeof *got_idx, name);
                ck_assert_msg(memcmp(got_idx, want_idx, (size_t)n_out * sizeof *got_idx) == 0,
                              "%s: Indices differ from the reference", name);
            }
        }
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(idx);
    free(x);
    free(want);
    free(got);
    free(want_idx);
    free(got_idx);
}
END_TEST

/*
 * 3-D float32 MaxPool without Indices at a row stride of 2 takes the
 * one-pass kernel on CPUs with SIMD (16 lanes a work-item): no scratch, so
 * even an allocation armed to fail leaves the call its result. Elsewhere
 * (GPUs) it runs in two passes and asks for the scratch once.
 */
START_TEST(maxpool_3d_one_pass_no_scratch)
{
    const clpool_shape shape = {5, {2, 3, 6, 9, 21}};
    const int64_t n = clpool_shape_elements(&shape), k[3] = {3, 3, 3};
    clpool_maxpool_params p;
    cu_assert_ok(clpool_maxpool_params_init(&p, 3, k), "clpool_maxpool_params_init", "3-D");
    for (int32_t i = 0; i < 3; ++i) p.strides[i] = 2, p.pads[i] = p.pads[3 + i] = 1;
    clpool_shape out_shape;
    cu_assert_ok(clpool_maxpool_output_shape(&shape, &p, &out_shape), "clpool_maxpool_output_shape", "3-D");
    const int64_t n_out = clpool_shape_elements(&out_shape);
    float *x = malloc((size_t)n * sizeof *x), *want = malloc((size_t)n_out * sizeof *want),
          *got = malloc((size_t)n_out * sizeof *got);
    ck_assert(x && want && got);
    fill_float(x, n, 11);
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &shape, &p, x, want, NULL), 0);
    cl_device_type type = 0;
    cl_uint floats = 0;
    ck_assert_int_eq(clGetDeviceInfo(clpool_context_cl_device(cu_ctx), CL_DEVICE_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceInfo(clpool_context_cl_device(cu_ctx), CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
                                     sizeof floats, &floats, NULL),
                     CL_SUCCESS);
    const int one_pass = (type & CL_DEVICE_TYPE_CPU) && floats > 1;
    cl_mem in = cu_buffer_from(x, (size_t)n * sizeof *x), out = cu_zero_buffer((size_t)n_out * sizeof *got);
    const char *name = "3-D MaxPool at row stride 2, allocation armed to fail";
    clpool_context_trim(cu_ctx);
    shim_arm(name, 1);
    cl_event ev = NULL;
    const clpool_status st =
        clpool_enqueue_maxpool(cu_ctx, cu_own_queue, &p, CLPOOL_FLOAT32, &shape, in, 0, out, 0, NULL, 0, 0, NULL, &ev);
    shim_disarm();
    cu_assert_enqueue_status(name, "clpool_enqueue_maxpool", st, ev, CLPOOL_SUCCESS, "");
    ck_assert_msg(shim.calls == (one_pass ? 0 : 1), "%s: %d clCreateBuffer calls, expected %d", name, shim.calls,
                  one_pass ? 0 : 1);
    cu_read_back(cu_own_queue, out, got, (size_t)n_out * sizeof *got, name);
    ck_assert_msg(memcmp(got, want, (size_t)n_out * sizeof *got) == 0, "%s: result differs from the reference", name);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
    free(want);
    free(got);
}
END_TEST

START_TEST(warm_up_allocation_failures)
{
    clpool_context *ctx = cu_context_create();
    /* How many buffers warm-up makes: 3 of its own, then the ops' scratch. */
    shim_arm("warm-up, counting", 0);
    cu_assert_ok(clpool_context_warm_up(ctx, CLPOOL_FLOAT32), "clpool_context_warm_up", "counting");
    clpool_context_trim(ctx); /* every run below allocates its scratch again */
    shim_disarm();
    const int total = shim.calls;
    ck_assert_msg(total >= 4, "warm-up made %d buffers; expected 3 of its own + the ops' scratch (is clCreateBuffer "
                              "interposed?)",
                  total);
    char name[64];
    for (int k = 1; k <= total; ++k) {
        snprintf(name, sizeof name, "warm-up, allocation %d of %d fails", k, total);
        shim_arm(name, k);
        const clpool_status st = clpool_context_warm_up(ctx, CLPOOL_FLOAT32);
        shim_disarm();
        if (k <= 3 || st != CLPOOL_SUCCESS) assert_injected_failure(name, st, "clCreateBuffer(");
        /* The first 3 are warm-up's own; the rest are the ops' scratch: the 3-D MaxPool's first pass (whose
         * failure the general kernel covers: success) and the global pools' partials (an error). How many of those
         * a run makes depends on whether a slot is free again in time, so the k-th may never come (success). */
        if (k <= 3) {
            cu_assert_status(name, NULL, st, CLPOOL_ERROR_OPENCL, "clpool_context_warm_up: clCreateBuffer(scratch");
        } else if (st != CLPOOL_SUCCESS) {
            cu_assert_status(name, NULL, st, CLPOOL_ERROR_OPENCL, "clCreateBuffer(global pool partials");
        }
        ck_assert_int_eq(clFinish(clpool_context_cl_queue(ctx)), CL_SUCCESS);
        cu_assert_context_computes(ctx, name);
        clpool_context_trim(ctx);
    }
    cu_assert_ok(clpool_context_warm_up(ctx, CLPOOL_FLOAT32), "clpool_context_warm_up", "after the failures");
    cu_assert_context_computes(ctx, "warm-up after the failures");
    clpool_context_release(ctx);
    assert_all_released();
    printf("note: warm-up (float32) makes %d buffers; each failed in turn\n", total);
}
END_TEST

/* Runs `call` once to count its allocations, then fails each in turn; `check` verifies a successful run.
 * The context's scratch is trimmed before each run, so each allocates all it needs. */
typedef clpool_status (*host_call)(clpool_context *ctx, void *state);
typedef void (*host_check)(void *state, const char *desc);

static void fail_each_allocation(clpool_context *ctx, const char *what, host_call call, host_check check, void *state,
                                 int expected_calls)
{
    clpool_context_trim(ctx);
    shim_arm(what, 0);
    cu_assert_ok(call(ctx, state), what, "counting allocations");
    shim_disarm();
    ck_assert_msg(shim.calls == expected_calls, "%s made %d buffers, expected %d", what, shim.calls, expected_calls);
    check(state, what);
    char name[128];
    for (int k = 1; k <= expected_calls; ++k) {
        snprintf(name, sizeof name, "%s, allocation %d of %d fails", what, k, expected_calls);
        clpool_context_trim(ctx);
        shim_arm(what, k);
        const clpool_status st = call(ctx, state);
        shim_disarm();
        assert_injected_failure(name, st, "clCreateBuffer(");
        /* The same call succeeds right after. */
        cu_assert_ok(call(ctx, state), what, name);
        check(state, name);
    }
}

typedef struct maxpool_case {
    clpool_maxpool_params p;
    clpool_shape shape;
    float x[2 * 3 * 10 * 10];
    float out[2 * 3 * 5 * 5];
    int64_t idx[2 * 3 * 5 * 5];
} maxpool_case;

static clpool_status maxpool_call(clpool_context *ctx, void *state)
{
    maxpool_case *c = state;
    memset(c->out, 0, sizeof c->out);
    memset(c->idx, 0, sizeof c->idx);
    return clpool_maxpool_host(ctx, &c->p, CLPOOL_FLOAT32, &c->shape, c->x, c->out, c->idx);
}

static void maxpool_check(void *state, const char *desc)
{
    maxpool_case *c = state;
    float want[2 * 3 * 5 * 5];
    int64_t want_idx[2 * 3 * 5 * 5];
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &c->shape, &c->p, c->x, want, want_idx), 0);
    ck_assert_msg(memcmp(c->out, want, sizeof want) == 0 && memcmp(c->idx, want_idx, sizeof want_idx) == 0,
                  "%s: MaxPool result differs from the reference", desc);
}

typedef struct max_case {
    clpool_shape shapes[3];
    int16_t a[4 * 5 * 6], b[5 * 1], c[6];
    int16_t out[4 * 5 * 6];
} max_case;

static clpool_status max_call(clpool_context *ctx, void *state)
{
    max_case *m = state;
    const void *inputs[3] = {m->a, m->b, m->c};
    memset(m->out, 0, sizeof m->out);
    return clpool_max_host(ctx, CLPOOL_INT16, 3, m->shapes, inputs, m->out);
}

static void max_check(void *state, const char *desc)
{
    max_case *m = state;
    const void *inputs[3] = {m->a, m->b, m->c};
    int16_t want[4 * 5 * 6];
    ck_assert_int_eq(ref_max(CLPOOL_INT16, 3, m->shapes, inputs, want), 0);
    ck_assert_msg(memcmp(m->out, want, sizeof want) == 0, "%s: Max result differs from the reference", desc);
}

typedef struct global_case {
    float x[1 * 2 * 64 * 64];
    float out[2];
} global_case;

static clpool_status global_call(clpool_context *ctx, void *state)
{
    global_case *g = state;
    g->out[0] = g->out[1] = 0;
    return clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &two_pass_shape, g->x, g->out);
}

static void global_check(void *state, const char *desc)
{
    global_case *g = state;
    check_global(G_AVG, &two_pass_shape, g->x, g->out, desc);
}

START_TEST(host_helpers_fail_each_allocation_in_turn)
{
    clpool_context *ctx = cu_context_create();

    maxpool_case *mp = calloc(1, sizeof *mp);
    ck_assert_ptr_nonnull(mp);
    const int64_t k[2] = {3, 3};
    cu_assert_ok(clpool_maxpool_params_init(&mp->p, 2, k), "clpool_maxpool_params_init", "maxpool");
    mp->p.strides[0] = mp->p.strides[1] = 2;
    mp->p.pads[0] = mp->p.pads[1] = mp->p.pads[2] = mp->p.pads[3] = 1;
    mp->shape = (clpool_shape){4, {2, 3, 10, 10}};
    fill_float(mp->x, 2 * 3 * 10 * 10, 11);
    fail_each_allocation(ctx, "clpool_maxpool_host with Indices", maxpool_call, maxpool_check, mp, 3);
    free(mp);

    max_case *mx = calloc(1, sizeof *mx);
    ck_assert_ptr_nonnull(mx);
    mx->shapes[0] = (clpool_shape){3, {4, 5, 6}};
    mx->shapes[1] = (clpool_shape){2, {5, 1}};
    mx->shapes[2] = (clpool_shape){1, {6}};
    fill_bytes(mx->a, sizeof mx->a, 12);
    fill_bytes(mx->b, sizeof mx->b, 13);
    fill_bytes(mx->c, sizeof mx->c, 14);
    fail_each_allocation(ctx, "clpool_max_host of 3 inputs", max_call, max_check, mx, 4);
    free(mx);

    global_case *gp = calloc(1, sizeof *gp);
    ck_assert_ptr_nonnull(gp);
    fill_float(gp->x, 1 * 2 * 64 * 64, 15);
    /* input, output, then the two-pass partials */
    fail_each_allocation(ctx, "clpool_global_average_pool_host (two-pass)", global_call, global_check, gp, 3);
    free(gp);

    clpool_tensor *t = NULL;
    const clpool_shape s = {2, {3, 5}};
    shim_arm("clpool_tensor_create", 1);
    const clpool_status st = clpool_tensor_create(ctx, CLPOOL_FLOAT32, &s, &t);
    shim_disarm();
    assert_injected_failure("clpool_tensor_create", st, "clpool_tensor_create: clCreateBuffer(60 bytes");
    ck_assert_ptr_null(t);

    clpool_context_release(ctx);
    assert_all_released();
}
END_TEST

static Suite *faults_suite(void)
{
    Suite *s = suite_create("faults");
    TCase *genuine = cu_tcase(s, "genuine", 0);
    tcase_add_test(genuine, tensor_above_max_alloc_is_rejected_by_the_driver);
    tcase_add_test(genuine, host_helpers_release_earlier_tensors_when_a_later_one_is_too_big);
    tcase_add_test(genuine, device_memory_exhausted_below_max_alloc);
    TCase *injected = cu_tcase(s, "injected", 1);
    tcase_add_test(injected, global_pool_partials_allocation_failure);
    tcase_add_test(injected, scratch_reused_until_trimmed);
    tcase_add_test(injected, maxpool_3d_scratch_failure_falls_back);
    tcase_add_test(injected, maxpool_3d_one_pass_no_scratch);
    TCase *own = cu_tcase(s, "injected_own_context", 0);
    tcase_add_test(own, warm_up_allocation_failures);
    tcase_add_test(own, host_helpers_fail_each_allocation_in_turn);
    return s;
}

int main(void)
{
    return cu_run_suite(faults_suite(), CK_NORMAL);
}
