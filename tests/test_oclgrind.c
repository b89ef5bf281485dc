/*
 * The GPU paths under a checker: every kernel path the library chooses for
 * a GPU-type device, each on every dtype it serves, at small shapes, run on
 * Oclgrind (tests/check_oclgrind.sh: `oclgrind --check-api --data-races`,
 * which checks every memory access against its buffer; any diagnostic it
 * prints fails the test there). PoCL and rusticl are CPU devices and never
 * take these paths: interleaved two-pass global pools, one 8-lane block per
 * work-item, one output row per 2-D work-item. Oclgrind reports every device
 * type bit; the library plans a device with the GPU bit as a GPU
 * (clpool__cpu_device).
 *
 * Results are compared with the plain C references (tests/reference.c,
 * reference_ops.c): MaxPool values and Indices and Max bit for bit,
 * GlobalMaxPool bit for bit, the sums within a tolerance. Inputs are
 * buffers of exactly the tensor's size, so any read past it is Oclgrind's
 * to report; outputs carry sentinel bytes before and after.
 *
 * Which path ran: this file interposes clEnqueueNDRangeKernel (the
 * executable's definition takes precedence for libclpool; dlsym RTLD_NEXT
 * finds Oclgrind's) and names every launch by its kernel function and the
 * build options that select its code (e.g. "maxpool2d SH=2 SW=2
 * WITH_INDICES=1 STORAGE_ORDER=0 INDEX_MAP=0"). Each case states the
 * launches it expects, so a path that stops being reached fails its case;
 * the last test lists every path reached and fails if a kernel in
 * kernels/ (.cl files) is neither reached nor named CPU-only below. The library is
 * not changed for testing.
 *
 * One process (CK_NOFORK): the reached paths are counted across tests.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "launch_info.h"
#include "reference.h"
#include "reference_ops.h"

/* --------------------------------------- interposed clEnqueueNDRangeKernel */

#define PATH_LEN 160
#define CASE_LAUNCHES 8
#define MAX_PATHS 160

/* The build options that select a kernel's code, per kernel (absent: 0). */
static const struct {
    const char *kernel;
    const char *keys[6];
} path_keys[] = {
    {"maxpool2d", {"SH", "SW", "WITH_INDICES", "STORAGE_ORDER", "INDEX_MAP"}},
    {"maxpool_nd", {"NS", "SW", "WITH_INDICES", "STORAGE_ORDER"}},
    {"sum_pool_nd", {"OP", "LP_KIND", "NS", "SW"}},
    {"sum_pool_2d", {"OP", "LP_KIND", "SH", "SW"}},
    {"sum_pool_3d", {"OP", "LP_KIND", "SD", "SH", "SW"}},
    {"window_first_tier", {"OP"}},
    {"window_channels_last", {"OP", "LP_KIND"}},
    {"global_pool_direct", {"OP", "LP_KIND", "CHUNKED"}},
    {"global_pool_partial", {"OP", "LP_KIND", "CHUNKED"}},
    {"global_pool_final", {"OP", "LP_KIND", "CHUNKED"}},
};

/* Kernels a GPU-type device never runs, and why (host/window_plan.c, global_pool.c); a name
 * ending in '*' stands for every kernel it starts. */
static const char *const cpu_only[][2] = {
    {"maxpool_window", "use_window_kernel: CPUs whose work-item vectors are their SIMD"},
    {"maxpool_nd_nb*", "plan_nd: several blocks per work-item on CPU SIMD (NB_MAX)"},
    {"sum_pool_nd_nb*", "clpool__sum_pool_plan_call: several blocks per work-item on CPU SIMD (NB_MAX)"},
    {"maxpool2d_plane", "plane_path: CPUs with 512-bit vectors"},
    {"maxpool2d_flat_p*", "flat_path: CPUs with 512-bit vectors"},
    {"maxpool3d", "fused_3d: 16-lane work-items (CPUs)"},
    {"global_pool_grouped", "grouped_ok: CPU devices"},
    {"global_max_pool_indices", "clpool__global_max_indices_ok: CPU devices"},
    {"max_unpool_planes", "clpool__max_unpool_plan_call: CPU devices with planes to spread"},
};

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);

static struct {
    enqueue_fn real;
    int n;                              /* launches of the current case */
    char launch[CASE_LAUNCHES][PATH_LEN];
    clpool_dtype dtype;                 /* the current case's */
    struct {
        char path[PATH_LEN];
        int count;
        unsigned dtypes; /* bit per clpool_dtype value */
    } reached[MAX_PATHS];
    int n_reached;
} paths;

/* Value of -DKEY=VALUE in a build-options string ("0" if absent) into out. */
static void option_value(const char *options, const char *key, char *out, size_t len)
{
    const size_t kl = strlen(key);
    for (const char *p = options; (p = strstr(p, "-D")) != NULL; p += 2) {
        if (strncmp(p + 2, key, kl) != 0 || p[2 + kl] != '=') continue;
        const char *v = p + 3 + kl;
        size_t n = strcspn(v, " ");
        if (n >= len) n = len - 1;
        memcpy(out, v, n);
        out[n] = '\0';
        return;
    }
    snprintf(out, len, "0");
}

/* "kernel KEY=V ..." for a launch of k on q. */
static void name_launch(cl_command_queue q, cl_kernel k, char *out, size_t len)
{
    char name[64], options[1024];
    launch_info(q, k, name, sizeof name, options, sizeof options);
    snprintf(out, len, "%s", name);
    for (size_t i = 0; i < sizeof path_keys / sizeof path_keys[0]; ++i) {
        if (strcmp(path_keys[i].kernel, name) != 0) continue;
        for (int j = 0; j < 6 && path_keys[i].keys[j]; ++j) {
            char v[24];
            option_value(options, path_keys[i].keys[j], v, sizeof v);
            cu_append(out, len, " %s=%s", path_keys[i].keys[j], v);
        }
    }
}

static void reach(const char *path)
{
    int i = 0;
    while (i < paths.n_reached && strcmp(paths.reached[i].path, path) != 0) ++i;
    if (i == paths.n_reached) {
        if (i == MAX_PATHS) return; /* the table is full: paths_reached says so */
        snprintf(paths.reached[i].path, PATH_LEN, "%s", path);
        ++paths.n_reached;
    }
    ++paths.reached[i].count;
    paths.reached[i].dtypes |= 1u << paths.dtype;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t *global_work_offset,
                                                       const size_t *global_work_size, const size_t *local_work_size,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event)
{
    if (!paths.real) {
        void *sym = dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
        if (!sym) abort(); /* no OpenCL library after us: nothing can work */
        memcpy(&paths.real, &sym, sizeof sym);
    }
    char path[PATH_LEN];
    name_launch(command_queue, kernel, path, sizeof path);
    if (paths.n < CASE_LAUNCHES) snprintf(paths.launch[paths.n], PATH_LEN, "%s", path);
    ++paths.n;
    reach(path);
    return paths.real(command_queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                      num_events_in_wait_list, event_wait_list, event);
}

static void paths_start(clpool_dtype dtype)
{
    paths.n = 0;
    paths.dtype = dtype;
}

/* The case's launches, " + " between them, must be `expect`. */
static void paths_check(const char *expect, const char *desc)
{
    char got[CASE_LAUNCHES * PATH_LEN] = "";
    for (int i = 0; i < paths.n && i < CASE_LAUNCHES; ++i)
        cu_append(got, sizeof got, i ? " + %s" : "%s", paths.launch[i]);
    if (paths.n > CASE_LAUNCHES) cu_append(got, sizeof got, " + %d more", paths.n - CASE_LAUNCHES);
    ck_assert_msg(strcmp(got, expect) == 0, "%s: the launches were\n  %s\nexpected\n  %s", desc, got, expect);
}

/* ------------------------------------------------------------ test data */

#define DT_FLOATS 0x0fu /* masks over cu_maxpool_dtypes */
#define DT_BYTES 0x30u
#define DT_ALL 0x3fu

/*
 * Ties (small integers), signed zeros and extremes; with `special`, NaNs
 * (every pattern of cu_nan_patterns) and infinities too. Clean inputs keep
 * the fast paths' results; the special ones send windows to the exact paths.
 */
static void fill(ref_rng *r, clpool_dtype dt, void *data, int64_t n, int special)
{
    for (int64_t i = 0; i < n; ++i) {
        const double u = ref_rng_unit(r);
        if (!ref_dtype_is_float(dt)) {
            const int64_t lo = dt == CLPOOL_INT8 || dt == CLPOOL_INT16 || dt == CLPOOL_INT32 || dt == CLPOOL_INT64;
            const int bits = (int)ref_dtype_size(dt) * 8;
            if (u < 0.7)
                ref_store(dt, data, i, (double)ref_rng_range(r, lo ? -2 : 0, 3));
            else
                ref_store_bits(dt, data, i, ref_rng_next(r) >> (64 - bits)); /* any value: extremes included */
        } else if (special && u < 0.02) {
            ref_store_bits(dt, data, i, cu_nan_patterns(dt)[ref_rng_range(r, 0, CU_N_NAN - 1)]);
        } else if (special && u < 0.04) {
            ref_store(dt, data, i, ref_rng_chance(r, 0.5) ? INFINITY : -INFINITY);
        } else if (u < 0.12) {
            ref_store(dt, data, i, special && ref_rng_chance(r, 0.5) ? -0.0 : 0.0);
        } else if (u < 0.4) {
            ref_store(dt, data, i, (double)ref_rng_range(r, -12, 3) / 4.0);
        } else {
            ref_store(dt, data, i, (double)ref_rng_range(r, 0, 3));
        }
    }
}

/*
 * Bits of a result against the reference's: equal, or the quiet form of a
 * signalling NaN. Oclgrind's select() on floats quiets signalling NaNs (it
 * computes in host floats: select(x, 0xffbfffff, 1) gives 0xffffffff; a copy
 * keeps the bits, and PoCL's select keeps them too), so which NaN won is
 * still checked, its quiet bit is not. The other platforms check exact bits.
 */
static int same_bits(clpool_dtype dt, uint64_t got, uint64_t want)
{
    if (got == want) return 1;
    const uint64_t quiet = dt == CLPOOL_FLOAT32 ? 0x00400000u : dt == CLPOOL_FLOAT64 ? 0x0008000000000000ull : 0;
    return quiet && ref_bits_is_nan(dt, want) && !(want & quiet) && got == (want | quiet);
}

/* A buffer of exactly `lead` + `body` bytes: reads past the tensor are Oclgrind's to find. */
static cl_mem tight_buffer(size_t lead, const void *data, size_t body)
{
    unsigned char *img = cu_sentinel_image(lead, data, body);
    cl_mem m = cu_buffer_from(img, lead + body);
    free(img);
    return m;
}

/* Reads back an output image [lead][body][CU_GUARD] and checks its sentinels. */
static unsigned char *read_output(cl_mem m, size_t lead, size_t body, const char *what, const char *desc)
{
    unsigned char *img = malloc(CU_IMAGE_BYTES(lead, body));
    ck_assert_ptr_nonnull(img);
    cu_read_back(clpool_context_cl_queue(cu_ctx), m, img, CU_IMAGE_BYTES(lead, body), desc);
    cu_assert_guards(img, lead, body, what, desc);
    return img;
}

/* Waits for the call's event *ev (read after the call: arguments are evaluated in any order) and releases it. */
static void finish(clpool_status st, cl_event *ev, const char *desc)
{
    cu_assert_ok(st, "enqueue", desc);
    ck_assert_msg(*ev != NULL, "%s: no event returned", desc);
    cu_wait_done(clpool_context_cl_queue(cu_ctx), *ev, desc);
    clReleaseEvent(*ev);
}

/* Fails the test if the fixture's device is not a GPU: the cases' paths are a GPU-type device's. */
static void require_gpu(void)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(cu_ctx, &info), CLPOOL_SUCCESS);
    ck_assert_msg(info.type & CL_DEVICE_TYPE_GPU,
                  "the default device (%s / %s) is not a GPU: run this suite under Oclgrind "
                  "(tests/check_oclgrind.sh)", info.platform_name, info.device_name);
}

/* ------------------------------------------------------------- MaxPool */

typedef struct mp_case {
    const char *name;
    unsigned dtypes; /* mask over cu_maxpool_dtypes */
    int32_t rank;
    int64_t dims[8];
    int64_t kernel[6], strides[6], dilations[6], pads[12]; /* strides and dilations: 0 = 1 */
    int ceil_mode, indices, storage_order;
    const char *expect; /* the launches, " + " between them */
} mp_case;

#define MP2D(sh, sw, idx, so, map)                                                                          \
    "maxpool2d SH=" #sh " SW=" #sw " WITH_INDICES=" #idx " STORAGE_ORDER=" #so " INDEX_MAP=" #map
#define MPND(ns, sw, idx, so) "maxpool_nd NS=" #ns " SW=" #sw " WITH_INDICES=" #idx " STORAGE_ORDER=" #so
#define GLOBAL(kernel, op, lp) "global_pool_" kernel " OP=" #op " LP_KIND=" #lp " CHUNKED=0"
#define GLOBAL2(op, lp) GLOBAL("partial", op, lp) " + " GLOBAL("final", op, lp)

/* The 2-D kernel: one row of 8 outputs per work-item; fast, argmax and exact paths. */
static const mp_case mp_2d[] = {
    {"2-D 3x3/s2/p1", DT_ALL, 4, {1, 3, 9, 21}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, 0, 0, 0, MP2D(2, 2, 0, 0, 0)},
    {"2-D 3x3/s2/p1 Indices", DT_ALL, 4, {1, 3, 9, 21}, {3, 3}, {2, 2}, {0}, {1, 1, 1, 1}, 0, 1, 0,
     MP2D(2, 2, 1, 0, 0)},
    {"2-D 2x3/s1x2 ceil, column-major Indices", DT_ALL, 4, {2, 2, 7, 18}, {2, 3}, {1, 2}, {0}, {0}, 1, 1, 1,
     MP2D(1, 2, 1, 1, 0)},
    {"2-D 5x5/s1/p2", DT_ALL, 4, {1, 2, 11, 19}, {5, 5}, {0}, {0}, {2, 2, 2, 2}, 0, 0, 0, MP2D(1, 1, 0, 0, 0)},
    {"2-D 4x2/s2x1 Indices", DT_ALL, 4, {1, 2, 11, 19}, {4, 2}, {2, 1}, {0}, {1, 0, 2, 1}, 0, 1, 0,
     MP2D(2, 1, 1, 0, 0)},
    {"2-D 13x13/s1/p6, the 2-D kernel's largest window", DT_ALL, 4, {1, 1, 13, 14}, {13, 13}, {0}, {0},
     {6, 6, 6, 6}, 0, 0, 0, MP2D(1, 1, 0, 0, 0)},
    {"2-D 13x13/s1/p6 Indices", DT_FLOATS, 4, {1, 1, 13, 14}, {13, 13}, {0}, {0}, {6, 6, 6, 6}, 0, 1, 0,
     MP2D(1, 1, 1, 0, 0)},
    {"1-D 3/s2/p1 Indices, rows of height 1", DT_ALL, 3, {2, 3, 30}, {3}, {2}, {0}, {1, 1}, 0, 1, 0,
     MP2D(1, 2, 1, 0, 0)},
    {"3-D 1x3x3/s1x2x2, depth folded into planes", DT_ALL, 5, {1, 2, 3, 8, 10}, {1, 3, 3}, {1, 2, 2}, {0},
     {0}, 0, 0, 0, MP2D(2, 2, 0, 0, 0)},
    {"whole-plane windows, Indices", DT_ALL, 4, {1, 3, 5, 6}, {5, 6}, {0}, {0}, {0}, 0, 1, 0,
     MP2D(1, 1, 1, 0, 0)},
    {"whole-plane windows, 1-byte types", DT_BYTES, 4, {1, 3, 5, 6}, {5, 6}, {0}, {0}, {0}, 0, 0, 0,
     MP2D(1, 1, 0, 0, 0)},
};

/* Whole planes without Indices: GlobalMaxPool's kernels. */
static const mp_case mp_whole[] = {
    {"whole-plane windows", DT_FLOATS, 4, {2, 3, 6, 7}, {6, 7}, {0}, {0}, {0}, 0, 0, 0, GLOBAL("direct", 1, 0)},
    {"whole-plane windows over long planes, two passes", DT_FLOATS, 4, {1, 2, 48, 48}, {48, 48}, {0}, {0}, {0},
     0, 0, 0, GLOBAL2(1, 0)},
};

/* The general kernel: rank as data, 8 outputs along the last dim per work-item. */
static const mp_case mp_general[] = {
    {"2-D 3x3 dilation 2", DT_ALL, 4, {1, 2, 10, 17}, {3, 3}, {0}, {2, 2}, {2, 2, 2, 2}, 0, 0, 0,
     MPND(2, 1, 0, 0)},
    {"2-D 3x3 dilation 2 Indices", DT_ALL, 4, {1, 2, 10, 17}, {3, 3}, {0}, {2, 2}, {2, 2, 2, 2}, 0, 1, 0,
     MPND(2, 1, 1, 0)},
    {"2-D 3x3/s3, column-major Indices, taps lane by lane", DT_ALL, 4, {1, 2, 11, 20}, {3, 3}, {3, 3}, {0},
     {0}, 0, 1, 1, MPND(2, 0, 1, 1)},
    {"2-D 15x4/s1x2, beyond 13", DT_ALL, 4, {1, 2, 17, 20}, {15, 4}, {1, 2}, {0}, {0}, 0, 0, 0,
     MPND(2, 2, 0, 0)},
    {"2-D 13x13 Indices, 1-byte types (169 taps)", DT_BYTES, 4, {1, 1, 13, 14}, {13, 13}, {0}, {0},
     {6, 6, 6, 6}, 0, 1, 0, MPND(2, 1, 1, 0)},
    {"3-D 2x3x3/s2, column-major Indices", DT_ALL, 5, {1, 2, 5, 7, 9}, {2, 3, 3}, {2, 2, 2}, {0}, {0}, 0, 1, 1,
     MPND(3, 2, 1, 1)},
    {"4-D 2x2x2x3/s1x1x2x1 Indices", DT_ALL, 6, {1, 1, 3, 4, 4, 9}, {2, 2, 2, 3}, {1, 1, 2, 1}, {0}, {0}, 0, 1,
     0, MPND(4, 1, 1, 0)},
    {"6-D 2x1x2x1x2x3", DT_ALL, 8, {1, 1, 2, 3, 2, 3, 3, 10}, {2, 1, 2, 1, 2, 3}, {0}, {0}, {0}, 0, 0, 0,
     MPND(6, 1, 0, 0)},
};

/* 3-D windows in two 2-D passes: (h, w) windows, then d windows over rows of OH*OW. */
static const mp_case mp_3d[] = {
    {"3-D 3x3x3/s2/p1, two passes", DT_ALL, 5, {1, 2, 7, 9, 11}, {3, 3, 3}, {2, 2, 2}, {0}, {1, 1, 1, 1, 1, 1},
     0, 0, 0, MP2D(2, 2, 0, 0, 0) " + " MP2D(2, 1, 0, 0, 0)},
    {"3-D 3x3x3/s2/p1 Indices, two passes (index map)", DT_ALL, 5, {1, 2, 7, 9, 11}, {3, 3, 3}, {2, 2, 2}, {0},
     {1, 1, 1, 1, 1, 1}, 0, 1, 0, MP2D(2, 2, 1, 0, 0) " + " MP2D(2, 1, 1, 0, 1)},
    {"3-D 2x3x3/s1x3x3 Indices, two passes, general first", DT_ALL, 5, {1, 2, 4, 9, 10}, {2, 3, 3}, {1, 3, 3},
     {0}, {0}, 0, 1, 0, MPND(2, 0, 1, 0) " + " MP2D(1, 1, 1, 0, 1)},
    {"3-D 3x2x2/s3x2x2, two passes, general second", DT_ALL, 5, {1, 2, 7, 6, 8}, {3, 2, 2}, {3, 2, 2}, {0},
     {0}, 0, 0, 0, MP2D(2, 2, 0, 0, 0) " + " MPND(2, 1, 0, 0)},
    {"3-D 3x2x2/s3x2x2 Indices, general kernel", DT_ALL, 5, {1, 2, 7, 6, 8}, {3, 2, 2}, {3, 2, 2}, {0}, {0}, 0,
     1, 0, MPND(3, 2, 1, 0)},
};

static void mp_params(const mp_case *c, clpool_maxpool_params *p)
{
    const int32_t ns = c->rank - 2;
    ck_assert_int_eq(clpool_maxpool_params_init(p, ns, c->kernel), CLPOOL_SUCCESS);
    for (int32_t i = 0; i < ns; ++i) {
        if (c->strides[i]) p->strides[i] = c->strides[i];
        if (c->dilations[i]) p->dilations[i] = c->dilations[i];
        p->pads[i] = c->pads[i];
        p->pads[ns + i] = c->pads[ns + i];
    }
    p->ceil_mode = c->ceil_mode;
    p->storage_order = c->storage_order;
}

/* One case on one input: launches, values and Indices against ref_maxpool. */
static void mp_run(const mp_case *c, clpool_dtype dt, const void *input, size_t in_lead, const char *desc)
{
    clpool_maxpool_params p;
    mp_params(c, &p);
    clpool_shape in_shape = {c->rank, {0}}, out_shape, ref_shape;
    memcpy(in_shape.dims, c->dims, sizeof c->dims);
    char why[200] = "";
    ck_assert_msg(ref_maxpool_shape(&in_shape, &p, &ref_shape, NULL, why, sizeof why) == 0, "%s: %s", desc, why);
    cu_assert_ok(clpool_maxpool_output_shape(&in_shape, &p, &out_shape), "clpool_maxpool_output_shape", desc);
    cu_assert_shape_eq(&out_shape, &ref_shape, desc);
    const size_t es = ref_dtype_size(dt);
    const int64_t n_in = ref_shape_elements(&in_shape), n_out = ref_shape_elements(&out_shape);
    void *want = malloc((size_t)n_out * es);
    int64_t *want_idx = malloc((size_t)n_out * sizeof *want_idx);
    ck_assert(want && want_idx);
    ck_assert_int_eq(ref_maxpool(dt, &in_shape, &p, input, want, want_idx), 0);

    const size_t out_lead = 2 * es, idx_lead = 8, out_bytes = (size_t)n_out * es, idx_bytes = (size_t)n_out * 8;
    cl_mem in = tight_buffer(in_lead, input, (size_t)n_in * es);
    unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
    cl_mem out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
    free(img);
    cl_mem idx = NULL;
    if (c->indices) {
        img = cu_sentinel_image(idx_lead, NULL, idx_bytes);
        idx = cu_buffer_from(img, CU_IMAGE_BYTES(idx_lead, idx_bytes));
        free(img);
    }
    cl_event ev = NULL;
    paths_start(dt);
    finish(clpool_enqueue_maxpool(cu_ctx, NULL, &p, dt, &in_shape, in, in_lead, out, out_lead, idx, idx_lead, 0,
                                  NULL, &ev),
           &ev, desc);
    paths_check(c->expect, desc);
    unsigned char *got = read_output(out, out_lead, out_bytes, "output", desc);
    for (int64_t i = 0; i < n_out; ++i)
        cu_expect(same_bits(dt, ref_load_bits(dt, got + out_lead, i), ref_load_bits(dt, want, i)),
                  "%s: output %lld is 0x%llx, expected 0x%llx", desc, (long long)i,
                  (unsigned long long)ref_load_bits(dt, got + out_lead, i),
                  (unsigned long long)ref_load_bits(dt, want, i));
    free(got);
    if (idx) {
        got = read_output(idx, idx_lead, idx_bytes, "indices", desc);
        for (int64_t i = 0; i < n_out; ++i) {
            int64_t v;
            memcpy(&v, got + idx_lead + 8 * i, sizeof v);
            ck_assert_msg(v == want_idx[i], "%s: index %lld is %lld, expected %lld", desc, (long long)i,
                          (long long)v, (long long)want_idx[i]);
        }
        free(got);
        clReleaseMemObject(idx);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(want);
    free(want_idx);
}

/* One run in a new clpool context over the fixture's OpenCL objects with tiers on: the first call of every key. */
static void mp_run_first_call(const mp_case *c, clpool_dtype dt, const void *input, size_t in_lead, const char *desc)
{
    clpool_context *fixture = cu_ctx, *tiered = NULL;
    setenv("CLPOOL_TIERED", "1", 1);
    cu_assert_ok(clpool_context_create_from_cl(clpool_context_cl_context(fixture), clpool_context_cl_device(fixture),
                                               clpool_context_cl_queue(fixture), &tiered),
                 "clpool_context_create_from_cl", desc);
    setenv("CLPOOL_TIERED", "0", 1);
    cu_ctx = tiered;
    mp_run(c, dt, input, in_lead, desc);
    cu_ctx = fixture;
    clpool_context_release(tiered);
}

/* Every case on each of its dtypes, a clean and a special input each,
 * through the fixture's context or (first_calls) a new tiered one per run. */
static void mp_cases_run_with(const mp_case *cases, size_t n_cases, int first_calls, uint64_t seed)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, seed);
    for (size_t i = 0; i < n_cases; ++i) {
        const mp_case *c = &cases[i];
        for (size_t d = 0; d < sizeof cu_maxpool_dtypes / sizeof cu_maxpool_dtypes[0]; ++d) {
            const clpool_dtype dt = cu_maxpool_dtypes[d];
            if (!(c->dtypes >> d & 1) || !cu_dtype_runs(dt, c->name)) continue;
            clpool_shape shape = {c->rank, {0}};
            memcpy(shape.dims, c->dims, sizeof c->dims);
            const int64_t n = ref_shape_elements(&shape);
            void *input = malloc((size_t)n * ref_dtype_size(dt));
            ck_assert_ptr_nonnull(input);
            for (int special = 0; special < 2; ++special) {
                char desc[200];
                snprintf(desc, sizeof desc, "MaxPool %s, %s, %s input", c->name, clpool_dtype_name(dt),
                         special ? "NaN/inf/-0" : "clean");
                fill(&r, dt, input, n, special);
                /* the first at offset 0: its first block's loads start at the buffer's start */
                (first_calls ? mp_run_first_call : mp_run)(c, dt, input, special ? 3 * ref_dtype_size(dt) : 0, desc);
            }
            free(input);
        }
    }
}

static void mp_cases_run(const mp_case *cases, size_t n_cases) { mp_cases_run_with(cases, n_cases, 0, 42); }

#define RUN_CASES(run, cases) run(cases, sizeof cases / sizeof cases[0])

START_TEST(maxpool_2d_kernel) { RUN_CASES(mp_cases_run, mp_2d); }
END_TEST

START_TEST(maxpool_whole_planes) { RUN_CASES(mp_cases_run, mp_whole); }
END_TEST

START_TEST(maxpool_general_kernel) { RUN_CASES(mp_cases_run, mp_general); }
END_TEST

START_TEST(maxpool_3d_two_passes) { RUN_CASES(mp_cases_run, mp_3d); }
END_TEST

/* MaxPool's first tier (CLPOOL_TIERED=1): each run is the first call of a
 * new clpool context over the fixture's OpenCL objects, so window_first_tier
 * answers it, on 1-, 2-, 3- and 6-D windows with and without Indices. */
static const mp_case mp_first_tier[] = {
    {"1-D 3/s2/p1 Indices, first tier", DT_ALL, 3, {1, 3, 21}, {3}, {2}, {0}, {1, 1}, 0, 1, 0, "window_first_tier OP=1"},
    {"2-D 3x3 dilation 2, ceil, first tier", DT_ALL, 4, {1, 2, 10, 17}, {3, 3}, {2, 3}, {2, 2}, {2, 2, 2, 2}, 1, 0, 0,
     "window_first_tier OP=1"},
    {"3-D 2x3x3/s2 column-major Indices, first tier", DT_ALL, 5, {1, 2, 5, 7, 9}, {2, 3, 3}, {2, 2, 2}, {0}, {0}, 0,
     1, 1, "window_first_tier OP=1"},
    {"6-D 2x1x2x1x2x3 Indices, first tier", DT_ALL, 8, {1, 1, 2, 3, 2, 3, 3, 10}, {2, 1, 2, 1, 2, 3}, {0}, {0}, {0},
     0, 1, 0, "window_first_tier OP=1"},
};

START_TEST(maxpool_first_tier) { mp_cases_run_with(mp_first_tier, sizeof mp_first_tier / sizeof mp_first_tier[0], 1, 43); }
END_TEST

/* -------------------------------------------------------- global pools */

typedef enum gp_op { GP_MAX, GP_AVG, GP_LP } gp_op;

/* Each op with the OP and LP_KIND its programs are built with. */
static const struct {
    const char *name;
    gp_op op;
    double p;
    const char *direct, *two_pass; /* the launches expected */
} gp_ops[] = {
    {"GlobalMaxPool", GP_MAX, 0, GLOBAL("direct", 1, 0), GLOBAL2(1, 0)},
    {"GlobalAveragePool", GP_AVG, 0, GLOBAL("direct", 2, 0), GLOBAL2(2, 0)},
    {"GlobalLpPool p=1", GP_LP, 1, GLOBAL("direct", 3, 1), GLOBAL2(3, 1)},
    {"GlobalLpPool p=2", GP_LP, 2, GLOBAL("direct", 3, 2), GLOBAL2(3, 2)},
    {"GlobalLpPool p=3 (by squaring)", GP_LP, 3, GLOBAL("direct", 3, 3), GLOBAL2(3, 3)},
    {"GlobalLpPool p=2.5 (pow)", GP_LP, 2.5, GLOBAL("direct", 3, 0), GLOBAL2(3, 0)},
};

/* A work-item per plane where planes are short (plain 16-lane sums up to 256
 * elements, Kahan-added blocks beyond) or fill the device; else two passes,
 * lanes interleaved (Oclgrind: 1 compute unit x 64 x 4 = 256 work-items wanted). */
static const struct {
    const char *name;
    clpool_shape shape;
    int two_pass;
} gp_shapes[] = {
    {"7x7 planes", {4, {2, 3, 7, 7}}, 0},
    {"rank-5 planes of 1640", {5, {1, 4, 4, 10, 41}}, 0},
    {"4 planes of 3300, two passes", {4, {2, 2, 3, 1100}}, 1},
};

/* Plane j % 4: values in [-1, 1]; with a NaN; at most 0 with both zeros
 * (the first zero's sign must win GlobalMaxPool); with +inf. */
static void gp_fill(ref_rng *r, clpool_dtype dt, void *data, int64_t planes, int64_t size)
{
    for (int64_t j = 0; j < planes; ++j) {
        const int kind = (int)(j % 4);
        const int64_t special = ref_rng_range(r, 0, size - 1);
        for (int64_t i = 0; i < size; ++i) {
            double v = ref_rng_unit(r) * 2 - 1;
            if (kind == 2) v = ref_rng_chance(r, 0.1) ? (ref_rng_chance(r, 0.5) ? -0.0 : 0.0) : -fabs(v) - 0.5;
            ref_store(dt, data, j * size + i, v);
        }
        if (kind == 1) ref_store_bits(dt, data, j * size + special, cu_nan_patterns(dt)[j % CU_N_NAN]);
        if (kind == 2) ref_store(dt, data, j * size + special / 2, -0.0);
        if (kind == 3) ref_store(dt, data, j * size + special, INFINITY);
    }
}

static void gp_run(size_t o, size_t s, clpool_dtype dt, const void *input, const char *desc)
{
    const clpool_shape *shape = &gp_shapes[s].shape;
    const int64_t n = ref_shape_elements(shape), planes = shape->dims[0] * shape->dims[1];
    const size_t es = ref_dtype_size(dt), in_lead = 5 * es, out_lead = 3 * es, out_bytes = (size_t)planes * es;
    cl_mem in = tight_buffer(in_lead, input, (size_t)n * es);
    unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
    cl_mem out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
    free(img);
    cl_event ev = NULL;
    clpool_status st;
    paths_start(dt);
    if (gp_ops[o].op == GP_MAX)
        st = clpool_enqueue_global_max_pool(cu_ctx, NULL, dt, shape, in, in_lead, out, out_lead, 0, NULL, &ev);
    else if (gp_ops[o].op == GP_AVG)
        st = clpool_enqueue_global_average_pool(cu_ctx, NULL, dt, shape, in, in_lead, out, out_lead, 0, NULL, &ev);
    else
        st = clpool_enqueue_global_lp_pool(cu_ctx, NULL, gp_ops[o].p, dt, shape, in, in_lead, out, out_lead, 0, NULL,
                                           &ev);
    finish(st, &ev, desc);
    paths_check(gp_shapes[s].two_pass ? gp_ops[o].two_pass : gp_ops[o].direct, desc);
    unsigned char *got = read_output(out, out_lead, out_bytes, "output", desc);
    uint64_t want_bits[16];
    double want[16], scale[16] = {0};
    ck_assert(planes <= 16);
    if (gp_ops[o].op == GP_MAX)
        ck_assert_int_eq(ref_global_max_pool(dt, shape, input, want_bits), 0);
    else if (gp_ops[o].op == GP_AVG)
        ck_assert_int_eq(ref_global_average_pool(dt, shape, input, want, scale), 0);
    else
        ck_assert_int_eq(ref_global_lp_pool(dt, shape, gp_ops[o].p, input, want), 0);
    for (int64_t j = 0; j < planes; ++j) {
        if (gp_ops[o].op == GP_MAX) {
            cu_expect(same_bits(dt, ref_load_bits(dt, got + out_lead, j), ref_load_bits(dt, want_bits, j)),
                      "%s: plane %lld is 0x%llx, expected 0x%llx", desc, (long long)j,
                      (unsigned long long)ref_load_bits(dt, got + out_lead, j),
                      (unsigned long long)ref_load_bits(dt, want_bits, j));
            continue;
        }
        const double g = ref_load(dt, got + out_lead, j), w = want[j];
        const double bound = cu_global_pool_tolerance(dt) * fmax(fmax(fabs(w), scale[j]), cu_smallest_normal(dt));
        const int ok = isnan(w) ? isnan(g) : isinf(w) ? g == w : fabs(g - w) <= bound;
        ck_assert_msg(ok, "%s: plane %lld is %.17g, expected %.17g (bound %.3g)", desc, (long long)j, g, w, bound);
    }
    free(got);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}

/* ------------------------------------------------------ AveragePool, LpPool */

/* AveragePool and LpPool on the GPU-type device: each p kind and the last dim's stride classes through
 * sum_pool_2d (2-D windows, one with two groups of rows), sum_pool_3d and sum_pool_nd, a general p
 * through the first tier's kernel; pads in and out of the divisor, NaN and inf. */
static const struct sp_case {
    const char *name;
    double p; /* 0: AveragePool, else LpPool's p */
    int32_t count_include_pad, rank;
    int64_t dims[5], kernel[3], strides[3], pads[6];
    const char *path;
} sp_cases[] = {
    {"AveragePool 3x3/s1/p1", 0, 0, 4, {1, 3, 9, 21}, {3, 3}, {1, 1}, {1, 1, 1, 1},
     "sum_pool_2d OP=2 LP_KIND=0 SH=1 SW=1"},
    {"AveragePool 5x5/s3x2 count_include_pad", 0, 1, 4, {1, 2, 17, 23}, {5, 5}, {3, 2}, {2, 2, 2, 2},
     "sum_pool_2d OP=2 LP_KIND=0 SH=3 SW=2"},
    {"AveragePool 2x2x2/s2 count_include_pad", 0, 1, 5, {1, 2, 5, 6, 19}, {2, 2, 2}, {2, 2, 2}, {1, 0, 1, 0, 1, 1},
     "sum_pool_3d OP=2 LP_KIND=0 SD=2 SH=2 SW=2"},
    {"LpPool p=1 5/s3", 1, 0, 3, {2, 2, 40}, {5}, {3}, {2, 2}, "sum_pool_nd OP=3 LP_KIND=1 NS=1 SW=0"},
    {"LpPool p=2 3x3/s2", 2, 0, 4, {1, 2, 11, 17}, {3, 3}, {2, 2}, {0}, "sum_pool_2d OP=3 LP_KIND=2 SH=2 SW=2"},
    {"LpPool p=3 2x3/s1", 3, 0, 4, {1, 2, 7, 13}, {2, 3}, {1, 1}, {0, 1, 0, 1}, "sum_pool_2d OP=3 LP_KIND=3 SH=1 SW=1"},
    {"LpPool p=1.5 (pow) 3x3", 1.5, 0, 4, {1, 2, 6, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, "window_first_tier OP=3"},
};

START_TEST(sum_pools)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 11);
    for (size_t i = 0; i < sizeof sp_cases / sizeof sp_cases[0]; ++i) {
        const struct sp_case *c = &sp_cases[i];
        const int lp = c->p != 0;
        for (size_t d = 0; d < 4; ++d) {
            const clpool_dtype dt = cu_float_dtypes[d];
            if (!cu_dtype_runs(dt, c->name)) continue;
            clpool_shape shape = {c->rank, {0}};
            memcpy(shape.dims, c->dims, sizeof c->dims);
            const int32_t ns = c->rank - 2;
            clpool_window_params w;
            ck_assert_int_eq(clpool_window_params_init(&w, ns, c->kernel), CLPOOL_SUCCESS);
            memcpy(w.strides, c->strides, (size_t)ns * sizeof(int64_t));
            memcpy(w.pads, c->pads, (size_t)(2 * ns) * sizeof(int64_t));
            clpool_average_pool_params avg;
            clpool_lp_pool_params lpp;
            ck_assert_int_eq(clpool_average_pool_params_init(&avg, ns, c->kernel), CLPOOL_SUCCESS);
            ck_assert_int_eq(clpool_lp_pool_params_init(&lpp, ns, c->kernel), CLPOOL_SUCCESS);
            avg.window = lpp.window = w;
            avg.count_include_pad = c->count_include_pad;
            lpp.p = c->p;
            clpool_shape out_shape;
            ck_assert_int_eq(lp ? clpool_lp_pool_output_shape(&shape, &lpp, &out_shape)
                                : clpool_average_pool_output_shape(&shape, &avg, &out_shape),
                             CLPOOL_SUCCESS);
            const int64_t n = ref_shape_elements(&shape), n_out = ref_shape_elements(&out_shape);
            const size_t es = ref_dtype_size(dt), in_lead = 3 * es, out_lead = 5 * es, out_bytes = (size_t)n_out * es;
            void *input = malloc((size_t)n * es);
            double *want = malloc((size_t)n_out * sizeof *want), *scale = malloc((size_t)n_out * sizeof *scale);
            ck_assert(input && want && scale);
            for (int special = 0; special < 2; ++special) {
                char desc[160];
                snprintf(desc, sizeof desc, "%s, %s, %s input", c->name, clpool_dtype_name(dt),
                         special ? "NaN/inf" : "clean");
                for (int64_t e = 0; e < n; ++e) ref_store(dt, input, e, (double)ref_rng_range(&r, -999, 999) / 64.0);
                if (special) {
                    ref_store_bits(dt, input, n / 3, cu_nan_patterns(dt)[0]);
                    ref_store(dt, input, 2 * n / 3, INFINITY);
                }
                cl_mem in = tight_buffer(in_lead, input, (size_t)n * es);
                unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
                cl_mem out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
                free(img);
                cl_event ev = NULL;
                paths_start(dt);
                const clpool_status st =
                    lp ? clpool_enqueue_lp_pool(cu_ctx, NULL, &lpp, dt, &shape, in, in_lead, out, out_lead, 0, NULL, &ev)
                       : clpool_enqueue_average_pool(cu_ctx, NULL, &avg, dt, &shape, in, in_lead, out, out_lead, 0, NULL,
                                                     &ev);
                finish(st, &ev, desc);
                paths_check(c->path, desc);
                unsigned char *got = read_output(out, out_lead, out_bytes, "output", desc);
                ck_assert_int_eq(ref_sum_pool(dt, &shape, &w, c->count_include_pad, lp, c->p, input, want, scale), 0);
                for (int64_t j = 0; j < n_out; ++j) {
                    const double g = ref_load(dt, got + out_lead, j), wv = want[j];
                    const double bound =
                        cu_global_pool_tolerance(dt) * fmax(fmax(fabs(wv), lp ? 0.0 : scale[j]), cu_smallest_normal(dt));
                    const int ok = isnan(wv) ? isnan(g) : isinf(wv) ? g == wv : fabs(g - wv) <= bound;
                    ck_assert_msg(ok, "%s: output %lld is %.17g, expected %.17g (bound %.3g)", desc, (long long)j, g, wv,
                                  bound);
                }
                free(got);
                clReleaseMemObject(in);
                clReleaseMemObject(out);
            }
            free(input), free(want), free(scale);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ views */

/* Channels-last views on the GPU-type device (a block of VW channels per work-item, C = 11 so that the
 * last block overlaps its neighbour): MaxPool with column-major Indices in every dtype, AveragePool
 * with count_include_pad and LpPool p = 2 in the float dtypes, against the C references on the same
 * values in N x C x H x W order. */
START_TEST(channels_last_views)
{
    require_gpu();
    enum { N = 2, C = 11, H = 7, W = 6 };
    const clpool_shape shape = {4, {N, C, H, W}};
    const int64_t k[2] = {3, 3};
    ref_rng r;
    ref_rng_seed(&r, 17);
    for (int op = 0; op < 3; ++op) /* MaxPool, AveragePool, LpPool */
        for (size_t d = 0; d < (op ? 4 : sizeof cu_maxpool_dtypes / sizeof cu_maxpool_dtypes[0]); ++d) {
            const clpool_dtype dt = op ? cu_float_dtypes[d] : cu_maxpool_dtypes[d];
            if (!cu_dtype_runs(dt, "channels-last views")) continue;
            char desc[160];
            snprintf(desc, sizeof desc, "%s channels-last, %s", op == 0 ? "MaxPool" : op == 1 ? "AveragePool" : "LpPool",
                     clpool_dtype_name(dt));
            clpool_maxpool_params mp;
            ck_assert_int_eq(clpool_maxpool_params_init(&mp, 2, k), CLPOOL_SUCCESS);
            mp.strides[0] = mp.strides[1] = 2;
            mp.pads[0] = mp.pads[1] = mp.pads[2] = mp.pads[3] = 1;
            mp.storage_order = 1;
            clpool_window_params w;
            ck_assert_int_eq(clpool_window_params_init(&w, 2, k), CLPOOL_SUCCESS);
            memcpy(w.strides, mp.strides, sizeof w.strides);
            memcpy(w.pads, mp.pads, sizeof w.pads);
            clpool_average_pool_params avg;
            clpool_lp_pool_params lp;
            ck_assert_int_eq(clpool_average_pool_params_init(&avg, 2, k), CLPOOL_SUCCESS);
            ck_assert_int_eq(clpool_lp_pool_params_init(&lp, 2, k), CLPOOL_SUCCESS);
            avg.window = lp.window = w;
            avg.count_include_pad = 1;
            clpool_shape out_shape;
            cu_assert_ok(clpool_maxpool_output_shape(&shape, &mp, &out_shape), "clpool_maxpool_output_shape", desc);
            const size_t es = ref_dtype_size(dt);
            const int64_t n_in = ref_shape_elements(&shape), n_out = ref_shape_elements(&out_shape),
                          oh = out_shape.dims[2], ow = out_shape.dims[3];
            unsigned char *x = malloc((size_t)n_in * es), *xt = malloc((size_t)n_in * es), *want = malloc((size_t)n_out * es);
            int64_t *want_idx = malloc((size_t)n_out * 8);
            double *wantd = malloc((size_t)n_out * sizeof *wantd), *scale = malloc((size_t)n_out * sizeof *scale);
            ck_assert(x && xt && want && want_idx && wantd && scale);
            fill(&r, dt, x, n_in, 1);
            for (int64_t e = 0; e < n_in; ++e) { /* e in N x C x H x W order to its N x H x W x C place */
                const int64_t wi = e % W, hi = e / W % H, c = e / (W * H) % C, n = e / (W * H * C);
                memcpy(xt + (size_t)(((n * H + hi) * W + wi) * C + c) * es, x + (size_t)e * es, es);
            }
            if (op == 0) ck_assert_int_eq(ref_maxpool(dt, &shape, &mp, x, want, want_idx), 0);
            else ck_assert_int_eq(ref_sum_pool(dt, &shape, &w, 1, op == 2, 2.0, x, wantd, scale), 0);
            const size_t out_lead = 3 * es, out_bytes = (size_t)n_out * es, idx_bytes = (size_t)n_out * 8;
            cl_mem in = tight_buffer(0, xt, (size_t)n_in * es);
            unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
            cl_mem out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
            free(img);
            img = cu_sentinel_image(8, NULL, idx_bytes);
            cl_mem idx = cu_buffer_from(img, CU_IMAGE_BYTES(8, idx_bytes));
            free(img);
            clpool_view vin, vout, vidx;
            cu_assert_ok(clpool_view_channels_last(&vin, in, 0, &shape), "clpool_view_channels_last", desc);
            cu_assert_ok(clpool_view_channels_last(&vout, out, out_lead, &out_shape), "clpool_view_channels_last", desc);
            cu_assert_ok(clpool_view_channels_last(&vidx, idx, 8, &out_shape), "clpool_view_channels_last", desc);
            cl_event ev = NULL;
            paths_start(dt);
            const clpool_status st =
                op == 0   ? clpool_enqueue_maxpool_view(cu_ctx, NULL, &mp, dt, &vin, &vout, &vidx, 0, NULL, &ev)
                : op == 1 ? clpool_enqueue_average_pool_view(cu_ctx, NULL, &avg, dt, &vin, &vout, 0, NULL, &ev)
                          : clpool_enqueue_lp_pool_view(cu_ctx, NULL, &lp, dt, &vin, &vout, 0, NULL, &ev);
            finish(st, &ev, desc);
            paths_check(op == 0 ? "window_channels_last OP=1 LP_KIND=0" : op == 1 ? "window_channels_last OP=2 LP_KIND=0"
                                                                       : "window_channels_last OP=3 LP_KIND=2",
                        desc);
            unsigned char *got = read_output(out, out_lead, out_bytes, "output", desc);
            unsigned char *got_idx = op == 0 ? read_output(idx, 8, idx_bytes, "indices", desc) : NULL;
            for (int64_t e = 0; e < n_out; ++e) { /* e in N x C x OH x OW order, its place N x OH x OW x C */
                const int64_t wi = e % ow, hi = e / ow % oh, c = e / (ow * oh) % C, n = e / (ow * oh * C);
                const int64_t at = ((n * oh + hi) * ow + wi) * C + c;
                if (op == 0) {
                    cu_expect(same_bits(dt, ref_load_bits(dt, got + out_lead, at), ref_load_bits(dt, want, e)),
                              "%s: output %lld differs", desc, (long long)e);
                    int64_t v;
                    memcpy(&v, got_idx + 8 + 8 * at, sizeof v);
                    cu_expect(v == want_idx[e], "%s: index %lld is %lld, expected %lld", desc, (long long)e,
                              (long long)v, (long long)want_idx[e]);
                } else {
                    const double g = ref_load(dt, got + out_lead, at), wv = wantd[e];
                    const double bound = cu_global_pool_tolerance(dt) *
                                         fmax(fmax(fabs(wv), op == 2 ? 0.0 : scale[e]), cu_smallest_normal(dt));
                    cu_expect(isnan(wv) ? isnan(g) : isinf(wv) ? g == wv : fabs(g - wv) <= bound,
                              "%s: output %lld is %.17g, expected %.17g", desc, (long long)e, g, wv);
                }
            }
            free(got), free(got_idx);
            clReleaseMemObject(in), clReleaseMemObject(out), clReleaseMemObject(idx);
            free(x), free(xt), free(want), free(want_idx), free(wantd), free(scale);
        }
}
END_TEST

/* MaxUnpool on the GPU-type device: zero, then scatter (an X element per work-item). MaxPool's Indices of
 * overlapping windows repeat an index with one value (the writes Oclgrind's race check lets through as
 * uniform); some indices outside their plane, counted; an output_shape whose indices are remapped. */
static const struct mu_case {
    const char *name;
    int64_t dims[4], k, s, p; /* MaxPool's input (the output) and its square window */
    int bad, remap;          /* break every 7th index; read indices in the inferred shape */
} mu_cases[] = {
    {"3x3/s2/p1 round trip", {1, 3, 11, 9}, 3, 2, 1, 0, 0},
    {"2x2/s2 with bad indices", {2, 2, 8, 6}, 2, 2, 0, 1, 0},
    {"3x3/s3 into a larger output, remapped", {1, 2, 10, 10}, 3, 3, 0, 1, 1},
};

START_TEST(max_unpool)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 13);
    for (size_t i = 0; i < sizeof mu_cases / sizeof mu_cases[0]; ++i) {
        const struct mu_case *c = &mu_cases[i];
        for (size_t d = 0; d < sizeof cu_maxpool_dtypes / sizeof cu_maxpool_dtypes[0]; ++d) {
            const clpool_dtype dt = cu_maxpool_dtypes[d];
            if (!cu_dtype_runs(dt, c->name)) continue;
            char desc[160];
            snprintf(desc, sizeof desc, "%s, %s", c->name, clpool_dtype_name(dt));
            const clpool_shape in_shape = {4, {c->dims[0], c->dims[1], c->dims[2], c->dims[3]}};
            const int64_t k2[2] = {c->k, c->k};
            clpool_maxpool_params mp;
            ck_assert_int_eq(clpool_maxpool_params_init(&mp, 2, k2), CLPOOL_SUCCESS);
            for (int a = 0; a < 2; ++a) mp.strides[a] = c->s, mp.pads[a] = mp.pads[2 + a] = c->p;
            clpool_shape xs;
            ck_assert_int_eq(clpool_maxpool_output_shape(&in_shape, &mp, &xs), CLPOOL_SUCCESS);
            const size_t es = ref_dtype_size(dt), n_in = (size_t)ref_shape_elements(&in_shape);
            const size_t n_x = (size_t)ref_shape_elements(&xs);
            unsigned char *input = malloc(n_in * es), *x = malloc(n_x * es), *want = malloc(n_in * es + 64);
            int64_t *idx = malloc(n_x * 8);
            fill(&r, dt, input, (int64_t)n_in, 0);
            ck_assert_int_eq(ref_maxpool(dt, &in_shape, &mp, input, x, idx), 0);
            for (size_t e = 0; c->bad && e < n_x; e += 7) idx[e] = e % 2 ? -5 : (int64_t)n_in + 3;
            clpool_max_unpool_params p;
            ck_assert_int_eq(clpool_max_unpool_params_init(&p, 2, k2), CLPOOL_SUCCESS);
            for (int a = 0; a < 2; ++a) p.window.strides[a] = c->s, p.window.pads[a] = p.window.pads[2 + a] = c->p;
            p.has_output_shape = 1;
            p.output_shape = in_shape;
            p.indices = c->remap ? CLPOOL_UNPOOL_INDICES_INFERRED : CLPOOL_UNPOOL_INDICES_OUTPUT;
            clpool_shape index_space = in_shape;
            if (c->remap)
                for (int a = 0; a < 2; ++a) index_space.dims[2 + a] = (xs.dims[2 + a] - 1) * c->s + c->k - 2 * c->p;
            const int64_t skipped = ref_max_unpool(dt, &xs, x, idx, &index_space, &in_shape, want);
            ck_assert_int_ge(skipped, 0);
            const size_t x_lead = 3 * es, out_lead = 5 * es, out_bytes = n_in * es;
            const uint32_t zero = 0;
            cl_mem xm = tight_buffer(x_lead, x, n_x * es), im = tight_buffer(8, idx, n_x * 8);
            cl_mem sm = tight_buffer(4, &zero, sizeof zero);
            unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
            cl_mem out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
            free(img);
            cl_event ev = NULL;
            paths_start(dt);
            const clpool_status st = clpool_enqueue_max_unpool(cu_ctx, NULL, &p, dt, &xs, xm, x_lead, im, 8, out,
                                                               out_lead, sm, 4, 0, NULL, &ev);
            finish(st, &ev, desc);
            paths_check("max_unpool_zero + max_unpool_scatter", desc);
            unsigned char *got = read_output(out, out_lead, out_bytes, "output", desc);
            ck_assert_msg(memcmp(got + out_lead, want, out_bytes) == 0, "%s: the output differs from the reference",
                          desc);
            uint32_t count[2];
            cu_read_back(clpool_context_cl_queue(cu_ctx), sm, count, sizeof count, desc);
            ck_assert_msg(count[1] == (uint32_t)skipped, "%s: %u skipped, the reference %lld", desc, count[1],
                          (long long)skipped);
            free(got), free(input), free(x), free(want), free(idx);
            clReleaseMemObject(xm), clReleaseMemObject(im), clReleaseMemObject(sm), clReleaseMemObject(out);
        }
    }
}
END_TEST

START_TEST(global_pools)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 7);
    for (size_t d = 0; d < 4; ++d) {
        const clpool_dtype dt = cu_float_dtypes[d];
        if (!cu_dtype_runs(dt, "global pool")) continue;
        for (size_t s = 0; s < sizeof gp_shapes / sizeof gp_shapes[0]; ++s) {
            const clpool_shape *shape = &gp_shapes[s].shape;
            const int64_t n = ref_shape_elements(shape), planes = shape->dims[0] * shape->dims[1];
            void *input = malloc((size_t)n * ref_dtype_size(dt));
            ck_assert_ptr_nonnull(input);
            gp_fill(&r, dt, input, planes, n / planes);
            for (size_t o = 0; o < sizeof gp_ops / sizeof gp_ops[0]; ++o) {
                char desc[200];
                snprintf(desc, sizeof desc, "%s, %s, %s", gp_ops[o].name, clpool_dtype_name(dt), gp_shapes[s].name);
                gp_run(o, s, dt, input, desc);
            }
            free(input);
        }
    }
}
END_TEST

/* ----------------------------------------------------------------- Max */

#define MX_MAX_INPUTS 9

/* The host merges dims contiguous for every input and drops 1s (g.out_dims, right-aligned); an
 * input of a pass is contiguous along the innermost dim or one element
 * broadcast to every lane (bit k of the run-time g.inner_mask); passes after
 * the first take the output as input 0 and three more. */
static const struct {
    const char *name;
    size_t n;
    clpool_shape shapes[MX_MAX_INPUTS];
    int in_place; /* the output is input 0's region */
    const char *expect;
} mx_cases[] = {
    {"1 input", 1, {{2, {3, 37}}}, 0, "max_of_1"},
    {"2 inputs of one shape, flat", 2, {{3, {2, 3, 29}}, {3, {2, 3, 29}}}, 0, "max_of_2"},
    {"3 inputs, a scalar among them", 3, {{2, {4, 45}}, {0, {0}}, {2, {4, 45}}}, 0,
     "max_of_3"},
    {"rows and columns broadcast", 3, {{2, {6, 20}}, {1, {20}}, {2, {6, 1}}}, 0, "max_of_3"},
    {"4 inputs, general broadcast", 4, {{4, {2, 1, 5, 19}}, {3, {3, 1, 1}}, {4, {1, 3, 5, 1}}, {1, {19}}}, 0,
     "max_of_4"},
    {"rows shorter than a block", 2, {{2, {5, 3}}, {2, {5, 1}}}, 0, "max_of_2"},
    {"5 inputs, two passes", 5, {{2, {3, 21}}, {2, {3, 21}}, {2, {3, 21}}, {2, {3, 21}}, {2, {3, 21}}}, 0,
     "max_of_4 + max_of_2"},
    {"9 inputs broadcast, three passes", 9,
     {{2, {2, 17}}, {1, {17}}, {2, {2, 1}}, {0, {0}}, {2, {2, 17}}, {1, {17}}, {2, {2, 1}}, {2, {1, 17}}, {2, {2, 17}}},
     0, "max_of_4 + max_of_4 + max_of_3"},
    {"in place, 3 inputs", 3, {{2, {4, 33}}, {2, {4, 33}}, {2, {4, 33}}}, 1, "max_of_3"},
};

static void mx_run(size_t ci, clpool_dtype dt, ref_rng *r)
{
    const size_t n = mx_cases[ci].n, es = ref_dtype_size(dt);
    const clpool_shape *shapes = mx_cases[ci].shapes;
    char desc[200];
    snprintf(desc, sizeof desc, "Max %s, %s", mx_cases[ci].name, clpool_dtype_name(dt));
    clpool_shape out_shape;
    ck_assert_int_eq(ref_max_shape(n, shapes, &out_shape), 0);
    const int64_t n_out = ref_shape_elements(&out_shape);
    const size_t out_bytes = (size_t)n_out * es, out_lead = 4 * es;
    void *data[MX_MAX_INPUTS];
    cl_mem mems[MX_MAX_INPUTS];
    size_t offsets[MX_MAX_INPUTS];
    for (size_t i = 0; i < n; ++i) {
        const int64_t count = ref_shape_elements(&shapes[i]);
        data[i] = malloc((size_t)count * es + 1);
        ck_assert_ptr_nonnull(data[i]);
        fill(r, dt, data[i], count, 1);
        offsets[i] = (i % 3) * es; /* input 0 at offset 0: its first block starts at the buffer's start */
        mems[i] = tight_buffer(offsets[i], data[i], (size_t)count * es);
    }
    void *want = malloc(out_bytes);
    ck_assert_ptr_nonnull(want);
    ck_assert_int_eq(ref_max(dt, n, shapes, (const void *const *)data, want), 0);
    cl_mem out;
    size_t lead = out_lead;
    if (mx_cases[ci].in_place) { /* input 0 again, in a guarded image */
        unsigned char *img = cu_sentinel_image(out_lead, data[0], out_bytes);
        clReleaseMemObject(mems[0]);
        mems[0] = out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
        offsets[0] = out_lead;
        free(img);
    } else {
        unsigned char *img = cu_sentinel_image(out_lead, NULL, out_bytes);
        out = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_bytes));
        free(img);
    }
    cl_event ev = NULL;
    paths_start(dt);
    finish(clpool_enqueue_max(cu_ctx, NULL, dt, n, shapes, mems, offsets, out, lead, 0, NULL, &ev), &ev, desc);
    paths_check(mx_cases[ci].expect, desc);
    unsigned char *got = read_output(out, lead, out_bytes, "output", desc);
    for (int64_t i = 0; i < n_out; ++i)
        cu_expect(same_bits(dt, ref_load_bits(dt, got + lead, i), ref_load_bits(dt, want, i)),
                  "%s: output %lld is 0x%llx, expected 0x%llx", desc, (long long)i,
                  (unsigned long long)ref_load_bits(dt, got + lead, i),
                  (unsigned long long)ref_load_bits(dt, want, i));
    free(got);
    free(want);
    if (!mx_cases[ci].in_place) clReleaseMemObject(out);
    for (size_t i = 0; i < n; ++i) {
        clReleaseMemObject(mems[i]);
        free(data[i]);
    }
}

START_TEST(max_all_dtypes)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 11);
    for (size_t d = 0; d < 12; ++d) {
        if (!cu_dtype_runs(cu_all_dtypes[d], "Max")) continue;
        for (size_t c = 0; c < sizeof mx_cases / sizeof mx_cases[0]; ++c) mx_run(c, cu_all_dtypes[d], &r);
    }
}
END_TEST

/* Max on views (-DVIEW=1): a transposed input (its lanes gathered), a broadcast row, and a stepped
 * output (stored element by element), in every dtype; the output's gaps keep their guard bytes. */
START_TEST(max_views)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 12);
    const clpool_shape a_shape = {2, {3, 37}}, b_shape = {1, {37}};
    for (size_t d = 0; d < 12; ++d) {
        const clpool_dtype dt = cu_all_dtypes[d];
        if (!cu_dtype_runs(dt, "Max on views")) continue;
        char desc[96];
        snprintf(desc, sizeof desc, "Max on views, %s", clpool_dtype_name(dt));
        const size_t es = ref_dtype_size(dt);
        unsigned char a[3 * 37 * 8], b[37 * 8], a_t[3 * 37 * 8], want[3 * 37 * 8];
        fill(&r, dt, a, 3 * 37, 1);
        fill(&r, dt, b, 37, 1);
        for (int i = 0; i < 3; ++i) /* stored transposed: element (i, j) at j * 3 + i */
            for (int j = 0; j < 37; ++j) memcpy(a_t + (size_t)(j * 3 + i) * es, a + (size_t)(i * 37 + j) * es, es);
        const void *inputs[2] = {a, b};
        const clpool_shape shapes[2] = {a_shape, b_shape};
        ck_assert_int_eq(ref_max(dt, 2, shapes, inputs, want), 0);
        cl_mem am = tight_buffer(0, a_t, 3 * 37 * es), bm = tight_buffer(es, b, 37 * es);
        const size_t out_lead = 4 * es, out_body = (size_t)(2 * 80 + 2 * 36 + 1) * es; /* rows 80 apart, step 2 */
        unsigned char *img = cu_sentinel_image(out_lead, NULL, out_body);
        cl_mem om = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_body));
        free(img);
        clpool_view views[2] = {{am, 0, 2, {3, 37}, {1, 3}}, {bm, es, 1, {37}, {1}}};
        const clpool_view ov = {om, out_lead, 2, {3, 37}, {80, 2}};
        cl_event ev = NULL;
        paths_start(dt);
        finish(clpool_enqueue_max_view(cu_ctx, NULL, dt, 2, views, &ov, 0, NULL, &ev), &ev, desc);
        paths_check("max_of_2", desc);
        unsigned char *got = read_output(om, out_lead, out_body, "output", desc);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 37; ++j) {
                const int64_t at = i * 80 + j * 2;
                cu_expect(same_bits(dt, ref_load_bits(dt, got + out_lead, at), ref_load_bits(dt, want, i * 37 + j)),
                          "%s: output (%d, %d) differs", desc, i, j);
            }
        free(got);
        clReleaseMemObject(am), clReleaseMemObject(bm), clReleaseMemObject(om);
    }
}
END_TEST

/* MaxUnpool on views (-DVIEW=1): X transposed (C innermost), its Indices reversed along W, the output
 * channels-last with a gap after each pixel, in every MaxPool dtype; one index outside its plane, counted;
 * the gaps keep their guard bytes. */
START_TEST(max_unpool_views)
{
    require_gpu();
    ref_rng r;
    ref_rng_seed(&r, 14);
    const clpool_shape xs = {4, {2, 3, 2, 3}}, ys = {4, {2, 3, 4, 6}};
    const int64_t k2[2] = {2, 2};
    for (size_t d = 0; d < sizeof cu_maxpool_dtypes / sizeof cu_maxpool_dtypes[0]; ++d) {
        const clpool_dtype dt = cu_maxpool_dtypes[d];
        if (!cu_dtype_runs(dt, "MaxUnpool on views")) continue;
        char desc[96];
        snprintf(desc, sizeof desc, "MaxUnpool on views, %s", clpool_dtype_name(dt));
        const size_t es = ref_dtype_size(dt);
        unsigned char x[36 * 8], x_t[36 * 8], want[144 * 8];
        int64_t idx[36], idx_r[36];
        fill(&r, dt, x, 36, 0);
        for (int e = 0; e < 36; ++e) { /* a tap of each 2x2 window; element 5's index in the next plane */
            const int q = e / 6, i = e / 3 % 2, j = e % 3;
            idx[e] = q * 24 + (2 * i + e % 2) * 6 + 2 * j + (e / 2) % 2 + (e == 5 ? 24 : 0);
        }
        for (int e = 0; e < 36; ++e) { /* X as N x H x W x C; Indices with W reversed */
            const int n = e / 18, c = e / 6 % 3, i = e / 3 % 2, j = e % 3;
            memcpy(x_t + (size_t)(((n * 2 + i) * 3 + j) * 3 + c) * es, x + (size_t)e * es, es);
            idx_r[e - j + (2 - j)] = idx[e];
        }
        const int64_t skipped = ref_max_unpool(dt, &xs, x, idx, &ys, &ys, want);
        ck_assert_int_eq(skipped, 1);
        clpool_max_unpool_params p;
        ck_assert_int_eq(clpool_max_unpool_params_init(&p, 2, k2), CLPOOL_SUCCESS);
        p.window.strides[0] = p.window.strides[1] = 2;
        const uint32_t zero = 0;
        cl_mem xm = tight_buffer(0, x_t, 36 * es), im = tight_buffer(8, idx_r, sizeof idx_r);
        cl_mem sm = tight_buffer(4, &zero, sizeof zero);
        const size_t out_lead = 2 * es, out_body = (size_t)(2 * 96 - 1) * es; /* a pixel's 3 channels, 4 apart */
        unsigned char *img = cu_sentinel_image(out_lead, NULL, out_body);
        cl_mem om = cu_buffer_from(img, CU_IMAGE_BYTES(out_lead, out_body));
        free(img);
        const clpool_view vx = {xm, 0, 4, {2, 3, 2, 3}, {18, 1, 9, 3}}, vi = {im, 8 + 2 * 8, 4, {2, 3, 2, 3}, {18, 6, 3, -1}};
        const clpool_view vy = {om, out_lead, 4, {2, 3, 4, 6}, {96, 1, 24, 4}};
        cl_event ev = NULL;
        paths_start(dt);
        finish(clpool_enqueue_max_unpool_view(cu_ctx, NULL, &p, dt, &vx, &vi, &vy, sm, 4, 0, NULL, &ev), &ev, desc);
        paths_check("max_unpool_zero + max_unpool_scatter", desc);
        unsigned char *got = read_output(om, out_lead, out_body, "output", desc);
        for (int e = 0; e < 144; ++e) {
            const int n = e / 72, c = e / 24 % 3, i = e / 6 % 4, j = e % 6;
            const int64_t at = n * 96 + c + i * 24 + j * 4;
            cu_expect(same_bits(dt, ref_load_bits(dt, got + out_lead, at), ref_load_bits(dt, want, e)),
                      "%s: output element %d differs", desc, e);
        }
        uint32_t count[2];
        cu_read_back(clpool_context_cl_queue(cu_ctx), sm, count, sizeof count, desc);
        ck_assert_msg(count[1] == 1, "%s: %u skipped, expected 1", desc, count[1]);
        free(got);
        clReleaseMemObject(xm), clReleaseMemObject(im), clReleaseMemObject(sm), clReleaseMemObject(om);
    }
}
END_TEST

/* ------------------------------------------------------- paths reached */

/* Names of the __kernel functions of one .cl file, appended to names[*n]. */
static void kernels_of(const char *path, char names[][64], int *n, int max)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *k = strstr(line, "__kernel ");
        if (!k || k != line) continue;
        const char *paren = strchr(k, '(');
        if (!paren) continue;
        const char *start = paren;
        while (start > k && start[-1] != ' ') --start;
        ck_assert_int_lt(*n, max);
        snprintf(names[*n], 64, "%.*s", (int)(paren - start), start);
        ++*n;
    }
    fclose(f);
}

static int reached_kernel(const char *name)
{
    const size_t len = strlen(name);
    for (int i = 0; i < paths.n_reached; ++i)
        if (strncmp(paths.reached[i].path, name, len) == 0 &&
            (paths.reached[i].path[len] == ' ' || paths.reached[i].path[len] == '\0'))
            return 1;
    return 0;
}

/* Whether a cpu_only entry (a name, or a prefix ending in '*') names kernel `name`. */
static int names_kernel(const char *entry, const char *name)
{
    const size_t len = strlen(entry);
    return entry[len - 1] == '*' ? strncmp(entry, name, len - 1) == 0 : strcmp(entry, name) == 0;
}

/* Runs last: lists every path reached (launches, dtypes) and checks that
 * every kernel of kernels/ (.cl files) was reached or is named in cpu_only. */
START_TEST(paths_reached)
{
    if (getenv("CK_RUN_CASE") || getenv("CK_INCLUDE_TAGS") || getenv("CK_EXCLUDE_TAGS")) {
        printf("note: some tests were not run (CK_RUN_CASE / CK_*_TAGS): paths not checked\n");
        return;
    }
    ck_assert_msg(paths.n_reached > 0 && paths.n_reached < MAX_PATHS, "%d paths recorded", paths.n_reached);
    printf("paths reached on the GPU-type device (%d):\n", paths.n_reached);
    for (int i = 0; i < paths.n_reached; ++i) {
        char dtypes[200] = "";
        for (int d = 1; d <= 16; ++d)
            if (paths.reached[i].dtypes >> d & 1) cu_append(dtypes, sizeof dtypes, " %s", clpool_dtype_name(d));
        printf("  %-66s %4d launches:%s\n", paths.reached[i].path, paths.reached[i].count, dtypes);
    }
    char names[64][64];
    int n = 0;
    DIR *dir = opendir(CLPOOL_SOURCE_DIR "/kernels");
    ck_assert_msg(dir != NULL, "cannot list %s", CLPOOL_SOURCE_DIR "/kernels");
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cl") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/kernels/%s", CLPOOL_SOURCE_DIR, e->d_name);
        kernels_of(path, names, &n, 64);
    }
    closedir(dir);
    ck_assert_int_gt(n, 0);
    for (size_t j = 0; j < sizeof cpu_only / sizeof cpu_only[0]; ++j) {
        int found = 0;
        for (int i = 0; i < n; ++i) {
            if (!names_kernel(cpu_only[j][0], names[i])) continue;
            found = 1;
            ck_assert_msg(!reached_kernel(names[i]), "%s ran on a GPU-type device (%s)", names[i], cpu_only[j][1]);
        }
        ck_assert_msg(found, "%s is listed as CPU-only but is not a kernel in kernels/ (.cl files)", cpu_only[j][0]);
    }
    for (int i = 0; i < n; ++i) {
        int cpu = 0;
        for (size_t j = 0; j < sizeof cpu_only / sizeof cpu_only[0]; ++j) cpu |= names_kernel(cpu_only[j][0], names[i]);
        if (cpu) continue;
        ck_assert_msg(reached_kernel(names[i]),
                      "kernel %s was not reached: add a case for it, or name it in cpu_only with the reason", names[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("oclgrind");
    TCase *tc = cu_tcase(s, "maxpool", 1);
    tcase_add_test(tc, maxpool_2d_kernel);
    tcase_add_test(tc, maxpool_whole_planes);
    tcase_add_test(tc, maxpool_general_kernel);
    tcase_add_test(tc, maxpool_3d_two_passes);
    tcase_add_test(tc, maxpool_first_tier);
    tc = cu_tcase(s, "global_pools", 1);
    tcase_add_test(tc, sum_pools);
    tcase_add_test(tc, global_pools);
    tc = cu_tcase(s, "max", 1);
    tcase_add_test(tc, max_all_dtypes);
    tcase_add_test(tc, max_views);
    tcase_add_test(tc, max_unpool);
    tcase_add_test(tc, max_unpool_views);
    tcase_add_test(tc, channels_last_views);
    tc = cu_tcase(s, "paths", 0);
    tcase_add_test(tc, paths_reached);
    SRunner *sr = srunner_create(s);
    /* One process: paths_reached sees what the other tests launched (and
     * Oclgrind checks one process, not forked children). */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
