import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { synth, type Synthesized } from './synth.ts';

interface Report {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: { ruleName: string }[];
    suppressedViolations: { ruleName: string; violatingConstructs: { constructPath: string; reason?: string }[] }[];
  }[];
}

/** Synthesis bundles every function the first time (seconds, more on a loaded machine). */
const SYNTH_TIMEOUT_MS = 180_000;
let checked: Synthesized;
beforeAll(() => {
  checked = synth({ nag: true });
}, SYNTH_TIMEOUT_MS);

describe("cdk-nag's AwsSolutions pack", () => {
  it('finds nothing unacknowledged, and every acknowledgement says why', () => {
    const { outdir } = checked;
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as Report;
    const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions');
    expect(nag?.conclusion).toBe('success');
    expect(nag!.violations).toEqual([]);
    const acknowledged = nag!.suppressedViolations.flatMap((v) => v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath })));
    // What is acknowledged, rule by rule: nothing broader.
    expect([...new Set(acknowledged.map((a) => a.rule.replace(/\[.*$/, '')))].sort()).toEqual(
      ['AwsSolutions-APIG2', 'AwsSolutions-APIG3', 'AwsSolutions-APIG4', 'AwsSolutions-COG4', 'AwsSolutions-IAM4', 'AwsSolutions-IAM5', 'AwsSolutions-L1', 'AwsSolutions-S1', 'AwsSolutions-SMG4'].sort(),
    );
    // IAM wildcards are acknowledged on function roles only (object prefixes, Textract), never on anything else.
    for (const a of acknowledged.filter((x) => x.rule.startsWith('AwsSolutions-IAM5'))) {
      expect(a.path).toMatch(/^Switchboard\/[A-Za-z]+Role\/DefaultPolicy\/Resource$/);
      expect(a.rule).toMatch(/^AwsSolutions-IAM5\[Resource::(\*|<[A-Za-z]+Bucket[0-9A-F]{8}\.Arn>\/[A-Za-z0-9/_-]*\*)\]$/);
    }
    expect(acknowledged.filter((x) => x.rule.startsWith('AwsSolutions-IAM4')).map((a) => a.path)).toEqual(['Switchboard/Api/CloudWatchRole/Resource']);
  });

  it('every acknowledgement recorded on the constructs carries a reason of substance', () => {
    const { stack } = checked;
    const acks = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules').flatMap((m) => Object.entries(m.data as Record<string, string>)));
    expect(acks.length).toBeGreaterThan(5);
    for (const [id, reason] of acks) {
      expect(id).toMatch(/^AwsSolutions::AwsSolutions-[A-Z]+\d+/);
      expect(reason.length, id).toBeGreaterThan(60);
    }
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    let failure: Error | undefined;
    try {
      synth({ nag: true, mutate: (stack) => new Bucket(stack, 'CarelessBucket') });
    } catch (error) {
      failure = error as Error;
    }
    expect(failure).toBeDefined();
    // The report names the new bucket's findings (no TLS-only policy, no access logs), and nothing that was acknowledged.
    const message = failure!.message;
    expect([...new Set(message.match(/AwsSolutions-[A-Z]+\d+/g))].sort()).toEqual(['AwsSolutions-S1', 'AwsSolutions-S10']);
    expect([...new Set(message.match(/Switchboard\/[^\s]+/g))]).toEqual(['Switchboard/CarelessBucket/Resource']);
  }, SYNTH_TIMEOUT_MS);
});
