/* Shared Check-suite mechanics; see check_util.h. */
#include "check_util.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --------------------------------------------------- fixture and suites */

clpool_context *cu_ctx;
cl_command_queue cu_own_queue;
int cu_own_queue_ooo;

clpool_context *cu_context_create(void)
{
    clpool_context *c = NULL;
    const clpool_status st = clpool_context_create(NULL, &c);
    ck_assert_msg(st == CLPOOL_SUCCESS, "clpool_context_create: %s: %s", clpool_status_string(st),
                  clpool_last_error());
    return c;
}

/* Checked fixture: the context and the caller queue of one test. */
static void ctx_setup(void)
{
    cu_ctx = cu_context_create();
    cl_device_id dev = clpool_context_cl_device(cu_ctx);
    cl_command_queue_properties supported = 0;
    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL);
    cu_own_queue_ooo = (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    cl_int err;
    cu_own_queue = clCreateCommandQueue(clpool_context_cl_context(cu_ctx), dev,
                                        cu_own_queue_ooo ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    ck_assert_msg(cu_own_queue != NULL, "clCreateCommandQueue failed: %d", (int)err);
}

/* Checked fixture: releases what ctx_setup() made. */
static void ctx_teardown(void)
{
    if (cu_own_queue) clReleaseCommandQueue(cu_own_queue);
    cu_own_queue = NULL;
    clpool_context_release(cu_ctx);
    cu_ctx = NULL;
}

int cu_device_has_fp64(void)
{
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(cu_ctx, &info), CLPOOL_SUCCESS);
    return info.has_fp64;
}

int cu_dtype_runs(clpool_dtype dtype, const char *what)
{
    if (dtype != CLPOOL_FLOAT64 || cu_device_has_fp64()) return 1;
    printf("note: device has no cl_khr_fp64, float64 %s cases skipped\n", what);
    return 0;
}

TCase *cu_tcase(Suite *s, const char *name, int with_ctx)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, CU_TIMEOUT);
    if (with_ctx) tcase_add_checked_fixture(tc, ctx_setup, ctx_teardown);
    suite_add_tcase(s, tc);
    return tc;
}

/* CLPOOL_CHECK_TESTS, split once: its names and whether each matched a test (none: every test runs). */
#define CU_MAX_SELECTED 64
static struct {
    int parsed, n;
    char names[CU_MAX_SELECTED][128];
    int matched[CU_MAX_SELECTED];
} selection;

static void parse_selection(void)
{
    if (selection.parsed) return;
    selection.parsed = 1;
    const char *list = getenv("CLPOOL_CHECK_TESTS");
    if (!list) return;
    int n = 0;
    for (const char *p = list; *p;) {
        const size_t len = strcspn(p, " ");
        if (len > 0 && n < CU_MAX_SELECTED && len < sizeof selection.names[0]) {
            memcpy(selection.names[n], p, len);
            selection.names[n][len] = '\0';
            ++n;
        } else if (len > 0) {
            fprintf(stderr, "CLPOOL_CHECK_TESTS: more than %d names or a name of %zu characters\n", CU_MAX_SELECTED,
                    len);
            exit(EXIT_FAILURE);
        }
        p += len;
        p += strspn(p, " ");
    }
    selection.n = n;
}

void cu_add_test(TCase *tc, const TTest *tt, int start, int end)
{
    parse_selection();
    if (selection.n != 0) {
        int i = 0;
        while (i < selection.n && strcmp(selection.names[i], tt->name) != 0) ++i;
        if (i >= selection.n) return;
        selection.matched[i] = 1;
    }
    _tcase_add_test(tc, tt, 0, 0, start, end);
}

int cu_run_suite(Suite *s, enum print_output mode)
{
    parse_selection();
    int unmatched = 0;
    for (int i = 0; i < selection.n; ++i)
        if (!selection.matched[i]) {
            fprintf(stderr, "CLPOOL_CHECK_TESTS names %s, which is no test of this suite\n", selection.names[i]);
            unmatched = 1;
        }
    if (unmatched) return EXIT_FAILURE;
    if (selection.n > 0) printf("subset (CLPOOL_CHECK_TESTS): %s\n", getenv("CLPOOL_CHECK_TESTS"));
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, mode);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *cu_tmpdir(void) { return getenv("CLPOOL_TEST_TMP") ? getenv("CLPOOL_TEST_TMP") : "."; }

const char *cu_write_script(const char *name, const char *body)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s-%d.sh", cu_tmpdir(), name, (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0700), 0);
    return path;
}

/* ------------------------------------------------------------ test data */

const clpool_dtype cu_all_dtypes[12] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16, CLPOOL_BFLOAT16,
                                        CLPOOL_INT8,    CLPOOL_INT16,   CLPOOL_INT32,   CLPOOL_INT64,
                                        CLPOOL_UINT8,   CLPOOL_UINT16,  CLPOOL_UINT32,  CLPOOL_UINT64};
const clpool_dtype cu_float_dtypes[4] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16, CLPOOL_BFLOAT16};
const clpool_dtype cu_maxpool_dtypes[6] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                           CLPOOL_BFLOAT16, CLPOOL_INT8,    CLPOOL_UINT8};

int cu_pair_runs(clpool_dtype dtype, size_t i)
{
    switch (dtype) {
    case CLPOOL_FLOAT16: case CLPOOL_INT8: case CLPOOL_INT16: case CLPOOL_INT32: case CLPOOL_INT64:
        return i % 2 == 0;
    case CLPOOL_BFLOAT16: case CLPOOL_UINT8: case CLPOOL_UINT16: case CLPOOL_UINT32: case CLPOOL_UINT64:
        return i % 2 == 1;
    default:
        return 1;
    }
}

int cu_pair_share(clpool_dtype dtype, int n)
{
    return cu_pair_runs(dtype, 0) && cu_pair_runs(dtype, 1) ? n : (n + 1) / 2;
}

static const uint64_t nan_f32[CU_N_NAN] = {0x7FC00000u, 0xFFC00000u, 0x7FC00123u, 0x7F800001u, 0xFFBFFFFFu};
static const uint64_t nan_f64[CU_N_NAN] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF8000000000ABCull,
                                           0x7FF0000000000001ull, 0xFFF7FFFFFFFFFFFFull};
static const uint64_t nan_f16[CU_N_NAN] = {0x7E00u, 0xFE00u, 0x7E12u, 0x7C01u, 0xFD00u};
static const uint64_t nan_bf16[CU_N_NAN] = {0x7FC0u, 0xFFC0u, 0x7FC5u, 0x7F81u, 0xFF90u};

const uint64_t *cu_nan_patterns(clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: return nan_f32;
    case CLPOOL_FLOAT64: return nan_f64;
    case CLPOOL_FLOAT16: return nan_f16;
    case CLPOOL_BFLOAT16: return nan_bf16;
    default: return NULL;
    }
}

/* ------------------------------------------------------ failure messages */

void cu_append(char *buf, size_t len, const char *fmt, ...)
{
    const size_t used = strlen(buf);
    if (used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

void cu_append_dims(char *buf, size_t len, const int64_t *v, int32_t n)
{
    cu_append(buf, len, "[");
    for (int32_t i = 0; i < n; ++i) cu_append(buf, len, i ? ",%lld" : "%lld", (long long)v[i]);
    cu_append(buf, len, "]");
}

/* ------------------------------------------------------ guarded images */

unsigned char *cu_sentinel_image(size_t lead, const void *data, size_t body)
{
    unsigned char *img = malloc(CU_IMAGE_BYTES(lead, body));
    ck_assert_ptr_nonnull(img);
    memset(img, CU_SENTINEL, CU_IMAGE_BYTES(lead, body));
    if (data) memcpy(img + lead, data, body);
    return img;
}

int cu_all_sentinel(const unsigned char *p, size_t n)
{
    size_t b = 0;
    while (b < n && p[b] == CU_SENTINEL) ++b;
    return b == n;
}

void cu_assert_guards(const unsigned char *img, size_t lead, size_t body, const char *what, const char *desc)
{
    for (size_t i = 0; i < lead; ++i)
        cu_expect(img[i] == CU_SENTINEL, "%s: %s: byte %zu before the tensor was overwritten (0x%02x)", desc, what,
                  lead - i, img[i]);
    for (size_t i = 0; i < CU_GUARD; ++i)
        cu_expect(img[lead + body + i] == CU_SENTINEL,
                  "%s: %s: guard byte %zu after the tensor was overwritten (0x%02x)", desc, what, i,
                  img[lead + body + i]);
}

cl_mem cu_buffer_from(const void *bytes, size_t size)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clpool_context_cl_context(cu_ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                              (void *)bytes, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu) failed: %d", size, (int)err);
    return m;
}

cl_mem cu_zero_buffer(size_t size)
{
    void *zeros = calloc(1, size);
    ck_assert_ptr_nonnull(zeros);
    cl_mem m = cu_buffer_from(zeros, size);
    free(zeros);
    return m;
}

void cu_read_back(cl_command_queue q, cl_mem m, void *dst, size_t size, const char *desc)
{
    const cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, dst, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "%s: clEnqueueReadBuffer failed: %d", desc, (int)err);
}

void cu_assert_buffer_unchanged(cl_command_queue q, cl_mem m, const void *expect, size_t size, const char *what,
                                const char *desc)
{
    unsigned char *after = malloc(size);
    ck_assert_ptr_nonnull(after);
    cu_read_back(q, m, after, size, desc);
    ck_assert_msg(memcmp(after, expect, size) == 0, "%s: the %s buffer changed", desc, what);
    free(after);
}

/* --------------------------------------------------------------- events */

cl_event cu_user_event(void)
{
    cl_int err;
    cl_event ev = clCreateUserEvent(clpool_context_cl_context(cu_ctx), &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return ev;
}

/* CL_EVENT_COMMAND_EXECUTION_STATUS of `ev`; asserts that the query succeeds. */
static cl_int event_status(cl_event ev)
{
    cl_int exec = -1;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL), CL_SUCCESS);
    return exec;
}

void cu_assert_pending(cl_command_queue q, cl_event ev, const char *fmt, ...)
{
    clFlush(q);
    if (event_status(ev) != CL_COMPLETE) return;
    char what[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ck_abort_msg("%s completed before its wait list", what);
}

void cu_wait_done(cl_command_queue q, cl_event ev, const char *desc)
{
    if (!ev) {
        ck_assert_int_eq(clFinish(q), CL_SUCCESS);
        return;
    }
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    const cl_int exec = event_status(ev);
    ck_assert_msg(exec == CL_COMPLETE, "%s: event status %d after wait", desc, (int)exec);
}

/* ------------------------------------------------------------- statuses */

void cu_assert_ok(clpool_status st, const char *call, const char *desc)
{
    ck_assert_msg(st == CLPOOL_SUCCESS, "%s: %s: %s: %s", desc, call, clpool_status_string(st), clpool_last_error());
}

void cu_assert_status(const char *name, const char *fn, clpool_status got, clpool_status want, const char *message)
{
    const char *msg = clpool_last_error();
    ck_assert_msg(got == want, "%s: %s status %s, expected %s (%s)", name, fn ? fn : "call", clpool_status_string(got),
                  clpool_status_string(want), msg);
    if (want == CLPOOL_SUCCESS) return;
    if (fn)
        ck_assert_msg(strstr(msg, fn) && strstr(msg, message), "%s: message \"%s\" lacks \"%s\" or \"%s\"", name, msg,
                      fn, message);
    else
        ck_assert_msg(strstr(msg, message) != NULL, "%s: message \"%s\" lacks \"%s\"", name, msg, message);
}

void cu_assert_enqueue_status(const char *name, const char *fn, clpool_status got, cl_event ev, clpool_status want,
                              const char *message)
{
    cu_assert_status(name, fn, got, want, message);
    if (want == CLPOOL_SUCCESS) {
        ck_assert_ptr_nonnull(ev);
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
    } else {
        ck_assert_msg(ev == NULL, "%s: a failed call returned an event", name);
    }
}

void cu_assert_shape_eq(const clpool_shape *lib, const clpool_shape *ref, const char *desc)
{
    ck_assert_msg(lib->rank == ref->rank, "%s: output rank %d, reference %d", desc, (int)lib->rank, (int)ref->rank);
    for (int32_t a = 0; a < ref->rank; ++a)
        cu_expect(lib->dims[a] == ref->dims[a], "%s: output dim %d: library %lld, reference %lld", desc, (int)a,
                  (long long)lib->dims[a], (long long)ref->dims[a]);
}

cl_uint cu_context_refcount(cl_context c)
{
    cl_uint n = 0;
    ck_assert_int_eq(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}

cl_uint cu_queue_refcount(cl_command_queue q)
{
    cl_uint n = 0;
    ck_assert_int_eq(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}

static cl_uint context_count(void *c) { return cu_context_refcount((cl_context)c); }
static cl_uint queue_count(void *q) { return cu_queue_refcount((cl_command_queue)q); }

/* count(obj) once it reaches `want`, polling every 10 ms for up to 2 s. */
static cl_uint settled_count(cl_uint (*count)(void *), void *obj, cl_uint want)
{
    cl_uint n = count(obj);
    for (int i = 0; i < 200 && n != want; ++i) {
        const struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
        n = count(obj);
    }
    return n;
}

cl_uint cu_settled_context_refcount(cl_context c, cl_uint want) { return settled_count(context_count, c, want); }
cl_uint cu_settled_queue_refcount(cl_command_queue q, cl_uint want) { return settled_count(queue_count, q, want); }

void cu_assert_context_computes(clpool_context *ctx, const char *desc)
{
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    cu_assert_ok(clpool_maxpool_params_init(&p, 1, k), "clpool_maxpool_params_init", desc);
    const clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    float out[3];
    int64_t idx[3];
    cu_assert_ok(clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, out, idx), "clpool_maxpool_host", desc);
    ck_assert_msg(out[0] == 5 && out[1] == 5 && out[2] == 3 && idx[0] == 1 && idx[1] == 1 && idx[2] == 3,
                  "%s: wrong MaxPool result", desc);
}

double cu_global_pool_tolerance(clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_FLOAT64: return 1e-12;
    case CLPOOL_FLOAT16: return 2e-3;
    case CLPOOL_BFLOAT16: return 1e-2;
    default: return 1e-5;
    }
}

double cu_smallest_normal(clpool_dtype dtype)
{
    return dtype == CLPOOL_FLOAT64 ? DBL_MIN : dtype == CLPOOL_FLOAT16 ? 0x1p-14 : FLT_MIN;
}

void cu_tally_add(cu_tally *t, int wrong, const char *why)
{
    ++t->cases;
    if (wrong == 0) return;
    printf("FAILED %s\n", why);
    fflush(stdout); /* a failing Check child exits without flushing */
    if (t->failed++ == 0) snprintf(t->first, sizeof t->first, "%s", why);
}

void cu_tally_check(const cu_tally *t)
{
    ck_assert_msg(t->failed == 0, "%d of %d cases failed; first: %s", t->failed, t->cases, t->first);
}
