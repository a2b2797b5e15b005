#!/usr/bin/env bash
# The test suite's time as CI sees it (bench/history/2026-11-test-suite-time.md): clones this checkout at REV (default HEAD) into a temp folder, runs
# `CI=true bash .ci/run` there under /usr/bin/time, and samples the machine's busy cores from /proc/stat every 2 s.
# Prints Vitest's Duration for `npm test`, `.ci/run`'s wall and CPU, and the cores kept busy during `npm test` (in all
# and by 30 s window); the run's log is left in /tmp/suite-time-ci.log.
# Run it on an otherwise quiet machine; alternate two revisions for a same-session anchor.
#
# Run: bash bench/suite-time.sh [REV]
set -euo pipefail
rev="${1:-HEAD}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${sampler:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q "$root" "$work/clone"
git -C "$work/clone" checkout -q "$rev"
# A same-run anchor: a fixed piece of single-threaded JavaScript work (400 JSON round trips of 2,000 objects), timed
# before and after the run. This machine's speed moves between runs; compare runs by their ratio to it.
anchor() {
  node -e "const t=process.hrtime.bigint();let o={a:[...Array(2000).keys()].map(i=>({i,s:'x'+i,n:{v:i*1.5}}))};for(let k=0;k<400;k++)o=JSON.parse(JSON.stringify(o));console.log(Number(process.hrtime.bigint()-t)/1e6|0)"
}
anchor_before="$(anchor)"
(while true; do echo "$(date +%s) $(head -1 /proc/stat)"; sleep 2; done) > "$work/stat.log" &
sampler=$!
# A failed run's whole log is kept (the folder goes with the exit): the end alone cuts off a failure's explanation.
(cd "$work/clone" && CI=true /usr/bin/time -v bash .ci/run > "$work/ci.log" 2>&1) || {
  failed_log="/tmp/suite-time-failed-$(date -u +%H%M).log"
  cp "$work/ci.log" "$failed_log"
  tail -50 "$work/ci.log"
  echo "the whole log: $failed_log"
  exit 1
}
kill "$sampler"
# Kept for a look at the files' times (Vitest's report) and the busy cores over time.
cp "$work/ci.log" /tmp/suite-time-ci.log
cp "$work/stat.log" /tmp/suite-time-stat.log
cp "$work/ci.log" "/tmp/suite-time-$(git -C "$work/clone" rev-parse --short HEAD)-$(date -u +%H%M).log"
duration="$(sed 's/\x1b\[[0-9;]*m//g' "$work/ci.log" | grep -m1 -oE 'Duration +[0-9.]+s' | grep -oE '[0-9.]+')"
echo "rev $(git -C "$work/clone" rev-parse --short HEAD), $(nproc) cores, $(date -u +%FT%TZ)"
echo "npm test (Vitest's Duration): ${duration} s"
echo "anchor (400 JSON round trips, ms): before ${anchor_before}, after $(anchor)"
grep -E 'Elapsed|User time|System time' "$work/ci.log" | sed 's/^\s*//'
# `npm test` is followed by the OpenAPI traffic check and the dependency check (~20 s): its window ends there.
python3 - "$work/stat.log" "$duration" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) > 5]
pts = [(int(r[0]), [int(x) for x in r[2:]]) for r in rows]
end = pts[-1][0] - 20
start = end - float(sys.argv[2])
busy = []
for (t0, a), (t1, b) in zip(pts, pts[1:]):
    total = sum(b) - sum(a)
    idle = (b[3] + b[4]) - (a[3] + a[4])
    if start <= t1 < end and total:
        busy.append(1 - idle / total)
import os
print(f"cores busy during npm test: {os.cpu_count() * sum(busy) / len(busy):.2f} of {os.cpu_count()}")
# By 30 s window: where the cores were left idle (the start, the last files).
window = 15
for i in range(0, len(busy), window):
    part = busy[i:i + window]
    print(f"  {i * 2:4d}-{(i + len(part)) * 2:4d} s: {os.cpu_count() * sum(part) / len(part):.2f}")
PY
