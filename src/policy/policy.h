/* Policy registry (internal): one extern per policy file. */
#ifndef DIKE_POLICY_INTERNAL_H
#define DIKE_POLICY_INTERNAL_H
#include <stdlib.h>
#include "dike/sched.h"
extern const dike_policy dike_policy_fifo;
extern const dike_policy dike_policy_sjf;
extern const dike_policy dike_policy_srtf;
extern const dike_policy dike_policy_las;
extern const dike_policy dike_policy_themis;
extern const dike_policy dike_policy_gandiva_fair;
extern const dike_policy dike_policy_drf;
extern const dike_policy dike_policy_dike;
#endif
