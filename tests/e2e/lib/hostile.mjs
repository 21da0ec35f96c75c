// What the security suites (Chromium and Firefox) plant: hostile model
// output served as a trace (`trace:hostile`), and a reader of everything the
// page keeps in IndexedDB, to look for a planted key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Model output that would run script if it were ever rendered as HTML. */
export const HOSTILE = [
  '<img src=x onerror="window.__pwned=1">',
  ' <script>window.__pwned=2</script>',
  ' [click](javascript:window.__pwned=3)',
  ' <a href="javascript:window.__pwned=4">x</a>',
  ' <svg onload="window.__pwned=5"></svg>',
];

/** Writes a trace labelled "hostile" whose chunks are HOSTILE; returns its path. */
export function hostileTraceFile() {
  let t = 0;
  const chunks = HOSTILE.map((text) => ({ arrived_ms: (t += 30), text, tokens: 1 }));
  const trace = {
    schema_version: 1,
    format: 'latency-lab/trace',
    meta: { label: 'hostile', source: 'live' },
    requests: [{ sent_ms: 0, headers_ms: 10, status: 200, chunks, end_ms: t + 5 }],
  };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lab-sec-')), 'hostile.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  return file;
}

/** Every value in every IndexedDB store of the page, as text (either driver). */
export function dumpIndexedDb(page) {
  return page.evaluate(async () => {
    let out = '';
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((ok, err) => { const r = indexedDB.open(name); r.onsuccess = () => ok(r.result); r.onerror = err; });
      for (const store of db.objectStoreNames) {
        const values = await new Promise((ok) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => ok(r.result); });
        for (const v of values) out += (v instanceof Blob ? await v.text() : typeof v === 'string' ? v : JSON.stringify(v)) + '\n';
      }
      db.close();
    }
    return out;
  });
}
