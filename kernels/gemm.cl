/* Matrix multiplication C = A * B, float32, row-major: A is M x K, B is
 * K x N, C is M x N. Dimension 0 of the range runs along the columns of C,
 * so neighbouring work-items touch neighbouring addresses of B and C.
 * Any M, N, K >= 1: tiles at the edges load zeros and store nothing.
 *
 * gemm_naive  one work-item per element of C, straight from global memory
 *             (seed 000 "naive", the thesis's progopenGPU). Any work-group.
 * gemm_tiled  TS x TS work-groups stage TS x TS tiles of A and B in local
 *             memory between barriers (seed 000 "submatrix", the thesis's
 *             matrixMul). Local memory: 2*TS*TS floats.
 * gemm_wpt    the tiled kernel with WPT outputs per work-item, down a column
 *             of the tile: work-groups of TS x (TS/WPT) (seed 000 "+WPT").
 *             TS % WPT == 0. Local memory: 2*TS*TS floats. */

#ifndef TS
#define TS 16
#endif
#ifndef WPT
#define WPT 8
#endif
#define RTS (TS / WPT) /* rows of work-items in a gemm_wpt work-group */

__kernel void gemm_naive(const int M, const int N, const int K,
                         __global const float *CO_RESTRICT A,
                         __global const float *CO_RESTRICT B, __global float *CO_RESTRICT C) {
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc = fma(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

__kernel void gemm_tiled(const int M, const int N, const int K,
                         __global const float *CO_RESTRICT A,
                         __global const float *CO_RESTRICT B, __global float *CO_RESTRICT C) {
    __local float As[TS][TS];
    __local float Bs[TS][TS + 1]; /* +1: column reads without bank conflicts */
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * TS + tx;
    const int row = (int)get_group_id(1) * TS + ty;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        const int ka = t + tx, kb = t + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc = fma(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

__kernel void gemm_wpt(const int M, const int N, const int K,
                       __global const float *CO_RESTRICT A,
                       __global const float *CO_RESTRICT B, __global float *CO_RESTRICT C) {
    __local float As[TS][TS];
    __local float Bs[TS][TS + 1];
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * TS + tx;
    const int row0 = (int)get_group_id(1) * TS;
    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;
    for (int t = 0; t < K; t += TS) {
        for (int w = 0; w < WPT; w++) {
            const int r = ty + w * RTS, row = row0 + r;
            const int ka = t + tx, kb = t + r;
            As[r][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
            Bs[r][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {
            const float b = Bs[k][tx];
            for (int w = 0; w < WPT; w++) acc[w] = fma(As[ty + w * RTS][k], b, acc[w]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < WPT; w++) {
        const int row = row0 + ty + w * RTS;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[w];
    }
}

/* reg2d's packing (src/workloads/gemm.c, PACK): dst, dst_rows x dst_cols,
 * the rows x cols of src (row pitch `pitch`) with zeros past them: A and B
 * copied into rows of whole float4s, and the padded product's columns back
 * into C. A work-item an element of dst. */
__kernel void gemm_pad(const int rows, const int cols, const int pitch, const int dst_rows,
                       const int dst_cols, __global const float *CO_RESTRICT src,
                       __global float *CO_RESTRICT dst) {
    const int c = (int)get_global_id(0), r = (int)get_global_id(1);
    if (r >= dst_rows || c >= dst_cols) return;
    dst[(size_t)r * dst_cols + c] = r < rows && c < cols ? src[(size_t)r * pitch + c] : 0.0f;
}
