import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';
import { eventually } from '#test/support/eventually.ts';
import { itNeeding, type Prerequisite } from '#test/support/prerequisites.ts';
import { runCommand, startChild, type RunningChild } from '#test/support/process.ts';
import { codeBlocks, shellSession, type CodeBlock } from '#test/support/readme-blocks.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startReceiver, webhookHeaders, type ReceivedDelivery } from './webhooks-support.ts';

/**
 * Every code block of the README is run or compiled here, as a reader would use it: the shell blocks one after another
 * in one bash session against the running service (the way the README says: a second terminal, the admin key read
 * from DATA_DIR), the receiver block run while the webhook blocks send to it, every TypeScript block compiled, the
 * blocks that are example files compared with them (test/e2e/examples.test.ts runs those), and the two `v1a`
 * verifiers run against a real delivery. Two literals are replaced: the README's base URL by this service's, and the
 * receiver's port 8787 by a free one. The first block (npm install, npm start) is what `scripts/newcomer.sh` runs on
 * a fresh clone; here it is checked for syntax.
 */
const README = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const blocks = codeBlocks(README);
const where = (b: CodeBlock) => `README.md:${b.line}`;
const shell = blocks.filter((b) => b.lang === 'sh');
const typescript = blocks.filter((b) => b.lang === 'ts');
const python = blocks.filter((b) => b.lang === 'python');
/** A TypeScript block that is an example file names it on its first line: `// examples/quickstart.ts: …`. */
const exampleFile = (b: CodeBlock) => /^\/\/ ((?:examples\/)?[\w/-]+\.ts)[: ]/.exec(b.code)?.[1];
const blockDir = join(projectRoot, 'node_modules/.cache/switchboard-readme');

let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
  rmSync(blockDir, { recursive: true, force: true });
  mkdirSync(blockDir, { recursive: true });
});
afterAll(async () => {
  await svc?.close();
});

describe('the README', () => {
  it('has only blocks this file knows how to run: sh, ts, python', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks.filter((b) => !['sh', 'ts', 'python'].includes(b.lang)).map(where)).toEqual([]);
    expect(shell[0]!.code).toMatch(/^npm install\nnpm start\b/);
    execFileSync('bash', ['-n'], { input: shell[0]!.code });
  });

  it('shows each example file as it is in examples/', () => {
    const shown = typescript.filter(exampleFile);
    expect(shown.map(exampleFile).sort()).toEqual(['examples/openai-chat.ts', 'examples/quickstart.ts', 'receiver.ts']);
    for (const block of shown) {
      const name = exampleFile(block)!;
      const file = name === 'receiver.ts' ? 'examples/webhook-receiver/receiver.ts' : name;
      expect(block.code, `${where(block)} differs from ${file}`).toBe(readFileSync(join(projectRoot, file), 'utf8'));
    }
  });

  it('compiles every TypeScript block', async () => {
    const files = typescript.map((block, i) => {
      const file = join(blockDir, `block-${i + 1}-line-${block.line}.ts`);
      // Each block is a module of its own (top-level await, its own names).
      writeFileSync(file, /^(import|export) /m.test(block.code) ? block.code : `${block.code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      join(blockDir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.json',
        include: [],
        files: files.map((f) => f.slice(blockDir.length + 1)),
      }),
    );
    const tsc = await runCommand(
      process.execPath,
      [join(projectRoot, 'node_modules/.bin/tsc'), '-p', blockDir, '--noEmit'],
      {
        cwd: projectRoot,
      },
    );
    expect(tsc.output, 'tsc on the README blocks').toBe('');
    expect(tsc.code).toBe(0);
  }, 120_000);

  it('runs every shell block in order in one session, with the receiver block receiving the webhook', async () => {
    const port = await freePort();
    const session = shellSession({
      cwd: projectRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: svc.dataDir, LANG: 'C.UTF-8' },
    });
    let receiver: RunningChild | undefined;
    const outputs: string[] = [];
    try {
      for (const block of shell.slice(1)) {
        const code = block.code.replaceAll('http://127.0.0.1:3000', svc.baseUrl).replaceAll('8787', String(port));
        outputs.push(
          await session
            .run(code, 90_000)
            .catch((e: Error) => Promise.reject(new Error(`${where(block)}: ${e.message}`))),
        );
        if (!receiver && /SIGNING_SECRET=/.test(block.code)) {
          // The README's next step: the receiver, started with the secret the block printed.
          receiver = startChild(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver/receiver.ts'], {
            cwd: projectRoot,
            env: { SIGNING_SECRET: await session.variable('SIGNING_SECRET'), RECEIVER_PORT: String(port) },
          });
          await receiver.waitForOutput(/listening on/, 60_000);
        }
      }
      const all = outputs.join('\n');
      // The first call, the send, the search, the completion, the extract and the streamed chat, as the README shows.
      expect(all).toMatch(/"success":true,"companyId":1042,"botrag":\{"ok":true/);
      expect(all).toMatch(/"creditos":\{"disponivel":100,"mes":"\d\d\/\d{4}"\}/);
      expect(all).toMatch(/"success":true,"messageId":"msg_\w+","status":"sent"/);
      expect(all).toContain('"procedencia":"refunds.md"');
      expect(all).toContain('Refunds take five business days');
      expect(all).toContain('Invoice 42: total R$ 100,00');
      expect(all).toContain('data: [DONE]');
      // The webhook's test event reached the receiver, signed with the secret it was given.
      expect(receiver).toBeDefined();
      await receiver!.waitForOutput(/^webhook\.test evt_\w+ /m, 30_000);
      const webhook = await session.variable('WEBHOOK');
      const project = await session.variable('PROJECT');
      const deliveries = await eventually(async () => {
        const list = await svc.admin('GET', `/projects/${project}/integrations/${webhook}/deliveries`);
        return list.body.items[0]?.status === 'succeeded' ? list.body.items : undefined;
      });
      expect(deliveries[0].attempts.at(-1).statusCode).toBe(204);

      // The OpenAI example (a TypeScript block run by examples.test.ts) works with this session's token and bot.
      const chat = await runCommand(process.execPath, ['--import', 'tsx', 'examples/openai-chat.ts'], {
        cwd: projectRoot,
        env: {
          SWITCHBOARD_URL: svc.baseUrl,
          SWITCHBOARD_API_TOKEN: await session.variable('API_TOKEN'),
          BOT: await session.variable('BOT'),
        },
      });
      expect(chat.output).toContain('Refunds take five business days');
      expect(chat.code).toBe(0);
    } finally {
      session.close();
      await receiver?.stop();
    }
  }, 300_000);

  describe('the v1a verifiers, against a real v1a delivery', () => {
    let delivery: ReceivedDelivery;
    let publicKey: string;
    beforeAll(async () => {
      const receiver = await startReceiver();
      const { projectId } = await svc.newProject();
      const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: receiver.url,
        signature: 'v1a',
      });
      publicKey = created.body.publicKey;
      await svc.admin('POST', `/projects/${projectId}/integrations/${created.body.integrationId}/test`);
      delivery = (await receiver.waitFor(1, 30_000))[0]!;
      await receiver.close();
    }, 60_000);

    const v1aBlock = () => {
      const found = typescript.filter((b) => b.code.includes('export function verifyV1a('));
      expect(found).toHaveLength(1);
      return found[0]!;
    };

    it('TypeScript: accepts the delivery, refuses it with a changed body', async () => {
      const file = join(blockDir, 'verify-v1a.ts');
      writeFileSync(file, v1aBlock().code);
      const driver = join(blockDir, 'verify-v1a-driver.ts');
      writeFileSync(
        driver,
        `import { verifyV1a } from './verify-v1a.ts';
const { publicKey, headers, body } = JSON.parse(process.env.CASE!);
console.log(verifyV1a(publicKey, headers, body), verifyV1a(publicKey, headers, body + ' '));\n`,
      );
      const run = await runCommand(process.execPath, ['--import', 'tsx', driver], {
        cwd: projectRoot,
        env: { CASE: JSON.stringify({ publicKey, headers: webhookHeaders(delivery), body: delivery.body }) },
      });
      expect(run.output.trim()).toBe('true false');
    }, 60_000);

    itNeeding(python3WithCryptography(), 'Python: accepts the delivery, refuses it with a changed body', () => {
      expect(python).toHaveLength(1);
      const script = `${python[0]!.code}
import json, sys
case = json.load(sys.stdin)
body = case["body"].encode()
print(verify_v1a(case["publicKey"], case["headers"], body), verify_v1a(case["publicKey"], case["headers"], body + b" "))
`;
      const run = spawnSync('python3', ['-c', script], {
        input: JSON.stringify({ publicKey, headers: webhookHeaders(delivery), body: delivery.body }),
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('True False');
    });
  });
});

/** A port free right now on 127.0.0.1 (the receiver binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function python3WithCryptography(): Prerequisite {
  const probe = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
  return {
    present: probe.status === 0,
    missing:
      'no python3 with the cryptography package; apt-get install python3-cryptography (or pip install cryptography)',
  };
}
