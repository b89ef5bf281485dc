/* Check suite for the .npy and ONNX protobuf readers in tools/.
 * Usage: test_readers [ONNX_NODE_DIR]   (or env CLPOOL_ONNX_NODE_DIR)
 * Temp files go to $CLPOOL_TEST_TMP (default "."). Every parse of hand-made
 * or truncated input runs on an exact-size heap copy so ASan sees overreads. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "onnx_pb.h"

static const char *g_data_dir;

/* ------------------------------------------------------------------ helpers */

static const char *tmp_dir(void)
{
    const char *d = getenv("CLPOOL_TEST_TMP");
    return d && *d ? d : ".";
}

static void tmp_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/test_readers_%ld_%s", tmp_dir(), (long)getpid(), name);
}

static int path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Number of entries in the temp dir whose name starts with our per-process stem. */
static int count_our_files(void)
{
    char stem[64];
    snprintf(stem, sizeof stem, "test_readers_%ld_", (long)getpid());
    DIR *d = opendir(tmp_dir());
    ck_assert_msg(d != NULL, "cannot open temp dir %s", tmp_dir());
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, stem, strlen(stem)) == 0;
    closedir(d);
    return n;
}

static void assert_err(int rc, const char *err, const char *needle)
{
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"", err, needle);
    ck_assert_msg(strchr(err, '\n') == NULL, "message \"%s\" is not one line", err);
}

static uint8_t *heap_copy(const void *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

static int npy_parse_copy(const void *p, size_t n, npy_array *a, char *err, size_t errlen)
{
    uint8_t *c = heap_copy(p, n);
    int rc = npy_parse(c, n, a, err, errlen);
    free(c);
    return rc;
}

static int tensor_parse_copy(const void *p, size_t n, onnx_tensor *t, char *err, size_t errlen)
{
    uint8_t *c = heap_copy(p, n);
    int rc = onnx_parse_tensor(c, n, t, err, errlen);
    free(c);
    return rc;
}

static int model_parse_copy(const void *p, size_t n, onnx_model *m, char *err, size_t errlen)
{
    uint8_t *c = heap_copy(p, n);
    int rc = onnx_parse_model(c, n, m, err, errlen);
    free(c);
    return rc;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    uint8_t *buf = malloc(1 << 22);
    ck_assert_ptr_nonnull(buf);
    *len = fread(buf, 1, 1 << 22, f);
    fclose(f);
    return buf;
}

static void data_path(char *out, size_t cap, const char *test, const char *file)
{
    ck_assert_msg(g_data_dir != NULL, "no ONNX node-test dir: pass it as argv[1] or CLPOOL_ONNX_NODE_DIR");
    snprintf(out, cap, "%s/%s/%s", g_data_dir, test, file);
}

/* ------------------------------------------------------------- npy: builders */

/* A .npy image: magic, version MAJOR.0, header DICT (unpadded), DATA_LEN bytes. */
static size_t make_npy(uint8_t *out, size_t cap, int major, const char *dict, size_t data_len)
{
    size_t hl = strlen(dict), prefix = major == 1 ? 10 : 12;
    ck_assert_uint_le(prefix + hl + data_len, cap);
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        out[8 + i] = (uint8_t)(hl >> (8 * i));
    memcpy(out + prefix, dict, hl);
    for (size_t i = 0; i < data_len; i++)
        out[prefix + hl + i] = (uint8_t)(i * 7 + 1);
    return prefix + hl + data_len;
}

/* ----------------------------------------------------------- npy: round trip */

static const int32_t ALL_DTYPES[] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16};
#define N_ALL_DTYPES ((int)(sizeof ALL_DTYPES / sizeof ALL_DTYPES[0]))

static const struct {
    int rank;
    int64_t dims[4];
} SHAPES[] = {
    {0, {0}}, {1, {5}}, {1, {0}}, {2, {3, 4}}, {3, {2, 0, 3}}, {3, {2, 3, 2}}, {4, {1, 2, 3, 4}}, {4, {2, 3, 1, 0}},
};

START_TEST(test_npy_roundtrip_dtype)
{
    int32_t dt = ALL_DTYPES[_i];
    size_t size = pb_dtype_size(dt);
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "rt.npy");
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        npy_array a = {0}, b = {0};
        size_t count = 1;
        a.dtype = dt;
        a.rank = SHAPES[s].rank;
        for (int i = 0; i < a.rank; i++) {
            a.dims[i] = SHAPES[s].dims[i];
            count *= (size_t)a.dims[i];
        }
        a.nbytes = count * size;
        a.data = malloc(a.nbytes + 1);
        for (size_t i = 0; i < a.nbytes; i++)
            ((uint8_t *)a.data)[i] = (uint8_t)(i * 37 + (size_t)dt);
        ck_assert_msg(npy_write(path, &a, err, sizeof err) == 0, "write: %s", err);
        ck_assert_msg(npy_read(path, &b, err, sizeof err) == 0, "read: %s", err);
        ck_assert_int_eq(b.dtype, dt == PB_DT_BFLOAT16 ? PB_DT_UINT16 : dt); /* numpy has no bfloat16 */
        ck_assert_int_eq(b.rank, a.rank);
        for (int i = 0; i < a.rank; i++)
            ck_assert_int_eq(b.dims[i], a.dims[i]);
        ck_assert_uint_eq(b.nbytes, a.nbytes);
        ck_assert_ptr_nonnull(b.data);
        ck_assert(memcmp(a.data, b.data, a.nbytes) == 0);
        free(a.data);
        npy_free(&b);
    }
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(count_our_files(), 0);
}
END_TEST

/* Byte-exact numpy 1.0 header: dict, space padding, '\n', total % 64 == 0. */
START_TEST(test_npy_write_header_like_numpy)
{
    static const struct {
        int32_t dt;
        int rank;
        int64_t dims[2];
        const char *dict;
    } cases[] = {
        {PB_DT_FLOAT32, 2, {3, 4}, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"},
        {PB_DT_INT8, 1, {5}, "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }"},
        {PB_DT_BOOL, 0, {0}, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }"},
        {PB_DT_UINT8, 1, {2}, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }"},
        {PB_DT_BFLOAT16, 1, {1}, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }"},
        {PB_DT_FLOAT16, 1, {1}, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }"},
    };
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "hdr.npy");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t data[64] = {0};
        npy_array a = {.dtype = cases[c].dt, .rank = cases[c].rank, .data = data};
        size_t count = 1;
        for (int i = 0; i < a.rank; i++)
            count *= (size_t)(a.dims[i] = cases[c].dims[i]);
        a.nbytes = count * pb_dtype_size(a.dtype);
        ck_assert_msg(npy_write(path, &a, err, sizeof err) == 0, "%s", err);
        size_t len;
        uint8_t *buf = slurp(path, &len);
        size_t dl = strlen(cases[c].dict), hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        ck_assert(memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0);
        ck_assert_uint_eq((10 + hlen) % 64, 0);
        ck_assert_uint_eq(len, 10 + hlen + a.nbytes);
        ck_assert(memcmp(buf + 10, cases[c].dict, dl) == 0);
        for (size_t i = 10 + dl; i < 10 + hlen - 1; i++)
            ck_assert_int_eq(buf[i], ' ');
        ck_assert_int_eq(buf[10 + hlen - 1], '\n');
        free(buf);
    }
    remove(path);
}
END_TEST

START_TEST(test_npy_write_overwrites)
{
    char path[512], err[256] = "";
    tmp_path(path, sizeof path, "ow.npy");
    int32_t v1[3] = {1, 2, 3}, v2 = 42;
    npy_array a = {.dtype = PB_DT_INT32, .rank = 1, .dims = {3}, .data = v1, .nbytes = sizeof v1};
    npy_array s = {.dtype = PB_DT_INT32, .rank = 0, .data = &v2, .nbytes = sizeof v2};
    npy_array b = {0};
    ck_assert(npy_write(path, &a, err, sizeof err) == 0);
    ck_assert(npy_write(path, &s, err, sizeof err) == 0);
    ck_assert(npy_read(path, &b, err, sizeof err) == 0);
    ck_assert_int_eq(b.rank, 0);
    ck_assert_int_eq(*(int32_t *)b.data, 42);
    npy_free(&b);
    remove(path);
    ck_assert_int_eq(count_our_files(), 0);
}
END_TEST

/* ------------------------------------------------- npy: tolerant header parse */

START_TEST(test_npy_v2_header)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n", 24);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.dtype, PB_DT_INT32);
    ck_assert_int_eq(a.rank, 2);
    ck_assert_int_eq(a.dims[0], 2);
    ck_assert_int_eq(a.dims[1], 3);
    ck_assert_uint_eq(a.nbytes, 24);
    ck_assert_int_eq(((uint8_t *)a.data)[1], 8);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_v3_header)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 3, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 8);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.dtype, PB_DT_FLOAT64);
    ck_assert_int_eq(a.rank, 1);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_key_order_and_spacing)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, " {  \"shape\" :( 2 ,3 ) ,\"fortran_order\":False,\t'descr':\"<u2\"}  \n", 12);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.dtype, PB_DT_UINT16);
    ck_assert_int_eq(a.rank, 2);
    ck_assert_int_eq(a.dims[1], 3);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_py2_long_dims)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2L, 1L), }", 16);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.rank, 2);
    ck_assert_int_eq(a.dims[0], 2);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_byte_descrs)
{
    static const struct {
        const char *descr;
        int32_t dt;
    } cases[] = {{"|u1", PB_DT_UINT8}, {"<u1", PB_DT_UINT8}, {"|i1", PB_DT_INT8}, {"<i1", PB_DT_INT8},
                 {"|b1", PB_DT_BOOL},  {"<f2", PB_DT_FLOAT16}, {"<u4", PB_DT_UINT32}, {"<u8", PB_DT_UINT64},
                 {"<i2", PB_DT_INT16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t buf[256];
        char dict[128], err[256] = "";
        npy_array a;
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }", cases[c].descr);
        size_t n = make_npy(buf, sizeof buf, 1, dict, 3 * pb_dtype_size(cases[c].dt));
        ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s: %s", cases[c].descr, err);
        ck_assert_int_eq(a.dtype, cases[c].dt);
        npy_free(&a);
    }
}
END_TEST

START_TEST(test_npy_scalar_and_rank1)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.rank, 0);
    ck_assert_uint_eq(a.nbytes, 4);
    npy_free(&a);
    n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 20);
    ck_assert_msg(npy_parse_copy(buf, n, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.rank, 1);
    ck_assert_int_eq(a.dims[0], 5);
    npy_free(&a);
}
END_TEST

/* ------------------------------------------------------ npy: rejection table */

static const struct {
    const char *dict;
    size_t data_len;
    const char *needle;
} NPY_BAD[] = {
    {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, "big-endian"},
    {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16, "fortran_order"},
    {"{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16, "object dtype"},
    {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, "structured"},
    {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "unsupported descr '<c8'"},
    {"{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8, "unsupported descr"},
    {"{'descr': '<U10', 'fortran_order': False, 'shape': (1,), }", 40, "unsupported descr"},
    {"{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", 8, "unsupported descr"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2), }", 8, "negative"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 8, "too large"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8, "too large"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000), }", 8, "header claims 4000000000000"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", 4, "rank"},
    {"{'descr': '<f4', 'fortran_order': False, }", 4, "missing key 'shape'"},
    {"{'descr': '<f4', 'shape': (1,), }", 4, "missing key 'fortran_order'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", 4, "unexpected key 'extra'"},
    {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4, "duplicate"},
    {"['descr', '<f4']", 4, "expected '{'"},
    {"", 4, "expected '{'"},
    {"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", 4, "True or False"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", 4, "unexpected text"},
    {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", 4, "unsupported descr '<f4, '"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }", 4, "expected ',' or ')'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", 4, "malformed header"},
    {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }", 4, "expected ',' or '}'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': 1, }", 4, "expected '('"},
    {"{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (1,), }", 4, "escapes"},
};

START_TEST(test_npy_reject_header)
{
    uint8_t buf[512];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, NPY_BAD[_i].dict, NPY_BAD[_i].data_len);
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, NPY_BAD[_i].needle);
    ck_assert_ptr_null(a.data);
    npy_free(&a); /* safe after failure */
}
END_TEST

START_TEST(test_npy_reject_short_data)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 10);
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, "header claims 24 bytes of data but file holds 10");
}
END_TEST

START_TEST(test_npy_reject_trailing_data)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 30);
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, "6 trailing bytes");
}
END_TEST

START_TEST(test_npy_reject_bad_magic)
{
    char err[256] = "";
    npy_array a;
    assert_err(npy_parse_copy("\x93NUMPZ\x01\x00\x00\x00", 10, &a, err, sizeof err), err, "bad magic");
    assert_err(npy_parse_copy("PK\x03\x04", 4, &a, err, sizeof err), err, "bad magic");
    assert_err(npy_parse(NULL, 0, &a, err, sizeof err), err, "bad magic");
}
END_TEST

START_TEST(test_npy_reject_version)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
    buf[6] = 4;
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, "version 4.0");
    buf[6] = 1;
    buf[7] = 1;
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, "version 1.1");
}
END_TEST

START_TEST(test_npy_reject_header_len_past_end)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
    buf[11] = 0x7f; /* u32 header length ~2 GB */
    assert_err(npy_parse_copy(buf, n, &a, err, sizeof err), err, "truncated header");
}
END_TEST

/* Every proper prefix of a valid file must be rejected, never overread. */
START_TEST(test_npy_every_prefix_rejected)
{
    uint8_t buf[256];
    char err[256] = "";
    npy_array a;
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3, 2), }", 12);
    for (size_t k = 0; k < n; k++) {
        err[0] = '\0';
        ck_assert_msg(npy_parse_copy(buf, k, &a, err, sizeof err) == -1, "prefix %zu accepted", k);
        ck_assert_msg(err[0] != '\0', "prefix %zu: empty message", k);
        ck_assert_ptr_null(a.data);
    }
    ck_assert_int_eq(npy_parse_copy(buf, n, &a, err, sizeof err), 0);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_read_missing_file)
{
    char path[512], err[256] = "";
    npy_array a;
    tmp_path(path, sizeof path, "does_not_exist.npy");
    assert_err(npy_read(path, &a, err, sizeof err), err, "cannot open");
    ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name the file", err);
    npy_free(&a);
}
END_TEST

START_TEST(test_npy_read_names_file)
{
    char path[512], err[256] = "";
    npy_array a;
    uint8_t buf[256];
    size_t n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (25, 41), }", 100);
    tmp_path(path, sizeof path, "short.npy");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
    fclose(f);
    assert_err(npy_read(path, &a, err, sizeof err), err, "header claims 4100 bytes of data but file holds 100");
    ck_assert(strncmp(err, path, strlen(path)) == 0);
    remove(path);
}
END_TEST

START_TEST(test_npy_free_zeroed)
{
    npy_array a;
    memset(&a, 0, sizeof a);
    npy_free(&a);
    npy_free(&a);
    npy_free(NULL);
}
END_TEST

START_TEST(test_npy_write_missing_dir)
{
    char dir[512], path[600], err[256] = "";
    float v = 1.0f;
    npy_array a = {.dtype = PB_DT_FLOAT32, .rank = 0, .data = &v, .nbytes = 4};
    tmp_path(dir, sizeof dir, "no_such_dir");
    snprintf(path, sizeof path, "%s/out.npy", dir);
    ck_assert(!path_exists(dir));
    assert_err(npy_write(path, &a, err, sizeof err), err, "cannot create");
    ck_assert(!path_exists(dir));
    ck_assert(!path_exists(path));
    ck_assert_int_eq(count_our_files(), 0);
}
END_TEST

START_TEST(test_npy_write_rejects_bad_array)
{
    char path[512], err[256] = "";
    float v[4] = {0};
    npy_array a = {.dtype = PB_DT_FLOAT32, .rank = 1, .dims = {4}, .data = v, .nbytes = 8};
    tmp_path(path, sizeof path, "bad.npy");
    assert_err(npy_write(path, &a, err, sizeof err), err, "shape needs 16");
    a.nbytes = 16;
    a.dtype = PB_DT_STRING;
    assert_err(npy_write(path, &a, err, sizeof err), err, "cannot write dtype 8");
    a.dtype = 99;
    assert_err(npy_write(path, &a, err, sizeof err), err, "cannot write dtype 99");
    a.dtype = PB_DT_FLOAT32;
    a.dims[0] = -4;
    assert_err(npy_write(path, &a, err, sizeof err), err, "invalid shape");
    a.dims[0] = 4;
    a.rank = TOOL_MAX_RANK + 1;
    assert_err(npy_write(path, &a, err, sizeof err), err, "invalid rank");
    a.rank = 1;
    a.data = NULL;
    assert_err(npy_write(path, &a, err, sizeof err), err, "holds 0 bytes");
    ck_assert(!path_exists(path));
    ck_assert_int_eq(count_our_files(), 0);
}
END_TEST

/* ------------------------------------------------- protobuf writer for tests */

typedef struct {
    uint8_t b[4096];
    size_t n;
} pbw;

static void w_raw(pbw *w, const void *p, size_t n)
{
    ck_assert_uint_le(w->n + n, sizeof w->b);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void w_varint(pbw *w, uint64_t v)
{
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            byte |= 0x80;
        w_raw(w, &byte, 1);
    } while (v);
}

static void w_key(pbw *w, uint32_t num, uint32_t wt)
{
    w_varint(w, (uint64_t)num << 3 | wt);
}

static void w_int(pbw *w, uint32_t num, int64_t v)
{
    w_key(w, num, 0);
    w_varint(w, (uint64_t)v);
}

static void w_bytes(pbw *w, uint32_t num, const void *p, size_t n)
{
    w_key(w, num, 2);
    w_varint(w, n);
    w_raw(w, p, n);
}

static void w_str(pbw *w, uint32_t num, const char *s)
{
    w_bytes(w, num, s, strlen(s));
}

static void w_msg(pbw *w, uint32_t num, const pbw *sub)
{
    w_bytes(w, num, sub->b, sub->n);
}

static void w_fixed(pbw *w, uint32_t num, uint64_t v, int n)
{
    w_key(w, num, n == 4 ? 5 : 1);
    for (int i = 0; i < n; i++) {
        uint8_t byte = (uint8_t)(v >> (8 * i));
        w_raw(w, &byte, 1);
    }
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* packed repeated varints */
static void w_packed_ints(pbw *w, uint32_t num, const int64_t *v, int n)
{
    pbw p = {.n = 0};
    for (int i = 0; i < n; i++)
        w_varint(&p, (uint64_t)v[i]);
    w_msg(w, num, &p);
}

static void w_packed_floats(pbw *w, uint32_t num, const float *v, int n)
{
    w_bytes(w, num, v, (size_t)n * 4); /* host is little-endian, as on every OpenCL host we target */
}

/* TensorProto header: dims (packed), data_type, name */
static void w_tensor_head(pbw *w, const int64_t *dims, int rank, int32_t dt)
{
    if (rank > 0)
        w_packed_ints(w, 1, dims, rank);
    w_int(w, 2, dt);
    w_str(w, 8, "t");
}

#define PARSE_T(w, t, err) tensor_parse_copy((w).b, (w).n, (t), (err), sizeof(err))
#define PARSE_M(w, m, err) model_parse_copy((w).b, (w).n, (m), (err), sizeof(err))

/* ------------------------------------------------------ ONNX: typed tensors */

START_TEST(test_pb_float_data_packed)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2, 2};
    float v[] = {1.5f, -2.0f, 0.0f, 1e30f};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 2, PB_DT_FLOAT32);
    w_packed_floats(&w, 4, v, 4);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert_str_eq(t.name, "t");
    ck_assert_int_eq(t.rank, 2);
    ck_assert_uint_eq(t.nbytes, 16);
    ck_assert(memcmp(t.data, v, 16) == 0);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_float_data_unpacked_dims_unpacked)
{
    pbw w = {.n = 0};
    float v[] = {3.0f, 4.0f, 5.0f};
    onnx_tensor t;
    char err[256] = "";
    w_int(&w, 1, 1);
    w_int(&w, 1, 3);
    w_int(&w, 2, PB_DT_FLOAT32);
    for (int i = 0; i < 3; i++)
        w_fixed(&w, 4, fbits(v[i]), 4);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert_int_eq(t.rank, 2);
    ck_assert_int_eq(t.dims[0], 1);
    ck_assert_int_eq(t.dims[1], 3);
    ck_assert(memcmp(t.data, v, 12) == 0);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_int32_data_narrow_types)
{
    static const struct {
        int32_t dt;
        int64_t vals[3];
        uint8_t expect[6];
    } cases[] = {
        {PB_DT_INT8, {-1, 127, -128}, {0xff, 0x7f, 0x80}},
        {PB_DT_UINT8, {0, 200, 255}, {0, 200, 255}},
        {PB_DT_BOOL, {0, 1, 5}, {0, 1, 1}},
        {PB_DT_INT16, {-2, 0x1234, 0}, {0xfe, 0xff, 0x34, 0x12, 0, 0}},
        {PB_DT_UINT16, {65535, 1, 0}, {0xff, 0xff, 1, 0, 0, 0}},
        {PB_DT_FLOAT16, {0x3c00, 0x4000, 0xfc00}, {0x00, 0x3c, 0x00, 0x40, 0x00, 0xfc}},
        {PB_DT_BFLOAT16, {0x3f80, 0xc000, 0x7fc0}, {0x80, 0x3f, 0x00, 0xc0, 0xc0, 0x7f}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pbw w = {.n = 0};
        int64_t dims[] = {3};
        onnx_tensor t;
        char err[256] = "";
        w_tensor_head(&w, dims, 1, cases[c].dt);
        w_packed_ints(&w, 5, cases[c].vals, 3);
        ck_assert_msg(PARSE_T(w, &t, err) == 0, "dtype %d: %s", cases[c].dt, err);
        ck_assert_uint_eq(t.nbytes, 3 * pb_dtype_size(cases[c].dt));
        ck_assert_msg(memcmp(t.data, cases[c].expect, t.nbytes) == 0, "dtype %d values", cases[c].dt);
        onnx_tensor_free(&t);
    }
}
END_TEST

START_TEST(test_pb_int32_data_int32)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_INT32);
    w_int(&w, 5, -7); /* unpacked, 10-byte sign-extended varint */
    w_int(&w, 5, INT32_MAX);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert_int_eq(((int32_t *)t.data)[0], -7);
    ck_assert_int_eq(((int32_t *)t.data)[1], INT32_MAX);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_int64_data)
{
    pbw w = {.n = 0};
    int64_t dims[] = {3}, vals[] = {-5, INT64_MAX, INT64_MIN};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_INT64);
    w_packed_ints(&w, 7, vals, 3);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert(memcmp(t.data, vals, 24) == 0);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_uint64_data)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_UINT64);
    w_key(&w, 11, 0);
    w_varint(&w, UINT64_MAX);
    w_key(&w, 11, 0);
    w_varint(&w, 7);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert(((uint64_t *)t.data)[0] == UINT64_MAX);
    ck_assert(((uint64_t *)t.data)[1] == 7);
    onnx_tensor_free(&t);

    pbw u = {.n = 0};
    int64_t v32[] = {(int64_t)UINT32_MAX, 3};
    w_tensor_head(&u, dims, 1, PB_DT_UINT32);
    w_packed_ints(&u, 11, v32, 2);
    ck_assert_msg(PARSE_T(u, &t, err) == 0, "%s", err);
    ck_assert_uint_eq(((uint32_t *)t.data)[0], UINT32_MAX);
    ck_assert_uint_eq(((uint32_t *)t.data)[1], 3);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_double_data_mixed_packing)
{
    pbw w = {.n = 0};
    int64_t dims[] = {3};
    double v[] = {0.25, -1e300, 3.0};
    uint64_t bits;
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT64);
    w_bytes(&w, 10, v, 16); /* first two packed */
    memcpy(&bits, &v[2], 8);
    w_fixed(&w, 10, bits, 8); /* third unpacked */
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert(memcmp(t.data, v, 24) == 0);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_scalar_and_empty)
{
    pbw w = {.n = 0};
    onnx_tensor t;
    char err[256] = "";
    w_int(&w, 2, PB_DT_FLOAT32);
    w_fixed(&w, 4, fbits(2.5f), 4);
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert_int_eq(t.rank, 0);
    ck_assert_uint_eq(t.nbytes, 4);
    ck_assert(*(float *)t.data == 2.5f);
    onnx_tensor_free(&t);

    pbw e = {.n = 0};
    int64_t dims[] = {2, 0, 1000000000000};
    w_tensor_head(&e, dims, 3, PB_DT_INT64); /* zero-size: no data at all */
    ck_assert_msg(PARSE_T(e, &t, err) == 0, "%s", err);
    ck_assert_int_eq(t.rank, 3);
    ck_assert_uint_eq(t.nbytes, 0);
    ck_assert_ptr_nonnull(t.data);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_skips_unknown_fields)
{
    pbw w = {.n = 0}, sub = {.n = 0};
    int64_t dims[] = {2};
    uint16_t raw[] = {0x1234, 0xabcd};
    onnx_tensor t;
    char err[256] = "";
    w_int(&sub, 1, 5);
    w_int(&w, 99, 12345);                 /* varint */
    w_fixed(&w, 100, 0x1122334455667788ULL, 8); /* fixed64 */
    w_tensor_head(&w, dims, 1, PB_DT_UINT16);
    w_msg(&w, 13, &sub);                  /* external_data entry, ignored */
    w_fixed(&w, 3000, 7, 4);              /* fixed32 */
    w_str(&w, 12, "doc string");          /* doc_string */
    w_bytes(&w, 9, raw, sizeof raw);
    w_int(&w, 536870911, 1);              /* largest field number */
    ck_assert_msg(PARSE_T(w, &t, err) == 0, "%s", err);
    ck_assert(memcmp(t.data, raw, 4) == 0);
    onnx_tensor_free(&t);
}
END_TEST

/* ---------------------------------------------------- ONNX: tensor rejects */

START_TEST(test_pb_reject_count_mismatch)
{
    pbw w = {.n = 0};
    int64_t dims[] = {4};
    float v[] = {1, 2, 3};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT32);
    w_packed_floats(&w, 4, v, 3);
    assert_err(PARSE_T(w, &t, err), err, "float_data holds 3 values, dims say 4");
    ck_assert_ptr_null(t.data);
    onnx_tensor_free(&t);
}
END_TEST

START_TEST(test_pb_reject_missing_data)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_INT64);
    assert_err(PARSE_T(w, &t, err), err, "int64_data holds 0 values, dims say 2");
}
END_TEST

START_TEST(test_pb_reject_raw_length)
{
    pbw w = {.n = 0};
    int64_t dims[] = {3};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT32);
    w_bytes(&w, 9, "12345678901", 11);
    assert_err(PARSE_T(w, &t, err), err, "raw_data holds 11 bytes, expected 12");
}
END_TEST

START_TEST(test_pb_reject_huge_dims_before_alloc)
{
    pbw w = {.n = 0};
    int64_t dims[] = {1 << 30, 1 << 30};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 2, PB_DT_FLOAT32);
    w_bytes(&w, 9, "abcd", 4);
    assert_err(PARSE_T(w, &t, err), err, "raw_data holds 4 bytes");
}
END_TEST

START_TEST(test_pb_reject_dims_overflow)
{
    pbw w = {.n = 0};
    int64_t dims[] = {1LL << 40, 1LL << 40, 1LL << 40};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 3, PB_DT_FLOAT32);
    assert_err(PARSE_T(w, &t, err), err, "too large");
}
END_TEST

START_TEST(test_pb_reject_negative_dim)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2, -3};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 2, PB_DT_FLOAT32);
    assert_err(PARSE_T(w, &t, err), err, "negative dim -3");
}
END_TEST

START_TEST(test_pb_reject_rank17)
{
    pbw w = {.n = 0};
    int64_t dims[17];
    onnx_tensor t;
    char err[256] = "";
    for (int i = 0; i < 17; i++)
        dims[i] = 1;
    w_tensor_head(&w, dims, 17, PB_DT_FLOAT32);
    assert_err(PARSE_T(w, &t, err), err, "more than 16 dims");
}
END_TEST

START_TEST(test_pb_reject_dtypes)
{
    static const struct {
        int64_t dt;
        const char *needle;
    } cases[] = {{PB_DT_STRING, "data_type 8 (string)"}, {99, "data_type 99"}, {0, "data_type 0"},
                 {-1, "data_type -1"}, {1LL << 40, "data_type -1"}, {14, "data_type 14"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pbw w = {.n = 0};
        onnx_tensor t;
        char err[256] = "";
        w_int(&w, 2, cases[c].dt);
        assert_err(PARSE_T(w, &t, err), err, cases[c].needle);
    }
    pbw none = {.n = 0};
    onnx_tensor t;
    char err[256] = "";
    w_str(&none, 8, "x");
    assert_err(PARSE_T(none, &t, err), err, "unsupported data_type 0");
}
END_TEST

START_TEST(test_pb_reject_external)
{
    pbw w = {.n = 0};
    int64_t dims[] = {2};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT32);
    w_int(&w, 14, 1);
    assert_err(PARSE_T(w, &t, err), err, "external data");
}
END_TEST

START_TEST(test_pb_reject_raw_and_typed)
{
    pbw w = {.n = 0};
    int64_t dims[] = {1};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT32);
    w_bytes(&w, 9, "abcd", 4);
    w_fixed(&w, 4, fbits(1.0f), 4);
    assert_err(PARSE_T(w, &t, err), err, "both raw_data and float_data");
}
END_TEST

START_TEST(test_pb_reject_wrong_typed_field)
{
    pbw w = {.n = 0};
    int64_t dims[] = {1};
    onnx_tensor t;
    char err[256] = "";
    w_tensor_head(&w, dims, 1, PB_DT_FLOAT32);
    w_fixed(&w, 10, 0, 8);
    assert_err(PARSE_T(w, &t, err), err, "double_data but its data_type is float32");

    pbw s = {.n = 0};
    w_tensor_head(&s, dims, 1, PB_DT_INT32);
    w_str(&s, 6, "hello");
    assert_err(PARSE_T(s, &t, err), err, "string_data but");
}
END_TEST

START_TEST(test_pb_reject_wire_types)
{
    static const struct {
        uint8_t bytes[4];
        size_t n;
        const char *needle;
    } cases[] = {
        {{0x0b}, 1, "groups"},                 /* field 1, wire type 3 */
        {{0x0c}, 1, "groups"},                 /* wire type 4 */
        {{0x0e, 0x00}, 2, "invalid wire type 6"},
        {{0x0f, 0x00}, 2, "invalid wire type 7"},
        {{0x00, 0x00}, 2, "invalid field number 0"},
        {{0x12, 0x00}, 2, "data_type (field 2 at offset 0) has wire type 2"},
        {{0x42, 0x05, 'a'}, 3, "claims 5 bytes but only 1 remain"},
        {{0x0d, 0x01, 0x02}, 3, "truncated fixed32"},
        {{0x09, 0x01}, 2, "truncated fixed64"},
        {{0x08}, 1, "truncated varint"},
        {{0x08, 0x80}, 2, "truncated varint at offset 1"},
        {{0x80}, 1, "truncated varint at offset 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        onnx_tensor t;
        char err[256] = "";
        assert_err(tensor_parse_copy(cases[c].bytes, cases[c].n, &t, err, sizeof err), err, cases[c].needle);
    }
}
END_TEST

START_TEST(test_pb_reject_malformed_varints)
{
    /* 11 continuation bytes; 10 bytes with an overflowing last byte; in a packed field */
    static const uint8_t long_v[] = {0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    static const uint8_t over_v[] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t ok_v[] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t packed[] = {0x0a, 0x02, 0x03, 0x80};
    static const uint8_t key_long[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    onnx_tensor t;
    char err[256] = "";
    assert_err(tensor_parse_copy(long_v, sizeof long_v, &t, err, sizeof err), err, "malformed varint at offset 1");
    assert_err(tensor_parse_copy(over_v, sizeof over_v, &t, err, sizeof err), err, "malformed varint");
    /* a valid 10-byte varint is accepted (then rejected only for the dtype) */
    assert_err(tensor_parse_copy(ok_v, sizeof ok_v, &t, err, sizeof err), err, "unsupported data_type -1");
    assert_err(tensor_parse_copy(packed, sizeof packed, &t, err, sizeof err), err, "truncated varint at offset 3");
    assert_err(tensor_parse_copy(key_long, sizeof key_long, &t, err, sizeof err), err, "invalid field number");
}
END_TEST

START_TEST(test_pb_reject_long_name)
{
    pbw w = {.n = 0};
    char name[200];
    onnx_tensor t;
    char err[256] = "";
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    w_str(&w, 8, name);
    assert_err(PARSE_T(w, &t, err), err, "tensor name at offset 0 is too long (199 bytes, max 127)");
    pbw z = {.n = 0};
    w_bytes(&z, 8, "a\0b", 3);
    assert_err(PARSE_T(z, &t, err), err, "NUL");
}
END_TEST

START_TEST(test_pb_tensor_free_safe)
{
    onnx_tensor t;
    memset(&t, 0, sizeof t);
    onnx_tensor_free(&t);
    onnx_tensor_free(NULL);
    char err[256] = "";
    assert_err(onnx_parse_tensor(NULL, 0, &t, err, sizeof err), err, "<memory>: unsupported data_type 0");
    onnx_tensor_free(&t);
    assert_err(onnx_parse_tensor(NULL, 5, &t, err, sizeof err), err, "NULL buffer");
    onnx_tensor_free(&t);
}
END_TEST

/* -------------------------------------------------- ONNX: hand-made models */

static void w_attr_ints(pbw *node, const char *name, const int64_t *v, int n, int packed, int with_type)
{
    pbw a = {.n = 0};
    w_str(&a, 1, name);
    if (packed)
        w_packed_ints(&a, 8, v, n);
    else
        for (int i = 0; i < n; i++)
            w_int(&a, 8, v[i]);
    if (with_type)
        w_int(&a, 20, ONNX_ATTR_INTS);
    w_msg(node, 5, &a);
}

/* A model around NODE with an opset_import for DOMAIN. */
static void w_model(pbw *m, const pbw *node, int n_nodes, const char *domain, int64_t version)
{
    pbw g = {.n = 0}, op = {.n = 0};
    w_str(&g, 2, "graph");
    for (int i = 0; i < n_nodes; i++)
        w_msg(&g, 1, node);
    w_int(m, 1, 8); /* ir_version */
    w_msg(m, 7, &g);
    if (domain) {
        w_str(&op, 1, domain);
        w_int(&op, 2, version);
        w_msg(m, 8, &op);
    }
}

START_TEST(test_pb_model_handmade)
{
    pbw node = {.n = 0}, a = {.n = 0}, m = {.n = 0};
    int64_t ks[] = {2, 3}, pads[] = {-1, 0, 1, 2};
    float fl[] = {1.5f, -2.0f};
    onnx_model mod;
    char err[256] = "";
    w_str(&node, 1, "x");
    w_str(&node, 1, ""); /* omitted optional input */
    w_str(&node, 2, "y");
    w_str(&node, 3, "node0");
    w_str(&node, 4, "MaxPool");
    w_attr_ints(&node, "kernel_shape", ks, 2, 0, 0); /* unpacked, type inferred */
    w_attr_ints(&node, "pads", pads, 4, 1, 1);
    w_str(&a, 1, "alpha");
    w_fixed(&a, 2, fbits(0.5f), 4);
    w_int(&a, 20, ONNX_ATTR_FLOAT);
    w_msg(&node, 5, &a);
    a.n = 0;
    w_str(&a, 1, "fl");
    w_packed_floats(&a, 7, fl, 1);
    w_fixed(&a, 7, fbits(fl[1]), 4);
    w_msg(&node, 5, &a);
    a.n = 0;
    w_str(&a, 1, "auto_pad");
    w_str(&a, 4, "SAME_LOWER");
    w_msg(&node, 5, &a);
    a.n = 0;
    w_int(&a, 3, -3);
    w_str(&a, 1, "neg");
    w_int(&a, 20, ONNX_ATTR_INT);
    w_msg(&node, 5, &a);
    a.n = 0;
    w_str(&a, 1, "tensor_attr");
    w_msg(&a, 5, &node); /* a TensorProto payload we skip */
    w_int(&a, 20, ONNX_ATTR_TENSOR);
    w_msg(&node, 5, &a);
    w_model(&m, &node, 1, "ai.onnx", 11);

    ck_assert_msg(PARSE_M(m, &mod, err) == 0, "%s", err);
    ck_assert_str_eq(mod.op_type, "MaxPool");
    ck_assert_str_eq(mod.domain, "");
    ck_assert_int_eq(mod.opset, 11);
    ck_assert_int_eq(mod.n_inputs, 2);
    ck_assert_str_eq(mod.inputs[0], "x");
    ck_assert_str_eq(mod.inputs[1], "");
    ck_assert_int_eq(mod.n_outputs, 1);
    ck_assert_int_eq(mod.n_attrs, 7);
    const onnx_attr *k = onnx_model_attr(&mod, "kernel_shape");
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(k->type, ONNX_ATTR_INTS);
    ck_assert_int_eq(k->n_ints, 2);
    ck_assert_int_eq(k->ints[1], 3);
    const onnx_attr *p = onnx_model_attr(&mod, "pads");
    ck_assert_int_eq(p->n_ints, 4);
    ck_assert_int_eq(p->ints[0], -1);
    ck_assert_int_eq(p->ints[3], 2);
    ck_assert(onnx_model_attr(&mod, "alpha")->f == 0.5f);
    ck_assert_int_eq(onnx_model_attr(&mod, "alpha")->type, ONNX_ATTR_FLOAT);
    const onnx_attr *f = onnx_model_attr(&mod, "fl");
    ck_assert_int_eq(f->type, ONNX_ATTR_FLOATS);
    ck_assert_int_eq(f->n_floats, 2);
    ck_assert(f->floats[0] == 1.5f && f->floats[1] == -2.0f);
    ck_assert_str_eq(onnx_model_attr(&mod, "auto_pad")->s, "SAME_LOWER");
    ck_assert_int_eq(onnx_model_attr(&mod, "auto_pad")->type, ONNX_ATTR_STRING);
    ck_assert_int_eq(onnx_model_attr(&mod, "neg")->i, -3);
    ck_assert_int_eq(onnx_model_attr(&mod, "tensor_attr")->type, ONNX_ATTR_TENSOR);
    ck_assert_ptr_null(onnx_model_attr(&mod, "strides"));
}
END_TEST

static void simple_node(pbw *node, const char *op)
{
    node->n = 0;
    w_str(node, 1, "x");
    w_str(node, 2, "y");
    w_str(node, 4, op);
}

START_TEST(test_pb_model_opset_domains)
{
    pbw node, m = {.n = 0}, op = {.n = 0};
    onnx_model mod;
    char err[256] = "";
    simple_node(&node, "Max");
    w_model(&m, &node, 1, "com.microsoft", 1);
    ck_assert_msg(PARSE_M(m, &mod, err) == 0, "%s", err);
    ck_assert_int_eq(mod.opset, 0); /* no default-domain import */
    w_int(&op, 2, 13);              /* domain omitted = "" */
    w_msg(&m, 8, &op);
    ck_assert_msg(PARSE_M(m, &mod, err) == 0, "%s", err);
    ck_assert_int_eq(mod.opset, 13);
}
END_TEST

START_TEST(test_pb_model_reject_node_count)
{
    pbw node, m0 = {.n = 0}, m2 = {.n = 0}, none = {.n = 0};
    onnx_model mod;
    char err[256] = "";
    simple_node(&node, "Max");
    w_model(&m0, &node, 0, "", 13);
    assert_err(PARSE_M(m0, &mod, err), err, "graph has 0 nodes, expected exactly one");
    w_model(&m2, &node, 2, "", 13);
    assert_err(PARSE_M(m2, &mod, err), err, "graph has 2 nodes");
    w_int(&none, 1, 8);
    assert_err(PARSE_M(none, &mod, err), err, "model has no graph");
    pbw g = {.n = 0}, twice = {.n = 0};
    w_msg(&g, 1, &node);
    w_msg(&twice, 7, &g);
    w_msg(&twice, 7, &g);
    assert_err(PARSE_M(twice, &mod, err), err, "more than one graph");
}
END_TEST

START_TEST(test_pb_model_reject_limits)
{
    pbw node, m = {.n = 0};
    onnx_model mod;
    char err[256] = "";
    int64_t many[65];
    for (int i = 0; i < 65; i++)
        many[i] = i;

    simple_node(&node, "Max");
    for (int i = 0; i < 16; i++)
        w_str(&node, 1, "in");
    w_model(&m, &node, 1, "", 13);
    assert_err(PARSE_M(m, &mod, err), err, "more than 16 inputs");

    simple_node(&node, "MaxPool");
    w_attr_ints(&node, "big", many, 65, 1, 1);
    m.n = 0;
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "attribute 'big' has more than 64 values");

    simple_node(&node, "MaxPool");
    for (int i = 0; i < 33; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        w_attr_ints(&node, name, many, 1, 0, 1);
    }
    m.n = 0;
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "more than 32 attributes");
}
END_TEST

START_TEST(test_pb_model_reject_bad_attrs)
{
    pbw node, m = {.n = 0}, a = {.n = 0};
    onnx_model mod;
    char err[256] = "";
    int64_t one = 1;

    simple_node(&node, "MaxPool");
    w_attr_ints(&node, "k", &one, 1, 0, 1);
    w_attr_ints(&node, "k", &one, 1, 0, 1);
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "attribute 'k' twice");

    simple_node(&node, "MaxPool");
    w_int(&a, 3, 1);
    w_msg(&node, 5, &a);
    m.n = 0;
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "attribute without a name");

    simple_node(&node, "MaxPool");
    a.n = 0;
    w_str(&a, 1, "f");
    w_int(&a, 2, 1); /* f must be fixed32 */
    w_msg(&node, 5, &a);
    m.n = 0;
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "attribute f");

    node.n = 0;
    w_str(&node, 1, "x");
    m.n = 0;
    w_model(&m, &node, 1, "", 22);
    assert_err(PARSE_M(m, &mod, err), err, "node has no op_type");
}
END_TEST

START_TEST(test_pb_model_read_missing)
{
    char path[512], err[256] = "";
    onnx_model mod;
    onnx_tensor t;
    tmp_path(path, sizeof path, "missing.onnx");
    assert_err(onnx_read_model(path, &mod, err, sizeof err), err, "cannot open");
    ck_assert(strncmp(err, path, strlen(path)) == 0);
    assert_err(onnx_read_tensor(path, &t, err, sizeof err), err, "cannot open");
    onnx_tensor_free(&t);
}
END_TEST

/* ------------------------------------------------ ONNX: official node tests */

static const char *expected_op(const char *dir)
{
    if (strncmp(dir, "test_maxpool", 12) == 0)
        return "MaxPool";
    if (strncmp(dir, "test_averagepool", 16) == 0)
        return "AveragePool";
    if (strncmp(dir, "test_lppool", 11) == 0)
        return "LpPool";
    if (strncmp(dir, "test_globalmaxpool", 18) == 0)
        return "GlobalMaxPool";
    if (strncmp(dir, "test_globalaveragepool", 22) == 0)
        return "GlobalAveragePool";
    if (strncmp(dir, "test_max_", 9) == 0)
        return "Max";
    if (strncmp(dir, "test_maxunpool", 14) == 0)
        return "MaxUnpool";
    return NULL;
}

/* Calls fn(dir_name) for every test_* directory; returns how many. */
static int for_each_test_dir(void (*fn)(const char *))
{
    ck_assert_msg(g_data_dir != NULL, "no ONNX node-test dir: pass it as argv[1] or CLPOOL_ONNX_NODE_DIR");
    DIR *d = opendir(g_data_dir);
    ck_assert_msg(d != NULL, "cannot open %s", g_data_dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "test_", 5) != 0)
            continue;
        fn(e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void check_model_dir(const char *dir)
{
    char path[1024], err[512] = "";
    onnx_model m;
    data_path(path, sizeof path, dir, "model.onnx");
    ck_assert_msg(onnx_read_model(path, &m, err, sizeof err) == 0, "%s", err);
    const char *op = expected_op(dir);
    ck_assert_msg(op != NULL, "unexpected test dir %s", dir);
    ck_assert_msg(strcmp(m.op_type, op) == 0, "%s: op_type %s", dir, m.op_type);
    ck_assert_str_eq(m.domain, "");
    ck_assert_int_eq(m.opset, strcmp(op, "Max") == 0 ? 13 : 22);
    ck_assert_int_ge(m.n_inputs, 1);
    ck_assert_int_ge(m.n_outputs, 1);
    for (int i = 0; i < m.n_attrs; i++)
        ck_assert_msg(m.attrs[i].type >= 1 && m.attrs[i].type <= 7, "%s: attr %s type %d", dir, m.attrs[i].name,
                      (int)m.attrs[i].type);
}

static void check_tensor_file(const char *dir, const char *file, const char *expect_name)
{
    char path[1024], err[512] = "";
    onnx_tensor t;
    size_t count, nbytes;
    data_path(path, sizeof path, dir, file);
    ck_assert_msg(onnx_read_tensor(path, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(strcmp(t.name, expect_name) == 0, "%s: name %s, model says %s", path, t.name, expect_name);
    ck_assert_int_eq(tool_shape_bytes(t.dims, t.rank, pb_dtype_size(t.data_type), &count, &nbytes), 0);
    ck_assert_uint_gt(count, 0);
    ck_assert_uint_eq(t.nbytes, nbytes);
    ck_assert_ptr_nonnull(t.data);
    onnx_tensor_free(&t);
}

static void check_tensor_dir(const char *dir)
{
    char path[1024], err[512] = "", file[64];
    onnx_model m;
    data_path(path, sizeof path, dir, "model.onnx");
    ck_assert_msg(onnx_read_model(path, &m, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < m.n_inputs; k++) {
        snprintf(file, sizeof file, "test_data_set_0/input_%d.pb", k);
        check_tensor_file(dir, file, m.inputs[k]);
    }
    for (int k = 0; k < m.n_outputs; k++) {
        snprintf(file, sizeof file, "test_data_set_0/output_%d.pb", k);
        check_tensor_file(dir, file, m.outputs[k]);
    }
}

START_TEST(test_onnx_all_models)
{
    ck_assert_int_ge(for_each_test_dir(check_model_dir), 37);
}
END_TEST

START_TEST(test_onnx_all_tensors)
{
    ck_assert_int_ge(for_each_test_dir(check_tensor_dir), 37);
}
END_TEST

static void read_model(const char *dir, onnx_model *m)
{
    char path[1024], err[512] = "";
    data_path(path, sizeof path, dir, "model.onnx");
    ck_assert_msg(onnx_read_model(path, m, err, sizeof err) == 0, "%s", err);
}

static void assert_ints(const onnx_model *m, const char *name, const int64_t *v, int n)
{
    const onnx_attr *a = onnx_model_attr(m, name);
    ck_assert_msg(a != NULL, "no attribute %s", name);
    ck_assert_int_eq(a->type, ONNX_ATTR_INTS);
    ck_assert_int_eq(a->n_ints, n);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(a->ints[i], v[i]);
}

START_TEST(test_onnx_maxpool_2d_pads_attrs)
{
    onnx_model m;
    read_model("test_maxpool_2d_pads", &m);
    ck_assert_int_eq(m.n_attrs, 2);
    assert_ints(&m, "kernel_shape", (const int64_t[]){3, 3}, 2);
    assert_ints(&m, "pads", (const int64_t[]){2, 2, 2, 2}, 4);
    ck_assert_str_eq(m.inputs[0], "x");
    ck_assert_str_eq(m.outputs[0], "y");
}
END_TEST

START_TEST(test_onnx_same_upper_attrs)
{
    onnx_model m;
    read_model("test_maxpool_2d_precomputed_same_upper", &m);
    const onnx_attr *a = onnx_model_attr(&m, "auto_pad");
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(a->type, ONNX_ATTR_STRING);
    ck_assert_str_eq(a->s, "SAME_UPPER");
    assert_ints(&m, "kernel_shape", (const int64_t[]){3, 3}, 2);
    assert_ints(&m, "strides", (const int64_t[]){2, 2}, 2);
}
END_TEST

START_TEST(test_onnx_ceil_large_attrs)
{
    onnx_model m;
    read_model("test_maxpool_3d_dilations_use_ref_impl_large", &m);
    ck_assert_int_eq(m.n_attrs, 4);
    const onnx_attr *c = onnx_model_attr(&m, "ceil_mode");
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->type, ONNX_ATTR_INT);
    ck_assert_int_eq(c->i, 1);
    assert_ints(&m, "dilations", (const int64_t[]){2, 2, 2}, 3);
    assert_ints(&m, "kernel_shape", (const int64_t[]){5, 5, 5}, 3);
    assert_ints(&m, "strides", (const int64_t[]){3, 3, 3}, 3);
}
END_TEST

START_TEST(test_onnx_argmax_outputs)
{
    onnx_model m;
    read_model("test_maxpool_with_argmax_2d_precomputed_strides", &m);
    ck_assert_int_eq(m.n_outputs, 2);
    ck_assert_str_eq(m.outputs[1], "z");
    ck_assert_int_eq(onnx_model_attr(&m, "storage_order")->i, 1);
    ck_assert_ptr_null(onnx_model_attr(&m, "pads"));
}
END_TEST

START_TEST(test_onnx_max_example_model)
{
    onnx_model m;
    read_model("test_max_example", &m);
    ck_assert_str_eq(m.op_type, "Max");
    ck_assert_int_eq(m.opset, 13);
    ck_assert_int_eq(m.n_inputs, 3);
    ck_assert_str_eq(m.inputs[2], "data_2");
    ck_assert_str_eq(m.outputs[0], "result");
    ck_assert_int_eq(m.n_attrs, 0);
}
END_TEST

static void read_tensor(const char *dir, const char *file, onnx_tensor *t)
{
    char path[1024], err[512] = "";
    data_path(path, sizeof path, dir, file);
    ck_assert_msg(onnx_read_tensor(path, t, err, sizeof err) == 0, "%s", err);
}

START_TEST(test_onnx_tensor_values)
{
    onnx_tensor t;
    read_tensor("test_max_example", "test_data_set_0/input_0.pb", &t);
    ck_assert_int_eq(t.data_type, PB_DT_FLOAT32);
    ck_assert_int_eq(t.rank, 1);
    ck_assert_int_eq(t.dims[0], 3);
    ck_assert(((float *)t.data)[0] == 3.0f && ((float *)t.data)[1] == 2.0f && ((float *)t.data)[2] == 1.0f);
    onnx_tensor_free(&t);
    read_tensor("test_max_example", "test_data_set_0/output_0.pb", &t);
    ck_assert(((float *)t.data)[0] == 3.0f && ((float *)t.data)[1] == 5.0f && ((float *)t.data)[2] == 4.0f);
    onnx_tensor_free(&t);
    read_tensor("test_max_float16", "test_data_set_0/input_0.pb", &t);
    ck_assert_int_eq(t.data_type, PB_DT_FLOAT16);
    ck_assert_uint_eq(((uint16_t *)t.data)[0], 0x4200);
    ck_assert_uint_eq(((uint16_t *)t.data)[2], 0x3c00);
    onnx_tensor_free(&t);
    read_tensor("test_maxpool_with_argmax_2d_precomputed_strides", "test_data_set_0/output_1.pb", &t);
    ck_assert_int_eq(t.data_type, PB_DT_INT64);
    ck_assert_int_eq(t.rank, 4);
    int64_t idx[] = {6, 16, 8, 18};
    ck_assert(memcmp(t.data, idx, sizeof idx) == 0);
    onnx_tensor_free(&t);
    read_tensor("test_maxpool_2d_pads", "test_data_set_0/input_0.pb", &t);
    ck_assert_int_eq(t.rank, 4);
    ck_assert_int_eq(t.dims[1], 3);
    ck_assert_int_eq(t.dims[3], 28);
    ck_assert_uint_eq(t.nbytes, 3 * 28 * 28 * 4);
    ck_assert(isfinite(((float *)t.data)[0]));
    onnx_tensor_free(&t);
}
END_TEST

/* Every prefix of a real file: parse must return 0 or -1 (with a message),
 * never overread (exact-size heap copies) or crash. */
START_TEST(test_onnx_model_prefixes)
{
    char path[1024], err[512];
    size_t len;
    data_path(path, sizeof path, "test_maxpool_3d_dilations_use_ref_impl_large", "model.onnx");
    uint8_t *buf = slurp(path, &len);
    onnx_model m;
    int accepted = 0;
    for (size_t k = 0; k <= len; k++) {
        err[0] = '\0';
        int rc = model_parse_copy(buf, k, &m, err, sizeof err);
        ck_assert_msg(rc == 0 || (rc == -1 && err[0] != '\0'), "prefix %zu: rc %d", k, rc);
        if (rc == 0) {
            accepted++;
            ck_assert_str_eq(m.op_type, "MaxPool"); /* a cut between top-level fields can still be a valid model */
        }
    }
    ck_assert_int_ge(accepted, 1);
    ck_assert_int_eq(model_parse_copy(buf, len, &m, err, sizeof err), 0);
    ck_assert_int_eq(m.opset, 22);
    free(buf);
}
END_TEST

START_TEST(test_onnx_tensor_prefixes)
{
    static const char *files[][2] = {
        {"test_max_example", "test_data_set_0/input_0.pb"},
        {"test_maxpool_with_argmax_2d_precomputed_strides", "test_data_set_0/output_1.pb"},
    };
    for (size_t f = 0; f < 2; f++) {
        char path[1024], err[512];
        size_t len;
        data_path(path, sizeof path, files[f][0], files[f][1]);
        uint8_t *buf = slurp(path, &len);
        onnx_tensor t;
        for (size_t k = 0; k < len; k++) {
            err[0] = '\0';
            ck_assert_msg(tensor_parse_copy(buf, k, &t, err, sizeof err) == -1, "%s prefix %zu accepted", path, k);
            ck_assert_msg(err[0] != '\0', "prefix %zu: empty message", k);
            ck_assert_ptr_null(t.data);
        }
        ck_assert_int_eq(tensor_parse_copy(buf, len, &t, err, sizeof err), 0);
        onnx_tensor_free(&t);
        free(buf);
    }
}
END_TEST

/* ------------------------------------------------------------------- suites */

static Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *rt = tcase_create("roundtrip");
    tcase_add_loop_test(rt, test_npy_roundtrip_dtype, 0, N_ALL_DTYPES);
    tcase_add_test(rt, test_npy_write_header_like_numpy);
    tcase_add_test(rt, test_npy_write_overwrites);
    suite_add_tcase(s, rt);

    TCase *hdr = tcase_create("header");
    tcase_add_test(hdr, test_npy_v2_header);
    tcase_add_test(hdr, test_npy_v3_header);
    tcase_add_test(hdr, test_npy_key_order_and_spacing);
    tcase_add_test(hdr, test_npy_py2_long_dims);
    tcase_add_test(hdr, test_npy_byte_descrs);
    tcase_add_test(hdr, test_npy_scalar_and_rank1);
    suite_add_tcase(s, hdr);

    TCase *bad = tcase_create("reject");
    tcase_add_loop_test(bad, test_npy_reject_header, 0, (int)(sizeof NPY_BAD / sizeof NPY_BAD[0]));
    tcase_add_test(bad, test_npy_reject_short_data);
    tcase_add_test(bad, test_npy_reject_trailing_data);
    tcase_add_test(bad, test_npy_reject_bad_magic);
    tcase_add_test(bad, test_npy_reject_version);
    tcase_add_test(bad, test_npy_reject_header_len_past_end);
    tcase_add_test(bad, test_npy_every_prefix_rejected);
    tcase_add_test(bad, test_npy_read_missing_file);
    tcase_add_test(bad, test_npy_read_names_file);
    tcase_add_test(bad, test_npy_free_zeroed);
    tcase_add_test(bad, test_npy_write_missing_dir);
    tcase_add_test(bad, test_npy_write_rejects_bad_array);
    suite_add_tcase(s, bad);
    return s;
}

static Suite *onnx_suite(void)
{
    Suite *s = suite_create("onnx_pb");
    TCase *typed = tcase_create("tensor");
    tcase_add_test(typed, test_pb_float_data_packed);
    tcase_add_test(typed, test_pb_float_data_unpacked_dims_unpacked);
    tcase_add_test(typed, test_pb_int32_data_narrow_types);
    tcase_add_test(typed, test_pb_int32_data_int32);
    tcase_add_test(typed, test_pb_int64_data);
    tcase_add_test(typed, test_pb_uint64_data);
    tcase_add_test(typed, test_pb_double_data_mixed_packing);
    tcase_add_test(typed, test_pb_scalar_and_empty);
    tcase_add_test(typed, test_pb_skips_unknown_fields);
    suite_add_tcase(s, typed);

    TCase *bad = tcase_create("tensor_reject");
    tcase_add_test(bad, test_pb_reject_count_mismatch);
    tcase_add_test(bad, test_pb_reject_missing_data);
    tcase_add_test(bad, test_pb_reject_raw_length);
    tcase_add_test(bad, test_pb_reject_huge_dims_before_alloc);
    tcase_add_test(bad, test_pb_reject_dims_overflow);
    tcase_add_test(bad, test_pb_reject_negative_dim);
    tcase_add_test(bad, test_pb_reject_rank17);
    tcase_add_test(bad, test_pb_reject_dtypes);
    tcase_add_test(bad, test_pb_reject_external);
    tcase_add_test(bad, test_pb_reject_raw_and_typed);
    tcase_add_test(bad, test_pb_reject_wrong_typed_field);
    tcase_add_test(bad, test_pb_reject_wire_types);
    tcase_add_test(bad, test_pb_reject_malformed_varints);
    tcase_add_test(bad, test_pb_reject_long_name);
    tcase_add_test(bad, test_pb_tensor_free_safe);
    suite_add_tcase(s, bad);

    TCase *model = tcase_create("model");
    tcase_add_test(model, test_pb_model_handmade);
    tcase_add_test(model, test_pb_model_opset_domains);
    tcase_add_test(model, test_pb_model_reject_node_count);
    tcase_add_test(model, test_pb_model_reject_limits);
    tcase_add_test(model, test_pb_model_reject_bad_attrs);
    tcase_add_test(model, test_pb_model_read_missing);
    suite_add_tcase(s, model);

    TCase *data = tcase_create("node_tests");
    tcase_set_timeout(data, 120); /* sanitizer builds read ~5 MB of test data */
    tcase_add_test(data, test_onnx_all_models);
    tcase_add_test(data, test_onnx_all_tensors);
    tcase_add_test(data, test_onnx_maxpool_2d_pads_attrs);
    tcase_add_test(data, test_onnx_same_upper_attrs);
    tcase_add_test(data, test_onnx_ceil_large_attrs);
    tcase_add_test(data, test_onnx_argmax_outputs);
    tcase_add_test(data, test_onnx_max_example_model);
    tcase_add_test(data, test_onnx_tensor_values);
    tcase_add_test(data, test_onnx_model_prefixes);
    tcase_add_test(data, test_onnx_tensor_prefixes);
    suite_add_tcase(s, data);
    return s;
}

int main(int argc, char **argv)
{
    g_data_dir = argc > 1 ? argv[1] : getenv("CLPOOL_ONNX_NODE_DIR");
    if (g_data_dir != NULL && *g_data_dir == '\0')
        g_data_dir = NULL;
    if (g_data_dir == NULL)
        fprintf(stderr, "test_readers: no ONNX node-test dir (argv[1] or CLPOOL_ONNX_NODE_DIR); node_tests will fail\n");
    SRunner *sr = srunner_create(npy_suite());
    srunner_add_suite(sr, onnx_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
