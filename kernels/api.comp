/* The library calls' helpers (kernels/api.cl's kernels, in GLSL): strided
 * rows packed or unpacked, a matrix packed (transposed or not), and
 * C = alpha P + beta C, so that a call on Vulkan buffers copies nothing
 * through the host. Dimension x runs along a row. Indices are 32-bit: a
 * Vulkan buffer binding is under 4 GiB (maxStorageBufferRange), so no
 * index into one overflows uint. */

#if defined(ENTRY_api_rows)
/* (int row_bytes, int rows, src, int src_stride, dst, int dst_stride) */
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
CO_ARGS uniform Args { int row_bytes; int rows; int src_stride; int dst_stride; } args;
CO_BUFFER(0, readonly, uint8_t, src)
CO_BUFFER(1, writeonly, uint8_t, dst)
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x < uint(args.row_bytes) && y < uint(args.rows))
        dst[y * uint(args.dst_stride) + x] = src[y * uint(args.src_stride) + x];
}

#elif defined(ENTRY_api_pack)
/* (int rows, int cols, src, int ld, int trans, dst): dst (rows x cols,
 * packed) = src or its transpose, leading dimension ld. */
CO_ARGS uniform Args { int rows; int cols; int ld; int trans; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
void main() {
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, ld = uint(args.ld);
    if (i < uint(args.rows) && j < uint(args.cols))
        dst[i * uint(args.cols) + j] = args.trans != 0 ? src[j * ld + i] : src[i * ld + j];
}

#elif defined(ENTRY_api_axpby)
/* (int rows, int cols, float alpha, float beta, p, c, int ldc); BLAS's
 * rules: P is not read when alpha is 0 (the call then binds C in its
 * place), C not when beta is 0. */
CO_ARGS uniform Args { int rows; int cols; float alpha; float beta; int ldc; } args;
CO_BUFFER(0, readonly, float, p)
CO_BUFFER(1, , float, c)
void main() {
    const uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y;
    if (i >= uint(args.rows) || j >= uint(args.cols)) return;
    const uint at = i * uint(args.ldc) + j;
    const float ab = args.alpha != 0.0 ? args.alpha * p[i * uint(args.cols) + j] : 0.0;
    c[at] = args.beta != 0.0 ? ab + args.beta * c[at] : ab;
}
#endif
