import type { Bot } from '#shared/bots/bot.ts';
import type {
  IndexState,
  KnowledgeFile,
  KnowledgeFileStore,
  KnowledgeObjectStore,
  StartUploadOutcome,
} from '#shared/knowledge/knowledge-files.ts';
import { createLogger } from '#shared/kernel/logger.ts';

/** In-memory stand-ins for the knowledge ports, with the same conditional semantics as the DynamoDB adapter. */
export class MemoryKnowledge implements KnowledgeFileStore {
  readonly bots = new Map<string, Bot & { current: Record<string, string>; previousIndexKey?: string }>();
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
      knowledge: { indexVersion: 0, liveGenerations: {} },
      current: {},
    });
  }

  bot(botId: string): Bot | undefined {
    const b = this.bots.get(botId);
    return b && structuredClone({ ...b, current: undefined, previousIndexKey: undefined });
  }

  async startUpload(projectId: string, file: KnowledgeFile): Promise<StartUploadOutcome> {
    const bot = this.bots.get(file.botId);
    if (!bot || bot.projectId !== projectId) return 'bot-not-found';
    const cur = bot.current[file.fileKey];
    if (cur !== undefined && !(cur < file.generation)) return 'superseded';
    bot.current[file.fileKey] = file.generation;
    delete bot.knowledge.liveGenerations[file.fileKey];
    const key = `${file.botId}/${file.fileKey}`;
    const existing = this.files.get(key);
    if (existing && !(existing.generation < file.generation)) return 'superseded';
    this.files.set(key, { ...file });
    return 'started';
  }
  async get(botId: string, fileKey: string) {
    const f = this.files.get(`${botId}/${fileKey}`);
    return f && { ...f };
  }
  async list(botId: string) {
    return [...this.files.values()].filter((f) => f.botId === botId).map((f) => ({ ...f }));
  }
  async markReady(
    botId: string,
    fileKey: string,
    generation: string,
    chunks: number,
    at: Date,
    details: { ocrPages?: number; bytes?: number } = {},
  ) {
    const f = this.files.get(`${botId}/${fileKey}`);
    if (!f || f.generation !== generation) return false;
    Object.assign(f, { status: 'ready', chunks, updatedAt: at.toISOString() }, JSON.parse(JSON.stringify(details)));
    delete f.error;
    return true;
  }
  async markFailed(botId: string, fileKey: string, generation: string, reason: string, at: Date) {
    const f = this.files.get(`${botId}/${fileKey}`);
    if (!f || f.generation !== generation) return false;
    Object.assign(f, { status: 'failed', chunks: 0, error: reason, updatedAt: at.toISOString() });
    return true;
  }
  async remove(projectId: string, botId: string, fileKey: string) {
    const bot = this.bots.get(botId);
    if (!bot || bot.projectId !== projectId) return undefined;
    delete bot.current[fileKey];
    delete bot.knowledge.liveGenerations[fileKey];
    const f = this.files.get(`${botId}/${fileKey}`);
    this.files.delete(`${botId}/${fileKey}`);
    return f;
  }
  async removeAll(botId: string) {
    const all = await this.list(botId);
    for (const f of all) this.files.delete(`${botId}/${f.fileKey}`);
    return all;
  }
  async indexState(botId: string): Promise<IndexState | undefined> {
    const b = this.bots.get(botId);
    if (!b) return undefined;
    return structuredClone({
      version: b.knowledge.indexVersion,
      ...(b.knowledge.indexKey ? { key: b.knowledge.indexKey } : {}),
      ...(b.previousIndexKey ? { previousKey: b.previousIndexKey } : {}),
      current: b.current,
      live: b.knowledge.liveGenerations,
    });
  }
  async publishIndex(
    botId: string,
    update: { expectedVersion: number; key: string; previousKey?: string; added: Record<string, string> },
  ) {
    const b = this.bots.get(botId);
    if (!b || b.knowledge.indexVersion !== update.expectedVersion) return false;
    if (Object.entries(update.added).some(([k, g]) => b.current[k] !== g)) return false;
    b.knowledge.indexVersion++;
    b.knowledge.indexKey = update.key;
    b.previousIndexKey = update.previousKey;
    Object.assign(b.knowledge.liveGenerations, update.added);
    return true;
  }
}

export class MemoryObjects implements KnowledgeObjectStore {
  readonly objects = new Map<string, Uint8Array>();
  gets = 0;
  async put(key: string, bytes: Uint8Array) {
    this.objects.set(key, new Uint8Array(bytes));
  }
  async get(key: string) {
    this.gets++;
    const o = this.objects.get(key);
    if (!o) throw new Error(`NoSuchKey ${key}`);
    return o;
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
