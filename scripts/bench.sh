#!/usr/bin/env bash
# `npm run bench`: set up what is missing, build the bench with tspc (which weaves the tagged
# contenders — the product being measured), then run it with plain node.
# BENCH_QUICK=1 npm run bench: a smoke run of about a minute.
# Results: bench/results.md, results.svg, results-node-lines.md, results-topologies.md and results-faults.md;
# generated files stay in bench/.tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

rm -rf bench/.tmp/build
echo "bench: building with tspc and the lockweave plugin"
if ! npx tspc -p bench/tsconfig.json; then
  # A transformer that cannot build the bench yet should not stop the rest of the measurements;
  # the bench then measures the hand-woven equivalent and says so in results.md.
  echo "bench: WARNING: tspc with the lockweave plugin failed; building without it (hand-woven lockweave will be measured)" >&2
  rm -rf bench/.tmp/build
  npx tspc -p bench/tsconfig.unwoven.json
fi
# The headline runs on Node 24 (the LTS line users deploy), in full; then the Redis scenarios on the
# other lines users run (22, 26, and the machine's own node), with fewer repetitions, gathered into
# bench/results-node-lines.md. BENCH_NODE_LINES=24 runs the headline only. 22-acf is Node 22 with
# AsyncLocalStorage as Node 24 has it (--experimental-async-context-frame): what docs/waiting.md advises there.
mkdir -p bench/.tmp/node-lines
rm -f bench/.tmp/node-lines/*.json
node_bin() { if [ "$1" = system ]; then echo node; else echo "node_modules/node${1%%-*}/bin/node"; fi; }
node_flags() { if [ "$1" = 22-acf ]; then echo --experimental-async-context-frame; fi; }
BENCH_SUMMARY_JSON=bench/.tmp/node-lines/1-headline.json "$(node_bin 24)" bench/.tmp/build/bench/main.js
for line in ${BENCH_NODE_LINES-22 22-acf 26 system}; do
  [ "$line" = 24 ] && continue
  echo "bench: the Redis scenarios on Node $("$(node_bin "$line")" --version) $(node_flags "$line")"
  # The core scenarios only, as the lines' table reports (S4, one caller a process, runs in the headline only).
  # shellcheck disable=SC2046 # the flags, if any, are words of their own
  BENCH_CORE_SCENARIOS=1 BENCH_ONLY=scenarios BENCH_REPS="${BENCH_LINE_REPS:-3}" BENCH_SUMMARY_JSON="bench/.tmp/node-lines/2-$line.json" \
    "$(node_bin "$line")" $(node_flags "$line") bench/.tmp/build/bench/main.js > "bench/.tmp/node-lines/$line.log"
done
lines_out=bench/results-node-lines.md
if [ -n "${BENCH_QUICK:-}" ]; then lines_out=bench/.tmp/quick/results-node-lines.md; fi
node bench/.tmp/build/bench/report/node-lines.js "$lines_out" bench/.tmp/node-lines/*.json

# lockweave on node-redis, GLIDE, Redis Cluster and Redlock beside the floor on one Redis (bench/topologies.ts).
echo "bench: lockweave on each client and topology (bench/topologies.ts)"
"$(node_bin 24)" bench/.tmp/build/bench/topologies.js

# lockweave against a plain SET NX lock while a proxy resets and stalls their connections (bench/faults.ts).
echo "bench: the lock under connection faults (bench/faults.ts)"
"$(node_bin 24)" bench/.tmp/build/bench/faults.js

# What the routes (bundler plugins, Node's loader) add to a build or a start of a generated project.
if [ -n "${BENCH_QUICK:-}" ]; then export BENCH_ROUNDS="${BENCH_ROUNDS:-3}"; fi
echo "bench: what the routes add to a build or a start (bench/routes/)"
npx ts-node --transpile-only bench/routes/bundle-overhead.ts
npx ts-node --transpile-only bench/routes/loader-overhead.ts
npx ts-node --transpile-only bench/routes/runtime-load.ts

# Heap per held lock and per waiting caller, and that it comes back (on Node 24, the LTS headline).
echo "bench: heap per held lock and per waiting caller (bench/memory/)"
# Compiled with the rest of the bench: the runtime refuses to load under a TypeScript entry run
# without a lockweave route (ts-node's transpile-only is one), as an app's tagged methods would run unlocked.
node_modules/node24/bin/node --expose-gc bench/.tmp/build/bench/memory/heap-per-lock.js
