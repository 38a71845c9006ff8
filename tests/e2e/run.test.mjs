// End-to-end tests of the launch editor and the timing run (Web Worker, progress, Cancel, charts)
// against the release build served from /course/reglab/. Run: tests/e2e/run.sh.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

import { chooseSchemes, openLab, readSummary } from './lab-ui.mjs';
import { artifactsDir, reglab, repoRoot, serveSite } from './site.mjs';

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

const openPage = () => openLab(browser, site.url);

/** Clicks Run and waits for the results; returns the IPC column of the summary table. */
async function runAndReadIpc(page) {
  await page.locator('#run-button').click();
  await page.locator('#run-results').waitFor({ timeout: 120_000 });
  const rows = await page.locator('#run-results .summary tbody tr').all();
  const out = {};
  for (const row of rows) {
    const cells = await row.locator('td').allTextContents();
    out[cells[0]] = [Number(cells[3]), Number(cells[4])];
  }
  return out;
}

test('vector add: the shipped launch is shown, runs give positive, identical IPC and charts', async () => {
  const { page, problems, close } = await openPage();
  try {
    assert.match(await page.locator('.launch-kernel-name').textContent(), /vecAdd/);
    assert.equal(await page.locator('#grid-0').inputValue(), '16');
    assert.equal(await page.locator('#block-0').inputValue(), '256');
    assert.equal(await page.locator('#launch-params tbody tr').count(), 4);
    await chooseSchemes(page, ['baseline', 'no-bank-conflicts']);
    const first = await runAndReadIpc(page);
    assert.deepEqual(Object.keys(first), ['baseline', 'no-bank-conflicts']);
    for (const [warp, thread] of Object.values(first)) {
      assert.ok(Number.isFinite(warp) && warp > 0, `warp IPC ${warp}`);
      assert.ok(Number.isFinite(thread) && thread > 0, `thread IPC ${thread}`);
    }
    const second = await runAndReadIpc(page);
    assert.deepEqual(second, first, 'two runs of the same setup give the same IPC');
    // The host time and throughput, beside the deterministic figures (never asserted as a time).
    const host = page.locator('#run-host-time');
    assert.match(await host.textContent(), /^Simulated [0-9,]+ warp-instructions in .* warp-instructions per host second/);
    const summary = await readSummary(page);
    const simulated = Object.values(summary).reduce((n, r) => n + r.warpInstructions, 0);
    assert.equal(Number(await host.getAttribute('data-timing-warp-instructions')), simulated);
    // Each worker runs the executor once for its share: two schemes take min(2, cores, 4) workers.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency || 1);
    const workers = Math.min(2, Math.max(1, cores), 4);
    assert.equal(Number(await host.getAttribute('data-executor-warp-instructions')), workers * summary.baseline.warpInstructions);
    for (const id of ['ipc-warp', 'ipc-thread', 'speedup', 'stalls', 'occupancy', 'regfile', 'reads-per-value']) {
      const chart = page.locator(`#chart-${id}`);
      assert.equal(await chart.locator('svg[role=img] rect, svg[role=img] polyline').count() > 0, true, id);
      assert.equal(await chart.locator('details table').count(), 1, id);
    }
    await page.locator('#run-results').screenshot({ path: join(artifactsDir, 'run-results.png') });
    await page.screenshot({ path: join(artifactsDir, 'run.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('Cancel stops a long run and the page stays usable', async () => {
  const { page, close } = await openPage();
  try {
    await page.locator('#grid-0').fill('65535');
    // Threads past n = 4096 exit at the bounds guard: a long run with small buffers.
    await page.locator('#run-button').click();
    await page.locator('#run-progress').waitFor();
    await page.waitForTimeout(1500);
    // The page answers while the worker runs.
    await page.locator('#launch-json-toggle').click();
    assert.match(await page.locator('#launch-json').inputValue(), /65535/);
    await page.locator('#launch-json-toggle').click();
    await page.locator('#cancel-button').click();
    await page.locator('.run-cancelled').waitFor();
    assert.equal(await page.locator('#run-button').isEnabled(), true);
    await page.locator('button:has-text("Reset")').click();
    assert.equal(await page.locator('#grid-0').inputValue(), '16');
    const ipc = await runAndReadIpc(page);
    assert.ok(Object.values(ipc).every(([w]) => w > 0));
  } finally {
    await close();
  }
});

test('Quick estimate samples a large grid, says so, and gives the CLI\'s estimate', async () => {
  const { page, problems, close } = await openPage();
  try {
    // Vector add over 65535 CTAs: about 3 waves of them are timed, one wave in every k. Only the
    // first 16 CTAs have elements (4096), so the first wave holds more work than the others: the
    // sample spreads over 10% and is timed again with 6, then 12 waves (1170 CTAs, every 60th wave).
    await page.locator('#grid-0').fill('65535');
    await chooseSchemes(page, ['baseline']);
    await page.locator('#quick-button').click();
    await page.locator('#run-results').waitFor({ timeout: 120_000 });
    const line = await page.locator('#quick-estimate li').textContent();
    const m = line.match(/timed every \d+\w\w wave of CTAs \((\d+) of 65535, \d+ waves\); whole run ≈ (\d+) cycles/);
    assert.ok(m, line);
    assert.ok(Number(m[1]) < 2000, line);
    // The same launch from the command line gives the same sample and estimate.
    const gpu = (await page.locator('#run-gpu strong').textContent()).split(' · ')[0];
    const shipped = JSON.parse(readFileSync(join(repoRoot, 'static/examples/vector_add.launch.json'), 'utf8'));
    shipped.grid = [65535, 1, 1];
    mkdirSync(artifactsDir, { recursive: true });
    const file = join(artifactsDir, 'quick-launch.json');
    writeFileSync(file, JSON.stringify(shipped));
    const native = JSON.parse(reglab(['run', 'static/examples/vector_add.ptx', '--launch', file, '--gpu', gpu, '--quick', '--json']));
    const sample = native.reports[0].sample;
    assert.equal(sample.simulated_ctas, Number(m[1]));
    assert.equal(sample.estimated_cycles, Number(m[2]));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a bad launch shows an error and never crashes', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.locator('#block-0').fill('0');
    await page.locator('#launch-invalid').waitFor();
    assert.match(await page.locator('#launch-invalid').textContent(), /block/i);
    assert.equal(await page.locator('#run-button').isDisabled(), true);
    await page.locator('#block-0').fill('-1');
    await page.locator('#launch-edit-error').waitFor();
    await page.locator('#launch-json-toggle').click();
    await page.locator('#launch-json').fill('{ "grid": [1,1,1], "oops": 1 }');
    await page.locator('#launch-edit-error').waitFor();
    await page.screenshot({ path: join(artifactsDir, 'run-error.png'), fullPage: true });
    await page.locator('#launch-json-toggle').click();
    await page.locator('button:has-text("Reset")').click();
    await page.locator('#launch-invalid').waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('the GCN3 compute unit runs 64-wide wavefronts, as the CLI does, and refuses a warp shuffle with its line', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.selectOption('#gpu-preset', 'gcn3-cu');
    await chooseSchemes(page, ['baseline', 'rfc-ob']);
    await page.locator('#run-button').click();
    await page.locator('#run-results').waitFor({ timeout: 120_000 });
    const summary = await readSummary(page);
    assert.deepEqual(Object.keys(summary), ['baseline', 'rfc-ob']);
    assert.match(await page.locator('#wavefront-note').textContent(), /64-wide wavefronts/);
    // The command line gives the same cycles and warp-instructions for the shipped launch.
    const native = JSON.parse(reglab(['run', 'static/examples/vector_add.ptx', '--launch', 'static/examples/vector_add.launch.json',
      '--gpu', 'gcn3-cu', '--scheme', 'baseline', '--scheme', 'rfc-ob', '--json']));
    for (const r of native.reports) {
      assert.equal(summary[r.scheme].cycles, r.cycles, r.scheme);
      assert.equal(summary[r.scheme].warpInstructions, r.warp_instructions, r.scheme);
      // 64 threads per wavefront: more than 32 thread-instructions per warp-instruction.
      assert.ok(r.thread_instructions > 32 * r.warp_instructions, r.scheme);
    }
    await page.selectOption('#example-picker', 'reduction');
    await page.locator('.launch-kernel-name code', { hasText: 'reduce' }).first().waitFor();
    await page.locator('#run-button').click();
    const error = page.locator('#run-error');
    await error.waitFor({ timeout: 120_000 });
    const text = await error.textContent();
    assert.match(text, /line \d+: `shfl\.sync/, text);
    assert.match(text, /32-lane warps/, text);
    assert.equal(await page.locator('#run-button').isEnabled(), true);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
