/* coalesce — classic data-parallel workloads on every device a machine has,
 * each result checked against a reference and each run timed.
 *
 * Public API. Every fallible call returns a co_status; on failure
 * co_last_error() holds one line saying what was wrong (thread-local).
 * Ownership: whoever allocates provides the free (co_context_destroy,
 * co_result needs none: it holds no pointers to heap memory). */
#ifndef COALESCE_H
#define COALESCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CO_VERSION "0.1.0"

typedef enum co_status {
    CO_OK = 0,
    CO_ERR_INVALID,     /* bad argument: unknown name, bad size, bad parameter */
    CO_ERR_UNSUPPORTED, /* variant does not run on this device / backend unavailable */
    CO_ERR_LIMIT,       /* a device limit (work-group, local or global memory) */
    CO_ERR_NOMEM,       /* host allocation failed */
    CO_ERR_BUILD,       /* a kernel failed to compile (log in co_last_error) */
    CO_ERR_DEVICE,      /* an API call failed at run time */
    CO_ERR_VERIFY,      /* the result differs from the reference */
    CO_ERR_IO           /* file input/output */
} co_status;

/* Short name of a status ("invalid", "limit", ...). */
const char *co_status_name(co_status status);
/* The message of the last failing call on this thread ("" if none). */
const char *co_last_error(void);

typedef enum co_device_type {
    CO_DEVICE_CPU = 1,
    CO_DEVICE_GPU = 2,
    CO_DEVICE_ACCELERATOR = 4
} co_device_type;

/* What a device is and its limits, as its API reports them. */
typedef struct co_device_info {
    char spec[32];            /* how to select it: "c", "omp", "opencl:0", "cuda:0" */
    char backend[16];         /* "c", "omp", "opencl", "cuda" */
    char name[128];
    char vendor[96];
    char platform[96];        /* OpenCL platform, "CUDA", or "host" */
    char api_version[64];     /* e.g. "OpenCL 3.0 PoCL", "CUDA 13.0", "OpenMP 201511" */
    char driver_version[64];
    co_device_type type;
    unsigned compute_units;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t local_mem_bytes;   /* local memory of a kernel's own (static) arrays */
    size_t local_mem_arg_bytes; /* all its local memory where a CO_LOCAL argument asks for it:
                                   CUDA's opt-in maximum (dynamic shared memory) */
    size_t cache_bytes;       /* last-level cache (L2 on GPUs); 0 if not reported */
    size_t global_mem_bytes;
    size_t max_alloc_bytes;
    unsigned clock_mhz;
    char limits[320];         /* the backend's own limits, one line ("" if none): Vulkan's
                                 compute limits, subgroups and timestamp period */
} co_device_info;

typedef struct co_context co_context;

/* Probes every backend. Backends whose library or driver is missing are
 * recorded as unavailable (see co_backend_status), never an error. */
co_status co_context_create(co_context **out);
void co_context_destroy(co_context *ctx);

size_t co_device_count(const co_context *ctx);
const co_device_info *co_device_get(const co_context *ctx, size_t index);

/* Backends known to this build, available or not, with the reason if not. */
size_t co_backend_count(const co_context *ctx);
co_status co_backend_status(const co_context *ctx, size_t index, const char **name,
                            bool *available, const char **reason);

/* Resolve a device SPEC ("c", "omp", "opencl", "opencl:N", "opencl:cpu",
 * "opencl:gpu", "cuda", "cuda:N", "vulkan", "vulkan:N", "all", or a comma-separated list) to device
 * indices; a device named twice is selected once. Fails with CO_ERR_INVALID
 * for a malformed SPEC, CO_ERR_UNSUPPORTED for a well-formed one that names
 * no device here (an unavailable backend, "opencl:gpu" without one). */
co_status co_device_select(const co_context *ctx, const char *spec, size_t *indices,
                           size_t capacity, size_t *count);

/* ---- workloads and variants ------------------------------------------- */

size_t co_workload_count(void);
const char *co_workload_name(size_t index);
const char *co_workload_summary(size_t index);
/* Variants of a workload; NULL past the end or for an unknown workload. */
const char *co_variant_name(const char *workload, size_t index);
const char *co_variant_summary(const char *workload, size_t index);
/* Options a workload takes (sizes, modes), NULL past the end. */
const char *co_workload_option(const char *workload, size_t index, const char **def,
                               const char **help);
/* The library a workload is compared with on a backend ("openblas" on
 * "c"/"omp", "clblast" on "opencl", "cublas" on "cuda"), or NULL. */
const char *co_workload_anchor(const char *workload, const char *backend);
/* Option sets `bench` runs: ";"-separated, each "name=value name=value". */
const char *co_workload_bench_sets(const char *workload, bool quick);
/* Whether a variant runs on a device; if not, why (static string or ""). */
bool co_variant_runs_on(const co_context *ctx, const char *workload, const char *variant,
                        size_t device, const char **why);
/* The variant `run` picks on a device when none is given. */
const char *co_variant_default(const co_context *ctx, const char *workload, size_t device);

/* A NAME=VALUE pair: workload options (sizes, modes, files) and tunables. */
typedef struct co_option {
    const char *name;
    const char *value;
} co_option;

/* Split "NAME=V NAME=V" into options, copying the text into store (the
 * options point into it). Returns how many were found (at most cap);
 * words without '=' are skipped. */
size_t co_parse_options(const char *text, char *store, size_t store_len, co_option *opts,
                        size_t cap);

typedef struct co_run_config {
    const char *workload;
    const char *variant;      /* NULL: co_variant_default */
    size_t device;            /* index from co_device_select */
    const co_option *options; /* workload options: "m", "n", "k", "size", ... */
    size_t noptions;
    const co_option *params;  /* variant tunables: "TS", "WPT", ... */
    size_t nparams;
    size_t local[3];          /* work-group shape; 0 = the variant's choice */
    unsigned reps;            /* timed repetitions (0 = 5) */
    unsigned warmup;          /* untimed runs before them */
    uint64_t seed;            /* inputs are random from this seed */
    bool verify;              /* check every repetition against the reference */
} co_run_config;

#define CO_MAX_KV 24 /* sizes or parameters of one run, at most */

typedef struct co_result {
    char workload[32];
    char variant[32];
    char device[32];           /* spec */
    char device_name[128];
    struct { char name[16]; char value[64]; } sizes[CO_MAX_KV];
    size_t nsizes;
    struct { char name[16]; long value; } params[CO_MAX_KV];
    size_t nparams;
    size_t local[3];           /* work-group shape used (0 on host) */
    bool verified;
    char check[32];            /* "full", "sampled rows/cols", "not checked" */
    double error;              /* measured error, workload-defined metric */
    double tolerance;          /* bound that error was held to */
    unsigned reps;
    double median_ms;          /* the figure throughput uses: median kernel time */
    double kernel_ms;          /* median time in kernels (device events / host compute) */
    double total_ms;           /* median time with host<->device transfers */
    double min_ms;
    double flops;              /* operations per run by the workload's model (0: n/a) */
    double bytes;              /* bytes moved per run by the model (0: n/a) */
    double gflops;             /* flops / median, 0 if n/a */
    double gbps;               /* bytes / median, 0 if n/a */
    struct {
        char unit[16];         /* "rays", "frames", "ball-steps" */
        double per_s;          /* per second of kernel time (median) */
        double per_s_total;    /* per second with transfers */
    } rates[3];
    size_t nrates;
    /* The device's measured ceiling the workload is held to (co_peak):
     * copy or read bandwidth for memory-bound workloads, FMA throughput for
     * compute-bound ones; 0 and "" if none could be had. */
    double ceiling;            /* GB/s or GFLOP/s */
    char ceiling_name[32];     /* "copy", "read", "fma32" */
    double fraction;           /* gbps or gflops / ceiling, 0 if n/a */
} co_result;

/* Generate inputs from cfg->seed, run warm-up and repetitions, verify and
 * time. Returns CO_ERR_VERIFY (with *out filled) if a result is wrong. */
co_status co_run(co_context *ctx, const co_run_config *cfg, co_result *out);

/* ---- device ceilings ------------------------------------------------- */

/* What a device can do at best, measured by micro-benchmarks: streaming
 * bandwidth (copy counts the bytes read and written), FMA throughput (2
 * operations per fused multiply-add), the round trip of an empty kernel,
 * and host<->device transfers. A figure of 0 is "does not apply" (no
 * float64, no transfers on the host devices). Each is the median of
 * several repetitions. */
typedef struct co_peak {
    char device[32];        /* spec */
    char device_name[128];
    double copy_gbps;       /* 1e9 bytes/s */
    double read_gbps;
    double write_gbps;
    double fma32_gflops;    /* float32 */
    double fma64_gflops;    /* float64 */
    double launch_us;       /* empty kernel, launched and waited for (omp: a parallel region) */
    double h2d_gbps, d2h_gbps;               /* pageable host memory */
    double h2d_pinned_gbps, d2h_pinned_gbps; /* page-locked host memory */
    double buffer_bytes;    /* of each bandwidth buffer */
    double measure_ms;      /* how long the measurement took */
    bool cached;            /* kept from an earlier measurement, not measured by this call */
} co_peak;

/* Measure a device's ceilings now (a second or two) and keep them: in the
 * context, and in the cache file (co_peak_cache_path), keyed by backend,
 * device name, driver version and the host's name, so another machine or
 * driver measures again. A cache that cannot be written
 * is not an error: the figures are still returned. */
co_status co_peak_measure(co_context *ctx, size_t device, co_peak *out);
/* The kept ceilings of a device (this context, else the cache file), or
 * measured now when none are kept. */
co_status co_peak_get(co_context *ctx, size_t device, co_peak *out);
/* Whether ceilings are kept for the device, so co_peak_get measures nothing. */
bool co_peak_known(co_context *ctx, size_t device);
/* The cache file: $COALESCE_CACHE_DIR/peak.json, else
 * $XDG_CACHE_HOME/coalesce/peak.json, else ~/.cache/coalesce/peak.json. */
co_status co_peak_cache_path(char *out, size_t len);

/* ---- direct calls on caller data -------------------------------------- */

/* C = A * B, row-major float32: A is m x k, B is k x n, C is m x n.
 * variant NULL picks the device's default. Host pointers in and out. */
co_status co_sgemm(co_context *ctx, size_t device, const char *variant, size_t m, size_t n,
                   size_t k, const float *a, const float *b, float *c);

#ifdef __cplusplus
}
#endif
#endif /* COALESCE_H */
