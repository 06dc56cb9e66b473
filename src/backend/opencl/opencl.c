/* The `opencl` backend: every device of every platform the ICD loader
 * knows (PoCL on the CPU, NVIDIA, AMD, Intel GPUs). One context and one
 * in-order profiling queue per device; kernel time from events. */
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/opencl/opencl_access.h"

typedef struct cl_device_state {
    cl_device_id id;
    cl_context context;
    cl_command_queue queue;
} cl_device_state;

struct co_buf {
    cl_mem mem;
    size_t bytes;
};

/* A 2D image for the texture path (the boxfilter `image` variant). */
struct co_img {
    cl_mem mem;
    size_t width, height;
};

struct co_kernel {
    char *entry;
    cl_kernel kernel;
};

struct co_program {
    cl_program program;
    co_kernel **kernels; /* each allocated alone: pointers stay valid */
    size_t nkernels;
};

const char *co_opencl_error_name(cl_int err) {
    switch (err) {
// clang-format off
#define E(x) case x: return #x;
        E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
        E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PLATFORM)
#undef E
            // clang-format on
            case -1001 : return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

/* Every OpenCL call goes through this: on failure, one line naming the call
 * and the API's error. */
#define CL_CHECK(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            return co_fail(CO_ERR_DEVICE, "OpenCL: %s failed: %s (%d)", #call,                     \
                           co_opencl_error_name(err_), (int)err_);                                 \
    } while (0)

cl_command_queue co_opencl_queue(const co_device *dev) {
    return ((const cl_device_state *)dev->impl)->queue;
}

cl_mem co_opencl_mem(const co_buf *buf) { return buf->mem; }

static void info_string(cl_device_id id, cl_device_info what, char *out, size_t len) {
    out[0] = 0;
    if (clGetDeviceInfo(id, what, len, out, NULL) != CL_SUCCESS) out[0] = 0;
    out[len - 1] = 0;
}

static void fill_info(cl_platform_id platform, cl_device_id id, size_t index,
                      co_device_info *info) {
    memset(info, 0, sizeof *info);
    snprintf(info->spec, sizeof info->spec, "opencl:%zu", index);
    snprintf(info->backend, sizeof info->backend, "opencl");
    info_string(id, CL_DEVICE_NAME, info->name, sizeof info->name);
    info_string(id, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    info_string(id, CL_DEVICE_VERSION, info->api_version, sizeof info->api_version);
    info_string(id, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform, info->platform,
                          NULL) != CL_SUCCESS)
        info->platform[0] = 0;
    cl_device_type type = 0;
    clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->type = (type & CL_DEVICE_TYPE_GPU)           ? CO_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CO_DEVICE_ACCELERATOR
                                                       : CO_DEVICE_CPU;
    cl_uint u = 0;
    clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL);
    info->compute_units = u;
    u = 0;
    clGetDeviceInfo(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof u, &u, NULL);
    info->clock_mhz = u;
    size_t wg = 0;
    clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->max_work_group_size = wg;
    clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof info->max_work_item_sizes,
                    info->max_work_item_sizes, NULL);
    cl_ulong v = 0;
    clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof v, &v, NULL);
    info->local_mem_bytes = info->local_mem_arg_bytes = (size_t)v;
    v = 0;
    clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof v, &v, NULL);
    info->cache_bytes = (size_t)v;
    v = 0;
    clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof v, &v, NULL);
    info->global_mem_bytes = (size_t)v;
    v = 0;
    clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v, NULL);
    info->max_alloc_bytes = (size_t)v;
}

static co_status add_device(co_context *ctx, cl_platform_id platform, cl_device_id id,
                            size_t index);

static co_status probe(co_context *ctx) {
    cl_uint nplatforms = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplatforms);
    if (err != CL_SUCCESS || nplatforms == 0)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "no OpenCL platform: the ICD loader found no driver (%s); install "
                       "pocl-opencl-icd or a GPU driver",
                       err != CL_SUCCESS ? co_opencl_error_name(err) : "0 platforms");
    cl_platform_id platforms[16];
    if (nplatforms > 16) nplatforms = 16;
    CL_CHECK(clGetPlatformIDs(nplatforms, platforms, NULL));
    size_t index = 0;
    for (cl_uint p = 0; p < nplatforms; p++) {
        cl_uint ndev = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS)
            continue; /* a platform without devices is not an error */
        cl_device_id ids[32];
        if (ndev > 32) ndev = 32;
        CL_CHECK(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL));
        for (cl_uint d = 0; d < ndev; d++) {
            co_status st = add_device(ctx, platforms[p], ids[d], index);
            if (st == CO_OK)
                index++;
            else if (st == CO_ERR_NOMEM)
                return st;
            /* a device whose context fails is skipped, the others still count */
        }
    }
    if (index == 0)
        return co_fail(CO_ERR_UNSUPPORTED, "OpenCL platforms found but no usable device");
    return CO_OK;
}

static co_status add_device(co_context *ctx, cl_platform_id platform, cl_device_id id,
                            size_t index) {
    co_device_info info;
    fill_info(platform, id, index, &info);
    cl_int err;
    cl_device_state *st = calloc(1, sizeof *st);
    if (!st) return co_fail(CO_ERR_NOMEM, "out of host memory");
    st->id = id;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    st->context = clCreateContext(props, 1, &id, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        free(st);
        return co_fail(CO_ERR_DEVICE, "OpenCL: clCreateContext failed: %s",
                       co_opencl_error_name(err));
    }
    st->queue = clCreateCommandQueue(st->context, id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        clReleaseContext(st->context);
        free(st);
        return co_fail(CO_ERR_DEVICE, "OpenCL: clCreateCommandQueue failed: %s",
                       co_opencl_error_name(err));
    }
    co_status s = co_context_add_device(ctx, co_backend_opencl(), &info, st);
    if (s != CO_OK) {
        clReleaseCommandQueue(st->queue);
        clReleaseContext(st->context);
        free(st);
    }
    return s;
}

static void release(co_device *dev) {
    cl_device_state *st = dev->impl;
    if (!st) return;
    clReleaseCommandQueue(st->queue);
    clReleaseContext(st->context);
    free(st);
}

static co_status buf_alloc(co_device *dev, size_t bytes, co_buf **out) {
    cl_device_state *st = dev->impl;
    co_buf *b = calloc(1, sizeof *b);
    if (!b) return co_fail(CO_ERR_NOMEM, "out of host memory");
    cl_int err;
    b->mem = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (err != CL_SUCCESS) {
        free(b);
        return co_fail(CO_ERR_DEVICE, "OpenCL: clCreateBuffer of %zu bytes failed: %s", bytes,
                       co_opencl_error_name(err));
    }
    b->bytes = bytes;
    *out = b;
    return CO_OK;
}

static void buf_free(co_device *dev, co_buf *b) {
    (void)dev;
    if (!b) return;
    clReleaseMemObject(b->mem);
    free(b);
}

static co_status write_at(co_device *dev, co_buf *dst, size_t offset, const void *src,
                          size_t bytes) {
    cl_device_state *st = dev->impl;
    CL_CHECK(clEnqueueWriteBuffer(st->queue, dst->mem, CL_TRUE, offset, bytes, src, 0, NULL, NULL));
    return CO_OK;
}

static co_status read_at(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes) {
    cl_device_state *st = dev->impl;
    CL_CHECK(clEnqueueReadBuffer(st->queue, src->mem, CL_TRUE, offset, bytes, dst, 0, NULL, NULL));
    return CO_OK;
}

static co_status upload(co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    return write_at(dev, dst, 0, src, bytes);
}

static co_status download(co_device *dev, void *dst, co_buf *src, size_t bytes) {
    return read_at(dev, dst, src, 0, bytes);
}

/* Pinned host memory, the usual OpenCL idiom: a buffer the runtime
 * allocates in host memory (CL_MEM_ALLOC_HOST_PTR), mapped for the host.
 * Transfers from and to the mapped pointer run at the bus's full speed. */
struct co_pinned {
    cl_mem mem;
    void *host;
};

static co_status pinned_alloc(co_device *dev, size_t bytes, co_pinned **out, void **host) {
    cl_device_state *st = dev->impl;
    co_pinned *p = calloc(1, sizeof *p);
    if (!p) return co_fail(CO_ERR_NOMEM, "out of host memory");
    cl_int err;
    p->mem = clCreateBuffer(st->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                            bytes ? bytes : 1, NULL, &err);
    if (err == CL_SUCCESS)
        p->host = clEnqueueMapBuffer(st->queue, p->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     bytes ? bytes : 1, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        if (p->mem) clReleaseMemObject(p->mem);
        free(p);
        return co_fail(CO_ERR_DEVICE, "OpenCL: pinned host buffer of %zu bytes failed: %s", bytes,
                       co_opencl_error_name(err));
    }
    *out = p;
    *host = p->host;
    return CO_OK;
}

static void pinned_free(co_device *dev, co_pinned *p) {
    cl_device_state *st = dev->impl;
    if (!p) return;
    clEnqueueUnmapMemObject(st->queue, p->mem, p->host, 0, NULL, NULL);
    clFinish(st->queue);
    clReleaseMemObject(p->mem);
    free(p);
}

/* What the driver writes to stderr while it builds (PoCL's clang prints
 * "1 error generated." there) is caught in a temporary file, so that it
 * follows coalesce's own line as part of the build log. */
typedef struct stderr_catch {
    int saved; /* the real stderr, -1 if nothing is caught */
    FILE *file;
} stderr_catch;

static stderr_catch catch_stderr(void) {
    stderr_catch c = {.saved = -1, .file = tmpfile()};
    fflush(stderr);
    if (c.file && (c.saved = dup(STDERR_FILENO)) >= 0 && dup2(fileno(c.file), STDERR_FILENO) < 0) {
        close(c.saved);
        c.saved = -1;
    }
    return c;
}

/* Restore stderr; what was caught (at most len - 1 bytes) into text. */
static void release_stderr(stderr_catch *c, char *text, size_t len) {
    text[0] = 0;
    if (c->saved >= 0) {
        fflush(stderr);
        dup2(c->saved, STDERR_FILENO);
        close(c->saved);
        rewind(c->file);
        text[fread(text, 1, len - 1, c->file)] = 0;
    }
    if (c->file) fclose(c->file);
}

static co_status build(co_device *dev, const char *name, const char *source, const char *defines,
                       co_program **out) {
    cl_device_state *st = dev->impl;
    cl_int err;
    cl_program program = clCreateProgramWithSource(st->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: clCreateProgramWithSource(%s) failed: %s", name,
                       co_opencl_error_name(err));
    char options[1024];
    /* CO_FP_STRICT (kernels/dialect.h): also no approximate division and
     * square root, which NVIDIA's OpenCL uses by default (2.5 and 3 ulp). */
    const bool strict = defines && strstr(defines, "-DCO_FP_STRICT");
    snprintf(options, sizeof options, "-cl-std=CL1.2%s %s",
             strict ? " -cl-fp32-correctly-rounded-divide-sqrt" : "", defines ? defines : "");
    stderr_catch caught = catch_stderr();
    err = clBuildProgram(program, 1, &st->id, options, NULL, NULL);
    char driver[2048];
    release_stderr(&caught, driver, sizeof driver);
    if (err == CL_SUCCESS) fputs(driver, stderr); /* a successful build's warnings, as they were */
    if (err != CL_SUCCESS) {
        char log[12288] = "";
        clGetProgramBuildInfo(program, st->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        clReleaseProgram(program);
        const size_t used = strlen(log);
        if (*driver && used + 1 < sizeof log)
            snprintf(log + used, sizeof log - used, "%s%s",
                     used && log[used - 1] != '\n' ? "\n" : "", driver);
        return co_fail_log(CO_ERR_BUILD, log, "kernel %s.cl failed to build (%s) with '%s'", name,
                           co_opencl_error_name(err), options);
    }
    co_program *p = calloc(1, sizeof *p);
    if (!p) {
        clReleaseProgram(program);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    p->program = program;
    *out = p;
    return CO_OK;
}

static void program_free(co_device *dev, co_program *p) {
    (void)dev;
    for (size_t i = 0; i < p->nkernels; i++) {
        clReleaseKernel(p->kernels[i]->kernel);
        free(p->kernels[i]->entry);
        free(p->kernels[i]);
    }
    free(p->kernels);
    clReleaseProgram(p->program);
    free(p);
}

static co_status kernel(co_device *dev, co_program *p, const char *entry, co_kernel **out) {
    (void)dev;
    for (size_t i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i]->entry, entry) == 0) {
            *out = p->kernels[i];
            return CO_OK;
        }
    co_kernel **grown = realloc(p->kernels, (p->nkernels + 1) * sizeof *grown);
    if (!grown) return co_fail(CO_ERR_NOMEM, "out of host memory");
    p->kernels = grown;
    cl_int err;
    cl_kernel k = clCreateKernel(p->program, entry, &err);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: no kernel '%s' in program: %s", entry,
                       co_opencl_error_name(err));
    size_t len = strlen(entry) + 1;
    co_kernel *ck = malloc(sizeof *ck);
    char *copy = malloc(len);
    if (!ck || !copy) {
        free(ck);
        free(copy);
        clReleaseKernel(k);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    memcpy(copy, entry, len);
    *ck = (co_kernel){.entry = copy, .kernel = k};
    p->kernels[p->nkernels++] = ck;
    *out = ck;
    return CO_OK;
}

static co_status finish(co_device *dev) {
    cl_device_state *st = dev->impl;
    const cl_int err = clFinish(st->queue);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: a queued kernel failed: %s",
                       co_opencl_error_name(err));
    return CO_OK;
}

static co_status launch(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t nargs, const co_arg *args,
                        double *kernel_ms) {
    cl_device_state *st = dev->impl;
    for (size_t i = 0; i < nargs; i++) {
        cl_uint idx = (cl_uint)i;
        switch (args[i].kind) {
        case CO_ARG_BUF:
            CL_CHECK(clSetKernelArg(k->kernel, idx, sizeof(cl_mem), &args[i].v.buf->mem));
            break;
        case CO_ARG_INT:
            CL_CHECK(clSetKernelArg(k->kernel, idx, sizeof(cl_int), &args[i].v.i));
            break;
        case CO_ARG_UINT:
            CL_CHECK(clSetKernelArg(k->kernel, idx, sizeof(cl_uint), &args[i].v.u));
            break;
        case CO_ARG_FLOAT:
            CL_CHECK(clSetKernelArg(k->kernel, idx, sizeof(cl_float), &args[i].v.f));
            break;
        case CO_ARG_IMAGE:
            CL_CHECK(clSetKernelArg(k->kernel, idx, sizeof(cl_mem), &args[i].v.img->mem));
            break;
        case CO_ARG_LOCAL: CL_CHECK(clSetKernelArg(k->kernel, idx, args[i].v.u, NULL)); break;
        }
    }
    if (!kernel_ms) { /* queued (the queue is in order): finish() waits */
        CL_CHECK(
            clEnqueueNDRangeKernel(st->queue, k->kernel, dims, NULL, global, local, 0, NULL, NULL));
        CL_CHECK(clFlush(st->queue));
        return CO_OK;
    }
    cl_event ev;
    CL_CHECK(clEnqueueNDRangeKernel(st->queue, k->kernel, dims, NULL, global, local, 0, NULL, &ev));
    cl_int err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS && kernel_ms) {
        cl_ulong t0 = 0, t1 = 0;
        err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        *kernel_ms = (double)(t1 - t0) * 1e-6;
    }
    clReleaseEvent(ev);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: kernel '%s' failed: %s", k->entry,
                       co_opencl_error_name(err));
    return CO_OK;
}

/* ---- 2D images (the boxfilter `image` variant) ---- */

static bool image_support(const co_device *dev, const char **why) {
    const cl_device_state *st = dev->impl;
    cl_bool yes = CL_FALSE;
    if (clGetDeviceInfo(st->id, CL_DEVICE_IMAGE_SUPPORT, sizeof yes, &yes, NULL) != CL_SUCCESS ||
        !yes) {
        *why = "the device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)";
        return false;
    }
    return true;
}

/* The border is the kernel's sampler in OpenCL: nothing to set here. 8-bit
 * formats are CL_UNSIGNED_INT8 (read_imageui): integer sums stay exact. */
static co_status image_alloc(co_device *dev, size_t width, size_t height, co_img_format format,
                             co_img_border border, co_img **out) {
    cl_device_state *st = dev->impl;
    (void)border;
    size_t maxw = 0, maxh = 0;
    clGetDeviceInfo(st->id, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof maxw, &maxw, NULL);
    clGetDeviceInfo(st->id, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof maxh, &maxh, NULL);
    if (width > maxw || height > maxh)
        return co_fail(CO_ERR_LIMIT,
                       "a %zux%zu image is over the device's 2D image limit %zux%zu "
                       "(CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT of %s)",
                       width, height, maxw, maxh, dev->info.spec);
    const cl_image_format formats[] = {[CO_IMG_R_F32] = {CL_R, CL_FLOAT},
                                       [CO_IMG_RGBA_U8] = {CL_RGBA, CL_UNSIGNED_INT8},
                                       [CO_IMG_R_U8] = {CL_R, CL_UNSIGNED_INT8}};
    const cl_image_format fmt = formats[format];
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    co_img *img = calloc(1, sizeof *img);
    if (!img) return co_fail(CO_ERR_NOMEM, "out of host memory");
    cl_int err;
    img->mem = clCreateImage(st->context, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err);
    if (err != CL_SUCCESS) {
        free(img);
        return co_fail(CO_ERR_DEVICE, "OpenCL: clCreateImage of %zux%zu failed: %s", width, height,
                       co_opencl_error_name(err));
    }
    img->width = width;
    img->height = height;
    *out = img;
    return CO_OK;
}

static void image_free(co_device *dev, co_img *img) {
    (void)dev;
    if (!img) return;
    clReleaseMemObject(img->mem);
    free(img);
}

static co_status image_copy_from_buffer(co_device *dev, co_img *dst, co_buf *src, double *ms) {
    cl_device_state *st = dev->impl;
    const size_t origin[3] = {0, 0, 0}, region[3] = {dst->width, dst->height, 1};
    cl_event ev;
    CL_CHECK(
        clEnqueueCopyBufferToImage(st->queue, src->mem, dst->mem, 0, origin, region, 0, NULL, &ev));
    cl_int err = clWaitForEvents(1, &ev);
    cl_ulong t0 = 0, t1 = 0;
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    if (err != CL_SUCCESS)
        return co_fail(CO_ERR_DEVICE, "OpenCL: copy of a buffer into an image failed: %s",
                       co_opencl_error_name(err));
    *ms = (double)(t1 - t0) * 1e-6;
    return CO_OK;
}

/* ---- what the compiler made of it (src/core/il.c) ---------------------- */

static bool is_pocl(const co_device *dev) {
    return strstr(dev->info.platform, "Portable Computing Language") != NULL ||
           strstr(dev->info.api_version, "PoCL") != NULL;
}

/* PoCL: the work-group function it compiled for the launch (wg: LLVM IR;
 * asm: its machine code) and the program's IR; NVIDIA: the binary, PTX (a cubin: SASS). */
static const char *il_formats(const co_device *dev) {
    if (is_pocl(dev)) return "wg ir asm";
    return strstr(dev->info.vendor, "NVIDIA") ? "ptx sass" : "binary";
}

/* A binary that is text: no NUL before its end but closing ones (NVIDIA's
 * PTX; a driver may count the closing NUL in the size). */
static bool binary_is_text(const unsigned char *bin, size_t size) {
    size_t n = strlen((const char *)bin);
    while (n < size && bin[n] == 0) n++;
    return size > 0 && bin[0] != 0 && n == size;
}

static bool binary_is_elf(const unsigned char *bin, size_t size) {
    return size > 4 && !memcmp(bin, "\177ELF", 4);
}

static co_status program_binary(co_program *p, unsigned char **bin, size_t *size) {
    *bin = NULL;
    cl_int err = clGetProgramInfo(p->program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL);
    if (err == CL_SUCCESS && !(*bin = malloc(*size + 1)))
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    if (err == CL_SUCCESS)
        err = clGetProgramInfo(p->program, CL_PROGRAM_BINARIES, sizeof *bin, bin, NULL);
    if (err != CL_SUCCESS) {
        free(*bin);
        *bin = NULL;
        return co_fail(CO_ERR_DEVICE, "OpenCL: clGetProgramInfo(CL_PROGRAM_BINARIES) failed: %s",
                       co_opencl_error_name(err));
    }
    (*bin)[*size] = 0;
    return CO_OK;
}

/* Run a disassembler on data (a temporary file); its output in *out. */
static co_status disassemble(const char *const *tools, const char *what, const char *flags,
                             const char *file, const void *data, size_t size, char **out) {
    char tool[1024], path[512], args[1200];
    if (!co_tool_find(tools, tool, sizeof tool))
        return co_fail(CO_ERR_UNSUPPORTED, "%s not available: no %s found on PATH", what, tools[0]);
    co_status st = file ? CO_OK : co_tool_temp(data, size, path, sizeof path);
    if (st) return st;
    snprintf(args, sizeof args, "%s %s -o -", flags, file ? file : path);
    if (strstr(tool, "objdump")) snprintf(args, sizeof args, "%s %s", flags, file ? file : path);
    int status = 0;
    st = co_tool_run(tool, args, out, &status);
    /* llvm-dis 14 reads LLVM 15's bitcode (PoCL 3.1's) with opaque pointers. */
    if (!st && status && strstr(*out, "-opaque-pointers")) {
        free(*out);
        char again[1300];
        snprintf(again, sizeof again, "-opaque-pointers %s", args);
        st = co_tool_run(tool, again, out, &status);
    }
    if (!file) unlink(path);
    if (!st && status) {
        st = co_fail(CO_ERR_DEVICE, "%s %s failed: %.300s", tool, args, *out);
        free(*out);
        *out = NULL;
    }
    return st;
}

/* PoCL's program binary ("poclbin" 3.x): a header with the program's
 * path in the kernel cache ("XX/HASH"), then files, each a name
 * ("/program.bc"), a 32-bit length and its bytes. */
static const char *poclbin_hash(const unsigned char *bin, size_t size) {
    if (size < 256 || memcmp(bin, "poclbin", 8)) return NULL;
    for (size_t i = 8; i + 16 < 256; i++) {
        const char *s = (const char *)bin + i;
        size_t n = strspn(s, "ABCDEFGHIJKLMNOP/");
        if (n > 12 && s[2] == '/' && s[n] == 0 && memchr(s, 0, 256 - i)) return s;
    }
    return NULL;
}

static const unsigned char *poclbin_bitcode(const unsigned char *bin, size_t size, size_t *len) {
    static const char name[] = "/program.bc";
    const size_t name_len = sizeof name - 1;
    for (size_t i = 0; i + name_len + 8 < size; i++)
        if (!memcmp(bin + i, name, name_len)) {
            const unsigned char *p = bin + i + name_len;
            uint32_t n =
                (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            if (n <= size - (size_t)(p + 4 - bin) && !memcmp(p + 4, "BC\xc0\xde", 4)) {
                *len = n;
                return p + 4;
            }
        }
    return NULL;
}

/* PoCL's kernel cache ($POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/kcache,
 * else ~/.cache/pocl/kcache) holds the program under its binary's path,
 * and there ENTRY/L0-L1-L2-.../ the work-group function PoCL compiled for
 * that group size at the first launch: parallel.bc (kept where
 * POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES was set) and ENTRY.so; `file` is
 * the one wanted, the newest is taken (a grid may have its own). */
static bool pocl_kernel_dir(const unsigned char *bin, size_t size, const char *entry,
                            const size_t local[3], const char *file, char *out, size_t len) {
    char root[600];
    const char *env = getenv("POCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME"), *hash = poclbin_hash(bin, size);
    if (env && *env)
        snprintf(root, sizeof root, "%s", env);
    else if (xdg && *xdg)
        snprintf(root, sizeof root, "%s/pocl/kcache", xdg);
    else
        snprintf(root, sizeof root, "%s/.cache/pocl/kcache", home ? home : "");
    char prefix[96], kdir[1000];
    snprintf(prefix, sizeof prefix, "%zu-%zu-%zu-", local[0], local[1], local[2]);
    snprintf(kdir, sizeof kdir, "%s/%s/%s", root, hash ? hash : "?", entry);
    bool found = false;
    time_t newest = 0;
    DIR *kd = hash ? opendir(kdir) : NULL;
    for (struct dirent *c; kd && (c = readdir(kd));) {
        char path[2048];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s/%s", kdir, c->d_name, file);
        if (!strncmp(c->d_name, prefix, strlen(prefix)) && !stat(path, &sb) &&
            (!found || sb.st_mtime > newest)) {
            snprintf(out, len, "%s/%s", kdir, c->d_name);
            found = true;
            newest = sb.st_mtime;
        }
    }
    if (kd) closedir(kd);
    if (!found) snprintf(out, len, "%s", kdir);
    return found;
}

static co_status program_text(co_device *dev, co_program *p, co_kernel *k, const char *format,
                              const size_t local[3], char **out) {
    static const char *const llvm_dis[] = {"llvm-dis", "llvm-dis-15", "llvm-dis-14", NULL};
    static const char *const objdump[] = {"objdump", NULL};
    unsigned char *bin;
    size_t size;
    *out = NULL;
    co_status st = program_binary(p, &bin, &size);
    if (st) return st;
    if (!strcmp(format, "ptx") || !strcmp(format, "binary")) {
        if (binary_is_text(bin, size))
            *out = (char *)bin, bin = NULL;
        else
            st = co_fail(CO_ERR_UNSUPPORTED, "the program binary of %s is not text (%zu bytes%s)",
                         dev->info.spec, size,
                         binary_is_elf(bin, size) ? ", an ELF cubin: --show sass disassembles it"
                                                  : "");
    } else if (!strcmp(format, "sass")) {
        static const char *const cuobjdump[] = {"cuobjdump", NULL};
        st = binary_is_elf(bin, size)
                 ? disassemble(cuobjdump, "SASS", "-sass", NULL, bin, size, out)
                 : co_fail(CO_ERR_UNSUPPORTED,
                           "SASS not available: the program binary of %s is PTX, which the "
                           "driver compiles when it loads it (--device cuda shows the SASS of "
                           "the same kernel)",
                           dev->info.spec);
    } else if (!strcmp(format, "ir")) {
        size_t n = 0;
        const unsigned char *bc = poclbin_bitcode(bin, size, &n);
        st = bc ? disassemble(llvm_dis, "LLVM IR", "", NULL, bc, n, out)
                : co_fail(CO_ERR_UNSUPPORTED,
                          "the program binary of %s holds no LLVM bitcode "
                          "(%zu bytes)",
                          dev->info.spec, size);
    } else {
        char dir[1600], file[1800], so[160];
        snprintf(so, sizeof so, "%.100s.so", k->entry);
        const bool wg = !strcmp(format, "wg");
        if (!pocl_kernel_dir(bin, size, k->entry, local, wg ? "parallel.bc" : so, dir, sizeof dir))
            st = co_fail(CO_ERR_UNSUPPORTED,
                         "PoCL kept no %s of '%s' for groups of %zux%zux%zu "
                         "under %s (it compiles one at the first launch; %s)",
                         wg ? "work-group function (parallel.bc)" : "machine code", k->entry,
                         local[0], local[1], local[2], dir,
                         wg ? "it keeps its IR where POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1 "
                              "was set when it compiled"
                            : "POCL_KERNEL_CACHE=0 keeps none");
        else if (!strcmp(format, "wg")) {
            snprintf(file, sizeof file, "%s/parallel.bc", dir);
            st = disassemble(llvm_dis, "LLVM IR", "", file, NULL, 0, out);
        } else {
            snprintf(file, sizeof file, "%s/%s.so", dir, k->entry);
            st = disassemble(objdump, "machine code", "-d --no-show-raw-insn", file, NULL, 0, out);
        }
    }
    free(bin);
    return st;
}

static co_status kernel_resources(co_device *dev, co_program *p, co_kernel *k,
                                  const size_t local[3], size_t dynamic_local, co_il_resources *r) {
    (void)p, (void)local, (void)dynamic_local;
    cl_device_state *st = dev->impl;
    size_t wg = 0, multiple = 0;
    cl_ulong lmem = 0, pmem = 0;
    cl_int err = clGetKernelWorkGroupInfo(k->kernel, st->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                          &wg, NULL);
    if (!err)
        err = clGetKernelWorkGroupInfo(k->kernel, st->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem,
                                       &lmem, NULL);
    if (!err)
        err = clGetKernelWorkGroupInfo(k->kernel, st->id, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem,
                                       &pmem, NULL);
    if (!err)
        err = clGetKernelWorkGroupInfo(k->kernel, st->id,
                                       CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                       sizeof multiple, &multiple, NULL);
    if (err)
        return co_fail(CO_ERR_DEVICE, "OpenCL: clGetKernelWorkGroupInfo(%s) failed: %s", k->entry,
                       co_opencl_error_name(err));
    r->max_group = (long)wg;
    r->shared_bytes = (long)lmem; /* with the local-memory arguments last set */
    r->stack_bytes = (long)pmem;
    r->preferred_multiple = (long)multiple;
    snprintf(r->from, sizeof r->from, "clGetKernelWorkGroupInfo");
    return CO_OK;
}

static const co_backend backend = {
    .name = "opencl",
    .probe = probe,
    .release = release,
    .alloc = buf_alloc,
    .free = buf_free,
    .upload = upload,
    .download = download,
    .write = write_at,
    .read = read_at,
    .pinned_alloc = pinned_alloc,
    .pinned_free = pinned_free,
    .build = build,
    .program_free = program_free,
    .kernel = kernel,
    .launch = launch,
    .finish = finish,
    .image_support = image_support,
    .image_alloc = image_alloc,
    .image_free = image_free,
    .image_copy_from_buffer = image_copy_from_buffer,
    .il_formats = il_formats,
    .program_text = program_text,
    .kernel_resources = kernel_resources,
};

const co_backend *co_backend_opencl(void) { return &backend; }
