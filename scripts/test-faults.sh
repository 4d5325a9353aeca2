#!/usr/bin/env bash
# `npm run test:faults`: the fault-injection suite (test/faults) against real redis-server
# processes, then a summary table of cases, faults injected, operations, lost updates, overlaps.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p test/.tmp
rm -f test/.tmp/faults-summary.jsonl
status=0
npx ava test/faults "$@" || status=$?
node -r ts-node/register/transpile-only test/faults/support/print-summary.ts
exit "$status"
