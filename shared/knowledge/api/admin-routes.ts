import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { KnowledgeFile } from '../knowledge-files.ts';
import type { KnowledgeManagement } from '../manage.ts';
import { knowledgeFilePage, knowledgeUploadAccepted, knowledgeUploadUrl } from './schemas.ts';

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

/** The routes in the API reference (the OpenAPI document). */
export function knowledgeRouteDocs(): RouteDocs<typeof knowledgeRoutes> {
  return {
    listKnowledge: {
      operationId: 'listKnowledgeFiles',
      summary: "A bot's knowledge files and their status, a page at a time",
      description:
        'Files by name (byte order of the UTF-8 name) with their ingestion status (`processing`, `ready`, `failed`), ' +
        'a page at a time. A bot holds any number of files.',
      tags: ['Bots'],
      responses: { 200: { description: 'A page of files, by name.', body: knowledgeFilePage } },
    },
    uploadKnowledge: {
      operationId: 'uploadKnowledgeFile',
      summary: 'Upload a knowledge file',
      description:
        'Raw bytes, 25 MB at most. The same name replaces the file. Ingestion runs in the background: poll the list until `ready`.',
      tags: ['Bots'],
      rawContentTypes: ['text/markdown', 'text/plain', 'text/html', 'application/pdf'],
      responses: { 202: { description: 'Accepted; ingestion is running.', body: knowledgeUploadAccepted } },
      // 400 VALIDATION_ERROR: an empty file or a bad file name.
      errors: {
        400: ['FILE_TOO_LARGE', 'VALIDATION_ERROR'],
        415: ['UNSUPPORTED_MEDIA_TYPE'],
        503: ['SERVICE_UNAVAILABLE'],
      },
    },
    issueKnowledgeUploadUrl: {
      operationId: 'createKnowledgeUploadUrl',
      summary: 'Ask for a browser upload URL',
      description:
        'A presigned S3 POST for files past the 6 MB a request can carry: post every `fields` entry, then `file`, as ' +
        'multipart/form-data to `uploadUrl` within 15 minutes (1 byte to 25 MB, the declared type). The file is ' +
        '`processing` from now and is ingested when the object lands; the same name replaces.',
      tags: ['Bots'],
      responses: { 201: { description: 'The upload form.', body: knowledgeUploadUrl } },
      errors: { 415: ['UNSUPPORTED_MEDIA_TYPE'], 503: ['SERVICE_UNAVAILABLE'] },
    },
    deleteKnowledge: {
      operationId: 'deleteKnowledgeFile',
      summary: 'Delete a knowledge file',
      description:
        'Its excerpts leave search at once (before the answer). An upload of the same name that lands meanwhile is newer and proceeds.',
      tags: ['Bots'],
      responses: { 204: { description: 'Deleted.' } },
    },
  };
}
