/* JSON files of the cache directory (peak.json, tune.json), through cJSON:
 * read whole, changed under a lock, written aside and renamed into place.
 * Layout: {"TAG": VERSION, "ARRAY": [ one entry per line ]}; any other
 * formatting of the same JSON reads the same. */
#ifndef CO_JSONFILE_H
#define CO_JSONFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "coalesce.h"

struct cJSON;

/* The entries array of the file at path, parsed (the caller frees it with
 * cJSON_Delete), or NULL: no file (why ""), or a file that is not such a
 * file (why says what is wrong with it, one line). */
struct cJSON *co_json_file_read(const char *path, const char *tag, const char *array, char *why,
                                size_t why_len);
/* An exclusive lock on path + ".lock" (flock), for a read-modify-write;
 * the directories are made first. -1 with the error set if it cannot be had. */
int co_json_file_lock(const char *path);
void co_json_file_unlock(int fd);
/* Write entries (an array) as the file at path (core/outfile.h: aside, then
 * renamed over it; no directory made: the lock makes the cache's).
 * CO_ERR_IO naming the path and why. */
co_status co_json_file_write(const char *path, const char *tag, int version, const char *array,
                             const struct cJSON *entries);

#endif
