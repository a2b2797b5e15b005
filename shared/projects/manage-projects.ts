import { newExternalId } from './external-id.ts';
import { hashToken } from '../kernel/tokens.ts';
import { generateToken } from '../auth/index.ts';
import type { TokenStore } from '../auth/index.ts';
import type { CreditLedger } from '../credits/index.ts';
import { monthLabel } from '../credits/index.ts';
import { ConflictError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import type { PageRequest } from '../kernel/page.ts';
import { NotFoundError } from '../kernel/domain-error.ts';
import {
  changedLimits,
  type Project,
  type ProjectChanges,
  type ProjectLimitsChange,
  type ProjectStore,
  requireProject,
} from './project.ts';

export interface ProjectDeps {
  projects: ProjectStore;
  tokens: TokenStore;
  credits: CreditLedger;
  now?: () => Date;
}

/** Projects, their one API token, and their bot credits: what the management API offers for the Bots API. */
/**
 * The project API token carries the monthly allowance (its requests read no project), so a change of the allowance
 * is copied onto the current token. Read after the change, with its revision: whichever of two concurrent changes
 * copies last, the token ends on the later one; a token revoked meanwhile stays revoked.
 */
async function copyAllowanceToToken(deps: Pick<ProjectDeps, 'projects' | 'tokens'>, projectId: string) {
  const current = await deps.projects.apiTokenAllowance(projectId);
  if (!current?.apiTokenHash) return;
  await deps.tokens.setMonthlyBotCredits(current.apiTokenHash, current.monthlyBotCredits, current.revision);
}

export function makeProjectUseCases(deps: ProjectDeps) {
  const now = deps.now ?? (() => new Date());

  const account = (p: Project) => ({ projectId: p.projectId, monthlyAllowance: p.monthlyBotCredits });

  return {
    requireProject: (projectId: string) => requireProject(deps.projects, projectId),

    /** The project's bot credit account (its monthly allowance): what the credits area keys balances by. */
    creditAccount: async (projectId: string) => account(await requireProject(deps.projects, projectId)),

    async createProject(input: {
      companyId: number;
      name: string;
      monthlyBotCredits: number;
      contactEmail?: string;
      limits?: ProjectLimitsChange | null;
    }): Promise<Project> {
      const { limits: asked, ...rest } = input;
      const limits = asked === undefined ? undefined : changedLimits(undefined, asked);
      const project: Project = {
        projectId: newId('prj'),
        ...rest,
        ...(limits ? { limits } : {}),
        externalId: newExternalId(),
        createdAt: now().toISOString(),
      };
      await deps.projects.create(project);
      return project;
    },

    /**
     * Changes a project's name, `monthlyBotCredits` (its API token follows at once), `contactEmail` (null removes it)
     * or `limits` (each limit sent is set, null gives it back to the deployment's default, `limits: null` all of them).
     */
    async updateProject(projectId: string, changes: ProjectChanges): Promise<Project> {
      const { limits: limitsChange, ...rest } = changes;
      const limits =
        limitsChange === undefined
          ? undefined
          : (changedLimits((await requireProject(deps.projects, projectId)).limits, limitsChange) ?? null);
      const project = await deps.projects.update(projectId, { ...rest, ...(limits === undefined ? {} : { limits }) });
      if (!project) throw new NotFoundError('project', `Project ${projectId} does not exist.`);
      if (changes.monthlyBotCredits !== undefined) await copyAllowanceToToken(deps, projectId);
      return project;
    },

    /**
     * Issues the project's API token, shown once, replacing any earlier one:
     * 1. delete the old token's grant (it fails from the very next request); 2. write the new grant; 3. record the
     * new hash on the project, only if no other request replaced or revoked the token meanwhile, else delete the
     * new grant and answer 409. The grant exists before the project names it, so a revoke that reads the new hash
     * finds the grant it must remove; a request that lost leaves nothing behind. A crash anywhere leaves no old
     * token alive; at worst the new one was never shown and the caller asks again.
     */
    async issueApiToken(projectId: string): Promise<string> {
      const project = await requireProject(deps.projects, projectId);
      const previous = await deps.projects.currentApiTokenHash(projectId);
      if (previous) await deps.tokens.delete(previous);
      const token = generateToken('projectApi');
      const tokenHash = hashToken(token);
      await deps.tokens.put(tokenHash, {
        kind: 'projectApi',
        projectId,
        companyId: project.companyId,
        monthlyBotCredits: project.monthlyBotCredits,
      });
      if (!(await deps.projects.swapApiTokenHash(projectId, previous, tokenHash, now()))) {
        await deps.tokens.delete(tokenHash);
        throw new ConflictError('The API token was changed by another request at the same time; try again.');
      }
      // An allowance change between the project's read and the swap copied itself onto the old token, not this one.
      await copyAllowanceToToken(deps, projectId);
      return token;
    },

    /**
     * Revokes the API token: the grant goes first, so the token fails at once even if the rest is interrupted. A
     * token issued meanwhile makes the conditional clear fail: read again and revoke that one too.
     */
    async revokeApiToken(projectId: string): Promise<void> {
      await requireProject(deps.projects, projectId);
      for (;;) {
        const current = await deps.projects.currentApiTokenHash(projectId);
        if (!current) return;
        await deps.tokens.delete(current);
        if (await deps.projects.swapApiTokenHash(projectId, current, undefined, now())) return;
      }
    },

    async apiTokenState(projectId: string) {
      await requireProject(deps.projects, projectId);
      return deps.projects.apiTokenState(projectId);
    },

    listProjects(page: PageRequest) {
      return deps.projects.list(page);
    },

    async botCredits(projectId: string) {
      const project = await requireProject(deps.projects, projectId);
      const at = now();
      const available = await deps.credits.available(account(project), at);
      return { available: Math.max(0, available), month: monthLabel(at) };
    },

    async grantBotCredits(projectId: string, amount: number) {
      const project = await requireProject(deps.projects, projectId);
      const at = now();
      const available = await deps.credits.grant(account(project), amount, at);
      return { available: Math.max(0, available), month: monthLabel(at) };
    },
  };
}

export type ProjectUseCases = ReturnType<typeof makeProjectUseCases>;
