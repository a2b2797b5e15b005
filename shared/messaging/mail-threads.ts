/** Longest Message-ID kept for threading (RFC 5322 allows 998 characters per line; real ones are under 100). */
const MAX_MESSAGE_ID = 500;

/**
 * The Message-IDs in a header value as written (`<id@host>`, brackets kept): `In-Reply-To`, `References` (several,
 * space-separated), or a bare `id@host` given without brackets. Ids over 500 characters are ignored.
 */
export function messageIdsIn(value: string): string[] {
  const bracketed = value.match(/<[^<>\s]+>/g);
  const ids = bracketed ?? (/^[^<>\s]+$/.test(value.trim()) ? [`<${value.trim()}>`] : []);
  return ids.filter((id) => id.length <= MAX_MESSAGE_ID);
}
