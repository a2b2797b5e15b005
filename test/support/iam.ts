import type { LocalDeployment } from '#local/bundles/local-deployment.ts';
import type { AwsCall } from '#local/bundles/aws-front.ts';
import { rolePolicies, templateResolver, type LocalNames } from '#local/bundles/bundle-deployment.ts';
import { requestProblem } from './iam-actions.ts';
import { evaluate } from './iam-policy.ts';

/**
 * The `*` resources a role may hold, by action: services whose actions have no resource type to scope to.
 * Textract's synchronous APIs take the document in the request (infra/permissions.ts).
 */
export const WILDCARD_REQUIRED: Record<string, string> = {
  'textract:DetectDocumentText': 'Textract has no resource type for its synchronous APIs',
  'textract:AnalyzeDocument': 'Textract has no resource type for its synchronous APIs',
  // Active tracing (infra/stack.ts): Lambda sends each invocation's segment with the function's role.
  'xray:PutTraceSegments': 'X-Ray has no resource type; active tracing sends the segments with the role',
  'xray:PutTelemetryRecords': 'X-Ray has no resource type; active tracing sends the segments with the role',
};

type Statement = { Effect: string; Action: string | string[]; Resource: string | string[] };
const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

/**
 * Each distinct call the functions made, evaluated (./iam-policy.ts) against the calling function's role policies
 * in the synthesized template (references resolved to the local names): one line per call IAM would deny, or that
 * cannot be judged (an action or resource ./iam-actions.ts does not know, a policy element the evaluator lacks).
 */
export async function deniedCalls(deployment: LocalDeployment, names: LocalNames, calls: AwsCall[]): Promise<string[]> {
  const resolve = templateResolver(deployment, names);
  const distinct = new Map(
    calls.map((c) => [`${c.fn} ${c.role ?? ''} ${c.action} ${c.resource} ${JSON.stringify(c.context ?? {})}`, c]),
  );
  const denied: string[] = [];
  const policiesByFn = new Map<string, unknown[]>();
  for (const call of distinct.values()) {
    // Made with a customer's role (a webhook destination): their account's policies judge it, not the stack's. The
    // AssumeRole that gave the credentials is a call of the function's own, checked here.
    if (call.role !== undefined) continue;
    if (!deployment.functions[call.fn]) {
      denied.push(`${call.fn} (not a function of the stack) called ${call.action} on ${call.resource}`);
      continue;
    }
    if (!policiesByFn.has(call.fn)) policiesByFn.set(call.fn, rolePolicies(deployment, call.fn, resolve));
    let decision: string;
    try {
      const problem = requestProblem(call.action, call.resource);
      if (problem) throw new Error(problem);
      decision = evaluate(policiesByFn.get(call.fn)!, call.action, call.resource, call.context);
    } catch (error) {
      denied.push(`${call.fn}: ${call.action} on ${call.resource} could not be evaluated: ${(error as Error).message}`);
      continue;
    }
    if (decision !== 'Allowed')
      denied.push(`${call.fn}: ${call.action} on ${call.resource} is ${decision} by its role`);
  }
  return denied;
}

/** Statements granting an action on `*` that the service does not require (see {@link WILDCARD_REQUIRED}). */
export function unrequiredWildcards(deployment: LocalDeployment, names: LocalNames): string[] {
  const resolve = templateResolver(deployment, names);
  const problems: string[] = [];
  for (const fn of Object.keys(deployment.functions)) {
    for (const document of rolePolicies(deployment, fn, resolve) as unknown as { Statement: Statement[] }[]) {
      for (const statement of document.Statement) {
        if (statement.Effect !== 'Allow' || !list(statement.Resource).includes('*')) continue;
        for (const action of list(statement.Action))
          if (!WILDCARD_REQUIRED[action]) problems.push(`${fn}: ${action} on *`);
      }
    }
  }
  return problems;
}
