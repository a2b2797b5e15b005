import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assumeRoleCalls } from '#test/support/local-aws.ts';
import { startStandIns, type StandIns } from './stand-ins.ts';

/** STS's stand-in through the official SDK client: AssumeRole's credentials, the deny rule, what a test reads. */
let aws: StandIns;
beforeAll(async () => {
  aws = await startStandIns();
});
afterAll(async () => aws?.stop());

const ROLE = 'arn:aws:iam::123456789012:role/switchboard-delivery';

describe('the STS stand-in', () => {
  it('assumes any role with an external id: temporary credentials that expire, the session named as AWS names it', async () => {
    const before = Date.now();
    const out = await aws.sts.send(
      new AssumeRoleCommand({
        RoleArn: ROLE,
        RoleSessionName: 'delivery-1',
        ExternalId: 'ext-123',
        DurationSeconds: 900,
      }),
    );
    expect(out.Credentials?.AccessKeyId).toMatch(/^ASIA[0-9A-F]{16}$/);
    expect(out.Credentials?.SecretAccessKey?.length).toBeGreaterThan(30);
    expect(out.Credentials?.SessionToken?.length).toBeGreaterThan(100);
    const expiry = out.Credentials!.Expiration!.getTime();
    expect(expiry).toBeGreaterThanOrEqual(before + 899_000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 901_000);
    expect(out.AssumedRoleUser?.Arn).toBe('arn:aws:sts::123456789012:assumed-role/switchboard-delivery/delivery-1');
    expect(out.AssumedRoleUser?.AssumedRoleId).toMatch(/^AROA[0-9A-F]+:delivery-1$/);

    const calls = await assumeRoleCalls(aws.info, ROLE);
    expect(calls.at(-1)).toMatchObject({
      roleArn: ROLE,
      roleSessionName: 'delivery-1',
      externalId: 'ext-123',
      durationSeconds: 900,
      callerAccessKeyId: 'test',
      accessKeyId: out.Credentials!.AccessKeyId,
    });

    // The issued credentials are who they say: GetCallerIdentity with them names the assumed role.
    const assumed = new STSClient({
      region: 'us-east-1',
      endpoint: aws.info.endpoints.sts,
      credentials: {
        accessKeyId: out.Credentials!.AccessKeyId!,
        secretAccessKey: out.Credentials!.SecretAccessKey!,
        sessionToken: out.Credentials!.SessionToken!,
      },
    });
    const identity = await assumed.send(new GetCallerIdentityCommand({}));
    assumed.destroy();
    expect(identity.Arn).toBe(out.AssumedRoleUser!.Arn);
    expect(identity.Account).toBe('123456789012');
  });

  it('refuses a role whose name starts with deny: AccessDenied (403), recorded with the external id it was given', async () => {
    const roleArn = 'arn:aws:iam::123456789012:role/deny-everything';
    const error = await aws.sts
      .send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 's1', ExternalId: 'ext-9' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(STSServiceException);
    expect((error as STSServiceException).name).toBe('AccessDenied');
    expect((error as STSServiceException).$metadata.httpStatusCode).toBe(403);
    expect((error as Error).message).toContain(`sts:AssumeRole on resource: ${roleArn}`);
    expect((await assumeRoleCalls(aws.info, roleArn)).at(-1)).toMatchObject({
      externalId: 'ext-9',
      refused: 'AccessDenied',
    });
  });

  it('answers a malformed call with ValidationError, as STS does', async () => {
    const bad = [
      { RoleArn: 'not-an-arn', RoleSessionName: 'ok-name' },
      { RoleArn: ROLE, RoleSessionName: 'has space' },
      { RoleArn: ROLE, RoleSessionName: 'ok', DurationSeconds: 600 },
      { RoleArn: ROLE, RoleSessionName: 'ok', DurationSeconds: 7200 },
      { RoleArn: ROLE, RoleSessionName: 'ok', ExternalId: 'x' },
    ];
    for (const input of bad) {
      const error = await aws.sts.send(new AssumeRoleCommand(input)).catch((e: unknown) => e);
      expect((error as Error).name, JSON.stringify(input)).toBe('ValidationError');
      expect((error as STSServiceException).$metadata.httpStatusCode).toBe(400);
    }
  });

  it('refuses a client signed for another service, naming the scope it expected', async () => {
    const response = await fetch(aws.info.endpoints.sts, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization:
          'AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Credential should be scoped to correct service: &apos;sts&apos;.');
    const unsigned = await fetch(aws.info.endpoints.sts, { method: 'POST', body: 'Action=GetCallerIdentity' });
    expect(unsigned.status).toBe(403);
  });
});
