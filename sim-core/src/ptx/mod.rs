//! The PTX front end: text → tokens → AST with spans → IR.
//!
//! ```text
//! .visible .entry add(.param .u64 a) { ld.param.u64 %rd1, [a]; ret; }
//! ```
//!
//! [`lexer`] turns text into tokens (it never fails: bad characters become error tokens) and also
//! classifies them for syntax highlighting, so the web editor highlights exactly what the parser sees.
//! [`parser`] builds the [`ast`], reporting every error with a span and recovering at `;` and `}`.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::parse;
