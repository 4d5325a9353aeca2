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

# `npm run test:all` (CI): every file on Node 24, then on the other Node lines (the machine's, 22,
# 26) only the suites whose outcome can depend on the Node that runs them:
#   Node 24             every file: FAST_TESTS, the fault suite, the toolchain suites (test/routes,
#                       test/install, test/transformer/e2e) and the other client libraries' suites
#   machine's, 22, 26   FAST_TESTS but the other client libraries' suites (below): the runtime and
#                       woven methods on that Node's timers, sockets and AsyncLocalStorage, the
#                       transformer's stages, the protocol
# The toolchain suites run on one line, 24 — the line users deploy most; the machine's Node 20 is
# past its end of life — not on each: they start the Node binaries they are about themselves (the
# loader and jest routes on Node 20, 22 and 24 by path, the rest on the Node that runs ava or on the
# PATH's), so the line's own Node changes nothing in them but the time (about 6 minutes a line; on
# Node 24 with its compile cache, scripts/test-lib.sh, a quarter less than on Node 20). The fault
# suite runs where the runtime is deployed most (24, and Valkey's run on 24): on the other lines it
# would repeat the runtime suites' answers at 1.5 minutes a line.
# The suites of the other client libraries (GLIDE, node-redis 5 and 6, ioredis 6 beside 5, and their
# shapes told apart) are not run again on each line either: what they prove is the library's
# protocol and the store's use of it, the same on every Node; the runtime's own timers and sockets
# on each line are the ioredis suites'. They run on 24 (and in Valkey's run).
CLIENT_LIBRARY_TESTS=(
  test/runtime/glide-connection.test.ts test/runtime/glide-lock.test.ts
  test/runtime/node-redis-connection.test.ts test/runtime/node-redis-lock.test.ts test/runtime/node-redis5-lock.test.ts
  test/runtime/ioredis6-lock.test.ts test/runtime/client-interop.test.ts
)
NODE_LINE_TESTS=("${UNIT_TESTS[@]}" test/behaviour test/protocol)
for file in test/runtime/*.test.ts; do
  case " ${UNIT_TESTS[*]} ${CLIENT_LIBRARY_TESTS[*]} " in *" $file "*) ;; *) NODE_LINE_TESTS+=("$file") ;; esac
done
# The line that runs every file (ava's own list, ava.config.mjs).
EVERY_FILE_LINE=24

# The Valkey run (Node 24): the suites whose outcome depends on the server (test/runtime,
# test/behaviour, test/faults, test/protocol), but not their files that start no server at all —
# the in-process store, the runtime's pure parts, its load and sources, the protocol against the
# in-memory store, the tag errors of a compile, a socket that never answers. On Valkey those would
# be the Node 24 run again, file for file (about 45 s of it). Each was run with
# LOCKWEAVE_REDIS_SERVER naming a binary that logs its starts: none started one. A file here that
# comes to start a server belongs in the Valkey run again: take it off this list.
NO_SERVER_TESTS=(
  "${UNIT_TESTS[@]}"
  test/runtime/clean-up.test.ts test/runtime/option-table.test.ts
  test/runtime/runtime-load.test.ts test/runtime/runtime-sources.test.ts
  test/protocol/interleavings-memory.test.ts test/protocol/store-model.test.ts
  test/faults/compile-bad-tags.test.ts test/faults/silent-redis.test.ts
)
VALKEY_TESTS=()
for file in test/runtime/*.test.ts test/behaviour/*.test.ts test/faults/*.test.ts test/protocol/*.test.ts; do
  if [ ! -e "$file" ]; then continue; fi
  case " ${NO_SERVER_TESTS[*]} " in *" $file "*) ;; *) VALKEY_TESTS+=("$file") ;; esac
done
