// In-browser benchmark figures of the release build (reported, never asserted against a time):
// sim-core's front end (parse + lower + verify) on the largest corpus file, run by the same wasm
// the page uses, through the `bench_*` functions web-app exports (window.wasmBindings).

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { artifactsDir, chromiumArgs, chromiumPath, corpusDir, serveSite } from './site.mjs';

const LARGEST = join('ptx-90-parser', 'matrix_free_device_matrix_vector_04.1.sm_80.ptx');

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

test('front end on the 48k-line corpus file in the browser (figure reported)', async (t) => {
  const src = readFileSync(join(corpusDir, LARGEST), 'utf8');
  const lines = src.split('\n').length;
  assert.ok(lines > 48_000, `${LARGEST} has ${lines} lines`);
  const page = await browser.newPage();
  try {
    await page.goto(site.url);
    await page.waitForFunction(() => typeof window.wasmBindings?.bench_front_end === 'function');
    const ms = await page.evaluate((text) => window.wasmBindings.bench_front_end(text, 5), src);
    assert.ok(ms >= 0, 'the corpus file must compile in the browser');
    t.diagnostic(`parse+lower+verify of ${LARGEST} (${lines} lines) in wasm: median ${ms.toFixed(1)} ms of 5`);
    writeFileSync(join(artifactsDir, 'bench-front-end.json'), JSON.stringify({ file: LARGEST, lines, median_ms: ms }) + '\n');
  } finally {
    await page.close();
  }
});
