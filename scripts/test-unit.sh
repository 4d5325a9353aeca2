#!/usr/bin/env bash
# `npm run test:unit`: the tests that need no Redis and no build (the transformer's parse, check
# and weave stages on the TypeScript API; key encoding, options and the in-process store on the
# runtime's sources), on the machine's Node, in under a minute. No setup either: it needs only
# node_modules (`npm run setup` installs them). The list is scripts/test-sets.sh's UNIT_TESTS;
# arguments that name files run those instead, on the sources too.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-lib.sh
source scripts/test-sets.sh
if [ ! -d node_modules/ava ]; then
  echo "test:unit: node_modules is missing; run \`npm run setup\` (or \`npm install\`) first" >&2
  exit 2
fi
test_log_start
echo "test:unit: ava on Node $(node --version), the runtime from its sources, no Redis"
if names_files "$@"; then
  LOCKWEAVE_TEST_SOURCE=1 ava_run node "$@"
else
  LOCKWEAVE_TEST_SOURCE=1 ava_run node "${UNIT_TESTS[@]}" "$@"
fi
test_summary
