package graph_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/sqlite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

// mustOpen opens an index in a temporary folder, closed at cleanup.
func mustOpen(tb testing.TB) *sqlite.DB { return noematest.OpenIndex(tb) }

// key is a simple stand-in for vault.Key.
func key(s string) string { return noematest.Key(s) }

// put writes recs into db and recomputes the concepts.
func put(tb testing.TB, db *sqlite.DB, recs ...*sqlite.NoteRecord) {
	tb.Helper()
	noematest.PutNotes(tb, db, recs...)
}

func note(path string, day int, links ...string) *sqlite.NoteRecord {
	ts := time.Date(2026, 1, day, 9, 30, 0, 0, time.UTC)
	r := noematest.NoteRecord(path, "h:"+path, ts, ts.Add(time.Hour), links...)
	r.Tags = []string{}
	return r
}

func ptr(f float64) *float64 { return &f }

// Ids of the fixture's nodes.
var (
	idGC     = "c_gc"
	idMS     = noema.ConceptID("memory safety", 1)
	idRust   = noema.ConceptID("rust", 1)
	idA      = "memory://notes/a"
	idB      = "memory://notes/b"
	idC      = "memory://notes/c"
	idGCPage = "memory://concepts/garbage-collection"
)

// fixtureRecords is a small vault: a concept page with relations (one to a
// key nobody links: dangling), notes linking concepts by label and alias,
// relations between notes (one to a missing note: dangling), a relation
// parallel to a mention, and an isolated note.
func fixtureRecords() []*sqlite.NoteRecord {
	page := note("concepts/garbage-collection.md", 1)
	page.Title = "Garbage Collection"
	page.Tags = []string{"cs"}
	page.Page = sqlite.PageRecord{Explicit: true, ConceptID: idGC, Label: "Garbage Collection", Aliases: []string{"GC"},
		Description: "Reclaims unreachable memory", Metadata: `{"field":"cs","year":1959}`,
		Created: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	page.Relations = []sqlite.RelationRecord{
		{ID: "r1", Type: "related_to", ToRef: "concept:memory safety", Weight: ptr(0.8), Metadata: `{"source":"book"}`},
		{ID: "r2", Type: "part_of", ToRef: "concept:runtime systems"},
		{ID: "r3", Type: "documented_in", ToRef: "note:notes/a.md"},
	}
	a := note("notes/a.md", 2, "GC", "gc", "Memory Safety", "Rust")
	a.Aliases = []string{"Alpha"}
	a.Relations = []sqlite.RelationRecord{
		{ID: "r4", Type: "cites", ToRef: "note:notes/b.md", Weight: ptr(2)},
		{ID: "r5", Type: "about", ToRef: "concept:rust"},
		{ID: "r6", Type: "see_also", ToRef: "note:notes/missing.md"},
	}
	b := note("notes/b.md", 3, "Rust", "memory-safety")
	b.Title = `B & <Friends> "quoted"`
	b.Tags = []string{"lang", "x<y"}
	b.Relations = []sqlite.RelationRecord{{ID: "r7", Type: "related_to", ToRef: "concept:gc"}}
	c := note("notes/c.md", 4)
	return []*sqlite.NoteRecord{page, a, b, c}
}

func fixture(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db := mustOpen(tb)
	put(tb, db, fixtureRecords()...)
	return db
}

func export(tb testing.TB, db *sqlite.DB) (*graph.Graph, []byte, []byte) {
	tb.Helper()
	g, err := graph.Export(context.Background(), db.Graph())
	if err != nil {
		tb.Fatal(err)
	}
	var js, gml bytes.Buffer
	if err := graph.WriteJSON(&js, g); err != nil {
		tb.Fatal(err)
	}
	if err := graph.WriteGraphML(&gml, g); err != nil {
		tb.Fatal(err)
	}
	return g, js.Bytes(), gml.Bytes()
}

func edgeByID(g *graph.Graph, id string) *noema.GraphEdge {
	for i := range g.Edges {
		if g.Edges[i].ID == id {
			return &g.Edges[i]
		}
	}
	return nil
}

func TestExport(t *testing.T) {
	g, _, _ := export(t, fixture(t))
	var nodes []string
	for _, n := range g.Nodes {
		nodes = append(nodes, n.Kind+" "+n.ID)
	}
	concepts := []string{"concept " + idGC, "concept " + idMS, "concept " + idRust}
	slices.Sort(concepts)
	want := append(concepts, "note "+idGCPage, "note "+idA, "note "+idB, "note "+idC)
	if !slices.Equal(nodes, want) {
		t.Errorf("nodes =\n%s\nwant\n%s", strings.Join(nodes, "\n"), strings.Join(want, "\n"))
	}
	if len(g.Edges) != 12 {
		t.Errorf("%d edges, want 5 mentions + 7 relations", len(g.Edges))
	}
	if !slices.IsSortedFunc(g.Edges, func(a, b noema.GraphEdge) int { return slices.Compare(edgeKey(a), edgeKey(b)) }) {
		t.Error("edges are not sorted by kind, source, type, target, id")
	}

	tests := []struct {
		name                 string
		id                   string
		kind, source, target string
		typ                  string
		weight               *float64
		metadata             string
		dangling             bool
	}{
		{"mention counts links in any spelling", "m:" + idA + "->" + idGC, noema.EdgeMentions, idA, idGC, "mentions", ptr(2), "", false},
		{"relation from a concept page starts at the concept", "r1", noema.EdgeRelation, idGC, idMS, "related_to", ptr(0.8), `{"source":"book"}`, false},
		{"unknown concept key is dangling", "r2", noema.EdgeRelation, idGC, "concept:runtime systems", "part_of", nil, "{}", true},
		{"page relation to a note", "r3", noema.EdgeRelation, idGC, idA, "documented_in", nil, "{}", false},
		{"note to note", "r4", noema.EdgeRelation, idA, idB, "cites", ptr(2), "{}", false},
		{"missing note is dangling", "r6", noema.EdgeRelation, idA, "memory://notes/missing", "see_also", nil, "{}", true},
		{"target by alias key", "r7", noema.EdgeRelation, idB, idGC, "related_to", nil, "{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := edgeByID(g, tt.id)
			if e == nil {
				t.Fatalf("no edge %s", tt.id)
			}
			if e.Kind != tt.kind || e.Source != tt.source || e.Target != tt.target || e.Type != tt.typ ||
				string(e.Metadata) != tt.metadata || e.Dangling != tt.dangling {
				t.Errorf("edge = %+v (metadata %s)", *e, e.Metadata)
			}
			if (e.Weight == nil) != (tt.weight == nil) || (e.Weight != nil && *e.Weight != *tt.weight) {
				t.Errorf("weight = %v, want %v", e.Weight, tt.weight)
			}
		})
	}

	var gc, a *noema.GraphNode
	for i := range g.Nodes {
		switch g.Nodes[i].ID {
		case idGC:
			gc = &g.Nodes[i]
		case idA:
			a = &g.Nodes[i]
		}
	}
	if gc.Label != "Garbage Collection" || gc.Key != "garbage collection" || !slices.Equal(gc.Aliases, []string{"GC"}) ||
		gc.Page != idGCPage || string(gc.Metadata) != `{"field":"cs","year":1959}` ||
		!gc.CreatedAt.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) || gc.Description == "" {
		t.Errorf("concept = %+v", *gc)
	}
	if a.Label != "a" || a.Path != "notes/a.md" || a.Checksum != "h:notes/a.md" || !slices.Equal(a.Aliases, []string{"Alpha"}) ||
		a.Tags == nil || a.Created.Location() != time.UTC || !a.Modified.Equal(time.Date(2026, 1, 2, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("note = %+v", *a)
	}
}

func edgeKey(e noema.GraphEdge) []string { return []string{e.Kind, e.Source, e.Type, e.Target, e.ID} }

// TestExportDeterministic: the same index exports the same bytes, and so
// does an index built from the same notes in another order (other row ids).
func TestExportDeterministic(t *testing.T) {
	db := fixture(t)
	_, js1, gml1 := export(t, db)
	_, js2, gml2 := export(t, db)
	if !bytes.Equal(js1, js2) || !bytes.Equal(gml1, gml2) {
		t.Fatal("two exports of one index differ")
	}
	recs := fixtureRecords()
	slices.Reverse(recs)
	other := mustOpen(t)
	for _, r := range recs { // one transaction per note: other row ids, other write paths
		put(t, other, r)
	}
	_, js3, gml3 := export(t, other)
	if !bytes.Equal(js1, js3) {
		t.Errorf("JSON differs between indexes of the same notes:\n%s\n---\n%s", js1, js3)
	}
	if !bytes.Equal(gml1, gml3) {
		t.Error("GraphML differs between indexes of the same notes")
	}
	if !json.Valid(js1) {
		t.Error("export is not valid JSON")
	}
	golden(t, "export.golden.json", js1)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output:\n%s", path, got)
	}
}

func TestWriteJSONEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := graph.WriteJSON(&buf, &graph.Graph{}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\"nodes\":[],\"edges\":[]}\n" {
		t.Errorf("empty graph = %q", got)
	}
	g, err := graph.Export(context.Background(), mustOpen(t).Graph())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(g); string(b) != `{"nodes":[],"edges":[]}` {
		t.Errorf("empty index marshals as %s", b)
	}
}

// TestReindexExportsSameGraph runs the real indexer over a vault on disk:
// deleting the index and rebuilding it gives a byte-identical export.
func TestReindexExportsSameGraph(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"concepts/garbage-collection.md": "---\nid: c_gc\naliases: [GC]\ndescription: Reclaims memory\n" +
			"metadata: {field: cs}\nrelations:\n  - {type: related_to, to: \"[[Memory Safety]]\", weight: 0.5}\n" +
			"  - {type: part_of, to: Runtime Systems}\n---\n# Garbage Collection\n",
		"notes/a.md": "---\ntags: [lang]\nrelations:\n  - {type: cites, to: \"memory://notes/b\"}\n---\n" +
			"Uses [[GC]] and [[gc]] for [[Memory Safety]].\n",
		"notes/b.md": "Rust has [[memory-safety]] without [[GC]].\n",
	}
	mtime := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	for p, content := range files {
		if err := os.Chtimes(treetest.Write(t, dir, p, content), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	sync := func() []byte {
		db := noematest.SyncIndex(t, dir)
		defer db.Close() // before the index is removed and rebuilt
		g, js, _ := export(t, db)
		if e := edgeByID(g, noema.RelationID("concepts/garbage-collection.md", "part_of", "concept:runtime systems")); e == nil || !e.Dangling {
			t.Errorf("part_of relation = %+v, want a dangling edge", e)
		}
		return js
	}
	before := sync()
	if err := os.RemoveAll(filepath.Join(dir, ".noema")); err != nil {
		t.Fatal(err)
	}
	if after := sync(); !bytes.Equal(before, after) {
		t.Errorf("export changed after rebuilding the index:\n%s\n---\n%s", before, after)
	}
}

// TestMentionsMatchView checks both ways the package reads mentions (the
// whole-table join of Export, the indexed per-node query of Neighbors and
// GetNode) against the index's mentions view, on a generated vault.
func TestMentionsMatchView(t *testing.T) {
	ctx := context.Background()
	db := noematest.SyncedCorpus(t, corpus.Options{Seed: 3, Notes: 300})
	want := map[string]float64{}
	perConcept := map[string]int{}
	noematest.EachRow(t, db.Read(), `SELECT n.path, m.concept_id, m.count FROM mentions m JOIN notes n ON n.id = m.note_id`, func(rows *sql.Rows) error {
		var path, concept string
		var count float64
		if err := rows.Scan(&path, &concept, &count); err != nil {
			return err
		}
		want["memory://"+strings.TrimSuffix(path, ".md")+" "+concept] = count
		perConcept[concept]++
		return nil
	})
	if len(want) < 1000 {
		t.Fatalf("only %d mentions in the view", len(want))
	}

	g, err := graph.Export(ctx, db.Graph())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, e := range g.Edges {
		if e.Kind == noema.EdgeMentions {
			got[e.Source+" "+e.Target] = *e.Weight
		}
	}
	if len(got) != len(want) {
		t.Errorf("export has %d mentions, the view %d", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("mention %s: export %v, view %v", k, got[k], w)
		}
	}

	concepts := slices.Sorted(maps.Keys(perConcept))
	for _, concept := range concepts[:20] {
		n := perConcept[concept]
		node, err := graph.GetNode(ctx, db.Graph(), concept)
		if err != nil {
			t.Fatal(err)
		}
		if node.Degree.In.Mentions != n {
			t.Errorf("concept %s: %d mentions by GetNode, %d in the view", concept, node.Degree.In.Mentions, n)
		}
		p, err := graph.Neighbors(ctx, db.Graph(), concept, graph.NeighborOptions{Type: noema.TypeMentions, Limit: graph.MaxNeighborLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range p.Neighbors {
			if w := want[nb.Edge.Source+" "+concept]; *nb.Edge.Weight != w {
				t.Errorf("neighbor %s: weight %v, view %v", nb.Edge.ID, *nb.Edge.Weight, w)
			}
		}
	}
}
