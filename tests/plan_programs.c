/*
 * The programs the planners build, from the family table: every op's
 * planner runs over a catalogue of calls on three kinds of device (a CPU
 * whose work-item vectors are its SIMD, as PoCL; Mesa's llvmpipe; a GPU), and
 * each distinct program of a launch is printed once, as
 *   TARGET|PART PART ...|OPTIONS
 * TARGET is what the device's driver compiles for: x86-64 with AVX-512 for
 * the first, SPIR for the others. Of programs that differ only in sizes (KD
 * KH KW NB_MAX PLANE_ELEMS FLAT_ELEMS EXACT_ROWS, the N-D kernels' rank NS,
 * window_channels_last's blocks CB, and SWEEP_BLOCKS's bound) the one with the largest window is printed: the
 * loops it unrolls are what its warnings depend on.
 *   plan_programs --trace   instead, every launch planned for llvmpipe as
 *                           tests/cl_path_trace.c logs one (the kernel paths a
 *                           rusticl run must reach: tests/check_paths.sh)
 * tests/check_kernel_warnings.sh compiles exactly these. No OpenCL call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"
#include "plan_devices.h"

static const struct {
    const clpool__device_caps *caps;
    const char *target;
} devices[] = {{&cpu512, "x86_64"}, {&llvmpipe, "spir64"}, {&gpu, "spir64"}};

/* One printed program: its text, its signature, and the taps of its window. */
typedef struct program {
    char text[1024];
    char signature[1024]; /* the text without window sizes */
    long long taps;
} program;
static program *programs;
static size_t count, room;

/* Sizes: options whose values only size a program's loops and arrays (SWEEP_BLOCKS: 0 turns the row
 * sweep off, any other value bounds it). */
static int is_size(const char *name)
{
    static const char *const sizes[] = {"KD", "KH", "KW", "NB_MAX", "PLANE_ELEMS", "FLAT_ELEMS", "EXACT_ROWS", "NS", "CB"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        if (strcmp(name, sizes[i]) == 0) return 1;
    return 0;
}

/* --trace: the launches of the llvmpipe device, "KERNEL -DDT_X -DNAME=V ..." as tests/cl_path_trace.c logs them. */
static int trace_mode;
static size_t trace_device;

static void trace_launch(const clpool__launch *l)
{
    printf("%s -D%s", l->kernel, clpool__dtype_macro(l->options.dtype));
    for (int i = 0; i < l->options.count; ++i) printf(" -D%s=%lld", l->options.names[i], (long long)l->options.values[i]);
    printf("\n");
}

static size_t current_dev;

static void add_launch(const char *target, const clpool__launch *l)
{
    if (trace_mode) {
        if (current_dev == trace_device && l->options.dtype != CLPOOL_FLOAT64) trace_launch(l);
        return;
    }
    program p = {.taps = 1};
    size_t n = (size_t)snprintf(p.text, sizeof p.text, "%s|", target);
    for (size_t i = 0; l->parts[i]; ++i) n += (size_t)snprintf(p.text + n, sizeof p.text - n, "%s%s", i ? " " : "", l->parts[i]);
    n += (size_t)snprintf(p.text + n, sizeof p.text - n, "|-D%s", clpool__dtype_macro(l->options.dtype));
    memcpy(p.signature, p.text, n + 1);
    size_t m = n;
    for (int i = 0; i < l->options.count; ++i) {
        const char *name = l->options.names[i];
        const long long v = (long long)l->options.values[i];
        n += (size_t)snprintf(p.text + n, sizeof p.text - n, " -D%s=%lld", name, v);
        if (is_size(name)) {
            if (strcmp(name, "KD") == 0 || strcmp(name, "KH") == 0 || strcmp(name, "KW") == 0) p.taps *= v;
            continue;
        }
        const long long kept = strcmp(name, "SWEEP_BLOCKS") == 0 ? v != 0 : v;
        m += (size_t)snprintf(p.signature + m, sizeof p.signature - m, " -D%s=%lld", name, kept);
    }
    /* of a signature keep the largest window (the first of equals) */
    for (size_t i = 0; i < count; ++i) {
        if (strcmp(programs[i].signature, p.signature) != 0) continue;
        if (p.taps > programs[i].taps) programs[i] = p;
        return;
    }
    if (count == room) {
        room = room ? 2 * room : 256;
        programs = realloc(programs, room * sizeof *programs);
        if (!programs) exit(2);
    }
    programs[count++] = p;
}

static void add_plan(const char *target, const clpool__plan *plan)
{
    for (int i = 0; i < plan->launches; ++i) add_launch(target, &plan->launch[i]);
    if (plan->has_fallback) add_launch(target, &plan->fallback);
}

/* ------------------------------------------------------------ MaxPool */

/* A window: kernel, strides, pads (begin = end), dilations per spatial dim; 0 ends a list. */
typedef struct window {
    int32_t ns;
    int64_t k[6], s[6], p[6], d[6];
} window;

/* 2-D windows: the reference cases, SPP's 13x13, wide and tall ones, strides 3 and 4, dilation. */
static const window windows_2d[] = {
    {2, {3, 3}, {2, 2}, {1, 1}, {1, 1}},   {2, {2, 2}, {2, 2}, {0, 0}, {1, 1}},  {2, {3, 6}, {2, 2}, {0, 1}, {1, 1}},
    {2, {5, 5}, {1, 1}, {2, 2}, {1, 1}},   {2, {13, 13}, {1, 1}, {6, 6}, {1, 1}}, {2, {2, 7}, {1, 1}, {0, 0}, {1, 1}},
    {2, {7, 2}, {1, 2}, {0, 0}, {1, 1}},   {2, {3, 9}, {2, 2}, {0, 0}, {1, 1}},  {2, {12, 9}, {1, 1}, {0, 0}, {1, 1}},
    {2, {4, 2}, {1, 1}, {0, 0}, {1, 1}},   {2, {1, 6}, {1, 1}, {0, 0}, {1, 1}},  {2, {9, 10}, {2, 1}, {0, 0}, {1, 1}},
    {2, {3, 3}, {3, 3}, {0, 0}, {1, 1}},   {2, {5, 7}, {4, 4}, {0, 0}, {1, 1}},  {2, {3, 4}, {4, 4}, {0, 0}, {1, 1}},
    {2, {3, 3}, {1, 1}, {1, 1}, {2, 2}},   {2, {3, 3}, {5, 5}, {0, 0}, {1, 1}},  {2, {3, 24}, {1, 16}, {0, 0}, {1, 1}},
};
/* Other ranks: 1-D, 3-D (one pass, two passes with and without strides down, a 1xkxk view), 4- to 6-D. */
static const window windows_nd[] = {
    {1, {3}, {2}, {1}, {1}},
    {1, {5}, {8}, {2}, {1}}, /* a row stride of 8: all eight loads of a tap */
    {3, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}},
    {3, {2, 2, 2}, {2, 2, 1}, {0, 0, 0}, {1, 1, 1}},
    {3, {1, 7, 5}, {1, 1, 2}, {0, 0, 0}, {1, 1, 1}},
    {3, {7, 1, 1}, {7, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {3, {2, 3, 3}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
    {3, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 2, 1}},
    {3, {2, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    {4, {2, 2, 2, 2}, {2, 1, 1, 2}, {0, 0, 0, 0}, {1, 1, 1, 1}},
    {5, {2, 1, 2, 1, 2}, {1, 1, 2, 1, 1}, {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}},
    {6, {2, 2, 1, 1, 2, 2}, {2, 1, 1, 1, 1, 2}, {0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}},
};
/* Plane shapes (N*C, then the spatial dims of a 2-D window; other ranks take `cube` a side): small ones
 * in cache, large ones beyond it (row sweeps), larger ones past 1.5x the cache (streamed stores), and
 * rows as wide as the output (the flat path). */
static const struct {
    int64_t planes, h, w, cube;
} shapes[] = {{8, 30, 30, 12}, {512, 112, 112, 24}, {1024, 224, 224, 48}, {4096, 20, 20, 0}};

static const clpool_dtype maxpool_dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                              CLPOOL_BFLOAT16, CLPOOL_INT8,    CLPOOL_UINT8};

static void maxpool_call(size_t dev, const window *w, int64_t planes, const int64_t *spatial, clpool_dtype dtype,
                         int indices, int storage_order)
{
    clpool_shape shape = {w->ns + 2, {1, planes}};
    clpool_maxpool_params p;
    if (clpool_maxpool_params_init(&p, w->ns, w->k) != CLPOOL_SUCCESS) exit(2);
    for (int32_t i = 0; i < w->ns; ++i) {
        shape.dims[2 + i] = spatial[i];
        p.strides[i] = w->s[i];
        p.dilations[i] = w->d[i];
        p.pads[i] = p.pads[w->ns + i] = w->p[i];
    }
    p.storage_order = storage_order;
    clpool__pool_desc desc;
    if (clpool__maxpool_describe(&shape, &p, dtype, indices, "plan_programs", &desc) != CLPOOL_SUCCESS) return;
    desc.in_limit = clpool__window_in_elements(&desc.w);
    clpool__plan plan;
    clpool__maxpool_plan_call(devices[dev].caps, &desc, &plan);
    add_plan(devices[dev].target, &plan);
    clpool__window_plan_first_tier(devices[dev].caps, &desc, &plan);
    add_plan(devices[dev].target, &plan);
}

static void maxpool_programs(size_t dev)
{
    for (size_t t = 0; t < sizeof maxpool_dtypes / sizeof maxpool_dtypes[0]; ++t)
        for (int ix = 0; ix < 3; ++ix) {
            const int indices = ix > 0, order = ix == 2;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
                for (size_t w = 0; w < sizeof windows_2d / sizeof windows_2d[0]; ++w)
                    maxpool_call(dev, &windows_2d[w], shapes[s].planes, (const int64_t[]){shapes[s].h, shapes[s].w},
                                 maxpool_dtypes[t], indices, order);
                for (size_t w = 0; shapes[s].cube && w < sizeof windows_nd / sizeof windows_nd[0]; ++w) {
                    const int64_t c = shapes[s].cube;
                    maxpool_call(dev, &windows_nd[w], shapes[s].planes / 8, (const int64_t[]){c, c, c, c, c, c},
                                 maxpool_dtypes[t], indices, order);
                }
            }
            /* windows over whole planes (GlobalMaxPool's programs, with Indices its own) */
            const window whole = {2, {7, 7}, {1, 1}, {0, 0}, {1, 1}};
            maxpool_call(dev, &whole, 65536, (const int64_t[]){7, 7}, maxpool_dtypes[t], indices, order);
        }
}

/* ------------------------------------------------------ AveragePool, LpPool */

/* Every op and p kind (count_include_pad only changes run-time data) on windows of each rank the general
 * kernel's tests reach and of last-dim strides 1, 2 and 3 (vector loads, strided loads or gathers). */
static void sum_pool_programs(size_t dev)
{
    static const double kinds[] = {0, 1, 2, 3, 1.5}; /* 0: AveragePool, else LpPool's p */
    static const window windows[] = {
        {2, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, {2, {2, 2}, {2, 2}, {0, 0}, {1, 1}}, {2, {3, 3}, {3, 3}, {0, 0}, {1, 1}},
        {1, {3}, {2}, {1}, {1}},             {3, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
    };
    for (size_t t = 0; t < 4; ++t)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
            for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w) {
                const window *win = &windows[w];
                clpool_shape shape = {win->ns + 2, {2, 64}};
                clpool_window_params wp;
                if (clpool_window_params_init(&wp, win->ns, win->k) != CLPOOL_SUCCESS) exit(2);
                for (int32_t i = 0; i < win->ns; ++i) {
                    shape.dims[2 + i] = win->ns == 2 ? 56 : 20;
                    wp.strides[i] = win->s[i];
                    wp.dilations[i] = win->d[i];
                    wp.pads[i] = wp.pads[win->ns + i] = win->p[i];
                }
                clpool_average_pool_params avg;
                clpool_lp_pool_params lp;
                if (clpool_average_pool_params_init(&avg, win->ns, win->k) != CLPOOL_SUCCESS ||
                    clpool_lp_pool_params_init(&lp, win->ns, win->k) != CLPOOL_SUCCESS)
                    exit(2);
                avg.window = lp.window = wp;
                lp.p = kinds[k];
                clpool__pool_desc desc;
                if (clpool__sum_pool_describe(&shape, kinds[k] == 0 ? &avg : NULL, kinds[k] == 0 ? NULL : &lp,
                                              maxpool_dtypes[t], "plan_programs", &desc) != CLPOOL_SUCCESS)
                    exit(2);
                desc.in_limit = clpool__window_in_elements(&desc.w);
                clpool__plan plan;
                clpool__sum_pool_plan_call(devices[dev].caps, &desc, &plan);
                add_plan(devices[dev].target, &plan);
                clpool__window_plan_first_tier(devices[dev].caps, &desc, &plan);
                add_plan(devices[dev].target, &plan);
            }
}

/* ------------------------------------------------------------ global pools */

static void global_programs(size_t dev)
{
    static const struct {
        clpool__op op;
        double p;
    } ops[] = {{CLPOOL__OP_GLOBAL_MAX_POOL, 0},   {CLPOOL__OP_GLOBAL_AVERAGE_POOL, 0}, {CLPOOL__OP_GLOBAL_LP_POOL, 1},
               {CLPOOL__OP_GLOBAL_LP_POOL, 2}, {CLPOOL__OP_GLOBAL_LP_POOL, 3},      {CLPOOL__OP_GLOBAL_LP_POOL, 2.5}};
    static const int64_t planes[][2] = {{65536, 49}, {2048, 3136}, {8, 12544}, {16, 1 << 20}};
    for (size_t t = 0; t < 4; ++t)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
            for (size_t s = 0; s < sizeof planes / sizeof planes[0]; ++s) {
                const clpool__global_desc desc = {.op = ops[o].op, .p = ops[o].p, .dtype = maxpool_dtypes[t],
                                                  .esize = (int64_t)clpool_dtype_size(maxpool_dtypes[t]),
                                                  .planes = planes[s][0], .plane_size = planes[s][1]};
                clpool__plan plan;
                clpool__global_plan_call(devices[dev].caps, &desc, &plan);
                add_plan(devices[dev].target, &plan);
                clpool__global_plan_first_tier(devices[dev].caps, &desc, &plan);
                add_plan(devices[dev].target, &plan);
            }
}

/* ------------------------------------------------------------------- Max */

static void max_programs(size_t dev)
{
    for (int dtype = 1; dtype <= CLPOOL_BFLOAT16; ++dtype) {
        if (!clpool__dtype_lookup((clpool_dtype)dtype)) continue;
        for (int c = 0; c < 9; ++c) {
            /* small and large (streamed stores), of 1 to 4 inputs (one pass, a kernel each); then a view's
             * (-DVIEW=1: an input gathered; its stores are the same code with or without streaming) */
            const int view = c == 8, large = !view && c % 2, inputs = view ? 2 : 1 + c / 2;
            int64_t strides[5][CLPOOL_MAX_RANK] = {{1}, {view ? 3 : 1}, {1}, {1}, {1}};
            const size_t offsets[4] = {0};
            const int64_t n = large ? (int64_t)1 << 26 : 4096, esize = (int64_t)clpool_dtype_size((clpool_dtype)dtype);
            clpool__max_desc desc = {.dtype = (clpool_dtype)dtype, .esize = esize, .inputs = (size_t)inputs, .rank = 1,
                                     .dims = {n}, .strides = (const int64_t(*)[CLPOOL_MAX_RANK])strides,
                                     .offsets = offsets,
                                     .moved = (uint64_t)((inputs + 1) * n * esize)};
            clpool__max_plan plan;
            clpool__max_plan_call(devices[dev].caps, &desc, &plan);
            clpool__launch l;
            size_t first[CLPOOL__ARGS_MAX_ARITY];
            int arity;
            clpool__max_plan_pass(&desc, &plan, 0, &l, first, &arity);
            add_launch(devices[dev].target, &l);
        }
    }
}

/* ------------------------------------------------------------- MaxUnpool */

/* Many planes and few (both paths), and views, every element size; not float64 where tracing: llvmpipe has no
 * fp64. */
static void max_unpool_programs(size_t dev)
{
    static const int64_t planes[] = {512, 2};
    for (size_t t = 0; t < sizeof maxpool_dtypes / sizeof maxpool_dtypes[0]; ++t)
        for (size_t s = 0; s < sizeof planes / sizeof planes[0]; ++s) {
            if (trace_mode && maxpool_dtypes[t] == CLPOOL_FLOAT64) continue;
            const clpool__max_unpool_desc d = {.dtype = maxpool_dtypes[t],
                                               .esize = (int64_t)clpool_dtype_size(maxpool_dtypes[t]),
                                               .planes = planes[s], .x_plane = 784, .y_plane = 3136,
                                               .idx_plane = 3136, .ns = 2};
            clpool__plan plan;
            clpool__max_unpool_plan_call(devices[dev].caps, &d, &plan);
            add_plan(devices[dev].target, &plan);
            if (s > 0) continue;
            /* on channels-last views (-DVIEW=1): one program per element size, whatever the strides */
            clpool__max_unpool_view_desc v = {.call = d, .rank = 4, .x_dims = {8, 64, 28, 28},
                                              .y_dims = {8, 64, 56, 56}, .x_strides = {50176, 1, 1792, 64},
                                              .idx_strides = {50176, 1, 1792, 64}, .y_strides = {200704, 1, 3584, 64}};
            v.call.idx_dims[0] = v.call.idx_dims[1] = v.call.y_dims[0] = v.call.y_dims[1] = 56;
            clpool__max_unpool_plan_view(devices[dev].caps, &v, &plan);
            add_plan(devices[dev].target, &plan);
        }
}

/* ----------------------------------------------------------------- views */

/* Channels-last views of every windowed op, p kind and dtype: windows of ranks 1 to 3, channel counts
 * that take each block run (-DCB); not float64 where tracing. */
static void view_programs(size_t dev)
{
    static const double kinds[] = {-2, -1, 0, 1, 2, 3}; /* MaxPool with Indices (-2) and without, AveragePool, p */
    static const int64_t channels[] = {20, 64, 300};
    for (size_t t = 0; t < sizeof maxpool_dtypes / sizeof maxpool_dtypes[0]; ++t)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
            for (int32_t ns = 1; ns <= 3; ++ns)
                for (size_t c = 0; c < sizeof channels / sizeof channels[0]; ++c) {
                    const clpool_dtype dtype = maxpool_dtypes[t];
                    if ((trace_mode && dtype == CLPOOL_FLOAT64) || (kinds[k] >= 0 && t >= 4)) continue;
                    const int64_t kernel[3] = {3, 3, 3};
                    clpool_shape shape = {ns + 2, {2, channels[c], 9, 9, 9}};
                    clpool__pool_desc d;
                    clpool_maxpool_params mp;
                    clpool_average_pool_params avg;
                    clpool_lp_pool_params lp;
                    if (clpool_maxpool_params_init(&mp, ns, kernel) != CLPOOL_SUCCESS ||
                        clpool_average_pool_params_init(&avg, ns, kernel) != CLPOOL_SUCCESS ||
                        clpool_lp_pool_params_init(&lp, ns, kernel) != CLPOOL_SUCCESS)
                        exit(2);
                    lp.p = kinds[k];
                    const clpool_status st =
                        kinds[k] < 0 ? clpool__maxpool_describe(&shape, &mp, dtype, kinds[k] == -2, "plan_programs", &d)
                                     : clpool__sum_pool_describe(&shape, kinds[k] == 0 ? &avg : NULL,
                                                                 kinds[k] == 0 ? NULL : &lp, dtype, "plan_programs", &d);
                    if (st != CLPOOL_SUCCESS) exit(2);
                    d.strided = 1;
                    d.channels = channels[c];
                    int64_t stride = 1; /* channels-last: C, then the spatial dims from the last, then N */
                    d.in_strides[1] = d.out_strides[1] = d.idx_strides[1] = 1;
                    for (int32_t i = ns - 1; i >= 0; --i) {
                        d.in_strides[2 + i] = stride * channels[c];
                        d.out_strides[2 + i] = d.idx_strides[2 + i] = stride * channels[c];
                        stride *= 9;
                    }
                    d.in_strides[0] = d.out_strides[0] = d.idx_strides[0] = stride * channels[c];
                    clpool__plan plan;
                    clpool__window_plan_view(devices[dev].caps, &d, &plan);
                    add_plan(devices[dev].target, &plan);
                }
}

int main(int argc, char **argv)
{
    trace_mode = argc > 1 && strcmp(argv[1], "--trace") == 0;
    trace_device = 1; /* llvmpipe */
    for (size_t dev = 0; dev < sizeof devices / sizeof devices[0]; ++dev) {
        current_dev = dev;
        maxpool_programs(dev);
        sum_pool_programs(dev);
        global_programs(dev);
        max_programs(dev);
        max_unpool_programs(dev);
        view_programs(dev);
    }
    for (size_t i = 0; !trace_mode && i < count; ++i) puts(programs[i].text);
    free(programs);
    return 0;
}
