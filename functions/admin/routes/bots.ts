import { parseModelSpec } from '#shared/models/model-spec.ts';
import type { Config } from '#shared/config/config.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { DynamoKnowledgeFileStore } from '#shared/adapters/dynamodb/knowledge-file-store.ts';
import { DynamoProjectStore } from '#shared/adapters/dynamodb/project-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import {
  s3KnowledgeObjectStoreOnFirstUse,
  s3KnowledgeUploadInboxOnFirstUse,
} from '#shared/adapters/s3/on-first-use.ts';
import { SqsIngestQueue } from '#shared/adapters/sqs/ingest-queue.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import type { Bot } from '#shared/bots/bot.ts';
import { makeBotUseCases, type BotUseCases } from '#shared/bots/use-cases.ts';
import { HttpError } from '#shared/http/errors.ts';
import { route, type Route } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import type { KnowledgeFile } from '#shared/knowledge/knowledge-files.ts';
import { makeKnowledgeManagement, type KnowledgeManagement } from '#shared/knowledge/manage.ts';
import type { Logger } from '#shared/logging/logger.ts';
import * as z from '#shared/validation/zod.ts';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));
const instructions = z.string().check(z.minLength(1), z.maxLength(60_000));
/** `offline`, `openai[:<model>]` or `bedrock[:<model id>]`: refused here rather than failing at completion time. */
const model = z.string().check(
  z.trim(),
  z.superRefine((value, ctx) => {
    const parsed = parseModelSpec(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  }),
);
const temperature = z.number().check(z.gte(0), z.lte(1));

const createBotBody = z.strictObject({
  name,
  instructions,
  model: z.optional(model),
  temperature: z.optional(temperature),
});
const patchBotBody = z
  .strictObject({
    name: z.optional(name),
    instructions: z.optional(instructions),
    model: z.optional(z.nullable(model)),
    temperature: z.optional(z.nullable(temperature)),
  })
  .check(z.refine((b) => Object.keys(b).length > 0, { message: 'Nothing to change: give at least one field.' }));

const botView = (b: Bot) => ({
  botId: b.botId,
  projectId: b.projectId,
  name: b.name,
  instructions: b.instructions,
  model: b.model ?? null,
  temperature: b.temperature ?? null,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});

const uploadUrlBody = z.strictObject({ contentType: z.string().check(z.minLength(1), z.maxLength(200)) });

const fileView = (f: KnowledgeFile) => ({
  fileName: f.fileName,
  status: f.status,
  chunks: f.chunks,
  ...(f.error ? { error: f.error } : {}),
  ...(f.ocrPages !== undefined ? { ocrPages: f.ocrPages } : {}),
  contentType: f.contentType,
  bytes: f.bytes,
  uploadedAt: f.uploadedAt,
  updatedAt: f.updatedAt,
});

/** Bots CRUD and their knowledge files. */
export function botRoutes(bots: BotUseCases, knowledge: KnowledgeManagement): Route[] {
  return [
    route({
      method: 'POST',
      path: '/projects/{projectId}/bots',
      body: createBotBody,
      handle: async ({ params, body }) => json(201, botView(await bots.create(params.projectId!, body))),
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/bots',
      handle: async ({ params }) => json(200, { items: (await bots.list(params.projectId!)).map(botView) }),
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/bots/{botId}',
      handle: async ({ params }) => json(200, botView(await bots.requireBot(params.projectId!, params.botId!))),
    }),
    route({
      method: 'PATCH',
      path: '/projects/{projectId}/bots/{botId}',
      body: patchBotBody,
      handle: async ({ params, body }) => json(200, botView(await bots.update(params.projectId!, params.botId!, body))),
    }),
    route({
      method: 'DELETE',
      path: '/projects/{projectId}/bots/{botId}',
      handle: async ({ params }) => {
        await bots.delete(params.projectId!, params.botId!);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/projects/{projectId}/bots/{botId}/knowledge',
      handle: async ({ params }) =>
        json(200, { items: (await knowledge.list(params.projectId!, params.botId!)).map(fileView) }),
    }),
    route({
      method: 'PUT',
      path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}',
      body: 'raw',
      handle: async ({ params, body, event }) =>
        json(
          202,
          await knowledge.upload(
            params.projectId!,
            params.botId!,
            params.fileName!,
            event.normalizedHeaders['content-type'],
            body,
          ),
        ),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}/upload',
      body: uploadUrlBody,
      handle: async ({ params, body }) =>
        json(201, await knowledge.issueUploadUrl(params.projectId!, params.botId!, params.fileName!, body.contentType)),
    }),
    route({
      method: 'DELETE',
      path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}',
      handle: async ({ params }) => {
        await knowledge.remove(params.projectId!, params.botId!, params.fileName!);
        return noContent();
      },
    }),
  ];
}

/** The bot routes wired to DynamoDB, the knowledge bucket and the ingest queue. */
export function botRoutesFromConfig(cfg: Config, table: DynamoTable, logger: Logger): Route[] {
  const botStore = new DynamoBotStore(table);
  const projectStore = new DynamoProjectStore(table);
  const files = new DynamoKnowledgeFileStore(table);
  const unconfigured = (what: string) => () => {
    throw new HttpError(503, 'SERVICE_UNAVAILABLE', `Knowledge storage is not configured (${what}).`);
  };
  const objects = cfg.BUCKET_KNOWLEDGE
    ? s3KnowledgeObjectStoreOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE)
    : {
        put: unconfigured('BUCKET_KNOWLEDGE'),
        get: unconfigured('BUCKET_KNOWLEDGE'),
        delete: async () => {},
        deletePrefix: async () => {},
      };
  const queue = cfg.QUEUE_URL_INGEST
    ? new SqsIngestQueue(sqsClient(cfg), cfg.QUEUE_URL_INGEST)
    : { enqueue: unconfigured('QUEUE_URL_INGEST') };
  let knowledge: KnowledgeManagement;
  const bots = makeBotUseCases({
    bots: botStore,
    projectExists: async (projectId) => (await projectStore.get(projectId)) !== undefined,
    purgeKnowledge: (botId) => knowledge.purgeBot(botId),
  });
  const inbox = cfg.BUCKET_KNOWLEDGE ? s3KnowledgeUploadInboxOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE) : undefined;
  knowledge = makeKnowledgeManagement({ requireBot: bots.requireBot, files, objects, queue, inbox, logger });
  return botRoutes(bots, knowledge);
}
