//! The PTX parser: tokens → [`ast::Module`], reporting every error it can
//! with a span, a message and (where one helps) a hint, and recovering at `;` and `}`.
//!
//! ```text
//! .version 7.0
//! .target sm_80
//! .visible .entry k() { ret; }
//! ```
//!
//! The parser never recurses on input nesting (nested `{ }` scopes are flat statements; the only
//! recursive rule, nested initialiser lists, is depth-limited), every loop consumes at least one
//! token per turn, and it stops after [`MAX_ERRORS`] errors, so no input panics, hangs or
//! overflows the stack.

mod body;
mod decl;
pub mod literal;
mod signature;
mod var;

use alloc::format;
use alloc::vec::Vec;

use crate::diagnostic::{Diagnostic, Span};
use crate::ptx::ast;
use crate::ptx::lexer::{tokenize_significant, Token, TokenKind};

/// After this many errors the parser gives up on the rest of the input.
pub const MAX_ERRORS: usize = 100;

/// Marker: a diagnostic was recorded, the caller should recover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fail;

pub(crate) type PResult<T> = Result<T, Fail>;

/// Parses a whole PTX module. The AST is `None` only if the input had errors; diagnostics hold
/// every error (and warning) found.
pub fn parse(src: &str) -> (Option<ast::Module<'_>>, Vec<Diagnostic>) {
    let mut p = Parser::new(src);
    let module = p.module();
    let failed = p.diags.iter().any(|d| d.severity == crate::diagnostic::Severity::Error);
    (if failed { None } else { Some(module) }, p.diags)
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    pub(crate) diags: Vec<Diagnostic>,
    errors: usize,
    gave_up: bool,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser { src, tokens: tokenize_significant(src), pos: 0, diags: Vec::new(), errors: 0, gave_up: false }
    }

    // ---- token access ---------------------------------------------------------------------

    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.pos).copied()
    }

    fn nth(&self, k: usize) -> Option<Token> {
        self.tokens.get(self.pos + k).copied()
    }

    fn text(&self, t: Token) -> &'a str {
        t.span.text(self.src)
    }

    fn peek_text(&self) -> &'a str {
        self.peek().map_or("", |t| self.text(t))
    }

    fn peek_kind(&self) -> Option<TokenKind> {
        self.peek().map(|t| t.kind)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.tokens.len() || self.gave_up
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.peek();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    /// The span of the next token, or an empty span at the end of the text.
    fn here(&self) -> Span {
        self.peek().map_or_else(|| Span::new(self.src.len(), self.src.len()), |t| t.span)
    }

    /// The span of the previous token.
    fn prev_span(&self) -> Span {
        self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)).map_or_else(|| self.here(), |t| t.span)
    }

    fn at_punct(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.kind == TokenKind::Punct && self.text(t) == p)
    }

    fn at_dot(&self, word: &str) -> bool {
        self.peek().is_some_and(|t| t.kind == TokenKind::DotWord && self.text(t) == word)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let at = self.at_punct(p);
        if at {
            self.pos += 1;
        }
        at
    }

    fn eat_dot(&mut self, word: &str) -> bool {
        let at = self.at_dot(word);
        if at {
            self.pos += 1;
        }
        at
    }

    fn expect_punct(&mut self, p: &str, context: &str) -> PResult<Span> {
        if self.at_punct(p) {
            let span = self.here();
            self.pos += 1;
            return Ok(span);
        }
        let found = self.describe_next();
        Err(self.error(self.here(), format!("expected '{p}' {context}, found {found}")))
    }

    /// A `;` ending a statement. If it is missing and the next token is on a later line, the
    /// error points just after the statement and parsing goes on with the next line as if the
    /// `;` were there (so one forgotten `;` costs one error, not the next statement too).
    fn expect_semicolon(&mut self, context: &str) -> PResult<()> {
        if self.eat_punct(";") {
            return Ok(());
        }
        let prev = self.prev_span();
        let next_line = match self.peek() {
            Some(t) => self.src.get(prev.end as usize..t.span.start as usize).is_some_and(|gap| gap.contains('\n')),
            None => true,
        };
        if next_line {
            let at = Span::new(prev.end as usize, prev.end as usize);
            let d = Diagnostic::error(at, format!("expected ';' {context}"));
            let d = match self.peek() {
                Some(t) => d.with_hint(format!("the next line starts with '{}'", truncate(self.text(t)))),
                None => d,
            };
            self.push(d);
            return Ok(());
        }
        let found = self.describe_next();
        Err(self.error(self.here(), format!("expected ';' {context}, found {found}")))
    }

    /// `'text'` of the next token, or "end of file".
    fn describe_next(&self) -> alloc::string::String {
        match self.peek() {
            Some(t) => format!("'{}'", truncate(self.text(t))),
            None => "end of file".into(),
        }
    }

    // ---- diagnostics ----------------------------------------------------------------------

    pub(crate) fn error(&mut self, span: Span, message: impl Into<alloc::string::String>) -> Fail {
        self.push(Diagnostic::error(span, message))
    }

    pub(crate) fn push(&mut self, d: Diagnostic) -> Fail {
        if self.gave_up {
            return Fail;
        }
        self.errors += 1;
        self.diags.push(d);
        if self.errors >= MAX_ERRORS {
            let at = self.here();
            self.diags.push(
                Diagnostic::error(at, format!("too many errors ({MAX_ERRORS}); the rest of the file was not parsed"))
                    .with_hint("fix the first errors: later ones are often consequences"),
            );
            self.gave_up = true;
        }
        Fail
    }

    /// Skips to just after the next `;`, or to (not past) the next `}`.
    fn recover_statement(&mut self) {
        while let Some(t) = self.peek() {
            if self.gave_up {
                return;
            }
            if t.kind == TokenKind::Punct {
                match self.text(t) {
                    ";" => {
                        self.pos += 1;
                        return;
                    }
                    "}" => return,
                    _ => {}
                }
            }
            self.pos += 1;
        }
    }

    // ---- small shared rules ---------------------------------------------------------------

    /// An identifier or `%register` name.
    fn name(&mut self, what: &str) -> PResult<ast::Name<'a>> {
        match self.peek() {
            Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::Register) => {
                self.pos += 1;
                Ok(ast::Name { text: self.text(t), span: t.span })
            }
            _ => {
                let found = self.describe_next();
                Err(self.error(self.here(), format!("expected {what}, found {found}")))
            }
        }
    }

    /// An unsigned integer literal that fits in `u32`.
    fn u32_literal(&mut self, what: &str) -> PResult<u32> {
        let (v, span) = self.u64_literal(what)?;
        u32::try_from(v).map_err(|_| self.error(span, format!("{what} {v} is too large")))
    }

    /// An unsigned integer literal.
    fn u64_literal(&mut self, what: &str) -> PResult<(u64, Span)> {
        match self.peek() {
            Some(t) if t.kind == TokenKind::Integer => {
                self.pos += 1;
                literal::parse_int(self.text(t)).map(|v| (v, t.span)).map_err(|m| self.error(t.span, m))
            }
            _ => {
                let found = self.describe_next();
                Err(self.error(self.here(), format!("expected {what} (an integer), found {found}")))
            }
        }
    }

    /// A literal with an optional leading `-`.
    fn literal(&mut self) -> PResult<(ast::Literal, Span)> {
        let start = self.here();
        let negative = self.eat_punct("-");
        let t = match self.peek() {
            Some(t) if matches!(t.kind, TokenKind::Integer | TokenKind::Float) => t,
            _ => {
                let found = self.describe_next();
                return Err(self.error(self.here(), format!("expected a number, found {found}")));
            }
        };
        self.pos += 1;
        let lit = if t.kind == TokenKind::Integer {
            literal::parse_int(self.text(t)).map(ast::Literal::Int)
        } else {
            literal::parse_float(self.text(t))
        };
        let lit = lit.map_err(|m| self.error(t.span, m))?;
        Ok((if negative { literal::negate(lit) } else { lit }, start.join(t.span)))
    }

    /// `+N`, `-N` or `+-N` after a base; 0 if there is none.
    fn offset(&mut self) -> PResult<i64> {
        let mut total: i64 = 0;
        // A sum of signed terms: `+8`, `+-8`, `-8`, `+4+4` (a constant expression ptxas folds).
        while self.at_punct("+") || self.at_punct("-") {
            let mut negative = false;
            while self.at_punct("+") || self.at_punct("-") {
                negative ^= self.at_punct("-");
                self.pos += 1;
            }
            let (v, span) = self.u64_literal("an offset")?;
            let v = i64::try_from(v).map_err(|_| self.error(span, "offset does not fit in 64 signed bits"))?;
            let term = if negative { v.checked_neg() } else { Some(v) };
            total = term
                .and_then(|t| total.checked_add(t))
                .ok_or_else(|| self.error(span, "offset does not fit in 64 signed bits"))?;
        }
        Ok(total)
    }
}

/// At most 40 characters of `text`, for messages.
pub(crate) fn truncate(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::parse;
    use crate::ptx::ast::{Statement, TopItem};

    const HEAD: &str = ".version 7.0\n.target sm_80\n";

    fn body_of(src: &str) -> usize {
        let (ast, diags) = parse(src);
        assert!(diags.is_empty(), "{diags:?}");
        let Some(ast) = ast else { return 0 };
        ast.items
            .iter()
            .find_map(|i| match i {
                TopItem::Function(f) => f.body.as_ref().map(Vec::len),
                _ => None,
            })
            .unwrap_or(0)
    }

    #[test]
    fn nested_scopes_are_flat_statements() {
        let src = alloc::format!("{HEAD}.entry k() {{ {{ .reg .b32 r; {{ mov.b32 r, 1; }} }} ret; }}");
        let (ast, _) = parse(&src);
        let Some(TopItem::Function(f)) = ast.as_ref().and_then(|a| a.items.last()) else {
            return assert!(ast.is_some());
        };
        let kinds: alloc::vec::Vec<&str> = f
            .body
            .iter()
            .flatten()
            .map(|s| match s {
                Statement::Enter(_) => "{",
                Statement::Leave(_) => "}",
                Statement::Var(_) => "var",
                Statement::Inst(_) => "inst",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["{", "var", "{", "inst", "}", "}", "inst"]);
    }

    #[test]
    fn deep_nesting_parses_without_recursion() {
        let depth = 100_000;
        let src = alloc::format!("{HEAD}.entry k() {{ {} ret; {} }}", "{".repeat(depth), "}".repeat(depth));
        assert_eq!(body_of(&src), 2 * depth + 1);
    }

    #[test]
    fn errors_are_reported_one_per_statement_and_parsing_goes_on() {
        let src = alloc::format!("{HEAD}.entry k() {{\n  addd.s32 %r1, %r2, %r3;\n  mov.u32 %r1 %r2;\n  ret;\n}}\n");
        let (ast, diags) = parse(&src);
        assert!(ast.is_none());
        let messages: alloc::vec::Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("unknown instruction 'addd'"));
        assert!(messages[1].contains("after an operand"));
    }

    #[test]
    fn the_error_count_is_capped() {
        let src = alloc::format!("{HEAD}.entry k() {{ {} }}", "bogus;\n".repeat(1000));
        let (_, diags) = parse(&src);
        assert_eq!(diags.len(), super::MAX_ERRORS + 1);
    }
}
