//! The conversations of a Claude Code session, rebuilt the way `claude --resume` does.
//!
//! From the leaf (the last main message record, or the `leafUuid` of a trailing `summary`)
//! follow `parentUuid` back to the root, through link records; a parent outside the file
//! (compaction and sub-agent compaction files) or `null` ends the walk. Records off that chain
//! (branches abandoned by a rewind or an edit) are ignored, except what Claude Code itself
//! recovers: an API response is written one content block per record, all sharing
//! `message.id`, and each `tool_result` record points at the record of its own `tool_use`, so
//! the results of parallel calls (and sometimes sibling assistant records) hang off the chain;
//! they are put back after their response, by `message.id` and
//! `sourceToolAssistantUUID`/`parentUuid`.
//!
//! Sidechain records (`isSidechain: true`: sub-agents, whether inline or in their own file)
//! form their own conversations, one per root, rebuilt the same way among themselves.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;

use super::RECORD_TYPES;
use crate::formats::anthropic::push_message;
use crate::formats::adapter::{doc_headers, read_headers, Held, Trees};
use crate::formats::{str_at, text_at, Doc, Format, Records, Visit};
use crate::transcript::{Conversation, Loc, Pairing, Role};
use crate::tree::Value as Tree;

/// What the rebuild needs of one record of the session file, read from its tree: the
/// strings borrow the file's text (or own their decoding), so the tree need not be kept.
/// Kept small: a big session holds one per line while its conversations are rebuilt.
pub(super) struct Rec<'t> {
    /// Which record of the session it is (what reads its tree again).
    at: usize,
    base: usize,
    uuid: Option<Cow<'t, str>>,
    parent: Option<Cow<'t, str>>,
    /// By the record's kind: the `message.id` of an assistant record (one API response is
    /// split over several records), the `sourceToolAssistantUUID` of a user record carrying
    /// `tool_result`s (the assistant record they answer), the `leafUuid` of a `summary`.
    link: Option<Cow<'t, str>>,
    /// The `tool_use` ids of its message, then its `tool_result` blocks' `tool_use_id`s.
    ids: Box<[Cow<'t, str>]>,
    /// How many of `ids` are `tool_use` ids.
    calls: usize,
    /// Its `version`, as an index into [`Recs::versions`] (a session is written by a few).
    version: Option<u32>,
    /// `Some` for records that carry a message sent to the model.
    role: Option<Role>,
    sidechain: bool,
    summary: bool,
    /// Whether its `type` is one Claude Code writes.
    claude: bool,
}

impl<'t> Rec<'t> {
    /// Record `at` of the session, at byte `base`.
    fn read(at: usize, base: usize, value: &Tree<'t>, versions: &mut Versions<'t>) -> Self {
        let record_type = str_at(value, "type").unwrap_or_default();
        let message = value.get("message").filter(|m| m.is_object());
        let role = match record_type {
            "user" if message.is_some() => Some(Role::User),
            "assistant" if message.is_some() => Some(Role::Assistant),
            _ => None,
        };
        let message = message.filter(|_| role.is_some());
        let tool_ids = |block_type: &'static str, key: &'static str| {
            // Not `blocks`, whose one lifetime would tie the ids to this borrow of the tree.
            message
                .and_then(|m| m.get("content"))
                .and_then(Tree::as_array)
                .into_iter()
                .flatten()
                .filter(move |b| str_at(b, "type") == Some(block_type))
                .filter_map(move |b| text_at(b, key))
        };
        let mut ids: Vec<Cow<'t, str>> = tool_ids("tool_use", "id").collect();
        let calls = ids.len();
        ids.extend(tool_ids("tool_result", "tool_use_id"));
        let summary = record_type == "summary";
        let link = match role {
            Some(Role::Assistant) => message.and_then(|m| text_at(m, "id")),
            Some(Role::User) if ids.len() > calls => text_at(value, "sourceToolAssistantUUID"),
            _ if summary => text_at(value, "leafUuid"),
            _ => None,
        };
        let version = text_at(value, "version").and_then(|v| versions.index(v));
        Rec {
            at,
            base,
            uuid: text_at(value, "uuid"),
            parent: text_at(value, "parentUuid"),
            link,
            ids: ids.into_boxed_slice(),
            calls,
            version,
            role,
            sidechain: value.get("isSidechain").and_then(Tree::as_bool) == Some(true),
            summary,
            claude: RECORD_TYPES.contains(&record_type),
        }
    }

    fn msg_id(&self) -> Option<&str> {
        self.link.as_deref().filter(|_| self.role == Some(Role::Assistant))
    }

    fn source(&self) -> Option<&str> {
        self.link.as_deref().filter(|_| self.role == Some(Role::User))
    }

    fn summary_leaf(&self) -> Option<&str> {
        self.link.as_deref().filter(|_| self.summary)
    }

    fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.ids.get(..self.calls).unwrap_or_default().iter().map(|id| &**id)
    }

    fn result_ids(&self) -> impl Iterator<Item = &str> {
        self.ids.get(self.calls..).unwrap_or_default().iter().map(|id| &**id)
    }

    fn has_results(&self) -> bool {
        self.ids.len() > self.calls
    }
}

/// The records of a session, in order, and the versions they were written by.
pub(super) struct Recs<'t> {
    list: Vec<Rec<'t>>,
    versions: Versions<'t>,
}

/// The distinct versions that wrote a session's records, each with its index.
#[derive(Default)]
struct Versions<'t> {
    list: Vec<Cow<'t, str>>,
    index: HashMap<Cow<'t, str>, u32>,
}

impl<'t> Versions<'t> {
    /// The index of `version`, added if new. Lines mostly repeat the last one's version; a
    /// file whose every line names another is still one lookup a line.
    fn index(&mut self, version: Cow<'t, str>) -> Option<u32> {
        let last = self.list.len().checked_sub(1);
        if let Some(last) = last.filter(|&k| self.list.get(k) == Some(&version)) {
            return u32::try_from(last).ok();
        }
        if let Some(&k) = self.index.get(&version) {
            return Some(k);
        }
        let k = u32::try_from(self.list.len()).ok()?;
        self.list.push(version.clone());
        self.index.insert(version, k);
        Some(k)
    }

    fn get(&self, k: u32) -> Option<&str> {
        self.list.get(usize::try_from(k).ok()?).map(|v| &**v)
    }
}

/// The records of a session read from their trees, one per document, in order.
pub(super) fn read_docs<'t>(docs: &[Doc<'t>]) -> Recs<'t> {
    let mut versions = Versions::default();
    let list = doc_headers(docs, |i, base, value| Rec::read(i, base, value, &mut versions));
    Recs { list, versions }
}

/// The records of a session read one at a time, each tree dropped once read, unless the
/// session is small ([`Records::small`]): its trees are then held, by record, for the rebuild.
pub(super) fn read_each<'t>(records: &mut dyn Records<'t>) -> (Recs<'t>, Option<Held<'t>>) {
    let mut versions = Versions::default();
    let (list, held) = read_headers(records, |i, base, value| {
        Rec::read(i, base, value, &mut versions)
    });
    (Recs { list, versions }, held)
}

pub(super) struct Session<'s, 't> {
    recs: &'s [Rec<'t>],
    versions: &'s Versions<'t>,
    /// Whether any record has a type Claude Code writes.
    pub(super) any_claude_record: bool,
    /// Record index by `uuid` (the last record wins, as when Claude Code loads a session).
    index: HashMap<&'s str, usize>,
    /// Assistant message records by (`message.id`, sidechain).
    by_msg_id: HashMap<(&'s str, bool), Vec<usize>>,
    /// User records carrying `tool_result` blocks, by the assistant record they answer
    /// (`sourceToolAssistantUUID`) and by their `parentUuid`.
    results_by_source: HashMap<&'s str, Vec<usize>>,
}

impl<'s, 't> Session<'s, 't> {
    pub(super) fn new(records: &'s Recs<'t>) -> Self {
        let recs = records.list.as_slice();
        let mut session = Session {
            recs,
            versions: &records.versions,
            any_claude_record: false,
            index: HashMap::new(),
            by_msg_id: HashMap::new(),
            results_by_source: HashMap::new(),
        };
        for (i, rec) in recs.iter().enumerate() {
            session.any_claude_record |= rec.claude;
            if let Some(uuid) = rec.uuid.as_deref() {
                session.index.insert(uuid, i);
            }
            if let Some(id) = rec.msg_id() {
                session
                    .by_msg_id
                    .entry((id, rec.sidechain))
                    .or_default()
                    .push(i);
            }
            if rec.role == Some(Role::User) && rec.has_results() {
                for key in rec.source().into_iter().chain(rec.parent.as_deref()) {
                    let list = session.results_by_source.entry(key).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        session
    }

    fn parent_of(&self, i: usize) -> Option<usize> {
        self.recs[i]
            .parent
            .as_deref()
            .and_then(|p| self.index.get(p).copied())
    }

    /// The chain from `leaf` back to its root, returned root first. Ends at a `null` parent,
    /// a parent outside the file, or a cycle.
    fn chain(&self, leaf: usize) -> Vec<usize> {
        let mut chain = vec![leaf];
        let mut seen: HashSet<usize> = [leaf].into_iter().collect();
        let mut cur = leaf;
        while let Some(parent) = self.parent_of(cur) {
            if !seen.insert(parent) {
                break;
            }
            chain.push(parent);
            cur = parent;
        }
        chain.reverse();
        chain
    }

    fn is_message(&self, i: usize, sidechain: bool) -> bool {
        let rec = &self.recs[i];
        rec.role.is_some() && rec.uuid.is_some() && rec.sidechain == sidechain
    }

    /// The leaf of the main conversation: the last main message record, or the `leafUuid` of
    /// a `summary` written after it when that names a main record of this file.
    fn main_leaf(&self) -> Option<usize> {
        let last = (0..self.recs.len())
            .rev()
            .find(|&i| self.is_message(i, false));
        let after = last.map_or(0, |i| i + 1);
        let from_summary = self.recs[after..].iter().rev().find_map(|rec| {
            let leaf = *self.index.get(rec.summary_leaf()?)?;
            (!self.recs[leaf].sidechain).then_some(leaf)
        });
        from_summary.or(last)
    }
    /// The leaves of the sidechain conversations: for each sidechain root, its last message
    /// record, in order of first appearance.
    fn sidechain_leaves(&self) -> Vec<usize> {
        let mut root_of: Vec<Option<usize>> = vec![None; self.recs.len()];
        let mut leaves: Vec<usize> = Vec::new();
        let mut group_of_root: HashMap<usize, usize> = HashMap::new();
        for i in 0..self.recs.len() {
            if !self.is_message(i, true) {
                continue;
            }
            // Walk up until a record whose root is known, or the root itself; then memoise.
            let mut path = Vec::new();
            let mut on_path = HashSet::new();
            let mut cur = i;
            let root = loop {
                if let Some(root) = root_of[cur] {
                    break root;
                }
                path.push(cur);
                on_path.insert(cur);
                match self.parent_of(cur) {
                    Some(parent) if !on_path.contains(&parent) => cur = parent,
                    _ => break cur,
                }
            };
            for p in path {
                root_of[p] = Some(root);
            }
            match group_of_root.get(&root) {
                Some(&g) => leaves[g] = i,
                None => {
                    group_of_root.insert(root, leaves.len());
                    leaves.push(i);
                }
            }
        }
        leaves
    }

    /// The main conversation, then one per sidechain; empty ones are left out. Each message
    /// record's tree is got again from `trees` and shown to `visit` once read.
    pub(super) fn conversations(
        &self,
        trees: &mut dyn Trees<'t>,
        visit: Visit<'_>,
    ) -> Vec<Conversation> {
        let mut out = Vec::new();
        let leaves = self
            .main_leaf()
            .into_iter()
            .map(|leaf| (leaf, false))
            .chain(self.sidechain_leaves().into_iter().map(|leaf| (leaf, true)));
        for (leaf, sidechain) in leaves {
            let chain = self.chain(leaf);
            let conv = self.build(&chain, sidechain, trees, visit);
            if !conv.turns.is_empty() {
                out.push(conv);
            }
        }
        out
    }
    /// The message records of `chain`, in order, with the off-chain records of parallel tool
    /// calls put back after their response.
    fn messages(&self, chain: &[usize], sidechain: bool) -> Vec<usize> {
        let on_chain: HashSet<usize> = chain.iter().copied().collect();
        let mut answered: HashSet<&str> = chain
            .iter()
            .flat_map(|&i| self.recs[i].result_ids())
            .collect();
        let messages: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&i| self.is_message(i, sidechain))
            .collect();
        let mut out = Vec::with_capacity(messages.len());
        let mut recovered = HashSet::new();
        let mut group: Vec<usize> = Vec::new();
        for (k, &i) in messages.iter().enumerate() {
            out.push(i);
            let Some(id) = self.recs[i].msg_id() else {
                continue;
            };
            group.push(i);
            let next_id = messages
                .get(k + 1)
                .and_then(|&n| self.recs[n].msg_id());
            if next_id == Some(id) {
                continue;
            }
            // End of one API response on the chain: its off-chain sibling records, then the
            // off-chain results of its calls.
            let members = std::mem::take(&mut group);
            let siblings: Vec<usize> = self
                .by_msg_id
                .get(&(id, sidechain))
                .into_iter()
                .flatten()
                .copied()
                .filter(|s| !on_chain.contains(s) && recovered.insert(*s))
                .collect();
            let calls: HashSet<&str> = members
                .iter()
                .chain(&siblings)
                .flat_map(|&m| self.recs[m].call_ids())
                .collect();
            let mut results: Vec<usize> = members
                .iter()
                .chain(&siblings)
                .filter_map(|&m| self.recs[m].uuid.as_deref())
                .filter_map(|uuid| self.results_by_source.get(uuid))
                .flatten()
                .copied()
                .filter(|&r| !on_chain.contains(&r) && self.recs[r].sidechain == sidechain)
                .filter(|&r| {
                    self.recs[r]
                        .result_ids()
                        .any(|id| calls.contains(id) && !answered.contains(id))
                })
                .collect();
            results.sort_unstable();
            results.dedup();
            results.retain(|r| recovered.insert(*r));
            for &r in &results {
                answered.extend(self.recs[r].result_ids());
            }
            out.extend(siblings);
            out.extend(results);
        }
        out
    }

    fn build(
        &self,
        chain: &[usize],
        sidechain: bool,
        trees: &mut dyn Trees<'t>,
        visit: Visit<'_>,
    ) -> Conversation {
        let root = chain.first().map_or(0, |&i| self.recs[i].base);
        let mut conv = Conversation::new(Format::ClaudeCode, Loc::new(root, ""), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.results_first = true;
        conv.resumable = true;
        // The chain's last writer is the version that last resumed the session.
        conv.agent_version = chain
            .iter()
            .rev()
            .find_map(|&i| self.recs.get(i).and_then(|r| r.version))
            .and_then(|k| self.versions.get(k))
            .map(str::to_string);
        for i in self.messages(chain, sidechain) {
            let rec = &self.recs[i];
            let Some(role) = rec.role else {
                continue;
            };
            trees.read_into(rec.at, &mut conv, visit, &mut |doc, conv| {
                if let Some(message) = doc.value.get("message") {
                    push_message(conv, role, message, &Loc::new(rec.base, "/message"));
                }
            });
        }
        conv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::ClaudeCode;
    use crate::formats::Adapter;
    use crate::lint::lint_str;
    use crate::transcript::Item;
    use crate::tree_json as json;

    fn codes(name: &str, text: &str) -> Vec<String> {
        lint_str(name, text).codes()
    }

    /// Parses JSONL text into records with their byte offsets.
    fn records(text: &str) -> Vec<(usize, Tree<'_>)> {
        let mut out = Vec::new();
        let mut base = 0;
        for line in text.split_inclusive('\n') {
            if !line.trim().is_empty() {
                out.push((base, crate::tree::parse(line).expect("test JSONL").value));
            }
            base += line.len();
        }
        out
    }

    fn normalise(text: &str) -> Vec<Conversation> {
        let recs = records(text);
        let docs: Vec<Doc<'_>> = recs
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        ClaudeCode.normalise(&docs).expect("a Claude Code session")
    }

    /// Each turn as its role and items: `call:<name>`, `result:<id>`, `text`.
    fn shape(conv: &Conversation) -> Vec<String> {
        conv.turns
            .iter()
            .map(|t| {
                let items: Vec<String> = t
                    .items
                    .iter()
                    .map(|item| match item {
                        Item::Text(_) => "text".to_string(),
                        Item::Thinking(_) => "thinking".to_string(),
                        Item::Call(c) => format!("call:{}", c.name),
                        Item::Result(r) => {
                            format!("result:{}", r.call_id.clone().unwrap_or_default())
                        }
                    })
                    .collect();
                format!("{} {}", t.role.as_str(), items.join(","))
            })
            .collect()
    }

    const CLEAN_SESSION: &str = include_str!("../../../../../fixtures/claude-code/clean-session.jsonl");

    #[test]
    fn rebuilds_the_resumed_chain() {
        let convs = normalise(CLEAN_SESSION);
        assert_eq!(convs.len(), 2, "the main chain and one sidechain");
        let main = &convs[0];
        let names = shape(main);
        // Parallel calls on four records of one response form one turn; the Read result,
        // which hangs off the chain, is put back next to the Grep result.
        assert_eq!(names[0], "user text");
        assert_eq!(names[1], "assistant thinking,text,call:Grep,call:Read");
        assert!(names[2].starts_with("user result:") && names[2].matches("result:").count() == 2);
        // The abandoned prompt (and its unanswered Glob call) is not on the chain.
        assert!(!names.iter().any(|t| t.contains("Glob")));
        assert_eq!(main.calls().count(), 6);
        assert_eq!(main.results().count(), 6);
        assert!(main.resumable && main.results_first);
        assert_eq!(
            main.loc,
            Loc::new(CLEAN_SESSION.find("{\"parentUuid\":null").unwrap(), "")
        );
        // Every node points into its own record.
        let (_, read) = main.calls().find(|(_, c)| c.name == "Read").unwrap();
        assert!(CLEAN_SESSION[read.loc.base..].starts_with('{'));
        assert_eq!(read.loc.pointer, "/message/content/0");
        let side = &convs[1];
        let bash_id = side.calls().next().and_then(|(_, c)| c.id.clone()).unwrap();
        assert_eq!(
            shape(side),
            [
                "user text".to_string(),
                "assistant call:Bash".into(),
                format!("user result:{bash_id}"),
                "assistant text".into()
            ]
        );
    }

    fn line(v: Tree) -> String {
        let mut s = v.to_string();
        s.push('\n');
        s
    }

    fn msg(uuid: &str, parent: Option<&str>, role: &str, content: Tree) -> String {
        let mut message = serde_json::json!({"role": role, "content": content});
        if role == "assistant" {
            message["id"] = serde_json::json!(format!("msg_{uuid}"));
        }
        line(
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
            "sessionId": "s1", "type": role, "message": message, "uuid": uuid}),
        )
    }

    fn call(id: &str) -> Tree<'_> {
        json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}}])
    }

    fn result(id: &str) -> Tree<'_> {
        json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}])
    }

    #[test]
    fn the_chains_last_writer_names_the_version() {
        let versioned = |line: String, v: &str| line.replacen("{", &format!("{{\"version\":\"{v}\","), 1);
        let text = [
            versioned(msg("u1", None, "user", json!("go")), "2.0.1"),
            versioned(msg("a1", Some("u1"), "assistant", json!("ok")), "2.1.0"),
            versioned(msg("u2", Some("a1"), "user", json!("again")), "2.0.1"),
            // Off the chain: not the chain's writer.
            versioned(msg("x1", Some("a1"), "user", json!("rewound")), "9.9.9"),
            msg("a2", Some("u2"), "assistant", json!("done")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(convs[0].agent_version.as_deref(), Some("2.0.1"));
        let mut versions = Versions::default();
        let found: Vec<Option<u32>> = ["a", "b", "a", "a", "c", "b"]
            .into_iter()
            .map(|v| versions.index(Cow::Borrowed(v)))
            .collect();
        assert_eq!(found, [Some(0), Some(1), Some(0), Some(0), Some(2), Some(1)]);
        assert_eq!(versions.get(2), Some("c"));
        assert_eq!(versions.get(3), None);
    }

    #[test]
    fn a_trailing_summary_picks_the_leaf() {
        // Two branches from u1; the summary written last names the first one as the leaf.
        let records = [
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
            msg("r1", Some("a1"), "user", result("toolu_a")),
            msg("a2", Some("u1"), "assistant", call("toolu_b")),
            line(json!({"type": "summary", "summary": "listing", "leafUuid": "r1"})),
        ];
        assert!(codes("s.jsonl", &records.concat()).is_empty());
        // Without the summary, the last message record is the leaf: its call is unanswered.
        assert_eq!(codes("s.jsonl", &records[..4].concat()), ["TC102@4:139"]);
    }

    #[test]
    fn a_summary_naming_another_session_is_ignored() {
        let text = [
            line(json!({"type": "summary", "summary": "older work", "leafUuid": "elsewhere"})),
            msg("u1", None, "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
        ]
        .concat();
        assert_eq!(codes("s.jsonl", &text), ["TC102@3:139"]);
    }

    #[test]
    fn survives_parent_cycles() {
        let text = [
            msg("u1", Some("r1"), "user", json!("go")),
            msg("a1", Some("u1"), "assistant", call("toolu_a")),
            msg("r1", Some("a1"), "user", result("toolu_a")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(convs.len(), 1);
        assert_eq!(convs[0].turns.len(), 3);
        let side = text.replace("\"isSidechain\":false", "\"isSidechain\":true");
        assert_eq!(normalise(&side).len(), 1);
    }

    #[test]
    fn sidechains_are_separate_conversations() {
        let side = |s: String| s.replace("\"isSidechain\":false", "\"isSidechain\":true");
        let text = [
            msg("u1", None, "user", json!("delegate")),
            msg("a1", Some("u1"), "assistant", call("toolu_task")),
            side(msg("s1", None, "user", json!("sub task one"))),
            side(msg("t1", None, "user", json!("sub task two"))),
            side(msg("s2", Some("s1"), "assistant", call("toolu_x"))),
            side(msg("t2", Some("t1"), "assistant", json!("nothing to do"))),
            side(msg("s3", Some("s2"), "user", result("toolu_x"))),
            msg("r1", Some("a1"), "user", result("toolu_task")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(convs.len(), 3);
        assert_eq!(
            shape(&convs[0]),
            ["user text", "assistant call:Bash", "user result:toolu_task"]
        );
        assert_eq!(
            shape(&convs[1]),
            ["user text", "assistant call:Bash", "user result:toolu_x"]
        );
        assert_eq!(shape(&convs[2]), ["user text", "assistant text"]);
        assert!(codes("s.jsonl", &text).is_empty());
    }

    #[test]
    fn recovers_sibling_records_of_one_response() {
        // Both tool_use records hang off u1 (siblings sharing message.id); the chain runs
        // through the second one only.
        let rec = |uuid: &str, parent: &str, content: Tree| {
            line(
                json!({"parentUuid": parent, "isSidechain": false, "sessionId": "s1",
                "type": "assistant", "uuid": uuid,
                "message": {"id": "msg_same", "role": "assistant", "content": content}}),
            )
        };
        let text = [
            msg("u1", None, "user", json!("go")),
            rec("a1", "u1", call("toolu_a")),
            rec("a2", "u1", call("toolu_b")),
            msg("ra", Some("a1"), "user", result("toolu_a")),
            msg("rb", Some("a2"), "user", result("toolu_b")),
            msg("a3", Some("rb"), "assistant", json!("done")),
        ]
        .concat();
        let convs = normalise(&text);
        assert_eq!(
            shape(&convs[0]),
            [
                "user text",
                "assistant call:Bash,call:Bash",
                "user result:toolu_a,result:toolu_b",
                "assistant text"
            ]
        );
        assert!(codes("s.jsonl", &text).is_empty());
    }
}
