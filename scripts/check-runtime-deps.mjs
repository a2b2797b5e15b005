#!/usr/bin/env node
// CI: the runtime dependencies (what ships in the Lambda bundles) against known advisories and the registry's
// latest releases. See docs/dependencies.md for why both checks exist and what they can and cannot see.
//
// 1. `npm audit --omit=dev`: fails on a high or critical advisory. Where the registry refuses the advisory call
//    (it does on some mirrors and proxies), this prints a warning and goes on.
// 2. `npm outdated --omit=dev`: fails when a runtime dependency is a major or minor release behind the registry's
//    `latest`, unless scripts/runtime-deps-allow.json explains why. Patch lag is allowed.
// A registry that does not answer is retried, then reported as NOT CHECKED: a network hiccup never fails CI, and the
// summary never claims a check that did not run.
// 3. Licences, offline, of every package in package-lock.json, development tools included: none may be under the
//    AGPL, the GPL or the SSPL (an `OR` expression passes when one of its choices does).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ATTEMPTS = 3;
const TIMEOUT_MS = 60_000;
/** The licence identifiers no package may carry: the project is Apache-2.0 and must stay distributable as such. */
const COPYLEFT = /^(A?GPL|SSPL)(-|\+|$)/i;

function npmJson(args) {
  const run = spawnSync('npm', [...args, '--json'], { cwd: root, encoding: 'utf8', timeout: TIMEOUT_MS });
  try {
    return { json: JSON.parse(run.stdout || 'null'), status: run.status };
  } catch {
    return { json: undefined, status: run.status, stderr: run.stderr };
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** npm with retries: undefined when the registry never gave a usable answer. */
async function npmWithRetries(args, usable, attempts = ATTEMPTS) {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = npmJson(args);
    if (usable(result)) return result.json;
    if (attempt < attempts) await sleep(2_000 * attempt);
  }
  return undefined;
}

/**
 * What the two answers say: the failures (exit 1), the warnings and the summary line. `audit` or `outdated` undefined:
 * the registry did not answer that check, and the summary says it was not checked.
 */
export function verdict({ audit, outdated, allow }) {
  const warnings = [];
  const failures = [];
  if (!audit) {
    warnings.push('npm audit: the registry did not answer the advisory call; advisories were NOT checked.');
  } else {
    const { high = 0, critical = 0 } = audit.metadata.vulnerabilities;
    if (high + critical > 0) {
      const names = Object.entries(audit.vulnerabilities ?? {})
        .filter(([, v]) => ['high', 'critical'].includes(v.severity))
        .map(([name, v]) => `${name} (${v.severity})`);
      failures.push(
        `npm audit: ${high} high and ${critical} critical advisories in runtime dependencies: ${names.join(', ')}`,
      );
    }
  }
  if (!outdated) {
    warnings.push('npm outdated: the registry did not answer; runtime dependency versions were NOT checked.');
  } else {
    for (const [name, info] of Object.entries(outdated)) {
      const lag = lagOf(info.current, info.latest);
      if (lag === 'none' || lag === 'patch') continue;
      const allowed = allowanceFor(allow, name);
      if (allowed && (allowed.lag === 'major' || allowed.lag === lag)) continue;
      failures.push(
        `${name}: ${info.current} is a ${lag} release behind ${info.latest} (allow it in scripts/runtime-deps-allow.json with the reason, or upgrade)`,
      );
    }
  }
  const advisories = audit
    ? failures.some((f) => f.startsWith('npm audit'))
      ? 'high or critical advisories found'
      : 'no high or critical advisory'
    : 'advisories NOT CHECKED (no answer from the registry)';
  const releases = outdated
    ? failures.some((f) => !f.startsWith('npm audit'))
      ? 'releases behind'
      : 'no release lag beyond the allow-list'
    : 'release lag NOT CHECKED (no answer from the registry)';
  return { warnings, failures, summary: `runtime dependencies: ${advisories}; ${releases}` };
}

async function main() {
  const allow = JSON.parse(readFileSync(join(root, 'scripts/runtime-deps-allow.json'), 'utf8'));
  // 1. Advisories. One attempt: a registry that refuses the advisory call refuses it every time.
  const audit = await npmWithRetries(
    ['audit', '--omit=dev'],
    (r) => r.json?.metadata?.vulnerabilities !== undefined,
    1,
  );
  // 2. Releases behind.
  const outdated = await npmWithRetries(
    ['outdated', '--omit=dev'],
    (r) => r.json !== undefined && r.json !== null && typeof r.json === 'object' && !r.json.error,
  );
  const { warnings, failures, summary } = verdict({ audit, outdated, allow });
  // 3. Licences.
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const licences = copyleftPackages(lock, installedLicence(root));
  for (const w of warnings) console.warn(`warning: ${w}`);
  for (const f of [...failures, ...licences.copyleft]) console.error(`error: ${f}`);
  console.log(summary);
  console.log(
    licences.copyleft.length
      ? `licences: ${licences.copyleft.length} of ${licences.checked} packages are under a copyleft licence`
      : `licences: no AGPL, GPL or SSPL package among the ${licences.checked} of package-lock.json (dev included)`,
  );
  process.exit(failures.length || licences.copyleft.length ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

/** How far `current` is behind `latest`; `none` when it is not behind (a `latest` tag older than what we use). */
function lagOf(current, latest) {
  if (!current || !latest) return 'none';
  const [a, b] = [current, latest].map((v) => v.split(/[.+-]/).slice(0, 3).map(Number));
  for (const [i, level] of ['major', 'minor', 'patch'].entries()) {
    if (b[i] > a[i]) return level;
    if (b[i] < a[i]) return 'none';
  }
  return 'none';
}

function allowanceFor(allow, name) {
  if (allow[name]) return allow[name];
  const scope = Object.keys(allow).find((k) => k.endsWith('/*') && name.startsWith(k.slice(0, -1)));
  return scope ? allow[scope] : undefined;
}

/**
 * The packages of a lock file under a copyleft licence, development tools included (the lock's `license`, or the
 * installed package.json's when the lock has none; a package declaring no licence at all is reported too).
 */
export function copyleftPackages(lock, licenceOf) {
  const copyleft = [];
  let checked = 0;
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === '' || entry.link) continue;
    checked++;
    const licence = entry.license ?? licenceOf(path);
    if (!licence) copyleft.push(`${path}: no licence declared (lock file or package.json): check it by hand`);
    else if (!permitted(licence)) copyleft.push(`${path}: ${licence}`);
  }
  return { checked, copyleft };
}

/** The licence an installed package's package.json declares (the old `licenses` list as a conjunction). */
export function installedLicence(root) {
  return (path) => {
    const file = join(root, path, 'package.json');
    if (!existsSync(file)) return undefined;
    const { license, licenses } = JSON.parse(readFileSync(file, 'utf8'));
    const name = (l) => (typeof l === 'string' ? l : l?.type);
    if (license) return name(license);
    return Array.isArray(licenses) && licenses.length ? licenses.map(name).join(' AND ') : undefined;
  };
}

/**
 * Whether an SPDX expression lets the project use the package: `A OR B` when either does, `A AND B` when both do,
 * an identifier (with or without `WITH exception`) unless it is copyleft. Words without an operator between them
 * ("Public Domain") are one name.
 */
export function permitted(expression) {
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const operator = (word) => tokens[at]?.toUpperCase() === word && ++at;
  const any = () => {
    let ok = all();
    while (operator('OR')) ok = all() || ok;
    return ok;
  };
  const all = () => {
    let ok = one();
    while (operator('AND')) ok = one() && ok;
    return ok;
  };
  const one = () => {
    if (tokens[at] === '(') {
      at++;
      const ok = any();
      if (tokens[at++] !== ')') throw new Error(`Unbalanced licence expression: ${expression}`);
      return ok;
    }
    const words = [];
    while (at < tokens.length && !['(', ')', 'AND', 'OR', 'WITH'].includes(tokens[at].toUpperCase()))
      words.push(tokens[at++]);
    if (!words.length) throw new Error(`Unreadable licence expression: ${expression}`);
    if (operator('WITH')) at++;
    return !COPYLEFT.test(words.join(' '));
  };
  const ok = any();
  if (at !== tokens.length) throw new Error(`Unreadable licence expression: ${expression}`);
  return ok;
}
