/* The cuBLAS anchor for gemm: NVIDIA's SGEMM measured beside our kernels
 * on the same device, stream and events. libcublas is opened with dlopen
 * like the driver, so a machine without it only loses this variant. Full
 * FP32 math: TF32 tensor cores stay off (CUBLAS_DEFAULT_MATH), so the
 * comparison with our FP32 kernels is fair. */
#include "workloads/gemm.h"

#ifdef COALESCE_HAVE_CUBLAS
#include <cublas_v2.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/cuda/cuda_access.h"

/* X(field, symbol, parameters); every entry returns cublasStatus_t. */
#define BLAS_FUNCS(X)                                                                              \
    X(Create, "cublasCreate_v2", (cublasHandle_t *))                                               \
    X(Destroy, "cublasDestroy_v2", (cublasHandle_t))                                               \
    X(SetStream, "cublasSetStream_v2", (cublasHandle_t, cudaStream_t))                             \
    X(SetMathMode, "cublasSetMathMode", (cublasHandle_t, cublasMath_t))                            \
    X(Sgemm, "cublasSgemm_v2",                                                                     \
      (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,         \
       const float *, int, const float *, int, const float *, float *, int))

#define FIELD(field, sym, params) cublasStatus_t(*field) params;
static struct { BLAS_FUNCS(FIELD) } blas;
#undef FIELD

static bool blas_tried;
static void *blas_lib;
static char blas_why[256];

/* Opened once and kept open, like the driver (not thread-safe: the first
 * call comes from the runner's single thread). */
static bool blas_open(void) {
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    if (blas_tried) return blas_lib != NULL;
    blas_tried = true;
    void *lib = co_cuda_dlopen(names);
    if (!lib) {
        snprintf(blas_why, sizeof blas_why, "%s not found (no cuBLAS installed)", names[0]);
        return false;
    }
#define RESOLVE(field, sym, params)                                                                \
    if (!(blas.field = (cublasStatus_t(*) params)co_cuda_dlsym(lib, sym))) {                       \
        snprintf(blas_why, sizeof blas_why, "libcublas lacks %s (too old)", sym);                  \
        dlclose(lib);                                                                              \
        return false;                                                                              \
    }
    BLAS_FUNCS(RESOLVE)
#undef RESOLVE
    blas_lib = lib;
    return true;
}

static const char *status_name(cublasStatus_t s) {
    switch (s) {
// clang-format off
#define S(x) case x: return #x;
        S(CUBLAS_STATUS_SUCCESS) S(CUBLAS_STATUS_NOT_INITIALIZED) S(CUBLAS_STATUS_ALLOC_FAILED)
        S(CUBLAS_STATUS_INVALID_VALUE) S(CUBLAS_STATUS_ARCH_MISMATCH)
        S(CUBLAS_STATUS_MAPPING_ERROR) S(CUBLAS_STATUS_EXECUTION_FAILED)
        S(CUBLAS_STATUS_INTERNAL_ERROR) S(CUBLAS_STATUS_NOT_SUPPORTED)
        S(CUBLAS_STATUS_LICENSE_ERROR)
#undef S
        default: break; /* a status newer than this file */
        // clang-format on
    }
    return "unknown cuBLAS status";
}

/* Every cuBLAS call goes through BLAS(): one line naming the call. */
static co_status blas_check(const char *call, cublasStatus_t s) {
    if (s == CUBLAS_STATUS_SUCCESS) return CO_OK;
    return co_fail(CO_ERR_DEVICE, "cuBLAS: %s failed: %s (%d)", call, status_name(s), (int)s);
}
#define BLAS(fn, args) blas_check("cublas" #fn, blas.fn args)

static void handle_destroy(void *handle) { blas.Destroy(handle); }

/* The device's handle, made on the first call (the runner's warm-up run,
 * so never inside a timed one) and destroyed with the device. */
static co_status device_handle(co_device *dev, cublasHandle_t *out) {
    if ((*out = co_cuda_anchor(dev))) return CO_OK;
    cublasHandle_t h = NULL;
    co_status st = co_cuda_make_current(dev);
    if (!st) st = BLAS(Create, (&h));
    if (!st) st = BLAS(SetStream, (h, co_cuda_stream(dev)));
    if (!st) st = BLAS(SetMathMode, (h, CUBLAS_DEFAULT_MATH));
    if (st) {
        if (h) blas.Destroy(h);
        return st;
    }
    co_cuda_set_anchor(dev, h, handle_destroy);
    *out = h;
    return CO_OK;
}

bool gemm_has_cublas(const co_device *dev, const char **why) {
    if (!co_cuda_is_device(dev)) {
        if (why) *why = "cuBLAS runs on CUDA devices only";
        return false;
    }
    if (!blas_open()) {
        if (why) *why = blas_why;
        return false;
    }
    if (why) *why = "";
    return true;
}

static const float *dev_floats(const co_buf *buf) {
    return (const float *)(uintptr_t)co_cuda_ptr(buf);
}

co_status gemm_run_cublas(co_job *job) {
    const char *why;
    if (!gemm_has_cublas(job->dev, &why)) return co_fail(CO_ERR_UNSUPPORTED, "%s", why);
    size_t m, n, k;
    gemm_dims(job->prob, &m, &n, &k);
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
        return co_fail(CO_ERR_LIMIT, "cuBLAS takes sizes up to %d, asked %zu x %zu x %zu", INT_MAX,
                       m, n, k);
    cublasHandle_t h;
    co_status st = device_handle(job->dev, &h);
    if (!st) st = co_cuda_make_current(job->dev);
    if (st) return st;

    /* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B (n x k,
     * ld n) first, then A (k x m, ld k), and writes C^T (n x m, ld n). */
    const float alpha = 1.0f, beta = 0.0f;
    const int M = (int)m, N = (int)n, K = (int)k;
    const float *a = dev_floats(job->prob->arrays[GEMM_A].buf);
    const float *b = dev_floats(job->prob->arrays[GEMM_B].buf);
    float *c = (float *)(uintptr_t)co_cuda_ptr(job->prob->arrays[GEMM_C].buf);
    double ms = 0;
    if ((st = co_cuda_timer_start(job->dev))) return st;
    if ((st = BLAS(Sgemm, (h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta, c, N))))
        return st;
    if ((st = co_cuda_timer_stop(job->dev, &ms))) return st;
    co_job_add_time(job, ms);
    return CO_OK;
}

#else /* no CUDA headers in this build */

#define NO_HEADERS "built without the CUDA headers (cublas_v2.h)"

bool gemm_has_cublas(const co_device *dev, const char **why) {
    (void)dev;
    if (why) *why = NO_HEADERS;
    return false;
}

co_status gemm_run_cublas(co_job *job) {
    (void)job;
    return co_fail(CO_ERR_UNSUPPORTED, "cuBLAS: " NO_HEADERS);
}

#endif
