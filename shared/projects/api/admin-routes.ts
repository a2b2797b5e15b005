import { externalIdOf } from '../external-id.ts';
import { type HttpEvent, json, noContent } from '#shared/http/types.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { botCredits as botCreditsBody } from '#shared/credits/index.ts';
import type { ProjectUseCases } from '../manage-projects.ts';
import type { Project } from '../project.ts';
import { apiTokenState, MAX_LIMITS, project, projectPage, shownOnceToken } from './schemas.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { pageQuery } from '#shared/http/pagination.ts';

const projectName = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));
/** Where the webhook notices are mailed. */
const contactEmail = z.email({ error: 'An email address' }).check(z.maxLength(254));

/**
 * The operator's limits on a project (requests a second): a number sets one, null (or leaving it out on create) is the
 * deployment's default. The highest values are what the data layout takes for one project (docs/reference/limits.md).
 */
const perSecond = (max: number) => z.nullable(z.number().check(z.int(), z.gte(1), z.lte(max)));
const limitsBody = z.nullable(
  z.strictObject({
    sendsPerSecond: z.optional(perSecond(MAX_LIMITS.sendsPerSecond)),
    eventsPerSecond: z.optional(perSecond(MAX_LIMITS.eventsPerSecond)),
  }),
);

const createProjectBody = z.strictObject({
  companyId: z.number().check(z.int(), z.gt(0)),
  name: projectName,
  monthlyBotCredits: z._default(z.number().check(z.int(), z.gte(0), z.lte(1_000_000_000)), 0),
  contactEmail: z.optional(contactEmail),
  limits: z.optional(limitsBody),
});

/**
 * An origin that may frame the console: `https://host[:port]`, nothing after it (a framing page is named by its
 * origin alone); plain `http://` only for this machine, where a local run serves the console.
 */
const frameOrigin = z.string().check(
  z.maxLength(200),
  z.regex(/^(https:\/\/[a-z0-9.-]+(:\d{1,5})?|http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?)$/, {
    message: 'An origin: https://host[:port], without a path',
  }),
);
const portalBody = z.nullable(z.strictObject({ allowedOrigins: z.array(frameOrigin).check(z.maxLength(20)) }));

const patchProjectBody = z.strictObject({
  name: z.optional(projectName),
  monthlyBotCredits: z.optional(z.number().check(z.int(), z.gte(0), z.lte(1_000_000_000))),
  portal: z.optional(portalBody),
  contactEmail: z.optional(z.nullable(contactEmail)),
  limits: z.optional(limitsBody),
});

const amountBody = z.strictObject({ amount: z.number().check(z.int(), z.gt(0), z.lte(1_000_000_000)) });

const projectView = (p: Project) => ({
  projectId: p.projectId,
  companyId: p.companyId,
  name: p.name,
  monthlyBotCredits: p.monthlyBotCredits,
  contactEmail: p.contactEmail ?? null,
  limits: { sendsPerSecond: p.limits?.sendsPerSecond ?? null, eventsPerSecond: p.limits?.eventsPerSecond ?? null },
  externalId: externalIdOf(p),
  portal: { allowedOrigins: p.portal?.allowedOrigins ?? [] },
});

const creditsView = (c: { available: number; month: string }) => ({ disponivel: c.available, mes: c.month });

/** Projects, the project API token and bot credits. */
export const projectRoutes = {
  createProject: route({ method: 'POST', path: '/projects', body: createProjectBody }),
  listProjects: route({ method: 'GET', path: '/projects', query: pageQuery }),
  apiTokenState: route({ method: 'GET', path: '/projects/{projectId}/api-token' }),
  getProject: route({ method: 'GET', path: '/projects/{projectId}' }),
  updateProject: route({ method: 'PATCH', path: '/projects/{projectId}', body: patchProjectBody }),
  issueApiToken: route({ method: 'POST', path: '/projects/{projectId}/api-token' }),
  revokeApiToken: route({ method: 'DELETE', path: '/projects/{projectId}/api-token' }),
  botCredits: route({ method: 'GET', path: '/projects/{projectId}/bot-credits' }),
  grantBotCredits: route({ method: 'POST', path: '/projects/{projectId}/bot-credits', body: amountBody }),
};

/** The project routes in the API reference (the OpenAPI document): what the declarations above cannot tell. */
export function projectRouteDocs(): RouteDocs<typeof projectRoutes> {
  return {
    createProject: {
      operationId: 'createProject',
      summary: 'Create a project',
      description:
        'A project holds channels, integrations, bots and one API token. `monthlyBotCredits` is the monthly bot credit allowance (default 0). ' +
        "`limits` (`sendsPerSecond`, `eventsPerSecond`) caps the project's sends and reported events a second; a limit left out or null is the deployment's default (100 and 1,000).",
      tags: ['Projects'],
      responses: { 201: { description: 'The project.', body: project } },
    },
    listProjects: {
      operationId: 'listProjects',
      summary: 'List projects, newest first',
      description:
        'Every project of the deployment, newest first, a page at a time (`limit`, then `cursor` = `nextCursor`).',
      tags: ['Projects'],
      responses: { 200: { description: 'A page of projects.', body: projectPage } },
    },
    apiTokenState: {
      operationId: 'getApiTokenStatus',
      summary: 'Whether the project has an API token',
      description: 'Never returns the token: it was shown once, when created.',
      tags: ['Projects'],
      responses: { 200: { description: 'The token state.', body: apiTokenState } },
    },
    getProject: {
      operationId: 'getProject',
      summary: 'Get a project',
      description: 'The project by id; 404 `NOT_FOUND` when there is none.',
      tags: ['Projects'],
      responses: { 200: { description: 'The project.', body: project } },
    },
    updateProject: {
      operationId: 'updateProject',
      summary: "Change a project's name, contact email or limits",
      description:
        '`name`, `contactEmail` (where the webhook notices `webhook.failing` and `webhook.disabled` are mailed; `null` ' +
        "removes it), `limits` (each limit sent is set, `null` gives it back to the deployment's default, `limits: null` " +
        'gives all of them back; a change reaches every request within 10 seconds); a field not sent is unchanged.',
      tags: ['Projects'],
      responses: { 200: { description: 'The project after the change.', body: project } },
    },
    issueApiToken: {
      operationId: 'createApiToken',
      summary: 'Create or replace the project API token (shown once)',
      description:
        'Issues a new `sbk_` token for the Bots API and the other public APIs; any earlier token stops working at once.',
      tags: ['Projects'],
      responses: { 201: { description: 'The token, shown once.', body: shownOnceToken } },
      errors: { 409: ['CONFLICT'] },
    },
    revokeApiToken: {
      operationId: 'revokeApiToken',
      summary: 'Revoke the project API token',
      description: 'The token answers 401 `ERR_API_TOKEN_INVALID` from the next request on.',
      tags: ['Projects'],
      responses: { 204: { description: 'Revoked (or there was none).' } },
    },
    botCredits: {
      operationId: 'getBotCredits',
      summary: 'Bot credits left this month',
      description: "The month's bot credits left (`disponivel`) and the month (`MM/YYYY`, UTC).",
      tags: ['Projects'],
      responses: { 200: { description: "The month's balance.", body: botCreditsBody } },
    },
    grantBotCredits: {
      operationId: 'grantBotCredits',
      summary: 'Grant bot credits for the current month',
      description: "Adds `amount` credits to the current month's balance only; the monthly allowance is unchanged.",
      tags: ['Projects'],
      responses: { 200: { description: "The month's balance after the grant.", body: botCreditsBody } },
    },
  };
}

/**
 * What serves the project routes. `ownProjectOf` is the one project a caller acts on (a project key or portal
 * session), undefined for the operator: such a caller sees its own project alone in the listing.
 */
export function projectHandlers(
  projects: ProjectUseCases,
  ownProjectOf: (event: HttpEvent) => string | undefined,
): RouteHandlers<typeof projectRoutes> {
  return {
    createProject: async ({ body }) => json(201, projectView(await projects.createProject(body))),
    listProjects: async ({ event, query }) => {
      const own = ownProjectOf(event);
      if (own !== undefined) return json(200, { items: [projectView(await projects.requireProject(own))] });
      const page = await projects.listProjects(query);
      return json(200, { ...page, items: page.items.map(projectView) });
    },
    apiTokenState: async ({ params }) => json(200, await projects.apiTokenState(params.projectId)),
    getProject: async ({ params }) => json(200, projectView(await projects.requireProject(params.projectId))),
    updateProject: async ({ params, body }) =>
      json(200, projectView(await projects.updateProject(params.projectId, body))),
    issueApiToken: async ({ params }) =>
      json(201, { token: await projects.issueApiToken(params.projectId) }, { 'cache-control': 'no-store' }),
    revokeApiToken: async ({ params }) => {
      await projects.revokeApiToken(params.projectId);
      return noContent();
    },
    botCredits: async ({ params }) => json(200, creditsView(await projects.botCredits(params.projectId))),
    grantBotCredits: async ({ params, body }) =>
      json(200, creditsView(await projects.grantBotCredits(params.projectId, body.amount))),
  };
}
