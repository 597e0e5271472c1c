package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/mcpserver"
	"github.com/noema-mem/noema/tools"
)

// budgetVault writes a vault whose answers can flood a context: many notes
// of long paragraphs (English, Chinese, identifiers and numbers), each
// linking several of many concepts, and relations around Go.
func budgetVault(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	concepts := []string{"Go", "Rust", "Memory", "Garbage Collection", "SQLite", "Containers", "Kubernetes", "BM25", "Embeddings", "Concurrency",
		"Channels", "Mutex", "Scheduler", "内存", "容器", "Profiling", "Latency", "Throughput", "Caching", "Indexing"}
	paras := []string{
		"The memory limit in containers decides when the kernel kills a process; Go's runtime reads GOMEMLIMIT=512MiB and collects garbage earlier as the heap nears it.",
		"容器的内存限制决定了进程何时被内核终止。Go 运行时读取 GOMEMLIMIT，并在堆接近限制时更早地回收垃圾。",
		"Measured p50 latency 36.4 ms against 8.9 ms for FTS5 at 10,000 notes; ids c_8f3a9b2e and c_1d2e3f4a, checksum 9f86d081884c7d65.",
		"A scheduler parks goroutines on channels and wakes them in FIFO order; a mutex in starvation mode hands the lock to the oldest waiter.",
	}
	for i := range 60 {
		var b strings.Builder
		for j := range 5 {
			b.WriteString(paras[(i+j)%len(paras)])
			fmt.Fprintf(&b, " [[%s]] and [[%s]].\n\n", concepts[(i+j)%len(concepts)], concepts[(i*3+j+1)%len(concepts)])
		}
		mustCall(t, cs, "write_note", map[string]any{"title": fmt.Sprintf("Note %02d about memory %s", i, concepts[i%len(concepts)]), "content": b.String()}, nil)
	}
	// Look-alike names, for analyze_duplicates.
	for i, pair := range [][2]string{{"Container", "Containers"}, {"Channel", "Channels"}, {"Mutexes", "Mutex"}, {"Garbage collector", "Garbage Collection"},
		{"Latencies", "Latency"}, {"Profiler", "Profiling"}, {"Embedding", "Embeddings"}, {"Caches", "Caching"}, {"Index", "Indexing"}, {"Schedulers", "Scheduler"},
		{"Go 1", "Go 2"}, {"Rust 1", "Rust 2"}, {"SQLite 2", "SQLite 3"}} {
		mustCall(t, cs, "write_note", map[string]any{"title": fmt.Sprintf("Spelling %02d", i), "content": fmt.Sprintf("[[%s]] is [[%s]] again.", pair[0], pair[1])}, nil)
	}
	for _, other := range concepts[1:] {
		mustCall(t, cs, "create_relation", map[string]any{"from": "Go", "type": "related_to", "to": other}, nil)
	}
}

// budgetCase is one budgeted tool and the lists its answer pages.
type budgetCase struct {
	tool  string
	args  map[string]any
	lists []string
}

var budgetCases = []budgetCase{
	{"search_notes", map[string]any{"query": "memory", "limit": 100, "mode": "fulltext"}, []string{"hits"}},
	{"build_context", map[string]any{"concept": "Go", "include_content": true, "max_entities": 200}, []string{"relations", "notes", "related", "community"}},
	{"export_graph", map[string]any{}, []string{"nodes", "edges"}},
	{"list_notes", map[string]any{"limit": 500}, []string{"notes"}},
	{"recent_activity", map[string]any{"limit": 500}, []string{"notes"}},
	{"list_concepts", map[string]any{"limit": 500}, []string{"concepts"}},
	{"find_concepts", map[string]any{"query": "go", "limit": 500}, []string{"candidates"}},
	{"neighbors", map[string]any{"id": "Go", "limit": 500}, []string{"neighbors"}},
	{"subgraph", map[string]any{"ids": []string{"Go"}, "depth": 2}, []string{"nodes", "edges"}},
	{"find_similar_concepts", map[string]any{"concept": "containers channels caching latency profiling embeddings scheduler indexing mutexes garbage collection kubernetes concurrency throughput sqlite rust memory", "max_results": 200}, []string{"results"}},
	{"analyze_duplicates", map[string]any{"limit": 500}, []string{"groups", "do_not_merge"}},
	{"analyze_graph", map[string]any{"op": "pagerank", "graph": "full", "limit": 500}, []string{"nodes"}},
	{"analyze_graph", map[string]any{"op": "communities", "limit": 500, "members": 8, "concept": "Go"}, []string{"concept_community", "communities"}},
	{"analyze_graph", map[string]any{"op": "predict_links", "graph": "full", "limit": 60}, []string{"links"}},
}

// answer is one tool answer as the client received it.
type answer struct {
	wire       []byte         // the tool result, serialized as on the wire
	structured map[string]any // its structured content
}

func (a answer) tokens() int { return tools.EstimateTokens(a.wire) }

func (a answer) budget() (tokens, maxTokens int, cursor string) {
	n := func(k string) int { f, _ := a.structured[k].(float64); return int(f) }
	c, _ := a.structured["next_cursor"].(string)
	return n("tokens"), n("max_tokens"), c
}

// items returns the keys of each item of the list (its JSON); an object
// (a community) is one item.
func (a answer) items(list string) []string {
	var v []any
	switch x := a.structured[list].(type) {
	case map[string]any: // one item: build_context's community, analyze_graph's concept_community
		v = []any{x}
	case []any:
		v = x
	}
	var keys []string
	for _, it := range v {
		b, _ := json.Marshal(it)
		keys = append(keys, string(b))
	}
	return keys
}

func callAnswer(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) answer {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, res.Content[0].(*mcp.TextContent).Text)
	}
	// As the SDK's JSON-RPC encoder writes it: no HTML escaping (the
	// structured content keeps the escapes of its own json.Marshal).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	wire := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var structured map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatal(err)
	}
	dumpAnswer(t, name, wire)
	return answer{wire: wire, structured: structured}
}

// dumpAnswer writes an answer to $NOEMA_DUMP_ANSWERS, when set, and its
// estimate to estimates.tsv there: the corpus docs/budgets.md measures the
// token estimate on (e2e/node/count-tokens.mjs).
func dumpAnswer(t *testing.T, name string, wire []byte) {
	dir := os.Getenv("NOEMA_DUMP_ANSWERS")
	if dir == "" {
		return
	}
	entries, _ := os.ReadDir(dir)
	file := fmt.Sprintf("%03d-%s.json", len(entries), name)
	if err := os.WriteFile(filepath.Join(dir, file), wire, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "estimates.tsv"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%d\n", file, tools.EstimateTokens(wire))
}

func with(args map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// TestBudgets: every tool that takes max_tokens keeps every answer within
// it as the client receives it (the serialized tool result, text and
// structured content, by the estimate), says so honestly (tokens is at
// least the answer's estimate), keeps the default under
// DefaultMaxTokens, and pages with next_cursor through every item of the
// whole answer exactly once, in order, at the smallest budget and at a
// middling one.
func TestBudgets(t *testing.T) {
	cs, a := connect(t, mcpserver.Options{})
	budgetVault(t, cs)
	// Every concept embedded now, so find_similar_concepts answers alike
	// from call to call (a server embeds in the background).
	if err := a.Semantic.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	largestWhole, largestDefault, largestDefaultTokens := 0, 0, 0
	for _, c := range budgetCases {
		t.Run(c.tool+"/"+c.lists[len(c.lists)-1], func(t *testing.T) {
			whole := callAnswer(t, cs, c.tool, with(c.args, "max_tokens", tools.MaxMaxTokens))
			largestWhole = max(largestWhole, len(whole.wire))
			wholeItems := map[string][]string{}
			total := 0
			for _, l := range c.lists {
				wholeItems[l] = whole.items(l)
				total += len(wholeItems[l])
			}
			for _, _, cur := whole.budget(); cur != ""; {
				// The largest budget pages too: the export of this vault is larger.
				page := callAnswer(t, cs, c.tool, with(c.args, "max_tokens", tools.MaxMaxTokens, "cursor", cur))
				for _, l := range c.lists {
					wholeItems[l] = append(wholeItems[l], page.items(l)...)
					total += len(page.items(l))
				}
				_, _, cur = page.budget()
			}
			if total < 3 {
				t.Fatalf("only %d items in the whole answer: the test pages nothing", total)
			}
			def := callAnswer(t, cs, c.tool, c.args)
			largestDefault = max(largestDefault, len(def.wire))
			largestDefaultTokens = max(largestDefaultTokens, def.tokens())
			if got := def.tokens(); got > tools.DefaultMaxTokens {
				t.Errorf("default answer is ~%d tokens, over %d", got, tools.DefaultMaxTokens)
			}
			for _, budget := range []int{tools.MinMaxTokens, 2500} {
				seen := map[string][]string{}
				cur, pages := "", 0
				for {
					args := with(c.args, "max_tokens", budget)
					if cur != "" {
						args["cursor"] = cur
					}
					page := callAnswer(t, cs, c.tool, args)
					pages++
					tokens, maxTokens, next := page.budget()
					if est := page.tokens(); est > budget || tokens < est || maxTokens != budget {
						t.Errorf("max_tokens %d, page %d: ~%d tokens on the wire, answer says tokens %d, max_tokens %d", budget, pages, est, tokens, maxTokens)
					}
					n := 0
					for _, l := range c.lists {
						seen[l] = append(seen[l], page.items(l)...)
						n += len(page.items(l))
					}
					if n == 0 && next != "" {
						t.Fatalf("max_tokens %d, page %d: no item, yet a next cursor", budget, pages)
					}
					if next == "" {
						break
					}
					if pages > 10*total {
						t.Fatalf("max_tokens %d: %d pages for %d items", budget, pages, total)
					}
					cur = next
				}
				if budget == tools.MinMaxTokens && pages < 2 {
					t.Errorf("max_tokens %d: one page for %d items", budget, total)
				}
				for _, l := range c.lists {
					want := wholeItems[l]
					if strings.Join(seen[l], "\n") != strings.Join(want, "\n") {
						t.Errorf("max_tokens %d: %s over %d pages = %d items, want the whole answer's %d in order, each once", budget, l, pages, len(seen[l]), len(want))
					}
				}
			}
		})
	}
	exp, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "noema://graph/export"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest answer: %d bytes with max_tokens %d, %d bytes (~%d tokens) with the default; the whole JSON export (export_graph before budgets held it twice, as text and as structured content) is %d bytes, ~%d tokens",
		largestWhole, tools.MaxMaxTokens, largestDefault, largestDefaultTokens, len(exp.Contents[0].Text), tools.EstimateTokens([]byte(exp.Contents[0].Text)))
}

// TestBudgetCursorErrors: a cursor is refused, invalid_argument naming
// what is wrong, when it is not one the tool made, was made by another
// tool or for other arguments, or comes with an offset.
func TestBudgetCursorErrors(t *testing.T) {
	cs, _ := connect(t, mcpserver.Options{})
	budgetVault(t, cs)
	page := callAnswer(t, cs, "search_notes", map[string]any{"query": "memory", "limit": 50, "max_tokens": 1000})
	_, _, cur := page.budget()
	if cur == "" {
		t.Fatal("no next_cursor on a 1000-token page of 50 hits")
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_notes", map[string]any{"query": "memory", "cursor": "not-a-cursor"}, "is not a cursor search_notes returned"},
		{"search_notes", map[string]any{"query": "garbage", "cursor": cur}, "returned for other arguments"},
		{"search_notes", map[string]any{"query": "memory", "mode": "fulltext", "cursor": cur}, "returned for other arguments"},
		{"list_notes", map[string]any{"cursor": cur}, "returned by search_notes, not list_notes"},
		{"search_notes", map[string]any{"query": "memory", "cursor": cur, "offset": 3}, "pass cursor or offset, not both"},
		{"search_notes", map[string]any{"query": "memory", "max_tokens": 999}, "max_tokens"},
		{"export_graph", map[string]any{"format": "graphml", "cursor": cur}, "pages the json export only"},
	} {
		if e := wantFailure(t, cs, tc.tool, tc.args, "invalid_argument"); !strings.Contains(e, tc.want) {
			t.Errorf("%s %v = %q, want it to say %q", tc.tool, tc.args, e, tc.want)
		}
	}
	// The page size may change between pages; the cursor still holds.
	mustCall(t, cs, "search_notes", map[string]any{"query": "memory", "limit": 20, "max_tokens": 1500, "cursor": cur}, nil)

	// A changed graph refuses an export cursor rather than skip or repeat.
	exp := callAnswer(t, cs, "export_graph", map[string]any{"max_tokens": 1000})
	_, _, ecur := exp.budget()
	if ecur == "" {
		t.Fatal("no next_cursor on a 1000-token export page")
	}
	mustCall(t, cs, "write_note", map[string]any{"title": "A new note", "content": "about [[Zig]]"}, nil)
	if e := wantFailure(t, cs, "export_graph", map[string]any{"max_tokens": 1000, "cursor": ecur}, "invalid_argument"); !strings.Contains(e, "another graph") {
		t.Errorf("export cursor after a change = %q", e)
	}
}
