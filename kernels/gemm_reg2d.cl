/* gemm_reg2d: C = A * B, float32, row-major. A is MxK, B is KxN, C is MxN,
 * any M, N, K >= 1 (edge tiles are zero-filled on load and masked on store).
 *
 * Design (Nugteren myGEMM kernels 6-10 style, 2D register blocking):
 *  - each work-group computes a TSM x TSN tile of C; each work-item computes
 *    WPTM x WPTN outputs held in registers;
 *  - per step, a TSM x TSK tile of A (stored transposed, As[k][m], row pitch
 *    TSM+PADA) and a TSK x TSN tile of B (Bs[k][n], pitch TSN+PADB) are staged
 *    cooperatively in one __local array; float4 global loads when the tile is
 *    fully in bounds and the row length allows it (K % 4 == 0 for A,
 *    N % 4 == 0 for B; runtime branch, uniform per work-group), scalar
 *    zero-filled loads otherwise;
 *  - the k loop over the staged tile is unrolled (KUNR), WPTM/WPTN fully.
 *
 * Register-tile mapping: work-item (ty, tx) owns rows in runs of LVWM
 * consecutive rows, run g at  g*RTSM*LVWM + ty*LVWM + [0, LVWM), and columns
 * in runs of LVWN, run g at  g*RTSN*LVWN + tx*LVWN + [0, LVWN).
 * LVW* = 4 (GPU): operands come from __local as float4 (consecutive
 * work-items read consecutive float4s: conflict-free) and C is written with
 * float4 stores (when the tile is in bounds and N % 4 == 0).
 * LVW* = 1: Nugteren's strided mapping (consecutive work-items on consecutive
 * columns).  A run length that is not a multiple of 4 uses scalar __local reads.
 *
 * Tunables (-D), defaults in brackets (= the GPU set):
 *   TSM [128] TSN [128] TSK [32] WPTM [8] WPTN [8]
 *   LVW [4] (default for both LVWM and LVWN), LVWM, LVWN
 *   PADA [4] PADB [0]      __local row padding of the A / B tiles (floats)
 *   KUNR [0]               unroll factor of the inner k loop, 0 = full
 *   REG2D_MINB [2]         CUDA only: __launch_bounds__(NTHR, REG2D_MINB)
 *   REG2D_USE_FMA          use fma() instead of a*b+c (contracted to FMA by
 *                          NVRTC / NVIDIA OpenCL anyway; fma() is slower on PoCL)
 *   RTSM = TSM/WPTM, RTSN = TSN/WPTN, NTHR = RTSM*RTSN (work-group size).
 *
 * Geometry (host):
 *   local  = (TSN/WPTN, TSM/WPTM)                 dim 0 runs along columns of C
 *   global = (ceil(N/TSN)*TSN/WPTN, ceil(M/TSM)*TSM/WPTM)
 *   (OpenCL: reqd_work_group_size(RTSN, RTSM, 1) is declared, so the local
 *   size must be exactly this.)
 *
 * Constraints (checked with #error at build time where possible):
 *   TSM % WPTM == 0, TSN % WPTN == 0, WPTM % LVWM == 0, WPTN % LVWN == 0,
 *   TSK % 4 == 0, TSN % 4 == 0, PADA % 4 == 0, PADB % 4 == 0;
 *   NTHR <= device max work-group size;
 *   buffers A, B, C 16-byte aligned at element 0 (CUDA float4 accesses).
 *   No divisibility between tile sizes and NTHR is needed: the cooperative
 *   loads loop ceil(TSM*TSK/4 / NTHR) times and mask the tail when it does not
 *   divide (for best speed keep TSM*TSK/4 and TSK*TSN/4 multiples of NTHR).
 *
 * __local memory bytes = 4 * TSK * ((TSM + PADA) + (TSN + PADB))
 *   (GPU set: 4*32*(132+128) = 33280; CPU set: 4*32*(64+64) = 16384).
 *
 * Default sets:
 *   GPU (NVIDIA H200, NVIDIA OpenCL and NVRTC):
 *     TSM=128 TSN=128 TSK=32 WPTM=8 WPTN=8 LVW=4 PADA=4 PADB=0   (256 work-items)
 *     [these are the #ifndef defaults below]
 *   CPU (PoCL, AVX2):
 *     TSM=64 TSN=64 TSK=32 WPTM=8 WPTN=8 LVW=1 PADA=0 PADB=0     (64 work-items)
 */

#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
#endif
#ifndef TSK
#define TSK 32
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

/* Work-group shape attribute: CUDA gets __launch_bounds__(NTHR, REG2D_MINB)
 * (REG2D_MINB resident blocks per SM: caps registers at 64K/(NTHR*MINB));
 * OpenCL gets reqd_work_group_size. */
/* KUNR: unroll factor of the inner k loop (0 = full). */
#ifndef KUNR
#define KUNR 0
#endif
#ifndef REG2D_MINB
#define REG2D_MINB 2
#endif
#if defined(CO_CUDA)
#define REG2D_ATTR __launch_bounds__(NTHR, REG2D_MINB)
#define REG2D_KATTR
#else
#define REG2D_ATTR
#define REG2D_KATTR __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
#endif

__kernel REG2D_KATTR void REG2D_ATTR gemm_reg2d(const int M, const int N, const int K,
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
            for (int l = 0; l < (TSM * TSK / 4 + NTHR - 1) / NTHR; l++) {
                const int id = l * NTHR + tid;
#if (TSM * TSK / 4) % NTHR
                if (id >= TSM * TSK / 4) break;
#endif
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
            for (int l = 0; l < (TSM * TSK + NTHR - 1) / NTHR; l++) {
                const int id = l * NTHR + tid;
#if (TSM * TSK) % NTHR
                if (id >= TSM * TSK) break;
#endif
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
            for (int l = 0; l < (TSK * TSN / 4 + NTHR - 1) / NTHR; l++) {
                const int id = l * NTHR + tid;
#if (TSK * TSN / 4) % NTHR
                if (id >= TSK * TSN / 4) break;
#endif
                const int kr = id / (TSN / 4);
                const int nc = (id % (TSN / 4)) * 4;
                const float4 v = CO_LOAD4(B + (size_t)(k0 + kr) * N + (n0 + nc), 0);
                CO_STORE4_LOCAL(v, smem + TSK * LDAS + kr * LDBS + nc, 0);
            }
        } else {
#pragma unroll
            for (int l = 0; l < (TSK * TSN + NTHR - 1) / NTHR; l++) {
                const int id = l * NTHR + tid;
#if (TSK * TSN) % NTHR
                if (id >= TSK * TSN) break;
#endif
                const int kr = id / TSN;
                const int nc = id % TSN;
                const int gk = k0 + kr, gn = n0 + nc;
                smem[TSK * LDAS + kr * LDBS + nc] =
                    (gk < K && gn < N) ? B[(size_t)gk * N + gn] : 0.0f;
            }
        }

        barrier(CLK_LOCAL_MEM_FENCE);

        /* ---- multiply the staged tiles ---- */
#if KUNR > 0
#pragma unroll KUNR
#else
#pragma unroll
#endif
        for (int k = 0; k < TSK; k++) {
            float ra[WPTM], rb[WPTN];
#if LVWM % 4 == 0
#pragma unroll
            for (int g = 0; g < WPTM / 4; g++) {
                const float4 v = CO_LOAD4_LOCAL(smem + k * LDAS + (g / (LVWM / 4)) * RTSM * LVWM
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
                const float4 v = CO_LOAD4_LOCAL(smem + TSK * LDAS + k * LDBS + (g / (LVWN / 4)) * RTSN * LVWN
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
