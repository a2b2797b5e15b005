import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBothEngines, buildFunctions, defaultBundleOptions, type BundleOptions } from './bundling.ts';

/**
 * `node --import tsx infra/build-functions.ts [--ocr-engine=textract|tesseract] [--tesseract-outdir=<dir>] <outdir> <fn...>`:
 * bundles the functions into `<outdir>/<fn>/` and writes `<outdir>/analysis.json`; with `--tesseract-outdir`, the
 * Tesseract deployment's bundles too, from the same build (infra/bundling.ts buildBothEngines). The CDK app runs it
 * as a child process (its constructs are synchronous).
 */
const args = process.argv.slice(2);
const flag = (name: string) => (args[0]?.startsWith(`--${name}=`) ? args.shift()!.slice(name.length + 3) : undefined);
const engineFlag = flag('ocr-engine');
const tesseractOutdir = flag('tesseract-outdir');
const options: BundleOptions = {
  ocrEngine: (engineFlag as BundleOptions['ocrEngine'] | undefined) ?? defaultBundleOptions.ocrEngine,
};
const [outdir, ...fns] = args;
if (!outdir || fns.length === 0 || (tesseractOutdir && options.ocrEngine !== 'textract')) {
  console.error(
    'usage: build-functions.ts [--ocr-engine=textract|tesseract] [--tesseract-outdir=<dir>] <outdir> <fn...>',
  );
  process.exit(2);
}
const write = (dir: string, analyses: Map<string, unknown>) =>
  writeFileSync(join(dir, 'analysis.json'), JSON.stringify(Object.fromEntries(analyses)));
if (tesseractOutdir) {
  const both = await buildBothEngines(fns, outdir, tesseractOutdir);
  write(outdir, both.textract);
  write(tesseractOutdir, both.tesseract);
} else {
  write(outdir, await buildFunctions(fns, outdir, options));
}
