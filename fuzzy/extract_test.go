package fuzzy

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// extractVector is one line of testdata/extract_vectors.jsonl.
type extractVector struct {
	Fn          string               `json:"fn"`
	Query       string               `json:"query"`
	Choices     []string             `json:"choices"`
	Scorer      string               `json:"scorer"`
	Processor   string               `json:"processor"`
	Limit       *int                 `json:"limit"`
	ScoreCutoff *float64             `json:"score_cutoff"`
	Source      string               `json:"source"`
	Expected    [][3]json.RawMessage `json:"expected"`
}

func readExtractVectors(t *testing.T) []extractVector {
	t.Helper()
	f, err := os.Open("testdata/extract_vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []extractVector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v extractVector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExtractVectors(t *testing.T) {
	vs := readExtractVectors(t)
	if len(vs) != 53 {
		t.Fatalf("%d extract vectors, want 53", len(vs))
	}
	for i, v := range vs {
		scorer, err := ParseScorer(v.Scorer)
		if err != nil {
			t.Fatalf("vector %d: %v", i+1, err)
		}
		proc, err := ParseProcessor(v.Processor)
		if err != nil {
			t.Fatalf("vector %d: %v", i+1, err)
		}
		cutoff := 0.0
		if v.ScoreCutoff != nil {
			cutoff = *v.ScoreCutoff
		}
		type res struct {
			choice string
			score  float64
			index  int
		}
		var want []res
		for _, e := range v.Expected {
			var r res
			if json.Unmarshal(e[0], &r.choice) != nil || json.Unmarshal(e[1], &r.score) != nil || json.Unmarshal(e[2], &r.index) != nil {
				t.Fatalf("vector %d: bad expected %s", i+1, e)
			}
			want = append(want, r)
		}
		var got []Match
		switch v.Fn {
		case "extractOne":
			m, ok, err := ExtractOne(v.Query, v.Choices, scorer, proc, cutoff)
			if err != nil {
				t.Fatalf("vector %d: %v", i+1, err)
			}
			if ok {
				got = []Match{m}
			}
		case "extract":
			limit := -1
			if v.Limit != nil {
				limit = *v.Limit
			}
			got, err = Extract(v.Query, v.Choices, scorer, proc, limit, cutoff)
			if err != nil {
				t.Fatalf("vector %d: %v", i+1, err)
			}
		default:
			t.Fatalf("vector %d: fn %q", i+1, v.Fn)
		}
		if len(got) != len(want) {
			t.Errorf("vector %d (%s, %s): got %d results %v, want %d %v", i+1, v.Fn, v.Source, len(got), got, len(want), want)
			continue
		}
		for j := range got {
			w := want[j]
			if got[j].Index != w.index || math.Abs(got[j].Score-w.score) > 1e-9 || v.Choices[got[j].Index] != w.choice {
				t.Errorf("vector %d (%s, %s) result %d: got %+v, want %+v", i+1, v.Fn, v.Source, j, got[j], w)
			}
		}
	}
}
