/*
 * The background build's own process (builder.c; docs/design.md, "Tiers"): on PoCL a kernel's code
 * generation holds a lock every kernel launch of the process takes, so the build thread has the helper
 * clpool-builder compile and run a plan first; PoCL's kernel cache then hands the context the results.
 */
#ifndef CLPOOL_BUILDER_H
#define CLPOOL_BUILDER_H

#include "plan.h"

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
