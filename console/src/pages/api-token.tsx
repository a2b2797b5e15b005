import { Can } from '../access.tsx';
import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { ApiTokenState, BotCredits } from '../types.ts';
import {
  Badge,
  ConfirmButton,
  ErrorNotice,
  formatTime,
  Loading,
  SecretOnce,
  StatusMessage,
  useAction,
  useLoad,
} from '../ui.tsx';
import { CreditUsageChart } from './usage-charts.tsx';

/** The project API token (one per project; create/replace shown once, revoke) and the month's bot credits. */
export function ApiTokenPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const credits = useLoad(() => api.get<BotCredits>(`${base}/bot-credits`), [api, projectId]);
  // Whether the project has a token and since when (never the token itself), read again after every change.
  const tokenState = useLoad(() => api.get<ApiTokenState>(`${base}/api-token`), [api, projectId]);
  const action = useAction();
  const [token, setToken] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [grant, setGrant] = useState('');

  if (token) {
    return (
      <section>
        <h1>API token created</h1>
        <SecretOnce
          title="Your project API token"
          label="Project API token"
          value={token}
          onDone={() => setToken(undefined)}
        >
          <p class="muted">
            Use it as <code>Authorization: Bearer &lt;token&gt;</code> on the Bots API (<code>/api/v1/ai/*</code>). Any
            earlier token stopped working.
          </p>
        </SecretOnce>
      </section>
    );
  }

  const issue = async () => {
    const r = await action.run(() => api.post<{ token: string }>(`${base}/api-token`));
    if (r) {
      setStatus(undefined);
      setToken(r.token);
    }
    await tokenState.reload();
  };
  const active = tokenState.data?.active;
  const since = tokenState.data?.issuedAt ? formatTime(tokenState.data.issuedAt) : undefined;

  return (
    <section>
      <h1>API token & credits</h1>
      <div class="grid-2">
        <section class="card" aria-labelledby="token-title">
          <h2 id="token-title">Project API token</h2>
          <p>
            One token per project (<code>sbk_…</code>), for the Bots API and the other public APIs. It is shown once
            when created; creating a new one revokes the previous one at once.
          </p>
          <p>
            <strong>State: </strong>
            <span data-testid="token-state">
              {tokenState.data ? (
                active ? (
                  <>
                    <Badge tone="ok">Active</Badge>
                    {since ? (
                      <>
                        {' since '}
                        <time dateTime={tokenState.data.issuedAt}>{since}</time>
                      </>
                    ) : null}
                  </>
                ) : (
                  <>
                    <Badge tone="neutral">None</Badge> The Bots API refuses calls for this project until a token is
                    created.
                  </>
                )
              ) : tokenState.error ? (
                'Unknown'
              ) : (
                'Loading…'
              )}
            </span>
          </p>
          <ErrorNotice error={tokenState.error} />
          <Can need="developer">
            <div class="actions wrap">
              <ConfirmButton
                label={active ? 'Replace token' : active === false ? 'Create token' : 'Create or replace token'}
                title={active ? 'Replace the API token?' : 'Create an API token?'}
                message={
                  active
                    ? `The current token${since ? ` (active since ${since})` : ''} stops working immediately. The new token is shown once.`
                    : 'The new token is shown once. Any existing token for this project stops working immediately.'
                }
                confirmLabel={active ? 'Replace token' : 'Create token'}
                disabled={action.busy}
                onConfirm={issue}
              />
              <ConfirmButton
                label="Revoke token"
                title="Revoke the API token?"
                message="Calls with the current token are rejected from now on (401 ERR_API_TOKEN_INVALID)."
                confirmLabel="Revoke token"
                danger
                disabled={action.busy || active === false}
                onConfirm={async () => {
                  const ok = await action.run(() => api.del(`${base}/api-token`).then(() => true));
                  if (ok) setStatus('The API token was revoked.');
                  await tokenState.reload();
                }}
              />
            </div>
          </Can>
          <ErrorNotice error={action.error} />
          <StatusMessage message={status} />
        </section>

        <section class="card" aria-labelledby="credits-title">
          <h2 id="credits-title">Bot credits</h2>
          <ErrorNotice error={credits.error} />
          {credits.data ? (
            <dl class="facts">
              <dt>Available (disponivel)</dt>
              <dd data-testid="credits-available" class="big">
                {credits.data.disponivel}
              </dd>
              <dt>Month (mes)</dt>
              <dd data-testid="credits-month">{credits.data.mes}</dd>
            </dl>
          ) : credits.error ? null : (
            <Loading what="credits" />
          )}
          <Can need="operator">
            <form
              onSubmit={async (e) => {
                e.preventDefault();
                const r = await action.run(() =>
                  api.post<BotCredits>(`${base}/bot-credits`, { amount: Number(grant) }),
                );
                if (r) {
                  setGrant('');
                  setStatus(`${grant} credits granted for ${r.mes}.`);
                  await credits.reload();
                }
              }}
            >
              <label for="grant-amount">Grant credits for this month</label>
              <div class="secret-row">
                <input
                  id="grant-amount"
                  type="number"
                  min={1}
                  step={1}
                  inputMode="numeric"
                  required
                  value={grant}
                  onInput={(e) => setGrant(e.currentTarget.value)}
                />
                <button type="submit" disabled={action.busy || !grant}>
                  Grant
                </button>
              </div>
            </form>
          </Can>
        </section>
      </div>
      <CreditUsageChart api={api} projectId={projectId} version={credits.data} />
    </section>
  );
}
