/** An item as DynamoDB's wire protocol writes it: attribute name → `{ S: … }`, `{ N: … }`, `{ M: … }`... */
export type AttributeValue = Record<string, unknown>;
export type AttributeMap = Record<string, AttributeValue>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * An item's size as DynamoDB counts it for capacity (AWS documentation, "Item sizes and formats"): each attribute's
 * name in UTF-8 bytes plus its value; a string in UTF-8 bytes, a number about one byte per two significant digits
 * plus one, binary in bytes, a boolean or null one byte, a list or map 3 bytes plus one per element plus the
 * elements (a map's names counted too).
 */
export function itemSize(item: AttributeMap): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8(name) + valueSize(value);
  return size;
}

function valueSize(value: AttributeValue): number {
  const [type, v] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return utf8(String(v));
    case 'N':
      return numberSize(String(v));
    case 'B':
      return binarySize(v);
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (v as string[]).reduce((n, s) => n + utf8(s), 0);
    case 'NS':
      return (v as string[]).reduce((n, s) => n + numberSize(s), 0);
    case 'BS':
      return (v as unknown[]).reduce<number>((n, b) => n + binarySize(b), 0);
    case 'L':
      return 3 + (v as AttributeValue[]).reduce((n, e) => n + 1 + valueSize(e), 0);
    case 'M': {
      const entries = Object.entries(v as AttributeMap);
      return 3 + entries.reduce((n, [k, e]) => n + 1 + utf8(k) + valueSize(e), 0);
    }
    default:
      return 0;
  }
}

function numberSize(n: string): number {
  const digits = n.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(1, Math.ceil(digits.length / 2) + 1) + (n.startsWith('-') ? 1 : 0);
}

function binarySize(b: unknown): number {
  if (typeof b === 'string') return Buffer.from(b, 'base64').length;
  if (b instanceof Uint8Array) return b.length;
  return 0;
}

/** The attributes an index projects of an item (its keys, the table's keys, and what its projection names). */
export interface Projection {
  type: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** The attributes always projected: the table's keys and the index's keys. */
  keys: string[];
  /** INCLUDE: the other attributes projected. */
  include: string[];
}

export function projected(item: AttributeMap, projection: Projection): AttributeMap {
  if (projection.type === 'ALL') return item;
  const names = new Set([...projection.keys, ...(projection.type === 'INCLUDE' ? projection.include : [])]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name)));
}

/** Whether two images hold the same value for every projected attribute. */
export function sameProjection(a: AttributeMap, b: AttributeMap, projection: Projection): boolean {
  const pa = projected(a, projection);
  const pb = projected(b, projection);
  const names = new Set([...Object.keys(pa), ...Object.keys(pb)]);
  for (const name of names) if (JSON.stringify(pa[name]) !== JSON.stringify(pb[name])) return false;
  return true;
}
