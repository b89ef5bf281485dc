/*
 * MaxPool's planner (host/maxpool_plan.c) without a device: for calls on
 * three kinds of device, the whole plan (path, kernel file, kernel, every -D
 * value, work sizes, rows per work-item, scratch) against a table. Every
 * row of docs/design.md's MaxPool path table has a case here. No OpenCL
 * call is made: ctest runs it with OCL_ICD_VENDORS=/nonexistent.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "maxpool_plan.h"

/* An AVX-512 CPU under PoCL: 16 float lanes per work-item, the tests' pinned cache. */
static const clpool__device_caps cpu512 = {.cpu = 1, .cpu_simd = 1, .vector_bytes = 64, .cache_bytes = 32u << 20,
                                           .compute_units = 2};
/* A GPU: lanes are work-items. */
static const clpool__device_caps gpu = {.cpu = 0, .cpu_simd = 0, .vector_bytes = 4, .cache_bytes = 4u << 20,
                                        .compute_units = 40};
/* Mesa's llvmpipe (rusticl): a CPU that vectorises across work-items, no fp64. */
static const clpool__device_caps llvmpipe = {.cpu = 1, .cpu_simd = 0, .vector_bytes = 4, .cache_bytes = 32u << 20,
                                             .compute_units = 8};

typedef struct plan_case {
    const char *name;
    const clpool__device_caps *caps;
    clpool_dtype dtype;
    int32_t rank;
    int64_t dims[6];
    int64_t kernel[4], strides[4], pads[8], dilations[4]; /* 0: the default */
    int indices, storage_order;
    const char *expect; /* plan_text() */
} plan_case;

/* "[s]" for a scratch plan, then each launch: "file kernel -DNAME=V ... items a,b,c local l rows r gap g". */
static void launch_text(const clpool__mp_launch *l, char *out, size_t len)
{
    const char *file = l->parts[0];
    for (size_t i = 1; l->parts[i]; ++i) file = l->parts[i];
    size_t n = (size_t)snprintf(out, len, "%s %s %s", file, l->kernel, clpool__dtype_macro(l->options.dtype));
    for (int i = 0; i < l->options.count && n < len; ++i)
        n += (size_t)snprintf(out + n, len - n, " %s=%lld", l->options.names[i], (long long)l->options.values[i]);
    for (uint32_t i = 0; i < l->dims && n < len; ++i)
        n += (size_t)snprintf(out + n, len - n, "%s%llu", i ? "," : " items ", (unsigned long long)l->items[i]);
    if (n < len) n += (size_t)snprintf(out + n, len - n, " local %zu", l->cpu_local);
    if (l->arg_kind == CLPOOL__MP_ARGS_2D && n < len)
        snprintf(out + n, len - n, " rows %lld gap %lld sweep %lld", (long long)l->sizes2d.rows,
                 (long long)l->sizes2d.gap, (long long)l->sizes2d.sweep);
    if (l->arg_kind == CLPOOL__MP_ARGS_3D && n < len)
        snprintf(out + n, len - n, " band_rows %lld bands %lld", (long long)l->sizes3d.band_rows,
                 (long long)l->sizes3d.bands);
}

static const char *path_name(clpool__mp_path path)
{
    switch (path) {
    case CLPOOL__MP_GLOBAL_MAX: return "global_max";
    case CLPOOL__MP_GLOBAL_MAX_INDICES: return "global_max_indices";
    case CLPOOL__MP_ND: return "nd";
    case CLPOOL__MP_WINDOW: return "window";
    case CLPOOL__MP_2D: return "2d";
    case CLPOOL__MP_PLANE: return "plane";
    case CLPOOL__MP_FLAT: return "flat";
    case CLPOOL__MP_3D: return "3d";
    case CLPOOL__MP_3D_TWO_PASS: return "3d_two_pass";
    case CLPOOL__MP_GENERIC: return "generic";
    }
    return "?";
}

static void plan_text(const clpool__maxpool_plan *plan, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s", path_name(plan->path));
    if (plan->launches == 0)
        snprintf(out + n, len - n, ": planes %lld of %lld col_major %d", (long long)plan->planes,
                 (long long)plan->plane_size, plan->col_major);
    for (int i = 0; i < plan->launches && n < len; ++i) {
        n += (size_t)snprintf(out + n, len - n, i ? " | " : ": ");
        launch_text(&plan->launch[i], out + n, len - n);
        n = strlen(out);
    }
    if (plan->path == CLPOOL__MP_3D_TWO_PASS && n < len)
        snprintf(out + n, len - n, " | scratch %zu, else %s", plan->scratch_bytes, path_name(plan->fallback.path));
}

#define F32 CLPOOL_FLOAT32
#define F64 CLPOOL_FLOAT64
#define F16 CLPOOL_FLOAT16
#define I8 CLPOOL_INT8
#define U8 CLPOOL_UINT8

static const plan_case cases[] = {
    /* whole planes */
    {"whole planes", &cpu512, F32, 4, {32, 2048, 7, 7}, {7, 7}, {0}, {0}, {0}, 0, 0,
     "global_max: planes 65536 of 49 col_major 0"},
    {"whole planes with Indices", &cpu512, F64, 4, {8, 512, 28, 28}, {28, 28}, {0}, {0}, {0}, 1, 1,
     "global_max_indices: planes 4096 of 784 col_major 1"},
    {"whole planes with Indices, too few planes", &cpu512, F32, 4, {1, 64, 7, 7}, {7, 7}, {0}, {0}, {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=0 KH=7 KW=7 SH=1 SW=1 VW=16 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 1,1,64 "
     "local 1 rows 16 gap 0 sweep 0"},
    {"whole planes int8", &gpu, I8, 4, {2, 16, 5, 5}, {5, 5}, {0}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_INT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=5 KW=5 SH=1 SW=1 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 1,1,32 "
     "local 1 rows 1 gap 0 sweep 0"},
    /* 2-D views */
    {"1-D as rows", &cpu512, F32, 3, {8, 256, 4096}, {3}, {2}, {1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=1 KW=3 SH=1 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=0 items "
     "2,1,2048 local 1 rows 64 gap 0 sweep 64"},
    {"1xkxk folded", &llvmpipe, F16, 5, {1, 8, 4, 32, 32}, {1, 3, 3}, {1, 2, 2}, {0}, {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=1 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 2,15,32 "
     "local 1 rows 1 gap 0 sweep 0"},
    /* 3-D */
    {"one-pass 3-D", &cpu512, F32, 5, {2, 64, 16, 56, 56}, {3, 3, 3}, {2, 2, 2}, {0}, {0}, 1, 0,
     "3d: maxpool3d.cl maxpool3d DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=0 KD=3 KH=3 KW=3 SH=2 SW=2 "
     "items 128 local 1 band_rows 27 bands 1"},
    {"two-pass 3-D", &cpu512, F16, 5, {2, 8, 16, 56, 56}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1, 1, 1, 1}, {0}, 0, 0,
     "3d_two_pass: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 "
     "SW=2 VW=16 WIDEN=2 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=1 STREAM_STORES=0 "
     "items 1,1,256 local 1 rows 64 gap 0 sweep 0 | maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=0 "
     "STORAGE_ORDER=0 KH=3 KW=1 SH=2 SW=1 VW=16 WIDEN=2 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 "
     "ODD_START=0 STREAM_STORES=0 items 25,1,16 local 1 rows 64 gap 0 sweep 0 | scratch 401408, else nd"},
    {"two-pass 3-D with Indices", &gpu, F32, 5, {1, 4, 8, 20, 20}, {2, 3, 3}, {2, 2, 2}, {0}, {0}, 1, 0,
     "3d_two_pass: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=0 KH=3 KW=3 SH=2 "
     "SW=2 VW=8 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 "
     "items 2,9,32 local 1 rows 1 gap 0 sweep 0 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=1 "
     "STORAGE_ORDER=0 INDEX_MAP=1 KH=2 KW=1 SH=2 SW=1 VW=8 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 "
     "SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 11,4,4 local 1 rows 1 gap 0 sweep 0 | scratch 31232, "
     "else nd"},
    {"3-D column-major Indices", &cpu512, U8, 5, {1, 4, 8, 20, 20}, {2, 3, 3}, {2, 2, 2}, {0}, {0}, 1, 1,
     "nd: maxpool_nd.cl maxpool DT_UINT8 WITH_INDICES=1 STORAGE_ORDER=1 NS=3 VW=16 NB_MAX=4 SW=2 items "
     "144 local 0"},
    /* window kernel */
    {"window kernel", &cpu512, F32, 4, {1, 32, 20, 40}, {3, 24}, {1, 16}, {0}, {0}, 0, 0,
     "window: maxpool_nd.cl maxpool_window DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 "
     "SW=0 WINDOW_INT_AT=1 items 1152 local 0"},
    /* 2-D kernels */
    {"2-D 3x3/s2/p1", &cpu512, F32, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=0 items 1,1,512 "
     "local 1 rows 64 gap 0 sweep 16"},
    {"2-D 3x3/s2/p1 with Indices", &cpu512, F32, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=0 items 1,4,512 "
     "local 1 rows 16 gap 0 sweep 16"},
    {"2-D 2x2/s2 int8 in cache", &cpu512, I8, 4, {2, 64, 56, 56}, {2, 2}, {2, 2}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_INT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=2 KW=2 SH=2 SW=2 VW=16 "
     "WIDEN=2 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 1,1,128 "
     "local 1 rows 64 gap 0 sweep 0"},
    {"2-D 3x3/s2 GPU", &gpu, F32, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 7,56,512 "
     "local 1 rows 1 gap 0 sweep 0"},
    {"2-D 3x3/s2 llvmpipe with Indices", &llvmpipe, F16, 4, {2, 16, 30, 30}, {3, 3}, {2, 2}, {0}, {0}, 1, 1,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=1 STORAGE_ORDER=1 KH=3 KW=3 SH=2 SW=2 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 2,14,32 "
     "local 1 rows 1 gap 0 sweep 0"},
    {"2-D stride 3", &cpu512, F32, 4, {1, 8, 30, 30}, {3, 3}, {3, 3}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=3 SW=3 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 1,2,8 "
     "local 1 rows 8 gap 0 sweep 0"},
    {"row sweep", &cpu512, F32, 4, {1, 64, 1448, 1448}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=1 items 1,12,64 "
     "local 1 rows 64 gap 0 sweep 64"},
    {"row sweep with Indices", &cpu512, U8, 4, {8, 128, 112, 112}, {2, 2}, {2, 2}, {0}, {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_UINT8 WITH_INDICES=1 STORAGE_ORDER=0 KH=2 KW=2 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=0 items "
     "1,4,1024 local 1 rows 16 gap 0 sweep 16"},
    {"plane path", &cpu512, F32, 4, {1, 128, 32, 32}, {9, 9}, {1, 1}, {0}, {0}, 0, 0,
     "plane: maxpool2d_plane.cl maxpool2d_plane DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=9 KW=9 "
     "SH=1 SW=1 VW=16 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 PLANE_ELEMS=2048 items 128,1 local 1 rows "
     "24 gap 0 sweep 0"},
    {"plane path int8", &cpu512, I8, 4, {1, 128, 64, 64}, {13, 13}, {1, 1}, {0}, {0}, 0, 0,
     "plane: maxpool2d_plane.cl maxpool2d_plane DT_INT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 "
     "SH=1 SW=1 VW=16 WIDEN=4 EXACT_ROWS=1 OVERLAP_BLOCKS=1 PLANE_ELEMS=8192 items 128,1 local 1 rows "
     "52 gap 0 sweep 0"},
    {"SPP 13x13 on rows as wide as the output: flat path", &cpu512, F32, 4, {8, 512, 20, 20}, {13, 13}, {1, 1},
     {6, 6, 6, 6}, {0}, 0, 0,
     "flat: maxpool2d_flat.cl maxpool2d_flat_p6 DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 "
     "SH=1 SW=1 VW=16 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 FLAT_ELEMS=4096 items 4096,1 "
     "local 1 rows 20 gap 0 sweep 0"},
    {"flat path", &cpu512, F32, 4, {8, 512, 20, 20}, {5, 5}, {1, 1}, {2, 2, 2, 2}, {0}, 0, 0,
     "flat: maxpool2d_flat.cl maxpool2d_flat_p2 DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=5 KW=5 SH=1 "
     "SW=1 VW=16 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 FLAT_ELEMS=4096 items 4096,1 local 1 "
     "rows 20 gap 0 sweep 0"},
    {"flat path int8", &cpu512, I8, 4, {8, 512, 20, 20}, {5, 5}, {1, 1}, {2, 2, 2, 2}, {0}, 0, 0,
     "flat: maxpool2d_flat.cl maxpool2d_flat_p2 DT_INT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=5 KW=5 SH=1 "
     "SW=1 VW=16 WIDEN=4 EXACT_ROWS=1 OVERLAP_BLOCKS=1 FLAT_ELEMS=16384 items 4096,1 local 1 "
     "rows 20 gap 0 sweep 0"},
    {"SPP 13x13 GPU", &gpu, F32, 4, {8, 512, 20, 20}, {13, 13}, {1, 1}, {6, 6, 6, 6}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 SH=1 SW=1 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items "
     "3,20,4096 local 1 rows 1 gap 0 sweep 0"},
    /* general kernel */
    {"general: dilation", &cpu512, F32, 4, {1, 16, 30, 30}, {3, 3}, {1, 1}, {0}, {2, 2}, 0, 0,
     "nd: maxpool_nd.cl maxpool_nb2 DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "416 local 0"},
    {"general: 4-D windows", &llvmpipe, U8, 6, {1, 2, 6, 6, 6, 6}, {2, 2, 2, 2}, {2, 1, 1, 2}, {0}, {0}, 1, 1,
     "nd: maxpool_nd.cl maxpool DT_UINT8 WITH_INDICES=1 STORAGE_ORDER=1 NS=4 VW=8 SW=2 items 150 "
     "local 0"},
    {"general: float64 stride 5", &gpu, F64, 4, {1, 4, 40, 40}, {3, 3}, {5, 5}, {0}, {0}, 0, 0,
     "nd: maxpool_nd.cl maxpool DT_FLOAT64 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=8 SW=0 items "
     "32 local 0"},
};

START_TEST(plan_matches_table)
{
    const plan_case *c = &cases[_i];
    clpool_shape shape = {c->rank, {0}};
    for (int32_t i = 0; i < c->rank; ++i) shape.dims[i] = c->dims[i];
    const int32_t ns = c->rank - 2;
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, ns, c->kernel), CLPOOL_SUCCESS);
    for (int32_t i = 0; i < ns; ++i) {
        if (c->strides[i]) p.strides[i] = c->strides[i];
        if (c->dilations[i]) p.dilations[i] = c->dilations[i];
        p.pads[i] = c->pads[i];
        p.pads[ns + i] = c->pads[ns + i];
    }
    p.storage_order = c->storage_order;
    clpool__maxpool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, c->dtype, c->indices, "test_plan", &desc), CLPOOL_SUCCESS);
    desc.in_limit = desc.planes;
    for (int32_t i = 0; i < ns; ++i) desc.in_limit *= desc.in[i];
    clpool__maxpool_plan plan;
    clpool__maxpool_plan_call(c->caps, &desc, &plan);
    char text[2048];
    plan_text(&plan, text, sizeof text);
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
}
END_TEST

/* The planner is a function of its inputs: the same call twice gives the
 * same plan, byte for byte (no state, nothing read from the environment). */
START_TEST(plan_is_a_pure_function)
{
    const plan_case *c = &cases[_i];
    clpool_shape shape = {c->rank, {0}};
    for (int32_t i = 0; i < c->rank; ++i) shape.dims[i] = c->dims[i];
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, c->rank - 2, c->kernel), CLPOOL_SUCCESS);
    clpool__maxpool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, c->dtype, c->indices, "test_plan", &desc), CLPOOL_SUCCESS);
    clpool__maxpool_plan a, b;
    memset(&b, 0xa5, sizeof b);
    clpool__maxpool_plan_call(c->caps, &desc, &a);
    clpool__maxpool_plan_call(c->caps, &desc, &b);
    ck_assert_int_eq(a.path, b.path);
    ck_assert_int_eq(a.launches, b.launches);
    char ta[2048], tb[2048];
    plan_text(&a, ta, sizeof ta);
    plan_text(&b, tb, sizeof tb);
    ck_assert_str_eq(ta, tb);
}
END_TEST

/* The first tier: one launch of maxpool_generic whatever the call, only the
 * dtype compiled in, every attribute in its run-time geometry; without
 * Indices the output stands in for the Indices buffer. */
START_TEST(generic_tier_plan)
{
    const clpool_shape shape = {5, {2, 3, 9, 10, 11}};
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 3, (const int64_t[]){2, 3, 4}), CLPOOL_SUCCESS);
    p.strides[0] = 2, p.strides[2] = 3;
    p.dilations[1] = 2;
    p.pads[1] = 1, p.pads[4] = 2;
    p.storage_order = 1;
    for (int indices = 0; indices < 2; ++indices) {
        clpool__maxpool_desc desc;
        ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, F16, indices, "test_plan", &desc), CLPOOL_SUCCESS);
        desc.in_off = 5, desc.out_off = 7, desc.idx_off = 11;
        clpool__maxpool_plan plan;
        memset(&plan, 0xa5, sizeof plan);
        clpool__maxpool_plan_generic(&desc, &plan);
        char text[2048];
        plan_text(&plan, text, sizeof text);
        /* outputs: 2 x 3 x 4 x 9 x 3 (D: (9-2)/2+1, H: (10+1+2-5)+1, W: (11-4)/3+1) */
        ck_assert_str_eq(text, "generic: maxpool_generic.cl maxpool_generic DT_FLOAT16 items 648 local 0");
        const clpool__mp_launch *l = &plan.launch[0];
        ck_assert_int_eq(l->buffers[0], CLPOOL__MP_INPUT);
        ck_assert_int_eq(l->buffers[1], CLPOOL__MP_OUTPUT);
        ck_assert_int_eq(l->buffers[2], indices ? CLPOOL__MP_INDICES : CLPOOL__MP_OUTPUT);
        ck_assert_int_eq(l->arg_kind, CLPOOL__MP_ARGS_GENERIC);
        const clpool__maxpool_generic_geom *g = &l->generic;
        ck_assert_int_eq(g->ns, 3);
        ck_assert_int_eq(g->with_indices, indices);
        ck_assert_int_eq(g->col_major, 1);
        const int64_t in[3] = {9, 10, 11}, out[3] = {4, 9, 3}, k[3] = {2, 3, 4}, st[3] = {2, 1, 3}, dl[3] = {1, 2, 1},
                      pb[3] = {0, 1, 0};
        for (int d = 0; d < 3; ++d) {
            ck_assert_int_eq(g->in_dims[d], in[d]);
            ck_assert_int_eq(g->out_dims[d], out[d]);
            ck_assert_int_eq(g->ksize[d], k[d]);
            ck_assert_int_eq(g->stride[d], st[d]);
            ck_assert_int_eq(g->dilation[d], dl[d]);
            ck_assert_int_eq(g->pad_begin[d], pb[d]);
        }
        ck_assert_int_eq(g->in_plane, 990);
        ck_assert_int_eq(g->outputs, 648);
        ck_assert_int_eq(g->in_offset, 5);
        ck_assert_int_eq(g->out_offset, 7);
        ck_assert_int_eq(g->idx_offset, 11);
    }
}
END_TEST

/* A bad call fails in the descriptor's validation with the caller's name. */
START_TEST(describe_rejects_bad_attributes)
{
    clpool_shape shape = {4, {1, 1, 4, 4}};
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, (const int64_t[]){3, 3}), CLPOOL_SUCCESS);
    p.strides[1] = 0;
    clpool__maxpool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, F32, 0, "test_plan", &desc), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "test_plan: strides[1] = 0 must be >= 1");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("plan");
    const int n = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, plan_matches_table, 0, n);
    tcase_add_loop_test(tc, plan_is_a_pure_function, 0, n);
    tcase_add_test(tc, describe_rejects_bad_attributes);
    tcase_add_test(tc, generic_tier_plan);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
