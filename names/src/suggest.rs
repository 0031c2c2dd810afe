//! Did-you-mean: the known name a misspelt one most likely meant, for the generator's and
//! the derive's error messages.

/// Names longer than this get no suggestion and are suggested for none: the edit distance
/// takes time and memory in the product of the two lengths, which for two names of
/// 100,000 characters was 80 GB (found by fuzzing).
const MAX_SUGGESTED_LEN: usize = 128;

/// The known name closest to `name`, if it is close enough to be a likely typo.
pub fn suggest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    if name.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    known
        .iter()
        .filter(|k| k.len() <= MAX_SUGGESTED_LEN)
        .map(|k| (edit_distance(&lower, &k.to_ascii_lowercase()), *k))
        .filter(|(distance, k)| *distance <= (k.len().max(name.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

/// How a message shows a name it quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quote {
    /// In backticks, as code: a key, a kind, a type (`` `profile` ``).
    Code,
    /// As the string literal the user wrote (`"kstatus"`): a derive attribute's value.
    Literal,
}

impl Quote {
    /// `name` quoted this way.
    pub fn quote(self, name: &str) -> String {
        match self {
            Self::Code => format!("`{name}`"),
            Self::Literal => format!("{name:?}"),
        }
    }
}

/// The end of a message about `name`, which is none of `known`: "; did you mean `x`?" when a
/// known name is near it ([`suggest`]), else "; " and what `otherwise` says (the known names,
/// say), or nothing when that is empty. Every did-you-mean of the generator and the derive
/// is worded here.
pub fn hint(
    name: &str,
    known: &[&str],
    quote: Quote,
    otherwise: impl FnOnce() -> String,
) -> String {
    match suggest(name, known) {
        Some(near) => did_you_mean(&quote.quote(near)),
        None => match otherwise() {
            tail if tail.is_empty() => tail,
            tail => format!("; {tail}"),
        },
    }
}

/// "; did you mean `x`?", the end of a message, for a suggestion already quoted: the one
/// wording of [`hint`] and of the derive's suggestions that are not a known name (a condition
/// type respelt).
pub fn did_you_mean(quoted: &str) -> String {
    format!("; did you mean {quoted}?")
}

/// Edit distance over characters, counting a swap of two neighbours as one edit (optimal
/// string alignment), so `int23` is one edit from `int32`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_word_the_suggestion_or_what_the_caller_says() {
        let known = ["standard", "kstatus"];
        let list = || "known: standard, kstatus".to_owned();
        assert_eq!(
            hint("kstatsu", &known, Quote::Literal, list),
            "; did you mean \"kstatus\"?"
        );
        assert_eq!(
            hint("standart", &known, Quote::Code, list),
            "; did you mean `standard`?"
        );
        assert_eq!(
            hint("other", &known, Quote::Code, list),
            "; known: standard, kstatus"
        );
        assert_eq!(hint("other", &known, Quote::Code, String::new), "");
    }

    #[test]
    fn suggestions_catch_typos_only() {
        let known = ["shortNames", "categories", "plural", "singular"];
        assert_eq!(suggest("shortName", &known), Some("shortNames"));
        assert_eq!(suggest("catagories", &known), Some("categories"));
        assert_eq!(suggest("Plural", &known), Some("plural"));
        assert_eq!(suggest("colour", &known), None);
        assert_eq!(
            suggest("int23", &["int32", "int64", "string"]),
            Some("int32")
        );
    }
}
