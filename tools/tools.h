/* Commands with their own argument parsing (tools/compare.c, tools/html_report.c). */
#ifndef CO_TOOLS_H
#define CO_TOOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "coalesce.h"

/* coalesce compare A.json B.json [--json] [--threshold F] */
int coalesce_compare(int argc, char **argv);
/* coalesce report FILE.json... -o REPORT.html [--image PNG]... */
int coalesce_report(int argc, char **argv);

/* Several thread pools share the cores of one process: OpenMP (omp
 * variants, references), OpenBLAS, PoCL. A pool that spins while idle
 * steals the cores from the next one measured (OpenBLAS spins ~2^28 cycles
 * after each call), so the tools ask each to sleep when idle. The runtimes
 * read these variables when they load, so the tool re-executes itself once
 * with them set (tools/pools.c); a variable the user set is left alone. */
void tools_quiet_thread_pools(char **argv);

/* Strictly a decimal number, within [min, max] (tools/common.c). */
bool tools_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* The exit code of a status: 0 ok, 1 failed (wrong, device, file, limit), 2 usage
 * (CO_ERR_INVALID), 3 skipped (CO_ERR_UNSUPPORTED), 130 interrupted. */
int tools_exit_code(co_status st);

/* coalesce help COMMAND: the command's usage on stdout (0), or a usage error (2). */
int coalesce_help(const char *command);

#endif
