/* Device ceilings (`coalesce peak`): what each device can do at best, the
 * yardstick every result is a fraction of.
 *
 * Host devices (c: one core, omp: all cores) run plain C loops: streaming
 * copy, read and write over buffers a few times the size of the last-level
 * cache, and a loop of independent FMAs the compiler vectorises. OpenCL and
 * CUDA devices run kernels/peak.cl: grid-stride float4 loops over 256 MiB
 * buffers (GPUs), an FMA kernel with eight independent accumulators per
 * work-item, an empty kernel for the launch round trip, and timed uploads
 * and downloads from pageable and (where the backend has it) page-locked
 * host memory. Every figure is the median of several repetitions.
 *
 * The figures are kept in the device (for this context) and in a cache
 * file, one JSON line per device keyed by backend, platform, device name,
 * driver version, compute units and build: another machine, driver or
 * build measures again. A corrupt or missing file only means measuring. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/workload.h"

#define REPS 5
#define REP_BUDGET_MS 300.0 /* per figure, past the first 3 runs */
#define MiB (1024.0 * 1024.0)

/* The host loops measure the machine, not the build: always optimized
 * (CMakeLists.txt), never instrumented by sanitizers, so every build of
 * the library agrees on the figures. */
#if defined(__clang__)
#define NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define NO_SANITIZE __attribute__((no_sanitize_address, no_sanitize_undefined))
#endif

/* ---- repetitions -------------------------------------------------------- */

/* One timed run of something: its milliseconds. */
typedef co_status (*timed_fn)(void *arg, double *ms);

/* The median of REPS runs after an untimed warm-up; runs slower than the
 * budget allows stop at 3, and a first run that long is its own warm-up
 * (slow hosts, unoptimized builds). */
static co_status median_ms(timed_fn fn, void *arg, double *ms) {
    double t[REPS], spent = 0;
    int n = 0;
    co_status st = fn(arg, &t[0]);
    if (!st && t[0] > REP_BUDGET_MS / REPS) spent = t[n++];
    while (!st && n < REPS && (n < 3 || spent < REP_BUDGET_MS)) {
        st = fn(arg, &t[n]);
        spent += t[n++];
    }
    if (!st) *ms = co_median(t, (size_t)n);
    return st;
}

/* FMA throughput: *iters doubles until one run takes target_ms (so clocks
 * and timers settle and the launch cost vanishes), then the median. */
static co_status calibrated_ms(timed_fn fn, void *arg, long *iters, double target_ms,
                               double *ms) {
    double t = 0;
    for (int i = 0; i < 40; i++) {
        co_status st = fn(arg, &t);
        if (st) return st;
        if (t >= target_ms || *iters >= (1L << 30)) break;
        *iters *= t > 0 && target_ms / t < 16 ? 2 : 8;
    }
    return median_ms(fn, arg, ms);
}

/* Bytes or operations in ms milliseconds, in 1e9 per second (0: no time). */
static double rate(double amount, double ms) { return ms > 0 ? amount / (ms * 1e6) : 0; }

/* ---- host devices: plain C loops ---------------------------------------- */

/* Buffers twice the last-level cache (as sysconf reports it: often the
 * whole package's), so they stream from memory; small enough to measure in
 * well under a second. */
static size_t host_buffer_bytes(const co_device_info *info) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    double bytes = 2.0 * (l3 > 0 ? (double)l3 : 32 * MiB);
    if (bytes < 32 * MiB) bytes = 32 * MiB;
    if (bytes > 256 * MiB) bytes = 256 * MiB;
    if (info->global_mem_bytes && bytes > (double)info->global_mem_bytes / 16)
        bytes = (double)info->global_mem_bytes / 16;
    return (size_t)bytes / 4096 * 4096;
}

typedef struct host_bench {
    float *a, *b;
    size_t n;        /* floats per buffer */
    int threads;     /* 1 on c */
    bool par;        /* omp: every core */
    long iters;      /* FMA loop trips */
    double sink;      /* every result summed: no loop is dead code */
} host_bench;

/* Eight vector registers of accumulators (the FMA units' latency times
 * their count), independent of one another, r = r * a + b each. GCC's
 * vector types, because with -march=skylake-avx512 GCC prefers 256-bit
 * vectors for loops and the "ceiling" would be half the machine's; the
 * multiply-add contracts to one FMA (this file builds with
 * -ffp-contract=fast). */
#if defined(__AVX512F__)
#define HOST_VEC_BYTES 64
#elif defined(__AVX__)
#define HOST_VEC_BYTES 32
#else
#define HOST_VEC_BYTES 16
#endif

#define HOST_FMA(name, T)                                                                   \
    NO_SANITIZE static T name(long iters, T a, T b, int seed) {                             \
        typedef T vec __attribute__((vector_size(HOST_VEC_BYTES)));                         \
        enum { LANES = HOST_VEC_BYTES / sizeof(T) };                                        \
        vec r[8];                                                                           \
        for (int j = 0; j < 8; j++)                                                         \
            for (int l = 0; l < LANES; l++) r[j][l] = (T)(j * LANES + l + seed) / (T)(8 * LANES); \
        for (long i = 0; i < iters; i++)                                                   \
            for (int j = 0; j < 8; j++) r[j] = r[j] * a + b;                                \
        T s = 0;                                                                            \
        for (int j = 0; j < 8; j++)                                                         \
            for (int l = 0; l < LANES; l++) s += r[j][l];                                   \
        return s;                                                                           \
    }
HOST_FMA(host_fma32, float)
HOST_FMA(host_fma64, double)
#undef HOST_FMA

/* memcpy per thread's share: the C library streams large copies with
 * non-temporal stores, which a plain vector loop does not (the `copy`
 * workload's `c` loop, turned into memcpy by the compiler, beat the old
 * loop-based ceiling by half). */
NO_SANITIZE static co_status host_copy(void *arg, double *ms) {
    host_bench *h = arg;
    double t0 = co_now_ms();
#pragma omp parallel if (h->par) num_threads(h->threads)
    {
#ifdef _OPENMP
        const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
#else
        const size_t t = 0, nt = 1;
#endif
        const size_t lo = h->n * t / nt, hi = h->n * (t + 1) / nt;
        memcpy(h->b + lo, h->a + lo, (hi - lo) * sizeof *h->a);
    }
    *ms = co_now_ms() - t0;
    return CO_OK;
}

NO_SANITIZE static co_status host_read(void *arg, double *ms) {
    host_bench *h = arg;
    const unsigned *src = (const unsigned *)h->a; /* integer sums vectorise in any order */
    const long n = (long)h->n;
    unsigned s = 0;
    double t0 = co_now_ms();
#pragma omp parallel for simd if (h->par) schedule(static) reduction(+ : s)
    for (long i = 0; i < n; i++) s += src[i];
    *ms = co_now_ms() - t0;
    h->sink += s;
    return CO_OK;
}

NO_SANITIZE static co_status host_write(void *arg, double *ms) {
    host_bench *h = arg;
    float *dst = h->a;
    const long n = (long)h->n;
    const float v = 1.5f;
    double t0 = co_now_ms();
#pragma omp parallel for simd if (h->par) schedule(static)
    for (long i = 0; i < n; i++) dst[i] = v;
    *ms = co_now_ms() - t0;
    return CO_OK;
}

static co_status host_fma(void *arg, double *ms, bool fp64) {
    host_bench *h = arg;
    double sink = 0;
    const long iters = h->iters;
    double t0 = co_now_ms();
#pragma omp parallel if (h->par) num_threads(h->threads) reduction(+ : sink)
    {
#ifdef _OPENMP
        const int seed = omp_get_thread_num();
#else
        const int seed = 0;
#endif
        sink += fp64 ? host_fma64(iters, 0.999, 0.001, seed)
                     : host_fma32(iters, 0.999f, 0.001f, seed);
    }
    *ms = co_now_ms() - t0;
    h->sink += sink;
    return CO_OK;
}
static co_status host_fma32_run(void *arg, double *ms) { return host_fma(arg, ms, false); }
static co_status host_fma64_run(void *arg, double *ms) { return host_fma(arg, ms, true); }

/* omp's "launch": entering and leaving a parallel region on every core. */
static co_status host_region(void *arg, double *ms) {
    host_bench *h = arg;
    int count = 0;
    double t0 = co_now_ms();
    for (int i = 0; i < 100; i++) {
#pragma omp parallel num_threads(h->threads) reduction(+ : count)
        count++;
    }
    *ms = (co_now_ms() - t0) / 100;
    h->sink += count;
    return CO_OK;
}

static co_status measure_host(co_device *dev, co_peak *p) {
    host_bench h = {.par = strcmp(dev->backend->name, "omp") == 0, .threads = 1};
    if (h.par) h.threads = dev->info.compute_units ? (int)dev->info.compute_units : 1;
    size_t bytes = host_buffer_bytes(&dev->info);
    h.n = bytes / sizeof(float);
    h.a = aligned_alloc(64, bytes);
    h.b = aligned_alloc(64, bytes);
    co_status st = CO_OK;
    if (!h.a || !h.b) {
        st = co_fail(CO_ERR_NOMEM, "peak: cannot allocate 2 x %zu bytes of host memory", bytes);
        goto done;
    }
    double ms;
    /* The write pass first: it touches every page (each thread its own part). */
    if ((st = median_ms(host_write, &h, &ms))) goto done;
    p->write_gbps = rate((double)bytes, ms);
    if ((st = host_copy(&h, &ms)) || (st = median_ms(host_read, &h, &ms))) goto done;
    p->read_gbps = rate((double)bytes, ms);
    if ((st = median_ms(host_copy, &h, &ms))) goto done;
    p->copy_gbps = rate(2.0 * (double)bytes, ms);
    const double flops_per_iter = 2.0 * h.threads * (8 * HOST_VEC_BYTES / sizeof(float));
    h.iters = 1024;
    if ((st = calibrated_ms(host_fma32_run, &h, &h.iters, 10, &ms))) goto done;
    p->fma32_gflops = rate(flops_per_iter * (double)h.iters, ms);
    h.iters = 1024;
    if ((st = calibrated_ms(host_fma64_run, &h, &h.iters, 10, &ms))) goto done;
    p->fma64_gflops = rate(flops_per_iter / 2 * (double)h.iters, ms);
    if (h.par && !(st = median_ms(host_region, &h, &ms))) p->launch_us = ms * 1e3;
    p->buffer_bytes = (double)bytes;
    volatile double sink = h.sink; /* the sums are used: no loop is dead code */
    (void)sink;
done:
    free(h.a);
    free(h.b);
    return st;
}

/* ---- OpenCL and CUDA devices: kernels/peak.cl --------------------------- */

typedef struct dev_bench {
    co_job job; /* for co_job_kernel/co_job_launch: only its device is used */
    co_buf *a, *b, *out;
    uint32_t n4; /* float4 elements per buffer */
    size_t global, local; /* of the kernel being timed */
    size_t fma_global, stream_global; /* FMA; bandwidth */
    const char *defines; /* of the bandwidth kernels */
    co_kernel *kernel;
    co_arg args[4];
    size_t nargs;
    long iters; /* FMA */
    /* transfers */
    void *host;
    size_t bytes;
    bool down;
} dev_bench;

static co_status dev_kernel(void *arg, double *ms) {
    dev_bench *d = arg;
    const size_t g[3] = {d->global, 1, 1}, l[3] = {d->local, 1, 1};
    d->job.kernel_ms = 0;
    co_status st = co_job_launch(&d->job, d->kernel, 1, g, l, 0, d->nargs, d->args);
    *ms = d->job.kernel_ms;
    return st;
}

/* Round trip of an empty kernel: launched and waited for, host clock. */
static co_status dev_empty(void *arg, double *ms) {
    dev_bench *d = arg;
    const size_t one[3] = {1, 1, 1};
    double t0 = co_now_ms();
    for (int i = 0; i < 50; i++) {
        co_status st = d->job.dev->backend->launch(d->job.dev, d->kernel, 1, one, one, d->nargs,
                                                   d->args, NULL);
        if (st) return st;
    }
    *ms = (co_now_ms() - t0) / 50;
    return CO_OK;
}

static co_status dev_transfer(void *arg, double *ms) {
    dev_bench *d = arg;
    co_device *dev = d->job.dev;
    double t0 = co_now_ms();
    co_status st = d->down ? dev->backend->download(dev, d->host, d->a, d->bytes)
                           : dev->backend->upload(dev, d->a, d->host, d->bytes);
    *ms = co_now_ms() - t0;
    return st;
}

/* A bandwidth kernel, over stream_global work-items. */
static co_status run_kernel(dev_bench *d, const char *entry, size_t nargs, const co_arg *args,
                            double *ms) {
    d->global = d->stream_global;
    co_status st = co_job_kernel(&d->job, "peak", entry, d->defines, &d->kernel);
    if (st) return st;
    memcpy(d->args, args, nargs * sizeof *args);
    d->nargs = nargs;
    return median_ms(dev_kernel, d, ms);
}

static co_status dev_fma_run(void *arg, double *ms) {
    dev_bench *d = arg;
    d->args[1] = CO_INT(d->iters); /* the trip count calibrated_ms chose */
    return dev_kernel(d, ms);
}

static co_status dev_fma(dev_bench *d, bool fp64, double *gflops) {
    /* OpenCL on a CPU: OpenCL vectors fill the SIMD lanes (kernels/peak.cl). */
    const bool vec = d->job.dev->info.type == CO_DEVICE_CPU &&
                     strcmp(d->job.dev->info.backend, "opencl") == 0;
    const char *defines = fp64 ? (vec ? "-DPEAK_FP64=1 -DPEAK_VEC=1" : "-DPEAK_FP64=1")
                               : (vec ? "-DPEAK_VEC=1" : "");
    const double lanes = vec ? (fp64 ? 4 : 8) : 1; /* float8 / double4 */
    d->global = d->fma_global;
    co_status st = co_job_kernel(&d->job, "peak", "peak_fma", defines, &d->kernel);
    if (st) return st;
    const co_arg args[] = {CO_BUF(d->out), CO_INT(0), CO_FLOAT(0.999f), CO_FLOAT(0.001f)};
    memcpy(d->args, args, sizeof args);
    d->nargs = 4;
    d->iters = 16;
    double ms;
    /* GPUs: ~5 ms a launch, long enough to hide the launch, short enough
     * to stay well under a second in all. */
    if ((st = calibrated_ms(dev_fma_run, d, &d->iters, 5, &ms))) return st;
    *gflops = rate(2.0 * 64 * lanes * (double)d->iters * (double)d->global, ms);
    return CO_OK;
}

/* Upload and download from host memory `host` (bytes of it). */
static co_status dev_transfers(dev_bench *d, void *host, size_t bytes, double *h2d, double *d2h) {
    d->host = host;
    d->bytes = bytes;
    memset(host, 0x3c, bytes); /* touch every page before timing */
    double ms;
    d->down = false;
    co_status st = median_ms(dev_transfer, d, &ms);
    if (st) return st;
    *h2d = rate((double)bytes, ms);
    d->down = true;
    if ((st = median_ms(dev_transfer, d, &ms))) return st;
    *d2h = rate((double)bytes, ms);
    return CO_OK;
}

static co_status measure_device(co_device *dev, co_peak *p) {
    const co_device_info *info = &dev->info;
    bool gpu = info->type == CO_DEVICE_GPU;
    /* GPUs: 256 MiB per buffer, far past any cache; CPUs as the host. */
    double bytes = gpu ? 256 * MiB : (double)host_buffer_bytes(info);
    if (info->max_alloc_bytes && bytes > (double)info->max_alloc_bytes / 4)
        bytes = (double)info->max_alloc_bytes / 4;
    if (info->global_mem_bytes && bytes > (double)info->global_mem_bytes / 4)
        bytes = (double)info->global_mem_bytes / 4;
    if (bytes > 16.0 * 4294967295.0) bytes = 16.0 * 4294967295.0; /* n4 is a uint */
    size_t nbytes = (size_t)bytes / 4096 * 4096;
    if (nbytes < 4096) return co_fail(CO_ERR_LIMIT, "peak: %s has too little memory", info->spec);

    dev_bench d = {.job = {.dev = dev}, .n4 = (uint32_t)(nbytes / 16),
                   .defines = gpu ? "" : "-DPEAK_BLOCKED=1"};
    size_t wg = info->max_work_group_size ? info->max_work_group_size : 64;
    if (info->max_work_item_sizes[0] && info->max_work_item_sizes[0] < wg)
        wg = info->max_work_item_sizes[0];
    d.local = wg < 256 ? wg : 256;
    /* FMA: eight work-groups of 256 per compute unit, 2048 work-items, a
     * full NVIDIA SM or AMD CU. Bandwidth on GPUs: a work-item per four
     * float4 (one trip each): on the H200 that copies 6% faster than a
     * full-device grid striding over the buffer (3971 against 3751 GB/s;
     * copy/vec4 reached 4083, 109% of the old ceiling). */
    d.fma_global = (info->compute_units ? info->compute_units : 1) * 8 * d.local;
    d.stream_global = gpu ? ((size_t)d.n4 / 4 + d.local - 1) / d.local * d.local : d.fma_global;
    d.global = d.fma_global;
    co_status st = dev->backend->alloc(dev, nbytes, &d.a);
    if (!st) st = dev->backend->alloc(dev, nbytes, &d.b);
    if (!st) st = dev->backend->alloc(dev, d.stream_global * sizeof(double), &d.out);
    if (st) goto done;

    double ms;
    const co_arg write_a[] = {CO_BUF(d.a), CO_UINT(d.n4), CO_FLOAT(1.0f)};
    const co_arg write_b[] = {CO_BUF(d.b), CO_UINT(d.n4), CO_FLOAT(2.0f)};
    const co_arg read[] = {CO_BUF(d.a), CO_BUF(d.out), CO_UINT(d.n4), CO_FLOAT(-1.0f)};
    const co_arg copy[] = {CO_BUF(d.a), CO_BUF(d.b), CO_UINT(d.n4)};
    if ((st = run_kernel(&d, "peak_write", 3, write_b, &ms))) goto done;
    if ((st = run_kernel(&d, "peak_write", 3, write_a, &ms))) goto done;
    p->write_gbps = rate((double)nbytes, ms);
    /* a holds 1.0f: the sum is positive, never the -1 that would store it. */
    if ((st = run_kernel(&d, "peak_read", 4, read, &ms))) goto done;
    p->read_gbps = rate((double)nbytes, ms);
    if ((st = run_kernel(&d, "peak_copy", 3, copy, &ms))) goto done;
    p->copy_gbps = rate(2.0 * (double)nbytes, ms);
    if ((st = dev_fma(&d, false, &p->fma32_gflops))) goto done;
    /* float64 where the device compiles it; else "does not apply". */
    if (dev_fma(&d, true, &p->fma64_gflops)) p->fma64_gflops = 0;
    const co_arg empty[] = {CO_BUF(d.out)};
    if ((st = co_job_kernel(&d.job, "peak", "peak_empty", "", &d.kernel))) goto done;
    memcpy(d.args, empty, sizeof empty);
    d.nargs = 1;
    if ((st = median_ms(dev_empty, &d, &ms))) goto done;
    p->launch_us = ms * 1e3;

    /* Transfers: up to 64 MiB, enough to reach the bus's speed. */
    size_t tbytes = nbytes < (size_t)(64 * MiB) ? nbytes : (size_t)(64 * MiB);
    void *host = malloc(tbytes);
    if (!host) {
        st = co_fail(CO_ERR_NOMEM, "peak: cannot allocate %zu bytes of host memory", tbytes);
        goto done;
    }
    st = dev_transfers(&d, host, tbytes, &p->h2d_gbps, &p->d2h_gbps);
    free(host);
    if (st) goto done;
    co_pinned *pinned = NULL;
    if (dev->backend->pinned_alloc && !dev->backend->pinned_alloc(dev, tbytes, &pinned, &host)) {
        if (dev_transfers(&d, host, tbytes, &p->h2d_pinned_gbps, &p->d2h_pinned_gbps))
            p->h2d_pinned_gbps = p->d2h_pinned_gbps = 0; /* pinned memory that fails: n/a */
        dev->backend->pinned_free(dev, pinned);
    }
    p->buffer_bytes = (double)nbytes;
done:
    dev->backend->free(dev, d.a);
    dev->backend->free(dev, d.b);
    dev->backend->free(dev, d.out);
    return st;
}

/* ---- the cache file ----------------------------------------------------- */

co_status co_peak_cache_path(char *out, size_t len) { return co_cache_path("peak.json", out, len); }

/* JSON string text (without quotes) of s. */
static void json_escape(const char *s, char *out, size_t len) {
    size_t used = 0;
    for (; *s && used + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') used += (size_t)snprintf(out + used, len - used, "\\%c", c);
        else if (c < 0x20) used += (size_t)snprintf(out + used, len - used, "\\u%04x", c);
        else out[used++] = (char)c;
    }
    out[used] = 0;
}

/* What identifies a device's figures: another machine (a home directory
 * shared by several) or driver measures again. Escaped as in the
 * file, to compare with it as it is. */
static void cache_key(const co_device *dev, char *out, size_t len) {
    const co_device_info *i = &dev->info;
    char host[64] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    char raw[512];
    snprintf(raw, sizeof raw, "%s|%s|%s|%s|%u|%s", i->backend, i->platform, i->name,
             i->driver_version, i->compute_units, host);
    json_escape(raw, out, len);
}

/* The numbers of an entry, by name. */
static const struct {
    const char *name;
    size_t offset;
    bool required; /* > 0 in a valid entry */
} fields[] = {
#define F(x, req) {#x, offsetof(co_peak, x), req}
    F(copy_gbps, true),        F(read_gbps, true),        F(write_gbps, true),
    F(fma32_gflops, true),     F(fma64_gflops, false),    F(launch_us, false),
    F(h2d_gbps, false),        F(d2h_gbps, false),        F(h2d_pinned_gbps, false),
    F(d2h_pinned_gbps, false), F(buffer_bytes, false),    F(measure_ms, false),
#undef F
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *skip_ws(const char *s) { return s + strspn(s, " \t\r"); }

/* A string's raw text; s at its opening quote. NULL if unterminated. */
static const char *scan_string(const char *s, const char **start, size_t *len) {
    *start = ++s;
    for (; *s && *s != '"'; s++)
        if (*s == '\\' && !*++s) return NULL;
    if (*s != '"') return NULL;
    *len = (size_t)(s - *start);
    return s + 1;
}

/* One line of the file: {"key": "...", "name": number|null|"text", ...}.
 * Fills *key (raw text) and the known numbers; false if it is not such a
 * line or a required figure is missing or not positive. */
static bool parse_entry(const char *line, char *key, size_t keylen, co_peak *p) {
    memset(p, 0, sizeof *p);
    key[0] = 0;
    bool seen[NFIELDS] = {false};
    const char *s = skip_ws(line);
    if (*s++ != '{') return false;
    for (;;) {
        const char *name, *text;
        size_t nlen, tlen;
        s = skip_ws(s);
        if (*s != '"' || !(s = scan_string(s, &name, &nlen))) return false;
        s = skip_ws(s);
        if (*s++ != ':') return false;
        s = skip_ws(s);
        if (*s == '"') {
            if (!(s = scan_string(s, &text, &tlen))) return false;
            if (nlen == 3 && !strncmp(name, "key", 3) && tlen < keylen)
                snprintf(key, keylen, "%.*s", (int)tlen, text);
        } else if (!strncmp(s, "null", 4)) {
            s += 4;
        } else {
            char *end;
            errno = 0;
            double x = strtod(s, &end);
            if (end == s || errno == ERANGE || !isfinite(x) || x < 0) return false;
            s = end;
            for (size_t f = 0; f < NFIELDS; f++)
                if (strlen(fields[f].name) == nlen && !strncmp(fields[f].name, name, nlen)) {
                    *(double *)((char *)p + fields[f].offset) = x;
                    seen[f] = true;
                }
        }
        s = skip_ws(s);
        if (*s == '}') break;
        if (*s++ != ',') return false;
    }
    for (size_t f = 0; f < NFIELDS; f++)
        if (fields[f].required && (!seen[f] || *(double *)((char *)p + fields[f].offset) <= 0))
            return false;
    return key[0] != 0;
}

/* The whole file (at most 1 MiB), or NULL. Caller frees. */
static char *read_cache(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    const size_t cap = 1 << 20;
    char *text = malloc(cap + 1);
    size_t got = text ? fread(text, 1, cap, f) : 0;
    fclose(f);
    if (text) text[got] = 0;
    return text;
}

/* A pass over the file's entries: finding one key's, and (when rewriting
 * the file) copying every other valid entry to `keep`. */
typedef struct scan {
    const char *key;
    co_peak *found; /* the entry of key, if wanted */
    bool hit;
    FILE *keep;
    size_t kept;
} scan;

static void scan_entries(char *text, scan *s) {
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        /* An entry line ends "}," or, the last one, "}" and "]}". */
        size_t len = strlen(line);
        while (len && strchr(" \t\r", line[len - 1])) len--;
        if (len >= 2 && !strncmp(line + len - 2, "]}", 2)) len -= 2;
        if (len && line[len - 1] == ',') len--;
        line[len] = 0;
        char key[600];
        co_peak p;
        line = (char *)skip_ws(line);
        if (strncmp(line, "{\"key\"", 6) || !parse_entry(line, key, sizeof key, &p)) continue;
        if (strcmp(key, s->key) == 0) {
            if (s->found) *s->found = p;
            s->hit = true;
        } else if (s->keep) {
            fprintf(s->keep, "%s%s", s->kept++ ? ",\n" : "", line);
        }
    }
}

/* Read the cache file and scan it; false if there is none. */
static bool scan_cache(const char *path, scan *s) {
    char *text = read_cache(path);
    if (text) scan_entries(text, s);
    free(text);
    return text != NULL;
}

static bool cache_lookup(const co_device *dev, co_peak *out) {
    char path[1024], key[600];
    if (co_peak_cache_path(path, sizeof path)) return false;
    cache_key(dev, key, sizeof key);
    scan s = {.key = key, .found = out};
    return scan_cache(path, &s) && s.hit;
}

/* Rewrite the file with this device's entry replaced: the other valid
 * entries kept, corrupt lines dropped, written aside and renamed over it
 * (readers never see half a file). */
static co_status cache_store(const co_device *dev, const co_peak *p) {
    char path[1024], tmp[1100], key[600], name[300];
    co_status st = co_peak_cache_path(path, sizeof path);
    if (st) return st;
    co_cache_make_dirs(path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return co_fail(CO_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    cache_key(dev, key, sizeof key);
    fputs("{\"coalesce_peak\": 1, \"devices\": [\n", f);
    scan k = {.key = key, .keep = f};
    scan_cache(path, &k);
    json_escape(dev->info.name, name, sizeof name);
    fprintf(f, "%s{\"key\": \"%s\", \"device\": \"%s\", \"device_name\": \"%s\", \"measured\": %lld",
            k.kept ? ",\n" : "", key, dev->info.spec, name, (long long)time(NULL));
    for (size_t i = 0; i < NFIELDS; i++)
        fprintf(f, ", \"%s\": %.6g", fields[i].name,
                *(const double *)((const char *)p + fields[i].offset));
    fputs("}\n]}\n", f);
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int err = errno;
        remove(tmp);
        return co_fail(CO_ERR_IO, "cannot write %s: %s", path, strerror(err));
    }
    return CO_OK;
}

/* ---- public ------------------------------------------------------------- */

static void identify(const co_device *dev, co_peak *p) {
    snprintf(p->device, sizeof p->device, "%s", dev->info.spec);
    snprintf(p->device_name, sizeof p->device_name, "%s", dev->info.name);
}

co_status co_peak_measure(co_context *ctx, size_t device, co_peak *out) {
    memset(out, 0, sizeof *out);
    co_device *dev = co_context_device(ctx, device);
    if (!dev) return co_fail(CO_ERR_INVALID, "device index %zu out of range", device);
    double t0 = co_now_ms();
    co_peak p = {0};
    co_status st = dev->backend->alloc ? measure_device(dev, &p) : measure_host(dev, &p);
    if (st) {
        dev->peak_state = -1;
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", co_last_error());
        return co_fail(st, "measuring the ceilings of %s: %s", dev->info.spec, msg);
    }
    p.measure_ms = co_now_ms() - t0;
    identify(dev, &p);
    dev->peak = p;
    dev->peak_state = 1;
    *out = p;
    cache_store(dev, &p); /* an unwritable cache costs a measurement next time, no more */
    co_fail(CO_OK, "%s", "");
    return CO_OK;
}

bool co_peak_known(co_context *ctx, size_t device) {
    co_device *dev = co_context_device(ctx, device);
    if (!dev) return false;
    if (dev->peak_state == 0) {
        co_peak p;
        if (cache_lookup(dev, &p)) {
            identify(dev, &p);
            dev->peak = p;
            dev->peak_state = 1;
        }
    }
    return dev->peak_state == 1;
}

co_status co_peak_get(co_context *ctx, size_t device, co_peak *out) {
    memset(out, 0, sizeof *out);
    co_device *dev = co_context_device(ctx, device);
    if (!dev) return co_fail(CO_ERR_INVALID, "device index %zu out of range", device);
    if (co_peak_known(ctx, device)) {
        *out = dev->peak;
        out->cached = true;
        return CO_OK;
    }
    if (dev->peak_state < 0)
        return co_fail(CO_ERR_DEVICE, "the ceilings of %s could not be measured",
                       dev->info.spec);
    return co_peak_measure(ctx, device, out);
}
