import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteDeclaration } from '#shared/http/router.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { routes } from '#shared/contract/routes.ts';
import { sendGatewayError, type LocalRoute } from './gateway.ts';

/** Where `npm run build:console` (run by `npm start` and `npm test` when the sources changed) writes the console. */
export const CONSOLE_DIST = fileURLToPath(new URL('../console/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * The page only talks to its own origin (the management API) and runs only its own files; nothing may frame it.
 * What a CloudFront response headers policy should set too.
 */
export const CONSOLE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/**
 * The console's headers when the browser also talks to the object store: it uploads knowledge files straight to it
 * (its origin joins `connect-src`) and shows received images from their presigned URLs (it joins
 * `img-src`); nothing else changes. Locally that is the S3 stand-in; on AWS the buckets' regional endpoints, which
 * the CloudFront response headers policy must list the same way.
 */
export function consoleSecurityHeaders(uploadOrigins: readonly string[] = []): Record<string, string> {
  if (!uploadOrigins.length) return CONSOLE_SECURITY_HEADERS;
  return {
    ...CONSOLE_SECURITY_HEADERS,
    'content-security-policy': CONSOLE_SECURITY_HEADERS['content-security-policy']
      .replace("connect-src 'self'", `connect-src 'self' ${uploadOrigins.join(' ')}`)
      .replace("img-src 'self' data:", `img-src 'self' data: ${uploadOrigins.join(' ')}`),
  };
}

export interface ConsoleRouteOptions {
  /** Origins of the object store: where the browser posts knowledge uploads and loads media previews from. */
  uploadOrigins?: readonly string[];
  distDir?: string;
  /** The management API's route declarations (`shared/openapi/admin-routes.ts`), loaded when the document is first asked for. */
  adminRoutes?: () => Promise<readonly RouteDeclaration[]>;
  /**
   * This service's own base URL (its PUBLIC_BASE_URL, else where it listens), known once it listens: the document
   * lists it first in `servers`, so a client generated from it calls this service by default.
   */
  baseUrl?: () => string | undefined;
}

/**
 * Local routes the gateway answers itself: the console (`/console/`), the OpenAPI document (`/openapi.json`) and
 * its offline reader (`/docs`). On AWS the console and the reader are static files on S3 behind CloudFront.
 */
export function consoleRoutes(options: ConsoleRouteOptions = {}): LocalRoute[] {
  const dist = resolve(options.distDir ?? CONSOLE_DIST);
  const securityHeaders = consoleSecurityHeaders(options.uploadOrigins);
  const loadAdminRoutes = options.adminRoutes ?? defaultAdminRoutes;
  let documentJson: Promise<string> | undefined;

  const openApi: LocalRoute = async (req, res, url) => {
    if (url.pathname !== '/openapi.json') return false;
    if (!readOnly(req.method, res)) return true;
    const serverUrl = options.baseUrl?.();
    documentJson ??= loadAdminRoutes().then((adminRoutes) =>
      JSON.stringify(
        buildOpenApiDocument({ adminRoutes, publicRoutes: routes, ...(serverUrl ? { serverUrl } : {}) }).document,
        null,
        2,
      ),
    );
    let body: string;
    try {
      body = await documentJson;
    } catch (error) {
      documentJson = undefined;
      throw error;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-cache',
      'access-control-allow-origin': '*',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };

  const docs: LocalRoute = (req, res, url) => {
    if (url.pathname !== '/docs' && url.pathname !== '/docs/') return false;
    if (!readOnly(req.method, res)) return true;
    const page = join(dist, 'docs.html');
    if (!existsSync(page)) return notBuilt(res);
    // The reader's assets are the console's: resolve them from /console/.
    const html = readFileSync(page, 'utf8').replace('<head>', '<head><base href="/console/">');
    sendBytes(res, req.method, Buffer.from(html), TYPES['.html']!, 'no-cache', securityHeaders);
    return true;
  };

  const consoleFiles: LocalRoute = (req, res, url) => {
    if (url.pathname !== '/console' && !url.pathname.startsWith('/console/')) return false;
    if (!readOnly(req.method, res)) return true;
    if (url.pathname === '/console') {
      res.writeHead(308, { location: `/console/${url.search}` });
      res.end();
      return true;
    }
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname.slice('/console/'.length)) || 'index.html';
    } catch {
      sendGatewayError(res, 404, 'NOT_FOUND', 'No such file.');
      return true;
    }
    const file = resolve(dist, relative);
    // Dot-files in dist are the build's own records (source hashes, the shared files it bundled), not the site.
    const buildRecord = relative.split('/').some((segment) => segment.startsWith('.'));
    if (buildRecord || !file.startsWith(dist + sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (!existsSync(join(dist, 'index.html'))) return notBuilt(res);
      sendGatewayError(res, 404, 'NOT_FOUND', `No console file ${url.pathname}.`);
      return true;
    }
    // Hashed asset names never change content: cache them for good; the pages themselves are always revalidated.
    const cache = relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    sendBytes(
      res,
      req.method,
      readFileSync(file),
      TYPES[extname(file)] ?? 'application/octet-stream',
      cache,
      securityHeaders,
    );
    return true;
  };

  return [openApi, docs, consoleFiles];
}

/** The declarations only: building the document constructs no adapter and needs no configuration. */
async function defaultAdminRoutes(): Promise<readonly RouteDeclaration[]> {
  return (await import('#functions/admin/routes.ts')).adminRoutes;
}

function readOnly(method: string | undefined, res: ServerResponse): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  const requestId = randomUUID();
  const body = JSON.stringify({
    success: false,
    error: 'METHOD_NOT_ALLOWED',
    message: `Method ${method} is not allowed here.`,
    requestId,
  });
  res.writeHead(405, {
    'content-type': 'application/json; charset=utf-8',
    allow: 'GET, HEAD',
    'x-request-id': requestId,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
  return false;
}

function sendBytes(
  res: ServerResponse,
  method: string | undefined,
  body: Buffer,
  type: string,
  cache: string,
  securityHeaders: Record<string, string>,
): void {
  res.writeHead(200, {
    'content-type': type,
    'content-length': body.length,
    'cache-control': cache,
    ...securityHeaders,
  });
  res.end(method === 'HEAD' ? undefined : body);
}

function notBuilt(res: ServerResponse): true {
  sendGatewayError(
    res,
    503,
    'SERVICE_UNAVAILABLE',
    'The console is not built: run `npm run build:console` (npm start and npm test do it).',
  );
  return true;
}
