/* The host backends: `c` (one core, plain sequential C — the reference) and
 * `omp` (all cores through OpenMP). They launch no kernels: a workload
 * variant for them is a C function, so only probe is filled in. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend/backend.h"

/* The CPU's model name from /proc/cpuinfo, or a generic name elsewhere. */
static void cpu_name(char *out, size_t len) {
    snprintf(out, len, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) break;
        v += 1 + (v[1] == ' ');
        snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
        break;
    }
    fclose(f);
}

static void host_info(co_device_info *info, const char *backend, unsigned cores) {
    memset(info, 0, sizeof *info);
    snprintf(info->spec, sizeof info->spec, "%s", backend);
    snprintf(info->backend, sizeof info->backend, "%s", backend);
    cpu_name(info->name, sizeof info->name);
    snprintf(info->vendor, sizeof info->vendor, "host");
    snprintf(info->platform, sizeof info->platform, "host");
    info->type = CO_DEVICE_CPU;
    info->compute_units = cores;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info->cache_bytes = l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) info->global_mem_bytes = (size_t)pages * (size_t)page;
    info->max_alloc_bytes = info->global_mem_bytes;
}

static co_status probe_c(co_context *ctx);
static co_status probe_omp(co_context *ctx);

static const co_backend backend_c = {.name = "c", .probe = probe_c};
static const co_backend backend_omp = {.name = "omp", .probe = probe_omp};

static co_status probe_c(co_context *ctx) {
    co_device_info info;
    host_info(&info, "c", 1);
    snprintf(info.api_version, sizeof info.api_version, "C%ld", (long)__STDC_VERSION__);
    return co_context_add_device(ctx, &backend_c, &info, NULL);
}

static co_status probe_omp(co_context *ctx) {
#ifdef _OPENMP
    co_device_info info;
    host_info(&info, "omp", (unsigned)omp_get_max_threads());
    snprintf(info.api_version, sizeof info.api_version, "OpenMP %d", _OPENMP);
    return co_context_add_device(ctx, &backend_omp, &info, NULL);
#else
    (void)ctx;
    return co_fail(CO_ERR_UNSUPPORTED, "built without OpenMP");
#endif
}

const co_backend *co_backend_c(void) { return &backend_c; }
const co_backend *co_backend_omp(void) { return &backend_omp; }
