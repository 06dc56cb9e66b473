/* The box filter over ranks: the image in blocks of rows, one a rank.
 *
 * Rank i owns rows [y0, y1) and filters rows [a, b) = [y0 - r, y1 + r)
 * clipped to the image: its own rows with r rows of halo on each side,
 * taken from whichever ranks own them (a radius larger than a block takes
 * rows of several ranks; MPI_Alltoallv in units of rows). co_boxfilter on
 * that sub-image gives its own rows exactly as the whole image's filter
 * would: their windows lie inside it, and where it ends at the image's
 * edge the border is the image's. A rank with no rows (more ranks than
 * rows) sends its nothing and filters nothing.
 *
 * Error: each rank's rows are the library's filter of a sub-image of at
 * most the image's rows; the workload's verify holds the gathered image to
 * its float32 model with the K of the single-device run of the whole image
 * (rank 0's; a sub-image's segments and batches are no longer than the
 * image's), RGBA8 exactly. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

typedef struct box_part {
    size_t w, h, row, radius; /* row: bytes of a row */
    size_t y0, y1, a, b;      /* own rows, and the rows filtered */
    co_format format;
    co_border border;
    MPI_Datatype rowtype;
    co_buffer *in, *out;                    /* rows a .. b - 1 */
    unsigned char *host;                    /* the same rows on the host, for staging */
    unsigned char *outh;                    /* the own rows of the output, staged for the gather */
    int *scount, *sdispl, *rcount, *rdispl; /* in rows, from row a */
    MPI_Request *reqs;
    int *gcount, *gdispl; /* the gather's */
} box_part;

/* Rows [lo, hi) of the image needed by rank q: its own and its halos. */
static void needed(const box_part *s, int parts, int q, size_t *lo, size_t *hi) {
    size_t y0, y1;
    dist_block(s->h, parts, q, &y0, &y1);
    if (y0 == y1) {
        *lo = *hi = y0;
        return;
    }
    *lo = y0 > s->radius ? y0 - s->radius : 0;
    *hi = s->h - y1 > s->radius ? y1 + s->radius : s->h;
}

static co_status setup(dist *d, co_problem *whole, void **state) {
    box_part *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    *state = s;
    s->rowtype = MPI_DATATYPE_NULL;
    s->w = dist_size_n(d, "width"), s->h = dist_size_n(d, "height");
    s->radius = dist_size_n(d, "radius");
    const char *fmt = dist_size(d, "format"), *border = dist_size(d, "border");
    if (fmt && strcmp(fmt, "rgba8") && strcmp(fmt, "f32"))
        return co_fail(CO_ERR_UNSUPPORTED,
                       "boxfilter: --format %s has no library call yet (co_boxfilter takes f32 "
                       "and rgba8)",
                       fmt);
    s->format = fmt && !strcmp(fmt, "rgba8") ? CO_FORMAT_RGBA8 : CO_FORMAT_F32;
    s->border = !border || !strcmp(border, "clamp") ? CO_BORDER_CLAMP
                : !strcmp(border, "reflect101")     ? CO_BORDER_REFLECT101
                                                    : CO_BORDER_ZERO;
    s->row = d->shape->arrays[0].bytes / s->h;
    dist_block(s->h, d->size, d->rank, &s->y0, &s->y1);
    needed(s, d->size, d->rank, &s->a, &s->b);
    MPI_Type_contiguous((int)s->row, MPI_BYTE, &s->rowtype);
    MPI_Type_commit(&s->rowtype);
    const size_t P = (size_t)d->size, rows = s->b - s->a;
    s->scount = calloc(P, sizeof(int)), s->sdispl = calloc(P, sizeof(int));
    s->rcount = calloc(P, sizeof(int)), s->rdispl = calloc(P, sizeof(int));
    s->gcount = calloc(P, sizeof(int)), s->gdispl = calloc(P, sizeof(int));
    s->host = dist_host_alloc(d, rows * s->row);
    s->outh = dist_host_alloc(d, (s->y1 - s->y0) * s->row);
    s->reqs = malloc(2 * P * sizeof *s->reqs);
    if (!s->outh || !s->reqs || !s->scount || !s->sdispl || !s->rcount || !s->rdispl ||
        !s->gcount || !s->gdispl || !s->host)
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    if (s->h > INT_MAX) return co_fail(CO_ERR_LIMIT, "boxfilter: over 2^31 rows");
    /* Who sends whom which rows: each rank the rows of its own that another needs. */
    for (int q = 0; q < d->size; q++) {
        size_t lo, hi, q0, q1;
        dist_block(s->h, d->size, q, &q0, &q1);
        needed(s, d->size, q, &lo, &hi);
        const size_t out_lo = lo > s->y0 ? lo : s->y0, out_hi = hi < s->y1 ? hi : s->y1;
        const size_t in_lo = s->a > q0 ? s->a : q0, in_hi = s->b < q1 ? s->b : q1;
        if (q != d->rank && out_hi > out_lo)
            s->scount[q] = (int)(out_hi - out_lo), s->sdispl[q] = (int)(out_lo - s->a);
        if (q != d->rank && in_hi > in_lo)
            s->rcount[q] = (int)(in_hi - in_lo), s->rdispl[q] = (int)(in_lo - s->a);
        s->gcount[q] = (int)(q1 - q0), s->gdispl[q] = (int)q0;
    }
    co_status st = dist_buffer(d, rows * s->row, &s->in);
    if (!st) st = dist_buffer(d, rows * s->row, &s->out);
    /* The own rows, from rank 0's image. */
    MPI_Scatterv(whole ? whole->arrays[0].host : NULL, s->gcount, s->gdispl, s->rowtype,
                 s->host + (s->y0 - s->a) * s->row, (int)(s->y1 - s->y0), s->rowtype, 0, d->comm);
    if (!st && s->y1 > s->y0)
        st = co_buffer_write(s->in, (s->y0 - s->a) * s->row, s->host + (s->y0 - s->a) * s->row,
                             (s->y1 - s->y0) * s->row);
    return st;
}

static co_status run(dist *d, void *state) {
    box_part *s = state;
    /* The halos: in place in the device's buffer where MPI may address it,
     * else staged: the rows others need come down to the host rows, the
     * rows received go up (the image lives on the devices, as in a pipeline). */
    unsigned char *mem = dist_mpi_ptr(d, s->in, 0);
    unsigned char *buf = mem ? mem : s->host;
    for (int q = 0; !mem && q < d->size; q++)
        dist_stage_out(d, s->in, (size_t)s->sdispl[q] * s->row,
                       s->host + (size_t)s->sdispl[q] * s->row, (size_t)s->scount[q] * s->row);
    double t = dist_now();
    int n = 0;
    for (int q = 0; q < d->size; q++) {
        if (s->rcount[q])
            MPI_Irecv(buf + (size_t)s->rdispl[q] * s->row, s->rcount[q], s->rowtype, q, 7, d->comm,
                      &s->reqs[n++]);
        if (s->scount[q]) {
            MPI_Isend(buf + (size_t)s->sdispl[q] * s->row, s->scount[q], s->rowtype, q, 7, d->comm,
                      &s->reqs[n++]);
            d->sent_bytes += (double)s->scount[q] * (double)s->row;
        }
    }
    d->comm_ms += dist_now() - t;
    dist_wait(d, s->reqs, n);
    if (!mem) {
        dist_stage_in(d, s->in, 0, s->host, (s->y0 - s->a) * s->row);
        dist_stage_in(d, s->in, (s->y1 - s->a) * s->row, s->host + (s->y1 - s->a) * s->row,
                      (s->b - s->y1) * s->row);
    }
    if (s->b > s->a && !d->st) {
        t = dist_now();
        dist_ok(d, co_boxfilter(d->ctx, d->device, d->variant, s->format, s->w, s->b - s->a,
                                (unsigned)s->radius, s->border, co_mem_buffer(s->in), s->row,
                                co_mem_buffer(s->out), s->row));
        d->compute_ms += dist_now() - t;
    }
    return d->st;
}

static co_status gather(dist *d, void *state, co_problem *whole) {
    box_part *s = state;
    const size_t own = (s->y1 - s->y0) * s->row, at = (s->y0 - s->a) * s->row;
    unsigned char *mem = dist_mpi_ptr(d, s->out, at);
    if (!mem) dist_stage_out(d, s->out, at, mem = s->outh, own);
    MPI_Gatherv(mem, (int)(s->y1 - s->y0), s->rowtype, whole ? whole->arrays[1].host : NULL,
                s->gcount, s->gdispl, s->rowtype, 0, d->comm);
    return d->st;
}

static void describe(dist *d, void *state, char *out, size_t len) {
    (void)d;
    const box_part *s = state;
    if (s->y1 == s->y0)
        snprintf(out, len, "no rows");
    else
        snprintf(out, len, "rows %zu-%zu, filters %zu-%zu", s->y0, s->y1 - 1, s->a, s->b - 1);
}

static void destroy(void *state) {
    box_part *s = state;
    if (!s) return;
    co_buffer_free(s->in), co_buffer_free(s->out);
    dist_host_free(s->host), dist_host_free(s->outh);
    free(s->reqs), free(s->scount), free(s->sdispl), free(s->rcount), free(s->rdispl);
    free(s->gcount), free(s->gdispl);
    if (s->rowtype != MPI_DATATYPE_NULL) MPI_Type_free(&s->rowtype);
    free(s);
}

const dist_workload dist_boxfilter = {
    .name = "boxfilter",
    .how = "row blocks, r rows of halo each side (from several ranks if r is larger)",
    .setup = setup,
    .run = run,
    .gather = gather,
    .describe = describe,
    .destroy = destroy,
};
