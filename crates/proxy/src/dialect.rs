//! The request dialects the proxy checks, chosen by path, and each provider's own error shape
//! for a request the proxy answers itself.

use serde_json::json;

/// A provider API whose requests carry a tool history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Anthropic Messages: `POST /v1/messages`.
    AnthropicMessages,
    /// OpenAI Chat Completions: `POST …/chat/completions` (OpenAI and the OpenAI-compatible
    /// endpoints: DeepSeek, Moonshot, Mistral, Azure deployments, local servers).
    OpenAiChat,
    /// OpenAI Responses: `POST …/responses`.
    OpenAiResponses,
    /// Gemini: `POST …/models/{model}:generateContent` or `:streamGenerateContent`
    /// (Generative Language API and Vertex AI).
    Gemini,
}

impl Dialect {
    pub const ALL: [Dialect; 4] = [
        Dialect::AnthropicMessages,
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Gemini,
    ];

    /// The dialect of a `POST` to `path` (without its query), if it is one the proxy checks.
    pub fn of(path: &str) -> Option<Dialect> {
        let path = path.trim_end_matches('/');
        if path.ends_with("/v1/messages") {
            Some(Dialect::AnthropicMessages)
        } else if path.ends_with("/chat/completions") {
            Some(Dialect::OpenAiChat)
        } else if path.ends_with("/responses") {
            Some(Dialect::OpenAiResponses)
        } else if path.contains("/models/")
            && (path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent"))
        {
            Some(Dialect::Gemini)
        } else {
            None
        }
    }

    /// The `--input-format` its request bodies are read as.
    pub fn input_format(self) -> &'static str {
        match self {
            Dialect::AnthropicMessages => "anthropic",
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Gemini => "gemini",
        }
    }

    /// A short name for log lines and recorded files: its input format's.
    pub fn name(self) -> &'static str {
        self.input_format()
    }

    /// The body the provider itself answers with, holding `message`: what a client already
    /// knows how to show. `status` is 400 for a rejected request, 413 for one over the size
    /// limit, 502 for an upstream that could not be reached.
    pub fn error_body(self, status: u16, message: &str) -> serde_json::Value {
        match self {
            // https://docs.anthropic.com/en/api/errors
            Dialect::AnthropicMessages => json!({
                "type": "error",
                "error": {
                    "type": match status {
                        413 => "request_too_large",
                        500.. => "api_error",
                        _ => "invalid_request_error",
                    },
                    "message": message,
                },
            }),
            // https://platform.openai.com/docs/guides/error-codes
            Dialect::OpenAiChat | Dialect::OpenAiResponses => json!({
                "error": {
                    "message": message,
                    "type": if status >= 500 { "server_error" } else { "invalid_request_error" },
                    "param": null,
                    "code": null,
                },
            }),
            // https://ai.google.dev/gemini-api/docs/troubleshooting (google.rpc.Status)
            Dialect::Gemini => json!({
                "error": {
                    "code": status,
                    "message": message,
                    "status": if status >= 500 { "UNAVAILABLE" } else { "INVALID_ARGUMENT" },
                },
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_pick_their_dialect() {
        let cases = [
            ("/v1/messages", Some(Dialect::AnthropicMessages)),
            ("/anthropic/v1/messages/", Some(Dialect::AnthropicMessages)),
            ("/v1/messages/count_tokens", None),
            ("/v1/chat/completions", Some(Dialect::OpenAiChat)),
            ("/chat/completions", Some(Dialect::OpenAiChat)),
            (
                "/openai/deployments/gpt/chat/completions",
                Some(Dialect::OpenAiChat),
            ),
            ("/v1/responses", Some(Dialect::OpenAiResponses)),
            ("/v1/responses/resp_1", None),
            (
                "/v1beta/models/gemini-2.5-pro:generateContent",
                Some(Dialect::Gemini),
            ),
            (
                "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
                Some(Dialect::Gemini),
            ),
            (
                "/v1/projects/p/locations/us/publishers/google/models/g:generateContent",
                Some(Dialect::Gemini),
            ),
            ("/v1beta/models/gemini-2.5-pro:countTokens", None),
            ("/v1/models", None),
        ];
        for (path, want) in cases {
            assert_eq!(Dialect::of(path), want, "{path}");
        }
    }

    #[test]
    fn error_bodies_are_the_providers_shapes() {
        let anthropic = Dialect::AnthropicMessages.error_body(400, "m");
        assert_eq!(anthropic["type"], "error");
        assert_eq!(anthropic["error"]["type"], "invalid_request_error");
        let openai = Dialect::OpenAiChat.error_body(400, "m");
        assert_eq!(openai["error"]["message"], "m");
        assert_eq!(openai["error"]["type"], "invalid_request_error");
        let gemini = Dialect::Gemini.error_body(400, "m");
        assert_eq!(gemini["error"]["status"], "INVALID_ARGUMENT");
        assert_eq!(gemini["error"]["code"], 400);
        let large = Dialect::AnthropicMessages.error_body(413, "m");
        assert_eq!(large["error"]["type"], "request_too_large");
    }
}
