import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { AuditEntry, AuditPage } from '../types.ts';
import { ErrorNotice, formatTime, Loading, ResponsiveTable, useLoad } from '../ui.tsx';

const who = (e: AuditEntry) =>
  e.actor.kind === 'admin' ? 'Operator' : e.actor.kind === 'key' ? `Key ${e.actor.id}` : `Portal ${e.actor.id}`;

const show = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value));

/** Settings → Audit log: every change made to the project through the management API, newest first. */
export function AuditLogPage({ api, projectId }: { api: Api; projectId: string }) {
  const [cursor, setCursor] = useState<string | undefined>();
  const base = `/projects/${enc(projectId)}/audit?limit=50`;
  const page = useLoad(
    () => api.get<AuditPage>(cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base),
    [api, projectId, cursor],
  );
  return (
    <section>
      <h1>Audit log</h1>
      <p class="muted">
        Who changed what in this project, newest first. Kept for 365 days; secrets are never recorded.
      </p>
      <ErrorNotice error={page.error} />
      {!page.data ? (
        page.error ? null : (
          <Loading what="the audit log" />
        )
      ) : page.data.items.length === 0 ? (
        <div class="card empty">
          <p>No changes yet.</p>
        </div>
      ) : (
        <ResponsiveTable label="Audit log" columns={['When', 'Who', 'Action', 'Target', 'Changes']}>
          {page.data.items.map((e) => (
            <tr key={e.id} data-audit-id={e.id}>
              <td data-label="When">{formatTime(e.at)}</td>
              <td data-label="Who">{who(e)}</td>
              <td data-label="Action" class="mono small">
                {e.action}
              </td>
              <td data-label="Target" class="mono small">
                {e.target ?? '—'}
              </td>
              <td data-label="Changes" class="small">
                {Object.entries(e.changes ?? {}).map(([field, [before, after]]) => (
                  <div key={field}>
                    <span class="mono">{field}</span>: {show(before)} → {show(after)}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      )}
      {page.data?.nextCursor ? (
        <button type="button" onClick={() => setCursor(page.data?.nextCursor ?? undefined)}>
          Older entries
        </button>
      ) : null}
    </section>
  );
}
