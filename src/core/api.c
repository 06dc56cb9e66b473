/* The library calls: device buffers, and every workload run once on the
 * caller's data. A call is a job of the runner (co_job_setup: the same
 * workload, device, variant and tunables as co_run) whose problem arrays
 * are bound to the caller's memory: a co_buffer's device memory becomes the
 * array's co_buf, a host pointer its host array (used in place on the host
 * devices, copied in and out on OpenCL/CUDA). Arrays the caller does not
 * provide (scratch, a zeroed ticket, the ray tracer's world) are the call's
 * own. Every host<->device transfer goes through up()/down(), which count
 * it in the context; each public function holds the context's mutex.
 *
 * A call costs what its kernels cost and little else (bench_lib holds it
 * to co_run's kernel time): its launches are queued back to back, untimed,
 * and waited for once at its end (co_job_finish); the device memory of
 * arrays the caller does not provide is kept for the next call (in the
 * context up to keep_max bytes an array, a sixteenth of the device's memory
 * and at least 64 MiB: freeing and allocating reduce's 190 MB of partials
 * cost each call 0.2-0.4 ms on the H200, 2026-12-02-h200-n.md; a collider's
 * or ray tracer's by the object); the host's free memory is read only when
 * the call takes host memory. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/gemm.h"
#include "core/call.h"
/* The ray tracer's scene layout (RT_EYE, RT_SPHERES, RT_SW, ...) is defined
 * by its kernel source, included here for that alone. */
#define CO_HOST_C 1
#include "dialect.h"
#define RT_FN(name) api_##name
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "raytrace.cl"
#pragma GCC diagnostic pop
#undef real

#define MAX_AUX 16
#define MAX_TEMPS 8

static size_t keep_max(const co_device *dev) {
    const size_t floor = (size_t)64 << 20, share = dev->info.global_mem_bytes / 16;
    return share > floor ? share : floor;
}

typedef struct aux_array {
    const co_device *dev;
    const co_workload *wl;
    size_t index, bytes;
    co_buf *buf;
} aux_array;

/* A call holds at most CO_MAX_ARRAYS kept arrays, all used after those it
 * did not use: so the least recently used is never one it holds. */
_Static_assert(CO_MAX_ARRAYS < MAX_AUX, "a call's kept arrays fill the context's");

typedef struct api_state {
    pthread_mutex_t lock;
    bool check;
    co_copy_stats copies;
    /* Arrays no caller provides, kept per device: zeroed inputs (reduce's
     * ticket, which its kernels leave 0 again), so a call uploads nothing,
     * and working memory (scratch, reduce's sum), so a call allocates none.
     * Least recently used first. */
    aux_array aux[MAX_AUX];
    size_t naux;
} api_state;

struct co_buffer {
    co_context *ctx;
    size_t device;
    co_device *dev;
    size_t bytes;
    co_buf *buf; /* OpenCL/CUDA */
    void *host;  /* c, omp */
};

co_status co_api_create(void **state) {
    api_state *a = calloc(1, sizeof *a);
    if (!a) return co_fail(CO_ERR_NOMEM, "out of host memory creating a context");
    if (pthread_mutex_init(&a->lock, NULL)) {
        free(a);
        return co_fail(CO_ERR_NOMEM, "cannot create the context's mutex");
    }
    *state = a;
    return CO_OK;
}

void co_api_destroy(void *state) {
    api_state *a = state;
    if (!a) return;
    for (size_t i = 0; i < a->naux; i++)
        a->aux[i].dev->backend->free((co_device *)a->aux[i].dev, a->aux[i].buf);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static api_state *lock(co_context *ctx) {
    api_state *a = co_context_api(ctx);
    pthread_mutex_lock(&a->lock);
    return a;
}

static void unlock(api_state *a) { pthread_mutex_unlock(&a->lock); }

static bool on_device(const co_device *dev) { return dev->backend->alloc != NULL; }

/* 64-byte aligned host memory, as co_problem_alloc's. */
static void *host_alloc(size_t bytes, bool zero) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (p && zero) memset(p, 0, rounded ? rounded : 64);
    return p;
}

static void count_copy(api_state *a, bool upload, size_t bytes) {
    if (upload)
        a->copies.uploads++, a->copies.upload_bytes += bytes;
    else
        a->copies.downloads++, a->copies.download_bytes += bytes;
}

static co_status up(api_state *a, co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    co_status st = dev->backend->upload(dev, dst, src, bytes);
    if (!st) count_copy(a, true, bytes);
    return st;
}

static co_status down(api_state *a, co_device *dev, void *dst, co_buf *src, size_t bytes) {
    co_status st = dev->backend->download(dev, dst, src, bytes);
    if (!st) count_copy(a, false, bytes);
    return st;
}

/* ---- buffers ---- */

static co_status buffer_create(co_context *ctx, size_t device, size_t bytes, co_buffer **out) {
    co_device *dev = co_context_device(ctx, device);
    if (!dev)
        return co_fail(CO_ERR_INVALID,
                       "co_buffer_create: device index %zu is out of range (%zu "
                       "devices)",
                       device, co_device_count(ctx));
    if (dev->info.max_alloc_bytes && bytes > dev->info.max_alloc_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "co_buffer_create: %zu bytes are over the largest "
                       "allocation of %s (%zu bytes)",
                       bytes, dev->info.spec, dev->info.max_alloc_bytes);
    if (!on_device(dev) || dev->info.type == CO_DEVICE_CPU) { /* the host's memory: held first */
        double limit;
        const char *source;
        co_status st = co_host_memory_limit(&limit, &source);
        if (st) return st;
        if (limit > 0 && (double)bytes > limit)
            return co_fail(CO_ERR_LIMIT,
                           "co_buffer_create: %zu bytes on %s are more than the %.0f bytes of "
                           "host memory it may take (%s)",
                           bytes, dev->info.spec, limit, source);
    }
    co_buffer *b = calloc(1, sizeof *b);
    if (!b) return co_fail(CO_ERR_NOMEM, "out of host memory");
    *b = (co_buffer){.ctx = ctx, .device = device, .dev = dev, .bytes = bytes};
    co_status st = CO_OK;
    if (on_device(dev))
        st = dev->backend->alloc(dev, bytes, &b->buf);
    else if (!(b->host = host_alloc(bytes, false)))
        st = co_fail(CO_ERR_NOMEM, "co_buffer_create: cannot allocate %zu bytes of host memory",
                     bytes);
    if (st) {
        free(b);
        return st;
    }
    *out = b;
    return CO_OK;
}

static void buffer_free(co_buffer *b) {
    if (!b) return;
    if (b->buf) b->dev->backend->free(b->dev, b->buf);
    free(b->host);
    free(b);
}

co_status co_buffer_create(co_context *ctx, size_t device, size_t bytes, co_buffer **out) {
    if (!out) return co_fail(CO_ERR_INVALID, "co_buffer_create: out is NULL");
    *out = NULL;
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_buffer_create: ctx is NULL");
    if (!bytes) return co_fail(CO_ERR_INVALID, "co_buffer_create: bytes is 0");
    api_state *a = lock(ctx);
    co_status st = buffer_create(ctx, device, bytes, out);
    unlock(a);
    return st;
}

void co_buffer_free(co_buffer *b) {
    if (!b) return;
    api_state *a = lock(b->ctx);
    buffer_free(b);
    unlock(a);
}

/* bytes between host memory and the buffer, `offset` bytes into it. */
static co_status transfer(const char *fn, co_buffer *b, void *host, size_t offset, size_t bytes,
                          bool upload) {
    if (!b) return co_fail(CO_ERR_INVALID, "%s: buf is NULL", fn);
    if (!host) return co_fail(CO_ERR_INVALID, "%s: %s is NULL", fn, upload ? "src" : "dst");
    if (offset > b->bytes)
        return co_fail(CO_ERR_INVALID, "%s: offset %zu is past the buffer's %zu bytes", fn, offset,
                       b->bytes);
    if ((!bytes || bytes > b->bytes) && !offset)
        return co_fail(CO_ERR_INVALID, "%s: bytes is %zu, the buffer holds %zu (1 to %zu)", fn,
                       bytes, b->bytes, b->bytes);
    if (!bytes || bytes > b->bytes - offset)
        return co_fail(CO_ERR_INVALID, "%s: bytes is %zu, the buffer holds %zu from offset %zu", fn,
                       bytes, b->bytes - offset, offset);
    api_state *a = lock(b->ctx);
    co_status st = CO_OK;
    if (b->buf && !offset) {
        st = upload ? up(a, b->dev, b->buf, host, bytes) : down(a, b->dev, host, b->buf, bytes);
    } else if (b->buf) {
        const co_backend *be = b->dev->backend;
        if (upload ? !be->write : !be->read)
            st = co_fail(CO_ERR_UNSUPPORTED, "%s: %s copies whole buffers only (offset %zu)", fn,
                         b->dev->info.spec, offset);
        else if (!(st = upload ? be->write(b->dev, b->buf, offset, host, bytes)
                               : be->read(b->dev, host, b->buf, offset, bytes)))
            count_copy(a, upload, bytes);
    } else { /* host devices: a copy all the same, counted as one */
        unsigned char *mem = (unsigned char *)b->host + offset;
        memcpy(upload ? mem : host, upload ? host : mem, bytes);
        count_copy(a, upload, bytes);
    }
    unlock(a);
    return st;
}

co_status co_buffer_upload(co_buffer *b, const void *src, size_t bytes) {
    return transfer("co_buffer_upload", b, (void *)src, 0, bytes, true);
}

co_status co_buffer_download(co_buffer *b, void *dst, size_t bytes) {
    return transfer("co_buffer_download", b, dst, 0, bytes, false);
}

co_status co_buffer_write(co_buffer *b, size_t offset, const void *src, size_t bytes) {
    return transfer("co_buffer_write", b, (void *)src, offset, bytes, true);
}

co_status co_buffer_read(co_buffer *b, size_t offset, void *dst, size_t bytes) {
    return transfer("co_buffer_read", b, dst, offset, bytes, false);
}

size_t co_buffer_size(const co_buffer *b) {
    if (!b) co_fail(CO_ERR_INVALID, "co_buffer_size: buf is NULL");
    return b ? b->bytes : 0;
}

size_t co_buffer_device(const co_buffer *b) {
    if (!b) co_fail(CO_ERR_INVALID, "co_buffer_device: buf is NULL");
    return b ? b->device : 0;
}

/* ---- context settings ---- */

co_status co_context_set_check(co_context *ctx, bool on) {
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_context_set_check: ctx is NULL");
    api_state *a = lock(ctx);
    a->check = on;
    unlock(a);
    return CO_OK;
}

co_status co_context_copies(co_context *ctx, co_copy_stats *out) {
    if (!ctx || !out)
        return co_fail(CO_ERR_INVALID, "co_context_copies: %s is NULL", !ctx ? "ctx" : "out");
    api_state *a = lock(ctx);
    *out = a->copies;
    unlock(a);
    return CO_OK;
}

co_status co_context_reset_copies(co_context *ctx) {
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_context_reset_copies: ctx is NULL");
    api_state *a = lock(ctx);
    memset(&a->copies, 0, sizeof a->copies);
    unlock(a);
    return CO_OK;
}

/* ---- one call: a job whose arrays are bound to the caller's memory ---- */

typedef struct slot {
    bool bound;
    co_mem mem;
    bool own_buf, own_host;
} slot;

typedef struct call {
    const char *fn;
    co_context *ctx;
    api_state *a;
    size_t device;
    co_device *dev;
    const co_workload *wl;
    co_job job;
    co_problem p;
    bool inited, ran;
    slot s[CO_MAX_ARRAYS];
    co_buffer *temps[MAX_TEMPS];
    size_t ntemps;
    co_buffer **keep; /* an object's arrays kept between its calls (NULL: the context's) */
} call;

/* An operand's host memory, or NULL where it is device memory. */
static void *host_of(co_mem m) { return m.buf ? m.buf->host : m.host; }

/* A mem's own checks: one of buf/host, the call's context and device, and
 * at least `need` bytes where the size is known (a buffer's). */
static co_status check_mem(const call *c, co_mem m, const char *name, size_t need) {
    if (!m.buf && !m.host) return co_fail(CO_ERR_INVALID, "%s: %s is NULL", c->fn, name);
    if (m.buf && m.host)
        return co_fail(CO_ERR_INVALID, "%s: %s sets both buf and host (one of them)", c->fn, name);
    if (!m.buf) return CO_OK;
    if (m.buf->ctx != c->ctx)
        return co_fail(CO_ERR_INVALID, "%s: %s is a buffer of another context", c->fn, name);
    const bool shared = !on_device(m.buf->dev) && !on_device(c->dev); /* c and omp */
    if (m.buf->dev != c->dev && !shared)
        return co_fail(CO_ERR_INVALID,
                       "%s: %s is a buffer on %s, the call runs on %s (buffers "
                       "are not moved between devices: download and upload it)",
                       c->fn, name, m.buf->dev->info.spec, c->dev->info.spec);
    if (m.buf->bytes < need)
        return co_fail(CO_ERR_INVALID, "%s: %s is a buffer of %zu bytes, the call needs %zu", c->fn,
                       name, m.buf->bytes, need);
    return CO_OK;
}

static co_status call_begin(call *c, const char *fn, co_context *ctx, api_state *a, size_t device,
                            const char *workload, const char *variant, const co_option *opts,
                            size_t nopts) {
    memset(c, 0, sizeof *c);
    c->fn = fn, c->ctx = ctx, c->a = a, c->device = device;
    co_run_config cfg = {.workload = workload,
                         .variant = variant,
                         .device = device,
                         .options = opts,
                         .noptions = nopts};
    co_status st = co_job_setup(fn, ctx, &cfg, &c->wl, &c->dev, &c->job);
    if (st) return st;
    c->p.wl = c->wl;
    c->job.prob = &c->p;
    c->job.queued = true;
    c->inited = true;
    st = c->wl->init(&c->p, opts, nopts);
    if (!st) co_job_use_tuned(&c->job, c->wl, &c->p, &cfg); /* coalesce tune's, where kept */
    return st;
}

static co_status temp(call *c, size_t bytes, co_buffer **out) {
    if (c->ntemps == MAX_TEMPS) return co_fail(CO_ERR_INVALID, "%s: too many temporaries", c->fn);
    co_status st = buffer_create(c->ctx, c->device, bytes, out);
    if (!st) c->temps[c->ntemps++] = *out;
    return st;
}

static co_status bind(call *c, size_t index, co_mem m, const char *name) {
    co_status st = check_mem(c, m, name, c->p.arrays[index].bytes);
    if (st) return st;
    c->s[index] = (slot){.bound = true, .mem = m};
    return CO_OK;
}

/* The context's array `index` of the call's workload on its device:
 * zeroed (an input), or working memory; made where none is kept or the
 * one kept is too small. */
static co_buf *aux_buffer(call *c, size_t index, bool zeroed, co_status *st) {
    api_state *a = c->a;
    const size_t bytes = c->p.arrays[index].bytes;
    for (size_t i = 0; i < a->naux; i++) {
        aux_array x = a->aux[i];
        if (x.dev != c->dev || x.wl != c->wl || x.index != index) continue;
        memmove(a->aux + i, a->aux + i + 1, (a->naux - i - 1) * sizeof x);
        if (x.bytes >= bytes) { /* now the most recently used */
            a->aux[a->naux - 1] = x;
            return x.buf;
        }
        a->naux--;
        c->dev->backend->free(c->dev, x.buf);
        break;
    }
    co_buf *buf = NULL;
    void *zero = zeroed ? host_alloc(bytes, true) : NULL;
    *st = zero || !zeroed ? c->dev->backend->alloc(c->dev, bytes, &buf)
                          : co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!*st && zeroed) *st = up(a, c->dev, buf, zero, bytes); /* once per device */
    free(zero);
    if (*st) {
        if (buf) c->dev->backend->free(c->dev, buf);
        return NULL;
    }
    if (a->naux == MAX_AUX) { /* forget the least recently used */
        a->aux[0].dev->backend->free((co_device *)a->aux[0].dev, a->aux[0].buf);
        memmove(a->aux, a->aux + 1, (MAX_AUX - 1) * sizeof a->aux[0]);
        a->naux--;
    }
    a->aux[a->naux++] = (aux_array){c->dev, c->wl, index, bytes, buf};
    return buf;
}

/* A failed run may leave an aux array dirty (a ticket half drawn). */
static void aux_drop(call *c) {
    api_state *a = c->a;
    for (size_t i = 0; i < a->naux;)
        if (a->aux[i].dev == c->dev && a->aux[i].wl == c->wl) {
            c->dev->backend->free(c->dev, a->aux[i].buf);
            memmove(a->aux + i, a->aux + i + 1, (a->naux - i - 1) * sizeof a->aux[0]);
            a->naux--;
        } else {
            i++;
        }
}

static bool overlap(co_mem x, size_t xb, co_mem y, size_t yb) {
    if (x.buf || y.buf) return x.buf == y.buf;
    const uintptr_t a = (uintptr_t)x.host, b = (uintptr_t)y.host;
    return a < b + yb && b < a + xb;
}

/* The memory the call takes, held to the device's and the host's as
 * co_run's is (co_problem_check_memory), less what exists already: the
 * caller's buffers and host memory. The library writes no files and makes
 * no reference outside check mode. */
static co_status check_memory(call *c, bool check) {
    co_problem q = c->p;
    const bool device = on_device(c->dev);
    q.host_bytes = 0;
    if (!check) q.host_extra_bytes = 0;
    for (size_t i = 0; i < q.narrays; i++) {
        co_array *x = &q.arrays[i];
        const slot *s = &c->s[i];
        if (!device)
            q.host_bytes += s->bound ? 0 : x->bytes;
        else
            q.host_bytes += check && !x->scratch && !(s->bound && !s->mem.buf) ? x->bytes : 0;
        if (s->bound && s->mem.buf) x->bytes = 0;
    }
    return co_problem_check_memory(&q, c->dev, check);
}

/* The object's array `index`, kept between its calls: made on the first,
 * made again when a call needs more. */
static co_buffer *kept(call *c, size_t index, co_status *st) {
    co_buffer **k = &c->keep[index];
    const size_t bytes = c->p.arrays[index].bytes;
    if (*k && (*k)->bytes < bytes) buffer_free(*k), *k = NULL;
    if (!*k) *st = buffer_create(c->ctx, c->device, bytes, k);
    return *k;
}

/* Give every array its memory: the caller's where bound, else the call's. */
static co_status place(call *c, bool check) {
    co_problem *p = &c->p;
    const bool device = on_device(c->dev);
    for (size_t i = 0; i < p->narrays; i++)
        for (size_t j = 0; j < p->narrays; j++)
            if (c->s[i].bound && c->s[j].bound && p->arrays[i].output && !p->arrays[j].output &&
                overlap(c->s[i].mem, p->arrays[i].bytes, c->s[j].mem, p->arrays[j].bytes))
                return co_fail(CO_ERR_INVALID, "%s: output %s overlaps input %s", c->fn,
                               p->arrays[i].name, p->arrays[j].name);
    co_status st = check_memory(c, check);
    for (size_t i = 0; !st && i < p->narrays; i++) {
        co_array *x = &p->arrays[i];
        slot *s = &c->s[i];
        const bool input = !x->output && !x->scratch;
        void *host = NULL;
        if (!device) {
            co_buffer *k;
            if (s->bound)
                host = host_of(s->mem);
            else if (!input && c->keep)
                host = (k = kept(c, i, &st)) ? k->host : NULL;
            else if ((host = host_alloc(x->bytes, true)))
                s->own_host = true;
        } else if (s->bound && s->mem.buf) {
            x->buf = s->mem.buf->buf;
            if (check && (host = host_alloc(x->bytes, false))) s->own_host = true;
        } else if (s->bound) { /* a host pointer: copied in and out */
            host = s->mem.host;
            st = c->dev->backend->alloc(c->dev, x->bytes, &x->buf);
            s->own_buf = !st;
            if (!st && input) st = up(c->a, c->dev, x->buf, host, x->bytes);
        } else if (input) {
            x->buf = aux_buffer(c, i, true, &st);
            if (!st && check && (host = host_alloc(x->bytes, true))) s->own_host = true;
        } else {
            co_buffer *k;
            if (c->keep)
                x->buf = (k = kept(c, i, &st)) ? k->buf : NULL;
            else if (x->bytes <= keep_max(c->dev))
                x->buf = aux_buffer(c, i, false, &st);
            else
                s->own_buf = !(st = c->dev->backend->alloc(c->dev, x->bytes, &x->buf));
            if (!st && check && x->output && (host = host_alloc(x->bytes, false)))
                s->own_host = true;
        }
        if (!st && !host && (!device || (check && !x->scratch)))
            st = co_fail(CO_ERR_NOMEM, "%s: cannot allocate %zu bytes of host memory for %s", c->fn,
                         x->bytes, x->name);
        x->host = host;
        if (x->bind) *x->bind = host;
    }
    return st;
}

/* Place, run the variant once, copy host outputs back, check if asked. */
static co_status call_run(call *c, bool verify) {
    const bool check = c->a->check && verify;
    co_status st = place(c, check);
    co_problem *p = &c->p;
    const bool device = on_device(c->dev);
    c->job.kernel_ms = 0;
    if (!st) st = c->job.var->run(&c->job);
    c->ran = true;
    for (size_t i = 0; !st && device && i < p->narrays; i++) {
        co_array *x = &p->arrays[i];
        const slot *s = &c->s[i];
        const bool host_out = s->bound && !s->mem.buf && x->output;
        /* What the check reads: outputs, and inputs the call holds only on the device. */
        const bool mirror = check && !x->scratch && s->own_host;
        if (host_out || mirror) st = down(c->a, c->dev, x->host, x->buf, x->bytes);
    }
    if (st || !check) return st;
    if (c->wl->reference && (st = c->wl->reference(p))) return st;
    double err = 0, tol = 0;
    char what[64] = "";
    if ((st = c->wl->verify(p, &err, &tol, what, sizeof what))) return st;
    if (!(err <= tol))
        return co_fail(CO_ERR_VERIFY,
                       "%s: %s/%s on %s: error %.3g is over the tolerance %.3g "
                       "(%s check)",
                       c->fn, c->wl->name, c->job.var->name, c->dev->info.spec, err, tol, what);
    return CO_OK;
}

/* Read an unbound output (reduce's sum) after the run. */
static co_status call_read(call *c, size_t index, void *dst, size_t bytes) {
    co_array *x = &c->p.arrays[index];
    if (x->host) {
        memcpy(dst, x->host, bytes);
        return CO_OK;
    }
    return down(c->a, c->dev, dst, x->buf, bytes);
}

/* Wait for the call's queued launches: before its memory is freed or
 * reused, and before it returns. */
static co_status call_finish(call *c) {
    co_job job = {.dev = c->dev, .queued = true};
    return c->dev ? co_job_finish(&job) : CO_OK;
}

static co_status call_end(call *c, co_status st) {
    co_problem *p = &c->p;
    const co_status fin = call_finish(c);
    if (!st) st = fin;
    if (st && c->ran) aux_drop(c);
    for (size_t i = 0; i < p->narrays; i++) {
        if (c->s[i].own_buf) c->dev->backend->free(c->dev, p->arrays[i].buf);
        if (c->s[i].own_host) free(p->arrays[i].host);
        p->arrays[i].buf = NULL, p->arrays[i].host = NULL;
    }
    if (c->inited && c->wl->destroy) c->wl->destroy(p);
    for (size_t i = 0; i < c->ntemps; i++) buffer_free(c->temps[i]);
    c->ntemps = 0;
    return st;
}

/* ---- moves within a device: strided rows, packing, alpha/beta ---- */

static co_status helper_launch(call *c, const char *entry, size_t gx, size_t gy, size_t nargs,
                               const co_arg *args) {
    co_job job = {.dev = c->dev, .var = c->job.var, .queued = true};
    co_kernel *k;
    const size_t g[3] = {gx, gy, 1}, l[3] = {16, 16, 1};
    co_status st = co_job_kernel(&job, "api", entry, "", &k);
    if (!st) st = co_job_launch(&job, k, 2, g, l, 0, nargs, args);
    return st;
}

/* `rows` rows of `row_bytes` from src (rows src_stride apart) to dst. The
 * two sides are host memory, or device buffers; a device side next to a host
 * one is a packed temporary. */
static co_status copy_rows(call *c, co_mem dst, size_t dst_stride, co_mem src, size_t src_stride,
                           size_t row_bytes, size_t rows) {
    unsigned char *d = host_of(dst);
    const unsigned char *s = host_of(src);
    if (d && s) {
        for (size_t y = 0; y < rows; y++) memcpy(d + y * dst_stride, s + y * src_stride, row_bytes);
        return CO_OK;
    }
    if (!d && !s) {
        const co_arg args[] = {CO_INT(row_bytes),  CO_INT(rows),         CO_BUF(src.buf->buf),
                               CO_INT(src_stride), CO_BUF(dst.buf->buf), CO_INT(dst_stride)};
        return helper_launch(c, "api_rows", row_bytes, rows, 6, args);
    }
    /* Host rows go up into a packed buffer only (an upload of a strided
     * span would overwrite the caller's bytes between rows); a strided
     * buffer comes down whole, span and all. */
    const size_t ds = s ? row_bytes : src_stride, span = (rows - 1) * ds + row_bytes;
    unsigned char *stage = host_alloc(span, false);
    if (!stage) return co_fail(CO_ERR_NOMEM, "%s: out of host memory", c->fn);
    co_status st;
    if (s) {
        for (size_t y = 0; y < rows; y++)
            memcpy(stage + y * row_bytes, s + y * src_stride, row_bytes);
        st = up(c->a, c->dev, dst.buf->buf, stage, span);
    } else {
        st = down(c->a, c->dev, stage, src.buf->buf, span);
        for (size_t y = 0; !st && y < rows; y++)
            memcpy(d + y * dst_stride, stage + y * ds, row_bytes);
    }
    free(stage);
    return st;
}

/* dst (rows x cols, packed) = src (leading dimension ld) or its transpose. */
static co_status pack(call *c, co_buffer *dst, co_mem src, size_t ld, bool trans, size_t rows,
                      size_t cols) {
    const float *s = host_of(src);
    float *d = dst->host, *stage = NULL;
    if (!s) {
        const co_arg args[] = {CO_INT(rows), CO_INT(cols),  CO_BUF(src.buf->buf),
                               CO_INT(ld),   CO_INT(trans), CO_BUF(dst->buf)};
        return helper_launch(c, "api_pack", cols, rows, 6, args);
    }
    if (!d && !(d = stage = host_alloc(rows * cols * sizeof(float), false)))
        return co_fail(CO_ERR_NOMEM, "%s: out of host memory", c->fn);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) d[i * cols + j] = trans ? s[j * ld + i] : s[i * ld + j];
    co_status st = stage ? up(c->a, c->dev, dst->buf, stage, rows * cols * sizeof(float)) : CO_OK;
    free(stage);
    return st;
}

/* C = alpha P + beta C; P (rows x cols, packed) is not read when alpha is 0. */
static co_status axpby(call *c, co_mem cm, size_t ldc, co_buffer *pb, float alpha, float beta,
                       size_t rows, size_t cols) {
    float *cc = host_of(cm);
    if (!cc) {
        const co_arg args[] = {CO_INT(rows),
                               CO_INT(cols),
                               CO_FLOAT(alpha),
                               CO_FLOAT(beta),
                               CO_BUF(pb ? pb->buf : cm.buf->buf),
                               CO_BUF(cm.buf->buf),
                               CO_INT(ldc)};
        return helper_launch(c, "api_axpby", cols, rows, 7, args);
    }
    const float *pp = pb ? pb->host : NULL;
    float *stage = NULL;
    co_status st = CO_OK;
    if (pb && !pp) {
        if (!(stage = host_alloc(rows * cols * sizeof(float), false)))
            return co_fail(CO_ERR_NOMEM, "%s: out of host memory", c->fn);
        st = down(c->a, c->dev, stage, pb->buf, rows * cols * sizeof(float));
        pp = stage;
    }
    for (size_t i = 0; !st && i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            float *x = &cc[i * ldc + j];
            const float ab = alpha != 0.0f ? alpha * pp[i * cols + j] : 0.0f;
            *x = beta != 0.0f ? ab + beta * *x : ab;
        }
    free(stage);
    return st;
}

/* ---- argument checks shared by the calls ---- */

#define ARG(cond, ...)                                                                             \
    do {                                                                                           \
        if (cond) return co_fail(CO_ERR_INVALID, __VA_ARGS__);                                     \
    } while (0)

/* a * b (* c) without wrapping: the number of bytes of an operand. */
static bool mul_ok(size_t a, size_t b, size_t *out) {
    if (b && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}

/* Rows of row_bytes, stride apart: the stride wide enough, the span in
 * bytes ((rows - 1) stride + row_bytes) without overflow and under 2^31 per
 * stride (the helper kernels take int). */
static co_status check_rows(const char *fn, const char *name, size_t row_bytes, size_t rows,
                            size_t stride, size_t *span) {
    ARG(stride < row_bytes, "%s: %s stride %zu is narrower than a row (%zu bytes)", fn, name,
        stride, row_bytes);
    ARG(stride > INT_MAX, "%s: %s stride %zu is over 2^31-1 bytes", fn, name, stride);
    size_t body;
    ARG(!mul_ok(rows - 1, stride, &body) || body > SIZE_MAX - row_bytes,
        "%s: %s of %zu rows %zu bytes apart overflows size_t", fn, name, rows, stride);
    *span = body + row_bytes;
    return CO_OK;
}

static void fmt_size(char *out, size_t len, size_t v) { snprintf(out, len, "%zu", v); }

/* An operand of `rows` strided rows bound to array `index`: in place when
 * packed, else through a packed temporary (copied in now for an input;
 * for an output, *unpack says to copy it out after the run). */
static co_status bind_rows(call *c, size_t index, co_mem m, const char *name, size_t row_bytes,
                           size_t rows, size_t stride, size_t span, co_mem *staged) {
    co_status st = check_mem(c, m, name, span);
    if (st) return st;
    *staged = m;
    if (stride != row_bytes) {
        co_buffer *t = NULL;
        if ((st = temp(c, row_bytes * rows, &t))) return st;
        *staged = co_mem_buffer(t);
        if (!c->p.arrays[index].output)
            st = copy_rows(c, *staged, row_bytes, m, stride, row_bytes, rows);
    }
    if (!st) st = bind(c, index, *staged, name);
    return st;
}

/* ---- the workload calls ---- */

static co_status sgemm_locked(co_context *ctx, api_state *a, size_t device, const char *variant,
                              bool ta, bool tb, size_t m, size_t n, size_t k, float alpha,
                              co_mem am, size_t lda, co_mem bm, size_t ldb, float beta, co_mem cm,
                              size_t ldc) {
    static const char *const fn = "co_sgemm_ex";
    char sm[32], sn[32], sk[32];
    fmt_size(sm, sizeof sm, m), fmt_size(sn, sizeof sn, n), fmt_size(sk, sizeof sk, k);
    const co_option opts[] = {{"m", sm}, {"n", sn}, {"k", sk}};
    call c;
    co_status st = call_begin(&c, fn, ctx, a, device, "gemm", variant, opts, 3);
    if (st) return call_end(&c, st);
    /* Spans of the stored matrices: rows of A are op(A)'s (ta: its columns). */
    const size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const size_t aspan = (ar - 1) * lda + ac, bspan = (br - 1) * ldb + bc,
                 cspan = (m - 1) * ldc + n;
    if ((st = check_mem(&c, am, "a", aspan * sizeof(float))) ||
        (st = check_mem(&c, bm, "b", bspan * sizeof(float))) ||
        (st = check_mem(&c, cm, "c", cspan * sizeof(float))))
        return call_end(&c, st);
    if (alpha == 0.0f) /* BLAS: A and B are not read */
        return call_end(&c, axpby(&c, cm, ldc, NULL, 0.0f, beta, m, n));
    co_buffer *t = NULL;
    co_mem pa = am, pb = bm, pc = cm;
    if (ta || lda != k) {
        if (!(st = temp(&c, m * k * sizeof(float), &t))) st = pack(&c, t, am, lda, ta, m, k);
        pa = co_mem_buffer(t);
    }
    if (!st && (tb || ldb != n)) {
        if (!(st = temp(&c, k * n * sizeof(float), &t))) st = pack(&c, t, bm, ldb, tb, k, n);
        pb = co_mem_buffer(t);
    }
    const bool direct = alpha == 1.0f && beta == 0.0f && ldc == n;
    co_buffer *prod = NULL;
    if (!st && !direct && !(st = temp(&c, m * n * sizeof(float), &prod))) pc = co_mem_buffer(prod);
    if (!st) st = bind(&c, GEMM_A, pa, "a");
    if (!st) st = bind(&c, GEMM_B, pb, "b");
    if (!st) st = bind(&c, GEMM_C, pc, "c");
    if (!st) st = call_run(&c, true);
    if (!st && !direct) st = axpby(&c, cm, ldc, prod, alpha, beta, m, n);
    return call_end(&c, st);
}

co_status co_sgemm_ex(co_context *ctx, size_t device, const char *variant, co_layout layout,
                      co_transpose trans_a, co_transpose trans_b, size_t m, size_t n, size_t k,
                      float alpha, co_mem a, size_t lda, co_mem b, size_t ldb, float beta, co_mem c,
                      size_t ldc) {
    static const char *const fn = "co_sgemm_ex";
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(layout != CO_ROW_MAJOR && layout != CO_COL_MAJOR,
        "%s: layout %d is neither "
        "CO_ROW_MAJOR nor CO_COL_MAJOR",
        fn, (int)layout);
    ARG((trans_a != CO_NO_TRANS && trans_a != CO_TRANS) ||
            (trans_b != CO_NO_TRANS && trans_b != CO_TRANS),
        "%s: trans_%s is %d (CO_NO_TRANS or CO_TRANS)", fn,
        trans_a != CO_NO_TRANS && trans_a != CO_TRANS ? "a" : "b",
        (int)(trans_a != CO_NO_TRANS && trans_a != CO_TRANS ? trans_a : trans_b));
    ARG(!m || !n || !k, "%s: %s is 0 (m, n and k must be at least 1)", fn,
        !m   ? "m"
        : !n ? "n"
             : "k");
    ARG(!isfinite(alpha) || !isfinite(beta), "%s: %s is not finite", fn,
        !isfinite(alpha) ? "alpha" : "beta");
    const bool row = layout == CO_ROW_MAJOR, ta = trans_a == CO_TRANS, tb = trans_b == CO_TRANS;
    /* The stored matrices, rows x cols, and the least leading dimension. */
    const struct {
        const char *name;
        size_t rows, cols, ld;
    } mat[3] = {
        {"a", ta ? k : m, ta ? m : k, lda}, {"b", tb ? n : k, tb ? k : n, ldb}, {"c", m, n, ldc}};
    for (int i = 0; i < 3; i++) {
        const size_t least = row ? mat[i].cols : mat[i].rows,
                     lines = row ? mat[i].rows : mat[i].cols;
        size_t x;
        ARG(mat[i].ld < least, "%s: ld%s = %zu is under the %zu %s of %s (%s)", fn, mat[i].name,
            mat[i].ld, least, row ? "columns" : "rows", mat[i].name,
            row ? "row-major" : "column-major");
        ARG(mat[i].ld > INT_MAX, "%s: ld%s = %zu is over 2^31-1", fn, mat[i].name, mat[i].ld);
        ARG(!mul_ok(lines, mat[i].ld, &x) || !mul_ok(x, sizeof(float), &x),
            "%s: %s of %zu x %zu floats overflows size_t", fn, mat[i].name, lines, mat[i].ld);
    }
    api_state *st_a = lock(ctx);
    /* Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T: the
     * same memory read as row-major with the operands swapped. */
    co_status st = row ? sgemm_locked(ctx, st_a, device, variant, ta, tb, m, n, k, alpha, a, lda, b,
                                      ldb, beta, c, ldc)
                       : sgemm_locked(ctx, st_a, device, variant, tb, ta, n, m, k, alpha, b, ldb, a,
                                      lda, beta, c, ldc);
    unlock(st_a);
    return st;
}

co_status co_sgemm(co_context *ctx, size_t device, const char *variant, size_t m, size_t n,
                   size_t k, const float *a, const float *b, float *c) {
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_sgemm: ctx is NULL");
    if (!a || !b || !c)
        return co_fail(CO_ERR_INVALID, "co_sgemm: matrix %s is NULL", !a ? "a" : !b ? "b" : "c");
    if (!m || !n || !k)
        return co_fail(CO_ERR_INVALID, "co_sgemm: %s is 0 (m, n and k must be at least 1)",
                       !m   ? "m"
                       : !n ? "n"
                            : "k");
    /* Before the workload's own limits: their products must not wrap. */
    const size_t dims[3][2] = {{m, k}, {k, n}, {m, n}};
    static const char *const names[3] = {"m x k", "k x n", "m x n"};
    for (int i = 0; i < 3; i++)
        if (dims[i][0] > SIZE_MAX / sizeof(float) / dims[i][1])
            return co_fail(CO_ERR_INVALID,
                           "co_sgemm: %s = %zu x %zu floats overflows size_t (m=%zu n=%zu k=%zu)",
                           names[i], dims[i][0], dims[i][1], m, n, k);
    api_state *st_a = lock(ctx);
    co_status st = sgemm_locked(ctx, st_a, device, variant, false, false, m, n, k, 1.0f,
                                co_mem_host(a), k, co_mem_host(b), n, 0.0f, co_mem_host(c), n);
    unlock(st_a);
    return st;
}

/* A one-input one-output float32 call of n values (copy). */
co_status co_copy(co_context *ctx, size_t device, const char *variant, size_t n, co_mem src,
                  co_mem dst) {
    static const char *const fn = "co_copy";
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!n, "%s: n is 0", fn);
    ARG(n > INT_MAX, "%s: n = %zu is over 2^31-1 (the kernels take a 32-bit int)", fn, n);
    char sn[32];
    fmt_size(sn, sizeof sn, n);
    const co_option opts[] = {{"n", sn}};
    api_state *a = lock(ctx);
    call c;
    co_status st = call_begin(&c, fn, ctx, a, device, "copy", variant, opts, 1);
    if (!st) st = bind(&c, 0, src, "src");
    if (!st) st = bind(&c, 1, dst, "dst");
    if (!st) st = call_run(&c, true);
    st = call_end(&c, st);
    unlock(a);
    return st;
}

co_status co_reduce_sum(co_context *ctx, size_t device, const char *variant, size_t n, co_mem x,
                        double *sum) {
    static const char *const fn = "co_reduce_sum";
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!sum, "%s: sum is NULL", fn);
    *sum = 0;
    ARG(!n, "%s: n is 0", fn);
    ARG(n > INT_MAX, "%s: n = %zu is over 2^31-1 (the kernels take a 32-bit int)", fn, n);
    char sn[32];
    fmt_size(sn, sizeof sn, n);
    const co_option opts[] = {{"n", sn}};
    api_state *a = lock(ctx);
    call c;
    float f = 0;
    co_status st = call_begin(&c, fn, ctx, a, device, "reduce", variant, opts, 1);
    if (!st) st = bind(&c, 0, x, "x");
    if (!st) st = call_run(&c, true);
    if (!st) st = call_read(&c, 1, &f, sizeof f);
    if (!st) *sum = f;
    st = call_end(&c, st);
    unlock(a);
    return st;
}

co_status co_grayscale(co_context *ctx, size_t device, const char *variant, size_t width,
                       size_t height, co_mem rgba, size_t rgba_stride, co_mem gray,
                       size_t gray_stride) {
    static const char *const fn = "co_grayscale";
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!width || !height, "%s: %s is 0", fn, !width ? "width" : "height");
    ARG(width > INT_MAX / 4 || height > INT_MAX, "%s: %zux%zu is over the kernels' int indices", fn,
        width, height);
    size_t in_span, out_span;
    co_status st = check_rows(fn, "rgba", 4 * width, height, rgba_stride, &in_span);
    if (!st) st = check_rows(fn, "gray", width, height, gray_stride, &out_span);
    if (st) return st;
    /* (strided rows are run through packed copies: place() sees those) */
    ARG(overlap(gray, out_span, rgba, in_span), "%s: output gray overlaps input rgba", fn);
    char sw[32], sh[32];
    fmt_size(sw, sizeof sw, width), fmt_size(sh, sizeof sh, height);
    const co_option opts[] = {{"width", sw}, {"height", sh}};
    api_state *a = lock(ctx);
    call c;
    co_mem in, out;
    st = call_begin(&c, fn, ctx, a, device, "grayscale", variant, opts, 2);
    if (!st) st = bind_rows(&c, 0, rgba, "rgba", 4 * width, height, rgba_stride, in_span, &in);
    if (!st) st = bind_rows(&c, 1, gray, "gray", width, height, gray_stride, out_span, &out);
    if (!st) st = call_run(&c, true);
    if (!st && gray_stride != width)
        st = copy_rows(&c, gray, gray_stride, out, width, width, height);
    st = call_end(&c, st);
    unlock(a);
    return st;
}

co_status co_boxfilter(co_context *ctx, size_t device, const char *variant, co_format format,
                       size_t width, size_t height, unsigned radius, co_border border, co_mem in,
                       size_t in_stride, co_mem out, size_t out_stride) {
    static const char *const fn = "co_boxfilter";
    static const char *const borders[] = {"clamp", "reflect101", "zero"};
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(format != CO_FORMAT_F32 && format != CO_FORMAT_RGBA8,
        "%s: format %d is neither CO_FORMAT_F32 nor CO_FORMAT_RGBA8", fn, (int)format);
    ARG((unsigned)border > CO_BORDER_ZERO,
        "%s: border %d is not a co_border (clamp, "
        "reflect101, zero)",
        fn, (int)border);
    ARG(!width || !height, "%s: %s is 0", fn, !width ? "width" : "height");
    ARG(width >= (1u << 28) || height >= (1u << 30),
        "%s: %zux%zu: width and height must be "
        "under 2^28 and 2^30",
        fn, width, height);
    size_t in_span, out_span;
    co_status st = check_rows(fn, "in", 4 * width, height, in_stride, &in_span);
    if (!st) st = check_rows(fn, "out", 4 * width, height, out_stride, &out_span);
    if (st) return st;
    ARG(overlap(out, out_span, in, in_span), "%s: output out overlaps input in", fn);
    char sw[32], sh[32], sr[32];
    fmt_size(sw, sizeof sw, width), fmt_size(sh, sizeof sh, height),
        fmt_size(sr, sizeof sr, radius);
    /* The workload's options: its own range checks (radius) apply. */
    const co_option opts[] = {{"width", sw},
                              {"height", sh},
                              {"radius", sr},
                              {"border", borders[border]},
                              {"format", format == CO_FORMAT_F32 ? "f32" : "rgba8"}};
    api_state *a = lock(ctx);
    call c;
    co_mem pin, pout;
    st = call_begin(&c, fn, ctx, a, device, "boxfilter", variant, opts, 5);
    const size_t row = 4 * width;
    if (!st) st = bind_rows(&c, 0, in, "in", row, height, in_stride, in_span, &pin);
    if (!st) st = bind_rows(&c, 1, out, "out", row, height, out_stride, out_span, &pout);
    if (!st) st = call_run(&c, true);
    if (!st && out_stride != row) st = copy_rows(&c, out, out_stride, pout, row, row, height);
    st = call_end(&c, st);
    unlock(a);
    return st;
}

/* ---- the collider ---- */

struct co_collider {
    co_context *ctx;
    size_t device;
    char variant[32];
    bool has_variant;
    size_t n;
    double w, h, dt, rmin, rmax, vmax;
    co_boundary boundary;
    co_buffer *state[2], *props; /* state: x, y, vx, vy (n floats each) */
    int cur;
    co_buffer *keep[CO_MAX_ARRAYS]; /* the steps' scratch */
};

static void collider_free(co_collider *c) {
    if (!c) return;
    buffer_free(c->state[0]);
    buffer_free(c->state[1]);
    buffer_free(c->props);
    for (size_t i = 0; i < CO_MAX_ARRAYS; i++) buffer_free(c->keep[i]);
    free(c);
}

/* The workload's options for the object's balls and `steps` steps. */
static size_t collider_options(const co_collider *c, unsigned steps, co_option *o, char t[8][40]) {
    snprintf(t[0], 40, "%zu", c->n);
    snprintf(t[1], 40, "%.17g", c->rmin);
    snprintf(t[2], 40, "%.17g", c->rmax);
    snprintf(t[3], 40, "%.17g", c->w);
    snprintf(t[4], 40, "%.17g", c->h);
    snprintf(t[5], 40, "%.17g", c->vmax > 1e-9 ? c->vmax : 1e-9);
    snprintf(t[6], 40, "%.17g", c->dt);
    snprintf(t[7], 40, "%u", steps);
    static const char *const names[] = {"balls",  "radius", "radius-max", "width",
                                        "height", "speed",  "dt",         "steps"};
    for (size_t i = 0; i < 8; i++) o[i] = (co_option){names[i], t[i]};
    o[8] = (co_option){"boundary", c->boundary == CO_BOUNDARY_PERIODIC ? "periodic" : "walls"};
    return 9;
}

/* `steps` steps from state[cur] into the other state buffer (kept on the
 * device); the initial-state check of the workload (sizes, dt) on the way. */
static co_status collider_run(co_collider *c, api_state *a, unsigned steps, bool verify) {
    co_option o[9];
    char t[8][40];
    const size_t no = collider_options(c, steps, o, t);
    call k;
    co_status st = call_begin(&k, "co_collider_step", c->ctx, a, c->device, "collider",
                              c->has_variant ? c->variant : NULL, o, no);
    k.keep = c->keep;
    if (!st && steps) { /* zero steps: only the workload's checks of the options */
        st = bind(&k, 0, co_mem_buffer(c->state[c->cur]), "state");
        if (!st) st = bind(&k, 1, co_mem_buffer(c->props), "props");
        if (!st) st = bind(&k, 2, co_mem_buffer(c->state[!c->cur]), "state");
        if (!st) st = call_run(&k, verify);
        if (!st) c->cur = !c->cur;
    }
    st = call_end(&k, st);
    return st;
}

static co_status collider_make(co_context *ctx, api_state *a, size_t device, const char *variant,
                               co_collider *c, const float *state, const float *props) {
    c->ctx = ctx, c->device = device;
    if (variant) {
        snprintf(c->variant, sizeof c->variant, "%s", variant);
        c->has_variant = true;
    }
    const size_t f4 = 4 * c->n * sizeof(float);
    co_status st = buffer_create(ctx, device, f4, &c->state[0]);
    if (!st) st = buffer_create(ctx, device, f4, &c->state[1]);
    if (!st) st = buffer_create(ctx, device, 2 * c->n * sizeof(float), &c->props);
    for (int i = 0; !st && i < 2; i++) {
        co_buffer *b = i ? c->props : c->state[0];
        const void *src = i ? (const void *)props : (const void *)state;
        if (b->buf)
            st = up(a, b->dev, b->buf, src, b->bytes);
        else
            memcpy(b->host, src, b->bytes);
    }
    /* Zero steps: the workload's checks of the box, the radii and dt, once. */
    if (!st) st = collider_run(c, a, 0, false);
    return st;
}

co_status co_collider_create(co_context *ctx, size_t device, const char *variant, size_t balls,
                             double width, double height, double dt, const float *x, const float *y,
                             const float *vx, const float *vy, const float *radius,
                             const float *mass, co_collider **out) {
    static const char *const fn = "co_collider_create";
    ARG(!out, "%s: out is NULL", fn);
    *out = NULL;
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!balls, "%s: balls is 0", fn);
    ARG(balls > (1u << 28), "%s: balls = %zu is over 2^28", fn, balls);
    ARG(!x || !y || !vx || !vy || !radius, "%s: %s is NULL", fn,
        !x    ? "x"
        : !y  ? "y"
        : !vx ? "vx"
        : !vy ? "vy"
              : "radius");
    ARG(!(width > 0) || !(height > 0) || !(dt > 0) || !isfinite(width + height + dt),
        "%s: width, height and dt must be positive and finite (got %g, %g, %g)", fn, width, height,
        dt);
    co_collider *c = calloc(1, sizeof *c);
    float *state = malloc(4 * balls * sizeof(float)), *props = malloc(2 * balls * sizeof(float));
    if (!c || !state || !props) {
        free(c), free(state), free(props);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    *c = (co_collider){.n = balls, .w = width, .h = height, .dt = dt, .rmin = INFINITY};
    co_status st = CO_OK;
    for (size_t i = 0; i < balls && !st; i++) {
        const float m = mass ? mass[i] : (float)(M_PI * radius[i] * radius[i]);
        if (!(radius[i] > 0) || !(m > 0) || !isfinite(x[i] + y[i] + vx[i] + vy[i] + m))
            st = co_fail(CO_ERR_INVALID,
                         "%s: ball %zu has radius %g, mass %g, position (%g, %g), "
                         "velocity (%g, %g): radius and mass must be positive, all finite",
                         fn, i, radius[i], m, x[i], y[i], vx[i], vy[i]);
        else if (!(x[i] >= 0 && x[i] <= width && y[i] >= 0 && y[i] <= height))
            st = co_fail(CO_ERR_INVALID, "%s: ball %zu at (%g, %g) is outside the %g x %g box", fn,
                         i, x[i], y[i], width, height);
        state[i] = x[i], state[balls + i] = y[i], state[2 * balls + i] = vx[i];
        state[3 * balls + i] = vy[i];
        props[i] = radius[i], props[balls + i] = m;
        c->rmin = fmin(c->rmin, radius[i]), c->rmax = fmax(c->rmax, radius[i]);
        c->vmax = fmax(c->vmax, fmax(fabs(vx[i]), fabs(vy[i])));
    }
    if (!st) {
        api_state *a = lock(ctx);
        st = collider_make(ctx, a, device, variant, c, state, props);
        unlock(a);
    }
    free(state), free(props);
    if (st)
        collider_free(c);
    else
        *out = c;
    return st;
}

co_status co_collider_create_random(co_context *ctx, size_t device, const char *variant,
                                    size_t balls, double radius, double radius_max, double width,
                                    double height, double speed, double dt, uint64_t seed,
                                    co_collider **out) {
    static const char *const fn = "co_collider_create_random";
    ARG(!out, "%s: out is NULL", fn);
    *out = NULL;
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!balls, "%s: balls is 0", fn);
    co_collider *c = calloc(1, sizeof *c);
    if (!c) return co_fail(CO_ERR_NOMEM, "out of host memory");
    *c = (co_collider){.n = balls,
                       .w = width,
                       .h = height,
                       .dt = dt,
                       .rmin = radius,
                       .rmax = radius_max,
                       .vmax = speed};
    /* The workload's own generator, on a problem of host arrays. */
    co_option o[9];
    char t[8][40];
    const size_t no = collider_options(c, 0, o, t);
    const co_workload *wl = co_workload_find("collider");
    co_problem p = {.wl = wl};
    co_status st = wl->init(&p, o, no);
    if (!st) st = co_problem_check_memory(&p, co_context_device(ctx, 0), false);
    if (!st) st = co_problem_alloc(&p);
    if (!st) {
        wl->fill(&p, seed);
        api_state *a = lock(ctx);
        st = collider_make(ctx, a, device, variant, c, p.arrays[0].host, p.arrays[1].host);
        unlock(a);
    }
    if (wl->destroy) wl->destroy(&p);
    for (size_t i = 0; i < p.narrays; i++) free(p.arrays[i].host);
    if (st) {
        collider_free(c);
        /* The workload names its options: say which call they came from. */
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", co_last_error());
        if (!strstr(msg, fn)) co_fail(st, "%s: %s", fn, msg);
        return st;
    }
    *out = c;
    return CO_OK;
}

co_status co_collider_step(co_collider *c, unsigned steps) {
    ARG(!c, "co_collider_step: c is NULL");
    if (!steps) return CO_OK;
    api_state *a = lock(c->ctx);
    co_status st = collider_run(c, a, steps, true);
    unlock(a);
    return st;
}

co_status co_collider_read(co_collider *c, float *x, float *y, float *vx, float *vy) {
    ARG(!c, "co_collider_read: c is NULL");
    float *want[4] = {x, y, vx, vy};
    api_state *a = lock(c->ctx);
    co_buffer *b = c->state[c->cur];
    float *s = b->host, *stage = NULL;
    co_status st = CO_OK;
    if (!s && !(s = stage = malloc(b->bytes))) st = co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st && stage) st = down(a, b->dev, stage, b->buf, b->bytes);
    for (int i = 0; !st && i < 4; i++)
        if (want[i]) memcpy(want[i], s + (size_t)i * c->n, c->n * sizeof(float));
    free(stage);
    unlock(a);
    return st;
}

co_status co_collider_set_boundary(co_collider *c, co_boundary boundary) {
    ARG(!c, "co_collider_set_boundary: c is NULL");
    ARG(boundary != CO_BOUNDARY_WALLS && boundary != CO_BOUNDARY_PERIODIC,
        "co_collider_set_boundary: boundary %d is neither CO_BOUNDARY_WALLS nor "
        "CO_BOUNDARY_PERIODIC",
        (int)boundary);
    api_state *a = lock(c->ctx);
    c->boundary = boundary;
    unlock(a);
    return CO_OK;
}

size_t co_collider_balls(const co_collider *c) {
    if (!c) co_fail(CO_ERR_INVALID, "co_collider_balls: c is NULL");
    return c ? c->n : 0;
}

void co_collider_destroy(co_collider *c) {
    if (!c) return;
    api_state *a = lock(c->ctx);
    collider_free(c);
    unlock(a);
}

/* ---- the ray tracer ---- */

struct co_raytracer {
    co_context *ctx;
    size_t device;
    char variant[32];
    bool has_variant;
    co_rt_scene scene; /* its arrays: the copies below */
    co_rt_sphere *spheres;
    co_rt_light *lights;
    float *words; /* the scene's layout (kernels/raytrace.cl), at the last size */
    size_t nwords;
    co_buffer *buf;                 /* the words on the device */
    size_t width, height;           /* of the uploaded words (0: none yet) */
    co_buffer *keep[CO_MAX_ARRAYS]; /* a frame's world */
};

co_status co_rt_scene_default(co_rt_scene *s) {
    ARG(!s, "co_rt_scene_default: scene is NULL");
    *s = (co_rt_scene){.eye = {0, 6, -24},
                       .look_at = {0, 1, 2},
                       .fov_deg = 50,
                       .ambient = 0.12f,
                       .specular = 0.5f,
                       .plane_y = 0,
                       .checker_size = 2,
                       .plane_reflect = 0.2f,
                       .depth = 4};
    return CO_OK;
}

co_status co_rt_scene_random(co_rt_scene *scene, co_rt_sphere *spheres, size_t nspheres,
                             co_rt_light *lights, size_t nlights, uint64_t seed) {
    static const char *const fn = "co_rt_scene_random";
    ARG(!scene, "%s: scene is NULL", fn);
    ARG(nspheres > 4096, "%s: %zu spheres, at most 4096", fn, nspheres);
    ARG(nspheres && !spheres, "%s: spheres is NULL with nspheres = %zu", fn, nspheres);
    ARG(nlights < 1 || nlights > RT_MAX_LIGHTS, "%s: nlights = %zu (1 to %d)", fn, nlights,
        RT_MAX_LIGHTS);
    ARG(!lights, "%s: lights is NULL", fn);
    co_rt_scene_default(scene);
    /* The workload's own generator: its scene words of a 1 x 1 frame (the
     * reference fill makes is one pixel), read back into the structs. */
    char ns[32], nl[32];
    fmt_size(ns, sizeof ns, nspheres), fmt_size(nl, sizeof nl, nlights);
    const co_option o[] = {{"width", "1"}, {"height", "1"},        {"spheres", ns},
                           {"lights", nl}, {"precision", "float"}, {"depth", "0"}};
    const co_workload *wl = co_workload_find("raytrace");
    co_problem p = {.wl = wl};
    co_status st = wl->init(&p, o, sizeof o / sizeof o[0]);
    if (!st) st = co_problem_alloc(&p);
    if (!st) {
        wl->fill(&p, seed);
        const float *w = p.arrays[0].host;
        for (size_t l = 0; l < nlights; l++)
            for (int i = 0; i < 3; i++) {
                lights[l].position[i] = w[RT_HEADER + RT_LW * l + i];
                lights[l].color[i] = w[RT_HEADER + RT_LW * l + 3 + i];
            }
        for (size_t k = 0; k < nspheres; k++) {
            const float *b = w + RT_SPHERES + RT_SW * k;
            co_rt_sphere *sp = &spheres[k];
            for (int i = 0; i < 3; i++) sp->center[i] = b[i], sp->color[i] = b[RT_SCOL + i];
            sp->radius = b[RT_RADIUS], sp->orbit = b[RT_ORBIT], sp->omega = b[RT_OMEGA];
            sp->phase = b[RT_PHASE], sp->bounce = b[RT_BOUNCE], sp->reflect = b[RT_SREFL];
        }
        scene->spheres = spheres, scene->nspheres = nspheres;
        scene->lights = lights, scene->nlights = nlights;
    }
    if (wl->destroy) wl->destroy(&p);
    for (size_t i = 0; i < p.narrays; i++) free(p.arrays[i].host);
    return st;
}

/* The words of the scene for a width x height frame (the camera's aspect). */
static void rt_words(co_raytracer *rt, size_t width, size_t height) {
    const co_rt_scene *s = &rt->scene;
    float *w = rt->words;
    memset(w, 0, rt->nwords * sizeof *w);
    double f[3] = {s->look_at[0] - s->eye[0], s->look_at[1] - s->eye[1], s->look_at[2] - s->eye[2]};
    const double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    f[0] /= fl, f[1] /= fl, f[2] /= fl;
    /* right = up x f with up = +y (a camera looking straight up or down
     * has none: create refuses it); up' = f x right. */
    double r[3] = {f[2], 0, -f[0]};
    const double rl = sqrt(r[0] * r[0] + r[2] * r[2]);
    r[0] /= rl, r[2] /= rl;
    const double u[3] = {f[1] * r[2] - f[2] * r[1], f[2] * r[0] - f[0] * r[2],
                         f[0] * r[1] - f[1] * r[0]};
    const double th = tan(s->fov_deg * M_PI / 360.0), aspect = (double)width / (double)height;
    for (int i = 0; i < 3; i++) {
        w[RT_EYE + i] = s->eye[i];
        w[RT_FWD + i] = (float)f[i];
        w[RT_RIGHT + i] = (float)(r[i] * th * aspect);
        w[RT_UP + i] = (float)(u[i] * th);
    }
    w[RT_AMBIENT] = s->ambient, w[RT_PLANE_Y] = s->plane_y;
    w[RT_CELL] = 1.0f / s->checker_size, w[RT_EPS] = 1e-4f * 40.0f;
    w[RT_PLANE_REFL] = s->plane_reflect, w[RT_SPEC] = s->specular;
    for (size_t l = 0; l < s->nlights; l++)
        for (int i = 0; i < 3; i++) {
            w[RT_HEADER + RT_LW * l + i] = s->lights[l].position[i];
            w[RT_HEADER + RT_LW * l + 3 + i] = s->lights[l].color[i];
        }
    for (size_t k = 0; k < s->nspheres; k++) {
        float *b = w + RT_SPHERES + RT_SW * k;
        const co_rt_sphere *sp = &s->spheres[k];
        for (int i = 0; i < 3; i++) b[i] = sp->center[i], b[RT_SCOL + i] = sp->color[i];
        b[RT_RADIUS] = sp->radius, b[RT_ORBIT] = sp->orbit, b[RT_OMEGA] = sp->omega;
        b[RT_PHASE] = sp->phase, b[RT_BOUNCE] = sp->bounce, b[RT_SREFL] = sp->reflect;
    }
}

static void rt_free(co_raytracer *rt) {
    if (!rt) return;
    buffer_free(rt->buf);
    for (size_t i = 0; i < CO_MAX_ARRAYS; i++) buffer_free(rt->keep[i]);
    free(rt->spheres), free(rt->lights), free(rt->words);
    free(rt);
}

co_status co_raytracer_create(co_context *ctx, size_t device, const char *variant,
                              const co_rt_scene *scene, co_raytracer **out) {
    static const char *const fn = "co_raytracer_create";
    ARG(!out, "%s: out is NULL", fn);
    *out = NULL;
    ARG(!ctx, "%s: ctx is NULL", fn);
    ARG(!scene, "%s: scene is NULL", fn);
    const co_rt_scene *s = scene;
    ARG(s->nspheres > 4096, "%s: %zu spheres, at most 4096", fn, s->nspheres);
    ARG(s->nspheres && !s->spheres, "%s: spheres is NULL with nspheres = %zu", fn, s->nspheres);
    ARG(s->nlights < 1 || s->nlights > RT_MAX_LIGHTS, "%s: nlights = %zu (1 to %d)", fn, s->nlights,
        RT_MAX_LIGHTS);
    ARG(!s->lights, "%s: lights is NULL", fn);
    ARG(!(s->fov_deg > 0 && s->fov_deg < 180), "%s: fov_deg = %g is outside (0, 180)", fn,
        s->fov_deg);
    ARG(s->depth > 64, "%s: depth = %u, at most 64", fn, s->depth);
    ARG(!(s->checker_size > 0), "%s: checker_size = %g must be positive", fn, s->checker_size);
    const double fx = s->look_at[0] - s->eye[0], fz = s->look_at[2] - s->eye[2];
    ARG(!(fx * fx + fz * fz > 0),
        "%s: the camera looks straight up or down (or at itself): "
        "no direction for its right",
        fn);
    for (size_t i = 0; i < s->nspheres; i++)
        ARG(!(s->spheres[i].radius > 0), "%s: sphere %zu has radius %g", fn, i,
            s->spheres[i].radius);
    co_raytracer *rt = calloc(1, sizeof *rt);
    if (!rt) return co_fail(CO_ERR_NOMEM, "out of host memory");
    rt->ctx = ctx, rt->device = device, rt->scene = *s;
    if (variant) snprintf(rt->variant, sizeof rt->variant, "%s", variant), rt->has_variant = true;
    rt->nwords = RT_SPHERES + RT_SW * s->nspheres;
    rt->spheres = malloc((s->nspheres ? s->nspheres : 1) * sizeof *rt->spheres);
    rt->lights = malloc(s->nlights * sizeof *rt->lights);
    rt->words = malloc(rt->nwords * sizeof(float));
    if (!rt->spheres || !rt->lights || !rt->words) {
        rt_free(rt);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    if (s->nspheres) memcpy(rt->spheres, s->spheres, s->nspheres * sizeof *rt->spheres);
    memcpy(rt->lights, s->lights, s->nlights * sizeof *rt->lights);
    rt->scene.spheres = rt->spheres, rt->scene.lights = rt->lights;
    api_state *a = lock(ctx);
    co_status st = buffer_create(ctx, device, rt->nwords * sizeof(float), &rt->buf);
    unlock(a);
    if (st) {
        rt_free(rt);
        return st;
    }
    *out = rt;
    return CO_OK;
}

/* One frame of the workload's variant `variant` on `device`, scene words in
 * `scene`, into the image operand. */
static co_status rt_frame(co_raytracer *rt, api_state *a, size_t device, const char *variant,
                          co_mem scene, size_t width, size_t height, double t, co_mem image,
                          size_t stride, size_t span, bool verify) {
    char o[6][32];
    snprintf(o[0], 32, "%zu", width);
    snprintf(o[1], 32, "%zu", height);
    snprintf(o[2], 32, "%zu", rt->scene.nspheres);
    snprintf(o[3], 32, "%zu", rt->scene.nlights);
    snprintf(o[4], 32, "%u", rt->scene.depth);
    snprintf(o[5], 32, "%.17g", t);
    const co_option opts[] = {{"width", o[0]},  {"height", o[1]}, {"spheres", o[2]},
                              {"lights", o[3]}, {"depth", o[4]},  {"time", o[5]}};
    call c;
    co_mem img;
    co_status st =
        call_begin(&c, "co_raytracer_render", rt->ctx, a, device, "raytrace", variant, opts, 6);
    if (device == rt->device) c.keep = rt->keep; /* not the check's frame on the host */
    if (!st) st = bind(&c, 0, scene, "scene");
    if (!st) st = bind_rows(&c, 2, image, "image", 4 * width, height, stride, span, &img);
    (void)verify;
    if (!st) st = call_run(&c, false); /* its reference is made with its seeded scene */
    if (!st && stride != 4 * width)
        st = copy_rows(&c, image, stride, img, 4 * width, 4 * width, height);
    return call_end(&c, st);
}

/* Check mode: the frame against the host tracer's (the workload's
 * reference is its `c` image): PSNR >= 40 dB, or at most 0.1% of the pixels
 * (at least one) off by more than 2/255 in a channel. */
static co_status rt_check(co_raytracer *rt, api_state *a, size_t width, size_t height, double t,
                          co_mem image, size_t stride, size_t span) {
    size_t host = 0, ndev = co_device_count(rt->ctx);
    while (host < ndev && on_device(co_context_device(rt->ctx, host))) host++;
    if (host == ndev) return CO_OK;
    const size_t px = width * height;
    unsigned char *got = malloc(4 * px), *ref = malloc(4 * px);
    co_status st = got && ref ? CO_OK : co_fail(CO_ERR_NOMEM, "out of host memory");
    call c = {.fn = "co_raytracer_render",
              .ctx = rt->ctx,
              .a = a,
              .dev = co_context_device(rt->ctx, rt->device)};
    if (!st) st = copy_rows(&c, co_mem_host(got), 4 * width, image, stride, 4 * width, height);
    if (!st)
        st = rt_frame(rt, a, host, NULL, co_mem_host(rt->words), width, height, t, co_mem_host(ref),
                      4 * width, 4 * px, false);
    double se = 0;
    size_t off = 0;
    for (size_t i = 0; !st && i < px; i++) {
        int worst = 0;
        for (size_t ch = 0; ch < 4; ch++) {
            const int d = abs((int)got[4 * i + ch] - (int)ref[4 * i + ch]);
            se += (double)d * d;
            worst = d > worst ? d : worst;
        }
        off += worst > 2;
    }
    free(got), free(ref);
    (void)span;
    if (st) return st;
    const double mse = se / (4.0 * (double)px);
    const double psnr = mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : INFINITY;
    const double most = fmax(1.0, 0.001 * (double)px);
    if (!(psnr >= 40.0) && (double)off > most)
        return co_fail(CO_ERR_VERIFY,
                       "co_raytracer_render: PSNR %.1f dB against the host "
                       "tracer and %zu pixels off by more than 2/255 (at most %.0f)",
                       psnr, off, most);
    return CO_OK;
}

co_status co_raytracer_render(co_raytracer *rt, size_t width, size_t height, double t, co_mem image,
                              size_t stride) {
    static const char *const fn = "co_raytracer_render";
    ARG(!rt, "%s: rt is NULL", fn);
    ARG(!width || !height, "%s: %s is 0", fn, !width ? "width" : "height");
    ARG(width > 32768 || height > 32768, "%s: %zux%zu: width and height are at most 32768", fn,
        width, height);
    ARG(!isfinite(t) || fabs(t) > 1e5, "%s: t = %g is outside [-1e5, 1e5]", fn, t);
    size_t span;
    co_status st = check_rows(fn, "image", 4 * width, height, stride, &span);
    if (st) return st;
    api_state *a = lock(rt->ctx);
    if (rt->width != width || rt->height != height) {
        rt_words(rt, width, height);
        co_buffer *b = rt->buf;
        if (b->buf)
            st = up(a, b->dev, b->buf, rt->words, rt->nwords * sizeof(float));
        else
            memcpy(b->host, rt->words, rt->nwords * sizeof(float));
        rt->width = st ? 0 : width, rt->height = st ? 0 : height;
    }
    if (!st)
        st = rt_frame(rt, a, rt->device, rt->has_variant ? rt->variant : NULL,
                      co_mem_buffer(rt->buf), width, height, t, image, stride, span, true);
    if (!st && a->check) st = rt_check(rt, a, width, height, t, image, stride, span);
    unlock(a);
    return st;
}

void co_raytracer_destroy(co_raytracer *rt) {
    if (!rt) return;
    api_state *a = lock(rt->ctx);
    rt_free(rt);
    unlock(a);
}

/* ---- for the code built on the library (src/core/call.h) ---- */

void *co_buffer_host(const co_buffer *b) { return b ? b->host : NULL; }
co_buf *co_buffer_buf(const co_buffer *b) { return b ? b->buf : NULL; }
co_device *co_buffer_dev(const co_buffer *b) { return b ? b->dev : NULL; }

co_status co_call(co_context *ctx, size_t device, const char *workload, const char *variant,
                  const co_option *opts, size_t nopts, const co_mem *mems, size_t nmems) {
    static const char *const fn = "co_call";
    ARG(!ctx || !workload, "%s: %s is NULL", fn, !ctx ? "ctx" : "workload");
    ARG(nmems && !mems, "%s: mems is NULL with nmems = %zu", fn, nmems);
    api_state *a = lock(ctx);
    call c;
    co_status st = call_begin(&c, fn, ctx, a, device, workload, variant, opts, nopts);
    if (!st && nmems > c.p.narrays)
        st = co_fail(CO_ERR_INVALID, "%s: %zu operands, %s has %zu arrays", fn, nmems, workload,
                     c.p.narrays);
    for (size_t i = 0; !st && i < nmems; i++)
        if (mems[i].buf || mems[i].host) st = bind(&c, i, mems[i], c.p.arrays[i].name);
    if (!st) st = call_run(&c, true);
    st = call_end(&c, st);
    unlock(a);
    return st;
}
