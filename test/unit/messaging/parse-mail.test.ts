import { describe, expect, it } from 'vitest';
import { MAIL_LIMITS, parseMail, parseMailHeaders } from '#shared/messaging/adapters/parse-mail.ts';

/**
 * Mail as `message.received` carries it, for mails built to hurt: an HTML-only mail of 320,000 `<` took 65 s in two
 * quadratic regexes (and every tenant's deliveries waited); parts over their ceilings are cut and say so.
 */
const TO = 'support@inbound.example.com';

function mail(parts: { type: string; body: string }[], headers = ''): Buffer {
  const head =
    `From: Ana <ana@example.org>\r\nTo: ${TO}\r\nSubject: Pedido\r\nMessage-ID: <m-1@example.org>\r\n${headers}` +
    'MIME-Version: 1.0\r\n';
  if (parts.length === 1 && !headers.includes('multipart'))
    return Buffer.from(`${head}Content-Type: ${parts[0]!.type}\r\n\r\n${parts[0]!.body}\r\n`);
  const body = parts.map((p) => `--B\r\nContent-Type: ${p.type}\r\n\r\n${p.body}\r\n`).join('');
  return Buffer.from(`${head}Content-Type: multipart/mixed; boundary=B\r\n\r\n${body}--B--\r\n`);
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

describe('parseMail: HTML read as text in one linear pass', () => {
  it.each([
    [
      'the only part of a multipart mail',
      (body: string) => mail([{ type: 'text/html', body }], 'X-Kind: multipart\r\n'),
    ],
    ['the whole mail', (body: string) => mail([{ type: 'text/html', body }])],
  ])('320,000 "<" as %s: read in well under a second', async (_where, build) => {
    const { ms, value } = await timed(() => parseMail(build('<'.repeat(320_000)), TO));
    expect(value.text).toBe('<'.repeat(320_000));
    expect(value.truncated).toBeUndefined();
    expect(ms).toBeLessThan(2_000);
  });

  it('200,000 nested tags and 100,000 stray end tags: linear too', async () => {
    const { ms, value } = await timed(() =>
      parseMail(mail([{ type: 'text/html', body: `${'<b>'.repeat(200_000)}deep${'</i>'.repeat(100_000)}` }]), TO),
    );
    expect(value.text).toBe('deep');
    expect(ms).toBeLessThan(2_000);
  });

  it('keeps the HTML as sent and gives its text: scripts and styles dropped, entities decoded, paragraphs', async () => {
    const html =
      '<html><head><style>p{}</style></head><body><p>Olá &amp; bem-vindo</p><script>x()</script><p>Segunda<br>linha</p></body></html>';
    const message = await parseMail(mail([{ type: 'text/html', body: html }]), TO);
    expect(message.text).toBe('Olá & bem-vindo\n\nSegunda\nlinha');
    expect(message.email?.html?.trimEnd()).toBe(html);
  });

  it('prefers the plain part when there is one', async () => {
    const message = await parseMail(
      mail(
        [
          { type: 'text/plain', body: 'The plain words' },
          { type: 'text/html', body: '<p>The HTML words</p>' },
        ],
        'X-Kind: multipart\r\n',
      ),
      TO,
    );
    expect(message.text).toBe('The plain words');
  });
});

describe('parseMail: parts over their ceilings are cut and say so', () => {
  it('cuts the text of an HTML-only mail at 1,000,000 characters', async () => {
    const message = await parseMail(mail([{ type: 'text/html', body: `<p>${'palavra '.repeat(200_000)}</p>` }]), TO);
    expect(message.text.length).toBeLessThanOrEqual(MAIL_LIMITS.textChars);
    expect(message.text.length).toBeGreaterThan(MAIL_LIMITS.textChars - 10);
    expect(message.truncated).toBe(true);
  });

  it('cuts a plain part and the HTML at their ceilings', async () => {
    const message = await parseMail(
      mail(
        [
          { type: 'text/plain', body: 'a'.repeat(MAIL_LIMITS.textChars + 5) },
          { type: 'text/html', body: 'h'.repeat(MAIL_LIMITS.htmlChars + 5) },
        ],
        'X-Kind: multipart\r\n',
      ),
      TO,
    );
    expect(message.text).toHaveLength(MAIL_LIMITS.textChars);
    expect(message.email?.html).toHaveLength(MAIL_LIMITS.htmlChars);
    expect(message.truncated).toBe(true);
  });

  it('lists at most 100 attachments and cc addresses', async () => {
    const attachments = Array.from(
      { length: 150 },
      (_, i) => `--B\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename="f${i}.csv"\r\n\r\nx\r\n`,
    ).join('');
    const cc = Array.from({ length: 150 }, (_, i) => `c${i}@example.org`).join(', ');
    const raw = Buffer.from(
      `From: ana@example.org\r\nTo: ${TO}\r\nCc: ${cc}\r\nSubject: s\r\nMIME-Version: 1.0\r\n` +
        `Content-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nhi\r\n${attachments}--B--\r\n`,
    );
    const message = await parseMail(raw, TO);
    expect(message.email?.attachments).toHaveLength(100);
    expect(message.email?.cc).toHaveLength(100);
    expect(message.truncated).toBe(true);
  });

  it('an ordinary mail is not marked', async () => {
    const message = await parseMail(mail([{ type: 'text/plain', body: 'hello' }]), TO);
    expect(message).not.toHaveProperty('truncated');
  });
});

describe('parseMail: MIME the parser refuses is not lost', () => {
  it('a header block past the parser’s ceiling (found by the mail fuzzer) arrives as its first headers, truncated', async () => {
    const flood = Array.from({ length: 150_000 }, (_, i) => `X-H${i}: ${i}\r\n`).join('');
    const raw = Buffer.from(
      `From: ana@example.org\r\nTo: ${TO}\r\nSubject: Flood\r\n${flood}Content-Type: text/plain\r\n\r\nbody\r\n`,
    );
    const message = await parseMail(raw, TO);
    expect(message).toMatchObject({ from: 'ana@example.org', text: '', truncated: true, email: { subject: 'Flood' } });
  });
});

describe('parseMailHeaders (a mail whose parsing passed its sandbox)', () => {
  it('gives the sender, subject and ids, no text, and truncated', async () => {
    const message = await parseMailHeaders(mail([{ type: 'text/html', body: '<p>never read</p>' }]), TO);
    expect(message).toMatchObject({
      from: 'ana@example.org',
      providerMessageId: '<m-1@example.org>',
      text: '',
      truncated: true,
      email: { subject: 'Pedido', attachments: [] },
    });
    expect(message.email).not.toHaveProperty('html');
  });
});

describe('parseMail: DKIM signature domains', () => {
  const signature = (d: string) =>
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;\r\n d=${d}; s=s1;\r\n h=from:to:subject; bh=abc=; b=def=\r\n`;

  it('reads each signature’s d= (folded, any case), and none when the mail is not signed', async () => {
    const signed = await parseMail(
      mail([{ type: 'text/plain', body: 'oi' }], signature('Example.ORG') + signature('esp.example.net')),
      TO,
    );
    expect(signed.email?.signedBy).toEqual(['example.org', 'esp.example.net']);
    expect((await parseMail(mail([{ type: 'text/plain', body: 'oi' }]), TO)).email?.signedBy).toEqual([]);
  });

  it('past ten signatures, an unnamed one stands for the rest (so none is taken as aligned unseen)', async () => {
    const many = Array.from({ length: 12 }, () => signature('example.org')).join('');
    const message = await parseMail(mail([{ type: 'text/plain', body: 'oi' }], many), TO);
    expect(message.email?.signedBy).toHaveLength(11);
    expect(message.email?.signedBy?.at(-1)).toBe('');
  });
});
