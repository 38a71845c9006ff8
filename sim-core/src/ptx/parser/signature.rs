//! Entry and function signatures: linkage, return and parameter lists (with `.ptr`, `.align` and
//! array parameters), performance directives and the body or `;`.
//!
//! ```text
//! .visible .func (.param .b32 r) f(.param .u64 .ptr .global .align 4 p) .noreturn;
//! .entry k(.param .align 4 .b8 blob[12]) .maxntid 128, 1, 1 { … }
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::decl::TOP_LEVEL;
use super::{PResult, Parser};
use crate::diagnostic::Span;
use crate::ir::{FunctionKind, Linkage, PerfDirectives, StateSpace, Type, VecWidth};
use crate::ptx::ast::{self, ParamDecl};
use crate::ptx::lexer::TokenKind;

impl<'a> Parser<'a> {
    pub(super) fn function(&mut self, linkage: Linkage, start: Span) -> PResult<ast::FunctionDecl<'a>> {
        let kind = if self.eat_dot(".entry") { FunctionKind::Entry } else { FunctionKind::Func };
        if kind == FunctionKind::Func {
            self.pos += 1;
        }
        let returns = if kind == FunctionKind::Func && self.at_punct("(") { self.param_list()? } else { Vec::new() };
        let name = self.name("a function name")?;
        let params = if self.at_punct("(") { self.param_list()? } else { Vec::new() };
        let span = start.join(self.prev_span());
        let perf = self.perf_directives()?;
        let body = if self.eat_punct(";") {
            None
        } else if self.at_punct("{") {
            Some(self.body())
        } else if self.peek().is_none_or(|t| t.kind == TokenKind::DotWord && TOP_LEVEL.contains(&self.text(t))) {
            // Old nvopencc output ends declarations without ';'.
            None
        } else {
            let found = self.describe_next();
            return Err(self.error(
                self.here(),
                format!("expected '{{' or ';' after the signature of '{}', found {found}", name.text),
            ));
        };
        Ok(ast::FunctionDecl { span, linkage, kind, name, returns, params, perf, body })
    }

    pub(super) fn param_list(&mut self) -> PResult<Vec<ParamDecl<'a>>> {
        self.expect_punct("(", "to open the parameter list")?;
        let mut params = Vec::new();
        if !self.at_punct(")") {
            params.push(self.param()?);
            while self.eat_punct(",") {
                params.push(self.param()?);
            }
        }
        self.expect_punct(")", "to close the parameter list")?;
        Ok(params)
    }

    fn param(&mut self) -> PResult<ParamDecl<'a>> {
        let start = self.here();
        let space = match self.peek_text() {
            ".param" => StateSpace::Param,
            ".reg" => StateSpace::Reg,
            _ => {
                let found = self.describe_next();
                return Err(self.error(start, format!("expected .param or .reg to start a parameter, found {found}")));
            }
        };
        self.pos += 1;
        let (mut align, mut vec, mut ty, mut ptr) = (None, None, None, None);
        while let Some(t) = self.peek().filter(|t| t.kind == TokenKind::DotWord) {
            let word = self.text(t);
            self.pos += 1;
            if word == ".align" {
                align = Some(self.u32_literal("an alignment")?);
            } else if word == ".ptr" {
                ptr = Some(self.ptr_attributes()?);
            } else if let Some(v) = VecWidth::from_keyword(word) {
                vec = Some(v);
            } else if let Some(tt) = Type::from_keyword(word) {
                ty = Some(tt);
            } else {
                return Err(self.error(t.span, format!("unexpected '{word}' in a parameter")));
            }
        }
        let Some(ty) = ty else {
            return Err(self.error(self.here(), "expected a type such as .u64 in the parameter"));
        };
        let name = self.name("a parameter name")?;
        let dims = self.dims()?;
        Ok(ParamDecl { span: start.join(self.prev_span()), space, align, vec, ty, ptr, name, dims })
    }

    /// After `.ptr`: an optional state space and `.align N`.
    fn ptr_attributes(&mut self) -> PResult<(Option<StateSpace>, Option<u32>)> {
        let mut space = None;
        if let Some(s) = StateSpace::from_keyword(self.peek_text()) {
            self.pos += 1;
            space = Some(s);
        }
        let align = if self.eat_dot(".align") { Some(self.u32_literal("an alignment")?) } else { None };
        Ok((space, align))
    }

    fn perf_directives(&mut self) -> PResult<PerfDirectives> {
        let mut perf = PerfDirectives::default();
        while let Some(t) = self.peek().filter(|t| t.kind == TokenKind::DotWord) {
            let word = self.text(t);
            match word {
                ".maxntid" | ".reqntid" | ".reqnctapercluster" => {
                    self.pos += 1;
                    let mut dims = alloc::vec![self.u32_literal("a dimension")?];
                    while self.eat_punct(",") {
                        dims.push(self.u32_literal("a dimension")?);
                    }
                    if dims.len() > 3 {
                        return Err(self.error(t.span, format!("{word} takes at most 3 dimensions")));
                    }
                    let slot = match word {
                        ".maxntid" => &mut perf.maxntid,
                        ".reqntid" => &mut perf.reqntid,
                        _ => &mut perf.reqnctapercluster,
                    };
                    *slot = Some(dims);
                }
                ".minnctapersm" | ".maxnctapersm" | ".maxnreg" | ".maxclusterrank" => {
                    self.pos += 1;
                    let n = Some(self.u32_literal("a count")?);
                    match word {
                        ".minnctapersm" => perf.minnctapersm = n,
                        ".maxnctapersm" => perf.maxnctapersm = n,
                        ".maxnreg" => perf.maxnreg = n,
                        _ => perf.maxclusterrank = n,
                    }
                }
                ".noreturn" => {
                    self.pos += 1;
                    perf.noreturn = true;
                }
                ".explicitcluster" => {
                    self.pos += 1;
                    perf.explicitcluster = true;
                }
                ".pragma" => perf.pragmas.push(self.pragma()?.text.into()),
                _ if TOP_LEVEL.contains(&word) => break,
                _ => return Err(self.unknown_directive(t.span, word)),
            }
        }
        Ok(perf)
    }
}
