/* Box filter: the normalised (2r+1)x(2r+1) mean, borders as OpenCV's
 * borderInterpolate (clamp = BORDER_REPLICATE, reflect101, zero =
 * BORDER_CONSTANT 0; the divisor is always the full (2r+1)^2).
 *
 * Layout: a row is W pixels of BF_CH interleaved channels; an "element" is
 * one channel of one pixel, so RGBA8 is filtered as 4 independent planes
 * whose horizontal neighbours are BF_CH elements apart.
 *
 * Defines: RGBA8 (0: float32, 1: RGBA8 with exact 32-bit integer sums),
 * BF_FIRST (source is the image, else an intermediate of raw sums),
 * BF_FINAL (destination is the image, normalised; else raw sums),
 * TILE, SY: work-group shape of box_transpose / box_slide.
 *
 * box_naive      one work-item per element, sums its whole window.
 * box_line       one work-item per element, sums 2r+1 neighbours along a row
 *                (dir 0) or a column (dir 1): the two separable passes.
 * box_transpose  TILE x TILE work-groups: sums along the row, then writes
 *                the tile transposed through local memory, so the second
 *                pass also reads along rows and both passes are coalesced.
 * box_slide      running sums down columns (consecutive work-items on
 *                consecutive columns), O(1) work per element at any radius;
 *                each work-item owns one column of a segment of `seg` rows
 *                and restarts its window at the segment start; float sums
 *                are compensated (BF_SLIDE), so the error stays near one
 *                rounding of the window sum; results go out
 *                transposed through local memory, so pass 2 runs down the
 *                columns of the transposed sums and transposes back.
 *
 * This file is also compiled as host C (CO_HOST_C) for the `c` variant,
 * once per format, with BF_NAME suffixing the kernel names. */

#ifndef BF_COMMON_
#define BF_COMMON_
#define BF_CLAMP 0
#define BF_REFLECT101 1
#define BF_ZERO 2

/* Index p of a line of n pixels after the border rule: in [0, n), or -1
 * where the zero border reads 0. Reflect101 repeated until inside (OpenCV)
 * is periodic with period 2(n-1): computed here in closed form. */
CO_INLINE int bf_map(int p, int n, int border) {
    if ((uint)p < (uint)n) return p;
    if (border == BF_CLAMP) return p < 0 ? 0 : n - 1;
    if (border == BF_ZERO || n == 1) return border == BF_ZERO ? -1 : 0;
    const int period = 2 * (n - 1);
    int q = p % period;
    if (q < 0) q += period;
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
typedef struct bf_span {
    int a, b, left, right, periods, rem0, rem;
} bf_span;

CO_INLINE bf_span bf_window(int at, int r, int n, int border) {
    bf_span sp;
    const int lo = at - r, hi = at + r; /* |at|, r < 2^30: no overflow */
    sp.periods = 0, sp.rem0 = 0, sp.rem = 0, sp.left = 0, sp.right = 0;
    if (border == BF_REFLECT101 && n > 1 && (lo < 0 || hi >= n)) {
        const int period = 2 * (n - 1), taps = 2 * r + 1;
        sp.periods = taps / period;
        sp.rem0 = lo;
        sp.rem = taps - sp.periods * period;
        sp.a = 0, sp.b = sp.periods ? n - 1 : -1;
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
    return sp.periods ? sp.periods * (p == 0 || p == n - 1 ? 1 : 2) : 1;
}
/* ADD(p, k) for every pixel p of the span with its weight k. */
#define BF_SPAN_EACH(sp, n, border, ADD)                                                      \
    do {                                                                                     \
        for (int p_ = (sp).a; p_ <= (sp).b; p_++) ADD(p_, bf_span_weight((sp), p_, (n)));    \
        if ((sp).left) ADD(0, (sp).left);                                                    \
        if ((sp).right) ADD((n) - 1, (sp).right);                                            \
        for (int j_ = 0; j_ < (sp).rem; j_++) ADD(bf_map((sp).rem0 + j_, (n), (border)), 1); \
    } while (0)

/* The row pitch, in elements, of box_ring's batch rows in local memory
 * with BF_VEC (hc columns): 4 (mod 32), so that the 16-byte reads of eight
 * rows at one column (a quarter-warp's) fall on distinct banks. */
CO_INLINE int bf_lm_pitch(int hc) { return (hc + 31) / 32 * 32 + 4; }
#endif

#ifndef BF_NAME
#define BF_NAME(x) x
#endif
#ifndef RGBA8
#define RGBA8 0
#endif
#ifndef BF_FIRST
#define BF_FIRST 1
#endif
#ifndef BF_FINAL
#define BF_FINAL 1
#endif
#ifndef TILE
#define TILE 32
#endif
#ifndef SY
#define SY 4
#endif

#undef BF_T
#undef BF_ACC
#undef BF_SUM0
#undef BF_CH
#undef BF_NORM
/* BF_SUM0 starts a sum. For float it is -0: x + -0 is x for every x, so
 * the compiler drops the first add; x + +0 is not (-0 + +0 = +0), so with
 * +0 every partial sum cost an add more (box_ring at r = 64 for sm_90: 30
 * adds a 16-row batch, 648 -> 558 in its SASS). */
#if RGBA8
#define BF_T uchar
#define BF_ACC uint
#define BF_SUM0 0u
#define BF_CH 4
/* (2r+1)^2 is odd: adding half of it rounds to nearest with no ties. */
#define BF_NORM(s, r) ((uchar)(((s) + (uint)((2 * (r) + 1) * (2 * (r) + 1)) / 2u) / \
                               (uint)((2 * (r) + 1) * (2 * (r) + 1))))
#else
#define BF_T float
#define BF_ACC float
#define BF_SUM0 (-0.0f)
#define BF_CH 1
/* A multiply by the reciprocal (hoisted out of loops), not a division. */
#define BF_NORM(s, r) ((s) * (1.0f / ((float)(2 * (r) + 1) * (float)(2 * (r) + 1))))
#endif

/* v += delta for a running sum. Float: compensated (Kahan), so rounding
 * grows with |delta| rather than with the sum, over the whole segment;
 * `comp` carries the lost low-order part. uint wraps and comes back exactly. */
#undef BF_SLIDE
#if RGBA8
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
#if RGBA8
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
#if RGBA8
#define BF_RUN0(comp) ((void)(comp), 0u)
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

#undef BF_IN
#undef BF_OUT
#undef BF_RESULT
#if BF_FIRST
#define BF_IN BF_T
#else
#define BF_IN BF_ACC
#endif
#if BF_FINAL
#define BF_OUT BF_T
#define BF_RESULT(s, r) BF_NORM(s, r)
#else
#define BF_OUT BF_ACC
#define BF_RESULT(s, r) (s)
#endif

/* The window sum of span sp along a line, element p at base[p stride],
 * compensated: O(n) reads at any radius (bf_window). */
CO_INLINE BF_ACC BF_NAME(bf_span_sum)(__global const BF_IN *base, size_t stride, bf_span sp,
                                      int n, int border) {
    BF_ACC s = BF_SUM0, comp = 0;
#define BF_ADD_(p, k) BF_KADD(s, comp, (BF_ACC)(k) * (BF_ACC)base[(size_t)(p) * stride])
    BF_SPAN_EACH(sp, n, border, BF_ADD_);
#undef BF_ADD_
    return BF_KSUM(s, comp);
}

/* Rows first, each a compensated sum (bf_span_sum), then their compensated
 * sum weighted as the rows' span says. */
__kernel void BF_NAME(box_naive)(const int W, const int H, const int radius, const int border,
                                 __global const BF_IN *CO_RESTRICT src,
                                 __global BF_OUT *CO_RESTRICT dst) {
    const int i = (int)get_global_id(0), y = (int)get_global_id(1);
    if (i >= W * BF_CH || y >= H) return;
    const int x = i / BF_CH, c = i - x * BF_CH;
    const bf_span sx = bf_window(x, radius, W, border), sy = bf_window(y, radius, H, border);
    const size_t pitch = (size_t)W * BF_CH;
    BF_ACC sum = BF_SUM0, comp = 0;
#define BF_ADD_(p, k) \
    BF_KADD(sum, comp, (BF_ACC)(k) * BF_NAME(bf_span_sum)(src + (size_t)(p) * pitch + c, BF_CH, sx, W, border))
    BF_SPAN_EACH(sy, H, border, BF_ADD_);
#undef BF_ADD_
    dst[(size_t)y * pitch + i] = BF_RESULT(BF_KSUM(sum, comp), radius);
}

/* Sum of the 2r+1 neighbours of element (x, y, c) along the row (dir 0)
 * or the column (dir 1). */
CO_INLINE BF_ACC BF_NAME(bf_line)(__global const BF_IN *CO_RESTRICT src, int W, int H, int x,
                                  int y, int c, int radius, int border, int dir) {
    const int n = dir ? H : W, at = dir ? y : x;
    const size_t stride = dir ? (size_t)W * BF_CH : BF_CH;
    __global const BF_IN *base = src + (dir ? (size_t)x * BF_CH : (size_t)y * W * BF_CH) + c;
    return BF_NAME(bf_span_sum)(base, stride, bf_window(at, radius, n, border), n, border);
}

#ifndef CO_HOST
__kernel void BF_NAME(box_line)(const int W, const int H, const int radius, const int border,
                                const int dir, __global const BF_IN *CO_RESTRICT src,
                                __global BF_OUT *CO_RESTRICT dst) {
    const int i = (int)get_global_id(0), y = (int)get_global_id(1);
    if (i >= W * BF_CH || y >= H) return;
    const int x = i / BF_CH, c = i - x * BF_CH;
    const BF_ACC s = BF_NAME(bf_line)(src, W, H, x, y, c, radius, border, dir);
    dst[(size_t)y * W * BF_CH + i] = BF_RESULT(s, radius);
}

/* src is H rows of W pixels; dst is W rows of H pixels: dst(x, y) = the row
 * sum at src(x, y). Work-groups TILE x TILE, one pixel per work-item. */
__kernel void box_transpose(const int W, const int H, const int radius, const int border,
                            __global const BF_IN *CO_RESTRICT src,
                            __global BF_OUT *CO_RESTRICT dst) {
    __local BF_ACC tile[TILE][TILE * BF_CH + 1]; /* +1: column reads without bank conflicts */
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int gx = (int)get_group_id(0) * TILE, gy = (int)get_group_id(1) * TILE;
    if (gx + lx < W && gy + ly < H)
        for (int c = 0; c < BF_CH; c++)
            tile[ly][lx * BF_CH + c] = bf_line(src, W, H, gx + lx, gy + ly, c, radius, border, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* dst row gx+ly, column gy+lx: the sum of src pixel (gx+ly, gy+lx). */
    if (gx + ly < W && gy + lx < H)
        for (int c = 0; c < BF_CH; c++)
            dst[((size_t)(gx + ly) * H + gy + lx) * BF_CH + c] =
                BF_RESULT(tile[lx][ly * BF_CH + c], radius);
}

/* Running sums down the element columns of src (H rows of W*BF_CH
 * elements), written transposed: dst is W rows of H pixels. Work-groups
 * TILE x SY: TILE element columns, SY segments of `seg` rows (seg a
 * multiple of TILE). Every TILE rows the group's TILE x TILE block goes out
 * through local memory, each transposed pixel row written contiguously. */
__kernel void box_slide(const int W, const int H, const int radius, const int border,
                        const int seg, __global const BF_IN *CO_RESTRICT src,
                        __global BF_OUT *CO_RESTRICT dst) {
    __local BF_ACC tile[SY][TILE][TILE + 1];
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int ec = W * BF_CH, e0 = (int)get_group_id(0) * TILE, e = e0 + lx;
    const int y0 = ((int)get_group_id(1) * SY + ly) * seg;
    const bool live = e < ec && y0 < H;
    /* The segment's first window, compensated, O(H) at any radius. */
    BF_ACC s = live ? bf_span_sum(src + e, (size_t)ec, bf_window(y0, radius, H, border), H, border) : 0;
    BF_ACC comp = 0;
    for (int yb = y0; yb < y0 + seg; yb += TILE) {
        for (int k = 0; k < TILE; k++) {
            const int y = yb + k;
            if (live && y < H) {
                if (y > y0) {
                    const int enter = bf_map(y + radius, H, border);
                    const int leave = bf_map(y - radius - 1, H, border);
                    const BF_ACC a = enter >= 0 ? src[(size_t)enter * ec + e] : 0;
                    const BF_ACC b = leave >= 0 ? src[(size_t)leave * ec + e] : 0;
                    BF_SLIDE(s, comp, a - b);
                }
                tile[ly][k][lx] = s;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The block holds TILE/BF_CH pixels x TILE rows; dst row x gets
         * TILE*BF_CH consecutive elements (row k, channel c at k*BF_CH+c). */
        for (int p = 0; p < TILE / BF_CH; p++) {
            const int x = e0 / BF_CH + p;
            for (int q = lx; q < TILE * BF_CH; q += TILE) {
                const int k = q / BF_CH, c = q - k * BF_CH, y = yb + k;
                if (x < W && y < H)
                    dst[((size_t)x * H + y) * BF_CH + c] =
                        BF_RESULT(tile[ly][k][p * BF_CH + c], radius);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Both passes in one (image in, image out: the traffic of a copy). A
 * work-group owns a strip of NT element columns and a segment of `seg`
 * rows; the strip and its halo, hc = NT + 2 r BF_CH columns, are dealt to
 * its wg work-items CPT each (column t + c wg: coalesced for every c). It
 * walks the segment BF_BATCH rows at a time:
 *  1. vertical: each work-item slides the running sums of its columns (and
 *     their compensation, in registers) down the batch's rows:
 *     v += E(y) - E(y - 2r - 1), where E(y) is input row y + r after the
 *     border rule. The batch's entering values were loaded a batch ahead,
 *     so they are in flight while the group does steps 2 and 3 of the batch
 *     before; the loads are straight-line code where no row needs the
 *     border rule. The leaving values: with BF_HIST (the radius, compiled
 *     in where the host keeps the window in registers) the last 2r+1
 *     entering values, kept in registers; else loaded again (read 2r+1 rows
 *     before, from the cache where it still holds them);
 *  2. horizontal: the batch's vertical sums, BF_BATCH rows x parts of
 *     BF_PART pixels, each part a running sum along its row (two reads a
 *     step), into lo. Its first window is 2r+1 reads, or with BF_BLOCKS
 *     (wide windows) (2r+1) / BF_PART sums of BF_PART columns, computed
 *     first, and the rest;
 *  3. the rows of lo go out, coalesced.
 * Local memory (the host checks it, and takes the two transposed passes
 * where it does not fit): lm holds the batch's column sums
 * T[hc][BF_BATCH+1], column-major, so that writers (column t) and readers
 * (row k) hit distinct banks, then the block sums; lo[BF_BATCH][NT+1] the
 * window sums, a padded row each (its own array: the compiler then knows
 * that its stores leave T alone). Parts of BF_PART = BF_BATCH (mod 32)
 * pixels keep the horizontal pass free of bank conflicts. */
#ifndef NT
#define NT 128
#endif
#ifndef CPT
#define CPT 1
#endif
#ifndef BF_BATCH /* the rows per batch the host chose (its BATCH parameter may be 0: auto) */
#define BF_BATCH 16
#endif
#ifndef BF_PART /* pixels per horizontal part (the PART parameter may be 0: auto) */
#define BF_PART BF_BATCH
#endif
#ifndef BF_HIST
#define BF_HIST -1
#endif
#ifndef BF_BLOCKS
#define BF_BLOCKS 0
#endif
/* HINTS (bits): the results are not read again (1), the leaving values are
 * the last reads of their rows (2): evict-first (CUDA), leaving the L2 to
 * the rows still to leave the window. */
#ifndef CHAINS /* dependent add chains a whole run is split into (1, 2 or 4) */
#define CHAINS 1
#endif
#ifndef HINTS
#define HINTS 0
#endif
#if HINTS & 1
#define BF_STORE(p, v) CO_STORE_STREAM(p, v)
#else
#define BF_STORE(p, v) (*(p) = (v))
#endif
#if HINTS & 2
#define BF_LAST(p) CO_LOAD_LAST(p)
#else
#define BF_LAST(p) (*(p))
#endif
/* HINTS bit 4: the input's other loads through the L2 only. A group reads
 * each input element once (its neighbours read the halo from the L2), so
 * the L1 keeps nothing worth keeping; but loads in flight hold L1 lines
 * either way: on the H200 0-2% slower, 7-14% with 28 KB of L1
 * (docs/results/2026-12-01-h200-l.md, run 76), so it is off by default. */
#if HINTS & 4
#define BF_LOAD(p) CO_LOAD_L2(p)
#else
#define BF_LOAD(p) (*(p))
#endif
#ifndef LMAX
#define LMAX 7168 /* with lo: under 48 KiB */
#endif
#if BF_FIRST && BF_FINAL
/* Input element of halo column j of a strip starting at element e0 (-1: zero). */
CO_INLINE int bf_halo(int j, int e0, int rc, int W, int border) {
    const int e = e0 - rc + j;
    const int x = e >= 0 ? e / BF_CH : -((-e + BF_CH - 1) / BF_CH); /* floor */
    const int xm = bf_map(x, W, border);
    return xm < 0 ? -1 : xm * BF_CH + (e - x * BF_CH);
}

/* The input columns of work-item t's CPT columns of the strip and halo:
 * column t + c wg - sh (coalesced for every c), -1 where that is none. sh
 * (box_ring's BF_SH) shifts them so that each warp's loads lie within 32
 * elements from a multiple of 32. */
CO_INLINE void bf_columns(int *g, int t, int wg, int hc, int sh, int e0, int rc, int W, int border) {
#pragma unroll
    for (int c = 0; c < CPT; c++) {
        const int j = t + c * wg - sh;
        g[c] = (!sh || j >= 0) && j < hc ? bf_halo(j, e0, rc, W, border) : -1; /* (!sh: t >= 0) */
    }
}

/* Input column g (-1: zero) at the BF_BATCH rows from ya into e; rows
 * outside the image after the border rule (straight-line loads where no row
 * needs it). `last`: the rows' last reads (the HINTS bit 2). */
CO_INLINE void bf_rows(__global const BF_T *CO_RESTRICT src, int ec, int H, int border, int g,
                       int ya, BF_ACC *e, bool last) {
    if (g >= 0 && ya >= 0 && ya + BF_BATCH <= H) {
        __global const BF_T *a = src + (size_t)ya * ec + g;
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++, a += ec) e[i] = last ? BF_LAST(a) : BF_LOAD(a);
        return;
    }
#pragma unroll
    for (int i = 0; i < BF_BATCH; i++) {
        const int ym = g >= 0 ? bf_map(ya + i, H, border) : -1;
        e[i] = ym < 0 ? 0 : last ? (BF_ACC)BF_LAST(src + (size_t)ym * ec + g) : (BF_ACC)BF_LOAD(src + (size_t)ym * ec + g);
    }
}

/* The batch from row yb: entering values E(y) = row y + r into e, and
 * without BF_HIST the leaving ones, E(y - 2r - 1) = row y - r - 1, into l.
 * Rows past the segment's end are loaded too and never stored. */
CO_INLINE void bf_batch(__global const BF_T *CO_RESTRICT src, int ec, int H, int radius,
                        int border, int g, int yb, BF_ACC *e, BF_ACC *l) {
    bf_rows(src, ec, H, border, g, yb + radius, e, false);
#if BF_HIST < 0
    bf_rows(src, ec, H, border, g, yb - radius - 1, l, true);
#else
    (void)l;
#endif
}

/* A batch's rows in lm (T): column-major, column j row i at j BF_TP + i
 * (a writer per column and a reader per row on distinct banks); with
 * BF_VEC (box_ring, float32, PART a multiple of 4, the radius compiled in)
 * row-major in rows of bf_lm_pitch(hc), so that the horizontal pass reads
 * a row's columns four at a time (one 16-byte access for four), and the
 * ring's rows 4 (mod 32) apart for its 16-byte stores. */
#ifndef BF_VEC
#define BF_VEC 0
#endif
#define BF_TP (BF_BATCH + 1)
#if BF_VEC
#if RGBA8 || BF_PART % 4 || !defined(BF_RADIUS)
#error "BF_VEC needs float32, BF_PART a multiple of 4 and BF_RADIUS"
#endif
/* v[0 .. 4 quads - 1] = p[0 ..], four floats a read (p 16-byte aligned). */
CO_INLINE void bf_read4(CO_LOCAL_PTR const float *p, float *v, int quads) {
#pragma unroll
    for (int i = 0; i < quads; i++) {
        const float4 x = CO_LOAD4_LOCAL(p, i);
        v[4 * i] = x.x, v[4 * i + 1] = x.y, v[4 * i + 2] = x.z, v[4 * i + 3] = x.w;
    }
}
#define BF_LROW(hc) bf_lm_pitch(hc) /* from a row to the next */
#define BF_LCOL 1                   /* from an element column to the next */
#define BF_LM_T(hc) (BF_BATCH * bf_lm_pitch(hc)) /* T's elements */
#define BF_OP (NT + 4)
#else
#define BF_LROW(hc) 1
#define BF_LCOL BF_TP
#define BF_LM_T(hc) ((hc) * BF_TP)
#define BF_OP (NT + 1)
#endif

/* Runs of n steps d[0..n-2] (bf_runs, the vertical ring pass) as CHAINS
 * chains of n / CHAINS (the last one the rest): chain c starts at st[c],
 * s plus the steps before it, each chain's steps summed four ways. */
#define BF_LAST_CHAIN(n) ((n) - (CHAINS - 1) * ((n) / CHAINS))
/* Step q of chain ch (q < BF_LAST_CHAIN(n)): its index, or -1 past a chain
 * shorter than the last. */
#define BF_CHAIN_AT(n, ch, q) ((ch) + 1 < CHAINS && (q) >= (n) / CHAINS ? -1 : (ch) * ((n) / CHAINS) + (q))
CO_INLINE void bf_chain_starts(const BF_ACC *d, BF_ACC *st, BF_ACC s, int n) {
    st[0] = s;
#pragma unroll
    for (int c = 1; c < CHAINS; c++) {
        BF_ACC h4[4] = {BF_SUM0, BF_SUM0, BF_SUM0, BF_SUM0};
#pragma unroll
        for (int q = 0; q < n / CHAINS; q++) h4[q % 4] += d[(c - 1) * (n / CHAINS) + q];
        st[c] = st[c - 1] + ((h4[0] + h4[1]) + (h4[2] + h4[3]));
    }
}

/* Step 2's first part (bf_across): with BF_BLOCKS, the sums of BF_PART
 * columns of each row of the batch in lm (one item per row and block), at
 * lm[bs]. The block of item it is columns [it / BATCH * BF_PART * BF_CH,
 * + BF_PART * BF_CH): where that is BF_BATCH columns, those the warp of
 * work-item it (or it - c wg) stored itself. */
CO_INLINE void bf_block_sums(CO_LOCAL_PTR BF_ACC *lm, int t, int wg, int hc, int radius) {
#if BF_BLOCKS
    const int pixels = NT / BF_CH, parts = (pixels + BF_PART - 1) / BF_PART;
    const int full = (2 * radius + 1) / BF_PART, blocks = full ? parts - 1 + full : 0;
    const int bs = BF_LM_T(hc); /* lm[bs + (block * BF_CH + channel) * BF_BATCH + row] */
    for (int it = t; it < BF_BATCH * blocks; it += wg) {
        const int k = it % BF_BATCH, px0 = it / BF_BATCH * BF_PART;
        for (int c = 0; c < BF_CH; c++) {
            CO_LOCAL_PTR const BF_ACC *in = lm + k * BF_LROW(hc) + (px0 * BF_CH + c) * BF_LCOL;
            /* four partial sums: a quarter of the dependent adds */
            BF_ACC q[4] = {BF_SUM0, BF_SUM0, BF_SUM0, BF_SUM0};
#if BF_VEC
            BF_ACC x[BF_PART];
            bf_read4(in, x, BF_PART / 4);
#pragma unroll
            for (int d = 0; d < BF_PART; d++) q[d % 4] += x[d];
#else
#pragma unroll
            for (int d = 0; d < BF_PART; d++) q[d % 4] += in[d * BF_CH * BF_LCOL];
#endif
            lm[bs + (it / BF_BATCH * BF_CH + c) * BF_BATCH + k] = (q[0] + q[1]) + (q[2] + q[3]);
        }
    }
#else
    (void)lm, (void)t, (void)wg, (void)hc, (void)radius;
#endif
}

/* BF_KAHAN0 (the host sets it above the radii of the tuned GPU shapes):
 * a part's first window compensated, 4 operations a tap, not 1; else a
 * plain sum, whose error the host's model counts as n u sum|x|. */
#ifndef BF_KAHAN0
#define BF_KAHAN0 0
#endif
#undef BF_ADD0
#if BF_KAHAN0
#define BF_ADD0(s, comp, x) BF_KADD(s, comp, x)
#else
#define BF_ADD0(s, comp, x) ((s) += (x), (void)(comp))
#endif
/* The running sums of step 2 (bf_across), once the block sums are in lm. */
CO_INLINE void bf_runs(CO_LOCAL_PTR BF_ACC *lm, CO_LOCAL_PTR BF_ACC *lo, int first, int lo_rows,
                       int t, int wg, int hc, int radius, int nb) {
    const int pixels = NT / BF_CH, parts = (pixels + BF_PART - 1) / BF_PART;
#if BF_BLOCKS
    const int full = (2 * radius + 1) / BF_PART;
    const int bs = BF_LM_T(hc);
#else
    const int full = 0;
#endif
    const int step = BF_CH * BF_LCOL, span = 2 * radius * step;
    for (int it = t; it < BF_BATCH * parts; it += wg) {
        const int k = it % BF_BATCH, p = it / BF_BATCH, px0 = p * BF_PART;
        if (k >= nb) continue;
        const int px1 = min(px0 + BF_PART, pixels), row = first + k;
        CO_LOCAL_PTR BF_ACC *out = lo + (row < lo_rows ? row : row - lo_rows) * BF_OP + px0 * BF_CH;
        for (int c = 0; c < BF_CH; c++) {
            /* column px0 + d of this row and channel: in[d * step] */
            CO_LOCAL_PTR const BF_ACC *in = lm + k * BF_LROW(hc) + (px0 * BF_CH + c) * BF_LCOL;
            BF_ACC s = BF_SUM0, s2 = BF_SUM0; /* two partial sums of the first window */
            BF_ACC k1 = 0, k2 = 0;            /* their compensations (BF_KAHAN0) */
#if BF_BLOCKS
            CO_LOCAL_PTR const BF_ACC *blk = lm + bs + (p * BF_CH + c) * BF_BATCH + k;
            int b = 0;
            for (; b + 1 < full; b += 2) {
                BF_ADD0(s, k1, blk[b * BF_CH * BF_BATCH]);
                BF_ADD0(s2, k2, blk[(b + 1) * BF_CH * BF_BATCH]);
            }
            if (b < full) BF_ADD0(s, k1, blk[b * BF_CH * BF_BATCH]);
#endif
            int d = full * BF_PART;
            for (; d + 1 <= 2 * radius; d += 2) {
                BF_ADD0(s, k1, in[d * step]);
                BF_ADD0(s2, k2, in[(d + 1) * step]);
            }
            if (d <= 2 * radius) BF_ADD0(s, k1, in[d * step]);
#if BF_KAHAN0
            s = BF_KSUM(s, k1) + BF_KSUM(s2, k2);
#else
            (void)k1, (void)k2;
            s += s2;
#endif
            if (px1 - px0 == BF_PART) { /* a whole part: unrolled */
                BF_ACC dl[BF_PART]; /* step q: the column entering minus the one leaving */
#if BF_VEC
                /* Both read four columns at a time: those leaving from in,
                 * those entering from in + 2r + 1 rounded down to a
                 * multiple of 4 (the radius is compiled in: the shift is
                 * a constant and the registers' indices too). */
                enum { BF_E0 = 2 * BF_RADIUS + 1, BF_ESH = BF_E0 % 4, BF_EN = (BF_ESH + BF_PART + 2) / 4 };
                BF_ACC lv[BF_PART], ev[4 * BF_EN], o[BF_PART];
                bf_read4(in, lv, BF_PART / 4);
                bf_read4(in + (BF_E0 - BF_ESH), ev, BF_EN);
#pragma unroll
                for (int q = 0; q + 1 < BF_PART; q++) dl[q] = ev[BF_ESH + q] - lv[q];
#define BF_PUT(q, x) (o[q] = (x))
#else
#pragma unroll
                for (int q = 0; q + 1 < BF_PART; q++) dl[q] = in[q * step + step + span] - in[q * step];
#define BF_PUT(q, x) (out[(q) * BF_CH + c] = (x))
#endif
                dl[BF_PART - 1] = 0;
#if CHAINS > 1
                /* CHAINS chains of adds, each from s plus the steps before
                 * its first (summed four ways): fewer dependent adds. */
                BF_ACC st[CHAINS];
                bf_chain_starts(dl, st, s, BF_PART);
#pragma unroll
                for (int q = 0; q < BF_LAST_CHAIN(BF_PART); q++) {
#pragma unroll
                    for (int ch = 0; ch < CHAINS; ch++) {
                        const int at = BF_CHAIN_AT(BF_PART, ch, q);
                        if (at < 0) continue;
                        BF_PUT(at, st[ch]);
                        if (at + 1 < BF_PART) st[ch] += dl[at];
                    }
                }
#else
#pragma unroll
                for (int q = 0; q < BF_PART; q++) {
                    BF_PUT(q, s);
                    s += dl[q];
                }
#endif
#undef BF_PUT
#if BF_VEC
#pragma unroll
                for (int i = 0; i < BF_PART / 4; i++)
                    CO_STORE4_LOCAL(CO_FLOAT4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]), out, i);
#endif
            } else {
                for (int q = 0; q < px1 - px0; q++) {
                    out[q * BF_CH + c] = s;
                    s += q + 1 < px1 - px0 ? in[q * step + step + span] - in[q * step] : 0;
                }
            }
        }
    }
}
/* Step 2, horizontal: the window sums along rows k < nb of the batch in lm
 * (T, hc columns) into rows of lo (row k at row (first + k) mod lo_rows,
 * first < lo_rows, BF_BATCH <= lo_rows), a part of BF_PART pixels of a row
 * per item (item it: row it % BF_BATCH, part it / BF_BATCH), each a running
 * sum along its row (two reads a step). A part's first window is 2r+1
 * reads, or with BF_BLOCKS (wide windows) `full` sums of BF_PART columns
 * (block sums, computed first into lm at bs, one per row and block) and the
 * rest. */
CO_INLINE void bf_across(CO_LOCAL_PTR BF_ACC *lm, CO_LOCAL_PTR BF_ACC *lo, int first, int lo_rows,
                         int t, int wg, int hc, int radius, int nb) {
    bf_block_sums(lm, t, wg, hc, radius);
#if BF_BLOCKS
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    bf_runs(lm, lo, first, lo_rows, t, wg, hc, radius, nb);
}
#if BF_HIST >= 0
#define BF_W (2 * BF_HIST + 1)
#define BF_LEAVE 1 /* leave[] unused */
#else
#define BF_LEAVE BF_BATCH
#endif
/* -DMAXREG=N caps CUDA's registers per work-item (more groups per
 * multiprocessor; 0: the compiler's choice); else -DBF_GROUP (the ring on
 * GPUs), the work-items per group, caps them where a group of that many
 * would not launch (32-row batches in 512 work-items). */
#if defined(CO_CUDA) && defined(MAXREG) && MAXREG > 0
#define BF_MAXREG __maxnreg__(MAXREG)
#elif defined(CO_CUDA) && defined(BF_GROUP)
#define BF_MAXREG __launch_bounds__(BF_GROUP)
#else
#define BF_MAXREG
#endif

/* One of box_fused (BF_RING 0) and box_ring (BF_RING 1) per build: their
 * local memory differs. */
#ifndef BF_RING
#define BF_RING 0
#endif
#if !BF_RING
__kernel void BF_MAXREG box_fused(const int W, const int H, const int radius, const int border,
                                  const int seg, __global const BF_T *CO_RESTRICT src,
                                  __global BF_T *CO_RESTRICT dst) {
    __local BF_ACC lm[LMAX];
    __local BF_ACC lo[BF_BATCH * BF_OP];
    const int t = (int)get_local_id(0), wg = (int)get_local_size(0);
    const int ec = W * BF_CH, rc = radius * BF_CH, e0 = (int)get_group_id(0) * NT, hc = NT + 2 * rc;
    const int y0 = (int)get_group_id(1) * seg, y1 = min(y0 + seg, H);
    int g[CPT];
    BF_ACC v[CPT], comp[CPT], enter[CPT][BF_BATCH], leave[CPT][BF_LEAVE];
#if BF_HIST >= 0
    BF_ACC hist[CPT][BF_W]; /* E(yb - 2r - 1) .. E(yb - 1) */
#endif
    /* Each column starts with the window of row y0 - 1 (rows y0-r-1 ..
     * y0+r-1), so that every row of the segment slides. */
    bf_columns(g, t, wg, hc, 0, e0, rc, W, border);
#pragma unroll
    for (int c = 0; c < CPT; c++) {
        v[c] = 0;
        comp[c] = 0;
#if BF_HIST >= 0
#pragma unroll
        for (int d = 0; d < BF_W; d++) {
            const int yy = g[c] >= 0 ? bf_map(y0 - BF_HIST - 1 + d, H, border) : -1;
            hist[c][d] = yy >= 0 ? (BF_ACC)src[(size_t)yy * ec + g[c]] : 0;
            BF_KADD(v[c], comp[c], hist[c][d]); /* compensated: once a segment */
        }
#else
        /* 2 BF_BATCH loads at a time, enter and leave as scratch. */
        for (int d0 = -radius - 1; d0 < radius && g[c] >= 0; d0 += 2 * BF_BATCH) {
#pragma unroll
            for (int i = 0; i < BF_BATCH; i++) {
                const int ya = d0 + i < radius ? bf_map(y0 + d0 + i, H, border) : -1;
                const int yb = d0 + BF_BATCH + i < radius ? bf_map(y0 + d0 + BF_BATCH + i, H, border) : -1;
                enter[c][i] = ya >= 0 ? (BF_ACC)src[(size_t)ya * ec + g[c]] : 0;
                leave[c][i] = yb >= 0 ? (BF_ACC)src[(size_t)yb * ec + g[c]] : 0;
            }
#pragma unroll
            for (int i = 0; i < BF_BATCH; i++) { /* compensated: once a segment */
                BF_KADD(v[c], comp[c], enter[c][i]);
                BF_KADD(v[c], comp[c], leave[c][i]);
            }
        }
#endif
        bf_batch(src, ec, H, radius, border, g[c], y0, enter[c], leave[c]);
    }
    for (int yb = y0; yb < y1; yb += BF_BATCH) {
        const int nb = min(BF_BATCH, y1 - yb);
#pragma unroll
        for (int c = 0; c < CPT; c++) {
            const int j = t + c * wg;
            BF_ACC run = BF_RUN0(comp[c]);
#pragma unroll
            for (int i = 0; i < BF_BATCH; i++) {
#if BF_HIST >= 0
                const BF_ACC out = i < BF_W ? hist[c][i] : enter[c][i - BF_W];
#else
                const BF_ACC out = leave[c][i];
#endif
                run += enter[c][i] - out;
                if (j < hc) lm[j * BF_LCOL + i * BF_LROW(hc)] = BF_AT(v[c], run);
            }
            BF_END(v[c], comp[c], run);
#if BF_HIST >= 0
            /* The last BF_W of hist then enter (ascending d reads hist
             * ahead of the writes). */
#pragma unroll
            for (int d = 0; d < BF_W; d++)
                hist[c][d] = d + BF_BATCH < BF_W ? hist[c][d + BF_BATCH] : enter[c][d + BF_BATCH - BF_W];
#endif
            if (yb + BF_BATCH < y1)
                bf_batch(src, ec, H, radius, border, g[c], yb + BF_BATCH, enter[c], leave[c]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        bf_across(lm, lo, 0, BF_BATCH, t, wg, hc, radius, nb);
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The next batch writes lm, which no one reads now, and lo only
         * after the next barrier: no third barrier. */
        for (int e = t; e < NT && e0 + e < ec; e += wg) {
            __global BF_T *o = dst + (size_t)yb * ec + e0 + e;
            if (nb == BF_BATCH) {
#pragma unroll
                for (int i = 0; i < BF_BATCH; i++, o += ec) BF_STORE(o, BF_NORM(lo[i * BF_OP + e], radius));
            } else {
                for (int i = 0; i < nb; i++, o += ec) BF_STORE(o, BF_NORM(lo[i * BF_OP + e], radius));
            }
        }
    }
}
#endif

/* Horizontal first, for wide windows: the same strips, segments, batches
 * and dealing of columns as box_fused, but no input row is read twice. Per
 * batch:
 *  1. the batch's input rows (loaded PF batches ahead, so that enough
 *     loads are in flight with one group per compute unit) into lm;
 *  2. horizontal (bf_across): their row sums h into the ring, a local
 *     memory window of the last ring_rows rows of h of the strip (not of
 *     its halo): whole batches, at least 2r + BF_BATCH (2r + 2 BF_BATCH
 *     with BF_PIPE);
 *  3. work-item t slides the vertical sum of strip column t,
 *     v += h(y + r) - h(y - r - 1), both read from the ring (the first
 *     BF_LD leaving values of a batch from registers), and stores it.
 * The segment's first 2r entering rows (from y0 - r) only fill the window.
 * mem: lm (T[hc][BF_BATCH+1] and the block sums; twice with BF_PIPE:
 * ring_at elements), then the ring, rows of BF_OP. It is sized at launch,
 * up to CUDA's opt-in maximum: at r = 64 a 256-column strip with 32-row
 * batches takes 160 ring rows, 161 KiB, with lm 212. */
#ifndef PF
#define PF 1 /* batches of rows loaded ahead */
#endif
#ifndef BF_LD /* (2r+1) mod BF_BATCH: the leaving rows' offset into a block */
#define BF_LD 0
#endif
#define BF_CARRY (BF_LD > 0 ? BF_LD : 1)
/* BF_SH: columns loaded before the halo's first, so that every warp's loads
 * start at a multiple of 32 elements (whole 128-byte lines for float32);
 * work-item t loads halo column t - BF_SH (the host's ALIGN). */
#ifndef BF_SH
#define BF_SH 0
#endif
/* BF_PITCH: the row pitch in elements (W * BF_CH), compiled in where the host
 * builds a kernel per image width: a batch's rows are then at fixed offsets
 * from one address (no address arithmetic a row). */
#ifdef BF_PITCH
#define BF_EC(W) BF_PITCH
#else
#define BF_EC(W) ((W) * BF_CH)
#endif
/* BF_RADIUS and BF_RING_ROWS: the radius and the ring's rows, compiled in
 * with the pitch: the loops of a batch's first windows and the ring's
 * wrap-arounds then have fixed bounds (straight-line code). */
#ifdef BF_RADIUS
#define BF_R(radius) BF_RADIUS
#define BF_RR(rows) BF_RING_ROWS
#else
#define BF_R(radius) (radius)
#define BF_RR(rows) (rows)
#endif
#if BF_RING
#ifndef BF_PIPE
#define BF_PIPE 0
#endif
/* What work-items wait for before the block sums of the batch they just
 * stored. On CUDA where a block is BF_BATCH columns (a warp's own, see
 * bf_block_sums, unless BF_SH shifts the columns to other warps): their
 * warp; else the group. */
#if defined(CO_CUDA) && BF_PART * BF_CH == BF_BATCH && 32 % BF_BATCH == 0 && BF_SH == 0
#define BF_BLOCK_SYNC() __syncwarp()
#else
#define BF_BLOCK_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif

/* Step 3 of box_ring for strip column j: the vertical sums of the batch of
 * entering rows n .. n + nb - 1 (ring rows from slot), v += h(y + r) -
 * h(y - r - 1), stored from output row ya0 + n - r (those of the segment).
 * The first BF_LD leaving rows of a whole batch come from `carry`, read by
 * the batch before (the batch n + BF_BATCH overwrites them). */
CO_INLINE void bf_down(CO_LOCAL_PTR const BF_ACC *ring, int ring_rows, int slot, int n, int nb,
                       int radius, int j, int ec, __global BF_T *CO_RESTRICT o, BF_ACC *v,
                       BF_ACC *comp, BF_ACC *carry) {
    const int win = 2 * radius + 1;
    /* Ring rows: the batch's entering rows from slot, a whole block (the
     * ring is whole batches, so no run wraps). Its leaving rows, from slot
     * - win, are the last BF_LD rows of the block before block `lead`
     * (carried in registers) and the first BATCH - BF_LD of block lead, so
     * both are straight-line reads at fixed offsets. Steady: a whole batch
     * with a leaving row and a result each. */
    const int out0 = slot - win < 0 ? slot - win + ring_rows : slot - win;
    const int lead = out0 + BF_LD < ring_rows ? out0 + BF_LD : out0 + BF_LD - ring_rows;
    CO_LOCAL_PTR const BF_ACC *in = ring + slot * BF_OP + j, *out = ring + lead * BF_OP + j;
    if (n + BF_BATCH <= 2 * radius && nb == BF_BATCH) { /* only fills the window */
        BF_ACC run = BF_RUN0(*comp);
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) run += in[i * BF_OP];
        BF_END(*v, *comp, run);
    } else if (n >= win && nb == BF_BATCH) {
        BF_ACC run = BF_RUN0(*comp);
        /* (i % BF_CARRY: an index in bounds in the branch not taken) */
#if CHAINS > 1
        /* CHAINS chains, as bf_runs' whole parts. */
        BF_ACC dv[BF_BATCH], st[CHAINS];
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++)
            dv[i] = in[i * BF_OP] - (i < BF_LD ? carry[i % BF_CARRY] : out[(i - BF_LD) * BF_OP]);
        bf_chain_starts(dv, st, run, BF_BATCH);
#pragma unroll
        for (int i = 0; i < BF_LAST_CHAIN(BF_BATCH); i++) {
#pragma unroll
            for (int ch = 0; ch < CHAINS; ch++) {
                const int at = BF_CHAIN_AT(BF_BATCH, ch, i);
                if (at < 0) continue;
                st[ch] += dv[at];
                BF_STORE(o + (long)at * ec, BF_NORM(BF_AT(*v, st[ch]), radius));
            }
        }
        run = st[CHAINS - 1];
#else
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) {
            run += in[i * BF_OP] - (i < BF_LD ? carry[i % BF_CARRY] : out[(i - BF_LD) * BF_OP]);
            BF_STORE(o + (long)i * ec, BF_NORM(BF_AT(*v, run), radius));
        }
#endif
        BF_END(*v, *comp, run);
    } else {
        int at_in = slot, at = out0;
        for (int i = 0; i < nb; i++, o += ec) {
            const BF_ACC leaving = n + i >= win ? ring[at * BF_OP + j] : 0;
            BF_SLIDE(*v, *comp, ring[at_in * BF_OP + j] - leaving);
            if (n + i >= 2 * radius) BF_STORE(o, BF_NORM(*v, radius)); /* row >= y0 */
            at_in = at_in + 1 < ring_rows ? at_in + 1 : 0;
            at = at + 1 < ring_rows ? at + 1 : 0;
        }
    }
    /* The next batch's first BF_LD leaving rows: the tail of block lead. */
    if (BF_LD > 0 && nb == BF_BATCH && n + BF_BATCH >= win) {
#pragma unroll
        for (int i = 0; i < BF_CARRY; i++) carry[i] = out[(BF_BATCH - BF_LD + i) * BF_OP];
    }
}

/* Step k: batch k's rows into lm (step 1) and its block sums; the running
 * sums of batch k - BF_PIPE into the ring (step 2); the vertical sums of
 * batch k - 2 BF_PIPE (step 3). BF_PIPE 0: a barrier between the steps, as
 * each needs the last one's results from other work-items (three barriers
 * a batch; two on CUDA, where the block sums wait for their warp only).
 * BF_PIPE 1: the three steps of three batches in one phase, one barrier a
 * batch: lm twice (batch k is stored while batch k - 1 is summed) and the
 * ring a batch taller (the running sums of batch k - 1 go to ring rows that
 * the vertical sums of batch k - 2 no longer read).
 * BF_DOWN0 > 0: the vertical sums on work-items BF_DOWN0 .. wg - 1 (column
 * t - BF_DOWN0 + c (wg - BF_DOWN0)) and the horizontal runs on those before
 * it, so that pipelined no work-item does both in one phase; else both on
 * work-items from 0 (columns t + c wg). */
#ifndef BF_DOWN0
#define BF_DOWN0 0
#endif
/* The local memory argument's type: NVIDIA's OpenCL aligns a local
 * argument to its type only, so BF_VEC's 16-byte accesses need a float4
 * one (CUDA's dynamic shared memory is 16-byte aligned either way). */
#if BF_VEC
#define BF_MEM float4
#else
#define BF_MEM BF_ACC
#endif
/* BF_QUAD: a batch's rows loaded and stored in lm (row-major, BF_VEC) four
 * columns at a time: work-item t takes strip-and-halo columns j .. j + 3,
 * j = 32 (t / 32) + 4 (t mod 8), of rows (t mod 32) / 8 + 4 m. A warp then
 * loads four rows of its own 32 columns (128 bytes each), and the block
 * sums still read only what their warp stored. Where the four columns are
 * one 16-byte-aligned run of the image (no border rule, the pitch and the
 * halo's start multiples of four) a row's load is one 16-byte access,
 * else four. */
#ifndef BF_QUAD
#define BF_QUAD 0
#endif
#if BF_QUAD
#if !BF_VEC || CPT != 1 || BF_BATCH % 4 || BF_SH || BF_DOWN0
#error "BF_QUAD needs BF_VEC, CPT 1, BF_BATCH a multiple of 4, and neither BF_SH nor BF_DOWN0"
#endif
#define BF_QUAD_COL(t) (((t) & ~31) + 4 * ((t) & 7))
#define BF_QUAD_ROW(t) (((t) & 31) >> 3)
/* Work-item t's four input columns (-1: none, zero), and whether they are
 * one aligned run. */
CO_INLINE bool bf_quad_columns(int *g, int t, int hc, int e0, int rc, int W, int ec, int border) {
    const int j = BF_QUAD_COL(t);
#pragma unroll
    for (int c = 0; c < 4; c++) g[c] = j + c < hc ? bf_halo(j + c, e0, rc, W, border) : -1;
    return g[0] >= 0 && g[0] % 4 == 0 && ec % 4 == 0 && g[1] == g[0] + 1 && g[2] == g[0] + 2 &&
           g[3] == g[0] + 3;
}

/* The batch from row ya: work-item t's rows of its four columns into e
 * (row-quad m at e[4 m ..]). */
CO_INLINE void bf_quad_rows(__global const float *CO_RESTRICT src, int ec, int H, int border,
                            const int *g, bool run, int t, int ya, float *e) {
    const bool inside = ya >= 0 && ya + BF_BATCH <= H;
#pragma unroll
    for (int m = 0; m < BF_BATCH / 4; m++) {
        const int y = ya + BF_QUAD_ROW(t) + 4 * m, ym = inside ? y : bf_map(y, H, border);
        if (run && ym >= 0) {
            const float4 x = CO_LOAD4(src + (size_t)ym * ec + g[0], 0);
            e[4 * m] = x.x, e[4 * m + 1] = x.y, e[4 * m + 2] = x.z, e[4 * m + 3] = x.w;
        } else {
#pragma unroll
            for (int c = 0; c < 4; c++)
                e[4 * m + c] = ym >= 0 && g[c] >= 0 ? src[(size_t)ym * ec + g[c]] : 0.0f;
        }
    }
}
/* A batch's loads (from row ya into e) and its stores in lm: a work-item's
 * four columns, or its CPT columns (column c's); BF_LOADS: whether
 * work-item t has any. */
#define BF_LOADS(t, hc) (BF_QUAD_COL(t) < (hc))
#define BF_LOAD_BATCH(c, ya, e) bf_quad_rows(src, ec, H, border, g, run, t, (ya), (e))
CO_INLINE void bf_store_batch(CO_LOCAL_PTR BF_ACC *lm, int t, int c, int wg, int hc, int g, const BF_ACC *e) {
    const int j = BF_QUAD_COL(t);
    (void)c, (void)wg, (void)g;
    if (j < hc) {
#pragma unroll
        for (int m = 0; m < BF_BATCH / 4; m++)
            CO_STORE4_LOCAL(CO_FLOAT4(e[4 * m], e[4 * m + 1], e[4 * m + 2], e[4 * m + 3]),
                            lm + (BF_QUAD_ROW(t) + 4 * m) * BF_LROW(hc) + j, 0);
    }
}
#else
/* BF_ZSTORE (the zero border; the host's default): a column outside the
 * image (g < 0) loads column 0's rows as the others load theirs, and is
 * zeroed where it is stored, a batch later, so that a warp holding both
 * kinds (the edge strips') does not run both of bf_rows' ways (4% of the
 * ring's time at 8192^2 on the H200). */
#ifndef BF_ZSTORE
#define BF_ZSTORE 0
#endif
#define BF_LOADS(t, hc) ((t) < (hc) + BF_SH)
#define BF_LOAD_BATCH(c, ya, e) bf_rows(src, ec, H, border, BF_ZSTORE && g[c] < 0 ? 0 : g[c], (ya), (e), false)
CO_INLINE void bf_store_batch(CO_LOCAL_PTR BF_ACC *lm, int t, int c, int wg, int hc, int g, const BF_ACC *e) {
    const int j = t + c * wg - BF_SH;
    if ((!BF_SH || j >= 0) && j < hc) {
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) lm[j * BF_LCOL + i * BF_LROW(hc)] = BF_ZSTORE && g < 0 ? 0 : e[i];
    }
}
#endif
__kernel void BF_MAXREG box_ring(const int W, const int H, const int radius_arg, const int border,
                                 const int seg, const int ring_rows_arg, const int ring_at,
                                 __global const BF_T *CO_RESTRICT src,
                                 __global BF_T *CO_RESTRICT dst, CO_LOCAL_ARG(BF_MEM, mem_)) {
    CO_LOCAL_ARG_MEMORY(BF_MEM, mem_);
    CO_LOCAL_PTR BF_ACC *const mem = (CO_LOCAL_PTR BF_ACC *)mem_;
    const int radius = BF_R(radius_arg), ring_rows = BF_RR(ring_rows_arg);
    (void)radius_arg, (void)ring_rows_arg;
    CO_LOCAL_PTR BF_ACC *const ring = mem + ring_at;
    const int lm_size = ring_at / (1 + BF_PIPE); /* the elements of one batch's lm */
    const int t = (int)get_local_id(0), wg = (int)get_local_size(0);
    const int runs_wg = BF_DOWN0 > 0 ? BF_DOWN0 : wg, down_t = t - BF_DOWN0, down_wg = wg - BF_DOWN0;
    const int ec = BF_EC(W), rc = radius * BF_CH, e0 = (int)get_group_id(0) * NT, hc = NT + 2 * rc;
    const int y0 = (int)get_group_id(1) * seg, y1 = min(y0 + seg, H);
    const int rows = y1 - y0 + 2 * radius, ya0 = y0 - radius;
    const int batches = (rows + BF_BATCH - 1) / BF_BATCH, steps = batches + 2 * BF_PIPE;
    BF_ACC v[CPT], comp[CPT], enter[PF][CPT][BF_BATCH], carry[CPT][BF_CARRY];
#if BF_QUAD
    int g[4];
    const bool run = bf_quad_columns(g, t, hc, e0, rc, W, ec, border);
#else
    int g[CPT];
    bf_columns(g, t, wg, hc, BF_SH, e0, rc, W, border);
#endif
#pragma unroll
    for (int c = 0; c < CPT; c++) {
        v[c] = 0;
        comp[c] = 0;
#pragma unroll
        for (int p = 0; p < PF; p++)
            if (p * BF_BATCH < rows) BF_LOAD_BATCH(c, ya0 + p * BF_BATCH, enter[p][c]);
    }
    int slot_runs = 0, slot_down = 0; /* the ring rows of the batches' first entering rows */
    for (int k0 = 0; k0 < steps; k0 += PF) {
        /* Unrolled over the batches in flight: each has its registers. */
#pragma unroll
        for (int p = 0; p < PF; p++) {
            /* (No early exit: steps past the last do nothing but meet the
             * barriers, which PoCL needs outside conditional code.) */
            const int k = k0 + p, kr = k - BF_PIPE, kd = k - 2 * BF_PIPE;
            /* the lm of batch k (steps 1 and its block sums) and of batch kr (step 2) */
            CO_LOCAL_PTR BF_ACC *const lm = mem + (k & BF_PIPE) * lm_size;
            CO_LOCAL_PTR BF_ACC *const lm_runs = mem + (kr & BF_PIPE) * lm_size;
            if (k < batches && BF_LOADS(t, hc)) { /* (else no column, with BF_DOWN0) */
                const int n = k * BF_BATCH;
#pragma unroll
                for (int c = 0; c < CPT; c++) {
                    bf_store_batch(lm, t, c, wg, hc, g[c], enter[p][c]);
                    if (n + PF * BF_BATCH < rows) BF_LOAD_BATCH(c, ya0 + n + PF * BF_BATCH, enter[p][c]);
                }
            }
#if BF_BLOCKS
            BF_BLOCK_SYNC();
#elif !BF_PIPE
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
            if (k < batches) bf_block_sums(lm, t, wg, hc, radius);
#if !BF_PIPE && BF_BLOCKS
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
            if (kr >= 0 && kr < batches) {
                if (t < runs_wg)
                    bf_runs(lm_runs, ring, slot_runs, ring_rows, t, runs_wg, hc, radius,
                            min(BF_BATCH, rows - kr * BF_BATCH));
                slot_runs = slot_runs + BF_BATCH < ring_rows ? slot_runs + BF_BATCH : 0;
            }
#if !BF_PIPE
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
            if (kd >= 0 && kd < batches) {
                const int n = kd * BF_BATCH, nb = min(BF_BATCH, rows - n);
#pragma unroll
                for (int c = 0; c < CPT; c++) {
                    const int j = down_t + c * down_wg;
                    if (j >= 0 && j < NT && e0 + j < ec) /* from row y0 + n - 2r */
                        bf_down(ring, ring_rows, slot_down, n, nb, radius, j, ec,
                                dst + (long)(ya0 + n - radius) * ec + e0 + j, &v[c], &comp[c], carry[c]);
                }
                slot_down = slot_down + BF_BATCH < ring_rows ? slot_down + BF_BATCH : 0;
            }
#if BF_PIPE
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
        }
    }
}
#endif
#endif
#endif

/* ---- the image variant: reads through OpenCL images / CUDA textures ----
 * Built with -DBF_IMAGES=1 only, so devices without image support still
 * build the rest. Clamp and zero borders are the sampler's (OpenCL, by
 * -DBF_BORDER:
 * CLK_ADDRESS_CLAMP_TO_EDGE / CLK_ADDRESS_CLAMP; CUDA: the texture object's
 * address mode, set when the backend made it); reflect101 has no hardware
 * mode: its coordinates are mapped here, then read clamped. RGBA8 images
 * hold unsigned integers (CL_UNSIGNED_INT8, CUDA read-as-integer), so the
 * sums stay exact. */
#if BF_IMAGES && !defined(CO_HOST)
#ifdef CO_CUDA
#define BF_IMAGE_ARG unsigned long long /* cudaTextureObject_t */
#if RGBA8
#define BF_READ(img, px, py, border, v)                                                        \
    do {                                                                                     \
        const uchar4 t_ = tex2D<uchar4>((img), (float)(px) + 0.5f, (float)(py) + 0.5f);        \
        (v)[0] = t_.x, (v)[1] = t_.y, (v)[2] = t_.z, (v)[3] = t_.w;                          \
    } while (0)
#else
#define BF_READ(img, px, py, border, v) ((v)[0] = tex2D<float>((img), (float)(px) + 0.5f, (float)(py) + 0.5f))
#endif
#else /* OpenCL */
#define BF_IMAGE_ARG __read_only image2d_t
/* The sampler is fixed when the program is built (-DBF_BORDER): choosing
 * between two samplers at run time crashed PoCL 5's compiler. */
#if BF_BORDER == BF_ZERO
__constant sampler_t bf_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
#else
__constant sampler_t bf_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
#endif
#if RGBA8
#define BF_READ(img, px, py, border, v)                                                      \
    do {                                                                                     \
        const uint4 t_ = read_imageui((img), bf_sampler, (int2)((px), (py)));               \
        (v)[0] = t_.x, (v)[1] = t_.y, (v)[2] = t_.z, (v)[3] = t_.w;                          \
    } while (0)
#else
#define BF_READ(img, px, py, border, v) ((v)[0] = read_imagef((img), bf_sampler, (int2)((px), (py))).x)
#endif
#endif

/* Row yy's sums over the span sx (per channel, compensated) into part. */
CO_INLINE void bf_image_row(BF_IMAGE_ARG img, int yy, bf_span sx, int W, int border, BF_ACC *part) {
    BF_ACC pc[BF_CH], v[BF_CH];
    for (int c = 0; c < BF_CH; c++) part[c] = BF_SUM0, pc[c] = 0;
#define BF_PX_(p, k)                                                                         \
    do {                                                                                     \
        BF_READ(img, (p), yy, border, v);                                                    \
        for (int c = 0; c < BF_CH; c++) BF_KADD(part[c], pc[c], (BF_ACC)(k) * v[c]);         \
    } while (0)
    BF_SPAN_EACH(sx, W, border, BF_PX_);
#undef BF_PX_
    for (int c = 0; c < BF_CH; c++) part[c] = BF_KSUM(part[c], pc[c]);
}

/* One work-item per pixel, its whole window through the texture cache:
 * the windows as spans of pixels inside the image (bf_window: O(W + H)
 * reads at any radius; the sampler's own border is never read), rows, then
 * their weighted sum, compensated as box_naive's. */
__kernel void box_image(const int W, const int H, const int radius, const int border,
                        BF_IMAGE_ARG img, __global BF_T *CO_RESTRICT dst) {
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= W || y >= H) return;
    const bf_span sx = bf_window(x, radius, W, border), sy = bf_window(y, radius, H, border);
    BF_ACC sum[BF_CH], comp[BF_CH], part[BF_CH];
    for (int c = 0; c < BF_CH; c++) sum[c] = BF_SUM0, comp[c] = 0;
#define BF_ROW_(p, k)                                                                        \
    do {                                                                                     \
        bf_image_row(img, (p), sx, W, border, part);                                         \
        for (int c = 0; c < BF_CH; c++) BF_KADD(sum[c], comp[c], (BF_ACC)(k) * part[c]);     \
    } while (0)
    BF_SPAN_EACH(sy, H, border, BF_ROW_);
#undef BF_ROW_
    for (int c = 0; c < BF_CH; c++)
        dst[((size_t)y * W + x) * BF_CH + c] = BF_NORM(BF_KSUM(sum[c], comp[c]), radius);
}
#endif
