/* Layer probe (CMakeLists.txt here): code of the model layer that calls the engine, one layer above
 * it. The public header is on every layer's path, so this compiles; the link must fail with an
 * undefined reference to dike_sched_now, because dike_model links only the layers below it. */
#include <stddef.h>

#include "dike/sched.h"

int main(void)
{
    return (int)dike_sched_now(NULL);
}
