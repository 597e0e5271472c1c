package tools_test

import (
	"testing"

	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/tools"
)

// TestBuildContextCommunity: build_context tells the concept's community
// in the concept graph and its siblings, as analyze_graph communities does.
func TestBuildContextCommunity(t *testing.T) {
	e := newEnv(t)
	for _, n := range []notes.WriteInput{
		{Title: "One", Content: "[[Go]] [[Rust]] [[Zig]]"},
		{Title: "Two", Content: "[[Go]] [[Rust]]"},
		{Title: "Three", Content: "[[Paris]] [[Rome]]"},
		{Title: "Four", Content: "[[Paris]] [[Rome]] [[Madrid]]"},
	} {
		mustRun[*notes.WriteResult](t, e, "write_note", n)
	}
	decay := true
	res := mustRun[*tools.ContextOutput](t, e, "build_context", tools.ContextInput{Input: recall.Input{Concept: "Go", Depth: 2, MaxEntities: 20, Decay: &decay}})
	cc := res.Community
	if cc == nil || cc.Size != 3 || len(cc.Siblings) != 2 {
		t.Fatalf("community = %+v (warnings %q)", cc, res.Warnings)
	}
	for _, s := range cc.Siblings {
		if s.Label != "Rust" && s.Label != "Zig" {
			t.Errorf("sibling %q is not in Go's cluster", s.Label)
		}
	}
}
