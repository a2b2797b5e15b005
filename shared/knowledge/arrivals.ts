import type { Logger } from '../kernel/logger.ts';
import {
  KNOWLEDGE_MAX_BYTES,
  parseIncomingKey,
  type IngestJob,
  type KnowledgeFileStore,
  type KnowledgeObjectStore,
  type KnowledgeUploadInbox,
} from './knowledge-files.ts';
import { parseContentType } from './manage.ts';

/** An object that landed in the knowledge bucket, as an S3 event notification (or its local stand-in) reports it. */
export interface ArrivedObject {
  key: string;
  /** When S3 stored it. */
  at: Date;
}

export interface ArrivalDeps {
  files: KnowledgeFileStore;
  objects: KnowledgeObjectStore;
  inbox: KnowledgeUploadInbox;
  logger: Logger;
  clock?: () => Date;
}

/**
 * A browser upload that landed, turned into an ingest job only when it is exactly what its upload URL was
 * issued for:
 * 1. the key names a bot, a file and a generation, and that generation is still the file's current one: an object
 *    for a replaced or deleted generation is dropped (and deleted), so an old URL never resurrects old content;
 * 2. the file is still `processing` (a URL used a second time after the file settled changes nothing);
 * 3. the object arrived before the URL expired, is 1 byte to 25 MB and has the declared type: otherwise the file
 *    is `failed` with the reason, and nothing of it becomes searchable.
 * S3 enforces 3 itself on AWS through the POST policy; the local stand-in does not, so the worker checks too.
 */
export function makeAcceptArrival(deps: ArrivalDeps) {
  const clock = deps.clock ?? (() => new Date());

  async function refuse(botId: string, fileName: string, generation: string, key: string, reason: string) {
    deps.logger.info('knowledge upload refused', { botId, fileName, reason });
    await deps.files.markFailed(botId, fileName, generation, reason, clock());
    await deps.objects.delete([key]).catch(() => undefined);
  }

  return async function acceptArrival(arrived: ArrivedObject): Promise<IngestJob | undefined> {
    const bound = parseIncomingKey(arrived.key);
    if (!bound) {
      deps.logger.warn('object outside the upload layout ignored', { key: arrived.key });
      return undefined;
    }
    const { botId, fileKey, generation } = bound;
    const fileName = await deps.files.nameOf(botId, fileKey);
    const file = fileName === undefined ? undefined : await deps.files.get(botId, fileName);
    if (!file || file.generation !== generation || file.objectKey !== arrived.key) {
      deps.logger.info('upload for a replaced or deleted generation dropped', { botId, fileKey, generation });
      if (!file || file.objectKey !== arrived.key) await deps.objects.delete([arrived.key]).catch(() => undefined);
      return undefined;
    }
    if (file.status !== 'processing') return undefined;
    if (file.uploadExpiresAt && arrived.at.getTime() > Date.parse(file.uploadExpiresAt)) {
      await refuse(
        botId,
        file.fileName,
        generation,
        arrived.key,
        'The upload URL had expired when the file arrived; ask for a new one.',
      );
      return undefined;
    }
    const object = await deps.inbox.describe(arrived.key);
    if (!object) return undefined; // deleted meanwhile: the delete or the next upload settles the record
    if (object.bytes > KNOWLEDGE_MAX_BYTES || object.bytes === 0) {
      await refuse(
        botId,
        file.fileName,
        generation,
        arrived.key,
        object.bytes === 0
          ? 'The uploaded file is empty.'
          : `The uploaded file has ${object.bytes} bytes; knowledge files are limited to ${KNOWLEDGE_MAX_BYTES} bytes (25 MB).`,
      );
      return undefined;
    }
    const arrivedType = parseContentType(object.contentType).type;
    if (arrivedType !== file.contentType) {
      await refuse(
        botId,
        file.fileName,
        generation,
        arrived.key,
        `The uploaded file was sent as ${arrivedType || 'no type'}, not the declared ${file.contentType}.`,
      );
      return undefined;
    }
    return { kind: 'file', botId, fileKey, fileName: file.fileName, generation };
  };
}

export type AcceptArrival = ReturnType<typeof makeAcceptArrival>;

/**
 * The objects an S3 event notification body reports as created; [] for anything else (S3's `s3:TestEvent` when the
 * notification is set up, or an ingest job). Keys arrive URL-encoded with `+` for spaces.
 */
export function objectsCreatedIn(body: unknown): ArrivedObject[] {
  const records = (body as { Records?: unknown })?.Records;
  if (!Array.isArray(records)) return [];
  return records.flatMap((record: S3EventRecordShape) => {
    if (record?.eventSource !== 'aws:s3' || !String(record.eventName).startsWith('ObjectCreated:')) return [];
    const key = record.s3?.object?.key;
    if (typeof key !== 'string') return [];
    return [{ key: decodeURIComponent(key.replace(/\+/g, ' ')), at: new Date(record.eventTime ?? Date.now()) }];
  });
}

interface S3EventRecordShape {
  eventSource?: string;
  eventName?: string;
  eventTime?: string;
  s3?: { object?: { key?: string } };
}
