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

/**
 * Earlier versions kept recently opened project ids here, because the management API could not list projects.
 * It can now (the picker lists them), so the leftover list is removed.
 */
export function dropRecentProjects(): void {
  try {
    localStorage.removeItem(RECENT);
  } catch {
    // Storage disabled: nothing was kept.
  }
}
