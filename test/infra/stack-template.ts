import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll } from 'vitest';
import { BUCKET_NOTIFICATIONS_HANDLER } from '#infra/acknowledgements.ts';
import { functionSpecs } from '#infra/functions.ts';
import { defaultSynth, type Synthesized } from './synth.ts';

/**
 * The default deployment's template and the readers the stack suites share (stack.suite.ts, stack-data-iam.suite.ts,
 * stack-ops.suite.ts), each suite calling {@link useDefaultStack} once.
 */
export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any> };

export let s: Synthesized;
export let resources: Record<string, Resource>;
export const specs = functionSpecs();

/** Synthesis bundles every function the first time (seconds, more on a loaded machine). */
export const SYNTH_TIMEOUT_MS = 600_000;

export const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/** The project's functions: every Lambda but CDK's deploy-time handler of S3 bucket notifications. */
export const projectFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith(BUCKET_NOTIFICATIONS_HANDLER));
export const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  s.stack.resolve((construct.node.defaultChild as { logicalId: string }).logicalId) as string;
export const fnId = (fn: string) => logicalId(s.stack.functions[fn]!);
export const roleId = (fn: string) => logicalId(s.stack.roles[fn]!);
export const asArray = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

/** `/api/v1/ai/health` for an AWS::ApiGateway::Resource, by walking its parents. */
export function resourcePath(id: string): string {
  const r = resources[id]!;
  const parent = r.Properties.ParentId as { Ref?: string };
  return `${parent.Ref ? resourcePath(parent.Ref) : ''}/${r.Properties.PathPart}`;
}

/** Every method as `{ method, path, fn logical id, timeout }`. */
export function methods() {
  return ofType('AWS::ApiGateway::Method').map(([, m]) => {
    const ref = m.Properties.ResourceId as { Ref?: string };
    const uri = JSON.stringify(m.Properties.Integration.Uri);
    const target = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(uri)?.[1];
    return {
      method: m.Properties.HttpMethod as string,
      path: ref.Ref ? resourcePath(ref.Ref) : '/',
      target,
      type: m.Properties.Integration.Type as string,
      timeout: m.Properties.Integration.TimeoutInMillis as number | undefined,
      transferMode: m.Properties.Integration.ResponseTransferMode as string | undefined,
      uri,
    };
  });
}

/** The statements of every policy attached to a function's role. */
export type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Effect: string };

/** The statements of every IAM policy of a template's resources, or of those attached to the role `role` only. */
export function policyStatements(res: Record<string, Resource>, role?: string): Statement[] {
  return Object.values(res)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (role === undefined || (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role)),
    )
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

export function allStatementsOf(fn: string): Statement[] {
  return policyStatements(resources, roleId(fn));
}

/**
 * Asserts that the default stack has a resource policy of `type` (`AWS::S3::BucketPolicy`, `AWS::SQS::QueuePolicy`)
 * with the properties `target` (which bucket or queues) that refuses `action` (`s3:*`, `sqs:*`) over plain HTTP.
 */
export function expectTlsOnly(type: string, target: Record<string, unknown>, action: string): void {
  s.template.hasResourceProperties(type, {
    ...target,
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Action: action, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
}

/** What Lambda itself needs from the role, not what the function declares: see the "observability" tests. */
export const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
export function isPlatformStatement(fn: string, st: Statement): boolean {
  if (JSON.stringify([...asArray(st.Action)].sort()) === JSON.stringify(XRAY_ACTIONS)) return true;
  const scheduleDlq = s.stack.node.tryFindChild(`${pascalKey(fn)}ScheduleDeadLetterQueue`);
  return (
    scheduleDlq !== undefined &&
    JSON.stringify(st.Resource) === JSON.stringify({ 'Fn::GetAtt': [logicalId(scheduleDlq as never), 'Arn'] })
  );
}

/** The statements a function's declaration produced (the platform's X-Ray and failure-destination grants aside). */
export function statementsOf(fn: string): Statement[] {
  return allStatementsOf(fn).filter((st) => !isPlatformStatement(fn, st));
}

export function pascalKey(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/** Synthesizes the default stack before the suite's tests (once per process: the suites share it). */
export function useDefaultStack(): void {
  beforeAll(() => {
    s = defaultSynth();
    resources = s.template.toJSON().Resources as Record<string, Resource>;
  }, SYNTH_TIMEOUT_MS);
}
