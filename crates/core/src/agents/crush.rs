//! Charm Crush: each project's `crush.db` in its data directory (`<project>/.crush/` unless
//! moved), found through the index Crush keeps of them since v0.25.0, `projects.json`
//! (`internal/projects/projects.go`: `{"projects": [{path, data_dir, last_accessed}]}`) in
//! Crush's global data directory: `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else
//! `%LOCALAPPDATA%\crush` on Windows and `~/.local/share/crush` elsewhere
//! (`config.GlobalConfigData`). Projects opened before v0.25.0, or only in client/server mode,
//! are not in it: lint their `.crush/crush.db` by path.

use std::path::PathBuf;

use super::{moved, Add, Env, Os};

/// The most of `projects.json` read: an index, not a store.
const MAX_INDEX_BYTES: u64 = 4 << 20;

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let default = match env.os {
        Os::Windows => env
            .path("LOCALAPPDATA")
            .or_else(|| env.home_join("AppData/Local"))
            .map(|d| d.join("crush")),
        _ => env.home_join(".local/share/crush"),
    };
    let global = moved(env, &["CRUSH_GLOBAL_DATA"], None).or_else(|| {
        moved(env, &["XDG_DATA_HOME"], None)
            .map(|(d, o)| (d.join("crush"), o))
            .or_else(|| default.map(|d| (d, "default".to_string())))
    });
    let Some((global, _)) = global else {
        return;
    };
    for db in indexed_databases(&global.join("projects.json")) {
        add.root(Some((db, "projects.json".to_string())), &[""]);
    }
}

/// The `crush.db` of every project `index` lists; nothing when it is missing, too large or
/// not the index's shape. A relative `data_dir` (written before v0.68.0) is the project's.
fn indexed_databases(index: &std::path::Path) -> Vec<PathBuf> {
    let fits = std::fs::symlink_metadata(index)
        .is_ok_and(|m| m.is_file() && m.len() <= MAX_INDEX_BYTES);
    let Some(json) = fits
        .then(|| std::fs::read_to_string(index).ok())
        .flatten()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
    else {
        return Vec::new();
    };
    let projects = json
        .get("projects")
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out: Vec<PathBuf> = Vec::new();
    for project in projects {
        let text = |key: &str| {
            project
                .get(key)
                .and_then(serde_json::Value::as_str)
                .filter(|s| !s.trim().is_empty())
        };
        let Some(data_dir) = text("data_dir") else {
            continue;
        };
        let data_dir = PathBuf::from(data_dir);
        let data_dir = match text("path") {
            Some(path) if data_dir.is_relative() => PathBuf::from(path).join(data_dir),
            _ => data_dir,
        };
        let db = data_dir.join("crush.db");
        if !out.contains(&db) {
            out.push(db);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_names_each_projects_database() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = dir.path().join("projects.json");
        std::fs::write(
            &index,
            r#"{"projects": [
                {"path": "/home/u/api", "data_dir": "/home/u/api/.crush", "last_accessed": "2026-11-30T09:00:00Z"},
                {"path": "/home/u/web", "data_dir": ".crush", "last_accessed": "2026-11-29T09:00:00Z"},
                {"path": "/home/u/api", "data_dir": "/home/u/api/.crush"},
                {"path": "/home/u/none"}
            ]}"#,
        )
        .expect("written");
        assert_eq!(
            indexed_databases(&index),
            [
                PathBuf::from("/home/u/api/.crush/crush.db"),
                PathBuf::from("/home/u/web/.crush/crush.db")
            ]
        );
        std::fs::write(&index, "not json").expect("written");
        assert!(indexed_databases(&index).is_empty());
        assert!(indexed_databases(&dir.path().join("missing.json")).is_empty());
    }
}
