/* The runner: one workload variant on one device. Inputs from the seed,
 * outputs poisoned before every run, warm-up, timed repetitions, the median,
 * and every run checked against the reference. Also the job helpers that
 * variants use to build and launch kernels within the device's limits. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/workload.h"

/* ---- tunables ---- */

_Static_assert(CO_MAX_PARAMS <= 32, "co_job.params_read holds a bit per tunable");

long co_job_param(const co_job *job, const char *name) {
    for (size_t i = 0; i < job->var->nparams; i++)
        if (strcmp(job->var->params[i].name, name) == 0) {
            if (job->params_read) *job->params_read |= 1u << i;
            return job->params[i];
        }
    return 0;
}

bool co_param_is_host(const co_variant *v, size_t i) {
    const size_t n = strlen(v->params[i].name);
    for (const char *h = v->host_params; h && *h; h += strspn(h, " ")) {
        const size_t len = strcspn(h, " ");
        if (len == n && strncmp(h, v->params[i].name, n) == 0) return true;
        h += len;
    }
    return false;
}

void co_job_defines(const co_job *job, const char *extra, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < job->var->nparams && used < len; i++)
        if (!co_param_is_host(job->var, i))
            used += (size_t)snprintf(out + used, len - used, "%s-D%s=%ld", used ? " " : "",
                                     job->var->params[i].name, job->params[i]);
    if (extra && *extra && used < len)
        snprintf(out + used, len - used, "%s%s", used ? " " : "", extra);
}

static void param_names(const co_variant *v, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < v->nparams && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", v->params[i].name);
}

static co_status resolve_params(co_job *job, const co_run_config *cfg) {
    const co_variant *v = job->var;
    bool gpu = job->dev->info.type == CO_DEVICE_GPU;
    for (size_t i = 0; i < v->nparams; i++)
        job->params[i] = gpu && v->params[i].def_gpu ? v->params[i].def_gpu : v->params[i].def;
    for (size_t j = 0; j < cfg->nparams; j++) {
        const co_option *o = &cfg->params[j];
        size_t i;
        for (i = 0; i < v->nparams; i++)
            if (strcmp(v->params[i].name, o->name) == 0) break;
        if (i == v->nparams) {
            char names[256];
            param_names(v, names, sizeof names);
            if (!v->nparams)
                return co_fail(CO_ERR_INVALID, "variant '%s' takes no parameters (got '%s')",
                               v->name, o->name);
            return co_fail(CO_ERR_INVALID, "unknown parameter '%s' for variant '%s' (it takes %s)",
                           o->name, v->name, names);
        }
        const co_param_def *d = &v->params[i];
        char *end = NULL;
        errno = 0;
        long x = o->value && *o->value ? strtol(o->value, &end, 10) : 0;
        if (!o->value || !*o->value || *end)
            return co_fail(CO_ERR_INVALID, "parameter %s must be an integer, got '%s'", d->name,
                           o->value ? o->value : "");
        if (errno == ERANGE || x < d->min || x > d->max) /* as typed: strtol clamps */
            return co_fail(CO_ERR_INVALID, "parameter %s=%s is out of range [%ld, %ld] (%s)",
                           d->name, o->value, d->min, d->max, d->help);
        if (d->pow2 && (x & (x - 1)))
            return co_fail(CO_ERR_INVALID, "parameter %s=%ld must be a power of two (%s)", d->name,
                           x, d->help);
        job->params[i] = x;
    }
    return CO_OK;
}

/* ---- kernels and launches ---- */

static bool ident_char(char c) {
    return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* " NAME NAME " of the -DNAME=V in `defines` whose NAME `text` holds as a
 * whole word (malloc'ed; NULL: out of memory). */
static char *mentioned_defines(const char *text, const char *defines) {
    const size_t cap = strlen(defines ? defines : "") + 2;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t used = (size_t)snprintf(out, cap, " ");
    for (const char *d = defines; d && (d = strstr(d, "-D")); d += 2) {
        char name[64];
        const size_t len = strcspn(d + 2, "= ");
        if (len == 0 || len >= sizeof name || (d != defines && d[-1] != ' ')) continue;
        memcpy(name, d + 2, len);
        name[len] = 0;
        for (const char *at = text; (at = strstr(at, name)); at += len)
            if ((at == text || !ident_char(at[-1])) && !ident_char(at[len])) {
                used += (size_t)snprintf(out + used, cap - used, "%s ", name);
                break;
            }
    }
    return out;
}

co_status co_job_kernel(co_job *job, const char *source, const char *entry, const char *defines,
                        co_kernel **out) {
    co_device *dev = job->dev;
    char key[1024];
    snprintf(key, sizeof key, "%s\n%s", source, defines ? defines : "");
    const co_program_entry *found = NULL;
    for (size_t i = 0; i < dev->nprograms; i++)
        if (strcmp(dev->programs[i].key, key) == 0) found = &dev->programs[i];
    if (!found) {
        const bool glsl = co_device_on(dev) == CO_ON_GLSL;
        char *text = glsl ? co_shader_source(source) : co_kernel_source(source);
        if (!text)
            return co_fail(CO_ERR_BUILD, "no kernel source '%s%s'", source, glsl ? ".comp" : ".cl");
        co_program *prog = NULL;
        co_status st = dev->backend->build(dev, source, text, defines, &prog);
        char *mentioned = st ? NULL : mentioned_defines(text, defines);
        free(text);
        if (st) return st;
        char *k = malloc(strlen(key) + 1);
        if (dev->nprograms == dev->cap_programs && k && mentioned) {
            size_t cap = dev->cap_programs ? 2 * dev->cap_programs : 8;
            co_program_entry *grown = realloc(dev->programs, cap * sizeof *grown);
            if (grown) dev->programs = grown, dev->cap_programs = cap;
        }
        if (!k || !mentioned || dev->nprograms == dev->cap_programs) {
            free(k);
            free(mentioned);
            dev->backend->program_free(dev, prog);
            return co_fail(CO_ERR_NOMEM, "out of host memory");
        }
        strcpy(k, key);
        dev->programs[dev->nprograms] =
            (co_program_entry){.key = k, .program = prog, .mentioned = mentioned};
        found = &dev->programs[dev->nprograms++];
    }
    for (size_t i = 0; job->params_read && i < job->var->nparams; i++) {
        if (co_param_is_host(job->var, i)) continue; /* marked where the host reads it */
        char word[64];
        snprintf(word, sizeof word, " %s ", job->var->params[i].name);
        if (strstr(found->mentioned, word)) *job->params_read |= 1u << i;
    }
    co_program *prog = found->program;
    co_status st = dev->backend->kernel(dev, prog, entry, out);
    if (!st && job->capture)
        st = co_capture_kernel(job->capture, source, entry, defines, prog, *out);
    return st;
}

co_status co_job_check(const co_job *job, unsigned dims, const size_t local[3], size_t local_mem) {
    const co_device_info *info = &job->dev->info;
    size_t items = 1;
    char shape[64];
    snprintf(shape, sizeof shape,
             dims == 1   ? "%zu"
             : dims == 2 ? "%zux%zu"
                         : "%zux%zux%zu",
             local[0], dims > 1 ? local[1] : 1, dims > 2 ? local[2] : 1);
    /* Local memory first: the limit a tile meets on GPUs (the thesis's
     * "Insufficient Local Resources" at TS=128), whatever the group size. */
    if (local_mem > info->local_mem_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "insufficient local resources: the kernel needs %zu bytes of local "
                       "memory, over the device's %zu (local_mem_bytes of %s); use a smaller tile",
                       local_mem, info->local_mem_bytes, info->spec);
    for (unsigned d = 0; d < dims; d++) {
        if (local[d] == 0) return co_fail(CO_ERR_INVALID, "work-group size 0 in dimension %u", d);
        if (info->max_work_item_sizes[d] && local[d] > info->max_work_item_sizes[d])
            return co_fail(CO_ERR_LIMIT,
                           "work-group %s: %zu in dimension %u is over the device's maximum "
                           "work-item size %zu (max_work_item_sizes[%u] of %s)",
                           shape, local[d], d, info->max_work_item_sizes[d], d, info->spec);
        items *= local[d];
    }
    if (info->max_work_group_size && items > info->max_work_group_size)
        return co_fail(CO_ERR_LIMIT,
                       "work-group %s = %zu work-items is over the device's maximum "
                       "work-group size %zu (max_work_group_size of %s)",
                       shape, items, info->max_work_group_size, info->spec);
    return CO_OK;
}

co_status co_job_fixed_local(const co_job *job, const size_t local[2], const char *from) {
    if ((job->local[0] && job->local[0] != local[0]) ||
        (job->local[1] && job->local[1] != local[1]))
        return co_fail(CO_ERR_INVALID,
                       "variant '%s' sets its work-group from %s (%zux%zu here); change "
                       "it with --param, not --local",
                       job->var->name, from, local[0], local[1]);
    return CO_OK;
}

/* --local sized in more dimensions than a kernel that took it launches in:
 * those sizes would be dropped. (A kernel whose group is its own, not
 * --local's, is not held to it.) */
static co_status check_local_dims(const co_job *job, unsigned dims, const size_t local[3]) {
    bool took = job->local[0] != 0;
    for (unsigned d = 0; d < dims; d++) took &= !job->local[d] || job->local[d] == local[d];
    for (unsigned d = dims; took && d < 3; d++)
        if (job->local[d] > 1) {
            char given[64];
            snprintf(given, sizeof given, job->local[2] ? "%zux%zux%zu" : "%zux%zu", job->local[0],
                     job->local[1], job->local[2]);
            return co_fail(CO_ERR_INVALID,
                           "--local %s: variant '%s' launches %u-dimensional work-groups "
                           "(give --local %s)",
                           given, job->var->name, dims, dims == 1 ? "X" : "XxY");
        }
    return CO_OK;
}

co_status co_job_launch(co_job *job, co_kernel *kernel, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t local_mem, size_t nargs, const co_arg *args) {
    co_status st = check_local_dims(job, dims, local);
    if (!st) st = co_job_check(job, dims, local, local_mem);
    if (st) return st;
    const co_device_info *info = &job->dev->info;
    size_t all_local = local_mem;
    for (size_t i = 0; i < nargs; i++)
        if (args[i].kind == CO_ARG_LOCAL) all_local += args[i].v.u;
    if (all_local > local_mem && all_local > info->local_mem_arg_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "insufficient local resources: the kernel needs %zu bytes of local "
                       "memory, over the device's %zu (local_mem_arg_bytes of %s)",
                       all_local, info->local_mem_arg_bytes, info->spec);
    size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
    for (unsigned d = 0; d < dims; d++) {
        l[d] = local[d];
        g[d] = (global[d] + local[d] - 1) / local[d] * local[d];
    }
    memcpy(job->used_local, l, sizeof l);
    if (job->capture &&
        (st = co_capture_launch(job->capture, kernel, dims, g, l, all_local - local_mem)))
        return st;
    double ms = 0;
    st = job->dev->backend->launch(job->dev, kernel, dims, g, l, nargs, args,
                                   job->queued ? NULL : &ms);
    job->kernel_ms += ms;
    return st;
}

void co_job_add_time(co_job *job, double ms) { job->kernel_ms += ms; }

co_status co_job_finish(co_job *job) {
    const co_backend *b = job->dev->backend;
    return job->queued && b->finish ? b->finish(job->dev) : CO_OK;
}

/* ---- progress ---- */

#define PROGRESS_CHECK_MS 20.0 /* clock reads of co_job_progress, about */
#define PROGRESS_CALL_MS 100.0 /* callbacks, at most */

#define MAX_REPS 1000
/* A run of the slowest variants (sequential C at large sizes) takes seconds:
 * past this budget the repetitions stop early (at least 3 when asked). */
#define REP_BUDGET_MS 15000.0
/* A warm-up run longer than this is warm-up enough. */
#define LONG_RUN_MS 1000.0

/* How many runs the runner's loop makes when each takes ms (< 0: unknown):
 * the same rules as the loop in co_run. */
static unsigned planned_runs(unsigned warmup, unsigned reps, double ms) {
    if (ms < 0) return warmup + reps;
    const unsigned w = warmup && ms > LONG_RUN_MS ? 1 : warmup, least = reps < 3 ? reps : 3;
    double fit = floor(REP_BUDGET_MS / fmax(ms, 1e-6)) + 1;
    unsigned n = reps;
    if (fit < n) n = fit < least ? least : (unsigned)fit;
    return w + n;
}

/* The runs planned, each taking per_run ms (< 0: unknown); 0 in the reference. */
static unsigned job_runs(const co_job *job, double per_run) {
    if (!job->run) return 0;
    const unsigned runs = planned_runs(job->warmup, job->reps, per_run);
    return runs < job->run ? job->run : runs;
}

/* The callback's view of the job at `now`. */
static void progress_view(const co_job *job, double now, co_progress *p) {
    const bool ref = job->run == 0;
    const double frac = job->unit && job->total > 0 ? job->done / job->total : 0;
    const double in_phase = now - job->phase_ms;
    double left = frac > 0                       ? in_phase * (1 - frac) / frac
                  : !ref && job->last_run_ms > 0 ? fmax(0, job->last_run_ms - in_phase)
                                                 : -1;
    const double per_run = job->last_run_ms > 0 ? job->last_run_ms
                           : frac > 0           ? in_phase / frac
                                                : -1;
    const unsigned runs = job_runs(job, per_run);
    *p = (co_progress){
        .workload = job->prob->wl->name,
        .variant = job->var->name,
        .device = job->dev->info.spec,
        .phase = job->phase,
        .run = job->run,
        .runs = runs,
        .unit = job->unit,
        .done = job->unit ? job->done : 0,
        .total = job->unit ? job->total : 0,
        .per_s = job->unit && in_phase > 0 && job->done > 0 ? job->done / (in_phase * 1e-3) : 0,
        .elapsed_ms = now - job->start_ms,
        .eta_ms = ref || left < 0 ? left
                  : per_run < 0   ? -1
                                  : left + (runs - job->run) * per_run,
    };
}

bool co_job_progress_check(co_job *job, const char *unit, double done, double total) {
    if (!job->cfg || !job->cfg->progress) { /* nobody listens: never read the clock */
        job->countdown = UINT_MAX;
        return job->stop;
    }
    const double now = co_now_ms();
    /* Read the clock about every PROGRESS_CHECK_MS, whatever the loop's pace. */
    unsigned stride = job->stride ? job->stride : 1;
    const double dt = now - job->checked_ms;
    if (dt < PROGRESS_CHECK_MS / 2 && stride < 1u << 24)
        stride *= 2;
    else if (dt > 2 * PROGRESS_CHECK_MS && stride > 1)
        stride /= 2;
    job->stride = job->countdown = stride;
    job->checked_ms = now;
    job->unit = unit, job->done = done, job->total = total;
    if (job->stop || now - job->called_ms < PROGRESS_CALL_MS) return job->stop;
    job->called_ms = now;
    co_progress view;
    progress_view(job, now, &view);
    if (job->cfg->progress(&view, job->cfg->progress_user)) job->stop = true;
    return job->stop;
}

/* A new phase of the run: the reference (run 0), or run `run` of the loop. */
static void job_phase(co_job *job, const char *phase, unsigned run) {
    job->phase = phase;
    job->run = run;
    job->phase_ms = co_now_ms();
    job->unit = NULL, job->done = job->total = 0;
    job->countdown = 1; /* the next call reads the clock */
}

co_status co_job_stopped(const co_job *job) {
    char where[160] = "in the reference";
    if (job->run) snprintf(where, sizeof where, "in run %u (%s)", job->run, job->phase);
    if (job->unit)
        return co_fail(CO_ERR_INTERRUPTED, "interrupted: %s/%s on %s stopped %s at %s %.0f of %.0f",
                       job->prob->wl->name, job->var->name, job->dev->info.spec, where, job->unit,
                       job->done, job->total);
    return co_fail(CO_ERR_INTERRUPTED, "interrupted: %s/%s on %s stopped %s", job->prob->wl->name,
                   job->var->name, job->dev->info.spec, where);
}

/* ---- the runner ---- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double co_median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void names_of(const co_workload *wl, char *out, size_t len, bool variants) {
    size_t used = 0;
    out[0] = 0;
    if (variants) {
        for (size_t i = 0; i < wl->nvariants && used < len; i++)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "",
                                     wl->variants[i].name);
    } else {
        for (size_t i = 0; i < wl->noptions && used < len; i++)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "",
                                     wl->options[i].name);
    }
}

static void backends_of(unsigned on, char *out, size_t len) {
    static const char *const names[CO_NBACKENDS] = {"c", "omp", "opencl", "cuda", "vulkan, opengl"};
    size_t used = 0;
    out[0] = 0;
    for (unsigned b = 0; b < CO_NBACKENDS && used < len; b++)
        if (on & (1u << b))
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", names[b]);
}

/* Resolve workload, device and variant of a config; one clear error each. */
static co_status resolve(co_context *ctx, const co_run_config *cfg, co_device *given,
                         const co_workload **wl_out, co_device **dev_out,
                         const co_variant **var_out) {
    const co_workload *wl = co_workload_find(cfg->workload);
    if (!wl) {
        const co_workload *const *list;
        size_t n = co_workloads(&list);
        char names[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < n && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     list[i]->name);
        return co_fail(CO_ERR_INVALID, "unknown workload '%s' (use %s)",
                       cfg->workload ? cfg->workload : "", names);
    }
    co_device *dev = given ? given : co_context_device(ctx, cfg->device);
    if (!dev)
        return co_fail(CO_ERR_INVALID, "device index %zu is out of range (%zu devices)",
                       cfg->device, co_device_count(ctx));
    const char *vname = cfg->variant ? cfg->variant : co_workload_default_on(wl, dev);
    if (!vname)
        return co_fail(CO_ERR_UNSUPPORTED, "%s has no variant that runs on %s", wl->name,
                       dev->info.spec);
    const co_variant *var = co_variant_find(wl, vname);
    if (!var) {
        char names[256];
        names_of(wl, names, sizeof names, true);
        return co_fail(CO_ERR_INVALID, "unknown variant '%s' for %s (use %s)", vname ? vname : "",
                       wl->name, names);
    }
    if (!(var->on & co_device_on(dev))) {
        char where[64];
        backends_of(var->on, where, sizeof where);
        return co_fail(CO_ERR_UNSUPPORTED, "variant '%s' of %s does not run on %s (it runs on %s)",
                       var->name, wl->name, dev->info.spec, where);
    }
    const char *why = "";
    if (var->available && !var->available(dev, &why))
        return co_fail(CO_ERR_UNSUPPORTED, "variant '%s' is unavailable on %s: %s", var->name,
                       dev->info.spec, why);
    for (size_t i = 0; i < cfg->noptions; i++) {
        size_t j;
        for (j = 0; j < wl->noptions; j++)
            if (strcmp(wl->options[j].name, cfg->options[i].name) == 0) break;
        if (j == wl->noptions) {
            char names[256];
            names_of(wl, names, sizeof names, false);
            return co_fail(CO_ERR_INVALID, "unknown option '--%s' for %s (it takes %s)",
                           cfg->options[i].name, wl->name, names);
        }
    }
    *wl_out = wl;
    *dev_out = dev;
    *var_out = var;
    return CO_OK;
}

static void human_bytes(double b, char *out, size_t len) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (b >= 1024 && u < 4) b /= 1024, u++;
    snprintf(out, len, "%.1f %s", b, units[u]);
}

/* The host memory a run may take: MemAvailable (Linux), else 90% of the
 * physical memory (with overcommit an allocation over it succeeds and the
 * process is killed later). COALESCE_MAX_HOST_BYTES lowers it: shared
 * machines, and the tests of this check. */
co_status co_host_memory_limit(double *limit, const char **source) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *limit = pages > 0 && page > 0 ? 0.9 * (double)pages * (double)page : 0;
    *source = "90% of the physical memory";
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *limit = (double)kb * 1024.0;
            *source = "MemAvailable";
        }
    if (f) fclose(f);
    const char *env = getenv("COALESCE_MAX_HOST_BYTES");
    if (env && *env) {
        char *end;
        double cap = strspn(env, "0123456789") == strlen(env) ? strtod(env, &end) : -1;
        if (!(cap > 0))
            return co_fail(CO_ERR_INVALID,
                           "COALESCE_MAX_HOST_BYTES='%s' must be a positive number of bytes", env);
        if (!(*limit > 0) || cap < *limit) *limit = cap, *source = "COALESCE_MAX_HOST_BYTES";
    }
    return CO_OK;
}

/* Before allocating anything: does all a run takes fit the host's memory
 * and the device's? One line naming the workload, the total, its parts
 * and the limit. */
co_status co_problem_check_memory(const co_problem *p, const co_device *dev, bool verify) {
    const bool device = dev->backend->alloc != NULL;
    double arrays = 0; /* on the device: every array has its copy there */
    for (size_t i = 0; i < p->narrays; i++) arrays += (double)p->arrays[i].bytes;
    const double dev_total = device ? arrays + (double)p->device_extra_bytes : 0;
    /* A CPU device's memory is the host's. */
    const double shared = device && dev->info.type == CO_DEVICE_CPU ? dev_total : 0;
    const double check = verify ? (double)p->host_check_bytes : 0;
    const double host = (double)p->host_bytes + (double)p->host_extra_bytes + check + shared;
    char t[32], l[32];
    if (device) { /* the device's own limits first: the most specific message */
        for (size_t i = 0; i < p->narrays; i++) {
            const co_array *x = &p->arrays[i];
            if (dev->info.max_alloc_bytes && x->bytes > dev->info.max_alloc_bytes) {
                human_bytes((double)x->bytes, t, sizeof t);
                human_bytes((double)dev->info.max_alloc_bytes, l, sizeof l);
                return co_fail(CO_ERR_LIMIT,
                               "array %s needs %zu bytes (%s), over the device's maximum "
                               "allocation %zu bytes (%s, max_alloc_bytes of %s)",
                               x->name, x->bytes, t, dev->info.max_alloc_bytes, l, dev->info.spec);
            }
        }
        if (dev->info.global_mem_bytes && dev_total > (double)dev->info.global_mem_bytes) {
            char a[32], e[32];
            human_bytes(dev_total, t, sizeof t);
            human_bytes(arrays, a, sizeof a);
            human_bytes((double)p->device_extra_bytes, e, sizeof e);
            human_bytes((double)dev->info.global_mem_bytes, l, sizeof l);
            return co_fail(CO_ERR_LIMIT,
                           "%s needs %.0f bytes (%s) of device memory (arrays %s, scratch %s), "
                           "more than the %zu bytes (%s) of %s",
                           p->wl->name, dev_total, t, a, e, dev->info.global_mem_bytes, l,
                           dev->info.spec);
        }
    }
    if (host <= 0) return CO_OK; /* a library call on device buffers: /proc/meminfo unread */
    double limit;
    const char *source;
    co_status st = co_host_memory_limit(&limit, &source);
    if (st) return st;
    if (limit > 0 && host > limit) {
        char parts[192];
        human_bytes(host, t, sizeof t);
        human_bytes(limit, l, sizeof l);
        const struct {
            const char *what;
            double bytes;
        } part[] = {{"arrays", (double)p->host_bytes},
                    {"reference and checks", check},
                    {"other buffers", (double)p->host_extra_bytes},
                    {"device copies", shared}};
        size_t used = 0;
        parts[0] = 0;
        for (size_t i = 0; i < sizeof part / sizeof part[0] && used < sizeof parts; i++)
            if (i == 0 || part[i].bytes > 0) {
                char b[32];
                human_bytes(part[i].bytes, b, sizeof b);
                used += (size_t)snprintf(parts + used, sizeof parts - used, "%s%s %s",
                                         i ? ", " : "", part[i].what, b);
            }
        return co_fail(CO_ERR_LIMIT,
                       "%s needs %.0f bytes (%s) of host memory (%s), over the %s the host "
                       "has free (%s)",
                       p->wl->name, host, t, parts, l, source);
    }
    return CO_OK;
}

static void free_device_arrays(co_problem *p, co_device *dev) {
    for (size_t i = 0; i < p->narrays; i++)
        if (p->arrays[i].buf) {
            dev->backend->free(dev, p->arrays[i].buf);
            p->arrays[i].buf = NULL;
        }
}

static void problem_free(co_problem *p) {
    if (p->wl && p->wl->destroy) p->wl->destroy(p);
    for (size_t i = 0; i < p->narrays; i++) free(p->arrays[i].host);
    memset(p, 0, sizeof *p);
}

static co_status prepare(const co_workload *wl, co_device *dev, const co_run_config *cfg,
                         co_problem *p) {
    memset(p, 0, sizeof *p);
    p->wl = wl;
    memcpy(p->local, cfg->local, sizeof p->local);
    co_status st = wl->init(p, cfg->options, cfg->noptions);
    if (!st) st = co_problem_check_memory(p, dev, cfg->verify);
    if (!st) st = co_problem_alloc(p);
    for (size_t i = 0; !st && dev->backend->alloc && i < p->narrays; i++)
        st = dev->backend->alloc(dev, p->arrays[i].bytes, &p->arrays[i].buf);
    return st;
}

/* One run: poison outputs, then (timed) upload inputs, run, download outputs. */
static co_status run_once(co_job *job, double *total_ms) {
    co_problem *p = job->prob;
    co_device *dev = job->dev;
    bool device = dev->backend->alloc != NULL;
    co_status st = CO_OK;
    for (size_t i = 0; i < p->narrays && !st; i++) {
        if (!p->arrays[i].output) continue;
        memset(p->arrays[i].host, 0xFF, p->arrays[i].bytes); /* NaN as float */
        if (device)
            st = dev->backend->upload(dev, p->arrays[i].buf, p->arrays[i].host, p->arrays[i].bytes);
    }
    double t0 = co_now_ms();
    for (size_t i = 0; device && i < p->narrays && !st; i++)
        if (!p->arrays[i].output && !p->arrays[i].scratch)
            st = dev->backend->upload(dev, p->arrays[i].buf, p->arrays[i].host, p->arrays[i].bytes);
    job->kernel_ms = 0;
    double k0 = co_now_ms();
    if (!st) st = job->var->run(job);
    if (!device) job->kernel_ms = co_now_ms() - k0;
    for (size_t i = 0; device && i < p->narrays && !st; i++)
        if (p->arrays[i].output)
            st = dev->backend->download(dev, p->arrays[i].host, p->arrays[i].buf,
                                        p->arrays[i].bytes);
    *total_ms = co_now_ms() - t0;
    return st;
}

static void fill_result(co_result *r, const co_job *job, const co_problem *p,
                        const co_device *dev) {
    snprintf(r->workload, sizeof r->workload, "%s", p->wl->name);
    snprintf(r->variant, sizeof r->variant, "%s", job->var->name);
    snprintf(r->device, sizeof r->device, "%s", dev->info.spec);
    snprintf(r->device_name, sizeof r->device_name, "%s", dev->info.name);
    for (size_t i = 0; i < p->nsizes; i++) {
        memcpy(r->sizes[i].name, p->sizes[i].name, sizeof r->sizes[i].name);
        memcpy(r->sizes[i].value, p->sizes[i].value, sizeof r->sizes[i].value);
    }
    r->nsizes = p->nsizes;
    for (size_t i = 0; i < job->var->nparams && i < CO_MAX_KV; i++) {
        snprintf(r->params[i].name, sizeof r->params[i].name, "%s", job->var->params[i].name);
        r->params[i].value = job->params[i];
    }
    r->nparams = job->var->nparams;
    memcpy(r->local, job->used_local, sizeof r->local);
    r->flops = p->flops;
    r->bytes = p->bytes;
    for (size_t i = 0; i < p->nrates && i < 3; i++)
        snprintf(r->rates[i].unit, sizeof r->rates[i].unit, "%s", p->rates[i].unit);
    r->nrates = p->nrates < 3 ? p->nrates : 3;
}

/* "12.3 MiB", "96 KiB". */
static void mib_text(char *out, size_t len, double bytes) {
    if (bytes >= 1048576)
        snprintf(out, len, "%.3g MiB", bytes / 1048576);
    else
        snprintf(out, len, "%.3g KiB", bytes / 1024);
}

/* Why a fraction is over 1.05, as far as the ceilings can tell: a working
 * set near or below the sizes its level was measured on sits partly in a
 * faster one (L1 below the smallest level measured); else the ceiling
 * itself was low (a busy machine). */
static void over_note(const co_peak *peak, const co_peak_level *lv, double bytes, bool copy,
                      co_result *r) {
    char ws[24], other[24];
    mib_text(ws, sizeof ws, bytes);
    size_t i = lv ? (size_t)(lv - peak->levels) : 0;
    const double measured = lv ? (copy ? 2 : 1) * lv->buffer_bytes : 0;
    if (lv && i > 0 && bytes < 2 * peak->levels[i - 1].fits_bytes) {
        mib_text(other, sizeof other, peak->levels[i - 1].fits_bytes);
        snprintf(r->ceiling_note, sizeof r->ceiling_note,
                 "working set %s is within 2x of the %s (%s): part of it stays there", ws,
                 peak->levels[i - 1].name, other);
    } else if (lv && i == 0 && lv->fits_bytes > 0 && bytes < measured) {
        mib_text(other, sizeof other, measured);
        snprintf(r->ceiling_note, sizeof r->ceiling_note,
                 "working set %s, below the %s ceiling's %s: it fits a faster cache (L1)", ws,
                 lv->name, other);
    } else {
        snprintf(r->ceiling_note, sizeof r->ceiling_note,
                 "over the ceiling (±%.0f%% in its runs): measured on a busy machine? "
                 "'coalesce peak --force' measures it again",
                 50 * r->ceiling_spread);
    }
}

/* The fraction of the device's matching ceiling (measured first if none is
 * kept): for bandwidth, that of the level the working set (the model's
 * bytes: each array read or written once) fits in. Without a ceiling the
 * result simply has none: a run is not failed for it, and its own status
 * and message are left as they were. */
static void set_ceiling(co_context *ctx, size_t device, const co_workload *wl, co_result *r) {
    bool compute = wl->bound == CO_BOUND_COMPUTE, read = wl->bound == CO_BOUND_READ;
    double achieved = compute ? r->gflops : r->gbps;
    if (!(achieved > 0)) return;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", co_last_error());
    co_peak peak;
    if (co_peak_get(ctx, device, &peak) == CO_OK) {
        const co_peak_level *lv = compute ? NULL : co_peak_level_for(&peak, r->bytes);
        if (compute) {
            r->ceiling = peak.fma32_gflops;
            r->ceiling_spread = peak.fma32_spread;
            snprintf(r->ceiling_name, sizeof r->ceiling_name, "fma32");
        } else if (lv) {
            r->ceiling = read ? lv->read_gbps : lv->copy_gbps;
            r->ceiling_spread = read ? lv->read_spread : lv->copy_spread;
            snprintf(r->ceiling_level, sizeof r->ceiling_level, "%s", lv->name);
            snprintf(r->ceiling_name, sizeof r->ceiling_name, "%s (%s)", read ? "read" : "copy",
                     lv->name);
        }
        r->ceiling_measured = peak.measured;
        if (r->ceiling > 0) r->fraction = achieved / r->ceiling;
        if (r->fraction > 1.05) over_note(&peak, lv, r->bytes, !read, r);
    }
    co_fail(CO_OK, "%s", msg);
}

/* Option or parameter arrays of a config: present when counted, each with
 * a name and a value. */
static co_status check_pairs(const char *fn, const char *what, const co_option *v, size_t n) {
    if (n && !v) return co_fail(CO_ERR_INVALID, "%s: %s is NULL with n%s = %zu", fn, what, what, n);
    for (size_t i = 0; i < n; i++) {
        if (!v[i].name || !*v[i].name)
            return co_fail(CO_ERR_INVALID, "%s: %s[%zu].name is %s", fn, what, i,
                           v[i].name ? "empty" : "NULL");
        if (!v[i].value)
            return co_fail(CO_ERR_INVALID, "%s: %s[%zu].value (%s) is NULL", fn, what, i,
                           v[i].name);
    }
    return CO_OK;
}

static co_status check_config(const char *fn, const co_context *ctx, const co_run_config *cfg) {
    if (!ctx) return co_fail(CO_ERR_INVALID, "%s: ctx is NULL", fn);
    if (!cfg) return co_fail(CO_ERR_INVALID, "%s: cfg is NULL", fn);
    if (!cfg->workload) return co_fail(CO_ERR_INVALID, "%s: cfg->workload is NULL", fn);
    co_status st = check_pairs(fn, "options", cfg->options, cfg->noptions);
    if (!st) st = check_pairs(fn, "params", cfg->params, cfg->nparams);
    return st;
}

/* A prepared run: the problem made, filled and its reference computed once,
 * then any number of configurations of the variant timed on it (co_run
 * runs one; tune.c many). */
struct co_session {
    co_context *ctx;
    co_run_config cfg;
    const co_workload *wl;
    co_device *dev;
    const co_variant *var;
    co_problem p;
    co_job job;
    long base[CO_MAX_PARAMS]; /* cfg's tunables over the tuned ones, over the defaults */
    uint32_t params_read;     /* the last run's, through job.params_read */
    size_t base_local[3];
    bool tuned; /* base holds values of the tuning database */
};

/* The names of a run that stopped before its result was filled. */
static void result_names(co_result *out, const co_workload *wl, const co_variant *var,
                         const co_device *dev) {
    snprintf(out->workload, sizeof out->workload, "%s", wl->name);
    snprintf(out->variant, sizeof out->variant, "%s", var->name);
    snprintf(out->device, sizeof out->device, "%s", dev->info.spec);
    snprintf(out->device_name, sizeof out->device_name, "%s", dev->info.name);
}

/* Whether the config names tunable i itself (it wins over a tuned value). */
static bool param_given(const co_run_config *cfg, const co_variant *v, size_t i) {
    for (size_t j = 0; j < cfg->nparams; j++)
        if (!strcmp(cfg->params[j].name, v->params[i].name)) return true;
    return false;
}

bool co_job_use_tuned(co_job *job, const co_workload *wl, const co_problem *p,
                      const co_run_config *cfg) {
    long tuned[CO_MAX_PARAMS];
    bool have[CO_MAX_PARAMS], used = false;
    size_t local[3];
    const co_variant *var = job->var;
    if (!co_tune_lookup(job->dev, wl, var, p, tuned, have, local)) return false;
    for (size_t i = 0; i < var->nparams; i++)
        if (have[i] && !param_given(cfg, var, i)) {
            used = true;
            job->params[i] = tuned[i];
        }
    if (!cfg->local[0] && local[0]) {
        memcpy(job->local, local, sizeof job->local);
        used = true;
    }
    return used;
}

void co_session_close(co_session *s) {
    if (!s) return;
    free_device_arrays(&s->p, s->dev);
    problem_free(&s->p);
    free(s);
}

co_status co_session_open(co_context *ctx, const co_run_config *cfg, co_result *names,
                          co_session **out) {
    *out = NULL;
    co_status st = check_config("co_run", ctx, cfg);
    if (st) return st;
    const co_workload *wl;
    co_device *dev;
    const co_variant *var;
    if ((st = resolve(ctx, cfg, NULL, &wl, &dev, &var))) return st;
    co_session *s = calloc(1, sizeof *s);
    if (!s) return co_fail(CO_ERR_NOMEM, "out of host memory");
    s->ctx = ctx, s->cfg = *cfg, s->wl = wl, s->dev = dev, s->var = var;
    co_job *job = &s->job;
    *job = (co_job){.dev = dev, .var = var, .prob = &s->p, .cfg = &s->cfg};
    memcpy(job->local, cfg->local, sizeof job->local);
    if ((st = resolve_params(job, cfg))) {
        free(s);
        return st;
    }
    st = prepare(wl, dev, cfg, &s->p);
    if (!st && !cfg->untuned) s->tuned = co_job_use_tuned(job, wl, &s->p, cfg); /* sizes known */
    memcpy(s->base, job->params, sizeof s->base);
    memcpy(s->base_local, job->local, sizeof s->base_local);
    if (!st) {
        s->p.job = job;
        job->start_ms = job->checked_ms = job->called_ms = co_now_ms();
        job_phase(job, "reference", 0); /* fill may make the reference (raytrace) */
        wl->fill(&s->p, cfg->seed);
        if (job->stop)
            st = co_job_stopped(job);
        else if (cfg->verify && wl->reference)
            st = wl->reference(&s->p);
    }
    if (st) {
        if (st == CO_ERR_INTERRUPTED && names) result_names(names, wl, var, dev);
        co_session_close(s);
        return st;
    }
    *out = s;
    return CO_OK;
}

const co_variant *co_session_variant(const co_session *s) { return s->var; }
const co_device *co_session_device(const co_session *s) { return s->dev; }
const co_problem *co_session_problem(const co_session *s) { return &s->p; }
const long *co_session_params(const co_session *s) { return s->base; }
const size_t *co_session_local(const co_session *s) { return s->base_local; }
uint32_t co_session_params_read(const co_session *s) { return s->params_read; }

co_status co_session_run(co_session *s, const long *params, const size_t local[3], co_result *out) {
    memset(out, 0, sizeof *out);
    const co_run_config *cfg = &s->cfg;
    const co_workload *wl = s->wl;
    co_job *job = &s->job;
    co_problem *p = &s->p;
    memcpy(job->params, params ? params : s->base, sizeof job->params);
    memcpy(job->local, local ? local : s->base_local, sizeof job->local);
    memset(job->used_local, 0, sizeof job->used_local);
    s->params_read = 0;
    job->params_read = &s->params_read;
    unsigned reps = cfg->reps ? cfg->reps : 5, warmup = cfg->warmup;
    if (reps > MAX_REPS) reps = MAX_REPS;
    job->warmup = warmup, job->reps = reps;
    job->stop = false, job->last_run_ms = 0, job->stride = 0;
    job->start_ms = job->checked_ms = job->called_ms = co_now_ms();

    double kernel[MAX_REPS], total[MAX_REPS];
    double max_error = 0, tol = 0, spent = 0;
    char check[32] = "not checked";
    bool ok = true;
    unsigned done_reps = 0;
    co_status st = CO_OK;
    for (unsigned i = 0; i < warmup + reps; i++) {
        const double began = co_now_ms();
        job_phase(job, i < warmup ? "warm-up" : "timed", i + 1);
        if (co_job_progress_check(job, NULL, 0, 0)) {
            st = co_job_stopped(job);
            goto done;
        }
        double t;
        st = run_once(job, &t);
        if (st) goto done;
        if (cfg->verify) {
            double err = 0;
            st = wl->verify(p, &err, &tol, check, sizeof check);
            if (st) goto done;
            if (!(err <= tol)) ok = false; /* NaN fails too */
            if (!(err <= max_error)) max_error = err;
        }
        job->last_run_ms = co_now_ms() - began;
        if (i < warmup) {
            if (t > LONG_RUN_MS) i = warmup - 1; /* a long run is its own warm-up */
            continue;
        }
        kernel[done_reps] = job->kernel_ms;
        total[done_reps++] = t;
        spent += t;
        if (spent > REP_BUDGET_MS && done_reps >= (reps < 3 ? reps : 3)) break;
    }
    fill_result(out, job, p, s->dev);
    out->tuned = s->tuned && !params && !local;
    out->reps = done_reps;
    out->verified = cfg->verify && ok;
    snprintf(out->check, sizeof out->check, "%s", check);
    out->error = max_error;
    out->tolerance = tol;
    double mins = kernel[0];
    for (unsigned i = 1; i < done_reps; i++) mins = kernel[i] < mins ? kernel[i] : mins;
    out->min_ms = mins;
    out->kernel_ms = co_median(kernel, done_reps);
    out->total_ms = co_median(total, done_reps);
    out->median_ms = out->kernel_ms;
    if (out->median_ms > 0) {
        out->gflops = p->flops / (out->median_ms * 1e6);
        out->gbps = p->bytes / (out->median_ms * 1e6);
        for (size_t i = 0; i < out->nrates; i++) {
            out->rates[i].per_s = p->rates[i].count / (out->median_ms * 1e-3);
            out->rates[i].per_s_total = p->rates[i].count / (out->total_ms * 1e-3);
        }
    }
    if (wl->save && (st = wl->save(p, cfg->options, cfg->noptions))) goto done;
    if (cfg->verify && !ok)
        st = co_fail(CO_ERR_VERIFY, "%s/%s on %s: error %.3g is over the tolerance %.3g (%s check)",
                     wl->name, s->var->name, s->dev->info.spec, max_error, tol, check);
done:
    if (st == CO_ERR_INTERRUPTED) result_names(out, wl, s->var, s->dev); /* say which run stopped */
    return st;
}

co_status co_run(co_context *ctx, const co_run_config *cfg, co_result *out) {
    if (!out) return co_fail(CO_ERR_INVALID, "co_run: out is NULL");
    memset(out, 0, sizeof *out);
    co_session *s;
    co_status st = co_session_open(ctx, cfg, out, &s);
    if (st) return st;
    st = co_session_run(s, NULL, NULL, out);
    const co_workload *wl = s->wl;
    co_session_close(s);
    /* After the problem's memory is freed: the measurement needs its own. */
    if (st == CO_OK || st == CO_ERR_VERIFY) set_ceiling(ctx, cfg->device, wl, out);
    return st;
}

co_status co_run_capture(co_context *ctx, co_device *dev, const co_run_config *cfg, co_capture *cap,
                         co_result *out) {
    memset(out, 0, sizeof *out);
    const co_workload *wl;
    const co_variant *var;
    co_status st = resolve(ctx, cfg, dev, &wl, &dev, &var);
    if (st) return st;
    co_job job = {.dev = dev, .var = var, .capture = cap};
    memcpy(job.local, cfg->local, sizeof job.local);
    if ((st = resolve_params(&job, cfg))) return st;
    co_problem p;
    st = prepare(wl, dev, cfg, &p);
    job.prob = &p;
    double t;
    if (!st) {
        /* Filled as for a run: a kernel's indices may come from its inputs. */
        wl->fill(&p, cfg->seed);
        st = run_once(&job, &t);
    }
    if (!st) fill_result(out, &job, &p, dev);
    free_device_arrays(&p, dev);
    problem_free(&p);
    return st;
}

/* ---- the library calls (api.c) ---- */

co_status co_job_setup(const char *fn, co_context *ctx, const co_run_config *cfg,
                       const co_workload **wl, co_device **dev, co_job *job) {
    const co_variant *var;
    co_status st = check_config(fn, ctx, cfg);
    if (!st) st = resolve(ctx, cfg, NULL, wl, dev, &var);
    if (st) return st;
    *job = (co_job){.dev = *dev, .var = var};
    memcpy(job->local, cfg->local, sizeof job->local);
    return resolve_params(job, cfg);
}
