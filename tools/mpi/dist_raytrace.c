/* The ray tracer over ranks: the frame in bands of rows, one a rank.
 *
 * Rank 0's scene (the workload's, from the seed) goes to every rank once;
 * a run renders each rank's band with the workload's variant on its device
 * (co_call with --first-row and --rows: the band of the same camera, pixel
 * for pixel the whole frame's rows) and gathers the bands into rank 0's
 * frame (MPI_Gatherv, a frame at a time). A rank with no rows renders
 * nothing. The gathered frames and the animated spheres (rank 0's, or the
 * first rank's with rows) are verified by the workload against its host
 * tracer's image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call.h"
#include "dist.h"

#define RT_OPTS 24

typedef struct rt_part {
    size_t w, frames, row0, rows, base; /* base: the first row of the whole band */
    int first;                          /* the lowest rank with rows: its world is gathered */
    co_buffer *scene, *world, *image;
    unsigned char *host;      /* the band's frames, staged for the gather */
    unsigned char *frames_to; /* rank 0: the whole problem's frames, where the bands go */
    int *count, *displ;       /* of each rank's band, in rows from the whole band's first */
    MPI_Datatype rowtype;
    co_option opts[RT_OPTS];
    char band[2][24];
    size_t nopts;
} rt_part;

static co_status setup(dist *d, co_problem *whole, void **state) {
    rt_part *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    *state = s;
    s->rowtype = MPI_DATATYPE_NULL;
    s->w = dist_size_n(d, "width"), s->frames = dist_size_n(d, "frames");
    const size_t height = dist_size_n(d, "height");
    s->base = dist_size(d, "first-row") ? dist_size_n(d, "first-row") : 0;
    const size_t all = dist_size(d, "rows") ? dist_size_n(d, "rows") : height;
    size_t lo, hi;
    dist_block(all, d->size, d->rank, &lo, &hi);
    s->row0 = s->base + lo, s->rows = hi - lo;
    s->first = 0;
    for (int q = d->size - 1; q >= 0; q--) {
        dist_block(all, d->size, q, &lo, &hi);
        if (hi > lo) s->first = q;
    }
    /* The workload's options, the band in place of the whole's; nothing saved. */
    for (size_t i = 0; i < d->nopts && s->nopts < RT_OPTS - 2; i++) {
        const char *name = d->opts[i].name;
        if (strcmp(name, "first-row") && strcmp(name, "rows") && strcmp(name, "output") &&
            strcmp(name, "out-dir") && strcmp(name, "gif"))
            s->opts[s->nopts++] = d->opts[i];
    }
    snprintf(s->band[0], sizeof s->band[0], "%zu", s->row0);
    snprintf(s->band[1], sizeof s->band[1], "%zu", s->rows);
    s->opts[s->nopts++] = (co_option){"first-row", s->band[0]};
    s->opts[s->nopts++] = (co_option){"rows", s->band[1]};
    s->count = calloc((size_t)d->size, sizeof *s->count);
    s->displ = calloc((size_t)d->size, sizeof *s->displ);
    const size_t scene = d->shape->arrays[0].bytes, band = s->frames * s->rows * s->w * 4;
    unsigned char *words = malloc(scene);
    s->host = dist_host_alloc(d, band);
    co_status st =
        s->count && s->displ && words && s->host ? CO_OK : co_fail(CO_ERR_NOMEM, "out of memory");
    for (int q = 0; !st && q < d->size; q++) {
        dist_block(all, d->size, q, &lo, &hi);
        s->count[q] = (int)(hi - lo), s->displ[q] = (int)lo;
    }
    MPI_Type_contiguous((int)(s->w * 4), MPI_BYTE, &s->rowtype);
    MPI_Type_commit(&s->rowtype);
    if (!st) st = dist_buffer(d, scene, &s->scene);
    if (!st) st = dist_buffer(d, d->shape->arrays[1].bytes, &s->world);
    if (!st) st = dist_buffer(d, band, &s->image);
    if (whole) memcpy(words, whole->arrays[0].host, scene);
    if (whole) s->frames_to = whole->arrays[2].host;
    if (words) MPI_Bcast(words, (int)scene, MPI_BYTE, 0, d->comm);
    if (!st) st = co_buffer_upload(s->scene, words, scene);
    free(words);
    return st;
}

static co_status run(dist *d, void *state) {
    rt_part *s = state;
    if (s->rows && !d->st) {
        const co_mem mems[3] = {co_mem_buffer(s->scene), co_mem_buffer(s->world),
                                co_mem_buffer(s->image)};
        const double t = dist_now();
        dist_ok(d, co_call(d->ctx, d->device, "raytrace", d->variant, s->opts, s->nopts, mems, 3));
        d->compute_ms += dist_now() - t;
    }
    /* The bands into rank 0's frames: rank 0's own straight into its place. */
    const size_t frame = s->rows * s->w * 4;
    const size_t whole_frame = d->shape->arrays[2].bytes / s->frames;
    unsigned char *mem = dist_mpi_ptr(d, s->image, 0);
    for (size_t f = 0; !mem && d->rank == 0 && f < s->frames; f++)
        dist_stage_out(d, s->image, f * frame,
                       s->frames_to + f * whole_frame + (size_t)s->displ[0] * s->w * 4, frame);
    if (!mem && d->rank) dist_stage_out(d, s->image, 0, mem = s->host, s->frames * frame);
    const double t = dist_now();
    for (size_t f = 0; f < s->frames; f++) {
        unsigned char *to = s->frames_to ? s->frames_to + f * whole_frame : NULL;
        const bool in_place = d->rank == 0 && !mem;
        MPI_Gatherv(in_place ? MPI_IN_PLACE : mem + f * frame, (int)s->rows, s->rowtype, to,
                    s->count, s->displ, s->rowtype, 0, d->comm);
    }
    d->comm_ms += dist_now() - t;
    if (d->rank) d->sent_bytes += (double)(s->frames * frame);
    return d->st;
}

/* The frames are rank 0's already; the animated spheres come from the first rank with rows. */
static co_status gather(dist *d, void *state, co_problem *whole) {
    rt_part *s = state;
    const size_t bytes = d->shape->arrays[1].bytes;
    unsigned char *world = malloc(bytes);
    if (!world) dist_ok(d, co_fail(CO_ERR_NOMEM, "out of host memory"));
    if (d->rank == s->first && world && !d->st)
        dist_ok(d, co_buffer_download(s->world, world, bytes));
    if (s->first != 0 && d->rank == s->first) MPI_Send(world, (int)bytes, MPI_BYTE, 0, 5, d->comm);
    if (s->first != 0 && d->rank == 0)
        MPI_Recv(whole->arrays[1].host, (int)bytes, MPI_BYTE, s->first, 5, d->comm,
                 MPI_STATUS_IGNORE);
    else if (d->rank == 0 && world)
        memcpy(whole->arrays[1].host, world, bytes);
    free(world);
    return d->st;
}

static void describe(dist *d, void *state, char *out, size_t len) {
    (void)d;
    const rt_part *s = state;
    if (!s->rows)
        snprintf(out, len, "no rows");
    else
        snprintf(out, len, "rows %zu-%zu", s->row0, s->row0 + s->rows - 1);
}

static void destroy(void *state) {
    rt_part *s = state;
    if (!s) return;
    co_buffer_free(s->scene), co_buffer_free(s->world), co_buffer_free(s->image);
    dist_host_free(s->host);
    free(s->count), free(s->displ);
    if (s->rowtype != MPI_DATATYPE_NULL) MPI_Type_free(&s->rowtype);
    free(s);
}

const dist_workload dist_raytrace = {
    .name = "raytrace",
    .how = "bands of rows, rendered on each rank, gathered into rank 0's frame",
    .setup = setup,
    .run = run,
    .gather = gather,
    .describe = describe,
    .destroy = destroy,
};
