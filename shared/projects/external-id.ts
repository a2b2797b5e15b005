import { createHash, randomBytes } from 'node:crypto';

/**
 * The external id the service names when it assumes a role a customer granted it (a webhook delivering into their
 * AWS account): their role's trust policy requires it, so no other project's webhooks can use their role through us.
 * It is not a secret; it is made with the project and never changes.
 */
export function newExternalId(): string {
  return `sbx_${randomBytes(18).toString('base64url')}`;
}

/** A project made before external ids existed: one derived from its id, stable and its own. */
export function externalIdOf(project: { projectId: string; externalId?: string }): string {
  return (
    project.externalId ??
    `sbx_${createHash('sha256').update(`external-id:${project.projectId}`).digest('base64url').slice(0, 24)}`
  );
}
