/** The credits area's wire: its admin route and answer schemas. */
export { usageHandlers, usageRoutes } from './admin-routes.ts';
export { botCreditUsage, botCredits } from './schemas.ts';
