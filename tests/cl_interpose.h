/*
 * An interposer over every OpenCL entry point libclpool calls, for fault
 * sweeps (SQLite's method: fail the n-th call, for every n). The
 * definitions in cl_interpose.c take precedence over the ICD loader's for
 * the whole process (the executable, or LD_PRELOAD), forward to the real
 * ones (dlsym RTLD_NEXT) and, while armed, count calls and fail one.
 *
 * Leaks are counted, not guessed: every object created while armed
 * (buffers, events an enqueue returns, kernels, programs, queues, contexts)
 * is tracked with creates + retains - releases, whenever those happen; a
 * balance left above zero once its owner is gone is a leak.
 *
 * Retain and release calls are counted for the balance but never failed
 * (a failed release cannot be recovered from, and the library does not
 * check them). The library is not changed for testing.
 */
#ifndef CLPOOL_TESTS_CL_INTERPOSE_H
#define CLPOOL_TESTS_CL_INTERPOSE_H

#include <clpool/clpool.h>

/**
 * Count calls from now on and fail the `fail_at`-th (1-based; 0 = none; negative = every one)
 * with `error`. `only` (e.g. "clCreateBuffer") restricts both counting and
 * failing to that function; NULL counts every call. `phase` names the case
 * in leak reports.
 */
void ci_arm(const char *phase, const char *only, int fail_at, cl_int error);

/**
 * Which threads' calls the armed interposer counts, fails and logs kernels of, until the next ci_arm():
 * 0 every thread (ci_arm's default), 1 the thread that armed it only, 2 every other thread (a context's
 * background build thread).
 */
void ci_threads(int which);

/**
 * Run `hook` after every successful or failed forwarded call of `name` (a function returning cl_int), on the
 * calling thread, until ci_after(NULL, NULL): a test's way to change the process between the library's
 * OpenCL calls (a file-size limit set once the binary is read, say). Independent of ci_arm.
 */
void ci_after(const char *name, void (*hook)(void));

/** Stop counting and failing; tracking of already-made objects continues. */
void ci_disarm(void);

/** Calls counted since ci_arm(). */
int ci_calls(void);

/** The function names of the kernels enqueued since ci_arm(), space-separated (up to 1 KiB). */
const char *ci_kernels(void);

/** The function whose call was failed since ci_arm(), or NULL if the fail_at-th call never came. */
const char *ci_failed_call(void);

/** Objects created while armed whose balance is still above zero (optionally of one kind, "cl_event" etc.; NULL = all). */
int ci_live(const char *kind);

/**
 * Writes up to `len` bytes describing the first live tracked objects
 * ("cl_mem made by clCreateBuffer in <phase>, balance 1; ...") for leak messages.
 */
void ci_describe_live(char *buf, size_t len);

/** Forget every tracked object (their balance is no longer checked). */
void ci_forget(void);

/** The real function behind an interposed name, for callers that must bypass counting. */
void *ci_real(const char *name);

#endif
