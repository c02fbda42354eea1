/* Internal to the emulating mode's node side (nodes.c, nodes_state.c): the state of one rank's
 * nodes and runs, shared by the owner and home steps (nodes.c) and by the checkpoint and the
 * relayout that move it as bytes (nodes_state.c). */
#ifndef DIKE_NODES_IMPL_H
#define DIKE_NODES_IMPL_H

#include "engine/nodes.h"
#include "engine/winprof.h"


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
    size_t sample_max;     /* samples of the block output.timeseries_max_gib holds */
    int samples_full;      /* the next sample would pass it (sample_until) */
    uint16_t *s_busy;
    float *s_factor;
    uint8_t *s_up;

    uint64_t events;
};

/* What nodes_state.c calls in nodes.c. Each is a wrapper of a static function there, so that the
 * owner and home steps keep their own inlined copies. */

/** dike_nodes_new; per_job = 0: without the per-job indices (run_of, grp_of), for the temporary
 *  objects of a relayout, which are many and use shared ones. */
dike_nodes *dike_nodes_impl_new(const dike_nodes_params *np, const dike_cluster *cl,
                                const dike_part_layout *l, int rank, dike_part *p, uint32_t njobs,
                                int per_job);
/** Rebuild the gang groups from the slots (after a resume or a relayout). */
void dike_nodes_impl_groups_rebuild(dike_nodes *ns);
/** Take the node samples due before @p t. */
void dike_nodes_impl_sample_until(dike_nodes *ns, dike_time t);
/** A free run index (the runs array grown if needed). */
uint32_t dike_nodes_impl_new_run(dike_nodes *ns);
/** Put run @p ri into the completion heap, or move it there, by its tc. */
void dike_nodes_impl_ch_update(dike_nodes *ns, uint32_t ri);
/** Restore the completion heap's order over all of its entries. */
void dike_nodes_impl_ch_heapify(dike_nodes *ns);

#endif
