package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/search"
)

// FuzzQuery proves that any query text is a valid search: the only error is
// invalid_argument for a NUL byte.
//
//	go test ./search -run '^$' -fuzz FuzzQuery -fuzztime 60s
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"", "gzip", `"unbalanced`, "a AND b OR NOT c", "NEAR(a b, 3)", "col:umn", "-x ^y *", "(((", "🎉",
		"東京都", "[[Concept]]", "[[", "x\x00y", "\xff\xfe", `"" "''"`, "a* b*", "{title}: x", strings.Repeat("word ", 200)} {
		f.Add(s)
	}
	e := newEnv(f)
	e.note("", "Compression", "", nil, "Gzip compression (C++) and NEAR operators: AND OR NOT. 東京都の[[Concept]].")
	e.note("notes", "Other", "", []string{"x"}, "Quotes \"here\" and 'there'; emoji 🎉; stars * and carets ^.")
	e.embed()
	svc := e.svc
	f.Fuzz(func(t *testing.T, q string) {
		for _, mode := range []string{"fulltext", "hybrid"} {
			res, err := svc.Search(context.Background(), search.Input{Query: q, Mode: mode})
			if strings.IndexByte(q, 0) >= 0 {
				if noema.ErrorCode(err) != noema.EINVALID {
					t.Fatalf("%q: err %v, want invalid_argument", q, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %q: %v", mode, q, err)
			}
			for _, h := range res.Hits {
				if h.Snippet == "" || h.Score < 0 || h.Score > 1 {
					t.Fatalf("%q: hit %+v", q, h)
				}
			}
		}
	})
}
