/*
 * MaxPool suite: randomised comparisons against the plain-C reference
 * (tests/reference.c), ONNX-semantics spot checks with hand-computed values,
 * one test per validation path, and empty-output / wait-list behaviour.
 *
 * Every run goes through run_case_expect(): buffers are laid out as
 * [offset bytes of sentinel][tensor][CU_GUARD bytes of sentinel]; afterwards the
 * sentinel regions must be intact, no tensor element may still hold the
 * sentinel (the generators never produce it), the input must be unchanged,
 * and values (bitwise) and indices must equal the reference.
 *
 * Check forks every test; the OpenCL context is created inside the child by
 * the checked fixture of check_util.c, never in main().
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "check_util.h"
#include "builder.h"
#include "planners.h"
#include "reference.h"
#include "windows.h"

/* --------------------------------------------------------------- cases */

/* API_ANY: let the generator pick one of the two enqueue variants. */
typedef enum run_api { API_ANY = -1, API_ENQUEUE, API_ENQUEUE_OWN_QUEUE, API_HOST } run_api;

typedef struct mp_case {
    clpool_dtype dtype;
    clpool_shape shape;
    clpool_maxpool_params params;
    int with_indices;
    size_t in_off, out_off, idx_off; /* byte offsets (ignored by API_HOST) */
    run_api api;
    int want_event;                  /* API_ENQUEUE: ask for an event */
    int fill_lead;                   /* input lead (in_off bytes) holds lead_value, not the sentinel */
    int tight_input;                 /* the input cl_mem ends with the tensor (no guard bytes after it) */
    double lead_value;
} mp_case;

/* One line naming everything about a case, for failure messages. */
static const char *describe(const mp_case *c, char *buf, size_t len)
{
    const clpool_maxpool_params *p = &c->params;
    const int32_t ns = p->spatial_rank;
    buf[0] = '\0';
    cu_append(buf, len, "%s input ", clpool_dtype_name(c->dtype));
    cu_append_dims(buf, len, c->shape.dims, c->shape.rank);
    cu_append(buf, len, " kernel ");
    cu_append_dims(buf, len, p->kernel_shape, ns);
    cu_append(buf, len, " strides ");
    cu_append_dims(buf, len, p->strides, ns);
    cu_append(buf, len, " dilations ");
    cu_append_dims(buf, len, p->dilations, ns);
    cu_append(buf, len, " pads ");
    cu_append_dims(buf, len, p->pads, 2 * ns);
    cu_append(buf, len, " ceil_mode %d auto_pad %d storage_order %d indices %d api %d offsets %zu/%zu/%zu",
              (int)p->ceil_mode, (int)p->auto_pad, (int)p->storage_order, c->with_indices, (int)c->api, c->in_off,
              c->out_off, c->idx_off);
    return buf;
}

static mp_case make_case(clpool_dtype dtype, int32_t rank, const int64_t *dims, const int64_t *kernel)
{
    mp_case c;
    memset(&c, 0, sizeof c);
    c.dtype = dtype;
    c.shape.rank = rank;
    memcpy(c.shape.dims, dims, (size_t)rank * sizeof *dims);
    ck_assert_int_eq(clpool_maxpool_params_init(&c.params, rank - 2, kernel), CLPOOL_SUCCESS);
    c.with_indices = 1;
    c.in_off = 3 * ref_dtype_size(dtype);
    c.out_off = 5 * ref_dtype_size(dtype);
    c.idx_off = 16;
    c.api = API_ENQUEUE;
    c.want_event = 1;
    return c;
}

/* ------------------------------------------------------ running a case */

/* Checks the sentinel regions of an image [lead][body][CU_GUARD] and that no
 * element of the body still holds the sentinel. */
static void verify_image(const unsigned char *img, size_t lead, int64_t elements, size_t esize, const char *what,
                         const char *desc)
{
    cu_assert_guards(img, lead, (size_t)elements * esize, what, desc);
    for (int64_t e = 0; e < elements; ++e)
        cu_expect(!cu_all_sentinel(img + lead + (size_t)e * esize, esize), "%s: %s element %lld was never written",
                  desc, what, (long long)e);
}

/*
 * Runs c through the chosen API and returns the output and indices images
 * ([lead][n_out elements][CU_GUARD]; *out_lead / *idx_lead give the leads).
 */
static void execute(const mp_case *c, const void *input, int64_t n_in, int64_t n_out, unsigned char **out_img,
                    size_t *out_lead, unsigned char **idx_img, size_t *idx_lead, const char *desc)
{
    const size_t esize = ref_dtype_size(c->dtype);
    const size_t in_bytes = (size_t)n_in * esize, out_bytes = (size_t)n_out * esize, idx_bytes = (size_t)n_out * 8;
    const int host = c->api == API_HOST;
    *out_lead = host ? CU_GUARD : c->out_off;
    *idx_lead = host ? CU_GUARD : c->idx_off;
    const size_t in_lead = host ? CU_GUARD : c->in_off;
    unsigned char *in_img = cu_sentinel_image(in_lead, input, in_bytes);
    if (c->fill_lead)
        for (size_t e = 0; e < in_lead / esize; ++e) ref_store(c->dtype, in_img, (int64_t)e, c->lead_value);
    *out_img = cu_sentinel_image(*out_lead, NULL, out_bytes);
    *idx_img = c->with_indices ? cu_sentinel_image(*idx_lead, NULL, idx_bytes) : NULL;
    clpool_status st;

    if (host) {
        st = clpool_maxpool_host(cu_ctx, &c->params, c->dtype, &c->shape, in_img + in_lead, *out_img + *out_lead,
                                 c->with_indices ? (int64_t *)(void *)(*idx_img + *idx_lead) : NULL);
        cu_assert_ok(st, "clpool_maxpool_host", desc);
    } else {
        const size_t in_mem_bytes = c->tight_input ? in_lead + in_bytes : CU_IMAGE_BYTES(in_lead, in_bytes);
        cl_mem in_mem = cu_buffer_from(in_img, in_mem_bytes);
        cl_mem out_mem = cu_buffer_from(*out_img, CU_IMAGE_BYTES(*out_lead, out_bytes));
        cl_mem idx_mem = c->with_indices ? cu_buffer_from(*idx_img, CU_IMAGE_BYTES(*idx_lead, idx_bytes)) : NULL;
        const int own = c->api == API_ENQUEUE_OWN_QUEUE;
        cl_command_queue q = own ? cu_own_queue : clpool_context_cl_queue(cu_ctx);
        cl_event ev = NULL;
        st = clpool_enqueue_maxpool(cu_ctx, own ? cu_own_queue : NULL, &c->params, c->dtype, &c->shape, in_mem,
                                    c->in_off, out_mem, c->out_off, idx_mem, c->idx_off, 0, NULL,
                                    (own || c->want_event) ? &ev : NULL);
        cu_assert_ok(st, "clpool_enqueue_maxpool", desc);
        if (own || c->want_event) {
            ck_assert_msg(ev != NULL, "%s: no event returned", desc);
            cu_wait_done(q, ev, desc);
            clReleaseEvent(ev);
        }
        cu_assert_buffer_unchanged(q, in_mem, in_img, in_mem_bytes, "input", desc);
        cu_read_back(q, out_mem, *out_img, CU_IMAGE_BYTES(*out_lead, out_bytes), desc);
        if (idx_mem) cu_read_back(q, idx_mem, *idx_img, CU_IMAGE_BYTES(*idx_lead, idx_bytes), desc);
        clReleaseMemObject(in_mem);
        clReleaseMemObject(out_mem);
        if (idx_mem) clReleaseMemObject(idx_mem);
    }
    free(in_img);
    verify_image(*out_img, *out_lead, n_out, esize, "output", desc);
    if (c->with_indices) verify_image(*idx_img, *idx_lead, n_out, 8, "indices", desc);
}

/* A case's reference result: the output (bits) and its indices, whether or not the case asks for them. */
typedef struct {
    clpool_shape shape;
    int64_t n_out;
    void *out;
    int64_t *idx;
} mp_reference;

static void reference_compute(const mp_case *c, const void *input, mp_reference *ref, const char *desc)
{
    char why[256] = "";
    ck_assert_msg(ref_maxpool_shape(&c->shape, &c->params, &ref->shape, NULL, why, sizeof why) == 0,
                  "%s: reference rejects the case: %s", desc, why);
    ref->n_out = ref_shape_elements(&ref->shape);
    ref->out = malloc((size_t)ref->n_out * ref_dtype_size(c->dtype) + 1);
    ref->idx = malloc((size_t)ref->n_out * 8 + 1);
    ck_assert(ref->out && ref->idx);
    ck_assert_int_eq(ref_maxpool(c->dtype, &c->shape, &c->params, input, ref->out, ref->idx), 0);
}

static void reference_free(mp_reference *ref)
{
    free(ref->out);
    free(ref->idx);
}

/* The library (output shape, output bits, indices if asked for) against the reference, exact. */
static void check_library(const mp_case *c, const void *input, const mp_reference *ref, const char *desc)
{
    clpool_shape lib_shape;
    cu_assert_ok(clpool_maxpool_output_shape(&c->shape, &c->params, &lib_shape), "clpool_maxpool_output_shape", desc);
    cu_assert_shape_eq(&lib_shape, &ref->shape, desc);
    const int64_t n_out = ref->n_out;
    unsigned char *out_img, *idx_img;
    size_t out_lead, idx_lead;
    execute(c, input, ref_shape_elements(&c->shape), n_out, &out_img, &out_lead, &idx_img, &idx_lead, desc);
    for (int64_t i = 0; i < n_out; ++i) {
        const uint64_t want = ref_load_bits(c->dtype, ref->out, i), got = ref_load_bits(c->dtype, out_img + out_lead, i);
        cu_expect(got == want, "%s: output element %lld: expected 0x%llx (%g), got 0x%llx (%g)", desc,
                  (long long)i, (unsigned long long)want, ref_load(c->dtype, ref->out, i), (unsigned long long)got,
                  ref_load(c->dtype, out_img + out_lead, i));
        if (c->with_indices) {
            int64_t idx;
            memcpy(&idx, idx_img + idx_lead + (size_t)i * 8, 8);
            cu_expect(idx == ref->idx[i], "%s: index element %lld: expected %lld, got %lld", desc, (long long)i,
                      (long long)ref->idx[i], (long long)idx);
        }
    }
    free(out_img);
    free(idx_img);
}

/*
 * The one runner: reference vs library, exact. If expect_out is not NULL the
 * reference itself is first checked against those hand-computed values
 * (expect_idx: row/column-major indices; expect_shape: output shape).
 */
static void run_case_expect(const mp_case *c, const void *input, const clpool_shape *expect_shape,
                            const void *expect_out, const int64_t *expect_idx)
{
    char desc[1024];
    describe(c, desc, sizeof desc);
    mp_reference ref;
    reference_compute(c, input, &ref, desc);
    if (expect_shape) {
        ck_assert_int_eq(expect_shape->rank, ref.shape.rank);
        for (int32_t i = 0; i < ref.shape.rank; ++i)
            cu_expect(expect_shape->dims[i] == ref.shape.dims[i],
                      "%s: reference output dim %d is %lld, expected %lld", desc, (int)i,
                      (long long)ref.shape.dims[i], (long long)expect_shape->dims[i]);
    }
    for (int64_t i = 0; expect_out && i < ref.n_out; ++i) {
        cu_expect(ref_load_bits(c->dtype, ref.out, i) == ref_load_bits(c->dtype, expect_out, i),
                  "%s: reference output %lld is 0x%llx, hand-computed 0x%llx", desc, (long long)i,
                  (unsigned long long)ref_load_bits(c->dtype, ref.out, i),
                  (unsigned long long)ref_load_bits(c->dtype, expect_out, i));
        if (expect_idx)
            cu_expect(ref.idx[i] == expect_idx[i], "%s: reference index %lld is %lld, hand-computed %lld", desc,
                      (long long)i, (long long)ref.idx[i], (long long)expect_idx[i]);
    }
    check_library(c, input, &ref, desc);
    reference_free(&ref);
}

static void run_case(const mp_case *c, const void *input) { run_case_expect(c, input, NULL, NULL, NULL); }

/* ------------------------------------------------------ random inputs */

static const int int8_values[] = {-128, -127, -1, 127, 126};
static const int uint8_values[] = {255, 254, 128, 127};

/* Mostly integers 0..3 (ties), some negatives, signed zeros, infinities, NaNs.
 * A third of the inputs are clean (no NaN, no -0.0): the 2-D kernel's fast
 * path runs only on blocks without those, the exact path on the others. */
static void fill_random(ref_rng *r, clpool_dtype dtype, void *data, int64_t n)
{
    const int clean = ref_rng_chance(r, 1.0 / 3);
    const double nan_rate = clean ? 0.0 : (double[]){0.0, 0.0, 0.03, 0.3}[ref_rng_range(r, 0, 3)];
    const double inf_rate = ref_rng_chance(r, 0.5) ? 0.05 : 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double u = ref_rng_unit(r);
        if (dtype == CLPOOL_INT8) {
            ref_store(dtype, data, i, u < 0.8 ? (double)ref_rng_range(r, -1, 3) : int8_values[ref_rng_range(r, 0, 4)]);
        } else if (dtype == CLPOOL_UINT8) {
            ref_store(dtype, data, i, u < 0.8 ? (double)ref_rng_range(r, 0, 3) : uint8_values[ref_rng_range(r, 0, 3)]);
        } else if (u < nan_rate) {
            ref_store_bits(dtype, data, i, cu_nan_patterns(dtype)[ref_rng_range(r, 0, CU_N_NAN - 1)]);
        } else if (u < nan_rate + inf_rate) {
            ref_store(dtype, data, i, ref_rng_chance(r, 0.5) ? INFINITY : -INFINITY);
        } else if (u < nan_rate + inf_rate + 0.05) {
            ref_store(dtype, data, i, !clean && ref_rng_chance(r, 0.5) ? -0.0 : 0.0);
        } else if (dtype == CLPOOL_FLOAT16 && u < nan_rate + inf_rate + 0.07) {
            ref_store_bits(dtype, data, i, (uint64_t[]){0x0001u, 0x8001u, 0x03FFu, 0x7BFFu}[ref_rng_range(r, 0, 3)]);
        } else if (u < nan_rate + inf_rate + 0.2) {
            ref_store(dtype, data, i, (double)ref_rng_range(r, -12, 3) / 4.0);
        } else {
            ref_store(dtype, data, i, (double)ref_rng_range(r, 0, 3));
        }
    }
}

/* Run a valid case on a fresh random input. */
static void run_random_input(ref_rng *r, const mp_case *c)
{
    const int64_t n = ref_shape_elements(&c->shape);
    void *input = malloc((size_t)n * ref_dtype_size(c->dtype));
    ck_assert_ptr_nonnull(input);
    fill_random(r, c->dtype, input, n);
    run_case(c, input);
    free(input);
}

/*
 * Windows that random cases take again. The kernels are specialised on the
 * window (kernel, strides, dilations) and on the Indices choice, so cases
 * that take their window from a small catalogue run programs already built
 * (program builds dominate the suite's time) while their shape, pads, modes,
 * offsets and data stay their own, as in a model whose layers share a window.
 */
#define CATALOGUE_MAX 32

static void apply_window(mp_case *c, const cu_window *w)
{
    cu_window_apply(w, &c->params);
    c->with_indices = w->with_indices;
}

static void take_window(mp_case *c, const mp_case *from)
{
    cu_window w = {{0}, {0}, {0}, from->with_indices, from->params.storage_order};
    for (int32_t i = 0; i < from->params.spatial_rank; ++i) {
        w.kernel[i] = from->params.kernel_shape[i];
        w.strides[i] = from->params.strides[i];
        w.dilations[i] = from->params.dilations[i];
    }
    apply_window(c, &w);
}

/* take_window() for a case drawn whole: explicit pads are cut to the new
 * dilated window (a pad of the window's span would leave windows empty). */
static void take_window_cut_pads(mp_case *c, const mp_case *from)
{
    take_window(c, from);
    clpool_maxpool_params *p = &c->params;
    const int32_t ns = p->spatial_rank;
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t e = (p->kernel_shape[i] - 1) * p->dilations[i] + 1;
        if (p->pads[i] > e - 1) p->pads[i] = e - 1;
        if (p->pads[ns + i] > e - 1) p->pads[ns + i] = e - 1;
    }
}

/* Random attributes for a given spatial rank; the result may be invalid.
 * With `window` (of rank ns), the window and Indices choice are its. */
static void random_case_like(ref_rng *r, clpool_dtype dtype, int32_t ns, const cu_window *window, mp_case *c)
{
    static const int64_t max_dim[] = {0, 12, 8, 5, 4, 3, 3};
    const int64_t max_k = ns <= 2 ? 4 : 3;
    /* Now and then a larger 1-D/2-D tensor, so outputs span several work-groups. */
    const int64_t dim_hi = ns <= 2 && ref_rng_chance(r, 0.1) ? 40 : max_dim[ns];
    int64_t dims[CLPOOL_MAX_RANK], kernel[CLPOOL_MAX_SPATIAL];
    dims[0] = ref_rng_range(r, 1, 2);
    dims[1] = ref_rng_range(r, 1, 3);
    for (int32_t i = 0; i < ns; ++i) {
        dims[2 + i] = ref_rng_range(r, 1, dim_hi);
        kernel[i] = ref_rng_range(r, 1, max_k);
    }
    *c = make_case(dtype, ns + 2, dims, kernel);
    clpool_maxpool_params *p = &c->params;
    for (int32_t i = 0; i < ns; ++i) {
        p->strides[i] = ref_rng_range(r, 1, 3);
        p->dilations[i] = ref_rng_chance(r, 0.25) ? ref_rng_range(r, 2, 3) : 1;
    }
    c->with_indices = ref_rng_chance(r, 0.6);
    p->storage_order = (int32_t)ref_rng_range(r, 0, 1); /* ignored without Indices */
    if (window) apply_window(c, window);
    const double mode = ref_rng_unit(r);
    p->auto_pad = mode < 0.55 ? CLPOOL_AUTO_PAD_NOTSET
                  : mode < 0.7 ? CLPOOL_AUTO_PAD_SAME_UPPER
                  : mode < 0.85 ? CLPOOL_AUTO_PAD_SAME_LOWER
                                : CLPOOL_AUTO_PAD_VALID;
    const int padded = p->auto_pad == CLPOOL_AUTO_PAD_NOTSET && ref_rng_chance(r, 0.6);
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t e = (p->kernel_shape[i] - 1) * p->dilations[i] + 1;
        /* Pads usually below the dilated kernel; sometimes beyond, to hit empty windows. */
        const int64_t max_pad = ref_rng_chance(r, 0.1) ? e + 1 : e - 1;
        p->pads[i] = padded ? ref_rng_range(r, 0, max_pad) : 0;
        p->pads[ns + i] = padded ? ref_rng_range(r, 0, max_pad) : 0;
    }
    p->ceil_mode = (int32_t)ref_rng_range(r, 0, 1);
    const size_t esize = ref_dtype_size(dtype);
    c->in_off = esize * (size_t)ref_rng_range(r, 1, 7);
    c->out_off = esize * (size_t)ref_rng_range(r, 1, 7);
    c->idx_off = 8 * (size_t)ref_rng_range(r, 1, 4);
    c->api = ref_rng_chance(r, 0.5) ? API_ENQUEUE_OWN_QUEUE : API_ENQUEUE;
    c->want_event = ref_rng_chance(r, 0.5);
}

static void random_case(ref_rng *r, clpool_dtype dtype, int32_t ns, mp_case *c)
{
    random_case_like(r, dtype, ns, NULL, c);
}

/*
 * `cases` valid random cases per spatial rank in [ns_lo, ns_hi], each on a
 * window of the dtype's catalogue for the rank (windows.h), with its own
 * shape, pads, modes, offsets and data. Attribute sets the reference rejects
 * must be rejected by the library as well.
 */
static void random_suite(clpool_dtype dtype, uint64_t seed, int32_t ns_lo, int32_t ns_hi, int cases, run_api only_api)
{
    if (!cu_dtype_runs(dtype, "MaxPool")) return;
    ref_rng r;
    ref_rng_seed(&r, seed);
    int ran = 0, rejected = 0;
    /* a pair's two dtypes (cu_pair_runs) take one window a rank each */
    const int windows = cu_pair_share(dtype, CU_CATALOGUE_WINDOWS);
    for (int32_t ns = ns_lo; ns <= ns_hi; ++ns) {
        for (int done = 0, attempts = 0; done < cases; ++attempts) {
            ck_assert_msg(attempts < 20 * cases, "too many invalid random cases for rank %d", (int)ns);
            mp_case c;
            const cu_window window = cu_catalogue_window(dtype, ns, (int)ref_rng_range(&r, 0, windows - 1));
            random_case_like(&r, dtype, ns, &window, &c);
            if (only_api != API_ANY) c.api = only_api;
            clpool_shape out;
            if (ref_maxpool_shape(&c.shape, &c.params, &out, NULL, NULL, 0) != 0) {
                char desc[1024];
                ck_assert_msg(clpool_maxpool_output_shape(&c.shape, &c.params, &out) != CLPOOL_SUCCESS,
                              "%s: the reference rejects these attributes but the library accepts them",
                              describe(&c, desc, sizeof desc));
                ++rejected;
                continue;
            }
            run_random_input(&r, &c);
            ++done;
            ++ran;
        }
    }
    printf("maxpool random %s, spatial rank %d..%d: %d cases on %d windows a rank passed (%d invalid attribute sets "
           "rejected by both)\n",
           clpool_dtype_name(dtype), (int)ns_lo, (int)ns_hi, ran, windows, rejected);
}

#define RANDOM_CASES 45

START_TEST(test_random_float32) { random_suite(CLPOOL_FLOAT32, 0x1001, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST
START_TEST(test_random_float64) { random_suite(CLPOOL_FLOAT64, 0x1002, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST
START_TEST(test_random_float16) { random_suite(CLPOOL_FLOAT16, 0x1003, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST
START_TEST(test_random_bfloat16) { random_suite(CLPOOL_BFLOAT16, 0x1004, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST
START_TEST(test_random_int8) { random_suite(CLPOOL_INT8, 0x1005, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST
START_TEST(test_random_uint8) { random_suite(CLPOOL_UINT8, 0x1006, 1, 4, RANDOM_CASES, API_ANY); }
END_TEST

START_TEST(test_random_high_rank)
{
    random_suite(CLPOOL_FLOAT32, 0x2001, 5, 6, 8, API_ANY);
    random_suite(CLPOOL_INT8, 0x2002, 5, 6, 6, API_ANY);
    random_suite(CLPOOL_FLOAT16, 0x2003, 5, 5, 6, API_ANY);
}
END_TEST

/*
 * 2-D rows wide enough for the vector kernel's blocks (16 lanes, stride 1 or
 * 2, kernels up to 7, no dilation): interior and edge blocks, the overlapped last block of
 * a row, rows narrower than a block, and blocks at the buffer's very end.
 */
/* Draws one wide-row case (maybe invalid: the suite skips those). */
static void wide_row_case(ref_rng *r, clpool_dtype dtype, mp_case *c)
{
    random_case(r, dtype, 2, c);
    clpool_maxpool_params *p = &c->params;
    c->shape.dims[2] = ref_rng_range(r, 1, 9);
    c->shape.dims[3] = ref_rng_range(r, 12, 150);
    p->kernel_shape[0] = ref_rng_range(r, 1, 4);
    p->kernel_shape[1] = ref_rng_range(r, 1, 7);
    /* the 2-D kernel's attributes: strides 1 or 2, no dilation */
    p->strides[0] = ref_rng_range(r, 1, 2);
    p->strides[1] = ref_rng_range(r, 1, 2);
    p->dilations[0] = p->dilations[1] = 1;
    if (ref_rng_chance(r, 0.3)) c->in_off = 0;
}

/* `cases` valid cases of `dtype` from draw() on random inputs, each on one
 * of `windows` windows of its spatial rank that draw() gives from `seed`'s
 * catalogue generators (a case of a rank the catalogue lacks is drawn again);
 * `what` names them. */
static void drawn_cases(const char *what, void (*draw)(ref_rng *, clpool_dtype, mp_case *), clpool_dtype dtype,
                        uint64_t seed, int cases, int windows)
{
    ck_assert_int_le(windows, CATALOGUE_MAX);
    mp_case catalogue[CATALOGUE_MAX];
    for (int j = 0; j < windows; ++j) {
        ref_rng w;
        ref_rng_seed(&w, seed * 4099 + 1024 + (uint64_t)j);
        draw(&w, dtype, &catalogue[j]);
    }
    ref_rng r;
    ref_rng_seed(&r, seed);
    int ran = 0;
    for (int attempts = 0; ran < cases; ++attempts) {
        ck_assert_msg(attempts < 20 * cases, "too many invalid %s cases", what);
        mp_case c;
        draw(&r, dtype, &c);
        int same_rank = 0;
        for (int j = 0; j < windows; ++j) same_rank += catalogue[j].params.spatial_rank == c.params.spatial_rank;
        if (same_rank == 0) continue;
        int64_t pick = ref_rng_range(&r, 0, same_rank - 1);
        for (int j = 0; j < windows; ++j)
            if (catalogue[j].params.spatial_rank == c.params.spatial_rank && pick-- == 0) {
                take_window_cut_pads(&c, &catalogue[j]);
                break;
            }
        clpool_shape out;
        if (ref_maxpool_shape(&c.shape, &c.params, &out, NULL, NULL, 0) != 0) continue;
        run_random_input(&r, &c);
        ++ran;
    }
    printf("maxpool %s %s: %d cases on %d windows passed\n", what, clpool_dtype_name(dtype), ran, windows);
}

/* drawn_cases() in each of the six MaxPool dtypes, seed + i for dtype i. */
static void drawn_suite(const char *what, void (*draw)(ref_rng *, clpool_dtype, mp_case *), uint64_t seed, int cases,
                        int windows)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                          CLPOOL_BFLOAT16, CLPOOL_INT8,   CLPOOL_UINT8};
    for (int i = 0; i < 6; ++i) /* a pair's two dtypes (cu_pair_runs) draw half the windows each */
        if (cu_dtype_runs(dtypes[i], "MaxPool"))
            drawn_cases(what, draw, dtypes[i], seed + (uint64_t)i, cases, cu_pair_share(dtypes[i], windows));
}

START_TEST(test_wide_rows) { drawn_suite("wide rows", wide_row_case, 0x3001, 10, 2); }
END_TEST

/*
 * Rows wide enough for the general kernel's work-items (up to 4 blocks of
 * 16 lanes side by side on CPUs): along the last dim, strides 1 to 9,
 * dilations 1 to 3, windows of 1 to 17 taps and pads; 1 to 3 spatial dims,
 * so the other dims' taps vary too; rows of 1 to 300 outputs (work-items
 * with padding in their first or last taps, partial and whole unused
 * blocks), tensors at the buffer's very start and end (vector loads that
 * would leave the buffer). Strides 1 to 8 load taps as vectors (5 to 8 in
 * eight loads), wider ones lane by lane: all are drawn. Two cases in five put a window of 8 to 40
 * taps over a row at most twice its span, at any stride up to the window:
 * rows of one or a few outputs, which take the window kernel (its lanes
 * along the taps, reduced with ties to the first). Some cases fall to the
 * 2-D kernels; most do not.
 */
/* Draws one general-row case (maybe invalid: the suite skips those). */
static void general_row_case(ref_rng *r, clpool_dtype dtype, mp_case *c)
{
    const int32_t ns = (int32_t)ref_rng_range(r, 1, 3), last = ns - 1;
    random_case(r, dtype, ns, c);
    clpool_maxpool_params *p = &c->params;
    const int wide = ref_rng_chance(r, 0.4); /* a window over most of a short row */
    const int64_t k = wide ? ref_rng_range(r, 8, 40) : ref_rng_range(r, 1, 17);
    const int64_t s = wide ? ref_rng_range(r, 1, k) : ref_rng_chance(r, 0.25) ? ref_rng_range(r, 5, 9) : ref_rng_range(r, 1, 4);
    const int64_t d = ref_rng_chance(r, 0.3) ? ref_rng_range(r, 2, 3) : 1, e = (k - 1) * d + 1;
    p->kernel_shape[last] = k;
    p->strides[last] = s;
    p->dilations[last] = d;
    c->shape.dims[2 + last] = ref_rng_range(r, e > 2 ? e - 2 : 1, wide ? 2 * e : e + 300 * s);
    if (p->auto_pad == CLPOOL_AUTO_PAD_NOTSET) {
        p->pads[last] = ref_rng_range(r, 0, e - 1);
        p->pads[ns + last] = ref_rng_range(r, 0, e - 1);
    }
    if (ref_rng_chance(r, 0.3)) c->in_off = 0;
    c->tight_input = ref_rng_chance(r, 0.5);
}

START_TEST(test_general_rows) { drawn_suite("general rows", general_row_case, 0x3201, 20, 4); }
END_TEST

/*
 * 3-D windows, which run as two 2-D passes through a scratch buffer (the
 * last two dims' windows, then the first dim's over rows of OH*OW; with
 * row-major Indices the second pass maps its Indices through the first
 * pass's as it stores them). Planes of 1 to 40 x 40, so the second pass's
 * rows run from 1 output (lanes past the row's end read on into the map's
 * next row or past its end) to 1600; pads and strides on the first dim; now
 * and then a stride of 3 to 5 there (the 2-D kernels take up to 4 on CPUs),
 * a dilation of 2, or column-major Indices, which keep the general kernel
 * with Indices.
 */
static void three_d_case(ref_rng *r, clpool_dtype dtype, mp_case *c)
{
    random_case(r, dtype, 3, c);
    clpool_maxpool_params *p = &c->params;
    c->shape.dims[2] = ref_rng_range(r, 1, 12);
    c->shape.dims[3] = ref_rng_range(r, 1, 40);
    c->shape.dims[4] = ref_rng_range(r, 1, 40);
    p->kernel_shape[0] = ref_rng_range(r, 1, 4);
    p->strides[0] = ref_rng_chance(r, 0.15) ? ref_rng_range(r, 3, 5) : ref_rng_range(r, 1, 2);
    p->dilations[0] = ref_rng_chance(r, 0.1) ? 2 : 1;
    for (int32_t i = 1; i < 3; ++i) p->dilations[i] = 1;
    if (p->auto_pad == CLPOOL_AUTO_PAD_NOTSET)
        for (int32_t i = 0; i < 3; ++i) {
            const int64_t e = (p->kernel_shape[i] - 1) * p->dilations[i] + 1;
            p->pads[i] = ref_rng_range(r, 0, e - 1);
            p->pads[3 + i] = ref_rng_range(r, 0, e - 1);
        }
    c->with_indices = ref_rng_chance(r, 0.8);
    p->storage_order = ref_rng_chance(r, 0.15);
    if (ref_rng_chance(r, 0.3)) c->in_off = 0;
    c->tight_input = ref_rng_chance(r, 0.5);
}

START_TEST(test_3d_windows) { drawn_suite("3-D windows", three_d_case, 0x3401, 6, 2); }
END_TEST

/*
 * 3-D windows in one pass (float32 on CPUs with 16-lane vectors, without
 * Indices or with row-major ones, no dilation, kernels/maxpool3d.cl):
 * windows of 1 to 7 a side,
 * strides up to 5 in depth, 7 in height, 2 along rows; rows of 1 to 70
 * outputs (one partial 16-column strip to five, the last overlapping),
 * 1 to 6 planes (bands of rows split across work-items) or up to 40;
 * inputs ending at the cl_mem's end (guarded loads), random NaN, -0 and
 * infinities (strips redone by the exact scan). Elsewhere such calls run
 * in two passes, so these cases check that path too.
 */
static void one_pass_3d_case(ref_rng *r, clpool_dtype dtype, mp_case *c)
{
    random_case(r, dtype, 3, c);
    clpool_maxpool_params *p = &c->params;
    c->shape.dims[1] = ref_rng_chance(r, 0.2) ? ref_rng_range(r, 16, 40) : ref_rng_range(r, 1, 3);
    c->shape.dims[2] = ref_rng_range(r, 1, 12);
    c->shape.dims[3] = ref_rng_range(r, 1, 30);
    c->shape.dims[4] = ref_rng_chance(r, 0.3) ? ref_rng_range(r, 1, 15) : ref_rng_range(r, 16, 140);
    for (int32_t i = 0; i < 3; ++i) {
        p->kernel_shape[i] = ref_rng_chance(r, 0.15) ? ref_rng_range(r, 4, 7) : ref_rng_range(r, 1, 3);
        p->dilations[i] = 1;
    }
    p->strides[0] = ref_rng_range(r, 1, ref_rng_chance(r, 0.2) ? 5 : 2);
    p->strides[1] = ref_rng_range(r, 1, ref_rng_chance(r, 0.2) ? 7 : 2);
    p->strides[2] = ref_rng_range(r, 1, 2);
    if (p->auto_pad == CLPOOL_AUTO_PAD_NOTSET)
        for (int32_t i = 0; i < 3; ++i) {
            p->pads[i] = ref_rng_range(r, 0, p->kernel_shape[i] - 1);
            p->pads[3 + i] = ref_rng_range(r, 0, p->kernel_shape[i] - 1);
        }
    c->with_indices = ref_rng_chance(r, 0.5);
    p->storage_order = ref_rng_chance(r, 0.15); /* column-major Indices keep the general kernel */
    if (ref_rng_chance(r, 0.3)) c->in_off = 0;
    c->tight_input = ref_rng_chance(r, 0.5);
}

START_TEST(test_3d_one_pass)
{
    drawn_cases("3-D one pass", one_pass_3d_case, CLPOOL_FLOAT32, 0x3501, 120, 12);
    /* Every tap -inf: each window ties throughout, so its Indices name its first tap
     * inside the input, which the pads move off the window's first tap at the edges.
     * A row stride of 6, past the window: no rows carried down a strip. */
    enum { D = 5, H = 9, W = 40 };
    mp_case c = make_case(CLPOOL_FLOAT32, 5, (int64_t[]){1, 2, D, H, W}, (int64_t[]){3, 3, 3});
    c.with_indices = 1;
    c.params.strides[1] = 6;
    c.params.strides[2] = 2;
    for (int i = 0; i < 6; ++i) c.params.pads[i] = 1;
    float input[2 * D * H * W];
    for (int i = 0; i < 2 * D * H * W; ++i) input[i] = -INFINITY;
    run_case(&c, input);
}
END_TEST

/*
 * Attributes near int64's limits on a few elements, checked against a direct
 * scan (the reference walks every tap, 2^20 and more here): a 2^20-tap
 * window with pads of 2^20 - 1 (2^20 + 3 outputs, at most 4 real taps each:
 * the kernels must skip the all-padding taps, not walk them), a dilation of
 * 3 * 2^61 and pads of ~2^63 whose (a + d - 1) / d ceilings would overflow,
 * and a 2^40-tap window over 4 elements (the window kernel). float32 and
 * int8, with and without Indices.
 */
static void extreme_case(clpool_dtype dtype, int64_t w, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin,
                         int64_t pad_end, int with_indices)
{
    const int64_t dims[3] = {1, 1, w};
    mp_case c = make_case(dtype, 3, dims, &k);
    c.params.strides[0] = stride;
    c.params.dilations[0] = dilation;
    c.params.pads[0] = pad_begin;
    c.params.pads[1] = pad_end;
    clpool_shape out;
    cu_assert_ok(clpool_maxpool_output_shape(&c.shape, &c.params, &out), "clpool_maxpool_output_shape", "extreme");
    const int64_t ow = out.dims[2];
    double *in = malloc((size_t)w * sizeof *in);
    void *in_bits = malloc((size_t)w * ref_dtype_size(dtype));
    void *got = malloc((size_t)ow * ref_dtype_size(dtype));
    int64_t *got_idx = malloc((size_t)ow * sizeof *got_idx);
    ck_assert(in && in_bits && got && got_idx);
    for (int64_t x = 0; x < w; ++x) { /* distinct small values, the maximum not at an end */
        in[x] = (double)((x * 37 + 11) % 101) - 50.0;
        ref_store(dtype, in_bits, x, in[x]);
    }
    cu_assert_ok(clpool_maxpool_host(cu_ctx, &c.params, dtype, &c.shape, in_bits, got, with_indices ? got_idx : NULL),
                 "clpool_maxpool_host", "extreme");
    for (int64_t o = 0; o < ow; ++o) {
        const __int128 s = (__int128)o * stride - pad_begin;
        int64_t best = -1;
        for (int64_t x = 0; x < w; ++x) {
            const __int128 t = ((__int128)x - s) / dilation;
            if (x - s >= 0 && ((__int128)x - s) % dilation == 0 && t < k && (best < 0 || in[x] > in[best])) best = x;
        }
        cu_expect(best >= 0, "output %lld has no tap", (long long)o);
        cu_expect(ref_load(dtype, got, o) == in[best], "%s w %lld k %lld d %lld pads %lld/%lld: output %lld is %g, expected %g",
                  clpool_dtype_name(dtype), (long long)w, (long long)k, (long long)dilation, (long long)pad_begin,
                  (long long)pad_end, (long long)o, ref_load(dtype, got, o), in[best]);
        if (with_indices)
            cu_expect(got_idx[o] == best, "index %lld is %lld, expected %lld", (long long)o, (long long)got_idx[o],
                      (long long)best);
    }
    free(in);
    free(in_bits);
    free(got);
    free(got_idx);
}

START_TEST(test_extreme_attributes)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_INT8};
    const int64_t huge_dilation = 3 * ((int64_t)1 << 61);
    for (int t = 0; t < 2; ++t) {
        if (!cu_dtype_runs(dtypes[t], "MaxPool")) continue;
        for (int with_indices = 0; with_indices <= 1; ++with_indices) {
            extreme_case(dtypes[t], 4, (int64_t)1 << 20, 1, 1, ((int64_t)1 << 20) - 1, ((int64_t)1 << 20) - 1, with_indices);
            extreme_case(dtypes[t], 1, 2, 1, huge_dilation, huge_dilation, 0, with_indices);
            extreme_case(dtypes[t], 1000, 922337203685477580LL, 1, 10, 9223372036854774802LL, 0, with_indices);
            extreme_case(dtypes[t], 4, ((int64_t)1 << 40) + 4, 1, 1, (int64_t)1 << 40, 0, with_indices);
        }
    }
}
END_TEST

/*
 * Windows over whole planes (one output per plane, every element a tap):
 * float types without Indices take GlobalMaxPool's kernels, the rest the
 * MaxPool kernels, and all must match the reference on random inputs with
 * NaNs, infinities and signed zeros. Look-alikes whose one window misses
 * each plane's last element (a kernel one short, a dilation that skips it,
 * a stride past it) must not: there that element is the plane's maximum.
 */
START_TEST(test_whole_plane_windows)
{
    static const struct {
        int32_t ns;
        int64_t dims[3], k[3], stride[3], dil[3], pad_begin[3], pad_end[3];
        int32_t ceil_mode, misses_last;
    } cases[] = {
        {2, {7, 7}, {7, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 0, 0},
        {2, {13, 13}, {15, 15}, {20, 20}, {1, 1}, {2, 2}, {0, 0}, 0, 0},
        {3, {5, 1, 6}, {5, 1, 6}, {1, 1, 1}, {1, 3, 1}, {0, 0, 0}, {0, 0, 0}, 0, 0},
        {1, {40}, {40}, {1}, {1}, {0}, {0}, 0, 0},
        {2, {9, 9}, {9, 9}, {4, 4}, {1, 1}, {0, 0}, {0, 0}, 1, 0},
        {2, {8, 8}, {7, 7}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, 0, 1},
        {2, {8, 8}, {4, 4}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 0, 1},
        {1, {10}, {9}, {5}, {1}, {0}, {0}, 0, 1},
        {1, {8}, {8}, {1}, {2}, {0}, {7}, 0, 1}, /* reaches past the end, but dilated */
        {1, {8}, {8}, {2}, {1}, {1}, {0}, 0, 1}, /* as long as the plane, but shifted by the pad */
    };
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT16, CLPOOL_INT8, CLPOOL_FLOAT64, CLPOOL_BFLOAT16, CLPOOL_FLOAT32};
    ref_rng r;
    ref_rng_seed(&r, 0x3301);
    /* float32 without Indices (GlobalMaxPool's kernels where the windows
     * are whole planes) and one more dtype per case both ways, rotating:
     * each MaxPool variant is a program build. */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        for (int run = 0; run < 3; ++run) {
            const clpool_dtype dtype = run == 0 ? CLPOOL_FLOAT32 : dtypes[i % (sizeof dtypes / sizeof dtypes[0])];
            const int with_indices = run == 2;
            if (!cu_dtype_runs(dtype, "MaxPool")) continue;
            {
                int64_t dims[CLPOOL_MAX_RANK] = {2, 3};
                const int32_t ns = cases[i].ns;
                memcpy(dims + 2, cases[i].dims, (size_t)ns * sizeof *dims);
                mp_case c = make_case(dtype, ns + 2, dims, cases[i].k);
                clpool_maxpool_params *p = &c.params;
                for (int32_t d = 0; d < ns; ++d) {
                    p->strides[d] = cases[i].stride[d];
                    p->dilations[d] = cases[i].dil[d];
                    p->pads[d] = cases[i].pad_begin[d];
                    p->pads[ns + d] = cases[i].pad_end[d];
                }
                p->ceil_mode = cases[i].ceil_mode;
                c.with_indices = with_indices;
                clpool_shape out;
                ck_assert_int_eq(ref_maxpool_shape(&c.shape, p, &out, NULL, NULL, 0), 0);
                ck_assert_int_eq(ref_shape_elements(&out), 6); /* one output per plane */
                const int64_t n = ref_shape_elements(&c.shape), plane = n / 6;
                void *input = malloc((size_t)n * ref_dtype_size(c.dtype));
                ck_assert_ptr_nonnull(input);
                if (cases[i].misses_last) { /* small values, each plane's maximum last */
                    for (int64_t e = 0; e < n; ++e)
                        ref_store(c.dtype, input, e, e % plane == plane - 1 ? 100.0 : (double)(e % 7) - 3.0);
                } else {
                    fill_random(&r, c.dtype, input, n);
                }
                run_case(&c, input);
                free(input);
            }
        }
    }
}
END_TEST

/* A CPU driver whose work-items run their vectors as SIMD (PoCL: CPU type,
 * native float width > 1), where the library sweeps rows and streams stores
 * (and, given 512-bit vectors, takes the flat path). */
/* The planner's view of the suite's device. */
static clpool__device_caps device_caps(void)
{
    clpool__device_caps caps;
    clpool__device_caps_of(cu_ctx, &caps);
    return caps;
}

/* A CPU driver whose work-items run their vectors as SIMD (PoCL): the plane, flat and row-sweep paths' device. */
static int simd_cpu_device(void) { return device_caps().cpu_simd; }

/* The row of a path test: on a device the path is planned for (CPU SIMD of `vector_bytes` or more), a case
 * must be planned onto `path`, its first `sweeps` launches sweeping rows (sizes2d.sweep), before it runs;
 * elsewhere it runs wherever the planner sends it. This suite runs with tiers off, so the plan is what runs. */
typedef struct path_row {
    clpool__path path;
    uint32_t vector_bytes;
    int sweeps;
} path_row;

static void assert_planned(const mp_case *c, path_row row)
{
    const clpool__device_caps caps = device_caps();
    if (!caps.cpu_simd || caps.vector_bytes < row.vector_bytes) return;
    clpool__pool_desc d;
    ck_assert_int_eq(clpool__maxpool_describe(&c->shape, &c->params, c->dtype, c->with_indices, "assert_planned", &d),
                     CLPOOL_SUCCESS);
    d.in_limit = clpool__window_in_elements(&d.w);
    clpool__plan plan;
    clpool__maxpool_plan_call(&caps, &d, &plan);
    char desc[1024];
    describe(c, desc, sizeof desc);
    int sweeps = 0;
    while (sweeps < plan.launches && plan.launch[sweeps].path == CLPOOL__PATH_MAXPOOL_2D &&
           plan.launch[sweeps].block.sizes2d.sweep > 0)
        ++sweeps;
    ck_assert_msg(plan.path == row.path && sweeps >= row.sweeps, "%s: planned %s, %d launches sweeping; the test targets %s, %d",
                  desc, clpool__families[plan.path].name, sweeps, clpool__families[row.path].name, row.sweeps);
}

/*
 * Windows over whole planes with Indices in float32 and float64, which on
 * CPUs take GlobalMaxPool's 16 planes per work-item and then look for each
 * maximum's first position (global_max_pool_indices): enough planes to fill
 * the device, the last group of 16 short; planes of 16 to 784 elements over
 * 1 to 4 spatial dims (dims of 1; 4-D column-major Indices keep the MaxPool
 * kernels), windows longer than the plane with pads; both storage orders;
 * offsets. Each plane is random (ties), or only zeros of both signs and
 * negatives (the first zero's sign and position), or clean with one NaN
 * planted, or with its one maximum first or last. Devices without SIMD
 * work-items run the first two cases.
 */
START_TEST(test_whole_plane_indices)
{
    static const struct {
        int32_t ns;
        int64_t n, c, dims[4], k[4], pad_begin;
    } cases[] = {
        {2, 2, 100, {28, 28}, {28, 28}, 0}, {2, 1, 130, {7, 7}, {7, 7}, 0},       {2, 3, 50, {4, 4}, {4, 4}, 0},
        {1, 1, 200, {37}, {37}, 0},         {3, 1, 140, {3, 4, 5}, {3, 4, 5}, 0}, {3, 2, 70, {1, 5, 6}, {1, 5, 6}, 0},
        {4, 1, 130, {2, 3, 2, 3}, {2, 3, 2, 3}, 0}, {2, 1, 150, {7, 9}, {9, 11}, 1},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x3311);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        /* Elsewhere these calls keep the MaxPool kernels, a program build per case, which
         * test_whole_plane_windows covers: two cases. */
        if (i >= 2 && !simd_cpu_device()) break;
        for (int run = 0; run < 2; ++run) {
            const clpool_dtype dtype = (i + run) % 2 ? CLPOOL_FLOAT64 : CLPOOL_FLOAT32;
            if (!cu_dtype_runs(dtype, "MaxPool")) continue;
            const int32_t ns = cases[i].ns;
            int64_t dims[CLPOOL_MAX_RANK] = {cases[i].n, cases[i].c};
            memcpy(dims + 2, cases[i].dims, (size_t)ns * sizeof *dims);
            mp_case c = make_case(dtype, ns + 2, dims, cases[i].k);
            for (int32_t d = 0; d < ns; ++d) { /* pads that make the longer window cover the plane */
                c.params.pads[d] = cases[i].pad_begin;
                c.params.pads[ns + d] = cases[i].k[d] - cases[i].dims[d] - cases[i].pad_begin;
            }
            c.params.storage_order = run;
            if (run) c.in_off = c.out_off = 0;
            const int64_t n = ref_shape_elements(&c.shape), planes = cases[i].n * cases[i].c, size = n / planes;
            void *input = malloc((size_t)n * ref_dtype_size(dtype));
            ck_assert_ptr_nonnull(input);
            fill_random(&r, dtype, input, n);
            for (int64_t p = 0; p < planes; ++p) {
                const int64_t at0 = p * size, mode = ref_rng_range(&r, 0, 4);
                for (int64_t e = at0; mode && e < at0 + size; ++e) {
                    const double v = mode == 1 ? (double[]){0.0, -0.0, -1.0, -INFINITY}[ref_rng_range(&r, 0, 3)]
                                               : (double)ref_rng_range(&r, -5, 5);
                    ref_store(dtype, input, e, v);
                }
                if (mode == 2)
                    ref_store_bits(dtype, input, at0 + ref_rng_range(&r, 0, size - 1),
                                   cu_nan_patterns(dtype)[ref_rng_range(&r, 0, CU_N_NAN - 1)]);
                if (mode >= 3) ref_store(dtype, input, mode == 3 ? at0 : at0 + size - 1, 9.0);
            }
            run_case(&c, input);
            free(input);
        }
    }
}
END_TEST

/*
 * Windows of 8 to 13 on the 2-D kernel (SPP's 9x9 and 13x13 at stride 1
 * with "same" pads, and uneven ones at stride 2), on random inputs with
 * inf and signed zeros and, for float types, at least two NaNs (so the fast
 * path hands blocks to the exact path, which covers fewer rows per work-item
 * for large windows); float32 and int8 with and without Indices, the
 * rest one way (each case is a program build, slow on a cold rusticl cache).
 * Without Indices int8 13x13 runs the 2-D kernel; with them it has more
 * taps than a 1-byte tap index holds and must take the general kernel.
 */
START_TEST(test_large_windows)
{
    static const struct {
        clpool_dtype dtype;
        int64_t kh, kw, stride, pad;
        int indices_from, indices_to;
    } windows[] = {
        {CLPOOL_FLOAT32, 9, 9, 1, 4, 0, 1}, {CLPOOL_FLOAT32, 13, 13, 1, 6, 0, 1}, {CLPOOL_FLOAT16, 9, 9, 1, 4, 1, 1},
        {CLPOOL_INT8, 13, 13, 1, 6, 0, 1},  {CLPOOL_FLOAT64, 8, 11, 2, 3, 1, 1},  {CLPOOL_UINT8, 11, 8, 2, 5, 0, 0},
        {CLPOOL_BFLOAT16, 13, 2, 1, 0, 1, 1},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x3101);
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; ++i) {
        if (!cu_dtype_runs(windows[i].dtype, "MaxPool")) continue;
        for (int with_indices = windows[i].indices_from; with_indices <= windows[i].indices_to; ++with_indices) {
            mp_case c;
            random_case(&r, windows[i].dtype, 2, &c);
            clpool_maxpool_params *p = &c.params;
            c.shape.dims[2] = ref_rng_range(&r, windows[i].kh, 30);
            c.shape.dims[3] = ref_rng_range(&r, windows[i].kw, 60);
            p->kernel_shape[0] = windows[i].kh;
            p->kernel_shape[1] = windows[i].kw;
            p->auto_pad = CLPOOL_AUTO_PAD_NOTSET;
            p->ceil_mode = 0;
            for (int d = 0; d < 2; ++d) {
                p->strides[d] = windows[i].stride;
                p->dilations[d] = 1;
                p->pads[d] = p->pads[2 + d] = windows[i].pad;
            }
            c.with_indices = with_indices;
            if (ref_rng_chance(&r, 0.5)) c.in_off = 0; /* rows at the buffer's very start */
            const int64_t n = ref_shape_elements(&c.shape);
            void *input = malloc((size_t)n * ref_dtype_size(c.dtype));
            ck_assert_ptr_nonnull(input);
            fill_random(&r, c.dtype, input, n);
            for (int k = 0; k < 2 && ref_dtype_is_float(c.dtype); ++k)
                ref_store_bits(c.dtype, input, ref_rng_range(&r, 0, n - 1), cu_nan_patterns(c.dtype)[k]);
            run_case(&c, input);
            free(input);
        }
    }
}
END_TEST

/*
 * Stride-1 windows without Indices, which on CPUs with 512-bit vectors take
 * the plane path (a band of output rows per work-item through private
 * arrays): every dtype; square and one-sided windows of 5 to 13 taps (direct
 * and log-step combines); asymmetric pads, ceil_mode and auto_pad; rows
 * narrower than a vector (one vector read past the row's end, through a
 * private copy where that would leave the buffer: tight_input); planes
 * taller than a band; random inputs with NaN, -0 and infinities (bands
 * redone by the exact path) and clean ones. On other devices they run the
 * 2-D path. Each row asserts the planned path before a case runs: calls
 * whose output rows are as wide as the input's (SAME, rep 2) take the flat
 * path in types of at most 4 bytes, save 1-byte rows over 127, so rep 2 stays
 * on the plane path only for float64 and the 300- to 420-wide uint8 rows.
 */
START_TEST(test_plane_path)
{
#define PLANE CLPOOL__PATH_MAXPOOL_PLANE
#define FLAT CLPOOL__PATH_MAXPOOL_FLAT
    static const struct {
        clpool_dtype dtype;
        int64_t kh, kw, h_lo, h_hi, w_lo, w_hi;
        clpool__path same; /* rep 2's path */
    } windows[] = {
        {CLPOOL_FLOAT32, 13, 13, 13, 40, 13, 40, FLAT},  {CLPOOL_FLOAT32, 13, 7, 13, 24, 2, 12, FLAT},
        {CLPOOL_FLOAT32, 13, 5, 40, 60, 20, 34, FLAT},   {CLPOOL_FLOAT64, 9, 9, 9, 20, 9, 30, PLANE},
        {CLPOOL_FLOAT16, 5, 5, 5, 40, 5, 40, FLAT},      {CLPOOL_FLOAT16, 5, 9, 30, 50, 250, 320, FLAT},
        {CLPOOL_BFLOAT16, 12, 7, 12, 30, 3, 30, FLAT},   {CLPOOL_INT8, 5, 5, 5, 30, 2, 70, FLAT},
        {CLPOOL_INT8, 13, 13, 13, 30, 13, 30, FLAT},     {CLPOOL_UINT8, 7, 5, 7, 40, 300, 420, PLANE},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x3201);
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; ++i) {
        if (!cu_dtype_runs(windows[i].dtype, "MaxPool")) continue;
        for (int rep = 0; rep < 3; ++rep) {
            mp_case c;
            random_case(&r, windows[i].dtype, 2, &c);
            clpool_maxpool_params *p = &c.params;
            c.shape.dims[2] = ref_rng_range(&r, windows[i].h_lo, windows[i].h_hi);
            c.shape.dims[3] = ref_rng_range(&r, windows[i].w_lo, windows[i].w_hi);
            p->kernel_shape[0] = windows[i].kh;
            p->kernel_shape[1] = windows[i].kw;
            p->auto_pad = rep == 2 ? CLPOOL_AUTO_PAD_SAME_UPPER : CLPOOL_AUTO_PAD_NOTSET;
            p->ceil_mode = rep == 1;
            for (int d = 0; d < 2; ++d) {
                p->strides[d] = 1;
                p->dilations[d] = 1;
                /* pads below the kernel that let it fit where the input alone does not */
                const int64_t k = p->kernel_shape[d], need = k - c.shape.dims[2 + d];
                int64_t begin = ref_rng_range(&r, 0, k - 1);
                if (need - begin > k - 1) begin = need - (k - 1);
                p->pads[d] = rep == 2 ? 0 : begin;
                p->pads[2 + d] = rep == 2 ? 0 : ref_rng_range(&r, need - begin > 0 ? need - begin : 0, k - 1);
                /* output rows as wide as the input's are the flat path's: one column more or less */
                if (d == 1 && rep != 2 && p->pads[1] + p->pads[3] == k - 1) p->pads[3] += p->pads[3] < k - 1 ? 1 : -1;
            }
            c.with_indices = 0;
            if (rep == 0) c.in_off = 0; /* rows at the buffer's very start */
            c.tight_input = rep == 1;    /* and at its very end */
            assert_planned(&c, (path_row){rep == 2 ? windows[i].same : PLANE, 64, 0});
            run_random_input(&r, &c);
        }
    }
}
END_TEST
#undef PLANE
#undef FLAT

/*
 * Stride-1 windows without Indices whose output rows are as wide as the
 * input's, which on CPUs with 512-bit vectors take the flat path (a band of
 * output rows per work-item run as one flat run of elements) where column
 * blocks would idle or the plane path would take them; elsewhere the 2-D or
 * plane paths. float32 twice, then a 1-byte type and a 16-bit float (their
 * lanes 64 and 32 wide, the 16-bit floats as order keys, -0 watched; only
 * where work-items are SIMD).
 * Kernels of 1 to 13, every left pad that keeps OW == W (even kernels:
 * uneven pads; rep 3: SAME_UPPER or SAME_LOWER), random top and bottom pads;
 * rows narrower than a vector and rows of 17-23 and 33-35 (a flat vector
 * spans rows); windows of 9 and 13 on wider rows; planes taller than a band
 * (several bands a plane, the later ones starting inside it); rows at the
 * buffer's very start (reps 0 and 3, in_off 0) and end (reps 1 and 2,
 * tight_input); random inputs with NaN, -0 and infinities (bands redone by
 * the exact path) and clean ones.
 */
START_TEST(test_flat_path)
{
    static const struct {
        int64_t kh, kw, h_lo, h_hi, w[3];
    } windows[] = {
        {5, 5, 5, 30, {20, 19, 7}},    {3, 3, 1, 40, {17, 10, 33}},    {13, 13, 13, 30, {20, 13, 40}},
        {9, 9, 9, 70, {64, 23, 11}},   {4, 2, 2, 30, {18, 21, 9}},     {1, 6, 1, 20, {22, 34, 8}},
        {7, 1, 200, 420, {20, 17, 9}}, {5, 5, 210, 260, {19, 20, 18}}, {12, 4, 12, 40, {35, 1, 5}},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x3251);
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; ++i) {
        for (int rep = 0; rep < 4; ++rep) {
            const clpool_dtype dtype = rep < 2 ? CLPOOL_FLOAT32
                                       : rep == 2 ? (i % 2 ? CLPOOL_UINT8 : CLPOOL_INT8)
                                                  : (i % 2 ? CLPOOL_BFLOAT16 : CLPOOL_FLOAT16);
            if (!cu_dtype_runs(dtype, "MaxPool")) continue;
            /* Without SIMD work-items the 1- and 2-byte reps would only repeat test_plane_path's
             * and the random tests' paths, a program build each (slow on rusticl). */
            if (rep >= 2 && !simd_cpu_device()) continue;
            mp_case c;
            random_case(&r, dtype, 2, &c);
            clpool_maxpool_params *p = &c.params;
            const int64_t kh = windows[i].kh, kw = windows[i].kw, H = ref_rng_range(&r, windows[i].h_lo, windows[i].h_hi);
            c.shape.dims[2] = H;
            c.shape.dims[3] = windows[i].w[rep % 3];
            p->kernel_shape[0] = kh;
            p->kernel_shape[1] = kw;
            p->auto_pad = rep < 3 ? CLPOOL_AUTO_PAD_NOTSET
                          : ref_rng_chance(&r, 0.5) ? CLPOOL_AUTO_PAD_SAME_UPPER : CLPOOL_AUTO_PAD_SAME_LOWER;
            p->ceil_mode = rep == 1;
            for (int d = 0; d < 2; ++d) {
                p->strides[d] = 1;
                p->dilations[d] = 1;
            }
            /* across: kw - 1 in all (OW == W), split at random; down: any pads that let the kernel fit */
            const int64_t need = kh - H;
            int64_t top = ref_rng_range(&r, 0, kh - 1);
            if (need - top > kh - 1) top = need - (kh - 1);
            const int64_t left = ref_rng_range(&r, 0, kw - 1);
            p->pads[0] = rep == 3 ? 0 : top;
            p->pads[2] = rep == 3 ? 0 : ref_rng_range(&r, need - top > 0 ? need - top : 0, kh - 1);
            p->pads[1] = rep == 3 ? 0 : left;
            p->pads[3] = rep == 3 ? 0 : kw - 1 - left;
            c.with_indices = 0;
            if (rep == 0 || rep == 3) c.in_off = 0; /* rows at the buffer's very start */
            c.tight_input = rep == 1 || rep == 2;    /* and at its very end */
            const int64_t n = ref_shape_elements(&c.shape);
            void *input = malloc((size_t)n * ref_dtype_size(dtype));
            ck_assert_ptr_nonnull(input);
            fill_random(&r, dtype, input, n);
            if (dtype == CLPOOL_FLOAT16 || dtype == CLPOOL_BFLOAT16) {
                /* Each of the two watches alone: float16 without NaN, with pairs of -0 and +0;
                 * bfloat16 without -0, with pairs of unlike NaNs. The pairs lie side by side and
                 * one above the other, in both orders. The keys rank -0 below +0 and one NaN
                 * above another, so only the watch (of -0 in the input, of a NaN key on top
                 * of an output) sends such bands to the exact path, which keeps a window's
                 * first zero or NaN. */
                const int nan_pairs = dtype == CLPOOL_BFLOAT16;
                for (int64_t e = 0; e < n; ++e) {
                    const uint64_t bits = ref_load_bits(dtype, input, e);
                    if (nan_pairs ? bits == 0x8000u : ref_load(dtype, input, e) != ref_load(dtype, input, e))
                        ref_store(dtype, input, e, 0.0);
                }
                const int64_t W = c.shape.dims[3];
                const uint64_t first[2] = {nan_pairs ? cu_nan_patterns(dtype)[0] : 0x8000u,
                                           nan_pairs ? cu_nan_patterns(dtype)[1] : 0x0000u};
                for (int pair = 0; pair < 4; ++pair) {
                    const int64_t step = pair < 2 ? 1 : W, e = ref_rng_range(&r, 0, n - 1 - step);
                    ref_store_bits(dtype, input, e, first[pair % 2]);
                    ref_store_bits(dtype, input, e + step, first[1 - pair % 2]);
                }
            }
            assert_planned(&c, (path_row){CLPOOL__PATH_MAXPOOL_FLAT, 64, 0});
            run_case(&c, input);
            free(input);
        }
    }
}
END_TEST

/*
 * Pooling the library runs through the 2-D kernels under 2-D views (1-D
 * pooling as rows of height 1; N-D windows of 1 in the leading dims folded
 * into the planes, and runs of them between wider ones merged into one dim; 3-D windows in two passes, the last two dims, then the
 * first, with row-major Indices mapped through the first pass's), and
 * look-alikes that keep the general kernel (column-major Indices over 3
 * dims): random attributes, Indices in both storage orders.
 */
START_TEST(test_2d_views)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT16, CLPOOL_INT8, CLPOOL_FLOAT64};
    static const struct {
        int32_t rank;
        int64_t dims[6];
        int lead_window;   /* 0: windows of 1 on the leading dims (2 strided); 1: random; 3: windows on the first
                              and last dims only; 4: on the first only (the dims passed through merge) */
        int storage_order; /* -1: random */
    } shapes[] = {
        {3, {2, 3, 37}, 0, -1},          {3, {1, 2, 300}, 0, -1},       {3, {3, 1, 1}, 0, -1},
        {5, {2, 2, 3, 9, 40}, 0, 0},     {5, {1, 3, 4, 30, 17}, 0, 0},  {6, {1, 2, 2, 3, 8, 20}, 0, 0},
        {5, {1, 2, 3, 10, 12}, 0, 1},    {5, {2, 1, 5, 7, 18}, 2, -1},  {5, {2, 3, 6, 9, 11}, 1, -1},
        {5, {1, 2, 9, 20, 33}, 1, -1},   {5, {2, 1, 5, 6, 7}, 4, -1},   {6, {1, 2, 4, 3, 2, 9}, 3, 0},
        {6, {1, 3, 5, 3, 4, 12}, 3, 0},
    };
    ref_rng r;
    ref_rng_seed(&r, 0x3301);
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        if (!cu_dtype_runs(dtypes[t], "MaxPool")) continue;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
            /* Each shape in one of the dtypes, in turn: the views are the host's, and each
             * (shape, dtype) is a program build per Indices choice. */
            if (i % 4 != t) continue;
            for (int rep = 0; rep < 4; ++rep) {
                const int32_t rank = shapes[i].rank, ns = rank - 2, first = ns == 1 ? 0 : ns - 2;
                const int lead = shapes[i].lead_window;
                mp_case c;
                random_case(&r, dtypes[t], ns, &c);
                clpool_maxpool_params *p = &c.params;
                memcpy(c.shape.dims, shapes[i].dims, sizeof shapes[i].dims);
                p->auto_pad = rep == 3 ? CLPOOL_AUTO_PAD_SAME_LOWER : CLPOOL_AUTO_PAD_NOTSET;
                p->ceil_mode = rep == 2;
                /* one window per shape and dtype (the reps' pads, modes and Indices vary) */
                ref_rng w;
                ref_rng_seed(&w, 0x3301 + 16 * (uint64_t)i + t);
                for (int32_t d = 0; d < ns; ++d) {
                    const int64_t in = c.shape.dims[2 + d];
                    const int window = lead == 3 ? d == 0 || d == ns - 1 : lead == 4 ? d == 0 : d >= first || lead == 1;
                    p->kernel_shape[d] = window ? ref_rng_range(&w, 1, in < 5 ? in : 5) : 1;
                    p->strides[d] = window ? ref_rng_range(&w, 1, 2) : lead == 2 ? 2 : 1;
                    p->dilations[d] = 1;
                    const int64_t k = p->kernel_shape[d];
                    p->pads[d] = rep == 3 ? 0 : ref_rng_range(&r, 0, k - 1);
                    p->pads[ns + d] = rep == 3 ? 0 : ref_rng_range(&r, 0, k - 1);
                }
                c.with_indices = rep != 1 && (lead != 1 || rep == 0);
                /* and one storage order: each is a program of its own */
                p->storage_order = shapes[i].storage_order >= 0 ? shapes[i].storage_order : (int32_t)ref_rng_range(&w, 0, 1);
                run_random_input(&r, &c);
            }
        }
    }
}
END_TEST

START_TEST(test_host_api)
{
    random_suite(CLPOOL_FLOAT32, 0x3001, 1, 3, 6, API_HOST);
    random_suite(CLPOOL_BFLOAT16, 0x3002, 2, 2, 6, API_HOST);
    random_suite(CLPOOL_UINT8, 0x3003, 1, 2, 6, API_HOST);
}
END_TEST

/* ------------------------------------------------- ONNX spot checks */

/* Runs a hand-computed case: values given as doubles (exact in every dtype used). */
static void spot(mp_case *c, const double *in_values, const int64_t *out_dims, const double *out_values,
                 const int64_t *out_idx)
{
    const int64_t n_in = ref_shape_elements(&c->shape);
    clpool_shape out_shape = c->shape;
    int64_t n_out = out_dims[0] * out_dims[1];
    for (int32_t i = 0; i < c->shape.rank; ++i) out_shape.dims[i] = out_dims[i];
    for (int32_t i = 2; i < c->shape.rank; ++i) n_out *= out_dims[i];
    const size_t esize = ref_dtype_size(c->dtype);
    void *input = malloc((size_t)n_in * esize + 1), *expect = malloc((size_t)n_out * esize + 1);
    ck_assert(input && expect);
    for (int64_t i = 0; i < n_in; ++i) ref_store(c->dtype, input, i, in_values[i]);
    for (int64_t i = 0; i < n_out; ++i) ref_store(c->dtype, expect, i, out_values[i]);
    for (int api = API_ENQUEUE; api <= API_HOST; ++api) {
        c->api = (run_api)api;
        run_case_expect(c, input, &out_shape, expect, out_idx);
    }
    free(input);
    free(expect);
}

static const double seq25[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                               18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
                               35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50};

/* onnx test_maxpool_2d_ceil_output_size_reduce_by_one and test_maxpool_2d_ceil. */
START_TEST(test_onnx_ceil_mode)
{
    mp_case c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 2, 2}, (int64_t[]){1, 1});
    c.params.strides[0] = c.params.strides[1] = 2;
    c.params.ceil_mode = 1;
    spot(&c, seq25, (int64_t[]){1, 1, 1, 1}, (double[]){1}, (int64_t[]){0});

    c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 4, 4}, (int64_t[]){3, 3});
    c.params.strides[0] = c.params.strides[1] = 2;
    c.params.ceil_mode = 1;
    spot(&c, seq25, (int64_t[]){1, 1, 2, 2}, (double[]){11, 12, 15, 16}, (int64_t[]){10, 11, 14, 15});
    c.params.ceil_mode = 0;
    spot(&c, seq25, (int64_t[]){1, 1, 1, 1}, (double[]){11}, (int64_t[]){10});

    /* VALID honours ceil_mode: in 5, kernel 2, stride 2 -> windows [0,1] [2,3] [4]. */
    c = make_case(CLPOOL_FLOAT32, 3, (int64_t[]){1, 1, 5}, (int64_t[]){2});
    c.params.strides[0] = 2;
    c.params.auto_pad = CLPOOL_AUTO_PAD_VALID;
    c.params.ceil_mode = 1;
    spot(&c, seq25, (int64_t[]){1, 1, 3}, (double[]){2, 4, 5}, (int64_t[]){1, 3, 4});
    c.params.ceil_mode = 0;
    spot(&c, seq25, (int64_t[]){1, 1, 2}, (double[]){2, 4}, (int64_t[]){1, 3});
}
END_TEST

START_TEST(test_onnx_same_upper_lower)
{
    /* in 1..5, kernel 2, stride 1: total pad 1, UPPER puts it last, LOWER first. */
    mp_case c = make_case(CLPOOL_FLOAT32, 3, (int64_t[]){1, 1, 5}, (int64_t[]){2});
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
    spot(&c, seq25, (int64_t[]){1, 1, 5}, (double[]){2, 3, 4, 5, 5}, (int64_t[]){1, 2, 3, 4, 4});
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    spot(&c, seq25, (int64_t[]){1, 1, 5}, (double[]){1, 2, 3, 4, 5}, (int64_t[]){0, 1, 2, 3, 4});

    /* kernel 2, stride 2: out 3, total 1. */
    c.params.strides[0] = 2;
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
    spot(&c, seq25, (int64_t[]){1, 1, 3}, (double[]){2, 4, 5}, (int64_t[]){1, 3, 4});
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    spot(&c, seq25, (int64_t[]){1, 1, 3}, (double[]){1, 3, 5}, (int64_t[]){0, 2, 4});

    /* Dilated kernel: k 2, d 3 -> e 4, total 3; UPPER begins with 1, LOWER with 2. */
    c.params.strides[0] = 1;
    c.params.dilations[0] = 3;
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
    spot(&c, seq25, (int64_t[]){1, 1, 5}, (double[]){3, 4, 5, 3, 4}, (int64_t[]){2, 3, 4, 2, 3});
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    spot(&c, seq25, (int64_t[]){1, 1, 5}, (double[]){2, 3, 4, 5, 3}, (int64_t[]){1, 2, 3, 4, 2});

    /* onnx test_maxpool_2d_same_upper / _same_lower (5x5, kernel 2x2). */
    c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 5, 5}, (int64_t[]){2, 2});
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
    static const double upper[] = {7,  8,  9,  10, 10, 12, 13, 14, 15, 15, 17, 18, 19,
                                   20, 20, 22, 23, 24, 25, 25, 22, 23, 24, 25, 25};
    int64_t idx[25];
    for (int i = 0; i < 25; ++i) idx[i] = (int64_t)upper[i] - 1;
    spot(&c, seq25, (int64_t[]){1, 1, 5, 5}, upper, idx);
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_LOWER;
    for (int i = 0; i < 25; ++i) idx[i] = i;
    spot(&c, seq25, (int64_t[]){1, 1, 5, 5}, seq25, idx);

    /* onnx test_maxpool_2d_precomputed_same_upper: kernel 3, strides 2. */
    c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 5, 5}, (int64_t[]){3, 3});
    c.params.strides[0] = c.params.strides[1] = 2;
    c.params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
    spot(&c, seq25, (int64_t[]){1, 1, 3, 3}, (double[]){7, 9, 10, 17, 19, 20, 22, 24, 25},
         (int64_t[]){6, 8, 9, 16, 18, 19, 21, 23, 24});
}
END_TEST

/* onnx test_maxpool_2d_dilations. */
START_TEST(test_onnx_dilations)
{
    mp_case c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 4, 4}, (int64_t[]){2, 2});
    c.params.dilations[0] = c.params.dilations[1] = 2;
    spot(&c, seq25, (int64_t[]){1, 1, 2, 2}, (double[]){11, 12, 15, 16}, (int64_t[]){10, 11, 14, 15});
    /* With pads: 1-D in 1..5, kernel 2, dilation 3, pads 2/0 -> windows {1}, {2}, {0,3}, {1,4}. */
    c = make_case(CLPOOL_INT8, 3, (int64_t[]){1, 1, 5}, (int64_t[]){2});
    c.params.dilations[0] = 3;
    c.params.pads[0] = 2;
    spot(&c, seq25, (int64_t[]){1, 1, 4}, (double[]){2, 3, 4, 5}, (int64_t[]){1, 2, 3, 4});
}
END_TEST

START_TEST(test_onnx_storage_order)
{
    /* onnx test_maxpool_with_argmax_2d_precomputed_strides, with a second channel. */
    mp_case c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 2, 5, 5}, (int64_t[]){2, 2});
    c.params.strides[0] = c.params.strides[1] = 2;
    static const double out[] = {7, 9, 17, 19, 32, 34, 42, 44};
    c.params.storage_order = 1; /* h + w*H, plus (n*C + c) * 25 */
    spot(&c, seq25, (int64_t[]){1, 2, 2, 2}, out, (int64_t[]){6, 16, 8, 18, 31, 41, 33, 43});
    c.params.storage_order = 0;
    spot(&c, seq25, (int64_t[]){1, 2, 2, 2}, out, (int64_t[]){6, 8, 16, 18, 31, 33, 41, 43});

    /* Strides 2 down, 1 across: column-major h + 5*w of each 2x2 window's last tap. */
    c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 5, 4}, (int64_t[]){2, 2});
    c.params.strides[0] = 2;
    c.params.storage_order = 1;
    spot(&c, seq25, (int64_t[]){1, 1, 2, 3}, (double[]){6, 7, 8, 14, 15, 16}, (int64_t[]){6, 11, 16, 8, 13, 18});

    /* H != W: identity pooling on 2x3, column-major offsets h + 2*w. */
    c = make_case(CLPOOL_UINT8, 4, (int64_t[]){1, 1, 2, 3}, (int64_t[]){1, 1});
    c.params.storage_order = 1;
    spot(&c, seq25, (int64_t[]){1, 1, 2, 3}, seq25, (int64_t[]){0, 2, 4, 1, 3, 5});

    /* 3-D, spatial 2x2x4, N = 2: kernel 2x2x2 stride 2 -> two windows per sample.
     * Max 5 at (1,0,1), max 7 at (0,1,3). Row-major: 9 and 7; column-major
     * h + w*H + d*H*W (first spatial axis fastest): 1 + 0 + 1*4 = 5, 0 + 1*2 + 3*4 = 14. */
    double in3[32] = {0};
    in3[9] = 5, in3[7] = 7, in3[16 + 9] = 5, in3[16 + 7] = 7;
    c = make_case(CLPOOL_FLOAT16, 5, (int64_t[]){2, 1, 2, 2, 4}, (int64_t[]){2, 2, 2});
    c.params.strides[0] = c.params.strides[1] = c.params.strides[2] = 2;
    c.params.storage_order = 0;
    spot(&c, in3, (int64_t[]){2, 1, 1, 1, 2}, (double[]){5, 7, 5, 7}, (int64_t[]){9, 7, 25, 23});
    c.params.storage_order = 1;
    spot(&c, in3, (int64_t[]){2, 1, 1, 1, 2}, (double[]){5, 7, 5, 7}, (int64_t[]){5, 14, 21, 30});
}
END_TEST

/*
 * Strides that differ between the axes, (1, 2) and (2, 1), on the 2-D kernel
 * without Indices and with them in both orders: a stride taken from the wrong
 * axis moves every window. Random data, one dtype per case in turn.
 */
START_TEST(test_strides_differ_by_axis)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT16, CLPOOL_INT8,
                                          CLPOOL_BFLOAT16, CLPOOL_UINT8,  CLPOOL_FLOAT64};
    ref_rng r;
    ref_rng_seed(&r, 0x5d1f);
    for (int i = 0; i < 6; ++i) {
        if (!cu_dtype_runs(dtypes[i], "MaxPool")) continue;
        mp_case c = make_case(dtypes[i], 4, (int64_t[]){1, 2, 11, 37}, (int64_t[]){2, 3});
        c.params.strides[0] = i % 2 ? 2 : 1;
        c.params.strides[1] = i % 2 ? 1 : 2;
        c.with_indices = i / 2 > 0;
        c.params.storage_order = i / 2 == 2;
        c.params.pads[1] = c.params.pads[3] = 1;
        run_random_input(&r, &c);
    }
}
END_TEST

START_TEST(test_ties_first_wins)
{
    mp_case c = make_case(CLPOOL_FLOAT32, 3, (int64_t[]){1, 1, 6}, (int64_t[]){3});
    spot(&c, (double[]){2, 2, 2, 1, 2, 2}, (int64_t[]){1, 1, 4}, (double[]){2, 2, 2, 2}, (int64_t[]){0, 1, 2, 4});

    /* All equal with pads 1 on every side: the first in-bounds tap wins. */
    static const double sevens[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
    static const double out[16] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
    c = make_case(CLPOOL_BFLOAT16, 4, (int64_t[]){1, 1, 3, 3}, (int64_t[]){2, 2});
    for (int i = 0; i < 4; ++i) c.params.pads[i] = 1;
    spot(&c, sevens, (int64_t[]){1, 1, 4, 4}, out, (int64_t[]){0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8});

    /* Signed zeros tie: the first one's bits are copied. */
    for (size_t t = 0; t < 4; ++t) {
        if (cu_float_dtypes[t] == CLPOOL_FLOAT64 && !cu_device_has_fp64()) continue;
        c = make_case(cu_float_dtypes[t], 3, (int64_t[]){1, 1, 4}, (int64_t[]){2});
        c.params.strides[0] = 2;
        spot(&c, (double[]){-0.0, 0.0, 0.0, -0.0}, (int64_t[]){1, 1, 2}, (double[]){-0.0, 0.0}, (int64_t[]){0, 2});
    }
}
END_TEST

START_TEST(test_nan_windows)
{
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        if (dt == CLPOOL_FLOAT64 && !cu_device_has_fp64()) continue;
        const uint64_t *nan = cu_nan_patterns(dt);
        /* [1, Na, 3, Nb, Nc, -inf, -inf, 2, +inf, Nd], kernel 2, stride 1. */
        static const double in[10] = {1, 0, 3, 0, 0, -INFINITY, -INFINITY, 2, INFINITY, 0};
        static const int nan_at[4] = {1, 3, 4, 9};
        static const double out[9] = {0, 0, 0, 0, 0, -INFINITY, 2, INFINITY, 0};
        static const int64_t idx[9] = {1, 1, 3, 3, 4, 5, 7, 8, 9};
        mp_case c = make_case(dt, 3, (int64_t[]){1, 1, 10}, (int64_t[]){2});
        const size_t es = ref_dtype_size(dt);
        unsigned char input[10 * 8], expect[9 * 8];
        for (int i = 0; i < 10; ++i) ref_store(dt, input, i, in[i]);
        for (int i = 0; i < 9; ++i) ref_store(dt, expect, i, out[i]);
        for (int i = 0; i < 4; ++i) ref_store_bits(dt, input, nan_at[i], nan[i]);
        for (int i = 0; i < 9; ++i)
            if (isnan(ref_load(dt, input, idx[i]))) memcpy(expect + (size_t)i * es, input + (size_t)idx[i] * es, es);
        clpool_shape out_shape = {3, {1, 1, 9}};
        for (int api = API_ENQUEUE; api <= API_HOST; ++api) {
            c.api = (run_api)api;
            run_case_expect(&c, input, &out_shape, expect, idx);
        }

        /* All-NaN window reaching into the padding: kernel 3, pads 1/1 over [Nc, Na]. */
        c = make_case(dt, 3, (int64_t[]){1, 1, 2}, (int64_t[]){3});
        c.params.pads[0] = c.params.pads[1] = 1;
        ref_store_bits(dt, input, 0, nan[2]);
        ref_store_bits(dt, input, 1, nan[0]);
        ref_store_bits(dt, expect, 0, nan[2]);
        ref_store_bits(dt, expect, 1, nan[2]);
        clpool_shape two = {3, {1, 1, 2}};
        run_case_expect(&c, input, &two, expect, (int64_t[]){0, 0});
    }
}
END_TEST

/*
 * Without Indices the 2-D kernel takes a fast path per block (row maxima, one
 * max instruction per combine) unless the block's input holds a NaN, or a -0
 * for float16/bfloat16: such blocks are redone by the exact path. One tensor
 * of zeros and small integers (ties everywhere), then the same with a NaN,
 * with a -0 first in a window of zeros, with a NaN in a block's first
 * window's first column (a broadcast element under -DODD_START, float32
 * 3x3/s2/p1), and combinations, against the reference.
 */
START_TEST(test_fast_path_blocks)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                          CLPOOL_BFLOAT16, CLPOOL_INT8,   CLPOOL_UINT8};
    static const int64_t windows[][3] = {{3, 2, 1}, {2, 2, 0}, {3, 1, 1}}; /* kernel, stride, pad */
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const clpool_dtype dt = dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        const int is_float = dt != CLPOOL_INT8 && dt != CLPOOL_UINT8;
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w) {
            if (!cu_pair_runs(dt, w)) continue;
            const int64_t k = windows[w][0];
            mp_case c = make_case(dt, 4, (int64_t[]){1, 2, 12, 80}, (int64_t[]){k, k});
            c.with_indices = 0;
            c.params.strides[0] = c.params.strides[1] = windows[w][1];
            for (int i = 0; i < 4; ++i) c.params.pads[i] = windows[w][2];
            const int64_t n = 2 * 12 * 80;
            unsigned char input[2 * 12 * 80 * 8];
            for (int variant = 0; variant < (is_float ? 8 : 1); ++variant) {
                for (int64_t i = 0; i < n; ++i) ref_store(dt, input, i, (double)((i * 7 + i / 80) % 5) - 1.0);
                if (variant & 1) ref_store_bits(dt, input, 80 * 12 + 5 * 80 + 40, cu_nan_patterns(dt)[1]);
                /* the first column of the second 16-lane block's first window (3x3/s2/p1), mid-window */
                if (variant & 4) ref_store_bits(dt, input, 6 * 80 + 31, cu_nan_patterns(dt)[0]);
                if (variant & 2) {
                    for (int64_t h = 6; h < 9; ++h)
                        for (int64_t x = 20; x < 31; ++x) ref_store(dt, input, h * 80 + x, 0.0);
                    ref_store(dt, input, 6 * 80 + 22, -0.0);
                }
                run_case(&c, input);
            }
        }
    }
}
END_TEST

/*
 * float16/bfloat16 blocks make order keys (and watch for -0) only from
 * their first row with a set sign bit on: non-negative bits are their own
 * keys. Non-negative ties-rich input with, 7 input rows down (past the
 * first rows a work-item reads), one of: nothing, a -0 first in a window of
 * zeros, each NaN pattern (of either sign), a window of negative values and
 * a -inf; and a plane negative from its first row with that -0. 64 planes keep a
 * work-item on whole planes (its rows stream through the transition).
 */
START_TEST(test_fast_path_sign_rows)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT16, CLPOOL_BFLOAT16};
    static const int64_t windows[][3] = {{3, 2, 1}, {2, 2, 0}, {3, 1, 1}, {5, 1, 2}}; /* kernel, stride, pad */
    enum { C = 64, H = 24, W = 80 };
    const int64_t n = C * H * W;
    unsigned char *input = malloc((size_t)n * 2);
    ck_assert_ptr_nonnull(input);
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const clpool_dtype dt = dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w) {
            if (!cu_pair_runs(dt, w)) continue;
            const int64_t k = windows[w][0];
            mp_case c = make_case(dt, 4, (int64_t[]){1, C, H, W}, (int64_t[]){k, k});
            c.with_indices = 0;
            c.params.strides[0] = c.params.strides[1] = windows[w][1];
            for (int i = 0; i < 4; ++i) c.params.pads[i] = windows[w][2];
            for (int variant = 0; variant < 4 + CU_N_NAN; ++variant) {
                for (int64_t i = 0; i < n; ++i) ref_store(dt, input, i, (double)((i * 7 + i / W) % 5));
                const int64_t plane = (variant % C) * H * W, at = plane + 7 * W + 22;
                if (variant == 3) /* negative from the first row, then the -0 too */
                    for (int64_t i = 0; i < H * W; ++i) ref_store(dt, input, plane + i, -(double)(i % 7 + 1) / 2.0);
                for (int64_t h = 7; h < 10; ++h)
                    for (int64_t x = 20; x < 31; ++x)
                        ref_store(dt, input, plane + h * W + x, variant == 2 ? -2.0 - (double)(x % 3) : 0.0);
                if (variant == 1 || variant == 3) ref_store(dt, input, at, -0.0);
                if (variant == 2) ref_store(dt, input, at, -INFINITY);
                if (variant >= 4) ref_store_bits(dt, input, at, cu_nan_patterns(dt)[variant - 4]);
                run_case(&c, input);
            }
        }
    }
    free(input);
}
END_TEST

/*
 * A block the fast path hands back is redone only in the groups of output
 * rows whose windows hold a NaN (or, for float16/bfloat16, a -0): the other
 * rows keep the fast path's results. Negative ties-rich planes, each with
 * one special value at its own row h (every row of the plane in turn, so the
 * specials fall at every place in the exact path's groups of rows): a NaN
 * pattern, or a -0 just before a +0 (a window holding both has maximum -0,
 * which the 16-bit floats' fast path gets wrong). Planes with a second NaN
 * d = 1..8 rows below the first, in the same columns, check that the scan
 * for the rows after a redone group neither stops nor skips a row the next
 * groups read. A group the redo skipped wrongly keeps the fast path's wrong
 * maximum. With and without Indices (float32/float64: their argmax path also
 * hands NaN blocks back); float16/bfloat16 5x5/s1 takes the plane path on
 * CPUs with 512-bit vectors. Groups of several rows exist only where a
 * work-item's vectors are the device's SIMD (EXACT_ROWS 4, windows up to 3
 * tall); elsewhere each row is its own group.
 */
START_TEST(test_exact_rows_only)
{
    static const int64_t windows[][3] = {{3, 2, 1}, {2, 2, 0}, {3, 1, 1}, {5, 1, 2}}; /* kernel, stride, pad */
    enum { H = 18, W = 70, C = 9 * H }; /* plane p: first special at row p % H, second d = p / H rows below */
    const int64_t n = C * H * W;
    for (size_t t = 0; t < 4; ++t) {
        const clpool_dtype dt = cu_float_dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        const int wide = dt == CLPOOL_FLOAT32 || dt == CLPOOL_FLOAT64; /* with Indices too */
        unsigned char *input = malloc((size_t)n * ref_dtype_size(dt));
        ck_assert_ptr_nonnull(input);
        for (int64_t i = 0; i < n; ++i) ref_store(dt, input, i, -1.0 - (double)((i * 7 + i / W) % 5));
        for (int64_t p = 0; p < C; ++p) {
            const int64_t h = p % H, d = p / H, at = p * H * W + h * W + (p * 13 + 3) % (W - 1);
            if (d > 0 && h + d < H) ref_store_bits(dt, input, at + d * W, cu_nan_patterns(dt)[(p + 1) % CU_N_NAN]);
            if (p % 3 == 0) {
                ref_store_bits(dt, input, at, cu_nan_patterns(dt)[(p / 3) % CU_N_NAN]);
            } else {
                ref_store(dt, input, at, -0.0);
                ref_store(dt, input, at + 1, 0.0);
            }
        }
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w)
            for (int with_indices = 0; with_indices <= wide && cu_pair_runs(dt, w); ++with_indices) {
                const int64_t k = windows[w][0];
                mp_case c = make_case(dt, 4, (int64_t[]){1, C, H, W}, (int64_t[]){k, k});
                c.with_indices = with_indices;
                c.params.strides[0] = c.params.strides[1] = windows[w][1];
                for (int i = 0; i < 4; ++i) c.params.pads[i] = windows[w][2];
                run_case(&c, input);
            }
        free(input);
    }
}
END_TEST

/*
 * Rows outside the plane are never read, whatever lies there: the rows
 * above plane 0 (the input's lead, inside the cl_mem) and the middle plane
 * of three hold values above every other, so a window that took a row from
 * outside its plane returns one. Windows with 1 or 2 padded rows on top in
 * every dtype, in float32 and float64 also with Indices.
 */
START_TEST(test_rows_outside_plane)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                          CLPOOL_BFLOAT16, CLPOOL_INT8,   CLPOOL_UINT8};
    static const int64_t windows[][3] = {{3, 2, 1}, {3, 1, 1}, {5, 1, 2}, {2, 2, 1}}; /* kernel, stride, pad */
    enum { C = 3, H = 12, W = 40 };
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const clpool_dtype dt = dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        /* Indices read rows as the values do; the narrower types' Indices kernels differ only in the element. */
        const int wide = dt == CLPOOL_FLOAT32 || dt == CLPOOL_FLOAT64;
        unsigned char input[C * H * W * 8];
        for (int64_t i = 0; i < C * H * W; ++i)
            ref_store(dt, input, i, (double)((i / (H * W) == 1 ? 100 : 0) + (i * 7 + i / W) % 5));
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w)
            for (int with_indices = 0; with_indices <= wide && cu_pair_runs(dt, w); ++with_indices) {
                const int64_t k = windows[w][0];
                mp_case c = make_case(dt, 4, (int64_t[]){1, C, H, W}, (int64_t[]){k, k});
                c.with_indices = with_indices;
                c.params.strides[0] = c.params.strides[1] = windows[w][1];
                for (int i = 0; i < 4; ++i) c.params.pads[i] = windows[w][2];
                c.in_off = (2 * W + 8) * ref_dtype_size(dt); /* two rows and more above plane 0 */
                c.fill_lead = 1;
                c.lead_value = 120;
                run_case(&c, input);
            }
    }
}
END_TEST

/*
 * Stride 2 under an odd left pad loads rows from the output column times 2:
 * tap 0 of a block's first output is the one element before the loads
 * (-DODD_START, float32 and 16-bit floats), which the columns-first fast path
 * (1- and 2-byte types) also carries down to the next output row. Zeros,
 * with a peak on every odd row just before each block that can start there
 * (output columns 8, 16, ...; 128 outputs a row, so no edge block shifts),
 * higher on higher rows: each window at such a column has its maximum in
 * its top (carried) row's tap 0. 3x3, 3x6 (with the third load) and 4x3 (two
 * carried rows), every dtype.
 */
START_TEST(test_block_first_columns)
{
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                          CLPOOL_BFLOAT16, CLPOOL_INT8,   CLPOOL_UINT8};
    static const int64_t kernels[][2] = {{3, 3}, {3, 6}, {4, 3}};
    enum { C = 2, H = 24, W = 256 };
    unsigned char *input = malloc((size_t)C * H * W * 8);
    ck_assert_ptr_nonnull(input);
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const clpool_dtype dt = dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        for (int64_t i = 0; i < C * H * W; ++i) {
            const int64_t h = i / W % H, w = i % W;
            ref_store(dt, input, i, h % 2 == 1 && w % 16 == 15 ? (double)(20 + H - h) : 0.0);
        }
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
            if (!cu_pair_runs(dt, k)) continue;
            mp_case c = make_case(dt, 4, (int64_t[]){1, C, H, W}, kernels[k]);
            c.with_indices = 0;
            c.params.strides[0] = c.params.strides[1] = 2;
            for (int i = 0; i < 4; ++i) c.params.pads[i] = 1;
            run_case(&c, input);
        }
    }
    free(input);
}
END_TEST

/*
 * Inputs past an eighth of the device's cache (4.5 MiB, over PoCL's 4) whose
 * rows hold many blocks: on CPUs a work-item then sweeps up to 64 column
 * blocks across its rows (edge blocks on both sides, the last block
 * overlapping its neighbour; two work-items a row at 5x5/s1). Ties
 * everywhere, first at the very start of the cl_mem (reads past it are
 * guarded), then with NaNs in the first, a middle and the last block of a
 * row and a -0 first in a window of zeros, whose blocks the exact path
 * redoes; with and without Indices. 3x3/s2 and 2x2/s2 in every dtype (one
 * each for the dtypes of a pair, cu_pair_runs); the
 * stride-1 windows, whose reference is slow (under ASan above all), in
 * fewer: 5x5 in float32 (and float16 and int8 without NaNs or Indices, for
 * their wider blocks), SPP's 13x13 (12 carried rows a block) in float32 without
 * NaNs or Indices (5x5 sweeps the same way with them).
 */
START_TEST(test_row_sweep)
{
    /* The library sweeps only on CPU drivers whose work-items run their vectors as SIMD
     * (PoCL); elsewhere these large cases would repeat test_wide_rows at a cost. */
    if (!simd_cpu_device()) {
        printf("note: the row sweep runs only on CPU drivers with SIMD work-items (PoCL); test_row_sweep skipped\n");
        return;
    }
    enum { F32 = 1, ALL = 63, F16_I8 = 4 | 16 };
    static const clpool_dtype dtypes[] = {CLPOOL_FLOAT32, CLPOOL_FLOAT64, CLPOOL_FLOAT16,
                                          CLPOOL_BFLOAT16, CLPOOL_INT8,   CLPOOL_UINT8};
    static const struct {
        int64_t k, s, p;
        int dtypes, dirty, indices; /* dtypes: bits over dtypes[]; dirty: also with NaNs; indices: also with Indices */
    } windows[] = {{3, 2, 1, ALL, 1, 1}, {2, 2, 0, ALL, 1, 1}, {5, 1, 2, F32, 1, 1},
                   {5, 1, 2, F16_I8, 0, 0}, {13, 1, 6, F32, 0, 0}, {3, 3, 1, F32, 0, 1}};
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        const clpool_dtype dt = dtypes[t];
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        const int is_float = dt != CLPOOL_INT8 && dt != CLPOOL_UINT8;
        const size_t es = ref_dtype_size(dt);
        const int64_t H = 1000, W = (int64_t)((9u << 19) / es / H) | 1; /* 4.5 MiB, odd rows */
        unsigned char *input = malloc((size_t)(H * W) * es);
        ck_assert_ptr_nonnull(input);
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; ++w) {
            if (!(windows[w].dtypes >> t & 1) || (windows[w].dtypes == ALL && !cu_pair_runs(dt, w))) continue;
            const int64_t k = windows[w].k;
            mp_case c = make_case(dt, 4, (int64_t[]){1, 1, H, W}, (int64_t[]){k, k});
            c.params.strides[0] = c.params.strides[1] = windows[w].s;
            for (int i = 0; i < 4; ++i) c.params.pads[i] = windows[w].p;
            for (int dirty = 0; dirty <= (is_float && windows[w].dirty); ++dirty) {
                for (int64_t i = 0; i < H * W; ++i) ref_store(dt, input, i, (double)((i * 7 + i / W) % 5) - 1.0);
                c.in_off = dirty ? 3 * es : 0;
                if (dirty) {
                    ref_store_bits(dt, input, 300 * W + 1, cu_nan_patterns(dt)[0]);  /* first block */
                    ref_store_bits(dt, input, 500 * W + W / 2, cu_nan_patterns(dt)[1]);
                    ref_store_bits(dt, input, 700 * W + W - 2, cu_nan_patterns(dt)[2]); /* last block */
                    for (int64_t h = 600; h < 603; ++h)
                        for (int64_t x = 20; x < 31; ++x) ref_store(dt, input, h * W + x, 0.0);
                    ref_store(dt, input, 600 * W + 22, -0.0);
                }
                /* One reference (it computes the indices anyway) for the runs with and without them. */
                char desc[1024];
                describe(&c, desc, sizeof desc);
                mp_reference ref;
                reference_compute(&c, input, &ref, desc);
                for (c.with_indices = 0; c.with_indices <= windows[w].indices; ++c.with_indices) {
                    describe(&c, desc, sizeof desc);
                    assert_planned(&c, (path_row){CLPOOL__PATH_MAXPOOL_2D, 0, 1});
                    check_library(&c, input, &ref, desc);
                }
                reference_free(&ref);
            }
        }
        free(input);
    }
    /* Under 2-D views (test_2d_views, here beyond the sweep's size threshold): 1-D rows of height 1, and a 3-D
     * window's two passes (float16: float32 takes the one-pass 3-D kernel), whose first sweeps 12 planes (its
     * prefetch runs on into the next plane); at stride 1 the second pass sweeps too (its input, the first
     * pass's output, is past the threshold), and with Indices it maps them through the first pass's as it sweeps. */
    ref_rng r;
    ref_rng_seed(&r, 0x3401);
    static const struct {
        clpool_dtype dtype;
        int32_t rank;
        int64_t dims[5], k, s, p;
        int indices;
        path_row path;
    } views[] = {{CLPOOL_FLOAT32, 3, {1, 3, 700001}, 3, 2, 1, 1, {CLPOOL__PATH_MAXPOOL_2D, 0, 1}},
                 {CLPOOL_FLOAT16, 3, {2, 1, 1200001}, 2, 2, 0, 0, {CLPOOL__PATH_MAXPOOL_2D, 0, 1}},
                 {CLPOOL_FLOAT16, 5, {1, 2, 6, 427, 427}, 3, 2, 1, 0, {CLPOOL__PATH_MAXPOOL_3D_TWO_PASS, 0, 1}},
                 {CLPOOL_FLOAT16, 5, {1, 2, 6, 427, 427}, 3, 1, 1, 1, {CLPOOL__PATH_MAXPOOL_3D_TWO_PASS, 0, 2}}};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; ++v) {
        if (!cu_dtype_runs(views[v].dtype, "MaxPool")) continue;
        const int32_t ns = views[v].rank - 2;
        const int64_t kernel[3] = {views[v].k, views[v].k, views[v].k};
        mp_case c = make_case(views[v].dtype, views[v].rank, views[v].dims, kernel);
        for (int32_t d = 0; d < ns; ++d) {
            c.params.strides[d] = views[v].s;
            c.params.pads[d] = c.params.pads[ns + d] = views[v].p;
        }
        c.with_indices = views[v].indices;
        assert_planned(&c, views[v].path);
        run_random_input(&r, &c);
    }
    /* Rows of exactly two blocks (64 bytes of outputs each, the second overlapping the first), at stride 2: at
     * 2x2, whose windows share no rows, a work-item sweeps from two blocks on; at 3x3/p1 float32 rows are one
     * 32-lane block instead (fast_widen). Every dtype, three random fills (fixed seed: float32 3x3 meets NaN,
     * an exact path that skips its blocks fails), then with Indices (one block of VW lanes, so more of them). */
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        if (!cu_dtype_runs(dtypes[t], "MaxPool")) continue;
        const int64_t es = (int64_t)ref_dtype_size(dtypes[t]), W = 4 * (64 / es) - 3;
        const int64_t H = (9 << 19) / (3 * W * es) + 1; /* 3 planes past 4.5 MiB */
        for (int64_t k = 2; k <= 3; ++k) {
            /* each type of a pair the window it takes above (3x3 is windows[0], 2x2 windows[1]): the same programs */
            if (!cu_pair_runs(dtypes[t], k == 3 ? 0 : 1)) continue;
            mp_case c = make_case(dtypes[t], 4, (int64_t[]){1, 3, H, W}, (int64_t[]){k, k});
            c.params.strides[0] = c.params.strides[1] = 2;
            for (int i = 0; i < 4; ++i) c.params.pads[i] = k - 2;
            c.with_indices = 0;
            assert_planned(&c, (path_row){CLPOOL__PATH_MAXPOOL_2D, 0, k == 2});
            for (int fill = 0; fill < 3; ++fill) run_random_input(&r, &c);
            c.with_indices = 1;
            assert_planned(&c, (path_row){CLPOOL__PATH_MAXPOOL_2D, 0, 0});
            run_random_input(&r, &c);
        }
    }
}
END_TEST

START_TEST(test_integer_extremes)
{
    /* int8 windows of all -128 and uint8 windows of all 0: first tap, padding never wins. */
    static const double mins[4] = {-128, -128, -128, -128}, zeros[4] = {0, 0, 0, 0};
    mp_case c = make_case(CLPOOL_INT8, 3, (int64_t[]){1, 1, 4}, (int64_t[]){2});
    c.params.strides[0] = 2;
    spot(&c, mins, (int64_t[]){1, 1, 2}, mins, (int64_t[]){0, 2});
    c.params.pads[0] = c.params.pads[1] = 1;
    spot(&c, mins, (int64_t[]){1, 1, 3}, mins, (int64_t[]){0, 1, 3});
    c.dtype = CLPOOL_UINT8;
    spot(&c, zeros, (int64_t[]){1, 1, 3}, zeros, (int64_t[]){0, 1, 3});

    c = make_case(CLPOOL_INT8, 3, (int64_t[]){1, 1, 4}, (int64_t[]){2});
    spot(&c, (double[]){-128, -127, 127, -128}, (int64_t[]){1, 1, 3}, (double[]){-127, 127, 127}, (int64_t[]){1, 2, 2});
    c.dtype = CLPOOL_UINT8;
    spot(&c, (double[]){0, 255, 255, 0}, (int64_t[]){1, 1, 3}, (double[]){255, 255, 255}, (int64_t[]){1, 1, 2});
}
END_TEST

/* ------------------------------------------------ empty output, events */

/* A program linked with the static library has no library file for clpool-builder to load: its background
 * builds stay in its own process, and no helper is started (a CLPOOL_BUILDER script would leave a file). */
START_TEST(test_static_library_starts_no_helper)
{
    char mark[4096], body[4200], script[4096];
    snprintf(mark, sizeof mark, "%s/static-helper-%d.ran", cu_tmpdir(), (int)getpid());
    snprintf(body, sizeof body, "touch \"%s\"", mark);
    snprintf(script, sizeof script, "%s", cu_write_script("static-helper", body));
    unlink(mark);
    setenv("CLPOOL_BUILDER", script, 1);
    clpool_context *ctx = cu_context_create();
    clpool__plan plan;
    memset(&plan, 0, sizeof plan);
    const size_t bytes[CLPOOL__ROLES] = {0};
    const int stopping = 0;
    ck_assert_int_eq(clpool__builder_run(ctx, &plan, bytes, &stopping), 0);
    clpool_context_release(ctx);
    unsetenv("CLPOOL_BUILDER");
    ck_assert_msg(access(mark, F_OK) != 0, "a helper was started for a program with the static library");
    unlink(script);
}
END_TEST

START_TEST(test_empty_output_and_wait_list)
{
    cl_mem in = cu_zero_buffer(256), out = cu_zero_buffer(256), idx = cu_zero_buffer(256);
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, (int64_t[]){2, 2}), CLPOOL_SUCCESS);
    const clpool_shape empty = {4, {0, 3, 4, 4}};
    clpool_shape out_shape;
    ck_assert_int_eq(clpool_maxpool_output_shape(&empty, &p, &out_shape), CLPOOL_SUCCESS);
    ck_assert_int_eq(out_shape.dims[0], 0);
    ck_assert_int_eq(out_shape.dims[2], 3);

    /* The returned event must wait for the user event in the wait list. */
    cl_event gate = cu_user_event(), done = NULL;
    clpool_status st = clpool_enqueue_maxpool(cu_ctx, NULL, &p, CLPOOL_FLOAT32, &empty, in, 4, out, 8, idx, 16, 1,
                                              &gate, &done);
    cu_assert_ok(st, "clpool_enqueue_maxpool", "empty, gated");
    ck_assert_ptr_nonnull(done);
    cu_assert_pending(clpool_context_cl_queue(cu_ctx), done, "empty MaxPool");
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    cu_wait_done(clpool_context_cl_queue(cu_ctx), done, "empty MaxPool");
    clReleaseEvent(done);
    clReleaseEvent(gate);

    /* C = 0 on a caller queue, no wait list: still an event that completes. */
    const clpool_shape no_channels = {4, {2, 0, 4, 4}};
    done = NULL;
    st = clpool_enqueue_maxpool(cu_ctx, cu_own_queue, &p, CLPOOL_INT8, &no_channels, in, 0, out, 0, NULL, 0, 0, NULL,
                                &done);
    cu_assert_ok(st, "clpool_enqueue_maxpool", "C = 0");
    ck_assert_ptr_nonnull(done);
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);

    /* Without an event or wait list, and through the host helper. */
    ck_assert_int_eq(
        clpool_enqueue_maxpool(cu_ctx, NULL, &p, CLPOOL_UINT8, &empty, in, 0, out, 0, idx, 0, 0, NULL, NULL),
        CLPOOL_SUCCESS);
    unsigned char host_in[1], host_out[1];
    int64_t host_idx[1];
    ck_assert_int_eq(clpool_maxpool_host(cu_ctx, &p, CLPOOL_FLOAT16, &empty, host_in, host_out, host_idx),
                     CLPOOL_SUCCESS);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(idx);
}
END_TEST

/* A non-empty MaxPool gated by a user event: nothing runs before the gate opens. */
START_TEST(test_wait_list_honoured)
{
    mp_case c = make_case(CLPOOL_FLOAT32, 4, (int64_t[]){1, 1, 4, 4}, (int64_t[]){2, 2});
    float input[16];
    for (int i = 0; i < 16; ++i) input[i] = (float)i;
    cl_mem in = cu_buffer_from(input, sizeof input);
    unsigned char init[9 * 4];
    memset(init, CU_SENTINEL, sizeof init);
    cl_mem out = cu_buffer_from(init, sizeof init);
    cl_event gate = cu_user_event(), done = NULL;
    clpool_status st = clpool_enqueue_maxpool(cu_ctx, cu_own_queue, &c.params, c.dtype, &c.shape, in, 0, out, 0, NULL,
                                              0, 1, &gate, &done);
    cu_assert_ok(st, "clpool_enqueue_maxpool", "gated");
    cu_assert_pending(cu_own_queue, done, "MaxPool");
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    float got[9];
    ck_assert_int_eq(clEnqueueReadBuffer(cu_own_queue, out, CL_TRUE, 0, sizeof got, got, 1, &done, NULL), CL_SUCCESS);
    for (int i = 0; i < 9; ++i) ck_assert_float_eq(got[i], (float)((i / 3 + 1) * 4 + i % 3 + 1));
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}
END_TEST

/* ------------------------------------------------------- validation */

/* Every argument of clpool_enqueue_maxpool; the default is a valid call. */
typedef struct vcall {
    clpool_context *ctx;
    cl_command_queue queue;
    clpool_maxpool_params params;
    const clpool_maxpool_params *params_ptr;
    clpool_dtype dtype;
    clpool_shape shape;
    const clpool_shape *shape_ptr;
    cl_mem input, output, indices;
    size_t in_off, out_off, idx_off;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event user_event;
    cl_context other_context; /* for the foreign-queue case */
} vcall;

#define VBUF 4096 /* every buffer; the 4x4 float32 default needs 64 / 36 / 72 bytes */

typedef struct vcase {
    const char *name;
    void (*mutate)(vcall *v);
    clpool_status status;
    const char *message;  /* substring of clpool_last_error() */
    int shape_fn_too;     /* clpool_maxpool_output_shape must reject it the same way */
} vcase;

static void m_none(vcall *v) { (void)v; }
static void m_null_ctx(vcall *v) { v->ctx = NULL; }
static void m_null_params(vcall *v) { v->params_ptr = NULL; }
static void m_null_shape(vcall *v) { v->shape_ptr = NULL; }
static void m_null_input(vcall *v) { v->input = NULL; }
static void m_null_output(vcall *v) { v->output = NULL; }
static void m_struct_size(vcall *v) { v->params.struct_size -= 8; }
static void m_rank_mismatch(vcall *v)
{
    v->params.spatial_rank = 3;
    v->params.kernel_shape[2] = v->params.strides[2] = v->params.dilations[2] = 1;
}
static void m_spatial_rank_zero(vcall *v) { v->params.spatial_rank = 0; }
static void m_rank_below_3(vcall *v) { v->shape.rank = 2; }
static void m_rank_above_max(vcall *v) { v->shape.rank = CLPOOL_MAX_RANK + 1; }
static void m_negative_dim(vcall *v) { v->shape.dims[3] = -1; }
static void m_kernel_zero(vcall *v) { v->params.kernel_shape[1] = 0; }
static void m_stride_zero(vcall *v) { v->params.strides[0] = 0; }
static void m_dilation_negative(vcall *v) { v->params.dilations[1] = -2; }
static void m_pad_negative(vcall *v) { v->params.pads[3] = -1; }
static void m_pads_with_auto_pad(vcall *v) { v->params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER, v->params.pads[0] = 1; }
static void m_ceil_mode(vcall *v) { v->params.ceil_mode = 2; }
static void m_storage_order(vcall *v) { v->params.storage_order = -1; }
static void m_auto_pad(vcall *v) { v->params.auto_pad = (clpool_auto_pad)4; }
static void m_kernel_too_big(vcall *v) { v->params.kernel_shape[0] = 5; }
static void m_dilated_too_big(vcall *v) { v->params.dilations[1] = 4; }
static void m_no_tap_left(vcall *v) { v->params.pads[0] = 5; }
static void m_no_tap_right(vcall *v) { v->params.pads[3] = 5; }
static void m_no_tap_same(vcall *v)
{
    v->shape.dims[2] = 2; /* SAME_UPPER, k 2, d 3: total pad 3, window 0 taps -1 and 2 */
    v->params.dilations[0] = 3;
    v->params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER;
}
static void m_zero_output(vcall *v) { v->shape.dims[2] = 0, v->params.auto_pad = CLPOOL_AUTO_PAD_SAME_UPPER; }
static void m_dtype_int32(vcall *v) { v->dtype = CLPOOL_INT32; }
static void m_dtype_bogus(vcall *v) { v->dtype = (clpool_dtype)99; }
static void m_input_too_small(vcall *v) { v->in_off = VBUF - 60; }
static void m_output_offset_past_end(vcall *v) { v->out_off = 2 * VBUF; }
static void m_indices_too_small(vcall *v) { v->idx_off = VBUF - 64; }
static void m_input_misaligned(vcall *v) { v->in_off = 2; }
static void m_output_misaligned(vcall *v) { v->dtype = CLPOOL_FLOAT16, v->out_off = 3; }
static void m_indices_misaligned(vcall *v) { v->idx_off = 4; }
static void m_wait_null_count(vcall *v) { v->num_wait = 1, v->wait = NULL; }
static void m_wait_zero_count(vcall *v) { v->num_wait = 0, v->wait = &v->user_event; }
static void m_wait_null_entry(vcall *v)
{
    static const cl_event none[2] = {NULL, NULL};
    v->num_wait = 2, v->wait = none;
}
static void m_foreign_queue(vcall *v)
{
    cl_device_id dev = clpool_context_cl_device(v->ctx);
    cl_int err;
    v->other_context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_msg(v->other_context != NULL, "clCreateContext: %d", (int)err);
    v->queue = clCreateCommandQueue(v->other_context, dev, 0, &err);
    ck_assert_msg(v->queue != NULL, "clCreateCommandQueue: %d", (int)err);
}

static const vcase vcases[] = {
    {"valid baseline", m_none, CLPOOL_SUCCESS, "", 1},
    {"NULL ctx", m_null_ctx, CLPOOL_ERROR_INVALID_ARGUMENT, "ctx is NULL", 0},
    {"NULL params", m_null_params, CLPOOL_ERROR_INVALID_ARGUMENT, "params is NULL", 1},
    {"NULL shape", m_null_shape, CLPOOL_ERROR_INVALID_ARGUMENT, "input shape is NULL", 1},
    {"NULL input", m_null_input, CLPOOL_ERROR_INVALID_ARGUMENT, "input buffer is NULL", 0},
    {"NULL output", m_null_output, CLPOOL_ERROR_INVALID_ARGUMENT, "output buffer is NULL", 0},
    {"struct_size", m_struct_size, CLPOOL_ERROR_INVALID_ARGUMENT, "struct_size is", 1},
    {"spatial_rank vs input rank", m_rank_mismatch, CLPOOL_ERROR_INVALID_SHAPE,
     "kernel_shape has 3 dims but the input has 2 spatial dims", 1},
    {"spatial_rank 0", m_spatial_rank_zero, CLPOOL_ERROR_INVALID_ARGUMENT, "spatial_rank 0 is outside 1..10", 1},
    {"input rank < 3", m_rank_below_3, CLPOOL_ERROR_INVALID_SHAPE, "input rank 2 must be >= 3", 1},
    {"input rank > max", m_rank_above_max, CLPOOL_ERROR_INVALID_SHAPE, "rank 13 is outside 0..12", 1},
    {"negative dim", m_negative_dim, CLPOOL_ERROR_INVALID_SHAPE, "dim 3 is negative", 1},
    {"kernel_shape < 1", m_kernel_zero, CLPOOL_ERROR_INVALID_ARGUMENT, "kernel_shape[1] = 0 must be >= 1", 1},
    {"strides < 1", m_stride_zero, CLPOOL_ERROR_INVALID_ARGUMENT, "strides[0] = 0 must be >= 1", 1},
    {"dilations < 1", m_dilation_negative, CLPOOL_ERROR_INVALID_ARGUMENT, "dilations[1] = -2 must be >= 1", 1},
    {"negative pad", m_pad_negative, CLPOOL_ERROR_INVALID_ARGUMENT, "pads[3] = -1 must be >= 0", 1},
    {"pads with auto_pad", m_pads_with_auto_pad, CLPOOL_ERROR_INVALID_ARGUMENT,
     "pads must be 0 when auto_pad is not NOTSET", 1},
    {"ceil_mode range", m_ceil_mode, CLPOOL_ERROR_INVALID_ARGUMENT, "ceil_mode = 2 must be 0 or 1", 1},
    {"storage_order range", m_storage_order, CLPOOL_ERROR_INVALID_ARGUMENT, "storage_order = -1 must be 0 or 1", 1},
    {"auto_pad range", m_auto_pad, CLPOOL_ERROR_INVALID_ARGUMENT, "auto_pad = 4 is not a clpool_auto_pad value", 1},
    {"kernel > padded input", m_kernel_too_big, CLPOOL_ERROR_INVALID_SHAPE,
     "along spatial axis 0 the padded input (4) is smaller than the dilated kernel (5)", 1},
    {"dilated kernel > padded input", m_dilated_too_big, CLPOOL_ERROR_INVALID_SHAPE,
     "along spatial axis 1 the padded input (4) is smaller than the dilated kernel (5)", 1},
    {"window without tap (begin pad)", m_no_tap_left, CLPOOL_ERROR_INVALID_ARGUMENT,
     "along spatial axis 0 has a window with no input element", 1},
    {"window without tap (end pad)", m_no_tap_right, CLPOOL_ERROR_INVALID_ARGUMENT,
     "along spatial axis 1 has a window with no input element", 1},
    {"window without tap (SAME + dilation)", m_no_tap_same, CLPOOL_ERROR_INVALID_ARGUMENT,
     "has a window with no input element", 1},
    {"output size 0", m_zero_output, CLPOOL_ERROR_INVALID_SHAPE, "giving output size 0", 1},
    {"dtype int32", m_dtype_int32, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "dtype int32 (6) is not supported by MaxPool", 0},
    {"dtype unknown", m_dtype_bogus, CLPOOL_ERROR_UNSUPPORTED_DTYPE, "(99) is not supported by MaxPool", 0},
    {"input buffer too small", m_input_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "input buffer holds 4096 bytes but offset 4036 + 64 bytes are needed", 0},
    {"output offset past the end", m_output_offset_past_end, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "output buffer holds 4096 bytes but offset 8192 + 36 bytes are needed", 0},
    {"indices buffer too small", m_indices_too_small, CLPOOL_ERROR_BUFFER_TOO_SMALL,
     "indices buffer holds 4096 bytes but offset 4032 + 72 bytes are needed", 0},
    {"input offset misaligned", m_input_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "input offset 2 is not a multiple of the element size 4", 0},
    {"output offset misaligned", m_output_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "output offset 3 is not a multiple of the element size 2", 0},
    {"indices offset misaligned", m_indices_misaligned, CLPOOL_ERROR_INVALID_ARGUMENT,
     "indices offset 4 is not a multiple of the element size 8", 0},
    {"wait list NULL, count 1", m_wait_null_count, CLPOOL_ERROR_INVALID_ARGUMENT,
     "event_wait_list must be NULL exactly when num_events_in_wait_list is 0", 0},
    {"wait list set, count 0", m_wait_zero_count, CLPOOL_ERROR_INVALID_ARGUMENT,
     "event_wait_list must be NULL exactly when num_events_in_wait_list is 0", 0},
    {"wait list NULL entry", m_wait_null_entry, CLPOOL_ERROR_INVALID_ARGUMENT, "event_wait_list[0] is NULL", 0},
    {"queue of another cl_context", m_foreign_queue, CLPOOL_ERROR_INVALID_ARGUMENT,
     "queue belongs to another cl_context", 0},
};
#define N_VCASES ((int)(sizeof vcases / sizeof vcases[0]))

START_TEST(test_validation)
{
    const vcase *vc = &vcases[_i];
    vcall v;
    memset(&v, 0, sizeof v);
    v.ctx = cu_ctx;
    v.dtype = CLPOOL_FLOAT32;
    v.shape = (clpool_shape){4, {1, 1, 4, 4}};
    v.shape_ptr = &v.shape;
    ck_assert_int_eq(clpool_maxpool_params_init(&v.params, 2, (int64_t[]){2, 2}), CLPOOL_SUCCESS);
    v.params_ptr = &v.params;
    cl_mem mems[3];
    for (int i = 0; i < 3; ++i) mems[i] = cu_zero_buffer(VBUF);
    v.input = mems[0], v.output = mems[1], v.indices = mems[2];
    v.user_event = cu_user_event();

    vc->mutate(&v);
    cl_event ev = NULL;
    const clpool_status st = clpool_enqueue_maxpool(v.ctx, v.queue, v.params_ptr, v.dtype, v.shape_ptr, v.input,
                                                    v.in_off, v.output, v.out_off, v.indices, v.idx_off, v.num_wait,
                                                    v.wait, &ev);
    cu_assert_enqueue_status(vc->name, "clpool_enqueue_maxpool", st, ev, vc->status, vc->message);
    if (vc->shape_fn_too) {
        clpool_shape out;
        const clpool_status st2 = clpool_maxpool_output_shape(v.shape_ptr, v.params_ptr, &out);
        cu_assert_status(vc->name, "clpool_maxpool_output_shape", st2, vc->status, vc->message);
    }
    if (v.other_context) {
        clReleaseCommandQueue(v.queue);
        clReleaseContext(v.other_context);
    }
    clReleaseEvent(v.user_event);
    for (int i = 0; i < 3; ++i) clReleaseMemObject(mems[i]);
}
END_TEST

START_TEST(test_validation_shape_fn_null_output)
{
    clpool_maxpool_params p;
    ck_assert_int_eq(clpool_maxpool_params_init(&p, 2, (int64_t[]){2, 2}), CLPOOL_SUCCESS);
    const clpool_shape in = {4, {1, 1, 4, 4}};
    ck_assert_int_eq(clpool_maxpool_output_shape(&in, &p, NULL), CLPOOL_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(clpool_last_error(), "clpool_maxpool_output_shape: output is NULL"));
}
END_TEST

/*
 * Inputs past 1.5x the device's cache: on x86-64 CPUs the fast path stores
 * its whole output vectors non-temporally (-DSTREAM_STORES). 3x3/s2/p1 over
 * rows whose outputs fill whole 64-byte vectors (streamed) and rows that do
 * not (each row's last block overlaps its neighbour and most vectors are
 * unaligned), an output offset that misaligns every vector, and NaNs (a -0
 * for float16) whose blocks the exact path redoes after streaming them;
 * float32, float16 and int8, 64-row planes.
 */
START_TEST(test_streamed_stores)
{
    if (!simd_cpu_device()) {
        printf("note: stores stream only on CPU drivers with SIMD work-items (PoCL); test_streamed_stores skipped\n");
        return;
    }
    clpool_device_info info; /* its cache_bytes: what the library plans for (the suite pins it to 32 MiB) */
    ck_assert_int_eq(clpool_context_device_info(cu_ctx, &info), CLPOOL_SUCCESS);
    const uint64_t cache = info.cache_bytes;
    static const struct {
        clpool_dtype dtype;
        int64_t w;
        size_t out_off; /* bytes */
        int dirty;
    } cases[] = {{CLPOOL_FLOAT32, 512, 0, 1}, {CLPOOL_FLOAT32, 500, 0, 1}, {CLPOOL_FLOAT32, 512, 4, 0},
                 {CLPOOL_FLOAT16, 1024, 0, 1}, {CLPOOL_FLOAT16, 1000, 0, 0}, {CLPOOL_INT8, 2048, 0, 0}};
    enum { H = 64 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const clpool_dtype dt = cases[i].dtype;
        if (!cu_dtype_runs(dt, "MaxPool")) continue;
        const size_t es = ref_dtype_size(dt);
        const int64_t W = cases[i].w, plane = H * W;
        const int64_t C = (int64_t)((cache + cache / 2 + ((uint64_t)1 << 20)) / ((uint64_t)plane * es)) + 1;
        unsigned char *input = malloc((size_t)(C * plane) * es);
        ck_assert_ptr_nonnull(input);
        for (int64_t e = 0; e < C * plane; ++e) ref_store(dt, input, e, (double)((e * 7 + e / W) % 5) - 1.0);
        if (cases[i].dirty) {
            ref_store_bits(dt, input, (C / 2) * plane + 30 * W + W / 2, cu_nan_patterns(dt)[0]);
            ref_store_bits(dt, input, (C - 1) * plane + 61 * W + W - 3, cu_nan_patterns(dt)[1]);
            for (int64_t h = 40; h < 43; ++h)
                for (int64_t x = 100; x < 111; ++x) ref_store(dt, input, 7 * plane + h * W + x, 0.0);
            ref_store(dt, input, 7 * plane + 40 * W + 102, -0.0);
        }
        mp_case c = make_case(dt, 4, (int64_t[]){1, C, H, W}, (int64_t[]){3, 3});
        c.with_indices = 0;
        c.params.strides[0] = c.params.strides[1] = 2;
        for (int p = 0; p < 4; ++p) c.params.pads[p] = 1;
        c.api = API_ENQUEUE;
        c.out_off = cases[i].out_off;
        run_case(&c, input);
        free(input);
    }
}
END_TEST

/* ------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("maxpool");
    /* The random cases build many kernel variants (slow on a cold rusticl
     * cache): two tagged halves that ctest runs as separate processes
     * (tests/CMakeLists.txt), so both cores work on them. */
    TCase *tc = cu_tcase(s, "random", 1);
    tcase_set_tags(tc, "random_a");
    tcase_add_test(tc, test_random_float32);
    tcase_add_test(tc, test_random_float16);
    tcase_add_test(tc, test_random_int8);
    tcase_add_test(tc, test_random_high_rank);
    tcase_add_test(tc, test_host_api);
    tc = cu_tcase(s, "random_more", 1);
    tcase_set_tags(tc, "random_b");
    tcase_add_test(tc, test_random_float64);
    tcase_add_test(tc, test_random_bfloat16);
    tcase_add_test(tc, test_random_uint8);
    tcase_add_test(tc, test_wide_rows);
    tc = cu_tcase(s, "large_windows", 1); /* a program build per case: its own process too */
    tcase_set_tags(tc, "large_windows");
    tcase_add_test(tc, test_large_windows);
    tcase_add_test(tc, test_whole_plane_windows);
    tcase_add_test(tc, test_whole_plane_indices);
    tcase_add_test(tc, test_extreme_attributes);
    tc = cu_tcase(s, "plane_paths", 1); /* large windows too: split off so neither process runs alone at the end */
    tcase_set_tags(tc, "plane_paths");
    tcase_add_test(tc, test_plane_path);
    tcase_add_test(tc, test_flat_path);
    tcase_add_test(tc, test_2d_views);
    tc = cu_tcase(s, "general_rows", 1); /* many general-kernel programs: its own process */
    tcase_set_tags(tc, "general_rows");
    tcase_add_test(tc, test_general_rows);
    tcase_add_test(tc, test_3d_windows);
    tcase_add_test(tc, test_3d_one_pass);
    tc = cu_tcase(s, "row_sweep", 1); /* large tensors: its own process */
    tcase_set_tags(tc, "row_sweep");
    tcase_add_test(tc, test_row_sweep);
    tcase_add_test(tc, test_streamed_stores);

    tc = cu_tcase(s, "onnx_semantics", 1);
    tcase_add_test(tc, test_onnx_ceil_mode);
    tcase_add_test(tc, test_onnx_same_upper_lower);
    tcase_add_test(tc, test_onnx_dilations);
    tcase_add_test(tc, test_onnx_storage_order);
    tcase_add_test(tc, test_strides_differ_by_axis);
    tcase_add_test(tc, test_ties_first_wins);
    tcase_add_test(tc, test_nan_windows);
    tcase_add_test(tc, test_fast_path_blocks);
    tcase_add_test(tc, test_fast_path_sign_rows);
    tcase_add_test(tc, test_exact_rows_only);
    tcase_add_test(tc, test_rows_outside_plane);
    tcase_add_test(tc, test_block_first_columns);
    tcase_add_test(tc, test_integer_extremes);

    tc = cu_tcase(s, "events", 1);
    tcase_add_test(tc, test_empty_output_and_wait_list);
    tcase_add_test(tc, test_static_library_starts_no_helper);
    tcase_add_test(tc, test_wait_list_honoured);

    tc = cu_tcase(s, "validation", 1);
    tcase_add_loop_test(tc, test_validation, 0, N_VCASES);
    tc = cu_tcase(s, "validation_host", 0);
    tcase_add_test(tc, test_validation_shape_fn_null_output);

    return cu_run_suite(s, CK_ENV);
}
