import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { buildApp } from 'fauxqs';
import { buckets } from '#shared/contract/buckets.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import type { S3Refusal } from './s3-post-policy.ts';

/**
 * What the runner adds to fauxqs's S3: torn writes dropped at start, object-created notifications to the queues as S3
 * sends them, browser uploads (CORS, presigned POST policies), ranged reads served from disk, bodies up to 32 MiB.
 */

const REGION = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * fauxqs writes an object's data, then its `.meta.json`, before answering the PUT; a process killed in between leaves
 * a meta file that is empty or cut short, and fauxqs then refuses to start at all. Such a PUT was never answered (so
 * never acknowledged): its files go, and the stand-in starts with every object whose write completed.
 */
export function dropTornObjectWrites(root: string): void {
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.meta.json')) {
        try {
          JSON.parse(readFileSync(path, 'utf8'));
        } catch {
          rmSync(path, { force: true });
          rmSync(path.slice(0, -'.meta.json'.length), { force: true });
        }
      }
    }
  };
  if (existsSync(root)) walk(root);
}

interface StoredObject {
  etag: string;
  contentLength: number;
}
interface ObjectStore {
  putObject(bucket: string, key: string, ...rest: unknown[]): StoredObject;
}

/**
 * S3 event notifications, which fauxqs lacks: when an object lands (PUT or a browser's POST) in a bucket whose
 * definition (shared/contract/buckets.ts) reports creations to a queue, the queue receives the record S3 would send
 * on AWS, so the same worker code handles both. Returns a function that stops it.
 */
export function notifyObjectsCreated(
  store: ObjectStore,
  endpoint: string,
  queueUrls: Record<QueueKey, string>,
  { SQSClient, SendMessageCommand }: typeof import('@aws-sdk/client-sqs'),
): () => void {
  const rules = Object.values(buckets).flatMap((b) =>
    b.objectCreatedNotifications.map((n) => ({ bucket: b.localName, ...n })),
  );
  if (!rules.length) return () => {};
  const sqs = new SQSClient({ region: REGION, endpoint, credentials });
  const put = store.putObject.bind(store);
  store.putObject = (bucket, key, ...rest) => {
    const stored = put(bucket, key, ...rest);
    const rule = rules.find((r) => r.bucket === bucket && key.endsWith(r.suffix));
    if (rule) {
      const record = {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: REGION,
        eventTime: new Date().toISOString(),
        eventName: 'ObjectCreated:Put',
        s3: {
          s3SchemaVersion: '1.0',
          bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
          object: {
            key: encodeURIComponent(key).replace(/%20/g, '+'),
            size: stored.contentLength,
            eTag: stored.etag.replace(/"/g, ''),
          },
        },
      };
      sqs
        .send(
          new SendMessageCommand({
            QueueUrl: queueUrls[rule.queue],
            MessageBody: JSON.stringify({ Records: [record] }),
          }),
        )
        .catch((error: unknown) => console.error(`S3 event for ${key} not sent: ${String(error)}`));
    }
    return stored;
  };
  return () => {
    store.putObject = put;
    sqs.destroy();
  };
}

/**
 * CORS as the AWS stack configures the buckets (infra/stack.ts): browsers may post an upload form from another
 * origin; the presigned policy is the authorization. An upload with progress events is preflighted.
 */
export function answerBrowsers(app: ReturnType<typeof buildApp>): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.headers.origin) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'etag');
    }
    return payload;
  });
  app.options('/*', async (_request, reply) => {
    reply
      .header('access-control-allow-methods', 'PUT, POST')
      .header('access-control-allow-headers', '*')
      .header('access-control-max-age', '3600')
      .status(200)
      .send();
  });
}

/**
 * Presigned POST policies enforced as S3 does (./s3-post-policy.ts): fauxqs stores any form posted to a bucket, so
 * each browser upload (a multipart POST to `/<bucket>`) is checked first, against the stand-in's one secret
 * (`local`, whatever the access key id: bundles mode gives each function its own id) and region, and refused with
 * S3's status, code and XML when S3 would refuse it. A body over the stand-in's limit is S3's `EntityTooLarge` too.
 */
export function enforcePostPolicies(
  app: ReturnType<typeof buildApp>,
  { checkPostPolicy, readPostForm, s3ErrorXml }: typeof import('./s3-post-policy.ts'),
): void {
  app.addHook('preHandler', async (request, reply) => {
    const contentType = request.headers['content-type'] ?? '';
    const params = request.params as { bucket?: string; '*'?: string };
    const isUpload =
      request.method === 'POST' &&
      /multipart\/form-data/i.test(contentType) &&
      params.bucket !== undefined &&
      !params['*'] &&
      Object.keys((request.query as object | undefined) ?? {}).length === 0;
    if (!isUpload) return;
    let refusal: S3Refusal | undefined;
    try {
      const form = await readPostForm(request.body as Buffer, contentType);
      refusal = checkPostPolicy(form, {
        bucket: params.bucket!,
        region: REGION,
        secretFor: () => credentials.secretAccessKey,
        now: new Date(),
      });
    } catch {
      refusal = {
        status: 400,
        code: 'MalformedPOSTRequest',
        message: 'The body of your POST request is not well-formed multipart/form-data.',
      };
    }
    if (refusal)
      return reply.status(refusal.status).header('content-type', 'application/xml').send(s3ErrorXml(refusal));
  });
  app.setErrorHandler((error: Error & { code?: string }, request, reply) => {
    const contentType = request.headers['content-type'] ?? '';
    const s3 = !/application\/x-amz-json-1\.0|application\/x-www-form-urlencoded/.test(contentType);
    if (s3 && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply
        .status(400)
        .header('content-type', 'application/xml')
        .send(
          s3ErrorXml({
            status: 400,
            code: 'EntityTooLarge',
            message: 'Your proposed upload exceeds the maximum allowed size',
            extra: { MaxSizeAllowed: LOCAL_S3_BODY_LIMIT_BYTES },
          }),
        );
    throw error;
  });
}

/**
 * Ranged GETs read only their range. fauxqs keeps persisted objects' bodies on disk and reads the whole file for any
 * GET, ranged or not: a search reading a few kilobytes of a 400 MB knowledge segment cost a 400 MB read here, where
 * S3 reads the range. A GET with one `Range` of an object whose body is on disk is answered from the file at that
 * offset, with the headers fauxqs gives a ranged answer; anything else (conditional headers, an unsatisfiable or
 * multiple range, an object in memory) is left to fauxqs.
 */
export function serveRangesFromDisk(
  app: ReturnType<typeof buildApp>,
  s3Store: { buckets: Map<string, Map<string, RangeableObject>> },
  s3Dir: string,
): void {
  app.addHook('preHandler', async (request, reply) => {
    const range = request.headers.range;
    const params = request.params as { bucket?: string; '*'?: string };
    if (request.method !== 'GET' || typeof range !== 'string' || !params.bucket || !params['*']) return;
    // The SDK adds `x-id=GetObject`; any other parameter (a part, a version, attributes) is fauxqs's.
    const query = Object.keys(request.query ?? {}).filter((k) => k !== 'x-id');
    if (request.headers['if-match'] || request.headers['if-none-match'] || query.length) return;
    const obj = s3Store.buckets.get(params.bucket)?.get(params['*']);
    if (!obj || obj.body.length > 0 || !(obj.contentLength > 0)) return;
    const total = obj.contentLength;
    const m = /^bytes=(\d*)-(\d*)$/.exec(range);
    if (!m || (m[1] === '' && m[2] === '')) return;
    const start = m[1] === '' ? total - Math.min(total, Number(m[2])) : Number(m[1]);
    const end = m[1] === '' || m[2] === '' ? total - 1 : Math.min(Number(m[2]), total - 1);
    if (start >= total || start > end || (m[1] === '' && Number(m[2]) === 0)) return;
    const file = join(s3Dir, 'buckets', params.bucket, 'objects', `${fileNameOfKey(params['*'])}.data`);
    const handle = await open(file, 'r');
    const body = Buffer.alloc(end - start + 1);
    try {
      await handle.read(body, 0, body.length, start);
    } finally {
      await handle.close();
    }
    for (const [k, v] of Object.entries(obj.metadata ?? {})) reply.header(`x-amz-meta-${k}`, v);
    return reply
      .status(206)
      .header('content-type', obj.contentType)
      .header('etag', obj.etag)
      .header('last-modified', obj.lastModified.toUTCString())
      .header('content-length', body.length)
      .header('content-range', `bytes ${start}-${end}/${total}`)
      .send(body);
  });
}

/** fauxqs's file name for a key: characters unsafe in file names percent-encoded, `/` kept as folders. */
function fileNameOfKey(key: string): string {
  let out = '';
  for (const ch of key) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || '<>:"|?*\\%'.includes(ch) ? `%${code.toString(16).padStart(2, '0')}` : ch;
  }
  return out;
}

interface RangeableObject {
  body: Buffer;
  contentLength: number;
  contentType: string;
  etag: string;
  lastModified: Date;
  metadata?: Record<string, string>;
}

/**
 * What the stand-in accepts in one S3 request body: a 25 MB object (knowledge PUT, a browser's presigned POST with
 * its form fields, an extract upload) with room for aws-chunked framing and form overhead. fauxqs caps every body
 * at 11 MiB and has no option for it; S3 itself takes 5 GB in one PUT, so the cap is the stand-in's, not AWS's.
 */
export const LOCAL_S3_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Raises fauxqs's body limit for S3 requests only: a parser for every content type but the SQS (`x-amz-json-1.0`)
 * and SNS (form) protocols, which fastify still matches first by their exact type, with the same buffer handling
 * as fauxqs's own catch-all parser and a larger limit.
 */
export function acceptLargeObjects(app: ReturnType<typeof buildApp>): void {
  app.addContentTypeParser(
    /^(?!application\/x-amz-json-1\.0|application\/x-www-form-urlencoded)/,
    { parseAs: 'buffer', bodyLimit: LOCAL_S3_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
}
