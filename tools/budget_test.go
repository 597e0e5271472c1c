package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/tools"
)

// TestEstimateTokens: the estimate is never below what cl100k_base and
// o200k_base make of a text (counts measured with js-tiktoken 1.0.21, as
// docs/budgets.md says), and not far above it.
func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		text          string
		cl100k, o200k int
	}{
		{"The memory limit in containers decides when the kernel kills a process.", 13, 13},
		{"容器的内存限制决定了进程何时被内核终止。", 23, 18},
		{"メモリ制限はコンテナ内のプロセスを終了させます。", 25, 20},
		{"c_8f3a9b2e c_1d2e3f4a r_cb653c986bc6e8ce", 30, 30},
		{"0.873412, 0.930000, 36.4 ms, 10,000 notes", 22, 22},
		{`{"uri":"memory://Note 59 about memory","score":0.8734,"ranks":{"fulltext":1}}`, 26, 26},
		{"Übergrößenträger für Ausführungsgeschwindigkeit", 16, 11},
		{"deploy 🚀 ok ✅", 7, 5},
		{"GOMEMLIMIT=512MiB", 8, 7},
		{`- -\u003e related_to Concurrency [c_2g4s3ywsa6jgdm5l]\n`, 29, 27},
		{"    \"score\": 0.8734123,\n    \"snippet\": \"…the «memory» «limit» in containers…\"", 27, 27},
	} {
		got := tools.EstimateTokens([]byte(tc.text))
		most := max(tc.cl100k, tc.o200k)
		if got < most || float64(got) > 1.7*float64(most) {
			t.Errorf("EstimateTokens(%q) = %d, want %d to %.0f (cl100k %d, o200k %d)", tc.text, got, most, 1.7*float64(most), tc.cl100k, tc.o200k)
		}
	}
}

// answerTokens is the estimate of the answer a client receives for out.
func answerTokens(t *testing.T, name string, out any) int {
	t.Helper()
	var b strings.Builder
	tool(t, name).Text(&b, out)
	text, _ := json.Marshal(b.String())
	structured, _ := json.Marshal(out)
	return tools.EstimateTokens(text) + tools.EstimateTokens(structured)
}

// TestBudgetShortensALoneItem: an item bigger than the whole budget still
// comes back, once, its free text cut with "…" and the answer naming what
// it cut, within the budget; the items around it page as usual.
func TestBudgetShortensALoneItem(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var aliases []string
	for i := range 12 {
		aliases = append(aliases, fmt.Sprintf("huge alias %02d %s", i, strings.Repeat("word ", 75)))
	}
	for _, c := range []concepts.CreateInput{{Label: "Before"}, {Label: "Huge", Aliases: aliases}, {Label: "After"}} {
		if _, err := e.App.Concepts.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	cursor := ""
	shortened := false
	for page := 0; ; page++ {
		out := mustRun[*tools.ConceptListOutput](t, e, "list_concepts", tools.ListConceptsInput{Paging: tools.Paging{MaxTokens: tools.MinMaxTokens, Cursor: cursor}})
		if got := answerTokens(t, "list_concepts", out); got > tools.MinMaxTokens || out.Tokens < got {
			t.Errorf("page %d: ~%d tokens, says %d, budget %d", page, got, out.Tokens, tools.MinMaxTokens)
		}
		for _, c := range out.Concepts {
			seen[c.Label]++
			if c.Label == "Huge" {
				shortened = strings.Join(out.Shortened, ",") == "concepts.aliases" && strings.HasSuffix(c.Aliases[0], "…")
			}
		}
		if cursor = out.NextCursor; cursor == "" || page > 10 {
			break
		}
	}
	if seen["Before"] != 1 || seen["Huge"] != 1 || seen["After"] != 1 || !shortened {
		t.Errorf("pages held %v, the huge concept shortened and said so: %v", seen, shortened)
	}

	// An item that shortened strings cannot bring under the budget (many
	// names) is too_large, naming the budget it needs.
	many := make([]string, 60)
	for i := range many {
		many[i] = fmt.Sprintf("many alias %02d %s", i, strings.Repeat("word ", 75))
	}
	if _, err := e.App.Concepts.Create(ctx, concepts.CreateInput{Label: "Many", Aliases: many}); err != nil {
		t.Fatal(err)
	}
	var err error
	for cursor, page := "", 0; page < 10; page++ {
		var out any
		out, err = tool(t, "list_concepts").Run(ctx, e, tools.ListConceptsInput{Paging: tools.Paging{MaxTokens: tools.MinMaxTokens, Cursor: cursor}})
		if err != nil {
			break
		}
		if cursor = out.(*tools.ConceptListOutput).NextCursor; cursor == "" {
			break
		}
	}
	if noema.ErrorCode(err) != noema.ETOOLARGE || !strings.Contains(err.Error(), "ask for max_tokens") {
		t.Errorf("a concept of 60 long aliases at max_tokens %d: %v", tools.MinMaxTokens, err)
	}
}

// TestBudgetShortensAnEchoedQuery: a query longer than the budget is
// echoed shortened, and the answer still fits.
func TestBudgetShortensAnEchoedQuery(t *testing.T) {
	e := newEnv(t)
	mustRun[*notes.WriteResult](t, e, "write_note", notes.WriteInput{Title: "Limits", Content: "the memory limit of a container"})
	q := strings.Repeat("memory limit container ", 2000)
	out := mustRun[*tools.SearchOutput](t, e, "search_notes", tools.SearchInput{Input: search.Input{Query: q, Mode: search.ModeFulltext}, MaxTokens: tools.MinMaxTokens})
	if got := answerTokens(t, "search_notes", out); got > tools.MinMaxTokens || !strings.HasSuffix(out.Query, "…") || len(out.Shortened) == 0 || out.Shortened[0] != "query" {
		t.Errorf("~%d tokens (budget %d), query %d bytes, shortened %v", got, tools.MinMaxTokens, len(out.Query), out.Shortened)
	}
}

// TestBudgetBounds: max_tokens below the minimum is invalid_argument, and
// a cursor from another tool is too.
func TestBudgetBounds(t *testing.T) {
	e := newEnv(t)
	_, err := tool(t, "list_notes").Run(context.Background(), e, tools.ListNotesInput{Paging: tools.Paging{MaxTokens: tools.MinMaxTokens - 1}})
	if noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("max_tokens %d: %v", tools.MinMaxTokens-1, err)
	}
}

// TestEstimateFiles writes the estimate of each file named in
// $NOEMA_ESTIMATE_FILES (space-separated) to estimates.tsv beside the
// first, for e2e/node/count-tokens.mjs (docs/budgets.md); it does nothing
// without it.
func TestEstimateFiles(t *testing.T) {
	files := strings.Fields(os.Getenv("NOEMA_ESTIMATE_FILES"))
	if len(files) == 0 {
		t.Skip("NOEMA_ESTIMATE_FILES is not set")
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\t%d\n", filepath.Base(f), tools.EstimateTokens(data))
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(files[0]), "estimates.tsv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
