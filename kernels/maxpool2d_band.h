/* The plane and flat paths' band (maxpool2d_plane.cl, maxpool2d_flat.cl):
 * after maxpool2d_block.h. Stride 1 without Indices only. */
#if WITH_INDICES || SH != 1 || SW != 1
#error "the plane and flat paths: stride 1 without Indices"
#endif

/* An FVW-lane vector of compared values at element x of private array a. */
typedef FAST_ELEM __attribute__((ext_vector_type(FVW), aligned(sizeof(FAST_ELEM)))) plane_vec_elem_aligned;
#define PLANE_AT(a, x) (*(plane_vec_elem_aligned *)((a) + (x)))

/* The plane and flat paths: a band's `rows` output rows (from output element
 * o; input rows from h0) redone by the exact path where its watch saw a NaN
 * (or a 16-bit -0) in the band's input. */
__attribute__((always_inline)) static inline void band_redo_if_watched(const fast_watch ok, __global const T *plane,
                                                                __global T *out, const long H, const long W,
                                                                const long h0, const long pad_w, const long OW,
                                                                const int rows, const long o, const long nc,
                                                                const long buf_lo, const long buf_hi)
{
#if EXACT_PATH
    if (!BLOCK_DONE(ok))
        for (long ow = 0; ow < OW; ow += FVW) {
            const long col = block_start(ow, OW, FVW);
            maxpool2d_redo_exact(plane, out, 0, (int)H, (int)W, (int)h0, (int)(col - pad_w),
                                 (int)min(OW - col, (long)FVW), rows, o + col, OW, nc, 1, buf_lo, buf_hi, FVW);
        }
#else
    (void)ok;
#endif
}
