// Latency Lab's field snippet, installed as packages/field/README.md says:
// before the app (module scripts run in order), from the page's own copy.
// Settings come from the URL's fragment (never sent to a server):
// #key=INGEST_KEY&collector=URL&site=NAME.
import { installField } from './field.js';

const conf = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
window.field = conf.key
  ? installField({ collector: new URL(conf.collector || '/v1/traces', location.href).href, key: conf.key, site: conf.site, settleMs: Number(conf.settle || 1000) })
  : null;
