/*
 * Every op's planner (host/window_plan.c, tier_plan.c, global_plan.c, max_plan.c, max_unpool_plan.c)
 * without a device: for calls on four kinds of device (plan_devices.h and an AVX2 CPU), the whole plan
 * (path, kernel file, kernel, every -D value, arguments, work sizes, rows per
 * work-item, scratch) against a table per op. Every row of docs/design.md's
 * path tables has a case here, and every path of the family table is
 * reached. No OpenCL call is made: ctest runs it with OCL_ICD_VENDORS=/nonexistent.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "planners.h"
#include "plan_devices.h"

/* An AVX2 CPU under PoCL: 256-bit vectors, so none of the paths written for 512-bit ones (plane, flat, the wide
 * and band rules); its lanes are the AVX-512 CPU's (a 16-lane vector is two registers there). */
static const clpool__device_caps avx2 = {.cpu = 1, .cpu_simd = 1, .vector_bytes = 32, .cache_bytes = 32u << 20,
                                         .compute_units = 2, .local_size = 64};

/* A CPU that reports no cache size: the planners assume CACHE_REACH_UNKNOWN of reach. */
static const clpool__device_caps cpu512_no_cache = {.cpu = 1, .cpu_simd = 1, .vector_bytes = 64, .cache_bytes = 0,
                                                    .compute_units = 2, .local_size = 64};

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

/* Each launch: "file kernel -DNAME=V ... items a,b,c local l", then the sizes that are not a shape's. */
static void launch_text(const clpool__launch *l, char *out, size_t len)
{
    const char *file = l->parts[0];
    for (size_t i = 1; l->parts[i]; ++i) file = l->parts[i];
    size_t n = (size_t)snprintf(out, len, "%s %s %s", file, l->kernel, clpool__dtype_macro(l->options.dtype));
    for (int i = 0; i < l->options.count && n < len; ++i)
        n += (size_t)snprintf(out + n, len - n, " %s=%lld", l->options.names[i], (long long)l->options.values[i]);
    for (uint32_t i = 0; i < l->dims && n < len; ++i)
        n += (size_t)snprintf(out + n, len - n, "%s%llu", i ? "," : " items ", (unsigned long long)l->items[i]);
    if (n < len) n += (size_t)snprintf(out + n, len - n, " local %zu", l->cpu_local);
    const clpool__path p = l->path;
    if ((p == CLPOOL__PATH_MAXPOOL_2D || p == CLPOOL__PATH_MAXPOOL_PLANE || p == CLPOOL__PATH_MAXPOOL_FLAT) && n < len)
        snprintf(out + n, len - n, " rows %lld gap %lld sweep %lld", (long long)l->block.sizes2d.rows,
                 (long long)l->block.sizes2d.gap, (long long)l->block.sizes2d.sweep);
    if ((p == CLPOOL__PATH_MAXPOOL_ND || (p >= CLPOOL__PATH_SUM_POOL_ND && p <= CLPOOL__PATH_SUM_POOL_3D)) && n < len)
        n += (size_t)snprintf(out + n, len - n, " rows %lld", (long long)l->block.geom.rows);
    if (p == CLPOOL__PATH_MAXPOOL_3D && n < len)
        snprintf(out + n, len - n, " band_rows %lld bands %lld", (long long)l->block.sizes3d.band_rows,
                 (long long)l->block.sizes3d.bands);
    if (p >= CLPOOL__PATH_GLOBAL_MAX_DIRECT && p <= CLPOOL__PATH_GLOBAL_SUM_TWO_PASS && n < len)
        snprintf(out + n, len - n, " planes %lld of %lld parts %lld col_major %lld", (long long)l->block.global.planes,
                 (long long)l->block.global.plane_size, (long long)l->block.global.parts,
                 (long long)l->block.global.col_major);
    if ((p == CLPOOL__PATH_MAX_UNPOOL_PLANES || p == CLPOOL__PATH_MAX_UNPOOL_SCATTER) && n < len)
        snprintf(out + n, len - n, " per_item %lld remap %lld args %d", (long long)l->block.unpool.per_item,
                 (long long)l->block.unpool.remap, l->nargs);
    if (p == CLPOOL__PATH_WINDOW_CHANNELS_LAST && n < len)
        n += (size_t)snprintf(out + n, len - n, " blocks %lld positions %lld", (long long)l->block.first_tier.item_blocks,
                              (long long)l->block.first_tier.item_positions);
    if (p == CLPOOL__PATH_MAX_UNPOOL_VIEW && n < len) {
        const clpool__max_unpool_view_geom *g = &l->block.unpool_view;
        n += (size_t)snprintf(out + n, len - n, " per_item %lld unit %lld walk", (long long)g->per_item,
                              (long long)g->unit);
        for (int64_t d = 0; d < g->rank && n < len; ++d)
            n += (size_t)snprintf(out + n, len - n, " %lld:%lld,%lld,%lld,%lld", (long long)g->dims[d],
                                  (long long)g->xs[d], (long long)g->is[d], (long long)g->qs[d], (long long)g->ys[d]);
    }
    if (p == CLPOOL__PATH_MAX && n < len)
        snprintf(out + n, len - n, " blocks %lld mask %lld aliased %lld", (long long)l->block.max.blocks,
                 (long long)l->block.max.inner_mask, (long long)l->block.max.aliased);
}

/* The family table names every path. */
static const char *path_name(clpool__path path) { return clpool__families[path].name; }

static void plan_text(const clpool__plan *plan, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s", path_name(plan->path));
    for (int i = 0; i < plan->launches && n < len; ++i) {
        n += (size_t)snprintf(out + n, len - n, i ? " | " : ": ");
        launch_text(&plan->launch[i], out + n, len - n);
        n = strlen(out);
    }
    if (plan->scratch_bytes && n < len)
        n += (size_t)snprintf(out + n, len - n, " | scratch %zu", plan->scratch_bytes);
    if (plan->has_fallback && n < len) snprintf(out + n, len - n, ", else %s", path_name(plan->fallback.path));
}

#define F32 CLPOOL_FLOAT32
#define F64 CLPOOL_FLOAT64
#define F16 CLPOOL_FLOAT16
#define I8 CLPOOL_INT8
#define U8 CLPOOL_UINT8

static const plan_case cases[] = {
    /* whole planes */
    {"whole planes", &cpu512, F32, 4, {32, 2048, 7, 7}, {7, 7}, {0}, {0}, {0}, 0, 0,
     "global_max_grouped: global_max_pool.cl global_pool_grouped DT_FLOAT32 OP=1 LP_KIND=0 CHUNKED=1 items "
     "4096 local 0 planes 65536 of 49 parts 1 col_major 0"},
    {"whole planes with Indices", &cpu512, F64, 4, {8, 512, 28, 28}, {28, 28}, {0}, {0}, {0}, 1, 1,
     "global_max_indices: global_max_pool.cl global_max_pool_indices DT_FLOAT64 OP=1 LP_KIND=0 CHUNKED=1 "
     "items 256 local 0 planes 4096 of 784 parts 1 col_major 1"},
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
    /* dims whose windows are one tap folded: leading ones into the planes, each run of neighbours into one */
    {"4-D with two middle dims passed through: 3-D", &cpu512, F32, 6, {2, 16, 16, 16, 16, 16}, {3, 1, 1, 3}, {0},
     {0}, {0}, 1, 0,
     "3d: maxpool3d.cl maxpool3d DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=0 KD=3 KH=1 KW=3 SH=1 SW=1 items 32 local 1 "
     "band_rows 256 bands 1"},
    {"4-D with a leading dim passed through: 3-D", &cpu512, F32, 6, {1, 4, 5, 8, 8, 8}, {1, 2, 2, 2}, {1, 2, 2, 2},
     {0}, {0}, 0, 0,
     "3d: maxpool3d.cl maxpool3d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KD=2 KH=2 KW=2 SH=2 SW=2 items 20 local 1 "
     "band_rows 4 bands 1"},
    {"5x1x1 on a GPU: windows down a column", &gpu, F16, 5, {1, 4, 9, 6, 7}, {5, 1, 1}, {2, 1, 1}, {0}, {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=1 STORAGE_ORDER=0 KH=5 KW=1 SH=2 SW=1 VW=8 WIDEN=1 "
     "EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 6,3,4 local 1 rows 1 gap 0 "
     "sweep 0"},
    {"1x1 windows: one row a plane", &cpu512, F32, 4, {2, 8, 10, 10}, {1, 1}, {0}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=1 KW=1 SH=1 SW=1 VW=16 WIDEN=1 "
     "EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=0 items 1,1,16 local 1 rows 64 gap 0 "
     "sweep 16"},
    {"4-D column-major Indices: not folded", &cpu512, F32, 6, {1, 2, 6, 6, 6, 6}, {3, 1, 1, 3}, {0}, {0}, {0}, 1, 1,
     "nd: maxpool_nd.cl maxpool_nd DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=1 NS=4 VW=16 NB_MAX=4 SW=1 items 18 "
     "local 0 rows 16"},
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
     "nd: maxpool_nd.cl maxpool_nd DT_UINT8 WITH_INDICES=1 STORAGE_ORDER=1 NS=3 VW=16 NB_MAX=4 SW=2 items "
     "18 local 0 rows 8"},
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
    /* 256-bit vectors: the 2-D path where 512-bit ones take the plane and flat paths, and float16 without the
       wide (two-vector) blocks; float32's 3x3/s2 as on the AVX-512 CPU */
    {"SPP 13x13 AVX2", &avx2, F32, 4, {8, 512, 20, 20}, {13, 13}, {1, 1}, {6, 6, 6, 6}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 SH=1 SW=1 VW=16 WIDEN=1 "
     "EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 2,1,4096 local 1 rows 64 gap 0 "
     "sweep 0"},
    {"plane-path window AVX2", &avx2, F32, 4, {1, 128, 32, 32}, {9, 9}, {1, 1}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=9 KW=9 SH=1 SW=1 VW=16 WIDEN=1 "
     "EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 2,1,128 local 1 rows 64 gap 0 "
     "sweep 0"},
    {"3x3/s2 AVX2", &avx2, F32, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 WIDEN=1 "
     "EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=0 items 1,1,512 local 1 rows 64 gap 0 "
     "sweep 16"},
    {"3x3/s2 float16 AVX2", &avx2, F16, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 WIDEN=1 "
     "EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=0 items 1,1,512 local 1 rows 64 gap 0 "
     "sweep 16"},
    {"3x3/s2 float16 AVX-512: wide blocks", &cpu512, F16, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {0}, 0,
     0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 WIDEN=2 "
     "EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=1 STREAM_STORES=0 items 2,1,512 local 1 rows 64 gap 0 "
     "sweep 0"},
    {"SPP 13x13 GPU", &gpu, F32, 4, {8, 512, 20, 20}, {13, 13}, {1, 1}, {6, 6, 6, 6}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 SH=1 SW=1 VW=8 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=0 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items "
     "3,20,4096 local 1 rows 1 gap 0 sweep 0"},
    /* the 2-D paths' limits */
    {"no cache size: 3x3/s2 beyond the assumed reach", &cpu512_no_cache, F32, 4, {1, 64, 160, 160}, {3, 3}, {2, 2},
     {1, 1, 1, 1}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=1 STREAM_STORES=0 items 1,2,64 "
     "local 1 rows 64 gap 0 sweep 16"},
    {"float16 3x3/s2 with Indices beyond the cache", &cpu512, F16, 4, {8, 64, 224, 224}, {3, 3}, {2, 2}, {1, 1, 1, 1},
     {0}, 1, 0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT16 WITH_INDICES=1 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=0 items 1,7,512 "
     "local 1 rows 16 gap 0 sweep 16"},
    {"uint8 2x2/s1 beyond the cache", &cpu512, U8, 4, {8, 64, 224, 224}, {2, 2}, {1, 1}, {0}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_UINT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=2 KW=2 SH=1 SW=1 VW=16 "
     "WIDEN=4 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=1 items 1,4,512 "
     "local 1 rows 64 gap 0 sweep 16"},
    {"rows past int lanes", &cpu512, F32, 4, {1, 1, 2, (int64_t)1 << 31}, {1, 3}, {1, 2}, {0}, {0}, 0, 0,
     "nd: maxpool_nd.cl maxpool_nd_nb4 DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 SW=2 "
     "items 16777216 local 0 rows 16"},
    {"columns past int lanes", &cpu512, F32, 4, {1, 1, (int64_t)1 << 31, 2}, {3, 1}, {2, 1}, {0}, {0}, 0, 0,
     "nd: maxpool_nd.cl maxpool_nd DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 SW=1 "
     "items 67108864 local 0 rows 16"},
    {"column-major Indices past an int", &cpu512, F32, 4, {1, 1, (int64_t)1 << 27, 20}, {3, 3}, {2, 2}, {0}, {0}, 1,
     1,
     "nd: maxpool_nd.cl maxpool_nd DT_FLOAT32 WITH_INDICES=1 STORAGE_ORDER=1 NS=2 VW=16 NB_MAX=4 SW=2 "
     "items 4194304 local 0 rows 16"},
    {"stride-1 9x9 on rows too long for the plane", &cpu512, F32, 4, {1, 8, 64, 2000}, {9, 9}, {1, 1}, {0}, {0}, 0,
     0,
     "2d: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=9 KW=9 SH=1 SW=1 VW=16 "
     "WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 125,1,8 "
     "local 1 rows 64 gap 0 sweep 0"},
    {"stride-1 13x13 int8 rows too long for the flat band", &cpu512, I8, 4, {1, 8, 64, 3000}, {13, 13}, {1, 1},
     {6, 6, 6, 6}, {0}, 0, 0,
     "2d: maxpool2d.cl maxpool2d DT_INT8 WITH_INDICES=0 STORAGE_ORDER=0 KH=13 KW=13 SH=1 SW=1 VW=16 "
     "WIDEN=4 EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items 47,1,8 local "
     "1 rows 64 gap 0 sweep 0"},
    /* the one-pass 3-D kernel's limits */
    {"3-D stride 3 along W", &cpu512, F32, 5, {1, 8, 16, 30, 30}, {3, 3, 3}, {2, 2, 3}, {0}, {0}, 0, 0,
     "3d_two_pass: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=3 "
     "VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items "
     "1,1,128 local 1 rows 64 gap 0 sweep 0 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 "
     "STORAGE_ORDER=0 KH=3 KW=1 SH=2 SW=1 VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 "
     "ODD_START=0 STREAM_STORES=0 items 9,1,8 local 1 rows 64 gap 0 sweep 0 | scratch 71680, else nd"},
    {"3-D stride 8 along H", &cpu512, F32, 5, {1, 8, 16, 30, 30}, {3, 3, 3}, {2, 8, 2}, {0}, {0}, 0, 0,
     "3d_two_pass: maxpool_nd.cl maxpool_nd DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 "
     "SW=2 items 32 local 0 rows 16 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 "
     "KH=3 KW=1 SH=2 SW=1 VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 "
     "STREAM_STORES=0 items 4,1,8 local 1 rows 64 gap 0 sweep 0 | scratch 28672, else nd"},
    {"3-D 8 taps deep", &cpu512, F32, 5, {1, 8, 16, 30, 30}, {8, 3, 3}, {2, 2, 2}, {0}, {0}, 0, 0,
     "3d_two_pass: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 "
     "VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 STREAM_STORES=0 items "
     "1,1,128 local 1 rows 64 gap 0 sweep 0 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 "
     "STORAGE_ORDER=0 KH=8 KW=1 SH=2 SW=1 VW=16 WIDEN=1 EXACT_ROWS=1 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 "
     "ODD_START=0 STREAM_STORES=0 items 13,1,8 local 1 rows 64 gap 0 sweep 0 | scratch 100352, else nd"},
    {"3-D dilation", &cpu512, F32, 5, {1, 8, 16, 30, 30}, {3, 3, 3}, {2, 2, 2}, {0}, {1, 1, 2}, 0, 0,
     "3d_two_pass: maxpool_nd.cl maxpool_nd DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 "
     "SW=2 items 112 local 0 rows 16 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 "
     "KH=3 KW=1 SH=2 SW=1 VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=0 ODD_START=0 "
     "STREAM_STORES=0 items 12,1,8 local 1 rows 64 gap 0 sweep 0 | scratch 93184, else nd"},
    {"3-D planes past an int", &cpu512, F32, 5, {1, 1, 1024, 1024, 1024}, {3, 3, 3}, {2, 2, 2}, {0}, {0}, 0, 0,
     "3d_two_pass: maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 KH=3 KW=3 SH=2 SW=2 "
     "VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 ODD_START=0 STREAM_STORES=1 items "
     "1,8,1024 local 1 rows 64 gap 0 sweep 32 | maxpool2d.cl maxpool2d DT_FLOAT32 WITH_INDICES=0 "
     "STORAGE_ORDER=0 KH=3 KW=1 SH=2 SW=1 VW=16 WIDEN=1 EXACT_ROWS=4 OVERLAP_BLOCKS=1 SWEEP_BLOCKS=64 "
     "ODD_START=0 STREAM_STORES=1 items 256,8,1 local 1 rows 64 gap 0 sweep 64 | scratch 1069551616, else "
     "nd"},
    /* general kernel */
    {"general: dilation", &cpu512, F32, 4, {1, 16, 30, 30}, {3, 3}, {1, 1}, {0}, {2, 2}, 0, 0,
     "nd: maxpool_nd.cl maxpool_nd_nb2 DT_FLOAT32 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "26 local 0 rows 16"},
    {"general: 4-D windows", &llvmpipe, U8, 6, {1, 2, 6, 6, 6, 6}, {2, 2, 2, 2}, {2, 1, 1, 2}, {0}, {0}, 1, 1,
     "nd: maxpool_nd.cl maxpool_nd DT_UINT8 WITH_INDICES=1 STORAGE_ORDER=1 NS=4 VW=8 SW=2 items 150 "
     "local 0 rows 1"},
    {"general: float64 stride 5", &gpu, F64, 4, {1, 4, 40, 40}, {3, 3}, {5, 5}, {0}, {0}, 0, 0,
     "nd: maxpool_nd.cl maxpool_nd DT_FLOAT64 WITH_INDICES=0 STORAGE_ORDER=0 NS=2 VW=8 SW=0 items "
     "32 local 0 rows 1"},
};

/* A table case's shape, and its window over the defaults: strides and dilations where nonzero, the pads. */
static clpool_shape case_shape(int32_t rank, const int64_t *dims)
{
    clpool_shape shape = {rank, {0}};
    for (int32_t i = 0; i < rank; ++i) shape.dims[i] = dims[i];
    return shape;
}

static void case_window(int32_t ns, const int64_t *strides, const int64_t *dilations, const int64_t *pads,
                        int64_t *to_strides, int64_t *to_dilations, int64_t *to_pads)
{
    for (int32_t i = 0; i < ns; ++i) {
        if (strides[i]) to_strides[i] = strides[i];
        if (dilations[i]) to_dilations[i] = dilations[i];
        to_pads[i] = pads[i];
        to_pads[ns + i] = pads[ns + i];
    }
}

START_TEST(plan_matches_table)
{
    const plan_case *c = &cases[_i];
    const clpool_shape shape = case_shape(c->rank, c->dims);
    const int32_t ns = c->rank - 2;
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, ns, c->kernel), CLPOOL_SUCCESS);
    case_window(ns, c->strides, c->dilations, c->pads, p.strides, p.dilations, p.pads);
    p.storage_order = c->storage_order;
    clpool__pool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, c->dtype, c->indices, "test_plan", &desc), CLPOOL_SUCCESS);
    desc.in_limit = clpool__window_in_elements(&desc.w);
    clpool__plan plan;
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
    const clpool_shape shape = case_shape(c->rank, c->dims);
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, c->rank - 2, c->kernel), CLPOOL_SUCCESS);
    clpool__pool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, c->dtype, c->indices, "test_plan", &desc), CLPOOL_SUCCESS);
    clpool__plan a, b;
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

/* The first tier: one launch of window_first_tier whatever the call, only the
 * dtype compiled in, every attribute in its run-time geometry; without
 * Indices the output stands in for the Indices buffer. Whole planes without
 * Indices take the global pool's first tier. */
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
        clpool__pool_desc desc;
        ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, F16, indices, "test_plan", &desc), CLPOOL_SUCCESS);
        desc.in_off = 5, desc.out_off = 7, desc.idx_off = 11;
        clpool__plan plan;
        memset(&plan, 0xa5, sizeof plan);
        clpool__window_plan_first_tier(&cpu512, &desc, &plan);
        char text[2048];
        plan_text(&plan, text, sizeof text);
        /* outputs: 2 x 3 x 4 x 9 x 3 (D: (9-2)/2+1, H: (10+1+2-5)+1, W: (11-4)/3+1) */
        ck_assert_str_eq(text, "first_tier: window_first_tier.cl window_first_tier DT_FLOAT16 OP=1 items 648 local 0");
        ck_assert_int_eq(plan.first_tier, 1);
        const clpool__launch *l = &plan.launch[0];
        ck_assert_int_eq(l->nargs, 4);
        ck_assert_int_eq(l->args[0].role, CLPOOL__ROLE_INPUT);
        ck_assert_int_eq(l->args[1].role, CLPOOL__ROLE_OUTPUT);
        ck_assert_int_eq(l->args[2].role, indices ? CLPOOL__ROLE_INDICES : CLPOOL__ROLE_OUTPUT);
        ck_assert_int_eq(l->args[3].kind, CLPOOL__ARG_BLOCK);
        ck_assert_uint_eq(l->block_size, sizeof(clpool__window_first_tier_geom));
        const clpool__window_first_tier_geom *g = &l->block.first_tier;
        ck_assert_int_eq(g->ns, 3);
        ck_assert_int_eq(g->with_indices, indices);
        ck_assert_int_eq(g->col_major, 1);
        const int64_t in[3] = {9, 10, 11}, out[3] = {4, 9, 3}, k[3] = {2, 3, 4}, st[3] = {2, 1, 3}, dl[3] = {1, 2, 1},
                      pb[3] = {0, 1, 0};
        for (int d = 0; d < 3; ++d) {
            ck_assert_int_eq(g->w.in_dims[d], in[d]);
            ck_assert_int_eq(g->w.out_dims[d], out[d]);
            ck_assert_int_eq(g->w.kernel_shape[d], k[d]);
            ck_assert_int_eq(g->w.strides[d], st[d]);
            ck_assert_int_eq(g->w.dilations[d], dl[d]);
            ck_assert_int_eq(g->w.pad_begin[d], pb[d]);
        }
        ck_assert_int_eq(g->w.in_plane, 990);
        ck_assert_int_eq(g->outputs, 648);
        ck_assert_int_eq(g->in_offset, 5);
        ck_assert_int_eq(g->out_offset, 7);
        ck_assert_int_eq(g->idx_offset, 11);
    }
    /* whole-plane windows without Indices: the global pool's first tier */
    const clpool_shape planes = {4, {2, 3, 5, 7}};
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, (const int64_t[]){5, 7}), CLPOOL_SUCCESS);
    clpool__pool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&planes, &p, F16, 0, "test_plan", &desc), CLPOOL_SUCCESS);
    clpool__plan plan;
    clpool__window_plan_first_tier(&cpu512, &desc, &plan);
    ck_assert_int_eq(plan.path, CLPOOL__PATH_GLOBAL_MAX_DIRECT);
    ck_assert_int_eq(plan.first_tier, 1);
}
END_TEST

/* ------------------------------------------------------------ global pools */

typedef struct global_case {
    const char *name;
    const clpool__device_caps *caps;
    clpool__op op;
    double p;
    clpool_dtype dtype;
    int64_t planes, plane_size;
    int first_tier; /* plan the first tier instead */
    const char *expect;
} global_case;

#define GMAX CLPOOL__OP_GLOBAL_MAX_POOL
#define GAVG CLPOOL__OP_GLOBAL_AVERAGE_POOL
#define GLP CLPOOL__OP_GLOBAL_LP_POOL

static const global_case global_cases[] = {
    {"many short planes: grouped", &cpu512, GAVG, 0, F32, 65536, 49, 0,
     "global_sum_grouped: global_sum_pool.cl global_pool_grouped DT_FLOAT32 OP=2 LP_KIND=0 CHUNKED=1 "
     "items 4096 local 0 planes 65536 of 49 parts 1 col_major 0"},
    {"float16: direct", &cpu512, GAVG, 0, F16, 65536, 49, 0,
     "global_sum_direct: global_sum_pool.cl global_pool_direct DT_FLOAT16 OP=2 LP_KIND=0 CHUNKED=1 items "
     "65536 local 0 planes 65536 of 49 parts 1 col_major 0"},
    {"few long planes: two passes", &cpu512, GMAX, 0, F32, 8, 12544, 0,
     "global_max_two_pass: global_max_pool.cl global_pool_partial DT_FLOAT32 OP=1 LP_KIND=0 CHUNKED=1 "
     "items 96 local 1 planes 8 of 12544 parts 12 col_major 0 | global_max_pool.cl global_pool_final "
     "DT_FLOAT32 OP=1 LP_KIND=0 CHUNKED=1 items 8 local 0 planes 8 of 12544 parts 12 col_major 0 | "
     "scratch 768"},
    {"many long planes: grouped", &cpu512, GMAX, 0, F32, 2048, 3136, 0,
     "global_max_grouped: global_max_pool.cl global_pool_grouped DT_FLOAT32 OP=1 LP_KIND=0 CHUNKED=1 "
     "items 128 local 0 planes 2048 of 3136 parts 1 col_major 0"},
    {"Lp p=3 on a GPU: two passes", &gpu, GLP, 3, F64, 16, 1 << 20, 0,
     "global_sum_two_pass: global_sum_pool.cl global_pool_partial DT_FLOAT64 OP=3 LP_KIND=3 CHUNKED=0 "
     "items 10240 local 1 planes 16 of 1048576 parts 640 col_major 0 | global_sum_pool.cl "
     "global_pool_final DT_FLOAT64 OP=3 LP_KIND=3 CHUNKED=0 items 16 local 0 planes 16 of 1048576 parts "
     "640 col_major 0 | scratch 163840"},
    {"Lp float p: direct", &cpu512, GLP, 2.5, F32, 65536, 49, 0,
     "global_sum_direct: global_sum_pool.cl global_pool_direct DT_FLOAT32 OP=3 LP_KIND=0 CHUNKED=1 items "
     "65536 local 0 planes 65536 of 49 parts 1 col_major 0"},
    {"first tier", &cpu512, GMAX, 0, F32, 8, 12544, 1,
     "global_max_direct: global_max_pool.cl global_pool_direct DT_FLOAT32 OP=1 LP_KIND=0 CHUNKED=1 items "
     "8 local 0 planes 8 of 12544 parts 1 col_major 0"},
};


/* A channels-last view's description as clpool__window_enqueue_view makes it: N x C x spatial stored N x
 * spatial x C (element strides), Indices laid out as the output unless `idx_c_stride` says otherwise. */
static void view_strides(const clpool_shape *s, int64_t *strides)
{
    const int32_t r = s->rank;
    strides[1] = 1;
    int64_t next = s->dims[1];
    for (int32_t d = r - 1; d >= 2; --d) strides[d] = next, next *= s->dims[d];
    strides[0] = next;
}

static void channels_last_desc(clpool__pool_desc *d, const clpool_shape *in, int64_t idx_c_stride)
{
    clpool_shape out;
    clpool__window_output_shape(in, &d->w, &out);
    d->strided = 1;
    d->channels = in->dims[1];
    view_strides(in, d->in_strides);
    view_strides(&out, d->out_strides);
    view_strides(&out, d->idx_strides);
    d->idx_strides[1] = idx_c_stride;
}

/* Views: channels-last ones plan window_channels_last (lanes, rank, channel blocks per walk and positions per
 * work-item, one row group or not, strips down H where the sums' windows overlap there), all others the
 * first tier as the plan itself. */
START_TEST(view_plan_rules)
{
    static const struct {
        const char *name;
        const clpool__device_caps *caps;
        int op; /* 0 MaxPool, 1 AveragePool, 2 LpPool p = 2, 3 LpPool p = 2.5 */
        int64_t channels, kh, kw;
        int indices;
        int64_t idx_c_stride;
        const char *expect;
    } views[] = {
        {"avg 3x3/s1: strips of 4 outputs down H", &cpu512, 1, 64, 3, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=2 LP_KIND=0"
          " VW=16 NS=2 CB=4 ONE_GROUP=1 STRIP=4 items 28 local 1 blocks 4 positions 4"},
        {"avg 1x20: rows over 16 taps", &cpu512, 1, 64, 1, 20, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=2 LP_KIND=0"
          " VW=16 NS=2 CB=4 ONE_GROUP=0 PREFETCH_AHEAD=2 items 25 local 1 blocks 4 positions 8"},
        {"avg 5x5: five rows of 5 are two groups", &cpu512, 1, 64, 5, 5, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=2 LP_KIND=0"
          " VW=16 NS=2 CB=4 ONE_GROUP=0 PREFETCH_AHEAD=2 items 17 local 1 blocks 4 positions 16"},
        {"lp2 3x3, 300 channels: strips cap the blocks per walk at 4", &cpu512, 2, 300, 3, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=3 LP_KIND=2"
          " VW=16 NS=2 CB=4 ONE_GROUP=1 STRIP=4 items 112 local 1 blocks 19 positions 1"},
        {"avg 1x3: windows of one row, no strip", &cpu512, 1, 300, 1, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=2 LP_KIND=0"
          " VW=16 NS=2 CB=16 ONE_GROUP=1 items 168 local 1 blocks 19 positions 3"},
        {"max 3x3, 64 channels: taps of 256 bytes, prefetched", &cpu512, 0, 64, 3, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=1"
          " VW=16 NS=2 CB=4 PREFETCH_AHEAD=2 items 25 local 1 blocks 4 positions 16"},
        {"max 3x3 with Indices, 64 channels: prefetched three ahead", &cpu512, 0, 64, 3, 3, 1, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=1"
          " VW=16 NS=2 CB=4 PREFETCH_AHEAD=3 items 25 local 1 blocks 4 positions 16"},
        {"max 3x3 with Indices", &cpu512, 0, 256, 3, 3, 1, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=1"
          " VW=16 NS=2 CB=8 items 98 local 1 blocks 16 positions 4"},
        {"max 3x3 on a GPU", &gpu, 0, 64, 3, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=1"
          " VW=8 NS=2 CB=1 items 3136 local 0 blocks 1 positions 1"},
        {"avg 3x3 on a GPU: no row group", &gpu, 1, 64, 3, 3, 0, 1,
          "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=2 LP_KIND=0 VW=8 NS=2 "
          "CB=1 ONE_GROUP=0 items 3136 local 0 blocks 1 positions 1"},
        {"max 3x3, 8 channels: fewer than the lanes", &cpu512, 0, 8, 3, 3, 0, 1,
          "first_tier: window_first_tier.cl window_first_tier DT_FLOAT32 OP=1 items 3136 local 0"},
        {"lp 2.5: general p", &cpu512, 3, 64, 3, 3, 0, 1,
          "first_tier: window_first_tier.cl window_first_tier DT_FLOAT32 OP=3 LP_KIND=0 items 25088 local 0"},
        {"max with Indices strided across C", &cpu512, 0, 64, 3, 3, 1, 2,
          "first_tier: window_first_tier.cl window_first_tier DT_FLOAT32 OP=1 items 25088 local 0"},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; ++i) {
        const clpool_shape in = {4, {2, views[i].channels, 9, 30}};
        const int64_t k[2] = {views[i].kh, views[i].kw};
        clpool__pool_desc desc;
        if (views[i].op == 0) {
            clpool_maxpool_params p;
            ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, k), CLPOOL_SUCCESS);
            ck_assert_int_eq(clpool__maxpool_describe(&in, &p, F32, views[i].indices, "test_plan", &desc), CLPOOL_SUCCESS);
        } else if (views[i].op == 1) {
            clpool_average_pool_params p;
            ck_assert_int_eq(clpool_average_pool_params_init(&p, 2, k), CLPOOL_SUCCESS);
            ck_assert_int_eq(clpool__sum_pool_describe(&in, &p, NULL, F32, "test_plan", &desc), CLPOOL_SUCCESS);
        } else {
            clpool_lp_pool_params p;
            ck_assert_int_eq(clpool_lp_pool_params_init(&p, 2, k), CLPOOL_SUCCESS);
            p.p = views[i].op == 2 ? 2.0 : 2.5;
            ck_assert_int_eq(clpool__sum_pool_describe(&in, NULL, &p, F32, "test_plan", &desc), CLPOOL_SUCCESS);
        }
        channels_last_desc(&desc, &in, views[i].idx_c_stride);
        clpool__plan plan;
        memset(&plan, 0xa5, sizeof plan);
        clpool__window_plan_view(views[i].caps, &desc, &plan);
        char text[2048];
        plan_text(&plan, text, sizeof text);
        ck_assert_msg(strcmp(text, views[i].expect) == 0, "%s: planned\n  %s\nnot\n  %s", views[i].name, text,
                      views[i].expect);
        ck_assert_int_eq(plan.first_tier, 0);
    }
    /* A 3-D window (three times a 2-D window's rows) prefetches four positions ahead, not two. */
    const clpool_shape in3 = {5, {2, 64, 5, 9, 30}};
    const int64_t k3[3] = {3, 3, 3};
    clpool_maxpool_params p3;
    ck_assert_int_eq(clpool_maxpool_params_init(&p3, 3, k3), CLPOOL_SUCCESS);
    clpool__pool_desc desc3;
    ck_assert_int_eq(clpool__maxpool_describe(&in3, &p3, F32, 0, "test_plan", &desc3), CLPOOL_SUCCESS);
    channels_last_desc(&desc3, &in3, 1);
    clpool__plan plan3;
    clpool__window_plan_view(&cpu512, &desc3, &plan3);
    char text3[2048];
    plan_text(&plan3, text3, sizeof text3);
    ck_assert_str_eq(text3, "channels_last: window_channels_last.cl window_channels_last DT_FLOAT32 OP=1 VW=16 NS=3 CB=4 "
                            "PREFETCH_AHEAD=4 items 74 local 1 blocks 4 positions 16");
}
END_TEST

START_TEST(global_plan_matches_table)
{
    const global_case *c = &global_cases[_i];
    const clpool__global_desc desc = {.op = c->op, .p = c->p, .dtype = c->dtype,
                                      .esize = (int64_t)clpool_dtype_size(c->dtype), .planes = c->planes,
                                      .plane_size = c->plane_size, .in_off = 3, .out_off = 5};
    clpool__plan plan;
    memset(&plan, 0xa5, sizeof plan);
    if (c->first_tier)
        clpool__global_plan_first_tier(c->caps, &desc, &plan);
    else
        clpool__global_plan_call(c->caps, &desc, &plan);
    char text[2048];
    plan_text(&plan, text, sizeof text);
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
    const clpool__launch *l = &plan.launch[plan.launches - 1];
    ck_assert_int_eq(l->block.global.in_offset, 3);
    ck_assert_int_eq(l->block.global.out_offset, 5);
    /* p travels as the accumulation type, after the sizes */
    ck_assert_int_eq(l->args[l->nargs - 1].kind, CLPOOL__ARG_SCALAR);
    if (c->dtype == F64)
        ck_assert(l->scalar_size == sizeof(double) && l->scalar.f64 == c->p);
    else
        ck_assert(l->scalar_size == sizeof(float) && l->scalar.f32 == (float)c->p);
}
END_TEST

/* ------------------------------------------------------------------- Max */

typedef struct max_case {
    const char *name;
    const clpool__device_caps *caps;
    clpool_dtype dtype;
    size_t inputs;
    int32_t rank;
    int64_t dims[3];
    int64_t strides[6][3]; /* per input, then the output's own */
    const char *expect;    /* every pass, " | " between */
} max_case;

static const max_case max_cases[] = {
    {"same shape", &cpu512, F32, 2, 1, {16 * 64 * 128 * 128}, {{1}, {1}, {1}},
     "max.cl max_of_2 DT_FLOAT32 VW=16 STREAM_STORES=1 items 4096 local 1 blocks 256 mask 3 aliased 1 in0 "
     "in1"},
    {"broadcast a channel vector", &cpu512, F32, 2, 3, {16, 64, 16384}, {{1048576, 16384, 1}, {0, 1, 0}, {1048576, 16384, 1}},
     "max.cl max_of_2 DT_FLOAT32 VW=16 STREAM_STORES=1 items 4,64,16 local 1 blocks 256 mask 1 aliased 1 "
     "in0 in1"},
    {"five inputs: two passes", &gpu, I8, 5, 1, {1000}, {{1}, {1}, {1}, {0}, {1}, {1}},
     "max.cl max_of_4 DT_INT8 VW=16 STREAM_STORES=0 items 63 local 1 blocks 1 mask 7 aliased 1 in0 in1 "
     "in2 in3 | max.cl max_of_2 DT_INT8 VW=16 STREAM_STORES=0 items 63 local 1 blocks 1 mask 3 aliased 1 "
     "in5 in4"},
    {"a view: an input transposed (its innermost stride 64), the output dense", &cpu512, F32, 2, 2, {64, 64},
     {{64, 1}, {1, 64}, {64, 1}},
     "max.cl max_of_2 DT_FLOAT32 VW=16 STREAM_STORES=0 VIEW=1 items 1,64 local 1 blocks 64 mask 1 aliased 1 in0 "
     "in1"},
    {"a view: a stepped output (every other element of its rows)", &cpu512, F32, 1, 2, {64, 64},
     {{64, 1}, {256, 2}},
     "max.cl max_of_1 DT_FLOAT32 VW=16 STREAM_STORES=0 VIEW=1 items 1,64 local 1 blocks 64 mask 1 aliased 1 in0"},
};

START_TEST(max_plan_matches_table)
{
    const max_case *c = &max_cases[_i];
    int64_t strides[6][CLPOOL_MAX_RANK] = {{0}};
    const size_t offsets[5] = {0, 40, 80, 120, 160}; /* bytes */
    uint64_t moved = 0;
    for (size_t k = 0; k <= c->inputs; ++k)
        for (int32_t d = 0; d < c->rank; ++d) strides[k][d] = c->strides[k][d];
    clpool__max_desc desc = {.dtype = c->dtype, .esize = (int64_t)clpool_dtype_size(c->dtype), .inputs = c->inputs,
                             .rank = c->rank, .strides = (const int64_t(*)[CLPOOL_MAX_RANK])strides, .offsets = offsets,
                             .aliased = 1, .out_off = 0};
    int64_t n = 1;
    for (int32_t d = 0; d < c->rank; ++d) n *= (desc.dims[d] = c->dims[d]);
    moved = (uint64_t)n * (uint64_t)desc.esize * (c->inputs + 1);
    desc.moved = moved;
    clpool__max_plan plan;
    clpool__max_plan_call(c->caps, &desc, &plan);
    char text[4096];
    size_t len = 0;
    for (size_t pass = 0; pass < plan.passes; ++pass) {
        clpool__launch l;
        size_t first[CLPOOL__ARGS_MAX_ARITY];
        int arity;
        clpool__max_plan_pass(&desc, &plan, pass, &l, first, &arity);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s", pass ? " | " : "");
        launch_text(&l, text + len, sizeof text - len);
        len = strlen(text);
        for (int a = 0; a < arity; ++a) len += (size_t)snprintf(text + len, sizeof text - len, " in%zu", first[a]);
    }
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
}
END_TEST

/* ---------------------------------------------------- AveragePool and LpPool */

typedef struct sum_case {
    const char *name;
    const clpool__device_caps *caps;
    double p; /* 0: AveragePool, else LpPool's p */
    clpool_dtype dtype;
    int32_t rank;
    int64_t dims[6];
    int64_t kernel[4], strides[4], pads[8], dilations[4]; /* 0: the default */
    int count_include_pad;
    const char *expect; /* plan_text() */
} sum_case;

static const sum_case sum_cases[] = {
    {"Inception's 3x3/s1/p1", &cpu512, 0, F32, 4, {8, 192, 35, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=3 KW=3 SH=1 SW=1 VW=16 "
     "OVERLAP_BLOCKS=1 items 9216 local 0 rows 32"},
    {"DenseNet's 2x2/s2 float16: four column blocks per work-item", &cpu512, 0, F16, 4, {8, 256, 56, 56}, {2, 2},
     {2, 2}, {0}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT16 OP=2 LP_KIND=0 KH=2 KW=2 SH=2 SW=2 VW=16 "
     "OVERLAP_BLOCKS=1 NB_MAX=4 items 2048 local 0 rows 28"},
    {"5x5/s3: rows of at most 8 outputs take 8 lanes", &cpu512, 0, F32, 4, {8, 512, 17, 17}, {5, 5}, {3, 3}, {0}, {0}, 1,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=5 KW=5 SH=3 SW=3 VW=8 "
     "OVERLAP_BLOCKS=1 items 4096 local 0 rows 5"},
    {"few planes: bands halved", &cpu512, 0, F32, 4, {1, 1, 64, 64}, {3, 3}, {1, 1}, {0}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=3 KW=3 SH=1 SW=1 VW=16 "
     "OVERLAP_BLOCKS=1 items 16 local 0 rows 16"},
    {"3-D 2x2x2/s2", &cpu512, 0, F32, 5, {2, 64, 16, 56, 56}, {2, 2, 2}, {2, 2, 2}, {0}, {0}, 0,
     "sum_3d: sum_pool_rows.cl sum_pool_3d DT_FLOAT32 OP=2 LP_KIND=0 KD=2 SD=2 KH=2 KW=2 SH=2 SW=2 VW=16 "
     "OVERLAP_BLOCKS=1 NB_MAX=4 items 1024 local 0 rows 28"},
    {"Lp p=2 3x3/s2", &cpu512, 2, F32, 4, {8, 64, 112, 112}, {3, 3}, {2, 2}, {0}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=3 LP_KIND=2 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "OVERLAP_BLOCKS=1 items 4096 local 0 rows 32"},
    {"Lp p=1 bfloat16 on AVX2", &avx2, 1, CLPOOL_BFLOAT16, 4, {2, 16, 30, 30}, {3, 3}, {2, 2}, {0}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_BFLOAT16 OP=3 LP_KIND=1 KH=3 KW=3 SH=2 SW=2 VW=16 "
     "OVERLAP_BLOCKS=1 items 32 local 0 rows 14"},
    {"3x3/s1 on a GPU", &gpu, 0, F32, 4, {8, 192, 35, 35}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {0}, 0,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=3 KW=3 SH=1 SW=1 VW=8 "
     "OVERLAP_BLOCKS=0 items 268800 local 0 rows 1"},
    {"3-D on llvmpipe", &llvmpipe, 0, F16, 5, {1, 4, 8, 20, 20}, {2, 3, 3}, {2, 2, 2}, {0}, {0}, 1,
     "sum_3d: sum_pool_rows.cl sum_pool_3d DT_FLOAT16 OP=2 LP_KIND=0 KD=2 SD=2 KH=3 KW=3 SH=2 SW=2 VW=8 "
     "OVERLAP_BLOCKS=0 items 288 local 0 rows 1"},
    {"dilation: the general kernel, blocks per work-item", &cpu512, 0, F32, 4, {1, 16, 30, 70}, {3, 3}, {1, 1},
     {0}, {2, 2}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb4 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items 104 "
     "local 0 rows 8"},
    {"dilation on a GPU: one block", &gpu, 2, F64, 4, {1, 16, 30, 70}, {3, 3}, {1, 1}, {0}, {2, 2}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT64 OP=3 LP_KIND=2 NS=2 VW=8 SW=1 items 3744 local 0 rows "
     "1"},
    {"rows over the chunk's taps", &cpu512, 0, F32, 4, {2, 3, 9, 40}, {3, 17}, {1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb2 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items 21 "
     "local 0 rows 2"},
    {"more window rows than the ring", &cpu512, 0, F32, 4, {1, 2, 40, 40}, {17, 3}, {1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb3 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items 24 "
     "local 0 rows 2"},
    {"3-D: more depth than the ring", &cpu512, 0, F32, 5, {1, 2, 20, 8, 8}, {17, 1, 1}, {1, 1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=3 VW=16 NB_MAX=4 SW=1 items 16 "
     "local 0 rows 4"},
    {"3-D: depth x height past the ring", &cpu512, 0, F32, 5, {1, 2, 8, 8, 8}, {5, 4, 1}, {1, 1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=3 VW=16 NB_MAX=4 SW=1 items 20 "
     "local 0 rows 2"},
    {"stride 5 along W on CPU SIMD", &cpu512, 0, F32, 4, {1, 4, 40, 40}, {3, 3}, {5, 5}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=5 items 16 "
     "local 0 rows 2"},
    {"stride 3 along W on a GPU", &gpu, 0, F32, 4, {1, 4, 40, 40}, {3, 3}, {3, 3}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=8 SW=0 items 104 local 0 rows 1"},
    {"4-D windows", &llvmpipe, 0, F32, 6, {1, 2, 6, 6, 6, 6}, {2, 2, 2, 2}, {2, 1, 1, 2}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=4 VW=8 SW=2 items 150 local 0 rows 1"},
    {"rows past int lanes", &cpu512, 0, F32, 4, {1, 1, 2, (int64_t)1 << 31}, {1, 3}, {1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb4 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "33554432 local 0 rows 8"},
    {"end pads past int lanes", &cpu512, 0, F32, 4, {1, 1, 2, 8}, {1, 3}, {1, 1}, {0, 0, 0, (int64_t)1 << 30}, {0},
     1,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb4 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "16777217 local 0 rows 8"},
    {"whole planes counting pads: the row kernel", &cpu512, 0, F32, 4, {1, 2, 5, 5}, {7, 7}, {1, 1}, {1, 1, 1, 1},
     {0}, 1,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=7 KW=7 SH=1 SW=1 VW=8 "
     "OVERLAP_BLOCKS=1 items 2 local 0 rows 1"},
    {"whole planes counting end pads: the row kernel", &cpu512, 0, F32, 4, {1, 2, 5, 5}, {6, 6}, {1, 1},
     {0, 0, 1, 1}, {0}, 1,
     "sum_2d: sum_pool_rows.cl sum_pool_2d DT_FLOAT32 OP=2 LP_KIND=0 KH=6 KW=6 SH=1 SW=1 VW=8 "
     "OVERLAP_BLOCKS=1 items 2 local 0 rows 1"},
    {"columns past int lanes", &cpu512, 0, F32, 4, {1, 1, (int64_t)1 << 31, 2}, {3, 1}, {1, 1}, {0}, {0}, 0,
     "sum_nd: sum_pool_nd.cl sum_pool_nd DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "268435456 local 0 rows 8"},
    {"begin pads past int lanes", &cpu512, 0, F32, 4, {1, 1, 2, 8}, {1, 3}, {1, 1}, {0, (int64_t)1 << 30, 0, 0},
     {0}, 1,
     "sum_nd: sum_pool_nd.cl sum_pool_nd_nb4 DT_FLOAT32 OP=2 LP_KIND=0 NS=2 VW=16 NB_MAX=4 SW=1 items "
     "16777217 local 0 rows 8"},
    {"Lp p=2.5: the first tier's kernel", &cpu512, 2.5, F32, 4, {8, 64, 56, 56}, {3, 3}, {2, 2}, {0}, {0}, 0,
     "first_tier: window_first_tier.cl window_first_tier DT_FLOAT32 OP=3 LP_KIND=0 items 373248 local 0"},
    {"whole planes counting no pads: the global pool", &cpu512, 0, F32, 4, {8, 512, 7, 7}, {7, 7}, {1, 1}, {0}, {0}, 1,
     "global_sum_grouped: global_sum_pool.cl global_pool_grouped DT_FLOAT32 OP=2 LP_KIND=0 CHUNKED=1 "
     "items 256 local 0 planes 4096 of 49 parts 1 col_major 0"},
};

START_TEST(sum_plan_matches_table)
{
    const sum_case *c = &sum_cases[_i];
    const clpool_shape shape = case_shape(c->rank, c->dims);
    const int32_t ns = c->rank - 2;
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    ck_assert_int_eq(clpool_average_pool_params_init(&avg, ns, c->kernel), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_lp_pool_params_init(&lp, ns, c->kernel), CLPOOL_SUCCESS);
    clpool_window_params *w = c->p ? &lp.window : &avg.window;
    case_window(ns, c->strides, c->dilations, c->pads, w->strides, w->dilations, w->pads);
    avg.count_include_pad = c->count_include_pad;
    lp.p = c->p;
    clpool__pool_desc desc;
    ck_assert_int_eq(clpool__sum_pool_describe(&shape, c->p ? NULL : &avg, c->p ? &lp : NULL, c->dtype, "test_plan",
                                               &desc),
                     CLPOOL_SUCCESS);
    clpool__plan plan;
    memset(&plan, 0xa5, sizeof plan);
    clpool__sum_pool_plan_call(c->caps, &desc, &plan);
    char text[2048];
    plan_text(&plan, text, sizeof text);
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
    ck_assert_int_eq(plan.first_tier, 0);
}
END_TEST

/* ------------------------------------------------------------- MaxUnpool */

typedef struct unpool_case {
    const char *name;
    const clpool__device_caps *caps;
    clpool_dtype dtype;
    int64_t planes, x_plane, y_plane, idx_plane;
    const char *expect;
} unpool_case;

static const unpool_case unpool_cases[] = {
    {"SegNet's 2x2/s2: whole planes, 16 KiB each", &cpu512, F32, 512, 784, 3136, 3136,
     "unpool_planes: max_unpool.cl max_unpool_planes DT_UINT32 items 512 local 1 per_item 1 remap 0 args 5"},
    {"small planes: several per work-item", &cpu512, F16, 4096, 16, 64, 64,
     "unpool_planes: max_unpool.cl max_unpool_planes DT_UINT16 items 32 local 1 per_item 128 remap 0 args 5"},
    {"few planes: zero, then scatter", &cpu512, I8, 3, 65536, 262144, 262144,
     "unpool_scatter: max_unpool.cl max_unpool_zero DT_UINT8 items 48 local 1 per_item 16384 remap 0 args 2 | "
     "max_unpool.cl max_unpool_scatter DT_UINT8 items 24 local 1 per_item 8192 remap 0 args 5"},
    {"a GPU: an element per work-item, remapped", &gpu, F64, 512, 784, 3249, 3136,
     "unpool_scatter: max_unpool.cl max_unpool_zero DT_UINT64 items 1663488 local 1 per_item 1 remap 1 args 2 | "
     "max_unpool.cl max_unpool_scatter DT_UINT64 items 401408 local 1 per_item 1 remap 1 args 5"},
};

START_TEST(unpool_plan_matches_table)
{
    const unpool_case *c = &unpool_cases[_i];
    clpool__max_unpool_desc d = {.dtype = c->dtype, .esize = (int64_t)clpool_dtype_size(c->dtype),
                                 .planes = c->planes, .x_plane = c->x_plane, .y_plane = c->y_plane,
                                 .idx_plane = c->idx_plane, .remap = c->idx_plane != c->y_plane, .ns = 2,
                                 .count_skipped = 1, .x_off = 3, .idx_off = 5, .y_off = 7, .skip_off = 9};
    clpool__plan plan;
    memset(&plan, 0xa5, sizeof plan);
    clpool__max_unpool_plan_call(c->caps, &d, &plan);
    char text[2048];
    plan_text(&plan, text, sizeof text);
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
    ck_assert_int_eq(plan.first_tier, 1);
    const clpool__max_unpool_sizes *s = &plan.launch[plan.launches - 1].block.unpool;
    ck_assert(s->x_offset == 3 && s->idx_offset == 5 && s->y_offset == 7 && s->skip_offset == 9 && s->count_skipped);
}
END_TEST

/* MaxUnpool on views: each pass walks its tensor in memory order, dims merged where every stride allows;
 * positions as k * unit where the output's spatial dims are dense in order. Walk entries: dims:X stride,
 * Indices stride, plane step, output plane step (the zeroes: the output's stride, then 0s). */
typedef struct unpool_view_case {
    const char *name;
    int64_t x[4], y[4], xs[4], is[4], ys[4];
    const char *expect;
} unpool_view_case;

static int64_t plane_of(const clpool_shape *s, int64_t planes) { return clpool_shape_elements(s) / planes; }

static const unpool_view_case unpool_view_cases[] = {
    {"channels-last X, Indices and output: the zeroes one dim, positions at C apart",
     {2, 32, 4, 4}, {2, 32, 8, 8}, {512, 1, 128, 32}, {512, 1, 128, 32}, {2048, 1, 256, 32},
     "unpool_view: max_unpool.cl max_unpool_zero DT_UINT32 VIEW=1 items 16 local 1 per_item 256 unit 0 walk "
     "4096:1,0,0,0 | max_unpool.cl max_unpool_scatter DT_UINT32 VIEW=1 items 1 local 1 per_item 1024 unit 32 walk "
     "2:512,512,32,2048 16:32,32,0,0 32:1,1,1,1"},
    {"contiguous X, an output with a step: spatial dims merged, positions at 2 apart",
     {1, 3, 2, 2}, {1, 3, 4, 4}, {12, 4, 2, 1}, {12, 4, 2, 1}, {96, 32, 8, 2},
     "unpool_view: max_unpool.cl max_unpool_zero DT_UINT32 VIEW=1 items 1 local 1 per_item 256 unit 0 walk "
     "48:2,0,0,0 | max_unpool.cl max_unpool_scatter DT_UINT32 VIEW=1 items 1 local 1 per_item 1024 unit 2 walk "
     "3:4,4,1,32 4:1,1,0,0"},
    {"padded output rows: positions dim by dim",
     {1, 3, 2, 2}, {1, 3, 4, 4}, {12, 4, 2, 1}, {12, 4, 2, 1}, {200, 50, 10, 2},
     "unpool_view: max_unpool.cl max_unpool_zero DT_UINT32 VIEW=1 items 1 local 1 per_item 256 unit 0 walk "
     "3:50,0,0,0 4:10,0,0,0 4:2,0,0,0 | max_unpool.cl max_unpool_scatter DT_UINT32 VIEW=1 items 1 local 1 per_item "
     "1024 unit 0 walk 3:4,4,1,50 4:1,1,0,0"},
};

START_TEST(unpool_view_plan_matches_table)
{
    const unpool_view_case *c = &unpool_view_cases[_i];
    clpool__max_unpool_view_desc v;
    memset(&v, 0, sizeof v);
    v.rank = 4;
    clpool_shape xs = {4, {0}}, ys = {4, {0}};
    for (int d = 0; d < 4; ++d) {
        v.x_dims[d] = xs.dims[d] = c->x[d], v.y_dims[d] = ys.dims[d] = c->y[d];
        v.x_strides[d] = c->xs[d], v.idx_strides[d] = c->is[d], v.y_strides[d] = c->ys[d];
    }
    const int64_t planes = c->x[0] * c->x[1];
    v.call = (clpool__max_unpool_desc){.dtype = F32, .esize = 4, .planes = planes,
                                       .x_plane = plane_of(&xs, planes), .y_plane = plane_of(&ys, planes),
                                       .idx_plane = plane_of(&ys, planes), .ns = 2, .count_skipped = 1};
    for (int d = 0; d < 2; ++d) v.call.idx_dims[d] = v.call.y_dims[d] = c->y[2 + d];
    clpool__plan plan;
    memset(&plan, 0xa5, sizeof plan);
    clpool__max_unpool_plan_view(&cpu512, &v, &plan);
    char text[2048];
    plan_text(&plan, text, sizeof text);
    ck_assert_msg(strcmp(text, c->expect) == 0, "%s:\n  got    %s\n  expect %s", c->name, text, c->expect);
    ck_assert_int_eq(plan.first_tier, 1);
    /* a GPU: an element per work-item in either pass, the same walks */
    clpool__max_unpool_plan_view(&gpu, &v, &plan);
    for (int i = 0; i < plan.launches; ++i) ck_assert_int_eq(plan.launch[i].block.unpool_view.per_item, 1);
}
END_TEST

/* Messages name OpenCL's errors: each code the library may meet by its own name, the rest as unknown. */
START_TEST(cl_error_names)
{
    static const cl_int named[] = {CL_SUCCESS, CL_DEVICE_NOT_FOUND, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY,
                                   CL_BUILD_PROGRAM_FAILURE, CL_INVALID_VALUE, CL_INVALID_MEM_OBJECT,
                                   CL_INVALID_KERNEL_ARGS, CL_INVALID_WORK_GROUP_SIZE,
                                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST};
    ck_assert_str_eq(clpool__cl_error_name(CL_INVALID_ARG_SIZE), "CL_INVALID_ARG_SIZE");
    for (size_t i = 0; i < sizeof named / sizeof named[0]; ++i)
        ck_assert_msg(strncmp(clpool__cl_error_name(named[i]), "CL_", 3) == 0, "%d", (int)named[i]);
    /* every code from 0 to -70: a CL_ name, distinct from the others', or "unknown" */
    const char *seen[71];
    for (int e = 0; e <= 70; ++e) {
        seen[e] = clpool__cl_error_name(-e);
        ck_assert(seen[e] && *seen[e]);
        for (int f = 0; f < e && strncmp(seen[e], "CL_", 3) == 0; ++f) ck_assert_str_ne(seen[e], seen[f]);
    }
    ck_assert_str_eq(clpool__cl_error_name(-9999), "unknown OpenCL error");
    ck_assert_str_eq(clpool__cl_error_name(7), "unknown OpenCL error");
    ck_assert_int_eq(clpool__cl_fail(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel(k)"), CLPOOL_ERROR_OPENCL);
    ck_assert_str_eq(clpool_last_error(), "clEnqueueNDRangeKernel(k) failed: CL_OUT_OF_RESOURCES (-5)");
}
END_TEST

/* Every path of the family table has its program's parts and kernels, ending in its family's file; paths
 * with the same parts share one array. */
/* The dtype macros the options name (DT_UNKNOWN for a value that is no dtype) and the shapes messages print. */
START_TEST(dtype_macros)
{
    ck_assert_str_eq(clpool__dtype_macro(CLPOOL_FLOAT32), "DT_FLOAT32");
    ck_assert_str_eq(clpool__dtype_macro(CLPOOL_BFLOAT16), "DT_BFLOAT16");
    ck_assert_str_eq(clpool__dtype_macro((clpool_dtype)99), "DT_UNKNOWN");
    /* shapes in messages: ranks out of range clamped, the text cut at the buffer */
    char buf[64];
    const clpool_shape none = {-1, {0}}, deep = {13, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
    ck_assert_str_eq(clpool__shape_str(&none, buf, sizeof buf), "[]");
    ck_assert_str_eq(clpool__shape_str(&deep, buf, sizeof buf), "[1,2,3,4,5,6,7,8,9,10,11,12]");
    ck_assert_str_eq(clpool__shape_str(&deep, buf, 6), "[1,2,");
}
END_TEST

START_TEST(family_table_is_complete)
{
    for (int p = CLPOOL__PATH_NONE + 1; p < CLPOOL__PATHS; ++p) {
        const clpool__family *f = &clpool__families[p];
        ck_assert_int_eq(f->path, p);
        ck_assert_ptr_nonnull(f->name);
        if (p == CLPOOL__PATH_MAXPOOL_3D_TWO_PASS) continue; /* a plan of other paths' launches */
        ck_assert_ptr_nonnull(f->parts);
        ck_assert_ptr_nonnull(f->kernels);
        ck_assert_ptr_nonnull(f->kernels[0]);
    }
    /* one list of parts, one array: the program cache tells programs' parts apart by pointer */
    for (int p = CLPOOL__PATH_NONE + 1; p < CLPOOL__PATHS; ++p)
        for (int q = p + 1; q < CLPOOL__PATHS; ++q) {
            const char *const *a = clpool__families[p].parts, *const *b = clpool__families[q].parts;
            if (!a || !b || a == b) continue;
            size_t i = 0;
            while (a[i] && b[i] && strcmp(a[i], b[i]) == 0) ++i;
            ck_assert_msg(a[i] || b[i], "paths %s and %s list the same parts in two arrays",
                          clpool__families[p].name, clpool__families[q].name);
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
    clpool__pool_desc desc;
    ck_assert_int_eq(clpool__maxpool_describe(&shape, &p, F32, 0, "test_plan", &desc), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "test_plan: strides[1] = 0 must be >= 1");
}
END_TEST

/* The public window type: its defaults, its bad input, and that MaxPool's window sizes the same way. */
START_TEST(window_params_init)
{
    clpool_window_params w;
    const int64_t k[2] = {3, 2};
    ck_assert_int_eq(clpool_window_params_init(&w, 2, k), CLPOOL_SUCCESS);
    ck_assert_uint_eq(w.struct_size, sizeof w);
    ck_assert(w.kernel_shape[0] == 3 && w.kernel_shape[1] == 2 && w.strides[1] == 1 && w.dilations[0] == 1);
    ck_assert(w.pads[0] == 0 && w.pads[3] == 0 && w.ceil_mode == 0 && w.auto_pad == CLPOOL_AUTO_PAD_NOTSET);
    ck_assert_int_eq(clpool_window_params_init(&w, 0, k), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_window_params_init: spatial_rank 0 is outside 1..10");
    ck_assert_int_eq(clpool_window_params_init(&w, 11, k), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_window_params_init: spatial_rank 11 is outside 1..10");
    ck_assert_int_eq(clpool_window_params_init(NULL, 2, k), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_window_params_init: params is NULL");
    ck_assert_int_eq(clpool_window_params_init(&w, 2, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_window_params_init: kernel_shape is NULL");
    /* the window layer sizes a window as MaxPool's output shape does (SAME_LOWER, dilated) */
    w.strides[0] = 2, w.dilations[1] = 3, w.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, k), CLPOOL_SUCCESS);
    p.strides[0] = 2, p.dilations[1] = 3, p.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    const clpool_shape in = {4, {2, 3, 9, 7}};
    clpool__window win;
    clpool_shape a, b;
    ck_assert_int_eq(clpool__window_size(&in, &w, CLPOOL__WINDOW_NEEDS_TAP, "test_plan", &win), CLPOOL_SUCCESS);
    clpool__window_output_shape(&in, &win, &a);
    ck_assert_int_eq(clpool_maxpool_output_shape(&in, &p, &b), CLPOOL_SUCCESS);
    ck_assert_int_eq(a.rank, 4);
    for (int d = 0; d < 4; ++d) ck_assert_int_eq(a.dims[d], b.dims[d]);
    ck_assert(a.dims[2] == 5 && a.dims[3] == 7);
    /* SAME_LOWER: total padding (7-1)*1 + 4 - 7 = 3 along W, 2 of it first */
    ck_assert(win.pad_begin[1] == 2 && win.pad_end[1] == 1 && win.pad_begin[0] == 1 && win.pad_end[0] == 1);
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
    tcase_add_test(tc, view_plan_rules);
    tcase_add_loop_test(tc, global_plan_matches_table, 0, (int)(sizeof global_cases / sizeof global_cases[0]));
    tcase_add_loop_test(tc, sum_plan_matches_table, 0, (int)(sizeof sum_cases / sizeof sum_cases[0]));
    tcase_add_loop_test(tc, max_plan_matches_table, 0, (int)(sizeof max_cases / sizeof max_cases[0]));
    tcase_add_loop_test(tc, unpool_plan_matches_table, 0, (int)(sizeof unpool_cases / sizeof unpool_cases[0]));
    tcase_add_loop_test(tc, unpool_view_plan_matches_table, 0,
                        (int)(sizeof unpool_view_cases / sizeof unpool_view_cases[0]));
    tcase_add_test(tc, family_table_is_complete);
    tcase_add_test(tc, cl_error_names);
    tcase_add_test(tc, dtype_macros);
    tcase_add_test(tc, window_params_init);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
