/* Scratch buffers of multi-pass ops (3-D MaxPool's first pass, the global pools' partials), kept by the context
 * because a fresh cl_mem costs its page faults at every call. A slot is reused once its last command completed,
 * or at once on the same in-order queue, so no call gains a dependency; else the call gets its own buffer. */
#include <stdio.h>

#include "internal.h"

/* Whether a new command on queue q may use a slot whose last use was `done`
 * (NULL: none): done has finished (successfully or not), or it was
 * enqueued on q and q runs its commands in order. */
static int usable(cl_event done, cl_command_queue q)
{
    if (!done) return 1;
    cl_int state = CL_QUEUED;
    if (clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL) != CL_SUCCESS) return 0;
    if (state == CL_COMPLETE || state < 0) return 1;
    cl_command_queue done_q = NULL;
    cl_command_queue_properties props = 0;
    return clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof done_q, &done_q, NULL) == CL_SUCCESS && done_q == q &&
           clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) == CL_SUCCESS &&
           !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* Preference among usable slots for `bytes`: the smallest that holds them,
 * else an empty one, else the largest (to grow it). Higher is better. */
static double preference(const clpool__scratch *s, size_t bytes)
{
    if (s->mem && s->bytes >= bytes) return 3.0 - (double)s->bytes / ((double)s->bytes + (double)bytes);
    if (!s->mem) return 1.5;
    return (double)s->bytes / ((double)s->bytes + (double)bytes); /* below 1 */
}

clpool_status clpool__scratch_get(clpool_context *ctx, cl_command_queue q, size_t bytes, const char *fn,
                                  const char *purpose, clpool__scratch_lease *lease)
{
    lease->slot = -1;
    lease->mem = NULL;
    pthread_mutex_lock(&ctx->lock);
    int pick = -1;
    for (int i = 0; i < CLPOOL__SCRATCH_SLOTS; ++i) {
        const clpool__scratch *s = &ctx->scratch[i];
        if (s->taken || !usable(s->last_use, q)) continue;
        if (pick < 0 || preference(s, bytes) > preference(&ctx->scratch[pick], bytes)) pick = i;
    }
    if (pick >= 0) {
        clpool__scratch *s = &ctx->scratch[pick];
        s->taken = 1;
        if (s->last_use) clReleaseEvent(s->last_use);
        s->last_use = NULL;
        if (s->bytes < bytes && s->mem) { /* too small: its commands keep it until they are done */
            clReleaseMemObject(s->mem);
            s->mem = NULL;
            s->bytes = 0;
        }
        lease->slot = pick;
        lease->mem = s->mem;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (lease->mem) return CLPOOL_SUCCESS;
    cl_int err;
    cl_mem mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!mem) {
        clpool__scratch_put(ctx, lease, NULL);
        char message[200];
        snprintf(message, sizeof message, "%s: clCreateBuffer(%s, %zu bytes)", fn, purpose, bytes);
        return clpool__cl_fail(err, message);
    }
    lease->mem = mem;
    if (lease->slot >= 0) {
        pthread_mutex_lock(&ctx->lock);
        ctx->scratch[lease->slot].mem = mem;
        ctx->scratch[lease->slot].bytes = bytes;
        pthread_mutex_unlock(&ctx->lock);
    }
    return CLPOOL_SUCCESS;
}

void clpool__scratch_put(clpool_context *ctx, const clpool__scratch_lease *lease, cl_event last_use)
{
    if (lease->slot < 0) { /* a buffer of its own: the runtime keeps it until its commands are done */
        if (lease->mem) clReleaseMemObject(lease->mem);
        return;
    }
    pthread_mutex_lock(&ctx->lock);
    clpool__scratch *s = &ctx->scratch[lease->slot];
    if (last_use) clRetainEvent(last_use);
    s->last_use = last_use;
    s->taken = 0;
    pthread_mutex_unlock(&ctx->lock);
}

void clpool__scratch_done(clpool_context *ctx, const clpool__scratch_lease *lease, cl_event first, cl_event last,
                          cl_event *event)
{
    if (lease->mem) clpool__scratch_put(ctx, lease, last ? last : first);
    if (first) clReleaseEvent(first);
    if (last && event)
        *event = last;
    else if (last)
        clReleaseEvent(last);
}

/* Frees the slots no call holds (all of them at context release). */
void clpool__scratch_release_all(clpool_context *ctx)
{
    for (int i = 0; i < CLPOOL__SCRATCH_SLOTS; ++i) {
        clpool__scratch *s = &ctx->scratch[i];
        if (s->taken) continue;
        if (s->last_use) clReleaseEvent(s->last_use); /* the runtime frees the buffer once its commands are done */
        if (s->mem) clReleaseMemObject(s->mem);
        *s = (clpool__scratch){0};
    }
}

void clpool_context_trim(clpool_context *ctx)
{
    if (!ctx) return;
    pthread_mutex_lock(&ctx->lock);
    clpool__scratch_release_all(ctx);
    pthread_mutex_unlock(&ctx->lock);
}
