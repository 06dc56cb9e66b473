/* Workload collider: N balls (position, velocity, radius, mass; structure
 * of arrays) bouncing off each other and the walls of a W x H box -- seed
 * 000's 2D collider with physics that conserves momentum. The physics is
 * kernels/collider.cl, written once: the devices compile it, and the c and
 * omp variants run the very same functions as host C (collider_host.h).
 *
 * Variants: c / omp (brute force O(N^2), one core / all cores), c-grid /
 * omp-grid (uniform-grid broad phase), and on OpenCL/CUDA/Vulkan devices `brute`
 * (the seed's O(N^2) kernel, SPLIT work-items per ball) and `grid` (cell of
 * each ball with an atomic count, device scan, scatter of the ids, the balls
 * gathered in cell order so that neighbours are contiguous, 3 x 3 neighbour
 * cells: O(N) per step). A run is --steps steps; its arrays: the initial
 * state and the properties in, the final state out (by ball id), and
 * scratch (the second state or the gathered balls, the grid) that is
 * neither uploaded nor downloaded. With --frames the state is downloaded
 * and drawn every K steps inside the run: such a run's times include it.
 *
 * Verification, every run; the reported error is the largest ratio of a
 * measured deviation to its bound (so the tolerance is 1):
 *  - reference (the first steps: runs of at most REF_MAX_STEPS steps; in a
 *    dense box float and double trajectories part soon after): the same physics in
 *    double on the host; per ball max(|dx|/r_min, |dv|/v_max), bounded by
 *    REF_ULPS float roundings at the box's scale per step. A contact (or a
 *    wall) that falls within rounding of its threshold is decided either
 *    way and sends its balls, and those they meet, far elsewhere: such
 *    sensitive balls are found from the input alone, by two more double
 *    runs from it moved by +-PERTURB_ULPS roundings in a seeded direction
 *    per ball, and left out (a ball that ends elsewhere in either run);
 *  - invariants, always: every value finite and inside the box; no pair
 *    overlapping by more than OVERLAP_MAX of r_i + r_j; without the
 *    reference, kinetic energy within ENERGY_TOL + ENERGY_PER_STEP x steps
 *    of the start (relative: the
 *    impulses of a ball's simultaneous contacts are summed, which changes the
 *    energy a little where three or more balls touch at once); with periodic
 *    boundaries the total momentum within MOMENTUM_ULPS float roundings per
 *    step (relative to sum m|v|).
 * A run longer than REF_MAX_STEPS, or of more than REF_MAX_BALLS balls, is
 * checked by its invariants alone (chaos: float and double trajectories part
 * after enough contacts; and the perturbed runs find the sensitive balls of a
 * finite set: at 10^6 balls and 10 steps, 2-4 went unfound, on omp and on
 * CUDA alike, 2026-12-02-h200-n.md; none over 3 x 400 seeds of the test sets
 * nor at 3 x 10^5 balls). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/image.h"
#include "core/outfile.h"
#include "workloads/collider_host.h"

#define REF_MAX_STEPS 10
#define REF_MAX_BALLS 262144
#define REF_ULPS 64.0
#define PERTURB_ULPS 16.0 /* over the float runs' typical ~5 after 10 steps */
#define OVERLAP_MAX 0.5
#define ENERGY_TOL 0.05 /* plus ENERGY_PER_STEP each step */
#define ENERGY_PER_STEP 1e-4
#define MOMENTUM_ULPS 1.0
#define MAX_BALLS (1 << 28)  /* kernels index 4n with int */
#define SCAN_BLOCK_HOST 2048 /* SCAN_BLOCK of the kernel: 256 work-items x 8 */
#define MAX_LEVELS 8
/* Brute force past this many pair tests per run would take minutes: on a
 * CPU core ~5e8 pair tests a second (2 EPYC cores, c and PoCL alike), on
 * the H200 1.2e12. OpenCL on a CPU is held to the host's limit. */
#define BRUTE_HOST_MAX 2e11
#define BRUTE_DEVICE_MAX 2e13
#define BRUTE_CORE_RATE 5e8
#define BRUTE_GPU_RATE 1.2e12
/* collider_brute's local memory: a float4 per staged ball, 4 partial sums per work-item. */
#define BRUTE_LOCAL_BYTES(wg) (8 * (wg) * sizeof(float))

/* Arrays, in this order. */
enum { A_IN, A_PROPS, A_OUT, A_TMP, A_CELL, A_RANK, A_SORTED, A_GRID };

typedef struct collider_state {
    collider_cfg cfg;
    double radius, radius_max, speed, rmin, rmax;
    int scenario;
    float *in, *props, *out, *tmp;
    host_grid grid;
    /* levels of the device scan in the grid array: offsets and lengths */
    int nlevels, lev_off[MAX_LEVELS], lev_len[MAX_LEVELS];
    const char *frames, *gif;
    int every;
    co_status frame_status;
    /* --gif: the frames of the last run, palette indices, gif_w x gif_h each */
    unsigned char **gif_frames;
    size_t gif_count, gif_cap;
    int gif_w, gif_h;
    double *ref;              /* the f64 reference state, for runs of at most REF_MAX_STEPS */
    unsigned char *sensitive; /* per ball: its outcome turns on rounding (not compared) */
} collider_state;

static const co_option_def options[] = {
    {"balls", "20000", "number of balls"},
    {"radius", "0.5", "ball radius (the smallest with --radius-max)"},
    {"radius-max", NULL, "largest radius: radii uniform in [radius, radius-max]; mass = pi r^2"},
    {"width", "800", "box width"},
    {"height", "600", "box height"},
    {"speed", "1", "initial velocity components uniform in [-speed, speed]"},
    {"dt", "0.1", "time step (--scenario crowd: 0.05)"},
    {"steps", "10", "steps per run (0: the initial state)"},
    {"boundary", "walls", "walls (reflect) or periodic (wrap-around)"},
    {"scenario", "random",
     "random, or a fixed test case: one, headon, unequal, glancing, wall, "
     "three, crowd (sets balls, radii, box and velocities)"},
    {"output", NULL, "write the final state as CSV: x,y,vx,vy,r,m, one row per ball"},
    {"frames", NULL, "directory for PNG frames of the run (timed with it)"},
    {"every", "10", "with --frames: a frame every K steps"},
    {"image", NULL, "write the final state as a PNG"},
    {"gif", NULL, "write the run as an animated GIF: a frame every --every steps (timed with it)"},
};

#define GIF_MAX_FRAMES 1000
#define GIF_SIDE 320 /* pixels along the box's longer side */
/* PNG files a --frames directory gets (the ray tracer's --frames limit) */
#define FRAMES_MAX 100000

static const char scenarios[] = "random|one|headon|unequal|glancing|wall|three|crowd";
enum { S_RANDOM, S_ONE, S_HEADON, S_UNEQUAL, S_GLANCING, S_WALL, S_THREE, S_CROWD };

/* A fixed case: box, and balls as x, y, vx, vy, r. */
typedef struct scenario {
    double w, h;
    int n;
    float balls[5][5];
} scenario;

static const scenario fixed[] = {
    [S_ONE] = {10, 8, 1, {{3.3f, 4.1f, 0.7f, -0.45f, 0.5f}}},
    [S_HEADON] = {10, 10, 2, {{4, 5, 1, 0, 0.5f}, {6, 5, -1, 0, 0.5f}}},
    [S_UNEQUAL] = {10, 10, 2, {{3.5f, 5, 1, 0, 1}, {6.5f, 5, -1, 0, 0.5f}}},
    [S_GLANCING] = {10, 10, 2, {{3, 5, 1, 0, 0.5f}, {6, 5.5f, 0, 0, 0.5f}}},
    [S_WALL] = {10,
                10,
                4,
                {{0.5f, 3, 0, 0.5f, 0.5f},
                 {9.5f, 5, 0, 0, 0.5f},
                 {5, 9.5f, 0.3f, 0, 0.5f},
                 {5, 5, 0, -1, 0.5f}}},
    [S_THREE] = {10, 10, 3, {{3, 5, 1, 0, 0.5f}, {5, 5, 0, 0, 0.5f}, {5, 3, 0, 1, 0.5f}}},
};
/* crowd: one ball of radius 3 driven into 36 balls of radius 0.25 that
 * share one grid cell (cells are sized by the big ball). */
#define CROWD_SIDE 6

static co_status bad(const char *what, double value, const char *why) {
    return co_fail(CO_ERR_INVALID, "collider: %s = %g %s", what, value, why);
}

/* The grid: cells at least the largest diameter wide, and not many more
 * cells than balls (a huge sparse box would spend its time on empty cells). */
static void grid_shape(collider_cfg *c, double rmax) {
    double cell = 2.0 * rmax * (1.0 + 1e-3); /* slack for the rounding of cell indices */
    const double limit = 4.0 * c->n + 4096.0;
    for (;;) {
        double nx = floor(c->w / cell), ny = floor(c->h / cell);
        nx = nx < 1 ? 1 : nx, ny = ny < 1 ? 1 : ny;
        if (nx * ny <= limit) {
            c->ncx = (int)nx, c->ncy = (int)ny;
            return;
        }
        cell *= 1.25;
    }
}

static co_status read_options(collider_state *s, const co_option *o, size_t n, size_t *balls) {
    collider_cfg *c = &s->cfg;
    size_t steps, every;
    int boundary;
    co_status st = co_opt_choice(o, n, "scenario", scenarios, S_RANDOM, &s->scenario);
    if (!st) st = co_opt_size(o, n, "balls", 20000, balls);
    if (!st) st = co_opt_real(o, n, "radius", 0.5, 1e-6, 1e6, &s->radius);
    if (!st) st = co_opt_real(o, n, "radius-max", s->radius, s->radius, 1e6, &s->radius_max);
    if (!st) st = co_opt_real(o, n, "width", 800, 1e-6, 1e9, &c->w);
    if (!st) st = co_opt_real(o, n, "height", 600, 1e-6, 1e9, &c->h);
    if (!st) st = co_opt_real(o, n, "speed", 1, 1e-9, 1e9, &s->speed);
    /* crowd's light balls (radius 0.25, speed 1) need a shorter step than 0.1 */
    if (!st) st = co_opt_real(o, n, "dt", s->scenario == S_CROWD ? 0.05 : 0.1, 1e-9, 1e9, &c->dt);
    if (!st && co_opt(o, n, "steps") && strcmp(co_opt(o, n, "steps"), "0") == 0)
        steps = 0;
    else if (!st)
        st = co_opt_size(o, n, "steps", 10, &steps);
    if (!st) st = co_opt_choice(o, n, "boundary", "walls|periodic", 0, &boundary);
    if (!st) st = co_opt_size(o, n, "every", 10, &every);
    if (st) return st;
    /* A fixed case sets these itself: a value given would be ignored. */
    static const char *const set[] = {"balls", "radius", "radius-max", "width", "height", "speed"};
    for (size_t i = 0; s->scenario != S_RANDOM && i < sizeof set / sizeof *set; i++)
        if (co_opt(o, n, set[i]))
            return co_fail(CO_ERR_INVALID,
                           "collider: --scenario %s sets --%s itself: leave it out, or use "
                           "--scenario random",
                           co_opt(o, n, "scenario"), set[i]);
    if (steps > 100000000) return bad("--steps", (double)steps, "is over 10^8");
    if (*balls > MAX_BALLS) return bad("--balls", (double)*balls, "is over 2^28");
    c->steps = (int)steps;
    c->periodic = boundary;
    s->every = every > 1u << 30 ? 1 << 30 : (int)every;
    s->frames = co_opt(o, n, "frames");
    s->gif = co_opt(o, n, "gif");
    if (s->frames && steps / every + 1 > FRAMES_MAX)
        return co_fail(CO_ERR_INVALID,
                       "collider: --frames with --steps %zu and --every %zu makes %zu PNG "
                       "files, over %d: raise --every",
                       steps, every, steps / every + 1, FRAMES_MAX);
    if (s->gif && steps / every + 1 > GIF_MAX_FRAMES)
        return co_fail(CO_ERR_INVALID,
                       "collider: --gif with --steps %zu and --every %zu makes %zu "
                       "frames, over the %d a GIF holds here: raise --every",
                       steps, every, steps / every + 1, GIF_MAX_FRAMES);
    return CO_OK;
}

static co_status init(co_problem *p, const co_option *opts, size_t nopts) {
    collider_state *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->state = s;
    collider_cfg *c = &s->cfg;
    size_t balls;
    co_status st = read_options(s, opts, nopts, &balls);
    if (st) return st;
    double vmax = s->speed;
    s->rmin = s->radius, s->rmax = s->radius_max;
    if (s->scenario == S_CROWD) {
        c->w = c->h = 20, balls = 1 + CROWD_SIDE * CROWD_SIDE;
        s->rmin = 0.25, s->rmax = 3, vmax = 1;
    } else if (s->scenario != S_RANDOM) {
        const scenario *f = &fixed[s->scenario];
        c->w = f->w, c->h = f->h, balls = (size_t)f->n;
        s->rmin = 1e9, s->rmax = 0, vmax = 0;
        for (int i = 0; i < f->n; i++) {
            s->rmin = fmin(s->rmin, f->balls[i][4]), s->rmax = fmax(s->rmax, f->balls[i][4]);
            vmax = fmax(vmax, fmax(fabs(f->balls[i][2]), fabs(f->balls[i][3])));
        }
    } else {
        /* Initial balls sit on a lattice of sites at least 2.1 r_max apart. */
        const double site = 2.1 * s->rmax, sites = floor(c->w / site) * floor(c->h / site);
        if (sites < (double)balls)
            return co_fail(CO_ERR_INVALID,
                           "collider: %zu balls of radius up to %g do not fit apart in a %g x %g "
                           "box (at most %.0f); enlarge --width/--height or lower --balls",
                           balls, s->rmax, c->w, c->h, sites);
    }
    c->n = (int)balls;
    if (c->w < 4 * s->rmax || c->h < 4 * s->rmax)
        return co_fail(CO_ERR_INVALID,
                       "collider: the box %g x %g must be at least 4 radii "
                       "(4 x %g) wide and high",
                       c->w, c->h, s->rmax);
    /* A step must move a ball well under its radius, or it can pass through
     * another one (a collision can double a light ball's speed). */
    if (vmax * c->dt > 0.25 * s->rmin)
        return co_fail(CO_ERR_INVALID,
                       "collider: --speed x --dt = %g moves a ball more than a "
                       "quarter of its radius %g per step (balls could pass through each "
                       "other); lower --dt",
                       vmax * c->dt, s->rmin);
    grid_shape(c, s->rmax);

    /* The scan of the cell counts: level k holds the block sums of level k-1. */
    const size_t n = balls, cells = (size_t)c->ncx * (size_t)c->ncy;
    s->lev_len[0] = (int)(cells + 1);
    s->nlevels = 1;
    size_t total = cells + 1;
    while (s->lev_len[s->nlevels - 1] > 1) {
        const int len = s->lev_len[s->nlevels - 1];
        s->lev_off[s->nlevels] = (int)total;
        s->lev_len[s->nlevels] = (len + SCAN_BLOCK_HOST - 1) / SCAN_BLOCK_HOST;
        total += (size_t)s->lev_len[s->nlevels++];
    }
    const size_t f4 = 4 * n * sizeof(float), i1 = n * sizeof(int);
    st = co_problem_array(p, "state0", f4, false, (void **)&s->in);
    if (!st) st = co_problem_array(p, "props", 2 * n * sizeof(float), false, (void **)&s->props);
    if (!st) st = co_problem_array(p, "state", f4, true, (void **)&s->out);
    /* brute force: the second state (4n); grid: the balls gathered in cell order (6n) */
    if (!st) st = co_problem_array(p, "state_tmp", 6 * n * sizeof(float), false, (void **)&s->tmp);
    if (!st) st = co_problem_array(p, "cell", i1, false, (void **)&s->grid.cell);
    if (!st) st = co_problem_array(p, "rank", i1, false, (void **)&s->grid.rank);
    if (!st) st = co_problem_array(p, "sorted", i1, false, (void **)&s->grid.sorted);
    if (!st) st = co_problem_array(p, "grid", total * sizeof(int), false, (void **)&s->grid.start);
    if (st) return st;
    /* Counted with the arrays: the f64 reference and its two perturbed runs
     * (12n, their float input 4n, the mask n) and the working set of a host
     * simulation in double (collider_ref.c: state 4n, props 2n, 7n more, the
     * grid); a --frames picture. */
    const bool ref = c->steps <= REF_MAX_STEPS && c->n <= REF_MAX_BALLS;
    p->host_check_bytes = ref ? 26 * n * sizeof(double) + 4 * n * sizeof(float) + n +
                                    (3 * n + cells + 1) * sizeof(int)
                              : 0;
    p->host_extra_bytes = s->frames ? (3 << 20) + CO_PNG_WRITE_BYTES(3 << 20) : 0;
    if (s->gif) p->host_extra_bytes += (size_t)(c->steps / s->every + 1) * GIF_SIDE * GIF_SIDE;
    for (size_t i = A_TMP; i < p->narrays; i++) p->arrays[i].scratch = true;
    co_problem_size(p, "balls", n);
    co_problem_size(p, "steps", (size_t)c->steps);
    char text[32];
    snprintf(text, sizeof text, "%g", c->w);
    co_problem_text(p, "width", text);
    snprintf(text, sizeof text, "%g", c->h);
    co_problem_text(p, "height", text);
    co_problem_text(p, "boundary", c->periodic ? "periodic" : "walls");
    co_problem_rate(p, "steps", (double)c->steps);
    co_problem_rate(p, "ball-steps", (double)n * c->steps);
    return CO_OK;
}

static void set_ball(collider_state *s, size_t i, double x, double y, double vx, double vy,
                     double r) {
    const size_t n = (size_t)s->cfg.n;
    s->in[i] = (float)x, s->in[n + i] = (float)y;
    s->in[2 * n + i] = (float)vx, s->in[3 * n + i] = (float)vy;
    s->props[i] = (float)r;
    s->props[n + i] = (float)(M_PI * r * r);
}

static double uniform(co_rng *r) { return (double)(co_rng_next(r) >> 11) * 0x1p-53; }

/* Random balls that never overlap: one per site of a lattice of sites
 * 2.1 r_max apart or, in a sparser box, as far apart as 90% of the sites
 * the box could hold (so that neighbours do not start nearly touching);
 * the sites spread evenly over the lattice (one chosen at random in each
 * of n equal runs of sites), the ball jittered within its site, then the
 * balls shuffled so that ids say nothing about places. */
static void fill_random(collider_state *s, co_rng *rng) {
    const collider_cfg *c = &s->cfg;
    const size_t n = (size_t)c->n;
    double site = sqrt(0.9 * c->w * c->h / (double)n);
    while (site > 2.1 * s->rmax && floor(c->w / site) * floor(c->h / site) < (double)n)
        site *= 0.97;                 /* the rounding down of sites per row and column */
    site = fmax(site, 2.1 * s->rmax); /* init checked that these fit */
    const double nx = floor(c->w / site);
    const double sites = nx * floor(c->h / site);
    for (size_t i = 0; i < n; i++) {
        const double lo = floor((double)i * sites / (double)n);
        const double hi = floor((double)(i + 1) * sites / (double)n);
        const double k = lo + floor(uniform(rng) * (hi - lo));
        const double r = s->rmin + (s->rmax - s->rmin) * uniform(rng);
        const double slack = site / 2 - r;
        const double x = (fmod(k, nx) + 0.5) * site + slack * (2 * uniform(rng) - 1);
        const double y = (floor(k / nx) + 0.5) * site + slack * (2 * uniform(rng) - 1);
        set_ball(s, i, x, y, co_rng_float(rng, (float)-s->speed, (float)s->speed),
                 co_rng_float(rng, (float)-s->speed, (float)s->speed), r);
    }
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates over all six arrays */
        const size_t j = (size_t)(co_rng_next(rng) % i);
        for (size_t a = 0; a < 6; a++) {
            float *v = a < 4 ? s->in + a * n : s->props + (a - 4) * n;
            const float t = v[i - 1];
            v[i - 1] = v[j], v[j] = t;
        }
    }
}

static void fill(co_problem *p, uint64_t seed) {
    collider_state *s = p->state;
    co_rng rng = {seed};
    if (s->scenario == S_RANDOM) {
        fill_random(s, &rng);
    } else if (s->scenario == S_CROWD) {
        set_ball(s, 0, 4.2, 10, 1, 0, 3); /* a step or two from contact */
        for (int i = 0; i < CROWD_SIDE * CROWD_SIDE; i++)
            set_ball(s, (size_t)i + 1, 7.5 + 0.6 * (i % CROWD_SIDE), 7.5 + 0.6 * (i / CROWD_SIDE),
                     co_rng_float(&rng, -0.1f, 0.1f), co_rng_float(&rng, -0.1f, 0.1f), 0.25);
    } else {
        const scenario *f = &fixed[s->scenario];
        for (int i = 0; i < f->n; i++)
            set_ball(s, (size_t)i, f->balls[i][0], f->balls[i][1], f->balls[i][2], f->balls[i][3],
                     f->balls[i][4]);
    }
}

/* ---- verification ---- */

typedef struct totals {
    double ke, px, py, pabs, vmax;
} totals;

static totals totals_of(const float *st, const float *props, size_t n) {
    totals t = {0};
    for (size_t i = 0; i < n; i++) {
        const double m = props[n + i], vx = st[2 * n + i], vy = st[3 * n + i];
        const double v = sqrt(vx * vx + vy * vy);
        t.ke += 0.5 * m * (vx * vx + vy * vy);
        t.px += m * vx, t.py += m * vy, t.pabs += m * v;
        t.vmax = fmax(t.vmax, v);
    }
    return t;
}

static double image_delta(double d, double len, int periodic) {
    return periodic ? d - len * floor(d / len + 0.5) : d;
}

/* Per-ball deviation of state a (float) or ad (double) from the double
 * state b, as a multiple of the per-ball bound's scales: max(|dx| / r_min,
 * |dv| / v_max), the minimum image if periodic; NaN is infinite. */
static double ball_error(const collider_state *s, const float *a, const double *ad, const double *b,
                         size_t i, double vscale) {
    const collider_cfg *c = &s->cfg;
    const size_t n = (size_t)c->n;
#define AT(k) (a ? (double)a[k] : ad[k])
    const double dx = image_delta(AT(i) - b[i], c->w, c->periodic);
    const double dy = image_delta(AT(n + i) - b[n + i], c->h, c->periodic);
    const double dv = hypot(AT(2 * n + i) - b[2 * n + i], AT(3 * n + i) - b[3 * n + i]);
#undef AT
    const double e = fmax(hypot(dx, dy) / s->rmin, dv / vscale);
    return isnan(e) ? INFINITY : e;
}

static double ref_bound(const collider_state *s) {
    const collider_cfg *c = &s->cfg;
    return 0x1p-24 * fmax(c->w, c->h) / s->rmin * REF_ULPS * (c->steps + 1);
}

/* The input moved by sign * PERTURB_ULPS roundings at the box's scale (and
 * at v_max for velocities), in a seeded random direction per ball. */
static void perturbed(const collider_state *s, double sign, double vscale, float *out) {
    const size_t n = (size_t)s->cfg.n;
    const double dx = sign * PERTURB_ULPS * 0x1p-24 * fmax(s->cfg.w, s->cfg.h);
    const double dv = sign * PERTURB_ULPS * 0x1p-24 * vscale;
    co_rng rng = {0x5e45171e};
    memcpy(out, s->in, 4 * n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        const double a = 6.283185307179586 * co_rng_float(&rng, 0, 1);
        const double b = 6.283185307179586 * co_rng_float(&rng, 0, 1);
        out[i] = (float)(out[i] + dx * cos(a)), out[n + i] = (float)(out[n + i] + dx * sin(a));
        out[2 * n + i] = (float)(out[2 * n + i] + dv * cos(b));
        out[3 * n + i] = (float)(out[3 * n + i] + dv * sin(b));
    }
}

/* The f64 reference of short runs (longer ones are checked by invariants),
 * and which balls are sensitive to rounding: those that end more than half
 * the bound from it in a run from the input perturbed either way. */
static co_status reference(co_problem *p) {
    collider_state *s = p->state;
    const collider_cfg *c = &s->cfg;
    if (c->steps > REF_MAX_STEPS || c->n > REF_MAX_BALLS) return CO_OK;
    const size_t n = (size_t)c->n;
    free(s->ref), free(s->sensitive);
    s->ref = malloc(4 * n * sizeof *s->ref);
    s->sensitive = calloc(n ? n : 1, 1);
    double *other = malloc(4 * n * sizeof *other);
    float *in = malloc(4 * n * sizeof *in);
    co_status st = s->ref && s->sensitive && other && in
                       ? collider_reference(c, s->in, s->props, s->ref)
                       : co_fail(CO_ERR_NOMEM, "out of host memory for the reference");
    const double vscale = fmax(totals_of(s->in, s->props, n).vmax, 1e-30);
    for (int k = 0; !st && k < 2; k++) {
        perturbed(s, k ? -1 : 1, vscale, in);
        st = collider_reference(c, in, s->props, other);
        for (size_t i = 0; !st && i < n; i++)
            s->sensitive[i] |= !(ball_error(s, NULL, other, s->ref, i, vscale) <= ref_bound(s) / 2);
    }
    free(other), free(in);
    return st;
}

/* The largest deviation of a ball that is not sensitive, over the bound. */
static double reference_error(const collider_state *s) {
    const size_t n = (size_t)s->cfg.n;
    const double vscale = fmax(totals_of(s->in, s->props, n).vmax, 1e-30);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        if (!s->sensitive[i]) worst = fmax(worst, ball_error(s, s->out, NULL, s->ref, i, vscale));
    return worst / ref_bound(s);
}

static co_status verify(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len) {
    collider_state *s = p->state;
    const collider_cfg *c = &s->cfg;
    const size_t n = (size_t)c->n;
    *tolerance = 1.0;
    *error = INFINITY;
    const bool ref = c->steps <= REF_MAX_STEPS && c->n <= REF_MAX_BALLS;
    snprintf(check, check_len, ref ? "f64 reference+invariants" : "invariants");
    for (size_t i = 0; i < n; i++) { /* finite, inside the box */
        const float x = s->out[i], y = s->out[n + i], r = c->periodic ? 0 : s->props[i];
        if (!isfinite(s->out[2 * n + i]) || !isfinite(s->out[3 * n + i]) ||
            !(x >= r * (1 - 1e-6f) && x <= c->w - r * (1 - 1e-6f)) ||
            !(y >= r * (1 - 1e-6f) && y <= c->h - r * (1 - 1e-6f)))
            return CO_OK;
    }
    double worst = 0, overlap;
    co_status st = collider_max_overlap(c, s->out, s->props, &overlap);
    if (st) return st;
    worst = fmax(worst, overlap / OVERLAP_MAX);
    const totals t0 = totals_of(s->in, s->props, n), t1 = totals_of(s->out, s->props, n);
    if (!ref) /* with the reference, its per-ball velocities hold the energy */
        worst =
            fmax(worst, fabs(t1.ke - t0.ke) / t0.ke / (ENERGY_TOL + ENERGY_PER_STEP * c->steps));
    if (c->periodic)
        worst = fmax(worst, hypot(t1.px - t0.px, t1.py - t0.py) / t0.pabs /
                                (MOMENTUM_ULPS * 0x1p-24 * (c->steps + 1)));
    if (ref) worst = fmax(worst, reference_error(s));
    *error = worst;
    return CO_OK;
}

/* ---- pictures and the state file ---- */

/* Pictures: palette indices, 0 the background, 1..254 the speed ramp
 * (slow blue to fast yellow), 255 the legend's text. */
static void palette_of(unsigned char pal[768]) {
    memset(pal, 0, 768);
    pal[0] = 16, pal[1] = 18, pal[2] = 28;
    for (int k = 1; k < 255; k++) {
        const double v = (k - 1) / 253.0;
        pal[3 * k] = (unsigned char)(60 + 195 * v), pal[3 * k + 1] = (unsigned char)(140 + 60 * v);
        pal[3 * k + 2] = (unsigned char)(255 - 195 * v);
    }
    pal[765] = pal[766] = pal[767] = 235;
}

/* 3x5 glyphs, a row per 3 bits, for the legend's labels. */
static const struct {
    char c;
    unsigned short rows[5];
} glyphs[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {'e', {0, 7, 7, 4, 7}},
    {'s', {0, 7, 6, 1, 7}}, {'p', {0, 7, 5, 7, 4}}, {'d', {1, 1, 7, 5, 7}}, {'+', {0, 2, 7, 2, 0}},
};

static void text_at(unsigned char *px, int W, int H, int x, int y, int z, const char *t) {
    for (; *t; t++, x += 4 * z) {
        size_t g = 0;
        while (g < sizeof glyphs / sizeof glyphs[0] && glyphs[g].c != *t) g++;
        if (g == sizeof glyphs / sizeof glyphs[0]) continue; /* a space */
        for (int r = 0; r < 5 * z; r++)
            for (int q = 0; q < 3 * z; q++)
                if (glyphs[g].rows[r / z] >> (2 - q / z) & 1 && x + q < W && y + r < H &&
                    y + r >= 0)
                    px[(size_t)(y + r) * W + x + q] = 255;
    }
}

/* The state drawn W x H at `scale` pixels a unit, each ball a disc (at least
 * one pixel) coloured by its speed, with the colour legend at the bottom. */
static void render(const collider_state *s, const float *st, double scale, int W, int H,
                   unsigned char *px) {
    const collider_cfg *c = &s->cfg;
    const size_t n = (size_t)c->n;
    memset(px, 0, (size_t)W * H);
    const double vref = fmax(2 * s->speed, 1e-30);
    for (size_t i = 0; i < n; i++) {
        const double x = st[i] * scale, y = (c->h - st[n + i]) * scale; /* y up */
        const double r = fmax(s->props[i] * scale, 0.5);
        const double v = fmin(1, hypot(st[2 * n + i], st[3 * n + i]) / vref);
        const unsigned char k = (unsigned char)(1 + lround(253 * v));
        const int x0 = (int)floor(x - r), x1 = (int)ceil(x + r);
        const int y0 = (int)floor(y - r), y1 = (int)ceil(y + r);
        for (int py = y0 < 0 ? 0 : y0; py <= y1 && py < H; py++)
            for (int qx = x0 < 0 ? 0 : x0; qx <= x1 && qx < W; qx++) {
                const double dx = qx + 0.5 - x, dy = py + 0.5 - y;
                if (dx * dx + dy * dy <= r * r || (qx == (int)x && py == (int)y))
                    px[(size_t)py * W + qx] = k;
            }
    }
    /* Legend: the ramp from speed 0 to 2x --speed (and over), labelled. */
    const int z = W >= 600 ? 2 : 1, bw = W / 4, bh = 5 * z, x0 = 6 * z, y0 = H - 6 * z - bh;
    if (y0 < 12 * z) return;
    for (int y = y0; y < y0 + bh; y++)
        for (int x = 0; x < bw; x++)
            px[(size_t)y * W + x0 + x] = (unsigned char)(1 + 253 * x / (bw - 1));
    char hi[32];
    snprintf(hi, sizeof hi, "%.3g+", 2 * s->speed);
    text_at(px, W, H, x0, y0 - 7 * z, z, "0");
    text_at(px, W, H, x0 + bw / 2 - 10 * z, y0 - 7 * z, z, "speed");
    text_at(px, W, H, x0 + bw - 4 * z * (int)strlen(hi), y0 - 7 * z, z, hi);
}

/* The state as a PNG: 1024 pixels along the longer side of the box. */
static co_status draw(const collider_state *s, const float *st, const char *path) {
    const collider_cfg *c = &s->cfg;
    const double scale = 1024.0 / fmax(c->w, c->h);
    const int W = (int)fmax(1, ceil(c->w * scale)), H = (int)fmax(1, ceil(c->h * scale));
    unsigned char *idx = malloc((size_t)W * H * 4), pal[768];
    if (!idx) return co_fail(CO_ERR_NOMEM, "out of host memory for an image");
    unsigned char *rgb = idx + (size_t)W * H;
    render(s, st, scale, W, H, idx);
    palette_of(pal);
    for (size_t i = 0; i < (size_t)W * H; i++) memcpy(rgb + 3 * i, pal + 3 * idx[i], 3);
    co_status st2 = co_image_save_png(path, W, H, 3, rgb);
    free(idx);
    return st2;
}

/* A --gif frame, kept until save. */
static void gif_frame(collider_state *s, const float *state) {
    const collider_cfg *c = &s->cfg;
    const double scale = GIF_SIDE / fmax(c->w, c->h);
    s->gif_w = (int)fmax(1, ceil(c->w * scale)), s->gif_h = (int)fmax(1, ceil(c->h * scale));
    if (s->gif_count == s->gif_cap) {
        const size_t cap = s->gif_cap ? 2 * s->gif_cap : 64;
        unsigned char **grown = realloc(s->gif_frames, cap * sizeof *grown);
        if (!grown) {
            s->frame_status = co_fail(CO_ERR_NOMEM, "out of host memory for --gif frames");
            return;
        }
        s->gif_frames = grown, s->gif_cap = cap;
    }
    unsigned char *px = malloc((size_t)s->gif_w * s->gif_h);
    if (!px) {
        s->frame_status = co_fail(CO_ERR_NOMEM, "out of host memory for --gif frames");
        return;
    }
    render(s, state, scale, s->gif_w, s->gif_h, px);
    s->gif_frames[s->gif_count++] = px;
}

static void gif_clear(collider_state *s) {
    for (size_t i = 0; i < s->gif_count; i++) free(s->gif_frames[i]);
    s->gif_count = 0;
}

static void frame(void *ctx, const float *state, int step) {
    collider_state *s = ctx;
    if (s->frame_status) return;
    if (s->gif) gif_frame(s, state);
    if (!s->frames || s->frame_status) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%06d.png", s->frames, step);
    s->frame_status = draw(s, state, path);
}

static co_status frames_begin(collider_state *s) {
    s->frame_status = CO_OK;
    gif_clear(s); /* the GIF shows the last run */
    if (!s->frames) return CO_OK;
    if (mkdir(s->frames, 0777) && errno != EEXIST)
        return co_fail(CO_ERR_IO, "collider: cannot create the frames directory '%s': %s",
                       s->frames, strerror(errno));
    return CO_OK;
}

static co_status save(co_problem *p, const co_option *opts, size_t nopts) {
    collider_state *s = p->state;
    const size_t n = (size_t)s->cfg.n;
    const char *image = co_opt(opts, nopts, "image"), *path = co_opt(opts, nopts, "output");
    if (image) {
        co_status st = draw(s, s->out, image);
        if (st) return st;
    }
    if (s->gif) {
        unsigned char pal[768];
        palette_of(pal);
        co_status st = co_gif_save(s->gif, s->gif_w, s->gif_h, s->gif_count,
                                   (const unsigned char *const *)s->gif_frames, pal, 6);
        if (st) return st;
    }
    if (!path) return CO_OK;
    co_outfile o;
    co_status st = co_outfile_open(&o, path);
    if (st) return st;
    fputs("x,y,vx,vy,r,m\n", o.f);
    for (size_t i = 0; i < n; i++)
        fprintf(o.f, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", s->out[i], s->out[n + i], s->out[2 * n + i],
                s->out[3 * n + i], s->props[i], s->props[n + i]);
    return co_outfile_close(&o);
}

static void destroy(co_problem *p) {
    collider_state *s = p->state;
    if (!s) return;
    gif_clear(s);
    free(s->gif_frames);
    free(s->ref);
    free(s->sensitive);
    free(s);
    p->state = NULL;
}

/* ---- variants ---- */

/* Refused past the limit of its kind of device, with the time it would take. */
static co_status brute_allowed(const co_job *job) {
    const collider_cfg *c = &((collider_state *)job->prob->state)->cfg;
    const co_device_info *info = &job->dev->info;
    const bool gpu = info->type != CO_DEVICE_CPU;
    const double pairs = (double)c->n * c->n * c->steps;
    const double limit = gpu ? BRUTE_DEVICE_MAX : BRUTE_HOST_MAX;
    const double cores =
        co_device_on(job->dev) == CO_ON_C || !info->compute_units ? 1 : info->compute_units;
    const double hours = pairs / (gpu ? BRUTE_GPU_RATE : BRUTE_CORE_RATE * cores) / 3600;
    if (pairs > limit)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "collider: %s over %d balls x %d steps is %.2g pair "
                       "tests a run (over %.0g on a %s; about %.2g h a run); use the grid variant",
                       job->var->name, c->n, c->steps, pairs, limit, gpu ? "GPU" : "CPU", hours);
    return CO_OK;
}

/* After each host step: a frame every K steps, and the progress. */
static bool host_step(void *ctx, const float *state, int step) {
    co_job *job = ctx;
    collider_state *s = job->prob->state;
    if ((s->frames || s->gif) && step % s->every == 0) frame(s, state, step);
    return co_job_progress(job, "step", step, s->cfg.steps);
}

static co_status run_host(co_job *job, bool grid, bool par) {
    collider_state *s = job->prob->state;
    co_status st = grid ? CO_OK : brute_allowed(job);
    if (!st) st = frames_begin(s);
    if (st) return st;
    if (!host_simulate(&s->cfg, s->in, s->props, s->out, s->tmp, s->grid, grid, par, host_step,
                       job))
        return co_job_stopped(job);
    return s->frame_status;
}

static co_status run_c(co_job *job) { return run_host(job, false, false); }
static co_status run_c_grid(co_job *job) { return run_host(job, true, false); }
static co_status run_omp(co_job *job) { return run_host(job, false, true); }
static co_status run_omp_grid(co_job *job) { return run_host(job, true, true); }

/* Device variants: the kernels of one step, launched in order. */
typedef struct dev_kernels {
    co_kernel *brute, *clear, *bin, *scan, *scan_add, *scatter, *grid, *copy;
} dev_kernels;

static co_status launch1(co_job *job, co_kernel *k, size_t items, size_t local, size_t local_mem,
                         size_t nargs, const co_arg *args) {
    const size_t g[3] = {items ? items : 1, 1, 1}, l[3] = {local, 1, 1};
    return co_job_launch(job, k, 1, g, l, local_mem, nargs, args);
}

/* The device scan of the cell counts, in place: up through the levels of
 * block sums, then the sums added back down. */
static co_status dev_scan(co_job *job, const dev_kernels *k, co_buf *grid, size_t wg) {
    const collider_state *s = job->prob->state;
    co_status st = CO_OK;
    for (int l = 0; !st && l + 1 < s->nlevels; l++) {
        const co_arg a[] = {CO_INT(s->lev_len[l]), CO_BUF(grid), CO_INT(s->lev_off[l]),
                            CO_INT(s->lev_off[l + 1])};
        st = launch1(job, k->scan, (size_t)s->lev_len[l + 1] * 256, 256,
                     (SCAN_BLOCK_HOST + 256) * sizeof(int), 4, a);
    }
    for (int l = s->nlevels - 2; !st && l >= 1; l--) { /* level l into level l - 1 */
        const co_arg a[] = {CO_INT(s->lev_len[l - 1]), CO_BUF(grid), CO_INT(s->lev_off[l - 1]),
                            CO_INT(s->lev_off[l])};
        st = launch1(job, k->scan_add, (size_t)s->lev_len[l - 1], wg, 0, 4, a);
    }
    return st;
}

static co_status dev_step(co_job *job, const dev_kernels *k, co_buf *src, co_buf *dst, bool grid) {
    const collider_state *s = job->prob->state;
    const collider_cfg *c = &s->cfg;
    co_array *arr = job->prob->arrays;
    const size_t n = (size_t)c->n, wg = (size_t)co_job_param(job, "WG");
    const co_arg common[] = {CO_INT(c->n), CO_FLOAT(c->w), CO_FLOAT(c->h), CO_FLOAT(c->dt),
                             CO_INT(c->periodic)};
    if (!grid) {
        const size_t split = (size_t)co_job_param(job, "SPLIT");
        const co_arg a[] = {common[0],
                            common[1],
                            common[2],
                            common[3],
                            common[4],
                            CO_BUF(src),
                            CO_BUF(arr[A_PROPS].buf),
                            CO_BUF(dst)};
        return launch1(job, k->brute, (n + wg / split - 1) / (wg / split) * wg, wg,
                       BRUTE_LOCAL_BYTES(wg), 8, a);
    }
    co_buf *cell = arr[A_CELL].buf, *rank = arr[A_RANK].buf, *sorted = arr[A_SORTED].buf;
    co_buf *g = arr[A_GRID].buf;
    const co_arg clear[] = {CO_INT(s->lev_len[0]), CO_BUF(g)};
    const co_arg bin[] = {common[0],   common[1],    common[2],    CO_INT(c->ncx), CO_INT(c->ncy),
                          CO_BUF(src), CO_BUF(cell), CO_BUF(rank), CO_BUF(g)};
    co_buf *gathered = arr[A_TMP].buf;
    const co_arg scatter[] = {common[0],      CO_BUF(cell),    CO_BUF(rank),
                              CO_BUF(g),      CO_BUF(src),     CO_BUF(arr[A_PROPS].buf),
                              CO_BUF(sorted), CO_BUF(gathered)};
    const co_arg coll[] = {common[0], common[1],      common[2],      common[3],
                           common[4], CO_INT(c->ncx), CO_INT(c->ncy), CO_BUF(gathered),
                           CO_BUF(g), CO_BUF(sorted), CO_BUF(dst)};
    co_status st = launch1(job, k->clear, (size_t)s->lev_len[0], wg, 0, 2, clear);
    if (!st) st = launch1(job, k->bin, n, wg, 0, 9, bin);
    if (!st) st = dev_scan(job, k, g, wg);
    if (!st) st = launch1(job, k->scatter, n, wg, 0, 8, scatter);
    if (!st) st = launch1(job, k->grid, n, wg, 0, 11, coll);
    return st;
}

static co_status run_device(co_job *job, bool grid) {
    collider_state *s = job->prob->state;
    const collider_cfg *c = &s->cfg;
    co_array *arr = job->prob->arrays;
    const long wg = co_job_param(job, "WG"), split = grid ? 1 : co_job_param(job, "SPLIT");
    if (job->local[0] && (long)job->local[0] != wg)
        return co_fail(CO_ERR_INVALID,
                       "collider/%s takes its work-group size from WG (%ld): "
                       "use --param WG=..., not --local",
                       job->var->name, wg);
    if (split > wg)
        return co_fail(CO_ERR_INVALID, "collider/brute needs SPLIT <= WG (SPLIT=%ld, WG=%ld)",
                       split, wg);
    const size_t l[3] = {(size_t)wg, 1, 1}, scan_l[3] = {256, 1, 1};
    co_status st = grid ? co_job_check(job, 1, scan_l, (SCAN_BLOCK_HOST + 256) * sizeof(int))
                        : brute_allowed(job);
    if (!st) st = co_job_check(job, 1, l, grid ? 0 : BRUTE_LOCAL_BYTES((size_t)wg));
    if (!st) st = frames_begin(s);
    if (st) return st;
    char defines[256];
    co_job_defines(job, NULL, defines, sizeof defines);
    dev_kernels k = {0};
    st = co_job_kernel(job, "collider", "collider_copy", defines, &k.copy);
    if (!st && !grid) st = co_job_kernel(job, "collider", "collider_brute", defines, &k.brute);
    if (!st && grid) {
        static const char *const names[] = {"collider_clear",   "collider_bin",
                                            "collider_scan",    "collider_scan_add",
                                            "collider_scatter", "collider_grid"};
        co_kernel **slots[] = {&k.clear, &k.bin, &k.scan, &k.scan_add, &k.scatter, &k.grid};
        for (size_t i = 0; !st && i < 6; i++)
            st = co_job_kernel(job, "collider", names[i], defines, slots[i]);
    }
    if (st) return st;
    co_buf *in = arr[A_IN].buf, *out = arr[A_OUT].buf, *tmp = arr[A_TMP].buf;
    if (c->steps == 0) {
        const co_arg a[] = {CO_INT(4 * c->n), CO_BUF(in), CO_BUF(out)};
        return launch1(job, k.copy, 4 * (size_t)c->n, (size_t)wg, 0, 3, a);
    }
    co_buf *src = in;
    for (int step = 0; !st && step < c->steps; step++) {
        /* brute force double-buffers; the grid gathers the old state first */
        co_buf *dst = grid || (c->steps - 1 - step) % 2 == 0 ? out : tmp;
        st = dev_step(job, &k, src, dst, grid);
        if (!st && (s->frames || s->gif) && (step + 1) % s->every == 0) {
            /* Frames cost a download each: such a run's times include them. */
            st = job->dev->backend->download(job->dev, s->tmp, dst, arr[A_OUT].bytes);
            if (!st) frame(s, s->tmp, step + 1);
            if (!st) st = s->frame_status;
        }
        if (!st && co_job_progress(job, "step", step + 1, c->steps)) st = co_job_stopped(job);
        src = dst;
    }
    return st;
}

static co_status run_brute(co_job *job) { return run_device(job, false); }
static co_status run_grid(co_job *job) { return run_device(job, true); }

/* GPU defaults: the best of those measured on the H200 (20,000 balls). */
static const co_param_def brute_params[] = {
    {"WG", 64, 1, 1024, true, "work-items per group = balls staged per tile", 512},
    {"SPLIT", 1, 1, 64, true, "work-items per ball, each summing every SPLIT-th ball", 16},
};
static const co_param_def grid_params[] = {
    {"WG", 64, 1, 1024, true, "work-items per group", 256},
};

static const co_variant variants[] = {
    {.name = "c", .summary = "brute force O(N^2), one core", .on = CO_ON_C, .run = run_c},
    {.name = "c-grid",
     .summary = "uniform-grid broad phase, one core",
     .on = CO_ON_C,
     .run = run_c_grid},
    {.name = "omp", .summary = "brute force O(N^2), all cores", .on = CO_ON_OMP, .run = run_omp},
    {.name = "omp-grid",
     .summary = "uniform-grid broad phase, all cores",
     .on = CO_ON_OMP,
     .run = run_omp_grid},
    {.name = "brute",
     .summary = "seed 000's O(N^2) kernel, SPLIT work-items per ball",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(brute_params),
     .run = run_brute,
     .test_params = "WG=32 SPLIT=4;WG=128 SPLIT=8"},
    {.name = "grid",
     .summary = "grid: atomic count, scan, scatter, 3x3 neighbour cells",
     .on = CO_ON_DEVICE | CO_ON_GLSL,
     CO_PARAMS(grid_params),
     .run = run_grid,
     .test_params = "WG=32"},
};

const co_workload co_workload_collider = {
    .name = "collider",
    .summary = "2D balls colliding elastically in a box (seed 000's collider)",
    CO_OPTIONS(options),
    CO_VARIANTS(variants),
    .defaults = {"c-grid", "omp-grid", "grid", "grid", "grid"},
    /* Seed 000's case (its box is not given: 800 x 600 assumed), and a
     * million balls at the same density of area, on GPUs; CPUs take a
     * quarter of the seed's case (its brute force ~0.5 s a run on one core;
     * the seed's took 8 s and 14 s on PoCL, a million balls ~15 h). */
    .bench_sets = "balls=5000 radius=0.5 width=400 height=300 steps=10",
    .bench_sets_gpu = "balls=5000 radius=0.5 width=400 height=300 steps=10;"
                      "balls=20000 radius=0.5 width=800 height=600 steps=10;"
                      "balls=1000000 radius=0.5 width=5657 height=4243 steps=10",
    .quick_sets = "balls=2000 radius=0.5 width=253 height=190 steps=10",
    .test_sets = "balls=1 width=5 height=5;balls=7 width=6 height=5 steps=3;"
                 "balls=333 radius=0.3 radius-max=0.9 width=50 height=40 dt=0.05 steps=10;"
                 "balls=1000 width=80 height=60 boundary=periodic steps=10;"
                 "balls=257 radius=0.2 width=8 height=8 dt=0.05 steps=6;"
                 "balls=600 width=120 height=100 boundary=periodic steps=300;"
                 "balls=100 steps=0 width=30 height=30",
    .init = init,
    .fill = fill,
    .reference = reference,
    .verify = verify,
    .save = save,
    .destroy = destroy,
};
