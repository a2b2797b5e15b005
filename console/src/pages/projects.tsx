import { useState } from 'preact/hooks';
import { ApiError, enc, type Api } from '../api.ts';
import { navigate } from '../router.ts';
import type { Project, ProjectPage } from '../types.ts';
import { ErrorNotice, Loading, StatusMessage, useAction, useLoad } from '../ui.tsx';

/** Projects per page of the listing; "Load more" fetches the next page. */
const PAGE_SIZE = 20;

/** Pick a project: from the listing (newest first, a page at a time), by id, or a new one. */
export function ProjectPicker({ api }: { api: Api }) {
  const [extra, setExtra] = useState<Project[]>([]);
  const [cursor, setCursor] = useState<string>();
  const first = useLoad(async () => {
    const page = await api.get<ProjectPage>(`/projects?limit=${PAGE_SIZE}`);
    setExtra([]);
    setCursor(page.nextCursor ?? undefined);
    return page;
  }, [api]);
  const more = useAction();
  const [listStatus, setListStatus] = useState<string>();
  const projects = [...(first.data?.items ?? []), ...extra];

  const [projectId, setProjectId] = useState('');
  const open = useAction();
  const create = useAction();
  const [form, setForm] = useState({ name: '', companyId: '', monthlyBotCredits: '0' });
  const go = (project: Project) => navigate(`/projects/${enc(project.projectId)}/integrations`);

  return (
    <section>
      <h1>Projects</h1>
      <div class="grid-2">
        <section class="card" aria-labelledby="list-title">
          <h2 id="list-title">All projects</h2>
          <p class="muted small">Newest first.</p>
          <ErrorNotice error={first.error ?? more.error} />
          {!first.data ? (
            first.error ? null : (
              <Loading what="projects" />
            )
          ) : projects.length === 0 ? (
            <p>No projects yet: create the first one.</p>
          ) : (
            <ul class="plain" aria-label="Projects">
              {projects.map((p) => (
                <li key={p.projectId} data-project-id={p.projectId}>
                  <a href={`#/projects/${enc(p.projectId)}/integrations`}>{p.name}</a>{' '}
                  <span class="mono small muted">{p.projectId}</span>
                  <div class="small muted">
                    Company {p.companyId} · {p.monthlyBotCredits} bot credits a month
                  </div>
                </li>
              ))}
            </ul>
          )}
          {cursor ? (
            <button
              type="button"
              disabled={more.busy}
              onClick={async () => {
                const page = await more.run(() =>
                  api.get<ProjectPage>(`/projects?limit=${PAGE_SIZE}&cursor=${enc(cursor)}`),
                );
                if (page) {
                  setExtra((x) => [...x, ...page.items]);
                  setCursor(page.nextCursor ?? undefined);
                  setListStatus(`${page.items.length} more projects shown.`);
                }
              }}
            >
              {more.busy ? 'Loading…' : 'Load more projects'}
            </button>
          ) : null}
          <StatusMessage message={listStatus} />
        </section>

        <div>
          <form
            class="card"
            aria-labelledby="create-title"
            onSubmit={async (e) => {
              e.preventDefault();
              const project = await create.run(() =>
                api.post<Project>('/projects', {
                  name: form.name.trim(),
                  companyId: Number(form.companyId),
                  monthlyBotCredits: Number(form.monthlyBotCredits || 0),
                }),
              );
              if (project) go(project);
            }}
          >
            <h2 id="create-title">Create a project</h2>
            <label for="new-name">Name</label>
            <input
              id="new-name"
              required
              maxLength={200}
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
            <label for="new-company">Company id</label>
            <input
              id="new-company"
              required
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={form.companyId}
              onInput={(e) => setForm({ ...form, companyId: e.currentTarget.value })}
            />
            <label for="new-credits">Monthly bot credits</label>
            <input
              id="new-credits"
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              value={form.monthlyBotCredits}
              onInput={(e) => setForm({ ...form, monthlyBotCredits: e.currentTarget.value })}
            />
            <ErrorNotice error={create.error} />
            <button type="submit" class="primary" disabled={create.busy}>
              Create project
            </button>
          </form>

          <form
            class="card"
            aria-labelledby="open-title"
            onSubmit={async (e) => {
              e.preventDefault();
              const project = await open.run(() => api.get<Project>(`/projects/${enc(projectId.trim())}`));
              if (project) go(project);
            }}
          >
            <h2 id="open-title">Open by id</h2>
            <label for="project-id">Project id</label>
            <input
              id="project-id"
              class="mono"
              required
              placeholder="prj_…"
              value={projectId}
              onInput={(e) => setProjectId(e.currentTarget.value)}
              spellcheck={false}
            />
            <ErrorNotice
              error={
                open.error instanceof ApiError && open.error.code === 'NOT_FOUND'
                  ? new Error('No project has that id.')
                  : open.error
              }
            />
            <button type="submit" disabled={open.busy || !projectId.trim()}>
              Open
            </button>
          </form>
        </div>
      </div>
    </section>
  );
}
