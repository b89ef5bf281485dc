/* The `clpool` tool end to end: randomised `clpool run` cases of every op against
 * the C reference (through real .npy files), and every bad-input path: exit
 * status (2 usage, 1 op error), a one-line message naming the problem, and no output file. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_util.h"
#include "npy.h"
#include "reference.h"
#include "reference_ops.h"
#include "windows.h"

static const char *tool = "CLPOOL_CLI"; /* the program run_cli_io runs: $CLPOOL_CLI, or $CLPOOL_DEMO */
static const char *cli(void) { return getenv(tool); }

/* The text of `path` into buf (truncated to len - 1), then removes the file. */
static void take_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f) {
        size_t n = fread(buf, 1, len - 1, f);
        buf[n] = '\0';
        fclose(f);
        remove(path);
    }
}

/* Run `clpool ARGS` with stderr (and, if out is not NULL, stdout) captured;
 * returns the exit status. */
static int run_cli_io(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
    char cmd[8192], errpath[1024], outpath[1024];
    snprintf(errpath, sizeof errpath, "%s/cli-stderr-%d.txt", cu_tmpdir(), (int)getpid());
    snprintf(outpath, sizeof outpath, "%s/cli-stdout-%d.txt", cu_tmpdir(), (int)getpid());
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", cli(), args, out ? outpath : "/dev/null", errpath);
    int rc = system(cmd);
    take_file(errpath, err, errlen);
    if (out) take_file(outpath, out, outlen);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int run_cli(const char *args, char *err, size_t errlen) { return run_cli_io(args, NULL, 0, err, errlen); }

static void path_in_tmp(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%d-%s", cu_tmpdir(), (int)getpid(), name);
}

static void write_array(const char *path, int32_t dtype, const clpool_shape *shape, const void *data)
{
    npy_array a = {0};
    a.dtype = dtype;
    a.rank = shape->rank;
    for (int i = 0; i < shape->rank; ++i) a.dims[i] = shape->dims[i];
    a.data = (void *)data;
    a.nbytes = (size_t)ref_shape_elements(shape) * ref_dtype_size((clpool_dtype)dtype);
    char err[512];
    ck_assert_msg(npy_write(path, &a, err, sizeof err) == 0, "%s", err);
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* fp64 on the device `clpool run` picks (the same default rule); asked inside
 * the forked test, never before fork(). */
static int cli_device_has_fp64(void)
{
    static int known = -1;
    if (known < 0) {
        clpool_context *ctx = NULL;
        ck_assert_msg(clpool_context_create(NULL, &ctx) == CLPOOL_SUCCESS, "%s", clpool_last_error());
        clpool_device_info info;
        ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
        known = info.has_fp64;
        clpool_context_release(ctx);
    }
    return known;
}

/* float64 on a device without cl_khr_fp64: the tool must refuse with the
 * unsupported status and write nothing; returns 1 so the numeric check is skipped. */
static int float64_refused(clpool_dtype dtype, const char *args, const char *out_path)
{
    if (dtype != CLPOOL_FLOAT64 || cli_device_has_fp64()) return 0;
    char err[4096];
    const int rc = run_cli(args, err, sizeof err);
    ck_assert_msg(rc != 0 && strstr(err, "CLPOOL_ERROR_UNSUPPORTED_DEVICE") != NULL, "clpool %s -> %d: %s", args, rc,
                  err);
    ck_assert_msg(!file_exists(out_path), "clpool %s left an output file", args);
    return 1;
}

static void note_skipped(const char *what, int skipped)
{
    if (skipped)
        printf("note: device has no cl_khr_fp64: %d float64 %s cases refused with CLPOOL_ERROR_UNSUPPORTED_DEVICE, "
               "numeric checks skipped\n",
               skipped, what);
}

/* Append ",v0,v1..." list flags. */
static void add_list(char *args, size_t len, const char *name, const int64_t *v, int n)
{
    size_t used = strlen(args);
    used += (size_t)snprintf(args + used, len - used, " --%s ", name);
    for (int i = 0; i < n; ++i) used += (size_t)snprintf(args + used, len - used, i ? ",%lld" : "%lld", (long long)v[i]);
}

START_TEST(run_maxpool_matches_reference)
{
    ref_rng rng;
    ref_rng_seed(&rng, 20261122);
    char in_path[1024], out_path[1024], idx_path[1024], args[8192], err[4096];
    path_in_tmp(in_path, sizeof in_path, "in.npy");
    path_in_tmp(out_path, sizeof out_path, "out.npy");
    path_in_tmp(idx_path, sizeof idx_path, "idx.npy");
    int done = 0, skipped = 0;
    for (int attempt = 0; done < 48 && attempt < 1000; ++attempt) {
        const clpool_dtype dtype = cu_maxpool_dtypes[done % 6];
        /* The window (rank, kernel, strides, dilations, Indices) is one per dtype, from the
         * suite-wide catalogue, so its program is one other suites build too; shapes, pads,
         * modes and data stay random. */
        const int ns = 1 + (int)((done % 6) % 4);
        const cu_window window = cu_catalogue_window(dtype, ns, 0);
        clpool_shape in = {ns + 2, {ref_rng_range(&rng, 1, 2), ref_rng_range(&rng, 1, 3)}};
        for (int d = 0; d < ns; ++d) in.dims[2 + d] = ref_rng_range(&rng, 1, ns >= 3 ? 6 : 9);
        clpool_maxpool_params p;
        clpool_maxpool_params_init(&p, ns, window.kernel);
        cu_window_apply(&window, &p);
        const int mode = (int)ref_rng_range(&rng, 0, 4); /* 0-1 NOTSET pads, 2 SAME_UPPER, 3 SAME_LOWER, 4 VALID */
        static const char *auto_pad[] = {"NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
        p.auto_pad = mode <= 1 ? CLPOOL_AUTO_PAD_NOTSET : (clpool_auto_pad)(mode - 1);
        for (int d = 0; d < ns && mode <= 1; ++d) {
            p.pads[d] = ref_rng_range(&rng, 0, 2);
            p.pads[ns + d] = ref_rng_range(&rng, 0, 2);
        }
        p.ceil_mode = (int32_t)ref_rng_range(&rng, 0, 1);
        const int with_indices = window.with_indices;
        clpool_shape out;
        if (ref_maxpool_shape(&in, &p, &out, NULL, NULL, 0) != 0) continue; /* invalid draw */

        const int64_t n_in = ref_shape_elements(&in), n_out = ref_shape_elements(&out);
        const size_t es = ref_dtype_size(dtype);
        unsigned char *x = malloc((size_t)n_in * es), *want = malloc((size_t)n_out * es);
        int64_t *want_idx = malloc((size_t)n_out * 8);
        for (int64_t i = 0; i < n_in; ++i) {
            double v = (double)ref_rng_range(&rng, dtype == CLPOOL_UINT8 ? 0 : -3, 3); /* ties */
            if (ref_dtype_is_float(dtype) && ref_rng_chance(&rng, 0.03)) v = NAN;
            ref_store(dtype, x, i, v);
        }
        ck_assert_int_eq(ref_maxpool(dtype, &in, &p, x, want, want_idx), 0);
        /* bfloat16 travels as uint16 bit patterns plus --bfloat16. */
        const int32_t file_dtype = dtype == CLPOOL_BFLOAT16 ? CLPOOL_UINT16 : (int32_t)dtype;
        write_array(in_path, file_dtype, &in, x);

        snprintf(args, sizeof args, "run MaxPool -i '%s' -o '%s'%s%s%s", in_path, out_path,
                 with_indices ? " -o '" : "", with_indices ? idx_path : "", with_indices ? "'" : "");
        if (dtype == CLPOOL_BFLOAT16) strcat(args, " --bfloat16");
        add_list(args, sizeof args, "kernel_shape", window.kernel, ns);
        add_list(args, sizeof args, "strides", p.strides, ns);
        add_list(args, sizeof args, "dilations", p.dilations, ns);
        if (mode <= 1) add_list(args, sizeof args, "pads", p.pads, 2 * ns);
        if (mode != 0) {
            strcat(args, " --auto_pad ");
            strcat(args, auto_pad[mode]);
        }
        snprintf(args + strlen(args), sizeof args - strlen(args), " --ceil_mode %d --storage_order %d", p.ceil_mode,
                 p.storage_order);
        if (float64_refused(dtype, args, out_path)) {
            free(x);
            free(want);
            free(want_idx);
            ++skipped;
            ++done;
            continue;
        }

        int rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        npy_array got = {0}, got_idx = {0};
        ck_assert_msg(npy_read(out_path, &got, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(got.dtype, file_dtype);
        ck_assert_int_eq(got.rank, out.rank);
        for (int d = 0; d < out.rank; ++d) ck_assert_int_eq(got.dims[d], out.dims[d]);
        ck_assert_msg(memcmp(got.data, want, (size_t)n_out * es) == 0, "values differ: clpool %s", args);
        if (with_indices) {
            ck_assert_msg(npy_read(idx_path, &got_idx, err, sizeof err) == 0, "%s", err);
            ck_assert_int_eq(got_idx.dtype, CLPOOL_INT64);
            ck_assert_msg(memcmp(got_idx.data, want_idx, (size_t)n_out * 8) == 0, "indices differ: clpool %s", args);
        }
        npy_free(&got);
        npy_free(&got_idx);
        free(x);
        free(want);
        free(want_idx);
        remove(out_path);
        remove(idx_path);
        ++done;
    }
    ck_assert_int_eq(done, 48);
    note_skipped("MaxPool", skipped);
}
END_TEST

/* Read an output file and check dtype and shape. Caller frees. */
static void read_output(const char *path, int32_t dtype, const clpool_shape *shape, npy_array *got)
{
    char err[512];
    ck_assert_msg(npy_read(path, got, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(got->dtype, dtype);
    ck_assert_int_eq(got->rank, shape->rank);
    for (int d = 0; d < shape->rank; ++d) ck_assert_int_eq(got->dims[d], shape->dims[d]);
}

START_TEST(run_max_matches_reference)
{
    ref_rng rng;
    ref_rng_seed(&rng, 4242);
    char paths[8][1024], out_path[1024], args[16384], err[4096];
    path_in_tmp(out_path, sizeof out_path, "max-out.npy");
    for (int i = 0; i < 8; ++i) {
        char name[32];
        snprintf(name, sizeof name, "max-in%d.npy", i);
        path_in_tmp(paths[i], sizeof paths[i], name);
    }
    int skipped = 0;
    for (int c = 0; c < 36; ++c) {
        const clpool_dtype dtype = cu_all_dtypes[c % 12];
        /* The layout (inputs, ranks, broadcasts) is one per dtype (c % 12), so later cases
         * reuse the programs the first built; the data stay random. */
        ref_rng layout;
        ref_rng_seed(&layout, 4242 + (uint64_t)(c % 12));
        const int n = 1 + (int)ref_rng_range(&layout, 0, 4 + (c % 4 == 0 ? 3 : 0));
        const int rank = (int)ref_rng_range(&layout, 0, 5);
        int64_t full[8];
        for (int d = 0; d < rank; ++d) full[d] = ref_rng_range(&layout, 1, 4);
        clpool_shape shapes[8];
        void *data[8];
        const size_t es = ref_dtype_size(dtype);
        snprintf(args, sizeof args, "run Max -o '%s'%s", out_path, dtype == CLPOOL_BFLOAT16 ? " --bfloat16" : "");
        for (int i = 0; i < n; ++i) {
            const int r = (int)ref_rng_range(&layout, 0, rank);
            shapes[i].rank = r;
            for (int d = 0; d < r; ++d) shapes[i].dims[d] = ref_rng_chance(&layout, 0.3) ? 1 : full[rank - r + d];
            const int64_t count = ref_shape_elements(&shapes[i]);
            data[i] = malloc((size_t)(count ? count : 1) * es);
            for (int64_t e = 0; e < count; ++e) {
                double v = (double)ref_rng_range(&rng, 0, 5);
                if (ref_dtype_is_float(dtype) && ref_rng_chance(&rng, 0.05)) v = NAN;
                ref_store(dtype, data[i], e, v);
            }
            write_array(paths[i], dtype == CLPOOL_BFLOAT16 ? CLPOOL_UINT16 : (int32_t)dtype, &shapes[i], data[i]);
            snprintf(args + strlen(args), sizeof args - strlen(args), " -i '%s'", paths[i]);
        }
        clpool_shape out;
        ck_assert_int_eq(ref_max_shape((size_t)n, shapes, &out), 0);
        const int64_t n_out = ref_shape_elements(&out);
        void *want = malloc((size_t)(n_out ? n_out : 1) * es);
        ck_assert_int_eq(ref_max(dtype, (size_t)n, shapes, (const void *const *)data, want), 0);
        if (float64_refused(dtype, args, out_path)) {
            free(want);
            for (int i = 0; i < n; ++i) free(data[i]);
            ++skipped;
            continue;
        }
        int rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        npy_array got = {0};
        read_output(out_path, dtype == CLPOOL_BFLOAT16 ? CLPOOL_UINT16 : (int32_t)dtype, &out, &got);
        ck_assert_msg(memcmp(got.data, want, (size_t)n_out * es) == 0, "values differ: clpool %s", args);
        npy_free(&got);
        free(want);
        for (int i = 0; i < n; ++i) free(data[i]);
        remove(out_path);
    }
    note_skipped("Max", skipped);
}
END_TEST

START_TEST(run_global_pools_match_reference)
{
    static const char *ops[] = {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"};
    static const double tolerance[] = {1e-5, 1e-12, 2e-3, 1e-2}; /* per cu_float_dtypes[] */
    ref_rng rng;
    ref_rng_seed(&rng, 777);
    char in_path[1024], out_path[1024], args[4096], err[4096];
    path_in_tmp(in_path, sizeof in_path, "global-in.npy");
    path_in_tmp(out_path, sizeof out_path, "global-out.npy");
    int skipped = 0;
    for (int c = 0; c < 24; ++c) {
        const int op = c % 3, t = (c / 3) % 4;
        const clpool_dtype dtype = cu_float_dtypes[t];
        const double p = (c % 2) ? 3.0 : 2.0;
        clpool_shape in = {3 + (int32_t)ref_rng_range(&rng, 0, 3), {ref_rng_range(&rng, 1, 2), ref_rng_range(&rng, 1, 3)}};
        for (int d = 2; d < in.rank; ++d) in.dims[d] = ref_rng_range(&rng, 1, 6);
        const int64_t n = ref_shape_elements(&in), planes = in.dims[0] * in.dims[1];
        const size_t es = ref_dtype_size(dtype);
        void *x = malloc((size_t)n * es), *want_bits = malloc((size_t)planes * es);
        double *want = malloc((size_t)planes * sizeof *want);
        for (int64_t e = 0; e < n; ++e) ref_store(dtype, x, e, 0.5 + ref_rng_unit(&rng));
        clpool_shape out;
        ck_assert_int_eq(ref_global_pool_shape(&in, &out), 0);
        if (op == 0) ck_assert_int_eq(ref_global_max_pool(dtype, &in, x, want_bits), 0);
        if (op == 1) ck_assert_int_eq(ref_global_average_pool(dtype, &in, x, want, NULL), 0);
        if (op == 2) ck_assert_int_eq(ref_global_lp_pool(dtype, &in, p, x, want), 0);
        const int32_t file_dtype = dtype == CLPOOL_BFLOAT16 ? CLPOOL_UINT16 : (int32_t)dtype;
        write_array(in_path, file_dtype, &in, x);
        snprintf(args, sizeof args, "run %s -i '%s' -o '%s'%s", ops[op], in_path, out_path,
                 dtype == CLPOOL_BFLOAT16 ? " --bfloat16" : "");
        if (op == 2) snprintf(args + strlen(args), sizeof args - strlen(args), " --p %g", p);
        if (float64_refused(dtype, args, out_path)) {
            free(x);
            free(want_bits);
            free(want);
            ++skipped;
            continue;
        }
        int rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        npy_array got = {0};
        read_output(out_path, file_dtype, &out, &got);
        for (int64_t i = 0; i < planes; ++i) {
            if (op == 0) {
                cu_expect(ref_load_bits(dtype, got.data, i) == ref_load_bits(dtype, want_bits, i),
                          "GlobalMaxPool plane %lld differs: clpool %s", (long long)i, args);
            } else {
                const double g = ref_load(dtype, got.data, i);
                cu_expect(fabs(g - want[i]) <= tolerance[t] * fabs(want[i]), "%s plane %lld: %.9g vs %.9g", args,
                          (long long)i, g, want[i]);
            }
        }
        npy_free(&got);
        free(x);
        free(want_bits);
        free(want);
        remove(out_path);
    }
    note_skipped("global pool", skipped);
}
END_TEST

/* Each bad invocation: exit `status` (2 a usage error, 1 an op error), one
 * stderr line containing `expect`, nothing on stdout, no output file. */
static void expect_failure(int status, const char *args_fmt, const char *expect)
{
    char in_path[1024], out_path[1024], args[8192], err[4096];
    path_in_tmp(in_path, sizeof in_path, "bad-in.npy");
    path_in_tmp(out_path, sizeof out_path, "bad-out.npy");
    remove(out_path);
    snprintf(args, sizeof args, args_fmt, in_path, out_path);
    char out[256];
    int rc = run_cli_io(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == status, "clpool %s -> %d, expected %d: %s", args, rc, status, err);
    ck_assert_msg(out[0] == '\0', "clpool %s printed on stdout: '%s'", args, out);
    ck_assert_msg(strstr(err, expect) != NULL, "clpool %s: stderr '%s' lacks '%s'", args, err, expect);
    char *nl = strchr(err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "clpool %s: stderr is not one line: '%s'", args, err);
    ck_assert_msg(!file_exists(out_path), "clpool %s left an output file", args);
}

/* `clpool ARGS` exits `status` with nothing on stdout and one stderr line containing `expect`. */
static void expect_status_line(int status, const char *args, const char *expect)
{
    char out[1024], err[4096];
    const int rc = run_cli_io(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == status, "clpool %s -> %d, expected %d: %s", args, rc, status, err);
    ck_assert_msg(out[0] == '\0', "clpool %s printed on stdout: '%s'", args, out);
    ck_assert_msg(strstr(err, expect) != NULL, "clpool %s: stderr '%s' lacks '%s'", args, err, expect);
    const char *nl = strchr(err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "clpool %s: stderr is not one line: '%s'", args, err);
}

START_TEST(run_rejects_bad_input)
{
    char in_path[1024], err[256];
    path_in_tmp(in_path, sizeof in_path, "bad-in.npy");
    float x[16] = {0};
    clpool_shape s4 = {4, {1, 1, 4, 4}};
    write_array(in_path, CLPOOL_FLOAT32, &s4, x);

    expect_failure(2, "run NoSuchOp -i '%s' -o '%s'", "unknown op 'NoSuchOp'");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --bogus 1", "MaxPool has no attribute 'bogus'");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,x", "'x' is not an integer");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2,", "trailing comma");
    expect_failure(2, "run MaxPool -i '%s' -o '%s'", "MaxPool needs kernel_shape");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2", "rank must be 3");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --strides 0,1", "strides[0] = 0 must be >= 1");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --strides 1", "strides has 1 values, expected 2");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --auto_pad SIDEWAYS",
                   "--auto_pad: 'SIDEWAYS' is not one of NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --auto_pad VALID --pads 0,0,0,0",
                   "pads cannot be given together with auto_pad");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 9,9", "smaller than the dilated kernel");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --pads 3,0,0,0", "no input element");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --ceil_mode 2", "ceil_mode = 2 must be 0 or 1");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --kernel_shape 2,2", "given twice");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 -o a.npy -o b.npy", "at most 2 outputs");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape", "--kernel_shape needs a value");
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 --device no-such-device", "no OpenCL device matches");
    expect_failure(2, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2 extra", "unexpected argument 'extra'");
    expect_failure(1, "run MaxPool -i '%s.missing' -o '%s' --kernel_shape 2,2", "cannot open");

    int32_t xi[16] = {0};
    write_array(in_path, CLPOOL_INT32, &s4, xi);
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2", "dtype int32 (6) is not supported by MaxPool");

    FILE *f = fopen(in_path, "wb");
    fputs("this is not an npy file at all", f);
    fclose(f);
    expect_failure(1, "run MaxPool -i '%s' -o '%s' --kernel_shape 2,2", "bad-in.npy");

    /* Global pools and Max. */
    write_array(in_path, CLPOOL_FLOAT32, &s4, x);
    expect_failure(1, "run GlobalLpPool -i '%s' -o '%s' --p 0", "p = 0 must be finite and > 0");
    expect_failure(2, "run GlobalLpPool -i '%s' -o '%s' --p abc", "'abc' is not a number");
    expect_failure(2, "run GlobalAveragePool -i '%s' -o '%s' --p 2", "GlobalAveragePool has no attribute 'p'");
    char two_inputs[2300], other[1100];
    path_in_tmp(other, sizeof other, "bad-other.npy");
    clpool_shape s3 = {1, {3}};
    write_array(other, CLPOOL_FLOAT32, &s3, x);
    snprintf(two_inputs, sizeof two_inputs, "run Max -i '%%s' -i '%s' -o '%%s'", other);
    expect_failure(1, two_inputs, "does not broadcast");
    snprintf(two_inputs, sizeof two_inputs, "run GlobalMaxPool -i '%%s' -i '%s' -o '%%s'", other);
    expect_failure(2, two_inputs, "GlobalMaxPool takes 1..1 inputs, got 2");
    /* Counts are checked before any file is read: missing inputs do not turn a usage error into an op error. */
    expect_failure(2, "run GlobalMaxPool -i '%s.missing' -i '%s.missing' -o x.npy", "GlobalMaxPool takes 1..1 inputs, got 2");
    expect_failure(2, "run GlobalMaxPool -i '%s' -o '%s' -o idx.npy", "GlobalMaxPool produces 1..1 outputs, 2 requested");
    expect_failure(2, "run MaxPool -i '%s' --kernel_shape 2,2 --strides 1,1",
                   "need at least one -i input and one -o output");
    const double xd[16] = {0};
    write_array(other, CLPOOL_FLOAT64, &s4, xd);
    snprintf(two_inputs, sizeof two_inputs, "run Max -i '%%s' -i '%s' -o '%%s'", other);
    expect_failure(1, two_inputs, "Max input 1 has dtype float64 but input 0 has float32");
    write_array(in_path, CLPOOL_FLOAT32, &s3, x);
    expect_failure(1, "run GlobalMaxPool -i '%s' -o '%s'", "input rank 1 must be >= 3");
    write_array(in_path, CLPOOL_INT32, &s4, xi);
    expect_failure(1, "run GlobalAveragePool -i '%s' -o '%s'", "dtype int32 (6) is not supported by GlobalAveragePool");

    char out_dir_missing[1100];
    write_array(in_path, CLPOOL_FLOAT32, &s4, x);
    snprintf(out_dir_missing, sizeof out_dir_missing, "run MaxPool -i '%%s' -o '%%s.d/no/such/dir.npy' --kernel_shape 2,2");
    expect_failure(1, out_dir_missing, "dir.npy");
    ck_assert_int_eq(run_cli("", err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "usage: clpool devices\n"));
    expect_status_line(2, "frobnicate", "clpool: unknown command 'frobnicate' (try --help)");
    expect_status_line(2, "run", "clpool run: missing OP (see 'clpool run --help')");
}
END_TEST

/* MaxUnpool through the CLI: MaxPool's X and Indices (the C reference's) unpooled into the input's shape (the
 * output reading) give PyTorch's max_unpool; without output_shape the inferred shape; bad indices and inputs
 * fail with one line and no output file. */
START_TEST(run_max_unpool)
{
    char x_path[1024], i_path[1024], s_path[1024], out_path[1024], args[8192], err[4096];
    path_in_tmp(x_path, sizeof x_path, "unpool-x.npy");
    path_in_tmp(i_path, sizeof i_path, "unpool-i.npy");
    path_in_tmp(s_path, sizeof s_path, "unpool-shape.npy");
    path_in_tmp(out_path, sizeof out_path, "unpool-out.npy");
    const clpool_shape in_shape = {4, {2, 3, 7, 9}};
    const int64_t k[2] = {3, 3};
    clpool_maxpool_params mp;
    ck_assert_int_eq(clpool_maxpool_params_init(&mp, 2, k), CLPOOL_SUCCESS);
    mp.strides[0] = mp.strides[1] = 2;
    clpool_shape xs;
    ck_assert_int_eq(ref_maxpool_shape(&in_shape, &mp, &xs, NULL, NULL, 0), 0);
    const int64_t n_in = ref_shape_elements(&in_shape), n_x = ref_shape_elements(&xs);
    float *input = malloc((size_t)n_in * 4), *x = malloc((size_t)n_x * 4), *want = calloc((size_t)n_in, 4);
    int64_t *idx = malloc((size_t)n_x * 8);
    ref_rng r;
    ref_rng_seed(&r, 77);
    for (int64_t e = 0; e < n_in; ++e) input[e] = (float)ref_rng_range(&r, -50, 50);
    ck_assert_int_eq(ref_maxpool(CLPOOL_FLOAT32, &in_shape, &mp, input, x, idx), 0);
    for (int64_t e = 0; e < n_x; ++e) want[idx[e]] = input[idx[e]];
    write_array(x_path, CLPOOL_FLOAT32, &xs, x);
    write_array(i_path, CLPOOL_INT64, &xs, idx);
    const clpool_shape s1 = {1, {4}};
    write_array(s_path, CLPOOL_INT64, &s1, in_shape.dims);
    snprintf(args, sizeof args,
             "run MaxUnpool --kernel_shape 3,3 --strides 2,2 --indices_of output -i '%s' -i '%s' -i '%s' -o '%s'",
             x_path, i_path, s_path, out_path);
    int rc = run_cli(args, err, sizeof err);
    ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
    npy_array got = {0};
    read_output(out_path, CLPOOL_FLOAT32, &in_shape, &got);
    ck_assert_msg(memcmp(got.data, want, (size_t)n_in * 4) == 0, "values differ: clpool %s", args);
    npy_free(&got);
    /* no output_shape: the inferred shape, (3 - 1) * 2 + 3 by (4 - 1) * 2 + 3, is the input's */
    snprintf(args, sizeof args, "run MaxUnpool --kernel_shape 3,3 --strides 2,2 -i '%s' -i '%s' -o '%s'", x_path, i_path,
             out_path);
    rc = run_cli(args, err, sizeof err);
    ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
    read_output(out_path, CLPOOL_FLOAT32, &in_shape, &got);
    ck_assert_msg(memcmp(got.data, want, (size_t)n_in * 4) == 0, "values differ: clpool %s", args);
    npy_free(&got);
    remove(out_path);

    /* bad inputs: expect_failure's bad-in.npy is X, its bad-out.npy the output */
    char fmt[4096], in_path[1024];
    path_in_tmp(in_path, sizeof in_path, "bad-in.npy");
    write_array(in_path, CLPOOL_FLOAT32, &xs, x);
    idx[5] = n_in; /* past the last plane */
    write_array(i_path, CLPOOL_INT64, &xs, idx);
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 --strides 2,2 --indices_of output -i '%%s' -i '%s' -i '%s' -o '%%s'",
             i_path, s_path);
    expect_failure(1, fmt, "MaxUnpool: 1 indices lie outside their (n, c) plane of the output");
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 --dilations 1,1 -i '%%s' -i '%s' -o '%%s'", i_path);
    expect_failure(2, fmt, "MaxUnpool has no attribute 'dilations'");
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 --indices_of sideways -i '%%s' -i '%s' -o '%%s'", i_path);
    expect_failure(2, fmt, "--indices_of 'sideways' is not inferred or output");
    snprintf(fmt, sizeof fmt, "run MaxPool --kernel_shape 3,3 --indices_of output -i '%%s' -i '%s' -o '%%s'", i_path);
    expect_failure(2, fmt, "--indices_of is MaxUnpool's");
    expect_failure(2, "run MaxUnpool --kernel_shape 3,3 -i '%s' -o '%s'", "MaxUnpool takes 2..3 inputs, got 1");
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 -i '%%s' -i '%s' -o '%%s'", x_path);
    expect_failure(1, fmt, "MaxUnpool indices must be int64, not float32");
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 -i '%%s' -i '%s' -o '%%s'", s_path);
    expect_failure(1, fmt, "MaxUnpool indices must have X's shape");
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 -i '%%s' -i '%s' -i '%s' -o '%%s'", i_path, x_path);
    expect_failure(1, fmt, "MaxUnpool output_shape must be a 1-D int64 array");
    const int64_t bad_shape[4] = {2, 4, 7, 9};
    write_array(s_path, CLPOOL_INT64, &s1, bad_shape);
    snprintf(fmt, sizeof fmt, "run MaxUnpool --kernel_shape 3,3 -i '%%s' -i '%s' -i '%s' -o '%%s'", i_path, s_path);
    expect_failure(1, fmt, "output_shape [2,4,7,9] must have X's rank and its N and C");
    free(input), free(x), free(want), free(idx);
}
END_TEST

/* The N x C x `pixels` array `a` and the N x `pixels` x C array `b` hold the same elements of `es` bytes. */
static void assert_nhwc_same(const npy_array *a, const npy_array *b, int N, int C, int pixels, size_t es,
                             const char *what)
{
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < C; ++c)
            for (int e = 0; e < pixels; ++e) {
                const size_t i = ((size_t)(n * C + c) * (size_t)pixels + (size_t)e) * es,
                             t = (((size_t)n * (size_t)pixels + (size_t)e) * (size_t)C + (size_t)c) * es;
                ck_assert_msg(memcmp((const char *)a->data + i, (const char *)b->data + t, es) == 0,
                              "%s: nhwc element (%d, %d, %d) differs", what, n, c, e);
            }
}

/* `--layout nhwc`: MaxPool (with Indices) and AveragePool on an N x H x W x C array give the nchw run's
 * outputs transposed the same way and the same Indices, which MaxUnpool takes back in either layout; the
 * global pools and Max; bad uses of the flag. */
START_TEST(run_channels_last)
{
    char x_path[1024], t_path[1024], y_path[1024], i_path[1024], ty_path[1024], ti_path[1024], args[8192], err[4096];
    path_in_tmp(x_path, sizeof x_path, "cl-x.npy");
    path_in_tmp(t_path, sizeof t_path, "cl-xt.npy");
    path_in_tmp(y_path, sizeof y_path, "cl-y.npy");
    path_in_tmp(i_path, sizeof i_path, "cl-i.npy");
    path_in_tmp(ty_path, sizeof ty_path, "cl-yt.npy");
    path_in_tmp(ti_path, sizeof ti_path, "cl-it.npy");
    enum { N = 2, C = 19, H = 7, W = 6 };
    const clpool_shape nchw = {4, {N, C, H, W}}, nhwc = {4, {N, H, W, C}};
    static float x[N * C * H * W], xt[N * C * H * W];
    ref_rng r;
    ref_rng_seed(&r, 91);
    for (int e = 0; e < N * C * H * W; ++e) x[e] = (float)ref_rng_range(&r, -40, 40) / 4;
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < C; ++c)
            for (int h = 0; h < H; ++h)
                for (int w = 0; w < W; ++w) xt[((n * H + h) * W + w) * C + c] = x[((n * C + c) * H + h) * W + w];
    write_array(x_path, CLPOOL_FLOAT32, &nchw, x);
    write_array(t_path, CLPOOL_FLOAT32, &nhwc, xt);
    static const char *const ops[] = {"MaxPool --storage_order 1", "AveragePool --count_include_pad 1"};
    for (int o = 0; o < 2; ++o) {
        const int with_idx = o == 0;
        snprintf(args, sizeof args, "run %s --kernel_shape 3,2 --strides 2,1 --pads 1,0,1,1 -i '%s' -o '%s'%s%s%s",
                 ops[o], x_path, y_path, with_idx ? " -o '" : "", with_idx ? i_path : "", with_idx ? "'" : "");
        int rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        snprintf(args, sizeof args,
                 "run %s --layout nhwc --kernel_shape 3,2 --strides 2,1 --pads 1,0,1,1 -i '%s' -o '%s'%s%s%s", ops[o],
                 t_path, ty_path, with_idx ? " -o '" : "", with_idx ? ti_path : "", with_idx ? "'" : "");
        rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        const clpool_shape out = {4, {N, C, 4, 6}}, out_t = {4, {N, 4, 6, C}};
        npy_array y = {0}, yt = {0}, idx = {0}, idxt = {0};
        read_output(y_path, CLPOOL_FLOAT32, &out, &y);
        read_output(ty_path, CLPOOL_FLOAT32, &out_t, &yt);
        if (with_idx) {
            read_output(i_path, CLPOOL_INT64, &out, &idx);
            read_output(ti_path, CLPOOL_INT64, &out_t, &idxt);
        }
        assert_nhwc_same(&y, &yt, N, C, 4 * 6, 4, ops[o]);
        if (with_idx) assert_nhwc_same(&idx, &idxt, N, C, 4 * 6, 8, "MaxPool's Indices");
        npy_free(&y), npy_free(&yt), npy_free(&idx), npy_free(&idxt);
        if (!with_idx) continue;
        /* MaxUnpool of those outputs and Indices back to N x C x H x W (N x H x W x C) */
        snprintf(args, sizeof args, "run MaxUnpool --kernel_shape 3,2 --strides 2,1 --pads 1,0,1,1 -i '%s' -i '%s' -o '%s'",
                 y_path, i_path, y_path);
        rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        snprintf(args, sizeof args,
                 "run MaxUnpool --layout nhwc --kernel_shape 3,2 --strides 2,1 --pads 1,0,1,1 -i '%s' -i '%s' -o '%s'",
                 ty_path, ti_path, ty_path);
        rc = run_cli(args, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        read_output(y_path, CLPOOL_FLOAT32, &nchw, &y);
        read_output(ty_path, CLPOOL_FLOAT32, &nhwc, &yt);
        assert_nhwc_same(&y, &yt, N, C, H * W, 4, "MaxUnpool");
        npy_free(&y), npy_free(&yt);
    }
    /* GlobalMaxPool: N x 1 x 1 x C, the nchw run's maxima (the same bits: one window over the plane) */
    snprintf(args, sizeof args, "run GlobalMaxPool -i '%s' -o '%s'", x_path, y_path);
    int grc = run_cli(args, err, sizeof err);
    ck_assert_msg(grc == 0, "clpool %s -> %d: %s", args, grc, err);
    snprintf(args, sizeof args, "run GlobalMaxPool --layout nhwc -i '%s' -o '%s'", t_path, ty_path);
    grc = run_cli(args, err, sizeof err);
    ck_assert_msg(grc == 0, "clpool %s -> %d: %s", args, grc, err);
    const clpool_shape g_out = {4, {N, C, 1, 1}}, g_out_t = {4, {N, 1, 1, C}};
    npy_array gy = {0}, gyt = {0};
    read_output(y_path, CLPOOL_FLOAT32, &g_out, &gy);
    read_output(ty_path, CLPOOL_FLOAT32, &g_out_t, &gyt);
    ck_assert_msg(memcmp(gy.data, gyt.data, (size_t)N * C * 4) == 0, "GlobalMaxPool: nhwc maxima differ");
    npy_free(&gy), npy_free(&gyt);
    /* Max: x with a per-channel vector (1 x C x 1 x 1, stored 1 x 1 x 1 x C) and a row of W (rank 1,
     * logical in both layouts): the nchw run's values, transposed */
    char b_path[1024], bt_path[1024], r_path[1024];
    path_in_tmp(b_path, sizeof b_path, "cl-b.npy");
    path_in_tmp(bt_path, sizeof bt_path, "cl-bt.npy");
    path_in_tmp(r_path, sizeof r_path, "cl-r.npy");
    const clpool_shape b_nchw = {4, {1, C, 1, 1}}, b_nhwc = {4, {1, 1, 1, C}}, row = {1, {W}};
    float b[C], rw[W];
    for (int c = 0; c < C; ++c) b[c] = (float)ref_rng_range(&r, -40, 40) / 4;
    for (int w = 0; w < W; ++w) rw[w] = (float)ref_rng_range(&r, -40, 40) / 4;
    write_array(b_path, CLPOOL_FLOAT32, &b_nchw, b);
    write_array(bt_path, CLPOOL_FLOAT32, &b_nhwc, b);
    write_array(r_path, CLPOOL_FLOAT32, &row, rw);
    snprintf(args, sizeof args, "run Max -i '%s' -i '%s' -i '%s' -o '%s'", x_path, b_path, r_path, y_path);
    grc = run_cli(args, err, sizeof err);
    ck_assert_msg(grc == 0, "clpool %s -> %d: %s", args, grc, err);
    snprintf(args, sizeof args, "run Max --layout nhwc -i '%s' -i '%s' -i '%s' -o '%s'", t_path, bt_path, r_path,
             ty_path);
    grc = run_cli(args, err, sizeof err);
    ck_assert_msg(grc == 0, "clpool %s -> %d: %s", args, grc, err);
    npy_array my = {0}, myt = {0};
    read_output(y_path, CLPOOL_FLOAT32, &nchw, &my);
    read_output(ty_path, CLPOOL_FLOAT32, &nhwc, &myt);
    assert_nhwc_same(&my, &myt, N, C, H * W, 4, "Max");
    npy_free(&my), npy_free(&myt);
    remove(b_path), remove(bt_path), remove(r_path);
    remove(x_path), remove(t_path), remove(y_path), remove(i_path), remove(ty_path), remove(ti_path);
    char in_path[1024];
    path_in_tmp(in_path, sizeof in_path, "bad-in.npy");
    write_array(in_path, CLPOOL_FLOAT32, &nhwc, xt);
    expect_failure(2, "run MaxPool --layout nwhc --kernel_shape 2,2 -i '%s' -o '%s'", "--layout 'nwhc' is not nchw or nhwc");
    expect_failure(1, "run MaxUnpool --layout nhwc --kernel_shape 2,2 -i '%1$s' -i '%1$s' -o '%2$s'",
                   "MaxUnpool indices must be int64, not float32");
    const clpool_shape flat = {2, {4, 4}};
    write_array(in_path, CLPOOL_FLOAT32, &flat, xt);
    expect_failure(1, "run LpPool --layout nhwc --kernel_shape 2 -i '%s' -o '%s'",
                   "--layout nhwc needs N, spatial dims and C: the input has rank 2");
}
END_TEST

/*
 * `clpool bench --csv` prints its header and one row per case with finite,
 * consistent figures (also where the device reports no profiling timestamps:
 * Mesa's rusticl, timed by the host clock): a global pool, and MaxPool on an
 * input with a NaN in each plane. Bad arguments and a filter that matches no
 * case are usage errors (exit 2) with a message.
 */
static void expect_bench_row(const char *name, double bytes)
{
    char args[256], out[4096], err[4096];
    snprintf(args, sizeof args, "bench --csv --repeat 2 --filter %s", name);
    const int rc = run_cli_io(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
    const char *header = "case,bytes,median_ms,gbps,copy_gbps\n";
    ck_assert_msg(strncmp(out, header, strlen(header)) == 0, "clpool %s printed: %s", args, out);
    char got[128];
    double b = 0, ms = 0, gbps = 0, copy = 0;
    ck_assert_msg(sscanf(out + strlen(header), "%127[^,],%lf,%lf,%lf,%lf", got, &b, &ms, &gbps, &copy) == 5,
                  "clpool %s printed: %s", args, out);
    ck_assert_str_eq(got, name);
    ck_assert_msg(b == bytes, "%s: bytes %.0f, expected %.0f", name, b, bytes);
    ck_assert_msg(isfinite(ms) && ms > 0 && isfinite(gbps) && gbps > 0 && isfinite(copy) && copy > 0,
                  "%s: ms %g, GB/s %g, copy GB/s %g", name, ms, gbps, copy);
    ck_assert_msg(fabs(gbps - b / (ms * 1e6)) <= 0.01 * gbps + 1e-3, "%s: %g GB/s from %g bytes in %g ms", name, gbps, b,
                  ms);
}

START_TEST(bench_rows_and_bad_arguments)
{
    expect_bench_row("globalavg_32x2048x7x7_f32", 32.0 * 2048 * 7 * 7 * 4 + 32.0 * 2048 * 4);
    expect_bench_row("maxpool_3x3s2p1_8x64x112x112_nan_f32", 8.0 * 64 * (112 * 112 + 56 * 56) * 4);
    expect_status_line(2, "bench --repeat 0", "--repeat must be 1..100000, not '0'");
    expect_status_line(2, "bench --repeat 2x", "--repeat must be 1..100000, not '2x'");
    expect_status_line(2, "bench --repeat", "clpool bench: --repeat needs a value");
    expect_status_line(2, "bench --frob", "unexpected argument '--frob'");
    expect_status_line(2, "bench --repeat 1 --filter no_such_case", "no case matches --filter 'no_such_case'");
    expect_status_line(2, "bench --sweep --overhead", "--filter, --sweep, --overhead and --startup exclude one another");
    expect_status_line(2, "bench --startup-case no_such_case", "no start-up case 'no_such_case'");
}
END_TEST

/* One start-up case as `clpool bench --startup` runs it in a child process:
 * it prints the milliseconds to its first result, for the floor and an op,
 * and with --pace for the op those of its calls 2-20, then "b" and the ms its
 * background build still took after them. */
START_TEST(bench_startup_cases)
{
    const char *cases[3] = {"floor_copy_1x64x112x112", "maxpool_idx_3x3s2p1_1x64x112x112",
                            "maxpool_idx_3x3s2p1_1x64x112x112"};
    for (int i = 0; i < 3; ++i) {
        char args[256], out[1024], err[4096];
        snprintf(args, sizeof args, "bench --startup-case %s --device 0%s", cases[i], i == 1 ? " --pace 1" : "");
        const int rc = run_cli_io(args, out, sizeof out, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
        int lines = 0;
        for (char *at = out, *end = NULL;; at = end + 1, ++lines) {
            const double ms = strtod(at, &end);
            if (end == at) {
                if (i == 1 && *at == 'b') { /* the build's time left: the last line */
                    const double left = strtod(at + 1, &end);
                    ck_assert_msg(end != at + 1 && left >= 0 && strcmp(end, "\n") == 0, "clpool %s printed: %s",
                                  args, out);
                    break;
                }
                ck_assert_msg(*at == '\0' && i != 1, "clpool %s printed: %s", args, out);
                break;
            }
            ck_assert_msg(*end == '\n' && isfinite(ms) && ms > 0, "clpool %s printed: %s", args, out);
        }
        ck_assert_msg(lines == (i == 1 ? 20 : 1), "clpool %s printed %d figures: %s", args, lines, out);
    }
}
END_TEST

/* `clpool bench --overhead --csv`: the host cost per enqueue with the device
 * running the ops and with it idle, each a finite time under a millisecond. */
START_TEST(bench_overhead_rows)
{
    char out[4096], err[4096];
    const int rc = run_cli_io("bench --overhead --csv", out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "clpool bench --overhead --csv -> %d: %s", rc, err);
    const char *names[2] = {"host_overhead_maxpool_1x1x4x4", "host_overhead_idle_device_maxpool_1x1x4x4"};
    const char *line = out;
    for (int i = 0; i < 2; ++i) {
        char got[128];
        double calls = 0, ms = 0;
        ck_assert_msg(line && sscanf(line, "%127[^,],%lf,%lf,,", got, &calls, &ms) == 3, "printed: %s", out);
        ck_assert_str_eq(got, names[i]);
        ck_assert_msg(calls == 10000 && isfinite(ms) && ms > 0 && ms < 1, "%s: %g calls, %g ms", got, calls, ms);
        line = strchr(line, '\n');
        if (line) ++line;
    }
}
END_TEST

START_TEST(devices_and_version)
{
    char out[4096], err[256];
    ck_assert_int_eq(run_cli_io("devices", out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strncmp(out, "0: ", 3) == 0 && err[0] == '\0', "clpool devices printed '%s', stderr '%s'", out, err);
    ck_assert_int_eq(run_cli_io("--version", out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strncmp(out, "clpool ", 7) == 0 && strstr(out, clpool_version_string()), "--version printed '%s'", out);
    expect_status_line(2, "devices extra", "clpool devices: unexpected argument 'extra'");
    expect_status_line(2, "demo", "clpool: unknown command 'demo'");
    /* no OpenCL platform at all: the ICD loader finds no vendor */
    const char *vendors = getenv("OCL_ICD_VENDORS");
    char saved[1024] = "";
    if (vendors) snprintf(saved, sizeof saved, "%s", vendors);
    setenv("OCL_ICD_VENDORS", "/nonexistent", 1);
    expect_status_line(1, "devices",
                       "clpool devices: CLPOOL_ERROR_NO_DEVICE: no OpenCL platform found (is an ICD such as "
                       "pocl-opencl-icd installed?)");
    if (vendors)
        setenv("OCL_ICD_VENDORS", saved, 1);
    else
        unsetenv("OCL_ICD_VENDORS");
}
END_TEST

/* clpool-demo, the build tree's demo (not the installed tool's): its usage and its errors (tools/demo.sh
 * runs it whole). */
START_TEST(demo_program)
{
    tool = "CLPOOL_DEMO";
    char out[8192], err[1024];
    ck_assert_int_eq(run_cli_io("--help", out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strncmp(out, "usage: clpool-demo [--device DEV]", 33) == 0 && err[0] == '\0', "--help: '%s'", out);
    expect_status_line(2, "--device", "clpool-demo: --device needs a value (see 'clpool-demo --help')");
    expect_status_line(2, "--device 0 extra", "clpool-demo: unexpected argument 'extra' (see 'clpool-demo --help')");
    expect_status_line(1, "--device 99", "clpool-demo: CLPOOL_ERROR_");
    tool = "CLPOOL_CLI";
}
END_TEST

/* `--help` (or -h) on the tool and on each subcommand: usage on stdout, nothing on stderr, exit 0. */
START_TEST(help_on_stdout)
{
    static const struct {
        const char *args, *usage;
    } cases[] = {
        {"--help", "usage: clpool devices\n"},
        {"-h", "usage: clpool devices\n"},
        {"devices --help", "usage: clpool devices\n"},
        {"run --help", "usage: clpool run OP "},
        {"run MaxPool -h", "usage: clpool run OP "},
        {"run MaxPool --kernel_shape 2,2 --help", "usage: clpool run OP "},
        {"onnx-test --help", "usage: clpool onnx-test "},
        {"onnx-test --device 0 -h", "usage: clpool onnx-test "},
        {"bench --help", "usage: clpool bench "},
        {"bench --csv -h", "usage: clpool bench "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char out[4096], err[1024];
        const int rc = run_cli_io(cases[i].args, out, sizeof out, err, sizeof err);
        ck_assert_msg(rc == 0, "clpool %s -> %d: %s", cases[i].args, rc, err);
        ck_assert_msg(err[0] == '\0', "clpool %s wrote on stderr: %s", cases[i].args, err);
        ck_assert_msg(strncmp(out, cases[i].usage, strlen(cases[i].usage)) == 0, "clpool %s printed '%s'", cases[i].args,
                      out);
    }
    /* The tool's own usage names every subcommand and the exit statuses. */
    char out[4096], err[1024];
    ck_assert_int_eq(run_cli_io("--help", out, sizeof out, err, sizeof err), 0);
    static const char *const names[] = {"clpool devices", "clpool run OP", "clpool onnx-test", "clpool bench",
                                        "2 usage error"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        ck_assert_msg(strstr(out, names[i]) != NULL, "clpool --help lacks '%s': %s", names[i], out);
}
END_TEST

/*
 * onnx-test: a path that does not exist, is not a directory or holds no
 * model.onnx is a usage error (exit 2, one stderr line, no test run); a test
 * that runs and fails is exit 1 with the failure on stdout; passing is exit 0.
 */
START_TEST(onnx_test_paths_and_status)
{
    const char *node_dir = getenv("CLPOOL_ONNX_NODE_DIR");
    ck_assert_ptr_nonnull(node_dir);
    char good[1024], empty_dir[1024], plain_file[1024], broken_dir[1024], args[8192], out[4096], err[4096];
    snprintf(good, sizeof good, "%s/test_globalmaxpool", node_dir);
    path_in_tmp(empty_dir, sizeof empty_dir, "onnx-empty");
    path_in_tmp(plain_file, sizeof plain_file, "onnx-file");
    path_in_tmp(broken_dir, sizeof broken_dir, "onnx-broken");
    ck_assert_int_eq(mkdir(empty_dir, 0700), 0);
    ck_assert_int_eq(mkdir(broken_dir, 0700), 0);
    char model[1100];
    snprintf(model, sizeof model, "%s/model.onnx", broken_dir);
    FILE *f = fopen(model, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("not a protobuf", f);
    fclose(f);
    f = fopen(plain_file, "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);

    snprintf(args, sizeof args, "onnx-test '%s' '%s/no-such-test'", good, node_dir);
    char expect[2100];
    snprintf(expect, sizeof expect, "clpool onnx-test: '%s/no-such-test': No such file or directory", node_dir);
    expect_status_line(2, args, expect);
    snprintf(args, sizeof args, "onnx-test '%s'", empty_dir);
    snprintf(expect, sizeof expect, "clpool onnx-test: '%s' holds no model.onnx", empty_dir);
    expect_status_line(2, args, expect);
    snprintf(args, sizeof args, "onnx-test --device 0 '%s'", plain_file);
    snprintf(expect, sizeof expect, "clpool onnx-test: '%s' is not a directory", plain_file);
    expect_status_line(2, args, expect);
    expect_status_line(2, "onnx-test", "clpool onnx-test: give at least one test directory");
    expect_status_line(2, "onnx-test --bogus x", "clpool onnx-test: unknown option '--bogus'");
    expect_status_line(2, "onnx-test --device", "clpool onnx-test: --device needs a value");

    snprintf(args, sizeof args, "onnx-test '%s' '%s'", good, broken_dir);
    int rc = run_cli_io(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 1, "clpool %s -> %d: %s", args, rc, err);
    const char *broken_base = strrchr(broken_dir, '/') + 1;
    char fail_line[1200];
    snprintf(fail_line, sizeof fail_line, "\nFAIL %s: %s/model.onnx: ", broken_base, broken_dir);
    ck_assert_msg(strstr(out, "PASS test_globalmaxpool\n") && strstr(out, fail_line) &&
                      strstr(out, "\n1 passed, 1 failed, 0 unsupported, 2 total\n"),
                  "clpool %s printed '%s'", args, out);
    snprintf(args, sizeof args, "onnx-test -- '%s'", good);
    rc = run_cli_io(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "clpool %s -> %d: %s", args, rc, err);
    ck_assert_str_eq(out, "PASS test_globalmaxpool\n1 passed, 0 failed, 0 unsupported, 1 total\n");
    remove(model);
    remove(plain_file);
    rmdir(broken_dir);
    rmdir(empty_dir);
}
END_TEST

/* `clpool devices` ends with the program-binary cache's state: on with its
 * directory, or off and why (a shared directory, CLPOOL_CACHE_DIR=off). */
START_TEST(devices_show_cache_state)
{
    char out[8192], err[1024], dir[1024], want[1200], cmd[1200];
    path_in_tmp(dir, sizeof dir, "cli-cache");
    setenv("CLPOOL_CACHE_DIR", dir, 1);
    ck_assert_int_eq(run_cli_io("devices", out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "\nprogram-binary cache: on, %s\n", dir);
    ck_assert_msg(strstr(out, want) != NULL, "printed: %s", out);
    snprintf(cmd, sizeof cmd, "chmod 0777 '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(run_cli_io("devices", out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "\nprogram-binary cache: off: %s is writable by group or others (mode 0777)\n", dir);
    ck_assert_msg(strstr(out, want) != NULL, "printed: %s", out);
    setenv("CLPOOL_CACHE_DIR", "off", 1); /* as the suite runs (tests/CMakeLists.txt) */
    ck_assert_int_eq(run_cli_io("devices", out, sizeof out, err, sizeof err), 0);
    ck_assert_msg(strstr(out, "\nprogram-binary cache: off: CLPOOL_CACHE_DIR=off\n") != NULL, "printed: %s", out);
    snprintf(cmd, sizeof cmd, "rmdir '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    if (!cli()) {
        fprintf(stderr, "test_cli: set CLPOOL_CLI to the clpool binary\n");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("cli");
    TCase *tc = cu_tcase(s, "cli", 0);
    tcase_add_test(tc, run_maxpool_matches_reference);
    tcase_add_test(tc, run_max_matches_reference);
    tcase_add_test(tc, run_global_pools_match_reference);
    tcase_add_test(tc, run_rejects_bad_input);
    tcase_add_test(tc, run_max_unpool);
    tcase_add_test(tc, run_channels_last);
    tcase_add_test(tc, devices_and_version);
    tcase_add_test(tc, demo_program);
    tcase_add_test(tc, help_on_stdout);
    tcase_add_test(tc, onnx_test_paths_and_status);
    tcase_add_test(tc, bench_rows_and_bad_arguments);
    tcase_add_test(tc, bench_overhead_rows);
    tcase_add_test(tc, bench_startup_cases);
    tcase_add_test(tc, devices_show_cache_state);
    return cu_run_suite(s, CK_NORMAL);
}
