//! The module level: the item loop with its recovery, `.version`, `.target`, `.address_size`,
//! `.file`, `.section`, `.pragma` and `.loc`, and the dispatch to variable declarations
//! ([`var`](super::var)) and function signatures ([`signature`](super::signature)).
//!
//! ```text
//! .version 8.3
//! .target sm_90a, debug
//! .file 1 "k.cu", 1595524614, 5649
//! .section .debug_info { .b32 197 .b8 2, 0 .b32 .debug_abbrev }
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::{PResult, Parser};
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{Linkage, StateSpace, TargetOption, Type};
use crate::ptx::ast::{self, SectionDecl, SectionLineAst, SectionValueAst, TopItem};
use crate::ptx::lexer::TokenKind;

/// Directives that may begin a top-level item (where recovery stops).
pub(super) const TOP_LEVEL: &[&str] = &[
    ".version",
    ".target",
    ".address_size",
    ".file",
    ".section",
    ".pragma",
    ".visible",
    ".extern",
    ".weak",
    ".common",
    ".entry",
    ".func",
    ".global",
    ".const",
    ".shared",
    ".local",
    ".tex",
];
impl<'a> Parser<'a> {
    pub(super) fn module(&mut self) -> ast::Module<'a> {
        let mut items = Vec::new();
        while !self.at_end() {
            let start = self.pos;
            match self.top_item() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(_) => self.recover_top_level(),
            }
            if self.pos == start {
                self.pos += 1;
            }
        }
        ast::Module { items }
    }

    /// Skips to the next top-level directive, past balanced braces.
    fn recover_top_level(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            if self.gave_up {
                return;
            }
            let text = self.text(t);
            match (t.kind, text) {
                (TokenKind::Punct, "{") => depth += 1,
                (TokenKind::Punct, "}") if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                (TokenKind::Punct, ";") if depth == 0 => {
                    self.pos += 1;
                    return;
                }
                (TokenKind::DotWord, w) if depth == 0 && TOP_LEVEL.contains(&w) => return,
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn top_item(&mut self) -> PResult<Option<TopItem<'a>>> {
        let Some(t) = self.peek() else { return Ok(None) };
        let text = self.text(t);
        if t.kind != TokenKind::DotWord {
            let msg = if t.kind == TokenKind::Ident || t.kind == TokenKind::Punct && text == "@" {
                format!("instruction '{}' outside of a function body", super::truncate(text))
            } else {
                format!("expected a directive, found '{}'", super::truncate(text))
            };
            return Err(self.error(t.span, msg));
        }
        match text {
            ".version" => self.version().map(Some),
            ".target" => self.target().map(Some),
            ".address_size" => {
                self.pos += 1;
                let bits = self.u32_literal("an address size")?;
                if bits != 32 && bits != 64 {
                    return Err(self.error(self.prev_span(), format!("address size must be 32 or 64, not {bits}")));
                }
                Ok(Some(TopItem::AddressSize { bits, span: t.span.join(self.prev_span()) }))
            }
            ".file" => self.file().map(Some),
            ".section" => self.section().map(|s| Some(TopItem::Section(s))),
            ".pragma" => self.pragma().map(|p| Some(TopItem::Pragma(p))),
            ".loc" => {
                self.loc()?;
                Ok(None)
            }
            _ => self.declaration_item(),
        }
    }

    fn declaration_item(&mut self) -> PResult<Option<TopItem<'a>>> {
        let start = self.here();
        let linkage = self.linkage();
        match self.peek_text() {
            ".entry" | ".func" => self.function(linkage, start).map(|f| Some(TopItem::Function(f))),
            _ => {
                let Some(t) = self.peek() else {
                    return Err(self.error(self.here(), "expected a declaration after the linkage directive"));
                };
                let word = self.text(t);
                if StateSpace::from_keyword(word).is_some() {
                    return self.var_decl(linkage, start).map(|v| Some(TopItem::Var(v)));
                }
                Err(self.unknown_directive(t.span, word))
            }
        }
    }

    pub(super) fn unknown_directive(&mut self, span: Span, word: &str) -> super::Fail {
        let d = match word {
            ".alias" | ".abi_preserve" | ".abi_preserve_control" | ".blocksareclusters" => {
                Diagnostic::error(span, format!("directive '{word}' is not supported by RegLab"))
            }
            _ => {
                let d = Diagnostic::error(span, format!("unknown directive '{}'", super::truncate(word)));
                match nearest(word, KNOWN_DIRECTIVES) {
                    Some(s) => d.with_hint(format!("did you mean '{s}'?")),
                    None => d,
                }
            }
        };
        self.push(d)
    }

    fn linkage(&mut self) -> Linkage {
        let linkage = match self.peek_text() {
            ".visible" => Linkage::Visible,
            ".extern" => Linkage::Extern,
            ".weak" => Linkage::Weak,
            ".common" => Linkage::Common,
            _ => return Linkage::Internal,
        };
        self.pos += 1;
        linkage
    }

    fn version(&mut self) -> PResult<TopItem<'a>> {
        let start = self.here();
        self.pos += 1;
        let Some(t) = self.peek().filter(|t| t.kind == TokenKind::Float) else {
            let found = self.describe_next();
            return Err(
                self.error(self.here(), format!("expected a version such as 7.0 after .version, found {found}"))
            );
        };
        self.pos += 1;
        let parsed = self.text(t).split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        let Some((major, minor)) = parsed else {
            return Err(self.error(t.span, format!("invalid PTX version '{}'", self.text(t))));
        };
        Ok(TopItem::Version { major, minor, span: start.join(t.span) })
    }

    fn target(&mut self) -> PResult<TopItem<'a>> {
        let start = self.here();
        self.pos += 1;
        let arch = self.name("a target architecture such as sm_80")?;
        let mut options = Vec::new();
        while self.eat_punct(",") {
            let opt = self.name("a target option")?;
            match TargetOption::from_keyword(opt.text) {
                Some(o) => options.push((o, opt.span)),
                None => {
                    let d = Diagnostic::error(opt.span, format!("unknown target option '{}'", opt.text))
                        .with_hint("RegLab knows map_f64_to_f32, texmode_unified, texmode_independent and debug");
                    return Err(self.push(d));
                }
            }
        }
        Ok(TopItem::Target { arch, options, span: start.join(self.prev_span()) })
    }

    fn file(&mut self) -> PResult<TopItem<'a>> {
        let start = self.here();
        self.pos += 1;
        let index = self.u32_literal("a file number")?;
        let name = self.string("a file name")?;
        let stamp = if self.eat_punct(",") {
            let (a, _) = self.u64_literal("a timestamp")?;
            self.expect_punct(",", "between the timestamp and the size")?;
            let (b, _) = self.u64_literal("a file size")?;
            Some((a, b))
        } else {
            None
        };
        Ok(TopItem::File { index, name: name.text, stamp, span: start.join(self.prev_span()) })
    }

    /// A string literal, without its quotes.
    pub(super) fn string(&mut self, what: &str) -> PResult<ast::Name<'a>> {
        match self.peek() {
            Some(t) if t.kind == TokenKind::String => {
                self.pos += 1;
                let text = self.text(t);
                let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
                Ok(ast::Name { text: inner, span: t.span })
            }
            _ => {
                let found = self.describe_next();
                Err(self.error(self.here(), format!("expected {what} (a string), found {found}")))
            }
        }
    }

    /// `.pragma "…";`
    pub(super) fn pragma(&mut self) -> PResult<ast::Name<'a>> {
        self.pos += 1;
        let s = self.string("a pragma")?;
        self.expect_semicolon("after .pragma")?;
        Ok(s)
    }

    /// `.loc file line column` with optional `, function_name …` and `, inlined_at …` parts
    /// (debug metadata about inlining, read and not kept).
    pub(super) fn loc(&mut self) -> PResult<crate::ir::DebugLoc> {
        self.pos += 1;
        let file = self.u32_literal("a file number")?;
        let line = self.u32_literal("a line number")?;
        let column = self.u32_literal("a column number")?;
        while self.eat_punct(",") {
            match self.peek_text() {
                "function_name" => {
                    self.pos += 1;
                    self.name("a function-name label")?;
                    self.offset()?;
                }
                "inlined_at" => {
                    self.pos += 1;
                    for what in ["a file number", "a line number", "a column number"] {
                        self.u32_literal(what)?;
                    }
                }
                _ => {
                    let found = self.describe_next();
                    return Err(self.error(self.here(), format!("expected function_name or inlined_at, found {found}")));
                }
            }
        }
        Ok(crate::ir::DebugLoc { file, line, column })
    }

    fn section(&mut self) -> PResult<SectionDecl<'a>> {
        let start = self.here();
        self.pos += 1;
        let name = match self.peek() {
            Some(t) if matches!(t.kind, TokenKind::DotWord | TokenKind::Ident) => {
                self.pos += 1;
                ast::Name { text: self.text(t), span: t.span }
            }
            _ => return Err(self.error(self.here(), "expected a section name such as .debug_info")),
        };
        self.expect_punct("{", "to open the section")?;
        let mut lines = Vec::new();
        while !self.at_punct("}") {
            let Some(t) = self.peek() else {
                return Err(self.error(start, "unterminated .section: missing '}'"));
            };
            let ty = match Type::from_keyword(self.text(t)) {
                Some(ty @ (Type::B8 | Type::B16 | Type::B32 | Type::B64)) => ty,
                _ => {
                    let found = self.describe_next();
                    return Err(
                        self.error(t.span, format!("expected .b8, .b16, .b32 or .b64 in a section, found {found}"))
                    );
                }
            };
            self.pos += 1;
            let mut values = alloc::vec![self.section_value()?];
            while self.eat_punct(",") {
                values.push(self.section_value()?);
            }
            lines.push(SectionLineAst { ty, values });
        }
        self.pos += 1;
        Ok(SectionDecl { name, lines, span: start.join(self.prev_span()) })
    }

    fn section_value(&mut self) -> PResult<SectionValueAst<'a>> {
        match self.peek() {
            Some(t) if t.kind == TokenKind::Integer => Ok(SectionValueAst::Int(self.u64_literal("a value")?.0)),
            Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::DotWord | TokenKind::Register) => {
                self.pos += 1;
                let name = ast::Name { text: self.text(t), span: t.span };
                Ok(SectionValueAst::Symbol(name, self.offset()?))
            }
            _ => {
                let found = self.describe_next();
                Err(self.error(self.here(), format!("expected a number or a label in a section, found {found}")))
            }
        }
    }
}

/// Every directive RegLab knows (for "did you mean" hints).
const KNOWN_DIRECTIVES: &[&str] = &[
    ".version",
    ".target",
    ".address_size",
    ".file",
    ".section",
    ".pragma",
    ".visible",
    ".extern",
    ".weak",
    ".common",
    ".entry",
    ".func",
    ".global",
    ".const",
    ".shared",
    ".local",
    ".tex",
    ".param",
    ".reg",
    ".loc",
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnctapersm",
    ".maxnreg",
    ".noreturn",
    ".callprototype",
    ".branchtargets",
    ".calltargets",
    ".reqnctapercluster",
    ".explicitcluster",
    ".maxclusterrank",
];

/// The entry of `known` closest to `word`, if it is close.
pub(super) fn nearest(word: &str, known: &[&'static str]) -> Option<&'static str> {
    known
        .iter()
        .map(|k| (crate::diagnostic::edit_distance(word, k), *k))
        .min()
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .map(|(_, k)| k)
}
