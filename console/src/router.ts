import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routing (`#/projects/prj_…/integrations`): the console is plain static files, so any static host (S3 +
 * CloudFront, the local runner) serves every screen from one index.html without rewrite rules.
 */
export function useHashPath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function navigate(path: string): void {
  window.location.hash = path;
}

export const href = (path: string) => `#${path}`;

/** Matches `/projects/:projectId/integrations/:integrationId` style patterns; undefined when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/').filter(Boolean);
  const a = path.split('?')[0]!.split('/').filter(Boolean);
  if (p.length !== a.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) {
      try {
        params[p[i]!.slice(1)] = decodeURIComponent(a[i]!);
      } catch {
        return undefined;
      }
    } else if (p[i] !== a[i]) return undefined;
  }
  return params;
}
