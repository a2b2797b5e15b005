import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import busboy from 'busboy';

/**
 * Browser uploads to the local S3 stand-in checked as S3 checks them, since fauxqs stores any form it
 * is posted: the SigV4 signature over the policy, the policy's expiry and every condition (exact values,
 * `starts-with`, `content-length-range`, the bucket), and no form field the policy does not name. What S3 answers
 * when a check fails is answered here too: its status, its error code and its XML body.
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html)
 */

/** A refusal as S3 words it: status, `<Code>`, `<Message>` and any extra elements (`ProposedSize`...). */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
  extra?: Record<string, string | number>;
}

/** A multipart form as S3 reads it: field names lowercased, fields after the file ignored, the file's size. */
export interface PostForm {
  fields: Map<string, string>;
  /** Bytes of the `file` part; undefined when the form has none. */
  fileBytes?: number;
  files: number;
}

/** Form fields S3 takes beside the file (it refuses a form whose fields pass 20 KB). */
const MAX_FIELDS_BYTES = 20 * 1024;

/** Reads a `multipart/form-data` body (already buffered) into a {@link PostForm}. Throws when it is not one. */
export function readPostForm(body: Buffer, contentType: string): Promise<PostForm> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let files = 0;
    let fileBytes: number | undefined;
    let fieldsBytes = 0;
    const parser = busboy({
      headers: { 'content-type': contentType },
      limits: { fieldSize: MAX_FIELDS_BYTES, fields: 200, files: 5, parts: 205 },
    });
    parser.on('field', (name, value) => {
      fieldsBytes += name.length + value.length;
      // S3 reads the fields before the file; what follows the file is not part of the form.
      if (files === 0) fields.set(name.toLowerCase(), value);
    });
    parser.on('file', (_name, stream) => {
      files += 1;
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      stream.on('end', () => {
        if (files === 1) fileBytes = bytes;
      });
    });
    parser.on('error', reject);
    parser.on('close', () => {
      if (fieldsBytes > MAX_FIELDS_BYTES) reject(new Error('form fields over 20 KB'));
      else resolve({ fields, files, ...(fileBytes === undefined ? {} : { fileBytes }) });
    });
    parser.end(body);
  });
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

export interface PostPolicyContext {
  /** The bucket the form was posted to (the URL's). */
  bucket: string;
  region: string;
  /** The secret key of an access key id (undefined: no such key). */
  secretFor(accessKeyId: string): string | undefined;
  now: Date;
}

/** The SigV4 signature of a POST policy: hex HMAC-SHA256 over the base64 policy with the derived signing key. */
export function postPolicySignature(
  secret: string,
  date: string,
  region: string,
  service: string,
  policyBase64: string,
): string {
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', signingKey).update(policyBase64, 'utf8').digest('hex');
}

const denied = (message: string): S3Refusal => ({ status: 403, code: 'AccessDenied', message });
const invalidArgument = (message: string): S3Refusal => ({ status: 400, code: 'InvalidArgument', message });
const invalidPolicy = (message: string): S3Refusal => ({ status: 400, code: 'InvalidPolicyDocument', message });
const policyFailed = (condition: unknown) =>
  denied(`Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);

/**
 * What S3 would refuse a browser's POST upload for, or undefined when it would store it. In S3's order: the form's
 * shape (a key, one file), the signature fields and the signature, the policy document, its expiry, each
 * condition, the fields no condition names, the file's size against `content-length-range`.
 */
export function checkPostPolicy(form: PostForm, context: PostPolicyContext): S3Refusal | undefined {
  const field = (name: string) => form.fields.get(name.toLowerCase());
  if (field('key') === undefined)
    return invalidArgument(
      "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
    );
  if (form.files !== 1 || form.fileBytes === undefined)
    return invalidArgument('POST requires exactly one file upload per request.');

  const policy = field('policy');
  const signature = field('x-amz-signature');
  // Neither: an anonymous write, which a private bucket refuses.
  if (policy === undefined && signature === undefined) return denied('Access Denied');
  for (const name of ['policy', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature'])
    if (field(name) === undefined)
      return invalidArgument(
        `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`,
      );
  if (field('x-amz-algorithm') !== ALGORITHM) return invalidArgument(`X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const scope = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(field('x-amz-credential')!);
  if (!scope) return invalidArgument('Invalid credential: the form must name <key>/<date>/<region>/s3/aws4_request.');
  const [, accessKeyId, date, region, service] = scope as unknown as [string, string, string, string, string];
  const secret = context.secretFor(accessKeyId);
  if (secret === undefined)
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    };
  if (region !== context.region || service !== 's3')
    return {
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: `Error parsing the X-Amz-Credential parameter; the region '${region}' is wrong; expecting '${context.region}'`,
    };
  const expected = Buffer.from(postPolicySignature(secret, date, region, service, policy!));
  const given = Buffer.from(signature!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };

  let document: { expiration?: unknown; conditions?: unknown };
  try {
    document = JSON.parse(Buffer.from(policy!, 'base64').toString('utf8'));
  } catch {
    return invalidPolicy('Invalid Policy: Invalid JSON.');
  }
  if (typeof document?.expiration !== 'string') return invalidPolicy('Invalid Policy: Policy missing expiration.');
  const expiration = Date.parse(document.expiration);
  if (Number.isNaN(expiration)) return invalidPolicy("Invalid Policy: Invalid 'expiration' value.");
  if (!Array.isArray(document.conditions)) return invalidPolicy('Invalid Policy: Policy missing conditions.');
  if (context.now.getTime() > expiration) return denied('Invalid according to Policy: Policy expired.');

  const named = new Set<string>();
  let range: [number, number] | undefined;
  for (const condition of document.conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const [operator, subject, value] = condition as [unknown, unknown, unknown];
      const op = String(operator).toLowerCase();
      if (op === 'content-length-range') {
        const [min, max] = [Number(subject), Number(value)];
        if (!Number.isInteger(min) || !Number.isInteger(max))
          return invalidPolicy('Invalid Policy: Invalid Condition.');
        range = [min, max];
        continue;
      }
      if ((op !== 'eq' && op !== 'starts-with') || typeof subject !== 'string' || !subject.startsWith('$'))
        return invalidPolicy(`Invalid Policy: Invalid Condition: ${JSON.stringify(condition)}`);
      const name = subject.slice(1).toLowerCase();
      named.add(name);
      const actual = name === 'bucket' ? context.bucket : (field(name) ?? '');
      const wanted = String(value ?? '');
      const holds =
        op === 'eq'
          ? actual === wanted
          : // A Content-Type may list several types: each must start with the prefix.
            (name === 'content-type' ? actual.split(',') : [actual]).every((v) => v.trim().startsWith(wanted));
      if (!holds) return policyFailed(condition);
      continue;
    }
    if (!condition || typeof condition !== 'object') return invalidPolicy('Invalid Policy: Invalid Condition.');
    for (const [key, value] of Object.entries(condition)) {
      const name = key.toLowerCase();
      named.add(name);
      const actual = name === 'bucket' ? context.bucket : field(name);
      if (actual !== String(value)) return policyFailed({ [key]: value });
    }
  }
  const extra = [...form.fields.keys()].filter(
    (name) => !named.has(name) && name !== 'policy' && name !== 'x-amz-signature' && !name.startsWith('x-ignore-'),
  );
  if (extra.length) return denied(`Invalid according to Policy: Extra input fields: ${extra.join(', ')}`);
  if (range) {
    const size = form.fileBytes;
    if (size > range[1])
      return {
        status: 400,
        code: 'EntityTooLarge',
        message: 'Your proposed upload exceeds the maximum allowed size',
        extra: { ProposedSize: size, MaxSizeAllowed: range[1] },
      };
    if (size < range[0])
      return {
        status: 400,
        code: 'EntityTooSmall',
        message: 'Your proposed upload is smaller than the minimum allowed size',
        extra: { ProposedSize: size, MinSizeAllowed: range[0] },
      };
  }
  return undefined;
}

/** S3's XML error body for a refusal. */
export function s3ErrorXml(refusal: S3Refusal): string {
  const xmlText = (text: string | number) => String(text).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const extra = Object.entries(refusal.extra ?? {})
    .map(([name, value]) => `<${name}>${xmlText(value)}</${name}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refusal.code}</Code><Message>${xmlText(refusal.message)}</Message>${extra}` +
    `<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId><HostId>local</HostId></Error>`
  );
}
