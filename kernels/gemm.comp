/* C = A * B, float32, row-major (kernels/gemm.cl's kernels, in GLSL):
 * arguments (int M, int N, int K, A, B, C); dimension x runs along the
 * columns of C. Any M, N, K >= 1: edge tiles load zeros, store nothing.
 *
 * gemm_naive  one invocation per element of C, from global memory only.
 * gemm_tiled  TS x TS groups stage TS x TS tiles of A and B in shared
 *             memory between barrier()s.
 * gemm_wpt    the tiled kernel with WPT outputs per invocation down a
 *             column of the tile: groups of TS x (TS/WPT). */
#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 8
#endif
#define RTS (TS / WPT)

CO_ARGS uniform Args { int M; int N; int K; } args;
CO_BUFFER(0, readonly, float, A)
CO_BUFFER(1, readonly, float, B)
CO_BUFFER(2, writeonly, float, C)

#if defined(ENTRY_gemm_naive)
void main() {
    const uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    const uint M = uint(args.M), N = uint(args.N), K = uint(args.K);
    if (row >= M || col >= N) return;
    float acc = 0.0;
    for (uint k = 0; k < K; k++) acc = fma(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
}

#elif defined(ENTRY_gemm_tiled) || defined(ENTRY_gemm_wpt)
#ifdef ENTRY_gemm_tiled
#undef WPT
#define WPT 1
#endif
shared float As[TS][TS];
shared float Bs[TS][TS + 1]; /* +1: column reads without bank conflicts */
void main() {
    const uint M = uint(args.M), N = uint(args.N), K = uint(args.K);
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint col = gl_WorkGroupID.x * TS + tx, row0 = gl_WorkGroupID.y * TS;
    float acc[WPT];
    [[unroll]] for (uint w = 0; w < WPT; w++) acc[w] = 0.0;
    for (uint t = 0; t < K; t += TS) {
        [[unroll]] for (uint w = 0; w < WPT; w++) {
            const uint r = ty + w * (TS / WPT), row = row0 + r, ka = t + tx, kb = t + r;
            As[r][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0;
            Bs[r][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0;
        }
        barrier();
        [[unroll]] for (uint k = 0; k < TS; k++) {
            const float b = Bs[k][tx];
            [[unroll]] for (uint w = 0; w < WPT; w++) acc[w] = fma(As[ty + w * (TS / WPT)][k], b, acc[w]);
        }
        barrier();
    }
    [[unroll]] for (uint w = 0; w < WPT; w++) {
        const uint row = row0 + ty + w * (TS / WPT);
        if (row < M && col < N) C[row * N + col] = acc[w];
    }
}
#endif
