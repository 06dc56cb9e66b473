/* Workload grayscale: RGBA8 -> 8-bit gray, gray = round(0.299 r + 0.587 g +
 * 0.114 b), computed in float (kernels/grayscale.cl, shared with the host
 * variants). Input: a PNG (--input, any channel count, converted to RGBA) or
 * a generated image of --width x --height; --output writes the gray PNG.
 * Model: bytes = 4 read + 1 written per pixel; 5 operations per pixel.
 * Reference: exact, in integers: t = 299 r + 587 g + 114 b, gray =
 * floor((t + 500) / 1000); where t ends in exactly 500 (a tie) either
 * neighbour is right. Away from ties float's error (< 1e-4) cannot change the
 * rounding (t / 1000 is then at least 0.001 from a half), so a correct
 * variant's error is 0; the tolerance is the issue's +-1, and the check
 * counts the pixels off by one. Generated channels lie in [1, 252], so the
 * poison (255) is at least 3 away from every reference value. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/glsl/glsl.h"
#include "core/image.h"
#include "core/workload.h"

#define CO_HOST_C
#include "dialect.h"
#include "grayscale.cl"

typedef struct gray_state {
    size_t width, height;
    uchar *rgba, *gray;
    co_image input; /* --input, kept for fill */
} gray_state;

enum { GRAY_RGBA = 0, GRAY_OUT = 1 };

static const co_option_def options[] = {
    {"width", "1920", "image width in pixels (without --input)"},
    {"height", "1080", "image height in pixels (without --input)"},
    {"input", NULL, "PNG to convert (any channel count); its size replaces --width/--height"},
    {"output", NULL, "write the gray result as an 8-bit PNG"},
};

/* The directory of --output must exist before a long run, not after it. */
static co_status check_output(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(dir, W_OK) != 0)
        return co_fail(CO_ERR_IO,
                       "cannot write PNG '%s': directory '%s' is missing or not "
                       "writable",
                       path, dir);
    return CO_OK;
}

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    const char *input = co_opt(opts, nopts, "input"), *output = co_opt(opts, nopts, "output");
    if (input && (co_opt(opts, nopts, "width") || co_opt(opts, nopts, "height")))
        return co_fail(CO_ERR_INVALID, "--input sets the image size: drop --width/--height");
    if (output && !*output) return co_fail(CO_ERR_INVALID, "--output needs a file name");
    gray_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    co_status st = output ? check_output(output) : CO_OK;
    if (st) return st;
    if (input) {
        if ((st = co_image_load(input, 4, &s->input))) return st;
        s->width = (size_t)s->input.width, s->height = (size_t)s->input.height;
    } else {
        st = co_opt_size(opts, nopts, "width", 1920, &s->width);
        if (!st) st = co_opt_size(opts, nopts, "height", 1080, &s->height);
        if (st) return st;
    }
    if (s->width > INT_MAX || s->height > INT_MAX || s->width * s->height > (size_t)1 << 34)
        return co_fail(CO_ERR_INVALID,
                       "grayscale %zux%zu: at most 2^31-1 per side and 2^34 "
                       "pixels",
                       s->width, s->height);
    const size_t px = s->width * s->height;
    st = co_problem_array(p, "rgba", 4 * px, false, (void **)&s->rgba);
    if (!st) st = co_problem_array(p, "gray", px, true, (void **)&s->gray);
    if (st) return st;
    /* Counted with the arrays: the decoded --input, the --output encoder. */
    p->host_extra_bytes = (input ? 4 * px : 0) + (output ? CO_PNG_WRITE_BYTES(px) : 0);
    co_problem_size(p, "width", s->width);
    co_problem_size(p, "height", s->height);
    p->flops = 5.0 * (double)px;
    p->bytes = 5.0 * (double)px;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    gray_state *s = p->state;
    const size_t bytes = 4 * s->width * s->height;
    if (s->input.pixels) {
        memcpy(s->rgba, s->input.pixels, bytes);
        return;
    }
    co_rng r = {seed};
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t bits = co_rng_next(&r);
        for (size_t j = i; j < i + 8 && j < bytes; j++, bits >>= 8)
            s->rgba[j] = (uchar)(1 + (bits & 0xFF) % 252);
    }
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    const gray_state *s = p->state;
    const size_t px = s->width * s->height;
    unsigned worst = 0;
    size_t off = 0;
    for (size_t i = 0; i < px; i++) {
        const uchar *c = s->rgba + 4 * i;
        const unsigned t = 299u * c[0] + 587u * c[1] + 114u * c[2];
        const unsigned ref = (t + 500) / 1000, got = s->gray[i];
        unsigned d = got > ref ? got - ref : ref - got;
        if (t % 1000 == 500 && got + 1 == ref) d = 0; /* a tie rounded down */
        off += d == 1;
        if (d > worst) worst = d;
    }
    *error = worst;
    *tolerance = 1;
    snprintf(check, check_len, "exact, %zu px off by 1", off);
    return CO_OK;
}

static co_status save(co_problem *p, const co_option *opts, size_t nopts) {
    const gray_state *s = p->state;
    const char *output = co_opt(opts, nopts, "output");
    return output ? co_image_save_png(output, (int)s->width, (int)s->height, 1, s->gray) : CO_OK;
}

static void destroy(co_problem *p) {
    gray_state *s = p->state;
    if (!s) return;
    co_image_free(&s->input);
    free(s);
    p->state = NULL;
}

/* ---- host variants: the kernels themselves, one work-item per call ---- */

/* One pixel at a time in row order, as the 2D range would visit them. */
static co_status run_c(co_job *job) {
    gray_state *s = job->prob->state;
    for (size_t y = 0; y < s->height; y++)
        for (size_t x = 0; x < s->width; x++) {
            co_host_id[0] = x, co_host_id[1] = y;
            gray_coalesced((int)s->width, (int)s->height, s->rgba, s->gray);
        }
    return CO_OK;
}

/* A row per call (the row-walking kernel): rows spread over the cores. */
static co_status run_omp(co_job *job) {
    gray_state *s = job->prob->state;
    const long height = (long)s->height;
#pragma omp parallel for schedule(static)
    for (long y = 0; y < height; y++) {
        co_host_id[0] = (size_t)y;
        gray_uncoalesced((int)s->width, (int)s->height, s->rgba, s->gray);
    }
    return CO_OK;
}

/* ---- device variants ---- */

static co_status launch(co_job *job, const char *entry, unsigned dims, const size_t global[2],
                        const size_t local[2]) {
    gray_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    const size_t g[3] = {global[0], global[1], 1}, l[3] = {local[0], local[1], 1};
    co_status st = co_job_check(job, dims, l, 0);
    co_kernel *kernel;
    if (!st) st = co_job_kernel(job, "grayscale", entry, "", &kernel);
    if (st) return st;
    const co_arg args[] = {CO_INT(s->width), CO_INT(s->height), CO_BUF(arr[GRAY_RGBA].buf),
                           CO_BUF(arr[GRAY_OUT].buf)};
    return co_job_launch(job, kernel, dims, g, l, 0, 4, args);
}

/* 16x16 groups, as in seed 002 (--local changes them). */
static co_status run_coalesced(co_job *job) {
    const gray_state *s = job->prob->state;
    const size_t global[2] = {s->width, s->height};
    const size_t local[2] = {job->local[0] ? job->local[0] : 16,
                             job->local[1] ? job->local[1] : 16};
    return launch(job, "gray_coalesced", 2, global, local);
}

static co_status run_uncoalesced(co_job *job) {
    const gray_state *s = job->prob->state;
    const size_t global[2] = {s->height, 1}, local[2] = {job->local[0] ? job->local[0] : 64, 1};
    return launch(job, "gray_uncoalesced", 1, global, local);
}

/* A GLSL shader writes the gray bytes through 8-bit storage. */
static bool gray_bytes(const co_device *dev, const char **why) {
    const co_glsl_caps *glsl = co_glsl_device(dev);
    if (!glsl || glsl->int8) return true;
    *why = "the device has no 8-bit storage buffers (storageBuffer8BitAccess, shaderInt8)";
    return false;
}

static const co_variant variants[] = {
    {.name = "c",
     .summary = "the kernel's pixel code, one pixel at a time",
     .on = CO_ON_C,
     .run = run_c},
    {.name = "omp",
     .summary = "the kernel's row walk, rows over all cores",
     .on = CO_ON_OMP,
     .run = run_omp},
    {.name = "coalesced",
     .summary = "one work-item per pixel, 16x16 groups",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = gray_bytes,
     .run = run_coalesced},
    {.name = "uncoalesced",
     .summary = "one work-item per row, walking along it",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = gray_bytes,
     .run = run_uncoalesced},
};

const co_workload co_workload_grayscale = {
    .name = "grayscale",
    .summary = "RGBA8 to 8-bit gray (0.299, 0.587, 0.114)",
    .bound = CO_BOUND_MEMORY,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "coalesced", "coalesced", "coalesced"},
    .anchors = {NULL, NULL, NULL, NULL},
    .bench_sets = "width=3840 height=2160",
    .quick_sets = "width=1920 height=1080",
    .test_sets = "width=1 height=1;width=3 height=5;width=641 height=479;width=1 height=300;"
                 "width=300 height=1",
    .init = init,
    .fill = fill,
    .verify = verify,
    .save = save,
    .destroy = destroy,
};
