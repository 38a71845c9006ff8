//! Variable declarations with their attributes, array dimensions and initialisers.
//!
//! ```text
//! .global .align 4 .b8 tbl[4] = {1, 2, 3, 4};
//! .reg .b32 %r<42>, x, y;
//! .global .u64 p = generic(tbl)+4;
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::{PResult, Parser};
use crate::diagnostic::Span;
use crate::ir::{Linkage, StateSpace, Type, VecWidth};
use crate::ptx::ast::{DeclName, Init, VarDecl};
use crate::ptx::lexer::TokenKind;

/// Nesting limit of initialiser lists (`{{{…}}}`).
const MAX_INIT_DEPTH: usize = 32;

impl<'a> Parser<'a> {
    /// `[linkage] space {.align N | .vN | type} name[<N>][dims][= init] {, …} ;`
    pub(super) fn var_decl(&mut self, linkage: Linkage, start: Span) -> PResult<VarDecl<'a>> {
        let Some(t) = self.bump() else { return Err(self.error(start, "expected a state space")) };
        let Some(space) = StateSpace::from_keyword(self.text(t)) else {
            return Err(self.unknown_directive(t.span, self.text(t)));
        };
        let (align, vec, ty) = self.var_attributes()?;
        let mut names = alloc::vec![self.decl_name()?];
        while self.eat_punct(",") {
            names.push(self.decl_name()?);
        }
        self.expect_semicolon("after the declaration")?;
        Ok(VarDecl { span: start.join(self.prev_span()), linkage, space, align, vec, ty, names })
    }

    /// `.align N`, `.vN` and the type, in any order.
    fn var_attributes(&mut self) -> PResult<(Option<u32>, Option<VecWidth>, Type)> {
        let (mut align, mut vec, mut ty) = (None, None, None);
        while let Some(t) = self.peek().filter(|t| t.kind == TokenKind::DotWord) {
            let word = self.text(t);
            self.pos += 1;
            if word == ".align" {
                align = Some(self.u32_literal("an alignment")?);
            } else if let Some(v) = VecWidth::from_keyword(word) {
                vec = Some(v);
            } else if let Some(tt) = Type::from_keyword(word) {
                if ty.replace(tt).is_some() {
                    return Err(self.error(t.span, format!("second type '{word}' in a declaration")));
                }
            } else {
                return Err(self.error(t.span, format!("unexpected '{word}' in a declaration")));
            }
        }
        match ty {
            Some(ty) => Ok((align, vec, ty)),
            None => {
                let found = self.describe_next();
                Err(self.error(self.here(), format!("expected a type such as .b32 in the declaration, found {found}")))
            }
        }
    }

    fn decl_name(&mut self) -> PResult<DeclName<'a>> {
        let name = self.name("a name")?;
        let count = if self.eat_punct("<") {
            let n = self.u32_literal("a register count")?;
            self.expect_punct(">", "after the register count")?;
            Some(n)
        } else {
            None
        };
        let dims = self.dims()?;
        let init = if self.eat_punct("=") { Some(self.init(0)?) } else { None };
        Ok(DeclName { name, count, dims, init })
    }

    pub(super) fn dims(&mut self) -> PResult<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            if self.eat_punct("]") {
                dims.push(None);
            } else {
                dims.push(Some(self.u64_literal("an array size")?.0));
                self.expect_punct("]", "after the array size")?;
            }
        }
        Ok(dims)
    }

    fn init(&mut self, depth: usize) -> PResult<Init<'a>> {
        let start = self.here();
        if self.eat_punct("{") {
            if depth >= MAX_INIT_DEPTH {
                return Err(self.error(start, format!("initialiser nested deeper than {MAX_INIT_DEPTH} levels")));
            }
            let mut items = Vec::new();
            if !self.at_punct("}") {
                items.push(self.init(depth + 1)?);
                while self.eat_punct(",") {
                    items.push(self.init(depth + 1)?);
                }
            }
            self.expect_punct("}", "to close the initialiser list")?;
            return Ok(Init::List(items, start.join(self.prev_span())));
        }
        if self.peek_text() == "generic" && self.nth(1).is_some_and(|t| self.text(t) == "(") {
            self.pos += 2;
            let name = self.name("a symbol")?;
            self.expect_punct(")", "after generic(symbol")?;
            return Ok(Init::Symbol { name, offset: self.offset()?, generic: true });
        }
        if matches!(self.peek_kind(), Some(TokenKind::Ident)) {
            let name = self.name("a symbol")?;
            return Ok(Init::Symbol { name, offset: self.offset()?, generic: false });
        }
        let (lit, span) = self.literal()?;
        Ok(Init::Literal(lit, span))
    }
}
