// Builds the snippet for pages (dist/), minified by esbuild:
// - dist/field.js and the modules it loads on demand (decode.js, detect.js,
//   wires/*.js) and transports.js, each minified alone: any wire, its
//   decoder fetched when the page's first answer streams;
// - dist/field.WIRE.js, one file per wire: the snippet with that wire's
//   decoder built in, for a page that knows what it streams.
// Prints each build's size gzipped; the lab's tests hold them to BUDGET.
//   node packages/field/build.mjs [OUT_DIR]
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** What a page downloads for its own wire (bytes, gzipped). */
export const BUDGET = 5000;
export const WIRES = ['chat', 'responses', 'anthropic', 'gemini', 'ollama', 'ui_stream', 'data_stream', 'text'];
const gz = (b) => gzipSync(b, { level: 9 }).length;
/** Properties only the snippet's own objects have (never the page's, the
 *  DOM's or a wire's JSON): minified to one letter, the same in every file
 *  (one cache), so the separately built modules still fit together. */
const MANGLE = /^(t0|li|lastPaint|shown|sure|st|put|idle|calls|use|fin|named|bad|raw|lines|ends|ready|op|err|chars|wire|finish|ct|state|paint|act|go|byPage)$/;
const opts = { minify: true, format: 'esm', write: false, target: 'es2022', mangleProps: MANGLE, mangleCache: {} };

/** Builds into `out`; returns { file: gzipped bytes }. */
export async function buildField(out = path.join(HERE, 'dist')) {
  mkdirSync(path.join(out, 'wires'), { recursive: true });
  const sizes = {};
  const min = async (file, more = {}) => {
    const r = await build({ ...opts, ...more, entryPoints: [path.join(HERE, file)] });
    opts.mangleCache = r.mangleCache;
    writeFileSync(path.join(out, file), r.outputFiles[0].contents);
    sizes[file] = gz(r.outputFiles[0].contents);
  };
  for (const f of ['decode.js', 'detect.js', 'transports.js']) await min(f);
  // field.js with the recorder in it: one file on the page's first visit.
  await min('field.js', { bundle: true });
  for (const f of readdirSync(path.join(HERE, 'wires'))) await min(`wires/${f}`);
  for (const w of WIRES) {
    const wire = w == 'text' ? 'const wire = text;' : `import wire from './wires/${w}.js';`;
    const entry = `import { record, spanOf } from './core.js';
import * as decoder from './decode.js';
import { only, text } from './decode.js';
${wire}
export { spanOf };
export const installField = (o) => record({ decoder, wires: [wire], detect: only(wire), ...o });
`;
    const r = await build({
      stdin: { contents: entry, resolveDir: HERE, sourcefile: `field.${w}.js` },
      ...opts,
      bundle: true,
    });
    writeFileSync(path.join(out, `field.${w}.js`), r.outputFiles[0].contents);
    sizes[`field.${w}.js`] = gz(r.outputFiles[0].contents);
  }
  return sizes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await buildField(process.argv[2]);
  for (const [f, n] of Object.entries(sizes)) console.log(`${f.padEnd(24)} ${String(n).padStart(5)} B gzipped`);
  const lazy = ['field.js', 'decode.js', 'detect.js'].reduce((s, f) => s + sizes[f], 0);
  console.log(`field.js with its decoders loaded: ${lazy} B + the wire's (${Math.min(...WIRES.filter((w) => w != 'text').map((w) => sizes[`wires/${w}.js`]))}–${Math.max(...WIRES.filter((w) => w != 'text').map((w) => sizes[`wires/${w}.js`]))} B)`);
}
