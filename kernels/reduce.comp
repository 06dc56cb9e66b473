/* Sum of n float32 values (kernels/reduce.cl's variants, in GLSL).
 * Work-groups of WG invocations (a power of two, 32..1024, the launch's
 * size as well); shared memory WG floats.
 *
 * reduce_tree      one element per invocation, halving steps in shared
 *                  memory with a barrier() between them (seed 002); one
 *                  partial per group, pass after pass. Arguments (int n, in, out).
 * reduce_unrolled  2*WG elements per group, the first add during the load;
 *                  the steps' loop has constant bounds (WG is a define).
 * reduce_multi     a fixed grid striding over the array with vec4 loads,
 *                  four in flight; one launch: each group publishes its
 *                  partial and draws a ticket, the group drawing the last
 *                  one sums all partials in group order (deterministic).
 *                  Arguments (int n, in, part, ticket, out); ticket is 0
 *                  before and after a launch.
 * reduce_subgroup  reduce_multi with each group's sum by subgroupAdd: one
 *                  shared-memory round of a value per subgroup, instead of
 *                  log2(WG) rounds. */
#ifndef WG
#define WG 256
#endif

shared float part[WG];

/* part[0] = the sum of part[0 .. WG-1]; part[lid] written before, and a
 * barrier() since. */
void tree(const uint lid) {
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier();
    }
}

#if defined(ENTRY_reduce_tree) || defined(ENTRY_reduce_unrolled)
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, x)
CO_BUFFER(1, writeonly, float, sums)
void main() {
    const uint lid = gl_LocalInvocationID.x, n = uint(args.n);
#ifdef ENTRY_reduce_tree
    const uint i = gl_GlobalInvocationID.x;
    part[lid] = i < n ? x[i] : 0.0;
#else
    const uint i = gl_WorkGroupID.x * (2 * WG) + lid;
    part[lid] = (i < n ? x[i] : 0.0) + (i + WG < n ? x[i + WG] : 0.0);
#endif
    barrier();
    tree(lid);
    if (lid == 0) sums[gl_WorkGroupID.x] = part[0];
}

#elif defined(ENTRY_reduce_multi) || defined(ENTRY_reduce_subgroup)
#ifdef ENTRY_reduce_subgroup
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, x)
CO_BUFFER_VIEW(0, readonly, vec4, x4)
/* Written by other groups during the launch: coherent, past any cache. */
CO_BUFFER(1, coherent, float, partials)
layout(std430, binding = 2) coherent buffer Ticket { uint ticket; };
CO_BUFFER(3, writeonly, float, sums)
shared bool last;

float sum4(const vec4 v) { return (v.x + v.y) + (v.z + v.w); }

/* This invocation's share of a grid-stride sum over x[0 .. n-1]: whole
 * vec4s, four loads before their adds, then the n % 4 tail. */
float grid_share(const uint n) {
    const uint stride = gl_NumWorkGroups.x * WG, nv = n / 4;
    uint i = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (; i + 3 * stride < nv; i += 4 * stride) {
        const vec4 a = x4[i], b = x4[i + stride], c = x4[i + 2 * stride], d = x4[i + 3 * stride];
        acc += (sum4(a) + sum4(b)) + (sum4(c) + sum4(d));
    }
    for (; i < nv; i += stride) acc += sum4(x4[i]);
    const uint tail = nv * 4 + gl_GlobalInvocationID.x;
    if (tail < n) acc += x[tail];
    return acc;
}

/* This invocation's share of all groups' partials, in a fixed order. */
float partials_share() {
    const uint groups = gl_NumWorkGroups.x;
    uint i = gl_LocalInvocationID.x;
    float acc = 0.0;
    for (; i + 3 * WG < groups; i += 4 * WG)
        acc += (partials[i] + partials[i + WG]) + (partials[i + 2 * WG] + partials[i + 3 * WG]);
    for (; i < groups; i += WG) acc += partials[i];
    return acc;
}

/* The group's sum of every invocation's v, returned to all of them; part[]
 * may be used again after it. */
float group_sum(const float v, const uint lid) {
#ifdef ENTRY_reduce_subgroup
    const float s = subgroupAdd(v);
    if (subgroupElect()) part[gl_SubgroupID] = s;
    barrier();
    if (gl_SubgroupID == 0) {
        float t = 0.0;
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize)
            t += part[i];
        t = subgroupAdd(t);
        if (subgroupElect()) part[WG - 1] = t; /* past the subgroups' slots (WG >= 32 > 1) */
    }
    barrier();
    const float total = part[WG - 1];
#else
    part[lid] = v;
    barrier();
    tree(lid);
    const float total = part[0];
#endif
    barrier();
    return total;
}

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const float mine = group_sum(grid_share(uint(args.n)), lid);
    if (lid == 0) {
        partials[gl_WorkGroupID.x] = mine;
        memoryBarrierBuffer(); /* the partial before the ticket */
        last = atomicAdd(ticket, 1u) == gl_NumWorkGroups.x - 1;
        if (last) {
            ticket = 0u; /* all groups have drawn: ready for the next launch */
            memoryBarrierBuffer();
        }
    }
    barrier();
    if (!last) return; /* the whole group: last is uniform */
    const float total = group_sum(partials_share(), lid);
    if (lid == 0) sums[0] = total;
}
#endif
