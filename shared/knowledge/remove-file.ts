import { NotFoundError } from '../kernel/domain-error.ts';
import { buildSegment, SEGMENT_FORMAT } from './index/segment.ts';
import { fileNameProblem, knowledgeObjectKeys, newSegmentId } from './knowledge-files.ts';
import type { KnowledgeManageDeps, ManageSteps } from './manage-common.ts';

/** Deleting a knowledge file: out of search at once (a delete marker), then its record and bytes. */
export function makeRemoveFile(deps: KnowledgeManageDeps, steps: ManageSteps) {
  const { now } = steps;
  /**
   * Takes the file out of search at once: a delete marker (every version up to the current upload) is listed on
   * the bot before the answer, then the record and the bytes go. An upload of the same name that lands meanwhile
   * is newer than the marker and proceeds.
   */
  return async function remove(projectId: string, botId: string, fileName: string): Promise<void> {
    await deps.requireBot(projectId, botId);
    // A name the API would never have accepted names no file (and past 255 characters would not fit a key).
    const file = fileNameProblem(fileName) ? undefined : await deps.files.get(botId, fileName);
    if (!file) throw new NotFoundError('knowledge-file', `Bot ${botId} has no knowledge file named "${fileName}".`);
    const at = now();
    const id = newSegmentId(at);
    const key = knowledgeObjectKeys.segment(botId, id);
    const bytes = buildSegment([], {
      markers: [{ fileKey: file.fileKey, generation: file.generation, at: at.getTime() }],
      builtAt: at,
    });
    await deps.objects.put(key, bytes, 'application/octet-stream');
    const ref = { id, key, docs: 0, excerpts: 0, markers: 1, bytes: bytes.length, format: SEGMENT_FORMAT };
    if (!(await deps.index.addSegment(botId, ref)))
      throw new NotFoundError('bot', `Bot ${botId} does not exist in project ${projectId}.`);
    await deps.files.remove(botId, fileName, file.generation);
    await deps.objects
      .delete([file.objectKey, knowledgeObjectKeys.excerpts(botId, file.generation)])
      .catch((error) => deps.logger.warn('knowledge objects not deleted', { botId, cause: String(error) }));
    // Deletes add small segments; the worker merges them when they have become many.
    await deps.queue
      .enqueue({ kind: 'merge', botId })
      .catch((error) => deps.logger.warn('segment merge not queued', { botId, cause: String(error) }));
  };
}
