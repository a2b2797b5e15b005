import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  NoSuchKey,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { UploadStore } from '../uploads.ts';

/**
 * Extract uploads in the transfer bucket. The presigned POST carries a `content-length-range` condition, so S3 itself
 * refuses a file above the limit (a presigned PUT can only pin one exact length). Reading checks the stored size
 * first and stops a body that grows past the limit anyway.
 */
export class S3ExtractUploadStore implements UploadStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async presignPost(fileKey: string, maxBytes: number, expiresInSeconds: number) {
    const { url, fields } = await createPresignedPost(this.s3, {
      Bucket: this.bucket,
      Key: fileKey,
      Conditions: [['content-length-range', 1, maxBytes]],
      Fields: { 'Content-Type': 'application/pdf' },
      Expires: expiresInSeconds,
    });
    return { url, fields };
  }

  async read(fileKey: string, maxBytes: number, signal: AbortSignal): Promise<Buffer | 'missing' | 'too-large'> {
    let out: GetObjectCommandOutput;
    try {
      out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: fileKey }), { abortSignal: signal });
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return 'missing';
      throw error;
    }
    const body = out.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
    if (!body) return 'missing';
    if ((out.ContentLength ?? 0) > maxBytes) {
      body.destroy?.();
      return 'too-large';
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy?.();
        return 'too-large';
      }
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    return Buffer.concat(chunks, size);
  }

  async delete(fileKey: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: fileKey }));
  }
}
