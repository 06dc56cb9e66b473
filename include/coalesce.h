/* coalesce — classic data-parallel workloads on every device a machine has,
 * each result checked against a reference and each run timed.
 *
 * Public API. Every fallible call returns a co_status; on failure
 * co_last_error() holds one line saying what was wrong (thread-local); a
 * kernel that fails to build adds its log after that line ("  build log:",
 * then the log's lines indented).
 * Arguments: every function checks its own. A NULL context, a NULL output
 * (unless marked optional), a NULL or empty name, an index past the end, a
 * count > 0 with a NULL array: CO_ERR_INVALID, and co_last_error() names the
 * function and the argument ("co_device_select: count is NULL"). Functions
 * that return a size, a pointer or a bool answer 0, NULL or false instead,
 * with co_last_error() set the same way (it is not cleared on success:
 * where 0/NULL/false is also a valid answer, valid arguments tell them apart).
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

/* The shared library exports exactly the declarations marked CO_API (it is
 * built with hidden visibility); a client's own copy of a library we use
 * internally (stb_image, ...) never clashes with ours. */
#if defined(__GNUC__) || defined(__clang__)
#define CO_API __attribute__((visibility("default")))
#else
#define CO_API
#endif

/* The version of this header (CMakeLists.txt checks it against
 * project(VERSION)); co_version() is the library's, so a program can see
 * that the two agree. The soname changes with the major version only. */
#define COALESCE_VERSION_MAJOR 0
#define COALESCE_VERSION_MINOR 1
#define COALESCE_VERSION_PATCH 0
#define COALESCE_VERSION "0.1.0"
#define CO_VERSION COALESCE_VERSION /* the earlier name */

typedef enum co_status {
    CO_OK = 0,
    CO_ERR_INVALID,     /* bad argument: unknown name, bad size, bad parameter */
    CO_ERR_UNSUPPORTED, /* variant does not run on this device / backend unavailable */
    CO_ERR_LIMIT,       /* a device limit (work-group, local or global memory) */
    CO_ERR_NOMEM,       /* host allocation failed */
    CO_ERR_BUILD,       /* a kernel failed to compile (log in co_last_error) */
    CO_ERR_DEVICE,      /* an API call failed at run time */
    CO_ERR_VERIFY,      /* the result differs from the reference */
    CO_ERR_IO,          /* file input/output */
    CO_ERR_INTERRUPTED  /* the progress callback asked to stop (Ctrl-C in the tool) */
} co_status;

/* The library's version, "MAJOR.MINOR.PATCH" (static string). */
CO_API const char *co_version(void);

/* Short name of a status ("invalid", "limit", ...; "unknown" for others). */
CO_API const char *co_status_name(co_status status);
/* The message of the last failing call on this thread ("" if none). */
CO_API const char *co_last_error(void);

typedef enum co_device_type {
    CO_DEVICE_CPU = 1,
    CO_DEVICE_GPU = 2,
    CO_DEVICE_ACCELERATOR = 4
} co_device_type;

/* What a device is and its limits, as its API reports them. */
typedef struct co_device_info {
    char spec[32];    /* how to select it: "c", "omp", "opencl:0", "cuda:0" */
    char backend[16]; /* "c", "omp", "opencl", "cuda" */
    char name[128];
    char vendor[96];
    char platform[96];    /* OpenCL platform, "CUDA", or "host" */
    char api_version[64]; /* e.g. "OpenCL 3.0 PoCL", "CUDA 13.0", "OpenMP 201511" */
    char driver_version[64];
    co_device_type type;
    unsigned compute_units;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    size_t local_mem_bytes;     /* local memory of a kernel's own (static) arrays */
    size_t local_mem_arg_bytes; /* all its local memory where a CO_LOCAL argument asks for it:
                                   CUDA's opt-in maximum (dynamic shared memory) */
    size_t cache_bytes;         /* last-level cache (L2 on GPUs); 0 if not reported */
    size_t global_mem_bytes;
    size_t max_alloc_bytes;
    unsigned clock_mhz;
    char limits[320]; /* the backend's own limits, one line ("" if none): Vulkan's
                                 compute limits, subgroups and timestamp period */
} co_device_info;

typedef struct co_context co_context;

/* Probes every backend. Backends whose library or driver is missing are
 * recorded as unavailable (see co_backend_status), never an error.
 * out NULL: CO_ERR_INVALID. */
CO_API co_status co_context_create(co_context **out);
/* NULL is a no-op. */
CO_API void co_context_destroy(co_context *ctx);

/* 0 if ctx is NULL. */
CO_API size_t co_device_count(const co_context *ctx);
/* NULL if ctx is NULL or index >= co_device_count. The info lives as long as ctx. */
CO_API const co_device_info *co_device_get(const co_context *ctx, size_t index);

/* Backends known to this build, available or not, with the reason if not.
 * co_backend_count: 0 if ctx is NULL. co_backend_status: name, available
 * and reason are required; the strings live as long as ctx. */
CO_API size_t co_backend_count(const co_context *ctx);
CO_API co_status co_backend_status(const co_context *ctx, size_t index, const char **name,
                                   bool *available, const char **reason);

/* Resolve a device SPEC ("c", "omp", "opencl", "opencl:N", "opencl:cpu",
 * "opencl:gpu", "cuda", "cuda:N", "vulkan", "vulkan:N", "opengl", "opengl:N", "all", or a
 * comma-separated list) to device
 * indices; a device named twice is selected once. Fails with CO_ERR_INVALID
 * for a malformed SPEC or one that selects more than capacity (> 0) devices,
 * CO_ERR_UNSUPPORTED for a well-formed one that names no device here (an
 * unavailable backend, "opencl:gpu" without one). indices and count are
 * required; *count is 0 on failure. */
CO_API co_status co_device_select(const co_context *ctx, const char *spec, size_t *indices,
                                  size_t capacity, size_t *count);

/* ---- workloads and variants ------------------------------------------- */

/* Every query below answers NULL (false for co_variant_runs_on) for a NULL
 * or unknown workload, an index past the end, a NULL or unknown backend,
 * variant, device or ctx, with co_last_error() set. Strings are static. */
CO_API size_t co_workload_count(void);
CO_API const char *co_workload_name(size_t index);
CO_API const char *co_workload_summary(size_t index);
/* Variants of a workload; NULL past the end or for an unknown workload. */
CO_API const char *co_variant_name(const char *workload, size_t index);
CO_API const char *co_variant_summary(const char *workload, size_t index);
/* Options a workload takes (sizes, modes), NULL past the end. def and help
 * are optional outputs (NULL: not wanted); *def is NULL for a required one. */
CO_API const char *co_workload_option(const char *workload, size_t index, const char **def,
                                      const char **help);
/* A variant's tunable (-D define or host setting), for `coalesce list`:
 * its default on CPUs and host backends (def) and on GPUs (def_gpu, the same
 * where a GPU wants no other), the range it takes and whether it must be a
 * power of two. Strings are static. */
typedef struct co_param_info {
    const char *name;
    const char *help;
    long def, def_gpu;
    long min, max;
    bool pow2;
} co_param_info;
/* Tunable `index` of a variant: its name, NULL past the end or for an
 * unknown workload or variant (co_last_error set). info is optional. */
CO_API const char *co_variant_param(const char *workload, const char *variant, size_t index,
                                    co_param_info *info);
/* The library a workload is compared with on a backend ("openblas" on
 * "c"/"omp", "clblast" on "opencl", "cublas" on "cuda"), or NULL: none for
 * that backend (co_last_error untouched) or bad arguments (set). */
CO_API const char *co_workload_anchor(const char *workload, const char *backend);
/* Option sets `bench` runs on a device of a type: ";"-separated, each
 * "name=value name=value". CPUs (c, omp, OpenCL on CPUs) get sets that
 * their slowest variants (sequential C, O(N^2) brute force) finish in
 * seconds; GPUs and accelerators the CPU's sets and larger ones. NULL for an
 * unknown workload. */
CO_API const char *co_workload_bench_sets_for(const char *workload, bool quick,
                                              co_device_type type);
/* The sets of a CPU device (co_workload_bench_sets_for). */
CO_API const char *co_workload_bench_sets(const char *workload, bool quick);
/* Whether a variant runs on a device; if not, why (static string or "").
 * why is optional. */
CO_API bool co_variant_runs_on(const co_context *ctx, const char *workload, const char *variant,
                               size_t device, const char **why);
/* The variant `run` picks on a device when none is given. */
CO_API const char *co_variant_default(const co_context *ctx, const char *workload, size_t device);

/* A NAME=VALUE pair: workload options (sizes, modes, files) and tunables. */
typedef struct co_option {
    const char *name;
    const char *value;
} co_option;

/* Split "NAME=V NAME=V" into options, copying the text into store (the
 * options point into it). Returns how many were found (at most cap);
 * words without '=' are skipped. Returns 0 with co_last_error set for a NULL
 * text or store, store_len 0, NULL opts with cap > 0, or a text that does not
 * fit store (never a truncated parse). */
CO_API size_t co_parse_options(const char *text, char *store, size_t store_len, co_option *opts,
                               size_t cap);

/* How far a long run is, passed to co_run_config.progress. The library
 * calls it from the thread that called co_run, at most about every 100 ms,
 * and only while a run lasts: a run shorter than that never calls it.
 * Pointers are valid during the call only. */
typedef struct co_progress {
    const char *workload, *variant, *device; /* the run; device is its spec */
    const char *phase;                       /* "reference", "warm-up" or "timed" */
    unsigned run, runs; /* this run, 1-based, warm-ups first, and the runs planned
                             (revised as runs are timed; past the time budget fewer
                             repetitions are made); 0 and 0 during the reference */
    const char *unit;   /* what done counts: "step", "frame", "pixel", "row"; NULL
                             where the run reports no loop of its own (a device kernel) */
    double done, total; /* of unit, within this run or the reference */
    double per_s;       /* units per second in this run so far, 0 if not known */
    double elapsed_ms;  /* since co_run began */
    double eta_ms;      /* time left: of the whole co_run, or during the reference of
                             the reference alone; < 0 where not yet known */
} co_progress;

/* Return true to stop: the loop that reported stops at its next check, the run
 * frees what it holds and co_run returns CO_ERR_INTERRUPTED (a kernel already
 * launched on a device finishes first). */
typedef bool (*co_progress_fn)(const co_progress *progress, void *user);

typedef struct co_run_config {
    const char *workload;
    const char *variant;      /* NULL: co_variant_default */
    size_t device;            /* index from co_device_select */
    const co_option *options; /* workload options: "m", "n", "k", "size", ... */
    size_t noptions;
    const co_option *params; /* variant tunables: "TS", "WPT", ... */
    size_t nparams;
    size_t local[3];         /* work-group shape; 0 = the variant's choice */
    unsigned reps;           /* timed repetitions (0 = 5) */
    unsigned warmup;         /* untimed runs before them */
    uint64_t seed;           /* inputs are random from this seed */
    bool verify;             /* check every repetition against the reference */
    co_progress_fn progress; /* NULL: none; see co_progress */
    void *progress_user;     /* passed to it */
    bool untuned;            /* ignore the tuning database (co_tune): the defaults */
} co_run_config;

#define CO_MAX_KV 24 /* sizes or parameters of one run, at most */

typedef struct co_result {
    char workload[32];
    char variant[32];
    char device[32]; /* spec */
    char device_name[128];
    struct {
        char name[16];
        char value[64];
    } sizes[CO_MAX_KV];
    size_t nsizes;
    struct {
        char name[16];
        long value;
    } params[CO_MAX_KV];
    size_t nparams;
    size_t local[3]; /* work-group shape used (0 on host) */
    bool verified;
    char check[32];   /* "full", "sampled rows/cols", "not checked" */
    double error;     /* measured error, workload-defined metric */
    double tolerance; /* bound that error was held to */
    unsigned reps;
    double median_ms; /* the figure throughput uses: median kernel time */
    double kernel_ms; /* median time in kernels (device events / host compute) */
    double total_ms;  /* median time with host<->device transfers */
    double min_ms;
    double flops;  /* operations per run by the workload's model (0: n/a) */
    double bytes;  /* bytes moved per run by the model (0: n/a) */
    double gflops; /* flops / median, 0 if n/a */
    double gbps;   /* bytes / median, 0 if n/a */
    struct {
        char unit[16];      /* "rays", "frames", "ball-steps" */
        double per_s;       /* per second of kernel time (median) */
        double per_s_total; /* per second with transfers */
    } rates[3];
    size_t nrates;
    /* The device's measured ceiling the workload is held to (co_peak):
     * copy or read bandwidth for memory-bound workloads, of the memory level
     * the working set (`bytes`) fits in (co_peak_level), FMA throughput for
     * compute-bound ones; 0 and "" if none could be had. */
    double ceiling;             /* GB/s or GFLOP/s */
    char ceiling_name[32];      /* "copy (LLC)", "read (DRAM)", "fma32" */
    char ceiling_level[8];      /* "L2", "LLC", "DRAM"; "" for FMA */
    double ceiling_spread;      /* relative spread of its repetitions, (max - min) / median */
    long long ceiling_measured; /* when it was measured, seconds since 1970 (UTC) */
    char ceiling_note[160];     /* why fraction is over 1.05, where it is; else "" */
    double fraction;            /* gbps or gflops / ceiling, 0 if n/a */
    /* Tunables or work-group came from the tuning database (co_tune): a
     * configuration tuned for this device, workload, variant and size class. */
    bool tuned;
} co_result;

/* Generate inputs from cfg->seed, run warm-up and repetitions, verify and
 * time. Returns CO_ERR_VERIFY (with *out filled) if a result is wrong.
 * ctx, cfg, out and cfg->workload are required; options and params may be
 * NULL only with a count of 0, and each needs a non-empty name and a value.
 * Before anything is allocated, all the run takes (arrays, the reference
 * and checks when verifying, scratch, device copies) is held to the host's
 * free memory (MemAvailable, else 90% of RAM; the environment variable
 * COALESCE_MAX_HOST_BYTES lowers it) and the device's: CO_ERR_LIMIT.
 * Returns CO_ERR_INTERRUPTED (nothing filled but the names) if cfg->progress asked
 * to stop. */
CO_API co_status co_run(co_context *ctx, const co_run_config *cfg, co_result *out);

/* ---- device ceilings ------------------------------------------------- */

/* What a device can do at best, measured by micro-benchmarks: streaming
 * bandwidth (copy counts the bytes read and written) of each memory level a
 * working set can sit in, FMA throughput (2 operations per fused
 * multiply-add), the round trip of an empty kernel, and host<->device
 * transfers. A figure of 0 is "does not apply" (no float64, no transfers on
 * the host devices). Each is the fastest of several repetitions (what the
 * device does at best: a busy machine slows runs down, never speeds one
 * up); *_spread is their (max - min) / median. */
#define CO_PEAK_MAX_LEVELS 4

/* The streaming bandwidth of a working set that fits one level: a cache
 * (L2 per core on hosts and OpenCL CPU devices, "LLC" the last-level cache,
 * "L2" on GPUs) or the device's memory ("DRAM"). A result is held to the
 * first level (smallest first) whose fits_bytes its bytes do not exceed. */
typedef struct co_peak_level {
    char name[8];        /* "L2", "LLC", "DRAM" */
    double fits_bytes;   /* the level's capacity for the measured threads; 0: any size (DRAM) */
    double buffer_bytes; /* per buffer measured (copy: two of them) */
    double copy_gbps, read_gbps, write_gbps;
    double copy_spread, read_spread, write_spread;
} co_peak_level;

typedef struct co_peak {
    char device[32]; /* spec */
    char device_name[128];
    /* The memory level (DRAM, the last of levels): */
    double copy_gbps; /* 1e9 bytes/s */
    double read_gbps;
    double write_gbps;
    double fma32_gflops;       /* float32 */
    double fma64_gflops;       /* float64 */
    double launch_us;          /* empty kernel, launched and waited for (omp: a parallel region) */
    double h2d_gbps, d2h_gbps; /* pageable host memory */
    double h2d_pinned_gbps, d2h_pinned_gbps; /* page-locked host memory */
    double buffer_bytes;                     /* of each DRAM bandwidth buffer */
    double measure_ms;                       /* how long the measurement took */
    double fma32_spread, fma64_spread, launch_spread;
    co_peak_level levels[CO_PEAK_MAX_LEVELS]; /* smallest first, DRAM last */
    size_t nlevels;
    long long measured; /* when, seconds since 1970 (UTC) */
    bool cached;        /* kept from an earlier measurement, not measured by this call */
    /* co_peak_measure only: */
    bool kept_older;       /* this measurement came out much lower (< 0.8x) than the kept
                               figures, which are returned instead (note says which) */
    bool stored;           /* the cache file holds these figures */
    char note[256];        /* kept_older: one line saying what and why; else "" */
    char store_error[256]; /* !stored: why the cache file could not be written */
} co_peak;

/* Measure a device's ceilings now (a few seconds at most) and keep them: in
 * the context, and in the cache file (co_peak_cache_path), keyed by backend,
 * device name, driver version and the host's name, so another machine or
 * driver measures again. Kept figures are never replaced by much lower ones
 * (a busy machine): then the kept ones are returned, kept_older set and
 * note filled; co_peak_measure_flags with CO_PEAK_FORCE replaces them. A
 * cache that cannot be written is not an error: the figures are still
 * returned, with stored false and store_error saying why. */
CO_API co_status co_peak_measure(co_context *ctx, size_t device, co_peak *out);
enum { CO_PEAK_FORCE = 1 };
CO_API co_status co_peak_measure_flags(co_context *ctx, size_t device, unsigned flags,
                                       co_peak *out);
/* The kept ceilings of a device (this context, else the cache file), or
 * measured now when none are kept. */
CO_API co_status co_peak_get(co_context *ctx, size_t device, co_peak *out);
/* Whether ceilings are kept for the device, so co_peak_get measures nothing.
 * False (co_last_error set) for a NULL context or an index out of range. */
CO_API bool co_peak_known(co_context *ctx, size_t device);
/* The level of peak a working set of `bytes` is held to (NULL if none). */
CO_API const co_peak_level *co_peak_level_for(const co_peak *peak, double bytes);
/* The cache file: $COALESCE_CACHE_DIR/peak.json, else
 * $XDG_CACHE_HOME/coalesce/peak.json, else ~/.cache/coalesce/peak.json. */
CO_API co_status co_peak_cache_path(char *out, size_t len);

/* ---- tuning (src/core/tune.c) ---------------------------------------- */

/* co_tune searches a variant's tunables (each within its range, powers of
 * two where it must be one) and, for variants that take one, the
 * work-group shape (within the device's limits), on one problem: every
 * candidate built, run, verified and timed as co_run does (warm-up,
 * repetitions, median). One that fails to build, launch or verify is kept
 * with its status and never chosen. The default configuration is always
 * the first candidate (the database's choice for the same key, from an
 * earlier search, follows it: never cut by the budget), and at the end the
 * best and the default are timed again side by side: the best is chosen
 * only if it is faster there. The
 * choice is kept in the tuning database (co_tune_db_path), keyed by the
 * device (backend, name, driver), workload, variant and size class (each
 * size of 64 or more rounded to the nearest power of two), and co_run uses
 * it (co_result.tuned) unless co_run_config.untuned. */
typedef struct co_tune_candidate {
    struct {
        char name[16];
        long value;
    } params[CO_MAX_KV];
    size_t nparams;
    size_t local[3];      /* asked for; zeros: the variant's choice */
    size_t used_local[3]; /* what it launched (zeros on the host or on failure) */
    co_status status;     /* CO_OK; CO_ERR_VERIFY (wrong); CO_ERR_LIMIT, CO_ERR_BUILD, ... */
    char message[256];    /* why, where status is not CO_OK */
    bool verified;
    bool is_default;   /* the variant's default configuration */
    double median_ms;  /* 0 unless it ran */
    double elapsed_ms; /* since co_tune began, when it ended */
} co_tune_candidate;

/* After each candidate: how far the search is. Return true to stop it. */
typedef struct co_tune_progress {
    const co_tune_candidate *last; /* the candidate that just ended */
    const co_tune_candidate *best; /* the fastest verified so far, NULL if none */
    size_t done;                   /* candidates run */
    double planned;                /* candidates the search means to run (may grow) */
    double space;                  /* candidates in the space */
    double elapsed_ms, eta_ms, budget_ms;
} co_tune_progress;
typedef bool (*co_tune_fn)(const co_tune_progress *progress, void *user);

typedef struct co_tune_config {
    /* workload, variant (NULL: the device's default), device, options (the
     * problem), params (tunables held fixed, not searched), local (ignored:
     * the search's), reps, warmup, seed; verify and untuned are ignored
     * (every candidate is verified; the default is the untuned one);
     * progress is passed on within each candidate (true stops the tuning). */
    co_run_config run;
    double budget_s;      /* seconds for the whole search (0: 60) */
    const char *strategy; /* "full", "random", "anneal"; NULL: full where
                                 the space fits the budget, else anneal */
    /* A tunable's values to try ("TS" = "8,16,32"), or the work-group
     * shapes ("local" = "64,128" or "8x8,16x16"); NULL/0: from the ranges. */
    const co_option *values;
    size_t nvalues;
    co_tune_fn on_candidate; /* NULL: none */
    void *user;
    bool no_store; /* leave the database as it is */
} co_tune_config;

typedef struct co_tune_result {
    char workload[32], variant[32], device[32], device_name[128];
    char sizes[256];               /* "m=500 n=500 k=500" */
    char size_class[256];          /* "k=512 m=512 n=512": the database's key */
    char strategy[16];             /* what ran: "full", "random", "anneal" */
    co_tune_candidate *candidates; /* in the order run; [0] the default */
    size_t ncandidates;
    double space;               /* candidates in the space */
    double covered;             /* the share of them run (0..1) */
    long best;                  /* the chosen candidate (the default if none beat it), -1 none */
    double best_ms, default_ms; /* timed side by side at the end (0: not timed) */
    double elapsed_ms, budget_ms;
    bool interrupted; /* stopped by a callback: nothing stored */
    bool stored;      /* kept in the database */
    char note[320];   /* where it was kept, or why not; a corrupt database rebuilt */
    /* Tunables the default's run never read ("TILE, SY"): another path's
     * (the box filter's two passes where it fuses), held at their values. */
    char unread[256];
} co_tune_result;

/* Tune cfg's variant on cfg's problem. *out (free with co_tune_result_free)
 * is filled whenever the search began, also when it returns an error:
 * CO_ERR_INTERRUPTED (a callback stopped it: the candidates so far),
 * CO_ERR_VERIFY / CO_ERR_LIMIT / ... when no candidate ran correctly. The
 * errors of co_run for a bad workload, variant, device or option; an
 * unknown strategy, value list or tunable: CO_ERR_INVALID. */
CO_API co_status co_tune(co_context *ctx, const co_tune_config *cfg, co_tune_result **out);
CO_API void co_tune_result_free(co_tune_result *result);

/* One configuration of the database. */
typedef struct co_tune_entry {
    char backend[16], device_name[128], driver[64];
    char workload[32], variant[32];
    char size_class[256], sizes[256]; /* the class; the sizes tuned at */
    char params[256];                 /* "TS=16 WPT=8" */
    size_t local[3];                  /* zeros: the variant's choice */
    double median_ms, default_ms;     /* timed side by side */
    long long tuned_at;               /* seconds since 1970 (UTC) */
    char strategy[16];
    double covered; /* share of the space run */
} co_tune_entry;

/* $COALESCE_CACHE_DIR/tune.json (else as co_peak_cache_path). */
CO_API co_status co_tune_db_path(char *out, size_t len);
/* The database's entries (free with co_tune_db_free; *entries NULL and
 * *count 0 for none). A file that is not a tuning database is read as
 * empty with one line in warning (optional; "" otherwise): the next write
 * rebuilds it. */
CO_API co_status co_tune_db_list(co_tune_entry **entries, size_t *count, char *warning,
                                 size_t warning_len);
CO_API void co_tune_db_free(co_tune_entry *entries);
/* Write the database's entries to file (as tune.json is written); *count
 * (optional) how many. */
CO_API co_status co_tune_db_export(const char *file, size_t *count);
/* Merge file's entries into the database: an entry replaces the one of the
 * same device, workload, variant and size class unless that one is newer.
 * *count (optional): how many were taken. A file that is not a tuning
 * database: CO_ERR_IO naming it and why. */
CO_API co_status co_tune_db_import(const char *file, size_t *count);

/* ---- direct calls on caller data -------------------------------------- */

/* Every call below runs its variant with the tuning database's values for
 * the device, variant and size class where it has some (coalesce tune),
 * else the variant's defaults. */

/* C = A * B, row-major float32: A is m x k, B is k x n, C is m x n.
 * variant NULL picks the device's default. Host pointers in and out.
 * CO_ERR_INVALID for a NULL ctx or matrix, m, n or k of 0, or sizes whose
 * products overflow size_t (or exceed the gemm workload's limits). */
CO_API co_status co_sgemm(co_context *ctx, size_t device, const char *variant, size_t m, size_t n,
                          size_t k, const float *a, const float *b, float *c);

/* ---- what the compiler made of it (src/core/il.c) --------------------- */

/* Static instruction counts in one kernel's compiler output (PTX, SASS,
 * LLVM IR or SPIR-V): each instruction once, however often it runs. Global loads and
 * stores by width: [0] scalar, [1] 2-wide, [2] 4-wide vectors. `shared` is
 * the work-group's memory (OpenCL __local, CUDA __shared__); `local` a
 * work-item's own memory outside registers (PTX .local: spills, arrays).
 * LLVM IR of PoCL's work-group functions has one flat address space: its
 * accesses are all counted as global. */
typedef struct co_il_mix {
    unsigned ld_global[3], st_global[3];
    unsigned ld_shared, st_shared, ld_local, st_local;
    unsigned fma, barrier, shuffle, branch;
} co_il_mix;

/* What a kernel takes of the device, -1 where its API does not say. */
typedef struct co_il_resources {
    long registers;                 /* a work-item's (CUDA) */
    long spill_stores, spill_loads; /* bytes (ptxas -v) */
    long stack_bytes;  /* a work-item's memory outside registers (CUDA local, OpenCL private) */
    long shared_bytes; /* static work-group memory the kernel declares */
    long max_group;    /* work-items a group may have with this kernel's resources */
    long preferred_multiple; /* OpenCL: CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    long groups_per_cu;      /* groups of the launched size one compute unit holds */
    double occupancy;        /* their warps over the most a compute unit holds (0..1), -1 */
    char from[96];           /* where the figures come from */
} co_il_resources;

/* One kernel as the variant built and launched it. */
typedef struct co_il_kernel {
    char source[32]; /* kernels/<source>.cl */
    char entry[64];
    char defines[1024];      /* exactly as built */
    unsigned dims, launches; /* launches: in one run of the variant */
    size_t global[3], local[3];
    size_t dynamic_local; /* bytes of local memory given at launch (CO_LOCAL) */
    co_il_resources res;
    co_il_mix mix;
    bool counted;       /* mix was counted (the format is one il.c reads) */
    char *text;         /* this kernel's function in the chosen format */
    char *program_text; /* the whole program's text (--output writes it) */
} co_il_kernel;

typedef struct co_il_report {
    char workload[32], variant[32], device[32], device_name[128];
    char format[16];
    char formats[96]; /* what the device offers, space-separated, the default first */
    char params[256]; /* the variant's tunables as run: "TS=16 WPT=8" */
    co_il_kernel *kernels;
    size_t nkernels;
} co_il_report;

/* The kernels cfg's variant builds, with exactly the defines and launches
 * it runs with, and what the compiler made of them in `format` (NULL: the
 * device's default; co_il_formats lists them; an unknown one is
 * CO_ERR_INVALID naming those offered, one the device lacks
 * CO_ERR_UNSUPPORTED). On a device the variant runs once, unverified, so
 * that drivers compile what they run (PoCL compiles each kernel for the
 * launched group size). `target` "sm_XY" instead compiles through NVRTC
 * with no device (an H200's limits; nothing runs) and cfg->device is
 * ignored. `kernel` (NULL: all) keeps one entry point. Host variants and
 * anchors (library calls) are CO_ERR_UNSUPPORTED with a line saying where
 * their code is. Free with co_il_report_free. */
CO_API co_status co_il_make(co_context *ctx, const co_run_config *cfg, const char *target,
                            const char *format, const char *kernel, co_il_report **out);
CO_API void co_il_report_free(co_il_report *report);
/* Formats of a device (target as for co_il_make), space-separated, the default first. */
CO_API co_status co_il_formats(co_context *ctx, size_t device, const char *target, char *out,
                               size_t len);
/* Count the instruction mix of `text` in `format` ("ptx", "sass", "ir", "wg",
 * "spirv": SPIR-V assembly, counted as src/core/il_spirv.c's head says);
 * CO_ERR_UNSUPPORTED for a format not counted. */
CO_API co_status co_il_count(const char *format, const char *text, co_il_mix *out);

/* ==== the library: device buffers and every workload on caller data ==== *
 *
 * Each call below runs one variant of a workload (the device's default when
 * `variant` is NULL, else the one named: co_variant_name) once on the
 * caller's data, through the same job machinery as co_run: the workload's
 * arrays are bound to the caller's memory instead of freshly allocated ones.
 * Operands are co_mem: a host pointer or a co_buffer.
 *  - A co_buffer on the call's device is used in place: no copy.
 *  - A host pointer on an OpenCL, CUDA or Vulkan device is copied in (inputs) and out
 *    (outputs) for the call; on the host devices (c, omp) it is used in place.
 *  - A buffer on another device is an error (CO_ERR_INVALID), never copied
 *    silently; the two host devices share memory, so a buffer of "c" serves
 *    "omp" and back.
 * Inputs are never written; an input and an output that overlap (the same
 * buffer, overlapping host ranges) are CO_ERR_INVALID.
 * Every call checks its arguments first: a NULL ctx, operand or output, a
 * zero size, a stride narrower than a row, sizes whose products overflow,
 * or a buffer smaller than the call reads or writes are CO_ERR_INVALID with
 * one co_last_error() line naming the function and the argument. Then, as
 * co_run: CO_ERR_INVALID for an unknown variant or a device index out of
 * range, CO_ERR_UNSUPPORTED for a variant that does not run on the device,
 * CO_ERR_LIMIT (device or host memory, work-group limits), CO_ERR_NOMEM,
 * CO_ERR_BUILD (kernel compile, log in co_last_error), CO_ERR_DEVICE (the
 * device API failed), CO_ERR_VERIFY (check mode, below).
 *
 * Cost: a call returns when its work is done on the device; its kernels
 * run back to back (on OpenCL and CUDA they are queued and waited for
 * once). Working memory the caller does not provide (scratch, reduce's
 * sum) is allocated on a call's first use and kept for the next: by the
 * context, up to a sixteenth of the device's memory (at least 64 MiB) an
 * array, per device and workload (freed with co_context_destroy); by a
 * collider or ray tracer for its own steps and
 * frames (freed with it). Larger working memory and the packed copies of
 * strided or transposed operands are allocated per call.
 *
 * Thread safety: every function of this section takes its context's mutex,
 * so one context may be shared by several threads (their calls on it run
 * one at a time; use a context per thread to run them at once). Messages
 * are per thread (co_last_error). The functions above this section
 * (co_run, co_peak_*, the queries) take no lock: call them on a context no
 * other thread is using at the time. co_context_destroy must come after
 * every other call on the context has returned and every buffer and object
 * made from it has been freed. */

/* Device memory: `bytes` on device `device` of ctx (host memory on the c
 * and omp devices). Contents are undefined until written. The buffer lives
 * until co_buffer_free, which must come before co_context_destroy.
 * CO_ERR_INVALID: NULL ctx or out, bytes 0, a bad device index; CO_ERR_LIMIT:
 * over the device's largest allocation; CO_ERR_NOMEM / CO_ERR_DEVICE: the
 * allocation failed. *out is NULL on failure. */
typedef struct co_buffer co_buffer;
CO_API co_status co_buffer_create(co_context *ctx, size_t device, size_t bytes, co_buffer **out);
/* NULL is a no-op. */
CO_API void co_buffer_free(co_buffer *buf);
/* Copy `bytes` (at most co_buffer_size) from host memory src into the
 * buffer's start, or from its start into dst. Each counts as one copy
 * (co_context_copies). CO_ERR_INVALID: NULL buf or pointer, bytes 0 or over
 * the size; CO_ERR_DEVICE: the transfer failed. */
CO_API co_status co_buffer_upload(co_buffer *buf, const void *src, size_t bytes);
CO_API co_status co_buffer_download(co_buffer *buf, void *dst, size_t bytes);
/* The same `offset` bytes into the buffer (rows of an image, a halo): one
 * copy each. CO_ERR_INVALID: as above, or offset + bytes past the buffer's
 * size; CO_ERR_UNSUPPORTED: a device that copies whole buffers only. */
CO_API co_status co_buffer_write(co_buffer *buf, size_t offset, const void *src, size_t bytes);
CO_API co_status co_buffer_read(co_buffer *buf, size_t offset, void *dst, size_t bytes);
/* Its size in bytes, and its device index; 0 (co_last_error set) for NULL. */
CO_API size_t co_buffer_size(const co_buffer *buf);
CO_API size_t co_buffer_device(const co_buffer *buf);

/* An operand: exactly one of buf and host is set. */
typedef struct co_mem {
    co_buffer *buf;
    void *host; /* not written when the operand is an input */
} co_mem;
static inline co_mem co_mem_host(const void *p) {
    co_mem m = {NULL, (void *)p};
    return m;
}
static inline co_mem co_mem_buffer(co_buffer *b) {
    co_mem m = {b, NULL};
    return m;
}

/* Check mode (off by default): every call of this section is verified
 * against the workload's reference, as the CLI's runs are (gemm in double,
 * reduce's pairwise bound, grayscale and RGBA8 box filter exact, the
 * collider's reference steps and invariants, the ray tracer against the
 * host tracer's image); a mismatch is CO_ERR_VERIFY with the error and the
 * tolerance in co_last_error. On OpenCL, CUDA and Vulkan it downloads what it checks
 * (counted as copies). CO_ERR_INVALID for a NULL ctx. */
CO_API co_status co_context_set_check(co_context *ctx, bool on);

/* Host<->device copies made by this section's calls on ctx since it was
 * created (or reset): co_buffer_upload/download, the copies in and out of
 * host operands on OpenCL, CUDA and Vulkan, results read back (co_reduce_sum's sum,
 * co_collider_read), the ray tracer's scene, check mode's downloads. Moves
 * within a device (packing strided rows, transposing) are not copies. On
 * the c and omp devices nothing is a host<->device copy but the explicit
 * co_buffer_upload/download (counted all the same). CO_ERR_INVALID for a
 * NULL ctx or out. */
typedef struct co_copy_stats {
    uint64_t uploads, downloads; /* host->device, device->host transfers */
    uint64_t upload_bytes, download_bytes;
} co_copy_stats;
CO_API co_status co_context_copies(co_context *ctx, co_copy_stats *out);
CO_API co_status co_context_reset_copies(co_context *ctx);

typedef enum co_layout { CO_ROW_MAJOR = 0, CO_COL_MAJOR = 1 } co_layout;
typedef enum co_transpose { CO_NO_TRANS = 0, CO_TRANS = 1 } co_transpose;

/* C = alpha op(A) op(B) + beta C, float32, BLAS-style: op(A) is m x k,
 * op(B) k x n, C m x n, each stored in `layout` with leading dimension
 * lda/ldb/ldc (row-major: at least the stored matrix's columns; column-
 * major: its rows). As BLAS: A and B are not read when alpha is 0, C is
 * not read when beta is 0. The gemm kernels compute C = A B on packed
 * row-major matrices; column-major is the row-major product of the
 * transposes (no data moves), and otherwise the call packs on the call's
 * device: op(A) into m x k floats of scratch unless it is A itself, packed
 * (no transpose, lda = k); op(B) into k x n likewise; and the product into
 * m x n scratch, then C = alpha P + beta C, unless alpha = 1, beta = 0,
 * ldc = n. Each packing costs one pass over its matrix (read + write) and
 * its scratch memory; the fast path costs nothing over co_sgemm. In check
 * mode the product A B is verified. m, n, k >= 1 and leading dimensions
 * under 2^31. Statuses: see the section's comment. */
CO_API co_status co_sgemm_ex(co_context *ctx, size_t device, const char *variant, co_layout layout,
                             co_transpose trans_a, co_transpose trans_b, size_t m, size_t n,
                             size_t k, float alpha, co_mem a, size_t lda, co_mem b, size_t ldb,
                             float beta, co_mem c, size_t ldc);

/* dst = src, n float32 values. */
CO_API co_status co_copy(co_context *ctx, size_t device, const char *variant, size_t n, co_mem src,
                         co_mem dst);

/* *sum = the sum of n float32 values. Precision: the variants add in
 * float32 (pairwise on the host, trees of work-groups on devices) and the
 * float32 result is returned as a double: |*sum - exact| <= (ceil(log2 n)
 * + 2) 2^-24 sum |x_i| (what check mode holds it to). The sum is read back
 * from the device: one 4-byte download. sum is required. */
CO_API co_status co_reduce_sum(co_context *ctx, size_t device, const char *variant, size_t n,
                               co_mem x, double *sum);

/* gray = round(0.299 r + 0.587 g + 0.114 b) of an RGBA8 image of width x
 * height, computed in float: exact but where the value is a half (299 r +
 * 587 g + 114 b ends in 500), which devices may round either way; rgba_stride and gray_stride are the bytes from one row to the
 * next (at least 4 width and width). Strided rows are packed for the
 * kernels (on the device) and unpacked after. */
CO_API co_status co_grayscale(co_context *ctx, size_t device, const char *variant, size_t width,
                              size_t height, co_mem rgba, size_t rgba_stride, co_mem gray,
                              size_t gray_stride);

typedef enum co_format { CO_FORMAT_F32 = 0, CO_FORMAT_RGBA8 = 1 } co_format;
typedef enum co_border {
    CO_BORDER_CLAMP = 0,      /* replicate the edge (OpenCV BORDER_REPLICATE) */
    CO_BORDER_REFLECT101 = 1, /* BORDER_REFLECT_101 */
    CO_BORDER_ZERO = 2        /* BORDER_CONSTANT 0; the divisor stays (2r+1)^2 */
} co_border;

/* The normalised (2 radius + 1)^2 mean filter (cv::boxFilter, normalize =
 * true) of a float32 (one channel) or RGBA8 image; strides in bytes, at
 * least a row (4 width bytes for both formats). radius <= 2047 for RGBA8,
 * 2^20 for float32. Precision: float32 within 1e-5 of the exact mean
 * relative to max(|mean|, 2^-10 max|in|) (the workload's check: a running
 * sum keeps a rounding residue where the window is dark in a bright image),
 * RGBA8 the exact mean rounded to nearest. */
CO_API co_status co_boxfilter(co_context *ctx, size_t device, const char *variant, co_format format,
                              size_t width, size_t height, unsigned radius, co_border border,
                              co_mem in, size_t in_stride, co_mem out, size_t out_stride);

/* ---- the collider: balls in a box, as an object ---- */

typedef enum co_boundary { CO_BOUNDARY_WALLS = 0, CO_BOUNDARY_PERIODIC = 1 } co_boundary;
typedef struct co_collider co_collider;

/* `balls` balls in a width x height box, time step dt, walls: positions x, y,
 * velocities vx, vy, radii (all required, `balls` floats each) and masses
 * (NULL: pi r^2), copied into device buffers of the object (one upload of
 * the state, one of the properties). The workload's rules hold (else
 * CO_ERR_INVALID naming the rule): the box at least 4 largest radii wide
 * and high and able to hold the balls on sites 2.1 largest radii apart, and
 * the fastest initial velocity component times dt at most a quarter of the
 * smallest radius. *out is freed with co_collider_destroy, before the
 * context. */
CO_API co_status co_collider_create(co_context *ctx, size_t device, const char *variant,
                                    size_t balls, double width, double height, double dt,
                                    const float *x, const float *y, const float *vx,
                                    const float *vy, const float *radius, const float *mass,
                                    co_collider **out);
/* Random balls as the workload makes them from `seed`: radii uniform in
 * [radius, radius_max], velocity components in [-speed, speed], never
 * overlapping. */
CO_API co_status co_collider_create_random(co_context *ctx, size_t device, const char *variant,
                                           size_t balls, double radius, double radius_max,
                                           double width, double height, double speed, double dt,
                                           uint64_t seed, co_collider **out);
/* Advance `steps` steps (0: nothing) on the device; no copy. */
CO_API co_status co_collider_step(co_collider *c, unsigned steps);
/* Download the state: any of x, y, vx, vy may be NULL (not wanted); each
 * wanted one receives co_collider_balls floats. One download of the state. */
CO_API co_status co_collider_read(co_collider *c, float *x, float *y, float *vx, float *vy);
/* Walls (reflect) or periodic (wrap around), from the next step on. */
CO_API co_status co_collider_set_boundary(co_collider *c, co_boundary boundary);
/* 0 (co_last_error set) for NULL. */
CO_API size_t co_collider_balls(const co_collider *c);
/* NULL is a no-op. */
CO_API void co_collider_destroy(co_collider *c);

/* ---- the ray tracer: a scene, rendered into RGBA8 frames ---- */

/* A sphere moves on a circle of radius `orbit` around (center x, z), at
 * angle a = omega t + phase, and bounces: y = center y + bounce |sin 2a|. */
typedef struct co_rt_sphere {
    float center[3];
    float radius;   /* > 0 */
    float color[3]; /* 0..1 */
    float reflect;  /* mirror fraction 0..1 */
    float orbit, omega, phase, bounce;
} co_rt_sphere;
typedef struct co_rt_light {
    float position[3];
    float color[3]; /* intensity per channel */
} co_rt_light;
typedef struct co_rt_scene {
    const co_rt_sphere *spheres; /* nspheres of them (up to 4096; NULL if 0) */
    size_t nspheres;
    const co_rt_light *lights; /* 1..8 */
    size_t nlights;
    float eye[3], look_at[3];                   /* the pinhole camera, +y up */
    float fov_deg;                              /* vertical field of view, (0, 180) */
    float ambient, specular;                    /* shading */
    float plane_y, checker_size, plane_reflect; /* the checkered ground plane */
    unsigned depth;                             /* mirror reflections per pixel at most (<= 64) */
} co_rt_scene;
/* The workload's defaults: camera at (0, 6, -24) looking at (0, 1, 2),
 * 50 degrees, ambient 0.12, specular 0.5, plane at y = 0 with cells of 2
 * reflecting 0.2, depth 4; no spheres, no lights. CO_ERR_INVALID for NULL. */
CO_API co_status co_rt_scene_default(co_rt_scene *scene);
/* The workload's seeded scene, the one `coalesce run raytrace --spheres
 * NSPHERES --lights NLIGHTS --seed SEED` renders (spheres orbiting and
 * bouncing over the plane, lights in an arc above): co_rt_scene_default's
 * camera and shading, with spheres and lights (the caller's arrays, of
 * nspheres and nlights elements) filled from seed. CO_ERR_INVALID: NULL
 * scene or lights, spheres NULL with nspheres > 0, nspheres over 4096,
 * nlights outside 1..8. */
CO_API co_status co_rt_scene_random(co_rt_scene *scene, co_rt_sphere *spheres, size_t nspheres,
                                    co_rt_light *lights, size_t nlights, uint64_t seed);

typedef struct co_raytracer co_raytracer;
/* A tracer of `scene` (copied: the caller's arrays may go afterwards), in
 * float32, on a device. Freed with co_raytracer_destroy, before the context. */
CO_API co_status co_raytracer_create(co_context *ctx, size_t device, const char *variant,
                                     const co_rt_scene *scene, co_raytracer **out);
/* Render the frame at scene time t (seconds) of width x height pixels (up
 * to 32768 each) into image: RGBA8, `stride` bytes from row to row (at
 * least 4 width). The scene is uploaded on the first render and again
 * when the size changes (the camera's aspect): one copy each; none else. */
CO_API co_status co_raytracer_render(co_raytracer *rt, size_t width, size_t height, double t,
                                     co_mem image, size_t stride);
/* NULL is a no-op. */
CO_API void co_raytracer_destroy(co_raytracer *rt);

/* ---- images in and out: PNG (stb, compiled into the library privately) ---- */

/* An 8-bit image: `channels` (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA)
 * interleaved, rows packed (width x channels bytes apart), top row first. */
typedef struct co_image {
    int width, height, channels;
    unsigned char *pixels; /* the library's: co_image_free */
} co_image;

/* Read an image file (PNG; also JPEG, BMP, TGA, PNM, GIF's first frame:
 * what stb_image reads) converted to `channels` (1..4: gray is the
 * luminance, a missing alpha is opaque). *out is zeroed first and freed
 * with co_image_free. CO_ERR_INVALID: NULL path or out, channels outside
 * 1..4; CO_ERR_IO: the file cannot be opened or decoded (the reason in
 * co_last_error). */
CO_API co_status co_image_load(const char *path, int channels, co_image *out);
/* Write width x height pixels of `channels` (1..4, rows packed) as a PNG
 * file. CO_ERR_INVALID: NULL path or pixels, a size under 1, channels
 * outside 1..4, width x channels over 2^31-1; CO_ERR_IO: the file cannot
 * be written. */
CO_API co_status co_image_save_png(const char *path, int width, int height, int channels,
                                   const unsigned char *pixels);
/* Free an image's pixels and zero it; NULL, or an image already freed,
 * is a no-op. */
CO_API void co_image_free(co_image *img);

#ifdef __cplusplus
}
#endif
#endif /* COALESCE_H */
