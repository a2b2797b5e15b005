import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { PayloadStore } from '../ports.ts';

/** Large webhook bodies as objects of the transfer bucket (`payloads/<eventId>.json`). */
export class S3PayloadStore implements PayloadStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/json' }),
      {
        abortSignal: AbortSignal.timeout(15_000),
      },
    );
  }

  async get(key: string): Promise<string | undefined> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(15_000),
      });
      return await out.Body!.transformToString('utf8');
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }
}
