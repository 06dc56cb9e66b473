/* A stand-in for an OpenBLAS that COALESCE_OPENBLAS names (tests/test_openblas_env.sh): one
 * cblas_sgemm, row-major, no transposes, alpha 1, beta 0 (what the anchor asks for), under the
 * name FAKE_SGEMM (scipy_cblas_sgemm: the scipy-openblas32 wheel's prefix). FAKE_SCALE 2 makes
 * it wrong on purpose, so a test can tell that it, not the linked OpenBLAS, ran. */
#ifndef FAKE_SGEMM
#define FAKE_SGEMM scipy_cblas_sgemm
#endif
#ifndef FAKE_SCALE
#define FAKE_SCALE 1.0f
#endif

void FAKE_SGEMM(int layout, int transa, int transb, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

void FAKE_SGEMM(int layout, int transa, int transb, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
    if (layout != 101 || transa != 111 || transb != 111 || alpha != 1.0f || beta != 0.0f) return;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += (double)a[i * lda + p] * b[p * ldb + j];
            c[i * ldc + j] = (float)s * FAKE_SCALE;
        }
}
