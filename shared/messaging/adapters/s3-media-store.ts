import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { MEDIA_URL_SECONDS, type MediaStore } from '../media.ts';

/**
 * Inbound media in the transfer bucket (`media/…`, kept 90 days by a lifecycle rule), offered as presigned GETs valid
 * 7 days. The object keeps its type and, for documents, a download name; images open inline.
 */
export class S3MediaStore implements MediaStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
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
      expiresIn: MEDIA_URL_SECONDS,
      signingDate: now,
    });
    return { url, expiresAt: new Date(now.getTime() + MEDIA_URL_SECONDS * 1000).toISOString() };
  }
}

/** Images, audio and video open in place; anything else downloads, under its name when it has one. */
function disposition(contentType: string, fileName: string | undefined): string {
  const inline = /^(image|audio|video)\//.test(contentType);
  if (!fileName) return inline ? 'inline' : 'attachment';
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
