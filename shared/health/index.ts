/** Health: the Bots API diagnostics (model and knowledge store probes, the balance), never generating anything. */
export { type DependencyProbe, type HealthReport, makeGetHealth } from './get-health.ts';
