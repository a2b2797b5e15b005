/**
 * Preloaded into the service process by `bench/webhooks.ts --queue-sync normal`: opens the local queue's SQLite
 * (fauxqs persistence) with `PRAGMA synchronous = NORMAL` instead of FULL. WAL with NORMAL still survives a process
 * crash (kill -9); it gives up durability across a power cut, and with it the fsync per message insert, in-flight
 * update and delete that bounds the local pipeline on a slow disk. Only to show that cost; `npm start` keeps FULL.
 */
const dist = new URL('.', import.meta.resolve('fauxqs'));
const { PersistenceManager } = (await import(new URL('./persistence.js', dist).href)) as { PersistenceManager: { prototype: Record<string, any> } };
const loadSqsAndSns = PersistenceManager.prototype.loadSqsAndSns as (...args: unknown[]) => unknown;
PersistenceManager.prototype.loadSqsAndSns = function (this: { db: { exec(sql: string): void } }, ...args: unknown[]) {
  this.db.exec('PRAGMA synchronous = NORMAL');
  return loadSqsAndSns.apply(this, args);
};
