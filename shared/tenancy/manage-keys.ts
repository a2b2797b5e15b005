import { NotFoundError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import type { PageRequest } from '../kernel/page.ts';
import { hashToken, hasTokenShape, randomToken } from '../kernel/tokens.ts';
import type { Role } from './access.ts';
import { type ItemAlong, type KeyStore, MANAGEMENT_KEY_PREFIX, type ManagementKey } from './keys.ts';

export interface ManageKeysDeps {
  keys: KeyStore;
  projectExists(projectId: string): Promise<boolean>;
  /** `lastUsedAt` is written at most this often per key, so a busy script does not write on every request. */
  touchEverySeconds: number;
  /** A failed `lastUsedAt` write: logged, never the request's failure. */
  onTouchFailed(cause: unknown): void;
  now?: () => Date;
}

/**
 * A project's management keys:
 * - create: a new `sbm_` key, shown once in the answer, stored only as its SHA-256;
 * - list: the project's keys (name, role, when made and last used), never the keys;
 * - revoke: the key is refused from the next request on;
 * - recognise: the key a presented `sbm_` value is (undefined when unknown, revoked or misshapen), its use recorded;
 *   `along`, an item the request reads anyway, is read with the key (a misshapen key reads nothing, so not it either).
 */
export function makeManageKeys(deps: ManageKeysDeps) {
  const now = deps.now ?? (() => new Date());

  async function requireProject(projectId: string) {
    if (!(await deps.projectExists(projectId))) throw new NotFoundError('project', `No project ${projectId}.`);
  }

  return {
    async create(projectId: string, input: { name: string; role: Role }) {
      await requireProject(projectId);
      const key = randomToken(MANAGEMENT_KEY_PREFIX);
      const record: ManagementKey = {
        keyId: newId('key'),
        projectId,
        name: input.name,
        role: input.role,
        createdAt: now().toISOString(),
      };
      await deps.keys.create(record, hashToken(key));
      return { ...record, key };
    },

    async list(projectId: string, page: PageRequest) {
      await requireProject(projectId);
      return deps.keys.list(projectId, page);
    },

    async revoke(projectId: string, keyId: string) {
      if (!(await deps.keys.revoke(projectId, keyId))) throw new NotFoundError('key', `No key ${keyId}.`);
    },

    async recognise(presented: string, along?: ItemAlong): Promise<ManagementKey | undefined> {
      if (!hasTokenShape(MANAGEMENT_KEY_PREFIX, presented)) return undefined;
      const keyHash = hashToken(presented);
      const key = await deps.keys.findByHash(keyHash, along);
      if (!key) return undefined;
      const at = now();
      const last = key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0;
      if (at.getTime() - last >= deps.touchEverySeconds * 1000) {
        await deps.keys.touch(keyHash, key, at.toISOString()).catch(deps.onTouchFailed);
      }
      return key;
    },
  };
}

export type ManageKeys = ReturnType<typeof makeManageKeys>;
