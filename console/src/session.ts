// The admin key lives in this tab's sessionStorage only (gone when the tab closes) and never in the URL.
// Shown-once secrets (tokens, signing secrets) are never stored anywhere: they live in component state until
// dismissed, so a reload cannot bring them back.
const KEY = 'switchboard.adminKey';
const RECENT = 'switchboard.recentProjects';

export function loadAdminKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveAdminKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(KEY, key);
    else sessionStorage.removeItem(KEY);
  } catch {
    // Storage disabled: the key stays in memory for this page only.
  }
}

export interface RecentProject {
  projectId: string;
  name: string;
}

/** Projects opened before (ids and names only: not secrets), newest first, to pick one quickly. */
export function recentProjects(): RecentProject[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(RECENT) ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter((p): p is RecentProject => typeof p?.projectId === 'string' && typeof p?.name === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberProject(project: RecentProject): void {
  try {
    const list = [project, ...recentProjects().filter((p) => p.projectId !== project.projectId)].slice(0, 8);
    localStorage.setItem(RECENT, JSON.stringify(list));
  } catch {
    // Nothing to do: the list is a convenience.
  }
}

export function forgetProject(projectId: string): void {
  try {
    localStorage.setItem(RECENT, JSON.stringify(recentProjects().filter((p) => p.projectId !== projectId)));
  } catch {
    // Nothing to do.
  }
}
