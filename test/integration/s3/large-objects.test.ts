import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueuesAndBuckets } from '#local/emulators.ts';
import { type RunningQueuesAndBuckets, startQueuesAndBuckets } from '#test/support/queues-and-buckets.ts';
import { extractUploadStoreOnS3 } from '#shared/extract/index.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { S3PayloadStore } from '#shared/kernel/aws/s3-payload-store.ts';

/**
 * Every path that puts a large object, at 24 MB (under the 25 MB of the contract) against the local S3 stand-in,
 * which refused bodies over 11 MiB: the knowledge PUT's object, a presigned POST as a browser sends it, and a
 * webhook payload.
 */
const MB24 = 24 * 1024 * 1024;
let stand: RunningQueuesAndBuckets;
let s3: S3Client;
let aws: QueuesAndBuckets;

beforeAll(async () => {
  stand = await startQueuesAndBuckets('sb-large-objects');
  ({ s3, aws } = stand);
});
afterAll(async () => {
  await stand?.stop();
});

function bytesOf(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) out[i] = (i / 4096) % 251;
  out[size - 1] = 7;
  return out;
}

describe('24 MB objects through the local S3 stand-in', () => {
  it('a knowledge upload is stored and read back whole', async () => {
    const store = new S3ObjectStore(s3, aws.bucketNames.knowledge);
    const bytes = bytesOf(MB24);
    await store.put('bots/bot_1/uploads/big.pdf', bytes, 'application/pdf');
    const back = await store.get('bots/bot_1/uploads/big.pdf');
    expect(back.length).toBe(MB24);
    expect(Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
  }, 60_000);

  it('a presigned POST from a plain fetch form post stores the whole file', async () => {
    const store = await extractUploadStoreOnS3(s3, aws.bucketNames.transfer);
    const { url, fields } = await store.presignPost('uploads/big.pdf', 25 * 1024 * 1024, 900);
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([bytesOf(MB24)], { type: 'application/pdf' }), 'big.pdf');
    const response = await fetch(url, { method: 'POST', body: form });
    expect(response.status).toBeLessThan(300);
    const read = await store.read('uploads/big.pdf', 25 * 1024 * 1024, AbortSignal.timeout(30_000));
    expect(Buffer.isBuffer(read) && read.length).toBe(MB24);
  }, 60_000);

  it('a webhook payload is stored and read back whole', async () => {
    const store = new S3PayloadStore(s3, aws.bucketNames.transfer);
    const body = JSON.stringify({ data: 'x'.repeat(MB24 - 20) });
    await store.put('payloads/evt_big.json', body);
    expect((await store.get('payloads/evt_big.json'))?.length).toBe(body.length);
  }, 60_000);
});
