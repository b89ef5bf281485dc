/* Context lifetime: create our own, or adopt a caller's cl_context/device/queue. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* 1-D work-group size: explicit, never NULL (PoCL may pick 1 for awkward sizes). */
static size_t default_local_size(const clpool_device_info *info)
{
    size_t want = 64;
    const size_t most = info->max_work_group_size;
    if (most > 0 && most < want) want = most; /* LCOV_EXCL_BR_LINE: PoCL reports at least 64 */
    return want;
}

/* The cache size a context's path choices (row sweeps, streamed stores) plan for: $CLPOOL_DEVICE_CACHE_BYTES,
 * else the reported cache, on CPUs at most 4 MiB per compute unit or 32 MiB, whichever is more, because PoCL
 * reports the package's whole L3 (on a VM its host's, shared with cores the device does not have). */
#define CACHE_PER_COMPUTE_UNIT ((uint64_t)4 << 20)
#define CACHE_PLANNED_MIN ((uint64_t)32 << 20)
static clpool_status planned_cache_bytes(clpool_device_info *info)
{
    const char *env = getenv("CLPOOL_DEVICE_CACHE_BYTES");
    if (env && *env) {
        char *end = NULL;
        errno = 0;
        const unsigned long long bytes = strtoull(env, &end, 10);
        if (!isdigit((unsigned char)env[0]) || *end != '\0' || errno == ERANGE || bytes == 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "CLPOOL_DEVICE_CACHE_BYTES='%s' is not a positive decimal byte count", env);
        info->cache_bytes = bytes;
        return CLPOOL_SUCCESS;
    }
    const uint64_t share = info->compute_units * CACHE_PER_COMPUTE_UNIT;
    const uint64_t cap = share > CACHE_PLANNED_MIN ? share : CACHE_PLANNED_MIN;
    const int capped = clpool__cpu_device(info->type) && info->cache_bytes > cap; /* LCOV_EXCL_BR_LINE: the machine's */
    if (capped) info->cache_bytes = cap; /* LCOV_EXCL_BR_LINE: the device's kind and cache (device_cache_override) */
    return CLPOOL_SUCCESS;
}

/* $CLPOOL_TIERED: 1 (the default) or 0. */
static clpool_status tiering(int *tiered)
{
    const char *env = getenv("CLPOOL_TIERED");
    *tiered = 1;
    if (!env || !*env) return CLPOOL_SUCCESS;
    if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "CLPOOL_TIERED='%s' is not 0 or 1", env);
    *tiered = env[0] == '1';
    return CLPOOL_SUCCESS;
}

static clpool_status context_init(clpool_context **out, cl_context context, cl_device_id device)
{
    clpool_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a context");
    clpool_status status = clpool__device_probe(NULL, device, &ctx->info);
    if (status == CLPOOL_SUCCESS) status = planned_cache_bytes(&ctx->info);
    if (status == CLPOOL_SUCCESS) status = tiering(&ctx->tiered);
    if (status != CLPOOL_SUCCESS) {
        free(ctx);
        return status;
    }
    const int locked = pthread_mutex_init(&ctx->lock, NULL) == 0;
    /* LCOV_EXCL_START: glibc's initialisers never fail with default attributes; other C libraries may */
    if (!locked || pthread_cond_init(&ctx->changed, NULL) != 0) {
        if (locked) pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "pthread_mutex_init or pthread_cond_init failed");
    }
    /* LCOV_EXCL_STOP */
    ctx->context = context;
    ctx->device = device;
    ctx->local_size = default_local_size(&ctx->info);
    size_t sizes[16] = {1, 1, 1}; /* devices may report more than 3 dims */
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, NULL) != CL_SUCCESS)
        sizes[0] = sizes[1] = sizes[2] = 1;
    memcpy(ctx->max_item_size, sizes, sizeof ctx->max_item_size);
    cl_uint floats = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof floats, &floats, NULL) != CL_SUCCESS)
        floats = 0;
    ctx->vector_bytes = floats * 4;
    ctx->cpu = clpool__cpu_device(ctx->info.type);
    ctx->cpu_simd = ctx->cpu && floats > 1; /* LCOV_EXCL_BR_LINE: PoCL's CPU device has vectors */
    clpool__cache_open(ctx);
    *out = ctx;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_context_create(const char *device_spec, clpool_context **out)
{
    CLPOOL_REQUIRE_NOT_NULL(out, "clpool_context_create");
    *out = NULL;
    cl_platform_id platform;
    cl_device_id device;
    clpool_status status = clpool__select_device(device_spec, &platform, &device);
    if (status != CLPOOL_SUCCESS) return status;

    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (!context) return clpool__cl_fail(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    if (!queue) {
        clReleaseContext(context);
        return clpool__cl_fail(err, "clCreateCommandQueue");
    }
    clpool_context *ctx = NULL;
    status = context_init(&ctx, context, device);
    if (status != CLPOOL_SUCCESS) {
        clReleaseCommandQueue(queue);
        clReleaseContext(context);
        return status;
    }
    ctx->queue = queue;
    *out = ctx;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_context_create_from_cl(cl_context context, cl_device_id device, cl_command_queue queue,
                                            clpool_context **out)
{
    static const char *fn = "clpool_context_create_from_cl";
    CLPOOL_REQUIRE_NOT_NULL(out, fn);
    *out = NULL;
    CLPOOL_REQUIRE_NOT_NULL(context, fn);
    CLPOOL_REQUIRE_NOT_NULL(device, fn);

    /* The device must be one of the context's. */
    cl_device_id devs[64];
    size_t bytes = 0;
    cl_int err = clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof devs, devs, &bytes);
    if (err != CL_SUCCESS) return clpool__cl_fail(err, "clpool_context_create_from_cl: clGetContextInfo(CL_CONTEXT_DEVICES)");
    /* A sub-device counts as its root's: PoCL lists only the root device in
     * CL_CONTEXT_DEVICES of a context made from sub-devices. */
    int found = 0;
    for (cl_device_id d = device; d && !found;) { /* LCOV_EXCL_BR_LINE: d runs out where not found (below) */
        for (size_t i = 0; i < bytes / sizeof devs[0]; ++i) found |= devs[i] == d;
        if (clGetDeviceInfo(d, CL_DEVICE_PARENT_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS) d = NULL;
    }
    if (!found) /* LCOV_EXCL_START: needs a second platform's device; the measured run loads PoCL alone */
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: device is not a device of context", fn);
    /* LCOV_EXCL_STOP */
    if (queue) {
        cl_context qctx = NULL;
        cl_device_id qdev = NULL;
        err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
        if (err != CL_SUCCESS) return clpool__cl_fail(err, "clpool_context_create_from_cl: clGetCommandQueueInfo");
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
        if (err != CL_SUCCESS) return clpool__cl_fail(err, "clpool_context_create_from_cl: clGetCommandQueueInfo");
        if (qctx != context || qdev != device)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: queue belongs to another context or device", fn);
    }
    clpool_context *ctx = NULL;
    clpool_status status = context_init(&ctx, context, device);
    if (status != CLPOOL_SUCCESS) return status;
    clRetainContext(context);
    if (queue) {
        clRetainCommandQueue(queue);
        ctx->queue = queue;
    }
    *out = ctx;
    return CLPOOL_SUCCESS;
}

void clpool_context_release(clpool_context *ctx)
{
    if (!ctx) return;
    clpool__tiers_stop(ctx);
    clpool__programs_release(ctx);
    clpool__scratch_release_all(ctx);
    clpool__cache_close(ctx);
    if (ctx->queue) clReleaseCommandQueue(ctx->queue);
    clReleaseContext(ctx->context);
    pthread_cond_destroy(&ctx->changed);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

clpool_status clpool_context_device_info(const clpool_context *ctx, clpool_device_info *info)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, "clpool_context_device_info");
    CLPOOL_REQUIRE_NOT_NULL(info, "clpool_context_device_info");
    *info = ctx->info;
    return CLPOOL_SUCCESS;
}

cl_context clpool_context_cl_context(const clpool_context *ctx) { return ctx ? ctx->context : NULL; }
cl_device_id clpool_context_cl_device(const clpool_context *ctx) { return ctx ? ctx->device : NULL; }

cl_command_queue clpool_context_cl_queue(clpool_context *ctx)
{
    cl_command_queue q = NULL;
    if (ctx && clpool__resolve_queue(ctx, NULL, "clpool_context_cl_queue", &q) != CLPOOL_SUCCESS) return NULL;
    return q;
}

clpool_status clpool__resolve_queue(clpool_context *ctx, cl_command_queue queue, const char *fn,
                                    cl_command_queue *out)
{
    if (queue) {
        cl_context qctx = NULL;
        cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
        if (err == CL_INVALID_COMMAND_QUEUE)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: queue is not a valid command queue (%s)", fn,
                                clpool__cl_error_name(err));
        if (err != CL_SUCCESS) return clpool__fail(CLPOOL_ERROR_OPENCL, "%s: clGetCommandQueueInfo(queue) failed: %s (%d)",
                                                   fn, clpool__cl_error_name(err), (int)err);
        if (qctx != ctx->context)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: queue belongs to another cl_context", fn);
        *out = queue;
        return CLPOOL_SUCCESS;
    }
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->queue) {
        /* Adopted without a queue: create our own in-order queue on first need. */
        cl_int err;
        ctx->queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &err);
        if (!ctx->queue) {
            pthread_mutex_unlock(&ctx->lock);
            return clpool__cl_fail(err, "clCreateCommandQueue");
        }
    }
    *out = ctx->queue;
    pthread_mutex_unlock(&ctx->lock);
    return CLPOOL_SUCCESS;
}
