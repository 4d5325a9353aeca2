#!/usr/bin/env bash
# `npm test`: the loop a contributor runs, under 5 minutes on a 2-core machine. Sets up what is
# missing (redis-server, the npm dependencies; builds dist/), type-checks the repo (incrementally:
# a second run checks only what changed), then runs the unit tests, test/runtime, test/behaviour
# and test/protocol on the machine's Node against redis-server, and ends with "N passed, N failed".
# What it leaves to `npm run test:all` (the whole matrix, CI's) is listed in scripts/test-sets.sh.
#
# Arguments go to ava; ones that name files run those files instead of the set, e.g.
# `npm test -- test/runtime/key.test.ts` or `npm test -- test/routes/cli.test.ts --match '*verify*'`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-lib.sh
source scripts/test-sets.sh
# Valkey is test:all's; this loop needs redis-server only.
LOCKWEAVE_TEST_SERVERS=redis bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit, incremental)"
mkdir -p test/.tmp
npx tsc -p tsconfig.json --incremental --tsBuildInfoFile test/.tmp/typecheck.tsbuildinfo
test_log_start
echo "test: ava on Node $(node --version), $(redis-server --version | cut -d' ' -f1-3)"
if names_files "$@"; then
  ava_run node "$@"
else
  mapfile -t files < <(existing "${FAST_TESTS[@]}")
  ava_run node "${files[@]}" "$@"
fi
test_summary
