// Writes the OpenAPI documents, built in-process from the code (what `GET /openapi.json` serves; no service start):
//   tsx scripts/write-openapi.ts [target]   the full document (default console/dist/openapi.json), for static
//                                           hosting beside the console (S3 + CloudFront)
//   tsx scripts/write-openapi.ts --sdk      the SDK document, sdk/openapi.json (then `npm run sdk:generate`)
// `PUBLIC_BASE_URL`, when set, is listed first in `servers` (a deployment's own document: set it to the stack output
// `ApiBaseUrl`, or the custom domain in front of it, when writing the file served beside the console).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '#shared/contract/routes.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';

const sdk = process.argv.includes('--sdk');
const target = resolve(
  process.argv.slice(2).find((a) => !a.startsWith('--')) ??
    fileURLToPath(new URL(sdk ? '../sdk/openapi.json' : '../console/dist/openapi.json', import.meta.url)),
);
const { document, undocumented } = buildOpenApiDocument({
  adminRoutes,
  publicRoutes: routes,
  audience: sdk ? 'sdk' : 'full',
  ...(process.env.PUBLIC_BASE_URL && !sdk ? { serverUrl: process.env.PUBLIC_BASE_URL } : {}),
});
if (undocumented.length) throw new Error(`Routes without documentation: ${undocumented.join(', ')}`);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${target}`);
if (!sdk && !process.env.PUBLIC_BASE_URL)
  console.log('PUBLIC_BASE_URL is not set: `servers` starts with the local URL, not a deployment of yours');
