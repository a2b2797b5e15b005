import { describe, expect, it } from 'vitest';
import type { Channel } from '#shared/messaging/channel.ts';
import { RECENT_CHANNEL_TTL_MS, rememberChannels } from '#shared/messaging/recent-channels.ts';

function channel(projectId: string, channelId: string): Channel {
  return {
    projectId,
    channelId,
    companyId: 1042,
    type: 'sms',
    name: 'sms',
    address: '+5511999990000',
    provider: { kind: 'sandbox' },
    createdAt: '2026-11-27T00:00:00.000Z',
  };
}

/** A channel store in memory that counts its reads; `fail` makes the next read fail. */
function store() {
  const items = new Map<string, Channel>();
  const s = {
    reads: 0,
    fail: false,
    put: (c: Channel) => items.set(`${c.projectId}/${c.channelId}`, c),
    remove: (projectId: string, channelId: string) => items.delete(`${projectId}/${channelId}`),
    async get(projectId: string, channelId: string) {
      s.reads++;
      await Promise.resolve();
      if (s.fail) {
        s.fail = false;
        throw new Error('throttled');
      }
      return items.get(`${projectId}/${channelId}`);
    },
  };
  return s;
}

describe('the channels an event report remembers', () => {
  it('a burst of reports on one channel costs one read per few seconds, concurrent ones included', async () => {
    const s = store();
    s.put(channel('prj_1', 'ch_1'));
    let clock = 0;
    const recent = rememberChannels(s, { now: () => clock });
    const found = await Promise.all(Array.from({ length: 20 }, () => recent.get('prj_1', 'ch_1')));
    expect(found.every((c) => c?.channelId === 'ch_1')).toBe(true);
    clock += RECENT_CHANNEL_TTL_MS - 1;
    await recent.get('prj_1', 'ch_1');
    expect(s.reads).toBe(1);
    clock += 1;
    await recent.get('prj_1', 'ch_1');
    expect(s.reads).toBe(2);
  });

  it('a channel created just after a report that did not find it is found at once', async () => {
    const s = store();
    const recent = rememberChannels(s, { now: () => 0 });
    expect(await recent.get('prj_1', 'ch_new')).toBeUndefined();
    s.put(channel('prj_1', 'ch_new'));
    expect((await recent.get('prj_1', 'ch_new'))?.channelId).toBe('ch_new');
  });

  it('a channel deleted elsewhere is trusted at most the TTL; deleted here, it is forgotten at once', async () => {
    const s = store();
    s.put(channel('prj_1', 'ch_1'));
    s.put(channel('prj_1', 'ch_2'));
    let clock = 0;
    const recent = rememberChannels(s, { now: () => clock });
    await recent.get('prj_1', 'ch_1');
    await recent.get('prj_1', 'ch_2');
    s.remove('prj_1', 'ch_1'); // another instance deleted it
    s.remove('prj_1', 'ch_2');
    recent.forget('prj_1', 'ch_2'); // this one did
    expect(await recent.get('prj_1', 'ch_2')).toBeUndefined();
    expect(await recent.get('prj_1', 'ch_1')).toBeDefined();
    clock += RECENT_CHANNEL_TTL_MS;
    expect(await recent.get('prj_1', 'ch_1')).toBeUndefined();
  });

  it('is per project, forgets a failed read, and keeps at most maxEntries', async () => {
    const s = store();
    s.put(channel('prj_1', 'ch_1'));
    const recent = rememberChannels(s, { now: () => 0, maxEntries: 3 });
    expect(await recent.get('prj_2', 'ch_1')).toBeUndefined();
    s.fail = true;
    await expect(recent.get('prj_1', 'ch_1')).rejects.toThrow('throttled');
    expect((await recent.get('prj_1', 'ch_1'))?.channelId).toBe('ch_1');
    for (const id of ['a', 'b', 'c']) {
      s.put(channel('prj_1', id));
      await recent.get('prj_1', id);
    }
    const reads = s.reads;
    await recent.get('prj_1', 'c');
    expect(s.reads).toBe(reads);
    await recent.get('prj_1', 'ch_1'); // the oldest: dropped for the third
    expect(s.reads).toBe(reads + 1);
  });
});
