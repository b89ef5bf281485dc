/*
 * MaxPool's planner: from a device's capabilities and one validated call,
 * the complete plan as plain data (path, kernel family, kernel name, every
 * -D value, the kernel's argument struct, work sizes, scratch). It makes no
 * OpenCL call, so tests/test_plan.c runs it without a device.
 */
#ifndef CLPOOL_MAXPOOL_PLAN_H
#define CLPOOL_MAXPOOL_PLAN_H

#include "internal.h"
#include "../kernels/args.h"

/* What the planner knows of a device: plain data (clpool__device_caps_of). */
typedef struct clpool__device_caps {
    int cpu;                /* CPU paths: clpool__cpu_device (clpool_context.cpu) */
    int cpu_simd;           /* a work-item's vectors are the CPU's SIMD (clpool_context.cpu_simd) */
    uint32_t vector_bytes;  /* native float vector width x 4: the SIMD register's bytes */
    uint64_t cache_bytes;   /* the cache the plans size for (0: unknown) */
    uint32_t compute_units;
} clpool__device_caps;

/* The buffers a launch reads and writes, by role. */
typedef enum clpool__mp_buffer {
    CLPOOL__MP_NONE = 0,
    CLPOOL__MP_INPUT,
    CLPOOL__MP_OUTPUT,
    CLPOOL__MP_INDICES,
    CLPOOL__MP_SCRATCH /* the two-pass 3-D route's intermediate buffer */
} clpool__mp_buffer;

/* One MaxPool call (or a view of one) over `planes` planes of ns spatial
 * dims; offsets in elements of the buffer they index. */
typedef struct clpool__maxpool_desc {
    int32_t ns;
    int64_t planes; /* N x C, times any leading dims a view folds in */
    int64_t in[CLPOOL_MAX_SPATIAL], out[CLPOOL_MAX_SPATIAL];
    int64_t kernel[CLPOOL_MAX_SPATIAL], stride[CLPOOL_MAX_SPATIAL], dilation[CLPOOL_MAX_SPATIAL];
    int64_t pad[CLPOOL_MAX_SPATIAL]; /* padding before the first element (after auto_pad) */
    int storage_order;               /* of the Indices */
    clpool_dtype dtype;
    int64_t esize;
    int indices;   /* the call asks for Indices */
    int index_map; /* Indices map through the first pass's (two-pass 3-D, second pass) */
    clpool__mp_buffer input, output, index_buf, map_buf;
    int64_t in_off, out_off, idx_off;
    int64_t in_limit; /* elements in the input buffer: vector loads may read up to here */
} clpool__maxpool_desc;

/* The kernel paths (docs/design.md's kernel-path table, one row each). */
typedef enum clpool__mp_path {
    CLPOOL__MP_GLOBAL_MAX = 1,     /* whole-plane windows: GlobalMaxPool's kernels */
    CLPOOL__MP_GLOBAL_MAX_INDICES, /* the same with Indices: global_max_pool_indices */
    CLPOOL__MP_ND,                 /* maxpool_nd.cl, maxpool */
    CLPOOL__MP_WINDOW,             /* maxpool_nd.cl, maxpool_window */
    CLPOOL__MP_2D,                 /* maxpool2d.cl */
    CLPOOL__MP_PLANE,              /* maxpool2d_plane.cl */
    CLPOOL__MP_FLAT,               /* maxpool2d_flat.cl */
    CLPOOL__MP_3D,                 /* maxpool3d.cl, one pass */
    CLPOOL__MP_3D_TWO_PASS,        /* two 2-D-view launches through scratch */
    CLPOOL__MP_GENERIC             /* maxpool_generic.cl: the first tier, any call */
} clpool__mp_path;

typedef enum clpool__mp_args {
    CLPOOL__MP_ARGS_GEOM = 1,
    CLPOOL__MP_ARGS_2D,
    CLPOOL__MP_ARGS_3D,
    CLPOOL__MP_ARGS_GENERIC
} clpool__mp_args;

/* One kernel launch: its program, arguments and work size. */
typedef struct clpool__mp_launch {
    clpool__mp_path path; /* the one-launch path this launch is */
    const char *const *parts; /* the program's kernel files (clpool__kernel_get) */
    const char *kernel;
    clpool__options options;
    clpool__mp_buffer buffers[4]; /* arguments 0.. in order, up to the first NONE */
    clpool__mp_args arg_kind;     /* the by-value struct after the buffers */
    clpool__maxpool_geom geom;
    clpool__maxpool2d_sizes sizes2d;
    clpool__maxpool3d_sizes sizes3d;
    clpool__maxpool_generic_geom generic;
    uint32_t dims;   /* work dims */
    uint64_t items[3];
    size_t cpu_local; /* clpool__launch's cpu_local */
} clpool__mp_launch;

/* A whole call's plan. */
typedef struct clpool__maxpool_plan {
    clpool__mp_path path;
    int launches; /* 0 (global paths), 1, or 2 (two-pass 3-D) */
    clpool__mp_launch launch[2];
    size_t scratch_bytes;   /* two-pass 3-D: the intermediate buffer */
    clpool__mp_launch fallback; /* two-pass 3-D: the one launch where scratch cannot be had */
    /* global paths: planes of plane_size elements; Indices column-major over dims */
    int64_t planes, plane_size;
    int col_major;
    int64_t dims[3];
} clpool__maxpool_plan;

/* The plan of a validated call (desc of the whole call, buffers INPUT, OUTPUT, INDICES). */
void clpool__maxpool_plan_call(const clpool__device_caps *caps, const clpool__maxpool_desc *desc,
                               clpool__maxpool_plan *plan);

/* The first tier's plan of the same call: maxpool_generic, one launch that
 * serves every call of the dtype (docs/design.md, "Tiers"). */
void clpool__maxpool_plan_generic(const clpool__maxpool_desc *desc, clpool__maxpool_plan *plan);

/* Validate a MaxPool call and describe it (clpool_enqueue_maxpool's checks
 * that need no device); errors name `fn`. Offsets and in_limit are left 0. */
clpool_status clpool__maxpool_describe(const clpool_shape *input, const clpool_maxpool_params *params,
                                       clpool_dtype dtype, int indices, const char *fn, clpool__maxpool_desc *desc);

#endif
