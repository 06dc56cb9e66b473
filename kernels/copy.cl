/* Copy dst = src, float32, n elements: the bandwidth and coalescing lab.
 *
 * copy_coalesced  work-item i copies element i: the neighbours in a group
 *                 touch neighbouring addresses, so their loads and stores
 *                 merge into few wide memory transactions (seed 003).
 * copy_strided    one work-item per row of `row` elements, walking along it
 *                 (seed 003's first image filter, split by lines): at each
 *                 step neighbouring work-items are row * 4 bytes apart, so
 *                 every access is its own transaction on a GPU. On a CPU the
 *                 same walk is a cache-friendly stream.
 * copy_vec2/vec4  work-item i copies elements 2i, 2i+1 (4i..4i+3) with one
 *                 8-byte (16-byte) load and store (seed 004's lesson); the
 *                 work-item past the last full vector copies the scalar tail.
 *                 Buffers start aligned (cuMemAlloc: 256 bytes, OpenCL:
 *                 CL_DEVICE_MEM_BASE_ADDR_ALIGN), so vector i is aligned. */

__kernel void copy_coalesced(const int n, __global const float *CO_RESTRICT src,
                             __global float *CO_RESTRICT dst) {
    const size_t i = get_global_id(0);
    if (i < (size_t)n) dst[i] = src[i];
}

__kernel void copy_strided(const int n, const int row, __global const float *CO_RESTRICT src,
                           __global float *CO_RESTRICT dst) {
    const size_t start = get_global_id(0) * (size_t)row;
    if (start >= (size_t)n) return;
    const size_t end = start + (size_t)row < (size_t)n ? start + (size_t)row : (size_t)n;
    for (size_t j = start; j < end; j++) dst[j] = src[j];
}

/* Whole vectors through a pointer of the vector type: one load and one store
 * instruction each (vload/vstore may split them where alignment is unknown). */
#define COPY_VECTOR(name, T, W)                                                        \
    __kernel void name(const int n, __global const float *CO_RESTRICT src,             \
                       __global float *CO_RESTRICT dst) {                              \
        const size_t i = get_global_id(0), full = (size_t)n / (W);                    \
        if (i < full)                                                                  \
            ((__global T *)dst)[i] = ((__global const T *)src)[i];                     \
        else if (i == full)                                                            \
            for (size_t j = full * (W); j < (size_t)n; j++) dst[j] = src[j];           \
    }
COPY_VECTOR(copy_vec2, float2, 2)
COPY_VECTOR(copy_vec4, float4, 4)
