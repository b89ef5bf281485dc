/* libFuzzer target: the .npy reader on arbitrary bytes (tools/fuzz.sh). */
#include <stddef.h>
#include <stdint.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a;
    char err[256];
    if (npy_parse(data, size, &a, err, sizeof err) == 0) {
        /* A successful parse must describe exactly the bytes it holds. */
        size_t count = 0, bytes = 0;
        if (tool_shape_bytes(a.dims, a.rank, pb_dtype_size(a.dtype), &count, &bytes) != 0 || bytes != a.nbytes)
            __builtin_trap();
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < a.nbytes; ++i) sink ^= ((const uint8_t *)a.data)[i];
        (void)sink;
    }
    npy_free(&a);
    return 0;
}
