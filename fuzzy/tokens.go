package fuzzy

import (
	"slices"
	"unicode/utf8"
)

// isSep reports whether c separates tokens. The C0 separators and U+0020 always
// do; the other Unicode spaces only in a string that holds a code point above
// U+00FF ("wide"), as in RapidFuzz, where a string of code points <= U+00FF is
// handled as bytes and its is_space leaves out U+0085 and U+00A0.
func isSep(c rune, wide bool) bool {
	if c >= 0x09 && c <= 0x0D || c >= 0x1C && c <= 0x20 {
		return true
	}
	if !wide {
		return false
	}
	switch c {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// splitTokens splits r on separators, drops empty tokens and sorts the rest by
// code point (a proper prefix first), appending them to toks[:0]. The
// tokens alias r.
func splitTokens(toks [][]rune, r []rune) [][]rune {
	wide := false
	for _, c := range r {
		if c > 0xFF {
			wide = true
			break
		}
	}
	toks = toks[:0]
	start := -1
	for i, c := range r {
		if isSep(c, wide) {
			if start >= 0 {
				toks = append(toks, r[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		toks = append(toks, r[start:])
	}
	slices.SortFunc(toks, slices.Compare)
	return toks
}

// joinTokens appends the tokens to dst separated by single U+0020.
func joinTokens(dst []rune, toks [][]rune) []rune {
	for i, t := range toks {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, t...)
	}
	return dst
}

// dictionary interns tokens: equal tokens get equal ids.
type dictionary struct {
	ids  map[string]int32
	lens []int32 // length in code points of each token
	key  []byte  // intern's scratch: the token in UTF-8
}

func newDictionary() *dictionary {
	return &dictionary{ids: make(map[string]int32)}
}

// intern returns the id of tok, adding it if needed.
func (d *dictionary) intern(tok []rune) int32 {
	// Encoded into a reused buffer, the look-up allocates nothing (a
	// string([]rune) key would allocate for every token: a tenth of the
	// choices' build at a million names).
	d.key = d.key[:0]
	for _, r := range tok {
		d.key = utf8.AppendRune(d.key, r)
	}
	if id, ok := d.ids[string(d.key)]; ok {
		return id
	}
	return d.internKey(string(d.key), int32(len(tok)))
}

// internKey is intern for a token given as its string and its length in
// code points.
func (d *dictionary) internKey(key string, n int32) int32 {
	if id, ok := d.ids[key]; ok {
		return id
	}
	id := int32(len(d.lens))
	d.ids[key] = id
	d.lens = append(d.lens, n)
	return id
}

// lookup returns the id of tok, or -1 if it was never interned.
func (d *dictionary) lookup(tok []rune) int32 {
	if id, ok := d.ids[string(tok)]; ok {
		return id
	}
	return -1
}

// prepared is a processed string with the forms the scorers need. Its
// shape (the bounds' histogram and lengths) is kept apart: see shape.
type prepared struct {
	r      []rune  // the processed string
	sorted []rune  // sorted tokens joined by single spaces, duplicates kept
	set    []rune  // distinct sorted tokens joined; equals sorted when !dup
	toks   []int32 // ids of the distinct tokens, in sorted order
	tokLen int     // total length of the distinct tokens (without separators)
	dup    bool    // a token occurs more than once
	same   bool    // sorted equals r: the tokens are sorted and singly spaced
}

// arena hands out slices of large shared chunks, so that many small
// strings cost few allocations; a chunk is never reallocated, so slices
// handed out stay valid and nothing is copied.
type arena[T any] struct {
	buf   []T
	chunk int
}

// take returns a slice of length n from the arena.
func (a *arena[T]) take(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]T, 0, max(n, a.chunk))
	}
	start := len(a.buf)
	a.buf = a.buf[:start+n]
	return a.buf[start : start+n : start+n]
}

// giveBack returns the last n elements taken, which the caller no longer uses.
func (a *arena[T]) giveBack(n int) {
	a.buf = a.buf[:len(a.buf)-n]
}

// joinedLen returns the length of toks joined by single spaces.
func joinedLen(toks [][]rune) int {
	n := 0
	for _, t := range toks {
		n += len(t)
	}
	return n + max(len(toks)-1, 0)
}

// prepare fills p from the processed runes r, storing the derived strings and
// the token ids in the arenas; intern maps a token to its id. It returns the
// distinct tokens in sorted order (aliasing r), in buf (nil: a new slice),
// which it keeps for the next call.
func prepare(p *prepared, r []rune, runes *arena[rune], ids *arena[int32], intern func([]rune) int32, buf *[][]rune) [][]rune {
	if buf == nil {
		buf = new([][]rune)
	}
	toks := splitTokens(*buf, r)
	*buf = toks
	p.r = r
	p.sorted = joinTokens(runes.take(joinedLen(toks))[:0], toks)
	if p.same = slices.Equal(r, p.sorted); p.same {
		runes.giveBack(len(p.sorted))
		p.sorted = r
	}
	distinct := slices.CompactFunc(toks, slices.Equal) // sorted is joined: toks may change
	p.dup = len(distinct) < len(toks)
	if p.dup {
		p.set = joinTokens(runes.take(joinedLen(distinct))[:0], distinct)
	} else {
		p.set = p.sorted
	}
	p.toks = ids.take(len(distinct))
	for i, t := range distinct {
		p.toks[i] = intern(t)
		p.tokLen += len(t)
	}
	return distinct
}
