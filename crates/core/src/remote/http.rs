//! The one HTTP GET a server source makes, bounded in time and size. Built on ureq with the
//! `remote` feature; without it (the Python and Node bindings) every fetch says so.

#[cfg(feature = "remote")]
use std::time::Duration;

/// An answer: its status and body.
pub(crate) struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Longest a connection may take to open.
#[cfg(feature = "remote")]
const CONNECT: Duration = Duration::from_secs(10);
/// Longest one request may take, its body included: a page of 1,000 spans of a busy project
/// is megabytes.
#[cfg(feature = "remote")]
const WHOLE: Duration = Duration::from_secs(300);

/// `GET url` with `headers`, its body read up to `limit` bytes: `Ok(None)` for a body over
/// it. Redirects are followed without the headers (an API key never leaves its host).
#[cfg(feature = "remote")]
pub(crate) fn get(
    url: &str,
    headers: &[(&str, String)],
    limit: u64,
) -> Result<Option<Response>, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT))
        .timeout_global(Some(WHOLE))
        .http_status_as_error(false)
        .user_agent(concat!("toolcheck/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut request = agent.get(url).header("Accept", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let mut response = request.call().map_err(|e| describe(&e, url))?;
    let status = response.status().as_u16();
    // One byte over the limit tells a body at the limit from one past it.
    match response
        .body_mut()
        .with_config()
        .limit(limit.saturating_add(1))
        .read_to_vec()
    {
        Ok(body) if body.len() as u64 > limit => Ok(None),
        Ok(body) => Ok(Some(Response { status, body })),
        Err(ureq::Error::BodyExceedsLimit(_)) => Ok(None),
        Err(e) => Err(describe(&e, url)),
    }
}

#[cfg(feature = "remote")]
fn describe(error: &ureq::Error, url: &str) -> String {
    match error {
        ureq::Error::Timeout(_) => {
            format!("GET {url} timed out (after {} s at most)", WHOLE.as_secs())
        }
        ureq::Error::ConnectionFailed | ureq::Error::Io(_) | ureq::Error::HostNotFound => {
            format!("cannot connect for GET {url}: {error}")
        }
        _ => format!("GET {url} failed: {error}"),
    }
}

#[cfg(not(feature = "remote"))]
pub(crate) fn get(
    url: &str,
    _headers: &[(&str, String)],
    _limit: u64,
) -> Result<Option<Response>, String> {
    Err(format!(
        "cannot GET {url}: this build of toolcheck reads no servers (it was built without \
         the `remote` feature); export the spans to a file and lint that"
    ))
}
