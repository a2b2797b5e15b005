import type { PublicOperationDocs } from '../../contract/api-docs.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';
import type { ServeSite } from '../serve-site.ts';

const TEXTUAL = /^(text\/|application\/json|image\/svg\+xml)/;

/** What serves the site's routes: the answer as the gateway takes it (binary files base64-encoded). */
export function siteHandler(serve: ServeSite) {
  return async (event: HttpEvent): Promise<HttpResult> => {
    const query: Record<string, string | undefined> = { ...(event.queryStringParameters ?? {}) };
    const answer = await serve(event.path ?? '/', query);
    const textual = TEXTUAL.test(answer.headers['content-type'] ?? '');
    return {
      statusCode: answer.status,
      headers: answer.headers,
      body: textual ? answer.body.toString('utf8') : answer.body.toString('base64'),
      ...(textual ? {} : { isBase64Encoded: true }),
    };
  };
}

const page = (what: string) => ({
  200: { description: what, text: 'text/html', example: '<!doctype html><html lang="en">…</html>' },
});

/** The site's routes in the API reference (documented for operators; not in the SDK). */
export function siteOperationDocs(): PublicOperationDocs {
  return {
    'GET /portal': {
      operationId: 'getPortalPage',
      summary: 'The console opened by a portal link',
      description:
        "The console's page for a portal link (`?project=<id>#code=<code>`): framable only by the project's " +
        '`portal.allowedOrigins` (CSP `frame-ancestors`), by no page otherwise.',
      tags: ['Console'],
      security: 'none',
      query: {
        properties: {
          project: { type: 'string', description: 'The project the link opens.', example: 'prj_01hq3x9k2m7c4v8b6n5s' },
        },
      },
      responses: page('The console page.'),
      errors: {},
    },
    'GET /console': {
      operationId: 'getConsole',
      summary: 'The console',
      description: 'Redirects to `/console/`, the operator console (sign in with the admin key).',
      tags: ['Console'],
      security: 'none',
      responses: { 308: { description: 'To `/console/`.' } },
      errors: {},
    },
    'GET /docs': {
      operationId: 'getApiReference',
      summary: 'The API reference',
      description: 'The API reference, read from `/openapi.json` in the browser.',
      tags: ['Console'],
      security: 'none',
      responses: page('The reader.'),
      errors: {},
    },
    'GET /openapi.json': {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'The OpenAPI document of this deployment, its own base URL first in `servers`.',
      tags: ['Console'],
      security: 'none',
      responses: { 200: { description: 'The document.' } },
      errors: {},
    },
  };
}
