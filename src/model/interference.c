/* Co-location interference (docs/models.md#interference).
 *
 * Each other job on a shared node stretches a job's step time by alpha (Gandiva and the Philly
 * analysis report slowdowns of co-located training jobs from a few percent to tens of percent, by
 * model pair). The stretch adds up per neighbour, so the speed is 1 / (1 + alpha x neighbours):
 * with alpha = 0.2, one neighbour makes a 100 s job take 120 s. */
#include "dike/nodemodel.h"

double dike_interference_factor(double alpha, uint32_t neighbours)
{
    return 1.0 / (1.0 + alpha * (double)neighbours);
}
