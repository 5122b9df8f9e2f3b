//! `toolcheck proxy`: a local gateway between an agent and its provider. Each request in one
//! of the four dialects (Anthropic Messages, OpenAI Chat, OpenAI Responses, Gemini) is checked
//! with the same rules as `toolcheck lint` and, by mode, forwarded as sent and reported,
//! repaired with the safe fixes `toolcheck fix` applies, or refused with the provider's own
//! error. Every other request, and every response, passes through untouched, streamed as it
//! arrives.
//!
//! Modules: `dialect` (paths and error shapes), `check` (the verdict on one body), `forward`
//! (the upstream call), `record` (`--record`), `setup` (routes and settings); this file
//! serves connections and routes each request.

pub mod check;
pub mod dialect;
mod forward;
mod record;
pub mod setup;

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{header, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use toolcheck_core::lint::LintOptions;

pub use check::Mode;
pub use dialect::Dialect;
use forward::{error, forward, full, Body, BoxError, HttpClient};
pub use setup::{Config, Route, Upstream};

/// Why the proxy did not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{0}")]
    Config(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the proxy: {0}")]
    Runtime(std::io::Error),
    #[error("cannot record requests in {path}: {source}")]
    Record {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Options(#[from] toolcheck_core::embed::Error),
}

/// How long a client may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(60);
/// How long shutdown waits for requests in flight (a streamed answer among them).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// What every connection shares.
struct State {
    config: Config,
    /// Each dialect's options, in [`Dialect::ALL`]'s order.
    options: Vec<(Dialect, LintOptions)>,
    client: HttpClient,
    recorder: Option<record::Recorder>,
}

impl State {
    fn options(&self, dialect: Dialect) -> Option<&LintOptions> {
        self.options
            .iter()
            .find_map(|(d, o)| (*d == dialect).then_some(o))
    }
}

/// Runs the proxy until Ctrl-C or SIGTERM, then lets requests in flight finish.
pub fn run(config: Config) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|source| Error::Listen {
                addr: config.listen,
                source,
            })?;
        serve(listener, config, shutdown_signal()).await
    })
}

/// Ctrl-C, or SIGTERM where there is one.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut term) => {
                    term.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = ctrl_c => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}

/// Serves connections from `listener` until `shutdown` completes, then stops accepting and
/// waits (at most [`SHUTDOWN_GRACE`]) for the requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<(), Error> {
    let options = Dialect::ALL
        .iter()
        .map(|&d| check::options(d, &config.targets).map(|o| (d, o)))
        .collect::<Result<Vec<_>, _>>()?;
    let recorder = config
        .record
        .as_deref()
        .map(record::Recorder::new)
        .transpose()?;
    if let Ok(addr) = listener.local_addr() {
        let routes: Vec<String> = config
            .routes
            .iter()
            .map(|r| {
                let up = &r.upstream;
                format!(
                    "{} → {}://{}{}",
                    r.prefix, up.scheme, up.authority, up.base_path
                )
            })
            .collect();
        eprintln!(
            "toolcheck proxy: listening on http://{addr} ({} mode): {}",
            config.mode.name(),
            routes.join(", ")
        );
    }
    let state = Arc::new(State {
        config,
        options,
        client: forward::client(),
        recorder,
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    // Out of file descriptors and the like: the listener stays up.
                    Err(e) => {
                        eprintln!("toolcheck proxy: cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let state = state.clone();
                let service = hyper::service::service_fn(move |request| {
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(handle(state, request).await) }
                });
                let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
                tokio::spawn(async move {
                    // A client that goes away mid-request is no error of the proxy's.
                    let _ = connection.await;
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    eprintln!("toolcheck proxy: shutting down; waiting for requests in flight");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            eprintln!("toolcheck proxy: requests still open after {}s were cut off", SHUTDOWN_GRACE.as_secs());
        }
    }
    Ok(())
}

/// One request: routed, checked when it is one of the dialects, and forwarded (or answered).
async fn handle(state: Arc<State>, request: Request<Incoming>) -> Response<Body> {
    let path_and_query = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let Some((route, rest)) = state.config.route(&path_and_query) else {
        return error(
            None,
            StatusCode::NOT_FOUND,
            &format!("toolcheck proxy: no upstream for {}", request.uri().path()),
        );
    };
    let rest = rest.to_string();
    let path = rest.split('?').next().unwrap_or_default();
    let dialect = (request.method() == Method::POST)
        .then(|| Dialect::of(path))
        .flatten()
        // A compressed body is not read: it goes through as sent.
        .filter(|_| {
            request
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none_or(|v| v.as_bytes().eq_ignore_ascii_case(b"identity"))
        });
    let (parts, body) = request.into_parts();
    let upstream = route.upstream.clone();
    let Some(dialect) = dialect else {
        let body = body.map_err(BoxError::from).boxed();
        return forward(&state.client, &upstream, &rest, parts, body, false, None).await;
    };
    let bytes = match Limited::new(
        body,
        usize::try_from(state.config.max_body).unwrap_or(usize::MAX),
    )
    .collect()
    .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let message = format!(
                "toolcheck proxy: the request body is over the limit of {} bytes (--max-body-size)",
                state.config.max_body
            );
            eprintln!(
                "toolcheck proxy: POST {path} ({}): refused: {message}",
                dialect.name()
            );
            return error(Some(dialect), StatusCode::PAYLOAD_TOO_LARGE, &message);
        }
        // The client went away while sending: there is no one to answer.
        Err(e) => {
            return error(
                Some(dialect),
                StatusCode::BAD_REQUEST,
                &format!("toolcheck proxy: the request body could not be read: {e}"),
            )
        }
    };
    let checked = {
        let state = state.clone();
        let body = bytes.clone();
        tokio::task::spawn_blocking(move || {
            state
                .options(dialect)
                .map(|opts| check::check(&body, opts, state.config.mode))
        })
        .await
        .ok()
        .flatten()
    };
    let Some(checked) = checked else {
        // The check itself failed (a bug): the request goes through as sent.
        eprintln!(
            "toolcheck proxy: POST {path} ({}): not checked (internal error), forwarded as sent",
            dialect.name()
        );
        return forward(
            &state.client,
            &upstream,
            &rest,
            parts,
            full(bytes),
            false,
            Some(dialect),
        )
        .await;
    };
    if let Some(note) = &checked.note {
        eprintln!("toolcheck proxy: POST {path} ({}): {note}", dialect.name());
    }
    let response = match checked.verdict {
        check::Verdict::Block(message) => error(Some(dialect), StatusCode::BAD_REQUEST, &message),
        check::Verdict::Forward => {
            forward(
                &state.client,
                &upstream,
                &rest,
                parts,
                full(bytes.clone()),
                false,
                Some(dialect),
            )
            .await
        }
        check::Verdict::Replace(repaired) => {
            forward(
                &state.client,
                &upstream,
                &rest,
                parts,
                full(Bytes::from(repaired)),
                true,
                Some(dialect),
            )
            .await
        }
    };
    if let Some(recorder) = &state.recorder {
        recorder.record(dialect, response.status(), bytes).await;
    }
    response
}
