/* coalesce tune: co_tune for each device, variant and problem asked for,
 * the presets of the seeds' sweeps, and the tuning database.
 *
 * --json prints an array with an object per search (documented in
 * docs/coalesce.1 and README: Tuning): its identity, space, coverage, the
 * choice and, in "candidates", every candidate with params, local,
 * used_local, status, message, verified, median_ms, default, elapsed_s. */
#include "tune_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_SKIPPED = 3, EXIT_INTERRUPTED = 130 };

#define MAX_DEVICES 64
#define SET_LEN 256
#define SET_WORDS 16
#define TABLE_ROWS 40 /* candidates listed in full; past it the fastest and the failures' count */

static int usage(const char *msg) {
    fprintf(stderr, "coalesce: %s (see 'coalesce --help')\n", msg);
    return EXIT_USAGE;
}

static int exit_of(co_status st) {
    return st == CO_OK                ? EXIT_OK
           : st == CO_ERR_INTERRUPTED ? EXIT_INTERRUPTED
           : st == CO_ERR_INVALID     ? EXIT_USAGE
           : st == CO_ERR_UNSUPPORTED ? EXIT_SKIPPED
                                      : EXIT_FAILED;
}

static void params_text(const co_tune_candidate *c, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < c->nparams && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s=%ld", used ? " " : "",
                                 c->params[i].name, c->params[i].value);
    if (c->local[0] && used < len)
        snprintf(out + used, len - used, "%slocal=%zu%s%.0zu", used ? " " : "", c->local[0],
                 c->local[1] ? "x" : "", c->local[1]);
    if (!out[0]) snprintf(out, len, "(defaults)");
}

/* "ok", "WRONG", or the status's name. */
static const char *status_text(const co_tune_candidate *c) {
    if (c->status == CO_OK) return c->verified ? "ok" : "WRONG";
    if (c->status == CO_ERR_VERIFY) return "WRONG";
    if (c->status == CO_ERR_INTERRUPTED) return "stopped";
    return co_status_name(c->status);
}

static void duration(double ms, char *out, size_t len) {
    const long s = (long)(ms / 1000 + 0.5);
    if (ms < 500)
        snprintf(out, len, "<1 s");
    else if (s >= 60)
        snprintf(out, len, "%ld min %ld s", s / 60, s % 60);
    else
        snprintf(out, len, "%ld s", s);
}

/* ---- progress ---- */

typedef struct tune_ui {
    const tune_args *a;
    char what[160]; /* "gemm/reg2d on opencl:0 (m=512 n=512 k=512)" */
} tune_ui;

static bool on_run(const co_progress *p, void *user) {
    (void)p;
    const tune_args *a = user;
    return a->interrupted();
}

/* "  tune gemm/reg2d on opencl:0: 12 of ~40 candidates, best 5.12 ms
 * (TSM=32 ...), ETA 35 s" */
static bool on_candidate(const co_tune_progress *p, void *user) {
    tune_ui *ui = user;
    if (ui->a->interrupted()) return true;
    if (!ui->a->line_on) return false;
    char text[512], best[200] = "none yet", eta[32];
    if (p->best) {
        char params[160];
        params_text(p->best, params, sizeof params);
        snprintf(best, sizeof best, "%.4g ms (%s)", p->best->median_ms, params);
    }
    duration(p->eta_ms, eta, sizeof eta);
    snprintf(text, sizeof text, "  tune %s: %zu of %s%.0f candidates, best %s, ETA %s", ui->what,
             p->done, p->planned < p->space ? "~" : "", p->planned, best, eta);
    ui->a->line_show(text);
    return false;
}

/* ---- output ---- */

/* A JSON string: tune --json is its own array of searches (not yet a schema-1
 * document of tools/results.c). */
static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void json_candidate(FILE *out, const co_tune_candidate *c) {
    fputs("{\"params\": {", out);
    for (size_t i = 0; i < c->nparams; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, c->params[i].name);
        fprintf(out, ": %ld", c->params[i].value);
    }
    fprintf(
        out, "}, \"local\": [%zu, %zu, %zu], \"used_local\": [%zu, %zu, %zu], \"status\": \"%s\"",
        c->local[0], c->local[1], c->local[2], c->used_local[0], c->used_local[1], c->used_local[2],
        c->status == CO_OK && !c->verified ? "verify" : co_status_name(c->status));
    if (c->message[0]) {
        fputs(", \"message\": ", out);
        json_string(out, c->message);
    }
    fprintf(out, ", \"verified\": %s, \"median_ms\": ", c->verified ? "true" : "false");
    if (c->median_ms > 0)
        fprintf(out, "%.6g", c->median_ms);
    else
        fputs("null", out);
    fprintf(out, ", \"default\": %s, \"elapsed_s\": %.3f}", c->is_default ? "true" : "false",
            c->elapsed_ms / 1000);
}

static void json_number(FILE *out, const char *key, double x) {
    fprintf(out, ", \"%s\": ", key);
    if (isfinite(x) && x > 0)
        fprintf(out, "%.6g", x);
    else
        fputs("null", out);
}

static void json_result(FILE *out, const co_tune_result *r, co_status st) {
    const char *keys[] = {"workload", "variant",    "device",  "device_name",
                          "sizes",    "size_class", "strategy"};
    const char *vals[] = {r->workload, r->variant,    r->device,  r->device_name,
                          r->sizes,    r->size_class, r->strategy};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        fprintf(out, "%s\"%s\": ", i ? ", " : "{", keys[i]);
        json_string(out, vals[i]);
    }
    fprintf(out, ", \"status\": \"%s\"", co_status_name(st));
    json_number(out, "budget_s", r->budget_ms / 1000);
    json_number(out, "elapsed_s", r->elapsed_ms / 1000);
    fprintf(out, ", \"space\": %.0f, \"run\": %zu, \"covered\": %.6g", r->space, r->ncandidates,
            r->covered);
    fprintf(out, ", \"best\": %ld", r->best);
    json_number(out, "best_ms", r->best_ms);
    json_number(out, "default_ms", r->default_ms);
    json_number(out, "speedup", r->best_ms > 0 ? r->default_ms / r->best_ms : 0);
    fprintf(out, ", \"stored\": %s, \"note\": ", r->stored ? "true" : "false");
    json_string(out, r->note);
    fputs(", \"candidates\": [", out);
    for (size_t i = 0; i < r->ncandidates; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        json_candidate(out, &r->candidates[i]);
    }
    fputs("]}", out);
}

static int cmp_time(const void *x, const void *y) {
    const co_tune_candidate *a = *(const co_tune_candidate *const *)x,
                            *b = *(const co_tune_candidate *const *)y;
    const double ta = a->status == CO_OK && a->verified ? a->median_ms : INFINITY;
    const double tb = b->status == CO_OK && b->verified ? b->median_ms : INFINITY;
    return (ta > tb) - (ta < tb);
}

static void candidate_line(FILE *out, const co_tune_candidate *c, const co_tune_candidate *best) {
    char params[256], ms[32] = "-";
    params_text(c, params, sizeof params);
    if (c->median_ms > 0) snprintf(ms, sizeof ms, "%.4f", c->median_ms);
    fprintf(out, "  %-8s %10s  %s%s%s", status_text(c), ms, params,
            c->is_default ? "  (default)" : "", c == best ? "  <- best" : "");
    if (c->status != CO_OK && c->message[0]) fprintf(out, "\n             %s", c->message);
    fputc('\n', out);
}

static void text_result(FILE *out, const co_tune_result *r) {
    size_t ok = 0, wrong = 0, failed = 0;
    for (size_t i = 0; i < r->ncandidates; i++) {
        const co_tune_candidate *c = &r->candidates[i];
        if (c->status == CO_OK && c->verified)
            ok++;
        else if (c->status == CO_OK || c->status == CO_ERR_VERIFY)
            wrong++;
        else
            failed++;
    }
    char took[32];
    duration(r->elapsed_ms, took, sizeof took);
    fprintf(out, "tune %s/%s on %s (%s): %s\n", r->workload, r->variant, r->device, r->device_name,
            r->sizes);
    fprintf(out,
            "  %zu candidates of %.0f (%.3g%% of the space, %s) in %s of a %.0f s budget: "
            "%zu ok, %zu wrong, %zu failed or refused\n",
            r->ncandidates, r->space, 100 * r->covered, r->strategy, took, r->budget_ms / 1000, ok,
            wrong, failed);
    const co_tune_candidate *best = r->best >= 0 ? &r->candidates[r->best] : NULL;
    const co_tune_candidate **order = malloc(r->ncandidates * sizeof *order);
    if (order) {
        for (size_t i = 0; i < r->ncandidates; i++) order[i] = &r->candidates[i];
        const bool all = r->ncandidates <= TABLE_ROWS;
        if (!all) qsort(order, r->ncandidates, sizeof *order, cmp_time);
        fprintf(out, "  %-8s %10s  %s\n", "check", "median_ms",
                all ? "configuration (in the order run)" : "the 10 fastest");
        for (size_t i = 0; i < r->ncandidates && (all || i < 10); i++)
            candidate_line(out, order[i], best);
        if (!all && !order[0]->is_default) candidate_line(out, &r->candidates[0], best);
        free(order);
    }
    if (best) {
        char params[256];
        params_text(best, params, sizeof params);
        if (r->best == 0)
            fprintf(out, "  best: the default (%s), %.4f ms: no candidate beat it side by side\n",
                    params, r->best_ms);
        else
            fprintf(out, "  best: %s, %.4f ms against the default's %.4f ms side by side (%.2fx)\n",
                    params, r->best_ms, r->default_ms, r->default_ms / r->best_ms);
    }
    if (!strncmp(r->note, "kept in", 7)) fprintf(out, "  %s\n", r->note);
}

/* ---- the database ---- */

static int db_list(bool json) {
    co_tune_entry *e;
    size_t n;
    char warning[512];
    co_status st = co_tune_db_list(&e, &n, warning, sizeof warning);
    if (st) {
        fprintf(stderr, "coalesce: %s\n", co_last_error());
        return exit_of(st);
    }
    if (warning[0]) fprintf(stderr, "coalesce: warning: %s\n", warning);
    char path[1024] = "";
    co_tune_db_path(path, sizeof path);
    if (json)
        fputs("[", stdout);
    else if (!n)
        printf("no tuned configurations in %s\n", path);
    else
        printf("%s: %zu tuned configurations\n", path, n);
    for (size_t i = 0; i < n; i++) {
        char date[40];
        report_date(date, sizeof date, e[i].tuned_at);
        if (!json) {
            printf("  %s/%s on %s %s (driver %s), %s\n    %s", e[i].workload, e[i].variant,
                   e[i].backend, e[i].device_name, e[i].driver[0] ? e[i].driver : "-",
                   e[i].size_class, e[i].params[0] ? e[i].params : "(no tunables)");
            if (e[i].local[0])
                printf(" local=%zu%s%.0zu", e[i].local[0], e[i].local[1] ? "x" : "", e[i].local[1]);
            printf(": %.4g ms, default %.4g ms (%.2fx); %s, %.3g%% of the space, %s\n",
                   e[i].median_ms, e[i].default_ms,
                   e[i].median_ms > 0 ? e[i].default_ms / e[i].median_ms : 0, e[i].strategy,
                   100 * e[i].covered, date);
            continue;
        }
        const char *keys[] = {"backend",    "device_name", "driver", "workload", "variant",
                              "size_class", "sizes",       "params", "strategy", "tuned_at_text"};
        const char *vals[] = {
            e[i].backend,    e[i].device_name, e[i].driver, e[i].workload, e[i].variant,
            e[i].size_class, e[i].sizes,       e[i].params, e[i].strategy, date};
        fputs(i ? ",\n {" : "{", stdout);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fprintf(stdout, "%s\"%s\": ", k ? ", " : "", keys[k]);
            json_string(stdout, vals[k]);
        }
        printf(", \"local\": [%zu, %zu, %zu], \"median_ms\": %.6g, \"default_ms\": %.6g, "
               "\"tuned_at\": %lld, \"covered\": %.6g}",
               e[i].local[0], e[i].local[1], e[i].local[2], e[i].median_ms, e[i].default_ms,
               e[i].tuned_at, e[i].covered);
    }
    if (json) fputs("]\n", stdout);
    co_tune_db_free(e);
    return EXIT_OK;
}

static int db_files(const tune_args *a) {
    size_t n = 0;
    co_status st;
    if (a->import_file) {
        if ((st = co_tune_db_import(a->import_file, &n))) {
            fprintf(stderr, "coalesce: %s\n", co_last_error());
            return exit_of(st);
        }
        printf("imported %zu tuned configurations from %s\n", n, a->import_file);
    }
    if (a->export_file) {
        if ((st = co_tune_db_export(a->export_file, &n))) {
            fprintf(stderr, "coalesce: %s\n", co_last_error());
            return exit_of(st);
        }
        printf("exported %zu tuned configurations to %s\n", n, a->export_file);
    }
    return a->list ? db_list(a->json) : EXIT_OK;
}

/* ---- the searches ---- */

/* The seeds' sweeps: the thesis's tile table (seed 001: TS 16, 32, 64, its
 * "Insufficient Local Resources" at 128) and seed 002's work-group sizes. */
static const struct preset {
    const char *name, *workload, *variant;
    co_option value;
} presets[] = {
    {"thesis", "gemm", "tiled", {"TS", "8,16,32,64,128"}},
    {"wg", NULL, NULL, {"local", "4,8,16,32,64,128,256,512,1024"}},
};

static const struct preset *preset_of(const char *name) {
    for (size_t i = 0; name && i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

const char *tune_preset_workload(const char *preset) {
    const struct preset *p = preset_of(preset);
    return p ? p->workload : NULL;
}

int coalesce_tune(co_context *ctx, const tune_args *a) {
    const bool db_only = a->list || a->export_file || a->import_file;
    if (db_only && a->workload)
        return usage("tune --list, --export and --import take no WORKLOAD: they show or share "
                     "the database");
    if (db_only) return db_files(a);
    const struct preset *pre = preset_of(a->preset);
    const char *workload = a->workload ? a->workload : pre ? pre->workload : NULL;
    if (!workload)
        return usage("tune takes one WORKLOAD (e.g. 'coalesce tune gemm'), or --list, --export "
                     "FILE or --import FILE");
    if (pre && pre->workload && strcmp(workload, pre->workload)) {
        fprintf(stderr, "coalesce: --preset %s is for %s, not %s (see 'coalesce --help')\n",
                pre->name, pre->workload, workload);
        return EXIT_USAGE;
    }
    if (pre && pre->variant && a->variants && strcmp(a->variants, pre->variant)) {
        fprintf(stderr, "coalesce: --preset %s tunes variant %s, not %s (see 'coalesce --help')\n",
                pre->name, pre->variant, a->variants);
        return EXIT_USAGE;
    }
    size_t idx[MAX_DEVICES], n;
    const char *spec = a->device;
    if (!spec) spec = co_device_select(ctx, "opencl", idx, 1, &n) == CO_OK ? "opencl" : "omp";
    co_status st = co_device_select(ctx, spec, idx, MAX_DEVICES, &n);
    if (st) {
        fprintf(stderr, "coalesce: %s\n", co_last_error());
        return exit_of(st);
    }
    int rc = EXIT_OK;
    size_t printed = 0;
    bool any = false;
    if (a->json) fputs("[", stdout);
    for (size_t d = 0; d < n && rc != EXIT_INTERRUPTED && rc != EXIT_USAGE; d++) {
        const co_device_info *info = co_device_get(ctx, idx[d]);
        /* The problems: those given, else bench's for this kind of device. */
        char own[32][SET_LEN];
        const char *sets[32];
        size_t nsets = 0;
        for (size_t i = 0; i < a->nsets && nsets < 32; i++) sets[nsets++] = a->sets[i];
        if (!a->nsets)
            for (const char *p = co_workload_bench_sets_for(workload, false, info->type);
                 p && *p && nsets < 32;) {
                const size_t l = strcspn(p, ";");
                snprintf(own[nsets], SET_LEN, "%.*s", (int)(l < SET_LEN ? l : SET_LEN - 1), p);
                sets[nsets] = own[nsets];
                nsets++;
                p += l + (p[l] == ';');
            }
        const char *list = pre && pre->variant ? pre->variant : a->variants;
        const char *one = list ? list : co_variant_default(ctx, workload, idx[d]);
        for (const char *v = one; v && *v && rc != EXIT_INTERRUPTED && rc != EXIT_USAGE;) {
            const size_t vl = strcspn(v, ",");
            char variant[64];
            snprintf(variant, sizeof variant, "%.*s", (int)vl, v);
            v += vl + (v[vl] == ',');
            for (size_t s = 0; s < nsets && rc != EXIT_INTERRUPTED && rc != EXIT_USAGE; s++) {
                char store[SET_LEN];
                co_option opts[SET_WORDS];
                size_t nopts = co_parse_options(sets[s], store, sizeof store, opts, SET_WORDS);
                tune_ui ui = {.a = a};
                snprintf(ui.what, sizeof ui.what, "%s/%s on %s (%s)", workload, variant, info->spec,
                         sets[s]);
                co_tune_config cfg = {
                    .run = {.workload = workload,
                            .variant = variant,
                            .device = idx[d],
                            .options = opts,
                            .noptions = nopts,
                            .params = a->params,
                            .nparams = a->nparams,
                            .reps = a->reps,
                            .warmup = a->warmup,
                            .seed = a->seed,
                            .progress = on_run,
                            .progress_user = (void *)a},
                    .budget_s = a->budget_s,
                    .strategy = pre ? "full" : a->strategy,
                    .values = pre ? &pre->value : NULL,
                    .nvalues = pre ? 1 : 0,
                    .on_candidate = on_candidate,
                    .user = &ui,
                };
                if (a->line_on) {
                    char text[256];
                    snprintf(text, sizeof text, "  tune %s: the problem and its reference...",
                             ui.what);
                    a->line_show(text);
                }
                co_tune_result *r = NULL;
                st = co_tune(ctx, &cfg, &r);
                a->line_clear();
                if (st == CO_ERR_UNSUPPORTED && !r) { /* this variant is not for this device */
                    fprintf(stderr, "coalesce: skipped: %s\n", co_last_error());
                    if (rc == EXIT_OK) rc = EXIT_SKIPPED;
                    break;
                }
                any = true;
                if (st && st != CO_ERR_INTERRUPTED)
                    fprintf(stderr, "coalesce: %s\n", co_last_error());
                if (r) {
                    if (a->json) {
                        fputs(printed++ ? ",\n " : "", stdout);
                        json_result(stdout, r, st);
                    } else {
                        text_result(stdout, r);
                    }
                    if (strstr(r->note, "rebuilt") || !strncmp(r->note, "not kept", 8))
                        fprintf(stderr, "coalesce: warning: %s\n", r->note);
                }
                fflush(stdout);
                co_tune_result_free(r);
                if (st == CO_ERR_INTERRUPTED) {
                    fprintf(stderr, "coalesce: %s\n", co_last_error());
                    rc = EXIT_INTERRUPTED;
                } else if (st) {
                    const int e = exit_of(st);
                    if (e == EXIT_USAGE || rc == EXIT_OK || rc == EXIT_SKIPPED) rc = e;
                }
            }
        }
    }
    if (a->json) fputs("]\n", stdout);
    if (!any && rc == EXIT_SKIPPED)
        fprintf(stderr, "coalesce: nothing was tuned: no selected variant runs on the selected "
                        "devices here\n");
    return rc;
}
