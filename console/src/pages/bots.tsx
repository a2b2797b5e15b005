import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { Bot, KnowledgeFile } from '../types.ts';
import { Badge, ErrorNotice, formatTime, Loading, StatusMessage, useAction, useLoad } from '../ui.tsx';
import { BotTryOut } from './bot-playground.tsx';

const UPLOAD_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  txt: 'text/plain',
};

function fileBadge(f: KnowledgeFile) {
  if (f.status === 'ready') return <Badge tone="ok">Ready</Badge>;
  if (f.status === 'failed') return <Badge tone="bad">Failed</Badge>;
  return <Badge tone="neutral">Processing</Badge>;
}

/** The project's bots with their knowledge files and each file's ingestion status. */
export function BotsPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const bots = useLoad(async () => {
    const list = (await api.get<{ items: Bot[] }>(`${base}/bots`)).items;
    const files = await Promise.all(
      list.map((b) =>
        api.get<{ items: KnowledgeFile[] }>(`${base}/bots/${enc(b.botId)}/knowledge`).then((r) => r.items),
      ),
    );
    return list.map((bot, n) => ({ bot, files: files[n]! }));
  }, [api, projectId]);

  return (
    <section>
      <div class="row-between">
        <h1>Bots</h1>
        <button type="button" onClick={() => bots.reload()} disabled={bots.loading}>
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
      {bots.data?.map(({ bot, files }) => (
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
          <h3>Knowledge files</h3>
          {files.length === 0 ? (
            <p class="muted">No knowledge files.</p>
          ) : (
            <table class="responsive" aria-label={`Knowledge files of ${bot.name}`}>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Status</th>
                  <th scope="col">Chunks</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
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
                    <td data-label="Updated">{formatTime(f.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <KnowledgeUpload
            api={api}
            path={`${base}/bots/${enc(bot.botId)}/knowledge`}
            onUploaded={() => bots.reload()}
          />
        </article>
      ))}
      {bots.data ? <BotTryOut projectId={projectId} bots={bots.data.map((b) => b.bot)} /> : null}
    </section>
  );
}

function KnowledgeUpload({ api, path, onUploaded }: { api: Api; path: string; onUploaded: () => void }) {
  const upload = useAction();
  const [status, setStatus] = useState<string>();
  const [file, setFile] = useState<File>();
  const id = `upload-${path.replace(/[^A-Za-z0-9]/g, '')}`;
  return (
    <form
      class="upload"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!file) return;
        const type = UPLOAD_TYPES[file.name.split('.').pop()?.toLowerCase() ?? ''] ?? file.type;
        const r = await upload.run(() => api.put<{ fileName: string }>(`${path}/${enc(file.name)}`, file, type));
        if (r) {
          setStatus(`${r.fileName} uploaded; it is being processed.`);
          onUploaded();
        }
      }}
    >
      <label for={id}>Add a knowledge file (PDF, text, Markdown or HTML; 25 MB at most)</label>
      <div class="secret-row">
        <input
          id={id}
          type="file"
          accept=".pdf,.txt,.md,.markdown,.html,.htm"
          onChange={(e) => setFile(e.currentTarget.files?.[0])}
        />
        <button type="submit" disabled={!file || upload.busy}>
          Upload
        </button>
      </div>
      <ErrorNotice error={upload.error} />
      <StatusMessage message={status} />
    </form>
  );
}
