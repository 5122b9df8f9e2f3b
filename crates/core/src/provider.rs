//! The providers whose acceptance rules toolcheck models, and which ones a conversation is
//! held to: its own format's provider by default, or those `--target` names (a history kept
//! in one shape and translated for several providers by LiteLLM, LangChain, the Vercel AI
//! SDK, OpenRouter...).

use serde::Serialize;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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
    #[cfg_attr(feature = "clap", value(alias = "kimi"))]
    #[serde(alias = "kimi")]
    Moonshot,
    /// MiniMax's OpenAI-compatible chat completions (`MiniMax-M2.7` …).
    Minimax,
    /// Alibaba Cloud Model Studio (DashScope): Qwen models on its OpenAI-compatible endpoint
    /// (`qwen` for short).
    #[cfg_attr(feature = "clap", value(alias = "qwen"))]
    #[serde(alias = "qwen")]
    Dashscope,
}

impl Provider {
    pub const ALL: [Provider; 11] = [
        Provider::Openai,
        Provider::OpenaiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Mistral,
        Provider::GeminiVertex,
        Provider::Deepseek,
        Provider::Moonshot,
        Provider::Minimax,
        Provider::Dashscope,
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
            Provider::Minimax => "minimax",
            Provider::Dashscope => "dashscope",
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
        match name {
            "kimi" => return Some(Provider::Moonshot),
            "qwen" => return Some(Provider::Dashscope),
            _ => {}
        }
        Provider::ALL.into_iter().find(|p| p.name() == name)
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
/// `gemini-2.5-flash`, `MiniMax-M2.7`, `qwen3-coder-plus`): those names are served by their own provider's OpenAI-compatible
/// endpoint, which holds the body to its own rules. A name with a router's prefix
/// (`deepseek/deepseek-chat`) goes through a router that translates, so it names none.
pub fn from_model(model: &str) -> Option<Provider> {
    let model = model.trim().to_ascii_lowercase();
    // `vendor/model` names a router; `name:tag` a local runtime (Ollama's `qwen3:8b`).
    if model.contains('/') || model.contains(':') {
        return None;
    }
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| model.starts_with(p));
    Some(if starts(&["deepseek-"]) {
        Provider::Deepseek
    } else if starts(&["kimi-", "moonshot-"]) {
        Provider::Moonshot
    } else if starts(&["minimax-"]) {
        Provider::Minimax
    } else if starts(&["qwen-", "qwen2", "qwen3", "qwq-"]) {
        Provider::Dashscope
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
