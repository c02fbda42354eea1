/* The list of placement strategies: the built-in ones of DIKE_PLACEMENT_LIST
 * (placement/placement.h; a new strategy is one file and one line there, its configuration keys
 * included: dike_placement.options, whose values place() finds in cap->params), then those
 * registered at run time with dike_placement_register. */
#include <string.h>
#include "placement/placement.h"

/* Built-in strategies, then the registered ones; NULL-terminated. */
#define MAX_REGISTERED 8
#define ONE(n) +1
#define ADDRESS(n) &dike_placement_##n,
enum { NBUILTIN = 0 DIKE_PLACEMENT_LIST(ONE) };
static const dike_placement *all[] = {DIKE_PLACEMENT_LIST(ADDRESS)[NBUILTIN + MAX_REGISTERED] = NULL};

/* Params structs start at multiples of this in dike_config.placement_params (_Alignas(16)). */
#define PARAMS_ALIGN 16

static size_t aligned(size_t n)
{
    return (n + PARAMS_ALIGN - 1) / PARAMS_ALIGN * PARAMS_ALIGN;
}

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

/* In list order, like the policies' (src/policy/registry.c). */
size_t dike_placement_params_offset(const dike_placement *p)
{
    size_t off = 0;
    for (size_t i = 0; all[i] && all[i] != p; i++)
        off += aligned(all[i]->params_size);
    if (off + p->params_size > DIKE_PLACEMENT_PARAMS_BYTES)
        dike_fatal("placement '%s': its options end at byte %zu of dike_config.placement_params, "
                   "which has %d (raise DIKE_PLACEMENT_PARAMS_BYTES)", p->name,
                   off + p->params_size, DIKE_PLACEMENT_PARAMS_BYTES);
    return off;
}

const void *dike_placement_params(const dike_config *c, const dike_placement *p)
{
    return p->options ? c->placement_params + dike_placement_params_offset(p) : NULL;
}

int dike_placement_register(const dike_placement *p, dike_err *e)
{
    size_t n = 0, end = 0;
    for (; all[n]; n++)
        end += aligned(all[n]->params_size);
    if (!p->name || !*p->name || dike_placement_find(p->name))
        return dike_err_set(e, DIKE_EINVAL, "placement '%s': no name, or the name is taken",
                            p->name ? p->name : "");
    if (n + 1 >= sizeof all / sizeof all[0])
        return dike_err_set(e, DIKE_EINVAL, "placement '%s': the registry holds %d registered "
                            "placements", p->name, MAX_REGISTERED);
    if (end + p->params_size > DIKE_PLACEMENT_PARAMS_BYTES)
        return dike_err_set(e, DIKE_EINVAL, "placement '%s': its options (%zu bytes) do not fit "
                            "(%zu of %d bytes free)", p->name, p->params_size,
                            DIKE_PLACEMENT_PARAMS_BYTES - end, DIKE_PLACEMENT_PARAMS_BYTES);
    all[n] = p;
    return 0;
}
