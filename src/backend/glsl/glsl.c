/* What the GLSL backends share beyond the compiler (glsl.h): the launch
 * rules (a launch's shape checked against the device's limits, its co_arg
 * list sorted into bindings, scalars and CO_LOCAL's bytes, one message
 * each for what does not fit), programs and their kernels, and the
 * subgroup operations as words. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"

co_status co_glsl_launch_shape(const co_device *dev, const char *api, const char *entry,
                               unsigned dims, const size_t global[3], const size_t local[3],
                               bool num_groups, const uint32_t max_groups[3], co_glsl_shape *out) {
    if (dims < 1 || dims > 3 || !global || !local)
        return co_fail(CO_ERR_INVALID, "%s: kernel '%s' launched with %u dimensions", api, entry,
                       dims);
    *out = (co_glsl_shape){.groups = {1, 1, 1}, .spec = {1, 1, 1, 4}};
    size_t items = 1;
    for (unsigned i = 0; i < dims; i++) {
        if (local[i] == 0 || global[i] % local[i] != 0)
            return co_fail(CO_ERR_INVALID,
                           "%s: kernel '%s': global size %zu is not a multiple of local "
                           "size %zu in dimension %u",
                           api, entry, global[i], local[i], i);
        if (local[i] > dev->info.max_work_item_sizes[i] || global[i] / local[i] > UINT32_MAX)
            return co_fail(CO_ERR_LIMIT,
                           "%s: kernel '%s': dimension %u has work-groups of %zu "
                           "(the device's largest: %zu) and %zu of them (at most 2^32-1)",
                           api, entry, i, local[i], dev->info.max_work_item_sizes[i],
                           global[i] / local[i]);
        out->spec[i] = (uint32_t)local[i];
        out->groups[i] = (uint32_t)(global[i] / local[i]);
        if (num_groups && out->groups[i] > max_groups[i])
            return co_fail(CO_ERR_LIMIT,
                           "%s: kernel '%s': %u work-groups in dimension %u, over %s's "
                           "maximum work-group count %u (it reads gl_NumWorkGroups, so its "
                           "dispatch cannot be split)",
                           api, entry, out->groups[i], i, dev->info.spec, max_groups[i]);
        items *= local[i];
    }
    if (items > dev->info.max_work_group_size)
        return co_fail(CO_ERR_LIMIT,
                       "%s: kernel '%s': %zu invocations a work-group (the device's "
                       "largest: %zu)",
                       api, entry, items, dev->info.max_work_group_size);
    return CO_OK;
}

co_status co_glsl_launch_args(const char *api, const char *entry, size_t nargs, const co_arg *args,
                              unsigned max_scalars, const char *scalars_limit, co_glsl_args *out,
                              co_glsl_shape *shape) {
    out->nbuf = out->nscalars = 0;
    if (max_scalars > CO_GLSL_MAX_SCALARS) max_scalars = CO_GLSL_MAX_SCALARS;
    bool local_arg = false;
    for (size_t i = 0; i < nargs; i++) {
        const co_arg *a = &args[i];
        if (a->kind == CO_ARG_BUF) {
            if (!a->v.buf)
                return co_fail(CO_ERR_INVALID, "%s: kernel '%s': argument %zu is a null buffer",
                               api, entry, i);
            if (out->nbuf == CO_GLSL_MAX_BINDINGS)
                return co_fail(CO_ERR_INVALID, "%s: kernel '%s': over %d buffers", api, entry,
                               CO_GLSL_MAX_BINDINGS);
            out->bufs[out->nbuf++] = a->v.buf;
        } else if (a->kind == CO_ARG_INT || a->kind == CO_ARG_UINT || a->kind == CO_ARG_FLOAT) {
            if (out->nscalars == max_scalars)
                return co_fail(CO_ERR_INVALID, "%s: kernel '%s': over %u bytes of scalars (%s)",
                               api, entry, 4 * max_scalars, scalars_limit);
            memcpy(&out->scalars[out->nscalars++], &a->v, 4); /* int32, uint32 and float alike */
        } else if (a->kind == CO_ARG_LOCAL) {
            if (local_arg)
                return co_fail(CO_ERR_INVALID,
                               "%s: kernel '%s': a second local-memory argument (%zu)", api, entry,
                               i);
            local_arg = true;
            shape->spec[3] = a->v.u;
        } else {
            return co_fail(CO_ERR_UNSUPPORTED,
                           "%s: kernel '%s': argument %zu is an image (this backend has none)", api,
                           entry, i);
        }
    }
    return CO_OK;
}

void co_glsl_subgroup_words(unsigned ops, char *out, size_t len) {
    static const char *const names[] = {"basic",     "vote",    "arithmetic",
                                        "ballot",    "shuffle", "shuffle_relative",
                                        "clustered", "quad"};
    size_t used = 0;
    out[0] = 0;
    for (unsigned i = 0; i < sizeof names / sizeof *names && used < len; i++)
        if (ops & 1u << i)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", names[i]);
    if (!used) snprintf(out, len, "none");
}

/* ---- programs ---- */

static char *copy_text(const char *s) {
    char *c = malloc(strlen(s) + 1);
    return c ? strcpy(c, s) : NULL;
}

co_status co_glsl_build(co_device *dev, const char *name, const char *source, const char *defines,
                        co_program **out) {
    (void)dev;
    co_program *prog = calloc(1, sizeof *prog);
    if (prog) {
        prog->name = copy_text(name);
        prog->source = copy_text(source);
        prog->defines = copy_text(defines ? defines : "");
    }
    if (!prog || !prog->name || !prog->source || !prog->defines) {
        if (prog) free(prog->name), free(prog->source), free(prog->defines);
        free(prog);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    *out = prog;
    return CO_OK;
}

co_kernel *co_glsl_kernel_find(const co_program *prog, const char *entry) {
    for (size_t i = 0; i < prog->nkernels; i++)
        if (strcmp(prog->entries[i], entry) == 0) return prog->kernels[i];
    return NULL;
}

co_status co_glsl_kernel_add(co_program *prog, const char *entry, co_kernel *k) {
    const size_t n = prog->nkernels + 1;
    co_kernel **kernels = realloc(prog->kernels, n * sizeof *kernels);
    if (kernels) prog->kernels = kernels;
    char **entries = kernels ? realloc(prog->entries, n * sizeof *entries) : NULL;
    if (entries) prog->entries = entries;
    char *name = entries ? copy_text(entry) : NULL;
    if (!name) return co_fail(CO_ERR_NOMEM, "out of host memory");
    prog->kernels[prog->nkernels] = k;
    prog->entries[prog->nkernels++] = name;
    return CO_OK;
}

void co_glsl_program_free(co_device *dev, co_program *prog,
                          void (*destroy)(co_device *dev, co_kernel *k)) {
    if (!prog) return;
    for (size_t i = 0; i < prog->nkernels; i++)
        destroy(dev, prog->kernels[i]), free(prog->entries[i]);
    free(prog->kernels);
    free(prog->entries);
    free(prog->name);
    free(prog->source);
    free(prog->defines);
    free(prog);
}

/* ---- probes ---- */

co_status co_glsl_probe(co_device *dev, const char *name, const char *source, size_t n,
                        const void *in, void *out, size_t bytes) {
    const co_backend *be = dev->backend;
    co_program *prog = NULL;
    co_kernel *k = NULL;
    co_buf *a = NULL, *b = NULL;
    const size_t global[3] = {n, 1, 1}, local[3] = {n, 1, 1};
    co_status st = be->build(dev, name, source, "", &prog);
    if (!st) st = be->kernel(dev, prog, "main", &k);
    if (!st) st = be->alloc(dev, bytes, &a);
    if (!st) st = be->alloc(dev, bytes, &b);
    if (!st) st = be->upload(dev, a, in, bytes);
    if (!st) st = be->launch(dev, k, 1, global, local, 2, (co_arg[]){CO_BUF(a), CO_BUF(b)}, NULL);
    if (!st) st = be->download(dev, out, b, bytes);
    if (a) be->free(dev, a);
    if (b) be->free(dev, b);
    if (prog) be->program_free(dev, prog);
    return st;
}

/* (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 rounded once, 0 rounded twice (the
 * product's 2^-24 is half an ulp of 1, a tie to even). */
static const char fma_probe_source[] =
    "#version 450\n"
    "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
    "layout(std430, binding = 0) buffer In { float a[]; };\n"
    "layout(std430, binding = 1) buffer Out { float b[]; };\n"
    "void main() { b[0] = fma(a[0], a[0], a[1]); }\n";

static bool probe_fma(co_device *dev) {
    const float in[2] = {1.0f + 0x1p-12f, -(1.0f + 0x1p-11f)};
    float out[2] = {0, 0};
    if (co_glsl_probe(dev, "fma-probe", fma_probe_source, 1, in, out, sizeof out) ||
        (out[0] != 0x1p-24f && out[0] != 0)) {
        /* Said, not an error: the ray tracer's shaders stay right (slower). */
        fprintf(stderr,
                "coalesce: warning: %s: the fma() probe shader %s; fma taken as rounding "
                "twice\n",
                dev->info.spec, out[0] != 0 ? "gave neither answer" : "did not run");
        return false;
    }
    return out[0] != 0;
}

bool co_glsl_fma_once(co_device *dev) {
    co_glsl_caps *caps = (co_glsl_caps *)co_glsl_device(dev); /* (the device's own state) */
    if (!caps->fma_rounds) caps->fma_rounds = probe_fma(dev) ? 1 : 2;
    return caps->fma_rounds == 1;
}
