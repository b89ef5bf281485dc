/*
 * The `clpool` command-line tool:
 *   clpool devices
 *   clpool run OP [--ATTR VALUE ...] [--bfloat16] [--layout nchw|nhwc] [--indices_of inferred|output] [--device DEV] -i IN.npy ...
 *              -o OUT.npy [-o INDICES.npy]
 *   clpool onnx-test [--device DEV] DIR...
 *   clpool bench [--csv] [--device DEV] [--repeat R] [--filter TEXT | --sweep | --overhead | --startup]
 * Exit status (as clpool.1 documents it): 0 success; 1 the operation failed, or onnx-test found
 * failures; 2 the command line is wrong (found before any file is read or device opened).
 * Every error is one line on stderr, and no output is written.
 */
#include <stdarg.h>
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

/* One row per subcommand: its synopsis and the options it takes (as `--help` and the man page show them). */
typedef struct cli_command {
    const char *name, *synopsis, *options;
} cli_command;

static const cli_command commands[] = {
    {"devices", "clpool devices", "List the OpenCL devices; the number before each is what --device DEV selects.\n"},
    {"run", "clpool run OP [--ATTR VALUE ...] [--bfloat16] [--layout nchw|nhwc] [--indices_of inferred|output] "
            "[--device DEV] -i IN.npy [-i IN2.npy ...] -o OUT.npy [-o INDICES.npy]",
     "Run one op on .npy arrays. OP: MaxPool, AveragePool, LpPool, MaxUnpool, GlobalMaxPool, GlobalAveragePool,\n"
     "  GlobalLpPool, Max.\n"
     "  -i IN.npy        an input (Max takes 1 to 64; MaxUnpool X, int64 I and an optional int64 output_shape;\n"
     "                   the others one)\n"
     "  -o OUT.npy       the output; a second -o on MaxPool writes its int64 Indices\n"
     "  --bfloat16       uint16 inputs hold bfloat16 bits; outputs are written the same way\n"
     "  --layout L       nchw (default): N x C x spatial arrays; nhwc: channels last, N x spatial x C for any rank\n"
     "                   (NWC, NHWC, NDHWC; every op), Indices ONNX's whatever the layout\n"
     "  --indices_of W   MaxUnpool with an output_shape unlike the inferred one: its indices count positions\n"
     "                   in the inferred shape (inferred, ONNX's node tests) or in the output's (output, PyTorch)\n"
     "  --device DEV     a number from `clpool devices`, PLATFORM:DEVICE, or a name substring\n"
     "Window attributes (MaxPool, AveragePool, LpPool): --kernel_shape 3,3 (required) --strides 2,2\n"
     "  --pads 1,1,1,1 --dilations 1,1 --ceil_mode 0|1 --auto_pad NOTSET|SAME_UPPER|SAME_LOWER|VALID\n"
     "MaxPool: --storage_order 0|1; AveragePool: --count_include_pad 0|1\n"
     "MaxUnpool: --kernel_shape 2,2 (required) --strides 2,2 --pads 0,0,0,0\n"
     "LpPool, GlobalLpPool: --p 2 (an integer, or a float such as 2.5)\n"},
    {"onnx-test", "clpool onnx-test [--device DEV] DIR...",
     "Run ONNX backend node-test directories (model.onnx + test_data_set_*/{input,output}_*.pb).\n"
     "  --device DEV     as for run\n"},
    {"bench", "clpool bench [--csv] [--device DEV] [--repeat R] [--filter TEXT | --sweep | --overhead | --startup]",
     "Time the benchmark cases next to a copy kernel of the same bytes.\n"
     "  --csv            comma-separated output\n"
     "  --device DEV     as for run\n"
     "  --repeat R       timed runs per case, 1..100000 (default 15)\n"
     "  --filter TEXT    only the cases whose name contains TEXT\n"
     "  --sweep          MaxPool 3x3/s2/p1 and Max from 64 KiB to 512 MiB\n"
     "  --overhead       host cost of one enqueue call, device busy and idle\n"
     "  --startup        first results in fresh processes from empty caches, against a copy kernel's\n"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    for (size_t i = 0; i < N_COMMANDS; ++i) fprintf(f, "%s %s\n", i ? "      " : "usage:", commands[i].synopsis);
    fprintf(f, "       clpool --help | --version\n"
               "       clpool COMMAND --help\n"
               "Exit status: 0 success, 1 the operation failed (or onnx-test found failures), 2 usage error.\n"
               "See clpool(1).\n");
}

int cli_help(const char *command)
{
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        if (strcmp(commands[i].name, command) != 0) continue;
        printf("usage: %s\n%s", commands[i].synopsis, commands[i].options);
        return 0;
    }
    usage(stdout);
    return 0;
}

int cli_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "clpool %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'clpool %s --help')\n", command);
    va_end(ap);
    return 2;
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
    return "OTHER";
}

/* The program-binary cache state of a context on the default device: it
 * depends on the environment and the directory, not on the device. */
static void print_cache_state(void)
{
    clpool_context *ctx = NULL;
    if (clpool_context_create(NULL, &ctx) != CLPOOL_SUCCESS) return;
    clpool_cache_info info = {.struct_size = sizeof info};
    if (clpool_context_cache_info(ctx, &info) == CLPOOL_SUCCESS) {
        if (info.state == CLPOOL_CACHE_ON) printf("program-binary cache: on, %s\n", info.directory);
        else printf("program-binary cache: off: %s\n", info.reason);
    }
    clpool_context_release(ctx);
}

static int cmd_devices(int argc, char **argv)
{
    if (argc > 0 && cli_is_help(argv[0])) return cli_help("devices");
    if (argc > 0) return cli_usage_error("devices", "unexpected argument '%s'", argv[0]);
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
    if (n > 0) print_cache_state();
    return 0;
}

#define RUN_MAX_ATTRS 32

static int cmd_run(int argc, char **argv)
{
    char err[2048];
    const char *device = NULL, *in_paths[CLI_MAX_INPUTS], *out_paths[CLI_MAX_OUTPUTS];
    int n_in = 0, n_out = 0, bfloat16 = 0, n_attrs = 0, rc = 1, indices_of_output = 0, channels_last = 0;
    onnx_attr attrs[RUN_MAX_ATTRS];
    npy_array inputs[CLI_MAX_INPUTS];
    cli_op_call call;
    memset(inputs, 0, sizeof inputs);
    memset(&call, 0, sizeof call);

    if (argc < 1) return cli_usage_error("run", "missing OP");
    if (cli_is_help(argv[0])) return cli_help("run");
    const char *op = argv[0];
    if (!cli_op_known(op)) return cli_usage_error("run", "unknown op '%s'", op);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) return cli_help("run");
        if (strcmp(a, "--bfloat16") == 0) {
            bfloat16 = 1;
            continue;
        }
        if (a[0] != '-') return cli_usage_error("run", "unexpected argument '%s'", a);
        if (!value) return cli_usage_error("run", "%s needs a value", a);
        ++i;
        if (strcmp(a, "-i") == 0) {
            if (n_in == CLI_MAX_INPUTS) return cli_usage_error("run", "more than %d inputs", CLI_MAX_INPUTS);
            in_paths[n_in++] = value;
        } else if (strcmp(a, "-o") == 0) {
            if (n_out == CLI_MAX_OUTPUTS) return cli_usage_error("run", "at most %d outputs", CLI_MAX_OUTPUTS);
            out_paths[n_out++] = value;
        } else if (strcmp(a, "--device") == 0) {
            device = value;
        } else if (strcmp(a, "--layout") == 0) {
            if (strcmp(value, "nchw") != 0 && strcmp(value, "nhwc") != 0)
                return cli_usage_error("run", "--layout '%s' is not nchw or nhwc", value);
            channels_last = strcmp(value, "nhwc") == 0;
        } else if (strcmp(a, "--indices_of") == 0) {
            if (strcmp(op, "MaxUnpool") != 0) return cli_usage_error("run", "--indices_of is MaxUnpool's");
            if (strcmp(value, "inferred") != 0 && strcmp(value, "output") != 0)
                return cli_usage_error("run", "--indices_of '%s' is not inferred or output", value);
            indices_of_output = strcmp(value, "output") == 0;
        } else if (strncmp(a, "--", 2) == 0 && a[2]) {
            if (n_attrs == RUN_MAX_ATTRS) return cli_usage_error("run", "too many attributes");
            if (cli_parse_attr(op, a + 2, value, &attrs[n_attrs], err, sizeof err) != 0)
                return cli_usage_error("run", "%s", err);
            for (int k = 0; k < n_attrs; ++k)
                if (strcmp(attrs[k].name, a + 2) == 0) return cli_usage_error("run", "attribute --%s given twice", a + 2);
            ++n_attrs;
        } else {
            return cli_usage_error("run", "unexpected argument '%s'", a);
        }
    }
    if (n_in == 0 || n_out == 0) return cli_usage_error("run", "need at least one -i input and one -o output");
    if (cli_check_call(op, attrs, n_attrs, n_in, n_out, err, sizeof err) != 0) return cli_usage_error("run", "%s", err);
    for (int i = 0; i < n_in; ++i) {
        if (npy_read(in_paths[i], &inputs[i], err, sizeof err) != 0) {
            fprintf(stderr, "clpool run: %s\n", err);
            goto done;
        }
    }
    clpool_context *ctx = cli_open_context(device, "clpool run");
    if (!ctx) goto done;
    call = (cli_op_call){.op = op, .attrs = attrs, .n_attrs = n_attrs, .inputs = inputs, .n_inputs = n_in,
                         .bfloat16 = bfloat16, .indices_of_output = indices_of_output,
                         .channels_last = channels_last, .n_outputs = n_out};
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
    if (strcmp(cmd, "devices") == 0) return cmd_devices(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "onnx-test") == 0) return cli_onnx_test(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) return cli_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "--version") == 0) {
        printf("clpool %s\n", clpool_version_string());
        return 0;
    }
    if (cli_is_help(cmd)) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "clpool: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
