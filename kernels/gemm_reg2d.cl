/* gemm_reg2d: C = A * B, float32, row-major. A is MxK, B is KxN, C is MxN.
 * Any M, N, K >= 1.
 *
 * Design (Nugteren myGEMM kernels 6-10 style, 2D register blocking):
 *  - each work-group computes a TSM x TSN tile of C;
 *  - each work-item computes WPTM x WPTN outputs held in registers;
 *  - per step, a TSM x TSK tile of A (stored transposed, As[k][m]) and a
 *    TSK x TSN tile of B (Bs[k][n]) are staged cooperatively in __local memory,
 *    with float4 global loads when the tile is fully in bounds and the row
 *    length is a multiple of 4 (K % 4 == 0 for A, N % 4 == 0 for B), scalar
 *    zero-filled loads otherwise (edge tiles);
 *  - the inner product loop is fully unrolled over TSK, WPTM, WPTN.
 *
 * Register-tile mapping (LVW, "local vector width", 1 or 4): the work-item's
 * outputs are grouped in runs of LVW consecutive rows/columns; run g of
 * work-item (ty, tx) covers rows  g*RTSM*LVW + ty*LVW + [0, LVW)
 * and columns g*RTSN*LVW + tx*LVW + [0, LVW). With LVW = 4 the register
 * operands are read from __local with float4 loads (conflict-free, consecutive
 * work-items read consecutive float4s) and C is written with float4 stores;
 * with LVW = 1 this is Nugteren's strided mapping (consecutive work-items on
 * consecutive columns: what PoCL's work-item-loop vectoriser likes).
 *
 * Tunables (-D):  TSM TSN TSK WPTM WPTN LVW PADA PADB
 *   RTSM = TSM/WPTM, RTSN = TSN/WPTN, NTHR = RTSM*RTSN (work-group size).
 * Geometry (host):
 *   local  = (TSN/WPTN, TSM/WPTM)            dim 0 runs along columns of C
 *   global = (ceil(N/TSN)*TSN/WPTN, ceil(M/TSM)*TSM/WPTM)
 * Constraints:
 *   TSM % WPTM == 0, TSN % WPTN == 0;
 *   WPTM % LVW == 0, WPTN % LVW == 0, LVW in {1, 4};
 *   TSK % 4 == 0, TSN % 4 == 0;
 *   (TSM*TSK/4) % NTHR == 0 and (TSK*TSN/4) % NTHR == 0   (float4 tile loads;
 *      this implies the scalar-load counts TSM*TSK, TSK*TSN divide too);
 *   PADA % 4 == 0 and PADB % 4 == 0 (float4 __local accesses stay aligned);
 *   buffers A, B, C start 16-byte aligned (CUDA float4 accesses).
 * __local memory bytes = 4 * TSK * ((TSM + PADA) + (TSN + PADB)).
 * Defaults:
 *   GPU (H200; NVIDIA OpenCL / NVRTC):
 *     TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8 LVW=4 PADA=4 PADB=0  (256 work-items)
 *   CPU (PoCL, AVX2):
 *     see the report / core's table (set by the host); the values below are
 *     the GPU defaults. */

#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
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
#ifndef LVWM
#define LVWM LVW
#endif
#ifndef LVWN
#define LVWN LVW
#endif
#ifndef PADA
#define PADA 4
#endif
#ifndef PADB
#define PADB 0
#endif

#if (TSM % WPTM) || (TSN % WPTN) || (WPTM % LVWM) || (WPTN % LVWN) || (TSK % 4) || (TSN % 4)
#error "gemm_reg2d: tile constraints violated"
#endif
#if ((TSM * TSK / 4) % ((TSM / WPTM) * (TSN / WPTN))) || ((TSK * TSN / 4) % ((TSM / WPTM) * (TSN / WPTN)))
#error "gemm_reg2d: TSM*TSK/4 and TSK*TSN/4 must be multiples of the work-group size"
#endif
#if (PADA % 4) || (PADB % 4)
#error "gemm_reg2d: PADA and PADB must be multiples of 4"
#endif

/* Multiply-add: plain a*b+c (contracted to one FMA by NVCC/NVRTC and by
 * OpenCL C compilers, FP_CONTRACT is on by default); -DREG2D_USE_FMA forces
 * fma() (slower on PoCL, where the builtin blocks vectorisation). */
#ifdef REG2D_USE_FMA
#define REG2D_MAC(a, b, c) fma((a), (b), (c))
#else
#define REG2D_MAC(a, b, c) ((a) * (b) + (c))
#endif

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NTHR (RTSM * RTSN)
#define LDAS (TSM + PADA)
#define LDBS (TSN + PADB)

__kernel void gemm_reg2d(const int M, const int N, const int K,
                         __global const float* CO_RESTRICT A,
                         __global const float* CO_RESTRICT B,
                         __global float* CO_RESTRICT C)
{
    __local float smem[TSK * LDAS + TSK * LDBS] __attribute__((aligned(16)));

    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * RTSN + tx;
    const int m0 = (int)get_group_id(1) * TSM;
    const int n0 = (int)get_group_id(0) * TSN;

    const int vecA = (m0 + TSM <= M) && ((K & 3) == 0);
    const int vecB = (n0 + TSN <= N) && ((N & 3) == 0);

    float acc[WPTM][WPTN];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TSK) {
        const int fullK = (k0 + TSK <= K);

        /* ---- stage A tile (transposed): As[k][m] ---- */
        if (vecA && fullK) {
#pragma unroll
            for (int l = 0; l < TSM * TSK / 4 / NTHR; l++) {
                const int id = l * NTHR + tid;
                const int row = id / (TSK / 4);
                const int kc = (id % (TSK / 4)) * 4;
                const float4 v = CO_LOAD4(A + (size_t)(m0 + row) * K + (k0 + kc), 0);
                smem[(kc + 0) * LDAS + row] = v.x;
                smem[(kc + 1) * LDAS + row] = v.y;
                smem[(kc + 2) * LDAS + row] = v.z;
                smem[(kc + 3) * LDAS + row] = v.w;
            }
        } else {
#pragma unroll
            for (int l = 0; l < TSM * TSK / NTHR; l++) {
                const int id = l * NTHR + tid;
                const int row = id / TSK;
                const int kc = id % TSK;
                const int gm = m0 + row, gk = k0 + kc;
                smem[kc * LDAS + row] =
                    (gm < M && gk < K) ? A[(size_t)gm * K + gk] : 0.0f;
            }
        }

        /* ---- stage B tile: Bs[k][n] ---- */
        if (vecB && fullK) {
#pragma unroll
            for (int l = 0; l < TSK * TSN / 4 / NTHR; l++) {
                const int id = l * NTHR + tid;
                const int kr = id / (TSN / 4);
                const int nc = (id % (TSN / 4)) * 4;
                const float4 v = CO_LOAD4(B + (size_t)(k0 + kr) * N + (n0 + nc), 0);
                CO_STORE4(v, smem + TSK * LDAS + kr * LDBS + nc, 0);
            }
        } else {
#pragma unroll
            for (int l = 0; l < TSK * TSN / NTHR; l++) {
                const int id = l * NTHR + tid;
                const int kr = id / TSN;
                const int nc = id % TSN;
                const int gk = k0 + kr, gn = n0 + nc;
                smem[TSK * LDAS + kr * LDBS + nc] =
                    (gk < K && gn < N) ? B[(size_t)gk * N + gn] : 0.0f;
            }
        }

        barrier(CLK_LOCAL_MEM_FENCE);

        /* ---- multiply the staged tiles ---- */
#pragma unroll
        for (int k = 0; k < TSK; k++) {
            float ra[WPTM], rb[WPTN];
#if LVWM % 4 == 0
#pragma unroll
            for (int g = 0; g < WPTM / 4; g++) {
                const float4 v = CO_LOAD4(smem + k * LDAS + (g / (LVWM / 4)) * RTSM * LVWM
                                          + ty * LVWM + (g % (LVWM / 4)) * 4, 0);
                ra[4 * g + 0] = v.x; ra[4 * g + 1] = v.y;
                ra[4 * g + 2] = v.z; ra[4 * g + 3] = v.w;
            }
#else
#pragma unroll
            for (int i = 0; i < WPTM; i++)
                ra[i] = smem[k * LDAS + (i / LVWM) * RTSM * LVWM + ty * LVWM + (i % LVWM)];
#endif
#if LVWN % 4 == 0
#pragma unroll
            for (int g = 0; g < WPTN / 4; g++) {
                const float4 v = CO_LOAD4(smem + TSK * LDAS + k * LDBS + (g / (LVWN / 4)) * RTSN * LVWN
                                          + tx * LVWN + (g % (LVWN / 4)) * 4, 0);
                rb[4 * g + 0] = v.x; rb[4 * g + 1] = v.y;
                rb[4 * g + 2] = v.z; rb[4 * g + 3] = v.w;
            }
#else
#pragma unroll
            for (int j = 0; j < WPTN; j++)
                rb[j] = smem[TSK * LDAS + k * LDBS + (j / LVWN) * RTSN * LVWN + tx * LVWN + (j % LVWN)];
#endif
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < WPTN; j++)
                    acc[i][j] = REG2D_MAC(ra[i], rb[j], acc[i][j]);
        }

        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* ---- write C ---- */
#if LVWN % 4 == 0
    if ((m0 + TSM <= M) && vecB) {
#pragma unroll
        for (int i = 0; i < WPTM; i++) {
            const int gm = m0 + (i / LVWM) * RTSM * LVWM + ty * LVWM + (i % LVWM);
#pragma unroll
            for (int g = 0; g < WPTN / 4; g++) {
                const int gn = n0 + (g / (LVWN / 4)) * RTSN * LVWN + tx * LVWN + (g % (LVWN / 4)) * 4;
                CO_STORE4(CO_FLOAT4(acc[i][4 * g + 0], acc[i][4 * g + 1],
                                    acc[i][4 * g + 2], acc[i][4 * g + 3]),
                          C + (size_t)gm * N + gn, 0);
            }
        }
        return;
    }
#endif
#pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int gm = m0 + (i / LVWM) * RTSM * LVWM + ty * LVWM + (i % LVWM);
#pragma unroll
        for (int j = 0; j < WPTN; j++) {
            const int gn = n0 + (j / LVWN) * RTSN * LVWN + tx * LVWN + (j % LVWN);
            if (gm < M && gn < N)
                C[(size_t)gm * N + gn] = acc[i][j];
        }
    }
}
