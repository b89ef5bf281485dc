/* Protobuf wire format, just enough for ONNX ModelProto / TensorProto.
 * Every read goes through pb_next() (one field: key + value, bounds-checked)
 * and, for repeated scalars, pb_rep_next() (packed or not). Sub-messages are
 * sub-ranges of the same input buffer, so offsets in messages are file offsets. */
#include "onnx_pb.h"

typedef struct {
    const uint8_t *p, *end;
} pb_buf;

typedef struct {
    const char *src;          /* file name for messages */
    const uint8_t *base;      /* start of the whole input, for offsets */
    char *err;
    size_t errlen;
} pb_ctx;

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_FIXED32 = 5 };

typedef struct {
    uint32_t num, wt;
    uint64_t v;               /* WT_VARINT / WT_FIXED64 / WT_FIXED32 value */
    pb_buf sub;               /* WT_LEN payload */
    size_t at;                /* offset of the key, for messages */
} pb_field;

#define FAIL(c, ...) tool_errf((c)->err, (c)->errlen, (c)->src, __VA_ARGS__)

static size_t pb_off(const pb_ctx *c, const uint8_t *p)
{
    return (size_t)(p - c->base);
}

static int64_t as_i64(uint64_t v)
{
    int64_t r;
    memcpy(&r, &v, sizeof r); /* two's complement without implementation-defined casts */
    return r;
}

static int pb_varint(const pb_ctx *c, pb_buf *b, uint64_t *out)
{
    const uint8_t *start = b->p;
    uint64_t v = 0;
    for (int i = 0;; i++) {
        if (b->p >= b->end)
            return FAIL(c, "truncated varint at offset %zu", pb_off(c, start));
        uint8_t byte = *b->p++;
        /* the 10th byte may only hold bit 63: more means > 64 bits or > 10 bytes */
        if (i == 9 && byte > 1)
            return FAIL(c, "malformed varint at offset %zu (longer than 64 bits)", pb_off(c, start));
        v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
}

static int pb_fixed(const pb_ctx *c, pb_buf *b, int n, uint64_t *out)
{
    if (b->end - b->p < n)
        return FAIL(c, "truncated fixed%d value at offset %zu", n * 8, pb_off(c, b->p));
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)b->p[i] << (8 * i);
    b->p += n;
    *out = v;
    return 0;
}

/* Reads one field (key and value) from b. */
static int pb_next(const pb_ctx *c, pb_buf *b, pb_field *f)
{
    uint64_t key, len;
    f->at = pb_off(c, b->p);
    if (pb_varint(c, b, &key) != 0)
        return -1;
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
        return FAIL(c, "invalid field number %llu at offset %zu", (unsigned long long)(key >> 3), f->at);
    f->num = (uint32_t)(key >> 3);
    f->wt = (uint32_t)(key & 7);
    f->v = 0;
    f->sub.p = f->sub.end = b->p;
    switch (f->wt) {
    case WT_VARINT:
        return pb_varint(c, b, &f->v);
    case WT_FIXED64:
        return pb_fixed(c, b, 8, &f->v);
    case WT_FIXED32:
        return pb_fixed(c, b, 4, &f->v);
    case WT_LEN:
        if (pb_varint(c, b, &len) != 0)
            return -1;
        if (len > (uint64_t)(b->end - b->p))
            return FAIL(c, "field %u at offset %zu claims %llu bytes but only %zu remain", f->num, f->at,
                        (unsigned long long)len, (size_t)(b->end - b->p));
        f->sub.p = b->p;
        f->sub.end = b->p + len;
        b->p += len;
        return 0;
    case 3:
    case 4:
        return FAIL(c, "field %u at offset %zu uses protobuf groups (wire type %u), not supported", f->num,
                    f->at, f->wt);
    default:
        return FAIL(c, "invalid wire type %u at offset %zu", f->wt, f->at);
    }
}

static int pb_want(const pb_ctx *c, const pb_field *f, uint32_t wt, const char *what)
{
    if (f->wt != wt)
        return FAIL(c, "%s (field %u at offset %zu) has wire type %u, expected %u", what, f->num, f->at, f->wt, wt);
    return 0;
}

/* Copies a string field into dst[cap]; too long or embedded NUL is an error
 * rather than a silent truncation (names must match exactly). */
static int pb_str(const pb_ctx *c, const pb_field *f, char *dst, size_t cap, const char *what)
{
    if (pb_want(c, f, WT_LEN, what) != 0)
        return -1;
    size_t n = (size_t)(f->sub.end - f->sub.p);
    if (n >= cap)
        return FAIL(c, "%s at offset %zu is too long (%zu bytes, max %zu)", what, f->at, n, cap - 1);
    if (n > 0 && memchr(f->sub.p, 0, n) != NULL)
        return FAIL(c, "%s at offset %zu contains a NUL byte", what, f->at);
    if (n > 0)
        memcpy(dst, f->sub.p, n);
    dst[n] = '\0';
    return 0;
}

/* Iterator over the values of one occurrence of a repeated scalar field,
 * which protobuf allows to be packed (WT_LEN) or a single unpacked value. */
typedef struct {
    pb_buf packed;
    uint32_t wt;              /* element wire type */
    int pending;              /* 1: unpacked value in v not yet returned */
    uint64_t v;
} pb_rep;

static int pb_rep_init(const pb_ctx *c, const pb_field *f, uint32_t elem_wt, const char *what, pb_rep *r)
{
    r->wt = elem_wt;
    r->v = f->v;
    r->pending = f->wt == elem_wt;
    r->packed.p = r->packed.end = f->sub.p;
    if (f->wt == WT_LEN)
        r->packed = f->sub;
    else if (f->wt != elem_wt)
        return FAIL(c, "%s (field %u at offset %zu) has wire type %u, expected %u or packed", what, f->num, f->at,
                    f->wt, elem_wt);
    return 0;
}

/* 1 = *v holds the next value, 0 = no more values, -1 = malformed. */
static int pb_rep_next(const pb_ctx *c, pb_rep *r, uint64_t *v)
{
    if (r->pending) {
        r->pending = 0;
        *v = r->v;
        return 1;
    }
    if (r->packed.p >= r->packed.end)
        return 0;
    int rc = r->wt == WT_VARINT ? pb_varint(c, &r->packed, v)
                                : pb_fixed(c, &r->packed, r->wt == WT_FIXED64 ? 8 : 4, v);
    return rc == 0 ? 1 : -1;
}

/* Input range of a parse call; a NULL buffer is only valid when empty (NULL + 0
 * is not valid C pointer arithmetic, so substitute a real empty range). */
static int pb_input(const pb_ctx *c, const uint8_t *buf, size_t len, pb_buf *msg)
{
    static const uint8_t empty[1];
    if (buf == NULL && len > 0)
        return FAIL(c, "NULL buffer with length %zu", len);
    msg->p = buf ? buf : empty;
    msg->end = msg->p + len;
    return 0;
}

/* ---------------- TensorProto ---------------- */

enum {
    T_DIMS = 1, T_DATA_TYPE = 2, T_FLOAT_DATA = 4, T_INT32_DATA = 5, T_STRING_DATA = 6,
    T_INT64_DATA = 7, T_NAME = 8, T_RAW_DATA = 9, T_DOUBLE_DATA = 10, T_UINT64_DATA = 11,
    T_DATA_LOCATION = 14
};

/* The typed repeated fields and their element wire types. */
static const struct {
    uint32_t num, wt;
    const char *name;
} TYPED[] = {
    {T_FLOAT_DATA, WT_FIXED32, "float_data"}, {T_INT32_DATA, WT_VARINT, "int32_data"},
    {T_STRING_DATA, WT_LEN, "string_data"},   {T_INT64_DATA, WT_VARINT, "int64_data"},
    {T_DOUBLE_DATA, WT_FIXED64, "double_data"}, {T_UINT64_DATA, WT_VARINT, "uint64_data"},
};
#define N_TYPED (sizeof TYPED / sizeof TYPED[0])

/* Index in TYPED of the field that holds DTYPE's values when raw_data is absent. */
static size_t typed_for(int32_t dtype)
{
    uint32_t num;
    switch (dtype) {
    case PB_DT_FLOAT32: num = T_FLOAT_DATA; break;
    case PB_DT_FLOAT64: num = T_DOUBLE_DATA; break;
    case PB_DT_INT64: num = T_INT64_DATA; break;
    case PB_DT_UINT32: case PB_DT_UINT64: num = T_UINT64_DATA; break;
    default: num = T_INT32_DATA; break; /* 8/16/32-bit ints, bool, float16/bfloat16 bit patterns */
    }
    for (size_t i = 0; i < N_TYPED; i++)
        if (TYPED[i].num == num)
            return i;
    return 0;
}

/* Counts (dst == NULL) or stores the values of one typed-field occurrence.
 * Values are written as the low `size` bytes, little-endian; bool becomes 0/1. */
static int typed_values(const pb_ctx *c, const pb_field *f, size_t ti, uint8_t *dst, size_t size,
                        int is_bool, size_t *idx, size_t cap)
{
    if (TYPED[ti].wt == WT_LEN) { /* string_data: one element per occurrence */
        (*idx)++;
        return 0;
    }
    pb_rep r;
    uint64_t v;
    int rc;
    if (pb_rep_init(c, f, TYPED[ti].wt, TYPED[ti].name, &r) != 0)
        return -1;
    while ((rc = pb_rep_next(c, &r, &v)) == 1) {
        if (dst != NULL) {
            if (*idx >= cap)
                return FAIL(c, "%s holds more values than the dims allow", TYPED[ti].name);
            if (is_bool)
                v = v != 0;
            for (size_t k = 0; k < size; k++)
                dst[*idx * size + k] = (uint8_t)(v >> (8 * k));
        }
        (*idx)++;
    }
    return rc;
}

static int parse_tensor(const pb_ctx *c, pb_buf msg, onnx_tensor *t)
{
    size_t counts[N_TYPED] = {0};
    int have_raw = 0;
    int64_t location = 0;
    pb_buf raw = {NULL, NULL};
    pb_field f;
    pb_rep r;
    uint64_t v;
    int rc;

    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        switch (f.num) {
        case T_DIMS:
            if (pb_rep_init(c, &f, WT_VARINT, "dims", &r) != 0)
                return -1;
            while ((rc = pb_rep_next(c, &r, &v)) == 1) {
                if (t->rank >= TOOL_MAX_RANK)
                    return FAIL(c, "tensor has more than %d dims", TOOL_MAX_RANK);
                if (as_i64(v) < 0)
                    return FAIL(c, "tensor has negative dim %lld", (long long)as_i64(v));
                t->dims[t->rank++] = as_i64(v);
            }
            if (rc != 0)
                return -1;
            break;
        case T_DATA_TYPE:
            if (pb_want(c, &f, WT_VARINT, "data_type") != 0)
                return -1;
            /* out-of-range values map to an invalid code and are rejected below */
            t->data_type = f.v <= INT32_MAX ? (int32_t)f.v : -1;
            break;
        case T_NAME:
            if (pb_str(c, &f, t->name, sizeof t->name, "tensor name") != 0)
                return -1;
            break;
        case T_RAW_DATA:
            if (pb_want(c, &f, WT_LEN, "raw_data") != 0)
                return -1;
            raw = f.sub; /* last one wins, as in protobuf */
            have_raw = 1;
            break;
        case T_DATA_LOCATION:
            if (pb_want(c, &f, WT_VARINT, "data_location") != 0)
                return -1;
            location = as_i64(f.v);
            break;
        default:
            for (size_t i = 0; i < N_TYPED; i++)
                if (TYPED[i].num == f.num && typed_values(c, &f, i, NULL, 0, 0, &counts[i], 0) != 0)
                    return -1;
            break;
        }
    }

    if (location == 1)
        return FAIL(c, "tensor '%s' uses external data (data_location EXTERNAL), not supported", t->name);
    size_t size = pb_dtype_size(t->data_type), count, nbytes;
    if (size == 0)
        return FAIL(c, "unsupported data_type %d (%s)", (int)t->data_type, pb_dtype_name(t->data_type));
    if (tool_shape_bytes(t->dims, t->rank, size, &count, &nbytes) != 0)
        return FAIL(c, "tensor shape is too large (element count overflows)");
    size_t want = typed_for(t->data_type);
    for (size_t i = 0; i < N_TYPED; i++) {
        if (counts[i] == 0)
            continue;
        if (have_raw)
            return FAIL(c, "tensor has both raw_data and %s", TYPED[i].name);
        if (i != want)
            return FAIL(c, "tensor has %s but its data_type is %s", TYPED[i].name, pb_dtype_name(t->data_type));
    }
    if (have_raw && (size_t)(raw.end - raw.p) != nbytes)
        return FAIL(c, "raw_data holds %zu bytes, expected %zu (%zu x %s)", (size_t)(raw.end - raw.p), nbytes,
                    count, pb_dtype_name(t->data_type));
    if (!have_raw && counts[want] != count)
        return FAIL(c, "%s holds %zu values, dims say %zu", TYPED[want].name, counts[want], count);

    /* nbytes is now bounded by the input size (raw) or 8x it (typed values
     * take at least one byte each), so the allocation cannot be absurd */
    t->data = malloc(nbytes ? nbytes : 1);
    if (t->data == NULL)
        return FAIL(c, "out of memory (%zu bytes)", nbytes);
    t->nbytes = nbytes;
    if (have_raw) {
        if (nbytes)
            memcpy(t->data, raw.p, nbytes);
        return 0;
    }
    size_t idx = 0;
    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        if (f.num == TYPED[want].num &&
            typed_values(c, &f, want, t->data, size, t->data_type == PB_DT_BOOL, &idx, count) != 0)
            return -1;
    }
    return 0;
}

static int tensor_named(const char *src, const uint8_t *buf, size_t len, onnx_tensor *t, char *err,
                        size_t errlen)
{
    pb_ctx c = {src, buf, err, errlen};
    pb_buf msg = {NULL, NULL};
    memset(t, 0, sizeof *t);
    if (pb_input(&c, buf, len, &msg) != 0)
        return -1;
    c.base = msg.p;
    if (parse_tensor(&c, msg, t) != 0) {
        onnx_tensor_free(t);
        return -1;
    }
    return 0;
}

int onnx_parse_tensor(const uint8_t *buf, size_t len, onnx_tensor *t, char *err, size_t errlen)
{
    return tensor_named("<memory>", buf, len, t, err, errlen);
}

int onnx_read_tensor(const char *path, onnx_tensor *t, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    memset(t, 0, sizeof *t);
    if (tool_read_file(path, &buf, &len, err, errlen) != 0)
        return -1;
    int rc = tensor_named(path, buf, len, t, err, errlen);
    free(buf);
    return rc;
}

void onnx_tensor_free(onnx_tensor *t)
{
    if (t == NULL)
        return;
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* ---------------- ModelProto ---------------- */

enum { M_GRAPH = 7, M_OPSET_IMPORT = 8 };
enum { OP_DOMAIN = 1, OP_VERSION = 2 };
enum { G_NODE = 1 };
enum { N_INPUT = 1, N_OUTPUT = 2, N_OP_TYPE = 4, N_ATTRIBUTE = 5, N_DOMAIN = 7 };
enum { A_NAME = 1, A_F = 2, A_I = 3, A_S = 4, A_FLOATS = 7, A_INTS = 8, A_TYPE = 20 };

static int parse_attr(const pb_ctx *c, pb_buf msg, onnx_attr *a)
{
    int inferred = 0; /* type implied by the value fields, for files that omit 'type' */
    pb_field f;
    pb_rep r;
    uint64_t v;
    int rc;
    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        switch (f.num) {
        case A_NAME:
            if (pb_str(c, &f, a->name, sizeof a->name, "attribute name") != 0)
                return -1;
            break;
        case A_F: {
            if (pb_want(c, &f, WT_FIXED32, "attribute f") != 0)
                return -1;
            uint32_t bits = (uint32_t)f.v;
            memcpy(&a->f, &bits, sizeof a->f);
            inferred = ONNX_ATTR_FLOAT;
            break;
        }
        case A_I:
            if (pb_want(c, &f, WT_VARINT, "attribute i") != 0)
                return -1;
            a->i = as_i64(f.v);
            inferred = ONNX_ATTR_INT;
            break;
        case A_S:
            if (pb_str(c, &f, a->s, sizeof a->s, "attribute string") != 0)
                return -1;
            inferred = ONNX_ATTR_STRING;
            break;
        case A_FLOATS:
        case A_INTS:
            if (pb_rep_init(c, &f, f.num == A_INTS ? WT_VARINT : WT_FIXED32,
                            f.num == A_INTS ? "attribute ints" : "attribute floats", &r) != 0)
                return -1;
            while ((rc = pb_rep_next(c, &r, &v)) == 1) {
                int *n = f.num == A_INTS ? &a->n_ints : &a->n_floats;
                if (*n >= 64)
                    return FAIL(c, "attribute '%s' has more than 64 values", a->name);
                if (f.num == A_INTS) {
                    a->ints[(*n)++] = as_i64(v);
                } else {
                    uint32_t fb = (uint32_t)v;
                    memcpy(&a->floats[(*n)++], &fb, sizeof(float));
                }
            }
            if (rc != 0)
                return -1;
            inferred = f.num == A_INTS ? ONNX_ATTR_INTS : ONNX_ATTR_FLOATS;
            break;
        case A_TYPE:
            if (pb_want(c, &f, WT_VARINT, "attribute type") != 0)
                return -1;
            a->type = f.v <= INT32_MAX ? (int32_t)f.v : -1;
            break;
        default: /* t, g, strings, tensors, graphs, doc_string, ...: not needed */
            break;
        }
    }
    if (a->name[0] == '\0')
        return FAIL(c, "node has an attribute without a name");
    if (a->type == 0)
        a->type = inferred;
    return 0;
}

static int add_name(const pb_ctx *c, const pb_field *f, char (*names)[128], int *n, const char *what)
{
    if (*n >= 16)
        return FAIL(c, "node has more than 16 %ss", what);
    return pb_str(c, f, names[(*n)++], 128, what);
}

static int parse_node(const pb_ctx *c, pb_buf msg, onnx_model *m)
{
    pb_field f;
    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        switch (f.num) {
        case N_INPUT:
            if (add_name(c, &f, m->inputs, &m->n_inputs, "input") != 0)
                return -1;
            break;
        case N_OUTPUT:
            if (add_name(c, &f, m->outputs, &m->n_outputs, "output") != 0)
                return -1;
            break;
        case N_OP_TYPE:
            if (pb_str(c, &f, m->op_type, sizeof m->op_type, "op_type") != 0)
                return -1;
            break;
        case N_DOMAIN:
            if (pb_str(c, &f, m->domain, sizeof m->domain, "node domain") != 0)
                return -1;
            break;
        case N_ATTRIBUTE: {
            if (pb_want(c, &f, WT_LEN, "attribute") != 0)
                return -1;
            if (m->n_attrs >= 32)
                return FAIL(c, "node has more than 32 attributes");
            onnx_attr *a = &m->attrs[m->n_attrs];
            if (parse_attr(c, f.sub, a) != 0)
                return -1;
            if (onnx_model_attr(m, a->name) != NULL)
                return FAIL(c, "node has attribute '%s' twice", a->name);
            m->n_attrs++;
            break;
        }
        default:
            break;
        }
    }
    if (m->op_type[0] == '\0')
        return FAIL(c, "node has no op_type");
    return 0;
}

static int parse_opset(const pb_ctx *c, pb_buf msg, onnx_model *m)
{
    char domain[128] = "";
    int64_t version = 0;
    pb_field f;
    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        if (f.num == OP_DOMAIN && pb_str(c, &f, domain, sizeof domain, "opset_import domain") != 0)
            return -1;
        if (f.num == OP_VERSION) {
            if (pb_want(c, &f, WT_VARINT, "opset_import version") != 0)
                return -1;
            version = as_i64(f.v);
        }
    }
    if (strcmp(domain, "") == 0 || strcmp(domain, "ai.onnx") == 0)
        m->opset = version;
    return 0;
}

static int parse_model(const pb_ctx *c, pb_buf msg, onnx_model *m)
{
    int graphs = 0, nodes = 0;
    pb_buf node = {NULL, NULL};
    pb_field f, g;
    for (pb_buf b = msg; b.p < b.end;) {
        if (pb_next(c, &b, &f) != 0)
            return -1;
        if (f.num == M_OPSET_IMPORT) {
            if (pb_want(c, &f, WT_LEN, "opset_import") != 0 || parse_opset(c, f.sub, m) != 0)
                return -1;
        } else if (f.num == M_GRAPH) {
            if (pb_want(c, &f, WT_LEN, "graph") != 0)
                return -1;
            if (++graphs > 1)
                return FAIL(c, "model has more than one graph field");
            for (pb_buf gb = f.sub; gb.p < gb.end;) {
                if (pb_next(c, &gb, &g) != 0)
                    return -1;
                if (g.num != G_NODE)
                    continue;
                if (pb_want(c, &g, WT_LEN, "node") != 0)
                    return -1;
                if (++nodes == 1)
                    node = g.sub;
            }
        }
    }
    if (graphs == 0)
        return FAIL(c, "model has no graph");
    if (nodes != 1)
        return FAIL(c, "graph has %d nodes, expected exactly one", nodes);
    return parse_node(c, node, m);
}

static int model_named(const char *src, const uint8_t *buf, size_t len, onnx_model *m, char *err,
                       size_t errlen)
{
    pb_ctx c = {src, buf, err, errlen};
    pb_buf msg = {NULL, NULL};
    memset(m, 0, sizeof *m);
    if (pb_input(&c, buf, len, &msg) != 0)
        return -1;
    c.base = msg.p;
    if (parse_model(&c, msg, m) != 0) {
        memset(m, 0, sizeof *m);
        return -1;
    }
    return 0;
}

int onnx_parse_model(const uint8_t *buf, size_t len, onnx_model *m, char *err, size_t errlen)
{
    return model_named("<memory>", buf, len, m, err, errlen);
}

int onnx_read_model(const char *path, onnx_model *m, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    memset(m, 0, sizeof *m);
    if (tool_read_file(path, &buf, &len, err, errlen) != 0)
        return -1;
    int rc = model_named(path, buf, len, m, err, errlen);
    free(buf);
    return rc;
}

const onnx_attr *onnx_model_attr(const onnx_model *m, const char *name)
{
    for (int i = 0; i < m->n_attrs; i++)
        if (strcmp(m->attrs[i].name, name) == 0)
            return &m->attrs[i];
    return NULL;
}
