/* Long runs through the C API: co_run_config.progress is called with what a
 * loop has done (unit, count, rate, ETA), never for a short run, and a
 * callback that returns true stops the run with CO_ERR_INTERRUPTED and
 * frees everything (ASan's leak check at exit). Also bench's default sets
 * per device type. Usage: test_progress */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce.h"

static unsigned passed, failed;

static void check(bool ok, const char *what, const char *detail) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

typedef struct seen {
    unsigned calls, stop_after;
    bool ordered, sane; /* done never went back within a phase; fields consistent */
    double last_done;
    unsigned last_run;
    char unit[16], phase[16];
    double total, eta_ms, per_s;
    unsigned run, runs;
} seen;

static bool record(const co_progress *p, void *user) {
    seen *s = user;
    if (p->run == s->last_run && p->unit && p->done < s->last_done) s->ordered = false;
    s->last_run = p->run;
    s->last_done = p->unit ? p->done : 0;
    if (!p->workload || !p->variant || !p->device || !p->phase || p->runs < p->run ||
        (p->unit && !(p->done <= p->total)) || p->elapsed_ms < 0)
        s->sane = false;
    snprintf(s->unit, sizeof s->unit, "%s", p->unit ? p->unit : "");
    snprintf(s->phase, sizeof s->phase, "%s", p->phase);
    s->total = p->total, s->eta_ms = p->eta_ms, s->per_s = p->per_s;
    s->run = p->run, s->runs = p->runs;
    return ++s->calls >= s->stop_after;
}

/* Run options on a device until the callback has been called stop_after times. */
static co_status run(co_context *ctx, size_t dev, const char *workload, const char *variant,
                     const char *options, unsigned stop_after, seen *s, co_result *r) {
    char store[512];
    co_option opts[16];
    size_t n = co_parse_options(options, store, sizeof store, opts, 16);
    memset(s, 0, sizeof *s);
    s->stop_after = stop_after, s->ordered = s->sane = true, s->last_run = 99;
    co_run_config cfg = {.workload = workload,
                         .variant = variant,
                         .device = dev,
                         .options = opts,
                         .noptions = n,
                         .reps = 3,
                         .warmup = 1,
                         .seed = 1,
                         .verify = true,
                         .progress = record,
                         .progress_user = s};
    return co_run(ctx, &cfg, r);
}

static void expect_stop(co_context *ctx, size_t dev, const char *workload, const char *variant,
                        const char *options, const char *unit, const char *phase) {
    char what[256];
    snprintf(what, sizeof what, "%s/%s on %s (%s)", workload, variant,
             co_device_get(ctx, dev)->spec, options);
    seen s;
    co_result r;
    co_status st = run(ctx, dev, workload, variant, options, 4, &s, &r);
    check(st == CO_ERR_INTERRUPTED, what, co_last_error());
    check(strstr(co_last_error(), "interrupted: ") && strstr(co_last_error(), unit), what,
          co_last_error());
    check(!strcmp(r.workload, workload) && !strcmp(r.variant, variant), what,
          "names of the result");
    check(s.calls == 4 && s.ordered && s.sane, what, "calls, order, fields");
    check(!strcmp(s.unit, unit) && !strcmp(s.phase, phase), what, s.unit);
    check(s.per_s > 0 && s.eta_ms > 0, what, "a rate and an ETA");
    check(!strcmp(phase, "reference") ? s.run == 0 : s.run >= 1 && s.runs >= 2, what, "runs");
}

int main(void) {
    co_context *ctx;
    if (co_context_create(&ctx) != CO_OK) {
        printf("FAIL co_context_create: %s\n", co_last_error());
        return 1;
    }
    size_t c, found;
    co_device_select(ctx, "c", &c, 1, &found);
    check(!strcmp(co_status_name(CO_ERR_INTERRUPTED), "interrupted"), "status name", NULL);

    /* The three: hours on one core at these options. */
    expect_stop(ctx, c, "collider", "c", "balls=10 steps=100000000", "step", "warm-up");
    expect_stop(ctx, c, "collider", "c-grid", "balls=10 steps=100000000", "step", "warm-up");
    expect_stop(ctx, c, "raytrace", "c", "width=16 height=16 frames=100000", "frame", "reference");
    /* The 64x48 at r = 2000 now takes a second (windows wider than the image are
     * folded into weights): a window inside a larger image is still O(r^2) a pixel on c. */
    expect_stop(ctx, c, "boxfilter", "c", "width=1024 height=768 radius=300", "pixel", "warm-up");
    /* gemm: its reference (on all cores), then the triple loop's rows. */
    expect_stop(ctx, c, "gemm", "c", "m=1200 n=1200 k=1200", "row", "reference");
    {
        seen s;
        co_result r;
        co_run_config cfg = {.workload = "gemm",
                             .device = c,
                             .reps = 1,
                             .seed = 1,
                             .progress = record,
                             .progress_user = &s};
        co_option o[] = {{"size", "700"}};
        cfg.options = o, cfg.noptions = 1; /* --no-verify: no reference, the rows of c */
        memset(&s, 0, sizeof s);
        s.stop_after = 3, s.ordered = s.sane = true;
        check(co_run(ctx, &cfg, &r) == CO_ERR_INTERRUPTED && !strcmp(s.unit, "row"), "gemm/c rows",
              co_last_error());
    }
    /* A short run never calls back; without a callback nothing changes. */
    {
        seen s;
        co_result r;
        check(run(ctx, c, "gemm", "c", "size=8", 1, &s, &r) == CO_OK && s.calls == 0,
              "a short run calls no callback", co_last_error());
        co_option o[] = {{"balls", "100"}, {"width", "40"}, {"height", "40"}};
        co_run_config cfg = {.workload = "collider",
                             .device = c,
                             .options = o,
                             .noptions = 3,
                             .seed = 1,
                             .verify = true};
        check(co_run(ctx, &cfg, &r) == CO_OK, "no callback", co_last_error());
    }
    size_t cl;
    if (co_device_select(ctx, "opencl", &cl, 1, &found) == CO_OK) {
        expect_stop(ctx, cl, "collider", "grid", "balls=100 width=40 height=40 steps=100000000",
                    "step", "warm-up");
        expect_stop(ctx, cl, "raytrace", "global", "width=16 height=16 frames=100000", "frame",
                    "reference");
        if (co_device_get(ctx, cl)->type == CO_DEVICE_CPU) { /* refused, with its estimate */
            seen s;
            co_result r;
            co_status st = run(ctx, cl, "collider", "brute",
                               "balls=150000 width=1000 height=700 steps=11", 1000, &s, &r);
            check(st == CO_ERR_UNSUPPORTED && strstr(co_last_error(), " h a run"),
                  "PoCL brute force of 150,000 balls x 11 steps refused", co_last_error());
        }
    }

    /* bench's sets: a CPU's are sized for the slowest variants; a GPU's start with them. */
    for (size_t w = 0; w < co_workload_count(); w++) {
        const char *name = co_workload_name(w);
        for (int quick = 0; quick < 2; quick++) {
            const char *cpu = co_workload_bench_sets_for(name, quick, CO_DEVICE_CPU);
            const char *gpu = co_workload_bench_sets_for(name, quick, CO_DEVICE_GPU);
            check(cpu && gpu && !strncmp(gpu, cpu, strlen(cpu)), name,
                  "GPU sets start with the CPU's");
            check(cpu == co_workload_bench_sets(name, quick), name, "co_workload_bench_sets");
        }
    }
    check(!strstr(co_workload_bench_sets_for("collider", false, CO_DEVICE_CPU), "1000000"),
          "no million balls on a CPU", NULL);
    check(strstr(co_workload_bench_sets_for("collider", false, CO_DEVICE_GPU), "1000000") != NULL,
          "a million balls on a GPU", NULL);
    check(!co_workload_bench_sets_for("nope", false, CO_DEVICE_CPU), "unknown workload", NULL);

    co_context_destroy(ctx);
    printf("test_progress: %u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
