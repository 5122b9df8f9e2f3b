//! Where a trace recorded a node: the span (trace id, span id) and the attribute holding it,
//! as the adapter that read the trace knows them. Rules never look at it; the pipeline puts
//! it on every finding whose node it covers, so reports name the span beside the line.

use super::Loc;
use serde::Serialize;

/// A span of a trace, and the attribute (or field, or event) of it that holds a node:
/// `{trace_id, span_id, attribute}` in the JSON output, each as the file writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpanRef {
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    /// `gen_ai.input.messages`, `llm.input_messages.0.message.content`, Langfuse's `input`;
    /// `None` for the span as a whole.
    pub attribute: Option<String>,
}

impl SpanRef {
    /// The span `span_id` of `trace_id`, its node in `attribute`; ids are given in hex as
    /// OTLP writes them: the `0x` `ConsoleSpanExporter` prints is dropped, and the base64 of
    /// protobuf's JSON (a 16-byte trace id, an 8-byte span id) decoded.
    pub fn new(trace_id: Option<&str>, span_id: Option<&str>, attribute: Option<&str>) -> Self {
        SpanRef {
            trace_id: trace_id.map(|id| hex_id(id, 16)),
            span_id: span_id.map(|id| hex_id(id, 8)),
            attribute: attribute.map(str::to_string),
        }
    }

    /// `span 5f2c1a2b…/a1b2c3d4e5f60718, gen_ai.input.messages`: a trace id cropped to its
    /// first eight characters, for one line of text (the JSON output has it whole).
    pub fn brief(&self) -> String {
        let id = |id: &Option<String>| match id.as_deref() {
            None => "?".to_string(),
            Some(id) if id.chars().count() > 16 => {
                let head: String = id.chars().take(8).collect();
                format!("{head}…")
            }
            Some(id) => id.to_string(),
        };
        let mut out = format!("span {}/{}", id(&self.trace_id), id(&self.span_id));
        if let Some(attribute) = &self.attribute {
            out.push_str(", ");
            out.push_str(attribute);
        }
        out
    }
}

/// An id in hex: as written when it is, without a `0x`, or decoded from the base64 of
/// `bytes` bytes; anything else as written.
fn hex_id(id: &str, bytes: usize) -> String {
    let bare = id.strip_prefix("0x").unwrap_or(id);
    if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_hexdigit()) {
        return bare.to_string();
    }
    match base64(id) {
        Some(decoded) if decoded.len() == bytes => {
            decoded.iter().map(|b| format!("{b:02x}")).collect()
        }
        _ => id.to_string(),
    }
}

/// Standard base64 (padded or not), `None` when the text is not.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

/// The nodes under `loc` (the same document, a pointer prefix of theirs) were read from
/// `span`.
#[derive(Debug, Clone)]
pub struct Origin {
    pub loc: Loc,
    pub span: SpanRef,
}

impl Origin {
    pub fn new(loc: Loc, span: SpanRef) -> Origin {
        Origin { loc, span }
    }

    /// The nodes under `loc` were read from the span `span_id` of `trace_id`, in
    /// `attribute`.
    pub fn at(
        loc: Loc,
        trace_id: Option<&str>,
        span_id: Option<&str>,
        attribute: Option<&str>,
    ) -> Origin {
        Origin::new(loc, SpanRef::new(trace_id, span_id, attribute))
    }

    /// Where a record of a trace API (a Langfuse observation, a LangSmith run) at `loc`
    /// holds its nodes: the record, and its request and response fields.
    pub fn record(
        loc: &Loc,
        trace_id: Option<&str>,
        id: Option<&str>,
        fields: [&str; 2],
    ) -> Vec<Origin> {
        std::iter::once(Origin::at(loc.clone(), trace_id, id, None))
            .chain(fields.map(|f| Origin::at(loc.child(f), trace_id, id, Some(f))))
            .collect()
    }
}

/// The span a node was read from: the origin covering it most closely (an attribute's over
/// its span's).
pub fn span_at<'a>(origins: &'a [Origin], loc: &Loc) -> Option<&'a SpanRef> {
    origins
        .iter()
        .filter(|o| o.loc.base == loc.base && covers(&o.loc.pointer, &loc.pointer))
        .max_by_key(|o| o.loc.pointer.len())
        .map(|o| &o.span)
}

/// Whether the pointer `outer` is `inner` or one of its ancestors.
fn covers(outer: &str, inner: &str) -> bool {
    match inner.strip_prefix(outer) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(attribute: Option<&str>) -> SpanRef {
        SpanRef::new(
            Some("5f2c1a2b3c4d5e6f7a8b9c0d1e2f3a4b"),
            Some("a1b2"),
            attribute,
        )
    }

    #[test]
    fn ids_are_hex() {
        let span = SpanRef::new(Some("0x1e55aa"), Some("7uGbfsPBsQM="), None);
        assert_eq!(span.trace_id.as_deref(), Some("1e55aa"));
        assert_eq!(span.span_id.as_deref(), Some("eee19b7ec3c1b103"));
        // Not an id of the right size: as written.
        let other = SpanRef::new(Some("run-1"), Some("obs_2"), None);
        assert_eq!(other.brief(), "span run-1/obs_2");
    }

    #[test]
    fn the_closest_origin_wins() {
        let origins = [
            Origin::new(Loc::new(0, "/spans/1"), span(None)),
            Origin::new(
                Loc::new(0, "/spans/1/attributes/3/value"),
                span(Some("gen_ai.input.messages")),
            ),
        ];
        let at = |base, p: &str| span_at(&origins, &Loc::new(base, p)).map(SpanRef::brief);
        assert_eq!(
            at(0, "/spans/1/attributes/3/value/stringValue").as_deref(),
            Some("span 5f2c1a2b…/a1b2, gen_ai.input.messages")
        );
        assert_eq!(
            at(0, "/spans/1/status").as_deref(),
            Some("span 5f2c1a2b…/a1b2")
        );
        assert_eq!(at(0, "/spans/10"), None);
        assert_eq!(at(7, "/spans/1"), None);
    }
}
