import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStandInDatabase } from '#local/aws/database.ts';
import { createOutbox, type Delivery } from '#local/aws/outbox.ts';
import { eventually } from '#test/support/eventually.ts';

/**
 * What the stand-ins send each other (SES events to a topic, a bus's events to a queue) survives a failing receiver
 * and a restart: the outbox keeps it in the database until the receiver takes it, and drops only what it refuses.
 */
const dir = mkdtempSync(join(tmpdir(), 'switchboard-outbox-'));
let receiver: Server;
let endpoint: string;
let answer = 503;
const received: string[] = [];
beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (answer === 200) received.push(new URLSearchParams(body).get('Message') ?? '');
    res.writeHead(answer, { 'content-type': 'text/xml' }).end('<PublishResponse/>');
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => {
  receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const toTopic = (message: string): Delivery => ({
  kind: 'sns',
  topicArn: 'arn:aws:sns:us-east-1:000000000000:t',
  message,
});

describe('the stand-ins outbox', () => {
  it('retries a receiver that fails, keeps the delivery across a restart, and sends it once the receiver answers', async () => {
    const path = join(dir, 'state.sqlite');
    const first = await openStandInDatabase(path);
    const dropped: string[] = [];
    const outbox = createOutbox(first, (_d, reason) => dropped.push(reason));
    outbox.start({ queuesAndTopics: endpoint, eventBridge: endpoint });
    outbox.add(toTopic('kept'));
    await eventually(
      async () => (first.prepare('SELECT attempts FROM outbox').get() as { attempts: number }).attempts >= 1,
    );
    outbox.stop();
    first.close();
    expect(received).toEqual([]);

    answer = 200;
    const again = await openStandInDatabase(path);
    const restarted = createOutbox(again, (_d, reason) => dropped.push(reason));
    restarted.start({ queuesAndTopics: endpoint, eventBridge: endpoint });
    await eventually(async () => received.includes('kept'));
    expect((again.prepare('SELECT COUNT(*) AS n FROM outbox').get() as { n: number }).n).toBe(0);
    expect(dropped).toEqual([]);

    // A receiver that refuses (the topic is gone: 404) is not retried: dropped, and said so.
    answer = 404;
    restarted.add(toTopic('refused'));
    await eventually(async () => dropped.length === 1);
    expect(dropped[0]).toMatch(/^404/);
    restarted.stop();
    again.close();
  });
});
