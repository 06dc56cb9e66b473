/* The collider's reference: the very kernel code of kernels/collider.cl,
 * compiled here as host C in double precision, with the grid broad phase
 * on all cores. */
#include <math.h>
#include <stdlib.h>

#define CO_REAL double
#include "workloads/collider_host.h"

/* What a host simulation needs besides its output: the grid's working
 * memory, the state and properties widened to double, and `extra` doubles. */
typedef struct ref_work {
    host_grid g;
    double *s, *pr, *extra;
} ref_work;

static double *widen(const float *v, size_t count) {
    double *d = malloc(count * sizeof *d);
    for (size_t i = 0; d && i < count; i++) d[i] = v[i];
    return d;
}

static void work_end(ref_work *w) {
    free(w->g.cell), free(w->g.rank), free(w->g.sorted), free(w->g.start);
    free(w->s), free(w->pr), free(w->extra);
}

static co_status work_begin(const collider_cfg *c, const float *state, const float *props,
                            size_t extra, ref_work *w) {
    const size_t n = (size_t)c->n, cells = (size_t)c->ncx * (size_t)c->ncy;
    w->g.cell = malloc(n * sizeof *w->g.cell);
    w->g.rank = malloc(n * sizeof *w->g.rank);
    w->g.sorted = malloc(n * sizeof *w->g.sorted);
    w->g.start = malloc((cells + 1) * sizeof *w->g.start);
    w->s = widen(state, 4 * n);
    w->pr = widen(props, 2 * n);
    w->extra = malloc(extra * sizeof *w->extra);
    if (w->g.cell && w->g.rank && w->g.sorted && w->g.start && w->s && w->pr && w->extra)
        return CO_OK;
    work_end(w);
    return co_fail(CO_ERR_NOMEM, "out of host memory for the collider reference");
}

co_status collider_reference(const collider_cfg *c, const float *in, const float *props,
                             double *out) {
    ref_work w;
    co_status st = work_begin(c, in, props, 6 * (size_t)c->n, &w);
    if (st) return st;
    host_simulate(c, w.s, w.pr, out, w.extra, w.g, true, true, NULL, NULL);
    work_end(&w);
    return CO_OK;
}

co_status collider_max_overlap(const collider_cfg *c, const float *state, const float *props,
                               double *overlap) {
    ref_work w;
    co_status st = work_begin(c, state, props, 7 * (size_t)c->n, &w);
    if (st) return st;
    host_args a = {
        .c = c, .s = w.s, .pr = w.pr, .g = w.g, .ov = w.extra, .gathered = w.extra + c->n};
    host_sort(&a, true);
    host_items(&a, HOST_OVERLAP, true);
    *overlap = 0;
    for (int i = 0; i < c->n; i++)
        if (!(w.extra[i] <= *overlap)) *overlap = w.extra[i]; /* NaN wins */
    work_end(&w);
    return CO_OK;
}
