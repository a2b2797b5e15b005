import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TokenGrant, TokenStore } from '../../auth/token-store.ts';
import type { DynamoTable } from './table.ts';
import { keys } from './keys.ts';

/** Token grants keyed by token hash: `TOKEN#<sha256>`. */
export class DynamoTokenStore implements TokenStore {
  constructor(private readonly table: DynamoTable) {}

  async find(tokenHash: string): Promise<TokenGrant | undefined> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.token(tokenHash), ConsistentRead: true }),
    );
    return out.Item?.grant as TokenGrant | undefined;
  }

  async put(tokenHash: string, grant: TokenGrant): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: { ...keys.token(tokenHash), grant, createdAt: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async delete(tokenHash: string): Promise<void> {
    await this.table.client.send(new DeleteCommand({ TableName: this.table.tableName, Key: keys.token(tokenHash) }));
  }
}
