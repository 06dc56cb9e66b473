/* The library's goal, measured (issue 28): each call on device buffers
 * against the CLI's kernel time for the same work, and the host<->device
 * copies of a whole device-buffer pipeline.
 *
 *   bench_lib [--size tiny|small|large] [--reps N] [--no-timing-goal] DEVICE...
 *
 * For each call (co_sgemm_ex, co_copy, co_reduce_sum, co_grayscale,
 * co_boxfilter, co_collider_step, co_raytracer_render) on each DEVICE (a
 * spec: cuda, opencl:gpu, vulkan:gpu, omp, ...): the call's wall time on
 * device buffers (a call returns when the device is done), the median of
 * 2 N calls (N = --reps, 3 by default), N before and N after co_run of the
 * same work in the same process (the device's default variant, untuned,
 * unverified, N repetitions) whose median kernel time (device events) is
 * the CLI's figure. "(min)" is the fastest call over co_run's fastest run:
 * on a busy machine the steadier figure. Same work: the same sizes and
 * options; the collider and the ray tracer from the workload's own seeded
 * balls and scene (co_collider_create_random, co_rt_scene_random) with
 * co_run's seed. The goal is held where the CLI's kernel takes at least
 * 1 ms: lib/cli at most 1.05. Then the pipeline: box filter -> grayscale,
 * copy -> reduce_sum, sgemm_ex, collider steps and a rendered frame, all on
 * buffers of the device; between co_context_reset_copies and the end the
 * context must count no upload and one download (the sum's 4 bytes).
 *
 * Sizes: `large` (the default on GPUs) makes each CLI kernel take over a
 * millisecond on an H200; `small` (the default on CPUs) runs in seconds on
 * two cores; `tiny` is the test's. Exit 0: every goal held; 1: one missed
 * (or a call failed); 2: usage; 3: none of the devices is here (one that is
 * not is skipped). --no-timing-goal (the test on a shared machine): the
 * ratios are shown, not held. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coalesce.h"

enum { GEMM, COPY, REDUCE, GRAY, BOX, SIM, RT, NCALLS };
static const char *const call_names[NCALLS] = {
    "co_sgemm_ex",  "co_copy",          "co_reduce_sum",      "co_grayscale",
    "co_boxfilter", "co_collider_step", "co_raytracer_render"};
static const char *const workloads[NCALLS] = {"gemm",      "copy",     "reduce",  "grayscale",
                                              "boxfilter", "collider", "raytrace"};

/* The work, in the workloads' option names. */
typedef struct sizes {
    size_t gemm, copy_n, reduce_n, gray_w, gray_h, box_w, box_h, box_r, balls, steps, rt_w, rt_h;
    size_t spheres;
} sizes;
/* large: each CLI kernel over 1 ms on an H200 (~4 TB/s streamed, ~50
 * TFLOP/s FMA): copy 6.4 GB moved, reduce 6 GB read, grayscale 4.6 GB, the
 * box filter 4.3 GB, gemm 137 GFLOP; 10 collider steps of 4M balls and a
 * 4K frame are longer still. A device whose largest buffer is smaller
 * (Vulkan binds at most 4 GB) gets fewer rows (fit()). */
static const sizes large = {4096, 3u << 28, 1500000000, 32768, 28000, 32768, 16384,
                            8,    1u << 22, 10,         3840,  2160,  64};
static const sizes small = {384, 1u << 22, 1u << 22, 1024, 768, 1024, 768,
                            8,   16384,    10,       320,  180, 64};
/* tiny: the test (ctest bench_lib), under the sanitizers. */
static const sizes tiny = {67, 1u << 16, 1u << 16, 67, 45, 67, 45, 3, 2000, 3, 64, 36, 8};
static const uint64_t seed = 42;
static bool timing_goal = true;

/* The sizes for a device: each buffer within its largest allocation. */
static sizes fit(const sizes *z, const co_device_info *info) {
    sizes f = *z;
    const size_t most = info->max_alloc_bytes ? info->max_alloc_bytes : SIZE_MAX;
    const size_t mib = (size_t)1 << 20;
    if (4 * f.copy_n > most) f.copy_n = most / 4 / mib * mib;
    if (4 * f.reduce_n > most) f.reduce_n = most / 4 / mib * mib;
    if (4 * f.gray_w * f.gray_h > most) f.gray_h = most / (4 * f.gray_w);
    if (4 * f.box_w * f.box_h > most) f.box_h = most / (4 * f.box_w);
    return f;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Random floats in [0, 1), shared by every input (their bytes for images). */
static float *pool;
static size_t pool_bytes;

static co_status make_pool(size_t bytes) {
    pool_bytes = (bytes + 3) / 4 * 4;
    if (!(pool = malloc(pool_bytes))) return CO_ERR_NOMEM;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < pool_bytes / 4; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        pool[i] = (float)(x >> 40) * 0x1p-24f;
    }
    return CO_OK;
}

/* One call's library side: its buffers and objects on the device. */
typedef struct lib {
    co_context *ctx;
    size_t dev;
    const sizes *z;
    co_buffer *buf[3];
    co_collider *sim;
    co_raytracer *rt;
    co_rt_sphere *spheres;
} lib;

static co_status buffer(lib *l, int i, size_t bytes, bool fill) {
    co_status st = co_buffer_create(l->ctx, l->dev, bytes, &l->buf[i]);
    if (!st && fill)
        st = co_buffer_upload(l->buf[i], pool, bytes < pool_bytes ? bytes : pool_bytes);
    return st;
}

static co_status lib_prepare(lib *l, int call) {
    const sizes *z = l->z;
    const size_t g = z->gemm;
    co_status st = CO_OK;
    switch (call) {
    case GEMM:
        if (!(st = buffer(l, 0, 4 * g * g, true)) && !(st = buffer(l, 1, 4 * g * g, true)))
            st = buffer(l, 2, 4 * g * g, false);
        break;
    case COPY:
        if (!(st = buffer(l, 0, 4 * z->copy_n, true))) st = buffer(l, 1, 4 * z->copy_n, false);
        break;
    case REDUCE: st = buffer(l, 0, 4 * z->reduce_n, true); break;
    case GRAY:
        if (!(st = buffer(l, 0, 4 * z->gray_w * z->gray_h, true)))
            st = buffer(l, 1, z->gray_w * z->gray_h, false);
        break;
    case BOX:
        if (!(st = buffer(l, 0, 4 * z->box_w * z->box_h, true)))
            st = buffer(l, 1, 4 * z->box_w * z->box_h, false);
        break;
    case SIM: {
        const double side = 2 * sqrt((double)z->balls); /* area fraction ~0.2 at r = 0.5 */
        st = co_collider_create_random(l->ctx, l->dev, NULL, z->balls, 0.5, 0.5, side, side, 1, 0.1,
                                       seed, &l->sim);
        break;
    }
    case RT: {
        co_rt_scene s;
        co_rt_light lights[2];
        if (!(l->spheres = malloc(z->spheres * sizeof *l->spheres))) return CO_ERR_NOMEM;
        st = co_rt_scene_random(&s, l->spheres, z->spheres, lights, 2, seed);
        if (!st) st = co_raytracer_create(l->ctx, l->dev, NULL, &s, &l->rt);
        if (!st) st = buffer(l, 0, 4 * z->rt_w * z->rt_h, false);
        break;
    }
    }
    return st;
}

static co_status lib_call(lib *l, int call) {
    const sizes *z = l->z;
    co_context *ctx = l->ctx;
    const size_t d = l->dev, g = z->gemm;
    co_mem b0 = co_mem_buffer(l->buf[0]), b1 = co_mem_buffer(l->buf[1]);
    double sum;
    switch (call) {
    case GEMM:
        return co_sgemm_ex(ctx, d, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, g, g, g, 1, b0, g,
                           b1, g, 0, co_mem_buffer(l->buf[2]), g);
    case COPY: return co_copy(ctx, d, NULL, z->copy_n, b0, b1);
    case REDUCE: return co_reduce_sum(ctx, d, NULL, z->reduce_n, b0, &sum);
    case GRAY:
        return co_grayscale(ctx, d, NULL, z->gray_w, z->gray_h, b0, 4 * z->gray_w, b1, z->gray_w);
    case BOX:
        return co_boxfilter(ctx, d, NULL, CO_FORMAT_F32, z->box_w, z->box_h, (unsigned)z->box_r,
                            CO_BORDER_CLAMP, b0, 4 * z->box_w, b1, 4 * z->box_w);
    case SIM: return co_collider_step(l->sim, (unsigned)z->steps);
    case RT: return co_raytracer_render(l->rt, z->rt_w, z->rt_h, 0.5, b0, 4 * z->rt_w);
    }
    return CO_ERR_INVALID;
}

static void lib_release(lib *l) {
    for (int i = 0; i < 3; i++) co_buffer_free(l->buf[i]), l->buf[i] = NULL;
    co_collider_destroy(l->sim), l->sim = NULL;
    co_raytracer_destroy(l->rt), l->rt = NULL;
    free(l->spheres), l->spheres = NULL;
}

/* The CLI's run of the same work: co_run's median kernel time. */
static co_status cli_run(co_context *ctx, size_t dev, const sizes *z, int call, unsigned reps,
                         double *kernel_ms, double *min_ms, char *work, size_t work_len) {
    char v[8][32];
    co_option o[10];
    size_t n = 0;
#define OPT(name, fmt, value) (snprintf(v[n], 32, fmt, value), o[n] = (co_option){name, v[n]}, n++)
    switch (call) {
    case GEMM: OPT("size", "%zu", z->gemm); break;
    case COPY: OPT("n", "%zu", z->copy_n); break;
    case REDUCE: OPT("n", "%zu", z->reduce_n); break;
    case GRAY: OPT("width", "%zu", z->gray_w), OPT("height", "%zu", z->gray_h); break;
    case BOX:
        OPT("width", "%zu", z->box_w), OPT("height", "%zu", z->box_h);
        OPT("radius", "%zu", z->box_r), OPT("format", "%s", "f32");
        break;
    case SIM: {
        const double side = 2 * sqrt((double)z->balls);
        OPT("balls", "%zu", z->balls), OPT("radius", "%s", "0.5"), OPT("width", "%.17g", side);
        OPT("height", "%.17g", side), OPT("speed", "%s", "1"), OPT("dt", "%s", "0.1");
        OPT("steps", "%zu", z->steps);
        break;
    }
    case RT:
        OPT("width", "%zu", z->rt_w), OPT("height", "%zu", z->rt_h);
        OPT("spheres", "%zu", z->spheres), OPT("lights", "%d", 2), OPT("time", "%s", "0.5");
        break;
    }
#undef OPT
    size_t used = 0;
    work[0] = 0;
    for (size_t i = 0; i < n && used < work_len; i++)
        used += (size_t)snprintf(work + used, work_len - used, "%s%s=%s", i ? " " : "", o[i].name,
                                 o[i].value);
    co_run_config cfg = {.workload = workloads[call],
                         .device = dev,
                         .options = o,
                         .noptions = n,
                         .reps = reps,
                         .warmup = 1,
                         .seed = seed,
                         .untuned = true};
    co_result r;
    co_status st = co_run(ctx, &cfg, &r);
    if (!st) *kernel_ms = r.kernel_ms, *min_ms = r.min_ms;
    return st;
}

/* Every call once on buffers of the device, counting the copies. */
static int pipeline(co_context *ctx, size_t dev, bool *runs) {
    enum { W = 257, H = 131, G = 67 };
    co_buffer *img, *blur, *gray, *f, *g, *a, *c, *frame;
    co_collider *sim = NULL;
    co_raytracer *rt = NULL;
    co_rt_scene s;
    co_rt_sphere sp[8];
    co_rt_light li[2];
    double sum;
    co_status st = co_buffer_create(ctx, dev, 4 * W * H, &img);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &blur);
    if (!st) st = co_buffer_create(ctx, dev, W * H, &gray);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &f);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &g);
    if (!st) st = co_buffer_create(ctx, dev, 4 * G * G, &a);
    if (!st) st = co_buffer_create(ctx, dev, 4 * G * G, &c);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &frame);
    if (!st) st = co_buffer_upload(img, pool, 4 * W * H);
    if (!st) st = co_buffer_upload(f, pool, 4 * W * H);
    if (!st) st = co_buffer_upload(a, pool, 4 * G * G);
    /* Made before the count: the objects' initial uploads, the reduce's
     * zeroed ticket (once per device), the ray tracer's scene. */
    if (!st && runs[SIM])
        st = co_collider_create_random(ctx, dev, NULL, 1000, 0.5, 0.5, 80, 60, 1, 0.1, 1, &sim);
    if (!st && runs[RT]) st = co_rt_scene_random(&s, sp, 8, li, 2, 1);
    if (!st && runs[RT]) st = co_raytracer_create(ctx, dev, NULL, &s, &rt);
    if (!st && runs[RT]) st = co_raytracer_render(rt, W, H, 0, co_mem_buffer(frame), 4 * W);
    if (!st) st = co_reduce_sum(ctx, dev, NULL, 4, co_mem_buffer(f), &sum);
    if (!st) st = co_context_reset_copies(ctx);
    char steps[256] = "";
#define STEP(call, name)                                                                           \
    do {                                                                                           \
        if (!st) st = (call);                                                                      \
        if (!st) strcat(steps, name " ");                                                          \
    } while (0)
    if (runs[BOX])
        STEP(co_boxfilter(ctx, dev, NULL, CO_FORMAT_RGBA8, W, H, 3, CO_BORDER_REFLECT101,
                          co_mem_buffer(img), 4 * W, co_mem_buffer(blur), 4 * W),
             "boxfilter");
    STEP(co_grayscale(ctx, dev, NULL, W, H, co_mem_buffer(runs[BOX] ? blur : img), 4 * W,
                      co_mem_buffer(gray), W),
         "grayscale");
    if (runs[BOX])
        STEP(co_boxfilter(ctx, dev, NULL, CO_FORMAT_F32, W, H, 2, CO_BORDER_CLAMP, co_mem_buffer(f),
                          4 * W, co_mem_buffer(g), 4 * W),
             "boxfilter");
    STEP(co_copy(ctx, dev, NULL, W * H, co_mem_buffer(runs[BOX] ? g : f), co_mem_buffer(img)),
         "copy");
    STEP(co_reduce_sum(ctx, dev, NULL, W * H, co_mem_buffer(img), &sum), "reduce_sum");
    STEP(co_sgemm_ex(ctx, dev, NULL, CO_ROW_MAJOR, CO_TRANS, CO_NO_TRANS, G, G, G, 0.5f,
                     co_mem_buffer(a), G, co_mem_buffer(a), G, 2, co_mem_buffer(c), G),
         "sgemm_ex(trans, alpha, beta)");
    if (runs[SIM]) STEP(co_collider_step(sim, 5), "collider_step");
    if (runs[RT]) STEP(co_raytracer_render(rt, W, H, 0.25, co_mem_buffer(frame), 4 * W), "render");
#undef STEP
    co_copy_stats cs = {0};
    if (!st) st = co_context_copies(ctx, &cs);
    const bool host = !strcmp(co_device_get(ctx, dev)->backend, "c") ||
                      !strcmp(co_device_get(ctx, dev)->backend, "omp");
    const unsigned long long want = host ? 0 : 1; /* the sum; none where it is host memory */
    const bool ok = !st && cs.uploads == 0 && cs.downloads == want && cs.download_bytes == 4 * want;
    if (st)
        printf("pipeline: %s: %s\n", co_status_name(st), co_last_error());
    else
        printf("pipeline on buffers (%s): %llu uploads, %llu downloads of %llu bytes (expected 0, "
               "%llu of %llu: the sum)  %s\n",
               steps, (unsigned long long)cs.uploads, (unsigned long long)cs.downloads,
               (unsigned long long)cs.download_bytes, want, 4 * want, ok ? "ok" : "WRONG");
    co_collider_destroy(sim);
    co_raytracer_destroy(rt);
    co_buffer *all[] = {img, blur, gray, f, g, a, c, frame};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) co_buffer_free(all[i]);
    return ok ? 0 : 1;
}

static int bench_device(co_context *ctx, size_t dev, const sizes *preset, unsigned reps) {
    const co_device_info *info = co_device_get(ctx, dev);
    const sizes fitted = fit(preset, info), *z = &fitted;
    printf("\ndevice %s (%s), %s sizes, %u + %u library calls around co_run's %u repetitions\n",
           info->spec, info->name,
           preset == &large   ? "large"
           : preset == &small ? "small"
                              : "tiny",
           reps, reps, reps);
    printf("%-20s %-44s %9s %9s %8s %8s  %s\n", "call", "work (co_run's options)", "lib ms",
           "cli ms", "lib/cli", "(min)", "goal: lib/cli <= 1.05 where cli >= 1 ms");
    int rc = 0;
    bool runs[NCALLS];
    for (int call = 0; call < NCALLS; call++) {
        runs[call] = co_variant_default(ctx, workloads[call], dev) != NULL;
        char work[256] = "";
        if (!runs[call]) {
            printf("%-20s unsupported: %s\n", call_names[call], co_last_error());
            continue;
        }
        lib l = {.ctx = ctx, .dev = dev, .z = z};
        double *t = calloc(2 * reps, sizeof *t), cli = 0, cli_min = 0;
        co_status st = t ? lib_prepare(&l, call) : CO_ERR_NOMEM;
        if (!st) st = lib_call(&l, call); /* warm-up: kernels built */
        for (unsigned i = 0; !st && i < 2 * reps; i++) {
            if (i == reps) st = cli_run(ctx, dev, z, call, reps, &cli, &cli_min, work, sizeof work);
            const double t0 = now_ms();
            if (!st) st = lib_call(&l, call);
            t[i] = now_ms() - t0;
        }
        lib_release(&l);
        if (st) {
            printf("%-20s %-44s %s: %s\n", call_names[call], work, co_status_name(st),
                   co_last_error());
            rc = 1;
        } else {
            const double ms = median(t, 2 * reps), ratio = ms / cli, min_ratio = t[0] / cli_min;
            const bool held = cli >= 1.0, ok = !held || ratio <= 1.05;
            printf("%-20s %-44s %9.3f %9.3f %8.3f %8.3f  %s\n", call_names[call], work, ms, cli,
                   ratio, min_ratio,
                   !held ? "- (under 1 ms)"
                   : ok  ? "ok"
                         : "MISSED");
            rc |= !ok && timing_goal;
        }
        free(t);
        fflush(stdout);
    }
    return rc | pipeline(ctx, dev, runs);
}

int main(int argc, char **argv) {
    const char *size = NULL;
    unsigned reps = 3;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--size") && first + 1 < argc)
            size = argv[++first];
        else if (!strcmp(argv[first], "--reps") && first + 1 < argc)
            reps = (unsigned)strtoul(argv[++first], NULL, 10);
        else if (!strcmp(argv[first], "--no-timing-goal"))
            timing_goal = false;
        else
            break;
    }
    const sizes *named = !size                    ? NULL
                         : !strcmp(size, "large") ? &large
                         : !strcmp(size, "small") ? &small
                         : !strcmp(size, "tiny")  ? &tiny
                                                  : NULL;
    if (first == argc || argv[first][0] == '-' || reps < 1 || reps > 1000 || (size && !named)) {
        fprintf(
            stderr,
            "usage: bench_lib [--size tiny|small|large] [--reps N (1..1000)] [--no-timing-goal] "
            "DEVICE...\n");
        return 2;
    }
    co_context *ctx;
    if (co_context_create(&ctx)) {
        fprintf(stderr, "bench_lib: %s\n", co_last_error());
        return 1;
    }
    size_t devs[16], ndev = 0;
    for (int i = first; i < argc; i++) {
        size_t count;
        co_status st = co_device_select(ctx, argv[i], devs + ndev, 16 - ndev, &count);
        if (st == CO_ERR_UNSUPPORTED) { /* the others still run */
            printf("bench_lib: skip %s: %s\n", argv[i], co_last_error());
            continue;
        }
        if (st) {
            fprintf(stderr, "bench_lib: %s\n", co_last_error());
            co_context_destroy(ctx);
            return 2;
        }
        ndev += count;
    }
    if (!ndev) {
        co_context_destroy(ctx);
        return 3;
    }
    /* The largest input of the sizes any device runs at. */
    size_t most = 0;
    for (size_t i = 0; i < ndev; i++) {
        const bool gpu = co_device_get(ctx, devs[i])->type != CO_DEVICE_CPU;
        const sizes *z = named ? named : gpu ? &large : &small;
        const size_t in[] = {4 * z->gemm * z->gemm,     4 * z->copy_n,           4 * z->reduce_n,
                             4 * z->gray_w * z->gray_h, 4 * z->box_w * z->box_h, 4 * 257 * 131};
        for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) most = in[k] > most ? in[k] : most;
    }
    int rc = make_pool(most) ? 1 : 0;
    printf("bench_lib: libcoalesce %s; the library's calls on device buffers against co_run\n",
           co_version());
    for (size_t i = 0; pool && i < ndev; i++) {
        const bool gpu = co_device_get(ctx, devs[i])->type != CO_DEVICE_CPU;
        const sizes *z = named ? named : gpu ? &large : &small;
        rc |= bench_device(ctx, devs[i], z, reps);
    }
    free(pool);
    co_context_destroy(ctx);
    printf("\n%s\n",
           rc ? "bench_lib: a goal was missed or a call failed" : "bench_lib: all goals held");
    return rc;
}
