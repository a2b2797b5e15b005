import { TemporarilyUnavailableError, ValidationError } from '../kernel/domain-error.ts';
import {
  fileKeyOf,
  KNOWLEDGE_MAX_BYTES,
  type KnowledgeContentType,
  type KnowledgeFile,
  knowledgeObjectKeys,
  newGeneration,
} from './knowledge-files.ts';
import { checkNameAndType, type KnowledgeManageDeps, type ManageSteps, UploadTooLargeError } from './manage-common.ts';

/** `PUT …/knowledge/files/{fileName}`: a knowledge file's bytes in the request. */
export function makeUploadFile(deps: KnowledgeManageDeps, steps: ManageSteps) {
  const { now, dropReplaced, enqueue } = steps;
  /**
   * 1. check name, type (415), size; 2. the bot must be the project's; 3. store the bytes; 4. record the upload
   * (`processing`; an earlier upload of the name leaves search); 5. queue the ingest job. Answers at once.
   */
  return async function upload(
    projectId: string,
    botId: string,
    fileName: string,
    contentTypeHeader: string | undefined,
    bytes: Uint8Array,
  ) {
    const { type, charset } = checkNameAndType(fileName, contentTypeHeader);
    if (bytes.length > KNOWLEDGE_MAX_BYTES) {
      throw new UploadTooLargeError(`Knowledge files are limited to ${KNOWLEDGE_MAX_BYTES} bytes (25 MB).`);
    }
    if (bytes.length === 0)
      throw new ValidationError('The file is empty.', [
        { path: 'body', message: 'The file is empty.', code: 'too_small' },
      ]);
    // The bot check and the earlier upload's record in one round trip.
    const [, previous] = await Promise.all([deps.requireBot(projectId, botId), deps.files.get(botId, fileName)]);

    const at = now();
    const generation = newGeneration(at);
    const file: KnowledgeFile = {
      botId,
      fileName,
      fileKey: fileKeyOf(fileName),
      generation,
      status: 'processing',
      chunks: 0,
      contentType: type as KnowledgeContentType,
      ...(charset ? { charset } : {}),
      bytes: bytes.length,
      objectKey: knowledgeObjectKeys.upload(botId, generation),
      uploadedAt: at.toISOString(),
      updatedAt: at.toISOString(),
    };
    await deps.objects.put(file.objectKey, bytes, type);
    const outcome = await deps.files.startUpload(file);
    if (outcome === 'started') {
      await dropReplaced(botId, previous);
      try {
        await enqueue({ kind: 'file', botId, fileKey: file.fileKey, fileName, generation });
      } catch (error) {
        deps.logger.error('ingest job could not be queued', { botId, fileKey: file.fileKey, cause: String(error) });
        await deps.files.markFailed(
          botId,
          fileName,
          generation,
          'The file could not be queued for processing; upload it again.',
          now(),
        );
        throw new TemporarilyUnavailableError('The file could not be queued for processing; try again.', error);
      }
    }
    // 'superseded': a newer upload of the same name arrived meanwhile and is the one processed.
    return { fileName, status: 'processing' as const };
  };
}
