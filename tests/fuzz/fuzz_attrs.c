/*
 * libFuzzer target: CLI attribute parsing + the library's pure shape
 * inference (no device). Input: "OP\nname=value\n...\nshape=d0,d1,..." lines.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "cli_ops.h"

static void parse_shape(const char *v, clpool_shape *s)
{
    memset(s, 0, sizeof *s);
    while (*v && s->rank < CLPOOL_MAX_RANK + 2) {
        char *end = NULL;
        long long d = strtoll(v, &end, 10);
        if (end == v) break;
        if (s->rank < CLPOOL_MAX_RANK) s->dims[s->rank] = d;
        s->rank++; /* may exceed the limit on purpose: the library must reject it */
        v = *end == ',' ? end + 1 : end;
        if (!*end) break;
    }
    if (s->rank > CLPOOL_MAX_RANK) s->rank = CLPOOL_MAX_RANK + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *save = NULL, *op = strtok_r(text, "\n", &save);
    onnx_attr attrs[16];
    int n = 0;
    clpool_shape shapes[4];
    int n_shapes = 0;
    char err[256];
    for (char *line; op && (line = strtok_r(NULL, "\n", &save)) != NULL;) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        if (strcmp(line, "shape") == 0) {
            if (n_shapes < 4) parse_shape(eq + 1, &shapes[n_shapes++]);
        } else if (n < 16 && cli_parse_attr(op, line, eq + 1, &attrs[n], err, sizeof err) == 0) {
            ++n;
        }
    }
    if (op && n_shapes > 0) {
        clpool_shape out;
        if (strcmp(op, "Max") == 0) {
            clpool_max_output_shape((size_t)n_shapes, shapes, &out);
        } else if (strncmp(op, "Global", 6) == 0) {
            clpool_global_pool_output_shape(&shapes[0], &out);
        } else if (n > 0 && attrs[0].type == ONNX_ATTR_INTS && attrs[0].n_ints >= 1 &&
                   attrs[0].n_ints <= CLPOOL_MAX_SPATIAL) {
            /* attrs[0] as kernel_shape, the rest by name, like the CLI does: the windowed ops. */
            clpool_window_params w;
            if (clpool_window_params_init(&w, attrs[0].n_ints, attrs[0].ints) == CLPOOL_SUCCESS) {
                int32_t storage_order = 0, count_include_pad = 0;
                double p = 2.0;
                for (int i = 1; i < n; ++i) {
                    const onnx_attr *a = &attrs[i];
                    const int ns = attrs[0].n_ints;
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "strides") == 0 && a->n_ints == ns)
                        memcpy(w.strides, a->ints, (size_t)ns * 8);
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "dilations") == 0 && a->n_ints == ns)
                        memcpy(w.dilations, a->ints, (size_t)ns * 8);
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "pads") == 0 && a->n_ints == 2 * ns)
                        memcpy(w.pads, a->ints, (size_t)ns * 16);
                    if (a->type == ONNX_ATTR_INT && strcmp(a->name, "ceil_mode") == 0) w.ceil_mode = (int32_t)a->i;
                    if (a->type == ONNX_ATTR_INT && strcmp(a->name, "storage_order") == 0) storage_order = (int32_t)a->i;
                    if (a->type == ONNX_ATTR_INT && strcmp(a->name, "count_include_pad") == 0)
                        count_include_pad = (int32_t)a->i;
                    if (strcmp(a->name, "p") == 0) p = a->type == ONNX_ATTR_INT ? (double)a->i : (double)a->f;
                    if (a->type == ONNX_ATTR_STRING && strcmp(a->name, "auto_pad") == 0)
                        w.auto_pad = strcmp(a->s, "SAME_UPPER") == 0   ? CLPOOL_AUTO_PAD_SAME_UPPER
                                     : strcmp(a->s, "SAME_LOWER") == 0 ? CLPOOL_AUTO_PAD_SAME_LOWER
                                     : strcmp(a->s, "VALID") == 0      ? CLPOOL_AUTO_PAD_VALID
                                                                       : CLPOOL_AUTO_PAD_NOTSET;
                }
                clpool_status st = CLPOOL_ERROR_INVALID_ARGUMENT;
                if (strcmp(op, "MaxPool") == 0) {
                    clpool_maxpool_params mp;
                    clpool_maxpool_params_init(&mp, w.spatial_rank, w.kernel_shape);
                    memcpy(mp.strides, w.strides, sizeof mp.strides);
                    memcpy(mp.dilations, w.dilations, sizeof mp.dilations);
                    memcpy(mp.pads, w.pads, sizeof mp.pads);
                    mp.ceil_mode = w.ceil_mode;
                    mp.auto_pad = w.auto_pad;
                    mp.storage_order = storage_order;
                    st = clpool_maxpool_output_shape(&shapes[0], &mp, &out);
                } else if (strcmp(op, "AveragePool") == 0) {
                    clpool_average_pool_params ap;
                    clpool_average_pool_params_init(&ap, w.spatial_rank, w.kernel_shape);
                    ap.window = w;
                    ap.count_include_pad = count_include_pad;
                    st = clpool_average_pool_output_shape(&shapes[0], &ap, &out);
                } else if (strcmp(op, "LpPool") == 0) {
                    clpool_lp_pool_params lp;
                    clpool_lp_pool_params_init(&lp, w.spatial_rank, w.kernel_shape);
                    lp.window = w;
                    lp.p = p;
                    st = clpool_lp_pool_output_shape(&shapes[0], &lp, &out);
                } else if (strcmp(op, "MaxUnpool") == 0) { /* shape 2: output_shape; a third: the output reading */
                    clpool_max_unpool_params up;
                    clpool_max_unpool_params_init(&up, w.spatial_rank, w.kernel_shape);
                    up.window = w;
                    up.has_output_shape = n_shapes > 1;
                    if (n_shapes > 1) up.output_shape = shapes[1];
                    up.indices = n_shapes > 2 ? CLPOOL_UNPOOL_INDICES_OUTPUT : CLPOOL_UNPOOL_INDICES_INFERRED;
                    st = clpool_max_unpool_output_shape(&shapes[0], &up, &out);
                }
                if (st == CLPOOL_SUCCESS && clpool_shape_elements(&out) < 0)
                    __builtin_trap(); /* an accepted shape must have a valid size */
            }
        }
    }
    free(text);
    return 0;
}
