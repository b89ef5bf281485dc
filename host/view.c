/* Views (clpool_view): their constructors, and the checks every view entry point makes of one. */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

/* A view of `shape` at mem + offset with row-major strides. */
static clpool_status view_of(clpool_view *view, cl_mem mem, size_t offset, const clpool_shape *shape, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(view, fn);
    const clpool_status status = clpool__check_shape(shape, fn, "shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    memset(view, 0, sizeof *view);
    view->mem = mem;
    view->offset = offset;
    view->rank = shape->rank;
    int64_t stride = 1; /* fits: the element count does (clpool__check_shape) */
    for (int32_t d = shape->rank - 1; d >= 0; --d) {
        view->dims[d] = shape->dims[d];
        view->strides[d] = stride;
        stride *= shape->dims[d];
    }
    return CLPOOL_SUCCESS;
}

clpool_status clpool_view_contiguous(clpool_view *view, cl_mem mem, size_t offset, const clpool_shape *shape)
{
    return view_of(view, mem, offset, shape, "clpool_view_contiguous");
}

clpool_status clpool_view_channels_last(clpool_view *view, cl_mem mem, size_t offset, const clpool_shape *shape)
{
    static const char *fn = "clpool_view_channels_last";
    const clpool_status status = view_of(view, mem, offset, shape, fn);
    if (status != CLPOOL_SUCCESS) return status;
    if (shape->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: shape rank %d: channels-last needs N, C and at least one spatial dim", fn,
                            (int)shape->rank);
    const int64_t channels = shape->dims[1];
    int64_t stride = channels; /* C innermost, then the spatial dims, N outermost */
    view->strides[1] = 1;
    for (int32_t d = shape->rank - 1; d >= 2; --d) {
        view->strides[d] = stride;
        stride *= shape->dims[d];
    }
    view->strides[0] = stride;
    return CLPOOL_SUCCESS;
}

void clpool__view_shape(const clpool_view *view, clpool_shape *shape)
{
    memset(shape, 0, sizeof *shape);
    shape->rank = view->rank;
    for (int32_t d = 0; d < view->rank && d < CLPOOL_MAX_RANK; ++d) shape->dims[d] = view->dims[d];
}

int clpool__view_contiguous(const clpool_view *view)
{
    int64_t expect = 1;
    for (int32_t d = view->rank - 1; d >= 0; --d) {
        if (view->dims[d] == 0) return 1; /* no elements: every layout is the contiguous one */
        if (view->dims[d] != 1 && view->strides[d] != expect) return 0;
        expect *= view->dims[d];
    }
    return 1;
}

static uint64_t magnitude(int64_t s) { return s < 0 ? 0 - (uint64_t)s : (uint64_t)s; }

void clpool__order_by_stride(int32_t *order, int32_t n, const int64_t *strides, int largest_first)
{
    for (int32_t i = 1; i < n; ++i)
        for (int32_t k = i; k > 0; --k) {
            const uint64_t a = magnitude(strides[order[k]]), b = magnitude(strides[order[k - 1]]);
            if (largest_first ? a <= b : a >= b) break;
            const int32_t t = order[k];
            order[k] = order[k - 1], order[k - 1] = t;
        }
}

/* An output's elements are distinct: its dims of more than one element, from the smallest stride up,
 * each stride beyond the span of those before it. Returns the first dim that fails, or -1. */
static int32_t overlapping_dim(const clpool_view *v, int64_t *span_out)
{
    int32_t order[CLPOOL_MAX_RANK], n = 0;
    for (int32_t d = 0; d < v->rank; ++d)
        if (v->dims[d] > 1) order[n++] = d;
    clpool__order_by_stride(order, n, v->strides, 0);
    int64_t span = 0; /* the largest offset the dims so far reach; no overflow: checked by the caller */
    for (int32_t i = 0; i < n; ++i) {
        const int32_t d = order[i];
        if (v->strides[d] <= span) {
            *span_out = span;
            return d;
        }
        span += (v->dims[d] - 1) * v->strides[d];
    }
    return -1;
}

clpool_status clpool__view_check(const clpool_view *v, size_t esize, const clpool_shape *expect, int output,
                                 const char *fn, const char *what)
{
    if (!v) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s view is NULL", fn, what);
    clpool_shape shape;
    if (v->rank < 0 || v->rank > CLPOOL_MAX_RANK)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s view rank %d is outside 0..%d", fn, what,
                            (int)v->rank, CLPOOL_MAX_RANK);
    clpool__view_shape(v, &shape);
    int64_t elements = 0;
    clpool_status status = clpool__check_shape(&shape, fn, what, &elements);
    if (status != CLPOOL_SUCCESS) return status;
    if (expect) {
        int same = expect->rank == shape.rank;
        for (int32_t d = 0; same && d < shape.rank; ++d) same = expect->dims[d] == shape.dims[d];
        if (!same) {
            char got[256], want[256];
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: %s view dims %s differ from the %s shape %s", fn,
                                what, clpool__shape_str(&shape, got, sizeof got), what,
                                clpool__shape_str(expect, want, sizeof want));
        }
    }
    size_t size = 0; /* NULL, misaligned, invalid: as for a contiguous tensor */
    if ((status = clpool__check_buffer(v->mem, v->offset, 0, esize, fn, what, &size)) != CLPOOL_SUCCESS) return status;
    if (elements == 0) return CLPOOL_SUCCESS;
    /* The element offsets the view reaches from element 0: [lo, hi], overflow-checked. */
    int64_t lo = 0, hi = 0;
    for (int32_t d = 0; d < v->rank; ++d) {
        if (v->dims[d] == 1) continue;
        const int64_t s = v->strides[d];
        if (output && s < 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: %s view stride %" PRId64 " of dim %d is negative: an output's strides are >= 0",
                                fn, what, s, (int)d);
        int64_t reach;
        if (s == INT64_MIN || !clpool__mul_ok(v->dims[d] - 1, s < 0 ? -s : s, &reach) ||
            (s < 0 ? lo < INT64_MIN + reach : hi > INT64_MAX - reach))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW,
                                "%s: %s view reaches past 2^63 elements (dim %d: %" PRId64 " x stride %" PRId64 ")", fn,
                                what, (int)d, v->dims[d], s);
        if (s < 0)
            lo -= reach;
        else
            hi += reach;
    }
    if (output) {
        int64_t span = 0;
        const int32_t d = overlapping_dim(v, &span);
        if (d >= 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: %s view's elements overlap: dim %d's stride %" PRId64
                                " is within the span %" PRId64 " of the dims with smaller strides",
                                fn, what, (int)d, v->strides[d], span);
    }
    const uint64_t first = (uint64_t)(v->offset / esize); /* element 0, in elements from the buffer's start */
    if (lo < 0 && (uint64_t)-lo > first)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: %s view reaches %" PRIu64 " elements before its buffer's start (negative strides)",
                            fn, what, (uint64_t)-lo - first);
    const uint64_t end = first + (uint64_t)hi + 1; /* past the last element reached; hi < 2^63, first < 2^61 */
    if (end > size / esize)
        return clpool__fail(CLPOOL_ERROR_BUFFER_TOO_SMALL,
                            "%s: %s buffer holds %zu bytes but the view reaches %" PRIu64 " bytes", fn, what, size,
                            end * (uint64_t)esize);
    return CLPOOL_SUCCESS;
}

void clpool__view_bytes(const clpool_view *v, size_t esize, size_t *first, size_t *bytes)
{
    int64_t lo = 0, hi = 0; /* element offsets from element 0; within 2^63 (clpool__view_check) */
    *first = v->offset, *bytes = 0;
    for (int32_t d = 0; d < v->rank; ++d) {
        if (v->dims[d] == 0) return;
        const int64_t reach = (v->dims[d] - 1) * v->strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    *first = v->offset + (size_t)lo * esize; /* inside the buffer: the check saw to it */
    *bytes = (size_t)(hi - lo + 1) * esize;
}
