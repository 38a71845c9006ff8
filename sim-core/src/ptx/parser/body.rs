//! Function bodies: labels, nested scopes, declarations, `.loc`, `.pragma`, call prototypes and
//! instructions with their operands.
//!
//! ```text
//! {
//!     .reg .pred %p<2>;
//! $L1:
//!     @!%p1 ld.global.v2.f32 {%f1, _}, [%rd1+-8];
//!     { .param .b32 p0; call.uni (p0), f, (%r1); }
//! }
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{PResult, Parser};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::Span;
use crate::ir::opcode::{is_unsupported, suggest, Opcode};
use crate::ir::Linkage;
use crate::ptx::ast::{GuardAst, Instruction, Name, OperandAst, PrototypeDecl, Statement};
use crate::ptx::lexer::TokenKind;

impl<'a> Parser<'a> {
    /// `{ statements }` of a function (the next token is `{`). Nested scopes become flat
    /// `Enter`/`Leave` statements.
    pub(super) fn body(&mut self) -> Vec<Statement<'a>> {
        let open = self.here();
        self.pos += 1;
        let mut stmts = Vec::new();
        let mut depth = 0usize;
        loop {
            let Some(t) = self.peek() else {
                self.push(
                    Diagnostic::error(open, "unclosed '{': the function body runs to the end of the file")
                        .with_hint("add the missing '}'"),
                );
                break;
            };
            if self.gave_up {
                break;
            }
            let start = self.pos;
            let text = self.text(t);
            match (t.kind, text) {
                (TokenKind::Punct, "{") => {
                    self.pos += 1;
                    depth += 1;
                    stmts.push(Statement::Enter(t.span));
                }
                (TokenKind::Punct, "}") => {
                    self.pos += 1;
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    stmts.push(Statement::Leave(t.span));
                }
                (TokenKind::DotWord, ".entry" | ".func" | ".visible" | ".weak" | ".version" | ".target") => {
                    self.push(
                        Diagnostic::error(open, "unclosed '{': a new top-level declaration starts inside this body")
                            .with_hint("add the missing '}' before it"),
                    );
                    break;
                }
                _ => {
                    if self.statement(&mut stmts).is_err() {
                        self.recover_statement();
                    }
                }
            }
            if self.pos == start {
                self.pos += 1;
            }
        }
        stmts
    }

    fn statement(&mut self, out: &mut Vec<Statement<'a>>) -> PResult<()> {
        let Some(t) = self.peek() else { return Ok(()) };
        let text = self.text(t);
        let next_is_colon = self.nth(1).is_some_and(|n| n.kind == TokenKind::Punct && self.text(n) == ":");
        match t.kind {
            TokenKind::Ident | TokenKind::Register if next_is_colon => {
                self.pos += 2;
                let name = Name { text, span: t.span };
                if self.at_dot(".callprototype") {
                    out.push(Statement::Prototype(self.prototype(name)?));
                } else if matches!(self.peek_text(), ".branchtargets" | ".calltargets") {
                    let calls = self.peek_text() == ".calltargets";
                    self.pos += 1;
                    let mut targets = alloc::vec![self.name("a target")?];
                    while self.eat_punct(",") {
                        targets.push(self.name("a target")?);
                    }
                    self.expect_semicolon("after the target list")?;
                    out.push(Statement::Targets { name, calls, targets });
                } else {
                    out.push(Statement::Label(name));
                }
                Ok(())
            }
            TokenKind::Punct if text == "@" => {
                self.pos += 1;
                let negated = self.eat_punct("!");
                let name = self.name("a predicate register after '@'")?;
                let guard = GuardAst { negated, name };
                out.push(Statement::Inst(self.instruction(Some(guard), t.span)?));
                Ok(())
            }
            TokenKind::Ident => {
                out.push(Statement::Inst(self.instruction(None, t.span)?));
                Ok(())
            }
            TokenKind::DotWord => self.body_directive(out, text),
            _ => {
                let found = self.describe_next();
                Err(self.error(t.span, format!("expected an instruction, a label or a declaration, found {found}")))
            }
        }
    }

    fn body_directive(&mut self, out: &mut Vec<Statement<'a>>, word: &'a str) -> PResult<()> {
        let start = self.here();
        match word {
            ".loc" => {
                let loc = self.loc()?;
                out.push(Statement::Loc(loc, start.join(self.prev_span())));
            }
            ".pragma" => out.push(Statement::Pragma(self.pragma()?)),
            ".reg" | ".local" | ".shared" | ".param" | ".global" | ".const" | ".tex" => {
                out.push(Statement::Var(self.var_decl(Linkage::Internal, start)?));
            }
            ".extern" | ".visible" | ".weak" | ".common" => {
                self.pos += 1;
                let linkage = match word {
                    ".extern" => Linkage::Extern,
                    ".visible" => Linkage::Visible,
                    ".weak" => Linkage::Weak,
                    _ => Linkage::Common,
                };
                out.push(Statement::Var(self.var_decl(linkage, start)?));
            }
            ".branchtargets" | ".calltargets" => {
                let d = Diagnostic::error(start, format!("'{word}' must follow the label that names the list"))
                    .with_hint(format!("write `targets: {word} a, b;`"));
                return Err(self.push(d));
            }
            _ => return Err(self.unknown_directive(start, word)),
        }
        Ok(())
    }

    /// `name: .callprototype [(rets)] _ (params) [.noreturn];` (after `name:`).
    fn prototype(&mut self, name: Name<'a>) -> PResult<PrototypeDecl<'a>> {
        self.pos += 1;
        let returns = if self.at_punct("(") { self.param_list()? } else { Vec::new() };
        if self.peek_text() != "_" {
            let found = self.describe_next();
            return Err(self.error(self.here(), format!("expected '_' in .callprototype, found {found}")));
        }
        self.pos += 1;
        let params = if self.at_punct("(") { self.param_list()? } else { Vec::new() };
        let noreturn = self.eat_dot(".noreturn");
        self.expect_semicolon("after .callprototype")?;
        Ok(PrototypeDecl { name, returns, params, noreturn })
    }

    fn instruction(&mut self, guard: Option<GuardAst<'a>>, start: crate::diagnostic::Span) -> PResult<Instruction<'a>> {
        let Some(head) = self.peek().filter(|t| t.kind == TokenKind::Ident) else {
            let found = self.describe_next();
            return Err(self.error(self.here(), format!("expected an instruction after the guard, found {found}")));
        };
        self.pos += 1;
        let mut words: Vec<Name<'a>> = Vec::new();
        while let Some(t) = self.peek().filter(|t| t.kind == TokenKind::DotWord) {
            self.pos += 1;
            words.push(Name { text: self.text(t), span: t.span });
        }
        let (opcode, used) = self.resolve_opcode(Name { text: self.text(head), span: head.span }, &words)?;
        let opcode_span = words.get(..used).and_then(|w| w.last()).map_or(head.span, |w| head.span.join(w.span));
        let mods = words.get(used..).map(<[Name<'a>]>::to_vec).unwrap_or_default();
        let operands = self.operands()?;
        Ok(Instruction { span: start.join(self.prev_span()), guard, opcode, opcode_span, mods, operands })
    }

    /// The longest opcode name made of `head` and the first words; returns it and how many words
    /// it used.
    fn resolve_opcode(&mut self, head: Name<'a>, words: &[Name<'a>]) -> PResult<(Opcode, usize)> {
        // Candidate names are source slices when the words are contiguous (they always are in
        // real PTX); otherwise they are spelled out.
        let mut spelled = String::new();
        let mut candidates: Vec<(alloc::borrow::Cow<'a, str>, usize, Span)> = Vec::new();
        let mut contiguous = true;
        let mut end = head.span;
        candidates.push((alloc::borrow::Cow::Borrowed(head.text), 0, head.span));
        spelled.push_str(head.text);
        for (i, w) in words.iter().take(Opcode::max_name_words() + 1).enumerate() {
            contiguous &= w.span.start == end.end;
            end = w.span;
            spelled.push_str(w.text);
            let span = head.span.join(w.span);
            let name = match self.src.get(span.start as usize..span.end as usize) {
                Some(text) if contiguous => alloc::borrow::Cow::Borrowed(text),
                _ => alloc::borrow::Cow::Owned(spelled.clone()),
            };
            candidates.push((name, i + 1, span));
        }
        for (cand, used, span) in candidates.iter().rev() {
            if is_unsupported(cand) {
                let d = Diagnostic::error(*span, format!("instruction '{cand}' is not supported by RegLab"))
                    .with_hint("RegLab models the PTX instructions real kernels use; this one is not among them yet");
                return Err(self.push(d));
            }
            if let Some(op) = Opcode::from_name(cand) {
                return Ok((op, *used));
            }
        }
        let is_prefix = Opcode::ALL.iter().any(|o| o.name().starts_with(&format!("{}.", head.text)));
        let (shown, span) = match words.first() {
            Some(w) if is_prefix => (format!("{}{}", head.text, w.text), head.span.join(w.span)),
            _ => (String::from(head.text), head.span),
        };
        let mut d = Diagnostic::error(span, format!("unknown instruction '{}'", super::truncate(&shown)));
        if let Some(s) = suggest(&shown).or_else(|| suggest(head.text)) {
            d = d.with_hint(format!("did you mean '{s}'?"));
        }
        Err(self.push(d))
    }

    fn operands(&mut self) -> PResult<Vec<OperandAst<'a>>> {
        let mut ops = Vec::new();
        if self.eat_punct(";") {
            return Ok(ops);
        }
        loop {
            ops.push(self.operand()?);
            if self.eat_punct(",") {
                continue;
            }
            self.expect_semicolon("(or ',') after an operand")?;
            return Ok(ops);
        }
    }

    fn operand(&mut self) -> PResult<OperandAst<'a>> {
        let Some(t) = self.peek() else {
            return Err(self.error(self.here(), "expected an operand, found end of file"));
        };
        let text = self.text(t);
        match (t.kind, text) {
            (TokenKind::Punct, "{") => self.vector(),
            (TokenKind::Punct, "[") => self.bracket(),
            (TokenKind::Punct, "(") => self.paren_list(),
            (TokenKind::Punct, "!") => {
                self.pos += 1;
                Ok(OperandAst::Not(self.name("a predicate after '!'")?))
            }
            (TokenKind::Punct, "-") if self.negated_name_follows() => {
                let start = self.here();
                self.pos += 1;
                let inner = self.name_operand()?;
                Ok(OperandAst::Neg(Box::new(inner), start.join(self.prev_span())))
            }
            (TokenKind::Punct, "-") | (TokenKind::Integer | TokenKind::Float, _) => {
                let (lit, span) = self.literal()?;
                Ok(OperandAst::Literal(lit, span))
            }
            (TokenKind::Ident | TokenKind::Register, _) => self.name_operand(),
            _ => {
                let found = self.describe_next();
                Err(self.error(t.span, format!("expected an operand, found {found}")))
            }
        }
    }

    /// True at a `-` followed by a name (`-%r1`), not a negative number.
    fn negated_name_follows(&self) -> bool {
        self.tokens.get(self.pos + 1).is_some_and(|t| matches!(t.kind, TokenKind::Ident | TokenKind::Register))
    }

    /// `%r1`, `%tid.x`, `sym+4`, `p|q`, `_`.
    fn name_operand(&mut self) -> PResult<OperandAst<'a>> {
        let name = self.name("an operand")?;
        if matches!(name.text, "%g" | "%s" | "%l" | "%c" | "%p") && self.at_punct("[") {
            return match self.bracket()? {
                OperandAst::Address { base, offset, span } => {
                    Ok(OperandAst::Memory { prefix: name, base, offset, span: name.span.join(span) })
                }
                other => Err(self.error(other.span(), "a direct memory operand takes an address: %g[%rd1+4]")),
            };
        }
        if self.eat_punct("|") {
            let second = self.name("a second destination after '|'")?;
            return Ok(OperandAst::Pair(name, second));
        }
        if name.text == "_" {
            return Ok(OperandAst::Sink(name.span));
        }
        if let Some(c) = self.peek().filter(|t| t.kind == TokenKind::DotWord) {
            self.pos += 1;
            return Ok(OperandAst::Name { name, component: Some(Name { text: self.text(c), span: c.span }) });
        }
        if self.at_punct("+") || self.at_punct("-") {
            let offset = self.offset()?;
            return Ok(OperandAst::SymOffset { name, offset, span: name.span.join(self.prev_span()) });
        }
        Ok(OperandAst::Name { name, component: None })
    }

    fn vector(&mut self) -> PResult<OperandAst<'a>> {
        let start = self.here();
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            let item = match self.peek() {
                Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::Register) => self.name_operand()?,
                Some(t) if t.kind == TokenKind::Punct && self.text(t) == "{" => {
                    return Err(self.error(t.span, "vectors cannot be nested"));
                }
                _ => {
                    let (lit, span) = self.literal()?;
                    OperandAst::Literal(lit, span)
                }
            };
            items.push(item);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct("}", "to close the vector")?;
        Ok(OperandAst::Vector(items, start.join(self.prev_span())))
    }

    /// `[base+offset]`, `[offset]` or a texture/surface list `[tex, {coords}]`.
    fn bracket(&mut self) -> PResult<OperandAst<'a>> {
        let start = self.here();
        self.pos += 1;
        let base = if matches!(self.peek_kind(), Some(TokenKind::Ident | TokenKind::Register)) {
            Some(self.name("an address")?)
        } else {
            None
        };
        if base.is_some() && self.at_punct(",") {
            let mut items =
                alloc::vec![OperandAst::Name { name: base.unwrap_or(Name { text: "", span: start }), component: None }];
            while self.eat_punct(",") {
                items.push(if self.at_punct("{") { self.vector()? } else { self.name_operand()? });
            }
            self.expect_punct("]", "to close the texture operand")?;
            return Ok(OperandAst::Bracket(items, start.join(self.prev_span())));
        }
        let offset = match base {
            Some(_) => self.offset()?,
            None => {
                let (lit, span) = self.literal()?;
                match lit {
                    crate::ptx::ast::Literal::Int(v) => v as i64,
                    _ => return Err(self.error(span, "an absolute address must be an integer")),
                }
            }
        };
        self.expect_punct("]", "to close the address")?;
        Ok(OperandAst::Address { base, offset, span: start.join(self.prev_span()) })
    }

    /// `(a, b, c)`: call return values and arguments.
    fn paren_list(&mut self) -> PResult<OperandAst<'a>> {
        let start = self.here();
        self.pos += 1;
        let mut items = Vec::new();
        if !self.at_punct(")") {
            loop {
                let item = match self.peek() {
                    Some(t) if matches!(t.kind, TokenKind::Ident | TokenKind::Register) => self.name_operand()?,
                    Some(t) if t.kind == TokenKind::Punct && self.text(t) == "{" => self.vector()?,
                    _ => {
                        let (lit, span) = self.literal()?;
                        OperandAst::Literal(lit, span)
                    }
                };
                items.push(item);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct(")", "to close the list")?;
        Ok(OperandAst::List(items, start.join(self.prev_span())))
    }
}
