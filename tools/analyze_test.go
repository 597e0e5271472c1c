package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/tools"
)

// TestAnalyzeGraph runs analyze_graph through its declaration: an empty
// vault answers with a warning; names resolve by label and alias; an
// unknown name is not_found with find_concepts candidates; each op returns
// its shape; a write to the vault is seen by the next call (the cache is
// per graph version).
func TestAnalyzeGraph(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	a := e.App
	analyze := func(in tools.AnalyzeInput) (*graph.AnalyzeResult, error) {
		t.Helper()
		out, err := tool(t, "analyze_graph").Run(ctx, e, in)
		if err != nil {
			return nil, err
		}
		return &out.(*tools.AnalyzeOutput).AnalyzeResult, nil
	}
	must := func(in tools.AnalyzeInput) *graph.AnalyzeResult {
		t.Helper()
		res, err := analyze(in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		return res
	}

	for _, op := range []string{"pagerank", "communities", "predict_links", "centrality"} {
		res := must(tools.AnalyzeInput{Op: op})
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "empty") || res.GraphNodes != 0 {
			t.Errorf("%s on an empty vault: %+v", op, res)
		}
	}

	write := func(title, content string) {
		t.Helper()
		mustRun[*notes.WriteResult](t, e, "write_note", notes.WriteInput{Title: title, Content: content})
	}
	// Two clusters joined by one note: {Go, Rust, Memory Safety} and {Python, NumPy, Pandas}.
	write("One", "[[Go]] [[Rust]] [[Memory Safety]]")
	write("Two", "[[Go]] [[Rust]]")
	write("Three", "[[Rust]] [[Memory Safety]]")
	write("Four", "[[Python]] [[NumPy]] [[Pandas]]")
	write("Five", "[[Python]] [[NumPy]]")
	write("Six", "[[Pandas]] [[NumPy]]")
	write("Bridge", "[[Go]] [[Python]]")
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Memory Safety", AddAliases: []string{"MemSafe"}}); err != nil {
		t.Fatal(err)
	}

	pr := must(tools.AnalyzeInput{Op: "pagerank"})
	if pr.GraphNodes != 6 || len(pr.Nodes) != 6 || *pr.Total != 6 || !*pr.Exact {
		t.Fatalf("pagerank = %+v", pr)
	}
	var sum float64
	for _, n := range pr.Nodes {
		sum += n.Score
	}
	if sum < 0.999999 || sum > 1.000001 {
		t.Errorf("pagerank sums to %v", sum)
	}

	cm := must(tools.AnalyzeInput{Op: "communities", Concept: "memsafe"})
	if len(cm.Communities) != 2 || cm.Communities[0].Size != 3 || *cm.Modularity <= 0.3 {
		t.Errorf("communities = %+v", cm)
	}
	cc := cm.ConceptCommunity
	if cc == nil || cc.Concept.Label != "Memory Safety" || cc.Size != 3 || len(cc.Siblings) != 2 {
		t.Fatalf("concept community = %+v", cc)
	}
	for _, s := range cc.Siblings {
		if s.Label != "Go" && s.Label != "Rust" {
			t.Errorf("sibling %s", s.Label)
		}
	}
	// The same thing through the build_context hook.
	c, err := a.Concepts.Get(ctx, "Memory Safety")
	if err != nil {
		t.Fatal(err)
	}
	hook, err := a.Graph.ConceptCommunity(ctx, c.ID, 1)
	if err != nil || hook.Community != cc.Community || len(hook.Siblings) != 1 || hook.Siblings[0] != cc.Siblings[0] {
		t.Errorf("ConceptCommunity = %+v, %v; want community %d, first sibling %+v", hook, err, cc.Community, cc.Siblings[0])
	}

	ps := must(tools.AnalyzeInput{Op: "paths", From: "Memory Safety", To: "Pandas", MaxDepth: 4, Limit: 5})
	// Memory Safety — Go — Python — Pandas, then the two 4-edge paths (heaviest first).
	if len(ps.Paths) != 3 || ps.Paths[0].Length != 3 || ps.Paths[0].Nodes[1].Label != "Go" || ps.Paths[0].Nodes[2].Label != "Python" || ps.Paths[1].Length != 4 || *ps.HasMore {
		t.Errorf("paths = %+v", ps.Paths)
	}
	if got := must(tools.AnalyzeInput{Op: "paths", From: "Memory Safety", To: "Pandas", MaxDepth: 2}); len(got.Paths) != 0 || *got.HasMore || len(got.Warnings) == 0 {
		t.Errorf("paths depth 2 = %+v", got)
	}

	pl := must(tools.AnalyzeInput{Op: "predict_links", Concept: "Memory Safety"})
	// Memory Safety's only unlinked neighbour-of-neighbour: Python, through Go.
	if len(pl.Links) != 1 || pl.Links[0].B.Label != "Python" || pl.Links[0].CommonTotal != 1 || pl.Links[0].Common[0].Label != "Go" {
		t.Errorf("predict_links = %+v", pl.Links)
	}

	ce := must(tools.AnalyzeInput{Op: "centrality", Limit: 2})
	if len(ce.Nodes) != 2 || !(ce.Nodes[0].Label == "Go" || ce.Nodes[0].Label == "Python") || !*ce.Exact {
		t.Errorf("centrality = %+v", ce.Nodes)
	}

	// Unknown names: not_found naming candidates, never a guess.
	_, err = analyze(tools.AnalyzeInput{Op: "paths", From: "Rusty", To: "Go"})
	var ne *noema.Error
	if !errors.As(err, &ne) || ne.Code != noema.ENOTFOUND || !strings.Contains(ne.Message, `"Rust"`) {
		t.Fatalf("unknown name: %v", err)
	}
	if cands, _ := ne.Details["candidates"].([]any); len(cands) == 0 {
		t.Errorf("candidates = %v", ne.Details)
	}
	if _, err := analyze(tools.AnalyzeInput{Op: "bogus"}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("unknown op: %v", err)
	}
	if _, err := analyze(tools.AnalyzeInput{Op: "paths", From: "Go"}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("paths without to: %v", err)
	}

	// The full graph has notes too; a note URI names a node there.
	full := must(tools.AnalyzeInput{Op: "pagerank", Graph: "full", Seeds: []string{"memory://Bridge"}})
	// 6 concepts, 7 notes and the page the alias gave Memory Safety.
	if full.GraphNodes != 6+7+1 || full.Nodes[0].ID != "memory://Bridge" {
		t.Errorf("full pagerank = %d nodes, top %+v", full.GraphNodes, full.Nodes[0])
	}

	// A write changes the graph version: the next call sees the new concept.
	before := must(tools.AnalyzeInput{Op: "communities", Seed: ptr(int64(1))})
	write("Seven", "[[Pandas]] [[Polars]]")
	after := must(tools.AnalyzeInput{Op: "communities", Seed: ptr(int64(1))})
	if after.GraphNodes != before.GraphNodes+1 {
		t.Errorf("after a write: %d nodes, before %d", after.GraphNodes, before.GraphNodes)
	}
	// Same seed, same answer.
	again := must(tools.AnalyzeInput{Op: "communities", Seed: ptr(int64(1))})
	b1, _ := json.Marshal(after)
	b2, _ := json.Marshal(again)
	if !reflect.DeepEqual(b1, b2) {
		t.Errorf("two calls differ:\n%s\n%s", b1, b2)
	}
}

func ptr[T any](v T) *T { return &v }
