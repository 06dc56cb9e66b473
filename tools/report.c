/* Output formats for the command-line tool. */
#include "report.h"

#include <math.h>
#include <string.h>

void report_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* JSON has no NaN or infinity. */
static void json_number(FILE *out, double x) {
    if (isfinite(x)) fprintf(out, "%.6g", x);
    else fputs("null", out);
}

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
        used += (size_t)snprintf(out + used, len - used, "%s%s=%ld", i ? " " : "", r->params[i].name,
                                 r->params[i].value);
}

void report_json_row(FILE *out, const report_row *row) {
    const co_result *r = &row->r;
    fputs("{\"workload\": ", out);
    report_json_string(out, r->workload);
    fputs(", \"variant\": ", out);
    report_json_string(out, r->variant);
    fputs(", \"device\": ", out);
    report_json_string(out, r->device);
    fputs(", \"device_name\": ", out);
    report_json_string(out, r->device_name);
    for (size_t i = 0; i < r->nsizes; i++) {
        fprintf(out, ", ");
        report_json_string(out, r->sizes[i].name);
        fprintf(out, ": %s", r->sizes[i].value);
    }
    fputs(", \"params\": {", out);
    for (size_t i = 0; i < r->nparams; i++) {
        fputs(i ? ", " : "", out);
        report_json_string(out, r->params[i].name);
        fprintf(out, ": %ld", r->params[i].value);
    }
    fprintf(out, "}, \"local\": [%zu, %zu, %zu]", r->local[0], r->local[1], r->local[2]);
    fprintf(out, ", \"status\": \"%s\"", co_status_name(row->status));
    if (row->status != CO_OK && row->status != CO_ERR_VERIFY) {
        fputs(", \"message\": ", out);
        report_json_string(out, row->error);
        fputs("}", out);
        return;
    }
    fprintf(out, ", \"verified\": %s, \"check\": ", r->verified ? "true" : "false");
    report_json_string(out, r->check);
    fputs(", \"error\": ", out);
    json_number(out, r->error);
    fputs(", \"tolerance\": ", out);
    json_number(out, r->tolerance);
    fprintf(out, ", \"reps\": %u, \"median_ms\": ", r->reps);
    json_number(out, r->median_ms);
    fputs(", \"kernel_ms\": ", out);
    json_number(out, r->kernel_ms);
    fputs(", \"total_ms\": ", out);
    json_number(out, r->total_ms);
    fputs(", \"min_ms\": ", out);
    json_number(out, r->min_ms);
    if (r->flops > 0) {
        fputs(", \"gflops\": ", out);
        json_number(out, r->gflops);
    }
    if (r->bytes > 0) {
        fputs(", \"gbps\": ", out);
        json_number(out, r->gbps);
    }
    if (row->vs_c > 0) {
        fputs(", \"speedup_vs_c\": ", out);
        json_number(out, row->vs_c);
    }
    if (row->anchor[0] && row->vs_anchor > 0) {
        fputs(", \"anchor\": ", out);
        report_json_string(out, row->anchor);
        fputs(", \"vs_anchor\": ", out);
        json_number(out, row->vs_anchor);
    }
    fputs("}", out);
}

void report_csv_header(FILE *out) {
    fputs("workload,sizes,device,device_name,variant,params,status,verified,error,tolerance,"
          "reps,median_ms,kernel_ms,total_ms,gflops,gbps,speedup_vs_c,anchor,vs_anchor\n",
          out);
}

void report_csv_row(FILE *out, const report_row *row) {
    const co_result *r = &row->r;
    char sizes[256], params[256];
    sizes_text(r, sizes, sizeof sizes);
    params_text(r, params, sizeof params);
    /* Names may hold commas (CPU model names): quote the text fields. */
    fprintf(out, "%s,\"%s\",%s,\"%s\",%s,\"%s\",%s,%s,%.3g,%.3g,%u,%.6g,%.6g,%.6g,%.6g,%.6g,",
            r->workload, sizes, r->device, r->device_name, r->variant, params,
            co_status_name(row->status), r->verified ? "true" : "false", r->error, r->tolerance,
            r->reps, r->median_ms, r->kernel_ms, r->total_ms, r->gflops, r->gbps);
    if (row->vs_c > 0) fprintf(out, "%.4g", row->vs_c);
    fprintf(out, ",%s,", row->anchor);
    if (row->vs_anchor > 0) fprintf(out, "%.4g", row->vs_anchor);
    fputc('\n', out);
}

static void ratio(char *out, size_t len, double x) {
    if (x <= 0) snprintf(out, len, "-");
    else snprintf(out, len, x >= 100 ? "%.0fx" : x >= 10 ? "%.1fx" : "%.2fx", x);
}

void report_table(FILE *out, const report_row *rows, size_t n) {
    fprintf(out, "%-9s %-22s %-9s %-9s %-8s %10s %10s %9s %9s %8s %s\n", "workload", "sizes",
            "device", "variant", "check", "median_ms", "GFLOP/s", "GB/s", "vs c", "vs anchor",
            "");
    for (size_t i = 0; i < n; i++) {
        const report_row *row = &rows[i];
        const co_result *r = &row->r;
        char sizes[64];
        sizes_text(r, sizes, sizeof sizes);
        if (row->status != CO_OK && row->status != CO_ERR_VERIFY) {
            fprintf(out, "%-9s %-22s %-9s %-9s %-8s %s\n", r->workload, sizes, r->device,
                    r->variant, "ERROR", row->error);
            continue;
        }
        char vc[16], va[16], anchor[48] = "";
        ratio(vc, sizeof vc, row->vs_c);
        ratio(va, sizeof va, row->vs_anchor);
        if (row->anchor[0] && row->vs_anchor > 0) snprintf(anchor, sizeof anchor, "(%s)", row->anchor);
        fprintf(out, "%-9s %-22s %-9s %-9s %-8s %10.3f %10.2f %9.2f %9s %8s %s\n", r->workload,
                sizes, r->device, r->variant, r->verified ? "ok" : "WRONG", r->median_ms,
                r->gflops, r->gbps, vc, va, anchor);
    }
}

void report_human(FILE *out, const report_row *row) {
    const co_result *r = &row->r;
    char sizes[256], params[256];
    sizes_text(r, sizes, sizeof sizes);
    params_text(r, params, sizeof params);
    fprintf(out, "%s/%s on %s (%s): %s%s%s\n", r->workload, r->variant, r->device, r->device_name,
            sizes, params[0] ? "  " : "", params);
    if (r->local[0])
        fprintf(out, "  work-group %zux%zux%zu\n", r->local[0], r->local[1], r->local[2]);
    fprintf(out, "  %s (%s check): error %.3g, tolerance %.3g\n",
            r->verified ? "verified" : "WRONG RESULT", r->check, r->error, r->tolerance);
    fprintf(out, "  median %.4f ms in kernels, %.4f ms with transfers (%u reps, min %.4f ms)\n",
            r->median_ms, r->total_ms, r->reps, r->min_ms);
    if (r->flops > 0) fprintf(out, "  %.2f GFLOP/s", r->gflops);
    if (r->bytes > 0) fprintf(out, "  %.2f GB/s", r->gbps);
    fputc('\n', out);
}

static const char *type_name(co_device_type t) {
    return t == CO_DEVICE_GPU ? "gpu" : t == CO_DEVICE_ACCELERATOR ? "accelerator" : "cpu";
}

void report_devices(FILE *out, const co_context *ctx, bool json) {
    size_t n = co_device_count(ctx), nb = co_backend_count(ctx);
    if (json) fputs("{\"devices\": [", out);
    for (size_t i = 0; i < n; i++) {
        const co_device_info *d = co_device_get(ctx, i);
        if (!json) {
            fprintf(out, "%-9s %s  [%s, %s]\n", d->spec, d->name, type_name(d->type), d->vendor);
            fprintf(out, "          platform %s; %s; driver %s\n", d->platform, d->api_version,
                    d->driver_version[0] ? d->driver_version : "-");
            fprintf(out, "          %u compute units, %u MHz; work-group max %zu (%zu x %zu x %zu)\n",
                    d->compute_units, d->clock_mhz, d->max_work_group_size,
                    d->max_work_item_sizes[0], d->max_work_item_sizes[1], d->max_work_item_sizes[2]);
            fprintf(out, "          local memory %zu B; global memory %.2f GiB; max allocation %.2f GiB\n",
                    d->local_mem_bytes, (double)d->global_mem_bytes / 1073741824.0,
                    (double)d->max_alloc_bytes / 1073741824.0);
            continue;
        }
        fputs(i ? ",\n  " : "\n  ", out);
        fputs("{\"spec\": ", out);
        report_json_string(out, d->spec);
        fputs(", \"backend\": ", out);
        report_json_string(out, d->backend);
        fputs(", \"name\": ", out);
        report_json_string(out, d->name);
        fputs(", \"vendor\": ", out);
        report_json_string(out, d->vendor);
        fputs(", \"platform\": ", out);
        report_json_string(out, d->platform);
        fprintf(out, ", \"type\": \"%s\", \"api_version\": ", type_name(d->type));
        report_json_string(out, d->api_version);
        fputs(", \"driver_version\": ", out);
        report_json_string(out, d->driver_version);
        fprintf(out,
                ", \"compute_units\": %u, \"clock_mhz\": %u, \"max_work_group_size\": %zu, "
                "\"max_work_item_sizes\": [%zu, %zu, %zu], \"local_mem_bytes\": %zu, "
                "\"global_mem_bytes\": %zu, \"max_alloc_bytes\": %zu}",
                d->compute_units, d->clock_mhz, d->max_work_group_size, d->max_work_item_sizes[0],
                d->max_work_item_sizes[1], d->max_work_item_sizes[2], d->local_mem_bytes,
                d->global_mem_bytes, d->max_alloc_bytes);
    }
    if (json) fputs("],\n \"backends\": [", out);
    for (size_t i = 0; i < nb; i++) {
        const char *name, *reason;
        bool avail;
        co_backend_status(ctx, i, &name, &avail, &reason);
        if (!json) {
            if (!avail) fprintf(out, "%-9s unavailable: %s\n", name, reason);
            continue;
        }
        fputs(i ? ", " : "", out);
        fputs("{\"name\": ", out);
        report_json_string(out, name);
        fprintf(out, ", \"available\": %s, \"reason\": ", avail ? "true" : "false");
        report_json_string(out, reason);
        fputs("}", out);
    }
    if (json) fputs("]}\n", out);
}
