package search

import "context"

// PlainOR is the evaluation's baseline expression: every word of q OR-ed.
func PlainOR(q string) string { return parse(q).plainOR(q) }

// TextQueryOf is the full-text query the service sends for q.
func TextQueryOf(q string, limit int) TextQuery {
	p := parse(q)
	return TextQuery{Match: p.match(), Bonus: p.bonus(), All: p.all(), Weights: [3]float64{DefaultTuning.TitleWeight, 1, 1}, Limit: limit}
}

// SetSkipCommonTerms turns the common-term pruning on or off and returns
// the previous setting.
func SetSkipCommonTerms(on bool) bool {
	old := skipCommonTerms
	skipCommonTerms = on
	return old
}

// Pruned reports whether the full-text expression of q leaves common terms
// out.
func Pruned(s *Service, q string) bool {
	p := parse(q)
	m, err := s.fulltextMatch(context.Background(), p, Filter{})
	return err == nil && m != p.match()
}
