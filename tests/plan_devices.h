/* The three kinds of device the planners' tests and tests/plan_programs.c plan for, as plain data. */
#ifndef CLPOOL_TESTS_PLAN_DEVICES_H
#define CLPOOL_TESTS_PLAN_DEVICES_H

#include "plan.h"

/* An AVX-512 CPU under PoCL: 16 float lanes per work-item, the tests' pinned cache. */
static const clpool__device_caps cpu512 = {.cpu = 1, .cpu_simd = 1, .vector_bytes = 64, .cache_bytes = 32u << 20,
                                           .compute_units = 2, .local_size = 64};
/* A GPU: lanes are work-items. */
static const clpool__device_caps gpu = {.cpu = 0, .cpu_simd = 0, .vector_bytes = 4, .cache_bytes = 4u << 20,
                                        .compute_units = 40, .local_size = 64};
/* Mesa's llvmpipe (rusticl): a CPU that vectorises across work-items, no fp64. */
static const clpool__device_caps llvmpipe = {.cpu = 1, .cpu_simd = 0, .vector_bytes = 4, .cache_bytes = 32u << 20,
                                             .compute_units = 8, .local_size = 64};

#endif
