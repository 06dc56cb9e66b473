/* Box filter, RGBA8 with windows up to r = 2047: box_quad, a
 * work-item per "quad" of four pixels, so that a row is one 16-byte load
 * and one 16-byte store a work-item (where the width is a multiple of 4),
 * as float32's float4, and the sums are packed: a pixel's four channels in
 * two 32-bit words of 16-bit lanes, RB = R | B << 16 (the word & 0x00FF00FF)
 * and GA = G | A << 16 ((word >> 8) & 0x00FF00FF), half the adds of one
 * 32-bit sum a channel. Every sum here is linear in the pixels and words add
 * modulo 2^32: a word is its lanes' true sums L + 65536 H, whatever carries
 * and borrows its partial sums made across lanes, wherever each lane's true
 * sum is in [0, 65536): so in the column sums, (2r+1) 255 < 65536 for
 * r <= 127, and for r <= 7 in the window sums, (2r+1)^2 255 < 65536.
 *
 * A group of QNT work-items owns a strip of QNT - 2 QH quads and the QH
 * quads of halo each side (QH = ceil(r / 4): the window reaches that many
 * quads over), and a segment of `seg` rows. Each work-item slides the
 * column sums of its four pixels down the segment, QB rows a batch (the
 * leaving rows loaded again, read 2r+1 rows before: from the cache), and
 * puts them in local memory; after one barrier each work-item of the strip
 * reads its own and its neighbours' quads (16-byte reads, no bank
 * conflicts), sums its four windows along the row, rounds (a multiply-high,
 * exact for lanes under 65536) and writes its quad. Two buffers of a batch:
 * one barrier a batch.
 *
 * Wider windows (r > 7, QWIDE) pass the lanes' range in the window sums:
 * each work-item also puts its quad's four channel totals (32-bit) in local
 * memory, and a window is the totals of the 2 floor(r / 4) whole quads it
 * covers plus the columns at its two ends, unpacked (O(r / 4) reads, no
 * second barrier); the next three slide a column each. Sums reach
 * (2r+1)^2 255 < 2^32 (r <= 2047), divided exactly by a multiply-high and
 * a shift (q_divide; the host computes QMAGIC and QSHIFT). Past r = 127
 * (QL32) the column sums leave the 16-bit lanes: a 32-bit sum a channel,
 * each pixel's four one uint4 of local memory (planes 0-3 its pixels, 4 the
 * totals).
 * From r = 32 (QS, from the host: 8 quads, 16 from r = 128) a second
 * barrier a batch lets each work-item first sum the totals of QS quads from
 * its own (a block plane), so that a window reads 2 QK / QS blocks and the
 * 2 QK mod QS quads left: O(sqrt(r)) reads a quad, not O(r / 4).
 *
 * The host (src/workloads/boxfilter.c: run_quad) checks and passes the
 * local memory, 32 QPLANES QB QNT bytes, and 16 QB QNT more for the
 * blocks. Words are little-endian (R the low byte), as on every device the
 * backends open. */
#include "boxfilter_common.cl"

#ifndef QNT
#define QNT 64 /* work-items a group: quads of the strip and its halo */
#endif
#ifndef QB
#define QB 2 /* rows a batch */
#endif
#ifndef QALIGNED
#define QALIGNED 0 /* the width a multiple of 4: rows of whole 16-byte quads */
#endif
#ifndef BF_RADIUS
#define BF_RADIUS 1
#endif
#if BF_RADIUS < 1 || BF_RADIUS > 2047
#error "box_quad: 1 <= BF_RADIUS <= 2047 (the sums hold (2r+1)^2 255)"
#endif
#define QR BF_RADIUS
#define QH ((QR + 3) / 4)
#define QLO 0x00FF00FFu
#define QPLANE (QB * QNT) /* quads of one plane's batch */
#define QWIDE (QR > 7)
#define QL32 (QR > 127) /* a 32-bit column sum a channel */
/* RB, GA and (QWIDE) the quads' channel totals; QL32: a plane a pixel, then
 * the totals */
#define QPLANES (QL32 ? 5 : 2 + QWIDE)
#define QTOTALS (QL32 ? 4 : 2) /* the totals' plane */
#define QK (QR / 4)         /* whole quads a window covers each side (QWIDE) */
#ifndef QS
#define QS 0 /* quads a block of totals (0: none) */
#endif
#ifndef QFLIP
#define QFLIP 0 /* odd segments walk up (box_quad) */
#endif
#ifndef QGM
#define QGM 0 /* q_divide by Granlund and Montgomery's three steps more */
#endif

/* The four pixels of quad q (pixels 4q .. 4q+3) of the image row at
 * `row`, a word each; the quad inside the row. */
CO_INLINE void q_at(__global const uint *CO_RESTRICT row, int q, uint *p) {
#if QALIGNED
    const uint4 v = CO_LOADU4(row, q);
    p[0] = v.x, p[1] = v.y, p[2] = v.z, p[3] = v.w;
#else
    const __global uint *a = row + 4 * q;
    p[0] = a[0], p[1] = a[1], p[2] = a[2], p[3] = a[3];
#endif
}

/* The four pixels of quad q of row y after the border rule, a word each
 * (0: the zero border). */
CO_INLINE void q_load(__global const uint *CO_RESTRICT src, int W, int H, int border, int q, int y,
                      uint *p) {
    const int ym = bf_map(y, H, border), x0 = 4 * q;
    if (ym >= 0 && x0 >= 0 && x0 + 4 <= W) {
        q_at(src + (size_t)ym * W, q, p);
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int xm = ym < 0 ? -1 : bf_map(x0 + i, W, border);
        p[i] = xm < 0 ? 0u : src[(size_t)ym * W + xm];
    }
}

/* Batch yb's entering rows (yb + r ..) into e and leaving rows
 * (yb - r - 1 ..) into l, virtual rows (image rows base + dir u: QFLIP):
 * where all of them are inside the image, straight-line loads a row apart
 * from two addresses, else row by row through the border rule. (sm_90:
 * about 30 instructions for r = 1's four loads, not 20-40 each; 74
 * registers at r = 131, not 90. H200 8192^2 r = 1: 0.95 / 0.91 / 0.90x the
 * time on CUDA / NVIDIA OpenCL / Vulkan, Vulkan 0.82-0.87x at r = 16-131;
 * CUDA r = 64 and NVIDIA OpenCL r = 16 1.8% slower, the rest faster or
 * within 1%; 2026-12-03-h200-u.md.) */
CO_INLINE void q_batch(__global const uint *CO_RESTRICT src, int W, int H, int border, int q,
                       int base, int dir, int yb, uint e[QB][4], uint l[QB][4]) {
    if (q_rows_inside(W, H, q, base, dir, yb - QR - 1, yb + QB + QR)) {
        __global const uint *a = src + (size_t)(base + dir * (yb + QR)) * W,
                            *b = src + (size_t)(base + dir * (yb - QR - 1)) * W;
        const int step = dir * W;
#pragma unroll
        for (int i = 0; i < QB; i++, a += step, b += step) {
            q_at(a, q, e[i]);
            q_at(b, q, l[i]);
        }
        return;
    }
#pragma unroll
    for (int b = 0; b < QB; b++) {
        q_load(src, W, H, border, q, base + dir * (yb + b + QR), e[b]);
        q_load(src, W, H, border, q, base + dir * (yb + b - QR - 1), l[b]);
    }
}

/* A window's packed lanes (RB or GA), each its sum plus w / 2 (255 w + w /
 * 2 < 65536 for r <= 7: the window starts from w / 2 a lane), divided by
 * w = (2r+1)^2: the mean rounded to nearest. A lane n's quotient is the
 * high word of n m, m = floor(2^32 / w) + 1: n m / 2^32 = n / w + n d /
 * 2^32 (0 < d <= 1), and n d / 2^32 < 2^-16 < 1 / w, less than n / w's
 * fraction leaves below the next integer, for n < 65536. The lanes' bytes
 * go to bits `shift` and shift + 16 of a pixel's word. */
CO_INLINE uint q_round(uint s, uint m, int shift) {
    return (mul_hi(s & 0xFFFFu, m) << shift) | (mul_hi(s >> 16, m) << (shift + 16));
}

#if QWIDE
/* A lane of quad words v[0..3] summed over the quad: its low (shift 0) or
 * high (16) 16-bit lanes. */
CO_INLINE uint q_total(const uint *v, int shift) {
    return ((v[0] >> shift) & 0xFFFFu) + ((v[1] >> shift) & 0xFFFFu) +
           ((v[2] >> shift) & 0xFFFFu) + ((v[3] >> shift) & 0xFFFFu);
}

/* s (R, G, B, A) plus column o of a batch row's column sums (minus it
 * where sub), o counted from pixel 0 of a work-item's quad (-QR <= o <=
 * QR + 3, known when compiled); mine: that quad in the row (plane 0), so
 * that each read is a constant offset from one address. */
#define Q_FLOOR4(o) (((o) + 4096) / 4 - 1024) /* floor(o / 4) for o >= -4096 */
#define Q_MOD4(o) (((o) + 4096) % 4)
CO_INLINE void q_column(CO_LOCAL_PTR const uint4 *mine, int o, uint *s, bool sub) {
#if QL32
    const uint4 p = mine[Q_MOD4(o) * QPLANE + Q_FLOOR4(o)];
    const uint x[4] = {p.x, p.y, p.z, p.w};
#else
    /* column o of the plane's words, 4 a quad: the word o from pixel 0's */
    CO_LOCAL_PTR const uint *word = (CO_LOCAL_PTR const uint *)mine;
    const uint rb = word[o], ga = word[4 * QPLANE + o];
    const uint x[4] = {rb & 0xFFFFu, ga & 0xFFFFu, rb >> 16, ga >> 16};
#endif
#pragma unroll
    for (int k = 0; k < 4; k++) s[k] = sub ? s[k] - x[k] : s[k] + x[k];
}

CO_INLINE void q_add(uint *s, uint4 v) { s[0] += v.x, s[1] += v.y, s[2] += v.z, s[3] += v.w; }

/* n / w rounded down, n <= 255 w + w / 2 (a window's sum plus half of w):
 * one multiply-high and a shift where a 32-bit multiplier is exact over that
 * range (every r <= 1771; CUDA r = 16 / 64: 0.357 / 0.525 ms against 0.363 /
 * 0.560 with the three steps more of Granlund and Montgomery's,
 * 2026-12-03-h200-t.md), else (QGM) theirs, exact for any n < 2^32. The
 * host's box_quad_divisor picks and computes QMAGIC and QSHIFT. */
CO_INLINE uint q_divide(uint n) {
    const uint t1 = mul_hi(n, (uint)QMAGIC);
#if QGM
    return (t1 + ((n - t1) >> 1)) >> QSHIFT;
#else
    return t1 >> QSHIFT;
#endif
}
#endif

/* -DMAXREG=N caps CUDA's registers per work-item (0: the compiler's). */
#if defined(CO_CUDA) && defined(MAXREG) && MAXREG > 0
#define Q_MAXREG __maxnreg__(MAXREG)
#else
#define Q_MAXREG
#endif

__kernel void Q_MAXREG box_quad(int W, int H, int border, int seg,
                                __global const uint *CO_RESTRICT src,
                                __global uint *CO_RESTRICT dst, CO_LOCAL_ARG(uint4, mem)) {
    /* Sized at launch, not static arrays: NVIDIA OpenCL r = 16 / 64 0.386 /
     * 0.589 ms against 0.415 / 0.699 (r = 1 / 127 0.230 / 1.007 against
     * 0.224 / 0.982), CUDA within 1% (2026-12-03-h200-s.md).
     * cs: [buffer][plane: RB, GA][row of the batch][quad], a quad's four
     * words one 16-byte access (uint4: OpenCL aligns a uint array to 4
     * bytes only, and NVIDIA's faults on 16-byte accesses into one); then
     * (QS) blk: [row of the batch][quad], QS quads' totals from it. */
    CO_LOCAL_ARG_MEMORY(uint4, mem);
    CO_LOCAL_PTR uint4 *const cs = mem;
#if QS
    CO_LOCAL_PTR uint4 *const blk = mem + 2 * QPLANES * QPLANE;
#endif
    const int t = (int)get_local_id(0);
    const int q = (int)get_group_id(0) * (QNT - 2 * QH) - QH + t;
    const int y0 = (int)get_group_id(1) * seg, y1 = min(y0 + seg, H);
    /* QFLIP: odd segments walk up their rows, so that the rows two
     * segments share are read by both at about the same time (both at
     * their start, or both at their end), the second time from the L2:
     * virtual row u is image row base + dir u, the segment's own rows y0
     * .. y1 - 1 either way. (H200, 8192^2, r = 16, CUDA: 845 MB from DRAM
     * against 898, where a copy moves 537; 2026-12-04-h200-za.md.) */
    const bool up = QFLIP && (get_group_id(1) & 1u) != 0u;
    const int base = up ? y0 + y1 - 1 : 0, dir = up ? -1 : 1;
    const bool writes = t >= QH && t < QNT - QH && 4 * q < W;
    /* v: the column sums of row y - 1 (rows y - 1 - r .. y - 1 + r), RB of
     * pixel i in v[i], GA in v[4 + i]; QL32: channel k of pixel i in
     * v[4 i + k]. */
    uint v[QL32 ? 16 : 8];
#pragma unroll
    for (int i = 0; i < (QL32 ? 16 : 8); i++) v[i] = 0u;
    const bool inside = q_rows_inside(W, H, q, base, dir, y0 - QR - 1, y0 + QR); /* q_batch's */
    for (int k = -QR - 1; k < QR; k++) {
        uint p[4];
        if (inside)
            q_at(src + (size_t)(base + dir * (y0 + k)) * W, q, p);
        else
            q_load(src, W, H, border, q, base + dir * (y0 + k), p);
#pragma unroll
        for (int i = 0; i < 4; i++) {
#if QL32
#pragma unroll
            for (int ch = 0; ch < 4; ch++) v[4 * i + ch] += (p[i] >> (8 * ch)) & 0xFFu;
#else
            v[i] += p[i] & QLO, v[4 + i] += (p[i] >> 8) & QLO;
#endif
        }
    }
    const uint w = (2 * QR + 1) * (2 * QR + 1), hw = w / 2u;
#if !QWIDE
    const uint m = 0xFFFFFFFFu / w + 1u;
#endif
    /* The batch's entering and leaving rows, loaded a batch ahead: in
     * flight while the group sums the batch before along its rows. */
    uint e[QB][4], l[QB][4];
    q_batch(src, W, H, border, q, base, dir, y0, e, l);
    int buf = 0;
    for (int yb = y0; yb < y1; yb += QB, buf ^= 1) {
        CO_LOCAL_PTR uint4 *c = cs + buf * QPLANES * QPLANE;
#pragma unroll
        for (int b = 0; b < QB; b++) {
#if QL32
#pragma unroll
            for (int i = 0; i < 4; i++) {
                uint *vi = v + 4 * i;
#pragma unroll
                for (int ch = 0; ch < 4; ch++)
                    vi[ch] += ((e[b][i] >> (8 * ch)) & 0xFFu) - ((l[b][i] >> (8 * ch)) & 0xFFu);
                c[i * QPLANE + b * QNT + t] = CO_UINT4(vi[0], vi[1], vi[2], vi[3]);
            }
            c[4 * QPLANE + b * QNT + t] =
                CO_UINT4(v[0] + v[4] + v[8] + v[12], v[1] + v[5] + v[9] + v[13],
                         v[2] + v[6] + v[10] + v[14], v[3] + v[7] + v[11] + v[15]);
#else
#pragma unroll
            for (int i = 0; i < 4; i++) {
                v[i] += (e[b][i] & QLO) - (l[b][i] & QLO);
                v[4 + i] += ((e[b][i] >> 8) & QLO) - ((l[b][i] >> 8) & QLO);
            }
            c[b * QNT + t] = CO_UINT4(v[0], v[1], v[2], v[3]);
            c[QPLANE + b * QNT + t] = CO_UINT4(v[4], v[5], v[6], v[7]);
#if QWIDE
            c[2 * QPLANE + b * QNT + t] =
                CO_UINT4(q_total(v, 0), q_total(v + 4, 0), q_total(v, 16), q_total(v + 4, 16));
#endif
#endif
        }
        if (yb + QB < y1) q_batch(src, W, H, border, q, base, dir, yb + QB, e, l);
        barrier(CLK_LOCAL_MEM_FENCE);
#if QS
        /* (the blocks of the batch before were read before this barrier) */
        if (t + QS <= QNT) {
            for (int b = 0; b < QB; b++) {
                uint a[4] = {0u, 0u, 0u, 0u};
#pragma unroll
                for (int i = 0; i < QS; i++) q_add(a, c[QTOTALS * QPLANE + b * QNT + t + i]);
                blk[b * QNT + t] = CO_UINT4(a[0], a[1], a[2], a[3]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        if (writes) {
            for (int b = 0; b < QB && yb + b < y1; b++) {
                uint px[4] = {0u, 0u, 0u, 0u};
#if QWIDE
                /* pixel 0's window: the whole quads -QK .. QK - 1, then the
                 * columns 4 QK .. QR and -QR .. -4 QK - 1 */
                uint s[4] = {hw, hw, hw, hw}; /* rounds to nearest: + w / 2 */
#if QS
                /* 2 QK / QS blocks, then the quads left */
#pragma unroll
                for (int j = -QK; j + QS <= QK; j += QS) q_add(s, blk[b * QNT + t + j]);
#pragma unroll
                for (int j = -QK + (2 * QK) / QS * QS; j < QK; j++)
                    q_add(s, c[QTOTALS * QPLANE + b * QNT + t + j]);
#else
#pragma unroll
                for (int j = -QK; j < QK; j++) q_add(s, c[QTOTALS * QPLANE + b * QNT + t + j]);
#endif
                CO_LOCAL_PTR const uint4 *mine = c + b * QNT + t;
#pragma unroll
                for (int o = 4 * QK; o <= QR; o++) q_column(mine, o, s, false);
#pragma unroll
                for (int o = -QR; o < -4 * QK; o++) q_column(mine, o, s, false);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    if (i) {
                        q_column(mine, i + QR, s, false);
                        q_column(mine, i - 1 - QR, s, true);
                    }
                    px[i] = q_divide(s[0]) | q_divide(s[1]) << 8 | q_divide(s[2]) << 16 |
                            q_divide(s[3]) << 24;
                }
#else
#pragma unroll
                for (int plane = 0; plane < 2; plane++) {
                    /* the column sums of quads t - QH .. t + QH of this row */
                    uint col[4 * (2 * QH + 1)];
#pragma unroll
                    for (int j = 0; j < 2 * QH + 1; j++) {
                        const uint4 s = c[plane * QPLANE + b * QNT + t - QH + j];
                        col[4 * j] = s.x, col[4 * j + 1] = s.y, col[4 * j + 2] = s.z,
                                col[4 * j + 3] = s.w;
                    }
                    /* pixel i's window: columns 4 QH + i - r .. 4 QH + i + r */
                    uint win = hw * 0x10001u; /* w / 2 a lane: rounds to nearest */
#pragma unroll
                    for (int j = 4 * QH - QR; j <= 4 * QH + QR; j++) win += col[j];
#pragma unroll
                    for (int i = 0; i < 4; i++) {
                        if (i) win += col[4 * QH + i + QR] - col[4 * QH + i - 1 - QR];
                        px[i] |= q_round(win, m, 8 * plane);
                    }
                }
#endif
                __global uint *o = dst + (size_t)(base + dir * (yb + b)) * W;
#if QALIGNED
                if (4 * q + 4 <= W) {
                    CO_STOREU4(CO_UINT4(px[0], px[1], px[2], px[3]), o, q);
                    continue;
                }
#endif
#pragma unroll
                for (int i = 0; i < 4; i++)
                    if (4 * q + i < W) o[4 * q + i] = px[i];
            }
        }
    }
}
