/* The state of one rank's node side as bytes: the checkpoint's part of each rank (save, load and
 * their range checks), and a resume on another number of ranks (the relayout, on rank 0), which
 * rebuilds the old ranks' objects from their parts and cuts them into the new blocks
 * (docs/reliability.md). */
#include "engine/nodes_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"

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
    dike_nodes_impl_ch_heapify(ns);
    if (ns->grp_of)
        dike_nodes_impl_groups_rebuild(ns);
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
        old[i] = dike_nodes_impl_new(&mine->np, cl, &lo, i, &op[i], njobs, 0);
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
        dike_nodes_impl_sample_until(o, sample_to);
    }
    /* the new ranks' objects, filled node by node, rack by rack, run by run */
    for (int r = 0; r < nnew && !*bad; r++) {
        uint32_t first, n;
        dike_part_block(l, r, &first, &n);
        dike_part_init(&pp[r], cl, NULL, first, n);
        dike_nodes *t = nw[r] = dike_nodes_impl_new(&mine->np, cl, l, r, &pp[r], njobs, 0);
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
            uint32_t ni = dike_nodes_impl_new_run(t);
            nrun *to = &t->runs[ni];
            *to = *from;
            to->dirty = 0;
            to->f = dike_xmalloc(from->nslices * sizeof *to->f);
            to->fcap = from->nslices;
            memcpy(to->f, from->f, from->nslices * sizeof *to->f);
            run_at[to->job] = ni;
            if (o->chpos[ri] != UINT32_MAX)
                dike_nodes_impl_ch_update(t, ni);
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
        dike_nodes_impl_groups_rebuild(t);
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
