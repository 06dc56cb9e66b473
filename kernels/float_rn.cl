/* Correctly rounded float division and square root from approximate ones,
 * without double (kernels/raytrace.comp; tests/test_float_rn.c).
 *
 * Vulkan allows float a / b and sqrt 2.5 ulp and more; the prelude's
 * co_div / co_sqrt round correctly through double, which on NVIDIA costs
 * two conversions, a double reciprocal or root and its Newton steps at
 * double's rate, and register pairs in the hottest loop. Here: the
 * approximation (FRN_RCP, FRN_RSQRT), one Newton step with fma, which
 * makes the result faithful (within an ulp), then the exact remainder
 * (a - q b, x - y^2: representable for a faithful q or y, so one fma
 * computes it exactly) picks the correctly rounded neighbour. A quotient or
 * root of floats is never exactly halfway between two floats, so there
 * are no ties.
 *
 * Preconditions, the caller's to check: FRN_FMA rounds once (Vulkan lets a
 * driver compute fma() as a*b + c: lavapipe does), and the operands are in
 * frn_div_in_range / frn_sqrt_in_range (no zero, infinity, NaN or
 * subnormal; no remainder that underflows).
 *
 * Written in the subset of C that GLSL shares; the includer maps FRN_BITS
 * (a float's bits as a uint), FRN_FLOAT (back), FRN_FMA, FRN_ABS,
 * FRN_RCP(b) (about 1 / b) and FRN_RSQRT(x) (about 1 / sqrt x). GLSL's and
 * the kernel dialect's (OpenCL, NVRTC) are here; the test maps them to C's,
 * its approximations off by up to 1024 ulp. frn_fma_double, where the
 * includer defines FRN_TO_FLOAT, needs double. */
#if defined(CO_GLSL)
#define FRN_BITS floatBitsToUint
#define FRN_FLOAT uintBitsToFloat
#define FRN_FMA fma
#define FRN_ABS abs
#define FRN_RCP(b) (1.0f / (b))
#define FRN_RSQRT inversesqrt
#define FRN_TO_FLOAT(x) float(x) /* a double rounded to float */
#elif !defined(FRN_BITS)
#define FRN_BITS as_uint
#define FRN_FLOAT as_float
#define FRN_FMA fma
#define FRN_ABS fabs
#define FRN_RCP(b) (1.0f / (b))
#define FRN_RSQRT native_rsqrt
#endif

/* |a| and |b| in [2^-60, 2^61): a / b and a - q b are normal floats. */
CO_INLINE bool frn_div_in_range(float a, float b) {
    const uint ea = (FRN_BITS(a) >> 23) & 0xFFu, eb = (FRN_BITS(b) >> 23) & 0xFFu;
    return ea - 67u <= 120u && eb - 67u <= 120u;
}

CO_INLINE float frn_div(float a, float b) {
    const float r = FRN_RCP(b);
    const float q0 = a * r;
    const float q1 = FRN_FMA(FRN_FMA(-q0, b, a), r, q0); /* faithful */
    const float e1 = FRN_FMA(-q1, b, a);                 /* a - q1 b, exact */
    /* q1's neighbour towards a / b (a / b - q1 = e1 / b): one step of the
     * bits up the magnitude where a / b is further from 0 than q1 */
    const bool further = ((e1 > 0.0f) == (b > 0.0f)) == (q1 > 0.0f);
    const float q2 = FRN_FLOAT(FRN_BITS(q1) + (further ? 1u : 0xFFFFFFFFu));
    return FRN_ABS(FRN_FMA(-q2, b, a)) < FRN_ABS(e1) ? q2 : q1;
}

/* x in [2^-100, 2^101): the root's ulp u and y u are normal floats. */
CO_INLINE bool frn_sqrt_in_range(float x) { return (FRN_BITS(x) >> 23) - 27u <= 200u; }

CO_INLINE float frn_sqrt(float x) {
    const float r = FRN_RSQRT(x);
    const float y0 = x * r, h = 0.5f * r;
    const float y1 = FRN_FMA(FRN_FMA(-y0, y0, x), h, y0); /* faithful */
    const float e = FRN_FMA(-y1, y1, x);                  /* x - y1^2, exact */
    const uint b1 = FRN_BITS(y1);
    const float u = FRN_FLOAT((b1 & 0x7F800000u) - (23u << 23)); /* ulp(y1) */
    const float v = (b1 & 0x7FFFFFu) == 0u ? 0.5f * u : u;      /* the ulp below y1 */
    /* The root against the midpoints y1 + u/2 and y1 - v/2: x - y1^2 is a
     * multiple of u^2 and y1 u of u^2, so e > y1 u is e > y1 u + u^2 / 4
     * (and likewise below). */
    return e > y1 * u ? FRN_FLOAT(b1 + 1u) : e <= -(y1 * v) ? FRN_FLOAT(b1 - 1u) : y1;
}

#ifdef FRN_TO_FLOAT
/* fma(a, b, c) rounded once, through double, for a driver whose fma()
 * rounds twice. a b is exact in double; s = a b + c is rounded once, and
 * its error e is exact (TwoSum; the shader's operations are NoContraction).
 * Rounding s to float again goes wrong only where s lands exactly on the
 * midpoint of two floats (rounding is monotonic: it never crosses one):
 * then e says which side the exact sum is on. */
CO_INLINE float frn_fma_double(float a, float b, float c) {
    const double da = a, db = b, dc = c;
    const double p = da * db, s = p + dc;
    const double bp = s - p, e = (p - (s - bp)) + (dc - bp);
    float r = FRN_TO_FLOAT(s);
    if (e != 0.0 && r != 0.0f) {
        /* r's neighbour on e's side; the exact sum is nearer to it if s is
         * their midpoint */
        const float n = FRN_FLOAT(FRN_BITS(r) + ((e > 0.0) == (r > 0.0f) ? 1u : 0xFFFFFFFFu));
        const double dr = r, dn = n;
        if (0.5 * (dr + dn) == s) r = n;
    }
    return r;
}
#endif
