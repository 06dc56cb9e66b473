/* The library calls' helpers (src/core/api.c), on the device so that a call
 * on device buffers copies nothing through the host: rows of a strided
 * image packed or unpacked, a matrix packed (transposed or not) into the
 * packed row-major form the gemm kernels take, and C = alpha P + beta C.
 * Indices in size_t: the int arguments are each under 2^31, their products
 * need not be. */

/* Row y of `rows`, bytes x of `row_bytes`: dst row stride to src row stride. */
__kernel void api_rows(const int row_bytes, const int rows, __global const uchar *src,
                       const int src_stride, __global uchar *dst, const int dst_stride) {
    const size_t x = get_global_id(0), y = get_global_id(1);
    if (x < (size_t)row_bytes && y < (size_t)rows)
        dst[y * (size_t)dst_stride + x] = src[y * (size_t)src_stride + x];
}

/* dst (rows x cols, packed) = src or its transpose, leading dimension ld. */
__kernel void api_pack(const int rows, const int cols, __global const float *src, const int ld,
                       const int trans, __global float *dst) {
    const size_t j = get_global_id(0), i = get_global_id(1);
    if (i < (size_t)rows && j < (size_t)cols)
        dst[i * (size_t)cols + j] = trans ? src[j * (size_t)ld + i] : src[i * (size_t)ld + j];
}

/* C = alpha P + beta C (rows x cols, C with leading dimension ldc); BLAS's
 * rules: P is not read when alpha is 0, C not when beta is 0 (a NaN there
 * does not survive). */
__kernel void api_axpby(const int rows, const int cols, const float alpha, const float beta,
                        __global const float *p, __global float *c, const int ldc) {
    const size_t j = get_global_id(0), i = get_global_id(1);
    if (i >= (size_t)rows || j >= (size_t)cols) return;
    const size_t at = i * (size_t)ldc + j;
    const float ab = alpha != 0.0f ? alpha * p[i * (size_t)cols + j] : 0.0f;
    c[at] = beta != 0.0f ? ab + beta * c[at] : ab;
}
