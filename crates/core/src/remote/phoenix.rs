//! An Arize Phoenix project's spans, read from its REST API: `GET
//! /v1/projects/{project}/spans` (`span_search` in Phoenix's
//! `src/phoenix/server/api/routers/v1/spans.py`), a page `{data, next_cursor}` of up to
//! 1,000 spans at a time, followed by `cursor` until `next_cursor` is `null`.
//!
//! The URL is Phoenix's own with `phoenix+` in front, so a project's page in its UI can be
//! pasted as it is: `phoenix+http://127.0.0.1:6006/projects/default`,
//! `phoenix+https://phoenix.example.com/projects/UHJvamVjdDox/spans` (a name or an id; a tab
//! after it is ignored). The query holds the API's filters: `start_time` and `end_time`
//! (ISO 8601: inclusive and exclusive bounds on when a span started), `trace_id`, `span_id`,
//! `parent_id`, `name`, `span_kind`, `status_code` and `attribute`, passed on as given; and
//! `limit`, the spans per page (1 to 1,000, the most and the default).
//!
//! The text is the pages as the server sent them, one per line, which is what
//! `formats/phoenix.rs` reads from a file of them: a finding's line is its page. An API key
//! is read from `PHOENIX_API_KEY` (sent as `Authorization: Bearer`, never shown).

use super::{Kind, Remote};
use crate::read::Loaded;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

pub const KIND: Kind = Kind {
    name: "Arize Phoenix",
    schemes: &["phoenix+http://", "phoenix+https://"],
    parse,
};

/// The filters `span_search` takes, which a URL's query may hold.
const FILTERS: &[&str] = &[
    "start_time",
    "end_time",
    "trace_id",
    "span_id",
    "parent_id",
    "name",
    "span_kind",
    "status_code",
    "attribute",
];

/// The most spans a page may hold (`limit`'s `le=1000`), and the page toolcheck asks for.
const PAGE: u16 = 1000;

/// Bytes left as they are in a path segment or a query value; the rest are escaped.
const KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':');

/// A Phoenix project's spans, with the filters of the URL.
#[derive(Debug, PartialEq, Eq)]
struct Project {
    /// `http(s)://host[:port][/prefix]`, without a trailing `/`.
    base: String,
    /// The project's name or id, as given (unescaped).
    project: String,
    /// The filters, each `key=value` escaped for a query.
    filters: Vec<String>,
    /// Spans per page.
    page: u16,
}

fn parse(url: &str) -> Result<Box<dyn Remote>, String> {
    read_url(url).map(|p| Box::new(p) as Box<dyn Remote>)
}

fn read_url(url: &str) -> Result<Project, String> {
    let usage = "name a project: phoenix+http://HOST:PORT/projects/NAME[?start_time=…&end_time=…]";
    let http = url
        .get("phoenix+".len()..)
        .ok_or_else(|| usage.to_string())?;
    let (http, _fragment) = http.split_once('#').unwrap_or((http, ""));
    let (http, query) = http.split_once('?').unwrap_or((http, ""));
    let (scheme, rest) = http.split_once("://").ok_or_else(|| usage.to_string())?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if host.is_empty() {
        return Err(format!("no host: {usage}"));
    }
    // A password in the URL would be shown in every message that names the server.
    if host.contains('@') {
        return Err(
            "the URL holds credentials: give the API key in PHOENIX_API_KEY instead".to_string(),
        );
    }
    let path = format!("/{path}");
    let Some(at) = path.rfind("/projects/") else {
        return Err(usage.to_string());
    };
    let prefix = path.get(..at).unwrap_or_default().trim_end_matches('/');
    let after = path.get(at + "/projects/".len()..).unwrap_or_default();
    let segment = after.split('/').next().unwrap_or_default();
    let project = percent_decode_str(segment)
        .decode_utf8()
        .map_err(|_| format!("the project name `{segment}` is not UTF-8 once unescaped"))?
        .into_owned();
    if project.is_empty() {
        return Err(usage.to_string());
    }
    let mut filters = Vec::new();
    let mut page = PAGE;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key == "limit" {
            page = value
                .parse()
                .ok()
                .filter(|n| (1..=PAGE).contains(n))
                .ok_or_else(|| {
                    format!("`limit` is the spans per page, 1 to {PAGE}, not `{value}`")
                })?;
            continue;
        }
        if !FILTERS.contains(&key) {
            return Err(format!(
                "`{key}` is not a filter of Phoenix's span search; the query may hold {} \
                 (and `limit`, the spans per page)",
                FILTERS.join(", ")
            ));
        }
        // A `+` in a query is a space to the server: an offset such as `+01:00` is meant.
        let value = percent_decode_str(value).decode_utf8_lossy();
        filters.push(format!("{key}={}", utf8_percent_encode(&value, KEEP)));
    }
    Ok(Project {
        base: format!("{}://{host}{prefix}", scheme.to_ascii_lowercase()),
        project,
        filters,
        page,
    })
}

impl Project {
    fn page_url(&self, cursor: Option<&str>) -> String {
        let mut url = format!(
            "{}/v1/projects/{}/spans?limit={}",
            self.base,
            utf8_percent_encode(&self.project, KEEP),
            self.page
        );
        for filter in &self.filters {
            url.push('&');
            url.push_str(filter);
        }
        if let Some(cursor) = cursor {
            url.push_str("&cursor=");
            url.push_str(&utf8_percent_encode(cursor, KEEP).to_string());
        }
        url
    }
}

/// What toolcheck reads of a page: how many spans, and where the next one starts.
#[derive(serde::Deserialize)]
struct Page {
    data: Vec<serde::de::IgnoredAny>,
    next_cursor: Option<String>,
}

impl Remote for Project {
    fn fetch(&self, limit: u64) -> Result<Loaded, String> {
        let headers: Vec<(&str, String)> = std::env::var("PHOENIX_API_KEY")
            .ok()
            .filter(|key| !key.is_empty())
            .map(|key| ("Authorization", format!("Bearer {key}")))
            .into_iter()
            .collect();
        let mut text = Vec::new();
        let mut spans = 0;
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let url = self.page_url(cursor.as_deref());
            let left = limit.saturating_sub(text.len() as u64);
            let Some(answer) = super::http::get(&url, &headers, left)? else {
                return Ok(Loaded::TooLarge { size: None, limit });
            };
            if answer.status != 200 {
                return Err(self.refused(answer.status, &answer.body, !headers.is_empty()));
            }
            let page: Page = serde_json::from_slice(&answer.body).map_err(|e| {
                format!("the answer to GET {url} is not a page of Phoenix spans: {e}")
            })?;
            spans += page.data.len();
            let body = answer.body.trim_ascii_end();
            if !page.data.is_empty() {
                text.extend_from_slice(body);
                text.push(b'\n');
            }
            match page.next_cursor {
                None => break,
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(format!(
                        "Phoenix sent the page cursor `{next}` twice for project `{}`; stopped \
                         rather than read the same spans again",
                        self.project
                    ))
                }
                Some(next) => cursor = Some(next),
            }
        }
        if spans == 0 {
            let range = if self.filters.is_empty() {
                String::new()
            } else {
                format!(" matching {}", self.filters.join("&"))
            };
            return Err(format!(
                "Phoenix project `{}` has no spans{range}: nothing to check",
                self.project
            ));
        }
        Ok(Loaded::Bytes(text, None))
    }
}

impl Project {
    /// Why Phoenix answered `status`, from the `detail` FastAPI puts in an error's body.
    fn refused(&self, status: u16, body: &[u8], had_key: bool) -> String {
        let detail = serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("detail").cloned())
            .map(|d| match d {
                serde_json::Value::String(s) => s,
                // A validation error: a list of `{loc, msg}`.
                serde_json::Value::Array(items) => items
                    .iter()
                    .filter_map(|i| {
                        let msg = i.get("msg")?.as_str()?;
                        let at = i.get("loc").and_then(|l| l.as_array()?.last()?.as_str());
                        Some(at.map_or_else(|| msg.to_string(), |at| format!("{at}: {msg}")))
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
                other => other.to_string(),
            })
            .unwrap_or_else(|| {
                let text = String::from_utf8_lossy(body);
                text.chars().take(200).collect()
            });
        let status_detail = if detail.is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {detail}")
        };
        match status {
            401 | 403 if had_key => {
                format!("Phoenix refused the API key in PHOENIX_API_KEY ({status_detail})")
            }
            401 | 403 => {
                format!("Phoenix wants an API key: set PHOENIX_API_KEY to one ({status_detail})")
            }
            404 => format!(
                "Phoenix has no project `{}` at {} ({status_detail})",
                self.project, self.base
            ),
            _ => format!(
                "Phoenix answered {status_detail} (project `{}`)",
                self.project
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_url_is_read_with_its_prefix_tab_and_filters() {
        let p = read_url(
            "phoenix+https://ph.example.com/s/team/projects/UHJvamVjdDox/spans?start_time=2026-12-01T00:00:00+01:00&span_kind=LLM#x",
        )
        .expect("a project URL");
        assert_eq!(
            p,
            Project {
                base: "https://ph.example.com/s/team".into(),
                project: "UHJvamVjdDox".into(),
                filters: vec![
                    "start_time=2026-12-01T00:00:00%2B01:00".into(),
                    "span_kind=LLM".into()
                ],
                page: 1000,
            }
        );
        assert_eq!(
            p.page_url(Some("U3Bhbjo1")),
            "https://ph.example.com/s/team/v1/projects/UHJvamVjdDox/spans?limit=1000&start_time=2026-12-01T00:00:00%2B01:00&span_kind=LLM&cursor=U3Bhbjo1"
        );
    }

    #[test]
    fn an_ipv6_host_is_kept_as_written() {
        let p = read_url("phoenix+http://[::1]:6006/projects/default").expect("a URL");
        assert_eq!(p.base, "http://[::1]:6006");
    }

    #[test]
    fn a_project_name_is_escaped_once_and_the_page_size_kept() {
        let p =
            read_url("phoenix+http://127.0.0.1:6006/projects/my%20agent?limit=2").expect("a URL");
        assert_eq!(p.project, "my agent");
        assert_eq!(
            p.page_url(None),
            "http://127.0.0.1:6006/v1/projects/my%20agent/spans?limit=2"
        );
    }

    #[test]
    fn urls_without_a_project_or_with_unknown_filters_say_what_to_write() {
        for (url, says) in [
            ("phoenix+http://127.0.0.1:6006", "name a project"),
            ("phoenix+http://127.0.0.1:6006/projects/", "name a project"),
            ("phoenix+http:///projects/p", "no host"),
            (
                "phoenix+https://me:secret@h/projects/p",
                "PHOENIX_API_KEY instead",
            ),
            (
                "phoenix+http://h/projects/p?start=2026-01-01",
                "`start` is not a filter",
            ),
            (
                "phoenix+http://h/projects/p?limit=0",
                "`limit` is the spans per page",
            ),
            ("phoenix+http://h/projects/p?limit=1001", "1 to 1000"),
        ] {
            let message = read_url(url).expect_err(url);
            assert!(message.contains(says), "{url}: {message}");
        }
    }

    #[test]
    fn refusals_name_the_project_and_the_key_but_never_show_it() {
        let p = read_url("phoenix+http://127.0.0.1:6006/projects/nope").expect("a URL");
        let missing = p.refused(
            404,
            br#"{"detail":"Project with name nope not found"}"#,
            false,
        );
        assert_eq!(
            missing,
            "Phoenix has no project `nope` at http://127.0.0.1:6006 (HTTP 404: Project with name nope not found)"
        );
        assert!(p.refused(401, b"", false).contains("set PHOENIX_API_KEY"));
        assert!(p
            .refused(403, b"", true)
            .contains("refused the API key in PHOENIX_API_KEY"));
        let invalid = p.refused(
            422,
            br#"{"detail":[{"loc":["query","start_time"],"msg":"Input should be a valid datetime"}]}"#,
            false,
        );
        assert!(
            invalid.starts_with(
                "Phoenix answered HTTP 422: start_time: Input should be a valid datetime"
            ),
            "{invalid}"
        );
    }
}
