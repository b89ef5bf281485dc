/* Launch mechanics every op shares: queue/buffer/wait-list checks, 1-D enqueue, empty work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

clpool_status clpool__check_wait_list(cl_uint num_wait, const cl_event *wait, const char *fn)
{
    if ((num_wait == 0) != (wait == NULL))
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: event_wait_list must be NULL exactly when num_events_in_wait_list is 0", fn);
    for (cl_uint i = 0; i < num_wait; ++i)
        if (!wait[i]) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: event_wait_list[%u] is NULL", fn, i);
    return CLPOOL_SUCCESS;
}

clpool_status clpool__check_buffer(cl_mem mem, size_t offset, int64_t elements, size_t elem_size,
                                   const char *fn, const char *what, size_t *mem_size)
{
    if (mem_size) *mem_size = 0;
    if (!mem) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s buffer is NULL", fn, what);
    if (offset % elem_size != 0)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: %s offset %zu is not a multiple of the element size %zu", fn, what, offset, elem_size);
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_INVALID_MEM_OBJECT)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s is not a valid cl_mem (%s)", fn, what,
                            clpool__cl_error_name(err));
    if (err != CL_SUCCESS) { /* the driver failed, not the caller */
        char call[128];
        snprintf(call, sizeof call, "%s: clGetMemObjectInfo(%s)", fn, what);
        return clpool__cl_fail(err, call);
    }
    /* elements*elem_size fits: shapes were checked against size_t/8 already. */
    size_t need = (size_t)elements * elem_size;
    if (offset > size || need > size - offset)
        return clpool__fail(CLPOOL_ERROR_BUFFER_TOO_SMALL,
                            "%s: %s buffer holds %zu bytes but offset %zu + %zu bytes are needed", fn, what, size,
                            offset, need);
    if (mem_size) *mem_size = size;
    return CLPOOL_SUCCESS;
}

/* clSetKernelArg, failing with a message that names the kernel and argument. */
static clpool_status set_kernel_arg(clpool__kernel *k, cl_uint index, size_t size, const void *value)
{
    cl_int err = clSetKernelArg(k->kernel, index, size, value);
    if (err != CL_SUCCESS)
        return clpool__fail(CLPOOL_ERROR_OPENCL, "clSetKernelArg(%s, arg %u) failed: %s (%d)", k->name, index,
                            clpool__cl_error_name(err), (int)err);
    return CLPOOL_SUCCESS;
}

/* A by-value argument whose bytes equal those last set on this (checked-out, so unshared) kernel is not set
 * again: PoCL copies each value into a fresh allocation. Buffers are always set: a released cl_mem's handle
 * may come back as a new buffer's, and a driver may resolve a buffer to its device address when it is set. */
#define ARG_MEMO_ARGS 8
#define ARG_MEMO_BYTES 1024
struct clpool__arg_memo {
    uint16_t offset[ARG_MEMO_ARGS];
    uint16_t size[ARG_MEMO_ARGS]; /* 0: no bytes reserved for this argument */
    unsigned char valid[ARG_MEMO_ARGS];
    size_t used;
    unsigned char bytes[ARG_MEMO_BYTES];
};

clpool__arg_memo *clpool__arg_memo_create(void) { return calloc(1, sizeof(clpool__arg_memo)); }

void clpool__arg_memo_release(clpool__arg_memo *memo) { free(memo); }

/* The memo's bytes for argument `index` of `size` bytes, reserving them on first use; NULL where the
 * argument is not memoised. */
static unsigned char *memo_slot(clpool__arg_memo *m, cl_uint index, size_t size)
{
    /* LCOV_EXCL_START: internal guard: the kernels' by-value arguments are few, small and of one size each */
    if (index >= ARG_MEMO_ARGS || (m->size[index] ? m->size[index] != size : size > ARG_MEMO_BYTES - m->used))
        return NULL;
    /* LCOV_EXCL_STOP */
    if (m->size[index] == 0) {
        m->offset[index] = (uint16_t)m->used;
        m->size[index] = (uint16_t)size;
        m->used += size;
    }
    return m->bytes + m->offset[index];
}

clpool_status clpool__set_arg(clpool__kernel *k, cl_uint index, size_t size, const void *value)
{
    unsigned char *slot = memo_slot(k->memo, index, size);
    if (!slot) return set_kernel_arg(k, index, size, value); /* LCOV_EXCL_LINE: internal guard (memo_slot) */
    if (k->memo->valid[index] && memcmp(slot, value, size) == 0) return CLPOOL_SUCCESS;
    const clpool_status status = set_kernel_arg(k, index, size, value);
    k->memo->valid[index] = status == CLPOOL_SUCCESS; /* a failed set leaves the argument unknown */
    memcpy(slot, value, size);
    return status;
}

clpool_status clpool__set_buffer_arg(clpool__kernel *k, cl_uint index, cl_mem mem)
{
    return set_kernel_arg(k, index, sizeof mem, &mem);
}

/* Smallest power of two >= n, but never above cap (which need not be a power of two). */
static size_t pow2_at_least(uint64_t n, size_t cap)
{
    size_t p = 1;
    while (p < n && p * 2 <= cap) p <<= 1;
    return p;
}

clpool_status clpool__enqueue_kernel(clpool_context *ctx, cl_command_queue queue, clpool__kernel *k, cl_uint dims,
                             const uint64_t *items, size_t cpu_local, cl_uint num_wait, const cl_event *wait,
                             cl_event *event)
{
    /* Work-group: up to ctx->local_size items, filled along dim 0 first (the
     * contiguous one), then dim 1; dim 2 is never grouped. Kernels
     * bounds-check dims 0 and 1, so their global sizes round up. */
    size_t budget = ctx->local_size < k->max_work_group_size ? ctx->local_size : k->max_work_group_size;
    if (cpu_local == CLPOOL__LOCAL_BUDGET || cpu_local > budget) cpu_local = budget;
    if (cpu_local > ctx->max_item_size[0]) cpu_local = ctx->max_item_size[0];
    size_t local[3] = {1, 1, 1}, global[3] = {1, 1, 1};
    for (cl_uint d = 0; d < dims; ++d) {
        if (items[d] == 0) return clpool__enqueue_nothing(queue, num_wait, wait, event);
        if (ctx->cpu_simd)
            local[d] = d == 0 ? cpu_local : 1;
        else
            local[d] = d < 2 ? pow2_at_least(items[d], budget < ctx->max_item_size[d] ? budget : ctx->max_item_size[d]) : 1;
        budget /= local[d];
        if (budget == 0) budget = 1;
        global[d] = (size_t)((items[d] + local[d] - 1) / local[d]) * local[d];
    }
    cl_int err = clEnqueueNDRangeKernel(queue, k->kernel, dims, NULL, global, local, num_wait, wait, event);
    if (err != CL_SUCCESS) {
        char what[200];
        snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s, global %zux%zux%zu, local %zux%zux%zu)", k->name,
                 global[0], global[1], global[2], local[0], local[1], local[2]);
        return clpool__cl_fail(err, what);
    }
    return CLPOOL_SUCCESS;
}

clpool_status clpool__enqueue_nothing(cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                                      cl_event *event)
{
    if (num_wait == 0 && !event) return CLPOOL_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(queue, num_wait, wait, event);
    if (err != CL_SUCCESS) return clpool__cl_fail(err, "clEnqueueMarkerWithWaitList");
    return CLPOOL_SUCCESS;
}
