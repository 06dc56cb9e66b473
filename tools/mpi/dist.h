/* The distributed workloads of coalesce-mpi: what every one of them shares.
 *
 * One rank, one device. Each rank computes its part through the library's
 * calls on its own device buffers (co_buffer; co_sgemm_ex, co_boxfilter,
 * co_reduce_sum, and co_call for the collider's step and the ray tracer's
 * band), and the ranks exchange what the parts need with MPI. Rank 0 holds
 * the whole problem as the workload makes it (co_session: inputs from the
 * seed, the reference), hands the inputs out, gathers the outputs and
 * verifies them with the workload's own verify.
 *
 * Buffers reach MPI in one of two ways: staged through host memory
 * (co_buffer_read/write around each message: the default), or directly,
 * where MPI can address the buffer's memory: the host devices' buffers are
 * host memory, and a CUDA buffer is given to MPI where MPIX_Query_cuda_support
 * says the MPI is CUDA-aware (dist_mpi_ptr).
 *
 * Failures: a rank whose call fails keeps taking part in every exchange
 * (nothing hangs waiting for it) but computes nothing more; dist_agree,
 * called by every rank at the end of each phase, gives every rank the first
 * failing rank's status and message. */
#ifndef CO_DIST_H
#define CO_DIST_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "coalesce.h"
#include "core/workload.h"

typedef struct dist {
    MPI_Comm comm;
    int rank, size;             /* in comm */
    int local_rank, local_size; /* among the ranks of this host */
    co_context *ctx;
    size_t device;         /* this rank's, an index of ctx */
    const char *variant;   /* NULL: the device's default */
    const co_option *opts; /* the workload's options, as given */
    size_t nopts;
    const co_problem *shape; /* the workload's problem as init made it (sizes, array
                                   bytes; no memory): every rank parses the options alike */
    bool direct;             /* MPI addresses this device's buffers (dist_mpi_ptr) */
    bool overlap;            /* MPI may be called from a helper thread (dist_progress) */
    int panel;               /* gemm --panel (0: the default) */
    int grid[2];             /* gemm --grid RxC (0: the default) */
    /* This run, on this rank: */
    double compute_ms; /* in the library's calls */
    double comm_ms;    /* in MPI, waiting included */
    double stage_ms;   /* host<->device copies of what MPI sends and receives */
    double sent_bytes; /* handed to MPI to send */
    /* The first failure of this rank (later work is skipped), or CO_OK. */
    co_status st;
    char why[640];
} dist;

/* A distributed workload: setup hands the inputs out (whole: rank 0's
 * problem with its inputs, NULL on the other ranks), run is one timed run,
 * gather puts the outputs into whole (rank 0). Each returns this rank's
 * status; the caller agrees on them (dist_agree). */
typedef struct dist_workload {
    const char *name;
    const char *how; /* one line: how it is split, for --help */
    co_status (*setup)(dist *d, co_problem *whole, void **state);
    /* Optional: back to the inputs, before each run (untimed). */
    void (*reset)(dist *d, void *state);
    co_status (*run)(dist *d, void *state);
    co_status (*gather)(dist *d, void *state, co_problem *whole);
    /* Optional: checks of its own after the gather (rank 0 answers):
     * error and tolerance as the workload's verify, check text. */
    co_status (*check)(dist *d, void *state, co_problem *whole, double *error, double *tolerance,
                       char *text, size_t len);
    /* Optional: a line of what this rank holds ("rows 0-511"), for the text output. */
    void (*describe)(dist *d, void *state, char *out, size_t len);
    void (*destroy)(void *state);
} dist_workload;

extern const dist_workload dist_gemm, dist_boxfilter, dist_collider, dist_raytrace, dist_reduce;

/* gemm's process grid R x C for d->size ranks: --grid, else the most square
 * with R <= C (3 ranks: 1 x 3; 8: 2 x 4). R x C may differ from the ranks
 * only where --grid said so (setup refuses it). */
void dist_gemm_grid(const dist *d, int grid[2]);

/* Milliseconds of a monotonic clock. */
double dist_now(void);

/* Record st as this rank's first failure (with co_last_error()); true while
 * the rank has not failed. */
bool dist_ok(dist *d, co_status st);
/* Every rank: the status of the lowest rank that failed (its message in
 * d->why on every rank, "rank R (SPEC): " in front), or CO_OK. */
co_status dist_agree(dist *d);

/* [lo, hi) of part i of n things in `parts` nearly equal blocks (the first
 * parts may have one more; a part may be empty when n < parts). */
void dist_block(size_t n, int parts, int i, size_t *lo, size_t *hi);
/* The part that holds thing x (x < n). */
int dist_owner(size_t n, int parts, size_t x);

/* A workload option as given, else its default (NULL: neither). */
const char *dist_option(const dist *d, const char *name);
/* A size of the shape problem (its text), NULL if it has none. */
const char *dist_size(const dist *d, const char *name);
size_t dist_size_n(const dist *d, const char *name);

/* A buffer for the rank's device (timed: nothing). */
co_status dist_buffer(dist *d, size_t bytes, co_buffer **out);

/* Memory MPI may read or write for bytes of b from offset: the buffer's
 * own where d->direct, else NULL (stage it). */
void *dist_mpi_ptr(const dist *d, co_buffer *b, size_t offset);
/* Host memory for staging: page-locked where the device's backend has it (the
 * copies then run at the bus's full speed), else ordinary (malloc). NULL out
 * of memory. dist_host_free takes either (and NULL). */
void *dist_host_alloc(dist *d, size_t bytes);
void dist_host_free(void *p);

/* Staging copies, timed as such (a failure recorded; nothing done after one). */
void dist_stage_in(dist *d, co_buffer *b, size_t offset, const void *src, size_t bytes);
void dist_stage_out(dist *d, co_buffer *b, size_t offset, void *dst, size_t bytes);

/* Wait for requests, timed as communication. */
void dist_wait(dist *d, MPI_Request *reqs, int n);
/* Wait without spinning a core (for a rank that waits while rank 0 works
 * alone: oversubscribed ranks share cores). */
void dist_wait_quietly(MPI_Request *req);

/* Progress for non-blocking collectives while this thread is in a library
 * call: a helper thread tests the requests every ~50 us until
 * dist_progress_stop (MPI_THREAD_SERIALIZED: one thread calls MPI at a
 * time). Without thread support (d->overlap false) nothing is started. */
void dist_progress_start(dist *d, MPI_Request *reqs, int n);
void dist_progress_stop(dist *d);

#endif
