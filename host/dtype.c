/* The dtype table and shape arithmetic every op shares. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const clpool__dtype_info dtype_table[] = {
    {CLPOOL_FLOAT32, "float32", "DT_FLOAT32", 4},
    {CLPOOL_UINT8, "uint8", "DT_UINT8", 1},
    {CLPOOL_INT8, "int8", "DT_INT8", 1},
    {CLPOOL_UINT16, "uint16", "DT_UINT16", 2},
    {CLPOOL_INT16, "int16", "DT_INT16", 2},
    {CLPOOL_INT32, "int32", "DT_INT32", 4},
    {CLPOOL_INT64, "int64", "DT_INT64", 8},
    {CLPOOL_FLOAT16, "float16", "DT_FLOAT16", 2},
    {CLPOOL_FLOAT64, "float64", "DT_FLOAT64", 8},
    {CLPOOL_UINT32, "uint32", "DT_UINT32", 4},
    {CLPOOL_UINT64, "uint64", "DT_UINT64", 8},
    {CLPOOL_BFLOAT16, "bfloat16", "DT_BFLOAT16", 2},
};

const clpool__dtype_info *clpool__dtype_lookup(clpool_dtype dtype)
{
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; ++i)
        if (dtype_table[i].dtype == dtype) return &dtype_table[i];
    return NULL;
}

size_t clpool_dtype_size(clpool_dtype dtype)
{
    const clpool__dtype_info *d = clpool__dtype_lookup(dtype);
    return d ? d->size : 0;
}

const char *clpool_dtype_name(clpool_dtype dtype)
{
    const clpool__dtype_info *d = clpool__dtype_lookup(dtype);
    return d ? d->name : "unknown";
}

const char *clpool__dtype_macro(clpool_dtype dtype)
{
    const clpool__dtype_info *d = clpool__dtype_lookup(dtype);
    return d ? d->macro : "DT_UNKNOWN";
}

clpool_status clpool__check_dtype_device(const clpool_context *ctx, clpool_dtype dtype, const char *fn)
{
    if (dtype == CLPOOL_FLOAT64 && !ctx->info.has_fp64)
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DEVICE,
                            "%s: float64 needs cl_khr_fp64, which device '%s' does not support", fn,
                            ctx->info.device_name);
    return CLPOOL_SUCCESS;
}

int clpool__mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a) return 0;
    *out = a * b;
    return 1;
}

int64_t clpool_shape_elements(const clpool_shape *shape)
{
    if (!shape || shape->rank < 0 || shape->rank > CLPOOL_MAX_RANK) return -1;
    int64_t n = 1;
    for (int32_t i = 0; i < shape->rank; ++i) {
        if (shape->dims[i] < 0 || !clpool__mul_ok(n, shape->dims[i], &n)) return -1;
    }
    return n;
}

const char *clpool__shape_str(const clpool_shape *shape, char *buf, size_t len)
{
    size_t used = 0;
    int32_t rank = shape->rank < 0 ? 0 : shape->rank > CLPOOL_MAX_RANK ? CLPOOL_MAX_RANK : shape->rank;
    used += (size_t)snprintf(buf, len, "[");
    for (int32_t i = 0; i < rank && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, i ? ",%lld" : "%lld", (long long)shape->dims[i]);
    if (used < len) snprintf(buf + used, len - used, "]");
    return buf;
}

clpool_status clpool__check_shape(const clpool_shape *shape, const char *fn, const char *what,
                                  int64_t *elements)
{
    if (!shape) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
    if (shape->rank < 0 || shape->rank > CLPOOL_MAX_RANK)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: %s rank %d is outside 0..%d", fn, what,
                            (int)shape->rank, CLPOOL_MAX_RANK);
    int64_t n = 1;
    for (int32_t i = 0; i < shape->rank; ++i) {
        if (shape->dims[i] < 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: %s dim %d is negative (%lld)", fn, what,
                                (int)i, (long long)shape->dims[i]);
        if (!clpool__mul_ok(n, shape->dims[i], &n))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: %s element count overflows int64", fn, what);
    }
    /* Byte sizes must fit too: 8 bytes per element is the widest dtype. */
    if (n > INT64_MAX / 8 || (uint64_t)n > SIZE_MAX / 8) /* LCOV_EXCL_BR_LINE: SIZE_MAX binds below 64 bits */
        return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: %s byte size overflows size_t", fn, what);
    if (elements) *elements = n;
    return CLPOOL_SUCCESS;
}
