import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';
import {
  decodeIterator,
  encodeIterator,
  hashKeyRange,
  parseSequenceNumber,
  sequenceNumber,
  shardFor,
  shardId,
  shardIndex,
} from './kinesis-shards.ts';
import {
  arnResource,
  AwsError,
  jsonBody,
  LOCAL_ACCOUNT,
  optionalString,
  targetOperation,
  type AwsRequest,
  type StandInService,
} from './wire.ts';

/** Kinesis's limits: a record's data and key up to 1 MiB, a PutRecords call up to 500 records and 5 MiB. */
const MAX_RECORD_BYTES = 1024 * 1024;
const MAX_PUT_RECORDS = 500;
const MAX_PUT_RECORDS_BYTES = 5 * 1024 * 1024;
/** GetRecords answers at most 10,000 records or 10 MiB. */
const MAX_GET_RECORDS = 10_000;
const MAX_GET_BYTES = 10 * 1024 * 1024;
/** An on-demand stream starts with 4 shards, as on AWS; the stand-in takes up to 100 per stream. */
const ON_DEMAND_SHARDS = 4;
const MAX_SHARDS = 100;

interface StreamRow {
  name: string;
  shard_count: number;
  mode: string;
  created_at: number;
  retention_hours: number;
}

/**
 * Kinesis Data Streams' stand-in (AWS JSON 1.1): streams (provisioned or on-demand, ACTIVE at once), PutRecord /
 * PutRecords to the shard whose hash key range holds the MD5 of the partition key (or the explicit hash key),
 * GetShardIterator (all five types) / GetRecords, ListShards, DescribeStream(Summary), ListStreams, DeleteStream; a
 * stream named by `StreamName` or `StreamARN`. Streams and their records persist for the retention period (24 h).
 * Throughput limits per shard are not enforced.
 */
export function createKinesis({ db, region }: { db: DatabaseSync; region: string }): StandInService {
  db.exec(`CREATE TABLE IF NOT EXISTS kin_streams (name TEXT PRIMARY KEY, shard_count INTEGER NOT NULL, mode TEXT NOT NULL,
      created_at INTEGER NOT NULL, retention_hours INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS kin_records (stream TEXT NOT NULL, shard INTEGER NOT NULL, seq INTEGER NOT NULL,
      at INTEGER NOT NULL, partition_key TEXT NOT NULL, data BLOB NOT NULL, caller TEXT NOT NULL,
      PRIMARY KEY (stream, shard, seq));`);
  const streamArn = (name: string) => `arn:aws:kinesis:${region}:${LOCAL_ACCOUNT}:stream/${name}`;
  const findStream = db.prepare('SELECT * FROM kin_streams WHERE name = ?');
  const insertRecord = db.prepare(
    'INSERT INTO kin_records (stream, shard, seq, at, partition_key, data, caller) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const lastSeq = db.prepare('SELECT MAX(seq) AS seq FROM kin_records WHERE stream = ? AND shard = ?');
  const nextSeqs = new Map<string, number>();
  let writesSinceTrim = 0;

  function stream(input: Record<string, unknown>): StreamRow {
    const name = optionalString(input, 'StreamName');
    const arn = optionalString(input, 'StreamARN');
    if (!name && !arn)
      throw new AwsError(400, 'InvalidArgumentException', 'Either StreamName or StreamARN should be provided.');
    const resolved = name ?? arnResource(arn!, 'kinesis', 'stream');
    if (!resolved)
      throw new AwsError(
        400,
        'ValidationException',
        `Value '${arn}' at 'streamARN' failed to satisfy constraint: Member must be a stream ARN`,
      );
    const row = findStream.get(resolved) as StreamRow | undefined;
    if (!row)
      throw new AwsError(
        400,
        'ResourceNotFoundException',
        `Stream ${resolved} under account ${LOCAL_ACCOUNT} not found.`,
      );
    return row;
  }

  function nextSeq(name: string, shard: number): number {
    const key = `${name}/${shard}`;
    const next = nextSeqs.get(key) ?? Number((lastSeq.get(name, shard) as { seq: number | null }).seq ?? 0) + 1;
    nextSeqs.set(key, next + 1);
    return next;
  }

  function put(row: StreamRow, record: Record<string, unknown>, caller: string, now: number) {
    const key = record.PartitionKey;
    if (typeof key !== 'string' || key.length < 1 || key.length > 256)
      throw new AwsError(
        400,
        'ValidationException',
        `1 validation error detected: Value at 'partitionKey' failed to satisfy constraint: Member must have length between 1 and 256`,
      );
    if (typeof record.Data !== 'string')
      throw new AwsError(
        400,
        'ValidationException',
        "1 validation error detected: Value null at 'data' failed to satisfy constraint: Member must not be null",
      );
    const data = Buffer.from(record.Data, 'base64');
    if (data.length + Buffer.byteLength(key) > MAX_RECORD_BYTES)
      throw new AwsError(
        400,
        'ValidationException',
        `1 validation error detected: Value at 'data' failed to satisfy constraint: Member must have length less than or equal to ${MAX_RECORD_BYTES}`,
      );
    const shard = shardFor(key, optionalString(record, 'ExplicitHashKey'), row.shard_count);
    const seq = nextSeq(row.name, shard);
    insertRecord.run(row.name, shard, seq, now, key, data, caller);
    return { ShardId: shardId(shard), SequenceNumber: sequenceNumber(shard, seq) };
  }

  /** Records older than the retention period are gone, as on AWS (dropped every few hundred writes). */
  function trimExpired(row: StreamRow, now: number, writes: number): void {
    writesSinceTrim += writes;
    if (writesSinceTrim < 500) return;
    writesSinceTrim = 0;
    db.prepare('DELETE FROM kin_records WHERE stream = ? AND at < ?').run(
      row.name,
      now - row.retention_hours * 3600_000,
    );
  }

  function shards(row: StreamRow) {
    return Array.from({ length: row.shard_count }, (_, i) => {
      const range = hashKeyRange(i, row.shard_count);
      return {
        ShardId: shardId(i),
        HashKeyRange: { StartingHashKey: range.start.toString(), EndingHashKey: range.end.toString() },
        SequenceNumberRange: { StartingSequenceNumber: sequenceNumber(i, 0) },
      };
    });
  }

  function summary(row: StreamRow) {
    return {
      StreamName: row.name,
      StreamARN: streamArn(row.name),
      StreamStatus: 'ACTIVE',
      StreamModeDetails: { StreamMode: row.mode },
      RetentionPeriodHours: row.retention_hours,
      StreamCreationTimestamp: row.created_at / 1000,
      EnhancedMonitoring: [{ ShardLevelMetrics: [] }],
      EncryptionType: 'NONE',
    };
  }

  const after = (list: ReturnType<typeof shards>, exclusiveStart: string | undefined) =>
    exclusiveStart ? list.filter((s) => s.ShardId > exclusiveStart) : list;

  const operations: Record<string, (input: Record<string, unknown>, caller: string) => unknown> = {
    CreateStream(input) {
      const name = optionalString(input, 'StreamName') ?? '';
      if (!/^[a-zA-Z0-9_.-]{1,128}$/.test(name))
        throw new AwsError(
          400,
          'ValidationException',
          `1 validation error detected: Value '${name}' at 'streamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+`,
        );
      const mode = (input.StreamModeDetails as { StreamMode?: string } | undefined)?.StreamMode;
      const count =
        mode === 'ON_DEMAND' || input.ShardCount === undefined ? ON_DEMAND_SHARDS : Number(input.ShardCount);
      if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS)
        throw new AwsError(400, 'InvalidArgumentException', `ShardCount must be between 1 and ${MAX_SHARDS}.`);
      if (findStream.get(name))
        throw new AwsError(
          400,
          'ResourceInUseException',
          `Stream ${name} under account ${LOCAL_ACCOUNT} already exists.`,
        );
      db.prepare(
        'INSERT INTO kin_streams (name, shard_count, mode, created_at, retention_hours) VALUES (?, ?, ?, ?, 24)',
      ).run(
        name,
        count,
        mode === 'ON_DEMAND' || input.ShardCount === undefined ? 'ON_DEMAND' : 'PROVISIONED',
        Date.now(),
      );
      return {};
    },
    DeleteStream(input) {
      const row = stream(input);
      transaction(db, () => {
        db.prepare('DELETE FROM kin_records WHERE stream = ?').run(row.name);
        db.prepare('DELETE FROM kin_streams WHERE name = ?').run(row.name);
      });
      for (const key of [...nextSeqs.keys()]) if (key.startsWith(`${row.name}/`)) nextSeqs.delete(key);
      return {};
    },
    DescribeStream(input) {
      const row = stream(input);
      const list = after(shards(row), optionalString(input, 'ExclusiveStartShardId'));
      const limit = Number(input.Limit ?? 100);
      return {
        StreamDescription: { ...summary(row), Shards: list.slice(0, limit), HasMoreShards: list.length > limit },
      };
    },
    DescribeStreamSummary(input) {
      const row = stream(input);
      return { StreamDescriptionSummary: { ...summary(row), OpenShardCount: row.shard_count, ConsumerCount: 0 } };
    },
    ListStreams(input) {
      const rows = db.prepare('SELECT * FROM kin_streams ORDER BY name').all() as unknown as StreamRow[];
      const start = optionalString(input, 'ExclusiveStartStreamName');
      const list = start ? rows.filter((r) => r.name > start) : rows;
      const page = list.slice(0, Number(input.Limit ?? 100));
      return {
        StreamNames: page.map((r) => r.name),
        HasMoreStreams: page.length < list.length,
        StreamSummaries: page.map((r) => ({ ...summary(r), StreamCreationTimestamp: r.created_at / 1000 })),
      };
    },
    ListShards(input) {
      const token = optionalString(input, 'NextToken');
      const from = token
        ? (JSON.parse(Buffer.from(token, 'base64').toString()) as { s: string; a: string })
        : undefined;
      const row = stream(from ? { StreamName: from.s } : input);
      const list = after(shards(row), from?.a ?? optionalString(input, 'ExclusiveStartShardId'));
      const limit = Number(input.MaxResults ?? 1000);
      const page = list.slice(0, limit);
      return {
        Shards: page,
        ...(list.length > limit
          ? { NextToken: Buffer.from(JSON.stringify({ s: row.name, a: page.at(-1)!.ShardId })).toString('base64') }
          : {}),
      };
    },
    PutRecord(input, caller) {
      const row = stream(input);
      const now = Date.now();
      const result = put(row, input, caller, now);
      trimExpired(row, now, 1);
      return { ...result, EncryptionType: 'NONE' };
    },
    PutRecords(input, caller) {
      const row = stream(input);
      const records = input.Records;
      if (!Array.isArray(records) || records.length < 1 || records.length > MAX_PUT_RECORDS)
        throw new AwsError(
          400,
          'ValidationException',
          `1 validation error detected: Value at 'records' failed to satisfy constraint: Member must have length between 1 and ${MAX_PUT_RECORDS}`,
        );
      const size = records.reduce(
        (sum: number, r: { Data?: string; PartitionKey?: string }) =>
          sum + Math.floor(((r?.Data?.length ?? 0) * 3) / 4) + Buffer.byteLength(String(r?.PartitionKey ?? '')),
        0,
      );
      if (size > MAX_PUT_RECORDS_BYTES)
        throw new AwsError(400, 'InvalidArgumentException', 'Records size exceeds 5 MB limit');
      const now = Date.now();
      const results = transaction(db, () => records.map((r: Record<string, unknown>) => put(row, r, caller, now)));
      trimExpired(row, now, records.length);
      return { FailedRecordCount: 0, Records: results, EncryptionType: 'NONE' };
    },
    GetShardIterator(input) {
      const row = stream(input);
      const id = optionalString(input, 'ShardId') ?? '';
      const shard = shardIndex(id, row.shard_count);
      if (shard === undefined)
        throw new AwsError(
          400,
          'ResourceNotFoundException',
          `Shard ${id} in stream ${row.name} under account ${LOCAL_ACCOUNT} does not exist`,
        );
      const type = optionalString(input, 'ShardIteratorType');
      const latest = Number((lastSeq.get(row.name, shard) as { seq: number | null }).seq ?? 0) + 1;
      const bySequence = () => {
        const parsed = parseSequenceNumber(optionalString(input, 'StartingSequenceNumber') ?? '');
        if (parsed.shard !== shard)
          throw new AwsError(400, 'InvalidArgumentException', `Invalid StartingSequenceNumber for shard ${id}.`);
        return parsed.seq;
      };
      let next: number;
      if (type === 'TRIM_HORIZON') next = 0;
      else if (type === 'LATEST') next = latest;
      else if (type === 'AT_SEQUENCE_NUMBER') next = bySequence();
      else if (type === 'AFTER_SEQUENCE_NUMBER') next = bySequence() + 1;
      else if (type === 'AT_TIMESTAMP') {
        if (typeof input.Timestamp !== 'number')
          throw new AwsError(
            400,
            'InvalidArgumentException',
            'Must specify timestampInMillis parameter for iterator of type AT_TIMESTAMP.',
          );
        const first = db
          .prepare('SELECT MIN(seq) AS seq FROM kin_records WHERE stream = ? AND shard = ? AND at >= ?')
          .get(row.name, shard, Math.round(input.Timestamp * 1000)) as { seq: number | null };
        next = first.seq ?? latest;
      } else
        throw new AwsError(
          400,
          'ValidationException',
          `1 validation error detected: Value '${type}' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST, AT_TIMESTAMP]`,
        );
      return { ShardIterator: encodeIterator({ stream: row.name, shard, next, issuedAt: Date.now() }) };
    },
    GetRecords(input) {
      const now = Date.now();
      const position = decodeIterator(optionalString(input, 'ShardIterator') ?? '', now);
      const limit = Number(input.Limit ?? MAX_GET_RECORDS);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GET_RECORDS)
        throw new AwsError(
          400,
          'ValidationException',
          `1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint: Member must have value between 1 and ${MAX_GET_RECORDS}`,
        );
      const row = stream({ StreamName: position.stream });
      const rows = db
        .prepare(
          'SELECT seq, at, partition_key, data FROM kin_records WHERE stream = ? AND shard = ? AND seq >= ? AND at >= ? ORDER BY seq LIMIT ?',
        )
        .all(row.name, position.shard, position.next, now - row.retention_hours * 3600_000, limit) as {
        seq: number;
        at: number;
        partition_key: string;
        data: Uint8Array;
      }[];
      // Whole records up to 10 MiB (always the first, as a record is at most 1 MiB).
      const taken: typeof rows = [];
      let bytes = 0;
      for (const r of rows) {
        bytes += r.data.length;
        if (bytes > MAX_GET_BYTES && taken.length) break;
        taken.push(r);
      }
      const last = taken.at(-1);
      const latest = Number((lastSeq.get(row.name, position.shard) as { seq: number | null }).seq ?? 0);
      return {
        Records: taken.map((r) => ({
          SequenceNumber: sequenceNumber(position.shard, r.seq),
          ApproximateArrivalTimestamp: r.at / 1000,
          Data: Buffer.from(r.data).toString('base64'),
          PartitionKey: r.partition_key,
        })),
        NextShardIterator: encodeIterator({ ...position, next: last ? last.seq + 1 : position.next, issuedAt: now }),
        MillisBehindLatest: last && last.seq < latest ? now - last.at : 0,
      };
    },
  };

  return {
    handle(request: AwsRequest) {
      const operation = operations[targetOperation(request, 'Kinesis_20131202')];
      if (!operation)
        throw new AwsError(400, 'UnknownOperationException', 'The stand-in does not serve this operation.');
      return { json: operation(jsonBody(request), request.accessKeyId) };
    },
    inspect(path, query) {
      if (path !== 'received') return undefined;
      const row = stream({
        StreamName: query.get('streamName') ?? undefined,
        StreamARN: query.get('streamArn') ?? undefined,
      });
      const rows = db
        .prepare(
          'SELECT shard, seq, at, partition_key, data, caller FROM kin_records WHERE stream = ? ORDER BY at, shard, seq LIMIT 10000',
        )
        .all(row.name) as {
        shard: number;
        seq: number;
        at: number;
        partition_key: string;
        data: Uint8Array;
        caller: string;
      }[];
      return {
        records: rows.map((r) => ({
          shardId: shardId(r.shard),
          sequenceNumber: sequenceNumber(r.shard, r.seq),
          partitionKey: r.partition_key,
          data: Buffer.from(r.data).toString('base64'),
          approximateArrivalTimestamp: new Date(r.at).toISOString(),
          callerAccessKeyId: r.caller,
        })),
      };
    },
  };
}
