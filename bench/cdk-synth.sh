#!/usr/bin/env bash
# What `cdk synth` costs: the pinned CLI synthesizing the stack (warm bundle cache, no credentials), N rounds, wall and
# CPU (user + sys, the CLI and the app it starts) of each, and the medians. With more than one checkout, the rounds
# alternate between them (a change in the machine's load falls on each), each checkout with its own cdk.json.
#
# Run: bash bench/cdk-synth.sh [-n 3] [checkout ...]   (default: this checkout)
set -euo pipefail
rounds=3
if [ "${1:-}" = "-n" ]; then rounds=$2; shift 2; fi
here="$(cd "$(dirname "$0")/.." && pwd)"
checkouts=("${@:-$here}")
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for _ in $(seq 1 "$rounds"); do
  for c in "${checkouts[@]}"; do
    (cd "$c" && /usr/bin/time -f "$c %e %U %S" -a -o "$out/times" "$here/node_modules/.bin/node" \
      node_modules/.bin/cdk synth --quiet --no-staging --output "$out/cdk.out" > /dev/null 2>&1)
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for c in "${checkouts[@]}"; do
  runs="$(grep "^$c " "$out/times")"
  wall="$(awk '{ print $2 }' <<< "$runs" | median)"
  cpu="$(awk '{ print $3 + $4 }' <<< "$runs" | median)"
  each="$(awk '{ printf " %.2f/%.2f", $2, $3 + $4 }' <<< "$runs")"
  echo "$c: wall ${wall} s, CPU ${cpu} s (medians of ${rounds}; wall/CPU each:${each})"
done
