//! Reading a rule file's YAML so that every unknown key is reported, not
//! only the first: serde stops at the first, so each unknown key found is
//! recorded, its line (and the block under it) blanked out, and the file
//! read again. Lines keep their numbers, so every problem found later (in
//! the file's conditions, say) is still reported at its own line.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::engine::check::closest;
use crate::engine::script::RuleError;

/// Most unknown keys reported for one file.
const MAX_UNKNOWN_KEYS: usize = 50;

/// `text` (the content of `path`) read as `T`, with every problem found:
/// `T` when the file reads once its unknown keys are set aside (each one
/// being a problem all the same), `None` when something else is wrong.
pub fn read_yaml<T: DeserializeOwned>(path: &Path, text: &str) -> (Option<T>, Vec<RuleError>) {
    let mut text = text.to_string();
    let mut problems = Vec::new();
    loop {
        let error = match serde_yaml::from_str::<T>(&text) {
            Ok(value) => return (Some(value), problems),
            Err(error) => error,
        };
        let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
        let message = with_suggestion(error.to_string());
        let problem =
            match missing_key(&message).and_then(|key| misplaced(&text, line, column, &key)) {
                // The field is written, at the wrong depth: said where it is.
                Some(misplaced) => {
                    // Where in the file's structure: `instant_win.instant_win_prizes[1]`.
                    let within = message
                        .split_once(": missing field")
                        .map(|(within, _)| format!("{within}: "))
                        .unwrap_or_default();
                    RuleError::new(
                        path,
                        misplaced.line,
                        format!("{within}{}", misplaced.message),
                    )
                    .with_column(misplaced.column)
                }
                None => RuleError::new(path, line, message).with_column(column),
            };
        problems.push(problem);
        let blanked = unknown_key(&error.to_string())
            .filter(|_| problems.len() < MAX_UNKNOWN_KEYS)
            .and_then(|key| blank_key(&text, line, &key));
        match blanked {
            Some(next) => text = next,
            None => return (None, problems),
        }
    }
}

/// `message` with the key the author most likely meant, when it names an
/// unknown key close to one the section has: "unknown field `nht`, expected
/// one of ... (did you mean `nth`?)".
fn with_suggestion(message: String) -> String {
    let Some(key) = unknown_key(&message) else {
        return message;
    };
    let Some(expected) = message.split("expected ").nth(1) else {
        return message;
    };
    let known = expected.split('`').skip(1).step_by(2);
    match closest(&key, known) {
        Some(meant) => format!("{message} (did you mean `{meant}`?)"),
        None => message,
    }
}

/// The key a "missing field `x`" error names.
fn missing_key(message: &str) -> Option<String> {
    let rest = message.split("missing field `").nth(1)?;
    Some(rest.split('`').next()?.to_string())
}

/// A key written where its entry does not read it.
struct Misplaced {
    line: usize,
    column: usize,
    message: String,
}

/// When the entry starting at `line`:`column` (1-based) misses `key` and a
/// `key:` is written further down the entry at another depth (a `weight:`
/// indented two spaces less than its prize's other fields): where it is and
/// how deep it should be.
fn misplaced(text: &str, line: usize, column: usize, key: &str) -> Option<Misplaced> {
    let lines: Vec<&str> = text.split('\n').collect();
    let fields = column.checked_sub(1)?;
    // A list entry's dash is two columns before its fields.
    let dash = fields.saturating_sub(2);
    for (index, written) in lines.iter().enumerate().skip(line) {
        let content = written.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = indent_of(written);
        if indent < dash || (indent == dash && content.starts_with("- ")) {
            return None;
        }
        if indent != fields && content.starts_with(&format!("{key}:")) {
            return Some(Misplaced {
                line: index + 1,
                column: indent + 1,
                message: format!(
                    "`{key}` is indented {indent} spaces, and the other fields of its entry (line {line}) {fields}: \
                     it is not read as the entry's `{key}`; line it up with them"
                ),
            });
        }
    }
    None
}

/// The key an "unknown field `x`" error names.
fn unknown_key(message: &str) -> Option<String> {
    let rest = message.split("unknown field `").nth(1)?;
    Some(rest.split('`').next()?.to_string())
}

/// `text` with the line `line` (1-based) that starts with `key:` and the
/// block indented under it turned into blank lines; `None` when the key is
/// not alone at the start of its line (a flow map, a list item), where
/// blanking the line would hide other keys, or when it is the only key of
/// its section, which would then read as empty and be reported again.
fn blank_key(text: &str, line: usize, key: &str) -> Option<String> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let index = line.checked_sub(1)?;
    let written = lines.get(index)?;
    let content = written.trim_start();
    if !content.starts_with(&format!("{key}:")) {
        return None;
    }
    let indent = written.len() - content.len();
    lines[index] = "";
    for next in lines.iter_mut().skip(index + 1) {
        let trimmed = next.trim_start();
        let deeper = next.len() - trimmed.len() > indent;
        if trimmed.is_empty() || trimmed.starts_with('#') || deeper {
            *next = "";
        } else {
            break;
        }
    }
    if indent > 0 && !has_children(&lines, index) {
        return None;
    }
    Some(lines.join("\n"))
}

/// How deep `line` is indented.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether the section that held the (now blank) line `index` still has
/// a line under it.
fn has_children(lines: &[&str], index: usize) -> bool {
    let written = |line: &str| !line.trim().is_empty() && !line.trim_start().starts_with('#');
    let Some(parent) = (0..index).rev().find(|at| written(lines[*at])) else {
        return true;
    };
    let parent_indent = indent_of(lines[parent]);
    lines[parent + 1..]
        .iter()
        .find(|line| written(line))
        .is_some_and(|line| indent_of(line) > parent_indent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct File {
        id: i64,
        section: Section,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Section {
        percent: i64,
    }

    #[test]
    fn every_unknown_key_is_reported_at_its_line_and_the_rest_still_read() {
        let text = "id: 1\ncolour: red\nsection:\n  percnt: 5\n  percent: 5\nshape:\n  sides: 3\n";
        let (file, problems) = read_yaml::<File>(Path::new("f.yaml"), text);
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 4, 6], "{problems:?}");
        assert!(problems[1].message.contains("percnt"), "{problems:?}");
        assert!(
            problems[1].message.ends_with("(did you mean `percent`?)"),
            "{problems:?}"
        );
        assert!(
            !problems[0].message.contains("did you mean"),
            "nothing is close to `colour`: {problems:?}"
        );
        assert_eq!(file.map(|f| f.section.percent), Some(5));
    }

    #[test]
    fn a_field_at_the_wrong_depth_is_reported_at_its_own_line() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Prizes {
            prizes: Vec<Prize>,
        }
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Prize {
            id: String,
            weight: f64,
        }
        // Two spaces short (at the dash's depth), and one.
        for indent in ["  ", "   "] {
            let text = format!(
                "prizes:\n  - id: a\n    weight: 0.5\n  - id: b\n    # the rest\n{indent}weight: 0.5\n"
            );
            let (read, problems) = read_yaml::<Prizes>(Path::new("p.yaml"), &text);
            assert!(read.is_none());
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].line, 6, "{text}: {problems:?}");
            assert!(
                problems[0].message.contains("`weight` is indented"),
                "{problems:?}"
            );
        }
    }

    #[test]
    fn other_problems_stop_the_reading() {
        let (file, problems) = read_yaml::<File>(Path::new("f.yaml"), "id: one\n");
        assert!(file.is_none());
        assert_eq!(problems.len(), 1);
    }
}
