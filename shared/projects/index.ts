/** Projects: a project, its store port, its API token and its bot credit account. */
export { externalIdOf, newExternalId } from './external-id.ts';
export { makeProjectUseCases, type ProjectDeps, type ProjectUseCases } from './manage-projects.ts';
export {
  type ApiTokenState,
  type Project,
  type ProjectLimits,
  type ProjectPage,
  type ProjectStore,
  requireProject,
} from './project.ts';
