/* Micro-kernels for `coalesce peak` (src/core/peak.c): the device's
 * streaming bandwidth, FMA throughput and launch latency.
 *
 * Bandwidth: loops over float4 elements (grid-stride on GPUs, a block per
 * work-item on CPUs), launched with a few work-groups per compute unit, so
 * every unit streams whole cache lines with many loads in flight; four
 * independent float4 per trip keep the memory system busy where occupancy
 * alone would not.
 * FMA: eight independent accumulators per work-item (the FMA pipeline's
 * latency is hidden within one work-item too), 64 FMAs per loop trip.
 * PEAK_FP64 makes the FMA kernel float64 (built only where it compiles). */

#ifdef PEAK_FP64
#ifdef CO_OPENCL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double real;
#else
typedef float real;
#endif

/* The float4 elements a work-item streams: [i, end) in steps of step.
 * GPUs interleave (neighbouring work-items, neighbouring addresses: each
 * load of a warp is one coalesced transaction); CPUs (PEAK_BLOCKED) give
 * each work-item its own contiguous block, which caches and prefetchers
 * stream. */
#ifdef PEAK_BLOCKED
#define PEAK_RANGE(n4)                                                                     \
    const size_t per_ = ((size_t)(n4) + get_global_size(0) - 1) / get_global_size(0);      \
    const size_t step = 1, stop_ = (get_global_id(0) + 1) * per_;                           \
    const size_t end = stop_ < (size_t)(n4) ? stop_ : (size_t)(n4);                         \
    size_t i = get_global_id(0) * per_;
#else
#define PEAK_RANGE(n4)                                                                     \
    const size_t step = get_global_size(0), end = (n4);                                     \
    size_t i = get_global_id(0);
#endif

/* dst = src, n4 float4 elements. */
__kernel void peak_copy(__global const float *CO_RESTRICT src, __global float *CO_RESTRICT dst,
                        const uint n4) {
    PEAK_RANGE(n4)
    for (; i + 3 * step < end; i += 4 * step) {
        const float4 a = CO_LOAD4(src, i), b = CO_LOAD4(src, i + step);
        const float4 c = CO_LOAD4(src, i + 2 * step), d = CO_LOAD4(src, i + 3 * step);
        CO_STORE4(a, dst, i);
        CO_STORE4(b, dst, i + step);
        CO_STORE4(c, dst, i + 2 * step);
        CO_STORE4(d, dst, i + 3 * step);
    }
    for (; i < end; i += step) CO_STORE4(CO_LOAD4(src, i), dst, i);
}

CO_INLINE float sum4(const float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* Reads n4 float4 elements. The sum is stored only if it equals `never`
 * (which the caller makes impossible), so the loads cannot be dropped. */
__kernel void peak_read(__global const float *CO_RESTRICT src, __global float *CO_RESTRICT out,
                        const uint n4, const float never) {
    PEAK_RANGE(n4)
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (; i + 3 * step < end; i += 4 * step) {
        s0 += sum4(CO_LOAD4(src, i));
        s1 += sum4(CO_LOAD4(src, i + step));
        s2 += sum4(CO_LOAD4(src, i + 2 * step));
        s3 += sum4(CO_LOAD4(src, i + 3 * step));
    }
    for (; i < end; i += step) s0 += sum4(CO_LOAD4(src, i));
    const float s = (s0 + s1) + (s2 + s3);
    if (s == never) out[0] = s;
}

/* dst = value, n4 float4 elements. */
__kernel void peak_write(__global float *CO_RESTRICT dst, const uint n4, const float value) {
    PEAK_RANGE(n4)
    const float4 v = CO_FLOAT4(value, value, value, value);
    for (; i + 3 * step < end; i += 4 * step) {
        CO_STORE4(v, dst, i);
        CO_STORE4(v, dst, i + step);
        CO_STORE4(v, dst, i + 2 * step);
        CO_STORE4(v, dst, i + 3 * step);
    }
    for (; i < end; i += step) CO_STORE4(v, dst, i);
}

/* PEAK_VEC (OpenCL CPU devices): the accumulators are 256-bit vectors,
 * float8 or double4. A CPU OpenCL compiler (PoCL) does not vectorise this
 * loop across work-items, so without OpenCL's own vectors the SIMD lanes
 * sit idle and the "ceiling" would be a scalar one. */
#if defined(CO_OPENCL) && defined(PEAK_VEC) && defined(PEAK_FP64)
typedef double4 acc;
#define PEAK_HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif defined(CO_OPENCL) && defined(PEAK_VEC)
typedef float8 acc;
#define PEAK_HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#else
typedef real acc;
#define PEAK_HSUM(v) (v)
#endif

/* 8 independent FMAs: r = r * a + b on every accumulator. */
#define PEAK_FMA8                                                                          \
    r0 = fma(r0, a, b); r1 = fma(r1, a, b); r2 = fma(r2, a, b); r3 = fma(r3, a, b);         \
    r4 = fma(r4, a, b); r5 = fma(r5, a, b); r6 = fma(r6, a, b); r7 = fma(r7, a, b);

/* iters trips of 64 FMAs per work-item; one result per work-item, so the
 * work is observable. With |a| < 1 the values stay finite. */
__kernel void peak_fma(__global real *CO_RESTRICT out, const int iters, const float fa,
                       const float fb) {
    const acc a = (acc)((real)fa), b = (acc)((real)fb);
    const acc x = (acc)((real)(get_global_id(0) & 1023) * (real)0.0009765625f);
    acc r0 = x, r1 = x + (real)0.125f, r2 = x + (real)0.25f, r3 = x + (real)0.375f;
    acc r4 = x + (real)0.5f, r5 = x + (real)0.625f, r6 = x + (real)0.75f, r7 = x + (real)0.875f;
    for (int i = 0; i < iters; i++) {
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
    }
    const acc sum = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
    out[get_global_id(0)] = PEAK_HSUM(sum);
}

/* Nothing: the cost of a launch and the wait for it. */
__kernel void peak_empty(__global float *out) {
    if (get_global_id(0) == 1) out[0] = 0.0f; /* launched with one work-item: never */
}
