// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package and by function, so a
// benchmark run says where a service spends its CPU.   node tools/bench/profile-summary.mjs FILE [N]
import { readFileSync } from 'node:fs';

const [file, topN = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url) {
  if (!url) return '(native/V8)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const d = /\/dist\/((?:apps|libs)\/[^/]+)/.exec(url);
  return d ? d[1] : url.replace(/^file:\/\//, '');
}
const pkg = new Map();
const fn = new Map();
for (const [id, us] of self) {
  const n = byId.get(id);
  const w =
    n.callFrame.functionName === '(garbage collector)'
      ? '(gc)'
      : n.callFrame.functionName === '(idle)'
        ? '(idle)'
        : n.callFrame.functionName === '(program)'
          ? '(program)'
          : where(n.callFrame.url);
  pkg.set(w, (pkg.get(w) ?? 0) + us);
  const f = `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fn.set(f, (fn.get(f) ?? 0) + us);
}
const idle = pkg.get('(idle)') ?? 0;
const busy = total - idle;
const show = (title, m) => {
  console.log(`\n${title} (of ${(busy / 1000).toFixed(0)} ms busy)`);
  for (const [k, us] of [...m]
    .filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(topN))) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`);
  }
};
show('self time by package', pkg);
show('self time by function', fn);
