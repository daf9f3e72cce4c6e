import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DECISIONS_DIR,
  INDEX_FILE,
  REPO_ROOT,
  brokenCitations,
  brokenLinks,
  citationsIn,
  decisionProblems,
  indexSection,
  readDecisions,
  withIndex,
} from './decisions';

const { decisions, problems } = readDecisions();
const ids = new Set(decisions.map((d) => d.id));

describe('docs/decisions/, the design decisions by topic', () => {
  it('when the topic files are read, then every decision has a heading with its id, a date and a status', () => {
    expect(decisions.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('when the ids are compared, then each is used once and every status names decisions that exist', () => {
    expect(decisionProblems(decisions)).toEqual([]);
  });

  it('when the repository is searched for citations of decisions, then each one names an id of docs/decisions/', () => {
    // On a failure each line says which file cites which id; fix the citation, or add the decision.
    expect(brokenCitations(decisions)).toEqual([]);
  });

  it('when the links of docs/decisions/ are followed, then each file and #dN anchor exists', () => {
    expect(brokenLinks()).toEqual([]);
  });

  it('when the index is made from the topic files, then docs/decisions/README.md holds it', () => {
    const file = path.join(REPO_ROOT, DECISIONS_DIR, INDEX_FILE);
    const readme = readFileSync(file, 'utf8');
    const fresh = withIndex(readme, indexSection(decisions));
    if (process.env.UPDATE_DECISIONS_INDEX) writeFileSync(file, fresh);
    // On a difference: UPDATE_DECISIONS_INDEX=1 npx jest tools/decisions rewrites the index.
    expect(readme).toBe(fresh);
  });
});

describe('the checks of docs/decisions/ themselves', () => {
  it('when two decisions share an id or a status names a missing one, then both are reported with where they are', () => {
    const some = decisions.find((d) => d.status.kind === 'in force')!;
    const unknown = Math.max(...ids) + 1;
    const copy = { ...some, file: 'copy.md', line: 3 };
    const amended = { ...some, id: unknown, status: { kind: 'amended' as const, by: [unknown + 1] } };
    expect(decisionProblems([some, copy, amended])).toEqual([
      `docs/decisions/copy.md:3: decision ${some.id} is already at docs/decisions/${some.file}:${some.line}`,
      `docs/decisions/${some.file}:${some.line}: decision ${unknown} is amended by ${unknown + 1}, which does not exist`,
    ]);
  });

  it('when a topic file has a heading without its anchor or a decision without its status, then that is reported', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'decisions-'));
    try {
      mkdirSync(path.join(root, DECISIONS_DIR), { recursive: true });
      writeFileSync(
        path.join(root, DECISIONS_DIR, 'demo.md'),
        ['# Demo', '', '## 7. No anchor', '', '## <a id="d8"></a>8. No status', '', '- Date: 2026-11-21', ''].join(
          '\n',
        ),
      );
      expect(readDecisions(root).problems).toEqual([
        `docs/decisions/demo.md:3: a decision heading must read '## <a id="dN"></a>N. Title', not '## 7. No anchor'`,
        `docs/decisions/demo.md:5: decision 8 needs a blank line, '- Date: YYYY-MM-DD' and '- Status: …'`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('citations of decisions', () => {
  // Ids that do not exist are computed, so that this file cites none of them itself.
  const missing = Math.max(...ids) + 1000;

  it('when a file cites an id that docs/decisions/ does not have, then the check names the file, the line and the id', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'decisions-'));
    try {
      mkdirSync(path.join(root, 'apps/demo/src'), { recursive: true });
      mkdirSync(path.join(root, 'docs'));
      writeFileSync(
        path.join(root, 'apps/demo/src/demo.ts'),
        `// fine (decision 65)\n// wrong (decision ${missing})\n`,
      );
      writeFileSync(path.join(root, 'docs/notes.md'), `As decisions 224, ${missing + 1} say.\n`);
      expect(brokenCitations(decisions, root)).toEqual([
        `apps/demo/src/demo.ts:2: "decision ${missing}" cites decision ${missing}, which is not in docs/decisions/`,
        `docs/notes.md:1: "decisions 224, ${missing + 1}" cites decision ${missing + 1}, which is not in docs/decisions/`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each<[string, number[]]>([
    ['see decision 65.', [65]],
    ['(decision 79)', [79]],
    ['Decisions 224, 225 say', [224, 225]],
    ['decisions 228, 229 and 234', [228, 229, 234]],
    ['decisions 244–247), 2026-11-27', [244, 247]],
    ['decisions 233, 237–240 while', [233, 237, 240]],
    ['decisions 110-116', [110, 116]],
    ['decisions 224,225', [224, 225]],
    ['(docs/decisions.md 70)', [70]],
    ['(docs/decisions.md 217, 237): its customer', [217, 237]],
    [' * as stored (docs/decisions.md\n * 186): the link', [186]],
    ['// several (decisions\n// 236, 242)', [236, 242]],
    ['[decision 74](docs/decisions/testing.md#d74)', [74, 74]],
    ['decision 15: at least 7 days, 7 by default', [15]],
    ["decision 250's log levels", [250]],
    ['a decision on revocation, DispatchDecision 5, decisions.md', []],
  ])('when the text is %j, then it cites %j', (text, expected) => {
    expect(citationsIn(text).flatMap((c) => c.ids)).toEqual(expected);
  });

  it('when a decision is named by text or a link names the wrong topic file, then that is reported too', () => {
    const named = 'decision ' + JSON.stringify('messaging/reply-topics');
    expect(citationsIn(`(${named} in docs/decisions/messaging.md)`)).toEqual([
      expect.objectContaining({ line: 1, problem: expect.stringContaining('cite its id') }),
    ]);
    const home = decisions.find((d) => d.id === 251)!.file;
    const elsewhere = home === 'orders.md' ? 'money.md' : 'orders.md';
    const root = mkdtempSync(path.join(tmpdir(), 'decisions-'));
    try {
      writeFileSync(path.join(root, 'README.md'), `[251](docs/decisions/${elsewhere}#d251)\n`);
      expect(brokenCitations(decisions, root)).toEqual([
        `README.md:1: "decisions/${elsewhere}#d251" links decision 251 in ${elsewhere}; it is in ${home}`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
