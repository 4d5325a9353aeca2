# Shared by the test commands (scripts/test-unit.sh, test.sh, test-all.sh): ava runs appended to
# one log, and the closing summary a CI log's tail shows.

TEST_LOG=test/.tmp/ava.log
TEST_STATUS=0
# Node 22 and later keep the compiled code of what they load (TypeScript's compiler, the bundlers,
# ava) here, for the thousands of processes a run starts: about a quarter of the toolchain suites'
# time. Node 20 has no such cache and ignores it. A test about the cache sets its own.
export NODE_COMPILE_CACHE="$PWD/test/.tmp/node-compile-cache"

test_log_start() {
  mkdir -p test/.tmp
  : > "$TEST_LOG"
}

# ava_run NODE_BINARY ARGS...: one ava run on that Node, its output kept in the log. A failed run
# sets TEST_STATUS and the next runs still go. (Variables set before the call reach ava.)
ava_run() {
  local node_bin="$1" started=$SECONDS
  shift
  "$node_bin" node_modules/ava/entrypoints/cli.mjs "$@" 2>&1 | tee -a "$TEST_LOG" || TEST_STATUS=$?
  # Each run's time, so a slower CI says which Node line or server grew.
  echo "test: that run took $((SECONDS - started)) s"
}

# ava_side_by_side COMMAND... [-- COMMAND...]: one command (a function that calls ava_run), or two
# at once. Two runs' output is held apart (a file and a log each) and shown whole, in order, as
# they end, so their lines never interleave in a CI log; their failures count as any run's.
ava_side_by_side() {
  local first=() second=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do first+=("$1"); shift; done
  if [ $# -gt 0 ]; then shift; second=("$@"); fi
  if [ ${#second[@]} = 0 ]; then "${first[@]}"; return; fi
  local dir=test/.tmp/side-by-side started=$SECONDS pids=() run
  mkdir -p "$dir"
  for run in 1 2; do
    if [ "$run" = 1 ]; then set -- "${first[@]}"; else set -- "${second[@]}"; fi
    (TEST_LOG="$dir/$run.log" TEST_STATUS=0 && : > "$TEST_LOG" && "$@" && exit "$TEST_STATUS") > "$dir/$run.out" 2>&1 &
    pids+=($!)
  done
  echo "test: two runs side by side: ${first[*]} | ${second[*]} (output as each ends)"
  for run in 1 2; do
    wait "${pids[run - 1]}" || TEST_STATUS=$?
    cat "$dir/$run.out"
    cat "$dir/$run.log" >> "$TEST_LOG"
  done
  echo "test: the two runs side by side took $((SECONDS - started)) s"
}

# True when an argument names files (not an option, nor an option's value): a run of chosen tests.
names_files() {
  local skip=0 arg
  for arg in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$arg" in
      -m | --match | -T | --timeout | -c | --concurrency | --node-arguments) skip=1 ;;
      -*) ;;
      *) return 0 ;;
    esac
  done
  return 1
}

# The paths among the arguments that exist (a folder another branch adds may not be here yet).
existing() {
  local path
  for path in "$@"; do if [ -e "$path" ]; then echo "$path"; fi; done
}

# ava's own closing lines read "13 tests passed" / "1 test failed" — but a run with a failure prints
# no "passed" line, so the passed tests are counted by their ✔ lines; CI reads the plain form.
# ava also fails a run whose tests all passed (an uncaught exception or unhandled rejection in a
# worker, a test file that exits non-zero or times out): those lines are repeated here, at the end,
# where a CI log's tail shows them, so a red run never ends on "0 failed" alone.
# Exits with the runs' status.
test_summary() {
  count() { awk -v what="$1" '$2 ~ /^tests?$/ && $3 == what { n += $1 } END { print n + 0 }' "$TEST_LOG"; }
  passed() { grep -c '^ *✔ ' "$TEST_LOG" || true; }
  local problems
  problems=$(grep -E '^(Uncaught exception in|Unhandled rejection in) |^ *✘ |^ *[0-9]+ (uncaught exceptions?|unhandled rejections?|tests? remained pending after a timeout)$' "$TEST_LOG" || true)
  if [ -n "$problems" ]; then
    echo "test: what failed a run (from $TEST_LOG):"
    echo "$problems" | sed 's/^ */  /'
  fi
  echo "$(passed) passed, $(count failed) failed"
  if [ "$TEST_STATUS" != 0 ] && [ -z "$problems" ] && [ "$(count failed)" = 0 ]; then
    echo "test: an ava run exited with $TEST_STATUS without a failed test or a reported error; see $TEST_LOG"
  fi
  exit "$TEST_STATUS"
}
