//! Turning fix intents into byte edits. The generic planner here serves every format whose
//! messages are elements of an array (or whole JSONL records); a format supplies the JSON of
//! the results it inserts through its [`Dialect`], and may plan differently altogether
//! (Claude Code re-links lines).

use crate::tree::Value as Tree;
use serde_json::Value as Json;

use super::json_edit::{self, split_index};
use crate::finding::{Edit, FixIntent};
use crate::source::SourceFile;
use crate::transcript::{Loc, ToolCall};

/// A call as it sits in the file, for shaping the result inserted to answer it.
pub struct CallSite<'a, 't> {
    pub call: &'a ToolCall,
    /// The call element (`tool_calls[i]`, a `tool_use` block, a `function_call` item...).
    pub element: &'a Tree<'t>,
    /// The whole JSONL record holding it, for JSONL files.
    pub record: Option<&'a Tree<'t>>,
    cx: &'a EditContext<'t>,
    message: std::cell::OnceCell<Option<std::rc::Rc<Tree<'t>>>>,
}

impl<'t> CallSite<'_, 't> {
    /// The message holding the call (the same as the element when the call is a message
    /// or item), parsed when first asked for: most formats never ask, and the message of
    /// 100 000 calls is a tree a hundred megabytes large.
    pub fn message(&self) -> Option<&Tree<'t>> {
        self.message
            .get_or_init(|| self.cx.value_at(&self.call.message))
            .as_deref()
    }
}

/// The JSON a format writes when a fix adds or wraps a result: what the generic planner asks
/// of a format, in the dialect of the file (casing, SDK version, envelope). Every method has a
/// default meaning "this format has no such shape", so a format overrides only what it has.
pub trait Dialect {
    /// The message (or item, or record) this format inserts after a call's turn to answer
    /// the call at `site` with an error saying `text`. `None` when the format cannot answer
    /// that call.
    fn interrupted_result(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        self.result_message(self.interrupted_block(site, text)?)
    }

    /// For formats whose results are blocks inside messages: the result block itself, which
    /// a fix may put at the front of the message that already answers the call's turn.
    fn interrupted_block(&self, _site: &CallSite<'_, '_>, _text: &str) -> Option<Json> {
        None
    }

    /// A message wrapping one result block, for formats whose results are blocks inside
    /// messages (moving a result then creates a message around it). `None` where a result
    /// is a message of its own.
    fn result_message(&self, _block: Json) -> Option<Json> {
        None
    }

    /// The content of a result that says `text`, for filling an error result left empty.
    /// `None` where the format has no such repair.
    fn error_content(&self, _text: &str) -> Option<Json> {
        None
    }
}

/// What an adapter's planner sees: the file, and whether it is JSONL.
pub struct EditContext<'a> {
    pub source: &'a SourceFile,
    pub jsonl: bool,
    /// Values parsed for planning, by location: the message of a call is shared by every
    /// call in it, so a turn of N unanswered calls parses it once, not N times.
    parsed: std::cell::RefCell<foldhash::HashMap<Loc, std::rc::Rc<Tree<'a>>>>,
}

impl<'a> EditContext<'a> {
    pub fn new(source: &'a SourceFile, jsonl: bool) -> Self {
        EditContext {
            source,
            jsonl,
            parsed: Default::default(),
        }
    }

    /// The value at `loc`, parsed once per conversation: for nodes many fixes share
    /// (messages, records).
    pub fn value_at(&self, loc: &Loc) -> Option<std::rc::Rc<Tree<'a>>> {
        if let Some(value) = self.parsed.borrow().get(loc) {
            return Some(value.clone());
        }
        let value = self.parse_at(loc)?;
        self.parsed.borrow_mut().insert(loc.clone(), value.clone());
        Some(value)
    }

    /// The value at `loc`, parsed for one fix and not kept: a cache of every call's element
    /// would hold a tree per finding until the conversation is planned.
    pub fn parse_at(&self, loc: &Loc) -> Option<std::rc::Rc<Tree<'a>>> {
        let text = json_edit::value_text(&self.source.text, loc.base, &loc.pointer)?;
        Some(std::rc::Rc::new(crate::json::parse(text).ok()?.value))
    }
}

/// The text of a result inserted for a call that has none: what is known, no more (the call
/// may have run, half-run or never started).
pub const INTERRUPTED: &str = "Error: no result was recorded for this call; it may or may not have run, so check its effects before relying on it or running it again (inserted by toolcheck)";

/// The text of an error result that the tool left without content.
pub const NO_DETAILS: &str = "Error: the tool failed without an error message (noted by toolcheck)";

/// Stands for a moved block inside a new message, replaced by the block's own text.
const PLACEHOLDER: &str = "\u{1}toolcheck-moved-block\u{1}";

/// The default planner, for a format speaking `dialect`.
pub fn generic(
    dialect: &dyn Dialect,
    intent: &FixIntent,
    cx: &EditContext<'_>,
) -> Option<Vec<Edit>> {
    let text = cx.source.text.as_str();
    match intent {
        FixIntent::Replace { at, text: new } => Some(vec![json_edit::replace_value(
            text,
            at.base,
            &at.pointer,
            new.clone(),
        )?]),
        FixIntent::AddMember { object, key, value } => Some(vec![json_edit::insert_member(
            text,
            object.base,
            &object.pointer,
            key,
            value,
        )?]),
        FixIntent::RemoveMember { object, key } => Some(vec![json_edit::remove_member(
            text,
            object.base,
            &object.pointer,
            key,
        )?]),
        FixIntent::RemoveResult { result, message }
        | FixIntent::RemoveCall {
            call: result,
            message,
        } => Some(vec![remove_from_message(cx, result, message)?]),
        FixIntent::InsertResult {
            call,
            after,
            before,
        } => {
            let element = cx.parse_at(&call.loc)?;
            let record = if cx.jsonl {
                cx.value_at(&Loc::new(call.loc.base, ""))
            } else {
                None
            };
            let site = CallSite {
                call,
                element: &element,
                record: record.as_deref(),
                cx,
                message: std::cell::OnceCell::new(),
            };
            // Into the message that already answers the call's turn, ahead of what is there;
            // else a message of its own after the call's turn.
            let in_place = before.as_ref().and_then(|before| {
                let block = dialect.interrupted_block(&site, INTERRUPTED)?;
                let (parent, index) = split_index(&before.pointer)?;
                json_edit::insert_element(text, before.base, parent, index, &block)
            });
            if let Some(edit) = in_place {
                return Some(vec![edit]);
            }
            let value = dialect.interrupted_result(&site, INTERRUPTED)?;
            Some(vec![insert_after(cx, after, &value)?])
        }
        FixIntent::FillErrorResult { content } => {
            let value = dialect.error_content(NO_DETAILS)?;
            let rendered = json_edit::render(&value, &json_edit::Style::Compact { spaced: true });
            Some(vec![json_edit::replace_value(
                text,
                content.base,
                &content.pointer,
                rendered,
            )?])
        }
        FixIntent::GatherResults {
            into,
            results,
            messages,
        } => gather(cx, into, results, messages),
        FixIntent::MoveResult {
            result,
            message,
            after,
            before,
        } => {
            let removal = remove_from_message(cx, result, message)?;
            let original = json_edit::value_text(text, result.base, &result.pointer)?;
            let into_next = before
                .as_ref()
                .filter(|_| result != message)
                .and_then(|before| {
                    // Into the next turn's message, ahead of what is there.
                    let (parent, index) = split_index(&before.pointer)?;
                    json_edit::insert_text(text, before.base, parent, index, original)
                });
            let insertion = if let Some(edit) = into_next {
                edit
            } else if result == message {
                insert_text_after(cx, after, original)?
            } else {
                let wrapper = dialect.result_message(Json::String(PLACEHOLDER.into()))?;
                let mut edit = insert_after(cx, after, &wrapper)?;
                let quoted = serde_json::to_string(PLACEHOLDER).ok()?;
                edit.content = edit.content.replace(&quoted, original);
                edit
            };
            Some(vec![removal, insertion])
        }
        FixIntent::MoveBlocks { blocks, before } => {
            let (parent, to) = split_index(&before.pointer)?;
            let mut from = Vec::with_capacity(blocks.len());
            for block in blocks {
                match split_index(&block.pointer) {
                    Some((p, index)) if p == parent && block.base == before.base => {
                        from.push(index)
                    }
                    _ => return None,
                }
            }
            Some(vec![json_edit::move_elements(
                text,
                before.base,
                parent,
                &from,
                to,
            )?])
        }
    }
}

/// Appends `results` to the array holding the block `into`, and removes `messages`: the
/// elements right after the message holding `into`, in order, which hold nothing else. Two
/// edits that do not touch: an insertion at the end of the array, and one removal from the
/// end of that message to the end of the last removed one.
fn gather(
    cx: &EditContext<'_>,
    into: &Loc,
    results: &[Loc],
    messages: &[Loc],
) -> Option<Vec<Edit>> {
    let text = cx.source.text.as_str();
    let (array, _) = split_index(&into.pointer)?;
    let (message, _) = array.rsplit_once('/')?;
    let (msg_parent, msg_index) = split_index(message)?;
    // The removed messages must be the very next elements of the same array.
    for (k, loc) in messages.iter().enumerate() {
        let (parent, index) = split_index(&loc.pointer)?;
        if loc.base != into.base || parent != msg_parent || index != msg_index + 1 + k {
            return None;
        }
    }
    let last = messages.last()?;
    let (arr_start, arr_end) = crate::pointer::locate(text, into.base, array)?;
    let count = json_edit::elements(text, arr_start, arr_end)?.len();
    if count == 0 {
        return None;
    }
    let mut insertion: Option<Edit> = None;
    for result in results {
        let original = json_edit::value_text(text, result.base, &result.pointer)?;
        let edit = json_edit::insert_text(text, into.base, array, count, original)?;
        match &mut insertion {
            Some(first) if first.start == edit.start => first.content.push_str(&edit.content),
            Some(_) => return None,
            None => insertion = Some(edit),
        }
    }
    let (_, message_end) = crate::pointer::locate(text, into.base, message)?;
    let (_, last_end) = crate::pointer::locate(text, last.base, &last.pointer)?;
    let removal = Edit {
        start: message_end,
        end: last_end,
        content: String::new(),
    };
    Some(vec![insertion?, removal])
}

/// Removes `node` from its message, or the whole message when `node` is its only element
/// (or is the message itself).
pub fn remove_from_message(cx: &EditContext<'_>, node: &Loc, message: &Loc) -> Option<Edit> {
    if node == message || is_only_element(cx, node) {
        remove_node(cx, message)
    } else {
        remove_node(cx, node)
    }
}

fn is_only_element(cx: &EditContext<'_>, node: &Loc) -> bool {
    let Some((parent, _)) = split_index(&node.pointer) else {
        return false;
    };
    let text = cx.source.text.as_str();
    crate::pointer::locate(text, node.base, parent)
        .and_then(|(s, e)| json_edit::elements(text, s, e))
        .is_some_and(|els| els.len() == 1)
}

/// Removes an array element, or a whole JSONL record.
pub fn remove_node(cx: &EditContext<'_>, node: &Loc) -> Option<Edit> {
    if split_index(&node.pointer).is_some() {
        return json_edit::remove_element(&cx.source.text, node.base, &node.pointer);
    }
    if cx.jsonl {
        let (start, end) = record_lines(cx, node.base);
        return Some(Edit {
            start,
            end,
            content: String::new(),
        });
    }
    None
}

/// The lines of the record that starts at `base`, with the last one's terminator: one line
/// in JSONL, several for a pretty-printed record among concatenated ones.
fn record_lines(cx: &EditContext<'_>, base: usize) -> (usize, usize) {
    let (start, _) = cx
        .source
        .line_range_with_terminator(cx.source.line_index(base));
    let (_, end) = cx
        .source
        .line_range_with_terminator(record_last_line(cx, base));
    (start, end)
}

/// The line the record that starts at `base` ends on (its first, unless it spans several).
fn record_last_line(cx: &EditContext<'_>, base: usize) -> usize {
    let first = cx.source.line_index(base);
    crate::pointer::locate(&cx.source.text, base, "")
        .map_or(first, |(_, end)| {
            cx.source.line_index(end.saturating_sub(1))
        })
        .max(first)
}

/// Inserts `value` right after the element (or JSONL record) `after`.
pub fn insert_after(cx: &EditContext<'_>, after: &Loc, value: &Json) -> Option<Edit> {
    if let Some((parent, index)) = split_index(&after.pointer) {
        return json_edit::insert_element(&cx.source.text, after.base, parent, index + 1, value);
    }
    let line = serde_json::to_string(value).ok()?;
    insert_record_after(cx, after, &line)
}

fn insert_text_after(cx: &EditContext<'_>, after: &Loc, element: &str) -> Option<Edit> {
    if let Some((parent, index)) = split_index(&after.pointer) {
        return json_edit::insert_text(&cx.source.text, after.base, parent, index + 1, element);
    }
    insert_record_after(cx, after, element)
}

/// A new JSONL line after the record holding `after`.
pub fn insert_record_after(cx: &EditContext<'_>, after: &Loc, line: &str) -> Option<Edit> {
    if !cx.jsonl || line.contains('\n') {
        return None;
    }
    let (_, end) = cx.source.line_range(record_last_line(cx, after.base));
    let ending = json_edit::line_ending(&cx.source.text);
    // After a last line cut off before its newline, the record ends with one itself: an
    // agent's next `record + "\n"` would otherwise fuse with it.
    let closing = if end == cx.source.text.len() {
        ending
    } else {
        ""
    };
    Some(Edit {
        start: end,
        end,
        content: format!("{ending}{line}{closing}"),
    })
}
