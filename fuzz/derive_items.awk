# Writes each struct or enum that derives KubeStatus in the Rust files given (in code or in
# doc comments) as a derive_attrs seed: the mode byte 2 (a whole item), then its attributes
# and its body. `awk -v out=DIR -f derive_items.awk FILE...`; prints how many it wrote.
# Brackets are counted per character, so a brace inside a string literal can cut an item
# short: such a seed is merely a worse seed.
function count(text, chars,   copy) {
  copy = text
  return gsub(chars, "", copy)
}
function emit(   name) {
  name = FILENAME
  gsub(/[\/.]/, "_", name)
  sub(/^_+/, "", name)
  items++
  name = out "/" name "-" FNR
  printf "\002%s", item > name
  close(name)
  item = ""; attrs = ""; inside = 0; open = 0
}
FNR == 1 { attrs = ""; item = ""; inside = 0; open = 0 }
{
  line = $0
  doc = 0
  if (match(line, /^[ \t]*\/\/[\/!] ?/)) {
    doc = 1
    line = substr(line, RLENGTH + 1)
    sub(/^#( |$)/, "", line)
  }
  code = line
  sub(/^[ \t]+/, "", code)
  if (inside) {
    # In a doc comment's code the item's own doc comments are gone; elsewhere they stay.
    item = item (from_doc ? line : $0) "\n"
    depth += count(line, "[{]") - count(line, "[}]")
    if (line ~ /[{]/) braced = 1
    if ((braced && depth <= 0) || (!braced && line ~ /;[ \t]*$/)) emit()
    next
  }
  if (open > 0 || code ~ /^#\[/) {
    attrs = attrs line "\n"
    open += count(line, "[[(]") - count(line, "[])]")
    next
  }
  if (code ~ /^(pub(\([a-z]+\))? )?(struct|enum|union)[ \t]/ && attrs ~ /KubeStatus/) {
    inside = 1
    from_doc = doc
    item = attrs line "\n"
    depth = count(line, "[{]") - count(line, "[}]")
    braced = line ~ /[{]/
    if ((braced && depth <= 0) || (!braced && line ~ /;[ \t]*$/)) emit()
    next
  }
  # Prose between a doc comment's attributes is skipped; any other line ends them.
  if (doc && code !~ /^```/) next
  attrs = ""
}
END { print items + 0 }
