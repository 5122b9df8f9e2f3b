// The Node API gives the command line's findings on every file under fixtures/: the same
// code, pointer, line and column, in the same order.
//
// The command is the debug binary `cargo build` makes (CARGO_TARGET_DIR/debug/toolcheck, else
// ../target/debug/toolcheck; .ci/run's `cargo test` has built it already), built here if
// missing; TOOLCHECK_BIN names another.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import toolcheck from '../index.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const exe = process.platform === 'win32' ? 'toolcheck.exe' : 'toolcheck';

function binary() {
  if (process.env.TOOLCHECK_BIN) return process.env.TOOLCHECK_BIN;
  const target = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, 'target');
  const bin = join(target, 'debug', exe);
  if (!existsSync(bin)) {
    execFileSync('cargo', ['build', '--locked', '--bin', 'toolcheck'], { cwd: root, stdio: 'inherit' });
  }
  return bin;
}

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

const key = (f) => ({ path: f.path, code: f.code, pointer: f.pointer, line: f.line, column: f.column });

test('lint gives the command line findings on every fixture', () => {
  const names = files(join(root, 'fixtures')).map((f) => relative(root, f));
  assert.ok(names.length > 100, `${names.length} fixtures`);
  const run = spawnSync(binary(), ['lint', '--no-config', '--output-format', 'json', ...names], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.ok(run.status === 0 || run.status === 1, `toolcheck lint exited ${run.status}: ${run.stderr}`);
  const cli = JSON.parse(run.stdout);
  const byFile = new Map(names.map((n) => [n, []]));
  for (const f of cli) byFile.get(f.path)?.push(key(f)) ?? assert.fail(`a finding for an unknown path ${f.path}`);
  // By path, all at once: a Strands message file, or an OpenHands V1 event file, names its
  // whole session folder, read once.
  const viaPath = toolcheck.lintPath(names.map((n) => join(root, n))).map((f) => ({ ...key(f), path: relative(root, f.path) }));
  assert.deepEqual(viaPath, cli.map(key));
  let compared = 0;
  for (const name of names) {
    // As text, file by file; a session folder's file alone is not its session.
    const parts = name.split(/[\\/]/);
    if (parts.includes('strands') || (parts.includes('openhands') && parts.includes('events'))) continue;
    const found = toolcheck.lint(readFileSync(join(root, name)), { name }).map(key);
    assert.deepEqual(found, byFile.get(name), name);
    compared += found.length;
  }
  assert.ok(compared > 100, `${compared} findings compared`);
});
