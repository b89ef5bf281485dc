/*
 * On-disk program-binary cache. Measured on PoCL 3.1 (README, "Start-up
 * cost"): with PoCL's own cache warm, building clpool's MaxPool program from
 * source still takes 24-35 ms; from the binary it takes ~1.3 ms. Writing an
 * entry costs one CL_PROGRAM_BINARIES query (~130 ms on PoCL), paid once.
 *
 * Directory: $CLPOOL_CACHE_DIR, else $XDG_CACHE_HOME/clpool, else
 * $HOME/.cache/clpool; CLPOOL_CACHE_DIR=off disables it. An entry is keyed by
 * everything that could change the binary (library version, a hash of the
 * kernel sources, build options, platform, device, device and driver
 * versions): the file name is a hash of that key and the file repeats the
 * key in full, so a collision or a stale entry is detected, not used. Writes
 * go to a temporary file renamed into place. Any problem (missing, corrupt,
 * truncated, stale, unwritable, rejected by the driver) means "build from
 * source" and never an error.
 */
#include <errno.h>
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

/* Cache directory into buf; 0 if the cache is off or no directory is known. */
static int cache_dir(char *buf, size_t len)
{
    const char *env = getenv("CLPOOL_CACHE_DIR");
    if (env && (strcmp(env, "off") == 0 || strcmp(env, "0") == 0)) return 0;
    int n;
    if (env && *env) n = snprintf(buf, len, "%s", env);
    else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME")) n = snprintf(buf, len, "%s/clpool", getenv("XDG_CACHE_HOME"));
    else if (getenv("HOME") && *getenv("HOME")) n = snprintf(buf, len, "%s/.cache/clpool", getenv("HOME"));
    else return 0;
    return n > 0 && (size_t)n < len;
}

/* mkdir -p; failures are left to the later fopen. */
static void make_dirs(char *path)
{
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

static int entry_path(const char *key, size_t key_len, char *path, size_t len)
{
    char dir[3072];
    if (!cache_dir(dir, sizeof dir)) return 0;
    const uint64_t h1 = clpool__fnv1a(0xcbf29ce484222325ull, key, key_len);
    const uint64_t h2 = clpool__fnv1a(0x84222325cbf29ce4ull, key, key_len);
    const int n = snprintf(path, len, "%s/%016llx%016llx.bin", dir, (unsigned long long)h1, (unsigned long long)h2);
    return n > 0 && (size_t)n < len;
}

cl_program clpool__cache_load(clpool_context *ctx, const char *key, size_t key_len, const char *options)
{
    char path[4096];
    if (!entry_path(key, key_len, path, sizeof path)) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    cl_program program = NULL;
    unsigned char *binary = NULL;
    char *stored_key = NULL;
    char head[8];
    uint64_t stored_len = 0, bin_len = 0, checksum = 0;
    if (fread(head, 1, 8, f) != 8 || memcmp(head, magic, 8) != 0) goto done;
    if (fread(&stored_len, sizeof stored_len, 1, f) != 1 || stored_len != key_len) goto done;
    if (!(stored_key = malloc(key_len ? key_len : 1)) || fread(stored_key, 1, key_len, f) != key_len ||
        memcmp(stored_key, key, key_len) != 0)
        goto done; /* another key behind the same hash, or damaged */
    if (fread(&bin_len, sizeof bin_len, 1, f) != 1 || bin_len == 0 || bin_len > MAX_BINARY_BYTES) goto done;
    if (!(binary = malloc((size_t)bin_len)) || fread(binary, 1, (size_t)bin_len, f) != bin_len) goto done;
    if (fread(&checksum, sizeof checksum, 1, f) != 1 ||
        checksum != clpool__fnv1a(0xcbf29ce484222325ull, binary, (size_t)bin_len))
        goto done;
    cl_int status = CL_SUCCESS, err;
    const size_t size = (size_t)bin_len;
    const unsigned char *bins[1] = {binary};
    program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, bins, &status, &err);
    if (program && (err != CL_SUCCESS || status != CL_SUCCESS ||
                    clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS)) {
        clReleaseProgram(program); /* the driver refused it (e.g. updated): rebuild from source */
        program = NULL;
    }
done:
    fclose(f);
    free(binary);
    free(stored_key);
    return program;
}

void clpool__cache_store(clpool_context *ctx, const char *key, size_t key_len, cl_program program)
{
    char path[4096], tmp[4200];
    if (!entry_path(key, key_len, path, sizeof path)) return;
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0 ||
        size > MAX_BINARY_BYTES)
        return;
    unsigned char *binary = malloc(size);
    unsigned char *bins[1] = {binary};
    if (!binary || clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(binary);
        return;
    }
    char *slash = strrchr(path, '/');
    *slash = '\0';
    make_dirs(path);
    *slash = '/';
    /* Unique temporary name in the same directory, then an atomic rename. */
    snprintf(tmp, sizeof tmp, "%s.%ld.%p.tmp", path, (long)getpid(), (void *)ctx);
    FILE *f = fopen(tmp, "wb");
    int ok = f != NULL;
    const uint64_t klen = key_len, blen = size, checksum = clpool__fnv1a(0xcbf29ce484222325ull, binary, size);
    ok = ok && fwrite(magic, 1, 8, f) == 8 && fwrite(&klen, sizeof klen, 1, f) == 1 &&
         fwrite(key, 1, key_len, f) == key_len && fwrite(&blen, sizeof blen, 1, f) == 1 &&
         fwrite(binary, 1, size, f) == size && fwrite(&checksum, sizeof checksum, 1, f) == 1;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
    free(binary);
}
