import { describe, expect, it } from 'vitest';
import { extractPdfPages } from '#shared/pdf/index.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';

/**
 * The decode bound fails closed: when it cannot reach pdfjs's decoders (here: the property its capture hook needs is
 * taken), no PDF is read at all, ordinary ones included, and the error says why. Its own file: the bound installs
 * once per process.
 */
describe('PDF decode bound: fail closed', () => {
  it('refuses every PDF when the bound cannot be installed', async () => {
    Object.defineProperty(Object.prototype, 'lexer', { value: undefined, writable: true, configurable: true });
    try {
      const file = await textPdf(['An ordinary page']);
      await expect(extractPdfPages(file)).rejects.toThrow(/Object\.prototype\.lexer already exists/);
      // And keeps refusing: the failed installation is not retried behind the caller's back.
      await expect(extractPdfPages(file)).rejects.toThrow(/Object\.prototype\.lexer already exists/);
    } finally {
      delete (Object.prototype as Record<string, unknown>).lexer;
    }
  });
});
