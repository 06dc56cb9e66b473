/* The 2D ball collider's kernels (kernels/collider.cl, in GLSL): one step
 * of n balls from this step's state (read only) into the next step's
 * arrays, the same physics, arguments and entry points; the physics and
 * the layouts are explained there. Device kernels are float.
 *
 * The physics reads the old state through two macros each entry defines:
 * ST(k), word k of the state (x, y, vx, vy: 4n), and PR(k), word k of the
 * properties (radius, mass: 2n), since GLSL passes no buffers to functions.
 * Grid entries read both from the gathered balls (g: 6n, properties at 4n). */
#ifndef SPLIT
#define SPLIT 4
#endif
#ifndef WG
#define WG 128
#endif
#ifndef SCAN_WG
#define SCAN_WG 256
#endif
#define SCAN_ITEMS 8
#define SCAN_BLOCK (SCAN_WG * SCAN_ITEMS)

struct collider_acc {
    float dvx, dvy; /* summed impulses / mass */
    float cx, cy;   /* summed positional corrections */
    float ov;       /* deepest overlap, as a fraction of r_i + r_j */
};

/* Cell of a coordinate: one function for collider_bin and collider_grid, so
 * that both see a ball in the same cell (precise: no fusing in one and not
 * the other). */
int collider_cell_of(float x, float len, int cells) {
    precise float f = x / len * float(cells);
    const int c = int(floor(f));
    return c < 0 ? 0 : (c >= cells ? cells - 1 : c);
}

#if defined(ENTRY_collider_brute) || defined(ENTRY_collider_grid)
#ifdef ENTRY_collider_brute
CO_ARGS uniform Args { int n; float w, h, dt; int periodic; } args;
CO_BUFFER(0, readonly, float, s)
CO_BUFFER(1, readonly, float, pr)
CO_BUFFER(2, writeonly, float, o)
#define ST(k) s[k]
#define PR(k) pr[k]
#else
CO_ARGS uniform Args { int n; float w, h, dt; int periodic, ncx, ncy; } args;
CO_BUFFER(0, readonly, float, g)
CO_BUFFER(1, readonly, int, start)
CO_BUFFER(2, readonly, int, sorted)
CO_BUFFER(3, writeonly, float, o)
#define ST(k) g[k]
#define PR(k) g[4 * args.n + (k)]
#endif

float collider_delta(float d, float len, bool periodic) {
    return periodic ? d - len * floor(d / len + 0.5) : d;
}

/* Ball i (vxi, vyi, mi) touching ball j at offset (dx, dy), squared
 * distance d2 < rr^2: its impulse and correction into acc. */
void collider_touch(int n, int j, float dx, float dy, float d2, float rr, float vxi, float vyi,
                    float mi, inout collider_acc acc) {
    const float d = sqrt(d2), nx = dx / d, ny = dy / d;
    const float mj = PR(n + j), share = mj / (mi + mj);
    const float vn = (vxi - ST(2 * n + j)) * nx + (vyi - ST(3 * n + j)) * ny;
    if (vn < 0.0) {
        const float k = -2.0 * share * vn;
        acc.dvx += k * nx;
        acc.dvy += k * ny;
    }
    const float push = (rr - d) * share;
    acc.cx += push * nx;
    acc.cy += push * ny;
    acc.ov = max(acc.ov, (rr - d) / rr);
}

/* Ball i (its old state xi..mi) against ball j at (xj, yj), radius rj. */
void collider_pair(int n, int j, float xj, float yj, float rj, bool periodic, float xi, float yi,
                   float vxi, float vyi, float ri, float mi, inout collider_acc acc) {
    const float dx = collider_delta(xi - xj, args.w, periodic);
    const float dy = collider_delta(yi - yj, args.h, periodic);
    const float rr = ri + rj, d2 = dx * dx + dy * dy;
    if (d2 < rr * rr && d2 != 0.0) collider_touch(n, j, dx, dy, d2, rr, vxi, vyi, mi, acc);
}

void collider_wall(inout float x, inout float v, float r, float len) {
    if (x < r) {
        x = r + (r - x);
        v = abs(v);
    } else if (x > len - r) {
        x = (len - r) - (x - (len - r));
        v = -abs(v);
    }
    x = min(max(x, r), len - r); /* a correction deeper than the box: clamp */
}

float collider_wrap(float x, float len) {
    x -= len * floor(x / len);
    if (x >= len) x -= len; /* -tiny + len rounds to len */
    return x < 0.0 ? 0.0 : x;
}

/* The summed contacts applied to ball i of the old state, then boundary and
 * motion; written at `at` of o. */
void collider_finish(int n, int i, collider_acc acc, int at) {
    const float r = PR(i);
    float vx = ST(2 * n + i) + acc.dvx, vy = ST(3 * n + i) + acc.dvy;
    float x = ST(i) + acc.cx + vx * args.dt, y = ST(n + i) + acc.cy + vy * args.dt;
    if (args.periodic != 0) {
        x = collider_wrap(x, args.w);
        y = collider_wrap(y, args.h);
    } else {
        collider_wall(x, vx, r, args.w);
        collider_wall(y, vy, r, args.h);
    }
    o[at] = x;
    o[n + at] = y;
    o[2 * n + at] = vx;
    o[3 * n + at] = vy;
}

const collider_acc collider_zero = collider_acc(0.0, 0.0, 0.0, 0.0, 0.0);
#endif

#if defined(ENTRY_collider_brute)
/* SPLIT invocations per ball in groups of WG (the launch's size), the
 * group staging WG balls at a time as vec4 (x, y, r) in shared memory;
 * lane l of a ball takes the staged balls l, l + SPLIT, ...; partial sums
 * combined in lane order. Idle invocations of the last group still stage
 * and reach the barriers. */
shared vec4 tile[WG];
shared float part[4][WG];

/* Ball i against the `count` staged balls from ball `base`, this lane's
 * share; `periodic` a constant at each call, so each loop is specialised. */
void collider_tile(int base, int count, int lane, const bool periodic, float xi, float yi,
                   float vxi, float vyi, float ri, float mi, inout collider_acc acc) {
    const int n = args.n;
    for (int k = lane; k < count; k += SPLIT) {
        const vec4 b = tile[k];
        collider_pair(n, base + k, b.x, b.y, b.z, periodic, xi, yi, vxi, vyi, ri, mi, acc);
    }
}

void main() {
    const int n = args.n, lid = int(gl_LocalInvocationID.x), lane = lid % SPLIT;
    const int i = int(gl_WorkGroupID.x) * (WG / SPLIT) + lid / SPLIT;
    collider_acc acc = collider_zero;
    const bool live = i < n;
    const float xi = live ? s[i] : 0.0, yi = live ? s[n + i] : 0.0;
    const float vxi = live ? s[2 * n + i] : 0.0, vyi = live ? s[3 * n + i] : 0.0;
    const float ri = live ? pr[i] : 0.0, mi = live ? pr[n + i] : 0.0;
    for (int base = 0; base < n; base += WG) {
        const int j = base + lid, count = min(WG, n - base);
        barrier(); /* the previous tile is read */
        if (j < n) tile[lid] = vec4(s[j], s[n + j], pr[j], 0.0);
        barrier();
        if (!live) continue;
        if (args.periodic != 0)
            collider_tile(base, count, lane, true, xi, yi, vxi, vyi, ri, mi, acc);
        else
            collider_tile(base, count, lane, false, xi, yi, vxi, vyi, ri, mi, acc);
    }
    part[0][lid] = acc.dvx;
    part[1][lid] = acc.dvy;
    part[2][lid] = acc.cx;
    part[3][lid] = acc.cy;
    barrier();
    if (!live || lane != 0) return;
    for (int k = 1; k < SPLIT; k++) {
        acc.dvx += part[0][lid + k];
        acc.dvy += part[1][lid + k];
        acc.cx += part[2][lid + k];
        acc.cy += part[3][lid + k];
    }
    collider_finish(n, i, acc, i);
}

#elif defined(ENTRY_collider_grid)
/* The first and last neighbour-cell offsets along an axis of `cells`: with
 * wrap-around and fewer than 3 cells, -1 and +1 are one cell (or the cell
 * itself), visited once. */
int collider_lo(int cells, bool periodic) { return periodic && cells < 3 ? 0 : -1; }
int collider_hi(int cells, bool periodic) { return periodic && cells < 3 ? cells - 1 : 1; }

/* One invocation per ball in cell order: the ball at k of g against the
 * balls of its own and the 8 neighbour cells, written at its id. */
void main() {
    const int n = args.n, k = int(gl_GlobalInvocationID.x), ncx = args.ncx, ncy = args.ncy;
    if (k >= n) return;
    const bool periodic = args.periodic != 0;
    collider_acc acc = collider_zero;
    const float xi = g[k], yi = g[n + k], vxi = g[2 * n + k], vyi = g[3 * n + k];
    const float ri = PR(k), mi = PR(n + k);
    const int cx = collider_cell_of(xi, args.w, ncx), cy = collider_cell_of(yi, args.h, ncy);
    for (int oy = collider_lo(ncy, periodic); oy <= collider_hi(ncy, periodic); oy++) {
        int y = cy + oy;
        if (periodic)
            y = (y + ncy) % ncy;
        else if (y < 0 || y >= ncy)
            continue;
        for (int ox = collider_lo(ncx, periodic); ox <= collider_hi(ncx, periodic); ox++) {
            int x = cx + ox;
            if (periodic)
                x = (x + ncx) % ncx;
            else if (x < 0 || x >= ncx)
                continue;
            const int at = y * ncx + x;
            for (int t = start[at]; t < start[at + 1]; t++)
                collider_pair(n, t, g[t], g[n + t], PR(t), periodic, xi, yi, vxi, vyi, ri, mi,
                              acc);
        }
    }
    collider_finish(n, k, acc, sorted[k]);
}

#elif defined(ENTRY_collider_bin)
/* Cell of each ball and its rank in that cell (the order atomicAdd hands
 * out); count[] is zero before. */
CO_ARGS uniform Args { int n; float w, h; int ncx, ncy; } args;
CO_BUFFER(0, readonly, float, s)
CO_BUFFER(1, writeonly, int, cell)
CO_BUFFER(2, writeonly, int, rank)
CO_BUFFER(3, , int, count)
void main() {
    const int n = args.n, i = int(gl_GlobalInvocationID.x);
    if (i >= n) return;
    const int c = collider_cell_of(s[n + i], args.h, args.ncy) * args.ncx +
                  collider_cell_of(s[i], args.w, args.ncx);
    cell[i] = c;
    rank[i] = atomicAdd(count[c], 1);
}

#elif defined(ENTRY_collider_scatter)
/* The balls in cell order: the id of the ball at k in sorted[k], its x, y,
 * vx, vy, r, m at k of g (6n); start[] is the exclusive scan of the counts. */
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, int, cell)
CO_BUFFER(1, readonly, int, rank)
CO_BUFFER(2, readonly, int, start)
CO_BUFFER(3, readonly, float, s)
CO_BUFFER(4, readonly, float, pr)
CO_BUFFER(5, writeonly, int, sorted)
CO_BUFFER(6, writeonly, float, g)
void main() {
    const int n = args.n, i = int(gl_GlobalInvocationID.x);
    if (i >= n) return;
    const int k = start[cell[i]] + rank[i];
    sorted[k] = i;
    for (int w = 0; w < 4; w++) g[w * n + k] = s[w * n + i];
    g[4 * n + k] = pr[i];
    g[5 * n + k] = pr[n + i];
}

#elif defined(ENTRY_collider_copy)
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
void main() {
    const int i = int(gl_GlobalInvocationID.x);
    if (i < args.n) dst[i] = src[i];
}

#elif defined(ENTRY_collider_clear)
CO_ARGS uniform Args { int n; } args;
CO_BUFFER(0, writeonly, int, data)
void main() {
    const int i = int(gl_GlobalInvocationID.x);
    if (i < args.n) data[i] = 0;
}

#elif defined(ENTRY_collider_scan) || defined(ENTRY_collider_scan_add)
/* Exclusive scan of data[off .. off + n) in blocks of SCAN_BLOCK, in place
 * (groups of SCAN_WG); each block's total to data[sums_off + group],
 * scanned in turn and added back by collider_scan_add. */
CO_ARGS uniform Args { int n, off, sums_off; } args;
CO_BUFFER(0, , int, data)
#ifdef ENTRY_collider_scan
shared int tile[SCAN_BLOCK];
shared int part[SCAN_WG];
void main() {
    const int n = args.n, off = args.off, lid = int(gl_LocalInvocationID.x);
    const int base = int(gl_WorkGroupID.x) * SCAN_BLOCK;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int at = base + k * SCAN_WG + lid;
        tile[k * SCAN_WG + lid] = at < n ? data[off + at] : 0;
    }
    barrier();
    int run = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int v = tile[lid * SCAN_ITEMS + k];
        tile[lid * SCAN_ITEMS + k] = run;
        run += v;
    }
    part[lid] = run;
    barrier();
    for (int d = 1; d < SCAN_WG; d *= 2) { /* Hillis-Steele, inclusive */
        const int t = lid >= d ? part[lid - d] : 0;
        barrier();
        part[lid] += t;
        barrier();
    }
    const int prefix = part[lid] - run;
    for (int k = 0; k < SCAN_ITEMS; k++) tile[lid * SCAN_ITEMS + k] += prefix;
    barrier();
    for (int k = 0; k < SCAN_ITEMS; k++) {
        const int at = base + k * SCAN_WG + lid;
        if (at < n) data[off + at] = tile[k * SCAN_WG + lid];
    }
    if (lid == SCAN_WG - 1) data[args.sums_off + int(gl_WorkGroupID.x)] = part[SCAN_WG - 1];
}
#else
void main() {
    const int i = int(gl_GlobalInvocationID.x);
    if (i < args.n) data[args.off + i] += data[args.sums_off + i / SCAN_BLOCK];
}
#endif
#endif
