import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';
import { EVENT_TYPES, type MatchingEventType } from './ses-events.ts';
import { arnResource, AwsError, type AwsAnswer } from './wire.ts';

export interface EventDestination {
  Name: string;
  Enabled: boolean;
  MatchingEventTypes: MatchingEventType[];
  SnsDestination?: { TopicArn: string };
  EventBridgeDestination?: { EventBusArn: string };
}

type Route = [string, RegExp, (match: string[], input: Record<string, unknown>) => AwsAnswer];

/**
 * SES v2's configuration sets and their event destinations (see ./ses.ts): create, get, list, delete a set; create,
 * list, update, delete its destinations. A destination is an SNS topic or the default event bus (as on AWS, where
 * SES publishes to EventBridge's default bus only); the stand-in publishes to no other kind.
 */
export function createSesConfigurationSets(db: DatabaseSync) {
  db.exec(`CREATE TABLE IF NOT EXISTS ses_configuration_sets (name TEXT PRIMARY KEY, options TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS ses_event_destinations (configuration_set TEXT NOT NULL, name TEXT NOT NULL,
      destination TEXT NOT NULL, PRIMARY KEY (configuration_set, name));`);
  const find = db.prepare('SELECT options FROM ses_configuration_sets WHERE name = ?');
  const destinations = db.prepare(
    'SELECT destination FROM ses_event_destinations WHERE configuration_set = ? ORDER BY name',
  );
  const findDestination = db.prepare('SELECT 1 FROM ses_event_destinations WHERE configuration_set = ? AND name = ?');
  const upsert = db.prepare(
    `INSERT INTO ses_event_destinations (configuration_set, name, destination) VALUES (?, ?, ?)
     ON CONFLICT DO UPDATE SET destination = excluded.destination`,
  );

  function get(name: string): Record<string, unknown> {
    const row = find.get(name) as { options: string } | undefined;
    if (!row) throw new AwsError(404, 'NotFoundException', `Configuration set <${name}> does not exist.`);
    return JSON.parse(row.options) as Record<string, unknown>;
  }
  const destinationsOf = (set: string) =>
    (destinations.all(set) as { destination: string }[]).map((r) => JSON.parse(r.destination) as EventDestination);

  function destination(name: string, input: Record<string, unknown>): EventDestination {
    const given = (input.EventDestination ?? {}) as Partial<EventDestination> & Record<string, unknown>;
    const types = given.MatchingEventTypes;
    if (!Array.isArray(types) || !types.length || !types.every((t) => t in EVENT_TYPES))
      throw new AwsError(
        400,
        'BadRequestException',
        `MatchingEventTypes must name at least one of ${Object.keys(EVENT_TYPES).join(', ')}.`,
      );
    const kinds = Object.keys(given).filter((k) => k.endsWith('Destination'));
    if (kinds.length !== 1)
      throw new AwsError(400, 'BadRequestException', 'An event destination needs exactly one destination.');
    if (given.SnsDestination) {
      if (!arnResource(String(given.SnsDestination.TopicArn), 'sns'))
        throw new AwsError(400, 'BadRequestException', `Invalid SNS topic ARN: ${given.SnsDestination.TopicArn}`);
    } else if (given.EventBridgeDestination) {
      if (arnResource(String(given.EventBridgeDestination.EventBusArn), 'events', 'event-bus') !== 'default')
        throw new AwsError(400, 'BadRequestException', 'Only the default event bus is supported.');
    } else
      throw new AwsError(
        400,
        'BadRequestException',
        'The local stand-in publishes to SNS topics and the default event bus only.',
      );
    return {
      Name: name,
      Enabled: given.Enabled ?? false,
      MatchingEventTypes: types,
      ...(given.SnsDestination ? { SnsDestination: { TopicArn: given.SnsDestination.TopicArn } } : {}),
      ...(given.EventBridgeDestination
        ? { EventBridgeDestination: { EventBusArn: given.EventBridgeDestination.EventBusArn } }
        : {}),
    };
  }

  const routes: Route[] = [
    [
      'POST',
      /^\/v2\/email\/configuration-sets$/,
      (_m, input) => {
        const name = String(input.ConfigurationSetName ?? '');
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
          throw new AwsError(400, 'BadRequestException', `Invalid configuration set name <${name}>.`);
        if (find.get(name))
          throw new AwsError(400, 'AlreadyExistsException', `Configuration set <${name}> already exists.`);
        const { ConfigurationSetName: _, ...options } = input;
        db.prepare('INSERT INTO ses_configuration_sets (name, options) VALUES (?, ?)').run(
          name,
          JSON.stringify(options),
        );
        return { json: {} };
      },
    ],
    [
      'GET',
      /^\/v2\/email\/configuration-sets$/,
      () => ({
        json: {
          ConfigurationSets: (
            db.prepare('SELECT name FROM ses_configuration_sets ORDER BY name').all() as { name: string }[]
          ).map((r) => r.name),
        },
      }),
    ],
    [
      'GET',
      /^\/v2\/email\/configuration-sets\/([^/]+)$/,
      ([name]) => ({ json: { ConfigurationSetName: name, ...get(name!) } }),
    ],
    [
      'DELETE',
      /^\/v2\/email\/configuration-sets\/([^/]+)$/,
      ([name]) => {
        get(name!);
        transaction(db, () => {
          db.prepare('DELETE FROM ses_event_destinations WHERE configuration_set = ?').run(name!);
          db.prepare('DELETE FROM ses_configuration_sets WHERE name = ?').run(name!);
        });
        return { json: {} };
      },
    ],
    [
      'POST',
      /^\/v2\/email\/configuration-sets\/([^/]+)\/event-destinations$/,
      ([set], input) => {
        get(set!);
        const name = String(input.EventDestinationName ?? '');
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
          throw new AwsError(400, 'BadRequestException', `Invalid event destination name <${name}>.`);
        if (findDestination.get(set!, name))
          throw new AwsError(400, 'AlreadyExistsException', `Event destination <${name}> already exists in <${set}>.`);
        upsert.run(set!, name, JSON.stringify(destination(name, input)));
        return { json: {} };
      },
    ],
    [
      'GET',
      /^\/v2\/email\/configuration-sets\/([^/]+)\/event-destinations$/,
      ([set]) => {
        get(set!);
        return { json: { EventDestinations: destinationsOf(set!) } };
      },
    ],
    [
      'PUT',
      /^\/v2\/email\/configuration-sets\/([^/]+)\/event-destinations\/([^/]+)$/,
      ([set, name], input) => {
        get(set!);
        if (!findDestination.get(set!, name!))
          throw new AwsError(404, 'NotFoundException', `Event destination <${name}> does not exist in <${set}>.`);
        upsert.run(set!, name!, JSON.stringify(destination(name!, input)));
        return { json: {} };
      },
    ],
    [
      'DELETE',
      /^\/v2\/email\/configuration-sets\/([^/]+)\/event-destinations\/([^/]+)$/,
      ([set, name]) => {
        get(set!);
        if (!findDestination.get(set!, name!))
          throw new AwsError(404, 'NotFoundException', `Event destination <${name}> does not exist in <${set}>.`);
        db.prepare('DELETE FROM ses_event_destinations WHERE configuration_set = ? AND name = ?').run(set!, name!);
        return { json: {} };
      },
    ],
  ];

  return { get, destinationsOf, routes };
}
