/*
 * Mechanics shared by the Check suites: the OpenCL context fixture, TCase and
 * SRunner boilerplate, guarded buffer images, event and status assertions,
 * and test data every op suite uses (dtype lists, NaN bit patterns).
 *
 * A guarded image is laid out as [lead sentinel bytes][body][CU_GUARD
 * sentinel bytes]: the lead is the byte offset a call is given, the trailing
 * guard catches writes past the tensor.
 *
 * The helpers assert with Check (ck_assert*), so they belong in tests,
 * fixtures and the code those call; a failure is reported at the helper's
 * line, with the case named in the message (`desc` / `name` arguments).
 */
#ifndef CLPOOL_TESTS_CHECK_UTIL_H
#define CLPOOL_TESTS_CHECK_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include <clpool/clpool.h>

#define CU_SENTINEL 0xA5 /* fill byte of guarded images; no generated element consists of it */
#define CU_GUARD 64      /* sentinel bytes after every tensor of a guarded image */
#define CU_TIMEOUT 600   /* seconds per test */
#define CU_N_NAN 5       /* NaN bit patterns per float dtype, see cu_nan_patterns() */

/* ck_assert_msg for loops over elements: Check records the line of every passing
 * ck_assert with a write(2), millions of system calls over a large tensor; this
 * reports a failure the same way and records nothing when the condition holds. */
#define cu_expect(cond, ...)                                                                                           \
    do {                                                                                                               \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                                                        \
    } while (0)

/** Bytes of a guarded image with `lead` bytes before a `body`-byte tensor. */
#define CU_IMAGE_BYTES(lead, body) ((lead) + (body) + CU_GUARD)

/* --------------------------------------------------- fixture and suites */

/** The fixture's context; NULL outside tests of a cu_tcase(..., with_ctx = 1). */
extern clpool_context *cu_ctx;
/** A caller-owned queue on cu_ctx's device, out-of-order when the device allows, to test the `queue` argument. */
extern cl_command_queue cu_own_queue;
/** 1 if cu_own_queue is out-of-order (some tests report which kind they ran on). */
extern int cu_own_queue_ooo;

/** A context on the default device; fails the test with the library's reason instead of going on with NULL. */
clpool_context *cu_context_create(void);

/**
 * A TCase named `name` in `s` with the CU_TIMEOUT limit. with_ctx adds a
 * checked fixture that creates cu_ctx and cu_own_queue inside the forked
 * test, never in main() (an OpenCL context does not survive fork), and
 * releases them afterwards.
 */
TCase *cu_tcase(Suite *s, const char *name, int with_ctx);
/** Runs every test of `s` in the given output mode and frees the runner; returns the exit status for main(). */
int cu_run_suite(Suite *s, enum print_output mode);

/**
 * Test selection: with CLPOOL_CHECK_TESTS set (names separated by spaces, as
 * tests/CMakeLists.txt sets it for a subset such as the rusticl portability
 * run), suites add only the tests so named, and cu_run_suite() fails if a
 * name matched no test, so that a renamed test cannot drop out of a subset
 * unnoticed. Unset, every test is added. tcase_add_test and
 * tcase_add_loop_test go through it.
 */
void cu_add_test(TCase *tc, const TTest *tt, int start, int end);
#undef tcase_add_test
#define tcase_add_test(tc, tt) cu_add_test((tc), (tt), 0, 1)
#undef tcase_add_loop_test
#define tcase_add_loop_test(tc, tt, start, end) cu_add_test((tc), (tt), (start), (end))

/** Directory for scratch files: $CLPOOL_TEST_TMP (set by ctest to the build tree), or "." when run by hand. */
const char *cu_tmpdir(void);
/** An executable sh script `body` in cu_tmpdir(), named after `name` and the process; its path (valid until
 * the next call). For CLPOOL_BUILDER's stand-ins. */
const char *cu_write_script(const char *name, const char *body);

/** 1 if the fixture's device has cl_khr_fp64 (float64 cases cannot run without it). */
int cu_device_has_fp64(void);
/** 1 if `dtype` can run on the fixture's device; else prints a note naming `what`, so that a skip is visible. */
int cu_dtype_runs(clpool_dtype dtype, const char *what);

/* ------------------------------------------------------------ test data */

/** All twelve clpool dtypes, floats first, for suites that cover every dtype. */
extern const clpool_dtype cu_all_dtypes[12];
/** The four float dtypes: float32, float64, float16, bfloat16. */
extern const clpool_dtype cu_float_dtypes[4];
/* MaxPool's dtypes (and MaxUnpool's): the floats, int8, uint8. */
extern const clpool_dtype cu_maxpool_dtypes[6];
/**
 * Whether `dtype` runs item `i` of a test's series of windows or layouts. The
 * dtypes of a pair whose kernels differ only in the element type (float16 and
 * bfloat16; int8 and uint8, and so on) take alternate items, so each item runs
 * once per pair: each program costs its build, most of a suite's time. Other
 * dtypes run every item.
 */
int cu_pair_runs(clpool_dtype dtype, size_t i);
/** How many of a catalogue of n (windows, layouts) `dtype` draws: half, rounded up, for a dtype of a pair. */
int cu_pair_share(clpool_dtype dtype, int n);

/**
 * CU_N_NAN NaN bit patterns of a float dtype (quiet, negative, with payload,
 * signalling, negative signalling; NULL for integer dtypes): NaN propagation
 * must copy exact bits, so tests use more than one encoding.
 */
const uint64_t *cu_nan_patterns(clpool_dtype dtype);

/* ------------------------------------------------------ failure messages */

/** printf-append to buf[len] that never overruns (output is cut at len - 1); builds case descriptions. */
void cu_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Appends "[v0,v1,...]" (n values) to buf[len] like cu_append(): shapes and attribute lists in messages. */
void cu_append_dims(char *buf, size_t len, const int64_t *v, int32_t n);

/* ------------------------------------------------------ guarded images */

/**
 * A malloc'd guarded image of CU_IMAGE_BYTES(lead, body) CU_SENTINEL bytes,
 * with `data` (if not NULL) copied into the body; the caller frees it. The
 * sentinel around the body shows any write outside the tensor.
 */
unsigned char *cu_sentinel_image(size_t lead, const void *data, size_t body);
/** 1 if all n bytes at p are CU_SENTINEL: what an element the op never wrote looks like. */
int cu_all_sentinel(const unsigned char *p, size_t n);
/** Asserts that the lead and the trailing guard of an image are intact (nothing written outside the tensor). */
void cu_assert_guards(const unsigned char *img, size_t lead, size_t body, const char *what, const char *desc);

/** A READ_WRITE buffer of cu_ctx initialised from `size` bytes at `bytes` (e.g. a guarded image). */
cl_mem cu_buffer_from(const void *bytes, size_t size);
/** A READ_WRITE buffer of cu_ctx holding `size` zero bytes, for calls whose data does not matter. */
cl_mem cu_zero_buffer(size_t size);
/** Blocking read of the first `size` bytes of `m` through `q` into dst; asserts success. */
void cu_read_back(cl_command_queue q, cl_mem m, void *dst, size_t size, const char *desc);
/** Reads `m` back through `q` and asserts that its first `size` bytes still equal `expect`: ops must not write inputs. */
void cu_assert_buffer_unchanged(cl_command_queue q, cl_mem m, const void *expect, size_t size, const char *what,
                                const char *desc);

/* ------------------------------------------------------------ tallies */

/* Suites that run cases to the end and fail once with the first failure: cu_tally_add counts a case
 * (wrong: its number of wrong values, why: its description), prints a failing one; cu_tally_check fails
 * the test if any did. */
typedef struct cu_tally {
    int cases, failed;
    char first[1024];
} cu_tally;
void cu_tally_add(cu_tally *t, int wrong, const char *why);
void cu_tally_check(const cu_tally *t);

/* --------------------------------------------------------------- events */

/** A user event of cu_ctx (a closed gate for wait lists); asserts success. */
cl_event cu_user_event(void);
/**
 * Flushes `q` and asserts that `ev` has not completed: a command gated by a
 * closed user event must wait for it. The printf-style `fmt` names the command.
 */
void cu_assert_pending(cl_command_queue q, cl_event ev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/**
 * Waits for `ev` and asserts that it completed (an event may also end in an
 * error status); without an event, finishes `q` instead. Does not release `ev`.
 */
void cu_wait_done(cl_command_queue q, cl_event ev, const char *desc);

/* ------------------------------------------------------------- statuses */

/** Asserts that the clpool call `call` succeeded; the message names `desc`, the status and clpool_last_error(). */
void cu_assert_ok(clpool_status st, const char *call, const char *desc);
/* Global Average/Lp pools: relative tolerance per dtype against a wider
 * reference, and the smallest normal value (the floor of a plane's scale). */
double cu_global_pool_tolerance(clpool_dtype dtype);
double cu_smallest_normal(clpool_dtype dtype);
/* MaxPool 2 on [1,1,4] floats through ctx, checked: proof that a context still computes after failures. */
void cu_assert_context_computes(clpool_context *ctx, const char *desc);
/**
 * Asserts that the call `fn` returned `want`; call it right after the call,
 * as it reads clpool_last_error(). If `want` is an error, the error message
 * must contain `message` and, unless fn is NULL, fn. `name` names the case.
 */
void cu_assert_status(const char *name, const char *fn, clpool_status got, clpool_status want, const char *message);
/**
 * cu_assert_status() for an enqueue call that was asked for an event: after
 * a success the event must exist and complete (it is released); a failed
 * call must not return one.
 */
void cu_assert_enqueue_status(const char *name, const char *fn, clpool_status got, cl_event ev, clpool_status want,
                              const char *message);
/** Asserts that a library output shape equals the reference's, rank and every dim. */
void cu_assert_shape_eq(const clpool_shape *lib, const clpool_shape *ref, const char *desc);

/* ------------------------------------------------------ reference counts */

/** CL_CONTEXT_REFERENCE_COUNT / CL_QUEUE_REFERENCE_COUNT (asserts the query succeeds): retain/release balance tests. */
cl_uint cu_context_refcount(cl_context c);
cl_uint cu_queue_refcount(cl_command_queue q);
/**
 * The context's / queue's reference count once it reaches `want`, polling for
 * up to 2 s: drivers (rusticl, and PoCL for queues) drop the references
 * finished commands hold on their own worker thread, shortly after clFinish
 * returns. A real leak never settles.
 */
cl_uint cu_settled_context_refcount(cl_context c, cl_uint want);
cl_uint cu_settled_queue_refcount(cl_command_queue q, cl_uint want);

#endif /* CLPOOL_TESTS_CHECK_UTIL_H */
