/**
 * Every adversarial PDF (test/support/pdf-bombs.ts) at full size (1 GiB of decoded payload, 2 GiB for the Brotli
 * file), each read in a fresh process with pdfjs and its decode bound already loaded: the outcome (which ceiling
 * refused it), wall and CPU time, and the process's RSS growth (peak while reading, sampled every 5 ms from here,
 * minus the RSS before). Medians of `--rounds`.
 *
 *   npx tsx bench/pdf-bombs.ts [--rounds 3] [--only brotli,lzw]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GiB, PDF_BOMBS } from '#test/support/pdf-bombs.ts';
import { argValue, machine, median, numberArg } from './lib/harness.ts';

const rounds = numberArg('rounds', 3);
const only = argValue('only')?.split(',');
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-bombs-'));

interface Run {
  outcome: string;
  ms: number;
  cpuMs: number;
  growthMb: number;
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

function runOne(file: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        './local/typescript-hooks.mjs',
        '--disable-warning=ExperimentalWarning',
        'bench/pdf-bombs-child.ts',
        file,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    let before = 0;
    let peak = 0;
    let sampler: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (!sampler && out.includes('ready\n')) {
        before = rssKb(child.pid!);
        peak = before;
        sampler = setInterval(() => {
          try {
            peak = Math.max(peak, rssKb(child.pid!));
          } catch {
            // exited
          }
        }, 5);
        child.stdin.write('go\n');
      }
    });
    child.on('exit', () => {
      clearInterval(sampler);
      const line = out.trim().split('\n').at(-1)!;
      try {
        const result = JSON.parse(line) as { outcome: string; ms: number; cpuMs: number };
        resolve({ ...result, growthMb: (peak - before) / 1024 });
      } catch {
        reject(new Error(`child failed: ${out}`));
      }
    });
  });
}

const rows: { name: string; bytes: number; outcome: string; ms: number; cpuMs: number; growthMb: number }[] = [];
for (const bomb of PDF_BOMBS.filter((b) => !only || only.includes(b.name))) {
  const decoded = [
    'brotli',
    'operator-flood',
    'contents-array-repeat',
    'form-fanout',
    'xref-stream-entries',
    'predictor-columns',
    'predictor-tiff-colors',
    'image-jpeg-frame',
    'image-jpx-size',
    'image-jbig2-page',
    'image-ccitt-size',
  ].includes(bomb.name)
    ? undefined
    : GiB;
  const bytes = await bomb.make(decoded === undefined ? undefined : { decoded });
  const file = join(dir, `${bomb.name}.pdf`);
  writeFileSync(file, bytes);
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) runs.push(await runOne(file));
  rows.push({
    name: bomb.name,
    bytes: bytes.length,
    outcome: runs[0]!.outcome,
    ms: median(runs.map((r) => r.ms)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    growthMb: median(runs.map((r) => r.growthMb)),
  });
  console.error(
    `${bomb.name}: ${runs.map((r) => `${r.outcome} ${Math.round(r.ms)} ms +${Math.round(r.growthMb)} MB`).join('; ')}`,
  );
}
rmSync(dir, { recursive: true, force: true });

console.log(
  `\n${machine()}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${new Date().toISOString()}`,
);
console.log(`npx tsx bench/pdf-bombs.ts --rounds ${rounds} (medians)\n`);
console.log('| file | bytes | outcome | wall ms | CPU ms | RSS growth MB |');
console.log('|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.bytes.toLocaleString('en')} | ${r.outcome} | ${Math.round(r.ms)} | ${Math.round(r.cpuMs)} | ${Math.round(r.growthMb)} |`,
  );
