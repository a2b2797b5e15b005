import type { PdfPageReader } from './text/extract.ts';

/**
 * The PDF text layer reader for knowledge files: the same code the extract endpoint uses (`shared/pdf`).
 * Undefined until that module exists; PDF uploads are then marked failed with a clear reason.
 */
export const pdfPageReader: PdfPageReader | undefined = undefined;
