import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PieceOptions, PieceSource } from './index/segment-reading.ts';

export interface PieceCacheOptions {
  /** Bytes of decoded pieces kept in memory. */
  memoryBytes: number;
  /** Bytes of raw pieces kept on the local disk (the Lambda's /tmp); 0 = no disk tier. */
  diskBytes?: number;
  /** Where the disk tier lives (default: a folder of its own under the OS temp folder, removed at exit). */
  diskDir?: string;
}

/**
 * Immutable pieces of segments (dictionary blocks, postings, text blocks, lengths), in two tiers bounded by bytes,
 * least recently used out first: decoded in memory, raw on the local disk (what the Lambda's /tmp is for: a piece
 * pushed out of memory comes back from disk instead of from S3). Concurrent requests for one piece share one fetch.
 * A piece is keyed by its object key and position, and objects never change, so nothing here is ever stale. Values
 * worked out from pieces (a term's postings, an excerpt's text: {@link derived}) share the memory tier, not the disk.
 */
export class PieceCache implements PieceSource {
  private readonly memory = new Map<string, { value: unknown; bytes: number }>();
  /** Transient pieces (see PieceOptions): in the room the others leave, let go before any of them. */
  private readonly passing = new Map<string, { value: unknown; bytes: number }>();
  private memoryUsed = 0;
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly disk: DiskTier | undefined;
  /** Reads that reached the bucket, and their bytes (what a cold query costs on S3). */
  readonly fetched = { requests: 0, bytes: 0 };

  constructor(private readonly options: PieceCacheOptions) {
    this.disk = options.diskBytes ? new DiskTier(options.diskBytes, options.diskDir) : undefined;
  }

  get memoryBytes(): number {
    return this.memoryUsed;
  }

  piece<T>(
    id: string,
    fetch: () => Promise<Uint8Array>,
    decode: (raw: Uint8Array) => { value: T; bytes: number },
    options: PieceOptions = {},
  ): Promise<T> {
    const held = options.transient ? this.passing : this.memory;
    const hit = held.get(id);
    if (hit) {
      held.delete(id);
      held.set(id, hit);
      return Promise.resolve(hit.value as T);
    }
    const pending = this.loading.get(id);
    if (pending) return pending as Promise<T>;
    const load = this.load(id, fetch, decode, options).finally(() => this.loading.delete(id));
    this.loading.set(id, load);
    return load;
  }

  derived<T>(id: string, compute: () => Promise<{ value: T; bytes: number }>): Promise<T> {
    const hit = this.memory.get(id);
    if (hit) {
      this.memory.delete(id);
      this.memory.set(id, hit);
      return Promise.resolve(hit.value as T);
    }
    const pending = this.loading.get(id);
    if (pending) return pending as Promise<T>;
    const load = compute()
      .then((worked) => {
        this.remember(id, worked.value, worked.bytes);
        return worked.value;
      })
      .finally(() => this.loading.delete(id));
    this.loading.set(id, load);
    return load;
  }

  private async load<T>(
    id: string,
    fetch: () => Promise<Uint8Array>,
    decode: (raw: Uint8Array) => { value: T; bytes: number },
    options: PieceOptions,
  ): Promise<T> {
    let decoded: { value: T; bytes: number } | undefined;
    const local = await this.disk?.read(id);
    if (local) {
      try {
        decoded = decode(local);
      } catch {
        this.disk?.forget(id); // a damaged local copy: the bucket's is read instead
      }
    }
    if (!decoded) {
      const raw = await fetch();
      this.fetched.requests++;
      this.fetched.bytes += raw.length;
      decoded = decode(raw);
      this.disk?.write(id, raw);
    }
    this.remember(id, decoded.value, decoded.bytes, options.transient);
    return decoded.value;
  }

  private remember(id: string, value: unknown, bytes: number, transient = false): void {
    const bound = this.options.memoryBytes;
    if (bytes > bound / 4) return; // a piece that would push out most of the others is not kept
    (transient ? this.passing : this.memory).set(id, { value, bytes });
    this.memoryUsed += bytes;
    // Transient pieces go first: held, they would push out the small values worked out from them.
    for (const [key, entry] of this.passing) {
      if (this.memoryUsed <= bound) break;
      this.passing.delete(key);
      this.memoryUsed -= entry.bytes;
    }
    for (const [key, entry] of this.memory) {
      if (this.memoryUsed <= bound) break;
      this.memory.delete(key);
      this.memoryUsed -= entry.bytes;
    }
  }

  /** Forgets every piece of an object (it turned out damaged: its pieces must not be trusted either). */
  forgetObject(key: string): void {
    for (const [id, entry] of this.memory)
      if (id.startsWith(`${key}#`)) {
        this.memory.delete(id);
        this.memoryUsed -= entry.bytes;
      }
    for (const [id, entry] of this.passing)
      if (id.startsWith(`${key}#`)) {
        this.passing.delete(id);
        this.memoryUsed -= entry.bytes;
      }
    this.disk?.forgetObject(key);
  }
}

/** Raw pieces as files, bounded by bytes, least recently used out first; writes are best effort. */
class DiskTier {
  private readonly files = new Map<string, { name: string; bytes: number; written: Promise<boolean> }>();
  private used = 0;
  private dir: string | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly givenDir?: string,
  ) {}

  private folder(): string {
    if (!this.dir) {
      const dir =
        this.givenDir ?? join(tmpdir(), `knowledge-pieces-${process.pid}-${Math.random().toString(36).slice(2)}`);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Best effort: a write still in flight at exit may refill it.
      if (!this.givenDir)
        process.once('exit', () => {
          try {
            rmSync(dir, { recursive: true, force: true });
          } catch {}
        });
      this.dir = dir;
    }
    return this.dir;
  }

  async read(id: string): Promise<Uint8Array | undefined> {
    const entry = this.files.get(id);
    if (!entry) return undefined;
    this.files.delete(id);
    this.files.set(id, entry);
    try {
      if (!(await entry.written)) return undefined;
      return await readFile(join(this.folder(), entry.name));
    } catch {
      this.forget(id);
      return undefined;
    }
  }

  write(id: string, bytes: Uint8Array): void {
    if (this.files.has(id) || bytes.length > this.maxBytes / 8) return;
    const name = createHash('sha256').update(id).digest('hex').slice(0, 32);
    const written = writeFile(join(this.folder(), name), bytes).then(
      () => true,
      () => false,
    );
    const entry = { name, bytes: bytes.length, written };
    this.files.set(id, entry);
    this.used += bytes.length;
    void written.then((ok) => ok || this.forget(id, entry));
    for (const [key, old] of this.files) {
      if (this.used <= this.maxBytes) break;
      this.forget(key, old);
    }
  }

  forget(id: string, entry = this.files.get(id)): void {
    if (!entry || this.files.get(id) !== entry) return;
    this.files.delete(id);
    this.used -= entry.bytes;
    // After its write settles, so a write still in flight does not leave a file behind.
    void entry.written.then(() => unlink(join(this.folder(), entry.name)).catch(() => undefined));
  }

  forgetObject(key: string): void {
    for (const id of [...this.files.keys()]) if (id.startsWith(`${key}#`)) this.forget(id);
  }
}
