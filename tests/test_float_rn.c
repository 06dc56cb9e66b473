/* kernels/float_rn.cl (the Vulkan ray tracer's float division and square
 * root) compiled as host C, against double: a quotient or root of floats
 * rounded once from double's is the correctly rounded float (53 bits
 * against 2 x 24 + 2). On the GPU only NVIDIA's driver runs these
 * functions (lavapipe's fma() is not fused, so the shader takes double
 * there): this test is what checks them on every machine.
 *
 * The approximations FRN_RCP and FRN_RSQRT are perturbed by up to 0, 2, 8
 * and 1024 ulp (Vulkan allows 2.5 and more; at 1024 one Newton step leaves
 * the result faithful, not yet rounded, which tests the last step).
 * Quotients: random operands over the whole range, operands at the range's
 * ends, quotients that are exact. Roots: every float in [1, 4) (every
 * significand of both exponent parities), a stride through the whole
 * range, perfect squares and their neighbours, the neighbours of even
 * powers of 2. Then the same with an fma that rounds twice (a*b + c, as
 * lavapipe computes it), which must fail: that is why the shader checks
 * fma() before it takes this route. And frn_fma_double, fma through double
 * for such drivers, against fmaf.
 * Usage: test_float_rn. Built with -ffp-contract=off. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/workload.h" /* co_rng */

typedef uint32_t uint;

static uint bits_of(float f) {
    uint u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static co_rng rng = {88172645463325252ull};

static int max_ulps;  /* the approximations' error: up to this many ulp */
static bool fma_once; /* FRN_FMA rounds once (fmaf) or twice (a*b + c) */

static float perturbed(float v) {
    const int k = (int)(co_rng_next(&rng) % (uint64_t)(2 * max_ulps + 1)) - max_ulps;
    return float_of(bits_of(v) + (uint)k);
}

static float test_fma(float a, float b, float c) {
    if (fma_once) return fmaf(a, b, c);
    const float p = a * b;
    return p + c;
}

#define CO_INLINE static inline
#define FRN_BITS bits_of
#define FRN_FLOAT float_of
#define FRN_FMA test_fma
#define FRN_ABS fabsf
#define FRN_RCP(b) perturbed(1.0f / (b))
#define FRN_RSQRT(x) perturbed((float)(1.0 / sqrt((double)(x))))
#define FRN_TO_FLOAT(x) ((float)(x))
#include "float_rn.cl"

static unsigned long tried, wrong;

static void check_div(float a, float b) {
    if (!frn_div_in_range(a, b)) return;
    const float q = frn_div(a, b), want = (float)((double)a / (double)b);
    tried++;
    if (bits_of(q) != bits_of(want) && wrong++ < 5 && fma_once)
        printf("FAIL %a / %a: %a, expected %a (approximations within %d ulp)\n", (double)a,
               (double)b, (double)q, (double)want, max_ulps);
}

static void check_sqrt(float x) {
    if (!frn_sqrt_in_range(x)) return;
    const float y = frn_sqrt(x), want = (float)sqrt((double)x);
    tried++;
    if (bits_of(y) != bits_of(want) && wrong++ < 5 && fma_once)
        printf("FAIL sqrt %a: %a, expected %a (approximations within %d ulp)\n", (double)x,
               (double)y, (double)want, max_ulps);
}

/* A float of sign s, biased exponent e and random significand. */
static float with_exponent(uint s, uint e) {
    return float_of(s << 31 | e << 23 | (uint)(co_rng_next(&rng) & 0x7FFFFF));
}

static void quotients(void) {
    for (int i = 0; i < 400000; i++) {
        check_div(float_of((uint)co_rng_next(&rng)), float_of((uint)co_rng_next(&rng)));
        const uint s = (uint)co_rng_next(&rng);
        /* the range's ends: biased exponents 67 and 187 */
        check_div(with_exponent(s & 1, 67 + (uint)(co_rng_next(&rng) % 3) * 60),
                  with_exponent(s >> 1 & 1, 67 + (uint)(co_rng_next(&rng) % 3) * 60));
        /* exact quotients: a short b times a short factor */
        const float b = float_of((uint)co_rng_next(&rng) & 0xFFF00000u),
                    f = float_of((uint)co_rng_next(&rng) & 0xBFF80000u);
        check_div(b * f, b);
    }
}

static void roots(void) {
    for (uint u = bits_of(1.0f); u < bits_of(4.0f); u++) check_sqrt(float_of(u));
    for (uint u = 27u << 23; u < 228u << 23; u += 1009) check_sqrt(float_of(u));
    /* next to the squares of powers of 2, where the float below the root
     * is half an ulp away, not one: each many times (the approximations
     * differ each time) */
    for (int e = -100; e < 100; e += 2)
        for (int k = -3; k <= 3; k++)
            for (int t = 0; t < 64; t++) check_sqrt(float_of(bits_of(ldexpf(1, e)) + (uint)k));
    for (int i = 0; i < 200000; i++) {
        const float r =
            float_of(((uint)co_rng_next(&rng) & 0x3FFFF000u) | 0x20000000u); /* 12 bits */
        for (int k = -2; k <= 2; k++) check_sqrt(float_of(bits_of(r * r) + (uint)k));
        check_sqrt(float_of((uint)co_rng_next(&rng) & 0x7FFFFFFFu));
    }
}

/* The ranges' limits: in range exactly from 2^-60 (quotients) and 2^-100
 * (roots), below 2^61 and 2^101; never 0, infinity or NaN. */
static int range_limits(void) {
    const float lo = ldexpf(1, -60), hi = ldexpf(1, 61);
    const bool ok =
        frn_div_in_range(lo, -lo) && frn_div_in_range(-nextafterf(hi, 0), 1) &&
        !frn_div_in_range(nextafterf(lo, 0), 1) && !frn_div_in_range(1, hi) &&
        !frn_div_in_range(0, 1) && !frn_div_in_range(1, INFINITY) && !frn_div_in_range(NAN, 1) &&
        frn_sqrt_in_range(ldexpf(1, -100)) && frn_sqrt_in_range(nextafterf(ldexpf(1, 101), 0)) &&
        !frn_sqrt_in_range(nextafterf(ldexpf(1, -100), 0)) && !frn_sqrt_in_range(ldexpf(1, 101)) &&
        !frn_sqrt_in_range(0) && !frn_sqrt_in_range(-1) && !frn_sqrt_in_range(INFINITY);
    if (!ok) printf("FAIL the operands' ranges (frn_div_in_range, frn_sqrt_in_range)\n");
    return ok ? 0 : 1;
}

/* frn_fma_double against fmaf: random operands whose product and addend
 * overlap, then sums that land in double exactly on a float midpoint (c
 * plus or minus half its ulp times 1 - 2^-2j, j >= 15), where rounding
 * twice goes wrong: that must happen there, or the cases test nothing. */
static int fma_by_double(void) {
    unsigned long n = 0, bad = 0, ties_twice_wrong = 0;
    for (int i = 0; i < 2000000; i++) {
        const bool tie = i & 1;
        const uint e = 100 + (uint)(co_rng_next(&rng) % 50);
        float x = with_exponent((uint)co_rng_next(&rng) & 1, e),
              y = with_exponent((uint)co_rng_next(&rng) & 1, e);
        const float z = with_exponent((uint)co_rng_next(&rng) & 1,
                                      e + e - 127 + (uint)(co_rng_next(&rng) % 9) - 4);
        if (tie) {
            const int j = 15 + (int)(co_rng_next(&rng) % 8);
            const float half_ulp = ldexpf(1, (int)(bits_of(z) >> 23 & 0xFF) - 151);
            x = 1 + ldexpf(1, -j);
            y = (co_rng_next(&rng) & 1 ? half_ulp : -half_ulp) * (1 - ldexpf(1, -j));
        }
        const float want = fmaf(x, y, z), got = frn_fma_double(x, y, z);
        n++;
        if (tie && (float)((double)x * y + z) != want) ties_twice_wrong++;
        if (bits_of(got) != bits_of(want) && bad++ < 5)
            printf("FAIL fma(%a, %a, %a) through double: %a, expected %a\n", (double)x, (double)y,
                   (double)z, (double)got, (double)want);
    }
    printf("fma through double: %lu of %lu wrong (rounding twice: %lu of the midpoint cases)\n",
           bad, n, ties_twice_wrong);
    if (!ties_twice_wrong) printf("FAIL no midpoint case where rounding twice goes wrong\n");
    return bad || !ties_twice_wrong;
}

int main(void) {
    int failed = range_limits() + fma_by_double();
    fma_once = true;
    static const int ulps[] = {0, 2, 8, 1024};
    for (size_t i = 0; i < sizeof ulps / sizeof ulps[0]; i++) {
        max_ulps = ulps[i];
        tried = wrong = 0;
        quotients();
        roots();
        printf("fma rounding once, approximations within %d ulp: %lu of %lu wrong\n", max_ulps,
               wrong, tried);
        failed += wrong != 0;
    }
    /* An fma that rounds twice: wrong results, which the test must see. */
    fma_once = false;
    max_ulps = 2;
    tried = wrong = 0;
    quotients();
    roots();
    printf("fma rounding twice: %lu of %lu wrong (raytrace.comp's RT_FMA_ONCE 0 keeps these on "
           "double)\n",
           wrong, tried);
    if (wrong == 0) {
        printf("FAIL an fma that rounds twice gave no wrong result: the test cannot see errors\n");
        failed++;
    }
    printf("%s\n", failed ? "FAILED" : "passed");
    return failed != 0;
}
