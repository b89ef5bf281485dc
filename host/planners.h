/*
 * Every op's planner: a descriptor of one validated call and the device's
 * capabilities in, the complete plan as plain data (plan.h) out. No OpenCL
 * call, so tests/test_plan.c runs them without a device. window_plan.c
 * plans the windowed ops (tier_plan.c their first tier and views), global_plan.c
 * the global pools, max_plan.c Max.
 */
#ifndef CLPOOL_PLANNERS_H
#define CLPOOL_PLANNERS_H

#include "plan.h"
#include "window.h"

/* The ops the library plans (a descriptor's `op`). */
typedef enum clpool__op {
    CLPOOL__OP_MAXPOOL = 1,
    CLPOOL__OP_AVERAGE_POOL,
    CLPOOL__OP_LP_POOL,
    CLPOOL__OP_GLOBAL_MAX_POOL,
    CLPOOL__OP_GLOBAL_AVERAGE_POOL,
    CLPOOL__OP_GLOBAL_LP_POOL,
    CLPOOL__OP_MAX,
    CLPOOL__OP_MAX_UNPOOL
} clpool__op;

/* ---------------------------------------------------------- windowed ops */

/* One windowed call (or a view of one): its windows, its op's own fields,
 * and its buffers by role with offsets in elements of the buffer they index. */
typedef struct clpool__pool_desc {
    clpool__op op;
    clpool__window w;
    clpool_dtype dtype;
    int64_t esize;
    int count_include_pad; /* AveragePool */
    double p;              /* LpPool */
    /* MaxPool */
    int indices;       /* the call asks for Indices */
    int storage_order; /* of the Indices */
    int index_map;     /* Indices map through the first pass's (two-pass 3-D, second pass) */
    clpool__role input, output, index_buf, map_buf;
    int64_t in_off, out_off, idx_off;
    int64_t in_limit; /* elements in the input buffer: vector loads may read up to here */
    /* A view's call (clpool__window_enqueue_view): each tensor's element strides per logical dim (N, C,
     * spatial) and C; 0 for a contiguous call, whose strides are dense. */
    int strided;
    int64_t channels;
    int64_t in_strides[CLPOOL_MAX_RANK], out_strides[CLPOOL_MAX_RANK], idx_strides[CLPOOL_MAX_RANK];
} clpool__pool_desc;

/* The plan of a validated MaxPool call (desc of the whole call, buffers INPUT, OUTPUT, INDICES). */
void clpool__maxpool_plan_call(const clpool__device_caps *caps, const clpool__pool_desc *desc, clpool__plan *plan);

/* The plan of a validated AveragePool or LpPool call (buffers INPUT, OUTPUT): sum_pool_nd, or whole planes
 * as the global pools' plan. */
void clpool__sum_pool_plan_call(const clpool__device_caps *caps, const clpool__pool_desc *desc, clpool__plan *plan);

/* The first tier's plan of any windowed call: window_first_tier, one launch that serves every call of the op
 * and dtype (whole planes without Indices: the global pool's first tier; docs/design.md, "Tiers"). */
void clpool__window_plan_first_tier(const clpool__device_caps *caps, const clpool__pool_desc *desc,
                                    clpool__plan *plan);

/* Validate a MaxPool call and describe it (clpool_enqueue_maxpool's checks
 * that need no device); errors name `fn`. Offsets and in_limit are left 0. */
clpool_status clpool__maxpool_describe(const clpool_shape *input, const clpool_maxpool_params *params,
                                       clpool_dtype dtype, int indices, const char *fn, clpool__pool_desc *desc);

/* A described windowed call's planner (clpool__maxpool_plan_call, clpool__sum_pool_plan_call). */
typedef void (*clpool__window_planner)(const clpool__device_caps *caps, const clpool__pool_desc *desc,
                                       clpool__plan *plan);

/* The windowed ops' enqueue after their own checks and description (desc): the device's dtype, the wait
 * list, the queue and the buffers checked (indices NULL: none), offsets into desc, then the planner's plan
 * or, while the tiers say so, the first tier, run (plan_run.c). Errors name `fn`. */
clpool_status clpool__window_enqueue(clpool_context *ctx, cl_command_queue queue, clpool__pool_desc *desc,
                                     clpool__window_planner planner, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_mem indices,
                                     size_t indices_offset, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                     const char *fn);

/* The windowed planner's rules the first tiers' plans share (window_plan.c, tier_plan.c): the lanes of a
 * call's vectors (the CPU's SIMD width, else 8), the options of the programs every windowed op shares
 * (the dtype, the reduction, p's kind), the windows as the kernels read them (args.h), and whole-plane
 * windows as their global pool's call (0: not whole planes, a dtype the global pools do not take, or
 * AveragePool counting pads in its divisor). */
int clpool__window_lanes(const clpool__device_caps *caps, const clpool__pool_desc *desc);
void clpool__window_reduce_options(const clpool__pool_desc *desc, clpool__options *o);
void clpool__window_geom_of(const clpool__pool_desc *desc, clpool__window_geom *g);
struct clpool__global_desc;
int clpool__window_as_global(const clpool__pool_desc *desc, struct clpool__global_desc *g);

/* A view's call of a windowed op (desc->strided): channels-last views (C innermost with stride 1 in every
 * tensor, C at least the lanes) window_channels_last, any other strides the first tier. */
void clpool__window_plan_view(const clpool__device_caps *caps, const clpool__pool_desc *desc, clpool__plan *plan);

/* clpool__window_enqueue for views: each view checked against desc's shapes (view.c), contiguous views
 * to clpool__window_enqueue (every path), others clpool__window_plan_view's plan or, while the tiers say
 * so, the first tier. Errors name `fn`. */
clpool_status clpool__window_enqueue_view(clpool_context *ctx, cl_command_queue queue, clpool__pool_desc *desc,
                                          clpool__window_planner planner, const clpool_view *input,
                                          const clpool_view *output, const clpool_view *indices, cl_uint num_wait,
                                          const cl_event *wait, cl_event *event, const char *fn);

/* Validate an AveragePool (lp NULL) or LpPool (avg NULL) call and describe it, as clpool__maxpool_describe. */
clpool_status clpool__sum_pool_describe(const clpool_shape *input, const clpool_average_pool_params *avg,
                                        const clpool_lp_pool_params *lp, clpool_dtype dtype, const char *fn,
                                        clpool__pool_desc *desc);

/* ------------------------------------------------------------ global pools */

/* One global-pool call: `planes` planes of `plane_size` elements, each reduced to one value. */
typedef struct clpool__global_desc {
    clpool__op op; /* GLOBAL_MAX_POOL, GLOBAL_AVERAGE_POOL, GLOBAL_LP_POOL */
    double p;      /* GlobalLpPool */
    clpool_dtype dtype;
    int64_t esize;
    int64_t planes, plane_size;
    int indices;   /* MaxPool's whole-plane windows with Indices: each plane's first maximum */
    int col_major; /* storage_order 1 over the spatial dims `dims`, padded with 1 past the rank */
    int64_t dims[3];
    int64_t in_off, out_off, idx_off;
} clpool__global_desc;

/* The dtypes the global pools and the windowed sum pools take (float32, float64, float16, bfloat16). */
int clpool__global_pool_dtype_ok(clpool_dtype dtype);
/* LpPool's p as kernels compile it (-DLP_KIND): 1 and 2 closed forms, 3 other integers up to 64 by
 * squaring, 0 any other p by pow. */
int clpool__lp_kind(double p);
/* Append p as a launch's scalar argument, in the accumulation type (double for float64, else float). */
void clpool__launch_p(clpool__launch *l, clpool_dtype dtype, double p);
/* Direct, grouped or two-pass by the planes' count and size; with Indices global_max_pool_indices. */
void clpool__global_plan_call(const clpool__device_caps *caps, const clpool__global_desc *desc, clpool__plan *plan);
/* The first tier: global_pool_direct, a work-item per plane, of the same program. */
void clpool__global_plan_first_tier(const clpool__device_caps *caps, const clpool__global_desc *desc,
                                    clpool__plan *plan);
/* Whether global_max_pool_indices serves whole-plane windows with Indices on this device. */
int clpool__global_indices_ok(const clpool__device_caps *caps, const clpool__global_desc *desc, int32_t ns);

/* --------------------------------------------------------------------- Max */

/* One Max call, its dims collapsed (max.c): `rank` dims, the innermost last, and each input's strides in
 * elements (0: broadcast), the output's own as input `inputs`. */
typedef struct clpool__max_desc {
    clpool_dtype dtype;
    int64_t esize;
    size_t inputs;
    int32_t rank;
    int64_t dims[CLPOOL_MAX_RANK];
    const int64_t (*strides)[CLPOOL_MAX_RANK]; /* [inputs + 1][rank] */
    const size_t *offsets;                     /* [inputs], bytes */
    unsigned aliased;                          /* bit k: input k is the output (only inputs 0..3 may be) */
    int64_t out_off;
    uint64_t moved; /* bytes of every input and the output */
} clpool__max_desc;

/* A Max call's passes: pass 0 folds inputs 0..3, each later pass the output and 3 more, waiting on the one
 * before. One program per dtype and store kind: a kernel per input count of a pass (max.cl). */
typedef struct clpool__max_plan {
    int vw;     /* lanes per block */
    int blocks; /* blocks of vw along the innermost dim per work-item */
    int stream; /* -DSTREAM_STORES */
    int view;   /* -DVIEW=1: an input gathered along the innermost dim, or a strided output (views only) */
    size_t passes;
} clpool__max_plan;
void clpool__max_plan_call(const clpool__device_caps *caps, const clpool__max_desc *desc, clpool__max_plan *plan);
/* Pass `pass`'s launch; first[k] gets the input its argument k reads (desc->inputs: the output), *arity
 * their count. Its buffers are CLPOOL__ROLE_OUTPUT and CLPOOL__ROLE_INPUTS + k. */
void clpool__max_plan_pass(const clpool__max_desc *desc, const clpool__max_plan *plan, size_t pass,
                           clpool__launch *l, size_t first[CLPOOL__ARGS_MAX_ARITY], int *arity);

/* --------------------------------------------------------------- MaxUnpool */

/* One MaxUnpool call (buffers INPUT: X, INDICES, OUTPUT, and COUNTER where the call counts skipped indices):
 * `planes` planes of `x_plane` X elements scattered into zeroed planes of `y_plane`. */
typedef struct clpool__max_unpool_desc {
    clpool_dtype dtype;
    int64_t esize;
    int64_t planes, x_plane, y_plane;
    int64_t idx_plane; /* positions an index plane holds: y_plane, or the inferred plane's (remap) */
    int remap;         /* indices count positions in idx_dims, placed at the same coordinates of y_dims */
    int32_t ns;
    int64_t idx_dims[CLPOOL_MAX_SPATIAL], y_dims[CLPOOL_MAX_SPATIAL];
    int count_skipped;
    int64_t x_off, idx_off, y_off, skip_off;
} clpool__max_unpool_desc;

/* The dtypes MaxPool takes (float32, float64, float16, bfloat16, int8, uint8), and so MaxUnpool: an error
 * naming `fn` and `op` for any other. */
clpool_status clpool__maxpool_dtype_check(clpool_dtype dtype, const char *fn, const char *op);
/* CPUs with planes to spread: max_unpool_planes; else zero then scatter. Elements move as bits: one program
 * per element size. Every call of a size shares its program, so the plan is its own first tier. */
void clpool__max_unpool_plan_call(const clpool__device_caps *caps, const clpool__max_unpool_desc *desc,
                                  clpool__plan *plan);

/* One MaxUnpool call on views: the call as its contiguous form gives it (offsets: element 0 of each view),
 * X's and the output's dims and each view's element strides. */
typedef struct clpool__max_unpool_view_desc {
    clpool__max_unpool_desc call;
    int32_t rank;
    int64_t x_dims[CLPOOL_MAX_RANK], y_dims[CLPOOL_MAX_RANK];
    int64_t x_strides[CLPOOL_MAX_RANK], idx_strides[CLPOOL_MAX_RANK], y_strides[CLPOOL_MAX_RANK];
} clpool__max_unpool_view_desc;
/* Views whose layout the contiguous kernels do not take: the zeroes, then the scatter (-DVIEW=1), each
 * walking its tensor in memory order over its dims sorted by stride (merged where memory allows). */
void clpool__max_unpool_plan_view(const clpool__device_caps *caps, const clpool__max_unpool_view_desc *desc,
                                  clpool__plan *plan);

#endif
