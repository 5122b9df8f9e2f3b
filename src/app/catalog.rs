//! The commands that print what toolcheck knows instead of checking logs: `rules`,
//! `explain`, `--show-settings`, shell completions, man pages and the rule pages.

use std::path::Path;

use crate::cli::{CatalogFormat, RulesArgs};
use crate::format::Format;
use crate::provider::Provider;
use crate::rules;
use crate::settings::Resolver;
use crate::{docs, escape};

use super::output::{print, usage_error, use_color};
use super::EXIT_CLEAN;
use crate::report::paint::Paint;

pub(super) fn rules_command(args: &RulesArgs) -> u8 {
    let rows: Vec<(&rules::RuleMeta, Vec<Provider>)> = rules::RULES
        .iter()
        .map(|r| (r.meta(), r.meta().enforced_by()))
        .filter(|(_, by)| args.target.is_empty() || args.target.iter().any(|t| by.contains(t)))
        .collect();
    let mut text;
    match args.output_format {
        CatalogFormat::Json => {
            let rows: Vec<serde_json::Value> = rows
                .iter()
                .map(|(m, by)| {
                    serde_json::json!({
                        "code": m.code,
                        "name": m.name,
                        "severity": m.severity,
                        "fix": m.fix.as_str(),
                        "summary": m.summary,
                        "rejected_by": by.iter().map(|p| p.name()).collect::<Vec<_>>(),
                    })
                })
                .collect();
            text = serde_json::to_string_pretty(&rows).unwrap_or_default();
            text.push('\n');
        }
        CatalogFormat::Table => {
            let name_width = rows.iter().map(|(m, _)| m.name.len()).max().unwrap_or(0);
            text = format!(
                "{:<6} {:<name_width$} {:<8} {:<9} summary\n",
                "code", "name", "severity", "fix"
            );
            let paint = Paint::new(use_color(args.color));
            for (m, by) in &rows {
                // Padded before it is coloured, so the columns line up either way.
                let severity = format!("{:<8}", m.severity.as_str());
                text.push_str(&format!(
                    "{} {:<name_width$} {} {:<9} {}\n",
                    paint.severity(m.severity, &format!("{:<6}", m.code)),
                    m.name,
                    paint.severity(m.severity, &severity),
                    m.fix.as_str(),
                    m.summary
                ));
                if !by.is_empty() {
                    // Under the summary column.
                    let indent = 6 + 1 + name_width + 1 + 8 + 1 + 9 + 1;
                    text.push_str(&format!("{:indent$}rejected by: {}\n", "", names(by)));
                }
            }
        }
    }
    print(&text).err().unwrap_or(EXIT_CLEAN)
}

pub(super) fn explain_command(key: &str) -> u8 {
    match rules::find(key) {
        Some(rule) => {
            let m = rule.meta();
            let by = m.enforced_by();
            let rejected = if by.is_empty() {
                "Rejected by: no provider known".to_string()
            } else {
                format!("Rejected by: {}", names(&by))
            };
            let text = format!(
                "# {} ({})\n\nSeverity: {}. Fix: {}. {rejected}.\n\n{}\n",
                m.name,
                m.code,
                m.severity.as_str(),
                m.fix.as_str(),
                m.documentation(),
            );
            print(&text).err().unwrap_or(EXIT_CLEAN)
        }
        None => match Format::from_name(key) {
            Some(format) => print(&docs::format_page(format))
                .err()
                .unwrap_or(EXIT_CLEAN),
            None => {
                let formats: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                usage_error(&format!(
                    "unknown rule or format `{key}`{}; `toolcheck rules` lists the rules, and \
                     `toolcheck lint --help` the formats (under --input-format)",
                    rules::did_you_mean_among(key, &formats),
                ))
            }
        },
    }
}

/// `--show-settings`: the effective settings for each path given, and their origins.
pub(super) fn show_settings(paths: &[String], resolver: &mut Resolver<'_>) -> Result<(), u8> {
    let mut out = String::new();
    for path in paths {
        let p = std::path::Path::new(path);
        let dir = if path == "-" || p.is_dir() {
            p.to_path_buf()
        } else {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(
                    || std::path::PathBuf::from("."),
                    std::path::Path::to_path_buf,
                )
        };
        let dir = if path == "-" {
            std::path::PathBuf::from(".")
        } else {
            dir
        };
        let settings = resolver.for_dir(&dir).map_err(|e| usage_error(&e))?;
        out.push_str(&format!(
            "# settings for {path}\n# config file: {}\n",
            settings
                .config_path
                .as_deref()
                .map_or_else(|| "none".to_string(), |c| c.display().to_string())
        ));
        let width = settings
            .shown
            .iter()
            .map(|(k, _, _)| k.len())
            .max()
            .unwrap_or(0);
        for (key, value, origin) in &settings.shown {
            let value = if value.is_empty() { "(none)" } else { value };
            out.push_str(&format!("{key:<width$} = {value}  # {origin}\n"));
        }
    }
    print(&escape::layout(&out))
}

pub(super) fn completions_command(shell: clap_complete::Shell) -> u8 {
    print(&String::from_utf8_lossy(&docs::completions(shell)))
        .err()
        .unwrap_or(EXIT_CLEAN)
}

pub(super) fn man_command(command: Option<&str>) -> u8 {
    match docs::man_page(command) {
        Ok(page) => print(&String::from_utf8_lossy(&page))
            .err()
            .unwrap_or(EXIT_CLEAN),
        Err(e) => usage_error(&e),
    }
}

/// The hidden `generate-docs DIR`: writes the book's generated pages under DIR (`docs`).
pub(super) fn generate_docs_command(dir: &Path) -> u8 {
    match docs::generate(dir) {
        Ok(n) => {
            let files = if n == 1 { "file" } else { "files" };
            eprintln!("{n} {files} updated in {}", dir.display());
            EXIT_CLEAN
        }
        Err(e) => usage_error(&format!("cannot write {}: {e}", dir.display())),
    }
}

/// `"openai, anthropic, gemini"`: the providers as `rules` and `explain` list them.
fn names(providers: &[Provider]) -> String {
    let names: Vec<&str> = providers.iter().map(|p| p.name()).collect();
    names.join(", ")
}
