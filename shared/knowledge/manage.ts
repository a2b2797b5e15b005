import type { Bot } from '../bots/index.ts';
import { DomainError, NotFoundError, TemporarilyUnavailableError, ValidationError } from '../kernel/domain-error.ts';
import type { Logger } from '../kernel/logger.ts';
import { buildSegment, SEGMENT_FORMAT } from './index/segment.ts';
import {
  fileKeyOf,
  fileNameProblem,
  type IngestJob,
  type IngestQueue,
  KNOWLEDGE_CONTENT_TYPES,
  KNOWLEDGE_MAX_BYTES,
  type KnowledgeContentType,
  type KnowledgeFile,
  type KnowledgeFileStore,
  type KnowledgeIndexStore,
  type KnowledgeObjectStore,
  knowledgeObjectKeys,
  type KnowledgeUploadInbox,
  newGeneration,
  newSegmentId,
  type Page,
} from './knowledge-files.ts';

/** How long an upload URL stays usable. */
export const UPLOAD_URL_SECONDS = 15 * 60;

export interface KnowledgeManageDeps {
  /** The bot when it exists in the project; throws 404 otherwise. */
  requireBot(projectId: string, botId: string): Promise<Bot>;
  files: KnowledgeFileStore;
  /** The bot item's segment list: a delete publishes its marker there. */
  index: KnowledgeIndexStore;
  objects: KnowledgeObjectStore;
  queue: IngestQueue;
  /** Pauses between attempts to queue an ingest job (default 100 ms, 400 ms, 1.6 s). */
  enqueueBackoffMs?: number[];
  /** Upload URLs for browsers (presigned POST into the knowledge bucket); without it, no upload URLs. */
  inbox?: KnowledgeUploadInbox;
  logger: Logger;
  now?: () => Date;
}

/** `text/plain; charset=utf-8` → type and charset; the type lower-cased. */
export function parseContentType(header: string | undefined): { type: string; charset?: string } {
  if (!header) return { type: '' };
  const [type, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find(Boolean);
  return { type: type!.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

/** A knowledge upload of a kind the bot cannot learn from (a `Content-Type` other than text, Markdown, HTML, PDF). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';

  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedMediaTypeError';
  }
}

/** A knowledge upload over {@link KNOWLEDGE_MAX_BYTES}. */
export class UploadTooLargeError extends DomainError {
  readonly code = 'UPLOAD_TOO_LARGE';

  constructor(message: string) {
    super(message);
    this.name = 'UploadTooLargeError';
  }
}

/** The name must be a name (400) and the type one of the four (415); the type, lower-cased, and its charset. */
function checkNameAndType(
  fileName: string,
  contentTypeHeader: string | undefined,
): { type: KnowledgeContentType; charset?: string } {
  const nameProblem = fileNameProblem(fileName);
  if (nameProblem)
    throw new ValidationError(nameProblem, [{ path: 'fileName', message: nameProblem, code: 'invalid_format' }]);
  const { type, charset } = parseContentType(contentTypeHeader);
  if (!(KNOWLEDGE_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new UnsupportedMediaTypeError(
      `Knowledge files must be sent as ${KNOWLEDGE_CONTENT_TYPES.join(', ')}; got ${type || 'no Content-Type'}.`,
    );
  }
  return { type: type as KnowledgeContentType, ...(charset ? { charset } : {}) };
}

/** Knowledge files of a bot in the management API: upload (same name replaces), list, delete. */
export function makeKnowledgeManagement(deps: KnowledgeManageDeps) {
  const now = deps.now ?? (() => new Date());

  const backoff = deps.enqueueBackoffMs ?? [100, 400, 1600];

  /**
   * The replaced upload's bytes are no longer needed (search reads segments, which keep its excerpts until the new
   * version replaces them).
   */
  async function dropReplaced(botId: string, previous: KnowledgeFile | undefined): Promise<void> {
    if (!previous) return;
    await deps.objects
      .delete([previous.objectKey, knowledgeObjectKeys.excerpts(botId, previous.generation)])
      .catch((error) => deps.logger.warn('replaced knowledge objects not deleted', { botId, cause: String(error) }));
  }

  /** Queues a job, trying again after short pauses: a burst of uploads must not fail on a momentary refusal. */
  async function enqueue(job: IngestJob): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await deps.queue.enqueue(job);
      } catch (error) {
        if (attempt >= backoff.length) throw error;
        deps.logger.warn('ingest job not queued; trying again', { botId: job.botId, attempt, cause: String(error) });
        await new Promise((r) => setTimeout(r, backoff[attempt]));
      }
    }
  }

  /**
   * A file still waiting for its browser upload after the URL expired, with no object in the bucket, never will
   * be ready: it is marked `failed`. (An object that landed in time is being ingested: the worker settles it.)
   */
  async function settleAbandonedUpload(file: KnowledgeFile): Promise<KnowledgeFile> {
    if (file.status !== 'processing' || !file.uploadExpiresAt || !deps.inbox) return file;
    const at = now();
    if (at.getTime() <= Date.parse(file.uploadExpiresAt)) return file;
    if (await deps.inbox.describe(file.objectKey)) return file;
    const error = 'No file was posted to the upload URL before it expired; ask for a new one.';
    if (!(await deps.files.markFailed(file.botId, file.fileName, file.generation, error, at))) return file;
    return { ...file, status: 'failed', error, updatedAt: at.toISOString() };
  }

  return {
    /**
     * 1. check name, type (415), size; 2. the bot must be the project's; 3. store the bytes; 4. record the upload
     * (`processing`; an earlier upload of the name leaves search); 5. queue the ingest job. Answers at once.
     */
    async upload(
      projectId: string,
      botId: string,
      fileName: string,
      contentTypeHeader: string | undefined,
      bytes: Uint8Array,
    ) {
      const { type, charset } = checkNameAndType(fileName, contentTypeHeader);
      if (bytes.length > KNOWLEDGE_MAX_BYTES) {
        throw new UploadTooLargeError(`Knowledge files are limited to ${KNOWLEDGE_MAX_BYTES} bytes (25 MB).`);
      }
      if (bytes.length === 0)
        throw new ValidationError('The file is empty.', [
          { path: 'body', message: 'The file is empty.', code: 'too_small' },
        ]);
      // The bot check and the earlier upload's record in one round trip.
      const [, previous] = await Promise.all([deps.requireBot(projectId, botId), deps.files.get(botId, fileName)]);

      const at = now();
      const generation = newGeneration(at);
      const file: KnowledgeFile = {
        botId,
        fileName,
        fileKey: fileKeyOf(fileName),
        generation,
        status: 'processing',
        chunks: 0,
        contentType: type as KnowledgeContentType,
        ...(charset ? { charset } : {}),
        bytes: bytes.length,
        objectKey: knowledgeObjectKeys.upload(botId, generation),
        uploadedAt: at.toISOString(),
        updatedAt: at.toISOString(),
      };
      await deps.objects.put(file.objectKey, bytes, type);
      const outcome = await deps.files.startUpload(file);
      if (outcome === 'started') {
        await dropReplaced(botId, previous);
        try {
          await enqueue({ kind: 'file', botId, fileKey: file.fileKey, fileName, generation });
        } catch (error) {
          deps.logger.error('ingest job could not be queued', { botId, fileKey: file.fileKey, cause: String(error) });
          await deps.files.markFailed(
            botId,
            fileName,
            generation,
            'The file could not be queued for processing; upload it again.',
            now(),
          );
          throw new TemporarilyUnavailableError('The file could not be queued for processing; try again.', error);
        }
      }
      // 'superseded': a newer upload of the same name arrived meanwhile and is the one processed.
      return { fileName, status: 'processing' as const };
    },

    /**
     * An upload URL for the browser: 1. check name (400) and type (415); 2. the bot must be the project's (404);
     * 3. record a new generation of the file, `processing` from now (same name replaces: the earlier upload leaves
     * search); 4. sign a POST that can only store this generation's key, of this type, up to 25 MB, for 15 minutes.
     * The object's arrival queues the ingestion (S3 event → ingest queue), see ./arrivals.ts.
     */
    async issueUploadUrl(projectId: string, botId: string, fileName: string, contentTypeHeader: string | undefined) {
      const { type, charset } = checkNameAndType(fileName, contentTypeHeader);
      await deps.requireBot(projectId, botId);
      if (!deps.inbox) throw new TemporarilyUnavailableError('Upload URLs are not configured in this deployment.');
      const at = now();
      const generation = newGeneration(at);
      const fileKey = fileKeyOf(fileName);
      const expiresAt = new Date(at.getTime() + UPLOAD_URL_SECONDS * 1000);
      const objectKey = knowledgeObjectKeys.incoming(botId, fileKey, generation);
      const { url, fields } = await deps.inbox.presignPost(objectKey, {
        contentType: contentTypeHeader!.trim(),
        maxBytes: KNOWLEDGE_MAX_BYTES,
        expiresInSeconds: UPLOAD_URL_SECONDS,
      });
      const previous = await deps.files.get(botId, fileName);
      await deps.files.rememberName(botId, fileKey, fileName);
      const outcome = await deps.files.startUpload({
        botId,
        fileName,
        fileKey,
        generation,
        status: 'processing',
        chunks: 0,
        contentType: type,
        ...(charset ? { charset } : {}),
        bytes: 0,
        objectKey,
        uploadExpiresAt: expiresAt.toISOString(),
        uploadedAt: at.toISOString(),
        updatedAt: at.toISOString(),
      });
      if (outcome === 'started') await dropReplaced(botId, previous);
      return {
        uploadUrl: url,
        method: 'POST' as const,
        fields,
        expiresAt: expiresAt.toISOString(),
        maxBytes: KNOWLEDGE_MAX_BYTES,
      };
    },

    /**
     * A page of the bot's files by name (`limit` 1..1000, `cursor` from the previous page). An upload URL that expired
     * with nothing posted to it leaves its file `failed`.
     */
    async list(
      projectId: string,
      botId: string,
      page: { limit: number; cursor?: string },
    ): Promise<Page<KnowledgeFile>> {
      await deps.requireBot(projectId, botId);
      const { items, nextCursor } = await deps.files.page(botId, page);
      return { items: await Promise.all(items.map(settleAbandonedUpload)), ...(nextCursor ? { nextCursor } : {}) };
    },

    /**
     * Takes the file out of search at once: a delete marker (every version up to the current upload) is listed on
     * the bot before the answer, then the record and the bytes go. An upload of the same name that lands meanwhile
     * is newer than the marker and proceeds.
     */
    async remove(projectId: string, botId: string, fileName: string): Promise<void> {
      await deps.requireBot(projectId, botId);
      // A name the API would never have accepted names no file (and past 255 characters would not fit a key).
      const file = fileNameProblem(fileName) ? undefined : await deps.files.get(botId, fileName);
      if (!file) throw new NotFoundError('knowledge-file', `Bot ${botId} has no knowledge file named "${fileName}".`);
      const at = now();
      const id = newSegmentId(at);
      const key = knowledgeObjectKeys.segment(botId, id);
      const bytes = buildSegment([], {
        markers: [{ fileKey: file.fileKey, generation: file.generation, at: at.getTime() }],
        builtAt: at,
      });
      await deps.objects.put(key, bytes, 'application/octet-stream');
      const ref = { id, key, docs: 0, excerpts: 0, markers: 1, bytes: bytes.length, format: SEGMENT_FORMAT };
      if (!(await deps.index.addSegment(botId, ref)))
        throw new NotFoundError('bot', `Bot ${botId} does not exist in project ${projectId}.`);
      await deps.files.remove(botId, fileName, file.generation);
      await deps.objects
        .delete([file.objectKey, knowledgeObjectKeys.excerpts(botId, file.generation)])
        .catch((error) => deps.logger.warn('knowledge objects not deleted', { botId, cause: String(error) }));
      // Deletes add small segments; the worker merges them when they have become many.
      await deps.queue
        .enqueue({ kind: 'merge', botId })
        .catch((error) => deps.logger.warn('segment merge not queued', { botId, cause: String(error) }));
    },

    /** Everything a deleted bot had: file records and every object under its prefix. */
    async purgeBot(botId: string): Promise<void> {
      await deps.files.removeAll(botId);
      await deps.objects.deletePrefix(knowledgeObjectKeys.botPrefix(botId));
    },
  };
}

export type KnowledgeManagement = ReturnType<typeof makeKnowledgeManagement>;
