import { describe, expect, it } from 'vitest';
import type { FunctionSpec } from '#infra/functions.ts';
import { buckets } from '#shared/contract/buckets.ts';
import { queueUrlEnv } from '#shared/contract/queues.ts';
import { fallbackFunction } from '#shared/contract/routes.ts';
import { mainTable } from '#shared/contract/table.ts';
import { synth } from './synth.ts';
import {
  type Resource,
  s,
  resources,
  specs,
  SYNTH_TIMEOUT_MS,
  ofType,
  projectFunctions,
  logicalId,
  fnId,
  roleId,
  asArray,
  statementsOf,
  pascalKey,
  policyStatements,
  expectTlsOnly,
  useDefaultStack,
} from './stack-template.ts';

/** The default stack's data (table, buckets) and each function's least privilege, read from its template. */
useDefaultStack();

describe('data', () => {
  it('the table: on demand, point-in-time recovery, TTL, deletion protection, the shared keys and GSI', () => {
    s.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: mainTable.ttlAttribute, Enabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: mainTable.partitionKey, KeyType: 'HASH' },
          { AttributeName: mainTable.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: mainTable.globalSecondaryIndexes.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: g.projection },
        })),
      },
    });
  });

  it.each(Object.values(buckets).map((b) => [b.key, b] as const))(
    'the %s bucket: private, encrypted, TLS only, temporary prefixes expire',
    (key, bucket) => {
      const id = logicalId(s.stack.node.findChild(`${pascalKey(key)}Bucket`) as never);
      const props = resources[id]!.Properties;
      expect(props.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(
        props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
      ).toBe('AES256');
      const rules = props.LifecycleConfiguration.Rules as {
        Prefix?: string;
        ExpirationInDays?: number;
        Status: string;
      }[];
      for (const { prefix, days } of bucket.expiringPrefixes) {
        expect(rules).toContainEqual(
          expect.objectContaining({ Prefix: prefix, ExpirationInDays: days, Status: 'Enabled' }),
        );
      }
      // Nothing outside the temporary prefixes expires.
      expect(
        rules
          .filter((r) => r.ExpirationInDays !== undefined)
          .map((r) => r.Prefix)
          .sort(),
      ).toEqual(bucket.expiringPrefixes.map((p) => p.prefix).sort());
      expect(resources[id]!).toMatchObject({ DeletionPolicy: 'Retain' });
      expectTlsOnly('AWS::S3::BucketPolicy', { Bucket: { Ref: id } }, 's3:*');
    },
  );

  it('reports a browser upload landing in the knowledge bucket to the ingest queue, and only that bucket may send', () => {
    const bucketId = logicalId(s.stack.node.findChild('KnowledgeBucket') as never);
    const queueId = logicalId(s.stack.node.findChild('IngestQueue') as never);
    const notification = ofType('Custom::S3BucketNotifications')[0]![1] as any;
    expect(notification.Properties.BucketName).toEqual({ Ref: bucketId });
    expect(notification.Properties.NotificationConfiguration.QueueConfigurations).toEqual([
      {
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '.upload' }] } },
        QueueArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      },
    ]);
    const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) =>
      JSON.stringify(p.Properties.Queues).includes(queueId),
    )![1] as any;
    const allow = policy.Properties.PolicyDocument.Statement.filter((st: any) => st.Effect === 'Allow');
    expect(allow).toHaveLength(1);
    expect(allow[0].Principal).toEqual({ Service: 's3.amazonaws.com' });
    expect(allow[0].Condition).toEqual({ ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } } });
  });

  it('generates the admin key and the secrets key in Secrets Manager and hands functions their ARNs, never values', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
    expect(secrets.map(([, x]) => x.Properties.GenerateSecretString?.PasswordLength).sort()).toEqual([43, 48]);
    for (const [, fn] of projectFunctions()) {
      const env = fn.Properties.Environment.Variables as Record<string, unknown>;
      for (const plain of ['ADMIN_KEY', 'SECRETS_KEY', 'OPENAI_API_KEY']) expect(env[plain]).toBeUndefined();
      for (const [name, value] of Object.entries(env)) {
        if (name.endsWith('_SECRET_ARN')) expect(secrets.map(([id]) => id)).toContain((value as { Ref: string }).Ref);
      }
    }
  });
});

describe('least privilege', () => {
  const tableId = () => logicalId(s.stack.node.findChild(mainTable.constructId) as never);

  it.each(specs.map((x) => [x.fn, x] as const))(
    '%s: its own role, no managed policy, only what it declares',
    (fn, spec: FunctionSpec) => {
      const fnProps = resources[fnId(fn)]!.Properties;
      expect(fnProps.Role).toEqual({ 'Fn::GetAtt': [roleId(fn), 'Arn'] });
      expect(resources[roleId(fn)]!.Properties.ManagedPolicyArns).toBeUndefined();
      const statements = statementsOf(fn);
      const env = fnProps.Environment.Variables as Record<string, unknown>;

      for (const st of statements) {
        expect(st.Effect).toBe('Allow');
        for (const action of asArray(st.Action)) {
          expect(action, `${fn}: ${action}`).not.toContain('*');
          expect(['dynamodb:Scan', 'dynamodb:ConditionCheckItem']).not.toContain(action);
        }
        const resourcesOf = asArray(st.Resource as unknown);
        if (resourcesOf.includes('*'))
          expect(
            asArray(st.Action).every((a) => a.startsWith('textract:')),
            `${fn}: * only for Textract`,
          ).toBe(true);
      }
      const actions = new Set(statements.flatMap((st) => asArray(st.Action)));
      const has = (a: string) => actions.has(a);

      // Logs: its own log group only.
      expect(statements.find((st) => st.Sid === 'OwnLogs')?.Resource).toEqual({
        'Fn::GetAtt': [logicalId(s.stack.functions[fn]!.logGroup as never), 'Arn'],
      });

      // Table.
      expect(has('dynamodb:GetItem')).toBe(Boolean(spec.access.table?.read));
      expect(has('dynamodb:PutItem') || has('dynamodb:UpdateItem')).toBe(Boolean(spec.access.table?.write));
      for (const st of statements.filter((x) => asArray(x.Action).some((a) => a.startsWith('dynamodb:')))) {
        for (const r of asArray(st.Resource as unknown)) {
          const text = JSON.stringify(r);
          expect(text).toContain(tableId());
          if (text.includes('/index/'))
            expect(spec.access.table?.indexes?.some((i) => text.includes(`/index/${i}`))).toBe(true);
        }
      }

      // Queues: send only to the declared ones; consume only its own.
      const sendResources = statements
        .filter((x) => asArray(x.Action).includes('sqs:SendMessage'))
        .flatMap((x) => asArray(x.Resource as unknown))
        .map((r) => JSON.stringify(r));
      const declaredQueues = (spec.access.sendTo ?? []).map((k) =>
        logicalId(s.stack.node.findChild(`${pascalKey(k)}Queue`) as never),
      );
      expect(sendResources.length).toBe(declaredQueues.length);
      for (const id of declaredQueues) expect(sendResources.some((r) => r.includes(id))).toBe(true);
      for (const k of spec.access.sendTo ?? []) expect(env[queueUrlEnv(k)]).toBeDefined();
      const consumes = statements.filter((x) => asArray(x.Action).includes('sqs:ReceiveMessage'));
      if (spec.queueWorker) {
        expect(consumes.flatMap((x) => asArray(x.Resource as unknown)).map((r) => JSON.stringify(r))).toEqual([
          JSON.stringify({
            'Fn::GetAtt': [
              logicalId(s.stack.node.findChild(`${pascalKey(spec.queueWorker.queue)}Queue`) as never),
              'Arn',
            ],
          }),
        ]);
      } else {
        expect(consumes).toEqual([]);
      }

      // Buckets: only the declared ones, objects only under the declared prefixes.
      for (const st of statements.filter((x) => asArray(x.Action).some((a) => a.startsWith('s3:')))) {
        for (const r of asArray(st.Resource as unknown)) {
          const text = JSON.stringify(r);
          const key = (Object.keys(buckets) as (keyof typeof buckets)[]).find((k) =>
            text.includes(logicalId(s.stack.node.findChild(`${pascalKey(k)}Bucket`) as never)),
          );
          expect(key, `${fn}: ${text}`).toBeDefined();
          const declared = spec.access.buckets?.[key!];
          expect(declared, `${fn} declares ${key}`).toBeDefined();
          expect(env[buckets[key!].envVar]).toBeDefined();
          const prefixes = [...(declared!.read ?? []), ...(declared!.write ?? []), ...(declared!.delete ?? [])];
          if (asArray(st.Action).includes('s3:ListBucket')) expect(declared!.list).toBe(true);
          else expect(prefixes.some((p) => text.includes(`/${p}*`))).toBe(true);
        }
      }

      // Bedrock, Textract, secrets: only when declared.
      expect(has('bedrock:InvokeModel')).toBe(Boolean(spec.access.bedrock?.invoke));
      expect(has('bedrock:CountTokens')).toBe(Boolean(spec.access.bedrock?.countTokens));
      expect(has('textract:DetectDocumentText')).toBe(Boolean(spec.access.textract));
      const secretResources = statements
        .filter((x) => asArray(x.Action).includes('secretsmanager:GetSecretValue'))
        .flatMap((x) => asArray(x.Resource as unknown));
      const wanted = (spec.access.secrets ?? []).filter((k) => k !== 'modelApiKey'); // the model key exists only with provider openai
      expect(secretResources).toHaveLength(wanted.length);
    },
  );

  it('the fallback touches nothing but its log group', () => {
    expect(statementsOf(fallbackFunction).map((st) => st.Sid)).toEqual(['OwnLogs']);
  });

  it('health reads its table items, writes the rate limit, lists the knowledge bucket and counts tokens: nothing else', () => {
    const actions = statementsOf('health')
      .flatMap((st) => asArray(st.Action))
      .sort();
    expect(actions).toEqual(
      [
        'bedrock:CountTokens',
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:ListBucket',
      ].sort(),
    );
    const bedrock = statementsOf('health').find((st) => st.Sid === 'BedrockCountTokens')!;
    expect(JSON.stringify(bedrock.Resource)).toContain('foundation-model/amazon.nova-lite-v1:0');
  });

  it('every function but the fallback declares what it touches (shared/contract: access)', () => {
    const undeclared = specs.filter((x) => !x.accessDeclared && !x.isFallback).map((x) => x.fn);
    expect(
      undeclared,
      "add `access: {...}` to these functions' route/worker definitions (`access: {}` if they touch nothing)",
    ).toEqual([]);
  });

  it(
    'with an OpenAI-compatible provider, the model key is a secret the model functions may read, and Bedrock is not granted',
    () => {
      const openai = synth({
        settings: {
          modelProvider: 'openai',
          openaiBaseUrl: 'https://models.example.com/v1',
          openaiModel: 'gpt-4o-mini',
        },
      });
      const res = openai.template.toJSON().Resources as Record<string, Resource>;
      const statements = policyStatements(res);
      expect(statements.flatMap((st: any) => asArray(st.Action)).some((a: string) => a.startsWith('bedrock:'))).toBe(
        false,
      );
      const modelKey = Object.entries(res).find(
        ([id, r]) => r.Type === 'AWS::SecretsManager::Secret' && id.startsWith('ModelApiKeySecret'),
      );
      expect(modelKey).toBeDefined();
      const readers = specs.filter((x) => x.access.secrets?.includes('modelApiKey')).map((x) => x.fn);
      for (const fn of readers) {
        const id = logicalId(openai.stack.functions[fn]!);
        expect(res[id]!.Properties.Environment.Variables).toMatchObject({
          MODEL_PROVIDER: 'openai',
          OPENAI_BASE_URL: 'https://models.example.com/v1',
          OPENAI_API_KEY_SECRET_ARN: { Ref: modelKey![0] },
        });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'with Bedrock embeddings, the embeddings model joins the models the Bedrock-declaring functions may invoke',
    () => {
      const withEmbeddings = synth({ settings: { embeddingsProvider: 'bedrock' } });
      const res = withEmbeddings.template.toJSON().Resources as Record<string, Resource>;
      for (const spec of specs.filter((x) => x.access.bedrock?.invoke)) {
        const role = logicalId(withEmbeddings.stack.roles[spec.fn]! as never);
        const statements = policyStatements(res, role);
        const invoke = JSON.stringify(statements.find((st) => st.Sid === 'BedrockInvoke')?.Resource);
        expect(invoke, spec.fn).toContain('foundation-model/amazon.titan-embed-text-v2:0');
        expect(invoke, spec.fn).toContain('foundation-model/amazon.nova-lite-v1:0');
        expect(
          res[logicalId(withEmbeddings.stack.functions[spec.fn]!)]!.Properties.Environment.Variables
            .EMBEDDINGS_PROVIDER,
        ).toBe('bedrock');
      }
    },
    SYNTH_TIMEOUT_MS,
  );
});
