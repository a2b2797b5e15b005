import type { TokenGrant, TokenStore } from '../token-store.ts';
import { applied, deleteItem, type DynamoTable, putItem, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys } from '../../contract/keys.ts';

/** Token grants keyed by token hash: `TOKEN#<sha256>`. */
export class DynamoTokenStore implements TokenStore {
  constructor(private readonly table: DynamoTable) {}

  async find(tokenHash: string): Promise<TokenGrant | undefined> {
    const item = await readItem(this.table, keys.token(tokenHash));
    return item?.grant as TokenGrant | undefined;
  }

  async put(tokenHash: string, grant: TokenGrant): Promise<void> {
    await putItem(this.table, {
      Item: { ...keys.token(tokenHash), grant, createdAt: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async delete(tokenHash: string): Promise<void> {
    await deleteItem(this.table, { Key: keys.token(tokenHash) });
  }

  async setMonthlyBotCredits(tokenHash: string, monthlyBotCredits: number, revision: number): Promise<void> {
    // A refused condition (no grant, or a newer revision already there) is the answer, not an error.
    await applied(
      updateItem(this.table, {
        Key: keys.token(tokenHash),
        UpdateExpression: 'SET #grant.monthlyBotCredits = :credits, creditsRevision = :revision',
        ConditionExpression:
          'attribute_exists(pk) AND #grant.kind = :kind AND ' +
          '(attribute_not_exists(creditsRevision) OR creditsRevision < :revision)',
        ExpressionAttributeNames: { '#grant': 'grant' },
        ExpressionAttributeValues: { ':credits': monthlyBotCredits, ':revision': revision, ':kind': 'projectApi' },
      }),
    );
  }
}
