/* The on-disk program-binary cache: entries are written, reused and rebuilt
 * when damaged; only a directory of the effective user that no one else can
 * write is used; planted symlinks, FIFOs and other users' files are never
 * used or written through; concurrent writers leave one valid entry. "Used"
 * is read from the library's per-context counters (clpool_context_cache_info).
 * CI runs as root: "another user" is uid 65534 (chown). Every test builds the
 * same small MaxPool program, so on PoCL only the first entry write pays the
 * binary query's extra compile (PoCL caches it too). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "cl_interpose.h"

#define OTHER_UID 65534 /* "nobody": a user other than the one running the tests */

extern char **environ;

/* MaxPool k=2 over [1,5,2,3]: one small program, checked against its known result. */
static int small_maxpool_ok(clpool_context *ctx)
{
    const int64_t k[1] = {2};
    clpool_maxpool_params p;
    clpool_maxpool_params_init(&p, 1, k);
    const clpool_shape in = {3, {1, 1, 4}};
    const float x[4] = {1, 5, 2, 3};
    float out[3] = {0, 0, 0};
    return clpool_maxpool_host(ctx, &p, CLPOOL_FLOAT32, &in, x, out, NULL) == CLPOOL_SUCCESS && out[0] == 5 &&
           out[1] == 5 && out[2] == 3;
}

/* What one fresh context saw of the cache while running small_maxpool_ok. */
typedef struct cache_run {
    clpool_cache_state state;
    char reason[4400];
    uint64_t hits, misses, refused, writes;
} cache_run;

static cache_run run_once(const char *cache_dir)
{
    setenv("CLPOOL_CACHE_DIR", cache_dir, 1);
    clpool_context *ctx = cu_context_create();
    ck_assert_msg(small_maxpool_ok(ctx), "MaxPool with CLPOOL_CACHE_DIR=%s: %s", cache_dir, clpool_last_error());
    clpool_cache_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
    cache_run r = {info.state, "", info.hits, info.misses, info.refused, info.writes};
    snprintf(r.reason, sizeof r.reason, "%s", info.reason);
    if (info.state == CLPOOL_CACHE_ON) ck_assert_str_eq(info.reason, "");
    else ck_assert_uint_eq(info.hits + info.misses + info.refused + info.writes, 0);
    clpool_context_release(ctx);
    setenv("CLPOOL_CACHE_DIR", "off", 1); /* as the other suites run (tests/CMakeLists.txt) */
    return r;
}

static void assert_counts(const cache_run *r, uint64_t hits, uint64_t misses, uint64_t refused, uint64_t writes,
                          const char *what)
{
    ck_assert_msg(r->state == CLPOOL_CACHE_ON, "%s: cache state %d (%s)", what, (int)r->state, r->reason);
    ck_assert_msg(r->hits == hits && r->misses == misses && r->refused == refused && r->writes == writes,
                  "%s: hits %llu misses %llu refused %llu writes %llu, expected %llu %llu %llu %llu", what,
                  (unsigned long long)r->hits, (unsigned long long)r->misses, (unsigned long long)r->refused,
                  (unsigned long long)r->writes, (unsigned long long)hits, (unsigned long long)misses,
                  (unsigned long long)refused, (unsigned long long)writes);
}

static void test_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/binary-cache-%d-%s", cu_tmpdir(), (int)getpid(), name);
}

static void remove_tree(const char *path)
{
    char cmd[1200 + sizeof "rm -rf ''"]; /* the paths' buffers hold 1200 bytes */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
}

/* Names in `dir` other than . and ..; the first (in readdir order) into `first`. */
static int dir_names(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n++ == 0 && first) snprintf(first, len, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* The one entry of `dir` (asserts it is alone: no temporary file left) as a path. */
static void only_entry(const char *dir, char *path, size_t len)
{
    char name[256];
    ck_assert_int_eq(dir_names(dir, name, sizeof name), 1);
    ck_assert_msg(strlen(name) == 36 && strcmp(name + 32, ".bin") == 0, "entry name %s", name);
    snprintf(path, len, "%s/%s", dir, name);
}

/* An entry the library wrote: a regular file of ours, mode 0600. */
static void assert_private_file(const char *path)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777) == 0600,
                  "%s: mode %o, uid %lu", path, (unsigned)st.st_mode, (unsigned long)st.st_uid);
}

/* The same file, not written since `before` (inode, size, mtime to the nanosecond). */
static void assert_untouched(const char *path, const struct stat *before)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(st.st_ino == before->st_ino && st.st_size == before->st_size &&
                      st.st_mtim.tv_sec == before->st_mtim.tv_sec && st.st_mtim.tv_nsec == before->st_mtim.tv_nsec,
                  "%s was written", path);
}

static void assert_mode(const char *path, unsigned mode)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_msg((st.st_mode & 07777) == mode, "%s: mode %04o, expected %04o", path, (unsigned)(st.st_mode & 07777),
                  mode);
}

/* A malloc'd copy of a file's bytes (*size set). */
static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    ck_assert_int_gt(n, 64);
    rewind(f);
    unsigned char *bytes = malloc((size_t)n);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

static void write_bytes(const char *path, const unsigned char *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, 0600), 0);
}

static void assert_bytes(const char *path, const unsigned char *bytes, size_t size)
{
    size_t n = 0;
    unsigned char *got = read_bytes(path, &n);
    ck_assert_msg(n == size && memcmp(got, bytes, size) == 0, "%s changed", path);
    free(got);
}

/* A valid entry, written by the library into the fresh directory `dir`:
 * its file name into name[len] and a malloc'd copy of its bytes. */
static unsigned char *valid_entry(const char *dir, char *name, size_t len, size_t *size)
{
    cache_run r = run_once(dir);
    assert_counts(&r, 0, 1, 0, 1, "first build");
    char path[1400];
    only_entry(dir, path, sizeof path);
    snprintf(name, len, "%s", strrchr(path, '/') + 1);
    return read_bytes(path, size);
}

/* Directories the library creates are 0700; the entry it writes there is
 * reused, and a corrupt or stale one (another key) is rebuilt and rewritten. */
START_TEST(created_directories_are_private_and_receive_entries)
{
    char top[1100], dir[1200], mid[1200], entry[1400];
    test_path(top, sizeof top, "created");
    snprintf(mid, sizeof mid, "%s/a", top);
    snprintf(dir, sizeof dir, "%s/a/b", top);
    cache_run r = run_once(dir);
    assert_counts(&r, 0, 1, 0, 1, "empty cache");
    assert_mode(top, 0700);
    assert_mode(mid, 0700);
    assert_mode(dir, 0700);
    only_entry(dir, entry, sizeof entry);
    assert_private_file(entry);
    struct stat first;
    ck_assert_int_eq(stat(entry, &first), 0);

    r = run_once(dir);
    assert_counts(&r, 1, 0, 0, 0, "warm cache");
    assert_untouched(entry, &first); /* read, not rewritten */

    FILE *f = fopen(entry, "wb"); /* corrupt: garbage of the right name */
    fputs("not a cache entry", f);
    fclose(f);
    r = run_once(dir);
    assert_counts(&r, 0, 1, 1, 1, "corrupt entry");
    only_entry(dir, entry, sizeof entry);
    assert_private_file(entry);

    f = fopen(entry, "r+b"); /* stale: valid layout, key of another build */
    ck_assert_ptr_nonnull(f);
    fseek(f, 16, SEEK_SET); /* first key byte, after magic and key length */
    fputc('X', f);
    fclose(f);
    r = run_once(dir);
    assert_counts(&r, 0, 1, 1, 1, "stale entry");
    r = run_once(dir);
    assert_counts(&r, 1, 0, 0, 0, "rewritten entry");
    remove_tree(top);
}
END_TEST

/* Off by request, without a directory, or where none can be made: the op
 * still runs, nothing is written, and the query says why. */
START_TEST(cache_off_states_say_why)
{
    char file[1100], below_file[1200], dir[1100];
    test_path(file, sizeof file, "plain-file");
    write_bytes(file, (const unsigned char *)"x", 1);
    snprintf(below_file, sizeof below_file, "%s/cache", file);
    char long_path[5000];
    memset(long_path, 'a', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    const struct {
        const char *dir;
        clpool_cache_state state;
        const char *reason;
    } cases[] = {
        {"off", CLPOOL_CACHE_OFF_REQUESTED, "CLPOOL_CACHE_DIR=off"},
        {"0", CLPOOL_CACHE_OFF_REQUESTED, "CLPOOL_CACHE_DIR=0"},
        {"/proc/clpool-cannot-write-here", CLPOOL_CACHE_OFF_UNUSABLE,
         "/proc/clpool-cannot-write-here cannot be created or opened as a directory: No such file or directory"},
        {file, CLPOOL_CACHE_OFF_UNUSABLE, "cannot be created or opened as a directory: Not a directory"},
        {below_file, CLPOOL_CACHE_OFF_UNUSABLE, "cannot be created or opened as a directory: Not a directory"},
        {long_path, CLPOOL_CACHE_OFF_UNUSABLE, "the cache directory's path is longer than 4031 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const cache_run r = run_once(cases[i].dir);
        ck_assert_msg(r.state == cases[i].state && strstr(r.reason, cases[i].reason) != NULL,
                      "case %zu: state %d, reason '%s'", i, (int)r.state, r.reason);
    }
    /* No directory at all: CLPOOL_CACHE_DIR empty, XDG_CACHE_HOME and HOME unset; then all three empty. */
    const char *home = getenv("HOME");
    char saved_home[1024];
    snprintf(saved_home, sizeof saved_home, "%s", home ? home : "");
    unsetenv("HOME");
    unsetenv("XDG_CACHE_HOME");
    cache_run r = run_once("");
    ck_assert_int_eq(r.state, CLPOOL_CACHE_OFF_NO_DIRECTORY);
    ck_assert_str_eq(r.reason, "CLPOOL_CACHE_DIR, XDG_CACHE_HOME and HOME are unset or empty");
    setenv("HOME", "", 1);
    setenv("XDG_CACHE_HOME", "", 1);
    r = run_once("");
    ck_assert_int_eq(r.state, CLPOOL_CACHE_OFF_NO_DIRECTORY);
    unsetenv("HOME");
    unsetenv("XDG_CACHE_HOME");
    /* XDG_CACHE_HOME/clpool, then HOME/.cache/clpool, when CLPOOL_CACHE_DIR is empty;
       on PoCL only with PoCL's own kernel cache off. */
    test_path(dir, sizeof dir, "home");
    setenv("HOME", dir, 1);
    setenv("CLPOOL_CACHE_DIR", "", 1);
    char want[1200];
    snprintf(want, sizeof want, "%s/.cache/clpool", dir);
    clpool_context *ctx = cu_context_create();
    clpool_cache_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
    clpool_device_info device;
    ck_assert_int_eq(clpool_context_device_info(ctx, &device), CLPOOL_SUCCESS);
    const int pocl = strstr(device.platform_name, "Portable Computing Language") != NULL;
    if (pocl) { /* PoCL's cache on by default, and set to anything but 0 */
        ck_assert_int_eq(info.state, CLPOOL_CACHE_OFF_DRIVER_CACHES);
        clpool_context_release(ctx);
        unsetenv("CLPOOL_CACHE_DIR");
        setenv("POCL_KERNEL_CACHE", "1", 1);
        ctx = cu_context_create();
        ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
        ck_assert_int_eq(info.state, CLPOOL_CACHE_OFF_DRIVER_CACHES);
        ck_assert_str_eq(info.reason, "PoCL keeps compiled kernels in its own cache (POCL_KERNEL_CACHE); set "
                                      "CLPOOL_CACHE_DIR to use clpool's as well");
        ck_assert_str_eq(info.directory, want);
        ck_assert_int_ne(access(want, F_OK), 0); /* nothing made */
        clpool_context_release(ctx);
        setenv("POCL_KERNEL_CACHE", "0", 1);
        ctx = cu_context_create();
        ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
    }
    ck_assert_int_eq(info.state, CLPOOL_CACHE_ON);
    ck_assert_str_eq(info.directory, want);
    assert_mode(want, 0700);
    clpool_context_release(ctx);
    setenv("XDG_CACHE_HOME", dir, 1);
    ctx = cu_context_create();
    ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
    snprintf(want, sizeof want, "%s/clpool", dir);
    ck_assert_str_eq(info.directory, want);
    clpool_context_release(ctx);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("POCL_KERNEL_CACHE");
    setenv("HOME", saved_home, 1);
    setenv("CLPOOL_CACHE_DIR", "off", 1);
    ck_assert_int_eq(unlink(file), 0);
    remove_tree(dir);
}
END_TEST

START_TEST(cache_info_rejects_bad_arguments)
{
    setenv("CLPOOL_CACHE_DIR", "off", 1);
    clpool_context *ctx = cu_context_create();
    clpool_cache_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(clpool_context_cache_info(NULL, &info), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_context_cache_info: ctx is NULL");
    ck_assert_int_eq(clpool_context_cache_info(ctx, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clpool_last_error(), "clpool_context_cache_info: info is NULL");
    char want[160];
    const size_t sizes[2] = {0, sizeof info - 1};
    for (int i = 0; i < 2; ++i) {
        info.struct_size = sizes[i];
        ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_ERROR_INVALID_ARGUMENT);
        snprintf(want, sizeof want,
                 "clpool_context_cache_info: info.struct_size is %zu, expected sizeof(clpool_cache_info) = %zu",
                 sizes[i], sizeof info);
        ck_assert_str_eq(clpool_last_error(), want);
    }
    /* A caller's larger struct (a later header): only this version's fields are written. */
    struct {
        clpool_cache_info info;
        unsigned char tail[32];
    } grown;
    memset(&grown, CU_SENTINEL, sizeof grown);
    grown.info.struct_size = sizeof grown;
    ck_assert_int_eq(clpool_context_cache_info(ctx, &grown.info), CLPOOL_SUCCESS);
    ck_assert(cu_all_sentinel(grown.tail, sizeof grown.tail));
    ck_assert_uint_eq(grown.info.struct_size, sizeof grown.info);
    ck_assert_int_eq(grown.info.state, CLPOOL_CACHE_OFF_REQUESTED);
    ck_assert_str_eq(grown.info.directory, "");
    ck_assert_str_eq(grown.info.reason, "CLPOOL_CACHE_DIR=off");
    clpool_context_release(ctx);
}
END_TEST

/* Valid entries in a directory others may write to, or another user's
 * directory, are not used and nothing is written there; the same bytes in
 * a private directory are (the control). */
START_TEST(shared_or_foreign_directories_are_not_used)
{
    char source[1100], name[64], dir[1100], entry[1200];
    test_path(source, sizeof source, "source");
    size_t size = 0;
    unsigned char *bytes = valid_entry(source, name, sizeof name, &size);
    const struct {
        const char *tag;
        unsigned mode;
        int foreign;
        clpool_cache_state state;
        const char *reason;
    } cases[] = {
        {"world-writable", 0777, 0, CLPOOL_CACHE_OFF_SHARED, "is writable by group or others (mode 0777)"},
        {"sticky", 01777, 0, CLPOOL_CACHE_OFF_SHARED, "is writable by group or others (mode 1777)"},
        {"group-writable", 0770, 0, CLPOOL_CACHE_OFF_SHARED, "is writable by group or others (mode 0770)"},
        {"foreign", 0700, 1, CLPOOL_CACHE_OFF_FOREIGN_OWNER, "belongs to uid 65534, not to the effective uid"},
        {"private", 0700, 0, CLPOOL_CACHE_ON, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        test_path(dir, sizeof dir, cases[i].tag);
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        snprintf(entry, sizeof entry, "%s/%s", dir, name);
        write_bytes(entry, bytes, size);
        struct stat before;
        ck_assert_int_eq(stat(entry, &before), 0);
        ck_assert_int_eq(chmod(dir, cases[i].mode), 0);
        if (cases[i].foreign) ck_assert_int_eq(chown(dir, OTHER_UID, OTHER_UID), 0);
        const cache_run r = run_once(dir);
        ck_assert_msg(r.state == cases[i].state && strstr(r.reason, cases[i].reason) != NULL,
                      "%s: state %d, reason '%s'", cases[i].tag, (int)r.state, r.reason);
        if (cases[i].state == CLPOOL_CACHE_ON) assert_counts(&r, 1, 0, 0, 0, cases[i].tag);
        ck_assert_int_eq(dir_names(dir, NULL, 0), 1); /* nothing written beside it */
        assert_untouched(entry, &before);
        assert_bytes(entry, bytes, size);
        remove_tree(dir);
    }
    free(bytes);
    remove_tree(source);
}
END_TEST

/* Another user's file, a symlink to a valid entry elsewhere and a FIFO at an
 * entry's name are not used (a FIFO does not block the open) and are
 * replaced by a rebuilt entry of ours; the symlink's target is untouched. */
START_TEST(planted_entries_are_ignored_and_replaced)
{
    char dir[1100], name[64], entry[1200], target[1100];
    test_path(dir, sizeof dir, "planted");
    size_t size = 0;
    unsigned char *bytes = valid_entry(dir, name, sizeof name, &size);
    snprintf(entry, sizeof entry, "%s/%s", dir, name);
    test_path(target, sizeof target, "symlink-target");
    write_bytes(target, bytes, size);
    struct stat target_before;
    ck_assert_int_eq(lstat(target, &target_before), 0);
    alarm(60); /* a FIFO that blocked the open would hang here: fail instead */
    for (int kind = 0; kind < 3; ++kind) {
        const char *what = kind == 0 ? "entry of uid 65534" : kind == 1 ? "symlink entry" : "FIFO entry";
        ck_assert_int_eq(unlink(entry), 0);
        if (kind == 0) {
            write_bytes(entry, bytes, size); /* a valid entry but another user's */
            ck_assert_int_eq(chown(entry, OTHER_UID, OTHER_UID), 0);
        } else if (kind == 1) {
            ck_assert_int_eq(symlink(target, entry), 0);
        } else {
            ck_assert_int_eq(mkfifo(entry, 0600), 0);
        }
        cache_run r = run_once(dir);
        assert_counts(&r, 0, 1, 1, 1, what);
        char only[1200];
        only_entry(dir, only, sizeof only); /* the rebuilt entry and no temporary file */
        assert_private_file(entry);
        r = run_once(dir);
        assert_counts(&r, 1, 0, 0, 0, what);
    }
    alarm(0);
    assert_untouched(target, &target_before);
    assert_bytes(target, bytes, size);
    free(bytes);
    ck_assert_int_eq(unlink(target), 0);
    remove_tree(dir);
}
END_TEST

/* FNV-1a, 64 bits: the entry checksum's definition, written out so a test can forge a valid one. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* An entry's binary: offset and length (magic, key length, key, binary length, binary, checksum). */
static void entry_binary(const unsigned char *bytes, size_t size, size_t *at, size_t *len)
{
    uint64_t key_len, bin_len;
    memcpy(&key_len, bytes + 8, 8);
    memcpy(&bin_len, bytes + 16 + key_len, 8);
    *at = 24 + (size_t)key_len;
    *len = (size_t)bin_len;
    ck_assert_uint_eq(*at + *len + 8, size);
}

/* A valid entry written into the fresh directory test_path(what): its path, bytes and binary's place. */
typedef struct entry_file {
    char dir[1100], name[64], path[1200];
    unsigned char *bytes;
    size_t size, at, len;
} entry_file;

static void entry_file_make(entry_file *e, const char *what)
{
    test_path(e->dir, sizeof e->dir, what);
    e->size = 0;
    e->bytes = valid_entry(e->dir, e->name, sizeof e->name, &e->size);
    snprintf(e->path, sizeof e->path, "%s/%s", e->dir, e->name);
    entry_binary(e->bytes, e->size, &e->at, &e->len);
}

/* Whether the device's driver is PoCL, which refuses a garbage binary with an error (Mesa's rusticl
 * 22.3 aborts the process instead). */
static int driver_is_pocl(void)
{
    clpool_context *ctx = cu_context_create();
    clpool_device_info info;
    ck_assert_int_eq(clpool_context_device_info(ctx, &info), CLPOOL_SUCCESS);
    clpool_context_release(ctx);
    return strstr(info.platform_name, "Portable Computing Language") != NULL;
}

/* A damaged binary (its checksum no longer matches) and, on PoCL, a forged one (garbage under a valid
 * checksum, which the driver refuses) are rebuilt from source and rewritten. */
START_TEST(damaged_binaries_are_rebuilt)
{
    entry_file e;
    entry_file_make(&e, "damaged");
    for (int forged = 0; forged < 1 + driver_is_pocl(); ++forged) {
        unsigned char *bad = malloc(e.size);
        ck_assert_ptr_nonnull(bad);
        memcpy(bad, e.bytes, e.size);
        if (!forged) {
            bad[e.at + e.len / 2] ^= 0x40;
        } else {
            memset(bad + e.at, 0x5a, e.len);
            const uint64_t sum = fnv1a(bad + e.at, e.len);
            memcpy(bad + e.at + e.len, &sum, 8);
        }
        ck_assert_int_eq(unlink(e.path), 0);
        write_bytes(e.path, bad, e.size);
        free(bad);
        cache_run r = run_once(e.dir);
        assert_counts(&r, 0, 1, 1, 1, forged ? "forged binary" : "damaged binary");
        r = run_once(e.dir);
        assert_counts(&r, 1, 0, 0, 0, forged ? "after the forged binary" : "after the damaged binary");
    }
    free(e.bytes);
    remove_tree(e.dir);
}
END_TEST

/* An entry cut short at each field (in the magic, its key length, key, binary length, binary and
 * checksum) or with a field forged (magic, key length, key, binary length 0 and past the 256 MiB limit) is
 * refused before the driver sees it, rebuilt from source and rewritten. */
START_TEST(truncated_and_forged_headers_are_rebuilt)
{
    entry_file e;
    entry_file_make(&e, "headers");
    const size_t key_at = 16, key_len = e.at - 24;
    const size_t cuts[] = {4, 8, 12, key_at + key_len / 2, e.at - 4, e.at + e.len / 2, e.size - 4};
    enum { FORGED = 6 };
    for (size_t v = 0; v < sizeof cuts / sizeof cuts[0] + FORGED; ++v) {
        unsigned char *bad = malloc(e.size);
        ck_assert_ptr_nonnull(bad);
        memcpy(bad, e.bytes, e.size);
        size_t bad_size = e.size;
        char what[64];
        if (v < sizeof cuts / sizeof cuts[0]) {
            bad_size = cuts[v];
            snprintf(what, sizeof what, "cut at byte %zu of %zu", bad_size, e.size);
        } else {
            const size_t f = v - sizeof cuts / sizeof cuts[0];
            const uint64_t big = (uint64_t)1 << 40, zero = 0, longer = key_len + 1;
            if (f == 0) bad[0] ^= 1; /* magic */
            if (f == 1) memcpy(bad + 8, &longer, 8); /* key length */
            if (f == 2) bad[key_at + key_len - 1] ^= 1; /* key */
            if (f == 3) memcpy(bad + e.at - 8, &zero, 8); /* binary length 0 */
            if (f == 4) memcpy(bad + e.at - 8, &big, 8); /* binary length past the limit */
            if (f == 5) bad[e.size - 1] ^= 1; /* checksum */
            snprintf(what, sizeof what, "forged field %zu", f);
        }
        ck_assert_int_eq(unlink(e.path), 0);
        write_bytes(e.path, bad, bad_size);
        free(bad);
        cache_run r = run_once(e.dir);
        assert_counts(&r, 0, 1, 1, 1, what);
        size_t now = 0;
        unsigned char *rewritten = read_bytes(e.path, &now);
        ck_assert_msg(now == e.size, "%s: rewritten entry of %zu bytes, expected %zu", what, now, e.size);
        free(rewritten);
    }
    free(e.bytes);
    remove_tree(e.dir);
}
END_TEST

/* The directory a context opened is moved away and another made at its path, or removed, before the
 * context builds: no entry is written, in either directory, and no temporary file is left (the entry
 * is written only where the opened directory still is). */
START_TEST(moved_or_removed_directories_get_no_entry)
{
    char dir[1100], old[1200], name[64];
    test_path(dir, sizeof dir, "moved");
    snprintf(old, sizeof old, "%s.old", dir);
    for (int removed = 0; removed < 2; ++removed) {
        setenv("CLPOOL_CACHE_DIR", dir, 1);
        clpool_context *ctx = cu_context_create();
        if (removed) {
            ck_assert_int_eq(rmdir(dir), 0);
        } else {
            ck_assert_int_eq(rename(dir, old), 0);
            ck_assert_int_eq(mkdir(dir, 0700), 0);
        }
        ck_assert_msg(small_maxpool_ok(ctx), "MaxPool: %s", clpool_last_error());
        clpool_cache_info info = {.struct_size = sizeof info};
        ck_assert_int_eq(clpool_context_cache_info(ctx, &info), CLPOOL_SUCCESS);
        ck_assert_msg(info.misses == 1 && info.writes == 0, "%s: misses %llu writes %llu", removed ? "removed" : "moved",
                      (unsigned long long)info.misses, (unsigned long long)info.writes);
        clpool_context_release(ctx);
        setenv("CLPOOL_CACHE_DIR", "off", 1);
        if (!removed) {
            ck_assert_int_eq(dir_names(dir, name, sizeof name), 0);
            ck_assert_int_eq(dir_names(old, name, sizeof name), 0);
            remove_tree(old);
            remove_tree(dir);
        }
    }
}
END_TEST

/* The driver or the directory failing the cache's own steps costs the entry, never the result: a valid
 * entry whose binary the driver will not build (clBuildProgram, injected through tests/cl_interpose.c) is
 * rebuilt from source and rewritten; a failed query of the binary (its size, then its bytes:
 * clGetProgramInfo) writes no entry and leaves no file; so does a directory at the entry's name, which
 * the new file cannot be renamed over. */
START_TEST(driver_and_directory_failures_cost_only_the_entry)
{
    char dir[1100], name[64];
    test_path(dir, sizeof dir, "failures");
    size_t size = 0;
    free(valid_entry(dir, name, sizeof name, &size));
    /* a context that finds the entry builds its binary first */
    ci_arm("cached binary refused", "clBuildProgram", 1, CL_BUILD_PROGRAM_FAILURE);
    cache_run r = run_once(dir);
    ci_disarm();
    ck_assert_str_eq(ci_failed_call() ? ci_failed_call() : "(none)", "clBuildProgram");
    assert_counts(&r, 0, 1, 1, 1, "cached binary refused by the driver");
    ck_assert_int_eq(dir_names(dir, NULL, 0), 1);
    remove_tree(dir);
    for (int at = 1; at <= 2; ++at) {
        ci_arm("binary query failed", "clGetProgramInfo", at, CL_OUT_OF_RESOURCES);
        r = run_once(dir);
        ci_disarm();
        ck_assert_str_eq(ci_failed_call() ? ci_failed_call() : "(none)", "clGetProgramInfo");
        assert_counts(&r, 0, 1, 0, 0, at == 1 ? "binary size query failed" : "binary query failed");
        ck_assert_int_eq(dir_names(dir, NULL, 0), 0);
        remove_tree(dir);
    }
    /* A directory planted at the entry's name: rename cannot replace it, and the new file is removed. */
    free(valid_entry(dir, name, sizeof name, &size));
    char entry[1200], inside[1300];
    snprintf(entry, sizeof entry, "%s/%s", dir, name);
    snprintf(inside, sizeof inside, "%s/planted", entry);
    ck_assert_int_eq(unlink(entry), 0);
    ck_assert_int_eq(mkdir(entry, 0700), 0);
    write_bytes(inside, (const unsigned char *)"x", 1);
    r = run_once(dir);
    assert_counts(&r, 0, 1, 1, 0, "a directory at the entry's name");
    ck_assert_int_eq(dir_names(dir, NULL, 0), 1);
    ck_assert_int_eq(dir_names(entry, NULL, 0), 1);
    remove_tree(dir);
}
END_TEST

/* A full disk (a file-size limit, as RLIMIT_FSIZE sets for the process) fails the entry's write: the
 * result is right, no entry is counted or left, nor any temporary file. The limit holds from the binary's
 * query (clGetProgramInfo's second call) to the kernel's creation, set through tests/cl_interpose.c, so the
 * driver's own files are not limited; in a fresh child process (Check's own reports are files too). */
static rlim_t full_disk_limit;
static int full_disk_queries;
static void full_disk_lift(void);

static void full_disk_set(void)
{
    if (++full_disk_queries != 2) return;
    struct rlimit small;
    getrlimit(RLIMIT_FSIZE, &small);
    small.rlim_cur = full_disk_limit;
    if (setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(4);
    ci_after("clGetKernelWorkGroupInfo", full_disk_lift);
}

static void full_disk_lift(void)
{
    struct rlimit r;
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) _exit(5);
    ci_after(NULL, NULL);
}

/* Child mode (argv[1] == "--full-disk-child", argv[2] the limit in bytes): the small MaxPool under the
 * limit, then "hits misses refused writes" on stdout; exit 0 only if the result was right. */
static int full_disk_child(const char *limit)
{
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
    full_disk_limit = (rlim_t)strtoull(limit, NULL, 10);
    ci_after("clGetProgramInfo", full_disk_set);
    clpool_context *ctx = NULL;
    if (clpool_context_create(NULL, &ctx) != CLPOOL_SUCCESS) return 2;
    const int ok = small_maxpool_ok(ctx);
    clpool_cache_info info = {.struct_size = sizeof info};
    clpool_context_cache_info(ctx, &info);
    printf("%llu %llu %llu %llu\n", (unsigned long long)info.hits, (unsigned long long)info.misses,
           (unsigned long long)info.refused, (unsigned long long)info.writes);
    clpool_context_release(ctx);
    return ok && full_disk_queries == 2 && info.state == CLPOOL_CACHE_ON ? 0 : 3;
}

START_TEST(a_full_disk_costs_only_the_entry)
{
    char dir[1100];
    test_path(dir, sizeof dir, "full");
    setenv("CLPOOL_CACHE_DIR", dir, 1);
    const char *asan = getenv("ASAN_OPTIONS");
    char saved_asan[512];
    snprintf(saved_asan, sizeof saved_asan, "%s", asan ? asan : "");
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0", 1); /* as concurrent_builds_leave_one_valid_entry */
    const char *limits[] = {"0", "100", "5000"};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
        int out[2];
        ck_assert_int_eq(pipe(out), 0);
        fcntl(out[0], F_SETFD, FD_CLOEXEC);
        fcntl(out[1], F_SETFD, FD_CLOEXEC);
        posix_spawn_file_actions_t actions;
        ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
        ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, out[1], 1), 0);
        char exe[] = "/proc/self/exe", flag[] = "--full-disk-child", limit[16];
        snprintf(limit, sizeof limit, "%s", limits[i]);
        char *argv[4] = {exe, flag, limit, NULL};
        pid_t pid;
        ck_assert_int_eq(posix_spawn(&pid, exe, &actions, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&actions);
        close(out[1]);
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        FILE *f = fdopen(out[0], "r");
        ck_assert_ptr_nonnull(f);
        cache_run r = {.state = CLPOOL_CACHE_ON};
        unsigned long long h = 0, m = 0, x = 0, w = 0;
        const int read = fscanf(f, "%llu %llu %llu %llu", &h, &m, &x, &w);
        fclose(f);
        char what[64];
        snprintf(what, sizeof what, "a disk full after %s bytes", limits[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && read == 4, "%s: the child failed (status 0x%x)",
                      what, status);
        r.hits = h, r.misses = m, r.refused = x, r.writes = w;
        assert_counts(&r, 0, 1, 0, 0, what);
        ck_assert_msg(dir_names(dir, NULL, 0) == 0, "%s: a file was left", what);
        remove_tree(dir);
    }
    setenv("CLPOOL_CACHE_DIR", "off", 1);
    if (asan) setenv("ASAN_OPTIONS", saved_asan, 1);
    else unsetenv("ASAN_OPTIONS");
}
END_TEST

/* Saves the working directory in cwd, then makes the tests' temporary directory the working one. */
static void enter_tmpdir(char *cwd, size_t len)
{
    ck_assert_ptr_nonnull(getcwd(cwd, len));
    ck_assert_int_eq(chdir(cu_tmpdir()), 0);
}

/* A relative CLPOOL_CACHE_DIR is taken from the working directory of the context's creation. */
START_TEST(relative_directories_are_resolved)
{
    char cwd[1100], dir[1100];
    enter_tmpdir(cwd, sizeof cwd);
    char rel[64];
    snprintf(rel, sizeof rel, "binary-cache-%d-relative", (int)getpid());
    snprintf(dir, sizeof dir, "%s/%s", cu_tmpdir(), rel);
    cache_run r = run_once(rel);
    assert_counts(&r, 0, 1, 0, 1, "relative directory");
    ck_assert_int_eq(chdir(cwd), 0);
    char name[64];
    ck_assert_int_eq(dir_names(dir, name, sizeof name), 1);
    remove_tree(dir);
}
END_TEST

/* A relative directory under a working directory so deep that the two exceed the cache's path buffer:
 * the cache is off and says why (16 levels of 250-byte names, about 4 KiB). */
START_TEST(deep_working_directories_are_refused)
{
    char cwd[1100], level[251];
    enter_tmpdir(cwd, sizeof cwd);
    const int named = snprintf(level, sizeof level, "binary-cache-%d-deep", (int)getpid());
    memset(level + named, 'd', sizeof level - 1 - (size_t)named);
    level[sizeof level - 1] = '\0';
    for (int i = 0; i < 16; ++i) {
        ck_assert_int_eq(mkdir(level, 0700), 0);
        ck_assert_int_eq(chdir(level), 0);
    }
    const cache_run r = run_once("c");
    ck_assert_msg(r.state == CLPOOL_CACHE_OFF_UNUSABLE && strstr(r.reason, "the working directory plus this path exceed"),
                  "state %d, reason '%s'", (int)r.state, r.reason);
    rmdir("c"); /* made before the path was judged */
    for (int i = 0; i < 16; ++i) {
        ck_assert_int_eq(chdir(".."), 0);
        ck_assert_int_eq(rmdir(level), 0);
    }
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Child mode (argv[1] == "--build-child"): create a context, print "R"
 * (ready), wait until stdin closes (all children then build together), run
 * the small MaxPool, print "hits misses refused writes"; exit 0 only if the
 * result was right and the cache was on. */
static int build_child(void)
{
    clpool_context *ctx = NULL;
    const clpool_status created = clpool_context_create(NULL, &ctx);
    if (write(1, "R", 1) != 1 || created != CLPOOL_SUCCESS) return 3; /* "R" even then: the parent counts them */
    char c;
    while (read(0, &c, 1) > 0) {
    }
    const int ok = small_maxpool_ok(ctx);
    clpool_cache_info info = {.struct_size = sizeof info};
    const int on = clpool_context_cache_info(ctx, &info) == CLPOOL_SUCCESS && info.state == CLPOOL_CACHE_ON;
    char line[128];
    const int n = snprintf(line, sizeof line, "%llu %llu %llu %llu\n", (unsigned long long)info.hits,
                           (unsigned long long)info.misses, (unsigned long long)info.refused,
                           (unsigned long long)info.writes);
    const int written = write(1, line, (size_t)n) == n; /* one write below PIPE_BUF: lines never interleave */
    clpool_context_release(ctx);
    return !ok ? 1 : !on ? 2 : !written ? 4 : 0;
}

/* 8 processes that build the same program at once all get the right result,
 * none ever sees a partial entry, and one valid entry is left. The children
 * are fresh executables (posix_spawn): an OpenCL context does not survive fork. */
START_TEST(concurrent_builds_leave_one_valid_entry)
{
    enum { CHILDREN = 8 };
    char dir[1100], entry[1200];
    test_path(dir, sizeof dir, "concurrent");
    setenv("CLPOOL_CACHE_DIR", dir, 1);
    /* Children skip LSan's exit check, as the tests spawning the CLI do (tests/CMakeLists.txt). */
    char saved_asan[512];
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(saved_asan, sizeof saved_asan, "%s", asan ? asan : "");
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0", 1);
    int gate[2], results[2];
    ck_assert_int_eq(pipe(gate), 0);
    ck_assert_int_eq(pipe(results), 0);
    for (int i = 0; i < 2; ++i) {
        fcntl(gate[i], F_SETFD, FD_CLOEXEC);
        fcntl(results[i], F_SETFD, FD_CLOEXEC);
    }
    posix_spawn_file_actions_t actions;
    ck_assert_int_eq(posix_spawn_file_actions_init(&actions), 0);
    ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, gate[0], 0), 0);
    ck_assert_int_eq(posix_spawn_file_actions_adddup2(&actions, results[1], 1), 0);
    char exe[] = "/proc/self/exe", flag[] = "--build-child";
    char *argv[3] = {exe, flag, NULL};
    pid_t pids[CHILDREN];
    for (int i = 0; i < CHILDREN; ++i)
        ck_assert_int_eq(posix_spawn(&pids[i], exe, &actions, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    setenv("CLPOOL_CACHE_DIR", "off", 1);
    if (asan) setenv("ASAN_OPTIONS", saved_asan, 1);
    else unsetenv("ASAN_OPTIONS");
    close(gate[0]);
    close(results[1]);
    for (int ready = 0; ready < CHILDREN;) { /* every child has its context: open the gate */
        char r[CHILDREN];
        const ssize_t n = read(results[0], r, (size_t)(CHILDREN - ready));
        ck_assert_int_gt(n, 0);
        for (ssize_t i = 0; i < n; ++i) ck_assert_int_eq(r[i], 'R');
        ready += (int)n;
    }
    close(gate[1]);
    for (int i = 0; i < CHILDREN; ++i) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status 0x%x", i, status);
    }
    FILE *f = fdopen(results[0], "r");
    ck_assert_ptr_nonnull(f);
    unsigned long long hits, misses, refused, writes, total_writes = 0;
    int lines = 0;
    while (fscanf(f, "%llu %llu %llu %llu", &hits, &misses, &refused, &writes) == 4) {
        ck_assert_msg(hits + misses == 1 && refused == 0 && writes == misses,
                      "child: hits %llu misses %llu refused %llu writes %llu", hits, misses, refused, writes);
        total_writes += writes;
        ++lines;
    }
    fclose(f);
    ck_assert_int_eq(lines, CHILDREN);
    ck_assert_uint_ge(total_writes, 1);
    only_entry(dir, entry, sizeof entry);
    assert_private_file(entry);
    const cache_run r = run_once(dir);
    assert_counts(&r, 1, 0, 0, 0, "after the concurrent builds");
    remove_tree(dir);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--build-child") == 0) return build_child();
    if (argc == 3 && strcmp(argv[1], "--full-disk-child") == 0) return full_disk_child(argv[2]);
    Suite *s = suite_create("binary_cache");
    TCase *tc = cu_tcase(s, "binary_cache", 0);
    tcase_add_test(tc, created_directories_are_private_and_receive_entries);
    tcase_add_test(tc, cache_off_states_say_why);
    tcase_add_test(tc, cache_info_rejects_bad_arguments);
    tcase_add_test(tc, shared_or_foreign_directories_are_not_used);
    tcase_add_test(tc, planted_entries_are_ignored_and_replaced);
    tcase_add_test(tc, damaged_binaries_are_rebuilt);
    tcase_add_test(tc, truncated_and_forged_headers_are_rebuilt);
    tcase_add_test(tc, driver_and_directory_failures_cost_only_the_entry);
    tcase_add_test(tc, moved_or_removed_directories_get_no_entry);
    tcase_add_test(tc, a_full_disk_costs_only_the_entry);
    tcase_add_test(tc, relative_directories_are_resolved);
    tcase_add_test(tc, deep_working_directories_are_refused);
    tcase_add_test(tc, concurrent_builds_leave_one_valid_entry);
    return cu_run_suite(s, CK_NORMAL);
}
