#!/usr/bin/env bash
# `npm test`: set up what is missing, type-check the repo, run every test file with ava
# (runtime, transformer, woven behaviour and the fault suite, each against a real
# redis-server it starts itself), and end with a plain "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
mkdir -p test/.tmp
log=test/.tmp/ava.log
status=0
npx ava "$@" 2>&1 | tee "$log" || status=$?
# ava's own closing lines read "13 tests passed" / "1 test failed"; CI reads the plain form.
count() { awk -v what="$1" '$2 ~ /^tests?$/ && $3 == what { n += $1 } END { print n + 0 }' "$log"; }
echo "$(count passed) passed, $(count failed) failed"
exit "$status"
