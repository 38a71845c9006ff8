// End-to-end test of the PTX diff panel (web-app/src/components/ptx_diff.rs) against the release
// build: shown only when a selected scheme transforms code; DeMO on the bundled vector add folds
// one of the two single-use global loads into the add (one memory operand per consumer), and
// the rows say why on hover; an embed shows the panel under panels=diff. Run: tests/e2e/run.sh
// (or `node --test diff.test.mjs` after `trunk build --release`).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

import { chooseSchemes, openLab } from './lab-ui.mjs';
import { artifactsDir, serveSite } from './site.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

let site;
let browser;

before(async () => {
  site = await serveSite();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await site?.stop();
});

test('DeMO on vector add: the diff shows the dropped load and its consumer, with reasons', async () => {
  const { page, problems, close } = await openLab(browser, site.url);
  try {
    await chooseSchemes(page, ['baseline']);
    assert.equal(await page.locator('#ptx-diff').count(), 0, 'no panel without a transforming scheme');
    await chooseSchemes(page, ['baseline', 'demo']);
    const panel = page.locator('#ptx-diff');
    await panel.waitFor();
    assert.equal(await page.locator('#diff-scheme').inputValue(), 'demo');
    await page.locator('#diff-table').waitFor();
    // vector_add.ptx: `ld %f1, [%rd8]; ld %f2, [%rd6]; add.f32 %f3, %f2, %f1`: both loads are
    // single-use, but a consumer takes at most one memory operand, so only %f1's load folds.
    // The load removed: its row has an original line only, and its tooltip names the consumer.
    const removed = page.locator('#diff-table tr.diff-row.removed');
    assert.ok((await removed.count()) >= 1, 'at least one removed row');
    const loadRow = removed.filter({ hasText: 'ld.global.f32' }).first();
    assert.match(await loadRow.getAttribute('title'), /^single-use load dropped: its value is read directly by `add\.f32 %f3, %f2, %g\[%rd\d+\];`/);
    assert.match(await loadRow.locator('td.diff-num').first().textContent(), /^\d+$/, 'original line number');
    assert.equal(await loadRow.locator('td.diff-code').nth(1).textContent(), '', 'no rewritten line');
    // The consumer changed: it reads %g[...] and its tooltip names the load.
    const changed = page.locator('#diff-table tr.diff-row.changed', { hasText: '%g[' }).first();
    assert.match(await changed.getAttribute('title'), /^reads the dropped load `ld\.global\.f32 %f1, \[%rd8\];` directly as a memory operand/);
    const [left, right] = await changed.locator('td.diff-code').allTextContents();
    assert.match(left, /add\.f32/);
    assert.match(right, /add\.f32 .*%g\[%rd\d+\]/);
    assert.match(await page.locator('#diff-summary').textContent(), /^2 rows differ/);
    await panel.screenshot({ path: join(artifactsDir, 'ptx-diff.png') });
    // composite fuses nothing in vector add (no producer/consumer pair it takes): "No change".
    await chooseSchemes(page, ['baseline', 'demo', 'composite']);
    await page.selectOption('#diff-scheme', 'composite');
    await page.locator('#diff-summary', { hasText: 'No change' }).waitFor();
    assert.equal(await page.locator('#diff-table').count(), 0, 'no table when nothing changes');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('an embed with panels=run,diff shows the diff panel and not the editor', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  try {
    await page.goto(`${site.url}?embed=1&panels=run,diff`);
    await page.locator('#run-schemes').waitFor();
    assert.equal(await page.locator('.editor-pane').count(), 0, 'no editor in this embed');
    await chooseSchemes(page, ['demo']);
    await page.locator('#ptx-diff #diff-table tr.diff-row.removed', { hasText: 'ld.global.f32' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
