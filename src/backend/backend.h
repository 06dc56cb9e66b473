/* The backend interface: one table of function pointers per backend (the
 * ggml pattern), one folder per backend. Host backends (c, omp) fill only
 * `name` and `probe`: their workload variants are plain C functions. */
#ifndef CO_BACKEND_H
#define CO_BACKEND_H

#include "coalesce.h"

typedef struct co_device co_device;
typedef struct co_buf co_buf;         /* device memory, defined by the backend */
typedef struct co_program co_program; /* a built kernel source, defined by the backend */
typedef struct co_kernel co_kernel;   /* one entry point of a program */
typedef struct co_pinned co_pinned;   /* page-locked host memory, defined by the backend */

typedef struct co_img co_img;             /* a 2D image read through the texture path (optional) */
typedef struct co_glsl_caps co_glsl_caps; /* a GLSL device's shader capabilities (glsl/glsl.h) */

/* CO_ARG_LOCAL: `bytes` of local memory for the kernel parameter declared
 * CO_LOCAL_ARG(T, name) (kernels/dialect.h), at most one per kernel (CUDA
 * has one dynamic shared memory block); up to local_mem_arg_bytes. */
typedef enum co_arg_kind {
    CO_ARG_BUF,
    CO_ARG_INT,
    CO_ARG_UINT,
    CO_ARG_FLOAT,
    CO_ARG_IMAGE,
    CO_ARG_LOCAL
} co_arg_kind;

/* Image pixel formats: one float channel, or RGBA or one channel of 8-bit
 * unsigned integers (read as integers: read_imageui / tex2D<uchar4>). */
typedef enum co_img_format { CO_IMG_R_F32, CO_IMG_RGBA_U8, CO_IMG_R_U8 } co_img_format;
/* What reads outside an image return: the nearest edge pixel, or zeros.
 * (OpenCL kernels choose by their sampler; CUDA textures fix it here.) */
typedef enum co_img_border { CO_IMG_EDGE, CO_IMG_ZERO } co_img_border;

typedef struct co_arg {
    co_arg_kind kind;
    union {
        co_buf *buf;
        co_img *img;
        int32_t i;
        uint32_t u;
        float f;
    } v;
} co_arg;

#define CO_BUF(b) ((co_arg){.kind = CO_ARG_BUF, .v.buf = (b)})
#define CO_INT(x) ((co_arg){.kind = CO_ARG_INT, .v.i = (int32_t)(x)})
#define CO_UINT(x) ((co_arg){.kind = CO_ARG_UINT, .v.u = (uint32_t)(x)})
#define CO_FLOAT(x) ((co_arg){.kind = CO_ARG_FLOAT, .v.f = (float)(x)})
#define CO_IMAGE(x) ((co_arg){.kind = CO_ARG_IMAGE, .v.img = (x)})
#define CO_LOCAL(bytes) ((co_arg){.kind = CO_ARG_LOCAL, .v.u = (uint32_t)(bytes)})

typedef struct co_backend {
    const char *name;
    /* Enumerate devices and add them with co_context_add_device. A missing
     * library, driver or ICD: return CO_ERR_UNSUPPORTED and say why in
     * co_last_error; never crash. */
    co_status (*probe)(co_context *ctx);
    void (*release)(co_device *dev);

    co_status (*alloc)(co_device *dev, size_t bytes, co_buf **out);
    void (*free)(co_device *dev, co_buf *buf);
    co_status (*upload)(co_device *dev, co_buf *dst, const void *src, size_t bytes);
    co_status (*download)(co_device *dev, void *dst, co_buf *src, size_t bytes);
    /* The same `offset` bytes into the buffer (co_buffer_write/read: an MPI
     * halo); optional (NULL: only whole-buffer copies, from the start). */
    co_status (*write)(co_device *dev, co_buf *dst, size_t offset, const void *src, size_t bytes);
    co_status (*read)(co_device *dev, void *dst, co_buf *src, size_t offset, size_t bytes);
    /* Optional (NULL: the API has none): page-locked host memory, which
     * upload and download move at the bus's full speed. *host is where
     * the caller reads and writes it until pinned_free. */
    co_status (*pinned_alloc)(co_device *dev, size_t bytes, co_pinned **out, void **host);
    void (*pinned_free)(co_device *dev, co_pinned *pinned);

    /* Compile `source` (named `name` for messages) with `defines`
     * ("-DTS=16 -DWPT=8"). On failure: CO_ERR_BUILD with the build log. */
    co_status (*build)(co_device *dev, const char *name, const char *source, const char *defines,
                       co_program **out);
    void (*program_free)(co_device *dev, co_program *prog);
    /* The program owns the kernel: it is freed with the program. */
    co_status (*kernel)(co_device *dev, co_program *prog, const char *entry, co_kernel **out);

    /* Launch over `global` work-items (a multiple of `local`, OpenCL
     * convention). If kernel_ms is not NULL, wait for it: *kernel_ms
     * receives the kernel's time from device events. If it is NULL, a
     * backend with `finish` may return at once, the kernel queued in order
     * behind the earlier launches and transfers (which wait for it); a
     * backend without `finish` waits. */
    co_status (*launch)(co_device *dev, co_kernel *kernel, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t nargs, const co_arg *args, double *kernel_ms);
    /* Optional: wait for the launches queued untimed; a kernel's fault
     * surfaces here. */
    co_status (*finish)(co_device *dev);

    /* Optional 2D images (NULL where the backend has none). image_support:
     * whether this device reads images, and if not why. image_copy_from_buffer
     * fills the image from a buffer of its pixels (rows packed) and gives the
     * copy's device time in *ms. */
    bool (*image_support)(const co_device *dev, const char **why);
    co_status (*image_alloc)(co_device *dev, size_t width, size_t height, co_img_format format,
                             co_img_border border, co_img **out);
    void (*image_free)(co_device *dev, co_img *img);
    co_status (*image_copy_from_buffer)(co_device *dev, co_img *dst, co_buf *src, double *ms);

    /* Optional (NULL: kernels take __constant data as arguments, as in
     * OpenCL): fill the program-scope constant-memory array `symbol` of the
     * kernel's program with the first `bytes` of `src`, on the device;
     * the copy's device time in *ms. */
    co_status (*constant_from_buffer)(co_device *dev, co_kernel *kernel, const char *symbol,
                                      co_buf *src, size_t bytes, double *ms);

    /* Optional (NULL: the backend shows no compiler output; src/core/il.c).
     * il_formats: what this device offers, space-separated, the default
     * first ("ptx sass"). program_text: a built program's text in one of
     * them (malloc'ed, the caller frees): the whole program, or, for
     * formats made per kernel and launch (PoCL compiles a work-group
     * function per group size), kernel k's at `local`. kernel_resources:
     * what k takes (co_il_resources; -1 for what the API does not say) at
     * the group size `local` with `dynamic_local` bytes given at launch. */
    const char *(*il_formats)(const co_device *dev);
    co_status (*program_text)(co_device *dev, co_program *prog, co_kernel *k, const char *format,
                              const size_t local[3], char **out);
    co_status (*kernel_resources)(co_device *dev, co_program *prog, co_kernel *k,
                                  const size_t local[3], size_t dynamic_local,
                                  co_il_resources *out);

    /* Optional: dst = src (bytes of them) by the API's own copy, its
     * device time in *ms (copy's `api` anchor where the workload has no
     * call of its own for the backend). */
    co_status (*copy)(co_device *dev, co_buf *dst, co_buf *src, size_t bytes, double *ms);
    /* The GLSL backends (vulkan, opengl): the device's shader capabilities
     * (co_glsl_device). NULL: the backend runs no GLSL. */
    const co_glsl_caps *(*glsl)(const co_device *dev);
} co_backend;

/* One compiled program, kept per device and define set. */
typedef struct co_program_entry {
    char *key; /* source name + "\n" + defines */
    co_program *program;
    char *mentioned; /* the names of its -D defines that its source mentions, " NAME NAME " */
} co_program_entry;

struct co_device {
    co_device_info info;
    const co_backend *backend;
    void *impl; /* backend state */
    co_program_entry *programs;
    size_t nprograms, cap_programs;
    co_peak peak;   /* its ceilings, once measured or read from the cache */
    int peak_state; /* 0: not yet looked for, 1: peak holds them, -1: measuring failed */
};

/* Called by probe: copies *info, takes ownership of impl. */
co_status co_context_add_device(co_context *ctx, const co_backend *backend,
                                const co_device_info *info, void *impl);

/* Frees a device: its programs, then the backend's release (context.c). */
void co_device_free(co_device *dev);
/* The library calls' state (src/core/api.c), made with the context and
 * freed with it (NULL: a no-op); co_context_api returns it. */
co_status co_api_create(void **state);
void co_api_destroy(void *state);
void *co_context_api(const co_context *ctx);

/* The device behind an index of co_device_select. */
co_device *co_context_device(const co_context *ctx, size_t index);

/* Set the thread's error message (printf-style) and return status. */
co_status co_fail(co_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* co_fail with a compiler's log after the one-line message: "  build log:"
 * and the log's lines, indented, so that the first line says what failed. */
co_status co_fail_log(co_status status, const char *log, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The cache directory ($COALESCE_CACHE_DIR, else $XDG_CACHE_HOME/coalesce,
 * else ~/.cache/coalesce; src/core/cache.c): the path of file `name` in it. */
co_status co_cache_path(const char *name, char *out, size_t len);
/* mkdir -p of the directory part of path (failures left to the writer). */
void co_cache_make_dirs(const char *path);
/* FNV-1a of len bytes, continuing from h (start: CO_HASH_SEED). */
#define CO_HASH_SEED 0xcbf29ce484222325ull
uint64_t co_hash(uint64_t h, const void *data, size_t len);
/* Entries of kind (a subdirectory) under a key string. get: a copy the
 * caller frees (a NUL follows its size bytes), or false (no entry, an
 * unreadable one, another key's). put: best effort (a cache that cannot be
 * written only costs time). */
bool co_cache_get(const char *kind, const char *key, void **data, size_t *size);
void co_cache_put(const char *kind, const char *key, const void *data, size_t size);

/* For program_text (src/core/il.c): find a tool (the first of `names`
 * executable on PATH, else under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda
 * + /bin); write data to a fresh temporary file (its path in `path`; the
 * caller unlinks it); run `tool args` and take its stdout and stderr
 * (*out malloc'ed, *status pclose's). */
bool co_tool_find(const char *const *names, char *path, size_t len);
co_status co_tool_temp(const void *data, size_t size, char *path, size_t len);
co_status co_tool_run(const char *tool, const char *args, char **out, int *status);
/* Groups of `local` a compute unit of compute capability 8.0-9.0 holds and
 * the occupancy, from r's registers and shared memory (ptxas's figures,
 * where there is no device to ask); also the largest group its registers
 * allow. */
void co_il_estimate_occupancy(co_il_resources *r, const co_device_info *info, const size_t local[3],
                              size_t dynamic_local);

/* Registration entries, one per backend folder. */
const co_backend *co_backend_c(void);
const co_backend *co_backend_omp(void);
const co_backend *co_backend_opencl(void);
const co_backend *co_backend_cuda(void);
const co_backend *co_backend_vulkan(void);
const co_backend *co_backend_opengl(void);

#endif
