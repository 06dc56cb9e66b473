/* Anchor: CLBlast SGEMM on an OpenCL device, measured beside our kernels.
 * CLBlast may run several kernels (padding, transposes) per call, so it is
 * timed from the host around the call and clFinish. */
#include "workloads/gemm.h"

#ifdef COALESCE_HAVE_CLBLAST
#include <clblast_c.h>

#include "backend/opencl/opencl_access.h"

bool gemm_has_clblast(const co_device *dev, const char **why) {
    (void)dev, (void)why;
    return true;
}

co_status gemm_run_clblast(co_job *job) {
    size_t m, n, k;
    gemm_dims(job->prob, &m, &n, &k);
    const co_array *arr = job->prob->arrays;
    cl_command_queue queue = co_opencl_queue(job->dev);
    double t0 = co_now_ms();
    CLBlastStatusCode status =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                     co_opencl_mem(arr[GEMM_A].buf), 0, k, co_opencl_mem(arr[GEMM_B].buf), 0, n,
                     0.0f, co_opencl_mem(arr[GEMM_C].buf), 0, n, &queue, NULL);
    if (status != CLBlastSuccess)
        return co_fail(CO_ERR_DEVICE, "CLBlastSgemm failed with status %d", (int)status);
    cl_int err = clFinish(queue);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: clFinish after CLBlastSgemm failed: %s",
                       co_opencl_error_name(err));
    co_job_add_time(job, co_now_ms() - t0);
    return CO_OK;
}
#else
bool gemm_has_clblast(const co_device *dev, const char **why) {
    (void)dev;
    *why = "built without CLBlast (install libclblast-dev and rebuild)";
    return false;
}

co_status gemm_run_clblast(co_job *job) {
    (void)job;
    return co_fail(CO_ERR_UNSUPPORTED, "built without CLBlast");
}
#endif
