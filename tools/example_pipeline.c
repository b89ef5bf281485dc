/*
 * Example: clpool inside an application's own OpenCL pipeline.
 *
 *   produce (app kernel) -> MaxPool 3x3/s2/p1 -> GlobalAveragePool -> Max with a bias
 *   -> consume (app kernel: scale by 2)
 *
 * Everything lives in one arena cl_mem owned by the application, on its own
 * out-of-order queue; the steps are ordered by events alone and the host
 * blocks once, on the final read. The result is checked on the host.
 * Build: cc example_pipeline.c $(pkg-config --cflags --libs clpool) (or CMake: clpool::clpool).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clpool/clpool.h>

static const char *app_source =
    "__kernel void produce(__global float *x, const ulong off, const ulong n) {\n"
    "    const ulong i = get_global_id(0);\n"
    "    if (i < n) x[off + i] = (float)((i * 7919u) % 1000u) / 10.0f;\n"
    "}\n"
    "__kernel void consume(__global float *x, const ulong off, const ulong n) {\n"
    "    const ulong i = get_global_id(0);\n"
    "    if (i < n) x[off + i] *= 2.0f;\n"
    "}\n";

#define CHECK_CL(call)                                                              \
    do {                                                                            \
        cl_int err_ = (call);                                                       \
        if (err_ != CL_SUCCESS) {                                                   \
            fprintf(stderr, "example: %s failed (%d) at line %d\n", #call, err_, __LINE__); \
            return 1;                                                               \
        }                                                                           \
    } while (0)
#define CHECK_POOL(call)                                                            \
    do {                                                                            \
        if ((call) != CLPOOL_SUCCESS) {                                             \
            fprintf(stderr, "example: %s: %s\n", #call, clpool_last_error());       \
            return 1;                                                               \
        }                                                                           \
    } while (0)

static cl_int run_app_kernel(cl_command_queue q, cl_kernel k, cl_mem arena, cl_ulong off, cl_ulong n, cl_uint nwait,
                             const cl_event *wait, cl_event *done)
{
    clSetKernelArg(k, 0, sizeof arena, &arena);
    clSetKernelArg(k, 1, sizeof off, &off);
    clSetKernelArg(k, 2, sizeof n, &n);
    size_t local = 64, global = (size_t)((n + 63) / 64) * 64;
    return clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, nwait, wait, done);
}

int main(void)
{
    /* The application's own OpenCL objects. */
    clpool_device_info info;
    CHECK_POOL(clpool_device_get_info(0, &info));
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &info.device, NULL, NULL, &err);
    CHECK_CL(err);
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(info.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    cl_command_queue queue =
        clCreateCommandQueue(context, info.device, props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    CHECK_CL(err);
    cl_program program = clCreateProgramWithSource(context, 1, &app_source, NULL, &err);
    CHECK_CL(err);
    CHECK_CL(clBuildProgram(program, 1, &info.device, "", NULL, NULL));
    cl_kernel produce = clCreateKernel(program, "produce", &err), consume = clCreateKernel(program, "consume", &err);
    CHECK_CL(err);

    /* clpool adopts them: nothing of ours is created except programs. */
    clpool_context *pool = NULL;
    CHECK_POOL(clpool_context_create_from_cl(context, info.device, queue, &pool));

    const clpool_shape x_shape = {4, {2, 16, 32, 32}}, bias_shape = {4, {1, 16, 1, 1}};
    const int64_t k[2] = {3, 3};
    clpool_maxpool_params mp;
    CHECK_POOL(clpool_maxpool_params_init(&mp, 2, k));
    mp.strides[0] = mp.strides[1] = 2;
    mp.pads[0] = mp.pads[1] = mp.pads[2] = mp.pads[3] = 1;
    clpool_shape y_shape, z_shape, r_shape;
    CHECK_POOL(clpool_maxpool_output_shape(&x_shape, &mp, &y_shape));
    CHECK_POOL(clpool_global_pool_output_shape(&y_shape, &z_shape));
    const clpool_shape max_shapes[2] = {z_shape, bias_shape};
    CHECK_POOL(clpool_max_output_shape(2, max_shapes, &r_shape));

    /* One arena, tensors back to back (element offsets x 4 bytes). */
    const cl_ulong nx = (cl_ulong)clpool_shape_elements(&x_shape), ny = (cl_ulong)clpool_shape_elements(&y_shape);
    const cl_ulong nz = (cl_ulong)clpool_shape_elements(&z_shape), nr = (cl_ulong)clpool_shape_elements(&r_shape);
    const cl_ulong ox = 0, oy = ox + nx, oz = oy + ny, ob = oz + nz, orr = ob + 16;
    cl_mem arena = clCreateBuffer(context, CL_MEM_READ_WRITE, (size_t)(orr + nr) * 4, NULL, &err);
    CHECK_CL(err);
    float bias[16];
    for (int i = 0; i < 16; ++i) bias[i] = 30.0f + (float)i;
    cl_event ev[6];
    CHECK_CL(clEnqueueWriteBuffer(queue, arena, CL_FALSE, (size_t)ob * 4, sizeof bias, bias, 0, NULL, &ev[0]));
    CHECK_CL(run_app_kernel(queue, produce, arena, ox, nx, 0, NULL, &ev[1]));
    CHECK_POOL(clpool_enqueue_maxpool(pool, queue, &mp, CLPOOL_FLOAT32, &x_shape, arena, (size_t)ox * 4, arena,
                                      (size_t)oy * 4, NULL, 0, 1, &ev[1], &ev[2]));
    CHECK_POOL(clpool_enqueue_global_average_pool(pool, queue, CLPOOL_FLOAT32, &y_shape, arena, (size_t)oy * 4, arena,
                                                  (size_t)oz * 4, 1, &ev[2], &ev[3]));
    const cl_mem bufs[2] = {arena, arena};
    const size_t offs[2] = {(size_t)oz * 4, (size_t)ob * 4};
    const cl_event max_wait[2] = {ev[3], ev[0]};
    CHECK_POOL(clpool_enqueue_max(pool, queue, CLPOOL_FLOAT32, 2, max_shapes, bufs, offs, arena, (size_t)orr * 4, 2,
                                  max_wait, &ev[4]));
    CHECK_CL(run_app_kernel(queue, consume, arena, orr, nr, 1, &ev[4], &ev[5]));
    float result[32];
    CHECK_CL(clEnqueueReadBuffer(queue, arena, CL_TRUE, (size_t)orr * 4, (size_t)nr * 4, result, 1, &ev[5], NULL));

    /* Check on the host: the same pipeline in plain C. */
    float *x = malloc((size_t)nx * sizeof *x);
    int bad = !x;
    for (cl_ulong i = 0; x && i < nx; ++i) x[i] = (float)((i * 7919u) % 1000u) / 10.0f;
    for (int n = 0; x && n < 2; ++n) {
        for (int c = 0; c < 16; ++c) {
            const float *plane = x + (n * 16 + c) * 32 * 32;
            double sum = 0;
            for (int oh = 0; oh < 16; ++oh)
                for (int ow = 0; ow < 16; ++ow) {
                    float m = -INFINITY;
                    for (int kh = -1; kh <= 1; ++kh)
                        for (int kw = -1; kw <= 1; ++kw) {
                            const int h = 2 * oh + kh, w = 2 * ow + kw;
                            if (h >= 0 && h < 32 && w >= 0 && w < 32 && plane[h * 32 + w] > m) m = plane[h * 32 + w];
                        }
                    sum += m;
                }
            const float avg = (float)(sum / 256.0), want = 2.0f * (avg > bias[c] ? avg : bias[c]);
            if (fabsf(result[n * 16 + c] - want) > 1e-4f * want) {
                fprintf(stderr, "example: result[%d] = %g, expected %g\n", n * 16 + c, result[n * 16 + c], want);
                bad = 1;
            }
        }
    }
    free(x);
    for (int i = 0; i < 6; ++i) clReleaseEvent(ev[i]);
    clReleaseMemObject(arena);
    clpool_context_release(pool);
    clReleaseKernel(produce);
    clReleaseKernel(consume);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    if (bad) return 1;
    printf("example pipeline OK: produce -> MaxPool -> GlobalAveragePool -> Max -> consume, events only\n");
    return 0;
}
