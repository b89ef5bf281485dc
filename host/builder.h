/*
 * The background build's own process (builder.c; docs/design.md, "Tiers"): on PoCL a kernel's code
 * generation holds a lock every kernel launch of the process takes, so the build thread has the helper
 * clpool-builder compile and run a plan first; PoCL's kernel cache then hands the context the results.
 */
#ifndef CLPOOL_BUILDER_H
#define CLPOOL_BUILDER_H

#include "plan.h"

/* One request, as the build thread writes it to the helper's stdin. Both sides are the same library file,
 * so the plan's layout is the same; its pointers (program parts, kernel name, define names) are cleared and
 * cross as the kernel's index in its family and the names' text. */
#define CLPOOL__BUILDER_MAGIC "clpool build request 1"
#define CLPOOL__BUILDER_NAME_MAX 48
#define CLPOOL__BUILDER_LAUNCHES 3 /* launch[0], launch[1], fallback */
typedef struct clpool__builder_wire {
    int kernel; /* index into clpool__families[path].kernels */
    char names[CLPOOL__OPTIONS_DEFINES][CLPOOL__BUILDER_NAME_MAX];
} clpool__builder_wire;
typedef struct clpool__builder_request {
    char magic[sizeof CLPOOL__BUILDER_MAGIC];
    uint64_t plan_size;
    char platform[sizeof ((clpool_device_info *)0)->platform_name];
    char device[sizeof ((clpool_device_info *)0)->device_name];
    size_t bytes[CLPOOL__ROLES];
    clpool__plan plan;
    clpool__builder_wire wire[CLPOOL__BUILDER_LAUNCHES];
} clpool__builder_request;

/* Have the helper build and run `plan` once on zeroed buffers of `bytes` (by role); 1 when it did, 0 when
 * there is no helper to use here (not PoCL, CLPOOL_BUILDER=off, no helper file, a library linked into the
 * program) or it failed or was stopped (*stopping set: the context is going; the helper is killed). */
int clpool__builder_run(const clpool_context *ctx, const clpool__plan *plan, const size_t *bytes,
                        const int *stopping);

/* The helper's work, in the library that started it (clpool-builder loads it by path): read one request
 * from `fd`, build and run its plan on the same device. Exit status: 0 done, 1 failed, 2 not a request of
 * this library. Exported for the helper alone; not part of the API. */
CLPOOL_API int clpool_builder_serve(int fd);

#endif
