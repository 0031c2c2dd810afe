//! The layout check the generator's output tests share: most of the generated text is
//! written directly rather than printed by prettyplease (emit/rust/writer.rs), and must read
//! exactly as if it had been, so prettyplease leaves it unchanged.

/// Fails unless prettyplease, given `text` (a generated file), prints it back unchanged but
/// for the blank lines between items (which prettyplease leaves out), and unless every item
/// that follows another's closing brace is set apart by a blank line. The header's plain
/// comments are not part of the syntax tree, so they are left out.
pub fn assert_laid_out_by_prettyplease(name: &str, text: &str) {
    let body = text
        .split_once("\n\n")
        .filter(|(header, _)| header.lines().all(|l| l.starts_with("// ")))
        .map_or(text, |(_, body)| body);
    let lines: Vec<&str> = body.lines().collect();
    for pair in lines.windows(2) {
        let item = ["///", "#[", "pub ", "impl", "fn ", "mod "];
        assert!(
            !(pair[0].trim() == "}" && item.iter().any(|i| pair[1].trim_start().starts_with(i))),
            "{name}: no blank line between `{}` and `{}`",
            pair[0],
            pair[1]
        );
    }
    let body: String = lines
        .iter()
        .filter(|line| !line.is_empty())
        .flat_map(|line| [*line, "\n"])
        .collect();
    let body = body.as_str();
    let file = syn::parse_file(body).unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    let printed = prettyplease::unparse(&file);
    if printed != body {
        let (line, (ours, theirs)) = body
            .lines()
            .zip(printed.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((body.lines().count(), ("(end)", "(end)")));
        panic!(
            "{name} is not laid out as prettyplease lays it out; first difference at line {}:\n  ours:         {ours}\n  prettyplease: {theirs}",
            line + 1
        );
    }
}
