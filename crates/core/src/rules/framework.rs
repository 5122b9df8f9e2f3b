//! The rule framework: what a rule is (`Rule`, `declare_rule!`), what it sees besides the
//! conversation (`Context`: tool definitions, compiled schemas, options, targets, and what
//! several rules share, computed once per conversation), the options rules read, and small
//! helpers for their messages. The catalog is `rules/mod.rs`.

use std::cell::OnceCell;

use super::pairing;
use crate::finding::{Finding, Severity};
use crate::rule_meta::RuleMeta;
use crate::schema::SchemaCache;
use crate::source::SourceFile;
use crate::transcript::{Arguments, Conversation, Loc, ParsedArgs, ToolCall, ToolDef};

/// What makes two failed calls "the same" for `repeated-failing-call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LoopMatch {
    /// Equal arguments after parsing.
    Args,
    /// The same error text.
    Error,
    /// Either of the two.
    #[default]
    Either,
}

/// How `unpaired-tool-call` repairs a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum UnpairedFix {
    /// Insert an error result saying the call was interrupted (safe).
    #[default]
    InsertResult,
    /// Remove the call (unsafe).
    RemoveCall,
}

/// Settings rules read.
#[derive(Debug, Clone)]
pub struct RuleOptions {
    /// How many consecutive matching failures make a loop.
    pub loop_threshold: usize,
    pub loop_match: LoopMatch,
    pub unpaired: UnpairedFix,
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            loop_threshold: 3,
            loop_match: LoopMatch::Either,
            unpaired: UnpairedFix::InsertResult,
        }
    }
}

type CompiledByTool =
    foldhash::HashMap<*const ToolDef, Option<std::sync::Arc<crate::schema::Compiled>>>;

type CheckedByCall = foldhash::HashMap<*const ToolCall, std::sync::Arc<crate::schema::Checked>>;

/// Each call's arguments as read once for every rule, keyed by the call's address (stable
/// while the conversation is borrowed): what they are, with the parse of those that are no
/// object (few and small: the findings of the rules that ask for them), and what checking
/// the objects against their tools' schemas found, when a selected rule reads that.
struct ReadCalls {
    kinds: foldhash::HashMap<*const ToolCall, (ArgsKind, Option<std::rc::Rc<ParsedArgs>>)>,
    /// `None` when no selected rule reads the schema checks.
    checked: Option<CheckedByCall>,
}

/// What a call's arguments are, without their value: what most rules tell them apart by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsKind {
    /// A JSON object; `empty` when it has no members.
    Object { empty: bool },
    /// Null, missing, or an empty string.
    Empty,
    /// Parses to something other than an object.
    NotObject,
    /// Not JSON at all.
    Invalid,
    /// Nested deeper than toolcheck reads.
    TooDeep,
}

impl ArgsKind {
    fn of(parsed: &ParsedArgs) -> ArgsKind {
        match parsed {
            ParsedArgs::Object(v) => ArgsKind::Object {
                empty: v.as_object().is_some_and(serde_json::Map::is_empty),
            },
            ParsedArgs::Empty => ArgsKind::Empty,
            ParsedArgs::NotObject(_) => ArgsKind::NotObject,
            ParsedArgs::Invalid { .. } => ArgsKind::Invalid,
            ParsedArgs::TooDeep => ArgsKind::TooDeep,
        }
    }
}

/// A finding's severity and the providers that reject it.
pub type Verdict = (Severity, Vec<crate::provider::Provider>);

/// The providers a history held to no single provider is judged against.
const MAJOR: [crate::provider::Provider; 4] = {
    use crate::provider::Provider::*;
    [Openai, Anthropic, Gemini, Bedrock]
};

/// What a rule sees besides the conversation.
pub struct Context<'a> {
    /// Tool definitions from `--tools`.
    pub extra_tools: &'a [ToolDef],
    /// Compiled tool schemas, shared by every file and thread of a run.
    pub schemas: &'a SchemaCache,
    pub options: &'a RuleOptions,
    /// The providers the conversation is held to: `--target`, or its format's own.
    pub targets: &'a [crate::provider::Provider],
    pairs: OnceCell<pairing::Pairs>,
    /// Whether the conversation spans several JSONL records, computed once.
    spans_records: OnceCell<bool>,
    /// Each tool's compiled schema, looked up in the run's cache once per conversation rather
    /// than once per call (a lookup hashes the whole schema).
    compiled: std::cell::RefCell<CompiledByTool>,
    /// Each call's arguments read once per conversation, for every rule (see [`ReadCalls`]).
    calls: OnceCell<ReadCalls>,
    /// Whether that pass checks the calls against their schemas too (see
    /// [`Rule::checks_schemas`]); when not, a rule that asks anyway has them checked then.
    schema_checks: bool,
    /// The calls checked when a rule asked though the pass did not check them.
    checked_late: OnceCell<CheckedByCall>,
    conv: &'a Conversation,
    source: Option<&'a SourceFile>,
    /// Whether the conversation reaches a chat model at all (`Format::sent_to_a_model`):
    /// when not, no provider rejects anything in it.
    to_a_model: bool,
    /// Whether the user named the targets (`--target`, `target` in the config), rather than
    /// toolcheck taking them from the format, a trace or the model: where a history cannot
    /// show a setting (whether thinking was on), a named target holds it to the stricter
    /// behaviour.
    pub named_targets: bool,
}

impl<'a> Context<'a> {
    pub fn new(
        conv: &'a Conversation,
        extra_tools: &'a [ToolDef],
        schemas: &'a SchemaCache,
        options: &'a RuleOptions,
        targets: &'a [crate::provider::Provider],
        source: Option<&'a SourceFile>,
    ) -> Self {
        Context {
            extra_tools,
            schemas,
            options,
            targets,
            pairs: OnceCell::new(),
            spans_records: OnceCell::new(),
            compiled: Default::default(),
            calls: OnceCell::new(),
            schema_checks: true,
            checked_late: OnceCell::new(),
            to_a_model: conv.format.sent_to_a_model(),
            conv,
            source,
            named_targets: false,
        }
    }

    /// Records whether a selected rule reads the schema checks (see [`Rule::checks_schemas`]).
    pub fn schema_checks(mut self, wanted: bool) -> Self {
        self.schema_checks = wanted;
        self
    }

    /// Records whether the user named the targets (see `named_targets`).
    pub fn targeted(mut self, named: bool) -> Self {
        self.named_targets = named;
        self
    }

    /// Whether a finding that `rejecting` providers reject matters here, and how much: an
    /// error naming the targets that reject it; a warning naming every provider that would,
    /// for histories held to no single provider (Vercel AI SDK, LangChain) when none is
    /// targeted; `None` when every target accepts it, and for traffic no model receives as it
    /// stands (an MCP log).
    pub fn judge(
        &self,
        rejecting: &[crate::provider::Provider],
    ) -> Option<(Severity, Vec<crate::provider::Provider>)> {
        if !self.to_a_model {
            return None;
        }
        if self.targets.is_empty() {
            // Held to no single provider (Vercel AI SDK, LangChain): to the major providers
            // such histories are translated for (others only when targeted), and an error
            // only where every one of them rejects.
            let hits: Vec<_> = rejecting
                .iter()
                .copied()
                .filter(|p| MAJOR.contains(p))
                .collect();
            let all = MAJOR.iter().all(|p| hits.contains(p));
            let severity = if all {
                Severity::Error
            } else {
                Severity::Warning
            };
            return (!hits.is_empty()).then_some((severity, hits));
        }
        // Gemini on Vertex AI rejects whatever Gemini rejects.
        use crate::provider::Provider::{Gemini, GeminiVertex};
        let vertex = (rejecting.contains(&Gemini) && !rejecting.contains(&GeminiVertex))
            .then_some(GeminiVertex);
        let hits: Vec<_> = rejecting
            .iter()
            .copied()
            .chain(vertex)
            .filter(|p| self.targets.contains(p))
            .collect();
        (!hits.is_empty()).then_some((Severity::Error, hits))
    }

    /// Whether `judge` can name `provider` among those rejecting a finding: none for traffic
    /// no model receives; a target (or Gemini, which names Gemini on Vertex AI); with no
    /// target, one of the major providers.
    fn can_name(&self, provider: crate::provider::Provider) -> bool {
        use crate::provider::Provider::{Gemini, GeminiVertex};
        if !self.to_a_model {
            false
        } else if self.targets.is_empty() {
            MAJOR.contains(&provider)
        } else {
            self.targets.contains(&provider)
                || (provider == Gemini && self.targets.contains(&GeminiVertex))
        }
    }

    /// For a shape that `rejecting` providers reject and `contested` ones have both rejected
    /// and accepted (the Gemini API has accepted what Vertex AI rejects; a model generation
    /// changed its mind): an error naming the rejecting targets when there are any, else a
    /// warning naming the contested ones; `None` when no target minds. The rule's
    /// documentation names the evidence each way and its date.
    pub fn judge_contested(
        &self,
        rejecting: &[crate::provider::Provider],
        contested: &[crate::provider::Provider],
    ) -> Option<Verdict> {
        if !self.to_a_model {
            return None;
        }
        if let Some(verdict) = self.judge(rejecting) {
            return Some(verdict);
        }
        let hits: Vec<_> = if self.targets.is_empty() {
            contested.to_vec()
        } else {
            contested
                .iter()
                .copied()
                .filter(|p| self.targets.contains(p))
                .collect()
        };
        (!hits.is_empty()).then_some((Severity::Warning, hits))
    }

    /// For rules whose limits differ by provider (ids, names): the verdict on a value that
    /// `violation` judges per provider, and the reasons of the providers that count here,
    /// as `"openai (at most 40 characters)"`; `None` when every target accepts it.
    pub fn judge_limits(
        &self,
        violation: impl Fn(crate::provider::Provider) -> Option<String>,
    ) -> Option<(Verdict, Vec<String>)> {
        // Only the providers `judge` can name are asked: a violation's reason is a `String`,
        // and most calls are judged against one target.
        let broken: Vec<(crate::provider::Provider, String)> = crate::provider::Provider::ALL
            .into_iter()
            .filter(|&p| self.can_name(p))
            .filter_map(|p| violation(p.base()).map(|why| (p, why)))
            .collect();
        let rejecting: Vec<crate::provider::Provider> = broken.iter().map(|(p, _)| *p).collect();
        let verdict = self.judge(&rejecting)?;
        let reasons = broken
            .iter()
            .filter(|(p, _)| verdict.1.contains(p))
            .map(|(p, why)| format!("{p} ({why})"))
            .collect();
        Some((verdict, reasons))
    }

    /// How a message names another node: its pointer, prefixed with its line when the
    /// conversation spans several JSONL records (sessions).
    pub fn describe(&self, loc: &Loc) -> String {
        let spans_records = loc.base != self.conv.loc.base
            || *self.spans_records.get_or_init(|| {
                self.conv
                    .turns
                    .iter()
                    .any(|t| t.loc.base != self.conv.loc.base)
            });
        match self.source {
            Some(source) if spans_records => {
                let (line, _) = source.line_col(loc.base);
                format!("line {line}")
            }
            _ if loc.pointer.is_empty() => "the document root".to_string(),
            _ => loc.pointer.to_string(),
        }
    }

    /// What `call`'s arguments are, read once per conversation however many rules ask (a
    /// call whose input is free text, which no rule asks this of, is read each time).
    pub fn args_kind(&self, call: &ToolCall) -> ArgsKind {
        match self.calls().kinds.get(&(call as *const ToolCall)) {
            Some((kind, _)) => *kind,
            None => ArgsKind::of(&call.arguments.parse()),
        }
    }

    /// The parsed arguments of `call`. Arguments that are no object are parsed once per
    /// conversation; an object is parsed again each time it is asked for, which only the
    /// rules that compare calls' values do, for the calls they compare (the schema check
    /// reads each object once, in the pass that reads it).
    pub fn args(&self, call: &ToolCall) -> std::rc::Rc<ParsedArgs> {
        match self.calls().kinds.get(&(call as *const ToolCall)) {
            Some((_, Some(parsed))) => std::rc::Rc::clone(parsed),
            _ => std::rc::Rc::new(call.arguments.parse()),
        }
    }

    /// The compiled schema of `tool` (see `SchemaCache::get`), once per conversation.
    pub fn compiled(&self, tool: &ToolDef) -> Option<std::sync::Arc<crate::schema::Compiled>> {
        let key = tool as *const ToolDef;
        if let Some(hit) = self.compiled.borrow().get(&key) {
            return hit.clone();
        }
        let compiled = self.schemas.get(tool);
        self.compiled.borrow_mut().insert(key, compiled.clone());
        compiled
    }

    /// What checking `call`'s arguments against its tool's schema found; `None` for a call
    /// not checked against a schema (no schema, arguments not an object, `{}` where the schema
    /// requires parameters: other rules' findings).
    pub fn checked(&self, call: &ToolCall) -> Option<std::sync::Arc<crate::schema::Checked>> {
        let checked = match &self.calls().checked {
            Some(checked) => checked,
            None => self.checked_late.get_or_init(|| self.check_calls()),
        };
        checked.get(&(call as *const ToolCall)).cloned()
    }

    fn calls(&self) -> &ReadCalls {
        self.calls.get_or_init(|| self.read_calls())
    }

    /// Reads every call's arguments, in order, whichever rule asks first: each is parsed,
    /// told apart, and checked against its tool's schema, then its value is dropped. Held for
    /// every call at once, the parsed values were a tenth of a big document's peak memory.
    ///
    /// In order, so that the regex budget is spent the same way whatever rules run: once a
    /// schema's pattern exhausted its backtracking limit in this conversation, later calls
    /// give its patterns a lower limit.
    fn read_calls(&self) -> ReadCalls {
        let mut read = ReadCalls {
            kinds: Default::default(),
            checked: self.schema_checks.then(CheckedByCall::default),
        };
        let mut spent = foldhash::HashSet::default();
        for (_, call) in self.conv.json_calls() {
            // A structured object is read where it is, not copied.
            let parsed = match &call.arguments {
                Arguments::Value(v) if v.is_object() => None,
                arguments => Some(arguments.parse()),
            };
            let object = match (&call.arguments, &parsed) {
                (_, Some(ParsedArgs::Object(v))) => Some(v),
                (Arguments::Value(v), None) => Some(&**v),
                _ => None,
            };
            let key = call as *const ToolCall;
            if let Some(object) = object {
                let empty = object.as_object().is_some_and(serde_json::Map::is_empty);
                read.kinds.insert(key, (ArgsKind::Object { empty }, None));
                if let Some(checked) = &mut read.checked {
                    if let Some(outcome) = self.check_call(call, object, empty, &mut spent) {
                        checked.insert(key, outcome);
                    }
                }
            } else if let Some(parsed) = parsed {
                let kind = ArgsKind::of(&parsed);
                read.kinds
                    .insert(key, (kind, Some(std::rc::Rc::new(parsed))));
            }
        }
        read
    }

    /// Checks every call against its tool's schema, in order, each call's arguments parsed
    /// again: for a rule that asks though no selected rule said it would.
    fn check_calls(&self) -> CheckedByCall {
        let mut checked = CheckedByCall::default();
        let mut spent = foldhash::HashSet::default();
        for (_, call) in self.conv.json_calls() {
            let ParsedArgs::Object(object) = call.arguments.parse() else {
                continue;
            };
            let empty = object.as_object().is_some_and(serde_json::Map::is_empty);
            if let Some(outcome) = self.check_call(call, &object, empty, &mut spent) {
                checked.insert(call as *const ToolCall, outcome);
            }
        }
        checked
    }

    /// Checks one call's object of arguments against its tool's schema, if it has one.
    fn check_call(
        &self,
        call: &ToolCall,
        args: &serde_json::Value,
        empty: bool,
        spent: &mut foldhash::HashSet<*const crate::schema::Compiled>,
    ) -> Option<std::sync::Arc<crate::schema::Checked>> {
        let tool = self.conv.tool(self.extra_tools, &call.name)?;
        // `{}` for a tool with required parameters is `empty-arguments`' finding.
        if empty && !tool.required_params().is_empty() {
            return None;
        }
        let compiled = self.compiled(tool)?;
        let key = std::sync::Arc::as_ptr(&compiled);
        let outcome = compiled.check(args, spent.contains(&key));
        if outcome.regex_gave_up {
            spent.insert(key);
        }
        Some(outcome)
    }

    /// How results pair with calls, computed once per conversation and shared by rules.
    pub(crate) fn pairs(&self) -> &pairing::Pairs {
        self.pairs
            .get_or_init(|| pairing::Pairs::analyse(self.conv))
    }
}

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;

    /// Checks one conversation. Rules whose findings come from reading the file (parse
    /// errors, unknown formats) keep the default.
    fn check(&self, _cx: &Context<'_>, _conv: &Conversation, _out: &mut Vec<Finding>) {}

    /// Whether the rule reads what checking calls against their tools' schemas found
    /// ([`Context::checked`]). When a selected rule does, each call is checked in the one
    /// pass that reads its arguments; when none does, no schema is compiled or applied.
    fn checks_schemas(&self) -> bool {
        false
    }
}

/// Declares a rule: its doc comment becomes `RuleMeta::doc`, so the documentation users read
/// with `toolcheck explain` is the doc comment in the source; `rejected_by` names the
/// providers that reject every finding, `judged_by` those a rule that judges each finding
/// itself can name (see [`RuleMeta`]).
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $ty:ident {
            code: $code:literal,
            name: $name:literal,
            severity: $sev:ident,
            fix: $fix:ident,
            $(rejected_by: [$($rejecting:ident),* $(,)?],)?
            $(judged_by: [$($judging:ident),* $(,)?],)?
            summary: $summary:literal $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub struct $ty;

        impl $ty {
            pub const META: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                code: $code,
                name: $name,
                severity: $crate::finding::Severity::$sev,
                fix: $crate::rules::FixAvailability::$fix,
                rejected_by: &[$($($crate::provider::Provider::$rejecting),*)?],
                judged_by: &[$($($crate::provider::Provider::$judging),*)?],
                summary: $summary,
                doc: concat!($($doc, "\n"),*),
            };
        }
    };
}
pub(crate) use declare_rule;

/// A short, human list of quoted ids: `"a", "b", "c" and 4 more`.
pub(crate) fn id_list<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    const SHOWN: usize = 4;
    let mut ids = ids;
    let mut out = ids
        .by_ref()
        .take(SHOWN)
        .map(|id| format!("\"{id}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let more = ids.count();
    if more > 0 {
        out.push_str(&format!(" and {more} more"));
    }
    out
}

/// "an array", "a string"...: what a JSON value is, for messages.
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value as Json;
    match value {
        Json::Array(_) => "an array",
        Json::String(_) => "a string",
        Json::Number(_) => "a number",
        Json::Bool(_) => "a boolean",
        Json::Null => "null",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::json::Doc;
    use crate::schema::SchemaCache;

    /// A request whose tool requires a string `q`: one call of each kind of arguments.
    fn conversation() -> Conversation {
        let value = crate::tree_json!({
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}},
                "required": ["q"]
            }}}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"q\": 5}"}},
                    {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{\"q\": \"ok\"}"}},
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "d", "type": "function", "function": {"name": "f", "arguments": "{\"q\": \"a"}},
                    {"id": "e", "type": "function", "function": {"name": "f", "arguments": "[1]"}}
                ]}
            ]
        });
        let adapter = Format::OpenAiChat.adapter().expect("an adapter");
        let mut convs = adapter
            .normalise(&[Doc {
                base: 0,
                value: &value,
            }])
            .unwrap_or_default();
        convs.pop().expect("one conversation")
    }

    /// What the schema check found of each call, and what each call's arguments are, with
    /// the check folded into the pass that reads them or asked for later.
    fn read(
        conv: &Conversation,
        schema_checks: bool,
    ) -> (Vec<Option<Vec<String>>>, Vec<ArgsKind>, usize) {
        let schemas = SchemaCache::default();
        let options = RuleOptions::default();
        let cx =
            Context::new(conv, &[], &schemas, &options, &[], None).schema_checks(schema_checks);
        let kinds = conv.json_calls().map(|(_, c)| cx.args_kind(c)).collect();
        let compiled_before_asked = schemas.len();
        let checked = conv
            .json_calls()
            .map(|(_, c)| cx.checked(c).map(|checked| checked.violations.clone()))
            .collect();
        (checked, kinds, compiled_before_asked)
    }

    #[test]
    fn arguments_are_read_once_and_checked_only_when_a_rule_reads_the_checks() {
        let conv = conversation();
        let (folded, kinds, compiled) = read(&conv, true);
        assert_eq!(
            kinds,
            [
                ArgsKind::Object { empty: false },
                ArgsKind::Object { empty: false },
                ArgsKind::Object { empty: true },
                ArgsKind::Invalid,
                ArgsKind::NotObject,
            ]
        );
        // Folded in: the schema was compiled in the pass that read the arguments.
        assert_eq!(compiled, 1);
        assert!(
            folded[0].as_ref().is_some_and(|v| !v.is_empty()),
            "{folded:?}"
        );
        assert_eq!(folded[1], Some(Vec::new()));
        // `{}` for a tool with required parameters, and arguments that are no object: not
        // checked against the schema (other rules' findings).
        assert_eq!(folded[2..], [None, None, None]);
        // Not folded in: nothing compiled until a rule asks, and then the same outcomes.
        let (late, late_kinds, compiled) = read(&conv, false);
        assert_eq!(compiled, 0);
        assert_eq!(late_kinds, kinds);
        assert_eq!(late, folded);
    }

    /// A rule that reads the schema checks says so, so that the pass that reads the calls
    /// checks them for it (the checks are still made for one that does not, later).
    #[test]
    fn rules_that_read_the_schema_checks_declare_it() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
        let mut readers = Vec::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "framework.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains("cx.checked(") {
                let declares = text.contains("fn checks_schemas(&self) -> bool {\n        true");
                assert!(
                    declares,
                    "{} reads cx.checked but does not declare checks_schemas",
                    path.display()
                );
                readers.push(path);
            }
        }
        assert_eq!(readers.len(), 2, "{readers:?}");
    }
}
