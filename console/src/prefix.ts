/**
 * Where the service's paths start, as seen from the page: empty behind a custom domain or locally, the stage
 * (`/prod`) at API Gateway's own address. The page is `<prefix>/console/…`, `<prefix>/portal` or `<prefix>/docs`.
 */
export function servicePrefix(pathname = window.location.pathname): string {
  return pathname.replace(/\/(console(\/.*)?|portal\/?|docs\/?)$/, '');
}
