//! Cline: each editor's global storage (`tasks/<id>/api_conversation_history.json`), and the
//! SDK and CLI's `~/.cline/data/{sessions,db}/<id>/` (mid-2026). Roo Code and Kilo Code keep
//! tasks as Cline does, under their own extension ids ([`tasks`]).

use super::{moved, Add, Env, Os};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    tasks(env, "saoudrizwan.claude-dev", add);
    let data = moved(env, &["CLINE_DATA_DIR"], None).or_else(|| {
        moved(env, &["CLINE_DIR"], env.home_join(".cline")).map(|(d, o)| (d.join("data"), o))
    });
    let files: &[&str] = &["*/*.messages.json"];
    let sessions = moved(env, &["CLINE_SESSION_DATA_DIR"], None)
        .or_else(|| data.clone().map(|(d, o)| (d.join("sessions"), o)));
    add.root(sessions, files);
    let db = moved(env, &["CLINE_DB_DATA_DIR"], None)
        .or_else(|| data.map(|(d, o)| (d.join("db"), o)));
    add.root(db, files);
}

/// The VS Code editors whose global storage the Cline family writes to.
pub(super) const EDITORS: [&str; 5] = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

/// The task histories an extension of the Cline family keeps in every editor's global
/// storage, and in a VS Code server's.
pub(super) fn tasks(env: &Env, extension: &str, add: &mut Add<'_>) {
    let base = match env.os {
        Os::Linux => env.home_join(".config"),
        Os::Mac => env.home_join("Library/Application Support"),
        Os::Windows => env.path("APPDATA"),
    };
    let files: &[&str] = &["tasks/*/api_conversation_history.json"];
    if let Some(base) = base {
        for editor in EDITORS {
            let root = base
                .join(editor)
                .join("User")
                .join("globalStorage")
                .join(extension);
            add.root(Some((root, "default".to_string())), files);
        }
    }
    let server = env.home_join(".vscode-server/data/User/globalStorage");
    add.root(
        server.map(|s| (s.join(extension), "default".to_string())),
        files,
    );
}
