/* Workload dispatch: seed 002's first program. A 1D, 2D or 3D grid of
 * work-groups (--groups 16x8x4) of work-items (--local 4x4x4; by default 64,
 * 8x8 or 4x4x4 as the grid has one, two or three dimensions); every
 * work-item writes who it is at its flattened global index
 * i = x + X * (y + Y * z) (X, Y: the global size): four uints, i, its
 * group's flattened index, its index within the group, and its place in
 * dispatch order, group * items a group + local index (kernels/dispatch.cl,
 * kernels/dispatch.comp). `run` prints the first of them (--show rows), so
 * how ids map to groups can be seen on each API: the flattened index runs
 * along rows of the whole grid, dispatch order through one group at a time.
 * Model: 16 bytes written a work-item. Verification: every value exact
 * against the same arithmetic on the host (the error: values that differ).
 * The host variants are the dispatch itself as loops: groups, then the
 * work-items of each, in order (c), groups over the cores (omp). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/workload.h"

#define MAX_ITEMS ((size_t)1 << 24) /* work-items of a grid: 256 MiB of ids */

typedef struct dispatch_state {
    unsigned dims;
    size_t groups[3], local[3], global[3], items; /* items: of the whole grid */
    uint32_t *ids;
    int show;
} dispatch_state;

static const co_option_def options[] = {
    {"groups", "16x8x4", "work-groups: X, XxY or XxYxZ (the work-group shape is --local)"},
    {"show", "4", "rows of the id mapping `run` prints (0: none)"},
};

/* "16x8x4" into up to three positive sizes; their count. */
static unsigned parse_shape(const char *s, size_t out[3]) {
    unsigned d = 0;
    out[0] = out[1] = out[2] = 1;
    for (const char *p = s; d < 3; d++) {
        char *end;
        if (*p < '1' || *p > '9') return 0;
        const unsigned long long v = strtoull(p, &end, 10);
        if (v > 65535) return 0;
        out[d] = (size_t)v;
        if (!*end) return d + 1;
        if (*end != 'x') return 0;
        p = end + 1;
    }
    return 0;
}

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    const char *g = co_opt(opts, nopts, "groups");
    dispatch_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    if (!(s->dims = parse_shape(g ? g : "16x8x4", s->groups)))
        return co_fail(CO_ERR_INVALID,
                       "--groups must be X, XxY or XxYxZ of 1..65535 each, got '%s'", g);
    co_status st = co_opt_int(opts, nopts, "show", 4, 0, 1000, &s->show);
    if (st) return st;
    /* --local as asked, else 64, 8x8 or 4x4x4; a longer --local adds dimensions. */
    static const size_t defaults[3][3] = {{64, 1, 1}, {8, 8, 1}, {4, 4, 4}};
    for (unsigned d = 0; d < 3; d++) {
        s->local[d] = p->local[0] ? (p->local[d] ? p->local[d] : 1) : defaults[s->dims - 1][d];
        if (p->local[d] && d + 1 > s->dims) s->dims = d + 1;
    }
    s->items = 1;
    for (unsigned d = 0; d < 3; d++) {
        s->global[d] = s->groups[d] * s->local[d];
        s->items *= s->global[d];
    }
    if (s->items > MAX_ITEMS)
        return co_fail(CO_ERR_INVALID, "dispatch of %zux%zux%zu work-items: at most 2^24 in all",
                       s->global[0], s->global[1], s->global[2]);
    st = co_problem_array(p, "ids", 16 * s->items, true, (void **)&s->ids);
    if (st) return st;
    char text[64];
    snprintf(text, sizeof text, "%zux%zux%zu", s->groups[0], s->groups[1], s->groups[2]);
    co_problem_text(p, "groups", text);
    snprintf(text, sizeof text, "%zux%zux%zu", s->local[0], s->local[1], s->local[2]);
    co_problem_text(p, "local", text);
    co_problem_size(p, "items", s->items);
    p->bytes = 16.0 * (double)s->items;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) { (void)p, (void)seed; } /* no inputs */

/* The four ids of the work-item at global position (x, y, z). */
static void expected(const dispatch_state *s, size_t x, size_t y, size_t z, uint32_t out[4]) {
    const size_t *l = s->local, *n = s->groups;
    const size_t group = x / l[0] + n[0] * (y / l[1] + n[1] * (z / l[2]));
    const size_t lid = x % l[0] + l[0] * (y % l[1] + l[1] * (z % l[2]));
    out[0] = (uint32_t)(x + s->global[0] * (y + s->global[1] * z));
    out[1] = (uint32_t)group;
    out[2] = (uint32_t)lid;
    out[3] = (uint32_t)(group * l[0] * l[1] * l[2] + lid);
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    const dispatch_state *s = p->state;
    size_t wrong = 0, i = 0;
    for (size_t z = 0; z < s->global[2]; z++)
        for (size_t y = 0; y < s->global[1]; y++)
            for (size_t x = 0; x < s->global[0]; x++, i++) {
                uint32_t want[4];
                expected(s, x, y, z, want);
                for (int k = 0; k < 4; k++) wrong += s->ids[4 * i + k] != want[k];
            }
    *error = (double)wrong;
    *tolerance = 0;
    snprintf(check, check_len, "exact, ids differing");
    return CO_OK;
}

/* The mapping, for the eye: the first --show work-items in memory order,
 * then the first of the next group along x, of the next row, of the next
 * slice. */
static co_status save(co_problem *p, const co_option *opts, size_t nopts) {
    (void)opts, (void)nopts;
    const dispatch_state *s = p->state;
    if (!s->show) return CO_OK;
    printf("  %zux%zux%zu groups of %zux%zux%zu: index = x + %zu * (y + %zu * z)\n", s->groups[0],
           s->groups[1], s->groups[2], s->local[0], s->local[1], s->local[2], s->global[0],
           s->global[1]);
    printf("  %8s  %-16s %-16s %-16s %s\n", "index", "global (x,y,z)", "group (x,y,z)",
           "local (x,y,z)", "dispatch order (as written)");
    size_t rows[1000 + 3], n = 0;
    for (size_t i = 0; i < (size_t)s->show && i < s->items; i++) rows[n++] = i;
    const size_t more[3] = {s->local[0], s->global[0] * s->local[1],
                            s->global[0] * s->global[1] * s->local[2]};
    for (int k = 0; k < 3; k++)
        if (more[k] >= (size_t)s->show && more[k] < s->items && (k == 0 || more[k] != more[k - 1]))
            rows[n++] = more[k];
    for (size_t r = 0; r < n; r++) {
        const size_t i = rows[r], x = i % s->global[0], y = i / s->global[0] % s->global[1],
                     z = i / (s->global[0] * s->global[1]);
        char g[72], gr[72], lo[72];
        snprintf(g, sizeof g, "(%zu,%zu,%zu)", x, y, z);
        snprintf(gr, sizeof gr, "(%zu,%zu,%zu)", x / s->local[0], y / s->local[1], z / s->local[2]);
        snprintf(lo, sizeof lo, "(%zu,%zu,%zu)", x % s->local[0], y % s->local[1], z % s->local[2]);
        printf("  %8u  %-16s %-16s %-16s %u\n", s->ids[4 * i], g, gr, lo, s->ids[4 * i + 3]);
    }
    return CO_OK;
}

static void destroy(co_problem *p) {
    free(p->state);
    p->state = NULL;
}

/* ---- host variants: the dispatch as loops ---- */

/* Every work-item of group (gx, gy, gz), in local order. */
static void host_group(const dispatch_state *s, size_t gx, size_t gy, size_t gz) {
    for (size_t lz = 0; lz < s->local[2]; lz++)
        for (size_t ly = 0; ly < s->local[1]; ly++)
            for (size_t lx = 0; lx < s->local[0]; lx++) {
                const size_t x = gx * s->local[0] + lx, y = gy * s->local[1] + ly,
                             z = gz * s->local[2] + lz;
                uint32_t ids[4];
                expected(s, x, y, z, ids);
                memcpy(s->ids + 4 * (size_t)ids[0], ids, sizeof ids);
            }
}

static co_status run_c(co_job *job) {
    const dispatch_state *s = job->prob->state;
    for (size_t gz = 0; gz < s->groups[2]; gz++)
        for (size_t gy = 0; gy < s->groups[1]; gy++)
            for (size_t gx = 0; gx < s->groups[0]; gx++) host_group(s, gx, gy, gz);
    return CO_OK;
}

static co_status run_omp(co_job *job) {
    const dispatch_state *s = job->prob->state;
    const long n = (long)(s->groups[0] * s->groups[1] * s->groups[2]);
#pragma omp parallel for schedule(static)
    for (long g = 0; g < n; g++)
        host_group(s, (size_t)g % s->groups[0], (size_t)g / s->groups[0] % s->groups[1],
                   (size_t)g / (s->groups[0] * s->groups[1]));
    return CO_OK;
}

/* ---- device variant: one kernel on every device API ---- */

static co_status run_ids(co_job *job) {
    const dispatch_state *s = job->prob->state;
    co_status st = co_job_check(job, s->dims, s->local, 0);
    co_kernel *kernel;
    if (!st) st = co_job_kernel(job, "dispatch", "dispatch_ids", "", &kernel);
    if (st) return st;
    const co_arg args[] = {CO_BUF(job->prob->arrays[0].buf)};
    return co_job_launch(job, kernel, s->dims, s->global, s->local, 0, 1, args);
}

static const co_variant variants[] = {
    {.name = "c",
     .summary = "the dispatch as loops: groups, then their work-items",
     .on = CO_ON_C,
     .run = run_c},
    {.name = "omp", .summary = "the groups over all cores", .on = CO_ON_OMP, .run = run_omp},
    {.name = "ids",
     .summary = "each work-item writes its ids (seed 002)",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_ids},
};

const co_workload co_workload_dispatch = {
    .name = "dispatch",
    .summary = "a 1D/2D/3D grid of work-groups writing their ids (seed 002)",
    .bound = CO_BOUND_MEMORY,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "ids", "ids", "ids"},
    .anchors = {NULL, NULL, NULL, NULL, NULL},
    /* 2^22 work-items' ids on CPUs (lavapipe and llvmpipe take 128 MiB a
     * buffer); GPUs then 2^26 (256 MiB) */
    .bench_sets = "groups=1024x64 show=0",
    .bench_sets_gpu = "groups=1024x64 show=0;groups=4096x64 show=0",
    .quick_sets = "groups=16x8x4 show=0",
    .test_sets = "groups=16x8x4 show=0;groups=7 show=0;groups=3x5 show=0;groups=1x1x9 show=0;"
                 "groups=1 show=0",
    .init = init,
    .fill = fill,
    .verify = verify,
    .save = save,
    .destroy = destroy,
};
