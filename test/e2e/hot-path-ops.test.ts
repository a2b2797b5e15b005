import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_COMPLETION_OPERATIONS, recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { type ModelDouble, startModelDouble } from '#test/support/model-double.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

/**
 * What each hot-path request costs in DynamoDB operations, counted on the wire (dynalite's server, whatever thread
 * sends them): a service of its own, since another file's requests would be counted too, on one event loop (the count
 * does not depend on the runner's threads; a start costs half the CPU). Item operations only: the local credit
 * sweeper's Query may run at any moment.
 */
let svc: TestService;
let model: ModelDouble;
beforeAll(async () => {
  model = await startModelDouble();
  svc = await startTestService({
    threads: false,
    env: {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'test-model',
    },
  });
});
afterAll(async () => {
  await svc?.close();
  await model?.close();
});

async function projectWithBot() {
  const project = await svc.newProject({ monthlyBotCredits: 5 });
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Store', instructions: 'Hi.' });
  expect(bot.status).toBe(201);
  return { ...project, botId: bot.body.botId as string };
}

describe('DynamoDB operations on the hot path', () => {
  it('health: token read, one or two rate-limit writes, balance read — at most 4', async () => {
    const { token } = await svc.newProject({ monthlyBotCredits: 5 });
    const recorder = recordDynamoCalls(svc);
    try {
      for (let i = 0; i < 5; i++) {
        recorder.reset();
        const res = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        const ops = await recorder.requestOps(3);
        expect(ops.length).toBeLessThanOrEqual(4);
        expect(ops.filter((c) => c === 'GetItem')).toHaveLength(2);
      }
    } finally {
      recorder.stop();
    }
  });

  it('an instructions completion costs 4: token read, rate-limit write, charge, settle', async () => {
    const { token } = await svc.newProject({ monthlyBotCredits: 3 });
    const dynamo = recordDynamoCalls(svc);
    try {
      const res = await svc.botsApi(token, 'completion', { prompt: 'Say hi', instructions: 'x' });
      expect(res.status).toBe(200);
      expect(await dynamo.requestOps(4)).toEqual(['GetItem', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    } finally {
      dynamo.stop();
    }
  });

  it('a completion with a bot costs 5: token read, rate-limit write, bot read (with its index version), charge, settle', async () => {
    const { token, botId } = await projectWithBot();
    const dynamo = recordDynamoCalls(svc);
    try {
      const res = await svc.botsApi(token, 'completion', { botId, prompt: 'Que horas abre?' });
      expect(res.status).toBe(200);
      expect(await dynamo.requestOps(BOT_COMPLETION_OPERATIONS.length)).toEqual(BOT_COMPLETION_OPERATIONS);
    } finally {
      dynamo.stop();
    }
  });

  it('a chat completion costs the same 5 as /completion, streamed or not', async () => {
    const { token, botId } = await projectWithBot();
    const openai = new OpenAI({ baseURL: `${svc.baseUrl}/api/v1/ai`, apiKey: token, maxRetries: 0 });
    for (const stream of [false, true]) {
      const dynamo = recordDynamoCalls(svc);
      try {
        if (stream) {
          const chunks = await openai.chat.completions.create({
            model: botId,
            stream: true,
            messages: [{ role: 'user', content: 'Hours?' }],
          });
          for await (const _ of chunks);
        } else {
          await openai.chat.completions.create({ model: botId, messages: [{ role: 'user', content: 'Hours?' }] });
        }
        // The settle write may land just after the stream's last byte: requestOps waits for it.
        expect(await dynamo.requestOps(BOT_COMPLETION_OPERATIONS.length)).toEqual(BOT_COMPLETION_OPERATIONS);
      } finally {
        dynamo.stop();
      }
    }
  });

  it("a send refused over its project's limit costs the token read alone: a full bucket is refused without a write", async () => {
    const created = await svc.admin('POST', '/projects', {
      companyId: 77,
      name: 'Limited',
      limits: { sendsPerSecond: 1 },
    });
    const projectId = created.body.projectId as string;
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      name: 'SMS',
      type: 'sms',
      address: '+15005550006',
    });
    const custom = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: channel.body.channelId,
    });
    const send = () => svc.send(custom.body.token, { to: '+5511988887777', body: 'x' });
    expect((await send()).status).toBe(200);
    let acceptedAt = Date.now();
    const dynamo = recordDynamoCalls(svc);
    try {
      // Three refusals, each read off the wire. A loaded machine may take a second between two sends, and the limit
      // then lets one through again: that one must have come a second after the last one let through.
      for (let refusals = 0, tries = 0; refusals < 3; tries++) {
        expect(tries, 'sends tried for three refusals').toBeLessThan(12);
        dynamo.reset();
        const sentAt = Date.now();
        const answer = await send();
        if (answer.status === 200) {
          expect(Date.now() - acceptedAt, 'a send let through within a second of the last one').toBeGreaterThan(900);
          acceptedAt = sentAt;
          continue;
        }
        expect(answer.status).toBe(429);
        refusals++;
        // The accepted send's event is fanned out meanwhile: its webhook list (the change marker, the project's
        // integrations) is the fan-out's reading, not the refused send's.
        const fanout = /^(GetItem WHCHG|Query PRJ\/INT)$/;
        expect((await dynamo.requestCalls(1)).filter((op) => !fanout.test(op))).toEqual(['GetItem TOKEN']);
      }
    } finally {
      dynamo.stop();
    }
  });
});

describe('DynamoDB operations of a management request', () => {
  /** The request's item operations with their kinds (`GetItem PRJ`), the first use of a key already recorded. */
  async function callsOf(key: string, method: string, path: string, body?: unknown) {
    const send = () =>
      fetch(`${svc.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const dynamo = recordDynamoCalls(svc);
    try {
      const res = await send();
      expect(res.status).toBeLessThan(300);
      return await dynamo.requestCalls(1);
    } finally {
      dynamo.stop();
    }
  }

  it('a project key costs no more operations than the admin key on a route that reads the project', async () => {
    const { projectId } = await svc.newProject();
    const created = await svc.admin('POST', `/projects/${projectId}/keys`, { name: 'ops', role: 'admin' });
    const key = created.body.key as string;
    // The key's first use writes when it was last used (at most once a minute): not the check's cost.
    expect(
      (await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}`, { headers: { authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(200);
    const routes: [string, string, unknown?][] = [
      ['GET', `/projects/${projectId}`],
      ['GET', `/projects/${projectId}/integrations`],
      ['GET', `/projects/${projectId}/channels`],
      ['GET', `/projects/${projectId}/bots`],
      ['PATCH', `/projects/${projectId}`, { name: 'Renamed' }],
    ];
    for (const [method, path, body] of routes) {
      const admin = await callsOf(svc.adminKey, method, path, body);
      const project = await callsOf(key, method, path, body);
      expect({ route: `${method} ${path}`, calls: project.length }).toEqual({
        route: `${method} ${path}`,
        calls: admin.length,
      });
    }
  });

  it('what a project key read with its project is never served to a later request', async () => {
    const { projectId } = await svc.newProject();
    const created = await svc.admin('POST', `/projects/${projectId}/keys`, { name: 'ops', role: 'viewer' });
    const get = (key: string) =>
      fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await (await get(created.body.key)).json()) as { name: string }).name).not.toBe('Moved');
    expect((await svc.admin('PATCH', `/projects/${projectId}`, { name: 'Moved' })).status).toBe(200);
    expect(((await (await get(created.body.key)).json()) as { name: string }).name).toBe('Moved');
    expect((await svc.admin('DELETE', `/projects/${projectId}/keys/${created.body.keyId}`)).status).toBe(204);
    expect((await get(created.body.key)).status).toBe(401);
  });
});
