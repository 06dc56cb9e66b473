/* Anchor: OpenBLAS SGEMM on all cores, measured beside the omp variant.
 * The library linked at build time (Debian's libopenblas), or the one that
 * COALESCE_OPENBLAS names (a path, opened with dlopen): the newest OpenBLAS
 * comes as PyPI's scipy-openblas32 wheel, whose libscipy_openblas.so
 * prefixes its symbols (scipy_cblas_sgemm), so the prefix is found by
 * trying each known one. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/gemm.h"

#ifdef COALESCE_HAVE_OPENBLAS
#include <cblas.h>
#endif

/* cblas_sgemm with 32-bit integers; the layout and transposes as CBLAS numbers them. */
typedef void (*sgemm_fn)(int layout, int transa, int transb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc);
enum { ROW_MAJOR = 101, NO_TRANS = 111 };

static bool env_tried;
static sgemm_fn env_sgemm;
static char env_why[512];

/* The library of COALESCE_OPENBLAS, opened once and kept open (the first
 * call comes from the runner's single thread). NULL with *why set when it
 * is named but cannot be used; NULL with *why NULL when none is named. */
static sgemm_fn env_library(const char **why) {
    const char *path = getenv("COALESCE_OPENBLAS");
    *why = NULL;
    if (!path || !*path) return NULL;
    if (!env_tried) {
        env_tried = true;
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            snprintf(env_why, sizeof env_why, "COALESCE_OPENBLAS=%s cannot be opened: %s", path,
                     dlerror());
        } else {
            static const char *const prefixes[] = {"", "scipy_"};
            for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !env_sgemm; i++) {
                char name[64];
                snprintf(name, sizeof name, "%scblas_sgemm", prefixes[i]);
                void *p = dlsym(lib, name);
                _Static_assert(sizeof env_sgemm == sizeof p, "function and data pointers differ");
                memcpy(&env_sgemm, &p, sizeof p);
            }
            if (!env_sgemm) {
                snprintf(env_why, sizeof env_why,
                         "COALESCE_OPENBLAS=%s has neither cblas_sgemm nor scipy_cblas_sgemm",
                         path);
                dlclose(lib);
            }
        }
    }
    if (!env_sgemm) *why = env_why;
    return env_sgemm;
}

bool gemm_has_openblas(const co_device *dev, const char **why) {
    (void)dev;
    const char *env_error;
    if (env_library(&env_error)) return true;
    if (env_error) {
        *why = env_error;
        return false;
    }
#ifdef COALESCE_HAVE_OPENBLAS
    return true;
#else
    *why = "built without OpenBLAS (install libopenblas-dev and rebuild, or name a library "
           "with COALESCE_OPENBLAS=/path/libopenblas.so)";
    return false;
#endif
}

co_status gemm_run_openblas(co_job *job) {
    size_t m, n, k;
    gemm_dims(job->prob, &m, &n, &k);
    const co_array *arr = job->prob->arrays;
    const char *env_error;
    sgemm_fn sgemm = env_library(&env_error);
    if (sgemm) {
        sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)m, (int)n, (int)k, 1.0f, arr[GEMM_A].host, (int)k,
              arr[GEMM_B].host, (int)n, 0.0f, arr[GEMM_C].host, (int)n);
        return CO_OK;
    }
    if (env_error) return co_fail(CO_ERR_UNSUPPORTED, "%s", env_error);
#ifdef COALESCE_HAVE_OPENBLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)n, (blasint)k, 1.0f,
                arr[GEMM_A].host, (blasint)k, arr[GEMM_B].host, (blasint)n, 0.0f, arr[GEMM_C].host,
                (blasint)n);
    return CO_OK;
#else
    return co_fail(CO_ERR_UNSUPPORTED, "built without OpenBLAS");
#endif
}
