/*
 * The sum pools' VW-lane mechanics, shared by their vector kernels
 * (sum_pool_nd.cl, sum_pool_2d.cl): the accumulation type's lane vector, an
 * element's contribution and the finish in it, lane sums, and the output's one
 * rounding to T and store. Built after reduce_sum.h, with -DVW; empty for
 * MaxPool (window_channels_last's program serves every op).
 */
#if OP != CLPOOL__OP_REDUCE_MAX
/* The accumulation type's VW-lane vector, an element's contribution and the
 * finish in it; a mask of AT's width (long lanes for double). */
typedef CTV(VW) ATV;
typedef CLPOOL_XPASTE(uint, VW) UINTV;
CLPOOL_DEFINE_CONTRIBUTION(ATV, _v)
CLPOOL_DEFINE_FINISH(ATV, _v)
#if defined(DT_FLOAT64)
#define AT_MASK(m) CONVERT_LONGV(VW, m)
#else
#define AT_MASK(m) (m)
#endif

/* Lane sums of the chunks: Kahan (plain = 0) or plain (the second pass). */
static inline void lane_add(ATV *sum, ATV *comp, ATV c, int plain)
{
    if (plain) {
        *sum += c;
        return;
    }
    const ATV y = c - *comp;
    const ATV t = *sum + y;
    *comp = (t - *sum) - y;
    *sum = t;
}

/* VW outputs' rounding to T and store: whole blocks as vectors (float16: vstore_halfN_rte, core OpenCL C;
 * bfloat16: float_to_bfloat16's rounding lane-wise), a partial block element by element. */
static inline void store_block(__global T *out, ATV r, int lanes)
{
    if (lanes == VW) {
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
        VSTOREV(VW, r, out);
#elif defined(DT_FLOAT16)
        CLPOOL_XPASTE(CLPOOL_XPASTE(vstore_half, VW), _rte)(r, 0, (__global half *)out);
#else
        const UINTV u = CLPOOL_XPASTE(as_uint, VW)(r);
        const UINTV rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        const UINTV quiet = (u >> 16) | 0x40u; /* NaN: quieted, as float_to_bfloat16 */
        VSTOREV(VW, CLPOOL_XPASTE(convert_ushort, VW)(select(rounded, quiet, (u & 0x7fffffffu) > 0x7f800000u)), out);
#endif
        return;
    }
    AT v[VW];
    VSTOREV(VW, r, v);
    for (int l = 0; l < lanes; ++l) STORE(out, l, v[l]);
}

#define CONVERT_ATV(x) CLPOOL_XPASTE(CLPOOL_XPASTE(convert_, AT_NAME), VW)(x)

/* VW sums of `count` taps each finished (reduce_sum.h) and stored at out, `lanes` of them. */
static inline void finish_store(__global T *out, ATV r, ATV count, const AT p, int lanes)
{
#if OP == CLPOOL__OP_REDUCE_LP && (LP_KIND == 0 || LP_KIND == 3)
    /* pow per lane: PoCL 3.1's double8 pow returns wrong values (reduce_sum.h); Lp needs no count */
    (void)count;
    AT v[VW];
    VSTOREV(VW, r, v);
    for (int l = 0; l < VW; ++l) v[l] = finish(v[l], 0, p);
    r = VLOADV(VW, v);
#else
    r = finish_v(r, count, p);
#endif
    store_block(out, r, lanes);
}
#endif
