import type { Project } from './project.ts';

/**
 * Projects read ahead for the request a function is serving, so the request's own read of its project is answered
 * without a second trip to the table: the management function reads the caller's project key and the path's project
 * in one round trip, and the route's `get` of that project is served from here.
 *
 * What is held never outlives the request, and is served only while that request is the only one the function is
 * serving: with several at once (a process that serves invocations concurrently), nothing is held or served, and each
 * read goes to the table as before. Nothing here knows which request a read belongs to; being alone is what makes the
 * held item the reader's own. A write to a project through the store drops what is held for it.
 */
export class ProjectReadAhead {
  private serving = 0;
  /** Another request started while one was being served: nothing is held or served until none is left. */
  private crowded = false;
  private readonly held = new Map<string, Project | undefined>();

  /** Runs one request of the function, from its first read to its answer. */
  async around<T>(serve: () => Promise<T>): Promise<T> {
    if (this.serving++ > 0) {
      this.crowded = true;
      this.held.clear();
    }
    try {
      return await serve();
    } finally {
      if (--this.serving === 0) {
        this.crowded = false;
        this.held.clear();
      }
    }
  }

  /** Whether a project read ahead now would be held: the request is the only one being served. */
  get alone(): boolean {
    return !this.crowded && this.serving === 1;
  }

  /** Holds what was read of `projectId` (undefined: no such project) for the rest of the request, if alone. */
  hold(projectId: string, project: Project | undefined): void {
    if (this.alone) this.held.set(projectId, project);
  }

  /** What was read ahead for `projectId` in this request (`found: false` when nothing was). */
  take(projectId: string): { found: true; project: Project | undefined } | { found: false } {
    if (this.crowded || !this.held.has(projectId)) return { found: false };
    return { found: true, project: this.held.get(projectId) };
  }

  /** The project was written: later reads of it in this request go to the table. */
  forget(projectId: string): void {
    this.held.delete(projectId);
  }
}
