package search

// PlainOR is the evaluation's baseline expression: every word of q OR-ed.
func PlainOR(q string) string { return parse(q).plainOR(q) }

// TextQueryOf is the full-text query the service sends for q.
func TextQueryOf(q string, limit int) TextQuery {
	p := parse(q)
	return TextQuery{Match: p.match(), All: p.all(), Weights: [3]float64{DefaultTuning.TitleWeight, 1, 1}, Limit: limit}
}
