import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * JSON bodies too large to travel in a queue message, as objects of a bucket (the events' large webhook bodies:
 * `payloads/<eventId>.json` in the transfer bucket). A library adapter rather than the events area's own: the
 * functions that publish events load it on first use (./lazy-s3-payload-store.ts), and an area's face may not reach a
 * module it loads lazily (every function importing the face would carry the S3 client as a chunk).
 */
export class S3PayloadStore {
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

  /** Undefined when the object is gone (expired by the bucket's lifecycle). */
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
