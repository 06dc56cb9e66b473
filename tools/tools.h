/* Commands with their own argument parsing (tools/compare.c, tools/html_report.c). */
#ifndef CO_TOOLS_H
#define CO_TOOLS_H

/* coalesce compare A.json B.json [--json] [--threshold F] */
int coalesce_compare(int argc, char **argv);
/* coalesce report FILE.json... -o REPORT.html [--image PNG]... */
int coalesce_report(int argc, char **argv);

#endif
