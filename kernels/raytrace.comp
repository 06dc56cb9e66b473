/* The ray tracer (kernels/raytrace.cl, in GLSL): the same scene layout,
 * motion, tracer and entry points, rounding as the host's C does, so that
 * the image matches the `c` variant's (src/workloads/raytrace.c).
 *
 * Defines, as for the OpenCL kernels: RT_DOUBLE (1: `real` is double),
 * RT_SPACE (where the world lives while tracing: 0 a storage buffer, 1 a
 * uniform buffer, 2 shared memory, staged per work-group), RT_NMAX (the
 * spheres a uniform or shared copy holds); and the shaders' own
 * RT_FMA_ONCE (whether the driver's fma() rounds once). CO_FP_STRICT
 * (always set by raytrace.c): every operation NoContraction (the backend), division and
 * square root correctly rounded (co_div, co_sqrt); no dot(), which a driver
 * may fuse. sin and cos are evaluated in double here, as the reference does
 * (raytrace.cl's RT_SIN; GLSL has neither for double, and its float ones
 * are approximate).
 *
 * The world is read in 4-word vectors (a sphere is three), so each
 * ray-sphere test reads its centre and r^2 in one load; a scalar word w is
 * vector w / 4, component w % 4. */
#include "raytrace_layout.cl"
#ifndef CO_FP_STRICT
#error "raytrace.comp rounds as host C does: build it with -DCO_FP_STRICT"
#endif
#ifndef RT_DOUBLE
#define RT_DOUBLE 0
#endif
#ifndef RT_SPACE
#define RT_SPACE 0
#endif
#ifndef RT_NMAX
#define RT_NMAX 64
#endif

#if RT_DOUBLE
#define real double
#define rvec dvec3
#define rvec4 dvec4
#else
#define real float
#define rvec vec3
#define rvec4 vec4
#endif
/* Constants as float literals (GLSL's unsuffixed ones), then real: the
 * OpenCL kernel's ((real)(x##f)). */
#define R(x) real(x)
#define RT_WORDS (RT_SPHERES + RT_SW * RT_NMAX) /* a multiple of 4 */

/* ---- division, square root and fma, correctly rounded ----
 * In double, co_div and co_sqrt as they are. In float, without double
 * (kernels/float_rn.cl) where fma() rounds once and the operands are in
 * range, through double otherwise. RT_FMA is the fma that rounds once:
 * fma() where the driver's does (RT_FMA_ONCE 1, which the host finds with
 * a probe shader: co_glsl_fma_once), else through double (frn_fma_double).
 * The shader is built for the one case: built for both, branched on a
 * probe in the shader, it took NVIDIA 62 registers against 56 and 1080p
 * `local` 0.400 ms against 0.389 (2026-12-04-h200-z.md). */
#if RT_DOUBLE
#define rt_div co_div
#define rt_sqrt co_sqrt
#define RT_FMA fma /* (rounds twice on lavapipe: the double build is not exact there) */
#else
#include "float_rn.cl"
#ifndef RT_FMA_ONCE
#error "raytrace.comp: build it with -DRT_FMA_ONCE=1 where fma() rounds once, else 0"
#endif
#if RT_FMA_ONCE
#define RT_FMA fma
#else
#define RT_FMA frn_fma_double
#endif
float rt_div(float a, float b) {
    float q;
    if (RT_FMA_ONCE != 0 && frn_div_in_range(a, b))
        q = frn_div(a, b);
    else
        q = co_div(a, b);
    return q;
}
float rt_sqrt(float x) {
    float y;
    if (RT_FMA_ONCE != 0 && frn_sqrt_in_range(x))
        y = frn_sqrt(x);
    else
        y = co_sqrt(x);
    return y;
}
#endif

/* ---- the world: WV(k) its k-th vector of 4 words, WD(w) word w ---- */
#if defined(ENTRY_rt_render) && RT_SPACE == 1
layout(std140, binding = 0) uniform World { rvec4 wv[RT_WORDS / 4]; };
#define WV(k) wv[k]
#elif defined(ENTRY_rt_render)
CO_BUFFER(0, readonly, rvec4, wv)
#define WV(k) wv[k]
#elif defined(ENTRY_rt_render_local) && RT_DOUBLE && defined(GL_SPIRV)
/* NVIDIA's OpenGL compiler traces wrong from a shared array of double
 * vectors (the double `local` image at PSNR 11, the motion read back from
 * it right): there the shared words are their bits, a vector two uvec4. */
shared uvec4 wl[RT_WORDS / 2];
rvec4 rt_wv(int k) {
    const uvec4 a = wl[2 * k], b = wl[2 * k + 1];
    return rvec4(packDouble2x32(a.xy), packDouble2x32(a.zw), packDouble2x32(b.xy),
                 packDouble2x32(b.zw));
}
void rt_wv_put(int k, rvec4 v) {
    wl[2 * k] = uvec4(unpackDouble2x32(v.x), unpackDouble2x32(v.y));
    wl[2 * k + 1] = uvec4(unpackDouble2x32(v.z), unpackDouble2x32(v.w));
}
real rt_wd(int w) {
    const uvec4 a = wl[w >> 1];
    return packDouble2x32((w & 1) != 0 ? a.zw : a.xy);
}
#define WV(k) rt_wv(k)
#define WV_PUT(k, v) rt_wv_put(k, v)
#define WD(w) rt_wd(w)
#elif defined(ENTRY_rt_render_local)
shared rvec4 wl[RT_WORDS / 4];
#define WV(k) wl[k]
#define WV_PUT(k, v) wl[k] = (v)
#endif
#ifndef WD
#define WD(w) WV((w) >> 2)[(w)&3]
#endif

/* ---- the motion ---- */
#if defined(ENTRY_rt_animate) || defined(ENTRY_rt_render_local)
CO_BUFFER(0, readonly, real, scene)

/* (sin x, cos x) in double, |x| < 2^20 pi/2: x = k pi/2 + r, |r| <= pi/4
 * (pi/2 in three parts, the first two of 33 bits: k times each is exact),
 * then Taylor polynomials in r to r^17 and r^18 (under 1e-19 left out). */
dvec2 rt_sincos(double x) {
    const double k = floor(x * 0.6366197723675814lf + 0.5lf);
    const double r = ((x - k * 1.5707963267341256lf) - k * 6.077100506303966e-11lf) -
                     k * 2.0222662487959506e-21lf;
    const double z = r * r;
    const double s =
        r + r * z *
                (-0.16666666666666666lf +
                 z * (0.008333333333333333lf +
                      z * (-0.0001984126984126984lf +
                           z * (2.7557319223985893e-06lf +
                                z * (-2.505210838544172e-08lf +
                                     z * (1.6059043836821613e-10lf +
                                          z * (-7.647163731819816e-13lf +
                                               z * 2.8114572543455206e-15lf)))))));
    const double c =
        1.0lf +
        z * (-0.5lf +
             z * (0.041666666666666664lf +
                  z * (-0.001388888888888889lf +
                       z * (2.48015873015873e-05lf +
                            z * (-2.755731922398589e-07lf +
                                 z * (2.08767569878681e-09lf +
                                      z * (-1.1470745597729725e-11lf +
                                           z * (4.779477332387385e-14lf +
                                                z * -1.5619206968586225e-16lf))))))));
    const int q = int(k) & 3;
    return q == 0 ? dvec2(s, c) : q == 1 ? dvec2(c, -s) : q == 2 ? dvec2(-s, -c) : dvec2(-c, s);
}

/* Sphere i of the scene at time t as its RT_SW world words: an orbit
 * around (ox, oz) and a bounce above oy, from its own phase. Three vectors,
 * not an array: NVIDIA's OpenGL compiler keeps a double array in float (the
 * double world was float-rounded, 2e-8 off) and reads one at a variable
 * index wrong. w0: centre, r^2; w1: 1/r, colour; w2: reflectivity, 0. */
#if RT_SW != 12 || RT_R2 != 3 || RT_INVR != 4 || RT_COL != 5 || RT_REFL != 8
#error "rt_move: a sphere's world words are not (centre, r^2, 1/r, colour, reflectivity, 0 0 0)"
#endif
void rt_move(int i, real t, out rvec4 w0, out rvec4 w1, out rvec4 w2) {
    const int s = RT_SPHERES + RT_SW * i;
    const real a = RT_FMA(scene[s + RT_OMEGA], t, scene[s + RT_PHASE]); /* one rounding */
    const real r = scene[s + RT_RADIUS];
    const dvec2 sc = rt_sincos(double(a)), sc2 = rt_sincos(double(R(2.0) * a));
    w0 = rvec4(scene[s] + scene[s + RT_ORBIT] * real(sc.y),
               scene[s + 1] + scene[s + RT_BOUNCE] * abs(real(sc2.x)),
               scene[s + 2] + scene[s + RT_ORBIT] * real(sc.x), r * r);
    w1 = rvec4(rt_div(R(1.0), r), scene[s + RT_SCOL], scene[s + RT_SCOL + 1],
               scene[s + RT_SCOL + 2]);
    w2 = rvec4(scene[s + RT_SREFL], R(0.0), R(0.0), R(0.0));
}
#endif

/* ---- the tracer ---- */
#if defined(ENTRY_rt_render) || defined(ENTRY_rt_render_local)
/* a.b summed left to right, as the host's v_dot. */
real dot3(rvec a, rvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
rvec wload(int w) { return rvec(WD(w), WD(w + 1), WD(w + 2)); }

/* RT_HIT(i): t, where o + t d (d unit) enters sphere i if positive, else
 * where it leaves; 0 if it misses.
 * Written out in the loops that use it (no helper with out parameters, no
 * return inside a loop): a strict shader reaches the driver unoptimised,
 * and NVIDIA's took 8% longer with the helper (1080p, `local`: 0.5745
 * against 0.5266 ms; 2026-12-02-h200-p.md). The operations and their order
 * are those of the OpenCL kernel's. */
#define RT_HIT(i)                                                                                 \
    const rvec4 c = WV(RT_SPHERES / 4 + 3 * (i)); /* centre, r^2 */                               \
    const rvec oc = o - c.xyz;                                                                    \
    const real b = RT_FMA(oc.z, d.z, RT_FMA(oc.y, d.y, oc.x * d.x));                              \
    const real disc = RT_FMA(b, b, -(RT_FMA(oc.z, oc.z, RT_FMA(oc.y, oc.y, oc.x * oc.x)) - c.w)); \
    real t = R(0.0);                                                                              \
    if (!(disc <= R(0.0))) {                                                                      \
        const real q = rt_sqrt(disc);                                                             \
        const real t0 = -b - q, t1 = -b + q;                                                      \
        t = t0 > R(0.0) ? t0 : t1;                                                                \
    }

/* The sphere loops run to RT_NMAX, a constant, when n is RT_NMAX (the
 * host compiles the shader per sphere count: always, but for an empty
 * scene), four spheres a step: constant offsets into the world, four
 * independent tests in flight, one branch per four in rt_blocked.
 * Otherwise one at a time to n. */
#define RT_NEAREST(i)                 \
    {                                 \
        RT_HIT(i)                     \
        if (t > R(0.0) && t < best) { \
            best = t;                 \
            id = i;                   \
        }                             \
    }
#define RT_ANY(i)                               \
    {                                           \
        RT_HIT(i)                               \
        if (t > R(0.0) && t < tmax) hit = true; \
    }
#define RT_N4 (RT_NMAX & ~3)
/* The loop to RT_NMAX: TEST(i) four spheres a step until DONE. */
#define RT_ALL(TEST, DONE)                                       \
    {                                                            \
        for (int i = 0; i < RT_N4; i += 4) {                     \
            TEST(i)                                              \
            TEST(i + 1)                                          \
            TEST(i + 2)                                          \
            TEST(i + 3)                                          \
            if (DONE) break;                                     \
        }                                                        \
        for (int i = RT_N4; i < RT_NMAX && !(DONE); i++) TEST(i) \
    }

/* The nearest sphere hit along o + t d, t in (0, tbest): its index, or -1. */
int rt_nearest(int n, rvec o, rvec d, real tbest_in, out real tbest_out) {
    int id = -1;
    real best = tbest_in;
    if (n == RT_NMAX)
        RT_ALL(RT_NEAREST, false)
    else
        for (int i = 0; i < n; i++) RT_NEAREST(i)
    tbest_out = best;
    return id;
}

/* Any sphere between o and o + tmax d: the loop ends at the first four
 * that hold one. */
bool rt_blocked(int n, rvec o, rvec d, real tmax) {
    bool hit = false;
    if (n == RT_NMAX)
        RT_ALL(RT_ANY, hit)
    else
        for (int i = 0; i < n && !hit; i++) RT_ANY(i)
    return hit;
}

real rt_pow32(real x) {
    x *= x, x *= x, x *= x, x *= x;
    return x * x;
}

uint rt_byte(real c) { return uint(min(max(c, R(0.0)), R(1.0)) * R(255.0) + R(0.5)); }

/* One pixel: the camera ray, then up to `depth` mirror bounces, each hit
 * shaded (ambient, diffuse and specular per unshadowed light); RGBA8, R in
 * the low byte. */
uint rt_pixel(int n, int nlights, int width, int height, int depth, int px, int py) {
    const real u = rt_div(R(2.0) * (real(px) + R(0.5)), real(width)) - R(1.0);
    const real v = R(1.0) - rt_div(R(2.0) * (real(py) + R(0.5)), real(height));
    rvec d = wload(RT_FWD) + u * wload(RT_RIGHT) + v * wload(RT_UP);
    d = d * rt_div(R(1.0), rt_sqrt(dot3(d, d)));
    rvec o = wload(RT_EYE);
    const real eps = WD(RT_EPS), plane_y = WD(RT_PLANE_Y), cell = WD(RT_CELL);
    const real amb = WD(RT_AMBIENT), ks = WD(RT_SPEC);
    rvec col = rvec(R(0.0));
    real weight = R(1.0);
    for (int bounce = 0;; bounce++) {
        real t;
        const int id = rt_nearest(n, o, d, real(RT_FAR), t);
        bool plane = false;
        if (d.y != R(0.0)) {
            const real tp = rt_div(plane_y - o.y, d.y);
            if (tp > R(0.0) && tp < t) t = tp, plane = true;
        }
        if (!plane && id < 0) { /* the sky: a gradient over elevation */
            const real up = max(d.y, R(0.0));
            col += weight * (rvec(R(0.55), R(0.70), R(0.95)) - rvec(R(0.35), R(0.30), R(0.15)) * up);
            break;
        }
        const rvec p = o + t * d;
        rvec nrm, base;
        real refl;
        if (plane) {
            nrm = rvec(R(0.0), R(1.0), R(0.0));
            /* Cell parity in real arithmetic: far cells overflow an int. */
            const real c = floor(p.x * cell) + floor(p.z * cell);
            base = rvec(c - R(2.0) * floor(c * R(0.5)) != R(0.0) ? R(0.25) : R(0.9));
            refl = WD(RT_PLANE_REFL);
        } else {
            const int s = RT_SPHERES + RT_SW * id;
            nrm = (p - wload(s)) * WD(s + RT_INVR);
            base = wload(s + RT_COL);
            refl = WD(s + RT_REFL);
        }
        if (dot3(nrm, d) > R(0.0)) nrm = nrm * R(-1.0); /* seen from inside */
        /* Secondary rays leave from just off the surface: no self-hits. */
        const rvec q = p + eps * nrm;
        rvec lit = amb * base, spec = rvec(R(0.0));
        const rvec mirror = d + (R(-2.0) * dot3(d, nrm)) * nrm;
        for (int l = 0; l < nlights; l++) {
            const int L = RT_HEADER + RT_LW * l;
            rvec to = wload(L) - q;
            const real dist = rt_sqrt(dot3(to, to));
            to = to * rt_div(R(1.0), dist);
            const real ndl = dot3(nrm, to);
            if (ndl <= R(0.0)) continue;
            if (rt_blocked(n, q, to, dist)) continue;
            const rvec light = wload(L + 3);
            lit += ndl * base * light;
            /* Phong: the light's mirror direction against the view. */
            const real rv = dot3(mirror, to);
            if (rv > R(0.0)) spec += (ks * rt_pow32(rv)) * light;
        }
        const real keep = weight * (R(1.0) - refl);
        col += keep * lit + weight * spec;
        if (bounce >= depth || refl <= R(0.0)) break;
        weight *= refl;
        o = q;
        d = mirror;
    }
    return rt_byte(col.x) | rt_byte(col.y) << 8 | rt_byte(col.z) << 16 | 0xFF000000u;
}
#endif

/* ---- entry points ---- */
/* Vector v into the words at..at+3 of a `real` buffer. */
#define RT_PUT4(buf, at, v) \
    buf[at] = (v).x, buf[(at) + 1] = (v).y, buf[(at) + 2] = (v).z, buf[(at) + 3] = (v).w
#if defined(ENTRY_rt_animate)
/* The world at time t: header and lights copied, spheres moved; one
 * invocation per word of the header and lights, or per sphere. Arguments
 * (scene, world, int n, float t). */
CO_ARGS uniform Args { int n; float t; } args;
CO_BUFFER(1, writeonly, real, world)
void main() {
    const int i = int(gl_GlobalInvocationID.x);
    if (i < RT_SPHERES) world[i] = scene[i];
    if (i < args.n) {
        rvec4 w0, w1, w2;
        rt_move(i, real(args.t), w0, w1, w2);
        const int w = RT_SPHERES + RT_SW * i;
        RT_PUT4(world, w, w0);
        RT_PUT4(world, w + 4, w1);
        RT_PUT4(world, w + 8, w2);
    }
}

#elif defined(ENTRY_rt_render)
/* One pixel per invocation, over a band of `rows` rows of the frame from
 * row row0 (the whole frame: 0 and height); image holds the band's rows.
 * Arguments (world, int n, nlights, width, height, depth, frame, row0,
 * rows, image). */
CO_ARGS uniform Args {
    int n, nlights, width, height, depth, frame, row0, rows;
} args;
CO_BUFFER(1, writeonly, uint, image)
void main() {
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= args.width || y >= args.rows) return;
    image[(uint(args.frame) * uint(args.rows) + uint(y)) * uint(args.width) + uint(x)] =
        rt_pixel(args.n, args.nlights, args.width, args.height, args.depth, x, args.row0 + y);
}

#elif defined(ENTRY_rt_render_local)
/* The seed's step: the work-group animates the spheres into shared memory
 * (each invocation moves some), then traces from there; group (0, 0) also
 * writes its copy out. Arguments (scene, world_out, int n, nlights, width,
 * height, depth, frame, row0, rows, float t, image): a band as rt_render's. */
CO_ARGS uniform Args {
    int n, nlights, width, height, depth, frame, row0, rows;
    float t;
} args;
CO_BUFFER(1, writeonly, real, world_out)
CO_BUFFER(2, writeonly, uint, image)
void main() {
    const int lid = int(gl_LocalInvocationIndex);
    const int lsize = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y), n = args.n;
    /* Whole vectors into shared memory (the header and a sphere are whole
     * vectors): NVIDIA's OpenGL compiler cannot write a double vector's
     * component at a variable index (C9999, __setVectorIndex). */
    for (int v = lid; v < RT_SPHERES / 4; v += lsize)
        WV_PUT(v, rvec4(scene[4 * v], scene[4 * v + 1], scene[4 * v + 2], scene[4 * v + 3]));
    for (int i = lid; i < n; i += lsize) {
        const int v = (RT_SPHERES + RT_SW * i) / 4;
        rvec4 w0, w1, w2;
        rt_move(i, real(args.t), w0, w1, w2);
        WV_PUT(v, w0);
        WV_PUT(v + 1, w1);
        WV_PUT(v + 2, w2);
    }
    barrier();
    if (gl_WorkGroupID.x == 0 && gl_WorkGroupID.y == 0)
        for (int v = lid; v < (RT_SPHERES + RT_SW * n) / 4; v += lsize) {
            const rvec4 q = WV(v);
            RT_PUT4(world_out, 4 * v, q);
        }
    const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= args.width || y >= args.rows) return;
    image[(uint(args.frame) * uint(args.rows) + uint(y)) * uint(args.width) + uint(x)] =
        rt_pixel(n, args.nlights, args.width, args.height, args.depth, x, args.row0 + y);
}
#endif
