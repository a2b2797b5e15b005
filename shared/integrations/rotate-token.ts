import { generateToken } from '../auth/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { hashToken } from '../kernel/tokens.ts';
import { requireIntegration, saveOr409, type UseCaseDeps } from './integration-access.ts';
import type { CustomIntegration, PollerIntegration } from './integration.ts';

/**
 * Replaces a custom integration's or a poller's token, shown once: 1. the old grant is deleted (the old token fails
 * from the very next request); 2. the new grant is written; 3. the new hash is recorded if no other rotation or
 * delete got there first, else this rotation deletes its own grant and answers 409. The grant is in place before the
 * record names it, so a delete that reads the new hash always finds the grant it must remove, and a rotation that
 * lost leaves nothing behind: at most one token, the recorded one, stays alive.
 */
export function makeRotateToken(deps: UseCaseDeps<'integrations' | 'projects' | 'tokens'>) {
  return async (projectId: string, integrationId: string): Promise<string> => {
    const current = await requireIntegration(deps, projectId, integrationId);
    if (current.product === 'webhook') {
      throw new ValidationError(
        'Only custom integrations and pollers have a token; webhooks rotate their signing secret (rotate-secret).',
        [{ path: '', message: 'Not a custom integration', code: 'custom' }],
      );
    }
    await deps.tokens.delete(current.tokenHash);
    const token = generateToken(current.product);
    const next: CustomIntegration | PollerIntegration = {
      ...current,
      tokenHash: hashToken(token),
      updatedAt: deps.now().toISOString(),
      version: current.version + 1,
    };
    await deps.tokens.put(
      next.tokenHash,
      current.product === 'custom'
        ? { kind: 'custom', projectId, integrationId, channelId: current.channelId }
        : { kind: 'poller', projectId, integrationId },
    );
    try {
      await saveOr409(deps.integrations, next);
    } catch (error) {
      await deps.tokens.delete(next.tokenHash);
      throw error;
    }
    return token;
  };
}
