/* dike_run: configuration -> cluster -> workload -> window loop -> results -> HDF5. */
#include "dike/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/cluster.h"
#include "dike/outpath.h"
#include "dike/workload.h"
#include "engine/checkpoint.h"
#include "engine/coord.h"
#include "engine/emulate.h"
#include "engine/nodes.h"
#include "engine/partition.h"
#include "engine/window.h"
#include "engine/run_internal.h"
#include "base/mpi.h"

static int coordinator_owns_nodes(const dike_config *cfg, int nranks)
{
    if (strcmp(cfg->engine_coordinator_owns_nodes, "true") == 0)
        return 1;
    if (strcmp(cfg->engine_coordinator_owns_nodes, "false") == 0)
        return nranks == 1;
    return nranks <= 2; /* auto: with 1-2 ranks an idle coordinator would waste half the job */
}

/* The emulating mode (node ranks track progress) is on when asked for, or in `auto` when a node
 * model is on or decisions take time to reach the nodes; otherwise the coordinator predicts every
 * completion, exactly as before the node models existed (docs/architecture.md#two-modes). */
static int emulating(const dike_config *cfg)
{
    if (strcmp(cfg->node_model_progress, "nodes") == 0)
        return 1;
    if (strcmp(cfg->node_model_progress, "coordinator") == 0)
        return 0;
    return cfg->node_model_interference > 0 || strcmp(cfg->node_model_network, "rack") == 0 ||
           cfg->node_model_slowdown_mtbf_s > 0 || cfg->scheduler_decision_latency_s > 0;
}

/* Accepted values whose combination would exhaust memory or never end: each bound names the key
 * and what it protects. The span is the last submit time, a lower bound of the simulated time. */
#define MAX_TIMESERIES_BYTES (4.0 * 1024 * 1024 * 1024) /* /timeseries in memory on rank 0 */
#define MAX_CHECKPOINTS 1e5                             /* periodic checkpoints before the last submit */
#define MAX_FAILURES 1e9                                /* expected node failures before the last submit */
static int check_bounds(const dike_config *cfg, const dike_cluster *cl, const dike_workload *w,
                        dike_err *e)
{
    double span = w->njobs ? dike_time_to_s(w->jobs[w->njobs - 1].submit) : 0;
    if (cl->total_gpus > UINT32_MAX)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] nodes x gpus_per_node: %llu GPUs, at most %u "
                            "supported (GPU counts are 32-bit)", (unsigned long long)cl->total_gpus,
                            UINT32_MAX);
    double samples = span / cfg->output_timeseries_interval_s;
    double bytes = samples * (8.0 + 3 * 4.0 + 4.0 * w->ntenants);
    if (bytes > MAX_TIMESERIES_BYTES)
        return dike_err_set(e, DIKE_EINVAL, "[output] timeseries_interval_s: %g s over the %g s of submits "
                            "means at least %.3g samples of /timeseries (%.1f GiB for %u tenants); at most "
                            "%.0f GiB: raise the interval", cfg->output_timeseries_interval_s, span,
                            samples, bytes / (1024.0 * 1024 * 1024), w->ntenants,
                            MAX_TIMESERIES_BYTES / (1024.0 * 1024 * 1024));
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
                    const char *out_path, const char *resume, dike_results *out,
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
    return run_body(cfg, comm, NULL, out_path, NULL, out, perf_out, e);
}

int dike__run_workload(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                       const char *out_path, dike_results *out, dike_perf_record *perf_out,
                       dike_err *e)
{
    return run_body(cfg, comm, given, out_path, NULL, out, perf_out, e);
}

int dike_resume(const char *ckpt, MPI_Comm comm, dike_config *cfg,
                int (*adjust)(dike_config *cfg, void *ctx, dike_err *e), void *ctx, dike_results *out,
                dike_perf_record *perf_out, dike_err *e)
{
    char *text = NULL;
    int rc;
    memset(out, 0, sizeof *out);
    dike_config_defaults(cfg);
    rc = dike_checkpoint_config(ckpt, &text, e);
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
    return run_body(cfg, comm, NULL, cfg->run_out, ckpt, out, perf_out, e);
}

static int run_body(const dike_config *cfg, MPI_Comm comm, const dike_workload *given,
                    const char *out_path, const char *resume, dike_results *out,
                    dike_perf_record *perf_out, dike_err *e)
{
    int rank, nranks, rc = 0;
    rank = dike_mpi_rank(comm);
    nranks = dike_mpi_size(comm);
    double t_start = MPI_Wtime();
    memset(out, 0, sizeof *out);

    dike_cluster cl;
    dike_workload w;
    dike_sched s;
    dike_part part;
    dike_perf_record perf;
    dike_node_record *nodes = NULL;
    dike_nodes *ns = NULL; /* emulating mode: this rank's node models and runs */
    memset(&perf, 0, sizeof perf);
    memset(&cl, 0, sizeof cl);
    memset(&s, 0, sizeof s);
    memset(&part, 0, sizeof part);
    dike_workload_init(&w);

    char ckpt_path[DIKE_STR_MAX + 16];
    if (cfg->run_checkpoint[0])
        snprintf(ckpt_path, sizeof ckpt_path, "%s", cfg->run_checkpoint);
    else
        snprintf(ckpt_path, sizeof ckpt_path, "%s.ckpt.h5", out_path && *out_path ? out_path : "dike-emu");

    /* Every rank derives the same cluster from the same configuration. */
    if (rank == 0) {
        rc = dike_config_validate(cfg, e);
        if (!rc)
            rc = dike_cluster_init(&cl, cfg, e);
        if (!rc && cl.gpus_per_node > 256)
            rc = dike_err_set(e, DIKE_EINVAL, "[cluster] gpus_per_node: at most 256 supported (got %u)",
                              cl.gpus_per_node);
        if (!rc && cl.nodes_per_rack > 1024)
            rc = dike_err_set(e, DIKE_EINVAL, "[cluster] nodes_per_rack: at most 1024 supported (got %u)",
                              cl.nodes_per_rack);
        if (!rc)
            rc = dike_output_paths_check(cfg, out_path, ckpt_path, resume, e);
        if (!rc) {
            /* temporary files of earlier runs on this host that died before their rename */
            if (out_path && *out_path)
                dike_tmp_sweep(out_path);
            dike_tmp_sweep(ckpt_path);
        }
        if (!rc && emulating(cfg) && (cfg->run_checkpoint_every_s > 0 || resume ||
                                      cfg->engine_inject_stop_s > 0))
            rc = dike_err_set(e, DIKE_EINVAL, "[run] checkpoint_every_s: checkpoints are not supported "
                              "when the node ranks track progress (a node model is on, "
                              "scheduler.decision_latency_s > 0 or node_model.progress = nodes)");
        if (!rc && emulating(cfg) && strcmp(cfg->node_model_progress, "coordinator") != 0 &&
            cfg->scheduler_decision_latency_s > 0 &&
            dike_time_from_s(cfg->scheduler_decision_latency_s) < 1)
            rc = dike_err_set(e, DIKE_EINVAL, "[scheduler] decision_latency_s: %g s is below the "
                              "emulator's time step (1 us)", cfg->scheduler_decision_latency_s);
        if (!rc && !given)
            rc = dike_workload_load(cfg, &cl, &w, e);
        if (!rc)
            rc = check_bounds(cfg, &cl, given ? given : &w, e);
        if (!rc)
            rc = dike_coord_init(&s, cfg, &cl, given ? given : &w, e);
    }
    if ((rc = dike_mpi_agree(comm, rc, e))) /* every rank returns rank 0's verdict */
        goto out;
    if (rank != 0 && (rc = dike_cluster_init(&cl, cfg, e)))
        dike_fatal("rank %d: cluster differs from rank 0: %s", rank, e->msg);

    dike_part_layout layout;
    dike_part_layout_init(&layout, &cl, nranks, coordinator_owns_nodes(cfg, nranks));
    int emulate = emulating(cfg);
    if (emulate)
        dike_part_layout_reverse(&layout);
    uint32_t first, n;
    dike_part_block(&layout, rank, &first, &n);
    /* emulating: failures are node models too (engine/nodes.c), not the partition's */
    dike_part_init(&part, &cl, emulate ? NULL : cfg, first, n);
    dike_time latency_us = dike_time_from_s(cfg->scheduler_decision_latency_s);
    if (emulate) {
        uint64_t njobs = rank == 0 ? (given ? given : &w)->njobs : 0;
        DIKE_MPI_CHECK(MPI_Bcast(&njobs, 1, MPI_UINT64_T, 0, comm));
        dike_nodes_params np;
        dike_nodes_params_read(&np, cfg);
        ns = dike_nodes_new(&np, &cl, &layout, rank, &part, (uint32_t)njobs);
        if (rank == 0)
            dike_coord_emulate(&s, latency_us);
    }

    const dike_workload *used = given ? given : &w;
    char sha[65] = "";
    if (rank == 0)
        snprintf(sha, sizeof sha, "%s", used->sha256);
    DIKE_MPI_CHECK(MPI_Bcast(sha, sizeof sha, MPI_CHAR, 0, comm));
    if (resume && (rc = dike_checkpoint_restore(resume, comm, rank == 0 ? &s : NULL, &part, &layout,
                                                sha, e)))
        goto out;

    double t_engine = MPI_Wtime();
    dike_window_opts wo = {(size_t)cfg->engine_window_actions, (int)cfg->engine_inject_fatal_rank,
                           dike_time_from_s(cfg->run_checkpoint_every_s),
                           dike_time_from_s(cfg->engine_inject_stop_s), ckpt_path, cfg, sha};
    if (emulate)
        rc = dike_emulate_loop(comm, rank == 0 ? &s : NULL, &part, ns, &layout, latency_us, &wo,
                               &perf, e);
    else
        rc = dike_window_loop(comm, rank == 0 ? &s : NULL, &part, &layout, &wo, &perf, e);
    if (rc)
        goto out;
    /* output: from the engine's end, so the results (metrics, percentiles) count with it */
    double t_output = MPI_Wtime();
    perf.startup_seconds = startup_seconds;
    startup_seconds = 0;
    perf.read_seconds = t_engine - t_start;

    if (rank == 0) {
        dike_coord_results(&s, out);
        dike_run_meta *m = &out->meta;
        snprintf(m->version, sizeof m->version, "%s", DIKE_VERSION);
        snprintf(m->policy, sizeof m->policy, "%s", cfg->scheduler_policy);
        snprintf(m->placement, sizeof m->placement, "%s", cfg->scheduler_placement);
        m->seed = cfg->run_seed;
        m->ranks = nranks;
        m->config_text = dike_config_to_ini(cfg);
        snprintf(m->metrics_window, sizeof m->metrics_window, "%s", cfg->metrics_window);
        snprintf(m->trace_path, sizeof m->trace_path, "%s", used->source);
        snprintf(m->trace_sha256, sizeof m->trace_sha256, "%s", used->sha256);
    }
    double wall = MPI_Wtime() - t_start;
    DIKE_MPI_CHECK(MPI_Bcast(&wall, 1, MPI_DOUBLE, 0, comm));
    if (rank == 0)
        out->meta.wall_seconds = wall;
    nodes = dike_part_records(&part);
    if (ns && cfg->output_node_timeseries_s > 0) {
        dike_node_samples smp = {0, cfg->output_node_timeseries_s, NULL, NULL, NULL};
        dike_nodes_samples(ns, &smp.nsamples, &smp.busy, &smp.factor, &smp.up);
        dike_h5_set_node_samples(&smp);
    }
    if (out_path && *out_path)
        rc = dike_h5_write(out_path, comm, rank == 0 ? out : NULL, nodes, part.n, cl.nodes, &perf, e);
    perf.output_seconds = MPI_Wtime() - t_output;
    if (perf_out)
        *perf_out = perf;
    if (!rc) {
        /* Every rank's counters to rank 0, for the table printed at the end. */
        if (rank == 0) {
            out->perf = dike_xcalloc((size_t)nranks, sizeof *out->perf);
            out->nperf = (size_t)nranks;
        }
        DIKE_MPI_CHECK(MPI_Gather(&perf, (int)sizeof perf, MPI_BYTE, rank == 0 ? out->perf : NULL,
                                  (int)sizeof perf, MPI_BYTE, 0, comm));
    }
out:
    free(nodes);
    dike_nodes_free(ns);
    dike_part_free(&part);
    if (rank == 0) {
        dike_coord_free(&s);
        dike_workload_free(&w);
    }
    dike_cluster_free(&cl);
    if (rc && rank == 0)
        dike_results_free(out);
    return rc;
}

/* Decision-step latency, with the active jobs it was measured at. */
static void print_decide(FILE *f, const dike_perf_record *p)
{
    fprintf(f, "  %-22s %14llu\n", "decisions", (unsigned long long)p->decisions);
    fprintf(f, "  %-22s %14llu\n", "decisions timed", (unsigned long long)p->decide_timed);
    fprintf(f, "  %-22s %14.2f\n", "decide mean (us)", p->decide_mean_us);
    fprintf(f, "  %-22s %14.3g\n", "decide p50 (us)", p->decide_p50_us);
    fprintf(f, "  %-22s %14.3g\n", "decide p99 (us)", p->decide_p99_us);
    fprintf(f, "  %-22s %14.3g\n", "decide max (us)", p->decide_max_us);
    fprintf(f, "  %-22s %14u\n", "active at slowest", p->decide_max_active);
    fprintf(f, "  %-22s %14.1f\n", "active jobs mean", p->active_mean);
    fprintf(f, "  %-22s %14u\n", "active jobs max", p->active_max);
}

void dike_print_summary(FILE *f, const dike_results *r, const dike_perf_record *perf)
{
    const dike_summary *m = &r->summary;
    fprintf(f, "dike-emu %s  policy=%s placement=%s seed=%lld ranks=%d\n", r->meta.version,
            r->meta.policy, r->meta.placement, (long long)r->meta.seed, r->meta.ranks);
    fprintf(f, "trace: %s\n", r->meta.trace_path);
    fprintf(f, "  %-22s %14s\n", "metric", "value");
    fprintf(f, "  %-22s %14llu\n", "jobs", (unsigned long long)m->jobs);
    fprintf(f, "  %-22s %14llu\n", "finished", (unsigned long long)m->finished);
    fprintf(f, "  %-22s %14.2f\n", "avg JCT (s)", m->avg_jct);
    fprintf(f, "  %-22s %14.2f\n", "p50 JCT (s)", m->p50_jct);
    fprintf(f, "  %-22s %14.2f\n", "p99 JCT (s)", m->p99_jct);
    fprintf(f, "  %-22s %14.2f\n", "makespan (s)", m->makespan);
    fprintf(f, "  %-22s %14.2f\n", "avg queue delay (s)", m->avg_queue_delay);
    fprintf(f, "  %-22s %14.4f\n", "mean rho", m->mean_rho);
    fprintf(f, "  %-22s %14.4f\n", "max rho", m->max_rho);
    fprintf(f, "  %-22s %14.4f\n", "unfair fraction", m->unfair_fraction);
    fprintf(f, "  %-22s %14.4f\n", "Jain index", m->jain);
    fprintf(f, "  %-22s %14.4f\n", "GPU utilisation", m->utilization);
    fprintf(f, "  %-22s %14llu\n", "preemptions", (unsigned long long)m->preemptions);
    if (perf) {
        /* the process's time, in order: MPI start-up, read, engine, output */
        fprintf(f, "  %-22s %14.3f\n", "MPI start-up (s)", perf->startup_seconds);
        fprintf(f, "  %-22s %14.3f\n", "read (s)", perf->read_seconds);
        fprintf(f, "  %-22s %14.3f\n", "engine wall (s)", perf->wall_seconds);
        fprintf(f, "  %-22s %14.3f\n", "output (s)", perf->output_seconds);
        fprintf(f, "  %-22s %14.0f\n", "events/s",
                perf->wall_seconds > 0 ? (double)perf->events / perf->wall_seconds : 0.0);
        fprintf(f, "  %-22s %14llu\n", "windows", (unsigned long long)perf->windows);
        print_decide(f, perf);
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
            fprintf(f, "  node side: %4s %9s %14s\n", "rank", "node_s", "remote_records");
            for (size_t i = 0; i < r->nperf; i++)
                fprintf(f, "             %4d %9.3f %14llu\n", r->perf[i].rank, r->perf[i].node_seconds,
                        (unsigned long long)r->perf[i].remote_records);
        }
    }
}
