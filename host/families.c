/* The family table (plan.h): every kernel path the planners choose, with its program's parts and kernels. New
 * paths enter here first; tests/test_plan.c and tools/clpool_programs.c derive their lists from it. */
#include "plan.h"

/* Each kernel family after the headers it uses, in order (kernels/), so a
 * program compiles only its own family. */
#define MAXPOOL2D_HEADERS "reduce_max.h", "window_lanes.h", "maxpool2d_common.h", "maxpool2d_fast.h", "maxpool2d_exact.h"
static const char *const first_tier_parts[] = {"reduce_max.h", "reduce_sum.h", "window.h", "window_tier.h",
                                               "window_first_tier.cl", NULL};
static const char *const channels_last_parts[] = {"reduce_max.h",  "reduce_sum.h", "window.h",
                                                  "window_tier.h", "sum_lanes.h",  "window_channels_last.cl",
                                                  NULL};
static const char *const nd_parts[] = {"reduce_max.h", "window.h", "window_lanes.h", "maxpool_nd.cl", NULL};
static const char *const parts_2d[] = {MAXPOOL2D_HEADERS, "maxpool2d_argmax.h", "maxpool2d_block.h",
                                       "maxpool2d_sweep.h", "maxpool2d.cl", NULL};
static const char *const plane_parts[] = {MAXPOOL2D_HEADERS, "maxpool2d_block.h", "maxpool2d_band.h",
                                          "maxpool2d_plane.cl", NULL};
static const char *const flat_parts[] = {MAXPOOL2D_HEADERS, "maxpool2d_block.h", "maxpool2d_band.h",
                                         "maxpool2d_flat.cl", NULL};
static const char *const sum_nd_parts[] = {"reduce_sum.h", "window.h", "window_lanes.h", "sum_lanes.h", "sum_pool_nd.cl",
                                           NULL};
static const char *const sum_rows_parts[] = {"reduce_sum.h", "window.h", "window_lanes.h", "sum_lanes.h",
                                             "sum_pool_rows.cl", NULL};
static const char *const parts_3d[] = {"reduce_max.h", "maxpool3d.cl", NULL};
static const char *const global_max_parts[] = {"reduce_max.h", "global_pool.h", "global_max_pool.cl", NULL};
static const char *const global_sum_parts[] = {"reduce_sum.h", "global_pool.h", "global_sum_pool.cl", NULL};
static const char *const max_parts[] = {"reduce_max.h", "max.cl", NULL};
static const char *const unpool_parts[] = {"max_unpool.cl", NULL};

static const char *const first_tier_kernels[] = {"window_first_tier", NULL};
static const char *const channels_last_kernels[] = {"window_channels_last", NULL};
static const char *const nd_kernels[] = {"maxpool_nd", "maxpool_nd_nb2", "maxpool_nd_nb3", "maxpool_nd_nb4", NULL};
static const char *const window_kernels[] = {"maxpool_window", NULL};
static const char *const kernels_2d[] = {"maxpool2d", NULL};
static const char *const plane_kernels[] = {"maxpool2d_plane", NULL};
static const char *const flat_kernels[] = {
    "maxpool2d_flat_p0", "maxpool2d_flat_p1", "maxpool2d_flat_p2", "maxpool2d_flat_p3",  "maxpool2d_flat_p4",
    "maxpool2d_flat_p5", "maxpool2d_flat_p6", "maxpool2d_flat_p7", "maxpool2d_flat_p8",  "maxpool2d_flat_p9",
    "maxpool2d_flat_p10", "maxpool2d_flat_p11", "maxpool2d_flat_p12", NULL};
static const char *const sum_nd_kernels[] = {"sum_pool_nd", "sum_pool_nd_nb2", "sum_pool_nd_nb3", "sum_pool_nd_nb4",
                                             NULL};
static const char *const sum_2d_kernels[] = {"sum_pool_2d", NULL};
static const char *const sum_3d_kernels[] = {"sum_pool_3d", NULL};
static const char *const kernels_3d[] = {"maxpool3d", NULL};
static const char *const direct_kernels[] = {"global_pool_direct", NULL};
static const char *const grouped_kernels[] = {"global_pool_grouped", NULL};
static const char *const two_pass_kernels[] = {"global_pool_partial", "global_pool_final", NULL};
static const char *const indices_kernels[] = {"global_max_pool_indices", NULL};
static const char *const max_kernels[] = {"max_of_1", "max_of_2", "max_of_3", "max_of_4", NULL};
static const char *const unpool_planes_kernels[] = {"max_unpool_planes", NULL};
static const char *const unpool_scatter_kernels[] = {"max_unpool_zero", "max_unpool_scatter", NULL};

/* A row: the path, its name, its program's parts and kernels (NULL, NULL: a plan of other paths' launches). */
#define ROW(path, name, parts, kernels) [CLPOOL__PATH_##path] = {CLPOOL__PATH_##path, name, parts, kernels}
const clpool__family clpool__families[CLPOOL__PATHS] = {
    ROW(NONE, "none", NULL, NULL),
    ROW(WINDOW_FIRST_TIER, "first_tier", first_tier_parts, first_tier_kernels),
    ROW(WINDOW_CHANNELS_LAST, "channels_last", channels_last_parts, channels_last_kernels),
    ROW(MAXPOOL_ND, "nd", nd_parts, nd_kernels),
    ROW(MAXPOOL_WINDOW, "window", nd_parts, window_kernels),
    ROW(MAXPOOL_2D, "2d", parts_2d, kernels_2d),
    ROW(MAXPOOL_PLANE, "plane", plane_parts, plane_kernels),
    ROW(MAXPOOL_FLAT, "flat", flat_parts, flat_kernels),
    ROW(MAXPOOL_3D, "3d", parts_3d, kernels_3d),
    ROW(MAXPOOL_3D_TWO_PASS, "3d_two_pass", NULL, NULL),
    ROW(SUM_POOL_ND, "sum_nd", sum_nd_parts, sum_nd_kernels),
    ROW(SUM_POOL_2D, "sum_2d", sum_rows_parts, sum_2d_kernels),
    ROW(SUM_POOL_3D, "sum_3d", sum_rows_parts, sum_3d_kernels),
    ROW(GLOBAL_MAX_DIRECT, "global_max_direct", global_max_parts, direct_kernels),
    ROW(GLOBAL_MAX_GROUPED, "global_max_grouped", global_max_parts, grouped_kernels),
    ROW(GLOBAL_MAX_TWO_PASS, "global_max_two_pass", global_max_parts, two_pass_kernels),
    ROW(GLOBAL_MAX_INDICES, "global_max_indices", global_max_parts, indices_kernels),
    ROW(GLOBAL_SUM_DIRECT, "global_sum_direct", global_sum_parts, direct_kernels),
    ROW(GLOBAL_SUM_GROUPED, "global_sum_grouped", global_sum_parts, grouped_kernels),
    ROW(GLOBAL_SUM_TWO_PASS, "global_sum_two_pass", global_sum_parts, two_pass_kernels),
    ROW(MAX, "max", max_parts, max_kernels),
    ROW(MAX_UNPOOL_PLANES, "unpool_planes", unpool_parts, unpool_planes_kernels),
    ROW(MAX_UNPOOL_SCATTER, "unpool_scatter", unpool_parts, unpool_scatter_kernels),
    ROW(MAX_UNPOOL_VIEW, "unpool_view", unpool_parts, unpool_scatter_kernels),
};
#undef ROW
