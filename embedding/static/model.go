package static

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

// tableData is the distilled table e2e/meaning/distil.mjs writes (format in
// that script's comment). A string, so that nothing can change it.
//
//go:embed use-lite-256.bin
var tableData string

// loadTable parses tableData once; the table is read-only afterwards and
// shared by every Embedder.
var loadTable = sync.OnceValues(func() (*table, error) { return parseTable(tableData) })

// unknownID is the piece the teacher gives a run of characters its
// vocabulary cannot spell ("�", id 0); the tokenizer does the same.
const unknownID = 0

// reserved is the number of pieces at the start of the vocabulary that no
// text spells (the unknown piece, <s>, </s> and three spare ids).
const reserved = 6

// table is a distilled model: the vocabulary and one int8 row per entry,
// the pieces' ids first, then the words'.
type table struct {
	dim int
	// pieces maps every piece, and every byte prefix of one, to its id
	// (-1 for a prefix that is no piece), reserved ids left out: the
	// tokenizer stops reading a text at the first byte no piece continues.
	pieces map[string]int32
	// words maps each whole word of the table (ASCII letters, as counted,
	// mostly lower case) to its id.
	words  map[string]int32
	score  []float32 // per piece id: unigram log-probability
	factor []float32 // per id: the row's scale × the entry's SIF weight
	rows   []int8    // one row of dim per id
	// unkScore is the log-probability of one character no piece spells:
	// SentencePiece's rule, the lowest piece's score less 10.
	unkScore float32
}

// entry is one vocabulary entry of the table's file.
type entry struct {
	text           string
	logProb, scale float32
}

// parseTable reads the distilled table.
func parseTable(data string) (*table, error) {
	const magic = "NSTATIC2"
	if len(data) < 20 || data[:8] != magic {
		return nil, fmt.Errorf("static model: not a %s table", magic)
	}
	u32 := func(at int) int { return int(binary.LittleEndian.Uint32([]byte(data[at : at+4]))) }
	pieces, words, dim := u32(8), u32(12), u32(16)
	if pieces <= reserved || dim != Dimension {
		return nil, fmt.Errorf("static model: %d pieces of %d dimensions, want more than %d of %d", pieces, dim, reserved, Dimension)
	}
	n := pieces + words
	t := &table{
		dim:    dim,
		pieces: make(map[string]int32, 2*pieces),
		words:  make(map[string]int32, words),
		score:  make([]float32, pieces),
		factor: make([]float32, n),
	}
	at := 20
	lowest := float32(0)
	for id := range n {
		e, next, err := readEntry(data, at)
		if err != nil {
			return nil, fmt.Errorf("static model: entry %d: %w", id, err)
		}
		at = next
		t.factor[id] = e.scale * sifWeight(e.logProb)
		switch {
		case id >= pieces:
			t.words[e.text] = int32(id)
		case id >= reserved:
			t.score[id] = e.logProb
			t.addPiece(e.text, int32(id))
			lowest = min(lowest, e.logProb)
		}
	}
	if len(data)-at != n*dim {
		return nil, fmt.Errorf("static model: %d bytes of rows, want %d", len(data)-at, n*dim)
	}
	t.rows = make([]int8, n*dim)
	for i := range t.rows {
		t.rows[i] = int8(data[at+i])
	}
	t.unkScore = lowest - 10
	return t, nil
}

// readEntry reads the entry at data[at:] and returns where the next one
// starts.
func readEntry(data string, at int) (entry, int, error) {
	if at >= len(data) {
		return entry{}, 0, fmt.Errorf("cut short")
	}
	size := int(data[at])
	if size == 0 || at+1+size+8 > len(data) {
		return entry{}, 0, fmt.Errorf("empty or cut short")
	}
	e := entry{text: data[at+1 : at+1+size]}
	at += 1 + size
	e.logProb = math.Float32frombits(binary.LittleEndian.Uint32([]byte(data[at : at+4])))
	e.scale = math.Float32frombits(binary.LittleEndian.Uint32([]byte(data[at+4 : at+8])))
	return e, at + 8, nil
}

// addPiece records piece id and marks its byte prefixes.
func (t *table) addPiece(piece string, id int32) {
	for end := 1; end < len(piece); end++ {
		if _, ok := t.pieces[piece[:end]]; !ok {
			t.pieces[piece[:end]] = -1
		}
	}
	t.pieces[piece] = id
}

// sifWeight is a piece's weight in the mean: SIF's a/(a+p), p the piece's
// unigram probability, so that frequent pieces ("▁the", ".") count for
// little and rare ones for almost 1.
func sifWeight(logProb float32) float32 {
	p := math.Exp(float64(logProb))
	return float32(SIF / (SIF + p))
}
