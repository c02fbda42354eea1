#!/bin/bash
# Regenerate the results page, docs/results.md and its figures docs/results/*.png, from the grid
# of the multi-tenant traces (experiments/trace-comparison.ini) and fresh runs of the default
# experiment (experiments/default.ini: one week of the Philly trace):
#
#   bash scripts/make_gallery.sh [--run-campaign] [--week-only] [--results DIR] [--allow-drop] [DIKE_EMU]
#                                                          # default DIKE_EMU: build/dike-emu
#
# The grid's 720 points take 5-14 minutes on 2 cores (the header of the grid file has
# the measurements), so by default the script expects them done, in $TRACES (default
# results/trace-comparison), e.g. by
#   mpirun -np 2 build/dike-emu campaign experiments/trace-comparison.ini
# or on Slurm (slurm-jobs/submit.sh experiments/trace-comparison.ini); --run-campaign runs (or
# resumes) it here first, with `$MPIEXEC -n $NP` (NP default 2). It stops if the campaign is not
# complete (`dike-emu campaign GRID --status`); --week-only makes a page of the default week alone.
#
# The default week: every policy that `dike-emu list-policies` prints, Dike once per
# fairness_weight in WEIGHTS, into a temporary folder, plus the default Dike point again on 2 MPI
# ranks (scaling figure). Then analysis/describe_grid.py writes the introduction from the grid's
# runs (traces, loads, cluster sizes, knowledge modes, weightings as stored in the files) and
# analysis/report.py the page: the grid's groups with the frontier figure only, of the headline
# setting (oracle durations, tenant weights $HEADLINE = demand), plus per trace and cluster size
# average JCT and unfair fraction against the grid's loads ("Against load"), the week with every
# figure, so that docs/results/ stays under 3 MB (about 2 MB). The text of docs/results.md comes
# out the same on every run (only the scaling figure's wall times change). Needs Debian's /usr/bin/python3 with
# python3-h5py, python3-numpy, python3-matplotlib, and mpiexec for the 2-rank run ($MPIEXEC).
# GRID=other.ini and TRACES=folder (or --results FOLDER) point the script at another grid (e.g. a
# smaller test grid, or another checkout's results/trace-comparison).
#
# It never drops part of the page silently: the new page is written to a temporary file first,
# and if a section (a `## ` heading) of the current docs/results.md is missing from it (its runs
# are not there, or --week-only), the script stops with exit 2, names the sections and changes
# nothing; --allow-drop writes the page anyway. Figures are drawn one column wide
# (report.py --figsize column) at 150 dpi.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"   # the stored trace path (and so docs/results.md) is relative to the repository
RUN_CAMPAIGN=0
WEEK_ONLY=0
ALLOW_DROP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --run-campaign) RUN_CAMPAIGN=1; shift ;;
        --week-only) WEEK_ONLY=1; shift ;;
        --allow-drop) ALLOW_DROP=1; shift ;;
        --results) [ $# -ge 2 ] || { echo "make_gallery: --results needs a folder" >&2; exit 2; }
                   TRACES="$2"; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "make_gallery: unknown option $1 (--run-campaign, --week-only, --results DIR, --allow-drop)" >&2; exit 2 ;;
        *) break ;;
    esac
done
EMU=$(readlink -f -- "${1:-${DIKE_EMU:-build/dike-emu}}")
PY=/usr/bin/python3
MPIEXEC=${MPIEXEC:-mpiexec}
NP=${NP:-2}
CONFIG=experiments/default.ini
GRID=${GRID:-experiments/trace-comparison.ini}
TRACES=${TRACES:-results/trace-comparison}
HEADLINE=demand
WEIGHTS="0 0.25 0.5 0.75 1"
OUT_MD=docs/results.md
OUT_FIG=docs/results

die() { echo "make_gallery: $*" >&2; exit 2; }
[ -x "$EMU" ] || die "no dike-emu at $EMU: build it (cmake -S . -B build && cmake --build build -j2) or pass its path"
# Dike's default knob, as the binary has it: the week's default point, the synthetic group's Dike
DW=$(bash scripts/config-default.sh "$EMU" dike fairness_weight) ||
    die "dike-emu config-reference names no default for dike.fairness_weight"
"$PY" -c 'import h5py, numpy, matplotlib, scipy, tabulate' 2>/dev/null ||
    die "$PY lacks h5py/numpy/matplotlib/scipy/tabulate: apt-get install python3-h5py python3-numpy python3-matplotlib python3-scipy python3-tabulate"
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

# The grid first: it is what the page is about, and a missing or unfinished campaign should stop
# the script before the week's runs.
extra=()
if [ "$WEEK_ONLY" = 0 ]; then
    if [ "$RUN_CAMPAIGN" = 1 ]; then
        echo "make_gallery: $MPIEXEC -n $NP dike-emu campaign $GRID --out-dir $TRACES"
        "$MPIEXEC" -n "$NP" "$EMU" campaign "$GRID" --out-dir "$TRACES" -q ||
            die "the campaign $GRID stopped (exit $?); rerun to resume it"
    fi
    [ -f "$TRACES/campaign.json" ] ||
        die "no campaign in $TRACES: run it (mpirun -np 2 $EMU campaign $GRID), pass --run-campaign, or --week-only"
    "$EMU" campaign "$GRID" --status --out-dir "$TRACES" >/dev/null ||
        die "$TRACES: the campaign of $GRID is not complete ($EMU campaign $GRID --status --out-dir $TRACES)"
    extra=("$TRACES/campaign.json")
    echo "make_gallery: the grid's runs: $TRACES"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runs" "$tmp/check"
# The page names each input file relative to the inputs' common folder. With the grid reached
# through a link beside the week's runs, that folder is $tmp, and the names (runs/..., and
# trace-comparison/... for the grid) do not depend on the checkout's place or the temporary name.
if [ ${#extra[@]} -gt 0 ]; then
    ln -s "$(cd "$TRACES" && pwd)" "$tmp/trace-comparison"
    extra=("$tmp/trace-comparison/campaign.json")
fi

policies=$("$EMU" list-policies | awk '/^policies/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF { print $1 }')
[ -n "$policies" ] || die "dike-emu list-policies printed no policies"

run() # OUT ARGS...: one run of the default experiment
{
    local out="$1"
    shift
    echo "  dike-emu run --config $CONFIG $* --out $(basename "$out")"
    "$EMU" run --config "$CONFIG" -q "$@" --out "$out"
}

# every_point DIR SEED [SUFFIX]: every policy (Dike at every weight) with one seed
every_point()
{
    local dir="$1" seed="$2" sfx="${3:-}" p w
    for p in $policies; do
        if [ "$p" = dike ]; then
            for w in $WEIGHTS; do
                run "$dir/dike-w$w$sfx.h5" --policy dike --set "dike.fairness_weight=$w" --seed "$seed"
            done
        else
            run "$dir/$p$sfx.h5" --policy "$p" --seed "$seed"
        fi
    done
}

same_jobs() # A.h5 B.h5: identical /jobs tables
{
    "$PY" - "$1" "$2" <<'EOF'
import sys
sys.path.insert(0, "analysis")
import dikeio
a, b = (dikeio.load(p).jobs for p in sys.argv[1:3])
sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)
EOF
}

echo "make_gallery: runs, seed 1"
every_point "$tmp/runs" 1
# On a trace the seed only drives random placement (and synthetic workloads): check that it
# changes nothing here before running one seed only.
echo "make_gallery: does the seed change anything? seed 2 of every point"
every_point "$tmp/check" 2
differ=""
for f in "$tmp"/check/*.h5; do
    same_jobs "$tmp/runs/$(basename "$f")" "$f" || differ="$differ $(basename "$f" .h5)"
done
if [ -n "$differ" ]; then
    echo "make_gallery: seed 2 differs for:$differ; running seeds 2 and 3 of every point"
    rm -f "$tmp"/check/*.h5
    every_point "$tmp/runs" 2 -s2
    every_point "$tmp/runs" 3 -s3
fi
# A synthetic group with five seeds: a trace replays the same way for every seed, so the paired
# differences (each policy against Dike at its default knob, seed by seed) need a workload that
# the seed draws. 4,000 jobs on 32 nodes (256 GPUs) at load 0.9: seconds in all.
SYN=(--set workload.jobs=4000 --set cluster.nodes=32 --set workload.load=0.9 --set output.progress_interval_s=0)
echo "make_gallery: a synthetic workload, seeds 1-5: dike-emu run ${SYN[*]} --policy P --seed S"
for seed in 1 2 3 4 5; do
    for p in $policies; do
        if [ "$p" = dike ]; then
            "$EMU" run -q "${SYN[@]}" --policy dike --set dike.fairness_weight="$DW" --seed "$seed" \
                --out "$tmp/runs/syn-dike-w$DW-s$seed.h5"
        else
            "$EMU" run -q "${SYN[@]}" --policy "$p" --seed "$seed" --out "$tmp/runs/syn-$p-s$seed.h5"
        fi
    done
done
echo "make_gallery: the default Dike point on 2 ranks (scaling figure)"
echo "  $MPIEXEC -n 2 dike-emu run --config $CONFIG --policy dike --set dike.fairness_weight=$DW --out dike-w$DW-np2.h5"
"$MPIEXEC" -n 2 "$EMU" run --config "$CONFIG" -q --policy dike --set dike.fairness_weight="$DW" --seed 1 \
    --out "$tmp/runs/dike-w$DW-np2.h5"

comma() { echo "$*" | sed 's/ /, /g'; }
{
    echo "This page is generated by \`scripts/make_gallery.sh\`; do not edit it by hand. It shows what"
    if [ ${#extra[@]} -gt 0 ]; then
        echo "\`analysis/report.py\` makes of two sets of runs: the grid of multi-tenant traces"
        echo "\`$GRID\` (below) and the default experiment \`$CONFIG\` (a week of the Philly trace, its"
        echo "virtual clusters as tenants)."
    else
        echo "\`analysis/report.py\` makes of the runs of the default experiment \`$CONFIG\` (a week of the"
        echo "Philly trace, its virtual clusters as tenants); the grid of multi-tenant traces \`$GRID\` is"
        echo "left out (\`--week-only\`)."
    fi
    echo "Everything after this introduction is computed from the output files; where Dike wins and where"
    echo "it loses is stated per group, in generated sentences and checks."
    echo
    if [ ${#extra[@]} -gt 0 ]; then
        echo "**The grid.** $("$PY" analysis/describe_grid.py "${extra[@]}" --headline-weights "$HEADLINE")"
        echo
        echo "The knowledge modes (\`scheduler.duration_knowledge\`): *oracle*, the policy knows each job's"
        echo "true duration; *noisy*, it sees the duration times a lognormal error"
        echo "(\`scheduler.duration_error_sigma\`); *none*, it has no duration and uses what a real scheduler"
        echo "has (attained service, the tenant's finished jobs, the GPU count; docs/policies.md says what each"
        echo "policy uses). Metrics always use the true duration. The tenant weightings (\`tenants.weights\`):"
        echo "*equal*, every tenant weighs 1; *demand*, each tenant weighs its share of the trace's GPU-seconds."
        echo
        echo "**Headline: oracle knowledge, \`$HEADLINE\` weights.** In the clusters these traces come from, a"
        echo "tenant (a Philly virtual cluster, a Helios user, an ITP cluster) is entitled to its quota, the"
        echo "GPUs it owns, not to an equal split; the traces do not publish quotas, and a tenant's share of"
        echo "the GPU-seconds is the usual proxy for one. Under equal weights the big tenants, which submit most"
        echo "of the work, are held to an equal share under contention (1/15 of the cluster on TitanSched"
        echo "Philly, 15 virtual clusters), which says more about the weights than about the policies (issue"
        echo "18). So each group's figure and its \"Dike against the best baseline\" table show oracle knowledge"
        echo "with \`$HEADLINE\` weights; the group's table lists every mode and weighting, and the checks cover"
        echo "all of them."
        echo
        echo "**The checks** (issue 12), per group: the *dominance check* (does a baseline have a lower average"
        echo "JCT, a lower unfair fraction and a higher Jain's index than Dike at its default knob w = $DW, all"
        echo "three at once, under the same knowledge mode and weighting?), *knob monotonicity* (w = 1 no less"
        echo "fair than w = 0, w = 0 no slower than w = 1) and, on TitanSched Philly at load 1 on 512 GPUs, the"
        echo "*target* (average JCT at most 5% and unfair fraction at most 0.01 above the best baseline's, at"
        echo "most 2 preemptions per job). The summary after this introduction counts the groups that pass;"
        echo "each group's section prints its lines with the numbers. Only the frontier figure is drawn per"
        echo "grid group (the Philly week has every figure), to keep the page's images small; [Against"
        echo "load](#against-load) puts each trace and cluster size's three loads side by side (average JCT"
        echo "and unfair fraction against load, one line per policy)."
        echo
        echo "**Where Dike's lead comes from.** Dike starts a gang only where it runs at its best rate (not"
        echo "spread over nodes or racks when it fits in one and spreading would slow it: a spread gang runs at"
        echo "\`cluster.locality_rack\` = 0.42 of its rate); the baselines are run as they are defined, and"
        echo "\`pack\` spreads their gangs when no node has room. Without that rule Dike's average JCT on"
        echo "TitanSched Philly at load 1, 512 GPUs, is 10.49 h instead of 7.13 h; given the same rule (a"
        echo "development switch, not shipped) Themis gets 9.22 h and SJF 10.50 h there, still behind Dike"
        echo "(docs/dike-history.md, version 0.3: where the gain comes from)."
        echo
    fi
    echo "**The default week.** \`$CONFIG\` run once with each policy that \`dike-emu list-policies\`"
    echo "prints ($(comma $policies)), Dike once per \`dike.fairness_weight\` in {$(comma $WEIGHTS)}, every"
    echo "other key as in the config (oracle durations, equal weights; shown under [Inputs](#inputs)), and"
    echo "the Dike default (w = $DW) once more on 2 MPI ranks for the scaling figure."
    echo
    if [ -z "$differ" ]; then
        echo "**Seeds.** With a trace, the seed only drives random placement and"
        echo "synthetic workloads. The script ran every point of the week with seed 2 as well and found"
        echo "\`/jobs\` bit-identical to seed 1 for all of them, so one seed is shown and there are no"
        echo "confidence intervals: the differences below are not sampling noise, but each group is one"
        echo "replay of one trace."
    else
        echo "**Seeds.** Seed 2 changed \`/jobs\` of the week for$differ, so every point of the week was run"
        echo "with seeds 1, 2 and 3; its table shows the mean and its 95% confidence interval."
    fi
    echo
    echo "**A synthetic group with seeds.** To show sampling noise and the paired comparison a reviewer"
    echo "asks for, the page also holds a synthetic workload (\`${SYN[*]}\`) run with seeds 1 to 5"
    echo "for every policy and Dike at w = $DW: its table gives means with 95% confidence intervals, and"
    echo "its paired differences table each policy's difference from Dike, seed by seed, with a 95% interval."
    echo
    echo "The text of this page is reproducible: rerunning the script changes only the scaling figure"
    echo "(wall-clock times). Figures are PNG only here; \`report.py\` also writes PDF, and CSV/LaTeX tables."
} >"$tmp/preamble.md"

title="Results: the multi-tenant trace grid and the default Philly week"
[ ${#extra[@]} -gt 0 ] || title="Results: the default Philly week"
echo "make_gallery: report"
# Into a temporary page and folder first: the current page is replaced only if the new one keeps
# every section (or --allow-drop).
"$PY" analysis/report.py "$tmp/runs" "${extra[@]}" --report "$tmp/page/results.md" --figures "$tmp/page/results" \
    --formats png --no-tables --dpi 150 --figsize column --units h,p50_jct=min,avg_queue_delay=min \
    --headline-weights "$HEADLINE" --figure-kinds frontier,against_load \
    --full-figures '^philly-vc-week' --title "$title" --preamble "$tmp/preamble.md"
if [ -f "$OUT_MD" ]; then
    dropped=$(grep '^## ' "$OUT_MD" | sort -u | comm -23 - <(grep '^## ' "$tmp/page/results.md" | sort -u) || true)
    if [ -n "$dropped" ]; then
        n=$(echo "$dropped" | wc -l)
        if [ "$ALLOW_DROP" = 0 ]; then
            echo "make_gallery: the new page would drop $n section(s) of $OUT_MD (their runs are not here):" >&2
            echo "$dropped" | sed 's/^## /  /' >&2
            echo "make_gallery: nothing changed; run those runs (--run-campaign, --results DIR) or pass --allow-drop" >&2
            exit 2
        fi
        echo "make_gallery: --allow-drop: dropping $n section(s) of $OUT_MD:" >&2
        echo "$dropped" | sed 's/^## /  /' >&2
    fi
fi
mkdir -p "$OUT_FIG"
rm -f "$OUT_FIG"/*.png
cp "$tmp/page/results"/*.png "$OUT_FIG"/
cp "$tmp/page/results.md" "$OUT_MD"

total=0
for f in "$OUT_FIG"/*.png; do
    s=$(stat -c %s "$f")
    total=$((total + s))
    [ "$s" -lt 204800 ] || echo "make_gallery: warning: $f is $((s / 1024)) KB (keep figures under 200 KB)" >&2
done
[ "$total" -lt 3145728 ] || echo "make_gallery: warning: docs/results/ holds $((total / 1024)) KB (keep it under 3 MB)" >&2
echo "make_gallery: wrote $OUT_MD and $(ls "$OUT_FIG"/*.png | wc -l) figures in $OUT_FIG/ ($((total / 1024)) KB)"
