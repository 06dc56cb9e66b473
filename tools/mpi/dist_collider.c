/* The collider over ranks: the box in horizontal strips, one a rank.
 *
 * Rank q owns the balls whose centre lies in its strip [H q / P, H (q + 1) / P)
 * and holds, besides them, ghosts: copies of the other ranks' balls within
 * G = 2 r_max (the farthest a contact reaches; the minimum image across a
 * periodic edge) of its strip. A step is one step of the workload's own
 * physics (co_call of collider with --steps 1) on owned balls and ghosts
 * together; the owned balls' results are exact in the sense that every
 * ball they can touch took part, the ghosts' are thrown away. Then each
 * rank sends every ball it owns to the rank whose strip holds it now (it
 * migrates) and a ghost copy to each other rank within G, in one
 * MPI_Alltoallv a step; a strip thinner than G gets ghosts from several
 * ranks. A rank whose strip is empty steps nothing.
 *
 * Checks, besides the workload's verify of the gathered state (its f64
 * reference for short runs, its invariants: inside the box, no deep
 * overlaps, energy, momentum where periodic): every ball id once, none
 * lost; and the momentum (and count) every rank sent away as migrating
 * equal to what the others received, summed over all steps. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call.h"
#include "dist.h"

typedef struct ball {
    float x, y, vx, vy, r, m;
    int32_t id, own; /* own: the receiver owns it (else a ghost) */
} ball;

#define COLL_OPTS 24

typedef struct coll_part {
    size_t total, steps;
    double w, h, g;
    int periodic;
    ball *l; /* owned balls, then ghosts */
    size_t nown, nghost, cap;
    ball *l0; /* the same after the first exchange: where every run starts */
    size_t nown0, nghost0;
    ball *next, *send, *recv; /* the exchange's working lists */
    size_t next_cap, send_cap, recv_cap;
    int *scount, *sdispl, *rcount, *rdispl, *fill;
    float *state, *props, *out; /* SoA for the call: x y vx vy, r m, x y vx vy */
    size_t soa_cap;
    co_buffer *bstate, *bprops, *bout; /* the same on the device, where staged */
    size_t dev_cap;
    co_option opts[COLL_OPTS];
    size_t nopts;
    char text[2][24];
    double moved[3];           /* count, px, py of the migrating balls sent, minus those received */
    double moved_abs, moved_n; /* sum |p| and the count of what was sent */
    /* rank 0, after the gather: */
    size_t lost, twice;
    double moved_total[3], moved_scale, moved_count;
} coll_part;

static double strip_lo(const coll_part *s, int P, int q) { return s->h * q / P; }

static int owner_of(const coll_part *s, int P, float y) {
    int q = (int)floor((double)y * P / s->h);
    return q < 0 ? 0 : q >= P ? P - 1 : q;
}

/* The distance in y from y to strip q (0 inside; across a periodic edge the nearer image). */
static double to_strip(const coll_part *s, int P, int q, double y) {
    const double lo = strip_lo(s, P, q), hi = strip_lo(s, P, q + 1);
    double best = INFINITY;
    for (int k = s->periodic ? -1 : 0; k <= (s->periodic ? 1 : 0); k++) {
        const double yy = y + k * s->h;
        const double dist = yy < lo ? lo - yy : yy >= hi ? yy - hi : 0;
        best = dist < best ? dist : best;
    }
    return best;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n += n / 2;
    void *q = realloc(*p, n * size);
    if (!q) return false;
    *p = q, *cap = n;
    return true;
}

/* Out of host memory in the middle of an exchange: the other ranks wait in
 * it, so the job ends here (the one case that does not agree first). */
static void out_of_memory(dist *d) {
    fprintf(stderr, "coalesce-mpi: rank %d: out of host memory for the balls\n", d->rank);
    MPI_Abort(d->comm, 1);
}

/* Each owned ball to its owner, a ghost copy to every other rank within G:
 * one MPI_Alltoallv. */
static void exchange(dist *d, coll_part *s) {
    const int P = d->size, me = d->rank;
    memset(s->scount, 0, (size_t)P * sizeof *s->scount);
    size_t keep_own = 0, keep_ghost = 0;
    /* Pass 1: counts. */
    for (size_t i = 0; i < s->nown; i++) {
        const ball *b = &s->l[i];
        const int o = owner_of(s, P, b->y);
        for (int q = 0; q < P; q++) {
            const bool to = q == o || to_strip(s, P, q, b->y) < s->g;
            if (!to) continue;
            if (q != me)
                s->scount[q]++;
            else if (q == o)
                keep_own++;
            else
                keep_ghost++;
        }
    }
    size_t nsend = 0;
    for (int q = 0; q < P; q++) s->sdispl[q] = (int)nsend, nsend += (size_t)s->scount[q];
    if (!grow((void **)&s->send, &s->send_cap, nsend + 1, sizeof(ball)) ||
        !grow((void **)&s->next, &s->next_cap, keep_own + keep_ghost + 1, sizeof(ball)))
        out_of_memory(d);
    /* Pass 2: the lists; the own kept owned first, its ghosts after. */
    size_t ko = 0, kg = keep_own;
    memcpy(s->fill, s->sdispl, (size_t)P * sizeof *s->fill);
    for (size_t i = 0; i < s->nown; i++) {
        ball b = s->l[i];
        const int o = owner_of(s, P, b.y);
        for (int q = 0; q < P; q++) {
            if (q != o && !(to_strip(s, P, q, b.y) < s->g)) continue;
            b.own = q == o;
            if (q == me) {
                s->next[b.own ? ko++ : kg++] = b;
            } else {
                s->send[s->fill[q]++] = b;
                if (b.own) {
                    s->moved_n += 1;
                    s->moved[0] += 1, s->moved[1] += (double)b.m * b.vx;
                    s->moved[2] += (double)b.m * b.vy;
                    s->moved_abs += fabs((double)b.m * b.vx) + fabs((double)b.m * b.vy);
                }
            }
        }
    }
    const double t = dist_now();
    MPI_Alltoall(s->scount, 1, MPI_INT, s->rcount, 1, MPI_INT, d->comm);
    size_t nrecv = 0;
    for (int q = 0; q < P; q++) s->rdispl[q] = (int)nrecv, nrecv += (size_t)s->rcount[q];
    if (!grow((void **)&s->recv, &s->recv_cap, nrecv + 1, sizeof(ball))) out_of_memory(d);
    MPI_Datatype bt;
    MPI_Type_contiguous((int)sizeof(ball), MPI_BYTE, &bt);
    MPI_Type_commit(&bt);
    MPI_Alltoallv(s->send, s->scount, s->sdispl, bt, s->recv, s->rcount, s->rdispl, bt, d->comm);
    MPI_Type_free(&bt);
    d->comm_ms += dist_now() - t;
    d->sent_bytes += (double)nsend * sizeof(ball);
    /* The new local set: owned (kept, received), then ghosts (kept, received). */
    size_t rown = 0;
    for (size_t i = 0; i < nrecv; i++) rown += s->recv[i].own != 0;
    if (!grow((void **)&s->l, &s->cap, keep_own + keep_ghost + nrecv + 1, sizeof(ball)))
        out_of_memory(d);
    size_t at = 0;
    memcpy(s->l, s->next, keep_own * sizeof(ball)), at = keep_own;
    for (size_t i = 0; i < nrecv; i++)
        if (s->recv[i].own) {
            const ball *b = &s->recv[i];
            s->moved[0] -= 1, s->moved[1] -= (double)b->m * b->vx;
            s->moved[2] -= (double)b->m * b->vy;
            s->l[at++] = *b;
        }
    memcpy(s->l + at, s->next + keep_own, keep_ghost * sizeof(ball)), at += keep_ghost;
    for (size_t i = 0; i < nrecv; i++)
        if (!s->recv[i].own) s->l[at++] = s->recv[i];
    s->nown = keep_own + rown, s->nghost = keep_ghost + (nrecv - rown);
}

/* Where the call's arrays live: in place on the host devices (d->direct),
 * else in device buffers grown as the local set grows. */
static co_status soa_room(dist *d, coll_part *s, size_t n) {
    if (n > s->soa_cap) { /* packed afresh each step: nothing to keep */
        const size_t cap = n + n / 2;
        dist_host_free(s->state), dist_host_free(s->props), dist_host_free(s->out);
        s->state = dist_host_alloc(d, 4 * cap * sizeof(float));
        s->props = dist_host_alloc(d, 2 * cap * sizeof(float));
        s->out = dist_host_alloc(d, 4 * cap * sizeof(float));
        s->soa_cap = s->state && s->props && s->out ? cap : 0;
        if (!s->soa_cap) return co_fail(CO_ERR_NOMEM, "out of host memory for the balls");
    }
    if (d->direct && co_device_get(d->ctx, d->device) &&
        (!strcmp(co_device_get(d->ctx, d->device)->backend, "c") ||
         !strcmp(co_device_get(d->ctx, d->device)->backend, "omp")))
        return CO_OK;
    if (n <= s->dev_cap) return CO_OK;
    co_buffer_free(s->bstate), co_buffer_free(s->bprops), co_buffer_free(s->bout);
    s->bstate = s->bprops = s->bout = NULL;
    const size_t cap = n + n / 2;
    co_status st = dist_buffer(d, 4 * cap * sizeof(float), &s->bstate);
    if (!st) st = dist_buffer(d, 2 * cap * sizeof(float), &s->bprops);
    if (!st) st = dist_buffer(d, 4 * cap * sizeof(float), &s->bout);
    s->dev_cap = st ? 0 : cap;
    return st;
}

/* One step of the local set through the workload; the owned balls' new state into l. */
static void step(dist *d, coll_part *s) {
    const size_t n = s->nown + s->nghost;
    if (!n || d->st || !dist_ok(d, soa_room(d, s, n))) return;
    for (size_t i = 0; i < n; i++) {
        const ball *b = &s->l[i];
        s->state[i] = b->x, s->state[n + i] = b->y, s->state[2 * n + i] = b->vx;
        s->state[3 * n + i] = b->vy, s->props[i] = b->r, s->props[n + i] = b->m;
    }
    snprintf(s->text[0], sizeof s->text[0], "%zu", n);
    co_mem mems[3] = {co_mem_host(s->state), co_mem_host(s->props), co_mem_host(s->out)};
    if (s->bstate) { /* staged: the device's buffers */
        dist_stage_in(d, s->bstate, 0, s->state, 4 * n * sizeof(float));
        dist_stage_in(d, s->bprops, 0, s->props, 2 * n * sizeof(float));
        mems[0] = co_mem_buffer(s->bstate), mems[1] = co_mem_buffer(s->bprops);
        mems[2] = co_mem_buffer(s->bout);
    }
    if (d->st) return;
    const double t = dist_now();
    dist_ok(d, co_call(d->ctx, d->device, "collider", d->variant, s->opts, s->nopts, mems, 3));
    d->compute_ms += dist_now() - t;
    if (s->bstate) dist_stage_out(d, s->bout, 0, s->out, 4 * n * sizeof(float));
    if (d->st) return;
    for (size_t i = 0; i < s->nown; i++) {
        ball *b = &s->l[i];
        b->x = s->out[i], b->y = s->out[n + i], b->vx = s->out[2 * n + i];
        b->vy = s->out[3 * n + i];
    }
}

static co_status setup(dist *d, co_problem *whole, void **state) {
    coll_part *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    *state = s;
    const size_t P = (size_t)d->size;
    s->total = dist_size_n(d, "balls"), s->steps = dist_size_n(d, "steps");
    s->w = strtod(dist_option(d, "width"), NULL), s->h = strtod(dist_option(d, "height"), NULL);
    const char *rmax = dist_option(d, "radius-max");
    s->g = 2 * strtod(rmax ? rmax : dist_option(d, "radius"), NULL) * (1 + 1e-3);
    s->periodic = !strcmp(dist_option(d, "boundary"), "periodic");
    s->scount = calloc(P, sizeof(int)), s->sdispl = calloc(P, sizeof(int));
    s->rcount = calloc(P, sizeof(int)), s->rdispl = calloc(P, sizeof(int));
    s->fill = calloc(P, sizeof(int));
    /* The step's options: the workload's, one step of the local balls, nothing written. */
    static const char *const dropped[] = {"balls", "steps", "output", "image", "every"};
    for (size_t i = 0; i < d->nopts && s->nopts < COLL_OPTS - 2; i++) {
        bool drop = false;
        for (size_t k = 0; k < sizeof dropped / sizeof dropped[0]; k++)
            drop |= !strcmp(d->opts[i].name, dropped[k]);
        if (!drop) s->opts[s->nopts++] = d->opts[i];
    }
    s->opts[s->nopts++] = (co_option){"balls", s->text[0]};
    s->opts[s->nopts++] = (co_option){"steps", "1"};
    co_status st = s->scount && s->sdispl && s->rcount && s->rdispl && s->fill
                       ? CO_OK
                       : co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st && !s->steps)
        st = co_fail(CO_ERR_INVALID, "collider over ranks: --steps must be at least 1");
    /* Rank 0 holds every ball at first; one exchange hands them out. */
    if (d->rank == 0 && !st) {
        const float *in = whole->arrays[0].host, *pr = whole->arrays[1].host;
        const size_t n = s->total;
        if (!grow((void **)&s->l, &s->cap, n + 1, sizeof(ball)))
            st = co_fail(CO_ERR_NOMEM, "out of host memory for the balls");
        for (size_t i = 0; !st && i < n; i++)
            s->l[i] = (ball){in[i], in[n + i], in[2 * n + i], in[3 * n + i],
                             pr[i], pr[n + i], (int32_t)i,    1};
        s->nown = st ? 0 : n;
    }
    if (st) dist_ok(d, st);
    if (s->scount) exchange(d, s); /* every rank takes part, failed or not */
    memset(s->moved, 0, sizeof s->moved);
    s->moved_abs = s->moved_n = 0;
    const size_t n = s->nown + s->nghost;
    if (!(s->l0 = malloc((n + 1) * sizeof *s->l0)))
        return co_fail(CO_ERR_NOMEM, "out of host memory for the balls");
    if (n) memcpy(s->l0, s->l, n * sizeof *s->l0);
    s->nown0 = s->nown, s->nghost0 = s->nghost;
    return d->st;
}

static void reset(dist *d, void *state) {
    (void)d;
    coll_part *s = state;
    const size_t n = s->nown0 + s->nghost0;
    if (!s->l0 || !grow((void **)&s->l, &s->cap, n + 1, sizeof(ball))) return;
    memcpy(s->l, s->l0, n * sizeof *s->l);
    s->nown = s->nown0, s->nghost = s->nghost0;
}

static co_status run(dist *d, void *state) {
    coll_part *s = state;
    for (size_t k = 0; k < s->steps; k++) {
        step(d, s);
        exchange(d, s);
    }
    return d->st;
}

/* The owned balls by id into rank 0's final state; the migration's sums. */
static co_status gather(dist *d, void *state, co_problem *whole) {
    coll_part *s = state;
    const int P = d->size;
    int mine = (int)s->nown, *counts = calloc((size_t)P, sizeof *counts),
        *displs = calloc((size_t)P, sizeof *displs);
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, d->comm);
    size_t n = 0;
    for (int q = 0; d->rank == 0 && q < P; q++) displs[q] = (int)n, n += (size_t)counts[q];
    ball *all = d->rank == 0 ? malloc((n + 1) * sizeof *all) : NULL;
    MPI_Datatype bt;
    MPI_Type_contiguous((int)sizeof(ball), MPI_BYTE, &bt);
    MPI_Type_commit(&bt);
    MPI_Gatherv(s->l, mine, bt, all, counts, displs, bt, 0, d->comm);
    MPI_Type_free(&bt);
    double sums[5] = {s->moved[0], s->moved[1], s->moved[2], s->moved_abs, s->moved_n};
    MPI_Reduce(d->rank ? sums : MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, 0, d->comm);
    memset(s->moved, 0, sizeof s->moved);
    s->moved_abs = s->moved_n = 0;
    if (d->rank == 0) {
        memcpy(s->moved_total, sums, 3 * sizeof *sums);
        s->moved_scale = sums[3], s->moved_count = sums[4];
        const size_t N = s->total;
        float *out = whole->arrays[2].host;
        unsigned char *seen = calloc(N + 1, 1);
        s->lost = s->twice = 0;
        for (size_t i = 0; seen && all && i < n; i++) {
            const ball *b = &all[i];
            if (b->id < 0 || (size_t)b->id >= N || seen[b->id]++) {
                s->twice++;
                continue;
            }
            out[b->id] = b->x, out[N + b->id] = b->y;
            out[2 * N + b->id] = b->vx, out[3 * N + b->id] = b->vy;
        }
        for (size_t i = 0; seen && i < N; i++) s->lost += !seen[i];
        if (!seen || !all) dist_ok(d, co_fail(CO_ERR_NOMEM, "out of host memory"));
        free(seen);
    }
    free(all), free(counts), free(displs);
    return d->st;
}

/* Every ball once; the migrating balls' count and momentum as much received as sent. */
static co_status check(dist *d, void *state, co_problem *whole, double *error, double *tol,
                       char *text, size_t len) {
    (void)d, (void)whole;
    const coll_part *s = state;
    const double dp = hypot(s->moved_total[1], s->moved_total[2]);
    /* Each side sums the same products (exact in double) in its own order: a
     * recursive sum of n terms is within (n - 1) eps sum|x| of exact, twice. */
    const double bound = 2 * (s->moved_count + 1) * DBL_EPSILON * s->moved_scale;
    const bool momentum = fabs(s->moved_total[0]) == 0 && dp <= bound;
    *error = (double)(s->lost + s->twice) + (momentum ? 0 : 1);
    *tol = 0;
    snprintf(text, len, "balls %zu lost %zu twice%s", s->lost, s->twice,
             momentum ? "" : ", migration momentum");
    return CO_OK;
}

static void describe(dist *d, void *state, char *out, size_t len) {
    const coll_part *s = state;
    snprintf(out, len, "strip y %.6g-%.6g: %zu balls, %zu ghosts", strip_lo(s, d->size, d->rank),
             strip_lo(s, d->size, d->rank + 1), s->nown, s->nghost);
}

static void destroy(void *state) {
    coll_part *s = state;
    if (!s) return;
    free(s->l), free(s->l0), free(s->next), free(s->send), free(s->recv);
    free(s->scount), free(s->sdispl), free(s->rcount), free(s->rdispl), free(s->fill);
    dist_host_free(s->state), dist_host_free(s->props), dist_host_free(s->out);
    co_buffer_free(s->bstate), co_buffer_free(s->bprops), co_buffer_free(s->bout);
    free(s);
}

const dist_workload dist_collider = {
    .name = "collider",
    .how = "strips; ghosts within 2 r_max and migrating balls exchanged each step",
    .setup = setup,
    .run = run,
    .gather = gather,
    .reset = reset,
    .check = check,
    .describe = describe,
    .destroy = destroy,
};
