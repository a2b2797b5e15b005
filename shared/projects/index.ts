/**
 * Projects: a project, its store, its API token and its bot credit account, their management API and its
 * documentation. The only way into the area from outside it.
 */
export { DynamoProjectStore } from './adapters/dynamo-project-store.ts';
export { projectRouteDocs, projectRoutes } from './api/admin-routes.ts';
export { apiTokenState, project, projectPage, shownOnceToken } from './api/schemas.ts';
export { externalIdOf } from './external-id.ts';
export { makeProjectUseCases } from './manage-projects.ts';
export { type Project, requireProject } from './project.ts';
export { ProjectReadAhead } from './read-ahead.ts';
export { wireProjectAdmin, wireProjectLimiter } from './wiring.ts';
