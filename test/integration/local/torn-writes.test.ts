import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulators } from '#local/emulators.ts';

/**
 * A process killed while the S3 stand-in wrote an object leaves its metadata file cut short: the PUT was never
 * answered, so the object is dropped at the next start, and every completed object is still there.
 */
const dir = mkdtempSync(join(tmpdir(), 'switchboard-torn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the local S3 stand-in after a kill mid-write', () => {
  it('starts, drops the torn object, keeps the complete one', async () => {
    const first = await startEmulators(dir);
    const s3 = new S3Client({
      region: first.region,
      endpoint: first.awsEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      forcePathStyle: true,
    });
    const bucket = first.bucketNames.transfer;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'payloads/kept.json', Body: '{"ok":true}' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'payloads/torn.json', Body: '{"ok":false}' }));
    s3.destroy();
    await first.stop();
    // What a kill between the data and its metadata leaves: the metadata file truncated.
    const meta = join(dir, 'fauxqs', 's3', 'buckets', bucket, 'objects', 'payloads', 'torn.json.meta.json');
    expect(readFileSync(meta, 'utf8').length).toBeGreaterThan(10);
    writeFileSync(meta, '{"key":"payl');

    const second = await startEmulators(dir);
    const again = new S3Client({
      region: second.region,
      endpoint: second.awsEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      forcePathStyle: true,
    });
    try {
      const kept = await again.send(new GetObjectCommand({ Bucket: bucket, Key: 'payloads/kept.json' }));
      expect(await kept.Body!.transformToString()).toBe('{"ok":true}');
      await expect(again.send(new GetObjectCommand({ Bucket: bucket, Key: 'payloads/torn.json' }))).rejects.toThrow();
    } finally {
      again.destroy();
      await second.stop();
    }
  });
});
