import { useState } from 'preact/hooks';
import { checkAdminKey } from '../api.ts';
import { ErrorNotice } from '../ui.tsx';

export function SignIn({ onSignedIn }: { onSignedIn: (adminKey: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      <p>
        Use the admin key of this Switchboard (<code>npm start</code> prints it; it is kept in{' '}
        <code>.data/admin-key</code>). It stays in this browser tab only and is forgotten when the tab closes.
      </p>
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            if (await checkAdminKey(key.trim())) onSignedIn(key.trim());
            else setError(new Error('That admin key was not accepted.'));
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="admin-key">Admin key</label>
        <input
          id="admin-key"
          type="password"
          autocomplete="current-password"
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          spellcheck={false}
        />
        <ErrorNotice error={error} />
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
