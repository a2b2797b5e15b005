import { isIP } from 'node:net';

/**
 * Whether a host names this machine or a private, link-local or metadata network by its literal form (IP literal
 * or `localhost`). Used when a channel's provider is configured: a deployment that does not allow private
 * destinations refuses them there. (A host name that resolves to a private address is not caught here.)
 */
export function isPrivateHostLiteral(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const family = isIP(h);
  if (family === 4) {
    const [a, b] = h.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (family === 6) {
    if (h === '::' || h === '::1') return true;
    if (
      h.startsWith('fe8') ||
      h.startsWith('fe9') ||
      h.startsWith('fea') ||
      h.startsWith('feb') ||
      h.startsWith('fc') ||
      h.startsWith('fd')
    )
      return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped ? isPrivateHostLiteral(mapped[1]!) : false;
  }
  return false;
}
