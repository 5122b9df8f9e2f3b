//! Where coding agents keep their sessions, for `toolcheck doctor`: the registry of agents
//! ([`each_agent!`]), one module each with its default locations on this OS and the
//! environment variables that move them (`agents.md` §0.1 and §7), and a read-only search of
//! those locations for session files and databases.
//!
//! The environment comes in through [`Env`], so tests (and embedders) pass a fake home and
//! variables. Nothing here writes, and no symbolic link inside a root is followed: a link
//! may point anywhere, and `doctor --fix` must not rewrite what lies outside the agents'
//! own directories (the rule of `discover.rs`). Which files a reader understands is not
//! decided here: every store found is linted like any input, and what no adapter reads is
//! reported as not read.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
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
    /// Every variable an agent's locations read, set or not: the variables that move its
    /// store, for its generated page.
    asked: RefCell<BTreeSet<String>>,
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
        Env {
            home,
            vars,
            os,
            asked: RefCell::default(),
        }
    }

    /// A variable that is set and not empty.
    pub(crate) fn var(&self, name: &str) -> Option<&str> {
        self.asked.borrow_mut().insert(name.to_string());
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// A variable that is set and not empty, as a path (a leading `~` is the home).
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        let value = self.var(name)?;
        Some(self.expand(value))
    }

    /// The variables read so far, in name order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.borrow().iter().cloned().collect()
    }

    /// `~` and `~/…` expanded to the home directory.
    pub(crate) fn expand(&self, value: &str) -> PathBuf {
        match (value.strip_prefix('~'), &self.home) {
            (Some(""), Some(home)) => home.clone(),
            (Some(rest), Some(home)) if rest.starts_with(['/', '\\']) => {
                home.join(rest.trim_start_matches(['/', '\\']))
            }
            _ => PathBuf::from(value),
        }
    }

    /// `~/rel`, when there is a home.
    pub(crate) fn home_join(&self, rel: &str) -> Option<PathBuf> {
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

/// Every agent `doctor` looks for, one line each: its variant, the name `--agent` takes, the
/// name people know it by, and its module here, whose `locations` lists where it keeps its
/// sessions on this OS and the variables that move them. Adding an agent is its module plus
/// one line here (`tests/registries.rs` holds this); what it sends on resume is its replay
/// model (`replay/`), and the format its sessions are read as is the format's own line.
macro_rules! each_agent {
    ($then:ident) => {
        $then! {
            ClaudeCode "claude-code" "Claude Code" claude_code,
            Codex "codex" "Codex" codex,
            Pi "pi" "pi" pi,
            OhMyPi "oh-my-pi" "oh-my-pi" oh_my_pi,
            OpenClaw "openclaw" "OpenClaw" openclaw,
            Cline "cline" "Cline" cline,
            RooCode "roo-code" "Roo Code" roo_code,
            KiloCode "kilo-code" "Kilo Code" kilo_code,
            Opencode "opencode" "opencode" opencode,
            CopilotCli "copilot-cli" "GitHub Copilot CLI" copilot_cli,
            Goose "goose" "Goose" goose,
            GeminiCli "gemini-cli" "Gemini CLI" gemini_cli,
            QwenCode "qwen-code" "Qwen Code" qwen_code,
            KimiCli "kimi-cli" "Kimi Code CLI" kimi_cli,
            Hermes "hermes" "Hermes Agent" hermes,
            Droid "droid" "Factory Droid" droid,
            Crush "crush" "Crush" crush,
            DeepseekHarness "deepseek-harness" "DeepSeek Harness (dsh)" dsh,
        }
    };
}

macro_rules! declare_agents {
    ($($variant:ident $name:literal $title:literal $module:ident,)*) => {
        $(mod $module;)*

        /// The agents whose sessions `doctor` looks for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Agent {
            $($variant,)*
        }

        impl Agent {
            pub const ALL: [Agent; [$($name),*].len()] = [$(Agent::$variant,)*];

            /// The name `--agent` takes.
            pub fn name(self) -> &'static str {
                match self {
                    $(Agent::$variant => $name,)*
                }
            }

            /// The name people know it by.
            pub fn title(self) -> &'static str {
                match self {
                    $(Agent::$variant => $title,)*
                }
            }

            /// Adds the agent's locations, in its module's order.
            fn locations(self, env: &Env, add: &mut Add<'_>) {
                match self {
                    $(Agent::$variant => $module::locations(env, add),)*
                }
            }
        }
    };
}
each_agent!(declare_agents);

impl Agent {
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

impl Location {
    /// The session files' patterns under the root (`""`: the root is the file).
    pub fn patterns(&self) -> &'static [&'static str] {
        self.patterns
    }

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
        agent.locations(
            env,
            &mut Add {
                agent,
                out: &mut out,
            },
        );
    }
    out
}

/// Where an agent's module adds its locations.
struct Add<'a> {
    agent: Agent,
    out: &'a mut Vec<Location>,
}

impl Add<'_> {
    /// A root (with what put it there), if there is one, and the patterns of its sessions.
    fn root(&mut self, root: Option<(PathBuf, String)>, patterns: &'static [&'static str]) {
        self.root_skipping(root, patterns, &[]);
    }

    /// A root whose files ending in one of `skip` are the agent's but not sessions.
    fn root_skipping(
        &mut self,
        root: Option<(PathBuf, String)>,
        patterns: &'static [&'static str],
        skip: &'static [&'static str],
    ) {
        if let Some((root, origin)) = root {
            let mut loc = Location::new(self.agent, root, &origin, patterns);
            loc.skip = skip;
            self.out.push(loc);
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
        assert_eq!(roo.len(), cline::EDITORS.len() + 1);
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
