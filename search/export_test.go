package search

// PlainOR is the evaluation's baseline expression: every word of q OR-ed.
func PlainOR(q string) string { return parse(q).plainOR(q) }
