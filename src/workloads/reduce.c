/* Workload reduce: the sum of n float32 values, any n >= 1, as one float.
 * Model: bytes = 4n read + 4 written; n adds. Reference: the sum in double.
 * Error: |sum - ref| / sum|x|, held to the bound of pairwise summation,
 * (ceil(log2 n) + 2) * 2^-24 (the +2: the result's own rounding to float
 * and a margin for the sequential stretches of the grid-stride variants,
 * whose error is far below the bound for random data). Inputs are random
 * in (-1, 1), never zero. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"
#include "core/workload.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct reduce_state {
    size_t n;
    float *x, *sum;
    double ref, mag; /* sum x and sum |x|, in double */
} reduce_state;

/* The partial sums between passes alternate between two scratch arrays.
 * A pass leaves at most ceil(m / 32) partials of m values (32: the
 * smallest work-group, one value per work-item), so the first pass needs
 * ceil(n / 32), the second ceil(n / 1024), and later ones fit again. The
 * single-launch variants keep their partials in the first and draw tickets
 * from a counter that must be 0 before the launch: an input array of one
 * zero, uploaded before every run (a scratch array is never initialised,
 * and outputs are poisoned), so even a run that failed half-way leaves no
 * stale count for the next. */
enum { REDUCE_X = 0, REDUCE_SUM = 1, REDUCE_PART0 = 2, REDUCE_PART1 = 3, REDUCE_TICKET = 4 };
#define MIN_PER_GROUP 32

static const co_option_def options[] = {
    {"n", "16777216", "values (float32) to sum"},
};

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    size_t n;
    co_status st = co_opt_size(opts, nopts, "n", (size_t)1 << 24, &n);
    if (st) return st;
    if (n > 2147483647u)
        return co_fail(CO_ERR_INVALID,
                       "reduce --n %zu: at most 2^31-1 (the kernels take a 32-bit int)", n);
    reduce_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    s->n = n;
    st = co_problem_array(p, "x", n * sizeof(float), false, (void **)&s->x);
    if (!st) st = co_problem_array(p, "sum", sizeof(float), true, (void **)&s->sum);
    const size_t part0 = (n + MIN_PER_GROUP - 1) / MIN_PER_GROUP;
    const size_t part1 = (part0 + MIN_PER_GROUP - 1) / MIN_PER_GROUP;
    if (!st) st = co_problem_array(p, "partials", part0 * sizeof(float), false, NULL);
    if (!st) st = co_problem_array(p, "partials2", part1 * sizeof(float), false, NULL);
    if (!st) st = co_problem_array(p, "ticket", sizeof(uint32_t), false, NULL);
    if (st) return st;
    p->arrays[REDUCE_PART0].scratch = p->arrays[REDUCE_PART1].scratch = true;
    co_problem_size(p, "n", n);
    p->flops = (double)n;
    p->bytes = 4.0 * (double)n + 4.0;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    reduce_state *s = p->state;
    co_rng r = {seed};
    for (size_t i = 0; i < s->n; i++) s->x[i] = co_rng_float(&r, -1.0f, 1.0f);
    memset(p->arrays[REDUCE_TICKET].host, 0, sizeof(uint32_t));
}

static co_status reference(co_problem *p) {
    reduce_state *s = p->state;
    double ref = 0, mag = 0;
    for (size_t i = 0; i < s->n; i++) ref += s->x[i], mag += fabs((double)s->x[i]);
    s->ref = ref, s->mag = mag;
    return CO_OK;
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    reduce_state *s = p->state;
    const double got = s->sum[0];
    *error = isfinite(got) ? fabs(got - s->ref) / s->mag : INFINITY;
    *tolerance = (ceil(log2((double)s->n)) + 2.0) * 0x1p-24;
    snprintf(check, check_len, "|s-ref|/sum|x|, pairwise bound");
    return CO_OK;
}

static void destroy(co_problem *p) {
    free(p->state);
    p->state = NULL;
}

/* ---- host variants ---- */

/* Pairwise: balanced halves down to blocks of 16 summed as a balanced tree
 * (padded with exact zeros), so no value passes through more than
 * ceil(log2 n) + 1 roundings. */
static float pairwise(const float *x, size_t n) {
    if (n <= 16) {
        float v[16];
        for (size_t i = 0; i < 16; i++) v[i] = i < n ? x[i] : 0.0f;
        for (size_t w = 8; w; w >>= 1)
            for (size_t i = 0; i < w; i++) v[i] += v[i + w];
        return v[0];
    }
    const size_t half = (n / 2 + 15) / 16 * 16;
    return pairwise(x, half) + pairwise(x + half, n - half);
}

static co_status run_c(co_job *job) {
    reduce_state *s = job->prob->state;
    s->sum[0] = pairwise(s->x, s->n);
    return CO_OK;
}

/* Each thread sums its contiguous share pairwise; the shares are combined
 * pairwise too. */
static co_status run_omp(co_job *job) {
    reduce_state *s = job->prob->state;
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    float *part = calloc((size_t)threads, sizeof *part);
    if (!part) return co_fail(CO_ERR_NOMEM, "out of host memory");
    int used = 1;
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const size_t lo = s->n * (size_t)t / (size_t)nt, hi = s->n * (size_t)(t + 1) / (size_t)nt;
        part[t] = hi > lo ? pairwise(s->x + lo, hi - lo) : 0.0f;
        if (t == 0) used = nt;
    }
    s->sum[0] = pairwise(part, (size_t)used);
    free(part);
    return CO_OK;
}

/* ---- device variants (kernels/reduce.cl) ---- */

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The kernel `entry` with work-groups of WG, which --local may not change. */
static co_status wg_kernel(co_job *job, const char *entry, co_kernel **kernel) {
    const size_t wg = (size_t)co_job_param(job, "WG");
    if (job->local[0] && (job->local[0] != wg || job->local[1] > 1 || job->local[2] > 1))
        return co_fail(CO_ERR_INVALID,
                       "variant '%s' sets its work-group from WG (%zu here); change it with "
                       "--param WG=..., not --local",
                       job->var->name, wg);
    const size_t l[3] = {wg, 1, 1};
    char defines[128];
    co_job_defines(job, NULL, defines, sizeof defines);
    co_status st = co_job_check(job, 1, l, wg * sizeof(float));
    if (!st) st = co_job_kernel(job, "reduce", entry, defines, kernel);
    return st;
}

/* Pass after pass of `entry` until one value is left in the output: a pass
 * over m values runs ceil(m / per_group) work-groups of WG, each writing its
 * partial sum; the partials alternate between the two scratch arrays. The
 * kernel time of every pass is summed. */
static co_status passes(co_job *job, const char *entry, size_t per_group) {
    reduce_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    const size_t wg = (size_t)co_job_param(job, "WG"), l[3] = {wg, 1, 1};
    co_kernel *kernel;
    co_status st = wg_kernel(job, entry, &kernel);
    co_buf *in = arr[REDUCE_X].buf;
    for (size_t m = s->n, pass = 0; !st; pass++) {
        const size_t groups = ceil_div(m, per_group);
        co_buf *out = groups == 1 ? arr[REDUCE_SUM].buf : arr[REDUCE_PART0 + pass % 2].buf;
        const size_t g[3] = {groups * wg, 1, 1};
        const co_arg args[] = {CO_INT(m), CO_BUF(in), CO_BUF(out)};
        st = co_job_launch(job, kernel, 1, g, l, wg * sizeof(float), 3, args);
        if (groups == 1) break;
        in = out, m = groups;
    }
    return st;
}

static co_status run_tree(co_job *job) {
    return passes(job, "reduce_tree", (size_t)co_job_param(job, "WG"));
}

static co_status run_unrolled(co_job *job) {
    return passes(job, "reduce_unrolled", 2 * (size_t)co_job_param(job, "WG"));
}

/* GROUPS work-groups (0: 4096 work-items per compute unit, twice what an
 * H200 multiprocessor holds: measured 2% faster there than one full wave,
 * the grid's tail being shorter). */
static size_t grid_groups(const co_job *job) {
    const size_t wg = (size_t)co_job_param(job, "WG"), g = (size_t)co_job_param(job, "GROUPS");
    if (g) return g;
    const size_t per_cu = wg < 4096 ? 4096 / wg : 1;
    return per_cu * (job->dev->info.compute_units ? job->dev->info.compute_units : 1);
}

/* One launch of `entry`: grid_groups() work-groups, fewer where the array
 * has not 4 values per work-item (so at most ceil(n / 32) partials, what
 * the partials array holds); the last group to finish writes the sum. */
static co_status single(co_job *job, const char *entry) {
    reduce_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    const size_t wg = (size_t)co_job_param(job, "WG"), l[3] = {wg, 1, 1};
    const size_t need = ceil_div(s->n, 4 * wg), most = grid_groups(job);
    const size_t g[3] = {(need < most ? need : most) * wg, 1, 1};
    co_kernel *kernel;
    co_status st = wg_kernel(job, entry, &kernel);
    const co_arg args[] = {CO_INT(s->n), CO_BUF(arr[REDUCE_X].buf), CO_BUF(arr[REDUCE_PART0].buf),
                           CO_BUF(arr[REDUCE_TICKET].buf), CO_BUF(arr[REDUCE_SUM].buf)};
    if (!st) st = co_job_launch(job, kernel, 1, g, l, wg * sizeof(float), 5, args);
    return st;
}

static co_status run_multi(co_job *job) { return single(job, "reduce_multi"); }

static co_status run_shuffle(co_job *job) { return single(job, "reduce_shuffle"); }

static co_status run_subgroup(co_job *job) { return single(job, "reduce_subgroup"); }

static bool has_subgroup_add(const co_device *dev, const char **why) {
    const unsigned need = CO_GLSL_SUBGROUP_BASIC | CO_GLSL_SUBGROUP_ARITHMETIC;
    const co_glsl_caps *glsl = co_glsl_device(dev);
    if (glsl && (glsl->subgroup_ops & need) == need) return true;
    *why = "the device has no subgroup arithmetic in compute shaders (OpenGL: none in SPIR-V 1.0)";
    return false;
}

static const co_param_def wg_params[] = {
    {"WG", 256, 32, 1024, true, "work-group size", 0},
};
static const co_param_def grid_params[] = {
    {"WG", 256, 32, 1024, true, "work-group size", 0},
    {"GROUPS", 0, 0, 1 << 20, false, "work-groups (0: 4096 work-items per compute unit)", 0},
};

static const co_variant variants[] = {
    {.name = "c", .summary = "pairwise summation, one core", .on = CO_ON_C, .run = run_c},
    {.name = "omp",
     .summary = "pairwise per thread, then combined",
     .on = CO_ON_OMP,
     .run = run_omp},
    {.name = "tree",
     .summary = "work-group tree in local memory, barriers",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(wg_params),
     .run = run_tree,
     .test_params = "WG=32;WG=512"},
    {.name = "unrolled",
     .summary = "first add during load, steps unrolled",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(wg_params),
     .run = run_unrolled,
     .test_params = "WG=32;WG=1024"},
    {.name = "multi",
     .summary = "grid-stride float4 loads; the last group sums the partials",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(grid_params),
     .run = run_multi,
     .test_params = "WG=32 GROUPS=200;WG=64 GROUPS=1;WG=128 GROUPS=7"},
    {.name = "shuffle",
     .summary = "multi with warp shuffles for the group's sum",
     .on = CO_ON_CUDA,
     CO_PARAMS(grid_params),
     .run = run_shuffle,
     .test_params = "WG=32 GROUPS=200;WG=1024 GROUPS=7"},
    {.name = "subgroup",
     .summary = "multi with subgroupAdd for the group's sum (Vulkan)",
     .on = CO_ON_GLSL,
     CO_PARAMS(grid_params),
     .available = has_subgroup_add,
     .run = run_subgroup,
     .test_params = "WG=32 GROUPS=200;WG=1024 GROUPS=7"},
};

const co_workload co_workload_reduce = {
    .name = "reduce",
    .summary = "sum of float32 values",
    .bound = CO_BOUND_READ,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "multi", "shuffle", "multi"},
    .anchors = {NULL, NULL, NULL, NULL},
    .bench_sets = "n=16777216",
    .quick_sets = "n=1048576",
    .test_sets = "n=1;n=3;n=1023;n=1048583",
    .init = init,
    .fill = fill,
    .reference = reference,
    .verify = verify,
    .destroy = destroy,
};
