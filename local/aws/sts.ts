import { randomBytes, randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { AwsError, LOCAL_ACCOUNT, type AwsAnswer, type AwsRequest, type StandInService, xmlEscape } from './wire.ts';

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** A role's default maximum session: asking for more is refused, as for a role created with the defaults. */
const MAX_SESSION_SECONDS = 3600;
/** How long a record of a call is kept past its credentials' expiry (what a test reads afterwards). */
const KEEP_AFTER_EXPIRY_MS = 86_400_000;

/**
 * STS's stand-in (query protocol): `AssumeRole` gives temporary credentials with an expiry for any role ARN, except
 * a role whose name starts with `deny` (403 `AccessDenied`, as a trust policy that does not name the caller or the
 * external id); each call is recorded with its `ExternalId` for a test to read at `GET /_local/assume-role-calls`.
 * `GetCallerIdentity` names the assumed role for credentials it issued (`ExpiredToken` once they expire).
 */
export function createSts(db: DatabaseSync): StandInService {
  db.exec(`CREATE TABLE IF NOT EXISTS sts_calls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, role_arn TEXT NOT NULL, session_name TEXT NOT NULL, external_id TEXT,
    duration_seconds INTEGER NOT NULL, caller TEXT NOT NULL, at INTEGER NOT NULL, refused TEXT,
    access_key_id TEXT UNIQUE, expires_at INTEGER)`);
  const insert = db.prepare(
    `INSERT INTO sts_calls (role_arn, session_name, external_id, duration_seconds, caller, at, refused, access_key_id, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare('DELETE FROM sts_calls WHERE COALESCE(expires_at, at) < ?');
  const byKey = db.prepare('SELECT role_arn, session_name, expires_at FROM sts_calls WHERE access_key_id = ?');

  function assumeRole(form: URLSearchParams, caller: string): AwsAnswer {
    const roleArn = form.get('RoleArn') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    const externalId = form.get('ExternalId');
    const duration = Number(form.get('DurationSeconds') ?? 3600);
    const roleName = validate(roleArn, sessionName, externalId, duration);
    const now = Date.now();
    prune.run(now - KEEP_AFTER_EXPIRY_MS);
    if (roleName.toLowerCase().startsWith('deny')) {
      insert.run(roleArn, sessionName, externalId, duration, caller, now, 'AccessDenied', null, null);
      throw new AwsError(
        403,
        'AccessDenied',
        `User: ${callerArn(caller)} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    }
    const accessKeyId = `ASIA${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`;
    const expiresAt = now + duration * 1000;
    insert.run(roleArn, sessionName, externalId, duration, caller, now, null, accessKeyId, expiresAt);
    const roleAccount = roleArn.split(':')[4];
    const roleId = `AROA${randomBytes(8).toString('hex').toUpperCase()}`;
    return {
      xml: result(
        'AssumeRole',
        `<AssumedRoleUser><AssumedRoleId>${roleId}:${xmlEscape(sessionName)}</AssumedRoleId>` +
          `<Arn>arn:aws:sts::${roleAccount}:assumed-role/${xmlEscape(roleName)}/${xmlEscape(sessionName)}</Arn></AssumedRoleUser>` +
          `<Credentials><AccessKeyId>${accessKeyId}</AccessKeyId>` +
          `<SecretAccessKey>${randomBytes(30).toString('base64')}</SecretAccessKey>` +
          `<SessionToken>${randomBytes(96).toString('base64')}</SessionToken>` +
          `<Expiration>${new Date(expiresAt).toISOString()}</Expiration></Credentials>`,
      ),
    };
  }

  function callerArn(accessKeyId: string): string {
    const session = byKey.get(accessKeyId) as { role_arn: string; session_name: string } | undefined;
    if (!session) return `arn:aws:iam::${LOCAL_ACCOUNT}:root`;
    const [, , , , account, resource] = session.role_arn.split(':');
    return `arn:aws:sts::${account}:assumed-role/${resource!.split('/').pop()}/${session.session_name}`;
  }

  function getCallerIdentity(caller: string): AwsAnswer {
    const session = byKey.get(caller) as { expires_at: number } | undefined;
    if (session && session.expires_at <= Date.now())
      throw new AwsError(403, 'ExpiredToken', 'The security token included in the request is expired');
    const arn = callerArn(caller);
    const account = session ? arn.split(':')[4]! : LOCAL_ACCOUNT;
    return {
      xml: result(
        'GetCallerIdentity',
        `<Arn>${xmlEscape(arn)}</Arn><UserId>${session ? xmlEscape(caller) : LOCAL_ACCOUNT}</UserId><Account>${account}</Account>`,
      ),
    };
  }

  return {
    handle(request: AwsRequest) {
      if (request.method !== 'POST') throw new AwsError(400, 'InvalidAction', 'STS takes POST requests.');
      const form = new URLSearchParams(request.body.toString('utf8'));
      const action = form.get('Action');
      if (action === 'AssumeRole') return assumeRole(form, request.accessKeyId);
      if (action === 'GetCallerIdentity') return getCallerIdentity(request.accessKeyId);
      throw new AwsError(400, 'InvalidAction', `Could not find operation ${action ?? '(none)'} for version 2011-06-15`);
    },
    inspect(path, query) {
      if (path !== 'assume-role-calls') return undefined;
      const role = query.get('roleArn');
      const rows = db
        .prepare(`SELECT * FROM sts_calls ${role ? 'WHERE role_arn = ?' : ''} ORDER BY seq DESC LIMIT 1000`)
        .all(...(role ? [role] : [])) as Record<string, string | number | null>[];
      return {
        calls: rows.reverse().map((r) => ({
          roleArn: r.role_arn,
          roleSessionName: r.session_name,
          externalId: r.external_id ?? undefined,
          durationSeconds: r.duration_seconds,
          callerAccessKeyId: r.caller,
          at: new Date(r.at as number).toISOString(),
          ...(r.refused
            ? { refused: r.refused }
            : { accessKeyId: r.access_key_id, expiration: new Date(r.expires_at as number).toISOString() }),
        })),
      };
    },
  };
}

/** The role's name, or the validation error STS answers for a malformed request. */
function validate(roleArn: string, sessionName: string, externalId: string | null, duration: number): string {
  const invalid = (member: string, value: string, constraint: string) =>
    new AwsError(
      400,
      'ValidationError',
      `1 validation error detected: Value '${value}' at '${member}' failed to satisfy constraint: ${constraint}`,
    );
  const role = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]{1,64})$/.exec(roleArn);
  if (!roleArn) throw invalid('roleArn', 'null', 'Member must not be null');
  if (!role) throw new AwsError(400, 'ValidationError', `${roleArn} is invalid`);
  if (!/^[\w+=,.@-]{2,64}$/.test(sessionName))
    throw invalid(
      'roleSessionName',
      sessionName,
      'Member must satisfy regular expression pattern: [\\w+=,.@-]* and have length between 2 and 64',
    );
  if (externalId !== null && !/^[\w+=,.@:/-]{2,1224}$/.test(externalId))
    throw invalid(
      'externalId',
      externalId,
      'Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]* and have length between 2 and 1224',
    );
  if (!Number.isInteger(duration) || duration < 900 || duration > 43_200)
    throw invalid('durationSeconds', String(duration), 'Member must have value between 900 and 43200');
  if (duration > MAX_SESSION_SECONDS)
    throw new AwsError(
      400,
      'ValidationError',
      'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    );
  return role[2]!;
}

function result(action: string, inner: string): string {
  return (
    `<${action}Response xmlns="${XMLNS}"><${action}Result>${inner}</${action}Result>` +
    `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`
  );
}
