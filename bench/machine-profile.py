#!/usr/bin/env python3
"""Where the whole machine's cycles go during a command, by what the CPU was doing: inside Node, V8's interpreter and
built-ins, the code it generates at run time, its optimizing compiler, its collector and parser, the kernel and native
libraries; beside Node, Chromium and the rest. machine-cpu.py counts CPU by process; this one looks inside the
processes, from `perf` samples of every CPU, so it needs no flag on the processes themselves.

`record OUT -- COMMAND...`: runs COMMAND under `perf record -a` (every CPU, 99 samples a second, no call stacks) into
OUT, then prints the summary. `summary OUT`: the summary of a recording.

Node is sampled without `--perf-basic-prof`, so the code V8 generates at run time (baseline and optimized functions,
compiled regular expressions) is one bucket. Everything else V8 runs is in the `node` binary and named: `Builtins_*`
are the interpreter's bytecode handlers and the built-in functions and inline caches all JavaScript calls,
`compiler::` is the optimizing compiler (TurboFan), and the collector's classes name themselves.

Run: python3 bench/machine-profile.py record /tmp/p.data -- npx vitest run --project unit
     python3 bench/machine-profile.py summary /tmp/p.data
Needs `perf` (Debian: apt-get install linux-perf) and perf_event_paranoid at most 1, or root.
"""
import collections
import re
import subprocess
import sys

# Chromium's threads by their names (perf sees a thread's name, not its process's command line).
CHROMIUM = re.compile(r'^(chrom|Chrome_|ThreadPool|VizCompositor|Compositor|CrGpuMain|CrRendererMain|GpuMemory|'
                      r'MemoryInfra|HangWatcher|Media|AudioThread|VizWebView|PerfettoTrace|NetworkService|dconf|gmain|'
                      r'gdbus|pool-spawner)')
NODE = re.compile(r'^(node|MainThread|libuv-worker|V8 |DelayedTaskSch|WorkerThread|npm|npx|vitest)')
COLLECTOR = re.compile(r'Scaveng|Marking|Mark[A-Z]|Sweep|Evacuat|Compactor|RememberedSet|SlotSet|Heap::|MinorMC|'
                       r'ConcurrentMark|IncrementalMark|HeapObject::SizeFromMap|PagedSpace|MemoryChunk|LargeObjectSpace|'
                       r'MemoryAllocator|GCTracer')
PARSER = re.compile(r'Parser|Scanner|PreParse|BytecodeGenerator|BytecodeArrayBuilder|AstValueFactory|'
                    r'interpreter::|Compiler::Compile|CodeSerializer|Deserializer|SharedFunctionInfo::')


JIT = 'code generated at run time (baseline, optimized, regexp)'


def in_node_binary(dso):
    return dso.rsplit('/', 1)[-1] == 'node'


def kind(comm, dso, sym):
    if comm == 'swapper' or 'safe_halt' in sym or sym.startswith('cpuidle') or 'default_idle' in sym:
        return None, None
    if dso.startswith('[kernel'):
        side = 'kernel'
    elif dso.startswith('[JIT]') or dso.startswith('/tmp/perf-') or dso == '[unknown]':
        side = JIT
    elif in_node_binary(dso):
        if 'compiler::' in sym or 'maglev' in sym.lower() or 'turboshaft' in sym.lower():
            side = 'optimizing compiler (TurboFan)'
        elif COLLECTOR.search(sym):
            side = 'garbage collector'
        elif sym.startswith('Builtins_'):
            side = 'interpreter handlers, built-ins, inline caches (Builtins_*)'
        elif PARSER.search(sym):
            side = 'parser and bytecode compiler'
        elif 'node::' in sym or sym.startswith('uv_') or sym.startswith('llhttp'):
            side = "Node's C++ and libuv"
        else:
            side = 'V8 runtime, other'
    else:
        base = dso.rsplit('/', 1)[-1]
        side = 'native: ' + re.sub(r'\.so[.\d]*$', '', base)  # libc, zlib inside Node, addons (.node)
    if CHROMIUM.match(comm) or 'chrom' in dso:
        who = 'Chromium'
    elif 'esbuild' in comm or 'esbuild' in dso:
        who = 'esbuild'
    elif NODE.match(comm) or in_node_binary(dso) or dso.startswith('[JIT]'):
        who = 'Node'
    else:
        who = 'other: ' + comm
    return who, side


def summary(data):
    # One line a sample: the command's name, the address, the symbol, (the file it is in).
    out = subprocess.run(['perf', 'script', '-i', data, '-G', '-F', 'comm,ip,sym,dso'], capture_output=True,
                         text=True, check=True).stdout
    total = 0
    idle = 0
    by_who = collections.Counter()
    by_side = collections.Counter()
    by_sym = collections.Counter()
    for line in out.splitlines():
        m = re.match(r'^\s*(.*?)\s+([0-9a-f]+)\s+(.*?)\s*\(([^()]*)\)\s*$', line)
        if not m:
            continue
        comm, sym, dso = m.group(1).strip(), m.group(3) or '[unknown]', m.group(4)
        total += 1
        who, side = kind(comm, dso, sym)
        if who is None:
            idle += 1
            continue
        by_who[who] += 1
        if who == 'Node':
            by_side[side] += 1
            by_sym[JIT if side == JIT else f'{sym} ({dso.rsplit("/", 1)[-1]})'] += 1
    busy = total - idle
    if not busy:
        print('no busy samples')
        return
    print(f'{total} samples, {100 * busy / total:.1f} % busy')
    print('\nbusy samples by process kind:')
    for who, n in by_who.most_common(8):
        print(f'  {100 * n / busy:5.1f} %  {who}')
    node = sum(by_side.values())
    print(f'\ninside Node ({100 * node / busy:.1f} % of busy):')
    for side, n in by_side.most_common(14):
        print(f'  {100 * n / node:5.1f} %  {side}')
    print('\nNode\'s largest symbols (% of Node):')
    for sym, n in by_sym.most_common(15):
        print(f'  {100 * n / node:5.2f} %  {sym[:110]}')


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == 'record' and sys.argv[3] == '--':
        data = sys.argv[2]
        code = subprocess.run(['perf', 'record', '-F', '99', '-a', '-q', '-o', data, '--', *sys.argv[4:]]).returncode
        summary(data)
        sys.exit(code)
    if len(sys.argv) == 3 and sys.argv[1] == 'summary':
        summary(sys.argv[2])
        return
    print(__doc__)
    sys.exit(2)


main()
