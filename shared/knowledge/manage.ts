import { type KnowledgeFile, knowledgeObjectKeys, type Page } from './knowledge-files.ts';
import { type KnowledgeManageDeps, makeManageSteps } from './manage-common.ts';
import { makeIssueUploadUrl } from './issue-upload-url.ts';
import { makeRemoveFile } from './remove-file.ts';
import { makeUploadFile } from './upload-file.ts';

export {
  type KnowledgeManageDeps,
  parseContentType,
  UnsupportedMediaTypeError,
  UPLOAD_URL_SECONDS,
  UploadTooLargeError,
} from './manage-common.ts';

/** Knowledge files of a bot in the management API: upload (same name replaces), list, delete. */
export function makeKnowledgeManagement(deps: KnowledgeManageDeps) {
  const steps = makeManageSteps(deps);
  return {
    upload: makeUploadFile(deps, steps),
    issueUploadUrl: makeIssueUploadUrl(deps, steps),
    /**
     * A page of the bot's files by name (`limit` 1..1000, `cursor` from the previous page). An upload URL that expired
     * with nothing posted to it leaves its file `failed`.
     */
    async list(
      projectId: string,
      botId: string,
      page: { limit: number; cursor?: string },
    ): Promise<Page<KnowledgeFile>> {
      await deps.requireBot(projectId, botId);
      const { items, nextCursor } = await deps.files.page(botId, page);
      return {
        items: await Promise.all(items.map(steps.settleAbandonedUpload)),
        ...(nextCursor ? { nextCursor } : {}),
      };
    },

    remove: makeRemoveFile(deps, steps),

    /** Everything a deleted bot had: file records and every object under its prefix. */
    async purgeBot(botId: string): Promise<void> {
      await deps.files.removeAll(botId);
      await deps.objects.deletePrefix(knowledgeObjectKeys.botPrefix(botId));
    },
  };
}

export type KnowledgeManagement = ReturnType<typeof makeKnowledgeManagement>;
