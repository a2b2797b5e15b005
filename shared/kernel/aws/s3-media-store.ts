import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/**
 * Received media in the transfer bucket (`media/…`, kept 90 days by a lifecycle rule), offered as presigned GETs valid
 * `urlSeconds`. The object keeps its type and, for documents, a download name; images open inline. A library adapter
 * rather than the messaging area's own: the functions load it on first use (./lazy-s3-media-store.ts), and an area's
 * face may not reach a module it loads lazily (every function importing the face would carry the S3 client's shared
 * code at cold start).
 */
export class S3MediaStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly urlSeconds: number,
  ) {}

  async put(key: string, bytes: Buffer, contentType: string, fileName?: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        ContentDisposition: disposition(contentType, fileName),
      }),
      { abortSignal: AbortSignal.timeout(60_000) },
    );
  }

  async url(key: string, now: Date): Promise<{ url: string; expiresAt: string }> {
    const url = await getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: this.urlSeconds,
      signingDate: now,
    });
    return { url, expiresAt: new Date(now.getTime() + this.urlSeconds * 1000).toISOString() };
  }
}

/** Images, audio and video open in place; anything else downloads, under its name when it has one. */
function disposition(contentType: string, fileName: string | undefined): string {
  const inline = /^(image|audio|video)\//.test(contentType);
  if (!fileName) return inline ? 'inline' : 'attachment';
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
