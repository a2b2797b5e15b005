import { fileURLToPath } from 'node:url';
import type { Platform } from '../kernel/platform.ts';
import { directoryFiles, firstBuilt } from './adapters/directory-files.ts';
import { siteHandler } from './api/site-routes.ts';
import { makeServeSite } from './serve-site.ts';
import { siteSettings } from './settings.ts';

/**
 * The console, the portal page, `/docs` and `/openapi.json` as the deployment serves them. `moduleUrl` is the
 * function's own module: its built files sit beside it (`site/`); a local run reads the repository's `console/dist`.
 * Which origins may frame a project's portal comes from the projects area.
 */
export function wireSite(
  platform: Pick<Platform, 'cfg'>,
  deps: {
    moduleUrl: string;
    portalOrigins(projectId: string): Promise<readonly string[] | undefined>;
    /** Default: this process's (`siteSettings.read()`). */
    settings?: ReturnType<typeof siteSettings.read>;
  },
) {
  const settings = deps.settings ?? siteSettings.read();
  const dir =
    settings.SITE_DIR ??
    firstBuilt([
      fileURLToPath(new URL('./site/', deps.moduleUrl)),
      fileURLToPath(new URL('../../console/dist/', deps.moduleUrl)),
    ]);
  const uploadOrigins = [
    ...(platform.cfg.S3_ENDPOINT ? [new URL(platform.cfg.S3_ENDPOINT).origin] : []),
    ...(settings.SITE_STORE_ORIGINS ?? []),
  ];
  return siteHandler(
    makeServeSite({
      files: directoryFiles(dir),
      portalOrigins: deps.portalOrigins,
      uploadOrigins,
      ...(platform.cfg.PUBLIC_BASE_URL ? { baseUrl: platform.cfg.PUBLIC_BASE_URL } : {}),
    }),
  );
}
