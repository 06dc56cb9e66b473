/* The runner: one workload variant on one device. Inputs from the seed,
 * outputs poisoned before every run, warm-up, timed repetitions, the median,
 * and every run checked against the reference. Also the job helpers that
 * variants use to build and launch kernels within the device's limits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/workload.h"

/* ---- tunables ---- */

long co_job_param(const co_job *job, const char *name) {
    for (size_t i = 0; i < job->var->nparams; i++)
        if (strcmp(job->var->params[i].name, name) == 0) return job->params[i];
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
            return co_fail(CO_ERR_INVALID, "parameter %s=%ld must be a power of two (%s)",
                           d->name, x, d->help);
        job->params[i] = x;
    }
    return CO_OK;
}

/* ---- kernels and launches ---- */

co_status co_job_kernel(co_job *job, const char *source, const char *entry, const char *defines,
                        co_kernel **out) {
    co_device *dev = job->dev;
    char key[1024];
    snprintf(key, sizeof key, "%s\n%s", source, defines ? defines : "");
    co_program *prog = NULL;
    for (size_t i = 0; i < dev->nprograms; i++)
        if (strcmp(dev->programs[i].key, key) == 0) prog = dev->programs[i].program;
    if (!prog) {
        const bool glsl = co_device_on(dev) == CO_ON_VULKAN;
        char *text = glsl ? co_shader_source(source) : co_kernel_source(source);
        if (!text)
            return co_fail(CO_ERR_BUILD, "no kernel source '%s%s'", source, glsl ? ".comp" : ".cl");
        co_status st = dev->backend->build(dev, source, text, defines, &prog);
        free(text);
        if (st) return st;
        if (dev->nprograms == dev->cap_programs) {
            size_t cap = dev->cap_programs ? 2 * dev->cap_programs : 8;
            co_program_entry *grown = realloc(dev->programs, cap * sizeof *grown);
            if (!grown) {
                dev->backend->program_free(dev, prog);
                return co_fail(CO_ERR_NOMEM, "out of host memory");
            }
            dev->programs = grown;
            dev->cap_programs = cap;
        }
        char *k = malloc(strlen(key) + 1);
        if (!k) {
            dev->backend->program_free(dev, prog);
            return co_fail(CO_ERR_NOMEM, "out of host memory");
        }
        strcpy(k, key);
        dev->programs[dev->nprograms++] = (co_program_entry){.key = k, .program = prog};
    }
    return dev->backend->kernel(dev, prog, entry, out);
}

co_status co_job_check(const co_job *job, unsigned dims, const size_t local[3], size_t local_mem) {
    const co_device_info *info = &job->dev->info;
    size_t items = 1;
    char shape[64];
    snprintf(shape, sizeof shape, dims == 1 ? "%zu" : dims == 2 ? "%zux%zu" : "%zux%zux%zu",
             local[0], dims > 1 ? local[1] : 1, dims > 2 ? local[2] : 1);
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
    if (local_mem > info->local_mem_bytes)
        return co_fail(CO_ERR_LIMIT,
                       "insufficient local resources: the kernel needs %zu bytes of local "
                       "memory, over the device's %zu (local_mem_bytes of %s); use a smaller tile",
                       local_mem, info->local_mem_bytes, info->spec);
    return CO_OK;
}

co_status co_job_fixed_local(const co_job *job, const size_t local[2], const char *from) {
    if ((job->local[0] && job->local[0] != local[0]) || (job->local[1] && job->local[1] != local[1]))
        return co_fail(CO_ERR_INVALID,
                       "variant '%s' sets its work-group from %s (%zux%zu here); change "
                       "it with --param, not --local",
                       job->var->name, from, local[0], local[1]);
    return CO_OK;
}

co_status co_job_launch(co_job *job, co_kernel *kernel, unsigned dims, const size_t global[3],
                        const size_t local[3], size_t local_mem, size_t nargs,
                        const co_arg *args) {
    co_status st = co_job_check(job, dims, local, local_mem);
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
    double ms = 0;
    st = job->dev->backend->launch(job->dev, kernel, dims, g, l, nargs, args, &ms);
    job->kernel_ms += ms;
    return st;
}

void co_job_add_time(co_job *job, double ms) { job->kernel_ms += ms; }

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
    static const char *const names[CO_NBACKENDS] = {"c", "omp", "opencl", "cuda", "vulkan"};
    size_t used = 0;
    out[0] = 0;
    for (unsigned b = 0; b < CO_NBACKENDS && used < len; b++)
        if (on & (1u << b))
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", names[b]);
}

/* Resolve workload, device and variant of a config; one clear error each. */
static co_status resolve(co_context *ctx, const co_run_config *cfg, const co_workload **wl_out,
                         co_device **dev_out, const co_variant **var_out) {
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
    co_device *dev = co_context_device(ctx, cfg->device);
    if (!dev) return co_fail(CO_ERR_INVALID, "device index %zu out of range", cfg->device);
    const char *vname = cfg->variant ? cfg->variant : co_variant_default(ctx, wl->name, cfg->device);
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

/* Before allocating: does the problem fit the device's memory? */
static co_status check_memory(const co_problem *p, const co_device *dev) {
    double total = 0;
    for (size_t i = 0; i < p->narrays; i++) {
        const co_array *a = &p->arrays[i];
        total += (double)a->bytes;
        if (dev->info.max_alloc_bytes && a->bytes > dev->info.max_alloc_bytes) {
            char need[32], have[32];
            human_bytes((double)a->bytes, need, sizeof need);
            human_bytes((double)dev->info.max_alloc_bytes, have, sizeof have);
            return co_fail(CO_ERR_LIMIT,
                           "array %s needs %zu bytes (%s), over the device's maximum "
                           "allocation %zu bytes (%s, max_alloc_bytes of %s)",
                           a->name, a->bytes, need, dev->info.max_alloc_bytes, have,
                           dev->info.spec);
        }
    }
    if (dev->info.global_mem_bytes && total > (double)dev->info.global_mem_bytes) {
        char need[32], have[32];
        human_bytes(total, need, sizeof need);
        human_bytes((double)dev->info.global_mem_bytes, have, sizeof have);
        return co_fail(CO_ERR_LIMIT,
                       "%s needs %.0f bytes (%s) of device memory, more than the %zu bytes "
                       "(%s) of %s",
                       p->wl->name, total, need, dev->info.global_mem_bytes, have, dev->info.spec);
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
    if (!st && dev->backend->alloc) st = check_memory(p, dev);
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
        if (device) st = dev->backend->upload(dev, p->arrays[i].buf, p->arrays[i].host,
                                              p->arrays[i].bytes);
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

#define MAX_REPS 1000
/* A run of the slowest variants (sequential C at large sizes) takes seconds:
 * past this budget the repetitions stop early (at least 3 when asked). */
#define REP_BUDGET_MS 15000.0

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

/* The fraction of the device's matching ceiling (measured first if none is
 * kept). Without a ceiling the result simply has none: a run is not failed
 * for it, and its own status and message are left as they were. */
static void set_ceiling(co_context *ctx, size_t device, const co_workload *wl, co_result *r) {
    bool compute = wl->bound == CO_BOUND_COMPUTE;
    double achieved = compute ? r->gflops : r->gbps;
    if (!(achieved > 0)) return;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", co_last_error());
    co_peak peak;
    if (co_peak_get(ctx, device, &peak) == CO_OK) {
        r->ceiling = compute                     ? peak.fma32_gflops
                     : wl->bound == CO_BOUND_READ ? peak.read_gbps
                                                 : peak.copy_gbps;
        snprintf(r->ceiling_name, sizeof r->ceiling_name, "%s",
                 compute ? "fma32" : wl->bound == CO_BOUND_READ ? "read" : "copy");
        if (r->ceiling > 0) r->fraction = achieved / r->ceiling;
    }
    co_fail(CO_OK, "%s", msg);
}

co_status co_run(co_context *ctx, const co_run_config *cfg, co_result *out) {
    memset(out, 0, sizeof *out);
    const co_workload *wl;
    co_device *dev;
    const co_variant *var;
    co_status st = resolve(ctx, cfg, &wl, &dev, &var);
    if (st) return st;
    co_job job = {.dev = dev, .var = var};
    memcpy(job.local, cfg->local, sizeof job.local);
    st = resolve_params(&job, cfg);
    if (st) return st;

    co_problem p;
    st = prepare(wl, dev, cfg, &p);
    job.prob = &p;
    if (st) goto done;
    wl->fill(&p, cfg->seed);
    if (cfg->verify && wl->reference && (st = wl->reference(&p))) goto done;

    unsigned reps = cfg->reps ? cfg->reps : 5, warmup = cfg->warmup;
    if (reps > MAX_REPS) reps = MAX_REPS;
    double kernel[MAX_REPS], total[MAX_REPS];
    double max_error = 0, tol = 0, spent = 0;
    char check[32] = "not checked";
    bool ok = true;
    unsigned done_reps = 0;
    for (unsigned i = 0; i < warmup + reps; i++) {
        double t;
        st = run_once(&job, &t);
        if (st) goto done;
        if (cfg->verify) {
            double err = 0;
            st = wl->verify(&p, &err, &tol, check, sizeof check);
            if (st) goto done;
            if (!(err <= tol)) ok = false; /* NaN fails too */
            if (!(err <= max_error)) max_error = err;
        }
        if (i < warmup) {
            if (t > 1000.0) i = warmup - 1; /* a long run is its own warm-up */
            continue;
        }
        kernel[done_reps] = job.kernel_ms;
        total[done_reps++] = t;
        spent += t;
        if (spent > REP_BUDGET_MS && done_reps >= (reps < 3 ? reps : 3)) break;
    }
    fill_result(out, &job, &p, dev);
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
        out->gflops = p.flops / (out->median_ms * 1e6);
        out->gbps = p.bytes / (out->median_ms * 1e6);
        for (size_t i = 0; i < out->nrates; i++) {
            out->rates[i].per_s = p.rates[i].count / (out->median_ms * 1e-3);
            out->rates[i].per_s_total = p.rates[i].count / (out->total_ms * 1e-3);
        }
    }
    if (wl->save) {
        st = wl->save(&p, cfg->options, cfg->noptions);
        if (st) goto done;
    }
    if (cfg->verify && !ok)
        st = co_fail(CO_ERR_VERIFY, "%s/%s on %s: error %.3g is over the tolerance %.3g (%s check)",
                     wl->name, var->name, dev->info.spec, max_error, tol, check);
done:
    free_device_arrays(&p, dev);
    problem_free(&p);
    /* After the problem's memory is freed: the measurement needs its own. */
    if (st == CO_OK || st == CO_ERR_VERIFY) set_ceiling(ctx, cfg->device, wl, out);
    return st;
}

/* ---- direct calls on caller data ---- */

/* Run a variant once on caller-provided inputs (copied in, in array order)
 * and copy the outputs back. No verification: the caller's data has no
 * reference here; the variants themselves are what the tests check. */
static co_status call(co_context *ctx, size_t device, const char *workload, const char *variant,
                      const co_option *opts, size_t nopts, const void *const *inputs,
                      void *const *outputs) {
    co_run_config cfg = {.workload = workload, .variant = variant, .device = device,
                         .options = opts, .noptions = nopts};
    const co_workload *wl;
    co_device *dev;
    const co_variant *var;
    co_status st = resolve(ctx, &cfg, &wl, &dev, &var);
    if (st) return st;
    co_job job = {.dev = dev, .var = var};
    st = resolve_params(&job, &cfg);
    if (st) return st;
    co_problem p;
    st = prepare(wl, dev, &cfg, &p);
    job.prob = &p;
    size_t in = 0, outn = 0;
    for (size_t i = 0; !st && i < p.narrays; i++)
        if (!p.arrays[i].output && !p.arrays[i].scratch)
            memcpy(p.arrays[i].host, inputs[in++], p.arrays[i].bytes);
    double t;
    if (!st) st = run_once(&job, &t);
    for (size_t i = 0; !st && i < p.narrays; i++)
        if (p.arrays[i].output) memcpy(outputs[outn++], p.arrays[i].host, p.arrays[i].bytes);
    free_device_arrays(&p, dev);
    problem_free(&p);
    return st;
}

co_status co_sgemm(co_context *ctx, size_t device, const char *variant, size_t m, size_t n,
                   size_t k, const float *a, const float *b, float *c) {
    if (!a || !b || !c) return co_fail(CO_ERR_INVALID, "co_sgemm: NULL matrix pointer");
    char sm[32], sn[32], sk[32];
    snprintf(sm, sizeof sm, "%zu", m);
    snprintf(sn, sizeof sn, "%zu", n);
    snprintf(sk, sizeof sk, "%zu", k);
    co_option opts[] = {{"m", sm}, {"n", sn}, {"k", sk}};
    const void *inputs[] = {a, b};
    void *outputs[] = {c};
    return call(ctx, device, "gemm", variant, opts, 3, inputs, outputs);
}
