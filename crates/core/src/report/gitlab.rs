//! GitLab Code Quality reports (`artifacts:reports:codequality`): a JSON array of issues, each
//! with a description, a check name, a fingerprint that stays the same while the finding does
//! (GitLab compares the merge request's report with the target branch's by it), a severity,
//! and a location.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::{json, Value as Json};

use super::Diagnostic;
use crate::finding::Severity;

pub fn write(out: &mut dyn Write, diagnostics: &[Diagnostic]) -> io::Result<()> {
    // Two findings with the same key get different fingerprints by their order.
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let issues: Vec<Json> = diagnostics
        .iter()
        .map(|d| {
            let key = fnv1a(&[d.code, &d.path, &d.pointer, &d.message]);
            let nth = seen.entry(key).or_insert(0);
            let fingerprint = format!("{:016x}{:04x}", key, *nth);
            *nth += 1;
            let mut description = format!("{} [{}] {}", d.code, d.rule, d.message);
            if let Some(location) = &d.location {
                description = format!("{location}: {description}");
            }
            // The span of a trace finding; the fingerprint leaves it out, as it does the line.
            description.push_str(&d.span_suffix());
            json!({
                "type": "issue",
                "description": description,
                "check_name": d.code,
                "categories": ["Bug Risk"],
                "fingerprint": fingerprint,
                "severity": match d.severity {
                    Severity::Error => "major",
                    Severity::Warning => "minor",
                },
                // `lines`, the form GitLab's documentation gives (it also reads `positions`).
                "location": {
                    "path": d.path,
                    "lines": {"begin": d.line, "end": d.end_line},
                },
            })
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues).map_err(io::Error::other)?;
    writeln!(out)
}

/// FNV-1a over the parts, each ended by a NUL: a hash fixed by its definition, so
/// fingerprints stay the same across toolcheck versions and platforms.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_published_function() {
        // FNV-1a 64 of "a" is af63dc4c8601ec8c; here every part ends with a NUL.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        hash ^= u64::from(b'a');
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        assert_eq!(hash, 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fnv1a(&["ab", "c"]), fnv1a(&["a", "bc"]));
    }
}
