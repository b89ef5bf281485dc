/*
 * Scratch buffers: the temporaries of multi-pass ops (3-D MaxPool's first
 * pass, the global pools' partials), kept by the context for the next call.
 * A fresh cl_mem per call cost PoCL its page faults every time: 3x3x3/s2
 * MaxPool on 2x64x16x56x56 float32 took about 0.3 ms more than its two
 * passes. A slot is reused only once the last command that used it has
 * completed, so calls from several threads or queues never share one in
 * flight; when every slot is busy the call gets a buffer of its own.
 */
#include <stdio.h>

#include "internal.h"

/* Whether `done` (the last use's event; NULL: none) has finished, successfully or not. */
static int finished(cl_event done)
{
    if (!done) return 1;
    cl_int state = CL_QUEUED;
    if (clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL) != CL_SUCCESS) return 0;
    return state == CL_COMPLETE || state < 0;
}

clpool_status clpool__scratch_get(clpool_context *ctx, size_t bytes, const char *fn, const char *purpose,
                                  clpool__scratch_lease *lease)
{
    lease->slot = -1;
    lease->mem = NULL;
    pthread_mutex_lock(&ctx->lock);
    int pick = -1;
    for (int i = 0; i < CLPOOL__SCRATCH_SLOTS; ++i) {
        clpool__scratch *s = &ctx->scratch[i];
        if (s->taken || !finished(s->last_use)) continue;
        /* a free slot big enough, else the biggest free one (to grow) */
        if (pick < 0 || (s->bytes >= bytes) > (ctx->scratch[pick].bytes >= bytes) ||
            ((s->bytes >= bytes) == (ctx->scratch[pick].bytes >= bytes) && s->bytes > ctx->scratch[pick].bytes))
            pick = i;
    }
    if (pick >= 0) {
        clpool__scratch *s = &ctx->scratch[pick];
        s->taken = 1;
        if (s->last_use) clReleaseEvent(s->last_use);
        s->last_use = NULL;
        if (s->bytes < bytes && s->mem) {
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

/* Frees the slots no call holds (all of them at context release). */
static void free_slots(clpool_context *ctx)
{
    for (int i = 0; i < CLPOOL__SCRATCH_SLOTS; ++i) {
        clpool__scratch *s = &ctx->scratch[i];
        if (s->taken) continue;
        if (s->last_use) clReleaseEvent(s->last_use); /* the runtime frees the buffer once its commands are done */
        if (s->mem) clReleaseMemObject(s->mem);
        *s = (clpool__scratch){0};
    }
}

void clpool__scratch_release_all(clpool_context *ctx) { free_slots(ctx); }

void clpool_context_trim(clpool_context *ctx)
{
    if (!ctx) return;
    pthread_mutex_lock(&ctx->lock);
    free_slots(ctx);
    pthread_mutex_unlock(&ctx->lock);
}
