#!/usr/bin/env bash
# Install the Debian packages dike-emu needs, only those that are missing (Debian 12, as root or
# through sudo). Safe to run again: with nothing missing it changes nothing.
set -euo pipefail
PKGS=(build-essential cmake pkg-config
      libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
      libcmocka-dev libinih-dev libgsl-dev libssl-dev
      libcjson-dev                          # JSON: campaign manifests, run records, exports
      zlib1g-dev                            # deflating /node_timeseries chunks (src/io/h5out.c)
      python3 python3-h5py python3-numpy python3-matplotlib python3-scipy python3-tabulate
      slurmctld slurmd slurm-client munge   # the real single-node Slurm of tests/slurm/
      clang libclang-rt-14-dev)             # libFuzzer for scripts/fuzz.sh (CI runs it)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PKGS[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
