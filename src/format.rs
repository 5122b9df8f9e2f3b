//! The names of the formats toolcheck reads: a tag the transcript, findings and reports
//! carry. The adapters that read each format live in `formats/`, above the transcript.

/// The formats toolcheck reads (README.md, "Formats").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
    BedrockConverse,
    ClaudeCode,
    Codex,
    VercelAi,
    Langchain,
    Moltis,
    Mcp,
    SpringAi,
    AgentScope,
    Adk,
    LanggraphStream,
    Cline,
    Pi,
    CopilotCli,
    GeminiCli,
    QwenCode,
    Goose,
    Opencode,
    Crush,
    Otel,
    OpenInference,
    PydanticAi,
    Langfuse,
    Langsmith,
    LanggraphCheckpoint,
    Letta,
    Strands,
    Atif,
    OpenHands,
}

impl Format {
    pub const ALL: [Format; 33] = [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::BedrockConverse,
        Format::ClaudeCode,
        Format::Codex,
        Format::VercelAi,
        Format::Langchain,
        Format::Moltis,
        Format::Mcp,
        Format::SpringAi,
        Format::AgentScope,
        Format::Adk,
        Format::LanggraphStream,
        Format::Cline,
        Format::Pi,
        Format::CopilotCli,
        Format::GeminiCli,
        Format::QwenCode,
        Format::Goose,
        Format::Opencode,
        Format::Crush,
        Format::Otel,
        Format::OpenInference,
        Format::PydanticAi,
        Format::Langfuse,
        Format::Langsmith,
        Format::LanggraphCheckpoint,
        Format::Letta,
        Format::Strands,
        Format::Atif,
        Format::OpenHands,
    ];

    /// Whether files of this format are an agent's own session store, which the agent or its
    /// framework resumes (not a request body, a dataset or a trace).
    pub fn is_agent_session(self) -> bool {
        matches!(
            self,
            Format::ClaudeCode
                | Format::Codex
                | Format::Moltis
                | Format::Cline
                | Format::Pi
                | Format::CopilotCli
                | Format::GeminiCli
                | Format::QwenCode
                | Format::Goose
                | Format::Opencode
                | Format::Crush
                | Format::OpenHands
                | Format::Strands
                | Format::Adk
                | Format::Letta
                | Format::LanggraphCheckpoint
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::BedrockConverse => "bedrock-converse",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::VercelAi => "vercel-ai",
            Format::Langchain => "langchain",
            Format::Moltis => "moltis",
            Format::Mcp => "mcp",
            Format::SpringAi => "spring-ai",
            Format::AgentScope => "agentscope",
            Format::Adk => "adk",
            Format::LanggraphStream => "langgraph-stream",
            Format::Cline => "cline",
            Format::Pi => "pi",
            Format::CopilotCli => "copilot-cli",
            Format::GeminiCli => "gemini-cli",
            Format::QwenCode => "qwen-code",
            Format::Goose => "goose",
            Format::Opencode => "opencode",
            Format::Crush => "crush",
            Format::Otel => "otel",
            Format::OpenInference => "openinference",
            Format::PydanticAi => "pydantic-ai",
            Format::Langfuse => "langfuse",
            Format::Langsmith => "langsmith",
            Format::LanggraphCheckpoint => "langgraph-checkpoint",
            Format::Letta => "letta",
            Format::Strands => "strands",
            Format::Atif => "atif",
            Format::OpenHands => "openhands",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
