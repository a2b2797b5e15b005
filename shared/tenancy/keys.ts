import type { Page, PageRequest } from '../kernel/page.ts';
import type { Role } from './access.ts';

/** A project management key as listed: never the key itself, which is shown once and stored only hashed. */
export interface ManagementKey {
  keyId: string;
  projectId: string;
  name: string;
  role: Role;
  createdAt: string;
  lastUsedAt?: string;
}

/** Where project keys live: by the hash of the key (the check) and under their project (the listing). */
export interface KeyStore {
  /** Records a new key; `keyHash` is the SHA-256 of the key. */
  create(key: ManagementKey, keyHash: string): Promise<void>;
  list(projectId: string, page: PageRequest): Promise<Page<ManagementKey>>;
  /**
   * The key a presented key's hash names, or undefined (unknown or revoked); with `along`, another item of the table
   * is read in the same round trip and handed to `along.found`.
   */
  findByHash(keyHash: string, along?: ItemAlong): Promise<ManagementKey | undefined>;
  /** Removes the key so it is refused from the next request on; false when the project has no such key. */
  revoke(projectId: string, keyId: string): Promise<boolean>;
  /** Records when the key was last used (a revoked key is not brought back). */
  touch(keyHash: string, key: ManagementKey, at: string): Promise<void>;
}

/**
 * An item the request will read anyway (its project), read together with the key's item: one round trip to the table
 * instead of two. Its table key, the attributes wanted, and who takes what was found (undefined: no such item).
 */
export interface ItemAlong {
  key: { pk: string; sk: string };
  attributes: readonly string[];
  found(item: Record<string, unknown> | undefined): void;
}

/** Management keys: `sbm_` then 43 base64url characters (32 random bytes). */
export const MANAGEMENT_KEY_PREFIX = 'sbm_';
