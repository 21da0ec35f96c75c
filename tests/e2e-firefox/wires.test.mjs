// Firefox: Live over every wire (tests/e2e/lib/wires_suite.mjs), held to
// the same bound over a bare reader as Chromium. Firefox resolves `fetch`
// only with the first body bytes of a wire that sends nothing before its
// first token (Gemini, Ollama, plain text); Live's frames run while it
// waits for the response, so its first frame does not wake Firefox's idle
// refresh driver between that token's arrival and its read (2.2–2.9 ms it
// cost before: browser::live::screen::waiting; BENCHMARKS.md, "Firefox's
// late first read").
import { firefoxOpen, launchFirefox } from '../e2e/lib/firefox.mjs';
import { wiresSuite } from '../e2e/lib/wires_suite.mjs';

wiresSuite({ name: 'Firefox', launch: launchFirefox, open: firefoxOpen });
