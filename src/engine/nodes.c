/* Node-side progress: owners run the node models, homes integrate their jobs' progress
 * (see nodes.h and docs/architecture.md#two-modes). */
#include "engine/nodes.h"
#include "engine/winprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coord.h"
#include "base/bytes.h"

/* A job's slice on a node, as its owner sees it. */
typedef struct nslot {
    uint32_t job;   /**< UINT32_MAX = empty */
    uint32_t epoch, slice;
    int32_t home;   /**< rank of the gang's home */
    uint32_t gpus;
    uint32_t fidx;  /**< where its rack flow was last found (a hint for node_factors) */
    uint32_t grp;   /**< its gang's group on this rank (rebuilt from the slots on a resume) */
    uint32_t gi;    /**< its place in the group's factor list */
    double value;   /**< its factor at the last timestamp it changed (NaN: none yet) */
} nslot;

/* The slices of one run of a gang that sit on this rank's nodes. The owner sends the home one
 * factor for all of them, their minimum (a gang runs at its slowest slice's speed), and only when
 * that minimum changes: most changes of one slice's factor (a rack's shares re-solved, a neighbour
 * starting on one node) leave it as it was. The group is named by its lowest slice (rep). */
typedef struct ngrp {
    uint32_t job, epoch;
    int32_t home;
    uint32_t rep;      /**< lowest slice index here */
    uint32_t nlocal;   /**< slices here */
    uint32_t n, cap;   /**< entries of v (slices that joined; a stopping group only counts down) */
    uint32_t jnext;    /**< another group of the same job (two runs at one instant), or UINT32_MAX */
    int touched, stopping;
    double sent;       /**< the minimum last sent (NaN: none yet) */
    double *v;         /**< its slices' factors, together so that the minimum reads one line */
} ngrp;

/* A gang crossing a rack's uplink (network = rack). */
typedef struct rflow {
    uint32_t job, epoch;
    uint32_t gpus;  /**< the gang's GPUs in this rack */
    uint32_t dord;  /**< its place in the rack's demand order at the last rack_shares; UINT32_MAX new */
    double iota;    /**< communication fraction of its step */
    double netf;    /**< its speed factor from this uplink */
} rflow;

typedef struct rack {
    rflow *f;
    uint32_t n, cap;
} rack;

/* A run this rank is home to. The fields a factor record and the rate that follows it read come
 * first, within 64 bytes, so that such a record touches at most two cache lines of its run: at
 * scale the home step is bound by fetching the runs its records name (prefetch_rec). */
typedef struct nrun {
    uint32_t job, epoch, nslices;
    uint32_t covered;   /**< slices covered by the groups heard from (the rate is 0 until all) */
    double *f;          /**< per group (at its lowest slice): the group's factor; < 0: none */
    int active, done, dirty;
    uint32_t version;
    double rate0;       /**< the placement's rate */
    double rate;        /**< rate0 x slowest slice factor */
    uint32_t fcap;      /**< entries f has room for (kept when the run is freed, for the next) */
    dike_time tc;       /**< completion at the current rate (valid while in the heap) */
    double work;        /**< reference work left at t_last, us */
    double work_ckpt;   /**< work left at the last checkpoint */
    dike_time t_last, t_prog, t_ckpt;
} nrun;

enum { EV_SLOW = 6 }; /* node heap: a slowdown boundary (failures use DIKE_EV_NODE_*) */
enum { PF_GRP = 16, PF_V = 8 }; /* how far ahead grp_apply and groups_send fetch groups and their lists */

struct dike_nodes {
    dike_nodes_params np;
    dike_winprof *wp;   /**< output.window_bound: the work charged to racks, else NULL */
    const dike_cluster *cl;
    const dike_part_layout *l;
    int rank;
    dike_part *p;
    uint32_t first, n, G;
    uint32_t first_rack, nracks;

    /* owner */
    nslot *slots;          /* n x G */
    uint32_t *cnt;         /* jobs per node */
    uint8_t *down;
    dike_slowdown *slow;   /* NULL when episodes are off */
    double *phi;           /* node factor: up x slowdown x interference */
    uint32_t *nseq;        /* per-node event sequence */
    dike_rng *frng;        /* per-node failure streams, NULL when off */
    dike_event_pool pool;
    dike_heap nheap;       /* failures, repairs, ends of slowdown episodes */
    dike_heap sheap;       /* starts of slowdown episodes: they only slow jobs down, so they
                              cannot bring a completion forward and do not bound the next window */
    rack *racks;
    uint32_t *tn, ntn;     /* touched nodes */
    uint8_t *tnf;
    uint32_t *tr, ntr;     /* touched racks */
    uint8_t *trf;
    double *sc_d, *sc_s;   /* scratch for shares */
    uint32_t *sc_o, *sc_p;
    size_t sc_cap;

    ngrp *grps;            /* gang groups (see ngrp) */
    uint32_t ngrps, grpcap, *freegrps, nfreegrp;
    uint32_t *grp_of;      /* per job: its first group here, UINT32_MAX none */
    uint32_t *tg, ntg, tgcap; /* touched groups */
    /* Slot factors changed at this timestamp, applied to their groups after all nodes' factors:
     * groups sit anywhere in memory, and a pass over the list can fetch them ahead (grp_apply). */
    struct gupd { uint32_t g, gi; double v; } *gu;
    uint32_t ngu, gucap;

    dike_nact *q;          /* queued actions */
    size_t qh, qn, qcap;
    uint64_t remote_slots;  /* resident slots whose home is another rank */
    uint64_t remote_queued; /* queued starts whose home is another rank */

    dike_jrec *loc;        /* records for this rank's own runs */
    size_t nloc, loccap;
    dike_jrec *tmp;        /* scratch for sort_records, tmpcap records */
    size_t tmpcap;
    dike_jrec *rem;        /* records for other homes, with their ranks */
    int *rem_to;
    size_t nrem, remcap;
    dike_jrec *out;
    size_t outcap;

    /* home */
    uint32_t *run_of;      /* per job: run index, UINT32_MAX none */
    uint32_t njobs;
    nrun *runs;
    uint32_t nruns, runcap, *freeruns, nfree;
    /* Completions: an indexed min-heap of runs by (completion time, job), so a new rate moves the
     * run's one entry instead of leaving a stale one behind (long jobs change rate many times).
     * Each entry carries its key, so a sift reads the heap array only, not the runs. */
    struct chent { dike_time tc; uint32_t job, ri; } *ch;
    uint32_t nch;
    uint32_t *chpos;       /* per run: position in ch, UINT32_MAX = not in it */
    uint32_t *dirty, ndirty, dirtycap;

    dike_nrep *rep;
    size_t nrep, repcap;

    /* samples */
    dike_time next_sample;
    size_t nsamples, samplecap;
    uint16_t *s_busy;
    float *s_factor;
    uint8_t *s_up;

    uint64_t events;
};

void dike_nodes_params_read(dike_nodes_params *np, const dike_config *cfg)
{
    memset(np, 0, sizeof *np);
    np->alpha = cfg->node_model_interference;
    np->network = strcmp(cfg->node_model_network, "rack") == 0;
    np->uplink_gbps = cfg->cluster_rack_uplink_gbps;
    np->gpu_gbps = cfg->node_model_gpu_gbps;
    np->slow_mtbf_us = cfg->node_model_slowdown_mtbf_s * 1e6;
    np->slow_dur_us = dike_time_from_s(cfg->node_model_slowdown_duration_s);
    np->slow_factor = cfg->node_model_slowdown_factor;
    if (cfg->faults_mtbf_s > 0) {
        np->fail_mtbf_us = cfg->faults_mtbf_s * 1e6;
        np->fail_mttr_us = cfg->faults_mttr_s * 1e6;
    }
    np->ckpt_us = dike_time_from_s(cfg->faults_checkpoint_interval_s);
    if (np->ckpt_us <= 0)
        np->ckpt_us = 1;
    np->sample_us = dike_time_from_s(cfg->output_node_timeseries_s);
    np->seed = (uint64_t)cfg->run_seed;
}

/* The same draw as the coordinating mode's failures (partition.c), so both modes see the same
 * failure times. */
static dike_time draw_exp(dike_rng *r, double mean_us)
{
    dike_time d = (dike_time)llround(-log(dike_rng_uniform(r)) * mean_us);
    return d > 0 ? d : 1;
}

static void push_node_event(dike_nodes *ns, uint32_t k, dike_time t, int kind)
{
    /* a slowdown boundary whose episode is not on yet is an episode start */
    int start = kind == EV_SLOW && !ns->slow[k].on;
    dike_event *ev = dike_pool_get(&ns->pool);
    ev->time = t;
    ev->kind = (uint8_t)kind;
    ev->phase = 0;
    ev->entity = ns->first + k;
    ev->seq = ns->nseq[k]++;
    ev->data = 0;
    ev->pad_ = 0;
    dike_heap_push(start ? &ns->sheap : &ns->nheap, ev);
}

/* per_job = 0: without the per-job indices (run_of, grp_of), for the temporary objects of a
 * relayout, which are many and use shared ones. */
static dike_nodes *nodes_new(const dike_nodes_params *np, const dike_cluster *cl,
                             const dike_part_layout *l, int rank, dike_part *p, uint32_t njobs, int per_job)
{
    dike_nodes *ns = dike_xcalloc(1, sizeof *ns);
    ns->np = *np;
    ns->cl = cl;
    ns->l = l;
    ns->rank = rank;
    ns->p = p;
    ns->first = p->first;
    ns->n = p->n;
    ns->G = cl->gpus_per_node;
    uint32_t n = p->n;
    ns->first_rack = n ? p->first / cl->nodes_per_rack : 0;
    ns->nracks = n ? (p->first + n - 1) / cl->nodes_per_rack - ns->first_rack + 1 : 0;
    ns->slots = dike_xmalloc(((size_t)n * ns->G + 1) * sizeof *ns->slots);
    for (size_t i = 0; i < (size_t)n * ns->G; i++)
        ns->slots[i].job = UINT32_MAX;
    ns->cnt = dike_xcalloc(n + 1, sizeof *ns->cnt);
    ns->down = dike_xcalloc(n + 1, 1);
    ns->phi = dike_xmalloc((n + 1) * sizeof *ns->phi);
    ns->nseq = dike_xcalloc(n + 1, sizeof *ns->nseq);
    ns->tn = dike_xmalloc((n + 1) * sizeof *ns->tn);
    ns->tnf = dike_xcalloc(n + 1, 1);
    ns->racks = dike_xcalloc(ns->nracks + 1, sizeof *ns->racks);
    ns->tr = dike_xmalloc((ns->nracks + 1) * sizeof *ns->tr);
    ns->trf = dike_xcalloc(ns->nracks + 1, 1);
    dike_pool_init(&ns->pool);
    dike_heap_init(&ns->nheap);
    dike_heap_init(&ns->sheap);

    for (uint32_t k = 0; k < n; k++)
        ns->phi[k] = 1.0;
    if (np->slow_mtbf_us > 0) {
        ns->slow = dike_xmalloc((n + 1) * sizeof *ns->slow);
        for (uint32_t k = 0; k < n; k++) {
            dike_slowdown_init(&ns->slow[k], np->seed, p->first + k, np->slow_mtbf_us);
            push_node_event(ns, k, ns->slow[k].next, EV_SLOW);
        }
    }
    if (np->fail_mtbf_us > 0) {
        ns->frng = dike_xmalloc((n + 1) * sizeof *ns->frng);
        for (uint32_t k = 0; k < n; k++) {
            dike_rng_init(&ns->frng[k], np->seed, p->first + k, DIKE_STREAM_FAILURE);
            push_node_event(ns, k, draw_exp(&ns->frng[k], np->fail_mtbf_us), DIKE_EV_NODE_FAIL);
        }
    }
    ns->njobs = njobs;
    if (per_job) {
        ns->run_of = dike_xmalloc(((size_t)njobs + 1) * sizeof *ns->run_of);
        memset(ns->run_of, 0xff, ((size_t)njobs + 1) * sizeof *ns->run_of);
        ns->grp_of = dike_xmalloc(((size_t)njobs + 1) * sizeof *ns->grp_of);
        memset(ns->grp_of, 0xff, ((size_t)njobs + 1) * sizeof *ns->grp_of);
    }
    ns->next_sample = np->sample_us > 0 ? 0 : DIKE_TIME_INF;
    return ns;
}

dike_nodes *dike_nodes_new(const dike_nodes_params *np, const dike_cluster *cl,
                           const dike_part_layout *l, int rank, dike_part *p, uint32_t njobs)
{
    return nodes_new(np, cl, l, rank, p, njobs, 1);
}

void dike_nodes_free(dike_nodes *ns)
{
    if (!ns)
        return;
    free(ns->slots);
    free(ns->cnt);
    free(ns->down);
    free(ns->phi);
    free(ns->nseq);
    free(ns->slow);
    free(ns->frng);
    dike_heap_free(&ns->nheap);
    dike_heap_free(&ns->sheap);
    dike_pool_free(&ns->pool);
    free(ns->ch);
    free(ns->chpos);
    for (uint32_t r = 0; r < ns->nracks; r++)
        free(ns->racks[r].f);
    free(ns->racks);
    free(ns->tn);
    free(ns->tnf);
    free(ns->tr);
    free(ns->trf);
    free(ns->sc_d);
    free(ns->sc_s);
    free(ns->sc_o);
    free(ns->sc_p);
    free(ns->q);
    free(ns->loc);
    free(ns->tmp);
    free(ns->rem);
    free(ns->rem_to);
    free(ns->out);
    free(ns->run_of);
    free(ns->grp_of);
    for (uint32_t g = 0; g < ns->ngrps; g++)
        free(ns->grps[g].v);
    free(ns->grps);
    free(ns->freegrps);
    free(ns->tg);
    free(ns->gu);
    for (uint32_t i = 0; i < ns->nruns; i++)
        free(ns->runs[i].f);
    free(ns->runs);
    free(ns->freeruns);
    free(ns->dirty);
    free(ns->rep);
    free(ns->s_busy);
    free(ns->s_factor);
    free(ns->s_up);
    free(ns);
}

/* ---- small helpers ---- */

static void report(dike_nodes *ns, dike_time t, uint32_t kind, uint32_t entity, uint32_t seq,
                   double work, double lost)
{
    if (ns->nrep == ns->repcap) {
        ns->repcap = ns->repcap ? 2 * ns->repcap : 256;
        ns->rep = dike_xrealloc(ns->rep, ns->repcap * sizeof *ns->rep);
    }
    dike_nrep *r = &ns->rep[ns->nrep++];
    memset(r, 0, sizeof *r);
    r->time = t;
    r->kind = kind;
    r->entity = entity;
    r->seq = seq;
    r->work = work;
    r->lost_us = lost;
}

static void send_rec(dike_nodes *ns, int to, const dike_jrec *rec)
{
    if (to == ns->rank) {
        if (ns->nloc == ns->loccap) {
            ns->loccap = ns->loccap ? 2 * ns->loccap : 1024;
            ns->loc = dike_xrealloc(ns->loc, ns->loccap * sizeof *ns->loc);
        }
        ns->loc[ns->nloc++] = *rec;
        return;
    }
    if (ns->nrem == ns->remcap) {
        ns->remcap = ns->remcap ? 2 * ns->remcap : 1024;
        ns->rem = dike_xrealloc(ns->rem, ns->remcap * sizeof *ns->rem);
        ns->rem_to = dike_xrealloc(ns->rem_to, ns->remcap * sizeof *ns->rem_to);
    }
    ns->rem_to[ns->nrem] = to;
    ns->rem[ns->nrem++] = *rec;
}

static void touch_node(dike_nodes *ns, uint32_t k)
{
    if (!ns->tnf[k]) {
        ns->tnf[k] = 1;
        ns->tn[ns->ntn++] = k;
    }
}

static void touch_rack(dike_nodes *ns, uint32_t r)
{
    if (!ns->trf[r]) {
        ns->trf[r] = 1;
        ns->tr[ns->ntr++] = r;
    }
}

/* ---- gang groups ---- */

static uint32_t grp_find(const dike_nodes *ns, uint32_t job, uint32_t epoch)
{
    uint32_t g = ns->grp_of[job];
    while (g != UINT32_MAX && ns->grps[g].epoch != epoch)
        g = ns->grps[g].jnext;
    return g;
}

static void touch_grp(dike_nodes *ns, uint32_t g)
{
    if (ns->grps[g].touched)
        return;
    ns->grps[g].touched = 1;
    if (ns->ntg == ns->tgcap) {
        ns->tgcap = ns->tgcap ? 2 * ns->tgcap : 256;
        ns->tg = dike_xrealloc(ns->tg, ns->tgcap * sizeof *ns->tg);
    }
    ns->tg[ns->ntg++] = g;
}

/* Slot gi of group g takes factor v; the group is sent at the timestamp's end (groups_send). */
static void grp_set(dike_nodes *ns, uint32_t g, uint32_t gi, double v)
{
    ns->grps[g].v[gi] = v;
    touch_grp(ns, g);
}

/* Slot si (already filled) joins its run's group, which is made if it is the first here. */
static void grp_join(dike_nodes *ns, uint32_t si)
{
    nslot *s = &ns->slots[si];
    uint32_t g = grp_find(ns, s->job, s->epoch);
    if (g == UINT32_MAX) {
        /* A freed group keeps its factor list for the next one (a freed run keeps its own too):
         * a list made and freed per run put 3.6 % of a 200,000-GPU run and 5-6 % of a
         * 1,000,000-GPU run in malloc and free (docs/performance.md). */
        double *v = NULL;
        uint32_t cap = 0;
        if (ns->nfreegrp) {
            g = ns->freegrps[--ns->nfreegrp];
            v = ns->grps[g].v;
            cap = ns->grps[g].cap;
        } else {
            if (ns->ngrps == ns->grpcap) {
                ns->grpcap = ns->grpcap ? 2 * ns->grpcap : 256;
                ns->grps = dike_xrealloc(ns->grps, ns->grpcap * sizeof *ns->grps);
                ns->freegrps = dike_xrealloc(ns->freegrps, ns->grpcap * sizeof *ns->freegrps);
            }
            g = ns->ngrps++;
        }
        ns->grps[g] = (ngrp){s->job, s->epoch, s->home, s->slice, 0, 0, cap, ns->grp_of[s->job], 0, 0, NAN, v};
        ns->grp_of[s->job] = g;
    }
    ngrp *gp = &ns->grps[g];
    if (gp->stopping)
        dike_fatal("job %u run %u: a slice starts where others stop", s->job, s->epoch);
    if (gp->n == gp->cap) {
        gp->cap = gp->cap ? 2 * gp->cap : 2;
        gp->v = dike_xrealloc(gp->v, gp->cap * sizeof *gp->v);
    }
    s->grp = g;
    s->gi = gp->n;
    gp->v[gp->n++] = s->value;
    gp->nlocal++;
    if (s->slice < gp->rep)
        gp->rep = s->slice;
    touch_grp(ns, g);
}

/* Slot si leaves its group; an empty group is freed. A run's slices all stop at one instant, so a
 * group that loses a slice is never sent again (groups_send checks it). */
static void grp_leave(dike_nodes *ns, uint32_t si)
{
    uint32_t g = ns->slots[si].grp;
    ngrp *gp = &ns->grps[g];
    gp->nlocal--;
    gp->stopping = 1;
    if (gp->nlocal > 0) {
        touch_grp(ns, g);
        return;
    }
    uint32_t *jp = &ns->grp_of[gp->job];
    while (*jp != g)
        jp = &ns->grps[*jp].jnext;
    *jp = gp->jnext;
    gp->job = UINT32_MAX;
    ns->freegrps[ns->nfreegrp++] = g; /* its list stays, for the next group (grp_join) */
}

/* After a timestamp's factors: each touched group's minimum, sent to its home if it changed. */
static void groups_send(dike_nodes *ns, dike_time t)
{
    uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
    for (uint32_t i = 0; i < ns->ntg; i++) {
        if (ns->wp && i) { /* the group before: charged to its job's home rack */
            uint64_t c1 = dike_winprof_clock();
            dike_winprof_add(ns->wp, DIKE_WP_OWNER, dike_winprof_home_rack(ns->wp, ns->grps[ns->tg[i - 1]].job),
                             c1 - c0);
            c0 = c1;
        }
        if (i + PF_GRP < ns->ntg)
            __builtin_prefetch(&ns->grps[ns->tg[i + PF_GRP]], 1);
        if (i + PF_V < ns->ntg)
            __builtin_prefetch(ns->grps[ns->tg[i + PF_V]].v);
        ngrp *gp = &ns->grps[ns->tg[i]];
        gp->touched = 0;
        if (gp->job == UINT32_MAX)
            continue; /* freed: its run ended here */
        if (gp->stopping)
            dike_fatal("job %u run %u: some of its slices stopped and others did not", gp->job, gp->epoch);
        double m = INFINITY;
        for (uint32_t j = 0; j < gp->n; j++)
            if (gp->v[j] < m)
                m = gp->v[j];
        if (m == gp->sent)
            continue;
        gp->sent = m;
        dike_jrec rec = {t, -1, m, 0, gp->job, gp->epoch, gp->rep, DIKE_JREC_FACTOR, gp->nlocal, 0};
        send_rec(ns, gp->home, &rec);
    }
    if (ns->wp && ns->ntg) /* the last group (a freed group's job is UINT32_MAX: no rack) */
        dike_winprof_add(ns->wp, DIKE_WP_OWNER, dike_winprof_home_rack(ns->wp, ns->grps[ns->tg[ns->ntg - 1]].job),
                         dike_winprof_clock() - c0);
    ns->ntg = 0;
}

/* The groups from the slots alone (after a resume): each group's minimum is what its home last
 * heard, since every change is sent at the timestamp it happens and a checkpoint falls between
 * windows. */
static void groups_rebuild(dike_nodes *ns)
{
    for (uint32_t g = 0; g < ns->ngrps; g++) {
        if (ns->grps[g].job != UINT32_MAX)
            ns->grp_of[ns->grps[g].job] = UINT32_MAX;
        free(ns->grps[g].v);
        ns->grps[g].v = NULL;
    }
    ns->ngrps = ns->nfreegrp = ns->ntg = 0;
    for (uint32_t si = 0; si < ns->n * ns->G; si++) {
        nslot *s = &ns->slots[si];
        if (s->job == UINT32_MAX)
            continue;
        grp_join(ns, si);
        ngrp *gp = &ns->grps[s->grp];
        if (!(s->value >= gp->sent))
            gp->sent = s->value; /* NaN at first */
    }
    for (uint32_t i = 0; i < ns->ntg; i++)
        ns->grps[ns->tg[i]].touched = 0;
    ns->ntg = 0;
}

static rflow *find_flow(rack *rk, uint32_t job, uint32_t epoch)
{
    for (uint32_t i = 0; i < rk->n; i++)
        if (rk->f[i].job == job && rk->f[i].epoch == epoch)
            return &rk->f[i];
    return NULL;
}

/* find_flow on a rack whose flows rack_shares has put in job order (every change to a rack's
 * flows touches it, and touched racks are re-sorted before any node's factors are computed). */
static const rflow *find_flow_sorted(const rack *rk, uint32_t job, uint32_t epoch)
{
    uint32_t lo = 0, hi = rk->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rk->f[mid].job < job)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < rk->n && rk->f[lo].job == job; lo++)
        if (rk->f[lo].epoch == epoch)
            return &rk->f[lo];
    return NULL;
}

/* The same, trying first where the flow was last found and its neighbours: flows join at the
 * end and leave from anywhere, so the others keep their place or move down by one. */
static const rflow *find_flow_near(const rack *rk, uint32_t hint, uint32_t job, uint32_t epoch)
{
    for (uint32_t c = hint > 0 ? hint - 1 : 0; c <= hint + 1 && c < rk->n; c++)
        if (rk->f[c].job == job && rk->f[c].epoch == epoch)
            return &rk->f[c];
    return find_flow_sorted(rk, job, epoch);
}

/* ---- owner ---- */

void dike_nodes_enqueue(dike_nodes *ns, const dike_nact *a, size_t n)
{
    if (n == 0)
        return;
    if (ns->qh == ns->qn)
        ns->qh = ns->qn = 0;
    if (ns->qn + n > ns->qcap) {
        /* drop what was consumed before growing */
        if (ns->qn > ns->qh)
            memmove(ns->q, ns->q + ns->qh, (ns->qn - ns->qh) * sizeof *ns->q);
        ns->qn -= ns->qh;
        ns->qh = 0;
        if (ns->qn + n > ns->qcap) {
            ns->qcap = 2 * (ns->qn + n);
            ns->q = dike_xrealloc(ns->q, ns->qcap * sizeof *ns->q);
        }
    }
    memcpy(ns->q + ns->qn, a, n * sizeof *a);
    ns->qn += n;
    for (size_t i = 0; i < n; i++)
        ns->remote_queued += a[i].kind == DIKE_ACT_START && dike_part_owner(ns->l, a[i].home_node) != ns->rank;
}

static void apply_action(dike_nodes *ns, const dike_nact *a)
{
    uint32_t node = a->node;
    if (node < ns->first || node - ns->first >= ns->n)
        dike_fatal("action for node %u reached the owner of nodes [%u, %u)", node, ns->first,
                   ns->first + ns->n);
    uint32_t k = node - ns->first;
    dike_action acc = {a->time, a->run_start, node, a->gpus, a->job, a->kind};
    dike_part_apply(ns->p, &acc, 1); /* free GPUs, busy GPU-seconds, the GPU-twice check */
    nslot *sl = &ns->slots[(size_t)k * ns->G];
    uint32_t rk = dike_cluster_rack(ns->cl, node) - ns->first_rack;
    if (a->kind == DIKE_ACT_START) {
        uint32_t i = 0;
        while (i < ns->G && sl[i].job != UINT32_MAX)
            i++;
        if (i == ns->G)
            dike_fatal("node %u hosts more jobs than GPUs", node);
        sl[i] = (nslot){a->job, a->epoch, a->slice, dike_part_owner(ns->l, a->home_node), a->gpus, 0, 0, 0,
                        NAN};
        grp_join(ns, (uint32_t)((size_t)k * ns->G + i));
        ns->cnt[k]++;
        if (sl[i].home != ns->rank) {
            ns->remote_queued--;
            ns->remote_slots++;
        }
        if (ns->np.network && a->iota > 0) {
            rack *r = &ns->racks[rk];
            rflow *f = find_flow(r, a->job, a->epoch);
            if (f) {
                f->gpus += a->gpus;
            } else {
                if (r->n == r->cap) {
                    r->cap = r->cap ? 2 * r->cap : 8;
                    r->f = dike_xrealloc(r->f, r->cap * sizeof *r->f);
                }
                r->f[r->n++] = (rflow){a->job, a->epoch, a->gpus, UINT32_MAX, a->iota, 1.0};
            }
            touch_rack(ns, rk);
        }
        if (a->slice == 0) {
            dike_jrec rec = {a->time, a->delay, a->work, a->rate, a->job, a->epoch, 0,
                             DIKE_JREC_START, a->nslices, 0};
            send_rec(ns, ns->rank, &rec);
        }
    } else {
        uint32_t i = 0;
        while (i < ns->G && !(sl[i].job == a->job && sl[i].epoch == a->epoch && sl[i].slice == a->slice))
            i++;
        if (i == ns->G)
            dike_fatal("job %u stops on node %u where it does not run", a->job, node);
        grp_leave(ns, (uint32_t)((size_t)k * ns->G + i));
        sl[i].job = UINT32_MAX;
        ns->cnt[k]--;
        ns->remote_slots -= sl[i].home != ns->rank;
        if (ns->np.network) {
            rack *r = &ns->racks[rk];
            rflow *f = find_flow(r, a->job, a->epoch);
            if (f) {
                f->gpus -= a->gpus;
                if (f->gpus == 0)
                    *f = r->f[--r->n];
                touch_rack(ns, rk);
            }
        }
        if (a->slice == 0) {
            dike_jrec rec = {a->time, a->reason == DIKE_STOP_EVICT ? a->delay : -1, 0, 0, a->job,
                             a->epoch, 0, DIKE_JREC_END, 0, a->reason};
            send_rec(ns, ns->rank, &rec);
        }
    }
    touch_node(ns, k);
    ns->events++;
}

static void node_event(dike_nodes *ns, dike_event *ev)
{
    uint32_t k = ev->entity - ns->first;
    dike_time t = ev->time;
    switch (ev->kind) {
    case DIKE_EV_NODE_FAIL:
        ns->down[k] = 1;
        ns->p->failures[k]++;
        report(ns, t, DIKE_NREP_FAIL, ev->entity, ev->seq, 0, 0);
        push_node_event(ns, k, t + draw_exp(&ns->frng[k], ns->np.fail_mttr_us), DIKE_EV_NODE_REPAIR);
        break;
    case DIKE_EV_NODE_REPAIR:
        ns->down[k] = 0;
        report(ns, t, DIKE_NREP_REPAIR, ev->entity, ev->seq, 0, 0);
        push_node_event(ns, k, t + draw_exp(&ns->frng[k], ns->np.fail_mtbf_us), DIKE_EV_NODE_FAIL);
        break;
    case EV_SLOW:
        dike_slowdown_step(&ns->slow[k], ns->np.slow_mtbf_us, ns->np.slow_dur_us);
        push_node_event(ns, k, ns->slow[k].next, EV_SLOW);
        break;
    default:
        dike_fatal("unknown node event %u", ev->kind);
    }
    touch_node(ns, k);
    ns->events++;
}

static void rack_shares(dike_nodes *ns, uint32_t rk)
{
    rack *r = &ns->racks[rk];
    uint32_t m = r->cap > r->n ? r->cap : r->n; /* every dord < m */
    if (m > ns->sc_cap) {
        ns->sc_cap = 2 * m;
        ns->sc_p = dike_xrealloc(ns->sc_p, ns->sc_cap * sizeof *ns->sc_p);
        ns->sc_d = dike_xrealloc(ns->sc_d, ns->sc_cap * sizeof *ns->sc_d);
        ns->sc_s = dike_xrealloc(ns->sc_s, ns->sc_cap * sizeof *ns->sc_s);
        ns->sc_o = dike_xrealloc(ns->sc_o, ns->sc_cap * sizeof *ns->sc_o);
    }
    /* Flows in a canonical order (by job), so the shares do not depend on arrival order. */
    for (uint32_t i = 1; i < r->n; i++) {
        rflow v = r->f[i];
        uint32_t j = i;
        while (j > 0 && r->f[j - 1].job > v.job) {
            r->f[j] = r->f[j - 1];
            j--;
        }
        r->f[j] = v;
    }
    for (uint32_t i = 0; i < r->n; i++)
        ns->sc_d[i] = r->f[i].iota * r->f[i].gpus * ns->np.gpu_gbps;
    /* Start from the demand order of the last call, the flows new since then after it: the sort
     * in dike_netshare_maxmin_from then moves only the flows whose demand changed. */
    uint32_t *place = ns->sc_p, no = 0;
    for (uint32_t j = 0; j < m; j++)
        place[j] = UINT32_MAX;
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t d = r->f[i].dord;
        if (d < m && place[d] == UINT32_MAX)
            place[d] = i;
        else
            r->f[i].dord = UINT32_MAX;
    }
    for (uint32_t j = 0; j < m; j++)
        if (place[j] != UINT32_MAX)
            ns->sc_o[no++] = place[j];
    for (uint32_t i = 0; i < r->n; i++)
        if (r->f[i].dord == UINT32_MAX)
            ns->sc_o[no++] = i;
    dike_netshare_maxmin_from(ns->np.uplink_gbps, r->n, ns->sc_d, ns->sc_s, ns->sc_o);
    for (uint32_t j = 0; j < r->n; j++)
        r->f[ns->sc_o[j]].dord = j;
    for (uint32_t i = 0; i < r->n; i++)
        r->f[i].netf = dike_net_factor(r->f[i].iota, ns->sc_s[i] / ns->sc_d[i]);
    /* every node of the rack may host one of these gangs */
    uint32_t n0 = (ns->first_rack + rk) * ns->cl->nodes_per_rack;
    for (uint32_t node = n0; node < n0 + ns->cl->nodes_per_rack && node < ns->first + ns->n; node++)
        if (node >= ns->first)
            touch_node(ns, node - ns->first);
}

static void node_factors(dike_nodes *ns, uint32_t k)
{
    double f = ns->down[k] ? 0.0 : 1.0;
    if (ns->slow && ns->slow[k].on)
        f *= ns->np.slow_factor;
    if (ns->cnt[k] > 1 && ns->np.alpha > 0)
        f *= dike_interference_factor(ns->np.alpha, ns->cnt[k] - 1);
    ns->phi[k] = f;
    nslot *sl = &ns->slots[(size_t)k * ns->G];
    rack *r = ns->np.network ? &ns->racks[dike_cluster_rack(ns->cl, ns->first + k) - ns->first_rack] : NULL;
    for (uint32_t i = 0; i < ns->G; i++) {
        if (sl[i].job == UINT32_MAX)
            continue;
        double v = f;
        if (r) {
            /* the flows move little between calls: try where this slot's flow was last */
            const rflow *fl = find_flow_near(r, sl[i].fidx, sl[i].job, sl[i].epoch);
#ifdef DIKE_SELF_CHECK
            if (fl != find_flow(r, sl[i].job, sl[i].epoch))
                dike_fatal("node %u: the rack-flow lookup of job %u run %u disagrees with a scan",
                           ns->first + k, sl[i].job, sl[i].epoch);
#endif
            if (fl) {
                sl[i].fidx = (uint32_t)(fl - r->f);
                v *= fl->netf;
            }
        }
        if (v == sl[i].value)
            continue;
        sl[i].value = v;
        if (ns->wp) { /* the window bound charges each group's update to this node's rack */
            grp_set(ns, sl[i].grp, sl[i].gi, v);
            continue;
        }
        if (ns->ngu == ns->gucap) {
            ns->gucap = ns->gucap ? 2 * ns->gucap : 1024;
            ns->gu = dike_xrealloc(ns->gu, ns->gucap * sizeof *ns->gu);
        }
        ns->gu[ns->ngu++] = (struct gupd){sl[i].grp, sl[i].gi, v};
    }
}

/* The slot factors node_factors collected, into their groups, in the order they were found (so
 * the groups are touched, and their records sent, in the same order as if applied at once). Each
 * group is fetched PF_GRP entries ahead and its factor list PF_V ahead, once the group is there:
 * about a third of the owner step's time was these two cache misses, one after the other per
 * update (perf, docs/performance.md). */
static void grp_apply(dike_nodes *ns)
{
    const struct gupd *u = ns->gu;
    uint32_t n = ns->ngu;
    for (uint32_t i = 0; i < n; i++) {
        if (i + PF_GRP < n)
            __builtin_prefetch(&ns->grps[u[i + PF_GRP].g]);
        if (i + PF_V < n)
            __builtin_prefetch(&ns->grps[u[i + PF_V].g].v[u[i + PF_V].gi], 1);
        grp_set(ns, u[i].g, u[i].gi, u[i].v);
    }
    ns->ngu = 0;
}

/* Samples at times before t see every node event before t. */
static void sample_until(dike_nodes *ns, dike_time t)
{
    while (ns->next_sample < t) {
        if (ns->nsamples == ns->samplecap) {
            ns->samplecap = ns->samplecap ? 2 * ns->samplecap : 64;
            size_t cells = ns->samplecap * ns->n + 1;
            ns->s_busy = dike_xrealloc(ns->s_busy, cells * sizeof *ns->s_busy);
            ns->s_factor = dike_xrealloc(ns->s_factor, cells * sizeof *ns->s_factor);
            ns->s_up = dike_xrealloc(ns->s_up, cells * sizeof *ns->s_up);
        }
        size_t off = ns->nsamples * ns->n;
        for (uint32_t k = 0; k < ns->n; k++) {
            uint32_t g = dike_cluster_node_gpus(ns->cl, ns->first + k);
            ns->s_busy[off + k] = (uint16_t)(g - ns->p->free[k]);
            ns->s_factor[off + k] = (float)ns->phi[k];
            ns->s_up[off + k] = !ns->down[k];
        }
        ns->nsamples++;
        ns->next_sample += ns->np.sample_us;
    }
}

void dike_nodes_owner_advance(dike_nodes *ns, dike_time end)
{
    for (;;) {
        dike_time x = ns->qh < ns->qn ? ns->q[ns->qh].time : DIKE_TIME_INF;
        const dike_event *top = dike_heap_top(&ns->nheap);
        if (top && top->time < x)
            x = top->time;
        top = dike_heap_top(&ns->sheap);
        if (top && top->time < x)
            x = top->time;
        if (x >= end)
            break;
        sample_until(ns, x);
        /* Everything at x, then the factors: a node's factor changes once per timestamp. */
        while (ns->qh < ns->qn && ns->q[ns->qh].time == x) {
            const dike_nact *a = &ns->q[ns->qh++];
            uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
            apply_action(ns, a);
            if (ns->wp) {
                if (a->kind == DIKE_ACT_START)
                    dike_winprof_set_home(ns->wp, a->job, a->home_node);
                dike_winprof_add(ns->wp, DIKE_WP_OWNER, dike_cluster_rack(ns->cl, a->node),
                                 dike_winprof_clock() - c0);
            }
        }
        /* node events of x in one order whatever heap they sit in: by (kind, node, seq) */
        for (;;) {
            const dike_event *a = dike_heap_top(&ns->nheap), *b = dike_heap_top(&ns->sheap);
            a = a && a->time == x ? a : NULL;
            b = b && b->time == x ? b : NULL;
            if (!a && !b)
                break;
            dike_heap *h = !b || (a && dike_event_cmp(a, b) < 0) ? &ns->nheap : &ns->sheap;
            dike_event *ev = dike_heap_pop(h);
            uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
            node_event(ns, ev);
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_OWNER, dike_cluster_rack(ns->cl, ev->entity),
                                 dike_winprof_clock() - c0);
            dike_pool_put(&ns->pool, ev);
        }
        for (uint32_t i = 0; i < ns->ntr; i++) {
            uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
            rack_shares(ns, ns->tr[i]);
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_OWNER, ns->first_rack + ns->tr[i], dike_winprof_clock() - c0);
            ns->trf[ns->tr[i]] = 0;
        }
        ns->ntr = 0;
        for (uint32_t i = 0; i < ns->ntn; i++) {
            uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
            node_factors(ns, ns->tn[i]);
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_OWNER, dike_cluster_rack(ns->cl, ns->first + ns->tn[i]),
                                 dike_winprof_clock() - c0);
            ns->tnf[ns->tn[i]] = 0;
        }
        ns->ntn = 0;
        grp_apply(ns);
        groups_send(ns, x);
    }
}

const dike_jrec *dike_nodes_outbox(dike_nodes *ns, int *counts, int *displs)
{
    int nr = ns->l->nranks;
    memset(counts, 0, (size_t)nr * sizeof *counts);
    for (size_t i = 0; i < ns->nrem; i++)
        counts[ns->rem_to[i]]++;
    int off = 0;
    for (int r = 0; r < nr; r++) {
        displs[r] = off;
        off += counts[r];
    }
    if (ns->nrem > ns->outcap) {
        ns->outcap = ns->nrem;
        ns->out = dike_xrealloc(ns->out, ns->outcap * sizeof *ns->out);
    }
    int *pos = dike_xmalloc((size_t)nr * sizeof *pos);
    memcpy(pos, displs, (size_t)nr * sizeof *pos);
    for (size_t i = 0; i < ns->nrem; i++)
        ns->out[pos[ns->rem_to[i]]++] = ns->rem[i];
    free(pos);
    ns->nrem = 0;
    return ns->out;
}

/* ---- home ---- */

/* Put the window's records in the order the home applies them: by time, and within a timestamp
 * ends, then starts, then factors (a run's end comes before the next run of the job starts, and
 * its start before the factors of its slices). Records of different jobs at one timestamp commute
 * (each changes only its own run; rates are recomputed after all of them, and completions are
 * ordered by (time, job) in the heap), so they keep the order they came in. The records arrive as
 * a few runs already in time order (the owner's own, then one per rank that sent some): they are
 * merged by time, run by run, then each timestamp is split by kind. A full sort on (time, kind,
 * job, epoch, slice) was a quarter of the emulating mode's time (docs/scaling.md). */
static void sort_records(dike_nodes *ns)
{
    size_t n = ns->nloc;
    if (n < 2)
        return;
    if (ns->tmpcap < n) {
        ns->tmpcap = ns->loccap;
        ns->tmp = dike_xrealloc(ns->tmp, ns->tmpcap * sizeof *ns->tmp);
    }
    dike_jrec *a = ns->loc, *b = ns->tmp;
    for (;;) { /* merge neighbouring runs (time order, stable) until one is left */
        size_t runs = 0, i = 0, o = 0;
        while (i < n) {
            size_t m = i + 1;
            while (m < n && a[m - 1].time <= a[m].time)
                m++;
            size_t e = m < n ? m + 1 : n;
            while (e < n && a[e - 1].time <= a[e].time)
                e++;
            size_t x = i, y = m;
            while (x < m && y < e)
                b[o++] = a[y].time < a[x].time ? a[y++] : a[x++];
            while (x < m)
                b[o++] = a[x++];
            while (y < e)
                b[o++] = a[y++];
            i = e;
            runs++;
        }
        dike_jrec *t = a;
        a = b;
        b = t;
        if (runs == 1)
            break;
    }
    /* within each timestamp: ends, starts, factors (a stable split, into b) */
    for (size_t i = 0; i < n;) {
        size_t e = i + 1, cnt[3] = {0, 0, 0};
        while (e < n && a[e].time == a[i].time)
            e++;
        for (size_t k = i; k < e; k++) {
            if (a[k].kind > DIKE_JREC_FACTOR)
                dike_fatal("unknown job record %u", a[k].kind);
            cnt[a[k].kind]++;
        }
        size_t pos[3] = {i, i + cnt[0], i + cnt[0] + cnt[1]};
        for (size_t k = i; k < e; k++)
            b[pos[a[k].kind]++] = a[k];
        i = e;
    }
    if (b != ns->loc) { /* the records ended in the scratch array: swap the two */
        ns->tmp = ns->loc;
        ns->loc = b;
        size_t c = ns->tmpcap;
        ns->tmpcap = ns->loccap;
        ns->loccap = c;
    }
}

/* Work done up to x at the current rate; checkpoints fall every ckpt_us of progress time after
 * t_prog and are only taken while the run progresses (a run on a failed node takes none). */
static void progress_to(dike_nodes *ns, nrun *r, dike_time x)
{
    dike_time from = r->t_last > r->t_prog ? r->t_last : r->t_prog;
    if (x > from && r->rate > 0 && !r->done) {
        if (ns->np.fail_mtbf_us > 0) {
            dike_time c = r->t_prog + (x - r->t_prog) / ns->np.ckpt_us * ns->np.ckpt_us;
            if (c >= from) {
                r->work_ckpt = r->work - r->rate * (double)(c - from);
                r->t_ckpt = c;
            }
        }
        r->work -= r->rate * (double)(x - from);
    }
    if (x > r->t_last)
        r->t_last = x;
}

static void mark_dirty(dike_nodes *ns, uint32_t ri)
{
    nrun *r = &ns->runs[ri];
    if (r->dirty)
        return;
    r->dirty = 1;
    if (ns->ndirty == ns->dirtycap) {
        ns->dirtycap = ns->dirtycap ? 2 * ns->dirtycap : 64;
        ns->dirty = dike_xrealloc(ns->dirty, ns->dirtycap * sizeof *ns->dirty);
    }
    ns->dirty[ns->ndirty++] = ri;
}

static int ch_before(const struct chent *x, const struct chent *y)
{
    return x->tc != y->tc ? x->tc < y->tc : x->job < y->job;
}

static void ch_set(dike_nodes *ns, uint32_t i, struct chent e)
{
    ns->ch[i] = e;
    ns->chpos[e.ri] = i;
}

/* The heap is 4-ary: half the levels of a binary heap, and a node's four children are 64 bytes
 * side by side, so a sift touches about half as many cache lines. Its order, (tc, job), is total,
 * so the completions come out in the same order whatever the arity. */
enum { CH_K = 4 };

static void ch_down(dike_nodes *ns, uint32_t i)
{
    struct chent e = ns->ch[i];
    for (;;) {
        uint32_t c0 = CH_K * i + 1;
        if (c0 >= ns->nch)
            break;
        uint32_t end = c0 + CH_K < ns->nch ? c0 + CH_K : ns->nch, c = c0;
        for (uint32_t k = c0 + 1; k < end; k++)
            if (ch_before(&ns->ch[k], &ns->ch[c]))
                c = k;
        if (!ch_before(&ns->ch[c], &e))
            break;
        ch_set(ns, i, ns->ch[c]);
        i = c;
    }
    ch_set(ns, i, e);
}

static void ch_sift(dike_nodes *ns, uint32_t i)
{
    struct chent e = ns->ch[i];
    if (i > 0 && ch_before(&e, &ns->ch[(i - 1) / CH_K])) {
        do {
            ch_set(ns, i, ns->ch[(i - 1) / CH_K]);
            i = (i - 1) / CH_K;
        } while (i > 0 && ch_before(&e, &ns->ch[(i - 1) / CH_K]));
        ch_set(ns, i, e);
        return;
    }
    ch_down(ns, i);
}

/* A heap from its entries in any order (a loaded checkpoint: one written by a build whose heap
 * had another arity is read correctly too). */
static void ch_heapify(dike_nodes *ns)
{
    if (ns->nch < 2)
        return;
    for (uint32_t i = (ns->nch - 2) / CH_K + 1; i-- > 0;)
        ch_down(ns, i);
}

/* Put run ri in the heap at its r->tc, or move it there. */
static void ch_update(dike_nodes *ns, uint32_t ri)
{
    const nrun *r = &ns->runs[ri];
    struct chent e = {r->tc, r->job, ri};
    if (ns->chpos[ri] == UINT32_MAX) {
        ns->chpos[ri] = ns->nch;
        ns->nch++;
    }
    ns->ch[ns->chpos[ri]] = e;
    ch_sift(ns, ns->chpos[ri]);
}

static void ch_remove(dike_nodes *ns, uint32_t ri)
{
    uint32_t i = ns->chpos[ri];
    if (i == UINT32_MAX)
        return;
    ns->chpos[ri] = UINT32_MAX;
    struct chent last = ns->ch[--ns->nch];
    if (i < ns->nch) {
        ch_set(ns, i, last);
        ch_sift(ns, i);
    }
}

static void free_run(dike_nodes *ns, uint32_t ri)
{
    ch_remove(ns, ri);
    nrun *r = &ns->runs[ri];
    ns->run_of[r->job] = UINT32_MAX;
    r->active = 0;
    r->version++; /* its completion event, if any, is stale */
    /* f stays allocated (fcap) for the next run in this entry: not saved in a checkpoint */
    if (!ns->freeruns)
        ns->freeruns = dike_xmalloc((ns->runcap + 1) * sizeof *ns->freeruns);
    ns->freeruns[ns->nfree++] = ri;
}

static uint32_t new_run(dike_nodes *ns)
{
    if (ns->nfree)
        return ns->freeruns[--ns->nfree];
    if (ns->nruns == ns->runcap) {
        ns->runcap = ns->runcap ? 2 * ns->runcap : 256;
        ns->runs = dike_xrealloc(ns->runs, ns->runcap * sizeof *ns->runs);
        ns->freeruns = dike_xrealloc(ns->freeruns, (ns->runcap + 1) * sizeof *ns->freeruns);
        ns->ch = dike_xrealloc(ns->ch, ns->runcap * sizeof *ns->ch);
        ns->chpos = dike_xrealloc(ns->chpos, ns->runcap * sizeof *ns->chpos);
    }
    memset(&ns->runs[ns->nruns], 0, sizeof *ns->runs);
    ns->chpos[ns->nruns] = UINT32_MAX;
    return ns->nruns++;
}

static void apply_rec(dike_nodes *ns, const dike_jrec *rec)
{
    uint32_t ri = ns->run_of[rec->job];
    nrun *r = ri != UINT32_MAX ? &ns->runs[ri] : NULL;
    switch (rec->kind) {
    case DIKE_JREC_START:
        if (r)
            dike_fatal("job %u starts run %u while run %u is on", rec->job, rec->epoch, r->epoch);
        ri = new_run(ns);
        r = &ns->runs[ri];
        uint32_t version = r->version, fcap = r->fcap;
        double *f = r->f;
        memset(r, 0, sizeof *r);
        r->version = version + 1;
        if (fcap < rec->nslices) {
            fcap = rec->nslices;
            f = dike_xrealloc(f, fcap * sizeof *f);
        }
        r->f = f;
        r->fcap = fcap;
        r->job = rec->job;
        r->epoch = rec->epoch;
        r->nslices = rec->nslices;
        r->active = 1;
        r->work = r->work_ckpt = rec->value;
        r->rate0 = rec->rate;
        r->t_last = rec->time;
        r->t_prog = r->t_ckpt = rec->time + rec->aux;
        for (uint32_t i = 0; i < rec->nslices; i++)
            r->f[i] = -1;
        ns->run_of[rec->job] = ri;
        mark_dirty(ns, ri);
        break;
    case DIKE_JREC_END:
        if (!r || r->epoch != rec->epoch)
            dike_fatal("job %u: end of run %u, which is not on", rec->job, rec->epoch);
        progress_to(ns, r, rec->time);
        if (rec->reason == DIKE_STOP_PREEMPT) {
            report(ns, rec->time, DIKE_NREP_STOPPED, r->job, r->epoch, r->done ? 0 : r->work, 0);
        } else if (rec->reason == DIKE_STOP_EVICT) {
            dike_time tf = rec->aux;
            double lost = tf > r->t_prog ? (double)(tf - r->t_ckpt) : 0;
            report(ns, rec->time, DIKE_NREP_STOPPED, r->job, r->epoch, r->done ? 0 : r->work_ckpt,
                   lost > 0 ? lost : 0);
        }
        free_run(ns, ri);
        break;
    case DIKE_JREC_FACTOR:
        /* a group's minimum: slice is the group's lowest, nslices how many it stands for */
        if (!r || r->epoch != rec->epoch || rec->slice >= r->nslices)
            dike_fatal("job %u: factor for run %u slice %u, which is not on", rec->job, rec->epoch,
                       rec->slice);
        if (r->f[rec->slice] < 0) {
            if (rec->nslices == 0 || rec->nslices > r->nslices - r->covered)
                dike_fatal("job %u run %u: factors for more slices than it has", rec->job, rec->epoch);
            r->covered += rec->nslices;
        }
        r->f[rec->slice] = rec->value;
        mark_dirty(ns, ri);
        break;
    default:
        dike_fatal("unknown job record %u", rec->kind);
    }
    ns->events++;
}

/* New rate after every change at x, and the completion it implies. Nothing is done when the rate
 * stays as it was: the completion already computed holds, and what the home does depends only on
 * the gang's rate over time, not on how many groups (ranks) its slices were reported by. */
static void reschedule(dike_nodes *ns, uint32_t ri, dike_time x)
{
    nrun *r = &ns->runs[ri];
    r->dirty = 0;
    if (!r->active || r->done)
        return;
    double m = r->covered == r->nslices ? 1.0 : 0.0;
    for (uint32_t i = 0; i < r->nslices && m > 0; i++)
        if (r->f[i] >= 0 && r->f[i] < m)
            m = r->f[i];
    double rate = m > 0 ? r->rate0 * m : 0;
    if (rate == r->rate && (ns->chpos[ri] != UINT32_MAX) == (rate > 0))
        return;
    progress_to(ns, r, x);
    r->rate = rate;
    if (r->rate <= 0) {
        ch_remove(ns, ri); /* stalled (a failed node): no completion until the rate comes back */
        return;
    }
    dike_time from = x > r->t_prog ? x : r->t_prog;
    dike_time tc = from + (dike_time)ceil(r->work / r->rate);
    r->tc = tc <= x ? x + 1 : tc;
    ch_update(ns, ri);
}

static dike_time ch_top_time(const dike_nodes *ns)
{
    return ns->nch ? ns->ch[0].tc : DIKE_TIME_INF;
}

/* Records name runs in no useful order, and at scale each costs three dependent cache misses:
 * run_of[job], the run, and its factor list. Fetch them in stages ahead of record i: the job's
 * entry PF_REC * 2 records ahead, the run PF_REC ahead (its entry is there by then), the factor
 * PF_REC / 2 ahead (the run is there). Only hints: a run that starts or ends in between is fetched
 * in vain. */
enum { PF_REC = 8 };
/* always_inline: GCC finds a function that only prefetches "pure" (a prefetch writes nothing)
 * and drops its calls as dead code before inlining it; inlined first, the prefetches stay. */
__attribute__((always_inline)) static inline void prefetch_rec(const dike_nodes *ns, size_t i)
{
    if (i + 2 * PF_REC < ns->nloc)
        __builtin_prefetch(&ns->run_of[ns->loc[i + 2 * PF_REC].job]);
    if (i + PF_REC < ns->nloc) {
        uint32_t ri = ns->run_of[ns->loc[i + PF_REC].job];
        if (ri != UINT32_MAX)
            __builtin_prefetch(&ns->runs[ri], 1);
    }
    if (i + PF_REC / 2 < ns->nloc) {
        const dike_jrec *rec = &ns->loc[i + PF_REC / 2];
        uint32_t ri = ns->run_of[rec->job];
        if (ri != UINT32_MAX && rec->kind == DIKE_JREC_FACTOR && ns->runs[ri].f &&
            rec->slice < ns->runs[ri].fcap)
            __builtin_prefetch(&ns->runs[ri].f[rec->slice], 1);
    }
}

void dike_nodes_home_advance(dike_nodes *ns, const dike_jrec *in, size_t nin, dike_time end)
{
    uint64_t c0 = ns->wp ? dike_winprof_clock() : 0;
    for (size_t i = 0; i < nin; i++)
        send_rec(ns, ns->rank, &in[i]);
    sort_records(ns);
    if (ns->wp)
        dike_winprof_add(ns->wp, DIKE_WP_HOME, UINT32_MAX, dike_winprof_clock() - c0);
    size_t i = 0;
    for (;;) {
        dike_time x = i < ns->nloc ? ns->loc[i].time : DIKE_TIME_INF;
        if (ch_top_time(ns) < x)
            x = ch_top_time(ns);
        if (x >= end)
            break;
        /* completions first: they follow from the rates before x */
        while (ch_top_time(ns) == x) {
            uint64_t c1 = ns->wp ? dike_winprof_clock() : 0;
            uint32_t ri = ns->ch[0].ri;
            nrun *r = &ns->runs[ri];
            ch_remove(ns, ri);
            r->done = 1;
            r->work = 0;
            report(ns, x, DIKE_NREP_FINISH, r->job, r->epoch, 0, 0);
            ns->events++;
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_HOME, dike_winprof_home_rack(ns->wp, r->job),
                                 dike_winprof_clock() - c1);
        }
        while (i < ns->nloc && ns->loc[i].time == x) {
            prefetch_rec(ns, i);
            const dike_jrec *rec = &ns->loc[i++];
            uint64_t c1 = ns->wp ? dike_winprof_clock() : 0;
            apply_rec(ns, rec);
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_HOME, dike_winprof_home_rack(ns->wp, rec->job),
                                 dike_winprof_clock() - c1);
        }
        for (uint32_t d = 0; d < ns->ndirty; d++) {
            uint64_t c1 = ns->wp ? dike_winprof_clock() : 0;
            uint32_t job = ns->runs[ns->dirty[d]].job;
            reschedule(ns, ns->dirty[d], x);
            if (ns->wp)
                dike_winprof_add(ns->wp, DIKE_WP_HOME, dike_winprof_home_rack(ns->wp, job),
                                 dike_winprof_clock() - c1);
        }
        ns->ndirty = 0;
    }
    if (i != ns->nloc)
        dike_fatal("%zu job records at or after the window end", ns->nloc - i);
    ns->nloc = 0;
}

const dike_nrep *dike_nodes_reports(const dike_nodes *ns, size_t *n)
{
    *n = ns->nrep;
    return ns->rep;
}

void dike_nodes_clear_reports(dike_nodes *ns) { ns->nrep = 0; }

dike_time dike_nodes_next_time(dike_nodes *ns)
{
    dike_time t = ns->qh < ns->qn ? ns->q[ns->qh].time : DIKE_TIME_INF;
    const dike_event *top = dike_heap_top(&ns->nheap);
    if (top && top->time < t)
        t = top->time;
    if (ch_top_time(ns) < t)
        t = ch_top_time(ns);
    return t;
}

void dike_nodes_finish(dike_nodes *ns, dike_time last)
{
    /* The last releases take effect after the last finish: they only return GPUs and close the
     * busy GPU-seconds, so they are applied without the node events between. */
    sample_until(ns, last + 1);
    while (ns->qh < ns->qn) {
        const dike_nact *a = &ns->q[ns->qh++];
        dike_action acc = {a->time, a->run_start, a->node, a->gpus, a->job, a->kind};
        if (a->node >= ns->first && a->node - ns->first < ns->n)
            dike_part_apply(ns->p, &acc, 1);
    }
}

void dike_nodes_samples(const dike_nodes *ns, size_t *nsamples, const uint16_t **busy,
                        const float **factor, const uint8_t **up)
{
    *nsamples = ns->nsamples;
    *busy = ns->s_busy;
    *factor = ns->s_factor;
    *up = ns->s_up;
}

uint64_t dike_nodes_events(const dike_nodes *ns) { return ns->events; }

void dike_nodes_window_bound(dike_nodes *ns, dike_winprof *wp) { ns->wp = wp; }

void dike_nodes_window_end(dike_nodes *ns, double coord_seconds)
{
    if (ns->wp)
        dike_winprof_window(ns->wp, coord_seconds);
}

int dike_nodes_may_send_remote(const dike_nodes *ns)
{
    return ns->remote_slots > 0 || ns->remote_queued > 0;
}

/* ---- checkpoint: this rank's node models and runs as bytes (between windows) ---- */

#define WX(b, save, x) dike_bytes_xfer((b), (save), &(x), sizeof(x))

/* A count read back is at most what the remaining bytes could hold (each element >= 1 byte). */
static int count_ok(const dike_bytes *b, int save, uint64_t n, uint64_t elem)
{
    return save || (!b->bad && elem > 0 && n <= (b->len - b->pos) / elem);
}

static void xfer_heap(dike_bytes *b, int save, dike_nodes *ns, dike_heap *h)
{
    uint64_t n = h->n;
    WX(b, save, n);
    if (!count_ok(b, save, n, DIKE_EVENT_XFER_BYTES)) {
        b->bad = 1;
        return;
    }
    for (uint64_t i = 0; i < n && !b->bad; i++) {
        if (save) {
            dike_event_xfer(b, 1, h->a[i].ev);
            continue;
        }
        dike_event *ev = dike_pool_get(&ns->pool);
        memset(ev, 0, sizeof *ev);
        dike_event_xfer(b, 0, ev);
        if (ev->entity < ns->first || ev->entity - ns->first >= ns->n ||
            (ev->kind != DIKE_EV_NODE_FAIL && ev->kind != DIKE_EV_NODE_REPAIR && ev->kind != EV_SLOW) ||
            (ev->kind == EV_SLOW && !ns->slow) || (ev->kind != EV_SLOW && !ns->frng)) {
            b->bad = 1;
            dike_pool_put(&ns->pool, ev);
            break;
        }
        dike_heap_push(h, ev);
    }
}

static void xfer_flow(dike_bytes *b, int save, rflow *f)
{
    WX(b, save, f->job);
    WX(b, save, f->epoch);
    WX(b, save, f->gpus);
    WX(b, save, f->iota);
    WX(b, save, f->netf);
    if (!save)
        f->dord = UINT32_MAX; /* not saved: the first rack_shares after a resume sorts afresh */
}

static void xfer_run(dike_bytes *b, int save, nrun *r)
{
    WX(b, save, r->job); WX(b, save, r->epoch); WX(b, save, r->nslices); WX(b, save, r->version);
    WX(b, save, r->tc); WX(b, save, r->active); WX(b, save, r->done);
    WX(b, save, r->work); WX(b, save, r->rate0); WX(b, save, r->rate); WX(b, save, r->work_ckpt);
    WX(b, save, r->t_last); WX(b, save, r->t_prog); WX(b, save, r->t_ckpt); WX(b, save, r->covered);
}

/* A part's header, its first HDR_N uint32 (read back by dike_nodes_parts_fit and the relayout). */
enum { HDR_MAGIC, HDR_RANK, HDR_NRANKS, HDR_FIRST, HDR_NNODES, HDR_G, HDR_NRACKS, HDR_NJOBS, HDR_N };

/* The header of @p blob into @p hdr; 0 if the blob is too short to hold one. */
static int part_header(const char *blob, size_t len, uint32_t hdr[HDR_N])
{
    if (len < HDR_N * sizeof *hdr)
        return 0;
    memcpy(hdr, blob, HDR_N * sizeof *hdr);
    return 1;
}

/* The walk: a header that must match this rank's own, then the owner's and the home's state in a
 * fixed order. Between windows the scratch lists (records, touched nodes and racks, dirty runs,
 * reports) are empty, so they are not part of it. */
static void xfer_nodes(dike_bytes *b, int save, dike_nodes *ns)
{
    uint32_t hdr[HDR_N] = {[HDR_MAGIC] = 0x4e554d45u /* "EMUN" */, [HDR_RANK] = (uint32_t)ns->rank,
                           [HDR_NRANKS] = (uint32_t)ns->l->nranks, [HDR_FIRST] = ns->first,
                           [HDR_NNODES] = ns->n, [HDR_G] = ns->G, [HDR_NRACKS] = ns->nracks,
                           [HDR_NJOBS] = ns->njobs};
    uint32_t got[HDR_N];
    memcpy(got, hdr, sizeof hdr);
    dike_bytes_xfer(b, save, got, sizeof got);
    if (!save && memcmp(got, hdr, sizeof hdr) != 0) {
        b->bad = 1;
        return;
    }
    uint8_t has[2] = {ns->slow != NULL, ns->frng != NULL}, hgot[2];
    memcpy(hgot, has, sizeof has);
    dike_bytes_xfer(b, save, hgot, sizeof hgot);
    if (memcmp(hgot, has, sizeof has) != 0) {
        b->bad = 1;
        return;
    }
    size_t n = ns->n, G = ns->G;
    WX(b, save, ns->remote_slots);
    WX(b, save, ns->remote_queued);
    WX(b, save, ns->events);
    WX(b, save, ns->next_sample);
    /* owner: per node */
    dike_bytes_xfer(b, save, ns->slots, n * G * sizeof *ns->slots);
    dike_bytes_xfer(b, save, ns->cnt, n * sizeof *ns->cnt);
    dike_bytes_xfer(b, save, ns->down, n);
    dike_bytes_xfer(b, save, ns->phi, n * sizeof *ns->phi);
    dike_bytes_xfer(b, save, ns->nseq, n * sizeof *ns->nseq);
    for (size_t k = 0; ns->slow && k < n; k++) { /* by field: the struct has padding */
        WX(b, save, ns->slow[k].rng);
        WX(b, save, ns->slow[k].next);
        WX(b, save, ns->slow[k].on);
    }
    if (ns->frng)
        dike_bytes_xfer(b, save, ns->frng, n * sizeof *ns->frng);
    xfer_heap(b, save, ns, &ns->nheap);
    xfer_heap(b, save, ns, &ns->sheap);
    for (uint32_t r = 0; r < ns->nracks && !b->bad; r++) {
        rack *rk = &ns->racks[r];
        uint32_t m = rk->n;
        WX(b, save, m);
        if (!count_ok(b, save, m, 3 * sizeof(uint32_t) + 2 * sizeof(double))) { /* xfer_flow's bytes */
            b->bad = 1;
            break;
        }
        if (!save) {
            rk->cap = rk->n = m;
            rk->f = dike_xrealloc(rk->f, ((size_t)m + 1) * sizeof *rk->f);
        }
        for (uint32_t i = 0; i < m; i++)
            xfer_flow(b, save, &rk->f[i]);
    }
    /* queued actions */
    uint64_t nq = ns->qn - ns->qh;
    WX(b, save, nq);
    if (!count_ok(b, save, nq, sizeof *ns->q)) {
        b->bad = 1;
        return;
    }
    if (!save) {
        ns->qh = 0;
        ns->qn = ns->qcap = (size_t)nq;
        ns->q = dike_xrealloc(ns->q, ((size_t)nq + 1) * sizeof *ns->q);
    }
    for (size_t i = 0; i < nq; i++) {
        dike_nact a;
        if (save) {
            a = ns->q[ns->qh + i];
            a.pad_ = 0;
        }
        WX(b, save, a);
        if (!save)
            ns->q[i] = a;
    }
    /* home: the runs as they are (indices, free list, completion heap), so nothing is rebuilt */
    uint32_t nruns = ns->nruns, nfree = ns->nfree, nch = ns->nch;
    WX(b, save, nruns);
    WX(b, save, nfree);
    WX(b, save, nch);
    if (!count_ok(b, save, nruns, 64) /* xfer_run writes more than 64 bytes a run */ || nfree > nruns ||
        nch > nruns) {
        b->bad = 1;
        return;
    }
    if (!save) {
        ns->nruns = ns->runcap = nruns;
        ns->nfree = nfree;
        ns->nch = nch;
        size_t c = (size_t)nruns + 1;
        ns->runs = dike_xrealloc(ns->runs, c * sizeof *ns->runs);
        memset(ns->runs, 0, c * sizeof *ns->runs);
        ns->freeruns = dike_xrealloc(ns->freeruns, c * sizeof *ns->freeruns);
        ns->ch = dike_xrealloc(ns->ch, c * sizeof *ns->ch);
        ns->chpos = dike_xrealloc(ns->chpos, c * sizeof *ns->chpos);
    }
    for (uint32_t i = 0; i < nruns && !b->bad; i++) {
        nrun *r = &ns->runs[i];
        xfer_run(b, save, r);
        uint8_t hasf = r->active && r->f != NULL; /* a freed run's kept list is not state */
        WX(b, save, hasf);
        if (!save && hasf) {
            if (r->nslices == 0 || !count_ok(b, 0, r->nslices, sizeof *r->f)) {
                b->bad = 1;
                break;
            }
            r->f = dike_xmalloc(r->nslices * sizeof *r->f);
            r->fcap = r->nslices;
        }
        if (hasf)
            dike_bytes_xfer(b, save, r->f, r->nslices * sizeof *r->f);
    }
    if (b->bad)
        return;
    if (ns->freeruns)
        dike_bytes_xfer(b, save, ns->freeruns, (size_t)nfree * sizeof *ns->freeruns);
    if (nruns) {
        /* the heap's run indices (its keys are the runs' own: dike_nodes_load sets them) */
        for (uint32_t i = 0; i < nch; i++) {
            uint32_t ri = ns->ch[i].ri;
            WX(b, save, ri);
            if (!save)
                ns->ch[i] = (struct chent){0, 0, ri};
        }
        dike_bytes_xfer(b, save, ns->chpos, (size_t)nruns * sizeof *ns->chpos);
    }
    /* samples so far */
    uint64_t nsamples = ns->nsamples;
    WX(b, save, nsamples);
    uint64_t per_sample = (sizeof *ns->s_busy + sizeof *ns->s_factor + sizeof *ns->s_up) * (uint64_t)n;
    if (n && !count_ok(b, save, nsamples, per_sample)) {
        b->bad = 1;
        return;
    }
    if (!save && nsamples) {
        ns->nsamples = ns->samplecap = (size_t)nsamples;
        size_t cells = ns->samplecap * n + 1;
        ns->s_busy = dike_xrealloc(ns->s_busy, cells * sizeof *ns->s_busy);
        ns->s_factor = dike_xrealloc(ns->s_factor, cells * sizeof *ns->s_factor);
        ns->s_up = dike_xrealloc(ns->s_up, cells * sizeof *ns->s_up);
    }
    if (nsamples) {
        dike_bytes_xfer(b, save, ns->s_busy, nsamples * n * sizeof *ns->s_busy);
        dike_bytes_xfer(b, save, ns->s_factor, nsamples * n * sizeof *ns->s_factor);
        dike_bytes_xfer(b, save, ns->s_up, nsamples * n * sizeof *ns->s_up);
    }
}

char *dike_nodes_save(dike_nodes *ns, size_t *len)
{
    if (ns->nloc || ns->nrem || ns->ndirty || ns->nrep || ns->ntn || ns->ntr || ns->ntg || ns->ngu)
        dike_fatal("node state saved inside a window (%zu records, %u dirty runs, %zu reports)",
                   ns->nloc + ns->nrem, ns->ndirty, ns->nrep);
    dike_bytes b = {0};
    xfer_nodes(&b, 1, ns);
    *len = b.len;
    return b.p;
}

/* Range checks of what was read: every index is used as one later. */
static const char *check_loaded(const dike_nodes *ns)
{
    uint32_t nr = (uint32_t)ns->l->nranks;
    for (size_t i = 0; i < (size_t)ns->n * ns->G; i++) {
        const nslot *s = &ns->slots[i];
        if (s->job != UINT32_MAX && (s->job >= ns->njobs || s->home < 0 || (uint32_t)s->home >= nr ||
                                     s->gpus == 0 || s->gpus > ns->G))
            return "a GPU slot out of range";
    }
    for (uint32_t k = 0; k < ns->n; k++)
        if (ns->down[k] > 1 || ns->cnt[k] > ns->G)
            return "a node's state out of range";
    for (size_t i = ns->qh; i < ns->qn; i++) {
        const dike_nact *a = &ns->q[i];
        if (a->node < ns->first || a->node - ns->first >= ns->n || a->job >= ns->njobs ||
            (a->kind != DIKE_ACT_START && a->kind != DIKE_ACT_STOP))
            return "a queued action out of range";
    }
    for (uint32_t i = 0; i < ns->nruns; i++) {
        const nrun *r = &ns->runs[i];
        if (r->active && (r->job >= ns->njobs || !r->f || r->covered > r->nslices ||
                          (ns->run_of && ns->run_of[r->job] != UINT32_MAX)))
            return "a run out of range, or two runs of one job";
        if (r->active && ns->run_of)
            ((dike_nodes *)ns)->run_of[r->job] = i;
        if (ns->chpos[i] != UINT32_MAX && (ns->chpos[i] >= ns->nch || ns->ch[ns->chpos[i]].ri != i || !r->active))
            return "the completion heap out of range";
    }
    for (uint32_t i = 0; i < ns->nfree; i++)
        if (ns->freeruns[i] >= ns->nruns || ns->runs[ns->freeruns[i]].active)
            return "the free-run list out of range";
    for (uint32_t i = 0; i < ns->nch; i++)
        if (ns->ch[i].ri >= ns->nruns || ns->chpos[ns->ch[i].ri] != i)
            return "the completion heap out of range";
    return NULL;
}

const char *dike_nodes_load(dike_nodes *ns, const char *p, size_t len)
{
    /* the node events dike_nodes_new drew are replaced by the saved ones */
    dike_event *ev;
    while ((ev = dike_heap_pop(&ns->nheap)))
        dike_pool_put(&ns->pool, ev);
    while ((ev = dike_heap_pop(&ns->sheap)))
        dike_pool_put(&ns->pool, ev);
    dike_bytes b = {(char *)p, len, len, 0, 0};
    xfer_nodes(&b, 0, ns);
    if (b.bad || b.pos != b.len)
        return "truncated, or written by another layout of ranks";
    if (ns->run_of)
        memset(ns->run_of, 0xff, ((size_t)ns->njobs + 1) * sizeof *ns->run_of);
    const char *bad = check_loaded(ns);
    if (bad)
        return bad;
    for (uint32_t i = 0; i < ns->nch; i++) { /* the heap's keys are its runs' own */
        ns->ch[i].tc = ns->runs[ns->ch[i].ri].tc;
        ns->ch[i].job = ns->runs[ns->ch[i].ri].job;
    }
    ch_heapify(ns);
    if (ns->grp_of)
        groups_rebuild(ns);
    return NULL;
}

/* ---- resume on another number of ranks (rank 0) ---- */

/* The actions of one new owner, gathered from several old queues (each in time order, so the
 * list is a few sorted runs): a stable merge sort by effect time. Actions of one node all come
 * from one old queue, so each node keeps its own order; nodes do not depend on each other's
 * order within a timestamp (slots are found by job, rack flows are sorted before use). */
static void sort_actions(dike_nact *a, size_t n)
{
    if (n < 2)
        return;
    dike_nact *tmp = dike_xmalloc(n * sizeof *tmp);
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi)
                tmp[o++] = a[y].time < a[x].time ? a[y++] : a[x++];
            while (x < mid)
                tmp[o++] = a[x++];
            while (y < hi)
                tmp[o++] = a[y++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
    free(tmp);
}

static void copy_event(dike_nodes *to, dike_heap *h, const dike_event *src)
{
    dike_event *ev = dike_pool_get(&to->pool);
    *ev = *src;
    dike_heap_push(h, ev);
}

int dike_nodes_parts_fit(const dike_nodes *mine, int nold, char *const *blobs, const size_t *lens)
{
    if (nold != mine->l->nranks)
        return 0;
    for (int r = 0; r < nold; r++) {
        uint32_t hdr[HDR_N], first, n;
        if (!part_header(blobs[r], lens[r], hdr))
            return 0;
        dike_part_block(mine->l, r, &first, &n);
        if (hdr[HDR_RANK] != (uint32_t)r || hdr[HDR_FIRST] != first || hdr[HDR_NNODES] != n)
            return 0;
    }
    return 1;
}

char **dike_nodes_relayout(dike_nodes *mine, int nold, char *const *blobs, const size_t *lens,
                           size_t **out_lens, const char **bad)
{
    const dike_cluster *cl = mine->cl;
    const dike_part_layout *l = mine->l;
    int nnew = l->nranks;
    uint32_t G = mine->G, njobs = mine->njobs;
    *bad = NULL;
    dike_part_layout lo = *l;
    lo.nranks = nold; /* the old objects only check indices against it */
    dike_part *op = dike_xcalloc((size_t)nold, sizeof *op), *pp = dike_xcalloc((size_t)nnew, sizeof *pp);
    dike_nodes **old = dike_xcalloc((size_t)nold, sizeof *old), **nw = dike_xcalloc((size_t)nnew, sizeof *nw);
    int *owner_old = dike_xmalloc(((size_t)cl->nodes + 1) * sizeof *owner_old);
    /* Per-job indices shared by all the temporary objects (which have none of their own: their
     * number is old + new ranks, and jobs can be millions): the node of a gang's first slice, the
     * index of its run at its new home, and the new groups of one rank at a time. */
    uint32_t *home_node = dike_xmalloc(((size_t)njobs + 1) * sizeof *home_node);
    memset(home_node, 0xff, ((size_t)njobs + 1) * sizeof *home_node);
    uint32_t *run_at = dike_xmalloc(((size_t)njobs + 1) * sizeof *run_at);
    memset(run_at, 0xff, ((size_t)njobs + 1) * sizeof *run_at);
    uint32_t *grp_at = dike_xmalloc(((size_t)njobs + 1) * sizeof *grp_at);
    memset(grp_at, 0xff, ((size_t)njobs + 1) * sizeof *grp_at);
    for (uint32_t k = 0; k < cl->nodes; k++)
        owner_old[k] = -1;
    /* the old ranks' objects, from their bytes */
    for (int i = 0; i < nold && !*bad; i++) {
        uint32_t hdr[HDR_N];
        if (!part_header(blobs[i], lens[i], hdr)) {
            *bad = "a rank's part is truncated";
            break;
        }
        if (hdr[HDR_FIRST] > cl->nodes || hdr[HDR_NNODES] > cl->nodes - hdr[HDR_FIRST] || hdr[HDR_G] != G ||
            hdr[HDR_NJOBS] != njobs) {
            *bad = "a rank's block does not fit this cluster";
            break;
        }
        dike_part_init(&op[i], cl, NULL, hdr[HDR_FIRST], hdr[HDR_NNODES]);
        old[i] = nodes_new(&mine->np, cl, &lo, i, &op[i], njobs, 0);
        if ((*bad = dike_nodes_load(old[i], blobs[i], lens[i])))
            break;
        for (uint32_t k = 0; k < old[i]->n && !*bad; k++) {
            uint32_t node = old[i]->first + k;
            if (owner_old[node] >= 0)
                *bad = "two ranks' blocks overlap";
            owner_old[node] = i;
            for (uint32_t g = 0; g < G; g++) {
                const nslot *s = &old[i]->slots[(size_t)k * G + g];
                if (s->job != UINT32_MAX && s->slice == 0)
                    home_node[s->job] = node;
            }
        }
    }
    for (uint32_t k = 0; k < cl->nodes && !*bad; k++)
        if (owner_old[k] < 0)
            *bad = "a node that no rank's block holds";
    /* Owners take their samples lazily (before the first event of each timestamp they process), so
     * at a window boundary a quiet rank may be some samples behind. Its nodes have not changed
     * since its last event, so bring every old rank to the latest sample time first; the samples
     * read a node's busy GPUs, which are its slots' GPUs. */
    dike_time sample_to = 0;
    for (int i = 0; i < nold && !*bad; i++)
        if (old[i]->next_sample > sample_to)
            sample_to = old[i]->next_sample;
    for (int i = 0; i < nold && !*bad && mine->np.sample_us > 0; i++) {
        dike_nodes *o = old[i];
        for (uint32_t k = 0; k < o->n; k++) {
            uint32_t busy = 0;
            for (uint32_t g = 0; g < G; g++)
                busy += o->slots[(size_t)k * G + g].job != UINT32_MAX ? o->slots[(size_t)k * G + g].gpus : 0;
            op[i].free[k] = dike_cluster_node_gpus(cl, o->first + k) - busy;
        }
        sample_until(o, sample_to);
    }
    /* the new ranks' objects, filled node by node, rack by rack, run by run */
    for (int r = 0; r < nnew && !*bad; r++) {
        uint32_t first, n;
        dike_part_block(l, r, &first, &n);
        dike_part_init(&pp[r], cl, NULL, first, n);
        dike_nodes *t = nw[r] = nodes_new(&mine->np, cl, l, r, &pp[r], njobs, 0);
        dike_event *ev;
        while ((ev = dike_heap_pop(&t->nheap)))
            dike_pool_put(&t->pool, ev);
        while ((ev = dike_heap_pop(&t->sheap)))
            dike_pool_put(&t->pool, ev);
        const dike_nodes *o0 = old[0];
        t->next_sample = o0->next_sample;
        t->nsamples = t->samplecap = o0->nsamples;
        if (t->nsamples) {
            size_t cells = t->nsamples * n + 1;
            t->s_busy = dike_xmalloc(cells * sizeof *t->s_busy);
            t->s_factor = dike_xmalloc(cells * sizeof *t->s_factor);
            t->s_up = dike_xmalloc(cells * sizeof *t->s_up);
        }
        for (uint32_t k = 0; k < n && !*bad; k++) {
            const dike_nodes *o = old[owner_old[first + k]];
            uint32_t ko = first + k - o->first;
            if (o->nsamples != t->nsamples || o->next_sample != t->next_sample) {
                *bad = "ranks disagree on the node samples";
                break;
            }
            for (uint32_t g = 0; g < G; g++) {
                nslot s = o->slots[(size_t)ko * G + g];
                if (s.job != UINT32_MAX) {
                    if (home_node[s.job] == UINT32_MAX) {
                        *bad = "a gang without its first slice";
                        break;
                    }
                    s.home = dike_part_owner(l, home_node[s.job]);
                    t->remote_slots += s.home != r;
                }
                t->slots[(size_t)k * G + g] = s;
            }
            t->cnt[k] = o->cnt[ko];
            t->down[k] = o->down[ko];
            t->phi[k] = o->phi[ko];
            t->nseq[k] = o->nseq[ko];
            if (t->slow)
                t->slow[k] = o->slow[ko];
            if (t->frng)
                t->frng[k] = o->frng[ko];
            for (size_t s = 0; s < t->nsamples; s++) {
                t->s_busy[s * n + k] = o->s_busy[s * o->n + ko];
                t->s_factor[s * n + k] = o->s_factor[s * o->n + ko];
                t->s_up[s * n + k] = o->s_up[s * o->n + ko];
            }
        }
        for (uint32_t rk = 0; rk < t->nracks && !*bad; rk++) {
            uint32_t gr = t->first_rack + rk;
            const dike_nodes *o = old[owner_old[gr * cl->nodes_per_rack]];
            const rack *from = &o->racks[gr - o->first_rack];
            rack *to = &t->racks[rk];
            to->n = to->cap = from->n;
            to->f = dike_xmalloc(((size_t)from->n + 1) * sizeof *to->f);
            if (from->n)
                memcpy(to->f, from->f, from->n * sizeof *to->f);
        }
    }
    /* node events, queued actions and runs go where their node or their home now is */
    for (int i = 0; i < nold && !*bad; i++) {
        dike_nodes *o = old[i];
        for (size_t e = 0; e < o->nheap.n; e++)
            copy_event(nw[dike_part_owner(l, o->nheap.a[e].ev->entity)],
                       &nw[dike_part_owner(l, o->nheap.a[e].ev->entity)]->nheap, o->nheap.a[e].ev);
        for (size_t e = 0; e < o->sheap.n; e++)
            copy_event(nw[dike_part_owner(l, o->sheap.a[e].ev->entity)],
                       &nw[dike_part_owner(l, o->sheap.a[e].ev->entity)]->sheap, o->sheap.a[e].ev);
        for (size_t q = o->qh; q < o->qn; q++) {
            dike_nodes *t = nw[dike_part_owner(l, o->q[q].node)];
            if (t->qn == t->qcap) {
                t->qcap = t->qcap ? 2 * t->qcap : 64;
                t->q = dike_xrealloc(t->q, t->qcap * sizeof *t->q);
            }
            t->q[t->qn++] = o->q[q];
            t->remote_queued += o->q[q].kind == DIKE_ACT_START &&
                                dike_part_owner(l, o->q[q].home_node) != t->rank;
        }
        for (uint32_t ri = 0; ri < o->nruns && !*bad; ri++) {
            const nrun *from = &o->runs[ri];
            if (!from->active)
                continue;
            if (home_node[from->job] == UINT32_MAX) {
                *bad = "a run without its first slice";
                break;
            }
            dike_nodes *t = nw[dike_part_owner(l, home_node[from->job])];
            if (run_at[from->job] != UINT32_MAX) {
                *bad = "two runs of one job";
                break;
            }
            uint32_t ni = new_run(t);
            nrun *to = &t->runs[ni];
            *to = *from;
            to->dirty = 0;
            to->f = dike_xmalloc(from->nslices * sizeof *to->f);
            to->fcap = from->nslices;
            memcpy(to->f, from->f, from->nslices * sizeof *to->f);
            run_at[to->job] = ni;
            if (o->chpos[ri] != UINT32_MAX)
                ch_update(t, ni);
        }
    }
    /* Each run's factors, per group of the new layout: the minimum of the group's slices. */
    for (int r = 0; r < nnew && !*bad; r++) {
        dike_nodes *t = nw[r];
        for (uint32_t ri = 0; ri < t->nruns; ri++) {
            nrun *x = &t->runs[ri];
            if (!x->active)
                continue;
            for (uint32_t i = 0; i < x->nslices; i++)
                x->f[i] = -1;
            x->covered = 0;
        }
    }
    for (int r = 0; r < nnew && !*bad; r++) {
        dike_nodes *t = nw[r];
        t->grp_of = grp_at;
        groups_rebuild(t);
        for (uint32_t g = 0; g < t->ngrps && !*bad; g++) {
            const ngrp *gp = &t->grps[g];
            if (gp->job == UINT32_MAX)
                continue;
            dike_nodes *h = nw[gp->home];
            uint32_t ri = run_at[gp->job];
            nrun *x = ri < h->nruns && h->runs[ri].active && h->runs[ri].job == gp->job ? &h->runs[ri] : NULL;
            if (!x || x->epoch != gp->epoch || gp->rep >= x->nslices || x->f[gp->rep] >= 0 ||
                gp->nlocal > x->nslices - x->covered) {
                *bad = "a gang's slices do not match its run";
                break;
            }
            x->f[gp->rep] = gp->sent;
            x->covered += gp->nlocal;
        }
        for (uint32_t g = 0; g < t->ngrps; g++)
            if (t->grps[g].job != UINT32_MAX)
                grp_at[t->grps[g].job] = UINT32_MAX;
        t->grp_of = NULL;
    }
    char **out = NULL;
    if (!*bad) {
        out = dike_xcalloc((size_t)nnew, sizeof *out);
        *out_lens = dike_xcalloc((size_t)nnew, sizeof **out_lens);
        for (int r = 0; r < nnew; r++) {
            sort_actions(nw[r]->q, nw[r]->qn);
            out[r] = dike_nodes_save(nw[r], &(*out_lens)[r]);
        }
    }
    for (int i = 0; i < nold; i++) {
        dike_nodes_free(old[i]);
        dike_part_free(&op[i]);
    }
    for (int r = 0; r < nnew; r++) {
        dike_nodes_free(nw[r]);
        dike_part_free(&pp[r]);
    }
    free(old);
    free(nw);
    free(op);
    free(pp);
    free(owner_old);
    free(home_node);
    free(run_at);
    free(grp_at);
    return out;
}
