import { newId } from '../kernel/ids.ts';

/**
 * Uploads for PDFs too large for a Lambda request (6 MB): the caller asks for an upload, sends the file straight to
 * object storage with the presigned form, then calls extract with the `fileKey`. Keys are scoped by project, so a
 * key is only usable by the project that asked for it.
 */
export interface UploadStore {
  /** A presigned browser-style POST form for one object of 1 to `maxBytes` bytes at `fileKey`. */
  presignPost(
    fileKey: string,
    maxBytes: number,
    expiresInSeconds: number,
  ): Promise<{ url: string; fields: Record<string, string> }>;
  /** The object's bytes, `missing`, or `too-large` (checked before reading, and again while reading). */
  read(fileKey: string, maxBytes: number, signal: AbortSignal): Promise<Buffer | 'missing' | 'too-large'>;
  delete(fileKey: string): Promise<void>;
}

const PREFIX = 'uploads/extract/';

/** Where a project's extract uploads live: `uploads/extract/<projectId>/<uploadId>.pdf` (the bucket expires `uploads/`). */
export function uploadKey(projectId: string, uploadId: string): string {
  return `${PREFIX}${projectId}/${uploadId}.pdf`;
}

/** True when `fileKey` is one of `projectId`'s upload keys (exact shape: nothing else in the bucket is reachable). */
export function isProjectUploadKey(fileKey: string, projectId: string): boolean {
  const own = `${PREFIX}${projectId}/`;
  return fileKey.startsWith(own) && /^upl_[a-z0-9]{20}\.pdf$/.test(fileKey.slice(own.length));
}

export interface CreatedUpload {
  uploadUrl: string;
  /** Form fields to send with the file (a presigned POST): every one of them, then the `file` field last. */
  fields: Record<string, string>;
  fileKey: string;
  expiresAt: Date;
  maxBytes: number;
}

/** `POST /api/v1/ai/extract/uploads`: a one-time upload slot for a PDF of at most `maxBytes`, valid `expiresInSeconds`. */
export function makeCreateUpload(deps: {
  uploads: UploadStore;
  maxBytes: number;
  expiresInSeconds: number;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  return async function createUpload(projectId: string): Promise<CreatedUpload> {
    const fileKey = uploadKey(projectId, newId('upl'));
    const issuedAt = now();
    const { url, fields } = await deps.uploads.presignPost(fileKey, deps.maxBytes, deps.expiresInSeconds);
    return {
      uploadUrl: url,
      fields,
      fileKey,
      expiresAt: new Date(issuedAt + deps.expiresInSeconds * 1000),
      maxBytes: deps.maxBytes,
    };
  };
}
