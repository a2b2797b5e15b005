/**
 * The site: what the deployment serves besides the API (the console, the portal page, the API reference and the
 * OpenAPI document), with the console's security headers. The only way into the area.
 */
export { siteOperationDocs } from './api/site-routes.ts';
export { siteSettings } from './settings.ts';
export { wireSite } from './wiring.ts';
