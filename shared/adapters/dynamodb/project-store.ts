import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Project, ProjectStore } from '../../projects/project.ts';
import { attributeValues, isConditionFailure, keys, type DynamoTable } from './table.ts';

/** Projects: `PRJ#<id>` / `PRJ`, with the hash of the current API token as an attribute. */
export class DynamoProjectStore implements ProjectStore {
  constructor(private readonly table: DynamoTable) {}

  async create(project: Project): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...keys.project(project.projectId), project },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(projectId: string): Promise<Project | undefined> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.project(projectId), ConsistentRead: true, ProjectionExpression: '#project', ExpressionAttributeNames: { '#project': 'project' } }),
    );
    return out.Item?.project as Project | undefined;
  }

  async currentApiTokenHash(projectId: string): Promise<string | undefined> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.project(projectId), ConsistentRead: true, ProjectionExpression: 'apiTokenHash' }),
    );
    return out.Item?.apiTokenHash as string | undefined;
  }

  async swapApiTokenHash(projectId: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    const condition = expected === undefined ? 'attribute_exists(pk) AND attribute_not_exists(apiTokenHash)' : 'apiTokenHash = :expected';
    try {
      await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.project(projectId),
          UpdateExpression: next === undefined ? 'REMOVE apiTokenHash' : 'SET apiTokenHash = :next',
          ConditionExpression: condition,
          ExpressionAttributeValues: attributeValues({ ':expected': expected, ':next': next }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
