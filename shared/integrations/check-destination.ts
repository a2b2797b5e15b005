import { ValidationError } from '../kernel/domain-error.ts';
import { forbiddenHostReason } from '../kernel/destination-policy.ts';
import { type AwsDestination, destinationProblems, type WebhookDestination } from './destination.ts';

/**
 * Without private destinations: https only, and no host the address policy refuses by its text (loopback,
 * private, link-local, metadata IP literals in any form, `localhost`). Names are judged again on the address
 * connected to, at each delivery.
 */
export function checkWebhookUrl(url: string, allowPrivateDestinations: boolean): void {
  if (!url) {
    throw new ValidationError('A webhook delivering over HTTP needs a url.', [
      { path: 'url', message: 'Required with destination type "http"', code: 'invalid_type' },
    ]);
  }
  if (allowPrivateDestinations) return;
  if (!url.startsWith('https://')) {
    throw new ValidationError('The webhook URL must use https://.', [
      { path: 'url', message: 'Must be an https:// URL', code: 'invalid_format' },
    ]);
  }
  const reason = forbiddenHostReason(new URL(url).hostname);
  if (reason) {
    throw new ValidationError('The webhook URL points at a destination this deployment does not allow.', [
      {
        path: 'url',
        message: `The host is a ${reason} address; webhooks go to public addresses only`,
        code: 'custom',
      },
    ]);
  }
}

/**
 * A destination's resource fields, by the rules of its service: the AWS ARN syntax of that service, SQS's queue URL
 * form, S3's bucket naming rules. Its role is not assumed here: only when delivering.
 */
export function checkWebhookDestination(destination: WebhookDestination, allowPrivateDestinations: boolean): void {
  const problems = destinationProblems(destination, allowPrivateDestinations);
  if (!problems.length) return;
  throw new ValidationError(
    'The destination is malformed.',
    problems.map((p) => ({ path: `destination.${p.path}`, message: p.message, code: 'invalid_format' })),
  );
}

/**
 * What a PATCH of `destination` changes: a move to `http` needs a `url` (sent, or kept from before); a move away drops
 * the URL. A `url` sent with a destination other than `http` is refused.
 */
export function movedWebhookDestination(
  current: { url: string; destination?: WebhookDestination },
  destination: WebhookDestination,
  url: string | undefined,
  allowPrivateDestinations: boolean,
): { destination: AwsDestination | undefined; url: string } {
  if (destination.type !== 'http') {
    if (url !== undefined) {
      throw new ValidationError('Only an http destination takes a url.', [
        { path: 'url', message: `Not allowed with destination type "${destination.type}"`, code: 'custom' },
      ]);
    }
    checkWebhookDestination(destination, allowPrivateDestinations);
    return { destination, url: '' };
  }
  const kept = (current.destination?.type ?? 'http') === 'http' ? current.url : '';
  checkWebhookUrl(url ?? kept, allowPrivateDestinations);
  return { destination: undefined, url: url ?? kept };
}
