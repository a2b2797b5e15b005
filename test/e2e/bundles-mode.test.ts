import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '#test/support/eventually.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionSpecs } from '#infra/functions.ts';
import type { LocalDeployment } from '#local/bundles/local-deployment.ts';
import type { LocalAws } from '#local/emulators.ts';
import { sentMails } from '#test/support/local-aws.ts';
import { deniedCalls, unrequiredWildcards } from '#test/support/iam.ts';
import type { HostedBundles } from '#test/support/service-host.ts';
import { type ServiceClient, sharedBundles, sharedService } from '#test/support/service.ts';

/**
 * `LOCAL_FUNCTIONS=bundles`: the functions run from the assets `cdk deploy` uploads, with the template's environment,
 * and every AWS call they make is held against their roles in the synthesized stack. The contract's behaviour in
 * this mode is asserted by the other e2e files of the `bundles` vitest project (vitest.config.ts), on the same
 * service; this file checks the mode itself and the IAM check's teeth.
 */
let svc: ServiceClient;
let bundles: HostedBundles;
beforeAll(async () => {
  svc = await sharedService();
  bundles = await sharedBundles();
});
afterAll(async () => svc?.close());

/** The AWS calls `fn` made so far (read again: the group's other files call the service meanwhile). */
const callsOf = async (fn: string) => (await sharedBundles()).awsCalls.filter((c) => c.fn === fn);

describe('bundles mode', () => {
  it('runs each function from its deploy asset, with the environment the template gives it', () => {
    const deployment = bundles.deployment;
    expect(Object.keys(deployment.functions).sort()).toEqual(
      functionSpecs()
        .map((s) => s.fn)
        .sort(),
    );
    for (const [fn, launch] of Object.entries(bundles.launches)) {
      expect(readFileSync(join(launch.dir, 'index.mjs'), 'utf8').length, fn).toBeGreaterThan(0);
      // What the template sets, resolved to the stand-ins: the service name, the table, no plain secret.
      expect(launch.env.POWERTOOLS_SERVICE_NAME).toBe(fn);
      expect(launch.env.TABLE_NAME).toBe(svc.emulators.tableName);
      expect(launch.env.SWITCHBOARD_RUNTIME).toBe('aws');
      expect(launch.env.ADMIN_KEY).toBeUndefined();
      expect(launch.env.AWS_ACCESS_KEY_ID).toBe(fn);
    }
    expect(bundles.launches.admin!.env.ADMIN_KEY_SECRET_ARN).toMatch(/^arn:aws:secretsmanager:/);
  });

  it('serves the API from the bundles: the admin key is read from the Secrets Manager stand-in, routes answer', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    expect((await callsOf('admin')).map((c) => c.action)).toContain('secretsmanager:GetSecretValue');
    const health = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    expect(((await health.json()) as { success: boolean }).success).toBe(true);
    const completion = await fetch(`${svc.baseUrl}/api/v1/ai/completion`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ instructions: 'Be brief.', prompt: 'Hello from the bundle.' }),
    });
    expect(completion.status).toBe(200);
    expect(((await completion.json()) as { result: string }).result).toMatch(/^\[offline model\]/);
    // The OpenAI-format routes: the model list, and a chat answer streamed from the bundle as Server-Sent Events.
    const models = await fetch(`${svc.baseUrl}/api/v1/ai/models`, { headers: { authorization: `Bearer ${token}` } });
    expect(models.status).toBe(200);
    expect(((await models.json()) as { object: string }).object).toBe('list');
    const bot = (await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'B', instructions: 'Be brief.' }))
      .body as { botId: string };
    const chat = await fetch(`${svc.baseUrl}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: bot.botId, stream: true, messages: [{ role: 'user', content: 'Hello, bundle.' }] }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await chat.text()).split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toBe('data: [DONE]');
    // The OpenAI-format routes beyond chat, from their bundles: Responses (streamed, named events), a model by id, embeddings.
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const response = await fetch(`${svc.baseUrl}/api/v1/ai/responses`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: bot.botId, stream: true, input: 'Hello, bundle.' }),
    });
    expect(response.status).toBe(200);
    const named = (await response.text()).split('\n\n').filter(Boolean);
    expect(named[0]).toMatch(/^event: response\.created\n/);
    expect(named.at(-1)).toMatch(/^event: response\.completed\n/);
    const retrieved = await fetch(`${svc.baseUrl}/api/v1/ai/models/${bot.botId}`, { headers: auth });
    expect(((await retrieved.json()) as { id: string }).id).toBe(bot.botId);
    const embeddings = await fetch(`${svc.baseUrl}/api/v1/ai/embeddings`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'default', input: ['one', 'two'] }),
    });
    const embeddingsBody = await embeddings.text();
    expect(embeddings.status, embeddingsBody).toBe(200);
    expect((JSON.parse(embeddingsBody) as { data: unknown[] }).data).toHaveLength(2);
    expect(((await fetch(`${svc.baseUrl}/api/integration/send`, { method: 'POST' })) as Response).status).toBe(410);
    const unknown = await fetch(`${svc.baseUrl}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe('NOT_FOUND');
  });

  it('serves the console, a portal link, /docs and /openapi.json from the console bundle, as on AWS', async () => {
    const { projectId } = await svc.newProject();
    await svc.admin('PATCH', `/projects/${projectId}`, { portal: { allowedOrigins: ['https://app.acme.example'] } });
    const link = await svc.admin('POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer' });
    expect(link.status).toBe(201);
    expect(link.body.url.startsWith(`${svc.baseUrl}/portal?project=${projectId}#code=sbp_`)).toBe(true);

    const page = await fetch(link.body.url.split('#')[0]);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://app.acme.example');
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await fetch(`${svc.baseUrl}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    const consolePage = await fetch(`${svc.baseUrl}/console/`);
    expect(consolePage.status).toBe(200);
    expect(consolePage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consolePage.headers.get('x-frame-options')).toBe('DENY');
    expect((await fetch(`${svc.baseUrl}/docs`)).status).toBe(200);
    const document = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as {
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(document.servers[0]!.url).toBe(svc.baseUrl);
    expect(Object.keys(document.paths)).toContain('/admin/v1/projects/{projectId}/audit');
    expect((await callsOf('console')).map((c) => c.action)).toContain('dynamodb:GetItem');

    // The link opens a session through the admin bundle, whose reads and writes the IAM check below holds too.
    const opened = await fetch(`${svc.baseUrl}/admin/v1/portal/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: new URL(link.body.url).hash.slice('#code='.length) }),
    });
    expect(opened.status).toBe(200);
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}`, { headers: { cookie } })).status).toBe(200);
    const audit = await svc.admin('GET', `/projects/${projectId}/audit`);
    expect(audit.body.items[0].action).toBe('POST /admin/v1/projects/{projectId}/portal-sessions');
    // A project key's check (its item read on every request) through the admin bundle, held by the IAM check too.
    const made = await svc.admin('POST', `/projects/${projectId}/keys`, { name: 'bundles', role: 'viewer' });
    const byKey = await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}`, {
      headers: { authorization: `Bearer ${made.body.key}` },
    });
    expect(byKey.status).toBe(200);
  });

  it('sends email through the SES v2 stand-in from the send bundle, the call recorded against its role', async () => {
    const { projectId } = await svc.newProject();
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'email',
      name: 'news',
      address: 'news@bundles.example',
      provider: { kind: 'ses' },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const integration = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: channel.body.channelId,
    });
    const to = `success+${channel.body.channelId}@simulator.amazonses.com`;
    const res = await svc.send(integration.body.token, { to: [to], subject: 'From the bundle', body: 'Hello' });
    expect(res.status, await res.clone().text()).toBe(200);
    const info = (await (await fetch(`${svc.baseUrl}/local/aws`)).json()) as LocalAws;
    expect(await sentMails(info, { to })).toMatchObject([
      { from: 'news@bundles.example', subject: 'From the bundle', configurationSetName: 'switchboard' },
    ]);
    expect((await callsOf('send')).filter((c) => c.action.startsWith('ses:'))).toContainEqual({
      fn: 'send',
      action: 'ses:SendEmail',
      resource: expect.stringMatching(/^arn:aws:ses:[^:]+:\d+:identity\/bundles\.example$/),
    });
  });

  it('runs the scheduled credit sweeper from its bundle', async () => {
    // Every 5 s locally: its first run's AWS calls, recorded under its name.
    await eventually(
      async () => ((await callsOf('credit-sweeper')).length > 0 ? true : undefined),
      20_000,
      'a sweeper run',
    );
  }, 30_000);
});

describe('IAM checked against the calls the bundles make', () => {
  it('every recorded call is allowed by the calling function role', async () => {
    const { deployment, names, awsCalls } = await sharedBundles();
    expect(awsCalls.length).toBeGreaterThan(0);
    expect(await deniedCalls(deployment, names, awsCalls)).toEqual([]);
  });

  it('fails naming function, action and resource when one permission is removed from one role', async () => {
    const { deployment, names, awsCalls } = await sharedBundles();
    const tableRead = awsCalls.find((c) => c.fn === 'admin' && c.action === 'dynamodb:GetItem');
    expect(tableRead).toBeDefined();
    const without = withoutAction(deployment, 'admin', 'dynamodb:GetItem');
    const denied = await deniedCalls(without, names, awsCalls);
    expect(denied).toContain(`admin: dynamodb:GetItem on ${tableRead!.resource} is ImplicitlyDenied by its role`);
    expect(denied.every((line) => line.startsWith('admin: dynamodb:GetItem '))).toBe(true);
  });

  it('no role grants an action on * that its service does not require', () => {
    const { deployment, names } = bundles;
    expect(unrequiredWildcards(deployment, names)).toEqual([]);
    const widened = structuredClone(deployment);
    const policy = Object.values(widened.template.Resources).find(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (r.Properties?.Roles ?? []).some((x) => x.Ref === deployment.functions.send!.roleLogicalId),
    )!;
    policy.Properties!.PolicyDocument!.Statement.push({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' });
    expect(unrequiredWildcards(widened, names)).toEqual(['send: sqs:SendMessage on *']);
  });
});

/** The deployment with `action` taken out of every statement of `fn`'s role. */
function withoutAction(deployment: LocalDeployment, fn: string, action: string): LocalDeployment {
  const copy = structuredClone(deployment);
  const roleId = copy.functions[fn]!.roleLogicalId;
  for (const resource of Object.values(copy.template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if (!(resource.Properties?.Roles ?? []).some((r) => r.Ref === roleId)) continue;
    for (const statement of resource.Properties!.PolicyDocument!.Statement) {
      statement.Action = [statement.Action].flat().filter((a) => a !== action);
    }
  }
  return copy;
}
