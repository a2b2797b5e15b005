// Throwaway prototype (not committed): the local runner bundled per thread entry, to measure one start both ways.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { esbuildOptions, projectRoot } from '../infra/bundling.ts';

const out = join(projectRoot, 'node_modules/.cache/h40t-runner');
const fns = readdirSync(join(projectRoot, 'functions')).filter((f) => !f.startsWith('_'));
const entries = ['http-thread', 'queues-thread', 'workers-thread'];
const src = (n: string) => pathToFileURL(join(projectRoot, 'local', `${n}.ts`)).href;
const dst = (n: string) => pathToFileURL(join(out, `${n}.js`)).href;

const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mjs)$/ }, (args) => {
      if (args.path.includes('/node_modules/') || args.path.includes('/infra/')) return undefined;
      let text = readFileSync(args.path, 'utf8');
      if (args.path.endsWith('/local/load-function.ts')) {
        text = text.replace(
          /const mod = \(await import\(new URL\(`\.\.\/functions\/\$\{fn\}\/handler\.ts`, import\.meta\.url\)\.href\)\)/,
          `const mod = (await ({${fns.map((f) => `'${f}': () => import('../functions/${f}/handler.ts')`).join(',')}} as Record<string, () => Promise<unknown>>)[fn]!())`,
        );
        if (!text.includes("import('../functions/send/handler.ts')")) throw new Error('load-function not rewritten');
      }
      if (args.path.endsWith('/local/threads.ts')) {
        text = text.replace('workerData: { entry: entry.href,', 'workerData: { entry: (globalThis as any).__sbThreadEntries?.[entry.href] ?? entry.href,');
      }
      text = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: text, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
    b.onResolve({ filter: /^sb-main$/ }, () => ({ path: 'sb-main', namespace: 'sb' }));
    b.onLoad({ filter: /.*/, namespace: 'sb' }, () => ({
      contents: `globalThis.__sbThreadEntries = ${JSON.stringify(Object.fromEntries(entries.map((n) => [src(n), dst(n)])))};\nawait import(${JSON.stringify(join(projectRoot, 'local/main.ts'))});\n`,
      resolveDir: projectRoot,
      loader: 'js',
    }));
  },
};
const base = esbuildOptions({ ocrEngine: 'tesseract' });
const t = performance.now();
await build({
  ...base,
  minify: false,
  sourcemap: false,
  entryPoints: { main: 'sb-main', ...Object.fromEntries(entries.map((n) => [n, join(projectRoot, 'local', `${n}.ts`)])) },
  splitting: true,
  outdir: out,
  external: [...(base.external ?? []), 'dynalite', 'fauxqs', 'smtp-server', 'esbuild', 'aws-cdk-lib', 'constructs'],
  plugins: [sourceUrls, ...(base.plugins ?? [])],
});
writeFileSync(join(out, 'package.json'), '{"type":"module"}');
console.log('built in', Math.round(performance.now() - t), 'ms');
