/* coalesce-mpi: the workloads over MPI ranks, one device a rank.
 *   mpirun -np N coalesce-mpi run WORKLOAD [options]
 *   mpirun -np N coalesce-mpi ranks [--device SPEC]
 *   mpirun -np 2 coalesce-mpi link [--device SPEC] [--bytes N]
 * Each rank takes a device of the spec: the local rank's (mod their
 * number) where it names several, so that each rank of a host has its own
 * GPU; ranks that share the CPU (c, omp, OpenCL on CPUs) each get their
 * share of its cores. Rank 0 makes the whole problem as `coalesce run`
 * does (inputs from --seed, the reference), runs it once on its own device
 * (the single-device run, the figure the distributed run is compared with),
 * hands the inputs out, and after each distributed run gathers the outputs
 * and verifies them with the workload's own check. Errors: one line on
 * rank 0's stderr, "coalesce-mpi: ", with the failing rank named; every
 * rank exits with the same code (coalesce's: 0, 1, 2 usage, 3 skipped). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist.h" /* mpi.h */
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI's MPIX_Query_cuda_support, after mpi.h */
#endif
#include "results.h"
#include "tools.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 }; /* and tools_exit_code's */

#define MAX_OPTS 32
#define MAX_REPS 1000
#define REP_BUDGET_MS 15000.0 /* as co_run: repetitions stop past it (at least 3) */

static const char usage[] =
    "usage: mpirun -np N coalesce-mpi COMMAND [options]\n"
    "  run WORKLOAD [options]   the workload split over the ranks, one device a rank,\n"
    "                           verified against the single-device reference and timed\n"
    "  ranks [--device SPEC]    which device (and cores) each rank takes\n"
    "  link [--device SPEC] [--bytes N]  bandwidth from rank 0's device to rank 1's: MPI\n"
    "                           between host buffers, staged through the host, and on the\n"
    "                           devices' buffers where MPI can (messages 4 KiB to N, 128 MiB)\n"
    "options (run):\n"
    "  --device SPEC     as coalesce's; each rank takes the local rank's device of those\n"
    "                    it names (mod their number); ranks sharing the CPU (c, omp,\n"
    "                    OpenCL on CPUs) get their share of its cores (default: cuda,\n"
    "                    else opencl:gpu, else omp)\n"
    "  --variant V       the variant every rank runs (default: its device's)\n"
    "  --reps N          timed repetitions (default 5); --warmup N untimed first (default 1)\n"
    "  --seed S          inputs are random from this seed (default 1)\n"
    "  --no-verify       no reference, no single-device run, no gather and check\n"
    "  --staging host    copy every message through host memory, also where MPI could\n"
    "                    address the buffers (the host devices' memory; a CUDA-aware\n"
    "                    MPI's device memory); --staging auto (default) uses them there\n"
    "  --grid RxC        gemm: the process grid (default: R <= C, R x C = N, most square)\n"
    "  --panel K         gemm: the width of SUMMA's panels (default: k / (2 max(R, C)))\n"
    "  --json            one document (docs/results-format.md) with the ranks and devices\n"
    "  -o FILE           the JSON document to FILE as well\n"
    "  workload options: as 'coalesce run' takes them ('coalesce list WORKLOAD')\n"
    "An error is one line from rank 0 naming the failing rank; every rank exits with\n"
    "coalesce's codes (0 ok, 1 failed or wrong, 2 usage, 3 skipped). docs/MPI.md: how\n"
    "each workload is split and what to expect of it on several GPUs.\n"
    "workloads:\n";

typedef struct args {
    const char *command, *workload, *device, *variant, *out, *staging;
    co_option opts[MAX_OPTS];
    size_t nopts;
    unsigned reps, warmup;
    uint64_t seed;
    int grid[2], panel;
    size_t bytes; /* link: the largest message */
    bool json, no_verify, help;
} args;

static const dist_workload *const workloads[] = {&dist_gemm, &dist_boxfilter, &dist_collider,
                                                 &dist_raytrace, &dist_reduce};

static const dist_workload *find_workload(const char *name) {
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        if (!strcmp(workloads[i]->name, name)) return workloads[i];
    return NULL;
}

/* Every rank parses the same argv alike: rank 0 alone says what is wrong. */
static int rank0;

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
    if (rank0) return EXIT_USAGE;
    va_list ap;
    va_start(ap, fmt);
    fputs("coalesce-mpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see 'coalesce-mpi --help')\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static bool workload_takes(const char *workload, const char *option) {
    const char *o;
    for (size_t i = 0; (o = co_workload_option(workload, i, NULL, NULL)); i++)
        if (!strcmp(o, option)) return true;
    return false;
}

/* Options the distributed runs do not take: written during a run, or a
 * fixed scenario (a handful of balls). */
static const char *const refused[][2] = {
    {"collider", "frames"}, {"collider", "gif"}, {"collider", "scenario"}, {"boxfilter", "input"}};

static int take_tool_option(args *a, const char *name, const char *value) {
    uint64_t v;
    if (!strcmp(name, "device"))
        a->device = value;
    else if (!strcmp(name, "variant"))
        a->variant = value;
    else if (!strcmp(name, "staging")) {
        if (strcmp(value, "host") && strcmp(value, "auto"))
            return usage_error("--staging must be host or auto, got '%s'", value);
        a->staging = value;
    } else if (!strcmp(name, "reps")) {
        if (!tools_parse_u64(value, 1, MAX_REPS, &v))
            return usage_error("--reps must be an integer in [1, %d], got '%s'", MAX_REPS, value);
        a->reps = (unsigned)v;
    } else if (!strcmp(name, "warmup")) {
        if (!tools_parse_u64(value, 0, 100, &v))
            return usage_error("--warmup must be an integer in [0, 100], got '%s'", value);
        a->warmup = (unsigned)v;
    } else if (!strcmp(name, "seed")) {
        if (!tools_parse_u64(value, 0, UINT64_MAX, &v))
            return usage_error("--seed must be an integer in [0, 2^64-1], got '%s'", value);
        a->seed = v;
    } else if (!strcmp(name, "panel")) {
        if (!tools_parse_u64(value, 1, 1 << 30, &v))
            return usage_error("--panel must be an integer in [1, 2^30], got '%s'", value);
        a->panel = (int)v;
    } else if (!strcmp(name, "grid")) {
        unsigned r, c;
        char end;
        if (sscanf(value, "%ux%u%c", &r, &c, &end) != 2 || !r || !c || r > 4096 || c > 4096)
            return usage_error("--grid must be RxC with R, C in [1, 4096], got '%s'", value);
        a->grid[0] = (int)r, a->grid[1] = (int)c;
    } else {
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, args *a) {
    memset(a, 0, sizeof *a);
    a->reps = 5, a->warmup = 1, a->seed = 1, a->staging = "auto";
    if (argc < 2) return usage_error("no command given: use run, ranks, link or --help");
    a->command = argv[1];
    if (!strcmp(a->command, "--help") || !strcmp(a->command, "-h") || !strcmp(a->command, "help")) {
        a->help = true;
        return 0;
    }
    if (!strcmp(a->command, "--version")) return 0;
    if (strcmp(a->command, "run") && strcmp(a->command, "ranks") && strcmp(a->command, "link"))
        return usage_error("unknown command '%s': use run, ranks, link or --help", a->command);
    const bool run = !strcmp(a->command, "run");
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            a->help = true;
            return 0;
        }
        if (!strcmp(arg, "-o")) {
            if (!run) return usage_error("%s does not take -o", a->command);
            if (i + 1 >= argc || !argv[i + 1][0]) return usage_error("-o needs a FILE");
            a->out = argv[++i];
            continue;
        }
        if (strncmp(arg, "--", 2) || !arg[2]) {
            if (!run || a->workload) return usage_error("unexpected argument '%s'", arg);
            a->workload = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg, '=');
        const size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (!len || len >= sizeof name) return usage_error("unknown option '%s'", arg);
        memcpy(name, arg + 2, len);
        name[len] = 0;
        if (!strcmp(name, "param") || !strcmp(name, "local") || !strcmp(name, "untuned") ||
            !strcmp(name, "csv"))
            return usage_error("--%s is coalesce run's: the distributed runs take the variants' "
                               "default tunables and work-groups, and print text or --json",
                               name);
        if (!strcmp(name, "json") || !strcmp(name, "no-verify")) {
            if (eq) return usage_error("option --%s takes no value, got '%s'", name, arg);
            if (!run) return usage_error("%s takes only --device", a->command);
            *(name[0] == 'j' ? &a->json : &a->no_verify) = true;
            continue;
        }
        const char *value = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!value) return usage_error("option --%s needs a value", name);
        if (!run && strcmp(name, "device") && (strcmp(name, "bytes") || a->command[0] != 'l'))
            return usage_error("%s takes only --device%s", a->command,
                               a->command[0] == 'l' ? " and --bytes" : "");
        if (!strcmp(name, "bytes") && !run) {
            uint64_t v;
            if (!tools_parse_u64(value, 4096, (uint64_t)1 << 30, &v))
                return usage_error("--bytes must be an integer in [4096, 2^30], got '%s'", value);
            a->bytes = (size_t)v;
            continue;
        }
        const int rc = take_tool_option(a, name, value);
        if (rc >= 0) {
            if (rc) return rc;
            continue;
        }
        if (!a->workload) return usage_error("--%s before the WORKLOAD", name);
        if (!workload_takes(a->workload, name))
            return usage_error("unknown option '--%s' for %s (see 'coalesce list %s')", name,
                               a->workload, a->workload);
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
            if (!strcmp(refused[k][0], a->workload) && !strcmp(refused[k][1], name))
                return usage_error("%s --%s is not distributed: run it with 'coalesce run'",
                                   a->workload, name);
        if (a->nopts == MAX_OPTS) return usage_error("too many options (at most %d)", MAX_OPTS);
        char *copy = malloc(len + 1);
        if (!copy) return usage_error("out of memory");
        memcpy(copy, name, len + 1);
        a->opts[a->nopts++] = (co_option){copy, value};
    }
    if (run && !a->workload) return usage_error("run takes a WORKLOAD (e.g. 'run gemm')");
    if (run && !find_workload(a->workload)) {
        char names[128] = "";
        for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     workloads[i]->name);
        return usage_error("'%s' is not a distributed workload (use %s)", a->workload, names);
    }
    if (a->grid[0] && strcmp(a->workload, "gemm"))
        return usage_error("--grid is gemm's (the process grid of SUMMA)");
    if (a->panel && strcmp(a->workload, "gemm"))
        return usage_error("--panel is gemm's (the width of SUMMA's panels)");
    return 0;
}

static void args_free(args *a) {
    for (size_t i = 0; i < a->nopts; i++) free((char *)a->opts[i].name);
}

/* ---- ranks and devices ---- */

/* The cores this rank may use: those mpirun bound it to, else its share of
 * the host's among the ranks on it. */
static int core_share(int local_size) {
    cpu_set_t set;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)online;
    if (mine < online) return mine > 0 ? mine : 1; /* bound by mpirun */
    const int share = (int)(online / (local_size > 0 ? local_size : 1));
    return share > 0 ? share : 1;
}

static bool cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

/* The device of this rank: of those the spec selects, the local rank's. */
static co_status pick_device(dist *d, const char *spec, size_t *out) {
    size_t idx[64], n = 0;
    if (!spec) {
        static const char *const order[] = {"cuda", "opencl:gpu", "omp"};
        for (size_t i = 0; i < 3 && !n; i++)
            if (co_device_select(d->ctx, order[i], idx, 64, &n) == CO_OK) spec = order[i];
    }
    co_status st = co_device_select(d->ctx, spec, idx, 64, &n);
    if (st) return st;
    *out = idx[d->local_rank % (int)n];
    return CO_OK;
}

/* What each rank reports of itself (gathered to rank 0). */
typedef struct rank_info {
    char host[64], spec[32], name[128], backend[16], part[96];
    int type, local_rank, threads, direct;
} rank_info;

static rank_info *gather_ranks(dist *d, int threads, const char *part) {
    rank_info me = {0};
    if (gethostname(me.host, sizeof me.host)) snprintf(me.host, sizeof me.host, "?");
    me.host[sizeof me.host - 1] = 0;
    const co_device_info *info = co_device_get(d->ctx, d->device);
    if (info) {
        snprintf(me.spec, sizeof me.spec, "%s", info->spec);
        snprintf(me.name, sizeof me.name, "%s", info->name);
        snprintf(me.backend, sizeof me.backend, "%s", info->backend);
        me.type = (int)info->type;
    }
    snprintf(me.part, sizeof me.part, "%s", part ? part : "");
    me.local_rank = d->local_rank, me.threads = threads, me.direct = d->direct;
    rank_info *all = d->rank == 0 ? calloc((size_t)d->size, sizeof *all) : NULL;
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, d->comm);
    return all;
}

static const char *type_name(int t) {
    return t == CO_DEVICE_GPU ? "gpu" : t == CO_DEVICE_ACCELERATOR ? "accelerator" : "cpu";
}

static void print_ranks(FILE *out, const rank_info *all, int n) {
    for (int r = 0; r < n; r++) {
        fprintf(out, "  rank %-3d %-10s %s on %s, local rank %d, %d thread%s, %s", r, all[r].spec,
                all[r].name, all[r].host, all[r].local_rank, all[r].threads,
                all[r].threads == 1 ? "" : "s", all[r].direct ? "MPI on its buffers" : "staged");
        fprintf(out, "%s%s\n", all[r].part[0] ? "; " : "", all[r].part);
    }
}

/* ---- the run ---- */

typedef struct stats {
    double total[MAX_REPS], compute[MAX_REPS], comm[MAX_REPS], stage[MAX_REPS], sent;
    unsigned n;
} stats;

static double median_of(const double *v, unsigned n) {
    double tmp[MAX_REPS];
    memcpy(tmp, v, n * sizeof *v);
    return n ? co_median(tmp, n) : 0;
}

/* One line of the distributed figures; rows of the document. */
static cJSON *mpi_json(const dist *d, const args *a, const stats *s, const rank_info *all,
                       const char *grid_text, double single_ms, bool aware) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ranks", d->size);
    if (grid_text[0]) cJSON_AddStringToObject(o, "grid", grid_text);
    cJSON_AddStringToObject(o, "staging", a->staging);
    cJSON_AddBoolToObject(o, "cuda_aware", aware);
    const double total = median_of(s->total, s->n);
    cJSON_AddNumberToObject(o, "compute_ms", median_of(s->compute, s->n));
    cJSON_AddNumberToObject(o, "comm_ms", median_of(s->comm, s->n));
    cJSON_AddNumberToObject(o, "staging_ms", median_of(s->stage, s->n));
    cJSON_AddNumberToObject(
        o, "comm_share",
        total > 0 ? (median_of(s->comm, s->n) + median_of(s->stage, s->n)) / total : 0);
    cJSON_AddNumberToObject(o, "sent_bytes", s->sent);
    if (single_ms > 0) {
        cJSON_AddNumberToObject(o, "single_device_ms", single_ms);
        cJSON_AddNumberToObject(o, "speedup", total > 0 ? single_ms / total : 0);
    } else {
        cJSON_AddNullToObject(o, "single_device_ms");
        cJSON_AddNullToObject(o, "speedup");
    }
    cJSON *ranks = cJSON_AddArrayToObject(o, "rank_devices");
    for (int r = 0; r < d->size; r++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "rank", r);
        cJSON_AddStringToObject(e, "host", all[r].host);
        cJSON_AddNumberToObject(e, "local_rank", all[r].local_rank);
        cJSON *dev = cJSON_AddObjectToObject(e, "device");
        cJSON_AddStringToObject(dev, "spec", all[r].spec);
        cJSON_AddStringToObject(dev, "name", all[r].name);
        cJSON_AddStringToObject(dev, "backend", all[r].backend);
        cJSON_AddStringToObject(dev, "type", type_name(all[r].type));
        cJSON_AddNumberToObject(e, "threads", all[r].threads);
        cJSON_AddBoolToObject(e, "direct", all[r].direct);
        cJSON_AddStringToObject(e, "part", all[r].part);
        cJSON_AddItemToArray(ranks, e);
    }
    return o;
}

/* The distributed run's result in co_result form (rank 0). */
static void fill_result(co_result *r, const dist *d, const co_problem *whole, const stats *s,
                        const char *variant) {
    const co_device_info *info = co_device_get(d->ctx, d->device);
    snprintf(r->workload, sizeof r->workload, "%s", whole->wl->name);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->device, sizeof r->device, "%s", info->spec);
    snprintf(r->device_name, sizeof r->device_name, "%d ranks (rank 0: %.96s)", d->size,
             info->name);
    for (size_t i = 0; i < whole->nsizes; i++) {
        memcpy(r->sizes[i].name, whole->sizes[i].name, sizeof r->sizes[i].name);
        memcpy(r->sizes[i].value, whole->sizes[i].value, sizeof r->sizes[i].value);
    }
    r->nsizes = whole->nsizes;
    r->reps = s->n;
    double mins = s->total[0];
    for (unsigned i = 1; i < s->n; i++) mins = s->total[i] < mins ? s->total[i] : mins;
    r->min_ms = mins;
    r->median_ms = r->total_ms = median_of(s->total, s->n);
    r->kernel_ms = median_of(s->compute, s->n);
    r->flops = whole->flops, r->bytes = whole->bytes;
    if (r->median_ms > 0) {
        r->gflops = r->flops / (r->median_ms * 1e6);
        r->gbps = r->bytes / (r->median_ms * 1e6);
    }
    for (size_t i = 0; i < whole->nrates && i < 3; i++) {
        snprintf(r->rates[i].unit, sizeof r->rates[i].unit, "%s", whole->rates[i].unit);
        r->rates[i].per_s = r->rates[i].per_s_total =
            r->median_ms > 0 ? whole->rates[i].count / (r->median_ms * 1e-3) : 0;
    }
    r->nrates = whole->nrates < 3 ? whole->nrates : 3;
}

/* Every rank: agree on the statuses so far; rank 0 says the first failure. */
static bool failed(dist *d) {
    if (!dist_agree(d)) return false;
    if (d->rank == 0) fprintf(stderr, "coalesce-mpi: %s\n", d->why);
    return true;
}

typedef struct run_state {
    args *a;
    dist *d;
    const dist_workload *dw;
    co_session *session; /* rank 0 */
    co_problem *whole;   /* rank 0: the session's problem */
    void *part;
    co_result single;
    bool have_single;
    char grid_text[32];
} run_state;

/* Rank 0 makes the whole problem (and runs it on its device once, when
 * verifying) while the others wait without spinning. */
static void open_whole(run_state *rs) {
    dist *d = rs->d;
    args *a = rs->a;
    MPI_Request req;
    if (d->rank != 0) {
        MPI_Ibarrier(d->comm, &req);
        dist_wait_quietly(&req);
        return;
    }
    co_run_config cfg = {.workload = a->workload,
                         .variant = a->variant,
                         .device = d->device,
                         .options = a->opts,
                         .noptions = a->nopts,
                         .reps = a->reps,
                         .warmup = a->warmup,
                         .seed = a->seed,
                         .verify = !a->no_verify,
                         .untuned = true}; /* the library calls run the defaults too */
    co_status st = co_session_open(d->ctx, &cfg, NULL, &rs->session);
    if (!st) rs->whole = (co_problem *)co_session_problem(rs->session);
    if (!st && !a->no_verify) {
        st = co_session_run(rs->session, NULL, NULL, &rs->single);
        rs->have_single = st == CO_OK;
        if (st == CO_ERR_VERIFY) /* the single-device run was wrong: say so */
            co_fail(st, "the single-device run: %s", co_last_error());
    }
    dist_ok(d, st);
    MPI_Ibarrier(d->comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static co_status verify_whole(run_state *rs, double *error, double *tol, char *check, size_t len) {
    co_problem *p = rs->whole;
    co_status st = p->wl->verify(p, error, tol, check, len);
    if (!st && rs->dw->check && *error <= *tol) {
        double e2, t2;
        char c2[sizeof(((co_result *)0)->check)];
        st = rs->dw->check(rs->d, rs->part, p, &e2, &t2, c2, sizeof c2);
        if (!st && !(e2 <= t2)) *error = e2, *tol = t2, snprintf(check, len, "%s", c2);
    }
    return st;
}

static int cmd_run(run_state *rs, int threads) {
    dist *d = rs->d;
    args *a = rs->a;
    const dist_workload *dw = rs->dw;
    open_whole(rs);
    if (failed(d)) return tools_exit_code(d->st);
    dist_ok(d, dw->setup(d, d->rank == 0 ? rs->whole : NULL, &rs->part));
    if (failed(d)) return tools_exit_code(d->st);
    char part[96] = "";
    if (dw->describe) dw->describe(d, rs->part, part, sizeof part);
    rank_info *all = gather_ranks(d, threads, part);
    stats *s = calloc(1, sizeof *s);
    if (!s) dist_ok(d, co_fail(CO_ERR_NOMEM, "out of host memory"));
    if (failed(d)) {
        free(all);
        return tools_exit_code(d->st);
    }
    double worst = 0, tol = 0;
    char check[sizeof(((co_result *)0)->check)] = "not checked";
    bool ok = true;
    double spent = 0;
    for (unsigned i = 0; i < a->warmup + a->reps; i++) {
        d->compute_ms = d->comm_ms = d->stage_ms = d->sent_bytes = 0;
        if (dw->reset) dw->reset(d, rs->part);
        MPI_Barrier(d->comm);
        const double t0 = dist_now();
        dist_ok(d, dw->run(d, rs->part));
        const double mine[4] = {dist_now() - t0, d->compute_ms, d->comm_ms, d->stage_ms};
        double most[4], sent = 0;
        MPI_Reduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, 0, d->comm);
        MPI_Reduce(&d->sent_bytes, &sent, 1, MPI_DOUBLE, MPI_SUM, 0, d->comm);
        if (failed(d)) break;
        if (!a->no_verify) {
            dist_ok(d, dw->gather(d, rs->part, rs->whole));
            if (failed(d)) break;
            if (d->rank == 0) {
                double err = 0;
                dist_ok(d, verify_whole(rs, &err, &tol, check, sizeof check));
                if (!(err <= tol)) ok = false;
                if (!(err <= worst)) worst = err;
            }
            if (failed(d)) break;
        }
        int more = 1;
        if (d->rank == 0 && i >= a->warmup) {
            const unsigned k = s->n++;
            s->total[k] = most[0], s->compute[k] = most[1], s->comm[k] = most[2];
            s->stage[k] = most[3], s->sent = sent;
            spent += most[0];
            more = !(spent > REP_BUDGET_MS && s->n >= (a->reps < 3 ? a->reps : 3));
        }
        MPI_Bcast(&more, 1, MPI_INT, 0, d->comm);
        if (!more) break;
    }
    if (d->st) {
        free(all), free(s);
        return tools_exit_code(d->st);
    }
    int rc = EXIT_OK;
    if (d->rank == 0) {
        const co_problem *p = rs->whole;
        if (p->wl->save) dist_ok(d, p->wl->save(rs->whole, a->opts, a->nopts));
        const char *variant = rs->have_single ? rs->single.variant
                              : a->variant    ? a->variant
                                              : co_variant_default(d->ctx, a->workload, d->device);
        report_row row = {.status = ok ? CO_OK : CO_ERR_VERIFY};
        fill_result(&row.r, d, p, s, variant ? variant : "");
        row.r.verified = !a->no_verify && ok;
        snprintf(row.r.check, sizeof row.r.check, "%s", check);
        row.r.error = worst, row.r.tolerance = tol;
        if (!ok)
            snprintf(row.error, sizeof row.error,
                     "%s on %d ranks: error %.3g is over the tolerance %.3g (%s check)",
                     a->workload, d->size, worst, tol, check);
        const double single_ms = rs->have_single ? rs->single.median_ms : 0;
        const bool aware = cuda_aware();
        cJSON *doc = results_doc("run", results_meta(d->ctx, &d->device, 1));
        if (rs->have_single) {
            report_row one = {.status = CO_OK, .r = rs->single};
            cJSON *single = results_row(d->ctx, &one);
            cJSON_AddStringToObject(single, "role", "single-device");
            cJSON_AddItemToArray(results_array(doc), single);
        }
        cJSON *dist_row = results_row(d->ctx, &row);
        cJSON_AddStringToObject(dist_row, "role", "distributed");
        cJSON_AddItemToObject(dist_row, "mpi",
                              mpi_json(d, a, s, all, rs->grid_text, single_ms, aware));
        cJSON_AddItemToArray(results_array(doc), dist_row);
        if (a->out) {
            char why[512];
            if (!results_write(a->out, doc, why, sizeof why)) {
                fprintf(stderr, "coalesce-mpi: %s\n", why);
                rc = EXIT_FAILED;
            }
        }
        if (a->json) {
            results_print(stdout, doc);
        } else {
            printf("%s", p->wl->name);
            for (size_t i = 0; i < p->nsizes; i++)
                printf(" %s=%s", p->sizes[i].name, p->sizes[i].value);
            printf(" on %d rank%s%s%s: %s\n", d->size, d->size == 1 ? "" : "s",
                   rs->grid_text[0] ? ", grid " : "", rs->grid_text, row.r.variant);
            print_ranks(stdout, all, d->size);
            const double total = row.r.median_ms;
            const double comm = median_of(s->comm, s->n), stage = median_of(s->stage, s->n);
            if (a->no_verify)
                printf("  check     - (--no-verify)\n");
            else
                printf("  check     %s (error %.3g, tolerance %.3g, %s)\n", ok ? "ok" : "WRONG",
                       worst, tol, check);
            printf("  median    %.3f ms (min %.3f, %u reps): compute %.3f, communication %.3f, "
                   "staging %.3f (%.0f%% of the time outside the library's calls' compute)\n",
                   total, row.r.min_ms, s->n, row.r.kernel_ms, comm, stage,
                   total > 0 ? 100 * (comm + stage) / total : 0);
            if (row.r.gflops > 0) printf("  %.4g GFLOP/s", row.r.gflops);
            if (row.r.gbps > 0) printf("  %.4g GB/s", row.r.gbps);
            for (size_t i = 0; i < row.r.nrates; i++)
                printf("  %.4g %s/s", row.r.rates[i].per_s, row.r.rates[i].unit);
            printf("; sent %.3g MB a run\n", s->sent / 1e6);
            if (single_ms > 0)
                printf("  single device (rank 0's %s, same invocation): %.3f ms, %.2fx\n",
                       rs->single.device, single_ms, total > 0 ? single_ms / total : 0);
        }
        cJSON_Delete(doc);
        if (!ok) {
            fprintf(stderr, "coalesce-mpi: %s\n", row.error);
            rc = EXIT_FAILED;
        }
        if (d->st) {
            fprintf(stderr, "coalesce-mpi: %s\n", d->why);
            rc = tools_exit_code(d->st);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, d->comm);
    free(all), free(s);
    return rc;
}

static int cmd_ranks(dist *d, int threads) {
    rank_info *all = gather_ranks(d, threads, NULL);
    if (d->rank == 0) {
        printf("%d rank%s; MPI %s CUDA-aware\n", d->size, d->size == 1 ? "" : "s",
               cuda_aware() ? "is" : "is not");
        print_ranks(stdout, all, d->size);
    }
    free(all);
    return EXIT_OK;
}

/* One way of moving `bytes` from rank 0's device to rank 1's and back: the
 * one-way time of a round trip, in ms (rank 0; best of reps). */
typedef enum { LINK_HOST, LINK_STAGED, LINK_DIRECT } link_mode;

static double link_time(dist *d, link_mode mode, co_buffer *dev, unsigned char *host, size_t bytes,
                        int reps) {
    const int peer = 1 - d->rank;
    void *mem = mode == LINK_DIRECT ? dist_mpi_ptr(d, dev, 0) : host;
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(d->comm);
        const double t = dist_now();
        for (int leg = 0; leg < 2; leg++) {
            if ((leg == 0) == (d->rank == 0)) { /* this rank sends */
                if (mode == LINK_STAGED) dist_ok(d, co_buffer_read(dev, 0, host, bytes));
                MPI_Send(mem, (int)bytes, MPI_BYTE, peer, 9, d->comm);
            } else {
                MPI_Recv(mem, (int)bytes, MPI_BYTE, peer, 9, d->comm, MPI_STATUS_IGNORE);
                if (mode == LINK_STAGED) dist_ok(d, co_buffer_write(dev, 0, host, bytes));
            }
        }
        const double one_way = (dist_now() - t) / 2;
        best = one_way < best ? one_way : best;
    }
    return best;
}

/* coalesce-mpi link: the bandwidth between rank 0's device and rank 1's, as
 * the distributed workloads move data: MPI between host buffers, staged
 * (device to host, MPI, host to device), and MPI on the devices' buffers
 * where both can (host devices; a CUDA-aware MPI). The model of docs/MPI.md
 * takes these figures. */
static int cmd_link(dist *d, size_t most) {
    if (d->size < 2) {
        if (d->rank == 0) fprintf(stderr, "coalesce-mpi: link needs 2 ranks (mpirun -np 2)\n");
        return EXIT_USAGE;
    }
    int direct = d->direct, both = 0;
    MPI_Allreduce(&direct, &both, 1, MPI_INT, MPI_LAND, d->comm);
    const bool in = d->rank < 2;
    co_buffer *dev = NULL;
    unsigned char *host = in ? malloc(most) : NULL;
    if (in && !host) dist_ok(d, co_fail(CO_ERR_NOMEM, "out of host memory"));
    if (in && !d->st) dist_ok(d, dist_buffer(d, most, &dev));
    if (host) memset(host, 1, most);
    if (dev && !d->st) dist_ok(d, co_buffer_upload(dev, host, most));
    if (failed(d)) {
        co_buffer_free(dev), free(host);
        return tools_exit_code(d->st);
    }
    if (d->rank == 0)
        printf("rank 0 (%s) <-> rank 1: one way, best of 5 round trips (MB/s: 1e6 bytes/s)\n"
               "%12s %12s %12s %12s\n",
               co_device_get(d->ctx, d->device)->spec, "bytes", "host MB/s", "staged MB/s",
               both ? "direct MB/s" : "direct");
    MPI_Comm pair;
    MPI_Comm_split(d->comm, in ? 0 : MPI_UNDEFINED, d->rank, &pair);
    for (size_t bytes = 4096; in && bytes <= most; bytes *= 8) {
        dist sub = *d;
        sub.comm = pair;
        const double h = link_time(&sub, LINK_HOST, dev, host, bytes, 5);
        const double st = link_time(&sub, LINK_STAGED, dev, host, bytes, 5);
        const double dr = both ? link_time(&sub, LINK_DIRECT, dev, host, bytes, 5) : 0;
        dist_ok(d, sub.st);
        if (d->rank == 0) {
            printf("%12zu %12.0f %12.0f", bytes, bytes / h / 1e3, bytes / st / 1e3);
            if (both)
                printf(" %12.0f\n", bytes / dr / 1e3);
            else
                printf(" %12s\n", "-");
        }
    }
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    co_buffer_free(dev), free(host);
    return failed(d) ? tools_exit_code(d->st) : EXIT_OK;
}

/* A variant named: one of the workload's, and one that runs on this rank's device. */
static co_status check_variant(const dist *d, const char *workload, const char *variant) {
    const char *v, *why = NULL;
    bool known = false;
    for (size_t i = 0; (v = co_variant_name(workload, i)); i++) known |= !strcmp(v, variant);
    if (!known)
        return co_fail(CO_ERR_INVALID, "unknown variant '%s' of %s (see 'coalesce list %s')",
                       variant, workload, workload);
    if (co_variant_runs_on(d->ctx, workload, variant, d->device, &why)) return CO_OK;
    return co_fail(CO_ERR_UNSUPPORTED, "variant '%s' of %s does not run on %s%s%s", variant,
                   workload, co_device_get(d->ctx, d->device)->spec, why && *why ? ": " : "",
                   why ? why : "");
}

static void print_help(void) {
    fputs(usage, stdout);
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        printf("  %-10s %s\n", workloads[i]->name, workloads[i]->how);
}

int main(int argc, char **argv) {
    tools_quiet_thread_pools(argv);
    results_set_argv(argc, argv);
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    dist d = {.comm = MPI_COMM_WORLD};
    MPI_Comm_rank(d.comm, &d.rank);
    MPI_Comm_size(d.comm, &d.size);
    rank0 = d.rank;
    MPI_Comm local;
    MPI_Comm_split_type(d.comm, MPI_COMM_TYPE_SHARED, d.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &d.local_rank);
    MPI_Comm_size(local, &d.local_size);
    MPI_Comm_free(&local);
    d.overlap = provided >= MPI_THREAD_SERIALIZED;

    args a;
    int rc = parse(argc, argv, &a);
    if (!rc && a.help && d.rank == 0) print_help();
    if (!rc && !strcmp(a.command, "--version") && d.rank == 0)
        printf("coalesce-mpi %s\n", co_version());
    if (rc || a.help || !strcmp(a.command, "--version")) {
        args_free(&a);
        MPI_Finalize();
        return rc;
    }
    /* Ranks that share a host's cores: each its share (OpenMP now; PoCL
     * reads its limit when its platform is first opened, below). */
    const int threads = core_share(d.local_size);
    char text[16];
    snprintf(text, sizeof text, "%d", threads);
    setenv("POCL_CPU_MAX_CU_COUNT", text, 0);
    setenv("POCL_MAX_PTHREAD_COUNT", text, 0);
    omp_set_num_threads(threads);

    co_problem shape = {0};
    run_state rs = {.a = &a, .d = &d};
    dist_ok(&d, co_context_create(&d.ctx));
    if (!d.st) dist_ok(&d, pick_device(&d, a.device, &d.device));
    const co_device_info *info = d.ctx ? co_device_get(d.ctx, d.device) : NULL;
    const bool host_memory = info && (!strcmp(info->backend, "c") || !strcmp(info->backend, "omp"));
    d.direct = strcmp(a.staging, "host") &&
               (host_memory || (info && !strcmp(info->backend, "cuda") && cuda_aware()));
    if (!failed(&d) && !strcmp(a.command, "ranks")) {
        rc = cmd_ranks(&d, threads);
    } else if (!d.st && !strcmp(a.command, "link")) {
        rc = cmd_link(&d, a.bytes ? a.bytes : (size_t)1 << 27);
    } else if (!d.st) {
        rs.dw = find_workload(a.workload);
        d.variant = a.variant, d.opts = a.opts, d.nopts = a.nopts;
        d.panel = a.panel, d.grid[0] = a.grid[0], d.grid[1] = a.grid[1];
        shape.wl = co_workload_find(a.workload);
        dist_ok(&d, shape.wl->init(&shape, a.opts, a.nopts));
        d.shape = &shape;
        if (!d.st && a.variant) dist_ok(&d, check_variant(&d, a.workload, a.variant));
        if (!d.st && !strcmp(a.workload, "gemm")) {
            int g[2];
            dist_gemm_grid(&d, g);
            snprintf(rs.grid_text, sizeof rs.grid_text, "%dx%d", g[0], g[1]);
        }
        rc = failed(&d) ? tools_exit_code(d.st) : cmd_run(&rs, threads);
    } else {
        rc = tools_exit_code(d.st);
    }
    if (rs.dw && rs.dw->destroy) rs.dw->destroy(rs.part);
    if (shape.wl && shape.wl->destroy) shape.wl->destroy(&shape);
    co_session_close(rs.session);
    co_context_destroy(d.ctx);
    args_free(&a);
    MPI_Finalize();
    return rc;
}
