//! PTX lexer: every byte of the input belongs to exactly one token, so the editor can highlight the
//! whole text and the parser can skip trivia (white space, comments).
//!
//! ```text
//! @%p1 bra $L__BB0_2;   // → At, Register(%p1), Ident(bra), Ident($L__BB0_2), Semicolon, Comment
//! ```
//!
//! Modifiers stay attached to their dot: `ld.global.v4.f32` lexes as `Ident(ld)`, `DotWord(.global)`,
//! `DotWord(.v4)`, `DotWord(.f32)`; a scope suffix such as `.shared::cta` is one `DotWord`.
//! Numbers keep their spelling (`0f3F800000`, `0xFF`, `42U`); the parser interprets them.

use alloc::vec::Vec;

use crate::diagnostic::Span;

/// What kind of token a span of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Spaces, tabs and line breaks.
    Whitespace,
    /// `// …` to the end of the line, or `/* … */`.
    Comment,
    /// An identifier not starting with `%` or `.`: opcodes, labels, parameter and variable names.
    Ident,
    /// `%name`: virtual and special registers (`%r12`, `%tid`, `%laneid`).
    Register,
    /// `.name`, possibly with `::scope` parts: directives, types, state spaces and modifiers.
    DotWord,
    /// An integer literal: decimal, `0x` hex, `0b` binary or octal, optional `U` suffix.
    Integer,
    /// A floating-point literal: decimal (`1.5e3`) or raw bits (`0f3F800000`, `0d3FF0000000000000`).
    Float,
    /// A double-quoted string (used by `.file`, `.pragma`).
    String,
    /// A single punctuation character (`,` `;` `:` `{` `}` `[` `]` `(` `)` `<` `>` `+` `-` `!` `@` `|` …).
    Punct,
    /// `::` outside a dot word.
    ColonColon,
    /// A character PTX does not allow here, or an unterminated comment or string.
    Error,
}

/// One token: its kind and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is (byte range).
    pub span: Span,
}

impl Token {
    /// True for white space and comments, which the parser skips.
    pub fn is_trivia(self) -> bool {
        matches!(self.kind, TokenKind::Whitespace | TokenKind::Comment)
    }
}

/// Splits `src` into tokens covering every byte, in order.
pub fn tokenize(src: &str) -> Vec<Token> {
    let mut lexer = Lexer { bytes: src.as_bytes(), pos: 0 };
    let mut tokens = Vec::with_capacity(src.len() / 3);
    while lexer.pos < lexer.bytes.len() {
        let start = lexer.pos;
        let kind = lexer.next_kind();
        // Never stall: every step consumes at least one whole character.
        if lexer.pos <= start {
            lexer.pos = start + 1;
        }
        lexer.align_to_char_boundary(src);
        tokens.push(Token { kind, span: Span::new(start, lexer.pos) });
    }
    tokens
}

/// Tokens without white space and comments.
pub fn tokenize_significant(src: &str) -> Vec<Token> {
    let mut tokens = tokenize(src);
    tokens.retain(|t| !t.is_trivia());
    tokens
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// `1d`, `2dms` after a dot (texture geometries): digits followed by a letter.
    fn digits_then_letter(&self, from: usize) -> bool {
        let mut i = from;
        while self.peek(i).is_ascii_digit() {
            i += 1;
        }
        i > from && is_ident_start(self.peek(i))
    }

    fn eat_while(&mut self, pred: impl Fn(u8) -> bool) {
        while self.pos < self.bytes.len() && pred(self.bytes[self.pos]) {
            self.pos += 1;
        }
    }

    fn align_to_char_boundary(&mut self, src: &str) {
        while self.pos < src.len() && !src.is_char_boundary(self.pos) {
            self.pos += 1;
        }
    }

    fn next_kind(&mut self) -> TokenKind {
        let b = self.peek(0);
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => {
                self.eat_while(|c| c.is_ascii_whitespace() || c == 0x0b);
                TokenKind::Whitespace
            }
            // A UTF-8 byte-order mark (editors on Windows write one) is white space.
            0xEF if self.peek(1) == 0xBB && self.peek(2) == 0xBF => {
                self.pos += 3;
                TokenKind::Whitespace
            }
            b'/' if self.peek(1) == b'/' => {
                self.eat_while(|c| c != b'\n');
                TokenKind::Comment
            }
            b'/' if self.peek(1) == b'*' => self.block_comment(),
            b'"' => self.string(),
            b'%' if is_ident_continue(self.peek(1)) => {
                self.pos += 1;
                self.eat_while(is_ident_continue);
                TokenKind::Register
            }
            b'.' if is_ident_start(self.peek(1)) || self.digits_then_letter(1) => self.dot_word(),
            b'0'..=b'9' => self.number(),
            _ if is_ident_start(b) => {
                self.eat_while(is_ident_continue);
                TokenKind::Ident
            }
            b':' if self.peek(1) == b':' => {
                self.pos += 2;
                TokenKind::ColonColon
            }
            b',' | b';' | b':' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/'
            | b'!' | b'@' | b'=' | b'|' | b'&' | b'~' | b'?' | b'^' | b'%' | b'.' => {
                self.pos += 1;
                TokenKind::Punct
            }
            _ => {
                self.pos += 1;
                TokenKind::Error
            }
        }
    }

    fn block_comment(&mut self) -> TokenKind {
        self.pos += 2;
        while self.pos < self.bytes.len() {
            if self.peek(0) == b'*' && self.peek(1) == b'/' {
                self.pos += 2;
                return TokenKind::Comment;
            }
            self.pos += 1;
        }
        TokenKind::Error
    }

    fn string(&mut self) -> TokenKind {
        self.pos += 1;
        while self.pos < self.bytes.len() {
            match self.peek(0) {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return TokenKind::String;
                }
                b'\n' => return TokenKind::Error,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.bytes.len());
        TokenKind::Error
    }

    fn dot_word(&mut self) -> TokenKind {
        self.pos += 1;
        self.eat_while(is_ident_continue);
        // Scope and qualifier suffixes: `.shared::cta`, `.L2::cache_hint`, `.L2::256B`,
        // `.mbarrier::complete_tx::bytes`.
        while self.peek(0) == b':' && self.peek(1) == b':' && is_ident_continue(self.peek(2)) {
            self.pos += 2;
            self.eat_while(is_ident_continue);
        }
        TokenKind::DotWord
    }

    fn number(&mut self) -> TokenKind {
        let first = self.peek(0);
        let second = self.peek(1);
        if first == b'0' && matches!(second, b'f' | b'F' | b'd' | b'D') && self.peek(2).is_ascii_hexdigit() {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit());
            return self.reject_glued_letters(TokenKind::Float);
        }
        if first == b'0' && matches!(second, b'x' | b'X') {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit());
            return self.integer_suffix();
        }
        if first == b'0' && matches!(second, b'b' | b'B') && matches!(self.peek(2), b'0' | b'1') {
            self.pos += 2;
            self.eat_while(|c| c == b'0' || c == b'1');
            return self.integer_suffix();
        }
        self.eat_while(|c| c.is_ascii_digit());
        let mut float = false;
        if self.peek(0) == b'.' && !is_ident_start(self.peek(1)) {
            float = true;
            self.pos += 1;
            self.eat_while(|c| c.is_ascii_digit());
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit() || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            float = true;
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_digit());
        }
        if float {
            self.reject_glued_letters(TokenKind::Float)
        } else {
            self.integer_suffix()
        }
    }

    fn integer_suffix(&mut self) -> TokenKind {
        if matches!(self.peek(0), b'U' | b'u') && !is_ident_continue(self.peek(1)) {
            self.pos += 1;
        }
        self.reject_glued_letters(TokenKind::Integer)
    }

    /// `12abc` is not a number: swallow the rest of the word into one error token.
    fn reject_glued_letters(&mut self, kind: TokenKind) -> TokenKind {
        if is_ident_continue(self.peek(0)) {
            self.eat_while(is_ident_continue);
            TokenKind::Error
        } else {
            kind
        }
    }
}

/// What the editor colours a token as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HighlightClass {
    /// White space (not coloured).
    Plain,
    /// Comments.
    Comment,
    /// Module and declaration directives: `.version`, `.entry`, `.reg`, `.param`, …
    Directive,
    /// The instruction name at the start of a statement (`add`, `ld`, `bra`).
    Opcode,
    /// Dot modifiers after an opcode or in a declaration: `.s32`, `.global`, `.rn`.
    Modifier,
    /// `%name` registers.
    Register,
    /// A label definition (`$L__BB0_2:`) or a predicate guard (`@%p1`).
    Label,
    /// Other identifiers: parameter and variable names, branch targets.
    Ident,
    /// Integer and float literals.
    Number,
    /// String literals.
    String,
    /// Punctuation.
    Punct,
    /// Something the lexer could not make sense of.
    Error,
}

impl HighlightClass {
    /// The CSS class suffix the web app uses (`tok-<name>`).
    pub fn css_name(self) -> &'static str {
        match self {
            HighlightClass::Plain => "plain",
            HighlightClass::Comment => "comment",
            HighlightClass::Directive => "directive",
            HighlightClass::Opcode => "opcode",
            HighlightClass::Modifier => "modifier",
            HighlightClass::Register => "register",
            HighlightClass::Label => "label",
            HighlightClass::Ident => "ident",
            HighlightClass::Number => "number",
            HighlightClass::String => "string",
            HighlightClass::Punct => "punct",
            HighlightClass::Error => "error",
        }
    }
}

/// Tokens of `src` with the class the editor should colour them as. Statement-level context
/// (start of a statement, after a guard, before a `:`) decides opcode, directive and label.
pub fn highlight(src: &str) -> Vec<(Span, HighlightClass)> {
    let tokens = tokenize(src);
    let mut out = Vec::with_capacity(tokens.len());
    let mut state = HighlightState::Start;
    let mut operand_braces = 0u32;
    let mut at_line_start = true;
    let mut prev_close_paren = false;
    for (i, tok) in tokens.iter().enumerate() {
        if tok.is_trivia() {
            let class = if tok.kind == TokenKind::Comment { HighlightClass::Comment } else { HighlightClass::Plain };
            at_line_start |= tok.kind == TokenKind::Whitespace && tok.span.text(src).contains('\n');
            out.push((tok.span, class));
            continue;
        }
        let line_start = core::mem::replace(&mut at_line_start, false);
        let after_paren =
            core::mem::replace(&mut prev_close_paren, tok.kind == TokenKind::Punct && tok.span.text(src) == ")");
        let text = tok.span.text(src);
        let next_is_colon = tokens[i + 1..]
            .iter()
            .find(|t| !t.is_trivia())
            .is_some_and(|n| n.kind == TokenKind::Punct && n.span.text(src) == ":");
        let (class, next_state) = match (state, tok.kind, text) {
            (_, TokenKind::Punct, ";") => (HighlightClass::Punct, HighlightState::Start),
            (HighlightState::Start, TokenKind::Punct, "@") => (HighlightClass::Punct, HighlightState::Guard),
            (HighlightState::Start, TokenKind::Punct, "{" | "}") => (HighlightClass::Punct, HighlightState::Start),
            (HighlightState::Start, TokenKind::Ident, _) if next_is_colon => {
                (HighlightClass::Label, HighlightState::Start)
            }
            (HighlightState::Start, TokenKind::Punct, ":") => (HighlightClass::Punct, HighlightState::Start),
            (HighlightState::Start, TokenKind::Ident, _) => (HighlightClass::Opcode, HighlightState::Modifiers),
            (HighlightState::Start, TokenKind::DotWord, _) => (HighlightClass::Directive, HighlightState::Operands),
            // A function body: `{` opening a line or right after a parameter list.
            (_, TokenKind::Punct, "{") if line_start || after_paren => (HighlightClass::Punct, HighlightState::Start),
            // Directives without `;` (`.version 8.5`, `.target sm_75`) and `.param` lines of a
            // parameter list: a dot word opening a line after operands starts a declaration.
            (HighlightState::Operands, TokenKind::DotWord, _) if line_start => {
                (HighlightClass::Directive, HighlightState::Operands)
            }
            (HighlightState::Guard, TokenKind::Punct, "!") => (HighlightClass::Punct, HighlightState::Guard),
            (HighlightState::Guard, TokenKind::Register | TokenKind::Ident, _) => {
                (HighlightClass::Label, HighlightState::Start)
            }
            (HighlightState::Modifiers, TokenKind::DotWord, _) => (HighlightClass::Modifier, HighlightState::Modifiers),
            (_, TokenKind::Punct, "{") => {
                operand_braces += 1;
                (HighlightClass::Punct, HighlightState::Operands)
            }
            (_, TokenKind::Punct, "}") if operand_braces == 0 => (HighlightClass::Punct, HighlightState::Start),
            (_, TokenKind::Punct, "}") => {
                operand_braces -= 1;
                (HighlightClass::Punct, HighlightState::Operands)
            }
            (_, kind, _) => (lexical_class(kind), HighlightState::Operands),
        };
        if next_state == HighlightState::Start {
            operand_braces = 0;
        }
        state = next_state;
        out.push((tok.span, class));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HighlightState {
    /// Expecting a label, a guard, an opcode or a directive.
    Start,
    /// After `@` (and optional `!`): the guard predicate comes next.
    Guard,
    /// After an opcode: its dot modifiers.
    Modifiers,
    /// Operands or the rest of a declaration.
    Operands,
}

fn lexical_class(kind: TokenKind) -> HighlightClass {
    match kind {
        TokenKind::Whitespace => HighlightClass::Plain,
        TokenKind::Comment => HighlightClass::Comment,
        TokenKind::Ident => HighlightClass::Ident,
        TokenKind::Register => HighlightClass::Register,
        TokenKind::DotWord => HighlightClass::Modifier,
        TokenKind::Integer | TokenKind::Float => HighlightClass::Number,
        TokenKind::String => HighlightClass::String,
        TokenKind::Punct | TokenKind::ColonColon => HighlightClass::Punct,
        TokenKind::Error => HighlightClass::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn kinds(src: &str) -> Vec<(TokenKind, &str)> {
        tokenize_significant(src).into_iter().map(|t| (t.kind, t.span.text(src))).collect()
    }

    #[test]
    fn instruction_with_modifiers_and_guard() {
        use TokenKind::*;
        assert_eq!(
            kinds("@!%p1 ld.global.nc.v4.f32 {%f1,%f2}, [%rd4+-16];"),
            vec![
                (Punct, "@"),
                (Punct, "!"),
                (Register, "%p1"),
                (Ident, "ld"),
                (DotWord, ".global"),
                (DotWord, ".nc"),
                (DotWord, ".v4"),
                (DotWord, ".f32"),
                (Punct, "{"),
                (Register, "%f1"),
                (Punct, ","),
                (Register, "%f2"),
                (Punct, "}"),
                (Punct, ","),
                (Punct, "["),
                (Register, "%rd4"),
                (Punct, "+"),
                (Punct, "-"),
                (Integer, "16"),
                (Punct, "]"),
                (Punct, ";"),
            ]
        );
    }

    #[test]
    fn numbers_in_every_spelling() {
        use TokenKind::*;
        assert_eq!(
            kinds("tex.2d.v4 0f3F800000 0d3FF0000000000000 0xFFFFFFFFU 017 0b101 42 1.5e-3 2. 7e10"),
            vec![
                (Ident, "tex"),
                (DotWord, ".2d"),
                (DotWord, ".v4"),
                (Float, "0f3F800000"),
                (Float, "0d3FF0000000000000"),
                (Integer, "0xFFFFFFFFU"),
                (Integer, "017"),
                (Integer, "0b101"),
                (Integer, "42"),
                (Float, "1.5e-3"),
                (Float, "2."),
                (Float, "7e10"),
            ]
        );
    }

    #[test]
    fn scoped_modifiers_and_declarations() {
        use TokenKind::*;
        assert_eq!(
            kinds("cp.async.ca.shared::cta.global [%r1], [%rd1], 4; .reg .b32 %r<42>;"),
            vec![
                (Ident, "cp"),
                (DotWord, ".async"),
                (DotWord, ".ca"),
                (DotWord, ".shared::cta"),
                (DotWord, ".global"),
                (Punct, "["),
                (Register, "%r1"),
                (Punct, "]"),
                (Punct, ","),
                (Punct, "["),
                (Register, "%rd1"),
                (Punct, "]"),
                (Punct, ","),
                (Integer, "4"),
                (Punct, ";"),
                (DotWord, ".reg"),
                (DotWord, ".b32"),
                (Register, "%r"),
                (Punct, "<"),
                (Integer, "42"),
                (Punct, ">"),
                (Punct, ";"),
            ]
        );
    }

    #[test]
    fn every_byte_is_covered_even_for_garbage() {
        for src in ["", "/* open", "\"open", "12abc ##\u{e9}\u{1F600}", ".", "%", "0f", "0x", "a::b"] {
            let tokens = tokenize(src);
            let mut pos = 0;
            for t in &tokens {
                assert_eq!(t.span.start as usize, pos, "{src:?}");
                assert!(t.span.end > t.span.start, "{src:?}");
                pos = t.span.end as usize;
            }
            assert_eq!(pos, src.len(), "{src:?}");
        }
        assert_eq!(tokenize("/* open")[0].kind, TokenKind::Error);
        assert_eq!(tokenize("\u{FEFF}.version")[0].kind, TokenKind::Whitespace);
        assert_eq!(tokenize("12abc")[0].kind, TokenKind::Error);
    }

    #[test]
    fn highlighting_uses_statement_context() {
        let src = ".reg .pred %p<3>;\n$L1:\n@%p1 bra $L1; // loop\nadd.s32 %r1, %r2, 1;";
        let classes: Vec<(&str, HighlightClass)> = highlight(src)
            .into_iter()
            .filter(|(_, c)| *c != HighlightClass::Plain)
            .map(|(s, c)| (s.text(src), c))
            .collect();
        use HighlightClass::*;
        assert!(classes.contains(&(".reg", Directive)));
        assert!(classes.contains(&(".pred", Modifier)));
        assert!(classes.contains(&("$L1", Label)));
        assert!(classes.contains(&("%p1", Label)));
        assert!(classes.contains(&("bra", Opcode)));
        assert!(classes.contains(&("add", Opcode)));
        assert!(classes.contains(&(".s32", Modifier)));
        assert!(classes.contains(&("// loop", Comment)));
        assert!(classes.contains(&("1", Number)));
    }

    #[test]
    fn directives_without_semicolons_still_start_lines() {
        let src = ".version 8.5\n.target sm_75\n.visible .entry k(\n\t.param .u64 a\n)\n{ ld.global.u32 %r1, [a]; }\n.entry j() { ret; }";
        let classes: Vec<(&str, HighlightClass)> = highlight(src).into_iter().map(|(s, c)| (s.text(src), c)).collect();
        use HighlightClass::*;
        for directive in [".version", ".target", ".visible", ".param"] {
            assert!(classes.contains(&(directive, Directive)), "{directive}: {classes:?}");
        }
        assert!(classes.contains(&(".global", Modifier)));
        // Function bodies start statements, whether `{` opens a line or follows `)`.
        assert!(classes.contains(&("ld", Opcode)), "{classes:?}");
        assert!(classes.contains(&("ret", Opcode)), "{classes:?}");
    }
}
