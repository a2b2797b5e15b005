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
