/*
 * The kernels' by-value argument structs, one definition for both sides:
 * the host includes this file and every program is built with it prepended.
 * Fields are 64-bit integers only, so a struct has no padding and the same
 * layout in C and in OpenCL C. A struct instead of a dozen scalars because
 * PoCL copies each kernel argument at every enqueue.
 */
#ifndef CLPOOL_KERNEL_ARGS_H
#define CLPOOL_KERNEL_ARGS_H

#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
typedef long clpool__i64; /* OpenCL C's long is 64 bits on every device */
#else
#include <stdint.h>
typedef int64_t clpool__i64;
#endif

#define CLPOOL__ARGS_MAX_SPATIAL 10 /* clpool.h's CLPOOL_MAX_SPATIAL */
/* The windowed sums' plain run: taps of a window row, or rows of a group (kernels/reduce_sum.h). */
#define CLPOOL__SUM_CHUNK 16
#define CLPOOL__ARGS_MAX_RANK 12    /* clpool.h's CLPOOL_MAX_RANK */
#define CLPOOL__ARGS_MAX_ARITY 4    /* Max's inputs per pass */

/* The reductions a kernel family combines with -DOP (reduce_max.h, reduce_sum.h), planned by the host. */
#define CLPOOL__OP_REDUCE_MAX 1
#define CLPOOL__OP_REDUCE_AVG 2
#define CLPOOL__OP_REDUCE_LP 3

/* A call's windows as every window kernel reads them (the host's clpool__window). */
typedef struct clpool__window_geom {
    clpool__i64 in_dims[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 out_dims[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 kernel_shape[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 strides[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 dilations[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 pad_begin[CLPOOL__ARGS_MAX_SPATIAL]; /* padding before the first element (after auto_pad) */
    clpool__i64 pad_end[CLPOOL__ARGS_MAX_SPATIAL];   /* and after the last */
    clpool__i64 in_plane;                            /* elements of one (n, c) input plane */
    clpool__i64 count_pad; /* AveragePool's count_include_pad: taps in the pads count in the divisor */
} clpool__window_geom;

/* The N-D window kernels (maxpool_nd*, maxpool_window, sum_pool_nd*): any rank and attributes. */
typedef struct clpool__window_nd_geom {
    clpool__window_geom w;
    clpool__i64 items;     /* work-items that do work: column blocks x groups of `rows` output rows */
    clpool__i64 rows;      /* output rows per work-item (sum_pool_nd; the MaxPool kernels take 1) */
    clpool__i64 out_rows;  /* output rows in all: output elements / the last dim's outputs */
    clpool__i64 in_offset; /* element offsets into the buffers */
    clpool__i64 out_offset;
    clpool__i64 idx_offset;
    clpool__i64 in_limit; /* elements in the input cl_mem: vector loads may read up to here */
} clpool__window_nd_geom;

/* The windowed ops' first tier (window_first_tier) and its channels-last form (window_channels_last): every
 * attribute and every tensor's element strides at run time. Strides are per logical dim (N, C, then the
 * spatial dims) of the input, the output and the Indices: a contiguous call's are dense, a view's its own.
 * 119 fields: within the 1024 bytes of arguments every OpenCL device takes. */
typedef struct clpool__window_first_tier_geom {
    clpool__window_geom w;
    clpool__i64 ns;           /* spatial rank */
    clpool__i64 with_indices; /* 1: write Indices (MaxPool) */
    clpool__i64 col_major;    /* storage_order 1 */
    clpool__i64 outputs;      /* work-items that do work: output elements (first tier), positions x channel blocks */
    clpool__i64 in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    clpool__i64 channels;     /* C: a plane (n * C + c) splits into n and c by it */
    clpool__i64 item_blocks;  /* window_channels_last: blocks of VW channels per work-item, */
    clpool__i64 item_positions; /* positions (or strips) per work-item */
    clpool__i64 positions;      /* and in all */
    clpool__i64 in_strides[CLPOOL__ARGS_MAX_RANK];
    clpool__i64 out_strides[CLPOOL__ARGS_MAX_RANK];
    clpool__i64 idx_strides[CLPOOL__ARGS_MAX_RANK];
} clpool__window_first_tier_geom;

/* MaxPool's 2-D kernels (maxpool2d, maxpool2d_plane, maxpool2d_flat). */
typedef struct clpool__maxpool2d_sizes {
    clpool__i64 H, W, OH, OW; /* input and output plane */
    clpool__i64 pad_h, pad_w; /* padding before the first row and column */
    clpool__i64 in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    clpool__i64 in_limit; /* elements in the input cl_mem: vector loads may read up to here */
    clpool__i64 planes;   /* N x C (plane and flat kernels) */
    clpool__i64 rows;     /* output rows per work-item */
    clpool__i64 gap;      /* plane kernel: fill elements between its array's rows */
    clpool__i64 sweep;    /* row sweep: blocks of BW outputs per work-item, at most SWEEP_BLOCKS */
} clpool__maxpool2d_sizes;

/* MaxPool's one-pass 3-D kernel (maxpool3d). */
typedef struct clpool__maxpool3d_sizes {
    clpool__i64 D, H, W, OD, OH, OW;
    clpool__i64 stride_d; /* the depth stride (SH and SW are compiled in) */
    clpool__i64 pad_d, pad_h, pad_w;
    clpool__i64 in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    clpool__i64 in_limit;  /* elements in the input cl_mem: loads may read up to here */
    clpool__i64 planes;    /* N x C */
    clpool__i64 band_rows; /* output rows per work-item */
    clpool__i64 bands;     /* work-items per plane */
} clpool__maxpool3d_sizes;

/* The global pools' kernels (global_max_pool.cl, global_sum_pool.cl). */
typedef struct clpool__global_sizes {
    clpool__i64 planes, plane_size;
    clpool__i64 parts; /* lanes per plane of the two-pass kernels */
    clpool__i64 in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    clpool__i64 col_major, d0, d1, d2; /* global_max_pool_indices: storage_order 1, the spatial dims */
} clpool__global_sizes;

/* MaxUnpool's kernels (max_unpool.cl): the output's planes, or its elements and X's, split over work-items. */
typedef struct clpool__max_unpool_sizes {
    clpool__i64 planes;           /* N x C */
    clpool__i64 x_plane, y_plane; /* elements of one (n, c) plane of X (and Indices) and of the output */
    clpool__i64 x_offset, idx_offset, y_offset, skip_offset; /* element offsets into the buffers */
    clpool__i64 count_skipped; /* 1: add the count of skipped indices to the counter at skip_offset */
    clpool__i64 per_item;      /* planes (max_unpool_planes) or elements (max_unpool_zero, _scatter) per work-item */
    clpool__i64 items;         /* work-items that do work */
    clpool__i64 idx_plane;     /* positions in an index plane: y_plane, or the inferred plane's where remap is 1 */
    clpool__i64 remap;         /* 1: indices count positions in idx_dims, placed at the same coordinates of y_dims */
    clpool__i64 ns;            /* spatial rank (remap) */
    clpool__i64 idx_dims[CLPOOL__ARGS_MAX_SPATIAL];
    clpool__i64 y_dims[CLPOOL__ARGS_MAX_SPATIAL];
} clpool__max_unpool_sizes;

/* MaxUnpool on views (max_unpool.cl -DVIEW=1): a work-item walks a range of elements of X (the scatter) or
 * of the output (the zeroes) in memory order, over dims sorted by stride, outermost first. */
typedef struct clpool__max_unpool_view_geom {
    clpool__i64 rank;                      /* walked dims */
    clpool__i64 dims[CLPOOL__ARGS_MAX_RANK];
    clpool__i64 xs[CLPOOL__ARGS_MAX_RANK]; /* X's strides along them (zeroes: the output's) */
    clpool__i64 is[CLPOOL__ARGS_MAX_RANK]; /* the Indices' strides */
    clpool__i64 qs[CLPOOL__ARGS_MAX_RANK]; /* the (n, c) plane number's step: C along N, 1 along C, else 0 */
    clpool__i64 ys[CLPOOL__ARGS_MAX_RANK]; /* the output plane's start step: its N and C strides, else 0 */
    clpool__i64 x_offset, idx_offset, y_offset, skip_offset; /* element offsets into the buffers */
    clpool__i64 count_skipped; /* 1: add the count of skipped indices to the counter at skip_offset */
    clpool__i64 elements, per_item, items; /* elements walked, per work-item, work-items that do work */
    clpool__i64 idx_plane;  /* positions in an index plane */
    clpool__i64 ns;         /* spatial rank */
    clpool__i64 unit;       /* > 0: position k lies k * unit past its plane's start (dense spatial dims) */
    clpool__i64 idx_dims[CLPOOL__ARGS_MAX_SPATIAL]; /* the index plane's dims, */
    clpool__i64 y_dims[CLPOOL__ARGS_MAX_SPATIAL];   /* the output's (a coordinate past them is skipped) */
    clpool__i64 y_strides[CLPOOL__ARGS_MAX_SPATIAL]; /* and its strides */
} clpool__max_unpool_view_geom;

/* Max's kernels (max_of_1..4). Dims are right-aligned: out_dims[CLPOOL__ARGS_MAX_RANK - 1] is
 * the innermost, leading dims 1 with strides 0. strides is flat, [k * CLPOOL__ARGS_MAX_RANK + d]:
 * rusticl (Mesa 22.3) sizes a 2-D array member as outer length x element,
 * so clSetKernelArg rejects the struct and later field offsets go wrong. */
typedef struct clpool__max_geom {
    clpool__i64 out_dims[CLPOOL__ARGS_MAX_RANK];
    clpool__i64 strides[CLPOOL__ARGS_MAX_ARITY * CLPOOL__ARGS_MAX_RANK]; /* per output dim, 0 = broadcast */
    clpool__i64 out_strides[CLPOOL__ARGS_MAX_RANK]; /* the output's, the innermost 1 but in views */
    clpool__i64 in_offset[CLPOOL__ARGS_MAX_ARITY];
    clpool__i64 out_offset;
    clpool__i64 blocks;  /* blocks of VW lanes per work-item */
    clpool__i64 aliased;    /* an input is the output (max.cl) */
    clpool__i64 inner_mask; /* bit k: input k is contiguous along the innermost dim (stride 1) */
} clpool__max_geom;

#endif
