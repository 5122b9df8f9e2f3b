//! Issue 42's targets: every ratio the benchmark measures against orjson and the SIMD floor
//! (as well as `json.loads` and the serde floor), printed beside its target. The Python floors
//! run in `--python`'s interpreter (or `python3`); orjson is measured where it imports there.

use std::path::Path;
use std::process::Command;

use super::{measure, Sample};

/// One ratio and the most it may be.
struct Row {
    what: String,
    measured: Option<f64>,
    target: f64,
    unit: &'static str,
    why_missing: String,
}

/// The targets table, filled in as the tables above it are measured.
#[derive(Default)]
pub(crate) struct Targets {
    rows: Vec<Row>,
}

impl Targets {
    /// A measured ratio (`None`, with why, when it could not be measured here).
    pub(crate) fn add(
        &mut self,
        what: impl Into<String>,
        measured: Option<f64>,
        target: f64,
        unit: &'static str,
        why_missing: &str,
    ) {
        self.rows.push(Row {
            what: what.into(),
            measured: measured.filter(|m| m.is_finite()),
            target,
            unit,
            why_missing: why_missing.to_string(),
        });
    }

    pub(crate) fn print(&self) {
        println!("\ntargets (issue 42): each ratio from this run beside its target\n");
        println!("| measure | this run | target | |");
        println!("|---|---|---|---|");
        let mut met = 0;
        for row in &self.rows {
            let (value, verdict) = match row.measured {
                Some(m) if m <= row.target => {
                    met += 1;
                    (format!("{m:.2}{}", row.unit), "met")
                }
                Some(m) => (format!("{m:.2}{}", row.unit), "**missed**"),
                None => (format!("not measured: {}", row.why_missing), ""),
            };
            println!(
                "| {} | {value} | ≤ {:.2}{} | {verdict} |",
                row.what, row.target, row.unit
            );
        }
        let measured = self.rows.iter().filter(|r| r.measured.is_some()).count();
        println!(
            "\n{met} of {measured} measured targets met ({} rows)",
            self.rows.len()
        );
    }
}

/// A Python loop parsing every document and JSONL record of `paths` with `module`'s
/// `loads` (`json` or `orjson`), one thread, interpreter start included; `None` when the
/// interpreter or the module is missing.
pub(crate) fn python_loads(python: &str, module: &str, paths: &[&Path]) -> Option<Sample> {
    const SCRIPT: &str = r#"
import os, sys, importlib
loads = importlib.import_module(sys.argv[1]).loads
for root in sys.argv[2:]:
    walk = [(root, [], [""])] if os.path.isfile(root) else os.walk(root)
    for d, _, names in walk:
        for n in names:
            p = os.path.join(d, n) if n else d
            with open(p, "rb") as f:
                if p.endswith(".jsonl"):
                    for line in f:
                        if line.strip():
                            loads(line)
                elif p.endswith(".json"):
                    loads(f.read())
"#;
    let imports = Command::new(python)
        .args(["-c", &format!("import {module}")])
        .output()
        .ok()
        .is_some_and(|o| o.status.success());
    if !imports {
        return None;
    }
    let mut cmd = Command::new(python);
    cmd.arg("-c").arg(SCRIPT).arg(module).args(paths);
    Some(measure(cmd))
}

/// [`python_loads`] `reps` times: the medians, or `None`.
pub(crate) fn python_median(
    python: &str,
    module: &str,
    paths: &[&Path],
    reps: usize,
) -> Option<Sample> {
    let runs: Option<Vec<Sample>> = (0..reps.max(1))
        .map(|_| python_loads(python, module, paths))
        .collect();
    runs.map(|r| super::medians(&r))
}

/// The guards against the frameworks' own repairs (`python/bench_guard.py`, in `python`'s
/// interpreter, which needs the package installed and LiteLLM and Pydantic AI for each row).
pub(crate) fn guards(python: Option<&str>, goals: &mut Targets) {
    let rows = [
        (
            "guard_vs_litellm",
            "`toolcheck.guard`, clean 20 messages, ÷ LiteLLM's sanitize_messages_for_tool_calling",
            0.5,
        ),
        (
            "processor_vs_repair",
            "Pydantic AI history processor ÷ Pydantic AI's repair_messages",
            2.0,
        ),
    ];
    let Some(python) = python else {
        for (_, what, target) in rows {
            goals.add(
                what,
                None,
                target,
                "×",
                "needs `--python` with the package installed",
            );
        }
        return;
    };
    println!("\nthe guards (`python/bench_guard.py`, {python}):\n");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/bench_guard.py");
    let out = Command::new(python).arg(script).arg("--targets").output();
    let text = out
        .as_ref()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    for line in text.lines().filter(|l| !l.starts_with('{')) {
        println!("{line}");
    }
    let ratios: serde_json::Value = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_default();
    for (key, what, target) in rows {
        let measured = ratios.get(key).and_then(serde_json::Value::as_f64);
        goals.add(
            what,
            measured,
            target,
            "×",
            "`python/bench_guard.py` did not run",
        );
    }
}
