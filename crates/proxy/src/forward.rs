//! Forwarding: a request to its upstream and the response back, headers and status as sent,
//! bodies streamed frame by frame (server-sent events pass through as they arrive).

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;

use crate::dialect::Dialect;
use crate::setup::Upstream;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type Body = BoxBody<Bytes, BoxError>;
pub type HttpClient = Client<HttpsConnector<HttpConnector>, Body>;

/// The client every upstream is called with: pooled, HTTP/1.1, HTTPS by rustls with the
/// Mozilla roots (webpki-roots), plain HTTP for local upstreams.
pub fn client() -> HttpClient {
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    Client::builder(TokioExecutor::new()).build(https)
}

/// A body of bytes held whole.
pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1): never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

/// Removes hop-by-hop headers, and those the `Connection` header names.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    // hyper frames each message itself: the length of a body held whole, chunks otherwise.
    headers.remove(header::TRANSFER_ENCODING);
}

/// Sends `parts` with `body` to `upstream` at `path_and_query`, and returns its response with
/// the body streaming through. `replaced`: the body is not the one the client sent, so its
/// length is hyper's to set. An upstream that cannot be reached is a 502 in `dialect`'s error
/// shape (plain text for other requests).
pub async fn forward(
    client: &HttpClient,
    upstream: &Upstream,
    path_and_query: &str,
    mut parts: hyper::http::request::Parts,
    body: Body,
    replaced: bool,
    dialect: Option<Dialect>,
) -> Response<Body> {
    let uri = match upstream.uri(path_and_query) {
        Ok(uri) => uri,
        Err(e) => return error(dialect, StatusCode::BAD_REQUEST, &format!("bad path: {e}")),
    };
    strip_hop_by_hop(&mut parts.headers);
    // The client names the upstream's host from the URI.
    parts.headers.remove(header::HOST);
    if replaced {
        parts.headers.remove(header::CONTENT_LENGTH);
    }
    parts.uri = uri;
    // HTTP/1.1 to every upstream, whatever the client spoke to the proxy.
    parts.version = hyper::Version::HTTP_11;
    let request = Request::from_parts(parts, body);
    match client.request(request).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, body.map_err(BoxError::from).boxed())
        }
        Err(e) => {
            // The reason names the upstream's address, never a header or a key.
            let reason =
                std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
            error(
                dialect,
                StatusCode::BAD_GATEWAY,
                &format!(
                    "toolcheck proxy could not reach the upstream {}: {reason}",
                    upstream.authority
                ),
            )
        }
    }
}

/// A response the proxy answers itself: `dialect`'s error shape, or plain text.
pub fn error(dialect: Option<Dialect>, status: StatusCode, message: &str) -> Response<Body> {
    let (content_type, body) = match dialect {
        Some(dialect) => (
            "application/json",
            dialect.error_body(status.as_u16(), message).to_string(),
        ),
        None => ("text/plain; charset=utf-8", format!("{message}\n")),
    };
    let mut response = Response::new(full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, x-private"),
        );
        headers.insert("x-private", HeaderValue::from_static("1"));
        headers.insert(
            header::TRANSFER_ENCODING,
            HeaderValue::from_static("chunked"),
        );
        headers.insert("x-api-key", HeaderValue::from_static("secret"));
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        strip_hop_by_hop(&mut headers);
        let left: Vec<&str> = headers.keys().map(|k| k.as_str()).collect();
        assert_eq!(left, ["x-api-key", "content-type"]);
    }
}
