// How the local runner loads the project's TypeScript (`npm start` with `--import`, and each of the runner's threads,
// ./thread-bootstrap.mjs): Node's own type transform (`module.stripTypeScriptTypes`: types blanked in place, transform
// mode for the files with parameter properties), in the loading thread itself (`module.registerHooks`), its output
// kept on disk by file.
// Decision (measured: bench/history/2026-11-health-and-start-up.md): tsx's loader hooks run on a hooks thread of
// their own, and every import of every thread (hundreds of modules each: the AWS SDK, fauxqs, the functions) made a
// round trip to it; Node's `--experimental-transform-types` has no cache and spent ~0.9 s of CPU per start in its
// WebAssembly transform (~0.5 s on the HTTP thread alone). The V8 compile cache (NODE_COMPILE_CACHE) then applies to
// the transformed code as to any JavaScript. Plain JavaScript, so it needs no loader itself.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { fileURLToPath } from 'node:url';

const project = new URL('../', import.meta.url).href;
const cacheDir = fileURLToPath(new URL('node_modules/.cache/switchboard-typescript/', project));

/** The form of the transform's output, in each entry's stamp: an entry in another form is made again. */
const FORM = 'strip-first';

/**
 * A file whose types are only erasable (most of them) has them blanked in place: every position stays the source's,
 * so it needs no source map, which `--enable-source-maps` would decode, parse and measure at every load of the file
 * in every thread. A file with TypeScript-only code (parameter properties) is transformed, with its source map.
 */
function transform(source, url) {
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } catch (error) {
    if (error?.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw error;
    return stripTypeScriptTypes(source, { mode: 'transform', sourceMap: true, sourceUrl: url });
  }
}

registerHooks({
  load(url, context, nextLoad) {
    // Vitest imports its test and setup files with a query (`?vitest=<time>`): the file is the same.
    const file = url.split('?')[0];
    if (!file.startsWith(project) || !file.endsWith('.ts') || file.includes('/node_modules/'))
      return nextLoad(url, context);
    const source = readFileSync(new URL(file), 'utf8');
    // One entry per file, named by its file URL, valid for this exact source and this Node (its transform may change).
    const stamp = `// ${createHash('sha256').update(process.version).update(FORM).update(source).digest('base64url')}\n`;
    const entry = `${cacheDir}${createHash('sha256').update(file).digest('base64url')}.js`;
    let cached;
    try {
      cached = readFileSync(entry, 'utf8');
    } catch {
      // Not transformed yet.
    }
    if (cached?.startsWith(stamp)) return { format: 'module', source: cached.slice(stamp.length), shortCircuit: true };
    const code = transform(source, file);
    try {
      mkdirSync(cacheDir, { recursive: true });
      const temporary = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      writeFileSync(temporary, stamp + code);
      renameSync(temporary, entry);
    } catch {
      // A read-only checkout still runs, without the cache.
    }
    return { format: 'module', source: code, shortCircuit: true };
  },
});
