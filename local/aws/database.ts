import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/**
 * The stand-ins' state in one SQLite file under DATA_DIR (or in memory): each stand-in creates its own tables. WAL
 * with synchronous=NORMAL, as the SQS stand-in runs: a committed write survives the process dying (`kill -9`) and only
 * a power cut can lose the last transactions. `node:sqlite` is synchronous: each call commits before it answers.
 */
export async function openStandInDatabase(path: string | undefined): Promise<DatabaseSync> {
  const { DatabaseSync } = await import('node:sqlite');
  if (path) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(path ?? ':memory:');
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
  return db;
}

/** Runs `work` in one transaction: all of its writes or none. */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
