//! Where the parts of an expression are written: the position each starts
//! at, their text exactly as the author wrote it, and a plain rendering of
//! the facts they read (`cart.total`, `history.spent_last_days(365)`).

use rhai::{AST, Expr, Position, Stmt};

/// The expression a compiled condition is made of (rhai keeps a lone
/// operator call, `a == b`, as a statement of its own).
pub fn root(ast: &AST) -> Option<Expr> {
    match ast.statements() {
        [Stmt::Expr(expr)] => Some(expr.as_ref().clone()),
        [Stmt::FnCall(call, position)] => Some(Expr::FnCall(call.clone(), *position)),
        _ => None,
    }
}

/// `(line, column)` of a position, for ordering; `None` when it has none.
fn place(position: Position) -> Option<(usize, usize)> {
    Some((position.line()?, position.position()?))
}

/// The earlier of two positions.
fn earlier(a: Position, b: Position) -> Position {
    match (place(a), place(b)) {
        (Some(x), Some(y)) if y < x => b,
        (None, Some(_)) => b,
        _ => a,
    }
}

/// Where `expr` starts: its leftmost token. rhai places an operator call
/// at its operator and `needle in haystack` at `in`, so a call starts at
/// the earliest of its own position and its arguments'.
pub fn start(expr: &Expr) -> Position {
    match expr {
        Expr::FnCall(call, position) => call.args.iter().map(start).fold(*position, earlier),
        Expr::Dot(binary, ..) | Expr::Index(binary, ..) => start(&binary.lhs),
        Expr::And(operands, position) | Expr::Or(operands, position) => {
            operands.iter().map(start).fold(*position, earlier)
        }
        other => other.start_position(),
    }
}

/// The text of one expression, with the byte offset of every line start.
pub struct Source<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    /// The expression text `text`.
    pub fn new(text: &'a str) -> Source<'a> {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Source { text, line_starts }
    }

    /// The whole text's end.
    pub fn end(&self) -> usize {
        self.text.len()
    }

    /// The byte offset of `position` (rhai counts lines and characters
    /// from 1).
    pub fn offset(&self, position: Position) -> Option<usize> {
        let (line, column) = place(position)?;
        let line_start = *self.line_starts.get(line.checked_sub(1)?)?;
        let rest = &self.text[line_start..];
        let within = rest
            .char_indices()
            .nth(column.checked_sub(1)?)
            .map_or(rest.len(), |(at, _)| at);
        Some(line_start + within)
    }

    /// The text of `expr`, which ends before byte `end` (where the next
    /// operand starts, or its parent ends): without the operator and
    /// closing parentheses that belong around it.
    pub fn text_of(&self, expr: &Expr, end: usize) -> Option<String> {
        let from = self.offset(start(expr))?;
        let slice = self.text.get(from..end.min(self.text.len()))?;
        Some(trimmed(slice))
    }
}

/// `slice` without trailing blanks, a trailing `&&` or `||`, and closing
/// parentheses it does not open.
fn trimmed(slice: &str) -> String {
    let mut text = slice.trim_end();
    for operator in ["&&", "||"] {
        if let Some(before) = text.strip_suffix(operator) {
            text = before.trim_end();
            break;
        }
    }
    let mut unmatched = unmatched_closing(text);
    while unmatched > 0 {
        match text.strip_suffix(')') {
            Some(before) => {
                text = before.trim_end();
                unmatched -= 1;
            }
            None => break,
        }
    }
    text.to_string()
}

/// How many `)` of `text` (outside string literals) close nothing.
fn unmatched_closing(text: &str) -> usize {
    let (mut open, mut unmatched) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' => open += 1,
                ')' if open > 0 => open -= 1,
                ')' => unmatched += 1,
                _ => {}
            },
        }
    }
    unmatched
}

/// `expr` written out when it reads facts in a plain way: a variable, its
/// properties, indexes and method calls with literal arguments
/// (`customer.attributes.vip`, `history.spent_last_days(365)`).
pub fn reference(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Variable(variable, ..) if variable.2.is_empty() => Some(variable.1.to_string()),
        Expr::Dot(binary, ..) => Some(format!(
            "{}{}",
            reference(&binary.lhs)?,
            chain(&binary.rhs)?
        )),
        Expr::Index(binary, ..) => Some(format!(
            "{}[{}]",
            reference(&binary.lhs)?,
            literal(&binary.rhs)?
        )),
        _ => None,
    }
}

/// For a chain ending in a method call (`customer.email.ends_with("@x")`):
/// what it is called on (`customer.email`) and the method's name.
pub fn receiver(expr: &Expr) -> Option<(String, String)> {
    let Expr::Dot(binary, ..) = expr else {
        return None;
    };
    let mut called_on = reference(&binary.lhs)?;
    let mut rest = &binary.rhs;
    loop {
        match rest {
            Expr::MethodCall(call, ..) => return Some((called_on, call.name.to_string())),
            Expr::Dot(next, ..) => {
                called_on.push_str(&chain(&next.lhs)?);
                rest = &next.rhs;
            }
            _ => return None,
        }
    }
}

/// The rest of a dot chain: `.name`, `.call(args)`, `[index]`.
fn chain(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Property(property, ..) => Some(format!(".{}", property.2)),
        Expr::MethodCall(call, ..) => {
            let args: Option<Vec<String>> = call.args.iter().map(literal).collect();
            Some(format!(".{}({})", call.name, args?.join(", ")))
        }
        Expr::Dot(binary, ..) => Some(format!("{}{}", chain(&binary.lhs)?, chain(&binary.rhs)?)),
        Expr::Index(binary, ..) => {
            Some(format!("{}{}", chain(&binary.lhs)?, indexed(&binary.rhs)?))
        }
        _ => None,
    }
}

/// An index and what follows it: `[0]`, `[0].name`.
fn indexed(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Dot(binary, ..) => Some(format!(
            "[{}]{}",
            literal(&binary.lhs)?,
            chain(&binary.rhs)?
        )),
        other => Some(format!("[{}]", literal(other)?)),
    }
}

/// A literal as rhai writes it.
pub fn literal(expr: &Expr) -> Option<String> {
    Some(match expr {
        Expr::BoolConstant(flag, ..) => flag.to_string(),
        Expr::IntegerConstant(int, ..) => int.to_string(),
        Expr::FloatConstant(float, ..) => format!("{:?}", **float),
        Expr::StringConstant(text, ..) => serde_json::to_string(text.as_str()).ok()?,
        Expr::CharConstant(c, ..) => format!("'{c}'"),
        Expr::Unit(..) => "()".to_string(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_loses_the_operator_and_parentheses_around_it() {
        assert_eq!(trimmed("cart.total > 40.0 && "), "cart.total > 40.0");
        assert_eq!(
            trimmed("weekday == \"sunday\") && "),
            "weekday == \"sunday\""
        );
        assert_eq!(trimmed("f(a, (b)) ||"), "f(a, (b))");
        assert_eq!(trimmed("name == \")\")"), "name == \")\"");
    }
}
