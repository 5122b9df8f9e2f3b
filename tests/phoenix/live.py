#!/usr/bin/env python3
"""The Phoenix source against a real Arize Phoenix server (run by scripts/test-phoenix.sh).

Starts `phoenix serve` (the pinned arize-phoenix of requirements.lock, SQLite in a temporary
working directory, telemetry off, 127.0.0.1 only), records traces into it with the real
OpenInference instrumentation of the official `openai` SDK (scripts/gen-traces.py against its
fake provider, exported by OTLP/HTTP to Phoenix's /v1/traces), one project per scenario, then
checks that `toolcheck lint phoenix+http://…/projects/P`:

- finds what it finds in the same spans exported to a file (one page of the REST API, as
  `curl` saves it), finding for finding, span for span;
- finds the same when the spans come one per page (`?limit=1`, the cursor followed);
- finds what each scenario holds: nothing (clean), an unanswered call and empty arguments
  (broken), a tool schema passed as a JSON string whose rejection the trace records
  (schema-string);

and that `tools extract` reads the same tools from the server as from the file, a missing
project is a clear error (exit 2), and `fix` refuses a server.

Usage: live.py TOOLCHECK   (the binary to test)
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(ROOT, "scripts", "gen-traces.py")

# What each scenario's project must give: (exit code, {code: severity}).
EXPECTED = {
    "clean": (0, {}),
    "broken": (1, {"TC102": "warning", "TC202": "warning"}),
    "schema-string": (1, {"TC303": "error"}),
}
# Where a finding sits in its file, which differs between a server and its export.
PLACE = ("path", "line", "column", "end_line", "end_column")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()


def start_phoenix(work):
    port, grpc = free_port(), free_port()
    env = dict(
        os.environ,
        PHOENIX_HOST="127.0.0.1",
        PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(grpc),
        PHOENIX_WORKING_DIR=work,
        PHOENIX_TELEMETRY_ENABLED="false",
    )
    env.pop("PHOENIX_SQL_DATABASE_URL", None)
    phoenix = os.path.join(os.path.dirname(sys.executable), "phoenix")
    log = open(os.path.join(work, "phoenix.log"), "w")
    server = subprocess.Popen([phoenix, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 180
    while time.time() < deadline:
        if server.poll() is not None:
            sys.exit(f"phoenix serve exited {server.returncode}; see {log.name}")
        try:
            get(base + "/healthz")
            return server, base
        except OSError:
            time.sleep(0.5)
    server.kill()
    sys.exit("phoenix serve did not answer /healthz in 180 s")


def record(base, scenario, work):
    """Runs the instrumented SDK for `scenario` into project live-SCENARIO; waits for its spans."""
    project = f"live-{scenario}"
    env = dict(os.environ, OTEL_RESOURCE_ATTRIBUTES=f"openinference.project.name={project}")
    out = os.path.join(work, project)
    subprocess.run(
        [sys.executable, GEN, "openinference", out, "--exporter", "otlp", "--scenario", scenario,
         "--otlp-endpoint", base + "/v1/traces"],
        env=env, check=True,
    )
    # Phoenix inserts what it receives in the background: wait until the count holds.
    seen, deadline = -1, time.time() + 60
    while time.time() < deadline:
        try:
            count = len(json.loads(get(f"{base}/v1/projects/{project}/spans?limit=1000"))["data"])
        except OSError:
            count = 0
        if count and count == seen:
            return project
        seen = count
        time.sleep(1)
    sys.exit(f"{project}: Phoenix never held the recorded spans")


def toolcheck(binary, *args):
    run = subprocess.run([binary, *args], capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr


def findings(binary, target, keep_place=False):
    code, out, err = toolcheck(binary, "lint", target, "--output-format", "json")
    if code not in (0, 1):
        sys.exit(f"lint {target} exited {code}: {err}")
    found = json.loads(out)
    if not keep_place:
        for f in found:
            for key in PLACE:
                f.pop(key, None)
    return code, found


def main():
    binary = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as work:
        server, base = start_phoenix(work)
        try:
            for scenario, (want_exit, want) in EXPECTED.items():
                project = record(base, scenario, work)
                url = f"phoenix+{base}/projects/{project}"
                export = os.path.join(work, project + ".json")
                with open(export, "wb") as f:
                    f.write(get(f"{base}/v1/projects/{project}/spans?limit=1000"))
                code, served = findings(binary, url)
                _, exported = findings(binary, export)
                if served != exported:
                    failures.append(f"{project}: the server's findings differ from its export's:\n"
                                    f"  server: {json.dumps(served)}\n  export: {json.dumps(exported)}")
                # One span a page: pointers name each page's own `data`; the rest holds.
                _, paged = findings(binary, url + "?limit=1")
                brief = lambda fs: sorted((f["code"], f["severity"], json.dumps(f.get("span"))) for f in fs)
                if brief(paged) != brief(exported):
                    failures.append(f"{project}: paged one span at a time, the findings differ: "
                                    f"{brief(paged)} != {brief(exported)}")
                got = {f["code"]: f["severity"] for f in served}
                if code != want_exit or got != want:
                    failures.append(f"{project}: exit {code} with {got}, expected exit {want_exit} with {want}")
                if any(not (f.get("span") or {}).get("span_id") for f in served):
                    failures.append(f"{project}: a finding without its span: {served}")
                _, tools_served, _ = toolcheck(binary, "tools", "extract", url)
                _, tools_exported, _ = toolcheck(binary, "tools", "extract", export)
                if tools_served != tools_exported or "get_weather" not in tools_served:
                    failures.append(f"{project}: tools extract differs:\n{tools_served}\n{tools_exported}")
                print(f"phoenix live: {project}: exit {code}, {sorted(got.items())}, same as its export")
            code, _, err = toolcheck(binary, "lint", f"phoenix+{base}/projects/no-such-project")
            if code != 2 or "has no project `no-such-project`" not in err:
                failures.append(f"a missing project: exit {code}, {err!r}")
            code, _, err = toolcheck(binary, "fix", f"phoenix+{base}/projects/live-broken")
            if code != 2 or "never written" not in err:
                failures.append(f"fix of a server: exit {code}, {err!r}")
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    if failures:
        sys.exit("phoenix live: FAILED\n" + "\n".join(failures))
    print("phoenix live: every check passed")


if __name__ == "__main__":
    main()
