/*
 * The sum reductions (-DOP=CLPOOL__OP_REDUCE_AVG or CLPOOL__OP_REDUCE_LP,
 * -DLP_KIND: p == 1, p == 2, other integer p by squaring, 0 general p via
 * pow), for every averaging or Lp kernel family: what an element adds
 * (contribution), the Kahan accumulator in AT with a plain shadow sum that
 * takes over for inf and NaN, 16-lane sums, and the output from a sum
 * (finish: the mean over `count`, or the p-th root), rounded once by STORE.
 * Empty under any other -DOP, so a family of several reductions includes it.
 */
#if OP == CLPOOL__OP_REDUCE_AVG || OP == CLPOOL__OP_REDUCE_LP
/* No fused multiply-adds: Kahan's correction needs each rounding as written,
 * and a lane's sum is then the scalar sum bit for bit. */
#pragma OPENCL FP_CONTRACT OFF
/* Kahan sum with a plain shadow sum for non-finite inputs. */
typedef struct { AT sum, comp, plain; } kahan;

static inline void kahan_add(kahan *k, AT v)
{
    const AT y = v - k->comp;
    const AT t = k->sum + y;
    k->comp = (t - k->sum) - y;
    k->sum = t;
    k->plain += v;
}

static inline AT kahan_value(kahan k)
{
    return isfinite(k.plain) ? k.sum - k.comp : k.plain;
}

/* The windowed sums' order, on every path. A window row (its taps along the last dim) is summed plainly
 * from 0 in tap order, pads adding nothing. Rows of at most CLPOOL__SUM_CHUNK taps add plainly in groups of
 * sum_group_rows consecutive rows (row-major over the whole window), and each group holding a row inside
 * the input is Kahan-added; longer rows are cut into chunks of CLPOOL__SUM_CHUNK taps, each Kahan-added.
 * Plain adds cost a quarter of Kahan's and keep the sum within the documented 24 u of the sum of |terms|
 * (a window of at most CLPOOL__SUM_CHUNK taps is one plain sum). A zero's sign never changes a Kahan sum
 * started at +0, so any path may add 0 for a tap or a row in the padding (not for a whole group). */
static inline long sum_group_rows(long row_taps)
{
    return row_taps <= CLPOOL__SUM_CHUNK ? CLPOOL__SUM_CHUNK / row_taps : 1;
}

/* 16-lane vector form of the accumulator: independent Kahan sums per lane
 * (SIMD, and 16 dependency chains instead of one), merged into a scalar one. */
#if defined(DT_FLOAT64)
#define AT_NAME double
#else
#define AT_NAME float
#endif
typedef CLPOOL_XPASTE(AT_NAME, 16) AT16;
typedef CLPOOL_XPASTE(AT_NAME, 8) AT8;
typedef CLPOOL_XPASTE(AT_NAME, 4) AT4;
typedef CLPOOL_XPASTE(AT_NAME, 2) AT2;

/* The sum of 16 lanes, pairwise (4 levels). */
static inline AT sum_lanes16(AT16 v)
{
    const AT8 v8 = v.lo + v.hi;
    const AT4 v4 = v8.lo + v8.hi;
    const AT2 v2 = v4.lo + v4.hi;
    return v2.lo + v2.hi;
}

/*
 * ipow(a, n): a^n for integer n >= 1 by squaring (a few ulp; PoCL 3.1's
 * double8 pown returned inf). contribution(x, p): what an element adds to the
 * sum. Written once, instantiated for AT and AT16; OP and LP_KIND are
 * constants, so the dead branches fold away.
 */
#define CLPOOL_DEFINE_CONTRIBUTION(type, suffix)                  \
    static inline type ipow##suffix(type a, int n)                       \
    {                                                             \
        type r = 1;                                               \
        for (; n; n >>= 1, a *= a)                                \
            if (n & 1) r *= a;                                    \
        return r;                                                 \
    }                                                             \
    static inline type contribution##suffix(type x, AT p)                \
    {                                                             \
        if (OP != CLPOOL__OP_REDUCE_LP) return x;                                \
        if (LP_KIND == 1) return fabs(x);                         \
        if (LP_KIND == 2) return x * x;                           \
        if (LP_KIND == 3) return ipow##suffix(fabs(x), (int)p);   \
        return pow(fabs(x), (type)p);                             \
    }
CLPOOL_DEFINE_CONTRIBUTION(AT, )
CLPOOL_DEFINE_CONTRIBUTION(AT16, 16)

/* General float p stays on the scalar path: PoCL 3.1's double8 pow returned
 * inf for ordinary inputs, and pow dominates the cost anyway. */
#define VECTOR_SUM (OP != CLPOOL__OP_REDUCE_LP || LP_KIND != 0)

/* The output from a sum of `count` taps (counted as AveragePool's divisor): written once, for AT and AT16. */
#define CLPOOL_DEFINE_FINISH(type, suffix)                                    \
    static inline type finish##suffix(type v, type count, AT p)                      \
    {                                                                         \
        if (OP == CLPOOL__OP_REDUCE_AVG) return v / count;                        \
        if (LP_KIND == 1) return v;                                           \
        if (LP_KIND == 2) return sqrt(v);                                     \
        return pow(v, (type)((AT)1 / p));                                     \
    }
CLPOOL_DEFINE_FINISH(AT, )
CLPOOL_DEFINE_FINISH(AT16, 16)
#endif
