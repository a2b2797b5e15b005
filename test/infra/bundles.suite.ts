import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFunctionsSync } from '#infra/bundle-cache.ts';
import { coldStartEnvironment, projectRoot, type BundleAnalysis } from '#infra/bundling.ts';
import { unbundledPackages } from '#infra/unbundled-packages.ts';
import { functionSpecs, type FunctionSpec } from '#infra/functions.ts';

/** The first build of the current sources bundles every function (seconds, more on a loaded machine). */
const BUILD_TIMEOUT_MS = 180_000;
const specs = functionSpecs();
let bundles: Map<string, BundleAnalysis>;

beforeAll(() => {
  bundles = buildFunctionsSync(specs.map((s) => s.fn));
}, BUILD_TIMEOUT_MS);

/** What a deployed function sees at cold start. */
const lambdaEnv = coldStartEnvironment();

/** Runs `script` (an ES module body) in a fresh Node 22 process; its stdout. */
function runNode(
  script: string,
  env: Record<string, string> = lambdaEnv,
): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

const file = (fn: string) => join(bundles.get(fn)!.dir, 'index.mjs');
/** Whether the function ships the package: loaded at a cold start or in a chunk loaded on first use. */
const bundled = (fn: string, pkg: string) =>
  [...Object.keys(bundles.get(fn)!.inputs), ...Object.keys(bundles.get(fn)!.lazyInputs)].some((input) =>
    input.includes(`node_modules/${pkg}/`),
  );

describe('function bundles', () => {
  it.each(specs.map((s) => [s.fn] as const))('%s: loads in a fresh Node 22 process and exports its handler', (fn) => {
    // A function that streams its response is wrapped with `awslambda.streamifyResponse` at load, a global the Lambda
    // runtime provides; here it marks the handler the way the runtime does.
    const streams = specs.find((s) => s.fn === fn)!.routes.some((r) => r.responseStreaming);
    const runtimeGlobal = streams
      ? `globalThis.awslambda = { streamifyResponse: (h) => Object.assign(h, { [Symbol.for('aws.lambda.runtime.handler.streaming')]: 'response' }) };`
      : '';
    const r = runNode(
      `${runtimeGlobal} const m = await import(${JSON.stringify(file(fn))}); process.stdout.write(typeof m.handler);`,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('function');
    expect(existsSync(`${file(fn)}.map`)).toBe(true);
  });

  it('the fallback bundle answers API Gateway proxy events with the contract: 405 + Allow on a known path, 404 elsewhere', () => {
    const script = `
      const { handler } = await import(${JSON.stringify(file('fallback'))});
      const ctx = { awsRequestId: 'a', getRemainingTimeInMillis: () => 5000 };
      const wrong = await handler({ httpMethod: 'DELETE', path: '/api/v1/ai/health', headers: { 'x-request-id': 'req-7' }, requestContext: { requestId: 'gw' } }, ctx);
      const unknown = await handler({ httpMethod: 'GET', path: '/nope', headers: {}, requestContext: { requestId: 'gw-2' } }, ctx);
      process.stdout.write(JSON.stringify({ wrong, unknown }));`;
    const r = runNode(script);
    expect(r.stderr).toBe('');
    const { wrong, unknown } = JSON.parse(r.stdout);
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.Allow).toBe('GET');
    expect(JSON.parse(wrong.body)).toEqual({
      success: false,
      error: 'METHOD_NOT_ALLOWED',
      message: expect.any(String),
      requestId: 'req-7',
    });
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ success: false, error: 'NOT_FOUND', requestId: 'gw-2' });
  });

  it('zod keeps its English messages in a bundle: a missing setting fails the cold start with a readable error', () => {
    const { TABLE_NAME: _omitted, ...env } = lambdaEnv;
    const r = runNode(`await import(${JSON.stringify(file('credit-sweeper'))});`, env);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Invalid configuration: TABLE_NAME: Invalid input: expected string, received undefined/);
  });

  it('zod messages are selected once, English, in shared/kernel/validation/zod.ts (the bundles carry English only)', () => {
    const selecting: string[] = [];
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) visit(path);
        else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && /\blocales\b|\bz\.config\(/.test(readFileSync(path, 'utf8')))
          selecting.push(path);
      }
    };
    visit(join(projectRoot, 'shared'));
    visit(join(projectRoot, 'functions'));
    const setup = join(projectRoot, 'shared', 'kernel', 'validation', 'zod.ts');
    expect(selecting).toEqual([setup]);
    expect(readFileSync(setup, 'utf8')).toMatch(/import \{ en \} from 'zod\/locales';\s+config\(en\(\)\);/);
    for (const spec of specs) {
      const inputs = [...Object.keys(bundles.get(spec.fn)!.inputs), ...Object.keys(bundles.get(spec.fn)!.lazyInputs)];
      expect(
        inputs.filter((input) => /node_modules\/zod\/v4\/locales\/(?!(en|index)\.js$)/.test(input)),
        spec.fn,
      ).toEqual([]);
    }
  });

  it('functions bundle zod/mini only: no module imports the classic API (it would bring all of it back)', () => {
    for (const spec of specs) expect(bundled(spec.fn, 'zod/v4/classic'), spec.fn).toBe(false);
  });

  it('on Lambda the SDK reads credentials from the environment only: no SSO, ini-file or STS clients in a bundle', () => {
    for (const spec of specs) {
      for (const pkg of [
        '@aws-sdk/credential-provider-sso',
        '@aws-sdk/credential-provider-ini',
        '@aws-sdk/credential-provider-web-identity',
        '@smithy/credential-provider-imds',
      ]) {
        expect(bundled(spec.fn, pkg), `${spec.fn} bundles ${pkg}`).toBe(false);
      }
    }
  });

  it('every public endpoint bundle is under 1 MB minified', () => {
    for (const spec of specs.filter((s) => s.routes.length > 0))
      expect(bundles.get(spec.fn)!.bytes, spec.fn).toBeLessThan(1_000_000);
  });

  it('ships the packages a bundle cannot inline next to it, trimmed, with the platform binary of native addons', () => {
    for (const spec of specs) {
      const b = bundles.get(spec.fn)!;
      const shippedDir = join(b.dir, 'node_modules');
      for (const pkg of b.unbundled)
        expect(existsSync(join(shippedDir, pkg, 'package.json')), `${spec.fn}: ${pkg}`).toBe(true);
      if (!b.unbundled.length) expect(existsSync(shippedDir), spec.fn).toBe(false);
      if (b.unbundled.includes('@napi-rs/canvas')) {
        expect(readdirSync(join(shippedDir, '@napi-rs/canvas-linux-x64-gnu')).some((f) => f.endsWith('.node'))).toBe(
          true,
        );
      }
      if (b.unbundled.includes('pdfjs-dist')) {
        expect(existsSync(join(shippedDir, 'pdfjs-dist/legacy/build/pdf.mjs'))).toBe(true);
        expect(existsSync(join(shippedDir, 'pdfjs-dist/standard_fonts'))).toBe(true);
        expect(existsSync(join(shippedDir, 'pdfjs-dist/web'))).toBe(false);
      }
    }
    expect(Object.keys(unbundledPackages)).toEqual(
      expect.arrayContaining(['@napi-rs/canvas', 'pdfjs-dist', 'tesseract.js']),
    );
  });

  it('a function that reads PDFs can load pdfjs from what is shipped beside its bundle', () => {
    const reader = specs.find((s) => bundles.get(s.fn)!.unbundled.includes('pdfjs-dist'));
    if (!reader) return;
    const dir = bundles.get(reader.fn)!.dir;
    const r = runNode(
      `const { createRequire } = await import('node:module');
       const require = createRequire(${JSON.stringify(join(dir, 'index.mjs'))});
       const pdfjs = await import(require.resolve('pdfjs-dist/legacy/build/pdf.mjs'));
       process.stdout.write(typeof pdfjs.getDocument);`,
    );
    expect(r.stdout).toBe('function');
  });
});

describe('declared access matches what each function imports', () => {
  // A declaration is truthful when the function bundles the client for each service it declares, and declares each
  // service whose client it bundles (a worker may bundle the SQS client to change its own messages' visibility).
  const rules: {
    service: string;
    packages: string[];
    declared: (s: FunctionSpec) => boolean;
    mayBundleWithout?: (s: FunctionSpec) => boolean;
  }[] = [
    {
      service: 'DynamoDB',
      packages: ['@aws-sdk/client-dynamodb'],
      declared: (s) => Boolean(s.access.table?.read || s.access.table?.write),
    },
    {
      service: 'SQS',
      packages: ['@aws-sdk/client-sqs'],
      declared: (s) => Boolean(s.access.sendTo?.length),
      mayBundleWithout: (s) => Boolean(s.queueWorker),
    },
    {
      service: 'S3',
      packages: ['@aws-sdk/client-s3'],
      declared: (s) => Object.keys(s.access.buckets ?? {}).length > 0,
    },
    {
      service: 'Bedrock',
      packages: ['@aws-sdk/client-bedrock-runtime'],
      declared: (s) => Boolean(s.access.bedrock?.invoke || s.access.bedrock?.countTokens),
    },
    { service: 'Textract', packages: ['@aws-sdk/client-textract'], declared: (s) => Boolean(s.access.textract) },
    {
      service: 'Secrets Manager',
      packages: ['@aws-sdk/client-secrets-manager'],
      declared: (s) => Boolean(s.access.secrets?.length),
    },
  ];

  it.each(specs.map((s) => [s.fn, s] as const))('%s', (fn, spec: FunctionSpec) => {
    const problems: string[] = [];
    for (const rule of rules) {
      const imports = rule.packages.some((pkg) => bundled(fn, pkg));
      const declares = rule.declared(spec);
      if (declares && !imports)
        problems.push(`declares ${rule.service} access but never imports its client: drop it from shared/contract`);
      if (imports && !declares && !rule.mayBundleWithout?.(spec))
        problems.push(
          `imports the ${rule.service} client but declares no ${rule.service} access: add it in shared/contract`,
        );
    }
    expect(problems).toEqual([]);
  });
});
