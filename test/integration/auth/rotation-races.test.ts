import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoChannelStore } from '#shared/messaging/index.ts';
import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { DynamoTokenStore, type TokenStore } from '#shared/auth/index.ts';
import type { CreditLedger } from '#shared/credits/index.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { makeIntegrationUseCases } from '#shared/integrations/index.ts';
import { DynamoProjectStore, makeProjectUseCases } from '#shared/projects/index.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * Token rotations and deletes racing each other, against the real DynamoDB adapters on dynalite. Each store call
 * starts after a pause drawn by fast-check (longer than a dynalite call), so each run interleaves the requests'
 * steps differently: one request may take several steps while another waits between two of its own.
 * Invariant: once everything has settled, the only live grant is the one the record names (none after a delete
 * or revoke), whatever the interleaving; a request that lost may answer 409 but leaves nothing alive behind.
 */
let table: DynamoTable;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ table, close } = await startTestTable());
});
afterAll(async () => close?.());

const secretBox = createSecretBox(randomBytes(32).toString('base64'));

/** Every method of `port` waits for the next pause of `pauses` before it starts. */
function paced<T extends object>(port: T, pauses: number[]): T {
  let next = 0;
  return new Proxy(port, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await new Promise((r) => setTimeout(r, pauses[next++ % pauses.length]));
        return value.apply(target, args);
      };
    },
  });
}

const pausesMs = fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 8, maxLength: 40 });

/** The token store, recording every hash a grant was ever written for (including grants of requests that lost). */
function recordingTokens(written: Set<string>): TokenStore {
  const tokens = new DynamoTokenStore(table);
  return {
    find: (hash) => tokens.find(hash),
    delete: (hash) => tokens.delete(hash),
    setMonthlyBotCredits: (hash, credits, revision) => tokens.setMonthlyBotCredits(hash, credits, revision),
    async put(hash, grant) {
      written.add(hash);
      await tokens.put(hash, grant);
    },
  };
}

async function liveGrants(tokens: TokenStore, hashes: Set<string>): Promise<string[]> {
  const live: string[] = [];
  for (const hash of hashes) if (await tokens.find(hash)) live.push(hash);
  return live;
}

const noCredits = {} as CreditLedger;

describe('custom token rotation and delete under concurrency', () => {
  it('leave at most the recorded token alive, and none once the integration is deleted', async () => {
    const projects = new DynamoProjectStore(table);
    const channels = new DynamoChannelStore(table, secretBox);
    await fc.assert(
      fc.asyncProperty(
        pausesMs,
        fc.array(fc.constantFrom('rotate', 'delete'), { minLength: 2, maxLength: 5 }),
        async (pauses, operations) => {
          const written = new Set<string>();
          const tokens = recordingTokens(written);
          const setup = makeProjectUseCases({ projects, tokens, credits: noCredits });
          const project = await setup.createProject({ companyId: 1, name: 'p', monthlyBotCredits: 0 });
          const channelId = `ch_${randomBytes(6).toString('hex')}`;
          await channels.create({
            channelId,
            projectId: project.projectId,
            companyId: 1,
            type: 'sms',
            name: 'sms',
            address: '+5511999990000',
            provider: { kind: 'sandbox' },
            createdAt: new Date().toISOString(),
          });
          const direct = makeIntegrationUseCases({
            integrations: new DynamoIntegrationStore(table, secretBox),
            channels,
            projects,
            tokens,
            allowPrivateDestinations: true,
          });
          const { integration } = await direct.create(project.projectId, { product: 'custom', channelId });

          const racing = makeIntegrationUseCases({
            integrations: paced(new DynamoIntegrationStore(table, secretBox), pauses),
            channels,
            projects,
            tokens: paced(tokens, pauses),
            allowPrivateDestinations: true,
          });
          const results = await Promise.allSettled(
            operations.map((op) =>
              op === 'rotate'
                ? racing.rotateToken(project.projectId, integration.integrationId)
                : racing.remove(project.projectId, integration.integrationId),
            ),
          );

          const after = await direct.get(project.projectId, integration.integrationId).catch(() => undefined);
          const live = await liveGrants(tokens, written);
          if (after === undefined) expect(live).toEqual([]);
          else expect(live).toEqual(after.product === 'custom' ? [after.tokenHash] : []);
          // A delete that answered removed the integration for good.
          if (operations.some((op, i) => op === 'delete' && results[i]!.status === 'fulfilled'))
            expect(after).toBeUndefined();
        },
      ),
      { numRuns: 60 },
    );
    // 60 runs of a dozen DynamoDB round trips each against dynalite: about 10 s alone, three times that on a loaded
    // machine.
  }, 90_000);
});

describe('project API token issue and revoke under concurrency', () => {
  it('leave alive only the token the project records, if any', async () => {
    const projects = new DynamoProjectStore(table);
    await fc.assert(
      fc.asyncProperty(
        pausesMs,
        fc.array(fc.constantFrom('issue', 'revoke'), { minLength: 2, maxLength: 5 }),
        async (pauses, operations) => {
          const written = new Set<string>();
          const tokens = recordingTokens(written);
          const direct = makeProjectUseCases({ projects, tokens, credits: noCredits });
          const project = await direct.createProject({ companyId: 1, name: 'p', monthlyBotCredits: 0 });
          await direct.issueApiToken(project.projectId);

          const racing = makeProjectUseCases({
            projects: paced(projects, pauses),
            tokens: paced(tokens, pauses),
            credits: noCredits,
          });
          await Promise.allSettled(
            operations.map((op) =>
              op === 'issue' ? racing.issueApiToken(project.projectId) : racing.revokeApiToken(project.projectId),
            ),
          );

          const recorded = await projects.currentApiTokenHash(project.projectId);
          expect(await liveGrants(tokens, written)).toEqual(recorded ? [recorded] : []);
        },
      ),
      { numRuns: 60 },
    );
    // 60 runs of a dozen DynamoDB round trips each against dynalite: about 10 s alone, three times that on a loaded
    // machine.
  }, 90_000);
});

describe('allowance changes racing each other and the API token', () => {
  it("leave the live token granting the project's allowance as it ended, and a revoked token revoked", async () => {
    const projects = new DynamoProjectStore(table);
    await fc.assert(
      fc.asyncProperty(
        pausesMs,
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('allowance' as const), credits: fc.integer({ min: 0, max: 1000 }) }),
            fc.record({ op: fc.constantFrom('issue' as const, 'revoke' as const) }),
          ),
          { minLength: 2, maxLength: 5 },
        ),
        async (pauses, operations) => {
          const written = new Set<string>();
          const tokens = recordingTokens(written);
          const direct = makeProjectUseCases({ projects, tokens, credits: noCredits });
          const project = await direct.createProject({ companyId: 1, name: 'p', monthlyBotCredits: 7 });
          await direct.issueApiToken(project.projectId);

          const racing = makeProjectUseCases({
            projects: paced(projects, pauses),
            tokens: paced(tokens, pauses),
            credits: noCredits,
          });
          await Promise.allSettled(
            operations.map((o) =>
              o.op === 'allowance'
                ? racing.updateProject(project.projectId, { monthlyBotCredits: o.credits })
                : o.op === 'issue'
                  ? racing.issueApiToken(project.projectId)
                  : racing.revokeApiToken(project.projectId),
            ),
          );

          const recorded = await projects.currentApiTokenHash(project.projectId);
          expect(await liveGrants(tokens, written)).toEqual(recorded ? [recorded] : []);
          if (recorded) {
            const { monthlyBotCredits } = (await projects.get(project.projectId))!;
            expect(await tokens.find(recorded)).toMatchObject({ kind: 'projectApi', monthlyBotCredits });
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
