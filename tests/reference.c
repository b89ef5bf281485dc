/* Plain-C reference implementations for the test suites (see reference.h). */
#include "reference.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG */

void ref_rng_seed(ref_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t ref_rng_next(ref_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t ref_rng_range(ref_rng *rng, int64_t lo, int64_t hi)
{
    const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
    if (span == 0) return (int64_t)ref_rng_next(rng); /* full 64-bit range */
    return (int64_t)((uint64_t)lo + ref_rng_next(rng) % span);
}

double ref_rng_unit(ref_rng *rng) { return (double)(ref_rng_next(rng) >> 11) * 0x1.0p-53; }

int ref_rng_chance(ref_rng *rng, double p) { return ref_rng_unit(rng) < p; }

/* ----------------------------------------------------- half / bfloat16 */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Shift `man` right by `shift` (1..31) with round-to-nearest-even. */
static uint32_t shift_rne(uint32_t man, int shift)
{
    const uint32_t kept = man >> shift;
    const uint32_t rem = man & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    return kept + (rem > half || (rem == half && (kept & 1u)));
}

uint16_t ref_float_to_half(float value)
{
    const uint32_t x = float_bits(value);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const int32_t exp = (int32_t)((x >> 23) & 0xFFu);
    const uint32_t man = x & 0x7FFFFFu;
    if (exp == 0xFF) {
        if (!man) return (uint16_t)(sign | 0x7C00u);
        const uint16_t payload = (uint16_t)(man >> 13);
        return (uint16_t)(sign | 0x7C00u | (payload ? payload : 0x200u));
    }
    const int32_t e = exp - 127 + 15; /* biased half exponent */
    if (e >= 31) return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) {
        /* Subnormal half (or zero): value < 2^-25 rounds to zero. */
        if (e < -10) return sign;
        return (uint16_t)(sign | shift_rne(man | 0x800000u, 14 - e));
    }
    /* A mantissa carry rolls into the exponent, and from 30 into infinity. */
    return (uint16_t)(sign | shift_rne(((uint32_t)e << 23) | man, 13));
}

float ref_half_to_float(uint16_t bits)
{
    const uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1Fu;
    const uint32_t man = bits & 0x3FFu;
    if (exp == 0) {
        const float mag = ldexpf((float)man, -24);
        return sign ? -mag : mag;
    }
    if (exp == 31) return bits_float(sign | 0x7F800000u | (man << 13));
    return bits_float(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t ref_float_to_bfloat16(float value)
{
    const uint32_t x = float_bits(value);
    if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu)) {
        uint16_t r = (uint16_t)(x >> 16);
        return (uint16_t)((r & 0x7Fu) ? r : (r | 0x40u));
    }
    return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

float ref_bfloat16_to_float(uint16_t bits) { return bits_float((uint32_t)bits << 16); }

/* --------------------------------------------------------------- dtypes */

size_t ref_dtype_size(clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_UINT8: case CLPOOL_INT8: return 1;
    case CLPOOL_UINT16: case CLPOOL_INT16: case CLPOOL_FLOAT16: case CLPOOL_BFLOAT16: return 2;
    case CLPOOL_FLOAT32: case CLPOOL_INT32: case CLPOOL_UINT32: return 4;
    case CLPOOL_FLOAT64: case CLPOOL_INT64: case CLPOOL_UINT64: return 8;
    }
    return 0;
}

int ref_dtype_is_float(clpool_dtype dtype)
{
    return dtype == CLPOOL_FLOAT32 || dtype == CLPOOL_FLOAT64 || dtype == CLPOOL_FLOAT16 || dtype == CLPOOL_BFLOAT16;
}

uint64_t ref_load_bits(clpool_dtype dtype, const void *data, int64_t i)
{
    const size_t size = ref_dtype_size(dtype);
    const unsigned char *p = (const unsigned char *)data + (size_t)i * size;
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
    return 0;
}

void ref_store_bits(clpool_dtype dtype, void *data, int64_t i, uint64_t bits)
{
    const size_t size = ref_dtype_size(dtype);
    unsigned char *p = (unsigned char *)data + (size_t)i * size;
    switch (size) {
    case 1: *p = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    case 8: memcpy(p, &bits, 8); break;
    }
}

double ref_load(clpool_dtype dtype, const void *data, int64_t i)
{
    const uint64_t b = ref_load_bits(dtype, data, i);
    switch (dtype) {
    case CLPOOL_FLOAT32: return bits_float((uint32_t)b);
    case CLPOOL_FLOAT64: { double d; memcpy(&d, &b, sizeof d); return d; }
    case CLPOOL_FLOAT16: return ref_half_to_float((uint16_t)b);
    case CLPOOL_BFLOAT16: return ref_bfloat16_to_float((uint16_t)b);
    case CLPOOL_INT8: return (int8_t)(uint8_t)b;
    case CLPOOL_UINT8: return (uint8_t)b;
    case CLPOOL_INT16: return (int16_t)(uint16_t)b;
    case CLPOOL_UINT16: return (uint16_t)b;
    case CLPOOL_INT32: return (int32_t)(uint32_t)b;
    case CLPOOL_UINT32: return (uint32_t)b;
    case CLPOOL_INT64: return (double)(int64_t)b;
    case CLPOOL_UINT64: return (double)b;
    }
    return 0.0;
}

void ref_store(clpool_dtype dtype, void *data, int64_t i, double value)
{
    uint64_t b = 0;
    switch (dtype) {
    case CLPOOL_FLOAT32: b = float_bits((float)value); break;
    case CLPOOL_FLOAT64: memcpy(&b, &value, sizeof b); break;
    case CLPOOL_FLOAT16: b = ref_float_to_half((float)value); break;
    case CLPOOL_BFLOAT16: b = ref_float_to_bfloat16((float)value); break;
    case CLPOOL_INT8: case CLPOOL_INT16: case CLPOOL_INT32: case CLPOOL_INT64: b = (uint64_t)(int64_t)value; break;
    case CLPOOL_UINT8: case CLPOOL_UINT16: case CLPOOL_UINT32: case CLPOOL_UINT64: b = (uint64_t)value; break;
    }
    ref_store_bits(dtype, data, i, b);
}

int64_t ref_shape_elements(const clpool_shape *shape)
{
    if (!shape || shape->rank < 0 || shape->rank > CLPOOL_MAX_RANK) return -1;
    int64_t n = 1;
    for (int32_t i = 0; i < shape->rank; ++i) {
        if (shape->dims[i] < 0) return -1;
        n *= shape->dims[i];
    }
    return n;
}

/* --------------------------------------------------------------- MaxPool */

static int reject(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Keeps every intermediate of the shape arithmetic far from int64 overflow. */
#define REF_ATTR_LIMIT ((int64_t)1 << 40)

static int in_limits(int64_t v, int64_t lo) { return v >= lo && v <= REF_ATTR_LIMIT; }

int ref_maxpool_shape(const clpool_shape *input, const clpool_maxpool_params *p, clpool_shape *output,
                      ref_maxpool_geometry *geom, char *why, size_t why_len)
{
    if (!input || !p || !output) return reject(why, why_len, "NULL argument");
    if (p->struct_size != sizeof *p) return reject(why, why_len, "struct_size");
    if (p->storage_order != 0 && p->storage_order != 1) return reject(why, why_len, "storage_order");
    clpool_window_params w;
    memset(&w, 0, sizeof w);
    w.struct_size = sizeof w;
    w.spatial_rank = p->spatial_rank;
    memcpy(w.kernel_shape, p->kernel_shape, sizeof w.kernel_shape);
    memcpy(w.strides, p->strides, sizeof w.strides);
    memcpy(w.dilations, p->dilations, sizeof w.dilations);
    memcpy(w.pads, p->pads, sizeof w.pads);
    w.ceil_mode = p->ceil_mode;
    w.auto_pad = p->auto_pad;
    return ref_window_shape(input, &w, 1, output, geom, why, why_len);
}

int ref_window_shape(const clpool_shape *input, const clpool_window_params *p, int needs_tap, clpool_shape *output,
                     ref_maxpool_geometry *geom, char *why, size_t why_len)
{
    if (!input || !p || !output) return reject(why, why_len, "NULL argument");
    if (p->struct_size != sizeof *p) return reject(why, why_len, "struct_size");
    const int32_t ns = p->spatial_rank;
    if (ns < 1 || ns > CLPOOL_MAX_SPATIAL) return reject(why, why_len, "spatial_rank %d", (int)ns);
    if (input->rank < 3 || input->rank > CLPOOL_MAX_RANK)
        return reject(why, why_len, "input rank %d", (int)input->rank);
    if (input->rank - 2 != ns)
        return reject(why, why_len, "spatial_rank %d vs input rank %d", (int)ns, (int)input->rank);
    for (int32_t i = 0; i < input->rank; ++i)
        if (!in_limits(input->dims[i], 0)) return reject(why, why_len, "dim %d", (int)i);
    if (p->ceil_mode != 0 && p->ceil_mode != 1) return reject(why, why_len, "ceil_mode");
    if (p->auto_pad < CLPOOL_AUTO_PAD_NOTSET || p->auto_pad > CLPOOL_AUTO_PAD_VALID)
        return reject(why, why_len, "auto_pad");
    for (int32_t i = 0; i < ns; ++i) {
        if (!in_limits(p->kernel_shape[i], 1)) return reject(why, why_len, "kernel_shape[%d]", (int)i);
        if (!in_limits(p->strides[i], 1)) return reject(why, why_len, "strides[%d]", (int)i);
        if (!in_limits(p->dilations[i], 1)) return reject(why, why_len, "dilations[%d]", (int)i);
    }
    for (int32_t i = 0; i < 2 * ns; ++i) {
        if (!in_limits(p->pads[i], 0)) return reject(why, why_len, "pads[%d]", (int)i);
        if (p->pads[i] != 0 && p->auto_pad != CLPOOL_AUTO_PAD_NOTSET) return reject(why, why_len, "pads with auto_pad");
    }

    ref_maxpool_geometry g;
    memset(&g, 0, sizeof g);
    g.ns = ns;
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t in = input->dims[2 + i], k = p->kernel_shape[i], s = p->strides[i], d = p->dilations[i];
        if ((k - 1) > REF_ATTR_LIMIT / d) return reject(why, why_len, "axis %d: dilated kernel too large", (int)i);
        const int64_t e = (k - 1) * d + 1;
        int64_t pb = 0, pe = 0, out;
        if (p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER || p->auto_pad == CLPOOL_AUTO_PAD_SAME_LOWER) {
            out = (in + s - 1) / s;
            int64_t total = (out - 1) * s + e - in;
            if (total < 0) total = 0;
            pb = p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
            pe = total - pb;
        } else {
            if (p->auto_pad == CLPOOL_AUTO_PAD_NOTSET) {
                pb = p->pads[i];
                pe = p->pads[ns + i];
            }
            const int64_t span = in + pb + pe;
            if (span < e)
                return reject(why, why_len, "axis %d: padded input %lld < dilated kernel %lld", (int)i,
                              (long long)span, (long long)e);
            out = p->ceil_mode ? (span - e + s - 1) / s + 1 : (span - e) / s + 1;
            if (p->ceil_mode && (out - 1) * s >= in + pb) out -= 1; /* no window starts in the right padding */
        }
        if (out <= 0) return reject(why, why_len, "axis %d: output size %lld", (int)i, (long long)out);
        for (int64_t o = 0; needs_tap && o < out; ++o) {
            int found = 0;
            for (int64_t j = 0; j < k && !found; ++j) {
                const int64_t x = o * s - pb + j * d;
                found = x >= 0 && x < in;
            }
            if (!found) return reject(why, why_len, "axis %d: window %lld has no valid tap", (int)i, (long long)o);
        }
        g.in[i] = in;
        g.out[i] = out;
        g.pad_begin[i] = pb;
        g.pad_end[i] = pe;
    }

    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 0; i < ns; ++i) output->dims[2 + i] = g.out[i];
    if (geom) *geom = g;
    return 0;
}

/* Decode a flat row-major position into per-axis coordinates. */
static void unravel(int64_t flat, int32_t n, const int64_t *dims, int64_t *coord)
{
    for (int32_t i = n - 1; i >= 0; --i) {
        coord[i] = flat % dims[i];
        flat /= dims[i];
    }
}

int ref_maxpool(clpool_dtype dtype, const clpool_shape *input_shape, const clpool_maxpool_params *p,
                const void *input, void *output, int64_t *indices)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: case CLPOOL_FLOAT64: case CLPOOL_FLOAT16:
    case CLPOOL_BFLOAT16: case CLPOOL_INT8: case CLPOOL_UINT8:
        break;
    default:
        return -1;
    }
    clpool_shape out_shape;
    ref_maxpool_geometry g;
    if (ref_maxpool_shape(input_shape, p, &out_shape, &g, NULL, 0) != 0) return -1;

    const int32_t ns = g.ns;
    int64_t in_plane = 1, out_plane = 1, taps = 1;
    int64_t row_stride[CLPOOL_MAX_SPATIAL], col_stride[CLPOOL_MAX_SPATIAL];
    for (int32_t i = ns - 1; i >= 0; --i) {
        row_stride[i] = in_plane;
        in_plane *= g.in[i];
    }
    for (int64_t i = 0, acc = 1; i < ns; ++i) {
        col_stride[i] = acc;
        acc *= g.in[i];
    }
    for (int32_t i = 0; i < ns; ++i) {
        out_plane *= g.out[i];
        taps *= p->kernel_shape[i];
    }
    const int64_t planes = input_shape->dims[0] * input_shape->dims[1];
    const size_t esize = ref_dtype_size(dtype);

    /* Every element decoded once; the taps read doubles. */
    double *values = malloc((size_t)(planes * in_plane) * sizeof *values + 1);
    if (!values) return -1;
    for (int64_t i = 0; i < planes * in_plane; ++i) values[i] = ref_load(dtype, input, i);
    int64_t o[CLPOOL_MAX_SPATIAL], j[CLPOOL_MAX_SPATIAL];
    for (int64_t nc = 0; nc < planes; ++nc) {
        for (int64_t op = 0; op < out_plane; ++op) {
            unravel(op, ns, g.out, o);
            int64_t best = -1, best_index = 0;
            double best_value = 0.0;
            memset(j, 0, sizeof j);
            for (int64_t t = 0; t < taps; ++t) {
                int64_t row = 0, col = 0;
                int inside = 1;
                for (int32_t i = 0; i < ns && inside; ++i) {
                    const int64_t x = o[i] * p->strides[i] - g.pad_begin[i] + j[i] * p->dilations[i];
                    inside = x >= 0 && x < g.in[i];
                    row += x * row_stride[i];
                    col += x * col_stride[i];
                }
                for (int32_t i = ns - 1; i >= 0 && ++j[i] == p->kernel_shape[i]; --i) j[i] = 0; /* next tap */
                if (!inside) continue;
                const int64_t flat = nc * in_plane + row;
                const double v = values[flat];
                if (best >= 0 && (isnan(best_value) || !(isnan(v) || v > best_value))) continue;
                best = flat;
                best_value = v;
                best_index = nc * in_plane + (p->storage_order ? col : row);
            }
            if (best < 0) { /* unreachable: the shape check rejects empty windows */
                free(values);
                return -1;
            }
            const int64_t dst = nc * out_plane + op;
            memcpy((unsigned char *)output + (size_t)dst * esize, (const unsigned char *)input + (size_t)best * esize,
                   esize);
            if (indices) indices[dst] = best_index;
        }
    }
    free(values);
    return 0;
}

int ref_sum_pool(clpool_dtype dtype, const clpool_shape *input_shape, const clpool_window_params *params,
                 int count_include_pad, int lp, double p, const void *input, double *out, double *abs_mean)
{
    clpool_shape out_shape;
    ref_maxpool_geometry g;
    if (!ref_dtype_is_float(dtype)) return -1;
    if (ref_window_shape(input_shape, params, 0, &out_shape, &g, NULL, 0) != 0) return -1;
    const int32_t ns = g.ns;
    const int64_t planes = input_shape->dims[0] * input_shape->dims[1];
    int64_t in_plane = 1, out_plane = 1;
    for (int32_t i = 0; i < ns; ++i) {
        in_plane *= g.in[i];
        out_plane *= g.out[i];
    }
    for (int64_t pl = 0; pl < planes; ++pl) {
        for (int64_t o = 0; o < out_plane; ++o) {
            int64_t oc[CLPOOL_MAX_SPATIAL], taps[CLPOOL_MAX_SPATIAL];
            unravel(o, ns, g.out, oc);
            /* the divisor: per axis, the taps inside the input or inside the padded input */
            long double count = 1;
            int64_t total = 1;
            for (int32_t i = 0; i < ns; ++i) {
                int64_t c = 0;
                for (int64_t j = 0; j < params->kernel_shape[i]; ++j) {
                    const int64_t x = oc[i] * params->strides[i] - g.pad_begin[i] + j * params->dilations[i];
                    c += count_include_pad ? (x >= -g.pad_begin[i] && x < g.in[i] + g.pad_end[i]) : (x >= 0 && x < g.in[i]);
                }
                count *= (long double)c;
                taps[i] = params->kernel_shape[i];
                total *= taps[i];
            }
            long double sum = 0, abs_sum = 0;
            for (int64_t t = 0; t < total; ++t) {
                int64_t tc[CLPOOL_MAX_SPATIAL], at = 0;
                int inside = 1;
                unravel(t, ns, taps, tc);
                for (int32_t i = 0; i < ns; ++i) {
                    const int64_t x = oc[i] * params->strides[i] - g.pad_begin[i] + tc[i] * params->dilations[i];
                    inside &= x >= 0 && x < g.in[i];
                    at = at * g.in[i] + x;
                }
                if (!inside) continue;
                const long double v = (long double)ref_load(dtype, input, pl * in_plane + at);
                sum += lp ? powl(fabsl(v), (long double)p) : v;
                abs_sum += fabsl(v);
            }
            const int64_t k = pl * out_plane + o;
            out[k] = lp ? (double)powl(sum, 1.0L / (long double)p) : (double)(sum / count);
            if (abs_mean) abs_mean[k] = (double)(abs_sum / (count > 0 ? count : 1));
        }
    }
    return 0;
}

/* ------------------------------------------------------------- MaxUnpool */

int64_t ref_max_unpool(clpool_dtype dtype, const clpool_shape *x_shape, const void *x, const int64_t *indices,
                       const clpool_shape *index_space, const clpool_shape *out_shape, void *output)
{
    const int32_t rank = x_shape->rank, ns = rank - 2;
    if (rank < 3 || index_space->rank != rank || out_shape->rank != rank) return -1;
    const size_t es = ref_dtype_size(dtype);
    const int64_t planes = x_shape->dims[0] * x_shape->dims[1];
    const int64_t n_x = ref_shape_elements(x_shape), n_y = ref_shape_elements(out_shape);
    if (n_x < 0 || n_y < 0) return -1;
    memset(output, 0, (size_t)n_y * es);
    if (planes == 0) return 0;
    int64_t idx_plane = 1, y_plane = 1;
    for (int32_t i = 0; i < ns; ++i) {
        idx_plane *= index_space->dims[2 + i];
        y_plane *= out_shape->dims[2 + i];
    }
    const int64_t x_plane = n_x / planes;
    int64_t skipped = 0, c[CLPOOL_MAX_SPATIAL];
    for (int64_t e = 0; e < n_x; ++e) {
        const int64_t q = e / x_plane, k = indices[e] - q * idx_plane;
        if (indices[e] < q * idx_plane || k >= idx_plane) {
            ++skipped;
            continue;
        }
        unravel(k, ns, index_space->dims + 2, c);
        int64_t at = 0, inside = 1;
        for (int32_t i = 0; i < ns; ++i) {
            inside &= c[i] < out_shape->dims[2 + i];
            at = at * out_shape->dims[2 + i] + c[i];
        }
        if (!inside) {
            ++skipped;
            continue;
        }
        memcpy((unsigned char *)output + (size_t)(q * y_plane + at) * es, (const unsigned char *)x + (size_t)e * es, es);
    }
    return skipped;
}
