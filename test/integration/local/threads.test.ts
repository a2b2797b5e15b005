import { describe, expect, it } from 'vitest';
import { startThread } from '#local/threads.ts';

const dying = new URL('../../fixtures/threads/dies-after-start.ts', import.meta.url);

describe('the runner threads', () => {
  it('report a thread that dies while the service runs, with its error', async () => {
    let death: (error: Error) => void = () => {};
    const died = new Promise<Error>((resolve) => (death = resolve));
    const thread = await startThread<{ started: boolean }>('dying', dying, {}, { onDeath: death });
    expect(thread.info.started).toBe(true);
    const error = await died;
    expect(error.message).toContain('the dying thread died');
    expect(error.message).toContain('boom after start');
    await thread.stop();
  });

  it('do not report a thread stopped on purpose', async () => {
    const deaths: Error[] = [];
    const thread = await startThread('dying', dying, {}, { onDeath: (e) => deaths.push(e) });
    await thread.stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(deaths).toEqual([]);
  });
});
