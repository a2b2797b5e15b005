import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { binaryMediaTypes } from '#shared/contract/routes.ts';
import { CATCH_ALL_THROTTLE } from './capacity-plan.ts';
import type { ResourceDefinitions } from './functions.ts';
import type { DeploymentSettings } from './settings.ts';

export const STAGE_NAME = 'prod';

/** API Gateway gives up this long before the function's own timeout, so a stuck function still answers 504 in the contract's shape. */
export const INTEGRATION_MARGIN_MS = 500;

/** API Gateway's default ceiling; above it the "Maximum integration timeout" quota must be raised (README). */
export const DEFAULT_INTEGRATION_TIMEOUT_LIMIT_MS = 29_000;

export function integrationTimeoutMs(timeoutSeconds: number): number {
  return Math.max(50, timeoutSeconds * 1000 - INTEGRATION_MARGIN_MS);
}

/**
 * API Gateway's own answers, in the contract's error body, so a client never sees two error shapes.
 * (The code is fixed per response type: gateway responses cannot branch.)
 */
export const gatewayResponses: {
  type: ResponseType;
  status: string;
  code: string;
  message: string;
  headers?: Record<string, string>;
}[] = [
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    status: '413',
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The request body is too large.',
  },
  {
    type: ResponseType.THROTTLED,
    status: '429',
    code: 'RATE_LIMITED',
    message: 'Too many requests; retry later.',
    headers: { 'Retry-After': "'1'" },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    status: '429',
    code: 'RATE_LIMITED',
    message: 'Too many requests; retry later.',
    headers: { 'Retry-After': "'60'" },
  },
  // No method matches: the catch-alls send almost everything to the fallback function; this covers the rest.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    status: '404',
    code: 'NOT_FOUND',
    message: 'No route for this path.',
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: '404', code: 'NOT_FOUND', message: 'No route for this path.' },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    status: '504',
    code: 'GATEWAY_TIMEOUT',
    message: 'The endpoint did not answer in time.',
  },
  // Lambda refused the invocation (an event over 6 MB, throttled or failed function): never a raw AWS message.
  {
    type: ResponseType.INTEGRATION_FAILURE,
    status: '502',
    code: 'INTERNAL_ERROR',
    message: 'The endpoint could not be invoked (a body over 6 MB cannot reach it).',
  },
  {
    type: ResponseType.UNSUPPORTED_MEDIA_TYPE,
    status: '415',
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported media type.',
  },
  { type: ResponseType.DEFAULT_4XX, status: '', code: 'BAD_REQUEST', message: 'The request was rejected.' },
  { type: ResponseType.DEFAULT_5XX, status: '', code: 'INTERNAL_ERROR', message: 'An unexpected error occurred.' },
];

/** The error body of a gateway response (VTL: `$context.requestId` is API Gateway's id for the request). */
export function errorBodyTemplate(code: string, message: string): string {
  return `{"success":false,"error":"${code}","message":"${message}","requestId":"$context.requestId"}`;
}

export interface ApiProps {
  definitions: ResourceDefinitions;
  functions: Record<string, IFunction>;
  settings: DeploymentSettings;
  /** `POST /api/integration/generic` → its method throttle (./capacity-plan.ts); a route not in it gets the settings'. */
  methodThrottles?: Record<string, { rate: number; burst: number }>;
}

/**
 * The Regional REST API: one method per route to its own function (Lambda proxy), `ANY` on every resource of the
 * tree and on `/{proxy+}` to the fallback function (404 NOT_FOUND, or 405 METHOD_NOT_ALLOWED with `Allow` on a
 * known path), binary media types only for multipart and PDF uploads, per-route integration timeouts.
 */
export function createApi(scope: Construct, props: ApiProps): RestApi {
  const { definitions, functions, settings } = props;
  const stack = Stack.of(scope);
  const accessLogs = new LogGroup(scope, 'ApiAccessLogs', {
    retention: settings.logRetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
  });

  const api = new RestApi(scope, 'Api', {
    description: 'Switchboard: send endpoint, Bots API, management API',
    endpointConfiguration: { types: [EndpointType.REGIONAL] },
    binaryMediaTypes: [...binaryMediaTypes],
    // API Gateway writes access and execution logs through an account-level role.
    cloudWatchRole: true,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
    deployOptions: {
      stageName: STAGE_NAME,
      // The stage default is for the catch-alls only (404/405): every route has its own throttle, below.
      throttlingRateLimit: CATCH_ALL_THROTTLE.rate,
      throttlingBurstLimit: CATCH_ALL_THROTTLE.burst,
      methodOptions: routeThrottles(props),
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      accessLogFormat: AccessLogFormat.custom(
        JSON.stringify({
          requestId: '$context.requestId',
          ip: '$context.identity.sourceIp',
          method: '$context.httpMethod',
          resourcePath: '$context.resourcePath',
          path: '$context.path',
          status: '$context.status',
          responseLength: '$context.responseLength',
          latencyMs: '$context.responseLatency',
          integrationLatencyMs: '$context.integrationLatency',
          integrationStatus: '$context.integration.status',
          integrationError: '$context.integrationErrorMessage',
          errorType: '$context.error.responseType',
          requestTime: '$context.requestTime',
        }),
      ),
      // Execution logs for errors only (their log group below keeps them for the retention period).
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: false,
      // X-Ray traces each request through API Gateway into the function's own segment (active tracing there).
      tracingEnabled: true,
    },
  });
  // API Gateway creates the execution log group itself, without retention; creating it first sets one.
  const executionLogs = new LogGroup(scope, 'ApiExecutionLogs', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${STAGE_NAME}`,
    retention: settings.logRetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  api.deploymentStage.node.addDependency(executionLogs);

  for (const r of gatewayResponses) {
    api.addGatewayResponse(`Gateway${r.type.responseType}`, {
      type: r.type,
      ...(r.status ? { statusCode: r.status } : {}),
      responseHeaders: {
        'x-request-id': 'context.requestId',
        'Content-Type': "'application/json; charset=utf-8'",
        ...r.headers,
      },
      templates: { 'application/json': errorBodyTemplate(r.code, r.message) },
    });
  }

  const integrations = new Map<string, LambdaIntegration>();
  const withMethods = new Map<IResource, Set<string>>();
  for (const route of definitions.routes) {
    const fn = functions[route.fn];
    if (!fn) throw new Error(`No function for route ${route.method} ${route.path} (functions/${route.fn})`);
    const resource = api.root.resourceForPath(route.path);
    const key = `${route.fn}:${route.timeoutSeconds}`;
    let integration = integrations.get(key);
    if (!integration) {
      integration = new LambdaIntegration(fn, {
        proxy: true,
        timeout: Duration.millis(integrationTimeoutMs(route.timeoutSeconds)),
        allowTestInvoke: false,
        // The function's writes reach the client as they happen (the first token of a streamed answer at once).
        ...(route.responseStreaming ? { responseTransferMode: ResponseTransferMode.STREAM } : {}),
      });
      integrations.set(key, integration);
    }
    resource.addMethod(route.method, integration);
    const methods = withMethods.get(resource) ?? new Set<string>();
    methods.add(route.method);
    withMethods.set(resource, methods);
  }

  // Catch-alls to the fallback: every resource in the tree without its own ANY, and the greedy /{proxy+}.
  const fallback = functions[definitions.fallbackFunction];
  if (!fallback) throw new Error(`No fallback function (functions/${definitions.fallbackFunction})`);
  const fallbackIntegration = new LambdaIntegration(fallback, {
    proxy: true,
    timeout: Duration.seconds(5),
    // One permission for the whole API rather than one per catch-all method (the function answers 404/405 only).
    scopePermissionToMethod: false,
  });
  const visit = (resource: IResource) => {
    if (!withMethods.get(resource)?.has('ANY')) resource.addMethod('ANY', fallbackIntegration);
    for (const child of resource.node.children) if (isResource(child)) visit(child);
  };
  const hasGreedyRoot = definitions.routes.some((r) => r.path === '/{proxy+}');
  visit(api.root);
  if (!hasGreedyRoot) api.root.addResource('{proxy+}').addMethod('ANY', fallbackIntegration);

  void stack;
  return api;
}

/**
 * Each route's method throttle, by the key API Gateway's stage method settings take (`/path/METHOD`, `*` for ANY):
 * a route's traffic never spends another route's, and the provider callbacks' throttles are theirs alone.
 */
function routeThrottles(
  props: ApiProps,
): Record<string, { throttlingRateLimit: number; throttlingBurstLimit: number }> {
  const out: Record<string, { throttlingRateLimit: number; throttlingBurstLimit: number }> = {};
  for (const route of props.definitions.routes) {
    const planned = props.methodThrottles?.[`${route.method} ${route.path}`];
    out[`${route.path}/${route.method === 'ANY' ? '*' : route.method}`] = {
      throttlingRateLimit: planned?.rate ?? props.settings.throttleRateLimit,
      throttlingBurstLimit: planned?.burst ?? props.settings.throttleBurstLimit,
    };
  }
  return out;
}

function isResource(node: unknown): node is IResource {
  return typeof node === 'object' && node !== null && 'resourceId' in node && 'addMethod' in node && 'path' in node;
}
