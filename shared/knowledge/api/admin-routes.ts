import { pageQuery } from '#shared/http/pagination.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { KnowledgeFile } from '../knowledge-files.ts';
import type { KnowledgeManagement } from '../manage.ts';

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

/** A bot's knowledge files: list, upload (raw or through a presigned browser upload), delete. */
export const knowledgeRoutes = {
  listKnowledge: route({ method: 'GET', path: '/projects/{projectId}/bots/{botId}/knowledge', query: pageQuery }),
  uploadKnowledge: route({
    method: 'PUT',
    path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}',
    body: 'raw',
  }),
  issueKnowledgeUploadUrl: route({
    method: 'POST',
    path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}/upload',
    body: uploadUrlBody,
  }),
  deleteKnowledge: route({ method: 'DELETE', path: '/projects/{projectId}/bots/{botId}/knowledge/{fileName}' }),
};

/** What serves the knowledge routes. */
export function knowledgeHandlers(knowledge: KnowledgeManagement): RouteHandlers<typeof knowledgeRoutes> {
  return {
    listKnowledge: async ({ params, query }) => {
      const page = await knowledge.list(params.projectId, params.botId, query);
      return json(200, {
        items: page.items.map(fileView),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      });
    },
    uploadKnowledge: async ({ params, body, event }) =>
      json(
        202,
        await knowledge.upload(
          params.projectId,
          params.botId,
          params.fileName,
          event.normalizedHeaders['content-type'],
          body,
        ),
      ),
    issueKnowledgeUploadUrl: async ({ params, body }) =>
      json(201, await knowledge.issueUploadUrl(params.projectId, params.botId, params.fileName, body.contentType)),
    deleteKnowledge: async ({ params }) => {
      await knowledge.remove(params.projectId, params.botId, params.fileName);
      return noContent();
    },
  };
}
