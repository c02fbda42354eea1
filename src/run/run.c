/* dike_run: configuration -> cluster -> workload -> window loop -> results -> HDF5. */
#include "dike/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/cluster.h"
#include "dike/outpath.h"
#include "dike/provenance.h"
#include "dike/workload.h"
#include "engine/winprof.h"
#include "engine/checkpoint.h"
#include "engine/coord.h"
#include "engine/emulate.h"
#include "engine/nodes.h"
#include "engine/partition.h"
#include "engine/window.h"
#include "run/run_internal.h"
#include "base/mpi.h"

/* engine.coordinator_owns_nodes. `auto`: with 1-2 ranks an idle coordinator would waste half the
 * job; in the emulating mode the coordinator's part of a window runs after every rank's node
 * steps, while the node ranks wait for it, so a block of nodes on rank 0 delays nobody and every
 * rank shares the node work (docs/scaling.md, "What the windows allow"). In the predicting mode
 * with 3+ ranks rank 0 runs ahead alone and keeps no block. */
static int coordinator_owns_nodes(const dike_config *cfg, int nranks)
{
    if (strcmp(cfg->engine_coordinator_owns_nodes, "true") == 0)
        return 1;
    if (strcmp(cfg->engine_coordinator_owns_nodes, "false") == 0)
        return nranks == 1;
    return nranks <= 2 || dike_sched_mode_emulating(cfg);
}

/* The same rule for the window bound's other rank counts (winprof.h). */
static int owns_for_bound(const void *cfg, int nranks)
{
    return coordinator_owns_nodes(cfg, nranks);
}

/* Accepted values whose combination would exhaust memory or never end: each bound names the key
 * and what it protects. The span is the last submit time, a lower bound of the simulated time. */
#define MAX_CHECKPOINTS 1e5                             /* periodic checkpoints before the last submit */
#define MAX_FAILURES 1e9                                /* expected node failures before the last submit */
static int check_bounds(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                        uint32_t block_nodes, dike_err *e)
{
    double span = w->njobs ? dike_time_to_s(w->jobs[w->njobs - 1].submit) : 0;
    if (cl->total_gpus > UINT32_MAX)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] nodes x gpus_per_node: %llu GPUs, at most %u "
                            "supported (GPU counts are 32-bit)", (unsigned long long)cl->total_gpus,
                            UINT32_MAX);
    double samples = span / cfg->output_timeseries_interval_s;
    double bytes = samples * dike_timeseries_row_bytes(w->ntenants);
    double most = cfg->output_timeseries_max_gib * DIKE_GIB;
    if (bytes > most)
        return dike_err_set(e, DIKE_EINVAL, "[output] timeseries_interval_s: %g s over the %g s of submits "
                            "means at least %.3g samples of /timeseries (%.3g GiB for %u tenants); at most "
                            "%g GiB (output.timeseries_max_gib): raise the interval",
                            cfg->output_timeseries_interval_s, span, samples,
                            bytes / DIKE_GIB, w->ntenants, cfg->output_timeseries_max_gib);
    /* the emulating mode's per-node samples, on the rank with the most nodes */
    double nsamples = cfg->output_node_timeseries_s > 0 ? span / cfg->output_node_timeseries_s : 0;
    double nbytes = nsamples * block_nodes * DIKE_NODE_SAMPLE_BYTES;
    if (nbytes > most)
        return dike_err_set(e, DIKE_EINVAL, "[output] node_timeseries_s: %g s over the %g s of submits "
                            "means at least %.3g samples of /node_timeseries for each of the %u nodes "
                            "of one rank (%.3g GiB); at most %g GiB (output.timeseries_max_gib): raise "
                            "the interval", cfg->output_node_timeseries_s, span, nsamples, block_nodes,
                            nbytes / DIKE_GIB, cfg->output_timeseries_max_gib);
    if (cfg->run_checkpoint_every_s > 0 && (cfg->run_checkpoint_every_s < 1 ||
                                            span / cfg->run_checkpoint_every_s > MAX_CHECKPOINTS))
        return dike_err_set(e, DIKE_EINVAL, "[run] checkpoint_every_s: %g s means at least %.3g checkpoints "
                            "over the %g s of submits, each rewriting the whole state; at least 1 s and "
                            "at most %.0f checkpoints", cfg->run_checkpoint_every_s,
                            span / cfg->run_checkpoint_every_s, span, MAX_CHECKPOINTS);
    if (cfg->faults_mtbf_s > 0 && (cfg->faults_mtbf_s < 1 ||
                                   (double)cl->nodes * span / cfg->faults_mtbf_s > MAX_FAILURES))
        return dike_err_set(e, DIKE_EINVAL, "[faults] mtbf_s: %g s on %u nodes means about %.3g node "
                            "failures over the %g s of submits; at least 1 s and at most %.0e failures "
                            "(events)", cfg->faults_mtbf_s, cl->nodes,
                            (double)cl->nodes * span / cfg->faults_mtbf_s, span, MAX_FAILURES);
    return 0;
}

static int run_body(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                    const char *out_path, const char *resume, const char *builds, dike_results *out,
                    dike_perf_record *perf_out, dike_err *e);

/* MPI_Init of this process, from the caller (0 if not told); the first run of the process reports
 * it and clears it, as the later runs of a campaign did not pay it. */
static double startup_seconds;

void dike_run_note_startup(double seconds)
{
    startup_seconds = seconds;
}

int dike_run(const dike_config *cfg, MPI_Comm comm, const char *out_path, dike_results *out,
             dike_perf_record *perf_out, dike_err *e)
{
    return run_body(cfg, comm, NULL, out_path, NULL, NULL, out, perf_out, e);
}

int dike_run_workload(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                       const char *out_path, dike_results *out, dike_perf_record *perf_out,
                       dike_err *e)
{
    return run_body(cfg, comm, given, out_path, NULL, NULL, out, perf_out, e);
}

/* ---- the builds that ran an emulation ----
 * A checkpoint names the builds (`git describe` at build time, dike_provenance) that ran its
 * emulation so far and the digest of its writer's emulator sources. A resume by a build of other
 * sources is refused unless allowed: one output's results would otherwise come from two versions
 * of the emulator's rules while its `build` attribute names one. */

static int allow_other_build;

void dike_resume_allow_other_build(int yes)
{
    allow_other_build = yes != 0;
}

/* The last entry of a comma-separated list of builds. */
static const char *last_build(const char *list)
{
    const char *c = strrchr(list, ',');
    return c ? c + 1 : list;
}

/* @p earlier (a checkpoint's list; NULL or "" for a fresh run) with this build appended unless it
 * is already the last, into @p out. A list too long for it keeps its newest entries after "...". */
static void builds_list(const char *earlier, char *out, size_t n)
{
    const char *me = dike_provenance_build();
    if (!earlier || !*earlier) {
        snprintf(out, n, "%s", me);
        return;
    }
    size_t len = strlen(earlier) + strlen(me) + 2;
    char *full = dike_xmalloc(len);
    if (strcmp(last_build(earlier), me) == 0)
        snprintf(full, len, "%s", earlier);
    else
        snprintf(full, len, "%s,%s", earlier, me);
    const char *keep = full;
    if (strlen(full) >= n)
        while (strlen(keep) + 4 >= n && strchr(keep, ','))
            keep = strchr(keep, ',') + 1;
    snprintf(out, n, keep == full ? "%s" : "...,%s", keep);
    free(full);
}

int dike_resume(const char *ckpt, MPI_Comm comm, dike_config *cfg,
                int (*adjust)(dike_config *cfg, void *ctx, dike_err *e), void *ctx, dike_results *out,
                dike_perf_record *perf_out, dike_err *e)
{
    char *text = NULL, *earlier = NULL, *source = NULL, builds[DIKE_BUILDS_MAX] = "";
    int rc;
    memset(out, 0, sizeof *out);
    dike_config_defaults(cfg);
    rc = dike_checkpoint_config(ckpt, &text, &earlier, &source, e);
    if (!rc) {
        const char *me = dike_provenance_build(), *mine = dike_provenance_source();
        if (!source[0] && !allow_other_build) /* format 7 */
            rc = dike_err_set(e, DIKE_EINVAL, "%s: checkpoint of format 7, which does not name the build "
                              "and emulator sources that wrote it; this is build %.200s: resume it with "
                              "the build that wrote it, run it again, or pass --allow-other-build (the "
                              "output's `builds` attribute then starts with \"unknown\")", ckpt, me);
        else if (strcmp(source, mine) != 0 && !allow_other_build)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: checkpoint written by build %.200s, of other emulator "
                              "sources (source_sha256 %.12s..., this build %.200s has %.12s...); "
                              "continuing it would give one output two versions' rules: resume it with "
                              "the build that wrote it, run it again, or pass --allow-other-build (the "
                              "output's `builds` attribute then names both)", ckpt, last_build(earlier),
                              source, me, mine);
        builds_list(earlier[0] ? earlier : "unknown", builds, sizeof builds);
    }
    free(earlier);
    free(source);
    if (!rc)
        rc = dike_config_load_text(cfg, text, ckpt, e);
    free(text);
    /* the testing injections were what stopped the run; they do not carry over */
    cfg->engine_inject_stop_s = 0;
    cfg->engine_inject_fatal_rank = -1;
    if (!rc && adjust)
        rc = adjust(cfg, ctx, e);
    /* every rank read the same file; agree anyway, so nobody runs alone */
    if ((rc = dike_mpi_agree(comm, rc, e)))
        return rc;
    return run_body(cfg, comm, NULL, cfg->run_out, ckpt, builds, out, perf_out, e);
}

/* One emulation's state on one rank, shared by the steps of run_body. */
typedef struct run_state {
    const dike_config *cfg;
    MPI_Comm comm;
    int rank, nranks;
    const char *out_path, *resume; /* output file (may be NULL or ""); checkpoint to resume or NULL */
    const dike_workload *used;     /* rank 0: the caller's workload, or w */
    int emulate;                   /* the emulating mode (node ranks track progress) */
    dike_time latency_us;          /* scheduler.decision_latency_s */
    dike_cluster cl;
    dike_workload w;               /* rank 0: the configured workload, unless the caller gave one */
    dike_sched s;                  /* rank 0: the coordinator */
    dike_part part;                /* this rank's node block */
    dike_part_layout layout;
    dike_nodes *ns;                /* emulating mode: this rank's node models and runs */
    dike_winprof *wp;              /* output.window_bound: the work charged to racks */
    dike_perf_record perf;
    char ckpt_path[DIKE_STR_MAX + 16];
    char sha[65];                  /* the workload's SHA-256, on every rank */
    double t_start, t_engine, t_output;
    char *config_ini;              /* rank 0: the configuration stored in checkpoints */
    char builds[DIKE_BUILDS_MAX];  /* the builds that ran this emulation, this one last */
} run_state;

/* Rank 0: the checks of what the configuration asks for in this mode. */
static int check_mode(const run_state *rs, dike_err *e)
{
    const dike_config *cfg = rs->cfg;
    if (dike_sched_mode_emulating(cfg) && strcmp(cfg->node_model_progress, "coordinator") != 0 &&
        cfg->scheduler_decision_latency_s > 0 && dike_time_from_s(cfg->scheduler_decision_latency_s) < 1)
        return dike_err_set(e, DIKE_EINVAL, "[scheduler] decision_latency_s: %g s is below the "
                            "emulator's time step (1 us)", cfg->scheduler_decision_latency_s);
    if (cfg->output_window_bound && !dike_sched_mode_emulating(cfg))
        return dike_err_set(e, DIKE_EINVAL, "[output] window_bound: needs the emulating mode "
                            "(a node model on, or scheduler.decision_latency_s > 0)");
    if (cfg->output_window_bound && rs->nranks != 1)
        return dike_err_set(e, DIKE_EINVAL, "[output] window_bound: needs 1 rank (it predicts "
                            "other rank counts from one run), not %d", rs->nranks);
    return 0;
}

/* The coordinator with the policy the configuration names: the lookup is here, above the policy
 * layer, because policies call the engine and the engine does not name them. */
static int coord_init(dike_sched *s, const dike_config *cfg, const dike_cluster *cl,
                      const dike_workload *w, dike_err *e)
{
    const dike_policy *pol = dike_policy_find(cfg->scheduler_policy);
    if (!pol)
        return dike_err_set(e, DIKE_EINVAL,
                            "[scheduler] policy: unknown policy '%s' (dike-emu list-policies)",
                            cfg->scheduler_policy);
    return dike_coord_init(s, cfg, pol, cl, w, e);
}

/* The emulating mode: the most nodes one rank owns (setup_nodes' layout). */
static uint32_t largest_block(const run_state *rs)
{
    dike_part_layout l;
    dike_part_layout_init(&l, &rs->cl, rs->nranks, coordinator_owns_nodes(rs->cfg, rs->nranks));
    dike_part_layout_reverse(&l);
    uint32_t most = 0, first, n;
    for (int r = 0; r < rs->nranks; r++) {
        dike_part_block(&l, r, &first, &n);
        most = n > most ? n : most;
    }
    return most;
}

/* Rank 0: check the configuration and output paths, build the cluster, load the workload and
 * start the coordinator. Bad input is found here, before any rank starts emulating. */
static int setup_coordinator(run_state *rs, dike_err *e)
{
    const dike_config *cfg = rs->cfg;
    int rc = dike_config_validate(cfg, e);
    if (!rc)
        rc = dike_cluster_init(&rs->cl, cfg, e);
    if (!rc && rs->cl.gpus_per_node > 256)
        rc = dike_err_set(e, DIKE_EINVAL, "[cluster] gpus_per_node: at most 256 supported (got %u)",
                          rs->cl.gpus_per_node);
    if (!rc && rs->cl.nodes_per_rack > 1024)
        rc = dike_err_set(e, DIKE_EINVAL, "[cluster] nodes_per_rack: at most 1024 supported (got %u)",
                          rs->cl.nodes_per_rack);
    if (!rc)
        rc = dike_output_paths_check(cfg, rs->out_path, rs->ckpt_path, rs->resume, e);
    if (!rc) {
        /* temporary files of earlier runs on this host that died before their rename */
        if (rs->out_path && *rs->out_path)
            dike_tmp_sweep(rs->out_path);
        dike_tmp_sweep(rs->ckpt_path);
    }
    if (!rc)
        rc = check_mode(rs, e);
    if (!rc && rs->used == &rs->w)
        rc = dike_workload_load(cfg, &rs->cl, &rs->w, e);
    if (!rc)
        rc = check_bounds(cfg, &rs->cl, rs->used, rs->emulate ? largest_block(rs) : 0, e);
    if (!rc)
        rc = coord_init(&rs->s, cfg, &rs->cl, rs->used, e);
    return rc;
}

/* Every rank: its block of nodes, and in the emulating mode its node models. */
static void setup_nodes(run_state *rs)
{
    const dike_config *cfg = rs->cfg;
    dike_part_layout_init(&rs->layout, &rs->cl, rs->nranks, coordinator_owns_nodes(cfg, rs->nranks));
    if (rs->emulate)
        dike_part_layout_reverse(&rs->layout);
    uint32_t first, n;
    dike_part_block(&rs->layout, rs->rank, &first, &n);
    /* emulating: failures are node models too (engine/nodes.c), not the partition's */
    dike_part_init(&rs->part, &rs->cl, rs->emulate ? NULL : cfg, first, n);
    if (!rs->emulate)
        return;
    uint64_t njobs = rs->rank == 0 ? rs->used->njobs : 0;
    DIKE_MPI_CHECK(MPI_Bcast(&njobs, 1, MPI_UINT64_T, 0, rs->comm));
    dike_nodes_params np;
    dike_nodes_params_read(&np, cfg);
    rs->ns = dike_nodes_new(&np, &rs->cl, &rs->layout, rs->rank, &rs->part, (uint32_t)njobs);
    if (cfg->output_window_bound) { /* 1 rank (check_mode) */
        /* recut every 1,024 windows: 7 recuts at L = 60 s and 268 at L = 1 s in the 100,000-GPU
         * runs of docs/scaling.md, so the recuts follow the run and cost little */
        rs->wp = dike_winprof_new(&rs->cl, (uint32_t)njobs, owns_for_bound, cfg, 1024);
        dike_nodes_window_bound(rs->ns, rs->wp);
    }
}

/* The window loop of the run's mode. */
static int run_engine(run_state *rs, dike_err *e)
{
    const dike_config *cfg = rs->cfg;
    dike_sched *s = rs->rank == 0 ? &rs->s : NULL;
    if (rs->rank == 0)
        rs->config_ini = dike_config_to_ini(cfg);
    dike_window_opts wo = {(size_t)cfg->engine_window_actions, (int)cfg->engine_inject_fatal_rank,
                           dike_time_from_s(cfg->run_checkpoint_every_s), cfg->run_checkpoint_wall_s,
                           dike_time_from_s(cfg->engine_inject_stop_s), rs->ckpt_path, rs->config_ini,
                           rs->sha, {rs->builds, dike_provenance_source()}, !cfg->engine_run_ahead};
    if (rs->emulate)
        return dike_emulate_loop(rs->comm, s, &rs->part, rs->ns, &rs->layout, rs->latency_us, &wo,
                                 &rs->perf, e);
    return dike_window_loop(rs->comm, s, &rs->part, &rs->layout, &wo, &rs->perf, e);
}

/* Rank 0: the results and what the output says about the run. */
static void build_results(run_state *rs, dike_results *out)
{
    const dike_config *cfg = rs->cfg;
    dike_coord_results(&rs->s, out);
    out->window_bound = rs->wp ? dike_winprof_report(rs->wp) : NULL;
    dike_run_meta *m = &out->meta;
    snprintf(m->version, sizeof m->version, "%s", DIKE_VERSION);
    snprintf(m->policy, sizeof m->policy, "%s", cfg->scheduler_policy);
    snprintf(m->placement, sizeof m->placement, "%s", cfg->scheduler_placement);
    m->seed = cfg->run_seed;
    m->ranks = rs->nranks;
    m->config_text = dike_config_to_ini(cfg);
    snprintf(m->metrics_window, sizeof m->metrics_window, "%s", cfg->metrics_window);
    snprintf(m->trace_path, sizeof m->trace_path, "%s", rs->used->source);
    snprintf(m->trace_sha256, sizeof m->trace_sha256, "%s", rs->used->sha256);
    snprintf(m->builds, sizeof m->builds, "%s", rs->builds);
}

/* The HDF5 file (collective), then every rank's counters to rank 0 for the table printed at
 * the end. */
static int write_output(run_state *rs, dike_results *out, dike_perf_record *perf_out, dike_err *e)
{
    int rc = 0;
    dike_node_record *nodes = dike_part_records(&rs->part);
    if (rs->ns && rs->cfg->output_node_timeseries_s > 0) {
        dike_node_samples smp = {0, rs->cfg->output_node_timeseries_s, NULL, NULL, NULL};
        dike_nodes_samples(rs->ns, &smp.nsamples, &smp.busy, &smp.factor, &smp.up);
        dike_h5_set_node_samples(&smp);
    }
    if (rs->out_path && *rs->out_path)
        rc = dike_h5_write(rs->out_path, rs->comm, rs->rank == 0 ? out : NULL, nodes, rs->part.n,
                           rs->cl.nodes, &rs->perf, e);
    free(nodes);
    rs->perf.output_seconds = MPI_Wtime() - rs->t_output;
    if (perf_out)
        *perf_out = rs->perf;
    if (rc)
        return rc;
    if (rs->rank == 0) {
        out->perf = dike_xcalloc((size_t)rs->nranks, sizeof *out->perf);
        out->nperf = (size_t)rs->nranks;
    }
    DIKE_MPI_CHECK(MPI_Gather(&rs->perf, (int)sizeof rs->perf, MPI_BYTE, rs->rank == 0 ? out->perf : NULL,
                              (int)sizeof rs->perf, MPI_BYTE, 0, rs->comm));
    return 0;
}

static void run_free(run_state *rs)
{
    free(rs->config_ini);
    dike_nodes_free(rs->ns);
    dike_winprof_free(rs->wp);
    dike_part_free(&rs->part);
    if (rs->rank == 0) {
        dike_coord_free(&rs->s);
        dike_workload_free(&rs->w);
    }
    dike_cluster_free(&rs->cl);
}

static int run_body(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                    const char *out_path, const char *resume, const char *builds, dike_results *out,
                    dike_perf_record *perf_out, dike_err *e)
{
    run_state *rs = dike_xcalloc(1, sizeof *rs);
    rs->cfg = cfg;
    rs->comm = comm;
    rs->rank = dike_mpi_rank(comm);
    rs->nranks = dike_mpi_size(comm);
    rs->out_path = out_path;
    rs->resume = resume;
    if (builds && *builds)
        snprintf(rs->builds, sizeof rs->builds, "%s", builds);
    else
        builds_list(NULL, rs->builds, sizeof rs->builds);
    rs->used = given ? given : &rs->w;
    rs->emulate = dike_sched_mode_emulating(cfg);
    rs->latency_us = dike_time_from_s(cfg->scheduler_decision_latency_s);
    rs->t_start = MPI_Wtime();
    memset(out, 0, sizeof *out);
    dike_workload_init(&rs->w);
    if (cfg->run_checkpoint[0])
        snprintf(rs->ckpt_path, sizeof rs->ckpt_path, "%s", cfg->run_checkpoint);
    else
        snprintf(rs->ckpt_path, sizeof rs->ckpt_path, "%s.ckpt.h5",
                 out_path && *out_path ? out_path : "dike-emu");

    int rc = rs->rank == 0 ? setup_coordinator(rs, e) : 0;
    if ((rc = dike_mpi_agree(comm, rc, e))) /* every rank returns rank 0's verdict */
        goto out;
    /* Every rank derives the same cluster from the same configuration. */
    if (rs->rank != 0 && (rc = dike_cluster_init(&rs->cl, cfg, e)))
        dike_fatal("rank %d: cluster differs from rank 0: %s", rs->rank, e->msg);
    setup_nodes(rs);
    if (rs->rank == 0)
        snprintf(rs->sha, sizeof rs->sha, "%s", rs->used->sha256);
    DIKE_MPI_CHECK(MPI_Bcast(rs->sha, sizeof rs->sha, MPI_CHAR, 0, comm));
    if (resume && (rc = dike_checkpoint_restore(resume, comm, rs->rank == 0 ? &rs->s : NULL, &rs->part,
                                                &rs->layout, rs->ns, rs->sha, e)))
        goto out;

    rs->t_engine = MPI_Wtime();
    if ((rc = run_engine(rs, e)))
        goto out;
    /* output: from the engine's end, so the results (metrics, percentiles) count with it */
    rs->t_output = MPI_Wtime();
    rs->perf.startup_seconds = startup_seconds;
    startup_seconds = 0;
    rs->perf.read_seconds = rs->t_engine - rs->t_start;
    if (rs->rank == 0)
        build_results(rs, out);
    double wall = MPI_Wtime() - rs->t_start;
    DIKE_MPI_CHECK(MPI_Bcast(&wall, 1, MPI_DOUBLE, 0, comm));
    if (rs->rank == 0)
        out->meta.wall_seconds = wall;
    rc = write_output(rs, out, perf_out, e);
out:
    run_free(rs);
    if (rc && rs->rank == 0)
        dike_results_free(out);
    free(rs);
    return rc;
}

/* One line of the summary table: a name and a value printed as a count ('u', no decimals), a
 * fixed-point number ('f') or in %g ('g') with @p prec digits; perf lines only when given. */
typedef struct summary_line {
    const char *name;
    char fmt;
    int prec;
    double value;
    int perf;
} summary_line;

#define SUMMARY_LINES 28

static size_t summary_lines(const dike_results *r, const dike_perf_record *p, summary_line *out)
{
    const dike_summary *m = &r->summary;
    double eps = p->wall_seconds > 0 ? (double)p->events / p->wall_seconds : 0.0;
    /* the process's time in order (MPI start-up, read, engine, output), then the decision-step
     * latency with the active jobs it was measured at */
    const summary_line t[] = {
        {"jobs", 'u', 0, (double)m->jobs, 0}, {"finished", 'u', 0, (double)m->finished, 0},
        {"avg JCT (s)", 'f', 2, m->avg_jct, 0}, {"p50 JCT (s)", 'f', 2, m->p50_jct, 0},
        {"p99 JCT (s)", 'f', 2, m->p99_jct, 0}, {"makespan (s)", 'f', 2, m->makespan, 0},
        {"avg queue delay (s)", 'f', 2, m->avg_queue_delay, 0}, {"mean rho", 'f', 4, m->mean_rho, 0},
        {"max rho", 'f', 4, m->max_rho, 0}, {"unfair fraction", 'f', 4, m->unfair_fraction, 0},
        {"Jain index", 'f', 4, m->jain, 0}, {"GPU utilisation", 'f', 4, m->utilization, 0},
        {"preemptions", 'u', 0, (double)m->preemptions, 0},
        {"MPI start-up (s)", 'f', 3, p->startup_seconds, 1}, {"read (s)", 'f', 3, p->read_seconds, 1},
        {"engine wall (s)", 'f', 3, p->wall_seconds, 1}, {"output (s)", 'f', 3, p->output_seconds, 1},
        {"events/s", 'f', 0, eps, 1}, {"windows", 'u', 0, (double)p->windows, 1},
        {"decisions", 'u', 0, (double)p->decisions, 1},
        {"decisions timed", 'u', 0, (double)p->decide_timed, 1},
        {"decide mean (us)", 'f', 2, p->decide_mean_us, 1}, {"decide p50 (us)", 'g', 3, p->decide_p50_us, 1},
        {"decide p99 (us)", 'g', 3, p->decide_p99_us, 1}, {"decide max (us)", 'g', 3, p->decide_max_us, 1},
        {"active at slowest", 'u', 0, p->decide_max_active, 1},
        {"active jobs mean", 'f', 1, p->active_mean, 1},
        {"active jobs max", 'u', 0, p->active_max, 1},
    };
    _Static_assert(sizeof t / sizeof t[0] == SUMMARY_LINES, "SUMMARY_LINES");
    memcpy(out, t, sizeof t);
    return sizeof t / sizeof t[0];
}

void dike_print_summary(FILE *f, const dike_results *r, const dike_perf_record *perf)
{
    fprintf(f, "dike-emu %s  policy=%s placement=%s seed=%lld ranks=%d\n", r->meta.version,
            r->meta.policy, r->meta.placement, (long long)r->meta.seed, r->meta.ranks);
    fprintf(f, "trace: %s\n", r->meta.trace_path);
    fprintf(f, "  %-22s %14s\n", "metric", "value");
    dike_perf_record none;
    memset(&none, 0, sizeof none);
    summary_line lines[SUMMARY_LINES];
    size_t n = summary_lines(r, perf ? perf : &none, lines);
    for (size_t i = 0; i < n; i++) {
        const summary_line *l = &lines[i];
        if (l->perf && !perf)
            continue;
        if (l->fmt == 'u')
            fprintf(f, "  %-22s %14llu\n", l->name, (unsigned long long)l->value);
        else
            fprintf(f, l->fmt == 'g' ? "  %-22s %14.*g\n" : "  %-22s %14.*f\n", l->name, l->prec, l->value);
    }
    if (r->nperf) {
        fprintf(f, "  per rank: %4s %8s %11s %9s %11s %9s %9s %9s %9s\n", "rank", "nodes", "events",
                "messages", "bytes", "local_s", "decide_s", "comm_s", "wall_s");
        for (size_t i = 0; i < r->nperf; i++) {
            const dike_perf_record *p = &r->perf[i];
            fprintf(f, "            %4d %8u %11llu %9llu %11llu %9.3f %9.3f %9.3f %9.3f\n", p->rank,
                    p->nodes_owned, (unsigned long long)p->events, (unsigned long long)p->messages,
                    (unsigned long long)p->bytes_sent, p->compute_seconds, p->decide_seconds,
                    p->comm_seconds, p->wall_seconds);
        }
        /* emulating mode: how much of local_s was node work, and the records between ranks */
        int emulating_run = 0;
        for (size_t i = 0; i < r->nperf; i++)
            emulating_run |= r->perf[i].node_seconds > 0;
        if (emulating_run) {
            /* node_s = owner_s + home_s; comm_s = the three waits + checkpoints and the first window */
            fprintf(f, "  node side: %4s %9s %9s %9s %9s %9s %9s %9s %14s\n", "rank", "node_s", "owner_s",
                    "home_s", "coord_s", "wait_rec", "wait_rep", "wait_act", "remote_records");
            for (size_t i = 0; i < r->nperf; i++) {
                const dike_perf_record *p = &r->perf[i];
                fprintf(f, "             %4d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %14llu\n", p->rank,
                        p->node_seconds, p->owner_seconds, p->node_seconds - p->owner_seconds,
                        p->coord_seconds, p->wait_records_seconds, p->wait_reports_seconds,
                        p->wait_actions_seconds, (unsigned long long)p->remote_records);
            }
        }
    }
    if (r->window_bound)
        fputs(r->window_bound, f);
}
