/*
 * `bench_onednn [--csv] [--repeat R] [--filter TEXT]`
 *
 * oneDNN's CPU pooling and binary-max primitives on the float32 cases of
 * tools/bench_ort.py (same names, shapes and attributes), for the oneDNN
 * columns of its table. Each case: the primitive built once, inputs random in
 * [0, 1), one warm-up run, then R timed runs (default 15), each after a read of
 * 64 MiB that evicts the caches as bench_ort.py does; a run's time is the wall
 * time of dnnl_primitive_execute + dnnl_stream_wait. Prints the median in ms.
 * Tensors are plain NCW / NCHW / NCDHW, as ONNX lays them out; threads are
 * oneDNN's default. Cases with no oneDNN primitive print "unsupported".
 *   --csv  one line per case: `case,median_ms` or `case,unsupported`
 * Build: gcc -std=c11 -D_POSIX_C_SOURCE=200809L tools/bench_onednn.c -ldnnl
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dnnl.h>
#include <dnnl_debug.h>

typedef enum case_op { OP_UNSUPPORTED, OP_MAXPOOL, OP_AVGPOOL, OP_GLOBAL_AVG, OP_GLOBAL_MAX, OP_MAX } case_op;

/* Windows as ONNX gives them (spatial dims only, pads split into begins and
 * ends); no case sets ceil_mode, so the output size is floor's. */
typedef struct onednn_case {
    const char *name;
    case_op op;
    int ndims;                 /* of every input, N and C included */
    int64_t in0[5], in1[5];    /* in1: Max's second input */
    int64_t k[3], s[3], pad_begin[3], pad_end[3];
    int count_include_pad;     /* AveragePool's attribute (ONNX default 0) */
    const char *unsupported;   /* why oneDNN cannot run the case, else NULL */
    int channels_last;         /* tensors N x spatial x C (nwc, nhwc, ndhwc), as clpool's views of the name */
    int64_t dilation[3];       /* ONNX's dilations where not 0 */
} onednn_case;

#define NO_INDICES "no primitive gives MaxPool's Indices (ONNX flat int64)"

/* In step with CASES in tools/bench_ort.py: bench_ort.py joins the two by name. */
static const onednn_case cases[] = {
    {"maxpool_3x3s2p1_8x64x112x112_f32", OP_MAXPOOL, 4, {8, 64, 112, 112}, {0}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 0,
     NULL, 0, {0}},
    {"maxpool_idx_3x3s2p1_8x64x112x112_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, NO_INDICES, 0, {0}},
    {"maxpool_2x2s2_8x128x56x56_f32", OP_MAXPOOL, 4, {8, 128, 56, 56}, {0}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 0, NULL, 0, {0}},
    {"maxpool_5x5s1p2_8x512x20x20_f32", OP_MAXPOOL, 4, {8, 512, 20, 20}, {0}, {5, 5}, {1, 1}, {2, 2}, {2, 2}, 0, NULL, 0, {0}},
    {"maxpool_13x13s1p6_8x512x20x20_f32", OP_MAXPOOL, 4, {8, 512, 20, 20}, {0}, {13, 13}, {1, 1}, {6, 6}, {6, 6}, 0,
     NULL, 0, {0}},
    {"maxpool1d_3s2p1_8x256x4096_f32", OP_MAXPOOL, 3, {8, 256, 4096}, {0}, {3}, {2}, {1}, {1}, 0, NULL, 0, {0}},
    {"maxpool3d_1x3x3s1x2x2p0x1x1_2x64x16x56x56_f32", OP_MAXPOOL, 5, {2, 64, 16, 56, 56}, {0}, {1, 3, 3}, {1, 2, 2},
     {0, 1, 1}, {0, 1, 1}, 0, NULL, 0, {0}},
    {"maxpool3d_3x3x3s2p1_2x64x16x56x56_f32", OP_MAXPOOL, 5, {2, 64, 16, 56, 56}, {0}, {3, 3, 3}, {2, 2, 2},
     {1, 1, 1}, {1, 1, 1}, 0, NULL, 0, {0}},
    {"maxpool_3x3s3_8x64x112x112_f32", OP_MAXPOOL, 4, {8, 64, 112, 112}, {0}, {3, 3}, {3, 3}, {0, 0}, {0, 0}, 0, NULL, 0, {0}},
    {"maxpool_3x3s2p2d2_8x64x112x112_f32", OP_MAXPOOL, 4, {8, 64, 112, 112}, {0}, {3, 3}, {2, 2}, {2, 2}, {2, 2}, 0,
     NULL, 0, {2, 2}},
    {"maxpool_3x3s5_8x64x112x112_f32", OP_MAXPOOL, 4, {8, 64, 112, 112}, {0}, {3, 3}, {5, 5}, {0, 0}, {0, 0}, 0, NULL, 0, {0}},
    {"maxpool4d_3x1x1x3_2x16x16x16x16x16_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0,
     "pooling takes at most 3 spatial dims", 0, {0}},
    {"maxpool_idx_28x28_8x512x28x28_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, NO_INDICES, 0, {0}},
    {"maxpool3d_idx_3x3x3s2p1_2x64x16x56x56_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, NO_INDICES, 0, {0}},
    {"avgpool_3x3s1p1_8x192x35x35_f32", OP_AVGPOOL, 4, {8, 192, 35, 35}, {0}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 0, NULL, 0, {0}},
    {"avgpool_2x2s2_8x256x56x56_f32", OP_AVGPOOL, 4, {8, 256, 56, 56}, {0}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 0, NULL, 0, {0}},
    {"avgpool_5x5s3_8x512x17x17_f32", OP_AVGPOOL, 4, {8, 512, 17, 17}, {0}, {5, 5}, {3, 3}, {0, 0}, {0, 0}, 0, NULL, 0, {0}},
    {"avgpool3d_2x2x2s2_2x64x16x56x56_f32", OP_AVGPOOL, 5, {2, 64, 16, 56, 56}, {0}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0},
     {0, 0, 0}, 0, NULL, 0, {0}},
    {"lppool2_3x3s2_8x64x112x112_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, "no LpPool primitive", 0, {0}},
    {"maxunpool_2x2s2_8x64x28x28_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, "no MaxUnpool primitive", 0, {0}},
    {"maxunpool_3x3s2p1_8x64x56x56_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, "no MaxUnpool primitive", 0, {0}},
    {"globalavg_32x2048x7x7_f32", OP_GLOBAL_AVG, 4, {32, 2048, 7, 7}, {0}, {0}, {0}, {0}, {0}, 0, NULL, 0, {0}},
    {"globalmax_32x2048x7x7_f32", OP_GLOBAL_MAX, 4, {32, 2048, 7, 7}, {0}, {0}, {0}, {0}, {0}, 0, NULL, 0, {0}},
    {"globalavg_8x256x56x56_f32", OP_GLOBAL_AVG, 4, {8, 256, 56, 56}, {0}, {0}, {0}, {0}, {0}, 0, NULL, 0, {0}},
    {"globallp2_8x256x56x56_f32", OP_UNSUPPORTED, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0, "no LpPool primitive", 0, {0}},
    {"globalavg_1x3x1024x1024_f32", OP_GLOBAL_AVG, 4, {1, 3, 1024, 1024}, {0}, {0}, {0}, {0}, {0}, 0, NULL, 0, {0}},
    {"max_16x64x128x128_f32", OP_MAX, 4, {16, 64, 128, 128}, {16, 64, 128, 128}, {0}, {0}, {0}, {0}, 0, NULL, 0, {0}},
    {"max_bcast_16x64x128x128_1x64x1x1_f32", OP_MAX, 4, {16, 64, 128, 128}, {1, 64, 1, 1}, {0}, {0}, {0}, {0}, 0,
     NULL, 0, {0}},
    /* channels-last views: the reference shapes in NHWC (NDHWC) */
    {"maxpool_3x3s2p1_8x64x112x112_nhwc_f32", OP_MAXPOOL, 4, {8, 64, 112, 112}, {0}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 0,
     NULL, 1, {0}},
    {"maxpool_2x2s2_8x128x56x56_nhwc_f32", OP_MAXPOOL, 4, {8, 128, 56, 56}, {0}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 0,
     NULL, 1, {0}},
    {"maxpool3d_3x3x3s2p1_2x64x16x56x56_ndhwc_f32", OP_MAXPOOL, 5, {2, 64, 16, 56, 56}, {0}, {3, 3, 3}, {2, 2, 2},
     {1, 1, 1}, {1, 1, 1}, 0, NULL, 1, {0}},
    {"avgpool_3x3s1p1_8x192x35x35_nhwc_f32", OP_AVGPOOL, 4, {8, 192, 35, 35}, {0}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 0,
     NULL, 1, {0}},
    {"avgpool_2x2s2_8x256x56x56_nhwc_f32", OP_AVGPOOL, 4, {8, 256, 56, 56}, {0}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 0,
     NULL, 1, {0}},
};

#define N_CASES (sizeof cases / sizeof cases[0])
#define EVICT_FLOATS ((size_t)16 << 20) /* 64 MiB, twice a 32 MiB L3, as bench_ort.py's EVICT */

static float *evict_buf;
static volatile float evict_sink;

/* Read-only, as bench_ort.py's EVICT.sum(): a written buffer would leave
 * dirty lines whose write-back the timed run would pay for. */
static void evict_caches(void)
{
    float acc[8] = {0};
    for (size_t i = 0; i < EVICT_FLOATS; i += 8)
        for (int j = 0; j < 8; ++j) acc[j] += evict_buf[i + (size_t)j];
    evict_sink = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
}

static void check(dnnl_status_t st, const char *what, const char *case_name)
{
    if (st == dnnl_success) return;
    fprintf(stderr, "bench_onednn: %s: %s failed: %s (dnnl_status_t %d)\n", case_name, what, dnnl_status2str(st),
            (int)st);
    exit(1);
}

#define CHECK(call, case_name) check((call), #call, (case_name))

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* xorshift64*: uniform floats in [0, 1) with 24 random bits, fixed seed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static float rng_float(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 0x2545f4914f6cdd1du) >> 40) * (1.0f / 16777216.0f);
}

static dnnl_format_tag_t plain_tag(int ndims)
{
    return ndims == 3 ? dnnl_ncw : ndims == 4 ? dnnl_nchw : dnnl_ncdhw;
}

/* A case's layout: plain, or channels-last (oneDNN's nhwc pooling). */
static dnnl_format_tag_t case_tag(const onednn_case *c)
{
    if (!c->channels_last) return plain_tag(c->ndims);
    return c->ndims == 3 ? dnnl_nwc : c->ndims == 4 ? dnnl_nhwc : dnnl_ndhwc;
}

static dnnl_memory_t random_memory(const dnnl_memory_desc_t *md, dnnl_engine_t eng, const char *name)
{
    dnnl_memory_t mem;
    void *data;
    CHECK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE), name);
    CHECK(dnnl_memory_get_data_handle(mem, &data), name);
    float *f = data;
    const size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    for (size_t i = 0; i < n; ++i) f[i] = rng_float();
    return mem;
}

static int64_t numel(const int64_t *dims, int ndims)
{
    int64_t n = 1;
    for (int d = 0; d < ndims; ++d) n *= dims[d];
    return n;
}

/* Max: dnnl_binary_max broadcasts src1 only (its dims of 1), so the
 * full-shaped input goes first; ONNX Max commutes. */
static dnnl_primitive_desc_t max_pd(const onednn_case *c, dnnl_engine_t eng, dnnl_memory_desc_t md[3])
{
    const int swap = numel(c->in0, c->ndims) < numel(c->in1, c->ndims);
    const int64_t *a = swap ? c->in1 : c->in0, *b = swap ? c->in0 : c->in1;
    dnnl_dims_t a_dims = {0}, b_dims = {0};
    for (int d = 0; d < c->ndims; ++d) {
        a_dims[d] = a[d];
        b_dims[d] = b[d];
    }
    dnnl_binary_desc_t desc;
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_memory_desc_init_by_tag(&md[0], c->ndims, a_dims, dnnl_f32, plain_tag(c->ndims)), c->name);
    CHECK(dnnl_memory_desc_init_by_tag(&md[1], c->ndims, b_dims, dnnl_f32, plain_tag(c->ndims)), c->name);
    CHECK(dnnl_memory_desc_init_by_tag(&md[2], c->ndims, a_dims, dnnl_f32, plain_tag(c->ndims)), c->name);
    CHECK(dnnl_binary_desc_init(&desc, dnnl_binary_max, &md[0], &md[1], &md[2]), c->name);
    CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL), c->name);
    return pd;
}

/* Pooling: a global pool is one window over all spatial dims. The output size
 * is ONNX's floor((in + pads - k) / s) + 1; AveragePool's count_include_pad
 * picks avg_include_padding (divide by the kernel size) or avg_exclude_padding
 * (divide by the window's elements inside the input), as ONNX defines them. */
static dnnl_primitive_desc_t pool_pd(const onednn_case *c, dnnl_engine_t eng, dnnl_memory_desc_t md[3])
{
    const int global = c->op == OP_GLOBAL_AVG || c->op == OP_GLOBAL_MAX;
    dnnl_dims_t src_dims = {0}, dst_dims = {0}, kernel = {0}, strides = {0}, pad_l = {0}, pad_r = {0}, dil = {0};
    src_dims[0] = dst_dims[0] = c->in0[0];
    src_dims[1] = dst_dims[1] = c->in0[1];
    for (int d = 2; d < c->ndims; ++d) {
        const int sp = d - 2;
        src_dims[d] = c->in0[d];
        kernel[sp] = global ? c->in0[d] : c->k[sp];
        strides[sp] = global ? 1 : c->s[sp];
        pad_l[sp] = global ? 0 : c->pad_begin[sp];
        pad_r[sp] = global ? 0 : c->pad_end[sp];
        dil[sp] = c->dilation[sp] ? c->dilation[sp] - 1 : 0; /* oneDNN counts the gaps: ONNX's dilation - 1 */
        dst_dims[d] = (src_dims[d] + pad_l[sp] + pad_r[sp] - ((kernel[sp] - 1) * (dil[sp] + 1) + 1)) / strides[sp] + 1;
    }
    const dnnl_alg_kind_t alg = c->op == OP_MAXPOOL || c->op == OP_GLOBAL_MAX ? dnnl_pooling_max
                                : c->count_include_pad                      ? dnnl_pooling_avg_include_padding
                                                                            : dnnl_pooling_avg_exclude_padding;
    dnnl_pooling_v2_desc_t desc;
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_memory_desc_init_by_tag(&md[0], c->ndims, src_dims, dnnl_f32, case_tag(c)), c->name);
    CHECK(dnnl_memory_desc_init_by_tag(&md[2], c->ndims, dst_dims, dnnl_f32, case_tag(c)), c->name);
    CHECK(dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &md[0], &md[2], strides, kernel, dil,
                                            pad_l, pad_r),
          c->name);
    CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL), c->name);
    return pd;
}

/* The median of `repeat` timed runs of one case, in ms; its implementation's
 * name (e.g. jit:avx512_common, or ref for the slow path) in impl. */
static double time_case(const onednn_case *c, dnnl_engine_t eng, dnnl_stream_t strm, int repeat, double *times,
                        char *impl, size_t impl_size)
{
    dnnl_memory_desc_t md[3]; /* src0, src1 (Max only), dst */
    dnnl_primitive_desc_t pd = c->op == OP_MAX ? max_pd(c, eng, md) : pool_pd(c, eng, md);
    const char *info = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info), c->name);
    snprintf(impl, impl_size, "%s", info ? info : "?");
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd), c->name);

    dnnl_exec_arg_t args[3];
    int nargs = 0;
    args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_0, random_memory(&md[0], eng, c->name)};
    if (c->op == OP_MAX) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SRC_1, random_memory(&md[1], eng, c->name)};
    dnnl_memory_t dst;
    CHECK(dnnl_memory_create(&dst, &md[2], eng, DNNL_MEMORY_ALLOCATE), c->name);
    args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_DST, dst};

    CHECK(dnnl_primitive_execute(prim, strm, nargs, args), c->name);
    CHECK(dnnl_stream_wait(strm), c->name);
    for (int r = 0; r < repeat; ++r) {
        evict_caches();
        const double t0 = now_ms();
        CHECK(dnnl_primitive_execute(prim, strm, nargs, args), c->name);
        CHECK(dnnl_stream_wait(strm), c->name);
        times[r] = now_ms() - t0;
    }

    for (int i = 0; i < nargs; ++i) CHECK(dnnl_memory_destroy(args[i].memory), c->name);
    CHECK(dnnl_primitive_destroy(prim), c->name);
    CHECK(dnnl_primitive_desc_destroy(pd), c->name);
    return median(times, repeat);
}

static const char *runtime_name(unsigned runtime)
{
    switch (runtime) {
    case DNNL_RUNTIME_SEQ: return "sequential";
    case DNNL_RUNTIME_OMP: return "OpenMP";
    case DNNL_RUNTIME_TBB: return "TBB";
    case DNNL_RUNTIME_THREADPOOL: return "threadpool";
    default: return "unknown";
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_onednn [--csv] [--repeat R] [--filter TEXT] [--help]\n"
                 "  oneDNN CPU pooling and binary max on tools/bench_ort.py's float32 cases;\n"
                 "  median ms of R runs (default 15) after one warm-up, each from evicted caches.\n"
                 "  --csv          one line per case: case,median_ms (or case,unsupported)\n"
                 "  --repeat R     timed runs per case\n"
                 "  --filter TEXT  only cases whose name contains TEXT\n");
}

int main(int argc, char **argv)
{
    int repeat = 15, csv = 0;
    const char *filter = "";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            char *end;
            const long r = strtol(argv[++i], &end, 10);
            if (*end || r < 1 || r > 100000) {
                fprintf(stderr, "bench_onednn: --repeat needs a count from 1 to 100000, not '%s'\n", argv[i]);
                return 2;
            }
            repeat = (int)r;
        } else if (!strcmp(argv[i], "--filter") && i + 1 < argc) {
            filter = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    double *times = malloc((size_t)repeat * sizeof *times);
    evict_buf = malloc(EVICT_FLOATS * sizeof *evict_buf);
    if (!times || !evict_buf) {
        fprintf(stderr, "bench_onednn: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < EVICT_FLOATS; ++i) evict_buf[i] = 1.0f; /* maps every page before any timing */

    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0), "(engine)");
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), "(stream)");

    if (!csv) {
        const dnnl_version_t *v = dnnl_version();
        printf("oneDNN %d.%d.%d, CPU, %s threads, ISA %s; median ms of %d runs\n\n", v->major, v->minor, v->patch,
               runtime_name(v->cpu_runtime), dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()), repeat);
        printf("%-46s %12s  %s\n", "case", "oneDNN ms", "implementation");
    }
    for (size_t i = 0; i < N_CASES; ++i) {
        const onednn_case *c = &cases[i];
        if (!strstr(c->name, filter)) continue;
        if (c->op == OP_UNSUPPORTED) {
            if (csv)
                printf("%s,unsupported\n", c->name);
            else
                printf("%-46s %12s  (%s)\n", c->name, "unsupported", c->unsupported);
        } else {
            char impl[128];
            const double ms = time_case(c, eng, strm, repeat, times, impl, sizeof impl);
            if (csv)
                printf("%s,%.4f\n", c->name, ms);
            else
                printf("%-46s %12.3f  %s\n", c->name, ms, impl);
        }
        fflush(stdout);
    }

    CHECK(dnnl_stream_destroy(strm), "(stream)");
    CHECK(dnnl_engine_destroy(eng), "(engine)");
    free(evict_buf);
    free(times);
    return 0;
}
