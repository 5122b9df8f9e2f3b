//! An input once opened, whatever it is: text read whole (a JSON or JSONL file, a stream,
//! stdin), a server's records fetched as the text of their export (`remote.rs`), a SQLite
//! store read in place, a session folder (`folder.rs`) whose files are
//! one conversation, or a log of Zstandard frames (`zstd_log.rs`) read as the text it
//! decompresses to. The commands lint, fix, diff and write an input
//! through this module, and never ask which kind it is.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::fix::write::WriteError;
use crate::fix::FileFix;
use crate::lint::{FileReport, LintOptions, SourceName};
use crate::read::{FileStamp, Loaded};
use crate::source::SourceFile;
use crate::store::{Rows, Snapshot};

pub use crate::stream::fix::{FixedChunk, Job, Plan, Totals, FIX_CHUNK_BYTES};
pub use crate::stream::{Place, Placed, Render};

/// Why an input was not linted or fixed. Each message names the input; the commands print it
/// as it is (`error: …`) and go on with the other inputs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("cannot read {name}: {source}")]
    Read {
        name: String,
        source: std::io::Error,
    },
    #[error("cannot read stdin")]
    NoStdin,
    #[error("{name}: holds a SQLite database, which toolcheck reads in place: name the database file itself")]
    DatabaseNotInPlace { name: String },
    /// A store, session folder, compressed log or dataset its own reader could not read.
    #[error("{0}")]
    Unreadable(String),
    #[error("{name}: {message}")]
    TooLarge { name: String, message: String },
    #[error("{name}: {source}")]
    Fix {
        name: String,
        source: crate::fix::FixError,
    },
    /// A server's records that could not be fetched.
    #[error("cannot read {name}: {message}")]
    Fetch { name: String, message: String },
    #[error("{name}: a server's records are read, never written: lint them, or export them to a file and fix that")]
    ReadOnly { name: String },
}

/// An input as found: loaded text, a SQLite store (never loaded whole), or a JSONL file too
/// big to be read as one chunk, which is linted and fixed a chunk at a time when its records
/// are conversations of their own (see [`crate::stream`]).
pub enum Opened<'a> {
    Text(Loaded),
    /// A server's records, as the text of their export.
    Remote(Loaded),
    Store(&'a Path),
    Lines {
        path: &'a Path,
        limit: u64,
    },
    Folder(crate::folder::Folder),
    Zstd(crate::zstd_log::Log),
}

/// Opens a discovered input: a server's records are fetched (up to `limit` bytes), anything
/// else opened by [`open`].
pub fn open_input<'a>(
    input: &'a crate::discover::Input,
    stdin: Option<&Loaded>,
    limit: u64,
) -> Result<Opened<'a>, Error> {
    if input.remote {
        let fetch = |message| Error::Fetch {
            name: input.name.clone(),
            message,
        };
        let remote = crate::remote::parse(&input.name)
            .unwrap_or_else(|| Err("no server reads this URL".to_string()))
            .map_err(fetch)?;
        return remote.fetch(limit).map(Opened::Remote).map_err(fetch);
    }
    open(input.path.as_deref(), &input.name, stdin, limit)
}

/// Opens the input at `path` (stdin, already read, when `None`): a regular file with the
/// SQLite header is a store, bounded by the size of the database and its log or journal
/// together; anything else is read as text, up to `limit` bytes.
pub fn open<'a>(
    path: Option<&'a Path>,
    name: &str,
    stdin: Option<&Loaded>,
    limit: u64,
) -> Result<Opened<'a>, Error> {
    let cannot = |source: std::io::Error| Error::Read {
        name: name.to_string(),
        source,
    };
    let loaded = match path {
        Some(path) => {
            use crate::read::Opening;
            match crate::read::open_path(path).map_err(cannot)? {
                Opening::Dir => {
                    return crate::folder::read(path, name, limit)
                        .map(Opened::Folder)
                        .map_err(Error::Unreadable)
                }
                Opening::File(file) => return open_file(path, file, name, limit),
                // What a stream's text is is told below.
                Opening::Stream(stream) => {
                    crate::read::read_stream(stream, limit).map_err(cannot)?
                }
            }
        }
        None => match stdin {
            Some(Loaded::Bytes(bytes, _)) => Loaded::Bytes(bytes.clone(), None),
            Some(Loaded::TooLarge { size, limit }) => Loaded::TooLarge {
                size: *size,
                limit: *limit,
            },
            None => return Err(Error::NoStdin),
        },
    };
    if let Loaded::Bytes(bytes, _) = &loaded {
        if crate::zstd_log::is_zstd(bytes) {
            return Ok(zstd_or_too_large(
                crate::zstd_log::decode(bytes, limit),
                limit,
            ));
        }
    }
    // A database that is not a regular file (stdin, a pipe) cannot be opened in place.
    if matches!(&loaded, Loaded::Bytes(bytes, _) if crate::store::is_sqlite(bytes)) {
        return Err(Error::DatabaseNotInPlace {
            name: name.to_string(),
        });
    }
    Ok(Opened::Text(loaded))
}

/// The regular file at `path`, opened: its head tells a store or a compressed log from
/// text, and text is read on from the same handle.
fn open_file<'a>(
    path: &'a Path,
    file: crate::read::OpenFile,
    name: &str,
    limit: u64,
) -> Result<Opened<'a>, Error> {
    let cannot = |source: std::io::Error| Error::Read {
        name: name.to_string(),
        source,
    };
    if crate::store::is_sqlite(file.head()) {
        let size = crate::store::size(path).map_err(cannot)?;
        if size > limit {
            return Ok(Opened::Text(Loaded::TooLarge {
                size: Some(size),
                limit,
            }));
        }
        return Ok(Opened::Store(path));
    }
    // Compressed: its frames are read here, their text bounded by the same limit.
    if crate::zstd_log::is_zstd(file.head()) {
        return crate::zstd_log::read_open(file, name, limit)
            .map(|log| zstd_or_too_large(log, limit))
            .map_err(Error::Unreadable);
    }
    if crate::stream::is_candidate(path, file.size()) {
        return Ok(Opened::Lines { path, limit });
    }
    file.read(limit).map(Opened::Text).map_err(cannot)
}

/// A compressed log, or one whose file or text is over the limit (`input-not-checked`).
fn zstd_or_too_large<'a>(log: Option<crate::zstd_log::Log>, limit: u64) -> Opened<'a> {
    match log {
        Some(log) => Opened::Zstd(log),
        None => Opened::Text(Loaded::TooLarge { size: None, limit }),
    }
}

/// An input's lint: its report, and where its findings sit when that is not the report's
/// text.
pub struct Linted {
    pub report: FileReport,
    at: Where,
}

/// Where the findings of a lint sit.
enum Where {
    /// In the report's text.
    Text,
    /// In a store's rows, each at its place in the report's text.
    Rows(Rows),
    /// In a session folder's files, whose lines the report's text is made of.
    Folder(crate::folder::Folder),
}

impl Linted {
    /// The findings placed by `place` (settings decide which are kept), and for a store named
    /// by their rows; the source text goes with them.
    pub fn place(
        self,
        place: &dyn Fn(&SourceFile, Vec<Finding>) -> Vec<Diagnostic>,
    ) -> (Vec<Diagnostic>, SourceFile) {
        let mut placed = place(&self.report.source, self.report.findings);
        match &self.at {
            Where::Text => {}
            Where::Rows(rows) => rows.relocate(&self.report.source, &mut placed),
            Where::Folder(folder) => folder.relocate(&self.report.source.text, &mut placed),
        }
        (placed, self.report.source)
    }
}

/// Lints an opened input and places its findings with `place`, rendering them with `render`
/// for the full report: a JSONL dataset too big for one chunk is read a chunk at a time, its
/// findings placed and rendered while their chunk is in memory.
pub fn lint_placed(
    opened: Opened<'_>,
    name: SourceName,
    explicit: bool,
    opts: &LintOptions,
    place: Place<'_>,
    render: Option<Render<'_>>,
) -> Result<Placed, Error> {
    if let Opened::Lines { path, limit } = opened {
        if let Some(placed) = crate::stream::lint(path, &name, explicit, opts, limit, place, render)
            .map_err(Error::Unreadable)?
        {
            return Ok(placed);
        }
    }
    let linted = lint(opened, name, explicit, opts)?;
    let outcome = linted.report.outcome.clone();
    let read = linted.report.read;
    let (diagnostics, source) = linted.place(place);
    let rendered = match render {
        Some(render) if !diagnostics.is_empty() => render(&source, &diagnostics, 0),
        _ => Vec::new(),
    };
    Ok(Placed {
        diagnostics,
        rendered,
        outcome,
        read,
        bytes: source.text.len() as u64,
    })
}

/// Lints an opened input (a JSONL file too big for one chunk is read whole here, up to its
/// limit: [`lint_placed`] reads it a chunk at a time).
pub fn lint(
    opened: Opened<'_>,
    name: SourceName,
    explicit: bool,
    opts: &LintOptions,
) -> Result<Linted, Error> {
    Ok(match ready(opened, &name.name)? {
        Ready::Store(path) => {
            let (report, rows) =
                crate::store::lint_path(name, path, explicit, opts).map_err(Error::Unreadable)?;
            Linted {
                report,
                at: Where::Rows(rows),
            }
        }
        Ready::Folder(folder) => Linted {
            report: folder.lint(name, folder.text().to_string(), opts),
            at: Where::Folder(folder),
        },
        Ready::Zstd(log) => Linted {
            report: log.lint(name, log.bytes().to_vec(), explicit, opts),
            at: Where::Text,
        },
        Ready::Text(Loaded::Bytes(bytes, _)) => Linted {
            report: crate::lint::lint_bytes(name, bytes, explicit, opts),
            at: Where::Text,
        },
        Ready::Text(Loaded::TooLarge { size, limit }) => Linted {
            report: crate::lint::too_large(name, size, limit),
            at: Where::Text,
        },
    })
}

/// An input ready to read: a JSONL file read whole after all (up to its limit).
enum Ready<'a> {
    Text(Loaded),
    Store(&'a Path),
    Folder(crate::folder::Folder),
    Zstd(crate::zstd_log::Log),
}

fn ready<'a>(opened: Opened<'a>, name: &str) -> Result<Ready<'a>, Error> {
    Ok(match opened {
        Opened::Text(loaded) | Opened::Remote(loaded) => Ready::Text(loaded),
        Opened::Store(path) => Ready::Store(path),
        Opened::Folder(folder) => Ready::Folder(folder),
        Opened::Zstd(log) => Ready::Zstd(log),
        Opened::Lines { path, limit } => Ready::Text(crate::read::read_path(path, limit).map_err(
            |source| Error::Read {
                name: name.to_string(),
                source,
            },
        )?),
    })
}

/// An input's fix: the fixed text, and the kind of input it is, which says how that text is
/// linted again, placed, diffed and written back.
pub struct Fixed {
    pub file: FileFix,
    kind: Kind,
}

/// What an opened input is beyond its text. Each method of it is the one place where inputs
/// differ by kind once they are open; the commands never ask.
enum Kind {
    /// A text file or stdin: the stamp `fix --write` checks before it replaces the file.
    Text(Option<FileStamp>),
    /// A SQLite store: the rows as read, which the fixed text is mapped back onto.
    Store(Snapshot),
    /// A session folder: the message files its text is made of.
    Folder(crate::folder::Folder),
    /// A compressed log: its frames, whose findings every relint carries.
    Zstd(crate::zstd_log::Log),
}

impl Kind {
    /// Lints `text`, the input's text or a fix of it, as this input.
    fn lint(
        &self,
        name: SourceName,
        text: String,
        explicit: bool,
        opts: &LintOptions,
    ) -> FileReport {
        match self {
            Kind::Text(_) => crate::lint::lint_text(name, text, explicit, opts),
            Kind::Store(snapshot) => {
                crate::store::lint_text(name, text, snapshot, explicit, opts).0
            }
            Kind::Folder(folder) => folder.lint(name, text, opts),
            Kind::Zstd(log) => log.lint(name, text.into_bytes(), explicit, opts),
        }
    }

    /// Moves findings placed in the input's text to the file they are in (a session folder's
    /// message files); a store's are moved by the rows of their own lint ([`Linted::place`]).
    fn relocate(&self, source: &SourceFile, placed: &mut [Diagnostic]) {
        if let Kind::Folder(folder) = self {
            folder.relocate(&source.text, placed);
        }
    }
}

/// An input's fix: done whole, or a JSONL dataset to fix a chunk at a time while its diff,
/// findings and write are produced (see [`crate::stream::fix`]).
pub enum Fixing<'a> {
    Whole(Box<Fixed>),
    Streamed(crate::stream::fix::Plan<'a>),
}

/// Fixes an opened input whole, or for a JSONL dataset whose records are conversations of
/// their own, says to fix it a chunk at a time: the files [`lint_placed`] reads in chunks.
pub fn fix_or_stream<'a>(
    opened: Opened<'a>,
    name: &SourceName,
    explicit: bool,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<Fixing<'a>, Error> {
    if let Opened::Lines { path, limit } = opened {
        if let Some(plan) =
            crate::stream::fix::plan(path, &name.name, limit, opts).map_err(Error::Unreadable)?
        {
            return Ok(Fixing::Streamed(plan));
        }
    }
    fix(opened, name, explicit, opts, unsafe_fixes).map(|f| Fixing::Whole(Box::new(f)))
}

/// Fixes a dataset a chunk at a time (see [`crate::stream::fix::run`]).
pub fn fix_streamed(
    plan: &crate::stream::fix::Plan<'_>,
    job: &Job<'_>,
    each: &mut dyn FnMut(&mut FixedChunk) -> Result<(), String>,
) -> Result<Totals, String> {
    crate::stream::fix::run(plan, job, each)
}

/// Fixes an opened input (an input over the size limit cannot be fixed).
pub fn fix(
    opened: Opened<'_>,
    name: &SourceName,
    explicit: bool,
    opts: &LintOptions,
    unsafe_fixes: bool,
) -> Result<Fixed, Error> {
    let failed = |source: crate::fix::FixError| Error::Fix {
        name: name.name.clone(),
        source,
    };
    if let Opened::Remote(_) = opened {
        return Err(Error::ReadOnly {
            name: name.name.clone(),
        });
    }
    let (file, kind) = match ready(opened, &name.name)? {
        Ready::Store(path) => {
            let snapshot = crate::store::read(path, &name.name).map_err(Error::Unreadable)?;
            let file =
                crate::store::fix(name, &snapshot, explicit, opts, unsafe_fixes).map_err(failed)?;
            (file, Kind::Store(snapshot))
        }
        // The fix loop on the folder's text; each fix edits inside one message file.
        Ready::Folder(folder) => {
            let file = crate::fix::fix_named(
                name,
                folder.text().to_string(),
                |name, text| folder.lint(name, text, opts),
                unsafe_fixes,
            )
            .map_err(failed)?;
            (file, Kind::Folder(folder))
        }
        Ready::Text(Loaded::Bytes(bytes, stamp)) => {
            let file =
                crate::fix::fix_bytes(name, bytes, explicit, opts, unsafe_fixes).map_err(failed)?;
            (file, Kind::Text(stamp))
        }
        // The fix loop on the decompressed text; `Log::lint` withholds every fix of a log
        // that cannot be written back (stdin, a torn or damaged frame).
        Ready::Zstd(log) => {
            let file = log
                .fix(name, explicit, opts, unsafe_fixes)
                .map_err(failed)?;
            (file, Kind::Zstd(log))
        }
        Ready::Text(Loaded::TooLarge { size, limit }) => {
            return Err(Error::TooLarge {
                name: name.name.clone(),
                message: crate::lint::too_large_message(size, limit),
            })
        }
    };
    Ok(Fixed { file, kind })
}

impl Fixed {
    /// Whether the fix is of a SQLite store (written back in a transaction).
    pub fn is_store(&self) -> bool {
        matches!(self.kind, Kind::Store(_))
    }

    /// The findings of the text as fixed (`after`) or as read, each with its fix, placed by
    /// `place`, and with `render` their full report (`lint --fix` reports what remains).
    pub fn findings(
        &mut self,
        name: &SourceName,
        explicit: bool,
        opts: &LintOptions,
        after: bool,
        place: &dyn Fn(&SourceFile, Vec<Finding>) -> Vec<Diagnostic>,
        render: Option<Render<'_>>,
    ) -> (Vec<Diagnostic>, Vec<String>) {
        let mut rendered = Vec::new();
        let mut show = |source: &SourceFile, placed: &[Diagnostic]| {
            if let Some(render) = render.filter(|_| !placed.is_empty()) {
                rendered = render(source, placed, 0);
            }
        };
        let file = &mut self.file;
        let same_name = || SourceName {
            name: name.name.clone(),
            path: name.path.clone(),
        };
        // A store's findings are placed by the rows of the lint that found them, which the
        // fix loop's report does not keep: its text is linted again.
        if let Kind::Store(snapshot) = &self.kind {
            let text = if after {
                std::borrow::Cow::Borrowed(file.fixed_text())
            } else {
                file.original_text()
            };
            let (report, rows) =
                crate::store::lint_text(same_name(), text.into_owned(), snapshot, explicit, opts);
            let linted = Linted {
                report,
                at: Where::Rows(rows),
            };
            let (placed, source) = linted.place(place);
            show(&source, &placed);
            return (placed, rendered);
        }
        let kind = &self.kind;
        let placed = file.place_findings(
            after,
            |text| kind.lint(same_name(), text, explicit, opts),
            |source, findings| {
                let mut placed = place(source, findings);
                kind.relocate(source, &mut placed);
                show(source, &placed);
                placed
            },
        );
        (placed, rendered)
    }

    /// How the file read: checked, or skipped as no conversation (a walked file).
    pub fn outcome(&self) -> &crate::lint::Outcome {
        &self.file.report.outcome
    }

    /// The diff of the fix, by `diff_of(name, pieces)` (the texts before and after, cut for
    /// their diff): of the whole text, or for a store one per changed row, of its JSON value.
    pub fn diff(
        &self,
        name: &str,
        diff_of: &dyn Fn(&str, &crate::fix::diff::Aligned<'_>) -> String,
    ) -> String {
        let fixed = self.file.fixed_text();
        let whole = crate::fix::diff::aligned;
        match &self.kind {
            Kind::Store(snapshot) => snapshot
                .changed_rows(name, fixed)
                .iter()
                .map(|(row, old, new)| diff_of(row, &whole(old, new)))
                .collect(),
            // A folder: one diff per changed message file, named by its path.
            Kind::Folder(folder) => folder
                .changed(fixed)
                .into_iter()
                .map(|(file, old, new)| diff_of(file, &whole(old, new)))
                .collect(),
            Kind::Text(_) | Kind::Zstd(_) => diff_of(name, &self.file.aligned()),
        }
    }

    /// Writes the fix back to `path`: a text file atomically, refused if it changed since it
    /// was read; a store in one transaction; a session folder file by file, each checked
    /// before any is written (`folder::Folder::write`); a compressed log as its frames
    /// (`zstd_log::Log::write`).
    pub fn write(&self, path: &Path, name: &str) -> Result<(), WriteError> {
        let fixed = self.file.fixed_text();
        match &self.kind {
            Kind::Store(snapshot) => {
                crate::store::write(path, name, snapshot, fixed).map_err(WriteError)
            }
            Kind::Folder(folder) => folder.write(fixed),
            // A compressed log: its frames rewritten (unchanged ones byte for byte), then
            // the same atomic write, or in-place append, as a text file.
            Kind::Zstd(log) => log.write(path, name, fixed),
            Kind::Text(stamp) => {
                let encoding = self.file.encoding;
                crate::fix::write::write_atomic(
                    path,
                    &encoding.encode(&self.file.original_text()),
                    stamp.as_ref(),
                    encoding.encode(fixed),
                )
            }
        }
    }
}
