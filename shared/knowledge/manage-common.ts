import type { Bot } from '../bots/index.ts';
import { DomainError, ValidationError } from '../kernel/domain-error.ts';
import type { Logger } from '../kernel/logger.ts';
import {
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
} from './knowledge-files.ts';

/**
 * What the knowledge file use cases (./upload-file.ts, ./issue-upload-url.ts, ./remove-file.ts, ./manage.ts) share:
 * their ports, the checks of a name and a type, their errors and steps.
 */

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
export function checkNameAndType(
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

/** What the use cases share: the clock, the queueing with its retries, and the clean-ups of replaced uploads. */
export function makeManageSteps(deps: KnowledgeManageDeps) {
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

  return { now, dropReplaced, enqueue, settleAbandonedUpload };
}

export type ManageSteps = ReturnType<typeof makeManageSteps>;
