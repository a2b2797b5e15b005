import fc from 'fast-check';
import { HttpError } from '#shared/http/errors.ts';
import { parseJsonObjectBody } from '#shared/http/middleware.ts';
import { MultipartError, parseMultipart } from '#shared/http/multipart.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { htmlToText } from '#shared/kernel/html-text.ts';
import { markdownToText } from '#shared/knowledge/index.ts';
import { MAIL_LIMITS, normaliseTwilio, normaliseWhatsApp, parseMail } from '#shared/messaging/index.ts';
import { parseBoundedJson, JsonShapeError } from '#shared/kernel/json-shape.ts';
import { extractPdfPages, PdfError, PdfTooLargeError } from '#shared/pdf/index.ts';
import { deflateSync } from 'node:zlib';
import { dsnFuzzer } from './dsn-fuzzer.ts';
import { deflatedZeros, lzwZeros, MARKER } from './pdf-bombs.ts';
import { ABBREVIATIONS, COMPRESSING, encode, encodeChain, FILTERS, type FilterName } from './pdf-encoders.ts';
import { onePage, pdfStream, writePdf } from './pdf-writer.ts';
import { openAiRequestFuzzer, schemaSampleFuzzer } from './fuzzers-openai.ts';
import type { Fuzzer } from './fuzzer.ts';

/**
 * Fuzzers for every parser of untrusted bytes, shared by the tests (test/unit/untrusted-input-fuzz.test.ts:
 * a few seconds each in `npm test`) and the bench (bench/fuzz.ts: longer, inputs per second and the slowest input).
 * Each builds inputs meant to hurt (filter names and their escapes, filter chains, indirect objects, nested and
 * unterminated markup, huge runs of special characters), runs the parser, and throws when the outcome is not one the
 * parser may give; the caller holds each input to the fuzzer's time and memory budget.
 */
export type { Fuzzer } from './fuzzer.ts';

const warmPdfjs = async () => {
  await extractPdfPages(writePdf(onePage())).catch(() => undefined);
};

/**
 * Runs one input under its fuzzer's budget: CPU time (this process's, all threads: steady on a shared machine where
 * wall time is not) and memory growth. Returns what it cost, or throws naming the input when over.
 */
export async function runWithinBudget<T, P>(
  fuzzer: Fuzzer<T, P>,
  input: T,
): Promise<{ ms: number; cpuMs: number; mb: number }> {
  const memory = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const prepared = await fuzzer.prepare(input);
  const before = memory();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fuzzer.run(prepared, input);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const mb = Math.max(0, memory() - before) / 2 ** 20;
  if (cpuMs > fuzzer.budget.ms || mb > fuzzer.budget.mb)
    throw new Error(
      `${fuzzer.name}: ${fuzzer.describe(input)} took ${Math.round(cpuMs)} ms of CPU and ${Math.round(mb)} MB ` +
        `(budget ${fuzzer.budget.ms} ms, ${fuzzer.budget.mb} MB)`,
    );
  return { ms, cpuMs, mb };
}

/** Text made of runs (up to `maxRun` repeats) of the given pieces, and short random strings. */
export const runsOf = (pieces: string[], maxRun: number, maxRuns = 8) =>
  fc
    .array(
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .tuple(fc.constantFrom(...pieces), fc.integer({ min: 1, max: maxRun }))
            .map(([p, n]) => p.repeat(n)),
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
      ),
      { minLength: 1, maxLength: maxRuns },
    )
    .map((parts) => parts.join(''));

const size = (text: string) => `${text.length.toLocaleString('en')} chars`;

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

// ---------------------------------------------------------------------------------------------------------------
// HTML: nested, unterminated and stray markup, entities, huge runs

const htmlPieces = [
  '<',
  '<b>',
  '</i>',
  '<div>',
  '</div>',
  '<p>',
  '<svg>',
  '</svg>',
  '<script>',
  '</script>',
  '<style>',
  '<!--',
  '-->',
  '<![CDATA[',
  '<a href="',
  '"',
  "'",
  '=',
  '&',
  '&amp;',
  '&#x',
  '&#9999999;',
  '<br/>',
  '<table><td>',
  '<title>',
  ' ',
  '\n',
  'palavra',
];
const html = runsOf(htmlPieces, 60_000, 10);

export const htmlFuzzer: Fuzzer<string, string> = {
  name: 'HTML to text',
  inputs: html,
  budget: { ms: 1_500, mb: 256 },
  describe: size,
  prepare: (input) => input,
  async run(input) {
    const { text } = htmlToText(input);
    if (text.length > input.length) throw new Error('the text is longer than its HTML');
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Markdown: long lines of emphasis, links, code and table syntax

const markdownPieces = [
  '**a ',
  '**',
  '__',
  '_a',
  '*a',
  '[',
  ']',
  '[a](',
  '(',
  ')',
  '![',
  '`',
  '|',
  '|---',
  '#',
  '> ',
  '<!--',
  '-->',
  ' ',
  '\n',
  'palavra',
];
export const markdownFuzzer: Fuzzer<string, string> = {
  name: 'Markdown to text',
  inputs: runsOf(markdownPieces, 12_000, 10),
  budget: { ms: 1_500, mb: 256 },
  describe: size,
  prepare: (input) => input,
  async run(input) {
    markdownToText(input);
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Mail: MIME structure (nesting, boundaries, encodings, header floods) around hostile HTML

interface MailPart {
  type: string;
  encoding: '7bit' | 'base64' | 'quoted-printable';
  body: string;
}
interface MailCase {
  depth: number;
  parts: MailPart[];
  headerFlood: number;
  foldedHeader: number;
  boundary: string;
}

const mailCase: fc.Arbitrary<MailCase> = fc.record({
  depth: fc.integer({ min: 0, max: 40 }),
  parts: fc.array(
    fc.record({
      type: fc.constantFrom(
        'text/html',
        'text/plain',
        'text/html; charset=iso-8859-1',
        'application/octet-stream',
        'message/rfc822',
      ),
      encoding: fc.constantFrom('7bit' as const, 'base64' as const, 'quoted-printable' as const),
      body: runsOf([...htmlPieces, '=', '=3D', '=\r\n', '--', '\r\n'], 40_000, 6),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  headerFlood: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
  foldedHeader: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 })),
  boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,69}$/),
});

function mailBytes(c: MailCase): Buffer {
  const part = (p: MailPart) => {
    const body =
      p.encoding === 'base64'
        ? (
            Buffer.from(p.body, 'latin1')
              .toString('base64')
              .match(/.{1,76}/g) ?? []
          ).join('\r\n')
        : p.body;
    return `Content-Type: ${p.type}\r\nContent-Transfer-Encoding: ${p.encoding}\r\n\r\n${body}`;
  };
  let inner = `${c.parts.map((p, i) => `--${c.boundary}${i}\r\n${part(p)}\r\n`).join('')}--${c.boundary}0--\r\n`;
  let content = `Content-Type: multipart/mixed; boundary="${c.boundary}0"\r\n\r\n${inner}`;
  for (let d = 0; d < c.depth; d++) {
    // Each level's boundary is a prefix of the next one's: the hardest case for a boundary search.
    const b = `${c.boundary}${d}x`;
    inner = `--${b}\r\n${content}\r\n--${b}--\r\n`;
    content = `Content-Type: multipart/mixed; boundary="${b}"\r\n\r\n${inner}`;
  }
  const flood = Array.from({ length: c.headerFlood }, (_, i) => `X-H${i}: ${i}\r\n`).join('');
  const folded = c.foldedHeader ? `X-Folded: ${'a\r\n '.repeat(c.foldedHeader)}\r\n` : '';
  return Buffer.from(
    `From: a@example.org\r\nTo: support@inbound.example.com\r\nSubject: fuzz\r\n${flood}${folded}MIME-Version: 1.0\r\n${content}`,
    'latin1',
  );
}

export const mailFuzzer: Fuzzer<MailCase, Buffer> = {
  name: 'Mail (MIME)',
  inputs: mailCase,
  budget: { ms: 5_000, mb: 256 },
  describe: (c) =>
    `${mailBytes(c).length.toLocaleString('en')} bytes, ${c.parts.length} parts ${c.depth} levels deep, ${c.headerFlood} headers`,
  prepare: mailBytes,
  async run(raw) {
    const message = await parseMail(raw, 'support@inbound.example.com');
    if (message.text.length > MAIL_LIMITS.textChars) throw new Error('the text passed its ceiling');
    if ((message.email?.html?.length ?? 0) > MAIL_LIMITS.htmlChars) throw new Error('the HTML passed its ceiling');
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Multipart bodies

const multipartCase = fc.record({
  boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/),
  body: runsOf(
    ['\r\n', '--', '\r\n--', '"', 'Content-Disposition: form-data; name="file"\r\n', ';', '=', 'a'],
    50_000,
    8,
  ),
});

export const multipartFuzzer: Fuzzer<{ boundary: string; body: string }, { boundary: string; body: Buffer }> = {
  name: 'Multipart',
  inputs: multipartCase.map(({ boundary, body }) => ({
    boundary,
    body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n${body}\r\n--${boundary}--\r\n`,
  })),
  budget: { ms: 1_500, mb: 256 },
  describe: (c) => `${size(c.body)}, boundary of ${c.boundary.length}`,
  prepare: (c) => ({ boundary: c.boundary, body: Buffer.from(c.body, 'latin1') }),
  async run(c) {
    await parseMultipart([c.body], `multipart/form-data; boundary="${c.boundary}"`, {
      fileSize: 1024 * 1024,
    }).catch((error: unknown) => {
      if (!(error instanceof MultipartError)) throw error;
    });
  },
};

// ---------------------------------------------------------------------------------------------------------------
// JSON request bodies

export const jsonFuzzer: Fuzzer<string, string> = {
  name: 'JSON bodies',
  inputs: runsOf(
    ['[', '{"a":', '{', '}', ']', '"', '\\', '\\"', ':', ',', '1', '{}', '[]', '"k":1,', 'null'],
    400_000,
    8,
  ).map((body) => `{"a":${body}`),
  budget: { ms: 1_500, mb: 256 },
  describe: size,
  prepare: (body) => body,
  async run(body) {
    try {
      parseJsonObjectBody({ body, isBase64Encoded: false } as HttpEvent);
    } catch (error) {
      if (!(error instanceof HttpError) || ![400, 413].includes(error.status)) throw error;
    }
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Provider payloads: WhatsApp Cloud JSON, Twilio forms

const whatsAppValue = fc.record({
  messages: fc.array(
    fc.record({
      id: fc.oneof(fc.string(), fc.integer()),
      from: fc.string({ maxLength: 20 }),
      type: fc.constantFrom('text', 'image', 'button', 'interactive', 'x'),
      text: fc.record({ body: fc.oneof(fc.string({ maxLength: 2000 }), fc.constant(null)) }),
    }),
    { maxLength: 300 },
  ),
  statuses: fc.array(fc.record({ id: fc.string(), status: fc.constantFrom('delivered', 'read', 'failed', 'sent') }), {
    maxLength: 300,
  }),
});

export const providerFuzzer: Fuzzer<{ whatsapp: string; twilio: string }, { whatsapp: string; twilio: string }> = {
  name: 'Provider payloads',
  inputs: fc.record({
    whatsapp: fc.oneof(
      fc.array(whatsAppValue, { maxLength: 20 }).map((values) =>
        JSON.stringify({
          entry: values.map((value) => ({
            changes: [{ field: 'messages', value: { ...value, metadata: { phone_number_id: '1' } } }],
          })),
        }),
      ),
      runsOf(['[', '{"entry":', '{', '"', ']', '}', ','], 200_000, 6),
    ),
    twilio: runsOf(
      ['&', '=', '%', '%2', 'Body=', 'MessageSid=SM1&', 'NumMedia=99999&', 'MediaUrl0=x&', '+'],
      100_000,
      6,
    ),
  }),
  budget: { ms: 1_500, mb: 256 },
  describe: (c) => `WhatsApp JSON of ${size(c.whatsapp)}, Twilio form of ${size(c.twilio)}`,
  prepare: (c) => c,
  async run(c) {
    try {
      normaliseWhatsApp(parseBoundedJson(c.whatsapp), '1');
    } catch (error) {
      if (
        !(error instanceof SyntaxError || error instanceof JsonShapeError) &&
        !/not a WhatsApp webhook/.test(String(error))
      )
        throw error;
    }
    normaliseTwilio(new URLSearchParams(c.twilio), new Date(0).toISOString());
  },
};

/** Every fuzzer, in the order reports list them. */
export const FUZZERS: Fuzzer[] = [
  pdfFilterFuzzer,
  pdfGraphFuzzer,
  mailFuzzer,
  dsnFuzzer,
  htmlFuzzer,
  markdownFuzzer,
  multipartFuzzer,
  jsonFuzzer,
  providerFuzzer,
  openAiRequestFuzzer,
  schemaSampleFuzzer,
];
