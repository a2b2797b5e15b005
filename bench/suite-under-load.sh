#!/usr/bin/env bash
# The test suite on a slower machine: `npx vitest run` in this checkout with N busy loops beside it (each a Node
# process spinning on one core), so that every file gets less of the two cores than CI gives it. A test whose budget
# (a timeout, a deadline, a p99 bound) only holds on an idle machine fails here first, instead of failing CI at
# random. Prints Vitest's result and Duration, and the slowest single tests with the time they took, to compare
# against their timeouts; the run's log is left in /tmp/suite-under-load-<N>.log.
#
# Run: bash bench/suite-under-load.sh [N=2]
set -euo pipefail
loops="${1:-2}"
cd "$(dirname "$0")/.."
log="/tmp/suite-under-load-${loops}.log"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for _ in $(seq 1 "$loops"); do
  node -e 'for (;;) {}' &
  pids+=($!)
done
status=0
npx vitest run > "$log" 2>&1 || status=$?
plain="$(sed 's/\x1b\[[0-9;]*m//g' "$log")"
echo "$(nproc) cores, ${loops} busy loops beside the suite, $(date -u +%FT%TZ), exit ${status}"
grep -E '^ +(Test Files|Tests|Duration) ' <<< "$plain" || true
grep -E '^ +(FAIL|×) ' <<< "$plain" | head -20 || true
echo 'slowest single tests (ms):'
# A test's own line is indented further than its file's line.
grep -E '^ {5,}✓ .* [0-9]+ms$' <<< "$plain" | awk '{t = $NF; sub("ms", "", t); print t, $0}' | sort -rn | head -15 |
  cut -c1-160
exit "$status"
