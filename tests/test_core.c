/* Core API: status/version/dtype tables, devices, contexts (own and adopted),
 * thread-local errors, program build failures, the tensor layer (the
 * program-binary cache: test_binary_cache.c). */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "reference.h"

START_TEST(status_strings_cover_every_status)
{
    for (int s = CLPOOL_SUCCESS; s <= CLPOOL_ERROR_OVERFLOW; ++s) {
        const char *name = clpool_status_string((clpool_status)s);
        ck_assert_msg(strncmp(name, "CLPOOL_", 7) == 0 && strstr(name, "UNKNOWN") == NULL, "status %d: %s", s, name);
    }
    ck_assert_str_eq(clpool_status_string(CLPOOL_ERROR_INVALID_SHAPE), "CLPOOL_ERROR_INVALID_SHAPE");
    ck_assert_str_eq(clpool_status_string((clpool_status)999), "CLPOOL_UNKNOWN_STATUS");
}
END_TEST

START_TEST(version_matches_macros)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CLPOOL_VERSION_MAJOR, CLPOOL_VERSION_MINOR, CLPOOL_VERSION_PATCH);
    ck_assert_str_eq(clpool_version_string(), want);
    ck_assert_uint_eq(clpool_version_number(), CLPOOL_VERSION_NUMBER);
}
END_TEST

START_TEST(dtype_table)
{
    ck_assert_uint_eq(clpool_dtype_size(CLPOOL_FLOAT32), 4);
    ck_assert_uint_eq(clpool_dtype_size(CLPOOL_BFLOAT16), 2);
    ck_assert_uint_eq(clpool_dtype_size(CLPOOL_UINT64), 8);
    ck_assert_uint_eq(clpool_dtype_size((clpool_dtype)8), 0); /* ONNX string: not ours */
    ck_assert_str_eq(clpool_dtype_name(CLPOOL_FLOAT16), "float16");
    ck_assert_str_eq(clpool_dtype_name((clpool_dtype)99), "unknown");
}
END_TEST

START_TEST(shape_elements_detects_overflow)
{
    clpool_shape s = {3, {2, 3, 4}};
    ck_assert_int_eq(clpool_shape_elements(&s), 24);
    clpool_shape big = {2, {INT64_MAX / 2, 3}};
    ck_assert_int_eq(clpool_shape_elements(&big), -1);
    clpool_shape neg = {1, {-1}};
    ck_assert_int_eq(clpool_shape_elements(&neg), -1);
    clpool_shape scalar = {0, {0}};
    ck_assert_int_eq(clpool_shape_elements(&scalar), 1);
    ck_assert_int_eq(clpool_shape_elements(NULL), -1);
    clpool_shape below = {-1, {0}}, above = {CLPOOL_MAX_RANK + 1, {0}};
    ck_assert_int_eq(clpool_shape_elements(&below), -1);
    ck_assert_int_eq(clpool_shape_elements(&above), -1);
}
END_TEST

/* MaxPool's rule that every window holds a tap, against the reference's window-by-window check: small
 * dims with dilations past the input (the taps of a window in the begin padding skip over it at some
 * offsets only) and strides that share a factor with them; then pads near the int64 range, whose windows
 * in the padding are too many to visit one by one (all but a period of d / gcd(s, d) of them are not). */
START_TEST(windows_without_taps_match_the_reference)
{
    ref_rng r;
    ref_rng_seed(&r, 2026);
    int rejected = 0, accepted = 0;
    for (int n = 0; n < 20000; ++n) {
        const int64_t k = ref_rng_range(&r, 1, 4), d = ref_rng_range(&r, 1, 9), s = ref_rng_range(&r, 1, 6);
        const clpool_shape in = {3, {1, 1, ref_rng_range(&r, 1, 7)}};
        clpool_maxpool_params p;
        ck_assert_int_eq(clpool_maxpool_params_init(&p, 1, &k), CLPOOL_SUCCESS);
        p.dilations[0] = d, p.strides[0] = s;
        p.pads[0] = ref_rng_range(&r, 0, 40), p.pads[1] = ref_rng_range(&r, 0, 12);
        p.ceil_mode = (int32_t)ref_rng_range(&r, 0, 1);
        clpool_shape got, want;
        char why[256];
        const int ref_ok = ref_maxpool_shape(&in, &p, &want, NULL, why, sizeof why) == 0;
        const clpool_status st = clpool_maxpool_output_shape(&in, &p, &got);
        ck_assert_msg((st == CLPOOL_SUCCESS) == ref_ok,
                      "in %lld k %lld d %lld s %lld pads %lld,%lld ceil %d: clpool %s (%s), reference %s",
                      (long long)in.dims[2], (long long)k, (long long)d, (long long)s, (long long)p.pads[0],
                      (long long)p.pads[1], (int)p.ceil_mode, clpool_status_string(st), clpool_last_error(),
                      ref_ok ? "accepts" : why);
        if (ref_ok) cu_assert_shape_eq(&got, &want, "random window");
        long long ref_at, got_at; /* the first window without a tap, where both name one */
        const char *at = strstr(clpool_last_error(), "output position ");
        if (!ref_ok && sscanf(why, "axis %*d: window %lld has no valid tap", &ref_at) == 1) {
            ck_assert_msg(at && sscanf(at, "output position %lld", &got_at) == 1 && got_at == ref_at,
                          "in %lld k %lld d %lld s %lld pads %lld,%lld: the reference's first empty window is %lld, "
                          "clpool: %s", (long long)in.dims[2], (long long)k, (long long)d, (long long)s,
                          (long long)p.pads[0], (long long)p.pads[1], ref_at, clpool_last_error());
        }
        rejected += !ref_ok, accepted += ref_ok;
    }
    ck_assert_msg(rejected > 1000 && accepted > 1000, "%d rejected, %d accepted: both kinds must be drawn", rejected,
                  accepted);
    /* SAME_LOWER over a dim of 3e9 (begin pads of 1.5e9 windows, dilation 1), and a dilation past a dim of 2
     * under pads of 2^61. */
    const int64_t big = 2999999999, k2[2] = {2, big};
    const clpool_shape wide = {4, {0, 64, 112, big}}, narrow = {3, {1, 1, 2}};
    clpool_maxpool_params p;
    clpool_shape out;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, k2), CLPOOL_SUCCESS);
    p.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    cu_assert_ok(clpool_maxpool_output_shape(&wide, &p, &out), "clpool_maxpool_output_shape", "SAME_LOWER, 3e9");
    ck_assert_int_eq(out.dims[3], big);
    /* a dilation of 2.7e12 over the same dim: every window in the (as wide) padding holds its second tap */
    const int64_t k23[2] = {2, 3};
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, k23), CLPOOL_SUCCESS);
    p.dilations[1] = 2666666666666;
    p.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    cu_assert_ok(clpool_maxpool_output_shape(&wide, &p, &out), "clpool_maxpool_output_shape", "SAME_LOWER, dilated");
    const int64_t k1 = 2;
    /* sizes past int64 at each step of the padded span: (k - 1) * d, in + pads, + the end pads, + the stride */
    static const struct {
        int64_t k, d, pb, pe, s;
    } overflows[] = {{3, INT64_MAX / 2 + 1, 0, 0, 1},
                     {2, 1, INT64_MAX - 1, 0, 1},
                     {2, 1, INT64_MAX / 2, INT64_MAX / 2, 1},
                     {2, 1, INT64_MAX / 2, INT64_MAX / 2 - 10, 64}};
    for (size_t i = 0; i < sizeof overflows / sizeof overflows[0]; ++i) {
        ck_assert_int_eq(clpool_maxpool_params_init(&p, 1, &overflows[i].k), CLPOOL_SUCCESS);
        p.dilations[0] = overflows[i].d, p.pads[0] = overflows[i].pb, p.pads[1] = overflows[i].pe;
        p.strides[0] = overflows[i].s;
        cu_assert_status("span past int64", "clpool_maxpool_output_shape", clpool_maxpool_output_shape(&narrow, &p, &out),
                         CLPOOL_ERROR_OVERFLOW, "kernel/dilation/pads along spatial axis 0 overflow int64");
    }
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 1, &k1), CLPOOL_SUCCESS);
    p.dilations[0] = 5, p.strides[0] = 3, p.pads[0] = (int64_t)1 << 61;
    cu_assert_status("dilation past the input under huge pads", "clpool_maxpool_output_shape",
                     clpool_maxpool_output_shape(&narrow, &p, &out), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "has a window with no input element");
}
END_TEST

START_TEST(devices_are_listed)
{
    uint32_t n = 0;
    ck_assert_int_eq(clpool_device_count(&n), CLPOOL_SUCCESS);
    ck_assert_uint_ge(n, 1);
    clpool_device_info info;
    ck_assert_int_eq(clpool_device_get_info(0, &info), CLPOOL_SUCCESS);
    ck_assert(strlen(info.device_name) > 0);
    ck_assert_uint_ge(info.compute_units, 1);
    ck_assert_uint_ge(info.max_work_group_size, 1);
    ck_assert_int_eq(clpool_device_get_info(n, &info), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "does not exist"));
    ck_assert_int_eq(clpool_device_count(NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "count is NULL"));
}
END_TEST

START_TEST(device_specs)
{
    clpool_context *ctx = NULL;
    ck_assert_int_eq(clpool_context_create("0", &ctx), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    ck_assert_int_eq(clpool_context_create("0:0", &ctx), CLPOOL_SUCCESS);
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    /* A name substring selects too, case-insensitively. */
    char sub[4] = {info.device_name[0], info.device_name[1], info.device_name[2], 0};
    ck_assert_int_eq(clpool_context_create(sub, &ctx), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    /* The name's end and more does not match: the comparison stops at the end of the names. */
    char past[64];
    const size_t len = strlen(info.device_name);
    snprintf(past, sizeof past, "%s and more", info.device_name + (len > 3 ? len - 3 : 0));
    char no_match[96];
    snprintf(no_match, sizeof no_match, "no OpenCL device matches '%s'", past);
    cu_assert_status("past the name's end", NULL, clpool_context_create(past, &ctx), CLPOOL_ERROR_NO_DEVICE, no_match);
    /* An empty spec is no spec: CLPOOL_DEVICE, then the default device. */
    setenv("CLPOOL_DEVICE", "0", 1);
    ck_assert_int_eq(clpool_context_create("", &ctx), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    unsetenv("CLPOOL_DEVICE");

    ck_assert_int_eq(clpool_context_create("no-such-device-xyz", &ctx), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "no OpenCL device matches 'no-such-device-xyz'"));
    ck_assert_ptr_null(ctx);
    ck_assert_int_eq(clpool_context_create("77", &ctx), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "device '77' does not exist"));
    ck_assert_int_eq(clpool_context_create("9:0", &ctx), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "(platform:device) does not exist"));
    ck_assert_int_eq(clpool_context_create("0:999", &ctx), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "device '0:999' (platform:device) does not exist"));
    /* Not a number, a pair or a name: an empty part, a sign, hex, past 32 bits, a head past 31 characters
       (" 1" would be: a part of "LLVM 15" in llvmpipe's name). */
    static const char *const not_specs[] = {":0", "0:", "0:x", "-1", "+1", "0x1", "4294967296",
                                            "0123456789012345678901234567890123456789:0"};
    for (size_t i = 0; i < sizeof not_specs / sizeof not_specs[0]; ++i) {
        char want[96];
        snprintf(want, sizeof want, "no OpenCL device matches '%s'", not_specs[i]);
        cu_assert_status(not_specs[i], NULL, clpool_context_create(not_specs[i], &ctx), CLPOOL_ERROR_NO_DEVICE, want);
        ck_assert_ptr_null(ctx);
    }
    /* Empty variables are unset ones. */
    const char *cache_env = getenv("CLPOOL_DEVICE_CACHE_BYTES");
    char cache_bytes[32] = "";
    if (cache_env) snprintf(cache_bytes, sizeof cache_bytes, "%s", cache_env);
    setenv("CLPOOL_DEVICE", "", 1);
    setenv("CLPOOL_TIERED", "", 1);
    setenv("CLPOOL_DEVICE_CACHE_BYTES", "", 1);
    ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    unsetenv("CLPOOL_DEVICE");
    unsetenv("CLPOOL_TIERED"); /* unset: tiers on */
    ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    setenv("CLPOOL_TIERED", "0", 1); /* as the suites run (tests/CMakeLists.txt) */
    if (cache_env) setenv("CLPOOL_DEVICE_CACHE_BYTES", cache_bytes, 1);
    else unsetenv("CLPOOL_DEVICE_CACHE_BYTES");
    setenv("CLPOOL_DEVICE", "no-such-device-env", 1);
    ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_ERROR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "no-such-device-env"));
    unsetenv("CLPOOL_DEVICE");
    ck_assert_int_eq(clpool_context_create(NULL, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* A context's info carries the cache size its path choices plan for: on
 * CPUs the device's, capped; $CLPOOL_DEVICE_CACHE_BYTES where set. The
 * device list keeps the device's own; anything but a positive decimal count fails
 * context creation with a message that quotes it. */
START_TEST(device_cache_override)
{
    const char *pinned = getenv("CLPOOL_DEVICE_CACHE_BYTES"); /* the suite pins it (tests/CMakeLists.txt) */
    char *restore = pinned ? strdup(pinned) : NULL;
    clpool_context *ctx = NULL;
    clpool_device_info info;
    cl_ulong device_cache = 0;

    unsetenv("CLPOOL_DEVICE_CACHE_BYTES");
    ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_SUCCESS);
    ck_assert_int_eq(clGetDeviceInfo(clpool_context_cl_device(ctx), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
                                     sizeof device_cache, &device_cache, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    /* CPUs plan for at most 4 MiB per compute unit or 32 MiB, whichever is more (host/context.c) */
    uint64_t planned = device_cache;
    if (info.type & CL_DEVICE_TYPE_CPU) {
        const uint64_t share = (uint64_t)info.compute_units << 22, cap = share > (32u << 20) ? share : (32u << 20);
        if (planned > cap) planned = cap;
    }
    ck_assert_uint_eq(info.cache_bytes, planned);
    clpool_context_release(ctx);

    setenv("CLPOOL_DEVICE_CACHE_BYTES", "12345", 1);
    ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    ck_assert_uint_eq(info.cache_bytes, 12345);
    uint32_t n = 0;
    ck_assert_int_eq(clpool_device_count(&n), CLPOOL_SUCCESS);
    for (uint32_t i = 0; i < n; ++i) {
        ck_assert_int_eq(clpool_device_get_info(i, &info), CLPOOL_SUCCESS);
        if (info.device == clpool_context_cl_device(ctx)) ck_assert_uint_eq(info.cache_bytes, device_cache);
    }
    clpool_context_release(ctx);

    static const char *bad[] = {"abc", "0", "12x", "-5", " 7", "+7", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        setenv("CLPOOL_DEVICE_CACHE_BYTES", bad[i], 1);
        ctx = NULL;
        ck_assert_int_eq(clpool_context_create(NULL, &ctx), CLPOOL_ERROR_INVALID_ARGUMENT);
        ck_assert_ptr_null(ctx);
        char want[96];
        snprintf(want, sizeof want, "CLPOOL_DEVICE_CACHE_BYTES='%s' is not a positive decimal byte count", bad[i]);
        ck_assert_msg(strstr(clpool_last_error(), want) != NULL, "%s: %s", bad[i], clpool_last_error());
    }
    if (restore) setenv("CLPOOL_DEVICE_CACHE_BYTES", restore, 1);
    else unsetenv("CLPOOL_DEVICE_CACHE_BYTES");
    free(restore);
}
END_TEST

START_TEST(adopted_objects_are_retained_and_released_once)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_device_get_info(0, &info), CLPOOL_SUCCESS);
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &info.device, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue q = clCreateCommandQueue(c, info.device, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    const cl_uint c0 = cu_context_refcount(c), q0 = cu_queue_refcount(q);

    clpool_context *ctx = NULL;
    ck_assert_int_eq(clpool_context_create_from_cl(c, info.device, q, &ctx), CLPOOL_SUCCESS);
    ck_assert_ptr_eq(clpool_context_cl_context(ctx), c);
    ck_assert_ptr_eq(clpool_context_cl_device(ctx), info.device);
    ck_assert_ptr_eq(clpool_context_cl_queue(ctx), q);
    ck_assert_uint_gt(cu_context_refcount(c), c0);
    clpool_context_release(ctx);
    ck_assert_uint_eq(cu_context_refcount(c), c0);
    ck_assert_uint_eq(cu_queue_refcount(q), q0);

    /* Without a queue clpool makes (and later releases) its own. */
    ck_assert_int_eq(clpool_context_create_from_cl(c, info.device, NULL, &ctx), CLPOOL_SUCCESS);
    cl_command_queue own = clpool_context_cl_queue(ctx);
    ck_assert_ptr_nonnull(own);
    ck_assert_ptr_ne(own, q);
    clpool_context_release(ctx);
    ck_assert_uint_eq(cu_context_refcount(c), c0);

    /* A queue of another context is refused, and nothing is retained. */
    cl_context other = clCreateContext(NULL, 1, &info.device, NULL, NULL, &err);
    cl_command_queue oq = clCreateCommandQueue(other, info.device, 0, &err);
    ck_assert_int_eq(clpool_context_create_from_cl(c, info.device, oq, &ctx), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "queue belongs to another context"));
    ck_assert_uint_eq(cu_context_refcount(c), c0);
    ck_assert_int_eq(clpool_context_create_from_cl(NULL, info.device, NULL, &ctx), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "context is NULL"));
    ck_assert_int_eq(clpool_context_create_from_cl(c, NULL, NULL, &ctx), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "device is NULL"));
    clReleaseCommandQueue(oq);
    clReleaseContext(other);
    clReleaseCommandQueue(q);
    clReleaseContext(c);
}
END_TEST

static void *fail_in_thread(void *arg)
{
    (void)arg;
    clpool_context_create("thread-local-error-check", NULL);
    clpool_context *ctx = NULL;
    clpool_context_create("thread-local-error-check", &ctx);
    return strstr(clpool_last_error(), "thread-local-error-check") ? (void *)1 : NULL;
}

START_TEST(last_error_is_per_thread)
{
    clpool_shape s = {0, {0}};
    ck_assert_int_eq(clpool_tensor_create(NULL, CLPOOL_FLOAT32, &s, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    char mine[256];
    snprintf(mine, sizeof mine, "%s", clpool_last_error());
    pthread_t t;
    void *ok = NULL;
    ck_assert_int_eq(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    pthread_join(t, &ok);
    ck_assert_ptr_nonnull(ok);
    ck_assert_str_eq(clpool_last_error(), mine);
}
END_TEST

/* Write a kernel directory holding the real kernel sources but a given
 * maxpool2d.cl (the family small_maxpool's 1-D windows build). */
static void write_kernel_dir(const char *dir, const char *maxpool_source)
{
    char path[1100], cmd[2300];
    mkdir(dir, 0755);
    snprintf(cmd, sizeof cmd, "cp '%s'/kernels/*.h '%s'/kernels/*.cl '%s/'", CLPOOL_SOURCE_DIR, CLPOOL_SOURCE_DIR, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/maxpool2d.cl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(maxpool_source, f);
    fclose(f);
}

static clpool_status small_maxpool(clpool_context *ctx, float *out)
{
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    return clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, out, NULL);
}

START_TEST(broken_kernel_reports_build_log_and_context_stays_usable)
{
    const char *tmp = cu_tmpdir();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/broken-kernels", tmp);
    write_kernel_dir(dir, "__kernel void maxpool2d(__global float *x) { this is not OpenCL C; }\n");
    clpool_context *ctx = cu_context_create();
    float out[3];
    setenv("CLPOOL_KERNEL_DIR", dir, 1);
    ck_assert_int_eq(small_maxpool(ctx, out), CLPOOL_ERROR_BUILD_FAILED);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "building kernels/maxpool2d.cl"));
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "build log"));
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "error"));

    snprintf(dir, sizeof dir, "%s/no-such-kernel-dir", tmp);
    setenv("CLPOOL_KERNEL_DIR", dir, 1);
    ck_assert_int_eq(small_maxpool(ctx, out), CLPOOL_ERROR_BUILD_FAILED);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "cannot be read"));

    /* The failed build was not cached: the embedded kernels now work. */
    unsetenv("CLPOOL_KERNEL_DIR");
    ck_assert_int_eq(small_maxpool(ctx, out), CLPOOL_SUCCESS);
    ck_assert(out[0] == 5 && out[1] == 5 && out[2] == 3);
    clpool_context_release(ctx);
}
END_TEST

START_TEST(kernel_dir_override_loads_sources_from_disk)
{
    setenv("CLPOOL_KERNEL_DIR", CLPOOL_SOURCE_DIR "/kernels", 1);
    clpool_context *ctx = cu_context_create();
    float out[3];
    ck_assert_int_eq(small_maxpool(ctx, out), CLPOOL_SUCCESS);
    ck_assert(out[0] == 5 && out[1] == 5 && out[2] == 3);
    clpool_context_release(ctx);
    /* a directory with a kernel file missing, then one with a device file at its name (a link to /dev/null:
       no regular file, read as nothing it would build with an empty header) */
    char dir[1024], sub[1100];
    snprintf(dir, sizeof dir, "%s/kernel-dir-%d", cu_tmpdir(), (int)getpid());
    snprintf(sub, sizeof sub, "%s/common.h", dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    setenv("CLPOOL_KERNEL_DIR", dir, 1);
    for (int planted = 0; planted < 2; ++planted) {
        if (planted) ck_assert_int_eq(symlink("/dev/null", sub), 0);
        ctx = cu_context_create();
        char want[1200];
        snprintf(want, sizeof want, "CLPOOL_KERNEL_DIR is set but %s cannot be read", sub);
        cu_assert_status(planted ? "a device file at a kernel file's name" : "a kernel file missing", NULL,
                         small_maxpool(ctx, out), CLPOOL_ERROR_BUILD_FAILED, want);
        clpool_context_release(ctx);
    }
    ck_assert_int_eq(unlink(sub), 0);
    /* the prefix files there, the family's first own file missing */
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp '%s'/kernels/common.h '%s'/kernels/args.h '%s/'", CLPOOL_SOURCE_DIR,
             CLPOOL_SOURCE_DIR, dir);
    ck_assert_int_eq(system(cmd), 0);
    ctx = cu_context_create();
    char want[1200];
    snprintf(want, sizeof want, "CLPOOL_KERNEL_DIR is set but %s/reduce_max.h cannot be read", dir);
    cu_assert_status("the family's file missing", NULL, small_maxpool(ctx, out), CLPOOL_ERROR_BUILD_FAILED, want);
    clpool_context_release(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    setenv("CLPOOL_KERNEL_DIR", "", 1); /* empty: the embedded sources */
    ctx = cu_context_create();
    ck_assert_int_eq(small_maxpool(ctx, out), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    unsetenv("CLPOOL_KERNEL_DIR");
}
END_TEST

/* float64 runs where the device has cl_khr_fp64; elsewhere every op refuses
 * it with CLPOOL_ERROR_UNSUPPORTED_DEVICE (never a kernel build failure). */
START_TEST(float64_needs_fp64)
{
    clpool_context *ctx = cu_context_create();
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    const clpool_status want = info.has_fp64 ? CLPOOL_SUCCESS : CLPOOL_ERROR_UNSUPPORTED_DEVICE;
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    clpool_shape in = {3, {1, 1, 4}};
    const double x[4] = {1, 5, 2, 3};
    double out[4] = {0}; /* Max writes 4 */
    const void *inputs[2] = {x, x};
    const clpool_shape shapes[2] = {in, in};
    const char *names[5] = {"MaxPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool", "Max"};
    for (int op = 0; op < 5; ++op) {
        clpool_status st = op == 0 ? clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT64, &in, x, out, NULL)
                         : op == 1 ? clpool_global_max_pool_host(ctx, CLPOOL_FLOAT64, &in, x, out)
                         : op == 2 ? clpool_global_average_pool_host(ctx, CLPOOL_FLOAT64, &in, x, out)
                         : op == 3 ? clpool_global_lp_pool_host(ctx, 2.0, CLPOOL_FLOAT64, &in, x, out)
                                   : clpool_max_host(ctx, CLPOOL_FLOAT64, 2, shapes, inputs, out);
        ck_assert_msg(st == want, "%s float64: %s, expected %s (%s)", names[op], clpool_status_string(st),
                      clpool_status_string(want), clpool_last_error());
        if (st != CLPOOL_SUCCESS)
            ck_assert_msg(strstr(clpool_last_error(), "float64 needs cl_khr_fp64") != NULL, "%s", clpool_last_error());
    }
    if (!info.has_fp64) printf("note: device has no cl_khr_fp64: float64 refused by every op as expected\n");
    float f[3];
    ck_assert_int_eq(small_maxpool(ctx, f), CLPOOL_SUCCESS); /* the context stays usable */
    clpool_context_release(ctx);
}
END_TEST

START_TEST(tensor_round_trip_and_errors)
{
    clpool_context *ctx = cu_context_create();
    clpool_shape s = {2, {3, 5}};
    clpool_tensor *t = NULL;
    ck_assert_int_eq(clpool_tensor_create(ctx, CLPOOL_INT16, &s, &t), CLPOOL_SUCCESS);
    ck_assert_uint_eq(clpool_tensor_bytes(t), 30);
    ck_assert_int_eq(clpool_tensor_dtype(t), CLPOOL_INT16);
    ck_assert_int_eq(clpool_tensor_shape(t)->dims[1], 5);
    ck_assert_ptr_nonnull(clpool_tensor_mem(t));
    ck_assert_ptr_null(clpool_tensor_mem(NULL));
    ck_assert_int_eq(clpool_tensor_dtype(NULL), 0);
    ck_assert_ptr_null(clpool_tensor_shape(NULL));
    ck_assert_uint_eq(clpool_tensor_bytes(NULL), 0);
    int16_t in[15], out[15];
    for (int i = 0; i < 15; ++i) in[i] = (int16_t)(i * 1000 - 7000);
    ck_assert_int_eq(clpool_tensor_upload(t, in, sizeof in), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_tensor_download(t, out, sizeof out), CLPOOL_SUCCESS);
    ck_assert_mem_eq(in, out, sizeof in);
    ck_assert_int_eq(clpool_tensor_download(t, out, 10), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "bytes = 10 but the tensor holds 30"));
    ck_assert_int_eq(clpool_tensor_upload(t, NULL, 30), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "host is NULL"));
    clpool_tensor_release(t);

    clpool_shape empty = {3, {2, 0, 4}};
    ck_assert_int_eq(clpool_tensor_create(ctx, CLPOOL_FLOAT32, &empty, &t), CLPOOL_SUCCESS);
    ck_assert_uint_eq(clpool_tensor_bytes(t), 0);
    ck_assert_int_eq(clpool_tensor_upload(t, NULL, 0), CLPOOL_SUCCESS);
    clpool_tensor_release(t);

    ck_assert_int_eq(clpool_tensor_create(ctx, (clpool_dtype)8, &s, &t), CLPOOL_ERROR_UNSUPPORTED_DTYPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "dtype 8 is not a clpool_dtype"));
    clpool_shape neg = {2, {3, -1}};
    ck_assert_int_eq(clpool_tensor_create(ctx, CLPOOL_FLOAT32, &neg, &t), CLPOOL_ERROR_INVALID_SHAPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "shape dim 1 is negative"));
    clpool_shape huge = {2, {INT64_MAX / 4, 4}};
    ck_assert_int_eq(clpool_tensor_create(ctx, CLPOOL_FLOAT32, &huge, &t), CLPOOL_ERROR_OVERFLOW);
    clpool_shape deep = {CLPOOL_MAX_RANK + 1, {1}};
    ck_assert_int_eq(clpool_tensor_create(ctx, CLPOOL_FLOAT32, &deep, &t), CLPOOL_ERROR_INVALID_SHAPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "rank 13 is outside 0..12"));
    clpool_tensor_release(NULL);
    clpool_context_release(ctx);
    clpool_context_release(NULL);
}
END_TEST

/* Every windowed op's parameters, 2-D: MaxPool's kernel `k_max`, the others 2x2. */
typedef struct op_params {
    clpool_maxpool_params mp;
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    clpool_max_unpool_params up;
} op_params;

static void op_params_init(op_params *o, const int64_t k_max[2])
{
    static const int64_t k2[2] = {2, 2};
    ck_assert_int_eq(clpool_maxpool_params_init(&o->mp, 2, k_max), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_average_pool_params_init(&o->avg, 2, k2), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_lp_pool_params_init(&o->lp, 2, k2), CLPOOL_SUCCESS);
    ck_assert_int_eq(clpool_max_unpool_params_init(&o->up, 2, k2), CLPOOL_SUCCESS);
}

/* Each NULL pointer argument of the public calls that no other test passes is refused with
 * CLPOOL_ERROR_INVALID_ARGUMENT and a message naming the call and the argument. */
START_TEST(null_pointers_are_named)
{
    clpool_context *ctx = cu_context_create();
    clpool_device_info info;
    const int64_t k2[2] = {2, 2};
    op_params o;
    op_params_init(&o, k2);
    clpool_maxpool_params mp = o.mp;
    clpool_average_pool_params avg = o.avg;
    clpool_lp_pool_params lp = o.lp;
    clpool_max_unpool_params up = o.up;
    const clpool_shape shape = {4, {1, 1, 2, 2}}, out_shape = {4, {1, 1, 1, 1}};
    const float x[4] = {1, 2, 3, 4};
    float y[4];
    /* the accessors answer NULL for a NULL context, and trim does nothing */
    ck_assert_ptr_null(clpool_context_cl_context(NULL));
    ck_assert_ptr_null(clpool_context_cl_device(NULL));
    ck_assert_ptr_null(clpool_context_cl_queue(NULL));
    clpool_context_trim(NULL);
    const int64_t idx[1] = {3};
    const void *inputs[1] = {x};
    clpool_tensor *t = NULL;
    cl_int err;
    cl_mem mem = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE, 64, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clpool_view view;
    ck_assert_int_eq(clpool_view_contiguous(&view, mem, 0, &shape), CLPOOL_SUCCESS);
/* each message checked right after its call: clpool_last_error() holds the latest */
#define NULL_ARG(fn, arg, call) cu_assert_status(arg, fn, (call), CLPOOL_ERROR_INVALID_ARGUMENT, fn ": " arg " is NULL")
    NULL_ARG("clpool_context_create_from_cl", "out",
             clpool_context_create_from_cl(clpool_context_cl_context(ctx), clpool_context_cl_device(ctx), NULL, NULL));
    NULL_ARG("clpool_context_device_info", "ctx", clpool_context_device_info(NULL, &info));
    NULL_ARG("clpool_context_device_info", "info", clpool_context_device_info(ctx, NULL));
    NULL_ARG("clpool_device_get_info", "info", clpool_device_get_info(0, NULL));
    NULL_ARG("clpool_context_warm_up", "ctx", clpool_context_warm_up(NULL, CLPOOL_FLOAT32));
    NULL_ARG("clpool_context_wait_builds", "ctx", clpool_context_wait_builds(NULL));
    NULL_ARG("clpool_maxpool_params_init", "p", clpool_maxpool_params_init(NULL, 2, k2));
    NULL_ARG("clpool_lp_pool_params_init", "p", clpool_lp_pool_params_init(NULL, 2, k2));
    NULL_ARG("clpool_average_pool_output_shape", "output", clpool_average_pool_output_shape(&shape, &avg, NULL));
    NULL_ARG("clpool_tensor_create", "ctx", clpool_tensor_create(NULL, CLPOOL_FLOAT32, &shape, &t));
    NULL_ARG("clpool_tensor_download", "t", clpool_tensor_download(NULL, y, 16));
    NULL_ARG("clpool_maxpool_host", "ctx", clpool_maxpool_host(NULL, &mp, CLPOOL_FLOAT32, &shape, x, y, NULL));
    NULL_ARG("clpool_maxpool_host", "input", clpool_maxpool_host(ctx, &mp, CLPOOL_FLOAT32, &shape, NULL, y, NULL));
    NULL_ARG("clpool_maxpool_host", "output", clpool_maxpool_host(ctx, &mp, CLPOOL_FLOAT32, &shape, x, NULL, NULL));
    NULL_ARG("clpool_average_pool_host", "params", clpool_average_pool_host(ctx, NULL, CLPOOL_FLOAT32, &shape, x, y));
    NULL_ARG("clpool_lp_pool_host", "ctx", clpool_lp_pool_host(NULL, &lp, CLPOOL_FLOAT32, &shape, x, y));
    NULL_ARG("clpool_global_max_pool_host", "input", clpool_global_max_pool_host(ctx, CLPOOL_FLOAT32, &shape, NULL, y));
    NULL_ARG("clpool_global_average_pool_host", "output",
             clpool_global_average_pool_host(ctx, CLPOOL_FLOAT32, &shape, x, NULL));
    NULL_ARG("clpool_max_host", "ctx", clpool_max_host(NULL, CLPOOL_FLOAT32, 1, &shape, inputs, y));
    NULL_ARG("clpool_max_host", "inputs", clpool_max_host(ctx, CLPOOL_FLOAT32, 1, &shape, NULL, y));
    NULL_ARG("clpool_max_host", "output", clpool_max_host(ctx, CLPOOL_FLOAT32, 1, &shape, inputs, NULL));
    NULL_ARG("clpool_max_unpool_host", "ctx",
             clpool_max_unpool_host(NULL, &up, CLPOOL_FLOAT32, &out_shape, x, idx, y, NULL));
    NULL_ARG("clpool_max_unpool_host", "x",
             clpool_max_unpool_host(ctx, &up, CLPOOL_FLOAT32, &out_shape, NULL, idx, y, NULL));
    NULL_ARG("clpool_max_unpool_host", "output",
             clpool_max_unpool_host(ctx, &up, CLPOOL_FLOAT32, &out_shape, x, idx, NULL, NULL));
    NULL_ARG("clpool_enqueue_maxpool_view", "ctx",
             clpool_enqueue_maxpool_view(NULL, NULL, &mp, CLPOOL_FLOAT32, &view, &view, NULL, 0, NULL, NULL));
    NULL_ARG("clpool_enqueue_average_pool_view", "ctx",
             clpool_enqueue_average_pool_view(NULL, NULL, &avg, CLPOOL_FLOAT32, &view, &view, 0, NULL, NULL));
    NULL_ARG("clpool_enqueue_lp_pool_view", "input",
             clpool_enqueue_lp_pool_view(ctx, NULL, &lp, CLPOOL_FLOAT32, NULL, &view, 0, NULL, NULL));
    NULL_ARG("clpool_enqueue_max_view", "ctx",
             clpool_enqueue_max_view(NULL, NULL, CLPOOL_FLOAT32, 1, &view, &view, 0, NULL, NULL));
#undef NULL_ARG
    ck_assert_ptr_null(t);
    clReleaseMemObject(mem);
    clpool_context_release(ctx);
}
END_TEST

/* Bad shapes and attributes reach each call's own error return: the host helpers (before any buffer),
 * the shape functions, and a broadcast whose output overflows though no input does. */
START_TEST(bad_shapes_are_refused_by_every_entry)
{
    clpool_context *ctx = cu_context_create();
    const int64_t k2[2] = {2, 2}, k9[2] = {9, 9};
    op_params o;
    op_params_init(&o, k9);
    clpool_maxpool_params mp = o.mp;
    clpool_average_pool_params avg = o.avg;
    clpool_max_unpool_params up = o.up;
    const clpool_shape small = {4, {1, 1, 2, 2}}, negative = {4, {1, 1, -2, 2}}, deep = {13, {1}};
    const float x[4] = {1, 2, 3, 4};
    float y[16];
    const int64_t idx[4] = {0, 1, 2, 3};
    clpool_shape out;
    /* a host helper's shape errors name the shape function it asked */
    cu_assert_status("window past the input", "clpool_maxpool_output_shape",
                     clpool_maxpool_host(ctx, &mp, CLPOOL_FLOAT32, &small, x, y, NULL), CLPOOL_ERROR_INVALID_SHAPE,
                     "smaller than the dilated kernel");
    const clpool_shape apart[2] = {{2, {2, 3}}, {2, {2, 4}}};
    const void *inputs[2] = {x, x};
    cu_assert_status("no broadcast", "clpool_max_output_shape", clpool_max_host(ctx, CLPOOL_FLOAT32, 2, apart, inputs, y),
                     CLPOOL_ERROR_INVALID_SHAPE, "does not broadcast");
    cu_assert_status("negative X dim", "clpool_max_unpool_output_shape",
                     clpool_max_unpool_host(ctx, &up, CLPOOL_FLOAT32, &negative, x, idx, y, NULL),
                     CLPOOL_ERROR_INVALID_SHAPE, "X shape dim 2 is negative");
    clpool_maxpool_params unset;
    cu_assert_status("spatial rank 0", "clpool_maxpool_params_init", clpool_maxpool_params_init(&unset, 0, k2),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "spatial_rank");
    clpool_average_pool_params avg_unset;
    cu_assert_status("AveragePool spatial rank 0", "clpool_average_pool_params_init",
                     clpool_average_pool_params_init(&avg_unset, 0, k2), CLPOOL_ERROR_INVALID_ARGUMENT, "spatial_rank");
    cu_assert_status("MaxPool NULL params", "clpool_maxpool_output_shape", clpool_maxpool_output_shape(&small, NULL, &out),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "params is NULL");
    cu_assert_status("negative input dim", "clpool_average_pool_output_shape",
                     clpool_average_pool_output_shape(&negative, &avg, &out), CLPOOL_ERROR_INVALID_SHAPE,
                     "input shape dim 2 is negative");
    cu_assert_status("rank 13", "clpool_maxpool_output_shape", clpool_maxpool_output_shape(&deep, &mp, &out),
                     CLPOOL_ERROR_INVALID_SHAPE, "input shape rank 13 is outside 0..12");
    /* every sum of the window arithmetic overflowing int64 in turn: (k - 1) * d, + 1, in + pad_begin,
       + pad_end, + stride */
    const struct {
        int64_t k, d, pb, pe, s;
    } past[] = {{INT64_C(1) << 62, 4, 0, 0, 1}, {2, INT64_MAX, 0, 0, 1}, {1, 1, INT64_MAX, 0, 1},
                {1, 1, INT64_MAX / 2, INT64_MAX / 2 + 4, 1}, {1, 1, 0, 0, INT64_MAX}};
    const clpool_shape row = {3, {1, 1, 4}};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; ++i) {
        clpool_maxpool_params w;
        ck_assert_int_eq(clpool_maxpool_params_init(&w, 1, &past[i].k), CLPOOL_SUCCESS);
        w.dilations[0] = past[i].d, w.pads[0] = past[i].pb, w.pads[1] = past[i].pe, w.strides[0] = past[i].s;
        cu_assert_status("window arithmetic past int64", "clpool_maxpool_output_shape",
                         clpool_maxpool_output_shape(&row, &w, &out), CLPOOL_ERROR_OVERFLOW,
                         "kernel/dilation/pads along spatial axis 0 overflow int64");
    }
    /* auto_pad SAME: the last window's end past int64 though the input and the kernel fit (found by fuzz_attrs;
       N = 0 keeps the input's byte size in range) */
    const clpool_shape far = {3, {0, 1, INT64_C(6890306701660822648)}};
    const int64_t wide_k = INT64_C(3445173350830411324);
    for (int upper = 0; upper < 2; ++upper) {
        clpool_maxpool_params w;
        ck_assert_int_eq(clpool_maxpool_params_init(&w, 1, &wide_k), CLPOOL_SUCCESS);
        w.auto_pad = upper ? CLPOOL_AUTO_PAD_SAME_UPPER : CLPOOL_AUTO_PAD_SAME_LOWER;
        w.strides[0] = 2;
        cu_assert_status("SAME padding past int64", "clpool_maxpool_output_shape",
                         clpool_maxpool_output_shape(&far, &w, &out), CLPOOL_ERROR_OVERFLOW,
                         "kernel/dilation/pads along spatial axis 0 overflow int64");
    }
    /* a spatial dim of 0 whose pads hold the window: outputs, but no input to read */
    const clpool_shape hollow = {3, {1, 1, 0}};
    clpool_maxpool_params padded;
    const int64_t k1[1] = {1};
    ck_assert_int_eq(clpool_maxpool_params_init(&padded, 1, k1), CLPOOL_SUCCESS);
    padded.pads[0] = padded.pads[1] = 1;
    cu_assert_status("spatial dim 0 inside pads", "clpool_maxpool_output_shape",
                     clpool_maxpool_output_shape(&hollow, &padded, &out), CLPOOL_ERROR_INVALID_SHAPE,
                     "spatial axis 0 has size 0, giving output size 2");
    const clpool_shape unranked = {-1, {0}};
    cu_assert_status("rank -1", "clpool_maxpool_output_shape", clpool_maxpool_output_shape(&unranked, &mp, &out),
                     CLPOOL_ERROR_INVALID_SHAPE, "input shape rank -1 is outside 0..12");
    /* elements that fit int64 but not as bytes of the widest dtype */
    const clpool_shape wide = {4, {1, 1, INT64_C(1) << 31, INT64_C(1) << 30}};
    cu_assert_status("bytes past int64", "clpool_maxpool_output_shape", clpool_maxpool_output_shape(&wide, &mp, &out),
                     CLPOOL_ERROR_OVERFLOW, "input shape byte size overflows size_t");
    clpool_maxpool_params spatial_13 = mp;
    spatial_13.spatial_rank = CLPOOL_MAX_SPATIAL + 1;
    cu_assert_status("spatial rank past the limit", "clpool_maxpool_output_shape",
                     clpool_maxpool_output_shape(&small, &spatial_13, &out), CLPOOL_ERROR_INVALID_ARGUMENT,
                     "spatial_rank 11 is outside 1..10");
    /* pads that make the output larger than int64 counts though the input is small (found by fuzz_attrs) */
    clpool_lp_pool_params lp;
    const int64_t k3[2] = {3, 3};
    ck_assert_int_eq(clpool_lp_pool_params_init(&lp, 2, k3), CLPOOL_SUCCESS);
    lp.window.pads[0] = lp.window.pads[1] = lp.window.pads[2] = 1;
    lp.window.pads[3] = INT64_C(100000000000041053);
    const clpool_shape rgb = {4, {1, 3, 32, 32}};
    cu_assert_status("output past int64", "clpool_lp_pool_output_shape", clpool_lp_pool_output_shape(&rgb, &lp, &out),
                     CLPOOL_ERROR_OVERFLOW, "output shape element count overflows int64");
    const clpool_shape crossed[2] = {{2, {INT64_C(1) << 40, 1}}, {2, {1, INT64_C(1) << 40}}};
    cu_assert_status("broadcast past int64", "clpool_max_output_shape", clpool_max_output_shape(2, crossed, &out),
                     CLPOOL_ERROR_OVERFLOW, "output shape element count overflows int64");
    clpool_context_release(ctx);
}
END_TEST

static Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = cu_tcase(s, "core", 0);
    tcase_add_test(tc, status_strings_cover_every_status);
    tcase_add_test(tc, version_matches_macros);
    tcase_add_test(tc, dtype_table);
    tcase_add_test(tc, shape_elements_detects_overflow);
    tcase_add_test(tc, windows_without_taps_match_the_reference);
    tcase_add_test(tc, devices_are_listed);
    tcase_add_test(tc, device_specs);
    tcase_add_test(tc, device_cache_override);
    tcase_add_test(tc, adopted_objects_are_retained_and_released_once);
    tcase_add_test(tc, last_error_is_per_thread);
    tcase_add_test(tc, broken_kernel_reports_build_log_and_context_stays_usable);
    tcase_add_test(tc, kernel_dir_override_loads_sources_from_disk);
    tcase_add_test(tc, float64_needs_fp64);
    tcase_add_test(tc, tensor_round_trip_and_errors);
    tcase_add_test(tc, null_pointers_are_named);
    tcase_add_test(tc, bad_shapes_are_refused_by_every_entry);
    return s;
}

int main(void)
{
    return cu_run_suite(core_suite(), CK_NORMAL);
}
