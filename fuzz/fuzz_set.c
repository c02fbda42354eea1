/* libFuzzer target: the command line's --set surface (issue 17, item 7). Each input line is one
 * `section.key=value` assignment, applied in order as --set does, then the cross-field
 * validation, the cluster, and the round trip of the resolved text. Errors are fine (with a
 * message); crashes, hangs and an accepted configuration that does not read back are not. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/cluster.h"
#include "dike/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0'; /* an argv string ends at its first NUL, as here */
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    int rc = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save))
        if ((rc = dike_config_set(&cfg, l, "--set", &e)) && !e.msg[0])
            abort();
    free(text);
    if (rc)
        return 0;
    if (dike_config_validate(&cfg, &e) == 0) {
        dike_cluster cl;
        if (dike_cluster_init(&cl, &cfg, &e) == 0)
            dike_cluster_free(&cl);
        else if (!e.msg[0])
            abort();
    } else if (!e.msg[0]) {
        abort();
    }
    /* the resolved text reads back to the same configuration */
    char *ini = dike_config_to_ini(&cfg);
    dike_config back;
    dike_config_defaults(&back);
    if (dike_config_load_text(&back, ini, "resolved", &e))
        abort();
    char *again = dike_config_to_ini(&back);
    if (strcmp(ini, again) != 0)
        abort();
    free(ini);
    free(again);
    return 0;
}
