/*
 * Max suite: the variadic, numpy-broadcasting element-wise Max against the
 * plain-C reference (tests/reference_ops.c), bit for bit, on every dtype.
 *
 * Every run goes through run_case(): each cl_mem is an image of sentinel
 * gaps, tensors and CU_GUARD trailing sentinel bytes. After the op the whole
 * image is read back and must equal the initial image with only the output
 * region replaced by the reference result: this checks the output, unwritten
 * elements, out-of-bounds writes and untouched inputs in one comparison.
 *
 * Check forks every test; the OpenCL context is created inside the child by
 * the checked fixture of check_util.c, never in main().
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "reference.h"
#include "reference_ops.h"

#define MAX_IN 16

/* --------------------------------------------------------------- cases */

typedef enum run_api { API_CTX_QUEUE, API_OWN_QUEUE, API_HOST } run_api;

typedef struct max_case {
    clpool_dtype dtype;
    size_t n;
    clpool_shape shapes[MAX_IN];
    const void *data[MAX_IN]; /* host data of input i */
    size_t gap[MAX_IN];       /* sentinel bytes before input i in its buffer (multiple of the element size) */
    int alias_of[MAX_IN];     /* -1, or an earlier input whose buffer region input i reuses (same shape/data) */
    int packed;               /* all (non-aliased) inputs live in one cl_mem, one after the other */
    int inplace;              /* -1, or the input whose region is also the output */
    size_t out_gap;           /* output byte offset when not in place */
    run_api api;
    int want_event;           /* ask for the event (else clFinish) */
    int gated;                /* put a user event in the wait list; nothing may complete before it opens */
} max_case;

static void case_init(max_case *c, clpool_dtype dtype)
{
    memset(c, 0, sizeof *c);
    c->dtype = dtype;
    for (int i = 0; i < MAX_IN; ++i) c->alias_of[i] = -1;
    c->inplace = -1;
    c->want_event = 1;
}

/* One line naming everything about a case, for failure messages. */
static const char *describe(const max_case *c, const char *label, char *buf, size_t len)
{
    buf[0] = '\0';
    cu_append(buf, len, "%s: %s Max of %zu inputs", label, clpool_dtype_name(c->dtype), c->n);
    for (size_t i = 0; i < c->n; ++i) {
        cu_append(buf, len, " ");
        cu_append_dims(buf, len, c->shapes[i].dims, c->shapes[i].rank);
        if (c->alias_of[i] >= 0) cu_append(buf, len, "(=in%d)", c->alias_of[i]);
    }
    cu_append(buf, len, "; packed %d inplace %d api %d event %d gated %d", c->packed, c->inplace, (int)c->api,
              c->want_event, c->gated);
    return buf;
}

/* ------------------------------------------------------ running a case */

typedef struct image {
    unsigned char *init, *expect;
    size_t size;
    cl_mem mem;
} image;

/* Appends a new image of `body` bytes and CU_GUARD, all sentinel, to imgs[*count]. */
static image *image_new(image *imgs, int *count, size_t body)
{
    image *im = &imgs[(*count)++];
    im->size = CU_IMAGE_BYTES(0, body);
    im->init = cu_sentinel_image(0, NULL, body);
    im->expect = malloc(im->size);
    ck_assert_ptr_nonnull(im->expect);
    return im;
}

/* Reports the first output element that differs, with the inputs that fed it. */
static void compare_output(const max_case *c, const clpool_shape *out, const void *want, const unsigned char *got,
                           int64_t n_out, const char *desc)
{
    for (int64_t o = 0; o < n_out; ++o) {
        const uint64_t w = ref_load_bits(c->dtype, want, o), g = ref_load_bits(c->dtype, got, o);
        if (w == g) continue;
        char feed[1024] = "";
        for (size_t i = 0; i < c->n; ++i)
            cu_append(feed, sizeof feed, " 0x%llx",
                   (unsigned long long)ref_load_bits(c->dtype, c->data[i], ref_broadcast_index(out, &c->shapes[i], o)));
        ck_abort_msg("%s: output element %lld: expected 0x%llx, got 0x%llx; inputs:%s", desc, (long long)o,
                     (unsigned long long)w, (unsigned long long)g, feed);
    }
}

/* Full-image comparison: names the first changed byte outside the output. */
static void compare_image(const image *im, const char *what, const char *desc)
{
    if (memcmp(im->init, im->expect, im->size) == 0) return; /* one check call per byte is slow on big images */
    for (size_t b = 0; b < im->size; ++b)
        ck_assert_msg(im->init[b] == im->expect[b], "%s: %s byte %zu of %zu: expected 0x%02x, got 0x%02x", desc, what, b,
                      im->size, im->expect[b], im->init[b]);
}

static void run_host(const max_case *c, const clpool_shape *out, const void *want, int64_t n_out, const char *desc)
{
    const size_t es = ref_dtype_size(c->dtype), bytes = (size_t)n_out * es;
    unsigned char *buf = cu_sentinel_image(CU_GUARD, NULL, bytes);
    cu_assert_ok(clpool_max_host(cu_ctx, c->dtype, c->n, c->shapes, c->data, buf + CU_GUARD), "clpool_max_host", desc);
    compare_output(c, out, want, buf + CU_GUARD, n_out, desc);
    cu_assert_guards(buf, CU_GUARD, bytes, "host output", desc);
    free(buf);
}

/* The one runner: reference vs library, bit-exact, with guards everywhere. */
static void run_case(const max_case *c, const char *label)
{
    char desc[2048];
    describe(c, label, desc, sizeof desc);
    const clpool_dtype dt = c->dtype;
    const size_t es = ref_dtype_size(dt);
    ck_assert(c->n >= 1 && c->n <= MAX_IN);

    clpool_shape ref_shape, lib_shape;
    ck_assert_msg(ref_max_shape(c->n, c->shapes, &ref_shape) == 0, "%s: the reference rejects the shapes", desc);
    cu_assert_ok(clpool_max_output_shape(c->n, c->shapes, &lib_shape), "clpool_max_output_shape", desc);
    cu_assert_shape_eq(&lib_shape, &ref_shape, desc);

    const int64_t n_out = ref_shape_elements(&ref_shape);
    void *want = malloc((size_t)n_out * es + 1);
    ck_assert_ptr_nonnull(want);
    ck_assert_int_eq(ref_max(dt, c->n, c->shapes, c->data, want), 0);
    if (c->api == API_HOST) {
        run_host(c, &ref_shape, want, n_out, desc);
        free(want);
        return;
    }

    /* Lay out the images: which image and byte offset holds each input. */
    image imgs[MAX_IN + 1];
    int n_img = 0, img_of[MAX_IN];
    size_t off[MAX_IN], in_bytes[MAX_IN];
    size_t packed_size = 0;
    for (size_t i = 0; i < c->n; ++i) {
        in_bytes[i] = (size_t)ref_shape_elements(&c->shapes[i]) * es;
        ck_assert(c->gap[i] % es == 0);
        if (c->alias_of[i] < 0 && c->packed) packed_size += c->gap[i] + in_bytes[i];
    }
    image *packed = c->packed ? image_new(imgs, &n_img, packed_size) : NULL;
    size_t pos = 0;
    for (size_t i = 0; i < c->n; ++i) {
        const int a = c->alias_of[i];
        if (a >= 0) {
            ck_assert(a < (int)i && c->alias_of[a] < 0 && c->data[a] == c->data[i] && in_bytes[a] == in_bytes[i]);
            img_of[i] = img_of[a], off[i] = off[a];
            continue;
        }
        if (packed) {
            img_of[i] = 0, off[i] = pos + c->gap[i];
            pos = off[i] + in_bytes[i];
        } else {
            image_new(imgs, &n_img, c->gap[i] + in_bytes[i]);
            img_of[i] = n_img - 1, off[i] = c->gap[i];
        }
        memcpy(imgs[img_of[i]].init + off[i], c->data[i], in_bytes[i]);
    }
    int out_img;
    size_t out_off;
    if (c->inplace >= 0) {
        const int k = c->inplace;
        ck_assert_msg(c->shapes[k].rank == ref_shape.rank && in_bytes[k] == (size_t)n_out * es,
                      "%s: test bug: the in-place input must have the output shape", desc);
        out_img = img_of[k], out_off = off[k];
    } else {
        image_new(imgs, &n_img, c->out_gap + (size_t)n_out * es);
        out_img = n_img - 1, out_off = c->out_gap;
    }
    for (int m = 0; m < n_img; ++m) {
        memcpy(imgs[m].expect, imgs[m].init, imgs[m].size);
        imgs[m].mem = cu_buffer_from(imgs[m].init, imgs[m].size);
    }
    memcpy(imgs[out_img].expect + out_off, want, (size_t)n_out * es);

    cl_mem mems[MAX_IN];
    for (size_t i = 0; i < c->n; ++i) mems[i] = imgs[img_of[i]].mem;
    const cl_command_queue q = c->api == API_OWN_QUEUE ? cu_own_queue : clpool_context_cl_queue(cu_ctx);
    cl_event gate = c->gated ? cu_user_event() : NULL, ev = NULL;
    const clpool_status st = clpool_enqueue_max(cu_ctx, c->api == API_OWN_QUEUE ? cu_own_queue : NULL, dt, c->n,
                                                c->shapes, mems, off, imgs[out_img].mem, out_off, gate ? 1 : 0,
                                                gate ? &gate : NULL, (c->want_event || gate) ? &ev : NULL);
    cu_assert_ok(st, "clpool_enqueue_max", desc);
    if (c->want_event || gate) ck_assert_msg(ev != NULL, "%s: no event returned", desc);
    if (gate) {
        cu_assert_pending(q, ev, "%s: Max", desc);
        ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    }
    cu_wait_done(q, ev, desc);
    for (int m = 0; m < n_img; ++m)
        cu_read_back(clpool_context_cl_queue(cu_ctx), imgs[m].mem, imgs[m].init, imgs[m].size, desc);
    compare_output(c, &ref_shape, want, imgs[out_img].init + out_off, n_out, desc);
    for (int m = 0; m < n_img; ++m) compare_image(&imgs[m], m == out_img ? "output buffer" : "input buffer", desc);

    if (ev) clReleaseEvent(ev);
    if (gate) clReleaseEvent(gate);
    for (int m = 0; m < n_img; ++m) {
        clReleaseMemObject(imgs[m].mem);
        free(imgs[m].init);
        free(imgs[m].expect);
    }
    free(want);
}

/* ------------------------------------------------------ random inputs */

#define S64(v) ((uint64_t)(int64_t)(v))
#define P53 ((int64_t)1 << 53)
/* Integer extremes as bit patterns, incl. neighbours that collapse in double (2^53 + 1). */
static const uint64_t ext_i8[] = {S64(-128), S64(-127), S64(127), S64(126), S64(-1)};
static const uint64_t ext_u8[] = {255, 254, 128, 127, 1};
static const uint64_t ext_i16[] = {S64(-32768), S64(-32767), S64(32767), S64(32766), S64(-1)};
static const uint64_t ext_u16[] = {65535, 65534, 32768, 32767, 1};
static const uint64_t ext_i32[] = {S64(INT32_MIN), S64(INT32_MIN + 1), S64(INT32_MAX), S64(INT32_MAX - 1),
                                   S64(-1), S64(1 << 24), S64((1 << 24) + 1)};
static const uint64_t ext_u32[] = {UINT32_MAX, UINT32_MAX - 1, 0x80000000u, 0x7FFFFFFFu, (1u << 24) + 1, 1u << 24};
static const uint64_t ext_i64[] = {S64(INT64_MIN), S64(INT64_MIN + 1), S64(INT64_MAX), S64(INT64_MAX - 1),
                                   S64(P53),       S64(P53 + 1),       S64(-P53),      S64(-P53 - 1),
                                   S64(INT64_MAX - 512), S64(-1)};
static const uint64_t ext_u64[] = {UINT64_MAX, UINT64_MAX - 1, 1ull << 63, (1ull << 63) + 1, (1ull << 63) - 1,
                                   (uint64_t)P53, (uint64_t)P53 + 1, UINT64_MAX - 1024};

static const uint64_t *extremes(clpool_dtype dtype, int *count)
{
#define EXT(a) (*count = (int)(sizeof a / sizeof a[0]), a)
    switch (dtype) {
    case CLPOOL_INT8: return EXT(ext_i8);
    case CLPOOL_UINT8: return EXT(ext_u8);
    case CLPOOL_INT16: return EXT(ext_i16);
    case CLPOOL_UINT16: return EXT(ext_u16);
    case CLPOOL_INT32: return EXT(ext_i32);
    case CLPOOL_UINT32: return EXT(ext_u32);
    case CLPOOL_INT64: return EXT(ext_i64);
    case CLPOOL_UINT64: return EXT(ext_u64);
    default: *count = 0; return NULL;
    }
#undef EXT
}

static int is_signed_int(clpool_dtype dtype)
{
    return dtype == CLPOOL_INT8 || dtype == CLPOOL_INT16 || dtype == CLPOOL_INT32 || dtype == CLPOOL_INT64;
}

/* Value mix of a generated case. */
typedef struct value_mix {
    double nan_rate; /* float dtypes: share of NaNs (several bit patterns) */
    int dense;       /* 1: values crowd around one point so that near-ties decide every element */
} value_mix;

/* Dense values: signed zeros and +-1 for floats; integers just below the type's
 * maximum, or around 2^53 for the 64-bit types (2^53 and 2^53 + 1 are one double). */
static uint64_t dense_value(ref_rng *r, clpool_dtype dtype)
{
    if (ref_dtype_is_float(dtype)) {
        const double u = ref_rng_unit(r);
        if (u < 0.35) return (uint64_t)1 << (8 * ref_dtype_size(dtype) - 1); /* -0.0 */
        if (u < 0.7) return 0;                                              /* +0.0 */
        uint64_t b = 0;
        ref_store(dtype, &b, 0, (double)ref_rng_range(r, -1, 1));
        return ref_load_bits(dtype, &b, 0);
    }
    const int64_t k = ref_rng_range(r, 0, 3);
    switch (dtype) {
    case CLPOOL_INT64: return S64(P53 + 2 - k);
    case CLPOOL_UINT64: return (uint64_t)P53 + 2 - (uint64_t)k;
    case CLPOOL_INT8: return S64(127 - k);
    case CLPOOL_INT16: return S64(32767 - k);
    case CLPOOL_INT32: return S64(INT32_MAX - k);
    default: return ((uint64_t)1 << (8 * ref_dtype_size(dtype) - 1)) + 1 - (uint64_t)k; /* around the sign bit */
    }
}

/*
 * General values: mostly small integers (many ties across inputs), signed
 * zeros, infinities, NaNs, extremes, 2^53 neighbours and random bits; or
 * dense values. No element is all sentinel bytes.
 */
static void fill_random(ref_rng *r, clpool_dtype dtype, void *data, int64_t n, const value_mix *mix)
{
    const size_t es = ref_dtype_size(dtype);
    const double nan_rate = mix->nan_rate;
    for (int64_t i = 0; i < n; ++i) {
        const double u = ref_rng_unit(r);
        if (ref_dtype_is_float(dtype) && u < nan_rate) {
            ref_store_bits(dtype, data, i, cu_nan_patterns(dtype)[ref_rng_range(r, 0, CU_N_NAN - 1)]);
        } else if (mix->dense) {
            ref_store_bits(dtype, data, i, dense_value(r, dtype));
        } else if (ref_dtype_is_float(dtype)) {
            if (u < nan_rate + 0.05)
                ref_store(dtype, data, i, ref_rng_chance(r, 0.5) ? INFINITY : -INFINITY);
            else if (u < nan_rate + 0.15)
                ref_store(dtype, data, i, ref_rng_chance(r, 0.5) ? -0.0 : 0.0);
            else if (dtype == CLPOOL_FLOAT16 && u < nan_rate + 0.18)
                ref_store_bits(dtype, data, i, (uint64_t[]){0x0001u, 0x8001u, 0x03FFu, 0x7BFFu, 0xFBFFu}[ref_rng_range(r, 0, 4)]);
            else if (u < nan_rate + 0.3)
                ref_store(dtype, data, i, (double)ref_rng_range(r, -40, 40) / 8.0);
            else
                ref_store(dtype, data, i, (double)ref_rng_range(r, -2, 3));
        } else {
            int count;
            const uint64_t *ext = extremes(dtype, &count);
            const int wide = dtype == CLPOOL_INT64 || dtype == CLPOOL_UINT64;
            if (u < 0.5)
                ref_store_bits(dtype, data, i, S64(ref_rng_range(r, is_signed_int(dtype) ? -2 : 0, 3)));
            else if (wide && u < 0.7) /* neighbours that are one double apart or equal as doubles */
                ref_store_bits(dtype, data, i,
                               (uint64_t)(ref_rng_chance(r, 0.5) || dtype == CLPOOL_UINT64 ? P53 : -P53) +
                                   (uint64_t)ref_rng_range(r, -2, 2) +
                                   (dtype == CLPOOL_UINT64 && ref_rng_chance(r, 0.5) ? 1ull << 63 : 0));
            else if (u < 0.85)
                ref_store_bits(dtype, data, i, ext[ref_rng_range(r, 0, count - 1)]);
            else
                ref_store_bits(dtype, data, i, ref_rng_next(r));
        }
        unsigned char *p = (unsigned char *)data + (size_t)i * es;
        if (cu_all_sentinel(p, es)) p[0] ^= 1; /* an unwritten output element must never look right */
    }
}

/* Owner of the host data of generated cases. */
typedef struct case_data {
    void *blocks[MAX_IN];
    int count;
} case_data;

static void *case_alloc(case_data *cd, ref_rng *r, clpool_dtype dtype, const clpool_shape *shape,
                        const value_mix *mix)
{
    const int64_t n = ref_shape_elements(shape);
    void *p = malloc((size_t)n * ref_dtype_size(dtype) + 8);
    ck_assert_ptr_nonnull(p);
    fill_random(r, dtype, p, n, mix);
    cd->blocks[cd->count++] = p;
    return p;
}

static void case_data_free(case_data *cd)
{
    for (int i = 0; i < cd->count; ++i) free(cd->blocks[i]);
    cd->count = 0;
}

/* An input shape that broadcasts to `out`: its trailing `rank` axes, each either the
 * output's dim or (with probability p_one) 1. */
static clpool_shape broadcast_source(ref_rng *r, const clpool_shape *out, int32_t rank, double p_one)
{
    clpool_shape s;
    memset(&s, 0, sizeof s);
    s.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t full = out->dims[out->rank - rank + d];
        s.dims[d] = ref_rng_chance(r, p_one) ? 1 : full;
    }
    return s;
}

/*
 * A random case: output rank 0..6 with dims 1..5 (now and then a 0), 1..n_max
 * inputs that are scalars, rank-reduced or size-1-stretched versions of it,
 * sometimes an input repeated (same region), packed into one buffer, or in place.
 *
 * The layout (output dims, inputs, their broadcasts, repeats and the in-place
 * input) comes from `layout`, a generator seeded from a small catalogue, so
 * the cases of one layout run the programs its first case built (program
 * builds are most of the suite's time); the data, gaps, packing, zero dims
 * and API come from `r`, fresh for every case.
 */
static void random_case(ref_rng *r, ref_rng *layout, clpool_dtype dtype, size_t n_max, max_case *c, case_data *cd)
{
    case_init(c, dtype);
    clpool_shape full;
    memset(&full, 0, sizeof full);
    full.rank = (int32_t)ref_rng_range(layout, 0, 6);
    for (int32_t a = 0; a < full.rank; ++a)
        full.dims[a] = ref_rng_chance(layout, 0.15) ? 1 : ref_rng_range(layout, 1, 5);
    while (ref_shape_elements(&full) > 1500) { /* keep cases small */
        int32_t big = 0;
        for (int32_t a = 1; a < full.rank; ++a)
            if (full.dims[a] > full.dims[big]) big = a;
        --full.dims[big];
    }
    if (full.rank > 0 && ref_rng_chance(r, 0.07)) full.dims[ref_rng_range(r, 0, full.rank - 1)] = 0;
    const value_mix mix = {(double[]){0.0, 0.02, 0.25}[ref_rng_range(r, 0, 2)], ref_rng_chance(r, 0.3)};
    const size_t es = ref_dtype_size(dtype);
    c->n = (size_t)ref_rng_range(layout, 1, (int64_t)n_max);
    c->inplace = ref_rng_chance(layout, 0.15) ? (int)ref_rng_range(layout, 0, (int64_t)(c->n < 4 ? c->n : 4) - 1) : -1;
    for (size_t i = 0; i < c->n; ++i) {
        c->gap[i] = es * (size_t)(ref_rng_chance(r, 0.1) ? 0 : ref_rng_range(r, 1, 6));
        if (i > 0 && (int)i != c->inplace && ref_rng_chance(layout, 0.1)) {
            const int j = (int)ref_rng_range(layout, 0, (int64_t)i - 1);
            const int root = c->alias_of[j] >= 0 ? c->alias_of[j] : j;
            if (root != c->inplace) {
                c->alias_of[i] = root;
                c->shapes[i] = c->shapes[root];
                c->data[i] = c->data[root];
                continue;
            }
        }
        if ((int)i == c->inplace)
            c->shapes[i] = full;
        else if (ref_rng_chance(layout, 0.1))
            c->shapes[i] = broadcast_source(layout, &full, 0, 0.0); /* scalar */
        else
            c->shapes[i] = broadcast_source(
                layout, &full, ref_rng_chance(layout, 0.3) ? (int32_t)ref_rng_range(layout, 0, full.rank) : full.rank,
                0.3);
        c->data[i] = case_alloc(cd, r, dtype, &c->shapes[i], &mix);
    }
    c->packed = ref_rng_chance(r, 0.3);
    c->out_gap = es * (size_t)ref_rng_range(r, 1, 6);
    c->api = c->inplace < 0 && ref_rng_chance(r, 0.08) ? API_HOST
             : ref_rng_chance(r, 0.5)                  ? API_OWN_QUEUE
                                                       : API_CTX_QUEUE;
    c->want_event = ref_rng_chance(r, 0.7);
}

/* Layouts per dtype: case k takes layout k % LAYOUTS (seeded from the suite's seed); a pair's two
 * dtypes (cu_pair_runs) take one each. */
#define LAYOUTS 2

static void random_suite(clpool_dtype dtype, uint64_t seed, int cases, size_t n_max)
{
    if (!cu_dtype_runs(dtype, "Max")) return;
    ref_rng r;
    ref_rng_seed(&r, seed);
    int empty = 0, inplace = 0, many = 0;
    const int layouts = cu_pair_share(dtype, LAYOUTS);
    for (int k = 0; k < cases; ++k) {
        max_case c;
        case_data cd = {{0}, 0};
        ref_rng layout;
        ref_rng_seed(&layout, seed * 131 + (uint64_t)(k % layouts));
        random_case(&r, &layout, dtype, n_max, &c, &cd);
        char label[64];
        snprintf(label, sizeof label, "seed 0x%llx case %d", (unsigned long long)seed, k);
        clpool_shape out;
        ck_assert_int_eq(ref_max_shape(c.n, c.shapes, &out), 0);
        empty += ref_shape_elements(&out) == 0;
        inplace += c.inplace >= 0;
        many += c.n > 4;
        run_case(&c, label);
        case_data_free(&cd);
    }
    printf("max random %s: %d cases passed on %d layouts (%d empty, %d in place, %d with > 4 inputs)\n",
           clpool_dtype_name(dtype), cases, layouts, empty, inplace, many);
}

#define RANDOM_CASES 20

START_TEST(test_random_float32) { random_suite(CLPOOL_FLOAT32, 0x5001, 2 * RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_float64) { random_suite(CLPOOL_FLOAT64, 0x5002, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_float16) { random_suite(CLPOOL_FLOAT16, 0x5003, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_bfloat16) { random_suite(CLPOOL_BFLOAT16, 0x5004, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_int8) { random_suite(CLPOOL_INT8, 0x5005, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_int16) { random_suite(CLPOOL_INT16, 0x5006, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_int32) { random_suite(CLPOOL_INT32, 0x5007, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_int64) { random_suite(CLPOOL_INT64, 0x5008, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_uint8) { random_suite(CLPOOL_UINT8, 0x5009, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_uint16) { random_suite(CLPOOL_UINT16, 0x500A, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_uint32) { random_suite(CLPOOL_UINT32, 0x500B, RANDOM_CASES, 8); }
END_TEST
START_TEST(test_random_uint64) { random_suite(CLPOOL_UINT64, 0x500C, RANDOM_CASES, 8); }
END_TEST

/* ------------------------------------------------- hand-made cases */

/* Builds a case from shapes and per-input bit arrays; `want` (if not NULL) pins the reference first. */
static void spot(clpool_dtype dtype, size_t n, const clpool_shape *shapes, const uint64_t *const *bits,
                 const uint64_t *want, const char *label)
{
    if (!cu_dtype_runs(dtype, "Max")) return;
    max_case c;
    case_init(&c, dtype);
    c.n = n;
    unsigned char *blocks[MAX_IN];
    for (size_t i = 0; i < n; ++i) {
        c.shapes[i] = shapes[i];
        const int64_t cnt = ref_shape_elements(&shapes[i]);
        blocks[i] = malloc((size_t)cnt * 8 + 8);
        ck_assert_ptr_nonnull(blocks[i]);
        for (int64_t e = 0; e < cnt; ++e) ref_store_bits(dtype, blocks[i], e, bits[i][e]);
        c.data[i] = blocks[i];
        c.gap[i] = ref_dtype_size(dtype) * (i + 1);
    }
    c.out_gap = 3 * ref_dtype_size(dtype);
    if (want) {
        clpool_shape out;
        ck_assert_int_eq(ref_max_shape(n, shapes, &out), 0);
        const int64_t cnt = ref_shape_elements(&out);
        unsigned char *ref = malloc((size_t)cnt * 8 + 8);
        ck_assert_ptr_nonnull(ref);
        ck_assert_int_eq(ref_max(dtype, n, shapes, c.data, ref), 0);
        for (int64_t e = 0; e < cnt; ++e)
            cu_expect(ref_load_bits(dtype, ref, e) == want[e], "%s %s: reference element %lld is 0x%llx, expected 0x%llx",
                      label, clpool_dtype_name(dtype), (long long)e, (unsigned long long)ref_load_bits(dtype, ref, e),
                      (unsigned long long)want[e]);
        free(ref);
    }
    char full[128];
    snprintf(full, sizeof full, "%s (ctx queue)", label);
    run_case(&c, full);
    c.api = API_OWN_QUEUE;
    snprintf(full, sizeof full, "%s (own queue)", label);
    run_case(&c, full);
    c.api = API_HOST;
    snprintf(full, sizeof full, "%s (host)", label);
    run_case(&c, full);
    for (size_t i = 0; i < n; ++i) free(blocks[i]);
}

static uint64_t fbits(clpool_dtype dtype, double v)
{
    uint64_t b = 0;
    ref_store(dtype, &b, 0, v);
    return ref_load_bits(dtype, &b, 0);
}

/* NaN propagates (first NaN's bits win), -0.0/+0.0 ties keep the earlier input. */
START_TEST(test_nan_and_signed_zero)
{
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        const uint64_t *nan = cu_nan_patterns(dt);
        const uint64_t z = fbits(dt, 0.0), nz = fbits(dt, -0.0), one = fbits(dt, 1.0), two = fbits(dt, 2.0);
        const uint64_t pinf = fbits(dt, INFINITY), ninf = fbits(dt, -INFINITY);
        /*            0       1       2      3     4       5       6       7      */
        const uint64_t a[8] = {nz,     z,      nan[0], one,  ninf,   nan[3], two,    nan[1]};
        const uint64_t b[8] = {z,      nz,     nan[2], nan[4], ninf, nan[2], pinf,   one};
        const uint64_t c[8] = {nz,     two,    one,    nan[1], z,    one,    nan[3], nan[4]};
        const uint64_t want2[8] = {nz, z, nan[0], nan[4], ninf, nan[3], pinf, nan[1]};
        const uint64_t want3[8] = {nz, two, nan[0], nan[4], z, nan[3], nan[3], nan[1]};
        const clpool_shape s8[3] = {{1, {8}}, {1, {8}}, {1, {8}}};
        spot(dt, 2, s8, (const uint64_t *const[]){a, b}, want2, "nan/zero, 2 inputs");
        spot(dt, 3, s8, (const uint64_t *const[]){a, b, c}, want3, "nan/zero, 3 inputs");
        /* Same with five inputs: the tie and NaN rules must survive the second pass. */
        const uint64_t d[8] = {z, nz, nan[1], two, nz, nan[0], one, z};
        const uint64_t e[8] = {nz, z, one, nan[0], nan[2], two, nan[2], pinf};
        const uint64_t want5[8] = {nz, two, nan[0], nan[4], nan[2], nan[3], nan[3], nan[1]};
        const clpool_shape s5[5] = {{1, {8}}, {1, {8}}, {1, {8}}, {1, {8}}, {1, {8}}};
        spot(dt, 5, s5, (const uint64_t *const[]){a, b, c, d, e}, want5, "nan/zero, 5 inputs");
        /* Later inputs only: the running result is a non-NaN, then a NaN arrives in input 4. */
        const uint64_t f[8] = {one, one, one, one, one, one, one, one};
        const uint64_t g[8] = {nan[2], z, nz, pinf, nan[3], ninf, two, nan[0]};
        const uint64_t want_fg[8] = {nan[2], one, one, pinf, nan[3], one, two, nan[0]};
        spot(dt, 5, s5, (const uint64_t *const[]){f, f, f, f, g}, want_fg, "nan in input 4");
    }
}
END_TEST

/*
 * Outputs larger than the device's cache, which CPUs store past the cache
 * (non-temporal stores of aligned blocks, ordinary ones elsewhere): the
 * output at a block-aligned and at an unaligned offset, and in place with a
 * broadcast row; NaNs and signed zeros included, rows not a multiple of 16.
 */
START_TEST(test_outputs_larger_than_cache)
{
    clpool_device_info info; /* its cache_bytes: what the library plans for (the suite pins it to 32 MiB) */
    ck_assert_int_eq(clpool_context_device_info(cu_ctx, &info), CLPOOL_SUCCESS);
    uint64_t cache = info.cache_bytes;
    if (cache == 0 || cache > ((uint64_t)128 << 20)) cache = (uint64_t)32 << 20; /* unknown or huge: 32 MiB */
    const int64_t cols = 4096 + 13, rows = (int64_t)(cache / 4 / (uint64_t)cols) + 7;
    ref_rng r;
    ref_rng_seed(&r, 0x5100);
    const value_mix mix = {0.01, 0};
    static const char *what[3] = {"output past the cache, aligned", "output past the cache, unaligned",
                                  "output past the cache, in place, broadcast row"};
    for (int k = 0; k < 3; ++k) {
        max_case c;
        case_data cd = {{0}, 0};
        case_init(&c, CLPOOL_FLOAT32);
        c.n = 2;
        c.shapes[0] = (clpool_shape){2, {rows, cols}};
        c.shapes[1] = k == 2 ? (clpool_shape){2, {1, cols}} : c.shapes[0];
        for (int i = 0; i < 2; ++i) c.data[i] = case_alloc(&cd, &r, CLPOOL_FLOAT32, &c.shapes[i], &mix);
        c.out_gap = k == 0 ? 64 : 4;
        c.inplace = k == 2 ? 0 : -1;
        run_case(&c, what[k]);
        case_data_free(&cd);
    }
}
END_TEST

/*
 * Rows that several work-items share on CPUs (about 4 KiB of output each,
 * fewer where that leaves too few work-items), the last one's block shifted
 * back to end at the row's end: small and large element types, rows not a
 * multiple of 16, against a same-shape and a broadcast (per row, per column)
 * second input.
 */
START_TEST(test_long_rows)
{
    static const clpool_dtype dtypes[] = {CLPOOL_INT8, CLPOOL_UINT8, CLPOOL_FLOAT16, CLPOOL_FLOAT32};
    static const int64_t widths[] = {4096 * 3 + 5, 20000, 65536 + 77};
    ref_rng r;
    ref_rng_seed(&r, 0x5200);
    const value_mix mix = {0.01, 0};
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; ++w)
            for (int k = 0; k < 3; ++k) {
                if (!cu_pair_runs(dtypes[t], (size_t)k)) continue;
                max_case c;
                case_data cd = {{0}, 0};
                case_init(&c, dtypes[t]);
                c.n = 2;
                c.shapes[0] = (clpool_shape){2, {7, widths[w]}};
                c.shapes[1] = k == 0   ? c.shapes[0]
                              : k == 1 ? (clpool_shape){2, {7, 1}}
                                       : (clpool_shape){2, {1, widths[w]}};
                for (int i = 0; i < 2; ++i) c.data[i] = case_alloc(&cd, &r, dtypes[t], &c.shapes[i], &mix);
                run_case(&c, k == 0 ? "long rows" : k == 1 ? "long rows, per-row scalar" : "long rows, one row");
                case_data_free(&cd);
            }
}
END_TEST

/* 64-bit integers compare exactly (2^53 + 1 > 2^53; near-max values). */
START_TEST(test_wide_integers_exact)
{
    const int64_t p = P53;
    const uint64_t a[6] = {S64(p), S64(p + 1), S64(-p - 1), S64(INT64_MAX - 1), S64(INT64_MIN), S64(INT64_MAX)};
    const uint64_t b[6] = {S64(p + 1), S64(p), S64(-p), S64(INT64_MAX), S64(INT64_MIN + 1), S64(INT64_MAX - 1)};
    const uint64_t wi[6] = {S64(p + 1), S64(p + 1), S64(-p), S64(INT64_MAX), S64(INT64_MIN + 1), S64(INT64_MAX)};
    const clpool_shape s6[2] = {{1, {6}}, {1, {6}}};
    spot(CLPOOL_INT64, 2, s6, (const uint64_t *const[]){a, b}, wi, "int64 exact");
    const uint64_t ua[6] = {(uint64_t)p, (uint64_t)p + 1, UINT64_MAX - 1, 1ull << 63, 0, UINT64_MAX};
    const uint64_t ub[6] = {(uint64_t)p + 1, (uint64_t)p, UINT64_MAX, (1ull << 63) + 1, 1, UINT64_MAX - 1};
    const uint64_t wu[6] = {(uint64_t)p + 1, (uint64_t)p + 1, UINT64_MAX, (1ull << 63) + 1, 1, UINT64_MAX};
    spot(CLPOOL_UINT64, 2, s6, (const uint64_t *const[]){ua, ub}, wu, "uint64 exact");
    /* uint32 above 2^31 and int32 extremes (no signed/unsigned mix-up). */
    const uint64_t u32a[6] = {0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0, 0x01000001u, 5};
    const uint64_t u32b[6] = {0x7FFFFFFFu, 0x80000000u, 0, 0xFFFFFFFFu, 0x01000000u, 5};
    const uint64_t wu32[6] = {0x80000000u, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFFu, 0x01000001u, 5};
    spot(CLPOOL_UINT32, 2, s6, (const uint64_t *const[]){u32a, u32b}, wu32, "uint32 exact");
    const uint64_t i8a[6] = {0x80, 0x7F, 0xFF, 0x00, 0x81, 0x01};
    const uint64_t i8b[6] = {0x7F, 0x80, 0x00, 0xFF, 0x80, 0xFE};
    const uint64_t wi8[6] = {0x7F, 0x7F, 0x00, 0x00, 0x81, 0x01};
    spot(CLPOOL_INT8, 2, s6, (const uint64_t *const[]){i8a, i8b}, wi8, "int8 signed");
    spot(CLPOOL_UINT8, 2, s6, (const uint64_t *const[]){i8a, i8b},
         (const uint64_t[]){0x80, 0x80, 0xFF, 0xFF, 0x81, 0xFE}, "uint8 unsigned");
}
END_TEST

/* Broadcasting spot checks: rank extension, stretching both ways, scalars, rank 0 output. */
START_TEST(test_broadcast_shapes)
{
    /* [2,1,3] x [4,1] x scalar -> [2,4,3]. */
    uint64_t a[6], b[4], s[1] = {S64(2)}, want[24];
    for (int i = 0; i < 6; ++i) a[i] = S64(i - 1);     /* a[x][0][z] = 3x + z - 1 */
    for (int i = 0; i < 4; ++i) b[i] = S64(3 - i);     /* b[y] = 3 - y */
    for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 4; ++y)
            for (int z = 0; z < 3; ++z) {
                int64_t m = 3 * x + z - 1;
                if (3 - y > m) m = 3 - y;
                if (2 > m) m = 2;
                want[(x * 4 + y) * 3 + z] = S64(m);
            }
    const clpool_shape sh[3] = {{3, {2, 1, 3}}, {2, {4, 1}}, {0, {0}}};
    spot(CLPOOL_INT32, 3, sh, (const uint64_t *const[]){a, b, s}, want, "[2,1,3] x [4,1] x []");
    /* All scalars: rank-0 output. */
    const clpool_shape sc[3] = {{0, {0}}, {0, {0}}, {0, {0}}};
    spot(CLPOOL_INT16, 3, sc, (const uint64_t *const[]){(uint64_t[]){S64(-5)}, (uint64_t[]){S64(7)}, (uint64_t[]){S64(7)}},
         (const uint64_t[]){S64(7)}, "scalars");
    /* One input: a copy. Rank 1 of size 1 against rank 6. */
    const clpool_shape one[1] = {{6, {1, 2, 1, 3, 1, 2}}};
    uint64_t v[12], w1[12];
    for (int i = 0; i < 12; ++i) v[i] = w1[i] = (uint64_t)(i * 7 % 5);
    spot(CLPOOL_UINT16, 1, one, (const uint64_t *const[]){v}, w1, "single input");
    const clpool_shape r6[2] = {{6, {1, 2, 1, 3, 1, 2}}, {1, {1}}};
    spot(CLPOOL_UINT16, 2, r6, (const uint64_t *const[]){v, (uint64_t[]){2}}, NULL, "rank 6 x [1]");
}
END_TEST

/* ------------------------------------------------------- in place */

/* Output region == an input region of the output's shape. */
static void inplace_case(clpool_dtype dtype, uint64_t seed, size_t n, int k, int packed, const clpool_shape *full,
                         run_api api)
{
    if (!cu_dtype_runs(dtype, "Max")) return;
    ref_rng r;
    ref_rng_seed(&r, seed);
    max_case c;
    case_data cd = {{0}, 0};
    case_init(&c, dtype);
    c.n = n;
    c.inplace = k;
    c.packed = packed;
    c.api = api;
    for (size_t i = 0; i < n; ++i) {
        c.shapes[i] = (int)i == k ? *full : broadcast_source(&r, full, full->rank - (int32_t)(i % 2), 0.4);
        c.data[i] = case_alloc(&cd, &r, dtype, &c.shapes[i], &(value_mix){0.05, (int)(i % 2)});
        c.gap[i] = ref_dtype_size(dtype) * (2 + i % 3);
    }
    char label[96];
    snprintf(label, sizeof label, "in place: output is input %d of %zu", k, n);
    run_case(&c, label);
    case_data_free(&cd);
}

START_TEST(test_inplace)
{
    const clpool_shape s = {3, {3, 4, 5}};
    inplace_case(CLPOOL_FLOAT32, 0x6001, 2, 0, 0, &s, API_CTX_QUEUE);
    inplace_case(CLPOOL_FLOAT32, 0x6002, 3, 2, 0, &s, API_OWN_QUEUE);
    inplace_case(CLPOOL_FLOAT32, 0x6003, 3, 2, 1, &s, API_CTX_QUEUE); /* all inputs in one buffer */
    inplace_case(CLPOOL_INT64, 0x6004, 1, 0, 0, &s, API_CTX_QUEUE);
    inplace_case(CLPOOL_UINT8, 0x6005, 4, 3, 1, &s, API_OWN_QUEUE);
    inplace_case(CLPOOL_FLOAT16, 0x6006, 6, 0, 0, &s, API_OWN_QUEUE); /* several passes */
    inplace_case(CLPOOL_FLOAT32, 0x6007, 9, 3, 1, &s, API_OWN_QUEUE);
}
END_TEST

/* ---------------------------------------- many inputs, out-of-order */

static void many_inputs(clpool_dtype dtype, uint64_t seed, size_t n, const clpool_shape *full, int gated)
{
    if (!cu_dtype_runs(dtype, "Max")) return;
    ref_rng r;
    ref_rng_seed(&r, seed);
    max_case c;
    case_data cd = {{0}, 0};
    case_init(&c, dtype);
    c.n = n;
    c.api = API_OWN_QUEUE;
    c.gated = gated;
    for (size_t i = 0; i < n; ++i) {
        c.shapes[i] = i % 4 == 3 ? broadcast_source(&r, full, 0, 0.0)
                                 : broadcast_source(&r, full, full->rank - (int32_t)ref_rng_range(&r, 0, 1), 0.3);
        c.data[i] = case_alloc(&cd, &r, dtype, &c.shapes[i], &(value_mix){0.01, i % 3 == 1});
        c.gap[i] = ref_dtype_size(dtype) * (1 + i % 5);
    }
    c.out_gap = 7 * ref_dtype_size(dtype);
    char label[96];
    snprintf(label, sizeof label, "%zu inputs on an %s queue", n, cu_own_queue_ooo ? "out-of-order" : "in-order");
    run_case(&c, label);
    case_data_free(&cd);
}

START_TEST(test_many_inputs_out_of_order)
{
    if (!cu_own_queue_ooo) printf("note: device has no out-of-order queues; many-input cases run in order\n");
    const clpool_shape big = {4, {2, 3, 17, 19}}, small = {2, {5, 7}};
    many_inputs(CLPOOL_FLOAT32, 0x7001, 9, &big, 0);
    many_inputs(CLPOOL_FLOAT32, 0x7002, 13, &big, 1);
    many_inputs(CLPOOL_INT64, 0x7003, 13, &small, 0);
    many_inputs(CLPOOL_BFLOAT16, 0x7004, 9, &small, 1);
    many_inputs(CLPOOL_UINT8, 0x7005, 16, &big, 0);
}
END_TEST

/* ------------------------------------------------------ empty output */

START_TEST(test_empty_outputs)
{
    static const clpool_shape empties[][3] = {
        {{3, {2, 0, 3}}, {1, {3}}, {0, {0}}},   /* 0 with stretching */
        {{2, {0, 1}}, {3, {4, 1, 5}}, {1, {1}}}, /* 0 meets 1 -> [4,0,5] */
        {{1, {0}}, {1, {0}}, {2, {1, 0}}},
    };
    for (size_t k = 0; k < sizeof empties / sizeof empties[0]; ++k) {
        max_case c;
        case_init(&c, cu_all_dtypes[k * 5 % 12]);
        c.n = 3;
        static const unsigned char zeros[64];
        for (int i = 0; i < 3; ++i) c.shapes[i] = empties[k][i], c.data[i] = zeros, c.gap[i] = 8;
        c.gated = 1;
        c.api = k % 2 ? API_OWN_QUEUE : API_CTX_QUEUE;
        run_case(&c, "empty output, gated");
        c.gated = 0, c.want_event = 0;
        run_case(&c, "empty output, no event");
        c.api = API_HOST;
        run_case(&c, "empty output, host");
    }
}
END_TEST

/* ------------------------------------------------------- validation */

#define VBUF 4096
#define VIN 6

/* Every argument of clpool_enqueue_max; the default is a valid 3-input float32 call. */
typedef struct vcall {
    clpool_context *ctx;
    clpool_dtype dtype;
    size_t n;
    clpool_shape shapes[VIN];
    const clpool_shape *shapes_ptr;
    cl_mem inputs[VIN];
    const cl_mem *inputs_ptr;
    size_t offsets[VIN];
    const size_t *offsets_ptr;
    cl_mem output;
    size_t out_off;
    cl_uint num_wait;
    const cl_event *wait;
} vcall;

typedef struct vcase {
    const char *name;
    void (*mutate)(vcall *v);
    clpool_status status;
    const char *message; /* substring of clpool_last_error() */
} vcase;

static const clpool_shape full234 = {3, {2, 3, 4}};

static void m_none(vcall *v) { (void)v; }
static void m_null_ctx(vcall *v) { v->ctx = NULL; }
static void m_zero_inputs(vcall *v) { v->n = 0; }
static void m_no_broadcast(vcall *v) { v->shapes[1] = (clpool_shape){2, {4, 1}}; }
static void m_zero_vs_three(vcall *v) { v->shapes[1] = (clpool_shape){2, {0, 1}}; }
static void m_null_shapes(vcall *v) { v->shapes_ptr = NULL; }
static void m_null_inputs(vcall *v) { v->inputs_ptr = NULL; }
static void m_null_offsets(vcall *v) { v->offsets_ptr = NULL; }
static void m_dtype_8(vcall *v) { v->dtype = (clpool_dtype)8; }
static void m_dtype_0(vcall *v) { v->dtype = (clpool_dtype)0; }
static void m_input_too_small(vcall *v) { v->offsets[0] = VBUF - 32; }
static void m_output_too_small(vcall *v) { v->out_off = VBUF - 64; }
static void m_null_input_entry(vcall *v) { v->inputs[1] = NULL; }
static void m_null_output(vcall *v) { v->output = NULL; }
static void m_misaligned_input(vcall *v) { v->offsets[2] = 2; }
static void m_misaligned_output(vcall *v) { v->dtype = CLPOOL_INT64, v->out_off = 12; }
static void m_negative_dim(vcall *v) { v->shapes[1].dims[0] = -3; }
static void m_rank_too_big(vcall *v) { v->shapes[2].rank = CLPOOL_MAX_RANK + 1; }
static void m_partial_overlap(vcall *v) { v->output = v->inputs[0], v->out_off = 4; }
static void m_same_offset_other_shape(vcall *v) { v->output = v->inputs[1], v->out_off = v->offsets[1]; }
static void m_alias_input_4(vcall *v)
{
    v->n = 5;
    v->shapes[3] = v->shapes[4] = full234;
    v->output = v->inputs[4];
    v->out_off = v->offsets[4] = 64;
}
static void m_alias_input_3_ok(vcall *v)
{
    m_alias_input_4(v);
    v->output = v->inputs[3];
    v->out_off = v->offsets[3] = 128;
}
static void m_wait_mismatch(vcall *v) { v->num_wait = 1, v->wait = NULL; }

static const vcase vcases[] = {
    {"valid baseline", m_none, CLPOOL_SUCCESS, ""},
    {"valid: in place on input 3 of 5", m_alias_input_3_ok, CLPOOL_SUCCESS, ""},
    {"NULL ctx", m_null_ctx, CLPOOL_ERROR_INVALID_ARGUMENT, "ctx is NULL"},
    {"zero inputs", m_zero_inputs, CLPOOL_ERROR_INVALID_ARGUMENT, "Max needs at least one input"},
    {"shapes do not broadcast", m_no_broadcast, CLPOOL_ERROR_INVALID_SHAPE,
     "does not broadcast: dim 0 is 4 where other inputs have 3"},
    {"0 against 3", m_zero_vs_three, CLPOOL_ERROR_INVALID_SHAPE,
     "does not broadcast: dim 0 is 0 where other inputs have 3"},
    {"NULL shapes", m_null_shapes, CLPOOL_ERROR_INVALID_ARGUMENT, "shapes is NULL"},
    {"NULL inputs", m_null_inputs, CLPOOL_ERROR_INVALID_ARGUMENT, "inputs is NULL"},
    {"NULL offsets", m_null_offsets, CLPOOL_ERROR_INVALID_ARGUMENT, "offsets is NULL"},
    {"dtype 8", m_dtype_8, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype 8 is not a clpool_dtype"},
    {"dtype 0", m_dtype_0, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype 0 is not a clpool_dtype"},
    {"input buffer too small", m_input_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "inputs[0] buffer holds 4096 bytes but offset 4064 + 96 bytes are needed"},
    {"output buffer too small", m_output_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "output buffer holds 4096 bytes but offset 4032 + 96 bytes are needed"},
    {"NULL input buffer", m_null_input_entry, CLPOOL_ERROR_INVALID_ARGUMENT, "inputs[1] buffer is NULL"},
    {"NULL output buffer", m_null_output, CLPOOL_ERROR_INVALID_ARGUMENT, "output buffer is NULL"},
    {"misaligned input offset", m_misaligned_input, CLPOOL_ERROR_INVALID_ARGUMENT,
     "inputs[2] offset 2 is not a multiple of the element size 4"},
    {"misaligned output offset", m_misaligned_output, CLPOOL_ERROR_INVALID_ARGUMENT,
     "output offset 12 is not a multiple of the element size 8"},
    {"negative dim", m_negative_dim, CLPOOL_ERROR_INVALID_SHAPE, "input_shapes[1] dim 0 is negative"},
    {"rank > max", m_rank_too_big, CLPOOL_ERROR_INVALID_SHAPE, "input_shapes[2] rank 13 is outside 0..12"},
    {"partial overlap", m_partial_overlap, CLPOOL_ERROR_INVALID_ARGUMENT, "inputs[0] overlaps the output"},
    {"same region, other shape", m_same_offset_other_shape, CLPOOL_ERROR_INVALID_ARGUMENT,
     "inputs[1] overlaps the output"},
    {"in place on input 4", m_alias_input_4, CLPOOL_ERROR_INVALID_ARGUMENT, "only inputs 0..3 may be the output"},
    {"wait list mismatch", m_wait_mismatch, CLPOOL_ERROR_INVALID_ARGUMENT,
     "event_wait_list must be NULL exactly when num_events_in_wait_list is 0"},
};
#define N_VCASES ((int)(sizeof vcases / sizeof vcases[0]))

START_TEST(test_validation)
{
    const vcase *vc = &vcases[_i];
    vcall v;
    memset(&v, 0, sizeof v);
    v.ctx = cu_ctx;
    v.dtype = CLPOOL_FLOAT32;
    v.n = 3;
    v.shapes[0] = full234;
    v.shapes[1] = (clpool_shape){2, {3, 1}};
    v.shapes[2] = (clpool_shape){0, {0}};
    v.shapes_ptr = v.shapes;
    v.inputs_ptr = v.inputs;
    v.offsets_ptr = v.offsets;
    cl_mem mems[VIN + 1];
    for (int i = 0; i <= VIN; ++i) mems[i] = cu_zero_buffer(VBUF);
    for (int i = 0; i < VIN; ++i) v.inputs[i] = mems[i];
    v.output = mems[VIN];

    vc->mutate(&v);
    cl_event ev = NULL;
    const clpool_status st = clpool_enqueue_max(v.ctx, NULL, v.dtype, v.n, v.shapes_ptr, v.inputs_ptr, v.offsets_ptr,
                                                v.output, v.out_off, v.num_wait, v.wait, &ev);
    cu_assert_enqueue_status(vc->name, NULL, st, ev, vc->status, vc->message);
    for (int i = 0; i <= VIN; ++i) clReleaseMemObject(mems[i]);
}
END_TEST

/* The blocking helper's own check: a NULL host pointer for a non-empty input. */
START_TEST(test_host_null_input)
{
    const clpool_shape shapes[2] = {{2, {2, 3}}, {1, {3}}};
    const float a[6] = {0}, b[3] = {0};
    float out[6];
    const void *const inputs[2] = {a, NULL};
    cu_assert_status("NULL host input", "clpool_max_host", clpool_max_host(cu_ctx, CLPOOL_FLOAT32, 2, shapes, inputs, out),
                     CLPOOL_ERROR_INVALID_ARGUMENT, "inputs[1] is NULL");
    const void *const both[2] = {a, b};
    cu_assert_ok(clpool_max_host(cu_ctx, CLPOOL_FLOAT32, 2, shapes, both, out), "clpool_max_host", "both inputs");
}
END_TEST

/* The shape function alone (no device): same rules and messages. */
START_TEST(test_output_shape_fn)
{
    clpool_shape out;
    const clpool_shape ok[2] = {{2, {3, 1}}, {3, {2, 1, 4}}};
    ck_assert_int_eq(clpool_max_output_shape(2, ok, &out), CLPOOL_SUCCESS);
    ck_assert_int_eq(out.rank, 3);
    ck_assert(out.dims[0] == 2 && out.dims[1] == 3 && out.dims[2] == 4);
    ck_assert_int_eq(clpool_max_output_shape(2, ok, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "clpool_max_output_shape: output is NULL"));
    ck_assert_int_eq(clpool_max_output_shape(0, ok, &out), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "Max needs at least one input"));
    const clpool_shape bad[3] = {{1, {5}}, {2, {2, 1}}, {1, {4}}};
    ck_assert_int_eq(clpool_max_output_shape(3, bad, &out), CLPOOL_ERROR_INVALID_SHAPE);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "does not broadcast"));
    ck_assert_int_eq(clpool_max_output_shape(2, bad, &out), CLPOOL_SUCCESS);
    ck_assert(out.rank == 2 && out.dims[0] == 2 && out.dims[1] == 5);
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("max");
    TCase *tc = cu_tcase(s, "random", 1);
    tcase_add_test(tc, test_random_float32);
    tcase_add_test(tc, test_random_float64);
    tcase_add_test(tc, test_random_float16);
    tcase_add_test(tc, test_random_bfloat16);
    tcase_add_test(tc, test_random_int8);
    tcase_add_test(tc, test_random_int16);
    tcase_add_test(tc, test_random_int32);
    tcase_add_test(tc, test_random_int64);
    tcase_add_test(tc, test_random_uint8);
    tcase_add_test(tc, test_random_uint16);
    tcase_add_test(tc, test_random_uint32);
    tcase_add_test(tc, test_random_uint64);

    tc = cu_tcase(s, "semantics", 1);
    tcase_add_test(tc, test_nan_and_signed_zero);
    tcase_add_test(tc, test_wide_integers_exact);
    tcase_add_test(tc, test_broadcast_shapes);
    tcase_add_test(tc, test_inplace);
    tcase_add_test(tc, test_many_inputs_out_of_order);
    tcase_add_test(tc, test_empty_outputs);
    tcase_add_test(tc, test_outputs_larger_than_cache);
    tcase_add_test(tc, test_long_rows);

    tc = cu_tcase(s, "validation", 1);
    tcase_add_loop_test(tc, test_validation, 0, N_VCASES);
    tcase_add_test(tc, test_host_null_input);
    tc = cu_tcase(s, "validation_host", 0);
    tcase_add_test(tc, test_output_shape_fn);

    return cu_run_suite(s, CK_ENV);
}
