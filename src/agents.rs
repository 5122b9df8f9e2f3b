//! Where coding agents keep their sessions, for `toolcheck doctor`: one table of every
//! agent's default locations on this OS and the environment variables that move them
//! (`agents.md` §0.1 and §7), and a read-only search of those locations for session files
//! and databases.
//!
//! The environment comes in through [`Env`], so tests (and embedders) pass a fake home and
//! variables. Nothing here writes, and no symbolic link inside a root is followed: a link
//! may point anywhere, and `doctor --fix` must not rewrite what lies outside the agents'
//! own directories (the rule of `discover.rs`). Which files a reader understands is not
//! decided here: every store found is linted like any input, and what no adapter reads is
//! reported as not read.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The operating systems whose conventions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Mac,
    Windows,
}

/// The environment discovery reads: the home directory, the variables, the OS.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub vars: BTreeMap<String, String>,
    pub os: Os,
}

impl Env {
    /// This process's environment: home from `HOME` (`USERPROFILE` on Windows).
    pub fn from_process() -> Env {
        let os = if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Mac
        } else {
            Os::Linux
        };
        let vars: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Env::new(vars, os)
    }

    /// An environment of these variables; home comes from them as for a process.
    pub fn new(vars: BTreeMap<String, String>, os: Os) -> Env {
        let home_var = if os == Os::Windows {
            "USERPROFILE"
        } else {
            "HOME"
        };
        let home = vars
            .get(home_var)
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Env { home, vars, os }
    }

    /// A variable that is set and not empty, as a path (a leading `~` is the home).
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        let value = self.vars.get(name).filter(|v| !v.trim().is_empty())?;
        Some(self.expand(value))
    }

    /// `~` and `~/…` expanded to the home directory.
    fn expand(&self, value: &str) -> PathBuf {
        match (value.strip_prefix('~'), &self.home) {
            (Some(""), Some(home)) => home.clone(),
            (Some(rest), Some(home)) if rest.starts_with(['/', '\\']) => {
                home.join(rest.trim_start_matches(['/', '\\']))
            }
            _ => PathBuf::from(value),
        }
    }

    /// `~/rel`, when there is a home.
    fn home_join(&self, rel: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(rel))
    }

    /// Where toolcheck keeps state (backups): `$XDG_STATE_HOME/toolcheck`, else
    /// `~/.local/state/toolcheck`; on Windows `%LOCALAPPDATA%\toolcheck`.
    pub fn state_dir(&self) -> Option<PathBuf> {
        if self.os == Os::Windows {
            if let Some(local) = self.path("LOCALAPPDATA") {
                return Some(local.join("toolcheck"));
            }
        }
        self.path("XDG_STATE_HOME")
            .or_else(|| self.home_join(".local/state"))
            .map(|d| d.join("toolcheck"))
    }
}

/// The agents whose sessions `doctor` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Pi,
    OhMyPi,
    OpenClaw,
    Cline,
    RooCode,
    KiloCode,
    Opencode,
    CopilotCli,
    Goose,
    GeminiCli,
    QwenCode,
}

impl Agent {
    pub const ALL: [Agent; 13] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Pi,
        Agent::OhMyPi,
        Agent::OpenClaw,
        Agent::Cline,
        Agent::RooCode,
        Agent::KiloCode,
        Agent::Opencode,
        Agent::CopilotCli,
        Agent::Goose,
        Agent::GeminiCli,
        Agent::QwenCode,
    ];

    /// The name `--agent` takes.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Pi => "pi",
            Agent::OhMyPi => "oh-my-pi",
            Agent::OpenClaw => "openclaw",
            Agent::Cline => "cline",
            Agent::RooCode => "roo-code",
            Agent::KiloCode => "kilo-code",
            Agent::Opencode => "opencode",
            Agent::CopilotCli => "copilot-cli",
            Agent::Goose => "goose",
            Agent::GeminiCli => "gemini-cli",
            Agent::QwenCode => "qwen-code",
        }
    }

    /// The name people know it by.
    pub fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Pi => "pi",
            Agent::OhMyPi => "oh-my-pi",
            Agent::OpenClaw => "OpenClaw",
            Agent::Cline => "Cline",
            Agent::RooCode => "Roo Code",
            Agent::KiloCode => "Kilo Code",
            Agent::Opencode => "opencode",
            Agent::CopilotCli => "GitHub Copilot CLI",
            Agent::Goose => "Goose",
            Agent::GeminiCli => "Gemini CLI",
            Agent::QwenCode => "Qwen Code",
        }
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// One place an agent keeps sessions: a directory and the files in it that are sessions.
#[derive(Debug, Clone)]
pub struct Location {
    pub agent: Agent,
    pub root: PathBuf,
    /// What put the root here: `default`, or the variable that moved it.
    pub origin: String,
    /// Patterns of the session files, relative to the root, `/`-separated: each segment a
    /// name with `*` wildcards; a pattern of one file name matches that file only.
    patterns: &'static [&'static str],
    /// Name endings of files the agent keeps beside its sessions that are not sessions.
    skip: &'static [&'static str],
}

/// OpenClaw's artifacts beside transcripts (`artifacts.ts`): pre-compaction twins,
/// renamed-away copies, trajectories and locks.
const OPENCLAW_SKIP: &[&str] = &[
    ".bak.*",
    ".reset.*",
    ".deleted.*",
    ".checkpoint.*.jsonl",
    ".trajectory.jsonl",
    ".trajectory-path.json",
    ".jsonl.lock",
];

/// The VS Code editors whose global storage the Cline family writes to.
const EDITORS: [&str; 5] = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

impl Location {
    fn new(
        agent: Agent,
        root: PathBuf,
        origin: &str,
        patterns: &'static [&'static str],
    ) -> Location {
        Location {
            agent,
            root,
            origin: origin.to_string(),
            patterns,
            skip: &[],
        }
    }
}

/// The root named by the first of `vars` that is set (and the variable), else `default`.
fn moved(env: &Env, vars: &[&str], default: Option<PathBuf>) -> Option<(PathBuf, String)> {
    vars.iter()
        .find_map(|v| env.path(v).map(|p| (p, format!("${v}"))))
        .or_else(|| default.map(|d| (d, "default".to_string())))
}

/// Every location of every agent in `agents`, for this environment, in table order.
pub fn locations(env: &Env, agents: &[Agent]) -> Vec<Location> {
    let mut out = Vec::new();
    for &agent in agents {
        push_locations(env, agent, &mut out);
    }
    out
}

fn push_locations(env: &Env, agent: Agent, out: &mut Vec<Location>) {
    let mut add = |root: Option<(PathBuf, String)>, patterns: &'static [&'static str]| {
        if let Some((root, origin)) = root {
            out.push(Location::new(agent, root, &origin, patterns));
        }
    };
    match agent {
        Agent::ClaudeCode => {
            let dir = moved(env, &["CLAUDE_CONFIG_DIR"], env.home_join(".claude"));
            // Sub-agent transcripts sit in `<project>/<session>/subagents/`.
            let sessions: &[&str] = &["*/*.jsonl", "*/*/subagents/*.jsonl"];
            add(dir.map(|(d, o)| (d.join("projects"), o)), sessions);
            // Some 1.0.29–1.0.3x builds (anthropics/claude-code#2277) wrote here.
            let config = moved(env, &["XDG_CONFIG_HOME"], env.home_join(".config"));
            add(
                config.map(|(d, o)| (d.join("claude").join("projects"), o)),
                sessions,
            );
        }
        Agent::Codex => {
            let home = moved(env, &["CODEX_HOME"], env.home_join(".codex"));
            add(
                home.clone().map(|(d, o)| (d.join("sessions"), o)),
                &["*/*/*/rollout-*.jsonl"],
            );
            add(
                home.map(|(d, o)| (d.join("archived_sessions"), o)),
                &["rollout-*.jsonl"],
            );
        }
        Agent::Pi | Agent::OhMyPi => {
            let (var, default) = if agent == Agent::Pi {
                ("PI_CODING_AGENT_DIR", ".pi/agent")
            } else {
                ("OMP_CODING_AGENT_DIR", ".omp/agent")
            };
            let dir = moved(env, &[var], env.home_join(default));
            let sessions = if agent == Agent::Pi {
                moved(env, &["PI_CODING_AGENT_SESSION_DIR"], None)
            } else {
                None
            };
            let sessions = sessions.or_else(|| dir.clone().map(|(d, o)| (d.join("sessions"), o)));
            add(sessions, &["*.jsonl", "*/*.jsonl"]);
            // Opt-in SQLite sessions (`PERSISTENT_STORE=sqlite`).
            add(dir, &["sessions.sqlite"]);
        }
        Agent::OpenClaw => {
            let state =
                moved(env, &["OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"], None).or_else(|| {
                    let home = env.path("OPENCLAW_HOME").or_else(|| env.home.clone())?;
                    // `~/.openclaw`, else the first legacy state dir that exists.
                    let dirs = [".openclaw", ".clawdbot", ".moldbot", ".moltbot"];
                    let found = dirs
                        .iter()
                        .map(|d| home.join(d))
                        .find(|d| d.is_dir())
                        .unwrap_or_else(|| home.join(".openclaw"));
                    let origin = if env.path("OPENCLAW_HOME").is_some() {
                        "$OPENCLAW_HOME"
                    } else {
                        "default"
                    };
                    Some((found, origin.to_string()))
                });
            if let Some((root, origin)) = state {
                let mut loc = Location::new(
                    agent,
                    root.join("agents"),
                    &origin,
                    &["*/sessions/*.jsonl", "*/agent/openclaw-agent.sqlite"],
                );
                loc.skip = OPENCLAW_SKIP;
                out.push(loc);
            }
        }
        Agent::Cline | Agent::RooCode | Agent::KiloCode => {
            let extension = match agent {
                Agent::Cline => "saoudrizwan.claude-dev",
                Agent::RooCode => "rooveterinaryinc.roo-cline",
                _ => "kilocode.kilo-code",
            };
            let base = match env.os {
                Os::Linux => env.home_join(".config"),
                Os::Mac => env.home_join("Library/Application Support"),
                Os::Windows => env.path("APPDATA"),
            };
            let tasks: &[&str] = &["tasks/*/api_conversation_history.json"];
            if let Some(base) = base {
                for editor in EDITORS {
                    let root = base
                        .join(editor)
                        .join("User")
                        .join("globalStorage")
                        .join(extension);
                    add(Some((root, "default".to_string())), tasks);
                }
            }
            let server = env.home_join(".vscode-server/data/User/globalStorage");
            add(
                server.map(|s| (s.join(extension), "default".to_string())),
                tasks,
            );
            match agent {
                Agent::Cline => {
                    // The SDK and CLI (mid-2026): `~/.cline/data/{sessions,db}/<id>/`.
                    let data = moved(env, &["CLINE_DATA_DIR"], None).or_else(|| {
                        moved(env, &["CLINE_DIR"], env.home_join(".cline"))
                            .map(|(d, o)| (d.join("data"), o))
                    });
                    let files: &[&str] = &["*/*.messages.json"];
                    let sessions = moved(env, &["CLINE_SESSION_DATA_DIR"], None)
                        .or_else(|| data.clone().map(|(d, o)| (d.join("sessions"), o)));
                    add(sessions, files);
                    let db = moved(env, &["CLINE_DB_DATA_DIR"], None)
                        .or_else(|| data.map(|(d, o)| (d.join("db"), o)));
                    add(db, files);
                }
                Agent::KiloCode => {
                    // Kilo ≥ 7.2.21 and the Kilo CLI keep an opencode database.
                    let db = moved(env, &["KILO_DB"], None).or_else(|| {
                        moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
                            .map(|(d, o)| (d.join("kilo").join("kilo.db"), o))
                    });
                    add(db, &[""]);
                }
                _ => {}
            }
        }
        Agent::Opencode => {
            let data = moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
                .map(|(d, o)| (d.join("opencode"), o));
            match env.vars.get("OPENCODE_DB").filter(|v| !v.is_empty()) {
                Some(db) if db == ":memory:" => {}
                Some(db) => {
                    let db = env.expand(db);
                    // A relative `OPENCODE_DB` is relative to the data directory.
                    let db = match &data {
                        Some((d, _)) if db.is_relative() => d.join(db),
                        _ => db,
                    };
                    add(Some((db, "$OPENCODE_DB".to_string())), &[""]);
                }
                // The default database and the dev channels' `opencode-<channel>.db`.
                None => add(data, &["opencode.db", "opencode-*.db"]),
            }
        }
        Agent::CopilotCli => {
            let home = moved(env, &["COPILOT_HOME"], env.home_join(".copilot"));
            add(
                home.clone().map(|(d, o)| (d.join("session-state"), o)),
                &["*/events.jsonl"],
            );
            add(
                home.map(|(d, o)| (d.join("history-session-state"), o)),
                &["*.json"],
            );
        }
        Agent::Goose => {
            let data = moved(env, &["GOOSE_PATH_ROOT"], None)
                .map(|(d, o)| (d.join("data"), o))
                .or_else(|| match env.os {
                    Os::Windows => env
                        .path("APPDATA")
                        .map(|d| (d.join("Block").join("goose").join("data"), "default".into())),
                    _ => moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
                        .map(|(d, o)| (d.join("goose"), o)),
                });
            add(
                data.map(|(d, o)| (d.join("sessions"), o)),
                &["sessions.db", "*.jsonl"],
            );
        }
        Agent::GeminiCli => {
            let home = moved(env, &["GEMINI_CLI_HOME"], env.home.clone());
            add(
                home.map(|(d, o)| (d.join(".gemini").join("tmp"), o)),
                &[
                    "*/chats/session-*.jsonl",
                    "*/chats/session-*.json",
                    "*/chats/*/*.jsonl",
                ],
            );
        }
        Agent::QwenCode => {
            add(
                env.home_join(".qwen/projects")
                    .map(|d| (d, "default".to_string())),
                &["*/chats/*.jsonl"],
            );
        }
    }
}

/// A session store found: a file, or a database with its sessions inside.
#[derive(Debug, Clone)]
pub struct Store {
    pub agent: Agent,
    pub path: PathBuf,
    /// The root it was found under.
    pub root: PathBuf,
    /// The latest modification of the file (for a database, of it and its `-wal`).
    pub modified: Option<SystemTime>,
    /// Its size in bytes, for the progress bar.
    pub size: u64,
}

/// What was found at one location, for `-v`.
#[derive(Debug, Clone)]
pub struct Looked {
    pub agent: Agent,
    pub path: PathBuf,
    pub origin: String,
    pub what: LookedWhat,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookedWhat {
    /// The root exists and holds this many stores.
    Found(usize),
    /// Nothing there.
    Missing,
    /// Already looked at for another agent or variable.
    Duplicate,
    /// Left out, and why: an entry inside a root (a link, an artifact) or an unusable root.
    Skipped(String),
    /// A directory that could not be read.
    Unreadable(String),
}

/// Everything discovery found.
#[derive(Debug, Default)]
pub struct Found {
    /// In table order, each root's files sorted by path.
    pub stores: Vec<Store>,
    pub looked: Vec<Looked>,
}

impl Found {
    /// How many places were looked at (roots, not entries inside them).
    pub fn places(&self) -> usize {
        self.looked
            .iter()
            .filter(|l| !matches!(l.what, LookedWhat::Skipped(_) | LookedWhat::Unreadable(_)))
            .count()
    }

    /// Directories that could not be read.
    pub fn unreadable(&self) -> usize {
        self.looked
            .iter()
            .filter(|l| matches!(l.what, LookedWhat::Unreadable(_)))
            .count()
    }
}

/// Finds every store at `locations`, reading directories only.
pub fn find(locations: &[Location]) -> Found {
    let mut found = Found::default();
    let mut seen_roots: HashSet<(PathBuf, String)> = HashSet::new();
    let mut seen_files: HashSet<PathBuf> = HashSet::new();
    for loc in locations {
        let mut looked = Looked {
            agent: loc.agent,
            path: loc.root.clone(),
            origin: loc.origin.clone(),
            what: LookedWhat::Missing,
        };
        let key = std::fs::canonicalize(&loc.root).unwrap_or_else(|_| loc.root.clone());
        let patterns: Vec<Vec<&str>> = loc
            .patterns
            .iter()
            .map(|p| p.split('/').collect())
            .collect();
        let single_file = patterns.iter().all(|p| p == &[""]);
        let meta = std::fs::metadata(&loc.root);
        looked.what = match meta {
            Err(_) => LookedWhat::Missing,
            Ok(_) if !seen_roots.insert((key, loc.patterns.join("|"))) => LookedWhat::Duplicate,
            Ok(m) if single_file => {
                if m.is_file() && seen_files.insert(loc.root.clone()) {
                    found.stores.push(store(loc, &loc.root, &m));
                    LookedWhat::Found(1)
                } else {
                    LookedWhat::Skipped("not a regular file".into())
                }
            }
            Ok(m) if !m.is_dir() => LookedWhat::Skipped("not a directory".into()),
            Ok(_) => {
                let mut files = Vec::new();
                let mut notes = Vec::new();
                walk(loc, &loc.root, &patterns, 0, &mut files, &mut notes);
                files.sort_by(|a, b| a.0.cmp(&b.0));
                let before = found.stores.len();
                for (path, meta) in files {
                    if seen_files.insert(path.clone()) {
                        found.stores.push(store(loc, &path, &meta));
                    }
                }
                let n = found.stores.len() - before;
                found.looked.push(Looked {
                    what: LookedWhat::Found(n),
                    ..looked.clone()
                });
                for (path, what) in notes {
                    found.looked.push(Looked {
                        agent: loc.agent,
                        path,
                        origin: loc.origin.clone(),
                        what,
                    });
                }
                continue;
            }
        };
        found.looked.push(looked);
    }
    found
}

/// The latest modification of the session at `path` (modified as `meta` says): for a
/// database in WAL mode, which changes its `-wal` first, of it and its `-wal`.
pub fn last_modified(path: &Path, meta: &std::fs::Metadata) -> Option<SystemTime> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal = std::fs::symlink_metadata(PathBuf::from(wal))
        .ok()
        .and_then(|m| m.modified().ok());
    meta.modified().ok().max(wal)
}

fn store(loc: &Location, path: &Path, meta: &std::fs::Metadata) -> Store {
    let modified = last_modified(path, meta);
    Store {
        agent: loc.agent,
        path: path.to_path_buf(),
        root: loc.root.clone(),
        modified,
        size: meta.len(),
    }
}

/// How deep any pattern reaches: the walk goes no further.
fn depth(patterns: &[Vec<&str>]) -> usize {
    patterns.iter().map(Vec::len).max().unwrap_or(0)
}

/// Walks `dir` (at `level` below the root) for files matching a pattern, without following
/// symbolic links; notes what it left out and why.
fn walk(
    loc: &Location,
    dir: &Path,
    patterns: &[Vec<&str>],
    level: usize,
    files: &mut Vec<(PathBuf, std::fs::Metadata)>,
    notes: &mut Vec<(PathBuf, LookedWhat)>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            notes.push((dir.to_path_buf(), LookedWhat::Unreadable(e.to_string())));
            return;
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let path = entry.path();
        // `DirEntry::file_type` does not follow links.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let segment_matches = |last: bool| {
            patterns.iter().any(|p| {
                let here = p.get(level).is_some_and(|seg| glob(seg, name));
                here && (p.len() == level + 1) == last
            })
        };
        if kind.is_symlink() {
            if segment_matches(true) || segment_matches(false) {
                notes.push((
                    path,
                    LookedWhat::Skipped("symbolic link, not followed".into()),
                ));
            }
        } else if kind.is_dir() {
            if level + 1 < depth(patterns) && segment_matches(false) {
                walk(loc, &path, patterns, level + 1, files, notes);
            }
        } else if kind.is_file() && segment_matches(true) {
            if let Some(ending) = loc.skip.iter().find(|s| glob(&format!("*{s}"), name)) {
                notes.push((
                    path,
                    LookedWhat::Skipped(format!("not a session (`*{ending}` is an artifact)")),
                ));
                continue;
            }
            if let Ok(meta) = entry.metadata() {
                files.push((path, meta));
            }
        }
    }
}

/// Whether `name` matches `pattern`, whose `*`s match any run of characters.
fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return pattern == name;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the whole name.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = rest.get(at + part.len()..).unwrap_or_default(),
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        let mut all: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        all.entry("HOME".into()).or_insert_with(|| "/h".into());
        Env::new(all, Os::Linux)
    }

    fn roots(env: &Env, agent: Agent) -> Vec<String> {
        locations(env, &[agent])
            .iter()
            .map(|l| l.root.display().to_string())
            .collect()
    }

    #[test]
    fn globs() {
        assert!(glob("rollout-*.jsonl", "rollout-2026-x.jsonl"));
        assert!(!glob("rollout-*.jsonl", "history.jsonl"));
        assert!(glob("*", "anything"));
        assert!(glob("opencode.db", "opencode.db"));
        assert!(!glob("opencode.db", "opencode.db-wal"));
        assert!(glob("*.checkpoint.*.jsonl", "s.checkpoint.1234.jsonl"));
        assert!(!glob("a*a", "a"));
    }

    #[test]
    fn variables_move_roots() {
        assert_eq!(
            roots(&env(&[]), Agent::Codex),
            ["/h/.codex/sessions", "/h/.codex/archived_sessions"]
        );
        assert_eq!(
            roots(&env(&[("CODEX_HOME", "/c")]), Agent::Codex),
            ["/c/sessions", "/c/archived_sessions"]
        );
        assert_eq!(
            roots(&env(&[("CLAUDE_CONFIG_DIR", "~/cc")]), Agent::ClaudeCode),
            ["/h/cc/projects", "/h/.config/claude/projects"]
        );
        assert_eq!(
            roots(&env(&[("XDG_DATA_HOME", "/d")]), Agent::Opencode),
            ["/d/opencode"]
        );
        assert_eq!(
            roots(&env(&[("OPENCODE_DB", "x.db")]), Agent::Opencode),
            ["/h/.local/share/opencode/x.db"]
        );
        assert_eq!(
            roots(&env(&[("GOOSE_PATH_ROOT", "/g")]), Agent::Goose),
            ["/g/data/sessions"]
        );
        assert_eq!(
            roots(&env(&[("GEMINI_CLI_HOME", "/gh")]), Agent::GeminiCli),
            ["/gh/.gemini/tmp"]
        );
        assert_eq!(
            roots(&env(&[("OPENCLAW_STATE_DIR", "/o")]), Agent::OpenClaw),
            ["/o/agents"]
        );
    }

    #[test]
    fn windows_home_and_storage() {
        let mut vars = BTreeMap::new();
        vars.insert("USERPROFILE".to_string(), "C:\\Users\\u".to_string());
        vars.insert(
            "APPDATA".to_string(),
            "C:\\Users\\u\\AppData\\Roaming".to_string(),
        );
        let env = Env::new(vars, Os::Windows);
        assert_eq!(env.home, Some(PathBuf::from("C:\\Users\\u")));
        let roo = roots(&env, Agent::RooCode);
        assert_eq!(roo.len(), EDITORS.len() + 1);
        assert!(roo
            .first()
            .is_some_and(|r| r.starts_with("C:\\Users\\u\\AppData\\Roaming")));
    }

    #[test]
    fn names_round_trip() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.name()), Some(agent));
        }
    }
}
