/* The workload interface. One file per workload (src/workloads/<name>.c)
 * declares its options, host arrays, operation/byte model, input generator,
 * verification and a table of variants; the runner (run.c) does the rest:
 * device memory, poisoning, warm-up, repetitions, timing and the report. */
#ifndef CO_WORKLOAD_H
#define CO_WORKLOAD_H

#include "backend/backend.h"

#define CO_MAX_ARRAYS 8
#define CO_MAX_PARAMS CO_MAX_KV
#define CO_MAX_RATES 3

/* Where a variant runs: a bit per backend. */
enum {
    CO_ON_C = 1,
    CO_ON_OMP = 2,
    CO_ON_OPENCL = 4,
    CO_ON_CUDA = 8,
    /* a GLSL shader kernels/<source>.comp, entry by -DENTRY_<entry>: the
     * vulkan and the opengl backend */
    CO_ON_GLSL = 16,
    CO_ON_DEVICE = CO_ON_OPENCL | CO_ON_CUDA /* one kernel source for both */
};
/* The CO_ON_* bits above, in order: c, omp, opencl, cuda, glsl (a workload's
 * defaults[] and anchors[] for glsl hold for vulkan and opengl alike). */
#define CO_NBACKENDS 5

/* A tunable: its name, default, allowed range. Device limits (work-group
 * size, local memory) are checked when the variant computes its launch. */
typedef struct co_param_def {
    const char *name;
    long def;
    long min, max;
    bool pow2;
    const char *help;
    long def_gpu; /* default on GPUs where it differs from def (0: def) */
} co_param_def;

/* A workload option (a size, a mode, a file): name, default, help. */
typedef struct co_option_def {
    const char *name;
    const char *def; /* NULL: required unless another option provides it */
    const char *help;
} co_option_def;

typedef struct co_array {
    const char *name;
    void *host;
    size_t bytes;
    bool output;  /* poisoned before each run, downloaded after it */
    bool scratch; /* working memory of the variants: neither uploaded, downloaded nor checked */
    co_buf *buf;  /* device copy while a device variant runs */
    void **bind;  /* the workload's pointer to host, set by co_problem_alloc */
} co_array;

typedef struct co_workload co_workload;

typedef struct co_problem {
    const co_workload *wl;
    co_array arrays[CO_MAX_ARRAYS];
    size_t narrays;
    double flops; /* per run, by the workload's model */
    double bytes; /* each input read once, each output written once */
    /* Rates besides GFLOP/s and GB/s: a count per run and its unit
     * ("rays", "frames", "ball-steps"), reported per second. */
    struct {
        double count;
        const char *unit;
    } rates[CO_MAX_RATES];
    size_t nrates;
    struct {
        char name[16];
        char value[64];
    } sizes[CO_MAX_KV];
    size_t nsizes;
    /* Memory, counted before anything is allocated (init only declares it;
     * the runner checks the host's and the device's memory, then allocates):
     * init sets the extras to the most its other buffers hold at once. */
    size_t host_bytes;         /* of all arrays (co_problem_array adds them) */
    size_t host_extra_bytes;   /* other host buffers of a run: input images, --output */
    size_t host_check_bytes;   /* the reference's and verify's, counted when verifying */
    size_t device_extra_bytes; /* what variants allocate on the device: scratch, images */
    size_t local[3];           /* --local as asked (0: the variant's choice), for init where
                                  the arrays follow from the work-group (dispatch) */
    void *state;               /* the workload's own */
    struct co_job *job;        /* the run, from fill on: fill and reference report progress */
} co_problem;

typedef struct co_variant co_variant;

/* One variant running on one device. */
typedef struct co_job {
    co_device *dev;
    co_problem *prob;
    const co_variant *var;
    long params[CO_MAX_PARAMS]; /* resolved, in the order of var->params */
    size_t local[3];            /* asked for with --local; 0 = variant's choice */
    size_t used_local[3];       /* what the last launch used */
    double kernel_ms;           /* summed over the launches of one run */
    bool queued; /* launches untimed, queued back to back (the library's calls): co_job_finish */
    struct co_capture *capture; /* a capture run (il.c): kernels and launches recorded */
    /* NULL, or where co_job_param and co_job_kernel mark the tunables a run
     * reads (bit i: var->params[i]; a define, where the kernel's source
     * mentions it): the tuner searches only those. */
    uint32_t *params_read;
    /* Progress (co_job_progress), set by the runner. */
    const co_run_config *cfg;   /* its callback; NULL: none */
    bool stop;                  /* the callback asked to stop: sticky */
    unsigned countdown;         /* calls of co_job_progress before the clock is read */
    unsigned stride;            /* the countdown's start, adapted to the loop's pace */
    const char *phase;          /* "reference", "warm-up", "timed" */
    unsigned run, warmup, reps; /* this run (1-based) of warmup + reps */
    double start_ms, phase_ms, checked_ms, called_ms, last_run_ms;
    const char *unit; /* the last co_job_progress's */
    double done, total;
} co_job;

struct co_variant {
    const char *name;
    const char *summary;
    unsigned on; /* CO_ON_* */
    const co_param_def *params;
    size_t nparams;
    /* Optional: whether it can run on this device (an anchor library missing). */
    bool (*available)(const co_device *dev, const char **why);
    /* One run. Host variants compute on prob->arrays[i].host; device variants
     * launch kernels on prob->arrays[i].buf through co_job_launch. */
    co_status (*run)(co_job *job);
    /* Tunable sets the cross-backend test runs besides the defaults:
     * ";"-separated, each "NAME=V NAME=V". */
    const char *test_params;
    /* Tunables the host reads (space-separated names): not passed to every
     * kernel as -DNAME=V; the host passes one to the kernels that use it, if
     * any, so sweeping it rebuilds only those (and the tuner sees it read
     * only on the path that reads it). */
    const char *host_params;
};

/* Whether tunable i of v is one of its host_params. */
bool co_param_is_host(const co_variant *v, size_t i);

/* The ceiling a workload's results are a fraction of (co_peak). */
enum {
    CO_BOUND_MEMORY = 0, /* copy bandwidth: reads and writes streamed (the default) */
    CO_BOUND_READ,       /* read bandwidth: almost all traffic is reads (reductions) */
    CO_BOUND_COMPUTE     /* float32 FMA throughput */
};

/* x rounded up to a multiple of step: a grid that covers x work-items. */
static inline size_t co_ceil_to(size_t x, size_t step) { return (x + step - 1) / step * step; }

/* In initializers: a static array and its length, counted by the compiler. */
/* A variant's parameters; more than CO_MAX_PARAMS fails to compile (a
 * negative array size), rather than overrunning co_job.params. */
#define CO_PARAMS(array)                                                                           \
    .params = (array),                                                                             \
    .nparams = sizeof(array) / sizeof((array)[0]) +                                                \
               0 * sizeof(char[sizeof(array) / sizeof((array)[0]) <= CO_MAX_PARAMS ? 1 : -1])
#define CO_OPTIONS(array) .options = (array), .noptions = sizeof(array) / sizeof((array)[0])
#define CO_VARIANTS(array) .variants = (array), .nvariants = sizeof(array) / sizeof((array)[0])

struct co_workload {
    const char *name;
    const char *summary;
    int bound; /* CO_BOUND_* */
    const co_option_def *options;
    size_t noptions;
    const co_variant *variants;
    size_t nvariants;
    /* Default variant on c, omp, opencl, cuda, vulkan (NULL: the first
     * variant that runs there). */
    const char *defaults[CO_NBACKENDS];
    const char *anchors[CO_NBACKENDS]; /* the library each is compared with (NULL: none) */
    /* bench's ";"-separated option sets, e.g. "size=1024": on CPUs, where
     * the slowest variant must finish a run in seconds, and on GPUs (NULL: the
     * CPU's); a GPU's list starts with the CPU's sets, so that rows compare. */
    const char *bench_sets, *bench_sets_gpu;
    const char *quick_sets, *quick_sets_gpu;
    const char *test_sets; /* awkward sizes every variant is tested at */
    /* Parse and check options, declare host arrays and the other memory a
     * run takes (co_problem: *_extra_bytes, host_check_bytes), set the model
     * and sizes. The arrays are allocated after init: it must not touch them. */
    co_status (*init)(co_problem *p, const co_option *opts, size_t nopts);
    /* Random inputs from a seed (never zeros). */
    void (*fill)(co_problem *p, uint64_t seed);
    /* Optional: the reference of the inputs fill() made, computed once
     * before the runs when they are to be verified; verify() then uses it. */
    co_status (*reference)(co_problem *p);
    /* Compare outputs with the reference: error, tolerance, method. */
    co_status (*verify)(co_problem *p, double *error, double *tolerance, char *check,
                        size_t check_len);
    /* Optional: write what the options ask for (--output ...) after the
     * repetitions, from the last run's outputs. */
    co_status (*save)(co_problem *p, const co_option *opts, size_t nopts);
    void (*destroy)(co_problem *p);
};

/* ---- helpers for workloads and variants ---- */

/* Registered workloads (registry.c). */
size_t co_workloads(const co_workload *const **list);
const co_workload *co_workload_find(const char *name);
const co_variant *co_variant_find(const co_workload *wl, const char *name);
/* The variant `run` picks on a device: the workload's default for its
 * backend, else the first variant that runs there (NULL: none). */
const char *co_workload_default_on(const co_workload *wl, const co_device *dev);

/* Bit of CO_ON_* for a device's backend. */
unsigned co_device_on(const co_device *dev);

/* Option lookup for init: the value of `name` or NULL. */
const char *co_opt(const co_option *opts, size_t n, const char *name);
/* Parse a positive size option ("1024", "1k" is not accepted): one clear error. */
co_status co_opt_size(const co_option *opts, size_t n, const char *name, size_t def, size_t *out);

/* A real-valued option within [min, max]. */
co_status co_opt_real(const co_option *opts, size_t n, const char *name, double def, double min,
                      double max, double *out);
/* A whole-number option within [min, max]. */
co_status co_opt_int(const co_option *opts, size_t n, const char *name, int def, int min, int max,
                     int *out);
/* One of `choices` ("clamp|reflect101|zero"): its index, or a clear error. */
co_status co_opt_choice(const co_option *opts, size_t n, const char *name, const char *choices,
                        int def, int *out);

/* Declare a host array: *host (host may be NULL: p->arrays[i].host) is set
 * by co_problem_alloc, after the memory check, so `host` must outlive init
 * (a field of p->state); 64-byte aligned, freed with the problem. */
co_status co_problem_array(co_problem *p, const char *name, size_t bytes, bool output, void **host);
/* What stb's PNG writer takes for an image of `bytes` (its filtered rows and
 * its deflate output, each about the image, and the deflate tables). */
#define CO_PNG_WRITE_BYTES(bytes) (2 * (size_t)(bytes) + ((size_t)1 << 20))
/* Allocate the declared arrays (the runner, after init and the memory check). */
co_status co_problem_alloc(co_problem *p);
/* Whether the problem fits: host memory (arrays, extras, the check's when
 * verify, and the device copies on a CPU device) against what the host has
 * free, and device memory (arrays and scratch) against the device's. */
co_status co_problem_check_memory(const co_problem *p, const co_device *dev, bool verify);
/* The host memory a process may take (MemAvailable, lowered by COALESCE_MAX_HOST_BYTES) and
 * where that figure comes from. */
co_status co_host_memory_limit(double *limit, const char **source);
void co_problem_size(co_problem *p, const char *name, size_t value);
/* A size that is not an integer (a box width, a mode): reported as given. */
void co_problem_text(co_problem *p, const char *name, const char *value);
/* Count `count` of `unit` per run, reported per second (set again: replaced). */
void co_problem_rate(co_problem *p, const char *unit, double count);

/* For the library calls (api.c): the workload, device and variant of cfg
 * and the job's tunables, each checked and named as co_run does (fn names
 * the caller in messages about cfg itself). */
co_status co_job_setup(const char *fn, co_context *ctx, const co_run_config *cfg,
                       const co_workload **wl, co_device **dev, co_job *job);

/* The resolved value of a variant's tunable. */
long co_job_param(const co_job *job, const char *name);
/* "-DTS=16 -DWPT=8 ..." for every tunable but the host_params, plus `extra`
 * (may be NULL). */
void co_job_defines(const co_job *job, const char *extra, char *out, size_t len);
/* Build (cached per device and define set) and fetch a kernel entry point of
 * kernels/<source>.cl (on Vulkan: kernels/<source>.comp). */
co_status co_job_kernel(co_job *job, const char *source, const char *entry, const char *defines,
                        co_kernel **out);
/* Check a launch against the device's limits, round `global` up to a multiple
 * of `local`, launch, wait, add the kernel time to job->kernel_ms.
 * local_mem: bytes of __local memory the kernel declares (for the check). */
co_status co_job_launch(co_job *job, co_kernel *kernel, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t local_mem, size_t nargs, const co_arg *args);
/* The same check alone, before building a kernel that could not launch. */
co_status co_job_check(const co_job *job, unsigned dims, const size_t local[3], size_t local_mem);
/* For variants whose work-group (2D) follows from `from` ("its tile"): a
 * --local that differs is an error naming --param instead. */
co_status co_job_fixed_local(const co_job *job, const size_t local[2], const char *from);
/* Anchors timed by their own means add their time here. */
void co_job_add_time(co_job *job, double ms);
/* Wait for a queued job's launches (a kernel's fault surfaces here). */
co_status co_job_finish(co_job *job);

/* A capture run (src/core/il.c): the variant runs once, unverified and
 * untimed, on dev (NULL: cfg->device of ctx; il.c passes an offline NVRTC
 * device), and co_job_kernel / co_job_launch report each kernel built and
 * each launch to `cap`. *out gets the run's names and tunables. */
typedef struct co_capture co_capture;
co_status co_run_capture(co_context *ctx, co_device *dev, const co_run_config *cfg, co_capture *cap,
                         co_result *out);
co_status co_capture_kernel(co_capture *cap, const char *source, const char *entry,
                            const char *defines, co_program *prog, co_kernel *kernel);
co_status co_capture_launch(co_capture *cap, co_kernel *kernel, unsigned dims,
                            const size_t global[3], const size_t local[3], size_t dynamic_local);
/* Long loops say how far they are: `done` of `total` `unit`s ("step",
 * "frame", "pixel", "row") of this run (or of the reference, from
 * fill/reference through p->job). Cheap enough for every iteration: a
 * countdown, the clock read every ~20 ms, the callback (co_progress) called
 * every ~100 ms. Returns true when the run is to stop; the caller frees what
 * it holds and returns co_job_stopped(job). Call it from the thread that
 * runs the variant (not inside a parallel region); job may be NULL. */
bool co_job_progress_check(co_job *job, const char *unit, double done, double total);
static inline bool co_job_progress(co_job *job, const char *unit, double done, double total) {
    if (!job) return false;
    if (job->countdown > 1) {
        job->countdown--;
        return job->stop;
    }
    return co_job_progress_check(job, unit, done, total);
}
/* CO_ERR_INTERRUPTED, with a message that says where the run stopped. */
co_status co_job_stopped(const co_job *job);

/* A prepared run (run.c): workload, device and variant resolved, the
 * problem made and filled and its reference computed once; then any number
 * of configurations of the variant run on it, each warmed up, timed and
 * verified as co_run does (co_run is open, one run, close). The base
 * configuration is cfg's tunables and --local over the tuning database's
 * (unless cfg->untuned) over the defaults. `names` (optional) gets the
 * run's names if it is interrupted while filling. */
typedef struct co_session co_session;
co_status co_session_open(co_context *ctx, const co_run_config *cfg, co_result *names,
                          co_session **out);
/* params: a value per tunable of the variant (NULL: the base); local: the
 * work-group (NULL: the base's; zeros: the variant's choice). out->tuned
 * only for the base of a session that found tuned values. */
co_status co_session_run(co_session *s, const long *params, const size_t local[3], co_result *out);
void co_session_close(co_session *s);
const co_variant *co_session_variant(const co_session *s);
const co_device *co_session_device(const co_session *s);
const co_problem *co_session_problem(const co_session *s);
const long *co_session_params(const co_session *s);
const size_t *co_session_local(const co_session *s);
/* The tunables the last co_session_run read (co_job.params_read's bits). */
uint32_t co_session_params_read(const co_session *s);

/* The tuning database's configuration (tune.c) for this device, workload,
 * variant and the problem's size class: values of the tunables it has
 * (have[i]; names the variant no longer has, and values out of range, are
 * left out) and the work-group (zeros: none). False if there is none. */
bool co_tune_lookup(const co_device *dev, const co_workload *wl, const co_variant *var,
                    const co_problem *p, long *params, bool *have, size_t local[3]);
/* The tuning database's values for a job whose problem p is initialised
 * (its sizes known), over its defaults but never over the tunables and
 * work-group cfg gives: co_run (unless untuned) and the library calls. True
 * if any was used. */
bool co_job_use_tuned(co_job *job, const co_workload *wl, const co_problem *p,
                      const co_run_config *cfg);

/* Embedded kernel sources (or $COALESCE_KERNEL_DIR/<name>.cl), with the
 * dialect prelude in front. Returns NULL if unknown. Caller frees. */
char *co_kernel_source(const char *name);
/* The same for GLSL compute shaders: kernels/<name>.comp behind
 * kernels/prelude.glsl. */
char *co_shader_source(const char *name);
/* Names of all embedded kernel files (NULL-terminated). */
const char *const *co_kernel_names(void);

/* Seeded random numbers: splitmix64 stream. */
typedef struct co_rng {
    uint64_t s;
} co_rng;
uint64_t co_rng_next(co_rng *r);
/* Uniform in [lo, hi), never exactly 0. */
float co_rng_float(co_rng *r, float lo, float hi);

double co_now_ms(void);
/* The median of n > 0 values (sorts them). */
double co_median(double *v, size_t n);

#endif
