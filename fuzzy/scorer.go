package fuzzy

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidArgument is wrapped by every error of this package: an unknown
// scorer or processor name, a cutoff outside [0, 100], malformed groups.
var ErrInvalidArgument = errors.New("invalid argument")

// Scorer names one of the scorers of this package. The zero value is not a
// valid scorer.
type Scorer uint8

// The scorers, named after their rapidfuzz.fuzz counterparts.
const (
	ScorerRatio                 Scorer = iota + 1 // fuzz.ratio
	ScorerPartialRatio                            // fuzz.partial_ratio
	ScorerTokenSortRatio                          // fuzz.token_sort_ratio
	ScorerTokenSetRatio                           // fuzz.token_set_ratio
	ScorerTokenRatio                              // fuzz.token_ratio
	ScorerPartialTokenSortRatio                   // fuzz.partial_token_sort_ratio
	ScorerPartialTokenSetRatio                    // fuzz.partial_token_set_ratio
	ScorerPartialTokenRatio                       // fuzz.partial_token_ratio
	ScorerWRatio                                  // fuzz.WRatio
	ScorerQRatio                                  // fuzz.QRatio
)

var scorerNames = [...]string{
	ScorerRatio:                 "ratio",
	ScorerPartialRatio:          "partial_ratio",
	ScorerTokenSortRatio:        "token_sort_ratio",
	ScorerTokenSetRatio:         "token_set_ratio",
	ScorerTokenRatio:            "token_ratio",
	ScorerPartialTokenSortRatio: "partial_token_sort_ratio",
	ScorerPartialTokenSetRatio:  "partial_token_set_ratio",
	ScorerPartialTokenRatio:     "partial_token_ratio",
	ScorerWRatio:                "WRatio",
	ScorerQRatio:                "QRatio",
}

// Scorers returns every scorer, in declaration order.
func Scorers() []Scorer {
	out := make([]Scorer, 0, len(scorerNames)-1)
	for s := ScorerRatio; s <= ScorerQRatio; s++ {
		out = append(out, s)
	}
	return out
}

// String returns the rapidfuzz name of s ("WRatio", "token_set_ratio", ...).
func (s Scorer) String() string {
	if s.Valid() {
		return scorerNames[s]
	}
	return fmt.Sprintf("Scorer(%d)", uint8(s))
}

// Valid reports whether s names a scorer.
func (s Scorer) Valid() bool {
	return s >= ScorerRatio && s <= ScorerQRatio
}

// ParseScorer returns the scorer with the given name. Names are matched
// ignoring case and underscores, so "WRatio", "wratio", "token_set_ratio" and
// "TokenSetRatio" are all accepted.
func ParseScorer(name string) (Scorer, error) {
	key := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "_", ""))
	for s := ScorerRatio; s <= ScorerQRatio; s++ {
		if strings.ToLower(strings.ReplaceAll(scorerNames[s], "_", "")) == key {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown scorer %q: %w", name, ErrInvalidArgument)
}

// MarshalText implements encoding.TextMarshaler with the rapidfuzz name.
func (s Scorer) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("marshal scorer %d: %w", uint8(s), ErrInvalidArgument)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseScorer.
func (s *Scorer) UnmarshalText(b []byte) error {
	v, err := ParseScorer(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Score returns the score of s1 and s2 under s, with rapidfuzz's score_cutoff
// semantics (see the package documentation). It returns 0 if s is not valid.
// No processor is applied; call DefaultProcess on both strings first to get
// rapidfuzz's processor=default_process.
func (s Scorer) Score(s1, s2 string, cutoff float64) float64 {
	if !s.Valid() {
		return 0
	}
	q, c := preparePair(s1, s2)
	var pc pair
	cs := makeShape(c)
	pc.reset(q, c, &cs)
	var sc scratch
	return sc.score(s, &pc, cutoff, noPrune)
}

// preparePair prepares s1 as a query and s2 as a choice, with one token
// dictionary.
func preparePair(s1, s2 string) (*query, *prepared) {
	d := newDictionary()
	q := newQuery([]rune(s1), d.intern)
	c := new(prepared)
	var runes arena[rune]
	var ids arena[int32]
	prepare(c, []rune(s2), &runes, &ids, d.intern, nil)
	q.lens = d.lens
	return q, c
}

// Ratio is fuzz.ratio: the normalized Indel similarity of s1 and s2 times 100,
// or 0 if below cutoff. Ratio("", "") is 100.
func Ratio(s1, s2 string, cutoff float64) float64 { return ScorerRatio.Score(s1, s2, cutoff) }

// PartialRatio is fuzz.partial_ratio: the best Ratio of the shorter string
// against every window of the longer one, with rapidfuzz's window set and its
// symmetric rule for strings of equal length.
func PartialRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerPartialRatio.Score(s1, s2, cutoff)
}

// TokenSortRatio is fuzz.token_sort_ratio: Ratio of the whitespace tokens of
// each string, sorted and joined by single spaces.
func TokenSortRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerTokenSortRatio.Score(s1, s2, cutoff)
}

// TokenSetRatio is fuzz.token_set_ratio: compares the token intersection and
// differences; 100 when one token set contains the other; 0 when either
// string has no tokens.
func TokenSetRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerTokenSetRatio.Score(s1, s2, cutoff)
}

// TokenRatio is fuzz.token_ratio: max(TokenSetRatio, TokenSortRatio).
func TokenRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerTokenRatio.Score(s1, s2, cutoff)
}

// PartialTokenSortRatio is fuzz.partial_token_sort_ratio: PartialRatio of the
// sorted token strings.
func PartialTokenSortRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerPartialTokenSortRatio.Score(s1, s2, cutoff)
}

// PartialTokenSetRatio is fuzz.partial_token_set_ratio: 100 if the strings
// share a token, otherwise PartialRatio of their distinct sorted tokens.
func PartialTokenSetRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerPartialTokenSetRatio.Score(s1, s2, cutoff)
}

// PartialTokenRatio is fuzz.partial_token_ratio:
// max(PartialTokenSetRatio, PartialTokenSortRatio).
func PartialTokenRatio(s1, s2 string, cutoff float64) float64 {
	return ScorerPartialTokenRatio.Score(s1, s2, cutoff)
}

// WRatio is fuzz.WRatio, the weighted combination of Ratio, TokenRatio,
// PartialRatio and PartialTokenRatio chosen by the length ratio of the
// strings. It is 0 when either string is empty.
func WRatio(s1, s2 string, cutoff float64) float64 { return ScorerWRatio.Score(s1, s2, cutoff) }

// QRatio is fuzz.QRatio: Ratio, except that it is 0 when either string is empty.
func QRatio(s1, s2 string, cutoff float64) float64 { return ScorerQRatio.Score(s1, s2, cutoff) }
