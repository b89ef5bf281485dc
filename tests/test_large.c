/*
 * Tensors of more than 2^31 elements: 64-bit offset and index math in
 * MaxPool (general kernel and 2-D fast path, int64 Indices) and Max.
 *
 * One int8/uint8 device buffer of T elements is filled once and viewed as
 * several shapes. T is sized from the device: 2^31 + 2^20 when
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE and CL_DEVICE_GLOBAL_MEM_SIZE allow it, else
 * 2^31 exactly (element counts and the last Indices then pass INT32_MAX),
 * else the test is skipped with a note. The bytes are a hash of their own
 * index, so an offset that wrapped at 2^31 or 2^32 reads different values;
 * the host recomputes any byte from its index, so nothing of T bytes is
 * held on the host (outputs are read back in chunks).
 *
 * Cases, each compared exactly with a plain host computation:
 *   - MaxPool uint8 [2, T/2^17, 65536], kernel = stride = 16384 (general kernel),
 *     Indices: one 255 per window at a hashed position, the last window's at
 *     the very last element (Indices = T - 1);
 *   - MaxPool int8 [1, 1, T/65536, 65536], kernel 2x2, strides 8x2, pads 1
 *     (2-D fast path, vector loads), Indices in both storage orders: T/16
 *     outputs; the first window holds only element 0, the last only T - 1;
 *   - Max int8 in place: the tensor against a [T/65536, 1] column and a
 *     [65536] row (2-D layout), then against a scalar (1-D layout);
 *   - buffer-size validation at the boundary: one element more than the
 *     buffer holds is BUFFER_TOO_SMALL.
 * Device memory at the peak: T + 9T/16 bytes (the 2-D case's output and
 * Indices). Host memory: a few 64 MiB chunks. ctest starts it first and
 * never beside the row sweep's test (RESOURCE_LOCK large_tensors).
 * CLPOOL_SKIP_LARGE=1 skips it (with a note).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clpool/clpool.h>

#include "check_util.h"

#define ROW 65536               /* innermost dim of the 2-D and Max views */
#define WINDOW 16384            /* N-D MaxPool kernel = stride */
#define CHUNK ((size_t)64 << 20) /* host staging for uploads and read-backs */

/* -------------------------------------------------------------- the bytes */

static uint64_t mix64(uint64_t z)
{
    z ^= z >> 31;
    z *= 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    z *= 0x94D049BB133111EBull;
    return z ^ (z >> 32);
}

/* Background bytes of elements 8g..8g+7: the bytes of a hash of g, 0..254 (255 is reserved for the planted maxima). */
static inline uint64_t noise8(uint64_t g)
{
    uint64_t z = mix64(g * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
    /* 0xFF bytes become 0xFE: find them (high bit of each all-ones byte), clear their lowest bit. */
    const uint64_t ones = z & (z >> 1) & (z >> 2) & (z >> 3) & (z >> 4) & (z >> 5) & (z >> 6) & (z >> 7) &
                          0x0101010101010101ull;
    return z & ~ones;
}

static uint64_t total;     /* T */
static uint64_t n_windows; /* T / WINDOW */

/* Offset of the planted 255 inside N-D window o; the last window's is its last element. */
static uint64_t plant(uint64_t o)
{
    return o == n_windows - 1 ? WINDOW - 1 : mix64(o ^ 0xA5A5A5A5ull) % WINDOW;
}

/* Elements [first, first + n) of the buffer as uploaded (uint8 view); first and n are multiples of WINDOW (so of 8). */
static void fill_values(uint64_t first, size_t n, uint8_t *dst)
{
    for (size_t j = 0; j < n; j += 8) {
        const uint64_t z = noise8((first + j) / 8);
        memcpy(dst + j, &z, 8); /* little- or big-endian alike: only determinism matters */
    }
    for (uint64_t o = first / WINDOW; o < (first + n) / WINDOW; ++o) dst[o * WINDOW + plant(o) - first] = 255;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- helpers */

static void write_chunk(cl_command_queue q, cl_mem m, size_t offset, const void *src, size_t n)
{
    const cl_int err = clEnqueueWriteBuffer(q, m, CL_TRUE, offset, n, src, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "clEnqueueWriteBuffer at %zu failed: %d", offset, (int)err);
}

static void read_chunk(cl_command_queue q, cl_mem m, size_t offset, void *dst, size_t n)
{
    const cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, offset, n, dst, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "clEnqueueReadBuffer at %zu failed: %d", offset, (int)err);
}

static cl_mem device_buffer(clpool_context *ctx, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clpool_context_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu) failed: %d", bytes, (int)err);
    return m;
}

/* Wait for a successful enqueue's event (passed by address: read only after the call). */
static void run(clpool_status st, cl_event *evp, const char *what)
{
    cu_assert_ok(st, what, "large tensor");
    cl_event ev = *evp;
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_int exec = 0;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL), CL_SUCCESS);
    ck_assert_msg(exec == CL_COMPLETE, "%s: event ended in %d", what, (int)exec);
    clReleaseEvent(ev);
    *evp = NULL;
}

/*
 * Upload the bytes and, on the way, the plain reference of the N-D case:
 * first maximum of every WINDOW-element window (windows are contiguous).
 */
static void upload(cl_command_queue q, cl_mem big, uint8_t *ref_val, int64_t *ref_idx)
{
    uint8_t *chunk = malloc(CHUNK);
    ck_assert_ptr_nonnull(chunk);
    for (uint64_t c0 = 0; c0 < total; c0 += CHUNK) {
        const size_t n = (size_t)(total - c0 < CHUNK ? total - c0 : CHUNK);
        fill_values(c0, n, chunk);
        for (uint64_t o = c0 / WINDOW; o < (c0 + n) / WINDOW; ++o) {
            uint8_t best = chunk[o * WINDOW - c0];
            uint64_t at = o * WINDOW;
            for (uint64_t i = o * WINDOW + 1; i < (o + 1) * WINDOW; ++i)
                if (chunk[i - c0] > best) {
                    best = chunk[i - c0];
                    at = i;
                }
            ref_val[o] = best;
            ref_idx[o] = (int64_t)at;
        }
        write_chunk(q, big, (size_t)c0, chunk, n);
    }
    free(chunk);
}

/* -------------------------------------------------------------- the cases */

static void maxpool_nd_uint8(clpool_context *ctx, cl_command_queue q, cl_mem big, const uint8_t *ref_val,
                             const int64_t *ref_idx)
{
    const clpool_shape shape = {3, {2, (int64_t)(total / ROW / 2), ROW}};
    const int64_t k[1] = {WINDOW};
    clpool_maxpool_params p;
    cu_assert_ok(clpool_maxpool_params_init(&p, 1, k), "clpool_maxpool_params_init", "N-D");
    p.strides[0] = WINDOW;
    clpool_shape out_shape;
    cu_assert_ok(clpool_maxpool_output_shape(&shape, &p, &out_shape), "clpool_maxpool_output_shape", "N-D");
    ck_assert_int_eq(clpool_shape_elements(&out_shape), (int64_t)n_windows);
    cl_mem out = device_buffer(ctx, n_windows), idx = device_buffer(ctx, n_windows * 8);
    cl_event ev = NULL;
    const double t0 = now();
    run(clpool_enqueue_maxpool(ctx, q, &p, CLPOOL_UINT8, &shape, big, 0, out, 0, idx, 0, 0, NULL, &ev), &ev,
        "MaxPool uint8 N-D");
    const double t1 = now();
    uint8_t *got = malloc(n_windows);
    int64_t *got_idx = malloc(n_windows * 8);
    ck_assert(got && got_idx);
    read_chunk(q, out, 0, got, n_windows);
    read_chunk(q, idx, 0, got_idx, n_windows * 8);
    for (uint64_t o = 0; o < n_windows; ++o) {
        /* The reference itself agrees with the construction. */
        cu_expect(ref_val[o] == 255 && ref_idx[o] == (int64_t)(o * WINDOW + plant(o)),
                  "N-D window %llu: the reference does not find the planted maximum", (unsigned long long)o);
        cu_expect(got[o] == ref_val[o] && got_idx[o] == ref_idx[o],
                  "MaxPool uint8 N-D window %llu: value %u index %lld, expected %u at %lld", (unsigned long long)o,
                  got[o], (long long)got_idx[o], ref_val[o], (long long)ref_idx[o]);
    }
    ck_assert_int_eq(got_idx[n_windows - 1], (int64_t)(total - 1));
    printf("note: MaxPool uint8 [2,%lld,%d] k=s=%d with Indices: %llu windows, last index %lld, %.2f s on the "
           "device\n",
           (long long)shape.dims[1], ROW, WINDOW, (unsigned long long)n_windows, (long long)got_idx[n_windows - 1],
           t1 - t0);
    free(got);
    free(got_idx);
    clReleaseMemObject(out);
    clReleaseMemObject(idx);
}

/* Plain first-maximum over the in-bounds taps of 2-D window (oh, ow), int8 view; rows[a] holds input row oh*8-1+a. */
static void window_2d(int64_t H, int64_t oh, int64_t ow, const int8_t *const rows[2], int8_t *best, int64_t *h_at,
                      int64_t *w_at)
{
    int have = 0;
    for (int64_t a = 0; a < 2; ++a) {
        const int64_t h = oh * 8 - 1 + a;
        if (h < 0 || h >= H) continue;
        for (int64_t b = 0; b < 2; ++b) {
            const int64_t w = ow * 2 - 1 + b;
            if (w < 0 || w >= ROW) continue;
            const int8_t v = rows[a][w];
            if (!have || v > *best) {
                *best = v;
                *h_at = h;
                *w_at = w;
                have = 1;
            }
        }
    }
    if (!have) ck_abort_msg("2-D window (%lld,%lld) has no tap: the test's geometry is wrong", (long long)oh, (long long)ow);
}

static void maxpool_2d_int8(clpool_context *ctx, cl_command_queue q, cl_mem big, int storage_order)
{
    const int64_t H = (int64_t)(total / ROW);
    const clpool_shape shape = {4, {1, 1, H, ROW}};
    const int64_t k[2] = {2, 2};
    clpool_maxpool_params p;
    cu_assert_ok(clpool_maxpool_params_init(&p, 2, k), "clpool_maxpool_params_init", "2-D");
    p.strides[0] = 8;
    p.strides[1] = 2;
    for (int i = 0; i < 4; ++i) p.pads[i] = 1;
    p.storage_order = storage_order;
    clpool_shape os;
    cu_assert_ok(clpool_maxpool_output_shape(&shape, &p, &os), "clpool_maxpool_output_shape", "2-D");
    const int64_t OH = os.dims[2], OW = os.dims[3], n_out = OH * OW;
    ck_assert_int_eq(OH, H / 8 + 1);
    ck_assert_int_eq(OW, ROW / 2 + 1);
    cl_mem out = device_buffer(ctx, (size_t)n_out), idx = device_buffer(ctx, (size_t)n_out * 8);
    cl_event ev = NULL;
    const double t0 = now();
    run(clpool_enqueue_maxpool(ctx, q, &p, CLPOOL_INT8, &shape, big, 0, out, 0, idx, 0, 0, NULL, &ev), &ev,
        "MaxPool int8 2-D");
    const double t1 = now();
    /* Compare in chunks of whole output rows. */
    const int64_t rows_per_chunk = (int64_t)(CHUNK / 8) / OW;
    int8_t *got = malloc((size_t)(rows_per_chunk * OW));
    int64_t *got_idx = malloc((size_t)(rows_per_chunk * OW) * 8);
    ck_assert(got && got_idx);
    int8_t *in_rows[2] = {malloc(ROW), malloc(ROW)};
    ck_assert(in_rows[0] && in_rows[1]);
    int64_t last_idx = -1;
    for (int64_t r0 = 0; r0 < OH; r0 += rows_per_chunk) {
        const int64_t rows = OH - r0 < rows_per_chunk ? OH - r0 : rows_per_chunk;
        read_chunk(q, out, (size_t)(r0 * OW), got, (size_t)(rows * OW));
        read_chunk(q, idx, (size_t)(r0 * OW) * 8, got_idx, (size_t)(rows * OW) * 8);
        for (int64_t oh = r0; oh < r0 + rows; ++oh) {
            for (int a = 0; a < 2; ++a) {
                const int64_t h = oh * 8 - 1 + a;
                if (h >= 0 && h < H) fill_values((uint64_t)(h * ROW), ROW, (uint8_t *)in_rows[a]);
            }
            for (int64_t ow = 0; ow < OW; ++ow) {
                int8_t best = 0;
                int64_t h = 0, w = 0;
                window_2d(H, oh, ow, (const int8_t *const *)in_rows, &best, &h, &w);
                const int64_t want = storage_order ? w * H + h : h * ROW + w;
                const int64_t j = (oh - r0) * OW + ow;
                cu_expect(got[j] == best && got_idx[j] == want,
                          "MaxPool int8 2-D storage_order %d output (%lld,%lld): value %d index %lld, "
                          "expected %d at %lld",
                          storage_order, (long long)oh, (long long)ow, got[j], (long long)got_idx[j], best,
                          (long long)want);
                last_idx = got_idx[j];
            }
        }
    }
    /* The last window's only in-bounds tap is the tensor's last element, in either order. */
    ck_assert_int_eq(last_idx, (int64_t)(total - 1));
    printf("note: MaxPool int8 [1,1,%lld,%d] k=2x2 s=8x2 p=1 storage_order %d with Indices: %lld outputs, last index "
           "%lld, %.2f s on the device, %.2f s checked\n",
           (long long)H, ROW, storage_order, (long long)n_out, (long long)last_idx, t1 - t0, now() - t1);
    free(in_rows[0]);
    free(in_rows[1]);
    free(got);
    free(got_idx);
    clReleaseMemObject(out);
    clReleaseMemObject(idx);
}

typedef struct max_state {
    int8_t *col; /* [H] */
    int8_t row[ROW];
    int8_t scalar;
    int with_scalar;
} max_state;

static inline int8_t max8(int8_t a, int8_t b) { return b > a ? b : a; }

/* Every element of `big` must be max(original, col[h], row[w] [, scalar]) (read back in chunks). */
static void check_max(cl_command_queue q, cl_mem big, const max_state *s, const char *what)
{
    int8_t *got = malloc(CHUNK), *want = malloc(CHUNK);
    ck_assert(got && want);
    for (uint64_t c0 = 0; c0 < total; c0 += CHUNK) {
        const size_t n = (size_t)(total - c0 < CHUNK ? total - c0 : CHUNK);
        fill_values(c0, n, (uint8_t *)want);
        for (size_t r = 0; r < n; r += ROW) { /* chunks hold whole rows */
            /* max(x, col, row[w], scalar) = max(x, max(col, scalar), row[w]): one branch-free loop a row */
            const int8_t col = s->col[(c0 + r) / ROW], lower = s->with_scalar ? max8(col, s->scalar) : col;
            int8_t *const dst = want + r;
            for (size_t w = 0; w < ROW; ++w) dst[w] = max8(max8(dst[w], lower), s->row[w]);
        }
        read_chunk(q, big, (size_t)c0, got, n);
        if (memcmp(got, want, n) != 0)
            for (size_t j = 0; j < n; ++j)
                cu_expect(got[j] == want[j], "%s: element %llu is %d, expected %d", what, (unsigned long long)(c0 + j),
                          got[j], want[j]);
    }
    free(got);
    free(want);
}

static void max_int8_in_place(clpool_context *ctx, cl_command_queue q, cl_mem big)
{
    const int64_t H = (int64_t)(total / ROW);
    max_state s;
    s.col = malloc((size_t)H);
    ck_assert_ptr_nonnull(s.col);
    for (int64_t h = 0; h < H; ++h) s.col[h] = (int8_t)(mix64((uint64_t)h + 77) >> 56);
    for (int64_t w = 0; w < ROW; ++w) s.row[w] = (int8_t)(mix64((uint64_t)w + 99) >> 56);
    s.scalar = 17;
    s.with_scalar = 0;
    cl_mem col = device_buffer(ctx, (size_t)H), row = device_buffer(ctx, ROW), one = device_buffer(ctx, 1);
    write_chunk(q, col, 0, s.col, (size_t)H);
    write_chunk(q, row, 0, s.row, ROW);
    write_chunk(q, one, 0, &s.scalar, 1);

    /* 2-D layout: the output is input 0 (in place), a per-row and a per-column broadcast. */
    const clpool_shape shapes3[3] = {{4, {1, 1, H, ROW}}, {4, {1, 1, H, 1}}, {1, {ROW}}};
    const cl_mem in3[3] = {big, col, row};
    const size_t off3[3] = {0, 0, 0};
    cl_event ev = NULL;
    double t0 = now();
    run(clpool_enqueue_max(ctx, q, CLPOOL_INT8, 3, shapes3, in3, off3, big, 0, 0, NULL, &ev), &ev,
        "Max int8 with a column and a row");
    double t1 = now();
    check_max(q, big, &s, "Max int8 [1,1,H,65536] x [1,1,H,1] x [65536]");
    printf("note: Max int8 [1,1,%lld,%d] x [1,1,%lld,1] x [%d] in place: %.2f s on the device, %.2f s checked\n",
           (long long)H, ROW, (long long)H, ROW, t1 - t0, now() - t1);

    /* 1-D layout: a scalar against the whole tensor, again in place. */
    const clpool_shape shapes2[2] = {{1, {(int64_t)total}}, {0, {0}}};
    const cl_mem in2[2] = {big, one};
    const size_t off2[2] = {0, 0};
    t0 = now();
    run(clpool_enqueue_max(ctx, q, CLPOOL_INT8, 2, shapes2, in2, off2, big, 0, 0, NULL, &ev), &ev,
        "Max int8 with a scalar");
    t1 = now();
    s.with_scalar = 1;
    check_max(q, big, &s, "Max int8 [T] x scalar");
    printf("note: Max int8 [%llu] x scalar in place: %.2f s on the device, %.2f s checked\n",
           (unsigned long long)total, t1 - t0, now() - t1);

    /* One element more than the buffer holds, or the whole tensor one byte further in. */
    const clpool_shape over[2] = {{1, {(int64_t)total + 1}}, {0, {0}}};
    clpool_status st = clpool_enqueue_max(ctx, q, CLPOOL_INT8, 2, over, in2, off2, big, 0, 0, NULL, NULL);
    char holds[96];
    snprintf(holds, sizeof holds, "output buffer holds %llu bytes but offset 0 + %llu bytes are needed",
             (unsigned long long)total, (unsigned long long)total + 1);
    cu_assert_status("shape one element past the buffer", "clpool_enqueue_max", st, CLPOOL_ERROR_BUFFER_TOO_SMALL,
                     holds);
    const size_t shifted[2] = {1, 0};
    st = clpool_enqueue_max(ctx, q, CLPOOL_INT8, 2, shapes2, in2, shifted, big, 0, 0, NULL, NULL);
    snprintf(holds, sizeof holds, "inputs[0] buffer holds %llu bytes but offset 1 + %llu bytes are needed",
             (unsigned long long)total, (unsigned long long)total);
    cu_assert_status("tensor one byte further in", "clpool_enqueue_max", st, CLPOOL_ERROR_BUFFER_TOO_SMALL, holds);

    clReleaseMemObject(col);
    clReleaseMemObject(row);
    clReleaseMemObject(one);
    free(s.col);
}

START_TEST(tensors_past_two_to_the_31_elements)
{
    if (getenv("CLPOOL_SKIP_LARGE") && strcmp(getenv("CLPOOL_SKIP_LARGE"), "1") == 0) {
        printf("note: CLPOOL_SKIP_LARGE=1: large-tensor test skipped\n");
        return;
    }
    clpool_context *ctx = cu_context_create();
    clpool_device_info info;
    cu_assert_ok(clpool_context_device_info(ctx, &info), "clpool_context_device_info", "large");
    const uint64_t larger = (1ull << 31) + (1ull << 20), exact = 1ull << 31;
    if (info.max_alloc_bytes >= larger && info.global_mem_bytes >= larger)
        total = larger;
    else if (info.max_alloc_bytes >= exact && info.global_mem_bytes >= exact)
        total = exact;
    else {
        printf("note: %s allows %llu bytes per buffer and %llu in all: no buffer of 2^31 bytes, large-tensor test "
               "skipped\n",
               info.device_name, (unsigned long long)info.max_alloc_bytes, (unsigned long long)info.global_mem_bytes);
        clpool_context_release(ctx);
        return;
    }
    const uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    if (ram < 2 * total + (1ull << 30)) {
        printf("note: %llu bytes of RAM: too little for a %llu-byte tensor, large-tensor test skipped\n",
               (unsigned long long)ram, (unsigned long long)total);
        clpool_context_release(ctx);
        return;
    }
    n_windows = total / WINDOW;
    printf("note: %s: max alloc %llu, global memory %llu: T = %llu elements (2^31%s)\n", info.device_name,
           (unsigned long long)info.max_alloc_bytes, (unsigned long long)info.global_mem_bytes,
           (unsigned long long)total, total == larger ? " + 2^20" : "");
    const double start = now();
    cl_command_queue q = clpool_context_cl_queue(ctx);
    cl_mem big = device_buffer(ctx, (size_t)total);
    uint8_t *ref_val = malloc(n_windows);
    int64_t *ref_idx = malloc(n_windows * 8);
    ck_assert(ref_val && ref_idx);
    upload(q, big, ref_val, ref_idx);
    printf("note: generated and uploaded in %.2f s\n", now() - start);

    maxpool_nd_uint8(ctx, q, big, ref_val, ref_idx);
    free(ref_val);
    free(ref_idx);
    maxpool_2d_int8(ctx, q, big, 0);
    maxpool_2d_int8(ctx, q, big, 1);
    max_int8_in_place(ctx, q, big); /* last: it overwrites the tensor */

    clReleaseMemObject(big);
    clpool_context_release(ctx);
    printf("note: large-tensor test took %.1f s\n", now() - start);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("large");
    TCase *tc = cu_tcase(s, "large", 0);
    tcase_add_test(tc, tensors_past_two_to_the_31_elements);
    return cu_run_suite(s, CK_NORMAL);
}
