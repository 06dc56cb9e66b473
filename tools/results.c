/* The result format: docs/results-format.md says what each field means. */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/outfile.h"

#ifndef COALESCE_GIT_COMMIT
#define COALESCE_GIT_COMMIT "" /* not built from a git checkout */
#endif

static int saved_argc;
static char **saved_argv;

void results_set_argv(int argc, char **argv) {
    saved_argc = argc;
    saved_argv = argv;
}

/* A number, or null where it does not apply (x <= 0 or not finite). */
static void add_figure(cJSON *o, const char *key, double x) {
    if (x > 0 && isfinite(x))
        cJSON_AddNumberToObject(o, key, x);
    else
        cJSON_AddNullToObject(o, key);
}

/* A number that may be 0 (an error of 0, a spread of 0); null if not finite. */
static void add_number(cJSON *o, const char *key, double x) {
    if (isfinite(x))
        cJSON_AddNumberToObject(o, key, x);
    else
        cJSON_AddNullToObject(o, key);
}

/* Text, or null for "". */
static void add_text(cJSON *o, const char *key, const char *s) {
    if (s && *s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

static void iso_date(char *out, size_t len, long long t) {
    struct tm tm;
    time_t tt = (time_t)t;
    if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, len, "%s", "");
}

/* The first "model name" of /proc/cpuinfo, "" where there is none. */
static void cpu_model(char *out, size_t len) {
    out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        colon += 1 + strspn(colon + 1, " \t");
        colon[strcspn(colon, "\n")] = 0;
        snprintf(out, len, "%s", colon);
        break;
    }
    fclose(f);
}

static const char *type_name(co_device_type t) {
    return t == CO_DEVICE_GPU ? "gpu" : t == CO_DEVICE_ACCELERATOR ? "accelerator" : "cpu";
}

/* A device as meta lists it: enough to tell machines and drivers apart. */
static cJSON *device_brief(const co_device_info *d) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "spec", d->spec);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "backend", d->backend);
    cJSON_AddStringToObject(o, "type", type_name(d->type));
    add_text(o, "vendor", d->vendor);
    add_text(o, "platform", d->platform);
    add_text(o, "api_version", d->api_version);
    add_text(o, "driver", d->driver_version);
    return o;
}

cJSON *results_meta(const co_context *ctx, const size_t *devices, size_t n) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "coalesce", co_version());
    add_text(m, "commit", COALESCE_GIT_COMMIT);
    char text[512];
    iso_date(text, sizeof text, (long long)time(NULL));
    cJSON_AddStringToObject(m, "date", text);
    if (gethostname(text, sizeof text)) text[0] = 0;
    text[sizeof text - 1] = 0;
    add_text(m, "host", text);
    cpu_model(text, sizeof text);
    add_text(m, "cpu", text);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(text, sizeof text, "%s %s %s", u.sysname, u.release, u.machine);
        cJSON_AddStringToObject(m, "os", text);
    } else {
        cJSON_AddNullToObject(m, "os");
    }
    cJSON *argv = cJSON_AddArrayToObject(m, "command_line");
    for (int i = 0; i < saved_argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(saved_argv[i]));
    cJSON *devs = cJSON_AddArrayToObject(m, "devices");
    for (size_t i = 0; ctx && i < n; i++) {
        const co_device_info *d = co_device_get(ctx, devices[i]);
        if (d) cJSON_AddItemToArray(devs, device_brief(d));
    }
    return m;
}

cJSON *results_doc(const char *command, cJSON *meta) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "schema", RESULTS_SCHEMA);
    cJSON_AddStringToObject(doc, "command", command);
    cJSON_AddItemToObject(doc, "meta", meta);
    cJSON_AddArrayToObject(doc, "results");
    return doc;
}

cJSON *results_array(cJSON *doc) { return cJSON_GetObjectItemCaseSensitive(doc, "results"); }

const char *results_backend(const co_context *ctx, const char *spec) {
    for (size_t d = 0; ctx && d < co_device_count(ctx); d++)
        if (!strcmp(co_device_get(ctx, d)->spec, spec)) return co_device_get(ctx, d)->backend;
    return "";
}

/* A size's value: a number where it is one, else text (border=clamp). */
static cJSON *size_value(const char *v) {
    char *end;
    double x = strtod(v, &end);
    return *v && !*end && isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateString(v);
}

/* "ball-steps" -> "ball_steps": rates are keyed by unit, a name any tool takes. */
static void rate_key(const char *unit, char *out, size_t len) {
    size_t i = 0;
    for (; unit[i] && i + 1 < len; i++) out[i] = unit[i] == '-' || unit[i] == ' ' ? '_' : unit[i];
    out[i] = 0;
}

static void add_rate(cJSON *rates, const char *key, double value, double total, const char *unit) {
    if (!(value > 0)) return; /* absent: does not apply */
    cJSON *r = cJSON_AddObjectToObject(rates, key);
    cJSON_AddNumberToObject(r, "value", value);
    add_figure(r, "with_transfers", total);
    cJSON_AddStringToObject(r, "unit", unit);
}

static bool ran(const report_row *row) {
    return row->status == CO_OK || row->status == CO_ERR_VERIFY;
}

cJSON *results_head(const co_context *ctx, const char *kind, const char *workload,
                    const char *variant, const char *spec, const char *name) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddStringToObject(o, "workload", workload);
    cJSON_AddStringToObject(o, "variant", variant);
    cJSON *dev = cJSON_AddObjectToObject(o, "device");
    cJSON_AddStringToObject(dev, "spec", spec);
    add_text(dev, "name", name);
    add_text(dev, "backend", results_backend(ctx, spec));
    return o;
}

cJSON *results_row(const co_context *ctx, const report_row *row) {
    const co_result *r = &row->r;
    cJSON *o = results_head(ctx, "run", r->workload, r->variant, r->device, r->device_name);
    cJSON *sizes = cJSON_AddObjectToObject(o, "sizes");
    for (size_t i = 0; i < r->nsizes; i++)
        cJSON_AddItemToObject(sizes, r->sizes[i].name, size_value(r->sizes[i].value));
    cJSON *params = cJSON_AddObjectToObject(o, "params");
    for (size_t i = 0; i < r->nparams; i++)
        cJSON_AddNumberToObject(params, r->params[i].name, (double)r->params[i].value);
    if (r->local[0]) {
        const double l[3] = {(double)r->local[0], (double)r->local[1], (double)r->local[2]};
        cJSON_AddItemToObject(o, "local", cJSON_CreateDoubleArray(l, 3));
    } else {
        cJSON_AddNullToObject(o, "local");
    }
    cJSON_AddBoolToObject(o, "tuned", row->r.tuned);
    cJSON_AddStringToObject(o, "status", co_status_name(row->status));
    add_text(o, "message", row->status == CO_OK ? "" : row->error);
    if (!ran(row)) return o; /* nothing measured: the figures are absent */
    const bool unchecked = !r->verified && !strcmp(r->check, "not checked");
    cJSON_AddBoolToObject(o, "verified", r->verified);
    add_text(o, "check", r->check);
    if (unchecked) {
        cJSON_AddNullToObject(o, "error");
        cJSON_AddNullToObject(o, "tolerance");
    } else {
        add_number(o, "error", r->error);
        add_number(o, "tolerance", r->tolerance);
    }
    cJSON_AddNumberToObject(o, "reps", r->reps);
    cJSON *t = cJSON_AddObjectToObject(o, "times_ms");
    add_figure(t, "median", r->median_ms);
    add_figure(t, "min", r->min_ms);
    add_figure(t, "kernel", r->kernel_ms);
    add_figure(t, "total", r->total_ms);
    add_figure(o, "flops", r->flops);
    add_figure(o, "bytes", r->bytes);
    cJSON *rates = cJSON_AddObjectToObject(o, "rates");
    if (r->flops > 0) add_rate(rates, "gflops", r->gflops, r->flops / r->total_ms / 1e6, "GFLOP/s");
    if (r->bytes > 0) add_rate(rates, "gbps", r->gbps, r->bytes / r->total_ms / 1e6, "GB/s");
    for (size_t i = 0; i < r->nrates; i++) {
        char key[32], unit[32];
        rate_key(r->rates[i].unit, key, sizeof key);
        snprintf(unit, sizeof unit, "%s/s", r->rates[i].unit);
        add_rate(rates, key, r->rates[i].per_s, r->rates[i].per_s_total, unit);
    }
    if (r->ceiling > 0) {
        cJSON *c = cJSON_AddObjectToObject(o, "ceiling");
        cJSON_AddStringToObject(c, "name", r->ceiling_name);
        add_text(c, "level", r->ceiling_level);
        cJSON_AddNumberToObject(c, "value", r->ceiling);
        cJSON_AddStringToObject(c, "unit", r->ceiling_level[0] ? "GB/s" : "GFLOP/s");
        add_number(c, "spread", r->ceiling_spread);
        char date[40];
        iso_date(date, sizeof date, r->ceiling_measured);
        add_text(c, "measured_at", date);
        add_text(c, "note", r->ceiling_note);
        add_figure(o, "fraction", r->fraction);
    } else {
        cJSON_AddNullToObject(o, "ceiling");
        cJSON_AddNullToObject(o, "fraction");
    }
    add_figure(o, "vs_c", row->vs_c);
    if (row->anchor[0] && row->vs_anchor > 0) {
        cJSON *a = cJSON_AddObjectToObject(o, "vs_anchor");
        cJSON_AddStringToObject(a, "anchor", row->anchor);
        cJSON_AddNumberToObject(a, "ratio", row->vs_anchor);
    } else {
        cJSON_AddNullToObject(o, "vs_anchor");
    }
    return o;
}

cJSON *results_peak(const co_peak *p, const char *spec, co_status st, const char *message) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "peak");
    cJSON *dev = cJSON_AddObjectToObject(o, "device");
    cJSON_AddStringToObject(dev, "spec", p ? p->device : spec);
    add_text(dev, "name", p ? p->device_name : "");
    cJSON_AddStringToObject(o, "status", co_status_name(st));
    add_text(o, "message", message);
    if (!p) return o;
    char date[40];
    iso_date(date, sizeof date, p->measured);
    add_text(o, "measured_at", date);
    cJSON_AddBoolToObject(o, "kept_older", p->kept_older);
    cJSON_AddBoolToObject(o, "stored", p->stored);
    add_text(o, "note", p->note);
    if (!p->stored) add_text(o, "store_error", p->store_error);
    cJSON_AddNumberToObject(o, "measured", (double)p->measured);
    /* Each ceiling, its unit in its name: null where it does not apply. */
    const struct {
        const char *name;
        double value;
    } figs[] = {{"copy_gbps", p->copy_gbps},
                {"read_gbps", p->read_gbps},
                {"write_gbps", p->write_gbps},
                {"fma32_gflops", p->fma32_gflops},
                {"fma64_gflops", p->fma64_gflops},
                {"launch_us", p->launch_us},
                {"h2d_gbps", p->h2d_gbps},
                {"d2h_gbps", p->d2h_gbps},
                {"h2d_pinned_gbps", p->h2d_pinned_gbps},
                {"d2h_pinned_gbps", p->d2h_pinned_gbps}};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        add_figure(o, figs[i].name, figs[i].value);
    /* Spreads of 0 are real (a figure that repeated exactly): numbers, null
     * where their figure is (the host has no launch). */
    add_number(o, "fma32_spread", p->fma32_gflops > 0 ? p->fma32_spread : NAN);
    add_number(o, "fma64_spread", p->fma64_gflops > 0 ? p->fma64_spread : NAN);
    add_number(o, "launch_spread", p->launch_us > 0 ? p->launch_spread : NAN);
    cJSON *levels = cJSON_AddArrayToObject(o, "levels");
    for (size_t i = 0; i < p->nlevels && i < CO_PEAK_MAX_LEVELS; i++) {
        const co_peak_level *l = &p->levels[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", l->name);
        add_figure(e, "fits_bytes", l->fits_bytes); /* null: any size (DRAM) */
        add_figure(e, "buffer_bytes", l->buffer_bytes);
        add_figure(e, "copy_gbps", l->copy_gbps);
        add_figure(e, "read_gbps", l->read_gbps);
        add_figure(e, "write_gbps", l->write_gbps);
        add_number(e, "copy_spread", l->copy_gbps > 0 ? l->copy_spread : NAN);
        add_number(e, "read_spread", l->read_gbps > 0 ? l->read_spread : NAN);
        add_number(e, "write_spread", l->write_gbps > 0 ? l->write_spread : NAN);
        cJSON_AddItemToArray(levels, e);
    }
    add_figure(o, "buffer_bytes", p->buffer_bytes);
    add_figure(o, "measure_ms", p->measure_ms);
    return o;
}

/* A work-group [x, y, z], or null for zeros (the variant's choice; none on the host). */
static void add_local(cJSON *o, const char *key, const size_t l[3]) {
    if (!l[0]) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    const double v[3] = {(double)l[0], (double)l[1], (double)l[2]};
    cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(v, 3));
}

cJSON *results_device(const co_device_info *d) {
    cJSON *o = device_brief(d);
    cJSON_AddStringToObject(o, "kind", "device");
    cJSON_AddNumberToObject(o, "compute_units", d->compute_units);
    add_figure(o, "clock_mhz", d->clock_mhz);
    /* Work-groups and local memory: null on the host devices, which have none. */
    add_figure(o, "max_work_group_size", (double)d->max_work_group_size);
    add_local(o, "max_work_item_sizes", d->max_work_item_sizes);
    add_figure(o, "local_mem_bytes", (double)d->local_mem_bytes);
    add_figure(o, "local_mem_arg_bytes", (double)d->local_mem_arg_bytes);
    add_figure(o, "cache_bytes", (double)d->cache_bytes);
    cJSON_AddNumberToObject(o, "global_mem_bytes", (double)d->global_mem_bytes);
    cJSON_AddNumberToObject(o, "max_alloc_bytes", (double)d->max_alloc_bytes);
    if (d->limits[0]) cJSON_AddStringToObject(o, "limits", d->limits); /* the backend's own */
    return o;
}

/* cJSON's formatted text with its tabs as spaces ("key": value, two spaces an
 * indent): every raw tab is layout, since tabs inside strings are escaped. */
static char *print_doc(const cJSON *doc) {
    char *text = cJSON_Print(doc);
    if (!text) return NULL;
    size_t tabs = 0, n = 0;
    for (; text[n]; n++) tabs += text[n] == '\t';
    char *out = malloc(n + tabs + 1);
    if (!out) {
        cJSON_free(text);
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '\t')
            out[o++] = text[i];
        else if (i && text[i - 1] == ':')
            out[o++] = ' ';
        else
            out[o++] = ' ', out[o++] = ' ';
    }
    out[o] = 0;
    cJSON_free(text);
    return out;
}

bool results_print(FILE *out, const cJSON *doc) {
    char *text = print_doc(doc);
    if (!text) return false;
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return true;
}

bool results_write(const char *path, const cJSON *doc, char *why, size_t len) {
    char *text = print_doc(doc);
    if (!text) {
        snprintf(why, len, "out of memory");
        return false;
    }
    co_outfile o;
    co_status st = co_outfile_open(&o, path);
    if (!st) {
        fputs(text, o.f);
        fputc('\n', o.f);
        st = co_outfile_close(&o);
    }
    free(text);
    if (st) snprintf(why, len, "%s", co_last_error());
    return !st;
}

bool results_file_open(results_file *f, const char *path, const char *command, cJSON *meta) {
    *f = (results_file){.path = path};
    if (!path) {
        cJSON_Delete(meta);
        return true;
    }
    f->doc = results_doc(command, meta);
    /* Not a file (/dev/stdout, a pipe): the document once, at the end. */
    f->once = co_outfile_special(path);
    char why[512];
    if (!f->doc || (!f->once && !results_write(path, f->doc, why, sizeof why))) {
        fprintf(stderr, "coalesce: %s\n", f->doc ? why : "out of memory");
        cJSON_Delete(f->doc);
        f->doc = NULL;
        return false;
    }
    return true;
}

static void file_rewrite(results_file *f) {
    char why[512];
    if (!f->failed && !results_write(f->path, f->doc, why, sizeof why)) {
        fprintf(stderr, "coalesce: %s\n", why);
        f->failed = true;
    }
}

void results_file_add(results_file *f, cJSON *result) {
    if (!f->doc) {
        cJSON_Delete(result);
        return;
    }
    cJSON_AddItemToArray(results_array(f->doc), result);
    if (!f->once) file_rewrite(f);
}

void results_file_set(results_file *f, cJSON *results) {
    if (!f->doc) {
        cJSON_Delete(results);
        return;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(f->doc, "results", results);
    if (!f->once) file_rewrite(f);
}

bool results_file_close(results_file *f) {
    if (f->doc && f->once) file_rewrite(f);
    cJSON_Delete(f->doc);
    f->doc = NULL;
    return !f->failed;
}

/* ---- CSV ---- */

void results_csv_header(FILE *out) {
    fputs("workload,variant,device,device_name,backend,sizes,params,tuned,status,verified,check,"
          "error,tolerance,reps,median_ms,min_ms,kernel_ms,total_ms,flops,bytes,gflops,gbps,rates,"
          "ceiling_name,ceiling_level,ceiling,ceiling_unit,fraction,vs_c,anchor,vs_anchor\n",
          out);
}

/* A text cell, quoted (names hold commas), '"' doubled. */
static void csv_text(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
    fputs("\",", out);
}

/* A figure, or an empty cell where it does not apply. */
static void csv_figure(FILE *out, double x, bool last) {
    if (x > 0 && isfinite(x)) fprintf(out, "%.6g", x);
    fputs(last ? "\n" : ",", out);
}

void results_csv_row(FILE *out, const co_context *ctx, const report_row *row) {
    const co_result *r = &row->r;
    char sizes[512] = "", params[512] = "", rates[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < r->nsizes && used < sizeof sizes; i++)
        used += (size_t)snprintf(sizes + used, sizeof sizes - used, "%s%s=%s", i ? " " : "",
                                 r->sizes[i].name, r->sizes[i].value);
    used = 0;
    for (size_t i = 0; i < r->nparams && used < sizeof params; i++)
        used += (size_t)snprintf(params + used, sizeof params - used, "%s%s=%ld", i ? " " : "",
                                 r->params[i].name, r->params[i].value);
    used = 0;
    for (size_t i = 0; ran(row) && i < r->nrates && used < sizeof rates; i++)
        used += (size_t)snprintf(rates + used, sizeof rates - used, "%s%s/s=%.6g", i ? " " : "",
                                 r->rates[i].unit, r->rates[i].per_s);
    fprintf(out, "%s,%s,%s,", r->workload, r->variant, r->device);
    csv_text(out, r->device_name);
    fprintf(out, "%s,", results_backend(ctx, r->device));
    csv_text(out, sizes);
    csv_text(out, params);
    fprintf(out, "%s,%s,", row->r.tuned ? "true" : "false", co_status_name(row->status));
    if (!ran(row)) { /* the message in check's place; the figures empty */
        fputs(",", out);
        csv_text(out, row->error);
        fputs(",,,,,,,,,,,,,,,,,,,\n", out);
        return;
    }
    const bool unchecked = !r->verified && !strcmp(r->check, "not checked");
    fprintf(out, "%s,", r->verified ? "true" : "false");
    csv_text(out, r->check);
    if (unchecked)
        fputs(",,", out);
    else
        fprintf(out, "%.6g,%.6g,", r->error, r->tolerance);
    fprintf(out, "%u,", r->reps);
    csv_figure(out, r->median_ms, false);
    csv_figure(out, r->min_ms, false);
    csv_figure(out, r->kernel_ms, false);
    csv_figure(out, r->total_ms, false);
    csv_figure(out, r->flops, false);
    csv_figure(out, r->bytes, false);
    csv_figure(out, r->flops > 0 ? r->gflops : 0, false);
    csv_figure(out, r->bytes > 0 ? r->gbps : 0, false);
    csv_text(out, rates);
    if (r->ceiling > 0) {
        csv_text(out, r->ceiling_name);
        fprintf(out, "%s,%.6g,%s,", r->ceiling_level, r->ceiling,
                r->ceiling_level[0] ? "GB/s" : "GFLOP/s");
        csv_figure(out, r->fraction, false);
    } else {
        fputs(",,,,,", out);
    }
    csv_figure(out, row->vs_c, false);
    fprintf(out, "%s,", row->anchor[0] && row->vs_anchor > 0 ? row->anchor : "");
    csv_figure(out, row->anchor[0] ? row->vs_anchor : 0, true);
}

/* "m=500 n=500 border=clamp" as {"m": 500, "n": 500, "border": "clamp"}. */
static cJSON *words_object(const char *text) {
    cJSON *o = cJSON_CreateObject();
    for (const char *p = text; *p;) {
        p += strspn(p, " ");
        const size_t len = strcspn(p, " "), eq = strcspn(p, "=");
        if (len && eq < len) {
            char name[64], value[192];
            snprintf(name, sizeof name, "%.*s", (int)eq, p);
            snprintf(value, sizeof value, "%.*s", (int)(len - eq - 1), p + eq + 1);
            cJSON_AddItemToObject(o, name, size_value(value));
        }
        p += len;
    }
    return o;
}

static cJSON *tune_candidate(const co_tune_candidate *c, bool best) {
    cJSON *o = cJSON_CreateObject(), *params = cJSON_AddObjectToObject(o, "params");
    for (size_t i = 0; i < c->nparams; i++)
        cJSON_AddNumberToObject(params, c->params[i].name, (double)c->params[i].value);
    add_local(o, "local", c->local);
    add_local(o, "used_local", c->used_local);
    cJSON_AddStringToObject(
        o, "status", c->status == CO_OK && !c->verified ? "verify" : co_status_name(c->status));
    add_text(o, "message", c->status == CO_OK ? "" : c->message);
    cJSON_AddBoolToObject(o, "verified", c->verified);
    add_figure(o, "median_ms", c->median_ms);
    cJSON_AddBoolToObject(o, "default", c->is_default);
    cJSON_AddBoolToObject(o, "best", best);
    add_number(o, "elapsed_s", c->elapsed_ms / 1000);
    return o;
}

cJSON *results_tune(const co_context *ctx, const co_tune_result *r, co_status st,
                    const char *message) {
    cJSON *o = results_head(ctx, "tune", r->workload, r->variant, r->device, r->device_name);
    cJSON_AddItemToObject(o, "sizes", words_object(r->sizes));
    cJSON_AddStringToObject(o, "status", co_status_name(st));
    add_text(o, "message", st == CO_OK ? "" : message);
    if (!r->ncandidates) return o; /* the search never began: nothing measured */
    cJSON_AddStringToObject(o, "size_class", r->size_class);
    cJSON_AddStringToObject(o, "strategy", r->strategy);
    add_figure(o, "budget_s", r->budget_ms / 1000);
    add_figure(o, "elapsed_s", r->elapsed_ms / 1000);
    cJSON_AddNumberToObject(o, "space", r->space);
    cJSON_AddNumberToObject(o, "candidates_run", (double)r->ncandidates);
    cJSON *unread = cJSON_AddArrayToObject(o, "unread");
    for (const char *u = r->unread; *u; u += strspn(u, ", ")) {
        char name[32];
        const size_t len = strcspn(u, ",");
        snprintf(name, sizeof name, "%.*s", (int)len, u);
        cJSON_AddItemToArray(unread, cJSON_CreateString(name));
        u += len;
    }
    add_number(o, "covered", r->covered);
    if (r->best >= 0)
        cJSON_AddNumberToObject(o, "best", (double)r->best);
    else
        cJSON_AddNullToObject(o, "best");
    add_figure(o, "best_ms", r->best_ms);
    add_figure(o, "default_ms", r->default_ms);
    add_figure(o, "speedup", r->best_ms > 0 ? r->default_ms / r->best_ms : 0);
    cJSON_AddBoolToObject(o, "stored", r->stored);
    add_text(o, "note", r->note);
    cJSON *cands = cJSON_AddArrayToObject(o, "candidates");
    for (size_t i = 0; i < r->ncandidates; i++)
        cJSON_AddItemToArray(cands, tune_candidate(&r->candidates[i], (long)i == r->best));
    return o;
}

cJSON *results_tuned(const co_tune_entry *e) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", "tuned");
    cJSON_AddStringToObject(o, "workload", e->workload);
    cJSON_AddStringToObject(o, "variant", e->variant);
    cJSON *dev = cJSON_AddObjectToObject(o, "device");
    cJSON_AddStringToObject(dev, "backend", e->backend);
    cJSON_AddStringToObject(dev, "name", e->device_name);
    add_text(dev, "driver", e->driver);
    cJSON_AddStringToObject(o, "size_class", e->size_class);
    cJSON_AddItemToObject(o, "sizes", words_object(e->sizes));
    cJSON_AddItemToObject(o, "params", words_object(e->params)); /* "TS=16 WPT=8" */
    add_local(o, "local", e->local);
    add_figure(o, "median_ms", e->median_ms);
    add_figure(o, "default_ms", e->default_ms);
    add_figure(o, "speedup", e->median_ms > 0 ? e->default_ms / e->median_ms : 0);
    add_text(o, "strategy", e->strategy);
    add_number(o, "covered", e->covered);
    char date[40];
    iso_date(date, sizeof date, e->tuned_at);
    add_text(o, "tuned_at", date);
    return o;
}

cJSON *results_devices_doc(const co_context *ctx) {
    size_t all[256] = {0}, n = co_device_count(ctx);
    for (size_t i = 0; i < n && i < 256; i++) all[i] = i;
    cJSON *doc = results_doc("devices", results_meta(ctx, all, n < 256 ? n : 256));
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(results_array(doc), results_device(co_device_get(ctx, i)));
    cJSON *backends = cJSON_AddArrayToObject(doc, "backends");
    for (size_t i = 0; i < co_backend_count(ctx); i++) {
        const char *name, *reason;
        bool avail;
        co_backend_status(ctx, i, &name, &avail, &reason);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "name", name);
        cJSON_AddBoolToObject(b, "available", avail);
        add_text(b, "reason", reason);
        cJSON_AddItemToArray(backends, b);
    }
    return doc;
}
