/*
 * Counts the OpenCL programs each test builds from source. tests/CMakeLists.txt
 * preloads this object (LD_PRELOAD) into every OpenCL test, so the count
 * follows Check's forked children and the clpool tool's processes alike.
 *
 * Each successful clBuildProgram of a program made from source appends one
 * line, "<FNV-1a of the source> <options>", to $CLPOOL_PROGRAM_LOG (O_APPEND:
 * whole lines from concurrent processes). A program made from a binary (the
 * binary cache) compiles nothing and is not counted. The first process of a
 * test (the one ctest started) prints "programs built: N (D distinct)" at
 * exit; tests/program_count.cmake adds up the whole suite.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OWNER_VAR "CLPOOL_PROGRAM_LOG_OWNER"

typedef cl_int (*build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                           void(CL_CALLBACK *)(cl_program, void *), void *);
typedef cl_int (*info_fn)(cl_program, cl_program_info, size_t, void *, size_t *);

static void *next_symbol(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (!sym) {
        fprintf(stderr, "program_count: no OpenCL library provides %s\n", name);
        abort();
    }
    return sym;
}

/* FNV-1a of the program's source; 0 when it has none (made from a binary). */
static uint64_t source_hash(cl_program program)
{
    info_fn info;
    void *sym = next_symbol("clGetProgramInfo");
    memcpy(&info, &sym, sizeof sym);
    size_t size = 0;
    if (info(program, CL_PROGRAM_SOURCE, 0, NULL, &size) != CL_SUCCESS || size <= 1) return 0;
    char *text = malloc(size);
    uint64_t h = 0;
    if (text && info(program, CL_PROGRAM_SOURCE, size, text, NULL) == CL_SUCCESS) {
        h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i + 1 < size; ++i) h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    }
    free(text);
    return h;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *device_list,
                                               const char *options,
                                               void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    build_fn build;
    void *sym = next_symbol("clBuildProgram");
    memcpy(&build, &sym, sizeof sym);
    const uint64_t hash = source_hash(program);
    const cl_int err = build(program, num_devices, device_list, options, pfn_notify, user_data);
    const char *log = getenv("CLPOOL_PROGRAM_LOG");
    if (err == CL_SUCCESS && hash && log && *log) {
        char line[4096];
        const int n = snprintf(line, sizeof line, "%016llx %s\n", (unsigned long long)hash, options ? options : "");
        const int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0 && n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n)
            fprintf(stderr, "program_count: cannot append to %s\n", log);
        if (fd >= 0) close(fd);
    }
    return err;
}

/* The process ctest started owns the test's count: its children inherit the variable. */
__attribute__((constructor)) static void claim_owner(void)
{
    if (getenv(OWNER_VAR)) return;
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv(OWNER_VAR, pid, 1);
}

static int compare_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* At the owner's exit: builds and distinct programs in the log. */
__attribute__((destructor)) static void report(void)
{
    const char *owner = getenv(OWNER_VAR), *log = getenv("CLPOOL_PROGRAM_LOG");
    if (!owner || !log || !*log || strtol(owner, NULL, 10) != (long)getpid()) return;
    FILE *f = fopen(log, "r");
    size_t n = 0, cap = 0, distinct = 0;
    char **lines = NULL, buf[4096];
    while (f && fgets(buf, sizeof buf, f)) {
        if (n == cap) {
            char **grown = realloc(lines, (cap = cap ? 2 * cap : 256) * sizeof *lines);
            if (!grown) break;
            lines = grown;
        }
        if (!(lines[n] = strdup(buf))) break;
        ++n;
    }
    if (f) fclose(f);
    if (n) qsort(lines, n, sizeof *lines, compare_lines);
    for (size_t i = 0; i < n; ++i) distinct += i == 0 || strcmp(lines[i], lines[i - 1]) != 0;
    for (size_t i = 0; i < n; ++i) free(lines[i]);
    free(lines);
    fprintf(stderr, "programs built: %zu (%zu distinct)\n", n, distinct);
}
