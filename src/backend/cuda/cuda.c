/* The `cuda` backend: the NVIDIA driver API and NVRTC, both opened with
 * dlopen at run time (hashcat's approach), so one binary runs with or
 * without a driver and a missing library only disables the backend.
 * Kernels are the OpenCL-dialect sources of kernels/, compiled by NVRTC
 * behind kernels/dialect.h. One primary context (shared with the runtime
 * API, so cuBLAS sees the same memory), one stream and two timing events
 * per device. <cuda.h> and <nvrtc.h> are used for types only. */
#include <cuda.h>
#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/cuda_access.h"

/* ---- the libraries: entry points resolved by name --------------------- */

/* X(return type, field, symbol, older symbol or NULL, parameters). The _v2
 * symbols are the ones <cuda.h> maps the plain names to. */
#define CU_FUNCS(X)                                                                                \
    X(CUresult, Init, "cuInit", NULL, (unsigned))                                                  \
    X(CUresult, DriverGetVersion, "cuDriverGetVersion", NULL, (int *))                             \
    X(CUresult, GetErrorName, "cuGetErrorName", NULL, (CUresult, const char **))                   \
    X(CUresult, GetErrorString, "cuGetErrorString", NULL, (CUresult, const char **))               \
    X(CUresult, DeviceGetCount, "cuDeviceGetCount", NULL, (int *))                                 \
    X(CUresult, DeviceGet, "cuDeviceGet", NULL, (CUdevice *, int))                                 \
    X(CUresult, DeviceGetName, "cuDeviceGetName", NULL, (char *, int, CUdevice))                   \
    X(CUresult, DeviceGetAttribute, "cuDeviceGetAttribute", NULL,                                  \
      (int *, CUdevice_attribute, CUdevice))                                                       \
    X(CUresult, DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, (size_t *, CUdevice))                 \
    X(CUresult, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, (CUcontext *, CUdevice)) \
    X(CUresult, DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                           \
      "cuDevicePrimaryCtxRelease", (CUdevice))                                                     \
    X(CUresult, CtxSetCurrent, "cuCtxSetCurrent", NULL, (CUcontext))                               \
    X(CUresult, MemGetInfo, "cuMemGetInfo_v2", NULL, (size_t *, size_t *))                         \
    X(CUresult, MemAlloc, "cuMemAlloc_v2", NULL, (CUdeviceptr *, size_t))                          \
    X(CUresult, MemFree, "cuMemFree_v2", NULL, (CUdeviceptr))                                      \
    X(CUresult, MemAllocHost, "cuMemAllocHost_v2", NULL, (void **, size_t))                        \
    X(CUresult, MemFreeHost, "cuMemFreeHost", NULL, (void *))                                      \
    X(CUresult, MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL,                                     \
      (CUdeviceptr, const void *, size_t, CUstream))                                               \
    X(CUresult, MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL,                                     \
      (void *, CUdeviceptr, size_t, CUstream))                                                     \
    X(CUresult, StreamCreate, "cuStreamCreate", NULL, (CUstream *, unsigned))                      \
    X(CUresult, StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy", (CUstream))                \
    X(CUresult, StreamSynchronize, "cuStreamSynchronize", NULL, (CUstream))                        \
    X(CUresult, EventCreate, "cuEventCreate", NULL, (CUevent *, unsigned))                         \
    X(CUresult, EventDestroy, "cuEventDestroy_v2", "cuEventDestroy", (CUevent))                    \
    X(CUresult, EventRecord, "cuEventRecord", NULL, (CUevent, CUstream))                           \
    X(CUresult, EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",                   \
      (float *, CUevent, CUevent))                                                                 \
    X(CUresult, ModuleLoadDataEx, "cuModuleLoadDataEx", NULL,                                      \
      (CUmodule *, const void *, unsigned, CUjit_option *, void **))                               \
    X(CUresult, ModuleUnload, "cuModuleUnload", NULL, (CUmodule))                                  \
    X(CUresult, ModuleGetFunction, "cuModuleGetFunction", NULL,                                    \
      (CUfunction *, CUmodule, const char *))                                                      \
    X(CUresult, ArrayCreate, "cuArrayCreate_v2", NULL, (CUarray *, const CUDA_ARRAY_DESCRIPTOR *)) \
    X(CUresult, ArrayDestroy, "cuArrayDestroy", NULL, (CUarray))                                   \
    X(CUresult, Memcpy2DAsync, "cuMemcpy2DAsync_v2", NULL, (const CUDA_MEMCPY2D *, CUstream))      \
    X(CUresult, TexObjectCreate, "cuTexObjectCreate", NULL,                                        \
      (CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,                       \
       const CUDA_RESOURCE_VIEW_DESC *))                                                           \
    X(CUresult, TexObjectDestroy, "cuTexObjectDestroy", NULL, (CUtexObject))                       \
    X(CUresult, ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL,                                     \
      (CUdeviceptr *, size_t *, CUmodule, const char *))                                           \
    X(CUresult, MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL,                                     \
      (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                                \
    X(CUresult, FuncSetAttribute, "cuFuncSetAttribute", NULL,                                      \
      (CUfunction, CUfunction_attribute, int))                                                     \
    X(CUresult, FuncGetAttribute, "cuFuncGetAttribute", NULL,                                      \
      (int *, CUfunction_attribute, CUfunction))                                                   \
    X(CUresult, OccupancyMaxActiveBlocksPerMultiprocessor,                                         \
      "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL, (int *, CUfunction, int, size_t))       \
    X(CUresult, LaunchKernel, "cuLaunchKernel", NULL,                                              \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
       void **, void **))

#define NVRTC_FUNCS(X)                                                                             \
    X(nvrtcResult, Version, "nvrtcVersion", NULL, (int *, int *))                                  \
    X(const char *, GetErrorString, "nvrtcGetErrorString", NULL, (nvrtcResult))                    \
    X(nvrtcResult, GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", NULL, (int *))               \
    X(nvrtcResult, GetSupportedArchs, "nvrtcGetSupportedArchs", NULL, (int *))                     \
    X(nvrtcResult, CreateProgram, "nvrtcCreateProgram", NULL,                                      \
      (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *)) \
    X(nvrtcResult, DestroyProgram, "nvrtcDestroyProgram", NULL, (nvrtcProgram *))                  \
    X(nvrtcResult, CompileProgram, "nvrtcCompileProgram", NULL,                                    \
      (nvrtcProgram, int, const char *const *))                                                    \
    X(nvrtcResult, GetProgramLogSize, "nvrtcGetProgramLogSize", NULL, (nvrtcProgram, size_t *))    \
    X(nvrtcResult, GetProgramLog, "nvrtcGetProgramLog", NULL, (nvrtcProgram, char *))              \
    X(nvrtcResult, GetPTXSize, "nvrtcGetPTXSize", NULL, (nvrtcProgram, size_t *))                  \
    X(nvrtcResult, GetPTX, "nvrtcGetPTX", NULL, (nvrtcProgram, char *))                            \
    X(nvrtcResult, GetCUBINSize, "nvrtcGetCUBINSize", NULL, (nvrtcProgram, size_t *))              \
    X(nvrtcResult, GetCUBIN, "nvrtcGetCUBIN", NULL, (nvrtcProgram, char *))

#define FIELD(ret, field, sym, alt, params) ret(*field) params;
static struct { CU_FUNCS(FIELD) } cu;
static struct { NVRTC_FUNCS(FIELD) } nv;
#undef FIELD

co_cuda_fn co_cuda_dlsym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    co_cuda_fn fn;
    _Static_assert(sizeof fn == sizeof p, "function and data pointers differ in size");
    memcpy(&fn, &p, sizeof fn);
    return fn;
}

void *co_cuda_dlopen(const char *const *names) {
    const char *dirs[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; names[i]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) return lib;
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            char path[1024];
            if (!dirs[d] || !*dirs[d]) continue;
            snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[i]);
            if ((lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return lib;
        }
    }
    return NULL;
}

static co_cuda_fn dlsym_either(void *lib, const char *sym, const char *alt) {
    co_cuda_fn fn = co_cuda_dlsym(lib, sym);
    return fn || !alt ? fn : co_cuda_dlsym(lib, alt);
}

/* Resolve a table; NULL on success, else the first missing symbol. */
#define RESOLVE(ret, field, sym, alt, params)                                                      \
    if (!(table.field = (ret(*) params)dlsym_either(lib, sym, alt))) return sym;
static const char *resolve_cu(void *lib) {
#define table cu
    CU_FUNCS(RESOLVE)
#undef table
    return NULL;
}
static const char *resolve_nvrtc(void *lib) {
#define table nv
    NVRTC_FUNCS(RESOLVE)
#undef table
    return NULL;
}
#undef RESOLVE

/* A library opened once per process and kept open: drivers do not like
 * being unloaded under live contexts, and NVRTC is reused by every build. */
typedef struct lib_state {
    const char *const *names;
    const char *missing_hint;
    const char *(*resolve)(void *lib);
    bool tried;
    void *handle;
    char why[320];
} lib_state;

static const char *const cu_names[] = {"libcuda.so.1", "libcuda.so", NULL};
static const char *const nvrtc_names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", NULL};
static lib_state cu_lib = {cu_names, "no NVIDIA driver", resolve_cu, false, NULL, ""};
static lib_state nvrtc_lib = {
    nvrtc_names,   "no CUDA runtime compiler: install NVRTC or set CUDA_HOME",
    resolve_nvrtc, false,
    NULL,          ""};

/* Not thread-safe: probe runs from co_context_create, before any other use. */
static bool lib_open(lib_state *lib) {
    if (lib->tried) return lib->handle != NULL;
    lib->tried = true;
    void *handle = co_cuda_dlopen(lib->names);
    const char *missing;
    if (!handle) {
        snprintf(lib->why, sizeof lib->why, "%s not found (%s)", lib->names[0], lib->missing_hint);
    } else if ((missing = lib->resolve(handle))) {
        snprintf(lib->why, sizeof lib->why, "%s lacks %s (too old)", lib->names[0], missing);
        dlclose(handle);
    } else {
        lib->handle = handle;
    }
    return lib->handle != NULL;
}

/* ---- error wrappers: every API call goes through CU() or NVRTC() ------- */

static co_status cu_check(const char *call, CUresult r) {
    if (r == CUDA_SUCCESS) return CO_OK;
    const char *name = NULL, *text = NULL;
    if (cu.GetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "?";
    if (cu.GetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "unknown error";
    return co_fail(CO_ERR_DEVICE, "CUDA: %s failed: %s (%s, %d)", call, text, name, (int)r);
}

static co_status nvrtc_check(const char *call, nvrtcResult r) {
    if (r == NVRTC_SUCCESS) return CO_OK;
    const char *text = nv.GetErrorString(r);
    return co_fail(CO_ERR_DEVICE, "CUDA: %s failed: %s (%d)", call, text ? text : "?", (int)r);
}

#define CU(fn, args) cu_check("cu" #fn, cu.fn args)
#define NVRTC(fn, args) nvrtc_check("nvrtc" #fn, nv.fn args)

/* Re-issue the last error with another status and a note after it. */
static co_status restate(co_status st, const char *note) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", co_last_error());
    return co_fail(st, "%s%s", msg, note);
}

/* ---- objects ----------------------------------------------------------- */

/* A blocking stream (open_device). */
#define STREAM_FLAGS CU_STREAM_DEFAULT

typedef struct cu_device {
    CUdevice dev;
    CUcontext ctx; /* the device's primary context, retained */
    CUstream stream;
    CUevent start, stop;
    co_program *spin_program; /* the timer's spin kernel, built on first use */
    co_kernel *spin;
    int cc;        /* compute capability, 10 * major + minor */
    char arch[16]; /* NVRTC target, chosen on the first build */
    void *anchor;
    void (*anchor_destroy)(void *);
} cu_device;

struct co_buf {
    CUdeviceptr ptr;
    size_t bytes;
};

/* A 2D image for the texture path (the boxfilter `image` variant). */
struct co_img {
    CUarray array;
    CUtexObject tex;
    size_t width, height, pixel_bytes;
};

struct co_kernel {
    CUfunction fn;
    CUmodule module;        /* of its program: its __constant__ symbols */
    size_t dynamic_allowed; /* dynamic shared memory opted in so far (bytes) */
    int max_threads, regs;  /* threads per block its registers allow, and those a thread */
    char entry[];           /* for messages */
};

struct co_program {
    CUmodule module; /* NULL on an offline device */
    /* What it was built from, for il.c: the compile that shows the PTX,
     * the cubin and ptxas's figures (made on first use). */
    char *name, *source, *defines;
    char *ptx, *ptxas_log;
    void *cubin;
    size_t cubin_size;
    co_kernel **kernels; /* each allocated alone: pointers stay valid */
    size_t nkernels;
};

static const co_backend cuda_backend;

bool co_cuda_is_device(const co_device *dev) { return dev && dev->backend == &cuda_backend; }
struct CUstream_st *co_cuda_stream(const co_device *dev) {
    return ((const cu_device *)dev->impl)->stream;
}
unsigned long long co_cuda_ptr(const co_buf *buf) { return buf->ptr; }
void *co_cuda_anchor(const co_device *dev) { return ((const cu_device *)dev->impl)->anchor; }
void co_cuda_set_anchor(co_device *dev, void *handle, void (*destroy)(void *)) {
    cu_device *d = dev->impl;
    d->anchor = handle;
    d->anchor_destroy = destroy;
}

static int attribute(CUdevice dev, CUdevice_attribute what);

co_status co_cuda_props_get(const co_device *dev, co_cuda_props *out) {
    const cu_device *d = dev->impl;
    *out = (co_cuda_props){
        .ordinal = (int)d->dev, /* a CUdevice is its ordinal */
        .multiprocessors = attribute(d->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        .max_threads_per_multiprocessor =
            attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
        .max_threads_per_block = attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        .cc_major = d->cc / 10,
        .cc_minor = d->cc % 10,
        .shared_per_block =
            (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        .stream_flags = STREAM_FLAGS};
    return out->multiprocessors > 0 ? CO_OK
                                    : co_fail(CO_ERR_DEVICE,
                                              "CUDA: cannot read the attributes "
                                              "of %s",
                                              dev->info.spec);
}

co_status co_cuda_make_current(co_device *dev) {
    return CU(CtxSetCurrent, (((cu_device *)dev->impl)->ctx));
}

/* Timing: events on the stream around the timed work. On an idle stream
 * the start event would be taken at once, before the host had launched
 * the work, and the launch's host latency (microseconds) would count as
 * the work's time; OpenCL's profiling counts the command alone. So a
 * kernel that spins for SPIN_NS goes first: the start, the work and the
 * stop are queued while it runs, and the start is taken when the work can
 * begin. SPIN_NS is ample for the host's part (a launch, a cuBLAS call).
 * The spin also ends after 4 cycles a nanosecond (clock64), should a
 * device's global timer not advance. */
enum { SPIN_NS = 100000 };
static const char spin_source[] =
    "extern \"C\" __global__ void co_spin(unsigned long long ns) {\n"
    "    unsigned long long t0, t;\n"
    "    const long long c0 = clock64();\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "    do asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "    while (t - t0 < ns && (unsigned long long)(clock64() - c0) < 4 * ns);\n"
    "}\n";

const char *co_cuda_spin_source(void) { return spin_source; }

static co_status build(co_device *dev, const char *name, const char *source, const char *defines,
                       co_program **out);
static co_status kernel(co_device *dev, co_program *prog, const char *entry, co_kernel **out);
static void program_free(co_device *dev, co_program *prog);

co_status co_cuda_timer_start(co_device *dev) {
    cu_device *d = dev->impl;
    co_status st = CU(CtxSetCurrent, (d->ctx));
    if (!st && !d->spin_program) st = build(dev, "co_spin", spin_source, "", &d->spin_program);
    if (!st && !d->spin) st = kernel(dev, d->spin_program, "co_spin", &d->spin);
    unsigned long long ns = SPIN_NS;
    void *params[] = {&ns};
    if (!st) st = CU(LaunchKernel, (d->spin->fn, 1, 1, 1, 1, 1, 1, 0, d->stream, params, NULL));
    return st ? st : CU(EventRecord, (d->start, d->stream));
}

co_status co_cuda_timer_stop(co_device *dev, double *ms) {
    cu_device *d = dev->impl;
    float elapsed = 0;
    co_status st = CU(EventRecord, (d->stop, d->stream));
    if (!st) st = CU(StreamSynchronize, (d->stream));
    if (!st) st = CU(EventElapsedTime, (&elapsed, d->start, d->stop));
    if (!st) *ms = elapsed;
    return st;
}

/* ---- probe and release ------------------------------------------------- */

static void release(co_device *dev) {
    cu_device *d = dev->impl;
    if (!d) return;
    /* Errors are ignored here: there is nobody left to tell. */
    cu.CtxSetCurrent(d->ctx);
    if (d->anchor && d->anchor_destroy) d->anchor_destroy(d->anchor);
    program_free(dev, d->spin_program);
    if (d->start) cu.EventDestroy(d->start);
    if (d->stop) cu.EventDestroy(d->stop);
    if (d->stream) cu.StreamDestroy(d->stream);
    cu.CtxSetCurrent(NULL);
    if (d->ctx) cu.DevicePrimaryCtxRelease(d->dev);
    free(d);
    dev->impl = NULL;
}

static int attribute(CUdevice dev, CUdevice_attribute what) {
    int v = 0;
    return CU(DeviceGetAttribute, (&v, what, dev)) ? 0 : v;
}

/* The kernel module's version ("580.65.06"), which the driver API does not
 * report; NVIDIA's /proc file has it where the module is loaded:
 * "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.65.06  ...". */
static void driver_version(char *out, size_t len, int cuda_version) {
    snprintf(out, len, "CUDA %d.%d", cuda_version / 1000, cuda_version % 1000 / 10);
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[256];
    const char *p = fgets(line, sizeof line, f) ? strstr(line, "Kernel Module") : NULL;
    fclose(f);
    /* The first word after it made of digits and dots. */
    for (; p && *p; p += strcspn(p, " \t\n")) {
        p += strspn(p, " \t\n");
        size_t n = strspn(p, "0123456789."), word = strcspn(p, " \t\n");
        if (n > 0 && n == word && n < len && memchr(p, '.', n)) {
            snprintf(out, len, "%.*s", (int)n, p);
            return;
        }
    }
}

static co_status open_device(int ordinal, cu_device *d, co_device_info *info, int version,
                             const char *driver) {
    co_status st;
    if ((st = CU(DeviceGet, (&d->dev, ordinal)))) return st;
    memset(info, 0, sizeof *info);
    snprintf(info->spec, sizeof info->spec, "cuda:%d", ordinal);
    snprintf(info->backend, sizeof info->backend, "cuda");
    if ((st = CU(DeviceGetName, (info->name, (int)sizeof info->name, d->dev)))) return st;
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    snprintf(info->platform, sizeof info->platform, "CUDA");
    snprintf(info->api_version, sizeof info->api_version, "CUDA %d.%d", version / 1000,
             version % 1000 / 10);
    snprintf(info->driver_version, sizeof info->driver_version, "%s", driver);
    info->type = CO_DEVICE_GPU;
    info->compute_units = (unsigned)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info->max_work_group_size =
        (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info->max_work_item_sizes[0] = (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    info->max_work_item_sizes[1] = (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    info->max_work_item_sizes[2] = (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    /* The static __shared__ limit (48 KiB) for __local arrays; the opt-in
     * maximum (227 KiB on the H200) for a block with dynamic shared memory,
     * which kernels ask for with a CO_LOCAL argument. */
    info->local_mem_bytes =
        (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info->local_mem_arg_bytes =
        (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (info->local_mem_arg_bytes < info->local_mem_bytes)
        info->local_mem_arg_bytes = info->local_mem_bytes;
    info->clock_mhz = (unsigned)attribute(d->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
    info->cache_bytes = (size_t)attribute(d->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    if ((st = CU(DeviceTotalMem, (&info->global_mem_bytes, d->dev)))) return st;
    info->max_alloc_bytes = info->global_mem_bytes;
    d->cc = 10 * attribute(d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) +
            attribute(d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);

    if ((st = CU(DevicePrimaryCtxRetain, (&d->ctx, d->dev)))) return st;
    if ((st = CU(CtxSetCurrent, (d->ctx)))) return st;
    /* A blocking stream: it still orders against the legacy default stream
     * that libraries may use behind our back. */
    if ((st = CU(StreamCreate, (&d->stream, STREAM_FLAGS)))) return st;
    if ((st = CU(EventCreate, (&d->start, CU_EVENT_DEFAULT)))) return st;
    return CU(EventCreate, (&d->stop, CU_EVENT_DEFAULT));
}

/* Demote a failure to "backend unavailable", keeping its message. */
static co_status unavailable(void) { return restate(CO_ERR_UNSUPPORTED, ""); }

static co_status probe(co_context *ctx) {
    if (!lib_open(&cu_lib)) return co_fail(CO_ERR_UNSUPPORTED, "%s", cu_lib.why);
    int version = 0, count = 0;
    if (CU(Init, (0)) || CU(DriverGetVersion, (&version)) || CU(DeviceGetCount, (&count)))
        return unavailable();
    if (count == 0) return co_fail(CO_ERR_UNSUPPORTED, "CUDA: the driver reports no devices");
    char driver[64];
    driver_version(driver, sizeof driver, version);

    /* A device that fails to open is skipped; the backend is available if
     * any opened, else the last failure says why not. */
    size_t added = 0;
    for (int i = 0; i < count; i++) {
        co_device_info info;
        cu_device *d = calloc(1, sizeof *d);
        if (!d) return co_fail(CO_ERR_NOMEM, "out of host memory probing CUDA devices");
        co_device tmp = {.impl = d};
        co_status st = open_device(i, d, &info, version, driver);
        if (!st) st = co_context_add_device(ctx, &cuda_backend, &info, d);
        if (st)
            release(&tmp);
        else
            added++;
    }
    return added ? CO_OK : unavailable();
}

/* ---- memory ------------------------------------------------------------ */

static co_status alloc(co_device *dev, size_t bytes, co_buf **out) {
    cu_device *d = dev->impl;
    co_status st = CU(CtxSetCurrent, (d->ctx));
    if (st) return st;
    co_buf *b = calloc(1, sizeof *b);
    if (!b) return co_fail(CO_ERR_NOMEM, "out of host memory");
    b->bytes = bytes;
    CUresult r = cu.MemAlloc(&b->ptr, bytes ? bytes : 1); /* 0 bytes is an error in CUDA */
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t free_bytes = 0, total = 0;
        cu.MemGetInfo(&free_bytes, &total);
        free(b);
        return co_fail(CO_ERR_LIMIT,
                       "CUDA: cannot allocate %zu bytes on %s: %zu of %zu bytes are free", bytes,
                       dev->info.spec, free_bytes, total);
    }
    if ((st = cu_check("cuMemAlloc", r))) {
        free(b);
        return st;
    }
    *out = b;
    return CO_OK;
}

static void buf_free(co_device *dev, co_buf *buf) {
    if (!buf) return;
    cu.CtxSetCurrent(((cu_device *)dev->impl)->ctx);
    cu.MemFree(buf->ptr);
    free(buf);
}

static co_status check_size(const co_device *dev, const co_buf *buf, size_t offset, size_t bytes) {
    if (offset <= buf->bytes && bytes <= buf->bytes - offset) return CO_OK;
    return co_fail(CO_ERR_INVALID, "CUDA: copy of %zu bytes at %zu into a %zu-byte buffer on %s",
                   bytes, offset, buf->bytes, dev->info.spec);
}

static co_status write_at(co_device *dev, co_buf *dst, size_t offset, const void *src,
                          size_t bytes) {
    cu_device *d = dev->impl;
    co_status st = check_size(dev, dst, offset, bytes);
    if (!st) st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(MemcpyHtoDAsync, (dst->ptr + offset, src, bytes, d->stream));
    return st ? st : CU(StreamSynchronize, (d->stream));
}

static co_status read_at(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes) {
    cu_device *d = dev->impl;
    co_status st = check_size(dev, src, offset, bytes);
    if (!st) st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(MemcpyDtoHAsync, (dst, src->ptr + offset, bytes, d->stream));
    return st ? st : CU(StreamSynchronize, (d->stream));
}

static co_status upload(co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    return write_at(dev, dst, 0, src, bytes);
}

static co_status download(co_device *dev, void *dst, co_buf *src, size_t bytes) {
    return read_at(dev, dst, src, 0, bytes);
}

/* Page-locked host memory: DMA straight from it, no staging copy. */
struct co_pinned {
    void *host;
};

static co_status pinned_alloc(co_device *dev, size_t bytes, co_pinned **out, void **host) {
    co_pinned *p = calloc(1, sizeof *p);
    if (!p) return co_fail(CO_ERR_NOMEM, "out of host memory");
    co_status st = CU(CtxSetCurrent, (((cu_device *)dev->impl)->ctx));
    if (!st) st = CU(MemAllocHost, (&p->host, bytes ? bytes : 1));
    if (st) {
        free(p);
        return st;
    }
    *out = p;
    *host = p->host;
    return CO_OK;
}

static void pinned_free(co_device *dev, co_pinned *p) {
    if (!p) return;
    cu.CtxSetCurrent(((cu_device *)dev->impl)->ctx);
    cu.MemFreeHost(p->host);
    free(p);
}

/* ---- NVRTC ------------------------------------------------------------- */

/* Options: each -D of `defines` on its own, then ours. Points into *copy. */
static co_status make_options(const char *defines, const char *arch_option, const char *extra,
                              char **copy, const char ***opts, int *nopts) {
    static const char *const fixed[] = {"-default-device", "--std=c++17", "-DCO_CUDA_BACKEND=1"};
    const size_t nfixed = sizeof fixed / sizeof *fixed;
    const char *ws = " \t\r\n";
    *copy = malloc(strlen(defines) + 1);
    *opts = malloc((strlen(defines) / 2 + 4 + nfixed) * sizeof **opts); /* >= tokens + ours */
    if (!*copy || !*opts) {
        free(*copy);
        free(*opts);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    strcpy(*copy, defines);
    int n = 0;
    for (char *p = *copy + strspn(*copy, ws); *p; p += strspn(p, ws)) {
        (*opts)[n++] = p;
        p += strcspn(p, ws);
        if (*p) *p++ = 0;
    }
    (*opts)[n++] = arch_option;
    for (size_t i = 0; i < nfixed; i++) (*opts)[n++] = fixed[i];
    /* kernels/dialect.h: CO_FP_STRICT asks every compiler not to contract
     * a*b+c into fma, so a kernel rounds as the host C does. */
    if (strstr(defines, "-DCO_FP_STRICT")) (*opts)[n++] = "--fmad=false";
    if (extra) (*opts)[n++] = extra;
    *nopts = n;
    return CO_OK;
}

/* The log and the PTX of a compiled program into il. */
static co_status nvrtc_texts(nvrtcProgram prog, co_program *il) {
    size_t log_len = 0, ptx_len = 0;
    co_status st = NVRTC(GetProgramLogSize, (prog, &log_len));
    if (!st) st = NVRTC(GetPTXSize, (prog, &ptx_len));
    if (!st && (!(il->ptxas_log = calloc(log_len + 1, 1)) || !(il->ptx = calloc(ptx_len + 1, 1))))
        st = co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st) st = NVRTC(GetProgramLog, (prog, il->ptxas_log));
    if (!st) st = NVRTC(GetPTX, (prog, il->ptx));
    return st;
}

/* il.c's compile (il not NULL): also ptxas's report (-v) in il->ptxas_log
 * and the PTX in il->ptx. */
static co_status nvrtc_compile(const char *name, const char *source, const char *defines,
                               const char *arch, void **out, size_t *size, co_program *il) {
    *out = NULL;
    *size = 0;
    if (!defines) defines = "";
    char arch_option[48];
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", arch);
    char *copy = NULL;
    const char **opts = NULL;
    int nopts = 0;
    co_status st =
        make_options(defines, arch_option, il ? "--ptxas-options=-v" : NULL, &copy, &opts, &nopts);
    if (st) return st;

    nvrtcProgram prog = NULL;
    if ((st = NVRTC(CreateProgram, (&prog, source, name, 0, NULL, NULL)))) goto done;
    nvrtcResult r = nv.CompileProgram(prog, nopts, opts);
    if (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION) {
        size_t len = 0;
        char *log = NULL;
        if (!NVRTC(GetProgramLogSize, (prog, &len)) && (log = calloc(len + 1, 1)))
            NVRTC(GetProgramLog, (prog, log));
        int major = 0, minor = 0;
        nv.Version(&major, &minor);
        st = co_fail_log(CO_ERR_BUILD, log ? log : nv.GetErrorString(r),
                         "kernel %s.cl failed to build (NVRTC %d.%d, %s) with '%s'", name, major,
                         minor, arch, defines);
        free(log);
        goto done;
    }
    if ((st = nvrtc_check("nvrtcCompileProgram", r))) goto done;
    if (il && (st = nvrtc_texts(prog, il))) goto done;

    /* sm_XY: a cubin for that GPU; compute_XY: PTX that the driver JITs. */
    bool cubin = strncmp(arch, "sm_", 3) == 0;
    size_t len = 0;
    if ((st = cubin ? NVRTC(GetCUBINSize, (prog, &len)) : NVRTC(GetPTXSize, (prog, &len))))
        goto done;
    char *bin = malloc(len + 1);
    if (!bin) {
        st = co_fail(CO_ERR_NOMEM, "out of host memory");
        goto done;
    }
    bin[len] = 0;
    if ((st = cubin ? NVRTC(GetCUBIN, (prog, bin)) : NVRTC(GetPTX, (prog, bin)))) {
        free(bin);
        goto done;
    }
    *out = bin;
    *size = len;
done:
    if (prog) nv.DestroyProgram(&prog);
    free(copy);
    free(opts);
    return st;
}

/* nvrtc_compile through the cache directory (kind "cuda"): NVRTC keeps no
 * cache, and a kernel with its loops unrolled can take it seconds. The key
 * is all that shapes the binary: NVRTC's version, the target, the defines
 * and the source (its hash and length). */
static co_status cached_compile(const char *name, const char *source, const char *defines,
                                const char *arch, void **out, size_t *size) {
    int major = 0, minor = 0;
    nv.Version(&major, &minor);
    const size_t len = strlen(source), key_len = strlen(defines ? defines : "") + 256;
    char *key = malloc(key_len);
    if (!key) return co_fail(CO_ERR_NOMEM, "out of host memory");
    snprintf(key, key_len, "nvrtc %d.%d %s %s.cl %zu %016llx %s", major, minor, arch, name, len,
             (unsigned long long)co_hash(CO_HASH_SEED, source, len), defines ? defines : "");
    co_status st = CO_OK;
    if (!co_cache_get("cuda", key, out, size) &&
        !(st = nvrtc_compile(name, source, defines, arch, out, size, NULL)))
        co_cache_put("cuda", key, *out, *size);
    free(key);
    return st;
}

/* What this NVRTC can target around compute capability cc: whether cc
 * itself, the newest architecture below it, and the oldest of all. */
static co_status nvrtc_archs(int cc, bool *exact, int *below, int *oldest) {
    int n = 0, *list = NULL;
    *exact = false;
    *below = *oldest = 0;
    co_status st = NVRTC(GetNumSupportedArchs, (&n));
    if (st) return st;
    if (n <= 0) return co_fail(CO_ERR_UNSUPPORTED, "CUDA: NVRTC supports no architecture");
    if (!(list = malloc((size_t)n * sizeof *list)))
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!(st = NVRTC(GetSupportedArchs, (list))))
        for (int i = 0; i < n; i++) {
            if (list[i] == cc) *exact = true;
            if (list[i] < cc && list[i] > *below) *below = list[i];
            if (!*oldest || list[i] < *oldest) *oldest = list[i];
        }
    free(list);
    return st;
}

static co_status nvrtc_unsupported(co_status st, const char *arch, int oldest) {
    int major = 0, minor = 0, newest = 0, first;
    bool exact;
    nv.Version(&major, &minor);
    nvrtc_archs(INT_MAX, &exact, &newest, &first); /* the newest: the one below any */
    return co_fail(st, "CUDA: NVRTC %d.%d cannot compile for %s (its targets: sm_%d to sm_%d)",
                   major, minor, arch, oldest, newest);
}

/* The compute capability of "sm_XY" (or, where compute is true,
 * "compute_XY"): one to four digits, nothing after them. */
static bool arch_cc(const char *arch, bool compute, int *cc) {
    const char *d = !arch                                          ? NULL
                    : strncmp(arch, "sm_", 3) == 0                 ? arch + 3
                    : compute && strncmp(arch, "compute_", 8) == 0 ? arch + 8
                                                                   : NULL;
    const size_t n = d ? strspn(d, "0123456789") : 0;
    if (n < 1 || n > 4 || d[n]) return false;
    *cc = atoi(d);
    return true;
}

/* The target for a device of compute capability cc: a cubin when this
 * NVRTC knows the GPU, else PTX for the newest architecture it knows below
 * it, which the driver compiles when loading (a GPU newer than NVRTC). */
static co_status choose_arch(int cc, char *arch, size_t len) {
    bool exact;
    int below, oldest;
    co_status st = nvrtc_archs(cc, &exact, &below, &oldest);
    if (st) return st;
    if (exact)
        snprintf(arch, len, "sm_%d", cc);
    else if (below)
        snprintf(arch, len, "compute_%d", below);
    else {
        char want[16];
        snprintf(want, sizeof want, "sm_%d", cc);
        return nvrtc_unsupported(CO_ERR_UNSUPPORTED, want, oldest);
    }
    return CO_OK;
}

co_status co_cuda_compile(const char *name, const char *source, const char *defines,
                          const char *arch, void **out, size_t *size) {
    *out = NULL;
    *size = 0;
    if (!lib_open(&nvrtc_lib)) return co_fail(CO_ERR_UNSUPPORTED, "%s", nvrtc_lib.why);
    /* Check the target first: an unknown one is the caller's error, not a
     * failed build. */
    int cc = 0;
    if (!arch_cc(arch, true, &cc))
        return co_fail(CO_ERR_INVALID, "CUDA: unknown architecture '%s' (use sm_XY or compute_XY)",
                       arch ? arch : "(null)");
    bool exact;
    int below, oldest;
    co_status st = nvrtc_archs(cc, &exact, &below, &oldest);
    if (st) return st;
    if (!exact) return nvrtc_unsupported(CO_ERR_INVALID, arch, oldest);
    return cached_compile(name, source, defines, arch, out, size);
}

/* ---- programs and kernels ---------------------------------------------- */

static char *copy_of(const char *s) {
    char *c = malloc(strlen(s ? s : "") + 1);
    if (c) strcpy(c, s ? s : "");
    return c;
}

static co_status keep_sources(co_program *prog, const char *name, const char *source,
                              const char *defines) {
    prog->name = copy_of(name);
    prog->source = copy_of(source);
    prog->defines = copy_of(defines);
    return prog->name && prog->source && prog->defines
               ? CO_OK
               : co_fail(CO_ERR_NOMEM, "out of host memory");
}

static co_status build(co_device *dev, const char *name, const char *source, const char *defines,
                       co_program **out) {
    cu_device *d = dev->impl;
    if (!lib_open(&nvrtc_lib))
        return co_fail(CO_ERR_UNSUPPORTED, "CUDA: cannot compile kernel %s.cl: %s", name,
                       nvrtc_lib.why);
    co_status st;
    if (!d->arch[0] && (st = choose_arch(d->cc, d->arch, sizeof d->arch))) return st;
    void *bin;
    size_t size;
    if ((st = cached_compile(name, source, defines, d->arch, &bin, &size))) return st;

    co_program *prog = calloc(1, sizeof *prog);
    if (!prog) {
        free(bin);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    if ((st = keep_sources(prog, name, source, defines))) {
        free(bin);
        program_free(dev, prog);
        return st;
    }
    /* The JIT's log says why a module does not load (PTX too new for the
     * driver, a cubin for another GPU). */
    char log[4096] = "";
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(ModuleLoadDataEx, (&prog->module, bin, 2, keys, values));
    free(bin);
    if (st) {
        program_free(dev, prog);
        char note[4200];
        snprintf(note, sizeof note, " loading kernel %s.cl (%s)%s%s", name, d->arch,
                 log[0] ? ":\n" : "", log);
        return restate(CO_ERR_BUILD, note);
    }
    *out = prog;
    return CO_OK;
}

static void program_free(co_device *dev, co_program *prog) {
    if (!prog) return;
    for (size_t i = 0; i < prog->nkernels; i++) free(prog->kernels[i]);
    free(prog->kernels);
    if (prog->module) {
        cu.CtxSetCurrent(((cu_device *)dev->impl)->ctx);
        cu.ModuleUnload(prog->module);
    }
    free(prog->name);
    free(prog->source);
    free(prog->defines);
    free(prog->ptx);
    free(prog->ptxas_log);
    free(prog->cubin);
    free(prog);
}

/* COALESCE_CUDA_CARVEOUT (an experiment's knob): the shared memory's
 * preferred share of the SM's L1 storage, in percent, set once a kernel;
 * unset, the driver chooses (docs/ARCHITECTURE.md: what the L1 is worth). */
static co_status set_carveout(CUfunction fn) {
    const char *env = getenv("COALESCE_CUDA_CARVEOUT");
    if (!env || !*env) return CO_OK;
    char *end;
    const long percent = strtol(env, &end, 10);
    if (*end || percent < 0 || percent > 100)
        return co_fail(CO_ERR_INVALID, "COALESCE_CUDA_CARVEOUT=%s: not a percentage (0-100)", env);
    return CU(FuncSetAttribute,
              (fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, (int)percent));
}

static co_status kernel(co_device *dev, co_program *prog, const char *entry, co_kernel **out) {
    for (size_t i = 0; i < prog->nkernels; i++)
        if (strcmp(prog->kernels[i]->entry, entry) == 0) {
            *out = prog->kernels[i];
            return CO_OK;
        }
    co_kernel **grown = realloc(prog->kernels, (prog->nkernels + 1) * sizeof *grown);
    if (!grown) return co_fail(CO_ERR_NOMEM, "out of host memory");
    prog->kernels = grown;
    co_kernel *k = malloc(sizeof *k + strlen(entry) + 1);
    if (!k) return co_fail(CO_ERR_NOMEM, "out of host memory");
    strcpy(k->entry, entry);
    k->module = prog->module;
    k->dynamic_allowed = 0;
    co_status st = CO_OK;
    if (!prog->module) { /* an offline device: the entry is looked for in the PTX */
        char key[160];
        snprintf(key, sizeof key, ".entry %.100s(", entry);
        k->fn = NULL;
        k->max_threads = (int)dev->info.max_work_group_size;
        k->regs = 0;
        if (!strstr(prog->ptx, key))
            st = co_fail(CO_ERR_DEVICE, "CUDA: no kernel '%s' in %s.cl", entry, prog->name);
    } else {
        st = CU(CtxSetCurrent, (((cu_device *)dev->impl)->ctx));
        if (!st) st = CU(ModuleGetFunction, (&k->fn, prog->module, entry));
        if (!st)
            st = CU(FuncGetAttribute,
                    (&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn));
        if (!st) st = CU(FuncGetAttribute, (&k->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn));
        if (!st) st = set_carveout(k->fn);
    }
    if (st) {
        free(k);
        char note[160];
        snprintf(note, sizeof note, " (kernel '%.100s')", entry);
        return restate(st, note);
    }
    prog->kernels[prog->nkernels++] = k;
    *out = k;
    return CO_OK;
}

/* ---- launch ------------------------------------------------------------ */

#define MAX_ARGS 32

static co_status launch(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t nargs, const co_arg *args,
                        double *kernel_ms) {
    cu_device *d = dev->impl;
    static const size_t max_grid[3] = {2147483647u, 65535u, 65535u};
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    if (dims < 1 || dims > 3 || !global || !local)
        return co_fail(CO_ERR_INVALID, "CUDA: kernel '%s' launched with %u dimensions", k->entry,
                       dims);
    size_t threads = 1;
    for (unsigned i = 0; i < dims; i++) {
        if (local[i] == 0 || global[i] % local[i] != 0)
            return co_fail(CO_ERR_INVALID,
                           "CUDA: kernel '%s': global size %zu is not a multiple of local "
                           "size %zu in dimension %u",
                           k->entry, global[i], local[i], i);
        if (local[i] > dev->info.max_work_item_sizes[i] || global[i] / local[i] > max_grid[i])
            return co_fail(CO_ERR_LIMIT,
                           "CUDA: kernel '%s': dimension %u has blocks of %zu (limit %zu) and "
                           "a grid of %zu blocks (limit %zu)",
                           k->entry, i, local[i], dev->info.max_work_item_sizes[i],
                           global[i] / local[i], max_grid[i]);
        block[i] = (unsigned)local[i];
        grid[i] = (unsigned)(global[i] / local[i]);
        threads *= local[i];
    }
    if (threads > dev->info.max_work_group_size)
        return co_fail(CO_ERR_LIMIT, "CUDA: kernel '%s': %zu threads per block (limit %zu)",
                       k->entry, threads, dev->info.max_work_group_size);
    /* A kernel's own limit, below the device's where its registers run out
     * (cuLaunchKernel would say only "too many resources"). */
    if (threads > (size_t)k->max_threads)
        return co_fail(CO_ERR_LIMIT,
                       "CUDA: kernel '%s': %zu threads per block, but its %d "
                       "registers a thread allow %d",
                       k->entry, threads, k->regs, k->max_threads);
    if (nargs > MAX_ARGS)
        return co_fail(CO_ERR_INVALID, "CUDA: kernel '%s': %zu arguments (limit %d)", k->entry,
                       nargs, MAX_ARGS);

    /* cuLaunchKernel takes a pointer to each argument's value. */
    union {
        CUdeviceptr ptr;
        int32_t i;
        uint32_t u;
        float f;
    } values[MAX_ARGS];
    void *params[MAX_ARGS];
    unsigned dynamic = 0;
    for (size_t i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case CO_ARG_BUF:
            if (!args[i].v.buf)
                return co_fail(CO_ERR_INVALID, "CUDA: kernel '%s': argument %zu is a null buffer",
                               k->entry, i);
            values[i].ptr = args[i].v.buf->ptr;
            break;
        case CO_ARG_INT: values[i].i = args[i].v.i; break;
        case CO_ARG_UINT: values[i].u = args[i].v.u; break;
        case CO_ARG_FLOAT: values[i].f = args[i].v.f; break;
        case CO_ARG_IMAGE: values[i].ptr = args[i].v.img->tex; break; /* CUtexObject: 64 bits */
        case CO_ARG_LOCAL: /* the block's dynamic shared memory; the parameter gets its size */
            if (dynamic)
                return co_fail(CO_ERR_INVALID,
                               "CUDA: kernel '%s': a second local-memory "
                               "argument (%zu); CUDA has one dynamic block",
                               k->entry, i);
            dynamic = args[i].v.u;
            values[i].u = args[i].v.u;
            break;
        default:
            return co_fail(CO_ERR_INVALID, "CUDA: kernel '%s': argument %zu has an unknown kind",
                           k->entry, i);
        }
        params[i] = &values[i];
    }

    char note[160];
    snprintf(note, sizeof note, " (kernel '%.100s')", k->entry);
    co_status st = kernel_ms ? co_cuda_timer_start(dev) : CU(CtxSetCurrent, (d->ctx));
    /* Over 48 KiB a kernel must opt in, once per size it grows to. */
    if (!st && dynamic > k->dynamic_allowed) {
        st = CU(FuncSetAttribute,
                (k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dynamic));
        if (!st) k->dynamic_allowed = dynamic;
    }
    if (!st)
        st = CU(LaunchKernel, (k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                               dynamic, d->stream, nargs ? params : NULL, NULL));
    if (st) return restate(st, note);
    /* Faults inside the kernel surface when waiting for it. */
    double ms = 0;
    if (!kernel_ms) return CO_OK; /* queued: finish() waits */
    st = co_cuda_timer_stop(dev, &ms);
    if (st) return restate(st, note);
    *kernel_ms = ms;
    return CO_OK;
}

static co_status finish(co_device *dev) {
    cu_device *d = dev->impl;
    co_status st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(StreamSynchronize, (d->stream));
    return st ? restate(st, " (a queued kernel)") : CO_OK;
}

/* ---- 2D images: texture objects over CUDA arrays ----------------------- */

static bool image_support(const co_device *dev, const char **why) {
    (void)dev, (void)why;
    return true; /* every CUDA device has texture objects (compute capability >= 3.0) */
}

static void image_free(co_device *dev, co_img *img) {
    if (!img) return;
    cu.CtxSetCurrent(((cu_device *)dev->impl)->ctx);
    if (img->tex) cu.TexObjectDestroy(img->tex);
    if (img->array) cu.ArrayDestroy(img->array);
    free(img);
}

/* Point sampling at integer coordinates; clamp or zero border (reflect101
 * has no address mode on unnormalised coordinates: kernels map those);
 * 8-bit formats read as integers, not normalised floats. */
static co_status image_alloc(co_device *dev, size_t width, size_t height, co_img_format format,
                             co_img_border border, co_img **out) {
    co_img *img = calloc(1, sizeof *img);
    if (!img) return co_fail(CO_ERR_NOMEM, "out of host memory");
    const bool u8 = format != CO_IMG_R_F32;
    const unsigned channels = format == CO_IMG_RGBA_U8 ? 4 : 1;
    img->width = width;
    img->height = height;
    img->pixel_bytes = u8 ? channels : 4;
    CUDA_ARRAY_DESCRIPTOR ad = {.Width = width,
                                .Height = height,
                                .Format = u8 ? CU_AD_FORMAT_UNSIGNED_INT8 : CU_AD_FORMAT_FLOAT,
                                .NumChannels = channels};
    CUDA_RESOURCE_DESC rd = {.resType = CU_RESOURCE_TYPE_ARRAY};
    CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_POINT,
                            .flags = u8 ? CU_TRSF_READ_AS_INTEGER : 0};
    const CUaddress_mode mode =
        border == CO_IMG_ZERO ? CU_TR_ADDRESS_MODE_BORDER : CU_TR_ADDRESS_MODE_CLAMP;
    td.addressMode[0] = td.addressMode[1] = mode; /* border colour: zeros */
    co_status st = CU(CtxSetCurrent, (((cu_device *)dev->impl)->ctx));
    if (!st) st = CU(ArrayCreate, (&img->array, &ad));
    rd.res.array.hArray = img->array;
    if (!st) st = CU(TexObjectCreate, (&img->tex, &rd, &td, NULL));
    if (st) {
        image_free(dev, img);
        char note[96];
        snprintf(note, sizeof note, " (a %zux%zu texture)", width, height);
        return restate(st, note);
    }
    *out = img;
    return CO_OK;
}

static co_status image_copy_from_buffer(co_device *dev, co_img *dst, co_buf *src, double *ms) {
    cu_device *d = dev->impl;
    CUDA_MEMCPY2D copy = {.srcMemoryType = CU_MEMORYTYPE_DEVICE,
                          .srcDevice = src->ptr,
                          .srcPitch = dst->width * dst->pixel_bytes,
                          .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                          .dstArray = dst->array,
                          .WidthInBytes = dst->width * dst->pixel_bytes,
                          .Height = dst->height};
    co_status st = check_size(dev, src, 0, dst->width * dst->height * dst->pixel_bytes);
    if (!st) st = co_cuda_timer_start(dev);
    if (!st) st = CU(Memcpy2DAsync, (&copy, d->stream));
    return st ? st : co_cuda_timer_stop(dev, ms);
}

/* True constant memory for a kernel: its program's __constant__ array
 * `symbol`, filled from device memory on the stream (the dialect maps
 * OpenCL's __constant arguments to plain global memory). */
static co_status constant_from_buffer(co_device *dev, co_kernel *k, const char *symbol, co_buf *src,
                                      size_t bytes, double *ms) {
    cu_device *d = dev->impl;
    CUdeviceptr dst;
    size_t size = 0;
    co_status st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(ModuleGetGlobal, (&dst, &size, k->module, symbol));
    if (st) {
        char note[160];
        snprintf(note, sizeof note, " (constant '%.60s' of kernel '%.60s')", symbol, k->entry);
        return restate(st, note);
    }
    if (bytes > size || bytes > src->bytes)
        return co_fail(CO_ERR_INVALID,
                       "CUDA: %zu bytes into constant '%s' of %zu bytes from a buffer of %zu",
                       bytes, symbol, size, src->bytes);
    st = co_cuda_timer_start(dev);
    if (!st) st = CU(MemcpyDtoDAsync, (dst, src->ptr, bytes, d->stream));
    if (!st) st = co_cuda_timer_stop(dev, ms);
    return st;
}

/* ---- what the compiler made of it (src/core/il.c) ---------------------- */

/* The compile that shows it, once a program: the PTX, ptxas's report (-v)
 * and, for a real architecture, the cubin (not cached: a diagnostic). */
static co_status il_compile(const cu_device *d, co_program *prog) {
    if (prog->ptx) return CO_OK;
    void *bin;
    size_t size;
    co_status st =
        nvrtc_compile(prog->name, prog->source, prog->defines, d->arch, &bin, &size, prog);
    if (st) {
        free(prog->ptx);
        free(prog->ptxas_log);
        prog->ptx = prog->ptxas_log = NULL;
        return st;
    }
    if (strncmp(d->arch, "sm_", 3) == 0) {
        prog->cubin = bin;
        prog->cubin_size = size;
    } else {
        free(bin);
    }
    return CO_OK;
}

static const char *il_formats(const co_device *dev) {
    (void)dev;
    return "ptx sass";
}

static co_status program_text(co_device *dev, co_program *prog, co_kernel *k, const char *format,
                              const size_t local[3], char **out) {
    (void)k, (void)local;
    const cu_device *d = dev->impl;
    *out = NULL;
    co_status st = il_compile(d, prog);
    if (st) return st;
    if (!strcmp(format, "ptx"))
        return (*out = copy_of(prog->ptx)) ? CO_OK : co_fail(CO_ERR_NOMEM, "out of host memory");
    static const char *const tools[] = {"cuobjdump", "nvdisasm", NULL};
    char tool[1024], path[512], args[600];
    if (!co_tool_find(tools, tool, sizeof tool))
        return co_fail(CO_ERR_UNSUPPORTED,
                       "SASS not available: no nvdisasm/cuobjdump found "
                       "(on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin)");
    if (!prog->cubin)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "SASS not available: %s is PTX that the driver "
                       "compiles (this NVRTC does not know the GPU)",
                       d->arch);
    if ((st = co_tool_temp(prog->cubin, prog->cubin_size, path, sizeof path))) return st;
    snprintf(args, sizeof args, strstr(tool, "cuobjdump") ? "-sass %s" : "%s", path);
    int status = 0;
    st = co_tool_run(tool, args, out, &status);
    unlink(path);
    if (!st && status != 0) {
        st = co_fail(CO_ERR_DEVICE, "%s %s failed: %.300s", tool, args, *out);
        free(*out);
        *out = NULL;
    }
    return st;
}

/* In log, head followed by entry, then a quote where head opens one, else
 * the line's end (blanks aside): where it starts, or NULL. */
static const char *log_line(const char *log, const char *head, const char *entry) {
    const size_t hl = strlen(head), el = strlen(entry);
    const bool quoted = hl && head[hl - 1] == '\'';
    for (const char *p = log ? strstr(log, head) : NULL; p; p = strstr(p + hl, head)) {
        const char *rest = p + hl + el;
        if (strncmp(p + hl, entry, el)) continue;
        if (quoted ? *rest == '\'' : strspn(rest, " \t\r") == strcspn(rest, "\n")) return p;
    }
    return NULL;
}

/* ptxas -v's figures for entry. Its part of the report runs from
 * "Compiling entry function 'ENTRY'" (or, where that line is missing,
 * "Function properties for ENTRY") to the next entry's, and holds
 * "N bytes stack frame, N bytes spill stores, N bytes spill loads" and
 * "Used N registers, ..., N bytes smem, ...". The order of the lines and the
 * entries differs between ptxas versions, so each is looked for in the part. */
void co_cuda_ptxas_figures(const char *log, const char *entry, co_il_resources *r) {
    static const char compiling[] = "Compiling entry function '",
                      props_head[] = "Function properties for ";
    const char *part = log_line(log, compiling, entry), *next, *props;
    if (part) {
        next = strstr(part + 1, compiling);
        props = log_line(part, props_head, entry);
        if (props && next && props > next) props = NULL;
    } else if ((part = props = log_line(log, props_head, entry))) {
        next = strstr(part + 1, props_head);
    } else {
        return;
    }
    /* the entry's own frame, not a called function's listed before it */
    const char *frame = strstr(props ? props : part, "bytes stack frame");
    const char *used = strstr(part, "Used ");
    if (frame && (!next || frame < next)) {
        while (frame > part && frame[-1] != '\n') frame--;
        sscanf(frame + strcspn(frame, "0123456789"),
               "%ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads",
               &r->stack_bytes, &r->spill_stores, &r->spill_loads);
    }
    if (used && (!next || used < next)) {
        sscanf(used, "Used %ld registers", &r->registers);
        const char *end = strchr(used, '\n'), *smem = strstr(used, " bytes smem");
        r->shared_bytes = 0;
        if (smem && (!end || smem < end)) {
            while (smem > used && smem[-1] != ' ') smem--;
            r->shared_bytes = strtol(smem, NULL, 10);
        }
    }
}

/* The cubin's own figures for entry: ELF64 sections .symtab, .strtab and
 * .nv.info, whose attributes are {u8 format, u8 attribute, u16 size or value}
 * with `size` bytes after it in format 4 (EIFMT_SVAL); EIATTR_REGCOUNT (0x2f)
 * and EIATTR_FRAME_SIZE (0x11) hold {u32 symbol, u32 value}; the static
 * shared memory is the size of section .nv.shared.ENTRY. A reader of our
 * own (libelf would read the sections, not the attributes): ptxas's text report
 * differs between versions (the H200 machine's NVRTC left 10 entries without
 * a register count, 2026-12-02), the cubin's attributes do not. Fields it
 * does not hold are left as they were; a malformed cubin leaves all. */
static uint64_t le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
void co_cuda_cubin_figures(const void *cubin, size_t size, const char *entry, co_il_resources *r) {
    const unsigned char *d = cubin;
    if (!d || size < 64 || memcmp(d, "\177ELF\2\1", 6)) return; /* ELF64, little-endian */
    const uint64_t shoff = le(d + 0x28, 8), shentsize = le(d + 0x3a, 2), shnum = le(d + 0x3c, 2);
    if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize) return;
    const uint64_t shstr = le(d + 0x3e, 2);
    if (shstr >= shnum) return;
    const unsigned char *names = d + shoff + shstr * shentsize;
    const uint64_t names_at = le(names + 24, 8), names_size = le(names + 32, 8);
    if (names_at > size || names_size > size - names_at) return;
    uint64_t at[3] = {0}, len[3] = {0}; /* .symtab, .strtab, .nv.info */
    long shared = -1;                   /* the size of section .nv.shared.ENTRY */
    bool reserved = false;              /* a .nv.shared.reserved.N section */
    static const char *const wanted[3] = {".symtab", ".strtab", ".nv.info"};
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *h = d + shoff + i * shentsize;
        const uint64_t name = le(h, 4), off = le(h + 24, 8), bytes = le(h + 32, 8);
        if (name >= names_size || off > size) continue;
        const char *n = (const char *)d + names_at + name;
        if (!memchr(n, 0, names_size - name)) continue; /* a name that runs out of its section */
        for (int w = 0; w < 3; w++)
            if (!strcmp(n, wanted[w]) && bytes <= size - off) at[w] = off, len[w] = bytes;
        if (!strncmp(n, ".nv.shared.", 11)) { /* no bits in the file: any size */
            if (!strcmp(n + 11, entry)) shared = (long)bytes;
            if (!strncmp(n + 11, "reserved.", 9)) reserved = true;
        }
    }
    if (!len[0] || !len[1] || !len[2]) return;
    long symbol = -1; /* entry's index in .symtab (24-byte Elf64_Sym, st_name first) */
    for (uint64_t k = 0; k < len[0] / 24 && symbol < 0; k++) {
        const uint64_t name = le(d + at[0] + 24 * k, 4);
        const char *n = (const char *)d + at[1] + name;
        if (name < len[1] && memchr(n, 0, len[1] - name) && !strcmp(n, entry)) symbol = (long)k;
    }
    if (symbol < 0) return;
    /* From sm_90 the section holds the 1 KiB a group reserves for the system too, and the
     * cubin has .nv.shared.reserved.0 (NVRTC 13.0: sm_90, sm_100, sm_120; up to sm_89 neither);
     * a kernel that declares none has no section. */
    if (shared >= 0) r->shared_bytes = reserved && shared >= 1024 ? shared - 1024 : shared;
    for (uint64_t o = 0; o + 4 <= len[2];) {
        const unsigned char *a = d + at[2] + o;
        const uint64_t n = a[0] == 4 ? le(a + 2, 2) : 0;
        if (n > len[2] - o - 4) return;
        if (a[0] == 4 && n >= 8 && (long)le(a + 4, 4) == symbol) {
            if (a[1] == 0x2f) r->registers = (long)le(a + 8, 4);
            if (a[1] == 0x11) r->stack_bytes = (long)le(a + 8, 4);
        }
        o += 4 + n;
    }
}

static co_status kernel_resources(co_device *dev, co_program *prog, co_kernel *k,
                                  const size_t local[3], size_t dynamic_local, co_il_resources *r) {
    const cu_device *d = dev->impl;
    co_status st = il_compile(d, prog);
    if (st) return st;
    co_cuda_ptxas_figures(prog->ptxas_log, k->entry, r);
    if (r->registers <= 0) co_cuda_cubin_figures(prog->cubin, prog->cubin_size, k->entry, r);
    if (!k->fn) { /* offline: the occupancy from the architecture's limits */
        co_il_estimate_occupancy(r, &dev->info, local, dynamic_local);
        snprintf(r->from, sizeof r->from, "ptxas -v (NVRTC %s); occupancy from sm_80-90 limits",
                 d->arch);
        return CO_OK;
    }
    int regs = 0, stack = 0, shared = 0, max = 0, groups = 0;
    const int threads = (int)(local[0] * local[1] * local[2]);
    st = CU(CtxSetCurrent, (d->ctx));
    if (!st) st = CU(FuncGetAttribute, (&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn));
    if (!st) st = CU(FuncGetAttribute, (&stack, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn));
    if (!st) st = CU(FuncGetAttribute, (&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
    if (!st) st = CU(FuncGetAttribute, (&max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn));
    if (!st)
        st =
            CU(OccupancyMaxActiveBlocksPerMultiprocessor, (&groups, k->fn, threads, dynamic_local));
    if (st) return st;
    const int per_sm = attribute(d->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    r->registers = regs;
    r->stack_bytes = stack;
    r->shared_bytes = shared;
    r->max_group = max;
    r->groups_per_cu = groups;
    r->occupancy = per_sm ? (double)groups * ((threads + 31) / 32) / (per_sm / 32) : -1;
    snprintf(r->from, sizeof r->from, "cuFuncGetAttribute, cuOccupancy...; spills: ptxas -v (%s)",
             d->arch);
    return CO_OK;
}

/* ---- an offline device: NVRTC alone, nothing runs ---------------------- */

static void offline_release(co_device *dev) {
    free(dev->impl);
    dev->impl = NULL;
}

static co_status offline_build(co_device *dev, const char *name, const char *source,
                               const char *defines, co_program **out) {
    co_program *prog = calloc(1, sizeof *prog);
    if (!prog) return co_fail(CO_ERR_NOMEM, "out of host memory");
    co_status st = keep_sources(prog, name, source, defines);
    if (!st) st = il_compile(dev->impl, prog);
    if (st) {
        program_free(dev, prog);
        return st;
    }
    *out = prog;
    return CO_OK;
}

static co_status offline_alloc(co_device *dev, size_t bytes, co_buf **out) {
    (void)dev;
    if (!(*out = calloc(1, sizeof **out))) return co_fail(CO_ERR_NOMEM, "out of host memory");
    (*out)->bytes = bytes;
    return CO_OK;
}

static void offline_free(co_device *dev, co_buf *buf) {
    (void)dev;
    free(buf);
}

static co_status offline_copy(co_device *dev, co_buf *buf, size_t bytes) {
    return check_size(dev, buf, 0, bytes);
}
static co_status offline_upload(co_device *dev, co_buf *dst, const void *src, size_t bytes) {
    (void)src;
    return offline_copy(dev, dst, bytes);
}
static co_status offline_download(co_device *dev, void *dst, co_buf *src, size_t bytes) {
    (void)dst;
    return offline_copy(dev, src, bytes);
}

static co_status offline_launch(co_device *dev, co_kernel *k, unsigned dims, const size_t global[3],
                                const size_t local[3], size_t nargs, const co_arg *args,
                                double *kernel_ms) {
    (void)dev, (void)k, (void)dims, (void)global, (void)local, (void)nargs, (void)args;
    if (kernel_ms) *kernel_ms = 0;
    return CO_OK;
}

static co_status offline_image_alloc(co_device *dev, size_t width, size_t height,
                                     co_img_format format, co_img_border border, co_img **out) {
    (void)dev, (void)format, (void)border;
    if (!(*out = calloc(1, sizeof **out))) return co_fail(CO_ERR_NOMEM, "out of host memory");
    (*out)->width = width;
    (*out)->height = height;
    return CO_OK;
}

static void offline_image_free(co_device *dev, co_img *img) {
    (void)dev;
    free(img);
}

static co_status offline_image_copy(co_device *dev, co_img *dst, co_buf *src, double *ms) {
    (void)dev, (void)dst, (void)src;
    *ms = 0;
    return CO_OK;
}

static co_status offline_constant(co_device *dev, co_kernel *k, const char *symbol, co_buf *src,
                                  size_t bytes, double *ms) {
    (void)dev, (void)k, (void)symbol, (void)src, (void)bytes;
    *ms = 0;
    return CO_OK;
}

static const co_backend offline_backend = {
    .name = "cuda",
    .release = offline_release,
    .alloc = offline_alloc,
    .free = offline_free,
    .upload = offline_upload,
    .download = offline_download,
    .build = offline_build,
    .program_free = program_free,
    .kernel = kernel,
    .launch = offline_launch,
    .constant_from_buffer = offline_constant,
    .image_support = image_support,
    .image_alloc = offline_image_alloc,
    .image_free = offline_image_free,
    .image_copy_from_buffer = offline_image_copy,
    .il_formats = il_formats,
    .program_text = program_text,
    .kernel_resources = kernel_resources,
};

co_status co_cuda_offline_device(const char *arch, co_device **out) {
    *out = NULL;
    if (!lib_open(&nvrtc_lib)) return co_fail(CO_ERR_UNSUPPORTED, "%s", nvrtc_lib.why);
    int cc = 0, below, oldest, major = 0, minor = 0;
    bool exact;
    if (!arch_cc(arch, false, &cc))
        return co_fail(CO_ERR_INVALID, "CUDA: unknown target '%s' (use sm_XY, e.g. sm_90)",
                       arch ? arch : "");
    co_status st = nvrtc_archs(cc, &exact, &below, &oldest);
    if (st) return st;
    if (!exact) return nvrtc_unsupported(CO_ERR_INVALID, arch, oldest);
    co_device *dev = calloc(1, sizeof *dev);
    cu_device *d = calloc(1, sizeof *d);
    if (!dev || !d) {
        free(dev);
        free(d);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    nv.Version(&major, &minor);
    d->cc = cc;
    snprintf(d->arch, sizeof d->arch, "sm_%d", cc);
    co_device_info *info = &dev->info;
    snprintf(info->spec, sizeof info->spec, "nvrtc:sm_%d", cc);
    snprintf(info->backend, sizeof info->backend, "cuda");
    snprintf(info->name, sizeof info->name, "NVRTC sm_%d, no device (an H200's limits)", cc);
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    snprintf(info->platform, sizeof info->platform, "CUDA (offline)");
    snprintf(info->api_version, sizeof info->api_version, "NVRTC %d.%d", major, minor);
    /* An H200's (the GPU the defaults were measured on): the variants size
     * their launches from these. */
    info->type = CO_DEVICE_GPU;
    info->compute_units = 132;
    info->max_work_group_size = 1024;
    info->max_work_item_sizes[0] = info->max_work_item_sizes[1] = 1024;
    info->max_work_item_sizes[2] = 64;
    info->local_mem_bytes = 48 << 10;
    info->local_mem_arg_bytes = 227 << 10;
    info->cache_bytes = 60 << 20;
    info->global_mem_bytes = info->max_alloc_bytes = (size_t)140 << 30;
    info->clock_mhz = 1980;
    dev->backend = &offline_backend;
    dev->impl = d;
    *out = dev;
    return CO_OK;
}

static const co_backend cuda_backend = {
    .name = "cuda",
    .probe = probe,
    .release = release,
    .alloc = alloc,
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
    .constant_from_buffer = constant_from_buffer,
    .image_support = image_support,
    .image_alloc = image_alloc,
    .image_free = image_free,
    .image_copy_from_buffer = image_copy_from_buffer,
    .il_formats = il_formats,
    .program_text = program_text,
    .kernel_resources = kernel_resources,
};

const co_backend *co_backend_cuda(void) { return &cuda_backend; }
