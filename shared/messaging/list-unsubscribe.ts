import { timingSafeEqual } from 'node:crypto';
import type { Channel } from './channel.ts';

/**
 * The per-recipient unsubscribe address every mail of a channel carries in `List-Unsubscribe` (RFC 2369): the
 * channel's own mailbox with a tag, `<local>+unsub-<token>@<domain>`, where the token is a keyed digest of the
 * recipient under a key derived for that channel alone. Mail to the tagged address reaches the channel like any mail
 * to its mailbox (the tag is dropped to find the channel), and it is an unsubscribe of the recipient it was made for
 * when its sender is that recipient: nobody else can compute the address (it is in the recipient's copy only), and a
 * token of one channel means nothing on another, even at the same mailbox.
 *
 * Nothing is stored: the address is recomputed from the channel and the sender when a mail arrives.
 */
export interface ListUnsubscribe {
  /** The headers a channel's mail to `recipient` carries (`List-Unsubscribe`). */
  headers(channel: Pick<Channel, 'channelId' | 'address'>, recipient: string): Record<string, string>;
  /** Whether `address` is the channel's unsubscribe address for `recipient` (any case). */
  isAddressOf(channel: Pick<Channel, 'channelId' | 'address'>, address: string, recipient: string): boolean;
}

/** What keys the tokens: a keyed digest per context (the deployment's SecretBox). */
export interface UnsubscribeKeys {
  mac(value: string, context: string): Buffer;
}

/** The tag between the mailbox's local part and the token. */
const TAG = '+unsub-';
/** Token length: 26 base32 characters, 128 bits of the digest (lowercase: some mail systems lowercase addresses). */
const TOKEN_CHARS = 26;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const TAGGED = new RegExp(`^([^@\\s]+)\\${TAG}([a-z2-7]{${TOKEN_CHARS}})@([^@\\s]+)$`, 'i');

/** The subject of the mail the `List-Unsubscribe` mailto makes (mail clients fill it in). */
export const UNSUBSCRIBE_SUBJECT = 'unsubscribe';

export function makeListUnsubscribe(keys: UnsubscribeKeys): ListUnsubscribe {
  const tokenOf = (channelId: string, recipient: string): string =>
    base32(keys.mac(recipient.trim().toLowerCase(), `list-unsubscribe\n${channelId}`)).slice(0, TOKEN_CHARS);

  return {
    headers(channel, recipient) {
      const at = channel.address.lastIndexOf('@');
      const address = `${channel.address.slice(0, at)}${TAG}${tokenOf(channel.channelId, recipient)}${channel.address.slice(at)}`;
      return { 'List-Unsubscribe': `<mailto:${address}?subject=${UNSUBSCRIBE_SUBJECT}>` };
    },

    isAddressOf(channel, address, recipient) {
      const tagged = TAGGED.exec(address.trim());
      if (!tagged) return false;
      if (`${tagged[1]}@${tagged[3]}`.toLowerCase() !== channel.address.trim().toLowerCase()) return false;
      const given = Buffer.from(tagged[2]!.toLowerCase());
      const expected = Buffer.from(tokenOf(channel.channelId, recipient));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/**
 * The mailbox an address is delivered to: a channel's unsubscribe address (`local+unsub-<token>@domain`) belongs to
 * the mailbox `local@domain`; any other address is its own mailbox.
 */
export function mailboxOf(address: string): string {
  const tagged = TAGGED.exec(address.trim());
  return tagged ? `${tagged[1]}@${tagged[3]}` : address;
}

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}
