/* CUDA objects behind coalesce handles, for code that calls a CUDA library
 * directly (the cuBLAS anchor), and NVRTC alone for tests. This header needs
 * no CUDA header: the types below are the ones <cuda.h> declares
 * (CUstream = struct CUstream_st *, also cudaStream_t; CUdeviceptr =
 * unsigned long long on 64-bit hosts). */
#ifndef CO_CUDA_ACCESS_H
#define CO_CUDA_ACCESS_H

#include "backend/backend.h"

struct CUstream_st;

/* Whether dev belongs to the cuda backend (the functions below need one). */
bool co_cuda_is_device(const co_device *dev);
struct CUstream_st *co_cuda_stream(const co_device *dev);
unsigned long long co_cuda_ptr(const co_buf *buf);

/* Make the device's (primary) context current on the calling thread, as
 * libraries built on the runtime API (cuBLAS) expect. */
co_status co_cuda_make_current(co_device *dev);

/* Kernel time from the device's events: start launches a kernel that
 * spins for 0.1 ms, then records an event on its stream (the timed work is
 * queued before the clock starts); stop records another, waits for the
 * stream (reporting any asynchronous error) and gives the milliseconds
 * between them. */
co_status co_cuda_timer_start(co_device *dev);
co_status co_cuda_timer_stop(co_device *dev, double *ms);
/* The CUDA source of the kernel that co_cuda_timer_start launches ahead of
 * its event (co_spin: the work is queued before the clock starts). */
const char *co_cuda_spin_source(void);

/* What a library's stream context is filled from (NPP's NppStreamContext):
 * the device's ordinal and attributes, and its stream's flags. */
typedef struct co_cuda_props {
    int ordinal, multiprocessors, max_threads_per_multiprocessor, max_threads_per_block;
    int cc_major, cc_minor;
    size_t shared_per_block;
    unsigned stream_flags;
} co_cuda_props;
co_status co_cuda_props_get(const co_device *dev, co_cuda_props *out);

/* One library handle owned by the device (the cuBLAS handle): `destroy` is
 * called with the context current when the device is released. */
void *co_cuda_anchor(const co_device *dev);
void co_cuda_set_anchor(co_device *dev, void *handle, void (*destroy)(void *handle));

/* dlopen the first library of `names` (NULL-terminated) that loads, trying
 * each name bare (the loader's path), then under $CUDA_HOME/lib64,
 * $CUDA_PATH/lib64 and /usr/local/cuda/lib64. NULL if none loads. */
void *co_cuda_dlopen(const char *const *names);
/* dlsym into a function pointer (ISO C has no void * -> function pointer
 * conversion; POSIX guarantees this one). Cast the result to the real type. */
typedef void (*co_cuda_fn)(void);
co_cuda_fn co_cuda_dlsym(void *lib, const char *name);

/* ptxas -v's figures for one entry of its report (NVRTC's log, made with
 * --ptxas-options=-v): registers, stack, spills and shared memory; what the
 * report does not say is left as it was. */
void co_cuda_ptxas_figures(const char *log, const char *entry, co_il_resources *r);
/* The same from the cubin (registers, stack frame, static shared memory),
 * where the report has no register count for the entry. */
void co_cuda_cubin_figures(const void *cubin, size_t size, const char *entry, co_il_resources *r);

/* Compile one kernel source with NVRTC only (no driver, no GPU):
 * `defines` as for backend build ("-DTS=16 -DWPT=8", may be NULL or ""),
 * `arch` "sm_90" (a cubin) or "compute_90" (PTX text, NUL-terminated).
 * On success *out (malloc'ed, the caller frees) holds *size bytes, from the
 * cache directory (kind "cuda") where the same source and defines were
 * compiled before.
 * CO_ERR_UNSUPPORTED only when libnvrtc cannot be opened (or this build has
 * no CUDA headers); CO_ERR_INVALID for an arch this NVRTC does not know;
 * CO_ERR_BUILD with the NVRTC log in co_last_error. */
co_status co_cuda_compile(const char *name, const char *source, const char *defines,
                          const char *arch, void **out, size_t *size);

/* An offline device (src/core/il.c): NVRTC compiles for arch ("sm_90")
 * with no driver or GPU; buffers and launches do nothing; its limits are an
 * H200's. Free it with co_device_free. CO_ERR_INVALID for an arch NVRTC
 * does not know, CO_ERR_UNSUPPORTED without NVRTC. */
co_status co_cuda_offline_device(const char *arch, co_device **out);

#endif
