/* The box filter's problem as its other files see it: the omp variant
 * (boxfilter_omp.c), the reference's closed form it shares, and the NPP
 * anchor (src/anchors/npp.c). */
#ifndef CO_BOXFILTER_H
#define CO_BOXFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/workload.h"

enum { BOX_IN = 0, BOX_OUT = 1 };

/* An image and its window: w x h pixels of ch channels, 8-bit (exact
 * integer sums) or float32; border BF_CLAMP, BF_REFLECT101 or BF_ZERO
 * (kernels/boxfilter_common.cl). */
typedef struct box_problem {
    int w, h, ch, radius, border;
    bool u8;
} box_problem;

void box_describe(const co_problem *p, box_problem *out);

/* How an anchor's results are held (verify): float32 to u (K + 3) max|in|
 * with K its summation's bound (the workload's error model); 8-bit ones
 * rounded to nearest (|out - ref| <= 0.5) or, with u8_any_rounding (a
 * library that does not document its rounding), all of them either that
 * or down (0 <= ref - out < 1), the check saying "full, truncated". */
void box_anchor_model(co_problem *p, double k, bool u8_any_rounding);

/* The window sums of a line of n values (line[i stride]) into out[i
 * ostride], any radius and border, O(n) (pre: a scratch of n + 1). Double:
 * exact for 8-bit data. */
void box_line_windows(const double *line, size_t stride, int n, int r, int border, double *pre,
                      double *out, size_t ostride);

/* The omp variant on host memory (in, out: the problem's arrays): the
 * bound K of the sums it took (the workload's error model, in units of
 * u max|in|), or -1 where its row buffers could not be allocated. */
double box_omp(const box_problem *b, const void *in, void *out);

/* box_quad's division of an RGBA8 window sum plus half the divisor, n <=
 * 255 w + w / 2, by w = (2r+1)^2 (r >= 1), rounded down: true where it is
 * mulhi(n, magic) >> shift (every r <= 1771, most above), else false and
 * Granlund and Montgomery's constants, (t + ((n - t) >> 1)) >> shift with
 * t = mulhi(n, magic). The host passes them to its kernel. */
bool box_quad_divisor(int radius, uint32_t *magic, unsigned *shift);

/* The NPP anchor (src/anchors/npp.c). */
bool box_has_npp(const co_device *dev, const char **why);
co_status box_run_npp(co_job *job);

#endif
