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

#define REQUEST_MAGIC "clpool build request 1"
#define NAME_MAX_CHARS 48
#define WIRE_LAUNCHES 3 /* launch[0], launch[1], fallback */
/* The helper's file beside the library (a build tree, the Python package) or in its clpool/ (an install). */
static const char *const helper_places[] = {"clpool-builder", "clpool/clpool-builder"};
/* How often the build thread looks at the helper and at the context's stopping flag. */
#define POLL_MS 2

typedef struct wire_launch {
    int kernel; /* index into clpool__families[path].kernels */
    char names[CLPOOL__OPTIONS_DEFINES][NAME_MAX_CHARS];
} wire_launch;

/* One request. Both sides are the same library file, so the plan's layout is the same. */
typedef struct request {
    char magic[sizeof REQUEST_MAGIC];
    uint64_t plan_size;
    char platform[sizeof ((clpool_device_info *)0)->platform_name];
    char device[sizeof ((clpool_device_info *)0)->device_name];
    size_t bytes[CLPOOL__ROLES];
    clpool__plan plan; /* pointers cleared */
    wire_launch wire[WIRE_LAUNCHES];
} request;

static clpool__launch *wire_target(clpool__plan *plan, int i)
{
    return i < 2 ? &plan->launch[i] : &plan->fallback;
}

static int launch_used(const clpool__plan *plan, int i)
{
    return i < 2 ? i < plan->launches : plan->has_fallback;
}

/* The plan's pointers as indices and text; 0 where one has no such form (the helper is then not used). */
static int encode(const clpool__plan *plan, request *req)
{
    req->plan = *plan;
    req->plan.scratch_purpose = NULL;
    for (int i = 0; i < WIRE_LAUNCHES; ++i) {
        clpool__launch *l = wire_target(&req->plan, i);
        if (launch_used(plan, i)) {
            const clpool__family *f = &clpool__families[l->path];
            if (l->path <= CLPOOL__PATH_NONE || l->path >= CLPOOL__PATHS || l->parts != f->parts || !f->kernels)
                return 0;
            int k = 0;
            while (f->kernels[k] && strcmp(f->kernels[k], l->kernel) != 0) ++k;
            if (!f->kernels[k] || l->options.count > CLPOOL__OPTIONS_DEFINES) return 0;
            req->wire[i].kernel = k;
            for (int d = 0; d < l->options.count; ++d) {
                if (strlen(l->options.names[d]) >= NAME_MAX_CHARS) return 0;
                strcpy(req->wire[i].names[d], l->options.names[d]);
            }
        }
        l->parts = NULL;
        l->kernel = NULL;
        memset(l->options.names, 0, sizeof l->options.names);
    }
    return 1;
}

/* The plan again, its pointers into this library and into `req` (which outlives the plan's use). */
static int decode(request *req)
{
    clpool__plan *plan = &req->plan;
    if (plan->launches < 1 || plan->launches > 2) return 0;
    plan->scratch_purpose = "the background build's scratch";
    for (int i = 0; i < WIRE_LAUNCHES; ++i) {
        if (!launch_used(plan, i)) continue;
        clpool__launch *l = wire_target(plan, i);
        if (l->path <= CLPOOL__PATH_NONE || l->path >= CLPOOL__PATHS || l->options.count < 0 ||
            l->options.count > CLPOOL__OPTIONS_DEFINES)
            return 0;
        const clpool__family *f = &clpool__families[l->path];
        int kernels = 0;
        while (f->kernels && f->kernels[kernels]) ++kernels;
        if (!f->parts || req->wire[i].kernel < 0 || req->wire[i].kernel >= kernels) return 0;
        l->parts = f->parts;
        l->kernel = f->kernels[req->wire[i].kernel];
        for (int d = 0; d < l->options.count; ++d) {
            char *name = req->wire[i].names[d];
            name[NAME_MAX_CHARS - 1] = '\0';
            l->options.names[d] = name;
        }
    }
    return 1;
}

/* This library's file, when it is one the helper can load (not a program this library is linked into). */
static int library_path(char *path, size_t size)
{
    Dl_info self;
    char exe[PATH_MAX];
    if (!dladdr((void *)&clpool_builder_serve, &self) || !self.dli_fname || !realpath(self.dli_fname, path))
        return 0;
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    return strlen(path) < size && (n <= 0 || strcmp(exe, path) != 0);
}

/* The helper to run: $CLPOOL_BUILDER ("off": none), else the first of helper_places beside the library. */
static int helper_path(const char *library, char *path, size_t size)
{
    const char *env = getenv("CLPOOL_BUILDER");
    if (env && *env) {
        if (strcmp(env, "off") == 0 || strlen(env) >= size) return 0;
        strcpy(path, env);
        return 1;
    }
    const char *slash = strrchr(library, '/');
    const int dir = (int)(slash - library);
    for (size_t i = 0; i < sizeof helper_places / sizeof helper_places[0]; ++i) {
        const int n = snprintf(path, size, "%.*s/%s", dir, library, helper_places[i]);
        if (n > 0 && (size_t)n < size && access(path, X_OK) == 0) return 1;
    }
    return 0;
}

/* Start the helper on `in` (its stdin; output to /dev/null). */
static int spawn(const char *helper, const char *library, int in, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return 0;
    char *argv[] = {(char *)helper, (char *)library, NULL};
    const int ok = posix_spawn_file_actions_adddup2(&fa, in, 0) == 0 &&
                   posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) == 0 &&
                   posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0 &&
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
        if (got < 0 && errno != EINTR) return 0; /* reaped elsewhere (SIGCHLD ignored): unknown */
        if (__atomic_load_n(stopping, __ATOMIC_RELAXED)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
            return 0;
        }
        nanosleep(&poll, NULL);
    }
}

int clpool__builder_run(const clpool_context *ctx, const clpool__plan *plan, const size_t *bytes,
                        const int *stopping)
{
    char library[PATH_MAX], helper[PATH_MAX];
    if (!strstr(ctx->info.platform_name, "Portable Computing Language") || !library_path(library, sizeof library) ||
        !helper_path(library, helper, sizeof helper))
        return 0;
    request *req = calloc(1, sizeof *req);
    FILE *file = NULL;
    int done = 0;
    pid_t pid;
    if (req && encode(plan, req) && (file = tmpfile()) != NULL) {
        memcpy(req->magic, REQUEST_MAGIC, sizeof req->magic);
        req->plan_size = sizeof req->plan;
        memcpy(req->platform, ctx->info.platform_name, sizeof req->platform);
        memcpy(req->device, ctx->info.device_name, sizeof req->device);
        memcpy(req->bytes, bytes, sizeof req->bytes);
        if (fwrite(req, sizeof *req, 1, file) == 1 && fflush(file) == 0 && fseek(file, 0, SEEK_SET) == 0 &&
            spawn(helper, library, fileno(file), &pid))
            done = await(pid, stopping);
    }
    if (file) fclose(file);
    free(req);
    return done;
}

/* ------------------------------------------------------------------ the helper's side */

/* The flat index of the device named in `req`; -1 when none is. */
static int find_device(const request *req)
{
    uint32_t count = 0;
    if (clpool_device_count(&count) != CLPOOL_SUCCESS) return -1;
    for (uint32_t i = 0; i < count; ++i) {
        clpool_device_info info;
        if (clpool_device_get_info(i, &info) == CLPOOL_SUCCESS && strcmp(info.platform_name, req->platform) == 0 &&
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
    while (req && got < sizeof *req && (n = read(fd, (char *)req + got, sizeof *req - got)) != 0)
        if (n > 0) got += (size_t)n;
        else if (errno != EINTR) break;
    char extra;
    const int valid = req && got == sizeof *req && read(fd, &extra, 1) == 0 &&
                      memcmp(req->magic, REQUEST_MAGIC, sizeof req->magic) == 0 &&
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
    if (index >= 0 && setenv("CLPOOL_TIERED", "0", 1) == 0 && clpool_context_create(spec, &ctx) == CLPOOL_SUCCESS) {
        cl_command_queue queue = NULL;
        const int stopping = 0;
        result = clpool__plan_warm(ctx, &queue, &req->plan, req->bytes, &stopping) ? 0 : 1;
        if (queue) clReleaseCommandQueue(queue);
        clpool_context_release(ctx);
    }
    free(req);
    return result;
}
