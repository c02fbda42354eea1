#!/usr/bin/env bash
# Clang's static analyzer (scan-build) over the library and dike-emu, in a build of its own.
# Prints one line per report (file:line, kind, what) and where the HTML reports are. Not part of
# .ci/run (about 2 minutes on 2 cores); docs/testing.md lists what it reported last and why each
# report is not a bug. Installs clang-tools (scan-build) if it is missing.
#   scripts/analyze.sh [BUILD_DIR]        (default build-analyze)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh >/dev/null
if ! command -v scan-build >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends clang-tools
fi
B=${1:-build-analyze}
OUT=$(mktemp -d)
# Dead stores are left out: the code keeps some on purpose (a status set before a collective
# that every rank reaches).
scan-build -o "$OUT" cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$B" --target clean >/dev/null
scan-build -o "$OUT" -disable-checker deadcode.DeadStores cmake --build "$B" -j"$(nproc)" --target dike-emu \
  >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
for f in "$OUT"/*/report-*.html; do
  [ -e "$f" ] || continue
  field() { sed -n "s/.*<!-- $1 \(.*\) -->.*/\1/p" "$f" | head -1; }
  echo "$(field BUGFILE | sed "s|^$PWD/||"):$(field BUGLINE) | $(field BUGTYPE) | $(field BUGDESC)"
done | sort
n=$(ls "$OUT"/*/report-*.html 2>/dev/null | wc -l)
echo "analyze: $n report(s); HTML in $(ls -d "$OUT"/*/ 2>/dev/null | head -1 || echo "$OUT") (scan-view DIR to browse)"
