use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::{self, Provider};
use crate::transcript::Conversation;

declare_rule! {
    /// ## What it does
    /// Reports, in a Responses request that sets `"store": false`, an item the provider would
    /// have to look up by its server id, since nothing of it is in the request:
    ///
    /// - an `item_reference` item (`{"type": "item_reference", "id": "msg_…"}`);
    /// - a `reasoning` item with a server id (`rs_…`) but no `encrypted_content`.
    ///
    /// A reasoning item that carries its `encrypted_content` is not reported: that is the
    /// stateless pattern OpenAI documents for `store: false` (request
    /// `include: ["reasoning.encrypted_content"]` and send the reasoning items back). A
    /// request that leaves `store` out is stored by default, and is not reported either.
    ///
    /// ## Why it matters
    /// Under `store: false` the provider keeps no items, so it finds none to resolve these
    /// by, and the request fails (HTTP 404, `invalid_request_error`): "Item with id
    /// 'rs_0b5f3eb6f51f175c0169ca74e4a85881998539920821603a74' not found. Items are not
    /// persisted when `store` is set to false. Try again with `store` set to true, or remove
    /// this item from your input." The same text names `msg_` ids of `item_reference`s
    /// ("Item with id 'msg_abc123' not found. Items are not persisted when `store` is set to
    /// false.", opencode-openai-codex-auth's documentation). Reported for reasoning items sent
    /// without their encrypted content in openai/openai-agents-python#2020 ("Item with id
    /// `rs_` not found") and openai/openai-agents-js#546 (a `store: false` request, "404 Item
    /// with id 'rs_096368…' not found. Items are not persisted when `store` is set to
    /// false. …"); clients that replay stored items as `item_reference`s (the AI SDK) hit it
    /// when `store` is turned off. Every later request of the conversation fails the same
    /// way.
    ///
    /// ## Example
    /// ```json
    /// {"model": "gpt-5", "store": false, "input": [
    ///   {"role": "user", "content": "Summarise the report."},
    ///   {"type": "item_reference", "id": "msg_68b1f0a2c3d4e5f6"},
    ///   {"role": "user", "content": "Shorter, please."}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: the item's content is on no file toolcheck reads. Send the item itself instead
    /// of a reference (for reasoning items: request `include: ["reasoning.encrypted_content"]`
    /// and send the `encrypted_content` back), leave the item out, or set `store: true`.
    pub struct UnpersistedItemReference {
        code: "TC512",
        name: "unpersisted-item-reference",
        severity: Error,
        fix: None,
        rejected_by: [OpenaiResponses],
        summary: "under `store: false`, an item only the server could resolve by id: an `item_reference`, or a reasoning item without `encrypted_content` (OpenAI Responses)",
    }
}

impl Rule for UnpersistedItemReference {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        if conv.stored.store != Some(false) {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::OpenaiResponses]) else {
            return;
        };
        let rejects = provider::list(&verdict.1);
        for (loc, id) in &conv.stored.references {
            let named = id
                .as_deref()
                .map_or_else(String::new, |id| format!(" \"{id}\""));
            out.push(
                Finding::at(
                    &Self::META,
                    loc,
                    format!(
                        "`item_reference`{named} names an item stored on the server, but the request sets `store: false`, so no item is stored; {rejects} rejects it (\"Items are not persisted when `store` is set to false.\")"
                    ),
                )
                .help("send the referenced item itself, leave the reference out, or set `store: true`")
                .rejected_by(verdict.clone()),
            );
        }
        for item in &conv.reasoning.items {
            let (Some(id), false) = (&item.id, item.encrypted) else {
                continue;
            };
            out.push(
                Finding::at(
                    &Self::META,
                    &item.loc,
                    format!(
                        "`reasoning` item \"{id}\" has no `encrypted_content`, so the provider must look it up by id, but the request sets `store: false`; {rejects} rejects it (\"Item with id '{id}' not found. Items are not persisted when `store` is set to false.\")"
                    ),
                )
                .help("request `include: [\"reasoning.encrypted_content\"]` and send the reasoning item back with its `encrypted_content`, leave it out, or set `store: true`")
                .rejected_by(verdict.clone()),
            );
        }
    }
}
