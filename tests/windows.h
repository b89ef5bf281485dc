/*
 * The suite-wide catalogue of MaxPool windows. A program is specialised on
 * its dtype and window (kernel, strides, dilations, Indices, storage order),
 * and program builds are most of a cold suite's time, so the suites that draw
 * random windows (random cases, the host API, the tiers, the CLI) take them
 * from one fixed catalogue per dtype and spatial rank: a window one suite
 * builds is reused by the others. Shapes, pads, modes and data stay random.
 */
#ifndef CLPOOL_TESTS_WINDOWS_H
#define CLPOOL_TESTS_WINDOWS_H

#include <stdint.h>

#include <clpool/clpool.h>

#define CU_CATALOGUE_WINDOWS 2 /* windows per dtype and spatial rank */

typedef struct cu_window {
    int64_t kernel[CLPOOL_MAX_SPATIAL], strides[CLPOOL_MAX_SPATIAL], dilations[CLPOOL_MAX_SPATIAL];
    int with_indices;
    int32_t storage_order;
} cu_window;

/**
 * Window j (0 <= j < CU_CATALOGUE_WINDOWS) of `dtype` at spatial rank ns
 * (1..CLPOOL_MAX_SPATIAL): kernels of 1 to 4 taps a dim (1 to 3 past rank
 * 2), strides 1 to 3, each dim dilated (2 or 3) one time in four, Indices
 * three times in five, either storage order; the same in every suite.
 */
cu_window cu_catalogue_window(clpool_dtype dtype, int32_t ns, int j);

/** Sets p's kernel, strides and dilations (over p->spatial_rank) and storage order to w's; Indices are the caller's. */
void cu_window_apply(const cu_window *w, clpool_maxpool_params *p);

#endif
