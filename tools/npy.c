/* .npy reader/writer. The header is a python dict literal, parsed here with a
 * tiny tokenizer that understands exactly the literals numpy writes (strings,
 * True/False, tuples of ints) in any key order and spacing. */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6

/* descr kind letter + item size <-> dtype code */
static const struct {
    char kind;
    size_t size;
    int32_t dtype;
} DESCRS[] = {
    {'f', 4, PB_DT_FLOAT32}, {'f', 8, PB_DT_FLOAT64}, {'f', 2, PB_DT_FLOAT16},
    {'i', 1, PB_DT_INT8},    {'i', 2, PB_DT_INT16},   {'i', 4, PB_DT_INT32},
    {'i', 8, PB_DT_INT64},   {'u', 1, PB_DT_UINT8},   {'u', 2, PB_DT_UINT16},
    {'u', 4, PB_DT_UINT32},  {'u', 8, PB_DT_UINT64},  {'b', 1, PB_DT_BOOL},
    {'u', 2, PB_DT_BFLOAT16}, /* write-only: numpy has no bfloat16 */
};
#define N_DESCRS (sizeof DESCRS / sizeof DESCRS[0])

/* Header text comes from the file: make it printable before quoting it. */
static void printable(char *dst, size_t cap, const char *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 4 < cap; i++)
        dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (j + 4 >= cap && n > j) {
        memcpy(dst + j, "...", 3);
        j += 3;
    }
    dst[j] = '\0';
}

/* ---- header dict tokenizer ---- */

typedef struct {
    const char *p, *end;
    const char *src;
    char *err;
    size_t errlen;
} hdr;

#define HFAIL(h, ...) tool_errf((h)->err, (h)->errlen, (h)->src, __VA_ARGS__)

static void h_ws(hdr *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
        h->p++;
}

static int h_peek(const hdr *h)
{
    return h->p < h->end ? (unsigned char)*h->p : -1;
}

static int h_expect(hdr *h, char c, const char *where)
{
    h_ws(h);
    if (h_peek(h) != c)
        return HFAIL(h, "malformed header: expected '%c' %s", c, where);
    h->p++;
    return 0;
}

/* A quoted python string without escapes; the result points into the header. */
static int h_string(hdr *h, const char **s, size_t *n, const char *what)
{
    h_ws(h);
    int q = h_peek(h);
    if (q != '\'' && q != '"')
        return HFAIL(h, "malformed header: %s must be a quoted string", what);
    const char *start = ++h->p;
    while (h->p < h->end && *h->p != q) {
        if (*h->p == '\\')
            return HFAIL(h, "malformed header: escapes in %s are not supported", what);
        h->p++;
    }
    if (h->p >= h->end)
        return HFAIL(h, "malformed header: unterminated string in %s", what);
    *s = start;
    *n = (size_t)(h->p - start);
    h->p++;
    return 0;
}

static int h_word(hdr *h, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(h->end - h->p) >= n && memcmp(h->p, w, n) == 0) {
        h->p += n;
        return 1;
    }
    return 0;
}

static int h_descr(hdr *h, int32_t *dtype)
{
    h_ws(h);
    if (h_peek(h) == '[' || h_peek(h) == '{')
        return HFAIL(h, "structured dtypes are not supported");
    const char *s;
    size_t n;
    if (h_string(h, &s, &n, "'descr'") != 0)
        return -1;
    char shown[40];
    printable(shown, sizeof shown, s, n);
    char order = n > 0 ? s[0] : '\0';
    if (order != '<' && order != '|' && order != '>' && order != '=')
        return HFAIL(h, "unsupported descr '%s' (no byte order)", shown);
    if (n >= 2 && s[1] == 'O')
        return HFAIL(h, "object dtype '%s' (pickled data) is not supported", shown);
    if (order == '>')
        return HFAIL(h, "big-endian descr '%s' is not supported", shown);
    /* kind letter then 1-2 digit size, e.g. "<f4", "|b1" */
    if (n >= 3 && n <= 4) {
        size_t size = 0;
        int ok = 1;
        for (size_t i = 2; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                ok = 0;
            else
                size = size * 10 + (size_t)(s[i] - '0');
        }
        for (size_t i = 0; ok && i < N_DESCRS; i++) {
            if (DESCRS[i].kind != s[1] || DESCRS[i].size != size || DESCRS[i].dtype == PB_DT_BFLOAT16)
                continue;
            if (order == '<' || (order == '|' && size == 1)) {
                *dtype = DESCRS[i].dtype;
                return 0;
            }
        }
    }
    return HFAIL(h, "unsupported descr '%s'", shown);
}

static int h_bool(hdr *h, int *v)
{
    h_ws(h);
    if (h_word(h, "True"))
        *v = 1;
    else if (h_word(h, "False"))
        *v = 0;
    else
        return HFAIL(h, "malformed header: 'fortran_order' must be True or False");
    return 0;
}

/* "(3, 4)", "(5,)", "()"; py2 numpy wrote longs as "3L". */
static int h_shape(hdr *h, int *rank, int64_t *dims)
{
    if (h_expect(h, '(', "to start 'shape'") != 0)
        return -1;
    *rank = 0;
    for (;;) {
        h_ws(h);
        if (h_peek(h) == ')')
            break;
        if (h_peek(h) == '-')
            return HFAIL(h, "negative dimension in 'shape'");
        if (h_peek(h) < '0' || h_peek(h) > '9')
            return HFAIL(h, "malformed header: expected an integer in 'shape'");
        int64_t v = 0;
        while (h_peek(h) >= '0' && h_peek(h) <= '9') {
            int d = *h->p++ - '0';
            if (v > (INT64_MAX - d) / 10)
                return HFAIL(h, "dimension in 'shape' is too large");
            v = v * 10 + d;
        }
        if (h_peek(h) == 'L')
            h->p++;
        if (*rank >= TOOL_MAX_RANK)
            return HFAIL(h, "rank exceeds the maximum of %d", TOOL_MAX_RANK);
        dims[(*rank)++] = v;
        h_ws(h);
        if (h_peek(h) == ',') {
            h->p++;
            continue;
        }
        if (h_peek(h) != ')')
            return HFAIL(h, "malformed header: expected ',' or ')' in 'shape'");
    }
    h->p++;
    return 0;
}

static int parse_header(hdr *h, npy_array *out)
{
    int have_descr = 0, have_order = 0, have_shape = 0;
    if (h_expect(h, '{', "at the start of the header") != 0)
        return -1;
    for (;;) {
        h_ws(h);
        if (h_peek(h) == '}')
            break;
        const char *key;
        size_t klen;
        if (h_string(h, &key, &klen, "a header key") != 0 || h_expect(h, ':', "after a key") != 0)
            return -1;
        int *seen;
        int rc;
        if (klen == 5 && memcmp(key, "descr", 5) == 0) {
            seen = &have_descr;
            rc = h_descr(h, &out->dtype);
        } else if (klen == 13 && memcmp(key, "fortran_order", 13) == 0) {
            int fortran = 0;
            seen = &have_order;
            rc = h_bool(h, &fortran);
            if (rc == 0 && fortran)
                return HFAIL(h, "fortran_order True (column-major data) is not supported");
        } else if (klen == 5 && memcmp(key, "shape", 5) == 0) {
            seen = &have_shape;
            rc = h_shape(h, &out->rank, out->dims);
        } else {
            char shown[40];
            printable(shown, sizeof shown, key, klen);
            return HFAIL(h, "malformed header: unexpected key '%s'", shown);
        }
        if (rc != 0)
            return -1;
        if (*seen)
            return HFAIL(h, "malformed header: duplicate key");
        *seen = 1;
        h_ws(h);
        if (h_peek(h) == ',') {
            h->p++;
            continue;
        }
        if (h_peek(h) != '}')
            return HFAIL(h, "malformed header: expected ',' or '}' after a value");
    }
    h->p++;
    h_ws(h);
    if (h->p != h->end)
        return HFAIL(h, "malformed header: unexpected text after the dict");
    if (!have_descr || !have_order || !have_shape)
        return HFAIL(h, "malformed header: missing key '%s'",
                     !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Fills *out only on success, so a failed parse leaves it zeroed. */
static int parse_named(const char *src, const uint8_t *buf, size_t len, npy_array *out,
                       char *err, size_t errlen)
{
    npy_array a = {0};
    memset(out, 0, sizeof *out);
    if (len < NPY_MAGIC_LEN || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return tool_errf(err, errlen, src, "not a .npy file (bad magic)");
    if (len < 8)
        return tool_errf(err, errlen, src, "truncated header (file holds %zu bytes)", len);
    unsigned major = buf[6], minor = buf[7];
    size_t prefix = major == 1 ? 10 : 12;
    if (minor != 0 || major < 1 || major > 3)
        return tool_errf(err, errlen, src, "unsupported .npy format version %u.%u", major, minor);
    if (len < prefix)
        return tool_errf(err, errlen, src, "truncated header (file holds %zu bytes)", len);
    size_t hlen = major == 1 ? ((size_t)buf[8] | (size_t)buf[9] << 8) : (size_t)le32(buf + 8);
    if (hlen > len - prefix)
        return tool_errf(err, errlen, src, "truncated header: it claims %zu bytes but the file holds %zu after the prefix",
                         hlen, len - prefix);

    hdr h = {(const char *)buf + prefix, (const char *)buf + prefix + hlen, src, err, errlen};
    if (parse_header(&h, &a) != 0)
        return -1;

    size_t count, nbytes, avail = len - prefix - hlen;
    if (tool_shape_bytes(a.dims, a.rank, pb_dtype_size(a.dtype), &count, &nbytes) != 0)
        return tool_errf(err, errlen, src, "shape is too large (element count overflows)");
    if (nbytes > avail)
        return tool_errf(err, errlen, src, "header claims %zu bytes of data but file holds %zu", nbytes, avail);
    if (nbytes < avail)
        return tool_errf(err, errlen, src, "%zu trailing bytes after the %zu bytes of data", avail - nbytes, nbytes);
    a.data = malloc(nbytes ? nbytes : 1);
    if (a.data == NULL)
        return tool_errf(err, errlen, src, "out of memory (%zu bytes)", nbytes);
    if (nbytes)
        memcpy(a.data, buf + prefix + hlen, nbytes);
    a.nbytes = nbytes;
    *out = a;
    return 0;
}

int npy_parse(const uint8_t *buf, size_t len, npy_array *out, char *err, size_t errlen)
{
    return parse_named("<memory>", buf, len, out, err, errlen);
}

int npy_read(const char *path, npy_array *out, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    if (tool_read_file(path, &buf, &len, err, errlen) != 0)
        return -1;
    int rc = parse_named(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}

void npy_free(npy_array *a)
{
    if (a == NULL)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- writer ---- */

/* Checks A and writes its header bytes (magic .. '\n') into out[cap]. */
static int build_header(const npy_array *a, char *out, size_t cap, size_t *outlen,
                        const char *path, char *err, size_t errlen)
{
    size_t size = pb_dtype_size(a->dtype), count, nbytes;
    char kind = 0;
    for (size_t i = 0; i < N_DESCRS; i++)
        if (DESCRS[i].dtype == a->dtype)
            kind = DESCRS[i].kind;
    if (kind == 0 || size == 0)
        return tool_errf(err, errlen, path, "cannot write dtype %d (%s)", (int)a->dtype,
                         pb_dtype_name(a->dtype));
    if (a->rank < 0 || a->rank > TOOL_MAX_RANK)
        return tool_errf(err, errlen, path, "invalid rank %d", a->rank);
    if (tool_shape_bytes(a->dims, a->rank, size, &count, &nbytes) != 0)
        return tool_errf(err, errlen, path, "invalid shape (negative dim or overflow)");
    if (nbytes != a->nbytes || (nbytes > 0 && a->data == NULL))
        return tool_errf(err, errlen, path, "array holds %zu bytes but its shape needs %zu",
                         a->data ? a->nbytes : 0, nbytes);

    /* exactly numpy's repr: "(5,)" for rank 1, "(3, 4)" otherwise */
    char shape[TOOL_MAX_RANK * 22 + 4];
    size_t n = 0;
    shape[n++] = '(';
    for (int i = 0; i < a->rank; i++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%lld", i ? ", " : "", (long long)a->dims[i]);
    if (a->rank == 1)
        shape[n++] = ',';
    shape[n++] = ')';
    shape[n] = '\0';

    size_t d = (size_t)snprintf(out + 10, cap - 10, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': %s, }",
                     size == 1 ? '|' : '<', kind, size, shape);
    size_t total = (10 + d + 1 + 63) / 64 * 64; /* +1 for the final '\n' */
    memset(out + 10 + d, ' ', total - 10 - d - 1);
    out[total - 1] = '\n';
    memcpy(out, NPY_MAGIC "\x01\x00", 8);
    out[8] = (char)((total - 10) & 0xff);
    out[9] = (char)((total - 10) >> 8);
    *outlen = total;
    return 0;
}

int npy_write(const char *path, const npy_array *a, char *err, size_t errlen)
{
    char header[1024]; /* the longest dict (16 dims of 19 digits) is < 500 bytes */
    size_t hlen = 0;
    if (build_header(a, header, sizeof header, &hlen, path, err, errlen) != 0)
        return -1;

    /* O_EXCL temp name next to the target so rename() is atomic and we never
     * clobber someone else's file; open() honours the umask unlike mkstemp. */
    static unsigned counter;
    size_t tlen = strlen(path) + 48;
    char *tmp = malloc(tlen);
    if (tmp == NULL)
        return tool_errf(err, errlen, path, "out of memory");
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(tmp, tlen, "%s.tmp%ld.%u", path, (long)getpid(), counter++);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return tool_errf(err, errlen, path, "cannot create output file: %s", strerror(e));
    }
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        int e = errno;
        close(fd);
        remove(tmp);
        free(tmp);
        return tool_errf(err, errlen, path, "cannot open output stream: %s", strerror(e));
    }
    int ok = fwrite(header, 1, hlen, f) == hlen;
    if (ok && a->nbytes > 0)
        ok = fwrite(a->data, 1, a->nbytes, f) == a->nbytes;
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(tmp);
        free(tmp);
        return tool_errf(err, errlen, path, "write failed: %s", strerror(e));
    }
    free(tmp);
    return 0;
}
