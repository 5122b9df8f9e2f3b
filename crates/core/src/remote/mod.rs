//! Inputs read from a server instead of a file. An argument in one of the schemes below
//! (`phoenix+http://127.0.0.1:6006/projects/default`) names a server's records; they are
//! fetched whole, as the text their export would be, and linted as a file of that text is,
//! so the findings are the ones an exported file gives. A server is read, never written:
//! `fix` refuses it.
//!
//! A kind of server is one file and one line of [`KINDS`]: the schemes it claims, how it
//! reads a URL, and how it fetches what the URL names.

mod http;
pub mod phoenix;

use crate::read::Loaded;

/// One kind of server.
pub struct Kind {
    /// What the kind is called in messages and the docs.
    pub name: &'static str,
    /// The URL schemes it claims, with their `://`.
    pub schemes: &'static [&'static str],
    /// Reads a URL of one of its schemes; a message says what is wrong with it.
    pub parse: fn(&str) -> Result<Box<dyn Remote>, String>,
}

/// What a URL names on its server.
pub trait Remote: Send + Sync {
    /// Fetches it as text of at most `limit` bytes (over that, [`Loaded::TooLarge`]); a
    /// message says why it could not be read.
    fn fetch(&self, limit: u64) -> Result<Loaded, String>;
}

/// Every kind of server toolcheck reads: one line each.
pub const KINDS: &[Kind] = &[phoenix::KIND];

/// The kind of server whose scheme `arg` is in (it is then never a path).
fn kind_of(arg: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|kind| {
        kind.schemes.iter().any(|scheme| {
            arg.get(..scheme.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
        })
    })
}

/// Reads `arg` as a server URL: `None` when no kind claims its scheme.
pub fn parse(arg: &str) -> Option<Result<Box<dyn Remote>, String>> {
    kind_of(arg).map(|kind| (kind.parse)(arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_claimed_whatever_their_case_and_paths_never() {
        assert!(kind_of("phoenix+http://127.0.0.1:6006/projects/default").is_some());
        assert!(kind_of("PHOENIX+HTTPS://example.com/projects/p").is_some());
        for path in [
            "phoenix",
            "phoenix+ftp://x",
            "http://127.0.0.1:6006",
            "./phoenix+http:",
        ] {
            assert!(kind_of(path).is_none(), "{path}");
        }
    }

    #[test]
    fn every_kind_names_at_least_one_scheme_of_its_own() {
        let mut seen = std::collections::HashSet::new();
        for kind in KINDS {
            assert!(!kind.schemes.is_empty(), "{}", kind.name);
            for scheme in kind.schemes {
                assert!(scheme.ends_with("://"), "{scheme}");
                assert!(seen.insert(scheme), "{scheme} is claimed twice");
            }
        }
    }
}
