/* dike-emu command line: run, list-policies, config-reference, --help, --version. */
#include <getopt.h>
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/config.h"
#include "dike/run.h"
#include "dike/sched.h"

static int rank;

static void usage(FILE *f)
{
    fputs("usage: mpirun -np P dike-emu run [options]\n"
          "       dike-emu list-policies | config-reference | --help | --version\n"
          "\n"
          "run options:\n"
          "  -c, --config FILE        INI configuration (every key has a default; see config-reference)\n"
          "  -t, --trace FILE         job trace (default: synthetic workload)\n"
          "  -f, --trace-format F     trace format (dike)\n"
          "  -p, --policy NAME        scheduling policy (see list-policies)\n"
          "  -l, --placement NAME     placement strategy (pack, spread)\n"
          "  -s, --seed N             seed of every random stream\n"
          "  -o, --out FILE.h5        output file (written under a temporary name, renamed when complete)\n"
          "  -S, --set SECTION.KEY=V  override any configuration key (repeatable)\n"
          "  -q, --quiet              no summary table on stdout\n"
          "\n"
          "Options apply in order: defaults, --config, then the others as given.\n"
          "A relative workload.trace inside a config file is relative to that file's folder.\n"
          "Exit status: 0 success, 2 bad input (config, trace, command line, output path), 1 other errors.\n",
          f);
}

static int fail(int code, const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "dike-emu: %s\n", msg);
    return code == DIKE_EINVAL || code == DIKE_EIO ? 2 : 1;
}

/* Resolve a relative trace path read from a config file against that file's folder. */
static void resolve_trace(dike_config *cfg, const char *config_path, const char *before)
{
    if (!cfg->workload_trace[0] || cfg->workload_trace[0] == '/' ||
        strcmp(cfg->workload_trace, before) == 0)
        return;
    char *copy = dike_xstrdup(config_path);
    char *rel = dike_xstrdup(cfg->workload_trace);
    const char *dir = dirname(copy);
    if (strlen(dir) + strlen(rel) + 2 <= sizeof cfg->workload_trace) {
        strcpy(cfg->workload_trace, dir);
        strcat(cfg->workload_trace, "/");
        strcat(cfg->workload_trace, rel);
    }
    free(copy);
    free(rel);
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, 0, 'c'}, {"trace", required_argument, 0, 't'},
        {"trace-format", required_argument, 0, 'f'}, {"policy", required_argument, 0, 'p'},
        {"placement", required_argument, 0, 'l'}, {"seed", required_argument, 0, 's'},
        {"out", required_argument, 0, 'o'}, {"set", required_argument, 0, 'S'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    int quiet = 0, c;

    /* First pass: the config file, so every other option overrides it whatever their order. */
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:t:f:p:l:s:o:S:qh", opts, NULL)) != -1) {
        if (c == 'c') {
            char before[DIKE_STR_MAX];
            snprintf(before, sizeof before, "%s", cfg.workload_trace);
            if (dike_config_load_file(&cfg, optarg, &e))
                return fail(e.code, e.msg);
            resolve_trace(&cfg, optarg, before);
        }
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "c:t:f:p:l:s:o:S:qh", opts, NULL)) != -1) {
        const char *key = NULL;
        switch (c) {
        case 'c': continue;
        case 't': key = "workload.trace"; break;
        case 'f': key = "workload.trace_format"; break;
        case 'p': key = "scheduler.policy"; break;
        case 'l': key = "scheduler.placement"; break;
        case 's': key = "run.seed"; break;
        case 'o': key = "run.out"; break;
        case 'q': quiet = 1; continue;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 0;
        case 'S':
            if (dike_config_set(&cfg, optarg, "--set", &e))
                return fail(e.code, e.msg);
            continue;
        default: {
            char msg[256];
            snprintf(msg, sizeof msg, "run: unknown or incomplete option '%s' (dike-emu --help)",
                     argv[optind - 1]);
            return fail(DIKE_EINVAL, msg);
        }
        }
        char assign[DIKE_STR_MAX + 64], origin[64];
        snprintf(assign, sizeof assign, "%s=%s", key, optarg);
        origin[0] = 0;
        for (const struct option *o = opts; o->name; o++)
            if (o->val == c)
                snprintf(origin, sizeof origin, "--%s", o->name);
        if (dike_config_set(&cfg, assign, origin, &e))
            return fail(e.code, e.msg);
    }
    if (optind < argc) {
        char msg[256];
        snprintf(msg, sizeof msg, "run: unexpected argument '%s' (dike-emu --help)", argv[optind]);
        return fail(DIKE_EINVAL, msg);
    }

    dike_results r;
    dike_perf_record perf;
    int rc = dike_run(&cfg, MPI_COMM_WORLD, cfg.run_out, &r, &perf, &e);
    if (rc)
        return fail(rc, e.msg);
    if (rank == 0) {
        if (!quiet) {
            dike_print_summary(stdout, &r, &perf);
            printf("wrote %s\n", cfg.run_out);
        }
        dike_results_free(&r);
    }
    return 0;
}

static void list_policies(void)
{
    printf("policies (--policy):\n");
    for (const dike_policy *const *p = dike_policy_all(); *p; p++)
        printf("  %-14s %s\n", (*p)->name, (*p)->summary);
    printf("placements (--placement):\n");
    for (const dike_placement *const *p = dike_placement_all(); *p; p++)
        printf("  %-14s %s\n", (*p)->name, (*p)->summary);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = 0;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "run") == 0) {
        rc = cmd_run(argc - 1, argv + 1);
    } else if (strcmp(cmd, "list-policies") == 0) {
        if (rank == 0)
            list_policies();
    } else if (strcmp(cmd, "config-reference") == 0) {
        if (rank == 0)
            dike_config_print_reference(stdout);
    } else if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        if (rank == 0)
            printf("dike-emu %s (HDF5 output schema %d)\n", DIKE_VERSION, DIKE_SCHEMA_VERSION);
    } else if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (rank == 0)
            usage(stdout);
    } else {
        if (rank == 0) {
            if (*cmd)
                fprintf(stderr, "dike-emu: unknown command '%s'\n", cmd);
            usage(stderr);
        }
        rc = 2;
    }
    MPI_Finalize();
    return rc;
}
