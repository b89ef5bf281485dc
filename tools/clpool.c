/*
 * The `clpool` command-line tool:
 *   clpool devices
 *   clpool run OP [--ATTR VALUE ...] [--bfloat16] [--device N] -i IN.npy ... -o OUT.npy [-o INDICES.npy]
 *   clpool onnx-test [--device N] DIR...
 *   clpool demo [--device N]
 *   clpool bench [--csv] [--device N] [--repeat R] [--filter TEXT] [--sweep | --overhead | --startup]
 * Any bad input exits non-zero with one line on stderr and writes no output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_ops.h"

clpool_context *cli_open_context(const char *device, const char *who)
{
    clpool_context *ctx = NULL;
    clpool_status st = clpool_context_create(device, &ctx);
    if (st != CLPOOL_SUCCESS) fprintf(stderr, "%s: %s: %s\n", who, clpool_status_string(st), clpool_last_error());
    return ctx;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clpool devices\n"
            "       clpool run OP [--ATTR VALUE ...] [--bfloat16] [--device N] -i IN.npy [-i IN2.npy ...]\n"
            "                  -o OUT.npy [-o INDICES.npy]\n"
            "       clpool onnx-test [--device N] DIR...\n"
            "       clpool demo [--device N]\n"
            "       clpool bench [--csv] [--device N] [--repeat R] [--filter TEXT] [--sweep | --overhead | --startup]\n"
            "       clpool --version\n"
            "OP is an ONNX op name (MaxPool, GlobalMaxPool, GlobalAveragePool, GlobalLpPool, Max); attributes use ONNX names, e.g.\n"
            "  --kernel_shape 3,3 --strides 2,2 --pads 1,1,1,1 --dilations 1,1 --ceil_mode 1\n"
            "  --auto_pad SAME_UPPER --storage_order 1\n");
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
    return "OTHER";
}

static int cmd_devices(void)
{
    uint32_t n = 0;
    clpool_status st = clpool_device_count(&n);
    if (st != CLPOOL_SUCCESS) {
        fprintf(stderr, "clpool devices: %s: %s\n", clpool_status_string(st), clpool_last_error());
        return 1;
    }
    for (uint32_t i = 0; i < n; ++i) {
        clpool_device_info info;
        if ((st = clpool_device_get_info(i, &info)) != CLPOOL_SUCCESS) {
            fprintf(stderr, "clpool devices: %s\n", clpool_last_error());
            return 1;
        }
        printf("%u: %s / %s\n", i, info.platform_name, info.device_name);
        printf("   type %s, %u compute units, %llu MiB global memory, %llu KiB global memory cache, max alloc %llu MiB, "
               "max work-group %llu\n",
               type_name(info.type), info.compute_units, (unsigned long long)(info.global_mem_bytes >> 20),
               (unsigned long long)(info.cache_bytes >> 10), (unsigned long long)(info.max_alloc_bytes >> 20),
               (unsigned long long)info.max_work_group_size);
        printf("   %s, %s, driver %s, fp16 %s, fp64 %s\n", info.device_version, info.opencl_c_version,
               info.driver_version, info.has_fp16 ? "yes" : "no", info.has_fp64 ? "yes" : "no");
    }
    return 0;
}

#define RUN_MAX_ATTRS 32

static int cmd_run(int argc, char **argv)
{
    char err[2048];
    const char *device = NULL, *in_paths[CLI_MAX_INPUTS], *out_paths[CLI_MAX_OUTPUTS];
    int n_in = 0, n_out = 0, bfloat16 = 0, n_attrs = 0, rc = 1;
    onnx_attr attrs[RUN_MAX_ATTRS];
    npy_array inputs[CLI_MAX_INPUTS];
    cli_op_call call;
    memset(inputs, 0, sizeof inputs);
    memset(&call, 0, sizeof call);

    if (argc < 1) {
        fprintf(stderr, "clpool run: missing OP\n");
        return 2;
    }
    const char *op = argv[0];
    if (!cli_op_known(op)) {
        fprintf(stderr, "clpool run: unknown op '%s'\n", op);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bfloat16") == 0) {
            bfloat16 = 1;
            continue;
        }
        if (a[0] != '-') {
            fprintf(stderr, "clpool run: unexpected argument '%s'\n", a);
            return 2;
        }
        if (!value) {
            fprintf(stderr, "clpool run: %s needs a value\n", a);
            return 2;
        }
        ++i;
        if (strcmp(a, "-i") == 0) {
            if (n_in == CLI_MAX_INPUTS) {
                fprintf(stderr, "clpool run: more than %d inputs\n", CLI_MAX_INPUTS);
                return 2;
            }
            in_paths[n_in++] = value;
        } else if (strcmp(a, "-o") == 0) {
            if (n_out == CLI_MAX_OUTPUTS) {
                fprintf(stderr, "clpool run: at most %d outputs\n", CLI_MAX_OUTPUTS);
                return 2;
            }
            out_paths[n_out++] = value;
        } else if (strcmp(a, "--device") == 0) {
            device = value;
        } else if (strncmp(a, "--", 2) == 0 && a[2]) {
            if (n_attrs == RUN_MAX_ATTRS || cli_parse_attr(op, a + 2, value, &attrs[n_attrs], err, sizeof err) != 0) {
                fprintf(stderr, "clpool run: %s\n", n_attrs == RUN_MAX_ATTRS ? "too many attributes" : err);
                return 2;
            }
            for (int k = 0; k < n_attrs; ++k) {
                if (strcmp(attrs[k].name, a + 2) == 0) {
                    fprintf(stderr, "clpool run: attribute --%s given twice\n", a + 2);
                    return 2;
                }
            }
            ++n_attrs;
        } else {
            fprintf(stderr, "clpool run: unexpected argument '%s'\n", a);
            return 2;
        }
    }
    if (n_in == 0 || n_out == 0) {
        fprintf(stderr, "clpool run: need at least one -i input and one -o output\n");
        return 2;
    }
    for (int i = 0; i < n_in; ++i) {
        if (npy_read(in_paths[i], &inputs[i], err, sizeof err) != 0) {
            fprintf(stderr, "clpool run: %s\n", err);
            goto done;
        }
    }
    clpool_context *ctx = cli_open_context(device, "clpool run");
    if (!ctx) goto done;
    call = (cli_op_call){.op = op, .attrs = attrs, .n_attrs = n_attrs, .inputs = inputs, .n_inputs = n_in,
                         .bfloat16 = bfloat16, .n_outputs = n_out};
    int ok = cli_run_op(ctx, &call, err, sizeof err) == 0;
    /* A failed op may leave earlier passes queued: wait for them before anything is released or the process
     * exits (exiting under PoCL's worker, busy compiling a first pass, crashed in LLVM's teardown). */
    cl_command_queue queue = ok ? NULL : clpool_context_cl_queue(ctx);
    if (queue) clFinish(queue);
    clpool_context_release(ctx);
    if (!ok) {
        fprintf(stderr, "clpool run: %s\n", err);
        goto done;
    }
    for (int k = 0; k < n_out; ++k) {
        if (npy_write(out_paths[k], &call.outputs[k], err, sizeof err) != 0) {
            fprintf(stderr, "clpool run: %s\n", err);
            for (int j = 0; j < k; ++j) unlink(out_paths[j]); /* no partial output set */
            goto done;
        }
    }
    rc = 0;
done:
    cli_op_call_free(&call);
    for (int i = 0; i < n_in; ++i) npy_free(&inputs[i]);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "devices") == 0) return cmd_devices();
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "onnx-test") == 0) return cli_onnx_test(argc - 2, argv + 2);
    if (strcmp(cmd, "demo") == 0) return cli_demo(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) return cli_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "--version") == 0) {
        printf("clpool %s\n", clpool_version_string());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "clpool: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
