/* Workload raytrace: a real-time ray tracer of moving spheres (seed 003):
 * checkered ground plane, point lights, Phong shading, hard shadows,
 * iterative mirror reflections, pinhole camera; --frames F renders an
 * animation (scene time advancing by RT_DT per frame), every frame its own
 * launches, all inside one timed run.
 *
 * One tracer: kernels/raytrace.cl, #included here as host C (once per
 * precision) for the c and omp variants. The device variants differ only in
 * where the animated scene lives while tracing: global, constant or local
 * memory (the seed moved its spheres from constant to shared memory to
 * animate them).
 *
 * --first-row R --rows N render a band of the frame, rows R to R + N - 1 (the
 * camera is the whole frame's): the MPI driver splits a frame among ranks
 * this way (tools/mpi/). Images, reference and model are the band's.
 *
 * Verification: each frame against the `c` image of the same scene, time
 * and precision (computed once per problem): PSNR >= 40 dB, or at most
 * 0.1% of pixels (at least one) off by more than 2/255; the animated
 * spheres against the host's; and the image must not be trivial (luminance spread, and a pixel
 * in a sphere's shadow darker than a lit neighbour). Model: rays traced
 * (primary, shadow, reflection), counted by the host reference pass. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/glsl/glsl.h"
#include "core/image.h"
#include "core/workload.h"

/* The host counts the rays it traces and their ray-sphere tests; each
 * thread its own tally. */
static _Thread_local unsigned long long rt_rays, rt_tests;
#define RT_COUNT(n) (rt_rays += (unsigned long long)(n))
#define RT_TESTS(n) (rt_tests += (unsigned long long)(n))
/* Operations of one ray-sphere test in the model: 3 subtractions, two dot
 * products (5 each), b^2 - c and r^2 (1 each, +1); hits (a square root)
 * and shading are left out. */
#define TEST_FLOPS 16.0

#define CO_HOST_C 1
#include "dialect.h"
#define RT_DOUBLE 0
#define RT_FN(name) name##_f
#include "raytrace.cl"
#undef RT_DOUBLE
#undef RT_FN
#define RT_DOUBLE 1
#define RT_FN(name) name##_d
#include "raytrace.cl"
#undef RT_DOUBLE
#undef RT_FN
#undef real

#define RT_DT (1.0 / 30.0) /* scene seconds between frames */
#define RT_MAX_SIZE 32768
#define RT_MAX_SPHERES 4096
#define CONSTANT_BYTES 65536 /* OpenCL's guaranteed minimum of constant memory */

typedef struct rt_state {
    size_t width, height, frames;
    size_t row0, rows; /* the band of the frame rendered: rows row0 .. row0 + rows - 1 */
    int nspheres, nlights, depth, inside;
    double t0;
    bool dbl;
    size_t rsize, words; /* sizeof(real); words of the scene and of the world */
    void *scene, *world; /* reals */
    uint32_t *image;     /* frames x rows x width, RGBA8 */
    /* The reference, made by fill (its counts are the model): c images and
     * world of the same scene, and the non-triviality probe; ref_status says
     * whether it could be made. */
    co_status ref_status;
    uint32_t *ref;
    void *ref_world;
    double rays, tests; /* per run (all frames) */
    double fd_psnr;     /* float vs double, last frame (float problems) */
    bool probe;         /* a shadow pixel and its lit neighbour were found */
    size_t shadow_px, lit_px;
    char degenerate[16]; /* why non-triviality is not checked ("" if it is): no
                           * spheres, cam inside, tiny image, no shadow (in view) */
} rt_state;

static double frame_time(const rt_state *s, size_t f) { return s->t0 + RT_DT * (double)f; }

static const co_option_def options[] = {
    {"width", "640", "image width in pixels"},
    {"height", "360", "image height in pixels"},
    {"spheres", "64", "moving spheres in the seeded scene (0 or more)"},
    {"lights", "2", "point lights (1..8)"},
    {"depth", "4", "mirror reflections per pixel at most (0: none)"},
    {"time", "0", "scene time of the first frame, seconds"},
    {"frames", "1", "frames per run, time advancing 1/30 s each"},
    {"precision", "float", "float|double"},
    {"camera", "outside", "outside|inside (the camera inside sphere 0)"},
    {"output", NULL, "write the last frame as PNG"},
    {"out-dir", NULL, "write every frame as DIR/frame_NNNN.png"},
    {"gif", NULL, "write every frame as one animated GIF (30 frames/s, a 252-colour cube)"},
    {"first-row", "0", "the first row of the band rendered (a part of the frame)"},
    {"rows", NULL, "rows of the band rendered (default: to the frame's last row)"},
};

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    size_t width, height, frames, row0, rows;
    int spheres = 0, lights = 0, depth = 0, prec = 0, inside = 0;
    double t0 = 0;
    co_status st = co_opt_size(opts, nopts, "width", 640, &width);
    if (!st) st = co_opt_size(opts, nopts, "height", 360, &height);
    if (!st) st = co_opt_size(opts, nopts, "frames", 1, &frames);
    int first = 0;
    if (!st) st = co_opt_int(opts, nopts, "first-row", 0, 0, RT_MAX_SIZE, &first);
    row0 = (size_t)first;
    if (!st) st = co_opt_size(opts, nopts, "rows", row0 < height ? height - row0 : 1, &rows);
    if (!st) st = co_opt_int(opts, nopts, "spheres", 64, 0, RT_MAX_SPHERES, &spheres);
    if (!st) st = co_opt_int(opts, nopts, "lights", 2, 1, RT_MAX_LIGHTS, &lights);
    if (!st) st = co_opt_int(opts, nopts, "depth", 4, 0, 64, &depth);
    if (!st) st = co_opt_real(opts, nopts, "time", 0, -1e5, 1e5, &t0);
    if (!st) st = co_opt_choice(opts, nopts, "precision", "float|double", 0, &prec);
    if (!st) st = co_opt_choice(opts, nopts, "camera", "outside|inside", 0, &inside);
    if (st) return st;
    if (width > RT_MAX_SIZE || height > RT_MAX_SIZE)
        return co_fail(CO_ERR_INVALID, "raytrace %zux%zu: width and height are at most %d", width,
                       height, RT_MAX_SIZE);
    if (frames > 100000) return co_fail(CO_ERR_INVALID, "--frames %zu: at most 100000", frames);
    if (row0 >= height || rows > height - row0)
        return co_fail(CO_ERR_INVALID,
                       "raytrace --first-row %zu --rows %zu: the band must lie in the frame's %zu "
                       "rows",
                       row0, rows, height);
    if (inside && spheres < 1)
        return co_fail(CO_ERR_INVALID, "--camera inside needs at least one sphere (--spheres 0)");
    rt_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    *s = (rt_state){.width = width,
                    .height = height,
                    .row0 = row0,
                    .rows = rows,
                    .frames = frames,
                    .nspheres = spheres,
                    .nlights = lights,
                    .depth = depth,
                    .inside = inside,
                    .t0 = t0,
                    .dbl = prec == 1,
                    .rsize = prec == 1 ? sizeof(double) : sizeof(float),
                    .words = RT_SPHERES + RT_SW * (size_t)spheres};
    const size_t pixels = width * rows;
    st = co_problem_array(p, "scene", s->words * s->rsize, false, &s->scene);
    if (!st) st = co_problem_array(p, "world", s->words * s->rsize, true, &s->world);
    if (!st) st = co_problem_array(p, "image", frames * pixels * 4, true, (void **)&s->image);
    if (st) return st;
    /* Counted with the arrays: the reference fill() always makes (make_reference:
     * its images, world and double scene, the float-vs-double frame) and the PNG. */
    p->host_extra_bytes = (frames + 1) * pixels * 4 + s->words * (s->rsize + 2 * sizeof(double)) +
                          CO_PNG_WRITE_BYTES(pixels * 4) +
                          (co_opt(opts, nopts, "gif") ? frames * pixels : 0); /* --gif's indices */
    co_problem_size(p, "width", width);
    co_problem_size(p, "height", height);
    if (rows != height) { /* a band: said only where it is one */
        co_problem_size(p, "first-row", row0);
        co_problem_size(p, "rows", rows);
    }
    co_problem_size(p, "spheres", (size_t)spheres);
    co_problem_size(p, "lights", (size_t)lights);
    co_problem_size(p, "depth", (size_t)depth);
    co_problem_size(p, "frames", frames);
    co_problem_size(p, "precision", s->dbl ? 64 : 32); /* bits: sizes are numbers in JSON */
    /* Bytes: the scene read, the images written. Rays and operations are
     * counted by the reference pass, in fill. */
    p->bytes = (double)(s->words * s->rsize) + 4.0 * (double)(frames * pixels);
    return CO_OK;
}

/* ---- the scene ---- */

static void put(const rt_state *s, size_t at, double v) {
    if (s->dbl)
        ((double *)s->scene)[at] = v;
    else
        ((float *)s->scene)[at] = (float)v;
}

static double get(const rt_state *s, const void *words, size_t at) {
    return s->dbl ? ((const double *)words)[at] : (double)((const float *)words)[at];
}

static void set3(const rt_state *s, size_t at, double x, double y, double z) {
    put(s, at, x), put(s, at + 1, y), put(s, at + 2, z);
}

/* The seeded default scene: a camera looking at a field of spheres that
 * orbit and bounce above a checkered plane, lights in an arc above. */
static void make_scene(rt_state *s, uint64_t seed) {
    co_rng r = {seed};
    memset(s->scene, 0, s->words * s->rsize);
    const double eye[3] = {0, 6, -24}, at[3] = {0, 1, 2}, fov = 50.0 * 3.14159265358979 / 180;
    double f[3] = {at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]};
    const double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    f[0] /= fl, f[1] /= fl, f[2] /= fl;
    /* right = up x f with up = +y; up' = f x right. */
    double rt[3] = {f[2], 0, -f[0]};
    const double rl = sqrt(rt[0] * rt[0] + rt[2] * rt[2]);
    rt[0] /= rl, rt[2] /= rl;
    const double up[3] = {f[1] * rt[2] - f[2] * rt[1], f[2] * rt[0] - f[0] * rt[2],
                          f[0] * rt[1] - f[1] * rt[0]};
    const double th = tan(fov / 2), aspect = (double)s->width / (double)s->height;
    set3(s, RT_EYE, eye[0], eye[1], eye[2]);
    set3(s, RT_FWD, f[0], f[1], f[2]);
    set3(s, RT_RIGHT, rt[0] * th * aspect, rt[1] * th * aspect, rt[2] * th * aspect);
    set3(s, RT_UP, up[0] * th, up[1] * th, up[2] * th);
    put(s, RT_AMBIENT, 0.12);
    put(s, RT_PLANE_Y, 0);
    put(s, RT_CELL, 1.0 / 2.0);
    put(s, RT_EPS, 1e-4 * 40.0); /* the scene spans about 40 units */
    put(s, RT_PLANE_REFL, 0.2);
    put(s, RT_SPEC, 0.5);
    const double power = 0.95 / sqrt((double)s->nlights);
    for (int l = 0; l < s->nlights; l++) {
        const double a = 3.14159265358979 * (0.2 + 0.6 * (l + 0.5) / s->nlights);
        const size_t b = RT_HEADER + RT_LW * (size_t)l;
        set3(s, b, 18 * cos(a) + co_rng_float(&r, -2, 2), co_rng_float(&r, 12, 18),
             -6 + 10 * sin(a) * co_rng_float(&r, -1, 1));
        set3(s, b + 3, power * co_rng_float(&r, 0.9f, 1.1f), power * co_rng_float(&r, 0.9f, 1.1f),
             power * co_rng_float(&r, 0.9f, 1.1f));
    }
    for (int i = 0; i < s->nspheres; i++) {
        const size_t b = RT_SPHERES + RT_SW * (size_t)i;
        const double rad = co_rng_float(&r, 0.4f, 1.4f), bounce = co_rng_float(&r, 0.0f, 1.5f);
        set3(s, b, co_rng_float(&r, -12, 12), rad, co_rng_float(&r, -6, 16));
        put(s, b + RT_RADIUS, rad);
        put(s, b + RT_ORBIT, co_rng_float(&r, 0.0f, 2.5f));
        put(s, b + RT_OMEGA, co_rng_float(&r, -1.5f, 1.5f));
        put(s, b + RT_PHASE, co_rng_float(&r, 0.0f, 6.2831853f));
        put(s, b + RT_BOUNCE, bounce);
        set3(s, b + RT_SCOL, co_rng_float(&r, 0.15f, 1), co_rng_float(&r, 0.15f, 1),
             co_rng_float(&r, 0.15f, 1));
        const bool mirror = co_rng_float(&r, 0, 1) < 0.4f;
        put(s, b + RT_SREFL, mirror ? co_rng_float(&r, 0.3f, 0.8f) : 0.0);
    }
    if (s->inside) { /* sphere 0 holds the camera, still, half mirror */
        set3(s, RT_SPHERES, eye[0], eye[1], eye[2]);
        put(s, RT_SPHERES + RT_RADIUS, 2.0);
        put(s, RT_SPHERES + RT_ORBIT, 0);
        put(s, RT_SPHERES + RT_BOUNCE, 0);
        put(s, RT_SPHERES + RT_SREFL, 0.5);
    }
}

/* ---- the host tracer: the kernels' own code, one work-item per call ---- */

typedef struct rt_counts {
    unsigned long long rays, tests;
} rt_counts;

/* World and image of one frame at time t, on all cores or on one. */
static rt_counts host_frame(const rt_state *s, double t, void *world, uint32_t *image,
                            bool parallel) {
    const int n = s->nspheres, w = (int)s->width, h = (int)s->height;
    const int row0 = (int)s->row0, rows = (int)s->rows;
    const size_t items = (size_t)(n > RT_SPHERES ? n : RT_SPHERES);
    for (size_t i = 0; i < items; i++) {
        co_host_id[0] = i;
        if (s->dbl)
            rt_animate_d(s->scene, world, n, (float)t);
        else
            rt_animate_f(s->scene, world, n, (float)t);
    }
    unsigned long long rays = 0, tests = 0;
#pragma omp parallel if (parallel) reduction(+ : rays, tests)
    {
        rt_rays = rt_tests = 0;
#pragma omp for schedule(dynamic, 1)
        for (int y = 0; y < rows; y++) {
            co_host_id[1] = (size_t)y;
            for (int x = 0; x < w; x++) {
                co_host_id[0] = (size_t)x;
                if (s->dbl)
                    rt_render_d(world, n, s->nlights, w, h, s->depth, 0, row0, rows, image);
                else
                    rt_render_f(world, n, s->nlights, w, h, s->depth, 0, row0, rows, image);
            }
        }
        rays += rt_rays;
        tests += rt_tests;
    }
    return (rt_counts){rays, tests};
}

/* Every frame, reporting each to job (NULL: none); *stopped if it asked to stop. */
static rt_counts host_run(const rt_state *s, void *world, uint32_t *images, bool parallel,
                          co_job *job, bool *stopped) {
    rt_counts sum = {0, 0};
    *stopped = false;
    for (size_t f = 0; f < s->frames && !*stopped; f++) {
        const rt_counts c =
            host_frame(s, frame_time(s, f), world, images + f * s->width * s->rows, parallel);
        sum.rays += c.rays, sum.tests += c.tests;
        *stopped = co_job_progress(job, "frame", (double)f + 1, (double)s->frames);
    }
    return sum;
}

static co_status run_host(co_job *job, bool parallel) {
    rt_state *s = job->prob->state;
    bool stopped;
    host_run(s, s->world, s->image, parallel, job, &stopped);
    return stopped ? co_job_stopped(job) : CO_OK;
}

static co_status run_c(co_job *job) { return run_host(job, false); }
static co_status run_omp(co_job *job) { return run_host(job, true); }

/* ---- device variants ---- */

static co_status build(co_job *job, int space, const char *entry, co_kernel **out) {
    const rt_state *s = job->prob->state;
    char extra[128], defines[288];
    /* CO_FP_STRICT: pixels on an edge flip between hit and miss when the
     * device fuses a*b+c and the host does not (2% of a 64x48 image). The
     * shaders are built for the driver's fma() (RT_FMA_ONCE, raytrace.comp). */
    char fma_once[24] = "";
    if (co_glsl_device(job->dev))
        snprintf(fma_once, sizeof fma_once, " -DRT_FMA_ONCE=%d", co_glsl_fma_once(job->dev));
    snprintf(extra, sizeof extra, "-DCO_FP_STRICT -DRT_DOUBLE=%d -DRT_SPACE=%d -DRT_NMAX=%d%s",
             s->dbl ? 1 : 0, space, s->nspheres > 0 ? s->nspheres : 1, fma_once);
    co_job_defines(job, extra, defines, sizeof defines);
    return co_job_kernel(job, "raytrace", entry, defines, out);
}

static void render_shape(const co_job *job, const rt_state *s, size_t global[3], size_t local[3]) {
    local[0] = job->local[0] ? job->local[0] : 16;
    local[1] = job->local[1] ? job->local[1] : 8;
    local[2] = 1;
    global[0] = s->width, global[1] = s->rows, global[2] = 1;
}

/* Global or constant memory: per frame, rt_animate writes the world, then
 * rt_render traces from it. */
static co_status run_separate(co_job *job, int space) {
    rt_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    size_t global[3], local[3];
    render_shape(job, s, global, local);
    const size_t world_bytes = s->words * s->rsize;
    if (space == 1 && world_bytes > CONSTANT_BYTES)
        return co_fail(CO_ERR_LIMIT,
                       "variant 'constant': the scene of %d spheres is %zu bytes, over the "
                       "%d bytes of constant memory every OpenCL device has (and CUDA's "
                       "limit); use fewer spheres or --variant global",
                       s->nspheres, world_bytes, CONSTANT_BYTES);
    /* CUDA's __constant arguments are global memory: the world is copied
     * into the program's constant-memory array rt_world after each animate. */
    const co_backend *be = job->dev->backend;
    const bool cuda_constant = space == 1 && co_device_on(job->dev) == CO_ON_CUDA;
    if (cuda_constant && !be->constant_from_buffer)
        return co_fail(CO_ERR_UNSUPPORTED, "variant 'constant': %s cannot fill constant memory",
                       job->dev->info.spec);
    co_kernel *animate, *render;
    co_status st = co_job_check(job, 2, local, 0);
    if (!st) st = build(job, space, "rt_animate", &animate);
    if (!st) st = build(job, space, "rt_render", &render);
    const size_t agl[3] = {(size_t)(s->nspheres > RT_SPHERES ? s->nspheres : RT_SPHERES), 1, 1};
    const size_t alo[3] = {64, 1, 1};
    for (size_t f = 0; !st && f < s->frames; f++) {
        const co_arg aargs[] = {CO_BUF(arr[0].buf), CO_BUF(arr[1].buf), CO_INT(s->nspheres),
                                CO_FLOAT(frame_time(s, f))};
        const co_arg rargs[] = {CO_BUF(arr[1].buf), CO_INT(s->nspheres), CO_INT(s->nlights),
                                CO_INT(s->width),   CO_INT(s->height),   CO_INT(s->depth),
                                CO_INT(f),          CO_INT(s->row0),     CO_INT(s->rows),
                                CO_BUF(arr[2].buf)};
        st = co_job_launch(job, animate, 1, agl, alo, 0, 4, aargs);
        if (!st && cuda_constant) {
            double ms = 0;
            st = be->constant_from_buffer(job->dev, render, "rt_world", arr[1].buf, world_bytes,
                                          &ms);
            co_job_add_time(job, ms);
        }
        if (!st) st = co_job_launch(job, render, 2, global, local, 0, 10, rargs);
        if (!st && co_job_progress(job, "frame", (double)f + 1, (double)s->frames))
            st = co_job_stopped(job);
    }
    return st;
}

static co_status run_global(co_job *job) { return run_separate(job, 0); }
static co_status run_constant(co_job *job) { return run_separate(job, 1); }

/* Local memory: each work-group animates the spheres into its own copy. */
static co_status run_local(co_job *job) {
    rt_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    size_t global[3], local[3];
    render_shape(job, s, global, local);
    const size_t local_mem =
        (RT_SPHERES + RT_SW * (size_t)(s->nspheres > 0 ? s->nspheres : 1)) * s->rsize;
    co_kernel *render;
    co_status st = co_job_check(job, 2, local, local_mem);
    if (!st) st = build(job, 2, "rt_render_local", &render);
    for (size_t f = 0; !st && f < s->frames; f++) {
        const co_arg args[] = {
            CO_BUF(arr[0].buf), CO_BUF(arr[1].buf), CO_INT(s->nspheres),        CO_INT(s->nlights),
            CO_INT(s->width),   CO_INT(s->height),  CO_INT(s->depth),           CO_INT(f),
            CO_INT(s->row0),    CO_INT(s->rows),    CO_FLOAT(frame_time(s, f)), CO_BUF(arr[2].buf)};
        st = co_job_launch(job, render, 2, global, local, local_mem, 12, args);
        if (!st && co_job_progress(job, "frame", (double)f + 1, (double)s->frames))
            st = co_job_stopped(job);
    }
    return st;
}

/* ---- reference and verification ---- */

static double psnr_of(double mse) { return mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY; }

/* PSNR over RGB and the fraction of pixels with a channel off by > 2. */
static void compare(const uint32_t *a, const uint32_t *b, size_t pixels, double *psnr,
                    double *off) {
    double se = 0;
    size_t bad = 0;
    for (size_t i = 0; i < pixels; i++) {
        int worst = 0;
        for (int c = 0; c < 4; c++) { /* alpha too: it must be 255 */
            const int d = (int)((a[i] >> (8 * c)) & 255) - (int)((b[i] >> (8 * c)) & 255);
            if (c < 3) se += (double)d * d;
            worst = abs(d) > worst ? abs(d) : worst;
        }
        bad += worst > 2;
    }
    *psnr = psnr_of(se / (3.0 * (double)pixels));
    *off = (double)bad / (double)pixels;
}

static double luminance(uint32_t px) {
    return 0.2126 * (px & 255) + 0.7152 * ((px >> 8) & 255) + 0.0722 * ((px >> 16) & 255);
}

/* The primary ray of pixel (x, y) in a double copy of the world: where it
 * first meets the plane, if nothing is in front of it. */
static bool ground_hit(const double *w, int n, const rt_state *s, int x, int y, vec_d *hit) {
    const double u = 2.0 * (x + 0.5) / (double)s->width - 1;
    const double v = 1 - 2.0 * (y + 0.5) / (double)s->height;
    vec_d d =
        v_madd_d(v_madd_d(v_load_d(w + RT_FWD), u, v_load_d(w + RT_RIGHT)), v, v_load_d(w + RT_UP));
    d = v_mul_d(d, 1.0 / sqrt(v_dot_d(d, d)));
    const vec_d o = v_load_d(w + RT_EYE);
    if (d.y >= 0) return false;
    double t = (w[RT_PLANE_Y] - o.y) / d.y;
    if (t > 200) return false; /* near the horizon the checker aliases */
    double tt = t;
    if (rt_nearest_d(w, n, o, d, &tt) >= 0) return false;
    *hit = v_madd_d(o, t, d);
    return true;
}

/* Whether light l reaches a ground point. */
static bool lit_by(const double *w, int n, vec_d p, int l) {
    const vec_d q = v_madd_d(p, w[RT_EPS], v3_d(0, 1, 0));
    vec_d to = v_sub_d(v_load_d(w + RT_HEADER + RT_LW * l), q);
    const double dist = sqrt(v_dot_d(to, to));
    return !rt_blocked_d(w, n, q, v_mul_d(to, 1.0 / dist), dist);
}

static int cell_parity(const double *w, vec_d p) {
    const double c = floor(p.x * w[RT_CELL]) + floor(p.z * w[RT_CELL]);
    return c - 2 * floor(c / 2) != 0;
}

/* A ground pixel in the shadow of a sphere (from light 0, found through the
 * light and the sphere's centre), and a pixel near it on the same checker
 * colour that every light reaches. */
static bool find_probe(rt_state *s, const double *w) {
    const int n = s->nspheres, W = (int)s->width, H = (int)s->height;
    const int y0 = (int)s->row0, y1 = (int)(s->row0 + s->rows); /* in the band */
    const vec_d L = v_load_d(w + RT_HEADER), eye = v_load_d(w + RT_EYE);
    const vec_d fwd = v_load_d(w + RT_FWD), rt = v_load_d(w + RT_RIGHT), up = v_load_d(w + RT_UP);
    for (int k = 0; k < n; k++) {
        const vec_d c = v_load_d(w + RT_SPHERES + RT_SW * k), dir = v_sub_d(c, L);
        if (dir.y >= 0) continue;
        const vec_d P = v_madd_d(L, (w[RT_PLANE_Y] - L.y) / dir.y, dir), rel = v_sub_d(P, eye);
        const double z = v_dot_d(rel, fwd);
        if (z <= 0) continue;
        const double u = v_dot_d(rel, rt) / (z * v_dot_d(rt, rt));
        const double v = v_dot_d(rel, up) / (z * v_dot_d(up, up));
        const int x = (int)floor((u + 1) / 2 * W), y = (int)floor((1 - v) / 2 * H);
        vec_d hs, hl;
        if (x < 0 || y < y0 || x >= W || y >= y1 || !ground_hit(w, n, s, x, y, &hs)) continue;
        if (lit_by(w, n, hs, 0)) continue;
        for (int r = 2; r < 64; r++)
            for (int j = 0; j < 8 * r; j++) { /* a ring of candidates */
                const double a = 6.2831853 * j / (8 * r);
                const int lx = x + (int)lround(r * cos(a)), ly = y + (int)lround(r * sin(a));
                if (lx < 0 || ly < y0 || lx >= W || ly >= y1 || !ground_hit(w, n, s, lx, ly, &hl))
                    continue;
                if (cell_parity(w, hl) != cell_parity(w, hs)) continue;
                bool all = true;
                for (int l = 0; l < s->nlights && all; l++) all = lit_by(w, n, hl, l);
                if (!all) continue;
                s->shadow_px = (size_t)(y - (int)s->row0) * s->width + (size_t)x;
                s->lit_px = (size_t)(ly - (int)s->row0) * s->width + (size_t)lx;
                return true;
            }
    }
    return false;
}

static co_status make_reference(rt_state *s, co_job *job) {
    const size_t pixels = s->width * s->rows, wb = s->words * s->rsize;
    free(s->ref), free(s->ref_world);
    s->ref = malloc(s->frames * pixels * 4);
    s->ref_world = malloc(wb);
    double *wd = malloc(s->words * sizeof *wd);
    if (!s->ref || !s->ref_world || !wd) {
        free(wd);
        return co_fail(CO_ERR_NOMEM, "out of host memory for the raytrace reference");
    }
    bool stopped;
    const rt_counts counts = host_run(s, s->ref_world, s->ref, true, job, &stopped);
    if (stopped) {
        free(wd);
        return co_job_stopped(job);
    }
    s->rays = (double)counts.rays;
    s->tests = (double)counts.tests;
    for (size_t i = 0; i < s->words; i++) wd[i] = get(s, s->ref_world, i);
    s->degenerate[0] = 0;
    s->probe = false;
    if (s->nspheres == 0)
        snprintf(s->degenerate, sizeof s->degenerate, "no spheres");
    else if (s->inside)
        snprintf(s->degenerate, sizeof s->degenerate, "cam inside");
    else if (pixels < 64 * 64)
        snprintf(s->degenerate, sizeof s->degenerate, "tiny image");
    else if (!(s->probe = find_probe(s, wd)))
        snprintf(s->degenerate, sizeof s->degenerate, "no shadow");
    /* The seed's noise: the float image against the double one. */
    s->fd_psnr = NAN;
    if (!s->dbl) {
        rt_state d = *s;
        d.dbl = true, d.rsize = sizeof(double), d.frames = 1;
        d.t0 = frame_time(s, s->frames - 1);
        double *dscene = malloc(s->words * sizeof *dscene);
        uint32_t *dimg = malloc(pixels * 4);
        if (dscene && dimg) {
            for (size_t i = 0; i < s->words; i++) dscene[i] = get(s, s->scene, i);
            d.scene = dscene;
            host_frame(&d, d.t0, wd, dimg, true);
            double off;
            compare(s->ref + (s->frames - 1) * pixels, dimg, pixels, &s->fd_psnr, &off);
        }
        free(dscene), free(dimg);
    }
    free(wd);
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    rt_state *s = p->state;
    make_scene(s, seed);
    /* The model's counts come from the reference pass: rays traced, and
     * the operations of their ray-sphere tests. */
    s->ref_status = make_reference(s, p->job);
    if (s->ref_status == CO_OK) {
        co_problem_rate(p, "frames", (double)s->frames);
        co_problem_rate(p, "Mpixels", (double)s->frames * s->width * s->rows * 1e-6);
        co_problem_rate(p, "rays", s->rays);
        p->flops = TEST_FLOPS * s->tests;
    }
}

/* Made by fill already: a failure (out of memory) is reported here, before
 * the runs that it would leave unverifiable. */
static co_status reference(co_problem *p) { return ((rt_state *)p->state)->ref_status; }

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    rt_state *s = p->state;
    const size_t pixels = s->width * s->rows;
    double psnr = INFINITY, off = 0;
    for (size_t f = 0; f < s->frames; f++) {
        double ps, of;
        compare(s->image + f * pixels, s->ref + f * pixels, pixels, &ps, &of);
        psnr = ps < psnr ? ps : psnr;
        off = of > off ? of : off;
    }
    /* Pass if either bound holds: error <= 1. A hit or miss decided by the
     * last bit flips a whole pixel, and float codegen differs between
     * compilers (contraction into fma): images under 1000 pixels may have
     * one such pixel, larger ones 0.1%. */
    const double allowed = fmax(0.001, 1.0 / (double)pixels);
    const double by_psnr = isinf(psnr) ? 0 : 40.0 / psnr, by_off = off / allowed;
    double err = by_psnr < by_off ? by_psnr : by_off;
    if (psnr < 0 || isnan(psnr)) err = INFINITY;
    const char *why = NULL;
    char world[64]; /* (the run shows its first 31 characters) */
    /* The animated spheres: the device's motion against the host's; the
     * first word off is named, with its relative error. */
    static const char *const field[RT_SW] = {"x",     "y",    "z",    "r^2", "1/r", "red",
                                             "green", "blue", "refl", "pad", "pad", "pad"};
    for (size_t i = 0; i < s->words && !why; i++) {
        const double a = get(s, s->world, i), b = get(s, s->ref_world, i);
        const double rel = fabs(a - b) / (1 + fabs(b));
        if (rel <= (s->dbl ? 1e-9 : 1e-4)) continue;
        if (i < RT_SPHERES)
            snprintf(world, sizeof world, "world word %zu off %.1e", i, rel);
        else
            snprintf(world, sizeof world, "sphere %zu %s off %.1e", (i - RT_SPHERES) / RT_SW,
                     field[(i - RT_SPHERES) % RT_SW], rel);
        why = world;
    }
    const uint32_t *last = s->image + (s->frames - 1) * pixels;
    if (!s->degenerate[0] && !why) { /* (a wrong world says more than its image) */
        double sum = 0, sq = 0;
        for (size_t i = 0; i < pixels; i++) {
            const double y = luminance(last[i]);
            sum += y, sq += y * y;
        }
        const double mean = sum / (double)pixels;
        const double sd = sqrt(fmax(sq / (double)pixels - mean * mean, 0));
        if (sd < 10)
            why = "flat image";
        else if (!(luminance(last[s->shadow_px]) < luminance(last[s->lit_px])))
            why = "shadow not darker";
    }
    if (why) err = INFINITY;
    *error = err;
    *tolerance = 1.0;
    char fd[24] = "";
    if (!isnan(s->fd_psnr)) snprintf(fd, sizeof fd, " fd %.1f", s->fd_psnr);
    if (why)
        snprintf(check, check_len, "%s", why);
    else if (s->degenerate[0])
        snprintf(check, check_len, "psnr %.1f off %.2f%% %s", psnr, 100 * off, s->degenerate);
    else
        snprintf(check, check_len, "psnr %.1f off %.2f%%%s", psnr, 100 * off, fd);
    return CO_OK;
}

static co_status save(co_problem *p, const co_option *opts, size_t nopts) {
    const rt_state *s = p->state;
    const char *output = co_opt(opts, nopts, "output"), *dir = co_opt(opts, nopts, "out-dir");
    const size_t pixels = s->width * s->rows;
    const int w = (int)s->width, h = (int)s->rows;
    co_status st = CO_OK;
    const char *gif = co_opt(opts, nopts, "gif");
    if (gif) { /* each frame as indices into one colour cube */
        unsigned char pal[768], *idx = malloc(s->frames * pixels);
        const unsigned char **frames = malloc(s->frames * sizeof *frames);
        if (!idx || !frames) st = co_fail(CO_ERR_NOMEM, "out of host memory for --gif");
        for (size_t f = 0; !st && f < s->frames; f++) {
            co_gif_to_cube((const unsigned char *)(s->image + f * pixels), 4, pixels,
                           idx + f * pixels);
            frames[f] = idx + f * pixels;
        }
        co_gif_cube_palette(pal);
        if (!st) st = co_gif_save(gif, w, h, s->frames, frames, pal, 3);
        free(idx);
        free(frames);
        if (st) return st;
    }
    if (output)
        st = co_image_save_png(output, w, h, 4,
                               (const unsigned char *)(s->image + (s->frames - 1) * pixels));
    if (st || !dir) return st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return co_fail(CO_ERR_IO, "cannot create directory '%s': %s", dir, strerror(errno));
    for (size_t f = 0; !st && f < s->frames; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%04zu.png", dir, f);
        st = co_image_save_png(path, w, h, 4, (const unsigned char *)(s->image + f * pixels));
    }
    return st;
}

static void destroy(co_problem *p) {
    rt_state *s = p->state;
    if (!s) return;
    free(s->ref), free(s->ref_world);
    free(s);
    p->state = NULL;
}

/* The GLSL shader rounds its divisions and square roots through double
 * (co_div). */
static bool rt_doubles(const co_device *dev, const char **why) {
    const co_glsl_caps *glsl = co_glsl_device(dev);
    if (!glsl || glsl->fp64) return true;
    *why = "the ray tracer's shader rounds through double: the device has no shaderFloat64";
    return false;
}

static const co_variant variants[] = {
    {.name = "c",
     .summary = "sequential, the kernel's code per pixel",
     .on = CO_ON_C,
     .run = run_c},
    {.name = "omp",
     .summary = "rows over all cores, the kernel's code per pixel",
     .on = CO_ON_OMP,
     .run = run_omp},
    {.name = "global",
     .summary = "one pixel per work-item, scene in global memory",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = rt_doubles,
     .run = run_global},
    {.name = "constant",
     .summary = "scene in constant memory",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = rt_doubles,
     .run = run_constant},
    {.name = "local",
     .summary = "spheres animated into local memory per work-group",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = rt_doubles,
     .run = run_local},
};

const co_workload co_workload_raytrace = {
    .name = "raytrace",
    .summary = "real-time ray tracer: moving spheres, shadows, reflections",
    .bound = CO_BOUND_COMPUTE,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "local", "local", "local"},
    /* A quarter of 1080p on CPUs: sequential C ~0.4 s a frame. */
    .bench_sets = "width=960 height=540 spheres=64 lights=2 depth=4",
    .bench_sets_gpu = "width=960 height=540 spheres=64 lights=2 depth=4;"
                      "width=1920 height=1080 spheres=64 lights=2 depth=4",
    .quick_sets = "width=640 height=360",
    .test_sets = "width=1 height=1;width=3 height=2;width=37 height=23 spheres=5;"
                 "width=96 height=64 spheres=0;width=40 height=30 camera=inside;"
                 "width=80 height=72 depth=0;width=80 height=72 precision=double;"
                 "width=33 height=17 frames=3 time=1.5;"
                 "width=70 height=66 first-row=29 rows=17;width=9 height=5 first-row=4",
    .init = init,
    .fill = fill,
    .reference = reference,
    .verify = verify,
    .save = save,
    .destroy = destroy,
};
