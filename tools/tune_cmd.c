/* coalesce tune: co_tune for each device, variant and problem asked for,
 * the presets of the seeds' sweeps, and the tuning database.
 *
 * --json and -o FILE: one document of the result format (tools/results.c,
 * docs/results-format.md), a "kind": "tune" result per search with every
 * candidate; tune --list --json: a "kind": "tuned" result per entry. */
#include "tune_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "results.h"

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
    /* The work-group probe a variant refused is run but not in the space. */
    const double in_space = fmin((double)r->ncandidates, round(r->covered * r->space));
    char probe[64] = "";
    if ((double)r->ncandidates > in_space)
        snprintf(probe, sizeof probe, " and %.0f work-group probe refused",
                 (double)r->ncandidates - in_space);
    fprintf(out,
            "  %.0f candidates of %.0f%s (%.3g%% of the space, %s) in %s of a %.0f s budget: "
            "%zu ok, %zu wrong, %zu failed or refused\n",
            in_space, r->space, probe, 100 * r->covered, r->strategy, took, r->budget_ms / 1000, ok,
            wrong, failed);
    if (r->unread[0])
        fprintf(out, "  not searched (the default's path never read them): %s\n", r->unread);
    const co_tune_candidate *best = r->best >= 0 ? &r->candidates[r->best] : NULL;
    const co_tune_candidate **order = malloc(r->ncandidates * sizeof *order);
    if (order) {
        for (size_t i = 0; i < r->ncandidates; i++) order[i] = &r->candidates[i];
        const bool all = r->ncandidates <= TABLE_ROWS;
        if (!all) qsort(order, r->ncandidates, sizeof *order, cmp_time);
        fprintf(out, "  %-8s %10s  %s\n", "check", "median_ms",
                all ? "configuration (in the order run)" : "the 10 fastest");
        bool shown = false; /* the default, among those listed */
        for (size_t i = 0; i < r->ncandidates && (all || i < 10); i++) {
            candidate_line(out, order[i], best);
            shown |= order[i]->is_default;
        }
        if (!shown) candidate_line(out, &r->candidates[0], best);
        free(order);
    }
    if (best) {
        char params[256];
        params_text(best, params, sizeof params);
        if (r->best == 0)
            fprintf(out, "  best: the default, %.4f ms: no candidate beat it\n", r->best_ms);
        else
            fprintf(out, "  best: %s, %.4f ms against the default's %.4f ms side by side (%.2fx)\n",
                    params, r->best_ms, r->default_ms, r->default_ms / r->best_ms);
    }
    if (!strncmp(r->note, "kept in", 7)) fprintf(out, "  %s\n", r->note);
}

/* ---- the database ---- */

static int db_list(const tune_args *a) {
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
    if (a->json || a->out) { /* one document: a "tuned" result per entry */
        cJSON *doc = results_doc("tune", results_meta(NULL, NULL, 0));
        cJSON_AddStringToObject(doc, "database", path);
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(results_array(doc), results_tuned(&e[i]));
        char why[512];
        if (a->out && !results_write(a->out, doc, why, sizeof why)) {
            fprintf(stderr, "coalesce: %s\n", why);
            st = CO_ERR_IO;
        }
        if (a->json && !results_print(stdout, doc)) fprintf(stderr, "coalesce: out of memory\n");
        cJSON_Delete(doc);
        if (a->json) {
            co_tune_db_free(e);
            return exit_of(st);
        }
    }
    if (!n)
        printf("no tuned configurations in %s\n", path);
    else
        printf("%s: %zu tuned configurations\n", path, n);
    for (size_t i = 0; i < n; i++) {
        char date[40];
        report_date(date, sizeof date, e[i].tuned_at);
        printf("  %s/%s on %s %s (driver %s), %s\n    %s", e[i].workload, e[i].variant,
               e[i].backend, e[i].device_name, e[i].driver[0] ? e[i].driver : "-", e[i].size_class,
               e[i].params[0] ? e[i].params : "(no tunables)");
        if (e[i].local[0])
            printf(" local=%zu%s%.0zu", e[i].local[0], e[i].local[1] ? "x" : "", e[i].local[1]);
        printf(": %.4g ms, default %.4g ms (%.2fx); %s, %.3g%% of the space, %s\n", e[i].median_ms,
               e[i].default_ms, e[i].median_ms > 0 ? e[i].default_ms / e[i].median_ms : 0,
               e[i].strategy, 100 * e[i].covered, date);
    }
    co_tune_db_free(e);
    return exit_of(st);
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
    return a->list ? db_list(a) : EXIT_OK;
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
    bool any = false;
    results_file file;
    if (!results_file_open(&file, a->out, "tune", results_meta(ctx, idx, n))) return EXIT_FAILED;
    cJSON *doc = a->json ? results_doc("tune", results_meta(ctx, idx, n)) : NULL;
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
                const bool skipped = st == CO_ERR_UNSUPPORTED && !r; /* not for this device */
                if (st && st != CO_ERR_INTERRUPTED)
                    fprintf(stderr, "coalesce: %s%s\n", skipped ? "skipped: " : "",
                            co_last_error());
                co_tune_result none = {.best = -1}; /* the search never began: who and why */
                if (!r) {
                    snprintf(none.workload, sizeof none.workload, "%s", workload);
                    snprintf(none.variant, sizeof none.variant, "%.31s", variant);
                    snprintf(none.device, sizeof none.device, "%s", info->spec);
                    snprintf(none.device_name, sizeof none.device_name, "%s", info->name);
                    snprintf(none.sizes, sizeof none.sizes, "%s", sets[s]);
                }
                const co_tune_result *res = r ? r : &none;
                if (doc)
                    cJSON_AddItemToArray(results_array(doc),
                                         results_tune(ctx, res, st, co_last_error()));
                results_file_add(&file, results_tune(ctx, res, st, co_last_error()));
                if (skipped) {
                    if (rc == EXIT_OK) rc = EXIT_SKIPPED;
                    break;
                }
                any = true;
                if (r && !a->json) text_result(stdout, r);
                if (r && (strstr(r->note, "rebuilt") || !strncmp(r->note, "not kept", 8)))
                    fprintf(stderr, "coalesce: warning: %s\n", r->note);
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
    if (!results_file_close(&file) && !rc) rc = EXIT_FAILED;
    if (doc && !results_print(stdout, doc)) fprintf(stderr, "coalesce: out of memory\n");
    cJSON_Delete(doc);
    if (!any && rc == EXIT_SKIPPED)
        fprintf(stderr, "coalesce: nothing was tuned: no selected variant runs on the selected "
                        "devices here\n");
    return rc;
}
