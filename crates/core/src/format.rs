//! The formats toolcheck reads: their one registry ([`each_format!`]), and the tag the
//! transcript, findings and reports carry. The adapters that read each format live in
//! `formats/`, above the transcript, one module each, registered from the same list.

use crate::provider::Provider;

/// Every format, one line each, in the order they were added: a new format goes at the end,
/// since fuzz inputs pick a forced format by its place. Where two adapters score a document
/// alike, the earlier wins; lists of formats follow this order too.
///
/// `Variant "name" Kind [providers it is sent to as it stands] module_in_formats`
///
/// The module's adapter is the unit struct named like the variant. Adding a format is its
/// module plus one line here (`tests/registries.rs` holds this).
macro_rules! each_format {
    ($then:ident) => {
        $then! {
            OpenAiChat "openai-chat" Sent [Openai] openai_chat,
            OpenAiResponses "openai-responses" Sent [OpenaiResponses] openai_responses,
            Anthropic "anthropic" Sent [Anthropic] anthropic,
            Gemini "gemini" Sent [Gemini] gemini,
            BedrockConverse "bedrock-converse" Sent [Bedrock] bedrock_converse,
            ClaudeCode "claude-code" Resumed [Anthropic] claude_code,
            Codex "codex" Resumed [OpenaiResponses] codex,
            // The Vercel AI SDK and LangChain translate for many providers: the rules every
            // provider shares.
            VercelAi "vercel-ai" Sent [] vercel_ai,
            Langchain "langchain" Sent [] langchain,
            // Moltis replays a session to whichever provider it is configured with.
            Moltis "moltis" Resumed [] moltis,
            // An MCP log is tool traffic: the client's model sees it through its own format.
            Mcp "mcp" ToolTraffic [] mcp,
            SpringAi "spring-ai" Sent [] spring_ai,
            AgentScope "agentscope" Sent [] agentscope,
            // ADK reaches any model through LiteLLM; its events are Gemini-shaped whichever.
            Adk "adk" Resumed [] adk,
            LanggraphStream "langgraph-stream" Sent [] langgraph_stream,
            // Cline, Roo Code and Kilo Code keep Anthropic-shaped messages and translate them
            // for whichever provider the task uses.
            Cline "cline" Resumed [] cline,
            // pi's wire format follows each assistant's `api`, which may change within a
            // session.
            Pi "pi" Resumed [] pi,
            // Copilot CLI replays as Anthropic blocks for Claude models and Responses items
            // for GPT ones, per the session's model.
            CopilotCli "copilot-cli" Resumed [] copilot_cli,
            // Gemini CLI replays its recordings to Gemini as `Content[]`.
            GeminiCli "gemini-cli" Resumed [Gemini] gemini_cli,
            // Qwen Code keeps Gemini `Content` and translates it for the configured provider,
            // mostly OpenAI-compatible endpoints.
            QwenCode "qwen-code" Resumed [] qwen_code,
            // Goose replays a session to whichever provider it is configured with.
            Goose "goose" Resumed [] goose,
            // opencode converts its parts with the AI SDK for whichever provider the
            // session's model uses.
            Opencode "opencode" Resumed [] opencode,
            // Crush converts its messages with its `fantasy` library for whichever provider
            // the session's model uses.
            Crush "crush" Resumed [] crush,
            // A trace names the provider each request went to (`Conversation::provider`); one
            // that does not is held to the rules every provider shares.
            Otel "otel" Sent [] otel,
            OpenInference "openinference" Sent [] openinference,
            // Pydantic AI replays its history to whichever provider the agent's model uses.
            PydanticAi "pydantic-ai" Sent [] pydantic_ai,
            Langfuse "langfuse" Sent [] langfuse,
            Langsmith "langsmith" Sent [] langsmith,
            LanggraphCheckpoint "langgraph-checkpoint" Resumed [] langgraph_checkpoint,
            // A Letta agent names its model endpoint (`llm_config.model_endpoint_type`).
            Letta "letta" Resumed [] letta,
            // Strands keeps Converse messages; Bedrock is its default model provider.
            Strands "strands" Resumed [Bedrock] strands,
            // ATIF is converted from many agents and providers: the rules they share.
            Atif "atif" Sent [] atif,
            // OpenHands replays its history through LiteLLM to any provider.
            OpenHands "openhands" Resumed [] openhands,
            // Kimi Code CLI's default provider (`kimi`) is Moonshot's OpenAI-compatible
            // endpoint; one configured otherwise is not named in the session.
            KimiCli "kimi-cli" Resumed [Moonshot] kimi_cli,
            // Hermes Agent sends the Chat Completions wire to whichever provider the session
            // uses; the rows do not name it.
            Hermes "hermes" Resumed [] hermes,
            // Factory Droid reaches whichever provider its model uses (Factory's proxy or a
            // custom model); the session does not name it.
            Droid "droid" Resumed [] droid,
            // DeepSeek Harness (`dsh`) sends its history to DeepSeek's Chat Completions
            // through its bundled adapter (`llm-deepseek`).
            DeepseekHarness "deepseek-harness" Resumed [Deepseek] dsh,
        }
    };
}
pub(crate) use each_format;

/// What a format's files are to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What is, or was, sent to a provider: a request body, a dataset record, a trace.
    Sent,
    /// A session store that an agent or its framework resumes (not a request body, a
    /// dataset or a trace): what it sends is what its loader makes of the store.
    Resumed,
    /// Tool traffic between a client and a server (MCP): the model sees it through the
    /// client's own format, so it is held to no chat provider, whatever `--target` names,
    /// and what rules find in it is never a provider's rejection.
    ToolTraffic,
}

macro_rules! declare_formats {
    ($($variant:ident $name:literal $kind:ident [$($native:ident),*] $module:ident,)*) => {
        /// The formats toolcheck reads (docs/formats/, generated from each adapter's `DOC`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Format {
            $($variant,)*
        }

        impl Format {
            /// Every format, in registry order.
            pub const ALL: &'static [Format] = &[$(Format::$variant,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(Format::$variant => $name,)*
                }
            }

            pub fn kind(self) -> Kind {
                match self {
                    $(Format::$variant => Kind::$kind,)*
                }
            }

            /// The providers the format is sent to as it stands: a session is replayed to
            /// the provider its tool speaks (Claude Code: Anthropic; Codex: the Responses
            /// API); a format translated for many is held to the rules every provider
            /// shares (none listed).
            pub fn native(self) -> &'static [Provider] {
                match self {
                    $(Format::$variant => &[$(Provider::$native),*],)*
                }
            }
        }
    };
}
each_format!(declare_formats);

impl Format {
    /// Whether files of this format are an agent's own session store, which the agent or its
    /// framework resumes.
    pub fn is_agent_session(self) -> bool {
        self.kind() == Kind::Resumed
    }

    /// Whether the format's conversations reach a chat model as they stand ([`Kind`]).
    pub fn sent_to_a_model(self) -> bool {
        self.kind() != Kind::ToolTraffic
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Every format's name, comma-separated, in registry order (for messages).
    pub fn names() -> String {
        Format::ALL
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
