// Writes the OpenAPI document to a file (default console/dist/openapi.json), for static hosting beside the console
// (S3 + CloudFront). The document comes from the running code: the local service is started with a throwaway data
// folder and asked for /openapi.json, exactly what `GET /openapi.json` serves locally.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService } from '#test/support/service.ts';

const target = resolve(process.argv[2] ?? fileURLToPath(new URL('../console/dist/openapi.json', import.meta.url)));
const svc = await startTestService();
try {
  const response = await fetch(`${svc.baseUrl}/openapi.json`);
  if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, await response.text());
  console.log(`wrote ${target}`);
} finally {
  await svc.close();
}
