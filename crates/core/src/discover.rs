//! Turns command-line paths into the list of inputs to check.
//!
//! Directories are walked with the `ignore` crate (ripgrep's walker): inside a git
//! repository `.gitignore`, `.git/info/exclude` and the global git excludes apply, and
//! `.ignore` files apply everywhere, as in ripgrep, unless `--no-ignore` is given. Hidden
//! entries and `node_modules` are always skipped below a walked directory, and so is
//! whatever `exclude` matches. A path named on the command line is always checked, ignored
//! or excluded or not (ripgrep's rule, and ruff's without `--force-exclude`).
//!
//! Walks do not follow symbolic links (ripgrep's default): a link in a walked directory may
//! point anywhere, and `fix --write` must not rewrite what lies outside the directories it
//! was given. A link whose target is inside the tree loses nothing, since the target is
//! walked where it is. A link named on the command line is followed.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// One input: a file, or stdin.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Input {
    /// The name findings report.
    pub name: String,
    /// `None` for stdin.
    pub path: Option<PathBuf>,
    /// Named on the command line (an unrecognised explicit file is a finding, not a skip).
    pub explicit: bool,
    /// A server's records (`crate::remote`): `name` is their URL, and there is no path.
    pub remote: bool,
}

impl Input {
    /// Whether this input is stdin.
    pub fn is_stdin(&self) -> bool {
        self.path.is_none() && !self.remote
    }
}

/// A path on the command line that could not be read.
#[derive(Debug, Clone)]
pub struct DiscoverError {
    pub path: String,
    pub message: String,
}

/// An entry a directory walk left out, and why (for `--verbose`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SkippedEntry {
    pub path: String,
    pub is_dir: bool,
    pub reason: String,
}

/// What [`discover`] found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Sorted by name, without duplicates.
    pub inputs: Vec<Input>,
    /// Paths that could not be read: the run exits 2.
    pub errors: Vec<DiscoverError>,
    /// Problems that do not stop the run (an ignore file that does not parse).
    pub warnings: Vec<String>,
    /// Entries left out of directory walks; filled in only when asked for.
    pub skipped: Vec<SkippedEntry>,
    /// The directories walked, as given.
    pub walked: Vec<String>,
}

/// How directories are walked.
#[derive(Debug, Default)]
pub struct WalkOptions {
    pub excludes: Arc<Excludes>,
    /// `--no-ignore`: do not read `.gitignore`, `.ignore` or git exclude files.
    pub no_ignore: bool,
    /// Record what was skipped, and why.
    pub record_skipped: bool,
}

/// Extensions a directory walk picks up (`.af`: Letta agent files, JSON documents).
const EXTENSIONS: [&str; 4] = ["json", "jsonl", "ndjson", "af"];

/// `exclude` globs. A glob without a `/` matches a file or directory name anywhere; one
/// with a `/` matches a path relative to its base: the config file's directory for the
/// config's globs, the current directory for `--exclude`.
#[derive(Debug, Default)]
pub struct Excludes {
    /// Globs matched against an entry's name.
    names: GlobSet,
    /// Globs matched against an entry's absolute, lexically normalised path.
    paths: GlobSet,
    /// The globs as written, in the order of `names` then `paths`, for `--verbose`.
    names_written: Vec<String>,
    paths_written: Vec<String>,
    /// The current directory, to make walked paths absolute.
    cwd: PathBuf,
}

impl Excludes {
    /// `config`: the config file's globs and the directory they are relative to; `cli`: the
    /// `--exclude` globs, relative to `cwd`. Both apply.
    pub fn new(
        config: Option<(&[String], &Path)>,
        cli: &[String],
        cwd: &Path,
    ) -> Result<Excludes, String> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut names_written = Vec::new();
        let mut paths_written = Vec::new();
        let cwd = normalize(cwd);
        let mut add = |glob: &str, base: &Path, origin: &str| -> Result<(), String> {
            let invalid = |e: globset::Error| format!("invalid {origin} glob {glob:?}: {e}");
            // `vendor/` (gitignore's "a directory") means the same as `vendor` here.
            let trimmed = glob.strip_suffix('/').unwrap_or(glob);
            if trimmed.contains('/') {
                let relative = trimmed.strip_prefix("./").unwrap_or(trimmed);
                let anchored = if Path::new(relative).is_absolute() {
                    relative.to_string()
                } else {
                    let base = normalize(&cwd.join(base));
                    let base = base.to_string_lossy();
                    format!(
                        "{}/{relative}",
                        globset::escape(base.strip_suffix('/').unwrap_or(&base))
                    )
                };
                paths.add(Glob::new(&anchored).map_err(invalid)?);
                paths_written.push(glob.to_string());
            } else {
                names.add(Glob::new(trimmed).map_err(invalid)?);
                names_written.push(glob.to_string());
            }
            Ok(())
        };
        if let Some((globs, base)) = config {
            for glob in globs {
                add(glob, base, "exclude")?;
            }
        }
        for glob in cli {
            add(glob, &cwd, "--exclude")?;
        }
        Ok(Excludes {
            names: names.build().map_err(|e| e.to_string())?,
            paths: paths.build().map_err(|e| e.to_string())?,
            names_written,
            paths_written,
            cwd,
        })
    }

    /// The glob (as written) that excludes the file `path` or one of the directories above it
    /// in the path as given, if any: for files met in a walk whose own closest config file,
    /// not the one the walk started from, excludes them.
    pub fn excluding(&self, path: &Path) -> Option<&str> {
        self.matching(path, false).or_else(|| {
            path.ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
                .find_map(|a| self.matching(a, true))
        })
    }

    /// The glob (as written) that excludes `path`, if any. A directory also matches a glob
    /// that takes everything inside it (`vendor/**` excludes the directory `vendor`).
    fn matching(&self, path: &Path, is_dir: bool) -> Option<&str> {
        if let Some(name) = path.file_name() {
            if let Some(&i) = self.names.matches(name).first() {
                return self.names_written.get(i).map(String::as_str);
            }
        }
        if self.paths.is_empty() {
            return None;
        }
        let absolute = normalize(&self.cwd.join(path));
        let mut hits = self.paths.matches(&absolute);
        if hits.is_empty() && is_dir {
            hits = self.paths.matches(absolute.join(""));
        }
        hits.first()
            .and_then(|&i| self.paths_written.get(i))
            .map(String::as_str)
    }
}

/// `path` without `.` components and with `..` applied to what precedes it (no file system
/// access: symlinks are not resolved, as in ruff).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Expands `paths` into inputs, sorted by name. Directory walks take `.json`, `.jsonl`,
/// `.ndjson` and `.af` files (and those compressed, `.jsonl.zstd`); see the module
/// documentation for what they skip.
pub fn discover(paths: &[String], walk_opts: &WalkOptions, stdin_name: Option<&str>) -> Discovered {
    let mut found = Discovered::default();
    for arg in paths {
        if arg == "-" {
            found.inputs.push(Input {
                name: stdin_name.unwrap_or("-").to_string(),
                path: None,
                explicit: true,
                remote: false,
            });
            continue;
        }
        // A server's records: the URL is checked here, so a mistyped one stops the run
        // before anything is read.
        if let Some(parsed) = crate::remote::parse(arg) {
            match parsed {
                Ok(_) => found.inputs.push(Input {
                    name: arg.clone(),
                    path: None,
                    explicit: true,
                    remote: true,
                }),
                Err(message) => found.errors.push(DiscoverError {
                    path: arg.clone(),
                    message,
                }),
            }
            continue;
        }
        let root = Path::new(arg);
        match std::fs::metadata(root) {
            Err(e) => found.errors.push(DiscoverError {
                path: arg.clone(),
                message: e.to_string(),
            }),
            // A session folder named itself is one input.
            Ok(meta) if meta.is_dir() && crate::folder::messages_dir(root).is_some() => {
                found.inputs.push(Input {
                    name: arg.trim_end_matches('/').to_string(),
                    path: Some(root.to_path_buf()),
                    explicit: true,
                    remote: false,
                });
            }
            Ok(meta) if meta.is_dir() => {
                found.walked.push(arg.clone());
                walk(root, walk_opts, &mut found);
            }
            // A regular file, or a stream named explicitly (`<(cmd)`, `/dev/stdin`, a FIFO,
            // a device): read it; the size limit bounds a stream that never ends.
            Ok(_) => found.inputs.push(Input {
                name: arg.clone(),
                path: Some(root.to_path_buf()),
                explicit: true,
                remote: false,
            }),
        }
    }
    // A session folder's files are one input: the folder (`folder.rs`). The only folders
    // among the inputs are session folders named themselves, so names alone tell.
    for input in &mut found.inputs {
        let Some(dir) = input
            .path
            .as_deref()
            .and_then(crate::folder::folder_of_file)
        else {
            continue;
        };
        if input.path.as_deref() != Some(dir.as_path()) {
            input.name = Path::new(&input.name)
                .parent()
                .map_or_else(|| dir.display().to_string(), |p| p.display().to_string());
        }
        input.path = Some(dir);
    }
    found.inputs.sort();
    found
        .inputs
        .dedup_by(|a, b| a.path.is_some() && a.path == b.path);
    found.skipped.sort();
    found.skipped.dedup();
    found
}

fn has_picked_extension(path: &Path) -> bool {
    crate::read::inner_extension(path).is_some_and(|e| EXTENSIONS.contains(&e.as_str()))
}

/// A `.db`, `.sqlite` or `.sqlite3` file that starts with the SQLite header (session stores,
/// `store/`); other files with those names are not picked.
fn is_sqlite_store(path: &Path) -> bool {
    has_store_extension(path) && crate::store::has_sqlite_header(path)
}

fn has_store_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "db" | "sqlite" | "sqlite3"))
}

/// Why a walk leaves out an entry it met, before any ignore file is consulted.
fn own_skip_reason(path: &Path, is_dir: bool, excludes: &Excludes) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    if name.starts_with('.') {
        return Some("hidden".into());
    }
    if is_dir && name == "node_modules" {
        return Some("node_modules".into());
    }
    excludes
        .matching(path, is_dir)
        .map(|glob| format!("excluded by {glob:?}"))
}

fn walk(root: &Path, opts: &WalkOptions, found: &mut Discovered) {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        // See the module documentation; skipped links are listed with `-v`.
        .follow_links(false)
        // Hidden entries are skipped by the filter below, which can say so.
        .hidden(false);
    if opts.no_ignore {
        builder
            .ignore(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .parents(false);
    }
    // The filter records what it skips through a shared list (it must be `Send + Sync`).
    let own_skips = Arc::new(Mutex::new(Vec::new()));
    let record = opts.record_skipped;
    let excludes = Arc::clone(&opts.excludes);
    let skips_for_filter = Arc::clone(&own_skips);
    builder.filter_entry(move |entry| {
        if entry.depth() == 0 {
            return true;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        match own_skip_reason(entry.path(), is_dir, &excludes) {
            None => true,
            Some(reason) => {
                if record && (is_dir || has_picked_extension(entry.path())) {
                    if let Ok(mut skips) = skips_for_filter.lock() {
                        skips.push(SkippedEntry {
                            path: entry.path().display().to_string(),
                            is_dir,
                            reason,
                        });
                    }
                }
                false
            }
        }
    });
    // With `--verbose`, what the ignore files left out is found afterwards: the entries of
    // each walked directory that the walk neither yielded nor skipped itself.
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for entry in builder.build() {
        match entry {
            Err(e) => report_walk_error(root, &e, found),
            Ok(entry) => {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if record {
                    seen.insert(entry.path().to_path_buf());
                    if is_dir {
                        dirs.push(entry.path().to_path_buf());
                    }
                    // The root, when a link, was named and is followed.
                    if entry.path_is_symlink() && entry.depth() > 0 {
                        skipped_link(entry.path(), found);
                    }
                }
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                if is_file && (has_picked_extension(entry.path()) || is_sqlite_store(entry.path()))
                {
                    found.inputs.push(Input {
                        name: display_name(entry.path()),
                        path: Some(entry.path().to_path_buf()),
                        explicit: false,
                        remote: false,
                    });
                }
            }
        }
    }
    let own: Vec<SkippedEntry> = own_skips.lock().map(|s| s.clone()).unwrap_or_default();
    if record {
        let own_paths: HashSet<&str> = own.iter().map(|s| s.path.as_str()).collect();
        for dir in &dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for child in entries.flatten() {
                let path = child.path();
                if seen.contains(&path) || own_paths.contains(path.display().to_string().as_str()) {
                    continue;
                }
                // Links are not followed, as the walk does not follow them.
                let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
                if is_dir || has_picked_extension(&path) {
                    found.skipped.push(SkippedEntry {
                        path: path.display().to_string(),
                        is_dir,
                        reason: "ignored by a .gitignore, .ignore or git exclude file".into(),
                    });
                }
            }
        }
    }
    found.skipped.extend(own);
}

/// A walked file's name as findings report it: `lint .` names `x.json`, not `./x.json`, as
/// ruff does (and as the file would be named on the command line).
fn display_name(path: &Path) -> String {
    let shown = path.strip_prefix(".").unwrap_or(path);
    if shown.as_os_str().is_empty() {
        return path.display().to_string();
    }
    shown.display().to_string()
}

/// Lists a link a walk met and did not follow (for `-v`), when it names what a walk would
/// check: a directory, a conversation file or a store (by its name: the target is not read).
fn skipped_link(path: &Path, found: &mut Discovered) {
    let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    if is_dir || has_picked_extension(path) || has_store_extension(path) {
        found.skipped.push(SkippedEntry {
            path: path.display().to_string(),
            is_dir,
            reason: "symbolic link, not followed by a directory walk (name it to check it)".into(),
        });
    }
}

/// Sorts a walk error into an error (a path that cannot be read, a symlink loop) or a
/// warning (an ignore file that does not parse: ripgrep goes on too).
fn report_walk_error(root: &Path, error: &ignore::Error, found: &mut Discovered) {
    let mut path = None;
    let mut inner = error;
    loop {
        match inner {
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert_with(|| p.display().to_string());
                inner = err;
            }
            ignore::Error::WithDepth { err, .. } => inner = err,
            _ => break,
        }
    }
    match inner {
        ignore::Error::Loop { child, .. } => found.errors.push(DiscoverError {
            path: child.display().to_string(),
            message: inner.to_string(),
        }),
        ignore::Error::Io(e) => found.errors.push(DiscoverError {
            path: path.unwrap_or_else(|| root.display().to_string()),
            message: e.to_string(),
        }),
        // The warning keeps the layout of the message, not of a path met in the walk.
        _ => found.warnings.push(match path {
            Some(path) => format!("{}: {inner}", crate::escape::value(&path)),
            None => inner.to_string(),
        }),
    }
}

/// Prints what [`discover`] has to say on stderr: errors, warnings, with `--verbose` what
/// the walks skipped, and a warning when directories were walked but yielded no file (as
/// ruff does; the run still exits 0). Returns whether there were errors.
pub fn report(found: &Discovered, quiet: bool) -> bool {
    for e in &found.errors {
        eprintln!(
            "error: cannot read {}: {}",
            crate::escape::value(&e.path),
            crate::escape::value(&e.message)
        );
    }
    for w in &found.warnings {
        eprintln!("warning: {}", crate::escape::layout(w));
    }
    for s in &found.skipped {
        let kind = if s.is_dir { "dir " } else { "" };
        // Names met in a walk are anyone's to choose: shown inert, as in every output.
        eprintln!(
            "skipped {kind}{}: {}",
            crate::escape::value(&s.path),
            crate::escape::value(&s.reason)
        );
    }
    if found.inputs.is_empty() && !found.walked.is_empty() && !quiet {
        eprintln!(
            "warning: no conversation files found in {} (hidden directories, symbolic \
             links, ignored or excluded files and files without a .json, .jsonl, .ndjson or .af \
             extension are skipped; -v lists what was skipped)",
            crate::escape::value(&found.walked.join(", "))
        );
    }
    !found.errors.is_empty()
}
