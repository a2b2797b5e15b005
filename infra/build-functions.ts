import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFunctions, defaultBundleOptions, type BundleOptions } from './bundling.ts';

/**
 * `node --import tsx infra/build-functions.ts [--ocr-engine=textract|tesseract] <outdir> <fn...>`: bundles the functions into `<outdir>/<fn>/` and
 * writes `<outdir>/analysis.json`. The CDK app runs it as a child process (its constructs are synchronous).
 */
const args = process.argv.slice(2);
const engineFlag = args[0]?.startsWith('--ocr-engine=') ? args.shift()!.slice('--ocr-engine='.length) : undefined;
const options: BundleOptions = {
  ocrEngine: (engineFlag as BundleOptions['ocrEngine'] | undefined) ?? defaultBundleOptions.ocrEngine,
};
const [outdir, ...fns] = args;
if (!outdir || fns.length === 0) {
  console.error('usage: build-functions.ts <outdir> <fn...>');
  process.exit(2);
}
const analyses = await buildFunctions(fns, outdir, options);
writeFileSync(join(outdir, 'analysis.json'), JSON.stringify(Object.fromEntries(analyses)));
