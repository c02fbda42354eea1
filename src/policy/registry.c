/* The list of policies: a new policy is one file and one line here. */
#include <string.h>
#include "policy/policy.h"

static const dike_policy *const all[] = {
    &dike_policy_fifo, &dike_policy_sjf,          &dike_policy_srtf, &dike_policy_las,
    &dike_policy_themis, &dike_policy_gandiva_fair, &dike_policy_drf,  &dike_policy_dike,
    NULL};

const dike_policy *const *dike_policy_all(void)
{
    return all;
}

const dike_policy *dike_policy_find(const char *name)
{
    for (size_t i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
