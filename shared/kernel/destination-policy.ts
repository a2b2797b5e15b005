/**
 * Which network addresses a webhook may be delivered to (the SSRF guard, docs/reference/webhooks.md). Customer URLs are
 * untrusted: a URL (or a DNS name that resolves, or later re-resolves, to an address) inside our own network
 * would let a customer make the delivery worker call internal services or the cloud metadata endpoint. The check
 * runs on the address actually connected to (see `shared/kernel/adapters/guarded-lookup.ts`), never on the URL text.
 *
 * Pure functions over address text; every textual form is normalised first: IPv4 in decimal, octal, hex and
 * shortened forms (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), IPv6 with zones and brackets, and IPv6
 * addresses that embed an IPv4 one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`), which are judged by the IPv4 address inside.
 */

export type ForbiddenReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'reserved'
  | 'unspecified';

interface Range4 {
  base: number;
  bits: number;
  reason: ForbiddenReason;
}

const v4 = (cidr: string, reason: ForbiddenReason): Range4 => {
  const [addr, bits] = cidr.split('/') as [string, string];
  return { base: parseIPv4(addr)!, bits: Number(bits), reason };
};

// Most specific first: the first match names the reason.
const FORBIDDEN_V4: Range4[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure IMDS
  v4('169.254.170.2/32', 'metadata'), // ECS task metadata
  v4('168.63.129.16/32', 'metadata'), // Azure wire server (public space, still internal)
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  v4('192.0.0.192/32', 'metadata'), // Oracle Cloud
  v4('0.0.0.0/32', 'unspecified'),
  v4('0.0.0.0/8', 'reserved'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'reserved'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'reserved'),
  v4('203.0.113.0/24', 'reserved'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

interface Range6 {
  base: bigint;
  bits: number;
  reason: ForbiddenReason;
}

const v6 = (cidr: string, reason: ForbiddenReason): Range6 => {
  const [addr, bits] = cidr.split('/') as [string, string];
  return { base: parseIPv6(addr)!, bits: Number(bits), reason };
};

const FORBIDDEN_V6: Range6[] = [
  v6('fd00:ec2::254/128', 'metadata'), // AWS IMDS over IPv6
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('64:ff9b:1::/48', 'private'), // local-use NAT64
  v6('100::/64', 'reserved'), // discard
  v6('2001::/23', 'reserved'), // IETF protocol assignments, Teredo included
  v6('2001:db8::/32', 'reserved'), // documentation
  v6('fc00::/7', 'private'), // unique local
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'private'), // site-local (deprecated)
  v6('ff00::/8', 'multicast'),
];

/** IPv6 prefixes whose low bits carry an IPv4 address that decides. */
const EMBEDS_V4: { base: bigint; bits: number; extract: (a: bigint) => number }[] = [
  { base: parseIPv6('::ffff:0:0')!, bits: 96, extract: (a) => Number(a & 0xffffffffn) }, // IPv4-mapped
  { base: parseIPv6('::ffff:0:0:0')!, bits: 96, extract: (a) => Number(a & 0xffffffffn) }, // IPv4-translated
  { base: 0n, bits: 96, extract: (a) => Number(a & 0xffffffffn) }, // IPv4-compatible (deprecated)
  { base: parseIPv6('64:ff9b::')!, bits: 96, extract: (a) => Number(a & 0xffffffffn) }, // NAT64
  { base: parseIPv6('2002::')!, bits: 16, extract: (a) => Number((a >> 80n) & 0xffffffffn) }, // 6to4
];

/**
 * Why `address` must not be connected to, or undefined when it is a public address. Text that is not an IP
 * address at all is refused as `reserved` (callers pass resolved addresses, never names).
 */
export function forbiddenAddressReason(address: string): ForbiddenReason | undefined {
  const text = stripBrackets(address);
  const four = parseIPv4(text);
  if (four !== undefined) return reasonV4(four);
  const six = parseIPv6(text);
  if (six === undefined) return 'reserved';
  if (six !== 0n && six !== 1n) {
    for (const embed of EMBEDS_V4) {
      if (inRange6(six, embed.base, embed.bits)) {
        const reason = reasonV4(embed.extract(six));
        if (reason) return reason;
        // NAT64 and 6to4 to a public IPv4 address are ordinary routes; mapped/compatible forms are that address.
        return undefined;
      }
    }
  }
  for (const range of FORBIDDEN_V6) if (inRange6(six, range.base, range.bits)) return range.reason;
  return undefined;
}

/**
 * Why a destination host, as a customer typed it (webhook URL host, SMTP host, provider base URL), is refused
 * before anything is resolved: an IP literal in any form that {@link forbiddenAddressReason} refuses, or a name
 * that always means this machine (`localhost`, `*.localhost`). Undefined for any other name: a name is judged on
 * the addresses it resolves to when the connection is made (see `guarded-lookup.ts`), since DNS can change.
 */
export function forbiddenHostReason(host: string): ForbiddenReason | undefined {
  const name = stripBrackets(host).toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  return isIpLiteral(name) ? forbiddenAddressReason(name) : undefined;
}

/** True when `address` is an IP literal in any textual form this module understands. */
export function isIpLiteral(address: string): boolean {
  const text = stripBrackets(address);
  return parseIPv4(text) !== undefined || parseIPv6(text) !== undefined;
}

function reasonV4(address: number): ForbiddenReason | undefined {
  for (const range of FORBIDDEN_V4) if (inRange4(address, range.base, range.bits)) return range.reason;
  return undefined;
}

function inRange4(address: number, base: number, bits: number): boolean {
  if (bits === 0) return true;
  const mask = bits === 32 ? 0xffffffff : (~0 << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === (base & mask) >>> 0;
}

function inRange6(address: bigint, base: bigint, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return address >> shift === base >> shift;
}

function stripBrackets(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
}

/**
 * IPv4 as a number, accepting what `inet_aton` accepts: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x);
 * the last part fills the remaining bytes (`127.1`, `2130706433`). Undefined when it is not such an address.
 */
export function parseIPv4(text: string): number | undefined {
  if (!/^[0-9a-fA-FxX.]+$/.test(text) || text.endsWith('.')) return undefined;
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = part.length === 1 ? 0 : parseInt(part.slice(1), 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  let result = 0;
  for (const v of values) result = result * 256 + v;
  return result * 2 ** (8 * lastBytes) + last;
}

/** IPv6 as a 128-bit number (zone ids ignored, embedded dotted IPv4 allowed); undefined when not IPv6. */
export function parseIPv6(text: string): bigint | undefined {
  let s = text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':') || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const lastPart = s.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(lastPart)) return undefined;
    const bytes = lastPart.split('.').map(Number);
    if (bytes.some((b) => b > 255)) return undefined;
    tail = [(bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!];
    const prefix = s.slice(0, lastColon + 1);
    s = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const groups = h.split(':');
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parseGroups(halves[0]!);
  const rest = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    groups = [...head, ...Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  } else {
    if (explicit !== 8) return undefined;
    groups = [...head, ...tail];
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}
