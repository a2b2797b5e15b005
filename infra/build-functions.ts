import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFunctions } from './bundling.ts';

/**
 * `node --import tsx infra/build-functions.ts <outdir> <fn...>`: bundles the functions into `<outdir>/<fn>/` and
 * writes `<outdir>/analysis.json`. The CDK app runs it as a child process (its constructs are synchronous).
 */
const [outdir, ...fns] = process.argv.slice(2);
if (!outdir || fns.length === 0) {
  console.error('usage: build-functions.ts <outdir> <fn...>');
  process.exit(2);
}
const analyses = await buildFunctions(fns, outdir);
writeFileSync(join(outdir, 'analysis.json'), JSON.stringify(Object.fromEntries(analyses)));
