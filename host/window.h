/*
 * The window layer every windowed op shares (MaxPool, and AveragePool,
 * LpPool and MaxUnpool on the same rules): attribute validation, auto_pad,
 * ceil_mode, dilations and output sizing, with each op's own rules as flags,
 * and the views the planners take of resolved windows (one-tap dims folded).
 */
#ifndef CLPOOL_WINDOW_H
#define CLPOOL_WINDOW_H

#include "internal.h"

/* An op's own window rules (clpool__window_size's `rules`). */
enum {
    /* Every window holds a tap inside the input: an empty window has no
     * maximum, so MaxPool rejects attributes that would make one. */
    CLPOOL__WINDOW_NEEDS_TAP = 1
};

/* A call's windows, resolved: spatial dims, padding after auto_pad, output size. */
typedef struct clpool__window {
    int32_t ns;     /* spatial rank */
    int64_t planes; /* N x C, times any leading dims a view folds in */
    int64_t in[CLPOOL_MAX_SPATIAL], out[CLPOOL_MAX_SPATIAL];
    int64_t kernel_shape[CLPOOL_MAX_SPATIAL], strides[CLPOOL_MAX_SPATIAL], dilations[CLPOOL_MAX_SPATIAL];
    int64_t pad_begin[CLPOOL_MAX_SPATIAL]; /* padding before the first element (after auto_pad) */
    int64_t pad_end[CLPOOL_MAX_SPATIAL];   /* and after the last */
} clpool__window;

/* clpool_window_params_init's defaults, errors naming `fn`. */
clpool_status clpool__window_params_init(clpool_window_params *w, int32_t spatial_rank, const int64_t *kernel_shape,
                                         const char *fn);

/* Attribute ranges that do not depend on the input; errors name `fn`. */
clpool_status clpool__window_check(const clpool_window_params *w, const char *fn);

/* Validate `w` (clpool__window_check) against an N x C x D1.. input and
 * resolve the windows under the op's `rules`; errors name `fn`. */
clpool_status clpool__window_size(const clpool_shape *input, const clpool_window_params *w, unsigned rules,
                                  const char *fn, clpool__window *out);

/* The output shape: N x C x the windows' output dims. */
void clpool__window_output_shape(const clpool_shape *input, const clpool__window *w, clpool_shape *output);

/* Dim `to` of `w`: dim `i` of `from` (every per-dim field), or a window of one tap over n elements. */
void clpool__window_copy_dim(clpool__window *w, int32_t to, const clpool__window *from, int32_t i);
void clpool__window_tap_dim(clpool__window *w, int32_t to, int64_t n);

/* The windows with fewer spatial dims, where they allow: dims whose windows are one tap fold away, leading
 * ones into the planes (all but the last two where every window is a tap) and each run of neighbouring
 * ones into one dim; rank 2 at least (1-D pooling as rows of height 1). Every element keeps its flat
 * offset. Returns 0 (*out untouched) where nothing folds. */
int clpool__window_fold(const clpool__window *w, clpool__window *out);

/* Elements of the windows' input and output (planes x spatial). */
int64_t clpool__window_in_elements(const clpool__window *w);
int64_t clpool__window_out_elements(const clpool__window *w);

#endif
