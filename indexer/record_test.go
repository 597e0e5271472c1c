package indexer_test

import (
	"os"
	"testing"

	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

func TestCanonicalJSON(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want string
	}{
		// Non-string keys keep their text (they used to be dropped here,
		// while front matter kept them): one normaliser, vault.JSONValue.
		{map[any]any{1: "a", true: "b"}, `{"1":"a","true":"b"}`},
		{map[string]any{"b": 1, "a": []any{"x", map[any]any{2: nil}}}, `{"a":["x",{"2":null}],"b":1}`},
	} {
		if got := indexer.CanonicalJSON(tt.in); got != tt.want {
			t.Errorf("CanonicalJSON(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// The metadata JSON of ordinary front matter is what indexes already hold.
func TestRecordMetadataJSON(t *testing.T) {
	src := "---\nconcept: X\nmetadata:\n  b: 1\n  a: [x, 2024-03-01, 1.5, true]\n  c: {d: null, e: \"q\"}\n  1: one\n" +
		"relations:\n  - type: t\n    to: Y\n    metadata: {w: 2, k: [a]}\n---\nbody\n"
	info, err := os.Stat(treetest.Write(t, t.TempDir(), "x.md", src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := vault.Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rec := indexer.Record(n, info)
	if got, want := rec.Page.Metadata, `{"1":"one","a":["x","2024-03-01",1.5,true],"b":1,"c":{"d":null,"e":"q"}}`; got != want {
		t.Errorf("page metadata = %s, want %s", got, want)
	}
	if len(rec.Relations) != 1 {
		t.Fatalf("relations = %+v", rec.Relations)
	}
	if got, want := rec.Relations[0].Metadata, `{"k":["a"],"w":2}`; got != want {
		t.Errorf("relation metadata = %s, want %s", got, want)
	}
}
