/**
 * Health: the Bots API diagnostics (model and knowledge store probes, the balance), never generating anything. The
 * only way into the area from outside it.
 */
export type { DependencyProbe } from './get-health.ts';
export { healthOperationDocs } from './api/health-route.ts';
export { healthResult } from './api/schemas.ts';
export { wireHealth } from './wiring.ts';
