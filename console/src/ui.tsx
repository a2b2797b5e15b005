import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

/** Loads data on mount and when `deps` change; `reload()` fetches again keeping the old data on screen. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      if (mine === seq.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ ...s, error, loading: false }));
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { ...state, reload };
}

/** Runs an action once at a time, keeping its error for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(undefined) };
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  return (
    <div class="notice notice-error" role="alert">
      <strong>{e ? `${e.code}: ` : ''}</strong>
      {e ? e.message : String((error as Error)?.message ?? error)}
      {e?.details.length ? (
        <ul>
          {e.details.map((d) => (
            <li key={d.path + d.message}>
              {d.path ? <code>{d.path}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      ) : null}
      {e?.requestId ? <div class="muted small">Request id: {e.requestId}</div> : null}
    </div>
  );
}

/** A polite live region: screen readers announce what changed after an action. */
export function StatusMessage({ message }: { message?: string | undefined }) {
  return (
    <p class="status" role="status" aria-live="polite">
      {message ?? ''}
    </p>
  );
}

/**
 * A secret shown exactly once: a read-only field, a copy button and a plain warning. The value lives only in the
 * parent's state until "Done" drops it; nothing stores it.
 */
export function SecretOnce(props: {
  title: string;
  label: string;
  value: string;
  onDone: () => void;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState<string>();
  const inputRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied to the clipboard.');
    } catch {
      inputRef.current?.select();
      setCopied('Select the text and copy it (Ctrl+C / ⌘C).');
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title" tabIndex={-1} ref={headingRef}>
        {props.title}
      </h2>
      <p class="notice notice-warning">
        <strong>This will not be shown again.</strong> Copy it now and keep it somewhere safe. If you lose it, rotate it
        to get a new one.
      </p>
      <label for="secret-value">{props.label}</label>
      <div class="secret-row">
        <input
          id="secret-value"
          ref={inputRef}
          class="mono"
          readOnly
          value={props.value}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          spellcheck={false}
          autocomplete="off"
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <StatusMessage message={copied} />
      {props.children}
      <button type="button" class="primary" onClick={props.onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}

/** A modal confirmation (native <dialog>: focus is trapped and Escape cancels). */
export function ConfirmButton(props: {
  label: string;
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  disabled?: boolean;
  onConfirm: () => void | Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : ''}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <form
          method="dialog"
          onSubmit={(e) => {
            const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
            if (submitter?.value === 'confirm') void props.onConfirm();
          }}
        >
          <h2 id={titleId}>{props.title}</h2>
          <div>{props.message}</div>
          <div class="actions">
            <button value="cancel" type="submit">
              Cancel
            </button>
            <button value="confirm" type="submit" class={props.danger ? 'danger' : 'primary'}>
              {props.confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function formatTime(iso: string | undefined | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'bad' | 'neutral'; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

/**
 * A table that stacks into one card per row on narrow screens, where each cell shows its `data-label` (styles.css).
 * `columns` are the header cells; `null` is an actions column, named for screen readers only.
 */
export function ResponsiveTable(props: { label: string; columns: (string | null)[]; children: ComponentChildren }) {
  return (
    <table class="responsive" aria-label={props.label}>
      <thead>
        <tr>
          {props.columns.map((name) => (
            <th scope="col" key={name ?? ''}>
              {name ?? <span class="visually-hidden">Actions</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}
