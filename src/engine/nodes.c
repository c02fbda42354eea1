/* Node-side progress: owners run the node models, homes integrate their jobs' progress
 * (see nodes.h and docs/architecture.md#two-modes). */
#include "engine/nodes_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coord.h"

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
    np->sample_max_bytes = cfg->output_timeseries_max_gib * DIKE_GIB;
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
    double fit = n ? np->sample_max_bytes / ((double)n * DIKE_NODE_SAMPLE_BYTES) : INFINITY;
    ns->sample_max = fit < (double)(SIZE_MAX / 2) ? (size_t)fit : SIZE_MAX / 2;
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

/* Samples at times before t see every node event before t. Samples that would pass
 * output.timeseries_max_gib are not taken: the block is full, and the run ends with an error
 * (emulate.c; docs/reliability.md). */
static void sample_until(dike_nodes *ns, dike_time t)
{
    while (ns->next_sample < t && !ns->samples_full) {
        if (ns->nsamples >= ns->sample_max) {
            ns->samples_full = 1;
            return;
        }
        if (ns->nsamples == ns->samplecap) {
            /* doubling, but never past the bound: the last growth is to the most that fits */
            ns->samplecap = ns->samplecap ? 2 * ns->samplecap : 64;
            if (ns->samplecap > ns->sample_max)
                ns->samplecap = ns->sample_max;
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

int dike_nodes_samples_full(const dike_nodes *ns)
{
    return ns->samples_full;
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

/* ---- for nodes_state.c (nodes_impl.h) ---- */

dike_nodes *dike_nodes_impl_new(const dike_nodes_params *np, const dike_cluster *cl,
                                const dike_part_layout *l, int rank, dike_part *p, uint32_t njobs,
                                int per_job)
{
    return nodes_new(np, cl, l, rank, p, njobs, per_job);
}

void dike_nodes_impl_groups_rebuild(dike_nodes *ns) { groups_rebuild(ns); }
void dike_nodes_impl_sample_until(dike_nodes *ns, dike_time t) { sample_until(ns, t); }
uint32_t dike_nodes_impl_new_run(dike_nodes *ns) { return new_run(ns); }
void dike_nodes_impl_ch_update(dike_nodes *ns, uint32_t ri) { ch_update(ns, ri); }
void dike_nodes_impl_ch_heapify(dike_nodes *ns) { ch_heapify(ns); }
