import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The design decisions in docs/decisions/ (one Markdown file per topic, each decision under a
 * heading with its id) and the citations of them across the repository. Used by
 * decisions.spec.ts, which fails when a citation names an id that docs/decisions/ does not have.
 */

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const DECISIONS_DIR = 'docs/decisions';
export const INDEX_FILE = 'README.md';

/** Where citations are looked for (relative to the repository root), and in which files. */
export const CITING_PATHS = ['apps', 'libs', 'tools', 'tests', 'k8s', 'docs', 'README.md', 'examples'];
const CITING_FILE = /\.(ts|mjs|js|md|ya?ml|json)$/;
/** Dependencies, build output, run state and other git-ignored output. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.run', '.nx', 'coverage', 'target']);

export type Status = { kind: 'in force' } | { kind: 'replaced' | 'amended'; by: number[]; note?: string };

export interface Decision {
  id: number;
  title: string;
  /** The topic file's name, e.g. `orders.md`. */
  file: string;
  line: number;
  date: string;
  status: Status;
  /** Under the file's `## History` heading (replaced decisions live there). */
  inHistory: boolean;
}

export interface DecisionFiles {
  decisions: Decision[];
  /** Malformed headings, missing or unreadable dates and statuses: `file:line: what`. */
  problems: string[];
}

/** `## <a id="d65"></a>65. One PostgreSQL work queue, hand-made` (### under History). */
const HEADING = /^(#{2,3}) <a id="d(\d+)"><\/a>(\d+)\. (\S.*)$/;
/** Any heading whose text starts with a number: meant as a decision, so it must match HEADING. */
const NUMBERED_HEADING = /^#{1,6} (?:<a [^>]*><\/a>)?\d+\./;
const DATE = /^- Date: (\d{4}-\d{2}-\d{2})$/;
const STATUS = /^- Status: (in force|(replaced|amended) by (\d+(?:, \d+)*)(?: — (\S.*))?)$/;

/** The topic files of docs/decisions/ (every `.md` but the index), by name. */
export function topicFiles(root = REPO_ROOT): string[] {
  return readdirSync(path.join(root, DECISIONS_DIR))
    .filter((f) => f.endsWith('.md') && f !== INDEX_FILE)
    .sort();
}

/** Every decision of every topic file, and what is wrong with the way any of them is written. */
export function readDecisions(root = REPO_ROOT): DecisionFiles {
  const decisions: Decision[] = [];
  const problems: string[] = [];
  for (const file of topicFiles(root)) {
    const lines = readFileSync(path.join(root, DECISIONS_DIR, file), 'utf8').split('\n');
    let inHistory = false;
    lines.forEach((text, i) => {
      const where = `${DECISIONS_DIR}/${file}:${i + 1}`;
      if (/^## History\s*$/.test(text)) inHistory = true;
      const m = HEADING.exec(text);
      if (!m) {
        if (NUMBERED_HEADING.test(text))
          problems.push(`${where}: a decision heading must read '## <a id="dN"></a>N. Title', not '${text}'`);
        return;
      }
      const [, level, anchor, number, title] = m;
      if (anchor !== number) problems.push(`${where}: anchor d${anchor} does not match the id ${number}`);
      if (level !== (inHistory ? '###' : '##'))
        problems.push(`${where}: decision ${number} should be a ${inHistory ? '###' : '##'} heading here`);
      const date = DATE.exec(lines[i + 2] ?? '');
      const status = STATUS.exec(lines[i + 3] ?? '');
      if (lines[i + 1] !== '' || !date || !status)
        problems.push(`${where}: decision ${number} needs a blank line, '- Date: YYYY-MM-DD' and '- Status: …'`);
      decisions.push({
        id: Number(number),
        title,
        file,
        line: i + 1,
        date: date?.[1] ?? '',
        status: !status || status[1] === 'in force' ? { kind: 'in force' } : parseStatus(status),
        inHistory,
      });
    });
  }
  return { decisions, problems };
}

function parseStatus(m: RegExpExecArray): Status {
  return {
    kind: m[2] as 'replaced' | 'amended',
    by: m[3].split(', ').map(Number),
    ...(m[4] ? { note: m[4] } : {}),
  };
}

export function statusText(s: Status): string {
  return s.kind === 'in force' ? s.kind : `${s.kind} by ${s.by.join(', ')}`;
}

/**
 * What is wrong with the set of decisions as a whole: an id used twice, a status naming a decision
 * that does not exist (or itself), a replaced decision outside its file's History or the reverse.
 */
export function decisionProblems(decisions: Decision[]): string[] {
  const problems: string[] = [];
  const byId = new Map<number, Decision>();
  const at = (d: Decision) => `${DECISIONS_DIR}/${d.file}:${d.line}`;
  for (const d of decisions) {
    const first = byId.get(d.id);
    if (first) problems.push(`${at(d)}: decision ${d.id} is already at ${at(first)}`);
    else byId.set(d.id, d);
  }
  for (const d of decisions) {
    if (d.status.kind === 'in force') {
      if (d.inHistory) problems.push(`${at(d)}: decision ${d.id} is in force but under History`);
      continue;
    }
    for (const by of d.status.by) {
      if (!byId.has(by)) problems.push(`${at(d)}: decision ${d.id} is ${d.status.kind} by ${by}, which does not exist`);
      if (by === d.id) problems.push(`${at(d)}: decision ${d.id} is ${d.status.kind} by itself`);
    }
    if (d.status.kind === 'replaced' && !d.inHistory)
      problems.push(`${at(d)}: decision ${d.id} is replaced, so it belongs under its file's '## History'`);
    if (d.status.kind === 'amended' && d.inHistory)
      problems.push(`${at(d)}: decision ${d.id} is only amended, so it stays out of History`);
  }
  return problems;
}

export interface Citation {
  line: number;
  /** The citation as written (one line). */
  text: string;
  /** Every id it names; a range `244–247` names its two ends. */
  ids: number[];
  /** The topic file a link names (`decisions/performance.md#d237`). */
  file?: string;
  /** A citation that cannot be right whatever ids exist. */
  problem?: string;
}

/**
 * A line break inside a citation, with the comment marker that continues it (`//`, ` * `, `#`, `>`):
 * "(docs/decisions.md\n * 186)" is one citation.
 */
const GAP = String.raw`[ \t]*(?:\r?\n[ \t]*(?:\/\/+|\*(?!\/)|#+|>)?[ \t]*)?`;
/** An id: whole digits, not the start of a decimal ("4.3"); "224,225" is two ids. */
const ID = String.raw`\d{1,4}(?!\d)(?!\.\d)`;
const LIST_SEPARATOR = String.raw`${GAP}(?:,${GAP}(?:and\b${GAP})?|and\b${GAP}|&${GAP})`;
const RANGE_SEPARATOR = String.raw`(?:${GAP}[–—]${GAP}|-(?=\d))`;
/**
 * "decision 65", "Decisions 224, 225", "decisions 228, 229 and 234", "decisions 244–247",
 * "docs/decisions.md 70", "docs/decisions.md 217, 237"; the old single file's numbers are the ids.
 */
const NUMBERED = new RegExp(
  String.raw`(?<![\w/.-])(?:(?:docs\/)?decisions\.md|decisions?)${GAP}(${ID}(?:(?:${LIST_SEPARATOR}|${RANGE_SEPARATOR})${ID})*)`,
  'gi',
);
/** A link into a topic file: `docs/decisions/performance.md#d237`. */
const LINKED = /\bdecisions\/([\w-]+\.md)#d(\d+)\b/g;
/** A decision named by a quoted text instead of its id (a title or a slug). */
const NAMED = new RegExp(String.raw`(?<![\w/.-])decisions?(?=\s)${GAP}"(\w[^"\n]*)"`, 'gi');

/** The citations of decisions in a text. */
export function citationsIn(text: string): Citation[] {
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const found: Citation[] = [];
  for (const m of text.matchAll(NUMBERED)) {
    const tokens = m[1].match(/\d+|[–—-]/g) ?? [];
    const ids: number[] = [];
    let problem: string | undefined;
    tokens.forEach((t, i) => {
      if (/\d/.test(t)) ids.push(Number(t));
      else if (Number(tokens[i + 1]) <= Number(tokens[i - 1]))
        problem = `the range ${tokens[i - 1]}${t}${tokens[i + 1]} does not go up`;
    });
    found.push({ line: lineOf(m.index), text: oneLine(m[0]), ids, ...(problem ? { problem } : {}) });
  }
  for (const m of text.matchAll(LINKED))
    found.push({ line: lineOf(m.index), text: m[0], ids: [Number(m[2])], file: m[1] });
  for (const m of text.matchAll(NAMED))
    found.push({
      line: lineOf(m.index),
      text: oneLine(m[0]),
      ids: [],
      problem: 'names a decision by text: cite its id ("decision N")',
    });
  return found.sort((a, b) => a.line - b.line);
}

const oneLine = (s: string) => s.replace(/\s*\n\s*(?:\/\/+|\*|#+|>)?\s*/g, ' ');

/** The files citations are looked for in, relative to `root`, in a stable order. */
export function citingFiles(root = REPO_ROOT): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) walk(child);
      else if (e.isFile() && CITING_FILE.test(e.name)) out.push(child);
    }
  };
  for (const p of CITING_PATHS) {
    if (!existsSync(path.join(root, p))) continue;
    if (CITING_FILE.test(p)) out.push(p);
    else walk(p);
  }
  return out.sort();
}

/**
 * Every citation under `root` that names an id docs/decisions/ does not have (or a topic file the
 * id is not in, or no id at all), as `file:line: … cites …`.
 */
export function brokenCitations(decisions: Decision[], root = REPO_ROOT, files = citingFiles(root)): string[] {
  const fileOf = new Map(decisions.map((d) => [d.id, d.file]));
  const broken: string[] = [];
  for (const file of files) {
    for (const c of citationsIn(readFileSync(path.join(root, file), 'utf8'))) {
      const at = `${file}:${c.line}: "${c.text}"`;
      if (c.problem) broken.push(`${at} ${c.problem}`);
      for (const id of c.ids) {
        const home = fileOf.get(id);
        if (!home) broken.push(`${at} cites decision ${id}, which is not in ${DECISIONS_DIR}/`);
        else if (c.file && c.file !== home) broken.push(`${at} links decision ${id} in ${c.file}; it is in ${home}`);
      }
    }
  }
  return broken;
}

/**
 * Relative links of docs/decisions/ (and of the pointer docs/decisions.md) that lead nowhere: a
 * file that does not exist, or a `#dN` anchor its file does not have. Texts moved here from
 * docs/, so a link that was right there may not be here.
 */
export function brokenLinks(root = REPO_ROOT): string[] {
  const files = [...topicFiles(root), INDEX_FILE].map((f) => `${DECISIONS_DIR}/${f}`).concat('docs/decisions.md');
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [target, anchor] = m[1].split('#');
      if (/^[a-z]+:/.test(target)) continue;
      const resolved = target ? path.join(path.dirname(file), target) : file;
      const at = `${file}:${text.slice(0, m.index).split('\n').length}: (${m[1]})`;
      if (!existsSync(path.join(root, resolved))) broken.push(`${at} leads to ${resolved}, which does not exist`);
      else if (
        /^d\d+$/.test(anchor ?? '') &&
        !readFileSync(path.join(root, resolved), 'utf8').includes(`<a id="${anchor}">`)
      )
        broken.push(`${at}: ${resolved} has no anchor ${anchor}`);
    }
  }
  return broken;
}

const INDEX_START = '<!-- index -->';
const INDEX_END = '<!-- end of index -->';

/** The index section of docs/decisions/README.md for these decisions. */
export function indexSection(decisions: Decision[]): string {
  const sorted = [...decisions].sort((a, b) => a.id - b.id);
  const next = Math.max(0, ...sorted.map((d) => d.id)) + 1;
  const rows = sorted.map((d) => {
    const topic = d.file.replace(/\.md$/, '');
    return `| [${d.id}](${d.file}#d${d.id}) | ${d.title.replace(/\|/g, '\\|')} | [${topic}](${d.file}) | ${statusText(d.status)} |`;
  });
  return [
    INDEX_START,
    '',
    `${sorted.length} decisions; the next free id is **${next}**.`,
    '',
    '| Id | Decision | Topic | Status |',
    '| --: | --- | --- | --- |',
    ...rows,
    '',
    INDEX_END,
  ].join('\n');
}

/** The README's text with its index section replaced by `section`. */
export function withIndex(readme: string, section: string): string {
  const start = readme.indexOf(INDEX_START);
  const end = readme.indexOf(INDEX_END);
  if (start < 0 || end < start) throw new Error(`${DECISIONS_DIR}/${INDEX_FILE} has no index markers`);
  return readme.slice(0, start) + section + readme.slice(end + INDEX_END.length);
}
