import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Opaque id with a type prefix (`prj_`, `ch_`, `int_`, `bot_`, `evt_`, `msg_`, `dlv_`): 20 random base-36 chars (~103 bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}
