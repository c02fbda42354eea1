#!/bin/bash
# Submit a dike-emu campaign grid to Slurm: as a job array (one task per point, the default) or as
# one ensemble job. The array is sized from `dike-emu campaign GRID --list`; logs go to
# <out_dir>/slurm/. See docs/campaigns.md.
#
#   slurm-jobs/submit.sh [options] GRID.ini [-- dike-emu campaign options]
#
# Options:
#   --mode array|ensemble   array tasks of a few points each (default), or one job for the whole grid
#   --ranks-per-run R       MPI ranks per point (default: the grid's [campaign] ranks_per_run, else 1)
#   --ntasks N              MPI ranks of each Slurm job, i.e. of each array task or of the ensemble job;
#                           a multiple of R (default: R for an array, 4 x R for an ensemble); a task
#                           with N/R > 1 runs its points N/R at a time
#   --points-per-task P     array: points per array task (default 1): task k runs points kP .. kP+P-1
#   --max-parallel M        array: run at most M tasks at a time (--array=...%M)
#   --pending               array: only the tasks holding points not COMPLETED (nor RUNNING) yet
#   --auto-requeue K        array: a task stopped at its time limit requeues itself, at most K times,
#                           and continues from its checkpoints (default 0; DIKE_AUTO_REQUEUE)
#   --partition P, --time T, --account A, --qos Q
#                           passed to sbatch only when given here or in DIKE_PARTITION, DIKE_TIME,
#                           DIKE_ACCOUNT, DIKE_QOS (sbatch's own SBATCH_PARTITION, ... work too)
#   --emu PATH              the dike-emu binary (default: $DIKE_EMU, else build/dike-emu)
#   --wait                  sbatch --wait: return when the job ends, with its exit status
#                           (for an array the highest of its tasks)
#   --dry-run               print the sbatch command instead of running it
#   -- ARGS                 more options for dike-emu campaign (--set K=V, --out-dir DIR, ...)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

usage()
{
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}
die()
{
    echo "submit.sh: $*" >&2
    exit 2
}

mode=array ntasks="" per_run="" per_task=1 max_par="" pending=0 wait=0 dry=0 grid=""
requeue="${DIKE_AUTO_REQUEUE:-0}"
partition="${DIKE_PARTITION:-}" time_limit="${DIKE_TIME:-}" account="${DIKE_ACCOUNT:-}" qos="${DIKE_QOS:-}"
emu="${DIKE_EMU:-build/dike-emu}"
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --mode) mode="${2:?--mode needs a value}"; shift 2 ;;
    --ntasks) ntasks="${2:?--ntasks needs a value}"; shift 2 ;;
    --ranks-per-run) per_run="${2:?--ranks-per-run needs a value}"; shift 2 ;;
    --points-per-task) per_task="${2:?--points-per-task needs a value}"; shift 2 ;;
    --max-parallel) max_par="${2:?--max-parallel needs a value}"; shift 2 ;;
    --auto-requeue) requeue="${2:?--auto-requeue needs a value}"; shift 2 ;;
    --pending) pending=1; shift ;;
    --partition) partition="${2:?--partition needs a value}"; shift 2 ;;
    --time) time_limit="${2:?--time needs a value}"; shift 2 ;;
    --account) account="${2:?--account needs a value}"; shift 2 ;;
    --qos) qos="${2:?--qos needs a value}"; shift 2 ;;
    --emu) emu="${2:?--emu needs a value}"; shift 2 ;;
    --wait) wait=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) usage 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) die "unknown option '$1' (submit.sh --help)" ;;
    *) [ -z "$grid" ] || die "one grid file only (got '$grid' and '$1')"; grid="$1"; shift ;;
    esac
done
[ -n "$grid" ] || usage 2
[ -f "$grid" ] || die "$grid: no such grid file"
[ -x "$emu" ] || die "$emu: no dike-emu binary (build it, or give --emu PATH / DIKE_EMU)"
case "$mode" in array|ensemble) ;; *) die "--mode must be array or ensemble" ;; esac
for v in "$ntasks" "$per_run" "$max_par" "$per_task"; do
    [ -z "$v" ] || [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive integer"
done
[[ "$requeue" =~ ^[0-9]+$ ]] || die "--auto-requeue: '$requeue' is not a count"
# The job starts in this folder; an absolute binary path survives a different one.
emu="$(cd "$(dirname "$emu")" && pwd)/$(basename "$emu")"

# Size and names from the grid itself (one process; no mpirun needed).
listing="$("$emu" campaign "$grid" --list "${extra[@]}")" || die "dike-emu campaign $grid --list failed"
name="$(sed -n 's/^# campaign: //p' <<<"$listing")"
out_dir="$(sed -n 's/^# out_dir: //p' <<<"$listing")"
npoints="$(sed -n 's/^# points: //p' <<<"$listing")"
grid_per_run="$(sed -n 's/^# ranks_per_run: //p' <<<"$listing")"
[ -n "$name" ] && [ -n "$out_dir" ] && [ -n "$npoints" ] || die "cannot read the --list header"
# One meaning everywhere: R ranks per point, N ranks per Slurm job (array task or ensemble job).
R="${per_run:-${grid_per_run:-1}}"
if [ "$mode" = array ]; then ntasks="${ntasks:-$R}"; else ntasks="${ntasks:-$((4 * R))}"; fi
[ $((ntasks % R)) = 0 ] || die "--ntasks $ntasks is not a multiple of $R ranks per point (--ranks-per-run)"
mkdir -p "$out_dir/slurm"

# sbatch passes the environment (ALL) plus the binary, the group size and the task layout.
exports="ALL,DIKE_EMU=$emu,DIKE_RANKS_PER_RUN=$R"
[ "$mode" = ensemble ] || exports="$exports,DIKE_POINTS_PER_TASK=$per_task,DIKE_AUTO_REQUEUE=$requeue"
sbatch_args=(--job-name="$name" --export="$exports")
[ -z "$partition" ] || sbatch_args+=(--partition="$partition")
[ -z "$time_limit" ] || sbatch_args+=(--time="$time_limit")
[ -z "$account" ] || sbatch_args+=(--account="$account")
[ -z "$qos" ] || sbatch_args+=(--qos="$qos")
[ "$wait" = 0 ] || sbatch_args+=(--wait)

if [ "$mode" = array ]; then
    if [ "$pending" = 1 ]; then
        # Array tasks holding a point not COMPLETED (nor RUNNING), as ranges: 0-3,7,9-11.
        # --status exits 1 while points are missing: that is the expected case here.
        status="$("$emu" campaign "$grid" --status "${extra[@]}")" || true
        spec="$(awk -F'\t' -v per="$per_task" '
            /^#/ || $2 == "COMPLETED" || $2 == "RUNNING" { next }
            { i = int(($1 + 0) / per)
              if (n && i == last) next
              if (n && i == last + 1) { last = i; next }
              if (n) { out = out sep (first == last ? first : first "-" last); sep = "," }
              first = last = i; n++ }
            END { if (n) out = out sep (first == last ? first : first "-" last); print out }' <<<"$status")"
        if [ -z "$spec" ]; then
            echo "submit.sh: every point of $name is done; nothing to submit"
            exit 0
        fi
    else
        spec="0-$(((npoints + per_task - 1) / per_task - 1))"
    fi
    ntask_ids=$(((npoints + per_task - 1) / per_task))
    [ -z "$max_par" ] || spec="$spec%$max_par"
    # Slurm refuses task ids at or above MaxArraySize (default 1001).
    max_size=""
    if [ "$dry" = 0 ]; then
        max_size="$(scontrol show config 2>/dev/null | awk '$1 == "MaxArraySize" { print $3 }')" || true
    fi
    if [ -n "$max_size" ] && [ "$ntask_ids" -gt "$max_size" ]; then
        die "$ntask_ids array tasks but MaxArraySize is $max_size: use --points-per-task $(((npoints + max_size - 1) / max_size)) or more"
    fi
    sbatch_args+=(--array="$spec" --ntasks="$ntasks" --output="$out_dir/slurm/%x-%A_%a.out")
    script="$here/array.sbatch"
    echo "submit.sh: $name: $npoints points as a job array ($spec), $per_task point(s) per task, $ntasks rank(s) per task, $R per point; logs in $out_dir/slurm/"
else
    sbatch_args+=(--ntasks="$ntasks" --output="$out_dir/slurm/%x-%j.out")
    script="$here/ensemble.sbatch"
    echo "submit.sh: $name: $npoints points as one ensemble of $ntasks rank(s), $R per point; log in $out_dir/slurm/"
fi

cmd=(sbatch "${sbatch_args[@]}" "$script" "$grid" "${extra[@]}")
if [ "$dry" = 1 ]; then
    printf '%q ' "${cmd[@]}"
    echo
    exit 0
fi
exec "${cmd[@]}"
