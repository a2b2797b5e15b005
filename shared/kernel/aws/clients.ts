import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.ts';

/**
 * AWS clients, built once per cold start. Locally the endpoints point at the in-process stand-ins (dynalite,
 * fauxqs) and fixed dummy credentials are used; on AWS the defaults apply (the function's role).
 */
export function localCredentials(endpoint: string | undefined) {
  return endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
}

/**
 * Takes the SDK's logger middleware off a client. Decision (measured: bench/history/2026-11-webhooks-for-chat-back-ends.md): we never give the SDK a logger,
 * yet that middleware still walks every call's input and output through the schema's sensitive-data filter (a deep
 * copy) to hand them to its no-op logger: ~2 % of a deliver worker's CPU at saturation, for nothing. Nothing else
 * reads those copies; errors still reach the caller as before.
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

type AuthScheme = { name?: string; signingName?: string; signingRegion?: string } | undefined;
type Signer = (authScheme?: AuthScheme) => Promise<unknown>;

/**
 * Builds a client's request signer once per auth scheme instead of once per call. Decision (measured:
 * bench/sdk-calls.ts, numbers in bench/history/2026-12-volume-final4.md): without a configured signer the SDK copies
 * the whole client config and constructs a new SignatureV4 for every request. The signer it builds asks the client's
 * credential provider for the credentials on every request (`sign` awaits it each time), so keeping one still signs
 * with the current credentials when the role's credentials are refreshed on AWS. The scheme (name, service, region)
 * keys the kept signers, so a request whose endpoint names another scheme gets the signer the SDK would have built
 * for it. A build that fails is not kept: the next request tries again.
 */
export function withSignerOnce<T extends { config: { signer?: unknown } }>(client: T): T {
  const build = client.config.signer as Signer | undefined;
  if (typeof build !== 'function') return client;
  const built = new Map<string, Promise<unknown>>();
  client.config.signer = ((authScheme?: AuthScheme) => {
    const key = `${authScheme?.name}/${authScheme?.signingName}/${authScheme?.signingRegion}`;
    let signer = built.get(key);
    if (!signer) {
      signer = build(authScheme).catch((error: unknown) => {
        built.delete(key);
        throw error;
      });
      built.set(key, signer);
    }
    return signer;
  }) satisfies Signer;
  return client;
}

/**
 * Turns a client's config object back into a fast-properties object. Decision (measured: bench/sdk-calls.ts, numbers
 * in bench/history/2026-12-volume-final4.md): the SDK builds the config by adding properties one by one (an accessor
 * among them), which leaves V8 holding it as a dictionary, and its middleware then copies the whole config with
 * object spread several times per request (endpoint, serialization, deserialization, signer): each copy of a
 * dictionary object costs tens of µs against a few for a fast one. V8 makes an object fast when it becomes a
 * prototype that a property load goes through, so the config is made one, once, for a throwaway object. Nothing
 * about the config changes (same object, same properties, same accessors); on an engine that does not do this the
 * client is merely as slow as before.
 */
export function withFastConfig<T extends { config: object }>(client: T): T {
  const Holder = function Holder() {} as unknown as new () => { unused?: unknown };
  Holder.prototype = client.config;
  const probe = new Holder();
  const read = () => typeof probe.unused;
  for (let i = 0; i < 32; i++) read();
  return client;
}

/**
 * Every SDK client the service builds goes through this: no logger middleware, one signer per client, a fast config.
 * A document client built on it adds to the config: call {@link withFastConfig} on it again.
 */
export function leanSdkClient<
  T extends { middlewareStack: { remove(name: string): boolean }; config: { signer?: unknown } },
>(client: T): T {
  return withFastConfig(withSignerOnce(withoutSdkLogging(client)));
}

let documentClient: DynamoDBDocumentClient | undefined;

export function dynamoDocumentClient(cfg: Config): DynamoDBDocumentClient {
  // The document client shares the client's middleware stack: one removal serves both.
  documentClient ??= DynamoDBDocumentClient.from(
    leanSdkClient(
      new DynamoDBClient({
        region: cfg.AWS_REGION,
        ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT } : {}),
        ...localCredentials(cfg.DYNAMODB_ENDPOINT),
        maxAttempts: 3,
      }),
    ),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  withFastConfig(documentClient);
  return documentClient;
}
