/* Workload gemm: C = A * B, float32, row-major, any m, n, k >= 1.
 * Model: 2mnk operations; bytes = each matrix read or written once.
 * Reference: double precision. The error of an element is
 * |c - ref| / sum_k |a_ik b_kj|, held to the worst-case bound of float
 * summation, (k + 2) * 2^-24: any order of summation passes, any wrong
 * element fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/gemm.h"

enum { GEMM_SCRATCH_SLOTS = 3 };

typedef struct gemm_state {
    size_t m, n, k;
    float *a, *b, *c;
    /* The reference, computed before the runs: all elements, or the
     * sampled rows and columns of a large problem (ref_rows x n, m x ref_cols). */
    bool sampled;
    double *ref, *mag; /* value and sum_k |a b| of each checked element */
    size_t *rows, *cols;
    size_t nrows, ncols;
    /* Device scratch on the device that ran it, allocated at first use and
     * kept: warp's split-K partials (slot 0); reg2d's padded A, B, C. */
    co_buf *scratch[GEMM_SCRATCH_SLOTS];
    size_t scratch_bytes[GEMM_SCRATCH_SLOTS];
    co_device *scratch_dev;
} gemm_state;

/* Past this many multiply-adds the check samples rows and columns. */
#define FULL_CHECK_MAX (1ull << 31)
#define SAMPLES 16

/* warp's split-K: at most this many splits, their partials at most this
 * much device memory (declared in init). */
#define WARP_SPLIT_MAX 16
#define WARP_WORKSPACE_MAX ((size_t)64 << 20)

void gemm_dims(const co_problem *p, size_t *m, size_t *n, size_t *k) {
    const gemm_state *s = p->state;
    *m = s->m;
    *n = s->n;
    *k = s->k;
}

static const co_option_def options[] = {
    {"size", "512", "m = n = k unless given separately"},
    {"m", NULL, "rows of A and C"},
    {"n", NULL, "columns of B and C"},
    {"k", NULL, "columns of A, rows of B"},
};

/* Kernels index with int: every matrix (m x k, k x n, m x n) must have
 * fewer than 2^31 elements. */
static bool int_indexable(size_t m, size_t n, size_t k) {
    const double limit = 2147483647.0;
    return (double)m * k <= limit && (double)k * n <= limit && (double)m * n <= limit;
}

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    size_t size, m, n, k;
    co_status st = co_opt_size(opts, nopts, "size", 512, &size);
    if (!st) st = co_opt_size(opts, nopts, "m", size, &m);
    if (!st) st = co_opt_size(opts, nopts, "n", size, &n);
    if (!st) st = co_opt_size(opts, nopts, "k", size, &k);
    if (st) return st;
    if (!int_indexable(m, n, k))
        return co_fail(CO_ERR_INVALID,
                       "gemm %zux%zux%zu: a matrix would have more than 2^31-1 elements "
                       "(the kernels index with 32-bit int)",
                       m, n, k);
    gemm_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    s->m = m, s->n = n, s->k = k;
    /* The reference's rows and columns, counted before anything is allocated. */
    s->sampled = (double)m * n * k > (double)FULL_CHECK_MAX;
    s->nrows = s->sampled ? (m < SAMPLES ? m : SAMPLES) : m;
    s->ncols = s->sampled ? (n < SAMPLES ? n : SAMPLES) : 0;
    p->host_check_bytes = (s->nrows * n + s->ncols * m) * 2 * sizeof(double) +
                          (s->nrows + s->ncols + 2) * sizeof(size_t);
    st = co_problem_array(p, "A", m * k * sizeof(float), false, (void **)&s->a);
    if (!st) st = co_problem_array(p, "B", k * n * sizeof(float), false, (void **)&s->b);
    if (!st) st = co_problem_array(p, "C", m * n * sizeof(float), true, (void **)&s->c);
    if (st) return st;
    co_problem_size(p, "m", m);
    co_problem_size(p, "n", n);
    co_problem_size(p, "k", k);
    p->flops = 2.0 * (double)m * (double)n * (double)k;
    p->bytes = 4.0 * ((double)m * k + (double)k * n + (double)m * n);
    const size_t ws = m * n * sizeof(float) * WARP_SPLIT_MAX;
    p->device_extra_bytes = ws < WARP_WORKSPACE_MAX ? ws : WARP_WORKSPACE_MAX;
    return CO_OK;
}

static void fill(co_problem *p, uint64_t seed) {
    gemm_state *s = p->state;
    co_rng r = {seed};
    for (size_t i = 0; i < s->m * s->k; i++) s->a[i] = co_rng_float(&r, -1.0f, 1.0f);
    for (size_t i = 0; i < s->k * s->n; i++) s->b[i] = co_rng_float(&r, -1.0f, 1.0f);
}

/* Reference row i: out[j] = sum_k a_ik b_kj and mag[j] = sum_k |a_ik b_kj|,
 * in i-k-j order so the inner loop streams along rows of B. */
static void ref_row(const gemm_state *s, size_t i, double *out, double *mag) {
    for (size_t j = 0; j < s->n; j++) out[j] = mag[j] = 0;
    for (size_t kk = 0; kk < s->k; kk++) {
        const double a = s->a[i * s->k + kk];
        const float *brow = s->b + kk * s->n;
        for (size_t j = 0; j < s->n; j++) {
            const double p = a * brow[j];
            out[j] += p;
            mag[j] += fabs(p);
        }
    }
}

static void ref_col(const gemm_state *s, size_t j, double *out, double *mag) {
    for (size_t i = 0; i < s->m; i++) {
        double acc = 0, m = 0;
        for (size_t kk = 0; kk < s->k; kk++) {
            const double p = (double)s->a[i * s->k + kk] * s->b[kk * s->n + j];
            acc += p;
            m += fabs(p);
        }
        out[i] = acc;
        mag[i] = m;
    }
}

#define REF_CHUNK 16 /* rows or columns of the reference between progress reports */

static co_status reference(co_problem *p) {
    gemm_state *s = p->state;
    size_t count = s->nrows * s->n + s->ncols * s->m;
    free(s->ref), free(s->mag), free(s->rows), free(s->cols);
    s->ref = malloc(count * sizeof *s->ref);
    s->mag = malloc(count * sizeof *s->mag);
    s->rows = malloc((s->nrows + 1) * sizeof *s->rows);
    s->cols = malloc((s->ncols + 1) * sizeof *s->cols);
    if (!s->ref || !s->mag || !s->rows || !s->cols)
        return co_fail(CO_ERR_NOMEM, "out of host memory for the gemm reference");
    /* Sampled rows/columns: spread over the matrix, edges included. */
    for (size_t i = 0; i < s->nrows; i++)
        s->rows[i] = s->sampled && s->nrows > 1 ? i * (s->m - 1) / (s->nrows - 1) : i;
    for (size_t j = 0; j < s->ncols; j++)
        s->cols[j] = s->ncols > 1 ? j * (s->n - 1) / (s->ncols - 1) : 0;
    const long nrows = (long)s->nrows, lines = nrows + (long)s->ncols;
    double *cref = s->ref + s->nrows * s->n, *cmag = s->mag + s->nrows * s->n;
    /* The rows, then the sampled columns, REF_CHUNK at a time on all cores,
     * reporting progress between them. */
    for (long l0 = 0; l0 < lines; l0 += REF_CHUNK) {
        if (co_job_progress(p->job, "row", (double)l0, (double)lines))
            return co_job_stopped(p->job);
        const long l1 = l0 + REF_CHUNK < lines ? l0 + REF_CHUNK : lines;
#pragma omp parallel for schedule(dynamic, 1)
        for (long l = l0; l < l1; l++) {
            const size_t i = (size_t)l, j = (size_t)(l - nrows);
            if (l < nrows)
                ref_row(s, s->rows[i], s->ref + i * s->n, s->mag + i * s->n);
            else
                ref_col(s, s->cols[j], cref + j * s->m, cmag + j * s->m);
        }
    }
    return CO_OK;
}

static double element_error(float c, double ref, double mag) {
    if (!isfinite(c)) return INFINITY; /* poison left in place, or overflow */
    return fabs((double)c - ref) / (mag > 0 ? mag : 1e-300);
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    gemm_state *s = p->state;
    double worst = 0;
    for (size_t i = 0; i < s->nrows; i++)
        for (size_t j = 0; j < s->n; j++) {
            size_t at = i * s->n + j;
            double e = element_error(s->c[s->rows[i] * s->n + j], s->ref[at], s->mag[at]);
            if (!(e <= worst)) worst = e;
        }
    const double *cref = s->ref + s->nrows * s->n, *cmag = s->mag + s->nrows * s->n;
    for (size_t j = 0; j < s->ncols; j++)
        for (size_t i = 0; i < s->m; i++) {
            size_t at = j * s->m + i;
            double e = element_error(s->c[i * s->n + s->cols[j]], cref[at], cmag[at]);
            if (!(e <= worst)) worst = e;
        }
    *error = worst;
    *tolerance = ((double)s->k + 2.0) * 0x1p-24;
    snprintf(check, check_len, s->sampled ? "sampled rows+cols" : "full");
    return CO_OK;
}

static void destroy(co_problem *p) {
    gemm_state *s = p->state;
    if (!s) return;
    for (int i = 0; i < GEMM_SCRATCH_SLOTS; i++)
        if (s->scratch[i]) s->scratch_dev->backend->free(s->scratch_dev, s->scratch[i]);
    free(s->ref), free(s->mag), free(s->rows), free(s->cols);
    free(s);
    p->state = NULL;
}

/* ---- host variants ---- */

/* The thesis's progsec: the textbook triple loop, one core. */
static co_status run_c(co_job *job) {
    gemm_state *s = job->prob->state;
    for (size_t i = 0; i < s->m; i++) {
        if (co_job_progress(job, "row", (double)i, (double)s->m)) return co_job_stopped(job);
        for (size_t j = 0; j < s->n; j++) {
            float acc = 0.0f;
            for (size_t kk = 0; kk < s->k; kk++) acc += s->a[i * s->k + kk] * s->b[kk * s->n + j];
            s->c[i * s->n + j] = acc;
        }
    }
    return CO_OK;
}

static co_status run_omp(co_job *job) {
    gemm_state *s = job->prob->state;
    co_sgemm_blocked(s->m, s->n, s->k, s->a, s->k, s->b, s->n, s->c, s->n);
    return CO_OK;
}

/* ---- device variants: one kernel source for OpenCL and CUDA ---- */

/* Scratch slot `slot` of at least `bytes` on the job's device, allocated at
 * first use and kept with the problem (another device's are freed). */
static co_status scratch(co_job *job, int slot, size_t bytes, co_buf **out) {
    gemm_state *s = job->prob->state;
    for (int i = 0; i < GEMM_SCRATCH_SLOTS; i++)
        if (s->scratch[i] &&
            (s->scratch_dev != job->dev || (i == slot && s->scratch_bytes[i] < bytes))) {
            s->scratch_dev->backend->free(s->scratch_dev, s->scratch[i]);
            s->scratch[i] = NULL;
        }
    if (!s->scratch[slot]) {
        co_status st = job->dev->backend->alloc(job->dev, bytes, &s->scratch[slot]);
        if (st) return st;
        s->scratch_bytes[slot] = bytes;
        s->scratch_dev = job->dev;
    }
    *out = s->scratch[slot];
    return CO_OK;
}

/* What a kernel multiplies: C (m x n) = A (m x k) * B (k x n). */
typedef struct gemm_operands {
    size_t m, n, k;
    co_buf *a, *b, *c;
} gemm_operands;

static gemm_operands problem_operands(const co_job *job) {
    const gemm_state *s = job->prob->state;
    const co_array *arr = job->prob->arrays;
    return (gemm_operands){s->m, s->n, s->k, arr[GEMM_A].buf, arr[GEMM_B].buf, arr[GEMM_C].buf};
}

static co_status launch_on(co_job *job, const char *source, const char *entry,
                           const size_t global[2], const size_t local[2], size_t local_mem,
                           const gemm_operands *op) {
    char defines[256];
    co_job_defines(job, NULL, defines, sizeof defines);
    const size_t g[3] = {global[0], global[1], 1}, l[3] = {local[0], local[1], 1};
    co_status st = co_job_check(job, 2, l, local_mem);
    co_kernel *kernel;
    if (!st) st = co_job_kernel(job, source, entry, defines, &kernel);
    if (st) return st;
    const co_arg args[] = {CO_INT(op->m), CO_INT(op->n), CO_INT(op->k),
                           CO_BUF(op->a), CO_BUF(op->b), CO_BUF(op->c)};
    return co_job_launch(job, kernel, 2, g, l, local_mem, 6, args);
}

static co_status launch(co_job *job, const char *source, const char *entry, const size_t global[2],
                        const size_t local[2], size_t local_mem) {
    const gemm_operands op = problem_operands(job);
    return launch_on(job, source, entry, global, local, local_mem, &op);
}

/* dst (dst_rows x dst_cols) = the rows x cols of src (row pitch `pitch`),
 * zeros past them (kernels/gemm.cl: gemm_pad). */
static co_status pad_copy(co_job *job, co_buf *src, size_t rows, size_t cols, size_t pitch,
                          co_buf *dst, size_t dst_rows, size_t dst_cols) {
    const size_t l[3] = {64, 4, 1}, g[3] = {co_ceil_to(dst_cols, 64), co_ceil_to(dst_rows, 4), 1};
    co_kernel *kernel;
    co_status st = co_job_check(job, 2, l, 0);
    if (!st) st = co_job_kernel(job, "gemm", "gemm_pad", "", &kernel);
    if (st) return st;
    const co_arg args[] = {CO_INT(rows),     CO_INT(cols), CO_INT(pitch), CO_INT(dst_rows),
                           CO_INT(dst_cols), CO_BUF(src),  CO_BUF(dst)};
    return co_job_launch(job, kernel, 2, g, l, 0, 7, args);
}

/* reg2d's PACK: A and B copied into scratch with rows padded to whole
 * float4s (k and n rounded up to multiples of 4, zeros in the padding), so
 * that every full tile takes the float4 loads; the product goes to a padded
 * C, whose columns the caller copies back (unpack_c). */
static co_status pack_operands(co_job *job, gemm_operands *op) {
    const gemm_state *s = job->prob->state;
    const co_device_info *info = &job->dev->info;
    const size_t kp = co_ceil_to(s->k, 4), np = co_ceil_to(s->n, 4);
    if (!int_indexable(s->m, np, kp))
        return co_fail(CO_ERR_INVALID,
                       "reg2d: PACK=1 at %zux%zux%zu: a padded matrix would have more than "
                       "2^31-1 elements; use PACK=0",
                       s->m, s->n, s->k);
    const size_t bytes = sizeof(float) * (s->m * kp + kp * np + s->m * np);
    const size_t arrays = sizeof(float) * (s->m * s->k + s->k * s->n + s->m * s->n);
    if (info->global_mem_bytes && arrays + bytes > info->global_mem_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "reg2d: PACK=1 needs %zu bytes of device memory for padded copies of A, "
                       "B and C beside the %zu of the matrices, over the %zu of %s; use PACK=0",
                       bytes, arrays, info->global_mem_bytes, info->spec);
    *op = (gemm_operands){s->m, np, kp, NULL, NULL, NULL};
    co_status st = scratch(job, 0, sizeof(float) * s->m * kp, &op->a);
    if (!st) st = scratch(job, 1, sizeof(float) * kp * np, &op->b);
    if (!st) st = scratch(job, 2, sizeof(float) * s->m * np, &op->c);
    const gemm_operands in = problem_operands(job);
    if (!st) st = pad_copy(job, in.a, s->m, s->k, s->k, op->a, s->m, kp);
    if (!st) st = pad_copy(job, in.b, s->k, s->n, s->n, op->b, kp, np);
    return st;
}

static co_status unpack_c(co_job *job, const gemm_operands *op) {
    const gemm_state *s = job->prob->state;
    return pad_copy(job, op->c, s->m, s->n, op->n, problem_operands(job).c, s->m, s->n);
}

static co_status run_naive(co_job *job) {
    gemm_state *s = job->prob->state;
    const size_t local[2] = {job->local[0] ? job->local[0] : 16,
                             job->local[1] ? job->local[1] : 16};
    const size_t global[2] = {s->n, s->m};
    return launch(job, "gemm", "gemm_naive", global, local, 0);
}

static co_status run_tiled(co_job *job) {
    gemm_state *s = job->prob->state;
    const size_t ts = (size_t)co_job_param(job, "TS");
    const size_t local[2] = {ts, ts}, global[2] = {co_ceil_to(s->n, ts), co_ceil_to(s->m, ts)};
    co_status st = co_job_fixed_local(job, local, "its tile");
    return st ? st : launch(job, "gemm", "gemm_tiled", global, local, (2 * ts * ts + ts) * 4);
}

static co_status run_wpt(co_job *job) {
    gemm_state *s = job->prob->state;
    const size_t ts = (size_t)co_job_param(job, "TS"), wpt = (size_t)co_job_param(job, "WPT");
    if (ts % wpt)
        return co_fail(CO_ERR_INVALID, "wpt needs TS divisible by WPT (TS=%zu, WPT=%zu)", ts, wpt);
    const size_t local[2] = {ts, ts / wpt};
    const size_t global[2] = {co_ceil_to(s->n, ts), co_ceil_to(s->m, ts) / wpt};
    co_status st = co_job_fixed_local(job, local, "its tile");
    return st ? st : launch(job, "gemm", "gemm_wpt", global, local, (2 * ts * ts + ts) * 4);
}

/* 2D register blocking: TSM x TSN of C per work-group, WPTM x WPTN per
 * work-item in runs of LVW consecutive rows/columns, TSK-deep tiles of A and
 * B in local memory (kernels/gemm_reg2d.cl says why each tunable exists).
 * Defaults measured on PoCL (2 Zen cores) and the H200: both want float4
 * register operands from local memory (LVW=4: 2x over LVW=1 on PoCL once the
 * dialect made them true float4 accesses); the GPU wants 128x128 tiles, the
 * CPU 64x64 (128x128 halves PoCL's rate). */
static co_status run_reg2d(co_job *job) {
    gemm_state *s = job->prob->state;
    const long tsm = co_job_param(job, "TSM"), tsn = co_job_param(job, "TSN");
    const long tsk = co_job_param(job, "TSK"), lvw = co_job_param(job, "LVW");
    const long wptm = co_job_param(job, "WPTM"), wptn = co_job_param(job, "WPTN");
    const long pada = co_job_param(job, "PADA"), padb = co_job_param(job, "PADB");
    if (tsm % wptm || tsn % wptn || wptm % lvw || wptn % lvw || tsk % 4 || tsn % 4 || pada % 4 ||
        padb % 4)
        return co_fail(CO_ERR_INVALID,
                       "reg2d needs WPTM | TSM, WPTN | TSN, LVW | WPTM and WPTN, and TSK, TSN, "
                       "PADA, PADB multiples of 4 (TSM=%ld TSN=%ld TSK=%ld WPTM=%ld WPTN=%ld "
                       "LVW=%ld PADA=%ld PADB=%ld)",
                       tsm, tsn, tsk, wptm, wptn, lvw, pada, padb);
    gemm_operands op = problem_operands(job);
    /* (Vulkan's reg2d loads floats: nothing to gain there.) PACK is read
     * only where it applies: elsewhere the tuner leaves it alone. */
    const bool pack =
        (s->k % 4 || s->n % 4) && co_device_on(job->dev) != CO_ON_GLSL && co_job_param(job, "PACK");
    const size_t local[2] = {(size_t)(tsn / wptn), (size_t)(tsm / wptm)};
    co_status st = co_job_fixed_local(job, local, "its tile");
    if (!st && pack) st = pack_operands(job, &op);
    if (st) return st;
    const size_t global[2] = {co_ceil_to(op.n, (size_t)tsn) / (size_t)wptn,
                              co_ceil_to(op.m, (size_t)tsm) / (size_t)wptm};
    st = launch_on(job, "gemm_reg2d", "gemm_reg2d", global, local,
                   (size_t)(4 * tsk * ((tsm + pada) + (tsn + padb))), &op);
    return st || !pack ? st : unpack_c(job, &op);
}

/* ---- warp: warp tiles and a pipeline of slices (kernels/gemm_warp.cl) ---- */

/* Block, warp and work-item tiles of C (SHAPE 1..): each warp has 32
 * work-items, (WM / TM) x (WN / TN) = 32. */
typedef struct warp_shape {
    int bm, bn, wm, wn, tm, tn;
} warp_shape;
static const warp_shape warp_shapes[] = {
    {0, 0, 0, 0, 0, 0},        /* 0: chosen by size (warp_by_size) */
    {128, 128, 64, 32, 8, 8},  /* 1: 8 warps */
    {128, 128, 32, 64, 8, 8},  /* 2: 8 warps */
    {128, 256, 64, 64, 8, 16}, /* 3: 8 warps, 128 sums a work-item */
    {256, 128, 64, 64, 16, 8}, /* 4: 8 warps, 128 sums a work-item */
    {128, 256, 64, 32, 8, 8},  /* 5: 16 warps */
    {256, 128, 64, 32, 8, 8},  /* 6: 16 warps */
    {128, 64, 64, 32, 8, 8},   /* 7: 4 warps */
    {64, 128, 64, 32, 8, 8},   /* 8: 4 warps */
    {64, 64, 32, 32, 8, 4},    /* 9: 4 warps, 32 sums a work-item */
    {64, 64, 64, 32, 8, 8},    /* 10: 2 warps */
    {32, 32, 32, 32, 8, 4},    /* 11: 1 warp */
};
#define WARP_SHAPES (sizeof warp_shapes / sizeof warp_shapes[0])

static size_t warp_tiles(const warp_shape *sh, size_t m, size_t n) {
    return ((m + (size_t)sh->bm - 1) / (size_t)sh->bm) *
           ((n + (size_t)sh->bn - 1) / (size_t)sh->bn);
}

/* SHAPE=0 and SPLITK=0: the largest tile that still gives every compute
 * unit a work-group (128x128, 128x64, else 64x64; on GPUs whose slices go
 * through registers, COPY 2, 128x256 first), then on GPUs split-K
 * until there are two work-groups a compute unit, each split at least 128
 * deep. To be measured on the H200 (the warp sweep); on PoCL (2 cores,
 * 512^2) 128x128 tiles ran 2-3x faster than reg2d's default, 64x64 ones
 * 1.5-3x slower than 128x128 (a loaded machine, 2026-12-02). */
static void warp_by_size(const co_device_info *info, bool copy_regs, size_t m, size_t n, size_t k,
                         long *shape, long *splits) {
    const size_t cus = info->compute_units ? info->compute_units : 1;
    if (!*shape) {
        /* OpenCL GPUs (slices through registers) 128x256 first: NVIDIA's OpenCL, 4096^2 3.05
         * ms against 5.19 with 128x128 (whose float4 loads spill under its register cap),
         * 8192^2 24.0 against 40.8, 3000x5000x2000 1.48 against 2.47, 4097x4095x4093 3.14
         * against 3.22 (docs/results/2026-12-02-h200-o.md). */
        static const int order[] = {3, 1, 7, 9}; /* CUDA and CPUs start at 1 */
        *shape = 9;
        for (size_t i = copy_regs && info->type == CO_DEVICE_GPU ? 0 : 1;
             i < sizeof order / sizeof *order; i++)
            if (warp_tiles(&warp_shapes[order[i]], m, n) >= cus) {
                *shape = order[i];
                break;
            }
    }
    if (!*splits) {
        const size_t tiles = warp_tiles(&warp_shapes[*shape], m, n);
        size_t sp = info->type == CO_DEVICE_GPU && tiles < cus ? (2 * cus + tiles - 1) / tiles : 1;
        if (sp > k / 128) sp = k / 128;
        if (sp > WARP_SPLIT_MAX) sp = WARP_SPLIT_MAX;
        while (sp > 1 && sp * m * n * sizeof(float) > WARP_WORKSPACE_MAX) sp--;
        *splits = sp > 1 ? (long)sp : 1;
    }
}

static co_status run_warp(co_job *job) {
    gemm_state *s = job->prob->state;
    co_array *arr = job->prob->arrays;
    const co_device_info *info = &job->dev->info;
    const bool cuda = co_device_on(job->dev) == CO_ON_CUDA;
    long shape = co_job_param(job, "SHAPE"), splits = co_job_param(job, "SPLITK");
    const long groupm = co_job_param(job, "GROUPM");
    long bk = co_job_param(job, "BK"), stages = co_job_param(job, "STAGES");
    long copy = co_job_param(job, "COPY"), minb = co_job_param(job, "MINB");
    if (!copy) copy = cuda ? 1 : 2; /* by backend (why: below); the tiles depend on it */
    warp_by_size(info, copy == 2, s->m, s->n, s->k, &shape, &splits);
    const warp_shape *sh = &warp_shapes[shape];
    const size_t nt = 32 * (size_t)(sh->bm / sh->wm) * (size_t)(sh->bn / sh->wn);
    /* By backend: CUDA copies with cp.async, 16 deep, as many stages as
     * fit; OpenCL through registers in two stages, the loads of a slice in
     * flight while the one before is multiplied, on GPUs 8 deep (the staged
     * registers then fit under 128 at 128x128: NVRTC's count). On PoCL
     * through registers, 16 deep, ran 1.6-2.6x faster than straight copies. */
    if (!bk) bk = copy == 2 && info->type == CO_DEVICE_GPU ? 8 : 16;
    if (bk < 4)
        return co_fail(CO_ERR_INVALID, "warp needs BK 0 (by backend) or 4 to 32, got %ld", bk);
    /* Registers capped for 16 warps a compute unit where a work-item holds
     * 64 sums or fewer (128 at most), else for one group. */
    if (!minb) minb = sh->tm * sh->tn <= 64 && nt <= 512 ? (long)(512 / nt) : 1;
    if (nt * (size_t)minb > 2048)
        return co_fail(CO_ERR_INVALID,
                       "warp: MINB=%ld groups of %zu work-items are more than the 2048 a "
                       "compute unit holds",
                       minb, nt);
    /* Local memory: the slots that fit (CUDA: MINB groups a multiprocessor,
     * whose shared memory is the opt-in limit plus the 1 KiB reserved a
     * group), 4 at most by default. */
    const size_t slot = sizeof(float) * (size_t)bk * (size_t)(sh->bm + 4 + sh->bn);
    size_t room = info->local_mem_arg_bytes;
    if (cuda && minb > 1 && (room + 1024) / (size_t)minb - 1024 < room)
        room = (room + 1024) / (size_t)minb - 1024;
    if (!stages)
        stages = copy == 2 || room / slot < 2 ? 2 : room / slot > 4 ? 4 : (long)(room / slot);
    if (stages < 2)
        return co_fail(CO_ERR_INVALID, "warp needs STAGES 0 (by COPY) or 2 to 8, got %ld", stages);
    const size_t bytes = (size_t)stages * slot;
    if (bytes > info->local_mem_arg_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "insufficient local resources: warp's %ld slices of %dx%d and %dx%d "
                       "(SHAPE=%ld BK=%ld STAGES=%ld) need %zu bytes of local memory, over the "
                       "device's %zu (local_mem_arg_bytes of %s)",
                       stages, (int)bk, sh->bm, (int)bk, sh->bn, shape, bk, stages, bytes,
                       info->local_mem_arg_bytes, info->spec);
    const size_t ws_bytes = (size_t)splits * s->m * s->n * sizeof(float);
    if (splits > 1 && ws_bytes > WARP_WORKSPACE_MAX)
        return co_fail(CO_ERR_LIMIT,
                       "warp: SPLITK=%ld at %zux%zu needs %zu bytes for its partials, over the "
                       "%zu it may use; use fewer splits",
                       splits, s->m, s->n, ws_bytes, WARP_WORKSPACE_MAX);
    const size_t local[3] = {nt, 1, 1},
                 global[3] = {warp_tiles(sh, s->m, s->n) * nt, (size_t)splits, 1};
    co_status st = co_job_fixed_local(job, local, "its SHAPE");
    if (!st) st = co_job_check(job, 2, local, 0);
    if (st) return st;
    /* The defines: tiles, pipeline, the widths of A's and B's rows allow,
     * and NVIDIA's OpenCL its register cap (CUDA's comes from MINB through
     * __launch_bounds__). */
    char defines[320];
    int used = snprintf(defines, sizeof defines,
                        "-DBM=%d -DBN=%d -DBK=%ld -DWM=%d -DWN=%d -DTM=%d -DTN=%d -DSTAGES=%ld "
                        "-DASYNC=%d -DVA=%d -DVB=%d -DWARP_MINB=%ld",
                        sh->bm, sh->bn, bk, sh->wm, sh->wn, sh->tm, sh->tn, stages, copy == 1,
                        copy == 1 || s->k % 4 ? 1 : 4, s->n % 4 ? 1 : 4, minb);
    if (!cuda && strstr(info->platform, "NVIDIA")) {
        const size_t cap = 65536 / (nt * (size_t)minb) / 8 * 8;
        snprintf(defines + used, sizeof defines - (size_t)used, " -cl-nv-maxrregcount=%zu",
                 cap > 255 ? 255 : cap);
    }
    co_kernel *kernel;
    if ((st = co_job_kernel(job, "gemm_warp", "gemm_warp", defines, &kernel))) return st;
    co_buf *out = arr[GEMM_C].buf;
    if (splits > 1 && (st = scratch(job, 0, ws_bytes, &out))) return st;
    const size_t ktiles = (s->k + (size_t)bk - 1) / (size_t)bk;
    const size_t kper = (ktiles + (size_t)splits - 1) / (size_t)splits * (size_t)bk;
    const co_arg args[] = {CO_INT(s->m),
                           CO_INT(s->n),
                           CO_INT(s->k),
                           CO_INT(kper),
                           CO_INT(groupm),
                           CO_BUF(arr[GEMM_A].buf),
                           CO_BUF(arr[GEMM_B].buf),
                           CO_BUF(out),
                           CO_LOCAL(bytes)};
    st = co_job_launch(job, kernel, 2, global, local, 0, 9, args);
    if (st || splits < 2) return st;
    if ((st = co_job_kernel(job, "gemm_warp", "gemm_warp_sum", defines, &kernel))) return st;
    const size_t total = s->m * s->n, l1[3] = {256, 1, 1}, g1[3] = {(total + 3) / 4, 1, 1};
    const co_arg sum_args[] = {CO_INT(total), CO_INT(splits), CO_BUF(out), CO_BUF(arr[GEMM_C].buf)};
    return co_job_launch(job, kernel, 1, g1, l1, 0, 4, sum_args);
}

static const co_param_def warp_params[] = {
    {"SHAPE", 0, 0, (long)WARP_SHAPES - 1, false,
     "tiles of a group/warp/work-item: 0 by size; 1 128x128/64x32/8x8, 2 128x128/32x64/8x8, "
     "3 128x256/64x64/8x16, 4 256x128/64x64/16x8, 5 128x256/64x32/8x8, 6 256x128/64x32/8x8, "
     "7 128x64/64x32/8x8, 8 64x128/64x32/8x8, 9 64x64/32x32/8x4, 10 64x64/64x32/8x8, "
     "11 32x32/32x32/8x4",
     0},
    {"BK", 0, 0, 32, true,
     "depth of a slice of A and B in local memory (0: 16; 8 on GPUs with COPY=2)", 0},
    {"STAGES", 0, 0, 8, false,
     "slices in local memory (0: with COPY=1 as many as fit, up to 4; with COPY=2 two)", 0},
    {"COPY", 0, 0, 2, false,
     "how slices reach local memory: 0 by backend (CUDA 1, OpenCL 2); 1 copied straight "
     "(cp.async on CUDA); 2 through registers",
     0},
    {"SPLITK", 0, 0, WARP_SPLIT_MAX, false, "splits of k, summed by a second kernel (0: by size)",
     0},
    {"GROUPM", 8, 1, 64, false, "rows of tiles in a group of the launch order (L2 reuse)", 0},
    {"MINB", 0, 0, 16, true,
     "groups a compute unit the registers are capped for (CUDA, NVIDIA OpenCL; 0: 16 warps "
     "where a work-item holds 64 sums or fewer, else one group)",
     0},
};

static const co_param_def reg2d_params[] = {
    {"TSM", 64, 4, 256, true, "rows of C per work-group", 128},
    {"TSN", 64, 4, 256, true, "columns of C per work-group", 128},
    {"TSK", 32, 4, 64, true, "depth of the local-memory tiles", 32},
    {"WPTM", 8, 1, 16, true, "rows of C per work-item", 8},
    {"WPTN", 8, 1, 16, true, "columns of C per work-item", 8},
    {"LVW", 4, 1, 4, true, "consecutive rows/columns per run (4: float4 operands)", 0},
    {"PADA", 4, 0, 16, false, "padding of the A tile rows (bank conflicts)", 0},
    {"PADB", 0, 0, 16, false, "padding of the B tile rows", 0},
    {"PACK", 0, 0, 1, false,
     "1: where k or n is not a multiple of 4, A and B copied first into rows of whole float4s "
     "(device memory for padded copies of A, B and C), the product then copied back (OpenCL, "
     "CUDA: Vulkan's reg2d loads floats)",
     0},
};

static const co_param_def tiled_params[] = {
    {"TS", 16, 1, 512, false, "tile edge: work-groups of TS x TS", 0},
};
static const co_param_def wpt_params[] = {
    {"TS", 32, 1, 512, false, "tile edge", 0},
    {"WPT", 8, 1, 512, false, "outputs per work-item; divides TS", 0},
};

static const co_variant variants[] = {
    {.name = "c",
     .summary = "sequential triple loop (the thesis's progsec)",
     .on = CO_ON_C,
     .run = run_c},
    {.name = "omp",
     .summary = "cache-blocked, packed, vectorised, all cores",
     .on = CO_ON_OMP,
     .run = run_omp},
    {.name = "openblas",
     .summary = "anchor: OpenBLAS cblas_sgemm",
     .on = CO_ON_OMP,
     .available = gemm_has_openblas,
     .run = gemm_run_openblas},
    {.name = "naive",
     .summary = "one work-item per element, global memory only",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     .run = run_naive,
     .test_params = NULL},
    {.name = "tiled",
     .summary = "TS x TS tiles in local memory",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(tiled_params),
     .run = run_tiled,
     .test_params = "TS=8;TS=32"},
    {.name = "wpt",
     .summary = "tiles + WPT outputs per work-item",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(wpt_params),
     .run = run_wpt,
     .test_params = "TS=16 WPT=4;TS=64 WPT=16"},
    {.name = "reg2d",
     .summary = "2D register blocking, vector loads",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(reg2d_params),
     .host_params = "PACK",
     .run = run_reg2d,
     .test_params = "TSM=32 TSN=32 TSK=8 WPTM=4 WPTN=4;"
                    "TSM=128 TSN=128 TSK=32 WPTM=8 WPTN=8 LVW=4 PADA=4;"
                    "TSM=64 TSN=64 TSK=16 WPTM=4 WPTN=4 PACK=1;"
                    "TSM=64 TSN=64 TSK=16 WPTM=8 WPTN=8 LVW=1 PADA=0"},
    {.name = "warp",
     .summary = "warp tiles, a pipeline of slices (cp.async on CUDA), split-K",
     .on = CO_ON_DEVICE,
     CO_PARAMS(warp_params),
     .run = run_warp,
     .host_params = "SHAPE BK STAGES COPY SPLITK GROUPM MINB",
     /* every fragment layout, both copies, CUDA's main shape (SHAPE=1: the
      * test sizes take smaller tiles by default), groups whose passes copy
      * more rows than a slice has (5: A, 6: B), empty splits (k < SPLITK *
      * BK); those over NVIDIA OpenCL's 48 KiB are skipped there */
     .test_params = "SHAPE=1 STAGES=4;SHAPE=3 COPY=2 GROUPM=1;"
                    "SHAPE=4 COPY=1 STAGES=2 BK=32 GROUPM=2;SHAPE=5 COPY=2 STAGES=3;"
                    "SHAPE=6 COPY=1 BK=8 SPLITK=3 GROUPM=3;SHAPE=11 COPY=1 STAGES=5 SPLITK=16"},
    {.name = "clblast",
     .summary = "anchor: CLBlast SGEMM",
     .on = CO_ON_OPENCL,
     .available = gemm_has_clblast,
     .run = gemm_run_clblast},
    {.name = "cublas",
     .summary = "anchor: cuBLAS SGEMM, fp32 (no TF32)",
     .on = CO_ON_CUDA,
     .available = gemm_has_cublas,
     .run = gemm_run_cublas},
};

const co_workload co_workload_gemm = {
    .name = "gemm",
    .summary = "matrix multiplication C = A*B, float32",
    .bound = CO_BOUND_COMPUTE,
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c", "omp", "reg2d", "reg2d", "reg2d"},
    .anchors = {"openblas", "openblas", "clblast", "cublas"},
    /* On CPUs the triple loop (c) and PoCL's naive take ~2 s a run at 512. */
    .bench_sets = "size=512",
    .bench_sets_gpu = "size=512;size=2048",
    .quick_sets = "size=512",
    .test_sets = "m=1 n=1 k=1;m=7 n=5 k=3;size=64;m=65 n=63 k=67;m=257 n=129 k=200;"
                 "m=2049 n=2 k=33;m=3 n=1030 k=9;m=129 n=260 k=33",
    .init = init,
    .fill = fill,
    .reference = reference,
    .verify = verify,
    .destroy = destroy,
};
