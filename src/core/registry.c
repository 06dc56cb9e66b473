/* The list of workloads, and the public queries over workloads and variants. */
#include <stdio.h>
#include <string.h>

#include "core/workload.h"

extern const co_workload co_workload_gemm;
extern const co_workload co_workload_raytrace;
extern const co_workload co_workload_copy;
extern const co_workload co_workload_reduce;
extern const co_workload co_workload_grayscale;
extern const co_workload co_workload_collider;
extern const co_workload co_workload_boxfilter;
extern const co_workload co_workload_dispatch;

static const co_workload *const workloads[] = {
    &co_workload_gemm,      &co_workload_raytrace, &co_workload_copy,      &co_workload_reduce,
    &co_workload_grayscale, &co_workload_collider, &co_workload_boxfilter, &co_workload_dispatch};
#define NWORKLOADS (sizeof workloads / sizeof workloads[0])

size_t co_workloads(const co_workload *const **list) {
    *list = workloads;
    return NWORKLOADS;
}

const co_workload *co_workload_find(const char *name) {
    for (size_t i = 0; name && i < NWORKLOADS; i++)
        if (strcmp(workloads[i]->name, name) == 0) return workloads[i];
    return NULL;
}

const co_variant *co_variant_find(const co_workload *wl, const char *name) {
    for (size_t i = 0; name && i < wl->nvariants; i++)
        if (strcmp(wl->variants[i].name, name) == 0) return &wl->variants[i];
    return NULL;
}

size_t co_workload_count(void) { return NWORKLOADS; }

/* The public queries return NULL (or false) on bad arguments, with
 * co_last_error naming the function and the argument. */
static const co_workload *named(const char *fn, const char *workload) {
    if (!workload) {
        co_fail(CO_ERR_INVALID, "%s: workload is NULL", fn);
        return NULL;
    }
    const co_workload *wl = co_workload_find(workload);
    if (!wl) {
        char names[256];
        size_t used = 0;
        names[0] = 0;
        for (size_t i = 0; i < NWORKLOADS && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     workloads[i]->name);
        co_fail(CO_ERR_INVALID, "%s: unknown workload '%s' (use %s)", fn, workload, names);
    }
    return wl;
}

/* Index i of n things, or NULL with the reason. */
static bool in_range(const char *fn, size_t i, size_t n, const char *what) {
    if (i < n) return true;
    co_fail(CO_ERR_INVALID, "%s: index %zu is past the last of %zu %s", fn, i, n, what);
    return false;
}

const char *co_workload_name(size_t i) {
    return in_range("co_workload_name", i, NWORKLOADS, "workloads") ? workloads[i]->name : NULL;
}

const char *co_workload_summary(size_t i) {
    return in_range("co_workload_summary", i, NWORKLOADS, "workloads") ? workloads[i]->summary
                                                                       : NULL;
}

const char *co_variant_name(const char *workload, size_t index) {
    const co_workload *wl = named("co_variant_name", workload);
    return wl && in_range("co_variant_name", index, wl->nvariants, "variants")
               ? wl->variants[index].name
               : NULL;
}

const char *co_variant_summary(const char *workload, size_t index) {
    const co_workload *wl = named("co_variant_summary", workload);
    return wl && in_range("co_variant_summary", index, wl->nvariants, "variants")
               ? wl->variants[index].summary
               : NULL;
}

unsigned co_device_on(const co_device *dev) {
    const char *b = dev->info.backend;
    if (strcmp(b, "c") == 0) return CO_ON_C;
    if (strcmp(b, "omp") == 0) return CO_ON_OMP;
    if (strcmp(b, "opencl") == 0) return CO_ON_OPENCL;
    if (strcmp(b, "cuda") == 0) return CO_ON_CUDA;
    if (strcmp(b, "vulkan") == 0 || strcmp(b, "opengl") == 0) return CO_ON_GLSL;
    return 0;
}

/* The device of an index, or NULL with the reason. */
static const co_device *device_of(const char *fn, const co_context *ctx, size_t device) {
    if (!ctx) {
        co_fail(CO_ERR_INVALID, "%s: ctx is NULL", fn);
        return NULL;
    }
    const co_device *dev = co_context_device(ctx, device);
    if (!dev)
        co_fail(CO_ERR_INVALID, "%s: device index %zu is out of range (%zu devices)", fn, device,
                co_device_count(ctx));
    return dev;
}

bool co_variant_runs_on(const co_context *ctx, const char *workload, const char *variant,
                        size_t device, const char **why) {
    static const char *const not_here = "it does not run on this backend";
    if (why) *why = "unknown workload, variant or device";
    const co_workload *wl = named("co_variant_runs_on", workload);
    const co_device *dev = wl ? device_of("co_variant_runs_on", ctx, device) : NULL;
    if (!dev) return false;
    const co_variant *v = co_variant_find(wl, variant);
    if (!v) {
        co_fail(CO_ERR_INVALID, "co_variant_runs_on: %s variant '%s' of %s",
                variant ? "unknown" : "NULL", variant ? variant : "", wl->name);
        return false;
    }
    if (why) *why = "";
    if (!(v->on & co_device_on(dev))) {
        if (why) *why = not_here;
        return false;
    }
    const char *reason = "";
    if (v->available && !v->available(dev, &reason)) {
        if (why) *why = reason;
        return false;
    }
    return true;
}

const char *co_workload_default_on(const co_workload *wl, const co_device *dev) {
    const unsigned on = co_device_on(dev);
    for (unsigned b = 0; b < CO_NBACKENDS; b++)
        if (on == 1u << b && wl->defaults[b]) return wl->defaults[b];
    for (size_t i = 0; i < wl->nvariants; i++) /* none named: the first that runs there */
        if (wl->variants[i].on & on) return wl->variants[i].name;
    return NULL;
}

const char *co_variant_default(const co_context *ctx, const char *workload, size_t device) {
    const co_workload *wl = named("co_variant_default", workload);
    const co_device *dev = wl ? device_of("co_variant_default", ctx, device) : NULL;
    if (!dev) return NULL;
    const char *name = co_workload_default_on(wl, dev);
    if (name) return name;
    co_fail(CO_ERR_UNSUPPORTED, "co_variant_default: no default variant of %s on %s", wl->name,
            dev->info.spec);
    return NULL;
}

const char *co_workload_option(const char *workload, size_t index, const char **def,
                               const char **help) {
    const co_workload *wl = named("co_workload_option", workload);
    if (!wl || !in_range("co_workload_option", index, wl->noptions, "options")) return NULL;
    if (def) *def = wl->options[index].def;
    if (help) *help = wl->options[index].help;
    return wl->options[index].name;
}

const char *co_workload_anchor(const char *workload, const char *backend) {
    static const char *const names[CO_NBACKENDS] = {"c", "omp", "opencl", "cuda", "vulkan"};
    const co_workload *wl = named("co_workload_anchor", workload);
    if (!wl) return NULL;
    if (backend && strcmp(backend, "opengl") == 0) backend = "vulkan"; /* GLSL, as it is */
    for (unsigned b = 0; backend && b < CO_NBACKENDS; b++)
        if (strcmp(names[b], backend) == 0) return wl->anchors[b];
    co_fail(CO_ERR_INVALID,
            "co_workload_anchor: %s backend '%s' (use c, omp, opencl, cuda, vulkan, opengl)",
            backend ? "unknown" : "NULL", backend ? backend : "");
    return NULL;
}

const char *co_workload_bench_sets_for(const char *workload, bool quick, co_device_type type) {
    const co_workload *wl = named("co_workload_bench_sets_for", workload);
    if (!wl) return NULL;
    const char *cpu = quick ? wl->quick_sets : wl->bench_sets;
    const char *gpu = quick ? wl->quick_sets_gpu : wl->bench_sets_gpu;
    return type != CO_DEVICE_CPU && gpu ? gpu : cpu;
}

const char *co_workload_bench_sets(const char *workload, bool quick) {
    return co_workload_bench_sets_for(workload, quick, CO_DEVICE_CPU);
}

const char *co_variant_param(const char *workload, const char *variant, size_t index,
                             co_param_info *info) {
    const co_workload *wl = named("co_variant_param", workload);
    if (!wl) return NULL;
    const co_variant *v = co_variant_find(wl, variant);
    if (!v) {
        co_fail(CO_ERR_INVALID, "co_variant_param: %s variant '%s' of %s",
                variant ? "unknown" : "NULL", variant ? variant : "", wl->name);
        return NULL;
    }
    if (!in_range("co_variant_param", index, v->nparams, "tunables")) return NULL;
    const co_param_def *d = &v->params[index];
    if (info)
        *info = (co_param_info){.name = d->name,
                                .help = d->help ? d->help : "",
                                .def = d->def,
                                .def_gpu = d->def_gpu ? d->def_gpu : d->def,
                                .min = d->min,
                                .max = d->max,
                                .pow2 = d->pow2};
    return d->name;
}
