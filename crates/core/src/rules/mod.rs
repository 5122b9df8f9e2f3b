//! The rule catalog. One file per rule; each rule's doc comment is its user documentation,
//! printed by `toolcheck explain`.

pub use crate::rule_meta::{FixAvailability, RuleMeta};

mod framework;
mod pairing;
mod select;

pub(crate) use framework::{declare_rule, id_list, json_kind};
pub use framework::{ArgsKind, Context, LoopMatch, Rule, RuleOptions, UnpairedFix, Verdict};

mod arguments_mismatch;
mod arguments_not_object;
mod call_turn_out_of_place;
mod content_after_tool_use;
mod content_beside_tool_result;
mod duplicate_tool_call_id;
mod duplicate_tool_result;
mod empty_arguments;
mod empty_assistant_message;
mod empty_error_result;
mod input_not_checked;
mod invalid_arguments_json;
mod invalid_tool_call_id;
mod invalid_tool_name;
mod invalid_tool_schema;
mod invented_tool_result;
mod misplaced_system_message;
mod misplaced_tool_result;
mod missing_thinking_block;
mod missing_tool_config;
mod orphaned_tool_result;
mod parse_error;
mod reasoning_item_content;
mod reasoning_item_without_output;
mod repeated_failing_call;
mod result_count_mismatch;
mod result_name_mismatch;
mod role_alternation;
mod schema_violation;
mod too_many_tools;
mod unanswered_server_tool_use;
mod unknown_format;
mod unknown_tool;
mod unpaired_tool_call;
mod unpersisted_item_reference;
mod unread_tool_structures;
mod unused_suppression;
mod user_after_tool_result;

pub use input_not_checked::InputNotChecked;
pub use parse_error::ParseError;
pub use unknown_format::UnknownFormat;
pub use unread_tool_structures::UnreadToolStructures;
pub use unused_suppression::UnusedSuppression;
// The pairing rules whose findings agents' replay models judge.
pub use duplicate_tool_result::DuplicateToolResult;
pub use orphaned_tool_result::OrphanedToolResult;
pub(crate) use pairing::only_results_after;
pub use unpaired_tool_call::UnpairedToolCall;

pub use select::{resolve_selector, RuleLayer, Selection};

/// Every rule, in catalog order. Adding a rule is one file plus one line here.
pub static RULES: &[&dyn Rule] = &[
    &parse_error::ParseError,
    &unknown_format::UnknownFormat,
    &input_not_checked::InputNotChecked,
    &unused_suppression::UnusedSuppression,
    &unread_tool_structures::UnreadToolStructures,
    &orphaned_tool_result::OrphanedToolResult,
    &unpaired_tool_call::UnpairedToolCall,
    &misplaced_tool_result::MisplacedToolResult,
    &duplicate_tool_call_id::DuplicateToolCallId,
    &duplicate_tool_result::DuplicateToolResult,
    &invalid_tool_call_id::InvalidToolCallId,
    &unanswered_server_tool_use::UnansweredServerToolUse,
    &invalid_arguments_json::InvalidArgumentsJson,
    &empty_arguments::EmptyArguments,
    &arguments_not_object::ArgumentsNotObject,
    &arguments_mismatch::ArgumentsMismatch,
    &schema_violation::SchemaViolation,
    &unknown_tool::UnknownTool,
    &invalid_tool_schema::InvalidToolSchema,
    &invalid_tool_name::InvalidToolName,
    &too_many_tools::TooManyTools,
    &repeated_failing_call::RepeatedFailingCall,
    &invented_tool_result::InventedToolResult,
    &content_after_tool_use::ContentAfterToolUse,
    &missing_thinking_block::MissingThinkingBlock,
    &result_count_mismatch::ResultCountMismatch,
    &call_turn_out_of_place::CallTurnOutOfPlace,
    &missing_tool_config::MissingToolConfig,
    &empty_error_result::EmptyErrorResult,
    &user_after_tool_result::UserAfterToolResult,
    &empty_assistant_message::EmptyAssistantMessage,
    &result_name_mismatch::ResultNameMismatch,
    &role_alternation::RoleAlternation,
    &reasoning_item_without_output::ReasoningItemWithoutOutput,
    &unpersisted_item_reference::UnpersistedItemReference,
    &misplaced_system_message::MisplacedSystemMessage,
    &reasoning_item_content::ReasoningItemContent,
    &content_beside_tool_result::ContentBesideToolResult,
];

/// The rule whose code or name is `key`.
pub fn find(key: &str) -> Option<&'static dyn Rule> {
    RULES.iter().copied().find(|r| {
        let m = r.meta();
        m.code.eq_ignore_ascii_case(key) || m.name == key
    })
}

/// ` (did you mean `orphaned-tool-result`?)` when `key` is close to a rule's name or code, for
/// error messages about unknown rules; empty otherwise.
pub fn did_you_mean(key: &str) -> String {
    did_you_mean_among(key, &[])
}

/// As [`did_you_mean`], with `others` (format names, for `explain`) as candidates too.
pub fn did_you_mean_among(key: &str, others: &[&str]) -> String {
    let key = key.trim().to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    let rule_keys = RULES.iter().flat_map(|r| [r.meta().name, r.meta().code]);
    for candidate in rule_keys.chain(others.iter().copied()) {
        let score = strsim::jaro_winkler(&key, &candidate.to_ascii_lowercase());
        if score >= 0.8 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map_or_else(String::new, |(_, name)| {
        format!(" (did you mean `{name}`?)")
    })
}
