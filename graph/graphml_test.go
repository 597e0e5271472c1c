package graph_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

type gmlDoc struct {
	XMLName xml.Name `xml:"http://graphml.graphdrawing.org/xmlns graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
	} `xml:"key"`
	Graph struct {
		EdgeDefault string `xml:"edgedefault,attr"`
		Nodes       []struct {
			ID   string    `xml:"id,attr"`
			Data []gmlData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			ID     string    `xml:"id,attr"`
			Source string    `xml:"source,attr"`
			Target string    `xml:"target,attr"`
			Data   []gmlData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type gmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

// TestGraphMLParses reads the export back with encoding/xml: every data
// key is declared for its domain, every edge ends at a declared node,
// dangling relations are left out, and escaped text comes back intact.
func TestGraphMLParses(t *testing.T) {
	g, _, gml := export(t, fixture(t))
	var doc gmlDoc
	if err := xml.Unmarshal(gml, &doc); err != nil {
		t.Fatalf("GraphML does not parse: %v\n%s", err, gml)
	}
	if doc.Graph.EdgeDefault != "directed" {
		t.Errorf("edgedefault = %q", doc.Graph.EdgeDefault)
	}
	keys := map[string]string{} // id -> domain
	for _, k := range doc.Keys {
		if k.Type != "string" && k.Type != "double" {
			t.Errorf("key %s has attr.type %q", k.ID, k.Type)
		}
		if _, dup := keys[k.ID]; dup {
			t.Errorf("key %s declared twice", k.ID)
		}
		keys[k.ID] = k.For
	}
	nodes := map[string]map[string]string{}
	for _, n := range doc.Graph.Nodes {
		attrs := map[string]string{}
		for _, d := range n.Data {
			if keys[d.Key] != "node" {
				t.Errorf("node %s uses undeclared node key %s", n.ID, d.Key)
			}
			attrs[d.Key] = d.Value
		}
		nodes[n.ID] = attrs
	}
	if len(nodes) != len(g.Nodes) {
		t.Errorf("%d nodes in GraphML, %d in the graph", len(nodes), len(g.Nodes))
	}
	if got := len(doc.Graph.Edges); got != len(g.Edges)-2 {
		t.Errorf("%d edges in GraphML, want %d (all but the 2 dangling)", got, len(g.Edges)-2)
	}
	for _, e := range doc.Graph.Edges {
		if nodes[e.Source] == nil || nodes[e.Target] == nil {
			t.Errorf("edge %s ends at an undeclared node", e.ID)
		}
		for _, d := range e.Data {
			if keys[d.Key] != "edge" {
				t.Errorf("edge %s uses undeclared edge key %s", e.ID, d.Key)
			}
			if d.Key == "e_weight" {
				if _, err := strconv.ParseFloat(d.Value, 64); err != nil {
					t.Errorf("edge %s weight %q: %v", e.ID, d.Value, err)
				}
			}
		}
	}
	b := nodes[idB]
	if b["n_label"] != `B & <Friends> "quoted"` || b["n_tags"] != `["lang","x<y"]` {
		t.Errorf("note b attributes = %v", b)
	}
	if gc := nodes[idGC]; gc["n_metadata"] != `{"field":"cs","year":1959}` || gc["n_aliases"] != `["GC"]` || gc["n_kind"] != "concept" {
		t.Errorf("concept attributes = %v", gc)
	}
}

// TestGraphMLNetworkx opens the export with networkx, a GraphML reader
// nobody here wrote. The interpreter is $NOEMA_PYTHON (default python3).
// Without networkx the test is skipped, unless NOEMA_REQUIRE_NETWORKX=1
// (CI sets it after installing Debian's python3-networkx): then it fails.
func TestGraphMLNetworkx(t *testing.T) {
	python := networkx(t)
	_, _, gml := export(t, fixture(t))
	path := filepath.Join(t.TempDir(), "export.graphml")
	if err := os.WriteFile(path, gml, 0o644); err != nil {
		t.Fatal(err)
	}
	// 7 nodes; 12 edges less 2 dangling. notes/a → Rust is both a mention and
	// an "about" relation, so networkx must return a multigraph to count 10.
	runCheck(t, python, "check_graphml.py", path, "7", "10",
		idB, "label", `B & <Friends> "quoted"`,
		idB, "tags", `["lang","x<y"]`,
		idGC, "metadata", `{"field":"cs","year":1959}`,
		idGC, "kind", "concept",
		idA, "created", "2026-01-02T09:30:00Z",
	)
}

// networkx returns the Python interpreter the networkx checks run:
// $NOEMA_PYTHON (default python3). Without networkx the test is skipped,
// unless NOEMA_REQUIRE_NETWORKX=1 (CI sets it after installing Debian's
// python3-networkx): then it fails.
func networkx(t *testing.T) string {
	t.Helper()
	python := os.Getenv("NOEMA_PYTHON")
	if python == "" {
		python = "python3"
	}
	if err := exec.Command(python, "-c", "import networkx").Run(); err != nil {
		if os.Getenv("NOEMA_REQUIRE_NETWORKX") == "1" {
			t.Fatalf("%s cannot import networkx: %v", python, err)
		}
		t.Skip("python3 with networkx not available (set NOEMA_PYTHON to an interpreter that has it):", err)
	}
	return python
}

// runCheck runs testdata/script with python and args, failing the test with
// the script's output when it fails and logging it when it passes.
func runCheck(t *testing.T, python, script string, args ...string) {
	t.Helper()
	cmd := exec.Command(python, append([]string{filepath.Join("testdata", script)}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out.Bytes())
	}
	t.Log(out.String())
}

// TestGraphMLEscaping round-trips hostile text through WriteGraphML and
// encoding/xml: markup, quotes, whitespace in attribute values, and
// characters XML cannot carry (replaced by U+FFFD).
func TestGraphMLEscaping(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"markup", `a & b <c> "d" 'e'`, `a & b <c> "d" 'e'`},
		{"whitespace", "line 1\nline 2\tx\r\n", "line 1\nline 2\tx\r\n"},
		{"control and invalid UTF-8", "a\x01b\xffc\uFFFEd", "a\uFFFDb\uFFFDc\uFFFDd"},
		{"unicode", "신경망 — ünïcödé 🧠", "신경망 — ünïcödé 🧠"},
		{"entity lookalike", "&amp; &#34; ]]>", "&amp; &#34; ]]>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "memory://" + tt.in
			g := &graph.Graph{
				Nodes: []noema.GraphNode{{ID: id, Kind: noema.NodeNote, Label: tt.in, Tags: []string{tt.in}}},
				Edges: []noema.GraphEdge{{ID: tt.in, Kind: noema.EdgeRelation, Source: id, Target: id, Type: tt.in}},
			}
			var buf bytes.Buffer
			if err := graph.WriteGraphML(&buf, g); err != nil {
				t.Fatal(err)
			}
			var doc gmlDoc
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("does not parse: %v\n%s", err, buf.Bytes())
			}
			n, e := doc.Graph.Nodes[0], doc.Graph.Edges[0]
			wantID := "memory://" + tt.want
			if n.ID != wantID || e.ID != tt.want || e.Source != wantID || e.Target != wantID {
				t.Errorf("ids = %q, %q, %q, %q; want %q, %q", n.ID, e.ID, e.Source, e.Target, wantID, tt.want)
			}
			for _, d := range append(n.Data, e.Data...) {
				switch d.Key {
				case "n_label", "e_type":
					if d.Value != tt.want {
						t.Errorf("%s = %q, want %q", d.Key, d.Value, tt.want)
					}
				}
			}
		})
	}
}
