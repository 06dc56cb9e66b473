/* Commands with their own argument parsing (tools/compare.c, tools/html_report.c). */
#ifndef CO_TOOLS_H
#define CO_TOOLS_H

/* coalesce compare A.json B.json [--json] [--threshold F] */
int coalesce_compare(int argc, char **argv);
/* coalesce report FILE.json... -o REPORT.html [--image PNG]... */
int coalesce_report(int argc, char **argv);

/* coalesce help COMMAND: the command's usage on stdout (0), or a usage error (2). */
int coalesce_help(const char *command);

#endif
