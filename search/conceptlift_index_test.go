package search

import (
	"fmt"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/noema-mem/noema/internal/splitmix"
)

// mapNames is the one-typo index conceptNames replaced (issue 21): maps
// of every key and every deletion of a key. The tests hold the compact
// index to its answers.
type mapNames struct {
	exact   map[string]string
	keys    []string
	ids     []string
	deleted map[string][]int32
}

func newMapNames(keys, ids []string) *mapNames {
	m := &mapNames{exact: map[string]string{}, deleted: map[string][]int32{}}
	for j, key := range keys {
		m.exact[key] = ids[j]
		if utf8.RuneCountInString(key) < minFuzzyRunes {
			continue
		}
		i := int32(len(m.keys))
		m.keys, m.ids = append(m.keys, key), append(m.ids, ids[j])
		out := []string{key}
		for k, r := range key {
			out = append(out, key[:k]+key[k+utf8.RuneLen(r):])
		}
		for _, d := range out {
			m.deleted[d] = append(m.deleted[d], i)
		}
	}
	return m
}

func (m *mapNames) lookup(key string) (string, float64) {
	if id, ok := m.exact[key]; ok {
		return id, 1
	}
	if utf8.RuneCountInString(key) < minFuzzyRunes {
		return "", 0
	}
	found := -1
	out := []string{key}
	for k, r := range key {
		out = append(out, key[:k]+key[k+utf8.RuneLen(r):])
	}
	for _, d := range out {
		for _, i := range m.deleted[d] {
			if (found < 0 || i < int32(found)) && oneEdit(key, m.keys[i]) {
				found = int(i)
			}
		}
	}
	if found < 0 {
		return "", 0
	}
	return m.ids[found], fuzzyQuality
}

// typoKeys draws n distinct keys of one to four words over a small
// alphabet (many keys one edit apart), some with non-ASCII runes.
func typoKeys(r *splitmix.Source, n int) []string {
	letters := []rune("abcdeéü日")
	seen := map[string]bool{}
	var keys []string
	for len(keys) < n {
		var b []rune
		for w := range 1 + r.Intn(4) {
			if w > 0 {
				b = append(b, ' ')
			}
			for range 2 + r.Intn(5) {
				b = append(b, letters[r.Intn(len(letters))])
			}
		}
		if k := string(b); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// variants returns key, and strings one and two edits from it.
func variants(r *splitmix.Source, key string) []string {
	rs := []rune(key)
	out := []string{key}
	edit := func(rs []rune) []rune {
		rs = append([]rune(nil), rs...)
		i := int(r.Intn(len(rs)))
		switch r.Intn(4) {
		case 0:
			return append(rs[:i], rs[i+1:]...)
		case 1:
			return append(rs[:i], append([]rune{'b'}, rs[i:]...)...)
		case 2:
			rs[i] = 'c'
		default:
			if i+1 < len(rs) {
				rs[i], rs[i+1] = rs[i+1], rs[i]
			}
		}
		return rs
	}
	one := edit(rs)
	return append(out, string(one), string(edit(one)))
}

// TestConceptNamesAgreeWithMaps: the compact index names the concept the
// maps it replaced name, for exact keys, keys one edit or swap away
// (including ties between several keys, where registry order decides),
// and keys two edits away, over keys drawn to collide.
func TestConceptNamesAgreeWithMaps(t *testing.T) {
	r := splitmix.New(7)
	keys := typoKeys(&r, 5000)
	ids := make([]string, len(keys))
	for i := range ids {
		ids[i] = fmt.Sprintf("c%d", i)
	}
	var c conceptNames
	if err := c.build(func(fn func(key, id string)) error {
		for i, k := range keys {
			fn(k, ids[i])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m := newMapNames(keys, ids)
	fuzzy := 0
	for i, k := range keys {
		for _, q := range variants(&r, k) {
			gotID, gotQ := c.lookup(q, true)
			wantID, wantQ := m.lookup(q)
			if gotID != wantID || gotQ != wantQ {
				t.Fatalf("key %d %q, query %q: %q %v, want %q %v", i, k, q, gotID, gotQ, wantID, wantQ)
			}
			if wantQ == fuzzyQuality {
				fuzzy++
			}
		}
	}
	if fuzzy < 1000 {
		t.Fatalf("only %d one-typo answers: the test shows little", fuzzy)
	}
}

// TestConceptNamesMemory: the index holds tens of bytes a key, not the
// 2.5 KB of a map of every deletion (issue 21: 2.5 GB at a million
// concepts).
func TestConceptNamesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of 100,000 keys")
	}
	r := splitmix.New(3)
	const n = 100_000
	keys := make([]string, n)
	for i := range keys {
		b := make([]byte, 0, 24)
		for w := range 3 {
			if w > 0 {
				b = append(b, ' ')
			}
			for range 4 + r.Intn(4) {
				b = append(b, byte('a'+r.Intn(26)))
			}
		}
		keys[i] = string(b)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	var c conceptNames
	if err := c.build(func(fn func(key, id string)) error {
		for i, k := range keys {
			fn(k, fmt.Sprintf("c_%014d", i))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	per := float64(heap()-before) / n
	runtime.KeepAlive(&c)
	// 21 runes: 22 deletion entries of 8 bytes, 12 bytes of exact hash,
	// the key and id bytes and their offsets.
	if per > 260 {
		t.Errorf("%.0f bytes a key, want at most 260", per)
	}
	t.Logf("%.0f bytes a key", per)
}
