import type { Bot, KnowledgeSegmentRef } from '#shared/bots/index.ts';
import type {
  IndexState,
  KnowledgeFile,
  KnowledgeFileStore,
  KnowledgeIndexStore,
  KnowledgeObjectStore,
  Page,
  StartUploadOutcome,
} from '#shared/knowledge/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';

interface MemoryBot extends Bot {
  mergeUntil: number;
  retired: Record<string, number>;
  fileNames: Map<string, string>;
}

/**
 * In-memory stand-ins for the knowledge ports, with the same conditional semantics as the DynamoDB adapters: file
 * records by name, the bot's segment map.
 */
export class MemoryKnowledge implements KnowledgeFileStore, KnowledgeIndexStore {
  readonly bots = new Map<string, MemoryBot>();
  readonly files = new Map<string, KnowledgeFile>();

  addBot(botId: string, projectId = 'prj_1'): void {
    const at = new Date().toISOString();
    this.bots.set(botId, {
      botId,
      projectId,
      name: botId,
      instructions: 'x',
      createdAt: at,
      updatedAt: at,
      knowledge: { version: 0, segments: [] },
      mergeUntil: 0,
      retired: {},
      fileNames: new Map(),
    });
  }

  bot(botId: string): Bot | undefined {
    const b = this.bots.get(botId);
    if (!b) return undefined;
    const { mergeUntil: _m, retired: _r, fileNames: _f, ...bot } = b;
    return structuredClone(bot);
  }

  async startUpload(file: KnowledgeFile): Promise<StartUploadOutcome> {
    const key = `${file.botId}/${file.fileName}`;
    const existing = this.files.get(key);
    if (existing && !(existing.generation < file.generation)) return 'superseded';
    this.files.set(key, { ...file });
    return 'started';
  }
  async get(botId: string, fileName: string) {
    const f = this.files.get(`${botId}/${fileName}`);
    return f && { ...f };
  }
  async page(botId: string, options: { limit: number; cursor?: string }): Promise<Page<KnowledgeFile>> {
    const all = [...this.files.values()]
      .filter((f) => f.botId === botId)
      .sort((a, b) => Buffer.compare(Buffer.from(a.fileName), Buffer.from(b.fileName)));
    const after = options.cursor === undefined ? undefined : Buffer.from(options.cursor, 'base64url').toString();
    const rest =
      after === undefined ? all : all.filter((f) => Buffer.compare(Buffer.from(f.fileName), Buffer.from(after)) > 0);
    const items = rest.slice(0, options.limit).map((f) => ({ ...f }));
    return items.length === options.limit && rest.length > options.limit
      ? { items, nextCursor: Buffer.from(items.at(-1)!.fileName).toString('base64url') }
      : { items };
  }
  async rememberName(botId: string, fileKey: string, fileName: string) {
    this.bots.get(botId)?.fileNames.set(fileKey, fileName);
  }
  async nameOf(botId: string, fileKey: string) {
    return this.bots.get(botId)?.fileNames.get(fileKey);
  }
  async markReady(
    botId: string,
    fileName: string,
    generation: string,
    chunks: number,
    at: Date,
    details: { ocrPages?: number; bytes?: number } = {},
  ) {
    const f = this.files.get(`${botId}/${fileName}`);
    if (!f || f.generation !== generation) return false;
    Object.assign(f, { status: 'ready', chunks, updatedAt: at.toISOString() }, JSON.parse(JSON.stringify(details)));
    delete f.error;
    return true;
  }
  async markFailed(botId: string, fileName: string, generation: string, reason: string, at: Date) {
    const f = this.files.get(`${botId}/${fileName}`);
    if (!f || f.generation !== generation) return false;
    Object.assign(f, { status: 'failed', chunks: 0, error: reason, updatedAt: at.toISOString() });
    return true;
  }
  async remove(botId: string, fileName: string, generation: string) {
    const f = this.files.get(`${botId}/${fileName}`);
    if (!f || f.generation !== generation) return false;
    this.files.delete(`${botId}/${fileName}`);
    return true;
  }
  async removeAll(botId: string) {
    for (const [key, f] of this.files) if (f.botId === botId) this.files.delete(key);
  }
  /** Every file of a bot, by name (test helper). */
  list(botId: string): KnowledgeFile[] {
    return [...this.files.values()].filter((f) => f.botId === botId).sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
  }

  async state(botId: string): Promise<IndexState | undefined> {
    const b = this.bots.get(botId);
    if (!b) return undefined;
    return structuredClone({
      version: b.knowledge.version,
      segments: b.knowledge.segments,
      mergeUntil: b.mergeUntil,
      retired: b.retired,
    });
  }
  async addSegment(botId: string, segment: KnowledgeSegmentRef) {
    const b = this.bots.get(botId);
    if (!b) return false;
    b.knowledge.segments = [...b.knowledge.segments, { ...segment }].sort((x, y) => (x.id < y.id ? -1 : 1));
    b.knowledge.version++;
    return true;
  }
  async replaceSegments(
    botId: string,
    removed: KnowledgeSegmentRef[],
    added: KnowledgeSegmentRef | undefined,
    at: number,
  ) {
    const b = this.bots.get(botId);
    if (!b) return false;
    const ids = new Set(b.knowledge.segments.map((s) => s.id));
    if (removed.some((r) => !ids.has(r.id))) return false;
    const gone = new Set(removed.map((r) => r.id));
    b.knowledge.segments = [
      ...b.knowledge.segments.filter((s) => !gone.has(s.id)),
      ...(added ? [{ ...added }] : []),
    ].sort((x, y) => (x.id < y.id ? -1 : 1));
    for (const r of removed) b.retired[r.key] = at;
    b.knowledge.version++;
    return true;
  }
  async claimMerge(botId: string, now: number, until: number) {
    const b = this.bots.get(botId);
    if (!b || b.mergeUntil >= now) return false;
    b.mergeUntil = until;
    return true;
  }
  async releaseMerge(botId: string) {
    const b = this.bots.get(botId);
    if (b) b.mergeUntil = 0;
  }
  async forgetRetired(botId: string, keys: string[]) {
    const b = this.bots.get(botId);
    if (b) for (const k of keys) delete b.retired[k];
  }
}

export class MemoryObjects implements KnowledgeObjectStore {
  readonly objects = new Map<string, Uint8Array>();
  /** Reads (whole, ranged and tail) and the bytes they returned. */
  gets = 0;
  bytesRead = 0;
  /** The key of every read, in order. */
  readKeys: string[] = [];
  async put(key: string, bytes: Uint8Array) {
    this.objects.set(key, new Uint8Array(bytes));
  }
  async putStream(key: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    const parts: Uint8Array[] = [];
    for await (const c of chunks) parts.push(c);
    const bytes = Buffer.concat(parts);
    this.objects.set(key, new Uint8Array(bytes));
    return bytes.length;
  }
  private object(key: string): Uint8Array {
    this.gets++;
    this.readKeys.push(key);
    const o = this.objects.get(key);
    if (!o) throw new Error(`NoSuchKey ${key}`);
    return o;
  }
  async get(key: string) {
    const o = this.object(key);
    this.bytesRead += o.length;
    return o;
  }
  async getRange(key: string, start: number, end: number) {
    const o = this.object(key).subarray(start, end);
    this.bytesRead += o.length;
    return o;
  }
  async getTail(key: string, length: number) {
    const o = this.object(key);
    const bytes = o.subarray(Math.max(0, o.length - length));
    this.bytesRead += bytes.length;
    return { bytes, size: o.length };
  }
  async delete(keys: string[]) {
    for (const k of keys) this.objects.delete(k);
  }
  async deletePrefix(prefix: string) {
    for (const k of [...this.objects.keys()]) if (k.startsWith(prefix)) this.objects.delete(k);
  }
}

export const quietLogger = () => {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  return createLogger('test');
};
