/*
 * The OpenCL interposer of cl_interpose.h. Each definition below has the
 * exact prototype of CL/cl.h, so the executable's (or LD_PRELOAD's) symbol
 * wins over the ICD loader's for libclpool too; drivers dispatch internally
 * and never come back through these.
 *
 * Built with -DCI_PRELOAD as a shared object, it arms itself from the
 * environment: CLPOOL_FAULT_AT=n fails the n-th OpenCL call of the process
 * (counted from the first; CLPOOL_FAULT_ONLY restricts it to one function)
 * and names the failed call on stderr, for sweeps over a whole program such
 * as the clpool tool.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "cl_interpose.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CI_MAX_TRACKED 4096

typedef struct tracked {
    const void *handle;
    const char *kind;    /* "cl_mem", "cl_event", ... */
    const char *made_by; /* the creating call */
    const char *phase;
    long balance; /* creates + retains - releases */
} tracked;

static struct {
    pthread_mutex_t lock;
    int armed;
    int calls;
    int fail_at;
    cl_int error;
    const char *only;
    const char *phase;
    const char *failed;
    int threads;      /* ci_threads: 0 every thread, 1 the arming thread only, 2 every other thread */
    pthread_t armer;
    tracked objects[CI_MAX_TRACKED];
    int n_objects;
    int overflow;
    char kernels[1024]; /* kernels enqueued while armed, space-separated */
    const char *hook_name; /* ci_after: the function after whose calls hook runs */
    void (*hook)(void);
} ci = {.lock = PTHREAD_MUTEX_INITIALIZER};

void *ci_real(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (!sym) {
        fprintf(stderr, "cl_interpose: no OpenCL library provides %s\n", name);
        abort();
    }
    return sym;
}

/* The real `fn`, looked up once per call site. */
#define REAL(fn)                                                                                                      \
    static __typeof__(&fn) real_;                                                                                     \
    if (!real_) {                                                                                                     \
        void *sym_ = ci_real(#fn);                                                                                    \
        memcpy(&real_, &sym_, sizeof sym_);                                                                           \
    }

#ifdef CI_PRELOAD
static void ci_trace_release(const char *what);
#endif

/* Whether calls of the current thread are counted (ci_threads); caller holds ci.lock. */
static int counted_thread(void)
{
    return ci.threads == 0 || (ci.threads == 1) == (pthread_equal(pthread_self(), ci.armer) != 0);
}

/* Counts this call of `name` and answers whether it is the one to fail. */
static int should_fail(const char *name)
{
    pthread_mutex_lock(&ci.lock);
    int fail = 0;
    if (ci.armed && counted_thread() && (!ci.only || strcmp(ci.only, name) == 0) &&
        (++ci.calls == ci.fail_at || ci.fail_at < 0)) {
        fail = 1;
        ci.failed = name;
    }
    pthread_mutex_unlock(&ci.lock);
#ifdef CI_PRELOAD
    if (fail) fprintf(stderr, "cl_interpose: failing call %d, %s\n", ci.fail_at, name);
    if (fail) ci_trace_release("the failure");
#endif
    return fail;
}

static tracked *find(const void *handle)
{
    for (int i = 0; i < ci.n_objects; ++i)
        if (ci.objects[i].handle == handle) return &ci.objects[i];
    return NULL;
}

/* A creation: tracked while armed (objects made outside are the caller's own). */
static void made(const void *handle, const char *kind, const char *by)
{
    if (!handle) return;
    pthread_mutex_lock(&ci.lock);
    if (ci.armed) {
        tracked *t = find(handle);
        if (t) { /* a handle whose object we saw die came back */
            t->balance = 1;
        } else if (ci.n_objects < CI_MAX_TRACKED) {
            ci.objects[ci.n_objects++] = (tracked){handle, kind, by, ci.phase, 1};
        } else {
            ci.overflow = 1;
        }
        if (t) t->made_by = by, t->phase = ci.phase;
    }
    pthread_mutex_unlock(&ci.lock);
}

static void rebalance(const void *handle, long delta)
{
    pthread_mutex_lock(&ci.lock);
    tracked *t = find(handle);
    if (t && (t->balance += delta) <= 0) *t = ci.objects[--ci.n_objects]; /* gone: forget it */
    pthread_mutex_unlock(&ci.lock);
}

void ci_arm(const char *phase, const char *only, int fail_at, cl_int error)
{
    pthread_mutex_lock(&ci.lock);
    ci.armed = 1;
    ci.calls = 0;
    ci.fail_at = fail_at;
    ci.error = error;
    ci.only = only;
    ci.phase = phase;
    ci.failed = NULL;
    ci.kernels[0] = '\0';
    ci.threads = 0;
    ci.armer = pthread_self();
    pthread_mutex_unlock(&ci.lock);
}

void ci_threads(int which)
{
    pthread_mutex_lock(&ci.lock);
    ci.threads = which;
    pthread_mutex_unlock(&ci.lock);
}

void ci_disarm(void)
{
    pthread_mutex_lock(&ci.lock);
    ci.armed = 0;
    pthread_mutex_unlock(&ci.lock);
}

int ci_calls(void) { return ci.calls; }

const char *ci_kernels(void) { return ci.kernels; }

#ifndef CI_PRELOAD
/* Appends the kernel's function name to ci.kernels while armed. */
static void log_kernel(cl_kernel kernel)
{
    char name[64] = "";
    REAL(clGetKernelInfo)
    if (real_(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) != CL_SUCCESS) snprintf(name, sizeof name, "?");
    pthread_mutex_lock(&ci.lock);
    const size_t n = strlen(ci.kernels);
    if (ci.armed && counted_thread() && n + strlen(name) + 2 < sizeof ci.kernels)
        snprintf(ci.kernels + n, sizeof ci.kernels - n, "%s%s", n ? " " : "", name);
    pthread_mutex_unlock(&ci.lock);
}
#endif

const char *ci_failed_call(void) { return ci.failed; }

int ci_live(const char *kind)
{
    pthread_mutex_lock(&ci.lock);
    int n = ci.overflow ? CI_MAX_TRACKED : 0; /* an overflowing table cannot prove anything was released */
    for (int i = 0; i < ci.n_objects; ++i) n += !kind || strcmp(ci.objects[i].kind, kind) == 0;
    pthread_mutex_unlock(&ci.lock);
    return n;
}

void ci_describe_live(char *buf, size_t len)
{
    pthread_mutex_lock(&ci.lock);
    size_t used = 0;
    buf[0] = '\0';
    if (ci.overflow) used += (size_t)snprintf(buf, len, "more than %d objects tracked; ", CI_MAX_TRACKED);
    for (int i = 0; i < ci.n_objects && used < len; ++i) {
        const tracked *t = &ci.objects[i];
        used += (size_t)snprintf(buf + used, len - used, "%s%s made by %s in '%s', balance %ld", i ? "; " : "",
                                 t->kind, t->made_by, t->phase ? t->phase : "?", t->balance);
    }
    pthread_mutex_unlock(&ci.lock);
}

void ci_forget(void)
{
    pthread_mutex_lock(&ci.lock);
    ci.n_objects = 0;
    ci.overflow = 0;
    pthread_mutex_unlock(&ci.lock);
}

void ci_after(const char *name, void (*hook)(void))
{
    pthread_mutex_lock(&ci.lock);
    ci.hook_name = name;
    ci.hook = hook;
    pthread_mutex_unlock(&ci.lock);
}

/* Runs the ci_after hook if `name` is its function. */
static void after_call(const char *name)
{
    pthread_mutex_lock(&ci.lock);
    void (*hook)(void) = ci.hook_name && strcmp(ci.hook_name, name) == 0 ? ci.hook : NULL;
    pthread_mutex_unlock(&ci.lock);
    if (hook) hook();
}

/* ------------------------------------------------------------ the entry points */

/* A creating call: fail it through errcode_ret, or forward and track what it made. */
#define CREATE(kind, fn, ...)                                                                                         \
    do {                                                                                                              \
        REAL(fn)                                                                                                      \
        if (should_fail(#fn)) {                                                                                       \
            if (errcode_ret) *errcode_ret = ci.error;                                                                 \
            return NULL;                                                                                              \
        }                                                                                                             \
        __typeof__(real_(__VA_ARGS__)) obj_ = real_(__VA_ARGS__);                                                     \
        made(obj_, kind, #fn);                                                                                        \
        return obj_;                                                                                                  \
    } while (0)

/* A call returning cl_int: fail it, or forward (then the ci_after hook). */
#define CALL(fn, ...)                                                                                                 \
    do {                                                                                                              \
        REAL(fn)                                                                                                      \
        if (should_fail(#fn)) return ci.error;                                                                        \
        const cl_int err_ = real_(__VA_ARGS__);                                                                       \
        after_call(#fn);                                                                                              \
        return err_;                                                                                                  \
    } while (0)

#ifdef CI_PRELOAD
static void ci_trace_kernel(cl_event *event, cl_event *mine);
#endif

/* An enqueue: fail it, or forward and track the event it returns. */
#define ENQUEUE(fn, ...)                                                                                              \
    do {                                                                                                              \
        REAL(fn)                                                                                                      \
        if (should_fail(#fn)) return ci.error;                                                                        \
        const cl_int err_ = real_(__VA_ARGS__);                                                                       \
        if (err_ == CL_SUCCESS && event) made(*event, "cl_event", #fn);                                               \
        return err_;                                                                                                  \
    } while (0)

/* Retain/release: counted for the balance, never failed. */
#define BALANCE(fn, handle, delta)                                                                                    \
    do {                                                                                                              \
        REAL(fn)                                                                                                      \
        const cl_int err_ = real_(handle);                                                                            \
        if (err_ == CL_SUCCESS) rebalance(handle, delta);                                                             \
        return err_;                                                                                                  \
    } while (0)

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms)
{
    CALL(clGetPlatformIDs, num_entries, platforms, num_platforms);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
    CALL(clGetPlatformInfo, platform, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                               cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices)
{
    CALL(clGetDeviceIDs, platform, device_type, num_entries, devices, num_devices);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret)
{
    CALL(clGetDeviceInfo, device, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                                                    const cl_device_id *devices,
                                                    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t,
                                                                                  void *),
                                                    void *user_data, cl_int *errcode_ret)
{
    CREATE("cl_context", clCreateContext, properties, num_devices, devices, pfn_notify, user_data, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context context) { BALANCE(clRetainContext, context, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context context)
{
#ifdef CI_PRELOAD
    ci_trace_release("clReleaseContext");
#endif
    BALANCE(clReleaseContext, context, -1);
}

CL_API_ENTRY cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
    CALL(clGetContextInfo, context, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context, cl_device_id device,
                                                               cl_command_queue_properties properties,
                                                               cl_int *errcode_ret)
{
    CREATE("cl_command_queue", clCreateCommandQueue, context, device, properties, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q) { BALANCE(clRetainCommandQueue, q, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q) { BALANCE(clReleaseCommandQueue, q, -1); }

CL_API_ENTRY cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue command_queue, cl_command_queue_info param_name,
                                                      size_t param_value_size, void *param_value,
                                                      size_t *param_value_size_ret)
{
    CALL(clGetCommandQueueInfo, command_queue, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                                               cl_int *errcode_ret)
{
    CREATE("cl_mem", clCreateBuffer, context, flags, size, host_ptr, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem memobj) { BALANCE(clRetainMemObject, memobj, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj)
{
#ifdef CI_PRELOAD
    ci_trace_release("clReleaseMemObject");
#endif
    BALANCE(clReleaseMemObject, memobj, -1);
}

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name, size_t param_value_size,
                                                   void *param_value, size_t *param_value_size_ret)
{
    CALL(clGetMemObjectInfo, memobj, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                                              const size_t *lengths, cl_int *errcode_ret)
{
    CREATE("cl_program", clCreateProgramWithSource, context, count, strings, lengths, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(cl_context context, cl_uint num_devices,
                                                              const cl_device_id *device_list, const size_t *lengths,
                                                              const unsigned char **binaries, cl_int *binary_status,
                                                              cl_int *errcode_ret)
{
    CREATE("cl_program", clCreateProgramWithBinary, context, num_devices, device_list, lengths, binaries,
           binary_status, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program program) { BALANCE(clRetainProgram, program, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program program)
{
#ifdef CI_PRELOAD
    ci_trace_release("clReleaseProgram");
#endif
    BALANCE(clReleaseProgram, program, -1);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                                               const char *options,
                                               void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    CALL(clBuildProgram, program, num_devices, device_list, options, pfn_notify, user_data);
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
    CALL(clGetProgramInfo, program, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                      cl_program_build_info param_name, size_t param_value_size,
                                                      void *param_value, size_t *param_value_size_ret)
{
    CALL(clGetProgramBuildInfo, program, device, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name, cl_int *errcode_ret)
{
    CREATE("cl_kernel", clCreateKernel, program, kernel_name, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) { BALANCE(clRetainKernel, kernel, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) { BALANCE(clReleaseKernel, kernel, -1); }

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                               const void *arg_value)
{
    CALL(clSetKernelArg, kernel, arg_index, arg_size, arg_value);
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info param_name, size_t param_value_size,
                                                         void *param_value, size_t *param_value_size_ret)
{
    CALL(clGetKernelWorkGroupInfo, kernel, device, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
    CALL(clWaitForEvents, num_events, event_list);
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name, size_t param_value_size,
                                               void *param_value, size_t *param_value_size_ret)
{
    CALL(clGetEventInfo, event, param_name, param_value_size, param_value, param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event event) { BALANCE(clRetainEvent, event, 1); }
CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event event) { BALANCE(clReleaseEvent, event, -1); }

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue command_queue) { CALL(clFlush, command_queue); }
CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue command_queue) { CALL(clFinish, command_queue); }

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                    cl_bool blocking_read, size_t offset, size_t size, void *ptr,
                                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                    cl_event *event)
{
    ENQUEUE(clEnqueueReadBuffer, command_queue, buffer, blocking_read, offset, size, ptr, num_events_in_wait_list,
            event_wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                     cl_bool blocking_write, size_t offset, size_t size,
                                                     const void *ptr, cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list, cl_event *event)
{
    ENQUEUE(clEnqueueWriteBuffer, command_queue, buffer, blocking_write, offset, size, ptr, num_events_in_wait_list,
            event_wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue command_queue, cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset, size_t size,
                                                    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                    cl_event *event)
{
    ENQUEUE(clEnqueueFillBuffer, command_queue, buffer, pattern, pattern_size, offset, size, num_events_in_wait_list,
            event_wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t *global_work_offset,
                                                       const size_t *global_work_size, const size_t *local_work_size,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event)
{
#ifdef CI_PRELOAD
    cl_event mine = NULL; /* the trace needs every kernel's event */
    if (!event) event = &mine;
    ci_trace_kernel(NULL, NULL);
    REAL(clEnqueueNDRangeKernel)
    if (should_fail("clEnqueueNDRangeKernel")) return ci.error;
    const cl_int err = real_(command_queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                             num_events_in_wait_list, event_wait_list, event);
    if (err == CL_SUCCESS) {
        if (event != &mine) made(*event, "cl_event", "clEnqueueNDRangeKernel");
        ci_trace_kernel(event, &mine);
    }
    return err;
#else
    log_kernel(kernel);
    ENQUEUE(clEnqueueNDRangeKernel, command_queue, kernel, work_dim, global_work_offset, global_work_size,
            local_work_size, num_events_in_wait_list, event_wait_list, event);
#endif
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list, cl_event *event)
{
    ENQUEUE(clEnqueueMarkerWithWaitList, command_queue, num_events_in_wait_list, event_wait_list, event);
}

#ifdef CI_PRELOAD
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

/* A crash after the injected failure prints its stack (CLPOOL_FAULT_BACKTRACE=1), then dies as it would have. */
static void ci_crash_report(int sig)
{
    void *frames[64];
    const int n = backtrace(frames, 64);
    static const char head[] = "cl_interpose: fatal signal; stack of the crashing thread:\n";
    if (write(2, head, sizeof head - 1) < 0) _exit(128 + sig);
    backtrace_symbols_fd(frames, n, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* CLPOOL_FAULT_TRACE=1: at each clReleaseProgram and clReleaseContext, the state of the last kernel enqueued (still queued or
 * running there means the program tears down under a command in flight). */
static cl_event last_kernel;

static void ci_trace_kernel(cl_event *event, cl_event *mine)
{
    const char *trace = getenv("CLPOOL_FAULT_TRACE");
    if (!event || !trace || *trace != '1') {
        if (mine && *mine) clReleaseEvent(*mine);
        return;
    }
    if (last_kernel) clReleaseEvent(last_kernel);
    last_kernel = *event;
    if (event != mine) clRetainEvent(last_kernel); /* the caller's event: keep our own reference */
}

static void ci_trace_release(const char *what)
{
    if (!last_kernel) return;
    cl_int state = CL_COMPLETE;
    REAL(clGetEventInfo)
    real_(last_kernel, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL);
    fprintf(stderr, "cl_interpose: %s with the last kernel %s\n", what,
            state == CL_COMPLETE ? "complete" : state == CL_RUNNING ? "RUNNING" : state == CL_SUBMITTED ? "SUBMITTED"
                                                                         : state == CL_QUEUED      ? "QUEUED"
                                                                                                   : "failed");
}

/* Armed for the whole process from the environment (see the top of this file). */
__attribute__((constructor)) static void ci_preload_arm(void)
{
    const char *at = getenv("CLPOOL_FAULT_AT"), *bt = getenv("CLPOOL_FAULT_BACKTRACE");
    if (at && *at) ci_arm("process", getenv("CLPOOL_FAULT_ONLY"), atoi(at), CL_OUT_OF_RESOURCES);
    if (bt && *bt == '1') {
        signal(SIGSEGV, ci_crash_report);
        signal(SIGBUS, ci_crash_report);
        signal(SIGABRT, ci_crash_report);
    }
}
#endif
