/* Shared by the .npy and ONNX protobuf readers: ONNX TensorProto dtype codes,
 * the rank limit, the overflow-checked shape size, error formatting and
 * whole-file reading. Header-only (static inline) so npy.c and onnx_pb.c each
 * link on their own, e.g. into separate fuzz targets. */
#ifndef CLPOOL_TOOLS_DTYPE_CODES_H
#define CLPOOL_TOOLS_DTYPE_CODES_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_MAX_RANK 16

/* ONNX TensorProto.DataType codes. */
enum {
    PB_DT_FLOAT32 = 1,
    PB_DT_UINT8 = 2,
    PB_DT_INT8 = 3,
    PB_DT_UINT16 = 4,
    PB_DT_INT16 = 5,
    PB_DT_INT32 = 6,
    PB_DT_INT64 = 7,
    PB_DT_STRING = 8, /* named for messages only: not supported */
    PB_DT_BOOL = 9,
    PB_DT_FLOAT16 = 10,
    PB_DT_FLOAT64 = 11,
    PB_DT_UINT32 = 12,
    PB_DT_UINT64 = 13,
    PB_DT_BFLOAT16 = 16
};

/* Element size in bytes of a supported dtype code; 0 for anything else. */
static inline size_t pb_dtype_size(int32_t code)
{
    switch (code) {
    case PB_DT_UINT8: case PB_DT_INT8: case PB_DT_BOOL: return 1;
    case PB_DT_UINT16: case PB_DT_INT16: case PB_DT_FLOAT16: case PB_DT_BFLOAT16: return 2;
    case PB_DT_FLOAT32: case PB_DT_INT32: case PB_DT_UINT32: return 4;
    case PB_DT_INT64: case PB_DT_FLOAT64: case PB_DT_UINT64: return 8;
    default: return 0;
    }
}

/* Short lower-case name ("float32", "bfloat16", ...); "unknown" otherwise. */
static inline const char *pb_dtype_name(int32_t code)
{
    switch (code) {
    case PB_DT_FLOAT32: return "float32";
    case PB_DT_UINT8: return "uint8";
    case PB_DT_INT8: return "int8";
    case PB_DT_UINT16: return "uint16";
    case PB_DT_INT16: return "int16";
    case PB_DT_INT32: return "int32";
    case PB_DT_INT64: return "int64";
    case PB_DT_STRING: return "string";
    case PB_DT_BOOL: return "bool";
    case PB_DT_FLOAT16: return "float16";
    case PB_DT_FLOAT64: return "float64";
    case PB_DT_UINT32: return "uint32";
    case PB_DT_UINT64: return "uint64";
    case PB_DT_BFLOAT16: return "bfloat16";
    default: return "unknown";
    }
}

/* Element count and byte size of a shape. Returns -1 on a negative dim or if
 * either value overflows size_t. Any zero dim makes the shape empty no matter
 * how large the other dims are (numpy accepts such shapes too). */
static inline int tool_shape_bytes(const int64_t *dims, int rank, size_t itemsize,
                                   size_t *count, size_t *nbytes)
{
    size_t n = 1;
    int empty = 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return -1;
        if (dims[i] == 0)
            empty = 1;
    }
    if (empty) {
        *count = 0;
        *nbytes = 0;
        return 0;
    }
    for (int i = 0; i < rank; i++) {
        if ((uint64_t)dims[i] > SIZE_MAX / n)
            return -1;
        n *= (size_t)dims[i];
    }
    if (itemsize != 0 && n > SIZE_MAX / itemsize)
        return -1;
    *count = n;
    *nbytes = n * itemsize;
    return 0;
}

#if defined(__GNUC__)
#define TOOL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TOOL_PRINTF(f, a)
#endif

/* Writes "SRC: message" into err (if any) and returns -1, so error paths can
 * be written as `return tool_errf(...)`. */
static inline int tool_errf(char *err, size_t errlen, const char *src, const char *fmt, ...)
    TOOL_PRINTF(4, 5);
static inline int tool_errf(char *err, size_t errlen, const char *src, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return -1;
    int n = snprintf(err, errlen, "%s: ", src ? src : "(null)");
    if (n < 0 || (size_t)n >= errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads a whole file into a malloc'd buffer (never NULL on success, even for
 * an empty file). Reads in growing chunks so pipes and /dev/stdin work too. */
static inline int tool_read_file(const char *path, uint8_t **out, size_t *outlen,
                                 char *err, size_t errlen)
{
    *out = NULL;
    *outlen = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return tool_errf(err, errlen, path, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        return tool_errf(err, errlen, path, "out of memory");
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return tool_errf(err, errlen, path, "out of memory reading file");
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return tool_errf(err, errlen, path, "read error: %s", strerror(e));
    }
    fclose(f);
    *out = buf;
    *outlen = len;
    return 0;
}

#endif
