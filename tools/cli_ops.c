/* ONNX op name + attributes -> clpool calls. One table row per op. */
#include "cli_ops.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct attr_spec {
    const char *name;
    int32_t type; /* ONNX_ATTR_INT, _INTS, _STRING, _FLOAT; FLOAT also accepts an int */
    int required;
    const char *const *choices; /* a STRING's allowed values, NULL-terminated */
} attr_spec;

typedef int (*op_runner)(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);

typedef struct op_entry {
    const char *name;
    const attr_spec *attrs;
    int min_inputs, max_inputs; /* max -1: unbounded */
    int max_outputs;
    op_runner run;
} op_entry;

static int run_maxpool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);
static int run_sum_pool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);
static int run_global_pool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);
static int run_max(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);
static int run_max_unpool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen);

/* In clpool_auto_pad order. */
static const char *const auto_pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", NULL};

/* The window's attributes, then each op's own. */
#define WINDOW_ATTRS                                                                                              \
    {"kernel_shape", ONNX_ATTR_INTS, 1, NULL}, {"strides", ONNX_ATTR_INTS, 0, NULL},                             \
        {"pads", ONNX_ATTR_INTS, 0, NULL}, {"dilations", ONNX_ATTR_INTS, 0, NULL},                               \
        {"ceil_mode", ONNX_ATTR_INT, 0, NULL}, {"auto_pad", ONNX_ATTR_STRING, 0, auto_pad_names}
static const attr_spec maxpool_attrs[] = {WINDOW_ATTRS, {"storage_order", ONNX_ATTR_INT, 0, NULL}, {NULL, 0, 0, NULL}};
static const attr_spec average_pool_attrs[] = {WINDOW_ATTRS, {"count_include_pad", ONNX_ATTR_INT, 0, NULL},
                                               {NULL, 0, 0, NULL}};
static const attr_spec lp_pool_attrs[] = {WINDOW_ATTRS, {"p", ONNX_ATTR_FLOAT, 0, NULL}, {NULL, 0, 0, NULL}};

static const attr_spec max_unpool_attrs[] = {{"kernel_shape", ONNX_ATTR_INTS, 1, NULL},
                                             {"strides", ONNX_ATTR_INTS, 0, NULL},
                                             {"pads", ONNX_ATTR_INTS, 0, NULL},
                                             {NULL, 0, 0, NULL}};
static const attr_spec lp_attrs[] = {{"p", ONNX_ATTR_FLOAT, 0, NULL}, {NULL, 0, 0, NULL}};
static const attr_spec no_attrs[] = {{NULL, 0, 0, NULL}};

static const op_entry ops[] = {
    {"MaxPool", maxpool_attrs, 1, 1, 2, run_maxpool},
    {"AveragePool", average_pool_attrs, 1, 1, 1, run_sum_pool},
    {"LpPool", lp_pool_attrs, 1, 1, 1, run_sum_pool},
    {"GlobalMaxPool", no_attrs, 1, 1, 1, run_global_pool},
    {"GlobalAveragePool", no_attrs, 1, 1, 1, run_global_pool},
    {"GlobalLpPool", lp_attrs, 1, 1, 1, run_global_pool},
    {"Max", no_attrs, 1, CLI_MAX_INPUTS, 1, run_max},
    {"MaxUnpool", max_unpool_attrs, 2, 3, 1, run_max_unpool},
};

static const op_entry *find_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i)
        if (strcmp(ops[i].name, name) == 0) return &ops[i];
    return NULL;
}

int cli_op_known(const char *op) { return find_op(op) != NULL; }

static int errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static const attr_spec *find_attr_spec(const op_entry *op, const char *name)
{
    for (const attr_spec *a = op->attrs; a && a->name; ++a)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

static int choice_index(const char *const *choices, const char *value)
{
    for (int i = 0; choices[i]; ++i)
        if (strcmp(choices[i], value) == 0) return i;
    return -1;
}

/* "A, B or C" (static buffer: the tool is single-threaded). */
static const char *choice_list(const char *const *choices)
{
    static char buf[256];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; choices[i] && used < sizeof buf; ++i)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i == 0 ? "" : choices[i + 1] ? ", " : " or ",
                                 choices[i]);
    return buf;
}

/* Strict integer: optional sign, digits, nothing else, no overflow. */
static int parse_int64(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE) return -1;
    *out = v;
    return 0;
}

int cli_parse_attr(const char *opname, const char *name, const char *value, onnx_attr *attr, char *err, size_t errlen)
{
    const op_entry *op = find_op(opname);
    if (!op) return errf(err, errlen, "unknown op '%s'", opname);
    const attr_spec *spec = find_attr_spec(op, name);
    if (!spec) return errf(err, errlen, "%s has no attribute '%s'", opname, name);
    memset(attr, 0, sizeof *attr);
    snprintf(attr->name, sizeof attr->name, "%s", name);
    attr->type = spec->type;
    switch (spec->type) {
    case ONNX_ATTR_INT:
        if (parse_int64(value, &attr->i) != 0) return errf(err, errlen, "--%s: '%s' is not an integer", name, value);
        return 0;
    case ONNX_ATTR_STRING:
        if (spec->choices && choice_index(spec->choices, value) < 0)
            return errf(err, errlen, "--%s: '%s' is not one of %s", name, value, choice_list(spec->choices));
        if (strlen(value) >= sizeof attr->s) return errf(err, errlen, "--%s: value too long", name);
        snprintf(attr->s, sizeof attr->s, "%s", value);
        return 0;
    case ONNX_ATTR_FLOAT: {
        /* An integer stays an INT (ONNX GlobalLpPool-2's p), otherwise a FLOAT (opset 1). */
        if (parse_int64(value, &attr->i) == 0) {
            attr->type = ONNX_ATTR_INT;
            return 0;
        }
        char *end = NULL;
        errno = 0;
        attr->f = strtof(value, &end);
        if (end == value || *end || errno == ERANGE) return errf(err, errlen, "--%s: '%s' is not a number", name, value);
        return 0;
    }
    case ONNX_ATTR_INTS: {
        const char *p = value;
        while (*p) {
            if (attr->n_ints >= (int)(sizeof attr->ints / sizeof attr->ints[0]))
                return errf(err, errlen, "--%s: too many values", name);
            char item[32];
            size_t n = strcspn(p, ",");
            if (n == 0 || n >= sizeof item) return errf(err, errlen, "--%s: '%s' is not a list of integers", name, value);
            memcpy(item, p, n);
            item[n] = '\0';
            if (parse_int64(item, &attr->ints[attr->n_ints]) != 0)
                return errf(err, errlen, "--%s: '%s' is not an integer", name, item);
            attr->n_ints++;
            p += n;
            if (*p == ',' && *++p == '\0') return errf(err, errlen, "--%s: trailing comma in '%s'", name, value);
        }
        if (attr->n_ints == 0) return errf(err, errlen, "--%s: empty list", name);
        return 0;
    }
    }
    return errf(err, errlen, "--%s: unsupported attribute type", name);
}

static const onnx_attr *get_attr(const cli_op_call *call, const char *name)
{
    for (int i = 0; i < call->n_attrs; ++i)
        if (strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
    return NULL;
}

/* Map an array's element type to a clpool dtype, honouring --bfloat16. */
static clpool_dtype array_dtype(const cli_op_call *call, const npy_array *a)
{
    if (call->bfloat16 && a->dtype == PB_DT_UINT16) return CLPOOL_BFLOAT16;
    return (clpool_dtype)a->dtype;
}

static int array_shape(const npy_array *a, clpool_shape *shape, char *err, size_t errlen)
{
    if (a->rank > CLPOOL_MAX_RANK) return errf(err, errlen, "rank %d exceeds clpool's limit of %d", a->rank, CLPOOL_MAX_RANK);
    memset(shape, 0, sizeof *shape);
    shape->rank = a->rank;
    for (int i = 0; i < a->rank; ++i) shape->dims[i] = a->dims[i];
    return 0;
}

/* Allocate an output array of `shape` and element type `dtype_code`. */
static int alloc_output(npy_array *out, int32_t dtype_code, const clpool_shape *shape, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->dtype = dtype_code;
    out->rank = shape->rank;
    size_t count = 0, bytes = 0;
    for (int i = 0; i < shape->rank; ++i) out->dims[i] = shape->dims[i];
    if (tool_shape_bytes(out->dims, out->rank, pb_dtype_size(dtype_code), &count, &bytes) != 0)
        return errf(err, errlen, "output size overflows");
    out->nbytes = bytes;
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data) return errf(err, errlen, "out of memory for a %zu-byte output", bytes);
    return 0;
}

static int api_error(const char *op, clpool_status status, char *err, size_t errlen)
{
    errf(err, errlen, "%s failed: %s: %s", op, clpool_status_string(status), clpool_last_error());
    return status == CLPOOL_ERROR_UNSUPPORTED_DEVICE ? CLI_UNSUPPORTED : -1;
}

/* Copy an INTS attribute into dst, checking its length. */
static int take_ints(const onnx_attr *a, int64_t *dst, int want, char *err, size_t errlen)
{
    if (a->type != ONNX_ATTR_INTS) return errf(err, errlen, "attribute %s must be a list of integers", a->name);
    if (a->n_ints != want)
        return errf(err, errlen, "attribute %s has %d values, expected %d", a->name, a->n_ints, want);
    memcpy(dst, a->ints, (size_t)want * sizeof *dst);
    return 0;
}

static int take_int(const onnx_attr *a, int32_t *dst, char *err, size_t errlen)
{
    if (a->type != ONNX_ATTR_INT) return errf(err, errlen, "attribute %s must be an integer", a->name);
    if (a->i < INT32_MIN || a->i > INT32_MAX) return errf(err, errlen, "attribute %s = %lld is out of range", a->name, (long long)a->i);
    *dst = (int32_t)a->i;
    return 0;
}

/* The window attributes of a windowed op's call into *w (defaults from clpool_window_params_init). */
static int take_window(const cli_op_call *call, const npy_array *x, clpool_window_params *w, char *err, size_t errlen)
{
    const onnx_attr *ks = get_attr(call, "kernel_shape");
    if (!ks) return errf(err, errlen, "%s needs kernel_shape", call->op);
    if (ks->type != ONNX_ATTR_INTS || ks->n_ints < 1 || ks->n_ints > CLPOOL_MAX_SPATIAL)
        return errf(err, errlen, "kernel_shape must be a list of 1..%d integers", CLPOOL_MAX_SPATIAL);
    if (x->rank != ks->n_ints + 2)
        return errf(err, errlen, "%s input has rank %d but kernel_shape has %d dims (rank must be %d)", call->op, x->rank,
                    ks->n_ints, ks->n_ints + 2);
    const int ns = ks->n_ints;
    clpool_status st = clpool_window_params_init(w, ns, ks->ints);
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    const onnx_attr *a;
    if ((a = get_attr(call, "strides")) && take_ints(a, w->strides, ns, err, errlen) != 0) return -1;
    if ((a = get_attr(call, "dilations")) && take_ints(a, w->dilations, ns, err, errlen) != 0) return -1;
    if ((a = get_attr(call, "pads")) && take_ints(a, w->pads, 2 * ns, err, errlen) != 0) return -1;
    const int has_pads = a != NULL;
    if ((a = get_attr(call, "ceil_mode")) && take_int(a, &w->ceil_mode, err, errlen) != 0) return -1;
    if ((a = get_attr(call, "auto_pad"))) {
        const int found = a->type == ONNX_ATTR_STRING ? choice_index(auto_pad_names, a->s) : -1;
        if (found < 0) return errf(err, errlen, "auto_pad '%s' is not %s", a->s, choice_list(auto_pad_names));
        w->auto_pad = (clpool_auto_pad)found;
        if (found != CLPOOL_AUTO_PAD_NOTSET && has_pads)
            return errf(err, errlen, "pads cannot be given together with auto_pad %s", a->s);
    }
    return 0;
}

/* ------------------------------------------------- channels-last arrays */

/* An array's logical shape: N x C x spatial, from N x spatial x C where channels_last (rank >= 3). */
static int logical_shape(const cli_op_call *call, const npy_array *a, clpool_shape *shape, char *err, size_t errlen)
{
    if (array_shape(a, shape, err, errlen) != 0) return -1;
    if (!call->channels_last) return 0;
    if (a->rank < 3) return errf(err, errlen, "--layout nhwc needs N, spatial dims and C: the input has rank %d", a->rank);
    shape->dims[1] = a->dims[a->rank - 1];
    for (int i = 2; i < a->rank; ++i) shape->dims[i] = a->dims[i - 1];
    return 0;
}

/* An output of the logical `shape`, stored as the input is (N x spatial x C where channels_last). */
static int alloc_stored(const cli_op_call *call, npy_array *out, int32_t dtype_code, const clpool_shape *shape,
                        char *err, size_t errlen)
{
    clpool_shape stored = *shape;
    if (call->channels_last) {
        for (int i = 1; i + 1 < shape->rank; ++i) stored.dims[i] = shape->dims[i + 1];
        stored.dims[shape->rank - 1] = shape->dims[1];
    }
    return alloc_output(out, dtype_code, &stored, err, errlen);
}

/* An op on views: the call's inputs (n_in of them), then its outputs (n_views in all). */
typedef clpool_status (*view_op)(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in, int n_views,
                                 const clpool_view *views);
static clpool_status maxpool_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in, int n_views,
                                  const clpool_view *v)
{
    (void)n_in;
    return clpool_enqueue_maxpool_view(ctx, NULL, params, dtype, &v[0], &v[1], n_views > 2 ? &v[2] : NULL, 0, NULL,
                                       NULL);
}
static clpool_status average_pool_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in,
                                       int n_views, const clpool_view *v)
{
    (void)n_in, (void)n_views;
    return clpool_enqueue_average_pool_view(ctx, NULL, params, dtype, &v[0], &v[1], 0, NULL, NULL);
}
static clpool_status lp_pool_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in, int n_views,
                                  const clpool_view *v)
{
    (void)n_in, (void)n_views;
    return clpool_enqueue_lp_pool_view(ctx, NULL, params, dtype, &v[0], &v[1], 0, NULL, NULL);
}

/* MaxUnpool's params and where its count of skipped indices goes. */
typedef struct unpool_call {
    const clpool_max_unpool_params *params;
    cl_uint *skipped;
} unpool_call;
static clpool_status max_unpool_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in,
                                     int n_views, const clpool_view *v)
{
    (void)n_views;
    const unpool_call *u = params;
    cl_int e;
    cl_mem counter = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    sizeof *u->skipped, u->skipped, &e);
    if (e != CL_SUCCESS) return CLPOOL_ERROR_OPENCL;
    clpool_status st = clpool_enqueue_max_unpool_view(ctx, NULL, u->params, dtype, &v[0], &v[1], &v[n_in], counter, 0,
                                                      0, NULL, NULL);
    if (st == CLPOOL_SUCCESS && clEnqueueReadBuffer(clpool_context_cl_queue(ctx), counter, CL_TRUE, 0,
                                                    sizeof *u->skipped, u->skipped, 0, NULL, NULL) != CL_SUCCESS)
        st = CLPOOL_ERROR_OPENCL;
    clReleaseMemObject(counter);
    return st;
}

/* Runs `op` on the call's arrays (inputs, then its allocated outputs) as views of buffers of the context:
 * channels-last from rank 3, lower ranks as they are; shapes[k] is array k's logical shape. 0, or -1 with
 * err set. */
static int run_channels_last(clpool_context *ctx, cli_op_call *call, view_op op, const void *params,
                             const clpool_shape *shapes, char *err, size_t errlen)
{
    const int n_in = call->n_inputs, n = n_in + call->n_outputs;
    cl_context cl = clpool_context_cl_context(ctx);
    cl_command_queue q = clpool_context_cl_queue(ctx);
    cl_mem mems[CLI_MAX_INPUTS + 2] = {NULL};
    clpool_view views[CLI_MAX_INPUTS + 2];
    int rc = 0;
    for (int k = 0; k < n && rc == 0; ++k) {
        const npy_array *a = k < n_in ? &call->inputs[k] : &call->outputs[k - n_in];
        const int upload = k < n_in && a->nbytes;
        cl_int e;
        mems[k] = clCreateBuffer(cl, upload ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE,
                                 a->nbytes ? a->nbytes : 1, upload ? a->data : NULL, &e);
        if (e != CL_SUCCESS) rc = errf(err, errlen, "clCreateBuffer of %zu bytes failed (%d)", a->nbytes, (int)e);
        const clpool_status st = rc                   ? CLPOOL_SUCCESS
                                 : shapes[k].rank >= 3 ? clpool_view_channels_last(&views[k], mems[k], 0, &shapes[k])
                                                       : clpool_view_contiguous(&views[k], mems[k], 0, &shapes[k]);
        if (st != CLPOOL_SUCCESS) rc = api_error(call->op, st, err, errlen);
    }
    if (rc == 0) {
        const clpool_status st = op(ctx, params, array_dtype(call, &call->inputs[0]), n_in, n, views);
        if (st != CLPOOL_SUCCESS) rc = api_error(call->op, st, err, errlen);
    }
    for (int k = n_in; k < n && rc == 0; ++k) {
        const npy_array *a = &call->outputs[k - n_in];
        const cl_int e = a->nbytes ? clEnqueueReadBuffer(q, mems[k], CL_TRUE, 0, a->nbytes, a->data, 0, NULL, NULL)
                                   : CL_SUCCESS;
        if (e != CL_SUCCESS) rc = errf(err, errlen, "clEnqueueReadBuffer failed (%d)", (int)e);
    }
    clFinish(q);
    for (int k = 0; k < n; ++k)
        if (mems[k]) clReleaseMemObject(mems[k]);
    return rc;
}

static int run_maxpool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    const npy_array *x = &call->inputs[0];
    clpool_shape in_shape, out_shape;
    if (logical_shape(call, x, &in_shape, err, errlen) != 0) return -1;
    clpool_window_params w;
    if (take_window(call, x, &w, err, errlen) != 0) return -1;
    clpool_maxpool_params p;
    clpool_status st = clpool_maxpool_params_init(&p, w.spatial_rank, w.kernel_shape);
    if (st != CLPOOL_SUCCESS) return api_error("MaxPool", st, err, errlen);
    /* clpool_maxpool_params starts with the window's fields, field for field */
    memcpy(p.strides, w.strides, sizeof p.strides);
    memcpy(p.dilations, w.dilations, sizeof p.dilations);
    memcpy(p.pads, w.pads, sizeof p.pads);
    p.ceil_mode = w.ceil_mode;
    p.auto_pad = w.auto_pad;
    const onnx_attr *a;
    if ((a = get_attr(call, "storage_order")) && take_int(a, &p.storage_order, err, errlen) != 0) return -1;
    st = clpool_maxpool_output_shape(&in_shape, &p, &out_shape);
    if (st != CLPOOL_SUCCESS) return api_error("MaxPool", st, err, errlen);
    if (alloc_stored(call, &call->outputs[0], x->dtype, &out_shape, err, errlen) != 0) return -1;
    if (call->n_outputs > 1 && alloc_stored(call, &call->outputs[1], PB_DT_INT64, &out_shape, err, errlen) != 0)
        return -1;
    if (call->channels_last)
        return run_channels_last(ctx, call, maxpool_view, &p, (const clpool_shape[]){in_shape, out_shape, out_shape},
                                 err, errlen);
    st = clpool_maxpool_host(ctx, &p, array_dtype(call, x), &in_shape, x->data, call->outputs[0].data,
                             call->n_outputs > 1 ? call->outputs[1].data : NULL);
    if (st != CLPOOL_SUCCESS) return api_error("MaxPool", st, err, errlen);
    return 0;
}

/* AveragePool and LpPool: the window, then count_include_pad or p. */
static int run_sum_pool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    const npy_array *x = &call->inputs[0];
    clpool_shape in_shape, out_shape;
    if (logical_shape(call, x, &in_shape, err, errlen) != 0) return -1;
    clpool_window_params w;
    if (take_window(call, x, &w, err, errlen) != 0) return -1;
    const int lp = strcmp(call->op, "LpPool") == 0;
    clpool_average_pool_params avg;
    clpool_lp_pool_params lpp;
    clpool_status st = lp ? clpool_lp_pool_params_init(&lpp, w.spatial_rank, w.kernel_shape)
                          : clpool_average_pool_params_init(&avg, w.spatial_rank, w.kernel_shape);
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    const onnx_attr *a;
    if (lp) {
        lpp.window = w;
        if ((a = get_attr(call, "p"))) lpp.p = a->type == ONNX_ATTR_INT ? (double)a->i : (double)a->f;
        st = clpool_lp_pool_output_shape(&in_shape, &lpp, &out_shape);
    } else {
        avg.window = w;
        if ((a = get_attr(call, "count_include_pad")) && take_int(a, &avg.count_include_pad, err, errlen) != 0)
            return -1;
        st = clpool_average_pool_output_shape(&in_shape, &avg, &out_shape);
    }
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    if (alloc_stored(call, &call->outputs[0], x->dtype, &out_shape, err, errlen) != 0) return -1;
    const clpool_dtype dtype = array_dtype(call, x);
    if (call->channels_last)
        return run_channels_last(ctx, call, lp ? lp_pool_view : average_pool_view, lp ? (const void *)&lpp : &avg,
                                 (const clpool_shape[]){in_shape, out_shape}, err, errlen);
    st = lp ? clpool_lp_pool_host(ctx, &lpp, dtype, &in_shape, x->data, call->outputs[0].data)
            : clpool_average_pool_host(ctx, &avg, dtype, &in_shape, x->data, call->outputs[0].data);
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    return 0;
}

/* A global pool on views (view_op's params: the call's op name and p). */
typedef struct global_args {
    const char *op;
    double p;
} global_args;
static clpool_status global_pool_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in,
                                      int n_views, const clpool_view *v)
{
    const global_args *g = params;
    const clpool_view *x = &v[0], *y = &v[1];
    (void)n_in, (void)n_views;
    if (strcmp(g->op, "GlobalMaxPool") == 0) return clpool_enqueue_global_max_pool_view(ctx, NULL, dtype, x, y, 0, NULL, NULL);
    if (strcmp(g->op, "GlobalAveragePool") == 0)
        return clpool_enqueue_global_average_pool_view(ctx, NULL, dtype, x, y, 0, NULL, NULL);
    return clpool_enqueue_global_lp_pool_view(ctx, NULL, g->p, dtype, x, y, 0, NULL, NULL);
}

static int run_global_pool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    const npy_array *x = &call->inputs[0];
    clpool_shape in_shape, out_shape;
    if (logical_shape(call, x, &in_shape, err, errlen) != 0) return -1;
    clpool_status st = clpool_global_pool_output_shape(&in_shape, &out_shape);
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    if (alloc_stored(call, &call->outputs[0], x->dtype, &out_shape, err, errlen) != 0) return -1;
    const clpool_dtype dtype = array_dtype(call, x);
    void *out = call->outputs[0].data;
    const onnx_attr *a = get_attr(call, "p");
    global_args g = {call->op, 2.0}; /* ONNX's default p */
    if (a) g.p = a->type == ONNX_ATTR_INT ? (double)a->i : (double)a->f;
    if (call->channels_last)
        return run_channels_last(ctx, call, global_pool_view, &g, (const clpool_shape[]){in_shape, out_shape}, err,
                                 errlen);
    if (strcmp(call->op, "GlobalMaxPool") == 0) {
        st = clpool_global_max_pool_host(ctx, dtype, &in_shape, x->data, out);
    } else if (strcmp(call->op, "GlobalAveragePool") == 0) {
        st = clpool_global_average_pool_host(ctx, dtype, &in_shape, x->data, out);
    } else {
        st = clpool_global_lp_pool_host(ctx, g.p, dtype, &in_shape, x->data, out);
    }
    if (st != CLPOOL_SUCCESS) return api_error(call->op, st, err, errlen);
    return 0;
}

static clpool_status max_view(clpool_context *ctx, const void *params, clpool_dtype dtype, int n_in, int n_views,
                              const clpool_view *v)
{
    (void)params, (void)n_views;
    return clpool_enqueue_max_view(ctx, NULL, dtype, (size_t)n_in, v, &v[n_in], 0, NULL, NULL);
}

static int run_max(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    clpool_shape shapes[CLI_MAX_INPUTS + 1], out_shape; /* the inputs', then the output's for views */
    const void *data[CLI_MAX_INPUTS];
    for (int i = 0; i < call->n_inputs; ++i) {
        if (call->inputs[i].dtype != call->inputs[0].dtype)
            return errf(err, errlen, "Max input %d has dtype %s but input 0 has %s (all inputs must share one dtype)", i,
                        pb_dtype_name(call->inputs[i].dtype), pb_dtype_name(call->inputs[0].dtype));
        if (array_shape(&call->inputs[i], &shapes[i], err, errlen) != 0) return -1;
        if (call->channels_last && call->inputs[i].rank >= 3 && logical_shape(call, &call->inputs[i], &shapes[i], err,
                                                                             errlen) != 0)
            return -1;
        data[i] = call->inputs[i].data;
    }
    clpool_status st = clpool_max_output_shape((size_t)call->n_inputs, shapes, &out_shape);
    if (st != CLPOOL_SUCCESS) return api_error("Max", st, err, errlen);
    if (call->channels_last && out_shape.rank >= 3) {
        if (alloc_stored(call, &call->outputs[0], call->inputs[0].dtype, &out_shape, err, errlen) != 0) return -1;
        shapes[call->n_inputs] = out_shape;
        return run_channels_last(ctx, call, max_view, NULL, shapes, err, errlen);
    }
    if (alloc_output(&call->outputs[0], call->inputs[0].dtype, &out_shape, err, errlen) != 0) return -1;
    st = clpool_max_host(ctx, array_dtype(call, &call->inputs[0]), (size_t)call->n_inputs, shapes, data,
                         call->outputs[0].data);
    if (st != CLPOOL_SUCCESS) return api_error("Max", st, err, errlen);
    return 0;
}

/* MaxUnpool: X, its int64 Indices and an optional int64 output_shape; indices outside their plane fail the
 * call (the library skips them and counts). */
static int run_max_unpool(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    const npy_array *x = &call->inputs[0], *idx = &call->inputs[1];
    clpool_shape x_shape, out_shape;
    if (logical_shape(call, x, &x_shape, err, errlen) != 0) return -1;
    if (idx->dtype != PB_DT_INT64) return errf(err, errlen, "MaxUnpool indices must be int64, not %s", pb_dtype_name(idx->dtype));
    int same = idx->rank == x->rank;
    for (int i = 0; same && i < x->rank; ++i) same = idx->dims[i] == x->dims[i];
    if (!same) return errf(err, errlen, "MaxUnpool indices must have X's shape");
    clpool_window_params w;
    if (take_window(call, x, &w, err, errlen) != 0) return -1;
    clpool_max_unpool_params p;
    clpool_status st = clpool_max_unpool_params_init(&p, w.spatial_rank, w.kernel_shape);
    if (st != CLPOOL_SUCCESS) return api_error("MaxUnpool", st, err, errlen);
    p.window = w;
    if (call->n_inputs > 2) {
        const npy_array *os = &call->inputs[2];
        if (os->dtype != PB_DT_INT64 || os->rank != 1)
            return errf(err, errlen, "MaxUnpool output_shape must be a 1-D int64 array");
        if (os->dims[0] > CLPOOL_MAX_RANK)
            return errf(err, errlen, "MaxUnpool output_shape has %lld dims, more than %d", (long long)os->dims[0],
                        CLPOOL_MAX_RANK);
        p.has_output_shape = 1;
        p.indices = call->indices_of_output ? CLPOOL_UNPOOL_INDICES_OUTPUT : CLPOOL_UNPOOL_INDICES_INFERRED;
        p.output_shape.rank = (int32_t)os->dims[0];
        memcpy(p.output_shape.dims, os->data, (size_t)os->dims[0] * sizeof(int64_t));
    }
    st = clpool_max_unpool_output_shape(&x_shape, &p, &out_shape);
    if (st != CLPOOL_SUCCESS) return api_error("MaxUnpool", st, err, errlen);
    if (alloc_stored(call, &call->outputs[0], x->dtype, &out_shape, err, errlen) != 0) return -1;
    uint32_t skipped = 0;
    if (call->channels_last) {
        cl_uint count = 0;
        const unpool_call u = {&p, &count};
        clpool_shape shapes[4] = {x_shape, x_shape, out_shape, out_shape}; /* X, I, then output_shape's array or Y */
        if (call->n_inputs > 2) shapes[2] = (clpool_shape){1, {call->inputs[2].dims[0]}};
        if (run_channels_last(ctx, call, max_unpool_view, &u, shapes, err, errlen) != 0) return -1;
        skipped = count;
    } else {
        st = clpool_max_unpool_host(ctx, &p, array_dtype(call, x), &x_shape, x->data, idx->data,
                                    call->outputs[0].data, &skipped);
        if (st != CLPOOL_SUCCESS) return api_error("MaxUnpool", st, err, errlen);
    }
    if (skipped)
        return errf(err, errlen, "MaxUnpool: %lu indices lie outside their (n, c) plane of the output", (unsigned long)skipped);
    return 0;
}

int cli_check_call(const char *opname, const onnx_attr *attrs, int n_attrs, int n_inputs, int n_outputs, char *err,
                   size_t errlen)
{
    const op_entry *op = find_op(opname);
    if (!op) return errf(err, errlen, "unknown op '%s'", opname);
    for (int i = 0; i < n_attrs; ++i)
        if (!find_attr_spec(op, attrs[i].name)) return errf(err, errlen, "%s has no attribute '%s'", op->name, attrs[i].name);
    for (const attr_spec *spec = op->attrs; spec->name; ++spec) {
        int given = 0;
        for (int i = 0; i < n_attrs; ++i) given |= strcmp(attrs[i].name, spec->name) == 0;
        if (spec->required && !given) return errf(err, errlen, "%s needs %s", op->name, spec->name);
    }
    if (n_inputs < op->min_inputs || (op->max_inputs >= 0 && n_inputs > op->max_inputs))
        return errf(err, errlen, "%s takes %d..%d inputs, got %d", op->name, op->min_inputs, op->max_inputs, n_inputs);
    if (n_outputs < 1 || n_outputs > op->max_outputs)
        return errf(err, errlen, "%s produces 1..%d outputs, %d requested", op->name, op->max_outputs, n_outputs);
    return 0;
}

int cli_run_op(clpool_context *ctx, cli_op_call *call, char *err, size_t errlen)
{
    if (cli_check_call(call->op, call->attrs, call->n_attrs, call->n_inputs, call->n_outputs, err, errlen) != 0) return -1;
    const int rc = find_op(call->op)->run(ctx, call, err, errlen);
    if (rc != 0) cli_op_call_free(call);
    return rc;
}

void cli_op_call_free(cli_op_call *call)
{
    for (int i = 0; i < CLI_MAX_OUTPUTS; ++i) npy_free(&call->outputs[i]);
}
