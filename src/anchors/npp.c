/* The NPP anchor for the box filter: nppiFilterBoxBorder_{8u_C4R, 8u_C1R,
 * 32f_C1R}_Ctx of libnppif (CUDA's image primitives) on the device's own
 * buffers and stream, timed by the device's events like every CUDA
 * variant. libnppif (with libnppc beside it: its RPATH is $ORIGIN) is
 * opened with dlopen like cuBLAS, so a machine without NPP only loses
 * this variant. No NPP header is needed: the few types below are NPP's
 * own (nppdefs.h of NPP 12.x and 13.0-13.2, CUDA 12-13: the _Ctx calls,
 * the only ones CUDA 13 keeps, and NppStreamContext, whose layout these
 * versions share).
 *
 * What NPP computes: FilterBoxBorder takes NPP_BORDER_REPLICATE only (its
 * documentation: "currently only the NPP_BORDER_REPLICATE border type
 * operation is supported"), our clamp; reflect101 and zero are declined
 * as unavailable (NPP's enum has NPP_BORDER_MIRROR = reflect101 and
 * NPP_BORDER_CONSTANT, which this function does not take). 8-bit means:
 * NPP does not document its rounding (others measured it truncating,
 * floor(sum / (2r+1)^2)); verify takes either the workload's round to
 * nearest (|out - ref| <= 0.5) or truncation (0 <= ref - out < 1), all
 * means one way, the check naming which ("full, truncated"). float32: NPP's summation is not
 * documented; held to the bound of any order of plain float sums of the
 * window's n^2 taps, K = n^2 (the workload's model, in units of u max|in|).
 * Radii above 1448 are refused (a skip): a wider 8-bit window's sum
 * 255 (2r+1)^2 overflows a signed 32-bit sum, NPP's sum type is not
 * documented, and a plain 2D filter would read (2r+1)^2 pixels a pixel. */
#include "workloads/boxfilter.h"

#ifdef COALESCE_HAVE_CUDA
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/cuda/cuda_access.h"

#define CO_HOST_C 1
#include "dialect.h"
#include "boxfilter_common.cl" /* BF_CLAMP */

/* NPP_NO_ERROR = 0; errors < 0 (NPP_SIZE_ERROR -6, NPP_NOT_SUPPORTED_MODE_ERROR -14,
 * NPP_MASK_SIZE_ERROR -33, NPP_ANCHOR_ERROR -34), warnings > 0. */
typedef int NppStatus;
typedef struct {
    int width, height;
} NppiSize;
typedef struct {
    int x, y;
} NppiPoint;
enum { NPP_BORDER_REPLICATE = 2 };
typedef struct {
    struct CUstream_st *hStream;
    int nCudaDeviceId, nMultiProcessorCount, nMaxThreadsPerMultiProcessor, nMaxThreadsPerBlock;
    size_t nSharedMemPerBlock;
    int nCudaDevAttrComputeCapabilityMajor, nCudaDevAttrComputeCapabilityMinor;
    unsigned int nStreamFlags;
    unsigned int nReserved0; /* hWorkspace in 13.2: 0, no workspace */
} NppStreamContext;
typedef struct {
    int major, minor, build;
} NppLibraryVersion;

/* Every FilterBoxBorder call has this shape, element type aside. */
typedef NppStatus (*npp_box_fn)(const void *src, int src_step, NppiSize src_size,
                                NppiPoint src_offset, void *dst, int dst_step, NppiSize roi,
                                NppiSize mask, NppiPoint anchor, int border, NppStreamContext ctx);

/* The functions by format (box_problem's ch and u8). */
static const struct {
    const char *symbol;
    int ch;
    bool u8;
} npp_calls[] = {
    {"nppiFilterBoxBorder_8u_C4R_Ctx", 4, true},
    {"nppiFilterBoxBorder_8u_C1R_Ctx", 1, true},
    {"nppiFilterBoxBorder_32f_C1R_Ctx", 1, false},
};
enum { NPP_CALLS = sizeof npp_calls / sizeof npp_calls[0], NPP_MAX_RADIUS = 1448 };

static struct {
    bool tried;
    npp_box_fn fn[NPP_CALLS];
    NppLibraryVersion version;
    char why[256];
} npp;

/* Opened once and kept open, like cuBLAS (the first call comes from the
 * runner's single thread). */
static bool npp_open(void) {
    static const char *const core[] = {"libnppc.so.13", "libnppc.so.12", "libnppc.so", NULL};
    static const char *const filters[] = {"libnppif.so.13", "libnppif.so.12", "libnppif.so", NULL};
    if (npp.tried) return !npp.why[0];
    npp.tried = true;
    /* libnppc first: where libnppif is found under a CUDA directory but
     * the loader's own path has no libnppc, its soname is then loaded. */
    void *c = co_cuda_dlopen(core), *f = co_cuda_dlopen(filters);
    if (!f) {
        snprintf(npp.why, sizeof npp.why, "%s not found (no NPP installed)", filters[0]);
        if (c) dlclose(c);
        return false;
    }
    for (int i = 0; i < NPP_CALLS; i++)
        if (!(npp.fn[i] = (npp_box_fn)co_cuda_dlsym(f, npp_calls[i].symbol))) {
            snprintf(npp.why, sizeof npp.why, "libnppif lacks %s (too old)", npp_calls[i].symbol);
            dlclose(f);
            if (c) dlclose(c);
            return false;
        }
    typedef const NppLibraryVersion *(*version_fn)(void);
    version_fn v = c ? (version_fn)co_cuda_dlsym(c, "nppGetLibVersion") : NULL;
    const NppLibraryVersion *ver = v ? v() : NULL;
    if (ver) npp.version = *ver;
    return true;
}

bool box_has_npp(const co_device *dev, const char **why) {
    if (!co_cuda_is_device(dev)) {
        if (why) *why = "NPP runs on CUDA devices only";
        return false;
    }
    if (!npp_open()) {
        if (why) *why = npp.why;
        return false;
    }
    if (why) *why = "";
    return true;
}

/* The stream context NPP asks the caller to fill (nppdefs.h). */
static co_status stream_context(co_device *dev, NppStreamContext *ctx) {
    co_cuda_props p;
    co_status st = co_cuda_props_get(dev, &p);
    if (st) return st;
    *ctx = (NppStreamContext){.hStream = co_cuda_stream(dev),
                              .nCudaDeviceId = p.ordinal,
                              .nMultiProcessorCount = p.multiprocessors,
                              .nMaxThreadsPerMultiProcessor = p.max_threads_per_multiprocessor,
                              .nMaxThreadsPerBlock = p.max_threads_per_block,
                              .nSharedMemPerBlock = p.shared_per_block,
                              .nCudaDevAttrComputeCapabilityMajor = p.cc_major,
                              .nCudaDevAttrComputeCapabilityMinor = p.cc_minor,
                              .nStreamFlags = p.stream_flags};
    return CO_OK;
}

co_status box_run_npp(co_job *job) {
    const char *why;
    if (!box_has_npp(job->dev, &why)) return co_fail(CO_ERR_UNSUPPORTED, "%s", why);
    box_problem b;
    box_describe(job->prob, &b);
    if (b.border != BF_CLAMP)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "npp is unavailable for the %s border: nppiFilterBoxBorder takes "
                       "NPP_BORDER_REPLICATE (clamp) only",
                       b.border == BF_ZERO ? "zero" : "reflect101");
    if (b.radius > NPP_MAX_RADIUS)
        return co_fail(CO_ERR_LIMIT,
                       "npp runs radii up to %d (255 (2r+1)^2 fits a signed 32-bit sum), "
                       "asked %d",
                       NPP_MAX_RADIUS, b.radius);
    int call = 0;
    while (call < NPP_CALLS && (npp_calls[call].ch != b.ch || npp_calls[call].u8 != b.u8)) call++;
    const int esize = b.u8 ? 1 : 4, step = b.w * b.ch * esize, n = 2 * b.radius + 1;
    /* 8-bit: rounded either way; float32: any order of n^2 plain sums. */
    box_anchor_model(job->prob, (double)n * n, b.u8);
    NppStreamContext ctx;
    co_status st = stream_context(job->dev, &ctx);
    if (!st) st = co_cuda_make_current(job->dev);
    if (st) return st;
    const NppiSize size = {b.w, b.h}, mask = {n, n};
    const NppiPoint origin = {0, 0}, anchor = {b.radius, b.radius};
    const co_array *a = job->prob->arrays;
    const void *src = (const void *)(uintptr_t)co_cuda_ptr(a[BOX_IN].buf);
    void *dst = (void *)(uintptr_t)co_cuda_ptr(a[BOX_OUT].buf);
    double ms = 0;
    if ((st = co_cuda_timer_start(job->dev))) return st;
    const NppStatus ns = npp.fn[call](src, step, size, origin, dst, step, size, mask, anchor,
                                      NPP_BORDER_REPLICATE, ctx);
    /* Stop (and wait) before reporting an error: the stream stays usable. */
    st = co_cuda_timer_stop(job->dev, &ms);
    /* NPP's refusals of a size, mask, anchor or mode (a mask wider than
     * the image, say) are a skip, never a result; other errors are errors. */
    const bool refused = ns == -6 || ns == -14 || ns == -33 || ns == -34;
    if (ns < 0)
        return co_fail(refused ? CO_ERR_UNSUPPORTED : CO_ERR_DEVICE,
                       "NPP %d.%d.%d: %s %s a %dx%d image with a %dx%d mask: NppStatus %d",
                       npp.version.major, npp.version.minor, npp.version.build,
                       npp_calls[call].symbol, refused ? "is unavailable for" : "failed on", b.w,
                       b.h, n, n, ns);
    if (st) return st;
    co_job_add_time(job, ms);
    return CO_OK;
}

#else /* a build without the CUDA backend */

#define NO_CUDA "built without the CUDA headers (cuda.h, nvrtc.h): no CUDA devices, no NPP"

bool box_has_npp(const co_device *dev, const char **why) {
    (void)dev;
    if (why) *why = NO_CUDA;
    return false;
}

co_status box_run_npp(co_job *job) {
    (void)job;
    return co_fail(CO_ERR_UNSUPPORTED, "npp: " NO_CUDA);
}

#endif
