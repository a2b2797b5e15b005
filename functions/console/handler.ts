import { httpFunction } from '#shared/http/middleware.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { wireSite } from '#shared/site/index.ts';
import { platform as sitePlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = sitePlatform('console');
const projects = new DynamoProjectStore(platform.table);

/** `GET /console/…`, `/portal`, `/docs`, `/openapi.json`: the console and the API reference, from this deployment. */
export const handler = httpFunction(platform.logger).handler(
  wireSite(platform, {
    moduleUrl: import.meta.url,
    portalOrigins: async (projectId) => {
      const project = await projects.get(projectId);
      return project ? (project.portal?.allowedOrigins ?? []) : undefined;
    },
  }),
);
