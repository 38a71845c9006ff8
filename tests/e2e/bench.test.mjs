// In-browser benchmark figures of the release build (reported, never asserted against a time):
// sim-core's front end (parse + lower + verify) on the largest corpus file, run by the same wasm
// the page uses, through the `bench_*` functions web-app exports (window.wasmBindings); and the
// cycle-level timing model's throughput in the page's Web Worker, driven through the UI on the
// launches `reglab bench` uses natively (whose counts the browser's must equal, bit for bit).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { chooseSchemes, loadExample, openLab, readSummary, runToResults, setLaunchJson, setParam } from './lab-ui.mjs';
import { artifactsDir, chromiumArgs, chromiumPath, corpusDir, repoRoot, serveSite } from './site.mjs';

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

// The examples `reglab bench` times (cli/src/commands/bench.rs), with the same launch files.
const EXAMPLES = ['vector_add', 'matmul_tiled', 'reduction', 'hotspot', 'imgvf', 'histogram', 'saxpy'];
const GPU = 'fermi-gtx480';

/** The native CLI: `$REGLAB_BIN`, else `cargo build --release` (a no-op when up to date). */
function nativeCli() {
  if (process.env.REGLAB_BIN) return process.env.REGLAB_BIN;
  execFileSync('cargo', ['build', '--release', '--locked', '-p', 'reglab-cli', '--quiet'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return join(repoRoot, 'target', 'release', 'reglab');
}

/** `reglab bench --json --only NAME`'s figures for one example. */
function nativeBench(cli, name) {
  const out = execFileSync(cli, ['bench', '--json', '--repeat', '1', '--gpu', GPU, '--only', name], { cwd: repoRoot, encoding: 'utf8' });
  const kernels = JSON.parse(out).kernels.filter((k) => k.name === name);
  assert.equal(kernels.length, 1, `reglab bench --only ${name}: ${out}`);
  return kernels[0];
}

const rate = (n, ms) => (ms > 0 ? n / (ms / 1000) : null);
const mega = (r) => (r === null ? 'n/a' : `${(r / 1e6).toFixed(2)} M`);

test('timing model on the bundled examples in the browser worker (figures reported)', async (t) => {
  const cli = nativeCli();
  const { page, problems, close } = await openLab(browser, site.url);
  const kernels = [];
  try {
    await page.selectOption('#gpu-preset', GPU);
    await chooseSchemes(page, ['baseline']);
    for (const name of EXAMPLES) {
      const launch = readFileSync(join(repoRoot, 'tests', 'cases', 'exec', 'examples', `${name}.launch.json`), 'utf8');
      const parsed = JSON.parse(launch);
      await loadExample(page, name, parsed.kernel ?? parsed.launches[0].kernel);
      await setLaunchJson(page, launch);
      assert.match(await page.locator('#run-gpu').textContent(), /fermi-gtx480/);
      await runToResults(page, 600_000);
      const summary = await readSummary(page);
      assert.deepEqual(Object.keys(summary), ['baseline'], name);
      const host = page.locator('#run-host-time');
      const attr = async (a) => Number(await host.getAttribute(`data-${a}`));
      const wasm = {
        name,
        warp_instructions: summary.baseline.warpInstructions,
        cycles: summary.baseline.cycles,
        total_ms: await attr('total-ms'),
        executor_ms: await attr('executor-ms'),
        timing_model_ms: await attr('timing-model-ms'),
        executor_warp_instructions: await attr('executor-warp-instructions'),
      };
      assert.equal(await attr('timing-warp-instructions'), wasm.warp_instructions, name);
      assert.ok(wasm.warp_instructions > 0, `${name}: no warp-instructions`);
      const native = nativeBench(cli, name);
      assert.equal(wasm.warp_instructions, native.warp_instructions, `${name}: warp-instructions, wasm vs native`);
      assert.equal(wasm.cycles, native.cycles, `${name}: cycles, wasm vs native`);
      const k = {
        ...wasm,
        warp_instructions_per_second: rate(wasm.warp_instructions, wasm.timing_model_ms),
        executor_warp_instructions_per_second: rate(wasm.executor_warp_instructions, wasm.executor_ms),
        end_to_end_warp_instructions_per_second: rate(wasm.warp_instructions, wasm.total_ms),
        native_timing_seconds: native.timing_seconds,
        native_warp_instructions_per_second: native.warp_instructions_per_second,
      };
      kernels.push(k);
      t.diagnostic(
        `${name}: ${k.warp_instructions} warp-insts, ${k.cycles} cycles, ${(k.total_ms / 1000).toFixed(2)} s in wasm: ` +
          `timing model ${mega(k.warp_instructions_per_second)}/s, executor ${mega(k.executor_warp_instructions_per_second)}/s, ` +
          `end to end ${mega(k.end_to_end_warp_instructions_per_second)}/s (native timing model ${mega(k.native_warp_instructions_per_second)}/s)`,
      );
    }
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
  const sum = (f) => kernels.reduce((n, k) => n + f(k), 0);
  const insts = sum((k) => k.warp_instructions);
  const doc = {
    gpu: GPU,
    scheme: 'baseline',
    unit: 'warp-instructions per host second',
    warp_instructions: insts,
    warp_instructions_per_second: rate(insts, sum((k) => k.timing_model_ms)),
    executor_warp_instructions_per_second: rate(sum((k) => k.executor_warp_instructions), sum((k) => k.executor_ms)),
    end_to_end_warp_instructions_per_second: rate(insts, sum((k) => k.total_ms)),
    native_warp_instructions_per_second: rate(insts, sum((k) => k.native_timing_seconds) * 1000),
    kernels,
  };
  t.diagnostic(
    `all ${kernels.length} examples in wasm (${GPU}, baseline): timing model ${mega(doc.warp_instructions_per_second)} warp-instructions per host second, ` +
      `executor ${mega(doc.executor_warp_instructions_per_second)}/s, end to end ${mega(doc.end_to_end_warp_instructions_per_second)}/s; ` +
      `native timing model ${mega(doc.native_warp_instructions_per_second)}/s`,
  );
  writeFileSync(join(artifactsDir, 'bench-timing.json'), JSON.stringify(doc, null, 2) + '\n');
});

// Every registered scheme, one at a time, on the reduction example with `reglab bench`'s launch:
// the timing model's rate in the browser worker beside `reglab bench --all-schemes`'s native one
// (the same warp-instructions, asserted). `compression` tunes its floats in the page (the launch
// is known there) and not in `reglab bench`, so its page figure includes that search's
// functional runs (reported, never asserted as a time).
test('every scheme in the browser worker on the reduction example (figures reported)', async (t) => {
  const cli = nativeCli();
  const example = 'reduction';
  const out = execFileSync(cli, ['bench', '--json', '--repeat', '1', '--gpu', GPU, '--only', example, '--all-schemes'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const native = Object.fromEntries(JSON.parse(out).schemes.map((s) => [s.scheme, s]));
  const launch = readFileSync(join(repoRoot, 'tests', 'cases', 'exec', 'examples', `${example}.launch.json`), 'utf8');
  const parsed = JSON.parse(launch);
  const { page, problems, close } = await openLab(browser, site.url);
  const schemes = [];
  try {
    await page.selectOption('#gpu-preset', GPU);
    await loadExample(page, example, parsed.kernel ?? parsed.launches[0].kernel);
    await setLaunchJson(page, launch);
    const names = [];
    for (const box of await page.locator('#run-schemes input[type=checkbox]').all()) {
      names.push(await box.getAttribute('value'));
    }
    assert.ok(names.length >= 15, `the page lists ${names.length} schemes`);
    for (const name of names) {
      await chooseSchemes(page, [name]);
      await runToResults(page, 600_000);
      const summary = await readSummary(page);
      assert.deepEqual(Object.keys(summary), [name]);
      const host = page.locator('#run-host-time');
      const attr = async (a) => Number(await host.getAttribute(`data-${a}`));
      const insts = summary[name].warpInstructions;
      assert.equal(await attr('timing-warp-instructions'), insts, name);
      const n = native[name];
      assert.ok(n, `reglab bench --all-schemes has no ${name}`);
      assert.equal(insts, n.warp_instructions, `${name}: warp-instructions, wasm vs native`);
      const s = {
        scheme: name,
        warp_instructions: insts,
        cycles: summary[name].cycles,
        total_ms: await attr('total-ms'),
        timing_model_ms: await attr('timing-model-ms'),
        warp_instructions_per_second: rate(insts, await attr('timing-model-ms')),
        end_to_end_warp_instructions_per_second: rate(insts, await attr('total-ms')),
        native_warp_instructions_per_second: n.warp_instructions_per_second,
        native_end_to_end_warp_instructions_per_second: n.end_to_end_warp_instructions_per_second,
      };
      schemes.push(s);
      t.diagnostic(
        `${name}: timing model ${mega(s.warp_instructions_per_second)}/s in wasm, ${mega(s.native_warp_instructions_per_second)}/s native; ` +
          `end to end ${mega(s.end_to_end_warp_instructions_per_second)}/s in wasm, ${mega(s.native_end_to_end_warp_instructions_per_second)}/s native`,
      );
    }
    // `compression` again on the same kernel and launch, with another write-back delay: the page
    // kept its precision search from the run above (`run_pool::SearchCache`), so this run makes
    // none and its report's search counters are the same.
    await chooseSchemes(page, ['compression']);
    await setParam(page, 0, 'writeback_delay', '0');
    await runToResults(page, 600_000);
    const host = page.locator('#run-host-time');
    const attr = async (a) => Number(await host.getAttribute(`data-${a}`));
    const first = schemes.find((s) => s.scheme === 'compression');
    const again = {
      scheme: 'compression:writeback_delay=0',
      search_kept: true,
      warp_instructions: await attr('timing-warp-instructions'),
      total_ms: await attr('total-ms'),
      timing_model_ms: await attr('timing-model-ms'),
    };
    assert.equal(again.warp_instructions, first.warp_instructions);
    assert.match(await host.textContent(), /precision search was taken from an earlier run/);
    again.warp_instructions_per_second = rate(again.warp_instructions, again.timing_model_ms);
    const baseline = schemes.find((s) => s.scheme === 'baseline');
    t.diagnostic(
      `compression again (write-back delay 0, its search kept from the run before): ${(again.total_ms / 1000).toFixed(2)} s ` +
        `against ${(first.total_ms / 1000).toFixed(2)} s with the search and ${(baseline.total_ms / 1000).toFixed(2)} s for the baseline; ` +
        `timing model ${mega(again.warp_instructions_per_second)}/s in wasm`,
    );
    schemes.push(again);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
  const doc = { gpu: GPU, example, unit: 'warp-instructions per host second', schemes };
  writeFileSync(join(artifactsDir, 'bench-schemes.json'), JSON.stringify(doc, null, 2) + '\n');
});
