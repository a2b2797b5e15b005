#!/usr/bin/env bash
# A newcomer's clone → first successful call, timed, doing exactly what the README says: its first shell block
# (npm install, then npm start, left running) and, once the service is up, its second (the first call).
#
#   scripts/newcomer.sh [REPO] [--cold-cache]
#
# REPO: what to clone (default: this checkout's committed HEAD). --cold-cache: npm gets an empty cache of its own, so
# every package comes from the registry, as on a machine that never installed it. Two literals are replaced: the
# README's port 3000 by a free one and the inbound-mail port by 0 (any free one), so a service already running on
# this machine does not collide. Prints each step's time and exits non-zero if the first call did not succeed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$here"
cold=0
for arg in "$@"; do
  case "$arg" in
    --cold-cache) cold=1 ;;
    *) repo="$arg" ;;
  esac
done

work="$(mktemp -d /tmp/switchboard-newcomer-XXXXXX)"
service_pid=""
cleanup() {
  if [ -n "$service_pid" ]; then kill -TERM -- "-$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$cold" = 1 ]; then export npm_config_cache="$work/npm-cache"; fi
port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"

# The README's top-level ```sh blocks, by number.
block() { awk -v n="$1" '/^```sh$/ { c++; inside = (c == n); next } /^```$/ { inside = 0; next } inside' README.md; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(now)
git clone --quiet --no-hardlinks "$repo" "$work/switchboard"
cd "$work/switchboard"
t_clone=$(now)

# Block 1, as written: every line but the last runs to its end; the last (npm start) keeps running.
mapfile -t setup < <(block 1 | sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$')
for line in "${setup[@]:0:${#setup[@]}-1}"; do
  echo "\$ $line"
  bash -c "$line" > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
done
t_install=$(now)
echo "\$ ${setup[-1]}   (PORT=$port SMTP_INBOUND_PORT=0)"
PORT="$port" SMTP_INBOUND_PORT=0 setsid bash -c "${setup[-1]}" > "$work/service.log" 2>&1 &
service_pid=$!
until grep -q 'Switchboard is running' "$work/service.log"; do
  if ! kill -0 "$service_pid" 2>/dev/null; then cat "$work/service.log"; exit 1; fi
  sleep 0.2
done
t_start=$(now)

# Block 2, the first call, in a second shell in the same folder.
call="$(block 2 | sed "s|http://127.0.0.1:3000|http://127.0.0.1:$port|g")"
answer="$(bash -c "set -e; $call" 2>&1)" || { echo "$answer"; exit 1; }
t_call=$(now)
echo "$answer" | tail -1
echo "$answer" | grep -q '"success":true' || { echo "the first call did not succeed"; exit 1; }

echo
echo "clone $(secs "$t0" "$t_clone") s, npm install $(secs "$t_clone" "$t_install") s, npm start to ready $(secs "$t_install" "$t_start") s, first call $(secs "$t_start" "$t_call") s"
echo "clone → first successful call: $(secs "$t0" "$t_call") s (cache: $([ "$cold" = 1 ] && echo cold || echo warm); load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime))"
