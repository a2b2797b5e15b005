import { useState } from 'preact/hooks';
import type { Bot } from '../types.ts';
import { ErrorNotice, StatusMessage } from '../ui.tsx';
import { BotsApiError, balance, failure, loadApiToken, saveApiToken } from './bots-api.ts';
import { SearchTester } from './search-tester.tsx';

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
