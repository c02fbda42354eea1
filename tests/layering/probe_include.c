/* Layer probe (CMakeLists.txt here): code of the model layer that includes an internal header of
 * the engine, one layer above it. The engine's folder is on the include path only of the engine
 * and the layers above it, so this must fail to compile: engine/coord.h is not found. */
#include "engine/coord.h"

int dike_probe_include(void);

int dike_probe_include(void)
{
    return 0;
}
