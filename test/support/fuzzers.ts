import fc from 'fast-check';
import { HttpError } from '#shared/http/errors.ts';
import { parseJsonObjectBody } from '#shared/http/middleware.ts';
import { MultipartError, parseMultipart } from '#shared/http/multipart.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { htmlToText } from '#shared/kernel/html-text.ts';
import { markdownToText } from '#shared/knowledge/index.ts';
import { MAIL_LIMITS, normaliseTwilio, normaliseWhatsApp, parseMail } from '#shared/messaging/index.ts';
import { parseBoundedJson, JsonShapeError } from '#shared/kernel/json-shape.ts';
import { dsnFuzzer } from './dsn-fuzzer.ts';
import { openAiRequestFuzzer, schemaSampleFuzzer } from './fuzzers-openai.ts';
import type { Fuzzer } from './fuzzer.ts';
import { pdfFilterFuzzer, pdfGraphFuzzer } from './fuzzers-pdf.ts';

/**
 * Fuzzers for every parser of untrusted bytes, shared by the tests (test/unit/untrusted-input-fuzz.test.ts:
 * a few seconds each in `npm test`) and the bench (bench/fuzz.ts: longer, inputs per second and the slowest input).
 * Each builds inputs meant to hurt (filter names and their escapes, filter chains, indirect objects, nested and
 * unterminated markup, huge runs of special characters), runs the parser, and throws when the outcome is not one the
 * parser may give; the caller holds each input to the fuzzer's time and memory budget.
 */
export type { Fuzzer } from './fuzzer.ts';

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
