/* What the distributed workloads share (dist.h): failures, blocks, options,
 * buffers for MPI, timing, and the progress of overlapped broadcasts. */
#include "dist.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/call.h"
#ifdef COALESCE_HAVE_CUDA
#include "backend/cuda/cuda_access.h"
#endif

double dist_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

bool dist_ok(dist *d, co_status st) {
    if (st && !d->st) {
        d->st = st;
        snprintf(d->why, sizeof d->why, "%s", co_last_error());
    }
    return d->st == CO_OK;
}

co_status dist_agree(dist *d) {
    int mine = d->st ? d->rank : d->size, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, d->comm);
    if (first == d->size) return CO_OK;
    /* The first failing rank's status and message, with its name in front. */
    struct {
        int st;
        char why[sizeof d->why + 64];
    } msg = {0};
    if (d->rank == first) {
        const co_device_info *info = co_device_get(d->ctx, d->device);
        msg.st = (int)d->st;
        snprintf(msg.why, sizeof msg.why, "rank %d (%s): %s", d->rank, info ? info->spec : "-",
                 d->why);
    }
    MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, first, d->comm);
    d->st = (co_status)msg.st;
    snprintf(d->why, sizeof d->why, "%.*s", (int)sizeof d->why - 1, msg.why);
    return d->st;
}

void dist_block(size_t n, int parts, int i, size_t *lo, size_t *hi) {
    const size_t q = n / (size_t)parts, r = n % (size_t)parts, k = (size_t)i;
    *lo = k * q + (k < r ? k : r);
    *hi = *lo + q + (k < r);
}

int dist_owner(size_t n, int parts, size_t x) {
    const size_t q = n / (size_t)parts, r = n % (size_t)parts;
    /* The first r parts hold q + 1 things, the others q. */
    if (x < r * (q + 1)) return (int)(x / (q + 1));
    return (int)(r + (x - r * (q + 1)) / q);
}

const char *dist_option(const dist *d, const char *name) {
    const char *v = co_opt(d->opts, d->nopts, name);
    if (v) return v;
    const char *o, *def;
    for (size_t i = 0; (o = co_workload_option(d->shape->wl->name, i, &def, NULL)); i++)
        if (!strcmp(o, name)) return def;
    return NULL;
}

const char *dist_size(const dist *d, const char *name) {
    for (size_t i = 0; i < d->shape->nsizes; i++)
        if (!strcmp(d->shape->sizes[i].name, name)) return d->shape->sizes[i].value;
    return NULL;
}

size_t dist_size_n(const dist *d, const char *name) {
    const char *v = dist_size(d, name);
    return v ? (size_t)strtoull(v, NULL, 10) : 0;
}

co_status dist_buffer(dist *d, size_t bytes, co_buffer **out) {
    return co_buffer_create(d->ctx, d->device, bytes ? bytes : 4, out);
}

void *dist_mpi_ptr(const dist *d, co_buffer *b, size_t offset) {
    if (!d->direct || !b) return NULL;
    unsigned char *host = co_buffer_host(b);
    if (host) return host + offset;
#ifdef COALESCE_HAVE_CUDA
    if (co_cuda_is_device(co_buffer_dev(b)))
        return (void *)(uintptr_t)(co_cuda_ptr(co_buffer_buf(b)) + offset);
#endif
    return NULL;
}

/* The page-locked blocks handed out, to free them through their backend. */
#define MAX_PINNED 64
static struct {
    void *host;
    co_pinned *pinned;
    co_device *dev;
} pinned[MAX_PINNED];

void *dist_host_alloc(dist *d, size_t bytes) {
    co_device *dev = co_context_device(d->ctx, d->device);
    const bool staged = dev && dev->backend->alloc && dev->backend->pinned_alloc;
    for (int i = 0; staged && i < MAX_PINNED; i++) {
        if (pinned[i].host) continue;
        void *host;
        co_pinned *p;
        if (dev->backend->pinned_alloc(dev, bytes ? bytes : 1, &p, &host)) break;
        pinned[i].host = host, pinned[i].pinned = p, pinned[i].dev = dev;
        return host;
    }
    return malloc(bytes ? bytes : 1);
}

void dist_host_free(void *p) {
    if (!p) return;
    for (int i = 0; i < MAX_PINNED; i++)
        if (pinned[i].host == p) {
            pinned[i].dev->backend->pinned_free(pinned[i].dev, pinned[i].pinned);
            pinned[i].host = NULL;
            return;
        }
    free(p);
}

void dist_stage_in(dist *d, co_buffer *b, size_t offset, const void *src, size_t bytes) {
    if (!bytes || d->st) return;
    const double t = dist_now();
    dist_ok(d, co_buffer_write(b, offset, src, bytes));
    d->stage_ms += dist_now() - t;
}

void dist_stage_out(dist *d, co_buffer *b, size_t offset, void *dst, size_t bytes) {
    if (!bytes || d->st) return;
    const double t = dist_now();
    dist_ok(d, co_buffer_read(b, offset, dst, bytes));
    d->stage_ms += dist_now() - t;
}

void dist_wait(dist *d, MPI_Request *reqs, int n) {
    const double t = dist_now();
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    d->comm_ms += dist_now() - t;
}

void dist_wait_quietly(MPI_Request *req) {
    int done = 0;
    const struct timespec nap = {0, 200000};
    for (MPI_Test(req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(req, &done, MPI_STATUS_IGNORE))
        nanosleep(&nap, NULL);
}

/* ---- a helper thread that lets MPI progress during a library call ---- */

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    bool running, stop;
    MPI_Request *reqs;
    int n;
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *progress_loop(void *arg) {
    (void)arg;
    const struct timespec nap = {0, 50000};
    for (;;) {
        pthread_mutex_lock(&progress.lock);
        const bool stop = progress.stop;
        int done = 1;
        /* MPI_Testall completes (and frees) requests only when all are done:
         * the main thread's MPI_Waitall then returns at once. */
        if (!stop) MPI_Testall(progress.n, progress.reqs, &done, MPI_STATUSES_IGNORE);
        pthread_mutex_unlock(&progress.lock);
        if (stop || done) return NULL;
        nanosleep(&nap, NULL);
    }
}

void dist_progress_start(dist *d, MPI_Request *reqs, int n) {
    if (!d->overlap || n <= 0 || progress.running) return;
    progress.reqs = reqs, progress.n = n, progress.stop = false;
    progress.running = pthread_create(&progress.thread, NULL, progress_loop, NULL) == 0;
}

void dist_progress_stop(dist *d) {
    (void)d;
    if (!progress.running) return;
    pthread_mutex_lock(&progress.lock);
    progress.stop = true;
    pthread_mutex_unlock(&progress.lock);
    pthread_join(progress.thread, NULL);
    progress.running = false;
}
