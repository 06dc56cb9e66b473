/* Box filter in GLSL: the twins of kernels/boxfilter.cl's box_naive,
 * box_line, box_transpose and box_slide and of kernels/boxfilter_fused.cl's
 * box_fused (vertical first) and box_ring (horizontal first), with their
 * arguments, defines (BF_U8, BF_CH, BF_FIRST, BF_FINAL, TILE, SY, NT,
 * BF_BATCH, BF_HIST, BF_BLOCKS, LMAX, CHAINS, BF_KAHAN0; the ring's PF,
 * BF_LD, BF_PIPE, BF_ZSTORE, BF_PITCH, BF_RADIUS, BF_RING_ROWS), work-groups
 * and sums, so that the host code (src/workloads/boxfilter.c) launches them
 * unchanged and its error model holds. The border rule and the windows
 * (bf_map, bf_window, BF_SPAN_EACH) are boxfilter_common.cl's own,
 * included. Not here: the ring's BF_VEC (the host does not ask for it on
 * Vulkan) and box_image (no images).
 *
 * GLSL has no pointers: a helper reads the shader's `src` buffer, and its
 * shared arrays, at element offsets. A row of an 8-bit format is read and
 * written through 8-bit storage. */

#include "boxfilter_common.cl"

/* The formats, as the host's table gives them: BF_U8 1, 8-bit elements
 * with exact uint sums; 0, float32 with compensated float sums
 * (boxfilter_common.cl's second part, in GLSL); BF_CH channels a pixel. */
#ifndef BF_U8
#define BF_U8 0
#endif
#ifndef BF_CH
#define BF_CH 1
#endif

#if BF_U8
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define BF_T uint8_t
#define BF_ACC uint
#define BF_SUM0 0u
/* (2r+1)^2 is odd: adding half of it rounds to nearest with no ties. */
#define BF_NORM(s, r) uint8_t(((s) + uint((2 * (r) + 1) * (2 * (r) + 1)) / 2u) / \
                              uint((2 * (r) + 1) * (2 * (r) + 1)))
/* uint wraps and comes back exactly: no compensation */
#define BF_SLIDE(v, comp, delta) ((v) += (delta))
#define BF_KSUM(s, comp) (s)
#define BF_RUN0(comp) 0u
#define BF_END(v, comp, run) ((v) += (run))
#else
#define BF_T float
#define BF_ACC float
#define BF_SUM0 (-0.0)
#define BF_NORM(s, r) ((s) * (1.0 / (float(2 * (r) + 1) * float(2 * (r) + 1))))
/* Kahan: v += delta with the lost low part in comp (boxfilter_common.cl).
 * precise: SPIR-V lets a driver reassociate other adds, which would make
 * (t - v) - y zero. Functions, not do-while blocks, so that loops around
 * them unroll. */
void bf_slide(inout float v, inout float comp, const float delta) {
    precise float y = delta - comp, t = v + y, c = (t - v) - y;
    comp = c;
    v = t;
}
void bf_end(inout float v, inout float comp, const float run) {
    precise float t = v + run, c = (t - v) - run;
    comp = c;
    v = t;
}
#define BF_SLIDE(v, comp, delta) bf_slide(v, comp, delta)
#define BF_KSUM(s, comp) ((s) - (comp))
#define BF_RUN0(comp) (-(comp))
#define BF_END(v, comp, run) bf_end(v, comp, run)
#endif
#define BF_KADD(s, comp, x) BF_SLIDE(s, comp, x)
#define BF_AT(v, run) ((v) + (run))

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
/* The source: the image, or a first pass's raw sums; the destination
 * likewise. */
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
CO_BUFFER(0, restrict readonly, BF_IN, src)
CO_BUFFER(1, restrict writeonly, BF_OUT, dst)
/* Element i of src as a sum's term. */
#define BF_SRC(i) BF_ACC(src[(i)])

#if defined(ENTRY_box_naive) || defined(ENTRY_box_line) || defined(ENTRY_box_transpose) || \
    defined(ENTRY_box_slide)
/* The window sum of span sp along a line, element p at src[base + p
 * stride], compensated: O(n) reads at any radius (bf_window). */
BF_ACC bf_span_sum(const uint base, const uint stride, const bf_span sp, const int n,
                   const int border) {
    BF_ACC s = BF_SUM0, comp = BF_ACC(0);
#define BF_ADD_(p, k) BF_KADD(s, comp, BF_ACC(k) * BF_SRC(base + uint(p) * stride))
    BF_SPAN_EACH(sp, n, border, BF_ADD_);
#undef BF_ADD_
    return BF_KSUM(s, comp);
}

/* Sum of the 2r+1 neighbours of element (x, y, c) along the row (dir 0)
 * or the column (dir 1). */
BF_ACC bf_line(const int W, const int H, const int x, const int y, const int c, const int radius,
               const int border, const int dir) {
    const int n = dir != 0 ? H : W, at = dir != 0 ? y : x;
    const uint stride = dir != 0 ? uint(W) * BF_CH : BF_CH;
    const uint base = (dir != 0 ? uint(x) * BF_CH : uint(y) * uint(W) * BF_CH) + uint(c);
    return bf_span_sum(base, stride, bf_window(at, radius, n, border), n, border);
}
#endif

#if defined(ENTRY_box_naive)
CO_ARGS uniform Args { int W; int H; int radius; int border; } args;
/* Rows first, each a compensated sum, then their compensated sum weighted
 * as the rows' span says. */
void main() {
    const int W = args.W, H = args.H, radius = args.radius, border = args.border;
    const int i = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (i >= W * BF_CH || y >= H) return;
    const int x = i / BF_CH, c = i - x * BF_CH;
    const bf_span sx = bf_window(x, radius, W, border), sy = bf_window(y, radius, H, border);
    const uint pitch = uint(W) * BF_CH;
    BF_ACC sum = BF_SUM0, comp = BF_ACC(0);
#define BF_ADD_(p, k) \
    BF_KADD(sum, comp, BF_ACC(k) * bf_span_sum(uint(p) * pitch + uint(c), BF_CH, sx, W, border))
    BF_SPAN_EACH(sy, H, border, BF_ADD_);
#undef BF_ADD_
    dst[uint(y) * pitch + uint(i)] = BF_RESULT(BF_KSUM(sum, comp), radius);
}

#elif defined(ENTRY_box_line)
CO_ARGS uniform Args { int W; int H; int radius; int border; int dir; } args;
void main() {
    const int W = args.W, H = args.H;
    const int i = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (i >= W * BF_CH || y >= H) return;
    const int x = i / BF_CH, c = i - x * BF_CH;
    const BF_ACC s = bf_line(W, H, x, y, c, args.radius, args.border, args.dir);
    dst[uint(y) * uint(W) * BF_CH + uint(i)] = BF_RESULT(s, args.radius);
}

#elif defined(ENTRY_box_transpose)
/* src is H rows of W pixels; dst is W rows of H pixels: dst(x, y) = the row
 * sum at src(x, y). Work-groups TILE x TILE, one pixel per invocation. */
CO_ARGS uniform Args { int W; int H; int radius; int border; } args;
shared BF_ACC tile[TILE][TILE * BF_CH + 1]; /* +1: column reads without bank conflicts */
void main() {
    const int W = args.W, H = args.H, radius = args.radius;
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int gx = int(gl_WorkGroupID.x) * TILE, gy = int(gl_WorkGroupID.y) * TILE;
    if (gx + lx < W && gy + ly < H)
        for (int c = 0; c < BF_CH; c++)
            tile[ly][lx * BF_CH + c] = bf_line(W, H, gx + lx, gy + ly, c, radius, args.border, 0);
    barrier();
    if (gx + ly < W && gy + lx < H)
        for (int c = 0; c < BF_CH; c++)
            dst[(uint(gx + ly) * uint(H) + uint(gy + lx)) * BF_CH + uint(c)] =
                BF_RESULT(tile[lx][ly * BF_CH + c], radius);
}

#elif defined(ENTRY_box_slide)
/* Running sums down the element columns of src (H rows of W*BF_CH
 * elements), written transposed: dst is W rows of H pixels. Work-groups
 * TILE x SY: TILE element columns, SY segments of `seg` rows (a multiple of
 * TILE); every TILE rows the group's TILE x TILE block goes out through
 * shared memory, each transposed pixel row written contiguously. */
CO_ARGS uniform Args { int W; int H; int radius; int border; int seg; } args;
shared BF_ACC tile[SY][TILE][TILE + 1];
void main() {
    const int W = args.W, H = args.H, radius = args.radius, border = args.border, seg = args.seg;
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int ec = W * BF_CH, e0 = int(gl_WorkGroupID.x) * TILE, e = e0 + lx;
    const int y0 = (int(gl_WorkGroupID.y) * SY + ly) * seg;
    const bool live = e < ec && y0 < H;
    /* The segment's first window, compensated, O(H) at any radius. */
    BF_ACC s = live ? bf_span_sum(uint(e), uint(ec), bf_window(y0, radius, H, border), H, border)
                    : BF_ACC(0);
    BF_ACC comp = BF_ACC(0);
    for (int b = 0; b < seg; b += TILE) { /* the same count for every invocation (barriers) */
        const int yb = y0 + b;
        for (int k = 0; k < TILE; k++) {
            const int y = yb + k;
            if (live && y < H) {
                if (y > y0) {
                    const int enter = bf_map(y + radius, H, border);
                    const int leave = bf_map(y - radius - 1, H, border);
                    const BF_ACC a = enter >= 0 ? BF_SRC(uint(enter) * uint(ec) + uint(e)) : BF_ACC(0);
                    const BF_ACC d = leave >= 0 ? BF_SRC(uint(leave) * uint(ec) + uint(e)) : BF_ACC(0);
                    BF_SLIDE(s, comp, a - d);
                }
                tile[ly][k][lx] = s;
            }
        }
        barrier();
        /* The block holds TILE/BF_CH pixels x TILE rows; dst row x gets
         * TILE*BF_CH consecutive elements (row k, channel c at k*BF_CH+c). */
        for (int p = 0; p < TILE / BF_CH; p++) {
            const int x = e0 / BF_CH + p;
            for (int q = lx; q < TILE * BF_CH; q += TILE) {
                const int k = q / BF_CH, c = q - k * BF_CH, y = yb + k;
                if (x < W && y < H)
                    dst[(uint(x) * uint(H) + uint(y)) * BF_CH + uint(c)] =
                        BF_RESULT(tile[ly][k][p * BF_CH + c], radius);
            }
        }
        barrier();
    }
}

#elif defined(ENTRY_box_fused) || defined(ENTRY_box_ring)
/* box_fused and box_ring (kernels/boxfilter_fused.cl tells them whole): a
 * group owns a strip of NT element columns and a segment of `seg` rows; its
 * strip and halo, hc = NT + 2 r BF_CH columns, are dealt to its
 * invocations, a column each, and it walks the segment BF_BATCH rows at a
 * time. box_fused, vertical first: 1. each invocation slides the running
 * sum of its column down the batch (the entering rows loaded a batch
 * ahead, straight-line where no row needs the border rule; the leaving
 * ones from registers with BF_HIST, else loaded again) into lm,
 * T[hc][BF_BATCH + 1] column-major, then the block sums (BF_BLOCKS); 2. the
 * window sums along the batch's rows, parts of BF_PART pixels, into lo; 3.
 * lo's rows go out. box_ring, horizontal first: the batch's input rows
 * into lm, their window sums along the rows (step 2) into a ring of the
 * strip's last row sums, and the vertical sums down the ring's columns
 * out. */
#ifndef NT
#define NT 128
#endif
#ifndef BF_BATCH
#define BF_BATCH 16
#endif
#define BF_PART BF_BATCH
#ifndef BF_HIST
#define BF_HIST -1
#endif
#ifndef BF_BLOCKS
#define BF_BLOCKS 0
#endif
#ifndef CHAINS
#define CHAINS 1
#endif
#ifndef LMAX
#define LMAX 7168
#endif
#ifndef BF_KAHAN0
#define BF_KAHAN0 0
#endif
/* (The .cl's BF_VEC, row-major rows read as float4, has no twin: GLSL
 * has no vec4 view of a float shared array; the host does not ask.) */
#define BF_TP (BF_BATCH + 1) /* T's column pitch */
#define BF_OP (NT + 1)       /* the row pitch of lo and of the ring */
#if BF_HIST >= 0
#define BF_W (2 * BF_HIST + 1)
#endif
/* A part's first window: compensated with BF_KAHAN0, else plain. */
#if BF_KAHAN0
#define BF_ADD0(s, comp, x) BF_KADD(s, comp, x)
#else
#define BF_ADD0(s, comp, x) ((s) += (x))
#endif
/* Shared memory at element offsets: box_fused's lm and lo are arrays of
 * their own (the compiler then knows that lo's stores leave T alone);
 * box_ring's are one block sized at launch (the CO_LOCAL argument), lm
 * (twice with BF_PIPE) and then the ring at ring_at. */
#ifdef ENTRY_box_ring
CO_ARGS uniform Args {
    int W; int H; int radius; int border; int seg; int ring_rows; int ring_at;
} args;
shared BF_ACC mem[CO_LOCAL_BYTES / 4];
#define BF_LM(i) mem[i]
#define BF_LO(i) mem[i]
#else
CO_ARGS uniform Args { int W; int H; int radius; int border; int seg; } args;
shared BF_ACC lm[LMAX];
shared BF_ACC lo[BF_BATCH * BF_OP];
#define BF_LM(i) lm[i]
#define BF_LO(i) lo[i]
#endif

/* Input element of halo column j of a strip starting at element e0 (-1: zero). */
int bf_halo(const int j, const int e0, const int rc, const int W, const int border) {
    const int e = e0 - rc + j;
    const int x = e >= 0 ? e / BF_CH : -((-e + BF_CH - 1) / BF_CH); /* floor */
    const int xm = bf_map(x, W, border);
    return xm < 0 ? -1 : xm * BF_CH + (e - x * BF_CH);
}

/* Input column g (-1: zero) at the BF_BATCH rows from ya into e; rows
 * outside the image after the border rule. */
void bf_rows(const int ec, const int H, const int border, const int g, const int ya,
             out BF_ACC e[BF_BATCH]) {
    if (g >= 0 && ya >= 0 && ya + BF_BATCH <= H) {
        const uint a = uint(ya) * uint(ec) + uint(g);
        [[unroll]] for (int i = 0; i < BF_BATCH; i++) e[i] = BF_SRC(a + uint(i) * uint(ec));
        return;
    }
    [[unroll]] for (int i = 0; i < BF_BATCH; i++) {
        const int ym = g >= 0 ? bf_map(ya + i, H, border) : -1;
        e[i] = ym < 0 ? BF_ACC(0) : BF_SRC(uint(ym) * uint(ec) + uint(g));
    }
}

/* CHAINS chains of the steps d[0 .. BF_PART-2] of a part (and of the
 * ring's batch, as many): chain c starts at st[c], s plus the steps before
 * it, each chain's steps summed four ways. */
#define BF_LAST_CHAIN(n) ((n) - (CHAINS - 1) * ((n) / CHAINS))
#define BF_CHAIN_AT(n, ch, q) \
    ((ch) + 1 < CHAINS && (q) >= (n) / CHAINS ? -1 : (ch) * ((n) / CHAINS) + (q))
void bf_chain_starts(const BF_ACC d[BF_PART], out BF_ACC st[CHAINS], const BF_ACC s) {
    st[0] = s;
    [[unroll]] for (int c = 1; c < CHAINS; c++) {
        BF_ACC h4[4] = {BF_SUM0, BF_SUM0, BF_SUM0, BF_SUM0};
        [[unroll]] for (int q = 0; q < BF_PART / CHAINS; q++)
            h4[q % 4] += d[(c - 1) * (BF_PART / CHAINS) + q];
        st[c] = st[c - 1] + ((h4[0] + h4[1]) + (h4[2] + h4[3]));
    }
}

/* Step 2's block sums (BF_BLOCKS): the sums of BF_PART columns of each row
 * of the batch in lm (T from element lm0), one item per row and block, at
 * lm0 + bs. */
void bf_block_sums(const int lm0, const int t, const int wg, const int hc, const int radius) {
#if BF_BLOCKS
    const int pixels = NT / BF_CH, parts = (pixels + BF_PART - 1) / BF_PART;
    const int full = (2 * radius + 1) / BF_PART, blocks = full != 0 ? parts - 1 + full : 0;
    const int bs = lm0 + hc * BF_TP; /* (block * BF_CH + channel) * BF_BATCH + row from there */
    for (int it = t; it < BF_BATCH * blocks; it += wg) {
        const int k = it % BF_BATCH, px0 = it / BF_BATCH * BF_PART;
        for (int c = 0; c < BF_CH; c++) {
            const int in0 = lm0 + k + (px0 * BF_CH + c) * BF_TP;
            BF_ACC q[4] = {BF_SUM0, BF_SUM0, BF_SUM0, BF_SUM0}; /* a quarter of the dependent adds */
            [[unroll]] for (int d = 0; d < BF_PART; d++) q[d % 4] += BF_LM(in0 + d * BF_CH * BF_TP);
            BF_LM(bs + (it / BF_BATCH * BF_CH + c) * BF_BATCH + k) = (q[0] + q[1]) + (q[2] + q[3]);
        }
    }
#endif
}

/* Step 2's running sums, rows k < nb of the batch in lm (from lm0) into
 * rows of lo (from lo0; row k at row (first + k) mod lo_rows, first <
 * lo_rows, BF_BATCH <= lo_rows): an item per row and part, its first
 * window from the block sums and the rest (two partial sums), then a step
 * a pixel. */
void bf_runs(const int lm0, const int lo0, const int first, const int lo_rows, const int t,
             const int wg, const int hc, const int radius, const int nb) {
    const int pixels = NT / BF_CH, parts = (pixels + BF_PART - 1) / BF_PART;
#if BF_BLOCKS
    const int full = (2 * radius + 1) / BF_PART, bs = lm0 + hc * BF_TP;
#else
    const int full = 0;
#endif
    const int step = BF_CH * BF_TP, span = 2 * radius * step;
    for (int it = t; it < BF_BATCH * parts; it += wg) {
        const int k = it % BF_BATCH, p = it / BF_BATCH, px0 = p * BF_PART;
        if (k >= nb) continue;
        const int px1 = min(px0 + BF_PART, pixels), r = first + k;
        const int row = lo0 + (r < lo_rows ? r : r - lo_rows) * BF_OP + px0 * BF_CH;
        for (int c = 0; c < BF_CH; c++) {
            const int in0 = lm0 + k + (px0 * BF_CH + c) * BF_TP; /* column px0 + d: in0 + d step */
            BF_ACC s = BF_SUM0, s2 = BF_SUM0, k1 = BF_ACC(0), k2 = BF_ACC(0);
#if BF_BLOCKS
            const int blk = bs + (p * BF_CH + c) * BF_BATCH + k;
            int b = 0;
            for (; b + 1 < full; b += 2) {
                BF_ADD0(s, k1, BF_LM(blk + b * BF_CH * BF_BATCH));
                BF_ADD0(s2, k2, BF_LM(blk + (b + 1) * BF_CH * BF_BATCH));
            }
            if (b < full) BF_ADD0(s, k1, BF_LM(blk + b * BF_CH * BF_BATCH));
#endif
            int d = full * BF_PART;
            for (; d + 1 <= 2 * radius; d += 2) {
                BF_ADD0(s, k1, BF_LM(in0 + d * step));
                BF_ADD0(s2, k2, BF_LM(in0 + (d + 1) * step));
            }
            if (d <= 2 * radius) BF_ADD0(s, k1, BF_LM(in0 + d * step));
#if BF_KAHAN0
            s = BF_KSUM(s, k1) + BF_KSUM(s2, k2);
#else
            s += s2;
#endif
            if (px1 - px0 == BF_PART) { /* a whole part: unrolled */
#if CHAINS > 1
                BF_ACC dl[BF_PART]; /* step q: the column entering minus the one leaving */
                [[unroll]] for (int q = 0; q < BF_PART - 1; q++)
                    dl[q] = BF_LM(in0 + q * step + step + span) - BF_LM(in0 + q * step);
                dl[BF_PART - 1] = BF_ACC(0);
                BF_ACC st[CHAINS];
                bf_chain_starts(dl, st, s);
                [[unroll]] for (int q = 0; q < BF_LAST_CHAIN(BF_PART); q++) {
                    [[unroll]] for (int ch = 0; ch < CHAINS; ch++) {
                        const int at = BF_CHAIN_AT(BF_PART, ch, q);
                        if (at >= 0) { /* (no continue: the loops unroll) */
                            BF_LO(row + at * BF_CH + c) = st[ch];
                            if (at + 1 < BF_PART) st[ch] += dl[at];
                        }
                    }
                }
#else
                /* Each step's two values read as it is added, not first into
                 * an array of the part's steps: few of its 2 (BF_PART - 1)
                 * reads live at once (H200, r = 64: 69 registers against 81,
                 * two groups a multiprocessor, 0.274 ms against 0.381;
                 * docs/results/2026-12-02-h200-q.md) */
                [[unroll]] for (int q = 0; q < BF_PART; q++) {
                    BF_LO(row + q * BF_CH + c) = s;
                    if (q + 1 < BF_PART)
                        s += BF_LM(in0 + q * step + step + span) - BF_LM(in0 + q * step);
                }
#endif
            } else {
                for (int q = 0; q < px1 - px0; q++) {
                    BF_LO(row + q * BF_CH + c) = s;
                    if (q + 1 < px1 - px0)
                        s += BF_LM(in0 + q * step + step + span) - BF_LM(in0 + q * step);
                }
            }
        }
    }
}

#ifdef ENTRY_box_fused
/* The window of row y0 - 1 of column g (rows y0-r-1 .. y0+r-1), summed
 * compensated into (v, comp): BF_BATCH rows loaded together (bf_rows) and
 * put in the column's own slots of T, then added from there by a loop of
 * their own, not unrolled, as spirv-opt's unroller drops `precise` from
 * the copies it makes (SPIRV-Tools issue 5902, fixed in 2025 by PR 6373). The
 * rows of a batch are summed before the batch's first barrier: no other
 * invocation uses the slots then. */
void bf_start(const int ec, const int H, const int radius, const int border, const int g,
              const int t, const int y0, inout BF_ACC v, inout BF_ACC comp) {
    BF_ACC e[BF_BATCH];
    for (int d0 = -radius - 1; d0 < radius && g >= 0; d0 += BF_BATCH) {
        bf_rows(ec, H, border, g, y0 + d0, e);
        [[unroll]] for (int i = 0; i < BF_BATCH; i++)
            lm[t * BF_TP + i] = d0 + i < radius ? e[i] : BF_ACC(0); /* (rows past it: 0) */
        for (int i = 0; i < BF_BATCH; i++) BF_KADD(v, comp, lm[t * BF_TP + i]);
    }
}

void main() {
    const int W = args.W, H = args.H, radius = args.radius, border = args.border;
    const int t = int(gl_LocalInvocationID.x), wg = int(gl_WorkGroupSize.x);
    const int ec = W * BF_CH, rc = radius * BF_CH, e0 = int(gl_WorkGroupID.x) * NT, hc = NT + 2 * rc;
    const int y0 = int(gl_WorkGroupID.y) * args.seg, y1 = min(y0 + args.seg, H);
    const int g = t < hc ? bf_halo(t, e0, rc, W, border) : -1; /* this column's input column */
    BF_ACC v = BF_ACC(0), comp = BF_ACC(0), enter[BF_BATCH];
    /* The column starts with the window of row y0 - 1, so that every row
     * of the segment slides. */
    bf_start(ec, H, radius, border, g, t, y0, v, comp);
#if BF_HIST >= 0
    BF_ACC hist[BF_W]; /* E(yb - 2r - 1) .. E(yb - 1) */
    [[unroll]] for (int d = 0; d < BF_W; d++) {
        const int yy = g >= 0 ? bf_map(y0 - BF_HIST - 1 + d, H, border) : -1;
        hist[d] = yy >= 0 ? BF_SRC(uint(yy) * uint(ec) + uint(g)) : BF_ACC(0);
    }
#else
    BF_ACC leave[BF_BATCH];
    bf_rows(ec, H, border, g, y0 - radius - 1, leave);
#endif
    bf_rows(ec, H, border, g, y0 + radius, enter);
    for (int yb = y0; yb < y1; yb += BF_BATCH) {
        const int nb = min(BF_BATCH, y1 - yb);
        BF_ACC run = BF_RUN0(comp);
        [[unroll]] for (int i = 0; i < BF_BATCH; i++) {
#if BF_HIST >= 0
            /* (indices clamped in the branch not taken) */
            const BF_ACC out_ = i < BF_W ? hist[min(i, BF_W - 1)] : enter[max(i - BF_W, 0)];
#else
            const BF_ACC out_ = leave[i];
#endif
            run += enter[i] - out_;
            if (t < hc) lm[t * BF_TP + i] = BF_AT(v, run);
        }
        BF_END(v, comp, run);
#if BF_HIST >= 0
        /* The last BF_W of hist then enter. */
        [[unroll]] for (int d = 0; d < BF_W; d++)
            hist[d] = d + BF_BATCH < BF_W ? hist[min(d + BF_BATCH, BF_W - 1)]
                                          : enter[max(d + BF_BATCH - BF_W, 0)];
#endif
        if (yb + BF_BATCH < y1) {
            bf_rows(ec, H, border, g, yb + BF_BATCH + radius, enter);
#if BF_HIST < 0
            bf_rows(ec, H, border, g, yb + BF_BATCH - radius - 1, leave);
#endif
        }
        barrier();
        bf_block_sums(0, t, wg, hc, radius);
#if BF_BLOCKS
        barrier();
#endif
        bf_runs(0, 0, 0, BF_BATCH, t, wg, hc, radius, nb);
        barrier();
        /* The next batch writes lm, which no one reads now, and lo only
         * after the next barrier: no third barrier. */
        for (int e = t; e < NT && e0 + e < ec; e += wg) {
            const uint o = uint(yb) * uint(ec) + uint(e0 + e);
            if (nb == BF_BATCH) {
                [[unroll]] for (int i = 0; i < BF_BATCH; i++)
                    dst[o + uint(i) * uint(ec)] = BF_NORM(lo[i * BF_OP + e], radius);
            } else {
                for (int i = 0; i < nb; i++)
                    dst[o + uint(i) * uint(ec)] = BF_NORM(lo[i * BF_OP + e], radius);
            }
        }
    }
}

#else /* ENTRY_box_ring */
#ifndef PF
#define PF 1 /* batches of rows loaded ahead */
#endif
#ifndef BF_LD /* (2r+1) mod BF_BATCH: the leaving rows' offset into a block */
#define BF_LD 0
#endif
#define BF_CARRY (BF_LD > 0 ? BF_LD : 1)
#ifndef BF_PIPE
#define BF_PIPE 0
#endif
#ifndef BF_ZSTORE
#define BF_ZSTORE 0
#endif
/* The row pitch, the radius and the ring's rows, where compiled in. */
#ifdef BF_PITCH
#define BF_EC(W) BF_PITCH
#else
#define BF_EC(W) ((W) * BF_CH)
#endif
#ifdef BF_RADIUS
#define BF_R(radius) BF_RADIUS
#define BF_RR(rows) BF_RING_ROWS
#else
#define BF_R(radius) (radius)
#define BF_RR(rows) (rows)
#endif

/* Step 3 for strip column j: the vertical sums of the batch of entering
 * rows n .. n + nb - 1 (ring rows from slot; the ring from element ring0),
 * v += h(y + r) - h(y - r - 1), stored at dst[o + i ec] from output row
 * ya0 + n - r (those of the segment). The first BF_LD leaving rows of a
 * whole batch come from `carry`, read by the batch before. */
void bf_down(const int ring0, const int ring_rows, const int slot, const int n, const int nb,
             const int radius, const int j, const int ec, const uint o, inout BF_ACC v,
             inout BF_ACC comp, inout BF_ACC carry[BF_CARRY]) {
    const int win = 2 * radius + 1;
    /* The leaving rows, from slot - win: the last BF_LD of the block before
     * block `lead` (carried) and the first BATCH - BF_LD of block lead. */
    const int out0 = slot - win < 0 ? slot - win + ring_rows : slot - win;
    const int lead = out0 + BF_LD < ring_rows ? out0 + BF_LD : out0 + BF_LD - ring_rows;
    const int in_ = ring0 + slot * BF_OP + j, out_ = ring0 + lead * BF_OP + j;
    if (n + BF_BATCH <= 2 * radius && nb == BF_BATCH) { /* only fills the window */
        BF_ACC run = BF_RUN0(comp);
        [[unroll]] for (int i = 0; i < BF_BATCH; i++) run += BF_LO(in_ + i * BF_OP);
        BF_END(v, comp, run);
    } else if (n >= win && nb == BF_BATCH) {
        BF_ACC run = BF_RUN0(comp);
        /* (indices clamped in the branch not taken) */
#if CHAINS > 1
        BF_ACC dv[BF_BATCH], st[CHAINS];
        [[unroll]] for (int i = 0; i < BF_BATCH; i++)
            dv[i] = BF_LO(in_ + i * BF_OP) - (i < BF_LD ? carry[min(i, BF_CARRY - 1)]
                                                        : BF_LO(out_ + max(i - BF_LD, 0) * BF_OP));
        bf_chain_starts(dv, st, run);
        [[unroll]] for (int i = 0; i < BF_LAST_CHAIN(BF_BATCH); i++) {
            [[unroll]] for (int ch = 0; ch < CHAINS; ch++) {
                const int at = BF_CHAIN_AT(BF_BATCH, ch, i);
                if (at >= 0) {
                    st[ch] += dv[at];
                    dst[o + uint(at) * uint(ec)] = BF_NORM(BF_AT(v, st[ch]), radius);
                }
            }
        }
        run = st[CHAINS - 1];
#else
        [[unroll]] for (int i = 0; i < BF_BATCH; i++) {
            run += BF_LO(in_ + i * BF_OP) - (i < BF_LD ? carry[min(i, BF_CARRY - 1)]
                                                       : BF_LO(out_ + max(i - BF_LD, 0) * BF_OP));
            dst[o + uint(i) * uint(ec)] = BF_NORM(BF_AT(v, run), radius);
        }
#endif
        BF_END(v, comp, run);
    } else {
        int at_in = slot, at = out0;
        for (int i = 0; i < nb; i++) {
            const BF_ACC leaving = n + i >= win ? BF_LO(ring0 + at * BF_OP + j) : BF_ACC(0);
            BF_SLIDE(v, comp, BF_LO(ring0 + at_in * BF_OP + j) - leaving);
            if (n + i >= 2 * radius) dst[o + uint(i) * uint(ec)] = BF_NORM(v, radius); /* row >= y0 */
            at_in = at_in + 1 < ring_rows ? at_in + 1 : 0;
            at = at + 1 < ring_rows ? at + 1 : 0;
        }
    }
    /* The next batch's first BF_LD leaving rows: the tail of block lead. */
    if (BF_LD > 0 && nb == BF_BATCH && n + BF_BATCH >= win) {
        [[unroll]] for (int i = 0; i < BF_CARRY; i++)
            carry[i] = BF_LO(out_ + (BF_BATCH - BF_LD + i) * BF_OP);
    }
}

/* Column t's batch (g: its input column, -1 none) from e into lm (from
 * element lm0); with BF_ZSTORE a zero-border column outside the image,
 * loaded as column 0, stored as zeros. */
void bf_store_batch(const int lm0, const int t, const int hc, const int g,
                    const BF_ACC e[BF_BATCH]) {
    if (t < hc) {
        [[unroll]] for (int i = 0; i < BF_BATCH; i++)
            BF_LM(lm0 + t * BF_TP + i) = BF_ZSTORE != 0 && g < 0 ? BF_ACC(0) : e[i];
    }
}

/* What a group's steps share. */
struct bf_group {
    int H, border, radius, ring_rows, ring0, lm_size, t, wg, ec, e0, hc, rows, ya0, batches, g;
};
#define BF_LOAD_BATCH(q, ya, e) \
    bf_rows((q).ec, (q).H, (q).border, BF_ZSTORE != 0 && (q).g < 0 ? 0 : (q).g, (ya), (e))

/* Step k: batch k's rows into lm (step 1) and its block sums; the running
 * sums of batch k - BF_PIPE into the ring (step 2); the vertical sums of
 * batch k - 2 BF_PIPE (step 3); barriers as the .cl's, so that every
 * invocation meets each (no early exit). e: batch k's rows, loaded
 * PF batches before, then batch k + PF's. */
void bf_step(const bf_group q, const int k, inout BF_ACC e[BF_BATCH], inout BF_ACC v,
             inout BF_ACC comp, inout BF_ACC carry[BF_CARRY], inout int slot_runs,
             inout int slot_down) {
    const int kr = k - BF_PIPE, kd = k - 2 * BF_PIPE;
    const int lm = (k & BF_PIPE) * q.lm_size, lm_runs = (kr & BF_PIPE) * q.lm_size;
    if (k < q.batches && q.t < q.hc) {
        const int n = k * BF_BATCH;
        bf_store_batch(lm, q.t, q.hc, q.g, e);
        if (n + PF * BF_BATCH < q.rows) BF_LOAD_BATCH(q, q.ya0 + n + PF * BF_BATCH, e);
    }
#if BF_BLOCKS || !BF_PIPE
    barrier();
#endif
    if (k < q.batches) bf_block_sums(lm, q.t, q.wg, q.hc, q.radius);
#if !BF_PIPE && BF_BLOCKS
    barrier();
#endif
    if (kr >= 0 && kr < q.batches) {
        bf_runs(lm_runs, q.ring0, slot_runs, q.ring_rows, q.t, q.wg, q.hc, q.radius,
                min(BF_BATCH, q.rows - kr * BF_BATCH));
        slot_runs = slot_runs + BF_BATCH < q.ring_rows ? slot_runs + BF_BATCH : 0;
    }
#if !BF_PIPE
    barrier();
#endif
    if (kd >= 0 && kd < q.batches) {
        const int n = kd * BF_BATCH, nb = min(BF_BATCH, q.rows - n);
        if (q.t < NT && q.e0 + q.t < q.ec) /* from row y0 + n - 2r */
            bf_down(q.ring0, q.ring_rows, slot_down, n, nb, q.radius, q.t, q.ec,
                    uint(q.ya0 + n - q.radius) * uint(q.ec) + uint(q.e0 + q.t), v, comp, carry);
        slot_down = slot_down + BF_BATCH < q.ring_rows ? slot_down + BF_BATCH : 0;
    }
#if BF_PIPE
    barrier();
#endif
}

#if PF > 8
#error "PF: 8 batches in flight at most"
#endif
void main() {
    bf_group q;
    q.H = args.H, q.border = args.border;
    q.radius = BF_R(args.radius), q.ring_rows = BF_RR(args.ring_rows);
    q.ring0 = args.ring_at, q.lm_size = args.ring_at / (1 + BF_PIPE);
    q.t = int(gl_LocalInvocationID.x), q.wg = int(gl_WorkGroupSize.x);
    const int rc = q.radius * BF_CH, y0 = int(gl_WorkGroupID.y) * args.seg;
    q.ec = BF_EC(args.W), q.e0 = int(gl_WorkGroupID.x) * NT, q.hc = NT + 2 * rc;
    q.rows = min(y0 + args.seg, q.H) - y0 + 2 * q.radius, q.ya0 = y0 - q.radius;
    q.batches = (q.rows + BF_BATCH - 1) / BF_BATCH;
    q.g = q.t < q.hc ? bf_halo(q.t, q.e0, rc, args.W, q.border) : -1;
    BF_ACC v = BF_ACC(0), comp = BF_ACC(0), enter[PF][BF_BATCH], carry[BF_CARRY];
    [[unroll]] for (int p = 0; p < PF; p++)
        if (p * BF_BATCH < q.rows) BF_LOAD_BATCH(q, q.ya0 + p * BF_BATCH, enter[p]);
    int slot_runs = 0, slot_down = 0; /* the ring rows of the batches' first entering rows */
    for (int k0 = 0; k0 < q.batches + 2 * BF_PIPE; k0 += PF) {
        /* A call for each batch in flight (each has its registers), not an
         * unrolled loop, whose copies would lose `precise` (bf_start). */
#define BF_STEP(p) bf_step(q, k0 + (p), enter[p], v, comp, carry, slot_runs, slot_down)
        BF_STEP(0);
#if PF > 1
        BF_STEP(1);
#endif
#if PF > 2
        BF_STEP(2);
#endif
#if PF > 3
        BF_STEP(3);
#endif
#if PF > 4
        BF_STEP(4);
#endif
#if PF > 5
        BF_STEP(5);
#endif
#if PF > 6
        BF_STEP(6);
#endif
#if PF > 7
        BF_STEP(7);
#endif
#undef BF_STEP
    }
}
#endif
#endif
