//! Agent versions as sessions record them ("2.1.332", "v0.73.1", "1.0.102-beta.3").

/// A dotted version, compared number by number; a pre-release (`-beta.3`) sorts before
/// its release. What is not a number ends the version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    numbers: Vec<u64>,
    /// `false` for a pre-release, so `1.0.0-rc.1 < 1.0.0`.
    release: bool,
}

impl Version {
    pub fn parse(text: &str) -> Version {
        let text = text.trim();
        let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
        let (core, pre) = match text.find(['-', '+', ' ']) {
            Some(at) => (text.get(..at).unwrap_or(text), text.get(at..).unwrap_or("")),
            None => (text, ""),
        };
        let mut numbers = Vec::new();
        for part in core.split('.') {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            let Ok(n) = digits.parse::<u64>() else { break };
            numbers.push(n);
            if digits.len() != part.len() {
                break;
            }
        }
        // Trailing zeros do not make a version newer: 2.1 is 2.1.0.
        while numbers.len() > 1 && numbers.last() == Some(&0) {
            numbers.pop();
        }
        Version {
            numbers,
            release: !pre.starts_with('-'),
        }
    }

    /// Whether no number was read.
    pub fn is_empty(&self) -> bool {
        self.numbers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn orders_as_agents_number_releases() {
        let v = Version::parse;
        assert!(v("2.1.281") > v("2.1.280"));
        assert!(v("2.1.332") > v("2.1.99"));
        assert!(v("v0.25.0") == v("0.25"));
        assert!(v("1.0.0-beta.3") < v("1.0.0"));
        assert!(v("0.171.0") > v("0.5.43"));
        assert!(v("rust-v0.44.0").is_empty());
        assert!(v("").is_empty());
        assert!(v("2.1.3abc") == v("2.1.3"));
    }
}
