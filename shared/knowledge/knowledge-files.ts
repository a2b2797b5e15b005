import { createHash, randomBytes } from 'node:crypto';
import type { KnowledgeSegmentRef } from '../bots/index.ts';
import { INCOMING_UPLOAD_SUFFIX } from '../contract/buckets.ts';

/** Media types a knowledge file may have. */
export const KNOWLEDGE_CONTENT_TYPES = ['text/plain', 'text/markdown', 'text/html', 'application/pdf'] as const;
export type KnowledgeContentType = (typeof KNOWLEDGE_CONTENT_TYPES)[number];

/** Largest knowledge file: 25 MB. */
export const KNOWLEDGE_MAX_BYTES = 25 * 1024 * 1024;

export type KnowledgeFileStatus = 'processing' | 'ready' | 'failed';

/** One knowledge file of a bot, as the management API lists it. */
export interface KnowledgeFile {
  botId: string;
  fileName: string;
  /** Short stable key derived from the name (names can be long and hold any character). */
  fileKey: string;
  /** This upload of the name: sortable by time, so the latest upload of a name always wins. */
  generation: string;
  status: KnowledgeFileStatus;
  chunks: number;
  error?: string;
  contentType: KnowledgeContentType;
  /** Charset parameter of the upload's Content-Type, when given. */
  charset?: string;
  bytes: number;
  /** Where the uploaded bytes are. */
  objectKey: string;
  /** Set when the bytes come from the browser through an upload URL: the object must land before this instant. */
  uploadExpiresAt?: string;
  /** PDF pages read by OCR (no text layer), once the file is ready. */
  ocrPages?: number;
  uploadedAt: string;
  updatedAt: string;
}

export type StartUploadOutcome = 'started' | 'superseded';

/** A page of a listing: the project's one pagination shape (`?limit&cursor` in, `{ items, nextCursor }` out). */
export interface Page<T> {
  items: T[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * Knowledge file records (DynamoDB, one item per file, keyed by name). Writes are single-item and conditional on
 * generations, so concurrent uploads and deletes of one name settle on the latest upload without transactions.
 */
export interface KnowledgeFileStore {
  /** Records a new upload (processing) unless a newer upload of the name is already recorded. */
  startUpload(file: KnowledgeFile): Promise<StartUploadOutcome>;
  get(botId: string, fileName: string): Promise<KnowledgeFile | undefined>;
  /** A page of the bot's files by name; `cursor` is a page's `nextCursor`. Throws ValidationError on a bad cursor. */
  page(botId: string, options: { limit: number; cursor?: string }): Promise<Page<KnowledgeFile>>;
  /** Remembers which name a file key stands for (browser uploads: their object key holds the file key only). */
  rememberName(botId: string, fileKey: string, fileName: string): Promise<void>;
  nameOf(botId: string, fileKey: string): Promise<string | undefined>;
  /** True when the file was still at that generation. */
  markReady(
    botId: string,
    fileName: string,
    generation: string,
    chunks: number,
    at: Date,
    details?: { ocrPages?: number; bytes?: number },
  ): Promise<boolean>;
  markFailed(botId: string, fileName: string, generation: string, reason: string, at: Date): Promise<boolean>;
  /** Deletes the record if it is still at `generation`; true when it did. */
  remove(botId: string, fileName: string, generation: string): Promise<boolean>;
  /** Deletes every file record of a bot (the bot itself is gone). */
  removeAll(botId: string): Promise<void>;
}

/** Where a bot's index stands, read consistently (the bot item's knowledge fields). */
export interface IndexState {
  version: number;
  segments: KnowledgeSegmentRef[];
  /** Until when (epoch ms) a merge holds the bot; 0 when none does. */
  mergeUntil: number;
  /** Merged-away segment objects and when they left the list (epoch ms): deleted once no search can still read them. */
  retired: Record<string, number>;
}

/**
 * The bot item's knowledge fields. A segment is added with one write that needs no version check (segments never
 * conflict: which file version is searchable follows from their contents), so ingest batches and deletes never retry
 * against each other; a merge replaces its inputs only while they are all still listed.
 */
export interface KnowledgeIndexStore {
  /** Undefined when the bot does not exist. */
  state(botId: string): Promise<IndexState | undefined>;
  /** Lists a new segment; false when the bot does not exist (any more). */
  addSegment(botId: string, segment: KnowledgeSegmentRef): Promise<boolean>;
  /**
   * Replaces `removed` by `added` (none: they simply leave) if every one of `removed` is still listed; their keys are
   * recorded as retired at `at`. False when one of them is gone (another merge took it) or the bot is.
   */
  replaceSegments(
    botId: string,
    removed: KnowledgeSegmentRef[],
    added: KnowledgeSegmentRef | undefined,
    at: number,
  ): Promise<boolean>;
  /** Takes the bot's merge lease until `until` if no one holds it at `now`; true when taken. */
  claimMerge(botId: string, now: number, until: number): Promise<boolean>;
  releaseMerge(botId: string): Promise<void>;
  /** Forgets retired keys (their objects were deleted). */
  forgetRetired(botId: string, keys: string[]): Promise<void>;
}

/** Bytes in the knowledge bucket. */
export interface KnowledgeObjectStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Stores what `chunks` yields as one object, holding only a part at a time (a multipart upload on S3); returns its
   * size. Nothing is stored when `chunks` throws.
   */
  putStream(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    contentType: string,
  ): Promise<number>;
  /** The object's bytes; throws when it is missing or unreadable. */
  get(key: string, signal?: AbortSignal): Promise<Uint8Array>;
  /** Bytes `[start, end)` of the object (fewer when it is shorter); a ranged GET. */
  getRange(key: string, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array>;
  /** The object's last `length` bytes (all of it when it is shorter) and its size. */
  getTail(key: string, length: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; size: number }>;
  delete(keys: string[]): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
}

/** Browser uploads straight into the knowledge bucket (a presigned POST), and what arrived there. */
export interface KnowledgeUploadInbox {
  /** A form post that can store only `key`, of `contentType`, 1 to `maxBytes` bytes, for `expiresInSeconds`. */
  presignPost(
    key: string,
    conditions: { contentType: string; maxBytes: number; expiresInSeconds: number },
  ): Promise<{ url: string; fields: Record<string, string> }>;
  /** Size and type of an object that landed; undefined when it is not there (any more). */
  describe(key: string): Promise<{ bytes: number; contentType?: string } | undefined>;
}

/**
 * A job for the ingest worker: a file to ingest, or a merge of the bot's segments (`rebuild`, the name earlier
 * versions used for it, is taken as a merge). `fileName` is absent only in jobs queued before files were keyed by name.
 */
export type IngestJob =
  | { kind: 'file'; botId: string; fileKey: string; fileName?: string; generation: string }
  | { kind: 'merge' | 'rebuild'; botId: string };

export interface IngestQueue {
  enqueue(job: IngestJob): Promise<void>;
}

/** Object keys in the knowledge bucket, all under the bot's prefix so deleting a bot is one prefix delete. */
export const knowledgeObjectKeys = {
  botPrefix: (botId: string) => `bots/${botId}/`,
  upload: (botId: string, generation: string) => `bots/${botId}/files/${generation}`,
  /**
   * Where a browser upload lands: the bot, the file and the generation the upload URL was issued for, so an object
   * that arrives can only ever become that generation. The suffix is what the bucket notification filters on.
   */
  incoming: (botId: string, fileKey: string, generation: string) =>
    `bots/${botId}/incoming/${fileKey}/${generation}${INCOMING_SUFFIX}`,
  /** Excerpts of one upload, as versions before segments stored them (deleted with the upload). */
  excerpts: (botId: string, generation: string) => `bots/${botId}/excerpts/${generation}.json`,
  segment: (botId: string, segmentId: string) => `bots/${botId}/segments/${segmentId}.sbks`,
};

/** The suffix of browser uploads' keys: the S3 notification to the ingest queue (and its local stand-in) filter on it. */
const INCOMING_SUFFIX = INCOMING_UPLOAD_SUFFIX;

/** The bot, file and generation an incoming upload's key was issued for; undefined for any other key. */
export function parseIncomingKey(key: string): { botId: string; fileKey: string; generation: string } | undefined {
  const match = /^bots\/([^/]+)\/incoming\/([^/]+)\/([^/]+)\.upload$/.exec(key);
  return match ? { botId: match[1]!, fileKey: match[2]!, generation: match[3]! } : undefined;
}

/** Short stable key of a file name (the name itself goes in the record). */
export function fileKeyOf(fileName: string): string {
  return createHash('sha256').update(fileName, 'utf8').digest('base64url').slice(0, 22);
}

let lastGenerationMs = 0;

/** A segment id: time-ordered like a generation, so a later segment sorts after. */
export function newSegmentId(at: Date): string {
  return newGeneration(at);
}

/**
 * A generation id: time-ordered (base-36 milliseconds, fixed width) then random, so later uploads sort after.
 * Strictly increasing within a process (two uploads in the same millisecond still sort in arrival order).
 */
export function newGeneration(at: Date): string {
  const ms = Math.max(at.getTime(), lastGenerationMs + 1);
  lastGenerationMs = ms;
  return `${ms.toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;
}

/**
 * A file name as the API accepts it: 1 to 255 characters, no control characters, no `/` or `\` (a name, not a path),
 * not `.` or `..`. Returns the problem, or undefined when it is fine.
 */
export function fileNameProblem(fileName: string): string | undefined {
  if (fileName.length < 1 || fileName.length > 255) return 'The file name must have 1 to 255 characters.';
  if (/\p{Cc}/u.test(fileName)) return 'The file name must not contain control characters.';
  if (/[/\\]/.test(fileName)) return 'The file name must not contain "/" or "\\".';
  if (fileName === '.' || fileName === '..') return 'The file name must not be "." or "..".';
  if (fileName.trim() !== fileName) return 'The file name must not start or end with spaces.';
  return undefined;
}
