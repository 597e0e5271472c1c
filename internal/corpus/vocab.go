package corpus

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/ascii"
)

// zipfExponent shapes the concept popularity curve: the concept of rank r
// (1-based) is drawn with weight 1/r^zipfExponent.
const zipfExponent = 1.0

// vocabulary is the generated set of concept labels, most popular first.
type vocabulary struct {
	labels []string
	keys   map[string]bool // approxKey of every label
	cdf    []float64       // cumulative Zipf weights, cdf[len-1] is the total
}

// approxKey normalizes s the way the vault's key does for the strings this
// package produces: they are already NFC and contain no letters whose case
// folding differs from lowercasing, so NFKC and full case folding reduce to
// strings.ToLower. Runs of whitespace, '_' and '-' become one space.
func approxKey(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || r == '_' || r == '-'
	})
	return strings.Join(f, " ")
}

// newVocabulary draws n distinct concept labels.
func newVocabulary(seed uint64, n int) (*vocabulary, error) {
	r := newRNG(seed, streamVocab, 0)
	v := &vocabulary{keys: make(map[string]bool, n)}
	cjk := slices.Clone(cjkLabels)
	accented := slices.Clone(accentedLabels)
	for attempts := 0; len(v.labels) < n; attempts++ {
		if attempts > 100*n+1000 {
			return nil, fmt.Errorf("vocabulary: cannot draw %d distinct labels", n)
		}
		var label string
		switch u := r.float(); {
		case u < 0.02 && len(cjk) > 0:
			i := r.Intn(len(cjk))
			label = cjk[i]
			cjk = slices.Delete(cjk, i, i+1)
		case u < 0.05 && len(accented) > 0:
			i := r.Intn(len(accented))
			label = accented[i]
			accented = slices.Delete(accented, i, i+1)
		case u < 0.09:
			label = r.pick(acronyms)
		default:
			label = composedLabel(r)
		}
		k := approxKey(label)
		if v.keys[k] {
			continue
		}
		v.keys[k] = true
		v.labels = append(v.labels, label)
	}
	v.cdf = make([]float64, n)
	var total float64
	for i := range n {
		total += 1 / math.Pow(float64(i+1), zipfExponent)
		v.cdf[i] = total
	}
	return v, nil
}

// composedLabel returns a 1–3 word label from techWords and pseudo-words,
// in lower case, Title Case or Sentence case.
func composedLabel(r *rng) string {
	n := 1 + r.weighted([]float64{0.25, 0.5, 0.25})
	words := make([]string, 0, n)
	for len(words) < n {
		w := r.pick(techWords)
		if r.chance(0.2) {
			w = pseudoWord(r)
		}
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	switch r.weighted([]float64{0.45, 0.45, 0.10}) {
	case 1:
		for i := range words {
			words[i] = capitalize(words[i])
		}
	case 2:
		words[0] = capitalize(words[0])
	}
	return strings.Join(words, " ")
}

// pseudoWord returns a pronounceable made-up word of 2–3 syllables.
func pseudoWord(r *rng) string {
	var b strings.Builder
	for range r.between(2, 3) {
		b.WriteString(r.pick(onsets))
		b.WriteString(r.pick(vowels))
		b.WriteString(r.pick(codas))
	}
	return b.String()
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	c, size := utf8.DecodeRuneInString(s)
	if c == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(c)) + s[size:]
}

// sample returns the index of a label drawn from the Zipf distribution.
func (v *vocabulary) sample(r *rng) int {
	u := r.float() * v.cdf[len(v.cdf)-1]
	i, _ := slices.BinarySearch(v.cdf, u)
	return min(i, len(v.cdf)-1)
}

// nfd holds the canonical decompositions of the precomposed letters used in
// accentedLabels, so that a variant can be written in NFD (as macOS file
// systems and some editors do) without importing a Unicode library.
var nfd = map[rune]string{
	'à': "a\u0300", 'á': "a\u0301", 'â': "a\u0302", 'ã': "a\u0303", 'ä': "a\u0308", 'å': "a\u030a",
	'ç': "c\u0327", 'è': "e\u0300", 'é': "e\u0301", 'ê': "e\u0302", 'ë': "e\u0308", 'ï': "i\u0308",
	'ñ': "n\u0303", 'ò': "o\u0300", 'ó': "o\u0301", 'ô': "o\u0302", 'ö': "o\u0308", 'ő': "o\u030b",
	'ř': "r\u030c", 'ù': "u\u0300", 'ú': "u\u0301", 'û': "u\u0302", 'ü': "u\u0308", 'Å': "A\u030a",
	'É': "E\u0301", 'Ö': "O\u0308", 'Ü': "U\u0308",
}

// variant returns a different spelling of label that has the same concept
// key (NFKC, case fold, runs of whitespace/'_'/'-' → one space, trim), or
// label itself when it has none (CJK labels). The spellings are the ones
// people type: another letter case, '_' or '-' instead of spaces, doubled
// spaces, decomposed accents (NFD) and full-width ASCII (an IME habit).
func variant(r *rng, label string) string {
	multi := strings.Contains(label, " ")
	plain := ascii.Is(label)
	decomposable := strings.ContainsFunc(label, func(c rune) bool { _, ok := nfd[c]; return ok })
	cased := strings.ToLower(label) != strings.ToUpper(label)
	for range 8 {
		s := label
		if cased && (!multi || r.chance(0.6)) {
			switch r.Intn(3) {
			case 0:
				s = strings.ToLower(s)
			case 1:
				s = strings.ToUpper(s)
			default:
				s = titleCase(s)
			}
		}
		if multi && r.chance(0.7) {
			s = strings.ReplaceAll(s, " ", r.pick([]string{"_", "-", "  ", "_"}))
		}
		switch {
		case decomposable && r.chance(0.3):
			s = decompose(s)
		case plain && r.chance(0.04):
			s = fullWidth(s)
		}
		if s != label {
			return s
		}
	}
	return label
}

// titleCase capitalizes every space-separated word of s.
func titleCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		words[i] = capitalize(w)
	}
	return strings.Join(words, " ")
}

// decompose rewrites the letters of s that appear in nfd in decomposed form.
func decompose(s string) string {
	var b strings.Builder
	for _, c := range s {
		if d, ok := nfd[c]; ok {
			b.WriteString(d)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// fullWidth maps printable ASCII to the Unicode full-width forms, which NFKC
// maps back; a space becomes the ideographic space U+3000.
func fullWidth(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == ' ':
			b.WriteRune('\u3000')
		case c > ' ' && c <= '~':
			b.WriteRune(c + 0xFEE0)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
