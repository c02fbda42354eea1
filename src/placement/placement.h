/* Placement registry (internal): one extern per strategy file. */
#ifndef DIKE_PLACEMENT_INTERNAL_H
#define DIKE_PLACEMENT_INTERNAL_H
#include "dike/sched.h"
extern const dike_placement dike_placement_pack;
extern const dike_placement dike_placement_spread;
extern const dike_placement dike_placement_random;
extern const dike_placement dike_placement_topo;
#endif
