import type { WebhookTarget } from '../integrations/index.ts';
import type { SecretBox } from '../kernel/secret-box.ts';

/**
 * What a delivery attempt needs of its webhook, as the fan-out read it a moment earlier. It travels sealed
 * (AES-256-GCM, bound to the delivery id) inside the job because it holds the signing secrets and the bearer token:
 * the first attempt then needs no read of the webhook, and nothing secret sits in the queue in clear.
 */
export interface TargetSnapshot {
  url: string;
  /** A destination in the customer's AWS account (absent: `url`). */
  aws?: WebhookTarget['aws'];
  bearerToken: string | null;
  signingSecrets: string[];
  /** Ed25519 `whsk_` keys that sign (`v1a`); absent in jobs queued before they existed. */
  signingKeys?: string[];
  enabled: boolean;
}

export function snapshotOf(target: WebhookTarget): TargetSnapshot {
  return {
    url: target.url,
    ...(target.aws ? { aws: target.aws } : {}),
    bearerToken: target.bearerToken,
    signingSecrets: target.signingSecrets,
    signingKeys: target.signingKeys,
    enabled: target.enabled,
  };
}

const context = (deliveryId: string) => `webhook-job:${deliveryId}`;

export function sealSnapshot(box: SecretBox, deliveryId: string, snapshot: TargetSnapshot): string {
  return box.seal(JSON.stringify(snapshot), context(deliveryId));
}

export function openSnapshot(box: SecretBox, deliveryId: string, sealed: string): TargetSnapshot {
  return JSON.parse(box.open(sealed, context(deliveryId))) as TargetSnapshot;
}
