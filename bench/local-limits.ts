/**
 * What the local runner's input limits cost and how fast they cut (bench/history/2026-11-local-input-limits.md), on the stand-ins alone:
 * - the S3 stand-in's presigned POST check on a 25 MB browser form: the check itself (parse the buffered form with
 *   busboy, verify the SigV4 signature and the policy) in-process, against the whole POST round trip (the anchor,
 *   same run), median of `--rounds`;
 * - the local gateway: when a body trickling one byte every 20 s, and headers that never end, are cut (408);
 * - the SMTP listener: 100 connections held at once, and how long the 101st waits for its 421.
 * Usage: npx tsx bench/local-limits.ts [--rounds 7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { startFauxqsWithQueuesAndBuckets } from '#local/emulators.ts';
import { createGateway } from '#local/gateway.ts';
import { checkPostPolicy, readPostForm } from '#local/s3-post-policy.ts';
import { startSmtpInbound } from '#local/smtp-inbound.ts';
import { RawSmtp } from '#test/support/smtp-client.ts';
import { machine, median, numberArg } from './lib/harness.ts';

const ROUNDS = numberArg('rounds', 7);
const MB25 = 25 * 1024 * 1024;
console.log(
  `${machine()}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}, ${new Date().toISOString()}`,
);

// 1. The POST policy check on a 25 MB form.
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-limits-'));
const aws = await startFauxqsWithQueuesAndBuckets(dir);
const s3 = new S3Client({
  region: 'us-east-1',
  endpoint: aws.awsEndpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
try {
  const checks: number[] = [];
  const posts: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    const { url, fields } = await createPresignedPost(s3, {
      Bucket: aws.bucketNames.transfer,
      Key: `uploads/bench/${round}.bin`,
      Conditions: [
        ['content-length-range', 1, MB25],
        ['eq', '$Content-Type', 'application/pdf'],
      ],
      Fields: { 'Content-Type': 'application/pdf' },
      Expires: 900,
    });
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(MB25)], { type: 'application/pdf' }), 'a.pdf');
    // The same body the stand-in receives, for the in-process check.
    const request = new Request(url, { method: 'POST', body: form });
    const contentType = request.headers.get('content-type')!;
    const body = Buffer.from(await request.arrayBuffer());
    let started = performance.now();
    const parsed = await readPostForm(body, contentType);
    const refusal = checkPostPolicy(parsed, {
      bucket: aws.bucketNames.transfer,
      region: 'us-east-1',
      secretFor: () => 'local',
      now: new Date(),
    });
    const checkMs = performance.now() - started;
    if (refusal) throw new Error(`refused: ${refusal.code}`);
    started = performance.now();
    const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': contentType } });
    await response.arrayBuffer();
    const postMs = performance.now() - started;
    if (response.status !== 204) throw new Error(`POST answered ${response.status}`);
    if (round > 0) {
      checks.push(checkMs);
      posts.push(postMs);
    }
  }
  console.log(
    `25 MB presigned POST: check ${median(checks).toFixed(1)} ms (runs: ${checks.map((x) => x.toFixed(0)).join(', ')}), ` +
      `whole POST round trip ${median(posts).toFixed(0)} ms (runs: ${posts.map((x) => x.toFixed(0)).join(', ')}), ` +
      `check ÷ round trip ${((100 * median(checks)) / median(posts)).toFixed(0)} %`,
  );
} finally {
  s3.destroy();
  await aws.stop();
  rmSync(dir, { recursive: true, force: true });
}

// 2. The gateway's cut of requests that trickle in.
const gateway = createGateway({ handlers: { admin: async () => ({ statusCode: 200, body: 'ok' }) } });
gateway.listen(0, '127.0.0.1');
await new Promise((r) => gateway.once('listening', r));
const port = (gateway.address() as AddressInfo).port;
function trickle(head: string, drip: string): Promise<{ status: string; ms: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const opened = performance.now();
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      answer += c;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ status: answer.split('\r\n')[0] ?? '(nothing)', ms: performance.now() - opened });
    });
    socket.once('connect', () => {
      socket.write(head);
      const next = () => sent < drip.length && socket.write(drip[sent++]!);
      next();
      timer = setInterval(next, 20_000);
    });
  });
}
const [body, headers] = await Promise.all([
  trickle('POST /admin/v1/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n', '{}'),
  trickle('GET /admin/v1/x HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'),
]);
console.log(`gateway: body at 1 byte / 20 s cut after ${(body.ms / 1000).toFixed(1)} s (${body.status})`);
console.log(`gateway: unfinished headers cut after ${(headers.ms / 1000).toFixed(1)} s (${headers.status})`);
gateway.closeAllConnections();
gateway.close();

// 3. The SMTP listener's connection bound.
const smtp = await startSmtpInbound({
  port: 0,
  host: '127.0.0.1',
  findChannels: async () => [],
  park: async () => {},
  enqueue: async () => {},
});
const started = performance.now();
const open = await Promise.all(Array.from({ length: 100 }, () => RawSmtp.open(smtp.port)));
const banners = await Promise.all(open.map((c) => c.reply()));
const held = performance.now() - started;
const extraStarted = performance.now();
const extra = await RawSmtp.open(smtp.port);
const refused = await extra.reply();
await extra.closedAt;
console.log(
  `smtp: 100 connections greeted (${banners.filter((b) => b.code === 220).length} × 220) in ${held.toFixed(0)} ms; ` +
    `the 101st answered ${refused.code} and closed in ${(performance.now() - extraStarted).toFixed(0)} ms`,
);
for (const c of open) c.close();
await smtp.stop();
