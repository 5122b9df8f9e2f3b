//! `--record DIR`: each checked request body as the client sent it, in a file `toolcheck lint`
//! reads, named by its order, dialect and the status it got
//! (`000042-anthropic-400.json`), so real traffic becomes fixtures.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use hyper::StatusCode;

use crate::dialect::Dialect;
use crate::Error;

pub struct Recorder {
    dir: PathBuf,
    next: AtomicU64,
}

impl Recorder {
    /// Records into `dir` (created if missing), numbering after the files already there.
    pub fn new(dir: &Path) -> Result<Recorder, Error> {
        let failed = |source| Error::Record {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(failed)?;
        let last = std::fs::read_dir(dir)
            .map_err(failed)?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name();
                let name = name.to_str()?;
                name.split('-').next()?.parse::<u64>().ok()
            })
            .max()
            .unwrap_or(0);
        Ok(Recorder {
            dir: dir.to_path_buf(),
            next: AtomicU64::new(last + 1),
        })
    }

    /// Writes one request. A failure is reported and the proxy goes on: recording never
    /// stands between the agent and its provider.
    pub async fn record(&self, dialect: Dialect, status: StatusCode, body: Bytes) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!(
            "{n:06}-{}-{}.json",
            dialect.name(),
            status.as_u16()
        ));
        let written = tokio::task::spawn_blocking(move || {
            // Written beside, then renamed: a reader of DIR never sees half a request.
            let partial = path.with_extension("json.partial");
            std::fs::write(&partial, &body)
                .and_then(|()| std::fs::rename(&partial, &path))
                .map_err(|e| (path, e))
        })
        .await;
        if let Ok(Err((path, e))) = written {
            eprintln!("toolcheck proxy: cannot record {}: {e}", path.display());
        }
    }
}
