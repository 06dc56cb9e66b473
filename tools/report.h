/* Printing results and devices: a table for people, JSON and CSV for tools. */
#ifndef CO_REPORT_H
#define CO_REPORT_H

#include <stdio.h>

#include "coalesce.h"

/* A result and how it compares with others measured in the same invocation. */
typedef struct report_row {
    co_result r;
    co_status status; /* CO_OK, CO_ERR_VERIFY, or the error that stopped it */
    char error[512];  /* the message when status is not CO_OK */
    double vs_c;      /* speedup over sequential C on the same sizes, 0 if not measured */
    char anchor[32];  /* the library compared with, "" if none */
    double vs_anchor; /* anchor time / this time (> 1: faster than the library) */
} report_row;

void report_table(FILE *out, const report_row *rows, size_t n);
/* bench's table printed as it runs: a heading (workload and sizes) with the
 * columns' names whenever they change, then the row. */
typedef struct report_stream {
    char group[192]; /* the last heading */
} report_stream;
void report_stream_row(FILE *out, report_stream *st, const report_row *row);
void report_human(FILE *out, const report_row *row);
void report_devices(FILE *out, const co_context *ctx);
/* A device's ceilings, as lines for people (JSON: results_peak). */
void report_peak(FILE *out, const co_peak *p);
/* "2026-12-01 14:03 UTC", or "-" for no date. */
void report_date(char *out, size_t len, long long t);

#endif
