/* The box filter's `omp` variant: bands of rows, a thread each at a time,
 * a row at a time, in chunks of CHUNK elements so that a chunk's input,
 * sums and output pass through the L1 cache once and its loads, adds and
 * stores interleave: the column sums v of the window (vertical), then the
 * window sums along the row (horizontal), then the means. A row's column
 * sums sit between their border columns (padded), so the horizontal sums
 * have no branch; windows wider than the row take the reference's closed
 * form (box_line_windows), O(W) a row.
 *
 * The sums, by format and radius (box_plan):
 *  - 8-bit (RGBA8, gray8): exact integers, uint16 where 255.5 (2r+1)^2 fits
 *    (r <= 7: twice the lanes of uint32; each window summed whole along the
 *    row, the mean by a multiply and a shift), else uint32 (255.5 (2r+1)^2
 *    < 2^32 up to r = 2047; the mean by a float estimate, div_round_u32);
 *    the means rounded to nearest;
 *  - float32: small windows (r <= F32_DIRECT) summed whole in float, both
 *    ways, no running sum (plain sums of n terms: the workload's model with
 *    n^2 a pass, K = 2n); else running sums in double (as OpenCV's
 *    boxFilter), far inside the direct model.
 * Running sums: vertical, a band's first window weighted once (bf_window:
 * O(H) at any radius) and slid down, v += row(y + r) - row(y - r - 1);
 * horizontal, the steps d = v(x + r + 1) - v(x - r) of a chunk (one vector
 * pass) summed along it, one dependent add a pixel (an RGBA8 pixel's four
 * channels one vector; one channel CHAINS segments side by side). Summing
 * uint32 or double windows whole lost to that from r = 1 (rgba8) and r = 5
 * (float32) on 2 EPYC cores. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/boxfilter.h"

#define CO_HOST_C 1
#include "dialect.h"
#include "boxfilter_common.cl"

/* The widest vectors the build targets (-march=native: `make`). */
#if defined(__AVX512F__)
#define BOX_VB 64
#elif defined(__AVX2__)
#define BOX_VB 32
#else
#define BOX_VB 16
#endif
typedef uint16_t vu16 __attribute__((vector_size(BOX_VB)));
typedef uint32_t vu32 __attribute__((vector_size(BOX_VB)));
typedef float vf32 __attribute__((vector_size(BOX_VB)));
typedef double vf64 __attribute__((vector_size(BOX_VB)));
typedef uint8_t vu8 __attribute__((vector_size(BOX_VB / 4)));
typedef uint32_t px4 __attribute__((vector_size(16))); /* an RGBA8 pixel's sums */

/* Unaligned vector loads, by value: a vector that is a memcpy's target
 * keeps its address, and GCC 12 then kept a running sum of them in memory
 * (store-to-load forwarding, 5x slower). */
#define BOX_LOAD_(V)                                                                               \
    static inline V ld_##V(const void *p) {                                                        \
        V v;                                                                                       \
        memcpy(&v, p, sizeof v);                                                                   \
        return v;                                                                                  \
    }
BOX_LOAD_(vu16)
BOX_LOAD_(vu32)
BOX_LOAD_(vf32)
BOX_LOAD_(vf64)
BOX_LOAD_(px4)
#undef BOX_LOAD_

/* Elements a chunk of the horizontal pass: its steps and sums stay in L1. */
enum { CHUNK = 512 };
/* Independent chains a one-channel chunk is split into: an add waits on
 * the one before it (a double's 3-4 cycles), so one chain would leave the
 * core idle. */
enum { CHAINS = 8 };
/* float32 windows up to this radius are summed whole in float, both ways. */
enum { F32_DIRECT = 4 };

typedef enum { ACC_U16, ACC_U32, ACC_F32, ACC_F64 } box_acc;
static const size_t acc_bytes[] = {2, 4, 4, 8};

/* How a problem is summed, and the means' constants. */
typedef struct box_plan {
    const box_problem *b;
    box_acc acc;
    bool direct;         /* float32, small r: vertical windows summed whole too */
    bool wide;           /* the window is wider than the row: the closed form */
    size_t ec, asize;    /* elements a row, bytes an accumulator */
    uint32_t d, half;    /* 8-bit: the divisor (2r+1)^2 and (d-1)/2 */
    uint32_t mul, shift; /* uint16: floor(n / d) = n mul >> shift */
    float inv_f;         /* uint32: 1/d lowered (div_round); float: 1/d */
    double inv_d;        /* double: 1/d */
} box_plan;

/* uint16 sums: mul and shift with floor(n / d) = n mul >> shift for every
 * n <= 255 d + (d - 1) / 2 (< 2^16) and mul < 2^16 (32-bit products):
 * mul = ceil(2^shift / d) errs by e = mul d - 2^shift < d, exact where
 * n_max e < 2^shift. False where none is (then uint32 sums). */
static bool u16_divisor(box_plan *p) {
    const uint64_t nmax = 255 * (uint64_t)p->d + p->half;
    if (nmax >= 1u << 16 || p->d < 2) return false;
    bool found = false;
    for (uint32_t k = 16; k < 40; k++) {
        const uint64_t m = ((1ull << k) + p->d - 1) / p->d, e = m * p->d - (1ull << k);
        if (m >= 1u << 16) break;
        if (nmax * e < 1ull << k) p->mul = (uint32_t)m, p->shift = k, found = true;
    }
    return found;
}

static void plan_make(const box_problem *b, box_plan *p) {
    const uint64_t n = 2 * (uint64_t)b->radius + 1;
    *p = (box_plan){.b = b, .ec = (size_t)b->w * b->ch, .wide = n > (uint64_t)b->w};
    p->d = (uint32_t)(n * n), p->half = (p->d - 1) / 2;
    if (b->u8) {
        p->acc = u16_divisor(p) ? ACC_U16 : ACC_U32;
        p->inv_f = (float)(1.0 / p->d) * (1.0f - 0x1p-21f);
    } else {
        p->acc = b->radius <= F32_DIRECT ? ACC_F32 : ACC_F64;
        p->inv_f = (float)(1.0 / (double)(n * n));
        p->inv_d = 1.0 / (double)(n * n);
    }
    p->direct = p->acc == ACC_F32;
    p->asize = acc_bytes[p->acc];
}

/* ---- typed loops, one set per accumulator type ----
 * add_times: v += k row; slide: v += a - l; steps: d = p[+span] - p;
 * chained: one channel's running sums in CHAINS segments; sum: p[0] + ...
 * (in vectors of V). */
#define BOX_TYPED(S, T, IN, V)                                                                     \
    static void add_times_##S(T *restrict v, const IN *restrict row, int k, size_t e0,             \
                              size_t e1) {                                                         \
        for (size_t e = e0; e < e1; e++) v[e] += (T)k * (T)row[e];                                 \
    }                                                                                              \
    static void slide_##S(T *restrict v, const IN *restrict a, const IN *restrict l, size_t e0,    \
                          size_t e1) {                                                             \
        for (size_t e = e0; e < e1; e++) v[e] += (T)((T)a[e] - (T)l[e]);                           \
    }                                                                                              \
    static void steps_##S(const T *restrict p, T *restrict d, size_t span, size_t len) {           \
        for (size_t e = 0; e < len; e++) d[e] = p[e + span] - p[e];                                \
    }                                                                                              \
    static T sum_##S(const T *p, size_t n) {                                                       \
        enum { L = sizeof(V) / sizeof(T) };                                                        \
        V acc = {0};                                                                               \
        size_t i = 0;                                                                              \
        for (; i + L <= n; i += L) acc += ld_##V(p + i);                                           \
        T s = 0;                                                                                   \
        for (int k = 0; k < L; k++) s += acc[k];                                                   \
        for (; i < n; i++) s += p[i];                                                              \
        return s;                                                                                  \
    }                                                                                              \
    static T chained_##S(const T *d, T *o, size_t len, T s) {                                      \
        const size_t seg = (len + CHAINS - 1) / CHAINS;                                            \
        T st[CHAINS];                                                                              \
        st[0] = s;                                                                                 \
        for (size_t k = 1; k < CHAINS; k++) {                                                      \
            const size_t a = (k - 1) * seg < len ? (k - 1) * seg : len;                            \
            const size_t z = k * seg < len ? k * seg : len;                                        \
            st[k] = st[k - 1] + sum_##S(d + a, z - a);                                             \
        }                                                                                          \
        for (size_t i = 0; i < seg; i++)                                                           \
            for (size_t k = 0; k < CHAINS; k++) {                                                  \
                const size_t x = k * seg + i;                                                      \
                if (x < len) o[x] = st[k], st[k] += d[x];                                          \
            }                                                                                      \
        return st[CHAINS - 1];                                                                     \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* not every type runs every loop */
BOX_TYPED(u16, uint16_t, uint8_t, vu16)
BOX_TYPED(u32, uint32_t, uint8_t, vu32)
BOX_TYPED(f32, float, float, vf32)
BOX_TYPED(f64, double, float, vf64)
#pragma GCC diagnostic pop
#undef BOX_TYPED

/* The typed loops of a plan's accumulator, on untyped rows. */
#define BOX_DISPATCH(p, call, ...)                                                                 \
    do {                                                                                           \
        switch ((p)->acc) {                                                                        \
        case ACC_U16: call##_u16(__VA_ARGS__); break;                                              \
        case ACC_U32: call##_u32(__VA_ARGS__); break;                                              \
        case ACC_F32: call##_f32(__VA_ARGS__); break;                                              \
        case ACC_F64: call##_f64(__VA_ARGS__); break;                                              \
        }                                                                                          \
    } while (0)

/* ---- vertical: the column sums v of the current row's window ---- */

static const void *in_row(const box_plan *p, const void *in, int y) {
    return (const char *)in + (size_t)y * p->ec * (p->b->u8 ? 1 : sizeof(float));
}

/* v[e] += k x input row y's element e, e in [e0, e1). */
static void add_times(const box_plan *p, const void *in, void *v, int y, int k, size_t e0,
                      size_t e1) {
    BOX_DISPATCH(p, add_times, v, in_row(p, in, y), k, e0, e1);
}

/* v[e] += input row a - input row l, e in [e0, e1) (a or l < 0: a row of
 * zeros). Integers wrap and come back exactly. */
static void slide(const box_plan *p, const void *in, void *v, int a, int l, size_t e0, size_t e1) {
    if (a < 0 || l < 0) { /* the zero border's rows outside the image */
        if (a >= 0) add_times(p, in, v, a, 1, e0, e1);
        if (l >= 0) add_times(p, in, v, l, -1, e0, e1);
        return;
    }
    BOX_DISPATCH(p, slide, v, in_row(p, in, a), in_row(p, in, l), e0, e1);
}

/* v[e] = row y's window sum for e in [e0, e1), summed whole (float32): the
 * window's rows added in registers, a vector at a time. */
static void direct_rows(const box_plan *p, const void *in, float *restrict v, int y, size_t e0,
                        size_t e1) {
    enum { L = sizeof(vf32) / sizeof(float), MAX_ROWS = 2 * F32_DIRECT + 1 };
    const int r = p->b->radius, h = p->b->h;
    const float *rows[MAX_ROWS];
    int n = 0;
    for (int j = -r; j <= r; j++) {
        const int m = bf_map(y + j, h, p->b->border);
        if (m >= 0) rows[n++] = in_row(p, in, m); /* the zero border: none */
    }
    size_t e = e0;
    for (; e + L <= e1; e += L) {
        vf32 s = {0};
        for (int k = 0; k < n; k++) s += ld_vf32(rows[k] + e);
        memcpy(v + e, &s, sizeof s);
    }
    for (; e < e1; e++) {
        float s = 0;
        for (int k = 0; k < n; k++) s += rows[k][e];
        v[e] = s;
    }
}

/* ---- horizontal ---- */

/* Border columns j0 .. j1 - 1 (j < 0 or j >= w) around the row's column
 * sums (at pad + r pixels), from those the border rule maps them to. */
static void fill_pad(const box_plan *p, char *pad, int j0, int j1) {
    const int w = p->b->w, r = p->b->radius;
    const size_t px = p->b->ch * p->asize;
    for (int j = j0; j < j1; j++) {
        const int m = bf_map(j, w, p->b->border);
        char *to = pad + (size_t)(j + r) * px;
        if (m < 0)
            memset(to, 0, px);
        else
            memcpy(to, pad + (size_t)(m + r) * px, px);
    }
}

/* RGBA8: o[x] = s + d[0] + ... + d[x-1] for len pixels, the four channels
 * one vector (a single chain of dependent adds, one a pixel). */
__attribute__((noinline)) /* inlined, GCC 12 kept s in memory: 2x slower */
static px4
chained_px4(const uint32_t *d, uint32_t *o, size_t len, px4 s) {
    for (size_t x = 0; x < len; x++) {
        memcpy(o + 4 * x, &s, sizeof s);
        s += ld_px4(d + 4 * x);
    }
    return s;
}

/* Windows wider than the row: each channel's closed form in double (exact
 * for integer sums). */
static void across_wide(const box_plan *p, const void *v, void *sums, double *line) {
    const int w = p->b->w, ch = p->b->ch;
    double *pre = line + w, *out = pre + w + 1;
    for (int c = 0; c < ch; c++) {
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)x * ch + c;
            line[x] = p->acc == ACC_U16   ? ((const uint16_t *)v)[i]
                      : p->acc == ACC_U32 ? ((const uint32_t *)v)[i]
                      : p->acc == ACC_F32 ? ((const float *)v)[i]
                                          : ((const double *)v)[i];
        }
        box_line_windows(line, 1, w, p->b->radius, p->b->border, pre, out, 1);
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)x * ch + c;
            switch (p->acc) {
            case ACC_U16: ((uint16_t *)sums)[i] = (uint16_t)out[x]; break;
            case ACC_U32: ((uint32_t *)sums)[i] = (uint32_t)out[x]; break;
            case ACC_F32: ((float *)sums)[i] = (float)out[x]; break;
            case ACC_F64: ((double *)sums)[i] = out[x]; break;
            }
        }
    }
}

/* ---- the means ---- */

/* o[e] = round(s[e] / d), d = (2r+1)^2 (odd: no ties), sums s <= 255 d.
 * Where d <= FAST_DIVISOR: trunc(float(s) inv + 0.5). s / d + 0.5 =
 * (2s + d) / 2d, an odd numerator, is at least 1/2d from any integer, and
 * float's error here is below 2^-23 (s / d <= 255, two roundings) + 2^-24
 * 256 (the add) = 4.6e-5 < 1/2d for d < 10900; s < 2^24 is exact in float.
 * Else q = floor((s + (d-1)/2) / d) from a float estimate that is never
 * above it and at most 1 below (three roundings of a quotient under 256,
 * each within 2^-24, and the reciprocal lowered by 2^-21 first), then one
 * integer step up where the remainder is d or more. No divide either way. */
enum { FAST_DIVISOR = 10899 };
static void div_round_u32(const box_plan *p, const uint32_t *s, uint8_t *o, size_t n) {
    enum { L = sizeof(vu32) / 4 };
    const uint32_t d = p->d, half = p->half;
    size_t e = 0;
    if (d <= FAST_DIVISOR) {
        const float inv = (float)(1.0 / d);
        for (; e + L <= n; e += L) {
            const vf32 f = __builtin_convertvector(ld_vu32(s + e), vf32) * inv + 0.5f;
            const vu8 q8 = __builtin_convertvector(__builtin_convertvector(f, vu32), vu8);
            memcpy(o + e, &q8, sizeof q8);
        }
    } else {
        const float inv = p->inv_f;
        for (; e + L <= n; e += L) {
            const vu32 v = ld_vu32(s + e) + half;
            vu32 q = __builtin_convertvector(__builtin_convertvector(v, vf32) * inv, vu32);
            q -= (vu32)(v - q * d >= d); /* a true comparison is -1 */
            const vu8 q8 = __builtin_convertvector(q, vu8);
            memcpy(o + e, &q8, sizeof q8);
        }
    }
    for (; e < n; e++) o[e] = (uint8_t)((s[e] + half) / d);
}

/* uint16 sums: (s + (d-1)/2) mul >> shift, exact (u16_divisor). */
static void div_round_u16(const box_plan *p, const uint16_t *s, uint8_t *o, size_t n) {
    enum { L = sizeof(vu32) / 4 };
    typedef uint16_t h16 __attribute__((vector_size(sizeof(vu32) / 2)));
    const uint32_t mul = p->mul, shift = p->shift, half = p->half;
    size_t e = 0;
    for (; e + L <= n; e += L) {
        h16 x;
        memcpy(&x, s + e, sizeof x);
        const vu32 q = ((__builtin_convertvector(x, vu32) + half) * mul) >> shift;
        const vu8 q8 = __builtin_convertvector(q, vu8);
        memcpy(o + e, &q8, sizeof q8);
    }
    for (; e < n; e++) o[e] = (uint8_t)(((s[e] + half) * mul) >> shift);
}

/* Small windows summed whole and their means, a vector at a time (the sums
 * never stored): uint16 sums to rounded bytes, float ones to floats. */
static void direct_means_u16(const box_plan *p, const uint16_t *restrict pad, uint8_t *restrict o,
                             size_t len) {
    enum { L = sizeof(vu16) / 2, H = L / 2 };
    typedef uint16_t h16 __attribute__((vector_size(sizeof(vu16) / 2)));
    typedef uint8_t h8 __attribute__((vector_size(H)));
    const size_t taps = 2 * (size_t)p->b->radius + 1, ch = (size_t)p->b->ch;
    const uint32_t mul = p->mul, shift = p->shift, half = p->half;
    size_t e = 0;
    for (; e + L <= len; e += L) {
        vu16 s = ld_vu16(pad + e);
        for (size_t j = 1; j < taps; j++) s += ld_vu16(pad + e + j * ch);
        /* s's halves (a union: s's own address taken kept s in memory) */
        const union {
            vu16 whole;
            h16 half[2];
        } u = {s};
        for (int k = 0; k < 2; k++) {
            const vu32 q = ((__builtin_convertvector(u.half[k], vu32) + half) * mul) >> shift;
            const h8 q8 = __builtin_convertvector(q, h8);
            memcpy(o + e + k * H, &q8, sizeof q8);
        }
    }
    for (; e < len; e++) {
        uint32_t s = 0;
        for (size_t j = 0; j < taps; j++) s += pad[e + j * ch];
        o[e] = (uint8_t)(((s + half) * mul) >> shift);
    }
}

static void direct_means_f32(const box_plan *p, const float *restrict pad, float *restrict o,
                             size_t len) {
    enum { L = sizeof(vf32) / 4 };
    const size_t taps = 2 * (size_t)p->b->radius + 1;
    const float inv = p->inv_f;
    size_t e = 0;
    for (; e + L <= len; e += L) {
        vf32 s = ld_vf32(pad + e);
        for (size_t j = 1; j < taps; j++) s += ld_vf32(pad + e + j);
        s *= inv;
        memcpy(o + e, &s, sizeof s);
    }
    for (; e < len; e++) {
        float s = pad[e];
        for (size_t j = 1; j < taps; j++) s += pad[e + j];
        o[e] = s * inv;
    }
}

static void means(const box_plan *p, const void *sums, void *out, size_t n) {
    switch (p->acc) {
    case ACC_U16: div_round_u16(p, sums, out, n); break;
    case ACC_U32: div_round_u32(p, sums, out, n); break;
    case ACC_F32:
        for (size_t e = 0; e < n; e++) ((float *)out)[e] = ((const float *)sums)[e] * p->inv_f;
        break;
    case ACC_F64:
        for (size_t e = 0; e < n; e++)
            ((float *)out)[e] = (float)(((const double *)sums)[e] * p->inv_d);
        break;
    }
}

/* ---- a row ---- */

/* Per thread: the padded column sums (w + 2r + 1 pixels, the image's
 * columns from pixel r, the last pixel 0), a chunk's steps and a row's
 * sums (the chunk's, or the wide windows' whole row). */
typedef struct box_rows {
    char *pad;
    void *sums, *steps;
    double *line; /* wide windows: a line, its prefix sums and its windows */
} box_rows;

static bool rows_alloc(const box_plan *p, box_rows *r) {
    const size_t pixels = (size_t)p->b->w + (p->wide ? 0 : 2 * (size_t)p->b->radius + 1);
    r->pad = calloc(pixels * p->b->ch, p->asize);
    r->sums = malloc(p->ec * p->asize);
    r->steps = malloc(CHUNK * p->asize);
    r->line = p->wide ? malloc((3 * (size_t)p->b->w + 1) * sizeof *r->line) : NULL;
    return r->pad && r->sums && r->steps && (r->line || !p->wide);
}

static void rows_free(box_rows *r) {
    free(r->pad);
    free(r->sums);
    free(r->steps);
    free(r->line);
}

/* The column sums' elements [e0, e1) of row y brought up to date: summed
 * whole (direct_v), or slid by a row (input rows a in, l out) where
 * `slide_v` says, else left as they are. */
typedef struct box_vertical {
    const void *in;
    int y, a, l;
    bool slide_v;
} box_vertical;

static void vertical(const box_plan *p, const box_vertical *vt, void *v, size_t e0, size_t e1) {
    /* The next row's entering input, a row ahead of its loads (2 EPYC
     * cores, 2048x1536: 3-10% faster; the output prefetched for writing
     * gained nothing). */
    if (vt->a >= 0 && vt->a + 1 < p->b->h) {
        const size_t es = p->b->u8 ? 1 : sizeof(float);
        const char *next = in_row(p, vt->in, vt->a + 1);
        for (size_t e = e0 * es; e < e1 * es; e += 64) __builtin_prefetch(next + e, 0, 3);
    }
    if (p->direct)
        direct_rows(p, vt->in, v, vt->y, e0, e1);
    else if (vt->slide_v)
        slide(p, vt->in, v, vt->a, vt->l, e0, e1);
}

/* Output row `row` (2r + 1 <= w) a chunk at a time: the column sums the
 * chunk reads brought up to date (vertical), the border columns once
 * their sources are, the chunk's window sums (whole, or running: the steps
 * d[e] = pad[e + n ch] - pad[e], the column entering a window less the one
 * leaving it, summed from the window sum at the chunk's start), the means.
 * Loads, adds and stores of a chunk interleave, and its data stay in L1. */
static void horizontal(const box_plan *p, const box_vertical *vt, box_rows *rows, void *row) {
    const box_problem *b = p->b;
    const int w = b->w, r = b->radius;
    const size_t ec = p->ec, n = 2 * (size_t)r + 1, span = n * b->ch;
    const size_t esize = b->u8 ? 1 : sizeof(float), asize = p->asize;
    /* Column sums a chunk needs past its end; those of the border columns. */
    const size_t lead = ((size_t)r + 1) * b->ch;
    char *const pad = rows->pad, *const v = pad + (size_t)r * b->ch * asize;
    size_t done = lead < ec ? lead : ec; /* column sums brought up to date */
    vertical(p, vt, v, 0, done);
    fill_pad(p, pad, -r, 0);
    bool right = false; /* the right border columns filled */
    px4 s4 = {0, 0, 0, 0};
    uint32_t su = 0;
    double sd = 0;
    if (p->acc == ACC_U32 && b->ch == 4)
        for (size_t j = 0; j < n; j++) s4 += ld_px4((const uint32_t *)pad + 4 * j);
    else if (p->acc == ACC_U32)
        su = sum_u32((const uint32_t *)pad, n);
    else if (p->acc == ACC_F64)
        sd = sum_f64((const double *)pad, n);
    for (size_t e0 = 0; e0 < ec; e0 += CHUNK) {
        const size_t len = ec - e0 < CHUNK ? ec - e0 : CHUNK;
        const size_t need = e0 + len + lead < ec ? e0 + len + lead : ec;
        if (done < need) vertical(p, vt, v, done, need);
        done = need;
        if (need == ec && !right) fill_pad(p, pad, w, w + r), right = true;
        const char *at = pad + e0 * asize;
        char *o = (char *)row + e0 * esize;
        if (p->acc == ACC_U16) { /* small windows: summed whole */
            direct_means_u16(p, (const uint16_t *)at, (uint8_t *)o, len);
        } else if (p->acc == ACC_F32) {
            direct_means_f32(p, (const float *)at, (float *)o, len);
        } else if (p->acc == ACC_U32) {
            steps_u32((const uint32_t *)at, rows->steps, span, len);
            if (b->ch == 4)
                s4 = chained_px4(rows->steps, rows->sums, len / 4, s4);
            else
                su = chained_u32(rows->steps, rows->sums, len, su);
            means(p, rows->sums, o, len);
        } else {
            steps_f64((const double *)at, rows->steps, span, len);
            sd = chained_f64(rows->steps, rows->sums, len, sd);
            means(p, rows->sums, o, len);
        }
    }
}

/* Bands of rows, each started with its whole window: at least 8 windows
 * tall where running sums are started (so that starting costs at most an
 * eighth more), and up to 4 a thread, taken as threads free up, so that a
 * thread descheduled on a busy machine delays the others little. */
static int bands(const box_plan *p, int threads) {
    const int h = p->b->h, tall = p->direct ? 16 : 8 * (2 * p->b->radius + 1);
    int n = h / (tall > 16 ? tall : 16);
    if (n > 4 * threads) n = 4 * threads;
    if (n < threads) n = threads;
    return n < h ? n : h;
}

double box_omp(const box_problem *b, const void *in, void *out) {
    box_plan p;
    plan_make(b, &p);
    const int h = b->h, r = b->radius, border = b->border;
    const int nb = bands(&p, omp_get_max_threads());
    bool failed = false;
#pragma omp parallel
    {
        box_rows rows;
        const bool ok = rows_alloc(&p, &rows);
        if (!ok) {
#pragma omp atomic write
            failed = true;
        }
        /* The column sums, between the row's border columns (none where
         * the window is wider than the row). */
        char *v = rows.pad + (p.wide ? 0 : (size_t)r * b->ch * p.asize);
#pragma omp for schedule(dynamic, 1)
        for (int band = 0; band < nb; band++) {
            const int y0 = (int)((long long)h * band / nb),
                      y1 = (int)((long long)h * (band + 1) / nb);
            for (int y = y0; y < y1 && ok; y++) {
                box_vertical vt = {in, y, bf_map(y + r, h, border), bf_map(y - r - 1, h, border),
                                   y > y0};
                if (y == y0 && !p.direct) { /* the band's first row: its window, weighted */
                    memset(v, 0, p.ec * p.asize);
                    const bf_span sp = bf_window(y, r, h, border);
#define ADD_(q, k) add_times(&p, in, v, (q), (k), 0, p.ec)
                    BF_SPAN_EACH(sp, h, border, ADD_);
#undef ADD_
                }
                char *row = (char *)out + y * p.ec * (b->u8 ? 1 : sizeof(float));
                if (p.wide) {
                    vertical(&p, &vt, v, 0, p.ec);
                    across_wide(&p, v, rows.sums, rows.line);
                    means(&p, rows.sums, row, p.ec);
                } else {
                    horizontal(&p, &vt, &rows, row);
                }
            }
        }
        rows_free(&rows);
    }
    if (failed) return -1;
    /* The model's K: plain float sums of n terms, n^2 a pass (K = 2n); the
     * others far inside the direct model's 8. */
    return p.acc == ACC_F32 ? 2 * (2.0 * r + 1) : 8;
}
