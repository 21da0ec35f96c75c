// Studies that collect themselves: a researcher publishes a 3-condition
// study to `latency-lab serve` (SQLite), participants in separate browser
// contexts open its link (one reloads mid-way, one goes offline for a few
// trials), and the researcher's Results view shows every answer with no
// file handling, with the same numbers as today's file-based merge of the
// same answers. Also: the server numbers participants (three people, three
// rows of the Latin square), a participant who leaves sees no design, and
// reopening a finished link says it is done.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { labSuite, launchBrowser, openPage, setField, startServer, waitForText } from './lib/lab.mjs';

const CONDITIONS = [
  { name: 'Quokka', spec: 'ttft=60,tpot=6,tokens=10' },
  { name: 'Tortoise', spec: 'ttft=400,tpot=6,tokens=10' },
  { name: 'Hiccup', spec: 'ttft=60,tpot=25,jitter=gamma:1.0,tokens=10,seed=3' },
];

async function download(page, testId) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return readFileSync(await d.path(), 'utf8');
}

/** Plays the current trial and answers it. */
async function answerTrial(page, k) {
  await page.getByTestId('trial-play').click();
  const q = page.getByTestId('participant').locator('fieldset[data-testid^=question-]');
  await q.first().waitFor({ timeout: 15_000 });
  const kind = await q.first().getAttribute('data-testid');
  await page.waitForTimeout(20);
  if (kind === 'question-rating') await page.getByTestId(`rate-${1 + ((k * 3 + 1) % 7)}`).click();
  else await page.getByTestId(k % 3 === 0 ? 'choose-b' : 'choose-a').click();
}

/** Waits until the progress reads `done` of its total; returns the total. */
async function progress(page, done) {
  const t = await waitForText(page.getByTestId('participant-progress'), new RegExp(`^${done} of \\d+ done`));
  return Number(t.match(/of (\d+)/)[1]);
}

/** A participant opens the link and consents; returns the trial count. */
async function join(browser, link) {
  const p = await openPage(browser, link);
  await p.page.getByTestId('consent-accept').click();
  await p.page.getByTestId('participant-begin').click();
  return { ...p, total: await progress(p.page, 0) };
}

/** The researcher designs the 3-condition study, publishes it; returns its link. */
async function publish(lab, page, id) {
  await page.getByTestId('study-view').waitFor();
  await page.getByTestId('study-saved').selectOption('~new');
  await setField(page, 'study-title', `Server study ${id}`);
  await setField(page, 'study-id', id);
  for (const [i, c] of CONDITIONS.entries()) {
    await page.getByTestId('condition-name').nth(i).fill(c.name);
    await page.getByTestId('condition-name').nth(i).blur();
    await page.getByTestId('condition-spec').nth(i).fill(c.spec);
    await page.getByTestId('condition-spec').nth(i).blur();
  }
  await waitForText(page.getByTestId('study-plan'), /9 trial/);
  const token = readFileSync(path.join(lab.server.dir, 'data', 'researcher-token'), 'utf8').trim();
  await setField(page, 'study-token', token);
  await page.getByTestId('study-publish').click();
  await waitForText(page.getByTestId('server-message'), /Published/);
  const link = await page.getByTestId('published-link').first().inputValue();
  assert.match(link, /\/s\/[0-9a-z]{8}$/);
  assert.ok(!link.includes(token.slice(4, 20)), 'the token is not in the link');
  return { link, token };
}

/** The text of the results tables (ratings, choices). */
async function tables(page) {
  const out = [];
  for (const id of ['results-ratings', 'results-choices']) {
    // Waits for the table: a missing one fails here instead of comparing
    // two empty strings.
    const text = await page.getByTestId(id).innerText({ timeout: 10_000 });
    assert.match(text, /\d/, `${id} shows figures`);
    out.push(text);
  }
  return out;
}

/** A page whose workers cannot start (what a browser without them, or a
 *  blocked worker script, gives the release clock). */
const NO_WORKERS = 'window.Worker = class { constructor() { throw new Error("workers are blocked in this test"); } };';

/** What Chromium logs, and only that, for a send while offline or to a
 *  server that is down: the participant page itself logs nothing. */
const OFFLINE = 'console: Failed to load resource: net::ERR_INTERNET_DISCONNECTED';
const REFUSED = 'console: Failed to load resource: net::ERR_CONNECTION_REFUSED';

describe('Study server', () => {
  const lab = labSuite();

  test('publish; two participants (reload, offline) answer; results arrive and equal the file-based merge', async () => {
    const r = await openPage(lab.browser, `${lab.server.url}#study`);
    const { link } = await publish(lab, r.page, 'server-e2e');
    const studyFile = await download(r.page, 'study-download');

    // Participant A reloads mid-way.
    const a = await join(lab.browser, link);
    for (let k = 0; k < 3; k++) await answerTrial(a.page, k);
    await progress(a.page, 3);
    await waitForText(a.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/);
    await a.page.reload();
    await a.page.getByTestId('participant-resume').waitFor();
    await a.page.getByTestId('participant-continue').click();
    for (let k = 3; k < a.total; k++) await answerTrial(a.page, k);
    await a.page.getByTestId('participant-done').waitFor();
    await waitForText(a.page.getByTestId('participant-receipt'), /All 9 answers are saved to the study server/);
    const fileA = await download(a.page, 'participant-download');

    // Participant B goes offline for three trials: answers wait, then arrive.
    const b = await join(lab.browser, link);
    for (let k = 0; k < 2; k++) await answerTrial(b.page, k);
    await waitForText(b.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/);
    await b.context.setOffline(true);
    for (let k = 2; k < 5; k++) await answerTrial(b.page, k);
    await waitForText(b.page.getByTestId('participant-server'), /^3 answer\(s\) waiting/, 15_000);
    assert.match(await b.page.getByTestId('participant-server-problem').innerText(), /Not saved to the study server yet/);
    await b.context.setOffline(false);
    await waitForText(b.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/, 40_000);
    for (let k = 5; k < b.total; k++) await answerTrial(b.page, k);
    await b.page.getByTestId('participant-done').waitFor();
    await waitForText(b.page.getByTestId('participant-receipt'), /All 9 answers are saved to the study server/);
    const fileB = await download(b.page, 'participant-download');

    // The researcher's Results view fills by itself.
    const msg = async () => ((await r.page.getByTestId('server-message').count()) ? r.page.getByTestId('server-message').innerText() : '');
    await waitForText(r.page.getByTestId('results-participants'), /^2 participant\(s\), 18 answer/, 20_000).catch(async (e) => {
      throw new Error(`${e.message}; server message: ${await msg()}`);
    });
    await waitForText(r.page.getByTestId('published-counts'), /2 participant\(s\), 18 answer\(s\)/);
    const fromServer = await tables(r.page);
    assert.match(fromServer[0], /Quokka/);

    // Today's file-based way, in a browser without the server's answers.
    const f = await openPage(lab.browser, `${lab.server.url}#study`);
    await f.page.getByTestId('study-file').setInputFiles({ name: 'study.json', mimeType: 'application/json', buffer: Buffer.from(studyFile) });
    await waitForText(f.page.getByTestId('study-message'), /Opened/);
    await f.page.getByTestId('results-merge').setInputFiles([
      { name: 'a.results.json', mimeType: 'application/json', buffer: Buffer.from(fileA) },
      { name: 'b.results.json', mimeType: 'application/json', buffer: Buffer.from(fileB) },
    ]);
    await waitForText(f.page.getByTestId('results-participants'), /^2 participant\(s\), 18 answer/);
    assert.deepEqual(await tables(f.page), fromServer, 'same numbers as the file-based merge');
    // Merged files stay after a reload.
    await f.page.reload();
    await waitForText(f.page.getByTestId('results-participants'), /^2 participant\(s\), 18 answer/);

    // The researcher merging the same files too counts each answer once.
    await r.page.getByTestId('results-merge').setInputFiles([
      { name: 'a.results.json', mimeType: 'application/json', buffer: Buffer.from(fileA) },
    ]);
    await waitForText(r.page.getByTestId('results-message'), /merged/);
    await waitForText(r.page.getByTestId('results-participants'), /^2 participant\(s\), 18 answer/);
    assert.deepEqual([...r.problems, ...a.problems, ...f.problems], []);
    // B's page logged its failed sends while offline, nothing else.
    assert.ok(b.problems.length > 0 && b.problems.every((p) => p === OFFLINE), b.problems.join('\n'));
    for (const p of [r, a, b, f]) await p.context.close();
  });

  test('a browser that cannot run the release clock is told before consent; its answers say so and can be left out', async () => {
    const r = await openPage(lab.browser, `${lab.server.url}#study`);
    const { link, token } = await publish(lab, r.page, 'server-timing');
    const id = link.split('/s/')[1];
    const participant = async (options) => {
      const p = await openPage(lab.browser, link, undefined, options);
      const said = await waitForText(p.page.getByTestId('participant-timing'), /precise timing/, 15_000);
      await p.page.getByTestId('consent-accept').click();
      await p.page.getByTestId('participant-begin').click();
      for (let k = 0; k < 3; k++) await answerTrial(p.page, k);
      await waitForText(p.page.getByTestId('participant-server'), /^3 answer\(s\) saved to the study server$/, 15_000);
      return { ...p, said };
    };
    const a = await participant();
    // B's page cannot start workers: the release clock falls back to the page's main thread.
    const b = await participant({ initScript: NO_WORKERS });
    assert.match(a.said, /can play the samples with precise timing/, a.said);
    assert.match(b.said, /cannot play the samples with precise timing: .*main thread/, b.said);

    const res = await (await fetch(`${lab.server.url}api/studies/${id}/results`, { headers: { Authorization: `Bearer ${token}` } })).json();
    const paths = new Map();
    for (const x of res.responses) {
      assert.equal(x.timing?.engine, 'blink', JSON.stringify(x));
      paths.set(x.participant, [...(paths.get(x.participant) ?? []), x.timing.scheduler]);
    }
    assert.deepEqual([...paths.values()].map((v) => v.join(',')).sort(), ['main_thread,main_thread,main_thread', 'workers,workers,workers']);

    // The researcher sees the answers by engine and leaves B's out.
    await waitForText(r.page.getByTestId('results-participants'), /^2 participant\(s\), 6 answer/, 20_000);
    const row = r.page.locator('[data-testid=engine-row][data-engine=Blink]');
    assert.equal(await row.getByTestId('engine-answers').innerText(), '6');
    assert.equal(await row.getByTestId('engine-imprecise').innerText(), '3');
    const csv = await download(r.page, 'results-csv');
    assert.match(csv.split('\n')[0], /,engine,precise$/);
    assert.equal(csv.split('\n').filter((l) => l.endsWith(',blink,false')).length, 3, csv);
    await r.page.getByTestId('results-precise-only').check();
    await waitForText(r.page.getByTestId('results-participants'), /^1 participant\(s\), 3 answer/);
    await r.page.getByTestId('results-precise-only').uncheck();
    await waitForText(r.page.getByTestId('results-participants'), /^2 participant\(s\), 6 answer/);
    for (const p of [r, a, b]) {
      assert.deepEqual(p.problems, []);
      await p.context.close();
    }
  });

  test('three participants get three rows; leaving shows no design; a finished link says it is done', async () => {
    const r = await openPage(lab.browser, `${lab.server.url}#study`);
    const { link, token } = await publish(lab, r.page, 'server-rows');
    const id = link.split('/s/')[1];
    const people = [];
    for (let i = 0; i < 3; i++) {
      const p = await join(lab.browser, link);
      await answerTrial(p.page, 0);
      await waitForText(p.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/);
      people.push(p);
    }
    const res = await (await fetch(`${lab.server.url}api/studies/${id}/results`, { headers: { Authorization: `Bearer ${token}` } })).json();
    const firstTrial = new Map(res.responses.filter((x) => x.trial === 0).map((x) => [x.participant, x.conditions.join('+')]));
    assert.equal(firstTrial.size, 3, JSON.stringify(res.responses));
    assert.equal(new Set(firstTrial.values()).size, 3, `three rows of the Latin square: ${[...firstTrial.values()]}`);
    assert.deepEqual([...firstTrial.keys()].map((p) => p.slice(0, 5)).sort(), ['p001-', 'p002-', 'p003-']);

    // Participant 3 leaves: no condition name, no design anywhere.
    const leaver = people[2].page;
    leaver.on('dialog', (d) => d.accept());
    await leaver.getByTestId('participant-quit').click();
    await leaver.waitForFunction(() => location.hash === '');
    await leaver.getByTestId('tab-study').click();
    await leaver.getByTestId('study-view').waitFor();
    const options = await leaver.getByTestId('study-saved').innerText();
    assert.ok(!options.includes('server-rows') && !options.includes('Server study'), options);
    const all = await leaver.locator('body').innerText();
    for (const c of CONDITIONS) assert.ok(!all.includes(c.name) && !all.includes(c.spec), `saw ${c.name}`);

    // Participant 1 finishes, then opens the link again: done, not a new session.
    const p1 = people[0].page;
    for (let k = 1; k < people[0].total; k++) await answerTrial(p1, k);
    await p1.getByTestId('participant-done').waitFor();
    // As a participant would: leave once the page says every answer is saved
    // (here and on the server), not while the last one is being written.
    await waitForText(p1.getByTestId('participant-receipt'), /All \d+ answers are saved to the study server/);
    await p1.goto(link);
    await p1.getByTestId('participant-done').waitFor();
    await waitForText(p1.getByTestId('participant-receipt'), /finished this study.*saved to the study server/);
    assert.match(await p1.getByTestId('participant-progress').innerText(), /^9 of 9 done/);
    const again = await (await fetch(`${lab.server.url}api/studies`, { headers: { Authorization: `Bearer ${token}` } })).json();
    assert.equal(again.find((s) => s.id === id).participants, 3, 'reopening did not join again');
    for (const p of [r, ...people]) {
      assert.deepEqual(p.problems, []);
      await p.context.close();
    }
  });

  test('serve killed with SIGKILL mid-study: acknowledged answers kept, queued ones arrive after the restart', async () => {
    const port = await new Promise((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address();
        probe.close(() => resolve(p));
      });
    });
    const data = mkdtempSync(path.join(tmpdir(), 'lab-kill-'));
    const args = ['--port', String(port), '--data', data];
    let server = await startServer(args);
    const token = readFileSync(path.join(data, 'researcher-token'), 'utf8').trim();
    const auth = { Authorization: `Bearer ${token}` };
    const study = {
      schema_version: 1, id: 'kill-study', title: 'Kill study', instructions: 'Watch, then answer.', consent: 'I agree.', text: 'chat',
      conditions: CONDITIONS.map((c, i) => ({ id: `c${i + 1}`, name: c.name, source: { profile: c.spec } })),
      questions: [{ kind: 'rating', id: 'responsive', prompt: 'How responsive?', points: 7, low: 'sluggish', high: 'responsive' }],
      repetitions: 2, order: { kind: 'latin_square' },
    };
    const published = await fetch(`${server.url}api/studies`, { method: 'POST', headers: auth, body: JSON.stringify(study) });
    assert.equal(published.status, 201, await published.clone().text());
    const { id } = await published.json();
    const results = async () => (await (await fetch(`${server.url}api/studies/${id}/results`, { headers: auth })).json()).responses;
    const browser = await launchBrowser();
    const p = await join(browser, `${server.url}s/${id}`);
    assert.equal(p.total, 6);
    for (let k = 0; k < 2; k++) await answerTrial(p.page, k);
    await waitForText(p.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/);
    const acknowledged = await results();
    assert.equal(acknowledged.length, 2);
    server.proc.kill('SIGKILL');
    await new Promise((resolve) => server.proc.once('exit', resolve));
    // The study plays on without the server; answers wait in the browser.
    for (let k = 2; k < 4; k++) await answerTrial(p.page, k);
    await waitForText(p.page.getByTestId('participant-server'), /^2 answer\(s\) waiting/, 15_000);
    server = await startServer(args);
    await waitForText(p.page.getByTestId('participant-server'), /^\d+ answer\(s\) saved to the study server$/, 45_000);
    for (let k = 4; k < p.total; k++) await answerTrial(p.page, k);
    await p.page.getByTestId('participant-done').waitFor();
    await waitForText(p.page.getByTestId('participant-receipt'), /All 6 answers are saved to the study server/);
    const after = await results();
    const keys = new Set(after.map((r) => `${r.participant}/${r.trial}/${r.question}`));
    assert.equal(after.length, 6);
    assert.equal(keys.size, 6, 'each answer once');
    for (const r of acknowledged) assert.ok(keys.has(`${r.participant}/${r.trial}/${r.question}`), 'acknowledged answer kept');
    assert.ok(p.problems.length > 0 && p.problems.every((m) => m === REFUSED), p.problems.join('\n'));
    await p.context.close();
    await browser.close();
    server.stop();
  });
});
