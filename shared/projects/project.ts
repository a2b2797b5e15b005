import { NotFoundError } from '../kernel/domain-error.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

/** A customer project: the unit that owns channels, integrations, bots, the API token and bot credits. */
export interface Project {
  projectId: string;
  companyId: number;
  name: string;
  monthlyBotCredits: number;
  /** Where the webhook notices are mailed; absent: nobody is mailed. */
  contactEmail?: string;
  /** The operator's own limits for this project; a limit not set is the deployment's default. */
  limits?: ProjectLimits;
  /** Named when the service assumes a role the customer granted it (see external-id.ts); absent on older projects. */
  externalId?: string;
  /** The console's portal: which origins may frame it (none by default). */
  portal?: ProjectPortal;
  createdAt: string;
}

/** Origins (`https://app.example.com`) whose pages may embed the console opened by a portal link. */
export interface ProjectPortal {
  allowedOrigins: string[];
}

/** Requests a second the project may make, per kind; each absent one is the deployment's default. */
export interface ProjectLimits {
  sendsPerSecond?: number;
  eventsPerSecond?: number;
}

/** Limits as a request changes them: a number sets one, null gives it back to the deployment's default. */
export type ProjectLimitsChange = { [K in keyof ProjectLimits]?: number | null };

/** What `PATCH /projects/{p}` may change; `contactEmail: null` removes it; `limits` change field by field. */
export interface ProjectChanges {
  name?: string;
  monthlyBotCredits?: number;
  portal?: ProjectPortal | null;
  contactEmail?: string | null;
  limits?: ProjectLimitsChange | null;
}

/** The project's limits after `change` (null: all back to the defaults); undefined when none is left set. */
export function changedLimits(
  current: ProjectLimits | undefined,
  change: ProjectLimitsChange | null,
): ProjectLimits | undefined {
  const next: ProjectLimits = change === null ? {} : { ...current };
  for (const [field, value] of Object.entries(change ?? {}) as [keyof ProjectLimits, number | null | undefined][]) {
    if (value === null) delete next[field];
    else if (value !== undefined) next[field] = value;
  }
  return Object.keys(next).length ? next : undefined;
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
  /**
   * Applies changes to an existing project and returns it; undefined when it does not exist. `limits` is the whole
   * new map (undefined: unchanged; null: none left).
   */
  update(
    projectId: string,
    changes: Omit<ProjectChanges, 'limits'> & { limits?: ProjectLimits | null },
  ): Promise<Project | undefined>;
  /** Projects, newest first. */
  list(page: PageRequest): Promise<ProjectPage>;
  /**
   * What the project's API token must grant: the allowance, how many times it was changed (`revision`, so a late
   * writer does not undo a newer change), and the current token's hash, if any; one strongly consistent read.
   */
  apiTokenAllowance(
    projectId: string,
  ): Promise<{ monthlyBotCredits: number; revision: number; apiTokenHash?: string } | undefined>;
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
