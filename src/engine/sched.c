/* The API policies call (include/dike/sched.h): what the coordinator knows, and the two
 * things a policy may do, start a queued job and preempt a running one. Everything else the
 * coordinator does (events, accounting, node failures) is in coord.c. */
#include "engine/coord.h"

#include <math.h>
#include <string.h>

#include "dike/throughput.h"
#include "engine/nodes.h"
#include "placement/capacity.h"

dike_time dike_sched_now(const dike_sched *s) { return s->now; }
const dike_cluster *dike_sched_cluster(const dike_sched *s) { return s->cl; }
const dike_config *dike_sched_config(const dike_sched *s) { return s->cfg; }

uint64_t dike_sched_free_gpus(const dike_sched *s, int type)
{
    return type < 0 ? s->cap->total_free : s->cap->type_free[type];
}

uint64_t dike_sched_free_for(const dike_sched *s, const dike_job *j)
{
    if (j->spec->gpu_type >= 0)
        return s->cap->type_free[j->spec->gpu_type];
    uint64_t best = 0; /* a gang uses one GPU type: the largest free pool is what it can get */
    for (uint32_t t = 0; t < s->cl->ntypes; t++)
        if (s->cap->type_free[t] > best)
            best = s->cap->type_free[t];
    return best;
}

double dike_sched_remaining(const dike_sched *s, const dike_job *j)
{
    if (j->state != DIKE_JOB_RUNNING || s->now <= j->progress_start)
        return j->remaining;
    double left = j->remaining - (double)(s->now - j->progress_start) * j->rate;
    return left > 0 ? left : 0;
}

const dike_workload *dike_sched_workload(const dike_sched *s) { return s->w; }
const double *dike_sched_tenant_weights(const dike_sched *s) { return s->tenant_weight; }
int dike_sched_is_round(const dike_sched *s) { return s->round_now; }
uint32_t dike_sched_active(const dike_sched *s) { return s->active; }
uint64_t dike_sched_gpus_up(const dike_sched *s) { return s->cap->total_free + s->busy_gpus; }
uint64_t dike_sched_node_epoch(const dike_sched *s) { return s->node_epoch; }
int dike_sched_emulating(const dike_sched *s) { return s->emulate; }

/* Otherwise the coordinator predicts every completion, exactly as before the node models existed. */
int dike_sched_mode_emulating(const dike_config *cfg)
{
    if (strcmp(cfg->node_model_progress, "nodes") == 0)
        return 1;
    if (strcmp(cfg->node_model_progress, "coordinator") == 0)
        return 0;
    return cfg->node_model_interference > 0 || strcmp(cfg->node_model_network, "rack") == 0 ||
           cfg->node_model_slowdown_mtbf_s > 0 || cfg->scheduler_decision_latency_s > 0;
}

int dike_sched_work_known(const dike_sched *s, const dike_job *j)
{
    return !(s->emulate && s->stop_pending[j->idx]);
}

double dike_sched_attained_gpu_s(const dike_sched *s, const dike_job *j)
{
    double a = j->attained_gpu_s;
    if (j->state == DIKE_JOB_RUNNING && s->now > j->progress_start)
        a += j->spec->num_gpus * dike_time_to_s(s->now - j->progress_start);
    return a;
}

double dike_sched_rate_now(dike_sched *s, const dike_job *j)
{
    if (j->state == DIKE_JOB_RUNNING)
        return j->rate;
    /* A placement that reads only the gang's shape gives every queued job of that shape the same
     * answer until the free GPUs change: themis rates every fitting queued job at every fill. */
    uint32_t g = j->spec->num_gpus;
    int32_t want = j->spec->gpu_type;
    size_t slot = ((size_t)g * 7 + (size_t)(want + 1)) % (sizeof s->rate_cache / sizeof s->rate_cache[0]);
    if (s->plc->by_shape && s->rate_cache[slot].version == s->cap->version &&
        s->rate_cache[slot].g == g && s->rate_cache[slot].type == want)
        return s->rate_cache[slot].rate;
    uint32_t n = 0;
    int type = -1, level = 0;
    double rate = 0;
    if (dike_sched_free_for(s, j) >= g && s->plc->place(s->cap, j, s->scratch, &n, &type, &level))
        rate = dike_cluster_rate(s->cl, type, g, level);
    if (s->plc->by_shape) {
        s->rate_cache[slot].version = s->cap->version;
        s->rate_cache[slot].g = g;
        s->rate_cache[slot].type = want;
        s->rate_cache[slot].rate = rate;
    }
    return rate;
}

uint32_t dike_sched_node_free(const dike_sched *s, uint32_t node)
{
    return s->cap->down[node] ? 0 : s->cap->free[node];
}

double dike_sched_navg(const dike_sched *s, const dike_job *j)
{
    double area = s->area + (double)s->active * dike_time_to_s(s->now - s->area_t);
    double span = dike_time_to_s(s->now - j->spec->submit);
    return span > 0 ? (area - j->area_at_submit) / span : (double)s->active;
}

/* Does a placement at @p level on @p type slow @p j below its rate at its best reachable level? */
static int placement_slows(const dike_sched *s, const dike_job *j, int type, int level)
{
    uint32_t g = j->spec->num_gpus;
    int best = dike_cluster_best_level(s->cl, g);
    if (level <= best)
        return 0;
    return dike_tput_rate(s->cl, s->w, j->spec->model, type, g, level) <
           dike_tput_rate(s->cl, s->w, j->spec->model, type, g, best);
}

static int sched_start(dike_sched *s, dike_job *j, int local_only)
{
    if (j->state != DIKE_JOB_QUEUED)
        dike_fatal("policy %s started job %u in state %u", s->pol->name, j->idx, j->state);
    if (s->emulate && s->stop_pending[j->idx])
        return 0; /* its last run has not stopped on the nodes yet: its work left is not known */
    uint32_t g = j->spec->num_gpus;
    if (dike_sched_free_for(s, j) < g)
        return 0;
    uint32_t n = 0;
    int type = -1, level = 0;
    if (!s->plc->place(s->cap, j, s->scratch, &n, &type, &level))
        return 0;
    /* placing wrote only scratch: declining now leaves nothing to undo */
    if (local_only && placement_slows(s, j, type, level))
        return 0;
    memcpy(j->slices, s->scratch, n * sizeof *j->slices);
    j->nslices = n;
    j->placed_n = n;
    int resume = j->first_start >= 0;
    if (resume && dike_coord_node_set_sig(j->slices, n) != j->last_sig) {
        j->migrations++;
        s->migrations++;
    }
    j->run_start = s->now;
    /* Checkpoint + restore is paid on every resume with the GPUs held (SPEC §2); in the emulating
     * mode the run begins when the start reaches the nodes. */
    j->progress_start = s->now + s->latency_us + (resume ? s->preempt_cost_us : 0);
    j->type = (int8_t)type;
    j->level = (uint8_t)level;
    j->rate = dike_tput_rate(s->cl, s->w, j->spec->model, type, g, level);
    j->finish = j->progress_start + (dike_time)ceil(j->remaining / j->rate);
    if (j->finish <= s->now)
        j->finish = s->now + 1;
    if (!resume)
        j->first_start = s->now;
    for (uint32_t i = 0; i < n; i++) {
        dike_capacity_take(s->cap, j->slices[i].node, j->slices[i].gpus);
        if (s->emulate)
            dike_coord_add_nact(s, DIKE_ACT_START, j, i, 0);
        else
            dike_coord_add_action(s, DIKE_ACT_START, j, &j->slices[i]);
    }
    j->state = DIKE_JOB_RUNNING;
    s->queued--;
    s->running++;
    s->busy_gpus += g;
    s->tenant_gpus[j->spec->tenant] += g;
    /* In the emulating mode j->finish stays an estimate: the completion comes from the home. */
    if (!s->emulate)
        dike_coord_push_event(s, j->finish, DIKE_PHASE_RELEASE, DIKE_EV_JOB_FINISH, j->idx, j->seq++,
                               j->epoch);
    return 1;
}

int dike_sched_start(dike_sched *s, dike_job *j)
{
    return sched_start(s, j, 0);
}

int dike_sched_start_local(dike_sched *s, dike_job *j)
{
    return sched_start(s, j, 1);
}

void dike_sched_preempt(dike_sched *s, dike_job *j)
{
    if (j->state != DIKE_JOB_RUNNING)
        dike_fatal("policy %s preempted job %u in state %u", s->pol->name, j->idx, j->state);
    j->remaining = dike_sched_remaining(s, j);
    if (j->remaining <= 0)
        j->remaining = 1; /* cannot happen (its finish would have come first); stay positive */
    if (s->now > j->progress_start)
        dike_coord_progress(s); /* a preempted run keeps all of its work */
    else if (++s->idle_preempts >= s->livelock_preempts)
        dike_fatal("policy %s preempted %llu runs in a row before any of them did work, and no job "
                   "finished since %.0f s: a livelock in the policy (a bug: please report it with the "
                   "configuration)", s->pol->name, (unsigned long long)s->idle_preempts,
                   dike_time_to_s(s->progress_t));
    dike_coord_release(s, j, DIKE_STOP_PREEMPT);
    if (s->emulate)
        s->stop_pending[j->idx] = 1; /* the home reports the true work left L later */
    j->last_sig = dike_coord_node_set_sig(j->slices, j->nslices);
    j->nslices = 0;
    j->epoch++; /* its finish event is now stale */
    j->preemptions++;
    s->preemptions++;
    j->rate = 0;
    j->state = DIKE_JOB_QUEUED;
    s->queued++;
}
