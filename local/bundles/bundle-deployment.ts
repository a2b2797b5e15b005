import type { LocalDeployment, PolicyDocumentJson } from '#local/bundles/local-deployment.ts';

/** The account id local ARNs carry (the stand-ins' own, in their queue URLs and ARNs). */
export const LOCAL_ACCOUNT = '000000000000';

/** The stand-ins' names for the stack's resources. */
export interface LocalNames {
  region: string;
  tableName: string;
  queueUrls: Record<string, string>;
  dlqUrls: Record<string, string>;
  bucketNames: Record<string, string>;
}

/** The ARN a secret of the stack has locally (Secrets Manager is served by local/bundles/aws-front.ts). */
export const localSecretArn = (region: string, key: string) =>
  `arn:aws:secretsmanager:${region}:${LOCAL_ACCOUNT}:secret:switchboard-${key}-local`;

interface Resolved {
  ref: string;
  attrs: Record<string, string>;
}

/**
 * Resolves the template's intrinsic functions (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, ...) against the local
 * stand-ins: the table, queues, buckets and secrets by what they are in shared/contract, pseudo parameters to the
 * local region and account, anything else to a name made of its logical id (an ARN nothing local will call).
 */
export function templateResolver(deployment: LocalDeployment, names: LocalNames): (value: unknown) => unknown {
  const { region } = names;
  const byId = new Map<string, Resolved>();
  const queueName = (url: string) => url.split('/').pop()!;
  const queue = (url: string): Resolved => ({
    ref: url,
    attrs: {
      Arn: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT}:${queueName(url)}`,
      QueueName: queueName(url),
      QueueUrl: url,
    },
  });
  const r = deployment.resources;
  byId.set(r.table, {
    ref: names.tableName,
    attrs: { Arn: `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT}:table/${names.tableName}` },
  });
  for (const [key, id] of Object.entries(r.queues)) byId.set(id, queue(names.queueUrls[key]!));
  for (const [key, id] of Object.entries(r.deadLetterQueues)) byId.set(id, queue(names.dlqUrls[key]!));
  for (const [key, id] of Object.entries(r.buckets)) {
    const name = names.bucketNames[key]!;
    byId.set(id, { ref: name, attrs: { Arn: `arn:aws:s3:::${name}` } });
  }
  for (const [key, id] of Object.entries(r.secrets)) byId.set(id, { ref: localSecretArn(region, key), attrs: {} });
  for (const [fn, f] of Object.entries(deployment.functions)) {
    byId.set(f.logicalId, { ref: fn, attrs: { Arn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${fn}` } });
  }
  for (const [id, resource] of Object.entries(deployment.template.Resources)) {
    if (byId.has(id)) continue;
    if (resource.Type === 'AWS::Logs::LogGroup') {
      const name = `/aws/lambda/${id}`;
      byId.set(id, { ref: name, attrs: { Arn: `arn:aws:logs:${region}:${LOCAL_ACCOUNT}:log-group:${name}:*` } });
    }
  }
  const pseudo: Record<string, string> = {
    'AWS::Region': region,
    'AWS::AccountId': LOCAL_ACCOUNT,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': 'Switchboard',
  };
  const lookup = (id: string): Resolved =>
    byId.get(id) ?? { ref: id, attrs: { Arn: `arn:aws:local:${region}:${LOCAL_ACCOUNT}:${id}` } };
  const getAtt = (id: string, attr: string) =>
    lookup(id).attrs[attr] ?? `arn:aws:local:${region}:${LOCAL_ACCOUNT}:${id}/${attr}`;

  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [fnName, arg] = entries[0]!;
      if (fnName === 'Ref') return pseudo[arg as string] ?? lookup(arg as string).ref;
      if (fnName === 'Fn::GetAtt') {
        const [id, attr] = Array.isArray(arg) ? arg : String(arg).split('.');
        return getAtt(String(id), String(resolve(attr)));
      }
      if (fnName === 'Fn::Join') {
        const [sep, parts] = arg as [string, unknown[]];
        return (resolve(parts) as unknown[]).join(sep);
      }
      if (fnName === 'Fn::Select') {
        const [index, list] = arg as [number, unknown];
        return (resolve(list) as unknown[])[Number(resolve(index))];
      }
      if (fnName === 'Fn::Split') {
        const [sep, text] = arg as [string, unknown];
        return String(resolve(text)).split(sep);
      }
      if (fnName === 'Fn::Sub') {
        const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, unknown>];
        return text.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
          if (name in vars) return String(resolve(vars[name]));
          if (pseudo[name]) return pseudo[name]!;
          const [id, attr] = name.split('.');
          return attr ? getAtt(id!, attr) : lookup(id!).ref;
        });
      }
      if (fnName.startsWith('Fn::')) throw new Error(`${fnName} is not resolved locally`);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, resolve(v)]));
  };
  return resolve;
}

/** The environment variables the template gives a function, resolved to the local stand-ins. */
export function templateEnvironment(
  deployment: LocalDeployment,
  fn: string,
  resolve: (value: unknown) => unknown,
): Record<string, string> {
  const f = deployment.functions[fn];
  if (!f) throw new Error(`The stack has no function ${fn}`);
  const variables = deployment.template.Resources[f.logicalId]?.Properties?.Environment?.Variables ?? {};
  return Object.fromEntries(
    Object.entries(resolve(variables) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
}

/** The IAM policy documents attached to a function's role (its own policies and the ones naming the role). */
export function rolePolicies(
  deployment: LocalDeployment,
  fn: string,
  resolve: (value: unknown) => unknown,
): PolicyDocumentJson[] {
  const roleId = deployment.functions[fn]!.roleLogicalId;
  const documents: PolicyDocumentJson[] = [];
  for (const resource of Object.values(deployment.template.Resources)) {
    const p = resource.Properties ?? {};
    if (resource.Type === 'AWS::IAM::Policy' && (p.Roles ?? []).some((r) => r.Ref === roleId))
      documents.push(resolve(p.PolicyDocument) as PolicyDocumentJson);
  }
  const role = deployment.template.Resources[roleId]?.Properties ?? {};
  for (const inline of role.Policies ?? []) documents.push(resolve(inline.PolicyDocument) as PolicyDocumentJson);
  if (role.ManagedPolicyArns?.length)
    throw new Error(`${fn}'s role has managed policies: the local IAM check reads inline and attached policies only`);
  return documents;
}
