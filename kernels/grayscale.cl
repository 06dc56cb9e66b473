/* RGBA8 -> 8-bit gray, gray = round(0.299 r + 0.587 g + 0.114 b) in float
 * (seed 002's weights). Images are rows of `width` pixels, packed; RGBA
 * interleaved. Also #included by the host (CO_HOST_C) for the c and omp
 * variants: one formula for every device.
 *
 * gray_coalesced    one work-item per pixel on a 2D range (x along dimension
 *                   0): neighbouring work-items read neighbouring pixels.
 * gray_uncoalesced  one work-item per row, walking along it (seed 003's image
 *                   filter split by lines): at each step neighbouring
 *                   work-items are a whole row apart, so their loads and
 *                   stores never merge on a GPU. (A work-item per column
 *                   walking down would still be coalesced: its neighbours
 *                   read the neighbouring pixels of the same row.) */

/* Weights sum to 1 and channels are at most 255, so v + 0.5 < 256. */
CO_INLINE uchar gray_pixel(__global const uchar *CO_RESTRICT rgba, size_t i) {
    const float v = 0.299f * (float)rgba[4 * i] + 0.587f * (float)rgba[4 * i + 1] +
                    0.114f * (float)rgba[4 * i + 2];
    return (uchar)(v + 0.5f);
}

__kernel void gray_coalesced(const int width, const int height,
                             __global const uchar *CO_RESTRICT rgba,
                             __global uchar *CO_RESTRICT gray) {
    const size_t x = get_global_id(0), y = get_global_id(1);
    if (x >= (size_t)width || y >= (size_t)height) return;
    const size_t i = y * (size_t)width + x;
    gray[i] = gray_pixel(rgba, i);
}

__kernel void gray_uncoalesced(const int width, const int height,
                               __global const uchar *CO_RESTRICT rgba,
                               __global uchar *CO_RESTRICT gray) {
    const size_t y = get_global_id(0);
    if (y >= (size_t)height) return;
    for (size_t i = y * (size_t)width; i < (y + 1) * (size_t)width; i++)
        gray[i] = gray_pixel(rgba, i);
}
