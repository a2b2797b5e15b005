import { useState } from 'preact/hooks';
import { ApiError, enc, type Api } from '../api.ts';
import { navigate } from '../router.ts';
import { forgetProject, recentProjects, rememberProject } from '../session.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, useAction } from '../ui.tsx';

/** Pick a project: by id, from the ones opened before, or a new one. */
export function ProjectPicker({ api }: { api: Api }) {
  const [projectId, setProjectId] = useState('');
  const [recent, setRecent] = useState(recentProjects());
  const open = useAction();
  const create = useAction();
  const [form, setForm] = useState({ name: '', companyId: '', monthlyBotCredits: '0' });

  const go = (project: Project) => {
    rememberProject({ projectId: project.projectId, name: project.name });
    navigate(`/projects/${enc(project.projectId)}/integrations`);
  };

  return (
    <section>
      <h1>Projects</h1>
      <div class="grid-2">
        <form
          class="card"
          aria-labelledby="open-title"
          onSubmit={async (e) => {
            e.preventDefault();
            const project = await open.run(() => api.get<Project>(`/projects/${enc(projectId.trim())}`));
            if (project) go(project);
          }}
        >
          <h2 id="open-title">Open a project</h2>
          <label for="project-id">Project id</label>
          <input id="project-id" class="mono" required placeholder="prj_…" value={projectId} onInput={(e) => setProjectId(e.currentTarget.value)} spellcheck={false} />
          <ErrorNotice error={open.error instanceof ApiError && open.error.code === 'NOT_FOUND' ? new Error('No project has that id.') : open.error} />
          <button type="submit" class="primary" disabled={open.busy || !projectId.trim()}>
            Open
          </button>
          {recent.length ? (
            <>
              <h3>Recently opened</h3>
              <ul class="plain">
                {recent.map((p) => (
                  <li key={p.projectId} class="row-between">
                    <a href={`#/projects/${enc(p.projectId)}/integrations`} onClick={() => rememberProject(p)}>
                      {p.name} <span class="muted mono small">{p.projectId}</span>
                    </a>
                    <button
                      type="button"
                      class="link small"
                      aria-label={`Forget ${p.name}`}
                      onClick={() => {
                        forgetProject(p.projectId);
                        setRecent(recentProjects());
                      }}
                    >
                      Forget
                    </button>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </form>

        <form
          class="card"
          aria-labelledby="create-title"
          onSubmit={async (e) => {
            e.preventDefault();
            const project = await create.run(() =>
              api.post<Project>('/projects', { name: form.name.trim(), companyId: Number(form.companyId), monthlyBotCredits: Number(form.monthlyBotCredits || 0) }),
            );
            if (project) go(project);
          }}
        >
          <h2 id="create-title">Create a project</h2>
          <label for="new-name">Name</label>
          <input id="new-name" required maxLength={200} value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
          <label for="new-company">Company id</label>
          <input id="new-company" required type="number" min={1} step={1} inputMode="numeric" value={form.companyId} onInput={(e) => setForm({ ...form, companyId: e.currentTarget.value })} />
          <label for="new-credits">Monthly bot credits</label>
          <input id="new-credits" type="number" min={0} step={1} inputMode="numeric" value={form.monthlyBotCredits} onInput={(e) => setForm({ ...form, monthlyBotCredits: e.currentTarget.value })} />
          <ErrorNotice error={create.error} />
          <button type="submit" class="primary" disabled={create.busy}>
            Create project
          </button>
        </form>
      </div>
    </section>
  );
}
