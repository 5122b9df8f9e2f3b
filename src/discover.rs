//! Turns command-line paths into the list of inputs to check.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

/// One input: a file, or stdin.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Input {
    /// The name findings report.
    pub name: String,
    /// `None` for stdin.
    pub path: Option<PathBuf>,
    /// Named on the command line (an unrecognised explicit file is a finding, not a skip).
    pub explicit: bool,
}

/// A path on the command line that could not be read.
#[derive(Debug, Clone)]
pub struct DiscoverError {
    pub path: String,
    pub message: String,
}

/// Extensions a directory walk picks up.
const EXTENSIONS: [&str; 3] = ["json", "jsonl", "ndjson"];

pub fn build_excludes(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let glob = Glob::new(glob).map_err(|e| format!("invalid --exclude glob {glob:?}: {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Expands `paths` into inputs, sorted by name. Directory walks take `.json`, `.jsonl` and
/// `.ndjson` files, and skip hidden entries and `node_modules` below the given root.
pub fn discover(
    paths: &[String],
    excludes: &GlobSet,
    stdin_name: Option<&str>,
) -> (Vec<Input>, Vec<DiscoverError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for arg in paths {
        if arg == "-" {
            inputs.push(Input {
                name: stdin_name.unwrap_or("-").to_string(),
                path: None,
                explicit: true,
            });
            continue;
        }
        let root = Path::new(arg);
        match std::fs::metadata(root) {
            Err(e) => errors.push(DiscoverError {
                path: arg.clone(),
                message: e.to_string(),
            }),
            Ok(meta) if meta.is_dir() => walk(root, excludes, &mut inputs, &mut errors),
            // A regular file, or a stream named explicitly (`<(cmd)`, `/dev/stdin`, a FIFO,
            // a device): read it; the size limit bounds a stream that never ends.
            Ok(_) => inputs.push(Input {
                name: arg.clone(),
                path: Some(root.to_path_buf()),
                explicit: true,
            }),
        }
    }
    inputs.sort();
    inputs.dedup_by(|a, b| a.path.is_some() && a.path == b.path);
    (inputs, errors)
}

fn walk(root: &Path, excludes: &GlobSet, inputs: &mut Vec<Input>, errors: &mut Vec<DiscoverError>) {
    let walker = WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            if e.depth() == 0 {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            let hidden = name.starts_with('.') || name == "node_modules";
            !(hidden || excludes.is_match(e.path()) || excludes.is_match(e.file_name()))
        });
    for entry in walker {
        match entry {
            Err(e) => errors.push(DiscoverError {
                path: e
                    .path()
                    .map_or_else(|| root.display().to_string(), |p| p.display().to_string()),
                message: e.to_string(),
            }),
            Ok(entry) if entry.file_type().is_file() => {
                let path = entry.path();
                let picked = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
                if picked {
                    inputs.push(Input {
                        name: path.display().to_string(),
                        path: Some(path.to_path_buf()),
                        explicit: false,
                    });
                }
            }
            Ok(_) => {}
        }
    }
}
