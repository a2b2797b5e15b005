import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

describe('DynamoDB operations on the hot path', () => {
  it('health: token read, one or two rate-limit writes, balance read — at most 4', async () => {
    const { token } = await svc.newProject({ monthlyBotCredits: 5 });
    const recorder = recordDynamoCalls(svc);
    for (let i = 0; i < 5; i++) {
      recorder.reset();
      const res = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(recorder.calls.length).toBeLessThanOrEqual(4);
      expect(recorder.calls.filter((c) => c === 'GetItem')).toHaveLength(2);
    }
  });
});
