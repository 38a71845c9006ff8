// End-to-end tests of the release build in headless Chromium (playwright-core driving the system
// /usr/bin/chromium), served from /course/reglab/ by python3 -m http.server.
// Run: tests/e2e/run.sh (builds nothing; expects dist/ from `trunk build --release`).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

import { artifactsDir, serveSite, subPath } from './site.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

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

/** A fresh page (own local storage) that records console errors, page errors and failed requests. */
async function openPage({ beforeLoad } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  if (beforeLoad) await page.addInitScript(beforeLoad);
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.goto(site.url);
  await page.locator('pre.highlight .tok-opcode').first().waitFor();
  return { page, problems, close: () => context.close() };
}

const editor = (page) => page.locator('#ptx-source');

/**
 * Replaces the editor text the way a paste does (one input event). Playwright's `fill` inserts
 * text through Chromium's editing commands, which take seconds per 100 KB, so it is only used for
 * small texts below.
 */
async function pasteText(page, text) {
  await editor(page).evaluate((area, value) => {
    area.value = value;
    area.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  }, text);
}

test('the page loads from a sub-path with no console errors', async () => {
  const { page, problems, close } = await openPage();
  try {
    await assert.doesNotReject(page.locator('h1', { hasText: 'RegLab' }).waitFor());
    // First visit: the vector-add example, highlighted, with no problems.
    assert.match(await editor(page).inputValue(), /\.entry _Z6vecAddPKfS0_Pfi\(/);
    await page.locator('#no-problems').waitFor();
    // The results list the kernel that sim-core's front end found, with its instruction count.
    const kernel = page.locator('tr.kernel');
    assert.equal(await kernel.count(), 1);
    assert.equal(await kernel.locator('.kernel-name').textContent(), '_Z6vecAddPKfS0_Pfi');
    assert.equal(await kernel.locator('.kernel-insts').textContent(), '22');
    assert.equal(await page.locator('.gutter .ln').count(), 59);
    // The highlighted overlay and the textarea share every metric that positions text.
    const metrics = await page.evaluate(() => {
      const props = ['font-family', 'font-size', 'line-height', 'letter-spacing', 'tab-size', 'white-space',
        'padding-top', 'padding-left', 'border-top-width', 'border-left-width'];
      const read = (sel) => {
        const style = getComputedStyle(document.querySelector(sel));
        return Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
      };
      return { overlay: read('pre.highlight'), textarea: read('#ptx-source') };
    });
    assert.deepEqual(metrics.overlay, metrics.textarea);
    // Every asset came from under the sub-path.
    const assets = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(assets.some((u) => u.endsWith('.wasm')), assets.join('\n'));
    for (const asset of assets) assert.ok(new URL(asset).pathname.startsWith(subPath), asset);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('an example loads into the editor and its file is served', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.selectOption('#example-picker', 'matmul_tiled');
    await page.waitForFunction(() => document.querySelector('#ptx-source').value.includes('_Z11matmulTiledPKfS0_Pfi'));
    await page.locator('.doc-title', { hasText: 'Tiled matrix multiply' }).waitFor();
    await page.locator('pre.highlight .tok-opcode', { hasText: 'bar' }).first().waitFor();
    await page.locator('.kernel-name', { hasText: '_Z11matmulTiledPKfS0_Pfi' }).waitFor();
    assert.equal(await page.locator('#example-picker').inputValue(), '');
    const href = await page.locator('a.download').getAttribute('href');
    const response = await page.request.get(new URL(href, page.url()).href);
    assert.equal(response.status(), 200);
    assert.equal(await response.text(), await editor(page).inputValue());
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a reload keeps the edited text', async () => {
  const { page, problems, close } = await openPage();
  try {
    const text = '// my own kernel, typed by hand\n.version 8.5\n.target sm_75\n.address_size 64\n';
    await editor(page).fill(text);
    await page.locator('#storage-status', { hasText: 'Saved in this browser' }).waitFor();
    await editor(page).press('End');
    await editor(page).pressSequentially('// end');
    await page.waitForFunction(() => document.querySelector('#ptx-source').value.endsWith('// end'));
    // The job worker fetches its wasm after the first paint: a reload while that is in flight
    // aborts it, which `problems` would record as a failed request. Reload once it has arrived.
    await page.waitForLoadState('networkidle');
    await page.reload();
    await page.locator('#storage-status', { hasText: 'Restored from this browser' }).waitFor();
    assert.equal(await editor(page).inputValue(), `${text}// end`);
    await page.locator('.doc-title', { hasText: 'Your kernel' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('the page keeps working when local storage is unavailable', async () => {
  // As in a sandboxed iframe: touching window.localStorage throws.
  const blockStorage = () => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('The document is sandboxed', 'SecurityError');
      },
    });
  };
  const { page, problems, close } = await openPage({ beforeLoad: blockStorage });
  try {
    assert.match(await editor(page).inputValue(), /_Z6vecAddPKfS0_Pfi/);
    await editor(page).fill('.version 8.5\n.target sm_75\n.address_size 64\n');
    await page.locator('#storage-status', { hasText: 'Not saved' }).waitFor();
    await page.locator('#no-problems').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a malformed kernel shows a diagnostic with its line number', async () => {
  const { page, problems, close } = await openPage();
  try {
    const source = await editor(page).inputValue();
    const lines = source.split('\n');
    const at = lines.findIndex((l) => l.includes('add.f32'));
    lines[at] = lines[at].replace('add.f32', 'addx.f32');
    await editor(page).fill(lines.join('\n'));
    const line = at + 1;
    const item = page.locator(`.diag[data-line="${line}"]`);
    await item.waitFor();
    assert.equal(await item.locator('.diag-loc').textContent(), `${line}:2`);
    assert.equal(await item.locator('.diag-msg').textContent(), "unknown instruction 'addx'");
    assert.match(await item.locator('.diag-hint').textContent(), /did you mean 'add'/);
    await page.locator('.ln.marked', { hasText: String(line) }).waitFor();
    assert.match(await page.locator('#editor-status').textContent(), new RegExp(`line ${line}`));
    assert.equal(await page.locator('tr.kernel').count(), 0);
    // The location button moves the caret to that line.
    await item.locator('.diag-loc').click();
    const caretLine = await page.evaluate(() => {
      const area = document.querySelector('#ptx-source');
      return area.value.slice(0, area.selectionStart).split('\n').length;
    });
    assert.equal(caretLine, line);
    await page.screenshot({ path: join(artifactsDir, 'reglab.png') });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a 48k-line module renders only the lines on screen', async () => {
  const { page, problems, close } = await openPage();
  try {
    const kernel = await editor(page).inputValue();
    const big = Array.from({ length: 830 }, () => kernel).join('\n');
    const total = big.split('\n').length;
    assert.ok(total > 48_000, String(total));
    await pasteText(page, big);
    await page.locator('#count-lines', { hasText: String(total) }).waitFor();
    const rendered = await page.locator('.gutter .ln').count();
    assert.ok(rendered < 1_000, `${rendered} gutter lines rendered`);
    await page.locator('.editor-scroll').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.locator('.gutter .ln', { hasText: new RegExp(`^${total}$`) }).waitFor();
    await page.locator('pre.highlight .tok-opcode', { hasText: 'ret' }).last().waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Sets a number field the way typing does (one input event with the whole value). */
async function setNumber(page, selector, value) {
  await page.locator(selector).fill(String(value));
}

test('the annotated listing shows live registers per line', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.selectOption('#example-picker', 'imgvf');
    await page.locator('.doc-title', { hasText: 'IMGVF' }).waitFor();
    const rows = page.locator('.annotations .ann.has-facts');
    await rows.first().waitFor();
    assert.ok((await rows.count()) > 20, `${await rows.count()} annotated lines`);
    const live = (await rows.evaluateAll((els) => els.map((e) => Number(e.dataset.live))));
    const peak = Number(await page.locator('#peak-live').textContent());
    assert.ok(peak > 10, `peak ${peak}`);
    assert.equal(Math.max(...live), peak);
    // The hover text names the line, the live count and the values defined with their widths.
    const title = await rows.nth(5).getAttribute('title');
    assert.match(title, /^Line \d+: \d+ × 32-bit registers live after it/);
    assert.match(await page.locator('.annotations').evaluate((el) => el.textContent), /\d/);
    // Uniform values and single-use loads (DeMO) are marked; widths come from range analysis.
    assert.ok((await page.locator('.ann .mk-u:not(.off)').count()) > 0);
    assert.ok((await page.locator('.ann .mk-l:not(.off)').count()) > 0);
    const titles = await rows.evaluateAll((els) => els.map((e) => e.title));
    assert.ok(titles.some((t) => /Defines %r\d+: needs \d+ bits, (un)?signed \(declared 32 bits/.test(t)), titles.join('\n'));
    // The annotation column sits beside the line numbers and scrolls with the text.
    const gutter = await page.locator('.gutter').boundingBox();
    const column = await page.locator('.annotations').boundingBox();
    assert.ok(Math.abs(column.x - (gutter.x + gutter.width)) < 2, JSON.stringify({ gutter, column }));
    // Typing keeps the listing up to date: a new line shifts the annotations by one line.
    const firstLine = Number(await rows.first().getAttribute('data-line'));
    const source = await editor(page).inputValue();
    await pasteText(page, `// a comment line\n${source}`);
    await page.locator(`.annotations .ann.has-facts[data-line="${firstLine + 1}"]`).first().waitFor();
    // The peak's line link shows that line in the editor.
    await page.locator('.pressure .line-link').click();
    await page.waitForFunction(() => document.querySelector('.editor-scroll').scrollTop > 0);
    await page.locator('.editor').screenshot({ path: join(artifactsDir, 'listing.png') });
    await page.screenshot({ path: join(artifactsDir, 'page.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('occupancy of the IMGVF-like kernel on Fermi matches the worked check', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.selectOption('#example-picker', 'imgvf');
    await page.locator('.doc-title', { hasText: 'IMGVF' }).waitFor();
    await page.locator('#occupancy').waitFor();
    // The register field starts from the analyses' estimate.
    await page.locator('#register-source', { hasText: 'estimate' }).waitFor();
    await page.selectOption('#gpu-preset', 'fermi-gtx480');
    await page.locator('#occupancy-title', { hasText: 'fermi-gtx480' }).waitFor();
    const staticSmem = Number((await page.locator('#static-smem').textContent()).replace(/[^0-9]/g, ''));
    // One GPU picker and one dynamic shared memory field on the page.
    assert.equal(await page.locator('select#run-gpu').count(), 0);
    assert.equal(await page.locator('#dynamic-smem').count(), 1);
    // Threads per block and dynamic shared memory come from the launch setup editor.
    await setNumber(page, '#block-0', 320);
    await setNumber(page, '#block-1', 1);
    await setNumber(page, '#block-2', 1);
    await setNumber(page, '#ptxas-registers', 52);
    await setNumber(page, '#dynamic-smem', 14560 - staticSmem);
    await page.locator('#threads', { hasText: '320' }).waitFor();
    await page.locator('#occ-total-smem', { hasText: '14,560 B' }).waitFor();
    assert.match(await page.locator('#run-gpu').textContent(), /fermi|480/i);
    await page.locator('#occ-percent', { hasText: '20.8%' }).waitFor();
    assert.equal(await page.locator('#occ-blocks').textContent(), '1');
    assert.equal(await page.locator('#occ-warps').textContent(), '10');
    assert.equal(await page.locator('#occ-binding').textContent(), 'Binding limit: Registers');
    assert.equal(await page.locator('tr.binding').count(), 1);
    await page.locator('tr.binding[data-resource="registers"]').waitFor();

    await setNumber(page, '#ptxas-registers', 29);
    await page.locator('#occ-percent', { hasText: '62.5%' }).waitFor();
    assert.equal(await page.locator('#occ-blocks').textContent(), '3');
    assert.equal(await page.locator('#occ-binding').textContent(), 'Binding limits: Registers and Shared memory');
    await page.locator('tr.binding[data-resource="shared_memory"]').waitFor();

    // Three charts with titles, axis labels, the kernel's point, an SVG export and a data table.
    const charts = page.locator('#occupancy figure.chart');
    assert.equal(await charts.count(), 3);
    for (let i = 0; i < 3; i += 1) {
      const chart = charts.nth(i);
      assert.match(await chart.locator('svg title').textContent(), /^Occupancy vs /);
      assert.match(await chart.locator('svg .x-label').textContent(), /\(.+\)$/);
      assert.match(await chart.locator('svg .y-label').textContent(), /Occupancy \(%/);
      assert.equal(await chart.locator('svg .kernel-point circle').count(), 1);
      assert.match(await chart.locator('svg .kernel-point text').textContent(), /62\.5%$/);
      assert.match(await chart.locator('a.chart-download').getAttribute('href'), /^data:image\/svg\+xml/);
      assert.ok((await chart.locator('.chart-table tbody tr').count()) > 1);
    }
    assert.match(await charts.nth(0).locator('.kernel-point text').textContent(), /^29 registers/);
    await page.locator('#occupancy').screenshot({ path: join(artifactsDir, 'occupancy.png') });

    // The settings survive a reload.
    await page.reload();
    await page.locator('#occ-percent', { hasText: '62.5%' }).waitFor();
    assert.equal(await page.locator('#gpu-preset').inputValue(), 'fermi-gtx480');
    assert.equal(await page.locator('#ptxas-registers').inputValue(), '29');

    // More registers than Fermi allows: no block fits, and the page says why.
    await setNumber(page, '#ptxas-registers', 70);
    await page.locator('#occ-misfit').waitFor();
    assert.equal(await page.locator('#occ-blocks').textContent(), '0');
    assert.match(await page.locator('#occ-misfit').textContent(), /registers: 70 registers per thread exceed the maximum of 63/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a module with two kernels offers a kernel picker and GCN3 shows per-resource limits', async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.selectOption('#example-picker', 'reduction');
    await page.locator('#kernel-picker').waitFor();
    assert.equal(await page.locator('#kernel-picker option').count(), 2);
    await page.selectOption('#kernel-picker', '_Z17reduceWarpShufflePKfPfi');
    await page.locator('#occupancy-title .kernel-ref', { hasText: '_Z17reduceWarpShufflePKfPfi' }).waitFor();
    await page.locator('#pressure-title .kernel-ref', { hasText: '_Z17reduceWarpShufflePKfPfi' }).waitFor();
    await page.selectOption('#gpu-preset', 'gcn3-cu');
    await page.locator('#occ-limits caption', { hasText: 'Max workgroups per CU by resource' }).waitFor();
    const resources = await page.locator('#occ-limits tr.limit').evaluateAll((rows) => rows.map((r) => r.dataset.resource));
    assert.deepEqual(resources, ['wave_slots', 'vgprs', 'sgprs', 'lds']);
    await page.locator('#sgprs').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a kernel too large to analyse on every keystroke is analysed after a pause', async () => {
  const { page, problems, close } = await openPage();
  try {
    const adds = Array.from({ length: 900 }, (_, i) => `\tadd.s32 %r${i + 2}, %r${i + 1}, 1;`).join('\n');
    const text = `.version 8.5\n.target sm_75\n.address_size 64\n.visible .entry big()\n{\n\t.reg .b32 %r<903>;\n\tmov.u32 %r1, %tid.x;\n${adds}\n\tret;\n}\n`;
    await pasteText(page, text);
    await page.locator('#pressure-title .kernel-ref', { hasText: 'big' }).waitFor();
    await page.locator('.annotations .ann.has-facts[data-line="907"]').waitFor();
    assert.equal(await page.locator('.annotations.stale').count(), 0);
    assert.equal(await page.locator('#peak-live').textContent(), '1');
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
