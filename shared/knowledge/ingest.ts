import { makeCompaction } from './compaction.ts';
import type { IngestJob, KnowledgeFile } from './knowledge-files.ts';

import { makeAnalyseFile } from './analyse-file.ts';
import type { IngestDeps, Outcome } from './ingest-deps.ts';
import { makePublishSegment } from './publish-segment.ts';

export type { IngestDeps } from './ingest-deps.ts';

/**
 * Ingestion of a bot's knowledge, for the ingest worker. For each batch of uploads to one bot:
 * 1. the newest upload of each name that is still `processing` (a newer upload or a delete wins over an older one);
 * 2. read its bytes and extract the text (PDF text layer or OCR, HTML without scripts and styles, Markdown without
 *    markup); split it into excerpts, detect its language, embed the excerpts when a model is configured; an
 *    unreadable file becomes a delete marker (an older version of it leaves search) and `failed` with the reason;
 * 3. write one segment with the batch's files and markers and list it on the bot item: from that one write the new
 *    versions are searchable and the old ones are not (work proportional to the batch, not to the bot's knowledge);
 * 4. mark the files `ready` (or `failed`);
 * 5. merge segments in the background when they have become many (./compaction.ts).
 * Transient failures throw (the queue retries); on the last attempt the files are marked `failed` instead, so no
 * file stays `processing` for ever. A merge failure never fails the batch.
 */
export function makeIngestKnowledge(deps: IngestDeps) {
  const clock = deps.clock ?? (() => new Date());
  const compaction = makeCompaction({ ...deps, options: deps.compaction });
  const analyse = makeAnalyseFile(deps);
  const publish = makePublishSegment(deps, clock);

  return async function ingestBot(botId: string, jobs: IngestJob[], options: { finalAttempt: boolean }): Promise<void> {
    const latest = new Map<string, string>();
    for (const job of jobs) {
      if (job.kind !== 'file') continue;
      const fileName = job.fileName ?? (await deps.files.nameOf(botId, job.fileKey));
      if (fileName === undefined) continue;
      const seen = latest.get(fileName);
      if (!seen || seen < job.generation) latest.set(fileName, job.generation);
    }
    const wanted = [...latest];
    const records = await mapLimited(wanted, 10, ([fileName]) => deps.files.get(botId, fileName));
    // Replaced, deleted or already settled (a job delivered twice) are skipped.
    const pending = records.filter(
      (file, i): file is KnowledgeFile => !!file && file.generation === wanted[i]![1] && file.status === 'processing',
    );
    let outcomes: Outcome[];
    try {
      // Text files overlap their reads; PDFs go one at a time (OCR already runs pages in parallel).
      const pdfs = pending.filter((f) => f.contentType === 'application/pdf');
      const others = pending.filter((f) => f.contentType !== 'application/pdf');
      outcomes = [
        ...(await mapLimited(others, deps.fileConcurrency ?? 4, analyse)),
        ...(await mapLimited(pdfs, 1, analyse)),
      ];
    } catch (error) {
      if (!options.finalAttempt) throw error;
      deps.logger.error('knowledge files failed on their last attempt', { botId, cause: String(error) });
      outcomes = await mapLimited(pending, 1, (file) =>
        analyse(file).catch(() => ({
          kind: 'failed' as const,
          file,
          reason: 'The file could not be processed after several attempts; upload it again.',
        })),
      );
    }

    if (outcomes.length) {
      const docs = outcomes.flatMap((o) => (o.kind === 'ready' ? [o.doc] : []));
      // A failed upload takes any older version of its file out of search, as the listing will say `failed`.
      const markers = outcomes.flatMap((o) =>
        o.kind === 'failed' ? [{ fileKey: o.file.fileKey, generation: o.file.generation, at: clock().getTime() }] : [],
      );
      let listed: boolean;
      try {
        listed = await publish(botId, docs, markers);
      } catch (error) {
        if (!options.finalAttempt) throw error;
        deps.logger.error('knowledge segment failed on its last attempt', { botId, cause: String(error) });
        for (const o of outcomes)
          await deps.files.markFailed(
            botId,
            o.file.fileName,
            o.file.generation,
            'The search index could not be updated after several attempts; upload the file again.',
            clock(),
          );
        return;
      }
      if (!listed) return; // the bot was deleted
      for (const o of outcomes) {
        if (o.kind === 'ready')
          await deps.files.markReady(
            botId,
            o.file.fileName,
            o.file.generation,
            o.doc.excerpts.length,
            clock(),
            o.settled,
          );
        else await deps.files.markFailed(botId, o.file.fileName, o.file.generation, o.reason, clock());
      }
    }
    const mergeAsked = jobs.some((j) => j.kind !== 'file');
    if (outcomes.length || mergeAsked)
      await compaction(botId).catch((error) =>
        deps.logger.warn('knowledge segments not merged; the next batch tries again', { botId, cause: String(error) }),
      );
  };
}

export type IngestKnowledge = ReturnType<typeof makeIngestKnowledge>;

/** `fn` over `items`, at most `limit` at once, results in order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
