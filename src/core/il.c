/* What the compiler made of it: the kernels a variant builds, with exactly
 * the defines and launches it runs with, in the compiler's own output (PTX,
 * SASS, PoCL's LLVM IR), with a resource summary and a static instruction
 * mix per kernel.
 *
 * A capture run (co_run_capture in run.c) runs the variant once; co_job_kernel
 * and co_job_launch report each kernel and launch here. On a device the
 * kernels really run (drivers compile some code at the first launch: PoCL's
 * work-group functions); with a target ("sm_90") an offline NVRTC device
 * compiles and launches nothing. The backends give the text and the
 * resources (backend.h: il_formats, program_text, kernel_resources). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cuda/cuda_access.h"
#include "core/il_spirv.h"
#include "core/workload.h"

/* ---- the capture ---- */

typedef struct capture_rec {
    char source[32], entry[64], defines[1024];
    co_program *prog;
    co_kernel *kernel;
    unsigned dims, launches;
    size_t global[3], local[3], dynamic_local;
} capture_rec;

struct co_capture {
    capture_rec *recs;
    size_t n;
};

co_status co_capture_kernel(co_capture *cap, const char *source, const char *entry,
                            const char *defines, co_program *prog, co_kernel *kernel) {
    for (size_t i = 0; i < cap->n; i++)
        if (cap->recs[i].kernel == kernel) return CO_OK;
    capture_rec *grown = realloc(cap->recs, (cap->n + 1) * sizeof *grown);
    if (!grown) return co_fail(CO_ERR_NOMEM, "out of host memory");
    cap->recs = grown;
    capture_rec *r = &cap->recs[cap->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->source, sizeof r->source, "%s", source);
    snprintf(r->entry, sizeof r->entry, "%s", entry);
    snprintf(r->defines, sizeof r->defines, "%s", defines ? defines : "");
    r->prog = prog;
    r->kernel = kernel;
    return CO_OK;
}

/* The first launch's shape is the kernel's (a kernel launched again with
 * another is counted, its shape not kept). */
co_status co_capture_launch(co_capture *cap, co_kernel *kernel, unsigned dims,
                            const size_t global[3], const size_t local[3], size_t dynamic_local) {
    for (size_t i = 0; i < cap->n; i++) {
        capture_rec *r = &cap->recs[i];
        if (r->kernel != kernel) continue;
        if (!r->launches++) {
            r->dims = dims;
            memcpy(r->global, global, sizeof r->global);
            memcpy(r->local, local, sizeof r->local);
            r->dynamic_local = dynamic_local;
        }
    }
    return CO_OK;
}

/* ---- tools: disassemblers the backends run ---- */

bool co_tool_find(const char *const *names, char *path, size_t len) {
    const char *env_path = getenv("PATH");
    const char *cuda[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; names[i]; i++) {
        for (const char *p = env_path; p && *p; p += strspn(p, ":")) {
            size_t n = strcspn(p, ":");
            snprintf(path, len, "%.*s/%s", (int)n, p, names[i]);
            if (access(path, X_OK) == 0) return true;
            p += n;
        }
        for (size_t d = 0; d < sizeof cuda / sizeof *cuda; d++) {
            if (!cuda[d] || !*cuda[d]) continue;
            snprintf(path, len, "%s/bin/%s", cuda[d], names[i]);
            if (access(path, X_OK) == 0) return true;
        }
    }
    return false;
}

co_status co_tool_temp(const void *data, size_t size, char *path, size_t len) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/coalesce-il-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return co_fail(CO_ERR_IO, "cannot create a temporary file %s", path);
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f)
        ok = fclose(f) == 0 && ok;
    else
        close(fd);
    if (!ok) {
        unlink(path);
        return co_fail(CO_ERR_IO, "cannot write the temporary file %s", path);
    }
    return CO_OK;
}

co_status co_tool_run(const char *tool, const char *args, char **out, int *status) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", tool, args);
    *out = NULL;
    FILE *p = popen(cmd, "r");
    if (!p) return co_fail(CO_ERR_IO, "cannot run %s", tool);
    size_t used = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + used, 1, cap - used - 1, p)) > 0;) {
        used += got;
        if (cap - used < 2) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) free(buf);
            buf = grown;
            cap *= 2;
        }
    }
    int rc = pclose(p);
    if (!buf) return co_fail(CO_ERR_NOMEM, "out of host memory");
    buf[used] = 0;
    *out = buf;
    *status = rc;
    return CO_OK;
}

/* ---- the instruction mix ---- */

/* [2] is 4-wide or wider (PoCL's 8- and 16-lane vectors, PTX .v8). */
static unsigned width_index(unsigned w) { return w >= 4 ? 2 : w >= 2 ? 1 : 0; }

/* The opcode of a PTX or SASS line: past "/ *0070* /", a label and a predicate. */
static const char *opcode(const char *line, char *op, size_t len) {
    const char *p = line + strspn(line, " \t");
    if (p[0] == '/' && p[1] == '*') { /* SASS address */
        const char *e = strstr(p, "*/");
        if (!e) return NULL;
        p = e + 2;
        p += strspn(p, " \t");
    }
    if (*p == '@') p += strcspn(p, " \t"), p += strspn(p, " \t");
    size_t n = strcspn(p, " \t;\n{}");
    if (!n || n >= len || !isalpha((unsigned char)*p)) return NULL;
    memcpy(op, p, n);
    op[n] = 0;
    return op;
}

static bool has_part(const char *op, const char *part) {
    size_t n = strlen(part);
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
        if (strncmp(p + 1, part, n) == 0 && (p[1 + n] == '.' || !p[1 + n])) return true;
    return false;
}

static void count_ptx(const char *op, co_il_mix *m) {
    size_t head = strcspn(op, ".");
    bool ld = (head == 2 && !strncmp(op, "ld", 2)) || (head == 3 && !strncmp(op, "ldu", 3));
    bool st = head == 2 && !strncmp(op, "st", 2);
    if (ld || st) {
        unsigned w = has_part(op, "v8") ? 8 : has_part(op, "v4") ? 4 : has_part(op, "v2") ? 2 : 1;
        if (has_part(op, "global"))
            (ld ? m->ld_global : m->st_global)[width_index(w)]++;
        else if (has_part(op, "shared"))
            ld ? m->ld_shared++ : m->st_shared++;
        else if (has_part(op, "local"))
            ld ? m->ld_local++ : m->st_local++;
    } else if (head == 3 && !strncmp(op, "fma", 3))
        m->fma++;
    else if ((head == 3 && !strncmp(op, "bar", 3)) || (head == 7 && !strncmp(op, "barrier", 7)))
        m->barrier++;
    else if (head == 4 && !strncmp(op, "shfl", 4))
        m->shuffle++;
    else if (head == 3 && !strncmp(op, "bra", 3))
        m->branch++;
}

static void count_sass(const char *op, co_il_mix *m) {
    size_t head = strcspn(op, ".");
    unsigned w = has_part(op, "128") ? 4 : has_part(op, "64") ? 2 : 1;
#define IS(s) (head == strlen(s) && !strncmp(op, s, head))
    if (IS("LDG"))
        m->ld_global[width_index(w)]++;
    else if (IS("STG"))
        m->st_global[width_index(w)]++;
    else if (IS("LDS"))
        m->ld_shared++;
    else if (IS("STS"))
        m->st_shared++;
    else if (IS("LDL"))
        m->ld_local++;
    else if (IS("STL"))
        m->st_local++;
    else if (IS("FFMA") || IS("DFMA"))
        m->fma++;
    else if (IS("BAR"))
        m->barrier++;
    else if (IS("SHFL"))
        m->shuffle++;
    else if (IS("BRA") || IS("BRX"))
        m->branch++;
#undef IS
}

/* LLVM IR: loads and stores by their type's width and address space
 * (OpenCL's: 1 global, 2 constant, 3 local); `flat`: PoCL's work-group
 * functions have one address space, counted as global. */
static void count_ir(const char *line, bool flat, co_il_mix *m) {
    const char *p = line + strspn(line, " \t");
    const char *load = strstr(p, " = load ");
    bool st = !strncmp(p, "store ", 6);
    if ((load && load == strchr(p, ' ')) || st) {
        const char *t = load ? load + 8 : p + 6;
        t += strncmp(t, "volatile ", 9) ? 0 : 9;
        unsigned w = *t == '<' ? (unsigned)strtoul(t + 1, NULL, 10) : 1;
        const char *as = strstr(t, "addrspace(");
        long space = as ? strtol(as + 10, NULL, 10) : 0;
        if (space == 3)
            st ? m->st_shared++ : m->ld_shared++;
        else if (space == 0 && !flat)
            st ? m->st_local++ : m->ld_local++;
        else
            (st ? m->st_global : m->ld_global)[width_index(w)]++;
    } else if ((load = strstr(p, "@llvm.masked.")) != NULL) {
        /* PoCL's vectoriser: contiguous masked accesses of N lanes
         * (.v8f32), and gathers and scatters, counted as scalar. */
        const char *op = load + 13;
        const bool ld = !strncmp(op, "load.v", 6), wide = ld || !strncmp(op, "store.v", 7);
        const unsigned w = wide ? (unsigned)strtoul(op + (ld ? 6 : 7), NULL, 10) : 1;
        if (ld || !strncmp(op, "gather", 6))
            m->ld_global[width_index(w)]++;
        else
            m->st_global[width_index(w)]++;
    } else if (strstr(p, "@llvm.fmuladd.") || strstr(p, "@llvm.fma."))
        m->fma++;
    else if (strstr(p, "@_Z7barrierj(") || strstr(p, "@_Z18work_group_barrierj("))
        m->barrier++;
    else if (strstr(p, "@_Z17sub_group_shuffle"))
        m->shuffle++;
    else if (!strncmp(p, "br ", 3) || !strncmp(p, "switch ", 7))
        m->branch++;
}

co_status co_il_count(const char *format, const char *text, co_il_mix *out) {
    memset(out, 0, sizeof *out);
    if (!strcmp(format, "spirv")) return co_il_count_spirv(text, out);
    const int kind = !strcmp(format, "ptx")    ? 0
                     : !strcmp(format, "sass") ? 1
                     : !strcmp(format, "ir")   ? 2
                     : !strcmp(format, "wg")   ? 3
                                               : -1;
    if (kind < 0)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "the instruction mix is counted in ptx, sass, ir, wg "
                       "and spirv, not in '%s'",
                       format);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512], op[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
        const char *c = strstr(buf, "//");
        if (kind == 0 && c) buf[c - buf] = 0; /* a PTX comment */
        if (kind >= 2)
            count_ir(buf, kind == 3, out);
        else if (opcode(buf, op, sizeof op))
            (kind ? count_sass : count_ptx)(op, out);
        line = nl ? nl + 1 : NULL;
    }
    return CO_OK;
}

/* ---- one kernel's part of a program's text ---- */

/* PTX: ".entry NAME(" to its body's closing brace. SASS: cuobjdump's
 * "Function : NAME" or nvdisasm's ".text.NAME:" to the next function. IR:
 * "define ... @NAME(" (PoCL: @_pocl_kernel_NAME() to the "}" line. SPIR-V:
 * a module per kernel, whole. Where the kernel is not found the whole text
 * is kept. */
static char *slice(const char *text, const char *format, const char *entry) {
    char key[128];
    const char *start = NULL, *end = NULL;
    if (!strcmp(format, "ptx")) {
        snprintf(key, sizeof key, ".entry %s(", entry);
        if ((start = strstr(text, key))) {
            int depth = 0;
            for (const char *p = strchr(start, '{'); p && *p; p++) {
                if (*p == '{') depth++;
                if (*p == '}' && --depth == 0) {
                    end = p + 1;
                    break;
                }
            }
            while (start > text && start[-1] != '\n') start--;
        }
    } else if (!strcmp(format, "sass")) {
        snprintf(key, sizeof key, "Function : %s\n", entry);
        const char *next = "Function : ";
        if (!(start = strstr(text, key))) {
            snprintf(key, sizeof key, ".text.%s:", entry);
            start = strstr(text, key);
            next = "\n\t.section";
        }
        if (start) end = strstr(start + strlen(key), next);
    } else if (!strcmp(format, "ir") || !strcmp(format, "wg")) {
        for (int pass = 0; pass < 2 && !start; pass++) {
            snprintf(key, sizeof key, pass ? "@_pocl_kernel_%s(" : "@%s(", entry);
            for (const char *p = strstr(text, key); p && !start; p = strstr(p + 1, key)) {
                const char *line = p;
                while (line > text && line[-1] != '\n') line--;
                if (!strncmp(line, "define ", 7)) start = line;
            }
        }
        if (start) end = strstr(start, "\n}");
        if (end) end += 2;
    }
    if (!start) start = text;
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *out = malloc(n + 2);
    if (out) snprintf(out, n + 2, "%.*s\n", (int)n, start);
    return out;
}

/* ---- the report ---- */

static const char *const known_formats[] = {"ptx", "sass",   "wg",    "ir",
                                            "asm", "binary", "spirv", NULL};

static bool in_list(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; p && *p; p += strspn(p, " ")) {
        size_t len = strcspn(p, " ");
        if (len == n && !strncmp(p, word, n)) return true;
        p += len;
    }
    return false;
}

/* The device for cfg, or an offline NVRTC one for target (*owned: free it). */
static co_status il_device(co_context *ctx, const co_run_config *cfg, const char *target,
                           co_device **dev, bool *owned) {
    *owned = false;
    if (target) {
        co_status st = co_cuda_offline_device(target, dev);
        *owned = st == CO_OK;
        return st;
    }
    *dev = co_context_device(ctx, cfg->device);
    return *dev ? CO_OK : co_fail(CO_ERR_INVALID, "device index %zu out of range", cfg->device);
}

static co_status device_formats(const co_device *dev, char *out, size_t len) {
    if (!dev->backend->alloc)
        return co_fail(CO_ERR_UNSUPPORTED,
                       "device '%s' runs host code: its variants' code is the "
                       "host compiler's (see it with 'objdump -d build/libcoalesce.so' or "
                       "'gcc -S' of src/workloads/WORKLOAD.c with the build's flags)",
                       dev->info.spec);
    if (!dev->backend->il_formats || !dev->backend->program_text)
        return co_fail(CO_ERR_UNSUPPORTED, "the %s backend shows no compiler output",
                       dev->info.backend);
    snprintf(out, len, "%s", dev->backend->il_formats(dev));
    return CO_OK;
}

co_status co_il_formats(co_context *ctx, size_t device, const char *target, char *out, size_t len) {
    co_run_config cfg = {.device = device};
    co_device *dev;
    bool owned;
    co_status st = il_device(ctx, &cfg, target, &dev, &owned);
    if (!st) st = device_formats(dev, out, len);
    if (owned) co_device_free(dev);
    return st;
}

/* Checks that need no run: the format, and variants with no kernels of ours. */
static co_status check_variant(const co_device *dev, const co_run_config *cfg, const char *format,
                               char *formats, size_t len) {
    co_status st = device_formats(dev, formats, len);
    if (st) return st;
    if (format && !in_list(formats, format)) {
        bool known = false;
        for (size_t i = 0; known_formats[i]; i++) known |= !strcmp(known_formats[i], format);
        return co_fail(known ? CO_ERR_UNSUPPORTED : CO_ERR_INVALID,
                       "%s format '%s': %s (%s) offers %s", known ? "no" : "unknown", format,
                       dev->info.spec, dev->info.name, formats);
    }
    const co_workload *wl = co_workload_find(cfg->workload ? cfg->workload : "");
    if (!wl) return CO_OK; /* the capture run names what is allowed */
    const char *name = cfg->variant ? cfg->variant : co_workload_default_on(wl, dev);
    const co_variant *v = name ? co_variant_find(wl, name) : NULL;
    for (unsigned b = 0; v && b < CO_NBACKENDS; b++)
        if (wl->anchors[b] && !strcmp(wl->anchors[b], v->name))
            return co_fail(CO_ERR_UNSUPPORTED,
                           "variant '%s' of %s calls a library (it is the "
                           "anchor coalesce compares with): there is no kernel of coalesce's to "
                           "show",
                           v->name, wl->name);
    if (v && !(v->on & (CO_ON_DEVICE | CO_ON_GLSL)))
        return co_fail(CO_ERR_UNSUPPORTED,
                       "variant '%s' of %s runs on the host: its code is the "
                       "host compiler's (see it with 'objdump -d build/libcoalesce.so' or "
                       "'gcc -S' of src/workloads/%s.c)",
                       v->name, wl->name, wl->name);
    return CO_OK;
}

void co_il_report_free(co_il_report *r) {
    if (!r) return;
    for (size_t i = 0; i < r->nkernels; i++) {
        free(r->kernels[i].text);
        free(r->kernels[i].program_text);
    }
    free(r->kernels);
    free(r);
}

static void no_resources(co_il_resources *r) {
    *r = (co_il_resources){-1, -1, -1, -1, -1, -1, -1, -1, -1, ""};
}

static co_status fill_kernel(co_device *dev, const capture_rec *c, const char *format,
                             co_il_kernel *k) {
    snprintf(k->source, sizeof k->source, "%s", c->source);
    snprintf(k->entry, sizeof k->entry, "%s", c->entry);
    snprintf(k->defines, sizeof k->defines, "%s", c->defines);
    k->dims = c->dims;
    k->launches = c->launches;
    memcpy(k->global, c->global, sizeof k->global);
    memcpy(k->local, c->local, sizeof k->local);
    k->dynamic_local = c->dynamic_local;
    no_resources(&k->res);
    const co_backend *be = dev->backend;
    co_status st = be->program_text(dev, c->prog, c->kernel, format, c->local, &k->program_text);
    if (st) return st;
    if (!(k->text = slice(k->program_text, format, c->entry)))
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    k->counted = co_il_count(format, k->text, &k->mix) == CO_OK;
    co_fail(CO_OK, "%s", "");
    /* A kernel built but not launched in this run: its resources alone. */
    static const size_t one[3] = {1, 1, 1};
    if (be->kernel_resources)
        st = be->kernel_resources(dev, c->prog, c->kernel, c->launches ? c->local : one,
                                  c->dynamic_local, &k->res);
    if (!c->launches) k->res.groups_per_cu = -1, k->res.occupancy = -1;
    return st;
}

co_status co_il_make(co_context *ctx, const co_run_config *cfg, const char *target,
                     const char *format, const char *kernel, co_il_report **out) {
    *out = NULL;
    co_device *dev;
    bool owned;
    co_status st = il_device(ctx, cfg, target, &dev, &owned);
    if (st) return st;
    co_il_report *r = calloc(1, sizeof *r);
    co_capture cap = {0};
    co_result res;
    if (!r) st = co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st) st = check_variant(dev, cfg, format, r->formats, sizeof r->formats);
    if (!st) st = co_run_capture(ctx, owned ? dev : NULL, cfg, &cap, &res);
    if (!st && !cap.n)
        st = co_fail(CO_ERR_UNSUPPORTED, "variant '%s' of %s built no kernel on %s", res.variant,
                     res.workload, dev->info.spec);
    bool found = !kernel;
    for (size_t i = 0; !st && kernel && i < cap.n; i++) found |= !strcmp(cap.recs[i].entry, kernel);
    if (!st && !found) {
        char names[512] = "";
        for (size_t i = 0, used = 0; i < cap.n && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     cap.recs[i].entry);
        st = co_fail(CO_ERR_INVALID, "variant '%s' of %s has no kernel '%s' (it builds %s)",
                     res.variant, res.workload, kernel, names);
    }
    if (!st && !(r->kernels = calloc(cap.n, sizeof *r->kernels)))
        st = co_fail(CO_ERR_NOMEM, "out of host memory");
    if (!st) {
        snprintf(r->workload, sizeof r->workload, "%s", res.workload);
        snprintf(r->variant, sizeof r->variant, "%s", res.variant);
        snprintf(r->device, sizeof r->device, "%s", dev->info.spec);
        snprintf(r->device_name, sizeof r->device_name, "%s", dev->info.name);
        snprintf(r->format, sizeof r->format, "%.*s", (int)strcspn(r->formats, " "),
                 format ? format : r->formats);
        for (size_t i = 0, used = 0; i < res.nparams && used < sizeof r->params; i++)
            used += (size_t)snprintf(r->params + used, sizeof r->params - used, "%s%s=%ld",
                                     i ? " " : "", res.params[i].name, res.params[i].value);
    }
    for (size_t i = 0; !st && i < cap.n; i++) {
        if (kernel && strcmp(cap.recs[i].entry, kernel)) continue;
        co_il_kernel *k = &r->kernels[r->nkernels++];
        st = fill_kernel(dev, &cap.recs[i], r->format, k);
        /* A kernel the run built but did not launch (the collider's copy),
         * where its code exists only after a launch (PoCL's): left out,
         * unless --kernel asked for it. */
        if (st == CO_ERR_UNSUPPORTED && !kernel && !cap.recs[i].launches) {
            free(k->text);
            free(k->program_text);
            memset(k, 0, sizeof *k);
            r->nkernels--;
            st = co_fail(CO_OK, "%s", "");
        }
    }
    if (!st && !r->nkernels)
        st = co_fail(CO_ERR_UNSUPPORTED, "variant '%s' of %s launched no kernel on %s", res.variant,
                     res.workload, dev->info.spec);
    free(cap.recs);
    if (owned) co_device_free(dev);
    if (st)
        co_il_report_free(r);
    else
        *out = r;
    return st;
}

/* ---- occupancy from ptxas's figures (no device to ask) ---- */

void co_il_estimate_occupancy(co_il_resources *r, const co_device_info *info, const size_t local[3],
                              size_t dynamic_local) {
    /* sm_80-sm_90 limits per SM: 64K registers allocated 256 a warp,
     * 64 warps, 32 groups, 228 KiB of shared memory with 1 KiB reserved
     * a group. */
    const long regs_sm = 65536, warps_sm = 64, groups_sm = 32, smem_sm = 233472;
    const long threads = (long)(local[0] * (local[1] ? local[1] : 1) * (local[2] ? local[2] : 1));
    if (r->registers < 0 || threads <= 0) return;
    const long warps = (threads + 31) / 32;
    const long per_warp = (r->registers * 32 + 255) / 256 * 256;
    long groups = groups_sm, by;
    if ((by = warps_sm / warps) < groups) groups = by;
    if (per_warp && (by = regs_sm / (per_warp * warps)) < groups) groups = by;
    const long smem = (r->shared_bytes > 0 ? r->shared_bytes : 0) + (long)dynamic_local;
    if (smem && (by = smem_sm / (smem + 1024)) < groups) groups = by;
    r->groups_per_cu = groups;
    r->occupancy = (double)(groups * warps) / (double)warps_sm;
    r->max_group = per_warp ? regs_sm / per_warp * 32 : 1024;
    if (r->max_group > (long)info->max_work_group_size)
        r->max_group = (long)info->max_work_group_size;
}
