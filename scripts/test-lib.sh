# Shared by the test commands (scripts/test-unit.sh, test.sh, test-all.sh): ava runs appended to
# one log, and the closing summary a CI log's tail shows.

TEST_LOG=test/.tmp/ava.log
TEST_STATUS=0

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
