/* gemm's problem layout, shared with its anchor variants (src/anchors/). */
#ifndef CO_GEMM_H
#define CO_GEMM_H

#include "core/workload.h"

/* Arrays of a gemm problem, in this order: A (m x k), B (k x n), C (m x n),
 * float32, row-major. */
enum { GEMM_A = 0, GEMM_B = 1, GEMM_C = 2 };

void gemm_dims(const co_problem *p, size_t *m, size_t *n, size_t *k);

/* Anchors (src/anchors/): vendor libraries measured beside our kernels. */
co_status gemm_run_openblas(co_job *job);
co_status gemm_run_clblast(co_job *job);
co_status gemm_run_cublas(co_job *job);
bool gemm_has_openblas(const co_device *dev, const char **why);
bool gemm_has_clblast(const co_device *dev, const char **why);
bool gemm_has_cublas(const co_device *dev, const char **why);

/* The cache-blocked, vectorised host SGEMM behind the `omp` variant:
 * C = A * B, row-major with leading dimensions, all cores through OpenMP. */
void co_sgemm_blocked(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
                      size_t ldb, float *c, size_t ldc);

#endif
