import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { leanSdkClient } from '../../kernel/aws/clients.ts';

export interface RoleCredentialsOptions {
  region: string;
  /** The local stand-in; on AWS the region's STS. */
  endpoint?: string;
  sessionSeconds: number;
  now?: () => number;
}

/** Credentials are renewed this long before they expire, so no call starts with credentials about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** A refusal is remembered this long: a denied role with a backlog asks STS once, not once per delivery. */
const REFUSAL_MEMORY_MS = 10_000;
/** Roles held at once per process (the oldest forgotten first). */
const MAX_ROLES = 2_000;

type Held =
  | { kind: 'pending'; promise: Promise<AwsCredentialIdentity> }
  | { kind: 'ready'; credentials: AwsCredentialIdentity; renewAt: number }
  | { kind: 'refused'; error: unknown; until: number };

/**
 * Credentials of customers' roles, assumed with the project's external id and kept until shortly before they expire:
 * one AssumeRole per role and hour per process however many deliveries go through it. Concurrent first calls share
 * one request. The session is named after the project, which the customer sees in their CloudTrail.
 */
export class RoleCredentials {
  private readonly sts: STSClient;
  private readonly held = new Map<string, Held>();
  private readonly now: () => number;

  constructor(private readonly options: RoleCredentialsOptions) {
    this.now = options.now ?? Date.now;
    this.sts = leanSdkClient(
      new STSClient({
        region: options.region,
        ...(options.endpoint
          ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
          : {}),
        maxAttempts: 2,
      }),
    );
  }

  /** The role's credentials; throws the STS error when the role cannot be assumed (`AccessDenied`, …). */
  async get(roleArn: string, externalId: string, projectId: string): Promise<AwsCredentialIdentity> {
    const key = `${roleArn}\n${externalId}`;
    const at = this.now();
    const held = this.held.get(key);
    if (held?.kind === 'pending') return held.promise;
    if (held?.kind === 'ready' && held.renewAt > at) return held.credentials;
    if (held?.kind === 'refused' && held.until > at) throw held.error;
    const promise = this.assume(roleArn, externalId, projectId).then(
      (credentials) => {
        const expires = credentials.expiration?.getTime() ?? this.now() + this.options.sessionSeconds * 1000;
        this.remember(key, { kind: 'ready', credentials, renewAt: expires - RENEW_BEFORE_MS });
        return credentials;
      },
      (error: unknown) => {
        this.remember(key, { kind: 'refused', error, until: this.now() + REFUSAL_MEMORY_MS });
        throw error;
      },
    );
    this.remember(key, { kind: 'pending', promise });
    return promise;
  }

  private remember(key: string, held: Held): void {
    this.held.delete(key);
    this.held.set(key, held);
    if (this.held.size > MAX_ROLES) this.held.delete(this.held.keys().next().value!);
  }

  private async assume(roleArn: string, externalId: string, projectId: string): Promise<AwsCredentialIdentity> {
    const out = await this.sts.send(
      new AssumeRoleCommand({
        RoleArn: roleArn,
        ExternalId: externalId,
        RoleSessionName: `switchboard-${projectId}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64),
        DurationSeconds: this.options.sessionSeconds,
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('STS returned no credentials');
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
      ...(c.Expiration ? { expiration: c.Expiration } : {}),
    };
  }

  destroy(): void {
    this.sts.destroy();
  }
}
