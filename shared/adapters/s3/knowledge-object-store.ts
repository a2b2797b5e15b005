import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { KnowledgeObjectStore } from '../../knowledge/knowledge-files.ts';

/** Knowledge uploads, excerpts and indexes in the knowledge bucket. */
export class S3KnowledgeObjectStore implements KnowledgeObjectStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }), {
      abortSignal: AbortSignal.timeout(60_000),
    });
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
