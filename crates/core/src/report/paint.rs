//! The colours of the human-readable reports (`concise`, `doctor`, `rules`): SGR sequences
//! around text toolcheck wrote, never around text from a log (that is escaped first), and
//! nothing at all when colour is off.

use crate::finding::Severity;

const BOLD: &str = "\x1b[1m";
const ERROR: &str = "\x1b[1;31m";
const WARNING: &str = "\x1b[1;33m";
const GOOD: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

/// Whether to colour, and how each kind of text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

impl Paint {
    pub fn new(on: bool) -> Paint {
        Paint { on }
    }

    fn wrap(self, style: &str, text: &str) -> String {
        if self.on {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// A place or a heading.
    pub fn bold(self, text: &str) -> String {
        self.wrap(BOLD, text)
    }

    /// What a provider rejects: an error code, sessions that will not resume.
    pub fn error(self, text: &str) -> String {
        self.wrap(ERROR, text)
    }

    /// What costs money or correctness: a warning code, sessions the agent patches.
    pub fn warning(self, text: &str) -> String {
        self.wrap(WARNING, text)
    }

    /// What is fine or repaired.
    pub fn good(self, text: &str) -> String {
        self.wrap(GOOD, text)
    }

    pub fn severity(self, severity: Severity, text: &str) -> String {
        match severity {
            Severity::Error => self.error(text),
            Severity::Warning => self.warning(text),
        }
    }

    /// `text` as an error when `count` is not 0, plain otherwise.
    pub fn error_if(self, count: usize, text: &str) -> String {
        if count > 0 {
            self.error(text)
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_the_text_alone() {
        let off = Paint::new(false);
        assert_eq!(off.error("TC101"), "TC101");
        assert_eq!(Paint::new(true).error("TC101"), "\x1b[1;31mTC101\x1b[0m");
        assert_eq!(
            Paint::new(true).error_if(0, "0 will not resume"),
            "0 will not resume"
        );
    }
}
