/* Cache-blocked, vectorised host SGEMM behind the `omp` variant:
 * C = A * B, float32, row-major with leading dimensions, every core through
 * OpenMP.
 *
 * The Goto/BLIS scheme in portable C11 (plus GCC/Clang vector extensions,
 * which -pedantic accepts; no intrinsics headers, no inline assembly):
 *
 *   for jc in n, step NC            B panel  KC x NC  packed once, shared (L3)
 *     for pc in k, step KC
 *       pack B~ (all threads, by NR-wide slivers)
 *       for ic0 in m, step MS       A stripe MS x KC  packed once, shared
 *         pack A~ (all threads, by MR-tall slivers)
 *         tasks = (MC-row block) x (group of NR slivers), dynamic schedule:
 *           for each sliver jr:     B sliver KC x NR stays in L1
 *             for each ir in block: A block MC x KC stays in L2
 *               micro-kernel MR x NR, accumulators in registers
 *
 * Packed slivers are zero-padded to MR / NR, so the micro-kernel never
 * branches; only the write-back of an edge tile goes through a small buffer.
 * Both A~ and B~ are shared by all threads, and the work is split in two
 * dimensions (rows and columns of C), so small m or small n still keeps
 * every core busy (e.g. 16 cores on m = 64).
 *
 * Blocking (float32; the target's vector width picks the set, below):
 *   MR x NR: the micro-tile's accumulators fill most of the vector
 *     registers and are never spilled: AVX2 6 x 16 (12 of 16 registers,
 *     12 FMAs per 2 loads + 6 broadcasts per k step), AVX-512 12 x 32
 *     (24 of 32 registers).
 *   KC: a B sliver (KC x NR) stays in L1d across the MC/MR micro-kernel
 *     calls that reuse it, with room for the A sliver streaming past it.
 *   MC: an A block (MC x KC) stays in L2 across all the B slivers of a task.
 *   NC, MS: the shared B~ (KC x NC) and A~ (MS x KC) stay in L3.
 *
 * If the packing buffers cannot be allocated, a plain (slow, correct)
 * loop computes C instead: the function returns void and must not fail. */
#include "workloads/gemm.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Register and cache blocking, chosen by the vector width the target has
 * (the compiler's target macros pick it; every value may be overridden with
 * -D for tuning). SG_VW: floats per vector; SG_NV: vectors per C row of the
 * micro-tile, so SG_NR = SG_NV * SG_VW. */
#if defined(__AVX512F__)
/* 32 registers of 16: 12 x 2 accumulators + 2 B vectors + 1 broadcast = 27. */
#define SG_VW_DEF 16
#define SG_MR_DEF 12
#define SG_KC_DEF 192 /* B sliver 192 x 32 x 4 B = 24 KiB of a 32-48 KiB L1d */
#define SG_MC_DEF 240 /* A block 240 x 192 x 4 B = 180 KiB of a 1-2 MiB L2 */
#elif defined(__AVX__)
/* 16 registers of 8: 6 x 2 accumulators + 2 B vectors + 1 broadcast = 15. */
#define SG_VW_DEF 8
#define SG_MR_DEF 6
#define SG_KC_DEF 256 /* B sliver 256 x 16 x 4 B = 16 KiB of a 32 KiB L1d */
#define SG_MC_DEF 144 /* A block 144 x 256 x 4 B = 144 KiB of a 512 KiB L2 */
#else
/* 128-bit vectors (SSE, NEON), 16 registers or more: 6 x 2 + 2 + 1 = 15. */
#define SG_VW_DEF 4
#define SG_MR_DEF 6
#define SG_KC_DEF 256 /* B sliver 256 x 8 x 4 B = 8 KiB */
#define SG_MC_DEF 144
#endif
#ifndef SG_VW
#define SG_VW SG_VW_DEF
#endif
#ifndef SG_MR
#define SG_MR SG_MR_DEF
#endif
#ifndef SG_NV
#define SG_NV 2
#endif
#ifndef SG_KC
#define SG_KC SG_KC_DEF
#endif
#ifndef SG_MC
#define SG_MC SG_MC_DEF /* upper bound; each stripe evens it out, a multiple of MR */
#endif
#ifndef SG_NC
#define SG_NC 2048 /* B~ = KC x NC x 4 B = 1.5-2 MiB, shared, in L3 */
#endif
#ifndef SG_MS
#define SG_MS 1536 /* rows of A packed at once: A~ = MS x KC x 4 B <= 1.5 MiB */
#endif
#define SG_NR (SG_NV * SG_VW)
#define SG_ALIGN 64

typedef float vf __attribute__((vector_size(SG_VW * sizeof(float))));

/* ISO C mode (-std=c11) makes GCC default to -ffp-contract=off, which would
 * split every a*b+c into a multiply and an add; the micro-kernel asks for
 * fused multiply-adds. Clang contracts within an expression by default. */
#if defined(__GNUC__) && !defined(__clang__)
#define SG_CONTRACT __attribute__((optimize("fp-contract=fast")))
#else
#define SG_CONTRACT
#endif

static inline vf sg_loadu(const float *p) {
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void sg_storeu(float *p, vf v) { memcpy(p, &v, sizeof v); }

static size_t sg_min(size_t x, size_t y) { return x < y ? x : y; }

static size_t sg_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* C(mr x nr) = or += A~ sliver (kc x MR, a column of MR per k) times
 * B~ sliver (kc x NR, a row of NR per k). Vector loads go through memcpy
 * (no type punning); the loops have constant bounds, so the compiler unrolls
 * them and keeps acc[][] in registers (checked in the assembly: one
 * broadcast and NV FMAs per row per k step, no spills). */
SG_CONTRACT static void sg_kernel(size_t kc, const float *restrict ap, const float *restrict bp,
                                  float *restrict c, size_t ldc, int accumulate, size_t mr,
                                  size_t nr) {
    /* Ask for the C tile now, so its cache misses overlap the k loop rather
     * than stall the write-back (matters when kc is small). */
    for (size_t i = 0; i < mr; ++i) {
        __builtin_prefetch(c + i * ldc, 1, 3);
        __builtin_prefetch(c + i * ldc + nr - 1, 1, 3);
    }

    vf acc[SG_MR][SG_NV];
    for (int i = 0; i < SG_MR; ++i)
        for (int v = 0; v < SG_NV; ++v) acc[i][v] = (vf){0};

    for (size_t p = 0; p < kc; ++p) {
        vf bv[SG_NV];
        for (int v = 0; v < SG_NV; ++v) bv[v] = sg_loadu(bp + v * SG_VW);
        for (int i = 0; i < SG_MR; ++i) {
            const float a = ap[i];
            for (int v = 0; v < SG_NV; ++v) acc[i][v] += bv[v] * a;
        }
        ap += SG_MR;
        bp += SG_NR;
    }

    if (mr == SG_MR && nr == SG_NR) {
        for (int i = 0; i < SG_MR; ++i) {
            float *ci = c + (size_t)i * ldc;
            for (int v = 0; v < SG_NV; ++v) {
                vf x = acc[i][v];
                if (accumulate) x += sg_loadu(ci + v * SG_VW);
                sg_storeu(ci + v * SG_VW, x);
            }
        }
        return;
    }

    /* Edge tile: spill the whole MR x NR tile, write back the valid part. */
    float t[SG_MR * SG_NR];
    for (int i = 0; i < SG_MR; ++i)
        for (int v = 0; v < SG_NV; ++v) sg_storeu(t + i * SG_NR + v * SG_VW, acc[i][v]);
    for (size_t i = 0; i < mr; ++i) {
        float *ci = c + i * ldc;
        const float *ti = t + i * SG_NR;
        if (accumulate)
            for (size_t j = 0; j < nr; ++j) ci[j] += ti[j];
        else
            for (size_t j = 0; j < nr; ++j) ci[j] = ti[j];
    }
}

/* One MR-row sliver of A (rows i0.., k range p0..p0+kc) into dst, column by
 * column (MR values per k), rows past m zero. */
static void sg_pack_a(size_t mr, size_t kc, const float *a, size_t lda, float *restrict dst) {
    if (mr == SG_MR) {
        for (size_t p = 0; p < kc; ++p) {
            for (size_t i = 0; i < SG_MR; ++i) dst[i] = a[i * lda + p];
            dst += SG_MR;
        }
        return;
    }
    for (size_t p = 0; p < kc; ++p) {
        size_t i = 0;
        for (; i < mr; ++i) dst[i] = a[i * lda + p];
        for (; i < SG_MR; ++i) dst[i] = 0.0f;
        dst += SG_MR;
    }
}

/* One NR-column sliver of B (k range, columns j0..j0+nr) into dst, row by
 * row (NR values per k), columns past n zero. */
static void sg_pack_b(size_t nr, size_t kc, const float *b, size_t ldb, float *restrict dst) {
    if (nr == SG_NR) {
        for (size_t p = 0; p < kc; ++p) {
            memcpy(dst, b + p * ldb, SG_NR * sizeof *dst);
            dst += SG_NR;
        }
        return;
    }
    for (size_t p = 0; p < kc; ++p) {
        const float *bp = b + p * ldb;
        size_t j = 0;
        for (; j < nr; ++j) dst[j] = bp[j];
        for (; j < SG_NR; ++j) dst[j] = 0.0f;
        dst += SG_NR;
    }
}

/* The fallback when packing buffers cannot be had: correct, unblocked. */
static void sg_simple(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                      size_t ldb, float *c, size_t ldc) {
    for (size_t i = 0; i < m; ++i) {
        float *ci = c + i * ldc;
        for (size_t j = 0; j < n; ++j) ci[j] = 0.0f;
        for (size_t p = 0; p < k; ++p) {
            const float aip = a[i * lda + p];
            const float *bp = b + p * ldb;
            for (size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
        }
    }
}

static void *sg_alloc(size_t floats) {
    size_t bytes = sg_round_up(floats * sizeof(float), SG_ALIGN);
    return aligned_alloc(SG_ALIGN, bytes);
}

void co_sgemm_blocked(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                      size_t ldb, float *c, size_t ldc) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (size_t i = 0; i < m; ++i) memset(c + i * ldc, 0, n * sizeof *c);
        return;
    }

    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads < 1) threads = 1;
#endif

    /* Buffer sizes: only as large as this problem needs. */
    const size_t kc_max = sg_min(k, SG_KC);
    const size_t nc_max = sg_round_up(sg_min(n, SG_NC), SG_NR);
    const size_t ms_max = sg_round_up(sg_min(m, SG_MS), SG_MR);
    float *bt = sg_alloc(kc_max * nc_max);
    float *at = sg_alloc(kc_max * ms_max);
    if (bt == NULL || at == NULL) {
        free(bt);
        free(at);
        sg_simple(m, n, k, a, lda, b, ldb, c, ldc);
        return;
    }

#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    for (size_t jc = 0; jc < n; jc += SG_NC) {
        const size_t nc = sg_min(SG_NC, n - jc);
        const size_t nsl = (nc + SG_NR - 1) / SG_NR; /* B slivers in this panel */

        for (size_t pc = 0; pc < k; pc += SG_KC) {
            const size_t kc = sg_min(SG_KC, k - pc);
            const int accumulate = pc > 0;

            /* Pack B~ (kc x nc) sliver by sliver; the implicit barrier at the
             * end of the loop publishes it to every thread. */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (size_t s = 0; s < nsl; ++s) {
                const size_t j = s * SG_NR;
                sg_pack_b(sg_min(SG_NR, nc - j), kc, b + pc * ldb + jc + j, ldb,
                          bt + s * SG_NR * kc);
            }

            for (size_t ic0 = 0; ic0 < m; ic0 += SG_MS) {
                const size_t ms = sg_min(SG_MS, m - ic0);
                const size_t msl = (ms + SG_MR - 1) / SG_MR; /* A slivers */

#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
                for (size_t s = 0; s < msl; ++s) {
                    const size_t i = s * SG_MR;
                    sg_pack_a(sg_min(SG_MR, ms - i), kc, a + (ic0 + i) * lda + pc, lda,
                              at + s * SG_MR * kc);
                }

                /* Tasks: row blocks of MC (evened out, a multiple of MR) by
                 * groups of B slivers, enough of them to balance the threads
                 * (about 4 per thread). */
                const size_t nrb = (ms + SG_MC - 1) / SG_MC;
                const size_t mc = sg_round_up((ms + nrb - 1) / nrb, SG_MR);
                const size_t rb = (ms + mc - 1) / mc; /* row blocks, <= nrb */
                size_t want = (4 * (size_t)threads + rb - 1) / rb;
                if (want > nsl) want = nsl;
                if (want < 1) want = 1;
                const size_t gw = (nsl + want - 1) / want; /* slivers per group */
                const size_t groups = (nsl + gw - 1) / gw;
                const size_t tasks = rb * groups;

#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
                for (size_t t = 0; t < tasks; ++t) {
                    const size_t r = t / groups, g = t % groups;
                    const size_t i0 = r * mc, i1 = sg_min(ms, i0 + mc);
                    const size_t s0 = g * gw, s1 = sg_min(nsl, s0 + gw);
                    for (size_t s = s0; s < s1; ++s) {
                        const size_t j = s * SG_NR;
                        const size_t nr = sg_min(SG_NR, nc - j);
                        const float *bs = bt + s * SG_NR * kc;
                        for (size_t i = i0; i < i1; i += SG_MR) {
                            sg_kernel(kc, at + i * kc, bs, c + (ic0 + i) * ldc + jc + j, ldc,
                                      accumulate, sg_min(SG_MR, ms - i), nr);
                        }
                    }
                }
            }
        }
    }

    free(at);
    free(bt);
}
