/* libFuzzer target: any bytes as a configuration file, then validation and the resolved text
 * round trip. Errors are fine; crashes, hangs and leaks are not. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/cluster.h"
#include "dike/config.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer ends a timed session with exit(): the scratch file goes with it (a crash keeps it,
 * and scripts/fuzz.sh removes it) */
static void remove_scratch(void)
{
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    snprintf(path, sizeof path, "/tmp/dike-fuzz-config-%ld.ini", (long)getpid());
    atexit(remove_scratch);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    if (dike_config_load_file(&cfg, path, &e)) {
        if (!e.msg[0])
            abort();
        return 0;
    }
    if (dike_config_validate(&cfg, &e) == 0) {
        dike_cluster cl;
        if (dike_cluster_init(&cl, &cfg, &e) == 0)
            dike_cluster_free(&cl);
    }
    /* the resolved text of an accepted configuration reads back to the same configuration */
    char *text = dike_config_to_ini(&cfg);
    f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    dike_config back;
    dike_config_defaults(&back);
    if (dike_config_load_file(&back, path, &e))
        abort();
    char *again = dike_config_to_ini(&back);
    if (strcmp(text, again) != 0)
        abort();
    free(text);
    free(again);
    return 0;
}
