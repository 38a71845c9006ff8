// Nothing crashes, nothing is lost (issue 16, items 3 and 6), against the release build served from
// /course/reglab/: a worker that dies is reported in plain words and the next run works; a full or
// unavailable local storage and a corrupt saved state are said, and the text can be downloaded.
// The editor's responsiveness (item 4) is in editor.test.mjs. Run: tests/e2e/run.sh.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { chooseSchemes, runToResults, setLaunchJson } from './lab-ui.mjs';
import { downloadedText, editor, openPage as open, pasteText } from './reliability-ui.mjs';
import { chromiumArgs, chromiumPath, repoRoot, serveSite } from './site.mjs';

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


const openPage = (options) => open(browser, site.url, options);

// ---- Item 3: a worker that fails anyway ----

test('a worker that traps is reported in plain words; the page stays usable; the next run works', async () => {
  // The test hook: the next run's worker is told to trap ("unreachable"), as a worker that ran out of
  // memory does. Only a script can set it; it is consumed by one run.
  const { page, problems, close } = await openPage({ init: () => { window.reglabTestWorkerFault = 'trap'; } });
  try {
    await page.locator('#launch-params').waitFor();
    await chooseSchemes(page, ['baseline']);
    await page.locator('#run-button').click();
    const error = page.locator('#run-error');
    await error.waitFor({ timeout: 60_000 });
    const message = await error.textContent();
    assert.match(message, /stopped unexpectedly/);
    assert.match(message, /out of memory/);
    assert.match(message, /smaller grid/);
    assert.match(message, /fewer schemes/);
    assert.match(message, /unreachable/, 'what the browser said is kept for a bug report');
    // The page is usable: Run is enabled again, and typing still updates the editor and its checks.
    assert.equal(await page.locator('#run-button').isDisabled(), false);
    const original = await editor(page).inputValue();
    await editor(page).press('Control+End');
    await editor(page).pressSequentially('bogus.op;');
    await page.locator('pre.highlight', { hasText: 'bogus.op;' }).waitFor();
    await page.locator('#editor-status.has-problems').waitFor();
    await editor(page).fill(original);
    await page.locator('#editor-status:not(.has-problems)').waitFor();
    // The next run starts a fresh worker and succeeds.
    await runToResults(page);
    assert.equal(await page.locator('#run-results .summary tbody tr').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

// ---- Item 5: a kernel that divides by zero runs on and is told, with its line ----

test('a division by zero is told under the results with its line; the run completes', async () => {
  // The file test tests/cases/exec/division_by_zero.ptx works out the figures: 9 lanes, first at
  // line 24 (`div.s32 %r6, -7, %r1`), thread 0 of CTA 0. The CLI says the same (cli/tests/exec_cli.rs).
  const src = readFileSync(join(repoRoot, 'tests', 'cases', 'exec', 'division_by_zero.ptx'), 'utf8');
  const launch = src.split('\n').find((l) => l.startsWith('// launch:')).slice('// launch:'.length).trim();
  const { page, problems, close } = await openPage();
  try {
    await page.locator('#launch-params').waitFor();
    await pasteText(page, src);
    await page.locator('.launch-kernel-name code', { hasText: 'k' }).waitFor();
    await setLaunchJson(page, launch);
    await chooseSchemes(page, ['baseline']);
    await runToResults(page);
    const notice = await page.locator('#run-notices').textContent();
    assert.match(notice, /line 24: `div\.s32 %r6, -7, %r1` in k: integer division by zero in 9 lane\(s\)/);
    assert.match(notice, /machine-specific/);
    assert.equal(await page.locator('#run-results .summary tbody tr').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

// ---- Item 6: nothing typed is lost ----

test('a full local storage is said, and the text can be downloaded', async () => {
  // Every write is refused as a full quota refuses it.
  const { page, problems, close } = await openPage({
    init: () => {
      Storage.prototype.setItem = function setItem() {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      };
    },
  });
  try {
    await editor(page).press('Control+End');
    await editor(page).pressSequentially('// mine');
    await page.locator('#storage-status', { hasText: "Not saved: this browser's local storage is full." }).waitFor();
    const { name, text } = await downloadedText(page, page.locator('#storage-download'));
    assert.equal(name, 'reglab-kernel.ptx');
    assert.equal(text, await editor(page).inputValue());
    assert.ok(text.endsWith('// mine'));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('an unavailable local storage is said on load, and the text can be downloaded', async () => {
  // As in a sandboxed iframe or with site data blocked: reading window.localStorage throws.
  const { page, problems, close } = await openPage({
    init: () => {
      Object.defineProperty(window, 'localStorage', {
        get() {
          throw new DOMException('Access is denied for this document.', 'SecurityError');
        },
      });
    },
  });
  try {
    await page.locator('#storage-status', { hasText: "Not saved: this browser's local storage is unavailable." }).waitFor();
    const { text } = await downloadedText(page, page.locator('#storage-download'));
    assert.match(text, /\.entry _Z6vecAddPKfS0_Pfi\(/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a corrupt saved state falls back to the default example and keeps the saved text downloadable', async () => {
  const { page, problems, close } = await openPage();
  try {
    // Binary garbage where the text should be (as if another program wrote there), garbage settings
    // and launch, and a text that does not match the check saved with it.
    const garbage = '\u0000\u0001PK\u0003\u0004 not a kernel \uFFFD\u0007';
    await page.evaluate((g) => {
      localStorage.setItem('reglab.v1.source', g);
      localStorage.setItem('reglab.v1.settings', '\u0000gpu=\u0001\n=kernel=\nsm_count=-7\n');
      localStorage.setItem('reglab.v1.launch', '{"grid": [1, 2');
    }, garbage);
    // Reload once the page's own loads (the job worker's wasm) have arrived: a reload aborts
    // them otherwise, which `problems` would record as failed requests.
    await page.waitForLoadState('networkidle');
    await page.reload();
    const notice = page.locator('#storage-notice');
    await notice.waitFor();
    assert.match(await notice.textContent(), /could not be read \(it holds control characters/);
    assert.match(await editor(page).inputValue(), /\.entry _Z6vecAddPKfS0_Pfi\(/, 'the default example');
    await page.locator('.doc-title', { hasText: 'Vector add' }).waitFor();
    const saved = await downloadedText(page, page.locator('#unreadable-download'));
    assert.equal(saved.name, 'reglab-saved-text.txt');
    assert.equal(saved.text, garbage);
    // The page works: the default example's launch is offered and it checks clean.
    await page.locator('#launch-params').waitFor();
    await page.locator('#editor-status:not(.has-problems)').waitFor();

    // A readable text whose check does not match (changed behind the page's back) is not loaded either.
    await page.evaluate(() => {
      localStorage.setItem('reglab.v1.source', '.version 8.5\n// edited elsewhere\n');
      localStorage.setItem('reglab.v1.source-check', '3:0000000000000000');
    });
    await page.waitForLoadState('networkidle');
    await page.reload();
    await page.locator('#storage-notice', { hasText: 'does not match the check' }).waitFor();
    await page.locator('#unreadable-dismiss').click();
    await page.locator('#storage-notice').waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
