import type { Config } from '../../config/config.ts';
import type { UploadStore } from '../../extract/uploads.ts';
import type { KnowledgeObjectStore } from '../../knowledge/knowledge-files.ts';
import type { PayloadStore } from '../../webhooks/ports.ts';

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
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined; // a failed load (it should not happen) is tried again on the next call
      throw error;
    }));
}

export function s3PayloadStoreOnFirstUse(cfg: Config, bucket: string): PayloadStore {
  const store = onFirstUse(async () => {
    const [{ s3Client }, { S3PayloadStore }] = await Promise.all([import('./clients.ts'), import('./payload-store.ts')]);
    return new S3PayloadStore(s3Client(cfg), bucket);
  });
  return {
    put: async (key, body) => (await store()).put(key, body),
    get: async (key) => (await store()).get(key),
  };
}

export function s3KnowledgeObjectStoreOnFirstUse(cfg: Config, bucket: string): KnowledgeObjectStore {
  const store = onFirstUse(async () => {
    const [{ s3Client }, { S3KnowledgeObjectStore }] = await Promise.all([import('./clients.ts'), import('./knowledge-object-store.ts')]);
    return new S3KnowledgeObjectStore(s3Client(cfg), bucket);
  });
  return {
    put: async (key, bytes, contentType) => (await store()).put(key, bytes, contentType),
    get: async (key, signal) => (await store()).get(key, signal),
    delete: async (keys) => (await store()).delete(keys),
    deletePrefix: async (prefix) => (await store()).deletePrefix(prefix),
  };
}

/** The extract endpoint reads the bucket only for `{fileKey}` requests (a multipart upload needs no S3). */
export function s3ExtractUploadStoreOnFirstUse(cfg: Config, bucket: string): UploadStore {
  const store = onFirstUse(async () => {
    const [{ s3Client }, { S3ExtractUploadStore }] = await Promise.all([import('./clients.ts'), import('./extract-upload-store.ts')]);
    return new S3ExtractUploadStore(s3Client(cfg), bucket);
  });
  return {
    presignPost: async (fileKey, maxBytes, expiresInSeconds) => (await store()).presignPost(fileKey, maxBytes, expiresInSeconds),
    read: async (fileKey, maxBytes, signal) => (await store()).read(fileKey, maxBytes, signal),
    delete: async (fileKey) => (await store()).delete(fileKey),
  };
}
