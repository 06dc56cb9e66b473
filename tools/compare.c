/* coalesce compare A.json B.json: the results two files share, matched by
 * workload, variant, device and sizes, with B's median time over A's. A
 * change counts where it is beyond both runs' own spread: each result's
 * (median - min) / median, summed, and at least --threshold. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "tools.h"

/* A document read from a file (NULL with one line on stderr). */
cJSON *results_load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "coalesce: cannot read '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(text, cap *= 2);
            if (!grown) free(text);
            text = grown;
        }
    }
    fclose(f);
    if (!text) {
        fprintf(stderr, "coalesce: out of memory reading '%s'\n", path);
        return NULL;
    }
    text[n] = 0;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "results")) ||
        !cJSON_IsNumber(schema)) {
        fprintf(stderr,
                "coalesce: '%s' is not a coalesce result file (JSON with \"schema\" and "
                "\"results\": docs/results-format.md)\n",
                path);
        cJSON_Delete(doc);
        return NULL;
    }
    if (schema->valuedouble != RESULTS_SCHEMA) {
        fprintf(stderr, "coalesce: '%s' has schema %g; this coalesce reads schema %d\n", path,
                schema->valuedouble, RESULTS_SCHEMA);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

const char *results_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

double results_num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* "m=64 n=64 k=64": a result's sizes as text. */
void results_sizes_text(const cJSON *result, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(result, "sizes")) {
        if (used >= len) break;
        if (cJSON_IsNumber(s))
            used += (size_t)snprintf(out + used, len - used, "%s%s=%.15g", used ? " " : "",
                                     s->string, s->valuedouble);
        else
            used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? " " : "", s->string,
                                     cJSON_IsString(s) ? s->valuestring : "?");
    }
}

/* What a result is matched by: workload, variant, device spec, sizes. */
static void key_of(const cJSON *r, char *out, size_t len) {
    char sizes[512];
    results_sizes_text(r, sizes, sizeof sizes);
    snprintf(out, len, "%s|%s|%s|%s", results_str(r, "workload"), results_str(r, "variant"),
             results_str(cJSON_GetObjectItemCaseSensitive(r, "device"), "spec"), sizes);
}

static bool timed(const cJSON *r, double *median, double *spread) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "times_ms");
    const double m = results_num(t, "median"), mn = results_num(t, "min");
    if (strcmp(results_str(r, "kind"), "run") || !(m > 0)) return false;
    *median = m;
    *spread = mn > 0 && mn <= m ? (m - mn) / m : 0;
    return true;
}

int coalesce_compare(int argc, char **argv) {
    const char *files[2] = {NULL, NULL};
    size_t nf = 0;
    bool json = false;
    double threshold = 0.02;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            return coalesce_help("compare");
        }
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--threshold")) {
            char *end = NULL;
            threshold = i + 1 < argc ? strtod(argv[++i], &end) : NAN;
            if (!end || *end || !(threshold >= 0 && threshold < 10)) {
                fprintf(stderr,
                        "coalesce: --threshold must be a number in [0, 10), got '%s' "
                        "(see 'coalesce compare --help')\n",
                        i < argc ? argv[i] : "");
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr,
                    "coalesce: unknown option '%s': compare takes --json and --threshold "
                    "F (see 'coalesce compare --help')\n",
                    argv[i]);
            return 2;
        } else if (nf == 2) {
            fprintf(stderr, "coalesce: compare takes two files, got a third: '%s'\n", argv[i]);
            return 2;
        } else {
            files[nf++] = argv[i];
        }
    }
    if (nf != 2) {
        fprintf(stderr,
                "coalesce: compare takes two result files (A.json B.json), got %zu "
                "(see 'coalesce compare --help')\n",
                nf);
        return 2;
    }
    cJSON *a = results_load(files[0]), *b = a ? results_load(files[1]) : NULL;
    if (!a || !b) {
        cJSON_Delete(a);
        return 1;
    }
    cJSON *doc = results_doc("compare", results_meta(NULL, NULL, 0));
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "meta");
    cJSON_AddStringToObject(meta, "a", files[0]);
    cJSON_AddStringToObject(meta, "b", files[1]);
    cJSON_AddItemToObject(meta, "a_meta",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(a, "meta"), 1));
    cJSON_AddItemToObject(meta, "b_meta",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(b, "meta"), 1));
    size_t matched = 0, changed = 0, only_a = 0, only_b = 0;
    if (!json)
        printf("%-9s %-24s %-9s %-11s %11s %11s %7s %7s  %s\n", "workload", "sizes", "device",
               "variant", "A ms", "B ms", "B/A", "spread", "change");
    const cJSON *ra, *rb;
    cJSON_ArrayForEach(ra, results_array(a)) {
        double ma, sa;
        if (!timed(ra, &ma, &sa)) continue;
        char ka[1024], kb[1024];
        key_of(ra, ka, sizeof ka);
        bool found = false;
        cJSON_ArrayForEach(rb, results_array(b)) {
            double mb, sb;
            if (!timed(rb, &mb, &sb)) continue;
            key_of(rb, kb, sizeof kb);
            if (strcmp(ka, kb)) continue;
            found = true;
            matched++;
            const double ratio = mb / ma, spread = fmax(threshold, sa + sb);
            const char *change = ratio > 1 + spread         ? "slower"
                                 : ratio < 1 / (1 + spread) ? "faster"
                                                            : "same";
            changed += strcmp(change, "same") != 0;
            char sizes[512];
            results_sizes_text(ra, sizes, sizeof sizes);
            const char *spec = results_str(cJSON_GetObjectItemCaseSensitive(ra, "device"), "spec");
            if (!json) {
                printf("%-9s %-24s %-9s %-11s %11.4f %11.4f %6.3fx %6.1f%%  %s\n",
                       results_str(ra, "workload"), sizes, spec, results_str(ra, "variant"), ma, mb,
                       ratio, 100 * spread, strcmp(change, "same") ? change : "-");
                break;
            }
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "kind", "compare");
            cJSON_AddStringToObject(o, "workload", results_str(ra, "workload"));
            cJSON_AddStringToObject(o, "variant", results_str(ra, "variant"));
            cJSON_AddItemToObject(
                o, "device", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ra, "device"), 1));
            cJSON_AddItemToObject(
                o, "sizes", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ra, "sizes"), 1));
            cJSON_AddNumberToObject(o, "a_median_ms", ma);
            cJSON_AddNumberToObject(o, "b_median_ms", mb);
            cJSON_AddNumberToObject(o, "a_spread", sa);
            cJSON_AddNumberToObject(o, "b_spread", sb);
            cJSON_AddNumberToObject(o, "ratio", ratio);
            cJSON_AddNumberToObject(o, "threshold", spread);
            cJSON_AddStringToObject(o, "change", change);
            cJSON_AddItemToArray(results_array(doc), o);
            break;
        }
        only_a += !found;
    }
    cJSON_ArrayForEach(rb, results_array(b)) {
        double mb, sb;
        only_b += timed(rb, &mb, &sb);
    }
    only_b -= matched < only_b ? matched : only_b;
    if (json) {
        cJSON_AddNumberToObject(meta, "matched", (double)matched);
        cJSON_AddNumberToObject(meta, "only_a", (double)only_a);
        cJSON_AddNumberToObject(meta, "only_b", (double)only_b);
        results_print(stdout, doc);
    } else {
        printf("%zu matched, %zu changed beyond their spread; %zu only in %s, %zu only in %s\n",
               matched, changed, only_a, files[0], only_b, files[1]);
    }
    cJSON_Delete(doc);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return 0;
}
