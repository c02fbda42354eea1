/* Queued jobs by a bound on rho_hat (policy/rhoindex.h). */
#include "policy/rhoindex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/rankwalk.h"
#include "policy/rho.h"

#define NONE UINT32_MAX
#define TYPES (DIKE_MAX_GPU_TYPES + 1) /* a job's GPU type constraint + 1 */
#define DRIFT (1.0 / 16)               /* rekey once the spread of u moved a bound this far in z */

struct dike_rhobucket {
    dike_job **h;           /**< members, a max-heap by kappa */
    uint32_t n, cap;
    double t0;              /**< kappa's reference time, s */
    double umin, umax;      /**< 1/T of the members since t0 (1/s) */
    double phimin, phimax;  /**< R/T of the members since t0 */
    uint32_t size;          /**< gang size index (jobsets sizes) */
    uint32_t cls;           /**< size * TYPES + GPU type + 1 */
    uint8_t grp;            /**< 0: behind, 1: the others */
    uint8_t kind;           /**< LINES, or FRESH: one tenant's jobs within their estimate */
    uint32_t tenant;        /**< FRESH: whose */
    double dmin, dmax;      /**< FRESH: work done by the members (s) since it was last empty */
    uint32_t lpos;          /**< its slot in its gang size's list of non-empty buckets */
};

/* Under `none` a queued job that has done less work d than its tenant's estimate E is judged by
 * T = E and R = E - d (at least the floor): rho_hat x M = (t + E/r - (submit + d/r)) / E, whose
 * order inside one tenant does not move with t or E. Those jobs wait in FRESH buckets, one per
 * tenant, shape and group, by submit + d (kappa = -(submit + d)); the bound reads E now. A job
 * past its estimate (d >= E) is judged by T = 2d and R = d, E aside, and waits in the LINES
 * buckets as under the oracle. When a tenant's estimate moves, the jobs it passes change sides
 * (each tenant keeps its jobs by d on either side). */
enum { LINES = 0, FRESH = 1 };

/* per tenant (none): its jobs by work done, within the estimate (most first) and past it (least
 * first) */
struct dike_rhoside {
    dike_job **h;
    uint32_t n, cap;
};
typedef struct dike_rhoside dside;

/* ---- heaps of jobs ----
 * A bucket keeps its members by kappa, largest first; a tenant's side (none) its jobs by work
 * done, largest first within the estimate and smallest first past it. One heap serves both: the
 * jobs in @p h, ordered by sign x key[idx], each one's slot kept in pos[idx]. */

static void jh_set(dike_job **h, uint32_t *pos, uint32_t i, dike_job *j)
{
    h[i] = j;
    pos[j->idx] = i;
}

static void jh_up(dike_job **h, uint32_t i, const double *key, uint32_t *pos, double sign)
{
    dike_job *j = h[i];
    double k = sign * key[j->idx];
    while (i > 0 && sign * key[h[(i - 1) / 2]->idx] < k) {
        jh_set(h, pos, i, h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    jh_set(h, pos, i, j);
}

static void jh_down(dike_job **h, uint32_t n, uint32_t i, const double *key, uint32_t *pos,
                    double sign)
{
    dike_job *j = h[i];
    double k = sign * key[j->idx];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && sign * key[h[c + 1]->idx] > sign * key[h[c]->idx])
            c++;
        if (sign * key[h[c]->idx] <= k)
            break;
        jh_set(h, pos, i, h[c]);
        i = c;
    }
    jh_set(h, pos, i, j);
}

/* Take @p j out of the heap of *@p n jobs. */
static void jh_remove(dike_job **h, uint32_t *n, dike_job *j, const double *key, uint32_t *pos,
                      double sign)
{
    uint32_t i = pos[j->idx];
    dike_job *last = h[--*n];
    if (i < *n) {
        jh_set(h, pos, i, last);
        jh_up(h, i, key, pos, sign);
        jh_down(h, *n, pos[last->idx], key, pos, sign);
    }
}

static void jh_heapify(dike_job **h, uint32_t n, const double *key, uint32_t *pos, double sign)
{
    for (uint32_t i = n / 2; i-- > 0;)
        jh_down(h, n, i, key, pos, sign);
}

/* ---- a job's place ---- */

typedef struct shape {
    double u, phi; /* 1/T (1/s), R/T */
    double submit; /* s */
} shape;

static shape shape_of(dike_sched *s, const dike_job *j)
{
    double T = dike_sched_est_total(s, j), R = dike_sched_est_remaining(s, j);
    shape sh = {1e6 / T, R / T, dike_time_to_s(j->spec->submit)};
    return sh;
}

static uint64_t bucket_key(uint32_t cls, int grp, double u, double phi)
{
    int e;
    double m = frexp(1.0 / u, &e); /* T = m 2^e, m in [0.5, 1): four buckets per octave */
    int q = m < 0.5946035575013605 ? 0 : m < 0.7071067811865476 ? 1 : m < 0.8408964152537145 ? 2 : 3;
    int ub = 4 * e + q + 4096;
    if (ub < 0)
        ub = 0;
    if (ub > 8191)
        ub = 8191;
    int fb = phi >= 1 ? (phi == 1 ? 16 : 17) : (int)(phi * 16);
    return ((((uint64_t)cls * 2 + (uint64_t)grp) * 8192 + (uint64_t)ub) * 32 + (uint64_t)fb) + 1;
}

static void hash_grow(dike_rhoindex *x);

static uint32_t bucket_for(dike_rhoindex *x, uint32_t size, uint32_t cls, int grp, uint64_t key)
{
    if (2 * (x->nb + 1) > x->hcap)
        hash_grow(x);
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (x->hcap - 1);
    while (x->hkey[i]) {
        if (x->hkey[i] == key)
            return x->hval[i];
        i = (i + 1) & (x->hcap - 1);
    }
    if (x->nb == x->capb) {
        x->capb = x->capb ? 2 * x->capb : 64;
        x->b = dike_xrealloc(x->b, x->capb * sizeof *x->b);
        x->bub = dike_xrealloc(x->bub, x->capb * sizeof *x->bub);
        x->bh = dike_xrealloc(x->bh, x->capb * sizeof *x->bh);
    }
    uint32_t id = x->nb++;
    dike_rhobucket *b = &x->b[id];
    memset(b, 0, sizeof *b);
    b->size = size;
    b->cls = cls;
    b->grp = (uint8_t)grp;
    b->umin = b->phimin = INFINITY;
    b->umax = b->phimax = -INFINITY;
    x->hkey[i] = key;
    x->hval[i] = id;
    return id;
}

static void hash_grow(dike_rhoindex *x)
{
    uint32_t old = x->hcap;
    uint64_t *ok = x->hkey;
    uint32_t *ov = x->hval;
    x->hcap = old ? 2 * old : 256;
    x->hkey = dike_xcalloc(x->hcap, sizeof *x->hkey);
    x->hval = dike_xmalloc(x->hcap * sizeof *x->hval);
    for (uint32_t k = 0; k < old; k++)
        if (ok[k]) {
            uint32_t i = (uint32_t)((ok[k] * 0x9E3779B97F4A7C15ull) >> 32) & (x->hcap - 1);
            while (x->hkey[i])
                i = (i + 1) & (x->hcap - 1);
            x->hkey[i] = ok[k];
            x->hval[i] = ov[k];
        }
    free(ok);
    free(ov);
}

static uint32_t size_index(const dike_jobsets *js, uint32_t g)
{
    uint32_t lo = 0, hi = js->nsizes;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (js->sizes[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void widen(dike_rhobucket *b, const shape *sh)
{
    if (sh->u < b->umin)
        b->umin = sh->u;
    if (sh->u > b->umax)
        b->umax = sh->u;
    if (sh->phi < b->phimin)
        b->phimin = sh->phi;
    if (sh->phi > b->phimax)
        b->phimax = sh->phi;
}

/* ---- per tenant, its jobs by work done (none) ---- */

#define SIGN(past) ((past) ? -1.0 : 1.0) /* a side's order: past its estimate, least done first */

static void d_push(dike_rhoindex *x, dside *h, int past, dike_job *j)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->h = dike_xrealloc(h->h, h->cap * sizeof *h->h);
    }
    h->h[h->n] = j;
    x->dpos[j->idx] = h->n++;
    if (!x->bulk) /* dike_rhoindex_build orders every side at the end */
        jh_up(h->h, h->n - 1, x->done, x->dpos, SIGN(past));
}

static dside *side(dike_rhoindex *x, uint32_t tenant, int past)
{
    return &x->sides[2 * (size_t)tenant + (size_t)past];
}

/* The non-empty buckets of each gang size, which a fill reads. */
static void live_add(dike_rhoindex *x, uint32_t id)
{
    uint32_t sz = x->b[id].size;
    if (x->nlive[sz] == x->caplive[sz]) {
        x->caplive[sz] = x->caplive[sz] ? 2 * x->caplive[sz] : 16;
        x->live[sz] = dike_xrealloc(x->live[sz], x->caplive[sz] * sizeof *x->live[sz]);
    }
    x->b[id].lpos = x->nlive[sz];
    x->live[sz][x->nlive[sz]++] = id;
}

static void live_del(dike_rhoindex *x, uint32_t id)
{
    uint32_t sz = x->b[id].size, i = x->b[id].lpos, last = x->live[sz][--x->nlive[sz]];
    x->live[sz][i] = last;
    x->b[last].lpos = i;
}

static void push_member(dike_rhoindex *x, dike_rhobucket *b, dike_job *j, int grp, uint32_t id)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->h = dike_xrealloc(b->h, b->cap * sizeof *b->h);
    }
    if (b->n == 0)
        live_add(x, id);
    x->bucket_of[j->idx] = id;
    x->grp[j->idx] = (uint8_t)grp;
    b->h[b->n] = j;
    x->pos[j->idx] = b->n++;
    if (!x->bulk) /* dike_rhoindex_build orders every bucket at the end */
        jh_up(b->h, b->n - 1, x->kappa, x->pos, 1);
}

/* A job within its estimate (none): its tenant's FRESH bucket. */
static void insert_fresh(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp, double done_us)
{
    uint32_t size = size_index(x->js, j->spec->num_gpus);
    uint32_t cls = size * TYPES + (uint32_t)(j->spec->gpu_type + 1);
    uint32_t t = j->spec->tenant;
    uint64_t key = (1ull << 63) | ((uint64_t)(cls * 2 + (uint32_t)grp) << 32) | t;
    uint32_t id = bucket_for(x, size, cls, grp, key);
    dike_rhobucket *b = &x->b[id];
    b->kind = FRESH;
    b->tenant = t;
    double d = done_us / 1e6;
    if (b->n == 0) {
        b->dmin = INFINITY;
        b->dmax = -INFINITY;
    }
    if (d < b->dmin)
        b->dmin = d;
    if (d > b->dmax)
        b->dmax = d;
    x->kappa[j->idx] = -(dike_time_to_s(j->spec->submit) + d);
    push_member(x, b, j, grp, id);
    (void)s;
}

static void insert_lines(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp);

static void insert(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp)
{
    if (!x->none) {
        insert_lines(x, s, j, grp);
        return;
    }
    double done = dike_sched_done_work(s, j), est = dike_sched_est_duration(s, j);
    int past = done >= est; /* as dike_sched_est_total and _est_remaining judge it */
    x->done[j->idx] = done;
    if (past)
        insert_lines(x, s, j, grp);
    else
        insert_fresh(x, s, j, grp, done);
    d_push(x, side(x, j->spec->tenant, past), past, j);
}

static void insert_lines(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp)
{
    shape sh = shape_of(s, j);
    uint32_t size = size_index(x->js, j->spec->num_gpus);
    uint32_t cls = size * TYPES + (uint32_t)(j->spec->gpu_type + 1);
    uint32_t id = bucket_for(x, size, cls, grp, bucket_key(cls, grp, sh.u, sh.phi));
    dike_rhobucket *b = &x->b[id];
    if (b->n == 0) {
        b->t0 = dike_time_to_s(dike_sched_now(s));
        b->umin = b->phimin = INFINITY;
        b->umax = b->phimax = -INFINITY;
    }
    widen(b, &sh);
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->h = dike_xrealloc(b->h, b->cap * sizeof *b->h);
    }
    b->kind = LINES;
    x->kappa[j->idx] = (b->t0 - sh.submit) * sh.u + sh.phi;
    push_member(x, b, j, grp, id);
}

static void take_out(dike_rhoindex *x, dike_job *j)
{
    uint32_t idx = j->idx;
    dike_rhobucket *b = &x->b[x->bucket_of[idx]];
    if (x->none) {
        int past = b->kind == LINES;
        dside *h = side(x, j->spec->tenant, past);
        jh_remove(h->h, &h->n, j, x->done, x->dpos, SIGN(past));
    }
    x->bucket_of[idx] = NONE;
    jh_remove(b->h, &b->n, j, x->kappa, x->pos, 1);
    if (b->n == 0)
        live_del(x, (uint32_t)(b - x->b));
}

/* Tenant @p t's estimate moved (none): the jobs it passed change sides. */
static void resync(dike_rhoindex *x, dike_sched *s, uint32_t t)
{
    dside *in = side(x, t, 0), *past = side(x, t, 1);
    dike_job *any = in->n ? in->h[0] : past->n ? past->h[0] : NULL;
    if (!any)
        return;
    double est = dike_sched_est_duration(s, any);
    while (in->n && x->done[in->h[0]->idx] >= est) {
        dike_job *j = in->h[0];
        int grp = x->grp[j->idx];
        take_out(x, j);
        insert(x, s, j, grp);
    }
    while (past->n && x->done[past->h[0]->idx] < est) {
        dike_job *j = past->h[0];
        int grp = x->grp[j->idx];
        take_out(x, j);
        insert(x, s, j, grp);
    }
}

/* Every member's kappa again at t0 = now, and the ranges of the members only. */
static void rekey(dike_rhoindex *x, dike_sched *s, dike_rhobucket *b)
{
    b->t0 = dike_time_to_s(dike_sched_now(s));
    b->umin = b->phimin = INFINITY;
    b->umax = b->phimax = -INFINITY;
    for (uint32_t i = 0; i < b->n; i++) {
        dike_job *j = b->h[i];
        shape sh = shape_of(s, j);
        widen(b, &sh);
        x->kappa[j->idx] = (b->t0 - sh.submit) * sh.u + sh.phi;
    }
    jh_heapify(b->h, b->n, x->kappa, x->pos, 1);
}

/* ---- the index ---- */

void dike_rhoindex_init(dike_rhoindex *x, dike_sched *s, const dike_jobsets *js)
{
    const dike_workload *w = dike_sched_workload(s);
    memset(x, 0, sizeof *x);
    x->js = js;
    size_t n = w->njobs + 1;
    x->none = dike_sched_duration_knowledge(s) == DIKE_DURATION_NONE;
    if (x->none) {
        x->ntenants = w->ntenants;
        x->done = dike_xmalloc(n * sizeof *x->done);
        x->dpos = dike_xmalloc(n * sizeof *x->dpos);
        x->sides = dike_xcalloc(2 * (size_t)w->ntenants + 2, sizeof *x->sides);
        x->tver = dike_xcalloc((size_t)w->ntenants + 1, sizeof *x->tver);
    }
    x->bucket_of = dike_xmalloc(n * sizeof *x->bucket_of);
    memset(x->bucket_of, 0xff, n * sizeof *x->bucket_of);
    x->pos = dike_xmalloc(n * sizeof *x->pos);
    x->kappa = dike_xmalloc(n * sizeof *x->kappa);
    x->grp = dike_xcalloc(n, 1);
    x->live = dike_xcalloc(js->nsizes + 1, sizeof *x->live);
    x->nlive = dike_xcalloc(js->nsizes + 1, sizeof *x->nlive);
    x->caplive = dike_xcalloc(js->nsizes + 1, sizeof *x->caplive);
    x->rate = dike_xmalloc(((size_t)js->nsizes + 1) * TYPES * sizeof *x->rate);
    x->scale = dike_xmalloc(((size_t)js->nsizes + 1) * sizeof *x->scale);
}

void dike_rhoindex_free(dike_rhoindex *x)
{
    for (uint32_t i = 0; i < x->nb; i++)
        free(x->b[i].h);
    free(x->b);
    free(x->bub);
    free(x->bh);
    free(x->hkey);
    free(x->hval);
    free(x->bucket_of);
    free(x->pos);
    free(x->kappa);
    free(x->grp);
    for (uint32_t sz = 0; sz < x->js->nsizes; sz++)
        free(x->live[sz]);
    free(x->live);
    free(x->nlive);
    free(x->caplive);
    free(x->pool);
    free(x->out);
    free(x->rate);
    free(x->scale);
    if (x->sides)
        for (size_t i = 0; i < 2 * (size_t)x->ntenants; i++)
            free(x->sides[i].h);
    free(x->sides);
    free(x->done);
    free(x->dpos);
    free(x->tver);
    memset(x, 0, sizeof *x);
}

void dike_rhoindex_invalidate(dike_rhoindex *x)
{
    if (!x->valid)
        return;
    for (uint32_t i = 0; i < x->nb; i++) {
        dike_rhobucket *b = &x->b[i];
        for (uint32_t k = 0; k < b->n; k++)
            x->bucket_of[b->h[k]->idx] = NONE;
        b->n = 0;
    }
    if (x->sides)
        for (size_t i = 0; i < 2 * (size_t)x->ntenants; i++)
            x->sides[i].n = 0;
    for (uint32_t sz = 0; sz < x->js->nsizes; sz++)
        x->nlive[sz] = 0;
    x->valid = 0;
}

void dike_rhoindex_build(dike_rhoindex *x, dike_sched *s, const uint8_t *group)
{
    dike_rhoindex_invalidate(x);
    x->valid = 1;
    for (uint32_t t = 0; t < x->ntenants; t++)
        x->tver[t] = dike_sched_est_version(s, t);
    x->bulk = 1;
    for (uint32_t sz = 0; sz < x->js->nsizes; sz++) {
        const dike_jobset *l = &x->js->queued[sz];
        for (size_t i = 0; i < l->n; i++)
            insert(x, s, l->jobs[i], group[l->jobs[i]->spec->tenant] ? 0 : 1);
    }
    x->bulk = 0;
    for (uint32_t sz = 0; sz < x->js->nsizes; sz++) /* heapify: O(n) */
        for (uint32_t k = 0; k < x->nlive[sz]; k++) {
            dike_rhobucket *b = &x->b[x->live[sz][k]];
            jh_heapify(b->h, b->n, x->kappa, x->pos, 1);
        }
    for (size_t i = 0; i < 2 * (size_t)x->ntenants; i++)
        jh_heapify(x->sides[i].h, x->sides[i].n, x->done, x->dpos, SIGN(i & 1));
}

void dike_rhoindex_add(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp)
{
    if (x->valid && x->bucket_of[j->idx] == NONE)
        insert(x, s, j, grp);
}

void dike_rhoindex_remove(dike_rhoindex *x, dike_job *j)
{
    if (x->valid && x->bucket_of[j->idx] != NONE)
        take_out(x, j);
}

/* ---- one fill ---- */

/* The least key any member of bucket @p id can have this fill (its top's bound). */
static double bucket_bound(dike_rhoindex *x, dike_sched *s, uint32_t id)
{
    dike_rhobucket *b = &x->b[id];
    double now = dike_time_to_s(dike_sched_now(s));
    double rho; /* at least every member's rho_hat this fill */
    if (b->kind == FRESH) {
        /* rho_hat x M = (now - submit + R/r) / E with R = max(E - d, floor): at most
         * (now + E/r - (submit + d/r) + floor/r) / E, and submit + d/r >= -kappa + d (1/r - 1) */
        double E = dike_sched_est_duration(s, b->h[0]) / 1e6, inv = 1.0 / x->rate[b->cls];
        double k = -x->kappa[b->h[0]->idx];
        double w = k + (inv >= 1 ? b->dmin : b->dmax) * (inv - 1);
        double z = now + E * inv - w + DIKE_EST_REMAINING_FLOOR_US / 1e6 * inv;
        z += 1e-9 * (fabs(now) + E * inv + fabs(w) + inv + 1);
        rho = z / E / x->scale[b->size];
        rho += 1e-9 * fabs(rho);
    } else {
        double dt = now - b->t0;
        if ((b->umax - b->umin) * dt > DRIFT) {
            rekey(x, s, b);
            dt = 0;
        }
        double inv = 1.0 / x->rate[b->cls];
        double k = x->kappa[b->h[0]->idx];
        double z = k + b->umax * dt + (inv >= 1 ? b->phimax : b->phimin) * (inv - 1);
        z += 1e-9 * (fabs(k) + b->umax * dt + b->phimax * inv + 1);
        rho = z / x->scale[b->size];
    }
    /* the key falls as rho_hat rises: the bound's key is the least; 1/rho rounds, hence the margin */
    int first = x->merged || b->grp == 0;
    double key = dike_rho_key(rho, first);
    return first ? key : key * (1 - 1e-12);
}

static void pool_push(dike_rhoindex *x, dike_ranked e)
{
    if (x->npool == x->cappool) {
        x->cappool = x->cappool ? 2 * x->cappool : 64;
        x->pool = dike_xrealloc(x->pool, x->cappool * sizeof *x->pool);
    }
    x->pool[x->npool] = e;
    dike_ranked_sift_up(x->pool, x->npool++);
}

static dike_ranked pool_pop(dike_rhoindex *x)
{
    dike_ranked top = x->pool[0];
    x->pool[0] = x->pool[--x->npool];
    dike_ranked_sift_down(x->pool, x->npool, 0);
    return top;
}

/* buckets by bound: a min-heap of bucket ids by bub */
static void bh_down(dike_rhoindex *x, uint32_t i)
{
    uint32_t id = x->bh[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= x->nbh)
            break;
        if (c + 1 < x->nbh && x->bub[x->bh[c + 1]] < x->bub[x->bh[c]])
            c++;
        if (x->bub[x->bh[c]] >= x->bub[id])
            break;
        x->bh[i] = x->bh[c];
        i = c;
    }
    x->bh[i] = id;
}

static void out_push(dike_rhoindex *x, dike_job *j)
{
    if (x->nout == x->capout) {
        x->capout = x->capout ? 2 * x->capout : 64;
        x->out = dike_xrealloc(x->out, x->capout * sizeof *x->out);
    }
    x->out[x->nout++] = j;
}

void dike_rhoindex_begin(dike_rhoindex *x, dike_sched *s, uint64_t fit, int merged)
{
    x->merged = merged;
    x->npool = x->nout = x->nbh = 0;
    for (uint32_t t = 0; t < x->ntenants; t++) /* none: estimates that moved */
        if (x->sides[2 * t].n + x->sides[2 * t + 1].n) {
            uint64_t v = dike_sched_est_version(s, t);
            if (v != x->tver[t]) {
                x->tver[t] = v;
                resync(x, s, t);
            }
        }
    double n = (double)dike_sched_active(s), G = (double)dike_sched_gpus_up(s);
    for (uint32_t sz = 0; sz < x->js->nsizes && x->js->sizes[sz] <= fit; sz++) {
        double share = (double)x->js->sizes[sz] * n / G;
        x->scale[sz] = share > 1 ? share : 1;
        for (uint32_t t = 0; t < TYPES; t++)
            x->rate[sz * TYPES + t] = 0; /* not yet asked */
        for (uint32_t k = 0; k < x->nlive[sz]; k++) {
            uint32_t id = x->live[sz][k];
            dike_rhobucket *b = &x->b[id];
            if (x->rate[b->cls] == 0) { /* the rate every job of this shape gets now */
                double r = dike_sched_rate_now(s, b->h[0]);
                x->rate[b->cls] = r > 0 ? r : 1.0;
            }
            x->bub[id] = bucket_bound(x, s, id);
            x->bh[x->nbh++] = id;
        }
    }
    for (uint32_t i = x->nbh / 2; i-- > 0;)
        bh_down(x, i);
}

dike_job *dike_rhoindex_next(dike_rhoindex *x, dike_sched *s, uint64_t budget)
{
    for (;;) {
        /* drop what cannot fit any more: the budget only shrinks during a fill */
        while (x->npool && x->pool[0].job->spec->num_gpus > budget)
            out_push(x, pool_pop(x).job);
        if (x->nbh == 0)
            break;
        uint32_t id = x->bh[0];
        dike_rhobucket *b = &x->b[id];
        if (x->js->sizes[b->size] > budget || b->n == 0) {
            x->bh[0] = x->bh[--x->nbh];
            if (x->nbh)
                bh_down(x, 0);
            continue;
        }
        if (x->npool && x->bub[id] > x->pool[0].key)
            break; /* no bucket can beat the best rated job */
        dike_job *j = b->h[0];
        take_out(x, j);
        double rho = dike_rho_hat_at(s, j, x->rate[b->cls]);
        dike_ranked e = {dike_rho_key(rho, x->merged || b->grp == 0), j};
        pool_push(x, e);
        if (b->n) {
            x->bub[id] = bucket_bound(x, s, id);
        } else {
            x->bh[0] = x->bh[--x->nbh];
            if (x->nbh == 0)
                continue;
        }
        bh_down(x, 0);
    }
    if (x->npool == 0)
        return NULL;
    dike_job *j = pool_pop(x).job;
    out_push(x, j);
    return j;
}

void dike_rhoindex_end(dike_rhoindex *x, dike_sched *s)
{
    while (x->npool)
        out_push(x, pool_pop(x).job);
    for (size_t i = 0; i < x->nout; i++) {
        dike_job *j = x->out[i];
        if (j->state == DIKE_JOB_QUEUED && x->bucket_of[j->idx] == NONE)
            insert(x, s, j, x->grp[j->idx]);
    }
    x->nout = 0;
}
