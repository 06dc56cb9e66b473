/* Anchor for copy: the device-to-device copy of the API itself, the rate a
 * user gets from clEnqueueCopyBuffer or cuMemcpyDtoD(Async) — the "device
 * copy rate" our kernels are held to (vkCmdCopyBuffer on Vulkan). Timed by
 * device events: the copy command's own event on OpenCL, the device's
 * event pair on CUDA, a timestamp pair on Vulkan. */
#include <stdint.h>
#include <stdio.h>

#include "workloads/copy.h"

#ifdef COALESCE_HAVE_OPENCL
#include "backend/opencl/opencl_access.h"

static co_status opencl_copy(co_job *job, co_buf *dst, co_buf *src, size_t bytes) {
    cl_command_queue queue = co_opencl_queue(job->dev);
    cl_event ev = NULL;
    cl_ulong t0 = 0, t1 = 0;
    const char *call = "clEnqueueCopyBuffer";
    cl_int err = clEnqueueCopyBuffer(queue, co_opencl_mem(src), co_opencl_mem(dst), 0, 0, bytes, 0,
                                     NULL, &ev);
    if (err == CL_SUCCESS) call = "clWaitForEvents", err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS) {
        call = "clGetEventProfilingInfo";
        err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    }
    if (ev) clReleaseEvent(ev);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: %s (copy of %zu bytes) failed: %s", call, bytes,
                       co_opencl_error_name(err));
    co_job_add_time(job, (double)(t1 - t0) * 1e-6);
    return CO_OK;
}
#endif

#ifdef COALESCE_HAVE_CUDA
#include "backend/cuda/cuda_access.h"

/* cuMemcpyDtoDAsync_v2 and cuGetErrorName, opened like the backend opens
 * the driver (no CUDA header needed: CUresult is an int-sized enum,
 * CUdeviceptr an unsigned long long). */
typedef int (*dtod_fn)(unsigned long long, unsigned long long, size_t, struct CUstream_st *);
typedef int (*error_name_fn)(int, const char **);
static dtod_fn cu_dtod;
static error_name_fn cu_error_name;

static bool cuda_open(void) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    static bool tried;
    if (!tried) { /* the runner's single thread, like the cuBLAS anchor */
        tried = true;
        void *lib = co_cuda_dlopen(names);
        if (lib) {
            cu_dtod = (dtod_fn)co_cuda_dlsym(lib, "cuMemcpyDtoDAsync_v2");
            cu_error_name = (error_name_fn)co_cuda_dlsym(lib, "cuGetErrorName");
        }
    }
    return cu_dtod != NULL;
}

static co_status cuda_copy(co_job *job, co_buf *dst, co_buf *src, size_t bytes) {
    if (!cuda_open()) return co_fail(CO_ERR_UNSUPPORTED, "CUDA: no cuMemcpyDtoDAsync_v2");
    double ms = 0;
    co_status st = co_cuda_timer_start(job->dev);
    if (st) return st;
    int r = cu_dtod(co_cuda_ptr(dst), co_cuda_ptr(src), bytes, co_cuda_stream(job->dev));
    if (r) {
        const char *name = "unknown error";
        if (cu_error_name) cu_error_name(r, &name);
        return co_fail(CO_ERR_DEVICE, "CUDA: cuMemcpyDtoDAsync (copy of %zu bytes) failed: %s",
                       bytes, name);
    }
    if ((st = co_cuda_timer_stop(job->dev, &ms))) return st;
    co_job_add_time(job, ms);
    return CO_OK;
}
#endif

bool copy_has_api(const co_device *dev, const char **why) {
#ifdef COALESCE_HAVE_CUDA
    if (co_cuda_is_device(dev) && !cuda_open()) {
        *why = "the CUDA driver lacks cuMemcpyDtoDAsync_v2";
        return false;
    }
#endif
    (void)dev, (void)why;
    return true;
}

co_status copy_run_api(co_job *job) {
    co_array *arr = job->prob->arrays;
    co_buf *src = arr[COPY_SRC].buf, *dst = arr[COPY_DST].buf;
    const size_t bytes = arr[COPY_SRC].bytes;
    const unsigned on = co_device_on(job->dev);
#ifdef COALESCE_HAVE_OPENCL
    if (on == CO_ON_OPENCL) return opencl_copy(job, dst, src, bytes);
#endif
#ifdef COALESCE_HAVE_CUDA
    if (on == CO_ON_CUDA) return cuda_copy(job, dst, src, bytes);
#endif
    if (job->dev->backend->copy) { /* vkCmdCopyBuffer, glCopyNamedBufferSubData */
        double ms = 0;
        co_status st = job->dev->backend->copy(job->dev, dst, src, bytes, &ms);
        if (!st) co_job_add_time(job, ms);
        return st;
    }
    (void)src, (void)dst, (void)bytes, (void)on;
    return co_fail(CO_ERR_UNSUPPORTED,
                   "copy/api runs on OpenCL, CUDA, Vulkan and OpenGL devices (this is %s)",
                   job->dev->info.spec);
}
