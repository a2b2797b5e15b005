import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QueuesAndBuckets, startFauxqsWithQueuesAndBuckets } from '#local/emulators.ts';
import { LOCAL_S3_BODY_LIMIT_BYTES } from '#local/fauxqs-s3.ts';

/**
 * The local S3 stand-in refuses browser uploads S3 would refuse: forms presigned with the SDK's own
 * `createPresignedPost`, as the service presigns them, posted as a browser posts them, then altered one way at a time.
 */
const dir = mkdtempSync(join(tmpdir(), 'switchboard-s3-policy-'));
let aws: QueuesAndBuckets & { stop(): Promise<void> };
let s3: S3Client;
let bucket: string;
const MAX = 25 * 1024 * 1024;

beforeAll(async () => {
  aws = await startFauxqsWithQueuesAndBuckets(dir);
  s3 = client('local');
  bucket = aws.bucketNames.transfer;
});
afterAll(async () => {
  s3?.destroy();
  await aws?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function client(secretAccessKey: string, region = 'us-east-1') {
  return new S3Client({
    region,
    endpoint: aws.awsEndpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey },
  });
}

/** A form as the service presigns one: the key, its Content-Type, 1 byte to 25 MB. */
async function presign(key: string, options: { expires?: number; signer?: S3Client; onBucket?: string } = {}) {
  return createPresignedPost(options.signer ?? s3, {
    Bucket: options.onBucket ?? bucket,
    Key: key,
    Conditions: [
      ['content-length-range', 1, MAX],
      ['eq', '$Content-Type', 'text/plain'],
    ],
    Fields: { 'Content-Type': 'text/plain' },
    Expires: options.expires ?? 900,
  });
}

async function post(url: string, fields: Record<string, string>, file: Uint8Array | string = 'hello') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([file], { type: 'text/plain' }), 'a.txt');
  const response = await fetch(url, { method: 'POST', body: form });
  const text = await response.text();
  return { status: response.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1], text };
}

async function stored(key: string): Promise<string | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await out.Body!.transformToString();
  } catch {
    return undefined;
  }
}

describe('presigned POST policies on the local S3 stand-in', () => {
  it('a valid form is stored (204), with its Content-Type', async () => {
    const { url, fields } = await presign('uploads/prj_a/ok.txt');
    expect((await post(url, fields)).status).toBe(204);
    expect(await stored('uploads/prj_a/ok.txt')).toBe('hello');
  });

  it('30 MB against a 25 MB content-length-range: 400 EntityTooLarge, nothing stored', async () => {
    const { url, fields } = await presign('uploads/prj_a/big.txt');
    const answer = await post(url, fields, new Uint8Array(30 * 1024 * 1024));
    expect(answer).toMatchObject({ status: 400, code: 'EntityTooLarge' });
    expect(answer.text).toContain(`<MaxSizeAllowed>${MAX}</MaxSizeAllowed>`);
    expect(await stored('uploads/prj_a/big.txt')).toBeUndefined();
    // An empty file is below the range.
    expect(await post(url, fields, '')).toMatchObject({ status: 400, code: 'EntityTooSmall' });
  });

  it('a body over the stand-in’s own limit is S3’s EntityTooLarge too, not a stored object', async () => {
    const { url, fields } = await presign('uploads/prj_a/huge.txt');
    const answer = await post(url, fields, new Uint8Array(LOCAL_S3_BODY_LIMIT_BYTES + 1024));
    expect(answer).toMatchObject({ status: 400, code: 'EntityTooLarge' });
    expect(await stored('uploads/prj_a/huge.txt')).toBeUndefined();
  });

  it('the key changed to another project’s prefix: 403 AccessDenied (policy condition failed)', async () => {
    const { url, fields } = await presign('uploads/prj_a/mine.txt');
    const answer = await post(url, { ...fields, key: 'uploads/prj_b/theirs.txt' });
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(answer.text).toMatch(/Policy Condition failed/);
    expect(await stored('uploads/prj_b/theirs.txt')).toBeUndefined();
  });

  it('no signature: 400; no signature and no policy (anonymous): 403; nothing stored', async () => {
    const { url, fields } = await presign('uploads/prj_a/unsigned.txt');
    const { 'X-Amz-Signature': _signature, ...unsigned } = fields;
    expect(await post(url, unsigned)).toMatchObject({ status: 400, code: 'InvalidArgument' });
    const { Policy: _policy, ...anonymous } = unsigned;
    expect(await post(url, anonymous)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await post(url, { key: 'uploads/prj_a/unsigned.txt' })).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await stored('uploads/prj_a/unsigned.txt')).toBeUndefined();
  });

  it('an expired policy: 403 AccessDenied "Policy expired"', async () => {
    const { url, fields } = await presign('uploads/prj_a/late.txt', { expires: -1 });
    const answer = await post(url, fields);
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(answer.text).toMatch(/Policy expired/);
    expect(await stored('uploads/prj_a/late.txt')).toBeUndefined();
  });

  it('another Content-Type than the policy’s: 403', async () => {
    const { url, fields } = await presign('uploads/prj_a/typed.txt');
    expect(await post(url, { ...fields, 'Content-Type': 'text/html' })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(await stored('uploads/prj_a/typed.txt')).toBeUndefined();
  });

  it('a tampered policy, another secret or another region: the signature does not match', async () => {
    const { url, fields } = await presign('uploads/prj_a/forged.txt');
    const document = JSON.parse(Buffer.from(fields.Policy!, 'base64').toString('utf8'));
    document.conditions = document.conditions.map((c: unknown) =>
      Array.isArray(c) && c[0] === 'content-length-range' ? ['content-length-range', 1, 10 * MAX] : c,
    );
    const widened = { ...fields, Policy: Buffer.from(JSON.stringify(document)).toString('base64') };
    expect(await post(url, widened)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    const other = client('not-the-local-secret');
    const wrongSecret = await presign('uploads/prj_a/forged.txt', { signer: other });
    expect(await post(wrongSecret.url, wrongSecret.fields)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    other.destroy();
    const elsewhere = client('local', 'eu-west-1');
    const wrongRegion = await presign('uploads/prj_a/forged.txt', { signer: elsewhere });
    expect((await post(wrongRegion.url.replace('eu-west-1', 'us-east-1'), wrongRegion.fields)).status).toBe(400);
    elsewhere.destroy();
    expect(await stored('uploads/prj_a/forged.txt')).toBeUndefined();
  });

  it('a form posted to another bucket than its policy’s, or with a field the policy does not name: 403', async () => {
    const { url, fields } = await presign('uploads/prj_a/moved.txt');
    const knowledge = aws.bucketNames.knowledge;
    const { bucket: _bucket, ...withoutBucketField } = fields;
    const answer = await post(url.replace(`/${bucket}`, `/${knowledge}`), withoutBucketField);
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    const extra = await post(url, { ...fields, 'x-amz-meta-owner': 'prj_b' });
    expect(extra).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(extra.text).toMatch(/Extra input fields: x-amz-meta-owner/);
    // x-ignore- fields are exempt, as on S3.
    expect((await post(url, { ...fields, 'x-ignore-note': 'anything' })).status).toBe(204);
  });
});
