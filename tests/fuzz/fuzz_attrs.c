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
        } else if (strcmp(op, "MaxPool") == 0 && n > 0 && attrs[0].type == ONNX_ATTR_INTS && attrs[0].n_ints >= 1 &&
                   attrs[0].n_ints <= CLPOOL_MAX_SPATIAL) {
            /* attrs[0] as kernel_shape, the rest by name, like the CLI does. */
            clpool_maxpool_params p;
            if (clpool_maxpool_params_init(&p, attrs[0].n_ints, attrs[0].ints) == CLPOOL_SUCCESS) {
                for (int i = 1; i < n; ++i) {
                    const onnx_attr *a = &attrs[i];
                    const int ns = attrs[0].n_ints;
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "strides") == 0 && a->n_ints == ns)
                        memcpy(p.strides, a->ints, (size_t)ns * 8);
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "dilations") == 0 && a->n_ints == ns)
                        memcpy(p.dilations, a->ints, (size_t)ns * 8);
                    if (a->type == ONNX_ATTR_INTS && strcmp(a->name, "pads") == 0 && a->n_ints == 2 * ns)
                        memcpy(p.pads, a->ints, (size_t)ns * 16);
                    if (a->type == ONNX_ATTR_INT && strcmp(a->name, "ceil_mode") == 0) p.ceil_mode = (int32_t)a->i;
                    if (a->type == ONNX_ATTR_INT && strcmp(a->name, "storage_order") == 0) p.storage_order = (int32_t)a->i;
                    if (a->type == ONNX_ATTR_STRING && strcmp(a->name, "auto_pad") == 0)
                        p.auto_pad = strcmp(a->s, "SAME_UPPER") == 0   ? CLPOOL_AUTO_PAD_SAME_UPPER
                                     : strcmp(a->s, "SAME_LOWER") == 0 ? CLPOOL_AUTO_PAD_SAME_LOWER
                                     : strcmp(a->s, "VALID") == 0      ? CLPOOL_AUTO_PAD_VALID
                                                                       : CLPOOL_AUTO_PAD_NOTSET;
                }
                if (clpool_maxpool_output_shape(&shapes[0], &p, &out) == CLPOOL_SUCCESS &&
                    clpool_shape_elements(&out) < 0)
                    __builtin_trap(); /* an accepted shape must have a valid size */
            }
        }
    }
    free(text);
    return 0;
}
