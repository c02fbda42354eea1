/* libFuzzer target: any bytes as a trace file, every format (auto-detected and each forced).
 * The readers must return an error or a workload — never crash, hang or leak. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/cluster.h"
#include "dike/config.h"
#include "dike/workload.h"

static char path[64];
static const char *formats[] = {"auto", "dike", "philly-vc", "rfold", "elasticflow", "gen-parallel", "openb"};

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
    snprintf(path, sizeof path, "/tmp/dike-fuzz-trace-%ld.csv", (long)getpid());
    atexit(remove_scratch);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    /* the first byte picks the format and whether invalid rows are skipped */
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    cfg.cluster_nodes = 4;
    snprintf(cfg.workload_trace, sizeof cfg.workload_trace, "%s", path);
    snprintf(cfg.workload_trace_format, sizeof cfg.workload_trace_format, "%s",
             formats[data[0] % (sizeof formats / sizeof formats[0])]);
    cfg.workload_skip_invalid = (data[0] & 0x80) != 0;
    dike_cluster cl;
    if (dike_cluster_init(&cl, &cfg, &e))
        abort();
    dike_workload w;
    dike_workload_init(&w);
    if (dike_workload_load(&cfg, &cl, &w, &e) == 0) {
        /* a workload the reader accepted obeys the contract the engine relies on */
        for (size_t i = 0; i < w.njobs; i++) {
            const dike_job_spec *j = &w.jobs[i];
            if (j->num_gpus < 1 || j->duration <= 0 || j->submit < 0 || j->tenant >= w.ntenants ||
                (i && j->submit < w.jobs[i - 1].submit))
                abort();
        }
    } else if (!e.msg[0]) {
        abort(); /* every error has a message */
    }
    dike_workload_free(&w);
    dike_cluster_free(&cl);
    return 0;
}
