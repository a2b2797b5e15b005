import type { Config } from '../config.ts';
import type { UploadStore } from '../../extract/uploads.ts';
import type { KnowledgeObjectStore, KnowledgeUploadInbox } from '../../knowledge/knowledge-files.ts';
import type { PayloadStore } from '../../webhooks/ports.ts';
import type { S3RawReportStore } from '../../messaging/adapters/s3-raw-report-store.ts';

/**
 * S3 adapters for functions that need S3 on some requests only: the send endpoint and the management API store an
 * event body in S3 only when it is over 200 KB, completion reads a knowledge index only for bots that have files,
 * the management API touches the knowledge bucket only on the knowledge routes, extract reads it only for `{fileKey}`
 * requests.
 *
 * Decision: the S3 client is about 100 kB of each bundle (minified), parsed on every cold start. These adapters
 * `import()` it on the first call instead, and the bundler (infra/bundling.ts, code splitting) puts it in a chunk
 * of its own, so a cold start of those functions does not load it. Functions that use S3 on every request (search,
 * extract uploads, the health probe) keep importing the adapters directly: for them this would only move the cost
 * to the first request.
 */
type Method = (...args: never[]) => Promise<unknown>;
type MethodNames<T> = { [K in keyof T]: T[K] extends Method ? K : never }[keyof T];

/**
 * An adapter whose methods load the real one on their first call (once; a failed load is tried again on the next
 * call) and then forward to it. `methods` lists every method of the port: a missing one is a type error.
 */
function onFirstUse<T>(load: () => Promise<T>, methods: Record<MethodNames<T>, true>): T {
  let loading: Promise<T> | undefined;
  const store = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  const forwarding: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of Object.keys(methods)) {
    forwarding[name] = async (...args) =>
      ((await store()) as Record<string, (...a: unknown[]) => Promise<unknown>>)[name]!(...args);
  }
  return forwarding as T;
}

export function s3PayloadStoreOnFirstUse(cfg: Config, bucket: string): PayloadStore {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3PayloadStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('../../events/adapters/s3-payload-store.ts'),
      ]);
      return new S3PayloadStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}

export function s3KnowledgeObjectStoreOnFirstUse(cfg: Config, bucket: string): KnowledgeObjectStore {
  return onFirstUse<KnowledgeObjectStore>(
    async () => {
      const [{ s3Client }, { S3KnowledgeObjectStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('../../knowledge/adapters/s3-knowledge-object-store.ts'),
      ]);
      return new S3KnowledgeObjectStore(s3Client(cfg), bucket);
    },
    { put: true, get: true, delete: true, deletePrefix: true },
  );
}

export function s3KnowledgeUploadInboxOnFirstUse(cfg: Config, bucket: string): KnowledgeUploadInbox {
  return onFirstUse<KnowledgeUploadInbox>(
    async () => {
      const [{ s3Client }, { S3KnowledgeObjectStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('../../knowledge/adapters/s3-knowledge-object-store.ts'),
      ]);
      return new S3KnowledgeObjectStore(s3Client(cfg), bucket);
    },
    { presignPost: true, describe: true },
  );
}

/** The extract endpoint reads the bucket only for `{fileKey}` requests (a multipart upload needs no S3). */
export function s3ExtractUploadStoreOnFirstUse(cfg: Config, bucket: string): UploadStore {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3ExtractUploadStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('../../extract/adapters/s3-extract-upload-store.ts'),
      ]);
      return new S3ExtractUploadStore(s3Client(cfg), bucket);
    },
    { presignPost: true, read: true, delete: true },
  );
}

/** The inbound functions park a raw report in S3 only when it is over 200 KB. */
export function s3RawReportStoreOnFirstUse(cfg: Config, bucket: string): Pick<S3RawReportStore, 'put' | 'get'> {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3RawReportStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('../../messaging/adapters/s3-raw-report-store.ts'),
      ]);
      return new S3RawReportStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}
