import { NotFoundError } from '../kernel/domain-error.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

/** A customer project: the unit that owns channels, integrations, bots, the API token and bot credits. */
export interface Project {
  projectId: string;
  companyId: number;
  name: string;
  monthlyBotCredits: number;
  /** Where the webhook notices are mailed (contract §18); absent: nobody is mailed. */
  contactEmail?: string;
  createdAt: string;
}

/** What `PATCH /projects/{p}` may change; `contactEmail: null` removes it. */
export interface ProjectChanges {
  name?: string;
  contactEmail?: string | null;
}

/** Whether a project has an API token, and since when; never the token or its hash. */
export interface ApiTokenState {
  active: boolean;
  issuedAt?: string;
}

export type ProjectPage = Page<Project>;

export interface ProjectStore {
  create(project: Project): Promise<void>;
  get(projectId: string): Promise<Project | undefined>;
  /** Applies changes to an existing project and returns it; undefined when it does not exist. */
  update(projectId: string, changes: ProjectChanges): Promise<Project | undefined>;
  /** Projects, newest first. */
  list(page: PageRequest): Promise<ProjectPage>;
  /** Hash of the project's current API token, if any. */
  currentApiTokenHash(projectId: string): Promise<string | undefined>;
  apiTokenState(projectId: string): Promise<ApiTokenState>;
  /**
   * Records `next` as the project's API token hash, only if the current one is still `expected`
   * (undefined = none). Returns false when another request changed it first.
   */
  swapApiTokenHash(
    projectId: string,
    expected: string | undefined,
    next: string | undefined,
    at: Date,
  ): Promise<boolean>;
}

/** The project, or NotFoundError (404 NOT_FOUND) when it does not exist: every management call starts here. */
export async function requireProject(projects: Pick<ProjectStore, 'get'>, projectId: string): Promise<Project> {
  const project = await projects.get(projectId);
  if (!project) throw new NotFoundError('project', `Project ${projectId} does not exist.`);
  return project;
}
