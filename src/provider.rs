//! The providers whose acceptance rules toolcheck models, and which ones a conversation is
//! held to: its own format's provider by default, or those `--target` names (a history kept
//! in one shape and translated for several providers by LiteLLM, LangChain, the Vercel AI
//! SDK, OpenRouter...).

use serde::Serialize;

use crate::format::Format;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// OpenAI Chat Completions (and the many OpenAI-compatible endpoints).
    Openai,
    /// OpenAI Responses API.
    OpenaiResponses,
    /// Anthropic Messages API (also Claude on Bedrock and Vertex AI).
    Anthropic,
    /// Google Gemini (Generative Language API and Vertex AI).
    Gemini,
    /// Amazon Bedrock Converse.
    Bedrock,
    /// Mistral chat completions.
    Mistral,
    /// Gemini on Vertex AI: Gemini's rules, held strictly where the endpoints differ. Vertex
    /// keeps consecutive same-role Contents apart where the Gemini API has accepted them
    /// merged (see `result-count-mismatch`), so a history that must work on both is checked
    /// with `--target gemini-vertex`.
    GeminiVertex,
    /// DeepSeek's OpenAI-compatible chat completions.
    Deepseek,
    /// Moonshot AI's Kimi models on their OpenAI-compatible endpoint (`kimi` for short).
    #[value(alias = "kimi")]
    #[serde(alias = "kimi")]
    Moonshot,
}

impl Provider {
    pub const ALL: [Provider; 9] = [
        Provider::Openai,
        Provider::OpenaiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Mistral,
        Provider::GeminiVertex,
        Provider::Deepseek,
        Provider::Moonshot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::OpenaiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
            Provider::Mistral => "mistral",
            Provider::GeminiVertex => "gemini-vertex",
            Provider::Deepseek => "deepseek",
            Provider::Moonshot => "moonshot",
        }
    }

    /// The provider whose rules this one follows wherever the endpoints agree (Gemini for
    /// `gemini-vertex`).
    pub fn base(self) -> Provider {
        match self {
            Provider::GeminiVertex => Provider::Gemini,
            other => other,
        }
    }

    pub fn from_name(name: &str) -> Option<Provider> {
        if name == "kimi" {
            return Some(Provider::Moonshot);
        }
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The providers a format is sent to as it stands. Session and framework formats are
    /// replayed to the provider their tool speaks (Claude Code: Anthropic; Codex: the
    /// Responses API); the Vercel AI SDK and LangChain translate for many, so they are held
    /// to the rules every provider shares.
    pub fn native(format: Format) -> &'static [Provider] {
        match format {
            Format::OpenAiChat => &[Provider::Openai],
            Format::OpenAiResponses | Format::Codex => &[Provider::OpenaiResponses],
            Format::Anthropic | Format::ClaudeCode => &[Provider::Anthropic],
            Format::Gemini => &[Provider::Gemini],
            Format::BedrockConverse => &[Provider::Bedrock],
            // Strands keeps Converse messages; Bedrock is its default model provider.
            Format::Strands => &[Provider::Bedrock],
            Format::VercelAi | Format::Langchain | Format::LanggraphCheckpoint => &[],
            // Moltis replays a session to whichever provider it is configured with.
            Format::Moltis => &[],
            // An MCP log is tool traffic: the client's model sees it through its own format.
            Format::Mcp => &[],
            Format::SpringAi => &[],
            Format::AgentScope => &[],
            // ADK reaches any model through LiteLLM; its events are Gemini-shaped whichever.
            Format::Adk => &[],
            Format::LanggraphStream => &[],
            // Cline, Roo Code and Kilo Code keep Anthropic-shaped messages and translate them
            // for whichever provider the task uses.
            Format::Cline => &[],
            // pi's wire format follows each assistant's `api`, which may change within a
            // session.
            Format::Pi => &[],
            // Copilot CLI replays as Anthropic blocks for Claude models and Responses items for
            // GPT ones, per the session's model.
            Format::CopilotCli => &[],
            // Gemini CLI replays its recordings to Gemini as `Content[]`.
            Format::GeminiCli => &[Provider::Gemini],
            // Qwen Code keeps Gemini `Content` and translates it for the configured provider,
            // mostly OpenAI-compatible endpoints.
            Format::QwenCode => &[],
            // Goose replays a session to whichever provider it is configured with.
            Format::Goose => &[],
            // opencode converts its parts with the AI SDK for whichever provider the session's
            // model uses.
            Format::Opencode => &[],
            // Crush converts its messages with its `fantasy` library for whichever provider
            // the session's model uses.
            Format::Crush => &[],
            // A trace names the provider each request went to (`Conversation::provider`);
            // one that does not is held to the rules every provider shares.
            Format::Otel | Format::OpenInference | Format::Langfuse | Format::Langsmith => &[],
            // A Letta agent names its model endpoint (`llm_config.model_endpoint_type`).
            Format::Letta => &[],
            // ATIF is converted from many agents and providers: the rules they share.
            Format::Atif => &[],
            // OpenHands replays its history through LiteLLM to any provider.
            Format::OpenHands => &[],
            // Pydantic AI replays its history to whichever provider the agent's model uses.
            Format::PydanticAi => &[],
        }
    }
}

/// The provider a trace names (OTel `gen_ai.provider.name` / `gen_ai.system`, OpenInference
/// `llm.provider` / `llm.system`), in any of the spellings instrumentations write.
pub fn from_trace_name(name: &str) -> Option<Provider> {
    let name = name.trim().to_ascii_lowercase();
    Some(match name.as_str() {
        "openai" | "azure.ai.openai" | "az.ai.openai" | "azure" => Provider::Openai,
        "anthropic" => Provider::Anthropic,
        "gcp.gemini" | "gcp.vertex_ai" | "gcp.gen_ai" | "gemini" | "google" | "vertex_ai"
        | "vertexai" | "google_genai" => Provider::Gemini,
        "aws.bedrock" | "bedrock" | "aws" => Provider::Bedrock,
        "mistral_ai" | "mistralai" | "mistral" => Provider::Mistral,
        _ => return None,
    })
}

/// The provider an OpenAI-shaped request is sent to, from the `model` it names
/// (`deepseek-chat`, `kimi-k2.5`, `mistral-small-latest`, `claude-sonnet-4-5`,
/// `gemini-2.5-flash`): those names are served by their own provider's OpenAI-compatible
/// endpoint, which holds the body to its own rules. A name with a router's prefix
/// (`deepseek/deepseek-chat`) goes through a router that translates, so it names none.
pub fn from_model(model: &str) -> Option<Provider> {
    let model = model.trim().to_ascii_lowercase();
    if model.contains('/') {
        return None;
    }
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| model.starts_with(p));
    Some(if starts(&["deepseek-"]) {
        Provider::Deepseek
    } else if starts(&["kimi-", "moonshot-"]) {
        Provider::Moonshot
    } else if starts(&["mistral-", "magistral-", "codestral-", "devstral-"]) {
        Provider::Mistral
    } else if starts(&["claude-"]) {
        Provider::Anthropic
    } else if starts(&["gemini-"]) {
        Provider::Gemini
    } else {
        return None;
    })
}

/// Whether a format's conversations reach a chat model as they stand. An MCP log is tool
/// traffic between a client and a server: the model sees it through the client's own format,
/// so the log is held to no chat provider, whatever `--target` names, and what rules find in
/// it is never a provider's rejection.
pub fn sent_to_a_model(format: Format) -> bool {
    format != Format::Mcp
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `"anthropic and bedrock"`, `"openai, gemini and mistral"`.
pub fn list(providers: &[Provider]) -> String {
    let names: Vec<&str> = providers.iter().map(|p| p.name()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
