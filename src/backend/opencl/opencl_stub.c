/* The `opencl` backend when the build found no OpenCL headers or loader:
 * listed as unavailable, with the reason. */
#include "backend/backend.h"

static co_status probe(co_context *ctx) {
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED,
                   "built without OpenCL (install ocl-icd-opencl-dev and opencl-headers, then "
                   "rebuild)");
}

static const co_backend backend = {.name = "opencl", .probe = probe};

const co_backend *co_backend_opencl(void) { return &backend; }
