package concepts

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"sync"
)

// englishWordsGz is a list of English words (englishwords.LICENSE says
// where it comes from): two names that are both words of it are two words,
// not a word and its misspelling ("desert" / "dessert", "genus" /
// "genius").
//
//go:embed englishwords.txt.gz
var englishWordsGz []byte

// wordList is a sorted list of words, each ended by '\n', with the offset
// of every word.
type wordList struct {
	data []byte
	at   []uint32
}

// englishWords decompresses the list once, when a typo is first judged
// (about 2.4 MB of words and 1.1 MB of offsets); the list never changes.
var englishWords = sync.OnceValue(func() *wordList {
	l := &wordList{}
	r, err := gzip.NewReader(bytes.NewReader(englishWordsGz))
	if err != nil {
		return l // the embedded file is fixed: a test reads it
	}
	if l.data, err = io.ReadAll(r); err != nil {
		return &wordList{}
	}
	for i := 0; i < len(l.data); {
		l.at = append(l.at, uint32(i))
		j := bytes.IndexByte(l.data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return l
})

// word returns the i-th word.
func (l *wordList) word(i int) []byte {
	b := l.data[l.at[i]:]
	if j := bytes.IndexByte(b, '\n'); j >= 0 {
		b = b[:j]
	}
	return b
}

// has reports whether w is in the list.
func (l *wordList) has(w string) bool {
	i := sort.Search(len(l.at), func(i int) bool { return string(l.word(i)) >= w })
	return i < len(l.at) && string(l.word(i)) == w
}

// twoWords reports whether x and y are different words of the English
// list, so that one is no typo of the other.
func twoWords(x, y string) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	if x == y || y == x+"s" || y == x+"es" {
		return false // a plural the folding keeps ("heuristics")
	}
	l := englishWords()
	return l.has(x) && l.has(y)
}

// twoCompounds reports whether x and y are compounds of two English words
// with the first in common and different second ones ("firestone" /
// "firestore": fire and stone, fire and store), so that one is no typo
// of the other, as twoWords has it for whole words.
func twoCompounds(x, y string) bool {
	l := englishWords()
	for k := 4; k <= min(len(x), len(y))-4; k++ {
		if x[:k] != y[:k] {
			return false
		}
		if x[k:] != y[k:] && l.has(x[:k]) && l.has(x[k:]) && l.has(y[k:]) {
			return true
		}
	}
	return false
}
