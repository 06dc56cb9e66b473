/* Sum of n float32 values. Work-groups of WG work-items (a power of two,
 * 32..1024); local memory WG floats.
 *
 * reduce_tree      one element per work-item, halving steps in local memory
 *                  with a barrier between them (seed 002). One partial sum per
 *                  group: the host launches pass after pass over the partials
 *                  until one value is left.
 * reduce_unrolled  2*WG elements per group, the first add done during the
 *                  load; the halving steps unrolled at compile time (WG is a
 *                  define). Every step keeps its barrier: warp-synchronous
 *                  tricks are not valid OpenCL (and not safe on Volta+).
 *                  Passes as reduce_tree.
 * reduce_multi     a fixed number of groups striding over the whole array
 *                  (grid-stride), float4 loads four at a time so that many
 *                  loads are in flight, then the group's sum as in
 *                  reduce_unrolled. One launch: each group stores its partial
 *                  and draws a ticket; the group drawing the last one sums
 *                  all partials (reduce_publish, reduce_partials).
 * reduce_shuffle   (CUDA only) reduce_multi with the group's sums done by warp
 *                  shuffles: one shared-memory round instead of log2(WG).
 *
 * The single launch saves the second launch's few microseconds. The ticket
 * counter must be 0 before a launch (the host uploads a zero) and the last
 * group sets it back to 0, so launches can follow one another. The last
 * group sums the partials in the order of their group ids, whichever group
 * it is: the result does not depend on the order in which groups finish. */

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

/* Work-item 0 of each group: store the group's sum v as partial number
 * get_group_id(0), then draw a ticket. True for the group that draws the
 * last one: every other partial is stored and visible by then. */
CO_INLINE int reduce_publish(__global float *part, volatile __global uint *ticket, float v) {
    part[get_group_id(0)] = v;
    /* The partial must be visible to other groups before the ticket is: on
     * CUDA mem_fence is __threadfence_block, which orders for the block only. */
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#ifdef CO_CUDA
    __threadfence();
#endif
    const int last = atomic_inc(ticket) == (uint)(get_num_groups(0) - 1);
    if (last) {
        *ticket = 0; /* all groups have drawn: ready for the next launch */
        /* The other groups' partials are read after this ticket. */
        mem_fence(CLK_GLOBAL_MEM_FENCE);
#ifdef CO_CUDA
        __threadfence();
#endif
    }
    return last;
}

/* This work-item's share of the partials of all groups, in a fixed order
 * (partials lid, lid + WG, ...: four loads issued before their adds).
 * Volatile: the partials were written by other groups during this launch,
 * and must not come from a cache that holds older values. */
CO_INLINE float reduce_partials(volatile __global const float *part) {
    const size_t groups = get_num_groups(0);
    size_t i = get_local_id(0);
    float acc = 0.0f;
    for (; i + 3 * WG < groups; i += 4 * WG) {
        const float a = part[i], b = part[i + WG], c = part[i + 2 * WG], d = part[i + 3 * WG];
        acc += (a + b) + (c + d);
    }
    for (; i < groups; i += WG) acc += part[i];
    return acc;
}

/* part: one partial per group; ticket: 0 before the launch, 0 after it. */
__kernel void reduce_multi(const int n, __global const float *CO_RESTRICT in,
                           __global float *part, volatile __global uint *ticket,
                           __global float *CO_RESTRICT out) {
    __local float sums[WG];
    __local int last;
    const size_t lid = get_local_id(0);
    sums[lid] = reduce_grid(n, in);
    barrier(CLK_LOCAL_MEM_FENCE);
    REDUCE_UNROLLED(sums, lid)
    if (lid == 0) last = reduce_publish(part, ticket, sums[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last) return; /* the whole group: last is uniform */
    sums[lid] = reduce_partials(part);
    barrier(CLK_LOCAL_MEM_FENCE);
    REDUCE_UNROLLED(sums, lid)
    if (lid == 0) out[0] = sums[0];
}

#ifdef CO_CUDA
/* Sum over the 32 lanes of a warp, valid in lane 0. */
CO_INLINE float reduce_warp(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* The group's sum of every work-item's v (valid in work-item 0), through
 * warps[WG / 32] in local memory, which may be used again only after a
 * barrier. */
CO_INLINE float reduce_group_shuffle(float v, CO_LOCAL_PTR float *warps, size_t lid) {
    const float w = reduce_warp(v);
    if (lid % 32 == 0) warps[lid / 32] = w;
    barrier(CLK_LOCAL_MEM_FENCE);
    return lid < 32 ? reduce_warp(lid < WG / 32 ? warps[lid] : 0.0f) : 0.0f;
}

__kernel void reduce_shuffle(const int n, __global const float *CO_RESTRICT in,
                             __global float *part, volatile __global uint *ticket,
                             __global float *CO_RESTRICT out) {
    __local float warps[WG / 32];
    __local int last;
    const size_t lid = get_local_id(0);
    const float sum = reduce_group_shuffle(reduce_grid(n, in), warps, lid);
    if (lid == 0) last = reduce_publish(part, ticket, sum);
    barrier(CLK_LOCAL_MEM_FENCE); /* also: warp 0 has read warps[] */
    if (!last) return;
    const float total = reduce_group_shuffle(reduce_partials(part), warps, lid);
    if (lid == 0) out[0] = total;
}
#endif
