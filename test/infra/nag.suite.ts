import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { BUCKET_NOTIFICATIONS_HANDLER } from '#infra/acknowledgements.ts';
import { projectRoot } from '#infra/bundling.ts';
import { functionSpecs } from '#infra/functions.ts';
import { synth } from './synth.ts';

interface Report {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: { ruleName: string }[];
    suppressedViolations: { ruleName: string; reason: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/** `cdk synth` bundles every function when the sources changed (seconds, more on a loaded machine). */
const SYNTH_TIMEOUT_MS = 240_000;
const outdir = mkdtempSync(join(tmpdir(), 'switchboard-cdk-cli-'));
let cli: { status: number | null; output: string };

beforeAll(() => {
  // Exactly what CI and an operator run: the pinned CLI, the app from cdk.json, no AWS credentials, no Docker.
  const env: Record<string, string | undefined> = {
    ...process.env,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  };
  for (const name of [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'CDK_DEFAULT_ACCOUNT',
    'CDK_DEFAULT_REGION',
    'DOCKER_HOST',
  ])
    delete env[name];
  const out = spawnSync(
    process.execPath,
    [join(projectRoot, 'node_modules', '.bin', 'cdk'), 'synth', '--quiet', '--no-staging', '--output', outdir],
    {
      cwd: projectRoot,
      env,
      encoding: 'utf8',
      timeout: SYNTH_TIMEOUT_MS,
    },
  );
  cli = { status: out.status, output: `${out.stdout}\n${out.stderr}` };
}, SYNTH_TIMEOUT_MS);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('npx cdk synth', () => {
  it('works offline, without credentials or Docker, and yields one function per function folder', () => {
    expect(cli.status, cli.output).toBe(0);
    const template = JSON.parse(readFileSync(join(outdir, 'Switchboard.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    // CDK's deploy-time handler of the knowledge bucket's S3 event notification is not one of ours.
    expect(
      Object.entries(template.Resources).filter(
        ([id, r]) => r.Type === 'AWS::Lambda::Function' && !id.startsWith(BUCKET_NOTIFICATIONS_HANDLER),
      ),
    ).toHaveLength(functionSpecs().length);
  });
});

describe("cdk-nag's AwsSolutions pack (v3, on every synth)", () => {
  it('finds nothing unacknowledged, and every acknowledgement names one finding and says why', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as Report;
    const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions');
    expect(nag?.conclusion).toBe('success');
    expect(nag!.violations).toEqual([]);
    for (const s of nag!.suppressedViolations) expect(s.reason.length, s.ruleName).toBeGreaterThan(60);
    const acknowledged = nag!.suppressedViolations.flatMap((v) =>
      v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath })),
    );
    // What is acknowledged, rule by rule: nothing broader.
    expect([...new Set(acknowledged.map((a) => a.rule.replace(/\[.*$/, '')))].sort()).toEqual(
      [
        'AwsSolutions-APIG2',
        'AwsSolutions-APIG3',
        'AwsSolutions-APIG4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-L1',
        'AwsSolutions-S1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
      ].sort(),
    );
    // IAM wildcards only on function roles (or the policy active tracing adds under each function), and only object
    // prefixes, the `*` of Textract and X-Ray, the deliver workers' customer roles (any account's, external id ours), or
    // the mail senders' SES identities and configuration sets (this account's).
    for (const a of acknowledged.filter((x) => x.rule.startsWith('AwsSolutions-IAM5'))) {
      if (a.rule === 'AwsSolutions-IAM5[Resource::arn:aws:iam::*:role/*]') {
        expect(a.path).toMatch(/^Switchboard\/Deliver(Ordered)?Role\/DefaultPolicy\/Resource$/);
        continue;
      }
      // SES: this account's sending identities and configuration sets, for the functions that send mail.
      if (/^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ses:\*:<AWS::AccountId>:/.test(a.rule)) {
        expect(a.rule).toMatch(/:(identity|configuration-set)\/\*\]$/);
        expect(a.path).toMatch(/^Switchboard\/(Send|Outbound)Role\/DefaultPolicy\/Resource$/);
        continue;
      }
      expect(a.path).toMatch(
        /^Switchboard\/([A-Za-z]+Role\/DefaultPolicy|[A-Za-z]+Function\/inlinePolicyAddedToExecutionRole-\d+)\/Resource$/,
      );
      if (a.path.includes('inlinePolicy')) expect(a.rule).toBe('AwsSolutions-IAM5[Resource::*]');
      expect(a.rule).toMatch(
        /^AwsSolutions-IAM5\[Resource::(\*|<[A-Za-z]+Bucket[0-9A-F]{8}\.Arn>\/[A-Za-z0-9/_-]*\*)\]$/,
      );
    }
    expect(
      acknowledged
        .filter((x) => x.rule.startsWith('AwsSolutions-IAM4'))
        .map((a) => a.path)
        .sort(),
    ).toEqual([
      'Switchboard/Api/CloudWatchRole/Resource',
      `Switchboard/${BUCKET_NOTIFICATIONS_HANDLER}050a0587b7544547bf325f094a3db834/Role/Resource`,
    ]);
    // SQS3 only on the schedules' dead-letter queues (themselves dead-letter queues, for EventBridge and Lambda).
    for (const a of acknowledged.filter((x) => x.rule === 'AwsSolutions-SQS3'))
      expect(a.path).toMatch(/^Switchboard\/[A-Za-z]+ScheduleDeadLetterQueue\/Resource$/);
  });

  it(
    'fails the synth on a finding nobody acknowledged',
    () => {
      let failure: Error | undefined;
      try {
        synth({ nag: true, mutate: (stack) => new Bucket(stack, 'CarelessBucket') });
      } catch (error) {
        failure = error as Error;
      }
      expect(failure).toBeDefined();
      // The report names the new bucket's findings (no TLS-only policy, no access logs), and nothing that was acknowledged.
      const message = failure!.message;
      expect([...new Set(message.match(/AwsSolutions-[A-Z]+\d+/g))].sort()).toEqual([
        'AwsSolutions-S1',
        'AwsSolutions-S10',
      ]);
      expect([...new Set(message.match(/Switchboard\/[^\s]+/g))]).toEqual(['Switchboard/CarelessBucket/Resource']);
    },
    SYNTH_TIMEOUT_MS,
  );
});
