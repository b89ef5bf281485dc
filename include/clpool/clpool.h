/*
 * clpool — OpenCL kernels for the ONNX pooling family.
 *
 * The whole public API lives in this header. Conventions:
 *   - Every function that can fail returns a clpool_status. On failure a
 *     detailed one-line message ("which argument, which rule") is available
 *     from clpool_last_error() on the calling thread.
 *   - Shapes are int64 dims in ONNX order (N, C, D1, ..., Dn), row-major.
 *   - Enqueue functions never block: they take the caller's queue (NULL =
 *     the context's queue), cl_mem buffers with BYTE offsets, an event wait
 *     list, and return an optional event that completes when the op is done.
 *   - Objects are opaque; what clpool creates it releases, what it adopts it
 *     retains and releases exactly once. Events returned to the caller are
 *     the caller's to release. Shapes, params and host arrays are only read
 *     during the call (nothing is kept).
 *   - Threads: every function may be called from any thread. A context may
 *     be shared by many threads at once (program builds are serialised per
 *     context; each call uses its own cl_kernel). A tensor must not be
 *     uploaded/downloaded from two threads at once. clpool_context_release
 *     must not race with other calls on the same context.
 *   - Errors: NULL pointers, bad enums/attributes -> INVALID_ARGUMENT; bad
 *     ranks/dims/broadcasting -> INVALID_SHAPE; size products past int64 or
 *     size_t -> OVERFLOW; cl_mem too small for offset + shape ->
 *     BUFFER_TOO_SMALL; dtype not allowed for the op -> UNSUPPORTED_DTYPE;
 *     float64 without cl_khr_fp64 -> UNSUPPORTED_DEVICE; kernel compile
 *     failure -> BUILD_FAILED (log in the message); any other OpenCL failure
 *     -> OPENCL naming the call and code. A failed call returns no event and
 *     leaves the context usable; validation failures enqueue nothing (a
 *     multi-pass op failing in a later pass may leave earlier passes queued).
 *   - No function prints anything.
 */
#ifndef CLPOOL_CLPOOL_H
#define CLPOOL_CLPOOL_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLPOOL_STATIC_DEFINE)
#define CLPOOL_API
#elif defined(_WIN32)
#ifdef CLPOOL_BUILDING
#define CLPOOL_API __declspec(dllexport)
#else
#define CLPOOL_API __declspec(dllimport)
#endif
#else
#define CLPOOL_API __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------- version */

#define CLPOOL_VERSION_MAJOR 0
#define CLPOOL_VERSION_MINOR 1
#define CLPOOL_VERSION_PATCH 0
#define CLPOOL_VERSION_NUMBER \
    (CLPOOL_VERSION_MAJOR * 10000 + CLPOOL_VERSION_MINOR * 100 + CLPOOL_VERSION_PATCH)

/** Runtime version as "MAJOR.MINOR.PATCH" (static storage). */
CLPOOL_API const char *clpool_version_string(void);
/** Runtime version as CLPOOL_VERSION_NUMBER of the library actually loaded. */
CLPOOL_API unsigned clpool_version_number(void);

/* ----------------------------------------------------------------- status */

typedef enum clpool_status {
    CLPOOL_SUCCESS = 0,
    CLPOOL_ERROR_INVALID_ARGUMENT = 1,  /**< NULL pointer, bad enum, bad attribute value */
    CLPOOL_ERROR_INVALID_SHAPE = 2,     /**< wrong rank, negative dim, shapes that do not fit */
    CLPOOL_ERROR_UNSUPPORTED_DTYPE = 3, /**< dtype not allowed for this op */
    CLPOOL_ERROR_UNSUPPORTED_DEVICE = 4,/**< device lacks a needed feature (e.g. cl_khr_fp64) */
    CLPOOL_ERROR_OUT_OF_HOST_MEMORY = 5,
    CLPOOL_ERROR_BUILD_FAILED = 6,      /**< kernel compile failed; the log is in clpool_last_error() */
    CLPOOL_ERROR_OPENCL = 7,            /**< an OpenCL call failed; the message names it and its code */
    CLPOOL_ERROR_NO_DEVICE = 8,         /**< no OpenCL platform/device, or CLPOOL_DEVICE matched none */
    CLPOOL_ERROR_BUFFER_TOO_SMALL = 9,  /**< cl_mem smaller than offset + shape needs */
    CLPOOL_ERROR_OVERFLOW = 10          /**< a size product overflows 64-bit / size_t */
} clpool_status;

/** Short constant name of a status ("CLPOOL_ERROR_INVALID_SHAPE"); never NULL. */
CLPOOL_API const char *clpool_status_string(clpool_status status);

/**
 * Detailed message of the last failing clpool call on the calling thread
 * (thread-local storage; "" if none failed yet). Valid until the next clpool
 * call on the same thread. Successful calls do not clear it.
 */
CLPOOL_API const char *clpool_last_error(void);

/*
 * When an enqueue call fails part-way. Multi-pass ops (Max of more than 4
 * inputs, two-pass global pools, two-pass 3-D MaxPool) enqueue pass by pass,
 * so an OpenCL failure in a later pass returns an error after earlier passes
 * were enqueued. Then:
 *   - no event is returned (`*event` is not written), and the library has
 *     released its own events and kept its scratch until those passes end;
 *   - the earlier passes still run: they read the inputs and write the
 *     output (and Indices), whose contents are unspecified;
 *   - before reading or reusing those buffers, and before releasing them,
 *     the queue or the context, the caller waits for the queue it passed
 *     (clFinish; the context's queue is clpool_context_cl_queue()), as no
 *     event covers the passes left queued;
 *   - the context stays usable: the same call may be made again.
 * The blocking *_host helpers do this wait themselves before they return.
 */

/* ------------------------------------------------------------------ dtypes */

/** Element types; the values equal ONNX TensorProto.DataType. */
typedef enum clpool_dtype {
    CLPOOL_FLOAT32 = 1,
    CLPOOL_UINT8 = 2,
    CLPOOL_INT8 = 3,
    CLPOOL_UINT16 = 4,
    CLPOOL_INT16 = 5,
    CLPOOL_INT32 = 6,
    CLPOOL_INT64 = 7,
    CLPOOL_FLOAT16 = 10,
    CLPOOL_FLOAT64 = 11,
    CLPOOL_UINT32 = 12,
    CLPOOL_UINT64 = 13,
    CLPOOL_BFLOAT16 = 16 /**< stored as the upper 16 bits of a float32 */
} clpool_dtype;

/** Bytes per element; 0 for a value that is not a clpool_dtype. */
CLPOOL_API size_t clpool_dtype_size(clpool_dtype dtype);
/** Lower-case name ("float32", "bfloat16"); "unknown" otherwise. */
CLPOOL_API const char *clpool_dtype_name(clpool_dtype dtype);

/* ------------------------------------------------------------------ shapes */

/** Largest tensor rank clpool handles (N, C and up to 10 spatial dims). */
#define CLPOOL_MAX_RANK 12
#define CLPOOL_MAX_SPATIAL (CLPOOL_MAX_RANK - 2)

typedef struct clpool_shape {
    int32_t rank;                    /**< 0..CLPOOL_MAX_RANK */
    int64_t dims[CLPOOL_MAX_RANK];   /**< dims[0..rank-1]; the rest is ignored */
} clpool_shape;

/** Number of elements of a shape, or -1 if rank/dims are invalid or the product overflows. */
CLPOOL_API int64_t clpool_shape_elements(const clpool_shape *shape);

/* ------------------------------------------------------------------- views */

/**
 * A tensor in a cl_mem as DLPack describes one: dims in logical order (N, C,
 * spatial for the pools) and each dim's stride in elements, from element
 * (0, ..., 0) at `offset` bytes. A contiguous tensor has row-major strides;
 * channels-last (NHWC, NDHWC, N x spatial x C) has C's stride 1. Inputs may
 * have any strides (0 repeats an element, a negative stride walks back);
 * an output's strides are >= 0 and, taken from the smallest, each exceeds
 * the span of the dims before it, so no two elements share memory. Every
 * element a view reaches lies inside its cl_mem.
 */
typedef struct clpool_view {
    cl_mem mem;
    size_t offset;                    /**< bytes to element (0, ..., 0): a multiple of the element size */
    int32_t rank;                     /**< 0..CLPOOL_MAX_RANK */
    int64_t dims[CLPOOL_MAX_RANK];    /**< dims[0..rank-1] */
    int64_t strides[CLPOOL_MAX_RANK]; /**< elements; strides[0..rank-1] */
} clpool_view;

/** The contiguous (row-major) view of `shape` at `offset` bytes into `mem`. */
CLPOOL_API clpool_status clpool_view_contiguous(clpool_view *view, cl_mem mem, size_t offset,
                                                const clpool_shape *shape);
/**
 * The channels-last view of the logical N x C x D1 x ... x Dn `shape` (rank
 * >= 3) stored as N x D1 x ... x Dn x C at `offset` bytes into `mem`.
 */
CLPOOL_API clpool_status clpool_view_channels_last(clpool_view *view, cl_mem mem, size_t offset,
                                                   const clpool_shape *shape);

/* ----------------------------------------------------------------- devices */

typedef struct clpool_device_info {
    char platform_name[128];
    char device_name[128];
    char device_version[128];      /**< CL_DEVICE_VERSION */
    char opencl_c_version[128];    /**< CL_DEVICE_OPENCL_C_VERSION */
    char driver_version[128];
    cl_device_type type;
    uint32_t compute_units;
    uint64_t global_mem_bytes;
    uint64_t cache_bytes;           /**< CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: unknown); in a context's info, the size
                                         its path choices plan for: $CLPOOL_DEVICE_CACHE_BYTES where set */
    uint64_t max_alloc_bytes;
    uint64_t max_work_group_size;
    uint32_t mem_base_addr_align_bits; /**< CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    int has_fp16;                   /**< cl_khr_fp16 (float16 works either way, see README) */
    int has_fp64;                   /**< cl_khr_fp64: needed for CLPOOL_FLOAT64 */
    cl_platform_id platform;
    cl_device_id device;
} clpool_device_info;

/**
 * Devices are numbered 0..count-1 over all platforms, in platform order, then
 * device order (the numbering `clpool devices` prints).
 */
CLPOOL_API clpool_status clpool_device_count(uint32_t *count);
CLPOOL_API clpool_status clpool_device_get_info(uint32_t index, clpool_device_info *info);

/* ---------------------------------------------------------------- contexts */

/**
 * Holds the cl_context, device, a default queue and the program cache.
 * Kernel programs are built on first use and kept for the context's life.
 * Tiers (CLPOOL_TIERED, read at creation; default 1): the first call of a key
 * (op, dtype, window, strides, path) runs a first tier that compiles fast
 * (exact ops give identical results; global sums may differ in the last
 * bit), a later call its specialised program. Program binaries may also be
 * cached on disk in $CLPOOL_CACHE_DIR (default
 * $XDG_CACHE_HOME/clpool or ~/.cache/clpool, not used on PoCL, which caches
 * compiled kernels itself; "off" disables it). A bad or
 * stale cache entry is rebuilt, never an error. The cache is per user: see
 * clpool_context_cache_info() for when a context refuses a directory.
 */
typedef struct clpool_context clpool_context;

/**
 * Create a context that owns its cl_context and an in-order queue.
 * Device choice: `device_spec` if not NULL, else env CLPOOL_DEVICE, else the
 * first GPU, else the first device. A spec is a device number ("1"), a
 * "PLATFORM:DEVICE" pair ("0:0"), or a case-insensitive substring of
 * "platform device" names ("pthread", "llvmpipe").
 */
CLPOOL_API clpool_status clpool_context_create(const char *device_spec, clpool_context **ctx);

/**
 * Adopt a caller's OpenCL objects. `context` and `device` are required and
 * retained; `queue` may be NULL (clpool then creates its own in-order queue
 * on demand) or a queue of `context`/`device`, which is retained. Released
 * exactly once by clpool_context_release(); nothing else of the caller's is
 * touched.
 */
CLPOOL_API clpool_status clpool_context_create_from_cl(cl_context context, cl_device_id device,
                                                       cl_command_queue queue, clpool_context **ctx);

/**
 * Release a context (NULL is a no-op). Finish your queues first: it waits for
 * none of your commands. A background build under way (see
 * clpool_context_wait_builds) ends first (its helper process is killed);
 * queued ones are dropped.
 */
CLPOOL_API void clpool_context_release(clpool_context *ctx);

/**
 * Free the device memory a context keeps between calls: the scratch buffers
 * of multi-pass ops, at most 4. A call reuses one once the last command that used it is
 * done, or at once on the same in-order queue; it never adds a dependency on
 * another call's commands. Later calls allocate again. A buffer leased by a
 * call still in progress on another thread is kept. NULL is a no-op.
 */
CLPOOL_API void clpool_context_trim(clpool_context *ctx);

/**
 * Build, ahead of time, what later first calls of `dtype` run, so they skip
 * the compile. With tiers on (CLPOOL_TIERED=1, the default): the first tiers
 * of MaxPool, AveragePool, LpPool (p = 2) and the global pools, and Max's
 * programs of 2 inputs (same-shape and broadcast); a key's specialised
 * programs are still built after its first call. With tiers off: the specialised
 * programs of the common cases (MaxPool 3x3/s2/p1 and 2x2/s2 with and without
 * Indices, 1-D k3, 3-D 2x2x2; AveragePool 3x3/s1/p1 and 2x2/s2, LpPool p = 2
 * 3x3/s2; the global pools, one- and two-pass; Max as above). Each only where
 * the op supports the dtype. It runs tiny real ops on the context's queue and
 * waits for them. Unsupported dtype/device combinations are skipped, not
 * errors. Thread-safe; may be called again (built programs are reused).
 */
CLPOOL_API clpool_status clpool_context_warm_up(clpool_context *ctx, clpool_dtype dtype);

/**
 * Wait until the context's background builds are done. With tiers on, a
 * key's first call runs its op's first tier and queues the key's specialised
 * programs for a thread of the context, which builds them and runs the op
 * once on buffers of its own (so that the driver's code generation happens
 * there too); calls use the first tier until that is done, and the
 * specialised programs after. On PoCL the thread first has the helper process
 * clpool-builder (beside the library, or in its clpool/ directory; env
 * CLPOOL_BUILDER: another path, or "off") build and run them, so that no call
 * waits for PoCL's code generation, which holds a lock every launch in the
 * process takes. Nothing needs this call; it serves callers that
 * want every later call on the specialised path (a server after its warm-up
 * requests, a benchmark). Returns at once where nothing is queued.
 * Thread-safe.
 */
CLPOOL_API clpool_status clpool_context_wait_builds(clpool_context *ctx);

/** Device facts of the context's device. */
CLPOOL_API clpool_status clpool_context_device_info(const clpool_context *ctx, clpool_device_info *info);
/**
 * Whether a context uses the on-disk program-binary cache, and if not, why.
 * A program binary is native code on CPU drivers, so the cache is trusted
 * only when no other user can write to it: the directory must belong to the
 * effective user and not be writable by group or others. Otherwise the
 * cache is off for the context, silently (ops build from source).
 */
typedef enum clpool_cache_state {
    CLPOOL_CACHE_ON = 0,                /**< entries are read from and written to the directory */
    CLPOOL_CACHE_OFF_REQUESTED = 1,     /**< CLPOOL_CACHE_DIR is "off" (or "0") */
    CLPOOL_CACHE_OFF_NO_DIRECTORY = 2,  /**< CLPOOL_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset or empty */
    CLPOOL_CACHE_OFF_UNUSABLE = 3,      /**< the directory cannot be created or opened, is not a directory, or its
                                             path is too long */
    CLPOOL_CACHE_OFF_FOREIGN_OWNER = 4, /**< the directory belongs to a user other than the effective one */
    CLPOOL_CACHE_OFF_SHARED = 5,        /**< group or others may write to the directory */
    CLPOOL_CACHE_OFF_DRIVER_CACHES = 6  /**< the default directory on PoCL with its own kernel cache on: PoCL keeps
                                             compiled kernels itself and would compile a program once more to
                                             return its binary; an explicit CLPOOL_CACHE_DIR turns the cache on */
} clpool_cache_state;

/** A context's program-binary cache: its state, settled when the context was created, and its use since. */
typedef struct clpool_cache_info {
    size_t struct_size;       /**< set by the caller to sizeof(clpool_cache_info) */
    clpool_cache_state state;
    const char *directory;    /**< the directory chosen ("" if none); valid until the context is released */
    const char *reason;       /**< one line on why the cache is off ("" when on); same lifetime */
    uint64_t hits;            /**< programs loaded from an entry */
    uint64_t misses;          /**< programs built from source while the cache was on (no usable entry) */
    uint64_t refused;         /**< entries found but not used: not a regular file (a symlink, FIFO, ...), owned
                                   by another user, damaged, stale, or rejected by the driver; the rebuilt
                                   program's entry is then renamed over it */
    uint64_t writes;          /**< entries written (to a new private file, then renamed into place) */
} clpool_cache_info;

/**
 * The context's program-binary cache state and counters. Set
 * `info->struct_size` to sizeof(clpool_cache_info): later versions that grow
 * the struct accept this size and write no more than it.
 */
CLPOOL_API clpool_status clpool_context_cache_info(clpool_context *ctx, clpool_cache_info *info);

/** The context's cl_context / device / default queue (borrowed, not retained). */
CLPOOL_API cl_context clpool_context_cl_context(const clpool_context *ctx);
CLPOOL_API cl_device_id clpool_context_cl_device(const clpool_context *ctx);
CLPOOL_API cl_command_queue clpool_context_cl_queue(clpool_context *ctx);

/* ----------------------------------------------------------------- windows */

typedef enum clpool_auto_pad {
    CLPOOL_AUTO_PAD_NOTSET = 0,
    CLPOOL_AUTO_PAD_SAME_UPPER = 1,
    CLPOOL_AUTO_PAD_SAME_LOWER = 2,
    CLPOOL_AUTO_PAD_VALID = 3
} clpool_auto_pad;

/**
 * The window attributes every windowed op shares (ONNX kernel_shape, strides,
 * dilations, pads, ceil_mode, auto_pad), in the order and meaning of
 * clpool_maxpool_params' first fields. Initialise with
 * clpool_window_params_init(), then change what you need. Arrays have
 * `spatial_rank` meaningful entries; pads are [begin_0..begin_n-1, end_0..end_n-1].
 */
typedef struct clpool_window_params {
    size_t struct_size;                       /**< sizeof(clpool_window_params); set by init */
    int32_t spatial_rank;                     /**< number of kernel dims = input rank - 2 */
    int64_t kernel_shape[CLPOOL_MAX_SPATIAL]; /**< >= 1 */
    int64_t strides[CLPOOL_MAX_SPATIAL];      /**< >= 1, default 1 */
    int64_t dilations[CLPOOL_MAX_SPATIAL];    /**< >= 1, default 1 */
    int64_t pads[2 * CLPOOL_MAX_SPATIAL];     /**< >= 0, default 0; must be 0 unless auto_pad is NOTSET */
    int32_t ceil_mode;                        /**< 0 floor, 1 ceil */
    clpool_auto_pad auto_pad;
} clpool_window_params;

/** Defaults: strides/dilations 1, pads 0, floor mode, NOTSET. */
CLPOOL_API clpool_status clpool_window_params_init(clpool_window_params *params, int32_t spatial_rank,
                                                   const int64_t *kernel_shape);

/* ----------------------------------------------------------------- MaxPool */

/**
 * MaxPool attributes (ONNX opsets 1, 8, 10, 11, 12, 22): the window's
 * (clpool_window_params, field for field) and storage_order. Initialise with
 * clpool_maxpool_params_init(), then change what you need. Arrays have
 * `spatial_rank` meaningful entries; pads are [begin_0..begin_n-1, end_0..end_n-1].
 */
typedef struct clpool_maxpool_params {
    size_t struct_size;                       /**< sizeof(clpool_maxpool_params); set by init */
    int32_t spatial_rank;                     /**< number of kernel dims = input rank - 2 */
    int64_t kernel_shape[CLPOOL_MAX_SPATIAL]; /**< >= 1 */
    int64_t strides[CLPOOL_MAX_SPATIAL];      /**< >= 1, default 1 */
    int64_t dilations[CLPOOL_MAX_SPATIAL];    /**< >= 1, default 1 */
    int64_t pads[2 * CLPOOL_MAX_SPATIAL];     /**< >= 0, default 0; must be 0 unless auto_pad is NOTSET */
    int32_t ceil_mode;                        /**< 0 floor, 1 ceil */
    clpool_auto_pad auto_pad;
    int32_t storage_order;                    /**< Indices layout: 0 row-major, 1 column-major */
} clpool_maxpool_params;

/** Defaults: strides/dilations 1, pads 0, floor mode, NOTSET, storage_order 0. */
CLPOOL_API clpool_status clpool_maxpool_params_init(clpool_maxpool_params *params, int32_t spatial_rank,
                                                    const int64_t *kernel_shape);

/**
 * Pure host shape inference: output (and Indices) shape of MaxPool, after
 * validating every attribute against the input shape. Also rejects attribute
 * sets that leave some window without a single in-bounds tap.
 */
CLPOOL_API clpool_status clpool_maxpool_output_shape(const clpool_shape *input,
                                                     const clpool_maxpool_params *params,
                                                     clpool_shape *output);

/**
 * Enqueue MaxPool. dtypes: float32, float64, float16, bfloat16, int8, uint8.
 * `indices` (int64, same shape as output) may be NULL. Byte offsets must be
 * multiples of the element size (8 for indices). The wait list is honoured
 * and `event` (if not NULL) receives an event completing with the op, even
 * when the output is empty. Some shapes use a scratch buffer the context
 * keeps (clpool_context_trim); where it cannot be allocated, the op runs
 * without one.
 */
CLPOOL_API clpool_status clpool_enqueue_maxpool(clpool_context *ctx, cl_command_queue queue,
                                                const clpool_maxpool_params *params, clpool_dtype dtype,
                                                const clpool_shape *input_shape,
                                                cl_mem input, size_t input_offset,
                                                cl_mem output, size_t output_offset,
                                                cl_mem indices, size_t indices_offset,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/**
 * MaxPool on views (clpool_view): the input, the output (its dims those
 * clpool_maxpool_output_shape gives) and the optional Indices (NULL: none;
 * int64, the output's dims) each with its own strides. Indices are ONNX's
 * whatever the layout: `(n*C + c) * prod(spatial) + offset` in the logical
 * order, as for contiguous tensors. Results are bit-identical to the
 * contiguous call on the same values. Contiguous views take the contiguous
 * call's kernels, channels-last views (C's stride 1 in every view) kernels
 * that vectorise across C, any other strides the first tier. Wait list and
 * event as for clpool_enqueue_maxpool.
 */
CLPOOL_API clpool_status clpool_enqueue_maxpool_view(clpool_context *ctx, cl_command_queue queue,
                                                     const clpool_maxpool_params *params, clpool_dtype dtype,
                                                     const clpool_view *input, const clpool_view *output,
                                                     const clpool_view *indices, cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------- AveragePool, LpPool */

/**
 * AveragePool attributes (ONNX opsets 1, 7, 10, 11, 19, 22): the window and
 * count_include_pad. Initialise with clpool_average_pool_params_init(), then
 * change what you need.
 */
typedef struct clpool_average_pool_params {
    size_t struct_size;          /**< sizeof(clpool_average_pool_params); set by init */
    clpool_window_params window; /**< kernel_shape, strides, dilations, pads, ceil_mode, auto_pad */
    int32_t count_include_pad;   /**< 0: divide by the taps inside the input; 1: also those in the pads */
} clpool_average_pool_params;

/** Defaults: the window's (clpool_window_params_init), count_include_pad 0. */
CLPOOL_API clpool_status clpool_average_pool_params_init(clpool_average_pool_params *params, int32_t spatial_rank,
                                                         const int64_t *kernel_shape);

/**
 * LpPool attributes (ONNX opsets 1, 2, 11, 18, 22): the window and p.
 * Initialise with clpool_lp_pool_params_init(), then change what you need.
 */
typedef struct clpool_lp_pool_params {
    size_t struct_size;          /**< sizeof(clpool_lp_pool_params); set by init */
    clpool_window_params window; /**< kernel_shape, strides, dilations, pads, ceil_mode, auto_pad */
    double p;                    /**< > 0 and finite, default 2 (integer p of opsets 2+, float p of opset 1) */
} clpool_lp_pool_params;

/** Defaults: the window's (clpool_window_params_init), p = 2. */
CLPOOL_API clpool_status clpool_lp_pool_params_init(clpool_lp_pool_params *params, int32_t spatial_rank,
                                                    const int64_t *kernel_shape);

/** Shape inference: N x C x the windows' output dims, after validating every attribute. */
CLPOOL_API clpool_status clpool_average_pool_output_shape(const clpool_shape *input,
                                                          const clpool_average_pool_params *params,
                                                          clpool_shape *output);
CLPOOL_API clpool_status clpool_lp_pool_output_shape(const clpool_shape *input, const clpool_lp_pool_params *params,
                                                     clpool_shape *output);

/**
 * Enqueue AveragePool: each output is the sum of its window's taps inside
 * the input divided by their count, or with count_include_pad by the count
 * of taps inside the padded input (explicit or auto pads; never the ceil_mode
 * overrun past the end pads). A window with no tap inside the input gives
 * NaN (0/0) without count_include_pad, 0 with it. dtypes: float32, float64,
 * float16, bfloat16; accumulation as for the global pools (compensated, in
 * float32, float64 for float64, one rounding to the output). Offsets, wait
 * list and event as for clpool_enqueue_maxpool.
 */
CLPOOL_API clpool_status clpool_enqueue_average_pool(clpool_context *ctx, cl_command_queue queue,
                                                     const clpool_average_pool_params *params, clpool_dtype dtype,
                                                     const clpool_shape *input_shape,
                                                     cl_mem input, size_t input_offset,
                                                     cl_mem output, size_t output_offset,
                                                     cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list, cl_event *event);
/**
 * Enqueue LpPool: (sum over the window's taps inside the input of |x|^p)^(1/p);
 * pads add 0, so a window with no tap inside the input gives 0. dtypes,
 * accumulation, offsets, wait list and event as for AveragePool.
 */
CLPOOL_API clpool_status clpool_enqueue_lp_pool(clpool_context *ctx, cl_command_queue queue,
                                                const clpool_lp_pool_params *params, clpool_dtype dtype,
                                                const clpool_shape *input_shape,
                                                cl_mem input, size_t input_offset,
                                                cl_mem output, size_t output_offset,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/**
 * AveragePool and LpPool on views, as clpool_enqueue_maxpool_view: results
 * bit-identical to the contiguous call, except a window that covers whole
 * planes without pads, which a contiguous call sums as the global pools do
 * and a view in the windows' order (within the same error bound).
 */
CLPOOL_API clpool_status clpool_enqueue_average_pool_view(clpool_context *ctx, cl_command_queue queue,
                                                          const clpool_average_pool_params *params, clpool_dtype dtype,
                                                          const clpool_view *input, const clpool_view *output,
                                                          cl_uint num_events_in_wait_list,
                                                          const cl_event *event_wait_list, cl_event *event);
CLPOOL_API clpool_status clpool_enqueue_lp_pool_view(clpool_context *ctx, cl_command_queue queue,
                                                     const clpool_lp_pool_params *params, clpool_dtype dtype,
                                                     const clpool_view *input, const clpool_view *output,
                                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                     cl_event *event);

/* --------------------------------------------------------------- MaxUnpool */

/**
 * Which plane MaxUnpool's indices count positions in, where output_shape
 * differs from the shape the attributes infer (else both are the same):
 * INFERRED, the inferred shape, its block placed at the output's origin
 * (the ONNX node tests and onnx.reference); OUTPUT, the output's own planes,
 * as MaxPool's Indices of an input of the output's shape are (PyTorch's
 * max_unpool, ONNX Runtime).
 */
typedef enum clpool_unpool_indices {
    CLPOOL_UNPOOL_INDICES_INFERRED = 0,
    CLPOOL_UNPOOL_INDICES_OUTPUT = 1
} clpool_unpool_indices;

/**
 * MaxUnpool attributes (ONNX opsets 9, 11, 22): kernel_shape, strides and
 * pads in a clpool_window_params (its dilations, ceil_mode and auto_pad stay
 * at their defaults: MaxUnpool has none), the optional output_shape input,
 * and how indices read under it. Initialise with
 * clpool_max_unpool_params_init(), then change what you need.
 */
typedef struct clpool_max_unpool_params {
    size_t struct_size;            /**< sizeof(clpool_max_unpool_params); set by init */
    clpool_window_params window;   /**< kernel_shape, strides, pads */
    int32_t has_output_shape;      /**< 1: output_shape gives the output's shape (ONNX's third input) */
    clpool_shape output_shape;     /**< N x C x spatial, the rank of X, with X's N and C */
    clpool_unpool_indices indices; /**< default INFERRED (ONNX's node tests) */
} clpool_max_unpool_params;

/** Defaults: the window's (clpool_window_params_init), no output_shape. */
CLPOOL_API clpool_status clpool_max_unpool_params_init(clpool_max_unpool_params *params, int32_t spatial_rank,
                                                       const int64_t *kernel_shape);

/**
 * Shape inference: output_shape where given (rank, N and C must be X's),
 * else N x C x ((X_i - 1) * strides_i + kernel_shape_i - pads_begin_i - pads_end_i).
 */
CLPOOL_API clpool_status clpool_max_unpool_output_shape(const clpool_shape *x_shape,
                                                        const clpool_max_unpool_params *params,
                                                        clpool_shape *output);

/**
 * Enqueue MaxUnpool: the output is zero-filled and each X element is stored
 * at its index (int64, MaxPool's storage_order 0 Indices: `(n*C + c) *
 * prod(spatial) + offset`, spatial as params.indices says). An index outside
 * its own (n, c) plane, or whose position lies outside the output, is
 * skipped: nothing is written for it. Where `skipped` is not
 * NULL, the number of skipped indices is added to the cl_uint at
 * `skipped_offset` bytes (saturating at UINT32_MAX), so a caller can check
 * without waiting. Where several X elements share an index, the output
 * holds one of their values (MaxPool's Indices repeat an index only with its
 * value). dtypes as MaxPool; `indices` has X's shape. Offsets, wait list and
 * event as for clpool_enqueue_maxpool.
 */
CLPOOL_API clpool_status clpool_enqueue_max_unpool(clpool_context *ctx, cl_command_queue queue,
                                                   const clpool_max_unpool_params *params, clpool_dtype dtype,
                                                   const clpool_shape *x_shape,
                                                   cl_mem x, size_t x_offset,
                                                   cl_mem indices, size_t indices_offset,
                                                   cl_mem output, size_t output_offset,
                                                   cl_mem skipped, size_t skipped_offset,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list, cl_event *event);

/**
 * MaxUnpool on views (clpool_view): X, the Indices (int64, X's dims) and the
 * output (the dims clpool_max_unpool_output_shape gives), each with its own
 * strides. Index values are as for clpool_enqueue_max_unpool: `(n*C + c) *
 * prod(spatial) + position` in the logical order, whatever the layouts, so
 * MaxPool's Indices of a channels-last call unpool into a channels-last
 * output. Results are those of the contiguous call on the same values.
 * Contiguous views take the contiguous call's kernels; any other strides a
 * zero pass and a scatter pass that walk each tensor in memory order.
 * Counter, wait list and event as for clpool_enqueue_max_unpool.
 */
CLPOOL_API clpool_status clpool_enqueue_max_unpool_view(clpool_context *ctx, cl_command_queue queue,
                                                        const clpool_max_unpool_params *params, clpool_dtype dtype,
                                                        const clpool_view *x, const clpool_view *indices,
                                                        const clpool_view *output, cl_mem skipped,
                                                        size_t skipped_offset, cl_uint num_events_in_wait_list,
                                                        const cl_event *event_wait_list, cl_event *event);

/* ---------------------------------------------- GlobalMax/Average/LpPool */

/**
 * Output shape of the global pools: N x C x 1 x ... x 1, same rank as the
 * input (any rank >= 3; every axis after the first two is reduced).
 */
CLPOOL_API clpool_status clpool_global_pool_output_shape(const clpool_shape *input, clpool_shape *output);

/**
 * Enqueue GlobalMaxPool / GlobalAveragePool / GlobalLpPool. dtypes: float32,
 * float64, float16, bfloat16. float16/bfloat16/float32 accumulate in float32
 * with compensated (Kahan) summation, float64 in float64; the result is
 * rounded once to the output type (round to nearest even). Max follows the
 * library's NaN rule (NaN propagates); Average and Lp propagate NaN and inf.
 * Large planes may use a scratch buffer the context keeps
 * (clpool_context_trim). Offsets, wait list and event as for
 * clpool_enqueue_maxpool.
 */
CLPOOL_API clpool_status clpool_enqueue_global_max_pool(clpool_context *ctx, cl_command_queue queue,
                                                        clpool_dtype dtype, const clpool_shape *input_shape,
                                                        cl_mem input, size_t input_offset,
                                                        cl_mem output, size_t output_offset,
                                                        cl_uint num_events_in_wait_list,
                                                        const cl_event *event_wait_list, cl_event *event);
CLPOOL_API clpool_status clpool_enqueue_global_average_pool(clpool_context *ctx, cl_command_queue queue,
                                                            clpool_dtype dtype, const clpool_shape *input_shape,
                                                            cl_mem input, size_t input_offset,
                                                            cl_mem output, size_t output_offset,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list, cl_event *event);
/** GlobalLpPool: (sum |x|^p)^(1/p); `p` > 0 and finite (integer p of opsets 2/22, float p of opset 1). */
CLPOOL_API clpool_status clpool_enqueue_global_lp_pool(clpool_context *ctx, cl_command_queue queue, double p,
                                                       clpool_dtype dtype, const clpool_shape *input_shape,
                                                       cl_mem input, size_t input_offset,
                                                       cl_mem output, size_t output_offset,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event);

/**
 * The global pools on views (clpool_view), as clpool_enqueue_maxpool_view:
 * the output's dims N x C x 1 x ... x 1. Contiguous views take the
 * contiguous call; others run as one window over each whole plane (MaxPool,
 * AveragePool, LpPool on views), so GlobalMaxPool's result is the contiguous
 * call's and the sums follow the windows' order, within the same bound.
 */
CLPOOL_API clpool_status clpool_enqueue_global_max_pool_view(clpool_context *ctx, cl_command_queue queue,
                                                             clpool_dtype dtype, const clpool_view *input,
                                                             const clpool_view *output,
                                                             cl_uint num_events_in_wait_list,
                                                             const cl_event *event_wait_list, cl_event *event);
CLPOOL_API clpool_status clpool_enqueue_global_average_pool_view(clpool_context *ctx, cl_command_queue queue,
                                                                 clpool_dtype dtype, const clpool_view *input,
                                                                 const clpool_view *output,
                                                                 cl_uint num_events_in_wait_list,
                                                                 const cl_event *event_wait_list, cl_event *event);
CLPOOL_API clpool_status clpool_enqueue_global_lp_pool_view(clpool_context *ctx, cl_command_queue queue, double p,
                                                            clpool_dtype dtype, const clpool_view *input,
                                                            const clpool_view *output,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list, cl_event *event);

/* --------------------------------------------------------------------- Max */

/**
 * Output shape of the variadic element-wise Max: numpy multidirectional
 * broadcasting of `num_inputs` >= 1 shapes (ranks are right-aligned, size-1
 * dims stretch, a zero-size dim gives an empty output, rank 0 is a scalar).
 */
CLPOOL_API clpool_status clpool_max_output_shape(size_t num_inputs, const clpool_shape *input_shapes,
                                                 clpool_shape *output);

/**
 * Enqueue Max (ONNX opsets 1, 6, 8, 12, 13) over `num_inputs` >= 1 inputs of
 * one dtype (all twelve clpool dtypes). `inputs[i]` + `input_offsets[i]`
 * (bytes) hold input i with shape `input_shapes[i]`. The output may be the
 * same buffer region as an input of the output's shape (in-place). NaN propagates
 * (numpy.maximum); on ties, including -0.0 vs +0.0, the earlier input wins.
 * Wait list and event as for clpool_enqueue_maxpool.
 */
CLPOOL_API clpool_status clpool_enqueue_max(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                            size_t num_inputs, const clpool_shape *input_shapes,
                                            const cl_mem *inputs, const size_t *input_offsets,
                                            cl_mem output, size_t output_offset,
                                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                            cl_event *event);

/**
 * Max on views (clpool_view): inputs of any strides (0 repeats an element,
 * < 0 walks back) broadcast as numpy does to the output's dims; the output's
 * strides >= 0, not overlapping. Dims are taken in the order of the output's
 * strides, so a channels-last output, and inputs laid out as it is (a
 * per-channel 1 x C x 1 x 1 too), run the contiguous call's kernel; other
 * inputs load their lanes one by one. Results are the contiguous call's bit
 * for bit. The output may be exactly one of inputs 0..3 (the same view); any
 * other overlap with an input is refused.
 */
CLPOOL_API clpool_status clpool_enqueue_max_view(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                                 size_t num_inputs, const clpool_view *inputs,
                                                 const clpool_view *output, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------ convenience layer */

/** A device tensor owning its cl_mem (for simple users; enqueue APIs take any cl_mem). */
typedef struct clpool_tensor clpool_tensor;

CLPOOL_API clpool_status clpool_tensor_create(clpool_context *ctx, clpool_dtype dtype,
                                              const clpool_shape *shape, clpool_tensor **tensor);
CLPOOL_API void clpool_tensor_release(clpool_tensor *tensor);
/** A tensor's buffer, dtype, shape and bytes; a NULL tensor gives NULL, 0 (no dtype), NULL and 0. */
CLPOOL_API cl_mem clpool_tensor_mem(const clpool_tensor *tensor);
CLPOOL_API clpool_dtype clpool_tensor_dtype(const clpool_tensor *tensor);
CLPOOL_API const clpool_shape *clpool_tensor_shape(const clpool_tensor *tensor);
CLPOOL_API size_t clpool_tensor_bytes(const clpool_tensor *tensor);
/** Blocking copies of the whole tensor on the context's queue; `bytes` must equal clpool_tensor_bytes(). */
CLPOOL_API clpool_status clpool_tensor_upload(clpool_tensor *tensor, const void *host, size_t bytes);
CLPOOL_API clpool_status clpool_tensor_download(const clpool_tensor *tensor, void *host, size_t bytes);

/**
 * Blocking MaxPool on host arrays: uploads `input`, runs, downloads `output`
 * (sized by clpool_maxpool_output_shape) and, if not NULL, `indices`.
 */
CLPOOL_API clpool_status clpool_maxpool_host(clpool_context *ctx, const clpool_maxpool_params *params,
                                             clpool_dtype dtype, const clpool_shape *input_shape,
                                             const void *input, void *output, int64_t *indices);

/** Blocking AveragePool / LpPool on host arrays (output sized by their _output_shape). */
CLPOOL_API clpool_status clpool_average_pool_host(clpool_context *ctx, const clpool_average_pool_params *params,
                                                  clpool_dtype dtype, const clpool_shape *input_shape,
                                                  const void *input, void *output);
CLPOOL_API clpool_status clpool_lp_pool_host(clpool_context *ctx, const clpool_lp_pool_params *params,
                                             clpool_dtype dtype, const clpool_shape *input_shape, const void *input,
                                             void *output);

/**
 * Blocking MaxUnpool on host arrays (output sized by clpool_max_unpool_output_shape); `skipped` (may be
 * NULL) receives the number of indices skipped as outside their plane (saturating at UINT32_MAX).
 */
CLPOOL_API clpool_status clpool_max_unpool_host(clpool_context *ctx, const clpool_max_unpool_params *params,
                                                clpool_dtype dtype, const clpool_shape *x_shape, const void *x,
                                                const int64_t *indices, void *output, uint32_t *skipped);

/** Blocking global pools on host arrays (output holds N*C elements). */
CLPOOL_API clpool_status clpool_global_max_pool_host(clpool_context *ctx, clpool_dtype dtype,
                                                     const clpool_shape *input_shape, const void *input, void *output);
CLPOOL_API clpool_status clpool_global_average_pool_host(clpool_context *ctx, clpool_dtype dtype,
                                                         const clpool_shape *input_shape, const void *input,
                                                         void *output);
CLPOOL_API clpool_status clpool_global_lp_pool_host(clpool_context *ctx, double p, clpool_dtype dtype,
                                                    const clpool_shape *input_shape, const void *input, void *output);

/** Blocking Max on host arrays; `inputs[i]` has shape `input_shapes[i]`, output sized by clpool_max_output_shape. */
CLPOOL_API clpool_status clpool_max_host(clpool_context *ctx, clpool_dtype dtype, size_t num_inputs,
                                         const clpool_shape *input_shapes, const void *const *inputs, void *output);

#ifdef __cplusplus
}
#endif
#endif /* CLPOOL_CLPOOL_H */
