/* Micro-kernels for `coalesce peak` on Vulkan (kernels/peak.cl's, in GLSL;
 * src/core/peak.c launches both with the same arguments): streaming
 * bandwidth over vec4 elements, FMA throughput, launch latency. */

/* The vec4 elements an invocation streams: [i, end) in steps of step;
 * interleaved on GPUs, a block per invocation where PEAK_BLOCKED (CPUs). */
#ifdef PEAK_BLOCKED
#define PEAK_RANGE(n4)                                                                     \
    const uint per_ = (n4 + co_global_size(0) - 1) / co_global_size(0);                    \
    const uint step = 1, end = min((gl_GlobalInvocationID.x + 1) * per_, n4);               \
    uint i = gl_GlobalInvocationID.x * per_;
#else
#define PEAK_RANGE(n4)                                                                     \
    const uint step = co_global_size(0), end = n4;                                          \
    uint i = gl_GlobalInvocationID.x;
#endif
/* Each kernel streams its buffer args.reps times (a cache level: a buffer
 * that fits, passed over often enough to time well), each pass rotated by
 * args.rot elements (0 on CPUs; kernels/peak.cl says why, and why the
 * rotation stays where it is 0). */
#define PEAK_AT(k) ((k) + off_ < args.n4 ? (k) + off_ : (k) + off_ - args.n4)
#define PEAK_PASSES                                                                        \
    for (uint r_ = 0u, off_ = 0u; r_ < args.reps;                                          \
         r_++, off_ = off_ + args.rot < args.n4 ? off_ + args.rot : off_ + args.rot - args.n4)

#if defined(ENTRY_peak_copy)
CO_ARGS uniform Args { uint n4; uint reps; uint rot; } args;
CO_BUFFER(0, readonly, vec4, src)
CO_BUFFER(1, writeonly, vec4, dst)
void main() {
    PEAK_PASSES {
        PEAK_RANGE(args.n4)
        for (; i + 3 * step < end; i += 4 * step) {
            const uint i0 = PEAK_AT(i), i1 = PEAK_AT(i + step);
            const uint i2 = PEAK_AT(i + 2 * step), i3 = PEAK_AT(i + 3 * step);
            const vec4 a = src[i0], b = src[i1], c = src[i2], d = src[i3];
            dst[i0] = a;
            dst[i1] = b;
            dst[i2] = c;
            dst[i3] = d;
        }
        for (; i < end; i += step) dst[PEAK_AT(i)] = src[PEAK_AT(i)];
    }
}

#elif defined(ENTRY_peak_read)
CO_ARGS uniform Args { uint n4; float never; uint reps; uint rot; } args;
CO_BUFFER(0, readonly, vec4, src)
CO_BUFFER(1, writeonly, float, outv)
float sum4(const vec4 v) { return (v.x + v.y) + (v.z + v.w); }
void main() {
    float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    PEAK_PASSES {
        PEAK_RANGE(args.n4)
        for (; i + 3 * step < end; i += 4 * step) {
            s0 += sum4(src[PEAK_AT(i)]);
            s1 += sum4(src[PEAK_AT(i + step)]);
            s2 += sum4(src[PEAK_AT(i + 2 * step)]);
            s3 += sum4(src[PEAK_AT(i + 3 * step)]);
        }
        for (; i < end; i += step) s0 += sum4(src[PEAK_AT(i)]);
    }
    const float s = (s0 + s1) + (s2 + s3);
    if (s == args.never) outv[0] = s; /* never: the loads cannot be dropped */
}

#elif defined(ENTRY_peak_write)
CO_ARGS uniform Args { uint n4; float value; uint reps; uint rot; } args;
CO_BUFFER(0, writeonly, vec4, dst)
/* dst = value + pass: every pass stores other values, so none is dead. */
void main() {
    PEAK_PASSES {
        PEAK_RANGE(args.n4)
        const vec4 v = vec4(args.value + float(r_));
        for (; i + 3 * step < end; i += 4 * step) {
            dst[PEAK_AT(i)] = v;
            dst[PEAK_AT(i + step)] = v;
            dst[PEAK_AT(i + 2 * step)] = v;
            dst[PEAK_AT(i + 3 * step)] = v;
        }
        for (; i < end; i += step) dst[PEAK_AT(i)] = v;
    }
}

#elif defined(ENTRY_peak_fma)
#ifdef PEAK_FP64
#define real double
#else
#define real float
#endif
CO_ARGS uniform Args { int iters; float fa; float fb; } args;
CO_BUFFER(0, writeonly, real, outv)
#define PEAK_FMA8                                                                          \
    r0 = fma(r0, a, b); r1 = fma(r1, a, b); r2 = fma(r2, a, b); r3 = fma(r3, a, b);         \
    r4 = fma(r4, a, b); r5 = fma(r5, a, b); r6 = fma(r6, a, b); r7 = fma(r7, a, b);
/* iters trips of 64 independent FMAs (eight chains); |a| < 1 keeps them finite. */
void main() {
    const real a = real(args.fa), b = real(args.fb);
    const real x = real(gl_GlobalInvocationID.x & 1023u) * real(0.0009765625);
    real r0 = x, r1 = x + real(0.125), r2 = x + real(0.25), r3 = x + real(0.375);
    real r4 = x + real(0.5), r5 = x + real(0.625), r6 = x + real(0.75), r7 = x + real(0.875);
    for (int i = 0; i < args.iters; i++) {
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
    }
    outv[gl_GlobalInvocationID.x] = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
}

#elif defined(ENTRY_peak_empty)
CO_BUFFER(0, writeonly, float, outv)
void main() {
    if (gl_GlobalInvocationID.x == 1) outv[0] = 0.0; /* launched with one invocation: never */
}
#endif
