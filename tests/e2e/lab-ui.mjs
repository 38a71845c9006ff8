// Helpers shared by the tests that drive the lab (launch editor, run panel, results) of the built
// site: a fresh page with its problems collected, the scheme checkboxes, and a run to its results.

/** Opens the site in a fresh browser context (empty local storage); returns { page, problems, close }. */
export async function openLab(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.goto(url);
  await page.locator('#launch-params').waitFor();
  return { page, problems, close: () => context.close() };
}

/** Sets the scheme checkboxes to exactly `names`. */
export async function chooseSchemes(page, names) {
  for (const box of await page.locator('#run-schemes input[type=checkbox]').all()) {
    const want = names.includes(await box.getAttribute('value'));
    if ((await box.isChecked()) !== want) await box.click();
  }
}

/** Types `value` into parameter `param` of scheme instance `index` (its card in the scheme
 * panel; the form opened if folded) and commits it. */
export async function setParam(page, index, param, value) {
  const card = page.locator(`.scheme-card[data-index="${index}"]`);
  const details = card.locator('details.scheme-params');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  const field = page.locator(`#param-${index}-${param}`);
  await field.fill(value);
  await field.press('Tab');
}

/** Loads a bundled example and waits until the lab has taken its launch setup for `kernel`. */
export async function loadExample(page, id, kernel) {
  await page.selectOption('#example-picker', id);
  await page.locator('.launch-kernel-name code', { hasText: kernel }).waitFor();
}

/** Replaces the launch setup with `json` through the JSON view; throws if the page rejects it. */
export async function setLaunchJson(page, json) {
  await page.locator('#launch-json-toggle').click();
  await page.locator('#launch-json').fill(json);
  // A rejected text shows its error at once (closing the view would clear it).
  const rejected = await page
    .locator('#launch-edit-error')
    .waitFor({ timeout: 500 })
    .then(() => page.locator('#launch-edit-error').textContent(), () => null);
  if (rejected !== null) throw new Error(`launch JSON rejected: ${rejected}`);
  await page.locator('#launch-json-toggle').click();
  await page.locator('#launch-json').waitFor({ state: 'detached' });
  if ((await page.locator('#launch-invalid').count()) > 0) {
    throw new Error(`launch not runnable: ${await page.locator('#launch-invalid').textContent()}`);
  }
}

/** Clicks Run and waits (up to `timeout` ms) for the results or the run's error, which it throws. */
export async function runToResults(page, timeout = 120_000) {
  await page.locator('#run-button').click();
  await page.locator('#run-results, #run-error').first().waitFor({ timeout });
  if ((await page.locator('#run-error').count()) > 0) {
    throw new Error(`the run failed: ${await page.locator('#run-error').textContent()}`);
  }
}

/** The summary table of the results: { scheme: { cycles, warpInstructions, ipcWarp, ipcThread } }. */
export async function readSummary(page) {
  const out = {};
  for (const row of await page.locator('#run-results .summary tbody tr').all()) {
    const cells = await row.locator('td').allTextContents();
    out[cells[0]] = {
      cycles: Number(cells[1]),
      warpInstructions: Number(cells[2]),
      ipcWarp: Number(cells[3]),
      ipcThread: Number(cells[4]),
    };
  }
  return out;
}
