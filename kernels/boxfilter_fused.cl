/* Box filter, the fused single passes of `sliding`: box_fused (vertical
 * first) and box_ring (horizontal first, for wide windows), one per build
 * (BF_RING), on the header the direct kernels share. The host picks one,
 * its shape and these defines by device, radius and format
 * (src/workloads/boxfilter.c: ring_choice, fused_fit). */
#include "boxfilter_common.cl"

/* box_fused: both passes in one (image in, image out: the traffic of a
 * copy). A work-group owns a strip of NT element columns and a segment of
 * `seg` rows; the strip and its halo, hc = NT + 2 r BF_CH columns, are
 * dealt to its work-items, a column each (coalesced). It walks the segment
 * BF_BATCH rows at a time:
 *  1. vertical: each work-item slides the running sum of its column (and
 *     its compensation, in registers) down the batch's rows:
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
#ifndef BF_BATCH /* the rows per batch the host chose (its BATCH parameter may be 0: auto) */
#define BF_BATCH 16
#endif
/* Pixels per horizontal part: as many as a batch's rows, so that every
 * work-item of the strip has a part and the parts' reads meet no bank
 * conflicts (PART = BATCH mod 32; H200, r = 64: PART=64 0.281 ms against
 * 0.250, docs/results/2026-11-30-h200-h.md). */
#define BF_PART BF_BATCH
#ifndef BF_HIST
#define BF_HIST -1
#endif
#ifndef BF_BLOCKS
#define BF_BLOCKS 0
#endif
#ifndef CHAINS /* dependent add chains a whole run is split into (1, 2 or 4) */
#define CHAINS 1
#endif
#ifndef LMAX
#define LMAX 7168 /* with lo: under 48 KiB */
#endif
/* Input element of halo column j of a strip starting at element e0 (-1: zero). */
CO_INLINE int bf_halo(int j, int e0, int rc, int W, int border) {
    const int e = e0 - rc + j;
    const int x = e >= 0 ? e / BF_CH : -((-e + BF_CH - 1) / BF_CH); /* floor */
    const int xm = bf_map(x, W, border);
    return xm < 0 ? -1 : xm * BF_CH + (e - x * BF_CH);
}

/* The input column of work-item t, column t of the strip and halo (-1:
 * none, or zero). */
CO_INLINE int bf_column(int t, int hc, int e0, int rc, int W, int border) {
    return t < hc ? bf_halo(t, e0, rc, W, border) : -1;
}

/* Input column g (-1: zero) at the BF_BATCH rows from ya into e; rows
 * outside the image after the border rule (straight-line loads where no row
 * needs it). */
CO_INLINE void bf_rows(__global const BF_T *CO_RESTRICT src, int ec, int H, int border, int g,
                       int ya, BF_ACC *e) {
    if (g >= 0 && ya >= 0 && ya + BF_BATCH <= H) {
        __global const BF_T *a = src + (size_t)ya * ec + g;
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++, a += ec) e[i] = BF_IN(*a);
        return;
    }
#pragma unroll
    for (int i = 0; i < BF_BATCH; i++) {
        const int ym = g >= 0 ? bf_map(ya + i, H, border) : -1;
        e[i] = ym < 0 ? BF_ACC0 : BF_IN(src[(size_t)ym * ec + g]);
    }
}

/* The batch from row yb: entering values E(y) = row y + r into e, and
 * without BF_HIST the leaving ones, E(y - 2r - 1) = row y - r - 1, into l.
 * Rows past the segment's end are loaded too and never stored. */
CO_INLINE void bf_batch(__global const BF_T *CO_RESTRICT src, int ec, int H, int radius,
                        int border, int g, int yb, BF_ACC *e, BF_ACC *l) {
    bf_rows(src, ec, H, border, g, yb + radius, e);
#if BF_HIST < 0
    bf_rows(src, ec, H, border, g, yb - radius - 1, l);
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
#if BF_U8 || BF_CH != 1 || BF_PART % 4 || !defined(BF_RADIUS)
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
 * work-item it stored itself. */
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
            BF_ACC k1 = BF_ACC0, k2 = BF_ACC0; /* their compensations (BF_KAHAN0) */
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
                dl[BF_PART - 1] = BF_ACC0;
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
                    s += q + 1 < px1 - px0 ? in[q * step + step + span] - in[q * step] : BF_ACC0;
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
    const int g = bf_column(t, hc, e0, rc, W, border);
    BF_ACC v = BF_ACC0, comp = BF_ACC0, enter[BF_BATCH], leave[BF_LEAVE];
#if BF_HIST >= 0
    BF_ACC hist[BF_W]; /* E(yb - 2r - 1) .. E(yb - 1) */
#endif
    /* The column starts with the window of row y0 - 1 (rows y0-r-1 ..
     * y0+r-1), so that every row of the segment slides. */
#if BF_HIST >= 0
#pragma unroll
    for (int d = 0; d < BF_W; d++) {
        const int yy = g >= 0 ? bf_map(y0 - BF_HIST - 1 + d, H, border) : -1;
        hist[d] = yy >= 0 ? BF_IN(src[(size_t)yy * ec + g]) : BF_ACC0;
        BF_KADD(v, comp, hist[d]); /* compensated: once a segment */
    }
#else
    /* 2 BF_BATCH loads at a time, enter and leave as scratch. */
    for (int d0 = -radius - 1; d0 < radius && g >= 0; d0 += 2 * BF_BATCH) {
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) {
            const int ya = d0 + i < radius ? bf_map(y0 + d0 + i, H, border) : -1;
            const int yb = d0 + BF_BATCH + i < radius ? bf_map(y0 + d0 + BF_BATCH + i, H, border) : -1;
            enter[i] = ya >= 0 ? BF_IN(src[(size_t)ya * ec + g]) : BF_ACC0;
            leave[i] = yb >= 0 ? BF_IN(src[(size_t)yb * ec + g]) : BF_ACC0;
        }
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) { /* compensated: once a segment */
            BF_KADD(v, comp, enter[i]);
            BF_KADD(v, comp, leave[i]);
        }
    }
#endif
    bf_batch(src, ec, H, radius, border, g, y0, enter, leave);
    for (int yb = y0; yb < y1; yb += BF_BATCH) {
        const int nb = min(BF_BATCH, y1 - yb);
        BF_ACC run = BF_RUN0(comp);
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) {
#if BF_HIST >= 0
            const BF_ACC out = i < BF_W ? hist[i] : enter[i - BF_W];
#else
            const BF_ACC out = leave[i];
#endif
            run += enter[i] - out;
            if (t < hc) lm[t * BF_LCOL + i * BF_LROW(hc)] = BF_AT(v, run);
        }
        BF_END(v, comp, run);
#if BF_HIST >= 0
        /* The last BF_W of hist then enter (ascending d reads hist ahead
         * of the writes). */
#pragma unroll
        for (int d = 0; d < BF_W; d++)
            hist[d] = d + BF_BATCH < BF_W ? hist[d + BF_BATCH] : enter[d + BF_BATCH - BF_W];
#endif
        if (yb + BF_BATCH < y1) bf_batch(src, ec, H, radius, border, g, yb + BF_BATCH, enter, leave);
        barrier(CLK_LOCAL_MEM_FENCE);
        bf_across(lm, lo, 0, BF_BATCH, t, wg, hc, radius, nb);
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The next batch writes lm, which no one reads now, and lo only
         * after the next barrier: no third barrier. */
        for (int e = t; e < NT && e0 + e < ec; e += wg) {
            __global BF_T *o = dst + (size_t)yb * ec + e0 + e;
            if (nb == BF_BATCH) {
#pragma unroll
                for (int i = 0; i < BF_BATCH; i++, o += ec) *o = BF_NORM(lo[i * BF_OP + e], radius);
            } else {
                for (int i = 0; i < nb; i++, o += ec) *o = BF_NORM(lo[i * BF_OP + e], radius);
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
 * bf_block_sums): their warp; else the group. */
#if defined(CO_CUDA) && BF_PART * BF_CH == BF_BATCH && 32 % BF_BATCH == 0
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
                o[(long)at * ec] = BF_NORM(BF_AT(*v, st[ch]), radius);
            }
        }
        run = st[CHAINS - 1];
#else
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) {
            run += in[i * BF_OP] - (i < BF_LD ? carry[i % BF_CARRY] : out[(i - BF_LD) * BF_OP]);
            o[(long)i * ec] = BF_NORM(BF_AT(*v, run), radius);
        }
#endif
        BF_END(*v, *comp, run);
    } else {
        int at_in = slot, at = out0;
        for (int i = 0; i < nb; i++, o += ec) {
            const BF_ACC leaving = n + i >= win ? ring[at * BF_OP + j] : BF_ACC0;
            BF_SLIDE(*v, *comp, ring[at_in * BF_OP + j] - leaving);
            if (n + i >= 2 * radius) *o = BF_NORM(*v, radius); /* row >= y0 */
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
 * Work-item t does step 1 and step 3 for column t, and items t, t + wg,
 * ... of step 2. */
/* The local memory argument's type: NVIDIA's OpenCL aligns a local
 * argument to its type only, so BF_VEC's 16-byte accesses need a float4
 * one (CUDA's dynamic shared memory is 16-byte aligned either way). */
#if BF_VEC
#define BF_MEM float4
#else
#define BF_MEM BF_ACC
#endif
/* BF_ZSTORE (the host sets it for the zero border): a column outside the
 * image (g < 0) loads column 0's rows as the others load theirs, and is
 * zeroed where it is stored, a batch later, so that a warp holding both
 * kinds (the edge strips') does not run both of bf_rows' ways (4% of the
 * ring's time at 8192^2 on the H200). Other borders have no such column. */
#ifndef BF_ZSTORE
#define BF_ZSTORE 0
#endif
/* Column t's batch from row ya into e, and e into lm. */
#define BF_LOAD_BATCH(ya, e) bf_rows(src, ec, H, border, BF_ZSTORE && g < 0 ? 0 : g, (ya), (e))
CO_INLINE void bf_store_batch(CO_LOCAL_PTR BF_ACC *lm, int t, int hc, int g, const BF_ACC *e) {
    if (t < hc) {
#pragma unroll
        for (int i = 0; i < BF_BATCH; i++) lm[t * BF_LCOL + i * BF_LROW(hc)] = BF_ZSTORE && g < 0 ? BF_ACC0 : e[i];
    }
}
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
    const int ec = BF_EC(W), rc = radius * BF_CH, e0 = (int)get_group_id(0) * NT, hc = NT + 2 * rc;
    const int y0 = (int)get_group_id(1) * seg, y1 = min(y0 + seg, H);
    const int rows = y1 - y0 + 2 * radius, ya0 = y0 - radius;
    const int batches = (rows + BF_BATCH - 1) / BF_BATCH, steps = batches + 2 * BF_PIPE;
    const int g = bf_column(t, hc, e0, rc, W, border);
    BF_ACC v = BF_ACC0, comp = BF_ACC0, enter[PF][BF_BATCH], carry[BF_CARRY];
#pragma unroll
    for (int p = 0; p < PF; p++)
        if (p * BF_BATCH < rows) BF_LOAD_BATCH(ya0 + p * BF_BATCH, enter[p]);
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
            if (k < batches && t < hc) {
                const int n = k * BF_BATCH;
                bf_store_batch(lm, t, hc, g, enter[p]);
                if (n + PF * BF_BATCH < rows) BF_LOAD_BATCH(ya0 + n + PF * BF_BATCH, enter[p]);
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
                if (t < wg) /* (always true, as t >= 0 below: kept, the code measured) */
                    bf_runs(lm_runs, ring, slot_runs, ring_rows, t, wg, hc, radius,
                            min(BF_BATCH, rows - kr * BF_BATCH));
                slot_runs = slot_runs + BF_BATCH < ring_rows ? slot_runs + BF_BATCH : 0;
            }
#if !BF_PIPE
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
            if (kd >= 0 && kd < batches) {
                const int n = kd * BF_BATCH, nb = min(BF_BATCH, rows - n);
                if (t >= 0 && t < NT && e0 + t < ec) /* from row y0 + n - 2r */
                    bf_down(ring, ring_rows, slot_down, n, nb, radius, t, ec,
                            dst + (long)(ya0 + n - radius) * ec + e0 + t, &v, &comp, carry);
                slot_down = slot_down + BF_BATCH < ring_rows ? slot_down + BF_BATCH : 0;
            }
#if BF_PIPE
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
        }
    }
}
#endif
