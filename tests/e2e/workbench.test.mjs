// End-to-end tests of the comparison workbench against the release build served from
// /course/reglab/: scheme instances (add, duplicate, parameter forms, refused values), the
// reference selector, the energy and distance charts, a sweep and the one-click Wyse study, Cancel
// during a sweep, exports (CSV, JSON, chart SVG), and screenshots at 1366×768 and 1920×1080.
// Figures are compared with the native CLI (`reglab run` / `reglab sweep`, debug build, or
// $REGLAB_BIN) on the same kernel, launch and GPU.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { chooseSchemes, loadExample, openLab, readSummary, runToResults, setParam } from './lab-ui.mjs';
import { artifactsDir, chromiumArgs, chromiumPath, reglab, serveSite } from './site.mjs';

const GPU = 'fermi-gtx480';
const PTX = 'static/examples/vector_add.ptx';
const LAUNCH = 'static/examples/vector_add.launch.json';

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


/** `reglab run --json` reports by label. */
function nativeRun(schemes) {
  const args = ['run', PTX, '--launch', LAUNCH, '--gpu', GPU, '--json'];
  for (const s of schemes) args.push('--scheme', s);
  return Object.fromEntries(JSON.parse(reglab(args)).reports.map((r) => [r.scheme, r]));
}

/** A page on the vector-add example with the GPU chosen and only `schemes` ticked. */
async function openWorkbench(schemes = ['baseline']) {
  const lab = await openLab(browser, site.url);
  await lab.page.selectOption('#gpu-preset', GPU);
  await chooseSchemes(lab.page, schemes);
  return lab;
}

/** Adds an instance of `name` with the scheme panel. */
async function addInstance(page, name) {
  await page.selectOption('#add-scheme', name);
  await page.locator('#add-scheme-button').click();
}

/** The labels of the instance cards, in order. */
const cardLabels = (page) => page.locator('.scheme-card').evaluateAll((cards) => cards.map((c) => c.dataset.label));

/** Page figures equal the CLI's: cycles and warp-instructions exactly, IPC as the table rounds it. */
function assertSameFigures(page, native) {
  for (const [label, row] of Object.entries(page)) {
    const r = native[label];
    assert.ok(r, `reglab run has no report ${label}`);
    assert.equal(row.cycles, r.cycles, `${label} cycles`);
    assert.equal(row.warpInstructions, r.warp_instructions, `${label} warp-instructions`);
    assert.ok(Math.abs(row.ipcWarp - r.ipc.warp_instructions_per_cycle) < 1e-4, `${label} IPC ${row.ipcWarp}`);
  }
}

test('two instances of one scheme and the baseline: three columns equal to reglab run', async () => {
  const { page, problems, close } = await openWorkbench(['baseline']);
  try {
    await addInstance(page, 'rfc-ob');
    await page.locator('.scheme-card[data-index="1"] .scheme-duplicate').click();
    assert.deepEqual(await cardLabels(page), ['baseline', 'rfc-ob', 'rfc-ob']);
    // Two instances alike cannot run: the page says why.
    await page.locator('#scheme-duplicate-error').waitFor();
    assert.equal(await page.locator('#run-button').isDisabled(), true);
    await setParam(page, 2, 'rfc_entries', '2');
    await setParam(page, 2, 'ob_entries', '2');
    const labels = ['baseline', 'rfc-ob', 'rfc-ob:ob_entries=2,rfc_entries=2'];
    assert.deepEqual(await cardLabels(page), labels);
    assert.equal(await page.locator('#scheme-specs').inputValue(), labels.join(' '));
    // Model notes are there, folded.
    const notes = page.locator('.scheme-card[data-index="1"] details.model-notes');
    assert.equal(await notes.getAttribute('open'), null);
    await notes.locator('summary').click();
    assert.ok((await notes.locator('li').count()) > 0);
    await runToResults(page);
    const summary = await readSummary(page);
    assert.deepEqual(Object.keys(summary), labels);
    assertSameFigures(summary, nativeRun(labels));
    // DeMO's potential on the baseline: its single-use memory values equal `reglab run --single-use`'s.
    const singleUse = page.locator('#single-use tbody tr', { hasText: 'baseline' });
    assert.equal(await singleUse.count(), 1);
    const native = JSON.parse(reglab(['run', PTX, '--launch', LAUNCH, '--gpu', GPU, '--single-use', '--json']));
    const accesses = native.summary.rows[0].single_use.accesses;
    assert.match(await singleUse.locator('td').first().textContent(), new RegExp(`\\(${accesses.toLocaleString('en-US')} accesses\\)`));
    // Gilani's value shares for every run, whatever the schemes: one row for the kernel, the
    // CLI's figures (`reglab run` records the lanes' values too).
    const shares = native.summary.rows[0].value_shares;
    const kernelRow = page.locator('#value-shares tbody tr').first();
    assert.equal(await kernelRow.locator('th').textContent(), 'this kernel (3 schemes)');
    const shareCells = await kernelRow.locator('td').allTextContents();
    const uniform = Math.round(shares.redundant * shares.redundant_of);
    assert.equal(shareCells[0], `${(100 * shares.redundant).toFixed(1)}% (${uniform} of ${shares.redundant_of})`);
    // The speed-up is over the baseline; choosing another reference changes it without a run.
    assert.match(await page.locator('#chart-speedup .chart-title').textContent(), /vs baseline/);
    await page.selectOption('#reference-select', 'rfc-ob');
    assert.match(await page.locator('#chart-speedup .chart-title').textContent(), /vs rfc-ob$/);
    // A scheme keeps its colour: the card swatch is the colour of its IPC bar.
    const swatch = await page.locator('.scheme-card[data-index="2"] .scheme-swatch').evaluate((e) => getComputedStyle(e).backgroundColor);
    const bar = await page.locator('#chart-ipc-warp svg .bars rect').nth(2).getAttribute('fill');
    const hex = `#${swatch.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
    assert.equal(hex.toLowerCase(), bar.toLowerCase());
    for (const id of ['energy', 'distance-cdf', 'reads-per-value', 'stalls']) {
      const chart = page.locator(`#chart-${id}`);
      assert.ok((await chart.locator('svg[role=img] rect, svg[role=img] polyline').count()) > 0, id);
      assert.equal(await chart.locator('details table').count(), 1, id);
    }
    // The scheme counters: rfc-ob's RFC hits, empty for the baseline.
    const hits = page.locator('#scheme-counters tbody tr', { hasText: 'rfc_hits' });
    const hitCells = await hits.locator('td').allTextContents();
    assert.equal(hitCells[1], '');
    assert.equal(Number(hitCells[2]), nativeRun(['rfc-ob'])['rfc-ob'].register_file.scheme.counters.find((c) => c.name === 'rfc_hits').value);
    // The energy bar of rfc-ob is stacked from its structures (main_rf and rfc at least).
    const legend = await page.locator('#chart-energy .legend text').allTextContents();
    assert.ok(legend.includes('main_rf') && legend.includes('rfc'), legend.join(','));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('an invalid parameter shows its reason and runs nothing', async () => {
  const { page, close } = await openWorkbench(['baseline']);
  try {
    await addInstance(page, 'rfc-ob');
    await setParam(page, 1, 'rfc_entries', 'eight');
    assert.match(await page.locator('#scheme-error').textContent(), /rfc_entries must be an integer, not 'eight'/);
    assert.equal(await page.locator('#run-button').isDisabled(), true);
    await setParam(page, 1, 'rfc_entries', '0');
    assert.match(await page.locator('#scheme-error').textContent(), /rfc_entries/);
    assert.match(await page.locator('#scheme-error').textContent(), /\d+ \.\.= \d+/);
    assert.equal(await page.locator('#run-button').isDisabled(), true);
    assert.equal(await page.locator('#run-results').count(), 0);
    assert.deepEqual(await cardLabels(page), ['baseline', 'rfc-ob'], 'refused values change nothing');
    await setParam(page, 1, 'rfc_entries', '16');
    await page.locator('#scheme-error').waitFor({ state: 'detached' });
    assert.equal(await page.locator('#run-button').isEnabled(), true);
  } finally {
    await close();
  }
});

test('a three-point sweep equals three reglab runs and draws its line charts', async () => {
  const { page, problems, close } = await openWorkbench(['baseline']);
  try {
    await addInstance(page, 'rfc-ob');
    await page.locator('#sweep-panel summary').click();
    await page.selectOption('#sweep-instance', '1');
    await page.selectOption('#sweep-param', 'rfc_entries');
    await page.locator('#sweep-values').fill('2,8,32');
    await page.locator('#sweep-reference').fill('8');
    await page.locator('#sweep-values').press('Tab');
    // Three workers, one point each (whatever the machine's core count), so the charts have
    // points to draw before the sweep ends.
    await page.evaluate(() => { window.reglabWorkers = 3; });
    await watchProgress(page);
    await page.locator('#sweep-run').click();
    await page.locator('#sweep-charts').waitFor({ timeout: 120_000 });
    const seen = await page.evaluate(() => window.seenProgress);
    assert.deepEqual(seen.workers, ['3']);
    // The live charts showed one point, then more, before the sweep finished (3 is never shown
    // live: the last point's report ends the run and the full results replace the live view).
    assert.ok(seen.livePoints.includes(1), `points done while running: ${seen.livePoints}`);
    assert.ok(seen.liveRows.includes(1), `rows of the live IPC chart while running: ${seen.liveRows}`);
    assert.ok(seen.done.some((d) => d.includes('1') && d.includes('0')), `per-point done flags: ${seen.done}`);
    const summary = await readSummary(page);
    const labels = ['rfc-ob:rfc_entries=2', 'rfc-ob:rfc_entries=8', 'rfc-ob:rfc_entries=32'];
    assert.deepEqual(Object.keys(summary), labels);
    assertSameFigures(summary, nativeRun(labels));
    const lines = reglab(['sweep', PTX, '--launch', LAUNCH, '--gpu', GPU, '--scheme', 'rfc-ob', '--param', 'rfc_entries=2,8,32'])
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((p) => p.cycles), labels.map((l) => summary[l].cycles));
    for (const id of ['sweep-ipc', 'sweep-relative-ipc', 'sweep-reads-saved', 'sweep-energy']) {
      assert.equal(await page.locator(`#chart-${id} svg polyline`).count(), 1, id);
    }
    // Reads saved in the chart's table equal reglab sweep's reads_saved (in %).
    const rows = await page.locator('#chart-sweep-reads-saved details table tbody tr').all();
    assert.equal(rows.length, 3);
    for (const [i, row] of rows.entries()) {
      const cells = await row.locator('td').allTextContents();
      assert.ok(Math.abs(Number(cells[2]) - 100 * lines[i].reads_saved) < 1e-3, `${cells} vs ${lines[i].reads_saved}`);
    }
    // A point's full report opens on click, and is reglab sweep's line for that point.
    await page.locator('.sweep-point[data-index="1"]').click();
    const point = page.locator('#sweep-point-report');
    assert.equal(await point.getAttribute('data-scheme'), labels[1]);
    const full = JSON.parse(await point.locator('.sweep-point-json').textContent());
    assert.equal(full.cycles, lines[1].cycles);
    assert.equal(full.warp_instructions, lines[1].report.warp_instructions);
    assert.deepEqual(full.register_file, lines[1].report.register_file);
    await page.locator('.sweep-point[data-index="1"]').click();
    await point.waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('Cancel during a sweep leaves the page usable; the one-click Wyse study then runs', async () => {
  const { page, close } = await openWorkbench(['baseline']);
  try {
    await page.locator('#grid-0').fill('65535');
    await page.locator('#sweep-panel summary').click();
    await page.locator('#study-wyse-rfc').click();
    await page.locator('#run-progress').waitFor();
    assert.match(await page.locator('#run-status').textContent(), /Simulating _Z6vecAddPKfS0_Pfi on fermi-gtx480 under a sweep of rfc-ob over 9 values of rfc_entries/);
    await page.locator('#run-time-left').waitFor({ timeout: 90_000 });
    assert.ok(Number(await page.locator('#scheme-progress').getAttribute('data-workers')) >= 1);
    // What a person sees mid-sweep: one progress bar per point, the workers, the time left.
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.locator('#scheme-progress').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifactsDir, 'workbench-sweep-running-1366x768.png') });
    await page.locator('#cancel-button').click();
    await page.locator('.run-cancelled').waitFor();
    assert.equal(await page.locator('#run-button').isEnabled(), true);
    // Every worker stopped: no progress bars, no live charts left behind.
    assert.equal(await page.locator('#scheme-progress, #sweep-live').count(), 0);
    await page.locator('button:has-text("Reset")').click();
    await page.locator('#study-wyse-rfc').click();
    await page.locator('#sweep-charts').waitFor({ timeout: 180_000 });
    const points = Object.keys(await readSummary(page));
    assert.equal(points.length, 9);
    assert.equal(points[0], 'rfc-ob:rfc_entries=2');
    assert.equal(points[8], 'rfc-ob:rfc_entries=512');
    await page.locator('#sweep-charts').screenshot({ path: join(artifactsDir, 'workbench-wyse-rfc-sweep.png') });
    assert.match(await page.locator('#chart-sweep-relative-ipc .chart-note, #chart-sweep-relative-ipc svg').first().innerHTML(), /rfc_entries = 8/);
  } finally {
    await close();
  }
});

test('exports download and parse; screenshots at 1366×768 and 1920×1080', async (t) => {
  const { page, problems, close } = await openWorkbench(['baseline', 'no-bank-conflicts']);
  try {
    await addInstance(page, 'rfc-ob');
    await runToResults(page);
    const csvDownload = page.waitForEvent('download');
    await page.locator('#download-csv').click();
    const csv = readFileSync(await (await csvDownload).path(), 'utf8').trim().split('\n');
    assert.equal(csv.length, 4);
    const header = csv[0].split(',');
    for (const col of ['reference', 'speedup_vs_reference', 'stall_structural', 'main_rf_energy_nj', 'rfc_energy_nj']) {
      assert.ok(header.includes(col), col);
    }
    assert.equal(csv[1].split(',')[header.indexOf('speedup_vs_reference')], '1.000000');
    const jsonDownload = page.waitForEvent('download');
    await page.locator('#download-json').click();
    const reports = JSON.parse(readFileSync(await (await jsonDownload).path(), 'utf8'));
    assert.deepEqual(reports.map((r) => r.scheme), ['baseline', 'no-bank-conflicts', 'rfc-ob']);
    const svgDownload = page.waitForEvent('download');
    await page.locator('#chart-energy .chart-download').click();
    const svg = readFileSync(await (await svgDownload).path(), 'utf8');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // PNG at twice the SVG's size, from the results' charts and from the occupancy panel's.
    const viewBox = svg.match(/viewBox="0 0 ([\d.]+) ([\d.]+)"/).slice(1).map(Number);
    const pngDownload = page.waitForEvent('download');
    await page.locator('#chart-energy .chart-download-png').click();
    const png = readFileSync(await (await pngDownload).path());
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], viewBox.map((v) => Math.round(2 * v)));
    const occupancyPng = page.waitForEvent('download');
    await page.locator('#occupancy .chart-download-png').first().click();
    const occ = readFileSync(await (await occupancyPng).path());
    assert.equal(occ.subarray(1, 4).toString('latin1'), 'PNG');
    // Charts take keyboard focus.
    await page.locator('#chart-energy svg').focus();
    assert.equal(await page.evaluate(() => document.activeElement?.closest('figure')?.id), 'chart-energy');
    for (const [w, h] of [[1366, 768], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.locator('#run-panel, .run-panel').first().scrollIntoViewIfNeeded();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      t.diagnostic(`${w}×${h}: horizontal overflow ${overflow} px`);
      await page.screenshot({ path: join(artifactsDir, `workbench-${w}x${h}.png`) });
      await page.locator('#run-results').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(artifactsDir, `workbench-results-${w}x${h}.png`) });
    }
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** The JSON export of the results on screen (the reports, as the page downloads them). */
async function downloadJson(page) {
  const download = page.waitForEvent('download');
  await page.locator('#download-json').click();
  return readFileSync(await (await download).path(), 'utf8');
}

/** Records, while a run goes on, every worker count and per-scheme "done" pattern the page shows. */
async function watchProgress(page) {
  await page.evaluate(() => {
    window.seenProgress = { workers: [], done: [], livePoints: [], liveRows: [] };
    const note = () => {
      const seen = window.seenProgress;
      const bars = document.querySelector('#scheme-progress');
      if (bars && !seen.workers.includes(bars.dataset.workers)) seen.workers.push(bars.dataset.workers);
      const done = [...document.querySelectorAll('#scheme-progress li')].map((li) => (li.dataset.done === 'true' ? 1 : 0)).join('');
      if (done && !seen.done.includes(done)) seen.done.push(done);
      const live = document.querySelector('#sweep-live');
      if (live && !seen.livePoints.includes(Number(live.dataset.pointsDone))) seen.livePoints.push(Number(live.dataset.pointsDone));
      const rows = document.querySelectorAll('#chart-live-sweep-ipc details table tbody tr').length;
      if (live && !seen.liveRows.includes(rows)) seen.liveRows.push(rows);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

test('six schemes in parallel workers vs six single-scheme runs (matmul): same reports, wall times reported', async (t) => {
  const { page, close } = await openWorkbench(['baseline']);
  const specs = ['baseline', 'no-bank-conflicts', '2x-registers', 'rfc-ob', 'rfc-ob:rfc_entries=2', 'baseline:collector_units=4'];
  // The previous run's results are marked stale before the click: this run's are a new element.
  const timed = async (list) => {
    await page.evaluate(() => document.querySelector('#run-results')?.setAttribute('data-stale', ''));
    const start = Date.now();
    await page.locator('#run-button').click();
    await page.waitForFunction(
      (want) => [...document.querySelectorAll('#run-results:not([data-stale]) .summary tbody tr td:first-child')].map((c) => c.textContent).join(' ') === want,
      list.join(' '),
      { timeout: 300_000 },
    );
    return Date.now() - start;
  };
  const setSpecs = async (list) => {
    await page.locator('#scheme-specs').fill(list.join(' '));
    await page.locator('#scheme-specs').press('Enter');
    await page.locator('#scheme-specs').blur();
    await page.waitForFunction((n) => document.querySelectorAll('.scheme-card').length === n, list.length);
  };
  try {
    await loadExample(page, 'matmul_tiled', '_Z11matmulTiledPKfS0_Pfi');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    await setSpecs(specs);
    // The pool as the browser sizes it (at least two workers even where it reports one core).
    await page.evaluate((n) => { window.reglabWorkers = n; }, Math.max(2, cores));
    await watchProgress(page);
    const together = await timed(specs);
    const workers = await page.evaluate(() => window.seenProgress.workers.map(Number));
    assert.equal(workers.length, 1, `one worker count per run: ${workers}`);
    assert.equal(workers[0], Math.min(4, Math.max(2, cores)));
    const pooled = await downloadJson(page);
    assert.deepEqual(Object.keys(await readSummary(page)), specs);
    // The same six in one worker: the reports are the same, byte for byte.
    await page.evaluate(() => { window.reglabWorkers = 1; });
    const oneWorker = await timed(specs);
    const single = await downloadJson(page);
    assert.ok(pooled === single, 'reports from the worker pool differ from one worker\'s');
    await page.evaluate(() => { delete window.reglabWorkers; });
    let apart = 0;
    for (const s of specs) {
      await setSpecs([s]);
      apart += await timed([s]);
    }
    // The page's figures are the CLI's.
    const native = JSON.parse(
      reglab(['run', 'static/examples/matmul_tiled.ptx', '--launch', 'static/examples/matmul_tiled.launch.json', '--gpu', GPU, '--json', ...specs.flatMap((x) => ['--scheme', x])]),
    ).reports;
    const byLabel = Object.fromEntries(native.map((r) => [r.scheme, r]));
    for (const r of JSON.parse(pooled)) {
      assert.equal(r.cycles, byLabel[r.scheme].cycles, `${r.scheme} cycles, browser vs reglab run`);
      assert.equal(r.warp_instructions, byLabel[r.scheme].warp_instructions, `${r.scheme} warp-instructions`);
    }
    const figures = { example: 'matmul_tiled', gpu: GPU, schemes: specs, hardware_concurrency: cores, workers: workers[0], parallel_ms: together, one_worker_ms: oneWorker, six_single_runs_ms: apart };
    writeFileSync(join(artifactsDir, 'workbench-six-schemes.json'), JSON.stringify(figures, null, 2) + '\n');
    t.diagnostic(
      `matmul_tiled on ${GPU}, six schemes: ${workers[0]} workers ${together} ms; one worker ${oneWorker} ms; ` +
        `six single-scheme runs one after another ${apart} ms (hardwareConcurrency ${cores})`,
    );
  } finally {
    await close();
  }
});
