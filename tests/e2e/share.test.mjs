// Share a run by link and embed RegLab in a course page (issue 22), against the release build
// served from /course/reglab/: a copied link opens the same state in a fresh browser and runs to
// the same figures; the previous work comes back with one click and a reload keeps typed text; a
// damaged link says so and changes nothing; link text is never HTML; a course page served from
// another path embeds the compact view with the page's own snippet, runs it, and its "Open in
// RegLab" link opens the same state in full; readonly=1 refuses edits. Run: tests/e2e/run.sh.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { chooseSchemes, loadExample, openLab, readSummary, runToResults } from './lab-ui.mjs';
import { artifactsDir, chromiumArgs, chromiumPath, repoRoot, serveSite } from './site.mjs';

let site;
let browser;

before(async () => {
  site = await serveSite();
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
});

after(async () => {
  await browser?.close();
  await site?.stop();
});

const MATMUL = '_Z11matmulTiledPKfS0_Pfi';
const editor = (page) => page.locator('#ptx-source');

/** A link's fragment made here, as the page makes them: v1. + base64url(zlib(JSON)). */
const fragmentOf = (experiment) => `v1.${deflateSync(JSON.stringify(experiment)).toString('base64url')}`;

/** Sets the scheme specs field (NAME or NAME:k=v, space between). */
async function setSchemeSpecs(page, text) {
  await page.locator('#scheme-specs').fill(text);
  await page.locator('#scheme-specs').press('Enter');
  await page.locator('#scheme-specs').blur();
}

/** Opens `url` in a fresh context; returns { page, problems, close }. */
async function freshPage(url, viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return { page, problems, context, close: () => context.close() };
}

test('a copied link opens the same state in a fresh browser, runs to the same figures, and keeps the previous work', async () => {
  const teacher = await openLab(browser, site.url);
  const student = await freshPage(site.url);
  try {
    const { page } = teacher;
    await loadExample(page, 'matmul_tiled', MATMUL);
    await page.selectOption('#gpu-preset', 'fermi-gtx480');
    await chooseSchemes(page, ['baseline']);
    await setSchemeSpecs(page, 'baseline baseline:collector_units=2');
    await page.locator('#copy-link').click();
    const link = await page.locator('#share-link').inputValue();
    // The tiled matmul example with two schemes: the example by name, no launch (the shipped one).
    assert.ok(link.length < 300, `${link.length} characters: ${link}`);
    assert.ok(link.startsWith(`${site.url}#v1.`), link);
    await runToResults(page);
    const figures = await readSummary(page);
    assert.deepEqual(Object.keys(figures), ['baseline', 'baseline:collector_units=2']);

    // The student has work of their own first, which the link must not lose.
    const s = student.page;
    await editor(s).waitFor();
    await editor(s).press('Control+End');
    await editor(s).pressSequentially('// my own notes');
    await s.waitForFunction(() => (localStorage.getItem('reglab.v1.source') ?? '').includes('// my own notes'));
    await s.goto('about:blank'); // a goto that only changes the fragment would be a hashchange
    await s.goto(link);
    await s.locator('#share-notice', { hasText: 'Opened the experiment from the link' }).waitFor();
    assert.equal(new URL(s.url()).hash, '', 'the fragment is removed once read');
    assert.equal(await editor(s).inputValue(), await editor(page).inputValue());
    assert.equal(await s.locator('#gpu-preset').inputValue(), 'fermi-gtx480');
    assert.equal(await s.locator('#scheme-specs').inputValue(), 'baseline baseline:collector_units=2');
    await s.locator('.launch-kernel-name code', { hasText: MATMUL }).waitFor();
    await runToResults(s);
    assert.deepEqual(await readSummary(s), figures, 'same kernel, launch, GPU and schemes: same figures');

    // A reload never loses typed text; the previous work is one click away, even after the reload.
    await editor(s).press('Control+End');
    await editor(s).pressSequentially('// after the link');
    await s.waitForFunction(() => (localStorage.getItem('reglab.v1.source') ?? '').includes('// after the link'));
    await s.reload();
    await editor(s).waitFor();
    assert.match(await editor(s).inputValue(), /after the link/);
    assert.equal(await s.locator('#scheme-specs').inputValue(), 'baseline baseline:collector_units=2');
    await s.locator('#back-to-previous').click();
    await s.locator('#share-notice', { hasText: 'Your previous work is back' }).waitFor();
    assert.match(await editor(s).inputValue(), /my own notes/);
    assert.deepEqual(teacher.problems, []);
    assert.deepEqual(student.problems, []);
  } finally {
    await teacher.close();
    await student.close();
  }
});

test('a damaged, foreign or too-new link says so and keeps the last good state; link text is never HTML', async () => {
  const { page, problems, close } = await freshPage(site.url);
  try {
    await editor(page).waitFor();
    await editor(page).press('Control+End');
    await editor(page).pressSequentially('// kept');
    await page.waitForFunction(() => (localStorage.getItem('reglab.v1.source') ?? '').includes('// kept'));
    const good = fragmentOf({ reglab: 1, example: 'saxpy', gpu: { preset: 'volta-v100' }, schemes: ['baseline'] });
    const cases = [
      [good.slice(0, -6), /damaged or cut short/],
      ['x=1&y=2', /not a RegLab state/],
      [`v9.${good.slice(3)}`, /newer RegLab \(format 9/],
      [fragmentOf({ reglab: 1, example: 'nbody', gpu: { preset: 'volta-v100' } }), /example 'nbody'/],
    ];
    for (const [fragment, message] of cases) {
      await page.goto('about:blank');
      await page.goto(`${site.url}#${fragment}`);
      const notice = page.locator('#share-notice.problem');
      await notice.waitFor();
      assert.match(await notice.textContent(), message);
      assert.match(await notice.textContent(), /Your work is unchanged/);
      assert.match(await editor(page).inputValue(), /\/\/ kept$/);
    }
    // Pasted into the address bar of an open page (hashchange), a damaged link changes nothing either.
    await page.evaluate((f) => { window.location.hash = f; }, good.slice(0, -6));
    await page.locator('#share-notice.problem', { hasText: 'damaged' }).waitFor();
    assert.match(await editor(page).inputValue(), /\/\/ kept$/);
    // Markup in a link's kernel text stays text.
    const hostile = '// <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\n.version 7.0\n';
    await page.goto('about:blank');
    await page.goto(`${site.url}#${fragmentOf({ reglab: 1, source: hostile, gpu: { preset: 'volta-v100' } })}`);
    await page.locator('#share-notice', { hasText: 'Opened the experiment' }).waitFor();
    assert.equal(await editor(page).inputValue(), hostile);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.locator('img[src=x]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a course page on another path embeds the compact view with the page\'s snippet; Open in RegLab opens it in full', async () => {
  const { page, close } = await openLab(browser, site.url);
  let course;
  try {
    await loadExample(page, 'saxpy', '_Z5saxpyifPKfPf');
    await chooseSchemes(page, ['baseline', 'no-bank-conflicts']);
    await page.locator('#embed-button').click();
    await page.locator('#embed-readonly').check();
    await page.locator('.embed-panel[value=occupancy]').check();
    assert.match(await page.locator('#embed-snippet').inputValue(), /\?embed=1&amp;readonly=1&amp;run=1&amp;panels=editor,occupancy,run#v1\./);
    await page.locator('#embed-readonly').uncheck();
    await page.locator('.embed-panel[value=occupancy]').uncheck();
    const snippet = await page.locator('#embed-snippet').inputValue();
    assert.match(snippet, /^<iframe src="[^"]+\?embed=1&amp;run=1#v1\.[^"]+"/);
    // The course page lives at /course/notes/week3.html, beside (not under) /course/reglab/.
    const dir = join(repoRoot, 'target', 'e2e-site', 'course', 'notes');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'week3.html'), `<!doctype html><title>Week 3</title><h1>Register files</h1>\n${snippet}\n`);
    course = await freshPage(new URL('../notes/week3.html', site.url).href, { width: 760, height: 900 });
    const frame = course.page.frameLocator('iframe');
    await frame.locator('.app.embed').waitFor();
    assert.equal(await frame.locator('.app-header').count(), 0, 'compact: no page header');
    assert.equal(await frame.locator('#gpu-preset').count(), 0, 'compact: no occupancy panel');
    await frame.locator('#run-results').waitFor({ timeout: 120_000 }); // run=1
    assert.equal(await frame.locator('#run-results .summary tbody tr').count(), 2);
    const width = await course.page.frames()[1].evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(width[0] <= width[1] && width[1] <= 700, `fits the 700 px iframe: ${width}`);
    await course.page.screenshot({ path: join(artifactsDir, 'embed.png') });
    const [full] = await Promise.all([
      course.context.waitForEvent('page'),
      frame.locator('#open-full').click(),
    ]);
    await full.locator('#share-notice', { hasText: 'Opened the experiment from the link' }).waitFor();
    assert.equal(await full.locator('.app.embed').count(), 0);
    await full.locator('.app-header').waitFor();
    assert.equal(await editor(full).inputValue(), await editor(page).inputValue());
    assert.equal(await full.locator('#scheme-specs').inputValue(), 'baseline no-bank-conflicts');
    assert.deepEqual(course.problems, []);
  } finally {
    await course?.close();
    await close();
  }
});

test('readonly=1 refuses edits, and an embed never writes local storage', async () => {
  const fragment = fragmentOf({ reglab: 1, example: 'vector_add', gpu: { preset: 'volta-v100' }, schemes: ['baseline'] });
  const { page, problems, close } = await freshPage(`${site.url}?embed=1&readonly=1&panels=editor,occupancy#${fragment}`, { width: 700, height: 900 });
  try {
    await editor(page).waitFor();
    const before = await editor(page).inputValue();
    assert.notEqual(await editor(page).getAttribute('readonly'), null);
    await editor(page).click();
    await page.keyboard.type('nope');
    await page.keyboard.press('Backspace');
    assert.equal(await editor(page).inputValue(), before);
    assert.equal(await page.locator('#gpu-preset').inputValue(), 'volta-v100', 'panels=editor,occupancy');
    assert.equal(await page.locator('#run-button').count(), 0);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('Save experiment writes the link\'s content as a file; Open experiment in another browser restores it', async () => {
  const { page, close } = await openLab(browser, site.url);
  const other = await freshPage(site.url);
  try {
    await loadExample(page, 'matmul_tiled', MATMUL);
    await editor(page).press('Control+End');
    await editor(page).pressSequentially('// edited for the file');
    await setSchemeSpecs(page, 'baseline:collector_units=2 no-bank-conflicts');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#save-experiment').click()]);
    assert.equal(download.suggestedFilename(), 'experiment.reglab.json');
    const path = join(artifactsDir, 'experiment.reglab.json');
    await download.saveAs(path);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(saved.reglab, 1);
    assert.equal(saved.example, 'matmul_tiled');
    assert.match(saved.source, /edited for the file$/, 'an edited example travels as text');
    assert.deepEqual(saved.schemes, ['baseline:collector_units=2', 'no-bank-conflicts']);
    await editor(other.page).waitFor();
    await other.page.locator('#open-experiment').setInputFiles(path);
    await other.page.locator('#share-notice', { hasText: 'Opened the experiment from the file' }).waitFor();
    assert.equal(await editor(other.page).inputValue(), await editor(page).inputValue());
    assert.equal(await other.page.locator('#scheme-specs').inputValue(), 'baseline:collector_units=2 no-bank-conflicts');
    // A file that is not an experiment changes nothing.
    const bad = join(artifactsDir, 'not-an-experiment.json');
    writeFileSync(bad, '{"hello": "world"}');
    await other.page.locator('#open-experiment').setInputFiles(bad);
    await other.page.locator('#share-notice.problem', { hasText: 'not a RegLab experiment' }).waitFor();
    assert.equal(await editor(other.page).inputValue(), await editor(page).inputValue());
    assert.deepEqual(other.problems, []);
  } finally {
    await other.close();
    await close();
  }
});
