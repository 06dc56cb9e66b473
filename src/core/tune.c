/* Tuning: a search over a variant's tunables and work-group shape, and the
 * tuning database (tune.json in the cache directory) that co_run reads.
 *
 * The space is made from the parameter tables alone (co_param_def: range,
 * pow2, default), never from names: each tunable's values are every
 * integer of a small range, else the powers of two within it with its
 * bounds, and always its default (a default of 0 meaning "auto" included).
 * A variant takes a work-group shape when its default launched one and a
 * different shape is not refused (variants whose group follows from a
 * tunable refuse --local with CO_ERR_INVALID): then the shapes are the
 * powers of two (1D) or their pairs (2D) within the device's limits, and
 * "the variant's choice" (zeros), the default.
 *
 * All candidates run on one prepared problem (co_session: inputs and the
 * reference made once), so a candidate costs its own runs only. The default
 * runs first, then the database's earlier choice for the same key (so that a
 * short search never replaces a better one found by a longer), then the
 * search; the winner must beat the default timed again beside it. */
#include <cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/jsonfile.h"
#include "core/workload.h"

#define DEFAULT_BUDGET_S 60.0
#define MAX_VALUES 64   /* values of one axis */
#define SMALL_RANGE 17  /* a range of at most this many integers: all of them */
#define SLOW_FACTOR 3.0 /* a candidate past this many times the best's time is stopped */
#define SLOW_GRACE_MS 500.0
#define DUPES_MAX 400 /* draws in a row that found nothing new: the space is exhausted */

#define DB_TAG "coalesce_tune"
#define DB_VERSION 1
#define DB_ARRAY "entries"

/* ---- the size class and the device's identity ---- */

/* "k=512 m=512 n=512": each integer size of 64 or more rounded to the
 * nearest power of two (in log scale), and where it is not a multiple of 16
 * the largest power of two it is a multiple of after a slash ("n=4096/1"
 * for 4095: kernels take other paths where rows are not whole vectors, and a
 * choice tuned there lost at 4096^2, 2026-12-02-h200-p.md); smaller sizes
 * and words as they are; sorted by name, so the order a workload reports
 * them in does not matter. */
static void size_class(const co_problem *p, char *out, size_t len) {
    size_t order[CO_MAX_KV];
    for (size_t i = 0; i < p->nsizes; i++) order[i] = i;
    for (size_t i = 1; i < p->nsizes; i++) /* insertion sort: a handful */
        for (size_t j = i;
             j > 0 && strcmp(p->sizes[order[j - 1]].name, p->sizes[order[j]].name) > 0; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    size_t used = 0;
    out[0] = 0;
    for (size_t k = 0; k < p->nsizes && used < len; k++) {
        const char *name = p->sizes[order[k]].name, *v = p->sizes[order[k]].value;
        char *end;
        double x = strtod(v, &end);
        char value[64];
        if (*v && !*end && x >= 64 && x == floor(x) && x < 0x1p53) {
            const unsigned long long u = (unsigned long long)x, align = u & (~u + 1);
            if (align >= 16)
                snprintf(value, sizeof value, "%.0f", exp2(round(log2(x))));
            else
                snprintf(value, sizeof value, "%.0f/%llu", exp2(round(log2(x))), align);
        } else
            snprintf(value, sizeof value, "%s", v);
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", k ? " " : "", name, value);
    }
}

static void sizes_text(const co_problem *p, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < p->nsizes && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s=%s", i ? " " : "", p->sizes[i].name,
                                 p->sizes[i].value);
}

static const char *string_of(const cJSON *e, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double number_of(const cJSON *e, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : 0;
}

/* The fields that make an entry's key: same values, same entry. */
static const char *const key_fields[] = {"backend",  "device_name", "driver",
                                         "workload", "variant",     "size_class"};
#define NKEYS (sizeof key_fields / sizeof key_fields[0])

/* An entry a reader can use: every key field a string, params an object of
 * numbers, local an array of three. */
static bool entry_valid(const cJSON *e) {
    if (!cJSON_IsObject(e)) return false;
    for (size_t i = 0; i < NKEYS; i++)
        if (!string_of(e, key_fields[i])) return false;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(e, "params"), *v;
    if (!cJSON_IsObject(params)) return false;
    cJSON_ArrayForEach(v, params) if (!cJSON_IsNumber(v)) return false;
    const cJSON *local = cJSON_GetObjectItemCaseSensitive(e, "local");
    if (!cJSON_IsArray(local) || cJSON_GetArraySize(local) != 3) return false;
    cJSON_ArrayForEach(v, local) if (!cJSON_IsNumber(v) || v->valuedouble < 0) return false;
    return true;
}

/* Whether a valid entry (entry_valid) can be applied here, else why: its
 * workload and variant exist, it sets only their tunables, each a whole
 * number in its range, and its work-group is a size (0: the default). */
static bool entry_usable(const cJSON *e, char *why, size_t len) {
    const char *wname = string_of(e, "workload"), *vname = string_of(e, "variant");
    const co_workload *wl = co_workload_find(wname);
    const co_variant *var = wl ? co_variant_find(wl, vname) : NULL;
    if (!var) {
        snprintf(why, len, "%s/%s: no such workload and variant here", wname, vname);
        return false;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(e, "params")) {
        const co_param_def *d = NULL;
        for (size_t i = 0; i < var->nparams; i++)
            if (!strcmp(var->params[i].name, v->string)) d = &var->params[i];
        const double x = v->valuedouble;
        if (!d)
            snprintf(why, len, "%s/%s takes no tunable %s", wname, vname, v->string);
        else if (x != floor(x) || x < (double)d->min || x > (double)d->max)
            snprintf(why, len, "%s/%s: %s=%g is out of range [%ld, %ld]", wname, vname, d->name, x,
                     d->min, d->max);
        else if (d->pow2 && ((long)x & ((long)x - 1)))
            snprintf(why, len, "%s/%s: %s=%g is not a power of two", wname, vname, d->name, x);
        else
            continue;
        return false;
    }
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(e, "local")) {
        if (v->valuedouble != floor(v->valuedouble) || v->valuedouble > 65536) {
            snprintf(why, len, "%s/%s: local %g is not a work-group size", wname, vname,
                     v->valuedouble);
            return false;
        }
    }
    return true;
}

static bool same_key(const cJSON *a, const cJSON *b) {
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(string_of(a, key_fields[i]), string_of(b, key_fields[i]))) return false;
    return true;
}

static bool matches(const cJSON *e, const co_device *dev, const char *workload, const char *variant,
                    const char *cls) {
    const char *want[NKEYS] = {dev->info.backend, dev->info.name, dev->info.driver_version,
                               workload,          variant,        cls};
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(string_of(e, key_fields[i]), want[i])) return false;
    return true;
}

co_status co_tune_db_path(char *out, size_t len) {
    if (!out || !len)
        return co_fail(CO_ERR_INVALID, "co_tune_db_path: %s",
                       out ? "the length is 0" : "the output is NULL");
    return co_cache_path("tune.json", out, len);
}

/* The database's valid entries (an array, never NULL unless out of
 * memory); why: a file that is not one. */
static cJSON *db_read(const char *path, char *why, size_t len) {
    cJSON *entries = co_json_file_read(path, DB_TAG, DB_ARRAY, why, len);
    cJSON *valid = cJSON_CreateArray(), *e;
    while (entries && (e = cJSON_DetachItemFromArray(entries, 0))) {
        if (entry_valid(e))
            cJSON_AddItemToArray(valid, e);
        else
            cJSON_Delete(e);
    }
    cJSON_Delete(entries);
    return valid;
}

/* The database as last read, kept while its file is the same (path, inode,
 * size, modification time: a write renames a new file in), so that a
 * library call looks it up with a stat, not a parse. */
static struct {
    pthread_mutex_t lock;
    char path[1024];
    struct stat st;
    cJSON *entries; /* NULL: none read */
} db_cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool same_file(const struct stat *a, const struct stat *b) {
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

bool co_tune_lookup(const co_device *dev, const co_workload *wl, const co_variant *var,
                    const co_problem *p, long *params, bool *have, size_t local[3]) {
    char path[1024], why[200], cls[256];
    for (size_t i = 0; i < var->nparams; i++) have[i] = false;
    local[0] = local[1] = local[2] = 0;
    struct stat st;
    if (co_tune_db_path(path, sizeof path) || stat(path, &st)) return false; /* no database */
    pthread_mutex_lock(&db_cache.lock);
    if (!db_cache.entries || strcmp(db_cache.path, path) || !same_file(&db_cache.st, &st)) {
        cJSON_Delete(db_cache.entries);
        db_cache.entries = db_read(path, why, sizeof why);
        snprintf(db_cache.path, sizeof db_cache.path, "%s", path);
        db_cache.st = st;
    }
    const cJSON *entries = db_cache.entries, *e, *found = NULL;
    size_class(p, cls, sizeof cls);
    cJSON_ArrayForEach(e, entries) if (matches(e, dev, wl->name, var->name, cls)) found = e;
    bool any = false;
    if (found) {
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(found, "params");
        for (size_t i = 0; i < var->nparams; i++) {
            const co_param_def *d = &var->params[i];
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(ps, d->name);
            if (!v) continue;
            const double x = v->valuedouble;
            const long l = (long)x;
            /* A table changed since (issue 27 drops tunables): only what it still allows. */
            if (x != floor(x) || x < d->min || x > d->max || (d->pow2 && (l & (l - 1)))) continue;
            params[i] = l;
            have[i] = any = true;
        }
        const cJSON *lv = cJSON_GetObjectItemCaseSensitive(found, "local");
        for (int d = 0; d < 3; d++) local[d] = (size_t)cJSON_GetArrayItem(lv, d)->valuedouble;
        any |= local[0] > 0;
    }
    pthread_mutex_unlock(&db_cache.lock);
    return any;
}

/* ---- the space ---- */

typedef struct axis {
    int param; /* index into the variant's tunables; -1: the work-group */
    size_t n;
    long values[MAX_VALUES]; /* tunables */
    size_t shapes[MAX_VALUES][3];
} axis;

static void add_value(axis *a, long v) {
    for (size_t i = 0; i < a->n; i++)
        if (a->values[i] == v) return;
    if (a->n < MAX_VALUES) a->values[a->n++] = v;
}

static int cmp_long(const void *x, const void *y) {
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* A tunable's values from its table: see the head of the file. */
static void values_from_range(const co_param_def *d, long def, axis *a) {
    if (!d->pow2 && d->max - d->min + 1 <= SMALL_RANGE) {
        for (long v = d->min; v <= d->max; v++) add_value(a, v);
    } else {
        if (!d->pow2 || d->min == 0) add_value(a, d->min);
        for (long v = 1; v <= d->max && v > 0; v *= 2)
            if (v >= d->min) add_value(a, v);
        if (!d->pow2) add_value(a, d->max);
    }
    add_value(a, def);
    qsort(a->values, a->n, sizeof a->values[0], cmp_long);
}

/* "8,16,32" for tunable d: each an integer within its range (a power of
 * two where it must be). */
static co_status values_from_list(const co_param_def *d, const char *list, axis *a) {
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ','))
            return co_fail(CO_ERR_INVALID,
                           "values of %s must be integers separated by commas, "
                           "got '%s'",
                           d->name, list);
        if (v < d->min || v > d->max || (d->pow2 && (v & (v - 1))))
            return co_fail(CO_ERR_INVALID, "value %ld of %s is not allowed: [%ld, %ld]%s (%s)", v,
                           d->name, d->min, d->max, d->pow2 ? ", a power of two" : "", d->help);
        add_value(a, v);
        p = *end ? end + 1 : end;
    }
    if (!a->n) return co_fail(CO_ERR_INVALID, "no values given for %s", d->name);
    return CO_OK;
}

static void add_shape(axis *a, size_t x, size_t y) {
    for (size_t i = 0; i < a->n; i++)
        if (a->shapes[i][0] == x && a->shapes[i][1] == y) return;
    if (a->n < MAX_VALUES) {
        a->shapes[a->n][0] = x, a->shapes[a->n][1] = y, a->shapes[a->n][2] = 0;
        a->n++;
    }
}

/* "64,128" or "8x8,16x16": work-group shapes; a single number is a count
 * of work-items, for a 2D variant as square a shape as it makes (32: 8x4). */
static co_status shapes_from_list(const char *list, unsigned dims, axis *a) {
    for (const char *p = list; *p;) {
        char *end;
        unsigned long x = strtoul(p, &end, 10), y = 0;
        bool bad = end == p || !x || *p == '-';
        if (!bad && *end == 'x') { /* "8x" and "8x0" are not shapes */
            const char *second = end + 1;
            y = strtoul(second, &end, 10);
            bad = end == second || !y || *second == '-';
        }
        if (bad || (*end && *end != ',') || x > (1u << 20) || y > (1u << 20))
            return co_fail(CO_ERR_INVALID,
                           "work-group shapes must be X or XxY separated by "
                           "commas, got '%s'",
                           list);
        if (!y && dims == 2) {
            unsigned long n = x;
            x = 1;
            while (x * x < n) x *= 2;
            y = n / x ? n / x : 1;
        }
        add_shape(a, x, y);
        p = *end ? end + 1 : end;
    }
    return CO_OK;
}

/* Shapes within the device's limits: powers of two, 1D, or 2D pairs of at
 * least 4 work-items. [0] is the variant's choice. */
static void shapes_from_device(const co_device_info *info, unsigned dims, axis *a) {
    const size_t max = info->max_work_group_size ? info->max_work_group_size : 1024;
    const size_t mx = info->max_work_item_sizes[0] ? info->max_work_item_sizes[0] : max;
    const size_t my = info->max_work_item_sizes[1] ? info->max_work_item_sizes[1] : max;
    for (size_t x = 1; x <= max && x <= mx; x *= 2) {
        if (dims == 1) {
            if (x >= 4) add_shape(a, x, 0);
            continue;
        }
        for (size_t y = 1; x * y <= max && y <= my; y *= 2)
            if (x * y >= 4 && (x * y >= 16 || x == y)) add_shape(a, x, y);
    }
}

/* ---- the search ---- */

typedef struct tuner {
    co_context *ctx;
    const co_tune_config *cfg;
    co_session *session;
    const co_variant *var;
    co_tune_result *r;
    size_t cap;
    axis *axes;
    size_t naxes;
    int shape_axis;                /* index in axes, -1 none */
    size_t def[CO_MAX_PARAMS + 1]; /* the default's coordinates */
    double space;
    double t0, deadline, budget_ms;
    double per_candidate_ms; /* the default's time: what one costs, about */
    double planned;
    long best;            /* index of the fastest verified candidate */
    double best_elapsed;  /* its run's time, for stopping slow ones */
    double started;       /* when the candidate running began */
    double timed_from;    /* when its second run began (0: not yet) */
    double longest;       /* the longest candidate so far (a compile cannot be cut short) */
    const char *stop_why; /* why the running candidate was stopped */
    bool user_stop;
    bool retiming;  /* the side-by-side runs, the database's choice: never cut short */
    size_t outside; /* candidates run that are not in the final space (the probe) */
    /* candidates run, by hash of coordinates: open addressing */
    uint64_t *seen;
    size_t seen_cap, seen_n;
    co_rng rng;
} tuner;

static uint64_t coords_hash(const tuner *t, const size_t *c) {
    uint64_t h = co_hash(CO_HASH_SEED, c, t->naxes * sizeof *c);
    return h ? h : 1;
}

/* Whether coordinates c were run; marks them so. */
static bool seen_before(tuner *t, const size_t *c) {
    if (2 * (t->seen_n + 1) > t->seen_cap) {
        size_t cap = t->seen_cap ? 2 * t->seen_cap : 1024;
        uint64_t *grown = calloc(cap, sizeof *grown);
        if (!grown) return true; /* out of memory: treat as seen, the search ends */
        for (size_t i = 0; i < t->seen_cap; i++)
            if (t->seen[i]) {
                size_t j = t->seen[i] & (cap - 1);
                while (grown[j]) j = (j + 1) & (cap - 1);
                grown[j] = t->seen[i];
            }
        free(t->seen);
        t->seen = grown, t->seen_cap = cap;
    }
    const uint64_t h = coords_hash(t, c);
    size_t j = h & (t->seen_cap - 1);
    for (; t->seen[j]; j = (j + 1) & (t->seen_cap - 1))
        if (t->seen[j] == h) return true;
    t->seen[j] = h;
    t->seen_n++;
    return false;
}

/* The running candidate's callback: the user's, the budget, and a
 * candidate far slower than the best. */
static bool on_run(const co_progress *p, void *user) {
    tuner *t = user;
    const co_run_config *run = &t->cfg->run;
    if (run->progress && run->progress(p, run->progress_user)) {
        t->user_stop = true;
        t->stop_why = "interrupted";
        return true;
    }
    const double now = co_now_ms();
    if (t->retiming) return false;
    if (t->r->ncandidates > 0 && now > t->deadline) { /* never the default: it is the baseline */
        t->stop_why = "stopped: the budget ran out during it";
        return true;
    }
    /* Slow runs, not a slow compile (the first run builds the kernels). */
    if (p->run >= 2 && !t->timed_from) t->timed_from = now;
    if (t->best >= 0 && t->timed_from &&
        now - t->timed_from > SLOW_FACTOR * t->best_elapsed + SLOW_GRACE_MS) {
        t->stop_why = "stopped: over 3x the time of the best so far";
        return true;
    }
    return false;
}

static co_tune_candidate *new_candidate(tuner *t) {
    if (t->r->ncandidates == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        co_tune_candidate *grown = realloc(t->r->candidates, cap * sizeof *grown);
        if (!grown) return NULL;
        t->r->candidates = grown;
        t->cap = cap;
    }
    co_tune_candidate *c = &t->r->candidates[t->r->ncandidates];
    memset(c, 0, sizeof *c);
    return c;
}

/* The tunables and the work-group of coordinates c. */
static void configuration(const tuner *t, const size_t *c, long *params, size_t local[3]) {
    memcpy(params, co_session_params(t->session), CO_MAX_PARAMS * sizeof *params);
    memcpy(local, co_session_local(t->session), 3 * sizeof *local);
    for (size_t a = 0; a < t->naxes; a++) {
        if (t->axes[a].param >= 0)
            params[t->axes[a].param] = t->axes[a].values[c[a]];
        else
            memcpy(local, t->axes[a].shapes[c[a]], 3 * sizeof *local);
    }
}

/* Run the candidate at coordinates c (a run of the same coordinates is not
 * repeated: false). Its entry is the last of r->candidates. */
static bool run_candidate(tuner *t, const size_t *c) {
    if (seen_before(t, c)) return false;
    co_tune_candidate *cand = new_candidate(t);
    if (!cand) return false;
    long params[CO_MAX_PARAMS];
    size_t local[3];
    configuration(t, c, params, local);
    for (size_t i = 0; i < t->var->nparams && i < CO_MAX_KV; i++) {
        snprintf(cand->params[i].name, sizeof cand->params[i].name, "%s", t->var->params[i].name);
        cand->params[i].value = params[i];
    }
    cand->nparams = t->var->nparams;
    memcpy(cand->local, local, sizeof cand->local);
    cand->is_default = t->r->ncandidates == 0;
    co_result res;
    t->stop_why = NULL;
    t->started = co_now_ms();
    t->timed_from = 0;
    cand->status = co_session_run(t->session, params, local, &res);
    const double took = co_now_ms() - t->started;
    if (took > t->longest) t->longest = took;
    if (cand->status)
        snprintf(cand->message, sizeof cand->message, "%s",
                 cand->status == CO_ERR_INTERRUPTED && t->stop_why ? t->stop_why : co_last_error());
    memcpy(cand->used_local, res.local, sizeof cand->used_local);
    cand->verified = res.verified;
    cand->median_ms = cand->status == CO_OK || cand->status == CO_ERR_VERIFY ? res.median_ms : 0;
    cand->elapsed_ms = co_now_ms() - t->t0;
    t->r->ncandidates++;
    const long i = (long)t->r->ncandidates - 1;
    if (cand->status == CO_OK && cand->verified && cand->median_ms > 0 &&
        (t->best < 0 || cand->median_ms < t->r->candidates[t->best].median_ms)) {
        t->best = i;
        t->best_elapsed = took;
    }
    return true;
}

/* After a candidate: tell the caller; false if it asks to stop. */
static bool report(tuner *t) {
    if (t->user_stop) return false;
    if (!t->cfg->on_candidate) return true;
    const double elapsed = co_now_ms() - t->t0, done = (double)t->r->ncandidates;
    const double left = t->planned > done ? (t->planned - done) * elapsed / done : 0;
    co_tune_progress p = {
        .last = &t->r->candidates[t->r->ncandidates - 1],
        .best = t->best >= 0 ? &t->r->candidates[t->best] : NULL,
        .done = t->r->ncandidates,
        .planned = t->planned,
        .space = t->space,
        .elapsed_ms = elapsed,
        .budget_ms = t->budget_ms,
        .eta_ms = fmin(left, fmax(0, t->deadline - co_now_ms())),
    };
    if (t->cfg->on_candidate(&p, t->cfg->user)) {
        t->user_stop = true;
        return false;
    }
    return true;
}

/* Whether another candidate fits the time left: a kernel's compile cannot
 * be cut short (PoCL takes 25 s for some reg2d shapes), so the longest
 * candidate so far must fit, up to a third of the budget. */
static bool time_left(const tuner *t) {
    const double need = fmax(0.5 * t->per_candidate_ms, fmin(t->longest, t->budget_ms / 3));
    return co_now_ms() + need < t->deadline;
}

static void random_coords(tuner *t, size_t *c) {
    for (size_t a = 0; a < t->naxes; a++) c[a] = (size_t)(co_rng_next(&t->rng) % t->axes[a].n);
}

static double space_size(const tuner *t) {
    double n = 1;
    for (size_t a = 0; a < t->naxes; a++) n *= (double)t->axes[a].n;
    return n;
}

static void search_full(tuner *t) {
    size_t c[CO_MAX_PARAMS + 1] = {0};
    for (;;) {
        if (!time_left(t)) return;
        if (run_candidate(t, c) && !report(t)) return;
        size_t a = 0; /* the next coordinates, mixed radix */
        while (a < t->naxes && ++c[a] == t->axes[a].n) c[a++] = 0;
        if (a == t->naxes) return;
    }
}

static void search_random(tuner *t) {
    size_t c[CO_MAX_PARAMS + 1];
    for (unsigned dupes = 0; dupes < DUPES_MAX && time_left(t);) {
        random_coords(t, c);
        if (!run_candidate(t, c)) {
            dupes++;
            continue;
        }
        dupes = 0;
        if (!report(t)) return;
    }
}

/* The median of the candidate at index i, or infinity if it failed. */
static double time_of(const tuner *t, long i) {
    const co_tune_candidate *c = &t->r->candidates[i];
    return c->status == CO_OK && c->verified && c->median_ms > 0 ? c->median_ms : INFINITY;
}

/* The default's neighbours first: each coordinate, axes in a random order,
 * a step down and a step up (every value of an axis of three or fewer),
 * each improvement kept. A tunable that pays on its own is then tried
 * within the first two candidates an axis (reg2d's PACK at 4097x4095x4093
 * on the H200: 1.26x alone, where 55 annealed steps had found 1.16x,
 * 2026-12-02-h200-p.md). False: the caller asked to stop. */
static bool climb(tuner *t, size_t *cur, double *cur_ms) {
    size_t order[CO_MAX_PARAMS + 1], next[CO_MAX_PARAMS + 1];
    for (size_t a = 0; a < t->naxes; a++) order[a] = a;
    for (size_t a = t->naxes; a > 1; a--) { /* Fisher-Yates */
        const size_t j = (size_t)(co_rng_next(&t->rng) % a), x = order[a - 1];
        order[a - 1] = order[j], order[j] = x;
    }
    for (size_t i = 0; i < t->naxes; i++) {
        const size_t a = order[i], n = t->axes[a].n, at = cur[a];
        for (size_t v = 0; v < n; v++) {
            if (v == at || (n > 3 && v + 1 != at && v != at + 1)) continue;
            if (!time_left(t)) return true;
            memcpy(next, cur, sizeof next);
            next[a] = v;
            if (!run_candidate(t, next)) continue; /* run before */
            const double ms = time_of(t, (long)t->r->ncandidates - 1);
            if (ms < *cur_ms) memcpy(cur, next, sizeof next), *cur_ms = ms;
            if (!report(t)) return false;
        }
    }
    return true;
}

/* Simulated annealing from the default after climb: a step changes one
 * coordinate to a neighbouring value (now and then any value of it, or a
 * random point); a slower one is taken with a probability that falls with
 * the temperature, which falls as the budget is spent. */
static void search_anneal(tuner *t) {
    size_t cur[CO_MAX_PARAMS + 1], next[CO_MAX_PARAMS + 1];
    memcpy(cur, t->def, sizeof cur);
    double cur_ms = time_of(t, 0);
    if (isfinite(cur_ms) && !climb(t, cur, &cur_ms)) return;
    for (unsigned dupes = 0; dupes < DUPES_MAX && time_left(t);) {
        memcpy(next, cur, sizeof next);
        const double u = (double)(co_rng_next(&t->rng) >> 11) / 9007199254740992.0;
        if (u < 0.1 || !isfinite(cur_ms)) {
            random_coords(t, next);
        } else {
            const size_t a = (size_t)(co_rng_next(&t->rng) % t->naxes), n = t->axes[a].n;
            if (n < 2) continue;
            if (u < 0.3)
                next[a] = (size_t)(co_rng_next(&t->rng) % n);
            else if (co_rng_next(&t->rng) & 1)
                next[a] = cur[a] + 1 < n ? cur[a] + 1 : cur[a] - 1;
            else
                next[a] = cur[a] > 0 ? cur[a] - 1 : cur[a] + 1;
        }
        if (!run_candidate(t, next)) {
            if (++dupes % 50 == 0) memcpy(cur, next, sizeof cur); /* wander on */
            continue;
        }
        dupes = 0;
        const double ms = time_of(t, (long)t->r->ncandidates - 1);
        const double spent = fmin(1, (co_now_ms() - t->t0) / t->budget_ms);
        const double temp = 0.1 * (1 - spent) + 0.005;
        const double v = (double)(co_rng_next(&t->rng) >> 11) / 9007199254740992.0;
        if (ms < cur_ms || (isfinite(ms) && v < exp(-(ms / cur_ms - 1) / temp))) {
            memcpy(cur, next, sizeof cur);
            cur_ms = ms;
        }
        if (!report(t)) return;
    }
}

/* Each tunable not held fixed by cfg->run.params: an axis. */
static co_status make_axes(tuner *t) {
    const co_variant *v = t->var;
    const co_tune_config *cfg = t->cfg;
    for (size_t j = 0; j < cfg->nvalues; j++) { /* every list names something searched */
        const char *name = cfg->values[j].name;
        bool known = !strcmp(name, "local");
        for (size_t i = 0; i < v->nparams; i++) known |= !strcmp(v->params[i].name, name);
        if (!known)
            return co_fail(CO_ERR_INVALID, "variant '%s' has no tunable '%s' to tune%s", v->name,
                           name, v->nparams ? "" : " (it has none)");
        for (size_t i = 0; i < cfg->run.nparams; i++)
            if (!strcmp(cfg->run.params[i].name, name))
                return co_fail(CO_ERR_INVALID, "%s is both held fixed and given values to try",
                               name);
    }
    const long *base = co_session_params(t->session);
    for (size_t i = 0; i < v->nparams; i++) {
        bool fixed = false;
        for (size_t j = 0; j < cfg->run.nparams; j++)
            fixed |= !strcmp(cfg->run.params[j].name, v->params[i].name);
        if (fixed) continue;
        axis *a = &t->axes[t->naxes];
        memset(a, 0, sizeof *a);
        a->param = (int)i;
        const char *list = co_opt(cfg->values, cfg->nvalues, v->params[i].name);
        co_status st = list ? values_from_list(&v->params[i], list, a)
                            : (values_from_range(&v->params[i], base[i], a), CO_OK);
        if (st) return st;
        add_value(a, base[i]); /* the default is always a candidate */
        for (size_t k = 0; k < a->n; k++)
            if (a->values[k] == base[i]) t->def[t->naxes] = k;
        t->naxes++;
    }
    /* Value lists given: only those tunables are searched (the presets). */
    if (cfg->nvalues) {
        size_t kept = 0;
        for (size_t a = 0; a < t->naxes; a++)
            if (co_opt(cfg->values, cfg->nvalues, v->params[t->axes[a].param].name)) {
                t->def[kept] = t->def[a];
                t->axes[kept++] = t->axes[a];
            }
        t->naxes = kept;
    }
    return CO_OK;
}

/* Once the default has run: the tunables it never read are not searched
 * (its path does not use them: the box filter's two-pass group where it
 * fuses); they stay at their values, named in r->unread. A default that
 * failed before reading them all drops nothing; a value list keeps its
 * tunable (it was asked for). */
static void drop_unread(tuner *t) {
    const co_tune_candidate *d = &t->r->candidates[0];
    if (d->status != CO_OK && d->status != CO_ERR_VERIFY) return;
    const uint32_t read = co_session_params_read(t->session);
    char *names = t->r->unread;
    size_t kept = 0, len = 0;
    for (size_t a = 0; a < t->naxes; a++) {
        const char *name = t->var->params[t->axes[a].param].name;
        if ((read >> t->axes[a].param & 1) || co_opt(t->cfg->values, t->cfg->nvalues, name)) {
            t->def[kept] = t->def[a];
            t->axes[kept++] = t->axes[a];
        } else if (len < sizeof t->r->unread) {
            len += (size_t)snprintf(names + len, sizeof t->r->unread - len, "%s%s", len ? ", " : "",
                                    name);
        }
    }
    if (kept == t->naxes) return;
    t->naxes = kept;
    seen_before(t, t->def); /* the default, at the coordinates left */
}

/* The work-group axis, once the default has run (its launch says whether
 * the variant takes one and in how many dimensions). */
static void add_shape_axis(tuner *t) {
    const co_tune_config *cfg = t->cfg;
    const co_tune_candidate *d = &t->r->candidates[0];
    const char *list = co_opt(cfg->values, cfg->nvalues, "local");
    if (cfg->nvalues && !list) return; /* a preset of tunables only */
    if (!d->used_local[0]) return;     /* host code, or the default failed */
    axis *a = &t->axes[t->naxes];
    memset(a, 0, sizeof *a);
    a->param = -1;
    add_shape(a, 0, 0); /* the variant's choice: the default */
    const co_device_info *info = &co_session_device(t->session)->info;
    const unsigned dims = d->used_local[1] > 1 ? 2 : 1;
    if (list) {
        if (shapes_from_list(list, dims, a)) return;
    } else {
        shapes_from_device(info, dims, a);
    }
    t->shape_axis = (int)t->naxes;
    t->def[t->naxes++] = 0;
    seen_before(t, t->def); /* the default, run before the axis was known */
}

/* Whether the variant accepts a work-group other than its own: one shape
 * is tried (the first candidate of the axis after the default); refused
 * with CO_ERR_INVALID, the axis is dropped. */
static void probe_shape(tuner *t) {
    if (t->shape_axis < 0 || co_opt(t->cfg->values, t->cfg->nvalues, "local")) return;
    if (co_now_ms() > t->deadline) return; /* the default took the budget: no search, no probe */
    const size_t *used = t->r->candidates[0].used_local;
    axis *a = &t->axes[t->shape_axis];
    size_t c[CO_MAX_PARAMS + 1];
    memcpy(c, t->def, sizeof c);
    for (size_t k = 1; k < a->n; k++) /* half the default's size: within every limit */
        if (a->shapes[k][0] * (a->shapes[k][1] ? a->shapes[k][1] : 1) * 2 ==
            used[0] * (used[1] ? used[1] : 1))
            c[t->shape_axis] = k;
    if (c[t->shape_axis] == 0) c[t->shape_axis] = 1;
    if (a->n < 2 || !run_candidate(t, c)) return;
    const co_tune_candidate *p = &t->r->candidates[t->r->ncandidates - 1];
    report(t);
    if (p->status == CO_ERR_INVALID) {
        t->naxes--;
        t->shape_axis = -1;
        t->outside++; /* not a point of the space searched */
    }
}

/* The database's choice for this device, workload, variant and size class,
 * where there is one and it lies in the space: a candidate right after the
 * default, so that a shorter search than the one that found it never
 * replaces it with something slower. */
static void run_previous(tuner *t) {
    long prev[CO_MAX_PARAMS];
    bool have[CO_MAX_PARAMS];
    size_t local[3];
    const co_problem *p = co_session_problem(t->session);
    if (!co_tune_lookup(co_session_device(t->session), p->wl, t->var, p, prev, have, local)) return;
    size_t c[CO_MAX_PARAMS + 1];
    memcpy(c, t->def, sizeof c);
    for (size_t a = 0; a < t->naxes; a++) {
        const axis *x = &t->axes[a];
        size_t k = 0;
        if (x->param >= 0) {
            if (!have[x->param]) continue;
            while (k < x->n && x->values[k] != prev[x->param]) k++;
        } else {
            while (k < x->n &&
                   (x->shapes[k][0] != local[0] ||
                    (x->shapes[k][1] ? x->shapes[k][1] : 1) != (local[1] ? local[1] : 1)))
                k++;
        }
        if (k == x->n) return; /* outside the space searched now */
        c[a] = k;
    }
    t->retiming = true; /* whatever the budget: it is what a shorter search must beat */
    const bool ran = run_candidate(t, c);
    t->retiming = false;
    if (ran) report(t);
}

/* The best and the default timed again, in turns: the figures the choice
 * is made on. */
static void side_by_side(tuner *t) {
    co_tune_result *r = t->r;
    r->best = 0;
    if (t->best <= 0 || t->user_stop) {
        r->best = time_of(t, 0) < INFINITY ? 0 : -1;
        r->default_ms = r->best_ms = r->best == 0 ? r->candidates[0].median_ms : 0;
        return;
    }
    double d[2] = {0}, b[2] = {0};
    long params[CO_MAX_PARAMS];
    size_t local[3];
    const co_tune_candidate *best = &r->candidates[t->best];
    for (size_t i = 0; i < best->nparams; i++) params[i] = best->params[i].value;
    memcpy(local, best->local, sizeof local);
    co_result res;
    t->retiming = true;
    for (int round = 0; round < 2; round++) {
        co_status st = co_session_run(t->session, NULL, NULL, &res);
        d[round] = st ? INFINITY : res.median_ms;
        if (t->user_stop) return;
        st = co_session_run(t->session, params, local, &res);
        b[round] = st || !res.verified ? INFINITY : res.median_ms;
        if (t->user_stop) return;
    }
    r->default_ms = fmin(d[0], d[1]);
    r->best_ms = fmin(b[0], b[1]);
    if (r->best_ms < r->default_ms) {
        r->best = t->best;
    } else {
        r->best = 0;
        r->best_ms = r->default_ms;
    }
}

/* ---- the database's entry of a result ---- */

static cJSON *make_entry(const co_device *dev, const co_tune_result *r) {
    const co_tune_candidate *c = &r->candidates[r->best];
    cJSON *e = cJSON_CreateObject(), *params = cJSON_CreateObject(), *local = cJSON_CreateArray();
    const char *keys[NKEYS] = {dev->info.backend, dev->info.name, dev->info.driver_version,
                               r->workload,       r->variant,     r->size_class};
    for (size_t i = 0; i < NKEYS; i++) cJSON_AddStringToObject(e, key_fields[i], keys[i]);
    cJSON_AddStringToObject(e, "sizes", r->sizes);
    for (size_t i = 0; i < c->nparams; i++)
        cJSON_AddNumberToObject(params, c->params[i].name, (double)c->params[i].value);
    cJSON_AddItemToObject(e, "params", params);
    for (int d = 0; d < 3; d++)
        cJSON_AddItemToArray(local, cJSON_CreateNumber((double)c->local[d]));
    cJSON_AddItemToObject(e, "local", local);
    cJSON_AddNumberToObject(e, "median_ms", r->best_ms);
    cJSON_AddNumberToObject(e, "default_ms", r->default_ms);
    const long long now = (long long)time(NULL);
    char date[40];
    struct tm tm;
    time_t tt = (time_t)now;
    if (!gmtime_r(&tt, &tm) || !strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm)) date[0] = 0;
    cJSON_AddNumberToObject(e, "tuned_at", (double)now);
    cJSON_AddStringToObject(e, "tuned_at_text", date);
    cJSON_AddStringToObject(e, "strategy", r->strategy);
    cJSON_AddNumberToObject(e, "candidates", (double)r->ncandidates);
    cJSON_AddNumberToObject(e, "space", r->space);
    cJSON_AddNumberToObject(e, "covered", r->covered);
    return e;
}

/* Merge `add` (entries; taken) into the database at path, under its lock:
 * an entry replaces its key's unless that one is newer (only_newer).
 * *taken: how many went in; note: a corrupt file rebuilt. */
static co_status db_merge(const char *path, cJSON *add, bool only_newer, size_t *taken, char *note,
                          size_t note_len) {
    int lock = co_json_file_lock(path);
    if (lock < 0) {
        cJSON_Delete(add);
        return CO_ERR_IO;
    }
    char why[200];
    cJSON *entries = db_read(path, why, sizeof why), *e;
    if (why[0] && note)
        snprintf(note, note_len, "the tuning database %s was %s: rebuilt", path, why);
    size_t n = 0;
    while ((e = cJSON_DetachItemFromArray(add, 0))) {
        cJSON *old = NULL;
        int at = 0, i = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, entries) {
            if (same_key(x, e)) old = (cJSON *)x, at = i;
            i++;
        }
        if (old && only_newer && number_of(old, "tuned_at") > number_of(e, "tuned_at")) {
            cJSON_Delete(e);
            continue;
        }
        if (old)
            cJSON_ReplaceItemInArray(entries, at, e);
        else
            cJSON_AddItemToArray(entries, e);
        n++;
    }
    cJSON_Delete(add);
    co_status st = co_json_file_write(path, DB_TAG, DB_VERSION, DB_ARRAY, entries);
    cJSON_Delete(entries);
    co_json_file_unlock(lock);
    if (taken) *taken = n;
    return st;
}

/* ---- co_tune ---- */

static const char *const strategies[] = {"full", "random", "anneal"};

co_status co_tune(co_context *ctx, const co_tune_config *cfg, co_tune_result **out) {
    if (!out) return co_fail(CO_ERR_INVALID, "co_tune: out is NULL");
    *out = NULL;
    if (!ctx) return co_fail(CO_ERR_INVALID, "co_tune: ctx is NULL");
    if (!cfg) return co_fail(CO_ERR_INVALID, "co_tune: cfg is NULL");
    if (cfg->nvalues && !cfg->values)
        return co_fail(CO_ERR_INVALID, "co_tune: values is NULL with nvalues = %zu", cfg->nvalues);
    for (size_t i = 0; i < cfg->nvalues; i++)
        if (!cfg->values[i].name || !cfg->values[i].value)
            return co_fail(CO_ERR_INVALID, "co_tune: values[%zu] has a NULL name or value", i);
    int strategy = -1; /* auto */
    for (int i = 0; cfg->strategy && i < 3; i++)
        if (!strcmp(cfg->strategy, strategies[i])) strategy = i;
    if (cfg->strategy && strategy < 0)
        return co_fail(CO_ERR_INVALID, "unknown strategy '%s' (use full, random or anneal)",
                       cfg->strategy);
    if (!(cfg->budget_s >= 0) || cfg->budget_s > 1e7)
        return co_fail(CO_ERR_INVALID, "co_tune: budget_s %g is not a number of seconds",
                       cfg->budget_s);
    const char *shapes = co_opt(cfg->values, cfg->nvalues, "local");
    axis check = {0};
    if (shapes && shapes_from_list(shapes, 1, &check)) return CO_ERR_INVALID;
    tuner t = {.ctx = ctx, .cfg = cfg, .best = -1, .shape_axis = -1};
    t.budget_ms = 1e3 * (cfg->budget_s > 0 ? cfg->budget_s : DEFAULT_BUDGET_S);
    t.rng.s = cfg->run.seed ^ 0x7475756e65ull;
    t.t0 = co_now_ms();
    t.deadline = t.t0 + t.budget_ms;
    co_run_config run = cfg->run;
    run.verify = true;
    run.untuned = true; /* the default is the variant's own */
    memset(run.local, 0, sizeof run.local);
    run.progress = on_run;
    run.progress_user = &t;
    co_tune_result *r = calloc(1, sizeof *r);
    axis *axes = calloc(CO_MAX_PARAMS + 1, sizeof *axes);
    if (!r || !axes) {
        free(r);
        free(axes);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    t.r = r, t.axes = axes;
    co_result names = {0};
    co_status st = co_session_open(ctx, &run, &names, &t.session);
    if (st) {
        free(axes);
        free(r);
        return st;
    }
    t.var = co_session_variant(t.session);
    const co_device *dev = co_session_device(t.session);
    const co_problem *p = co_session_problem(t.session);
    snprintf(r->workload, sizeof r->workload, "%s", p->wl->name);
    snprintf(r->variant, sizeof r->variant, "%s", t.var->name);
    snprintf(r->device, sizeof r->device, "%s", dev->info.spec);
    snprintf(r->device_name, sizeof r->device_name, "%s", dev->info.name);
    sizes_text(p, r->sizes, sizeof r->sizes);
    size_class(p, r->size_class, sizeof r->size_class);
    r->budget_ms = t.budget_ms;
    r->best = -1;
    if ((st = make_axes(&t))) goto done;

    t.space = space_size(&t);
    t.planned = 1;
    const double began = co_now_ms(); /* after the problem and its reference */
    run_candidate(&t, t.def);         /* the default: the baseline, whatever the budget */
    t.per_candidate_ms = co_now_ms() - began;
    if (!report(&t)) goto finish;
    drop_unread(&t);
    add_shape_axis(&t);
    probe_shape(&t);
    if (t.user_stop) goto finish;
    run_previous(&t);
    if (t.user_stop) goto finish;
    t.space = space_size(&t);
    /* What fits the budget at the default's pace, less the re-time at the end:
     * at most a third of the budget, since the re-time compiles nothing and on a
     * loaded machine the default's compile alone can take that much. */
    t.deadline = t.t0 + t.budget_ms - fmin(3 * t.per_candidate_ms, t.budget_ms / 3);
    const double fits = fmax(0, (t.deadline - co_now_ms()) / fmax(t.per_candidate_ms, 1));
    if (strategy < 0) strategy = t.space <= fits + (double)(r->ncandidates - t.outside) ? 0 : 2;
    snprintf(r->strategy, sizeof r->strategy, "%s", strategies[strategy]);
    t.planned = strategy == 0 ? t.space : fmin(t.space, (double)r->ncandidates + fits);
    if (t.naxes && t.space > 1) {
        if (strategy == 0)
            search_full(&t);
        else if (strategy == 1)
            search_random(&t);
        else
            search_anneal(&t);
    }
finish:
    r->space = t.space;
    r->covered = t.space > 0 ? fmin(1, (double)(r->ncandidates - t.outside) / t.space) : 0;
    if (!r->strategy[0])
        snprintf(r->strategy, sizeof r->strategy, "%s",
                 strategy >= 0 ? strategies[strategy] : "full");
    side_by_side(&t);
    r->elapsed_ms = co_now_ms() - t.t0;
    if (t.user_stop) {
        r->interrupted = true;
        st = co_fail(CO_ERR_INTERRUPTED, "interrupted: tuning %s/%s on %s after %zu candidates",
                     r->workload, r->variant, r->device, r->ncandidates);
        goto done;
    }
    if (r->best < 0) { /* not even the default ran correctly: its error */
        const co_tune_candidate *d = &r->candidates[0];
        st = co_fail(d->status ? d->status : CO_ERR_VERIFY, "%s",
                     d->message[0] ? d->message : "the default configuration gave a wrong result");
        goto done;
    }
    if (!cfg->no_store) {
        char path[1024];
        if ((st = co_tune_db_path(path, sizeof path))) goto done;
        cJSON *add = cJSON_CreateArray();
        cJSON_AddItemToArray(add, make_entry(dev, r));
        r->stored = db_merge(path, add, false, NULL, r->note, sizeof r->note) == CO_OK;
        if (!r->stored)
            snprintf(r->note, sizeof r->note, "not kept: %.300s", co_last_error());
        else if (!r->note[0])
            snprintf(r->note, sizeof r->note, "kept in %.300s", path);
        st = CO_OK;
    }
done:
    co_session_close(t.session);
    free(t.seen);
    free(axes);
    if (r->ncandidates || st == CO_OK)
        *out = r;
    else
        co_tune_result_free(r);
    return st;
}

void co_tune_result_free(co_tune_result *result) {
    if (!result) return;
    free(result->candidates);
    free(result);
}

/* ---- the database: list, export, import ---- */

static void entry_of(const cJSON *e, co_tune_entry *out) {
    memset(out, 0, sizeof *out);
#define S(field, key)                                                                              \
    snprintf(out->field, sizeof out->field, "%s", string_of(e, key) ? string_of(e, key) : "")
    S(backend, "backend");
    S(device_name, "device_name");
    S(driver, "driver");
    S(workload, "workload");
    S(variant, "variant");
    S(size_class, "size_class");
    S(sizes, "sizes");
    S(strategy, "strategy");
#undef S
    const cJSON *v;
    size_t used = 0;
    cJSON_ArrayForEach(v,
                       cJSON_GetObjectItemCaseSensitive(e, "params")) if (used < sizeof out->params)
        used += (size_t)snprintf(out->params + used, sizeof out->params - used, "%s%s=%.0f",
                                 used ? " " : "", v->string, v->valuedouble);
    const cJSON *local = cJSON_GetObjectItemCaseSensitive(e, "local");
    for (int d = 0; d < 3; d++) out->local[d] = (size_t)cJSON_GetArrayItem(local, d)->valuedouble;
    out->median_ms = number_of(e, "median_ms");
    out->default_ms = number_of(e, "default_ms");
    out->tuned_at = (long long)number_of(e, "tuned_at");
    out->covered = number_of(e, "covered");
}

co_status co_tune_db_list(co_tune_entry **entries, size_t *count, char *warning,
                          size_t warning_len) {
    if (!entries || !count)
        return co_fail(CO_ERR_INVALID, "co_tune_db_list: %s is NULL",
                       !entries ? "entries" : "count");
    *entries = NULL;
    *count = 0;
    if (warning && warning_len) warning[0] = 0;
    char path[1024], why[200];
    co_status st = co_tune_db_path(path, sizeof path);
    if (st) return st;
    cJSON *all = db_read(path, why, sizeof why);
    if (why[0] && warning && warning_len)
        snprintf(warning, warning_len,
                 "the tuning database %s is %s: read as empty, the next "
                 "tune rebuilds it",
                 path, why);
    const size_t n = (size_t)cJSON_GetArraySize(all);
    if (n && !(*entries = calloc(n, sizeof **entries))) {
        cJSON_Delete(all);
        return co_fail(CO_ERR_NOMEM, "out of host memory");
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, all) entry_of(e, &(*entries)[(*count)++]);
    cJSON_Delete(all);
    return CO_OK;
}

void co_tune_db_free(co_tune_entry *entries) { free(entries); }

co_status co_tune_db_export(const char *file, size_t *count) {
    if (!file || !*file)
        return co_fail(CO_ERR_INVALID, "co_tune_db_export: file is %s", file ? "empty" : "NULL");
    char path[1024], why[200];
    co_status st = co_tune_db_path(path, sizeof path);
    if (st) return st;
    cJSON *all = db_read(path, why, sizeof why);
    st = co_json_file_write(file, DB_TAG, DB_VERSION, DB_ARRAY, all);
    if (count) *count = (size_t)cJSON_GetArraySize(all);
    cJSON_Delete(all);
    return st;
}

co_status co_tune_db_import(const char *file, size_t *count) {
    if (!file || !*file)
        return co_fail(CO_ERR_INVALID, "co_tune_db_import: file is %s", file ? "empty" : "NULL");
    char why[200], path[1024];
    cJSON *add = co_json_file_read(file, DB_TAG, DB_ARRAY, why, sizeof why);
    if (!add) {
        if (!why[0]) return co_fail(CO_ERR_IO, "cannot read %s: no such file", file);
        return co_fail(CO_ERR_IO, "cannot import %s: it is %s", file, why);
    }
    /* An entry that cannot be applied stops the import (nothing imported):
     * it would fail or be ignored at every later run. */
    cJSON *valid = cJSON_CreateArray(), *e;
    for (int at = 1; (e = cJSON_DetachItemFromArray(add, 0)); at++) {
        if (!entry_valid(e)) {
            cJSON_Delete(e);
            continue;
        }
        char bad[256];
        if (!entry_usable(e, bad, sizeof bad)) {
            cJSON_Delete(e);
            cJSON_Delete(add);
            cJSON_Delete(valid);
            return co_fail(CO_ERR_IO, "cannot import %s: entry %d, %s; nothing imported", file, at,
                           bad);
        }
        cJSON_AddItemToArray(valid, e);
    }
    cJSON_Delete(add);
    co_status st = co_tune_db_path(path, sizeof path);
    if (st) {
        cJSON_Delete(valid);
        return st;
    }
    return db_merge(path, valid, true, count, NULL, 0);
}
