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

// table is a distilled model: the vocabulary and one int8 row per piece.
type table struct {
	dim int
	// pieces maps every piece, and every byte prefix of one, to its id
	// (-1 for a prefix that is no piece), reserved ids left out: the
	// tokenizer stops reading a text at the first byte no piece continues.
	pieces map[string]int32
	score  []float32 // unigram log-probability per id
	factor []float32 // per id: the row's scale × the piece's SIF weight
	rows   []int8    // len(score) × dim
	// unkScore is the log-probability of one character no piece spells:
	// SentencePiece's rule, the lowest piece's score less 10.
	unkScore float32
}

// parseTable reads the distilled table.
func parseTable(data string) (*table, error) {
	const magic = "NSTATIC1"
	if len(data) < 16 || data[:8] != magic {
		return nil, fmt.Errorf("static model: not a %s table", magic)
	}
	n := int(binary.LittleEndian.Uint32([]byte(data[8:12])))
	dim := int(binary.LittleEndian.Uint32([]byte(data[12:16])))
	if n <= reserved || dim != Dimension {
		return nil, fmt.Errorf("static model: %d pieces of %d dimensions, want more than %d of %d", n, dim, reserved, Dimension)
	}
	t := &table{
		dim:    dim,
		pieces: make(map[string]int32, n),
		score:  make([]float32, n),
		factor: make([]float32, n),
	}
	at := 16
	lowest := float32(0)
	for id := range n {
		if at >= len(data) {
			return nil, fmt.Errorf("static model: cut short at piece %d", id)
		}
		size := int(data[at])
		if at+1+size+8 > len(data) {
			return nil, fmt.Errorf("static model: cut short at piece %d", id)
		}
		piece := data[at+1 : at+1+size]
		at += 1 + size
		score := math.Float32frombits(binary.LittleEndian.Uint32([]byte(data[at:])))
		scale := math.Float32frombits(binary.LittleEndian.Uint32([]byte(data[at+4:])))
		at += 8
		t.score[id] = score
		t.factor[id] = scale * sifWeight(score)
		if id < reserved {
			continue
		}
		if size == 0 {
			return nil, fmt.Errorf("static model: piece %d is empty", id)
		}
		for end := 1; end < size; end++ {
			if _, ok := t.pieces[piece[:end]]; !ok {
				t.pieces[piece[:end]] = -1
			}
		}
		t.pieces[piece] = int32(id)
		lowest = min(lowest, score)
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

// sifWeight is a piece's weight in the mean: SIF's a/(a+p), p the piece's
// unigram probability, so that frequent pieces ("▁the", ".") count for
// little and rare ones for almost 1.
func sifWeight(logProb float32) float32 {
	p := math.Exp(float64(logProb))
	return float32(SIF / (SIF + p))
}
