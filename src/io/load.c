/* The workload a run replays: a trace read by the trace readers (src/io/trace.c) or the seeded
 * synthetic generator (src/model/synth.c), then cut, scaled and given model classes by the model
 * (dike_workload_prepare). Loading is io's job so that the model never reads a file. */
#include "dike/workload.h"

#include <stdio.h>
#include <string.h>

#include "dike/throughput.h"

size_t dike_workload_report(const dike_workload *w, char *buf, size_t n)
{
    size_t len = 0;
#define ADD(...) (len += (size_t)snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__))
    if (n)
        buf[0] = '\0';
    if (w->skipped) {
        ADD("skipped %zu rows of %s:", w->skipped, w->source);
        const char *sep = " ";
        for (int r = 0; r < DIKE_SKIP_NRULES; r++) {
            if (w->skips[r]) {
                ADD("%s%zu %s", sep, w->skips[r], dike_skip_rule_name(r));
                sep = ", ";
            }
        }
    }
    if (w->no_gpu_rows)
        ADD("%sdropped %zu rows without GPUs (CPU-only jobs)%s%s", len ? "; " : "", w->no_gpu_rows,
            w->skipped ? "" : " of ", w->skipped ? "" : w->source);
    if (w->fractional)
        ADD("%s%zu fractional-GPU requests count as one whole GPU", len ? "; " : "", w->fractional);
#undef ADD
    return len < n ? len : (n ? n - 1 : 0);
}

int dike_workload_read_trace(const dike_config *c, const dike_cluster *cl, bool skip_invalid,
                             dike_workload *w, dike_err *e)
{
    /* A window counts the trace's rows, whatever the cluster: a row larger than the cluster
     * matters only inside it (docs/trace-format.md, "Windows and load scaling"). */
    w->keep_too_large = dike_workload_windowed(c);
    return dike_trace_read(c->workload_trace, c->workload_trace_format, cl, skip_invalid, w, e);
}

int dike_workload_load(const dike_config *c, const dike_cluster *cl, dike_workload *w, dike_err *e)
{
    int rc = c->workload_trace[0] ? dike_workload_read_trace(c, cl, c->workload_skip_invalid, w, e)
                                  : dike_synth_generate(c, cl, w, e);
    if (!rc)
        rc = dike_workload_prepare(c, cl, w, e);
    if (!rc)
        rc = dike_workload_bind_throughput(w, cl, c->cluster_throughput, e);
    if (rc) {
        dike_workload_free(w);
        return rc;
    }
    char line[2048];
    if (dike_workload_report(w, line, sizeof line))
        fprintf(stderr, "dike-emu: %s\n", line);
    return 0;
}

