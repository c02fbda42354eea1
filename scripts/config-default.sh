#!/usr/bin/env bash
# The default of one configuration key as a dike-emu binary has it, read from its config-reference
# table; exits 1 if the binary names no such key. Used by make_gallery.sh and the analysis test, so
# that neither writes a default down.
#   scripts/config-default.sh DIKE_EMU SECTION KEY      e.g. ... build/dike-emu dike fairness_weight
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: config-default.sh DIKE_EMU SECTION KEY" >&2; exit 2; }
"$1" config-reference | awk -F'|' -v s="$2" -v k="$3" '
    { a = $2; b = $3; gsub(/ /, "", a); gsub(/ /, "", b) }
    a == s && b == k { v = $4; gsub(/[ `]/, "", v); print v; found = 1 }
    END { exit !found }'
