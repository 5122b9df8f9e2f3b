// The hand-written types (index.d.ts) check against a small TypeScript usage file, with the
// AI SDK's own types: `tsc --noEmit` (TypeScript pinned in package.json).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('tsc --noEmit accepts the usage file', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = fileURLToPath(new URL('./tsconfig.json', import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});
