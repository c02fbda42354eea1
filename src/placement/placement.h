/* Placement registry (internal). */
#ifndef DIKE_PLACEMENT_INTERNAL_H
#define DIKE_PLACEMENT_INTERNAL_H
#include "dike/sched.h"

/* The built-in placement strategies, in registry order: X(name) stands for
 * `const dike_placement dike_placement_<name>`, defined in src/placement/<name>.c. A new strategy
 * is its file and one X(...) here, its keys included. */
#define DIKE_PLACEMENT_LIST(X) \
    X(pack)                    \
    X(spread)                  \
    X(random)                  \
    X(topo)                    \
    X(tree)

#define DIKE_PLACEMENT_EXTERN(n) extern const dike_placement dike_placement_##n;
DIKE_PLACEMENT_LIST(DIKE_PLACEMENT_EXTERN)
#undef DIKE_PLACEMENT_EXTERN
#endif
