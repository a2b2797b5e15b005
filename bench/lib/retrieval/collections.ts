/**
 * Test collections for the retrieval benchmark: documents, queries and graded relevance judgements (qrels).
 *
 * - scifact: BEIR SciFact, test split (5,183 abstracts, 300 claims, 339 binary judgements).
 * - cisi: the CISI collection (1,460 abstracts, 76 judged queries of 112, binary).
 * - cranfield: Cranfield 1400 (1,400 abstracts, 225 queries, graded 1..4, see below).
 *
 * Every document is given as { id, title, text }; an engine that indexes "files" uses title + "\n\n" + text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Doc {
  id: string;
  title: string;
  text: string;
}
export interface Query {
  id: string;
  text: string;
}
/** query id → (doc id → relevance grade); grade ≥ 1 is relevant, 0 judged not relevant. */
export type Qrels = Map<string, Map<string, number>>;

export interface Collection {
  name: string;
  docs: Doc[];
  queries: Query[];
  qrels: Qrels;
}

/**
 * Where the collections are: `RETRIEVAL_DATA_DIR` names the SciFact folder (default `../shared/data/scifact` beside
 * the repository, the steering repository's shared folder); CISI and Cranfield are its siblings. The data is never
 * committed here (it came in with the workplace's fetch tool: shared/ only).
 */
export function scifactDir(): string {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  return resolve(repo, process.env.RETRIEVAL_DATA_DIR || '../shared/data/scifact');
}

/** The collection's files are there (the bench skips, saying why, when they are not). */
export function collectionAvailable(name: string): boolean {
  const first: Record<string, string> = {
    scifact: 'scifact/corpus.jsonl.gz',
    cisi: 'cisi/CISI.ALL.gz',
    cranfield: 'cranfield/cran.all.1400.gz',
  };
  return existsSync(pathOf(first[name] ?? name));
}

/** `scifact/x` is in the SciFact folder itself; other collections are its siblings. */
export function pathOf(path: string): string {
  const root = scifactDir();
  return path.startsWith('scifact/') ? join(root, path.slice('scifact/'.length)) : join(dirname(root), path);
}

function read(path: string): string {
  const bytes = readFileSync(pathOf(path));
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

function addQrel(qrels: Qrels, q: string, d: string, grade: number): void {
  let m = qrels.get(q);
  if (!m) {
    m = new Map();
    qrels.set(q, m);
  }
  m.set(d, Math.max(grade, m.get(d) ?? Number.NEGATIVE_INFINITY));
}

/** BEIR SciFact, test split. */
export function loadSciFact(): Collection {
  const docs = read('scifact/corpus.jsonl.gz')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: o._id, title: o.title, text: o.text };
    });
  const queries = read('scifact/queries.test.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; text: string };
      return { id: o._id, text: o.text };
    });
  const qrels: Qrels = new Map();
  for (const line of read('scifact/qrels.test.tsv').split('\n').slice(1)) {
    if (!line.trim()) continue;
    const [q, d, s] = line.split('\t');
    addQrel(qrels, q!, d!, Number(s));
  }
  return { name: 'scifact', docs, queries, qrels };
}

/** SMART-format records (".I id" then ".X" field markers) → id and fields. */
function smartRecords(text: string): { id: string; fields: Record<string, string> }[] {
  const out: { id: string; fields: Record<string, string> }[] = [];
  let current: { id: string; fields: Record<string, string> } | undefined;
  let field = '';
  for (const line of text.split(/\r?\n/)) {
    const id = /^\.I\s+(\S+)/.exec(line);
    if (id) {
      current = { id: id[1]!, fields: {} };
      out.push(current);
      field = '';
      continue;
    }
    const f = /^\.([A-Z])\s*$/.exec(line);
    if (f && current) {
      field = f[1]!;
      current.fields[field] ??= '';
      continue;
    }
    if (current && field) current.fields[field] += `${line}\n`;
  }
  return out;
}

/** Lines joined into paragraphs: the SMART files wrap lines at ~70 columns. */
function unwrap(s: string | undefined): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}

/** CISI (Glasgow IR test collections): title + abstract (.W); authors and cross-references left out. */
export function loadCisi(): Collection {
  const docs = smartRecords(read('cisi/CISI.ALL.gz')).map((r) => ({
    id: String(Number(r.id)),
    title: unwrap(r.fields.T),
    text: unwrap(r.fields.W),
  }));
  const queries = smartRecords(read('cisi/CISI.QRY')).map((r) => ({
    id: String(Number(r.id)),
    text: unwrap([r.fields.T, r.fields.W].filter(Boolean).join(' ')),
  }));
  const qrels: Qrels = new Map();
  for (const line of read('cisi/CISI.REL').split('\n')) {
    const p = line.trim().split(/\s+/);
    if (p.length < 2) continue;
    addQrel(qrels, String(Number(p[0])), String(Number(p[1])), 1);
  }
  return { name: 'cisi', docs, queries, qrels };
}

/**
 * Cranfield 1400. The query file numbers its queries 001, 002, 004, …; the qrels number them 1..225 in file order.
 * Cleverdon's codes 1 (complete answer) .. 4 (minimum interest) become grades 4 .. 1; -1 ("no interest") is 0.
 */
export function loadCranfield(): Collection {
  const docs = smartRecords(read('cranfield/cran.all.1400.gz')).map((r) => ({
    id: String(Number(r.id)),
    title: unwrap(r.fields.T),
    text: unwrap(r.fields.W),
  }));
  const queries = smartRecords(read('cranfield/cran.qry')).map((r, i) => ({
    id: String(i + 1),
    text: unwrap(r.fields.W),
  }));
  const qrels: Qrels = new Map();
  for (const line of read('cranfield/cranqrel').split('\n')) {
    const p = line.trim().split(/\s+/);
    if (p.length < 3) continue;
    const code = Number(p[2]);
    addQrel(qrels, p[0]!, p[1]!, code >= 1 && code <= 4 ? 5 - code : 0);
  }
  return { name: 'cranfield', docs, queries, qrels };
}

export function loadCollection(name: string): Collection {
  if (name === 'scifact') return loadSciFact();
  if (name === 'cisi') return loadCisi();
  if (name === 'cranfield') return loadCranfield();
  throw new Error(`unknown collection ${name}`);
}

/** The text a knowledge file would hold: title, blank line, body. */
export function fileText(d: Doc): string {
  return d.title ? `${d.title}\n\n${d.text}` : d.text;
}
