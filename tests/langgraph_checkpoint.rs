//! LangGraph checkpoint databases (`langgraph-checkpoint-sqlite`), built here with the schema
//! `SqliteSaver.setup()` creates and checkpoints packed as `JsonPlusSerializer` packs them
//! (msgpack, LangChain messages as extension 5 `[module, class, model_dump(),
//! "model_validate_json"]`), linted through the real binary.

use crate::common;

use std::path::Path;

use common::toolcheck_in;
use rmpv::Value as Mp;
use rusqlite::Connection;

/// `SqliteSaver.setup()` (langgraph `libs/checkpoint-sqlite/langgraph/checkpoint/sqlite/__init__.py`).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    type TEXT,
    checkpoint BLOB,
    metadata BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT,
    value BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
";

fn map(entries: Vec<(&str, Mp)>) -> Mp {
    Mp::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

fn packed(value: &Mp) -> Vec<u8> {
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, value).expect("encode");
    bytes
}

/// A pydantic v2 model as `_msgpack_default` packs it.
fn pydantic(module: &str, class: &str, dump: Mp) -> Mp {
    Mp::Ext(
        5,
        packed(&Mp::Array(vec![
            module.into(),
            class.into(),
            dump,
            "model_validate_json".into(),
        ])),
    )
}

fn human(text: &str) -> Mp {
    pydantic(
        "langchain_core.messages.human",
        "HumanMessage",
        map(vec![
            ("content", text.into()),
            ("additional_kwargs", map(vec![])),
            ("response_metadata", map(vec![])),
            ("type", "human".into()),
            ("name", Mp::Nil),
            ("id", Mp::Nil),
            ("example", false.into()),
        ]),
    )
}

/// An AIMessage calling `calls` (`(id, name, args)`).
fn ai(text: &str, calls: &[(&str, &str, Mp)]) -> Mp {
    let tool_calls = calls
        .iter()
        .map(|(id, name, args)| {
            map(vec![
                ("name", (*name).into()),
                ("args", args.clone()),
                ("id", (*id).into()),
                ("type", "tool_call".into()),
            ])
        })
        .collect();
    pydantic(
        "langchain_core.messages.ai",
        "AIMessage",
        map(vec![
            ("content", text.into()),
            ("additional_kwargs", map(vec![])),
            (
                "response_metadata",
                map(vec![
                    ("finish_reason", "tool_calls".into()),
                    ("model_provider", "openai".into()),
                ]),
            ),
            ("type", "ai".into()),
            ("name", Mp::Nil),
            ("id", "run--4c1b9d7e-0a52-4f7e-9b1c-2d3e4f5a6b7c-0".into()),
            ("example", false.into()),
            ("tool_calls", Mp::Array(tool_calls)),
            ("invalid_tool_calls", Mp::Array(vec![])),
            ("usage_metadata", Mp::Nil),
        ]),
    )
}

fn tool(id: &str, name: &str, text: &str, status: &str) -> Mp {
    pydantic(
        "langchain_core.messages.tool",
        "ToolMessage",
        map(vec![
            ("content", text.into()),
            ("additional_kwargs", map(vec![])),
            ("response_metadata", map(vec![])),
            ("type", "tool".into()),
            ("name", name.into()),
            ("id", Mp::Nil),
            ("tool_call_id", id.into()),
            ("artifact", Mp::Nil),
            ("status", status.into()),
        ]),
    )
}

/// A v4 checkpoint whose `messages` channel holds `messages`.
fn checkpoint(id: &str, messages: Vec<Mp>) -> Vec<u8> {
    let ts = Mp::Ext(
        3,
        packed(&Mp::Array(vec![
            "datetime".into(),
            "datetime".into(),
            "2025-06-05T09:00:00+00:00".into(),
            "fromisoformat".into(),
        ])),
    );
    packed(&map(vec![
        ("v", 4.into()),
        ("ts", ts),
        ("id", id.into()),
        (
            "channel_values",
            map(vec![
                ("messages", Mp::Array(messages)),
                ("branch:to:agent", Mp::Nil),
            ]),
        ),
        (
            "channel_versions",
            map(vec![(
                "messages",
                "00000000000000000000000000000004.0.1".into(),
            )]),
        ),
        ("versions_seen", map(vec![])),
        ("updated_channels", Mp::Array(vec!["messages".into()])),
    ]))
}

/// Writes a database with these checkpoints: `(thread, namespace, checkpoint id, type,
/// checkpoint)`.
fn database(path: &Path, rows: &[(&str, &str, &str, &str, Vec<u8>)]) {
    let conn = Connection::open(path).expect("create the database");
    conn.execute_batch(SCHEMA).expect("create the tables");
    for (thread, ns, id, kind, blob) in rows {
        conn.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![thread, ns, id, kind, blob, br#"{"source": "loop", "step": 3}"#.to_vec()],
        )
        .expect("insert a checkpoint");
    }
    // A pending write the reader leaves alone.
    conn.execute(
        "INSERT INTO writes VALUES ('user_4919', '', '1f0a-0003', 'task-1', 0, '__error__', 'msgpack', ?1)",
        [packed(&Mp::from("RateLimitError: 429"))],
    )
    .expect("insert a write");
}

fn args(city: &str) -> Mp {
    map(vec![("city", city.into())])
}

/// A clean thread whose earlier checkpoint had an unanswered call (only the latest is read),
/// a thread ending with a call answered by nothing before the user spoke again, three failed
/// identical calls in a row, a subgraph checkpoint with an orphaned result (not the root
/// history: not read), and a pickled checkpoint.
fn broken(path: &Path) {
    let weather = || ai("", &[("call_w1", "get_weather", args("Oslo"))]);
    let notify = |n: &str| {
        ai(
            "",
            &[(n, "send_notification", map(vec![("user", "u1".into())]))],
        )
    };
    database(
        path,
        &[
            (
                "user_clean",
                "",
                "1f0a-0001",
                "msgpack",
                checkpoint("1f0a-0001", vec![human("Weather in Oslo?"), weather()]),
            ),
            (
                "user_clean",
                "",
                "1f0a-0002",
                "msgpack",
                checkpoint(
                    "1f0a-0002",
                    vec![
                        human("Weather in Oslo?"),
                        weather(),
                        tool("call_w1", "get_weather", "12C, cloudy", "success"),
                        ai("12C and cloudy.", &[]),
                    ],
                ),
            ),
            (
                "user_3974",
                "",
                "1f0a-0002",
                "msgpack",
                checkpoint(
                    "1f0a-0002",
                    vec![
                        human("Book a flight to Lima"),
                        ai("", &[("enyf61gyp", "search_flights", args("Lima"))]),
                        human("Hello?"),
                    ],
                ),
            ),
            (
                "user_4919",
                "",
                "1f0a-0003",
                "msgpack",
                checkpoint(
                    "1f0a-0003",
                    vec![
                        human("Tell u1 the booking is confirmed"),
                        notify("n1"),
                        tool(
                            "n1",
                            "send_notification",
                            "Error: Notification trigger failed with status: 429",
                            "error",
                        ),
                        notify("n2"),
                        tool(
                            "n2",
                            "send_notification",
                            "Error: Notification trigger failed with status: 429",
                            "error",
                        ),
                        notify("n3"),
                        tool(
                            "n3",
                            "send_notification",
                            "Error: Notification trigger failed with status: 429",
                            "error",
                        ),
                    ],
                ),
            ),
            (
                "user_4919",
                "tools:7b2e",
                "1f0a-0004",
                "msgpack",
                checkpoint("1f0a-0004", vec![tool("gone", "x", "stale", "success")]),
            ),
            (
                "user_pickled",
                "",
                "1f0a-0001",
                "pickle",
                b"\x80\x04\x95".to_vec(),
            ),
        ],
    );
}

#[test]
fn latest_checkpoint_per_thread() {
    let dir = tempfile::tempdir().expect("tempdir");
    broken(&dir.path().join("checkpoints.sqlite"));
    let out = toolcheck_in(
        dir.path(),
        &[
            "lint",
            "-v",
            "--output-format",
            "concise",
            "checkpoints.sqlite",
        ],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn clean_thread_lints_clean_and_is_found_by_walks() {
    let dir = tempfile::tempdir().expect("tempdir");
    database(
        &dir.path().join("checkpoints.db"),
        &[(
            "t1",
            "",
            "1f0a-0001",
            "msgpack",
            checkpoint(
                "1f0a-0001",
                vec![
                    human("Weather in Oslo?"),
                    ai("", &[("call_w1", "get_weather", args("Oslo"))]),
                    tool("call_w1", "get_weather", "12C, cloudy", "success"),
                    ai("12C and cloudy.", &[]),
                ],
            ),
        )],
    );
    let out = toolcheck_in(dir.path(), &["lint", "-v", "."], None);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr.contains(
            "checked checkpoints.db (langgraph-checkpoint): 1 conversation, 1 call, 1 result"
        ),
        "{}",
        out.transcript()
    );
}

/// msgpack inside SQLite has no byte edits: `fix` offers nothing and writes nothing.
#[test]
fn fix_offers_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("checkpoints.sqlite");
    broken(&path);
    let before = std::fs::read(&path).expect("read");
    let out = toolcheck_in(
        dir.path(),
        &["fix", "--write", "--unsafe-fixes", "checkpoints.sqlite"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(std::fs::read(&path).expect("read"), before);
}
