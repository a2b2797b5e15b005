import type { JSX } from 'preact';
import { ApiError, enc, type Api } from '../api.ts';
import { match } from '../router.ts';
import type { Project } from '../types.ts';
import { ErrorNotice, Loading, useLoad } from '../ui.tsx';
import { ApiTokenPage } from './api-token.tsx';
import { BotsPage } from './bots.tsx';
import { ChannelsPage } from './channels.tsx';
import { IntegrationDetail } from './integration-detail.tsx';
import { IntegrationsPage } from './integrations.tsx';
import { NewIntegration } from './new-integration.tsx';
import { AccessPage } from './access.tsx';
import { AuditLogPage } from './audit.tsx';
import type { Role } from '../api.ts';
import { useCan } from '../access.tsx';

/** The tabs, each with the least role that may open it (the API refuses the rest anyway). */
const TABS: readonly { id: string; label: string; need: Role }[] = [
  { id: 'integrations', label: 'Integrations', need: 'viewer' },
  { id: 'api-token', label: 'API token & credits', need: 'viewer' },
  { id: 'channels', label: 'Channels', need: 'viewer' },
  { id: 'bots', label: 'Bots', need: 'viewer' },
  { id: 'audit', label: 'Audit log', need: 'developer' },
  { id: 'access', label: 'Access', need: 'admin' },
];

/** A project's Settings: the tabs and the screen under them. */
export function ProjectSettings({ api, projectId, path }: { api: Api; projectId: string; path: string }) {
  const project = useLoad(() => api.get<Project>(`/projects/${enc(projectId)}`), [api, projectId]);
  const can = { viewer: true, developer: useCan('developer'), admin: useCan('admin'), operator: useCan('operator') };
  const tabs = TABS.filter((t) => can[t.need]);

  if (project.error) {
    const missing = project.error instanceof ApiError && project.error.code === 'NOT_FOUND';
    return (
      <section>
        <h1>{missing ? 'Project not found' : 'Project'}</h1>
        <ErrorNotice error={missing ? new Error(`No project has the id ${projectId}.`) : project.error} />
        <a href="#/">Back to projects</a>
      </section>
    );
  }
  if (!project.data) return <Loading what="the project" />;

  const base = `/projects/${enc(projectId)}`;
  const tab = tabs.find((t) => path.startsWith(`${base}/${t.id}`))?.id ?? 'integrations';
  const params = match(`${base}/integrations/:integrationId`, path);
  let screen: JSX.Element;
  if (match(`${base}/integrations/new`, path) && can.developer)
    screen = <NewIntegration api={api} projectId={projectId} />;
  else if (params) screen = <IntegrationDetail api={api} projectId={projectId} integrationId={params.integrationId!} />;
  else if (tab === 'api-token') screen = <ApiTokenPage api={api} projectId={projectId} />;
  else if (tab === 'channels') screen = <ChannelsPage api={api} projectId={projectId} />;
  else if (tab === 'bots') screen = <BotsPage api={api} projectId={projectId} />;
  else if (tab === 'audit') screen = <AuditLogPage api={api} projectId={projectId} />;
  else if (tab === 'access') screen = <AccessPage api={api} projectId={projectId} />;
  else screen = <IntegrationsPage api={api} projectId={projectId} />;

  return (
    <div>
      <p class="project-line">
        <span class="muted">Project</span> <strong>{project.data.name}</strong>{' '}
        <span class="mono muted small">{project.data.projectId}</span>
        <span class="muted small"> · company {project.data.companyId}</span>
        <span class="muted small" data-limits>
          {' '}
          · {limitText(project.data.limits.sendsPerSecond, 'sends')} ·{' '}
          {limitText(project.data.limits.eventsPerSecond, 'reported events')}
        </span>
      </p>
      <nav class="tabs" aria-label="Settings">
        <span class="tabs-title">Settings</span>
        <ul>
          {tabs.map((t) => (
            <li key={t.id}>
              <a href={`#${base}/${t.id}`} aria-current={t.id === tab ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {screen}
    </div>
  );
}

/** A project's limit as the console shows it: the operator's number, or the deployment's default. */
function limitText(perSecond: number | null, what: string): string {
  return perSecond === null
    ? `${what}: the deployment's default a second`
    : `${perSecond.toLocaleString('en-US')} ${what} a second`;
}
