package noematest

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

// QueryClasses returns the three kinds of query issue 20 times against
// plain FTS5, drawn from the vault's own text: two common words (each in
// a large share of the notes), one or two rare words (in a handful), and a
// pasted paragraph (400–900 characters of a note's body). Word counts are
// the index's (SearchTermDocs). The search and MCP benchmarks time
// search_notes against plain FTS5 BM25 on them (issue 20 part 5).
func QueryClasses(b testing.TB, idx noema.TextIndex) map[string][]string {
	b.Helper()
	ctx := context.Background()
	ids := make([]int64, 300)
	for i := range ids {
		ids[i] = int64(1 + i*7)
	}
	bodies, err := idx.SearchBodies(ctx, ids)
	if err != nil {
		b.Fatal(err)
	}
	df := map[string]int{}
	var words []string
	var paras []string
	for _, id := range ids {
		body, ok := bodies[id]
		if !ok {
			continue
		}
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(body), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			if len(w) >= 4 && !seen[w] {
				seen[w] = true
				if df[w] == 0 {
					words = append(words, w)
				}
				df[w]++
			}
		}
		for _, para := range strings.Split(body, "\n\n") {
			if len(para) >= 400 && len(paras) < 20 && !strings.ContainsAny(para, "`|[") {
				paras = append(paras, para[:min(len(para), 900)])
			}
		}
	}
	// A larger vault's first notes may hold fewer long paragraphs: read on
	// (the words above stay those of the first 300 notes).
	for next := int64(1 + len(ids)*7); len(paras) < 5 && next < int64(1+len(ids)*7*10); {
		more := make([]int64, 300)
		for i := range more {
			more[i] = next
			next += 7
		}
		mb, err := idx.SearchBodies(ctx, more)
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range more {
			for _, para := range strings.Split(mb[id], "\n\n") {
				if len(para) >= 400 && len(paras) < 20 && !strings.ContainsAny(para, "`|[") {
					paras = append(paras, para[:min(len(para), 900)])
				}
			}
		}
	}
	sort.SliceStable(words, func(i, j int) bool { return df[words[i]] > df[words[j]] })
	exprs := make([]string, len(words))
	for i, w := range words {
		exprs[i] = `"` + w + `"`
	}
	docs, total, err := idx.SearchTermDocs(ctx, exprs)
	if err != nil {
		b.Fatal(err)
	}
	var common, rare []string
	for i, w := range words {
		switch {
		case docs[i]*5 >= total && len(common) < 12: // in a fifth of the notes or more
			common = append(common, w)
		case docs[i] > 0 && docs[i]*1000 <= total*2 && len(rare) < 40: // in 0.2 % or fewer
			rare = append(rare, w)
		}
	}
	if len(common) < 4 || len(rare) < 10 || len(paras) < 5 {
		b.Fatalf("query classes: %d common words, %d rare, %d paragraphs", len(common), len(rare), len(paras))
	}
	out := map[string][]string{"pasted-paragraph": paras}
	for i := range 20 {
		out["common-words"] = append(out["common-words"], common[i%len(common)]+" "+common[(i*5+1)%len(common)])
		r := rare[i%len(rare)]
		if i%2 == 1 {
			r += " " + rare[(i+7)%len(rare)]
		}
		out["rare-words"] = append(out["rare-words"], r)
	}
	return out
}

// ReportVsFTS5 reports the medians of lat (search_notes) and flat (plain
// FTS5 BM25 of the same queries) as p50-ms and fts5-p50-ms, and their
// ratio: the figures issue 20 part 5 reads. It sorts both slices.
func ReportVsFTS5(b *testing.B, lat, flat []time.Duration) {
	b.Helper()
	p50 := func(l []time.Duration) float64 {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		return float64(l[len(l)/2].Microseconds()) / 1000
	}
	s, f := p50(lat), p50(flat)
	b.ReportMetric(s, "p50-ms")
	b.ReportMetric(f, "fts5-p50-ms")
	if f > 0 {
		b.ReportMetric(s/f, "ratio")
	}
}
