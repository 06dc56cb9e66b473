/* The collider's kernels as host C (kernels/dialect.h, CO_HOST_C) and the
 * host driver around them: one step loop for the c/omp variants (float,
 * collider.c) and for the reference (double, collider_ref.c; define
 * CO_REAL before including). Everything here is static: each translation
 * unit gets its own copy in its own precision. */
#ifndef CO_COLLIDER_HOST_H
#define CO_COLLIDER_HOST_H

#include <stdbool.h>
#include <string.h>

#include "workloads/collider.h"

/* The kernels' one atomic, for the host: relaxed is enough, the counts are
 * read only after the parallel loop's barrier. */
#define atomic_inc(p) __atomic_fetch_add((p), 1, __ATOMIC_RELAXED)
#define CO_HOST_C 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* device-only kernels */
#include "dialect.h"
#include "collider.cl"
#pragma GCC diagnostic pop

/* Working memory of the grid: a cell and rank per ball, cell starts
 * (ncells + 1), ball ids in cell order. */
typedef struct host_grid {
    int *cell, *rank, *start, *sorted;
} host_grid;

typedef struct host_args {
    const collider_cfg *c;
    const real *s, *pr;
    real *o;
    real *gathered; /* 6n: the balls in cell order (collider_scatter) */
    host_grid g;
    real *ov; /* HOST_OVERLAP: deepest overlap per ball */
} host_args;

enum { HOST_BRUTE, HOST_BIN, HOST_SCATTER, HOST_GRID, HOST_OVERLAP };

/* One work-item per ball of a kernel, on one core or all of them. */
static void host_items(const host_args *a, int kernel, bool par) {
    const collider_cfg *c = a->c;
    const long n = c->n;
    const real w = (real)c->w, h = (real)c->h, dt = (real)c->dt;
    const host_grid *g = &a->g;
#pragma omp parallel for schedule(dynamic, 256) if (par)
    for (long i = 0; i < n; i++) {
        co_host_id[0] = (size_t)i;
        switch (kernel) {
        case HOST_BRUTE: collider_brute1(c->n, w, h, dt, c->periodic, a->s, a->pr, a->o); break;
        case HOST_BIN:
            collider_bin(c->n, w, h, c->ncx, c->ncy, a->s, g->cell, g->rank, g->start);
            break;
        case HOST_SCATTER:
            collider_scatter(c->n, g->cell, g->rank, g->start, a->s, a->pr, g->sorted, a->gathered);
            break;
        case HOST_GRID:
            collider_grid(c->n, w, h, dt, c->periodic, c->ncx, c->ncy, a->gathered, g->start,
                          g->sorted, a->o);
            break;
        default:
            a->ov[i] = collider_grid_contacts(c->n, (int)i, w, h, c->periodic, c->ncx, c->ncy,
                                              a->gathered, g->start)
                           .ov;
        }
    }
}

/* The broad phase: a counting sort of the balls of a->s by cell, and the
 * balls gathered in that order into a->gathered. */
static void host_sort(const host_args *a, bool par) {
    const size_t cells = (size_t)a->c->ncx * (size_t)a->c->ncy;
    memset(a->g.start, 0, (cells + 1) * sizeof *a->g.start);
    host_items(a, HOST_BIN, par);
    int run = 0;
    for (size_t c = 0; c <= cells; c++) { /* exclusive scan: counts -> starts */
        const int v = a->g.start[c];
        a->g.start[c] = run;
        run += v;
    }
    host_items(a, HOST_SCATTER, par);
}

/* Called after every step with the state just written; returns true to stop. */
typedef bool (*host_step_fn)(void *ctx, const real *state, int step);

/* c->steps steps from `in` to `out` (4n each); `in` is never written.
 * Brute force double-buffers through tmp (4n) so that the last step writes
 * `out`; the grid gathers each step's old state into tmp (6n) and writes
 * `out` in place. Returns false if step_fn stopped it. */
static bool host_simulate(const collider_cfg *c, const real *in, const real *pr, real *out,
                          real *tmp, host_grid g, bool grid, bool par, host_step_fn step_fn,
                          void *step_ctx) {
    const size_t words = 4 * (size_t)c->n;
    if (c->steps == 0) memcpy(out, in, words * sizeof *out);
    const real *src = in;
    for (int step = 0; step < c->steps; step++) {
        real *dst = grid || (c->steps - 1 - step) % 2 == 0 ? out : tmp;
        host_args a = {.c = c, .s = src, .pr = pr, .o = dst, .gathered = tmp, .g = g};
        if (grid) {
            host_sort(&a, par);
            host_items(&a, HOST_GRID, par);
        } else {
            host_items(&a, HOST_BRUTE, par);
        }
        if (step_fn && step_fn(step_ctx, dst, step + 1)) return false;
        src = dst;
    }
    return true;
}

#endif
