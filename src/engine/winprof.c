/* The window bound: see winprof.h. */
#include "engine/winprof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dike/base.h"
#include "engine/partition.h"

#define MAXP 32

struct dike_winprof {
    uint32_t nracks, njobs, npr;
    int np;                    /* rank counts measured */
    int P[MAXP];               /* the rank counts */
    int nblocks[MAXP];         /* blocks of nodes at P ranks (P, or P - 1 without the coordinator's) */
    uint32_t *block;           /* [p * nracks + rack]: the block that owns the rack at P[p] */
    uint32_t *home_rack;       /* per job */
    uint64_t *t[2];            /* per rack, this window: owner and home ticks */
    uint32_t *touched, ntouched;
    uint8_t *is_touched;
    uint64_t loose[2];         /* this window: ticks charged to no rack */
    uint64_t *bsum[2];         /* per block scratch (the largest nblocks) */
    uint32_t *btouched;
    uint8_t *bis;
    /* totals over the windows */
    uint64_t total[2], total_loose[2], windows;
    double crit[MAXP][2];      /* sum over windows of the largest block's ticks (+ loose / blocks) */
    double *btotal[MAXP];      /* per block: its owner + home ticks over the whole run */
    /* "rebalanced": the same with contiguous blocks recut every `every` windows so that the
     * heaviest block carries as little as possible of the work charged so far (what a partition
     * that moved racks between ranks during the run could reach, moving free of charge) */
    uint32_t every;
    uint32_t *rblock;          /* [p * nracks + rack]: the recut blocks */
    double *cum;               /* per rack: owner + home ticks so far */
    double rcrit[MAXP];        /* sum over windows of the recut blocks' largest owner + home */
    double coord_s;
    uint64_t tick0;            /* calibration: ticks and monotonic time at creation */
    double sec0;
};

#if !defined(__x86_64__)
uint64_t dike_winprof_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

dike_winprof *dike_winprof_new(const dike_cluster *cl, uint32_t njobs, dike_winprof_owns_fn owns,
                               const void *ctx, uint32_t rebalance_every)
{
    dike_winprof *w = dike_xcalloc(1, sizeof *w);
    w->nracks = cl->nracks;
    w->njobs = njobs;
    w->npr = cl->nodes_per_rack;
    /* 2, 3, 4, then powers of two while a block can still hold a rack, then one rack per block */
    for (int P = 2; w->np < MAXP - 1; P = P < 4 ? P + 1 : 2 * P) {
        int nb = owns(ctx, P) ? P : P - 1;
        if ((uint32_t)nb >= cl->nracks) {
            /* the last: every rack its own block (none for a one-rack cluster with its coordinator
             * owning it: that is one rank) */
            P = (int)cl->nracks + (owns(ctx, (int)cl->nracks) ? 0 : 1);
            if (P >= 2 && (w->np == 0 || (uint32_t)w->nblocks[w->np - 1] < cl->nracks)) {
                w->P[w->np] = P;
                w->nblocks[w->np] = (int)cl->nracks;
                w->np++;
            }
            break;
        }
        w->P[w->np] = P;
        w->nblocks[w->np] = nb;
        w->np++;
    }
    w->block = dike_xmalloc((size_t)(w->np ? w->np : 1) * cl->nracks * sizeof *w->block);
    int maxb = 1;
    for (int p = 0; p < w->np; p++) {
        dike_part_layout l;
        int coord_block = w->nblocks[p] == w->P[p];
        dike_part_layout_init(&l, cl, w->P[p], coord_block);
        dike_part_layout_reverse(&l); /* the emulating mode's layout (run.c) */
        for (uint32_t r = 0; r < cl->nracks; r++) {
            int o = dike_part_owner(&l, r * cl->nodes_per_rack);
            w->block[(size_t)p * cl->nracks + r] = (uint32_t)(coord_block ? o : o - 1);
        }
        if (w->nblocks[p] > maxb)
            maxb = w->nblocks[p];
        w->btotal[p] = dike_xcalloc((size_t)w->nblocks[p], sizeof *w->btotal[p]);
    }
    w->every = rebalance_every;
    w->rblock = dike_xmalloc((size_t)(w->np ? w->np : 1) * cl->nracks * sizeof *w->rblock);
    memcpy(w->rblock, w->block, (size_t)w->np * cl->nracks * sizeof *w->rblock);
    w->cum = dike_xcalloc(cl->nracks, sizeof *w->cum);
    w->home_rack = dike_xmalloc((njobs ? njobs : 1) * sizeof *w->home_rack);
    for (uint32_t j = 0; j < njobs; j++)
        w->home_rack[j] = UINT32_MAX;
    for (int ph = 0; ph < 2; ph++) {
        w->t[ph] = dike_xcalloc(cl->nracks, sizeof *w->t[ph]);
        w->bsum[ph] = dike_xcalloc((size_t)maxb, sizeof *w->bsum[ph]);
    }
    w->touched = dike_xmalloc(cl->nracks * sizeof *w->touched);
    w->is_touched = dike_xcalloc(cl->nracks, 1);
    w->btouched = dike_xmalloc((size_t)maxb * sizeof *w->btouched);
    w->bis = dike_xcalloc((size_t)maxb, 1);
    w->tick0 = dike_winprof_clock();
    w->sec0 = dike_mono_seconds();
    return w;
}

void dike_winprof_free(dike_winprof *w)
{
    if (!w)
        return;
    free(w->block);
    free(w->rblock);
    free(w->cum);
    free(w->home_rack);
    for (int p = 0; p < w->np; p++)
        free(w->btotal[p]);
    for (int ph = 0; ph < 2; ph++) {
        free(w->t[ph]);
        free(w->bsum[ph]);
    }
    free(w->touched);
    free(w->is_touched);
    free(w->btouched);
    free(w->bis);
    free(w);
}

void dike_winprof_add(dike_winprof *w, int phase, uint32_t rack, uint64_t ticks)
{
    if (rack >= w->nracks) {
        w->loose[phase] += ticks;
        return;
    }
    if (!w->is_touched[rack]) {
        w->is_touched[rack] = 1;
        w->touched[w->ntouched++] = rack;
    }
    w->t[phase][rack] += ticks;
}

void dike_winprof_set_home(dike_winprof *w, uint32_t job, uint32_t home_node)
{
    if (job < w->njobs)
        w->home_rack[job] = home_node / w->npr;
}

uint32_t dike_winprof_home_rack(const dike_winprof *w, uint32_t job)
{
    return job < w->njobs ? w->home_rack[job] : UINT32_MAX;
}

/* This window's largest block, owner and home, under the blocks @p blk; adds each block's total to
 * @p btotal if given. */
static void window_max(dike_winprof *w, const uint32_t *blk, uint64_t mx[2], double *btotal)
{
    uint32_t nbt = 0;
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t r = w->touched[i], b = blk[r];
        if (!w->bis[b]) {
            w->bis[b] = 1;
            w->btouched[nbt++] = b;
            w->bsum[0][b] = w->bsum[1][b] = 0;
        }
        w->bsum[0][b] += w->t[0][r];
        w->bsum[1][b] += w->t[1][r];
    }
    mx[0] = mx[1] = 0;
    for (uint32_t i = 0; i < nbt; i++) {
        uint32_t b = w->btouched[i];
        for (int ph = 0; ph < 2; ph++)
            if (w->bsum[ph][b] > mx[ph])
                mx[ph] = w->bsum[ph][b];
        if (btotal)
            btotal[b] += (double)(w->bsum[0][b] + w->bsum[1][b]);
        w->bis[b] = 0;
    }
}

/* Racks in order, filled into blocks up to @p cap each: how many blocks that takes (into @p blk
 * if given). */
static uint32_t fill(const dike_winprof *w, double cap, uint32_t *blk)
{
    uint32_t b = 0;
    double acc = 0;
    for (uint32_t r = 0; r < w->nracks; r++) {
        if (acc > 0 && acc + w->cum[r] > cap) {
            b++;
            acc = 0;
        }
        acc += w->cum[r];
        if (blk)
            blk[r] = b;
    }
    return b + 1;
}

/* Recut @p k contiguous blocks so that the heaviest carries the least of the work so far: the
 * smallest cap with which filling racks in order takes at most k blocks (bisection between the
 * heaviest rack and the whole), then that filling. Nothing charged yet: the blocks stay. */
static void recut(const dike_winprof *w, int k, uint32_t *blk)
{
    double lo = 0, hi = 0;
    for (uint32_t r = 0; r < w->nracks; r++) {
        hi += w->cum[r];
        if (w->cum[r] > lo)
            lo = w->cum[r];
    }
    if (hi <= 0)
        return;
    if (fill(w, lo, NULL) > (uint32_t)k)
        for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
            double mid = 0.5 * (lo + hi);
            if (fill(w, mid, NULL) <= (uint32_t)k)
                hi = mid;
            else
                lo = mid;
        }
    else
        hi = lo;
    fill(w, hi, blk);
}

void dike_winprof_window(dike_winprof *w, double coord_seconds)
{
    w->windows++;
    w->coord_s += coord_seconds;
    for (int ph = 0; ph < 2; ph++) {
        w->total_loose[ph] += w->loose[ph];
        for (uint32_t i = 0; i < w->ntouched; i++)
            w->total[ph] += w->t[ph][w->touched[i]];
    }
    for (int p = 0; p < w->np; p++) {
        uint64_t mx[2];
        window_max(w, w->block + (size_t)p * w->nracks, mx, w->btotal[p]);
        for (int ph = 0; ph < 2; ph++)
            w->crit[p][ph] += (double)mx[ph] + (double)w->loose[ph] / w->nblocks[p];
        window_max(w, w->rblock + (size_t)p * w->nracks, mx, NULL);
        w->rcrit[p] += (double)(mx[0] + mx[1]) + (double)(w->loose[0] + w->loose[1]) / w->nblocks[p];
    }
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t r = w->touched[i];
        w->cum[r] += (double)(w->t[0][r] + w->t[1][r]);
    }
    if (w->every && w->windows % w->every == 0)
        for (int p = 0; p < w->np; p++)
            recut(w, w->nblocks[p], w->rblock + (size_t)p * w->nracks);
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t r = w->touched[i];
        w->t[0][r] = w->t[1][r] = 0;
        w->is_touched[r] = 0;
    }
    w->ntouched = 0;
    w->loose[0] = w->loose[1] = 0;
}

int dike_winprof_count(const dike_winprof *w) { return w->np; }

void dike_winprof_get(const dike_winprof *w, int i, dike_winprof_row *row)
{
    memset(row, 0, sizeof *row);
    if (i < 0) { /* one rank */
        row->ranks = row->blocks = 1;
        row->owner = (double)(w->total[0] + w->total_loose[0]);
        row->home = (double)(w->total[1] + w->total_loose[1]);
        row->heaviest = row->rebalanced = row->owner + row->home;
        return;
    }
    row->ranks = w->P[i];
    row->blocks = w->nblocks[i];
    row->owner = w->crit[i][0];
    row->home = w->crit[i][1];
    row->rebalanced = w->rcrit[i];
    /* work of no rack counts as spread evenly over the blocks */
    double even = (double)(w->total_loose[0] + w->total_loose[1]) / w->nblocks[i];
    for (int k = 0; k < w->nblocks[i]; k++)
        if (w->btotal[i][k] + even > row->heaviest)
            row->heaviest = w->btotal[i][k] + even;
}

char *dike_winprof_report(const dike_winprof *w)
{
    uint64_t ticks = dike_winprof_clock() - w->tick0;
    double s = ticks ? (dike_mono_seconds() - w->sec0) / (double)ticks : 0; /* seconds per tick */
    dike_winprof_row row;
    dike_winprof_get(w, -1, &row);
    double own = row.owner * s, home = row.home * s;
    double one = own + home + w->coord_s;
    size_t cap = 4096 + 160 * (size_t)w->np, n = 0;
    char *out = dike_xmalloc(cap);
    n += (size_t)snprintf(out + n, cap - n,
                          "  window bound (output.window_bound; docs/scaling.md): %llu windows, owner %.3f s, "
                          "home %.3f s (no rack: %.3f + %.3f s), coordinator %.3f s; rebalanced: blocks recut "
                          "every %u windows\n",
                          (unsigned long long)w->windows, own, home, (double)w->total_loose[0] * s,
                          (double)w->total_loose[1] * s, w->coord_s, w->every);
    n += (size_t)snprintf(out + n, cap - n, "    %6s %7s %9s %9s %9s %9s %8s %12s %9s %8s\n", "ranks",
                          "blocks", "owner_s", "home_s", "coord_s", "bound_s", "speedup", "heaviest_s",
                          "rebal_s", "rebal_x");
    n += (size_t)snprintf(out + n, cap - n, "    %6d %7d %9.3f %9.3f %9.3f %9.3f %8.2f %12.3f %9.3f %8.2f\n", 1,
                          1, own, home, w->coord_s, one, 1.0, own + home, one, 1.0);
    for (int p = 0; p < w->np; p++) {
        dike_winprof_get(w, p, &row);
        double o = row.owner * s, h = row.home * s, b = o + h + w->coord_s, heavy = row.heaviest;
        double rb = row.rebalanced * s + w->coord_s;
        n += (size_t)snprintf(out + n, cap - n, "    %6d %7d %9.3f %9.3f %9.3f %9.3f %8.2f %12.3f %9.3f %8.2f\n",
                              w->P[p], w->nblocks[p], o, h, w->coord_s, b, b > 0 ? one / b : 0, heavy * s, rb,
                              rb > 0 ? one / rb : 0);
    }
    return out;
}
