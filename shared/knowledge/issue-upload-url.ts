import { TemporarilyUnavailableError } from '../kernel/domain-error.ts';
import { fileKeyOf, KNOWLEDGE_MAX_BYTES, knowledgeObjectKeys, newGeneration } from './knowledge-files.ts';
import { checkNameAndType, type KnowledgeManageDeps, type ManageSteps, UPLOAD_URL_SECONDS } from './manage-common.ts';

/** A browser upload: the URL and fields of a presigned POST for one new generation of a file. */
export function makeIssueUploadUrl(deps: KnowledgeManageDeps, steps: ManageSteps) {
  const { now, dropReplaced } = steps;
  /**
   * An upload URL for the browser: 1. check name (400) and type (415); 2. the bot must be the project's (404);
   * 3. record a new generation of the file, `processing` from now (same name replaces: the earlier upload leaves
   * search); 4. sign a POST that can only store this generation's key, of this type, up to 25 MB, for 15 minutes.
   * The object's arrival queues the ingestion (S3 event → ingest queue), see ./arrivals.ts.
   */
  return async function issueUploadUrl(
    projectId: string,
    botId: string,
    fileName: string,
    contentTypeHeader: string | undefined,
  ) {
    const { type, charset } = checkNameAndType(fileName, contentTypeHeader);
    await deps.requireBot(projectId, botId);
    if (!deps.inbox) throw new TemporarilyUnavailableError('Upload URLs are not configured in this deployment.');
    const at = now();
    const generation = newGeneration(at);
    const fileKey = fileKeyOf(fileName);
    const expiresAt = new Date(at.getTime() + UPLOAD_URL_SECONDS * 1000);
    const objectKey = knowledgeObjectKeys.incoming(botId, fileKey, generation);
    const { url, fields } = await deps.inbox.presignPost(objectKey, {
      contentType: contentTypeHeader!.trim(),
      maxBytes: KNOWLEDGE_MAX_BYTES,
      expiresInSeconds: UPLOAD_URL_SECONDS,
    });
    const previous = await deps.files.get(botId, fileName);
    await deps.files.rememberName(botId, fileKey, fileName);
    const outcome = await deps.files.startUpload({
      botId,
      fileName,
      fileKey,
      generation,
      status: 'processing',
      chunks: 0,
      contentType: type,
      ...(charset ? { charset } : {}),
      bytes: 0,
      objectKey,
      uploadExpiresAt: expiresAt.toISOString(),
      uploadedAt: at.toISOString(),
      updatedAt: at.toISOString(),
    });
    if (outcome === 'started') await dropReplaced(botId, previous);
    return {
      uploadUrl: url,
      method: 'POST' as const,
      fields,
      expiresAt: expiresAt.toISOString(),
      maxBytes: KNOWLEDGE_MAX_BYTES,
    };
  };
}
