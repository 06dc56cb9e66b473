/* A collider animation with libcoalesce: balls in a box as a library
 * object, stepped on a device and drawn every few steps into PNG frames
 * (frame_000.png, ...; `ffmpeg -i frame_%03d.png` makes a video of them).
 *
 * The state stays on the device between frames: each frame is STEPS steps
 * and one download of the positions. The run is checked three ways: the
 * first frame's steps in the library's check mode (against the workload's
 * double-precision reference and its invariants), every frame's balls
 * finite and inside the box, and at the end the kinetic energy (elastic
 * collisions, reflecting walls) within the workload's own bound of the
 * start: 5% plus 1e-4 a step.
 *
 *   cc collider_frames.c $(pkg-config --cflags --libs coalesce) -lm -o collider_frames
 *   ./collider_frames [DEVICE [FRAMES [DIR]]]
 * DEVICE: a spec (omp by default; cuda, opencl, ...); FRAMES: 24; DIR: "."
 * (it must exist). Exit 0 checked, 1 wrong or failed, 2 usage, 3 the device
 * is not here. */
#include <coalesce.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 240, STEPS = 8 }; /* the box in pixels; steps a frame */

#define TRY(call)                                                                                  \
    do {                                                                                           \
        co_status s_ = (call);                                                                     \
        if (s_ != CO_OK) {                                                                         \
            fprintf(stderr, "collider_frames: %s: %s\n", co_status_name(s_), co_last_error());     \
            rc = s_ == CO_ERR_UNSUPPORTED ? 3 : 1;                                                 \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* xorshift64*, [0, 1) */
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}

/* Balls as filled discs coloured by speed (blue slow, red fast) on grey. */
static void draw(unsigned char *rgb, size_t n, const float *x, const float *y, const float *vx,
                 const float *vy, const float *r, double vmax) {
    memset(rgb, 40, 3 * W * H);
    for (size_t i = 0; i < n; i++) {
        const double s = fmin(1.0, sqrt(vx[i] * vx[i] + vy[i] * vy[i]) / vmax);
        const int x0 = (int)floor(x[i] - r[i]), x1 = (int)ceil(x[i] + r[i]);
        const int y0 = (int)floor(y[i] - r[i]), y1 = (int)ceil(y[i] + r[i]);
        for (int py = y0 < 0 ? 0 : y0; py <= y1 && py < H; py++)
            for (int px = x0 < 0 ? 0 : x0; px <= x1 && px < W; px++) {
                const double dx = px + 0.5 - x[i], dy = py + 0.5 - y[i];
                if (dx * dx + dy * dy > (double)r[i] * r[i]) continue;
                unsigned char *p = rgb + 3 * ((size_t)(H - 1 - py) * W + (size_t)px); /* y up */
                p[0] = (unsigned char)(60 + 195 * s);
                p[1] = 90;
                p[2] = (unsigned char)(255 - 195 * s);
            }
    }
}

static double energy(size_t n, const float *vx, const float *vy, const float *mass) {
    double e = 0;
    for (size_t i = 0; i < n; i++) e += 0.5 * mass[i] * ((double)vx[i] * vx[i] + vy[i] * vy[i]);
    return e;
}

int main(int argc, char **argv) {
    if (argc > 4) {
        fprintf(stderr, "usage: %s [DEVICE [FRAMES [DIR]]]\n", argv[0]);
        return 2;
    }
    const char *spec = argc > 1 ? argv[1] : "omp", *dir = argc > 3 ? argv[3] : ".";
    char *end = NULL;
    const long frames = argc > 2 ? strtol(argv[2], &end, 10) : 24;
    if ((end && *end) || frames < 1 || frames > 1000) {
        fprintf(stderr, "collider_frames: FRAMES '%s' must be an integer 1..1000\n", argv[2]);
        return 2;
    }

    /* 22 x 16 balls on a lattice 14 pixels apart, radii 3 to 5, random
     * velocities: a step moves a ball at most a quarter of the smallest
     * radius (the workload's rule for dt). */
    enum { NX = 22, NY = 16, N = NX * NY };
    const double dt = 0.05, vmax = 0.25 * 3.0 / dt;
    float *x = malloc(6 * N * sizeof *x), *y = x + N, *vx = y + N, *vy = vx + N, *r = vy + N;
    float *mass = r + N;
    unsigned char *rgb = malloc(3 * W * H);
    int rc = 0;
    co_context *ctx = NULL;
    co_collider *sim = NULL;
    size_t device, count;
    double e0 = 0, e1 = 0;
    co_copy_stats copies;
    if (!x || !rgb) {
        fprintf(stderr, "collider_frames: out of memory\n");
        rc = 1;
        goto done;
    }
    for (size_t i = 0; i < N; i++) {
        x[i] = (float)(16 + 14 * (i % NX) + 2 * urand());
        y[i] = (float)(14 + 14 * (i / NX) + 2 * urand());
        vx[i] = (float)(vmax * (2 * urand() - 1));
        vy[i] = (float)(vmax * (2 * urand() - 1));
        r[i] = (float)(3 + 2 * urand());
        mass[i] = (float)(3.14159265358979 * r[i] * r[i]);
    }
    e0 = energy(N, vx, vy, mass);

    TRY(co_context_create(&ctx));
    co_status st = co_device_select(ctx, spec, &device, 1, &count);
    if (st != CO_OK) {
        fprintf(stderr, "collider_frames: no device '%s' here: %s\n", spec, co_last_error());
        rc = st == CO_ERR_INVALID ? 2 : 3;
        goto done;
    }
    TRY(co_collider_create(ctx, device, NULL, N, W, H, dt, x, y, vx, vy, r, mass, &sim));
    TRY(co_collider_set_boundary(sim, CO_BOUNDARY_WALLS));
    TRY(co_context_reset_copies(ctx));
    for (long f = 0; f < frames && rc == 0; f++) {
        /* The first frame verified against the reference (a download of its own). */
        TRY(co_context_set_check(ctx, f == 0));
        TRY(co_collider_step(sim, STEPS));
        TRY(co_collider_read(sim, x, y, vx, vy));
        for (size_t i = 0; i < N; i++)
            if (!(x[i] >= 0 && x[i] <= W && y[i] >= 0 && y[i] <= H && isfinite(vx[i] + vy[i]))) {
                fprintf(stderr, "collider_frames: WRONG: frame %ld, ball %zu at (%g, %g)\n", f, i,
                        x[i], y[i]);
                rc = 1;
                break;
            }
        draw(rgb, N, x, y, vx, vy, r, vmax);
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%03ld.png", dir, f);
        TRY(co_image_save_png(path, W, H, 3, rgb));
    }
    TRY(co_context_copies(ctx, &copies));
    e1 = energy(N, vx, vy, mass);
    const double drift = fabs(e1 - e0) / e0, bound = 0.05 + 1e-4 * (double)(frames * STEPS);
    printf("%d balls, %ld frames of %d steps on %s: %s/frame_000.png ... frame_%03ld.png; "
           "%llu downloads, %llu uploads; energy %.6g -> %.6g (%.2g%%, bound %.2g%%)\n",
           N, frames, STEPS, co_device_get(ctx, device)->spec, dir, frames - 1,
           (unsigned long long)copies.downloads, (unsigned long long)copies.uploads, e0, e1,
           100 * drift, 100 * bound);
    if (rc == 0 && !(drift <= bound)) {
        fprintf(stderr, "collider_frames: WRONG: the energy moved by %.3g%%\n", 100 * drift);
        rc = 1;
    }
done:
    co_collider_destroy(sim);
    co_context_destroy(ctx);
    free(x), free(rgb);
    return rc;
}
