//! Rule selection: which rules run, from `--select`, `--extend-select` and `--ignore` and the
//! same keys in `toolcheck.toml`, layered as ruff layers them; and the selectors they take
//! (codes, code prefixes, names, `ALL`).

use super::{did_you_mean, RULES};

/// Which rules run.
#[derive(Debug, Clone)]
pub struct Selection {
    enabled: Vec<&'static str>,
    /// The enabled codes' numbers (`TC101` → 101) as bits: `is_enabled` runs for every rule on
    /// every record, where comparing code strings cost a twentieth of a dataset lint.
    numbers: [u64; 16],
}

impl Default for Selection {
    fn default() -> Self {
        Selection::of(RULES.iter().map(|r| r.meta().code).collect())
    }
}

/// `TC101` → 101: the number of a code of the catalog's shape (`TC` and three digits).
fn code_number(code: &str) -> Option<usize> {
    match code.as_bytes() {
        [b'T', b'C', d @ ..] if d.len() == 3 && d.iter().all(u8::is_ascii_digit) => Some(
            d.iter()
                .fold(0usize, |n, &b| n * 10 + usize::from(b - b'0')),
        ),
        _ => None,
    }
}

/// One layer of rule selection: the config file's, then the command line's. In each layer,
/// `select` (when given) replaces what the layers below chose, `extend_select` adds and
/// `ignore` removes — ruff's layering.
#[derive(Debug, Clone, Default)]
pub struct RuleLayer {
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
}

/// The rule codes a selector names: a code (`TC101`), a code prefix (`TC1`), a name
/// (`orphaned-tool-result`) or `ALL`.
pub fn resolve_selector(key: &str) -> Result<Vec<&'static str>, String> {
    let key = key.trim();
    let found: Vec<&'static str> = RULES
        .iter()
        .map(|r| r.meta())
        .filter(|m| {
            m.name == key
                || key.eq_ignore_ascii_case("ALL")
                || (!key.is_empty()
                    && m.code
                        .to_ascii_uppercase()
                        .starts_with(&key.to_ascii_uppercase()))
        })
        .map(|m| m.code)
        .collect();
    if found.is_empty() {
        Err(format!(
            "unknown rule selector `{key}`{}: expected a code (TC101), a code prefix (TC1) or a name (orphaned-tool-result); `toolcheck rules` lists them",
            did_you_mean(key)
        ))
    } else {
        Ok(found)
    }
}

impl Selection {
    /// Resolves `--select` and `--ignore` lists of codes, code prefixes (`TC1`) or names.
    pub fn new(select: &[String], ignore: &[String]) -> Result<Self, String> {
        Selection::layered(&[RuleLayer {
            select: (!select.is_empty()).then(|| select.to_vec()),
            extend_select: Vec::new(),
            ignore: ignore.to_vec(),
        }])
    }

    /// Applies layers in order, starting from every rule.
    pub fn layered(layers: &[RuleLayer]) -> Result<Self, String> {
        let mut enabled = Selection::default().enabled;
        for layer in layers {
            if let Some(select) = &layer.select {
                enabled.clear();
                for key in select {
                    enabled.extend(resolve_selector(key)?);
                }
            }
            for key in &layer.extend_select {
                enabled.extend(resolve_selector(key)?);
            }
            for key in &layer.ignore {
                let ignored = resolve_selector(key)?;
                enabled.retain(|c| !ignored.contains(c));
            }
        }
        // Catalog order, each once.
        let enabled = RULES
            .iter()
            .map(|r| r.meta().code)
            .filter(|c| enabled.contains(c))
            .collect();
        Ok(Selection::of(enabled))
    }

    fn of(enabled: Vec<&'static str>) -> Self {
        let mut numbers = [0u64; 16];
        for n in enabled.iter().filter_map(|c| code_number(c)) {
            if let Some(word) = numbers.get_mut(n / 64) {
                *word |= 1 << (n % 64);
            }
        }
        Selection { enabled, numbers }
    }

    /// The enabled codes, in catalog order.
    pub fn codes(&self) -> &[&'static str] {
        &self.enabled
    }

    pub fn is_enabled(&self, code: &str) -> bool {
        match code_number(code) {
            Some(n) => self
                .numbers
                .get(n / 64)
                .is_some_and(|word| word & (1 << (n % 64)) != 0),
            None => self.enabled.contains(&code),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit lookup answers as the list of codes does, for every code of the catalog and
    /// for names that are not codes.
    #[test]
    fn is_enabled_agrees_with_the_codes() {
        let selection =
            Selection::new(&["TC1".into(), "TC502".into()], &["TC105".into()]).expect("selectors");
        for rule in RULES {
            let code = rule.meta().code;
            assert!(
                code_number(code).is_some(),
                "{code} is not TC and three digits"
            );
            assert_eq!(
                selection.is_enabled(code),
                selection.codes().contains(&code),
                "{code}"
            );
            assert!(Selection::default().is_enabled(code), "{code}");
        }
        assert!(selection.is_enabled("TC101"));
        assert!(!selection.is_enabled("TC105"));
        assert!(!selection.is_enabled("TC999"));
        assert!(!selection.is_enabled("TC10"));
        assert!(!selection.is_enabled("orphaned-tool-result"));
    }
}
