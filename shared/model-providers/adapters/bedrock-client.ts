import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { leanSdkClient } from '../../kernel/aws/clients.ts';

/**
 * The Bedrock runtime client for a deployment:
 * - HTTP/1.1 with keep-alive instead of the client's default HTTP/2 handler, which opens an isolated session (a
 *   new TLS handshake) per request: a warm function reuses its connection;
 * - the handler's request timeout made an error (`throwOnRequestTimeout`): by default it only logs a warning. It is
 *   a backstop behind the per-call abort signal, which is what enforces `timeoutMs`;
 * - no SDK retries: a retry would spend the caller's budget unseen; the caller gets "try again later" and its
 *   credit back instead.
 */
export function bedrockRuntimeClient(options: {
  region: string;
  requestTimeoutMs: number;
  /** A stand-in's address (tests); AWS's regional endpoint when absent. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): BedrockRuntimeClient {
  return leanSdkClient(
    new BedrockRuntimeClient({
      region: options.region,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({
        requestTimeout: options.requestTimeoutMs,
        connectionTimeout: 3_000,
        throwOnRequestTimeout: true,
      }),
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    }),
  );
}
