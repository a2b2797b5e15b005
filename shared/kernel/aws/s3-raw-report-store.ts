import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * Raw inbound reports parked in the transfer bucket: large provider bodies, and every inbound mail. A library adapter
 * for the same reason as ./s3-media-store.ts: the functions load it on first use (./lazy-s3-raw-report-store.ts).
 */
export class S3RawReportStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Buffer): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body }), {
      abortSignal: AbortSignal.timeout(30_000),
    });
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(30_000),
      });
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }
}
