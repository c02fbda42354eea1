/* The list of placement strategies: a new strategy is one file and one line here. */
#include <string.h>
#include "placement/placement.h"

static const dike_placement *const all[] = {&dike_placement_pack, &dike_placement_spread,
                                            &dike_placement_random, &dike_placement_topo, NULL};

const dike_placement *const *dike_placement_all(void)
{
    return all;
}

const dike_placement *dike_placement_find(const char *name)
{
    for (size_t i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
