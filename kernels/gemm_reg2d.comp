/* gemm_reg2d in GLSL: C = A * B with 2D register blocking, arguments as
 * kernels/gemm.comp's. Each group computes a TSM x TSN tile of C, each
 * invocation WPTM x WPTN of it in registers, in runs of LVW consecutive
 * rows and columns (run g of rows at g * RTSM * LVW + ty * LVW, of columns
 * at g * RTSN * LVW + tx * LVW: neighbouring invocations read neighbouring
 * shared words). Per step a TSM x TSK tile of A (transposed: As[k][m], row
 * pitch TSM + PADA) and a TSK x TSN tile of B (Bs[k][n], pitch TSN + PADB)
 * are staged in shared memory by all invocations, along rows of A and B
 * (coalesced), zeros past the edges. Groups of (TSN/WPTN) x (TSM/WPTM);
 * shared memory 4 * TSK * ((TSM + PADA) + (TSN + PADB)) bytes. The same
 * tunables as kernels/gemm_reg2d.cl (its vector global loads are not here:
 * a scalar load per step and invocation, which the shared tiles amortise). */
#ifndef TSM
#define TSM 64
#endif
#ifndef TSN
#define TSN 64
#endif
#ifndef TSK
#define TSK 16
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif
#ifndef LVW
#define LVW 4
#endif
#ifndef PADA
#define PADA 0
#endif
#ifndef PADB
#define PADB 0
#endif
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NTHR (RTSM * RTSN)
#if TSM % WPTM || TSN % WPTN || WPTM % LVW || WPTN % LVW
#error "gemm_reg2d needs WPTM | TSM, WPTN | TSN, LVW | WPTM and LVW | WPTN"
#endif

#if defined(ENTRY_gemm_reg2d)
CO_ARGS uniform Args { int M; int N; int K; } args;
CO_BUFFER(0, readonly, float, A)
CO_BUFFER(1, readonly, float, B)
CO_BUFFER(2, writeonly, float, C)
shared float As[TSK][TSM + PADA];
shared float Bs[TSK][TSN + PADB];

/* The tile row of register row wm, the tile column of register column wn. */
uint row_of(const uint wm, const uint ty) { return (wm / LVW) * (RTSM * LVW) + ty * LVW + wm % LVW; }
uint col_of(const uint wn, const uint tx) { return (wn / LVW) * (RTSN * LVW) + tx * LVW + wn % LVW; }

void main() {
    const uint M = uint(args.M), N = uint(args.N), K = uint(args.K);
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint lid = ty * RTSN + tx;
    const uint row0 = gl_WorkGroupID.y * TSM, col0 = gl_WorkGroupID.x * TSN;
    float acc[WPTM][WPTN];
    [[unroll]] for (uint wm = 0; wm < WPTM; wm++)
        [[unroll]] for (uint wn = 0; wn < WPTN; wn++) acc[wm][wn] = 0.0;
    for (uint t = 0; t < K; t += TSK) {
        for (uint id = lid; id < TSM * TSK; id += NTHR) {
            const uint m = id / TSK, k = id % TSK, row = row0 + m, ka = t + k;
            As[k][m] = (row < M && ka < K) ? A[row * K + ka] : 0.0;
        }
        for (uint id = lid; id < TSK * TSN; id += NTHR) {
            const uint k = id / TSN, n = id % TSN, kb = t + k, col = col0 + n;
            Bs[k][n] = (kb < K && col < N) ? B[kb * N + col] : 0.0;
        }
        barrier();
        [[unroll]] for (uint k = 0; k < TSK; k++) {
            float a[WPTM], b[WPTN];
            [[unroll]] for (uint wm = 0; wm < WPTM; wm++) a[wm] = As[k][row_of(wm, ty)];
            [[unroll]] for (uint wn = 0; wn < WPTN; wn++) b[wn] = Bs[k][col_of(wn, tx)];
            [[unroll]] for (uint wm = 0; wm < WPTM; wm++)
                [[unroll]] for (uint wn = 0; wn < WPTN; wn++) acc[wm][wn] = fma(a[wm], b[wn], acc[wm][wn]);
        }
        barrier();
    }
    [[unroll]] for (uint wm = 0; wm < WPTM; wm++) {
        const uint row = row0 + row_of(wm, ty);
        [[unroll]] for (uint wn = 0; wn < WPTN; wn++) {
            const uint col = col0 + col_of(wn, tx);
            if (row < M && col < N) C[row * N + col] = acc[wm][wn];
        }
    }
}
#endif
