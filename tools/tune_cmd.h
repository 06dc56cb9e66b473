/* coalesce tune: the search (co_tune) per device, variant and problem, its
 * presets, and the tuning database (--list, --export, --import). */
#ifndef CO_TUNE_CMD_H
#define CO_TUNE_CMD_H

#include "coalesce.h"

typedef struct tune_args {
    const char *workload;          /* NULL: --list, --export or --import alone */
    const char *device, *variants; /* NULL: as run (opencl, else omp); the device's default */
    const char *const *sets;       /* the problems: option sets "m=1 n=2" (none: bench's) */
    size_t nsets;
    const co_option *params; /* tunables held fixed */
    size_t nparams;
    unsigned reps, warmup;
    uint64_t seed;
    bool json, list;
    double budget_s; /* 0: the library's (60 s) */
    const char *strategy, *preset, *export_file, *import_file;
    const char *out; /* -o FILE: the document, rewritten after each search (NULL: none) */
    /* From the tool: the progress line (on a terminal), Ctrl-C. */
    bool line_on;
    void (*line_show)(const char *text);
    void (*line_clear)(void);
    bool (*interrupted)(void);
} tune_args;

/* The workload a preset is for (NULL: any, or no such preset). */
const char *tune_preset_workload(const char *preset);

/* Returns the exit code. */
int coalesce_tune(co_context *ctx, const tune_args *a);

#endif
