/*
 * The kernel paths a process reaches, for LD_PRELOAD: every
 * clEnqueueNDRangeKernel is named by its kernel function and its program's
 * build options ("maxpool2d -DDT_INT8 -DWITH_INDICES=1 ..."), and each name
 * new to the process is appended as one line to $CLPOOL_PATH_TRACE.
 * tests/check_paths.sh compares such traces (the rusticl portability subset
 * against the list of paths the whole suite reaches there). No effect
 * without CLPOOL_PATH_TRACE; the call itself is forwarded unchanged.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch_info.h"

#define TRACE_LINE 1200
#define TRACE_SEEN 1024

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);

static struct {
    pthread_mutex_t lock;
    enqueue_fn real;
    unsigned long seen[TRACE_SEEN]; /* hashes of the lines written (a full table writes every line again) */
    int n_seen;
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

static unsigned long hash(const char *s)
{
    unsigned long h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h;
}

/* Whether the line is new to this process (and now remembered). */
static int first_time(const char *line)
{
    const unsigned long h = hash(line);
    for (int i = 0; i < tr.n_seen; ++i)
        if (tr.seen[i] == h) return 0;
    if (tr.n_seen < TRACE_SEEN) tr.seen[tr.n_seen++] = h;
    return 1;
}

static void trace(cl_command_queue q, cl_kernel k, const char *file)
{
    char name[64], options[1024], line[TRACE_LINE];
    launch_info(q, k, name, sizeof name, options, sizeof options);
    const int n = snprintf(line, sizeof line, "%s %s\n", name, options);
    if (n <= 0 || n >= (int)sizeof line) return;
    pthread_mutex_lock(&tr.lock);
    if (first_time(line)) {
        /* one write per line on an O_APPEND descriptor: lines of concurrent processes do not interleave */
        const int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (write(fd, line, (size_t)n) != n) fprintf(stderr, "cl_path_trace: short write to %s\n", file);
            close(fd);
        }
    }
    pthread_mutex_unlock(&tr.lock);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t *global_work_offset,
                                                       const size_t *global_work_size, const size_t *local_work_size,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event)
{
    pthread_mutex_lock(&tr.lock);
    if (!tr.real) {
        void *sym = dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
        if (!sym) abort(); /* no OpenCL library after us: nothing can work */
        memcpy(&tr.real, &sym, sizeof sym);
    }
    pthread_mutex_unlock(&tr.lock);
    const char *file = getenv("CLPOOL_PATH_TRACE");
    if (file && *file) trace(command_queue, kernel, file);
    return tr.real(command_queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                   num_events_in_wait_list, event_wait_list, event);
}
