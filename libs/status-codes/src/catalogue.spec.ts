import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isKnownStatusCode, STATUS_CODE_FORMAT, statusCatalogue, statusOf } from './catalogue';

const ROOT = join(__dirname, '..', '..', '..');
const CODE_LITERAL = /\b[0-2]-\d{2}-\d{2}\b/g;

/** Every production .ts file under apps/ and libs/: no specs, no test support, no build output. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

describe('the status code catalogue', () => {
  const files = [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))];

  it('when the sources are scanned, then they are found (the scan itself works)', () => {
    expect(files.some((f) => f.endsWith(join('libs', 'status-codes', 'src', 'catalogue.ts')))).toBe(true);
    expect(files.some((f) => f.includes(join('apps', 'orders', 'src')))).toBe(true);
    expect(files.some((f) => f.endsWith('.spec.ts'))).toBe(false);
  });

  it('when any code under apps/ or libs/ names a status code, then the catalogue has it', () => {
    const missing: string[] = [];
    for (const file of files) {
      for (const [code] of readFileSync(file, 'utf8').matchAll(CODE_LITERAL)) {
        if (!isKnownStatusCode(code)) missing.push(`${relative(ROOT, file)}: ${code}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('when the orders service is scanned, then it uses catalogue codes (the scan finds real usages)', () => {
    const used = new Set(
      files
        .filter((f) => !f.includes('status-codes'))
        .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(CODE_LITERAL)].map((m) => m[0])),
    );
    expect(used).toContain('2-07-04');
  });

  it.each(statusCatalogue().map((e) => [e.code, e]))(
    'when %s is listed, then it has the S-CC-NN format, a description and a boolean retryAllowed',
    (_code, entry) => {
      expect(entry.code).toMatch(STATUS_CODE_FORMAT);
      expect(entry.description.trim().length).toBeGreaterThan(10);
      expect(typeof entry.retryAllowed).toBe('boolean');
    },
  );

  it('when the catalogue is read, then every code appears once, in ascending order', () => {
    const codes = statusCatalogue().map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual([...codes].sort());
  });

  it('when a response takes a code, then statusOf gives the catalogue description', () => {
    for (const entry of statusCatalogue()) {
      expect(statusOf(entry.code as Parameters<typeof statusOf>[0])).toEqual({
        statusCode: entry.code,
        statusDescription: entry.description,
      });
    }
  });

  it('when code outside this library sets a statusDescription, then it comes from statusOf, never a literal', () => {
    const literal = /statusDescription\s*:\s*['"`]/;
    const offenders = files
      .filter((f) => !f.includes(join('libs', 'status-codes')))
      .filter((f) => literal.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
