#!/bin/bash
# Corrupted checkpoints (issue 17, item 3; docs/reliability.md "Checkpoints are verified"):
#  1. a sweep of single-byte flips over the whole checkpoint file — inside the coordinator blob,
#     inside the node blob, across the HDF5 metadata and attributes, and in the checksum trailer —
#     must each end in exit 0 with output identical to the uninterrupted run, or exit 2 with one
#     "dike-emu:" message: never a signal, a hang, another status, or different results;
#  2. a checkpoint whose checksums were recomputed after a node slot was set to a job index out of
#     range (what a checksum cannot catch) is refused by the range checks with status 2.
# Resumes run on 1 rank, and a few on 2 ranks.
#
#   ckpt_corrupt.sh DIKE_EMU MPIEXEC_NP_FLAG MPIEXEC...
set -eu
. "$(dirname "$0")/../lib/testlib.sh"
dike_mpi_args "$@"
dike_tmp_init mpi_ckpt_corrupt
cd "$T"
PY=/usr/bin/python3
W=(--set workload.jobs=1000 --set cluster.nodes=16 --set cluster.nodes_per_rack=4 --set workload.load=1.3
   --set faults.mtbf_s=100000 --set workload.tenants=4 -p dike --quiet)
emu run "${W[@]}" --out full.h5
rc=0
emu run "${W[@]}" --set engine.inject_stop_s=20000 --out part.h5 --checkpoint good.ckpt 2>/dev/null || rc=$?
[ "$rc" = 4 ] && [ -f good.ckpt ] || fail "no checkpoint (status $rc)"
size=$(stat -c %s good.ckpt)
ok "checkpoint of $size bytes"

# resume_one NP FILE: the contract for one (possibly damaged) checkpoint; prints the outcome.
resume_one()
{
    local np="$1" f="$2" rc=0
    rm -f r.h5
    if [ "$np" = 1 ]; then
        timeout 60 "$DIKE_EMU" resume -q "$f" --out r.h5 </dev/null >out.log 2>err.log || rc=$?
    else
        timeout 60 "${DIKE_MPIEXEC[@]}" "$DIKE_NP_FLAG" "$np" "$DIKE_EMU" resume -q "$f" --out r.h5 </dev/null \
            >out.log 2>err.log || rc=$?
    fi
    if [ "$rc" = 0 ]; then
        # (in a subshell, its lines on stderr: this function's stdout is its verdict)
        (same_objects full.h5 r.h5 "$f" /jobs /tenants /timeseries /summary /nodes >&2) ||
            fail "$f ($np ranks): exit 0 but the output differs from the uninterrupted run"
        echo same
    elif [ "$rc" = 2 ]; then
        [ "$(grep -c '^dike-emu:' err.log)" = 1 ] || { show_file stderr err.log; fail "$f: not one message"; }
        ! grep -Eqi 'segmentation|signal|core dumped' err.log || fail "$f: crash reported"
        [ ! -e r.h5 ] || fail "$f: an output was written although the resume was refused"
        echo refused
    else
        show_file stderr err.log
        fail "$f ($np ranks): status $rc (a signal, a hang, or an unexpected failure)"
    fi
}

[ "$(resume_one 1 good.ckpt)" = same ] || fail "the undamaged checkpoint does not resume to the same output"
ok "the undamaged checkpoint resumes to the uninterrupted run's output"

# The byte offsets to flip: inside each dataset (from h5py), evenly over the file, and in the trailer.
if "$PY" -c 'import h5py' 2>/dev/null; then
    "$PY" - good.ckpt >offsets <<'EOF'
import sys, h5py
path = sys.argv[1]
size = len(open(path, 'rb').read())
offs = []
with h5py.File(path, 'r') as f:
    for name, n in (('coordinator', 30), ('nodes', 20)):
        d = f[name]
        start, length = d.id.get_offset(), d.size
        offs += [start + (i * length) // n for i in range(n)]
offs += [(i * size) // 30 for i in range(30)]
offs += [size - 1 - (i * 100) // 5 for i in range(5)]   # the trailer (its last 100 bytes)
print('\n'.join(str(o) for o in sorted(set(offs))))
EOF
else
    echo "NOTE: no h5py; flipping at evenly spaced offsets only"
    for i in $(seq 0 84); do echo $(((i * size) / 85)); done >offsets
fi
refused=0 same=0 n=0
masks=(1 128 255 16)
while read -r off <&3; do
    mask=${masks[$((n % 4))]}
    cp good.ckpt bad.ckpt
    "$PY" -c "
import sys
p, o, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(p, 'r+b') as f:
    f.seek(o); b = f.read(1); f.seek(o); f.write(bytes([b[0] ^ m]))" bad.ckpt "$off" "$mask"
    np=1
    [ $((n % 15)) = 7 ] && np=2
    case "$(resume_one "$np" bad.ckpt)" in
        same) same=$((same + 1)) ;;
        refused) refused=$((refused + 1)) ;;
        *) fail "flip of byte $off (xor $mask, $np ranks): see the line above" ;;
    esac
    n=$((n + 1))
done 3<offsets
[ "$n" -ge 50 ] || fail "only $n flips"
ok "$n single-byte flips: $refused refused with status 2 and one message, $same resumed to identical output; no signal, no other status"

# Range checks behind the checksums: a node slot set to a job index out of range, with the
# checksums recomputed so that only the range check can catch it.
if "$PY" -c 'import h5py' 2>/dev/null; then
    "$PY" - good.ckpt forged.ckpt <<'EOF'
import hashlib, struct, sys, h5py
src, dst = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
tail = data.rfind(b'\ndike-emu checkpoint image sha256=')
open(dst, 'wb').write(data[:tail])
with h5py.File(dst, 'r+') as f:
    nodes = bytearray(f['nodes'][()])
    coord = bytes(f['coordinator'][()])
    emu = bytes(f['emulator'][()])              # the emulating mode's state (empty here)
    rec = len(nodes) // 16                     # 16 nodes, fixed-size records
    slot0 = 88                                 # node_rec is 88 bytes, then the job slots
    struct.pack_into('<I', nodes, slot0, 0x7fffffff)
    f['nodes'][...] = list(nodes)
    h = hashlib.sha256()
    for part in (coord, bytes(nodes), emu):
        h.update(struct.pack('<Q', len(part)))
        h.update(part)
    f.attrs.modify('state_sha256', h.hexdigest())
img = open(dst, 'rb').read()
trailer = '\ndike-emu checkpoint image sha256=%s bytes=%020d\n' % (hashlib.sha256(struct.pack('<Q', len(img)) + img).hexdigest(), len(img))
open(dst, 'ab').write(trailer.encode())
EOF
    rc=0
    "$DIKE_EMU" resume -q forged.ckpt --out f.h5 2>err.log || rc=$?
    show_file stderr err.log
    [ "$rc" = 2 ] && grep -q '^dike-emu: forged.ckpt: node state does not fit this workload and cluster: a node slot' err.log ||
        fail "forged node slot: status $rc"
    ok "a node slot with an out-of-range job index (checksums valid) is refused by the range check"
else
    echo "SKIP: no h5py for the forged checkpoint"
fi
