/* The list of workloads, and the public queries over workloads and variants. */
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

static const co_workload *const workloads[] = {&co_workload_gemm, &co_workload_raytrace,
                                              &co_workload_copy, &co_workload_reduce,
                                              &co_workload_grayscale,
                                              &co_workload_collider, &co_workload_boxfilter,
                                              &co_workload_dispatch};
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
const char *co_workload_name(size_t i) { return i < NWORKLOADS ? workloads[i]->name : NULL; }
const char *co_workload_summary(size_t i) {
    return i < NWORKLOADS ? workloads[i]->summary : NULL;
}

const char *co_variant_name(const char *workload, size_t index) {
    const co_workload *wl = co_workload_find(workload);
    return wl && index < wl->nvariants ? wl->variants[index].name : NULL;
}

unsigned co_device_on(const co_device *dev) {
    const char *b = dev->info.backend;
    if (strcmp(b, "c") == 0) return CO_ON_C;
    if (strcmp(b, "omp") == 0) return CO_ON_OMP;
    if (strcmp(b, "opencl") == 0) return CO_ON_OPENCL;
    if (strcmp(b, "cuda") == 0) return CO_ON_CUDA;
    if (strcmp(b, "vulkan") == 0) return CO_ON_VULKAN;
    return 0;
}

bool co_variant_runs_on(const co_context *ctx, const char *workload, const char *variant,
                        size_t device, const char **why) {
    static const char *const not_here = "it does not run on this backend";
    const co_workload *wl = co_workload_find(workload);
    const co_variant *v = wl ? co_variant_find(wl, variant) : NULL;
    const co_device *dev = co_context_device(ctx, device);
    if (why) *why = "";
    if (!v || !dev) {
        if (why) *why = "unknown workload, variant or device";
        return false;
    }
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

const char *co_variant_default(const co_context *ctx, const char *workload, size_t device) {
    const co_workload *wl = co_workload_find(workload);
    const co_device *dev = co_context_device(ctx, device);
    if (!wl || !dev) return NULL;
    unsigned on = co_device_on(dev);
    for (unsigned b = 0; b < CO_NBACKENDS; b++)
        if (on == 1u << b && wl->defaults[b]) return wl->defaults[b];
    for (size_t i = 0; i < wl->nvariants; i++) /* none named: the first that runs there */
        if (wl->variants[i].on & on) return wl->variants[i].name;
    return NULL;
}

const char *co_variant_summary(const char *workload, size_t index) {
    const co_workload *wl = co_workload_find(workload);
    return wl && index < wl->nvariants ? wl->variants[index].summary : NULL;
}

const char *co_workload_option(const char *workload, size_t index, const char **def,
                               const char **help) {
    const co_workload *wl = co_workload_find(workload);
    if (!wl || index >= wl->noptions) return NULL;
    if (def) *def = wl->options[index].def;
    if (help) *help = wl->options[index].help;
    return wl->options[index].name;
}

const char *co_workload_anchor(const char *workload, const char *backend) {
    static const char *const names[CO_NBACKENDS] = {"c", "omp", "opencl", "cuda", "vulkan"};
    const co_workload *wl = co_workload_find(workload);
    for (unsigned b = 0; wl && backend && b < CO_NBACKENDS; b++)
        if (strcmp(names[b], backend) == 0) return wl->anchors[b];
    return NULL;
}

const char *co_workload_bench_sets(const char *workload, bool quick) {
    const co_workload *wl = co_workload_find(workload);
    return wl ? (quick ? wl->quick_sets : wl->bench_sets) : NULL;
}
