/* The list of policies: the built-in ones of DIKE_POLICY_LIST (policy/policy.h; a new policy is
 * one file and one line there, its configuration keys included: the policy's own option table,
 * dike_policy.options), then those registered at run time with dike_policy_register (a policy
 * that lives elsewhere, such as a test's example). */
#include <string.h>
#include "policy/policy.h"

/* Built-in policies, then the registered ones; NULL-terminated. */
#define MAX_REGISTERED 8
#define ONE(n) +1
#define ADDRESS(n) &dike_policy_##n,
enum { NBUILTIN = 0 DIKE_POLICY_LIST(ONE) };
static const dike_policy *all[] = {DIKE_POLICY_LIST(ADDRESS)[NBUILTIN + MAX_REGISTERED] = NULL};

/* Each policy's params struct starts at a multiple of this in dike_config.policy_params, so any
 * field type is aligned there (the array itself is _Alignas(16)). */
#define PARAMS_ALIGN 16

static size_t aligned(size_t n)
{
    return (n + PARAMS_ALIGN - 1) / PARAMS_ALIGN * PARAMS_ALIGN;
}

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

/* Params structs sit one after the other in list order, so the layout is a function of the list
 * alone: the config layer (which writes the values) and the policy (which reads them) agree. */
size_t dike_policy_params_offset(const dike_policy *p)
{
    size_t off = 0;
    for (size_t i = 0; all[i] && all[i] != p; i++)
        off += aligned(all[i]->params_size);
    if (off + p->params_size > DIKE_POLICY_PARAMS_BYTES)
        dike_fatal("policy '%s': its options end at byte %zu of dike_config.policy_params, which has "
                   "%d (raise DIKE_POLICY_PARAMS_BYTES)", p->name, off + p->params_size,
                   DIKE_POLICY_PARAMS_BYTES);
    return off;
}

const void *dike_policy_params(const dike_config *c, const dike_policy *p)
{
    return p->options ? c->policy_params + dike_policy_params_offset(p) : NULL;
}

int dike_policy_register(const dike_policy *p, dike_err *e)
{
    size_t n = 0, end = 0;
    for (; all[n]; n++)
        end += aligned(all[n]->params_size);
    if (!p->name || !*p->name || dike_policy_find(p->name))
        return dike_err_set(e, DIKE_EINVAL, "policy '%s': no name, or the name is taken",
                            p->name ? p->name : "");
    if (n + 1 >= sizeof all / sizeof all[0])
        return dike_err_set(e, DIKE_EINVAL, "policy '%s': the registry holds %d registered policies",
                            p->name, MAX_REGISTERED);
    if (end + p->params_size > DIKE_POLICY_PARAMS_BYTES)
        return dike_err_set(e, DIKE_EINVAL, "policy '%s': its options (%zu bytes) do not fit in "
                            "dike_config.policy_params (%zu of %d bytes free)", p->name,
                            p->params_size, DIKE_POLICY_PARAMS_BYTES - end, DIKE_POLICY_PARAMS_BYTES);
    all[n] = p;
    return 0;
}
