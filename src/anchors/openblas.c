/* Anchor: OpenBLAS SGEMM on all cores, measured beside the omp variant. */
#include "workloads/gemm.h"

#ifdef COALESCE_HAVE_OPENBLAS
#include <cblas.h>

bool gemm_has_openblas(const co_device *dev, const char **why) {
    (void)dev, (void)why;
    return true;
}

co_status gemm_run_openblas(co_job *job) {
    size_t m, n, k;
    gemm_dims(job->prob, &m, &n, &k);
    const co_array *arr = job->prob->arrays;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)n, (blasint)k, 1.0f,
                arr[GEMM_A].host, (blasint)k, arr[GEMM_B].host, (blasint)n, 0.0f, arr[GEMM_C].host,
                (blasint)n);
    return CO_OK;
}
#else
bool gemm_has_openblas(const co_device *dev, const char **why) {
    (void)dev;
    *why = "built without OpenBLAS (install libopenblas-dev and rebuild)";
    return false;
}

co_status gemm_run_openblas(co_job *job) {
    (void)job;
    return co_fail(CO_ERR_UNSUPPORTED, "built without OpenBLAS");
}
#endif
