/*
 * The background build's helper process (builder.h). The build thread writes the plan, its buffer sizes
 * and the device's names to an unlinked file, starts clpool-builder on it with this library's path, and
 * waits; the helper loads this same library file and serves the request with tiers off. A plan's pointers
 * (program parts, kernel name, define names) cross as the family's index and the names' text.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builder.h"

extern char **environ;

/* The helper's file beside the library (a build tree, the Python package) or in its clpool/ (an install). */
static const char *const helper_places[] = {"clpool-builder", "clpool/clpool-builder"};
/* How often the build thread looks at the helper and at the context's stopping flag. */
#define POLL_MS 2
typedef clpool__builder_request request;

static clpool__launch *wire_target(clpool__plan *plan, int i)
{
    return i < 2 ? &plan->launch[i] : &plan->fallback;
}

static int launch_used(const clpool__plan *plan, int i)
{
    return i < 2 ? i < plan->launches : plan->has_fallback;
}

/* The plan's pointers as indices and text; 0 where a define's name does not fit (the helper is then not used).
 * A planned launch's kernel is one of its family's (families.c); unused launches cross as they are. */
static int encode(const clpool__plan *plan, request *req)
{
    req->plan = *plan;
    req->plan.scratch_purpose = NULL;
    int ok = 1;
    for (int i = 0; i < CLPOOL__BUILDER_LAUNCHES; ++i) {
        clpool__launch *l = wire_target(&req->plan, i);
        const int used = launch_used(plan, i);
        const char *const *kernels = clpool__families[l->path].kernels;
        for (int k = 0; used && kernels[k]; ++k)
            if (strcmp(kernels[k], l->kernel) == 0) req->wire[i].kernel = k;
        const int defines = l->options.count < CLPOOL__OPTIONS_DEFINES ? l->options.count : CLPOOL__OPTIONS_DEFINES;
        for (int d = 0; used && d < defines; ++d)
            ok &= snprintf(req->wire[i].names[d], CLPOOL__BUILDER_NAME_MAX, "%s", l->options.names[d]) <
                  CLPOOL__BUILDER_NAME_MAX;
        l->parts = NULL;
        l->kernel = NULL;
        memset(l->options.names, 0, sizeof l->options.names);
    }
    return ok;
}

/* A launch of the request as one of the library's: a family with a program, a kernel of it, its defines. */
static int decode_launch(clpool__launch *l, clpool__builder_wire *wire)
{
    if (l->path <= CLPOOL__PATH_NONE || l->path >= CLPOOL__PATHS || l->options.count < 0 ||
        l->options.count > CLPOOL__OPTIONS_DEFINES || !clpool__families[l->path].parts || wire->kernel < 0)
        return 0;
    const clpool__family *f = &clpool__families[l->path];
    int kernels = 0;
    while (f->kernels[kernels]) ++kernels;
    if (wire->kernel >= kernels) return 0;
    l->parts = f->parts;
    l->kernel = f->kernels[wire->kernel];
    for (int d = 0; d < l->options.count; ++d) {
        wire->names[d][CLPOOL__BUILDER_NAME_MAX - 1] = '\0';
        l->options.names[d] = wire->names[d];
    }
    return 1;
}

/* The plan again, its pointers into this library and into `req` (which outlives the plan's use). */
static int decode(request *req)
{
    clpool__plan *plan = &req->plan;
    int ok = plan->launches >= 1 && plan->launches <= 2;
    plan->scratch_purpose = "the background build's scratch";
    for (int i = 0; ok && i < CLPOOL__BUILDER_LAUNCHES; ++i)
        ok = !launch_used(plan, i) || decode_launch(wire_target(plan, i), &req->wire[i]);
    return ok;
}

/* This library's file, when it is one the helper can load (not a program this library is linked into). */
static int library_path(char *path, size_t size)
{
    Dl_info self;
    char exe[PATH_MAX];
    const int found = dladdr((void *)&clpool_builder_serve, &self) && /* LCOV_EXCL_BR_LINE: this function's */
                      self.dli_fname && realpath(self.dli_fname, path); /* LCOV_EXCL_BR_LINE: a loaded file's */
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0'; /* LCOV_EXCL_BR_LINE: /proc is there */
    return found && strlen(path) < size && /* LCOV_EXCL_BR_LINE: a loaded file's real path fits PATH_MAX */
           (n <= 0 || strcmp(exe, path) != 0);
}

/* The helper to run: $CLPOOL_BUILDER ("off": none; not read in a set-user-ID program), else the first of
 * helper_places beside the library. */
static int helper_path(const char *library, char *path, size_t size)
{
#if defined(__GLIBC__)
    const char *env = secure_getenv("CLPOOL_BUILDER");
#else
    const char *env = getenv("CLPOOL_BUILDER");
#endif
    if (env && *env) {
        if (strcmp(env, "off") == 0 || strlen(env) >= size) return 0;
        strcpy(path, env);
        return 1;
    }
    const int dir = (int)(strrchr(library, '/') - library); /* realpath's: absolute */
    int found = 0;
    for (size_t i = 0; !found && i < sizeof helper_places / sizeof helper_places[0]; ++i) /* LCOV_EXCL_BR_LINE: below */
        found = snprintf(path, size, "%.*s/%s", dir, library, helper_places[i]) < (int)size && /* LCOV_EXCL_BR_LINE: fits */
                access(path, X_OK) == 0; /* LCOV_EXCL_BR_LINE: the suites' library has its helper at the first place */
    return found;
}

/* Start the helper on `in` (its stdin; output to /dev/null). */
static int spawn(const char *helper, const char *library, int in, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return 0; /* LCOV_EXCL_BR_LINE: allocation failure */
    char *argv[] = {(char *)helper, (char *)library, NULL};
    const int ok = posix_spawn_file_actions_adddup2(&fa, in, 0) == 0 && /* LCOV_EXCL_BR_LINE: allocation failure */
                   posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) == 0 && /* LCOV_EXCL_BR_LINE: alloc */
                   posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0 && /* LCOV_EXCL_BR_LINE: allocation failure */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
                   /* none of the program's other descriptors: a pipe it waits to see closed stays its own */
                   posix_spawn_file_actions_addclosefrom_np(&fa, 3) == 0 && /* LCOV_EXCL_BR_LINE: allocation */
#endif
                   posix_spawn(pid, helper, &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
    return ok;
}

/* Wait for the helper, polling *stopping; a stop kills it. 1 when it exited with 0. */
static int await(pid_t pid, const int *stopping)
{
    const struct timespec poll = {0, POLL_MS * 1000000L};
    int st = 0;
    for (;;) {
        const pid_t got = waitpid(pid, &st, WNOHANG);
        if (got == pid) return WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (got < 0 && errno != EINTR) return 0; /* LCOV_EXCL_BR_LINE: EINTR; else reaped elsewhere (SIGCHLD ignored) */
        if (__atomic_load_n(stopping, __ATOMIC_RELAXED)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue; /* LCOV_EXCL_BR_LINE: signals */
            return 0;
        }
        nanosleep(&poll, NULL);
    }
}

int clpool__builder_run(const clpool_context *ctx, const clpool__plan *plan, const size_t *bytes,
                        const int *stopping)
{
    char library[PATH_MAX], helper[PATH_MAX];
    /* PoCL's kernel cache keeps the helper's results (POCL_KERNEL_CACHE=0: they would be lost) */
    if (!clpool__pocl_kernel_cache_on(ctx) || !library_path(library, sizeof library) ||
        !helper_path(library, helper, sizeof helper))
        return 0;
    request *req = calloc(1, sizeof *req);
    FILE *file = NULL;
    int done = 0;
    pid_t pid;
    if (req && encode(plan, req) && (file = tmpfile()) != NULL) { /* LCOV_EXCL_BR_LINE: allocation, names fit */
        memcpy(req->magic, CLPOOL__BUILDER_MAGIC, sizeof req->magic);
        req->plan_size = sizeof req->plan;
        memcpy(req->platform, ctx->info.platform_name, sizeof req->platform);
        memcpy(req->device, ctx->info.device_name, sizeof req->device);
        memcpy(req->bytes, bytes, sizeof req->bytes);
        if (fwrite(req, sizeof *req, 1, file) == 1 && fflush(file) == 0 && /* LCOV_EXCL_BR_LINE: disk full */
            fseek(file, 0, SEEK_SET) == 0 && /* LCOV_EXCL_BR_LINE: a file just written */
            spawn(helper, library, fileno(file), &pid))
            done = await(pid, stopping);
    }
    if (file) fclose(file); /* LCOV_EXCL_BR_LINE: tmpfile's failure */
    free(req);
    return done;
}

/* ------------------------------------------------------------------ the helper's side */

/* The flat index of the device named in `req`; -1 when none is. */
static int find_device(const request *req)
{
    uint32_t count = 0;
    if (clpool_device_count(&count) != CLPOOL_SUCCESS) return -1; /* LCOV_EXCL_BR_LINE: the parent found one */
    for (uint32_t i = 0; i < count; ++i) {
        clpool_device_info info;
        if (clpool_device_get_info(i, &info) == CLPOOL_SUCCESS && /* LCOV_EXCL_BR_LINE: one platform there */
            strcmp(info.platform_name, req->platform) == 0 && /* LCOV_EXCL_BR_LINE: one platform there */
            strcmp(info.device_name, req->device) == 0)
            return (int)i;
    }
    return -1;
}

CLPOOL_API int clpool_builder_serve(int fd)
{
    request *req = malloc(sizeof *req);
    size_t got = 0;
    ssize_t n = 1;
    while (req && got < sizeof *req && /* LCOV_EXCL_BR_LINE: allocation failure */
           (n = read(fd, (char *)req + got, sizeof *req - got)) != 0)
        if (n > 0) got += (size_t)n;
        else if (errno != EINTR) break; /* LCOV_EXCL_BR_LINE: signals */
    char extra;
    const int valid = req && got == sizeof *req && read(fd, &extra, 1) == 0 &&
                      memcmp(req->magic, CLPOOL__BUILDER_MAGIC, sizeof req->magic) == 0 &&
                      req->plan_size == sizeof req->plan && decode(req);
    if (!valid) {
        free(req);
        return 2;
    }
    req->platform[sizeof req->platform - 1] = req->device[sizeof req->device - 1] = '\0';
    int result = 1;
    const int index = find_device(req);
    char spec[16];
    clpool_context *ctx = NULL;
    snprintf(spec, sizeof spec, "%d", index);
    /* tiers off: the plan is built and run here, not queued again */
    if (index >= 0 && setenv("CLPOOL_TIERED", "0", 1) == 0 && /* LCOV_EXCL_BR_LINE: allocation failure */
        clpool_context_create(spec, &ctx) == CLPOOL_SUCCESS) {
        cl_command_queue queue = NULL;
        const int stopping = 0;
        result = clpool__plan_warm(ctx, &queue, &req->plan, req->bytes, &stopping) ? 0 : 1;
        if (queue) clReleaseCommandQueue(queue);
        clpool_context_release(ctx);
    }
    free(req);
    return result;
}
