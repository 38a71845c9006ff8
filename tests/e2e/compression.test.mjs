// End-to-end tests of the `compression` scheme in the app, against the release build served from
// /course/reglab/: the slice map of a run (values drawn as blocks with hover titles, the table
// fallback, the same allocation as the native CLI's `reglab run … --scheme compression --json`),
// and Cancel during precision tuning (progress "precision tuning: run k of N", then the page
// runs again). Run: `cd tests/e2e && node --test compression.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { chooseSchemes, loadExample, openLab, readSummary, runToResults, setLaunchJson } from './lab-ui.mjs';
import { artifactsDir, chromiumArgs, chromiumPath, reglab, serveSite } from './site.mjs';

const GPU = 'fermi-gtx480';

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

/** The slice map of `reglab run` of bundled example `id` under `scheme` on GPU. */
function nativeSliceMap(id, scheme) {
  const args = ['run', `static/examples/${id}.ptx`, '--launch', `static/examples/${id}.launch.json`, '--gpu', GPU,
    '--scheme', scheme, '--json'];
  const out = JSON.parse(reglab(args));
  return out.reports[0].slice_map;
}

/** A page with the GPU chosen, bundled example `id` loaded and only `schemes` ticked. */
async function openExample(id, kernel, schemes) {
  const lab = await openLab(browser, site.url);
  await loadExample(lab.page, id, kernel);
  await lab.page.selectOption('#gpu-preset', GPU);
  await chooseSchemes(lab.page, schemes);
  return lab;
}

test('the slice map of a compression run shows the allocation the CLI reports', async () => {
  const { page, problems, close } = await openExample('saxpy', '_Z5saxpyifPKfPf', ['baseline', 'compression']);
  try {
    await runToResults(page);
    const map = page.locator('#slice-maps figure.slice-map').first();
    await map.waitFor();
    assert.equal(await map.getAttribute('data-scheme'), 'compression');
    assert.equal(await map.getAttribute('data-function'), '_Z5saxpyifPKfPf');
    const native = nativeSliceMap('saxpy', 'compression').functions[0];
    assert.equal(Number(await map.getAttribute('data-registers-before')), native.registers_before);
    assert.equal(Number(await map.getAttribute('data-registers-after')), native.registers_after);
    assert.ok(native.registers_after < native.registers_before, 'saxpy needs fewer registers with slices');
    // Every value is a focusable block with its cells; each one's slices are the CLI's.
    const blocks = map.locator('g.sm-value');
    assert.equal(await blocks.count(), native.values.length);
    assert.ok((await map.locator('rect.sm-cell').count()) >= native.values.length);
    const drawn = await blocks.evaluateAll((gs) => gs.map((g) => [g.dataset.name, g.dataset.pieces, g.dataset.live]));
    const want = native.values.map((v) => [
      v.name,
      v.pieces.map(([r, m]) => `R${r}:0x${m.toString(16).padStart(2, '0')}`).join(' '),
      `${v.live[0]}-${v.live[1]}`,
    ]);
    assert.deepEqual(drawn, want);
    // A known value: saxpy's %r3 (the 14-bit thread index bound: 32 × 256 threads < 2^14).
    const r3 = native.values.find((v) => v.name === '%r3');
    assert.equal(r3.bits, 14);
    const title = await map.locator('g.sm-value[data-name="%r3"] title').textContent();
    assert.match(title, /^%r3: 14-bit integer, 4 slices: R\d+ slices \d–\d; live lines \d+–\d+$/);
    // Keyboard: a block takes focus.
    await map.locator('g.sm-value[data-name="%r3"]').focus();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-name')), '%r3');
    // The table fallback has one row per value.
    await map.locator('details.sm-table summary').click();
    assert.equal(await map.locator('details.sm-table tbody tr').count(), native.values.length);
    const row = map.locator('details.sm-table tbody tr', { hasText: '%r3' }).first();
    assert.equal(await row.locator('td').nth(1).textContent(), '14-bit integer');
    assert.equal(await page.locator('#slice-maps .sm-legend li').count() > 2, true);
    await map.screenshot({ path: join(artifactsDir, 'compression-slice-map.png') });
    // The annotated listing beside the editor names the formats the run gave (hover text).
    const formatted = page.locator('.ann.has-facts[data-formats]');
    assert.ok((await formatted.count()) > 0, 'listing lines with formats');
    assert.match(await formatted.first().getAttribute('title'), /Compression \(last run\): %\w+\d*: \d+-bit (integer|float)/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** The bundled IMGVF step on a 256 × 256 image (16 × 16 CTAs; the example's is 64 × 64): a
 * precision search of many functional runs long enough to cancel. */
const IMGVF_256 = JSON.stringify({
  kernel: '_Z9imgvfStepPKfS0_Pfiifffff',
  grid: [16, 16, 1],
  block: [16, 16, 1],
  params: [
    { buffer: { type: 'f32', len: 65536, init: 'random:1' } },
    { buffer: { type: 'f32', len: 65536, init: 'random:2' } },
    { buffer: { type: 'f32', len: 65536, init: 'zeros' } },
    { scalar: { type: 's32', value: 256 } },
    { scalar: { type: 's32', value: 256 } },
    { scalar: { type: 'f32', value: 0.3 } },
    { scalar: { type: 'f32', value: -0.7 } },
    { scalar: { type: 'f32', value: 0.5 } },
    { scalar: { type: 'f32', value: 0.2 } },
    { scalar: { type: 'f32', value: 4.0 } },
  ],
  outputs: [2],
});

test('Cancel stops precision tuning and the page runs again', async () => {
  const { page, problems, close } = await openExample('imgvf', '_Z9imgvfStepPKfS0_Pfiifffff', ['compression']);
  try {
    await setLaunchJson(page, IMGVF_256);
    await page.locator('#run-button').click();
    // The search's progress: "precision tuning: run k of N", k advancing.
    const tuning = page.locator('#run-tuning-progress');
    await tuning.waitFor({ timeout: 60_000 });
    assert.match(await tuning.textContent(), /precision tuning: run \d+ of \d+/);
    await page.waitForFunction(() => Number(document.querySelector('#run-tuning-progress')?.dataset.run) >= 2, null,
      { timeout: 120_000 });
    const of = Number(await tuning.getAttribute('data-of'));
    assert.ok(of > 2 && of <= 64, `at most tuning_runs = 64 runs, got ${of}`);
    await page.screenshot({ path: join(artifactsDir, 'compression-tuning-progress.png') });
    await page.locator('#cancel-button').click();
    await page.locator('.run-cancelled').waitFor();
    assert.equal(await page.locator('#run-tuning-progress').count(), 0);
    assert.equal(await page.locator('#run-button').isEnabled(), true);
    // The page is usable: a quick run gives results.
    await loadExample(page, 'vector_add', '_Z6vecAddPKfS0_Pfi');
    await chooseSchemes(page, ['baseline']);
    await runToResults(page);
    const summary = await readSummary(page);
    assert.ok(summary.baseline.ipcWarp > 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
