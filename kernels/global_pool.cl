/*
 * GlobalMaxPool / GlobalAveragePool / GlobalLpPool: reduce each (n, c) plane
 * of S = prod(spatial) elements to one value.
 *
 * Options: DT_* dtype, -DOP=OP_MAX|OP_AVG|OP_LP, -DLP_KIND=1|2|0 (p == 1,
 * p == 2, general p; only for OP_LP).
 *
 * Strategy (chosen on the host from the shape and the device):
 *  - many planes (N*C fills the device) or small planes: `global_pool_direct`,
 *    one work-item per plane, a serial loop, no barriers (PoCL turns the
 *    work-items into a vectorised loop; GPUs get one thread per plane);
 *  - few large planes: `global_pool_partial` splits each plane over P
 *    work-items that read interleaved elements (lane, lane+P, ...: adjacent
 *    work-items touch adjacent addresses, coalesced on GPUs and vector loads
 *    on PoCL), writing P partial results; `global_pool_final` then combines
 *    each plane's partials. Two barrier-free passes instead of a local-memory
 *    tree, which PoCL would have to split into loops around each barrier.
 * Sums use Kahan compensation in AT (float32 stays accurate on 10^6-element
 * planes), plus a plain running sum that takes over when it is not finite
 * (inf or NaN inputs must give inf/NaN, which compensation alone would turn
 * into NaN). The result is rounded once to the output type.
 */
#define OP_MAX 1
#define OP_AVG 2
#define OP_LP 3

#if OP == OP_MAX
/* A partial is one value; compensation unused. */
#define ACC_INIT(a, first) ((a).s0 = (first), (a).s1 = 0, (a).s2 = 0)
#else
#define ACC_INIT(a, first) ((a).s0 = 0, (a).s1 = 0, (a).s2 = 0)
#endif

/* Value an element contributes to the accumulation. */
inline AT contribution(AT x, AT p)
{
#if OP == OP_LP && LP_KIND == 1
    return fabs(x);
#elif OP == OP_LP && LP_KIND == 2
    return x * x;
#elif OP == OP_LP
    return pow(fabs(x), p);
#else
    (void)p;
    return x;
#endif
}

/* acc = (sum, compensation, plain sum) or (max, -, -). */
typedef struct { AT s0, s1, s2; } acc3;

inline void accumulate(acc3 *a, AT v)
{
#if OP == OP_MAX
    if (MAX_BETTER(v, a->s0)) a->s0 = v;
#else
    const AT y = v - a->s1;
    const AT t = a->s0 + y;
    a->s1 = (t - a->s0) - y;
    a->s0 = t;
    a->s2 += v;
#endif
}

/* The sum an accumulator stands for. */
inline AT acc_value(acc3 a)
{
#if OP == OP_MAX
    return a.s0;
#else
    return isfinite(a.s2) ? a.s0 - a.s1 : a.s2;
#endif
}

inline AT finish(AT v, long count, AT p)
{
#if OP == OP_AVG
    (void)p;
    return v / (AT)count;
#elif OP == OP_LP && LP_KIND == 1
    (void)count; (void)p;
    return v;
#elif OP == OP_LP && LP_KIND == 2
    (void)count; (void)p;
    return sqrt(v);
#elif OP == OP_LP
    (void)count;
    return pow(v, (AT)1 / p);
#else
    (void)count; (void)p;
    return v;
#endif
}

/* One work-item per plane. */
__kernel void global_pool_direct(__global const T *in, __global T *out, const long planes, const long plane_size,
                                 const long in_offset, const long out_offset, const AT p)
{
    const long plane = (long)get_global_id(0);
    if (plane >= planes) return;
    __global const T *x = in + in_offset + plane * plane_size;
    acc3 a;
    ACC_INIT(a, (AT)LOAD(x, 0));
    for (long i = 0; i < plane_size; ++i) accumulate(&a, contribution((AT)LOAD(x, i), p));
    STORE(out + out_offset, plane, finish(acc_value(a), plane_size, p));
}

/* Work-item (plane, lane) reduces elements lane, lane + parts, ... of its plane. */
__kernel void global_pool_partial(__global const T *in, __global AT *partials, const long planes,
                                  const long plane_size, const long parts, const long in_offset, const AT p)
{
    const long gid = (long)get_global_id(0);
    if (gid >= planes * parts) return;
    const long plane = gid / parts, lane = gid % parts;
    __global const T *x = in + in_offset + plane * plane_size;
    acc3 a;
    ACC_INIT(a, (AT)LOAD(x, lane)); /* the host keeps parts <= plane_size: every lane has elements */
    for (long i = lane; i < plane_size; i += parts) accumulate(&a, contribution((AT)LOAD(x, i), p));
    /* Store the compensated value and its error term; non-finite sums pass through. */
#if OP == OP_MAX
    partials[2 * gid] = a.s0;
    partials[2 * gid + 1] = 0;
#else
    const int finite = isfinite(a.s2);
    partials[2 * gid] = finite ? a.s0 : a.s2;
    partials[2 * gid + 1] = finite ? -a.s1 : (AT)0;
#endif
}

/* One work-item per plane combines its `parts` partials (value + correction each). */
__kernel void global_pool_final(__global const AT *partials, __global T *out, const long planes,
                                const long plane_size, const long parts, const long out_offset, const AT p)
{
    const long plane = (long)get_global_id(0);
    if (plane >= planes) return;
    __global const AT *q = partials + 2 * plane * parts;
    acc3 a;
    ACC_INIT(a, q[0]);
    for (long i = 0; i < parts; ++i) {
        accumulate(&a, q[2 * i]);
#if OP != OP_MAX
        accumulate(&a, q[2 * i + 1]);
#endif
    }
    STORE(out + out_offset, plane, finish(acc_value(a), plane_size, p));
}
