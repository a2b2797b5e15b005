import { useState } from 'preact/hooks';
import type { Bot } from '../types.ts';
import { ErrorNotice, StatusMessage } from '../ui.tsx';

// The project API token for trying the bots: kept in this tab's sessionStorage (like the admin key), never in
// localStorage, so it is gone when the tab closes. The console cannot read the token back from the service (it is
// shown once), so the user pastes it.
const tokenKey = (projectId: string) => `switchboard.apiToken.${projectId}`;

function loadApiToken(projectId: string): string {
  try {
    return sessionStorage.getItem(tokenKey(projectId)) ?? '';
  } catch {
    return '';
  }
}

function saveApiToken(projectId: string, token: string): void {
  try {
    if (token) sessionStorage.setItem(tokenKey(projectId), token);
    else sessionStorage.removeItem(tokenKey(projectId));
  } catch {
    // Storage disabled: the token stays in memory for this page only.
  }
}

/** An answer of the public Bots API that was not a success, told in words a panel user can act on. */
class BotsApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<BotsApiError> {
  let message = '';
  try {
    const body = (await response.json()) as { error?: { message?: string } | string; message?: string };
    message = typeof body.error === 'object' ? (body.error.message ?? '') : (body.message ?? '');
  } catch {
    // Not JSON: the status says enough.
  }
  const told: Record<number, string> = {
    401: 'The API token was not accepted. Paste the project API token (create or replace it under "API token & credits").',
    402: 'No bot credits left this month: the request was not charged. Grant credits under "API token & credits".',
    429: `Too many requests: the project's rate limit was reached. Try again in ${response.headers.get('retry-after') ?? 'a few'} seconds.`,
  };
  return new BotsApiError(
    response.status,
    told[response.status] ?? `The Bots API answered ${response.status}. ${message}`,
  );
}

async function balance(token: string): Promise<number | undefined> {
  const response = await fetch('/api/v1/ai/health', {
    headers: { authorization: `Bearer ${token}` },
    cache: 'no-store',
  });
  if (!response.ok) throw await failure(response);
  return ((await response.json()) as { creditos?: { disponivel?: number } }).creditos?.disponivel;
}

/** The token field shared by the playground and the search tester. */
export function ApiTokenField({
  projectId,
  token,
  onChange,
}: {
  projectId: string;
  token: string;
  onChange: (t: string) => void;
}) {
  return (
    <div>
      <label for="playground-token">Project API token (kept in this tab only)</label>
      <input
        id="playground-token"
        type="password"
        class="mono"
        autocomplete="off"
        spellcheck={false}
        value={token}
        onInput={(e) => {
          const value = e.currentTarget.value.trim();
          saveApiToken(projectId, value);
          onChange(value);
        }}
      />
    </div>
  );
}

export function useApiToken(projectId: string) {
  return useState(() => loadApiToken(projectId));
}

interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

interface Reply {
  fontes?: { procedencia: string; score: number }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  spent?: number;
  balance?: number;
}

/**
 * Reads an OpenAI-format Server-Sent Events stream: each `data:` line is a chunk (`[DONE]` ends it); `onChunk`
 * receives every parsed chunk as it arrives.
 */
/** The parts of a `chat.completion.chunk` the playground shows (`fontes` is this service's extension). */
interface ChatChunk {
  choices?: { delta?: { content?: string } }[];
  fontes?: Reply['fontes'];
  usage?: Reply['usage'];
  error?: { message?: string };
}

async function readStream(response: Response, onChunk: (chunk: ChatChunk) => void): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end = buffered.indexOf('\n\n');
    while (end !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        const chunk = JSON.parse(data) as ChatChunk;
        if (chunk.error)
          throw new BotsApiError(502, `The answer broke off: ${chunk.error.message ?? 'generation failed'}.`);
        onChunk(chunk);
      }
      end = buffered.indexOf('\n\n');
    }
  }
}

/**
 * Talk to a bot as a customer's code would: the OpenAI-format route (`POST /api/v1/ai/chat/completions`,
 * streamed), with the project API token. Shows the answer as it streams, the files it used, the tokens, the credit
 * spent and the balance left.
 */
export function BotPlayground({ bots, token }: { bots: Bot[]; token: string }) {
  const [botId, setBotId] = useState(bots[0]?.botId ?? '');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [reply, setReply] = useState<Reply>();
  const [status, setStatus] = useState<string>();

  const send = async (e: Event) => {
    e.preventDefault();
    const question = draft.trim();
    if (!question || !token || !botId) return;
    const conversation: Turn[] = [...turns, { role: 'user', content: question }];
    setTurns(conversation);
    setDraft('');
    setBusy(true);
    setError(undefined);
    setReply(undefined);
    setStreaming('');
    setStatus('Sending…');
    try {
      const before = await balance(token);
      const response = await fetch('/api/v1/ai/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: botId,
          messages: conversation,
          stream: true,
          stream_options: { include_usage: true },
        }),
        cache: 'no-store',
      });
      if (!response.ok) throw await failure(response);
      let text = '';
      const next: Reply = {};
      await readStream(response, (chunk) => {
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) {
          text += piece;
          setStreaming(text);
        }
        if (chunk.fontes) next.fontes = chunk.fontes;
        if (chunk.usage) next.usage = chunk.usage;
      });
      setTurns([...conversation, { role: 'assistant', content: text }]);
      setStreaming('');
      const after = await balance(token);
      if (before !== undefined && after !== undefined) next.spent = before - after;
      if (after !== undefined) next.balance = after;
      setReply(next);
      setStatus('Answer complete.');
    } catch (caught) {
      setTurns(conversation.slice(0, -1));
      setDraft(question);
      setError(caught);
      setStatus(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="playground-title">
      <h2 id="playground-title">Playground</h2>
      <p class="muted small">
        Chat with a bot through <code>POST /api/v1/ai/chat/completions</code>, streamed, as your code would. Each answer
        costs one bot credit.
      </p>
      <label for="playground-bot">Bot</label>
      <select
        id="playground-bot"
        value={botId}
        onChange={(e) => {
          setBotId(e.currentTarget.value);
          setTurns([]);
          setReply(undefined);
        }}
      >
        {bots.map((b) => (
          <option key={b.botId} value={b.botId}>
            {b.name}
          </option>
        ))}
      </select>
      <ol class="transcript" aria-label="Conversation" aria-live="polite">
        {turns.map((t, n) => (
          <li key={n} class={t.role}>
            <span class="who">{t.role === 'user' ? 'You: ' : 'Bot: '}</span>
            {t.content}
          </li>
        ))}
        {busy && streaming ? (
          <li class="assistant" data-testid="streaming-answer">
            <span class="who">Bot: </span>
            {streaming}
          </li>
        ) : null}
      </ol>
      {reply ? (
        <dl class="facts" data-testid="playground-reply">
          <dt>Sources</dt>
          <dd data-testid="playground-fontes">
            {reply.fontes?.length
              ? reply.fontes.map((f) => `${f.procedencia} (${f.score.toFixed(2)})`).join(', ')
              : 'None (no knowledge excerpt was used)'}
          </dd>
          <dt>Tokens</dt>
          <dd data-testid="playground-tokens">
            {reply.usage
              ? `${reply.usage.prompt_tokens} in, ${reply.usage.completion_tokens} out (${reply.usage.total_tokens} total)`
              : 'Not reported by the model'}
          </dd>
          <dt>Credits spent</dt>
          <dd data-testid="playground-spent">{reply.spent ?? '—'}</dd>
          <dt>Balance left</dt>
          <dd data-testid="playground-balance">{reply.balance ?? '—'}</dd>
        </dl>
      ) : null}
      <form onSubmit={send}>
        <label for="playground-message">Message</label>
        <textarea id="playground-message" rows={3} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !token || !botId || !draft.trim()}>
            Send
          </button>
          <button
            type="button"
            disabled={busy || turns.length === 0}
            onClick={() => {
              setTurns([]);
              setReply(undefined);
            }}
          >
            New conversation
          </button>
        </div>
        {!token ? <p class="hint">Paste the project API token above to chat.</p> : null}
      </form>
      <ErrorNotice error={error} />
      <StatusMessage message={status} />
    </section>
  );
}

interface Excerpt {
  texto: string;
  procedencia: string;
  score: number;
}

const patterns = (text: string) =>
  text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/**
 * Which excerpts a query finds (`POST /api/v1/ai/search`): file, score and text, with include/exclude file-name
 * patterns (`%` matches any run of characters), so a user can see why an answer did or did not use a document.
 * Searching is free.
 */
export function SearchTester({ bots, token }: { bots: Bot[]; token: string }) {
  const [botId, setBotId] = useState(bots[0]?.botId ?? '');
  const [query, setQuery] = useState('');
  const [topK, setTopK] = useState(5);
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [results, setResults] = useState<Excerpt[]>();

  const search = async (e: Event) => {
    e.preventDefault();
    if (!token || !botId || !query.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      const filters = {
        ...(patterns(include).length ? { incluirArquivos: patterns(include) } : {}),
        ...(patterns(exclude).length ? { excluirArquivos: patterns(exclude) } : {}),
      };
      const response = await fetch('/api/v1/ai/search', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ botId, query: query.trim(), topK, ...(Object.keys(filters).length ? { filters } : {}) }),
        cache: 'no-store',
      });
      if (!response.ok) throw await failure(response);
      setResults(((await response.json()) as { trechos: Excerpt[] }).trechos);
    } catch (caught) {
      setError(caught);
      setResults(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="search-title">
      <h2 id="search-title">Search tester</h2>
      <p class="muted small">
        The excerpts <code>POST /api/v1/ai/search</code> finds for a query, best first: what the bot would be given.
      </p>
      <form onSubmit={search}>
        <label for="search-bot">Bot</label>
        <select id="search-bot" value={botId} onChange={(e) => setBotId(e.currentTarget.value)}>
          {bots.map((b) => (
            <option key={b.botId} value={b.botId}>
              {b.name}
            </option>
          ))}
        </select>
        <label for="search-query">Query</label>
        <input id="search-query" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        <label for="search-topk">Excerpts (topK)</label>
        <input
          id="search-topk"
          type="number"
          min={1}
          max={20}
          value={topK}
          onInput={(e) => setTopK(Number(e.currentTarget.value) || 5)}
        />
        <label for="search-include">Only files matching (comma-separated, % matches anything)</label>
        <input
          id="search-include"
          placeholder="faq%, %.md"
          value={include}
          onInput={(e) => setInclude(e.currentTarget.value)}
        />
        <label for="search-exclude">Leave out files matching</label>
        <input id="search-exclude" value={exclude} onInput={(e) => setExclude(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !token || !botId || !query.trim()}>
            Search
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      <StatusMessage
        message={results ? `${results.length} excerpt${results.length === 1 ? '' : 's'} found.` : undefined}
      />
      {results?.length ? (
        <ol class="plain" aria-label="Excerpts found">
          {results.map((r, n) => (
            <li key={n} class="card" data-testid="excerpt">
              <strong class="break" data-testid="excerpt-file">
                {r.procedencia}
              </strong>{' '}
              <span class="muted small">score {r.score.toFixed(3)}</span>
              <p class="excerpt">{r.texto}</p>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** The Bots page's "try it" area: the API token once, then the playground and the search tester side by side. */
export function BotTryOut({ projectId, bots }: { projectId: string; bots: Bot[] }) {
  const [token, setToken] = useApiToken(projectId);
  if (bots.length === 0) return null;
  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">Try your bots</h2>
      <ApiTokenField projectId={projectId} token={token} onChange={setToken} />
      <div class="grid-2">
        <BotPlayground bots={bots} token={token} />
        <SearchTester bots={bots} token={token} />
      </div>
    </section>
  );
}
