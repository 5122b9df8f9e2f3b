//! The proxy's settings: from the command line (one upstream) or a TOML file (several, each
//! under a path prefix).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use hyper::Uri;
use serde::Deserialize;

use crate::check::Mode;
use crate::Error;

/// The default request-size limit: bigger than any context window's history in JSON.
pub const DEFAULT_MAX_BODY: u64 = 64 << 20;

/// Everything the proxy needs to run.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub routes: Vec<Route>,
    pub mode: Mode,
    /// Where each checked request is recorded, when asked.
    pub record: Option<PathBuf>,
    /// The largest request body read; a bigger one is answered 413.
    pub max_body: u64,
    /// `--target`: the providers requests are held to (none: each dialect's own, or the one a
    /// request's `model` names).
    pub targets: Vec<String>,
}

/// Requests whose path starts with `prefix` go to `upstream`, the prefix taken off.
#[derive(Debug, Clone)]
pub struct Route {
    pub prefix: String,
    pub upstream: Upstream,
}

/// An upstream base URL: scheme, authority and a path prefix requests are appended to.
#[derive(Debug, Clone)]
pub struct Upstream {
    pub scheme: String,
    pub authority: String,
    pub base_path: String,
}

impl Upstream {
    /// Parses an `http://` or `https://` base URL.
    pub fn parse(url: &str) -> Result<Upstream, Error> {
        let bad = |why: &str| Error::Config(format!("upstream `{url}`: {why}"));
        let uri: Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
        let scheme = uri
            .scheme_str()
            .ok_or_else(|| bad("no scheme (http:// or https://)"))?;
        if scheme != "http" && scheme != "https" {
            return Err(bad("the scheme must be http or https"));
        }
        let authority = uri.authority().ok_or_else(|| bad("no host"))?.to_string();
        if uri.query().is_some() {
            return Err(bad("a base URL takes no query"));
        }
        Ok(Upstream {
            scheme: scheme.to_string(),
            authority,
            base_path: uri.path().trim_end_matches('/').to_string(),
        })
    }

    /// The upstream URI of a request for `path_and_query` (after its route's prefix).
    pub fn uri(&self, path_and_query: &str) -> Result<Uri, hyper::http::Error> {
        let joined = format!("{}{}", self.base_path, path_and_query);
        Uri::builder()
            .scheme(self.scheme.as_str())
            .authority(self.authority.as_str())
            .path_and_query(joined)
            .build()
    }
}

impl Config {
    /// The route a request path takes (the longest prefix that matches), and the path left.
    pub fn route<'p>(&self, path: &'p str) -> Option<(&Route, &'p str)> {
        self.routes
            .iter()
            .filter_map(|r| {
                let rest = path.strip_prefix(r.prefix.trim_end_matches('/'))?;
                (rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
                    .then_some((r, rest))
            })
            .max_by_key(|(r, _)| r.prefix.len())
    }
}

/// `proxy.toml`: the file form, for several upstreams.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct File {
    pub listen: Option<String>,
    pub mode: Option<String>,
    pub record: Option<PathBuf>,
    pub max_body_size: Option<u64>,
    #[serde(default)]
    pub target: Vec<String>,
    #[serde(default)]
    pub upstream: Vec<FileRoute>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRoute {
    #[serde(default = "root")]
    pub prefix: String,
    pub url: String,
}

fn root() -> String {
    "/".to_string()
}

impl File {
    pub fn read(path: &Path) -> Result<File, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
        toml::from_str(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))
    }
}

/// Parses a route prefix: it starts with `/`.
pub fn prefix(prefix: &str) -> Result<String, Error> {
    if prefix.starts_with('/') {
        Ok(prefix.to_string())
    } else {
        Err(Error::Config(format!(
            "route prefix `{prefix}` must start with /"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(routes: &[(&str, &str)]) -> Config {
        Config {
            listen: "127.0.0.1:0".parse().expect("address"),
            routes: routes
                .iter()
                .map(|(p, u)| Route {
                    prefix: p.to_string(),
                    upstream: Upstream::parse(u).expect("upstream"),
                })
                .collect(),
            mode: Mode::Report,
            record: None,
            max_body: DEFAULT_MAX_BODY,
            targets: Vec::new(),
        }
    }

    #[test]
    fn upstream_uris_keep_the_base_path_and_the_query() {
        let up = Upstream::parse("https://example.test/api/").expect("upstream");
        let uri = up.uri("/v1/messages?beta=true").expect("uri");
        assert_eq!(
            uri.to_string(),
            "https://example.test/api/v1/messages?beta=true"
        );
        assert!(Upstream::parse("ftp://x").is_err());
        assert!(Upstream::parse("localhost:8080").is_err());
    }

    #[test]
    fn the_longest_prefix_routes_a_request() {
        let c = config(&[
            ("/", "http://127.0.0.1:1"),
            ("/gemini", "http://127.0.0.1:2"),
        ]);
        let (route, rest) = c
            .route("/gemini/v1beta/models/g:generateContent")
            .expect("route");
        assert_eq!(route.upstream.authority, "127.0.0.1:2");
        assert_eq!(rest, "/v1beta/models/g:generateContent");
        let (route, rest) = c.route("/v1/messages").expect("route");
        assert_eq!(route.upstream.authority, "127.0.0.1:1");
        assert_eq!(rest, "/v1/messages");
        // A prefix matches whole segments only.
        let (route, _) = c.route("/geminix/v1").expect("route");
        assert_eq!(route.upstream.authority, "127.0.0.1:1");
    }
}
