/* The 2D ball collider: one step of N balls in a W x H box, from this
 * step's state (read only) into the next step's arrays (write only), one
 * work-item per ball, so no work-item writes what another reads (seed 000's
 * scheme) -- with physics that conserves momentum.
 *
 * State, structure of arrays in one buffer of 4n reals:
 *   s[i] = x, s[n+i] = y, s[2n+i] = vx, s[3n+i] = vy;
 * properties, 2n reals: pr[i] = radius, pr[n+i] = mass.
 *
 * Physics (collider_pair, collider_finish), written once for every device
 * and for the host variants (this file is also #included as host C, in
 * float and, for the reference, in double through CO_REAL):
 *  - each pair in contact (distance < r_i + r_j) that approaches
 *    ((v_i - v_j).n < 0, n the unit normal) gives ball i the elastic impulse
 *    dv_i = -(2 m_j / (m_i + m_j)) ((v_i - v_j).n) n, and ball j the mirror;
 *    all contacts of a ball are summed from the old state, so both sides of
 *    a pair compute the same numbers and momentum is conserved to rounding;
 *  - an overlap d = r_i + r_j - |x_i - x_j| moves ball i by d m_j/(m_i+m_j)
 *    along n and ball j by d m_i/(m_i+m_j) the other way: the centre of mass
 *    stays, the pair separates, nothing sticks;
 *  - boundary: walls (the ball is mirrored back into [r, W - r] and its
 *    normal velocity points inwards) or periodic (wrap-around positions,
 *    minimum-image distances);
 *  - x += v dt with the new velocity.
 * Coincident centres (distance 0) have no normal: such a pair is skipped,
 * which also skips a ball's contact with itself.
 *
 * Kernels: collider_brute1 (one work-item per ball, all others; the host
 * variants), collider_brute (SPLIT work-items per ball); the grid step:
 * collider_clear, collider_bin (cell and atomic rank), collider_scan /
 * collider_scan_add (exclusive scan of the counts), collider_scatter (the
 * balls and their ids in cell order), collider_grid (3 x 3 neighbour cells,
 * result written at the ball's id). */

#ifndef CO_REAL
#define CO_REAL float
#endif
typedef CO_REAL real;

/* Brute force: SPLIT work-items share one ball, each summing the contacts
 * of every SPLIT-th other ball; WG work-items per group. */
#ifndef SPLIT
#define SPLIT 4
#endif
#ifndef WG
#define WG 128
#endif
/* Exclusive scan of the cell counts: SCAN_WG work-items, SCAN_ITEMS each. */
#ifndef SCAN_WG
#define SCAN_WG 256
#endif
#define SCAN_ITEMS 8
#define SCAN_BLOCK (SCAN_WG * SCAN_ITEMS)

typedef struct collider_acc {
    real dvx, dvy; /* summed impulses / mass */
    real cx, cy;   /* summed positional corrections */
    real ov;       /* deepest overlap, as a fraction of r_i + r_j */
} collider_acc;

/* A coordinate difference under the boundary: the minimum image if periodic. */
CO_INLINE real collider_delta(real d, real len, int periodic) {
    return periodic ? d - len * floor(d / len + (real)0.5) : d;
}

/* Ball i (velocity vxi, vyi, mass mi) touching ball j: offset (dx, dy) =
 * x_i - x_j (the minimum image if periodic), squared distance d2 with
 * 0 < d2 < rr^2, rr = r_i + r_j. Only here are j's velocity and mass read:
 * contacts are rare, the test before needs positions and radii alone. */
CO_INLINE void collider_touch(int n, int j, real dx, real dy, real d2, real rr,
                              __global const real *s, __global const real *pr, real vxi,
                              real vyi, real mi, collider_acc *acc) {
    const real d = sqrt(d2), nx = dx / d, ny = dy / d;
    const real mj = pr[n + j], share = mj / (mi + mj);
    const real vn = (vxi - s[2 * n + j]) * nx + (vyi - s[3 * n + j]) * ny;
    if (vn < (real)0) {
        const real k = (real)-2 * share * vn;
        acc->dvx += k * nx;
        acc->dvy += k * ny;
    }
    const real push = (rr - d) * share;
    acc->cx += push * nx;
    acc->cy += push * ny;
    acc->ov = fmax(acc->ov, (rr - d) / rr);
}

/* Ball i (its old state in xi..mi) against ball j: add a contact to acc. */
CO_INLINE void collider_pair(int n, int j, real w, real h, int periodic,
                             __global const real *s, __global const real *pr, real xi,
                             real yi, real vxi, real vyi, real ri, real mi, collider_acc *acc) {
    const real dx = collider_delta(xi - s[j], w, periodic);
    const real dy = collider_delta(yi - s[n + j], h, periodic);
    const real rr = ri + pr[j];
    const real d2 = dx * dx + dy * dy;
    if (d2 < rr * rr && d2 != (real)0)
        collider_touch(n, j, dx, dy, d2, rr, s, pr, vxi, vyi, mi, acc);
}

/* Wall at 0 and len: mirror a ball that crossed back inside, velocity inwards. */
CO_INLINE void collider_wall(real *x, real *v, real r, real len) {
    if (*x < r) {
        *x = r + (r - *x);
        *v = fabs(*v);
    } else if (*x > len - r) {
        *x = (len - r) - (*x - (len - r));
        *v = -fabs(*v);
    }
    *x = fmin(fmax(*x, r), len - r); /* a correction deeper than the box: clamp */
}

CO_INLINE real collider_wrap(real x, real len) {
    x -= len * floor(x / len);
    if (x >= len) x -= len; /* -tiny + len rounds to len */
    return x < (real)0 ? (real)0 : x;
}

/* Apply the summed contacts to the ball at i of s, then boundary and
 * motion; write it at `at` of o (its id). */
CO_INLINE void collider_finish(int n, int i, real w, real h, real dt, int periodic,
                               __global const real *s, __global const real *pr,
                               collider_acc acc, __global real *o, int at) {
    const real r = pr[i];
    real vx = s[2 * n + i] + acc.dvx, vy = s[3 * n + i] + acc.dvy;
    real x = s[i] + acc.cx + vx * dt, y = s[n + i] + acc.cy + vy * dt;
    if (periodic) {
        x = collider_wrap(x, w);
        y = collider_wrap(y, h);
    } else {
        collider_wall(&x, &vx, r, w);
        collider_wall(&y, &vy, r, h);
    }
    o[at] = x;
    o[n + at] = y;
    o[2 * n + at] = vx;
    o[3 * n + at] = vy;
}

CO_INLINE collider_acc collider_zero(void) {
    collider_acc a;
    a.dvx = a.dvy = a.cx = a.cy = a.ov = (real)0;
    return a;
}

/* One work-item per ball against every other ball: the host variants and
 * any device. */
__kernel void collider_brute1(const int n, const real w, const real h, const real dt,
                              const int periodic, __global const real *CO_RESTRICT s,
                              __global const real *CO_RESTRICT pr, __global real *CO_RESTRICT o) {
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    collider_acc acc = collider_zero();
    const real xi = s[i], yi = s[n + i], vxi = s[2 * n + i], vyi = s[3 * n + i];
    for (int j = 0; j < n; j++)
        collider_pair(n, j, w, h, periodic, s, pr, xi, yi, vxi, vyi, pr[i], pr[n + i], &acc);
    collider_finish(n, i, w, h, dt, periodic, s, pr, acc, o, i);
}

/* ---- the uniform grid: cells at least the largest diameter wide ---- */

CO_INLINE int collider_cell_of(real x, real len, int cells) {
    const int c = (int)floor(x / len * (real)cells);
    return c < 0 ? 0 : (c >= cells ? cells - 1 : c);
}

/* Cell of each ball, and its rank among the balls of that cell (the order
 * the atomic counter hands out). count[] must be zero before. */
__kernel void collider_bin(const int n, const real w, const real h, const int ncx,
                           const int ncy, __global const real *CO_RESTRICT s,
                           __global int *CO_RESTRICT cell, __global int *CO_RESTRICT rank,
                           __global int *CO_RESTRICT count) {
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const int c = collider_cell_of(s[n + i], h, ncy) * ncx + collider_cell_of(s[i], w, ncx);
    cell[i] = c;
    rank[i] = atomic_inc(&count[c]);
}

/* The balls in cell order (start[] is the exclusive scan of the counts):
 * the id of the ball at k in sorted[k], and in g its x, y, vx, vy, r, m
 * (6n) at k, so that the balls of a cell, and of a row of cells, are
 * contiguous for collider_grid. */
__kernel void collider_scatter(const int n, __global const int *CO_RESTRICT cell,
                               __global const int *CO_RESTRICT rank,
                               __global const int *CO_RESTRICT start,
                               __global const real *CO_RESTRICT s,
                               __global const real *CO_RESTRICT pr,
                               __global int *CO_RESTRICT sorted, __global real *CO_RESTRICT g) {
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    const int k = start[cell[i]] + rank[i];
    sorted[k] = i;
    g[k] = s[i];
    g[n + k] = s[n + i];
    g[2 * n + k] = s[2 * n + i];
    g[3 * n + k] = s[3 * n + i];
    g[4 * n + k] = pr[i];
    g[5 * n + k] = pr[n + i];
}

/* The first and last neighbour-cell offsets along an axis of `cells`: with
 * wrap-around and fewer than 3 cells, -1 and +1 are the same cell (or the
 * cell itself), so each cell is visited once. */
CO_INLINE int collider_lo(int cells, int periodic) { return periodic && cells < 3 ? 0 : -1; }
CO_INLINE int collider_hi(int cells, int periodic) { return periodic && cells < 3 ? cells - 1 : 1; }

/* The contacts of the ball at k of the gathered balls g from the balls of
 * its own and the 8 neighbour cells (its cell recomputed from the same
 * position with the same formula as collider_bin's). */
CO_INLINE collider_acc collider_grid_contacts(int n, int k, real w, real h, int periodic,
                                              int ncx, int ncy, __global const real *g,
                                              __global const int *start) {
    collider_acc acc = collider_zero();
    __global const real *pr = g + 4 * n;
    const real xi = g[k], yi = g[n + k], vxi = g[2 * n + k], vyi = g[3 * n + k];
    const real ri = pr[k], mi = pr[n + k];
    const int cx = collider_cell_of(xi, w, ncx), cy = collider_cell_of(yi, h, ncy);
    for (int oy = collider_lo(ncy, periodic); oy <= collider_hi(ncy, periodic); oy++) {
        int y = cy + oy;
        if (periodic) y = (y + ncy) % ncy;
        else if (y < 0 || y >= ncy) continue;
        for (int ox = collider_lo(ncx, periodic); ox <= collider_hi(ncx, periodic); ox++) {
            int x = cx + ox;
            if (periodic) x = (x + ncx) % ncx;
            else if (x < 0 || x >= ncx) continue;
            const int at = y * ncx + x;
            for (int t = start[at]; t < start[at + 1]; t++)
                collider_pair(n, t, w, h, periodic, g, pr, xi, yi, vxi, vyi, ri, mi, &acc);
        }
    }
    return acc;
}

/* One work-item per ball, in cell order (neighbouring work-items read the
 * same cells, contiguous); each writes its ball at its id. o may be the
 * state g was gathered from: g is the old state. */
__kernel void collider_grid(const int n, const real w, const real h, const real dt,
                            const int periodic, const int ncx, const int ncy,
                            __global const real *CO_RESTRICT g,
                            __global const int *CO_RESTRICT start,
                            __global const int *CO_RESTRICT sorted, __global real *CO_RESTRICT o) {
    const int k = (int)get_global_id(0);
    if (k >= n) return;
    const collider_acc acc = collider_grid_contacts(n, k, w, h, periodic, ncx, ncy, g, start);
    collider_finish(n, k, w, h, dt, periodic, g, g + 4 * n, acc, o, sorted[k]);
}

__kernel void collider_copy(const int n, __global const real *CO_RESTRICT src,
                            __global real *CO_RESTRICT dst) {
    const int i = (int)get_global_id(0);
    if (i < n) dst[i] = src[i];
}

__kernel void collider_clear(const int n, __global int *CO_RESTRICT data) {
    const int i = (int)get_global_id(0);
    if (i < n) data[i] = 0;
}

#ifndef CO_HOST
/* Ball i against the `count` balls staged in tile (ball base + k at k):
 * lane takes k = lane, lane + SPLIT, ... Called with a literal `periodic`,
 * so each boundary gets its own loop with no minimum-image code for walls. */
CO_INLINE void collider_tile(CO_LOCAL_PTR const float4 *tile, int base, int count, int lane, int n,
                             real w, real h, const int periodic, __global const real *s,
                             __global const real *pr, real xi, real yi, real vxi, real vyi,
                             real ri, real mi, collider_acc *acc) {
    const bool full = count == WG;
#pragma unroll 4
    for (int q = 0; q < WG / SPLIT; q++) {
        const int k = lane + q * SPLIT;
        if (!full && k >= count) break;
        const float4 b = tile[k];
        const real dx = collider_delta(xi - b.x, w, periodic);
        const real dy = collider_delta(yi - b.y, h, periodic);
        const real rr = ri + b.z, d2 = dx * dx + dy * dy;
        if (d2 < rr * rr && d2 != (real)0)
            collider_touch(n, base + k, dx, dy, d2, rr, s, pr, vxi, vyi, mi, acc);
    }
}

/* Brute force on a device: SPLIT work-items per ball, partial sums combined
 * in a fixed order in local memory. The group stages the positions and
 * radii of WG balls at a time in local memory (one 16-byte read per pair
 * instead of three global loads); lane l of a ball takes the staged balls
 * l, l + SPLIT, ..., so each lane sums the same balls in the same order as
 * a plain loop over every SPLIT-th ball. Any n: the idle work-items of the
 * last group still stage and reach the barriers. Device kernels are float. */
__kernel void collider_brute(const int n, const real w, const real h, const real dt,
                             const int periodic, __global const real *CO_RESTRICT s,
                             __global const real *CO_RESTRICT pr, __global real *CO_RESTRICT o) {
    __local float4 tile[WG];
    __local real part[4][WG];
    const int lid = (int)get_local_id(0), lane = lid % SPLIT;
    const int i = (int)get_group_id(0) * (WG / SPLIT) + lid / SPLIT;
    collider_acc acc = collider_zero();
    const bool live = i < n;
    const real xi = live ? s[i] : 0, yi = live ? s[n + i] : 0;
    const real vxi = live ? s[2 * n + i] : 0, vyi = live ? s[3 * n + i] : 0;
    const real ri = live ? pr[i] : 0, mi = live ? pr[n + i] : 0;
    for (int base = 0; base < n; base += WG) {
        const int j = base + lid, count = min(WG, n - base);
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is read */
        if (j < n) tile[lid] = CO_FLOAT4(s[j], s[n + j], pr[j], 0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!live) continue;
        if (periodic)
            collider_tile(tile, base, count, lane, n, w, h, 1, s, pr, xi, yi, vxi, vyi, ri, mi, &acc);
        else
            collider_tile(tile, base, count, lane, n, w, h, 0, s, pr, xi, yi, vxi, vyi, ri, mi, &acc);
    }
    part[0][lid] = acc.dvx;
    part[1][lid] = acc.dvy;
    part[2][lid] = acc.cx;
    part[3][lid] = acc.cy;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!live || lane) return;
    for (int k = 1; k < SPLIT; k++) {
        acc.dvx += part[0][lid + k];
        acc.dvy += part[1][lid + k];
        acc.cx += part[2][lid + k];
        acc.cy += part[3][lid + k];
    }
    collider_finish(n, i, w, h, dt, periodic, s, pr, acc, o, i);
}

/* Exclusive scan of data[0..n) in blocks of SCAN_BLOCK, in place; the total
 * of each block goes to sums[group] (scanned in turn, then added back by
 * collider_scan_add). Offsets let all levels live in one buffer. */
__kernel void collider_scan(const int n, __global int *data, const int off,
                            const int sums_off) {
    __local int tile[SCAN_BLOCK];
    __local int part[SCAN_WG];
    const int lid = (int)get_local_id(0), base = (int)get_group_id(0) * SCAN_BLOCK;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int at = base + k * SCAN_WG + lid;
        tile[k * SCAN_WG + lid] = at < n ? data[off + at] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int run = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int v = tile[lid * SCAN_ITEMS + k];
        tile[lid * SCAN_ITEMS + k] = run;
        run += v;
    }
    part[lid] = run;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < SCAN_WG; d *= 2) { /* Hillis-Steele, inclusive */
        const int t = lid >= d ? part[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int prefix = part[lid] - run;
    for (int k = 0; k < SCAN_ITEMS; k++) tile[lid * SCAN_ITEMS + k] += prefix;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int at = base + k * SCAN_WG + lid;
        if (at < n) data[off + at] = tile[k * SCAN_WG + lid];
    }
    if (lid == SCAN_WG - 1) data[sums_off + (int)get_group_id(0)] = part[SCAN_WG - 1];
}

__kernel void collider_scan_add(const int n, __global int *data, const int off,
                                const int sums_off) {
    const int i = (int)get_global_id(0);
    if (i < n) data[off + i] += data[sums_off + i / SCAN_BLOCK];
}
#endif
