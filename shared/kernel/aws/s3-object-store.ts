import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';

/** Part size of a streamed upload: S3's minimum is 5 MiB; a part is what the upload holds in memory. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Objects in one bucket (the knowledge bucket: uploads, excerpts and indexes), and the browser's presigned POSTs into
 * it. The POST policy pins the key, the Content-Type and a `content-length-range`, so S3 itself refuses any other
 * object. In the kernel, not the knowledge area, so that each function's root decides whether the S3 client loads
 * with it or on first use (./lazy-s3-object-store.ts): a loader behind the knowledge face would put the S3 chunk in
 * every function that imports the face.
 */
export class S3ObjectStore {
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

  /**
   * A multipart upload fed part by part (one part in memory, one in flight); an object smaller than one part is a
   * single PUT. Any failure aborts the upload, so no part is left behind.
   */
  async putStream(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    contentType: string,
  ): Promise<number> {
    const signal = () => AbortSignal.timeout(120_000);
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let total = 0;
    let uploadId: string | undefined;
    const parts: { PartNumber: number; ETag: string }[] = [];
    let inFlight: Promise<void> = Promise.resolve();
    const sendPart = async (body: Uint8Array) => {
      uploadId ??= (
        await this.s3.send(
          new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
          { abortSignal: signal() },
        )
      ).UploadId;
      const PartNumber = parts.length + 1;
      const slot = { PartNumber, ETag: '' };
      parts.push(slot);
      await inFlight;
      inFlight = this.s3
        .send(new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber, Body: body }), {
          abortSignal: signal(),
        })
        .then((out) => {
          slot.ETag = out.ETag ?? '';
        });
    };
    try {
      for await (const chunk of chunks) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        total += chunk.length;
        if (pendingBytes >= PART_BYTES) {
          // Parts of one size whatever the chunks' sizes (a batch's segment arrives as one chunk).
          const joined = Buffer.concat(pending);
          let at = 0;
          for (; joined.length - at >= PART_BYTES; at += PART_BYTES)
            await sendPart(joined.subarray(at, at + PART_BYTES));
          pending = at < joined.length ? [joined.subarray(at)] : [];
          pendingBytes = joined.length - at;
        }
      }
      if (!uploadId) {
        await this.put(key, Buffer.concat(pending), contentType);
        return total;
      }
      if (pendingBytes) await sendPart(Buffer.concat(pending));
      await inFlight;
      await this.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
        { abortSignal: signal() },
      );
      return total;
    } catch (error) {
      await inFlight.catch(() => undefined);
      if (uploadId)
        await this.s3
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }), {
            abortSignal: signal(),
          })
          .catch(() => undefined);
      throw error;
    }
  }

  async getRange(key: string, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (end <= start) return new Uint8Array(0);
    const out = await this.s3.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }),
      { abortSignal: signal ?? AbortSignal.timeout(60_000) },
    );
    if (!out.Body) throw new Error(`object ${key} has no body`);
    return out.Body.transformToByteArray();
  }

  async getTail(key: string, length: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; size: number }> {
    const abortSignal = signal ?? AbortSignal.timeout(60_000);
    try {
      const out = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=-${length}` }),
        {
          abortSignal,
        },
      );
      if (!out.Body) throw new Error(`object ${key} has no body`);
      const bytes = await out.Body.transformToByteArray();
      const size = Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1] ?? bytes.length);
      return { bytes, size };
    } catch (error) {
      // S3 answers a suffix longer than the object with the whole object; some stand-ins answer 416 instead.
      if ((error as { name?: string }).name !== 'InvalidRange') throw error;
      const bytes = await this.get(key, abortSignal);
      return { bytes, size: bytes.length };
    }
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
