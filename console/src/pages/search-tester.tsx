import { useState } from 'preact/hooks';
import type { Bot } from '../types.ts';
import { ErrorNotice, StatusMessage } from '../ui.tsx';
import { failure } from './bots-api.ts';

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
