/* Workload copy: dst = src, float32, any n >= 1 — bandwidth and coalescing.
 * Model: bytes = 2 * 4 * n (each element read once and written once), no
 * arithmetic. Verification: bitwise equality of every element (the error is
 * the count of elements that differ; the poison, NaN, never equals a random
 * input). The variants: the access patterns of kernels/copy.cl on devices,
 * plain loops on the host, and the API's own copy as the anchor. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/copy.h"

typedef struct copy_state {
    size_t n, row;
    float *src, *dst;
} copy_state;

static const co_option_def options[] = {
    {"n", "16777216", "elements (float32) to copy"},
    {"row", "1024", "strided: elements per work-item's row (the last row may be partial)"},
};

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    size_t n, row;
    co_status st = co_opt_size(opts, nopts, "n", (size_t)1 << 24, &n);
    if (!st) st = co_opt_size(opts, nopts, "row", 1024, &row);
    if (st) return st;
    if (n > INT_MAX || row > INT_MAX)
        return co_fail(CO_ERR_INVALID,
                       "copy --n %zu --row %zu: at most 2^31-1 (the kernels take 32-bit int)", n,
                       row);
    copy_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    s->n = n, s->row = row;
    st = co_problem_array(p, "src", n * sizeof(float), false, (void **)&s->src);
    if (!st) st = co_problem_array(p, "dst", n * sizeof(float), true, (void **)&s->dst);
    if (st) return st;
    co_problem_size(p, "n", n);
    co_problem_size(p, "row", row);
    p->bytes = 8.0 * (double)n;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    copy_state *s = p->state;
    co_rng r = {seed};
    for (size_t i = 0; i < s->n; i++) s->src[i] = co_rng_float(&r, -1.0f, 1.0f);
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    const copy_state *s = p->state;
    size_t wrong = 0;
    /* Block-wise memcmp, element by element only inside a differing block. */
    for (size_t i = 0; i < s->n; i += 4096) {
        size_t len = s->n - i < 4096 ? s->n - i : 4096;
        if (!memcmp(s->src + i, s->dst + i, len * sizeof(float))) continue;
        for (size_t j = i; j < i + len; j++) wrong += memcmp(s->src + j, s->dst + j, 4) != 0;
    }
    *error = (double)wrong;
    *tolerance = 0;
    snprintf(check, check_len, "bitwise, elements differing");
    return CO_OK;
}

static void destroy(co_problem *p) {
    free(p->state);
    p->state = NULL;
}

/* ---- host variants ---- */

static co_status run_c(co_job *job) {
    copy_state *s = job->prob->state;
    for (size_t i = 0; i < s->n; i++) s->dst[i] = s->src[i];
    return CO_OK;
}

static co_status run_omp(co_job *job) {
    copy_state *s = job->prob->state;
    const long n = (long)s->n;
    float *restrict dst = s->dst;
    const float *restrict src = s->src;
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++) dst[i] = src[i];
    return CO_OK;
}

/* ---- device variants (kernels/copy.cl) ---- */

static co_status launch(co_job *job, const char *entry, size_t items, bool with_row) {
    copy_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    const size_t g[3] = {items, 1, 1}, l[3] = {job->local[0] ? job->local[0] : 256, 1, 1};
    co_status st = co_job_check(job, 1, l, 0);
    co_kernel *kernel;
    if (!st) st = co_job_kernel(job, "copy", entry, "", &kernel);
    if (st) return st;
    const co_arg src = CO_BUF(arr[COPY_SRC].buf), dst = CO_BUF(arr[COPY_DST].buf);
    const co_arg plain[] = {CO_INT(s->n), src, dst};
    const co_arg rows[] = {CO_INT(s->n), CO_INT(s->row), src, dst};
    return with_row ? co_job_launch(job, kernel, 1, g, l, 0, 4, rows)
                    : co_job_launch(job, kernel, 1, g, l, 0, 3, plain);
}

static co_status run_coalesced(co_job *job) {
    return launch(job, "copy_coalesced", ((copy_state *)job->prob->state)->n, false);
}

static co_status run_strided(co_job *job) {
    const copy_state *s = job->prob->state;
    return launch(job, "copy_strided", (s->n + s->row - 1) / s->row, true);
}

/* One work-item per whole vector, plus one for the scalar tail. */
static co_status run_vec2(co_job *job) {
    return launch(job, "copy_vec2", ((copy_state *)job->prob->state)->n / 2 + 1, false);
}

static co_status run_vec4(co_job *job) {
    return launch(job, "copy_vec4", ((copy_state *)job->prob->state)->n / 4 + 1, false);
}

static const co_variant variants[] = {
    {.name = "c", .summary = "plain loop, one core", .on = CO_ON_C, .run = run_c},
    {.name = "omp", .summary = "OpenMP loop, all cores", .on = CO_ON_OMP, .run = run_omp},
    {.name = "coalesced",
     .summary = "work-item i copies element i",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_coalesced},
    {.name = "strided",
     .summary = "one work-item per row (--row), walking along it",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_strided},
    {.name = "vec2",
     .summary = "float2 loads and stores, scalar tail",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_vec2},
    {.name = "vec4",
     .summary = "float4 loads and stores, scalar tail",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_vec4},
    {.name = "api",
     .summary = "anchor: the API's device-to-device copy",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .available = copy_has_api,
     .run = copy_run_api},
};

const co_workload co_workload_copy = {
    .name = "copy",
    .summary = "dst = src, float32: bandwidth and coalescing",
    .bound = CO_BOUND_MEMORY,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "vec4", "vec4", "vec4"},
    .anchors = {NULL, NULL, "api", "api", "api"},
    .bench_sets = "n=16777216",
    .quick_sets = "n=1048576",
    .test_sets = "n=1;n=3;n=1023;n=1048583;n=4099 row=7;n=5 row=1",
    .init = init,
    .fill = fill,
    .verify = verify,
    .destroy = destroy,
};
