/* Small shared pieces: seeded random numbers, the clock, option parsing,
 * a problem's host arrays. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/workload.h"

/* The work-item a kernel included as host C runs (kernels/dialect.h). */
_Thread_local size_t co_host_id[3];

/* splitmix64: tiny, fast, and every seed gives a good stream. */
uint64_t co_rng_next(co_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float co_rng_float(co_rng *r, float lo, float hi) {
    for (;;) {
        float u = (float)(co_rng_next(r) >> 40) * (1.0f / 16777216.0f); /* [0,1), 24 bits */
        float v = lo + (hi - lo) * u;
        if (v != 0.0f) return v; /* zeros hide unwritten outputs and wrong indexing */
    }
}

double co_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *co_opt(const co_option *opts, size_t n, const char *name) {
    const char *value = NULL;
    for (size_t i = 0; i < n; i++) /* the last one given wins */
        if (strcmp(opts[i].name, name) == 0) value = opts[i].value;
    return value;
}

co_status co_opt_size(const co_option *opts, size_t n, const char *name, size_t def, size_t *out) {
    const char *v = co_opt(opts, n, name);
    if (!v) {
        *out = def;
        return CO_OK;
    }
    /* Digits only: strtoull would take "-1", " 5" and "5abc". */
    if (!*v || strspn(v, "0123456789") != strlen(v))
        return co_fail(CO_ERR_INVALID, "--%s must be a positive integer, got '%s'", name, v);
    errno = 0;
    unsigned long long x = strtoull(v, NULL, 10);
    if (errno == ERANGE || x > (1ull << 40))
        return co_fail(CO_ERR_INVALID, "--%s=%s is too large (at most 2^40)", name, v);
    if (x == 0) return co_fail(CO_ERR_INVALID, "--%s must be at least 1, got 0", name);
    *out = (size_t)x;
    return CO_OK;
}

co_status co_opt_real(const co_option *opts, size_t n, const char *name, double def, double min,
                      double max, double *out) {
    const char *v = co_opt(opts, n, name);
    if (!v) {
        *out = def;
        return CO_OK;
    }
    char *end = NULL;
    errno = 0;
    double x = *v ? strtod(v, &end) : NAN;
    if (!*v || *end || errno == ERANGE || !isfinite(x))
        return co_fail(CO_ERR_INVALID, "--%s must be a number, got '%s'", name, v);
    if (x < min || x > max)
        return co_fail(CO_ERR_INVALID, "--%s=%s is out of range [%.15g, %.15g]", name, v, min,
                       max); /* %.15g: integer bounds in full, 1048576 not 1.04858e+06 */
    *out = x;
    return CO_OK;
}

co_status co_opt_int(const co_option *opts, size_t n, const char *name, int def, int min, int max,
                     int *out) {
    double x;
    co_status st = co_opt_real(opts, n, name, def, min, max, &x);
    if (st) return st;
    if (x != floor(x))
        return co_fail(CO_ERR_INVALID, "--%s must be an integer, got '%s'", name,
                       co_opt(opts, n, name));
    *out = (int)x;
    return CO_OK;
}

co_status co_opt_choice(const co_option *opts, size_t n, const char *name, const char *choices,
                        int def, int *out) {
    const char *v = co_opt(opts, n, name);
    if (!v) {
        *out = def;
        return CO_OK;
    }
    int index = 0;
    size_t len = strlen(v);
    for (const char *c = choices; *c; index++) {
        size_t l = strcspn(c, "|");
        if (l == len && strncmp(c, v, len) == 0) {
            *out = index;
            return CO_OK;
        }
        c += l + (c[l] == '|');
    }
    char list[256];
    snprintf(list, sizeof list, "%s", choices);
    for (char *c = list; *c; c++)
        if (*c == '|') *c = ',';
    return co_fail(CO_ERR_INVALID, "--%s must be one of %s, got '%s'", name, list, v);
}

co_status co_problem_array(co_problem *p, const char *name, size_t bytes, bool output,
                           void **host) {
    if (p->narrays == CO_MAX_ARRAYS) return co_fail(CO_ERR_INVALID, "too many arrays");
    if (bytes > SIZE_MAX / 2 - p->host_bytes) /* room for the rounding and the sums */
        return co_fail(CO_ERR_LIMIT, "%s: array %s of %zu bytes is over any memory",
                       p->wl ? p->wl->name : "the problem", name, bytes);
    if (host) *host = NULL;
    p->host_bytes += bytes;
    p->arrays[p->narrays++] =
        (co_array){.name = name, .bytes = bytes, .output = output, .bind = host};
    return CO_OK;
}

co_status co_problem_alloc(co_problem *p) {
    for (size_t i = 0; i < p->narrays; i++) {
        co_array *a = &p->arrays[i];
        if (a->host) continue;
        /* 64-byte alignment: vector loads and cache lines on every host. */
        size_t rounded = (a->bytes + 63) / 64 * 64;
        a->host = aligned_alloc(64, rounded ? rounded : 64);
        if (!a->host)
            return co_fail(CO_ERR_NOMEM, "cannot allocate %zu bytes of host memory for %s",
                           a->bytes, a->name);
        if (a->bind) *a->bind = a->host;
    }
    return CO_OK;
}

void co_problem_text(co_problem *p, const char *name, const char *value) {
    if (p->nsizes == CO_MAX_KV) return;
    snprintf(p->sizes[p->nsizes].name, sizeof p->sizes[0].name, "%s", name);
    snprintf(p->sizes[p->nsizes].value, sizeof p->sizes[0].value, "%s", value);
    p->nsizes++;
}

void co_problem_size(co_problem *p, const char *name, size_t value) {
    char text[32];
    snprintf(text, sizeof text, "%zu", value);
    co_problem_text(p, name, text);
}

void co_problem_rate(co_problem *p, const char *unit, double count) {
    size_t i = 0;
    while (i < p->nrates && strcmp(p->rates[i].unit, unit) != 0) i++;
    if (i == CO_MAX_RATES) return;
    p->rates[i].unit = unit;
    p->rates[i].count = count;
    if (i == p->nrates) p->nrates++;
}

size_t co_parse_options(const char *text, char *store, size_t store_len, co_option *opts,
                        size_t cap) {
    const char *bad = !text          ? "text is NULL"
                      : !store       ? "store is NULL"
                      : !store_len   ? "store_len is 0"
                      : !opts && cap ? "opts is NULL"
                                     : NULL;
    if (bad) {
        co_fail(CO_ERR_INVALID, "co_parse_options: %s", bad);
        return 0;
    }
    /* A truncated copy would parse "m=1000" as "m=10": refuse it instead. */
    const size_t len = strlen(text);
    if (len >= store_len) {
        co_fail(CO_ERR_INVALID, "co_parse_options: text is %zu bytes, store_len %zu holds %zu", len,
                store_len, store_len - 1);
        return 0;
    }
    memcpy(store, text, len + 1);
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(store, " ", &save); t && n < cap;
         t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) continue;
        *eq = 0;
        opts[n++] = (co_option){t, eq + 1};
    }
    return n;
}

co_status co_fail_log(co_status status, const char *log, const char *fmt, ...) {
    char msg[16384];
    va_list ap;
    va_start(ap, fmt);
    int used = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = used < 0 ? 0 : (size_t)used < sizeof msg ? (size_t)used : sizeof msg - 1;
    const char *end = log ? log + strlen(log) : NULL;
    while (end && end > log && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
    if (end && end > log) {
        n += (size_t)snprintf(msg + n, sizeof msg - n, "\n  build log:");
        /* snprintf counts what did not fit: past the end of msg, n ends the loop. */
        for (const char *line = log; line < end && n < sizeof msg - 1;) {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            const int len = (int)((nl ? nl : end) - line);
            n += (size_t)snprintf(msg + n, sizeof msg - n, "\n    %.*s", len, line);
            line += len + 1;
        }
    }
    return co_fail(status, "%s", msg);
}
