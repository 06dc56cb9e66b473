/* The cross-backend test (ggml's test-backend-ops pattern): every variant of
 * every workload on every device present, at awkward sizes and with each
 * tunable set it lists, against the double-precision or exact reference.
 * Also checks that verification itself fails on a wrong or unwritten result.
 * Usage: test_backends [WORKLOAD] [DEVICE-SPEC] [VARIANT] [K/N]; "" for any of the
 * first three: every one (a variant alone: one process per variant, so that a
 * slow device's builds can run side by side; K/N: the K-th of N processes that
 * share the cases, each case with the seed it has in a whole run). Exit 77 where
 * DEVICE-SPEC names a device this machine lacks.
 * COALESCE_TEST_FULL=1: every tunable set on every size set (see main). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/workload.h"
#include "workloads/boxfilter.h"

static unsigned passed, failed, skipped;
static unsigned shard_k, shard_n = 1, case_no; /* K/N: this process's share of the cases */

static void check(bool ok, const char *what) {
    if (ok)
        passed++;
    else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

/* Run one variant at one size with one tunable set (NULL: defaults). */
static void run_case(co_context *ctx, size_t dev, const co_workload *wl, const co_variant *v,
                     const char *sizes, const char *params, uint64_t seed) {
    /* A case's shard from a multiplicative hash of its number: cases in turn
     * would gather each size set's slow builds (a tunable set's place among
     * them) in the same shard. */
    const uint32_t hash = (uint32_t)(case_no++ * 2654435761u);
    if ((hash >> 16) % shard_n != shard_k) return;
    char sstore[256], pstore[256], what[512];
    co_option opts[CO_MAX_KV], prm[CO_MAX_PARAMS];
    size_t nopts = co_parse_options(sizes, sstore, sizeof sstore, opts, CO_MAX_KV);
    size_t nprm = params ? co_parse_options(params, pstore, sizeof pstore, prm, CO_MAX_PARAMS) : 0;
    co_run_config cfg = {.workload = wl->name,
                         .variant = v->name,
                         .device = dev,
                         .options = opts,
                         .noptions = nopts,
                         .params = prm,
                         .nparams = nprm,
                         .reps = 1,
                         .warmup = 0,
                         .seed = seed,
                         .verify = true};
    co_result r;
    const double t0 = co_now_ms();
    co_status st = co_run(ctx, &cfg, &r);
    const double ms = co_now_ms() - t0;
    snprintf(what, sizeof what, "%s/%s on %s [%s]%s%s: %s", wl->name, v->name,
             co_device_get(ctx, dev)->spec, sizes, params ? " " : "", params ? params : "",
             st ? co_last_error() : "");
    /* A tunable set over this device's limits, or a case the variant
     * declines (an anchor's library without that border; a format with no
     * shader on this backend): a skip, with its reason. */
    if (st == CO_ERR_LIMIT || st == CO_ERR_UNSUPPORTED) {
        skipped++;
        printf("skip %s\n", what);
        return;
    }
    check(st == CO_OK && r.verified && r.error <= r.tolerance, what);
    /* COALESCE_TEST_TIMES: every case with its time (where a slow suite spends it). */
    if (getenv("COALESCE_TEST_TIMES")) printf("%8.0f ms %s\n", ms, what);
}

/* Verification must reject a result with one wrong element, and the poison
 * left by a variant that writes nothing. */
static void test_verify_fails(const co_workload *wl) {
    co_problem p = {.wl = wl};
    co_option opts[] = {{"m", "33"}, {"n", "17"}, {"k", "9"}};
    if (wl->init(&p, opts, 3) != CO_OK || co_problem_alloc(&p) != CO_OK) {
        check(false, "gemm init for the verification self-test");
        return;
    }
    wl->fill(&p, 7);
    if (wl->reference && wl->reference(&p) != CO_OK) {
        check(false, "reference for the verification self-test");
        return;
    }
    co_array *out = NULL;
    for (size_t i = 0; i < p.narrays; i++)
        if (p.arrays[i].output) out = &p.arrays[i];
    double err, tol;
    char how[32];
    memset(out->host, 0xFF, out->bytes); /* poison, as the runner does */
    wl->verify(&p, &err, &tol, how, sizeof how);
    check(!(err <= tol), "verify rejects an unwritten (poisoned) output");
    /* The right answer, then one element off. */
    if (strcmp(wl->name, "gemm") == 0) {
        size_t m = 33, n = 17, k = 9;
        const float *a = p.arrays[0].host, *b = p.arrays[1].host;
        float *c = out->host;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double acc = 0;
                for (size_t q = 0; q < k; q++) acc += (double)a[i * k + q] * b[q * n + j];
                c[i * n + j] = (float)acc;
            }
        wl->verify(&p, &err, &tol, how, sizeof how);
        check(err <= tol, "verify accepts the exact product");
        c[5 * n + 3] += 1e-3f;
        wl->verify(&p, &err, &tol, how, sizeof how);
        check(!(err <= tol), "verify rejects one element off by 1e-3");
    }
    wl->destroy(&p);
    for (size_t i = 0; i < p.narrays; i++) free(p.arrays[i].host);
}

/* The box filter's 8-bit check for an anchor whose rounding is not
 * documented (NPP): every mean rounded to nearest or every one truncated
 * passes, the check naming which; truncation under the workload's own
 * model, or a mean above the exact one, fails. */
static void test_box_rounding(const co_workload *wl) {
    enum { W = 37, H = 11, R = 2, CH = 4, D = (2 * R + 1) * (2 * R + 1) };
    co_problem p = {.wl = wl};
    co_option opts[] = {{"width", "37"},
                        {"height", "11"},
                        {"radius", "2"},
                        {"format", "rgba8"},
                        {"border", "clamp"}};
    if (wl->init(&p, opts, 5) != CO_OK || co_problem_alloc(&p) != CO_OK) {
        check(false, "boxfilter init for the rounding self-test");
        return;
    }
    wl->fill(&p, 7);
    const unsigned char *in = p.arrays[BOX_IN].host;
    unsigned char *out = p.arrays[BOX_OUT].host;
    static unsigned sums[W * H * CH]; /* the exact window sums, clamp border */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < CH; c++) {
                unsigned s = 0;
                for (int j = -R; j <= R; j++)
                    for (int i = -R; i <= R; i++) {
                        const int yy = y + j < 0 ? 0 : y + j >= H ? H - 1 : y + j;
                        const int xx = x + i < 0 ? 0 : x + i >= W ? W - 1 : x + i;
                        s += in[((size_t)yy * W + xx) * CH + c];
                    }
                sums[((size_t)y * W + x) * CH + c] = s;
            }
    double err, tol;
    char how[32];
    bool ok = wl->reference(&p) == CO_OK;
    size_t up = SIZE_MAX; /* a mean whose truncation is not its rounding */
    for (size_t i = 0; i < W * H * CH; i++) {
        out[i] = (unsigned char)(sums[i] / D);
        if (sums[i] % D > D / 2) up = i;
    }
    box_anchor_model(&p, 0, true);
    wl->verify(&p, &err, &tol, how, sizeof how);
    check(ok && err <= tol && !strcmp(how, "full, truncated"),
          "boxfilter verify: an anchor's truncated means pass, named truncated");
    box_anchor_model(&p, 0, false);
    wl->verify(&p, &err, &tol, how, sizeof how);
    check(up != SIZE_MAX && !(err <= tol),
          "boxfilter verify: truncated means fail the workload's rounding");
    if (up != SIZE_MAX) out[up]++; /* one mean above the exact one */
    box_anchor_model(&p, 0, true);
    wl->verify(&p, &err, &tol, how, sizeof how);
    check(!(err <= tol), "boxfilter verify: a truncated mean off by one fails");
    for (size_t i = 0; i < W * H * CH; i++) out[i] = (unsigned char)((sums[i] + D / 2) / D);
    wl->verify(&p, &err, &tol, how, sizeof how);
    check(err <= tol && !strcmp(how, "full"),
          "boxfilter verify: an anchor's means rounded to nearest pass, named full");
    wl->destroy(&p);
    for (size_t i = 0; i < p.narrays; i++) free(p.arrays[i].host);
}

/* box_quad's division of a window sum by (2r+1)^2 at every radius it takes
 * it for (8..2047; kernels/boxfilter_quad.cl: q_divide), done here as the
 * kernel does it, in the form the host picks: sums plus half of w (n <=
 * 255 w + w / 2) at each side of each multiple of w and at its half,
 * against n / w. Both forms must be taken. */
static void test_box_quad_divisor(void) {
    unsigned bad = 0, checked = 0, short_forms = 0, long_forms = 0;
    for (int r = 8; r <= 2047; r++) {
        uint32_t magic;
        unsigned shift;
        const bool short_form = box_quad_divisor(r, &magic, &shift);
        short_forms += short_form, long_forms += !short_form;
        const uint32_t w = (uint32_t)((2 * r + 1) * (2 * r + 1));
        const uint32_t at[] = {0, 1, w / 2 - 1, w / 2, w / 2 + 1, w - 2, w - 1};
        for (uint32_t k = 0; k <= 255; k++)
            for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
                const uint32_t n = k * w + at[i];
                if (n > 255 * w + w / 2) continue; /* over the largest */
                const uint32_t t = (uint32_t)(((uint64_t)n * magic) >> 32);
                const uint32_t q = short_form ? t >> shift : (t + ((n - t) >> 1)) >> shift;
                bad += q != n / w;
                checked++;
            }
    }
    char what[160];
    snprintf(what, sizeof what,
             "box_quad's division by (2r+1)^2, r = 8..2047 (%u short, %u long): %u of %u wrong",
             short_forms, long_forms, bad, checked);
    check(bad == 0 && short_forms && long_forms, what);
}

/* The direct call co_sgemm on caller data, on every device with its default
 * variant: the result against a double-precision product. */
static void test_sgemm_api(co_context *ctx, const size_t *idx, size_t ndev) {
    enum { M = 65, N = 63, K = 67 };
    static float a[M * K], b[K * N], c[M * N];
    co_rng r = {99};
    for (size_t i = 0; i < M * K; i++) a[i] = co_rng_float(&r, -1, 1);
    for (size_t i = 0; i < K * N; i++) b[i] = co_rng_float(&r, -1, 1);
    for (size_t d = 0; d < ndev; d++) {
        char what[256];
        memset(c, 0xFF, sizeof c);
        co_status st = co_sgemm(ctx, idx[d], NULL, M, N, K, a, b, c);
        double worst = st ? INFINITY : 0;
        for (size_t i = 0; i < M && !st; i++)
            for (size_t j = 0; j < N; j++) {
                double ref = 0, mag = 0;
                for (size_t k = 0; k < K; k++) {
                    ref += (double)a[i * K + k] * b[k * N + j];
                    mag += fabs((double)a[i * K + k] * b[k * N + j]);
                }
                double e = fabs(c[i * N + j] - ref) / mag;
                if (!(e <= worst)) worst = e;
            }
        snprintf(what, sizeof what, "co_sgemm on %s: error %.3g %s",
                 co_device_get(ctx, idx[d])->spec, worst, st ? co_last_error() : "");
        check(worst <= (K + 2) * 0x1p-24, what);
    }
    float dummy = 0;
    check(co_sgemm(ctx, idx[0], NULL, 1, 1, 1, NULL, &dummy, &dummy) == CO_ERR_INVALID,
          "co_sgemm rejects a NULL matrix");
    check(co_sgemm(ctx, idx[0], "no-such-variant", 1, 1, 1, &dummy, &dummy, &dummy) ==
              CO_ERR_INVALID,
          "co_sgemm rejects an unknown variant");
}

/* The items of a ';'-separated list. */
static unsigned count_items(const char *list) {
    unsigned n = 0;
    for (const char *t = list; t && *t; n++) {
        const size_t l = strcspn(t, ";");
        t += l + (t[l] == ';');
    }
    return n;
}

int main(int argc, char **argv) {
    const char *only_wl = argc > 1 && *argv[1] ? argv[1] : NULL; /* "": every workload */
    const char *spec = argc > 2 ? argv[2] : "all";
    const char *only_var = argc > 3 && *argv[3] ? argv[3] : NULL; /* "": every variant */
    if (argc > 4 && (sscanf(argv[4], "%u/%u", &shard_k, &shard_n) != 2 || shard_k >= shard_n)) {
        printf("FAIL shard '%s': K/N with K < N expected\n", argv[4]);
        return 1;
    }
    unsigned matched = 0; /* variants of the chosen workloads looked at */
    /* Every size set runs with the defaults; a variant's tunable sets run on
     * every size set where they are at most three (COALESCE_TEST_FULL=1: always,
     * as on the GPU machine), else each on every stride-th size set, the sets
     * offset by their index, so that every size set meets about three of them
     * and each tunable set's sizes are spread over the whole list. */
    const bool full = getenv("COALESCE_TEST_FULL") && atoi(getenv("COALESCE_TEST_FULL")) > 0;
    co_context *ctx;
    if (co_context_create(&ctx) != CO_OK) {
        printf("FAIL context: %s\n", co_last_error());
        return 1;
    }
    size_t idx[64], ndev;
    const co_status selected = co_device_select(ctx, spec, idx, 64, &ndev);
    if (selected != CO_OK) {
        /* A well-formed spec of a device this machine lacks: skipped (77). */
        const bool absent = selected == CO_ERR_UNSUPPORTED;
        printf("%s devices '%s': %s\n", absent ? "skip" : "FAIL", spec, co_last_error());
        co_context_destroy(ctx);
        return absent ? 77 : 1;
    }
    for (size_t b = 0; b < co_backend_count(ctx); b++) {
        const char *name, *reason;
        bool avail;
        co_backend_status(ctx, b, &name, &avail, &reason);
        if (!avail) printf("backend %s unavailable here: %s\n", name, reason);
    }
    /* The self-tests and the direct call: once, in the first shard. */
    const bool first = shard_k == 0;
    if (first && (!only_wl || strcmp(only_wl, "gemm") == 0)) test_sgemm_api(ctx, idx, ndev);
    const co_workload *const *wls;
    size_t nwl = co_workloads(&wls);
    uint64_t seed = 12345;
    for (size_t w = 0; w < nwl; w++) {
        const co_workload *wl = wls[w];
        if (only_wl && strcmp(only_wl, wl->name)) continue;
        if (first) test_verify_fails(wl);
        if (first && !strcmp(wl->name, "boxfilter")) {
            test_box_rounding(wl);
            test_box_quad_divisor();
        }
        for (size_t d = 0; d < ndev; d++) {
            co_device *dev = co_context_device(ctx, idx[d]);
            for (size_t v = 0; v < wl->nvariants; v++) {
                const co_variant *var = &wl->variants[v];
                const char *why;
                if (only_var && strcmp(only_var, var->name)) continue;
                matched++;
                if (!co_variant_runs_on(ctx, wl->name, var->name, idx[d], &why)) {
                    if (var->on & co_device_on(dev)) {
                        skipped++;
                        printf("skip %s/%s on %s: %s\n", wl->name, var->name, dev->info.spec, why);
                    }
                    continue;
                }
                const unsigned stride = full ? 1 : (count_items(var->test_params) + 2) / 3;
                unsigned si = 0;
                for (const char *s = wl->test_sets; *s; si++) {
                    size_t l = strcspn(s, ";");
                    char sizes[128];
                    snprintf(sizes, sizeof sizes, "%.*s", (int)l, s);
                    run_case(ctx, idx[d], wl, var, sizes, NULL, seed++);
                    unsigned pi = 0;
                    for (const char *t = var->test_params; t && *t; pi++) {
                        size_t tl = strcspn(t, ";");
                        char params[128];
                        snprintf(params, sizeof params, "%.*s", (int)tl, t);
                        /* seed++ either way: a case keeps its seed in a full run */
                        if (stride <= 1 || si % stride == pi % stride)
                            run_case(ctx, idx[d], wl, var, sizes, params, seed);
                        seed++;
                        t += tl + (t[tl] == ';');
                    }
                    s += l + (s[l] == ';');
                }
                fflush(stdout);
            }
        }
    }
    if (!matched) check(false, "no variant of that workload and name: nothing tested");
    co_context_destroy(ctx);
    printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
