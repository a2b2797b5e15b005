/**
 * The console's security headers: the page talks only to its own origin (the management API) and runs only its own
 * files. `frameAncestors` are the origins that may frame it (a project's `portal.allowedOrigins`): none by default,
 * and then `X-Frame-Options: DENY` too for browsers without CSP. `uploadOrigins` (the object store) join
 * `connect-src` (knowledge uploads go straight there) and `img-src` (received images are previewed from it).
 */
export function consoleHeaders(options: {
  frameAncestors?: readonly string[];
  uploadOrigins?: readonly string[];
}): Record<string, string> {
  const uploads = options.uploadOrigins?.length ? ` ${options.uploadOrigins.join(' ')}` : '';
  const ancestors = options.frameAncestors?.length ? options.frameAncestors.join(' ') : "'none'";
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${uploads}`,
    `connect-src 'self'${uploads}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(options.frameAncestors?.length ? {} : { 'x-frame-options': 'DENY' }),
  };
}
