/*
 * The max reduction (-DOP=CLPOOL__OP_REDUCE_MAX), for every max-like kernel
 * family (MaxPool's windows, GlobalMaxPool, Max): the NaN and tie rule
 * (MAX_BETTER), its lane-wise forms, and the order keys.
 *   MAX_BETTERV(n, v, best) per-lane MAX_BETTER as an intn mask (-1 = take v;
 *                           common.h's SELECT_MASKV / RAW_MASKV widen it)
 * Max-like kernels select the storage bits alongside the values and store
 * the bits, so results are exact for every dtype (float16/bfloat16 NaN
 * payloads included) without converting back.
 */
#if IS_FLOAT_TYPE
/* Written as isgreater | (isnan & !isnan): PoCL compiled the equivalent ~isnan(best) & ~(v <= best)
 * to far slower code (see docs/design.md). */
#define MAX_BETTERV(n, v, best) CONVERT_INTV(n, isgreater(v, best) | (isnan(v) & ~isnan(best)))
#else
#define MAX_BETTERV(n, v, best) CONVERT_INTV(n, (v) > (best))
#endif
#define MAX_BETTER8(v, best) MAX_BETTERV(8, v, best)

/*
 * Order keys of the floating types: ORDER_KEY(bits), order_key8/16(bits) map
 * storage bits to a signed integer (KEY_SCALAR: short, int or long) whose
 * order is the IEEE order with -0 == +0 and every NaN equal to KEY_TOP, above
 * +inf. So the NaN rule (first NaN wins, then stays) is a strict > on keys,
 * a plain integer max() finds the maximum, and a key names its value's bits
 * uniquely except for 0 (+-0) and KEY_TOP (NaN payloads): BITS_OF_KEY.
 */
#if IS_FLOAT_TYPE
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define KEY_SCALAR short
#define KEY_TOP ((short)0x7fff)
#define AS_T as_ushort
#if defined(DT_FLOAT16)
#define KEY_INF ((short)0x7c00)
#else
#define KEY_INF ((short)0x7f80)
#endif
#elif defined(DT_FLOAT32)
#define KEY_SCALAR int
#define KEY_TOP 0x7fffffff
#define KEY_INF 0x7f800000
#define AS_T as_float
#else
#define KEY_SCALAR long
#define KEY_TOP 0x7fffffffffffffffL
#define KEY_INF 0x7ff0000000000000L
#define AS_T as_double
#endif
#define KEYT(n) CLPOOL_XPASTE(KEY_SCALAR, n)
#define CLPOOL_ORDER_KEY_FN(n)                                                                      \
    static inline KEYT(n) CLPOOL_XPASTE(order_key, n)(TV(n) bits)                                          \
    {                                                                                               \
        const KEYT(n) s = CLPOOL_XPASTE(CLPOOL_XPASTE(as_, KEY_SCALAR), n)(bits);                   \
        const KEYT(n) mag = s & KEY_TOP;                                                            \
        return select(select(mag, -mag, s < (KEY_SCALAR)0), (KEYT(n))KEY_TOP, mag > (KEY_SCALAR)KEY_INF); \
    }
CLPOOL_ORDER_KEY_FN(8)
CLPOOL_ORDER_KEY_FN(16)
static inline KEY_SCALAR ORDER_KEY(T bits)
{
    const KEY_SCALAR s = CLPOOL_XPASTE(as_, KEY_SCALAR)(bits);
    const KEY_SCALAR mag = s & KEY_TOP;
    return mag > KEY_INF ? KEY_TOP : s < 0 ? -mag : mag;
}
/* The bits of a key's value; 0 gives +0 and KEY_TOP one NaN (callers resolve those). */
static inline T BITS_OF_KEY(KEY_SCALAR k)
{
    const KEY_SCALAR mag = k < 0 ? (KEY_SCALAR)-k : k;
    return AS_T((KEY_SCALAR)(k < 0 ? mag | (KEY_SCALAR)(-KEY_TOP - 1) : mag));
}
#endif

/*
 * Lane-wise comparison for max-like kernels that carry storage bits:
 *   KTV(n) KEYV(n, bits)  what is compared: order keys for float16/bfloat16
 *                         (no float conversion), the values otherwise
 *   BETTERV(n, k, best)   MAX_BETTER on those, a MASKV(n) (-1 = take k)
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define KTV(n) KEYT(n)
#define KEYV(n, bits) CLPOOL_XPASTE(order_key, n)(bits)
#define BETTERV(n, k, best) ((k) > (best))
#else
#define KTV(n) TV(n)
#define KEYV(n, bits) (bits)
#if IS_FLOAT_TYPE
#define BETTERV(n, k, best) (isgreater(k, best) | (isnan(k) & ~isnan(best)))
#else
#define BETTERV(n, k, best) ((k) > (best))
#endif
#endif

/*
 * The library-wide NaN rule for max-like ops: NaN propagates. `v` replaces
 * `best` when it is larger, or when it is the first NaN seen; once `best` is
 * NaN it stays (so Indices point at the first NaN in tap order). Ties keep
 * the earlier element (strict comparison).
 */
#if IS_FLOAT_TYPE
#define MAX_BETTER(v, best) (isgreater(v, best) || (isnan(v) && !isnan(best)))
#else
#define MAX_BETTER(v, best) ((v) > (best))
#endif

/* b if b > a, else a: one instruction on x86 (maxps/maxpd, integer max). It
 * keeps the earlier of equal values (so +-0 ties go to a) but drops a NaN in
 * b: callers that see NaN check for it separately. */
#define MAX_KEEP_FIRST(a, b) ((b) > (a) ? (b) : (a))
/* The minimum's counterpart: b if b < a, else a (minps, integer min). */
#define MIN_KEEP_FIRST(a, b) ((b) < (a) ? (b) : (a))

/* The max over taps taken one at a time, in tap order (first tiers, scalar
 * paths): the best value, its storage bits (stored as they are, so results
 * are exact for every dtype) and its position; at < 0 until the first tap. */
typedef struct max_acc {
    CT value;
    T bits;
    long at;
} max_acc;

static inline max_acc max_acc_start(void)
{
    const max_acc m = {0, 0, -1};
    return m;
}

static inline void max_acc_tap(max_acc *m, CT v, T bits, long at)
{
    if (m->at < 0 || MAX_BETTER(v, m->value)) {
        m->value = v;
        m->bits = bits;
        m->at = at;
    }
}
