package tools_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/tools"
)

// TestBuildContextCommunity: build_context tells the concept's community
// in the concept graph and its siblings, as analyze_graph communities does.
func TestBuildContextCommunity(t *testing.T) {
	ctx := context.Background()
	a := noematest.OpenApp(t, t.TempDir(), app.Options{})
	e := &tools.Env{App: a}
	for _, n := range []notes.WriteInput{
		{Title: "One", Content: "[[Go]] [[Rust]] [[Zig]]"},
		{Title: "Two", Content: "[[Go]] [[Rust]]"},
		{Title: "Three", Content: "[[Paris]] [[Rome]]"},
		{Title: "Four", Content: "[[Paris]] [[Rome]] [[Madrid]]"},
	} {
		if _, err := tool(t, "write_note").Run(ctx, e, n); err != nil {
			t.Fatal(err)
		}
	}
	decay := true
	out, err := tool(t, "build_context").Run(ctx, e, recall.Input{Concept: "Go", Depth: 2, MaxEntities: 20, Decay: &decay})
	if err != nil {
		t.Fatal(err)
	}
	res := out.(*recall.Result)
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
