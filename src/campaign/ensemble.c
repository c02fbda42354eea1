/* One mpirun, many emulations: MPI_COMM_WORLD is split into groups of R consecutive ranks, and
 * each group runs points of the grid with dike_run over its own communicator until none is left.
 *
 * The shared queue is one 64-bit counter in an MPI window on world rank 0. A group's leader (its
 * rank 0) takes the next point with MPI_Fetch_and_op(+1) under a shared lock and broadcasts it in
 * the group. Why a counter and not a dispatcher rank: a dispatcher would idle one rank (or one
 * group) for the whole campaign, while the counter costs one atomic per point. Passive-target
 * atomics need no action from rank 0, which is busy running its own group's points; with Open
 * MPI's shared-memory and RDMA transports (osc/sm, osc/rdma, osc/ucx) they complete on their own.
 * (Over plain TCP Open MPI may serve the request only when rank 0 next enters MPI, i.e. within
 * its current point; that delays a group, it never loses or repeats a point.)
 *
 * Determinism: a point's results depend only on its configuration (dike_run's /jobs is identical
 * for any rank count), so which group runs it, and R, do not change them. Only the order in
 * which points finish does.
 *
 * Failures: dike_run returns the same status on every rank of the group, so a point with bad
 * input is recorded as failed and its group takes the next point. A point that hits dike_fatal
 * ends the whole mpirun (MPI_Abort); completed points keep their outputs, and the rerun skips
 * them. Slurm job arrays isolate points from each other instead (docs/campaigns.md). */
#include "campaign/campaign_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mpi.h"
#include "dike/provenance.h"
#include "dike/run.h"

/* ---- continuing an interrupted point from its checkpoint ---- */

/* Keys that may differ between a point's configuration and the one stored in its checkpoint
 * without the checkpoint being another emulation's: where the output and checkpoints go, progress
 * lines, and the testing injections (dike_resume drops those: they are what stopped the run). */
static const char *const output_only_keys[] = {
    "run.out", "run.checkpoint", "run.checkpoint_every_s", "run.checkpoint_wall_s",
    "output.progress_interval_s",
    "engine.inject_stop_s", "engine.inject_fatal_rank",
};

/* Do @p a and @p b agree on every key that shapes the results? Both resolved INI texts come from
 * the same key table, so their lines pair up one to one. On a difference @p diff names the key. */
static bool same_emulation(const dike_config *a, const dike_config *b, char *diff, size_t n)
{
    char *ta = dike_config_to_ini(a), *tb = dike_config_to_ini(b), section[64] = "";
    char *sa = NULL, *sb = NULL;
    bool same = true;
    for (char *la = strtok_r(ta, "\n", &sa), *lb = strtok_r(tb, "\n", &sb); same && (la || lb);
         la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        if (!la || !lb) {
            snprintf(diff, n, "the list of keys");
            same = false;
            break;
        }
        if (la[0] == '[') {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(la + 1, "]"), la + 1);
            continue;
        }
        char key[192];
        snprintf(key, sizeof key, "%s.%.*s", section, (int)strcspn(la, " ="), la);
        bool ignored = false;
        for (size_t k = 0; k < sizeof output_only_keys / sizeof *output_only_keys; k++)
            ignored = ignored || strcmp(key, output_only_keys[k]) == 0;
        if (!ignored && strcmp(la, lb) != 0) {
            snprintf(diff, n, "%s", key);
            same = false;
        }
    }
    free(ta);
    free(tb);
    return same;
}

typedef struct resume_ctx {
    const dike_config *point; /**< the point's configuration from the grid */
} resume_ctx;

/* dike_resume's adjust hook: continue only the checkpoint of this very point (the grid may have
 * changed since), with the point's output settings. */
static int adopt_point_config(dike_config *cfg, void *arg, dike_err *e)
{
    const resume_ctx *c = arg;
    char diff[192];
    if (!same_emulation(cfg, c->point, diff, sizeof diff))
        return dike_err_set(e, DIKE_EINVAL, "it holds another configuration (%s differs)", diff);
    *cfg = *c->point;
    /* as dike_resume does: the injections that stopped the run do not carry over */
    dike_config_set(cfg, "engine.inject_stop_s=0", "campaign", NULL);
    dike_config_set(cfg, "engine.inject_fatal_rank=-1", "campaign", NULL);
    return 0;
}

/* Run point @p cfg over @p group: from its checkpoint <output>.ckpt.h5 when one is there (left by
 * a stop request) and holds this point, else from the start. Sets *resumed. Collective. */
static int run_or_resume(const dike_config *cfg, size_t i, MPI_Comm group, dike_results *res,
                         int *resumed, dike_err *pe)
{
    int grank, have = 0, rc;
    char ckpt[DIKE_STR_MAX + 16];
    DIKE_MPI_CHECK(MPI_Comm_rank(group, &grank));
    snprintf(ckpt, sizeof ckpt, "%s.ckpt.h5", cfg->run_out);
    if (grank == 0)
        have = access(ckpt, R_OK) == 0;
    DIKE_MPI_CHECK(MPI_Bcast(&have, 1, MPI_INT, 0, group));
    *resumed = 0;
    if (have) {
        dike_config *rcfg = dike_xmalloc(sizeof *rcfg);
        resume_ctx ctx = {cfg};
        rc = dike_resume(ckpt, group, rcfg, adopt_point_config, &ctx, res, NULL, pe);
        free(rcfg);
        if (!rc || rc == DIKE_ESTOPPED) {
            *resumed = 1;
        } else {
            /* A stale or unreadable checkpoint costs the work it held, never the point. */
            if (grank == 0)
                fprintf(stderr, "dike-emu: campaign point %zu: not continuing %s: %s; starting over\n", i,
                        ckpt, pe->msg);
            memset(pe, 0, sizeof *pe);
            rc = dike_run(cfg, group, cfg->run_out, res, NULL, pe);
        }
    } else {
        rc = dike_run(cfg, group, cfg->run_out, res, NULL, pe);
    }
    /* Once the output is complete a checkpoint (this one, or periodic ones) is of no more use. */
    if (!rc && grank == 0)
        unlink(ckpt);
    return rc;
}

/* The point's axis values as its output's campaign_axes attribute: one "section.key = value"
 * line per axis, values as written in the grid. Caller frees. */
static char *point_axes(const dike_grid *g, size_t i)
{
    const dike_grid_block *b = dike_grid_block_of(g, i);
    size_t cap = 1;
    for (size_t a = 0; a < b->naxes; a++)
        cap += strlen(b->axes[a].key) + strlen(b->axes[a].shown[dike_grid_coord(g, i, a)]) + 4;
    char *s = dike_xcalloc(1, cap), *p = s;
    for (size_t a = 0; a < b->naxes; a++)
        p += sprintf(p, "%s = %s\n", b->axes[a].key, b->axes[a].shown[dike_grid_coord(g, i, a)]);
    return s;
}

/* Run one point over @p group; the leader records the outcome in @p r and in the point's run
 * record (RUNNING when it starts, its end state when it ends), so that `--status` and other
 * invocations see it. Returns dike_run's status (the same on every rank of the group). */
static int run_point(const dike_grid *g, size_t i, MPI_Comm group, int color, int ngroups,
                      const dike_campaign_opts *o, dike_point_result *r)
{
    int grank, gsize;
    DIKE_MPI_CHECK(MPI_Comm_rank(group, &grank));
    DIKE_MPI_CHECK(MPI_Comm_size(group, &gsize));
    dike_config *cfg = dike_xmalloc(sizeof *cfg);
    dike_results res;
    dike_err pe = {0};
    memset(&res, 0, sizeof res);
    if (grank == 0) {
        memset(r, 0, sizeof *r);
        r->index = (int64_t)i;
        r->status = DIKE_POINT_RUNNING;
        r->ranks = gsize;
        r->group = color;
        r->ran = 1;
        r->pid = (int32_t)getpid();
        r->wall_seconds = -1;
        gethostname(r->host, sizeof r->host - 1);
        dike_utc_now(r->started_at, sizeof r->started_at);
        dike_slurm_ids(&r->slurm);
        dike_err we = {0};
        if (dike_record_write(g, i, r, &we))
            fprintf(stderr, "dike-emu: campaign: %s\n", we.msg);
    }
    double t0 = MPI_Wtime();
    /* The grid was checked at load, so building the configuration fails only if the output path
     * is too long; every rank of the group computes the same answer. */
    int resumed = 0;
    int rc = dike_grid_point_config(g, i, cfg, &pe);
    char *axes = point_axes(g, i);
    dike_provenance_note_campaign(g->name, (int64_t)i, axes);
    if (!rc)
        rc = run_or_resume(cfg, i, group, &res, &resumed, &pe);
    dike_provenance_note_campaign(NULL, -1, NULL);
    free(axes);
    double wall = MPI_Wtime() - t0;
    if (grank == 0) {
        r->status = rc == DIKE_ESTOPPED ? DIKE_POINT_TIMEOUT : rc ? DIKE_POINT_FAILED : DIKE_POINT_COMPLETED;
        if (!rc) /* its output's sources are this binary's (also one continued from another's) */
            snprintf(r->source, sizeof r->source, "%s", dike_provenance_source());
        r->resumed = resumed;
        r->wall_seconds = wall;
        dike_utc_now(r->ended_at, sizeof r->ended_at);
        char name[DIKE_GRID_POINT_NAME_MAX];
        dike_grid_point_name(g, i, name, sizeof name);
        if (rc)
            snprintf(r->error, sizeof r->error, "%s", pe.msg);
        dike_err we = {0};
        if (dike_record_write(g, i, r, &we))
            fprintf(stderr, "dike-emu: campaign: %s\n", we.msg);
        if (rc == DIKE_ESTOPPED) {
            /* Interrupted (SIGTERM at a Slurm time limit, SIGUSR1): TIMEOUT, not a failure; the
             * rerun continues the point from the checkpoint dike_run wrote. */
            fprintf(stderr, "dike-emu: campaign point %zu (%s) stopped (TIMEOUT): %s\n", i, name, pe.msg);
            fflush(stderr);
        } else if (rc) {
            fprintf(stderr, "dike-emu: campaign point %zu (%s) failed: %s\n", i, name, pe.msg);
            fflush(stderr);
        } else {
            dike_results_free(&res);
            if (!o->quiet) {
                printf("campaign: point %zu/%zu done in %.2f s%s (group %d/%d, %d rank%s): %s\n", i,
                       g->npoints, wall, resumed ? " from its checkpoint" : "", color, ngroups, gsize,
                       gsize == 1 ? "" : "s", cfg->run_out);
                fflush(stdout);
            }
        }
    }
    free(cfg);
    return rc;
}

/* One invocation's state, shared by the steps of dike_campaign_run. */
typedef struct ensemble {
    const dike_grid *g;
    const dike_campaign_opts *o;
    MPI_Comm world, group;      /* the whole job; this rank's group of R ranks */
    int wrank, wsize, R;        /* world rank and size, ranks per point */
    int color, ngroups, grank;  /* this group's number, how many groups, rank in the group */
    double t0;                  /* MPI_Wtime at the start */
    dike_point_result *known;  /* world rank 0: every point's outcome, for the manifest */
    uint64_t *todo, ntodo, nskip; /* the asked-for points not complete yet; those skipped */
    dike_point_result *mine;   /* a leader's outcomes, grown as points come */
    size_t nmine, cap;
    int stopped;                /* a stop request ended the campaign early */
} ensemble;

/* World rank 0: check R, make the folder, and list the asked-for points that are not complete. */
static int plan_points(ensemble *en, dike_campaign_stats *st, dike_err *e)
{
    const dike_grid *g = en->g;
    const dike_campaign_opts *o = en->o;
    if (en->R < 1 || en->wsize % en->R != 0)
        return dike_err_set(e, DIKE_EINVAL, "campaign: %d MPI rank%s do not split into groups of %d "
                            "(--ranks-per-run; -np must be a multiple of it)", en->wsize,
                            en->wsize == 1 ? "" : "s", en->R);
    int rc = dike_mkdirs(g->out_dir, e);
    if (rc)
        return rc;
    en->known = dike_xcalloc(g->npoints, sizeof *en->known);
    en->todo = dike_xcalloc(g->npoints, sizeof *en->todo);
    for (size_t i = 0; i < g->npoints; i++) {
        dike_point_result *r = &en->known[i];
        r->index = (int64_t)i;
        r->status = -1; /* not asked for: the manifest looks on disk */
        r->group = -1;
        r->wall_seconds = -1;
        if (o->select && !o->select[i])
            continue;
        char out[DIKE_STR_MAX + 256];
        double wall = -1;
        int ranks = 0;
        dike_grid_point_output(g, i, out, sizeof out);
        st->asked++;
        if (dike_campaign_output_complete(out, &wall, &ranks, NULL)) {
            r->status = -1; /* COMPLETED: the manifest reads who ran it from its record */
            r->skipped = 1;
            en->nskip++;
            st->skipped++;
        } else {
            en->todo[en->ntodo++] = i;
        }
    }
    return 0;
}

/* The list of points to run, from world rank 0 to every rank. */
static void share_todo(ensemble *en)
{
    DIKE_MPI_CHECK(MPI_Bcast(&en->ntodo, 1, MPI_UINT64_T, 0, en->world));
    if (en->wrank != 0)
        en->todo = dike_xcalloc(en->ntodo, sizeof *en->todo);
    if (en->ntodo)
        DIKE_MPI_CHECK(MPI_Bcast(en->todo, (int)en->ntodo, MPI_UINT64_T, 0, en->world));
}

static void print_start(const ensemble *en)
{
    const dike_grid *g = en->g;
    const dike_campaign_opts *o = en->o;
    unsigned long long todo = en->ntodo, skip = en->nskip;
    const char *gs = en->ngroups == 1 ? "" : "s", *rs = en->R == 1 ? "" : "s";
    if (o->select) /* a Slurm array task: about its own points */
        printf("campaign %s: points %s of %zu: %llu to run, %llu complete already; %d group%s of %d rank%s\n",
               g->name, o->select_text ? o->select_text : "(selection)", g->npoints, todo, skip,
               en->ngroups, gs, en->R, rs);
    else
        printf("campaign %s: %zu points, %llu to run, %llu complete already; %d group%s of %d rank%s\n",
               g->name, g->npoints, todo, skip, en->ngroups, gs, en->R, rs);
    fflush(stdout);
}

/* The next point for this group from the shared counter (-1: a stop request ends the campaign). */
static int64_t next_point(const ensemble *en, MPI_Win win)
{
    int64_t k = -1;
    /* A stop request (SIGTERM, SIGUSR1) ends the campaign after the current points; the leader
     * decides for its group, so the group leaves together. */
    if (en->grank == 0 && !dike_stop_requested) {
        const int64_t one = 1;
        DIKE_MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        DIKE_MPI_CHECK(MPI_Fetch_and_op(&one, &k, MPI_INT64_T, 0, 0, MPI_SUM, win));
        DIKE_MPI_CHECK(MPI_Win_unlock(0, win));
    }
    DIKE_MPI_CHECK(MPI_Bcast(&k, 1, MPI_INT64_T, 0, en->group));
    return k;
}

/* Every group pulls points from the counter on world rank 0 until none is left (or a stop). */
static void run_points(ensemble *en)
{
    int64_t *counter = NULL;
    MPI_Win win;
    DIKE_MPI_CHECK(MPI_Win_allocate(en->wrank == 0 ? (MPI_Aint)sizeof(int64_t) : 0, (int)sizeof(int64_t),
                                    MPI_INFO_NULL, en->world, &counter, &win));
    if (en->wrank == 0) {
        DIKE_MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        *counter = 0;
        DIKE_MPI_CHECK(MPI_Win_unlock(0, win));
    }
    DIKE_MPI_CHECK(MPI_Barrier(en->world));
    for (;;) {
        int64_t k = next_point(en, win);
        if (k < 0) {
            en->stopped = 1;
            break;
        }
        if ((uint64_t)k >= en->ntodo)
            break;
        if (en->grank == 0 && en->nmine == en->cap) {
            en->cap = en->cap ? 2 * en->cap : 16;
            en->mine = dike_xrealloc(en->mine, en->cap * sizeof *en->mine);
        }
        int prc = run_point(en->g, (size_t)en->todo[k], en->group, en->color, en->ngroups, en->o,
                            en->grank == 0 ? &en->mine[en->nmine] : NULL);
        en->nmine += en->grank == 0;
        if (prc == DIKE_ESTOPPED) {
            en->stopped = 1;
            break;
        }
    }
    DIKE_MPI_CHECK(MPI_Win_free(&win));
}

/* Every leader's outcomes into world rank 0's list of known points (as bytes: the records hold
 * only numbers and fixed-size strings). */
static void gather_outcomes(ensemble *en)
{
    int count = (int)en->nmine, *counts = NULL, *displs = NULL, rec = (int)sizeof *en->mine;
    if (en->wrank == 0) {
        counts = dike_xcalloc((size_t)en->wsize, sizeof *counts);
        displs = dike_xcalloc((size_t)en->wsize, sizeof *displs);
    }
    DIKE_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, en->world));
    dike_point_result *all = NULL;
    int total = 0;
    if (en->wrank == 0) {
        for (int r = 0; r < en->wsize; r++) {
            displs[r] = total * rec;
            total += counts[r];
            counts[r] *= rec;
        }
        all = dike_xcalloc((size_t)total, sizeof *all);
    }
    DIKE_MPI_CHECK(MPI_Gatherv(en->mine, count * rec, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                               en->world));
    for (int k = 0; k < total; k++)
        en->known[all[k].index] = all[k];
    free(all);
    free(counts);
    free(displs);
}

static void print_end(const ensemble *en, const dike_campaign_stats *st, double wall)
{
    const dike_grid *g = en->g;
    const char *sel = en->o->select_text ? en->o->select_text : "(selection)";
    const char *sep = g->out_dir[strlen(g->out_dir) - 1] == '/' ? "" : "/";
    if (en->o->select) {
        /* A Slurm array task's log: about its own points only; the campaign as a whole is
         * `campaign --status` (other tasks may still be running). */
        printf("campaign %s: points %s: %zu asked, %zu completed, %zu failed, %zu timeout, %zu already "
               "complete; %.2f s; manifest %s%scampaign.json\n", g->name, sel, st->asked,
               st->ran_completed, st->ran_failed, st->ran_timeout, st->skipped, wall, g->out_dir, sep);
    } else {
        printf("campaign %s: %zu points: %zu COMPLETED (%zu ran now, %zu already complete), %zu FAILED, "
               "%zu TIMEOUT, %zu RUNNING, %zu PENDING; %.2f s; manifest %s%scampaign.json\n", g->name,
               st->points, st->state[DIKE_POINT_COMPLETED], st->ran_completed, st->skipped,
               st->state[DIKE_POINT_FAILED], st->state[DIKE_POINT_TIMEOUT], st->state[DIKE_POINT_RUNNING],
               st->state[DIKE_POINT_PENDING], wall, g->out_dir, sep);
    }
    if (st->sources > 1)
        printf("campaign %s: note: its complete outputs come from %zu versions of the emulator's sources "
               "(the manifest's sources); rerun into a fresh out_dir for results of one version\n",
               g->name, st->sources);
    fflush(stdout);
}

/* World rank 0 writes the manifest (which fills @p st) and the closing line. */
static void write_manifest(const ensemble *en, dike_campaign_stats *st)
{
    dike_invocation inv = {en->o->select ? "points" : "ensemble", en->wsize, en->R, en->ngroups,
                            MPI_Wtime() - en->t0, en->o->select_text};
    dike_err me = {0};
    if (dike_manifest_write(en->g, en->known, &inv, st, NULL, NULL, true, &me))
        fprintf(stderr, "dike-emu: campaign: %s\n", me.msg);
    if (!en->o->quiet)
        print_end(en, st, inv.wall_seconds);
}

int dike_campaign_run(const dike_grid *g, const dike_campaign_opts *o, MPI_Comm world,
                      dike_campaign_stats *st, dike_err *e)
{
    ensemble en = {.g = g, .o = o, .world = world, .t0 = MPI_Wtime()};
    en.wrank = dike_mpi_rank(world);
    en.wsize = dike_mpi_size(world);
    en.R = o->ranks_per_run > 0 ? o->ranks_per_run : (int)g->ranks_per_run;
    memset(st, 0, sizeof *st);
    st->points = g->npoints;

    int rc = en.wrank == 0 ? plan_points(&en, st, e) : 0;
    if ((rc = dike_mpi_agree(world, rc, e)) == 0) {
        share_todo(&en);
        en.color = en.wrank / en.R;
        en.ngroups = en.wsize / en.R;
        DIKE_MPI_CHECK(MPI_Comm_split(world, en.color, en.wrank, &en.group));
        en.grank = dike_mpi_rank(en.group);
        if (en.wrank == 0 && !o->quiet)
            print_start(&en);
        if (en.ntodo)
            run_points(&en);
        gather_outcomes(&en);
        DIKE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &en.stopped, 1, MPI_INT, MPI_MAX, world));
        if (en.wrank == 0)
            write_manifest(&en, st);
        /* The counts go to every rank (the exit status is decided on each), as bytes. */
        DIKE_MPI_CHECK(MPI_Bcast(st, (int)sizeof *st, MPI_BYTE, 0, world));
        st->stopped = en.stopped != 0;
        st->wall_seconds = MPI_Wtime() - en.t0;
        DIKE_MPI_CHECK(MPI_Comm_free(&en.group));
    }
    free(en.mine);
    free(en.known);
    free(en.todo);
    return rc;
}

int dike_campaign_status(const dike_grid *g, FILE *out, bool json, dike_campaign_stats *st, dike_err *e)
{
    dike_point_result *known = dike_xcalloc(g->npoints, sizeof *known);
    for (size_t i = 0; i < g->npoints; i++)
        known[i].status = -1;
    memset(st, 0, sizeof *st);
    int rc = dike_manifest_write(g, known, NULL, st, json ? NULL : out, json ? out : NULL, false, e);
    free(known);
    return rc;
}
