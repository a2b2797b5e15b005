import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { defaultSettings, type DeploymentSettings } from '#infra/settings.ts';
import { SwitchboardStack, type SwitchboardStackProps } from '#infra/stack.ts';

export interface Synthesized {
  app: App;
  stack: SwitchboardStack;
  template: Template;
  outdir: string;
}

export interface SynthOptions {
  /** Add cdk-nag's AwsSolutions pack (a finding not acknowledged makes the synth throw). */
  nag?: boolean;
  settings?: Partial<DeploymentSettings>;
  props?: Omit<SwitchboardStackProps, 'settings'>;
  /** Change the stack before synthesis (to prove a check can fail). */
  mutate?: (stack: SwitchboardStack) => void;
}

/** Synthesizes the stack the way `cdk synth` does, offline, into a temporary cloud assembly. */
export function synth(options: SynthOptions = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'switchboard-cdk-'));
  // The functions are bundled once per source state (infra/bundling.ts caches the build across processes).
  // Assets are referenced where the build left them, not copied into the assembly (the PDF functions ship ~100 MB).
  // Without aws-cdk-lib's built-in CloudFormation schema validation: it costs ~4.5 s of CPU in a process's first
  // synthesis and ~1 s in each after (a WebAssembly engine), and reports warnings only. The `npx cdk synth` of
  // ./nag.suite.ts runs it, as an operator's synth does.
  const app = new App({
    outdir,
    context: { 'aws:cdk:disable-asset-staging': true },
    builtinCloudFormationValidation: false,
  });
  const stack = new SwitchboardStack(app, 'Switchboard', {
    ...options.props,
    settings: {
      ...defaultSettings,
      ...options.settings,
      environment: { ...defaultSettings.environment, ...options.settings?.environment },
    },
  });
  options.mutate?.(stack);
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  return { app, stack, template: Template.fromStack(stack), outdir };
}

let defaults: Synthesized | undefined;

/**
 * The default deployment's synthesis, made once per process and shared by the suites that only read it (each
 * synthesis of the default stack costs seconds of CPU and gives the same template).
 */
export function defaultSynth(): Synthesized {
  defaults ??= synth();
  return defaults;
}

/** A CloudFormation `Fn::GetAtt`/`Ref` to a logical id, as the template writes it. */
export const getAtt = (logicalId: string, attribute: string) => ({ 'Fn::GetAtt': [logicalId, attribute] });
