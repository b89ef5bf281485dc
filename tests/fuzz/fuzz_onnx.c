/* libFuzzer target: the ONNX ModelProto and TensorProto readers on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "onnx_pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    onnx_model m;
    if (onnx_parse_model(data, size, &m, err, sizeof err) == 0) (void)onnx_model_attr(&m, "kernel_shape");
    onnx_tensor t;
    if (onnx_parse_tensor(data, size, &t, err, sizeof err) == 0) {
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < t.nbytes; ++i) sink ^= ((const uint8_t *)t.data)[i];
        (void)sink;
    }
    onnx_tensor_free(&t);
    return 0;
}
