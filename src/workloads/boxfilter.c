/* Workload boxfilter: the normalised (2r+1)x(2r+1) mean filter, any radius
 * r >= 0, on float32 (one channel), RGBA8 or gray8 (one 8-bit channel)
 * images of any size (the formats: box_formats), borders
 * clamp (OpenCV BORDER_REPLICATE), reflect101 (BORDER_REFLECT_101, reflected
 * repeatedly on images smaller than the window) and zero (BORDER_CONSTANT 0;
 * the divisor stays (2r+1)^2), as cv::boxFilter with normalize = true.
 *
 * Model: bytes = the image read once and written once; no operation count.
 * Reference: separable window sums in double (exact for RGBA8): direct
 * for r <= 8, running sums above.
 *
 * 8-bit (RGBA8, gray8): every sum is an exact 32-bit integer (255 (2r+1)^2
 * < 2^32 up to r = 2047, the limit); the result is the exact mean rounded
 * to nearest, held to |out - ref| <= 0.5 (stricter than OpenCV's +-1); an
 * anchor whose rounding is not documented (NPP) either that or truncated,
 * 0 <= ref - out < 1, the check naming which (box_anchor_model).
 *
 * float32, the error model. u = 2^-24, n = 2r+1, M = max|in|. A pass sums
 * along one line of values at most L in size (the first pass L = M, the
 * second L = n M, its input being window sums); its error, in units of u L:
 *  - a window summed directly, compensated (Kahan: 2u sum|x| + O(N u^2);
 *    a weight times a pixel rounds once more, the sum's last step once):
 *    4n. Every window of c/naive/separable/transpose/image, box_slide's and
 *    box_fused's first window of a segment. bf_window turns any radius
 *    into weights on the line's pixels (clamp: the taps beyond an edge are
 *    (count) x that pixel; reflect101: whole periods as weights; zero: the
 *    taps outside skipped), so r = 2^20 reads O(W + H) a pixel, not 2^21;
 *  - a running sum, S steps after its (compensated) start: each step's
 *    delta a - b rounds once (2, as |a - b| <= 2L) and is added compensated
 *    (box_slide, BF_SLIDE: 4): 6 a step, plus n for the result taken
 *    without its compensation: k = 5n + 6S;
 *  - batched (box_fused's and box_ring's vertical pass): within a batch of
 *    B rows a plain run from the compensation, |run| <= 2 min(B, n) L, so
 *    2 min(B, n) more a step: k = 5n + S (6 + 2 min(B, n)); the ring's
 *    window is filled by S = seg + 2r such steps from zero;
 *  - the horizontal parts of P pixels (box_fused, box_ring): the part's
 *    first window plain (n^2: n u sum|x|) or with BF_KAHAN0 (r > 64, past the
 *    tuned GPU shapes) compensated (4n; from block sums (P + 4) n), then P
 *    plain steps on the window sum itself (n + 4 each): k = first + P (n + 4).
 * The row sums' errors enter the second pass's window n times, each
 * removed as added (the same rounded values leave the window), so the
 * mean's error is u M ((k1 + k2) / n + 3), the 3 for the reciprocal of
 * n^2, the product and the float result (|ref| <= M). Each run records its
 * K = (k1 + k2) / n (box_state.model) from the segments, batches and parts
 * it launched; verify holds max |out - ref| / M to u (K + 3). At r = 0
 * every variant returns its input exactly (one term a sum; sliding takes
 * box_naive there, a running sum of one pixel being no sum), held to 0. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"
#include "core/image.h"
#include "core/outfile.h"
#include "core/workload.h"
#include "workloads/boxfilter.h"

/* kernels/boxfilter.cl as host C, once per format: the `c` variant runs
 * box_naive, the very code of the `naive` kernel, one element per call. */
#define CO_HOST_C 1
#include "dialect.h"
#define BF_U8 0
#define BF_CH 1
#define BF_NAME(x) x##_f32
#include "boxfilter.cl"
#undef BF_U8
#undef BF_CH
#undef BF_NAME
#define BF_U8 1
#define BF_CH 4
#define BF_NAME(x) x##_rgba8
#include "boxfilter.cl"
#undef BF_U8
#undef BF_CH
#undef BF_NAME
#define BF_U8 1
#define BF_CH 1
#define BF_NAME(x) x##_gray8
#include "boxfilter.cl"
#undef BF_U8
#undef BF_CH
#undef BF_NAME

/* box_naive of one format, one element (co_host_id). */
typedef void (*box_naive_fn)(int w, int h, int r, int border, const void *in, void *out);
#define NAIVE_(fmt, T)                                                                             \
    static void naive_##fmt(int w, int h, int r, int border, const void *in, void *out) {          \
        box_naive_##fmt(w, h, r, border, (const T *)in, (T *)out);                                 \
    }
NAIVE_(f32, float)
NAIVE_(rgba8, uchar)
NAIVE_(gray8, uchar)
#undef NAIVE_

/* Largest radius of 8-bit formats: 255.5 * (2r+1)^2 must fit 32-bit sums. */
#define U8_MAX_RADIUS 2047
#define F32_MAX_RADIUS (1 << 20)

/* The formats, in --format's order. A PNG given with --input is decoded to
 * `png_channels` (f32: its gray scaled to [0, 1]). */
typedef struct box_format {
    const char *name;
    int ch;  /* channels a pixel (kernels: BF_CH) */
    bool u8; /* 8-bit elements, exact integer sums (kernels: BF_U8); else float32 */
    int max_radius;
    co_img_format img; /* the image variant's */
    box_naive_fn naive;
} box_format;
enum { FMT_F32, FMT_RGBA8, FMT_GRAY8 };
static const box_format box_formats[] = {
    [FMT_F32] = {"f32", 1, false, F32_MAX_RADIUS, CO_IMG_R_F32, naive_f32},
    [FMT_RGBA8] = {"rgba8", 4, true, U8_MAX_RADIUS, CO_IMG_RGBA_U8, naive_rgba8},
    [FMT_GRAY8] = {"gray8", 1, true, U8_MAX_RADIUS, CO_IMG_R_U8, naive_gray8},
};
#define FORMAT_CHOICES "f32|rgba8|gray8"

typedef struct box_state {
    int w, h, radius, border, format, ch;
    const box_format *fmt;
    size_t elems; /* w * h * ch */
    void *in, *out;
    co_image input; /* --input pixels, if given */
    double *ref, scale;
    double model; /* float32: the last run's error bound K, in units of u max|in| (the model) */
    bool any_rounding; /* 8-bit: the last run's means rounded to nearest or down (an anchor's) */
    /* Device objects kept between repetitions, freed with the problem. */
    co_device *dev;
    co_buf *tmp;
    co_img *img;
} box_state;

static const co_option_def options[] = {
    {"width", "1920", "image width in pixels (default: the --input image's)"},
    {"height", "1080", "image height in pixels (default: the --input image's)"},
    {"radius", "3", "window radius r >= 0: (2r+1) x (2r+1) pixels"},
    {"border", "clamp", "clamp (replicate the edge), reflect101 or zero"},
    {"format", "f32",
     "f32 (one float channel), rgba8 or gray8 (one 8-bit channel) (default: the --input "
     "file's: rgba8 for RGB/RGBA, gray8 for gray; else f32)"},
    {"input", NULL,
     "PNG to filter (f32: its gray scaled to [0,1]; rgba8: RGBA; gray8: gray); else random "
     "pixels"},
    {"output", NULL,
     "write the filtered image of the last run: PNG, or with a name ending .raw "
     "its values as they are (float32 or 8-bit bytes, rows packed, this machine's byte order)"},
};

static const char *const border_names[] = {"clamp", "reflect101", "zero"};

/* Border and format are words among the result's sizes (JSON strings). */
static void problem_word(co_problem *p, const char *name, const char *word) {
    if (p->nsizes == CO_MAX_KV) return;
    snprintf(p->sizes[p->nsizes].name, sizeof p->sizes[0].name, "%s", name);
    snprintf(p->sizes[p->nsizes].value, sizeof p->sizes[0].value, "%s", word);
    p->nsizes++;
}

/* Width and height: the options, else the --input image's; both must agree. */
static co_status parse_size(const co_option *opts, size_t n, const co_image *img, int *w, int *h) {
    size_t sw, sh;
    co_status st = co_opt_size(opts, n, "width", img->pixels ? (size_t)img->width : 1920, &sw);
    if (!st) st = co_opt_size(opts, n, "height", img->pixels ? (size_t)img->height : 1080, &sh);
    if (st) return st;
    if (img->pixels && (sw != (size_t)img->width || sh != (size_t)img->height))
        return co_fail(CO_ERR_INVALID,
                       "--width/--height %zux%zu differ from the --input image's "
                       "%dx%d (leave them out to use the image's)",
                       sw, sh, img->width, img->height);
    /* The kernels index elements of a row and rows with int. */
    if (sw * 4 >= (1u << 30) || sh >= (1u << 30))
        return co_fail(CO_ERR_INVALID,
                       "boxfilter %zux%zu: width and height must be under 2^28 "
                       "and 2^30 pixels",
                       sw, sh);
    *w = (int)sw;
    *h = (int)sh;
    return CO_OK;
}

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    box_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    const char *input = co_opt(opts, nopts, "input");
    co_status st = co_opt_choice(opts, nopts, "border", "clamp|reflect101|zero", 0, &s->border);
    /* The format follows the --input file where --format does not say:
     * colour (RGB, RGBA) stays colour, gray (and gray + alpha) stays gray. */
    int file_channels = 0;
    if (!st && input && !co_opt(opts, nopts, "format"))
        st = co_image_channels(input, &file_channels);
    if (!st)
        st = co_opt_choice(opts, nopts, "format", FORMAT_CHOICES,
                           !file_channels       ? FMT_F32
                           : file_channels >= 3 ? FMT_RGBA8
                                                : FMT_GRAY8,
                           &s->format);
    if (st) return st;
    s->fmt = &box_formats[s->format];
    st = co_opt_int(opts, nopts, "radius", 3, 0, F32_MAX_RADIUS, &s->radius);
    if (!st && s->radius > s->fmt->max_radius)
        st = co_fail(CO_ERR_INVALID,
                     "--radius=%d is over %s's limit %d: its sums are exact 32-bit "
                     "integers, and 255 (2r+1)^2 fits them up to r = %d (--format f32 takes radii "
                     "up to %d)",
                     s->radius, s->fmt->name, s->fmt->max_radius, s->fmt->max_radius,
                     F32_MAX_RADIUS);
    s->ch = s->fmt->ch;
    if (!st && input) st = co_image_load(input, s->ch, &s->input);
    if (!st) st = parse_size(opts, nopts, &s->input, &s->w, &s->h);
    if (st) return st;
    s->elems = (size_t)s->w * s->h * s->ch;
    const size_t esize = s->fmt->u8 ? 1 : sizeof(float);
    st = co_problem_array(p, "in", s->elems * esize, false, &s->in);
    if (!st) st = co_problem_array(p, "out", s->elems * esize, true, &s->out);
    if (st) return st;
    /* Counted with the arrays: the reference's two planes in double, the
     * decoded --input and the --output image; on the device the two-pass
     * variants' sums (tmp) and the image variant's copy of the input. */
    p->host_check_bytes = 2 * s->elems * sizeof(double);
    p->host_extra_bytes = (input ? s->elems : 0) + s->elems + CO_PNG_WRITE_BYTES(s->elems);
    p->device_extra_bytes = s->elems * 4 + (size_t)s->w * s->h * 4;
    co_problem_size(p, "width", (size_t)s->w);
    co_problem_size(p, "height", (size_t)s->h);
    co_problem_size(p, "radius", (size_t)s->radius);
    problem_word(p, "border", border_names[s->border]);
    problem_word(p, "format", s->fmt->name);
    p->bytes = 2.0 * (double)s->elems * (double)esize;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    box_state *s = p->state;
    co_rng r = {seed};
    float *f = s->in;
    unsigned char *u = s->in;
    for (size_t i = 0; i < s->elems; i++) {
        if (s->input.pixels && !s->fmt->u8)
            f[i] = s->input.pixels[i] / 255.0f;
        else if (s->input.pixels)
            u[i] = s->input.pixels[i];
        else if (!s->fmt->u8)
            f[i] = co_rng_float(&r, 0.0f, 1.0f);
        else
            u[i] = (unsigned char)(1 + co_rng_next(&r) % 255); /* never 0 */
    }
}

static double in_at(const box_state *s, size_t i) {
    return s->fmt->u8 ? ((const unsigned char *)s->in)[i] : ((const float *)s->in)[i];
}

/* F(t) of a line of n values extended by the border rule: the sum of its
 * taps 0 .. t-1 (t < 0: minus those of t .. -1), from pre[k] = the sum of
 * values 0 .. k-1 (first = value 0, last = value n-1); a window's sum is
 * F(x + r + 1) - F(x - r), O(1) at any radius. Reflect101 is periodic in
 * 2(n-1) taps, each period the line twice less its ends. */
static double line_prefix(const double *pre, double first, double last, int n, long long t,
                          int border) {
    if (border == BF_ZERO) return pre[t < 0 ? 0 : t > n ? n : t];
    if (border == BF_CLAMP || n == 1)
        return t < 0 ? (double)t * first : t <= n ? pre[t] : pre[n] + (double)(t - n) * last;
    const long long period = 2 * (long long)(n - 1);
    long long q = t / period, m = t - q * period;
    if (m < 0) m += period, q--;
    const double g = m <= n ? pre[m] : pre[n] + pre[n - 1] - pre[period - m + 1];
    return (double)q * (pre[n] + pre[n - 1] - pre[1]) + g;
}

/* The window sums of a line of n values (line[i stride]) into out[i
 * ostride], pre a scratch of n + 1. Double: exact for 8-bit data (every
 * partial sum an integer under 2^53), else a relative 2^-53 per add, far
 * inside the model's float32 bound. */
void box_line_windows(const double *line, size_t stride, int n, int r, int border, double *pre,
                      double *out, size_t ostride) {
    pre[0] = 0;
    for (int i = 0; i < n; i++) pre[i + 1] = pre[i] + line[(size_t)i * stride];
    const double first = line[0], last = line[(size_t)(n - 1) * stride];
    for (int i = 0; i < n; i++)
        out[(size_t)i * ostride] = line_prefix(pre, first, last, n, (long long)i + r + 1, border) -
                                   line_prefix(pre, first, last, n, (long long)i - r, border);
}

/* The reference: row sums, then column sums of them, in double (closed
 * form: box_line_windows), divided by (2r+1)^2. */
static co_status reference(co_problem *p) {
    box_state *s = p->state;
    free(s->ref);
    s->ref = malloc(s->elems * sizeof *s->ref);
    double *rows = malloc(s->elems * sizeof *rows);
    if (!s->ref || !rows) {
        free(rows);
        return co_fail(CO_ERR_NOMEM, "out of host memory for the boxfilter reference");
    }
    const int w = s->w, h = s->h, r = s->radius, ch = s->ch, border = s->border;
    const size_t ec = (size_t)w * ch, len = (size_t)(w > h ? w : h) + 1;
    const double area = (2.0 * r + 1) * (2.0 * r + 1);
    double scale = 0;
    bool failed = false;
#pragma omp parallel reduction(max : scale)
    {
        double *line = malloc(2 * len * sizeof *line), *pre = line ? line + len : NULL;
        if (!line) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for
        for (int y = 0; y < h; y++)
            for (int c = 0; line && c < ch; c++) {
                for (int x = 0; x < w; x++) {
                    line[x] = in_at(s, (size_t)y * ec + (size_t)x * ch + c);
                    if (fabs(line[x]) > scale) scale = fabs(line[x]);
                }
                box_line_windows(line, 1, w, r, border, pre, rows + (size_t)y * ec + c, (size_t)ch);
            }
#pragma omp for
        for (long e = 0; e < (long)ec; e++) {
            if (!line) continue;
            box_line_windows(rows + e, ec, h, r, border, pre, s->ref + e, ec);
            for (int y = 0; y < h; y++) s->ref[(size_t)y * ec + (size_t)e] /= area;
        }
        free(line);
    }
    free(rows);
    if (failed) return co_fail(CO_ERR_NOMEM, "out of host memory for the boxfilter reference");
    s->scale = scale;
    return CO_OK;
}

/* The error model's pass coefficients (the header comment), in units of u L. */
static double k_direct(double n) { return 4 * n; }
static double k_slide(double n, double steps) { return 5 * n + 6 * steps; }
static double k_batched(double n, double steps, double batch) {
    return 5 * n + steps * (6 + 2 * fmin(batch, n));
}
static double k_parts(double n, double part, double first) { return first + part * (n + 4); }

/* Records a run's bound K = (k1 + k2) / n for verify. */
static void model(box_state *s, double k1, double k2) {
    s->model = (k1 + k2) / (2.0 * s->radius + 1);
    s->any_rounding = false;
}

void box_anchor_model(co_problem *p, double k, bool u8_any_rounding) {
    box_state *s = p->state;
    s->model = k;
    s->any_rounding = u8_any_rounding;
}

void box_describe(const co_problem *p, box_problem *out) {
    const box_state *s = p->state;
    *out = (box_problem){s->w, s->h, s->ch, s->radius, s->border, s->fmt->u8};
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    box_state *s = p->state;
    double worst = 0;
    bool truncated = false;
    if (!s->fmt->u8) {
        const float *out = s->out;
        const double scale = s->scale > 0 ? s->scale : 1;
        for (size_t i = 0; i < s->elems; i++) {
            const double e = isfinite(out[i]) ? fabs(out[i] - s->ref[i]) / scale
                                              : INFINITY; /* poison left in place */
            if (!(e <= worst)) worst = e;
        }
        *tolerance = s->radius ? 0x1p-24 * (s->model + 3) : 0;
    } else {
        /* Rounded to nearest: |out - ref| <= 0.5. Truncated (an anchor
         * whose rounding is not documented may do either, all its means
         * one way): floor(sum / d), 0 <= ref - out <= 1 - 1/d (ref's own
         * rounding: 2^-52 of 255, far inside half a step), a mean above
         * the exact one wrong whatever its size. */
        const unsigned char *out = s->out;
        double down = 0;
        for (size_t i = 0; i < s->elems; i++) {
            const double d = s->ref[i] - out[i];
            if (fabs(d) > worst) worst = fabs(d);
            if ((d >= -0x1p-40 ? d : 1 - d) > down) down = d >= -0x1p-40 ? d : 1 - d;
        }
        *tolerance = 0.5;
        truncated = s->any_rounding && worst > 0.5;
        if (truncated) {
            worst = down;
            *tolerance = 1 - 0.5 / ((2.0 * s->radius + 1) * (2.0 * s->radius + 1));
        }
    }
    *error = worst;
    snprintf(check, check_len, truncated ? "full, truncated" : "full");
    return CO_OK;
}

static co_status save(co_problem *p, const co_option *opts, size_t nopts) {
    box_state *s = p->state;
    const char *path = co_opt(opts, nopts, "output");
    if (!path) return CO_OK;
    const size_t len = strlen(path);
    if (len >= 4 && strcmp(path + len - 4, ".raw") == 0) { /* unquantised, for comparisons */
        const size_t bytes = s->elems * (s->fmt->u8 ? 1 : sizeof(float));
        co_outfile o;
        co_status st = co_outfile_open(&o, path);
        if (st) return st;
        fwrite(s->out, 1, bytes, o.f);
        return co_outfile_close(&o);
    }
    if (s->fmt->u8) return co_image_save_png(path, s->w, s->h, s->ch, s->out);
    unsigned char *px = malloc(s->elems);
    if (!px) return co_fail(CO_ERR_NOMEM, "out of host memory for the output image");
    const float *out = s->out;
    for (size_t i = 0; i < s->elems; i++) {
        const float v = out[i] * 255.0f + 0.5f;
        px[i] = (unsigned char)(v <= 0.0f ? 0.0f : v >= 255.0f ? 255.0f : v);
    }
    co_status st = co_image_save_png(path, s->w, s->h, 1, px);
    free(px);
    return st;
}

static void destroy(co_problem *p) {
    box_state *s = p->state;
    if (!s) return;
    if (s->tmp) s->dev->backend->free(s->dev, s->tmp);
    if (s->img) s->dev->backend->image_free(s->dev, s->img);
    co_image_free(&s->input);
    free(s->ref);
    free(s);
    p->state = NULL;
}

/* ---- host variants ---- */

/* Every window summed directly (compensated), both passes (the model). */
static void direct_model(box_state *s) {
    const double n = 2.0 * s->radius + 1;
    model(s, k_direct(n), k_direct(n));
}

/* Direct window sum per element: box_naive of kernels/boxfilter.cl. */
static co_status run_c(co_job *job) {
    box_state *s = job->prob->state;
    direct_model(s);
    const size_t ec = (size_t)s->w * s->ch;
    for (size_t y = 0; y < (size_t)s->h; y++)
        for (size_t i = 0; i < ec; i++) {
            if (co_job_progress(job, "pixel", (double)(y * (size_t)s->w + i / (size_t)s->ch),
                                (double)s->h * s->w))
                return co_job_stopped(job);
            co_host_id[0] = i, co_host_id[1] = y;
            s->fmt->naive(s->w, s->h, s->radius, s->border, s->in, s->out);
        }
    return CO_OK;
}

/* Column sums, then window sums along rows, each thread a band of rows
 * (src/workloads/boxfilter_omp.c): exact integers for 8-bit formats; float32
 * small windows summed whole in float, larger ones run in double. */
static co_status run_omp(co_job *job) {
    box_state *s = job->prob->state;
    box_problem b;
    box_describe(job->prob, &b);
    direct_model(s);
    s->model = box_omp(&b, s->in, s->out);
    return s->model >= 0
               ? CO_OK
               : co_fail(CO_ERR_NOMEM, "out of host memory for the boxfilter row buffers");
}

/* ---- device variants: one kernel source for OpenCL and CUDA, GLSL twins for Vulkan ---- */

/* Whether the fused passes (box_fused, box_ring) take an RGBA8 pixel as one
 * element, a uchar4 summed as a uint4 (kernels/boxfilter_common.cl's
 * BF_PX4), on OpenCL and CUDA: PX4 1 always, 2 never, 0 (auto) on GPUs
 * from r = 16 (r <= 7 takes box_quad). H200, 8192^2, zero
 * border, against byte elements in one run
 * (docs/results/2026-12-02-h200-o.md): CUDA r = 64 0.88 ms against 2.61,
 * r = 16 0.633 against 0.649, r = 1 0.523 against 0.455; NVIDIA OpenCL 1.18
 * against 2.82, 0.93 against 1.29, 1.20 against 0.57. The plans then count
 * pixels, of one channel (fused_ch) and 16 bytes a sum (fused_acc), where
 * byte elements had 4. */
static bool fused_px4(const co_job *job) {
    const box_state *s = job->prob->state;
    if (!s->fmt->u8 || s->ch != 4 || co_glsl_device(job->dev)) return false;
    const long px4 = co_job_param(job, "PX4"); /* read only where it applies: the tuner's space */
    if (px4 == 2) return false;
    return px4 == 1 || (job->dev->info.type != CO_DEVICE_CPU && s->radius >= 16);
}
static size_t fused_ch(const co_job *job) {
    const box_state *s = job->prob->state;
    return fused_px4(job) ? 1 : (size_t)s->ch;
}
static size_t fused_acc(const co_job *job) { return fused_px4(job) ? 16 : 4; }

/* Kernel `entry` of kernels/boxfilter.cl, or for box_fused and box_ring
 * of kernels/boxfilter_fused.cl; on Vulkan every entry of
 * kernels/boxfilter.comp, whose 8-bit formats read and write through 8-bit
 * storage. */
static co_status kernel_for(co_job *job, const char *entry, int first, int final, const char *more,
                            co_kernel **k) {
    const box_state *s = job->prob->state;
    const bool glsl = co_glsl_device(job->dev) != NULL, quad = !strcmp(entry, "box_quad");
    if (glsl && s->fmt->u8 && !quad && !co_glsl_device(job->dev)->int8)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "boxfilter --format %s on %s: the device has no 8-bit storage buffers "
                       "(storageBuffer8BitAccess, shaderInt8); --format f32 runs",
                       s->fmt->name, job->dev->info.spec);
    const bool fused = !glsl && (!strcmp(entry, "box_fused") || !strcmp(entry, "box_ring"));
    const bool px4 = fused && fused_px4(job);
    /* MAXREG is CUDA's alone: elsewhere it is not read, so not tuned. */
    const long maxreg =
        (fused || quad) && co_device_on(job->dev) == CO_ON_CUDA ? co_job_param(job, "MAXREG") : 0;
    char extra[640], defines[1024];
    const int n = snprintf(extra, sizeof extra,
                           "-DBF_U8=%d -DBF_CH=%zu -DBF_PX4=%d -DBF_FIRST=%d -DBF_FINAL=%d "
                           "-DMAXREG=%ld%s%s",
                           s->fmt->u8, px4 ? 1 : (size_t)s->ch, px4, first, final, maxreg,
                           more ? " " : "", more ? more : "");
    if (n < 0 || (size_t)n >= sizeof extra)
        return co_fail(CO_ERR_INVALID, "boxfilter: the kernel's defines are too long (%d bytes)",
                       n);
    co_job_defines(job, extra, defines, sizeof defines);
    const char *file = fused ? "boxfilter_fused" : quad ? "boxfilter_quad" : "boxfilter";
    return co_job_kernel(job, file, entry, defines, k);
}

/* The intermediate of the two-pass variants: raw sums (float or uint32). */
static co_status scratch(co_job *job, co_buf **out) {
    box_state *s = job->prob->state;
    if (!s->tmp) {
        co_status st = job->dev->backend->alloc(job->dev, s->elems * 4, &s->tmp);
        if (st) return st;
        s->dev = job->dev;
    }
    *out = s->tmp;
    return CO_OK;
}

static void group(const co_job *job, size_t def, size_t local[3]) {
    local[0] = job->local[0] ? job->local[0] : def;
    local[1] = job->local[1] ? job->local[1] : def;
    local[2] = 1;
}

/* One pass over an element grid of W*ch x H: naive (dir < 0) or a line sum. */
static co_status grid_pass(co_job *job, const char *entry, int first, int final, int dir,
                           co_buf *src, co_buf *dst) {
    box_state *s = job->prob->state;
    size_t local[3];
    group(job, 16, local);
    const size_t global[3] = {(size_t)s->w * s->ch, (size_t)s->h, 1};
    co_kernel *k;
    co_status st = co_job_check(job, 2, local, 0);
    if (!st) st = kernel_for(job, entry, first, final, NULL, &k);
    if (st) return st;
    co_arg args[7] = {CO_INT(s->w), CO_INT(s->h), CO_INT(s->radius), CO_INT(s->border)};
    size_t n = 4;
    if (dir >= 0) args[n++] = CO_INT(dir);
    args[n++] = CO_BUF(src);
    args[n++] = CO_BUF(dst);
    return co_job_launch(job, k, 2, global, local, 0, n, args);
}

static co_status run_naive(co_job *job) {
    co_array *a = job->prob->arrays;
    direct_model(job->prob->state);
    return grid_pass(job, "box_naive", 1, 1, -1, a[BOX_IN].buf, a[BOX_OUT].buf);
}

static co_status run_separable(co_job *job) {
    co_array *a = job->prob->arrays;
    direct_model(job->prob->state);
    co_buf *tmp;
    co_status st = scratch(job, &tmp);
    if (!st) st = grid_pass(job, "box_line", 1, 0, 0, a[BOX_IN].buf, tmp);
    return st ? st : grid_pass(job, "box_line", 0, 1, 1, tmp, a[BOX_OUT].buf);
}

/* Both passes of a transposing variant: in (h x w) -> tmp (w x h) -> out. */
typedef co_status (*transposing_pass)(co_job *job, int first, int final, int w, int h, co_buf *src,
                                      co_buf *dst);

static co_status two_transposed(co_job *job, transposing_pass pass) {
    box_state *s = job->prob->state;
    co_array *a = job->prob->arrays;
    co_buf *tmp;
    co_status st = scratch(job, &tmp);
    if (!st) st = pass(job, 1, 0, s->w, s->h, a[BOX_IN].buf, tmp);
    return st ? st : pass(job, 0, 1, s->h, s->w, tmp, a[BOX_OUT].buf);
}

static co_status transpose_pass(co_job *job, int first, int final, int w, int h, co_buf *src,
                                co_buf *dst) {
    const box_state *s = job->prob->state;
    const size_t tile = (size_t)co_job_param(job, "TILE");
    const size_t local[3] = {tile, tile, 1};
    const size_t global[3] = {co_ceil_to((size_t)w, tile), co_ceil_to((size_t)h, tile), 1};
    const size_t lmem = tile * (tile * s->ch + 1) * 4;
    co_kernel *k;
    char tiles[32]; /* host tunables: the fused kernels neither see nor rebuild for them */
    snprintf(tiles, sizeof tiles, "-DTILE=%zu", tile);
    co_status st = co_job_fixed_local(job, local, "its parameters");
    if (!st) st = co_job_check(job, 2, local, lmem);
    if (!st) st = kernel_for(job, "box_transpose", first, final, tiles, &k);
    if (st) return st;
    const co_arg args[] = {CO_INT(w),         CO_INT(h),   CO_INT(s->radius),
                           CO_INT(s->border), CO_BUF(src), CO_BUF(dst)};
    return co_job_launch(job, k, 2, global, local, lmem, 6, args);
}

/* Rows per segment of box_slide: SEG (0: 256); where a fused pass was
 * asked for but does not fit (a wide halo), its SEG rounded up to whole
 * tiles. */
static size_t slide_seg(const co_job *job) {
    const size_t seg = co_job_param(job, "SEG") ? (size_t)co_job_param(job, "SEG") : 256;
    const size_t tile = (size_t)co_job_param(job, "TILE");
    return co_job_param(job, "FUSE") ? co_ceil_to(seg, tile) : seg;
}

static co_status slide_pass(co_job *job, int first, int final, int w, int h, co_buf *src,
                            co_buf *dst) {
    const box_state *s = job->prob->state;
    const size_t tile = (size_t)co_job_param(job, "TILE"), sy = (size_t)co_job_param(job, "SY");
    const size_t seg = slide_seg(job);
    if (seg % tile || tile < (size_t)s->ch)
        return co_fail(CO_ERR_INVALID,
                       "sliding needs SEG a multiple of TILE and TILE >= %d "
                       "(SEG=%zu, TILE=%zu)",
                       s->ch, seg, tile);
    const size_t local[3] = {tile, sy, 1};
    const size_t segments = ((size_t)h + seg - 1) / seg;
    const size_t global[3] = {co_ceil_to((size_t)w * s->ch, tile), co_ceil_to(segments, sy), 1};
    const size_t lmem = sy * tile * (tile + 1) * 4;
    co_kernel *k;
    char tiles[64];
    snprintf(tiles, sizeof tiles, "-DTILE=%zu -DSY=%zu", tile, sy);
    co_status st = co_job_fixed_local(job, local, "its parameters");
    if (!st) st = co_job_check(job, 2, local, lmem);
    if (!st) st = kernel_for(job, "box_slide", first, final, tiles, &k);
    if (st) return st;
    const co_arg args[] = {CO_INT(w),   CO_INT(h),   CO_INT(s->radius), CO_INT(s->border),
                           CO_INT(seg), CO_BUF(src), CO_BUF(dst)};
    return co_job_launch(job, k, 2, global, local, lmem, 7, args);
}

/* Rows per segment of the fused pass, where SEG does not say: eight
 * windows tall (starting a window, 2r+1 rows read, costs at most an eighth
 * more reads), shortened down to four windows where the image would give
 * fewer groups than compute units. Where the leaving rows come from
 * registers (hist) and the window is narrow, at least 64 rows, so many
 * groups that the last, partial wave of them costs little. H200, 8192^2
 * (docs/results/2026-11-30-h200-c.md): r = 1, 0.166 ms with 64 rows against
 * 0.186 with the 249 that eight groups per compute unit gave; r = 64, 0.309
 * ms with 1032 rows (one wave of groups) against 0.324 with 547; at r = 16
 * it is 6% slower than 128 rows (0.257 against 0.242 ms). */
static size_t fused_segment(const co_job *job, size_t strips, bool hist) {
    const box_state *s = job->prob->state;
    const size_t h = (size_t)s->h, window = 2 * (size_t)s->radius + 1;
    const size_t cus = (size_t)job->dev->info.compute_units;
    size_t seg = 8 * window, shortest = 4 * window;
    if (hist && seg < 64) {
        seg = 64;
        shortest = shortest < 16 ? 16 : shortest;
    }
    if (strips * ((h + seg - 1) / seg) < cus) {
        const size_t segs = (cus + strips - 1) / strips;
        seg = (h + segs - 1) / segs;
        if (seg < shortest) seg = shortest;
    }
    return seg < h ? seg : h;
}

/* Work-items per group of the fused pass at most (the ring pass: the
 * device's maximum); wider strips and halos take the two transposed
 * passes. */
enum { FUSED_MAX_GROUP = 512 };

/* The local memory of a fused pass: lm (the batch's columns T and the
 * block sums), then `rows` rows of NT + 1 (the batch's window sums, or the
 * ring). */
typedef struct fused_plan {
    size_t batch, part, parts, blocks, lm_bytes, rows,
        bytes;     /* parts: of a row, PART pixels each */
    size_t groups; /* the ring: the groups a compute unit was fitted for */
    bool pipe;     /* the ring pipelined (box_ring's BF_PIPE) */
    bool vec;      /* the ring's rows read four columns at a time (box_ring's BF_VEC) */
} fused_plan;

/* Rows per segment of the ring pass, where SEG does not say: one wave, as
 * many groups as the compute units hold, so that a window is started as
 * few times as possible. On GPUs the groups a compute unit holds are the
 * shape's (plan->groups; fused_fit made room for them in local memory),
 * on CPUs as many as local memory holds. Local memory's count alone had
 * the H200 holding three of r = 12-16's pairs shape where their registers
 * let two run: 384 groups on 264 places took 0.183 ms at r = 16 against
 * 0.148 with 256 (docs/results/2026-12-01-h200-l.md, runs 59-60). */
static size_t ring_segment(const co_job *job, size_t strips, const fused_plan *plan) {
    const box_state *s = job->prob->state;
    const co_device_info *info = &job->dev->info;
    const size_t per_cu =
        info->type != CO_DEVICE_CPU ? plan->groups : info->local_mem_arg_bytes / plan->bytes;
    const size_t slots = (size_t)info->compute_units * (per_cu ? per_cu : 1);
    const size_t segs = strips < slots ? slots / strips : 1, h = (size_t)s->h;
    return (h + segs - 1) / segs;
}

/* Images from this many pixels get the ring's row pitch compiled in on GPUs. */
enum { PITCH_PIXELS = 1 << 20 };

/* Whether the ring is built with the image's row pitch, the radius and the
 * ring's height compiled in (a build per image width and radius: one
 * address a batch of rows, not one a row, and loops of fixed length; the
 * pass is bound by its instructions on GPUs): where VEC 1 asks for it, and
 * on GPUs for images of a million pixels or more, where the build's time
 * is soon paid back. */
static bool ring_compiled(const co_job *job) {
    const box_state *s = job->prob->state;
    return co_job_param(job, "VEC") == 1 ||
           (job->dev->info.type != CO_DEVICE_CPU && (size_t)s->w * (size_t)s->h >= PITCH_PIXELS);
}

/* Whether the ring's horizontal pass reads (and writes) four columns at a
 * time with parts of `part` pixels (box_ring's BF_VEC: its batch rows
 * row-major in local memory): float32, parts a multiple of 4 and the
 * radius compiled in; VEC 1 wherever that holds, 2 never, 0 (auto) where
 * the radius is compiled in anyway and parts are `vec_part` pixels or
 * fewer, the shape's choice (ring_shape; H200, 8192^2, r = 24 / 56 / 64
 * with 16: 1.4 / 1.2 / 0.5% faster; r = 32 with 32 and 256 columns: 4%
 * slower, why not profiled: sm_90's build takes 96 registers either way,
 * run 51; r = 64 with 32 and 192 columns: 3.5% faster, run 78;
 * docs/results/2026-12-01-h200-l.md). */
static bool ring_vec(const co_job *job, size_t part, size_t vec_part) {
    const box_state *s = job->prob->state;
    const long vec = co_job_param(job, "VEC");
    /* (Vulkan: GLSL has no float4 view of a float shared array, so box_ring's
     * GLSL twin has no BF_VEC.) */
    return vec != 2 && !s->fmt->u8 && s->ch == 1 && part % 4 == 0 && ring_compiled(job) &&
           (vec == 1 || part <= vec_part) && !co_glsl_device(job->dev);
}

/* Whether the fused pass keeps the window's leaving rows in registers
 * (HIST: the widest window it keeps there). */
static bool fused_hist(const co_job *job) {
    const box_state *s = job->prob->state;
    return 2 * s->radius + 1 <= co_job_param(job, "HIST");
}

/* Rows per batch before local memory has its say. BATCH 0: with the ring,
 * 16; else 16 where the leaving rows come from registers, 8 up to r = 16
 * (fewer registers, more groups resident), 16 above. */
static size_t first_batch(const co_job *job, size_t nt, bool ring) {
    const box_state *s = job->prob->state;
    size_t batch = (size_t)co_job_param(job, "BATCH");
    if (!batch) batch = ring || fused_hist(job) || s->radius > 16 ? 16 : 8;
    return batch < nt ? batch : nt;
}

/* Whether the ring pass is pipelined (box_ring's BF_PIPE): PIPE 1 or 2 say;
 * PIPE 0 (auto) takes `preferred`, the shape's own choice. */
static bool ring_pipe(const co_job *job, bool preferred) {
    const long pipe = co_job_param(job, "PIPE");
    return pipe ? pipe == 1 : preferred;
}

/* Rows per batch halved from batch0 until the pass fits `limit` bytes of
 * local memory; false where none does. `pipe`: the ring pipelined;
 * `vec_part`: ring_vec's. */
static bool fused_fit(const co_job *job, size_t nt, bool ring, bool pipe, size_t vec_part,
                      size_t batch0, size_t limit, fused_plan *p) {
    const box_state *s = job->prob->state;
    const size_t ch = fused_ch(job), acc = fused_acc(job);
    const size_t window = 2 * (size_t)s->radius + 1, hc = nt + 2 * (size_t)s->radius * ch;
    p->pipe = ring && pipe;
    for (size_t batch = batch0; batch >= 1; batch /= 2) {
        /* Parts of as many pixels as rows (kernels/boxfilter_fused.cl's BF_PART): for
         * float32 a block is then a warp's own columns (box_ring's block
         * sums wait for that warp only, on CUDA). */
        p->batch = batch;
        p->part = batch;
        p->parts = (nt / ch + p->part - 1) / p->part;
        const size_t spans = (size_t)co_job_param(job, "BLOCKS");
        p->blocks = spans && window >= spans * p->part ? p->parts - 1 + window / p->part : 0;
        /* T (column-major, or row-major in rows of bf_lm_pitch) and the
         * block sums; with BF_VEC whole 16 bytes, so that the second lm
         * and the ring start aligned. */
        p->vec = ring && ring_vec(job, p->part, vec_part);
        size_t lm = (p->vec ? batch * (size_t)bf_lm_pitch((int)hc) : hc * (batch + 1)) +
                    batch * p->blocks * ch;
        if (p->vec) lm = co_ceil_to(lm, 4);
        p->lm_bytes = lm * acc * (1 + p->pipe);
        /* The ring: whole batches (box_ring's runs of rows then never wrap)
         * past the window's whole batches, one, so that a batch's entering
         * rows overwrite no leaving row of its own but the first (2r+1) mod
         * BATCH, carried in registers; two where those are more than one
         * (a short last batch reads them from the ring); pipelined, a batch
         * more. (2r + BATCH rounded up, except with 1-row batches, which
         * need 2r + 2.) */
        const size_t carried = window % batch;
        p->rows = ring ? batch * (window / batch + 1 + (carried > 1) + p->pipe) : batch;
        p->bytes = p->lm_bytes + p->rows * (nt + (p->vec ? 4 : 1)) * acc; /* box_ring's BF_OP */
        if (p->bytes <= limit) return true;
    }
    return false;
}

/* Work-items per group of a fused pass over strips nt wide: a column of
 * strip and halo each, whole warps. (Two or more columns a work-item, for
 * less halo with wider strips, did not pay on the H200:
 * docs/results/2026-11-30-h200-c.md, -d.md.) */
static size_t strip_group(const co_job *job, size_t nt) {
    const box_state *s = job->prob->state;
    return co_ceil_to(nt + 2 * (size_t)s->radius * fused_ch(job), 32);
}

/* A shape of the ring pass: strips `width` columns wide, `groups` groups a
 * compute unit, batches of `batch` rows, pipelined or not, rows row-major
 * with parts up to `vec_part` pixels (ring_vec). */
typedef struct ring_shape {
    size_t width, groups, batch;
    bool pipe;
    size_t vec_part;
} ring_shape;

/* Whether the ring pass fits the shape's groups of strips nt wide on a
 * compute unit (batches halved from batch0 until it does); PIPE may
 * override the shape's pipelining. */
static bool ring_fit(const co_job *job, size_t nt, const ring_shape *shape, size_t batch0,
                     fused_plan *plan) {
    const co_device_info *info = &job->dev->info;
    plan->groups = shape->groups;
    return strip_group(job, nt) <= info->max_work_group_size &&
           fused_fit(job, nt, true, ring_pipe(job, shape->pipe), shape->vec_part, batch0,
                     info->local_mem_arg_bytes / shape->groups, plan);
}

/* The ring's shapes on a GPU, best first, by radius: measured on the H200
 * at 8192^2 with the radius compiled in (docs/results/2026-11-30-h200-j.md,
 * run 36, its times with 20-30 us of launch latency; -k.md, runs 40-44,
 * without; -l.md, runs 73-79; ms): up to r = 24 two groups of 256 columns
 * and 16-row batches (r = 20: 0.174 against 0.181-0.216 for the others, run
 * 36; r = 24 within 1% of 32-row batches); to r = 48 one group of 256 with
 * 32-row batches (r = 32: 0.144 against 0.167 with 320 columns and 16 rows;
 * r = 40: 0.153 against 0.171; r = 48: 0.156 against 0.173); to r = 56 one
 * of 320 columns and 16 rows, not pipelined, in 192 KiB, so that the L1
 * keeps 60 KB of the SM's 256 (with 28, as over 195 KiB, every shape lost
 * 14-28%, run 75; 26 strips of 8192 in 5 segments: r = 52, 0.171 against
 * 0.190 pipelined; r = 56, 0.170-0.172 against 0.183-0.185); above, 256
 * and 16 rows pipelined (r = 60, 0.189 against 0.196 with 320 columns), but
 * at r = 64 192 columns and 32-row batches, not pipelined, in 164 KiB:
 * 0.159-0.161 against 0.172-0.175 (runs 78-79). Its batches carry one
 * leaving row (2r + 1 = 4 * 32 + 1; at r = 40, 56 and 60, with 17-25 carried, it
 * lost 2-36%) and execute fewer instructions a row than 16-row ones (ncu,
 * run 77: 67.5 M warp instructions at r = 64 against 52.0 M at r = 32 with
 * 32-row batches, the issue slots 36-38% busy in both); 43 strips in 3
 * segments, 129 groups on 132 SMs. Then the one-group shapes not tried
 * yet, for devices with less local memory. */
static int gpu_ring_shapes(int radius, bool px4, ring_shape *shapes) {
    /* A pixel's four sums take 16 bytes: narrower strips (H200, 8192^2, ms: r = 16,
     * 128 columns 0.640, 64 1.09, 32 0.93; r = 64, 64 columns 0.89, 32 1.79; r = 128, 32
     * columns 13.0, where the vertical-first pass took NVIDIA OpenCL 2.62;
     * docs/results/2026-12-02-h200-o.md). */
    if (px4) {
        const ring_shape px_wide = {128, 1, 16, false, 0}, px_mid = {64, 1, 16, false, 0},
                         px_short = {64, 1, 8, false, 0};
        shapes[0] = radius <= 16 ? px_wide : px_mid, shapes[1] = px_mid, shapes[2] = px_short;
        return 3;
    }
    const ring_shape pairs = {256, 2, 16, false, 16}, wide = {384, 1, 16, false, 16},
                     tall = {256, 1, 32, false, 16}, piped = {256, 1, 16, true, 16},
                     mid = {320, 1, 16, false, 16}, narrow = {192, 1, 32, false, 32};
    if (radius <= 24) {
        shapes[0] = pairs, shapes[1] = wide, shapes[2] = tall;
        return 3;
    }
    if (radius <= 48) {
        shapes[0] = tall, shapes[1] = wide;
        return 2;
    }
    if (radius <= 56) {
        shapes[0] = mid, shapes[1] = piped, shapes[2] = wide, shapes[3] = tall;
        return 4;
    }
    if (radius == 64) {
        shapes[0] = narrow, shapes[1] = piped, shapes[2] = wide, shapes[3] = tall;
        return 4;
    }
    /* Wider windows: narrower strips, whose ring still fits (r = 128: 128
     * columns, 0.282 ms against 0.524 vertical first; r = 256: 64 columns
     * and 32-row batches, 0.599 against 1.109; 2026-12-02-h200-p.md). */
    const ring_shape wide_window = {128, 1, 16, false, 16}, widest = {64, 1, 32, false, 16};
    shapes[0] = piped, shapes[1] = wide, shapes[2] = tall, shapes[3] = wide_window;
    shapes[4] = widest;
    return 5;
}

/* The ring pass or not, and with NT 0 (auto) the strips' width (Vulkan
 * too: kernels/boxfilter.comp has both passes). RING 1: the ring wherever
 * it fits. RING 2 (auto): on a CPU the ring wherever it
 * fits (PoCL on 2 EPYC cores, 2048^2: r = 1, 21.3 ms against 27.6 vertical
 * first; r = 16, 24.2 against 38.5; r = 64, 30.0 against 84.0; lavapipe,
 * whose 32 KiB hold the ring up to r = 28: r = 1, 106-108 ms against
 * 114-131; r = 16, 128-135 against 121-122, kept for one rule), strips 128
 * columns wide. On a GPU the first of gpu_ring_shapes that fits with whole
 * batches: float32 at 8192^2 on the H200 took 0.1404-0.1408 ms at r = 1-3
 * by the ring with ZSTORE, 0.1418 at r = 1 by the vertical-first pass (zero
 * border; clamp, and 1080p-4096^2: the ring faster too; RGBA8 r = 1: 0.468
 * against 0.565; r = 16, float32: 0.148 against 0.170;
 * docs/results/2026-12-01-h200-l.md, runs 59-65, 69-72). In 48 KiB (NVIDIA's
 * OpenCL; its Vulkan's maxComputeSharedMemorySize is 49152 as a rule) no
 * shape fits with its batches: vertical first there.
 * The vertical-first pass: 128 columns where the leaving rows come from
 * registers (H200, r = 16: 0.185 ms against 0.196 with 256), else 256. */
static bool ring_choice(const co_job *job, size_t *nt, fused_plan *plan) {
    const box_state *s = job->prob->state;
    const long ring = co_job_param(job, "RING");
    const bool cpu = job->dev->info.type == CO_DEVICE_CPU, hist = fused_hist(job);
    const size_t fused_nt = fused_px4(job) && !cpu ? 64 : cpu || hist ? 128 : 256;
    if (!co_job_param(job, "FUSE") || !ring) {
        if (!*nt) *nt = fused_nt;
        return false;
    }
    if (ring == 1 || cpu) {
        if (!*nt) *nt = cpu ? 128 : 256;
        const ring_shape one = {*nt, 1, 0, false, 16};
        return ring_fit(job, *nt, &one, first_batch(job, *nt, true), plan);
    }
    ring_shape shapes[5];
    const int n = gpu_ring_shapes(s->radius, fused_px4(job), shapes);
    for (int i = 0; i < n; i++) {
        const size_t width = *nt ? *nt : shapes[i].width;
        const size_t batch =
            co_job_param(job, "BATCH") ? first_batch(job, width, true) : shapes[i].batch;
        if (ring_fit(job, width, &shapes[i], batch, plan) && plan->batch == batch) {
            *nt = width;
            return true;
        }
    }
    if (!*nt) *nt = fused_nt;
    return false;
}

/* box_quad (kernels/boxfilter_quad.cl): RGBA8 at 1 <= r <= 7 (its packed
 * lanes' range), four pixels a work-item, on every device API (its GLSL
 * twin kernels/boxfilter_quad.comp reads words: no 8-bit storage). It
 * replaced the fused pass's byte elements there, slower everywhere measured
 * (QUAD=0 until QUAD came to choose for r >= 8 only). H200, 8192^2, zero
 * border, ms (docs/results/2026-12-02-h200-q.md): CUDA r = 1 / 4 / 7 0.2025 / 0.2363 /
 * 0.2593 against 0.4555 / 0.5052 / 0.5147, NVIDIA OpenCL 0.2191 / 0.2574 /
 * 0.2740 against 0.5704 / 0.7238 / 0.8137; PoCL, 2 cores, 2048x1536, clamp:
 * 20.4 / 21.4 / 22.4 against 69.5 / 65.8 / 77.1; lavapipe, the same: 269 /
 * 318 / 389 against 1344 / 1297 / 1576 (the GLSL twin not timed on a GPU
 * yet). QB 2 (rows a batch) measured best: 4 and 8 hold more registers
 * (their loads are a batch ahead), fewer groups a multiprocessor (CUDA r =
 * 1: 0.2080 and 0.2942).
 * Wider windows, 8 <= r <= 127 (the column sums' packed lanes), sum the
 * quads' channel totals (QWIDE), O(r / 4) local reads a quad, from r = 32
 * in blocks (QS): O(sqrt(r)); past r = 127 the column sums take 32 bits a
 * channel (QL32). Against the fused pass, ms (docs/results/
 * 2026-12-02-quad-wide.md, 2026-12-03-h200-r.md): H200 8192^2 zero, CUDA r
 * = 8 / 16 / 31 / 64 / 127 / 256 0.331 / 0.387 / 0.554 / 0.885 / 1.378 /
 * 1.972 against 0.520 / 0.632 / 1.273 / 0.874 / 2.897 / 3.333 (before the
 * blocks; NVIDIA OpenCL's and Vulkan's fused pass slower still); the
 * blocks took CUDA r = 32 / 64 / 127 / 256 to 0.460 / 0.559 / 0.957 /
 * 1.209 from 0.471 / 0.719 / 1.396 / 1.999 (Vulkan 1.3-1.6x); PoCL,
 * 2048x1536 clamp, with the blocks, r = 420 / 500 / 520 71 / 157 / 231
 * against 1175 / 323 / 325, but 458 against 345 at r = 540, where the 48
 * KiB hold 279 quads and the halo all but 9: by default while a group's
 * strip keeps QUAD_MIN_STRIP quads. Lavapipe r = 8 / 16 / 64 196 / 260 /
 * 576 against 818 / 1193 / 722 before the blocks; with them r = 64 / 96 /
 * 112 / 127 367 / 432 / 569 / 792 against 722 / 727 / 747 / 749 (its 32
 * KiB keep the group at 128 quads, half of them halo at r = 127): there up
 * to r = 112. */
#define QUAD_MAX_RADIUS 7
#define QUAD_PACKED_MAX_RADIUS 127 /* the column sums' 16-bit lanes */
#define QUAD_MAX_ANY_RADIUS 2047   /* the window sums' 32 bits: (2r+1)^2 255 < 2^32 */
#define QUAD_WIDE_LAVAPIPE_RADIUS 112
#define QUAD_MIN_STRIP 16 /* quads a group writes, for box_quad to be chosen */

/* box_quad's group (QNT quads, QH = ceil(r / 4) of them halo each side; 0:
 * 64 (128 for a GPU's wide windows), doubled up to 256 while the halo takes
 * over a quarter of it and the local memory holds it, as many as it holds
 * where the strip would be under a quarter), batch (QB rows; 0: 2, or 1 on
 * GPUs past r = 7 and everywhere past r = 127), blocks of totals (QS) and
 * local memory (two buffers of QB x QNT quads in two planes, three where r
 * > 7, five past r = 127; one plane of blocks), from the tunables. */
typedef struct quad_shape {
    size_t qnt, qb, halo, per_quad, lmax;
    size_t qs; /* quads a block of totals (0: none) */
    bool auto_qnt;
} quad_shape;
static void quad_shape_of(const co_job *job, quad_shape *q) {
    const box_state *s = job->prob->state;
    const size_t planes = s->radius > QUAD_PACKED_MAX_RADIUS ? 5
                          : s->radius > QUAD_MAX_RADIUS      ? 3
                                                             : 2;
    /* GPUs: wide windows in batches of a row, groups from 128 quads (CUDA r =
     * 16 / 64: 0.364 / 0.718 ms against 0.389 / 0.886 with QB=2 and 64 /
     * 128 quads); PoCL keeps QB=2 to r = 127 (103 ms against 63 at r = 127
     * with QB=1, 128 quads). */
    const bool gpu_wide = job->dev->info.type != CO_DEVICE_CPU && s->radius > QUAD_MAX_RADIUS;
    q->qb = (size_t)co_job_param(job, "QB");
    if (!q->qb) q->qb = gpu_wide || s->radius > QUAD_PACKED_MAX_RADIUS ? 1 : 2;
    q->halo = ((size_t)s->radius + 3) / 4;
    /* blocks of about sqrt(2 r / 4) quads: a window's whole quads (2 floor(r
     * / 4)) in 2 r / 4 / QS blocks and fewer than QS quads */
    q->qs = s->radius >= 128 ? 16 : s->radius >= 32 ? 8 : 0;
    /* local bytes a quad of the group: two buffers of its planes, the blocks */
    q->per_quad = 32 * planes * q->qb + (q->qs ? 16 * q->qb : 0);
    /* Up to 48 KiB, though the CUDA build takes its memory at launch: a group
     * of 512 quads with CUDA's opt-in maximum took r = 64 / 256 0.965 /
     * 1.914 ms against 256 quads' 0.596 / 1.191, and 1024 quads do not launch
     * (78-92 registers a work-item; 2026-12-03-h200-s.md). */
    q->lmax = job->dev->info.local_mem_bytes < 48 * 1024 ? (size_t)job->dev->info.local_mem_bytes
                                                         : 48 * 1024;
    q->qnt = (size_t)co_job_param(job, "QNT");
    q->auto_qnt = !q->qnt;
    if (q->auto_qnt) {
        const size_t fits = q->lmax / q->per_quad;
        for (q->qnt = gpu_wide ? 128 : 64;
             q->qnt < 256 && q->qnt < 8 * q->halo && 2 * q->qnt <= fits;)
            q->qnt *= 2;
        /* a strip under a quarter of the group: as many quads as fit (PoCL r =
         * 400: 112 ms with 307, 135-140 with 256) */
        if (3 * q->qnt < 8 * q->halo && fits > q->qnt) q->qnt = fits < 1024 ? fits : 1024;
    }
}
static bool quad_fits(const quad_shape *q) {
    return q->qnt > 2 * q->halo && q->per_quad * q->qnt <= q->lmax;
}

static bool quad_choice(const co_job *job) {
    const box_state *s = job->prob->state;
    if (!s->fmt->u8 || s->ch != 4 || s->radius < 1 || s->radius > QUAD_MAX_ANY_RADIUS) return false;
    if (s->radius <= QUAD_MAX_RADIUS) return true;
    const long quad = co_job_param(job, "QUAD"); /* read only where it applies: the tuner's space */
    if (quad != 0) return quad == 1;
    if (job->dev->info.type == CO_DEVICE_CPU && co_glsl_device(job->dev))
        return s->radius <= QUAD_WIDE_LAVAPIPE_RADIUS;
    quad_shape q;
    quad_shape_of(job, &q);
    return quad_fits(&q) && q.qnt - 2 * q.halo >= QUAD_MIN_STRIP;
}

bool box_quad_divisor(int radius, uint32_t *magic, unsigned *shift) {
    const uint64_t w = (uint64_t)(2 * radius + 1) * (uint64_t)(2 * radius + 1);
    const uint64_t nmax = 255 * w + w / 2; /* a window's sum plus half of w */
    /* One multiply-high and a shift: magic = ceil(2^(32+k) / w) < 2^32, its
     * excess e = magic w - 2^(32+k) < w; n magic / 2^(32+k) = n / w +
     * n e / (w 2^(32+k)), which stays below the next integer while n e <
     * 2^(32+k). The least k for which that holds at n = nmax. */
    for (unsigned k = 0; k < 32; k++) {
        const uint64_t two = (uint64_t)1 << (32 + k), m = (two + w - 1) / w;
        if (m >> 32) break;
        if (nmax * (m * w - two) < two) { /* nmax < 2^32, m w - two < w < 2^24 */
            *magic = (uint32_t)m, *shift = k;
            return true;
        }
    }
    /* Granlund and Montgomery: l = ceil(log2 w), magic = floor(2^32 (2^l -
     * w) / w) + 1 < 2^32, shift l - 1. */
    unsigned l = 0;
    while (((uint64_t)1 << l) < w) l++;
    *magic = (uint32_t)(((uint64_t)1 << 32) * (((uint64_t)1 << l) - w) / w + 1);
    *shift = l - 1;
    return false;
}

/* box_quad's rows a segment, where SEG does not say. A segment's first
 * column sums read 2r+1 rows; shorter segments, more groups. CPUs: 64, or
 * 2 (2r+1) for wide windows. GPUs: 4/3 of a window, at least 32 rows and
 * at most 344 or 2/3 of a window (past r = 127 three groups of 256 quads a
 * multiprocessor, and longer segments leave some idle; measured to r =
 * 256, where 344 rows are 2/3 of its window). H200, 8192^2 RGBA8, CUDA,
 * against the 64 / 2 (2r+1) rows before (docs/results/2026-12-03-h200-u.md,
 * run 2): r = 1 / 4 0.175 / 0.203 ms against 0.186 / 0.216; r = 64 / 128 /
 * 256 0.443 / 0.585 / 0.847 against 0.510 / 0.812 / 1.132. Longer where
 * the image would be over 65535 segments tall: CUDA's grid limit. */
#define QUAD_GPU_MIN_SEG 32
#define QUAD_GPU_MAX_SEG 344
static size_t quad_segment(const co_job *job) {
    const box_state *s = job->prob->state;
    const size_t window = 2 * (size_t)s->radius + 1, h = (size_t)s->h;
    size_t seg;
    if (job->dev->info.type == CO_DEVICE_CPU) {
        seg = s->radius > QUAD_MAX_RADIUS ? 2 * window : 64;
    } else {
        const size_t most =
            (2 * window + 1) / 3 > QUAD_GPU_MAX_SEG ? (2 * window + 1) / 3 : QUAD_GPU_MAX_SEG;
        seg = (4 * window + 2) / 3;
        seg = seg < QUAD_GPU_MIN_SEG ? QUAD_GPU_MIN_SEG : seg > most ? most : seg;
    }
    if ((h + seg - 1) / seg > 65535) seg = (h + 65534) / 65535;
    return seg;
}

/* Whether box_quad's odd segments walk up (QFLIP; 1 on, 2 off, 0 auto), so
 * that two segments read the rows they share at about the same time, the
 * second from the L2, not long apart: auto on GPUs from r = 4. H200,
 * 8192^2, zero border, ms, off against on (docs/results/2026-12-04-h200-za.md,
 * run 3, means of two rounds): CUDA r = 4 / 16 / 64 0.202 / 0.318 / 0.445
 * against 0.201 / 0.298 / 0.435, r = 128 / 256 0.4-0.6% faster, r = 1 the same;
 * NVIDIA OpenCL r = 16 / 64 0.345 / 0.469 against 0.328 / 0.449; Vulkan r =
 * 4 0.222 against 0.215, r = 16 / 64 0.376 / 0.580 against 0.382 / 0.587
 * (1.4% and 1.1% slower, kept for one rule), r = 256 1.5% faster. Off on
 * CPUs: PoCL and lavapipe (2 EPYC cores, 2048x1536) showed no difference
 * outside their runs' spread. */
#define QUAD_FLIP_MIN_RADIUS 4
static int quad_flip(const co_job *job) {
    const box_state *s = job->prob->state;
    const long flip = co_job_param(job, "QFLIP");
    if (flip) return flip == 1;
    return job->dev->info.type != CO_DEVICE_CPU && s->radius >= QUAD_FLIP_MIN_RADIUS;
}

/* box_quad in its group (quad_shape_of), each limit it passes named, in
 * segments of SEG rows (quad_segment). */
static co_status run_quad(co_job *job) {
    box_state *s = job->prob->state;
    const bool wide = s->radius > QUAD_MAX_RADIUS;
    quad_shape q;
    quad_shape_of(job, &q);
    const size_t qnt = q.qnt, qb = q.qb, halo = q.halo, lmem = q.per_quad * q.qnt;
    if (q.auto_qnt && qnt <= 2 * halo)
        return co_fail(CO_ERR_LIMIT,
                       "sliding: at r = %d a group must pass twice its halo of %zu quads, and "
                       "with QB=%zu the local memory (%zu B) holds %zu quads; lower QB",
                       s->radius, halo, qb, q.lmax, q.lmax / q.per_quad);
    if (lmem > q.lmax)
        return co_fail(CO_ERR_LIMIT,
                       "sliding: QNT=%zu x QB=%zu needs %zu bytes of local memory, over %s of "
                       "%zu; lower QNT or QB",
                       qnt, qb, lmem,
                       q.lmax < 48 * 1024 ? "the device's local memory" : "box_quad's limit",
                       q.lmax);
    if (qnt <= 2 * halo)
        return co_fail(CO_ERR_LIMIT,
                       "sliding: a group of QNT=%zu quads leaves no strip at r = %d (its halo "
                       "is %zu quads each side); raise QNT",
                       qnt, s->radius, halo);
    size_t seg = (size_t)co_job_param(job, "SEG");
    if (!seg) seg = quad_segment(job);
    const size_t quads = ((size_t)s->w + 3) / 4,
                 strips = (quads + qnt - 2 * halo - 1) / (qnt - 2 * halo);
    const size_t local[3] = {qnt, 1, 1},
                 global[3] = {strips * qnt, ((size_t)s->h + seg - 1) / seg, 1};
    char more[160];
    int len =
        snprintf(more, sizeof more, "-DQNT=%zu -DQB=%zu -DBF_RADIUS=%d -DQALIGNED=%d -DQFLIP=%d",
                 qnt, qb, s->radius, s->w % 4 == 0, quad_flip(job));
    if (wide) {
        uint32_t magic;
        unsigned shift;
        const bool short_form = box_quad_divisor(s->radius, &magic, &shift);
        snprintf(more + len, sizeof more - (size_t)len,
                 " -DQMAGIC=%" PRIu32 "u -DQSHIFT=%u -DQGM=%d -DQS=%zu", magic, shift, !short_form,
                 q.qs);
    }
    model(s, 0, 0); /* exact sums: the model is float32's */
    co_kernel *k;
    co_status st = co_job_check(job, 1, local, 0); /* lmem: checked above */
    if (!st) st = kernel_for(job, "box_quad", 1, 1, more, &k);
    if (st) return st;
    co_array *a = job->prob->arrays;
    const co_arg args[] = {CO_INT(s->w),     CO_INT(s->h),          CO_INT(s->border),
                           CO_INT((int)seg), CO_BUF(a[BOX_IN].buf), CO_BUF(a[BOX_OUT].buf),
                           CO_LOCAL(lmem)};
    return co_job_launch(job, k, 2, global, local, 0, 7, args);
}

/* Appends a formatted define to the defines in buf (size bytes); false
 * where it does not fit whole. */
static bool defines_add(char *buf, size_t size, const char *fmt, ...) {
    const size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < size - len;
}

/* The fused single pass where the strip and its halo fit a work-group and
 * local memory: horizontal first with the ring (box_ring) where RING asks
 * for it and it fits, else vertical first (box_fused); else the two
 * transposed passes. */
static co_status run_sliding(co_job *job) {
    box_state *s = job->prob->state;
    const co_device_info *info = &job->dev->info;
    /* r = 0: a window of one pixel, the identity; a running sum of it
     * (v + (a - b)) would round, so box_naive returns each pixel as is.
     * Neither it nor box_quad reads NT (so the tuner leaves it alone). */
    if (!s->radius) return run_naive(job);
    if (quad_choice(job)) {
        if (job->local[0])
            return co_fail(CO_ERR_INVALID,
                           "sliding sets its work-group from QNT; change it with --param, not "
                           "--local");
        return run_quad(job);
    }
    size_t nt = (size_t)co_job_param(job, "NT");
    if (nt % 32) return co_fail(CO_ERR_INVALID, "sliding: NT=%zu is not a multiple of 32", nt);
    const double n = 2.0 * s->radius + 1;
    fused_plan plan;
    const bool ring = ring_choice(job, &nt, &plan);
    const size_t wg = strip_group(job, nt);
    if (!ring &&
        (!co_job_param(job, "FUSE") || wg > FUSED_MAX_GROUP || wg > info->max_work_group_size ||
         !fused_fit(job, nt, false, false, 0, first_batch(job, nt, false), info->local_mem_bytes,
                    &plan))) {
        /* box_slide: segments of SEG rows down the image, then down its
         * transpose (its width). */
        const double seg = (double)slide_seg(job);
        model(s, k_slide(n, fmin(seg, s->h)), k_slide(n, fmin(seg, s->w)));
        return two_transposed(job, slide_pass);
    }
    const long hist = !ring && fused_hist(job) ? s->radius : -1;
    const size_t ec = (size_t)s->w * fused_ch(job), acc = fused_acc(job); /* the kernel's */
    const size_t strips = (ec + nt - 1) / nt;
    const size_t seg = co_job_param(job, "SEG") ? (size_t)co_job_param(job, "SEG")
                       : ring                   ? ring_segment(job, strips, &plan)
                                                : fused_segment(job, strips, hist >= 0);
    const size_t local[3] = {wg, 1, 1},
                 global[3] = {strips * wg, ((size_t)s->h + seg - 1) / seg, 1};
    /* The model (header comment): the parts' first windows compensated
     * past the tuned shapes' radii; box_ring fills its window by 2r batched
     * steps, box_fused sums it directly. */
    const bool kahan0 = s->radius > 64;
    const double first = !kahan0 ? n * n : plan.blocks ? ((double)plan.part + 4) * n : 4 * n;
    const double steps = fmin((double)seg, s->h) + (ring ? 2 * s->radius : 0);
    model(s, k_parts(n, (double)plan.part, first), k_batched(n, steps, (double)plan.batch));
    /* box_fused: lm's size is a define, rounded up (within the limit) so
     * that radii share builds. */
    const size_t lo_bytes = plan.bytes - plan.lm_bytes;
    size_t lm_bytes = co_ceil_to(plan.lm_bytes, 4096);
    if (lm_bytes + lo_bytes > info->local_mem_bytes)
        lm_bytes = (info->local_mem_bytes - lo_bytes) / acc * acc;
    char more[512] = "";
    bool fits = defines_add(more, sizeof more,
                            "-DNT=%zu -DBF_RING=%d -DLMAX=%zu -DBF_BATCH=%zu "
                            "-DBF_HIST=%ld -DBF_BLOCKS=%d -DBF_LD=%zu -DBF_PIPE=%zu -DBF_VEC=%d",
                            nt, ring, ring ? 0 : lm_bytes / acc, plan.batch, hist, plan.blocks > 0,
                            ring ? (2 * (size_t)s->radius + 1) % plan.batch : 0, (size_t)plan.pipe,
                            (int)plan.vec);
    /* The ring's group size, declared to CUDA's compiler (a group of 512
     * with 32-row batches took 138 registers and did not launch); on GPUs
     * only, so that CPU builds stay shared between radii. */
    if (ring && info->type != CO_DEVICE_CPU)
        fits = fits && defines_add(more, sizeof more, " -DBF_GROUP=%zu", wg);
    if (kahan0) fits = fits && defines_add(more, sizeof more, " -DBF_KAHAN0=1");
    if (ring && ring_compiled(job))
        fits = fits &&
               defines_add(more, sizeof more, " -DBF_PITCH=%zu -DBF_RADIUS=%d -DBF_RING_ROWS=%zu",
                           ec, s->radius, plan.rows);
    /* The zero border's columns outside the image zeroed where stored, not
     * by a branch of their loads (box_ring's BF_ZSTORE). With the branch
     * the H200 ran the ring 4% slower with the zero border than with clamp (8192^2, r = 1-4: 0.147 ms against
     * 0.141 with ZSTORE; r = 16: 0.1487 against 0.1462; r = 64 the same;
     * zeroing them as they were loaded made every load wait: 7-45% slower;
     * docs/results/2026-12-01-h200-l.md, runs 70-72). PoCL: within noise,
     * if anything faster. */
    if (ring && s->border == BF_ZERO)
        fits = fits && defines_add(more, sizeof more, " -DBF_ZSTORE=1");
    /* Two chains where one group fills a compute unit (the ring), whose few
     * warps wait on dependent adds (H200, r = 64: 0.219-0.227 ms against
     * 0.232-0.235 with one; r = 1-16 with the vertical-first pass within
     * noise either way, docs/results/2026-11-30-h200-i.md), four where it
     * is pipelined (r = 64: 0.195-0.198 ms against 0.199-0.200, -j.md). A
     * pixel's value (r = 0) from one chain: the steps summed apart lose
     * digits that the value itself may not have. */
    const long chains = co_job_param(job, "CHAINS") ? co_job_param(job, "CHAINS")
                        : ring                      ? (plan.pipe ? 4 : 2)
                                                    : 1;
    fits = fits && defines_add(more, sizeof more, " -DCHAINS=%ld", s->radius ? chains : 1);
    /* Batches loaded ahead: pipelined, three (H200, r = 64: 0.194-0.198 ms
     * against 0.199-0.200 with two, -j.md). */
    if (ring) {
        const long pf = co_job_param(job, "PF");
        fits = fits && defines_add(more, sizeof more, " -DPF=%ld",
                                   pf                 ? pf
                                   : plan.pipe        ? 3
                                   : plan.batch >= 32 ? 1
                                                      : 2);
    }
    co_array *a = job->prob->arrays;
    co_kernel *k;
    co_status st = job->local[0] ? co_fail(CO_ERR_INVALID,
                                           "sliding sets its work-group from NT "
                                           "and the radius; change NT with --param, not --local")
                                 : CO_OK;
    if (!st && !fits)
        st = co_fail(CO_ERR_INVALID, "sliding: the kernel's defines are over %zu bytes",
                     sizeof more - 1);
    if (!st) st = co_job_check(job, 2, local, ring ? 0 : lm_bytes + lo_bytes);
    if (!st) st = kernel_for(job, ring ? "box_ring" : "box_fused", 1, 1, more, &k);
    if (st) return st;
    if (ring) {
        const co_arg args[] = {CO_INT(s->w),
                               CO_INT(s->h),
                               CO_INT(s->radius),
                               CO_INT(s->border),
                               CO_INT(seg),
                               CO_INT(plan.rows),
                               CO_INT(plan.lm_bytes / acc),
                               CO_BUF(a[BOX_IN].buf),
                               CO_BUF(a[BOX_OUT].buf),
                               CO_LOCAL(plan.bytes)};
        return co_job_launch(job, k, 2, global, local, 0, 10, args);
    }
    const co_arg args[] = {CO_INT(s->w),          CO_INT(s->h), CO_INT(s->radius),
                           CO_INT(s->border),     CO_INT(seg),  CO_BUF(a[BOX_IN].buf),
                           CO_BUF(a[BOX_OUT].buf)};
    return co_job_launch(job, k, 2, global, local, lm_bytes + lo_bytes, 7, args);
}

static co_status run_transpose(co_job *job) {
    direct_model(job->prob->state);
    return two_transposed(job, transpose_pass);
}

static bool has_images(const co_device *dev, const char **why) {
    if (!dev->backend->image_support) {
        *why = "this backend has no image objects";
        return false;
    }
    return dev->backend->image_support(dev, why);
}

/* The input copied into an image (device time counted), then one
 * work-item per pixel reads its window through the texture path. */
static co_status run_image(co_job *job) {
    box_state *s = job->prob->state;
    direct_model(s);
    co_device *dev = job->dev;
    co_array *a = job->prob->arrays;
    co_status st = CO_OK;
    if (!s->img) {
        st = dev->backend->image_alloc(dev, (size_t)s->w, (size_t)s->h, s->fmt->img,
                                       s->border == BF_ZERO ? CO_IMG_ZERO : CO_IMG_EDGE, &s->img);
        if (st) return st;
        s->dev = dev;
    }
    double ms = 0;
    if ((st = dev->backend->image_copy_from_buffer(dev, s->img, a[BOX_IN].buf, &ms))) return st;
    co_job_add_time(job, ms);
    size_t local[3];
    group(job, 16, local);
    const size_t global[3] = {(size_t)s->w, (size_t)s->h, 1};
    co_kernel *k;
    char more[48];
    snprintf(more, sizeof more, "-DBF_IMAGES=1 -DBF_BORDER=%d", s->border);
    if (!(st = co_job_check(job, 2, local, 0))) st = kernel_for(job, "box_image", 1, 1, more, &k);
    if (st) return st;
    const co_arg args[] = {CO_INT(s->w),      CO_INT(s->h),     CO_INT(s->radius),
                           CO_INT(s->border), CO_IMAGE(s->img), CO_BUF(a[BOX_OUT].buf)};
    return co_job_launch(job, k, 2, global, local, 0, 6, args);
}

static const co_param_def transpose_params[] = {
    {"TILE", 16, 4, 32, true, "work-groups of TILE x TILE pixels", 0},
};
static const co_param_def sliding_params[] = {
    {"FUSE", 1, 0, 1, false,
     "1: one fused pass where the halo fits local memory; 0: two "
     "transposed passes",
     0},
    {"SEG", 0, 0, 65536, false,
     "rows per segment, where float sums restart (0: fused, chosen "
     "from the compute units and the radius; box_quad: CPUs 64, or 2 (2r+1) from r = 8, GPUs 4 "
     "(2r+1) / 3 within 32..max(344, 2 (2r+1) / 3); two passes, "
     "256; a multiple of TILE there)",
     0},
    {"NT", 0, 0, 4096, false,
     "fused: element columns (with PX4, pixels) per strip, a multiple of 32 (the "
     "group: a work-item per column of strip and halo; 0: 128 on CPUs; on GPUs 128 where "
     "the leaving rows are in registers, for the ring 256 or 320 by the radius, else 256)",
     0},
    {"BATCH", 0, 0, 32, true,
     "fused: rows per batch, and pixels per part of the horizontal "
     "pass (0: with the ring on GPUs 16 or 32 by the radius, on CPUs 16; else 16 where the "
     "leaving rows are in registers (HIST), 8 up to r = 16, else 16; halved to fit local "
     "memory)",
     0},
    {"BLOCKS", 4, 0, 64, false,
     "fused: a part's first window from sums of BATCH columns where "
     "the window spans BLOCKS parts or more (their sums cost a barrier); 0: always summed whole",
     0},
    {"HIST", 33, 0, 65, false,
     "fused: the widest window (2r+1) whose leaving rows come from "
     "registers; wider ones load them again (0: always)",
     0},
    {"MAXREG", 0, 0, 255, false,
     "fused and box_quad, CUDA: registers per work-item at most (0: the "
     "compiler's choice)",
     0},
    {"RING", 2, 0, 2, false,
     "fused: 1: horizontal first, the window's row sums in local memory "
     "(no row read twice), where it fits; 0: vertical first; 2: on CPUs the ring where it fits, "
     "on GPUs where one of the shapes measured best for the radius fits with whole batches",
     0},
    {"PF", 0, 0, 8, false,
     "ring: batches of rows loaded ahead (0: pipelined 3, else 1 where a "
     "batch is 32 rows or more, else 2)",
     0},
    {"CHAINS", 0, 0, 4, true,
     "fused: a whole part of the horizontal pass and a whole batch "
     "of the ring's vertical pass as this many chains of dependent adds, each starting from "
     "the steps before it summed four ways (0: 4 with the ring pipelined, 2 without, else 1; r = 0 "
     "always 1)",
     0},
    {"PIPE", 0, 0, 2, false,
     "ring: 1: a batch's three steps overlap those of the next two, one "
     "barrier a batch (local memory for a batch more); 2: a barrier between steps; 0: on GPUs "
     "pipelined from r = 49 (with NT and BATCH auto), else not",
     0},
    {"VEC", 0, 0, 2, false,
     "ring: 1: the horizontal pass reads its rows four columns at a time "
     "(rows row-major in local memory) where the image is float32, BATCH a multiple of 4 and "
     "the API not Vulkan, "
     "the image's row pitch, the radius and the ring's height then compiled in (a build per "
     "width and radius; on GPUs they are from 2^20 pixels anyway); 2: never; 0: where they are "
     "compiled in anyway and BATCH is 16 or less (32 for r = 64's shape)",
     0},
    {"PX4", 0, 0, 2, false,
     "fused, RGBA8 on OpenCL and CUDA: 1: a pixel an element, its four sums a uint4 (one "
     "4-byte load a row, not four); 2: each channel an element; 0: on GPUs pixels from r = 16, "
     "else channels",
     0},
    {"QUAD", 0, 0, 2, false,
     "RGBA8 at r = 8..2047 (r <= 7: box_quad always): 1: box_quad, four pixels a work-item, a "
     "window from its quads' totals; 2: the fused pass; 0: box_quad while a group writes 16 "
     "quads (lavapipe's to r = 112), else the fused pass",
     0},
    {"QNT", 0, 0, 1024, false,
     "box_quad: quads (four pixels) a group, its halo's included; 0: 64 (GPUs' wide windows "
     "128), up to 256 for wide windows",
     0},
    {"QB", 0, 0, 32, false,
     "box_quad: rows a batch (a barrier each); 0: 2, or 1 on GPUs past r = 7 and past r = 127", 0},
    {"QFLIP", 0, 0, 2, false,
     "box_quad: 1: odd segments walk up their rows (two segments read the rows they share "
     "at about the same time); 2: every segment walks down; 0: 1 on GPUs from r = 4",
     0},
    {"TILE", 32, 4, 64, true,
     "two passes: element columns per group, rows per transposed "
     "block",
     0},
    {"SY", 4, 1, 16, true, "two passes: column segments per work-group", 0},
};

static const co_variant variants[] = {
    {.name = "c", .summary = "direct window sum, one core", .on = CO_ON_C, .run = run_c},
    {.name = "omp",
     .summary = "running sums down, then along rows (exact integers for 8-bit), all cores",
     .on = CO_ON_OMP,
     .run = run_omp},
    {.name = "naive",
     .summary = "one work-item per element sums its whole window",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_naive},
    {.name = "separable",
     .summary = "horizontal pass, vertical pass, intermediate buffer",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_separable},
    {.name = "transpose",
     .summary = "each pass writes transposed: both read along rows",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(transpose_params),
     .run = run_transpose,
     .test_params = "TILE=8",
     .host_params = "TILE"},
    {.name = "image",
     .summary = "window read through images/textures, hardware borders",
     .on = CO_ON_DEVICE,
     .available = has_images,
     .run = run_image},
    {.name = "sliding",
     .summary = "running sums, O(1) per pixel: one fused pass (or two transposed)",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(sliding_params),
     .run = run_sliding,
     /* QUAD=2 on the fused passes' sets: RGBA8 windows take box_quad by
      * default. QUAD=1 QFLIP=1 QNT=184 is the 21st set, so that it meets the r =
      * 256 RGBA8 size set (sets meet sizes by index, tests/test_backends.c):
      * 32-bit column sums on lavapipe too, whose default there is fused. */
     .test_params =
         "FUSE=0 TILE=8 SY=2 SEG=16 QUAD=2;FUSE=0 TILE=4 SY=1 SEG=4 QUAD=2;"
         "NT=32 BATCH=4 SEG=7 RING=0 QUAD=2;NT=64 BATCH=8 SEG=40 MAXREG=56 QUAD=2;"
         "NT=64 BATCH=4 HIST=15 SEG=21 RING=0 QUAD=2;NT=64 BATCH=2 HIST=0 SEG=23 RING=0 QUAD=2;"
         "NT=128 BATCH=16 BLOCKS=0 RING=0 QUAD=2;NT=64 BATCH=2 QUAD=2;"
         "NT=64 BATCH=8 CHAINS=4 RING=0 QUAD=2;RING=1 NT=32 BATCH=4 SEG=7 PF=3 QUAD=2;"
         "RING=1 NT=64 BATCH=2 PF=1 QUAD=2;RING=1 NT=64 BATCH=16 VEC=1 BLOCKS=1 QUAD=2;"
         "RING=1 NT=64 BATCH=32 BLOCKS=1 QUAD=2;RING=1 NT=96 BLOCKS=0 SEG=40 MAXREG=64 QUAD=2;"
         "RING=1 NT=32 BATCH=1 SEG=9 QUAD=2;"
         "RING=1 PIPE=1 NT=64 BATCH=16 BLOCKS=1 CHAINS=2 QUAD=2;"
         "RING=1 PIPE=1 NT=32 BATCH=1 PF=2 QUAD=2;"
         "RING=1 PIPE=1 NT=64 BATCH=8 BLOCKS=1 SEG=13 QUAD=2;"
         "RING=1 NT=64 BATCH=32 CHAINS=2 QUAD=2;RING=1 VEC=1 NT=64 BATCH=16 SEG=11 QUAD=2;"
         "QUAD=1 QFLIP=1 QNT=184 QB=1 SEG=9;"
         "RING=1 VEC=1 NT=96 BATCH=32 BLOCKS=1 SEG=37 QUAD=2;"
         "RING=1 PX4=1 NT=32 BATCH=8 SEG=19 QUAD=2;"
         "RING=1 PIPE=1 PX4=1 NT=64 BATCH=4 BLOCKS=1 QUAD=2;"
         "RING=0 PX4=1 NT=32 BATCH=4 HIST=0 QUAD=2;QFLIP=1 QNT=32 QB=3 SEG=13;QFLIP=2 QB=1 SEG=5;"
         "RING=1 PIPE=1 VEC=1 NT=64 BATCH=8 BLOCKS=1 CHAINS=1 QUAD=2",
     .host_params = "FUSE SEG NT BATCH BLOCKS HIST RING PF PIPE CHAINS VEC PX4 MAXREG TILE SY QUAD "
                    "QNT QB QFLIP"},
    {.name = "npp",
     .summary = "anchor: NPP nppiFilterBoxBorder (clamp border only)",
     .on = CO_ON_CUDA,
     .available = box_has_npp,
     .run = box_run_npp},
};

const co_workload co_workload_boxfilter = {
    .name = "boxfilter",
    .summary = "(2r+1)^2 mean filter, float32, RGBA8 or gray8, clamp/reflect101/zero borders",
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "sliding", "sliding", "sliding"},
    .anchors = {NULL, NULL, NULL, "npp"},
    /* CPUs: c and PoCL's image variant take ~0.1 and ~0.8 s a run at 1024^2. */
    .bench_sets = "width=1024 height=1024 radius=4",
    .bench_sets_gpu = "width=1024 height=1024 radius=4;width=2048 height=2048 radius=4",
    .quick_sets = "width=512 height=384 radius=2",
    /* Every border x radius x format once, on sizes of 1x1 up to 103x77,
     * several narrower or shorter than the window; rows of several omp
     * chunks; r = 256; box_quad's widest window and its 32-bit sums: 63 sets. */
    .test_sets = "width=100 height=37 radius=0 border=clamp format=f32;"
                 "width=3 height=5 radius=1 border=clamp format=f32;"
                 "width=1 height=1 radius=2 border=clamp format=f32;"
                 "width=5 height=70 radius=7 border=clamp format=f32;"
                 "width=100 height=37 radius=31 border=clamp format=f32;"
                 "width=3 height=5 radius=0 border=reflect101 format=f32;"
                 "width=100 height=37 radius=1 border=reflect101 format=f32;"
                 "width=67 height=3 radius=2 border=reflect101 format=f32;"
                 "width=3 height=5 radius=7 border=reflect101 format=f32;"
                 "width=5 height=70 radius=31 border=reflect101 format=f32;"
                 "width=1 height=1 radius=0 border=zero format=f32;"
                 "width=67 height=3 radius=1 border=zero format=f32;"
                 "width=100 height=37 radius=2 border=zero format=f32;"
                 "width=100 height=37 radius=7 border=zero format=f32;"
                 "width=3 height=5 radius=31 border=zero format=f32;"
                 "width=67 height=3 radius=0 border=clamp format=rgba8;"
                 "width=100 height=37 radius=1 border=clamp format=rgba8;"
                 "width=3 height=5 radius=2 border=clamp format=rgba8;"
                 "width=1 height=1 radius=7 border=clamp format=rgba8;"
                 "width=67 height=3 radius=31 border=clamp format=rgba8;"
                 "width=100 height=37 radius=0 border=reflect101 format=rgba8;"
                 "width=1 height=1 radius=1 border=reflect101 format=rgba8;"
                 "width=5 height=70 radius=2 border=reflect101 format=rgba8;"
                 "width=67 height=3 radius=7 border=reflect101 format=rgba8;"
                 "width=100 height=37 radius=31 border=reflect101 format=rgba8;"
                 "width=5 height=70 radius=0 border=zero format=rgba8;"
                 "width=3 height=5 radius=1 border=zero format=rgba8;"
                 "width=100 height=37 radius=2 border=zero format=rgba8;"
                 "width=5 height=70 radius=7 border=zero format=rgba8;"
                 "width=1 height=1 radius=31 border=zero format=rgba8;"
                 "width=2 height=2 radius=31 border=reflect101 format=f32;"
                 "width=2 height=9 radius=7 border=reflect101 format=rgba8;"
                 /* windows at and far beyond the image (closed forms; r > 64: the
         * compensated first windows) */
                 "width=103 height=77 radius=400 border=reflect101 format=f32;"
                 "width=64 height=48 radius=1048576 border=clamp format=f32;"
                 "width=64 height=48 radius=1048576 border=zero format=f32;"
                 "width=37 height=23 radius=42 border=clamp format=rgba8;"
                 "width=61 height=45 radius=2047 border=reflect101 format=rgba8;"
                 /* gray8: every border and radius as above */
                 "width=100 height=37 radius=0 border=clamp format=gray8;"
                 "width=3 height=5 radius=1 border=clamp format=gray8;"
                 "width=67 height=3 radius=2 border=clamp format=gray8;"
                 "width=5 height=70 radius=7 border=clamp format=gray8;"
                 "width=1 height=1 radius=31 border=clamp format=gray8;"
                 "width=67 height=3 radius=0 border=reflect101 format=gray8;"
                 "width=100 height=37 radius=1 border=reflect101 format=gray8;"
                 "width=5 height=70 radius=2 border=reflect101 format=gray8;"
                 "width=3 height=5 radius=7 border=reflect101 format=gray8;"
                 "width=100 height=37 radius=31 border=reflect101 format=gray8;"
                 "width=1 height=1 radius=0 border=zero format=gray8;"
                 "width=100 height=37 radius=1 border=zero format=gray8;"
                 "width=3 height=5 radius=2 border=zero format=gray8;"
                 "width=67 height=3 radius=7 border=zero format=gray8;"
                 "width=5 height=70 radius=31 border=zero format=gray8;"
                 "width=61 height=45 radius=2047 border=clamp format=gray8;"
                 /* rows of several of omp's chunks (512 elements) and of its sums:
                  * uint16 and uint32 (r > 7), float and double (r > 4) */
                 "width=1100 height=23 radius=3 border=reflect101 format=gray8;"
                 "width=1100 height=23 radius=9 border=zero format=gray8;"
                 "width=601 height=20 radius=4 border=clamp format=f32;"
                 "width=601 height=20 radius=5 border=reflect101 format=f32;"
                 "width=150 height=31 radius=7 border=zero format=rgba8;"
                 "width=150 height=31 radius=13 border=clamp format=rgba8;"
                 /* r = 256: wider than any fused shape (two passes on GPUs) */
                 "width=531 height=19 radius=256 border=clamp format=f32;"
                 "width=20 height=300 radius=256 border=reflect101 format=rgba8;"
                 /* box_quad's widest window (r mod 4 = 1 and 2: 13 and 42 above) */
                 "width=40 height=300 radius=127 border=clamp format=rgba8;"
                 /* its 32-bit column sums with rows the border rule maps none of */
                 "width=24 height=300 radius=131 border=zero format=rgba8",
    .init = init,
    .fill = fill,
    .reference = reference,
    .verify = verify,
    .save = save,
    .destroy = destroy,
};
