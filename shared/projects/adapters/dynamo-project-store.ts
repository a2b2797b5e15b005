import type { ApiTokenState, Project, ProjectChanges, ProjectPage, ProjectStore } from '../project.ts';
import type { PageRequest } from '../../kernel/page.ts';
import {
  applied,
  attributeValues,
  conditionalWrite,
  type DynamoTable,
  putItem,
  queryPageOf,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import { backgroundIndex, keys } from '../../contract/keys.ts';
import type { ProjectReadAhead } from '../read-ahead.ts';

/**
 * Projects: `PRJ#<id>` / `PRJ`, with the hash of the current API token as an attribute. The management listing
 * reads them newest first through the GSI (`gsi1pk = PROJECTS`, `gsi1sk = createdAt#id`): an admin page, not a hot
 * path, so one index partition is plenty.
 */
export class DynamoProjectStore implements ProjectStore {
  /** With `readAhead`, a project read along with another item of the request is served from it (see readAlong). */
  constructor(
    private readonly table: DynamoTable,
    private readonly readAhead?: ProjectReadAhead,
  ) {}

  /**
   * The project's item as another read of the request fetches it along with its own (one BatchGetItem): its key, the
   * attribute `get` reads, and where what was found goes; undefined when it would not be held (no read-ahead, or
   * several requests served at once).
   */
  readAlong(projectId: string) {
    const readAhead = this.readAhead;
    if (!readAhead?.alone) return undefined;
    return {
      key: keys.project(projectId),
      attributes: ['project'],
      found: (item: Record<string, unknown> | undefined) =>
        readAhead.hold(projectId, item?.project as Project | undefined),
    };
  }

  async create(project: Project): Promise<void> {
    await putItem(this.table, {
      Item: {
        ...keys.project(project.projectId),
        project,
        ...backgroundIndex.projectEntry(project.createdAt, project.projectId),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(projectId: string): Promise<Project | undefined> {
    const ahead = this.readAhead?.take(projectId);
    if (ahead?.found) return ahead.project;
    const item = await readItem(this.table, keys.project(projectId), {
      ProjectionExpression: '#project',
      ExpressionAttributeNames: { '#project': 'project' },
    });
    return item?.project as Project | undefined;
  }

  async update(projectId: string, changes: ProjectChanges): Promise<Project | undefined> {
    const set: string[] = [];
    const remove: string[] = [];
    const names: Record<string, string> = { '#project': 'project' };
    const values: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(changes) as [keyof ProjectChanges, unknown][]) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) remove.push(`#project.#${field}`);
      else {
        set.push(`#project.#${field} = :${field}`);
        values[`:${field}`] = value;
      }
    }
    if (!set.length && !remove.length) return this.get(projectId);
    this.readAhead?.forget(projectId);
    // Each allowance change is counted, so the API token's copy of it is only ever moved forward.
    const counted = changes.monthlyBotCredits !== undefined;
    if (counted) values[':one'] = 1;
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.project(projectId),
        UpdateExpression: [
          set.length ? `SET ${set.join(', ')}` : '',
          remove.length ? `REMOVE ${remove.join(', ')}` : '',
          counted ? 'ADD creditsRevision :one' : '',
        ]
          .filter(Boolean)
          .join(' '),
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return write.applied ? (write.output.Attributes?.project as Project | undefined) : undefined;
  }

  async list(page: PageRequest): Promise<ProjectPage> {
    const gsi = backgroundIndex;
    const out = await queryPageOf(
      this.table,
      {
        IndexName: gsi.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': gsi.partitionKey, '#project': 'project' },
        ExpressionAttributeValues: { ':pk': gsi.projectsPartition },
        ProjectionExpression: '#project',
        ScanIndexForward: false,
      },
      page,
      {
        attributes: [gsi.partitionKey, gsi.sortKey, 'pk', 'sk'],
        fixed: { [gsi.partitionKey]: gsi.projectsPartition },
        // The entry's sort key ends with the project id its table key names (`<createdAt>#<projectId>`).
        accepts: (key) => {
          const projectId = key[gsi.sortKey]!.split('#').pop()!;
          const expected = keys.project(projectId);
          return key.pk === expected.pk && key.sk === expected.sk;
        },
      },
    );
    return { ...out, items: out.items.map((i) => i.project as Project) };
  }

  async apiTokenState(projectId: string): Promise<ApiTokenState> {
    const item = await readItem(this.table, keys.project(projectId), {
      ProjectionExpression: 'apiTokenHash, apiTokenIssuedAt',
    });
    return item?.apiTokenHash
      ? { active: true, issuedAt: item.apiTokenIssuedAt as string | undefined }
      : { active: false };
  }

  async apiTokenAllowance(projectId: string) {
    const item = await readItem(this.table, keys.project(projectId), {
      ProjectionExpression: '#project.monthlyBotCredits, creditsRevision, apiTokenHash',
      ExpressionAttributeNames: { '#project': 'project' },
    });
    if (!item?.project) return undefined;
    return {
      monthlyBotCredits: (item.project as { monthlyBotCredits: number }).monthlyBotCredits,
      revision: (item.creditsRevision as number | undefined) ?? 0,
      ...(item.apiTokenHash ? { apiTokenHash: item.apiTokenHash as string } : {}),
    };
  }

  async currentApiTokenHash(projectId: string): Promise<string | undefined> {
    const item = await readItem(this.table, keys.project(projectId), { ProjectionExpression: 'apiTokenHash' });
    return item?.apiTokenHash as string | undefined;
  }

  async swapApiTokenHash(
    projectId: string,
    expected: string | undefined,
    next: string | undefined,
    at: Date,
  ): Promise<boolean> {
    const condition =
      expected === undefined
        ? 'attribute_exists(pk) AND attribute_not_exists(apiTokenHash)'
        : 'apiTokenHash = :expected';
    this.readAhead?.forget(projectId);
    return applied(
      updateItem(this.table, {
        Key: keys.project(projectId),
        UpdateExpression:
          next === undefined
            ? 'REMOVE apiTokenHash, apiTokenIssuedAt'
            : 'SET apiTokenHash = :next, apiTokenIssuedAt = :at',
        ConditionExpression: condition,
        ExpressionAttributeValues: attributeValues({
          ':expected': expected,
          ':next': next,
          ':at': next === undefined ? undefined : at.toISOString(),
        }),
      }),
    );
  }
}
