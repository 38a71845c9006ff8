// Serves the built site (dist/) from a sub-path with a plain static server, the way a course page
// would host it: dist/ is copied to target/e2e-site/course/reglab/ and `python3 -m http.server`
// serves target/e2e-site on a free port of 127.0.0.1.

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const subPath = '/course/reglab/';
export const artifactsDir = join(repoRoot, 'target', 'e2e');

function freePort() {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });
}

async function waitUntilServing(url, child) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`http.server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${url} did not answer within 10 s`);
}

/** Copies dist/ under the sub-path, starts the server, and returns { url, stop }. */
export async function serveSite() {
  const dist = join(repoRoot, 'dist');
  if (!existsSync(join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: build the site first (trunk build --release)`);
  }
  const siteRoot = join(repoRoot, 'target', 'e2e-site');
  rmSync(siteRoot, { recursive: true, force: true });
  mkdirSync(join(siteRoot, subPath), { recursive: true });
  cpSync(dist, join(siteRoot, subPath), { recursive: true });
  mkdirSync(artifactsDir, { recursive: true });

  const port = await freePort();
  const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1'], {
    cwd: siteRoot,
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}${subPath}`;
  try {
    await waitUntilServing(url, child);
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    url,
    stop: () =>
      new Promise((ok) => {
        if (child.exitCode !== null) return ok();
        child.once('exit', () => ok());
        child.kill();
      }),
  };
}

/** The system Chromium and the flags it needs on these machines (no sandbox as root, no network). */
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The third-party PTX corpus (`$REGLAB_CORPUS`, else ../shared/corpus/ptx beside the repository). */
export const corpusDir = process.env.REGLAB_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus', 'ptx');

/** The native CLI: `$REGLAB_BIN`, else the debug build (built if missing). */
function cli() {
  if (process.env.REGLAB_BIN) return process.env.REGLAB_BIN;
  const bin = join(repoRoot, 'target', 'debug', 'reglab');
  if (!existsSync(bin)) {
    execFileSync('cargo', ['build', '-p', 'reglab-cli', '--quiet'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return bin;
}

/** Runs `reglab ARGS` in the repository root and returns its stdout (throws on a non-zero exit). */
export const reglab = (args) => execFileSync(cli(), args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 28 });
