/* libFuzzer target: resume from damaged checkpoints (issue 17, item 7). Two seed checkpoints of
 * small emulations with node failures are written once: one of the default mode, one of the
 * emulating mode (node models on, written by 1 rank: its node-side state is the emulator blob).
 * Bit 1 of the first byte picks the seed; each input is then either
 *   - (first byte even) the whole checkpoint file: the trailer, the image and its checksums are
 *     checked before HDF5 sees a byte, so this exercises that gate; or
 *   - (first byte odd) a list of edits (offset, xor) to the seed's coordinator, node and emulator
 *     blobs, applied after they are read and in place of the state checksum
 *     (dike_ckpt_fuzz_mutate): what a forger who recomputes every checksum feeds to the range
 *     checks of the restore.
 * Either way the resume must end with a message (status 2) or restore, never crash; the run
 * after a restore is not executed (the hook stops there). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/config.h"
#include "dike/run.h"
#include "engine/checkpoint.h"

static char seed[2][96], path[96];
static const uint8_t *edits;
static size_t nedits;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    snprintf(path, sizeof path, "/tmp/dike-fuzz-resume-%ld-in.ckpt", (long)getpid());
    for (int k = 0; k < 2; k++) {
        snprintf(seed[k], sizeof seed[k], "/tmp/dike-fuzz-resume-%ld-%d.ckpt", (long)getpid(), k);
        dike_config cfg;
        dike_err e = {0};
        dike_config_defaults(&cfg);
        const char *set[] = {"workload.jobs=60", "cluster.nodes=4", "cluster.gpus_per_node=4",
                             "faults.mtbf_s=20000", "engine.inject_stop_s=3000",
                             "output.progress_interval_s=0", "scheduler.policy=dike",
                             /* the emulating mode: every node model, a latency, node samples */
                             "cluster.nodes_per_rack=2", "node_model.interference=0.1",
                             "node_model.network=rack", "node_model.slowdown_mtbf_s=2000",
                             "scheduler.decision_latency_s=5", "output.node_timeseries_s=600"};
        size_t nset = k ? sizeof set / sizeof *set : 7;
        for (size_t i = 0; i < nset; i++)
            if (dike_config_set(&cfg, set[i], "fuzz", &e))
                abort();
        snprintf(cfg.run_checkpoint, sizeof cfg.run_checkpoint, "%s", seed[k]);
        dike_results r;
        dike_perf_record perf;
        char out[128];
        snprintf(out, sizeof out, "/tmp/dike-fuzz-resume-%ld.h5", (long)getpid());
        if (dike_run(&cfg, MPI_COMM_WORLD, out, &r, &perf, &e) != DIKE_ESTOPPED) {
            fprintf(stderr, "fuzz_resume: cannot write seed checkpoint %d: %s\n", k, e.msg);
            abort();
        }
    }
    return 0;
}

/* Edits of 5 bytes: which blob (the first byte mod 3: coordinator, nodes, emulator), a 24-bit
 * offset, a byte to xor. */
static void mutate(char *coord, size_t clen, char *nodes, size_t nlen, char *emu, size_t elen)
{
    for (size_t i = 0; i + 5 <= nedits; i += 5) {
        const uint8_t *d = edits + i;
        size_t off = (size_t)d[1] | (size_t)d[2] << 8 | (size_t)d[3] << 16;
        char *blob = d[0] % 3 == 0 ? coord : d[0] % 3 == 1 ? nodes : emu;
        size_t len = d[0] % 3 == 0 ? clen : d[0] % 3 == 1 ? nlen : elen;
        if (len)
            blob[off % len] ^= (char)d[4];
    }
}

/* The resumed run's output goes to this process's own file. */
static int keep_config(dike_config *cfg, void *ctx, dike_err *e)
{
    (void)e;
    snprintf(cfg->run_out, sizeof cfg->run_out, "%s", (const char *)ctx);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *file = seed[(data[0] >> 1) & 1];
    dike_ckpt_fuzz_mutate = NULL;
    if (data[0] & 1) {
        edits = data + 1;
        nedits = size - 1;
        dike_ckpt_fuzz_mutate = mutate;
    } else {
        FILE *f = fopen(path, "wb");
        if (!f)
            abort();
        fwrite(data + 1, 1, size - 1, f);
        fclose(f);
        file = path;
    }
    dike_config cfg;
    dike_err e = {0};
    dike_results r;
    dike_perf_record perf;
    memset(&r, 0, sizeof r);
    dike_config_defaults(&cfg);
    char out[128];
    snprintf(out, sizeof out, "/tmp/dike-fuzz-resume-%ld-out.h5", (long)getpid());
    cfg.output_progress_interval_s = 0;
    int rc = dike_resume(file, MPI_COMM_WORLD, &cfg, keep_config, out, &r, &perf, &e);
    if (rc == 0) {
        /* only the file mode runs on (a file that passed every checksum) */
        dike_results_free(&r);
        unlink(out);
    } else if (!e.msg[0]) {
        abort(); /* every refusal has a message */
    }
    return 0;
}
