/* `clpool onnx-test DIR...`: run ONNX backend node test directories
 * (model.onnx + test_data_set_N/{input,output}_K.pb) and compare like the
 * ONNX runner: exact dtype and shape, rtol 1e-3 / atol 1e-7 for floats. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_ops.h"

#define MAX_SETS 32

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0) v = ldexpf((float)man, -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

static double element_as_double(int32_t dtype, const void *data, size_t i)
{
    switch (dtype) {
    case PB_DT_FLOAT32: return ((const float *)data)[i];
    case PB_DT_FLOAT64: return ((const double *)data)[i];
    case PB_DT_FLOAT16: return half_to_float(((const uint16_t *)data)[i]);
    case PB_DT_BFLOAT16: {
        uint32_t bits = (uint32_t)((const uint16_t *)data)[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return 0.0;
    }
}

static int is_float_code(int32_t dtype)
{
    return dtype == PB_DT_FLOAT32 || dtype == PB_DT_FLOAT64 || dtype == PB_DT_FLOAT16 || dtype == PB_DT_BFLOAT16;
}

/* Compare one produced output with the expected tensor; 0 if equal enough. */
static int compare(const npy_array *got, const onnx_tensor *want, int k, char *why, size_t len)
{
    if (got->dtype != want->data_type) {
        snprintf(why, len, "output %d dtype %s, expected %s", k, pb_dtype_name(got->dtype), pb_dtype_name(want->data_type));
        return -1;
    }
    int same_shape = got->rank == want->rank;
    for (int i = 0; same_shape && i < got->rank; ++i) same_shape = got->dims[i] == want->dims[i];
    if (!same_shape || got->nbytes != want->nbytes) {
        snprintf(why, len, "output %d shape differs from the expected one", k);
        return -1;
    }
    const size_t esize = pb_dtype_size(want->data_type), n = esize ? want->nbytes / esize : 0;
    if (!is_float_code(want->data_type)) {
        for (size_t i = 0; i < n; ++i) {
            if (memcmp((const char *)got->data + i * esize, (const char *)want->data + i * esize, esize) != 0) {
                snprintf(why, len, "output %d element %zu differs", k, i);
                return -1;
            }
        }
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        const double g = element_as_double(want->data_type, got->data, i);
        const double w = element_as_double(want->data_type, want->data, i);
        if (isnan(g) && isnan(w)) continue;
        if (!(fabs(g - w) <= 1e-7 + 1e-3 * fabs(w)) && !(g == w)) {
            snprintf(why, len, "output %d element %zu is %.9g, expected %.9g", k, i, g, w);
            return -1;
        }
    }
    return 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Run every test_data_set_* of one directory: 0, -1 or CLI_UNSUPPORTED. */
static int run_dir(clpool_context *ctx, const char *dir, char *why, size_t len)
{
    char path[4096];
    onnx_model model;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (onnx_read_model(path, &model, why, len) != 0) return -1;

    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, len, "%s: cannot open directory", dir);
        return -1;
    }
    char *sets[MAX_SETS];
    int n_sets = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, "test_data_set_", 14) == 0 && n_sets < MAX_SETS) sets[n_sets++] = strdup(e->d_name);
    closedir(d);
    qsort(sets, (size_t)n_sets, sizeof sets[0], name_cmp);

    int rc = n_sets > 0 ? 0 : -1;
    if (n_sets == 0) snprintf(why, len, "%s has no test_data_set_* directory", dir);
    for (int s = 0; s < n_sets && rc == 0; ++s) {
        npy_array inputs[CLI_MAX_INPUTS];
        onnx_tensor expected[CLI_MAX_OUTPUTS];
        int n_in = 0, n_out = 0;
        memset(inputs, 0, sizeof inputs);
        memset(expected, 0, sizeof expected);
        for (; n_in < CLI_MAX_INPUTS; ++n_in) {
            onnx_tensor t;
            snprintf(path, sizeof path, "%s/%s/input_%d.pb", dir, sets[s], n_in);
            FILE *probe = fopen(path, "rb");
            if (!probe) break;
            fclose(probe);
            if (onnx_read_tensor(path, &t, why, len) != 0) { rc = -1; break; }
            /* Hand the data over to an npy_array (same fields, no copy). */
            inputs[n_in].dtype = t.data_type;
            inputs[n_in].rank = t.rank;
            memcpy(inputs[n_in].dims, t.dims, sizeof t.dims);
            inputs[n_in].data = t.data;
            inputs[n_in].nbytes = t.nbytes;
        }
        for (; rc == 0 && n_out < CLI_MAX_OUTPUTS; ++n_out) {
            snprintf(path, sizeof path, "%s/%s/output_%d.pb", dir, sets[s], n_out);
            FILE *probe = fopen(path, "rb");
            if (!probe) break;
            fclose(probe);
            if (onnx_read_tensor(path, &expected[n_out], why, len) != 0) rc = -1;
        }
        if (rc == 0) {
            cli_op_call call = {.op = model.op_type, .attrs = model.attrs, .n_attrs = model.n_attrs,
                                .inputs = inputs, .n_inputs = n_in, .n_outputs = n_out};
            rc = cli_run_op(ctx, &call, why, len);
            for (int k = 0; rc == 0 && k < n_out; ++k) rc = compare(&call.outputs[k], &expected[k], k, why, len);
            cli_op_call_free(&call);
        }
        for (int i = 0; i < n_in; ++i) npy_free(&inputs[i]);
        for (int k = 0; k < CLI_MAX_OUTPUTS; ++k) onnx_tensor_free(&expected[k]);
    }
    for (int s = 0; s < n_sets; ++s) free(sets[s]);
    return rc;
}

/* A path that is not a directory holding model.onnx is a usage error (exit 2), not a failed test. */
static int check_test_dir(const char *dir)
{
    struct stat st;
    char model[4096];
    if (stat(dir, &st) != 0) return cli_usage_error("onnx-test", "'%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return cli_usage_error("onnx-test", "'%s' is not a directory", dir);
    snprintf(model, sizeof model, "%s/model.onnx", dir);
    if (stat(model, &st) != 0 || !S_ISREG(st.st_mode))
        return cli_usage_error("onnx-test", "'%s' holds no model.onnx", dir);
    return 0;
}

int cli_onnx_test(int argc, char **argv)
{
    const char *device = NULL;
    char **dirs = argv;
    int n_dirs = 0, options_done = 0;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-') {
            if (cli_is_help(a)) return cli_help("onnx-test");
            if (strcmp(a, "--") == 0) {
                options_done = 1;
            } else if (strcmp(a, "--device") == 0) {
                if (i + 1 == argc) return cli_usage_error("onnx-test", "--device needs a value");
                device = argv[++i];
            } else {
                return cli_usage_error("onnx-test", "unknown option '%s'", a);
            }
            continue;
        }
        dirs[n_dirs++] = argv[i]; /* in place: never ahead of i */
    }
    if (n_dirs == 0) return cli_usage_error("onnx-test", "give at least one test directory");
    for (int i = 0; i < n_dirs; ++i)
        if (check_test_dir(dirs[i]) != 0) return 2;
    clpool_context *ctx = cli_open_context(device, "clpool onnx-test");
    if (!ctx) return 1;
    int passed = 0, failed = 0, unsupported = 0;
    for (int i = 0; i < n_dirs; ++i) {
        char why[1024] = "";
        const char *base = strrchr(dirs[i], '/');
        base = base && base[1] ? base + 1 : dirs[i];
        const int rc = run_dir(ctx, dirs[i], why, sizeof why);
        if (rc == 0) {
            printf("PASS %s\n", base);
            ++passed;
        } else if (rc == CLI_UNSUPPORTED) { /* e.g. float64 without cl_khr_fp64: not a failure */
            printf("UNSUPPORTED %s: %s\n", base, why);
            ++unsupported;
        } else {
            printf("FAIL %s: %s\n", base, why);
            ++failed;
        }
    }
    printf("%d passed, %d failed, %d unsupported, %d total\n", passed, failed, unsupported, n_dirs);
    clpool_context_release(ctx);
    return failed ? 1 : 0;
}
