/* The cache directory: measured ceilings (peak.c) and compiled kernels
 * (backends whose compiler keeps no cache of its own: NVRTC). Files are
 * written aside and renamed into place, so a reader never sees half of
 * one; a missing, unreadable or foreign file is a miss, never an error. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/jsonfile.h"
#include "core/outfile.h"
#include "core/workload.h"

co_status co_cache_path(const char *name, char *out, size_t len) {
    const char *dir = getenv("COALESCE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (!name || !out || !len) return co_fail(CO_ERR_INVALID, "co_cache_path: NULL name or output");
    out[0] = 0;
    int n;
    if (dir && *dir)
        n = snprintf(out, len, "%s/%s", dir, name);
    else if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/coalesce/%s", xdg, name);
    else if (home && *home)
        n = snprintf(out, len, "%s/.cache/coalesce/%s", home, name);
    else
        return co_fail(CO_ERR_IO, "no cache directory: set COALESCE_CACHE_DIR or HOME");
    if (n < 0 || (size_t)n >= len)
        return co_fail(CO_ERR_IO, "the cache path is longer than %zu bytes", len - 1);
    return CO_OK;
}

void co_cache_make_dirs(const char *path) {
    char dir[1200]; /* a cache path and a suffix (".lock", ".PID.tmp") */
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return;
    *slash = 0;
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
}

uint64_t co_hash(uint64_t h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

/* An entry: the file kind/<hash of key>.bin holds the key, its NUL, then
 * the data. The key is compared whole: a hash collision is a miss. */
static co_status entry_path(const char *kind, const char *key, char *out, size_t len) {
    char name[128];
    snprintf(name, sizeof name, "%s/%016llx.bin", kind,
             (unsigned long long)co_hash(CO_HASH_SEED, key, strlen(key)));
    return co_cache_path(name, out, len);
}

bool co_cache_get(const char *kind, const char *key, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    char path[1024];
    if (entry_path(kind, key, path, sizeof path)) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    const size_t klen = strlen(key) + 1;
    char *buf = NULL;
    long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool ok = end >= (long)klen && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)end)) &&
              fread(buf, 1, (size_t)end, f) == (size_t)end && memcmp(buf, key, klen) == 0;
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    memmove(buf, buf + klen, (size_t)end - klen);
    buf[(size_t)end - klen] = 0; /* within the key's bytes: text data stays a string */
    *data = buf;
    *size = (size_t)end - klen;
    return true;
}

void co_cache_put(const char *kind, const char *key, const void *data, size_t size) {
    char path[1024], tmp[1100];
    if (entry_path(kind, key, path, sizeof path)) return;
    co_cache_make_dirs(path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    bool ok =
        fwrite(key, 1, strlen(key) + 1, f) == strlen(key) + 1 && fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}

/* ---- JSON files (jsonfile.h) ---- */

struct cJSON *co_json_file_read(const char *path, const char *tag, const char *array, char *why,
                                size_t why_len) {
    why[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    const size_t cap = (size_t)16 << 20; /* far over any real file: a runaway one is corrupt */
    char *text = malloc(cap + 1);
    size_t got = text ? fread(text, 1, cap + 1, f) : 0;
    fclose(f);
    if (!text) {
        snprintf(why, why_len, "out of memory reading it");
        return NULL;
    }
    cJSON *root = got <= cap ? cJSON_ParseWithLength(text, got) : NULL;
    if (got > cap) {
        snprintf(why, why_len, "over %zu MiB", cap >> 20);
    } else if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + got ? (long)(at - text) : -1;
        snprintf(why, why_len, "not valid JSON (at byte %ld of %zu)", off, got);
    }
    free(text);
    if (!root) return NULL;
    cJSON *entries = cJSON_DetachItemFromObjectCaseSensitive(root, array);
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, tag)) ||
        !cJSON_IsArray(entries)) {
        snprintf(why, why_len, "valid JSON but not a coalesce file (no \"%s\" and \"%s\" array)",
                 tag, array);
        cJSON_Delete(entries);
        entries = NULL;
    }
    cJSON_Delete(root);
    return entries;
}

int co_json_file_lock(const char *path) {
    char lock[1100];
    snprintf(lock, sizeof lock, "%s.lock", path);
    co_cache_make_dirs(lock);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        /* Named as the file it guards: that is what cannot be written. */
        co_fail(CO_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            co_fail(CO_ERR_IO, "cannot lock %s: %s", lock, strerror(errno));
            close(fd);
            return -1;
        }
    return fd;
}

void co_json_file_unlock(int fd) {
    if (fd >= 0) close(fd); /* closing releases the flock */
}

co_status co_json_file_write(const char *path, const char *tag, int version, const char *array,
                             const struct cJSON *entries) {
    co_outfile o;
    co_status st = co_outfile_open(&o, path);
    if (st) return st;
    /* One entry per line: diffs and greps stay readable. */
    fprintf(o.f, "{\"%s\": %d, \"%s\": [", tag, version, array);
    bool first = true;
    for (const cJSON *e = entries ? entries->child : NULL; e; e = e->next) {
        char *line = cJSON_PrintUnformatted(e);
        if (!line) {
            co_outfile_discard(&o);
            return co_fail(CO_ERR_NOMEM, "out of host memory writing %s", path);
        }
        fprintf(o.f, "%s\n%s", first ? "" : ",", line);
        first = false;
        free(line);
    }
    fputs("\n]}\n", o.f);
    return co_outfile_close(&o);
}
