/* coalesce report FILE.json... -o REPORT.html: one self-contained page (no
 * network: styles inline, charts as inline SVG written here, pictures as
 * data: URIs). Every plotted figure carries its value in data-* attributes
 * (data-median-ms, data-gflops, data-ai, ...), printed with %.9g, so that a
 * test can hold the page's figures to the JSON's. Sections: per device a
 * roofline and the variant ladders; then CPU-vs-GPU speedups, the box
 * filter's time against radius, the anchors side by side, each tuning
 * search's landscape, the pictures. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/outfile.h"
#include "results.h"
#include "tools.h"

#define MAX_FILES 64
#define MAX_IMAGES 16

/* The seeds' step-by-step stories. */
static const struct {
    const char *workload;
    const char *steps[6];
} ladders[] = {
    {"gemm", {"naive", "tiled", "wpt", "reg2d", NULL}},
    {"boxfilter", {"naive", "separable", "transpose", "sliding", NULL}},
    {"copy", {"strided", "coalesced", "vec2", "vec4", NULL}},
    {"reduce", {"tree", "unrolled", "multi", "shuffle", NULL}},
    {"grayscale", {"uncoalesced", "coalesced", NULL}},
    {"raytrace", {"global", "constant", "local", NULL}},
};

typedef struct run {
    const cJSON *j;
    const char *workload, *variant, *spec, *name, *backend;
    char sizes[256];
    double median, min, flops, bytes, gflops, radius;
} run;

typedef struct roof {
    char spec[32], name[32];
    double gbps;   /* a bandwidth roof, or 0 */
    double gflops; /* the compute roof, or 0 */
} roof;

typedef struct book {
    run *runs;
    size_t nruns;
    roof roofs[128];
    size_t nroofs;
    char specs[32][32], names[32][128];
    size_t nspecs;
    const cJSON *tunes[256]; /* coalesce tune's searches ("kind": "tune" with candidates) */
    size_t ntunes;
} book;

static void esc(FILE *o, const char *s) {
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", o);
        else if (*s == '>')
            fputs("&gt;", o);
        else if (*s == '&')
            fputs("&amp;", o);
        else if (*s == '"')
            fputs("&quot;", o);
        else
            fputc(*s, o);
    }
}

/* "opencl:0" -> "opencl-0": an id. */
static void id_of(const char *s, char *out, size_t len) {
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ? s[i] : '-';
    out[i] = 0;
}

static void add_roof(book *b, const char *spec, const char *name, double gbps, double gflops) {
    if (!(gbps > 0) && !(gflops > 0)) return;
    for (size_t i = 0; i < b->nroofs; i++)
        if (!strcmp(b->roofs[i].spec, spec) && !strcmp(b->roofs[i].name, name)) {
            if (gbps > b->roofs[i].gbps) b->roofs[i].gbps = gbps;
            if (gflops > b->roofs[i].gflops) b->roofs[i].gflops = gflops;
            return;
        }
    if (b->nroofs == sizeof b->roofs / sizeof b->roofs[0]) return;
    roof *r = &b->roofs[b->nroofs++];
    snprintf(r->spec, sizeof r->spec, "%s", spec);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->gbps = gbps > 0 ? gbps : 0;
    r->gflops = gflops > 0 ? gflops : 0;
}

static void add_spec(book *b, const char *spec, const char *name) {
    for (size_t i = 0; i < b->nspecs; i++)
        if (!strcmp(b->specs[i], spec)) return;
    if (b->nspecs == 32) return;
    snprintf(b->specs[b->nspecs], 32, "%s", spec);
    snprintf(b->names[b->nspecs++], 128, "%s", name ? name : "");
}

static bool collect(book *b, const cJSON *doc) {
    const cJSON *r;
    cJSON_ArrayForEach(r, results_array((cJSON *)doc)) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(r, "device");
        const char *spec = results_str(dev, "spec"), *kind = results_str(r, "kind");
        if (!strcmp(kind, "peak") && !strcmp(results_str(r, "status"), "ok")) {
            const cJSON *lv;
            cJSON_ArrayForEach(lv, cJSON_GetObjectItemCaseSensitive(r, "levels")) {
                char name[32];
                snprintf(name, sizeof name, "copy (%s)", results_str(lv, "name"));
                add_roof(b, spec, name, results_num(lv, "copy_gbps"), 0);
            }
            add_roof(b, spec, "fma32", 0, results_num(r, "fma32_gflops"));
            continue;
        }
        if (!strcmp(kind, "tune") &&
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "candidates")) > 0) {
            if (b->ntunes < sizeof b->tunes / sizeof b->tunes[0]) b->tunes[b->ntunes++] = r;
            continue;
        }
        if (strcmp(kind, "run") || strcmp(results_str(r, "status"), "ok")) continue;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "times_ms");
        run x = {.j = r,
                 .workload = results_str(r, "workload"),
                 .variant = results_str(r, "variant"),
                 .spec = spec,
                 .name = results_str(dev, "name"),
                 .backend = results_str(dev, "backend"),
                 .median = results_num(t, "median"),
                 .min = results_num(t, "min"),
                 .flops = results_num(r, "flops"),
                 .bytes = results_num(r, "bytes"),
                 .radius = results_num(cJSON_GetObjectItemCaseSensitive(r, "sizes"), "radius")};
        const cJSON *rates = cJSON_GetObjectItemCaseSensitive(r, "rates");
        x.gflops = results_num(cJSON_GetObjectItemCaseSensitive(rates, "gflops"), "value");
        if (!(x.median > 0)) continue;
        results_sizes_text(r, x.sizes, sizeof x.sizes);
        run *grown = realloc(b->runs, (b->nruns + 1) * sizeof *grown);
        if (!grown) return false;
        b->runs = grown;
        b->runs[b->nruns++] = x;
        add_spec(b, spec, x.name);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "ceiling");
        if (cJSON_IsObject(c)) {
            const double v = results_num(c, "value");
            const bool bw = !strcmp(results_str(c, "unit"), "GB/s");
            add_roof(b, spec, results_str(c, "name"), bw ? v : 0, bw ? 0 : v);
        }
    }
    return true;
}

/* ---- SVG ---- */

enum { W = 720, H = 400, L = 70, R = 20, T = 20, B = 50 };

typedef struct axis {
    double lo, hi; /* log10 of the range */
} axis;

static axis log_axis(double lo, double hi) {
    axis a = {floor(log10(lo)), ceil(log10(hi))};
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    return a;
}
static double px_x(axis a, double v) { return L + (W - L - R) * (log10(v) - a.lo) / (a.hi - a.lo); }
static double px_y(axis a, double v) {
    return H - B - (H - T - B) * (log10(v) - a.lo) / (a.hi - a.lo);
}

/* The plot's frame and y's decades (a log axis). */
static void svg_frame(FILE *o, axis y) {
    fprintf(o, "<rect x='%d' y='%d' width='%d' height='%d' fill='#fff' stroke='#888'/>\n", L, T,
            W - L - R, H - T - B);
    for (double e = y.lo; e <= y.hi; e++) {
        const double p = px_y(y, pow(10, e));
        fprintf(o,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
                "<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n",
                L, p, W - R, p, L - 4, p + 4, pow(10, e));
    }
}

static void svg_labels(FILE *o, const char *xl, const char *yl) {
    fprintf(o, "<text x='%d' y='%d' text-anchor='middle'>", (L + W - R) / 2, H - 8);
    esc(o, xl);
    fprintf(o, "</text><text x='14' y='%d' transform='rotate(-90 14 %d)' text-anchor='middle'>",
            (T + H - B) / 2, (T + H - B) / 2);
    esc(o, yl);
    fputs("</text>\n", o);
}

/* Both axes log10, with their decades. */
static void svg_axes(FILE *o, axis x, axis y, const char *xl, const char *yl) {
    svg_frame(o, y);
    for (double e = x.lo; e <= x.hi; e++) {
        const double p = px_x(x, pow(10, e));
        fprintf(o,
                "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>"
                "<text x='%.1f' y='%d' text-anchor='middle'>%g</text>\n",
                p, T, p, H - B, p, H - B + 16, pow(10, e));
    }
    svg_labels(o, xl, yl);
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

static void roofline(FILE *o, const book *b, const char *spec) {
    char id[48];
    id_of(spec, id, sizeof id);
    double fma = 0, ai_lo = 1e30, ai_hi = 0, g_lo = 1e30, g_hi = 0;
    for (size_t i = 0; i < b->nroofs; i++)
        if (!strcmp(b->roofs[i].spec, spec) && b->roofs[i].gflops > fma) fma = b->roofs[i].gflops;
    size_t points = 0;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->spec, spec) || !(r->flops > 0) || !(r->bytes > 0) || !(r->gflops > 0))
            continue;
        const double ai = r->flops / r->bytes;
        ai_lo = fmin(ai_lo, ai), ai_hi = fmax(ai_hi, ai);
        g_lo = fmin(g_lo, r->gflops), g_hi = fmax(g_hi, r->gflops);
        points++;
    }
    fprintf(
        o,
        "<h3>Roofline</h3>\n<svg id='roofline-%s' class='chart roofline' width='%d' height='%d' "
        "data-device='",
        id, W, H);
    esc(o, spec);
    fprintf(o, "' data-points='%zu'>\n", points);
    if (!points) {
        fprintf(o, "<text x='%d' y='%d'>no result here has both flops and bytes</text></svg>\n", L,
                H / 2);
        return;
    }
    if (fma > 0) g_hi = fmax(g_hi, fma);
    const axis x = log_axis(fmin(ai_lo, 0.1), fmax(ai_hi, 100)),
               y = log_axis(fmax(g_lo / 2, 1e-4), g_hi * 2);
    svg_axes(o, x, y, "arithmetic intensity (flop/byte)", "GFLOP/s");
    fprintf(o,
            "<clipPath id='clip-%s'><rect x='%d' y='%d' width='%d' height='%d'/></clipPath>"
            "<g clip-path='url(#clip-%s)'>\n",
            id, L, T, W - L - R, H - T - B, id);
    size_t k = 0;
    for (size_t i = 0; i < b->nroofs; i++) {
        const roof *r = &b->roofs[i];
        if (strcmp(r->spec, spec) || !(r->gbps > 0)) continue;
        /* GFLOP/s = AI x GB/s, up to the compute roof */
        const double a0 = pow(10, x.lo), knee = fma > 0 ? fma / r->gbps : pow(10, x.hi);
        const double a1 = fmin(knee, pow(10, x.hi));
        fprintf(
            o,
            "<line class='roof' data-roof='%s' data-gbps='%.9g' x1='%.1f' y1='%.1f' x2='%.1f' "
            "y2='%.1f' stroke='%s' stroke-width='2'/><text x='%.1f' y='%.1f' fill='%s'>%s %.3g GB/s"
            "</text>\n",
            r->name, r->gbps, px_x(x, a0), px_y(y, a0 * r->gbps), px_x(x, a1),
            px_y(y, a1 * r->gbps), palette[k % 10], px_x(x, a0) + 4,
            px_y(y, a0 * r->gbps) - 4 - 12.0 * (double)k, palette[k % 10], r->name, r->gbps);
        k++;
    }
    if (fma > 0)
        fprintf(
            o,
            "<line class='roof' data-roof='fma32' data-gflops='%.9g' x1='%d' y1='%.1f' "
            "x2='%d' y2='%.1f' stroke='#000' stroke-width='2'/><text x='%d' y='%.1f'>fma32 %.4g "
            "GFLOP/s</text>\n",
            fma, L, px_y(y, fma), W - R, px_y(y, fma), W - R - 170, px_y(y, fma) - 4, fma);
    fputs("</g>\n", o);
    const char *workloads[16];
    size_t nw = 0;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->spec, spec) || !(r->flops > 0) || !(r->bytes > 0) || !(r->gflops > 0))
            continue;
        size_t w = 0;
        while (w < nw && strcmp(workloads[w], r->workload)) w++;
        if (w == nw && nw < 16) workloads[nw++] = r->workload;
        const double ai = r->flops / r->bytes;
        fprintf(
            o,
            "<circle class='point' cx='%.1f' cy='%.1f' r='4' fill='%s' fill-opacity='0.7' "
            "data-workload='%s' data-variant='%s' data-sizes='%s' data-ai='%.9g' "
            "data-gflops='%.9g'><title>%s/%s %s: %.4g GFLOP/s at %.3g flop/byte</title></circle>\n",
            px_x(x, ai), px_y(y, r->gflops), palette[w % 10], r->workload, r->variant, r->sizes, ai,
            r->gflops, r->workload, r->variant, r->sizes, r->gflops, ai);
    }
    for (size_t w = 0; w < nw; w++)
        fprintf(o, "<circle cx='%d' cy='%zu' r='4' fill='%s'/><text x='%d' y='%zu'>%s</text>\n",
                L + 12, T + 14 + 14 * w, palette[w % 10], L + 20, T + 18 + 14 * w, workloads[w]);
    fputs("</svg>\n", o);
}

/* The largest sizes (by bytes, then flops) a workload ran at on a device. */
static const run *largest(const book *b, const char *workload, const char *spec) {
    const run *best = NULL;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->workload, workload) || strcmp(r->spec, spec)) continue;
        const double s = (r->bytes > 0 ? r->bytes : 0) + (r->flops > 0 ? r->flops : 0);
        const double t =
            best ? (best->bytes > 0 ? best->bytes : 0) + (best->flops > 0 ? best->flops : 0) : -1;
        if (s > t) best = r;
    }
    return best;
}

static const run *find(const book *b, const char *workload, const char *variant, const char *spec,
                       const char *sizes) {
    const run *best = NULL;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *r = &b->runs[i];
        if (!strcmp(r->workload, workload) && !strcmp(r->variant, variant) &&
            !strcmp(r->spec, spec) && !strcmp(r->sizes, sizes) &&
            (!best || r->median < best->median))
            best = r;
    }
    return best;
}

static void ladder(FILE *o, const book *b, const char *spec, size_t li) {
    const run *big = largest(b, ladders[li].workload, spec);
    if (!big) return;
    const run *steps[6];
    size_t n = 0;
    for (size_t s = 0; ladders[li].steps[s]; s++) {
        const run *r = find(b, ladders[li].workload, ladders[li].steps[s], spec, big->sizes);
        if (r) steps[n++] = r;
    }
    if (n < 2) return;
    char id[48];
    id_of(spec, id, sizeof id);
    double top = 0;
    for (size_t i = 0; i < n; i++) top = fmax(top, steps[i]->median);
    const int bh = 28, h = (int)n * (bh + 8) + 30;
    fprintf(o,
            "<h3>%s: the variant ladder (%s)</h3>\n<svg id='ladder-%s-%s' class='chart ladder' "
            "width='%d' height='%d' data-workload='%s'>\n",
            ladders[li].workload, big->sizes, ladders[li].workload, id, W, h, ladders[li].workload);
    for (size_t i = 0; i < n; i++) {
        const double len = (W - 330) * steps[i]->median / top;
        char step[48] = "";
        if (i)
            snprintf(step, sizeof step, "%.2fx over %s", steps[i - 1]->median / steps[i]->median,
                     steps[i - 1]->variant);
        fprintf(o,
                "<text x='4' y='%zu'>%s</text><rect class='bar' x='110' y='%zu' width='%.1f' "
                "height='%d' fill='%s' data-variant='%s' data-sizes='%s' data-median-ms='%.9g'"
                "%s%.9g%s/><text x='%.1f' y='%zu'>%.4g ms %s</text>\n",
                20 + i * (bh + 8), steps[i]->variant, 4 + i * (bh + 8), len > 1 ? len : 1, bh,
                palette[i % 10], steps[i]->variant, steps[i]->sizes, steps[i]->median,
                i ? " data-step-speedup='" : "", i ? steps[i - 1]->median / steps[i]->median : 0,
                i ? "'" : "", 116 + len, 22 + i * (bh + 8), steps[i]->median, step);
    }
    fputs("</svg>\n", o);
}

/* CPU vs GPU: per workload at its largest sizes, each device's fastest
 * variant over sequential C (the thesis's table). */
static void speedups(FILE *o, const book *b) {
    fputs("<h2>Speedups over sequential C</h2>\n<table id='speedups' class='chart'><tr><th>workload"
          "</th><th>sizes</th><th>c (ms)</th>",
          o);
    for (size_t d = 0; d < b->nspecs; d++) {
        fputs("<th>", o);
        esc(o, b->specs[d]);
        fputs("</th>", o);
    }
    fputs("</tr>\n", o);
    for (size_t w = 0; w < co_workload_count(); w++) {
        const char *wl = co_workload_name(w);
        const run *big = largest(b, wl, "c");
        const run *c = big ? find(b, wl, "c", "c", big->sizes) : NULL;
        if (!c) continue;
        fprintf(o, "<tr><td>%s</td><td>%s</td><td>%.4g</td>", wl, c->sizes, c->median);
        for (size_t d = 0; d < b->nspecs; d++) {
            const run *best = NULL;
            for (size_t i = 0; i < b->nruns; i++) {
                const run *r = &b->runs[i];
                if (!strcmp(r->workload, wl) && !strcmp(r->spec, b->specs[d]) &&
                    !strcmp(r->sizes, c->sizes) && (!best || r->median < best->median))
                    best = r;
            }
            if (best)
                fprintf(o,
                        "<td class='speedup' data-workload='%s' data-device='%s' data-variant='%s' "
                        "data-speedup='%.9g'>%.3gx <small>%s</small></td>",
                        wl, b->specs[d], best->variant, c->median / best->median,
                        c->median / best->median, best->variant);
            else
                fputs("<td>-</td>", o);
        }
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void box_radius(FILE *o, const book *b) {
    double r_lo = 1e30, r_hi = 0, t_lo = 1e30, t_hi = 0;
    size_t n = 0;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *r = &b->runs[i];
        if (strcmp(r->workload, "boxfilter") || !(r->radius > 0)) continue;
        r_lo = fmin(r_lo, r->radius), r_hi = fmax(r_hi, r->radius);
        t_lo = fmin(t_lo, r->median), t_hi = fmax(t_hi, r->median);
        n++;
    }
    fputs("<h2>Box filter: time against radius</h2>\n", o);
    fprintf(o,
            "<svg id='boxfilter-radius' class='chart' width='%d' height='%d' data-points='%zu'>\n",
            W, H, n);
    if (!n) {
        fprintf(o, "<text x='%d' y='%d'>no box filter results</text></svg>\n", L, H / 2);
        return;
    }
    const axis x = log_axis(r_lo, r_hi * 1.01), y = log_axis(t_lo, t_hi * 1.01);
    svg_axes(o, x, y, "radius", "median ms");
    /* a line per device and variant, points in order of radius */
    size_t k = 0;
    for (size_t i = 0; i < b->nruns; i++) {
        const run *a = &b->runs[i];
        if (strcmp(a->workload, "boxfilter") || !(a->radius > 0)) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(b->runs[j].workload, "boxfilter") && b->runs[j].radius > 0 &&
                   !strcmp(b->runs[j].spec, a->spec) && !strcmp(b->runs[j].variant, a->variant);
        if (seen) continue;
        const char *colour = palette[k % 10];
        fprintf(o, "<text x='%d' y='%zu' fill='%s'>%s %s</text>\n", L + 8, T + 14 + 14 * k, colour,
                a->spec, a->variant);
        k++;
        for (double last = 0;;) { /* the next radius up */
            const run *next = NULL;
            for (size_t j = 0; j < b->nruns; j++) {
                const run *r = &b->runs[j];
                if (!strcmp(r->workload, "boxfilter") && !strcmp(r->spec, a->spec) &&
                    !strcmp(r->variant, a->variant) && r->radius > last &&
                    (!next || r->radius < next->radius))
                    next = r;
            }
            if (!next) break;
            fprintf(
                o,
                "<circle class='point' cx='%.1f' cy='%.1f' r='3.5' fill='%s' data-device='%s' "
                "data-variant='%s' data-radius='%.9g' data-median-ms='%.9g'><title>%s %s radius "
                "%g: %.4g ms</title></circle>\n",
                px_x(x, next->radius), px_y(y, next->median), colour, next->spec, next->variant,
                next->radius, next->median, next->spec, next->variant, next->radius, next->median);
            last = next->radius;
        }
    }
    fputs("</svg>\n", o);
}

static void anchors(FILE *o, const book *b) {
    fputs("<h2>Against the libraries</h2>\n<table id='anchors' class='chart'><tr><th>workload</th>"
          "<th>sizes</th><th>device</th><th>fastest of ours</th><th>ms</th><th>anchor</th><th>ms"
          "</th><th>anchor / ours</th></tr>\n",
          o);
    for (size_t i = 0; i < b->nruns; i++) {
        const run *a = &b->runs[i];
        const char *anchor = co_workload_anchor(a->workload, a->backend);
        if (!anchor || strcmp(a->variant, anchor)) continue;
        const run *best = NULL;
        for (size_t j = 0; j < b->nruns; j++) {
            const run *r = &b->runs[j];
            if (!strcmp(r->workload, a->workload) && !strcmp(r->spec, a->spec) &&
                !strcmp(r->sizes, a->sizes) && strcmp(r->variant, anchor) &&
                (!best || r->median < best->median))
                best = r;
        }
        if (!best) continue;
        fprintf(o,
                "<tr class='anchor' data-workload='%s' data-device='%s' data-ours='%s' "
                "data-ours-ms='%.9g' data-anchor='%s' data-anchor-ms='%.9g'><td>%s</td><td>%s</td>"
                "<td>%s</td><td>%s</td><td>%.4g</td><td>%s</td><td>%.4g</td><td>%.3gx</td></tr>\n",
                a->workload, a->spec, best->variant, best->median, anchor, a->median, a->workload,
                a->sizes, a->spec, best->variant, best->median, anchor, a->median,
                a->median / best->median);
    }
    fputs("</table>\n", o);
}

/* ---- tuning landscapes ---- */

/* A candidate's value of dimension key: a tunable, or "local" (the
 * work-items of the group asked for; with launched, else of the one
 * launched); NaN if it has none. */
static double dim_value(const cJSON *c, const char *key, bool launched) {
    if (strcmp(key, "local"))
        return results_num(cJSON_GetObjectItemCaseSensitive(c, "params"), key);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "local");
    if (!cJSON_IsArray(l) && launched) l = cJSON_GetObjectItemCaseSensitive(c, "used_local");
    if (!cJSON_IsArray(l)) return NAN;
    double n = 1;
    const cJSON *v;
    cJSON_ArrayForEach(v, l) if (cJSON_IsNumber(v) && v->valuedouble > 0) n *= v->valuedouble;
    return n;
}

/* The one dimension the search varied (the work-group as asked for: one
 * that follows from a tile varies with it; candidates a variant refused as
 * invalid, such as a work-group probe, not counted), or NULL: several. */
static const char *main_dimension(const cJSON *cands, char *out, size_t len) {
    const cJSON *first = cJSON_GetArrayItem(cands, 0), *p;
    size_t varied = 0;
    char keys[CO_MAX_KV + 1][32];
    size_t nkeys = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(first, "params")) if (nkeys < CO_MAX_KV)
        snprintf(keys[nkeys++], sizeof keys[0], "%s", p->string);
    snprintf(keys[nkeys++], sizeof keys[0], "local");
    for (size_t k = 0; k < nkeys; k++) {
        const double v0 = dim_value(first, keys[k], false);
        const cJSON *c;
        bool differs = false;
        cJSON_ArrayForEach(c, cands) {
            if (!strcmp(results_str(c, "status"), "invalid")) continue;
            const double v = dim_value(c, keys[k], false);
            differs |= !(v == v0) && !(isnan(v) && isnan(v0));
        }
        if (differs && varied++ == 0) snprintf(out, len, "%s", keys[k]);
    }
    return varied == 1 ? out : NULL;
}

/* x in pixels: linear, or log2 where every value is positive and they span 4x or more. */
typedef struct xaxis {
    double lo, hi;
    bool log;
} xaxis;
static double xpx(xaxis a, double v) {
    const double t =
        a.log ? (log2(v) - log2(a.lo)) / (log2(a.hi) - log2(a.lo)) : (v - a.lo) / (a.hi - a.lo);
    return L + 10 + (W - L - R - 20) * t;
}

static void landscape(FILE *o, const cJSON *t, size_t index) {
    const cJSON *cands = cJSON_GetObjectItemCaseSensitive(t, "candidates"), *c;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(t, "device");
    const double best_idx = results_num(t, "best");
    char dim[32], sizes[256];
    results_sizes_text(t, sizes, sizeof sizes);
    const char *key = main_dimension(cands, dim, sizeof dim);
    double t_lo = INFINITY, t_hi = 0, x_lo = INFINITY, x_hi = -INFINITY;
    size_t i = 0, ok = 0;
    cJSON_ArrayForEach(c, cands) {
        const double x = key ? dim_value(c, key, true) : (double)i;
        const double ms = results_num(c, "median_ms");
        if (isfinite(x)) x_lo = fmin(x_lo, x), x_hi = fmax(x_hi, x);
        if (!strcmp(results_str(c, "status"), "ok") && ms > 0)
            t_lo = fmin(t_lo, ms), t_hi = fmax(t_hi, ms), ok++;
        i++;
    }
    if (!(x_hi > x_lo)) x_lo -= 1, x_hi += 1;
    const xaxis xa = {x_lo, x_hi, x_lo > 0 && x_hi >= 4 * x_lo};
    fprintf(o, "<h3>%s/%s on ", results_str(t, "workload"), results_str(t, "variant"));
    esc(o, results_str(dev, "spec"));
    fprintf(o,
            " (%s): %zu candidates, %.3g%% of a space of %.0f, %s</h3>\n<svg id='tune-%zu' "
            "class='chart tune' width='%d' height='%d' data-workload='%s' data-variant='%s' "
            "data-device='",
            sizes, i, 100 * results_num(t, "covered"), results_num(t, "space"),
            results_str(t, "strategy"), index, W, H, results_str(t, "workload"),
            results_str(t, "variant"));
    esc(o, results_str(dev, "spec"));
    fprintf(o, "' data-sizes='%s' data-axis='%s' data-candidates='%zu' data-best='%.0f' ", sizes,
            key ? key : "index", i, isfinite(best_idx) ? best_idx : -1);
    fprintf(o, "data-best-ms='%.9g' data-default-ms='%.9g'>\n", results_num(t, "best_ms"),
            results_num(t, "default_ms"));
    if (!ok) t_lo = 1, t_hi = 10;
    const axis y = log_axis(t_lo, t_hi * 1.01);
    svg_frame(o, y); /* and x's ticks, at most ~12 */
    const double step = xa.log ? 2 : fmax(1, ceil((x_hi - x_lo) / 12));
    for (double v = xa.log ? exp2(ceil(log2(x_lo))) : ceil(x_lo); v <= x_hi;
         v = xa.log ? v * step : v + step)
        fprintf(o, "<text x='%.1f' y='%d' text-anchor='middle'>%g</text>\n", xpx(xa, v), H - B + 16,
                v);
    svg_labels(o,
               key ? (strcmp(key, "local") ? key : "work-group size (work-items)")
                   : "candidate, in the order run",
               "median ms (failed: x at the top)");
    const double def_ms = results_num(cJSON_GetArrayItem(cands, 0), "median_ms");
    if (def_ms > 0)
        fprintf(o,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#1f77b4' "
                "stroke-dasharray='4 3'/>\n",
                L, px_y(y, def_ms), W - R, px_y(y, def_ms));
    i = 0;
    cJSON_ArrayForEach(c, cands) {
        const double x = key ? dim_value(c, key, true) : (double)i;
        const double ms = results_num(c, "median_ms");
        const char *st = results_str(c, "status");
        const bool good = !strcmp(st, "ok") && ms > 0, is_def = i == 0,
                   is_best = (double)i == best_idx;
        const double px = isfinite(x) ? xpx(xa, x) : L + 4, py = good ? px_y(y, ms) : T + 8;
        fprintf(o, "<g class='cand' data-index='%zu' data-status='%s' data-x='%.9g'", i, st,
                isfinite(x) ? x : -1);
        if (ms > 0) fprintf(o, " data-median-ms='%.9g'", ms);
        fprintf(o, " data-default='%d' data-best='%d'>", is_def, is_best);
        if (good)
            fprintf(o,
                    "<circle cx='%.1f' cy='%.1f' r='%d' fill='%s' stroke='%s' stroke-width='%d'/>",
                    px, py, is_best || is_def ? 6 : 3, is_best ? "#2ca02c" : "#7f7f7f",
                    is_def    ? "#1f77b4"
                    : is_best ? "#000"
                              : "none",
                    is_def ? 3 : 1);
        else
            fprintf(o,
                    "<path d='M%.1f %.1fl6 6m0 -6l-6 6' transform='translate(-3 -3)' "
                    "stroke='#d62728' stroke-width='2'/>",
                    px, py);
        fprintf(o, "<title>#%zu %s", i, st);
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c, "params"))
            fprintf(o, " %s=%g", p->string, p->valuedouble);
        if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(c, "local")))
            fprintf(o, " local=%g", dim_value(c, "local", false));
        if (ms > 0) fprintf(o, ": %.4g ms", ms);
        fprintf(o, "%s%s", is_def ? " (default)" : "", is_best ? " (best)" : "");
        if (!good && results_str(c, "message")[0]) {
            fputs(": ", o);
            esc(o, results_str(c, "message"));
        }
        fputs("</title></g>\n", o);
        i++;
    }
    fputs("</svg>\n", o);
    const double bm = results_num(t, "best_ms"), dm = results_num(t, "default_ms");
    if (bm > 0 && dm > 0)
        fprintf(o,
                "<p>Chosen: %.4g ms against the default's %.4g ms, timed again side by side "
                "(%.3gx).</p>\n",
                bm, dm, dm / bm);
}

static void landscapes(FILE *o, const book *b) {
    if (!b->ntunes) return;
    fputs("<h2>Tuning landscapes</h2>\n<p>Each search's candidates: time against the one "
          "dimension it varied, else against the order run; failed candidates (wrong, over a "
          "limit, refused, stopped) as red crosses at the top; the default ringed in blue (its "
          "time the dashed line), the choice in green.</p>\n",
          o);
    for (size_t i = 0; i < b->ntunes; i++) landscape(o, b->tunes[i], i);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* A PNG or GIF as a data: URI in an <img>; false if unreadable. */
static bool picture(FILE *o, const char *path, size_t index) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "coalesce: cannot read '%s': %s\n", path, strerror(errno));
        return false;
    }
    unsigned char head[8] = {0};
    const size_t got = fread(head, 1, 8, f);
    const bool png = got == 8 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8);
    const bool gif = got >= 6 && (!memcmp(head, "GIF89a", 6) || !memcmp(head, "GIF87a", 6));
    if (!png && !gif) {
        fclose(f);
        fprintf(stderr, "coalesce: '%s' is neither a PNG nor a GIF\n", path);
        return false;
    }
    rewind(f);
    const char *base = strrchr(path, '/');
    fprintf(o, "<figure><img id='picture-%zu' alt='", index);
    esc(o, base ? base + 1 : path);
    fprintf(o, "' src='data:image/%s;base64,", png ? "png" : "gif");
    unsigned char in[3];
    size_t n;
    while ((n = fread(in, 1, 3, f)) > 0) {
        if (n < 3) memset(in + n, 0, 3 - n);
        const unsigned v = (unsigned)in[0] << 16 | (unsigned)in[1] << 8 | in[2];
        fputc(b64[v >> 18 & 63], o);
        fputc(b64[v >> 12 & 63], o);
        fputc(n > 1 ? b64[v >> 6 & 63] : '=', o);
        fputc(n > 2 ? b64[v & 63] : '=', o);
    }
    fclose(f);
    fputs("'><figcaption>", o);
    esc(o, base ? base + 1 : path);
    fputs("</figcaption></figure>\n", o);
    return true;
}

/* Whether paths a and b name one existing file. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int report_usage(const char *msg, const char *arg) {
    fprintf(stderr, "coalesce: %s%s%s (see 'coalesce report --help')\n", msg, arg ? ": " : "",
            arg ? arg : "");
    return 2;
}

int coalesce_report(int argc, char **argv) {
    const char *files[MAX_FILES], *images[MAX_IMAGES], *out = NULL;
    size_t nf = 0, ni = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return coalesce_help("report");
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc) return report_usage("-o needs a FILE (the HTML page)", NULL);
            out = argv[++i];
        } else if (!strcmp(argv[i], "--image")) {
            if (i + 1 >= argc) return report_usage("--image needs a PNG or GIF file", NULL);
            if (ni == MAX_IMAGES) return report_usage("too many --image (at most 16)", NULL);
            images[ni++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return report_usage("unknown option: report takes FILE.json..., -o FILE and --image "
                                "PNG",
                                argv[i]);
        } else if (nf == MAX_FILES) {
            return report_usage("too many result files (at most 64)", NULL);
        } else {
            files[nf++] = argv[i];
        }
    }
    if (!nf) return report_usage("report needs at least one result file (FILE.json)", NULL);
    if (!out) return report_usage("report needs -o REPORT.html", NULL);
    for (size_t i = 0; i < nf + ni; i++)
        if (same_file(out, i < nf ? files[i] : images[i - nf]))
            return report_usage("-o would write over one of the report's inputs", out);
    cJSON *docs[MAX_FILES];
    book b = {0};
    for (size_t i = 0; i < nf; i++) {
        docs[i] = results_load(files[i]);
        if (!docs[i] || !collect(&b, docs[i])) {
            for (size_t j = 0; j <= i; j++) cJSON_Delete(docs[j]);
            free(b.runs);
            return 1;
        }
    }
    co_outfile file;
    if (co_outfile_open(&file, out)) {
        fprintf(stderr, "coalesce: %s\n", co_last_error());
        for (size_t j = 0; j < nf; j++) cJSON_Delete(docs[j]);
        free(b.runs);
        return 1;
    }
    FILE *o = file.f;
    fputs(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>coalesce report"
        "</title>\n<style>body{font:14px sans-serif;margin:24px;max-width:1100px;color:#222}"
        "svg{font:11px sans-serif;background:#fafafa;margin:6px 0}table{border-collapse:collapse;"
        "margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
        "th{background:#eee}h2{border-bottom:2px solid #444;margin-top:32px}figure{display:inline-"
        "block;margin:8px}img{max-width:520px;border:1px solid #ccc}</style></head>\n<body>\n"
        "<h1>coalesce report</h1>\n<p>From ",
        o);
    for (size_t i = 0; i < nf; i++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(docs[i], "meta");
        fputs(i ? "; " : "", o);
        esc(o, files[i]);
        fprintf(o, " (%s, %s, coalesce %s", results_str(docs[i], "command"), results_str(m, "date"),
                results_str(m, "coalesce"));
        if (results_str(m, "commit")[0]) fprintf(o, " %s", results_str(m, "commit"));
        fputs(", host ", o);
        esc(o, results_str(m, "host"));
        fputs(")", o);
    }
    fprintf(o, ": %zu results on %zu devices.</p>\n", b.nruns, b.nspecs);
    for (size_t d = 0; d < b.nspecs; d++) {
        char id[48];
        id_of(b.specs[d], id, sizeof id);
        fprintf(o, "<section id='device-%s'><h2>", id);
        esc(o, b.specs[d]);
        fputs(": ", o);
        esc(o, b.names[d]);
        fputs("</h2>\n", o);
        roofline(o, &b, b.specs[d]);
        for (size_t l = 0; l < sizeof ladders / sizeof ladders[0]; l++)
            ladder(o, &b, b.specs[d], l);
        fputs("</section>\n", o);
    }
    speedups(o, &b);
    box_radius(o, &b);
    anchors(o, &b);
    landscapes(o, &b);
    fputs("<h2>Pictures</h2>\n<div id='pictures'>\n", o);
    bool pics = true;
    for (size_t i = 0; i < ni; i++) pics &= picture(o, images[i], i);
    if (!ni) fputs("<p>none given (coalesce report --image PNG)</p>\n", o);
    /* The page checks itself: every chart has its figures (the test reads data-charts). */
    fputs("</div>\n<script>\ndocument.body.dataset.charts = "
          "document.querySelectorAll('.chart').length;\n</script>\n</body></html>\n",
          o);
    for (size_t j = 0; j < nf; j++) cJSON_Delete(docs[j]);
    free(b.runs);
    if (!pics) { /* (picture said why) */
        co_outfile_discard(&file);
        return 1;
    }
    if (co_outfile_close(&file)) {
        fprintf(stderr, "coalesce: %s\n", co_last_error());
        return 1;
    }
    return 0;
}
