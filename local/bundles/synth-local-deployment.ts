import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { buckets } from '#shared/contract/buckets.ts';
import { queues } from '#shared/contract/queues.ts';
import { secrets } from '#shared/contract/access.ts';
import { mainTable } from '#shared/contract/table.ts';
import { pascal } from '../../infra/functions.ts';
import { writeLocalDeployment, type CfnTemplate, type LocalDeployment } from './local-deployment.ts';
import type { DeploymentSettings } from '../../infra/settings.ts';
import { SwitchboardStack } from '../../infra/stack.ts';

/**
 * `node --import tsx local/bundles/synth-local-deployment.ts <out.json> <settings JSON>`: synthesizes the stack offline, as
 * `cdk synth` does, and writes what the local bundles mode and the IAM check read (local/bundles/local-deployment.ts).
 */
const [out, settingsJson] = process.argv.slice(2);
if (!out || !settingsJson) {
  console.error('usage: synth-local-deployment.ts <out.json> <settings JSON>');
  process.exit(2);
}
const settings = JSON.parse(settingsJson) as DeploymentSettings;
const outdir = mkdtempSync(join(tmpdir(), 'switchboard-local-cdk-'));
try {
  // Without aws-cdk-lib's built-in CloudFormation schema validation (warnings only; ~4.5 s of CPU): what this reads
  // is the template's resources, names and roles. `npx cdk synth` runs it, as an operator's synth does.
  const app = new App({
    outdir,
    context: { 'aws:cdk:disable-asset-staging': true },
    builtinCloudFormationValidation: false,
  });
  const stack = new SwitchboardStack(app, 'Switchboard', { settings });
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as CfnTemplate;
  const logicalId = (construct: IConstruct | undefined): string => {
    const resource = construct instanceof CfnResource ? construct : construct?.node.defaultChild;
    if (!(resource instanceof CfnResource)) throw new Error(`no CloudFormation resource for ${construct?.node.path}`);
    return Stack.of(resource).getLogicalId(resource);
  };
  const child = (id: string) => stack.node.tryFindChild(id);
  const byKey = (keys: string[], id: (key: string) => string) =>
    Object.fromEntries(keys.filter((k) => child(id(k))).map((k) => [k, logicalId(child(id(k)))]));
  const deployment: LocalDeployment = {
    settings,
    template,
    functions: Object.fromEntries(
      stack.specs.map((spec) => [
        spec.fn,
        {
          logicalId: logicalId(stack.functions[spec.fn]),
          roleLogicalId: logicalId(stack.roles[spec.fn]),
          dir: stack.bundles.get(spec.fn)!.dir,
          timeoutSeconds: spec.timeoutSeconds,
          memoryMb: spec.memoryMb,
        },
      ]),
    ),
    resources: {
      table: logicalId(child(mainTable.constructId)),
      queues: byKey(Object.keys(queues), (k) => `${pascal(k)}Queue`),
      deadLetterQueues: byKey(Object.keys(queues), (k) => `${pascal(k)}DeadLetterQueue`),
      buckets: byKey(Object.keys(buckets), (k) => `${pascal(k)}Bucket`),
      secrets: byKey(Object.keys(secrets), (k) => `${pascal(k)}Secret`),
    },
  };
  writeLocalDeployment(out, deployment);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
