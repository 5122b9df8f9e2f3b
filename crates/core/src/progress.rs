//! The progress bar of long runs: on stderr, only when stderr is a terminal, not with `-q`,
//! and only once a run has taken about a second, so short runs and pipes never see it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its progress is shown.
const DELAY: Duration = Duration::from_secs(1);

/// Files done, bytes read and findings so far; cheap to share with every worker.
#[derive(Clone)]
pub struct Progress {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    bar: ProgressBar,
    start: Instant,
    shown: std::sync::atomic::AtomicBool,
    bytes: AtomicU64,
    findings: AtomicUsize,
}

impl Progress {
    /// A progress bar for `files` files, or none where it must not show.
    pub fn new(files: usize, quiet: bool) -> Progress {
        if quiet || files == 0 || !std::io::stderr().is_terminal() {
            return Progress { inner: None };
        }
        let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{spinner} {pos}/{len} files, {msg} [{elapsed}] eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Progress {
            inner: Some(Arc::new(Inner {
                bar,
                start: Instant::now(),
                shown: false.into(),
                bytes: AtomicU64::new(0),
                findings: AtomicUsize::new(0),
            })),
        }
    }

    /// A file of `bytes` bytes with `findings` findings is done.
    pub fn file_done(&self, bytes: usize, findings: usize) {
        let Some(inner) = &self.inner else {
            return;
        };
        let bytes = inner.bytes.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
        let findings = inner.findings.fetch_add(findings, Ordering::Relaxed) + findings;
        if !inner.shown.load(Ordering::Relaxed) && inner.start.elapsed() >= DELAY {
            inner.shown.store(true, Ordering::Relaxed);
            inner.bar.set_draw_target(ProgressDrawTarget::stderr());
            inner.bar.enable_steady_tick(Duration::from_millis(200));
        }
        let secs = inner.start.elapsed().as_secs_f64().max(1e-3);
        inner.bar.set_message(format!(
            "{:.1} MB ({:.1} MB/s), {findings} {}",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / secs,
            if findings == 1 { "finding" } else { "findings" }
        ));
        inner.bar.inc(1);
    }

    /// Clears the bar before the report is printed.
    pub fn finish(&self) {
        if let Some(inner) = &self.inner {
            inner.bar.finish_and_clear();
        }
    }
}
