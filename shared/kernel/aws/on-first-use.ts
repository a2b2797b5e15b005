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
export function onFirstUse<T>(load: () => Promise<T>, methods: Record<MethodNames<T>, true>): T {
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
