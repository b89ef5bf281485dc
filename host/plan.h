/*
 * Plans as plain data, for every op: a planner turns the device's
 * capabilities and one validated call into kernel launches (program parts,
 * kernel, -D values, arguments, work sizes, scratch) without an OpenCL call,
 * so tests/test_plan.c checks every op's plans without a device;
 * plan_run.c then runs any plan. The kernel paths are one table (families.c).
 */
#ifndef CLPOOL_PLAN_H
#define CLPOOL_PLAN_H

#include "internal.h"
#include "../kernels/args.h"

/* Work-items per compute unit below which every planner cuts work finer. */
#define CLPOOL__ITEMS_PER_CU 8

/* What a planner knows of a device: plain data (clpool__device_caps_of). */
typedef struct clpool__device_caps {
    int cpu;                /* CPU paths: clpool__cpu_device (clpool_context.cpu) */
    int cpu_simd;           /* a work-item's vectors are the CPU's SIMD (clpool_context.cpu_simd) */
    uint32_t vector_bytes;  /* native float vector width x 4: the SIMD register's bytes */
    uint64_t cache_bytes;   /* the cache the plans size for (0: unknown) */
    uint32_t compute_units;
    uint32_t local_size;    /* the work-group size budget (clpool_context.local_size) */
} clpool__device_caps;

void clpool__device_caps_of(const clpool_context *ctx, clpool__device_caps *caps);

/* The buffers a launch reads and writes, by role: the index into the
 * caller's buffer table (plan_run.c). Max's pass inputs are ROLE_INPUTS + k. */
typedef enum clpool__role {
    CLPOOL__ROLE_NONE = 0,
    CLPOOL__ROLE_INPUT,
    CLPOOL__ROLE_OUTPUT,
    CLPOOL__ROLE_INDICES,
    CLPOOL__ROLE_SCRATCH, /* the plan's scratch buffer (two-pass routes) */
    CLPOOL__ROLE_COUNTER, /* a cl_uint the kernel adds a count to (MaxUnpool's skipped indices) */
    CLPOOL__ROLE_INPUTS,  /* Max: a pass's input k at CLPOOL__ROLE_INPUTS + k */
    CLPOOL__ROLES = CLPOOL__ROLE_INPUTS + CLPOOL__ARGS_MAX_ARITY
} clpool__role;

/* The kernel paths, one row each of the family table (families.c) and of
 * docs/design.md's path tables. */
typedef enum clpool__path {
    CLPOOL__PATH_NONE = 0,
    CLPOOL__PATH_WINDOW_FIRST_TIER,   /* the windowed ops' first tier: every attribute at run time */
    CLPOOL__PATH_WINDOW_CHANNELS_LAST, /* views with C innermost: the first tier's walk, channels as lanes */
    CLPOOL__PATH_MAXPOOL_ND,          /* any rank and attributes */
    CLPOOL__PATH_MAXPOOL_WINDOW,      /* rows of few outputs under wide windows */
    CLPOOL__PATH_MAXPOOL_2D,          /* 2-D column blocks and row sweeps */
    CLPOOL__PATH_MAXPOOL_PLANE,       /* 2-D, stride 1, large windows: a band of the plane in private memory */
    CLPOOL__PATH_MAXPOOL_FLAT,        /* 2-D, stride 1, narrow rows: whole rows in private memory */
    CLPOOL__PATH_MAXPOOL_3D,          /* 3-D windows in one pass */
    CLPOOL__PATH_MAXPOOL_3D_TWO_PASS, /* 3-D windows as two 2-D-view launches through scratch (a plan, no program) */
    CLPOOL__PATH_SUM_POOL_ND,         /* AveragePool, LpPool: any rank and attributes */
    CLPOOL__PATH_SUM_POOL_2D,         /* AveragePool, LpPool: 2-D windows, row sums once per input row */
    CLPOOL__PATH_SUM_POOL_3D,         /* the same for 3-D windows */
    CLPOOL__PATH_GLOBAL_MAX_DIRECT,   /* a work-item per plane: GlobalMaxPool's first tier */
    CLPOOL__PATH_GLOBAL_MAX_GROUPED,  /* 16 planes per work-item (CPUs) */
    CLPOOL__PATH_GLOBAL_MAX_TWO_PASS, /* maxima per lane, then per plane, through scratch */
    CLPOOL__PATH_GLOBAL_MAX_INDICES,  /* MaxPool's whole-plane windows with Indices */
    CLPOOL__PATH_GLOBAL_SUM_DIRECT,   /* the same three for GlobalAveragePool and GlobalLpPool */
    CLPOOL__PATH_GLOBAL_SUM_GROUPED,
    CLPOOL__PATH_GLOBAL_SUM_TWO_PASS,
    CLPOOL__PATH_MAX,                 /* Max: max_of_1..4, a pass of up to 4 inputs */
    CLPOOL__PATH_MAX_UNPOOL_PLANES,   /* MaxUnpool: a work-item zeroes its output planes, then scatters into them */
    CLPOOL__PATH_MAX_UNPOOL_SCATTER,  /* MaxUnpool: zero the output, then scatter X over all work-items */
    CLPOOL__PATH_MAX_UNPOOL_VIEW,     /* MaxUnpool on views of other layouts: both passes walk memory in order */
    CLPOOL__PATHS
} clpool__path;

/* A row of the family table: a kernel path, its name (tests, tools/clpool_programs), its program's kernel
 * files in order (the last names the family; NULL for a plan of other paths' launches), its kernels. */
typedef struct clpool__family {
    clpool__path path;
    const char *name;
    const char *const *parts;
    const char *const *kernels; /* NULL-terminated */
} clpool__family;
extern const clpool__family clpool__families[CLPOOL__PATHS];

/* A kernel argument: a buffer by role, or the launch's argument block or scalar. */
typedef enum clpool__arg_kind { CLPOOL__ARG_BUFFER = 1, CLPOOL__ARG_BLOCK, CLPOOL__ARG_SCALAR } clpool__arg_kind;
typedef struct clpool__launch_arg {
    clpool__arg_kind kind;
    clpool__role role; /* CLPOOL__ARG_BUFFER */
} clpool__launch_arg;
#define CLPOOL__LAUNCH_ARGS 6

/* One kernel launch. Its by-value arguments live in the launch itself (a plan
 * copies as plain data): the block, one of args.h's structs, as bytes and a
 * size, and a scalar (the global pools' p as their accumulation type). */
typedef struct clpool__launch {
    clpool__path path;
    const char *const *parts; /* the program's kernel files (clpool__families[path].parts) */
    const char *kernel;
    clpool__options options;
    int nargs;
    clpool__launch_arg args[CLPOOL__LAUNCH_ARGS];
    union {
        clpool__window_nd_geom geom;
        clpool__window_first_tier_geom first_tier; /* and window_channels_last */
        clpool__maxpool2d_sizes sizes2d;
        clpool__maxpool3d_sizes sizes3d;
        clpool__global_sizes global;
        clpool__max_geom max;
        clpool__max_unpool_sizes unpool;
        clpool__max_unpool_view_geom unpool_view;
    } block;
    size_t block_size;
    union {
        double f64;
        float f32;
    } scalar;
    size_t scalar_size;
    uint32_t dims; /* work dims */
    uint64_t items[3];
    size_t cpu_local; /* clpool__launch's cpu_local */
} clpool__launch;

/* Start a launch of `path`'s program: its parts, `kernel`, no arguments yet. */
void clpool__launch_start(clpool__launch *l, clpool__path path, const char *kernel);
/* Append an argument: a buffer by role, the block (of `size` bytes), the scalar. */
void clpool__launch_buffer(clpool__launch *l, clpool__role role);
void clpool__launch_block(clpool__launch *l, size_t size);
void clpool__launch_scalar(clpool__launch *l, size_t size);

/* A whole call's plan: its launches, each waiting on the one before. */
typedef struct clpool__plan {
    clpool__path path;
    int launches; /* 1 or 2 */
    clpool__launch launch[2];
    size_t scratch_bytes;        /* > 0: the launches share a leased scratch buffer (CLPOOL__ROLE_SCRATCH) */
    const char *scratch_purpose; /* for the message where it cannot be had */
    int has_fallback;            /* where scratch cannot be allocated, `fallback` runs the call instead */
    clpool__launch fallback;
    int first_tier;              /* the plan is its op's first tier: it runs whatever the tiers say */
} clpool__plan;

/* Tiers, for every op (tiers.c; docs/design.md, "Tiers"): whether a call whose input is `input_bytes` runs
 * `plan` now (1), or its op's first tier while the plan's programs build in the background (0). The first ask
 * makes *job, that build, sized by the call's buffers `mems`; clpool__plan_run_tiered queues it once the
 * first tier is enqueued. */
typedef struct clpool__tier_job clpool__tier_job;
int clpool__plan_now(clpool_context *ctx, const clpool__plan *plan, uint64_t input_bytes, const cl_mem *mems,
                     clpool__tier_job **job);
/* clpool__plan_run, then `job` (if any) queued to start after the plan's commands are done. */
clpool_status clpool__plan_run_tiered(clpool_context *ctx, cl_command_queue q, const clpool__plan *plan, cl_mem *mems,
                                      clpool__tier_job *job, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                      const char *fn);

/* Build `plan`'s programs and kernels, then run it once on zeroed buffers of `bytes` (by role: the sizes of
 * the asking call's, so its offsets and strides stay inside) on *queue (made at the first use) and wait for
 * it: the driver generates the launches' code for their local sizes here. 1 when the programs built; the run
 * is best effort, skipped for buffers above 256 MiB in all or once *stopping is set. */
int clpool__plan_warm(clpool_context *ctx, cl_command_queue *queue, const clpool__plan *plan, const size_t *bytes,
                      const int *stopping);
/* Enqueue one launch with `mems` (indexed by clpool__role) as its buffers. */
clpool_status clpool__launch_run(clpool_context *ctx, cl_command_queue q, const clpool__launch *l, const cl_mem *mems,
                                 cl_uint num_wait, const cl_event *wait, cl_event *event);
/* Enqueue a plan: its scratch leased (errors name `fn`), its launches chained by events (out-of-order
 * queues), the last one's event to *event. mems[CLPOOL__ROLE_SCRATCH] is the plan's own. */
clpool_status clpool__plan_run(clpool_context *ctx, cl_command_queue q, const clpool__plan *plan, cl_mem *mems,
                               cl_uint num_wait, const cl_event *wait, cl_event *event, const char *fn);

#endif
