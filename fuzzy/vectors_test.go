package fuzzy

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// unescape decodes the JSON-style escapes of the vector files.
func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		t.Fatalf("unescape %q: %v", s, err)
	}
	return u
}

// readTSV returns the data rows of a vector file: comment lines (#) and the
// header row are dropped. Each row keeps its 1-based line number first.
func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	line, header := 0, false
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		if !header {
			header = true
			continue
		}
		rows = append(rows, append([]string{strconv.Itoa(line)}, strings.Split(text, "\t")...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestVectors(t *testing.T) {
	rows := readTSV(t, "testdata/vectors.tsv")
	if len(rows) < 400 {
		t.Fatalf("only %d rows in vectors.tsv", len(rows))
	}
	for _, row := range rows {
		// line, scorer, s1, s2, processor, expected, cutoff, source, note
		line, name := row[0], row[1]
		s1, s2 := unescape(t, row[2]), unescape(t, row[3])
		sc, err := ParseScorer(name)
		if err != nil {
			t.Errorf("line %s: %v", line, err)
			continue
		}
		want, err := strconv.ParseFloat(row[5], 64)
		if err != nil {
			t.Fatalf("line %s: expected %q: %v", line, row[5], err)
		}
		cutoff := 0.0
		if row[6] != "" {
			if cutoff, err = strconv.ParseFloat(row[6], 64); err != nil {
				t.Fatalf("line %s: cutoff %q: %v", line, row[6], err)
			}
		}
		switch row[4] {
		case "default":
			s1, s2 = DefaultProcess(s1), DefaultProcess(s2)
		case "none":
		default:
			t.Fatalf("line %s: processor %q", line, row[4])
		}
		got := sc.Score(s1, s2, cutoff)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("line %s: %s(%q, %q, cutoff=%v) = %v, want %v (%s)", line, name, row[2], row[3], cutoff, got, want, row[7])
		} else if got != want {
			t.Logf("line %s: %s(%q, %q) = %v, want %v: equal within 1e-9 but not bit for bit", line, name, row[2], row[3], got, want)
		}
	}
}

func TestDefaultProcessVectors(t *testing.T) {
	rows := readTSV(t, "testdata/default_process.tsv")
	if len(rows) != 30 {
		t.Fatalf("%d rows in default_process.tsv, want 30", len(rows))
	}
	for _, row := range rows {
		in, want := unescape(t, row[1]), unescape(t, row[2])
		if got := DefaultProcess(in); got != want {
			t.Errorf("line %s: DefaultProcess(%q) = %q, want %q", row[0], in, got, want)
		}
	}
}
