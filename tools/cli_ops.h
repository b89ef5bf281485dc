/* The op layer shared by `clpool run` and `clpool onnx-test`:
 * ONNX attributes + host arrays in, host arrays out, through the clpool API. */
#ifndef CLPOOL_TOOLS_CLI_OPS_H
#define CLPOOL_TOOLS_CLI_OPS_H

#include <clpool/clpool.h>

#include "npy.h"
#include "onnx_pb.h"

#define CLI_MAX_INPUTS 64
#define CLI_MAX_OUTPUTS 2

typedef struct cli_op_call {
    const char *op;            /* ONNX op_type */
    const onnx_attr *attrs;    /* ONNX attribute values (from flags or a model) */
    int n_attrs;
    const npy_array *inputs;
    int n_inputs;
    int bfloat16;              /* uint16 inputs hold bfloat16 bits */
    int indices_of_output;     /* MaxUnpool: indices count positions in the output's planes (CLPOOL_UNPOOL_INDICES_OUTPUT) */
    int channels_last;         /* arrays are N x spatial x C (--layout nhwc): MaxPool, AveragePool, LpPool */
    int n_outputs;             /* outputs wanted (MaxPool: 1, or 2 for Indices) */
    npy_array outputs[CLI_MAX_OUTPUTS]; /* filled on success; free with cli_op_call_free */
} cli_op_call;

/* 1 if `op` is an op the CLI knows. */
int cli_op_known(const char *op);

/* Parse `--name value` for `op` into attr (typed by the op's attribute table;
 * a name-valued attribute must be one of its names). 0, or -1 with err set. */
int cli_parse_attr(const char *op, const char *name, const char *value, onnx_attr *attr, char *err, size_t errlen);

/* The checks a command line alone decides: the op's input and output counts
 * and its required attributes. 0, or -1 with err set. */
int cli_check_call(const char *op, const onnx_attr *attrs, int n_attrs, int n_inputs, int n_outputs, char *err,
                   size_t errlen);

/* Validate the call and run it on ctx (blocking). Returns 0, or -1 with err set
 * (CLI_UNSUPPORTED when the device lacks a feature, e.g. float64 without fp64). */
#define CLI_UNSUPPORTED (-2)
int cli_run_op(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);

void cli_op_call_free(cli_op_call *call);

#endif
