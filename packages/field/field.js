// @latency-lab/field (README.md: what it records and why each line is here).
// The recorder (core.js), whose decoders (decode.js, detect.js and the
// wire's own in wires/) are fetched beside this file when the page's first
// answer streams. A page that knows its wire can load dist/field.WIRE.js
// instead, with that decoder built in (build.mjs).
import { record, spanOf } from './core.js';

const near = (f) => import(new URL(`./${f}.js`, import.meta.url));
const load = () =>
  Promise.all([near('decode'), near('detect')]).then(([m, d]) => ({ ...m, detect: d.wireOf, fetchWire: (id) => near(`wires/${id}`) }));

export { spanOf };
export const installField = (options) => record({ load, ...options });
