package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

var refFile = flag.String("tokenizer.ref", "", "JSON lines of {text, ids} from e2e/node/tokenizer-reference.mjs to compare against (default testdata/minilm-reference.jsonl.gz)")

func loadMiniLM(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := Load("testdata/minilm-tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestReference checks the ids of every string in the reference file, made
// by @huggingface/transformers on the same tokenizer.json.
func TestReference(t *testing.T) {
	tk := loadMiniLM(t)
	path := *refFile
	if path == "" {
		path = "testdata/minilm-reference.jsonl.gz"
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n, bad := 0, 0
	for sc.Scan() {
		var rec struct {
			Text string  `json:"text"`
			IDs  []int32 `json:"ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		n++
		got := tk.Encode(rec.Text)
		if !slices.Equal(got, rec.IDs) {
			bad++
			if bad <= 10 {
				t.Errorf("%q:\n got %v\nwant %v\ntokens %q", rec.Text, got, rec.IDs, tk.Tokens(rec.Text))
			}
		}
		// Truncation keeps [CLS] and [SEP], as sentence-transformers does.
		if len(rec.IDs) > 16 {
			want := append(slices.Clone(rec.IDs[:15]), rec.IDs[len(rec.IDs)-1])
			if got := tk.EncodeMax(rec.Text, 16); !slices.Equal(got, want) {
				t.Errorf("%q truncated to 16:\n got %v\nwant %v", rec.Text, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d strings differ", bad, n)
	}
	if n < 2000 {
		t.Errorf("only %d reference strings", n)
	}
	t.Logf("%d strings, %d differ", n, bad)
}
