/*
 * Tiers (docs/design.md, "Tiers"): a key's first call runs its op's first
 * tier and queues the key's specialised programs for the context's build
 * thread, which builds them and runs the plan once on buffers of its own, so
 * that the driver's code generation (PoCL compiles a kernel for its local
 * size at its first run) happens there too. Calls keep to the first tier
 * until the build is done and none builds a program. On PoCL, whose code
 * generation holds a lock every launch takes, the helper process builds and
 * runs the plan first (builder.c), so the thread's own run loads the results.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "builder.h"

/* A queued build: the plan of the call that asked, the sizes of its buffers by role, and the end of that
 * call's first tier, which the build waits for: on PoCL compiles take one process-wide lock, so a build
 * started earlier would delay the first call's own compile and result. */
struct clpool__tier_job {
    clpool__tier_job *next;
    clpool__plan plan;
    size_t bytes[CLPOOL__ROLES]; /* the caller's buffer sizes: 0 where the plan takes no buffer of the role */
    cl_event after;              /* NULL: start at once */
};
typedef clpool__tier_job tier_job;

struct clpool__tier_jobs {
    pthread_t thread;
    int started, stopping;
    pthread_cond_t wake;   /* a job was queued or the context is going (CLOCK_MONOTONIC) */
    tier_job *head, *tail; /* queued, oldest first */
    int running;           /* a job is under way */
    cl_command_queue queue; /* the thread's own, made at its first plan run */
};

/* Set the tier of every launch of `plan`; caller holds ctx->lock. */
static void set_tiers(clpool_context *ctx, const clpool__plan *plan, clpool__tier state)
{
    for (int i = 0; i < plan->launches; ++i)
        clpool__kernel_tier(ctx, plan->launch[i].parts, &plan->launch[i].options, plan->launch[i].kernel, 1, state);
}

/* The plan's buffers' private copies cost at most this much; a larger call's build skips the run (its code
 * generation then happens at its first specialised call). */
#define WARM_RUN_MAX_BYTES (4 * CLPOOL__FIRST_TIER_MAX_BYTES)

int clpool__plan_warm(clpool_context *ctx, cl_command_queue *queue, const clpool__plan *plan, const size_t *bytes,
                      const int *stopping)
{
    static const char *fn = "the background build";
    for (int i = 0; i < plan->launches; ++i) {
        clpool__kernel k = {0};
        const clpool__launch *l = &plan->launch[i];
        if (clpool__kernel_get(ctx, l->parts, &l->options, l->kernel, &k) != CLPOOL_SUCCESS) return 0;
        clpool__kernel_put(ctx, &k);
    }
    uint64_t total = 0;
    for (int r = 0; r < CLPOOL__ROLES; ++r) total += bytes[r];
    if (total > WARM_RUN_MAX_BYTES || __atomic_load_n(stopping, __ATOMIC_RELAXED)) return 1;
    cl_int err = CL_SUCCESS;
    if (!*queue && !(*queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &err))) return 1;
    cl_mem mems[CLPOOL__ROLES] = {0};
    const cl_uchar zero = 0;
    for (int r = 0; r < CLPOOL__ROLES && err == CL_SUCCESS; ++r)
        if (bytes[r] > 0 && (mems[r] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes[r], NULL, &err)))
            err = clEnqueueFillBuffer(*queue, mems[r], &zero, 1, 0, bytes[r], 0, NULL, NULL);
    if (err == CL_SUCCESS) clpool__plan_run(ctx, *queue, plan, mems, 0, NULL, NULL, fn);
    clFinish(*queue); /* the run (or the fills) before the buffers go */
    for (int r = 0; r < CLPOOL__ROLES; ++r) /* not the plan's scratch, a lease plan_run gave back */
        if (mems[r] && bytes[r] > 0) clReleaseMemObject(mems[r]);
    return 1;
}

/* The job's plan, first in the helper's process where there is one (its code generation then holds no lock
 * of this one's), then here: from PoCL's kernel cache after the helper, so the lock is held for moments. */
static int run_job(clpool_context *ctx, clpool__tier_jobs *jobs, const tier_job *job)
{
    clpool__builder_run(ctx, &job->plan, job->bytes, &jobs->stopping);
    return clpool__plan_warm(ctx, &jobs->queue, &job->plan, job->bytes, &jobs->stopping);
}

static void job_free(tier_job *job)
{
    if (job->after) clReleaseEvent(job->after);
    free(job);
}

/* A build starts this long after its call's first tier is done: a process that makes one call and goes
 * (the tool, a short script) is gone by then and waits for no build at its context's release. */
#define START_DELAY_MS 100

/* `ms` from now on the thread's condition clock (CLOCK_MONOTONIC, clpool__tier_jobs.wake). */
static struct timespec deadline(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000;
    if (t.tv_nsec >= 1000000000) t.tv_sec += 1, t.tv_nsec -= 1000000000;
    return t;
}

/* Wait until `after` is done (or failed), then START_DELAY_MS more, unless the context goes first; caller
 * holds ctx->lock. Polled rather than called back: a callback could come after the context is gone. */
static void wait_for(clpool_context *ctx, clpool__tier_jobs *jobs, cl_event after)
{
    cl_int st = CL_QUEUED;
    while (!jobs->stopping && after &&
           clGetEventInfo(after, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) == CL_SUCCESS &&
           st > CL_COMPLETE) {
        const struct timespec poll = deadline(1);
        pthread_cond_timedwait(&jobs->wake, &ctx->lock, &poll);
    }
    const struct timespec start = deadline(START_DELAY_MS);
    while (!jobs->stopping && pthread_cond_timedwait(&jobs->wake, &ctx->lock, &start) != ETIMEDOUT) continue;
}

static void *build_thread(void *arg)
{
    clpool_context *ctx = arg;
    clpool__tier_jobs *jobs = ctx->jobs;
    pthread_mutex_lock(&ctx->lock);
    for (;;) {
        while (!jobs->head && !jobs->stopping) pthread_cond_wait(&jobs->wake, &ctx->lock);
        if (jobs->stopping) break;
        tier_job *job = jobs->head;
        if (!(jobs->head = job->next)) jobs->tail = NULL;
        jobs->running = 1;
        wait_for(ctx, jobs, job->after);
        int built = 0;
        if (!jobs->stopping) {
            pthread_mutex_unlock(&ctx->lock);
            built = run_job(ctx, jobs, job);
            pthread_mutex_lock(&ctx->lock);
        }
        set_tiers(ctx, &job->plan, built ? CLPOOL__TIER_READY : CLPOOL__TIER_FAILED);
        jobs->running = 0;
        pthread_cond_broadcast(&ctx->changed);
        job_free(job);
    }
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
}

/* A build of `plan` (mems: the call's buffers by role) for the context's thread, queued by
 * tiers_submit; NULL when it cannot be had (the caller then builds the plan itself). Starts the
 * thread at the first. Caller holds ctx->lock. */
static tier_job *new_job(clpool_context *ctx, const clpool__plan *plan, const cl_mem *mems)
{
    if (!ctx->jobs) {
        clpool__tier_jobs *jobs = calloc(1, sizeof *jobs);
        pthread_condattr_t monotonic;
        const int made = jobs && pthread_condattr_init(&monotonic) == 0;
        const int ok = made && pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC) == 0 &&
                       pthread_cond_init(&jobs->wake, &monotonic) == 0;
        if (made) pthread_condattr_destroy(&monotonic);
        if (!ok) { /* LCOV_EXCL_START: allocation failure (not injected: ASan owns malloc) */
            free(jobs);
            return NULL;
        } /* LCOV_EXCL_STOP */
        ctx->jobs = jobs;
    }
    if (!ctx->jobs->started) {
        if (pthread_create(&ctx->jobs->thread, NULL, build_thread, ctx) != 0) return NULL;
        ctx->jobs->started = 1;
    }
    tier_job *job = calloc(1, sizeof *job);
    if (!job) return NULL;
    job->plan = *plan;
    for (int i = 0; i < plan->launches; ++i)
        for (int a = 0; a < plan->launch[i].nargs; ++a) {
            const clpool__launch_arg *arg = &plan->launch[i].args[a];
            size_t size = 0;
            if (arg->kind == CLPOOL__ARG_BUFFER && arg->role != CLPOOL__ROLE_SCRATCH && mems[arg->role] &&
                clGetMemObjectInfo(mems[arg->role], CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS)
                job->bytes[arg->role] = size;
        }
    return job;
}

int clpool__plan_now(clpool_context *ctx, const clpool__plan *plan, uint64_t input_bytes, const cl_mem *mems,
                     clpool__tier_job **job)
{
    *job = NULL;
    if (!ctx->tiered || plan->first_tier || input_bytes > CLPOOL__FIRST_TIER_MAX_BYTES) return 1;
    pthread_mutex_lock(&ctx->lock);
    int now = 1, queued = 0;
    for (int i = 0; i < plan->launches; ++i) {
        const clpool__launch *l = &plan->launch[i];
        const clpool__tier t = clpool__kernel_tier(ctx, l->parts, &l->options, l->kernel, 0, CLPOOL__TIER_NEW);
        now &= t == CLPOOL__TIER_READY || t == CLPOOL__TIER_FAILED;
        queued |= t == CLPOOL__TIER_QUEUED;
    }
    if (!now && !queued) {
        if ((*job = new_job(ctx, plan, mems)) != NULL) set_tiers(ctx, plan, CLPOOL__TIER_QUEUED);
        else now = 1; /* LCOV_EXCL_LINE: new_job fails only where the host allocations or pthread_create do */
    }
    pthread_mutex_unlock(&ctx->lock);
    return now;
}

/* Queue `job` (if any) to start once `after` (if any) is done. */
static void tiers_submit(clpool_context *ctx, clpool__tier_job *job, cl_event after)
{
    if (!job) return;
    if (after && clRetainEvent(after) == CL_SUCCESS) job->after = after;
    pthread_mutex_lock(&ctx->lock);
    clpool__tier_jobs *jobs = ctx->jobs;
    if (jobs->tail) jobs->tail->next = job;
    else jobs->head = job;
    jobs->tail = job;
    pthread_cond_signal(&jobs->wake);
    pthread_mutex_unlock(&ctx->lock);
}

clpool_status clpool__plan_run_tiered(clpool_context *ctx, cl_command_queue q, const clpool__plan *plan, cl_mem *mems,
                                      clpool__tier_job *job, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                      const char *fn)
{
    if (!job) return clpool__plan_run(ctx, q, plan, mems, num_wait, wait, event, fn);
    cl_event done = NULL;
    const clpool_status status = clpool__plan_run(ctx, q, plan, mems, num_wait, wait, &done, fn);
    tiers_submit(ctx, job, done);
    if (event) *event = done;
    else if (done) clReleaseEvent(done);
    return status;
}

clpool_status clpool_context_wait_builds(clpool_context *ctx)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, "clpool_context_wait_builds");
    pthread_mutex_lock(&ctx->lock);
    while (ctx->jobs && (ctx->jobs->head || ctx->jobs->running)) pthread_cond_wait(&ctx->changed, &ctx->lock);
    pthread_mutex_unlock(&ctx->lock);
    return CLPOOL_SUCCESS;
}

void clpool__tiers_stop(clpool_context *ctx)
{
    clpool__tier_jobs *jobs = ctx->jobs;
    if (!jobs) return;
    pthread_mutex_lock(&ctx->lock);
    __atomic_store_n(&jobs->stopping, 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&jobs->wake);
    pthread_mutex_unlock(&ctx->lock);
    if (jobs->started) pthread_join(jobs->thread, NULL);
    for (tier_job *job = jobs->head, *next; job; job = next) {
        next = job->next;
        job_free(job);
    }
    if (jobs->queue) clReleaseCommandQueue(jobs->queue);
    pthread_cond_destroy(&jobs->wake);
    free(jobs);
    ctx->jobs = NULL;
}
