/* The C API's argument contract: every public function (co_peak_* aside:
 * test_peak's) called with each kind of bad argument returns an error
 * status, or 0 / NULL / false, and leaves a co_last_error() that names the
 * function and the argument; none crashes (run under ASan and UBSan). Also
 * the memory check before the first allocation, and the build-log shape. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coalesce.h"
#include "core/workload.h"

static int passed, failed;

static void check(bool ok, const char *what) {
    if (ok)
        passed++;
    else {
        failed++;
        printf("FAIL %s (co_last_error: '%s')\n", what, co_last_error());
    }
}

/* co_last_error() was cleared before the call and now names every word of
 * `names` (space-separated: the function, the argument). */
static bool names(const char *words) {
    const char *e = co_last_error();
    if (!*e) return false;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!strstr(e, w)) return false;
    return true;
}

static void clear(void) { co_fail(CO_OK, "%s", ""); }

/* A status call: not CO_OK, and the message names `words`. */
#define EXPECT_STATUS(call, words)                                                                 \
    do {                                                                                           \
        clear();                                                                                   \
        co_status st_ = (call);                                                                    \
        check(st_ != CO_OK && names(words), #call " fails naming '" words "'");                    \
    } while (0)
/* A query that answers 0 / NULL / false on bad arguments. */
#define EXPECT_NONE(call, words)                                                                   \
    do {                                                                                           \
        clear();                                                                                   \
        check(!(call) && names(words), #call " answers none, naming '" words "'");                 \
    } while (0)

static void test_context(co_context *ctx) {
    EXPECT_STATUS(co_context_create(NULL), "co_context_create out");
    co_context_destroy(NULL); /* a no-op, as free(NULL) */
    check(true, "co_context_destroy(NULL) returns");

    EXPECT_NONE(co_device_count(NULL), "co_device_count ctx");
    EXPECT_NONE(co_device_get(NULL, 0), "co_device_get ctx");
    EXPECT_NONE(co_device_get(ctx, co_device_count(ctx)), "co_device_get index range");
    EXPECT_NONE(co_device_get(ctx, SIZE_MAX), "co_device_get index");

    EXPECT_NONE(co_backend_count(NULL), "co_backend_count ctx");
    const char *name, *reason;
    bool avail;
    EXPECT_STATUS(co_backend_status(NULL, 0, &name, &avail, &reason), "co_backend_status ctx");
    EXPECT_STATUS(co_backend_status(ctx, 0, NULL, &avail, &reason), "co_backend_status name");
    EXPECT_STATUS(co_backend_status(ctx, 0, &name, NULL, &reason), "co_backend_status available");
    EXPECT_STATUS(co_backend_status(ctx, 0, &name, &avail, NULL), "co_backend_status reason");
    EXPECT_STATUS(co_backend_status(ctx, 99, &name, &avail, &reason), "co_backend_status index");

    size_t idx[4], n = 7;
    EXPECT_STATUS(co_device_select(NULL, "c", idx, 4, &n), "co_device_select ctx");
    check(n == 0, "co_device_select with a NULL ctx selects nothing");
    EXPECT_STATUS(co_device_select(ctx, NULL, idx, 4, &n), "co_device_select spec");
    EXPECT_STATUS(co_device_select(ctx, "", idx, 4, &n), "empty device spec");
    EXPECT_STATUS(co_device_select(ctx, "c", NULL, 4, &n), "co_device_select indices");
    EXPECT_STATUS(co_device_select(ctx, "c", idx, 0, &n), "co_device_select capacity");
    EXPECT_STATUS(co_device_select(ctx, "c", idx, 4, NULL), "co_device_select count");
    EXPECT_STATUS(co_device_select(ctx, "bogus", idx, 4, &n), "unknown device 'bogus'");
    char long_spec[400];
    memset(long_spec, 'c', sizeof long_spec - 1);
    long_spec[sizeof long_spec - 1] = 0;
    EXPECT_STATUS(co_device_select(ctx, long_spec, idx, 4, &n), "is over the 255 a spec may have");
    EXPECT_STATUS(co_device_select(ctx, "c,omp", idx, 1, &n), "too many devices");
}

static void test_registry(co_context *ctx) {
    check(co_status_name((co_status)12345) != NULL, "co_status_name of an unknown status");
    const size_t nw = co_workload_count();
    EXPECT_NONE(co_workload_name(nw), "co_workload_name index");
    EXPECT_NONE(co_workload_summary(SIZE_MAX), "co_workload_summary index");
    EXPECT_NONE(co_variant_name(NULL, 0), "co_variant_name workload");
    EXPECT_NONE(co_variant_name("nope", 0), "co_variant_name unknown workload 'nope'");
    EXPECT_NONE(co_variant_name("", 0), "co_variant_name unknown workload ''");
    EXPECT_NONE(co_variant_name("gemm", 9999), "co_variant_name index");
    EXPECT_NONE(co_variant_summary(NULL, 0), "co_variant_summary workload");
    EXPECT_NONE(co_variant_summary("gemm", 9999), "co_variant_summary index");
    const char *def, *help;
    EXPECT_NONE(co_workload_option(NULL, 0, &def, &help), "co_workload_option workload");
    EXPECT_NONE(co_workload_option("gemm", 9999, &def, &help), "co_workload_option index");
    check(co_workload_option("gemm", 0, NULL, NULL) != NULL,
          "co_workload_option takes NULL def and help (optional outputs)");
    co_param_info pi;
    EXPECT_NONE(co_variant_param(NULL, "tiled", 0, &pi), "co_variant_param workload");
    EXPECT_NONE(co_variant_param("gemm", "nope", 0, &pi),
                "co_variant_param: unknown variant 'nope'");
    EXPECT_NONE(co_variant_param("gemm", NULL, 0, &pi), "co_variant_param: NULL variant");
    EXPECT_NONE(co_variant_param("gemm", "tiled", 9999, &pi), "co_variant_param index");
    check(co_variant_param("gemm", "tiled", 0, NULL) != NULL,
          "co_variant_param takes a NULL info (optional output)");
    check(co_variant_param("gemm", "tiled", 0, &pi) && !strcmp(pi.name, "TS") && pi.def == 16 &&
              pi.min == 1 && pi.max == 512 && pi.def_gpu == 16 && pi.help[0],
          "co_variant_param: gemm tiled's TS, its default, range and help");
    EXPECT_NONE(co_workload_anchor(NULL, "c"), "co_workload_anchor workload");
    EXPECT_NONE(co_workload_anchor("gemm", NULL), "co_workload_anchor backend");
    EXPECT_NONE(co_workload_anchor("gemm", "metal"), "co_workload_anchor unknown backend 'metal'");
    EXPECT_NONE(co_workload_bench_sets(NULL, false), "co_workload_bench_sets workload");
    EXPECT_NONE(co_workload_bench_sets("nope", true), "co_workload_bench_sets 'nope'");

    const char *why = NULL;
    EXPECT_NONE(co_variant_runs_on(NULL, "gemm", "c", 0, &why), "co_variant_runs_on ctx");
    check(why && *why, "co_variant_runs_on says why");
    EXPECT_NONE(co_variant_runs_on(ctx, NULL, "c", 0, &why), "co_variant_runs_on workload");
    EXPECT_NONE(co_variant_runs_on(ctx, "gemm", NULL, 0, NULL), "co_variant_runs_on variant");
    EXPECT_NONE(co_variant_runs_on(ctx, "gemm", "nope", 0, &why), "co_variant_runs_on 'nope'");
    EXPECT_NONE(co_variant_runs_on(ctx, "gemm", "c", SIZE_MAX, &why), "co_variant_runs_on device");
    EXPECT_NONE(co_variant_default(NULL, "gemm", 0), "co_variant_default ctx");
    EXPECT_NONE(co_variant_default(ctx, NULL, 0), "co_variant_default workload");
    EXPECT_NONE(co_variant_default(ctx, "gemm", SIZE_MAX), "co_variant_default device");
}

static void test_parse(void) {
    char store[16];
    co_option opts[4];
    EXPECT_NONE(co_parse_options(NULL, store, sizeof store, opts, 4), "co_parse_options text");
    EXPECT_NONE(co_parse_options("m=1", NULL, 16, opts, 4), "co_parse_options store");
    EXPECT_NONE(co_parse_options("m=1", store, 0, opts, 4), "co_parse_options store_len");
    EXPECT_NONE(co_parse_options("m=1", store, sizeof store, NULL, 4), "co_parse_options opts");
    /* Truncated, "m=1000 n=2000 k=3000" would read as other sizes. */
    EXPECT_NONE(co_parse_options("m=1000 n=2000 k=3000", store, sizeof store, opts, 4),
                "co_parse_options store_len");
    check(co_parse_options("m=1 n=2", store, sizeof store, opts, 4) == 2 &&
              strcmp(opts[1].name, "n") == 0 && strcmp(opts[1].value, "2") == 0,
          "co_parse_options parses what fits");
    check(co_parse_options("m=1", store, sizeof store, NULL, 0) == 0,
          "co_parse_options with cap 0 takes NULL opts");
}

static void test_run(co_context *ctx) {
    co_result r;
    co_run_config cfg = {.workload = "gemm", .device = 0, .reps = 1, .verify = true};
    co_option good[] = {{"size", "8"}};
    cfg.options = good, cfg.noptions = 1;
    EXPECT_STATUS(co_run(NULL, &cfg, &r), "co_run ctx");
    EXPECT_STATUS(co_run(ctx, NULL, &r), "co_run cfg");
    EXPECT_STATUS(co_run(ctx, &cfg, NULL), "co_run out");

    co_run_config bad = cfg;
    bad.workload = NULL;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run cfg->workload");
    bad = cfg, bad.workload = "";
    EXPECT_STATUS(co_run(ctx, &bad, &r), "unknown workload ''");
    bad = cfg, bad.workload = "nope";
    EXPECT_STATUS(co_run(ctx, &bad, &r), "unknown workload 'nope'");
    bad = cfg, bad.variant = "";
    EXPECT_STATUS(co_run(ctx, &bad, &r), "unknown variant ''");
    bad = cfg, bad.device = SIZE_MAX;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "device index out of range");
    bad = cfg, bad.options = NULL, bad.noptions = 2;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run options NULL noptions");
    bad = cfg, bad.params = NULL, bad.nparams = 1;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run params NULL nparams");
    co_option no_name[] = {{NULL, "8"}}, empty_name[] = {{"", "8"}}, no_value[] = {{"size", NULL}};
    bad = cfg, bad.options = no_name;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run options[0].name NULL");
    bad = cfg, bad.options = empty_name;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run options[0].name empty");
    bad = cfg, bad.options = no_value;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run options[0].value size NULL");
    bad = cfg, bad.params = no_value, bad.nparams = 1;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "co_run params[0].value");
    co_option empty_value[] = {{"size", ""}}, unknown[] = {{"bogus", "1"}};
    bad = cfg, bad.options = empty_value;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "--size");
    bad = cfg, bad.options = unknown;
    EXPECT_STATUS(co_run(ctx, &bad, &r), "unknown option '--bogus'");

    clear();
    check(co_run(ctx, &cfg, &r) == CO_OK && r.verified, "co_run of a good config still runs");
}

static void test_sgemm(co_context *ctx) {
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    EXPECT_STATUS(co_sgemm(NULL, 0, NULL, 2, 2, 3, a, b, c), "co_sgemm ctx");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 2, 2, 3, NULL, b, c), "co_sgemm a");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 2, 2, 3, a, NULL, c), "co_sgemm b");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 2, 2, 3, a, b, NULL), "co_sgemm c");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 0, 2, 3, a, b, c), "co_sgemm m");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 2, 0, 3, a, b, c), "co_sgemm n");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 2, 2, 0, a, b, c), "co_sgemm k");
    const size_t big = (size_t)1 << 40;
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, big, 2, big, a, b, c), "co_sgemm m x k overflows");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 1, SIZE_MAX, 2, a, b, c), "co_sgemm overflows");
    check(strstr(co_last_error(), "k x n") != NULL, "co_sgemm names k x n");
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, big, big, 1, a, b, c), "co_sgemm overflows");
    check(strstr(co_last_error(), "m x n") != NULL, "co_sgemm names m x n");
    /* No product overflows, but the matrices are far over what gemm takes. */
    EXPECT_STATUS(co_sgemm(ctx, 0, NULL, 1u << 20, 1u << 20, 1, a, b, c), "gemm 2^31-1");
    EXPECT_STATUS(co_sgemm(ctx, SIZE_MAX, NULL, 2, 2, 3, a, b, c), "device index");
    EXPECT_STATUS(co_sgemm(ctx, 0, "nope", 2, 2, 3, a, b, c), "unknown variant 'nope'");
    clear();
    check(co_sgemm(ctx, 0, NULL, 2, 2, 3, a, b, c) == CO_OK && c[0] == 4 && c[1] == 5 &&
              c[2] == 10 && c[3] == 11,
          "co_sgemm of good arguments is right");
}

/* Everything a run allocates is counted before its first allocation: a gemm
 * whose arrays fit but whose reference does not is refused (issue 26:
 * 40000 x 40000 x 1 on a 24 GB host), naming host memory and its parts;
 * without verification the same problem needs no reference. */
static void test_memory(co_context *ctx) {
    co_option opts[] = {{"m", "4000"}, {"n", "4000"}, {"k", "1"}};
    co_run_config cfg = {
        .workload = "gemm", .device = 0, .options = opts, .noptions = 3, .reps = 1, .verify = true};
    co_result r;
    setenv("COALESCE_MAX_HOST_BYTES", "240000000", 1); /* C 64 MB; with its reference 320 MB */
    clear();
    co_status st = co_run(ctx, &cfg, &r);
    check(st == CO_ERR_LIMIT && names("gemm host memory arrays reference COALESCE_MAX_HOST_BYTES"),
          "a reference over host memory is refused before allocating");
    cfg.verify = false, cfg.reps = 1;
    clear();
    check(co_run(ctx, &cfg, &r) == CO_OK, "the same gemm without its reference fits");
    setenv("COALESCE_MAX_HOST_BYTES", "lots", 1);
    EXPECT_STATUS(co_run(ctx, &cfg, &r), "COALESCE_MAX_HOST_BYTES 'lots'");
    unsetenv("COALESCE_MAX_HOST_BYTES");

    /* Every workload declares its memory: with room for its arrays alone,
     * none whose run takes more is let through to allocate it. */
    const co_workload *const *list;
    size_t n = co_workloads(&list);
    for (size_t i = 0; i < n; i++) {
        co_problem p = {.wl = list[i]};
        char what[128];
        snprintf(what, sizeof what, "%s declares its arrays without allocating them",
                 list[i]->name);
        st = list[i]->init(&p, NULL, 0);
        bool none = true;
        for (size_t j = 0; j < p.narrays; j++) none = none && !p.arrays[j].host;
        check(st == CO_OK && p.narrays > 0 && none, what);
        if (list[i]->destroy) list[i]->destroy(&p);
    }
    const co_workload *gemm = co_workload_find("gemm");
    co_problem p = {.wl = gemm};
    st = gemm->init(&p, opts, 3);
    check(st == CO_OK && p.host_check_bytes >= 2 * sizeof(double) * 4000 * 4000,
          "gemm declares its reference's two planes");
    gemm->destroy(&p);
    const co_workload *box = co_workload_find("boxfilter");
    co_problem q = {.wl = box};
    st = box->init(&q, NULL, 0);
    check(st == CO_OK && q.device_extra_bytes > 0 && q.host_check_bytes > 0,
          "boxfilter declares its device scratch and its reference");
    box->destroy(&q);
}

/* co_tune and the database calls: each bad argument one clear error, before
 * anything runs (a search on host C of a variant without tunables: the
 * default alone, nothing stored). */
static void test_tune(co_context *ctx) {
    co_tune_result *r = (co_tune_result *)1;
    co_tune_config cfg = {.run = {.workload = "gemm", .variant = "c", .options = NULL},
                          .no_store = true,
                          .budget_s = 5};
    EXPECT_STATUS(co_tune(NULL, &cfg, &r), "co_tune ctx");
    check(r == NULL, "co_tune clears *out on failure");
    EXPECT_STATUS(co_tune(ctx, NULL, &r), "co_tune cfg");
    EXPECT_STATUS(co_tune(ctx, &cfg, NULL), "co_tune out");
    cfg.strategy = "greedy";
    EXPECT_STATUS(co_tune(ctx, &cfg, &r), "unknown strategy 'greedy' full random anneal");
    cfg.strategy = NULL;
    cfg.budget_s = -1;
    EXPECT_STATUS(co_tune(ctx, &cfg, &r), "budget_s");
    cfg.budget_s = 5;
    cfg.nvalues = 1;
    EXPECT_STATUS(co_tune(ctx, &cfg, &r), "co_tune values NULL");
    const co_option shapes[] = {{"local", "8x"}};
    cfg.values = shapes;
    EXPECT_STATUS(co_tune(ctx, &cfg, &r), "work-group shapes X XxY '8x'");
    check(r == NULL, "co_tune: nothing to free after a bad argument");
    const co_option ts[] = {{"TS", "8"}};
    cfg.values = ts;
    cfg.run.variant = "tiled";
    size_t dev;
    size_t n;
    if (co_device_select(ctx, "opencl", &dev, 1, &n) == CO_OK) {
        cfg.run.device = dev;
        const co_option bad[] = {{"TS", "3,x"}};
        cfg.values = bad;
        cfg.run.options = (const co_option[]){{"size", "16"}};
        cfg.run.noptions = 1;
        EXPECT_STATUS(co_tune(ctx, &cfg, &r), "values of TS integers '3,x'");
        const co_option wrong[] = {{"WPT", "4"}};
        cfg.values = wrong;
        EXPECT_STATUS(co_tune(ctx, &cfg, &r), "variant 'tiled' has no tunable 'WPT'");
    }
    cfg = (co_tune_config){.run = {.workload = "gemm",
                                   .variant = "c",
                                   .options = (const co_option[]){{"size", "8"}},
                                   .noptions = 1},
                           .no_store = true,
                           .budget_s = 5};
    check(co_tune(ctx, &cfg, &r) == CO_OK && r->ncandidates == 1 && r->best == 0 &&
              r->candidates[0].is_default && r->candidates[0].verified && !r->stored,
          "co_tune of a variant without tunables: the default alone, not stored");
    co_tune_result_free(r);
    co_tune_result_free(NULL);
    char small[4];
    EXPECT_STATUS(co_tune_db_path(NULL, 10), "co_tune_db_path output");
    EXPECT_STATUS(co_tune_db_path(small, 0), "co_tune_db_path length");
    co_tune_entry *e;
    EXPECT_STATUS(co_tune_db_list(NULL, &n, NULL, 0), "co_tune_db_list entries");
    EXPECT_STATUS(co_tune_db_list(&e, NULL, NULL, 0), "co_tune_db_list count");
    EXPECT_STATUS(co_tune_db_export(NULL, NULL), "co_tune_db_export file NULL");
    EXPECT_STATUS(co_tune_db_import("", NULL), "co_tune_db_import file empty");
    co_tune_db_free(NULL);
}

static void test_build_log(void) {
    co_status st = co_fail_log(CO_ERR_BUILD, "x.cl:1: error: bad\n1 error generated.\n\n",
                               "kernel %s.cl failed to build", "x");
    check(st == CO_ERR_BUILD &&
              strcmp(co_last_error(), "kernel x.cl failed to build\n  build log:\n"
                                      "    x.cl:1: error: bad\n    1 error generated.") == 0,
          "a build log follows the one-line error, marked and indented");
    co_fail_log(CO_ERR_BUILD, "", "kernel %s.cl failed to build", "y");
    check(strcmp(co_last_error(), "kernel y.cl failed to build") == 0,
          "an empty build log adds nothing");
    static char huge[40000];
    memset(huge, 'e', sizeof huge - 1);
    co_fail_log(CO_ERR_BUILD, huge, "kernel %s.cl failed to build", "z");
    check(strncmp(co_last_error(), "kernel z.cl failed to build\n  build log:\n    eee", 48) == 0,
          "a build log longer than the message buffer is cut, not overrun");
}

/* co_image_*: bad arguments, a file that is not there or not an image, and
 * a round trip through a PNG file (exact: PNG is lossless). */
static void test_image(void) {
    co_image img = {.width = 7};
    unsigned char px[3 * 5 * 4], one = 9;
    for (size_t i = 0; i < sizeof px; i++) px[i] = (unsigned char)(i * 37 + 11);
    EXPECT_STATUS(co_image_load(NULL, 4, &img), "co_image_load path");
    check(img.width == 0 && img.pixels == NULL, "co_image_load zeroes *out on failure");
    EXPECT_STATUS(co_image_load("x.png", 4, NULL), "co_image_load out");
    EXPECT_STATUS(co_image_load("x.png", 5, &img), "co_image_load channels");
    EXPECT_STATUS(co_image_load("/nonexistent/x.png", 4, &img), "/nonexistent/x.png");
    EXPECT_STATUS(co_image_save_png(NULL, 1, 1, 1, &one), "co_image_save_png path");
    EXPECT_STATUS(co_image_save_png("x.png", 1, 1, 1, NULL), "co_image_save_png pixels");
    EXPECT_STATUS(co_image_save_png("x.png", 0, 1, 1, &one), "co_image_save_png 0x1");
    EXPECT_STATUS(co_image_save_png("x.png", 1, 1, 0, &one), "co_image_save_png channels");
    EXPECT_STATUS(co_image_save_png("x.png", 1 << 30, 1, 4, &one), "co_image_save_png 2^31");
    EXPECT_STATUS(co_image_save_png("/nonexistent/x.png", 1, 1, 1, &one), "/nonexistent/x.png");
    char path[] = "/tmp/coalesce-test-api-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        check(false, "a temporary file");
        return;
    }
    close(fd);
    EXPECT_STATUS(co_image_load(path, 1, &img), "cannot read image"); /* empty: not an image */
    co_status st = co_image_save_png(path, 5, 3, 4, px);
    co_image back = {0}, gray = {0};
    if (!st) st = co_image_load(path, 4, &back);
    if (!st) st = co_image_load(path, 1, &gray);
    check(st == CO_OK && back.width == 5 && back.height == 3 && back.channels == 4 &&
              memcmp(back.pixels, px, sizeof px) == 0 && gray.channels == 1 && gray.pixels,
          "co_image_save_png then co_image_load: the same pixels");
    co_image_free(&back);
    check(back.pixels == NULL && back.width == 0, "co_image_free zeroes the image");
    co_image_free(&back); /* twice: a no-op */
    co_image_free(&gray);
    co_image_free(NULL);
    remove(path);
}

int main(void) {
    co_context *ctx = NULL;
    if (co_context_create(&ctx) != CO_OK) {
        printf("FAIL co_context_create: %s\n", co_last_error());
        return 1;
    }
    size_t c = 0, n = 0;
    if (co_device_select(ctx, "c", &c, 1, &n) != CO_OK || c != 0) {
        printf("FAIL the c device is not device 0: %s\n", co_last_error());
        return 1;
    }
    test_context(ctx);
    test_registry(ctx);
    test_parse();
    test_run(ctx);
    test_tune(ctx);
    test_sgemm(ctx);
    test_memory(ctx);
    test_build_log();
    test_image();
    co_context_destroy(ctx);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
