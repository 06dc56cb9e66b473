/* Copy dst = src, float32, n elements (kernels/copy.cl's variants, in
 * GLSL): arguments (int n[, int row], src, dst).
 *
 * copy_coalesced  invocation i copies element i.
 * copy_strided    one invocation per row of `row` elements, walking along it.
 * copy_vec2/vec4  invocation i copies vector i through a vec2/vec4 view of
 *                 the same buffers; the one past the last whole vector
 *                 copies the scalar tail. */

#if defined(ENTRY_copy_coalesced)
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < uint(args.n)) dst[i] = src[i];
}

#elif defined(ENTRY_copy_strided)
CO_ARGS uniform Args { int n; int row; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
void main() {
    const uint n = uint(args.n), row = uint(args.row), start = gl_GlobalInvocationID.x * row;
    if (start >= n) return;
    const uint end = min(start + row, n);
    for (uint j = start; j < end; j++) dst[j] = src[j];
}

#elif defined(ENTRY_copy_vec2) || defined(ENTRY_copy_vec4)
#ifdef ENTRY_copy_vec2
#define VEC vec2
#define W 2u
#else
#define VEC vec4
#define W 4u
#endif
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
CO_BUFFER_VIEW(0, readonly, VEC, srcv)
CO_BUFFER_VIEW(1, writeonly, VEC, dstv)
void main() {
    const uint i = gl_GlobalInvocationID.x, n = uint(args.n), full = n / W;
    if (i < full) dstv[i] = srcv[i];
    else if (i == full)
        for (uint j = full * W; j < n; j++) dst[j] = src[j];
}
#endif
