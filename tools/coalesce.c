/* coalesce: the command-line tool.
 *   coalesce devices [--json]
 *   coalesce list
 *   coalesce run WORKLOAD [options]
 *   coalesce bench [WORKLOAD...] [options]
 *   coalesce peak [--device SPEC] [--json]
 *   coalesce tune WORKLOAD [options] | --list | --export FILE | --import FILE
 * Exit codes: see EXIT_* below and the usage text. Every error is one line
 * on stderr, starting "coalesce: ". */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "coalesce.h"
#include "il_cmd.h"
#include "report.h"
#include "results.h"
#include "tools.h"
#include "tune_cmd.h"

#ifndef COALESCE_MPI_STATUS /* set by CMake: coalesce-mpi built, or why not */
#define COALESCE_MPI_STATUS ""
#define COALESCE_MPI_REASON "this build was not configured by CMake"
#endif

/* The exit codes, the contract scripts rely on (README: Exit codes). */
enum {
    EXIT_OK = 0,           /* every result verified */
    EXIT_FAILED = 1,       /* a wrong result, a device, file or limit error */
    EXIT_USAGE = 2,        /* bad command line */
    EXIT_SKIPPED = 3,      /* the device or the variant is unavailable here */
    EXIT_INTERRUPTED = 130 /* Ctrl-C: what finished is printed */
};

#define MAX_OPTS 32
#define MAX_SETS 32
#define MAX_DEVICES 64
#define MAX_VALUE 4000 /* characters of one option's value: file paths with room */
#define SET_LEN 256    /* a bench set's text, with its NUL (co_parse_options' store) */
#define SET_WORDS 16   /* NAME=VALUE words of one bench set */

typedef struct cli {
    const char *positional[16];
    size_t npositional;
    const char *device, *variants;
    co_option opts[MAX_OPTS]; /* workload options: --m 5, --size 1024,2048 (value NULL: missing) */
    size_t nopts;
    co_option params[MAX_OPTS];
    size_t nparams;
    const char *sets[MAX_SETS]; /* bench: --set "m=1 n=2 k=3" */
    size_t nsets;
    size_t local[3];
    unsigned reps, warmup;
    uint64_t seed;
    bool json, csv, quick, no_verify, force, help, untuned, list;
    const char *out; /* -o FILE: the JSON document, rewritten as results come in */
    double budget_s; /* tune */
    const char *strategy, *preset, *export_file, *import_file;
} cli;

static const char usage[] =
    "usage: coalesce COMMAND [options]\n"
    "  devices [--json]             every device with its limits, and unavailable backends\n"
    "  list                         workloads, their options and variants\n"
    "  run WORKLOAD [options]       one variant on one or more devices, verified and timed\n"
    "  bench [WORKLOAD...] [options] every variant on every selected device, as a table\n"
    "  peak [--device SPEC] [--json] [--force]  measure each device's ceilings (bandwidth of\n"
    "                               each memory level, FMA, launch, transfers); run and bench\n"
    "                               report fractions of them. Kept figures are not replaced by\n"
    "                               much lower ones (a busy machine) unless --force\n"
    "  il WORKLOAD [options]        what the compiler made of a variant's kernels: PTX, SASS,\n"
    "                               PoCL's IR, SPIR-V; resources, instruction mix (--show F\n"
    "                               picks the format; coalesce il --help)\n"
    "  compare A.json B.json        two result files side by side: each ratio, changes beyond\n"
    "                               the runs' own spread flagged\n"
    "  report FILE.json... -o F.html  one self-contained HTML page: rooflines, variant\n"
    "                               ladders, CPU-vs-GPU speedups, pictures\n"
    "  help COMMAND                 a command's options (also: coalesce COMMAND --help)\n"
    "  list [WORKLOAD]              (with WORKLOAD: every option and every tunable)\n"
    "  tune WORKLOAD [options]      search a variant's tunables and work-group within the\n"
    "                               device's limits, every candidate verified; the best is kept\n"
    "                               in the tuning database, which run and bench then use\n"
    "  tune --list | --export FILE | --import FILE   the tuning database\n"
    "options:\n"
    "  --device SPEC     c, omp, opencl, opencl:N, opencl:cpu, opencl:gpu, cuda, cuda:N,\n"
    "                    vulkan, vulkan:N, opengl, opengl:N, all,\n"
    "                    or a comma-separated list, a device named twice run once\n"
    "                    (run: default opencl, else omp; bench, peak: all)\n"
    "  --variant V[,V]   variant(s) to run (run: the device's default; bench: all)\n"
    "  --param NAME=V    a variant's tunable, e.g. --param TS=32 (repeatable)\n"
    "  --local XxY[xZ]   work-group shape, for variants that take one\n"
    "  --reps N          timed repetitions (default 5); --warmup N untimed runs (default 1)\n"
    "  --seed S          inputs are random from this seed, 0 to 2^64-1 (default 1)\n"
    "  --json | --csv    machine-readable output (docs/results-format.md)\n"
    "  -o FILE           run, bench, peak, tune: the JSON document to FILE, rewritten as each\n"
    "                    result ends (an interrupted bench keeps its rows); the table still\n"
    "                    printed\n"
    "  --quick           bench: the small sizes\n"
    "  --set \"K=V ...\"   bench: one set of workload options (repeatable)\n"
    "  --no-verify       skip the check against the reference\n"
    "  --untuned         run, bench: the defaults, not the tuning database's values\n"
    "  --budget S        tune: seconds for each search (default 60)\n"
    "  --strategy X      tune: full, random or anneal (default: full where the space fits\n"
    "                    the budget, else anneal)\n"
    "  --preset P        tune: thesis (gemm tiled, TS 8..128) or wg (work-groups 4..1024)\n"
    "  workload options: gemm --size N (square) or --m --n --k; see 'coalesce list'\n"
    "Long runs show their progress on a terminal (stderr); Ctrl-C stops cleanly and prints\n"
    "what finished (bench: its rows so far), a second Ctrl-C at once. bench's default sizes\n"
    "depend on the device type (CPU or GPU): bench --device all takes about 1-2 minutes on\n"
    "a 2-core machine.\n"
    "exit codes:\n"
    "  0    ok: everything that ran was verified (bench: variants unavailable here skipped)\n"
    "  1    a wrong result, or a device, file or device-limit error\n"
    "  2    usage error: an unknown or malformed command, option or value\n"
    "  3    skipped: the device or the variant is unavailable here, or declines the size\n"
    "       (bench: nothing could run)\n"
    "  130  interrupted (Ctrl-C)\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("coalesce: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see 'coalesce --help')\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

#define EXIT_INTERRUPTED 130 /* 128 + SIGINT, as shells report a Ctrl-C */

static int fail(co_status st) {
    fprintf(stderr, "coalesce: %s\n", co_last_error());
    return tools_exit_code(st);
}

static bool parse_local(const char *s, size_t local[3]) {
    local[0] = local[1] = local[2] = 0;
    char buf[64];
    size_t len = strlen(s);
    /* strtok would accept "16x", "x16" and "16xx16". */
    if (!len || len >= sizeof buf || s[0] == 'x' || s[len - 1] == 'x' || strstr(s, "xx"))
        return false;
    strcpy(buf, s);
    size_t d = 0;
    for (char *save = NULL, *t = strtok_r(buf, "x", &save); t; t = strtok_r(NULL, "x", &save)) {
        uint64_t v;
        if (d == 3 || !tools_parse_u64(t, 1, 1u << 20, &v)) return false;
        local[d++] = (size_t)v;
    }
    return d > 0;
}

/* The commands, and what each takes (said when given something else). */
enum { CMD_DEVICES = 1, CMD_LIST = 2, CMD_RUN = 4, CMD_BENCH = 8, CMD_PEAK = 16, CMD_TUNE = 32 };
#define CMD_WORK (CMD_RUN | CMD_BENCH)    /* these run workloads as they are */
#define CMD_PROBLEM (CMD_WORK | CMD_TUNE) /* these take a WORKLOAD and its options */
#define CMD_OUT (CMD_PROBLEM | CMD_PEAK)  /* these take -o FILE */
static const struct command {
    const char *name;
    unsigned bit;
    const char *takes;
} commands[] = {
    {"devices", CMD_DEVICES, "devices takes only --json"},
    {"list", CMD_LIST, "list takes only a WORKLOAD"},
    {"run", CMD_RUN, "--set and --quick are for bench"},
    {"bench", CMD_BENCH, ""},
    {"peak", CMD_PEAK, "peak takes only --device SPEC, --json, --force and -o FILE"},
    {"tune", CMD_TUNE, "see 'coalesce help tune'"},
};

/* coalesce help COMMAND, coalesce COMMAND --help. */
static const struct {
    const char *name, *text;
} helps[] = {
    {"devices", "usage: coalesce devices [--json]\n"
                "Every device with its limits (compute units, work-group, local, cache and global\n"
                "memory), and each backend that is unavailable with the reason.\n"
                "  --json   one document (docs/results-format.md): a result per device, and\n"
                "           \"backends\" with their availability\n"},
    {"list", "usage: coalesce list [WORKLOAD]\n"
             "Workloads with their options and variants. With WORKLOAD: every option with its\n"
             "help and default, and every variant with its tunables (range, default on CPUs and\n"
             "on GPUs).\n"},
    {"run", "usage: coalesce run WORKLOAD [--device SPEC] [--variant V] [--param NAME=V]...\n"
            "                    [--local XxY[xZ]] [--reps N] [--warmup N] [--seed S]\n"
            "                    [--no-verify] [--json | --csv] [-o FILE] [workload options]\n"
            "One variant (the device's default unless --variant) on each selected device,\n"
            "verified against the reference and timed. Workload options: 'coalesce list\n"
            "WORKLOAD'. --device default: opencl, else omp.\n"
            "  -o FILE  the JSON document to FILE as well (the text still printed)\n"},
    {"bench", "usage: coalesce bench [WORKLOAD...] [--device SPEC] [--variant V[,V]] [--quick]\n"
              "                      [--set \"K=V ...\"]... [--reps N] [--json | --csv] [-o FILE]\n"
              "Every variant (or those of --variant) of each workload (default: all) on every\n"
              "selected device (default: all), at the workload's bench sizes (--quick: the small\n"
              "ones; --set or workload options: your own), a row printed as each ends, then the\n"
              "fastest variant per device. The columns: README, 'Reading the table'.\n"
              "  -o FILE  the JSON document to FILE, rewritten after each row (an interrupted\n"
              "           bench keeps the rows it finished)\n"},
    {"peak", "usage: coalesce peak [--device SPEC] [--json] [--force] [-o FILE]\n"
             "Measure each device's ceilings: streaming bandwidth (copy, read, write) of each\n"
             "memory level, FMA throughput, launch time, host<->device transfers. Kept in the\n"
             "cache directory for run and bench's fractions; kept figures are not replaced by\n"
             "much lower ones (a busy machine) unless --force.\n"},
    {"tune",
     "usage: coalesce tune WORKLOAD [--device D] [--variant V] [size options | --set ...]\n"
     "       [--budget SECONDS] [--strategy full|random|anneal] [--preset thesis|wg]\n"
     "       [--json] [-o FILE]\n"
     "       coalesce tune --list | --export FILE | --import FILE\n"
     "Search a variant's tunables and work-group within their ranges and the device's\n"
     "limits; every candidate is built, run and verified (one that fails is listed, never\n"
     "chosen), the default is always a candidate, and the best is kept only if it beats\n"
     "the default timed again beside it. Small spaces are searched whole, large ones\n"
     "sampled within the budget (default 60 s; the share covered is said). The best goes\n"
     "to the tuning database (tune.json in the cache directory), which run and bench then\n"
     "use (variant+, \"tuned\": true; --untuned for the defaults).\n"
     "  --json   one document (docs/results-format.md): a \"tune\" result per search with\n"
     "           every candidate; with --list a \"tuned\" result per entry of the database\n"
     "  -o FILE  the document to FILE, rewritten after each search (the tables still printed)\n"},
    {"compare", "usage: coalesce compare A.json B.json [--json] [--threshold F]\n"
                "Matches the results of two files (workload, variant, device, sizes) and prints\n"
                "B's time over A's for each, flagged where the change is beyond the two runs' own\n"
                "spread ((median - min) / median of each, at least --threshold, default 0.02).\n"
                "Exit 0; 1 if a file cannot be read.\n"},
    {"report", "usage: coalesce report FILE.json... -o REPORT.html [--image PNG]...\n"
               "One self-contained HTML page (no network) from result files (run, bench, peak,\n"
               "tune): per device a roofline, each workload's variant ladder with each step's\n"
               "speedup, CPU-vs-GPU speedups, the box filter's time against radius, the anchors\n"
               "side by side, each tune search's landscape, and the pictures given with --image\n"
               "(PNG, embedded).\n"},
};

int coalesce_help(const char *name) {
    if (!strcmp(name, "il")) {
        char arg[] = "--help", *argv[] = {arg, NULL};
        return coalesce_il(1, argv);
    }
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
        if (!strcmp(helps[i].name, name)) {
            fputs(helps[i].text, stdout);
            return EXIT_OK;
        }
    return usage_error("no help for '%s': use devices, list, run, bench, peak, il, tune, compare "
                       "or report",
                       name);
}

/* The tool's own options and the commands that take each. Any other
 * --NAME is a workload option: run and bench take those, the others none. */
static const struct tool_option {
    const char *name;
    bool flag;
    unsigned cmds;
} tool_options[] = {
    {"json", true, CMD_DEVICES | CMD_PROBLEM | CMD_PEAK},
    {"csv", true, CMD_WORK},
    {"quick", true, CMD_BENCH},
    {"no-verify", true, CMD_WORK},
    {"force", true, CMD_PEAK},
    {"untuned", true, CMD_WORK},
    {"list", true, CMD_TUNE},
    {"device", false, CMD_PROBLEM | CMD_PEAK},
    {"variant", false, CMD_PROBLEM},
    {"param", false, CMD_PROBLEM},
    {"local", false, CMD_WORK},
    {"reps", false, CMD_PROBLEM},
    {"warmup", false, CMD_PROBLEM},
    {"seed", false, CMD_PROBLEM},
    {"set", false, CMD_BENCH | CMD_TUNE},
    {"budget", false, CMD_TUNE},
    {"strategy", false, CMD_TUNE},
    {"preset", false, CMD_TUNE},
    {"export", false, CMD_TUNE},
    {"import", false, CMD_TUNE},
};

static const struct tool_option *tool_option(const char *name) {
    for (size_t i = 0; i < sizeof tool_options / sizeof tool_options[0]; i++)
        if (!strcmp(tool_options[i].name, name)) return &tool_options[i];
    return NULL;
}

/* A value of a tool option: the next argument, unless it is itself an option. */
static const char *take_value(int argc, char **argv, int *i, const char *eq) {
    if (eq) return eq + 1;
    if (*i + 1 >= argc || (!strncmp(argv[*i + 1], "--", 2) && argv[*i + 1][2])) return NULL;
    return argv[++*i];
}

static int set_tool_option(cli *c, const char *name, const char *value) {
    uint64_t v;
    if (!strcmp(name, "device"))
        c->device = value;
    else if (!strcmp(name, "variant"))
        c->variants = value;
    else if (!strcmp(name, "reps")) {
        if (!tools_parse_u64(value, 1, 1000, &v))
            return usage_error("--reps must be an integer in [1, 1000], got '%s'", value);
        c->reps = (unsigned)v;
    } else if (!strcmp(name, "warmup")) {
        if (!tools_parse_u64(value, 0, 100, &v))
            return usage_error("--warmup must be an integer in [0, 100], got '%s'", value);
        c->warmup = (unsigned)v;
    } else if (!strcmp(name, "seed")) {
        if (!tools_parse_u64(value, 0, UINT64_MAX, &v))
            return usage_error("--seed must be an integer in [0, 18446744073709551615] (2^64-1), "
                               "got '%s'",
                               value);
        c->seed = v;
    } else if (!strcmp(name, "local")) {
        if (!parse_local(value, c->local))
            return usage_error("--local must be X, XxY or XxYxZ with integers in [1, 1048576], "
                               "got '%s'",
                               value);
    } else if (!strcmp(name, "param")) {
        const char *peq = strchr(value, '=');
        if (!peq || peq == value) return usage_error("--param must be NAME=VALUE, got '%s'", value);
        if (c->nparams == MAX_OPTS) return usage_error("too many --param (at most %d)", MAX_OPTS);
        /* argv strings live for the whole run: split in place. */
        char *split = (char *)peq;
        *split = 0;
        c->params[c->nparams++] = (co_option){value, split + 1};
    } else if (!strcmp(name, "budget")) {
        char *end;
        errno = 0;
        double b = strtod(value, &end);
        if (end == value || *end || errno || !(b > 0) || b > 86400)
            return usage_error("--budget must be seconds in (0, 86400], got '%s'", value);
        c->budget_s = b;
    } else if (!strcmp(name, "strategy")) {
        if (strcmp(value, "full") && strcmp(value, "random") && strcmp(value, "anneal"))
            return usage_error("--strategy must be full, random or anneal, got '%s'", value);
        c->strategy = value;
    } else if (!strcmp(name, "preset")) {
        if (strcmp(value, "thesis") && strcmp(value, "wg"))
            return usage_error("--preset must be thesis (gemm tiles 8..128) or wg (work-groups "
                               "4..1024), got '%s'",
                               value);
        c->preset = value;
    } else if (!strcmp(name, "export") || !strcmp(name, "import")) {
        if (!*value) return usage_error("--%s needs a FILE (the database as JSON)", name);
        *(!strcmp(name, "export") ? &c->export_file : &c->import_file) = value;
    } else if (!strcmp(name, "set")) {
        if (c->nsets == MAX_SETS) return usage_error("too many --set (at most %d)", MAX_SETS);
        c->sets[c->nsets++] = value;
    }
    return 0;
}

/* Parse argv after the command. Returns 0, or the exit code of a usage error.
 * Workload options are only collected here: their names are checked against
 * the workloads in check_workload_options. */
static int parse(const struct command *cmd, int argc, char **argv, cli *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->warmup = 1;
    bool work = cmd->bit & CMD_PROBLEM;
    for (int i = 0; i < argc; i++) /* --help wins over everything else on the line */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            c->help = true;
            return 0;
        }
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-o")) {
            if (!(cmd->bit & CMD_OUT))
                return usage_error("%s does not take -o: only run, bench, peak and tune write a "
                                   "result file",
                                   cmd->name);
            if (i + 1 >= argc || !argv[i + 1][0])
                return usage_error("-o needs a FILE (the JSON document)");
            c->out = argv[++i];
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || !arg[2]) {
            if (arg[0] == '-' && arg[1]) return usage_error("unknown option '%s'", arg);
            if (!work && (cmd->bit != CMD_LIST || c->npositional))
                return usage_error("unexpected argument '%s': %s", arg, cmd->takes);
            if (c->npositional == 16) return usage_error("too many arguments (at most 16)");
            c->positional[c->npositional++] = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len == 0 || len >= sizeof name) return usage_error("unknown option '%s'", arg);
        memcpy(name, arg + 2, len);
        name[len] = 0;
        const struct tool_option *t = tool_option(name);
        if (!t && !work) return usage_error("unknown option '--%s': %s", name, cmd->takes);
        if (t && !(t->cmds & cmd->bit))
            return usage_error("%s does not take --%s: %s", cmd->name, name, cmd->takes);
        if (t && t->flag) {
            if (eq) return usage_error("option --%s takes no value, got '%s'", name, arg);
            if (!strcmp(name, "json"))
                c->json = true;
            else if (!strcmp(name, "csv"))
                c->csv = true;
            else if (!strcmp(name, "quick"))
                c->quick = true;
            else if (!strcmp(name, "force"))
                c->force = true;
            else if (!strcmp(name, "untuned"))
                c->untuned = true;
            else if (!strcmp(name, "list"))
                c->list = true;
            else
                c->no_verify = true;
            continue;
        }
        const char *value = take_value(argc, argv, &i, eq);
        if (value && strlen(value) > MAX_VALUE)
            return usage_error("the value of --%s has %zu characters, over the %d a value may have",
                               name, strlen(value), MAX_VALUE);
        if (t) {
            if (!value) return usage_error("option --%s needs a value", name);
            int rc = set_tool_option(c, name, value);
            if (rc) return rc;
            continue;
        }
        if (c->nopts == MAX_OPTS) return usage_error("too many options (at most %d)", MAX_OPTS);
        char *copy = malloc(strlen(name) + 1);
        if (!copy) return usage_error("out of memory");
        strcpy(copy, name);
        c->opts[c->nopts++] = (co_option){copy, value};
    }
    if (c->json && c->csv) return usage_error("--json and --csv exclude each other");
    return 0;
}

static void cli_free(cli *c) {
    for (size_t i = 0; i < c->nopts; i++) free((char *)c->opts[i].name);
}

/* ---- progress and Ctrl-C ---- */

/* The first Ctrl-C asks the run to stop (the progress callback returns
 * true; the library frees what it holds and returns CO_ERR_INTERRUPTED), the
 * second ends the process at once. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
    (void)sig;
    if (interrupted) _exit(EXIT_INTERRUPTED);
    interrupted = 1;
}

static void catch_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* One line on stderr, rewritten with \r: only on a terminal, and not with
 * --json or --csv. */
static struct {
    bool on, shown;
    double printed_ms;
} line;

#define LINE_EVERY_MS 250.0

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void line_clear(void) {
    if (!line.shown) return;
    fputs("\r\033[K", stderr);
    line.shown = false;
}

/* Show text, cut to the terminal's width so that \r can rewrite it. */
static void line_show(const char *text) {
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
    fprintf(stderr, "\r\033[K%.*s", width, text);
    fflush(stderr);
    line.shown = true;
    line.printed_ms = now_ms();
}

/* 12345678 as "12,345,678". */
static void with_commas(double x, char *out, size_t len) {
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", x < 0 ? 0 : x > 1e18 ? 1e18 : x);
    size_t n = strlen(digits), o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        out[o++] = digits[i];
        if ((n - 1 - i) % 3 == 0 && i + 1 < n) out[o++] = ',';
    }
    out[o] = 0;
}

/* "6 h 46 min", "3 min 12 s", "12 s", "<1 s". */
static void duration(double ms, char *out, size_t len) {
    const long s = (long)(ms / 1000 + 0.5);
    if (ms < 500)
        snprintf(out, len, "<1 s");
    else if (s >= 3600)
        snprintf(out, len, "%ld h %ld min", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        snprintf(out, len, "%ld min %ld s", s / 60, s % 60);
    else
        snprintf(out, len, "%ld s", s);
}

/* "  collider/c on c: run 1 of 4 (warm-up), step 12,345 / 100,000,000
 * (4,100 steps/s, ETA 6 h 46 min)" */
static void progress_text(const co_progress *p, char *out, size_t len) {
    size_t used = (size_t)snprintf(out, len, "  %s/%s on %s: ", p->workload, p->variant, p->device);
    if (p->run)
        used += (size_t)snprintf(out + used, len - used, "run %u of %u%s", p->run, p->runs,
                                 strcmp(p->phase, "warm-up") ? "" : " (warm-up)");
    else
        used += (size_t)snprintf(out + used, len - used, "reference");
    if (used >= len) return;
    char rate[48] = "", eta[48] = "";
    if (p->eta_ms >= 0) {
        char d[32];
        duration(p->eta_ms, d, sizeof d);
        snprintf(eta, sizeof eta, "ETA %s", d);
    }
    if (p->unit) {
        char done[32], total[32];
        with_commas(p->done, done, sizeof done);
        with_commas(p->total, total, sizeof total);
        if (p->per_s >= 100)
            with_commas(p->per_s, rate, sizeof rate);
        else if (p->per_s > 0)
            snprintf(rate, sizeof rate, "%.3g", p->per_s);
        if (rate[0]) snprintf(rate + strlen(rate), sizeof rate - strlen(rate), " %ss/s", p->unit);
        used += (size_t)snprintf(out + used, len - used, ", %s %s / %s", p->unit, done, total);
    }
    if (used < len && (rate[0] || eta[0]))
        snprintf(out + used, len - used, " (%s%s%s)", rate, rate[0] && eta[0] ? ", " : "", eta);
}

/* run and bench: a progress line for people on a terminal, and Ctrl-C. */
static void start_runs(const cli *c) {
    line.on = isatty(STDERR_FILENO) && !c->json && !c->csv;
    catch_sigint();
}

static bool on_progress(const co_progress *p, void *user) {
    (void)user;
    if (line.on && !interrupted && now_ms() - line.printed_ms >= LINE_EVERY_MS) {
        char text[512];
        progress_text(p, text, sizeof text);
        line_show(text);
    }
    return interrupted != 0;
}

/* ---- running and comparing ---- */

typedef struct rows {
    report_row *v;
    size_t n, cap;
} rows;

static report_row *rows_add(rows *r) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        report_row *grown = realloc(r->v, cap * sizeof *grown);
        if (!grown) return NULL;
        r->v = grown;
        r->cap = cap;
    }
    memset(&r->v[r->n], 0, sizeof r->v[0]);
    return &r->v[r->n++];
}

static bool same_sizes(const co_result *a, const co_result *b) {
    if (strcmp(a->workload, b->workload) || a->nsizes != b->nsizes) return false;
    for (size_t i = 0; i < a->nsizes; i++)
        if (strcmp(a->sizes[i].name, b->sizes[i].name) ||
            strcmp(a->sizes[i].value, b->sizes[i].value))
            return false;
    return true;
}

static bool measured(const report_row *r) { return r->status == CO_OK && r->r.median_ms > 0; }

/* The library a result's workload is compared with on its device, or NULL. */
static const char *anchor_of(const co_context *ctx, const co_result *r) {
    const char *backend = "";
    for (size_t d = 0; d < co_device_count(ctx); d++)
        if (!strcmp(co_device_get(ctx, d)->spec, r->device))
            backend = co_device_get(ctx, d)->backend;
    return co_workload_anchor(r->workload, backend);
}

/* Ratios within one invocation: speedup over sequential C, and the time of
 * the workload's anchor library on the same device (for `c`: on `omp`,
 * the same cores) over this time. */
static void compare(const co_context *ctx, rows *all) {
    for (size_t i = 0; i < all->n; i++) {
        report_row *row = &all->v[i];
        if (!measured(row)) continue;
        const char *anchor = anchor_of(ctx, &row->r);
        for (size_t j = 0; j < all->n; j++) {
            const report_row *other = &all->v[j];
            if (!measured(other) || !same_sizes(&row->r, &other->r)) continue;
            if (!strcmp(other->r.device, "c") && !strcmp(other->r.variant, "c"))
                row->vs_c = other->r.median_ms / row->r.median_ms;
            bool same_cores = !strcmp(other->r.device, row->r.device) ||
                              (!strcmp(row->r.device, "c") && !strcmp(other->r.device, "omp"));
            if (anchor && same_cores && !strcmp(other->r.variant, anchor)) {
                snprintf(row->anchor, sizeof row->anchor, "%s", anchor);
                row->vs_anchor = other->r.median_ms / row->r.median_ms;
            }
        }
    }
}

/* One run; the row keeps the result or the error. Returns the status. */
static co_status run_one(co_context *ctx, const cli *c, const char *workload, const char *variant,
                         size_t device, const co_option *opts, size_t nopts, rows *out) {
    co_run_config cfg = {
        .workload = workload,
        .variant = variant,
        .device = device,
        .options = opts,
        .noptions = nopts,
        .params = c->params,
        .nparams = c->nparams,
        .reps = c->reps,
        .warmup = c->warmup,
        .seed = c->seed,
        .verify = !c->no_verify,
        .progress = on_progress,
        .untuned = c->untuned,
    };
    memcpy(cfg.local, c->local, sizeof cfg.local);
    report_row *row = rows_add(out);
    if (!row) {
        fprintf(stderr, "coalesce: out of memory\n");
        return CO_ERR_NOMEM;
    }
    bool had_peak = co_peak_known(ctx, device);
    row->status = co_run(ctx, &cfg, &row->r);
    line_clear();
    if (!had_peak && co_peak_known(ctx, device)) { /* co_run measured them for the fraction */
        char path[1024];
        co_peak p;
        if (co_peak_cache_path(path, sizeof path)) snprintf(path, sizeof path, "no cache file");
        if (co_peak_get(ctx, device, &p) == CO_OK && !p.stored)
            fprintf(stderr, "  measured the ceilings of %s first (not kept: %s)\n",
                    co_device_get(ctx, device)->spec, p.store_error);
        else
            fprintf(stderr,
                    "  measured the ceilings of %s first (kept in %s; see 'coalesce peak')\n",
                    co_device_get(ctx, device)->spec, path);
    }
    if (row->status != CO_OK) {
        snprintf(row->error, sizeof row->error, "%s", co_last_error());
        /* Keep the identity of a run that stopped before filling its result. */
        if (!row->r.workload[0]) {
            snprintf(row->r.workload, sizeof row->r.workload, "%s", workload);
            snprintf(row->r.variant, sizeof row->r.variant, "%s", variant ? variant : "");
            snprintf(row->r.device, sizeof row->r.device, "%s", co_device_get(ctx, device)->spec);
            snprintf(row->r.device_name, sizeof row->r.device_name, "%s",
                     co_device_get(ctx, device)->name);
        }
    }
    return row->status;
}

/* bench's closing table, once every row is known (and so every ratio): for
 * each workload, sizes and device, the fastest of our variants (not the
 * anchor library) that ran. */
static void print_summary(const co_context *ctx, const rows *all) {
    rows best = {0};
    for (size_t i = 0; i < all->n; i++) {
        const report_row *row = &all->v[i];
        const char *anchor = anchor_of(ctx, &row->r);
        if (!measured(row) || (anchor && !strcmp(anchor, row->r.variant))) continue;
        size_t j;
        for (j = 0; j < best.n; j++)
            if (same_sizes(&best.v[j].r, &row->r) && !strcmp(best.v[j].r.device, row->r.device))
                break;
        const bool fresh = j == best.n;
        report_row *slot = fresh ? rows_add(&best) : &best.v[j];
        if (!slot) break;
        if (fresh || row->r.median_ms < slot->r.median_ms) *slot = *row;
    }
    if (best.n) {
        printf("\nfastest per device (vs c: speedup over sequential C; vs anchor: the library's "
               "time over this one)\n");
        report_stream sums = {0};
        for (size_t i = 0; i < best.n; i++) report_stream_row(stdout, &sums, &best.v[i]);
    }
    free(best.v);
}

/* The results of rows, as the document's "results" array. */
static cJSON *rows_json(const co_context *ctx, const rows *all) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < all->n; i++) cJSON_AddItemToArray(a, results_row(ctx, &all->v[i]));
    return a;
}

/* -o FILE: the rows so far, their ratios as known now. */
static void save_rows(const co_context *ctx, rows *all, results_file *file) {
    if (!file->doc) return;
    compare(ctx, all);
    results_file_set(file, rows_json(ctx, all));
}

/* The rows of finished runs: all but one that was interrupted. */
static void print_rows(const co_context *ctx, rows *all, const cli *c, bool table,
                       const char *command, const size_t *devices, size_t ndevices) {
    compare(ctx, all);
    if (c->json) {
        cJSON *doc = results_doc(command, results_meta(ctx, devices, ndevices));
        cJSON_ReplaceItemInObjectCaseSensitive(doc, "results", rows_json(ctx, all));
        if (!results_print(stdout, doc)) fprintf(stderr, "coalesce: out of memory\n");
        cJSON_Delete(doc);
    } else if (c->csv) {
        results_csv_header(stdout);
        for (size_t i = 0; i < all->n; i++) results_csv_row(stdout, ctx, &all->v[i]);
    } else if (table) {
        if (all->n > 1) print_summary(ctx, all); /* the rows were printed as they ended */
    } else {
        for (size_t i = 0; i < all->n; i++)
            if (all->v[i].status == CO_OK || all->v[i].status == CO_ERR_VERIFY)
                report_human(stdout, &all->v[i]);
    }
}

/* A run that co_run stopped (Ctrl-C): its row is dropped, its message kept.
 * Returns whether the command is to stop. */
static bool stopped_here(rows *all, co_status st, char *why, size_t len) {
    if (st == CO_ERR_INTERRUPTED) {
        snprintf(why, len, "%s", all->v[all->n - 1].error);
        all->n--;
    } else if (interrupted) {
        snprintf(why, len, "interrupted (Ctrl-C)");
    }
    return why[0] != 0;
}

static int select_devices(co_context *ctx, const char *spec, size_t *idx, size_t *n) {
    co_status st = co_device_select(ctx, spec, idx, MAX_DEVICES, n);
    return st ? fail(st) : 0;
}

static int cmd_run(co_context *ctx, cli *c) {
    if (c->npositional != 1)
        return usage_error("run takes one WORKLOAD (e.g. 'coalesce run gemm'), got %s",
                           c->npositional ? "several" : "none");
    const char *workload = c->positional[0];
    size_t idx[MAX_DEVICES], n;
    const char *spec = c->device;
    if (!spec) {
        size_t probe;
        spec = co_device_select(ctx, "opencl", &probe, 1, &n) == CO_OK ? "opencl" : "omp";
    }
    int rc = select_devices(ctx, spec, idx, &n);
    if (rc) return rc;
    results_file file;
    if (!results_file_open(&file, c->out, "run", results_meta(ctx, idx, n))) return EXIT_FAILED;
    rows all = {0};
    co_status worst = CO_OK;
    char stopped[512] = "";
    size_t unsupported = 0;
    for (size_t d = 0; d < n && !interrupted; d++) {
        co_status st = run_one(ctx, c, workload, c->variants, idx[d], c->opts, c->nopts, &all);
        if (stopped_here(&all, st, stopped, sizeof stopped)) break;
        save_rows(ctx, &all, &file); /* a failed run's row too: the file says what happened */
        /* Several devices: one the variant does not run on is skipped (its
         * row says so); the run is skipped only where none ran it. */
        if (st == CO_ERR_UNSUPPORTED && n > 1 && ++unsupported < n) continue;
        if (st != CO_OK && st != CO_ERR_VERIFY) {
            free(all.v);
            results_file_close(&file);
            return fail(st); /* one clear line; nothing half-printed */
        }
        if (st) worst = st;
    }
    if (!results_file_close(&file) && !worst) worst = CO_ERR_IO;
    if (interrupted && !stopped[0]) snprintf(stopped, sizeof stopped, "interrupted (Ctrl-C)");
    print_rows(ctx, &all, c, false, "run", idx, n); /* what finished */
    for (size_t i = 0; i < all.n; i++)
        if (all.v[i].status == CO_ERR_VERIFY) fprintf(stderr, "coalesce: %s\n", all.v[i].error);
    free(all.v);
    if (stopped[0]) {
        fprintf(stderr, "coalesce: %s\n", stopped);
        return EXIT_INTERRUPTED;
    }
    return tools_exit_code(worst);
}

static bool variant_selected(const char *list, const char *name) {
    if (!list) return true;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && !strncmp(p, name, len)) return true;
        p += l + (p[l] == ',');
    }
    return false;
}

/* Appends " NAME=VALUE" (VALUE its first vlen characters) to a set's text.
 * False, and nothing cut, when it does not fit. */
static bool set_append(char *set, size_t *used, const char *name, const char *value, size_t vlen) {
    int n = snprintf(set + *used, SET_LEN - *used, "%s%s=%.*s", *used ? " " : "", name, (int)vlen,
                     value);
    if (n < 0 || (size_t)n >= SET_LEN - *used) return false;
    *used += (size_t)n;
    return true;
}

/* The option sets one workload is benched at: --set, else --size lists
 * crossed with the other options, else the workload's own sets. Returns 0,
 * or the exit code of a set that does not fit (checked before any run). */
static int bench_sets(const cli *c, const char *workload, char sets[][SET_LEN], size_t cap,
                      size_t *count) {
    size_t n = 0;
    *count = 0;
    for (size_t i = 0; i < c->nsets && n < cap; i++) snprintf(sets[n++], SET_LEN, "%s", c->sets[i]);
    if (!n && c->nopts) { /* a set per element of --size, else one */
        const char *size = NULL;
        for (size_t i = 0; i < c->nopts; i++)
            if (!strcmp(c->opts[i].name, "size")) size = c->opts[i].value;
        const char *p = size;
        do {
            size_t l = p ? strcspn(p, ",") : 0, used = 0;
            if (n == cap) return usage_error("--size lists at most %zu sizes", cap);
            sets[n][0] = 0;
            bool fits = !p || set_append(sets[n], &used, "size", p, l);
            for (size_t i = 0; fits && i < c->nopts; i++)
                if (strcmp(c->opts[i].name, "size"))
                    fits = set_append(sets[n], &used, c->opts[i].name, c->opts[i].value,
                                      strlen(c->opts[i].value));
            if (!fits)
                return usage_error("bench: the workload options make a set of over %d "
                                   "characters, more than one holds",
                                   SET_LEN - 1);
            n++;
            if (p) p += l + (p[l] == ',');
        } while (p && *p);
    }
    if (!n) {
        const char *list = co_workload_bench_sets(workload, c->quick);
        for (const char *p = list; p && *p && n < cap;) {
            size_t l = strcspn(p, ";");
            snprintf(sets[n++], SET_LEN, "%.*s", (int)l, p);
            p += l + (p[l] == ';');
        }
    }
    *count = n;
    return 0;
}

/* Which of bench's default sets a device runs: bit 1 CPUs, bit 2 GPUs and accelerators. */
static unsigned kind_bit(const co_device_info *info) {
    return info->type == CO_DEVICE_CPU ? 1u : 2u;
}

/* bench's own sets of a workload for the selected devices: the CPU's, then
 * the GPU's that the CPU's lack; kinds[i] says which devices run set i
 * (kind_bit). */
static size_t default_sets(const co_context *ctx, const size_t *idx, size_t n, const char *workload,
                           bool quick, char sets[][SET_LEN], unsigned *kinds, size_t cap) {
    size_t count = 0;
    for (unsigned bit = 1; bit <= 2; bit++) {
        bool present = false;
        for (size_t d = 0; d < n; d++) present |= kind_bit(co_device_get(ctx, idx[d])) == bit;
        const char *list =
            co_workload_bench_sets_for(workload, quick, bit == 1 ? CO_DEVICE_CPU : CO_DEVICE_GPU);
        for (const char *p = list; present && p && *p;) {
            const size_t l = strcspn(p, ";");
            char set[SET_LEN];
            snprintf(set, sizeof set, "%.*s", (int)(l < SET_LEN - 1 ? l : SET_LEN - 1), p);
            size_t j = 0;
            while (j < count && strcmp(sets[j], set)) j++;
            if (j == count && count < cap) {
                memcpy(sets[count], set, sizeof set);
                kinds[count++] = 0;
            }
            if (j < count) kinds[j] |= bit;
            p += l + (p[l] == ';');
        }
    }
    return count;
}

static int cmd_bench(co_context *ctx, cli *c) {
    const char *workloads[16];
    size_t nw = 0;
    if (c->npositional) /* the ones named, else every workload */
        for (size_t i = 0; i < c->npositional; i++) workloads[nw++] = c->positional[i];
    else
        for (size_t i = 0; i < co_workload_count() && nw < 16; i++)
            workloads[nw++] = co_workload_name(i);
    for (const char *p = c->variants; p && *p;) { /* every named variant must exist */
        size_t l = strcspn(p, ",");
        bool found = false;
        for (size_t w = 0; w < nw; w++) {
            const char *v;
            for (size_t i = 0; (v = co_variant_name(workloads[w], i)); i++)
                found |= strlen(v) == l && !strncmp(v, p, l);
        }
        if (!found) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)l, p);
            return usage_error("unknown variant '%s' (see 'coalesce list')", name);
        }
        p += l + (p[l] == ',');
    }
    size_t idx[MAX_DEVICES], n;
    int rc = select_devices(ctx, c->device ? c->device : "all", idx, &n);
    if (rc) return rc;
    results_file file;
    if (!results_file_open(&file, c->out, "bench", results_meta(ctx, idx, n))) return EXIT_FAILED;
    rows all = {0};
    co_status worst = CO_OK;
    bool any = false;
    char stopped[512] = "";
    report_stream stream = {0};
    for (size_t w = 0; w < nw && !stopped[0]; w++) {
        char sets[MAX_SETS][SET_LEN];
        unsigned kinds[MAX_SETS];
        size_t nsets;
        const bool given = c->nsets || c->nopts;
        if (!given) {
            nsets = default_sets(ctx, idx, n, workloads[w], c->quick, sets, kinds, MAX_SETS);
        } else if ((rc = bench_sets(c, workloads[w], sets, MAX_SETS,
                                    &nsets))) { /* checked in main */
            free(all.v);
            results_file_close(&file);
            return rc;
        }
        for (size_t s = 0; s < nsets && !stopped[0]; s++) {
            char store[SET_LEN];
            co_option opts[SET_WORDS];
            size_t nopts = co_parse_options(sets[s], store, sizeof store, opts, SET_WORDS);
            for (size_t d = 0; d < n && !stopped[0]; d++) {
                const co_device_info *info = co_device_get(ctx, idx[d]);
                if (!given && !(kinds[s] & kind_bit(info))) continue;
                const char *variant;
                for (size_t v = 0; (variant = co_variant_name(workloads[w], v)); v++) {
                    if (!variant_selected(c->variants, variant)) continue;
                    if (!co_variant_runs_on(ctx, workloads[w], variant, idx[d], NULL)) continue;
                    if (interrupted) {
                        snprintf(stopped, sizeof stopped, "interrupted (Ctrl-C)");
                        break;
                    }
                    char what[512];
                    snprintf(what, sizeof what, "  %s %s on %s: %s...", workloads[w], sets[s],
                             info->spec, variant);
                    if (line.on) line_show(what); /* rewritten by the run's progress */
                    co_status st =
                        run_one(ctx, c, workloads[w], variant, idx[d], opts, nopts, &all);
                    any |= st != CO_ERR_UNSUPPORTED; /* a skip: nothing ran */
                    if (st == CO_ERR_INVALID) {      /* a bad size or option: the same for all */
                        free(all.v);
                        results_file_close(&file);
                        return fail(st);
                    }
                    if (st && st != CO_ERR_UNSUPPORTED && st != CO_ERR_INTERRUPTED) worst = st;
                    if (st != CO_ERR_INTERRUPTED && !c->json && !c->csv) { /* each row as it ends */
                        compare(ctx, &all);
                        report_stream_row(stdout, &stream, &all.v[all.n - 1]);
                        fflush(stdout);
                    }
                    const bool stop = stopped_here(&all, st, stopped, sizeof stopped);
                    if (st != CO_ERR_INTERRUPTED) save_rows(ctx, &all, &file);
                    if (stop) break;
                }
            }
        }
    }
    const bool kept = results_file_close(&file);
    if (!any && !stopped[0]) {
        if (c->json || c->csv) print_rows(ctx, &all, c, false, "bench", idx, n); /* why, per row */
        free(all.v);
        fprintf(stderr, "coalesce: nothing ran: no selected variant runs on the selected "
                        "devices here\n");
        return EXIT_SKIPPED;
    }
    print_rows(ctx, &all, c, true, "bench", idx, n);
    bool tuned = false;
    for (size_t i = 0; i < all.n; i++) tuned |= all.v[i].r.tuned;
    if (tuned && !c->json && !c->csv)
        printf("\nvariant+: ran with the tuning database's values ('coalesce tune --list'; "
               "--untuned for the defaults)\n");
    free(all.v);
    if (stopped[0]) {
        fprintf(stderr, "coalesce: %s\n", stopped);
        return EXIT_INTERRUPTED;
    }
    return worst == CO_OK && kept ? EXIT_OK : EXIT_FAILED;
}

static int cmd_peak(co_context *ctx, const cli *c) {
    size_t idx[MAX_DEVICES], n;
    int rc = select_devices(ctx, c->device ? c->device : "all", idx, &n);
    if (rc) return rc;
    results_file file;
    if (!results_file_open(&file, c->out, "peak", results_meta(ctx, idx, n))) return EXIT_FAILED;
    cJSON *doc = c->json ? results_doc("peak", results_meta(ctx, idx, n)) : NULL;
    /* A device that fails is reported; the others are still measured. */
    char not_kept[300] = "";
    for (size_t d = 0; d < n; d++) {
        const co_device_info *info = co_device_get(ctx, idx[d]);
        if (!c->json) fprintf(stderr, "  measuring %s...\n", info->spec);
        co_peak p;
        co_status st = co_peak_measure_flags(ctx, idx[d], c->force ? CO_PEAK_FORCE : 0, &p);
        if (st) {
            fprintf(stderr, "coalesce: %s\n", co_last_error());
            if (doc)
                cJSON_AddItemToArray(results_array(doc),
                                     results_peak(NULL, info->spec, st, co_last_error()));
            results_file_add(&file, results_peak(NULL, info->spec, st, co_last_error()));
            rc = 1;
            continue;
        }
        if (p.kept_older) fprintf(stderr, "coalesce: %s; --force replaces them\n", p.note);
        if (!p.stored) snprintf(not_kept, sizeof not_kept, "%s", p.store_error);
        if (doc)
            cJSON_AddItemToArray(results_array(doc), results_peak(&p, NULL, CO_OK, NULL));
        else
            report_peak(stdout, &p);
        results_file_add(&file, results_peak(&p, NULL, CO_OK, NULL));
    }
    if (!results_file_close(&file) && !rc) rc = EXIT_FAILED;
    if (doc && !results_print(stdout, doc)) fprintf(stderr, "coalesce: out of memory\n");
    cJSON_Delete(doc);
    char path[1024];
    fflush(stdout); /* the figures first, where both go to one place */
    if (not_kept[0])
        fprintf(stderr,
                "coalesce: the ceilings could not be kept (%s): they hold for this run "
                "only\n",
                not_kept);
    else if (!c->json && rc == 0 && !co_peak_cache_path(path, sizeof path))
        printf("kept in %s for the fractions of run and bench\n", path);
    return rc;
}

static bool was_interrupted(void) { return interrupted != 0; }

/* coalesce tune (tools/tune_cmd.c): the problems as bench makes them from
 * --set or the workload options; none given, the device's bench sets. */
static int cmd_tune(co_context *ctx, cli *c) {
    char sets[MAX_SETS][SET_LEN];
    const char *set_text[MAX_SETS];
    size_t nsets = 0;
    if (c->npositional > 1)
        return usage_error("tune takes one WORKLOAD (e.g. 'coalesce tune gemm'), got several");
    const char *workload = c->npositional ? c->positional[0] : tune_preset_workload(c->preset);
    if (workload && (c->nsets || c->nopts)) {
        int rc = bench_sets(c, workload, sets, MAX_SETS, &nsets);
        if (rc) return rc;
    }
    for (size_t i = 0; i < nsets; i++) set_text[i] = sets[i];
    start_runs(c);
    tune_args a = {
        .workload = workload,
        .device = c->device,
        .variants = c->variants,
        .sets = set_text,
        .nsets = nsets,
        .params = c->params,
        .nparams = c->nparams,
        .reps = c->reps,
        .warmup = c->warmup,
        .seed = c->seed,
        .json = c->json,
        .list = c->list,
        .budget_s = c->budget_s,
        .strategy = c->strategy,
        .preset = c->preset,
        .export_file = c->export_file,
        .import_file = c->import_file,
        .out = c->out,
        .line_on = line.on,
        .line_show = line_show,
        .line_clear = line_clear,
        .interrupted = was_interrupted,
    };
    return coalesce_tune(ctx, &a);
}

/* Appends ", name" to a list of names, stopping where the buffer is full. */
static void join_name(char *out, size_t len, size_t *used, const char *name) {
    if (*used >= len) return;
    int n = snprintf(out + *used, len - *used, "%s%s", *used ? ", " : "", name);
    *used = n < 0 ? len : *used + (size_t)n;
}

/* list WORKLOAD: every option with its help and default, every variant with its tunables. */
static int list_workload(const char *name) {
    size_t w = 0;
    while (w < co_workload_count() && strcmp(co_workload_name(w), name)) w++;
    if (w == co_workload_count()) {
        char names[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < co_workload_count(); i++)
            join_name(names, sizeof names, &used, co_workload_name(i));
        return usage_error("unknown workload '%s' (use %s)", name, names);
    }
    printf("%s: %s\n\noptions (--NAME VALUE):\n", name, co_workload_summary(w));
    const char *opt, *def, *help;
    for (size_t i = 0; (opt = co_workload_option(name, i, &def, &help)); i++)
        printf("  --%-12s %s (default: %s)\n", opt, help ? help : "", def ? def : "none");
    static const char *const backends[] = {"c", "omp", "opencl", "cuda"};
    printf("\nanchors (the library each backend is compared with):");
    bool any = false;
    for (size_t b = 0; b < 4; b++) {
        const char *a = co_workload_anchor(name, backends[b]);
        if (a) printf(" %s: %s;", backends[b], a), any = true;
    }
    printf("%s\n\nvariants (--variant NAME) and their tunables (--param NAME=V):\n",
           any ? "" : " none");
    const char *v;
    for (size_t i = 0; (v = co_variant_name(name, i)); i++) {
        printf("  %-10s %s\n", v, co_variant_summary(name, i));
        co_param_info pi;
        for (size_t j = 0; co_variant_param(name, v, j, &pi); j++) {
            char gpu[48] = "";
            if (pi.def_gpu != pi.def) snprintf(gpu, sizeof gpu, ", on GPUs %ld", pi.def_gpu);
            printf("      %-8s %s; %ld..%ld%s, default %ld%s\n", pi.name, pi.help, pi.min, pi.max,
                   pi.pow2 ? " (a power of two)" : "", pi.def, gpu);
        }
    }
    return EXIT_OK;
}

static int cmd_list(const cli *c) {
    if (c->npositional > 1) return usage_error("list takes at most one WORKLOAD");
    if (c->npositional) return list_workload(c->positional[0]);
    for (size_t w = 0; w < co_workload_count(); w++) {
        const char *name = co_workload_name(w);
        printf("%s: %s\n  options:", name, co_workload_summary(w));
        const char *opt, *def, *help;
        for (size_t i = 0; (opt = co_workload_option(name, i, &def, &help)); i++)
            printf(" --%s%s%s", opt, def ? "=" : "", def ? def : "");
        printf("\n  variants:\n");
        const char *v;
        for (size_t i = 0; (v = co_variant_name(name, i)); i++)
            printf("    %-9s %s\n", v, co_variant_summary(name, i));
    }
    return 0;
}

static bool workload_takes(const char *workload, const char *option, size_t len) {
    const char *o;
    for (size_t i = 0; (o = co_workload_option(workload, i, NULL, NULL)); i++)
        if (strlen(o) == len && !strncmp(o, option, len)) return true;
    return false;
}

static int unknown_option(const char *workload, const char *option, size_t len) {
    char names[256] = "";
    size_t used = 0;
    const char *o;
    for (size_t i = 0; (o = co_workload_option(workload, i, NULL, NULL)); i++)
        join_name(names, sizeof names, &used, o);
    return usage_error("unknown option '--%.*s' for %s (it takes %s)", (int)len, option, workload,
                       names);
}

/* A --set: NAME=VALUE words, each an option of every workload benched. */
static int check_set(const char *set, const char *const *workloads, size_t nw) {
    size_t len = strlen(set), words = 0;
    if (len >= SET_LEN)
        return usage_error("--set '%.32s...' has %zu characters, over the %d a set may have", set,
                           len, SET_LEN - 1);
    for (const char *p = set + strspn(set, " "); *p; p += strspn(p, " ")) {
        size_t l = strcspn(p, " "), name = strcspn(p, "= ");
        if (name == l || name == 0)
            return usage_error("--set word '%.*s' is not NAME=VALUE (in --set '%s')", (int)l, p,
                               set);
        if (++words > SET_WORDS) return usage_error("--set '%s' has over %d words", set, SET_WORDS);
        for (size_t w = 0; w < nw; w++)
            if (!workload_takes(workloads[w], p, name))
                return unknown_option(workloads[w], p, name);
        p += l;
    }
    if (!words)
        return usage_error("--set '%s' is empty: give NAME=VALUE words, e.g. --set \"size=64\"",
                           set);
    return 0;
}

/* run and bench: the workloads named and every option given to them, checked
 * before any device is touched. */
static int check_workload_options(const struct command *cmd, const cli *c) {
    const char *named[16];
    size_t nw = 0;
    if (cmd->bit == CMD_BENCH && !c->npositional)
        for (size_t i = 0; i < co_workload_count() && nw < 16; i++)
            named[nw++] = co_workload_name(i);
    else if (cmd->bit == CMD_BENCH || c->npositional == 1) /* run: cmd_run says how many */
        for (size_t i = 0; i < c->npositional; i++) named[nw++] = c->positional[i];
    for (size_t w = 0; w < nw; w++) {
        bool known = false;
        for (size_t i = 0; i < co_workload_count(); i++)
            known |= !strcmp(co_workload_name(i), named[w]);
        if (known) continue;
        char names[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < co_workload_count(); i++)
            join_name(names, sizeof names, &used, co_workload_name(i));
        return usage_error("unknown workload '%s' (use %s)", named[w], names);
    }
    for (size_t i = 0; i < c->nopts; i++)
        for (size_t w = 0; w < nw; w++)
            if (!workload_takes(named[w], c->opts[i].name, strlen(c->opts[i].name)))
                return unknown_option(named[w], c->opts[i].name, strlen(c->opts[i].name));
    for (size_t i = 0; i < c->nopts; i++)
        if (!c->opts[i].value) return usage_error("option --%s needs a value", c->opts[i].name);
    if (cmd->bit == CMD_RUN || !nw) return 0;
    if (c->nsets && c->nopts)
        return usage_error("--set and workload options (--%s) exclude each other: put them in "
                           "the set",
                           c->opts[0].name);
    if (c->nopts > SET_WORDS)
        return usage_error("bench takes at most %d workload options", SET_WORDS);
    for (size_t i = 0; i < c->nsets; i++) {
        int rc = check_set(c->sets[i], named, nw);
        if (rc) return rc;
    }
    char sets[MAX_SETS][SET_LEN];
    size_t n;
    return bench_sets(c, named[0], sets, MAX_SETS, &n);
}

int main(int argc, char **argv) {
    tools_quiet_thread_pools(argv);
    results_set_argv(argc, argv);
    if (argc < 2)
        return usage_error("no command given: use devices, list, run, bench, peak, il, tune, "
                           "compare, report or help");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") && argc == 3) return coalesce_help(argv[2]);
    if (!strcmp(cmd, "help") && argc > 3) return usage_error("help takes one COMMAND");
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "il")) return coalesce_il(argc - 2, argv + 2);
    if (!strcmp(cmd, "compare")) return coalesce_compare(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return coalesce_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "--version")) {
        printf("coalesce %s\n", co_version());
        return EXIT_OK;
    }
    const struct command *command = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) command = &commands[i];
    if (!command)
        return usage_error("unknown command '%s': use devices, list, run, bench, peak, il, "
                           "tune, compare, report or help",
                           cmd);
    cli c;
    int rc = parse(command, argc - 2, argv + 2, &c);
    if (!rc && c.help) {
        cli_free(&c);
        return coalesce_help(command->name);
    }
    if (!rc && (command->bit & CMD_PROBLEM)) rc = check_workload_options(command, &c);
    if (rc || command->bit == CMD_LIST) {
        cli_free(&c);
        return rc ? rc : cmd_list(&c);
    }
    co_context *ctx;
    co_status st = co_context_create(&ctx);
    if (st) {
        cli_free(&c);
        return fail(st);
    }
    if (command->bit == CMD_DEVICES) {
        if (c.json) {
            cJSON *doc = results_devices_doc(ctx);
            cJSON *mpi = cJSON_AddObjectToObject(doc, "mpi"); /* coalesce-mpi, built or why not */
            cJSON_AddBoolToObject(mpi, "available", COALESCE_MPI_STATUS[0] != 0);
            cJSON_AddStringToObject(mpi, COALESCE_MPI_STATUS[0] ? "tool" : "reason",
                                    COALESCE_MPI_STATUS[0] ? COALESCE_MPI_STATUS
                                                           : COALESCE_MPI_REASON);
            if (!results_print(stdout, doc)) {
                fprintf(stderr, "coalesce: out of memory\n");
                rc = EXIT_FAILED;
            }
            cJSON_Delete(doc);
        } else {
            report_devices(stdout, ctx);
            if (COALESCE_MPI_STATUS[0])
                printf("%-9s %s\n", "mpi", COALESCE_MPI_STATUS);
            else
                printf("%-9s unavailable: %s\n", "mpi", COALESCE_MPI_REASON);
        }
    } else if (command->bit == CMD_PEAK)
        rc = cmd_peak(ctx, &c);
    else if (command->bit == CMD_TUNE)
        rc = cmd_tune(ctx, &c);
    else {
        start_runs(&c);
        rc = command->bit == CMD_RUN ? cmd_run(ctx, &c) : cmd_bench(ctx, &c);
    }
    co_context_destroy(ctx);
    cli_free(&c);
    return rc;
}
