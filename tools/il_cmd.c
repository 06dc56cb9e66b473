/* coalesce il: what the compiler made of a variant's kernels (co_il_make).
 * Its own options (they differ from run's: --show, --kernel, --compare);
 * the work is in src/core/il.c and the backends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coalesce.h"
#include "il_cmd.h"
#include "report.h"
#include "results.h"

#define MAX_KV 32

static const char il_usage[] =
    "usage: coalesce il WORKLOAD [options]\n"
    "  The kernels a variant builds, with exactly the defines and launches it runs with, in\n"
    "  the compiler's output, each with its resources and a static instruction mix (global\n"
    "  loads/stores by width, shared/local accesses, FMAs, barriers, shuffles, branches).\n"
    "  On a device the variant runs once, unverified (PoCL compiles at the first launch).\n"
    "options:\n"
    "  --device D        cuda, cuda:N, opencl, opencl:N, vulkan, ... (default: cuda, else\n"
    "                    opencl);\n"
    "                    nvrtc or nvrtc:sm_XY: compile through NVRTC with no GPU (an H200's\n"
    "                    limits, nothing runs; also --target sm_XY)\n"
    "  --variant V       the variant (default: the device's)\n"
    "  --param NAME=V    a tunable (repeatable); --local XxY[xZ]; --seed S\n"
    "  --NAME VALUE      a workload option (sizes, the box filter's --format: see 'coalesce\n"
    "                    list')\n"
    "  --show F          the compiler output to show (--format is the workload's option):\n"
    "                    cuda: ptx (default), sass (needs cuobjdump or nvdisasm);\n"
    "                    PoCL: wg (default: the LLVM IR of the work-group function PoCL\n"
    "                    compiled for the launch, from its kernel cache), ir (the program's\n"
    "                    LLVM IR: its binary, through llvm-dis), asm (the machine code it\n"
    "                    runs: objdump -d); other OpenCL: ptx (NVIDIA) or binary (text);\n"
    "                    vulkan: spirv (the module shaderc made, through SPIRV-Tools; the\n"
    "                    driver's statistics after it where it has\n"
    "                    VK_KHR_pipeline_executable_properties); opengl: spirv (the\n"
    "                    module made for OpenGL)\n"
    "  --kernel NAME     only this entry point\n"
    "  --output DIR      write each kernel's text into DIR/VARIANT-ENTRY.EXT (ENTRY-2: built\n"
    "                    again with other defines) and its program's into\n"
    "                    VARIANT-SOURCE.program.EXT (not for spirv: a module a kernel);\n"
    "                    print the summary\n"
    "  --json            the summary as JSON (one object a run)\n"
    "  --compare A B     two summaries side by side; A and B are VARIANT, VARIANT:N=V[,N=V]\n"
    "                    or :N=V[,N=V] (the --variant with those tunables), e.g.\n"
    "                    'coalesce il copy --compare coalesced vec4 --device nvrtc' or\n"
    "                    'coalesce il gemm --variant tiled --compare :TS=8 :TS=16'\n"
    "host variants (c, omp) have no IL of coalesce's: their code is the host compiler's\n"
    "(objdump -d build/libcoalesce.so, or gcc -S src/workloads/WORKLOAD.c).\n";

typedef struct il_args {
    const char *workload, *device, *variant, *format, *kernel, *output, *target;
    const char *compare[2];
    co_option opts[MAX_KV], params[MAX_KV];
    size_t nopts, nparams;
    size_t local[3];
    uint64_t seed;
    bool json;
} il_args;

static int il_usage_error(const char *fmt, const char *a) {
    fputs("coalesce: ", stderr);
    fprintf(stderr, fmt, a);
    fputs(" (see 'coalesce il --help')\n", stderr);
    return 2;
}

static int il_fail(co_status st) {
    fprintf(stderr, "coalesce: %s\n", co_last_error());
    return st == CO_ERR_INVALID || st == CO_ERR_UNSUPPORTED ? 2 : 1;
}

/* The names of compiler outputs (--show), which no workload's --format takes. */
static bool is_il_format(const char *v) {
    static const char *const names[] = {"ptx", "sass", "wg", "ir", "asm", "binary", "spirv"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(v, names[i])) return true;
    return false;
}

static bool split_kv(const char *s, co_option *o) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) return false;
    static char names[2 * MAX_KV + 8][32];
    static size_t used;
    if ((size_t)(eq - s) >= sizeof names[0] || used == sizeof names / sizeof names[0]) return false;
    snprintf(names[used], sizeof names[used], "%.*s", (int)(eq - s), s);
    o->name = names[used++];
    o->value = eq + 1;
    return true;
}

static int parse_il(int argc, char **argv, il_args *a) {
    memset(a, 0, sizeof *a);
    a->seed = 1;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            if (a->workload) return il_usage_error("il takes one WORKLOAD, got another: '%s'", arg);
            a->workload = arg;
            continue;
        }
        const char *name = arg + 2;
        if (!strcmp(name, "json")) {
            a->json = true;
            continue;
        }
        if (i + 1 >= argc) return il_usage_error("option %s needs a value", arg);
        const char *v = argv[++i];
        if (!strcmp(name, "device"))
            a->device = v;
        else if (!strcmp(name, "variant"))
            a->variant = v;
        else if (!strcmp(name, "show"))
            a->format = v;
        else if (!strcmp(name, "kernel"))
            a->kernel = v;
        else if (!strcmp(name, "output"))
            a->output = v;
        else if (!strcmp(name, "target"))
            a->target = v;
        else if (!strcmp(name, "seed")) {
            char *end;
            errno = 0;
            a->seed = strtoull(v, &end, 10);
            if (*end || !*v || errno || *v == '-')
                return il_usage_error("--seed must be a non-negative integer, got '%s'", v);
        } else if (!strcmp(name, "compare")) {
            if (i + 1 >= argc)
                return il_usage_error("--compare needs two runs (A B), got '%s' alone", v);
            a->compare[0] = v;
            a->compare[1] = argv[++i];
        } else if (!strcmp(name, "param")) {
            if (a->nparams == MAX_KV || !split_kv(v, &a->params[a->nparams++]))
                return il_usage_error("--param must be NAME=VALUE, got '%s'", v);
        } else if (!strcmp(name, "local")) {
            unsigned x[3] = {0, 0, 0};
            int n = 0, end = 0;
            if ((n = sscanf(v, "%ux%ux%u%n", &x[0], &x[1], &x[2], &end)) < 1)
                return il_usage_error("--local must be X, XxY or XxYxZ, got '%s'", v);
            for (int d = 0; d < n; d++) a->local[d] = x[d];
        } else {
            if (!strcmp(name, "format") && is_il_format(v))
                return il_usage_error("il shows a format with --show (--format is the workload's "
                                      "option): use '--show %s'",
                                      v);
            if (a->nopts == MAX_KV) return il_usage_error("too many options at '%s'", arg);
            a->opts[a->nopts++] = (co_option){name, v};
        }
    }
    if (!a->workload) return il_usage_error("il takes a WORKLOAD%s (e.g. 'coalesce il copy')", "");
    if (a->device && !strncmp(a->device, "nvrtc", 5)) {
        if (a->device[5] && a->device[5] != ':')
            return il_usage_error("unknown device '%s' (nvrtc or nvrtc:sm_XY)", a->device);
        if (!a->target) a->target = a->device[5] ? a->device + 6 : "sm_90";
        a->device = NULL;
    }
    return 0;
}

/* ---- printing ---- */

static void print_res_text(FILE *out, const co_il_resources *r) {
    fprintf(out, "  resources:");
    if (r->registers >= 0) fprintf(out, " %ld registers,", r->registers);
    if (r->spill_stores >= 0)
        fprintf(out, " spills %ld B stored / %ld B loaded,", r->spill_stores, r->spill_loads);
    if (r->stack_bytes >= 0) fprintf(out, " %ld B a work-item off registers,", r->stack_bytes);
    if (r->shared_bytes >= 0) fprintf(out, " %ld B static shared/local,", r->shared_bytes);
    if (r->max_group >= 0) fprintf(out, " max group %ld,", r->max_group);
    if (r->preferred_multiple >= 0) fprintf(out, " preferred multiple %ld,", r->preferred_multiple);
    if (r->groups_per_cu >= 0) fprintf(out, " %ld groups a compute unit,", r->groups_per_cu);
    if (r->occupancy >= 0) fprintf(out, " occupancy %.0f%%,", 100 * r->occupancy);
    fprintf(out, " (%s)\n", r->from[0] ? r->from : "no resource query");
}

static void print_mix_text(FILE *out, const co_il_mix *m) {
    fprintf(out,
            "  global loads %u scalar, %u 2-wide, %u 4-wide; stores %u scalar, %u 2-wide, "
            "%u 4-wide\n",
            m->ld_global[0], m->ld_global[1], m->ld_global[2], m->st_global[0], m->st_global[1],
            m->st_global[2]);
    fprintf(out,
            "  shared %u loads, %u stores; local %u loads, %u stores; %u fma, %u barriers, "
            "%u shuffles, %u branches\n",
            m->ld_shared, m->st_shared, m->ld_local, m->st_local, m->fma, m->barrier, m->shuffle,
            m->branch);
}

static void shape(char *buf, size_t len, unsigned dims, const size_t v[3]) {
    snprintf(buf, len, dims <= 1 ? "%zu" : dims == 2 ? "%zux%zu" : "%zux%zux%zu", v[0], v[1], v[2]);
}

static void print_text(FILE *out, const co_il_report *r, bool with_text) {
    for (size_t i = 0; i < r->nkernels; i++) {
        const co_il_kernel *k = &r->kernels[i];
        if (with_text) fprintf(out, "%s\n", k->text);
        char g[64], l[64];
        shape(g, sizeof g, k->dims, k->global);
        shape(l, sizeof l, k->dims, k->local);
        fprintf(out, "%s/%s on %s (%s), %s (formats: %s)\n", r->workload, r->variant, r->device,
                r->device_name, r->format, r->formats);
        fprintf(out, "kernel %s of kernels/%s.%s, built with '%s'\n", k->entry, k->source,
                strcmp(r->format, "spirv") ? "cl" : "comp", k->defines);
        if (k->launches)
            fprintf(out,
                    "  launched %u time(s), first over %s work-items in groups of %s, "
                    "%zu B local memory given\n",
                    k->launches, g, l, k->dynamic_local);
        else
            fprintf(out, "  built, not launched\n");
        print_res_text(out, &k->res);
        if (k->counted)
            print_mix_text(out, &k->mix);
        else
            fprintf(out, "  (no instruction mix is counted in %s)\n", r->format);
    }
}

/* A resource figure, null where the API does not say (-1). */
static void json_long(cJSON *o, const char *name, long v) {
    if (v < 0)
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, (double)v);
}

static cJSON *counts(const unsigned *v, int n) {
    int x[3];
    for (int i = 0; i < n; i++) x[i] = (int)v[i];
    return cJSON_CreateIntArray(x, n);
}

/* One report as a result of kind "il" (docs/results-format.md). */
static cJSON *il_json(const co_context *ctx, const co_il_report *r) {
    cJSON *o = results_head(ctx, "il", r->workload, r->variant, r->device, r->device_name);
    cJSON_AddStringToObject(o, "format", r->format);
    cJSON_AddStringToObject(o, "params", r->params);
    cJSON *ks = cJSON_AddArrayToObject(o, "kernels");
    for (size_t i = 0; i < r->nkernels; i++) {
        const co_il_kernel *k = &r->kernels[i];
        const co_il_resources *s = &k->res;
        const co_il_mix *m = &k->mix;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "entry", k->entry);
        cJSON_AddStringToObject(e, "source", k->source);
        cJSON_AddStringToObject(e, "defines", k->defines);
        cJSON_AddNumberToObject(e, "launches", k->launches);
        const double g[3] = {(double)k->global[0], (double)k->global[1], (double)k->global[2]};
        const double l[3] = {(double)k->local[0], (double)k->local[1], (double)k->local[2]};
        cJSON_AddItemToObject(e, "global", cJSON_CreateDoubleArray(g, 3));
        cJSON_AddItemToObject(e, "local", cJSON_CreateDoubleArray(l, 3));
        cJSON_AddNumberToObject(e, "dynamic_local", (double)k->dynamic_local);
        json_long(e, "registers", s->registers);
        json_long(e, "spill_stores", s->spill_stores);
        json_long(e, "spill_loads", s->spill_loads);
        json_long(e, "stack_bytes", s->stack_bytes);
        json_long(e, "shared_bytes", s->shared_bytes);
        json_long(e, "max_group", s->max_group);
        json_long(e, "preferred_multiple", s->preferred_multiple);
        json_long(e, "groups_per_cu", s->groups_per_cu);
        if (s->occupancy >= 0)
            cJSON_AddNumberToObject(e, "occupancy", s->occupancy);
        else
            cJSON_AddNullToObject(e, "occupancy");
        cJSON_AddStringToObject(e, "resources_from", s->from);
        if (k->counted) {
            cJSON *mx = cJSON_AddObjectToObject(e, "mix");
            cJSON_AddItemToObject(mx, "ld_global", counts(m->ld_global, 3));
            cJSON_AddItemToObject(mx, "st_global", counts(m->st_global, 3));
            const struct {
                const char *name;
                unsigned v;
            } f[] = {{"ld_shared", m->ld_shared},
                     {"st_shared", m->st_shared},
                     {"ld_local", m->ld_local},
                     {"st_local", m->st_local},
                     {"fma", m->fma},
                     {"barrier", m->barrier},
                     {"shuffle", m->shuffle},
                     {"branch", m->branch}};
            for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
                cJSON_AddNumberToObject(mx, f[j].name, f[j].v);
        } else {
            cJSON_AddNullToObject(e, "mix");
        }
        cJSON_AddItemToArray(ks, e);
    }
    return o;
}

/* il --json: one document, a result per report (two with --compare). */
static void print_json(FILE *out, const co_context *ctx, size_t dev, bool on_device,
                       const co_il_report *const *r, size_t n) {
    cJSON *doc = results_doc("il", results_meta(ctx, &dev, on_device ? 1 : 0));
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(results_array(doc), il_json(ctx, r[i]));
    if (!results_print(out, doc)) fprintf(stderr, "coalesce: out of memory\n");
    cJSON_Delete(doc);
}

/* Side by side: a row per figure, a column per kernel of A, then of B. */
static void print_compare(FILE *out, const co_il_report *const r[2]) {
    enum { W = 24 };
    const co_il_kernel *cols[16];
    const co_il_report *of[16];
    size_t n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < r[s]->nkernels && n < 16; i++) {
            of[n] = r[s];
            cols[n++] = &r[s]->kernels[i];
        }
    fprintf(out, "%s on %s (%s), %s\n%-22s", r[0]->workload, r[0]->device, r[0]->device_name,
            r[0]->format, "");
    for (size_t c = 0; c < n; c++) fprintf(out, " %*.*s", W, W, of[c]->variant);
    fprintf(out, "\n%-22s", "");
    for (size_t c = 0; c < n; c++) fprintf(out, " %*.*s", W, W, cols[c]->entry);
    fprintf(out, "\n%-22s", "tunables");
    for (size_t c = 0; c < n; c++)
        fprintf(out, " %*.*s", W, W, of[c]->params[0] ? of[c]->params : "-");
    fputc('\n', out);
#define ROW(label, expr)                                                                           \
    do {                                                                                           \
        fprintf(out, "%-22s", label);                                                              \
        for (size_t c = 0; c < n; c++) {                                                           \
            const co_il_kernel *k = cols[c];                                                       \
            long v = (long)(expr);                                                                 \
            if (v < 0)                                                                             \
                fprintf(out, " %*s", W, "-");                                                      \
            else                                                                                   \
                fprintf(out, " %*ld", W, v);                                                       \
        }                                                                                          \
        fputc('\n', out);                                                                          \
    } while (0)
#define MIX(label, field) ROW(label, k->counted ? (long)k->mix.field : -1)
    MIX("global loads scalar", ld_global[0]);
    MIX("global loads 2-wide", ld_global[1]);
    MIX("global loads 4-wide", ld_global[2]);
    MIX("global stores scalar", st_global[0]);
    MIX("global stores 2-wide", st_global[1]);
    MIX("global stores 4-wide", st_global[2]);
    MIX("shared loads", ld_shared);
    MIX("shared stores", st_shared);
    MIX("local loads", ld_local);
    MIX("local stores", st_local);
    MIX("fma", fma);
    MIX("barriers", barrier);
    MIX("shuffles", shuffle);
    MIX("branches", branch);
    ROW("registers", k->res.registers);
    ROW("spill stores (B)", k->res.spill_stores);
    ROW("spill loads (B)", k->res.spill_loads);
    ROW("shared static (B)", k->res.shared_bytes);
    ROW("local given (B)", k->launches ? (long)k->dynamic_local : -1);
    ROW("group size", k->launches ? (long)(k->local[0] * k->local[1] * k->local[2]) : -1);
    ROW("max group", k->res.max_group);
    ROW("groups a CU", k->res.groups_per_cu);
    ROW("occupancy (%)", k->res.occupancy >= 0 ? 100 * k->res.occupancy + 0.5 : -1);
#undef MIX
#undef ROW
}

/* ---- files ---- */

static const char *extension(const char *format) {
    return !strcmp(format, "ir") || !strcmp(format, "wg") ? "ll"
           : !strcmp(format, "asm")                       ? "s"
           : !strcmp(format, "binary")                    ? "txt"
           : !strcmp(format, "spirv")                     ? "spvasm"
                                                          : format;
}

static co_status write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f) ok = fclose(f) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "coalesce: cannot write %s: %s\n", path, strerror(errno));
        return CO_ERR_IO;
    }
    fprintf(stderr, "wrote %s\n", path);
    return CO_OK;
}

static co_status write_texts(const char *dir, const co_il_report *r) {
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "coalesce: cannot create --output directory %s: %s\n", dir,
                strerror(errno));
        return CO_ERR_IO;
    }
    co_status st = CO_OK;
    for (size_t i = 0; !st && i < r->nkernels; i++) {
        const co_il_kernel *k = &r->kernels[i];
        char path[1024], again[16] = "";
        size_t seen = 0; /* a kernel built twice (other defines): ENTRY-2 */
        for (size_t j = 0; j < i; j++) seen += !strcmp(r->kernels[j].entry, k->entry);
        if (seen) snprintf(again, sizeof again, "-%zu", seen + 1);
        snprintf(path, sizeof path, "%s/%s-%s%s.%s", dir, r->variant, k->entry, again,
                 extension(r->format));
        st = write_file(path, k->text);
        snprintf(path, sizeof path, "%s/%s-%s.program.%s", dir, r->variant, k->source,
                 extension(r->format));
        /* Vulkan: a module per kernel, no program beside it. */
        if (!st && strcmp(r->format, "spirv") &&
            (i == 0 || strcmp(k->source, r->kernels[i - 1].source)))
            st = write_file(path, k->program_text);
    }
    return st;
}

/* ---- the command ---- */

/* A --compare side: VARIANT, VARIANT:N=V[,N=V] or :N=V[,N=V]. */
static int side(const il_args *a, const char *spec, char *variant, size_t vlen, char *store,
                size_t slen, co_option *params, size_t *nparams) {
    const char *colon = strchr(spec, ':');
    size_t vn = colon ? (size_t)(colon - spec) : strlen(spec);
    if (vn >= vlen) return il_usage_error("--compare: variant name too long in '%s'", spec);
    snprintf(variant, vlen, "%.*s", (int)vn, spec);
    memcpy(params, a->params, a->nparams * sizeof *params);
    *nparams = a->nparams;
    if (!colon) return 0;
    snprintf(store, slen, "%s", colon + 1);
    for (char *save = NULL, *t = strtok_r(store, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq || eq == t || *nparams == MAX_KV)
            return il_usage_error("--compare: tunables must be N=V[,N=V], got '%s'", spec);
        *eq = 0;
        params[(*nparams)++] = (co_option){t, eq + 1};
    }
    return 0;
}

static int il_run(co_context *ctx, const il_args *a) {
    size_t dev = 0, found = 0;
    if (!a->target) {
        const char *spec = a->device;
        if (!spec)
            spec = co_device_select(ctx, "cuda", &dev, 1, &found) == CO_OK ? "cuda" : "opencl";
        co_status st = co_device_select(ctx, spec, &dev, 1, &found);
        if (st) return il_fail(st);
    }
    co_run_config cfg = {.workload = a->workload,
                         .variant = a->variant,
                         .device = dev,
                         .options = a->opts,
                         .noptions = a->nopts,
                         .params = a->params,
                         .nparams = a->nparams,
                         .seed = a->seed};
    memcpy(cfg.local, a->local, sizeof cfg.local);
    if (!a->compare[0]) {
        co_il_report *r;
        co_status st = co_il_make(ctx, &cfg, a->target, a->format, a->kernel, &r);
        if (st) return il_fail(st);
        if (a->output) st = write_texts(a->output, r);
        if (!st) {
            if (a->json)
                print_json(stdout, ctx, dev, !a->target, (const co_il_report *const *)&r, 1);
            else
                print_text(stdout, r, !a->output);
        }
        co_il_report_free(r);
        return st ? 1 : 0;
    }
    co_il_report *r[2] = {NULL, NULL};
    char variant[2][64], store[2][256];
    co_option params[2][MAX_KV];
    int rc = 0;
    co_status st = CO_OK;
    for (int s = 0; s < 2 && !rc && !st; s++) {
        size_t np;
        if ((rc = side(a, a->compare[s], variant[s], sizeof variant[s], store[s], sizeof store[s],
                       params[s], &np)))
            break;
        co_run_config c = cfg;
        c.variant = variant[s][0] ? variant[s] : a->variant;
        c.params = params[s];
        c.nparams = np;
        st = co_il_make(ctx, &c, a->target, a->format, a->kernel, &r[s]);
    }
    if (st) rc = il_fail(st);
    if (!rc) {
        if (a->json) {
            print_json(stdout, ctx, dev, !a->target, (const co_il_report *const *)r, 2);
        } else {
            print_compare(stdout, (const co_il_report *const *)r);
        }
    }
    co_il_report_free(r[0]);
    co_il_report_free(r[1]);
    return rc;
}

/* PoCL keeps the IR of the work-group functions it compiles (the wg
 * format) only where POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES was set when it
 * compiled them, and compiles nothing it has cached: so the command gives
 * PoCL a kernel cache of its own, in coalesce's cache directory, where
 * every compile keeps it (unless the user chose POCL_CACHE_DIR). Set
 * before the context loads PoCL. */
static void pocl_keeps_ir(void) {
    char path[1024];
    if (getenv("POCL_CACHE_DIR") || co_peak_cache_path(path, sizeof path) != CO_OK) return;
    char *slash = strrchr(path, '/'); /* .../coalesce/peak.json -> .../coalesce/pocl */
    if (!slash || (size_t)(slash - path) + 6 >= sizeof path) return;
    strcpy(slash, "/pocl");
    setenv("POCL_CACHE_DIR", path, 1);
    setenv("POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES", "1", 0);
}

int coalesce_il(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(il_usage, stdout);
            return 0;
        }
    il_args a;
    int rc = parse_il(argc, argv, &a);
    if (rc) return rc;
    pocl_keeps_ir();
    co_context *ctx;
    co_status st = co_context_create(&ctx);
    if (st) return il_fail(st);
    rc = il_run(ctx, &a);
    co_context_destroy(ctx);
    return rc;
}
