import { consoleHeaders } from './security-headers.ts';
import type { SiteFiles } from './site-files.ts';

/** An answer of the site: status, headers and body. */
export interface SiteAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ServeSiteDeps {
  files: SiteFiles;
  /** The origins a project lets frame its portal (undefined: no such project). */
  portalOrigins(projectId: string): Promise<readonly string[] | undefined>;
  /** This deployment's base URL: `/openapi.json` lists it first in `servers`. */
  baseUrl?: string;
  uploadOrigins?: readonly string[];
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  woff2: 'font/woff2',
};

const text = (status: number, body: string, headers: Record<string, string> = {}): SiteAnswer => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body: Buffer.from(body),
});

/**
 * What the deployment serves besides the API: the console (`/console/…`), the portal (`/portal?project=…`: the
 * console's page, framable only by the project's `portal.allowedOrigins`), the API reference (`/docs`) and the
 * OpenAPI document (`/openapi.json`, this deployment first in `servers`). Page paths are rewritten to load the
 * console's assets from `/console/`, wherever the page is served.
 */
export function makeServeSite(deps: ServeSiteDeps) {
  const plain = consoleHeaders({ uploadOrigins: deps.uploadOrigins ?? [] });
  // API Gateway's own address carries the stage (`/prod`) in front of every path.
  const prefix = deps.baseUrl ? new URL(deps.baseUrl).pathname.replace(/\/+$/, '') : '';
  const page = (name: string, headers: Record<string, string>): SiteAnswer => {
    const html = deps.files.read(name);
    if (!html) return text(503, 'The console is not built: run `npm run build:console` before deploying.');
    const body = html.toString('utf8').replaceAll('"./assets/', `"${prefix}/console/assets/`);
    return {
      status: 200,
      headers: { 'content-type': TYPES.html!, 'cache-control': 'no-cache', ...headers },
      body: Buffer.from(body),
    };
  };

  return async (path: string, query: Readonly<Record<string, string | undefined>>): Promise<SiteAnswer> => {
    if (path === '/console') return text(308, '', { location: `${prefix}/console/` });
    if (path === '/docs' || path === '/docs/') return page('docs.html', plain);
    if (path === '/portal') {
      const projectId = query.project ?? '';
      const origins = /^[A-Za-z0-9_-]{1,200}$/.test(projectId) ? await deps.portalOrigins(projectId) : undefined;
      const headers = consoleHeaders({ frameAncestors: origins ?? [], uploadOrigins: deps.uploadOrigins ?? [] });
      return page('index.html', { ...headers, 'cache-control': 'no-store' });
    }
    if (path === '/openapi.json') {
      const document = deps.files.read('openapi.json');
      if (!document) return text(503, 'The OpenAPI document was not built with this deployment.');
      const parsed = JSON.parse(document.toString('utf8')) as { servers?: { url: string }[] };
      if (deps.baseUrl) {
        const rest = (parsed.servers ?? []).filter((s) => s.url !== deps.baseUrl);
        parsed.servers = [{ url: deps.baseUrl }, ...rest];
      }
      return {
        status: 200,
        headers: { 'content-type': TYPES.json!, 'cache-control': 'no-cache', 'access-control-allow-origin': '*' },
        body: Buffer.from(JSON.stringify(parsed, null, 2)),
      };
    }
    const relative = path.startsWith('/console/') ? path.slice('/console/'.length) || 'index.html' : undefined;
    if (relative === 'index.html') return page('index.html', plain);
    const file = relative === undefined ? undefined : deps.files.read(relative);
    if (!file) return text(404, 'No such file.');
    const type = TYPES[relative!.split('.').pop() ?? ''] ?? 'application/octet-stream';
    // Hashed asset names never change content: cached for good.
    const cache = relative!.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    return { status: 200, headers: { 'content-type': type, 'cache-control': cache, ...plain }, body: file };
  };
}

export type ServeSite = ReturnType<typeof makeServeSite>;
