import { createHash, randomBytes } from 'node:crypto';
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

/** Where the bot's index stands, read consistently before a rebuild. */
export interface IndexState {
  version: number;
  key?: string;
  previousKey?: string;
  /** fileKey → generation of the latest upload of each file (any status). */
  current: Record<string, string>;
  /** fileKey → generation of the searchable files. */
  live: Record<string, string>;
}

export type StartUploadOutcome = 'started' | 'bot-not-found' | 'superseded';

/**
 * Knowledge file records and the bot's knowledge state (DynamoDB). All writes are single-item and conditional on
 * generations, so concurrent uploads, deletes and rebuilds settle on the latest upload without transactions.
 */
export interface KnowledgeFileStore {
  /** Records a new upload: the file item (processing) and the bot's `current` generation; the old one leaves search. */
  startUpload(projectId: string, file: KnowledgeFile): Promise<StartUploadOutcome>;
  get(botId: string, fileKey: string): Promise<KnowledgeFile | undefined>;
  list(botId: string): Promise<KnowledgeFile[]>;
  /** True when the file was still at that generation. */
  markReady(
    botId: string,
    fileKey: string,
    generation: string,
    chunks: number,
    at: Date,
    details?: { ocrPages?: number; bytes?: number },
  ): Promise<boolean>;
  markFailed(botId: string, fileKey: string, generation: string, reason: string, at: Date): Promise<boolean>;
  /** Takes the file out of search at once and deletes its record; the removed record, or undefined. */
  remove(projectId: string, botId: string, fileKey: string): Promise<KnowledgeFile | undefined>;
  /** Deletes every file record of a bot (the bot itself is gone); returns what was removed. */
  removeAll(botId: string): Promise<KnowledgeFile[]>;
  indexState(botId: string): Promise<IndexState | undefined>;
  /**
   * Publishes a new index: only if the bot's index is still at `expectedVersion` and every added file is still at
   * the given generation; makes those files searchable. False when something changed meanwhile.
   */
  publishIndex(
    botId: string,
    update: { expectedVersion: number; key: string; previousKey?: string; added: Record<string, string> },
  ): Promise<boolean>;
}

/** Bytes in the knowledge bucket. */
export interface KnowledgeObjectStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The object's bytes; throws when it is missing or unreadable. */
  get(key: string, signal?: AbortSignal): Promise<Uint8Array>;
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

/** A job for the ingest worker. */
export type IngestJob =
  | { kind: 'file'; botId: string; fileKey: string; generation: string }
  | { kind: 'rebuild'; botId: string };

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
  excerpts: (botId: string, generation: string) => `bots/${botId}/excerpts/${generation}.json`,
  index: (botId: string, version: number) =>
    `bots/${botId}/index/${String(version).padStart(10, '0')}-${randomBytes(4).toString('hex')}.sbkx`,
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
