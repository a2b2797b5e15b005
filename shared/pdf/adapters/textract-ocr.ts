import { DetectDocumentTextCommand, TextractClient, type Block } from '@aws-sdk/client-textract';
import type { Config } from '../../kernel/config.ts';
import { leanSdkClient, localCredentials } from '../../kernel/aws/clients.ts';
import { OcrEngineError, type OcrEngine, type OcrText, type PageImage } from '../ocr.ts';

let client: TextractClient | undefined;

/** The Textract client, once per cold start; adaptive retries absorb the per-second quota on bursts of pages. */
export function textractClient(cfg: Config): TextractClient {
  client ??= leanSdkClient(
    new TextractClient({
      region: cfg.AWS_REGION,
      ...(cfg.TEXTRACT_ENDPOINT ? { endpoint: cfg.TEXTRACT_ENDPOINT } : {}),
      ...localCredentials(cfg.TEXTRACT_ENDPOINT),
      retryMode: 'adaptive',
      maxAttempts: 4,
    }),
  );
  return client;
}

/**
 * OCR with Amazon Textract: one synchronous `DetectDocumentText` call per rendered page image (PNG or JPEG, up to
 * 10 MB), several pages in flight at once. The text is Textract's LINE blocks in reading order; the confidence is the
 * mean of its WORD blocks.
 */
export class TextractOcrEngine implements OcrEngine {
  readonly name = 'textract';
  readonly concurrency: number;

  constructor(
    private readonly textract: TextractClient,
    options: { concurrency?: number } = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 8);
  }

  async recognize(image: PageImage, signal: AbortSignal): Promise<OcrText> {
    signal.throwIfAborted();
    let blocks: Block[];
    try {
      const out = await this.textract.send(new DetectDocumentTextCommand({ Document: { Bytes: image.data } }), {
        abortSignal: signal,
      });
      blocks = out.Blocks ?? [];
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const name = (error as { name?: string } | undefined)?.name ?? 'Error';
      throw new OcrEngineError(`Textract failed on page ${image.page} (${name})`, { cause: error });
    }
    const lines = blocks.filter((b) => b.BlockType === 'LINE' && b.Text).map((b) => b.Text!);
    const words = blocks.filter((b) => b.BlockType === 'WORD' && typeof b.Confidence === 'number');
    const confidence = words.length ? words.reduce((sum, w) => sum + w.Confidence!, 0) / words.length : 0;
    return { text: lines.join('\n'), confidence };
  }
}
