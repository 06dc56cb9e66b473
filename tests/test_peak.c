/* The ceilings' C API (src/core/peak.c): bad arguments are refused with a
 * status and a message, never a crash; a level is picked by the bytes of a
 * working set; co_peak_measure says whether the cache file was written,
 * and why not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coalesce.h"

static int failures;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* status is CO_ERR_INVALID and co_last_error() holds `word`. */
static int invalid(co_status st, const char *word) {
    return st == CO_ERR_INVALID && strstr(co_last_error(), word) != NULL;
}

int main(void) {
    char dir[] = "/tmp/coalesce-peak-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("COALESCE_CACHE_DIR", dir, 1);
    co_context *ctx = NULL;
    if (co_context_create(&ctx) != CO_OK) {
        printf("FAIL co_context_create: %s\n", co_last_error());
        return 1;
    }
    size_t c = 0, n = co_device_count(ctx);
    if (co_device_select(ctx, "c", &c, 1, &n) != CO_OK || n != 1) {
        printf("FAIL no c device: %s\n", co_last_error());
        return 1;
    }
    co_peak p;
    char path[64];

    /* Bad arguments: a status and one line naming the call. */
    check(invalid(co_peak_measure(NULL, 0, &p), "co_peak_measure: the context is NULL"),
          "co_peak_measure(NULL, ...)");
    check(invalid(co_peak_measure(ctx, 999, &p), "device index 999 is out of range"),
          "co_peak_measure: a device out of range");
    check(invalid(co_peak_measure(ctx, c, NULL), "the output is NULL"),
          "co_peak_measure: NULL out");
    check(invalid(co_peak_measure_flags(ctx, c, 0x80, &p), "unknown flags 0x80"),
          "co_peak_measure_flags: unknown flags");
    check(invalid(co_peak_get(NULL, 0, &p), "co_peak_get: the context is NULL"),
          "co_peak_get(NULL, ...)");
    check(invalid(co_peak_get(ctx, 999, &p), "out of range"), "co_peak_get: a device out of range");
    check(invalid(co_peak_get(ctx, c, NULL), "the output is NULL"), "co_peak_get: NULL out");
    co_peak_measure(NULL, 0, &p); /* an error left behind */
    check(!co_peak_known(NULL, 0) && strstr(co_last_error(), "co_peak_known: the context is NULL"),
          "co_peak_known(NULL, 0): false, with the error set");
    check(!co_peak_known(ctx, 999) && strstr(co_last_error(), "out of range"),
          "co_peak_known: a device out of range");
    check(invalid(co_peak_cache_path(NULL, 10), "the output is NULL"),
          "co_peak_cache_path(NULL, 10)");
    check(invalid(co_peak_cache_path(path, 0), "the length is 0"), "co_peak_cache_path(buf, 0)");
    check(co_peak_cache_path(path, 8) == CO_ERR_IO && strstr(co_last_error(), "longer than 7"),
          "co_peak_cache_path: a buffer too short");
    check(co_peak_level_for(NULL, 1) == NULL, "co_peak_level_for(NULL, ...)");

    /* Levels: the first whose capacity holds the bytes, else DRAM. */
    co_peak fake = {.nlevels = 3};
    const char *names[] = {"L2", "LLC", "DRAM"};
    const double fits[] = {1 << 20, 32 << 20, 0};
    for (int i = 0; i < 3; i++) {
        snprintf(fake.levels[i].name, sizeof fake.levels[i].name, "%s", names[i]);
        fake.levels[i].fits_bytes = fits[i];
    }
    check(co_peak_level_for(&fake, 4096) == &fake.levels[0], "4 KiB: L2");
    check(co_peak_level_for(&fake, 1 << 20) == &fake.levels[0], "1 MiB (the L2 exactly): L2");
    check(co_peak_level_for(&fake, (1 << 20) + 1) == &fake.levels[1], "just over it: LLC");
    check(co_peak_level_for(&fake, 1e12) == &fake.levels[2], "1 TB: DRAM");
    fake.nlevels = CO_PEAK_MAX_LEVELS + 1;
    check(co_peak_level_for(&fake, 4096) == NULL, "a peak with too many levels: none");

    /* Measured and kept: levels named, DRAM last, a date; the cache written. */
    co_status st = co_peak_measure(ctx, c, &p);
    check(st == CO_OK && p.stored && !p.store_error[0] && !p.kept_older && p.measured > 0,
          "co_peak_measure: stored, dated");
    check(p.nlevels >= 2 && !strcmp(p.levels[p.nlevels - 1].name, "DRAM") &&
              p.levels[p.nlevels - 1].fits_bytes == 0 && p.levels[0].fits_bytes > 0 &&
              p.copy_gbps == p.levels[p.nlevels - 1].copy_gbps,
          "levels: caches first, DRAM last (the device's copy_gbps)");
    co_peak got;
    check(co_peak_get(ctx, c, &got) == CO_OK && got.cached && got.measured == p.measured &&
              got.nlevels == p.nlevels,
          "co_peak_get: the kept figures");

    /* Not written: said, with the reason; the figures are still returned. */
    co_context_destroy(ctx);
    setenv("COALESCE_CACHE_DIR", "/proc/coalesce-no-such-dir", 1);
    co_context_create(&ctx);
    st = co_peak_measure(ctx, c, &p);
    check(st == CO_OK && !p.stored &&
              !strcmp(
                  p.store_error,
                  "cannot write /proc/coalesce-no-such-dir/peak.json: No such file or directory") &&
              p.copy_gbps > 0,
          "an unwritable directory: not stored, and why");
    char sub[128];
    snprintf(sub, sizeof sub, "%s/d", dir);
    mkdir(sub, 0755);
    snprintf(sub, sizeof sub, "%s/d/peak.json", dir);
    mkdir(sub, 0755);
    snprintf(sub, sizeof sub, "%s/d", dir);
    setenv("COALESCE_CACHE_DIR", sub, 1);
    co_context_destroy(ctx);
    co_context_create(&ctx);
    st = co_peak_measure(ctx, c, &p);
    check(st == CO_OK && !p.stored && strstr(p.store_error, "peak.json': Is a directory"),
          "peak.json a directory: not stored, and why");
    co_context_destroy(ctx);

    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
