#!/usr/bin/env python3
"""Where the whole machine's CPU goes during a command, by kind of process (the test suite's map beside the CPU log,
which sees only the test files and the group services).

`sample OUT`: reads every process's CPU from /proc each second until SIGTERM, then writes one JSON line per process
(pid, CPU seconds spent while sampled, first and last time seen, command line). A process alive at the first sweep
counts from there; one born later counts from its start. A process that ends between two sweeps loses its last second.
`summary OUT`: CPU seconds by kind (Vitest's workers and main process, the services the tests start, Chromium, esbuild,
the rest), largest first.

Run: python3 bench/machine-cpu.py sample /tmp/m.jsonl & sampler=$!; <command>; kill $sampler
     python3 bench/machine-cpu.py summary /tmp/m.jsonl
"""
import json
import os
import re
import signal
import sys
import time


def sample(out):
    seen = {}  # (pid, start time) -> [command, ticks now, ticks at first sight, first seen, last seen]
    first_sweep = True

    def write(*_):
        with open(out, 'w') as f:
            for (pid, _), (cmd, ticks, base, t0, t1) in seen.items():
                f.write(json.dumps({'pid': pid, 'cpu': (ticks - base) / os.sysconf('SC_CLK_TCK'), 'first': t0,
                                    'last': t1, 'cmd': cmd}) + '\n')
        sys.exit(0)

    signal.signal(signal.SIGTERM, write)
    while True:
        now = time.time()
        for p in os.listdir('/proc'):
            if not p.isdigit():
                continue
            try:
                with open(f'/proc/{p}/stat') as f:
                    stat = f.read()
                fields = stat[stat.rindex(')') + 2:].split()
                ticks = int(fields[11]) + int(fields[12])  # utime + stime
                key = (int(p), fields[19])  # pid and start time: a reused pid is another process
                if key in seen:
                    seen[key][1] = ticks
                    seen[key][4] = now
                else:
                    with open(f'/proc/{p}/cmdline', 'rb') as f:
                        cmd = f.read().replace(b'\0', b' ').decode(errors='replace')[:300]
                    seen[key] = [cmd, ticks, ticks if first_sweep else 0, now, now]
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
        first_sweep = False
        time.sleep(1)


KINDS = [
    ('chromium', re.compile(r'chrom', re.I)),
    ('esbuild', re.compile(r'esbuild')),
    ('vitest workers', re.compile(r'vitest/dist/workers|/forks\.js')),
    ('vitest main', re.compile(r'vitest(\.mjs)? run|\.bin/vitest')),
    ('services the tests start', re.compile(r'local/main\.ts|/main\.js\b|service-host\.[jt]s')),
    ('tsc', re.compile(r'\btsc\b')),
    ('npm', re.compile(r'\bnpm\b|npm-cli')),
]


def summary(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    sums = {}
    for r in rows:
        kind = next((k for k, rx in KINDS if rx.search(r['cmd'])), 'kernel threads' if not r['cmd'] else 'other')
        n, cpu = sums.get(kind, (0, 0.0))
        sums[kind] = (n + 1, cpu + r['cpu'])
    total = sum(cpu for _, cpu in sums.values())
    print(f'{total:.1f} s of CPU over {len(rows)} processes')
    for kind, (n, cpu) in sorted(sums.items(), key=lambda kv: -kv[1][1]):
        print(f'{cpu:8.1f} s  {n:5d}  {kind}')


if __name__ == '__main__':
    mode, out = sys.argv[1], sys.argv[2]
    sample(out) if mode == 'sample' else summary(out)
