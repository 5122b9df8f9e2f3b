// Builds the native addon with cargo (no prebuilt binary is downloaded) and places it where
// index.js loads it: toolcheck.node beside this file. `npm install` runs it.
//
// TOOLCHECK_NODE_PROFILE=debug builds unoptimised (faster to build, slower to run; the tests
// use it in CI); the default is release. CARGO_TARGET_DIR is honoured, else node/target.
import { spawnSync } from 'node:child_process';
import { copyFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const profile = process.env.TOOLCHECK_NODE_PROFILE || 'release';
if (profile !== 'release' && profile !== 'debug') {
  console.error(`TOOLCHECK_NODE_PROFILE must be release or debug, not ${profile}`);
  process.exit(2);
}
const args = ['build', '--locked', '--lib', '--manifest-path', join(here, 'Cargo.toml'), '--message-format=json-render-diagnostics'];
if (profile === 'release') args.push('--release');
const cargo = process.env.CARGO || 'cargo';
const run = spawnSync(cargo, args, { cwd: here, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28, encoding: 'utf8' });
if (run.error) {
  console.error(`cannot run ${cargo} (the Rust toolchain builds this package: https://rustup.rs): ${run.error.message}`);
  process.exit(1);
}
if (run.status !== 0) process.exit(run.status ?? 1);
let built;
for (const line of run.stdout.split('\n')) {
  if (!line.startsWith('{')) continue;
  const msg = JSON.parse(line);
  if (msg.reason === 'compiler-artifact' && msg.target?.name === 'toolcheck_node') {
    built = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f));
  }
}
if (!built) {
  console.error('cargo built no toolcheck_node library');
  process.exit(1);
}
// Copy then rename: a running process that has the old addon open keeps its copy.
const target = join(here, 'toolcheck.node');
copyFileSync(built, `${target}.tmp`);
renameSync(`${target}.tmp`, target);
console.log(`toolcheck: built ${profile} addon ${target}`);
