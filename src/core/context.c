/* The context: every backend probed once, every device it found, and
 * selection of devices by SPEC. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/glsl/glsl.h"

#define MAX_BACKENDS 6

struct co_context {
    co_device **devices; /* stable addresses: jobs keep pointers */
    size_t ndevices, cap;
    struct {
        const char *name;
        bool available;
        char reason[512];
    } backends[MAX_BACKENDS];
    size_t nbackends;
    void *api; /* the library calls' state (api.c): its lock, check mode, copy counts */
};

void *co_context_api(const co_context *ctx) { return ctx ? ctx->api : NULL; }

co_status co_context_add_device(co_context *ctx, const co_backend *backend,
                                const co_device_info *info, void *impl) {
    if (ctx->ndevices == ctx->cap) {
        size_t cap = ctx->cap ? 2 * ctx->cap : 8;
        co_device **grown = realloc(ctx->devices, cap * sizeof *grown);
        if (!grown) return co_fail(CO_ERR_NOMEM, "out of host memory adding a device");
        ctx->devices = grown;
        ctx->cap = cap;
    }
    co_device *dev = calloc(1, sizeof *dev);
    if (!dev) return co_fail(CO_ERR_NOMEM, "out of host memory adding a device");
    dev->info = *info;
    dev->backend = backend;
    dev->impl = impl;
    ctx->devices[ctx->ndevices++] = dev;
    return CO_OK;
}

co_status co_context_create(co_context **out) {
    if (!out) return co_fail(CO_ERR_INVALID, "co_context_create: out is NULL");
    *out = NULL;
    co_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return co_fail(CO_ERR_NOMEM, "out of host memory creating a context");
    const co_backend *all[MAX_BACKENDS] = {co_backend_c(),      co_backend_omp(),
                                           co_backend_opencl(), co_backend_cuda(),
                                           co_backend_vulkan(), co_backend_opengl()};
    for (size_t i = 0; i < MAX_BACKENDS; i++) {
        ctx->backends[i].name = all[i]->name;
        co_status st = all[i]->probe(ctx);
        ctx->backends[i].available = st == CO_OK;
        if (st != CO_OK)
            snprintf(ctx->backends[i].reason, sizeof ctx->backends[i].reason, "%s",
                     co_last_error());
    }
    ctx->nbackends = MAX_BACKENDS;
    co_status st = co_api_create(&ctx->api);
    if (st) {
        co_context_destroy(ctx);
        return st;
    }
    co_fail(CO_OK, "%s", ""); /* a probe's "unavailable" is not the caller's error */
    *out = ctx;
    return CO_OK;
}

void co_device_free(co_device *dev) {
    for (size_t i = 0; i < dev->nprograms; i++) {
        dev->backend->program_free(dev, dev->programs[i].program);
        free(dev->programs[i].key);
        free(dev->programs[i].mentioned);
    }
    free(dev->programs);
    if (dev->backend->release) dev->backend->release(dev);
    free(dev);
}

void co_context_destroy(co_context *ctx) {
    if (!ctx) return;
    co_api_destroy(ctx->api); /* its cached buffers, while the devices live */
    for (size_t i = 0; i < ctx->ndevices; i++) co_device_free(ctx->devices[i]);
    free(ctx->devices);
    free(ctx);
}

size_t co_device_count(const co_context *ctx) {
    if (!ctx) {
        co_fail(CO_ERR_INVALID, "co_device_count: ctx is NULL");
        return 0;
    }
    return ctx->ndevices;
}

const co_device_info *co_device_get(const co_context *ctx, size_t index) {
    if (!ctx) {
        co_fail(CO_ERR_INVALID, "co_device_get: ctx is NULL");
        return NULL;
    }
    if (index >= ctx->ndevices) {
        co_fail(CO_ERR_INVALID, "co_device_get: index %zu is out of range (%zu devices)", index,
                ctx->ndevices);
        return NULL;
    }
    return &ctx->devices[index]->info;
}

co_device *co_context_device(const co_context *ctx, size_t index) {
    return ctx && index < ctx->ndevices ? ctx->devices[index] : NULL;
}

const co_glsl_caps *co_glsl_device(const co_device *dev) {
    return dev && dev->backend->glsl ? dev->backend->glsl(dev) : NULL;
}

size_t co_backend_count(const co_context *ctx) {
    if (!ctx) {
        co_fail(CO_ERR_INVALID, "co_backend_count: ctx is NULL");
        return 0;
    }
    return ctx->nbackends;
}

co_status co_backend_status(const co_context *ctx, size_t index, const char **name, bool *available,
                            const char **reason) {
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_backend_status: ctx is NULL");
    if (!name || !available || !reason)
        return co_fail(CO_ERR_INVALID, "co_backend_status: %s is NULL",
                       !name        ? "name"
                       : !available ? "available"
                                    : "reason");
    if (index >= ctx->nbackends)
        return co_fail(CO_ERR_INVALID,
                       "co_backend_status: index %zu is out of range (%zu backends)", index,
                       ctx->nbackends);
    *name = ctx->backends[index].name;
    *available = ctx->backends[index].available;
    *reason = ctx->backends[index].reason;
    return CO_OK;
}

/* Append index i unless already selected: a device named twice runs once. */
static co_status select_add(size_t *indices, size_t capacity, size_t *count, size_t i) {
    for (size_t j = 0; j < *count; j++)
        if (indices[j] == i) return CO_OK;
    if (*count == capacity) return co_fail(CO_ERR_INVALID, "too many devices selected");
    indices[(*count)++] = i;
    return CO_OK;
}

static void list_specs(const co_context *ctx, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < ctx->ndevices && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 ctx->devices[i]->info.spec);
}

/* A term that selects nothing: a well-formed one names a device that is not
 * here (a skip: CO_ERR_UNSUPPORTED, as an unavailable backend), any other
 * is a usage error. */
static co_status no_device(const co_context *ctx, const char *term, bool well_formed) {
    char specs[1024];
    list_specs(ctx, specs, sizeof specs);
    if (well_formed)
        return co_fail(CO_ERR_UNSUPPORTED, "no device '%s' here (present here: %s)", term, specs);
    return co_fail(
        CO_ERR_INVALID,
        "unknown device '%s': use all, c, omp, opencl, opencl:N, opencl:cpu, "
        "opencl:gpu, cuda, cuda:N, vulkan, vulkan:N, opengl, opengl:N (present here: %s)",
        term, specs);
}

/* One term of a SPEC: "all", "c", "opencl", "opencl:2", "opencl:gpu". */
static co_status select_one(const co_context *ctx, const char *term, size_t *indices,
                            size_t capacity, size_t *count) {
    char backend[32];
    const char *colon = strchr(term, ':');
    size_t blen = colon ? (size_t)(colon - term) : strlen(term);
    if (blen == 0 || blen >= sizeof backend) goto unknown;
    memcpy(backend, term, blen);
    backend[blen] = 0;
    const char *rest = colon ? colon + 1 : NULL;

    if (strcmp(backend, "all") == 0 && !rest) {
        for (size_t i = 0; i < ctx->ndevices; i++) {
            co_status st = select_add(indices, capacity, count, i);
            if (st) return st;
        }
        return CO_OK;
    }
    size_t b;
    for (b = 0; b < ctx->nbackends; b++)
        if (strcmp(ctx->backends[b].name, backend) == 0) break;
    if (b == ctx->nbackends) goto unknown;
    long want_index = rest ? -1 : 0; /* bare backend name: its first device */
    int want_type = 0;
    if (rest) {
        if (strcmp(rest, "cpu") == 0)
            want_type = CO_DEVICE_CPU;
        else if (strcmp(rest, "gpu") == 0)
            want_type = CO_DEVICE_GPU;
        else {
            char *end;
            if (!isdigit((unsigned char)rest[0])) goto unknown;
            want_index = strtol(rest, &end, 10);
            if (*end) goto unknown;
        }
    }
    /* After the suffix: a malformed term is a usage error on every machine. */
    if (!ctx->backends[b].available)
        return co_fail(CO_ERR_UNSUPPORTED, "device '%s' is unavailable: %s", term,
                       ctx->backends[b].reason);
    long seen = 0;
    bool matched = false; /* even if already selected by an earlier term */
    for (size_t i = 0; i < ctx->ndevices; i++) {
        const co_device_info *info = &ctx->devices[i]->info;
        if (strcmp(info->backend, backend) != 0) continue;
        bool match = want_type ? (info->type & want_type) != 0 : seen == want_index;
        seen++;
        if (match) {
            matched = true;
            co_status st = select_add(indices, capacity, count, i);
            if (st) return st;
        }
    }
    if (matched) return CO_OK;
    return no_device(ctx, term, true);
unknown:
    return no_device(ctx, term, false);
}

co_status co_device_select(const co_context *ctx, const char *spec, size_t *indices,
                           size_t capacity, size_t *count) {
    if (!count) return co_fail(CO_ERR_INVALID, "co_device_select: count is NULL");
    *count = 0;
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_device_select: ctx is NULL");
    if (!indices) return co_fail(CO_ERR_INVALID, "co_device_select: indices is NULL");
    if (!capacity) return co_fail(CO_ERR_INVALID, "co_device_select: capacity is 0");
    if (!spec) return co_fail(CO_ERR_INVALID, "co_device_select: spec is NULL");
    if (!*spec) return co_fail(CO_ERR_INVALID, "empty device spec");
    char buf[256];
    size_t len = strlen(spec);
    if (len >= sizeof buf)
        return co_fail(CO_ERR_INVALID,
                       "device spec of %zu characters is over the %zu a spec may have", len,
                       sizeof buf - 1);
    /* strtok would skip the empty terms of "c,,omp" and ",c". */
    if (spec[0] == ',' || spec[len - 1] == ',' || strstr(spec, ",,"))
        return co_fail(CO_ERR_INVALID, "device spec '%s' has an empty term: use SPEC[,SPEC...]",
                       spec);
    strcpy(buf, spec);
    for (char *save = NULL, *term = strtok_r(buf, ",", &save); term;
         term = strtok_r(NULL, ",", &save)) {
        co_status st = select_one(ctx, term, indices, capacity, count);
        if (st) return st;
    }
    if (*count == 0) return co_fail(CO_ERR_INVALID, "device spec '%s' selects nothing", spec);
    return CO_OK;
}
