#!/usr/bin/env python3
"""Conformance suite: run the real coding-agent CLIs against the fake provider, break their
sessions the ways real sessions break, resume them, and compare what the agent really sends
(judged by the provider's rules) with toolcheck's verdicts on the saved session.

    conformance/run.py [--agents a,b] [--scenarios s,t] [--check] [--newest] [--jobs N]

Outside a network namespace it re-executes itself inside one with only loopback
(`unshare -n`, needs root): the agents may phone home, and nothing may leave this machine.
Writes conformance/results.json and conformance/RESULTS.md (unless --no-write).
"""

import argparse
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_provider import Provider  # noqa: E402
from agents.common import canonical  # noqa: E402
import report  # noqa: E402

AGENTS = ["claude-code", "codex", "gemini-cli", "qwen-code", "pi", "opencode", "kilo", "copilot-cli", "kimi-cli",
          "hermes", "droid"]
# Agents from PyPI (an agent module's `PIP`) each live in a venv of their own here
# (scripts/conformance.sh builds them from pip/<name>.lock), beside the npm ones' node_modules.
VENVS = HERE / ".venvs"


def venv_bin(agent):
    return VENVS / agent.PIP / "bin"
# A bare sleep is refused by some agents; `sleep 57` is distinctive, so the runner finds its process.
SLOW = "echo conf-slow-start; sleep 57"
SCENARIOS = {
    # name: (first prompt's steps, steps of a resume that gets killed, or None)
    "clean": ([{"calls": ["echo conf-alpha", "ls /conf-missing-dir"]}, {"text": "Both commands ran."}], None),
    "kill-during-tool": ([{"calls": [SLOW]}], None),
    "parallel-one-killed": ([{"calls": ["echo conf-quick", SLOW]}], None),
    "stream-cut-in-arguments": ([{"calls": ["echo conf-cut"], "fault": "cut-args"}, {"text": "Ran it."}], None),
    "no-stop-event": ([{"calls": ["echo conf-nostop"], "fault": "no-stop"}, {"text": "Ran it."}], None),
    "kill-during-resume": ([{"calls": ["echo conf-alpha"]}, {"text": "Ran it."}], [{"calls": [SLOW]}]),
    # A clean turn, then the agent's own compaction command as a resumed prompt.
    "compaction": ([{"calls": ["echo conf-alpha", "ls /conf-missing-dir"]}, {"text": "Both ran."}], None),
}
KILLING = {"kill-during-tool", "parallel-one-killed"}
# The proxy's modes each proxied resume runs in (`repair` is the one --check judges; the
# others are for reading: CONFORMANCE_PROXY_MODES=repair,report,block).
PROXY_MODES = [m for m in os.environ.get("CONFORMANCE_PROXY_MODES", "repair").split(",") if m]


def proxied_phase(mode):
    return "resume-proxied" if mode == "repair" else f"resume-proxied-{mode}"
RUN_TIMEOUT = 150


def toolcheck_bin():
    found = os.environ.get("TOOLCHECK")
    if found:
        return found
    for candidate in (os.environ.get("CARGO_TARGET_DIR", ""), str(HERE.parent / "target")):
        path = Path(candidate) / "release" / "toolcheck"
        if candidate and path.exists():
            return str(path)
    return shutil.which("toolcheck") or "toolcheck"


# --- processes ---------------------------------------------------------------

def descendants(root):
    """Pids of root's descendants (by /proc ppid chains)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]
    except OSError:
        return []


def slow_tool_pids(root):
    return [p for p in descendants(root) if cmdline(p)[-2:] == [b"sleep", b"57"]]


class Run:
    """One agent process: output, exit, and whether the runner killed it."""

    def __init__(self, argv, env, cwd, log_prefix):
        self.argv = argv
        self.stdout_path = f"{log_prefix}.stdout"
        self.stderr_path = f"{log_prefix}.stderr"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=err, start_new_session=True)
        self.killed = False
        self.timed_out = False

    def kill(self):
        # The tool may run in a group of its own: find it before the group dies and orphans it.
        strays = descendants(self.proc.pid)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.killed = True
        self.proc.wait()

    def wait(self, kill_when=None):
        deadline = time.time() + RUN_TIMEOUT
        while self.proc.poll() is None:
            if time.time() > deadline:
                self.timed_out = True
                self.kill()
                break
            if kill_when and kill_when(self.proc.pid):
                self.kill()
                break
            time.sleep(0.3)
        return self

    def output(self):
        return Path(self.stdout_path).read_text(errors="replace"), Path(self.stderr_path).read_text(errors="replace")


def file_mentions(paths, needle):
    # A SQLite store in WAL mode holds its newest rows in the `-wal` file beside it.
    for path in [p for path in paths for p in (Path(path), Path(f"{path}-wal"))]:
        try:
            if needle.encode() in path.read_bytes():
                return True
        except OSError:
            pass
    return False


# --- one scenario ------------------------------------------------------------

class Scenario:
    def __init__(self, agent, name, root, bin_dir):
        self.agent = agent
        self.name = name
        self.root = root
        self.bin_dir = bin_dir
        self.work = root / "work"
        self.work.mkdir(parents=True)
        (self.work / "README.txt").write_text("conformance workspace\n")
        self.log_path = root / "requests.jsonl"
        first, killed_resume = SCENARIOS[name]
        self.markers = {"task": f"TASK-{name}-1"}
        prompts = {self.markers["task"]: first}
        if killed_resume:
            self.markers["resume-killed"] = f"RESUMEK-{name}-2"
            prompts[self.markers["resume-killed"]] = killed_resume
        for phase in ("resume", "resume-fixed", "resume-doctor-fixed", *map(proxied_phase, PROXY_MODES)):
            self.markers[phase] = f"{phase.upper()}-{name}-3"
            prompts[self.markers[phase]] = []
        plan = {"model": agent.MODEL, "prompts": prompts, "default_text": "Resumed fine."}
        self.provider = Provider(plan, str(self.log_path), agent.make_call, agent.SHELL_TOOLS)
        self.base_url = None
        # For agents that take the new session's id on the command line.
        self.session_uuid = str(uuid.uuid4())
        self.result = {"agent": agent.NAME, "scenario": name, "phases": {}}

    def prompt(self, phase):
        if phase == "compact":
            return self.agent.COMPACT_PROMPT
        return f"Conformance check {self.markers[phase]}: run the commands you are asked to, then answer."

    def env(self, home, base_url=None):
        env = {
            "PATH": ":".join([str(self.bin_dir), *self.venv_path(), os.environ.get("PATH", "/usr/bin:/bin")]),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "CI": "1",
            "TMPDIR": str(self.root / "tmp"),
        }
        (self.root / "tmp").mkdir(exist_ok=True)
        env.update(self.agent.env(home, self.work, base_url or self.base_url))
        return env

    def venv_path(self):
        return [str(venv_bin(self.agent))] if getattr(self.agent, "PIP", None) else []

    def phase(self, phase, home, session_id=None, kill=False, base_url=None):
        prompt = self.prompt(phase)
        if session_id is None:
            argv = self.agent.start_cmd(prompt, self.work, self.session_uuid)
        else:
            argv = self.agent.resume_cmd(session_id, prompt, self.work)
        start = time.time()
        run = Run(argv, self.env(home, base_url), self.work, str(self.root / phase))
        kill_when = None
        if kill:
            seen = {}

            def kill_when(pid):
                if not slow_tool_pids(pid):
                    return False
                seen.setdefault("t", time.time())
                # Once the slow tool runs, wait for its call to reach the session (some agents
                # never store it before its result: then give up after a few seconds).
                stored = file_mentions(self.agent.session_files(home), self.slow_call_id())
                return stored and time.time() - seen["t"] > 1 or time.time() - seen["t"] > 6

        run.wait(kill_when)
        out, err = run.output()
        info = {"argv": argv, "exit": run.proc.returncode, "killed": run.killed, "expected_kill": kill,
                "timed_out": run.timed_out,
                "seconds": round(time.time() - start, 1), "stdout_tail": out[-1500:], "stderr_tail": err[-1500:]}
        self.result["phases"][phase] = info
        return info, out

    def requests(self):
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def calls_issued(self):
        """call id -> command, for every call the provider answered with."""
        issued = {}
        for record in self.requests():
            answer = record.get("answer") or {}
            for call in answer.get("calls", []):
                issued[call["id"]] = self.agent.command_of(call)
        return issued

    def slow_call_id(self):
        ids = [cid for cid, command in self.calls_issued().items() if SLOW in command]
        return ids[-1] if ids else "\0never"

    def first_request(self, marker):
        for record in self.requests():
            if record.get("marker") == marker and record.get("kind") == "main":
                return record
        return None

    def run(self):
        home = self.root / "home"
        home.mkdir()
        self.base_url = f"http://127.0.0.1:{self.provider.start()}"
        self.agent.setup(home, self.work, self.base_url)
        try:
            self.run_phases(home)
        finally:
            self.provider.stop()
        return self.result

    def run_phases(self, home):
        agent = self.agent
        info, out = self.phase("task", home, kill=self.name in KILLING)
        session_id = agent.session_id(home, out, self.session_uuid)
        if session_id and "resume-killed" in self.markers:
            self.phase("resume-killed", home, session_id, kill=True)
        if session_id and self.name == "compaction":
            self.phase("compact", home, session_id)
        files = agent.session_files(home)
        self.result["session_id"] = session_id
        self.result["session_files"] = [str(p) for p in files]
        self.result["session_versions"] = agent.versions(files)
        # A compaction replaces the prompts before it with a summary: none is expected back.
        typed = ("task", "resume-killed") if self.name != "compaction" else ()
        self.result["user_markers"] = [m for k, m in self.markers.items() if k in typed]
        if not files or not session_id:
            why = "no session was saved" if not files else "no session id found"
            task = self.result["phases"]["task"]
            tail = " ".join(task["stderr_tail"].split())[-300:]
            self.result["error"] = f"{why} (the first run exited {task['exit']}" + (f": {tail})" if tail else ")")
            return
        self.result["file_holds"] = agent.describe_files(files, self.calls_issued())
        unkilled = [p for p, i in self.result["phases"].items() if i["expected_kill"] and not i["killed"]]
        if unkilled:
            self.result["file_holds"] += " (not killed in " + ", ".join(unkilled) + ": the agent exited first)"
        self.result["stored_calls"] = {canonical(k): v for k, v in agent.stored_calls(files).items()}
        self.result["lint"] = toolcheck_lint(files, home)
        self.result["doctor"] = toolcheck_doctor(home, agent, self.env(home))
        fixed_home = self.copy_home(home, "home-fixed")
        fixed_files = [fixed_home / Path(f).relative_to(home) for f in files]
        self.result["fix"] = toolcheck_fix(fixed_files, self.env(fixed_home))
        doctor_home = self.copy_home(home, "home-doctor-fixed")
        self.result["doctor_fix"] = toolcheck_doctor(doctor_home, agent, self.env(doctor_home), fix=True)

        # The untouched session again, for a resume through `toolcheck proxy --mode repair`.
        proxied_homes = {m: self.copy_home(home, "home-" + proxied_phase(m)) for m in PROXY_MODES}
        self.phase("resume", home, session_id)
        self.result["resume"] = self.judge("resume")
        # Does the agent write the result it made up into the session, or only send it?
        after = agent.session_files(home)
        for result in report.placeholders(self.result):
            result["persisted"] = file_mentions(after, result["text"][:30])
        if self.result["fix"]["changed"]:
            self.phase("resume-fixed", fixed_home, session_id)
            self.result["resume_fixed"] = self.judge("resume-fixed")
        if self.result["doctor_fix"].get("changed"):
            self.phase("resume-doctor-fixed", doctor_home, session_id)
            self.result["resume_doctor_fixed"] = self.judge("resume-doctor-fixed")
        # Through the proxy: a session the provider rejects, and the clean one (which the
        # proxy must pass untouched).
        if self.name == "clean" or not report.resumes(self.result["resume"]):
            for mode, proxied_home in proxied_homes.items():
                self.resume_proxied(proxied_home, session_id, mode)

    def resume_proxied(self, home, session_id, mode):
        """Resumes `home` with the agent pointed at `toolcheck proxy --mode MODE`, whose
        upstream is the fake provider; keeps what the proxy logged."""
        phase = proxied_phase(mode)
        key = phase.replace("-", "_")
        log_key = "proxy_log" + key[len("resume_proxied"):]
        proxy = subprocess.Popen(
            [toolcheck_bin(), "proxy", "--listen", "127.0.0.1:0", "--upstream", self.base_url, "--mode", mode],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = proxy.stderr.readline()
        log = []
        drain = threading.Thread(target=lambda: log.extend(proxy.stderr), daemon=True)
        drain.start()
        try:
            address = first.split("http://", 1)[1].split(" ", 1)[0] if "http://" in first else None
            if address is None:
                self.result[log_key] = [first.strip()]
                return
            url = f"http://{address}"
            self.agent.setup(home, self.work, url)
            self.phase(phase, home, session_id, base_url=url)
            self.result[key] = self.judge(phase)
        finally:
            proxy.send_signal(signal.SIGINT)
            try:
                proxy.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proxy.kill()
            drain.join(timeout=5)
        # Only what it did to requests (its first and last lines say it started and stopped).
        self.result[log_key] = [line.strip() for line in log if ": POST " in line][:20]

    def copy_home(self, home, name):
        target = self.root / name
        # An agent's cache is not part of its session; Copilot CLI unpacks its 235 MB binary
        # there, so a copy per home filled CI's disk. The copies share the original's.
        shutil.copytree(home, target, symlinks=True, ignore=lambda d, names: [".cache"] if d == str(home) else [])
        if (home / ".cache").exists():
            (target / ".cache").symlink_to(home / ".cache")
        # Config files that name the home by path must name the copy.
        self.agent.setup(target, self.work, self.base_url)
        return target

    def judge(self, phase):
        marker = self.markers[phase]
        request = self.first_request(marker)
        if request is None:
            info = self.result["phases"][phase]
            return {"sent": False, "verdict": "no request", "exit": info["exit"],
                    "stderr_tail": info["stderr_tail"][-600:]}
        text = json.dumps(request["body"], ensure_ascii=False)
        kept = {m: m in text for m in self.result["user_markers"]}
        results = self.agent.results_in(request["dialect"], request["body"])
        issued = self.calls_issued()
        return {
            "sent": True,
            "verdict": request["verdict"],
            "error": request.get("error"),
            "user_messages_kept": all(kept.values()),
            "kept": kept,
            "results": [dict(r, command=issued.get(canonical(r["id"]))) for r in results],
            "calls": self.agent.calls_in(request["dialect"], request["body"]),
        }


# --- toolcheck ---------------------------------------------------------------

def run_json(argv, env=None):
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    try:
        return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None, proc.stderr
    except ValueError:
        return proc.returncode, None, proc.stdout + proc.stderr


def toolcheck_lint(files, home):
    code, findings, err = run_json([toolcheck_bin(), "lint", "--output-format", "json", *map(str, files)])
    findings = findings or []
    order = {"error": 3, "warning": 2, "info": 1, "hint": 0}
    severities = [f.get("severity") for f in findings]
    return {
        "exit": code,
        "max_severity": max(severities, key=lambda s: order.get(s, -1)) if severities else "none",
        "codes": sorted({f"{f.get('code')} {f.get('severity')}" for f in findings}),
        "messages": [f.get("message") for f in findings][:8],
        "stderr": err[-400:] if code not in (0, 1) else "",
    }


def toolcheck_doctor(home, agent, env, fix=False):
    argv = [toolcheck_bin(), "doctor", "--output-format", "json", "--agent", agent.TOOLCHECK_AGENT]
    if fix:
        before = snapshot(home)
        proc = subprocess.run(argv + ["--fix", "--force"], env=env, capture_output=True, text=True, timeout=120)
        return {"exit": proc.returncode, "changed": snapshot(home) != before, "output": proc.stdout[-600:]}
    code, sessions, err = run_json(argv, env)
    sessions = sessions or []
    return {
        "exit": code,
        "sessions": [{"path": s.get("path"), "status": s.get("status"), "reason": s.get("reason"),
                      "first_error": (s.get("first_error") or {}).get("code")} for s in sessions],
        "will_not_resume": any(s.get("status") == "broken" for s in sessions),
        "stderr": err[-400:] if code not in (0, 1) else "",
    }


def toolcheck_fix(files, env):
    before = {str(f): Path(f).read_bytes() for f in files if Path(f).exists()}
    proc = subprocess.run([toolcheck_bin(), "fix", "--write", *map(str, files)], env=env,
                          capture_output=True, text=True, timeout=120)
    after = {str(f): Path(f).read_bytes() for f in files if Path(f).exists()}
    return {"exit": proc.returncode, "changed": before != after, "output": (proc.stdout + proc.stderr)[-800:]}


def snapshot(root):
    state = {}
    for path in Path(root).rglob("*"):
        if path.is_file() and "toolcheck/backups" not in str(path):
            state[str(path)] = path.stat().st_mtime_ns, path.stat().st_size
    return state


# --- driver ------------------------------------------------------------------

def load_agent(name):
    return importlib.import_module("agents." + name.replace("-", "_"))


def run_one(agent_name, scenario, scratch, bin_dir, keep=False):
    agent = load_agent(agent_name)
    root = scratch / f"{agent_name}--{scenario}"
    started = time.time()
    if scenario not in agent.SCENARIOS:
        return {"agent": agent_name, "scenario": scenario, "skipped": agent.SCENARIOS_SKIPPED.get(scenario, "")}
    if getattr(agent, "PIP", None) and not (venv_bin(agent) / agent.start_cmd("", None, None)[0]).exists():
        return {"agent": agent_name, "scenario": scenario,
                "skipped": f"{agent.PIP} is not installed: scripts/conformance.sh builds conformance/.venvs/{agent.PIP} "
                           "where a Python the lock names is found"}
    try:
        result = Scenario(agent, scenario, root, bin_dir).run()
    except Exception as error:  # one broken row must not stop the others
        result = {"agent": agent_name, "scenario": scenario, "error": f"{type(error).__name__}: {error}"}
    result["seconds"] = round(time.time() - started, 1)
    result["scratch"] = str(root)
    # A row that agrees is not needed to explain anything: its homes go (Copilot CLI's alone
    # are 700 MB a row). A failing row keeps its scratch for the reader.
    if not keep and root.exists() and not report.check_failures([result]):
        shutil.rmtree(root, ignore_errors=True)
        result["scratch"] = None
    print(f"[{time.strftime('%H:%M:%S')}] {agent_name} {scenario}: {report.one_line(result)}", flush=True)
    return result


def inner(args):
    bin_dir = Path(args.bin_dir)
    scratch = Path(tempfile.mkdtemp(prefix="toolcheck-conformance-"))
    agents = args.agents.split(",") if args.agents else AGENTS
    scenarios = args.scenarios.split(",") if args.scenarios else list(SCENARIOS)
    jobs = [(a, s) for a in agents for s in scenarios]
    started = time.time()
    # Agents of one kind share nothing but the binary: rows run side by side.
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda job: run_one(job[0], job[1], scratch, bin_dir, args.keep), jobs))
    versions = {a: installed_version(bin_dir.parent, load_agent(a)) for a in agents}
    summary = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
               "seconds": round(time.time() - started, 1), "installed": versions, "rows": results}
    if not args.no_write:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
        (out / "RESULTS.md").write_text(report.markdown(summary))
    failures = report.check_failures(results)
    print(f"{len(results)} rows in {summary['seconds']} s; scratch {scratch}")
    if args.check:
        for name, why in failures:
            print(f"MISMATCH {name}: {why}")
        failed = len({name for name, _ in failures})
        skipped = sum(1 for r in results if r.get("skipped") is not None)
        print(f"{len(results) - failed - skipped} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
        return 1 if failures else 0
    return 0


def installed_version(node_modules, agent):
    pip = getattr(agent, "PIP", None)
    if pip:
        name = pip.replace("-", "_")
        found = sorted((VENVS / pip).glob(f"lib/python*/site-packages/{name}-*.dist-info"))
        return found[-1].name[len(name) + 1:-len(".dist-info")] if found else None
    try:
        return json.loads((node_modules / agent.PACKAGE / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def install_newest(agents):
    """npm install @latest of each agent into a temp dir; returns its node_modules/.bin."""
    target = Path(tempfile.mkdtemp(prefix="toolcheck-conformance-newest-"))
    (target / "package.json").write_text('{"private": true}\n')
    # The PyPI agents keep conformance/.venv's pins.
    packages = [load_agent(a).PACKAGE + "@latest" for a in agents if load_agent(a).PACKAGE]
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", *packages], cwd=target, check=True)
    return target / "node_modules" / ".bin"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", help="comma-separated: " + ",".join(AGENTS))
    parser.add_argument("--scenarios", help="comma-separated: " + ",".join(SCENARIOS))
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when toolcheck's verdict disagrees with the provider's, or a fixed session fails")
    parser.add_argument("--newest", action="store_true", help="install @latest of each agent instead of the lock")
    # Rows mostly wait on the agent and the kill timers: 4 at once fit 2 cores.
    parser.add_argument("--jobs", type=int, default=4, help="rows run at once [4]")
    parser.add_argument("--keep", action="store_true", help="keep every row's scratch, not only the failing rows'")
    parser.add_argument("--no-write", action="store_true", help="do not write results.json / RESULTS.md")
    parser.add_argument("--out", default=str(HERE), help="where results.json and RESULTS.md go [conformance/]")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bin-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.inner:
        sys.exit(inner(args))
    agents = args.agents.split(",") if args.agents else AGENTS
    bin_dir = install_newest(agents) if args.newest else HERE / "node_modules" / ".bin"
    if not bin_dir.exists():
        sys.exit(f"{bin_dir} is missing: run `npm ci` in {HERE} first")
    forwarded = [a for a in sys.argv[1:] if a != "--newest"]
    inner_argv = [sys.executable, str(Path(__file__).resolve()), "--inner", "--bin-dir", str(bin_dir), *forwarded]
    # Only loopback inside: an agent that phones home gets "network unreachable".
    script = "ip link set lo up && exec " + " ".join(map(sh_quote, inner_argv))
    sys.exit(subprocess.call(["unshare", "-n", "sh", "-c", script]))


def sh_quote(text):
    return "'" + text.replace("'", "'\"'\"'") + "'"


if __name__ == "__main__":
    main()
