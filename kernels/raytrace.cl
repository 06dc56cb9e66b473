/* Workload raytrace: spheres moving over a checkered ground plane, point
 * lights, Phong shading, hard shadows, iterative mirror reflections, a
 * pinhole camera. One tracer for every device: the host variants #include
 * this file as C (src/workloads/raytrace.c, twice: float and double);
 * Vulkan runs its GLSL twin, kernels/raytrace.comp.
 *
 * Defines:
 *   RT_DOUBLE  1: `real` is double (OpenCL needs cl_khr_fp64), else float
 *   RT_SPACE   where the animated scene ("world") lives while tracing:
 *              0 __global, 1 __constant, 2 __local (staged per work-group)
 *   RT_NMAX    spheres the __local copy holds (RT_SPACE 2)
 *   RT_FN(n)   the host renames every function per precision
 *
 * The layout of the scene and the world: kernels/raytrace_layout.cl. */
#ifndef RT_DOUBLE
#define RT_DOUBLE 0
#endif
#ifndef RT_SPACE
#define RT_SPACE 0
#endif
#ifndef RT_NMAX
#define RT_NMAX 64
#endif
#ifndef RT_FN
#define RT_FN(name) name
#endif

#undef real
#if RT_DOUBLE
#if defined(CO_OPENCL)
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "this OpenCL device has no double precision (cl_khr_fp64): use --precision float"
#endif
#endif
#define real double
#else
#define real float
#endif
/* Constants as float literals: exact in both precisions, no double
 * literal reaches a device without fp64. */
#define R(x) ((real)(x##f))

#include "raytrace_layout.cl"

/* The world's element type, const-qualified (CUDA maps __constant to const). */
#if RT_SPACE == 1
#define WORLD __constant real
#elif RT_SPACE == 2 && defined(CO_CUDA)
#define WORLD const real /* __shared__ qualifies variables, not pointers */
#elif RT_SPACE == 2
#define WORLD __local const real
#else
#define WORLD __global const real
#endif

/* Counting: the host counts the rays it traces and the ray-sphere tests
 * (the model's figures); devices trace the same rays without counting. */
#ifndef RT_COUNT
#define RT_COUNT(n) ((void)0)
#endif
#ifndef RT_TESTS
#define RT_TESTS(n) ((void)0)
#endif
/* The motion's sine and cosine. On the host (the reference) in double,
 * rounded once to real: glibc's sinf and cosf are not correctly rounded
 * (1.7% of the floats in (0, 200) differ by an ulp), and the shaders
 * (raytrace.comp) evaluate them in double to match the reference at every
 * time. The OpenCL and CUDA kernels take the device's own (the reference's
 * tolerance). */
#ifndef RT_SIN
#ifdef CO_HOST
#define RT_SIN(x) ((real)sin((double)(x)))
#define RT_COS(x) ((real)cos((double)(x)))
#else
#define RT_SIN sin
#define RT_COS cos
#endif
#endif

#define vec RT_FN(vec)
#define v3 RT_FN(v3)
#define v_sub RT_FN(v_sub)
#define v_mul RT_FN(v_mul)
#define v_madd RT_FN(v_madd)
#define v_dot RT_FN(v_dot)
#define v_load RT_FN(v_load)
#define rt_move RT_FN(rt_move)
#define rt_sphere RT_FN(rt_sphere)
#define rt_nearest RT_FN(rt_nearest)
#define rt_blocked RT_FN(rt_blocked)
#define rt_pow32 RT_FN(rt_pow32)
#define rt_byte RT_FN(rt_byte)
#define rt_pixel RT_FN(rt_pixel)
#define rt_animate RT_FN(rt_animate)
#define rt_render RT_FN(rt_render)

typedef struct vec {
    real x, y, z;
} vec;

CO_INLINE vec v3(real x, real y, real z) {
    vec v;
    v.x = x, v.y = y, v.z = z;
    return v;
}
CO_INLINE vec v_sub(vec a, vec b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
CO_INLINE vec v_mul(vec a, real s) { return v3(a.x * s, a.y * s, a.z * s); }
CO_INLINE vec v_madd(vec a, real s, vec b) {
    return v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
CO_INLINE real v_dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CO_INLINE vec v_load(WORLD *p) { return v3(p[0], p[1], p[2]); }

/* The motion, the same function on every device: sphere i of the scene at
 * time t, as its RT_SW world words. A circular orbit around (ox, oz) and a
 * bounce above oy, both from the sphere's own phase. */
CO_INLINE void rt_move(__global const real *scene, int i, real t, real *out) {
    __global const real *s = scene + RT_SPHERES + RT_SW * i;
    /* fma: the angle rounds once, the same everywhere, whether or not a
     * compiler would contract a * b + c (at large t an ulp of it moves the
     * sphere visibly). */
    const real a = fma(s[RT_OMEGA], t, s[RT_PHASE]);
    const real r = s[RT_RADIUS];
    out[0] = s[0] + s[RT_ORBIT] * RT_COS(a);
    out[1] = s[1] + s[RT_BOUNCE] * fabs(RT_SIN(R(2.0) * a));
    out[2] = s[2] + s[RT_ORBIT] * RT_SIN(a);
    out[RT_R2] = r * r;
    out[RT_INVR] = R(1.0) / r;
    out[RT_COL] = s[RT_SCOL];
    out[RT_COL + 1] = s[RT_SCOL + 1];
    out[RT_COL + 2] = s[RT_SCOL + 2];
    out[RT_REFL] = s[RT_SREFL];
    out[9] = out[10] = out[11] = R(0.0);
}

/* Where o + t d (d unit) enters and leaves sphere s; false if it misses.
 * The dot products and the discriminant in fma, which rounds once
 * everywhere (raytrace.comp: where the driver's fma() does not, through
 * double): the hottest lines, 1.20x on CUDA and 1.15x on Vulkan against
 * separate products and sums (1080p, 2026-12-03-h200-y.md). */
CO_INLINE bool rt_sphere(WORLD *s, vec o, vec d, real *t0, real *t1) {
    const real ox = o.x - s[0], oy = o.y - s[1], oz = o.z - s[2];
    const real b = fma(oz, d.z, fma(oy, d.y, ox * d.x));
    const real c = fma(oz, oz, fma(oy, oy, ox * ox)) - s[RT_R2];
    const real disc = fma(b, b, -c);
    if (disc <= R(0.0)) return false;
    const real q = sqrt(disc);
    *t0 = -b - q, *t1 = -b + q;
    return true;
}

/* The nearest sphere hit along o + t d, t in (0, *tbest): its index and
 * *tbest, or -1. An origin inside a sphere hits its far side. */
CO_INLINE int rt_nearest(WORLD *w, int n, vec o, vec d, real *tbest) {
    int id = -1;
    real best = *tbest, t0, t1;
    RT_TESTS(n);
    WORLD *s = w + RT_SPHERES;
    for (int i = 0; i < n; i++, s += RT_SW) {
        if (!rt_sphere(s, o, d, &t0, &t1)) continue;
        const real t = t0 > R(0.0) ? t0 : t1;
        if (t > R(0.0) && t < best) best = t, id = i;
    }
    *tbest = best;
    return id;
}

/* Any sphere between o and o + tmax d: a shadow ray stops at the first. */
CO_INLINE bool rt_blocked(WORLD *w, int n, vec o, vec d, real tmax) {
    WORLD *s = w + RT_SPHERES;
    real t0, t1;
    for (int i = 0; i < n; i++, s += RT_SW) {
        if (!rt_sphere(s, o, d, &t0, &t1)) continue;
        const real t = t0 > R(0.0) ? t0 : t1;
        if (t > R(0.0) && t < tmax) {
            RT_TESTS(i + 1);
            return true;
        }
    }
    RT_TESTS(n);
    return false;
}

/* x^32: the Phong exponent by squaring, no pow. */
CO_INLINE real rt_pow32(real x) {
    x *= x, x *= x, x *= x, x *= x;
    return x * x;
}

CO_INLINE uint rt_byte(real c) {
    return (uint)(fmin(fmax(c, R(0.0)), R(1.0)) * R(255.0) + R(0.5));
}

/* One pixel: the camera ray, then up to `depth` mirror bounces, each hit
 * shaded (ambient + diffuse + specular per unshadowed light). RGBA8 packed
 * little-endian (R in the low byte). */
CO_INLINE uint rt_pixel(WORLD *w, int n, int nlights, int width, int height,
                        int depth, int px, int py) {
    const real u = (R(2.0) * ((real)px + R(0.5)) / (real)width) - R(1.0);
    const real v = R(1.0) - R(2.0) * ((real)py + R(0.5)) / (real)height;
    vec d = v_madd(v_madd(v_load(w + RT_FWD), u, v_load(w + RT_RIGHT)), v, v_load(w + RT_UP));
    d = v_mul(d, R(1.0) / sqrt(v_dot(d, d)));
    vec o = v_load(w + RT_EYE);
    const real eps = w[RT_EPS], plane_y = w[RT_PLANE_Y], cell = w[RT_CELL];
    real cr = R(0.0), cg = R(0.0), cb = R(0.0), weight = R(1.0);
    for (int bounce = 0;; bounce++) {
        RT_COUNT(1);
        real t = (real)RT_FAR;
        const int id = rt_nearest(w, n, o, d, &t);
        bool plane = false;
        if (d.y != R(0.0)) {
            const real tp = (plane_y - o.y) / d.y;
            if (tp > R(0.0) && tp < t) t = tp, plane = true;
        }
        if (!plane && id < 0) { /* the sky: a gradient over elevation */
            const real up = fmax(d.y, R(0.0));
            cr += weight * (R(0.55) - R(0.35) * up);
            cg += weight * (R(0.70) - R(0.30) * up);
            cb += weight * (R(0.95) - R(0.15) * up);
            break;
        }
        const vec p = v_madd(o, t, d);
        vec nrm;
        real br, bg, bb, refl;
        if (plane) {
            nrm = v3(R(0.0), R(1.0), R(0.0));
            /* Cell parity in real arithmetic: far cells overflow an int. */
            const real c = floor(p.x * cell) + floor(p.z * cell);
            const real k = c - R(2.0) * floor(c * R(0.5)) != R(0.0) ? R(0.25) : R(0.9);
            br = bg = bb = k;
            refl = w[RT_PLANE_REFL];
        } else {
            WORLD *s = w + RT_SPHERES + RT_SW * id;
            nrm = v_mul(v_sub(p, v_load(s)), s[RT_INVR]);
            br = s[RT_COL], bg = s[RT_COL + 1], bb = s[RT_COL + 2];
            refl = s[RT_REFL];
        }
        if (v_dot(nrm, d) > R(0.0)) nrm = v_mul(nrm, R(-1.0)); /* seen from inside */
        /* Secondary rays leave from just off the surface: no self-hits. */
        const vec q = v_madd(p, eps, nrm);
        const real amb = w[RT_AMBIENT], ks = w[RT_SPEC];
        real lr = amb * br, lg = amb * bg, lb = amb * bb, sr = R(0.0), sg = R(0.0), sb = R(0.0);
        const real dn = v_dot(d, nrm);
        const vec mirror = v_madd(d, R(-2.0) * dn, nrm);
        for (int l = 0; l < nlights; l++) {
            WORLD *L = w + RT_HEADER + RT_LW * l;
            vec to = v_sub(v_load(L), q);
            const real dist = sqrt(v_dot(to, to));
            to = v_mul(to, R(1.0) / dist);
            const real ndl = v_dot(nrm, to);
            if (ndl <= R(0.0)) continue;
            RT_COUNT(1);
            if (rt_blocked(w, n, q, to, dist)) continue;
            lr += ndl * br * L[3], lg += ndl * bg * L[4], lb += ndl * bb * L[5];
            /* Phong: the light's mirror direction against the view. */
            const real rv = v_dot(mirror, to);
            if (rv > R(0.0)) {
                const real sp = ks * rt_pow32(rv);
                sr += sp * L[3], sg += sp * L[4], sb += sp * L[5];
            }
        }
        const real keep = weight * (R(1.0) - refl);
        cr += keep * lr + weight * sr;
        cg += keep * lg + weight * sg;
        cb += keep * lb + weight * sb;
        if (bounce >= depth || refl <= R(0.0)) break;
        weight *= refl;
        o = q;
        d = mirror;
    }
    return rt_byte(cr) | rt_byte(cg) << 8 | rt_byte(cb) << 16 | 0xFF000000u;
}

#if RT_SPACE == 1 && defined(CO_CUDA)
/* CUDA: the dialect's __constant is global memory; the world goes into this
 * constant-memory array instead, copied from the buffer rt_animate wrote. */
__constant__ real rt_world[RT_SPHERES + RT_SW * RT_NMAX];
#endif

#if RT_SPACE != 2
/* The world at time t: header and lights copied, spheres moved. One
 * work-item per word of the header and lights, or per sphere. */
__kernel void rt_animate(__global const real *scene, __global real *world, const int n,
                         const float t) {
    const int i = (int)get_global_id(0);
    if (i < RT_SPHERES) world[i] = scene[i];
    if (i < n) {
        real s[RT_SW];
        rt_move(scene, i, (real)t, s);
        for (int k = 0; k < RT_SW; k++) world[RT_SPHERES + RT_SW * i + k] = s[k];
    }
}

/* One pixel per work-item; the world in global (RT_SPACE 0) or constant
 * memory (RT_SPACE 1: the argument in OpenCL, rt_world in CUDA). The
 * launch covers a band of `rows` rows of the width x height frame from row
 * row0 (the whole frame: 0 and height); image holds the band's rows. */
__kernel void rt_render(WORLD *world, const int n, const int nlights,
                        const int width, const int height, const int depth, const int frame,
                        const int row0, const int rows, __global uint *image) {
#if RT_SPACE == 1 && defined(CO_CUDA)
    world = rt_world;
#endif
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= width || y >= rows) return;
    image[((size_t)frame * rows + y) * width + x] =
        rt_pixel(world, n, nlights, width, height, depth, x, row0 + y);
}
#endif

#if RT_SPACE == 2 && !defined(CO_HOST)
/* The seed's step: the work-group animates the spheres into local memory
 * (each work-item moves some), then traces from there. Work-group 0 also
 * writes its copy out, so the world of every variant can be checked. */
__kernel void rt_render_local(__global const real *scene, __global real *world_out,
                              const int n, const int nlights, const int width,
                              const int height, const int depth, const int frame,
                              const int row0, const int rows, const float t,
                              __global uint *image) {
    __local real w[RT_SPHERES + RT_SW * RT_NMAX];
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int lsize = (int)(get_local_size(0) * get_local_size(1));
    for (int i = lid; i < RT_SPHERES; i += lsize) w[i] = scene[i];
    for (int i = lid; i < n; i += lsize) {
        real s[RT_SW];
        rt_move(scene, i, (real)t, s);
        for (int k = 0; k < RT_SW; k++) w[RT_SPHERES + RT_SW * i + k] = s[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_group_id(0) == 0 && get_group_id(1) == 0)
        for (int i = lid; i < RT_SPHERES + RT_SW * n; i += lsize) world_out[i] = w[i];
    const int x = (int)get_global_id(0), y = (int)get_global_id(1);
    if (x >= width || y >= rows) return;
    image[((size_t)frame * rows + y) * width + x] =
        rt_pixel(w, n, nlights, width, height, depth, x, row0 + y);
}
#endif

#undef vec
#undef v3
#undef v_sub
#undef v_mul
#undef v_madd
#undef v_dot
#undef v_load
#undef rt_move
#undef rt_sphere
#undef rt_nearest
#undef rt_blocked
#undef rt_pow32
#undef rt_byte
#undef rt_pixel
#undef rt_animate
#undef rt_render
#undef WORLD
#undef R
