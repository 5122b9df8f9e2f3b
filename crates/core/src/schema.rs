//! Tool schemas: the effective JSON Schema of a declaration (decoded, OpenAPI normalised,
//! `strict` applied), compiled once per distinct schema and shared by every file and thread.
//!
//! A log that declares the same 40 tools in each of 100 000 requests compiles 40 validators:
//! entries are keyed by a structural hash of the effective schema and compared by value.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use crate::transcript::{SchemaDecl, SchemaDialect, ToolDef};
use serde_json::{Map, Value as Json};

/// Limits on the work one schema may cost, so a hostile schema is reported, not a crash or a
/// stall. Values in a schema: 100 000 is a schema of a few megabytes, far beyond any tool's.
pub const MAX_SCHEMA_VALUES: usize = 100_000;
/// Levels a validator can descend through a schema, counting each `$ref` it follows: a chain of
/// thousands of `$ref`s overflows the validator's stack, which no `catch_unwind` survives.
pub const MAX_SCHEMA_DEPTH: usize = 512;
/// Backtracking steps the regex engine may take for one match of a `pattern` (the engine's own
/// default is 1 000 000, tens of milliseconds on a pattern that backtracks catastrophically).
pub const BACKTRACK_LIMIT: usize = 100_000;
/// The limit once a schema's pattern exhausted [`BACKTRACK_LIMIT`] in a conversation: the same
/// pattern is then not given the full budget again for every call.
pub const SPENT_BACKTRACK_LIMIT: usize = 5_000;

/// Validator frames checked on the caller's stack; deeper validation gets a thread of its own
/// with a stack sized for it. A frame takes about 200 bytes (up to 400 in debug builds).
const INLINE_FRAMES: usize = 512;
const STACK_PER_FRAME: usize = 1 << 10;

/// A compiled schema and what is wrong with it, if anything.
pub struct Compiled {
    schema: Json,
    shape: Shape,
    /// The validator, unless the schema is invalid or beyond the limits.
    validator: Option<jsonschema::Validator>,
    /// The validator with [`SPENT_BACKTRACK_LIMIT`], built when first needed.
    frugal: std::sync::OnceLock<Option<jsonschema::Validator>>,
    /// Why the schema is not a valid JSON Schema: the first problem found by checking it
    /// against its meta-schema, or why it cannot be compiled.
    pub invalid: Option<String>,
    /// Why the schema was not compiled at all, though it may be valid: it is beyond a limit
    /// toolcheck keeps (`holds more than 100000 JSON values, more than toolcheck checks`).
    pub beyond_limits: Option<String>,
    /// Outcomes of arguments checked before, by the full validator and the frugal one: kept
    /// only for schemas with backtracking patterns, whose checks can be costly and repeat in
    /// datasets.
    seen: (RwLock<Seen>, RwLock<Seen>),
}

/// What checking one call's arguments found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Violations, as `path: message` (path `/` for the root).
    pub violations: Vec<String>,
    /// What could not be checked, and why, as messages.
    pub unchecked: Vec<String>,
    /// Whether the regex engine gave up on a pattern.
    pub regex_gave_up: bool,
}

/// `checked` to keep: a check that found nothing shares one value, as most calls' do (a
/// big document's checked calls each held their own, a hundredth of its peak memory).
fn shared(checked: Checked) -> Arc<Checked> {
    static CLEAN: std::sync::LazyLock<Arc<Checked>> = std::sync::LazyLock::new(Arc::default);
    if checked == Checked::default() {
        Arc::clone(&CLEAN)
    } else {
        Arc::new(checked)
    }
}

impl Compiled {
    /// Every violation of `instance`, as `path: message` (path `/` for the root).
    pub fn violations(&self, instance: &Json) -> Vec<String> {
        self.check(instance, false).violations.clone()
    }

    /// Checks `instance`; `frugal` gives patterns [`SPENT_BACKTRACK_LIMIT`] instead of
    /// [`BACKTRACK_LIMIT`]. A pattern the engine gives up on is unchecked, not a violation: the
    /// engine failed, not the arguments.
    pub fn check(&self, instance: &Json, frugal: bool) -> Arc<Checked> {
        let Some(full) = &self.validator else {
            return shared(Checked::default());
        };
        let (validator, limit) = match frugal {
            true => match self
                .frugal
                .get_or_init(|| build(&self.schema, SPENT_BACKTRACK_LIMIT).ok())
            {
                Some(frugal) => (frugal, SPENT_BACKTRACK_LIMIT),
                None => (full, BACKTRACK_LIMIT),
            },
            false => (full, BACKTRACK_LIMIT),
        };
        if !self.shape.backtracking {
            return shared(self.run(validator, limit, instance));
        }
        let seen = if frugal { &self.seen.1 } else { &self.seen.0 };
        let key = structural_hash(instance);
        if let Some(hit) = seen.read().ok().and_then(|s| s.get(key, instance)) {
            return hit;
        }
        let checked = shared(self.run(validator, limit, instance));
        if let Ok(mut seen) = seen.write() {
            seen.insert(key, instance, &checked);
        }
        checked
    }

    /// Validates on this thread when the validator's recursion fits any thread's stack, else
    /// on a thread with a stack sized for it: a stack overflow aborts the process.
    fn run(&self, validator: &jsonschema::Validator, limit: usize, instance: &Json) -> Checked {
        let shape = &self.shape;
        let mut frames = shape.depth;
        if shape.recursive && frames.saturating_mul(crate::json::MAX_DEPTH + 2) > INLINE_FRAMES {
            // A recursive schema is followed once more for each level of the arguments.
            frames = (shape.depth + 1).saturating_mul(nesting(instance) + 2);
        }
        if frames <= INLINE_FRAMES {
            return self.validate(validator, limit, instance);
        }
        let stack = frames
            .saturating_mul(STACK_PER_FRAME)
            .saturating_add(1 << 20);
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("toolcheck-validate".into())
                .stack_size(stack)
                .spawn_scoped(scope, || self.validate(validator, limit, instance))
                .ok()?
                .join()
                .ok()
        })
        .unwrap_or_else(|| Checked {
            unchecked: vec![format!(
                "no thread with a {} MiB stack could be started to check them",
                stack >> 20
            )],
            ..Checked::default()
        })
    }

    /// Violations, and patterns the engine gave up on after `limit` backtracking steps.
    fn validate(
        &self,
        validator: &jsonschema::Validator,
        limit: usize,
        instance: &Json,
    ) -> Checked {
        use jsonschema::error::ValidationErrorKind as Kind;
        let mut checked = Checked::default();
        for e in validator.iter_errors(instance) {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() { "/" } else { path.as_str() };
            match e.kind() {
                Kind::BacktrackLimitExceeded { .. } | Kind::RegexEngineFailure { .. } => {
                    let at = e.schema_path().to_string();
                    let pattern = self
                        .schema
                        .pointer(&at)
                        .and_then(Json::as_str)
                        .map(|p| format!(" {}", crate::finding::quote(p, 60)))
                        .unwrap_or_default();
                    let why = match e.kind() {
                        Kind::BacktrackLimitExceeded { .. } => {
                            format!("gave up after {limit} backtracking steps")
                        }
                        _ => "failed".to_string(),
                    };
                    checked.regex_gave_up = true;
                    checked.unchecked.push(format!(
                        "the regex engine {why} matching the schema's pattern{pattern} (at {at}) against {path}"
                    ));
                }
                _ => checked.violations.push(format!("{path}: {e}")),
            }
        }
        checked
    }
}

/// Outcomes of checked instances, by structural hash and compared by value; bounded.
#[derive(Default)]
struct Seen {
    by_hash: HashMap<u64, Vec<(Json, Arc<Checked>)>>,
    /// Values held, counted as by [`size`].
    held: usize,
}

impl Seen {
    /// Values held at most; a cache that fills up starts over.
    const CAPACITY: usize = 1 << 20;

    fn get(&self, key: u64, instance: &Json) -> Option<Arc<Checked>> {
        self.by_hash
            .get(&key)?
            .iter()
            .find(|(v, _)| v == instance)
            .map(|(_, c)| Arc::clone(c))
    }

    fn insert(&mut self, key: u64, instance: &Json, checked: &Arc<Checked>) {
        let size = size(instance);
        if size > Self::CAPACITY / 16 {
            return;
        }
        if self.held + size > Self::CAPACITY {
            self.by_hash.clear();
            self.held = 0;
        }
        let bucket = self.by_hash.entry(key).or_default();
        if !bucket.iter().any(|(v, _)| v == instance) {
            bucket.push((instance.clone(), Arc::clone(checked)));
            self.held += size;
        }
    }
}

/// How many values `value` holds, counting a string's bytes / 64 more: what caching it costs.
fn size(value: &Json) -> usize {
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        total += 1;
        match v {
            Json::String(s) => total += s.len() / 64,
            Json::Array(items) => stack.extend(items),
            Json::Object(map) => {
                total += map.keys().map(|k| k.len() / 64).sum::<usize>();
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    total
}

/// How deeply `value` nests: 0 for a scalar, 1 for a flat array or object.
fn nesting(value: &Json) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, level)) = stack.pop() {
        match v {
            Json::Array(items) => stack.extend(items.iter().map(|c| (c, level + 1))),
            Json::Object(map) => stack.extend(map.values().map(|c| (c, level + 1))),
            _ => continue,
        }
        deepest = deepest.max(level + 1);
    }
    deepest
}

/// A shared declaration and its compiled schema.
type Held = (Arc<Json>, Arc<Compiled>);

/// A shared declaration by address, with what turns it into the schema used.
type DeclKey = (usize, SchemaDialect, bool);

#[derive(Default)]
pub struct SchemaCache {
    entries: RwLock<HashMap<u64, Vec<Arc<Compiled>>>>,
    /// Shared declarations seen before, by address: each entry holds its declaration, so an
    /// address is never reused while it is a key.
    by_decl: RwLock<HashMap<DeclKey, Held>>,
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemaCache")
    }
}

impl SchemaCache {
    /// The compiled effective schema of `tool`, or `None` when it declares none (or its
    /// declaration is not usable as a schema at all: a string that is not JSON).
    pub fn get(&self, tool: &ToolDef) -> Option<Arc<Compiled>> {
        // Declarations repeat (datasets declare the same tools in every record) and are
        // shared once read: found by address, they are not hashed, converted or compared.
        if let Some(SchemaDecl::Value(decl)) = &tool.schema {
            let key = (Arc::as_ptr(decl) as usize, tool.dialect, tool.strict);
            let hit = self.by_decl.read().ok().and_then(|seen| {
                seen.get(&key)
                    .filter(|(held, _)| Arc::ptr_eq(held, decl))
                    .map(|(_, compiled)| Arc::clone(compiled))
            });
            if hit.is_some() {
                return hit;
            }
            let compiled = match (tool.dialect, tool.strict) {
                (SchemaDialect::JsonSchema, false) => self.lookup(decl)?,
                _ => self.lookup(&effective_schema(tool)?)?,
            };
            if let Ok(mut seen) = self.by_decl.write() {
                // Bounded: a corpus of ever-new schemas only starts over.
                if seen.len() >= 16_384 {
                    seen.clear();
                }
                seen.insert(key, (Arc::clone(decl), Arc::clone(&compiled)));
            }
            return Some(compiled);
        }
        self.lookup(&effective_schema(tool)?)
    }

    /// The compiled `schema`, compiled once per distinct schema.
    fn lookup(&self, schema: &Json) -> Option<Arc<Compiled>> {
        let key = structural_hash(schema);
        if let Ok(entries) = self.entries.read() {
            if let Some(hit) = entries
                .get(&key)
                .and_then(|v| v.iter().find(|c| &c.schema == schema))
            {
                return Some(Arc::clone(hit));
            }
        }
        let compiled = Arc::new(compile(schema.clone()));
        if let Ok(mut entries) = self.entries.write() {
            let bucket = entries.entry(key).or_default();
            match bucket.iter().find(|c| c.schema == compiled.schema) {
                // Another thread compiled it meanwhile: keep one.
                Some(existing) => return Some(Arc::clone(existing)),
                None => bucket.push(Arc::clone(&compiled)),
            }
        }
        Some(compiled)
    }

    /// How many distinct schemas were compiled (for benchmarks and tests).
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .map_or(0, |e| e.values().map(Vec::len).sum())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn compile(schema: Json) -> Compiled {
    let shape = match measure(&schema) {
        Ok(shape) => shape,
        Err(reason) => {
            return Compiled {
                schema,
                shape: Shape::default(),
                validator: None,
                frugal: Default::default(),
                invalid: None,
                beyond_limits: Some(reason),
                seen: Default::default(),
            }
        }
    };
    // Third-party code on untrusted input: a panic here must not take the run down.
    let outcome = std::panic::catch_unwind(|| {
        let meta_problem = jsonschema::meta::validate(&schema).err().map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("at {path}: {e}")
            }
        });
        (meta_problem, build(&schema, BACKTRACK_LIMIT))
    });
    let (meta_problem, validator) = outcome.unwrap_or_else(|_| {
        let message = "the schema could not be compiled".to_string();
        (Some(message.clone()), Err(message))
    });
    let (validator, invalid) = match validator {
        Ok(v) => (Some(v), meta_problem),
        Err(e) => (None, meta_problem.or(Some(e))),
    };
    Compiled {
        schema,
        shape,
        validator,
        frugal: Default::default(),
        invalid,
        beyond_limits: None,
        seen: Default::default(),
    }
}

/// A validator whose patterns may take `backtrack_limit` backtracking steps per match.
fn build(schema: &Json, backtrack_limit: usize) -> Result<jsonschema::Validator, String> {
    let patterns = jsonschema::PatternOptions::fancy_regex().backtrack_limit(backtrack_limit);
    std::panic::catch_unwind(|| {
        jsonschema::options()
            .with_pattern_options(patterns)
            .build(schema)
            .map_err(|e| e.to_string())
    })
    .unwrap_or_else(|_| Err("the schema could not be compiled".to_string()))
}

/// What the limits, and the stack a validator needs, depend on.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Shape {
    /// Levels a validator can descend along a path without cycles, each `$ref` followed a level.
    depth: usize,
    /// Whether a `$ref` leads back into a schema it is inside: such a path is followed again
    /// for each level of the arguments.
    recursive: bool,
    /// Whether a `pattern` or `patternProperties` may need the backtracking regex engine.
    backtracking: bool,
}

/// The shape of `schema`, or why it is beyond the limits: measured before the validator sees
/// it, since the validator's own recursion on a hostile schema is what aborts the process.
fn measure(schema: &Json) -> Result<Shape, String> {
    // One pass over every value, without recursion: the size, the nesting, the keywords.
    let mut values = 0usize;
    let mut nested = 0usize;
    let (mut refs, mut dynamic, mut backtracking) = (false, false, false);
    let mut stack = vec![(schema, 1usize)];
    while let Some((value, level)) = stack.pop() {
        values += 1;
        if values > MAX_SCHEMA_VALUES {
            return Err(format!(
                "holds more than {MAX_SCHEMA_VALUES} JSON values, more than toolcheck checks"
            ));
        }
        nested = nested.max(level);
        match value {
            Json::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Json::Object(map) => {
                for (key, child) in map {
                    match key.as_str() {
                        "$ref" => refs = true,
                        "$dynamicRef" | "$recursiveRef" => (refs, dynamic) = (true, true),
                        "pattern" => {
                            backtracking |= child.as_str().is_some_and(may_backtrack);
                        }
                        "patternProperties" => {
                            backtracking |= child
                                .as_object()
                                .is_some_and(|p| p.keys().any(|k| may_backtrack(k)));
                        }
                        _ => {}
                    }
                    stack.push((child, level + 1));
                }
            }
            _ => {}
        }
    }
    let too_deep =
        || format!("nests deeper than {MAX_SCHEMA_DEPTH} levels, counting each `$ref` followed");
    if nested > MAX_SCHEMA_DEPTH {
        return Err(too_deep());
    }
    let mut shape = Shape {
        depth: nested,
        recursive: false,
        backtracking,
    };
    if !refs {
        return Ok(shape);
    }
    // References resolved as the validator resolves them: its own resolver, on the same base.
    let draft = referencing::Draft::default().detect(schema);
    let resource = draft.create_resource_ref(schema);
    let registry = referencing::uri::from_str(resource.id().unwrap_or("json-schema:///"))
        .ok()
        .and_then(|base| {
            let registry = referencing::Registry::new()
                .draft(draft)
                .add(base.as_str(), resource)
                .ok()?
                .prepare()
                .ok()?;
            Some((registry, base))
        });
    // The validator builds the same registry and fails the same way: `invalid-tool-schema`.
    let Some((registry, base)) = registry else {
        return Ok(shape);
    };
    let resolver = registry.resolver(base);
    let mut walk = Walk::default();
    if dynamic {
        let mut anchors = Vec::new();
        collect_anchors(schema, &resolver, draft, 1, &mut anchors);
        walk.anchors = std::rc::Rc::new(anchors);
    }
    shape.depth = walk
        .depth(schema, &resolver, draft, 1)
        .map_err(|()| too_deep())?;
    // The walk stops at the limit; a path it met again below the limit may still pass it.
    if shape.depth > MAX_SCHEMA_DEPTH {
        return Err(too_deep());
    }
    shape.recursive = walk.recursive;
    Ok(shape)
}

/// Whether `pattern` may need the regex engine that backtracks, the only one that can give up:
/// a pattern without backreferences, lookaround and the like runs on a linear-time engine.
/// Errs towards yes.
fn may_backtrack(pattern: &str) -> bool {
    const FANCY: [&str; 14] = [
        "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?(", "\\k", "\\g", "\\G", "\\K", "++", "*+", "?+",
        "}+",
    ];
    FANCY.iter().any(|f| pattern.contains(f))
        || pattern.as_bytes().windows(2).any(|w| {
            w.first() == Some(&b'\\') && w.get(1).is_some_and(|d| (b'1'..=b'9').contains(d))
        })
}

type Target<'r> = (&'r Json, referencing::Resolver<'r>, referencing::Draft);

/// The longest path through a schema without cycles, `$ref`s followed.
#[derive(Default)]
struct Walk<'r> {
    /// Levels below and including each schema walked.
    memo: HashMap<*const Json, usize>,
    /// Schemas on the path being walked: met again, they close a cycle.
    on_path: foldhash::HashSet<*const Json>,
    recursive: bool,
    /// Schemas with a dynamic anchor: where a `$dynamicRef` or `$recursiveRef` may lead.
    anchors: std::rc::Rc<Vec<Target<'r>>>,
    anchors_depth: Option<usize>,
}

impl<'r> Walk<'r> {
    /// Levels below and including `node` at `level`; `Err` past [`MAX_SCHEMA_DEPTH`], which
    /// also bounds this recursion.
    fn depth(
        &mut self,
        node: &'r Json,
        resolver: &referencing::Resolver<'r>,
        draft: referencing::Draft,
        level: usize,
    ) -> Result<usize, ()> {
        if level > MAX_SCHEMA_DEPTH {
            return Err(());
        }
        let key = node as *const Json;
        if let Some(&depth) = self.memo.get(&key) {
            return Ok(depth);
        }
        let Json::Object(map) = node else {
            return Ok(1);
        };
        if !self.on_path.insert(key) {
            self.recursive = true;
            return Ok(0);
        }
        let resolver = resolver
            .in_subresource(draft.create_resource_ref(node))
            .unwrap_or_else(|_| resolver.clone());
        let mut below = 0;
        for child in draft.subresources_of(node) {
            below = below.max(self.depth(child, &resolver, draft.detect(child), level + 1)?);
        }
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            let Some(Json::String(reference)) = map.get(keyword) else {
                continue;
            };
            // One that does not resolve fails the compilation: `invalid-tool-schema`.
            if let Ok(resolved) = resolver.lookup(reference) {
                let (target, next, target_draft) = resolved.into_inner();
                below = below.max(self.depth(target, &next, target_draft, level + 1)?);
            }
            if keyword != "$ref" {
                below = below.max(self.anchors_depth(level)?);
            }
        }
        self.on_path.remove(&key);
        self.memo.insert(key, below + 1);
        Ok(below + 1)
    }

    /// The deepest of the schemas a dynamic reference may lead to, walked once for all the
    /// dynamic references (a schema may hold thousands of each).
    fn anchors_depth(&mut self, level: usize) -> Result<usize, ()> {
        if let Some(depth) = self.anchors_depth {
            return Ok(depth);
        }
        let mut deepest = 0;
        for (target, next, draft) in std::rc::Rc::clone(&self.anchors).iter() {
            deepest = deepest.max(self.depth(target, next, *draft, level + 1)?);
        }
        self.anchors_depth = Some(deepest);
        Ok(deepest)
    }
}

/// Every schema below `node` with a `$dynamicAnchor` or `$recursiveAnchor`, with its resolver.
fn collect_anchors<'r>(
    node: &'r Json,
    resolver: &referencing::Resolver<'r>,
    draft: referencing::Draft,
    level: usize,
    out: &mut Vec<Target<'r>>,
) {
    let Json::Object(map) = node else {
        return;
    };
    // Deeper than the limit, the walk that follows stops anyway.
    if level > MAX_SCHEMA_DEPTH {
        return;
    }
    let resolver = resolver
        .in_subresource(draft.create_resource_ref(node))
        .unwrap_or_else(|_| resolver.clone());
    if map.contains_key("$dynamicAnchor") || map.contains_key("$recursiveAnchor") {
        out.push((node, resolver.clone(), draft));
    }
    for child in draft.subresources_of(node) {
        collect_anchors(child, &resolver, draft.detect(child), level + 1, out);
    }
}

/// The JSON Schema a call's arguments must satisfy: decoded from a string if double-encoded,
/// converted from Gemini's OpenAPI subset, with OpenAI `strict` semantics made explicit.
pub fn effective_schema(tool: &ToolDef) -> Option<Json> {
    let mut schema = tool
        .schema
        .as_ref()
        .and_then(SchemaDecl::value)?
        .into_owned();
    if tool.dialect == SchemaDialect::OpenApi {
        schema = openapi_to_json_schema(schema);
    }
    if tool.strict {
        apply_strict(&mut schema);
    }
    Some(schema)
}

/// Gemini `parameters` (OpenAPI 3.0 subset) to JSON Schema: lower-case types, `nullable`
/// as a `null` type, OpenAPI-only keywords dropped.
pub fn openapi_to_json_schema(value: Json) -> Json {
    match value {
        Json::Object(map) => {
            let nullable = map.get("nullable").and_then(Json::as_bool) == Some(true);
            let mut out = Map::new();
            for (key, v) in map {
                match key.as_str() {
                    "nullable" | "propertyOrdering" | "property_ordering" | "example" => {}
                    "type" => {
                        let ty = match v {
                            Json::String(s) => Json::String(s.to_ascii_lowercase()),
                            // Protobuf's JSON mapping lets an enum be written as its number,
                            // and Vertex AI accepts `"type": 6` for OBJECT.
                            Json::Number(n) => match n.as_u64().and_then(openapi_type_number) {
                                Some(name) => Json::String(name.into()),
                                None => Json::Number(n),
                            },
                            other => other,
                        };
                        out.insert(key, ty);
                    }
                    // Keyword maps whose keys are property names, not schema keywords.
                    "properties" | "$defs" | "definitions" => {
                        let converted = match v {
                            Json::Object(props) => Json::Object(
                                props
                                    .into_iter()
                                    .map(|(k, s)| (k, openapi_to_json_schema(s)))
                                    .collect(),
                            ),
                            other => other,
                        };
                        out.insert(key, converted);
                    }
                    "enum" | "required" => {
                        out.insert(key, v);
                    }
                    _ => {
                        out.insert(key, openapi_to_json_schema(v));
                    }
                }
            }
            if nullable {
                if let Some(Json::String(ty)) = out.get("type").cloned() {
                    out.insert("type".into(), serde_json::json!([ty, "null"]));
                }
                // In OpenAPI, `nullable` admits null even when an `enum` lists the values.
                if let Some(Json::Array(values)) = out.get_mut("enum") {
                    if !values.contains(&Json::Null) {
                        values.push(Json::Null);
                    }
                }
            }
            Json::Object(out)
        }
        Json::Array(items) => Json::Array(items.into_iter().map(openapi_to_json_schema).collect()),
        other => other,
    }
}

/// The name of a Gemini `Type` enum value written as its protobuf number
/// (`google.ai.generativelanguage.v1beta.Type`, `google.cloud.aiplatform.v1.Type`).
pub fn openapi_type_number(number: u64) -> Option<&'static str> {
    Some(match number {
        1 => "string",
        2 => "number",
        3 => "integer",
        4 => "boolean",
        5 => "array",
        6 => "object",
        7 => "null",
        _ => return None,
    })
}

/// OpenAI `strict: true`: every object allows no extra keys and requires every property,
/// unless the schema says otherwise explicitly.
fn apply_strict(schema: &mut Json) {
    match schema {
        Json::Object(map) => {
            if let Some(Json::Object(props)) = map.get("properties") {
                let names: Vec<Json> = props.keys().cloned().map(Json::String).collect();
                map.entry("additionalProperties")
                    .or_insert(Json::Bool(false));
                map.entry("required").or_insert(Json::Array(names));
            }
            for (key, child) in map.iter_mut() {
                if key == "properties" || key == "$defs" || key == "definitions" {
                    if let Json::Object(children) = child {
                        children.values_mut().for_each(apply_strict);
                    }
                } else if key != "enum" && key != "const" && key != "required" {
                    apply_strict(child);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(apply_strict),
        _ => {}
    }
}

/// A hash of a JSON value's structure and content, independent of key order.
/// A fast, fixed-seed hasher: schema keys are hashed on every cache lookup, and SipHash's
/// protection against crafted collisions buys nothing for keys a run compares for equality.
fn schema_hasher() -> impl Hasher {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().build_hasher()
}

fn structural_hash(value: &Json) -> u64 {
    let mut hasher = schema_hasher();
    hash_value(value, &mut hasher);
    hasher.finish()
}

fn hash_value(value: &Json, h: &mut impl Hasher) {
    match value {
        Json::Null => 0u8.hash(h),
        Json::Bool(b) => (1u8, b).hash(h),
        Json::Number(n) => {
            2u8.hash(h);
            match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.hash(h),
                (None, Some(u)) => u.hash(h),
                _ => n.as_f64().unwrap_or_default().to_bits().hash(h),
            }
        }
        Json::String(s) => (3u8, s).hash(h),
        Json::Array(items) => {
            (4u8, items.len()).hash(h);
            items.iter().for_each(|v| hash_value(v, h));
        }
        Json::Object(map) => {
            // Members hashed apart and summed: the order they are written in does not count.
            let sum = map.iter().fold(0u64, |acc, (k, v)| {
                let mut member = schema_hasher();
                k.hash(&mut member);
                hash_value(v, &mut member);
                acc.wrapping_add(member.finish())
            });
            (5u8, map.len(), sum).hash(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Loc;
    use serde_json::json;

    fn tool(schema: Json, dialect: SchemaDialect, strict: bool) -> ToolDef {
        ToolDef {
            name: "t".into(),
            schema: Some(SchemaDecl::Value(schema.into())),
            dialect,
            strict,
            builtin: false,
            object_root_required: true,
            loc: Loc::new(0, ""),
            schema_loc: Loc::new(0, ""),
        }
    }

    #[test]
    fn compiles_each_distinct_schema_once() {
        let cache = SchemaCache::default();
        let a = tool(
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            SchemaDialect::JsonSchema,
            false,
        );
        for _ in 0..100 {
            assert!(cache.get(&a).is_some());
        }
        let b = tool(json!({"type": "object"}), SchemaDialect::JsonSchema, false);
        cache.get(&b);
        assert_eq!(cache.len(), 2);
        // The same schema written in another key order is the same entry.
        let a2 = tool(
            json!({"properties": {"a": {"type": "string"}}, "type": "object"}),
            SchemaDialect::JsonSchema,
            false,
        );
        cache.get(&a2);
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn normalises_openapi_types_and_nullable() {
        let schema = openapi_to_json_schema(json!({
            "type": "OBJECT",
            "properties": {"type": {"type": "STRING", "nullable": true}, "n": {"type": "INTEGER"},
                           "u": {"type": "STRING", "enum": ["c", "f"], "nullable": true}},
            "propertyOrdering": ["type", "n"],
            "required": ["n"]
        }));
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"type": {"type": ["string", "null"]}, "n": {"type": "integer"},
                               "u": {"type": ["string", "null"], "enum": ["c", "f", null]}},
                "required": ["n"]
            })
        );
    }

    #[test]
    fn strict_forbids_extra_keys_and_requires_all() {
        let t = tool(
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"c": {"type": "integer"}}}}}),
            SchemaDialect::JsonSchema,
            true,
        );
        let compiled = SchemaCache::default().get(&t).unwrap();
        assert!(compiled
            .violations(&json!({"a": "x", "b": {"c": 1}}))
            .is_empty());
        let v = compiled.violations(&json!({"a": "x", "b": {}, "z": 1}));
        assert_eq!(v.len(), 2, "{v:?}");
    }

    #[test]
    fn reports_meta_schema_problems() {
        let t = tool(
            json!({"type": "object", "properties": {"q": {"type": "strin"}}}),
            SchemaDialect::JsonSchema,
            false,
        );
        let compiled = SchemaCache::default().get(&t).unwrap();
        assert!(compiled
            .invalid
            .as_deref()
            .unwrap_or_default()
            .contains("/properties/q/type"));
    }

    /// A schema whose root property is a chain of `links` `$ref`s through `$defs`.
    fn ref_chain(links: usize) -> Json {
        let mut defs: Map<String, Json> = (0..links)
            .map(|i| {
                (
                    format!("d{i}"),
                    json!({"$ref": format!("#/$defs/d{}", i + 1)}),
                )
            })
            .collect();
        defs.insert(format!("d{links}"), json!({"type": "string"}));
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})
    }

    #[test]
    fn a_long_ref_chain_is_beyond_the_limits_not_compiled() {
        let compiled = compile(ref_chain(15_000));
        assert!(compiled.validator.is_none());
        assert!(compiled.invalid.is_none(), "not invalid: unchecked");
        assert_eq!(
            compiled.beyond_limits.as_deref(),
            Some("nests deeper than 512 levels, counting each `$ref` followed")
        );
        assert!(compiled.check(&json!({"x": 1}), false) == Arc::default());
        // A chain within the limit is checked through to its end.
        let short = compile(ref_chain(400));
        assert!(short.beyond_limits.is_none());
        assert_eq!(short.violations(&json!({"x": 1})).len(), 1);
    }

    #[test]
    fn measures_ref_depth_and_recursion() {
        let shape = measure(&ref_chain(10)).expect("within the limits");
        // Root, the property, then d0..d10: each `$ref` followed is a level.
        assert_eq!(shape.depth, 13);
        assert!(!shape.recursive && !shape.backtracking);
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}, "name": {"type": "string", "pattern": "^[a-z]+$"}}});
        let shape = measure(&tree).expect("within the limits");
        assert!(shape.recursive && !shape.backtracking, "{shape:?}");
        // Anchors and embedded resources resolve as the validator resolves them.
        // Root, a (`#first`), b (`other.json`), then c, e and f inside b's resource.
        let anchored = json!({"$defs": {
            "a": {"$anchor": "first", "$ref": "other.json"},
            "b": {"$id": "other.json", "$ref": "#/$defs/c", "$defs": {
                "c": {"$ref": "#/$defs/e"}, "e": {"$ref": "#/$defs/f"}, "f": {"type": "string"}}}},
            "$ref": "#first"});
        assert_eq!(measure(&anchored).expect("within the limits").depth, 6);
        // A cycle that consumes no arguments is not an endless depth.
        let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert!(measure(&cycle).expect("within the limits").recursive);
        // A dynamic reference may lead to any dynamic anchor.
        let dynamic = json!({"$dynamicAnchor": "node", "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}});
        assert!(measure(&dynamic).expect("within the limits").recursive);
        // A schema met again deeper down counts in full: a 490-link chain walked first from
        // `$defs`, then reached at the end of another 30 links.
        let chain = ref_chain(490);
        let mut defs = chain.get("$defs").cloned().unwrap_or_default();
        if let Json::Object(defs) = &mut defs {
            for i in 0..30 {
                defs.insert(
                    format!("e{i}"),
                    json!({"$ref": format!("#/$defs/e{}", i + 1)}),
                );
            }
            defs.insert("e30".into(), json!({"$ref": "#/$defs/d0"}));
        }
        let ordered =
            json!({"$defs": defs, "type": "object", "properties": {"x": {"$ref": "#/$defs/e0"}}});
        assert!(measure(&chain).is_ok());
        assert!(measure(&ordered).is_err());
    }

    #[test]
    fn a_huge_schema_is_beyond_the_limits() {
        let props: Map<String, Json> = (0..MAX_SCHEMA_VALUES / 2)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let compiled = compile(json!({"type": "object", "properties": props}));
        assert!(compiled
            .beyond_limits
            .as_deref()
            .is_some_and(|r| r.starts_with("holds more than 100000 JSON values")));
    }

    #[test]
    fn deep_recursion_is_checked_on_a_stack_sized_for_it() {
        // Each level of the arguments follows 300 `$ref`s: ~36 000 frames, far more than a
        // 2 MiB thread holds.
        let mut defs: Map<String, Json> = (0..300)
            .map(|i| {
                (
                    format!("n{i}"),
                    json!({"$ref": format!("#/$defs/n{}", i + 1)}),
                )
            })
            .collect();
        defs.insert(
            "n300".into(),
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/n0"}}}),
        );
        let schema =
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/n0"}}, "$defs": defs});
        let mut arguments = json!("leaf");
        for _ in 0..120 {
            arguments = json!({ "x": arguments });
        }
        let compiled = compile(schema);
        let checked = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || compiled.check(&arguments, false))
            .expect("spawn")
            .join()
            .expect("no overflow");
        assert_eq!(checked.violations.len(), 1, "{checked:?}");
        assert!(checked.violations[0].ends_with(r#"is not of type "object""#));
    }

    #[test]
    fn only_fancy_patterns_may_backtrack() {
        for pattern in [r"^(a|aa)+\1$", "(?=x)", "(?<!y)z", r"\k<n>", "a++"] {
            assert!(may_backtrack(pattern), "{pattern}");
        }
        for pattern in ["^(a+)+$", r"^\d{3}-\d{4}$", "[a-z]+", r"\\"] {
            assert!(!may_backtrack(pattern), "{pattern}");
        }
        let props = json!({"type": "object", "patternProperties": {"^(x)\\1$": {}}});
        assert!(measure(&props).is_ok_and(|s| s.backtracking));
    }

    #[test]
    fn a_pattern_the_engine_gives_up_on_is_unchecked_not_violated() {
        let compiled = compile(json!({"type": "object", "properties": {
            "s": {"type": "string", "pattern": r"^(a|aa)+\1$"},
            "n": {"type": "integer"}}}));
        let hostile = json!({"s": format!("{}!", "a".repeat(40))});
        let checked = compiled.check(&hostile, false);
        assert!(checked.violations.is_empty(), "{checked:?}");
        assert!(checked.regex_gave_up);
        assert_eq!(
            checked.unchecked,
            [
                r#"the regex engine gave up after 100000 backtracking steps matching the schema's pattern "^(a|aa)+\\1$" (at /properties/s/pattern) against /s"#
            ]
        );
        // Checked once: the same arguments again are the same outcome, not another run.
        assert!(Arc::ptr_eq(&checked, &compiled.check(&hostile, false)));
        // Frugal: the lower limit.
        let frugal = compiled.check(&hostile, true);
        assert!(frugal.unchecked[0].contains("after 5000 backtracking steps"));
        // Patterns the engine decides stay violations, as does the rest of the schema.
        let plain = compiled.check(&json!({"s": "b", "n": "x"}), false);
        assert_eq!(plain.violations.len(), 2, "{plain:?}");
        assert!(plain.unchecked.is_empty());
    }
}
