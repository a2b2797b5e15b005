import { beforeAll } from 'vitest';
import { buildFunctionsSync } from '#infra/bundle-cache.ts';
import { functionSpecs } from '#infra/functions.ts';

/**
 * The stack's tests synthesize both OCR engines' deployments. The Tesseract bundles asked for before any synthesis
 * are made with the default ones in one build when neither is cached (infra/bundle-cache.ts), rather than after them
 * in a build of their own. Imported first by ./stack.test.ts, so that its hook runs before the suites'.
 */
beforeAll(() => {
  buildFunctionsSync(
    functionSpecs().map((s) => s.fn),
    { ocrEngine: 'tesseract' },
  );
}, 600_000);
