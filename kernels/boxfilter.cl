/* Box filter, the direct and two-pass kernels and the image one: the
 * normalised (2r+1)x(2r+1) mean (borders, layout, formats and sums:
 * kernels/boxfilter_common.cl; the fused single passes:
 * kernels/boxfilter_fused.cl).
 *
 * Defines: BF_U8 and BF_CH (the format), BF_FIRST (source is the image, else an intermediate of raw sums),
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

#include "boxfilter_common.cl"

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

#endif /* !CO_HOST */

/* ---- the image variant: reads through OpenCL images / CUDA textures ----
 * Built with -DBF_IMAGES=1 only, so devices without image support still
 * build the rest. Clamp and zero borders are the sampler's (OpenCL, by
 * -DBF_BORDER:
 * CLK_ADDRESS_CLAMP_TO_EDGE / CLK_ADDRESS_CLAMP; CUDA: the texture object's
 * address mode, set when the backend made it); reflect101 has no hardware
 * mode: its coordinates are mapped here, then read clamped. 8-bit images
 * (RGBA8, gray8) hold unsigned integers (CL_UNSIGNED_INT8, CUDA
 * read-as-integer), so the sums stay exact. */
#if BF_IMAGES && !defined(CO_HOST)
#ifdef CO_CUDA
#define BF_IMAGE_ARG unsigned long long /* cudaTextureObject_t */
#if BF_U8 && BF_CH == 4
#define BF_READ(img, px, py, border, v)                                                        \
    do {                                                                                     \
        const uchar4 t_ = tex2D<uchar4>((img), (float)(px) + 0.5f, (float)(py) + 0.5f);        \
        (v)[0] = t_.x, (v)[1] = t_.y, (v)[2] = t_.z, (v)[3] = t_.w;                          \
    } while (0)
#elif BF_U8
#define BF_READ(img, px, py, border, v) ((v)[0] = tex2D<uchar>((img), (float)(px) + 0.5f, (float)(py) + 0.5f))
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
#if BF_U8 && BF_CH == 4
#define BF_READ(img, px, py, border, v)                                                      \
    do {                                                                                     \
        const uint4 t_ = read_imageui((img), bf_sampler, (int2)((px), (py)));               \
        (v)[0] = t_.x, (v)[1] = t_.y, (v)[2] = t_.z, (v)[3] = t_.w;                          \
    } while (0)
#elif BF_U8
#define BF_READ(img, px, py, border, v) ((v)[0] = read_imageui((img), bf_sampler, (int2)((px), (py))).x)
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
