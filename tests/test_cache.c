/* The cache directory (src/core/cache.c): an entry comes back as written,
 * only under its own key, and a damaged or missing one is a miss. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

static int failures;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* Entry of key under kind "t" equals want (size n)? */
static int holds(const char *key, const char *want, size_t n) {
    void *data;
    size_t size;
    if (!co_cache_get("t", key, &data, &size)) return 0;
    int same = size == n && memcmp(data, want, n) == 0 && ((char *)data)[n] == 0;
    free(data);
    return same;
}

int main(void) {
    char dir[] = "/tmp/coalesce-cache-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("COALESCE_CACHE_DIR", dir, 1);
    char path[1100];
    check(co_cache_path("x/y.bin", path, sizeof path) == CO_OK && !strncmp(path, dir, strlen(dir)),
          "co_cache_path: under $COALESCE_CACHE_DIR");

    void *data;
    size_t size;
    check(!co_cache_get("t", "absent", &data, &size) && !data && !size,
          "a missing entry is a miss");
    const char bin[] = {'a', 0, 'b', 1, (char)0xff, 'c'}; /* binary: embedded NULs */
    co_cache_put("t", "key one", bin, sizeof bin);
    check(holds("key one", bin, sizeof bin), "an entry comes back byte for byte, a NUL after it");
    check(!co_cache_get("t", "key two", &data, &size), "another key misses");
    co_cache_put("t", "key one", "new", 3);
    check(holds("key one", "new", 3), "put replaces an entry");
    co_cache_put("t", "empty", "", 0);
    check(holds("empty", "", 0), "an empty entry");

    /* Damage: the same file with its key bytes changed, then cut short. */
    FILE *f;
    char name[1100];
    snprintf(name, sizeof name, "%s/t/%016llx.bin", dir,
             (unsigned long long)co_hash(CO_HASH_SEED, "key one", 7));
    check((f = fopen(name, "r+b")) != NULL, "entries live in kind/<hash of key>.bin");
    if (f) {
        fputs("KEY", f);
        fclose(f);
    }
    check(!co_cache_get("t", "key one", &data, &size), "a file under another key misses");
    if ((f = fopen(name, "wb"))) {
        fputs("key o", f);
        fclose(f);
    }
    check(!co_cache_get("t", "key one", &data, &size), "a truncated file misses");

    /* A cache that cannot be written costs nothing but time. */
    setenv("COALESCE_CACHE_DIR", "/proc/no-such-dir", 1);
    co_cache_put("t", "key", "v", 1);
    check(!co_cache_get("t", "key", &data, &size),
          "an unwritable directory: put is silent, get misses");

    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
