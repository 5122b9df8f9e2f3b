"""Turns the runner's rows into the results table and the --check verdict."""

from collections import Counter

from agents.common import canonical


def resumes(judged):
    """Does the real agent's resume go through: its request was sent and accepted."""
    return bool(judged) and judged.get("sent") and judged.get("verdict") == "accepted"


def sent_on_resume(judged):
    """What the resume request holds for the session's calls, in a few words."""
    if not judged:
        return "—"
    if not judged.get("sent"):
        tail = (judged.get("stderr_tail") or "").strip().splitlines()
        return "nothing sent (exit %s%s)" % (judged.get("exit"), ": " + tail[-1][:160] if tail else "")
    counts = Counter(r["id"] for r in judged["results"])
    parts = []
    for result in judged["results"]:
        if counts[result["id"]] == 0:
            continue
        times = counts[result["id"]]
        counts[result["id"]] = 0
        flag = " is_error" if result.get("is_error") else ""
        label = f"`{result['command']}`" if result.get("command") else result["id"]
        parts.append(f"{label} →{flag} “{result['text'][:140]}”" + (f" ×{times}" if times > 1 else ""))
    answered = {r["id"] for r in judged["results"]}
    unanswered = [c for c in judged["calls"] if c not in answered]
    if unanswered:
        parts.append("calls without result: " + ", ".join(unanswered))
    if not judged.get("user_messages_kept"):
        lost = [m for m, kept in judged["kept"].items() if not kept]
        parts.append("user message lost: " + ", ".join(lost))
    return "; ".join(parts) or "no tool results"


def placeholders(row):
    """Results in the resume request for calls that the saved session held without a result:
    the text the agent made up while rebuilding its history."""
    stored = row.get("stored_calls") or {}
    judged = row.get("resume") or {}
    return [r for r in judged.get("results") or []
            if canonical(r["id"]) in stored and not stored[canonical(r["id"])].get("result")]


def verdict(judged):
    if not judged:
        return "—"
    if not judged.get("sent"):
        return "no request"
    if judged["verdict"] == "accepted":
        return "accepted"
    return "**rejected**: " + judged["error"]


def lint_cell(row):
    lint = row.get("lint")
    if not lint:
        return "—"
    return lint["max_severity"] + (" (" + ", ".join(lint["codes"]) + ")" if lint["codes"] else "")


def doctor_cell(row):
    doctor = row.get("doctor")
    if not doctor:
        return "—"
    statuses = ", ".join(sorted({s["status"] for s in doctor["sessions"]})) or "no session found"
    return ("will not resume" if doctor["will_not_resume"] else "resumes") + f" ({statuses})"


def match(row):
    if "doctor" not in row or "resume" not in row:
        return None
    return row["doctor"]["will_not_resume"] == (not resumes(row["resume"]))


def after_fix(row):
    cells = []
    for key, label in (("resume_fixed", "fix --write"), ("resume_doctor_fixed", "doctor --fix")):
        judged = row.get(key)
        if judged:
            kept = "history kept" if judged.get("user_messages_kept") else "USER MESSAGE LOST"
            cells.append(f"{label}: {verdict(judged)}, {kept}" if judged.get("sent") else f"{label}: {verdict(judged)}")
        elif "fix" in row:
            cells.append(f"{label}: no change")
    return "; ".join(cells) or "—"


def proxied(row):
    """The resume through `toolcheck proxy --mode repair`, in a few words."""
    judged = row.get("resume_proxied")
    if not judged:
        return "—"
    if not judged.get("sent"):
        return verdict(judged)
    kept = "history kept" if judged.get("user_messages_kept") else "USER MESSAGE LOST"
    did = [line.split("): ", 1)[-1][:120] for line in row.get("proxy_log") or []]
    return f"{verdict(judged)}, {kept}" + (f" (proxy: {'; '.join(did)})" if did else " (proxy: forwarded, nothing to say)")


def one_line(row):
    if row.get("skipped") is not None:
        return "skipped: " + row["skipped"]
    if row.get("error") and "resume" not in row:
        return "error: " + row["error"]
    return f"resume {verdict(row.get('resume'))[:90]} | lint {lint_cell(row)} | doctor {doctor_cell(row)} | match {match(row)}"


def lost_by_fix(before, after):
    """User messages the agent sent from the unfixed session (accepted or not) that it no
    longer sends from the fixed one. A prompt the agent itself dropped (Gemini CLI rolls back
    the prompt of a rejected turn) was not the fix's to keep."""
    sent = before.get("kept", {}) if before.get("sent") else {}
    return [m for m, kept in after.get("kept", {}).items() if not kept and sent.get(m, True)]


def check_failures(rows):
    """(row name, why) for every disagreement; a row may have several."""
    failures = []
    for row in rows:
        name = f"{row['agent']} {row['scenario']}"
        if row.get("skipped") is not None:
            continue
        if "resume" not in row:
            failures.append((name, f"harness could not run it: {row.get('error')}"))
            continue
        if not match(row):
            failures.append((name, f"doctor says {doctor_cell(row)}, the provider {verdict(row['resume'])}"))
        for key in ("resume_fixed", "resume_doctor_fixed"):
            judged = row.get(key)
            if judged and not (resumes(judged) and not lost_by_fix(row["resume"], judged)):
                failures.append((name, f"after {key}: {verdict(judged)}, lost {lost_by_fix(row['resume'], judged)}"))
        if not resumes(row["resume"]) and not row.get("resume_fixed") and not row.get("resume_doctor_fixed"):
            failures.append((name, "will not resume and no toolcheck fix changed it"))
        # The proxy must pass a healthy resume, and repair in flight what the safe file fix
        # repairs.
        through = row.get("resume_proxied")
        fixed = row.get("resume_fixed")
        clean = row["scenario"] == "clean"
        if clean or (fixed and resumes(fixed) and not resumes(row["resume"])):
            if not (through and resumes(through) and not lost_by_fix(row["resume"], through)):
                failures.append((name, f"through toolcheck proxy --mode repair: {proxied(row)}"))
    return failures


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(summary):
    lines = [
        "# Conformance results",
        "",
        "Generated by `conformance/run.py` on %s in %s s. Each row: the real agent ran a scripted task"
        " against the fake provider, its session was broken as the scenario says, then resumed with"
        " a new prompt. \"Agent sent\" is what the resume request held for the session's tool calls;"
        " the validator holds it to the provider's documented rules. \"Match\" compares toolcheck"
        " doctor's verdict with the validator's. After fix: `toolcheck fix --write` and"
        " `toolcheck doctor --fix` on copies, each resumed again. Through the proxy: the untouched"
        " session resumed with the agent pointed at `toolcheck proxy --mode repair` before the fake"
        " provider (the clean rows, and every row the provider rejects)." % (summary["started"], summary["seconds"]),
        "",
        "| agent | scenario | file holds | agent sent on resume | validator | toolcheck lint | toolcheck doctor | match | after fix | through the proxy |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summary["rows"]:
        if row.get("skipped") is not None:
            lines.append(f"| {row['agent']} | {row['scenario']} | not run: {cell(row['skipped'])} | | | | | | | |")
            continue
        if "resume" not in row:
            lines.append(f"| {row['agent']} | {row['scenario']} | harness: {cell(row.get('error'))} | | | | | | | |")
            continue
        m = match(row)
        lines.append("| " + " | ".join(cell(c) for c in (
            row["agent"], row["scenario"], row.get("file_holds", "—"), sent_on_resume(row["resume"]),
            verdict(row["resume"]), lint_cell(row), doctor_cell(row), "yes" if m else "**no**", after_fix(row),
            proxied(row))) + " |")
    lines += ["", "## What each agent sent for a call its file left unanswered", "",
              "| agent | scenario | call | text sent on resume | written to the session file |",
              "|---|---|---|---|---|"]
    for row in summary["rows"]:
        for result in placeholders(row):
            lines.append(f"| {row['agent']} | {row['scenario']} | `{cell(result.get('command'))}` | "
                         f"{'is_error ' if result.get('is_error') else ''}“{cell(result['text'])}” | "
                         f"{'yes' if result.get('persisted') else 'no'} |")
    lines += ["", "## Versions", "", "| agent | installed | recorded in the session | where |", "|---|---|---|---|"]
    seen = set()
    for row in summary["rows"]:
        recorded = row.get("session_versions")
        if row["agent"] in seen or not recorded:
            continue
        seen.add(row["agent"])
        lines.append(f"| {row['agent']} | {summary['installed'].get(row['agent'])} | "
                     f"{', '.join(recorded['values']) or '—'} | {cell(recorded['where'])} |")
    return "\n".join(lines) + "\n"
