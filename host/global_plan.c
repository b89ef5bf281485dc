/* The global pools' planner (planners.h): one work-item per plane, 16 planes
 * per work-item, or each plane split over lanes in two passes
 * (kernels/global_pool.h says how each kernel works). */
#include <string.h>

#include "planners.h"

/* Planes shorter than this are never split: a split only pays off for long loops. */
#define MIN_ELEMENTS_PER_PART 1024
/* Work-items to fill a device: this many work-groups of its size per compute unit. */
#define GROUPS_PER_CU 4
/* CPUs take 16 planes per work-item (global_pool_grouped): planes of at least
 * 16 elements; the sums only up to the kernel's SHORT_SUM. */
#define GROUPED_MIN_ELEMENTS 16
#define GROUPED_SUM_MAX_ELEMENTS 256
/* global_max_pool_indices: planes of at least 16 in groups of 16, four
 * groups per compute unit, column-major Indices over at most 3 dims. */
#define GLOBAL_INDICES_MIN_PLANE 16
#define GLOBAL_INDICES_GROUPS_PER_CU 4

int clpool__global_pool_dtype_ok(clpool_dtype dtype)
{
    return dtype == CLPOOL_FLOAT32 || dtype == CLPOOL_FLOAT64 || dtype == CLPOOL_FLOAT16 || dtype == CLPOOL_BFLOAT16;
}

int clpool__global_indices_ok(const clpool__device_caps *caps, const clpool__global_desc *g, int32_t ns)
{
    return caps->cpu && g->plane_size >= GLOBAL_INDICES_MIN_PLANE &&
           (g->dtype == CLPOOL_FLOAT32 || g->dtype == CLPOOL_FLOAT64) &&
           g->planes / 16 >= GLOBAL_INDICES_GROUPS_PER_CU * (int64_t)caps->compute_units &&
           (!g->col_major || ns <= 3);
}

static int kernel_op(const clpool__global_desc *g)
{
    return g->op == CLPOOL__OP_GLOBAL_MAX_POOL       ? CLPOOL__OP_REDUCE_MAX
           : g->op == CLPOOL__OP_GLOBAL_AVERAGE_POOL ? CLPOOL__OP_REDUCE_AVG
                                                     : CLPOOL__OP_REDUCE_LP;
}

int clpool__lp_kind(double p) { return p == 1.0 ? 1 : p == 2.0 ? 2 : (p <= 64 && p == (double)(int)p) ? 3 : 0; }

void clpool__launch_p(clpool__launch *l, clpool_dtype dtype, double p)
{
    if (dtype == CLPOOL_FLOAT64)
        l->scalar.f64 = p;
    else
        l->scalar.f32 = (float)p;
    clpool__launch_scalar(l, dtype == CLPOOL_FLOAT64 ? sizeof l->scalar.f64 : sizeof l->scalar.f32);
}

static int lp_kind(const clpool__global_desc *g) { return g->op == CLPOOL__OP_GLOBAL_LP_POOL ? clpool__lp_kind(g->p) : 0; }

/* How many partial results per plane: 1 (one pass) when the planes alone fill the device. */
static int64_t choose_parts(const clpool__device_caps *caps, const clpool__global_desc *g)
{
    const int64_t target_items = (int64_t)caps->compute_units * (int64_t)caps->local_size * GROUPS_PER_CU;
    if (g->planes >= target_items || g->plane_size < 2 * MIN_ELEMENTS_PER_PART) return 1;
    const int64_t parts = (target_items + g->planes - 1) / g->planes, max_parts = g->plane_size / MIN_ELEMENTS_PER_PART;
    return parts < max_parts ? parts : max_parts;
}

/* Whether a CPU takes 16 planes per work-item: float32/float64, and for the sums a p with a vector form. */
static int grouped_ok(const clpool__device_caps *caps, const clpool__global_desc *g)
{
    if (!caps->cpu || g->plane_size < GROUPED_MIN_ELEMENTS ||
        (g->dtype != CLPOOL_FLOAT32 && g->dtype != CLPOOL_FLOAT64))
        return 0;
    return g->op == CLPOOL__OP_GLOBAL_MAX_POOL ||
           (g->plane_size <= GROUPED_SUM_MAX_ELEMENTS && (g->op == CLPOOL__OP_GLOBAL_AVERAGE_POOL || lp_kind(g) != 0));
}

/* A launch of the op's program (-DOP, -DLP_KIND, -DCHUNKED: CPUs stream one contiguous chunk per
 * work-item, GPUs interleave for coalescing) with its sizes as the block. */
static void start(const clpool__device_caps *caps, const clpool__global_desc *g, clpool__path max_path,
                  clpool__path sum_path, const char *kernel, int64_t parts, clpool__launch *l)
{
    clpool__launch_start(l, g->op == CLPOOL__OP_GLOBAL_MAX_POOL ? max_path : sum_path, kernel);
    clpool__options_start(&l->options, g->dtype);
    clpool__options_define(&l->options, "OP", kernel_op(g));
    clpool__options_define(&l->options, "LP_KIND", lp_kind(g));
    clpool__options_define(&l->options, "CHUNKED", caps->cpu || g->indices);
    l->block.global = (clpool__global_sizes){.planes = g->planes,
                                             .plane_size = g->plane_size,
                                             .parts = parts,
                                             .in_offset = g->in_off,
                                             .out_offset = g->out_off};
}

/* The by-value arguments after the buffers: the sizes, then p. */
static void sizes_and_p(const clpool__global_desc *g, clpool__launch *l)
{
    clpool__launch_block(l, sizeof l->block.global);
    clpool__launch_p(l, g->dtype, g->p);
}

static void plan_one_pass(const clpool__device_caps *caps, const clpool__global_desc *g, int grouped,
                          clpool__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    clpool__launch *l = &plan->launch[0];
    if (grouped)
        start(caps, g, CLPOOL__PATH_GLOBAL_MAX_GROUPED, CLPOOL__PATH_GLOBAL_SUM_GROUPED, "global_pool_grouped", 1, l);
    else
        start(caps, g, CLPOOL__PATH_GLOBAL_MAX_DIRECT, CLPOOL__PATH_GLOBAL_SUM_DIRECT, "global_pool_direct", 1, l);
    clpool__launch_buffer(l, CLPOOL__ROLE_INPUT);
    clpool__launch_buffer(l, CLPOOL__ROLE_OUTPUT);
    sizes_and_p(g, l);
    l->dims = 1;
    l->items[0] = grouped ? (uint64_t)((g->planes + 15) / 16) : (uint64_t)g->planes;
    l->cpu_local = CLPOOL__LOCAL_BUDGET;
    plan->path = l->path;
    plan->launches = 1;
    plan->first_tier = !grouped; /* the direct kernel is the first tier */
}

void clpool__global_plan_first_tier(const clpool__device_caps *caps, const clpool__global_desc *g,
                                    clpool__plan *plan)
{
    plan_one_pass(caps, g, 0, plan);
}

/* MaxPool's whole-plane windows with Indices: 16 planes per work-item. */
static void plan_indices(const clpool__device_caps *caps, const clpool__global_desc *g, clpool__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    clpool__launch *l = &plan->launch[0];
    start(caps, g, CLPOOL__PATH_GLOBAL_MAX_INDICES, CLPOOL__PATH_GLOBAL_MAX_INDICES, "global_max_pool_indices", 1, l);
    clpool__launch_buffer(l, CLPOOL__ROLE_INPUT);
    clpool__launch_buffer(l, CLPOOL__ROLE_OUTPUT);
    clpool__launch_buffer(l, CLPOOL__ROLE_INDICES);
    clpool__launch_block(l, sizeof l->block.global);
    l->block.global.idx_offset = g->idx_off;
    l->block.global.col_major = g->col_major;
    l->block.global.d0 = g->dims[0];
    l->block.global.d1 = g->dims[1];
    l->block.global.d2 = g->dims[2];
    l->dims = 1;
    l->items[0] = (uint64_t)((g->planes + 15) / 16);
    l->cpu_local = CLPOOL__LOCAL_BUDGET;
    plan->path = l->path;
    plan->launches = 1;
}

void clpool__global_plan_call(const clpool__device_caps *caps, const clpool__global_desc *g, clpool__plan *plan)
{
    if (g->indices) {
        plan_indices(caps, g, plan);
        return;
    }
    const int64_t parts = choose_parts(caps, g);
    if (parts == 1) {
        plan_one_pass(caps, g, grouped_ok(caps, g), plan);
        return;
    }
    /* Two passes through scratch, the second waiting on the first: max partials are element indices, sum
     * partials (value, correction) pairs in the accumulation type. */
    memset(plan, 0, sizeof *plan);
    const size_t sum_size = g->dtype == CLPOOL_FLOAT64 ? sizeof(double) : sizeof(float);
    const size_t partial_size = g->op == CLPOOL__OP_GLOBAL_MAX_POOL ? sizeof(int64_t) : 2 * sum_size;
    plan->scratch_bytes = (size_t)(g->planes * parts) * partial_size;
    plan->scratch_purpose = "global pool partials";
    clpool__launch *partial = &plan->launch[0], *final = &plan->launch[1];
    start(caps, g, CLPOOL__PATH_GLOBAL_MAX_TWO_PASS, CLPOOL__PATH_GLOBAL_SUM_TWO_PASS, "global_pool_partial", parts,
          partial);
    clpool__launch_buffer(partial, CLPOOL__ROLE_INPUT);
    clpool__launch_buffer(partial, CLPOOL__ROLE_SCRATCH);
    sizes_and_p(g, partial);
    partial->dims = 1;
    partial->items[0] = (uint64_t)(g->planes * parts);
    partial->cpu_local = 1;
    start(caps, g, CLPOOL__PATH_GLOBAL_MAX_TWO_PASS, CLPOOL__PATH_GLOBAL_SUM_TWO_PASS, "global_pool_final", parts,
          final);
    clpool__launch_buffer(final, CLPOOL__ROLE_SCRATCH);
    clpool__launch_buffer(final, CLPOOL__ROLE_INPUT);
    clpool__launch_buffer(final, CLPOOL__ROLE_OUTPUT);
    sizes_and_p(g, final);
    final->dims = 1;
    final->items[0] = (uint64_t)g->planes;
    final->cpu_local = CLPOOL__LOCAL_BUDGET;
    plan->path = partial->path;
    plan->launches = 2;
}
