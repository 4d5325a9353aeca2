# Which test files each test command runs: the one table, read by scripts/test-unit.sh,
# scripts/test.sh and scripts/test-all.sh. Folders stand for every *.test.ts under them.

# `npm run test:unit`: no Redis, no build, no child process; under a minute. The runtime's tests
# here use the in-process store and run on runtime/'s sources (test/helpers/lockweave-from-source.cjs).
UNIT_TESTS=(
  test/transformer/parse test/transformer/check test/transformer/weave
  test/runtime/key.test.ts test/runtime/options.test.ts test/runtime/timers.test.ts
  test/runtime/listen-bound.test.ts test/runtime/fencing-memory.test.ts test/runtime/memory-lock.test.ts
)

# `npm test`: the contributor's loop, under 5 minutes on a 2-core machine: the unit tests, the
# runtime and woven methods against a real redis-server, and the protocol checked against its model,
# on the machine's Node.
#
# Left to `npm run test:all` (which runs everything, this included):
#   test/routes, test/install      bundlers, jest, the CLI, TypeScript 5/6/7 projects, a packed
#                                  install: each test spawns a toolchain (minutes in all)
#   test/transformer/e2e           the transformer through real tspc / ts-node / CLI processes and
#                                  the built dist/ (the stages themselves are unit-tested in process)
#   test/faults                    the fault suite: killed, paused and cut holders, restarts (long by design)
#   test/topologies                Cluster, Sentinel, Redlock: many servers per file
#   Node 22, 24 and 26, and Valkey the whole matrix (below: which suites each line runs)
FAST_TESTS=("${UNIT_TESTS[@]}" test/runtime test/behaviour test/protocol)

# `npm run test:all` (CI): every file on the machine's Node, then on the other Node lines only the
# suites whose outcome can depend on the Node that runs them:
#   Node 22, 26   FAST_TESTS: the runtime and woven methods on that Node's timers, sockets and
#                 AsyncLocalStorage, the transformer's stages, the protocol
#   Node 24       FAST_TESTS and the fault suite (and Valkey's run, and the topologies)
# Not again on each line: the toolchain suites (test/routes, test/install, test/transformer/e2e)
# start the Node binaries they are about themselves — the loader and jest routes on Node 22 and 24
# by path, the rest on the machine's — so the line's own Node changes nothing in them but the time
# (about 3 minutes a line). The fault suite runs where the runtime is deployed most (24) and on the
# machine's Node: on 22 and 26 it would repeat the runtime suites' answers at 2 minutes a line.
NODE_LINE_TESTS=("${FAST_TESTS[@]}")
NODE24_TESTS=("${FAST_TESTS[@]}" test/faults)

