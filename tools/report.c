/* Output formats for the command-line tool. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sizes_text(const co_result *r, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < r->nsizes && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", i ? " " : "", r->sizes[i].name,
                                 r->sizes[i].value);
}

static void params_text(const co_result *r, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < r->nparams && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s=%ld", i ? " " : "",
                                 r->params[i].name, r->params[i].value);
}

/* The variant's name in a table: "reg2d+" where the tuning database's
 * values ran (co_result.tuned). */
static const char *variant_cell(const co_result *r, char *out, size_t len) {
    snprintf(out, len, "%s%s", r->variant, r->tuned ? "+" : "");
    return out;
}

static void ratio(char *out, size_t len, double x) {
    if (x <= 0)
        snprintf(out, len, "-");
    else
        snprintf(out, len, x >= 100 ? "%.0fx" : x >= 10 ? "%.1fx" : "%.2fx", x);
}

/* A run with --no-verify (run.c leaves its check "not checked"). */
static bool unchecked(const co_result *r) {
    return !r->verified && strcmp(r->check, "not checked") == 0;
}

/* A row's columns from "check" on: figures and ratios, or ERROR and its message. */
static void row_cells(const report_row *row, char *out, size_t len) {
    const co_result *r = &row->r;
    if (row->status != CO_OK && row->status != CO_ERR_VERIFY) {
        snprintf(out, len, "%-6s %s", "ERROR", row->error);
        return;
    }
    char vc[16], va[16], anchor[48] = "", peak[16] = "-";
    /* A fraction over the ceiling is marked, and its reason follows the row. */
    if (r->ceiling > 0)
        snprintf(peak, sizeof peak, "%.1f%%%s", 100 * r->fraction, r->ceiling_note[0] ? "*" : "");
    ratio(vc, sizeof vc, row->vs_c);
    ratio(va, sizeof va, row->vs_anchor);
    if (row->anchor[0] && row->vs_anchor > 0)
        snprintf(anchor, sizeof anchor, "(%s)", row->anchor);
    else if (r->nrates) /* the workload's own figure where no library compares */
        snprintf(anchor, sizeof anchor, "%.3g %s/s", r->rates[r->nrates - 1].per_s,
                 r->rates[r->nrates - 1].unit);
    char gflops[24] = "-", gbps[24] = "-"; /* "-": does not apply (never 0.00) */
    if (r->flops > 0) snprintf(gflops, sizeof gflops, "%.2f", r->gflops);
    if (r->bytes > 0) snprintf(gbps, sizeof gbps, "%.2f", r->gbps);
    const int used = snprintf(out, len, "%-6s %10.3f %10s %9s %7s %-11s %7s %9s %s",
                              r->verified    ? "ok"
                              : unchecked(r) ? "-"
                                             : "WRONG",
                              r->median_ms, gflops, gbps, peak,
                              r->ceiling > 0 ? r->ceiling_name : "-", vc, va, anchor);
    if (r->ceiling > 0 && r->ceiling_note[0] && used > 0 && (size_t)used < len)
        snprintf(out + used, len - (size_t)used, "\n  * %s", r->ceiling_note);
}

/* The names of row_cells's columns, in its widths. */
static const char *cells_header(void) {
    static char text[96];
    snprintf(text, sizeof text, "%-6s %10s %10s %9s %7s %-11s %7s %9s", "check", "median_ms",
             "GFLOP/s", "GB/s", "of peak", "ceiling", "vs c", "vs anchor");
    return text;
}

void report_table(FILE *out, const report_row *rows, size_t n) {
    /* The sizes column as wide as its longest entry: workloads name 2 to 7 sizes. */
    int width = 5;
    for (size_t i = 0; i < n; i++) {
        char sizes[128];
        sizes_text(&rows[i].r, sizes, sizeof sizes);
        if ((int)strlen(sizes) > width) width = (int)strlen(sizes);
    }
    fprintf(out, "%-9s %-*s %-9s %-11s %s\n", "workload", width, "sizes", "device", "variant",
            cells_header());
    for (size_t i = 0; i < n; i++) {
        char sizes[128], cells[768], variant[40];
        sizes_text(&rows[i].r, sizes, sizeof sizes);
        row_cells(&rows[i], cells, sizeof cells);
        fprintf(out, "%-9s %-*s %-9s %-11s %s\n", rows[i].r.workload, width, sizes,
                rows[i].r.device, variant_cell(&rows[i].r, variant, sizeof variant), cells);
    }
}

void report_stream_row(FILE *out, report_stream *st, const report_row *row) {
    char group[sizeof st->group], cells[768];
    const int used = snprintf(group, sizeof group, "%s ", row->r.workload);
    sizes_text(&row->r, group + used, sizeof group - (size_t)used);
    if (strcmp(group, st->group)) { /* a heading for each workload and sizes */
        fprintf(out, "%s%s\n  %-9s %-11s %s\n", st->group[0] ? "\n" : "", group, "device",
                "variant", cells_header());
        memcpy(st->group, group, sizeof group);
    }
    char variant[40];
    row_cells(row, cells, sizeof cells);
    fprintf(out, "  %-9s %-11s %s\n", row->r.device, variant_cell(&row->r, variant, sizeof variant),
            cells);
}

void report_human(FILE *out, const report_row *row) {
    const co_result *r = &row->r;
    char sizes[256], params[256];
    sizes_text(r, sizes, sizeof sizes);
    params_text(r, params, sizeof params);
    fprintf(out, "%s/%s on %s (%s): %s%s%s%s\n", r->workload, r->variant, r->device, r->device_name,
            sizes, params[0] ? "  " : "", params,
            r->tuned ? "  (tuned: the tuning database's; --untuned for the defaults)" : "");
    if (r->local[0])
        fprintf(out, "  work-group %zux%zux%zu\n", r->local[0], r->local[1], r->local[2]);
    if (unchecked(r))
        fprintf(out, "  not verified (--no-verify)\n");
    else
        fprintf(out, "  %s (%s check): error %.3g, tolerance %.3g\n",
                r->verified ? "verified" : "WRONG RESULT", r->check, r->error, r->tolerance);
    fprintf(out, "  median %.4f ms in kernels, %.4f ms with transfers (%u reps, min %.4f ms)\n",
            r->median_ms, r->total_ms, r->reps, r->min_ms);
    if (r->flops > 0) fprintf(out, "  %.2f GFLOP/s", r->gflops);
    if (r->bytes > 0) fprintf(out, "  %.2f GB/s", r->gbps);
    if (r->flops > 0 || r->bytes > 0) fputc('\n', out);
    for (size_t i = 0; i < r->nrates; i++)
        fprintf(out, "  %.4g %s/s (%.4g with transfers)\n", r->rates[i].per_s, r->rates[i].unit,
                r->rates[i].per_s_total);
    if (r->ceiling > 0) {
        char date[40];
        report_date(date, sizeof date, r->ceiling_measured);
        fprintf(out,
                "  %.1f%% of the device's %s ceiling (%.2f %s ±%.0f%%, measured %s; "
                "'coalesce peak')\n",
                100 * r->fraction, r->ceiling_name, r->ceiling,
                r->ceiling_level[0] ? "GB/s" : "GFLOP/s", 50 * r->ceiling_spread, date);
        if (r->ceiling_note[0]) fprintf(out, "  over the ceiling: %s\n", r->ceiling_note);
    }
}

/* A figure, or "n/a" (0: does not apply to the device). */
static void figure(char *out, size_t len, double x, const char *unit) {
    if (x > 0)
        snprintf(out, len, x >= 100 ? "%.0f %s" : "%.2f %s", x, unit);
    else
        snprintf(out, len, "n/a");
}

/* "2026-12-01 14:03 UTC" (UTC: a cache shared by machines in other zones). */
void report_date(char *out, size_t len, long long t) {
    struct tm tm;
    time_t tt = (time_t)t;
    if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(out, len, "-");
}

/* "12.3 MiB", "96 KiB": a working set. */
static void size_text(char *out, size_t len, double bytes) {
    if (bytes >= 1048576)
        snprintf(out, len, "%.3g MiB", bytes / 1048576);
    else
        snprintf(out, len, "%.3g KiB", bytes / 1024);
}

/* "17.2 GB/s ±3%": a figure and its spread. */
static void figure_spread(char *out, size_t len, double x, double spread, const char *unit) {
    char f[32];
    figure(f, sizeof f, x, unit);
    if (x > 0 && spread > 0)
        snprintf(out, len, "%s ±%.0f%%", f, 50 * spread);
    else
        snprintf(out, len, "%s", f);
}

void report_peak(FILE *out, const co_peak *p) {
    char date[40];
    report_date(date, sizeof date, p->measured);
    char f32[48], f64[48], lat[48], h2d[32], d2h[32], ph2d[32], pd2h[32];
    figure_spread(f32, sizeof f32, p->fma32_gflops, p->fma32_spread, "GFLOP/s");
    figure_spread(f64, sizeof f64, p->fma64_gflops, p->fma64_spread, "GFLOP/s");
    figure_spread(lat, sizeof lat, p->launch_us, p->launch_spread, "us");
    figure(h2d, sizeof h2d, p->h2d_gbps, "GB/s");
    figure(d2h, sizeof d2h, p->d2h_gbps, "GB/s");
    figure(ph2d, sizeof ph2d, p->h2d_pinned_gbps, "GB/s");
    figure(pd2h, sizeof pd2h, p->d2h_pinned_gbps, "GB/s");
    fprintf(out, "%-9s %s  (measured %s%s, in %.1f s)\n", p->device, p->device_name, date,
            p->kept_older ? ", kept" : "", p->measure_ms / 1000);
    /* One line per level: what fits it, and copy (read + written), read, write. */
    for (size_t i = 0; i < p->nlevels && i < CO_PEAK_MAX_LEVELS; i++) {
        const co_peak_level *l = &p->levels[i];
        char copy[48], rd[48], wr[48], fits[24], ws[24], label[48];
        figure_spread(copy, sizeof copy, l->copy_gbps, l->copy_spread, "GB/s");
        figure_spread(rd, sizeof rd, l->read_gbps, l->read_spread, "GB/s");
        figure_spread(wr, sizeof wr, l->write_gbps, l->write_spread, "GB/s");
        size_text(ws, sizeof ws, 2 * l->buffer_bytes);
        if (l->fits_bytes > 0) {
            size_text(fits, sizeof fits, l->fits_bytes);
            snprintf(label, sizeof label, "%s (<= %s)", l->name, fits);
        } else {
            snprintf(label, sizeof label, "%s", l->name);
        }
        fprintf(out, "  %-20s copy %s, read %s, write %s  (copy on %s)\n", label, copy, rd, wr, ws);
    }
    fprintf(out, "  %-20s float32 %s, float64 %s\n", "FMA", f32, f64);
    if (p->launch_us > 0)
        fprintf(out, "  %-20s %s (%s)\n", "launch", lat,
                strcmp(p->device, "omp") ? "an empty kernel launched and waited for"
                                         : "entering and leaving a parallel region");
    if (p->h2d_gbps > 0)
        fprintf(out, "  %-20s host->device %s, device->host %s (pageable); %s, %s (pinned)\n",
                "transfers", h2d, d2h, ph2d, pd2h);
    else
        fprintf(out, "  %-20s n/a (the host's memory is the device's)\n", "transfers");
}

static const char *type_name(co_device_type t) {
    return t == CO_DEVICE_GPU ? "gpu" : t == CO_DEVICE_ACCELERATOR ? "accelerator" : "cpu";
}

void report_devices(FILE *out, const co_context *ctx) {
    size_t n = co_device_count(ctx), nb = co_backend_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const co_device_info *d = co_device_get(ctx, i);
        fprintf(out, "%-9s %s  [%s, %s]\n", d->spec, d->name, type_name(d->type), d->vendor);
        fprintf(out, "          platform %s; %s%sdriver %s\n", d->platform, d->api_version,
                d->api_version[0] ? "; " : "", d->driver_version[0] ? d->driver_version : "-");
        char clock[32] = "", groups[96] = "no work-groups (host code)", local[96] = "";
        if (d->clock_mhz) snprintf(clock, sizeof clock, ", %u MHz", d->clock_mhz);
        if (d->max_work_group_size) {
            snprintf(groups, sizeof groups, "work-group max %zu (%zu x %zu x %zu)",
                     d->max_work_group_size, d->max_work_item_sizes[0], d->max_work_item_sizes[1],
                     d->max_work_item_sizes[2]);
            snprintf(local, sizeof local, "local memory %zu B (%zu B by argument); ",
                     d->local_mem_bytes, d->local_mem_arg_bytes);
        }
        fprintf(out, "          %u compute units%s; %s\n", d->compute_units, clock, groups);
        fprintf(
            out, "          %scache %.1f MiB; global memory %.2f GiB; max allocation %.2f GiB\n",
            local, (double)d->cache_bytes / 1048576.0, (double)d->global_mem_bytes / 1073741824.0,
            (double)d->max_alloc_bytes / 1073741824.0);
        if (d->limits[0]) fprintf(out, "          %s\n", d->limits);
    }
    for (size_t i = 0; i < nb; i++) {
        const char *name, *reason;
        bool avail;
        co_backend_status(ctx, i, &name, &avail, &reason);
        if (!avail) fprintf(out, "%-9s unavailable: %s\n", name, reason);
    }
}
