import { BOTS_API_AUTH_ERRORS, type PublicOperationDocs } from '#shared/contract/api-docs.ts';
import { json, type HttpEvent, type HttpResult } from '#shared/http/types.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import type { HealthReport } from '../get-health.ts';
import { healthResult } from './schemas.ts';

/** `GET /api/v1/ai/health` once the project API token passed: the report in the wire's words. */
export function healthHandler(getHealth: (grant: ProjectApiTokenGrant) => Promise<HealthReport>) {
  return async function serveHealth(event: HttpEvent<unknown, { grant: ProjectApiTokenGrant }>): Promise<HttpResult> {
    const report = await getHealth(event.auth.grant);
    const botrag = {
      ok: report.botrag.ok,
      latenciaMs: report.botrag.latencyMs,
      ...(report.botrag.detail ? { detalhe: report.botrag.detail } : {}),
    };
    return json(200, {
      success: true,
      companyId: report.companyId,
      botrag,
      creditos: { disponivel: report.credits.available, mes: report.credits.month },
      checkedAt: report.checkedAt,
    });
  };
}

/** The route in the API reference (the OpenAPI document). */
export function healthOperationDocs(): PublicOperationDocs {
  return {
    'GET /api/v1/ai/health': {
      operationId: 'getAiHealth',
      summary: "Diagnostics and the month's bot credits (free)",
      description:
        'Never calls the model to generate. `botrag.ok: false` means the AI service is down (retry later); `success` stays true.',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      responses: { 200: { description: 'The diagnostics.', body: healthResult } },
      errors: BOTS_API_AUTH_ERRORS,
    },
  };
}
