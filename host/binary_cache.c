/*
 * On-disk program-binary cache. Loading a program from its binary skips the
 * driver's compiler; writing an entry costs one CL_PROGRAM_BINARIES query.
 *
 * Directory: $CLPOOL_CACHE_DIR, else $XDG_CACHE_HOME/clpool, else
 * $HOME/.cache/clpool; CLPOOL_CACHE_DIR=off disables it. PoCL answers the
 * binary query by compiling every kernel once more, and keeps compiled
 * kernels in its own cache, so there only an explicit CLPOOL_CACHE_DIR turns
 * this cache on (docs/design.md, "Program-binary cache"). An entry is keyed by
 * everything that could change the binary (library version, a hash of the
 * kernel sources, build options, platform, device, device and driver
 * versions): the file name is a hash of that key and the file repeats the
 * key in full, so a collision or a stale entry is detected, not used. Any
 * problem (missing, corrupt, truncated, stale, unwritable, rejected by the
 * driver) means "build from source" and never an error.
 *
 * Trust: on CPU drivers a binary is native code run in the process, and the
 * checksum only catches damage (anyone can recompute it). So whoever can
 * write to the directory must be the user alone (OpenSSH's StrictModes
 * rule): it must be the effective user's and not group/other-writable, else
 * the context leaves the cache off. The directory is opened once per context
 * and entries are reached through that descriptor, so renaming a path
 * component later cannot redirect them; an entry is used only if it is a
 * regular file of the effective user, opened without following a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char magic[8] = {'C', 'L', 'P', 'O', 'O', 'L', 'B', '1'};
#define MAX_BINARY_BYTES (256u << 20) /* refuse absurd sizes from a damaged file */

uint64_t clpool__fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* mkdir -p with mode 0700 for every directory made: a cache readable or
 * writable by others is refused anyway. Failures show at the open. */
static void make_dirs(char *path)
{
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    mkdir(path, 0700);
}

/* `path` made absolute (a later chdir must not move the mkstemp templates),
 * with room for a "/<entry>.tmp.XXXXXX" after it; 0 if it does not fit. */
static int absolute_path(const char *path, char *out, size_t len)
{
    if (path[0] == '/') return snprintf(out, len, "%s", path) + 64 < (int)len;
    if (!getcwd(out, len)) return 0; /* LCOV_EXCL_BR_LINE: the directory just opened from it exists */
    const size_t cwd = strlen(out);
    return snprintf(out + cwd, len - cwd, "/%s", path) + 64 < (int)(len - cwd);
}

static void cache_off(clpool__cache *c, clpool_cache_state state, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cache_off(clpool__cache *c, clpool_cache_state state, const char *fmt, ...)
{
    c->state = state;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
    if (c->dir_fd >= 0) close(c->dir_fd);
    c->dir_fd = -1;
}

int clpool__pocl_kernel_cache_on(const clpool_context *ctx)
{
    const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
    if (!strstr(ctx->info.platform_name, "Portable Computing Language")) return 0; /* LCOV_EXCL_LINE: PoCL alone */
    return !(pocl_cache && strcmp(pocl_cache, "0") == 0);
}

void clpool__cache_open(clpool_context *ctx)
{
    clpool__cache *c = &ctx->cache;
    c->dir_fd = -1;
    c->state = CLPOOL_CACHE_ON;
    const char *env = getenv("CLPOOL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env && (strcmp(env, "off") == 0 || strcmp(env, "0") == 0)) {
        cache_off(c, CLPOOL_CACHE_OFF_REQUESTED, "CLPOOL_CACHE_DIR=%s", env);
        return;
    }
    int n;
    if (env && *env) n = snprintf(c->directory, sizeof c->directory, "%s", env);
    else if (xdg && *xdg) n = snprintf(c->directory, sizeof c->directory, "%s/clpool", xdg);
    else if (home && *home) n = snprintf(c->directory, sizeof c->directory, "%s/.cache/clpool", home);
    else {
        cache_off(c, CLPOOL_CACHE_OFF_NO_DIRECTORY, "CLPOOL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset or empty");
        return;
    }
    /* Room for "/<32 hex>.tmp.XXXXXX" after it. */
    if (n < 0 || (size_t)n + 64 >= sizeof c->directory) { /* LCOV_EXCL_BR_LINE: n < 0: snprintf of strings */
        c->directory[0] = '\0';
        cache_off(c, CLPOOL_CACHE_OFF_UNUSABLE, "the cache directory's path is longer than %d bytes",
                  (int)sizeof c->directory - 65);
        return;
    }
    if (!(env && *env) && clpool__pocl_kernel_cache_on(ctx)) {
        cache_off(c, CLPOOL_CACHE_OFF_DRIVER_CACHES,
                  "PoCL keeps compiled kernels in its own cache (POCL_KERNEL_CACHE); set CLPOOL_CACHE_DIR to use "
                  "clpool's as well");
        return;
    }
    char path[CLPOOL__CACHE_PATH_MAX];
    memcpy(path, c->directory, (size_t)n + 1);
    make_dirs(path);
    struct stat st;
    c->dir_fd = open(c->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->dir_fd < 0 || fstat(c->dir_fd, &st) != 0) { /* LCOV_EXCL_BR_LINE: fstat of an open directory */
        const int e = errno;
        char why[128];
        if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "errno %d", e); /* LCOV_EXCL_BR_LINE: errno */
        cache_off(c, CLPOOL_CACHE_OFF_UNUSABLE, "%s cannot be created or opened as a directory: %s", c->directory, why);
    } else if (st.st_uid != geteuid()) {
        cache_off(c, CLPOOL_CACHE_OFF_FOREIGN_OWNER, "%s belongs to uid %lu, not to the effective uid %lu", c->directory,
                  (unsigned long)st.st_uid, (unsigned long)geteuid());
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        cache_off(c, CLPOOL_CACHE_OFF_SHARED, "%s is writable by group or others (mode %04o)", c->directory,
                  (unsigned)(st.st_mode & 07777));
    } else if (!absolute_path(c->directory, c->absolute, sizeof c->absolute)) {
        cache_off(c, CLPOOL_CACHE_OFF_UNUSABLE, "%s: the working directory plus this path exceed %d bytes",
                  c->directory, (int)sizeof c->absolute - 65);
    }
}

void clpool__cache_close(clpool_context *ctx)
{
    if (ctx->cache.dir_fd >= 0) close(ctx->cache.dir_fd);
    ctx->cache.dir_fd = -1;
}

clpool_status clpool_context_cache_info(clpool_context *ctx, clpool_cache_info *info)
{
    static const char *fn = "clpool_context_cache_info";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(info, fn);
    /* Version 1's size; a grown struct keeps these fields first. */
    if (info->struct_size < sizeof(clpool_cache_info))
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: info.struct_size is %zu, expected sizeof(clpool_cache_info) = %zu", fn,
                            info->struct_size, sizeof(clpool_cache_info));
    const clpool__cache *c = &ctx->cache;
    clpool_cache_info out = {sizeof out, c->state, c->directory, c->reason, 0, 0, 0, 0};
    out.hits = __atomic_load_n(&c->hits, __ATOMIC_RELAXED);
    out.misses = __atomic_load_n(&c->misses, __ATOMIC_RELAXED);
    out.refused = __atomic_load_n(&c->refused, __ATOMIC_RELAXED);
    out.writes = __atomic_load_n(&c->writes, __ATOMIC_RELAXED);
    memcpy(info, &out, sizeof out);
    return CLPOOL_SUCCESS;
}

/* Add one to a counter: builds run on callers' threads and the background build thread at once. */
static void count(uint64_t *counter) { __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }

/* The entry's file name: two 64-bit hashes of the key. */
static void entry_name(const char *key, size_t key_len, char name[40])
{
    const uint64_t h1 = clpool__fnv1a(0xcbf29ce484222325ull, key, key_len);
    const uint64_t h2 = clpool__fnv1a(0x84222325cbf29ce4ull, key, key_len);
    snprintf(name, 40, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}

/* The entry's program if the open file holds this key and a binary the driver takes; NULL otherwise. */
static cl_program read_entry(clpool_context *ctx, FILE *f, const char *key, size_t key_len, const char *options)
{
    cl_program program = NULL;
    unsigned char *binary = NULL;
    char *stored_key = NULL;
    char head[8];
    uint64_t stored_len = 0, bin_len = 0, checksum = 0;
    if (fread(head, 1, 8, f) != 8 || memcmp(head, magic, 8) != 0) goto done;
    if (fread(&stored_len, sizeof stored_len, 1, f) != 1 || stored_len != key_len) goto done;
    if (!(stored_key = malloc(key_len))) goto done; /* LCOV_EXCL_LINE: host allocation failure (not injected) */
    if (fread(stored_key, 1, key_len, f) != key_len || memcmp(stored_key, key, key_len) != 0)
        goto done; /* another key behind the same hash, or damaged */
    if (fread(&bin_len, sizeof bin_len, 1, f) != 1 || bin_len == 0 || bin_len > MAX_BINARY_BYTES) goto done;
    if (!(binary = malloc((size_t)bin_len))) goto done; /* LCOV_EXCL_LINE: host allocation failure (not injected) */
    if (fread(binary, 1, (size_t)bin_len, f) != bin_len) goto done;
    if (fread(&checksum, sizeof checksum, 1, f) != 1 ||
        checksum != clpool__fnv1a(0xcbf29ce484222325ull, binary, (size_t)bin_len))
        goto done;
    cl_int status = CL_SUCCESS, err;
    const size_t size = (size_t)bin_len;
    const unsigned char *bins[1] = {binary};
    program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, bins, &status, &err);
    if (program && (err != CL_SUCCESS || status != CL_SUCCESS || /* LCOV_EXCL_BR_LINE: PoCL: no program then */
                    clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS)) {
        clReleaseProgram(program); /* the driver refused it (e.g. updated): rebuild from source */
        program = NULL;
    }
done:
    free(binary);
    free(stored_key);
    return program;
}

cl_program clpool__cache_load(clpool_context *ctx, const char *key, size_t key_len, const char *options)
{
    clpool__cache *c = &ctx->cache;
    if (c->dir_fd < 0) return NULL;
    char name[48];
    entry_name(key, key_len, name);
    strcat(name, ".bin");
    /* No symlink is followed and a FIFO or device does not block the open;
     * what is opened is then judged by its descriptor, not by its name. */
    const int fd = openat(c->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) count(&c->refused); /* a symlink (ELOOP), a socket, ... */
        count(&c->misses);
        return NULL;
    }
    struct stat st;
    FILE *f = NULL;
    cl_program program = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (f = fdopen(fd, "rb")) != NULL)
        program = read_entry(ctx, f, key, key_len, options);
    if (f) fclose(f);
    else close(fd);
    if (program) {
        count(&c->hits);
    } else {
        count(&c->refused);
        count(&c->misses);
    }
    return program;
}

int clpool__cache_has(clpool_context *ctx, const char *key, size_t key_len)
{
    const clpool__cache *c = &ctx->cache; /* open: the caller checked */
    char name[48];
    entry_name(key, key_len, name);
    strcat(name, ".bin");
    struct stat st;
    return fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/* Write the entry to the open file; 1 on success. */
static int write_entry(FILE *f, const char *key, size_t key_len, const unsigned char *binary, size_t size)
{
    const uint64_t klen = key_len, blen = size, checksum = clpool__fnv1a(0xcbf29ce484222325ull, binary, size);
    return fwrite(magic, 1, 8, f) == 8 && fwrite(&klen, sizeof klen, 1, f) == 1 &&
           fwrite(key, 1, key_len, f) == key_len && fwrite(&blen, sizeof blen, 1, f) == 1 &&
           fwrite(binary, 1, size, f) == size && fwrite(&checksum, sizeof checksum, 1, f) == 1;
}

void clpool__cache_store(clpool_context *ctx, const char *key, size_t key_len, cl_program program)
{
    clpool__cache *c = &ctx->cache;
    if (c->dir_fd < 0) return;
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0 ||
        size > MAX_BINARY_BYTES)
        return;
    unsigned char *binary = malloc(size);
    if (!binary) return; /* LCOV_EXCL_LINE: host allocation failure (not injected: ASan owns malloc) */
    unsigned char *bins[1] = {binary};
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(binary);
        return;
    }
    /* A new file of ours (mkstemp: unpredictable name, O_EXCL, mode 0600) in
     * the directory, renamed over the entry: a symlink or FIFO planted at the
     * entry's name is replaced, never written through. */
    char name[48], tmp_name[64], tmp[CLPOOL__CACHE_PATH_MAX + 64];
    entry_name(key, key_len, name);
    snprintf(tmp_name, sizeof tmp_name, "%s.tmp.XXXXXX", name);
    strcat(name, ".bin");
    snprintf(tmp, sizeof tmp, "%s/%s", c->absolute, tmp_name);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        free(binary);
        return;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    const char *base = strrchr(tmp, '/') + 1;
    /* The path reached the directory checked at creation (not one swapped
     * in since): the same file must be found through its descriptor. */
    struct stat mine, found;
    int ok = fstat(fd, &mine) == 0 && fstatat(c->dir_fd, base, &found, AT_SYMLINK_NOFOLLOW) == 0 &&
             mine.st_dev == found.st_dev && mine.st_ino == found.st_ino;
    if (!ok) {
        close(fd);
        unlink(tmp);
        free(binary);
        return;
    }
    FILE *f = fdopen(fd, "wb");
    ok = f && write_entry(f, key, key_len, binary, size);
    if (f ? fclose(f) != 0 : close(fd) != 0) ok = 0;
    if (ok && renameat(c->dir_fd, base, c->dir_fd, name) == 0) count(&c->writes);
    else unlinkat(c->dir_fd, base, 0);
    free(binary);
}
