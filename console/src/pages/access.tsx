import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { ManagementKey, ManagementKeyCreated, PortalLink } from '../types.ts';
import {
  ConfirmButton,
  ErrorNotice,
  formatTime,
  Loading,
  ResponsiveTable,
  SecretOnce,
  useAction,
  useLoad,
} from '../ui.tsx';

type Role = ManagementKey['role'];
const ROLES: Role[] = ['viewer', 'developer', 'admin'];

/**
 * Settings → Access: the project's keys for its own scripts (shown once), and portal links that open this console
 * for one project and role. Project admins and the operator only.
 */
export function AccessPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const keys = useLoad(() => api.all<ManagementKey>(`${base}/keys`), [api, projectId]);
  const action = useAction();
  const [created, setCreated] = useState<ManagementKeyCreated | undefined>();
  const [link, setLink] = useState<PortalLink | undefined>();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [linkRole, setLinkRole] = useState<Role>('viewer');

  const createKey = async (e: Event) => {
    e.preventDefault();
    const key = await action.run(() => api.post<ManagementKeyCreated>(`${base}/keys`, { name, role }));
    if (key) {
      setCreated(key);
      setName('');
      void keys.reload();
    }
  };

  return (
    <section>
      <h1>Access</h1>
      <ErrorNotice error={action.error ?? keys.error} />
      {created ? (
        <SecretOnce
          title="Your new project key"
          label={`Key "${created.name}" (${created.role})`}
          value={created.key}
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <h2>Project keys</h2>
      <p class="muted">For your own scripts: `Authorization: Bearer sbm_…` on the management API, this project only.</p>
      {!keys.data ? (
        keys.error ? null : (
          <Loading what="keys" />
        )
      ) : (
        <ResponsiveTable label="Project keys" columns={['Name', 'Role', 'Created', 'Last used', null]}>
          {keys.data.map((k) => (
            <tr key={k.keyId} data-key-id={k.keyId}>
              <td data-label="Name">{k.name}</td>
              <td data-label="Role">{k.role}</td>
              <td data-label="Created">{formatTime(k.createdAt)}</td>
              <td data-label="Last used">{k.lastUsedAt ? formatTime(k.lastUsedAt) : 'never'}</td>
              <td>
                <ConfirmButton
                  label="Revoke"
                  title={`Revoke "${k.name}"?`}
                  message="Scripts using this key are refused from their next request."
                  confirmLabel="Revoke key"
                  danger
                  onConfirm={async () => {
                    await action.run(() => api.del(`${base}/keys/${enc(k.keyId)}`));
                    void keys.reload();
                  }}
                />
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      )}
      <form class="card form" onSubmit={createKey}>
        <label>
          Name <input value={name} required maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Role{' '}
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      <h2>Portal links</h2>
      <p class="muted">A link opens this console on this project for one hour; it works once, within 5 minutes.</p>
      <div class="row">
        <select aria-label="Link role" value={linkRole} onChange={(e) => setLinkRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <button
          type="button"
          disabled={action.busy}
          onClick={async () =>
            setLink(await action.run(() => api.post<PortalLink>(`${base}/portal-sessions`, { role: linkRole })))
          }
        >
          Make a link
        </button>
        <ConfirmButton
          label="End every session"
          title="End every portal session?"
          message="Everyone using a portal link on this project is signed out, and unused links stop working."
          confirmLabel="End sessions"
          danger
          onConfirm={() => action.run(() => api.del(`${base}/portal-sessions`))}
        />
      </div>
      {link ? (
        <p class="mono small" data-portal-link>
          {link.url}
        </p>
      ) : null}
    </section>
  );
}
