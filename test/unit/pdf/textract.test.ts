import { DetectDocumentTextCommand, TextractClient } from '@aws-sdk/client-textract';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';
import { describe, expect, it } from 'vitest';
import { TextractOcrEngine } from '#shared/pdf/adapters/textract-ocr.ts';
import { OcrEngineError, type PageImage } from '#shared/pdf/index.ts';

/** No Textract stand-in speaks its protocol locally: the SDK client is mocked (aws-sdk-client-mock). */
const textract = mockAwsClient(TextractClient);

const image: PageImage = {
  page: 3,
  data: Buffer.from('png bytes'),
  format: 'png',
  width: 1700,
  height: 2200,
  dpi: 200,
};

describe('TextractOcrEngine', () => {
  it('sends the page image to DetectDocumentText and returns its lines with the mean word confidence', async () => {
    textract.on(DetectDocumentTextCommand).resolves({
      Blocks: [
        { BlockType: 'PAGE' },
        { BlockType: 'LINE', Text: 'Relatório anual', Confidence: 99 },
        { BlockType: 'WORD', Text: 'Relatório', Confidence: 98 },
        { BlockType: 'WORD', Text: 'anual', Confidence: 96 },
        { BlockType: 'LINE', Text: 'Receita: R$ 10', Confidence: 90 },
        { BlockType: 'WORD', Text: 'Receita:', Confidence: 91 },
        { BlockType: 'WORD', Text: 'R$', Confidence: 80 },
        { BlockType: 'WORD', Text: '10', Confidence: 95 },
      ],
    });
    const engine = new TextractOcrEngine(new TextractClient({ region: 'us-east-1' }), { concurrency: 5 });
    const result = await engine.recognize(image, new AbortController().signal);
    expect(result).toEqual({ text: 'Relatório anual\nReceita: R$ 10', confidence: 92 });
    expect(engine.concurrency).toBe(5);
    const calls = textract.commandCalls(DetectDocumentTextCommand);
    expect(calls).toHaveLength(1);
    expect(Buffer.from(calls[0]!.args[0].input.Document!.Bytes!).toString()).toBe('png bytes');
  });

  it('answers no text with zero confidence for a page without words', async () => {
    textract.on(DetectDocumentTextCommand).resolves({ Blocks: [{ BlockType: 'PAGE' }] });
    const engine = new TextractOcrEngine(new TextractClient({ region: 'us-east-1' }));
    expect(await engine.recognize(image, new AbortController().signal)).toEqual({ text: '', confidence: 0 });
  });

  it('turns a service failure into OcrEngineError naming the page, not the raw AWS error', async () => {
    textract
      .on(DetectDocumentTextCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' }));
    const engine = new TextractOcrEngine(new TextractClient({ region: 'us-east-1' }));
    const error = await engine.recognize(image, new AbortController().signal).catch((e) => e);
    expect(error).toBeInstanceOf(OcrEngineError);
    expect(error.message).toMatch(/page 3/);
  });

  it('rejects with the signal reason once aborted', async () => {
    textract.on(DetectDocumentTextCommand).callsFake(() => new Promise(() => {}));
    const engine = new TextractOcrEngine(new TextractClient({ region: 'us-east-1' }));
    const reason = new Error('deadline');
    const aborted = AbortSignal.abort(reason);
    await expect(engine.recognize(image, aborted)).rejects.toBe(reason);
  });
});
