import type { RouteDefinition } from './routes.ts';

export type RouteMatch =
  | { kind: 'route'; route: RouteDefinition; pathParameters: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'none' };

/**
 * Finds the route API Gateway would pick: literal segments beat `{param}`, which beats `{proxy+}`; a method
 * route beats `ANY`. Path parameters are URL-decoded, as API Gateway passes them.
 */
export function matchRoute(routes: readonly RouteDefinition[], method: string, path: string): RouteMatch {
  const actual = path.split('/').filter(Boolean);
  const candidates: { route: RouteDefinition; params: Record<string, string>; rank: number }[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, actual);
    if (params) candidates.push({ route, params, rank: specificity(route.path) });
  }
  if (!candidates.length) return { kind: 'none' };
  const best = Math.max(...candidates.map((c) => c.rank));
  const top = candidates.filter((c) => c.rank === best);
  const exact = top.find((c) => c.route.method === method.toUpperCase()) ?? top.find((c) => c.route.method === 'ANY');
  if (exact) return { kind: 'route', route: exact.route, pathParameters: exact.params };
  return { kind: 'wrong-method', allowed: [...new Set(top.map((c) => c.route.method))].sort() };
}

function specificity(pattern: string): number {
  return pattern
    .split('/')
    .filter(Boolean)
    .reduce((score, seg) => score * 3 + (seg.endsWith('+}') ? 0 : seg.startsWith('{') ? 1 : 2), 1);
}

function matchPath(pattern: string, actual: string[]): Record<string, string> | undefined {
  const segs = pattern.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    if (seg.startsWith('{') && seg.endsWith('+}')) {
      if (i >= actual.length) return undefined;
      params[seg.slice(1, -2)] = safeDecode(actual.slice(i).join('/'));
      return params;
    }
    if (i >= actual.length) return undefined;
    if (seg.startsWith('{') && seg.endsWith('}')) params[seg.slice(1, -1)] = safeDecode(actual[i]!);
    else if (seg !== actual[i]) return undefined;
  }
  return segs.length === actual.length ? params : undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
