/* The result format (docs/results-format.md, "schema": 1): one JSON object
 * per invocation, {"schema", "command", "meta", "results": [...]}, built with
 * cJSON; and the CSV with the same columns. -o FILE keeps the document in a
 * file rewritten (temp + rename) after each result, so that an interrupted
 * command leaves what it finished. */
#ifndef CO_RESULTS_H
#define CO_RESULTS_H

#include <stdio.h>

#include <cJSON.h>

#include "report.h"

#define RESULTS_SCHEMA 1

/* meta: version, commit, date, host, CPU, OS, the command line and the
 * devices used (indices into ctx; ctx NULL or n 0: none). */
cJSON *results_meta(const co_context *ctx, const size_t *devices, size_t n);
/* The argv the meta's "command_line" shows (set once by main). */
void results_set_argv(int argc, char **argv);
/* {"schema": 1, "command": command, "meta": meta, "results": []}; takes meta. */
cJSON *results_doc(const char *command, cJSON *meta);
/* The "results" array of a document. */
cJSON *results_array(cJSON *doc);

/* A run's result ("kind": "run"); ctx gives the device's backend. */
cJSON *results_row(const co_context *ctx, const report_row *row);
/* A device's ceilings ("kind": "peak"), or its failure (p NULL, status, message). */
cJSON *results_peak(const co_peak *p, const char *spec, co_status st, const char *message);
/* A device ("kind": "device"). */
cJSON *results_device(const co_device_info *d);

/* A search of coalesce tune ("kind": "tune") with every candidate; st its
 * status, message the error where st is not CO_OK ("" or NULL: none). r
 * with no candidates: the identity, status and message only. */
cJSON *results_tune(const co_context *ctx, const co_tune_result *r, co_status st,
                    const char *message);
/* A configuration of the tuning database ("kind": "tuned"). */
cJSON *results_tuned(const co_tune_entry *e);

/* devices --json: every device as a result, and "backends" with the reasons. */
cJSON *results_devices_doc(const co_context *ctx);

/* Print a document (formatted) and a newline; false if out of memory. */
bool results_print(FILE *out, const cJSON *doc);
/* Write a document to path (src/core/outfile.h: aside and renamed, so a
 * reader sees the old file or the new, never half of one; a device or a
 * pipe in place). false with the message ("cannot write 'path': reason") in
 * why on failure. */
bool results_write(const char *path, const cJSON *doc, char *why, size_t len);

/* -o FILE: a document kept on disk as results are added. */
typedef struct results_file {
    const char *path; /* NULL: no file */
    cJSON *doc;
    bool failed; /* a write failed (said once on stderr) */
    bool once;   /* not a file (a device, a pipe): written once, at the close */
} results_file;
/* Starts the document (written at once, so that the file exists from the
 * start; where the path is a device or a pipe, once at the close). */
bool results_file_open(results_file *f, const char *path, const char *command, cJSON *meta);
/* Adds a result (takes it) and rewrites the file. No-op without a file. */
void results_file_add(results_file *f, cJSON *result);
/* Replaces every result (takes the array) and rewrites the file: for rows
 * whose ratios change as more rows come in. No-op without a file. */
void results_file_set(results_file *f, cJSON *results);
/* Ends it; false where a write failed (said on stderr). */
bool results_file_close(results_file *f);

/* CSV: the same fields as a result, one row per result. */
void results_csv_header(FILE *out);
void results_csv_row(FILE *out, const co_context *ctx, const report_row *row);

/* Reading documents back (tools/compare.c): a file of schema 1 (NULL, with
 * one line on stderr, for anything else); a string member ("" if absent), a
 * number (NaN if absent or null); a result's sizes as "m=64 n=64 k=64". */
cJSON *results_load(const char *path);
const char *results_str(const cJSON *o, const char *key);
double results_num(const cJSON *o, const char *key);
void results_sizes_text(const cJSON *result, char *out, size_t len);

/* A result's kind and identity: workload, variant, device {spec, name,
 * backend}; the caller adds the kind's own fields. */
cJSON *results_head(const co_context *ctx, const char *kind, const char *workload,
                    const char *variant, const char *spec, const char *name);

/* The backend of a device spec in ctx ("" if not found). */
const char *results_backend(const co_context *ctx, const char *spec);

#endif
