/* The `cuda` backend of a build without the CUDA headers (cuda.h, nvrtc.h):
 * it is listed, and says why it is unavailable. */
#include "backend/cuda/cuda_access.h"

#define NO_HEADERS "CUDA: built without the CUDA headers (cuda.h, nvrtc.h)"

static co_status probe(co_context *ctx) {
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED, NO_HEADERS);
}

static const co_backend cuda_backend = {.name = "cuda", .probe = probe};

const co_backend *co_backend_cuda(void) { return &cuda_backend; }

const char *co_cuda_spin_source(void) { return ""; }

co_status co_cuda_compile(const char *name, const char *source, const char *defines,
                          const char *arch, void **out, size_t *size) {
    (void)name, (void)source, (void)defines, (void)arch;
    *out = NULL;
    *size = 0;
    return co_fail(CO_ERR_UNSUPPORTED, NO_HEADERS);
}

co_status co_cuda_offline_device(const char *arch, co_device **out) {
    (void)arch;
    *out = NULL;
    return co_fail(CO_ERR_UNSUPPORTED, NO_HEADERS);
}
