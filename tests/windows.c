/* The suite-wide catalogue of MaxPool windows (windows.h). */
#include "windows.h"

#include "reference.h"

cu_window cu_catalogue_window(clpool_dtype dtype, int32_t ns, int j)
{
    /* a generator per (dtype, rank, window): the same window whichever suite asks first */
    ref_rng r;
    ref_rng_seed(&r, 0x77696e646f7773ull + (uint64_t)dtype * 4096 + (uint64_t)ns * 64 + (uint64_t)j);
    cu_window w = {{0}, {0}, {0}, 0, 0};
    const int64_t max_k = ns <= 2 ? 4 : 3;
    for (int32_t i = 0; i < ns; ++i) {
        w.kernel[i] = ref_rng_range(&r, 1, max_k);
        w.strides[i] = ref_rng_range(&r, 1, 3);
        w.dilations[i] = ref_rng_chance(&r, 0.25) ? ref_rng_range(&r, 2, 3) : 1;
    }
    w.with_indices = ref_rng_chance(&r, 0.6);
    w.storage_order = (int32_t)ref_rng_range(&r, 0, 1);
    return w;
}

void cu_window_apply(const cu_window *w, clpool_maxpool_params *p)
{
    for (int32_t i = 0; i < p->spatial_rank; ++i) {
        p->kernel_shape[i] = w->kernel[i];
        p->strides[i] = w->strides[i];
        p->dilations[i] = w->dilations[i];
    }
    p->storage_order = w->storage_order;
}
