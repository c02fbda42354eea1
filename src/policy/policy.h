/* Policy registry (internal): one extern per policy file. */
#ifndef DIKE_POLICY_INTERNAL_H
#define DIKE_POLICY_INTERNAL_H
#include <stdlib.h>
#include "dike/sched.h"
extern const dike_policy dike_policy_fifo;
extern const dike_policy dike_policy_sjf;
extern const dike_policy dike_policy_srtf;
#endif
