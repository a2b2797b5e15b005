import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { BUNDLE_CACHE, sourceHash } from '../../infra/bundle-cache.ts';
import { projectRoot, TYPESCRIPT_CHILD_ARGS } from '../../infra/bundling.ts';
import { functionSpecs } from '../../infra/functions.ts';
import { defaultSettings, type DeploymentSettings } from '../../infra/settings.ts';

/**
 * What the local runner's bundles mode and the IAM check need from a synthesized stack: the CloudFormation template,
 * each function's logical id, asset folder and limits, and the logical ids of the resources the functions name
 * (so the template's `Ref`s and `Fn::GetAtt`s can be resolved to the local stand-ins' names).
 */
export interface LocalDeployment {
  settings: DeploymentSettings;
  template: CfnTemplate;
  functions: Record<string, DeployedFunction>;
  /** Logical ids, by what they are in shared/contract. */
  resources: {
    table: string;
    queues: Record<string, string>;
    deadLetterQueues: Record<string, string>;
    buckets: Record<string, string>;
    secrets: Record<string, string>;
  };
}

export interface DeployedFunction {
  logicalId: string;
  roleLogicalId: string;
  /** The Lambda asset folder (`index.mjs` and what ships beside it). */
  dir: string;
  timeoutSeconds: number;
  memoryMb: number;
}

export interface PolicyStatementJson {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export interface PolicyDocumentJson {
  Version?: string;
  Statement: PolicyStatementJson[];
}

/** The parts of a template resource the local runner and the IAM check read. */
export interface CfnResourceJson {
  Type: string;
  Properties?: {
    [property: string]: unknown;
    Environment?: { Variables?: Record<string, unknown> };
    Roles?: { Ref?: string }[];
    PolicyDocument?: PolicyDocumentJson;
    Policies?: { PolicyDocument: PolicyDocumentJson }[];
    ManagedPolicyArns?: unknown[];
  };
}

export interface CfnTemplate {
  Resources: Record<string, CfnResourceJson>;
}

/** The settings bundles mode deploys locally: the defaults, with the OCR engine that runs without AWS. */
export const localBundleSettings: DeploymentSettings = { ...defaultSettings, ocrEngine: 'tesseract' };

/**
 * The synthesized stack for `settings`, reused while the sources, lock file and settings are unchanged (the synth
 * takes seconds, bundling the first time longer): kept under the bundle cache by a hash of both.
 */
export function localDeployment(settings: DeploymentSettings = localBundleSettings): LocalDeployment {
  const fns = functionSpecs().map((s) => s.fn);
  const key = createHash('sha256').update(sourceHash(fns)).update(JSON.stringify(settings)).digest('hex').slice(0, 20);
  const dir = join(BUNDLE_CACHE, 'deployments');
  const file = join(dir, `${key}.json`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    const child = spawnSync(
      process.execPath,
      [
        ...TYPESCRIPT_CHILD_ARGS,
        join(projectRoot, 'local', 'bundles', 'synth-local-deployment.ts'),
        tmp,
        JSON.stringify(settings),
      ],
      { cwd: projectRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    if (child.status !== 0) throw new Error(`Synthesizing the stack failed:\n${child.stderr || child.stdout}`);
    renameSync(tmp, file);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as LocalDeployment;
}

/** Writes {@link LocalDeployment} for a stack (used by ./synth-local-deployment.ts, in a child process). */
export function writeLocalDeployment(file: string, deployment: LocalDeployment): void {
  writeFileSync(file, JSON.stringify(deployment));
}
