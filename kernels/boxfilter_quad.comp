/* Box filter, RGBA8 with windows up to r = 2047 in GLSL: the twin of
 * kernels/boxfilter_quad.cl's box_quad (the design and its arithmetic are
 * told there), with its arguments, defines (QNT, QB, QALIGNED, BF_RADIUS,
 * QMAGIC, QSHIFT, QGM, QFLIP), work-groups and packed sums, so that the host
 * (src/workloads/boxfilter.c: run_quad) launches it unchanged. A pixel is
 * a 32-bit word (R the low byte): no 8-bit storage; where the width is a
 * multiple of 4, a quad is one uvec4 through a second view of each buffer. */
#include "boxfilter_common.cl"

#ifndef QNT
#define QNT 64
#endif
#ifndef QB
#define QB 2
#endif
#ifndef QALIGNED
#define QALIGNED 0
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
#define QPLANE (QB * QNT)
#define QWIDE (QR > 7)
#define QL32 (QR > 127) /* a 32-bit column sum a channel */
/* RB, GA and (QWIDE) the quads' channel totals; QL32: a plane a pixel, then
 * the totals */
#define QPLANES (QL32 ? 5 : QWIDE ? 3 : 2)
#define QTOTALS (QL32 ? 4 : 2)
#define QK (QR / 4)
#ifndef QS
#define QS 0 /* quads a block of totals (0: none) */
#endif
#ifndef QFLIP
#define QFLIP 0 /* odd segments walk up */
#endif
#ifndef QGM
#define QGM 0 /* q_divide by Granlund and Montgomery's three steps more */
#endif

CO_BUFFER(0, restrict readonly, uint, src)
CO_BUFFER(1, writeonly, uint, dst)
#if QALIGNED
CO_BUFFER_VIEW(0, restrict readonly, uvec4, src4)
CO_BUFFER_VIEW(1, writeonly, uvec4, dst4)
#endif
CO_ARGS uniform Args { int W; int H; int border; int seg; } args;
/* [buffer][plane: RB, GA, totals (QL32: pixels 0-3, totals)][row of the batch][quad] */
shared uvec4 cs[2 * QPLANES * QPLANE];
#if QS
shared uvec4 blk[QPLANE]; /* [row of the batch][quad]: QS quads' totals from it */
#endif

/* The four pixels of quad q of the image row from word `row` (the .cl's
 * q_at). */
uvec4 q_at(const uint row, const int q) {
#if QALIGNED
    return src4[row / 4u + uint(q)];
#else
    const uint a = row + 4u * uint(q);
    return uvec4(src[a], src[a + 1u], src[a + 2u], src[a + 3u]);
#endif
}

/* The four pixels of quad q of row y after the border rule (0: zero). */
uvec4 q_load(const int W, const int H, const int border, const int q, const int y) {
    const int ym = bf_map(y, H, border), x0 = 4 * q;
    if (ym >= 0 && x0 >= 0 && x0 + 4 <= W) return q_at(uint(ym) * uint(W), q);
    uvec4 p;
    [[unroll]] for (int i = 0; i < 4; i++) {
        const int xm = ym < 0 ? -1 : bf_map(x0 + i, W, border);
        p[i] = xm < 0 ? 0u : src[uint(ym) * uint(W) + uint(xm)];
    }
    return p;
}

/* Batch yb's entering and leaving rows, virtual rows (the .cl's q_batch). */
void q_batch(const int W, const int H, const int border, const int q, const int base,
             const int dir, const int yb, out uvec4 e[QB], out uvec4 l[QB]) {
    if (q_rows_inside(W, H, q, base, dir, yb - QR - 1, yb + QB + QR)) {
        uint a = uint(base + dir * (yb + QR)) * uint(W),
             b = uint(base + dir * (yb - QR - 1)) * uint(W);
        const uint step = uint(dir * W); /* modulo 2^32: a row up where dir is -1 */
        [[unroll]] for (int i = 0; i < QB; i++, a += step, b += step) {
            e[i] = q_at(a, q);
            l[i] = q_at(b, q);
        }
        return;
    }
    [[unroll]] for (int i = 0; i < QB; i++) {
        e[i] = q_load(W, H, border, q, base + dir * (yb + i + QR));
        l[i] = q_load(W, H, border, q, base + dir * (yb + i - QR - 1));
    }
}

/* A window's lanes rounded to nearest (the .cl's q_round). */
uint q_mulhi(const uint a, const uint b) {
    uint hi, lo;
    umulExtended(a, b, hi, lo);
    return hi;
}
uint q_round(const uint s, const uint m, const int shift) {
    return (q_mulhi(s & 0xFFFFu, m) << shift) | (q_mulhi(s >> 16, m) << (shift + 16));
}

#if QWIDE
/* The .cl's q_total, q_column and q_divide: a lane summed over a quad;
 * s (R, G, B, A) plus (sub: minus) column o from pixel 0 of quad t of the
 * batch row whose first quad is cs[row]; n / w rounded down. q_bytes: a
 * pixel's channels (QL32). */
uint q_total(const uvec4 v, const int shift) {
    const uvec4 x = (v >> shift) & 0xFFFFu;
    return x.x + x.y + x.z + x.w;
}
uvec4 q_bytes(const uint x) { return (uvec4(x) >> uvec4(0u, 8u, 16u, 24u)) & 0xFFu; }
#define Q_FLOOR4(o) (((o) + 4096) / 4 - 1024)
#define Q_MOD4(o) (((o) + 4096) % 4)
void q_column(const int row, const int t, const int o, inout uvec4 s, const bool sub) {
#if QL32
    const uvec4 x = cs[row + Q_MOD4(o) * QPLANE + t + Q_FLOOR4(o)];
#else
    const int a = row + t + Q_FLOOR4(o), i = Q_MOD4(o);
    const uint rb = cs[a][i], ga = cs[a + QPLANE][i];
    const uvec4 x = uvec4(rb & 0xFFFFu, ga & 0xFFFFu, rb >> 16, ga >> 16);
#endif
    s = sub ? s - x : s + x;
}
uint q_divide(const uint n) { /* the .cl's */
    const uint t1 = q_mulhi(n, QMAGIC);
#if QGM
    return (t1 + ((n - t1) >> 1)) >> QSHIFT;
#else
    return t1 >> QSHIFT;
#endif
}
#endif

void main() {
    const int W = args.W, H = args.H, border = args.border, seg = args.seg;
    const int t = int(gl_LocalInvocationID.x);
    const int q = int(gl_WorkGroupID.x) * (QNT - 2 * QH) - QH + t;
    const int y0 = int(gl_WorkGroupID.y) * seg, y1 = min(y0 + seg, H);
    /* QFLIP: odd segments walk up (the .cl's) */
    const bool up = QFLIP != 0 && (gl_WorkGroupID.y & 1u) != 0u;
    const int base = up ? y0 + y1 - 1 : 0, dir = up ? -1 : 1;
    const bool writes = t >= QH && t < QNT - QH && 4 * q < W;
    /* the column sums of row y - 1: RB lanes in v[0], GA in v[1]; QL32:
     * pixel i's channels in v[i] */
#if QL32
    uvec4 v[4] = uvec4[4](uvec4(0u), uvec4(0u), uvec4(0u), uvec4(0u));
#else
    uvec4 v[2] = uvec4[2](uvec4(0u), uvec4(0u));
#endif
    const bool inside = q_rows_inside(W, H, q, base, dir, y0 - QR - 1, y0 + QR);
    for (int k = -QR - 1; k < QR; k++) {
        uvec4 p;
        if (inside)
            p = q_at(uint(base + dir * (y0 + k)) * uint(W), q);
        else
            p = q_load(W, H, border, q, base + dir * (y0 + k));
#if QL32
        [[unroll]] for (int i = 0; i < 4; i++) v[i] += q_bytes(p[i]);
#else
        v[0] += p & QLO, v[1] += (p >> 8) & QLO;
#endif
    }
    const uint w = uint((2 * QR + 1) * (2 * QR + 1)), hw = w / 2u;
#if !QWIDE
    const uint m = 0xFFFFFFFFu / w + 1u;
#endif
    /* entering and leaving rows, loaded a batch ahead */
    uvec4 e[QB], l[QB];
    q_batch(W, H, border, q, base, dir, y0, e, l);
    int buf = 0;
    for (int yb = y0; yb < y1; yb += QB, buf ^= 1) {
        const int c = buf * QPLANES * QPLANE;
        [[unroll]] for (int b = 0; b < QB; b++) {
#if QL32
            [[unroll]] for (int i = 0; i < 4; i++) {
                v[i] += q_bytes(e[b][i]) - q_bytes(l[b][i]);
                cs[c + i * QPLANE + b * QNT + t] = v[i];
            }
            cs[c + 4 * QPLANE + b * QNT + t] = v[0] + v[1] + v[2] + v[3];
#else
            v[0] += (e[b] & QLO) - (l[b] & QLO);
            v[1] += ((e[b] >> 8) & QLO) - ((l[b] >> 8) & QLO);
            cs[c + b * QNT + t] = v[0];
            cs[c + QPLANE + b * QNT + t] = v[1];
#if QWIDE
            cs[c + 2 * QPLANE + b * QNT + t] =
                uvec4(q_total(v[0], 0), q_total(v[1], 0), q_total(v[0], 16), q_total(v[1], 16));
#endif
#endif
        }
        if (yb + QB < y1) q_batch(W, H, border, q, base, dir, yb + QB, e, l);
        barrier();
#if QS
        if (t + QS <= QNT) {
            for (int b = 0; b < QB; b++) {
                uvec4 a = uvec4(0u);
                [[unroll]] for (int i = 0; i < QS; i++) a += cs[c + QTOTALS * QPLANE + b * QNT + t + i];
                blk[b * QNT + t] = a;
            }
        }
        barrier();
#endif
        if (writes) {
            for (int b = 0; b < QB && yb + b < y1; b++) {
                uvec4 px = uvec4(0u);
#if QWIDE
                uvec4 s = uvec4(hw); /* rounds to nearest: + w / 2 */
                const int totals = c + QTOTALS * QPLANE + b * QNT + t;
#if QS
                [[unroll]] for (int j = -QK; j + QS <= QK; j += QS) s += blk[b * QNT + t + j];
                [[unroll]] for (int j = -QK + (2 * QK) / QS * QS; j < QK; j++) s += cs[totals + j];
#else
                [[unroll]] for (int j = -QK; j < QK; j++) s += cs[totals + j];
#endif
                const int row = c + b * QNT;
                [[unroll]] for (int o = 4 * QK; o <= QR; o++) q_column(row, t, o, s, false);
                [[unroll]] for (int o = -QR; o < -4 * QK; o++) q_column(row, t, o, s, false);
                [[unroll]] for (int i = 0; i < 4; i++) {
                    if (i > 0) {
                        q_column(row, t, i + QR, s, false);
                        q_column(row, t, i - 1 - QR, s, true);
                    }
                    px[i] = q_divide(s.x) | q_divide(s.y) << 8 | q_divide(s.z) << 16 |
                            q_divide(s.w) << 24;
                }
#else
                [[unroll]] for (int plane = 0; plane < 2; plane++) {
                    uint col[4 * (2 * QH + 1)];
                    [[unroll]] for (int j = 0; j < 2 * QH + 1; j++) {
                        const uvec4 s = cs[c + plane * QPLANE + b * QNT + t - QH + j];
                        col[4 * j] = s.x, col[4 * j + 1] = s.y, col[4 * j + 2] = s.z,
                                col[4 * j + 3] = s.w;
                    }
                    uint win = hw * 0x10001u; /* w / 2 a lane: rounds to nearest */
                    [[unroll]] for (int j = 4 * QH - QR; j <= 4 * QH + QR; j++) win += col[j];
                    [[unroll]] for (int i = 0; i < 4; i++) {
                        if (i > 0) win += col[4 * QH + i + QR] - col[4 * QH + i - 1 - QR];
                        px[i] |= q_round(win, m, 8 * plane);
                    }
                }
#endif
                const uint o = uint(base + dir * (yb + b)) * uint(W);
#if QALIGNED
                if (4 * q + 4 <= W) {
                    dst4[o / 4u + uint(q)] = px;
                    continue;
                }
#endif
                [[unroll]] for (int i = 0; i < 4; i++)
                    if (4 * q + i < W) dst[o + uint(4 * q + i)] = px[i];
            }
        }
    }
}
