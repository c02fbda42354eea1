/* dike-emu command line: run, resume, campaign, export, trace-info, list-policies, config-reference,
 * --help, --version; MPI starts only for the commands that emulate (mpi_start). */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mpi.h"
#include "dike/campaign.h"
#include "dike/config.h"
#include "dike/export.h"
#include "dike/outpath.h"
#include "dike/provenance.h"
#include "dike/run.h"
#include "dike/sched.h"
#include "dike/tenants.h"
#include "dike/workload.h"
#include "cli/trace_info.h"
#include "engine/progress.h"

static int rank;

/* The ranks a launcher started, as far as it tells before MPI_Init (Open MPI's mpirun, srun, a
 * PMI launcher): 0 without any launcher (an MPI singleton), -1 when it does not say how many. */
static long launcher_ranks(void)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof size_vars / sizeof *size_vars; i++) {
        const char *v = getenv(size_vars[i]);
        if (v) {
            char *end;
            long n = strtol(v, &end, 10);
            return end != v && !*end && n > 0 ? n : -1;
        }
    }
    return getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("MPI_LOCALNRANKS") ? -1 : 0;
}

/* True if every rank of this run is on this node, as far as the launcher tells before MPI_Init:
 * Open MPI's mpirun sets its world and local sizes, srun the step's node count; without a
 * launcher this is a singleton. Another launcher is not judged (false). */
static int single_node(void)
{
    const char *world = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (world)
        return local && strcmp(world, local) == 0;
    const char *nodes = getenv("SLURM_STEP_NUM_NODES");
    if (nodes)
        return strcmp(nodes, "1") == 0;
    return launcher_ranks() == 0;
}

/* Open MPI's MPI_Init opens its "cm" messaging layer, which loads and probes the PSM, PSM2 and OFI
 * network libraries (0.2 s of a 0.55 s fifo run of TitanSched Philly on the development machine),
 * and then selects "ob1" on a machine without those networks (docs/architecture.md). When every rank runs on one node no
 * network transport is used, so cm is left out unless the user (or mpirun --mca pml) chose a
 * messaging layer. Other MPI libraries ignore the variable. */
static void skip_network_probe(void)
{
    if (!getenv("OMPI_MCA_pml") && single_node())
        setenv("OMPI_MCA_pml", "^cm", 0);
}

/* A process started without any launcher is an MPI singleton, and Open MPI's MPI_Init then starts a
 * daemon (orted) beside it so that it could call MPI_Comm_spawn, which dike-emu never does: 0.15-0.2
 * s of every such run. ess_singleton_isolated leaves the daemon out, but every isolated singleton
 * gets the same job id and so the same session folder, which the first to end removes while others
 * use it; so each gets its own, <TMPDIR or /tmp>/ompi.<host>.<uid>.dike-emu.<pid>, which Open MPI
 * removes at MPI_Finalize and MPI_Abort (docs/architecture.md, "Where a short run's time goes").
 * A user's setting of the daemon or of the session folders wins. */
static void isolate_singleton(void)
{
    static const char *const user_set[] = {"OMPI_MCA_ess", "OMPI_MCA_ess_singleton_isolated",
                                           "OMPI_MCA_orte_top_session_dir", "OMPI_MCA_orte_jobfam_session_dir",
                                           "OMPI_MCA_orte_create_session_dirs"};
    if (launcher_ranks() != 0)
        return;
    for (size_t i = 0; i < sizeof user_set / sizeof *user_set; i++)
        if (getenv(user_set[i]))
            return;
    const char *base = getenv("OMPI_MCA_orte_tmpdir_base");
    if (!base || !*base)
        base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char host[256] = "", dir[4096];
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        snprintf(host, sizeof host, "localhost");
    int n = snprintf(dir, sizeof dir, "%s/ompi.%s.%ld.dike-emu.%ld", base, host, (long)getuid(), (long)getpid());
    if (n < 0 || (size_t)n >= sizeof dir)
        return;
    setenv("OMPI_MCA_orte_top_session_dir", dir, 0);
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
}

/* MPI starts only for a command that emulates (run, resume, a campaign's points): help, listings,
 * trace-info, export, `run --print-config` / `--dry-run` and `campaign --list` / `--status` read
 * and print files on one process, so they neither wait for MPI_Init (0.1-0.2 s) nor depend on an
 * MPI runtime that can start (a login node, a batch script's shell, a container without one).
 * Under a launcher with more than one rank MPI starts first, as before, so that rank 0 alone
 * prints (docs/architecture.md, "Where a short run's time goes"). */
static void mpi_start(void)
{
    if (dike_mpi_started())
        return;
    skip_network_probe();
    isolate_singleton();
    double t0 = dike_mono_seconds();
    MPI_Init(NULL, NULL);
    dike_run_note_startup(dike_mono_seconds() - t0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

/* True when a launcher started this process as one of several ranks (or does not say). */
static bool launched_with_others(void)
{
    long n = launcher_ranks();
    return n != 0 && n != 1;
}

/* A status decided on rank 0, for every rank (nothing to do without MPI: one process). */
static void bcast_rc(int *rc)
{
    if (dike_mpi_started())
        DIKE_MPI_CHECK(MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
}

enum { OPT_SKIP_INVALID = 1000, OPT_CLUSTER = 1001, OPT_CKPT_EVERY = 1002, OPT_CKPT = 1003,
       OPT_CONFIG_FROM = 1004, OPT_PRINT_CONFIG = 1005, OPT_DRY_RUN = 1006,
       OPT_PROGRESS = 1007, OPT_CKPT_WALL = 1008, OPT_OTHER_BUILD = 1009 }; /* long-only options */

static void usage(FILE *f)
{
    fputs("usage: mpirun -np P dike-emu run [options]\n"
          "       dike-emu trace-info [options] FILE...\n"
          "       mpirun -np P dike-emu campaign GRID.ini [options]   (dike-emu campaign --help)\n"
          "       mpirun -np P dike-emu resume CHECKPOINT [--out FILE.h5] [--checkpoint-every S]\n"
          "                                         [--checkpoint-wall S] [--set engine.KEY=V]...\n"
          "                                         [--allow-other-build]\n"
          "       dike-emu export RUN.h5 [--jobs FILE.csv] [--summary FILE.json]\n"
          "       dike-emu list-policies | config-reference | --help | --version\n"
          "\n"
          "run options:\n"
          "  -c, --config FILE        INI configuration (every key has a default; see config-reference)\n"
          "      --config-from RUN.h5 the configuration stored in an output file (run.out is not\n"
          "                           replayed: give --out); other options override it\n"
          "      --print-config       print the resolved configuration (every key, INI) and stop\n"
          "      --dry-run            read and check everything, print what would run; run nothing,\n"
          "                           write nothing\n"
          "  -t, --trace FILE         job trace: a file, a comma-separated list or a folder of *.csv;\n"
          "                           '-', a pipe or a FIFO is read once (default: synthetic workload)\n"
          "  -f, --trace-format F     trace format: auto (from the header, the default), dike, philly-vc,\n"
          "                           rfold, elasticflow, gen-parallel, openb\n"
          "      --skip-invalid       drop and count invalid trace rows instead of stopping\n"
          "      --cluster NxG|FILE  N nodes of G GPUs (e.g. 64x8), or a node list (cluster.nodes_file)\n"
          "  -p, --policy NAME        scheduling policy (see list-policies)\n"
          "  -l, --placement NAME     placement strategy (pack, spread, random, topo, tree)\n"
          "  -s, --seed N             seed of every random stream\n"
          "  -o, --out FILE.h5        output file (written under a temporary name, renamed when complete)\n"
          "  -S, --set SECTION.KEY=V  override any configuration key (repeatable)\n"
          "  -q, --quiet              no progress on stderr, no summary table on stdout\n"
          "      --progress MODE      auto (default: a live line on the terminal, also under mpirun;\n"
          "                           log lines otherwise), live, log (a line every\n"
          "                           output.progress_interval_s), off\n"
          "      --checkpoint-every S write a checkpoint every S simulated seconds\n"
          "      --checkpoint-wall S  write a checkpoint every S wall-clock seconds (its cost stays a\n"
          "                           bounded share of the run's time, however long the simulated span)\n"
          "      --checkpoint FILE    checkpoint file (default: the output path + .ckpt.h5)\n"
          "\n"
          "On SIGTERM or SIGUSR1 (e.g. #SBATCH --signal=USR1@120) a run writes a checkpoint at the next\n"
          "window boundary and stops with status 4; `dike-emu resume CHECKPOINT` continues it, with any\n"
          "number of ranks, and gives the output an uninterrupted run would have given; its --set takes\n"
          "engine.* keys only (they change how the run is carried out, not its results). A checkpoint\n"
          "written from other emulator sources (the output's `source_sha256`) is refused unless\n"
          "--allow-other-build; the output's `builds` attribute names every build that ran the run.\n"
          "\n"
          "export RUN.h5 writes the per-job table as CSV (--jobs, Batsim-like columns) and the summary\n"
          "as JSON (--summary); '-' is standard output. analysis/compare.py compares two runs.\n"
          "\n"
          "trace-info FILE... prints jobs, span, tenants, GPU-count histogram, GPU-hours, concurrent\n"
          "demand and offered load of a trace against the cluster; it takes -c, -f, -S and --cluster\n"
          "(workload.start_s/end_s/first_job/last_job/time_scale/trace_load apply) and counts invalid\n"
          "rows instead of stopping at them.\n"
          "\n"
          "Options apply in order: defaults, --config, then the others as given.\n"
          "A relative workload.trace, cluster.nodes_file or tenants.weights=file:PATH inside a config\n"
          "file is relative to that file's folder.\n"
          "Exit status: 0 success, 1 other errors, 2 bad input or unusable files (config, trace,\n"
          "command line, output path, full disk, damaged checkpoint), 3 fatal internal error,\n"
          "4 stopped after writing a checkpoint.\n",
          f);
}

static int fail(int code, const char *msg)
{
    if (rank == 0)
        dike_eprint("dike-emu: ", msg);
    if (code == DIKE_ESTOPPED)
        return 4;
    return code == DIKE_EINVAL || code == DIKE_EIO ? 2 : 1;
}

/* One message for an option getopt_long did not accept. */
static int bad_option(const char *cmd, char **argv, int at, const char *help)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s: unknown or incomplete option '%s' (%s)", cmd, argv[at], help);
    return fail(DIKE_EINVAL, msg);
}

/* SIGTERM (Slurm's time limit) and SIGUSR1 (forwarded by mpirun): checkpoint at the next window
 * boundary and stop. */
static void on_stop_signal(int sig)
{
    (void)sig;
    dike_stop_requested = 1;
}

static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
}

/* The end of run and resume: the table, or the error. */
static int finish(int rc, dike_err *e, dike_results *r, dike_perf_record *perf, int quiet,
                  const char *out)
{
    if (rc)
        return fail(rc, e->msg);
    if (rank == 0) {
        if (!quiet) {
            dike_print_summary(stdout, r, perf);
            printf("wrote %s\n", out);
        }
        dike_results_free(r);
    }
    return 0;
}

/* Resolve a relative path read from a config file (workload.trace, cluster.nodes_file) against
 * that file's folder; @p before is the value before the file was read. A trace list is resolved
 * entry by entry. */
static void resolve_path(char *field, size_t size, const char *config_path, const char *before)
{
    if (!field[0] || strcmp(field, before) == 0)
        return;
    char *copy = dike_xstrdup(config_path);
    char *list = dike_xstrdup(field);
    const char *dir = dirname(copy);
    size_t len = 0;
    char *out = dike_xcalloc(1, size);
    int fits = 1;
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item && fits;
         item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        int n = item[0] == '/' ? snprintf(out + len, size - len, "%s%s", len ? "," : "", item)
                               : snprintf(out + len, size - len, "%s%s/%s", len ? "," : "", dir, item);
        fits = n >= 0 && (size_t)n < size - len;
        len += fits ? (size_t)n : 0;
    }
    if (fits)
        memcpy(field, out, size);
    free(out);
    free(copy);
    free(list);
}

/* tenants.weights = file:PATH with a relative PATH read from a config file: relative to that
 * file's folder, like workload.trace. */
static void resolve_weights_path(dike_config *cfg, const char *config_path, const char *before)
{
    char *field = cfg->tenants_weights;
    if (strcmp(field, before) == 0 || strncmp(field, "file:", 5) != 0 || field[5] == '/')
        return;
    char path[DIKE_STR_MAX];
    snprintf(path, sizeof path, "%s", field + 5);
    resolve_path(path, sizeof path, config_path, "");
    char out[DIKE_STR_MAX + 8];
    int n = snprintf(out, sizeof out, "file:%s", path);
    if (n > 0 && (size_t)n < sizeof cfg->tenants_weights)
        memcpy(field, out, (size_t)n + 1);
}

static int load_config_file(dike_config *cfg, const char *path, dike_err *e)
{
    char trace[DIKE_STR_MAX], nodes[DIKE_STR_MAX], weights[DIKE_STR_MAX];
    snprintf(trace, sizeof trace, "%s", cfg->workload_trace);
    snprintf(nodes, sizeof nodes, "%s", cfg->cluster_nodes_file);
    snprintf(weights, sizeof weights, "%s", cfg->tenants_weights);
    int rc = dike_config_load_file(cfg, path, e);
    dike_paths_note_input(path); /* an output must never replace it */
    if (!rc) {
        resolve_path(cfg->workload_trace, sizeof cfg->workload_trace, path, trace);
        resolve_path(cfg->cluster_nodes_file, sizeof cfg->cluster_nodes_file, path, nodes);
        resolve_weights_path(cfg, path, weights);
    }
    return rc;
}

/* --cluster NxG (nodes x GPUs per node) or a node-list file. */
static int set_cluster(dike_config *cfg, const char *spec, dike_err *e)
{
    unsigned long long nodes, gpus;
    int used = 0;
    char assign[DIKE_STR_MAX + 64];
    if (sscanf(spec, "%llux%llu%n", &nodes, &gpus, &used) == 2 && spec[used] == '\0') {
        snprintf(assign, sizeof assign, "cluster.nodes=%llu", nodes);
        int rc = dike_config_set(cfg, assign, "--cluster", e);
        snprintf(assign, sizeof assign, "cluster.gpus_per_node=%llu", gpus);
        if (!rc)
            rc = dike_config_set(cfg, assign, "--cluster", e);
        if (!rc)
            rc = dike_config_set(cfg, "cluster.nodes_file=", "--cluster", e);
        return rc;
    }
    snprintf(assign, sizeof assign, "cluster.nodes_file=%s", spec);
    return dike_config_set(cfg, assign, "--cluster", e);
}

/* ---- run --config-from, --print-config, --dry-run (docs/config.md, "Re-running a run") ---- */

/* The configuration stored in output @p path, over the current values. run.out and run.checkpoint
 * are not replayed: a re-run must never replace the file it came from, so it needs its own --out. */
static int load_config_from_output(dike_config *cfg, const char *path, dike_err *e)
{
    char *text = NULL, *src = NULL, *build = NULL;
    int rc = dike_output_config(path, &text, e);
    if (!rc)
        rc = dike_config_load_text(cfg, text, path, e);
    free(text);
    /* Same configuration and seed give the same /jobs with the same emulator code: say so when
     * this binary's code is not the one that computed the file (docs/config.md). */
    dike_err se = {0};
    if (!rc && rank == 0 && dike_output_source(path, &src, &build, &se) == 0 && src[0] &&
        strcmp(src, dike_provenance_source()) != 0)
        fprintf(stderr, "dike-emu: warning: --config-from %s: computed by build %s of other emulator "
                "sources (source_sha256 %.12s..., this build %s has %.12s...): the re-run may not "
                "reproduce it\n", path, build, src, dike_provenance_build(), dike_provenance_source());
    free(src);
    free(build);
    dike_paths_note_input(path);
    if (!rc)
        rc = dike_config_set(cfg, "run.out=", "--config-from", e);
    if (!rc)
        rc = dike_config_set(cfg, "run.checkpoint=", "--config-from", e);
    return rc;
}

static int print_config(const dike_config *cfg)
{
    dike_err e = {0};
    if (dike_config_validate(cfg, &e))
        return fail(e.code, e.msg);
    if (rank == 0) {
        char *text = dike_config_to_ini(cfg);
        fputs(text, stdout);
        free(text);
    }
    return 0;
}

/* What run would do, from the same checks it makes before the emulation starts (rank 0). */
static void print_plan(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                       const char *ckpt)
{
    int nranks = 1;
    if (dike_mpi_started())
        nranks = dike_mpi_size(MPI_COMM_WORLD);
    dike_trace_stats st;
    dike_trace_stats_compute(w, cl->total_gpus, &st);
    printf("dry run: configuration, cluster, workload and output paths checked; nothing run, nothing written\n");
    printf("  %-11s %s, placement %s, seed %lld, %d MPI rank%s\n", "policy", cfg->scheduler_policy,
           cfg->scheduler_placement, (long long)cfg->run_seed, nranks, nranks == 1 ? "" : "s");
    printf("  %-11s %u nodes, %llu GPUs, %u racks, GPU types", "cluster", cl->nodes,
           (unsigned long long)cl->total_gpus, cl->nracks);
    for (uint32_t t = 0; t < cl->ntypes; t++)
        printf("%s%s", t ? ", " : " ", cl->types[t].name);
    printf("\n");
    if (w->format[0])
        printf("  %-11s %s (%s, sha256 %.16s...)\n", "trace", w->source, w->format, w->sha256);
    else
        printf("  %-11s synthetic (load %g)\n", "workload", cfg->workload_load);
    printf("  %-11s %zu jobs, %u tenants, submits over %.0f s, offered load %.4f over that span\n", "jobs", w->njobs,
           w->ntenants, st.span_s, st.offered_load);
    printf("  %-11s %s\n", "output", cfg->run_out);
    if (cfg->run_checkpoint_every_s > 0 && cfg->run_checkpoint_wall_s > 0)
        printf("  %-11s %s (every %g simulated s and every %g wall s)\n", "checkpoint", ckpt,
               cfg->run_checkpoint_every_s, cfg->run_checkpoint_wall_s);
    else if (cfg->run_checkpoint_every_s > 0)
        printf("  %-11s %s (every %g simulated s)\n", "checkpoint", ckpt, cfg->run_checkpoint_every_s);
    else if (cfg->run_checkpoint_wall_s > 0)
        printf("  %-11s %s (every %g wall s)\n", "checkpoint", ckpt, cfg->run_checkpoint_wall_s);
    else
        printf("  %-11s %s (on SIGTERM/SIGUSR1 only)\n", "checkpoint", ckpt);
    dike_trace_stats_free(&st);
}

static int dry_run(const dike_config *cfg)
{
    dike_err e = {0};
    int rc = 0;
    if (rank == 0) {
        dike_cluster cl;
        dike_workload w;
        double *weights = NULL;
        char ckpt[DIKE_STR_MAX + 16];
        memset(&cl, 0, sizeof cl);
        dike_workload_init(&w);
        if (cfg->run_checkpoint[0])
            snprintf(ckpt, sizeof ckpt, "%s", cfg->run_checkpoint);
        else
            snprintf(ckpt, sizeof ckpt, "%s.ckpt.h5", cfg->run_out);
        rc = dike_config_validate(cfg, &e);
        if (!rc)
            rc = dike_cluster_init(&cl, cfg, &e);
        if (!rc)
            rc = dike_output_paths_check(cfg, cfg->run_out, ckpt, NULL, &e);
        if (!rc)
            rc = dike_workload_load(cfg, &cl, &w, &e);
        if (!rc) {
            weights = dike_xcalloc(w.ntenants + 1, sizeof *weights);
            rc = dike_tenant_weights_resolve(cfg, &w, weights, &e);
        }
        if (!rc)
            print_plan(cfg, &cl, &w, ckpt);
        free(weights);
        dike_workload_free(&w);
        dike_cluster_free(&cl);
    }
    bcast_rc(&rc);
    return rc ? fail(rc, e.msg) : 0;
}

/* --progress MODE (src/engine/progress.h): how every later run shows its progress. */
static int set_progress(const char *mode)
{
    int m = dike_progress_mode_parse(mode);
    if (m < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "--progress '%.100s': expected auto, live, log or off", mode);
        return fail(DIKE_EINVAL, msg);
    }
    dike_progress_set_mode((dike_progress_mode)m);
    return 0;
}

static const struct option run_opts[] = {
    {"config", required_argument, 0, 'c'}, {"trace", required_argument, 0, 't'},
    {"trace-format", required_argument, 0, 'f'}, {"policy", required_argument, 0, 'p'},
    {"placement", required_argument, 0, 'l'}, {"seed", required_argument, 0, 's'},
    {"out", required_argument, 0, 'o'}, {"set", required_argument, 0, 'S'},
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
    {"skip-invalid", no_argument, 0, OPT_SKIP_INVALID}, {"cluster", required_argument, 0, OPT_CLUSTER},
    {"checkpoint-every", required_argument, 0, OPT_CKPT_EVERY},
    {"checkpoint-wall", required_argument, 0, OPT_CKPT_WALL},
    {"checkpoint", required_argument, 0, OPT_CKPT}, {"config-from", required_argument, 0, OPT_CONFIG_FROM},
    {"print-config", no_argument, 0, OPT_PRINT_CONFIG}, {"dry-run", no_argument, 0, OPT_DRY_RUN},
    {"progress", required_argument, 0, OPT_PROGRESS},
    {0, 0, 0, 0}};
#define RUN_SHORT "c:t:f:p:l:s:o:S:qh"

/** What `run` was asked to do besides setting keys. */
typedef struct run_flags {
    int quiet;            /**< --quiet */
    int print;            /**< --print-config */
    int dry;              /**< --dry-run */
    const char *replayed; /**< --config-from FILE, or NULL */
} run_flags;

/* An option that sets one key (--policy X is scheduler.policy=X): the message of a bad value names
 * the option as it was typed. -1 to go on, else the exit status. */
static int set_option_key(dike_config *cfg, int c, const char *key, const char *value)
{
    char assign[DIKE_STR_MAX + 64], origin[64];
    dike_err e = {0};
    snprintf(assign, sizeof assign, "%s=%s", key, value);
    origin[0] = 0;
    for (const struct option *o = run_opts; o->name; o++)
        if (o->val == c)
            snprintf(origin, sizeof origin, "--%s", o->name);
    return dike_config_set(cfg, assign, origin, &e) ? fail(e.code, e.msg) : -1;
}

/* One option of the second pass (the config files were read in the first): -1 to go on, else the
 * exit status. */
static int run_option(dike_config *cfg, int c, run_flags *fl, char **argv)
{
    dike_err e = {0};
    const char *key = NULL, *value = optarg;
    switch (c) {
    case 'c': return -1;
    case OPT_CONFIG_FROM: return -1;
    case OPT_PRINT_CONFIG: fl->print = 1; return -1;
    case OPT_DRY_RUN: fl->dry = 1; return -1;
    case 't':
        /* An empty name is a mistake (an unset shell variable), not a request for the
         * synthetic workload, which is what an empty workload.trace means. */
        if (!*optarg)
            return fail(DIKE_EINVAL, "--trace: empty file name (leave --trace out for the "
                                     "synthetic workload; '-' reads standard input)");
        key = "workload.trace";
        break;
    case 'f': key = "workload.trace_format"; break;
    case 'p': key = "scheduler.policy"; break;
    case 'l': key = "scheduler.placement"; break;
    case 's': key = "run.seed"; break;
    case 'o': key = "run.out"; break;
    case 'q': fl->quiet = 1; return -1;
    case OPT_SKIP_INVALID: key = "workload.skip_invalid"; value = "true"; break;
    case OPT_CKPT_EVERY: key = "run.checkpoint_every_s"; break;
    case OPT_CKPT_WALL: key = "run.checkpoint_wall_s"; break;
    case OPT_CKPT: key = "run.checkpoint"; break;
    case OPT_CLUSTER:
        return set_cluster(cfg, optarg, &e) ? fail(e.code, e.msg) : -1;
    case OPT_PROGRESS:
        return set_progress(optarg) ? 2 : -1;
    case 'h':
        if (rank == 0)
            usage(stdout);
        return 0;
    case 'S':
        return dike_config_set(cfg, optarg, "--set", &e) ? fail(e.code, e.msg) : -1;
    default:
        return bad_option("run", argv, optind - 1, "dike-emu --help");
    }
    return set_option_key(cfg, c, key, value);
}

/* A policy whose lease is one round (las, themis, gandiva-fair) rebuilds its running set at every
 * round. When a round is no longer than a resume's restore plus the launch latency, jobs that take
 * turns on GPUs spend most of their time there resuming: las and themis may take a resumed job off
 * again before it works, gandiva-fair lets it work for less than a round after its restore. That
 * is what the configuration says, so it runs; rank 0 says so once (docs/policies.md, "Rounds no
 * longer than a resume"). */
static void warn_short_lease(const dike_config *cfg)
{
    const dike_policy *pol = dike_policy_find(cfg->scheduler_policy);
    double resume = cfg->scheduler_preemption_cost_s + cfg->scheduler_decision_latency_s;
    if (rank != 0 || !pol || !(pol->flags & DIKE_POLICY_LEASE_ROUND) || cfg->scheduler_round_s > resume)
        return;
    fprintf(stderr, "dike-emu: warning: [scheduler] round_s = %g s is not longer than a resume (preemption_cost_s "
            "%g s + decision_latency_s %g s): %s rebuilds its running set every round, so jobs that take "
            "turns on GPUs spend most of their time there resuming\n",
            cfg->scheduler_round_s, cfg->scheduler_preemption_cost_s, cfg->scheduler_decision_latency_s,
            cfg->scheduler_policy);
}

/* The configuration is complete: print it, check it, or run it. */
static int run_resolved(dike_config *cfg, const run_flags *fl)
{
    dike_err e = {0};
    if (fl->print)
        return print_config(cfg);
    if (!cfg->run_out[0] && fl->replayed) {
        char msg[DIKE_STR_MAX + 160];
        snprintf(msg, sizeof msg, "--config-from %s: the stored run.out is not replayed (a re-run must "
                 "not replace the original): give --out FILE.h5", fl->replayed);
        return fail(DIKE_EINVAL, msg);
    }
    if (!cfg->run_out[0])
        return fail(DIKE_EINVAL, "[run] out: empty output path (--out FILE.h5)");
    dike_err invalid = {0}; /* an invalid configuration is reported by the run or dry run below */
    if (!dike_config_validate(cfg, &invalid))
        warn_short_lease(cfg);
    if (fl->dry)
        return dry_run(cfg);
    if (fl->quiet)
        cfg->output_progress_interval_s = 0; /* --quiet: no progress, no table */
    dike_results r;
    dike_perf_record perf;
    mpi_start();
    int rc = dike_run(cfg, MPI_COMM_WORLD, cfg->run_out, &r, &perf, &e);
    return finish(rc, &e, &r, &perf, fl->quiet, cfg->run_out);
}

static int cmd_run(int argc, char **argv)
{
    dike_config cfg;
    dike_err e = {0};
    run_flags fl = {0};
    int c, rc;
    dike_config_defaults(&cfg);

    /* First pass: the config file, so every other option overrides it whatever their order. */
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, RUN_SHORT, run_opts, NULL)) != -1) {
        if (c == 'c' && load_config_file(&cfg, optarg, &e))
            return fail(e.code, e.msg);
        if (c == OPT_CONFIG_FROM && load_config_from_output(&cfg, fl.replayed = optarg, &e))
            return fail(e.code, e.msg);
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, RUN_SHORT, run_opts, NULL)) != -1)
        if ((rc = run_option(&cfg, c, &fl, argv)) >= 0)
            return rc;
    if (optind < argc) {
        char msg[256];
        snprintf(msg, sizeof msg, "run: unexpected argument '%s' (dike-emu --help)", argv[optind]);
        return fail(DIKE_EINVAL, msg);
    }
    return run_resolved(&cfg, &fl);
}

/* ---- resume ---- */

typedef struct resume_opts {
    const char *out, *ckpt, *every, *wall;
    int quiet;
    char **sets; /* --set engine.KEY=V, in order */
    int nsets;
} resume_opts;

static int resume_adjust(dike_config *cfg, void *ctx, dike_err *e)
{
    resume_opts *o = ctx;
    char a[DIKE_STR_MAX + 64];
    int rc = 0;
    if (o->out) {
        snprintf(a, sizeof a, "run.out=%s", o->out);
        rc = dike_config_set(cfg, a, "--out", e);
    }
    if (!rc && o->ckpt) {
        snprintf(a, sizeof a, "run.checkpoint=%s", o->ckpt);
        rc = dike_config_set(cfg, a, "--checkpoint", e);
    }
    if (!rc && o->every) {
        snprintf(a, sizeof a, "run.checkpoint_every_s=%s", o->every);
        rc = dike_config_set(cfg, a, "--checkpoint-every", e);
    }
    if (!rc && o->wall) {
        snprintf(a, sizeof a, "run.checkpoint_wall_s=%s", o->wall);
        rc = dike_config_set(cfg, a, "--checkpoint-wall", e);
    }
    /* Only [engine] keys: they say how the run is carried out (layout, testing hooks), never what
     * it computes, so the resumed run still continues the checkpointed one. */
    for (int i = 0; !rc && i < o->nsets; i++) {
        if (strncmp(o->sets[i], "engine.", 7) != 0)
            return dike_err_set(e, DIKE_EINVAL, "resume: --set %s: only engine.* keys can change on "
                                "resume (the others would change the results of the run it continues)",
                                o->sets[i]);
        rc = dike_config_set(cfg, o->sets[i], "--set", e);
    }
    if (o->quiet)
        cfg->output_progress_interval_s = 0;
    return rc;
}

static int cmd_resume(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
        {"checkpoint-every", required_argument, 0, OPT_CKPT_EVERY},
        {"checkpoint-wall", required_argument, 0, OPT_CKPT_WALL},
        {"checkpoint", required_argument, 0, OPT_CKPT}, {"help", no_argument, 0, 'h'},
        {"progress", required_argument, 0, OPT_PROGRESS}, {"set", required_argument, 0, 'S'},
        {"allow-other-build", no_argument, 0, OPT_OTHER_BUILD}, {0, 0, 0, 0}};
    dike_err e = {0};
    resume_opts o = {0};
    char *sets[64];
    o.sets = sets;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qhS:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.out = optarg; break;
        case 'S':
            if (o.nsets == (int)(sizeof sets / sizeof *sets))
                return fail(DIKE_EINVAL, "resume: more than 64 --set options");
            sets[o.nsets++] = optarg;
            break;
        case 'q': o.quiet = 1; break;
        case OPT_CKPT_EVERY: o.every = optarg; break;
        case OPT_CKPT_WALL: o.wall = optarg; break;
        case OPT_CKPT: o.ckpt = optarg; break;
        case OPT_OTHER_BUILD: dike_resume_allow_other_build(1); break;
        case OPT_PROGRESS:
            if (set_progress(optarg))
                return 2;
            break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 0;
        default:
            return bad_option("resume", argv, optind - 1, "dike-emu --help");
        }
    }
    if (optind != argc - 1)
        return fail(DIKE_EINVAL, "resume: expected one checkpoint file (dike-emu resume CHECKPOINT)");
    dike_config cfg;
    dike_results r;
    dike_perf_record perf;
    mpi_start();
    int rc = dike_resume(argv[optind], MPI_COMM_WORLD, &cfg, resume_adjust, &o, &r, &perf, &e);
    return finish(rc, &e, &r, &perf, o.quiet, cfg.run_out);
}

/* ---- trace-info (the report: src/cli/trace_info.c) ---- */

static int cmd_trace_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, 0, 'c'}, {"trace-format", required_argument, 0, 'f'},
        {"set", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
        {"skip-invalid", no_argument, 0, OPT_SKIP_INVALID}, {"cluster", required_argument, 0, OPT_CLUSTER},
        {0, 0, 0, 0}};
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:f:S:h", opts, NULL)) != -1)
        if (c == 'c' && load_config_file(&cfg, optarg, &e))
            return fail(e.code, e.msg);
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:f:S:h", opts, NULL)) != -1) {
        char assign[DIKE_STR_MAX + 64];
        int rc = 0;
        switch (c) {
        case 'c': break;
        case 'f':
            snprintf(assign, sizeof assign, "workload.trace_format=%s", optarg);
            rc = dike_config_set(&cfg, assign, "--trace-format", &e);
            break;
        case 'S': rc = dike_config_set(&cfg, optarg, "--set", &e); break;
        case OPT_SKIP_INVALID: break; /* trace-info always counts invalid rows */
        case OPT_CLUSTER: rc = set_cluster(&cfg, optarg, &e); break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 0;
        default:
            return bad_option("trace-info", argv, optind - 1, "dike-emu --help");
        }
        if (rc)
            return fail(e.code, e.msg);
    }
    /* The files: every remaining argument, as one comma-separated trace setting. */
    char files[DIKE_STR_MAX + 32] = "workload.trace=";
    size_t len = strlen(files);
    for (int i = optind; i < argc; i++) {
        int n = snprintf(files + len, sizeof files - len, "%s%s", i > optind ? "," : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof files - len)
            return fail(DIKE_EINVAL, "trace-info: the file names are longer than 1023 characters together");
        len += (size_t)n;
    }
    if (optind < argc && dike_config_set(&cfg, files, "trace-info", &e))
        return fail(e.code, e.msg);
    if (!cfg.workload_trace[0])
        return fail(DIKE_EINVAL, "trace-info: no trace file (dike-emu trace-info [options] FILE...)");
    if (rank != 0)
        return 0;

    dike_cluster cl;
    dike_workload w;
    int rc = dike_config_validate(&cfg, &e);
    memset(&cl, 0, sizeof cl);
    dike_workload_init(&w);
    if (!rc)
        rc = dike_cluster_init(&cl, &cfg, &e);
    double t0 = dike_mono_seconds();
    if (!rc) /* every invalid row counted, and the window `run` cuts */
        rc = dike_workload_read_trace(&cfg, &cl, true, &w, &e);
    if (!rc)
        rc = dike_workload_prepare(&cfg, &cl, &w, &e);
    double read_s = dike_mono_seconds() - t0;
    if (!rc)
        dike_print_trace_info(&cfg, &cl, &w, read_s);
    dike_workload_free(&w);
    dike_cluster_free(&cl);
    return rc ? fail(rc, e.msg) : 0;
}

/* ---- export (src/io/export.c, docs/output-schema.md "Exports") ---- */

static int cmd_export(int argc, char **argv)
{
    enum { E_JOBS = 3000, E_SUMMARY };
    static const struct option opts[] = {
        {"jobs", required_argument, 0, E_JOBS}, {"summary", required_argument, 0, E_SUMMARY},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *jobs = NULL, *summary = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case E_JOBS: jobs = optarg; break;
        case E_SUMMARY: summary = optarg; break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            return 0;
        default:
            return bad_option("export", argv, optind - 1, "dike-emu --help");
        }
    }
    if (optind != argc - 1)
        return fail(DIKE_EINVAL, "export: expected one output file (dike-emu export RUN.h5 --jobs FILE.csv "
                                 "--summary FILE.json)");
    if (!jobs && !summary)
        return fail(DIKE_EINVAL, "export: nothing to write (give --jobs FILE.csv and/or --summary FILE.json)");
    dike_err e = {0};
    int rc = 0;
    if (rank == 0)
        rc = dike_export(argv[optind], jobs, summary, &e);
    bcast_rc(&rc);
    return rc ? fail(rc, e.msg) : 0;
}

/* ---- campaign (src/campaign/, docs/campaigns.md) ---- */

static void campaign_usage(FILE *f)
{
    fputs("usage: dike-emu campaign GRID.ini --list | --status [--json] [--out-dir DIR]\n"
          "       mpirun -np P dike-emu campaign GRID.ini [--ranks-per-run R] [--point LIST] [options]\n"
          "\n"
          "A grid is a configuration INI plus [campaign] (name, out_dir, ranks_per_run) and [sweep] or\n"
          "[sweep:NAME] sections (axis = v1, v2, ... or a..b; an axis is section.key or one of policy,\n"
          "placement, load, seed). Blocks expand in file order, each the product of its axes in file\n"
          "order with the last axis varying fastest. docs/campaigns.md has the details.\n"
          "\n"
          "      --list               print every point: index, output file, axis values (no mpirun needed)\n"
          "      --status             print every point's state (COMPLETED, FAILED, TIMEOUT, RUNNING, PENDING)\n"
          "                           and Slurm job; reads the outputs and campaign.json, writes nothing\n"
          "      --json               with --status: the manifest document as it would be written now\n"
          "      --ranks-per-run R    MPI ranks per point: the P ranks form P/R groups that share the points\n"
          "                           (default: [campaign] ranks_per_run, else 1)\n"
          "      --point LIST         run only these points: 3 | 0,4,7 | 2..5 | 2-5 (e.g. $SLURM_ARRAY_TASK_ID)\n"
          "  -o, --out-dir DIR        output folder instead of [campaign] out_dir\n"
          "  -S, --set SECTION.KEY=V  override a key in every point, after the sweep axes (repeatable)\n"
          "  -q, --quiet              no progress lines\n"
          "      --allow-other-build  continue an interrupted point's checkpoint even if a build of other\n"
          "                           emulator sources wrote it (default: start that point over)\n"
          "\n"
          "Points whose output is already complete are skipped, so a rerun resumes. Exit status: 0 every\n"
          "point asked for is complete, 1 a point failed (campaign.json has its error), 2 bad grid or\n"
          "command line, 4 stopped by SIGTERM/SIGUSR1 (TIMEOUT; rerun to continue from the checkpoint).\n"
          "--status: 0 when every point is COMPLETED, else 1.\n",
          f);
}

/** The options of `campaign`. */
typedef struct campaign_args {
    const char **sets;  /**< --set assignments (argv's strings) */
    size_t nsets;
    const char *points; /**< --point selection, or NULL */
    const char *out_dir;/**< --out-dir, or NULL */
    int list, status, json;
    long ranks;         /**< --ranks-per-run, 0 = all */
    bool quiet;         /**< --quiet */
} campaign_args;

/* Read the options; the grid file is argv[optind] after it. -1 to go on, else the exit status. */
static int campaign_parse(int argc, char **argv, campaign_args *a)
{
    enum { C_LIST = 2000, C_STATUS, C_RANKS, C_POINT, C_JSON, C_OTHER_BUILD };
    static const struct option opts[] = {
        {"list", no_argument, 0, C_LIST}, {"status", no_argument, 0, C_STATUS}, {"json", no_argument, 0, C_JSON},
        {"allow-other-build", no_argument, 0, C_OTHER_BUILD},
        {"ranks-per-run", required_argument, 0, C_RANKS}, {"point", required_argument, 0, C_POINT},
        {"out-dir", required_argument, 0, 'o'}, {"set", required_argument, 0, 'S'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    char msg[512];
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:S:qh", opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case C_LIST: a->list = 1; break;
        case C_STATUS: a->status = 1; break;
        case C_JSON: a->json = 1; break;
        case C_OTHER_BUILD: dike_resume_allow_other_build(1); break;
        case C_RANKS:
            a->ranks = strtol(optarg, &end, 10);
            if (end == optarg || *end || a->ranks < 1 || a->ranks > 1000000) {
                snprintf(msg, sizeof msg, "campaign: --ranks-per-run '%s': expected an integer in [1, 1000000]",
                         optarg);
                return fail(DIKE_EINVAL, msg);
            }
            break;
        case C_POINT: a->points = optarg; break;
        case 'o': a->out_dir = optarg; break;
        case 'S': a->sets[a->nsets++] = optarg; break;
        case 'q': a->quiet = true; break;
        case 'h':
            if (rank == 0)
                campaign_usage(stdout);
            return 0;
        default:
            snprintf(msg, sizeof msg, "campaign: unknown or incomplete option '%s' (dike-emu campaign --help)",
                     argv[optind - 1]);
            return fail(DIKE_EINVAL, msg);
        }
    }
    if (optind != argc - 1)
        return fail(DIKE_EINVAL, optind < argc ? "campaign: expected one grid file, got several (dike-emu campaign --help)"
                                               : "campaign: no grid file (dike-emu campaign GRID.ini --help)");
    if (a->list + a->status + (a->points != NULL) > 1)
        return fail(DIKE_EINVAL, "campaign: --list, --status and --point exclude each other");
    if (a->json && !a->status)
        return fail(DIKE_EINVAL, "campaign: --json goes with --status");
    return -1;
}

/* --list / --status (rank 0 prints): the exit status. */
static int campaign_report(const dike_grid *g, const campaign_args *a)
{
    dike_err e = {0};
    dike_campaign_stats st;
    if (rank == 0 && a->list)
        dike_grid_print_list(g, stdout);
    if (rank != 0 || !a->status)
        return 0;
    if (dike_campaign_status(g, stdout, a->json, &st, &e))
        return fail(e.code, e.msg);
    if (!a->json)
        printf("# campaign %s: %zu points: %zu COMPLETED, %zu FAILED, %zu TIMEOUT, %zu RUNNING, "
               "%zu PENDING\n", g->name, st.points, st.state[DIKE_POINT_COMPLETED],
               st.state[DIKE_POINT_FAILED], st.state[DIKE_POINT_TIMEOUT],
               st.state[DIKE_POINT_RUNNING], st.state[DIKE_POINT_PENDING]);
    return st.state[DIKE_POINT_COMPLETED] == st.points ? 0 : 1;
}

static int cmd_campaign(int argc, char **argv)
{
    campaign_args a = {0};
    dike_campaign_opts o = {0};
    dike_err e = {0};
    dike_grid g;
    bool *sel = NULL;
    int rc;
    memset(&g, 0, sizeof g);
    a.sets = dike_xcalloc((size_t)argc + 1, sizeof *a.sets);
    if ((rc = campaign_parse(argc, argv, &a)) >= 0)
        goto out;
    rc = 0;
    if (dike_grid_load(&g, argv[optind], a.sets, a.nsets, &e) ||
        (a.out_dir && dike_grid_set_out_dir(&g, a.out_dir, &e))) {
        rc = fail(e.code, e.msg);
        goto out;
    }
    if (a.list || a.status) {
        rc = campaign_report(&g, &a);
        goto out;
    }
    if (a.points) {
        sel = dike_xcalloc(g.npoints, sizeof *sel);
        long n = dike_grid_parse_selection(a.points, g.npoints, sel, &e);
        if (n < 0) {
            rc = fail((int)n, e.msg);
            goto out;
        }
    }
    o.quiet = a.quiet;
    o.ranks_per_run = (int)a.ranks;
    o.select = sel;
    o.select_text = a.points;
    dike_campaign_stats st;
    mpi_start();
    if (dike_campaign_run(&g, &o, MPI_COMM_WORLD, &st, &e))
        rc = fail(e.code, e.msg);
    else
        rc = st.stopped ? 4 : st.ran_failed ? 1 : 0;
out:
    dike_grid_free(&g);
    free(sel);
    free(a.sets);
    return rc;
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
    /* Before MPI_Init, which takes 0.1-0.2 s: a stop request in it (a campaign signalled as it
     * starts) used to kill the process by the signal's default action; now the run stops at its
     * first window boundary with a checkpoint (Open MPI leaves handlers installed before it). */
    install_stop_handlers();
    if (launched_with_others())
        mpi_start();
    dike_provenance_note_command(argc, argv);
    int rc = 0;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "run") == 0) {
        rc = cmd_run(argc - 1, argv + 1);
    } else if (strcmp(cmd, "resume") == 0) {
        rc = cmd_resume(argc - 1, argv + 1);
    } else if (strcmp(cmd, "campaign") == 0) {
        rc = cmd_campaign(argc - 1, argv + 1);
    } else if (strcmp(cmd, "export") == 0) {
        rc = cmd_export(argc - 1, argv + 1);
    } else if (strcmp(cmd, "trace-info") == 0) {
        rc = cmd_trace_info(argc - 1, argv + 1);
    } else if (strcmp(cmd, "list-policies") == 0) {
        if (rank == 0)
            list_policies();
    } else if (strcmp(cmd, "config-reference") == 0) {
        if (rank == 0)
            dike_config_print_reference(stdout);
    } else if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        if (rank == 0)
            printf("dike-emu %s (HDF5 output schema %d)\nbuild %s, emulator sources %s\n", DIKE_VERSION,
                   DIKE_SCHEMA_VERSION, dike_provenance_build(), dike_provenance_source());
    } else if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (rank == 0)
            usage(stdout);
    } else {
        if (rank == 0) {
            if (*cmd) {
                char msg[256];
                snprintf(msg, sizeof msg, "unknown command '%.200s'", cmd);
                dike_eprint("dike-emu: ", msg);
            }
            usage(stderr);
        }
        rc = 2;
    }
    if (dike_mpi_started())
        MPI_Finalize();
    return rc;
}
