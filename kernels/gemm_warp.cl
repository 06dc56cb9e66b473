/* gemm_warp: C = A * B, float32, row-major (A M x K, B K x N, C M x N), any
 * M, N, K >= 1, FMA on the SIMT cores (no tensor cores, no TF32).
 *
 * Tiles, from the block down (the host picks them: src/workloads/gemm.c):
 *  - a work-group computes a BM x BN tile of C from BK-deep slices of A and
 *    B, one slice per iteration, kept in a ring of STAGES slots of local
 *    memory; the group's tile goes to its place in C through a row-grouped
 *    order of tiles (GROUPM rows of tiles at a time: neighbours in the launch
 *    share slices of A and B in the L2);
 *  - each warp of 32 work-items computes a WM x WN part of it, each
 *    work-item a TM x TN register tile made of (TM/4) x (TN/4) 4 x 4
 *    fragments: rows wm*WM + f*(WM/FM) + lm*4 + [0,4), columns
 *    wn*WN + g*(WN/FN) + ln*4 + [0,4), lane = lm*LN + ln;
 *  - local memory holds A transposed, As[k][m] (pitch BM + 4), and B as it
 *    is, Bs[k][n] (pitch BN): a work-item reads each k's operands as TM/4 +
 *    TN/4 float4 loads. A warp's LM (LN) distinct float4 of a k row are
 *    consecutive: no bank conflicts, the rest broadcast.
 *
 * How a slice reaches local memory (ASYNC):
 *  1  copied straight into its slot STAGES - 1 iterations ahead: on CUDA by
 *     cp.async (A element by element, 4 bytes, transposing; B 16 bytes
 *     through the L2 only, .cg, where N % 4 == 0, else 4; out-of-bounds
 *     elements zero-filled by a source size of 0, from the matrix's first
 *     element), waited on with cp.async.wait_group STAGES - 2; on OpenCL
 *     by plain loads and stores (the same indexing, tested on PoCL);
 *  0  loaded into registers before the multiply of the current slice and
 *     stored into the ring after it (float4 loads of A where K % 4 == 0:
 *     VA = 4, of B where N % 4 == 0: VB = 4): NVIDIA's OpenCL, no cp.async.
 * Either way one barrier per slice: a slot is written only after every
 * work-item has passed the barrier that follows its last read.
 *
 * Split-K: work-group row z = get_group_id(1) of the launch sums k in
 * [z * kper, min(K, (z + 1) * kper)) (kper a multiple of BK) and writes its
 * partial tile to C + z * M * N; gemm_warp_sum adds the partials into C.
 *
 * Edges: slices are zero-filled outside A and B, so the multiply has no
 * conditions; C is written with float4 stores where the whole tile is
 * inside and N % 4 == 0 (VB = 4), element by element with checks elsewhere.
 * Buffers are 16-byte aligned at element 0 (as for every float4 kernel).
 *
 * Local memory: STAGES * BK * (BM + 4 + BN) floats, an argument sized at
 * launch (CUDA: dynamic shared memory, over 48 KiB opted in). */

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef ASYNC
#define ASYNC 1
#endif
#ifndef VA
#define VA 4
#endif
#ifndef VB
#define VB 4
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define NT (32 * WARPS) /* work-items in a group */
#define LM (WM / TM)    /* lanes of a warp along m */
#define LN (WN / TN)
#define FM (TM / 4) /* 4 x 4 fragments along m */
#define FN (TN / 4)
#define LDA (BM + 4) /* As[k][m]: +4 keeps rows 16-byte aligned, the transposing stores spread */
#define LDB BN
#define SLOT (BK * LDA + BK * LDB) /* floats of one stage */

#if (BM % WM) || (BN % WN) || (WM % TM) || (WN % TN) || (TM % 4) || (TN % 4) || (LM * LN != 32)
#error "gemm_warp: tiles must nest: WM | BM, WN | BN, 4 | TM, 4 | TN, (WM/TM) * (WN/TN) = 32"
#endif
#if (BK % 4) || (BK % VA) || (BN % VB) || STAGES < 2 || (VA != 1 && VA != 4) || (VB != 1 && VB != 4)
#error "gemm_warp: BK a multiple of 4, VA and VB 1 or 4, STAGES >= 2"
#endif

/* CUDA: registers capped for WARP_MINB groups a multiprocessor (64K / (NT
 * * WARP_MINB) each; the host's MINB, by default 16 warps where a work-item
 * holds 64 sums or fewer). OpenCL: the group size is fixed (NVIDIA's
 * register cap is a build option, -cl-nv-maxrregcount). */
#ifndef WARP_MINB
#if TM * TN <= 64 && NT <= 512
#define WARP_MINB (512 / NT)
#else
#define WARP_MINB 1
#endif
#endif
#ifdef CO_CUDA
#define WARP_ATTR __launch_bounds__(NT, WARP_MINB)
#define WARP_KATTR
#else
#define WARP_ATTR
#define WARP_KATTR __attribute__((reqd_work_group_size(NT, 1, 1)))
#endif

/* ---- copies into local memory ---- */

#if ASYNC && defined(CO_CUDA)
CO_INLINE unsigned warp_smem(const float *p) { return (unsigned)__cvta_generic_to_shared(p); }
/* 4 bytes (src_bytes 4) or a zero (0), through the L1. */
CO_INLINE void warp_cp4(float *dst, const float *src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(warp_smem(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
/* 16 bytes (src_bytes 16) or zeros (0), through the L2 only. */
CO_INLINE void warp_cp16(float *dst, const float *src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(warp_smem(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
CO_INLINE void warp_commit(void) { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* Wait until at most STAGES - 2 groups of this work-item's copies are in flight. */
CO_INLINE void warp_wait(void) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
}
#else
#define warp_commit()
#define warp_wait()
#endif

/* Who copies what: A's slice (BM rows of BK) in chunks of A_V elements of
 * a row, k fastest across work-items (a warp reads whole rows of the
 * slice), A_RS rows a pass; B's (BK rows of BN) in chunks of VB, A_PER and
 * B_PER passes. ASYNC copies A element by element (cp.async transposes
 * nothing: 4 bytes each); through registers, VA elements a load. */
#if ASYNC
#define A_V 1
#else
#define A_V VA
#endif
#define A_RS (NT / (BK / A_V))
#define B_RS (NT / (BN / VB))
#if (NT % (BK / A_V)) || (NT % (BN / VB))
#error "gemm_warp: a pass of the group must copy whole rows of the slices"
#endif
#define A_PER (A_RS < BM ? BM / A_RS : 1)
#define B_PER (B_RS < BK ? BK / B_RS : 1)
/* Where a pass covers more rows than a slice has, some work-items copy none. */
#define A_IN(r) (A_RS <= BM || (r) < BM)
#define B_IN(r) (B_RS <= BK || (r) < BK)

/* A work-item's part of the copies of one slice: pa its first element of A
 * (row m0 + ar, column k0 + ak), pass c sa * c elements further; a_rows:
 * rows of A left from its first (M - m0 - ar); a_ok: its column is inside
 * [k0, kend); pb its first element of B (row k0 + br, column n0 + bn),
 * b_rows rows of the slice left from it (kend - k0 - br), b_ok: its column
 * inside N. */
#if ASYNC
/* Straight into the slot's as[] and bs[]: cp.async on CUDA. */
CO_INLINE void warp_copy(CO_LOCAL_PTR float *as, CO_LOCAL_PTR float *bs,
                         __global const float *A, __global const float *B,
                         __global const float *pa, size_t sa, int a_rows, int a_ok,
                         __global const float *pb, size_t sb, int b_rows, int b_ok, int a_in,
                         int b_in) {
#pragma unroll
    for (int c = 0; c < A_PER; c++) {
        if (!a_in) break;
        const int ok = a_ok && c * A_RS < a_rows;
#ifdef CO_CUDA
        warp_cp4(as + c * A_RS, ok ? pa + sa * c : A, ok ? 4 : 0);
#else
        as[c * A_RS] = ok ? pa[sa * c] : 0.0f;
#endif
    }
#pragma unroll
    for (int c = 0; c < B_PER; c++) {
        if (!b_in) break;
        const int ok = b_ok && c * B_RS < b_rows;
#if defined(CO_CUDA) && VB == 4
        warp_cp16(bs + c * B_RS * LDB, ok ? pb + sb * c : B, ok ? 16 : 0);
#elif defined(CO_CUDA)
        warp_cp4(bs + c * B_RS * LDB, ok ? pb + sb * c : B, ok ? 4 : 0);
#elif VB == 4
        CO_STORE4_LOCAL(ok ? CO_LOAD4(pb + sb * c, 0) : CO_FLOAT4(0.0f, 0.0f, 0.0f, 0.0f),
                        bs + c * B_RS * LDB, 0);
#else
        bs[c * B_RS * LDB] = ok ? pb[sb * c] : 0.0f;
#endif
    }
}
#else
/* n (1 or 4) floats of a row from p into r[], zeros where !ok. */
CO_INLINE void warp_fetch(float *r, int n, __global const float *p, int ok) {
    if (n == 4) {
        const float4 v = ok ? CO_LOAD4(p, 0) : CO_FLOAT4(0.0f, 0.0f, 0.0f, 0.0f);
        r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    } else {
        r[0] = ok ? *p : 0.0f;
    }
}

/* Into registers ra[A_PER * VA] and rb[B_PER * VB] ... */
CO_INLINE void warp_load(float *ra, float *rb, __global const float *pa, size_t sa, int a_rows,
                         int a_ok, __global const float *pb, size_t sb, int b_rows, int b_ok) {
#pragma unroll
    for (int c = 0; c < A_PER; c++)
        warp_fetch(ra + VA * c, VA, pa + sa * c, a_ok && c * A_RS < a_rows);
#pragma unroll
    for (int c = 0; c < B_PER; c++)
        warp_fetch(rb + VB * c, VB, pb + sb * c, b_ok && c * B_RS < b_rows);
}

/* ... and from them into the slot, A transposed. */
CO_INLINE void warp_store(CO_LOCAL_PTR float *as, CO_LOCAL_PTR float *bs, const float *ra,
                          const float *rb, int a_in, int b_in) {
#pragma unroll
    for (int c = 0; c < A_PER; c++)
#pragma unroll
        for (int v = 0; v < VA; v++)
            if (a_in) as[v * LDA + c * A_RS] = ra[VA * c + v];
#pragma unroll
    for (int c = 0; c < B_PER; c++) {
        if (!b_in) break;
#if VB == 4
        CO_STORE4_LOCAL(CO_FLOAT4(rb[4 * c], rb[4 * c + 1], rb[4 * c + 2], rb[4 * c + 3]),
                        bs + c * B_RS * LDB, 0);
#else
        bs[c * B_RS * LDB] = rb[c];
#endif
    }
}
#endif

/* ---- the multiply of one slice ---- */

CO_INLINE void warp_mma(CO_LOCAL_PTR const float *as, CO_LOCAL_PTR const float *bs, int aoff,
                        int boff, float acc[TM][TN]) {
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float a[TM], b[TN];
#pragma unroll
        for (int f = 0; f < FM; f++) {
            const float4 v = CO_LOAD4_LOCAL(as + k * LDA + aoff + f * (WM / FM), 0);
            a[4 * f] = v.x, a[4 * f + 1] = v.y, a[4 * f + 2] = v.z, a[4 * f + 3] = v.w;
        }
#pragma unroll
        for (int g = 0; g < FN; g++) {
            const float4 v = CO_LOAD4_LOCAL(bs + k * LDB + boff + g * (WN / FN), 0);
            b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++) acc[i][j] = a[i] * b[j] + acc[i][j]; /* one FMA */
    }
}

/* ---- the kernel ---- */

/* kper: k of one split (a multiple of BK; K without split-K); groupm: rows
 * of tiles a group of the launch order covers; C: the product, or with
 * split-K the partials (get_num_groups(1) of M x N). */
__kernel WARP_KATTR void WARP_ATTR gemm_warp(const int M, const int N, const int K, const int kper,
                                             const int groupm, __global const float *CO_RESTRICT A,
                                             __global const float *CO_RESTRICT B,
                                             __global float *CO_RESTRICT C,
                                             CO_LOCAL_ARG(float4, smem)) {
    CO_LOCAL_ARG_MEMORY(float4, smem);
    CO_LOCAL_PTR float *sm = (CO_LOCAL_PTR float *)smem;
    const int tid = (int)get_local_id(0);

    /* The tile: groups of `groupm` rows of tiles, column by column in each. */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pid = (int)get_group_id(0), per_group = groupm * tiles_n;
    const int first = pid / per_group * groupm;
    const int rows = tiles_m - first < groupm ? tiles_m - first : groupm;
    const int tm = first + (pid % per_group) % rows, tn = (pid % per_group) / rows;
    const int m0 = tm * BM, n0 = tn * BN;

    const int z = (int)get_group_id(1);
    const int kbeg = z * kper;
    const int kend = K - kbeg < kper ? K : kbeg + kper;
    const int nt = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;

    /* This work-item's place: warp (wm, wn), lane (lm, ln). */
    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int lm = lane / LN, ln = lane % LN;
    const int aoff = wm * WM + lm * 4, boff = wn * WN + ln * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    /* This work-item's copies (see warp_copy), and where they land in a slot. */
    const int ar = tid / (BK / A_V), ak = tid % (BK / A_V) * A_V;
    const int br = tid / (BN / VB), bn = tid % (BN / VB) * VB;
    const int a_in = A_IN(ar), b_in = B_IN(br);
    __global const float *pa = A + (size_t)(m0 + (a_in ? ar : 0)) * K + kbeg + ak;
    __global const float *pb = B + (size_t)(kbeg + (b_in ? br : 0)) * N + n0 + bn;
    const size_t sa = (size_t)A_RS * K, sb = (size_t)B_RS * N, tile_b = (size_t)BK * N;
    const int a_rows = a_in ? M - m0 - ar : 0, b_ok = b_in && n0 + bn < N;
    const int a_at = ak * LDA + ar, b_at = BK * LDA + br * LDB + bn;

#if ASYNC
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nt)
            warp_copy(sm + s * SLOT + a_at, sm + s * SLOT + b_at, A, B, pa, sa, a_rows,
                      ak < kend - kbeg - s * BK, pb, sb, kend - kbeg - s * BK - br, b_ok, a_in,
                      b_in);
        pa += BK, pb += tile_b;
        warp_commit();
    }
    int rs = 0, ws = STAGES - 1; /* the slots read and written */
    for (int t = 0; t < nt; t++) {
        warp_wait(); /* slice t is in */
        barrier(CLK_LOCAL_MEM_FENCE);
        const int left = kend - kbeg - (t + STAGES - 1) * BK; /* k of the slice copied */
        if (left > 0)
            warp_copy(sm + ws * SLOT + a_at, sm + ws * SLOT + b_at, A, B, pa, sa, a_rows,
                      ak < left, pb, sb, left - br, b_ok, a_in, b_in);
        pa += BK, pb += tile_b;
        warp_commit();
        warp_mma(sm + rs * SLOT, sm + rs * SLOT + BK * LDA, aoff, boff, acc);
        rs = rs + 1 == STAGES ? 0 : rs + 1;
        ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
#else
    float ra[A_PER * VA], rb[B_PER * VB];
    for (int s = 0; s < STAGES - 1; s++) {
        const int left = kend - kbeg - s * BK;
        if (left > 0) {
            warp_load(ra, rb, pa, sa, a_rows, ak < left, pb, sb, left - br, b_ok);
            warp_store(sm + s * SLOT + a_at, sm + s * SLOT + b_at, ra, rb, a_in, b_in);
        }
        pa += BK, pb += tile_b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int rs = 0, ws = STAGES - 1;
    for (int t = 0; t < nt; t++) {
        const int left = kend - kbeg - (t + STAGES - 1) * BK;
        if (left > 0) warp_load(ra, rb, pa, sa, a_rows, ak < left, pb, sb, left - br, b_ok);
        pa += BK, pb += tile_b;
        warp_mma(sm + rs * SLOT, sm + rs * SLOT + BK * LDA, aoff, boff, acc);
        if (left > 0) warp_store(sm + ws * SLOT + a_at, sm + ws * SLOT + b_at, ra, rb, a_in, b_in);
        barrier(CLK_LOCAL_MEM_FENCE);
        rs = rs + 1 == STAGES ? 0 : rs + 1;
        ws = ws + 1 == STAGES ? 0 : ws + 1;
    }
#endif

    /* ---- C (or this split's partials) ---- */
    __global float *out = C + (size_t)z * (size_t)M * (size_t)N;
    const int r0 = m0 + aoff, c0 = n0 + boff;
#if VB == 4
    if (m0 + BM <= M && n0 + BN <= N) {
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const int r = r0 + (i / 4) * (WM / FM) + i % 4;
#pragma unroll
            for (int g = 0; g < FN; g++)
                CO_STORE4(CO_FLOAT4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2],
                                    acc[i][4 * g + 3]),
                          out + (size_t)r * N + c0 + g * (WN / FN), 0);
        }
        return;
    }
#endif
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = r0 + (i / 4) * (WM / FM) + i % 4;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int c = c0 + (j / 4) * (WN / FN) + j % 4;
            if (r < M && c < N) out[(size_t)r * N + c] = acc[i][j];
        }
    }
}

/* Split-K's sum: C[i] = the sum over splits of part[z * total + i], in the
 * order of z; four elements a work-item (float4 when total % 4 == 0). */
__kernel void gemm_warp_sum(const int total, const int splits,
                            __global const float *CO_RESTRICT part, __global float *CO_RESTRICT C) {
    const int i = 4 * (int)get_global_id(0);
    if (i >= total) return;
    if ((total & 3) == 0) {
        float4 s = CO_LOAD4(part + i, 0);
        for (int z = 1; z < splits; z++) {
            const float4 v = CO_LOAD4(part + (size_t)z * total + i, 0);
            s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
        }
        CO_STORE4(s, C + i, 0);
        return;
    }
    for (int e = i; e < i + 4 && e < total; e++) {
        float s = part[e];
        for (int z = 1; z < splits; z++) s += part[(size_t)z * total + e];
        C[e] = s;
    }
}
