import { ValidationError } from '../kernel/domain-error.ts';
import { requireIntegration, saveOr409, type UseCaseDeps } from './integration-access.ts';
import { PREVIOUS_SECRET_GRACE_MS } from './integration.ts';
import { generateSigningKey, generateSigningSecret, publicKeyOf } from './signing-keys.ts';

/** What rotating a webhook's signing credentials shows: the new `v1` secret (once), or the new `v1a` public key. */
export type RotatedCredentials = { signingSecret: string } | { publicKey: string };

/**
 * Replaces a webhook's signing credentials; the previous ones keep signing for 24 h. `v1`: a new secret, shown
 * once. `v1a`: a new key pair, whose public key is shown (and stays on the webhook).
 */
export function makeRotateSecret(deps: UseCaseDeps<'integrations' | 'projects'>) {
  return async (projectId: string, integrationId: string): Promise<RotatedCredentials> => {
    const current = await requireIntegration(deps, projectId, integrationId);
    if (current.product !== 'webhook') {
      throw new ValidationError(
        'Only webhooks have a signing secret; custom integrations rotate their token (rotate-token).',
        [{ path: '', message: 'Not a webhook integration', code: 'custom' }],
      );
    }
    const at = deps.now();
    const expiresAt = new Date(at.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
    const base = { ...current, updatedAt: at.toISOString(), version: current.version + 1 };
    if (current.signature === 'v1a' && current.signingKey) {
      const signingKey = generateSigningKey();
      await saveOr409(deps.integrations, {
        ...base,
        signingKey,
        previousSigningKey: { key: current.signingKey, expiresAt },
      });
      return { publicKey: publicKeyOf(signingKey) };
    }
    const signingSecret = generateSigningSecret();
    await saveOr409(deps.integrations, {
      ...base,
      signingSecret,
      previousSigningSecret: { secret: current.signingSecret, expiresAt },
    });
    return { signingSecret };
  };
}
