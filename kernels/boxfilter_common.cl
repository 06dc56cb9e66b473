/* The box filter's kernels share this header (kernels/boxfilter.cl: the
 * direct and two-pass kernels and the image one; kernels/boxfilter_fused.cl:
 * the fused single passes), included by each (kernels.c expands the
 * #include; the host C of the `c` variant includes it through boxfilter.cl).
 *
 * Borders as OpenCV's borderInterpolate (clamp = BORDER_REPLICATE,
 * reflect101, zero = BORDER_CONSTANT 0; the divisor is always the full
 * (2r+1)^2). A row is W pixels of BF_CH interleaved channels; an "element"
 * is one channel of one pixel, so RGBA8 is filtered as 4 independent planes
 * whose horizontal neighbours are BF_CH elements apart.
 *
 * Defines: BF_U8 (0: float32, 1: 8-bit elements with exact 32-bit integer
 * sums), BF_CH (channels a pixel: 1, or 4 for RGBA8; the host's format
 * table gives both), BF_PX4 (the fused passes: an RGBA8 pixel one uchar4
 * element, BF_CH 1); BF_NAME suffixes names (the host C, once per format). Here: the border
 * rule and the windows as spans (format-free, once), then each format's
 * types and its sums: compensated (float) or exact (uint). The GLSL twins
 * (kernels/boxfilter.comp, CO_GLSL) include the format-free part only, so
 * it is written in the C that is also GLSL: conditions are comparisons
 * (BF_FALSE), casts BF_UINT. */

#ifndef BF_COMMON_
#define BF_COMMON_
#define BF_CLAMP 0
#define BF_REFLECT101 1
#define BF_ZERO 2
#ifdef CO_GLSL
#define BF_UINT(x) uint(x)
#define BF_FALSE false
#else
#define BF_UINT(x) ((uint)(x))
#define BF_FALSE 0
#endif

/* Index p of a line of n pixels after the border rule: in [0, n), or -1
 * where the zero border reads 0. Reflect101 repeated until inside (OpenCV)
 * is periodic with period 2(n-1): computed here in closed form. */
CO_INLINE int bf_map(int p, int n, int border) {
    if (BF_UINT(p) < BF_UINT(n)) return p;
    if (border == BF_CLAMP) return p < 0 ? 0 : n - 1;
    if (border == BF_ZERO || n == 1) return border == BF_ZERO ? -1 : 0;
    /* Reflect101 is even about 0, so |p| maps as p does: GLSL leaves % of a negative
     * undefined (NVIDIA's Vulkan differed from C there: 2026-12-02-h200-n.md, run 6). */
    const int period = 2 * (n - 1), q = (p < 0 ? -p : p) % period;
    return q < n ? q : period - q;
}

/* The window of position `at` (+- r) on a line of n pixels, as weights on
 * the line's own pixels, so that no radius costs more than O(n) reads:
 * pixels a..b once each (empty where a > b); with clamp (and reflect101 on
 * a line of one pixel, which maps everything to it) pixel 0 `left` times
 * more and pixel n-1 `right` times; with reflect101 (period 2(n-1)) every
 * pixel `periods` times a whole period (the two ends once a period, the
 * others twice), then `rem` taps from tap position rem0 through bf_map. The
 * zero border keeps a..b only: its taps outside add 0. */
struct bf_span {
    int a, b, left, right, periods, rem0, rem;
};
#ifndef CO_GLSL
typedef struct bf_span bf_span; /* GLSL: the struct's name is its type */
#endif

CO_INLINE bf_span bf_window(int at, int r, int n, int border) {
    bf_span sp;
    const int lo = at - r, hi = at + r; /* |at|, r < 2^30: no overflow */
    sp.periods = 0, sp.rem0 = 0, sp.rem = 0, sp.left = 0, sp.right = 0;
    if (border == BF_REFLECT101 && n > 1 && (lo < 0 || hi >= n)) {
        const int period = 2 * (n - 1), taps = 2 * r + 1;
        sp.periods = taps / period;
        sp.rem0 = lo;
        sp.rem = taps - sp.periods * period;
        sp.a = 0, sp.b = sp.periods != 0 ? n - 1 : -1;
        return sp;
    }
    sp.a = lo < 0 ? 0 : lo;
    sp.b = hi >= n ? n - 1 : hi;
    if (border != BF_ZERO) {
        sp.left = lo < 0 ? -lo : 0;
        sp.right = hi >= n ? hi - (n - 1) : 0;
    }
    return sp;
}
/* Pixel p's weight among a..b: 1, or with whole reflect101 periods the
 * periods' count of it. */
CO_INLINE int bf_span_weight(bf_span sp, int p, int n) {
    return sp.periods != 0 ? sp.periods * (p == 0 || p == n - 1 ? 1 : 2) : 1;
}
/* ADD(p, k) for every pixel p of the span with its weight k. */
#define BF_SPAN_EACH(sp, n, border, ADD)                                                      \
    do {                                                                                     \
        for (int p_ = (sp).a; p_ <= (sp).b; p_++) ADD(p_, bf_span_weight((sp), p_, (n)));    \
        if ((sp).left != 0) ADD(0, (sp).left);                                               \
        if ((sp).right != 0) ADD((n) - 1, (sp).right);                                       \
        for (int j_ = 0; j_ < (sp).rem; j_++) ADD(bf_map((sp).rem0 + j_, (n), (border)), 1); \
    } while (BF_FALSE)

/* The row pitch, in elements, of box_ring's batch rows in local memory
 * with BF_VEC (hc columns): 4 (mod 32), so that the 16-byte reads of eight
 * rows at one column (a quarter-warp's) fall on distinct banks. */
CO_INLINE int bf_lm_pitch(int hc) { return (hc + 31) / 32 * 32 + 4; }

/* box_quad (kernels/boxfilter_quad.cl and .comp): whether rows ya .. yz - 1
 * of quad q (pixels 4q .. 4q+3) are inside the image, so that the border
 * rule maps none of them. */
CO_INLINE bool q_inside(int W, int H, int q, int ya, int yz) {
    return ya >= 0 && yz <= H && q >= 0 && 4 * q + 4 <= W;
}
/* q_inside for virtual rows ya .. yz - 1 of a segment walked in direction
 * dir (box_quad's QFLIP): image rows base + dir u. */
CO_INLINE bool q_rows_inside(int W, int H, int q, int base, int dir, int ya, int yz) {
    return dir > 0 ? q_inside(W, H, q, base + ya, base + yz)
                   : q_inside(W, H, q, base - (yz - 1), base - ya + 1);
}
#endif
#ifndef CO_GLSL /* the formats: kernels/boxfilter.comp has its own */

#ifndef BF_NAME
#define BF_NAME(x) x
#endif
#ifndef BF_U8
#define BF_U8 0
#endif
#ifndef BF_CH
#define BF_CH 1
#endif
#ifndef BF_PX4
#define BF_PX4 0
#endif
#undef BF_T
#undef BF_ACC
#undef BF_SUM0
#undef BF_NORM
#undef BF_ACC0
#undef BF_IN
/* BF_SUM0 starts a sum. For float it is -0: x + -0 is x for every x, so
 * the compiler drops the first add; x + +0 is not (-0 + +0 = +0), so with
 * +0 every partial sum cost an add more (box_ring at r = 64 for sm_90: 30
 * adds a 16-row batch, 648 -> 558 in its SASS). */
#if BF_PX4
/* BF_PX4 (the fused passes, RGBA8 on OpenCL and CUDA): an element is a
 * whole pixel, uchar4, its four sums a uint4, so that a work-item loads 4
 * bytes a row (a warp 128, as for float32) rather than one, and does the
 * 4 channels' adds with one set of indices (H200, 8192^2: byte elements
 * reached 29% of the copy ceiling at r = 1, 5% at r = 64; 2026-12-02-h200-n.md).
 * The kernel then has one channel (BF_CH 1). CUDA's uint4 has no
 * arithmetic: the operators the sums use, here. */
#if !BF_U8 || BF_CH != 1
#error "BF_PX4 needs BF_U8 1 and BF_CH 1 (a uchar4 pixel an element)"
#endif
#define BF_T uchar4
#define BF_ACC uint4
#ifdef CO_CUDA
CO_INLINE uint4 operator+(uint4 a, uint4 b) { return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
CO_INLINE uint4 operator-(uint4 a, uint4 b) { return make_uint4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
CO_INLINE uint4 &operator+=(uint4 &a, uint4 b) { return a = a + b; }
CO_INLINE uint4 &operator-=(uint4 &a, uint4 b) { return a = a - b; }
#define BF_ACC0 make_uint4(0u, 0u, 0u, 0u)
CO_INLINE uint4 bf_in(uchar4 p) { return make_uint4(p.x, p.y, p.z, p.w); }
#define BF_Q(s, h, n) make_uchar4((uchar)(((s).x + (h)) / (n)), (uchar)(((s).y + (h)) / (n)), \
                                  (uchar)(((s).z + (h)) / (n)), (uchar)(((s).w + (h)) / (n)))
#else
#define BF_ACC0 ((uint4)(0u))
#define bf_in(p) convert_uint4(p)
#define BF_Q(s, h, n) convert_uchar4(((s) + (h)) / (n))
#endif
#define BF_IN(x) bf_in(x)
#define BF_SUM0 BF_ACC0
/* Round to nearest, as the scalar 8-bit format below. */
#define BF_NORM(s, r) BF_Q((s), (uint)((2 * (r) + 1) * (2 * (r) + 1)) / 2u, \
                           (uint)((2 * (r) + 1) * (2 * (r) + 1)))
#elif BF_U8
#define BF_T uchar
#define BF_ACC uint
#define BF_SUM0 0u
/* (2r+1)^2 is odd: adding half of it rounds to nearest with no ties. */
#define BF_NORM(s, r) ((uchar)(((s) + (uint)((2 * (r) + 1) * (2 * (r) + 1)) / 2u) / \
                               (uint)((2 * (r) + 1) * (2 * (r) + 1))))
#else
#define BF_T float
#define BF_ACC float
#define BF_SUM0 (-0.0f)
/* A multiply by the reciprocal (hoisted out of loops), not a division. */
#define BF_NORM(s, r) ((s) * (1.0f / ((float)(2 * (r) + 1) * (float)(2 * (r) + 1))))
#endif
#if !BF_PX4
#define BF_ACC0 ((BF_ACC)0) /* a zero sum */
#define BF_IN(x) ((BF_ACC)(x)) /* an input element as a sum */
#endif

/* v += delta for a running sum. Float: compensated (Kahan), so rounding
 * grows with |delta| rather than with the sum, over the whole segment;
 * `comp` carries the lost low-order part. uint wraps and comes back exactly. */
#undef BF_SLIDE
#if BF_U8
#define BF_SLIDE(v, comp, delta) ((v) += (delta), (void)(comp))
#else
#define BF_SLIDE(v, comp, delta)                                                             \
    do {                                                                                     \
        const float y_ = (delta) - (comp), t_ = (v) + y_;                                    \
        (comp) = (t_ - (v)) - y_;                                                            \
        (v) = t_;                                                                            \
    } while (0)
#endif
/* s += x compensated (Kahan: the sum's error stays near 2u times the sum
 * of |x|, whatever the count); BF_KSUM(s, comp) is the sum. uint: exact. */
#undef BF_KADD
#undef BF_KSUM
#define BF_KADD(s, comp, x) BF_SLIDE(s, comp, x)
#if BF_U8
#define BF_KSUM(s, comp) ((void)(comp), (s))
#else
#define BF_KSUM(s, comp) ((s) - (comp))
#endif
/* Within a batch: `run` starts at BF_RUN0(comp) (the compensation's
 * negative, for float) and adds the batch's deltas (a plain sum of at most
 * a batch of them); each row's running sum is then BF_AT(v, run), one add
 * away, without moving (v, comp), and BF_END(v, comp, run) ends the batch
 * with BF_SLIDE's compensated update by the whole run. The dependent chain
 * of a batch is one add a row, not BF_SLIDE's four. */
#undef BF_RUN0
#undef BF_END
#if BF_U8
#define BF_RUN0(comp) ((void)(comp), BF_ACC0)
#define BF_END(v, comp, run) ((v) += (run), (void)(comp))
#else
#define BF_RUN0(comp) (-(comp))
#define BF_END(v, comp, run)                                                                 \
    do {                                                                                     \
        const float t_ = (v) + (run);                                                        \
        (comp) = (t_ - (v)) - (run);                                                         \
        (v) = t_;                                                                            \
    } while (0)
#endif
#undef BF_AT
#define BF_AT(v, run) ((v) + (run))
#endif /* !CO_GLSL */
