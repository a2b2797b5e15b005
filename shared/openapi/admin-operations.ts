import type { RouteDoc } from '../contract/api-docs.ts';
import * as s from './schemas.ts';

/**
 * Documentation of every management API route, keyed by `METHOD path` as the route declares it. The request body
 * schema is never repeated here: the document takes it from the route's declaration. A route without an entry is
 * reported as undocumented (and fails a test).
 */
export const ADMIN_ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /projects/{projectId}/bots/{botId}/knowledge': {
    operationId: 'listKnowledgeFiles',
    summary: "A bot's knowledge files and their status, a page at a time",
    description:
      'Files by name (byte order of the UTF-8 name) with their ingestion status (`processing`, `ready`, `failed`), ' +
      'a page at a time. A bot holds any number of files.',
    tags: ['Bots'],
    responses: { 200: { description: 'A page of files, by name.', body: s.knowledgeFilePage } },
  },
  'PUT /projects/{projectId}/bots/{botId}/knowledge/{fileName}': {
    operationId: 'uploadKnowledgeFile',
    summary: 'Upload a knowledge file',
    description:
      'Raw bytes, 25 MB at most. The same name replaces the file. Ingestion runs in the background: poll the list until `ready`.',
    tags: ['Bots'],
    rawContentTypes: ['text/markdown', 'text/plain', 'text/html', 'application/pdf'],
    responses: { 202: { description: 'Accepted; ingestion is running.', body: s.knowledgeUploadAccepted } },
    // 400 VALIDATION_ERROR: an empty file or a bad file name.
    errors: {
      400: ['FILE_TOO_LARGE', 'VALIDATION_ERROR'],
      415: ['UNSUPPORTED_MEDIA_TYPE'],
      503: ['SERVICE_UNAVAILABLE'],
    },
  },
  'POST /projects/{projectId}/bots/{botId}/knowledge/{fileName}/upload': {
    operationId: 'createKnowledgeUploadUrl',
    summary: 'Ask for a browser upload URL',
    description:
      'A presigned S3 POST for files past the 6 MB a request can carry: post every `fields` entry, then `file`, as ' +
      'multipart/form-data to `uploadUrl` within 15 minutes (1 byte to 25 MB, the declared type). The file is ' +
      '`processing` from now and is ingested when the object lands; the same name replaces.',
    tags: ['Bots'],
    responses: { 201: { description: 'The upload form.', body: s.knowledgeUploadUrl } },
    errors: { 415: ['UNSUPPORTED_MEDIA_TYPE'], 503: ['SERVICE_UNAVAILABLE'] },
  },
  'DELETE /projects/{projectId}/bots/{botId}/knowledge/{fileName}': {
    operationId: 'deleteKnowledgeFile',
    summary: 'Delete a knowledge file',
    description:
      'Its excerpts leave search at once (before the answer). An upload of the same name that lands meanwhile is newer and proceeds.',
    tags: ['Bots'],
    responses: { 204: { description: 'Deleted.' } },
  },
};
