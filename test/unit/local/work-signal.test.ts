import { describe, expect, it } from 'vitest';
import { onWork, signalWork } from '#local/work-signal.ts';

describe("the runner's work signal", () => {
  it('reaches the listeners, at most once a second from one thread', async () => {
    const heard: number[] = [];
    const listening = onWork(() => heard.push(1));
    try {
      signalWork(10_000);
      signalWork(10_500);
      signalWork(11_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toHaveLength(2);
    } finally {
      listening.close();
    }
  });
});
