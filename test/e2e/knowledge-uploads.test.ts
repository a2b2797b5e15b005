import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { blankPdf, mixedPdf, pdfOfSize, scannedPdf, textPdf } from '#test/support/pdf-fixtures.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * Browser uploads of knowledge files: the panel asks for an upload URL, then posts the file as a form straight
 * to S3 (here the local stand-in), as a browser does; the object's arrival starts the ingestion.
 */
let svc: ServiceClient;
let project: { projectId: string; token: string };
let botId: string;

interface UploadUrl {
  uploadUrl: string;
  method: string;
  fields: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

async function askUploadUrl(fileName: string, contentType: string, bot = botId, projectId = project.projectId) {
  return svc.admin('POST', `/projects/${projectId}/bots/${bot}/knowledge/${encodeURIComponent(fileName)}/upload`, {
    contentType,
  });
}

/** What a browser does with the answer: every field, then the file, as multipart/form-data. */
async function postForm(upload: UploadUrl, bytes: Uint8Array | string, type: string, fields = upload.fields) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([bytes], { type }), 'file');
  return fetch(upload.uploadUrl, { method: upload.method, body: form });
}

async function knowledge(bot = botId) {
  const res = await svc.admin('GET', `/projects/${project.projectId}/bots/${bot}/knowledge`);
  expect(res.status).toBe(200);
  return res.body.items as { fileName: string; status: string; chunks: number; error?: string; bytes: number }[];
}

async function settledFile(fileName: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const file = (await knowledge()).find((i) => i.fileName === fileName);
      return file && file.status !== 'processing' ? file : undefined;
    },
    timeoutMs,
    `${fileName} processed`,
  );
}

async function searchSources(query: string) {
  const response = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ botId, query, topK: 8 }),
  });
  const body = (await response.json()) as { trechos: { procedencia: string; texto: string }[] };
  return body.trechos;
}

beforeAll(async () => {
  svc = await sharedService();
  project = await svc.newProject();
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Upload', instructions: 'x' });
  botId = bot.body.botId;
}, 60_000);

afterAll(async () => svc?.close());

describe('POST .../knowledge/{fileName}/upload', () => {
  test('the browser posts the form to the upload URL; the file becomes ready and searchable', async () => {
    const asked = await askUploadUrl('garantia.md', 'text/markdown');
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ method: 'POST', maxBytes: 26_214_400 });
    expect(asked.body.fields['Content-Type']).toBe('text/markdown');
    expect(Date.parse(asked.body.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(asked.body.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect((await knowledge()).find((i) => i.fileName === 'garantia.md')?.status).toBe('processing');

    const posted = await postForm(
      asked.body,
      '# Garantia\n\nA garantia estendida cobre o liquidificador por 24 meses.',
      'text/markdown',
    );
    expect(posted.ok).toBe(true);
    expect(await settledFile('garantia.md')).toMatchObject({ status: 'ready' });
    expect((await searchSources('garantia estendida liquidificador'))[0]?.procedencia).toBe('garantia.md');
  });

  test('a 20 MB PDF goes through', async () => {
    const bytes = await pdfOfSize(20 * 1024 * 1024, 'Manual do compressor hidropneumatico modelo K9');
    const asked = await askUploadUrl('manual-k9.pdf', 'application/pdf');
    expect(asked.status).toBe(201);
    expect((await postForm(asked.body, bytes, 'application/pdf')).ok).toBe(true);
    expect(await settledFile('manual-k9.pdf', 60_000)).toMatchObject({ status: 'ready' });
    expect((await searchSources('compressor hidropneumatico'))[0]?.procedencia).toBe('manual-k9.pdf');
  }, 90_000);

  test('an old or replaced upload URL never brings back its generation', async () => {
    const first = await askUploadUrl('horario.txt', 'text/plain');
    const second = await askUploadUrl('horario.txt', 'text/plain');
    expect((await postForm(second.body, 'Atendimento aos sabados das 9h as 13h.', 'text/plain')).ok).toBe(true);
    expect(await settledFile('horario.txt')).toMatchObject({ status: 'ready' });
    // The first URL, used after it was replaced; then the second one used again.
    expect((await postForm(first.body, 'Atendimento somente em feriados nacionais.', 'text/plain')).ok).toBe(true);
    expect((await postForm(second.body, 'Atendimento encerrado para sempre.', 'text/plain')).ok).toBe(true);
    // Stale uploads change nothing: the file stays as the second upload left it while the worker sees them.
    await consistently(async () => {
      const files = (await knowledge()).filter((i) => i.fileName === 'horario.txt');
      expect(files).toMatchObject([{ status: 'ready' }]);
    }, 1_500);
    expect((await searchSources('atendimento sabados'))[0]?.texto).toContain('sabados');
    const texts = (await searchSources('atendimento feriados nacionais encerrado')).map((t) => t.texto).join(' ');
    expect(texts).not.toContain('feriados');
  });

  test('the storage refuses what the upload URL does not allow, with S3’s codes: another type, over 25 MB, another project’s key, no signature', async () => {
    // S3 itself checks the POST policy on AWS; the local stand-in checks it the same way.
    const refused = async (answer: Response, status: number, code: string) => {
      expect(answer.status).toBe(status);
      expect(await answer.text()).toContain(`<Code>${code}</Code>`);
    };
    const typed = await askUploadUrl('tabela.txt', 'text/plain');
    const otherType = { ...typed.body.fields, 'Content-Type': 'text/html' };
    await refused(
      await postForm(typed.body, '<p>tabela de precos zircônio</p>', 'text/html', otherType),
      403,
      'AccessDenied',
    );
    const big = await askUploadUrl('enorme.pdf', 'application/pdf');
    await refused(
      await postForm(
        big.body,
        await pdfOfSize(25 * 1024 * 1024 + 1, 'arquivo enorme de tungstenio'),
        'application/pdf',
      ),
      400,
      'EntityTooLarge',
    );
    // Another project's bot: its upload key, under its own prefix, put into this project's form.
    const other = await svc.newProject();
    const otherBot = await svc.admin('POST', `/projects/${other.projectId}/bots`, { name: 'Other', instructions: 'x' });
    const theirs = await askUploadUrl('alheio.txt', 'text/plain', otherBot.body.botId, other.projectId);
    expect(theirs.body.fields.key).not.toBe(typed.body.fields.key);
    await refused(
      await postForm(typed.body, 'texto de berilio', 'text/plain', {
        ...typed.body.fields,
        key: theirs.body.fields.key,
      }),
      403,
      'AccessDenied',
    );
    const { 'X-Amz-Signature': _signature, ...unsigned } = typed.body.fields;
    await refused(await postForm(typed.body, 'texto de berilio', 'text/plain', unsigned), 400, 'InvalidArgument');
    // Nothing the storage refused reaches the bot: no excerpt, and the file still waits for its upload, throughout the
    // time the ingest worker takes to pick up an arrival.
    await consistently(async () => {
      expect(await searchSources('zirconio tungstenio berilio')).toEqual([]);
      expect((await knowledge()).find((i) => i.fileName === 'tabela.txt')?.status).toBe('processing');
    }, 1000);
    // The form as issued still works.
    expect((await postForm(typed.body, 'Tabela de precos do zirconio.', 'text/plain')).ok).toBe(true);
    expect(await settledFile('tabela.txt')).toMatchObject({ status: 'ready' });
  }, 60_000);

  test("bad name 400, other type 415, unknown or another project's bot 404, as for PUT", async () => {
    expect((await askUploadUrl('../x.txt', 'text/plain')).status).toBe(400);
    const json = await askUploadUrl('a.json', 'application/json');
    expect(json.status).toBe(415);
    expect(json.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await askUploadUrl('a.txt', 'text/plain', 'bot_nope')).status).toBe(404);
    const other = await svc.newProject();
    const foreign = await askUploadUrl('a.txt', 'text/plain', botId, other.projectId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('NOT_FOUND');
    expect(
      (await svc.admin('POST', `/projects/${project.projectId}/bots/${botId}/knowledge/a.txt/upload`, {})).status,
    ).toBe(400);
  });

  test('a text PDF of 200 pages uploaded this way is searchable on its last page', async () => {
    const pages = Array.from(
      { length: 200 },
      (_, i) => `Capitulo ${i + 1}\nProcedimento de manutencao numero ${i + 1}.`,
    );
    pages[199] = 'Capitulo 200\nO anexo final descreve a calibracao do sensor ultrassonico.';
    const asked = await askUploadUrl('manual-200.pdf', 'application/pdf');
    expect((await postForm(asked.body, await textPdf(pages), 'application/pdf')).ok).toBe(true);
    expect(await settledFile('manual-200.pdf', 60_000)).toMatchObject({ status: 'ready' });
    expect((await searchSources('calibracao sensor ultrassonico'))[0]?.procedencia).toBe('manual-200.pdf');
  }, 90_000);
});

describe("scanned PDFs: OCR in ingestion (the extract route's OCR)", () => {
  async function uploadPdf(fileName: string, bytes: Uint8Array) {
    const asked = await askUploadUrl(fileName, 'application/pdf');
    expect(asked.status).toBe(201);
    expect((await postForm(asked.body, bytes, 'application/pdf')).ok).toBe(true);
    return settledFile(fileName, 90_000);
  }

  test('a scanned page is read by OCR and found by words only OCR could have read; blank pages are skipped', async () => {
    const pdf = await mixedPdf([
      { text: 'Typed cover page of the maintenance manual' },
      { scan: 'Replace the hydraulic filter every six months' },
      { blank: true },
    ]);
    const file = await uploadPdf('manual-escaneado.pdf', pdf);
    expect(file).toMatchObject({ status: 'ready', ocrPages: 1 });
    expect(file.chunks).toBeGreaterThan(0);
    const hits = await searchSources('hydraulic filter six months');
    expect(hits[0]?.procedencia).toBe('manual-escaneado.pdf');
    expect(hits[0]?.texto.toLowerCase()).toContain('hydraulic');
  }, 120_000);

  test('a scan only: ready with every page from OCR', async () => {
    const file = await uploadPdf('recibo.pdf', await scannedPdf('Warranty claims need the original receipt'));
    expect(file).toMatchObject({ status: 'ready', ocrPages: 1 });
    expect((await searchSources('warranty claims original receipt'))[0]?.procedencia).toBe('recibo.pdf');
  }, 120_000);

  test('a PDF with nothing readable fails with the reason, and the other files stay searchable', async () => {
    const file = await uploadPdf('em-branco.pdf', await blankPdf());
    expect(file).toMatchObject({ status: 'failed', error: expect.stringMatching(/No readable text.*blank/) });
    expect((await searchSources('warranty claims original receipt'))[0]?.procedencia).toBe('recibo.pdf');
  }, 120_000);
});
