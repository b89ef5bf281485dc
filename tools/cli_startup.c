/*
 * `clpool bench --startup`: the first result in a fresh process, against the
 * driver's floor. Each case runs in a child process (this binary again, with
 * the hidden `bench --startup-case NAME`) whose PoCL, Mesa and clpool caches
 * are new empty directories: cold. The same case then runs once more in
 * those now-filled directories: warm. Rounds alternate every case with the
 * floor, so a noisy minute hits all of them; medians are reported.
 *
 * The floor is what any OpenCL program pays: context and queue, building a
 * trivial copy kernel, and one run of it over the MaxPool case's input bytes
 * (uploaded and read back, as the cases' `*_host` calls do).
 *
 * Two more cold children make calls 1-20 of the same key: back to back, and
 * one every PACE_MS, so that they span the background build of the key's
 * specialised programs (clpool_context_wait_builds). No call after the first
 * should wait for a compiler: the goal is each at most 3x the back-to-back
 * calls' median (the first tier's time) plus 20 ms.
 *
 * clpool's binary cache is as a new user has it: CLPOOL_CACHE_DIR unset, its
 * default directory under the child's new XDG_CACHE_HOME. CLPOOL_CACHE_DIR=off
 * in the environment is passed on; any other value becomes a new directory
 * per case, so an explicit cache can be measured too.
 */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "cli.h"

typedef enum startup_op {
    S_FLOOR,
    S_MAXPOOL,
    S_MAXPOOL_IDX,
    S_MAXPOOL_2X2,
    S_GLOBAL_AVG,
    S_GLOBAL_MAX,
    S_MAX,
    S_MAX_BROADCAST,
    S_WARM_UP
} startup_op;

typedef struct startup_case {
    const char *name;
    startup_op op;
    clpool_shape in[2];
} startup_case;

#define SHAPE4(a, b, c, d) {4, {a, b, c, d}}
/* The reference cases of the performance plan (DESIGN.md), batch 1: the first call of a model. */
static const startup_case cases[] = {
    {"floor_copy_1x64x112x112", S_FLOOR, {SHAPE4(1, 64, 112, 112)}},
    {"maxpool_3x3s2p1_1x64x112x112", S_MAXPOOL, {SHAPE4(1, 64, 112, 112)}},
    {"maxpool_idx_3x3s2p1_1x64x112x112", S_MAXPOOL_IDX, {SHAPE4(1, 64, 112, 112)}},
    {"maxpool_2x2s2_1x128x56x56", S_MAXPOOL_2X2, {SHAPE4(1, 128, 56, 56)}},
    {"globalavg_1x2048x7x7", S_GLOBAL_AVG, {SHAPE4(1, 2048, 7, 7)}},
    {"globalmax_1x2048x7x7", S_GLOBAL_MAX, {SHAPE4(1, 2048, 7, 7)}},
    {"max_1x64x128x128", S_MAX, {SHAPE4(1, 64, 128, 128), SHAPE4(1, 64, 128, 128)}},
    {"max_bcast_1x64x128x128_1x64x1x1", S_MAX_BROADCAST, {SHAPE4(1, 64, 128, 128), SHAPE4(1, 64, 1, 1)}},
    {"warm_up_float32", S_WARM_UP, {SHAPE4(1, 1, 1, 1)}},
};
#define N_CASES (sizeof cases / sizeof cases[0])
#define CALLS 20   /* calls of one key per child */
#define PACE_MS 150 /* between the paced child's calls: 20 of them span a build (build left shows whether) */


/* ------------------------------------------------------------ the child side */

static const char *copy_source =
    "__kernel void copy(__global const float *src, __global float *dst) {\n"
    "    dst[get_global_id(0)] = src[get_global_id(0)];\n"
    "}\n";

/* The floor: a plain OpenCL program on device number `device` (the parent
 * resolves the user's choice to a number). */
static int run_floor(const char *device, const clpool_shape *shape, float *x, float *y)
{
    clpool_device_info info;
    if (clpool_device_get_info((uint32_t)strtoul(device, NULL, 10), &info) != CLPOOL_SUCCESS) return -1;
    const size_t n = (size_t)clpool_shape_elements(shape), bytes = n * sizeof(float);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &info.device, NULL, NULL, &err);
    cl_command_queue q = ctx ? clCreateCommandQueue(ctx, info.device, 0, &err) : NULL;
    cl_program prog = q ? clCreateProgramWithSource(ctx, 1, &copy_source, NULL, &err) : NULL;
    int rc = -1;
    if (prog && clBuildProgram(prog, 1, &info.device, "", NULL, NULL) == CL_SUCCESS) {
        cl_kernel k = clCreateKernel(prog, "copy", &err);
        cl_mem src = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x, &err);
        cl_mem dst = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        if (k && src && dst && clSetKernelArg(k, 0, sizeof src, &src) == CL_SUCCESS &&
            clSetKernelArg(k, 1, sizeof dst, &dst) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL) == CL_SUCCESS &&
            clEnqueueReadBuffer(q, dst, CL_TRUE, 0, bytes, y, 0, NULL, NULL) == CL_SUCCESS)
            rc = memcmp(x, y, bytes) == 0 ? 0 : -1;
        if (dst) clReleaseMemObject(dst);
        if (src) clReleaseMemObject(src);
        if (k) clReleaseKernel(k);
    }
    if (prog) clReleaseProgram(prog);
    if (q) clReleaseCommandQueue(q);
    if (ctx) clReleaseContext(ctx);
    return rc;
}

static clpool_status run_op(const startup_case *c, clpool_context *ctx, float *x, float *x2, float *y, int64_t *idx)
{
    const int64_t k3[2] = {3, 3}, k2[2] = {2, 2};
    clpool_maxpool_params p;
    switch (c->op) {
    case S_MAXPOOL:
    case S_MAXPOOL_IDX:
        clpool_maxpool_params_init(&p, 2, k3);
        p.strides[0] = p.strides[1] = 2;
        p.pads[0] = p.pads[1] = p.pads[2] = p.pads[3] = 1;
        return clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &c->in[0], x, y, c->op == S_MAXPOOL_IDX ? idx : NULL);
    case S_MAXPOOL_2X2:
        clpool_maxpool_params_init(&p, 2, k2);
        p.strides[0] = p.strides[1] = 2;
        return clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &c->in[0], x, y, NULL);
    case S_GLOBAL_AVG: return clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &c->in[0], x, y);
    case S_GLOBAL_MAX: return clpool_global_max_pool_host(ctx, CLPOOL_FLOAT32, &c->in[0], x, y);
    case S_MAX:
    case S_MAX_BROADCAST: {
        const void *inputs[2] = {x, x2};
        return clpool_max_host(ctx, CLPOOL_FLOAT32, 2, c->in, inputs, y);
    }
    case S_WARM_UP: return clpool_context_warm_up(ctx, CLPOOL_FLOAT32);
    case S_FLOOR: break;
    }
    return CLPOOL_ERROR_INVALID_ARGUMENT;
}

/* One case in this process: prints the ms from the first OpenCL or clpool
 * call to the result in host memory, then, where `pace_ms` >= 0 (clpool's
 * cases), each later call's ms, `pace_ms` apart. Returns the exit status. */
static int startup_child(const char *name, const char *device, int pace_ms)
{
    const startup_case *c = NULL;
    for (size_t i = 0; i < N_CASES; ++i)
        if (strcmp(cases[i].name, name) == 0) c = &cases[i];
    if (!c) return cli_usage_error("bench", "no start-up case '%s'", name);
    const size_t n = (size_t)clpool_shape_elements(&c->in[0]);
    float *x = malloc(n * sizeof *x), *x2 = malloc(n * sizeof *x2), *y = malloc(n * sizeof *y);
    int64_t *idx = malloc(n * sizeof *idx);
    int rc = 1;
    if (x && x2 && y && idx) {
        for (size_t i = 0; i < n; ++i) x[i] = x2[n - 1 - i] = (float)((i * 2654435761u) % 1000) / 10.0f;
        const double t0 = cli_now_ms();
        clpool_context *ctx = NULL;
        int ok;
        if (c->op == S_FLOOR) {
            ok = run_floor(device, &c->in[0], x, y) == 0;
        } else {
            ok = clpool_context_create(device, &ctx) == CLPOOL_SUCCESS && run_op(c, ctx, x, x2, y, idx) == CLPOOL_SUCCESS;
        }
        const double t1 = cli_now_ms();
        if (ok) printf("%.3f\n", t1 - t0);
        for (int call = 2; ok && ctx && pace_ms >= 0 && call <= CALLS; ++call) {
            const struct timespec pause = {0, pace_ms * 1000000L};
            if (pace_ms) nanosleep(&pause, NULL);
            const double a = cli_now_ms();
            ok = run_op(c, ctx, x, x2, y, idx) == CLPOOL_SUCCESS;
            printf("%.3f\n", cli_now_ms() - a);
        }
        /* the paced child: how long its builds still took after its last call (0: the calls spanned them) */
        const double b = cli_now_ms();
        if (ok && ctx && pace_ms > 0) printf("b%.3f\n", clpool_context_wait_builds(ctx) == CLPOOL_SUCCESS ? cli_now_ms() - b : -1.0);
        if (!ok) fprintf(stderr, "clpool bench: %s: %s\n", name, clpool_last_error());
        else rc = 0;
        clpool_context_release(ctx);
    }
    free(x), free(x2), free(y), free(idx);
    return rc;
}

/* ----------------------------------------------------------- the parent side */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Runs `name` in a child whose caches live in `dir`, its calls `pace_ms` apart; the child's first result
 * and the largest and median of its later calls (0 where it makes none), and the process's wall time, in
 * ms; -1 on failure. */
static int spawn_case(const char *self, const char *name, const char *device, const char *dir, int pace_ms,
                      double *first_ms, double *later_max, double *later_median, double *process_ms,
                      double *build_left)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const double t0 = cli_now_ms();
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        char path[4200];
        const char *explicit_cache = getenv("CLPOOL_CACHE_DIR");
        snprintf(path, sizeof path, "%s/pocl", dir), setenv("POCL_CACHE_DIR", path, 1);
        snprintf(path, sizeof path, "%s/mesa", dir), setenv("MESA_SHADER_CACHE_DIR", path, 1);
        snprintf(path, sizeof path, "%s/xdg", dir), setenv("XDG_CACHE_HOME", path, 1);
        if (explicit_cache && *explicit_cache && strcmp(explicit_cache, "off") != 0 && strcmp(explicit_cache, "0") != 0)
            snprintf(path, sizeof path, "%s/clpool", dir), setenv("CLPOOL_CACHE_DIR", path, 1);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]), close(fds[1]);
        char pace[16];
        snprintf(pace, sizeof pace, "%d", pace_ms);
        char *argv[9] = {(char *)"clpool", (char *)"bench", (char *)"--startup-case", (char *)name, NULL, NULL, NULL};
        argv[4] = (char *)"--device", argv[5] = (char *)device, argv[6] = (char *)"--pace", argv[7] = pace;
        execv(self, argv);
        _exit(127);
    }
    close(fds[1]);
    char out[64 * CALLS] = "";
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof out && (r = read(fds[0], out + got, sizeof out - 1 - got)) > 0) got += (size_t)r;
    out[got] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    *process_ms = cli_now_ms() - t0;
    char *end = NULL;
    *first_ms = strtod(out, &end);
    const int parsed = end != out;
    double later[CALLS];
    int n = 0;
    for (char *at = end; n < CALLS; at = end) {
        later[n] = strtod(at, &end);
        if (end == at) break;
        ++n;
    }
    *later_max = 0;
    for (int i = 0; i < n; ++i)
        if (later[i] > *later_max) *later_max = later[i];
    *later_median = n ? cli_median(later, n) : 0;
    const char *b = strchr(out, 'b');
    *build_left = b ? strtod(b + 1, NULL) : 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && parsed ? 0 : -1;
}

/* The number (as `clpool devices` lists it) of the device clpool picks for
 * `spec`, written to `out`; -1 if there is none. */
static int device_number(const char *spec, char *out, size_t len)
{
    clpool_context *ctx = cli_open_context(spec, "clpool bench");
    clpool_device_info chosen, info;
    uint32_t n = 0;
    int found = -1;
    if (ctx && clpool_context_device_info(ctx, &chosen) == CLPOOL_SUCCESS && clpool_device_count(&n) == CLPOOL_SUCCESS)
        for (uint32_t i = 0; i < n && found < 0; ++i)
            if (clpool_device_get_info(i, &info) == CLPOOL_SUCCESS && info.device == chosen.device) found = (int)i;
    clpool_context_release(ctx);
    if (found >= 0) snprintf(out, len, "%d", found);
    return found;
}

int cli_bench_startup(const char *spec, int repeat, int csv)
{
    char device[16];
    if (device_number(spec, device, sizeof device) < 0) return 1;
    char self[4096];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "clpool bench: cannot find this program's path (/proc/self/exe)\n");
        return 1;
    }
    self[len] = '\0';
    /* Per round and case: cold first result, its process, warm first result, the cold child's later calls
     * back to back (median, largest) and the paced child's largest, and its build's ms after its calls. */
    enum { COLD, PROCESS, WARM, LATER_MEDIAN, LATER_MAX, PACED_MAX, BUILD_LEFT, FIGURES };
    double(*fig)[N_CASES][FIGURES] = calloc((size_t)repeat, sizeof *fig);
    int rc = fig ? 0 : 1;
    /* Round r runs every case once, each followed by the floor, so that every
     * case has a floor measured next to it. Floors are pooled for the median. */
    double *floors = calloc((size_t)repeat * N_CASES, sizeof *floors);
    double *floor_walls = calloc((size_t)repeat * N_CASES, sizeof *floor_walls);
    int n_floors = 0;
    for (int r = 0; r < repeat && rc == 0 && floors && floor_walls; ++r) {
        for (size_t i = 1; i < N_CASES && rc == 0; ++i) {
            const size_t pair[2] = {i, 0};
            for (int j = 0; j < 2 && rc == 0; ++j) {
                const startup_case *c = &cases[pair[j]];
                double *f = fig[r][pair[j]], unused = 0;
                /* cold, then warm in the same caches; then back to back and paced, each in new ones */
                for (int run = 0; run < (j ? 1 : 4) && rc == 0; ++run) {
                    static char dir[] = "/tmp/clpool-startup-XXXXXX";
                    if (run != 1 && !mkdtemp(strcpy(dir, "/tmp/clpool-startup-XXXXXX"))) {
                        fprintf(stderr, "clpool bench: mkdtemp: %s\n", strerror(errno));
                        rc = 1;
                        break;
                    }
                    const int ok = run == 0   ? spawn_case(self, c->name, device, dir, -1, &f[COLD], &unused, &unused,
                                                           &f[PROCESS], &unused)
                                   : run == 1 ? spawn_case(self, c->name, device, dir, -1, &f[WARM], &unused, &unused,
                                                           &unused, &unused)
                                   : run == 2 ? spawn_case(self, c->name, device, dir, 0, &unused, &f[LATER_MAX],
                                                           &f[LATER_MEDIAN], &unused, &unused)
                                              : spawn_case(self, c->name, device, dir, PACE_MS, &unused,
                                                           &f[PACED_MAX], &unused, &unused, &f[BUILD_LEFT]);
                    if (ok != 0) {
                        fprintf(stderr, "clpool bench: start-up case %s failed\n", c->name);
                        rc = 1;
                    }
                    if (run != 0 || j) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
                }
                if (j == 1) {
                    floor_walls[n_floors] = f[PROCESS];
                    floors[n_floors++] = f[COLD];
                }
            }
        }
    }
    if (rc == 0) {
        const double floor_ms = cli_median(floors, n_floors), floor_wall = cli_median(floor_walls, n_floors);
        if (csv)
            printf("startup_case,cold_first_result_ms,ratio_to_floor,cold_process_ms,warm_first_result_ms,"
                   "later_median_ms,later_max_ms,paced_max_ms,build_left_ms\n");
        else
            printf("%-34s %10s %7s %10s %10s %11s %11s %11s %10s\n", "case (float32)", "cold first", "x floor",
                   "process", "warm first", "2-20 median", "2-20 max", "paced max", "build left");
        if (csv) printf("%s,%.1f,1.00,%.1f,,,,,\n", cases[0].name, floor_ms, floor_wall);
        else printf("%-34s %10.1f %7.2f %10.1f\n", cases[0].name, floor_ms, 1.0, floor_wall);
        for (size_t i = 1; i < N_CASES; ++i) {
            double m[FIGURES], v[512];
            const int n = repeat < 512 ? repeat : 512;
            for (int k = 0; k < FIGURES; ++k) {
                for (int r = 0; r < n; ++r) v[r] = fig[r][i][k];
                m[k] = cli_median(v, n);
            }
            if (csv)
                printf("%s,%.1f,%.2f,%.1f,%.1f,%.2f,%.2f,%.2f,%.1f\n", cases[i].name, m[COLD], m[COLD] / floor_ms,
                       m[PROCESS], m[WARM], m[LATER_MEDIAN], m[LATER_MAX], m[PACED_MAX], m[BUILD_LEFT]);
            else
                printf("%-34s %10.1f %7.2f %10.1f %10.1f %11.2f %11.2f %11.2f %10.1f\n", cases[i].name, m[COLD],
                       m[COLD] / floor_ms, m[PROCESS], m[WARM], m[LATER_MEDIAN], m[LATER_MAX], m[PACED_MAX],
                       m[BUILD_LEFT]);
        }
        if (!csv)
            printf("ms, medians of %d rounds; calls 2-20 of each key: back to back (median, largest), and one every "
                   "%d ms (largest; build left: what the key's background build still took after them, 0 where "
                   "they spanned it)\n",
                   repeat, PACE_MS);
    }
    free(fig), free(floors), free(floor_walls);
    return rc;
}

int cli_bench_startup_child(const char *name, const char *device, int pace_ms)
{
    return startup_child(name, device, pace_ms);
}
