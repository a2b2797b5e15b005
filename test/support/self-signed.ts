import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A self-signed certificate for `localhost` and `127.0.0.1` (P-256, a day's validity), made with node:crypto alone:
 * what a test's HTTPS server presents to a browser told to ignore certificate errors. No CA signs it; it only lets
 * the test speak TLS, so that the browser treats the pages as secure (Secure cookies, `SameSite=None`, `Partitioned`).
 */
export function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = oid(1, 2, 840, 10045, 4, 3, 2);
  const name = seq(set(seq(oid(2, 5, 4, 3), der(0x0c, Buffer.from('Switchboard test')))));
  const now = Date.now();
  const altNames = seq(der(0x82, Buffer.from('localhost')), der(0x87, Buffer.from([127, 0, 0, 1])));
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.concat([Buffer.from([1]), randomBytes(8)])),
    seq(ecdsaWithSha256),
    name,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, seq(seq(oid(2, 5, 29, 17), der(0x04, altNames)))),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = seq(tbs, seq(ecdsaWithSha256), der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificate.toString('base64').replace(/.{1,64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${base64}-----END CERTIFICATE-----\n`,
  };
}

/** One DER element: tag, definite length, content. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));

function oid(first: number, second: number, ...rest: number[]): Buffer {
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(at: Date): Buffer {
  return der(0x17, Buffer.from(`${at.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));
}
