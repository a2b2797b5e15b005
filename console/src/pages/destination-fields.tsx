/** Where a webhook delivers: HTTP (its URL), or a queue, topic, bus, stream or bucket in the customer's AWS account. */
export type DestinationType = 'http' | 'sqs' | 'sns' | 'eventbridge' | 'kinesis' | 's3';
export type DestinationDraft = { type: DestinationType } & Record<string, string>;

const KINDS: { type: DestinationType; label: string; fields: { name: string; label: string; hint: string }[] }[] = [
  { type: 'http', label: 'HTTPS endpoint', fields: [] },
  {
    type: 'sqs',
    label: 'Amazon SQS queue',
    fields: [{ name: 'queueUrl', label: 'Queue URL', hint: 'https://sqs.<region>.amazonaws.com/<account>/<name>' }],
  },
  { type: 'sns', label: 'Amazon SNS topic', fields: [{ name: 'topicArn', label: 'Topic ARN', hint: 'arn:aws:sns:…' }] },
  {
    type: 'eventbridge',
    label: 'Amazon EventBridge bus',
    fields: [
      { name: 'eventBusArn', label: 'Event bus ARN', hint: 'arn:aws:events:<region>:<account>:event-bus/<name>' },
      { name: 'detailType', label: 'Detail type (optional)', hint: 'Default: the event type' },
    ],
  },
  {
    type: 'kinesis',
    label: 'Amazon Kinesis stream',
    fields: [{ name: 'streamArn', label: 'Stream ARN', hint: 'arn:aws:kinesis:<region>:<account>:stream/<name>' }],
  },
  {
    type: 's3',
    label: 'Amazon S3 bucket',
    fields: [
      { name: 'bucket', label: 'Bucket', hint: 'One object per event at <prefix><yyyy>/<mm>/<dd>/<eventId>.json' },
      { name: 'prefix', label: 'Key prefix (optional)', hint: 'Used as given, e.g. "switchboard/"' },
    ],
  },
];

/** The body's `destination`: the filled fields only (an optional one left empty is not sent). */
export function destinationBody(draft: DestinationDraft): Record<string, string> | undefined {
  if (draft.type === 'http') return undefined;
  return Object.fromEntries(
    Object.entries(draft)
      .filter(([, v]) => v.trim() !== '')
      .map(([k, v]) => [k, v.trim()]),
  );
}

/** The destination's kind and, for AWS ones, its resource and the role assumed with the project's external id. */
export function DestinationFields(props: {
  value: DestinationDraft;
  onChange: (next: DestinationDraft) => void;
  externalId?: string;
}) {
  const kind = KINDS.find((k) => k.type === props.value.type)!;
  const set = (name: string, value: string) => props.onChange({ ...props.value, [name]: value });
  return (
    <>
      <label for="destination-type">Deliver to</label>
      <select
        id="destination-type"
        value={props.value.type}
        onChange={(e) => props.onChange({ type: e.currentTarget.value as DestinationType })}
      >
        {KINDS.map((k) => (
          <option key={k.type} value={k.type}>
            {k.label}
          </option>
        ))}
      </select>
      {kind.fields.map((f) => (
        <>
          <label for={`destination-${f.name}`}>{f.label}</label>
          <input
            id={`destination-${f.name}`}
            required={!f.label.includes('optional')}
            value={props.value[f.name] ?? ''}
            placeholder={f.hint}
            onInput={(e) => set(f.name, e.currentTarget.value)}
          />
        </>
      ))}
      {props.value.type === 'http' ? null : (
        <>
          <label for="destination-roleArn">Role ARN</label>
          <input
            id="destination-roleArn"
            required
            value={props.value.roleArn ?? ''}
            placeholder="arn:aws:iam::<account>:role/<name>"
            onInput={(e) => set('roleArn', e.currentTarget.value)}
            aria-describedby="destination-role-hint"
          />
          <p class="hint" id="destination-role-hint">
            Assumed when delivering, with this project's external id
            {props.externalId ? (
              <>
                {' '}
                <code>{props.externalId}</code>
              </>
            ) : null}
            : its trust policy must name our account and require that external id.
          </p>
        </>
      )}
    </>
  );
}
