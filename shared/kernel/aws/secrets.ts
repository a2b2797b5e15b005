import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Reads a secret string once (call it at module scope: once per cold start). */
export async function readSecret(secretId: string, region: string): Promise<string> {
  const client = new SecretsManagerClient({ region });
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!out.SecretString) throw new Error(`Secret ${secretId} has no string value`);
    return out.SecretString;
  } finally {
    client.destroy();
  }
}

/**
 * A secret that may be absent (no ARN configured) or unreadable: undefined then, with the reason reported, so a
 * function can start without an optional credential (e.g. a model key for a server that needs none).
 */
export async function readOptionalSecret(
  secretId: string | undefined,
  region: string,
  onError: (cause: unknown) => void,
): Promise<string | undefined> {
  if (!secretId) return undefined;
  try {
    return await readSecret(secretId, region);
  } catch (cause) {
    onError(cause);
    return undefined;
  }
}
