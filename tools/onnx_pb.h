/* Minimal protobuf wire-format reader for the two ONNX messages the node tests
 * use: a ModelProto holding a single-node graph, and a TensorProto (.pb file).
 * No protobuf library. Unknown fields of every wire type are skipped.
 * All functions return 0 on success, -1 on error with a one-line
 * "FILE: problem" message in err (when err != NULL). */
#ifndef CLPOOL_TOOLS_ONNX_PB_H
#define CLPOOL_TOOLS_ONNX_PB_H

#include "dtype_codes.h"

typedef struct onnx_tensor {
    char name[128];
    int32_t data_type;            /* ONNX dtype code, always one pb_dtype_size() knows */
    int rank;                     /* 0..TOOL_MAX_RANK; 0 is a scalar (1 element) */
    int64_t dims[TOOL_MAX_RANK];
    void *data;                   /* malloc'd, packed little-endian; non-NULL after a successful parse */
    size_t nbytes;                /* product(dims) * pb_dtype_size(data_type) */
} onnx_tensor;

/* AttributeProto.AttributeType values */
enum {
    ONNX_ATTR_FLOAT = 1,
    ONNX_ATTR_INT = 2,
    ONNX_ATTR_STRING = 3,
    ONNX_ATTR_TENSOR = 4, /* payload not decoded */
    ONNX_ATTR_GRAPH = 5,  /* payload not decoded */
    ONNX_ATTR_FLOATS = 6,
    ONNX_ATTR_INTS = 7
};

typedef struct onnx_attr {
    char name[64];
    int32_t type;                 /* ONNX_ATTR_*; inferred from the value when the file omits it */
    float f;
    int64_t i;
    char s[64];
    int n_ints;
    int64_t ints[64];
    int n_floats;
    float floats[64];
} onnx_attr;

typedef struct onnx_model {
    char op_type[64];
    char domain[64];              /* of the node; "" is the default ONNX domain */
    int64_t opset;                /* opset_import version for domain "" or "ai.onnx"; 0 if absent */
    int n_inputs, n_outputs;      /* of the single node, counting empty ("" = omitted optional) names */
    char inputs[16][128];
    char outputs[16][128];
    int n_attrs;
    onnx_attr attrs[32];
} onnx_model;

/* Model: exactly one node is required. *m is zeroed first; it holds no heap memory. */
int onnx_read_model(const char *path, onnx_model *m, char *err, size_t errlen);
int onnx_parse_model(const uint8_t *buf, size_t len, onnx_model *m, char *err, size_t errlen);

/* Tensor: data decoded from raw_data or the typed repeated field into a packed
 * buffer of the element type. *t is zeroed first; free with onnx_tensor_free. */
int onnx_read_tensor(const char *path, onnx_tensor *t, char *err, size_t errlen);
int onnx_parse_tensor(const uint8_t *buf, size_t len, onnx_tensor *t, char *err, size_t errlen);

/* Frees t->data and zeroes *t; safe on a zeroed struct and after a failed parse. */
void onnx_tensor_free(onnx_tensor *t);

/* The attribute called NAME, or NULL if the node has none. */
const onnx_attr *onnx_model_attr(const onnx_model *m, const char *name);

#endif
