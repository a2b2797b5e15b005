import fc from 'fast-check';
import { extractPdfPages, PdfError, PdfTooLargeError } from '#shared/pdf/index.ts';
import { deflateSync } from 'node:zlib';
import { deflatedZeros, lzwZeros, MARKER } from './pdf-bomb-payloads.ts';
import { ABBREVIATIONS, COMPRESSING, encode, encodeChain, FILTERS, type FilterName } from './pdf-encoders.ts';
import { onePage, pdfStream, writePdf } from './pdf-writer.ts';
import type { Fuzzer } from './fuzzer.ts';

/** The PDF fuzzers of test/support/fuzzers.ts: filter chains and their spellings, object graphs. */

const warmPdfjs = async () => {
  await extractPdfPages(writePdf(onePage())).catch(() => undefined);
};

// ---------------------------------------------------------------------------------------------------------------
// PDF: filter names, their escapes and abbreviations, chains, indirect objects, parameters

interface FilterCase {
  filters: FilterName[];
  /** How each filter name is written: as is, abbreviated, `#xx`-escaped at these positions, or mangled. */
  spellings: (
    | { kind: 'plain' }
    | { kind: 'short' }
    | { kind: 'escape'; mask: boolean[] }
    | { kind: 'unknown'; name: string }
  )[];
  payload: 'text' | 'bomb' | 'noise';
  noise: Uint8Array;
  /** `/Filter` as a name, an array, or through indirect objects. */
  form: 'direct' | 'indirect' | 'indirect-items';
  params: { predictor: number; columns: number; colors: number; bits: number } | null;
  padding: number;
  /** An image-like key in a content stream's dictionary (a higher ceiling for images must not apply). */
  decoy: '' | '/Width 6000 /Height 6000' | '/Subtype /Image';
}

const BOMB_BYTES = 20 * 1024 * 1024;

/** The innermost layer of a bomb: `MARKER` then 20 MiB of zeros, compressed once per filter and kept. */
const bombLayers = new Map<FilterName, Promise<Buffer>>();
function bombLayer(filter: FilterName): Promise<Buffer> {
  let layer = bombLayers.get(filter);
  if (!layer) {
    layer =
      filter === 'FlateDecode'
        ? deflatedZeros(BOMB_BYTES)
        : filter === 'LZWDecode'
          ? Promise.resolve(lzwZeros(BOMB_BYTES))
          : Promise.resolve(encode(filter, Buffer.concat([Buffer.from(MARKER, 'latin1'), Buffer.alloc(BOMB_BYTES)])));
    bombLayers.set(filter, layer);
  }
  return layer;
}

function spell(filter: FilterName, spelling: FilterCase['spellings'][number]): string {
  if (spelling.kind === 'short') return ABBREVIATIONS[filter] ?? filter;
  if (spelling.kind === 'unknown') return spelling.name;
  if (spelling.kind === 'escape')
    return [...filter]
      .map((c, i) =>
        spelling.mask[i % spelling.mask.length] ? `#${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c,
      )
      .join('');
  return filter;
}

const filterCase: fc.Arbitrary<FilterCase> = fc
  .record({
    payload: fc.constantFrom('text' as const, 'bomb' as const, 'noise' as const),
    filters: fc.array(fc.constantFrom(...FILTERS), { minLength: 1, maxLength: 3 }),
    innermost: fc.constantFrom(...COMPRESSING),
    spellings: fc.array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant({ kind: 'plain' as const }) },
        { weight: 2, arbitrary: fc.constant({ kind: 'short' as const }) },
        {
          weight: 2,
          arbitrary: fc
            .array(fc.boolean(), { minLength: 1, maxLength: 16 })
            .map((mask) => ({ kind: 'escape' as const, mask })),
        },
        {
          weight: 1,
          arbitrary: fc
            .oneof(
              fc.constantFrom('Foo', 'flatedecode', 'Flate', 'FlateDecodeX', 'Crypt2', 'DCTDecode2'),
              fc.stringMatching(/^[A-Za-z0-9]{1,12}$/),
            )
            .map((name) => ({ kind: 'unknown' as const, name })),
        },
      ),
      { minLength: 3, maxLength: 3 },
    ),
    noise: fc.uint8Array({ maxLength: 2048 }),
    form: fc.constantFrom('direct' as const, 'indirect' as const, 'indirect-items' as const),
    params: fc.option(
      fc.record({
        predictor: fc.integer({ min: 0, max: 16 }),
        columns: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 2 ** 31 - 1 })),
        colors: fc.integer({ min: 1, max: 300 }),
        bits: fc.constantFrom(1, 2, 4, 8, 16, 32),
      }),
      { freq: 4 },
    ),
    padding: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 6000 })),
    decoy: fc.constantFrom('' as const, '/Width 6000 /Height 6000' as const, '/Subtype /Image' as const),
  })
  .map(({ innermost, ...c }) => ({
    ...c,
    // A bomb's innermost filter compresses (hex of 20 MiB would be a 40 MiB file).
    filters: c.payload === 'bomb' ? [...c.filters.slice(0, 2), innermost] : c.filters,
  }));

async function filterPdf(c: FilterCase): Promise<Buffer> {
  const names = c.filters.map((f, i) => spell(f, c.spellings[i] ?? { kind: 'plain' }));
  let data: Uint8Array;
  if (c.payload === 'noise') data = c.noise;
  else if (c.payload === 'text')
    data = encodeChain(c.filters, Buffer.from('BT /F1 12 Tf 72 700 Td (fuzz) Tj ET', 'latin1'));
  else data = encodeChain(c.filters.slice(0, -1), await bombLayer(c.filters.at(-1)!));
  const extra: string[] = [];
  const ref = (body: string) => {
    extra.push(body);
    return `${5 + extra.length} 0 R`;
  };
  const list = names.map((n) => `/${n}`);
  const filter =
    c.form === 'direct'
      ? list.length === 1
        ? list[0]!
        : `[${list.join(' ')}]`
      : c.form === 'indirect'
        ? ref(list.length === 1 ? list[0]! : `[${list.join(' ')}]`)
        : `[${list.map((n) => ref(n)).join(' ')}]`;
  const params = c.params
    ? ` /DecodeParms << /Predictor ${c.params.predictor} /Columns ${c.params.columns} /Colors ${c.params.colors} /BitsPerComponent ${c.params.bits} >>`
    : '';
  const padding = c.padding ? ` /Pad (${'x'.repeat(c.padding)})` : '';
  return writePdf([...onePage(), pdfStream(`/Filter ${filter}${params}${padding} ${c.decoy}`, data), ...extra]);
}

const describeFilterCase = (c: FilterCase) =>
  `${c.payload} under [${c.filters.map((f, i) => spell(f, c.spellings[i] ?? { kind: 'plain' })).join(' ')}] (${c.form}` +
  `${c.params ? `, predictor ${c.params.predictor}` : ''}${c.decoy ? `, ${c.decoy}` : ''})`;

export const pdfFilterFuzzer: Fuzzer<FilterCase, Buffer> = {
  name: 'PDF filters',
  inputs: filterCase,
  budget: { ms: 8_000, mb: 256 },
  describe: describeFilterCase,
  warmUp: warmPdfjs,
  prepare: filterPdf,
  async run(bytes, c) {
    const outcome: Awaited<ReturnType<typeof extractPdfPages>> | Error = await extractPdfPages(bytes).then(
      (read) => read,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    if (outcome instanceof Error && !(outcome instanceof PdfError)) throw outcome;
    const unknown = c.filters.some((_, i) => c.spellings[i]?.kind === 'unknown');
    // A filter pdfjs does not know is refused, never passed through (an empty stream has nothing to decode: pdfjs
    // gives it an empty stream whatever its filter, found by the fuzzer and harmless).
    const empty = c.payload === 'noise' && c.noise.length === 0;
    if (unknown && !empty && !(outcome instanceof PdfTooLargeError && outcome.limit === 'filter'))
      throw new Error(`an unknown filter was not refused: ${describeFilterCase(c)} → ${describe(outcome)}`);
    // A bomb under known filters is refused by a ceiling, never read.
    if (!unknown && c.payload === 'bomb' && !c.params && !(outcome instanceof PdfTooLargeError))
      throw new Error(`a bomb was not refused: ${describeFilterCase(c)} → ${describe(outcome)}`);
    // Text under known filters reads as it was written, whatever the spelling or indirection.
    if (!unknown && c.payload === 'text' && !c.params) {
      const text = outcome instanceof Error ? outcome.message : outcome.pages[0]?.text;
      if (text !== 'fuzz') throw new Error(`text did not read back: ${describeFilterCase(c)} → ${describe(outcome)}`);
    }
  },
};

function describe(outcome: unknown): string {
  if (outcome instanceof Error) return `${outcome.name}: ${outcome.message}`;
  return JSON.stringify(outcome).slice(0, 200);
}

// PDF: object graphs (indirect objects, cycles, repeats, forms drawing forms)

interface GraphCase {
  /** Objects 6.. : forms (content: draws of other forms) or plain content streams. */
  forms: { draws: number[]; zeros: number }[];
  contents: number[];
  kidsCycle: boolean;
  lengthByReference: boolean;
}

const graphCase: fc.Arbitrary<GraphCase> = fc.record({
  forms: fc.array(
    fc.record({
      draws: fc.array(fc.nat({ max: 7 }), { maxLength: 1500 }),
      zeros: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 * 1024 * 1024 })),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  contents: fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 1500 }),
  kidsCycle: fc.boolean(),
  lengthByReference: fc.boolean(),
});

async function graphPdf(c: GraphCase): Promise<Buffer> {
  const first = 6;
  const n = c.forms.length;
  const resources = `/XObject << ${c.forms.map((_, i) => `/Fm${i} ${first + i} 0 R`).join(' ')} >>`;
  const page = onePage(`[${c.contents.map((i) => `${first + (i % n)} 0 R`).join(' ')}]`, resources);
  if (c.kidsCycle) page[1] = '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>';
  const objects: (string | Buffer)[] = [...page, '<< >>'];
  for (const form of c.forms) {
    const content = Buffer.concat([
      Buffer.from(`${MARKER}${form.draws.map((d) => `/Fm${d % n} Do`).join('\n')}\n`, 'latin1'),
      Buffer.alloc(form.zeros),
    ]);
    const data = deflateSync(content);
    const dict = `/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << ${resources} /Font << /F1 4 0 R >> >> /Filter /FlateDecode`;
    objects.push(pdfStream(dict, data));
  }
  return writePdf(objects);
}

export const pdfGraphFuzzer: Fuzzer<GraphCase, Buffer> = {
  name: 'PDF object graphs',
  inputs: graphCase,
  budget: { ms: 8_000, mb: 256 },
  describe: (c) =>
    `${c.forms.length} forms drawing ${c.forms.reduce((s, f) => s + f.draws.length, 0)} forms, ${c.contents.length} content parts` +
    `${c.kidsCycle ? ', a cycle in /Kids' : ''}`,
  warmUp: warmPdfjs,
  prepare: graphPdf,
  async run(bytes) {
    const outcome = await extractPdfPages(bytes).catch((error: unknown) => error);
    if (outcome instanceof Error && !(outcome instanceof PdfError)) throw outcome;
  },
};
