/* Reader and writer for numpy .npy files (format 1.0, 2.0, 3.0; little-endian,
 * C order, plain numeric dtypes). Element types use ONNX TensorProto codes
 * (see dtype_codes.h). All functions return 0 on success, -1 on error with a
 * one-line "FILE: problem" message in err (when err != NULL). */
#ifndef CLPOOL_TOOLS_NPY_H
#define CLPOOL_TOOLS_NPY_H

#include "dtype_codes.h"

typedef struct npy_array {
    int32_t dtype;                /* ONNX dtype code */
    int rank;                     /* 0..TOOL_MAX_RANK; 0 is a scalar (1 element) */
    int64_t dims[TOOL_MAX_RANK];
    void *data;                   /* malloc'd, packed little-endian; non-NULL after a successful read */
    size_t nbytes;                /* product(dims) * pb_dtype_size(dtype) */
} npy_array;

/* Reads PATH. *out is overwritten (zeroed first); free it with npy_free. */
int npy_read(const char *path, npy_array *out, char *err, size_t errlen);

/* Same as npy_read on an in-memory file image (buf may be NULL when len is 0). */
int npy_parse(const uint8_t *buf, size_t len, npy_array *out, char *err, size_t errlen);

/* Writes a version 1.0 file the way numpy does (header padded to a multiple of
 * 64 bytes). bfloat16 is written as '<u2'. Writes a temp file next to PATH and
 * renames it into place: on failure no file (partial or temp) is left behind. */
int npy_write(const char *path, const npy_array *a, char *err, size_t errlen);

/* Frees a->data and zeroes *a; safe on a zeroed struct and after a failed read. */
void npy_free(npy_array *a);

#endif
