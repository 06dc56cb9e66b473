/* Sum of n float32 values, one partial sum per work-group: the host side
 * launches pass after pass over the partials until one value is left.
 * Work-groups of WG work-items (a power of two, 32..1024); local memory
 * WG floats.
 *
 * reduce_tree      one element per work-item, halving steps in local memory
 *                  with a barrier between them (seed 002).
 * reduce_unrolled  2*WG elements per group, the first add done during the
 *                  load; the halving steps unrolled at compile time (WG is a
 *                  define). Every step keeps its barrier: warp-synchronous
 *                  tricks are not valid OpenCL (and not safe on Volta+).
 * reduce_multi     a fixed number of groups striding over the whole array
 *                  (grid-stride), float4 loads four at a time so that many
 *                  loads are in flight, then the group's sum as in
 *                  reduce_unrolled. The host's second pass sums the partials.
 * reduce_shuffle   (CUDA only) reduce_multi with the group's sum done by warp
 *                  shuffles: one shared-memory round instead of log2(WG). */

#ifndef WG
#define WG 256
#endif

/* One unrolled halving step of the group's sum in part[]. */
#define REDUCE_STEP(part, lid, s)                                                      \
    if (WG > (s)) {                                                                    \
        if ((lid) < (s)) part[lid] += part[(lid) + (s)];                               \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    }
/* part[0] = the sum of part[0 .. WG-1]; part[lid] written and fenced before. */
#define REDUCE_UNROLLED(part, lid)                                                     \
    REDUCE_STEP(part, lid, 512) REDUCE_STEP(part, lid, 256) REDUCE_STEP(part, lid, 128) \
    REDUCE_STEP(part, lid, 64) REDUCE_STEP(part, lid, 32) REDUCE_STEP(part, lid, 16)    \
    REDUCE_STEP(part, lid, 8) REDUCE_STEP(part, lid, 4) REDUCE_STEP(part, lid, 2)       \
    REDUCE_STEP(part, lid, 1)

__kernel void reduce_tree(const int n, __global const float *CO_RESTRICT in,
                          __global float *CO_RESTRICT out) {
    __local float part[WG];
    const size_t lid = get_local_id(0), i = get_global_id(0);
    part[lid] = i < (size_t)n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = part[0];
}

__kernel void reduce_unrolled(const int n, __global const float *CO_RESTRICT in,
                              __global float *CO_RESTRICT out) {
    __local float part[WG];
    const size_t lid = get_local_id(0), i = get_group_id(0) * (2 * WG) + lid;
    part[lid] = (i < (size_t)n ? in[i] : 0.0f) + (i + WG < (size_t)n ? in[i + WG] : 0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    REDUCE_UNROLLED(part, lid)
    if (lid == 0) out[get_group_id(0)] = part[0];
}

CO_INLINE float reduce_sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* This work-item's share of a grid-stride sum over in[0 .. n-1]: whole
 * float4 vectors (in is aligned: a buffer's start), four loads issued
 * before their adds, then the n % 4 tail on the grid's first work-items. */
CO_INLINE float reduce_grid(const int n, __global const float *CO_RESTRICT in) {
    __global const float4 *v = (__global const float4 *)in;
    const size_t stride = get_global_size(0), nv = (size_t)n / 4;
    size_t i = get_global_id(0);
    float acc = 0.0f;
    for (; i + 3 * stride < nv; i += 4 * stride) {
        const float4 a = v[i], b = v[i + stride], c = v[i + 2 * stride], d = v[i + 3 * stride];
        acc += (reduce_sum4(a) + reduce_sum4(b)) + (reduce_sum4(c) + reduce_sum4(d));
    }
    for (; i < nv; i += stride) acc += reduce_sum4(v[i]);
    const size_t tail = nv * 4 + get_global_id(0);
    if (tail < (size_t)n) acc += in[tail];
    return acc;
}

__kernel void reduce_multi(const int n, __global const float *CO_RESTRICT in,
                           __global float *CO_RESTRICT out) {
    __local float part[WG];
    const size_t lid = get_local_id(0);
    part[lid] = reduce_grid(n, in);
    barrier(CLK_LOCAL_MEM_FENCE);
    REDUCE_UNROLLED(part, lid)
    if (lid == 0) out[get_group_id(0)] = part[0];
}

#ifdef CO_CUDA
/* Sum over the 32 lanes of a warp, valid in lane 0. */
CO_INLINE float reduce_warp(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__kernel void reduce_shuffle(const int n, __global const float *CO_RESTRICT in,
                             __global float *CO_RESTRICT out) {
    __local float warps[WG / 32];
    const size_t lid = get_local_id(0), lane = lid % 32, warp = lid / 32;
    const float v = reduce_warp(reduce_grid(n, in));
    if (lane == 0) warps[warp] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp == 0) {
        const float w = reduce_warp(lane < WG / 32 ? warps[lane] : 0.0f);
        if (lane == 0) out[get_group_id(0)] = w;
    }
}
#endif
