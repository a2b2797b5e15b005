import { readSecret } from '#shared/kernel/aws/secrets.ts';
import type { Config } from '#shared/kernel/config.ts';
import { createSecretBox, type SecretBox } from '#shared/kernel/secret-box.ts';

/**
 * The deployment's SecretBox: `SECRETS_KEY` when set (local runs generate one under DATA_DIR), else the key read
 * once from Secrets Manager (`SECRETS_KEY_SECRET_ARN`). Call at module scope: once per cold start.
 */
export async function secretBoxFromConfig(cfg: Config): Promise<SecretBox> {
  const key =
    cfg.SECRETS_KEY ??
    (cfg.SECRETS_KEY_SECRET_ARN ? (await readSecret(cfg.SECRETS_KEY_SECRET_ARN, cfg.AWS_REGION)).trim() : undefined);
  if (!key) throw new Error('Invalid configuration: SECRETS_KEY or SECRETS_KEY_SECRET_ARN is required');
  return createSecretBox(key);
}
