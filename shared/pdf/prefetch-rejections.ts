import type { Proto } from './pdfjs-internals.ts';

/**
 * pdfjs starts some object reads ahead of need and keeps their promises in a cache that is awaited only if the
 * object is reached (6.5.438: `Catalog.getPageDict` prefetches every top-level page-tree kid). When a damaged file
 * makes such a read fail and the walk ends before reaching it, the rejection is never handled: Node reports an
 * unhandled rejection, which ends a Lambda invocation and the local runner's thread, so one hostile PDF would take
 * down every request the process was serving.
 *
 * The patch gives every `XRef.fetchAsync` promise a no-op handler as it is created. Whoever awaits the promise still
 * gets the rejection (the document then fails as damaged, as before); a prefetch nobody awaits fails quietly.
 */
export function handlePrefetchRejections(xrefPrototype: Proto): void {
  const fetchAsync = xrefPrototype.fetchAsync as (this: unknown, ...args: unknown[]) => Promise<unknown>;
  if ((fetchAsync as { handled?: true }).handled) return;
  const handled = function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const promise = fetchAsync.apply(this, args);
    promise.catch(() => {});
    return promise;
  };
  (handled as { handled?: true }).handled = true;
  xrefPrototype.fetchAsync = handled;
}
