import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { KnowledgeObjectStore, KnowledgeUploadInbox } from '../knowledge-files.ts';

/**
 * Knowledge uploads, excerpts and indexes in the knowledge bucket, and the browser's presigned POSTs into it. The
 * POST policy pins the key, the Content-Type and a `content-length-range`, so S3 itself refuses any other object.
 */
export class S3KnowledgeObjectStore implements KnowledgeObjectStore, KnowledgeUploadInbox {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }), {
      abortSignal: AbortSignal.timeout(60_000),
    });
  }

  async presignPost(
    key: string,
    conditions: { contentType: string; maxBytes: number; expiresInSeconds: number },
  ): Promise<{ url: string; fields: Record<string, string> }> {
    const { url, fields } = await createPresignedPost(this.s3, {
      Bucket: this.bucket,
      Key: key,
      Conditions: [
        ['content-length-range', 1, conditions.maxBytes],
        ['eq', '$Content-Type', conditions.contentType],
      ],
      Fields: { 'Content-Type': conditions.contentType },
      Expires: conditions.expiresInSeconds,
    });
    return { url, fields };
  }

  async describe(key: string): Promise<{ bytes: number; contentType?: string } | undefined> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(15_000),
      });
      return { bytes: head.ContentLength ?? 0, ...(head.ContentType ? { contentType: head.ContentType } : {}) };
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NotFound' || name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async get(key: string, signal?: AbortSignal): Promise<Uint8Array> {
    const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      abortSignal: signal ?? AbortSignal.timeout(60_000),
    });
    if (!out.Body) throw new Error(`object ${key} has no body`);
    return out.Body.transformToByteArray();
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      if (!batch.length) continue;
      await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
        {
          abortSignal: AbortSignal.timeout(30_000),
        },
      );
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
        {
          abortSignal: AbortSignal.timeout(30_000),
        },
      );
      await this.delete((page.Contents ?? []).map((o) => o.Key!).filter(Boolean));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
