/*
 * Programs: built lazily per context from the embedded kernel sources (or
 * from $CLPOOL_KERNEL_DIR for kernel work), specialised by -D options, and
 * cached for the context's lifetime. Each program keeps a pool of cl_kernel
 * objects so concurrent callers never share one across clSetKernelArg.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define POOL_MAX 64
#define ASKED_MAX 8 /* kernels per program (the global pools' have five) */

/* A kernel a call asked for, and where its tier-up stands (clpool__kernel_tier). */
typedef struct asked_kernel {
    const char *name;
    clpool__tier state;
} asked_kernel;

struct clpool__program {
    clpool__program *next;
    const char *const *parts;  /* a static array of the callers */
    clpool__options options;
    cl_program program;
    int building;                  /* a thread builds `program` outside the context's lock */
    int cached;                    /* the binary cache held it when the entry was made */
    size_t pool_count;
    clpool__kernel pool[POOL_MAX]; /* idle kernels of this program, matched by name on checkout */
    asked_kernel asked[ASKED_MAX];
    size_t asked_count;
};

static const clpool__source *embedded_source(const char *name)
{
    for (size_t i = 0; i < clpool__source_count; ++i) /* LCOV_EXCL_BR_LINE: every name is found (below) */
        if (strcmp(clpool__sources[i].name, name) == 0) return &clpool__sources[i];
    return NULL; /* LCOV_EXCL_LINE: the family table names embedded files only */
}

/* Read the regular file `<dir>/<name>` into a malloc'd string, or NULL (a directory, say). */
static char *read_kernel_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct stat st;
    char *text = NULL;
    if (fstat(fileno(f), &st) != 0) goto done; /* LCOV_EXCL_BR_LINE: fstat of an open file does not fail */
    if (!S_ISREG(st.st_mode)) goto done;
    text = malloc((size_t)st.st_size + 1);
    if (!text) goto done; /* LCOV_EXCL_LINE: host allocation failure (not injected: ASan owns malloc) */
    if (fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) { /* LCOV_EXCL_START: a file cut short while read */
        free(text);
        text = NULL;
        goto done;
    } /* LCOV_EXCL_STOP */
    text[st.st_size] = '\0';
done:
    fclose(f);
    return text;
}

/* Source text of `name`: $CLPOOL_KERNEL_DIR overrides the embedded copy. */
static clpool_status load_source(const char *name, char **owned, const char **text, size_t *len)
{
    const char *dir = getenv("CLPOOL_KERNEL_DIR");
    *owned = NULL;
    if (dir && *dir) {
        *owned = read_kernel_file(dir, name);
        if (!*owned)
            return clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "CLPOOL_KERNEL_DIR is set but %s/%s cannot be read", dir, name);
        *text = *owned;
        *len = strlen(*owned);
        return CLPOOL_SUCCESS;
    }
    const clpool__source *src = embedded_source(name);
    if (!src) /* LCOV_EXCL_START: the family table names embedded files only */
        return clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "internal: no embedded kernel source '%s'", name);
    /* LCOV_EXCL_STOP */
    *text = (const char *)src->text;
    *len = src->size;
    return CLPOOL_SUCCESS;
}

/* Every program starts with these files: the type macros and the kernel
 * argument structs the host shares (kernels/args.h). */
static const char *const prefix_parts[] = {"common.h", "args.h"};
#define PREFIX_PARTS (sizeof prefix_parts / sizeof prefix_parts[0])
/* Files a program is built from, at most (prefix included). */
#define PARTS_MAX 16

/* The file that names a program's family in messages and cache keys: its last part. */
static const char *family_name(const char *const *parts)
{
    const char *name = parts[0];
    for (size_t i = 1; parts[i]; ++i) name = parts[i];
    return name;
}

/* A program's source texts and its binary-cache key. */
typedef struct program_source {
    char *owned[PARTS_MAX];
    const char *texts[PARTS_MAX];
    size_t lens[PARTS_MAX];
    size_t count;
    char key[2048];
    size_t key_len;
} program_source;

/* The key always fits: the options text, four device strings and the version, family and hash lines. */
_Static_assert(sizeof((program_source *)0)->key >=
                   CLPOOL__OPTIONS_TEXT_MAX + 4 * sizeof((clpool_device_info *)0)->device_name + 256,
               "program_source.key holds every key");

static void source_free(program_source *src)
{
    for (size_t i = 0; i < src->count; ++i) free(src->owned[i]);
    src->count = 0;
}

/* The texts of the prefix and `parts`, and the key: everything that could
 * change the binary (see binary_cache.c). On failure nothing is held. */
static clpool_status source_load(clpool_context *ctx, const char *const *parts, const char *options,
                                 program_source *src)
{
    clpool_status status = CLPOOL_SUCCESS;
    const char *family = family_name(parts);
    memset(src, 0, sizeof *src);
    for (size_t i = 0; i < PREFIX_PARTS; ++i, ++src->count)
        CLPOOL_TRY(load_source(prefix_parts[i], &src->owned[src->count], &src->texts[src->count], &src->lens[src->count]));
    for (size_t i = 0; parts[i]; ++i, ++src->count) {
        if (src->count == PARTS_MAX) { /* LCOV_EXCL_START: internal guard: no family or plan nears the limit */
            status = clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "internal: kernels/%s has more than %d parts", family,
                                  PARTS_MAX);
            goto cleanup;
        } /* LCOV_EXCL_STOP */
        CLPOOL_TRY(load_source(parts[i], &src->owned[src->count], &src->texts[src->count], &src->lens[src->count]));
    }
    uint64_t source_hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < src->count; ++i) source_hash = clpool__fnv1a(source_hash, src->texts[i], src->lens[i]);
    const int key_len = snprintf(src->key, sizeof src->key,
                                 "clpool %s\nsource %s %016llx\noptions %s\nplatform %s\ndevice %s\n%s\ndriver %s\n",
                                 clpool_version_string(), family, (unsigned long long)source_hash, options,
                                 ctx->info.platform_name, ctx->info.device_name, ctx->info.device_version,
                                 ctx->info.driver_version);
    src->key_len = (size_t)key_len;
    return CLPOOL_SUCCESS;
cleanup:
    source_free(src);
    return status;
}

static clpool_status build_program(clpool_context *ctx, const char *const *parts, const char *options,
                                   cl_program *out)
{
    program_source src;
    cl_program program = NULL;
    clpool_status status = source_load(ctx, parts, options, &src);
    if (status != CLPOOL_SUCCESS) return status;
    const char *family = family_name(parts);
    if ((program = clpool__cache_load(ctx, src.key, src.key_len, options)) != NULL) {
        *out = program;
        program = NULL;
        goto cleanup;
    }

    cl_int err;
    program = clCreateProgramWithSource(ctx->context, (cl_uint)src.count, src.texts, src.lens, &err);
    if (!program) {
        status = clpool__cl_fail(err, "clCreateProgramWithSource");
        goto cleanup;
    }
    err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        status = clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "building kernels/%s with '%s' failed (clBuildProgram: %s) on '%s'; build log:\n",
                              family, options, clpool__cl_error_name(err), ctx->info.device_name);
        size_t log_len = 0;
        if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len) == CL_SUCCESS &&
            log_len > 0) {
            char *log = malloc(log_len + 1);
            if (log && clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, log_len, log, NULL) == CL_SUCCESS) {
                log[log_len] = '\0';
                clpool__append_error(log);
            }
            free(log);
        }
        goto cleanup;
    }
    clpool__cache_store(ctx, src.key, src.key_len, program);
    *out = program;
    program = NULL;
cleanup:
    if (program) clReleaseProgram(program);
    source_free(&src);
    return status;
}

void clpool__options_start(clpool__options *o, clpool_dtype dtype)
{
    o->dtype = dtype;
    o->count = 0;
}

void clpool__options_define(clpool__options *o, const char *name, int64_t value)
{
    if (o->count >= CLPOOL__OPTIONS_DEFINES) { /* LCOV_EXCL_START: internal guard: no family or plan nears the limit */
        o->count = CLPOOL__OPTIONS_DEFINES + 1;
        return;
    } /* LCOV_EXCL_STOP */
    o->names[o->count] = name;
    o->values[o->count++] = value;
}

static int options_equal(const clpool__options *a, const clpool__options *b)
{
    if (a->dtype != b->dtype || a->count != b->count) return 0;
    for (int i = 0; i < a->count; ++i)
        if (a->values[i] != b->values[i] || strcmp(a->names[i], b->names[i]) != 0) return 0;
    return 1;
}

/* "-DDT_FLOAT32 -DKH=3 ..." into out[CLPOOL__OPTIONS_TEXT_MAX]; 0 if it does not fit. */
static int options_text(const clpool__options *o, char *out)
{
    int len = snprintf(out, CLPOOL__OPTIONS_TEXT_MAX, "-D%s", clpool__dtype_macro(o->dtype));
    for (int i = 0; i < o->count && len < CLPOOL__OPTIONS_TEXT_MAX; ++i) /* LCOV_EXCL_BR_LINE: fits (find_program) */
        len += snprintf(out + len, CLPOOL__OPTIONS_TEXT_MAX - (size_t)len, " -D%s=%" PRId64, o->names[i], o->values[i]);
    return len < CLPOOL__OPTIONS_TEXT_MAX;
}

/* The list entry of (parts, options), moved to the front (calls repeat the
 * same few programs), or NULL; caller holds ctx->lock. */
static clpool__program *program_entry(clpool_context *ctx, const char *const *parts, const clpool__options *options)
{
    for (clpool__program **at = &ctx->programs; *at; at = &(*at)->next) {
        clpool__program *p = *at;
        /* parts are the family table's arrays, one per list of files (test_plan checks) */
        if (p->parts == parts && options_equal(&p->options, options)) {
            *at = p->next;
            p->next = ctx->programs;
            ctx->programs = p;
            return p;
        }
    }
    return NULL;
}

/* A new entry at the front, its program not built yet; NULL when out of memory. */
static clpool__program *program_add(clpool_context *ctx, const char *const *parts, const clpool__options *options)
{
    clpool__program *p = calloc(1, sizeof *p);
    if (!p) return NULL; /* LCOV_EXCL_BR_LINE: host allocation failure (not injected: ASan owns malloc) */
    p->parts = parts;
    p->options = *options;
    p->next = ctx->programs;
    ctx->programs = p;
    return p;
}

/* Find or build the program for (parts, options); caller holds ctx->lock,
 * which the build itself does not hold: calls of other programs go on, and a
 * call that needs this one waits for the build under way. An entry whose
 * build failed stays unbuilt: a later call retries (e.g. after fixing
 * CLPOOL_KERNEL_DIR). */
static clpool_status find_program(clpool_context *ctx, const char *const *parts, const clpool__options *options,
                                  clpool__program **out)
{
    clpool__program *p;
    while ((p = program_entry(ctx, parts, options)) != NULL && !p->program && p->building)
        pthread_cond_wait(&ctx->changed, &ctx->lock);
    if (p && p->program) {
        *out = p;
        return CLPOOL_SUCCESS;
    }
    char text[CLPOOL__OPTIONS_TEXT_MAX];
    /* LCOV_EXCL_START: internal guard (no plan nears the limit); host allocation failure */
    if (!options_text(options, text))
        return clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "internal: the build options of %s exceed %d bytes",
                            family_name(parts), CLPOOL__OPTIONS_TEXT_MAX - 1);
    if (!p && !(p = program_add(ctx, parts, options)))
        return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    /* LCOV_EXCL_STOP */
    p->building = 1;
    pthread_mutex_unlock(&ctx->lock);
    cl_program program = NULL;
    const clpool_status status = build_program(ctx, parts, text, &program);
    pthread_mutex_lock(&ctx->lock);
    p->building = 0;
    p->program = program;
    pthread_cond_broadcast(&ctx->changed);
    if (status == CLPOOL_SUCCESS) *out = p;
    return status;
}

/* Whether the binary cache holds the program of (parts, options): an entry
 * loads in a few ms, worth it from a key's first call. */
static int binary_cached(clpool_context *ctx, const char *const *parts, const char *options)
{
    program_source src;
    if (ctx->cache.dir_fd < 0 || source_load(ctx, parts, options, &src) != CLPOOL_SUCCESS) return 0;
    const int has = clpool__cache_has(ctx, src.key, src.key_len);
    source_free(&src);
    return has;
}

/* The ask for `kernel` of `p`, recorded as NEW the first time; NULL when the list is full. */
static asked_kernel *ask(clpool__program *p, const char *kernel)
{
    for (size_t i = 0; i < p->asked_count; ++i)
        if (strcmp(p->asked[i].name, kernel) == 0) return &p->asked[i];
    if (p->asked_count == ASKED_MAX) return NULL; /* LCOV_EXCL_BR_LINE: internal guard: programs have few kernels */
    p->asked[p->asked_count] = (asked_kernel){kernel, p->cached ? CLPOOL__TIER_READY : CLPOOL__TIER_NEW};
    return &p->asked[p->asked_count++];
}

clpool__tier clpool__kernel_tier(clpool_context *ctx, const char *const *parts, const clpool__options *options,
                                 const char *kernel, int set, clpool__tier state)
{
    /* No entry or no room to remember the ask (options too long, out of memory): build it now. The guards are
       clpool__kernel_get's and find_program's; allocation failures are not injected (ASan owns malloc). */
    if (options->count > CLPOOL__OPTIONS_DEFINES) return CLPOOL__TIER_READY; /* LCOV_EXCL_BR_LINE: a guard */
    clpool__program *p = program_entry(ctx, parts, options);
    char text[CLPOOL__OPTIONS_TEXT_MAX];
    if (!p && options_text(options, text)) {
        const int cached = binary_cached(ctx, parts, text);
        if ((p = program_add(ctx, parts, options)) != NULL) p->cached = cached; /* LCOV_EXCL_BR_LINE: allocation */
    }
    asked_kernel *a = p ? ask(p, kernel) : NULL; /* LCOV_EXCL_BR_LINE: a guard, allocation */
    if (!a) return CLPOOL__TIER_READY;          /* LCOV_EXCL_BR_LINE: a guard, allocation */
    if (set) a->state = state;
    return a->state;
}

clpool_status clpool__kernel_get(clpool_context *ctx, const char *const *parts, const clpool__options *options,
                                 const char *kernel_name, clpool__kernel *out)
{
    if (options->count > CLPOOL__OPTIONS_DEFINES) /* LCOV_EXCL_START: internal guard */
        return clpool__fail(CLPOOL_ERROR_BUILD_FAILED, "internal: the build options of %s in %s exceed %d defines",
                            kernel_name, family_name(parts), CLPOOL__OPTIONS_DEFINES);
    /* LCOV_EXCL_STOP */
    clpool__program *p = NULL;
    pthread_mutex_lock(&ctx->lock);
    clpool_status status = find_program(ctx, parts, options, &p);
    int found = 0;
    if (status == CLPOOL_SUCCESS) {
        for (size_t i = p->pool_count; i-- > 0;) {
            if (strcmp(p->pool[i].name, kernel_name) == 0) {
                *out = p->pool[i];
                p->pool[i] = p->pool[--p->pool_count];
                found = 1;
                break;
            }
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    if (status != CLPOOL_SUCCESS || found) return status;

    /* Pool empty for this name: make a new kernel (clCreateKernel is thread-safe). */
    cl_int err;
    cl_kernel kernel = clCreateKernel(p->program, kernel_name, &err);
    if (!kernel) {
        char what[128];
        snprintf(what, sizeof what, "clCreateKernel(%s)", kernel_name);
        return clpool__cl_fail(err, what);
    }
    size_t wg = 0;
    err = clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err != CL_SUCCESS) {
        clReleaseKernel(kernel);
        return clpool__cl_fail(err, "clGetKernelWorkGroupInfo");
    }
    clpool__arg_memo *memo = clpool__arg_memo_create();
    if (!memo) { /* LCOV_EXCL_START: host allocation failure (not injected: ASan owns malloc) */
        clReleaseKernel(kernel);
        return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating kernel %s", kernel_name);
    } /* LCOV_EXCL_STOP */
    out->kernel = kernel;
    out->program = p;
    out->name = kernel_name;
    out->max_work_group_size = wg ? wg : 1; /* LCOV_EXCL_BR_LINE: a driver that reports no work-group size */
    out->memo = memo;
    return CLPOOL_SUCCESS;
}

static void kernel_release(clpool__kernel *k)
{
    clReleaseKernel(k->kernel);
    clpool__arg_memo_release(k->memo);
    k->memo = NULL;
}

void clpool__kernel_put(clpool_context *ctx, clpool__kernel *k)
{
    if (!k->kernel) return;
    pthread_mutex_lock(&ctx->lock);
    if (k->program->pool_count < POOL_MAX) {
        k->program->pool[k->program->pool_count++] = *k;
        k->kernel = NULL;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (k->kernel) kernel_release(k);
    k->kernel = NULL;
}

void clpool__programs_release(clpool_context *ctx)
{
    clpool__program *p = ctx->programs;
    while (p) {
        clpool__program *next = p->next;
        for (size_t i = 0; i < p->pool_count; ++i) kernel_release(&p->pool[i]);
        if (p->program) clReleaseProgram(p->program);
        free(p);
        p = next;
    }
    ctx->programs = NULL;
}
