import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { forbiddenAddressReason, type ForbiddenReason } from '../destination-policy.ts';

/** A destination refused by the SSRF guard: its name resolved only to addresses inside a private network. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDESTINATION';
  constructor(
    readonly host: string,
    readonly reason: ForbiddenReason,
  ) {
    super(`Destination ${host} resolves to a ${reason} address; refused`);
    this.name = 'ForbiddenDestinationError';
  }
}

type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for `net.connect` (pass it in http.Agent or request options) that resolves the name and hands the
 * socket only addresses the destination policy allows. The socket connects to exactly the address checked here,
 * so a name that resolves to a public address for a validator and to 127.0.0.1 a second later (DNS rebinding)
 * still cannot reach a private network: the check and the connect use the same answer.
 *
 * When every address is forbidden the connection fails with {@link ForbiddenDestinationError}; forbidden addresses
 * mixed with public ones are dropped. `allowPrivate` (local runs) turns the guard off. IP-literal hosts never go
 * through a lookup: check them with `forbiddenAddressReason` before connecting.
 */
export function guardedLookup(options: { allowPrivate: boolean; resolve?: Resolver }): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  return ((
    hostname: string,
    lookupOptions: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, lookupOptions.all ? [] : undefined, undefined);
      const family =
        lookupOptions.family === 4 || lookupOptions.family === 'IPv4'
          ? 4
          : lookupOptions.family === 6 || lookupOptions.family === 'IPv6'
            ? 6
            : 0;
      let usable = family ? addresses.filter((a) => a.family === family) : addresses;
      if (!options.allowPrivate) {
        const reasons = usable.map((a) => forbiddenAddressReason(a.address));
        const firstReason = reasons.find((r) => r !== undefined);
        usable = usable.filter((_, i) => reasons[i] === undefined);
        if (!usable.length && firstReason)
          return callback(
            new ForbiddenDestinationError(hostname, firstReason),
            lookupOptions.all ? [] : undefined,
            undefined,
          );
      }
      if (!usable.length) {
        const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
        return callback(notFound, lookupOptions.all ? [] : undefined, undefined);
      }
      if (lookupOptions.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  }) as unknown as LookupFunction;
}
