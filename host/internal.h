/* Internal declarations shared by the host files; never installed. */
#ifndef CLPOOL_INTERNAL_H
#define CLPOOL_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>

#include "clpool/clpool.h"

/* ------------------------------------------------------------- errors */

/* Record a formatted message for clpool_last_error() and return `status`. */
clpool_status clpool__fail(clpool_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Record "what failed: CL_NAME (code)" and return CLPOOL_ERROR_OPENCL. */
clpool_status clpool__cl_fail(cl_int err, const char *what);
/* Append text to the current thread's message (e.g. a build log). */
void clpool__append_error(const char *text);
const char *clpool__cl_error_name(cl_int err);

/* One-cleanup-label style: run `expr`, on failure keep its status and jump. */
#define CLPOOL_TRY(expr)                         \
    do {                                         \
        status = (expr);                         \
        if (status != CLPOOL_SUCCESS) goto cleanup; \
    } while (0)

#define CLPOOL_REQUIRE_NOT_NULL(ptr, fn)                                              \
    do {                                                                              \
        if ((ptr) == NULL)                                                            \
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, #ptr); \
    } while (0)

/* ------------------------------------------------------------- dtypes */

typedef struct clpool__dtype_info {
    clpool_dtype dtype;
    const char *name;   /* "float32" */
    const char *macro;  /* kernel -D macro selecting the type, "DT_FLOAT32" */
    size_t size;
} clpool__dtype_info;

/* NULL if `dtype` is not a clpool_dtype value. */
const clpool__dtype_info *clpool__dtype_lookup(clpool_dtype dtype);

/* ------------------------------------------------------------- shapes */

/* Validate rank range and dims >= 0 and the element count fits; `what` names the argument. */
clpool_status clpool__check_shape(const clpool_shape *shape, const char *fn, const char *what,
                                  int64_t *elements);
/* a*b with overflow detection (both >= 0). Returns 0 on overflow. */
int clpool__mul_ok(int64_t a, int64_t b, int64_t *out);
/* Format dims as "[2,3,4]" into buf. */
const char *clpool__shape_str(const clpool_shape *shape, char *buf, size_t len);

/* ---------------------------------------------------- programs + kernels */

typedef struct clpool__program clpool__program;
typedef struct clpool__tier_jobs clpool__tier_jobs;

/* A context's scratch slot (scratch.c): a buffer and its last use. */
#define CLPOOL__SCRATCH_SLOTS 4
typedef struct clpool__scratch {
    cl_mem mem;        /* NULL until first needed */
    size_t bytes;
    cl_event last_use; /* the last command that used it (NULL: none) */
    int taken;         /* leased by a call that has not put it back */
} clpool__scratch;

/* A context's program-binary cache (binary_cache.c), settled at creation. */
#define CLPOOL__CACHE_PATH_MAX 4096
typedef struct clpool__cache {
    int dir_fd;                 /* the checked directory, open for the context's life; -1 when off */
    clpool_cache_state state;
    char directory[CLPOOL__CACHE_PATH_MAX];       /* as configured, for the query */
    char absolute[CLPOOL__CACHE_PATH_MAX];        /* made absolute: mkstemp templates */
    char reason[CLPOOL__CACHE_PATH_MAX + 160];
    uint64_t hits, misses, refused, writes;       /* atomic: builds run on several threads */
} clpool__cache;

struct clpool_context {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;     /* one reference we own; NULL until first needed when adopted without one */
    clpool_device_info info;
    size_t local_size;          /* work-group size budget for this device */
    size_t max_item_size[3];    /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    uint32_t vector_bytes;      /* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT x 4: the SIMD register width */
    int cpu;                    /* clpool__cpu_device(info.type): CPU paths (grouped global pools, chunked
                                 * lanes, Max's long work-items, streamed stores) */
    int cpu_simd;               /* a CPU driver that runs a work-item's vectors as its SIMD and a work-group as a
                                 * loop over its items (PoCL: native float width > 1); not Mesa's llvmpipe
                                 * (width 1), which vectorises across work-items as GPUs do */
    int tiered;                 /* $CLPOOL_TIERED (default 1): a key's first call runs the first tier */
    pthread_mutex_t lock;       /* guards queue creation, the program list, kernel pools, scratch, build jobs */
    pthread_cond_t changed;     /* broadcast when a program build or a background job ends */
    clpool__tier_jobs *jobs;    /* the background build thread and its queue (tiers.c); NULL until needed */
    clpool__program *programs;  /* singly linked cache, keyed by (source, options) */
    clpool__scratch scratch[CLPOOL__SCRATCH_SLOTS];
    clpool__cache cache;
};

/*
 * A kernel checked out of the context's pool: exclusive to the caller until
 * clpool__kernel_put(), so concurrent clSetKernelArg calls never share one.
 */
typedef struct clpool__arg_memo clpool__arg_memo;
typedef struct clpool__kernel {
    cl_kernel kernel;
    clpool__program *program;
    const char *name;           /* kernel function name; a string literal of the caller */
    size_t max_work_group_size;
    clpool__arg_memo *memo;     /* values last set on `kernel` (launch.c) */
} clpool__kernel;

/* A program's build options: the dtype and (name, value) defines, rendered as "-DDT_FLOAT32 -DKH=3 ..." only
 * when a program is built. Every launch writes them to find its program, so a define is two stores, not text. */
#define CLPOOL__OPTIONS_DEFINES 24
#define CLPOOL__OPTIONS_TEXT_MAX 1024
typedef struct clpool__options {
    clpool_dtype dtype;
    int count; /* CLPOOL__OPTIONS_DEFINES + 1 once a define did not fit: clpool__kernel_get then fails */
    const char *names[CLPOOL__OPTIONS_DEFINES]; /* string literals of the callers */
    int64_t values[CLPOOL__OPTIONS_DEFINES];
} clpool__options;
/* Start with the dtype's macro: "-DDT_FLOAT32". */
void clpool__options_start(clpool__options *o, clpool_dtype dtype);
/* Add " -D<name>=<value>"; `name` must outlive the context (a string literal). */
void clpool__options_define(clpool__options *o, const char *name, int64_t value);

/* Build (once per context) the program of `parts` with `options`, then
 * check out `kernel_name`. `parts` is a static NULL-terminated list of files
 * under kernels/, concatenated after common.h and args.h (which start every
 * program); its last file names the program's kernel family, so a program
 * compiles only its family and the headers that family uses. */
clpool_status clpool__kernel_get(clpool_context *ctx, const char *const *parts, const clpool__options *options,
                                 const char *kernel_name, clpool__kernel *out);
void clpool__kernel_put(clpool_context *ctx, clpool__kernel *k);
void clpool__programs_release(clpool_context *ctx);
/* Where a key's tier-up stands, per (program, kernel): NEW (not asked yet), QUEUED (a background build of it
 * is queued or under way), READY (built, or held by the binary cache: calls use it), FAILED (the background
 * build failed: the next call builds it itself and reports the error). docs/design.md, "Tiers". */
typedef enum clpool__tier { CLPOOL__TIER_NEW, CLPOOL__TIER_QUEUED, CLPOOL__TIER_READY, CLPOOL__TIER_FAILED } clpool__tier;
/* The tier of `kernel` of the program of (parts, options), recording the ask (READY at once where the binary
 * cache holds the program, or where no ask can be recorded); with `set`, first sets it to `state`. The caller
 * holds ctx->lock. */
clpool__tier clpool__kernel_tier(clpool_context *ctx, const char *const *parts, const clpool__options *options,
                                 const char *kernel, int set, clpool__tier state);
/* Background builds (tiers.c): stop the context's build thread (a build under way ends first, queued ones are
 * dropped) before its programs go. */
void clpool__tiers_stop(clpool_context *ctx);
/* A first tier serves calls of inputs up to this size only: beyond it the op's own time rivals the compile
 * that the first tier saves (docs/design.md, "Tiers"). */
#define CLPOOL__FIRST_TIER_MAX_BYTES ((uint64_t)64 << 20)

/* Embedded kernel sources (generated at build time from kernels/). */
typedef struct clpool__source {
    const char *name;  /* file name under kernels/: "maxpool2d.cl" */
    const unsigned char *text;
    size_t size;
} clpool__source;
extern const clpool__source clpool__sources[];
extern const size_t clpool__source_count;

/* ------------------------------------------------- program-binary cache */

/* 64-bit FNV-1a continuing from h (start with 0xcbf29ce484222325). */
uint64_t clpool__fnv1a(uint64_t h, const void *data, size_t len);
/* PoCL with its kernel cache on (its default): the driver keeps compiled kernels itself, so clpool's binary
 * cache stays off by default there (a binary query compiles the program again) and the background build's
 * helper process can hand its results over. */
int clpool__pocl_kernel_cache_on(const clpool_context *ctx);
/* Choose and check the context's cache directory (creating it 0700 if
 * missing) and fill ctx->cache; never fails, an unusable one turns it off. */
void clpool__cache_open(clpool_context *ctx);
void clpool__cache_close(clpool_context *ctx);
/* A built program for `key` from the on-disk cache, or NULL (never an error). */
cl_program clpool__cache_load(clpool_context *ctx, const char *key, size_t key_len, const char *options);
/* Whether the cache holds an entry for `key` (a regular file of the user; its content is checked at the load). */
int clpool__cache_has(clpool_context *ctx, const char *key, size_t key_len);
/* Store a freshly built program under `key`; failures are ignored. */
void clpool__cache_store(clpool_context *ctx, const char *key, size_t key_len, cl_program program);

/* ------------------------------------------------------------ scratch */

/* A scratch buffer leased for one call: a context slot (slot >= 0) or, when
 * every slot is in use, a buffer of the call's own (slot -1). */
typedef struct clpool__scratch_lease {
    cl_mem mem;
    int slot;
} clpool__scratch_lease;
/* Lease at least `bytes` of device memory for commands on queue q; errors
 * name `fn` and the buffer's `purpose`. */
clpool_status clpool__scratch_get(clpool_context *ctx, cl_command_queue q, size_t bytes, const char *fn,
                                  const char *purpose, clpool__scratch_lease *lease);
/* Give the lease back: `last_use` (may be NULL if nothing was enqueued) is
 * the event of the last command that uses the buffer. */
void clpool__scratch_put(clpool_context *ctx, const clpool__scratch_lease *lease, cl_event last_use);
/* The end of a two-pass op (first and last: the passes' events, NULL if not
 * enqueued): gives the lease back (if any) with the last enqueued pass as its
 * last use, and hands `last` to *event if the caller asked for it (else
 * releases it). */
void clpool__scratch_done(clpool_context *ctx, const clpool__scratch_lease *lease, cl_event first, cl_event last,
                          cl_event *event);
/* Free the slots no call holds: every slot at context release; under the
 * context's lock, clpool_context_trim. */
void clpool__scratch_release_all(clpool_context *ctx);

/* ------------------------------------------------------------- launch */

/* The queue to use: `queue` if given (must belong to ctx), else the context's. */
clpool_status clpool__resolve_queue(clpool_context *ctx, cl_command_queue queue, const char *fn,
                                    cl_command_queue *out);

/* Check buffer is not NULL, offset aligned to `elem_size`, and offset + bytes <= CL_MEM_SIZE;
 * *mem_size (if not NULL) gets CL_MEM_SIZE. */
clpool_status clpool__check_buffer(cl_mem mem, size_t offset, int64_t elements, size_t elem_size,
                                   const char *fn, const char *what, size_t *mem_size);

/* ------------------------------------------------------------------ views */

/* A view's dims as a shape. */
void clpool__view_shape(const clpool_view *view, clpool_shape *shape);
/* The bytes a checked view's elements reach: from *first, *bytes of them (0: the view has no element). */
void clpool__view_bytes(const clpool_view *view, size_t esize, size_t *first, size_t *bytes);
/* Whether a view's elements lie as a contiguous tensor's (row-major; a dim of one element any stride). */
int clpool__view_contiguous(const clpool_view *view);
/* Sorts the dims order[0..n) by the magnitude of their strides (strides[d]), largest first or smallest
 * first; stable, so equal strides keep their order (an insertion sort: at most CLPOOL_MAX_RANK dims). */
void clpool__order_by_stride(int32_t *order, int32_t n, const int64_t *strides, int largest_first);
/* A view of elements of `esize` bytes: dims valid (and `expect`'s where not NULL), the buffer valid, offset
 * aligned, every element reached inside the buffer, strides that reach within 2^63 elements, and for an
 * `output` strides >= 0 with distinct elements. Errors name `fn` and the view (`what`). */
clpool_status clpool__view_check(const clpool_view *view, size_t esize, const clpool_shape *expect, int output,
                                 const char *fn, const char *what);

/* Enqueue `k` over items[0..dims-1] work-items (explicit local sizes; dims 0 and 1 round up, so kernels
 * bounds-check them). On cpu_simd devices a work-group is cpu_local items whatever the shape (1 for long loops,
 * else CLPOOL__LOCAL_BUDGET): PoCL compiles a work-group function per local size, so no compile per shape. */
#define CLPOOL__LOCAL_BUDGET 0
clpool_status clpool__enqueue_kernel(clpool_context *ctx, cl_command_queue queue, clpool__kernel *k, cl_uint dims,
                             const uint64_t *items, size_t cpu_local, cl_uint num_wait, const cl_event *wait,
                             cl_event *event);

/* Whether a kernel that moves `moved` bytes should store its whole output vectors around the cache
 * (-DSTREAM_STORES): when the bytes exceed 1.5x the device's planned cache `cache_bytes`, so the output would
 * be evicted unread and its lines are then not read for ownership first; on CPU drivers whose work-item
 * vectors are their SIMD (`cpu_simd`, PoCL) only, as elsewhere (SPIR: llvmpipe) the kernels compile the
 * option away (common.h) and asking for it would only build one more program. */
static inline int clpool__stream_stores_for(int cpu_simd, uint64_t cache_bytes, uint64_t moved)
{
    return cpu_simd && cache_bytes > 0 && moved > cache_bytes + cache_bytes / 2;
}

/* A call with no work: honour the wait list and hand back an event. */
clpool_status clpool__enqueue_nothing(cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                                      cl_event *event);

/* Validate the (num_wait, wait) pair like OpenCL does. */
clpool_status clpool__check_wait_list(cl_uint num_wait, const cl_event *wait, const char *fn);

/* Set by-value kernel argument `index` or fail with a message naming it; a
 * value equal to the one last set on this kernel is not set again. */
clpool_status clpool__set_arg(clpool__kernel *k, cl_uint index, size_t size, const void *value);
/* Set buffer argument `index`: always set (see launch.c). */
clpool_status clpool__set_buffer_arg(clpool__kernel *k, cl_uint index, cl_mem mem);


/* The memo of a new kernel (NULL when out of memory), and its release. */
clpool__arg_memo *clpool__arg_memo_create(void);
void clpool__arg_memo_release(clpool__arg_memo *memo);

/* Require fp64 on the device for float64. */
clpool_status clpool__check_dtype_device(const clpool_context *ctx, clpool_dtype dtype, const char *fn);

/* The kernels' macro for a dtype ("DT_FLOAT32"; "DT_UNKNOWN" for none). */
const char *clpool__dtype_macro(clpool_dtype dtype);

/* Pick the device for clpool_context_create() (spec, else CLPOOL_DEVICE, else first GPU, else first). */
clpool_status clpool__select_device(const char *spec, cl_platform_id *platform, cl_device_id *device);

/* Whether a device of this CL_DEVICE_TYPE takes the CPU paths: the CPU bit
 * without the GPU bit. Oclgrind's simulator reports every type bit (CPU, GPU,
 * accelerator, default); clpool__select_device already takes it as a GPU,
 * and its path choices follow, so that the GPU paths run under its checks. */
int clpool__cpu_device(cl_device_type type);

/* Probe one device's facts. */
clpool_status clpool__device_probe(cl_platform_id platform, cl_device_id device, clpool_device_info *info);

#endif
