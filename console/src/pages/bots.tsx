import { Can } from '../access.tsx';
import { useEffect, useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { Bot, KnowledgeFile, KnowledgeFilePage } from '../types.ts';
import { Badge, ErrorNotice, formatTime, Loading, ResponsiveTable, StatusMessage, useAction, useLoad } from '../ui.tsx';
import { BotTryOut } from './bot-playground.tsx';

const UPLOAD_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  txt: 'text/plain',
};

/** What `POST .../knowledge/{fileName}/upload` answers: a form to post straight to the object store. */
interface UploadForm {
  uploadUrl: string;
  method: 'POST';
  fields: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

const MAX_BYTES = 26_214_400;

/**
 * Posts the file with the form's fields to the object store, reporting progress (fetch has no upload progress;
 * XMLHttpRequest does). Resolves when the store has the object; rejects with a message otherwise.
 */
function postToStore(form: UploadForm, file: File, type: string, onProgress: (fraction: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
    body.append('file', new Blob([file], { type }), file.name);
    const xhr = new XMLHttpRequest();
    xhr.open(form.method, form.uploadUrl);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new Error(`The storage refused the file (${xhr.status}); ask for a new upload and try again.`));
    xhr.onerror = () => reject(new Error('The upload was interrupted (network error); try again.'));
    xhr.send(body);
  });
}

function fileBadge(f: KnowledgeFile) {
  if (f.status === 'ready') return <Badge tone="ok">Ready</Badge>;
  if (f.status === 'failed') return <Badge tone="bad">Failed</Badge>;
  return <Badge tone="neutral">Processing</Badge>;
}

/** Knowledge files per page of a bot's listing; "Load more files" fetches the next page. */
const FILES_PAGE = 50;

/** The project's bots; each bot's knowledge files are listed a page at a time (a bot can hold thousands). */
export function BotsPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const [refreshed, setRefreshed] = useState(0);
  const bots = useLoad(async () => api.all<Bot>(`${base}/bots`), [api, projectId]);

  return (
    <section>
      <div class="row-between">
        <h1>Bots</h1>
        <button
          type="button"
          onClick={() => {
            setRefreshed((n) => n + 1);
            void bots.reload();
          }}
          disabled={bots.loading}
        >
          Refresh
        </button>
      </div>
      <p class="muted">Bots carry the instructions and knowledge the Bots API uses; applications pass the bot's id.</p>
      <ErrorNotice error={bots.error} />
      {!bots.data && !bots.error ? <Loading what="bots" /> : null}
      {bots.data && bots.data.length === 0 ? (
        <p class="muted">
          No bots yet (create them with <code>POST /admin/v1/projects/{'{projectId}'}/bots</code>).
        </p>
      ) : null}
      {bots.data?.map((bot) => (
        <article class="card" key={bot.botId} aria-labelledby={`bot-${bot.botId}`}>
          <h2 id={`bot-${bot.botId}`}>{bot.name}</h2>
          <dl class="facts">
            <dt>Bot id</dt>
            <dd class="mono">{bot.botId}</dd>
            <dt>Model</dt>
            <dd>{bot.model ?? 'Default'}</dd>
            <dt>Updated</dt>
            <dd>{formatTime(bot.updatedAt)}</dd>
          </dl>
          <details>
            <summary>Instructions</summary>
            <pre class="instructions">{bot.instructions}</pre>
          </details>
          <KnowledgeFiles
            api={api}
            path={`${base}/bots/${enc(bot.botId)}/knowledge`}
            botName={bot.name}
            refreshed={refreshed}
          />
        </article>
      ))}
      {/* Trying a bot spends the project's bot credits: a change, not a read. */}
      <Can need="developer">{bots.data ? <BotTryOut projectId={projectId} bots={bots.data} /> : null}</Can>
    </section>
  );
}

/**
 * One bot's knowledge files by name, a page at a time through the listing's cursor. While a shown file is
 * processing, the shown pages are read again every 2 s until it settles.
 */
function KnowledgeFiles({
  api,
  path,
  botName,
  refreshed,
}: {
  api: Api;
  path: string;
  botName: string;
  /** Bumped by the page's Refresh button: the shown pages are read again. */
  refreshed: number;
}) {
  /** The pages shown: where each started (undefined = the first), its files, and the cursor after it. */
  const [pages, setPages] = useState<{ from?: string; items: KnowledgeFile[]; next?: string }[]>([]);
  const [error, setError] = useState<unknown>();
  const more = useAction();
  const readPage = async (from?: string) => {
    const page = await api.get<KnowledgeFilePage>(`${path}?limit=${FILES_PAGE}${from ? `&cursor=${enc(from)}` : ''}`);
    return { ...(from ? { from } : {}), items: page.items, ...(page.nextCursor ? { next: page.nextCursor } : {}) };
  };
  const reload = async (starts: (string | undefined)[]) => {
    try {
      setPages(await Promise.all(starts.map(readPage)));
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void reload([undefined]);
  }, [api, path]);
  useEffect(() => {
    if (refreshed) void reload(pages.length ? pages.map((p) => p.from) : [undefined]);
  }, [refreshed]);
  const files = pages.flatMap((p) => p.items);
  const next = pages.at(-1)?.next;
  const processing = files.some((f) => f.status === 'processing');
  useEffect(() => {
    if (!processing) return;
    const timer = setTimeout(() => void reload(pages.map((p) => p.from)), 2000);
    return () => clearTimeout(timer);
  }, [pages]);

  return (
    <>
      <h3>Knowledge files</h3>
      <ErrorNotice error={error ?? more.error} />
      {pages.length === 0 && !error ? <Loading what="knowledge files" /> : null}
      {pages.length > 0 && files.length === 0 ? (
        <p class="muted">No knowledge files.</p>
      ) : files.length ? (
        <ResponsiveTable
          label={`Knowledge files of ${botName}`}
          columns={['File', 'Status', 'Chunks', 'OCR pages', 'Updated']}
        >
          {files.map((f) => (
            <tr key={f.fileName}>
              <td data-label="File" class="break">
                {f.fileName}
              </td>
              <td data-label="Status">
                {fileBadge(f)}
                {f.error ? <div class="small muted">{f.error}</div> : null}
              </td>
              <td data-label="Chunks">{f.chunks}</td>
              <td data-label="OCR pages">{f.ocrPages ?? '—'}</td>
              <td data-label="Updated">{formatTime(f.updatedAt)}</td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}
      {next ? (
        <button
          type="button"
          disabled={more.busy}
          onClick={async () => {
            const page = await more.run(() => readPage(next));
            if (page) setPages((shown) => [...shown, page]);
          }}
        >
          {more.busy ? 'Loading…' : `Load more files (${files.length} shown)`}
        </button>
      ) : null}
      <Can need="developer">
        <KnowledgeUpload
          api={api}
          path={path}
          onUploaded={() => void reload(pages.length ? pages.map((p) => p.from) : [undefined])}
        />
      </Can>
    </>
  );
}

/**
 * Adds knowledge files: chosen or dropped, each one asked an upload form for and posted straight to the object
 * store with a progress bar (any size up to 25 MB; the management API never carries the bytes).
 */
function KnowledgeUpload({ api, path, onUploaded }: { api: Api; path: string; onUploaded: () => void }) {
  const upload = useAction();
  const [status, setStatus] = useState<string>();
  const [progress, setProgress] = useState<{ name: string; fraction: number }>();
  const [dragging, setDragging] = useState(false);
  const id = `upload-${path.replace(/[^A-Za-z0-9]/g, '')}`;

  async function send(files: File[]) {
    for (const file of files) {
      const type = UPLOAD_TYPES[file.name.split('.').pop()?.toLowerCase() ?? ''] ?? file.type;
      const done = await upload.run(async () => {
        if (file.size > MAX_BYTES) throw new Error(`${file.name} is over 25 MB.`);
        const form = await api.post<UploadForm>(`${path}/${enc(file.name)}/upload`, { contentType: type });
        setProgress({ name: file.name, fraction: 0 });
        await postToStore(form, file, type, (fraction) => setProgress({ name: file.name, fraction }));
        return true;
      });
      setProgress(undefined);
      onUploaded();
      if (!done) return;
      setStatus(`${file.name} uploaded; it is being processed.`);
    }
  }

  return (
    <form
      class={dragging ? 'upload dropzone dragging' : 'upload dropzone'}
      onSubmit={(e) => e.preventDefault()}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length && !upload.busy) void send(files);
      }}
    >
      <label for={id}>
        Add knowledge files: drop them here or choose them (PDF, text, Markdown or HTML; 25 MB at most each)
      </label>
      <input
        id={id}
        type="file"
        multiple
        disabled={upload.busy}
        accept=".pdf,.txt,.md,.markdown,.html,.htm"
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = '';
          if (files.length) void send(files);
        }}
      />
      {progress ? (
        <div class="upload-progress">
          <label>
            Uploading {progress.name}: {Math.round(progress.fraction * 100)}%
            <progress max={1} value={progress.fraction} />
          </label>
        </div>
      ) : null}
      <ErrorNotice error={upload.error} />
      <StatusMessage message={status} />
    </form>
  );
}
