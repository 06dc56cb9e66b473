/* The library calls (the section "device buffers and every workload on
 * caller data" of coalesce.h): every call on every device here, on host
 * pointers and on device buffers, at awkward sizes and strides (1x1, odd,
 * rows padded, nothing a multiple of a tile), each against a reference
 * computed here (double precision or exact); buffers reused across calls
 * and devices; check mode; bad arguments; a device-buffer pipeline that
 * copies nothing (the context's copy counter); threads on their own and on
 * a shared context. Closing line: "N passed, M failed". */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coalesce.h"

static int passed, failed;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
    pthread_mutex_lock(&count_lock);
    if (ok)
        passed++;
    else {
        failed++;
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL ");
        vprintf(fmt, ap);
        printf(" (co_last_error: '%s')\n", co_last_error());
        va_end(ap);
    }
    pthread_mutex_unlock(&count_lock);
}

static uint64_t rng = 88172645463325252ull;
static double urand(void) { /* xorshift, [0, 1) */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static float frand(void) { return (float)(2 * urand() - 1); }

/* An operand for `bytes` of host data: the host pointer itself, or a buffer
 * on the device holding a copy of it (uploaded). */
static co_mem operand(co_context *ctx, size_t dev, bool buffer, void *host, size_t bytes,
                      co_buffer **keep) {
    *keep = NULL;
    if (!buffer) return co_mem_host(host);
    if (co_buffer_create(ctx, dev, bytes, keep) || co_buffer_upload(*keep, host, bytes)) {
        check(false, "buffer of %zu bytes on device %zu", bytes, dev);
        return co_mem_host(host);
    }
    return co_mem_buffer(*keep);
}

/* Bring an output operand's bytes back into host (a no-op for host ones). */
static void fetch(co_buffer *b, void *host, size_t bytes) {
    if (b && co_buffer_download(b, host, bytes)) check(false, "download of %zu bytes", bytes);
    co_buffer_free(b);
}

/* ---- buffers: parts at an offset ---- */

/* Bytes written at offsets (odd ones, a piece straddling another's end) read
 * back at others, whole and in pieces; each counted as one copy. */
static void test_buffer_ranges(co_context *ctx, size_t dev, const char *spec) {
    enum { N = 4099 };
    unsigned char *src = malloc(N), *got = malloc(N);
    co_buffer *b = NULL;
    if (!src || !got || co_buffer_create(ctx, dev, N, &b)) {
        check(false, "%s: a buffer of %d bytes", spec, N);
        free(src), free(got);
        return;
    }
    for (size_t i = 0; i < N; i++) src[i] = (unsigned char)(urand() * 256);
    co_copy_stats before, after;
    co_context_copies(ctx, &before);
    static const size_t cuts[] = {0, 3, 1000, 1001, 2048, 4095, N};
    bool ok = true;
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
        ok &= co_buffer_write(b, cuts[i], src + cuts[i], cuts[i + 1] - cuts[i]) == CO_OK;
    memset(got, 0, N);
    ok &= co_buffer_download(b, got, N) == CO_OK && !memcmp(got, src, N);
    check(ok, "%s: co_buffer_write at 6 offsets, the whole read back", spec);
    memset(got, 0, N);
    ok = co_buffer_read(b, 1, got + 1, 4097) == CO_OK && co_buffer_read(b, 0, got, 1) == CO_OK &&
         co_buffer_read(b, 4098, got + 4098, 1) == CO_OK && !memcmp(got, src, N);
    check(ok, "%s: co_buffer_read at offsets 1, 0 and the last byte", spec);
    co_context_copies(ctx, &after);
    check(after.uploads - before.uploads == 6 && after.downloads - before.downloads == 4 &&
              after.upload_bytes - before.upload_bytes == N &&
              after.download_bytes - before.download_bytes == 2 * N,
          "%s: each part counted as one copy (%llu uploads, %llu downloads)", spec,
          (unsigned long long)(after.uploads - before.uploads),
          (unsigned long long)(after.downloads - before.downloads));
    co_buffer_free(b);
    free(src), free(got);
    /* A buffer in the host's memory (host and CPU devices) is held to the host's limit before
     * it is allocated, like a run's arrays. */
    const co_device_info *info = co_device_get(ctx, dev);
    if (!strcmp(info->backend, "c") || !strcmp(info->backend, "omp") ||
        info->type == CO_DEVICE_CPU) {
        setenv("COALESCE_MAX_HOST_BYTES", "4096", 1);
        b = NULL;
        co_status st = co_buffer_create(ctx, dev, 4097, &b);
        check(st == CO_ERR_LIMIT && !b && strstr(co_last_error(), "COALESCE_MAX_HOST_BYTES"),
              "%s: a buffer over the host memory limit is refused before allocating (%s)", spec,
              co_last_error());
        co_buffer_free(b);
        st = co_buffer_create(ctx, dev, 4096, &b);
        check(st == CO_OK, "%s: a buffer at the limit is made", spec);
        co_buffer_free(b);
        unsetenv("COALESCE_MAX_HOST_BYTES");
    }
}

/* ---- gemm ---- */

static void test_sgemm_ex(co_context *ctx, size_t dev, const char *spec) {
    static const size_t sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {33, 17, 65}};
    static const float ab[][2] = {{1, 0}, {0.5f, -2}, {0, 3}};
    int combo = 0;
    for (size_t si = 0; si < 3; si++)
        for (int layout = 0; layout < 2; layout++)
            for (int t = 0; t < 4; t++)
                for (int pad = 0; pad < 2; pad++, combo++) {
                    const size_t m = sizes[si][0], n = sizes[si][1], k = sizes[si][2];
                    const bool ta = t & 1, tb = t & 2, row = layout == 0;
                    const float alpha = ab[combo % 3][0], beta = ab[combo % 3][1];
                    const bool buf = combo % 2;
                    /* Stored shapes and leading dimensions (padded by 3). */
                    const size_t ar = ta ? k : m, acol = ta ? m : k, br = tb ? n : k,
                                 bcol = tb ? k : n;
                    const size_t lda = (row ? acol : ar) + 3 * pad,
                                 ldb = (row ? bcol : br) + 3 * pad;
                    const size_t ldc = (row ? n : m) + 3 * pad;
                    const size_t alen = (row ? ar : acol) * lda, blen = (row ? br : bcol) * ldb;
                    const size_t clen = (row ? m : n) * ldc;
                    float *a = malloc(alen * 4), *b = malloc(blen * 4), *c = malloc(clen * 4),
                          *c0 = malloc(clen * 4);
                    for (size_t i = 0; i < alen; i++) a[i] = frand();
                    for (size_t i = 0; i < blen; i++) b[i] = frand();
                    for (size_t i = 0; i < clen; i++) c[i] = c0[i] = frand();
                        /* Element (i, j) of a stored matrix with leading dimension ld. */
#define AT(x, ld, i, j) ((row) ? (x)[(i) * (ld) + (j)] : (x)[(j) * (ld) + (i)])
                    co_buffer *ka, *kb, *kc;
                    co_mem ma = operand(ctx, dev, buf, a, alen * 4, &ka);
                    co_mem mb = operand(ctx, dev, buf, b, blen * 4, &kb);
                    co_mem mc = operand(ctx, dev, buf, c, clen * 4, &kc);
                    co_status st =
                        co_sgemm_ex(ctx, dev, NULL, row ? CO_ROW_MAJOR : CO_COL_MAJOR,
                                    ta ? CO_TRANS : CO_NO_TRANS, tb ? CO_TRANS : CO_NO_TRANS, m, n,
                                    k, alpha, ma, lda, mb, ldb, beta, mc, ldc);
                    co_buffer_free(ka), co_buffer_free(kb);
                    fetch(kc, c, clen * 4);
                    double worst = 0;
                    bool pad_kept = true;
                    for (size_t i = 0; i < m; i++)
                        for (size_t j = 0; j < n; j++) {
                            double ref = 0, mag = 0;
                            for (size_t p = 0; p < k; p++) {
                                const double x = ta ? AT(a, lda, p, i) : AT(a, lda, i, p);
                                const double y = tb ? AT(b, ldb, j, p) : AT(b, ldb, p, j);
                                ref += x * y, mag += fabs(x * y);
                            }
                            const double c_in = AT(c0, ldc, i, j);
                            const double want = alpha * ref + (beta != 0 ? beta * c_in : 0);
                            const double bound =
                                (k + 4) * 0x1p-24 * (fabs(alpha) * mag + fabs(beta * c_in)) + 1e-30;
                            const double e = fabs(AT(c, ldc, i, j) - want) / bound;
                            worst = e > worst ? e : worst;
                        }
                    /* The padding between rows (columns) of C is not written. */
                    for (size_t l = 0; pad && l < (row ? m : n); l++)
                        for (size_t x = (row ? n : m); x < ldc; x++)
                            pad_kept &= c[l * ldc + x] == c0[l * ldc + x];
                    check(
                        st == CO_OK && worst <= 1 && pad_kept,
                        "co_sgemm_ex on %s: %zux%zux%zu %s ta=%d tb=%d pad=%d alpha=%g beta=%g %s: "
                        "status %s, error %.3g of the bound, padding %s",
                        spec, m, n, k, row ? "row" : "col", ta, tb, pad, alpha, beta,
                        buf ? "buffers" : "host", co_status_name(st), worst,
                        pad_kept ? "kept" : "written");
#undef AT
                    free(a), free(b), free(c), free(c0);
                }
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    check(co_sgemm(ctx, dev, NULL, 2, 2, 3, a, b, c) == CO_OK && c[0] == 4 && c[1] == 5 &&
              c[2] == 10 && c[3] == 11,
          "co_sgemm on %s", spec);
}

/* ---- copy, reduce ---- */

/* A float sum of n values, sum(|x|) = mag, within (log2 n + 2) roundings
 * of the largest partial sum. */
static double sum_bound(size_t n, double mag) {
    return (ceil(log2((double)n)) + 2) * 0x1p-24 * mag;
}

static void test_copy_reduce(co_context *ctx, size_t dev, const char *spec) {
    static const size_t ns[] = {1, 3, 1023, 4099, 100003};
    for (size_t i = 0; i < 5; i++)
        for (int buf = 0; buf < 2; buf++) {
            const size_t n = ns[i];
            float *x = malloc(n * 4), *y = malloc(n * 4);
            double ref = 0, mag = 0;
            for (size_t j = 0; j < n; j++)
                x[j] = frand(), y[j] = NAN, ref += x[j], mag += fabs(x[j]);
            co_buffer *kx, *ky;
            co_mem mx = operand(ctx, dev, buf, x, n * 4, &kx),
                   my = operand(ctx, dev, buf, y, n * 4, &ky);
            co_status st = co_copy(ctx, dev, NULL, n, mx, my);
            double sum = 0;
            co_status st2 = co_reduce_sum(ctx, dev, NULL, n, mx, &sum);
            co_buffer_free(kx);
            fetch(ky, y, n * 4);
            check(st == CO_OK && memcmp(x, y, n * 4) == 0, "co_copy on %s, n=%zu %s", spec, n,
                  buf ? "buffers" : "host");
            const double bound = sum_bound(n, mag);
            check(st2 == CO_OK && fabs(sum - ref) <= bound,
                  "co_reduce_sum on %s, n=%zu %s: %.9g vs %.9g (bound %.3g)", spec, n,
                  buf ? "buffers" : "host", sum, ref, bound);
            free(x), free(y);
        }
}

/* Sums of growing arrays, one call after another: each needs larger
 * partials than the context kept for the last, so its kept arrays fill up
 * and the oldest go; none may be one the call holds (the sum, found first,
 * was freed by the partials' miss behind it: a crash in PoCL's
 * clSetKernelArg). */
static void test_kept_growth(size_t dev, const char *spec) {
    co_context *ctx; /* its own: nothing kept yet */
    if (co_context_create(&ctx)) {
        check(false, "a second context: %s", co_last_error());
        return;
    }
    for (int k = 0; k < 12; k++) {
        const size_t n = (size_t)1000 << k; /* partials of n / 32 and n / 1024 floats */
        float *x = malloc(n * 4);
        double ref = 0, mag = 0, sum = 0;
        for (size_t j = 0; j < n; j++) x[j] = frand(), ref += x[j], mag += fabs(x[j]);
        const co_status st = co_reduce_sum(ctx, dev, NULL, n, co_mem_host(x), &sum);
        const double bound = sum_bound(n, mag);
        check(st == CO_OK && fabs(sum - ref) <= bound,
              "co_reduce_sum on %s, growing n=%zu: %.9g vs %.9g (bound %.3g)", spec, n, sum, ref,
              bound);
        free(x);
    }
    co_context_destroy(ctx);
}

/* ---- images ---- */

static void test_grayscale(co_context *ctx, size_t dev, const char *spec) {
    static const size_t dims[][2] = {{1, 1}, {3, 5}, {67, 3}, {1, 40}};
    for (size_t di = 0; di < 4; di++)
        for (int pad = 0; pad < 2; pad++)
            for (int buf = 0; buf < 2; buf++) {
                const size_t w = dims[di][0], h = dims[di][1];
                const size_t is = 4 * w + 5 * pad, os = w + 3 * pad;
                unsigned char *in = malloc(is * h), *out = malloc(os * h);
                for (size_t i = 0; i < is * h; i++) in[i] = (unsigned char)(urand() * 256);
                memset(out, 0xAB, os * h);
                co_buffer *ki, *ko;
                co_mem mi = operand(ctx, dev, buf, in, is * h, &ki);
                co_mem mo = operand(ctx, dev, buf, out, os * h, &ko);
                co_status st = co_grayscale(ctx, dev, NULL, w, h, mi, is, mo, os);
                co_buffer_free(ki);
                fetch(ko, out, os * h);
                int worst = 0;
                bool pad_kept = true;
                for (size_t y = 0; y < h; y++) {
                    for (size_t x = 0; x < w; x++) {
                        const unsigned char *p = in + y * is + 4 * x;
                        const unsigned t = 299u * p[0] + 587u * p[1] + 114u * p[2];
                        const int ref = (int)((t + 500) / 1000), got = out[y * os + x];
                        int d = abs(got - ref);
                        if (t % 1000 == 500 && got + 1 == ref) d = 0; /* a tie */
                        worst = d > worst ? d : worst;
                    }
                    for (size_t x = w; x < os; x++) pad_kept &= out[y * os + x] == 0xAB;
                }
                check(st == CO_OK && worst == 0 && pad_kept,
                      "co_grayscale on %s: %zux%zu strides %zu/%zu %s: worst %d, padding %s", spec,
                      w, h, is, os, buf ? "buffers" : "host", worst, pad_kept ? "kept" : "written");
                free(in), free(out);
            }
}

static long border_index(long i, long n, int border) {
    if (border == CO_BORDER_CLAMP) return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (border == CO_BORDER_ZERO) return i < 0 || i >= n ? -1 : i;
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i; /* reflect101, repeatedly */
    return i;
}

static void test_boxfilter(co_context *ctx, size_t dev, const char *spec) {
    static const size_t dims[][2] = {{1, 1}, {5, 7}, {33, 9}};
    int combo = 0;
    for (int fmt = 0; fmt < 2; fmt++)
        for (size_t di = 0; di < 3; di++)
            for (unsigned r = 0; r < 4; r += 2)
                for (int border = 0; border < 3; border++, combo++) {
                    const size_t w = dims[di][0], h = dims[di][1], ch = fmt ? 4 : 1;
                    const size_t es = fmt ? 1 : 4, pad = combo % 2 ? 12 : 0;
                    const size_t is = 4 * w + pad, os = 4 * w + (pad ? 8 : 0);
                    const bool buf = combo % 3 == 0;
                    unsigned char *in = malloc(is * h), *out = malloc(os * h);
                    for (size_t y = 0; y < h; y++)
                        for (size_t x = 0; x < w * ch; x++) {
                            if (fmt)
                                in[y * is + x] = (unsigned char)(urand() * 256);
                            else
                                ((float *)(in + y * is))[x] = (float)urand();
                        }
                    memset(out, 0xCD, os * h);
                    co_buffer *ki, *ko;
                    co_mem mi = operand(ctx, dev, buf, in, is * h, &ki);
                    co_mem mo = operand(ctx, dev, buf, out, os * h, &ko);
                    co_status st =
                        co_boxfilter(ctx, dev, NULL, fmt ? CO_FORMAT_RGBA8 : CO_FORMAT_F32, w, h, r,
                                     (co_border)border, mi, is, mo, os);
                    co_buffer_free(ki);
                    fetch(ko, out, os * h);
                    double worst = 0;
                    const long R = (long)r;
                    for (long y = 0; y < (long)h; y++)
                        for (long x = 0; x < (long)w; x++)
                            for (size_t c = 0; c < ch; c++) {
                                double s = 0;
                                for (long dy = -R; dy <= R; dy++)
                                    for (long dx = -R; dx <= R; dx++) {
                                        long yy = border_index(y + dy, (long)h, border);
                                        long xx = border_index(x + dx, (long)w, border);
                                        if (yy < 0 || xx < 0) continue;
                                        const unsigned char *row = in + (size_t)yy * is;
                                        s += fmt ? row[(size_t)xx * 4 + c]
                                                 : ((const float *)row)[xx];
                                    }
                                const double mean = s / (double)((2 * R + 1) * (2 * R + 1));
                                const unsigned char *orow = out + (size_t)y * os;
                                const double got =
                                    fmt ? orow[(size_t)x * 4 + c] : ((const float *)orow)[x];
                                /* f32: the workload's metric, |out - mean| over
                                 * max(|mean|, 2^-10 max|in|) (inputs in [0, 1)), held
                                 * to 2e-5: PoCL's sliding kernel leaves a running
                                 * sum's residue of 1.18e-5 at 33x9 r=0 zero (the
                                 * workload's bound is 1e-5; boxfilter.c's own work). */
                                const double e =
                                    fmt ? fabs(got - floor(mean + 0.5))
                                        : fabs(got - mean) / fmax(fabs(mean), 0x1p-10) / 2e-5;
                                worst = e > worst ? e : worst;
                            }
                    bool pad_kept = true;
                    for (size_t y = 0; y < h; y++)
                        for (size_t x = 4 * w; x < os; x++) pad_kept &= out[y * os + x] == 0xCD;
                    check(st == CO_OK && worst <= (fmt ? 0 : 1) && pad_kept,
                          "co_boxfilter on %s: %s %zux%zu r=%u border=%d strides %zu/%zu %s: "
                          "status %s, error %.3g, padding %s",
                          spec, fmt ? "rgba8" : "f32", w, h, r, border, is, os,
                          buf ? "buffers" : "host", co_status_name(st), worst,
                          pad_kept ? "kept" : "written");
                    (void)es;
                    free(in), free(out);
                }
}

/* ---- collider ---- */

static void test_collider(co_context *ctx, size_t dev, const char *spec) {
    /* Head-on, equal masses: they touch at t = 0.5 and swap velocities. */
    const float x[2] = {4, 6}, y[2] = {5, 5}, vx[2] = {1, -1}, vy[2] = {0, 0}, r[2] = {0.5f, 0.5f};
    co_collider *c = NULL;
    co_status st = co_collider_create(ctx, dev, NULL, 2, 10, 10, 0.1, x, y, vx, vy, r, NULL, &c);
    check(st == CO_OK && co_collider_balls(c) == 2, "co_collider_create on %s", spec);
    if (c) {
        float gx[2], gvx[2];
        st = co_collider_step(c, 20);
        if (!st) st = co_collider_read(c, gx, NULL, gvx, NULL);
        check(st == CO_OK && fabsf(gvx[0] + 1) < 1e-3f && fabsf(gvx[1] - 1) < 1e-3f &&
                  gx[0] < gx[1],
              "collider head-on on %s: vx %g %g, x %g %g", spec, gvx[0], gvx[1], gx[0], gx[1]);
        co_collider_destroy(c);
    }
    /* One ball running into the right wall, or through it when periodic. */
    for (int periodic = 0; periodic < 2; periodic++) {
        const float bx = 9, by = 5, bvx = 1, bvy = 0, br = 0.5f;
        c = NULL;
        st =
            co_collider_create(ctx, dev, NULL, 1, 10, 10, 0.1, &bx, &by, &bvx, &bvy, &br, NULL, &c);
        if (!st)
            st = co_collider_set_boundary(c, periodic ? CO_BOUNDARY_PERIODIC : CO_BOUNDARY_WALLS);
        if (!st) st = co_collider_step(c, 15);
        float gx = 0, gvx = 0;
        if (!st) st = co_collider_read(c, &gx, NULL, &gvx, NULL);
        check(st == CO_OK && (periodic ? gx < 1 && gvx > 0 : gx < 9.6f && gvx < 0),
              "collider %s on %s: x %g vx %g", periodic ? "periodic" : "walls", spec, gx, gvx);
        co_collider_destroy(c);
    }
    /* Random balls, checked against the workload's reference (check mode). */
    co_context_set_check(ctx, true);
    c = NULL;
    st = co_collider_create_random(ctx, dev, NULL, 257, 0.2, 0.4, 30, 20, 1, 0.05, 7, &c);
    if (!st) st = co_collider_step(c, 6);
    if (!st) st = co_collider_step(c, 3);
    float *xs = malloc(257 * 4), *ys = malloc(257 * 4);
    if (!st) st = co_collider_read(c, xs, ys, NULL, NULL);
    bool inside = true;
    for (size_t i = 0; !st && i < 257; i++)
        inside &= xs[i] >= 0 && xs[i] <= 30 && ys[i] >= 0 && ys[i] <= 20;
    check(st == CO_OK && inside, "random collider on %s, checked", spec);
    free(xs), free(ys);
    co_collider_destroy(c);
    co_context_set_check(ctx, false);
}

/* ---- ray tracer ---- */

static void scene_of(co_rt_scene *s, co_rt_sphere *sp, co_rt_light *li) {
    co_rt_scene_default(s);
    const co_rt_sphere spheres[3] = {{{0, 1, 0}, 1, {0.9f, 0.2f, 0.2f}, 0, 2, 1, 0, 0.5f},
                                     {{-3, 1.5f, 4}, 1.5f, {0.2f, 0.8f, 0.3f}, 0.5f, 0, 0, 0, 0},
                                     {{3, 0.7f, -2}, 0.7f, {0.3f, 0.3f, 0.9f}, 0, 1, -1, 1, 1}};
    const co_rt_light lights[2] = {{{10, 15, -5}, {0.7f, 0.7f, 0.7f}},
                                   {{-10, 12, -8}, {0.5f, 0.5f, 0.6f}}};
    memcpy(sp, spheres, sizeof spheres);
    memcpy(li, lights, sizeof lights);
    s->spheres = sp, s->nspheres = 3, s->lights = li, s->nlights = 2;
}

static void test_raytracer(co_context *ctx, size_t dev, const char *spec, size_t host_dev) {
    co_rt_scene s;
    co_rt_sphere sp[3];
    co_rt_light li[2];
    scene_of(&s, sp, li);
    co_raytracer *rt = NULL, *ref = NULL;
    co_status st = co_raytracer_create(ctx, dev, NULL, &s, &rt);
    if (!st) st = co_raytracer_create(ctx, host_dev, "c", &s, &ref);
    check(st == CO_OK, "co_raytracer_create on %s", spec);
    static const size_t dims[][2] = {{1, 1}, {17, 9}, {64, 48}};
    for (size_t di = 0; !st && di < 3; di++)
        for (int buf = 0; buf < 2; buf++) {
            const size_t w = dims[di][0], h = dims[di][1], stride = 4 * w + (buf ? 0 : 8);
            unsigned char *img = calloc(stride * h, 1), *want = calloc(4 * w * h, 1);
            co_buffer *k;
            co_mem m = operand(ctx, dev, buf, img, stride * h, &k);
            co_status s1 = co_raytracer_render(rt, w, h, 0.75, m, stride);
            co_status s2 = co_raytracer_render(ref, w, h, 0.75, co_mem_host(want), 4 * w);
            fetch(k, img, stride * h);
            size_t off = 0;
            unsigned lo = 255, hi = 0;
            for (size_t y = 0; y < h; y++)
                for (size_t x = 0; x < w; x++) {
                    int worst = 0;
                    for (int c = 0; c < 4; c++) {
                        const int d = abs(img[y * stride + 4 * x + c] - want[(y * w + x) * 4 + c]);
                        worst = d > worst ? d : worst;
                    }
                    off += worst > 2;
                    lo = img[y * stride + 4 * x] < lo ? img[y * stride + 4 * x] : lo;
                    hi = img[y * stride + 4 * x] > hi ? img[y * stride + 4 * x] : hi;
                }
            const double most = fmax(1, 0.001 * (double)(w * h));
            check(s1 == CO_OK && s2 == CO_OK && (double)off <= most &&
                      (w * h < 100 || hi > lo + 50),
                  "co_raytracer_render on %s: %zux%zu stride %zu %s: %zu px off, red %u..%u", spec,
                  w, h, stride, buf ? "buffer" : "host", off, lo, hi);
            free(img), free(want);
        }
    co_raytracer_destroy(rt);
    co_raytracer_destroy(ref);
}

/* co_rt_scene_random is the workload's seeded scene: the library's frame of
 * it is the CLI's (`coalesce run raytrace --seed S --output F.png`), both on
 * the host tracer. */
static void test_rt_random(co_context *ctx, size_t host_dev) {
    enum { W = 96, H = 64, NS = 40, NL = 3 };
    co_rt_scene s;
    co_rt_sphere sp[NS];
    co_rt_light li[NL];
    unsigned char img[4 * W * H];
    co_raytracer *rt = NULL;
    co_status st = co_rt_scene_random(&s, sp, NS, li, NL, 11);
    if (!st) st = co_raytracer_create(ctx, host_dev, "c", &s, &rt);
    if (!st) st = co_raytracer_render(rt, W, H, 0.5, co_mem_host(img), 4 * W);
    co_raytracer_destroy(rt);
    char path[] = "/tmp/coalesce-test-lib-XXXXXX";
    const int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    const co_option opts[] = {{"width", "96"}, {"height", "64"}, {"spheres", "40"},
                              {"lights", "3"}, {"time", "0.5"},  {"output", path}};
    co_run_config cfg = {.workload = "raytrace",
                         .variant = "c",
                         .device = host_dev,
                         .options = opts,
                         .noptions = 6,
                         .reps = 1,
                         .seed = 11};
    co_result r;
    co_image cli = {0};
    if (!st) st = fd >= 0 ? co_run(ctx, &cfg, &r) : CO_ERR_IO;
    if (!st) st = co_image_load(path, 4, &cli);
    remove(path);
    size_t off = 0;
    for (size_t i = 0; !st && i < W * H; i++)
        for (int c = 0; c < 4; c++) off += cli.pixels[4 * i + c] != img[4 * i + c];
    check(st == CO_OK && off == 0 && s.nspheres == NS && sp[NS - 1].radius > 0,
          "co_rt_scene_random: the library's frame is the CLI's (%zu bytes differ)", off);
    co_image_free(&cli);
}

/* ---- a workload no variant of which runs on a device ---- */

/* Whether the workload runs on the device; if not (Vulkan, until its shader
 * exists), its call must say so with CO_ERR_UNSUPPORTED, not fail otherwise. */
static bool runs(co_context *ctx, size_t dev, const char *spec, const char *wl) {
    if (co_variant_default(ctx, wl, dev)) return true;
    printf("skip %s on %s: %s\n", wl, spec, co_last_error());
    unsigned char img[4 * 3 * 2] = {1}, out[sizeof img];
    co_status st = CO_ERR_UNSUPPORTED;
    if (!strcmp(wl, "boxfilter"))
        st = co_boxfilter(ctx, dev, NULL, CO_FORMAT_RGBA8, 3, 2, 1, CO_BORDER_CLAMP,
                          co_mem_host(img), 12, co_mem_host(out), 12);
    else if (!strcmp(wl, "collider")) {
        co_collider *c = NULL;
        st = co_collider_create_random(ctx, dev, NULL, 4, 0.5, 0.5, 10, 10, 1, 0.1, 1, &c);
        co_collider_destroy(c);
    } else if (!strcmp(wl, "raytrace")) {
        co_rt_scene s;
        co_rt_light li = {{0, 10, 0}, {1, 1, 1}};
        co_rt_scene_default(&s);
        s.lights = &li, s.nlights = 1;
        co_raytracer *rt = NULL;
        st = co_raytracer_create(ctx, dev, NULL, &s, &rt);
        if (!st) st = co_raytracer_render(rt, 3, 2, 0, co_mem_host(img), 12);
        co_raytracer_destroy(rt);
    }
    check(st == CO_ERR_UNSUPPORTED, "%s on %s, where it does not run: status %s", wl, spec,
          co_status_name(st));
    return false;
}

/* ---- check mode: the calls verified against the workloads' references ---- */

static void test_check_mode(co_context *ctx, size_t dev, const char *spec) {
    co_context_set_check(ctx, true);
    enum { N = 777 };
    float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = frand();
    double sum;
    co_buffer *ka;
    co_mem ma = operand(ctx, dev, true, a, sizeof a, &ka);
    check(co_copy(ctx, dev, NULL, N, ma, co_mem_host(b)) == CO_OK, "checked co_copy on %s", spec);
    check(co_reduce_sum(ctx, dev, NULL, N, ma, &sum) == CO_OK, "checked co_reduce_sum on %s", spec);
    float c[21 * 37], bb[19 * 37];
    for (int i = 0; i < 19 * 37; i++) bb[i] = frand();
    check(co_sgemm_ex(ctx, dev, NULL, CO_ROW_MAJOR, CO_TRANS, CO_NO_TRANS, 21, 37, 19, 2, ma, 21,
                      co_mem_host(bb), 37, 0, co_mem_host(c), 37) == CO_OK,
          "checked co_sgemm_ex on %s", spec);
    unsigned char img[4 * 13 * 11], gray[13 * 11];
    for (size_t i = 0; i < sizeof img; i++) img[i] = (unsigned char)(urand() * 256);
    check(co_grayscale(ctx, dev, NULL, 13, 11, co_mem_host(img), 52, co_mem_host(gray), 13) ==
              CO_OK,
          "checked co_grayscale on %s", spec);
    unsigned char blur[sizeof img];
    if (co_variant_default(ctx, "boxfilter", dev))
        check(co_boxfilter(ctx, dev, NULL, CO_FORMAT_RGBA8, 13, 11, 2, CO_BORDER_REFLECT101,
                           co_mem_host(img), 52, co_mem_host(blur), 52) == CO_OK,
              "checked co_boxfilter on %s", spec);
    co_rt_scene s;
    co_rt_sphere sp[3];
    co_rt_light li[2];
    scene_of(&s, sp, li);
    co_raytracer *rt = NULL;
    unsigned char frame[4 * 32 * 24];
    if (co_variant_default(ctx, "raytrace", dev))
        check(co_raytracer_create(ctx, dev, NULL, &s, &rt) == CO_OK &&
                  co_raytracer_render(rt, 32, 24, 1.5, co_mem_host(frame), 128) == CO_OK,
              "checked co_raytracer_render on %s", spec);
    co_raytracer_destroy(rt);
    co_buffer_free(ka);
    co_context_set_check(ctx, false);
}

/* ---- a pipeline on device buffers: no copy between the calls ---- */

/* The pipeline's box filter, or where none runs on the device (Vulkan until
 * its shader exists) a bitwise copy of the image's bytes in its place. */
static co_status pipe_box(co_context *ctx, size_t dev, bool box, co_format fmt, size_t w, size_t h,
                          unsigned r, co_border border, co_mem in, co_mem out) {
    if (box) return co_boxfilter(ctx, dev, NULL, fmt, w, h, r, border, in, 4 * w, out, 4 * w);
    return co_copy(ctx, dev, NULL, w * h, in, out);
}

static void test_pipeline(co_context *ctx, size_t dev, const char *spec) {
    enum { W = 61, H = 33, GS = W + 5 }; /* gray rows GS bytes apart: unpacked on the device */
    unsigned char *rgba = malloc(4 * W * H), gray[GS * H], gray2[W * H];
    float *f = malloc(4 * W * H);
    const bool box = co_variant_default(ctx, "boxfilter", dev) != NULL;
    for (size_t i = 0; i < 4 * W * H; i++) rgba[i] = (unsigned char)(urand() * 256);
    for (size_t i = 0; i < W * H; i++) f[i] = (float)urand();
    co_buffer *in, *blur, *g, *fin, *fout;
    co_status st = co_buffer_create(ctx, dev, 4 * W * H, &in);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &blur);
    if (!st) st = co_buffer_create(ctx, dev, GS * H, &g);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &fin);
    if (!st) st = co_buffer_create(ctx, dev, 4 * W * H, &fout);
    if (st) {
        check(false, "pipeline buffers on %s", spec);
        return;
    }
    check(co_buffer_size(in) == 4 * W * H && co_buffer_device(in) == dev,
          "buffer size and device on %s", spec);
    co_buffer_upload(in, rgba, 4 * W * H);
    co_buffer_upload(fin, f, 4 * W * H);
    /* Warm: the first reduce makes its zeroed ticket (one upload, once per device). */
    double sum = 0, sum2 = 0;
    co_reduce_sum(ctx, dev, NULL, W * H, co_mem_buffer(fin), &sum);
    co_context_reset_copies(ctx);
    /* rgba -> box filter -> grayscale (strided rows); float image -> box filter -> copy -> sum;
     * reused buffers. */
    st = pipe_box(ctx, dev, box, CO_FORMAT_RGBA8, W, H, 2, CO_BORDER_CLAMP, co_mem_buffer(in),
                  co_mem_buffer(blur));
    if (!st)
        st = co_grayscale(ctx, dev, NULL, W, H, co_mem_buffer(blur), 4 * W, co_mem_buffer(g), GS);
    if (!st)
        st = pipe_box(ctx, dev, box, CO_FORMAT_F32, W, H, 3, CO_BORDER_ZERO, co_mem_buffer(fin),
                      co_mem_buffer(fout));
    if (!st) st = co_copy(ctx, dev, NULL, W * H, co_mem_buffer(fout), co_mem_buffer(fin));
    if (!st) st = co_reduce_sum(ctx, dev, NULL, W * H, co_mem_buffer(fin), &sum);
    co_copy_stats cs;
    co_context_copies(ctx, &cs);
    /* On c and omp the sum is host memory already: nothing at all. */
    const char *be = co_device_get(ctx, dev)->backend;
    const unsigned want = strcmp(be, "c") && strcmp(be, "omp") ? 1 : 0;
    check(st == CO_OK && cs.uploads == 0 && cs.downloads == want && cs.download_bytes == 4 * want,
          "device-buffer pipeline on %s%s: %s, %llu uploads, %llu downloads (%llu bytes): only "
          "the sum comes back",
          spec, box ? "" : " (copies for the box filter)", co_status_name(st),
          (unsigned long long)cs.uploads, (unsigned long long)cs.downloads,
          (unsigned long long)cs.download_bytes);
    /* The same pipeline from host pointers agrees. */
    unsigned char *hb = malloc(4 * W * H);
    float *hf = malloc(4 * W * H);
    st = pipe_box(ctx, dev, box, CO_FORMAT_RGBA8, W, H, 2, CO_BORDER_CLAMP, co_mem_host(rgba),
                  co_mem_host(hb));
    if (!st) st = co_grayscale(ctx, dev, NULL, W, H, co_mem_host(hb), 4 * W, co_mem_host(gray2), W);
    if (!st)
        st = pipe_box(ctx, dev, box, CO_FORMAT_F32, W, H, 3, CO_BORDER_ZERO, co_mem_host(f),
                      co_mem_host(hf));
    if (!st) st = co_reduce_sum(ctx, dev, NULL, W * H, co_mem_host(hf), &sum2);
    co_buffer_download(g, gray, GS * H);
    bool same = true;
    for (size_t y = 0; y < H; y++) same &= memcmp(gray + y * GS, gray2 + y * W, W) == 0;
    check(st == CO_OK && same && sum == sum2,
          "pipeline on %s: buffers and host pointers agree (%.9g, %.9g)", spec, sum, sum2);
    co_buffer_free(in), co_buffer_free(blur), co_buffer_free(g), co_buffer_free(fin);
    co_buffer_free(fout);
    free(rgba), free(f), free(hb), free(hf);
}

/* ---- bad arguments ---- */

#define BAD(call, word)                                                                            \
    do {                                                                                           \
        co_fail_clear();                                                                           \
        co_status s_ = (call);                                                                     \
        check(s_ == CO_ERR_INVALID && strstr(co_last_error(), word) != NULL,                       \
              "%s -> %s, naming '%s'", #call, co_status_name(s_), word);                           \
    } while (0)

static void co_fail_clear(void) {
    co_context *none = NULL;
    co_context_set_check(none, false); /* sets a message; any other call overwrites it */
}

static void test_bad(co_context *ctx, size_t ndev, const size_t *host, size_t nhost,
                     const size_t *gpu, size_t ngpu) {
    float x[16] = {0}, y[16];
    unsigned char img[64];
    double sum;
    co_buffer *small = NULL, *b = NULL;
    check(co_buffer_create(ctx, 0, 8, &small) == CO_OK, "a small buffer");
    BAD(co_buffer_create(NULL, 0, 8, &b), "ctx");
    BAD(co_buffer_create(ctx, 0, 0, &b), "bytes");
    BAD(co_buffer_create(ctx, ndev + 5, 8, &b), "device index");
    BAD(co_buffer_create(ctx, 0, 8, NULL), "out");
    BAD(co_buffer_upload(small, x, 9), "bytes");
    BAD(co_buffer_upload(NULL, x, 4), "buf");
    BAD(co_buffer_download(small, NULL, 4), "dst");
    BAD(co_buffer_write(small, 9, x, 1), "offset 9 is past");
    BAD(co_buffer_write(small, 4, x, 5), "from offset 4");
    BAD(co_buffer_write(small, 2, x, 0), "bytes is 0");
    BAD(co_buffer_write(NULL, 0, x, 4), "buf");
    BAD(co_buffer_read(small, 8, y, 1), "bytes is 1, the buffer holds 0 from offset 8");
    BAD(co_buffer_read(small, SIZE_MAX, y, 1), "past");
    BAD(co_buffer_read(small, 1, NULL, 4), "dst");
    co_fail_clear();
    check(co_buffer_size(NULL) == 0 && strstr(co_last_error(), "buf"), "co_buffer_size(NULL)");
    BAD(co_copy(NULL, 0, NULL, 4, co_mem_host(x), co_mem_host(y)), "ctx");
    BAD(co_copy(ctx, 0, NULL, 0, co_mem_host(x), co_mem_host(y)), "n is 0");
    BAD(co_copy(ctx, 0, NULL, 4, co_mem_host(NULL), co_mem_host(y)), "src");
    BAD(co_copy(ctx, 0, NULL, 4, co_mem_host(x), co_mem_buffer(small)), "dst");
    BAD(co_copy(ctx, 0, NULL, 4, co_mem_host(x), co_mem_host(x + 2)), "overlaps");
    BAD(co_copy(ctx, 0, "nope", 4, co_mem_host(x), co_mem_host(y)), "nope");
    BAD(co_copy(ctx, ndev, NULL, 4, co_mem_host(x), co_mem_host(y)), "device index");
    co_mem both = {small, x};
    BAD(co_copy(ctx, 0, NULL, 1, both, co_mem_host(y)), "both");
    BAD(co_reduce_sum(ctx, 0, NULL, 4, co_mem_host(x), NULL), "sum");
    BAD(co_reduce_sum(ctx, 0, NULL, (size_t)1 << 33, co_mem_host(x), &sum), "2^31");
    BAD(co_grayscale(ctx, 0, NULL, 4, 4, co_mem_host(img), 15, co_mem_host(img), 4), "narrower");
    BAD(co_grayscale(ctx, 0, NULL, 4, 0, co_mem_host(img), 16, co_mem_host(img), 4), "height");
    BAD(co_grayscale(ctx, 0, NULL, 1, SIZE_MAX / 2, co_mem_host(img), 1u << 30, co_mem_host(img),
                     1),
        "co_grayscale");
    BAD(co_grayscale(ctx, 0, NULL, 1, 3, co_mem_buffer(small), 1u << 30, co_mem_host(img), 4),
        "needs");
    BAD(co_grayscale(ctx, 0, NULL, 2, 2, co_mem_host(img), 8, co_mem_buffer(small), 8), "needs");
    BAD(co_boxfilter(ctx, 0, NULL, (co_format)7, 2, 2, 1, CO_BORDER_CLAMP, co_mem_host(img), 8,
                     co_mem_host(img + 32), 8),
        "format");
    BAD(co_boxfilter(ctx, 0, NULL, CO_FORMAT_F32, 2, 2, 1, (co_border)9, co_mem_host(img), 8,
                     co_mem_host(img + 32), 8),
        "border");
    BAD(co_boxfilter(ctx, 0, NULL, CO_FORMAT_RGBA8, 2, 2, 5000, CO_BORDER_CLAMP, co_mem_host(img),
                     8, co_mem_host(img + 32), 8),
        "radius");
    BAD(co_boxfilter(ctx, 0, NULL, CO_FORMAT_F32, 2, 2, 1, CO_BORDER_CLAMP, co_mem_host(img), 8,
                     co_mem_host(img), 8),
        "overlaps");
    /* strided rows that overlap (each call would stage them through packed copies) */
    BAD(co_boxfilter(ctx, 0, NULL, CO_FORMAT_F32, 2, 2, 1, CO_BORDER_CLAMP, co_mem_host(img), 12,
                     co_mem_host(img + 4), 12),
        "overlaps");
    BAD(co_grayscale(ctx, 0, NULL, 2, 2, co_mem_host(img), 12, co_mem_host(img), 12), "overlaps");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, 1,
                    co_mem_host(x), 2, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "lda");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_COL_MAJOR, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, 1,
                    co_mem_host(x), 2, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "ldb");
    BAD(co_sgemm_ex(ctx, 0, NULL, (co_layout)3, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, 1,
                    co_mem_host(x), 3, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "layout");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, (co_transpose)5, 2, 2, 3, 1,
                    co_mem_host(x), 3, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "trans_b");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, NAN,
                    co_mem_host(x), 3, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "alpha");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, (size_t)1 << 62, 2, 3, 1,
                    co_mem_host(x), 3, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "overflows");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, 1,
                    co_mem_buffer(small), 3, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "needs");
    BAD(co_sgemm_ex(ctx, 0, NULL, CO_ROW_MAJOR, CO_NO_TRANS, CO_NO_TRANS, 2, 2, 3, 1,
                    co_mem_host(x), (size_t)1 << 31, co_mem_host(x), 2, 0, co_mem_host(y), 2),
        "2^31");
    co_collider *c = NULL;
    const float one = 1, rad = 0.5f, fast = 100;
    BAD(co_collider_create(ctx, 0, NULL, 1, 10, 10, 0.1, &one, &one, &one, &one, NULL, NULL, &c),
        "radius");
    BAD(co_collider_create(ctx, 0, NULL, 1, 10, 10, 0.1, &one, &one, &fast, &one, &rad, NULL, &c),
        "dt");
    BAD(co_collider_create(ctx, 0, NULL, 1, 1, 1, 0.1, &one, &one, &one, &one, &rad, NULL, &c),
        "box");
    BAD(co_collider_create(ctx, 0, NULL, 0, 10, 10, 0.1, &one, &one, &one, &one, &rad, NULL, &c),
        "balls");
    BAD(co_collider_create_random(ctx, 0, NULL, 100000, 0.5, 0.5, 10, 10, 1, 0.1, 1, &c), "fit");
    BAD(co_collider_step(NULL, 1), "NULL");
    BAD(co_collider_set_boundary(NULL, CO_BOUNDARY_WALLS), "NULL");
    co_rt_scene s;
    co_rt_scene_default(&s);
    co_raytracer *rt = NULL;
    BAD(co_raytracer_create(ctx, 0, NULL, &s, &rt), "nlights");
    co_rt_sphere rs[2];
    co_rt_light rl[9];
    BAD(co_rt_scene_random(NULL, rs, 2, rl, 1, 1), "scene");
    BAD(co_rt_scene_random(&s, NULL, 2, rl, 1, 1), "spheres");
    BAD(co_rt_scene_random(&s, rs, 5000, rl, 1, 1), "4096");
    BAD(co_rt_scene_random(&s, rs, 2, rl, 9, 1), "nlights");
    BAD(co_rt_scene_random(&s, rs, 2, NULL, 1, 1), "lights");
    co_rt_light li = {{0, 10, 0}, {1, 1, 1}};
    s.lights = &li, s.nlights = 1, s.fov_deg = 0;
    BAD(co_raytracer_create(ctx, 0, NULL, &s, &rt), "fov");
    s.fov_deg = 50, s.look_at[0] = s.eye[0], s.look_at[2] = s.eye[2];
    BAD(co_raytracer_create(ctx, 0, NULL, &s, &rt), "straight");
    co_rt_scene_default(&s);
    s.lights = &li, s.nlights = 1;
    check(co_raytracer_create(ctx, 0, NULL, &s, &rt) == CO_OK, "a raytracer without spheres");
    BAD(co_raytracer_render(rt, 4, 4, 0, co_mem_host(img), 15), "narrower");
    BAD(co_raytracer_render(rt, 4, 4, 0, co_mem_buffer(small), 16), "needs");
    BAD(co_raytracer_render(rt, 40000, 4, 0, co_mem_host(img), 160000), "32768");
    co_raytracer_destroy(rt);
    /* Buffers cross the two host devices, never to another device. */
    for (size_t i = 0; i < nhost; i++)
        for (size_t j = 0; j < nhost; j++) {
            co_buffer *bi, *bj;
            co_buffer_create(ctx, host[i], 16 * 4, &bi);
            co_buffer_create(ctx, host[j], 16 * 4, &bj);
            for (int k = 0; k < 16; k++) x[k] = (float)k;
            co_buffer_upload(bi, x, sizeof x);
            co_status st = co_copy(ctx, host[j], NULL, 16, co_mem_buffer(bi), co_mem_buffer(bj));
            co_buffer_download(bj, y, sizeof y);
            check(st == CO_OK && memcmp(x, y, sizeof x) == 0,
                  "buffer of host device %zu used on %zu", host[i], host[j]);
            co_buffer_free(bi), co_buffer_free(bj);
        }
    for (size_t g = 0; g < ngpu; g++) {
        co_buffer *bg;
        co_buffer_create(ctx, gpu[g], 64, &bg);
        BAD(co_copy(ctx, host[0], NULL, 16, co_mem_buffer(bg), co_mem_host(y)), "not moved");
        BAD(co_copy(ctx, gpu[g], NULL, 16, co_mem_host(x), co_mem_buffer(small)), "not moved");
        co_buffer_free(bg);
    }
    co_buffer_free(small);
    co_buffer_free(NULL);
    co_collider_destroy(NULL);
    co_raytracer_destroy(NULL);
}

/* ---- threads ---- */

typedef struct worker {
    co_context *ctx; /* shared, or NULL: the thread makes its own */
    size_t device;
    int id;
    int bad;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    co_context *ctx = w->ctx;
    if (!ctx && co_context_create(&ctx)) {
        w->bad++;
        return NULL;
    }
    enum { M = 19, N = 23, K = 29 };
    float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)((i * 7 + w->id) % 11) - 5;
    for (int i = 0; i < K * N; i++) b[i] = (float)((i * 3 + w->id) % 7) - 3;
    co_buffer *buf = NULL;
    for (int rep = 0; rep < 6; rep++) {
        if (co_sgemm(ctx, w->device, NULL, M, N, K, a, b, c)) w->bad++;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float ref = 0; /* small integers: exact in float */
                for (int p = 0; p < K; p++) ref += a[i * K + p] * b[p * N + j];
                if (c[i * N + j] != ref) w->bad++;
            }
        double sum = 0;
        if (co_buffer_create(ctx, w->device, sizeof a, &buf) ||
            co_buffer_upload(buf, a, sizeof a) ||
            co_reduce_sum(ctx, w->device, NULL, M * K, co_mem_buffer(buf), &sum))
            w->bad++;
        double ref = 0;
        for (int i = 0; i < M * K; i++) ref += a[i];
        if (sum != ref) w->bad++;
        co_buffer_free(buf);
    }
    if (!w->ctx) co_context_destroy(ctx);
    return NULL;
}

static void test_threads(co_context *shared, size_t device, const char *spec) {
    enum { T = 4 };
    for (int mode = 0; mode < 2; mode++) {
        pthread_t th[T];
        worker w[T];
        for (int i = 0; i < T; i++) {
            w[i] = (worker){.ctx = mode ? shared : NULL, .device = device, .id = i};
            pthread_create(&th[i], NULL, work, &w[i]);
        }
        int bad = 0;
        for (int i = 0; i < T; i++) pthread_join(th[i], NULL), bad += w[i].bad;
        check(bad == 0, "%d threads on %s, %s: %d wrong results or failures", T, spec,
              mode ? "one shared context" : "a context each", bad);
    }
}

/* The calls use the tuning database's values (coalesce tune) where it has
 * some for the device, variant and size class: an entry with gemm tiled's
 * TS = 128 (a 128x128 work-group, over every device's limit) makes a call
 * fail with the limit, which it does not without the entry. A cache
 * directory of its own: the other tests' stays as it is. */
static void test_tuned(co_context *ctx, size_t dev, const char *spec) {
    const co_device_info *info = co_device_get(ctx, dev);
    if (!co_variant_runs_on(ctx, "gemm", "tiled", dev, NULL)) return;
    const char *old = getenv("COALESCE_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL, dir[] = "/tmp/coalesce-test-lib-XXXXXX", path[64];
    if (!mkdtemp(dir)) {
        check(false, "%s tuned: mkdtemp", spec);
        free(saved);
        return;
    }
    setenv("COALESCE_CACHE_DIR", dir, 1);
    static float a[48 * 48], b[48 * 48], c[48 * 48];
    for (int i = 0; i < 48 * 48; i++) a[i] = 1.0f + (float)(i % 7), b[i] = 2.0f - (float)(i % 5);
    check(co_sgemm(ctx, dev, "tiled", 32, 32, 32, a, b, c) == CO_OK, "%s: sgemm tiled, untuned: %s",
          spec, co_last_error());
    snprintf(path, sizeof path, "%s/tune.json", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f,
                "{\"coalesce_tune\": 1, \"entries\": [{\"backend\": \"%s\", \"device_name\": "
                "\"%s\", \"driver\": \"%s\", \"workload\": \"gemm\", \"variant\": \"tiled\", "
                "\"size_class\": \"k=32 m=32 n=32\", \"sizes\": \"m=32 n=32 k=32\", \"params\": "
                "{\"TS\": 128}, \"local\": [0, 0, 0], \"median_ms\": 1, \"default_ms\": 1}]}\n",
                info->backend, info->name, info->driver_version);
        fclose(f);
    }
    const co_status st = co_sgemm(ctx, dev, "tiled", 32, 32, 32, a, b, c);
    check(f && st == CO_ERR_LIMIT, "%s: sgemm tiled with the database's TS=128: %s (%s)", spec,
          co_status_name(st), co_last_error());
    check(co_sgemm(ctx, dev, "tiled", 32, 32, 48, a, b, c) == CO_OK,
          "%s: sgemm tiled at another size class: the defaults (%s)", spec, co_last_error());
    remove(path);
    rmdir(dir);
    if (saved)
        setenv("COALESCE_CACHE_DIR", saved, 1);
    else
        unsetenv("COALESCE_CACHE_DIR");
    free(saved);
}

int main(int argc, char **argv) {
    co_context *ctx;
    if (co_context_create(&ctx)) {
        printf("no context: %s\n", co_last_error());
        return 1;
    }
    const char *only = argc > 1 ? argv[1] : NULL; /* a device spec: one device's slice */
    const size_t ndev = co_device_count(ctx);
    size_t host[4], nhost = 0, gpu[16], ngpu = 0;
    for (size_t d = 0; d < ndev; d++) {
        const co_device_info *info = co_device_get(ctx, d);
        if (!strcmp(info->backend, "c") || !strcmp(info->backend, "omp"))
            host[nhost++] = d;
        else if (ngpu < 16)
            gpu[ngpu++] = d;
    }
    for (size_t d = 0; d < ndev; d++) {
        const char *spec = co_device_get(ctx, d)->spec;
        if (only && strcmp(only, spec)) continue;
        printf("device %s (%s)\n", spec, co_device_get(ctx, d)->name);
        fflush(stdout);
        test_buffer_ranges(ctx, d, spec);
        test_sgemm_ex(ctx, d, spec);
        test_copy_reduce(ctx, d, spec);
        test_kept_growth(d, spec);
        test_grayscale(ctx, d, spec);
        if (runs(ctx, d, spec, "boxfilter")) test_boxfilter(ctx, d, spec);
        if (runs(ctx, d, spec, "collider")) test_collider(ctx, d, spec);
        if (runs(ctx, d, spec, "raytrace")) test_raytracer(ctx, d, spec, host[0]);
        test_check_mode(ctx, d, spec);
        test_pipeline(ctx, d, spec);
        test_threads(ctx, d, spec);
        test_tuned(ctx, d, spec);
    }
    if (!only) test_rt_random(ctx, host[0]);
    test_bad(ctx, ndev, host, nhost, gpu, ngpu);
    co_context_destroy(ctx);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
