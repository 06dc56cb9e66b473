/* The collider workload's pieces shared between its two translation units:
 * collider.c (the workload, float) and collider_ref.c (the reference, the
 * same kernel code compiled in double). */
#ifndef CO_COLLIDER_H
#define CO_COLLIDER_H

#include "core/workload.h"

/* One simulation: n balls in a w x h box, `steps` steps of dt, and the
 * uniform grid of ncx x ncy cells (each at least the largest diameter). */
typedef struct collider_cfg {
    int n, steps, periodic, ncx, ncy;
    double w, h, dt;
} collider_cfg;

/* The reference: cfg->steps steps in double on all cores (grid broad phase)
 * from the float state `in` (4n: x, y, vx, vy) and props (2n: r, m); the
 * final state into out (4n doubles). */
co_status collider_reference(const collider_cfg *cfg, const float *in, const float *props,
                             double *out);
/* Deepest overlap of any pair of a float state, as a fraction of r_i + r_j
 * (0: none), found with the grid in double. */
co_status collider_max_overlap(const collider_cfg *cfg, const float *state, const float *props,
                               double *overlap);

#endif
