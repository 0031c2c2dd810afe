//! Laying out tokens with prettyplease at any depth, and putting text written apart (the
//! data types, the CRD constants) in its place among them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::EmitError;

/// Text written apart from the tokens: a marker item stands in its place while the tokens are
/// laid out, then the text replaces the marker's line.
#[derive(Default)]
pub struct Texts(Vec<String>);

/// What a marker's line starts with (after its indentation); no generated item is a unit
/// struct, so no other line can be mistaken for one.
const MARKER: &str = "struct __KonditionText";

impl Texts {
    /// The marker item for `text`, which must end with a line break.
    pub fn marker(&mut self, text: String) -> TokenStream {
        let marker = format_ident!("__KonditionText{}", self.0.len());
        self.0.push(text);
        quote!(struct #marker;)
    }

    /// `formatted` with every marker's line replaced by its text.
    pub fn splice(&self, formatted: &str) -> Result<String, EmitError> {
        let mut out =
            String::with_capacity(formatted.len() + self.0.iter().map(String::len).sum::<usize>());
        let mut spliced = 0;
        for line in formatted.lines() {
            let index = line
                .trim_start()
                .strip_prefix(MARKER)
                .and_then(|rest| rest.strip_suffix(';'))
                .and_then(|n| n.parse::<usize>().ok());
            match index.and_then(|i| self.0.get(i)) {
                Some(text) => {
                    out.push_str(text);
                    spliced += 1;
                }
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        if spliced != self.0.len() {
            return Err(EmitError::Unplaced {
                placed: spliced,
                written: self.0.len(),
            });
        }
        Ok(out)
    }
}

/// `tokens` laid out by prettyplease as items `depth` modules deep (indented `4 * depth`).
pub fn format_at(tokens: TokenStream, depth: usize) -> Result<String, EmitError> {
    let mut wrapped = tokens;
    for _ in 0..depth {
        wrapped = quote!(mod m { #wrapped });
    }
    let text = crate::emit::format(wrapped)?;
    if depth == 0 {
        return Ok(text);
    }
    // Without the wrappers' opening and closing lines (an empty one prints as `mod m {}`).
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    if lines.len() >= 2 * depth {
        for line in &lines[depth..lines.len() - depth] {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}
