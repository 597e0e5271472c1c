package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/pgtest"
	"github.com/noema-mem/noema/postgres"
	"github.com/noema-mem/noema/tools"
)

// Two vaults, each with notes only it holds: what one token may see of
// the other is what these tests look for.
var (
	workNotes = map[string]string{
		"Kubernetes Migration.md": "WORKMARKER: moving the cluster to [[Kubernetes]] with [[Helm]] charts.\n",
		"Helm Charts.md":          "WORKMARKER: every [[Helm]] chart pins its [[Kubernetes]] version.\n",
	}
	homeNotes = map[string]string{
		"Sourdough Bread.md": "HOMEMARKER: feed the [[Sourdough]] starter with [[Rye Flour]] twice a day.\n",
		"Rye Flour.md":       "HOMEMARKER: [[Rye Flour]] makes a sour [[Sourdough]].\n",
	}
	// What must never reach a caller of the other vault.
	workMarkers = []string{"WORKMARKER", "Kubernetes", "Helm"}
	homeMarkers = []string{"HOMEMARKER", "Sourdough", "Rye Flour"}
)

const vaultTokens = `tokens:
  - name: work-writer
    token: work-token-8f3a
    vaults: [work]
    access: read_write
  - name: home-reader
    token: home-token-2c9d
    vaults: [home]
    access: read_only
`

// tokenSession connects a real MCP client (go-sdk) to url with token.
func tokenSession(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-vaults", Version: "v0"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: noematest.BearerClient(token)}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// writeVault makes a vault folder holding notes.
func writeVault(t *testing.T, dir string, notes map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeSum sums every Markdown file under dir (path and bytes).
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".noema" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%x\x00", path, sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// answer is a tool call's whole answer as text: its error, or its text
// content and structured result.
func answer(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (text string, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error(), true
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		s, _ := json.Marshal(res.StructuredContent)
		b.WriteString("\n")
		b.Write(s)
	}
	return b.String(), res.IsError
}

// readArgs are arguments of every read-only tool that ask about the home
// vault's notes and concepts, spelled so that an answer that echoes them
// holds none of its markers (which are case-sensitive); writeArgs of every other tool, valid ones
// that would change the home vault if they ran. A tool in neither fails
// TestScopedTokens: a new tool cannot slip past its checks.
var (
	readArgs = map[string]map[string]any{
		"find_concepts":         {"query": "sourdoug"},
		"find_similar_concepts": {"concept": "sourdough"},
		"list_concepts":         {},
		"analyze_duplicates":    {},
		"read_note":             {"uri": "sourdough bread"},
		"list_notes":            {},
		"recent_activity":       {},
		"search_notes":          {"query": "homemarker starter", "mode": "fulltext"},
		"build_context":         {"concept": "sourdough"},
		"get_node":              {"id": "sourdough"},
		"neighbors":             {"id": "sourdough"},
		"subgraph":              {"ids": []string{"sourdough"}},
		"export_graph":          {},
		"analyze_graph":         {"op": "pagerank"},
		"status":                {},
		"list_vaults":           {},
		"list_operations":       {},
	}
	// ownAnswers are the read-only tools whose answer on the home vault
	// itself must hold its markers: the data is there, so its absence
	// from the work vault's answers means something.
	ownAnswers = []string{"find_concepts", "list_concepts", "read_note", "list_notes", "recent_activity",
		"search_notes", "build_context", "get_node", "neighbors", "subgraph", "export_graph", "analyze_graph"}
	writeArgs = map[string]map[string]any{
		"write_note":      {"title": "Intrusion", "content": "written by a read-only token"},
		"edit_note":       {"uri": "Sourdough Bread", "op": "append", "content": "edited"},
		"move_note":       {"from": "Sourdough Bread", "to": "Moved Bread"},
		"delete_note":     {"uri": "Sourdough Bread", "confirm": true},
		"create_concept":  {"label": "Intrusion"},
		"update_concept":  {"concept": "Sourdough", "description": "changed"},
		"merge_concepts":  {"sources": []string{"Rye Flour"}, "target": "Sourdough", "dry_run": false, "force": true},
		"delete_concept":  {"concept": "Sourdough", "unlink": true},
		"create_relation": {"from": "Sourdough", "type": "uses", "to": "Rye Flour"},
		"update_relation": {"id": "r_0000", "weight": 2},
		"delete_relation": {"id": "r_0000"},
		"sync":            {"rebuild": true},
		"undo_operation":  {"id": "op_0000"},
	}
)

// TestScopedTokens runs `noema serve` with two vaults and a token file
// over real HTTP, and drives it with the go-sdk client: every tool called
// with a vault its token is not scoped to is not_found, in the words of a
// vault that does not exist; nothing of one vault appears in what the
// other's token reads (tools and resources); a read-only token changes
// nothing, whatever it calls.
func TestScopedTokens(t *testing.T) {
	root := t.TempDir()
	work, home := filepath.Join(root, "w"), filepath.Join(root, "h")
	writeVault(t, work, workNotes)
	writeVault(t, home, homeNotes)
	scopedTokens(t, work, home)
}

// TestScopedTokensOnPostgres is TestScopedTokens with both vaults in one
// PostgreSQL database: --store names the database without a vault, and
// each served vault follows the database's vault of its name.
func TestScopedTokensOnPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	if _, err := postgres.Migrate(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for name, notes := range map[string]map[string]string{"work": workNotes, "home": homeNotes} {
		seed := filepath.Join(root, "seed-"+name)
		writeVault(t, seed, notes)
		if out, code := run(t, seed, "", "vault", "push", "--to", pgtest.StoreURL(t, dsn, name)); code != 0 {
			t.Fatalf("push %s: exit %d: %s", name, code, out)
		}
	}
	work, home := filepath.Join(root, "w"), filepath.Join(root, "h")
	scopedTokens(t, work, home, "--store", dsn)
	for name, notes := range map[string]map[string]string{"work": workNotes, "home": homeNotes} {
		st, err := postgres.OpenStore(context.Background(), pgtest.StoreURL(t, dsn, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := storeFiles(t, st)
		st.Close()
		for path, text := range notes {
			if string(got[path]) != text {
				t.Errorf("vault %s of the database: %s holds %q, want %q", name, path, got[path], text)
			}
		}
		if name == "home" && len(got) != len(notes) {
			t.Errorf("vault home of the database holds %d files, want its %d: %v", len(got), len(notes), slices.Collect(maps.Keys(got)))
		}
		if name == "work" && got["Allowed.md"] == nil {
			t.Errorf("the work token's note is not in the database's vault work")
		}
	}
	// Two vaults may not follow one vault of the database.
	_, stderr, code, err := execute("a="+filepath.Join(root, "a"), "", "--vault", "b="+filepath.Join(root, "b"),
		"--store", pgtest.StoreURL(t, dsn, "shared"), "serve", "--addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if want := `invalid_argument: vaults a and b would both follow vault "shared" of the same store`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("two vaults on one vault of the database: exit %d, %q; want 1 and %q", code, stderr, want)
	}
}

// scopedTokens serves vaults work and home from their folders (with
// storeArgs, working copies of a store) and checks what each token may do.
func scopedTokens(t *testing.T, work, home string, storeArgs ...string) {
	root := t.TempDir()
	tokenPath := filepath.Join(root, "tokens.yaml")
	if err := os.WriteFile(tokenPath, []byte(vaultTokens), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--vault", "home=" + home, "--token-file", tokenPath, "--token", "admin-token-77aa"}, storeArgs...)
	base := serve(t, "work="+work, args...)
	url := base + "/mcp"
	admin := tokenSession(t, url, "admin-token-77aa")
	workRW := tokenSession(t, url, "work-token-8f3a")
	homeRO := tokenSession(t, url, "home-token-2c9d")

	// The servers index their folders in the background: wait for both.
	for _, v := range []string{"work", "home"} {
		deadline := time.Now().Add(time.Minute)
		for {
			text, isErr := answer(t, admin, "list_notes", map[string]any{"vault": v})
			if !isErr && strings.Count(text, `"uri"`) >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("vault %s not indexed after a minute: %s", v, text)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	workSum, homeSum := treeSum(t, work), treeSum(t, home)

	// Every MCP tool is in one of the tables.
	all := tools.MCPTools()
	for _, tool := range all {
		_, r := readArgs[tool.Name]
		_, w := writeArgs[tool.Name]
		if r == w || r != tool.Hints.ReadOnly {
			t.Errorf("%s (read-only %v): give it arguments in readArgs (read-only tools) or writeArgs (the others)", tool.Name, tool.Hints.ReadOnly)
		}
	}
	argsOf := func(name string) map[string]any {
		args := map[string]any{}
		for k, v := range readArgs[name] {
			args[k] = v
		}
		for k, v := range writeArgs[name] {
			args[k] = v
		}
		return args
	}
	with := func(args map[string]any, vault string) map[string]any {
		out := map[string]any{"vault": vault}
		for k, v := range args {
			out[k] = v
		}
		return out
	}

	t.Run("list_vaults", func(t *testing.T) {
		for _, c := range []struct {
			name string
			cs   *mcp.ClientSession
			want string
		}{
			{"--token", admin, `[{"default":true,"name":"work","read_only":false},{"default":false,"name":"home","read_only":false}]`},
			{"work-writer", workRW, `[{"default":true,"name":"work","read_only":false}]`},
			{"home-reader", homeRO, `[{"default":true,"name":"home","read_only":true}]`},
		} {
			ctx := context.Background()
			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_vaults", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %v", c.name, err, res)
			}
			var out struct {
				Vaults json.RawMessage `json:"vaults"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			if string(out.Vaults) != c.want {
				t.Errorf("%s: list_vaults %s, want %s", c.name, out.Vaults, c.want)
			}
		}
	})

	// Out of scope is not found: every tool, the work token naming home.
	t.Run("wrong vault", func(t *testing.T) {
		for _, tool := range all {
			args := argsOf(tool.Name)
			got, isErr := answer(t, workRW, tool.Name, with(args, "home"))
			ghost, _ := answer(t, workRW, tool.Name, with(args, "ghost"))
			if !isErr || !strings.HasPrefix(got, `not_found: no vault named "home"`) {
				t.Errorf("%s with vault home and the work token: %q, want not_found", tool.Name, got)
			}
			if got != strings.ReplaceAll(ghost, "ghost", "home") {
				t.Errorf("%s: an out-of-scope vault answers %q, a missing one %q: a token can tell them apart", tool.Name, got, ghost)
			}
			got2, isErr := answer(t, homeRO, tool.Name, with(args, "work"))
			if !isErr || !strings.HasPrefix(got2, `not_found: no vault named "work"`) {
				t.Errorf("%s with vault work and the home token: %q, want not_found", tool.Name, got2)
			}
			t.Logf("%-22s work-writer, vault=home → %s", tool.Name, got)
		}
	})

	// Nothing of one vault in what the other's token reads.
	t.Run("nothing leaks", func(t *testing.T) {
		for _, tool := range all {
			if !tool.Hints.ReadOnly {
				continue
			}
			args := readArgs[tool.Name]
			got, _ := answer(t, workRW, tool.Name, args)
			for _, m := range homeMarkers {
				if strings.Contains(got, m) {
					t.Errorf("%s: the work token's answer holds %q of the home vault: %s", tool.Name, m, got)
				}
			}
			own, isErr := answer(t, homeRO, tool.Name, args)
			for _, m := range workMarkers {
				if strings.Contains(own, m) {
					t.Errorf("%s: the home token's answer holds %q of the work vault: %s", tool.Name, m, own)
				}
			}
			if slices.Contains(ownAnswers, tool.Name) && (isErr || !strings.Contains(own, "Sourdough")) {
				t.Errorf("%s on the home vault itself: %q, want an answer about Sourdough", tool.Name, own)
			}
		}
	})

	t.Run("resources", func(t *testing.T) {
		ctx := context.Background()
		read := func(cs *mcp.ClientSession, uri string) (string, error) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, c := range res.Contents {
				b.WriteString(c.URI + "\n" + c.Text)
			}
			return b.String(), nil
		}
		for _, uri := range []string{"memory://Sourdough Bread", "noema://status", "noema://concepts", "noema://concepts?text=sour", "noema://graph/export", "noema://graph/export?format=graphml"} {
			sep := "?"
			if strings.Contains(uri, "?") {
				sep = "&"
			}
			if _, err := read(workRW, uri+sep+"vault=home"); err == nil {
				t.Errorf("%s%svault=home read with the work token", uri, sep)
			} else {
				t.Logf("work-writer reads %s%svault=home → %v", uri, sep, err)
			}
			if _, err := read(homeRO, uri+sep+"vault=home"); err != nil {
				t.Errorf("%s%svault=home with the home token: %v", uri, sep, err)
			}
			// The default vault of each token is its own.
			if got, err := read(workRW, uri); err == nil && containsAny(got, homeMarkers) {
				t.Errorf("%s with the work token holds the home vault's notes: %s", uri, got)
			}
		}
		// Out of scope, missing, and a missing note of one's own vault read alike.
		_, errOut := read(workRW, "memory://Sourdough Bread?vault=home")
		_, errGhost := read(workRW, "memory://Sourdough Bread?vault=ghost")
		_, errNote := read(workRW, "memory://No Such Note")
		if errOut == nil || errGhost == nil || errNote == nil || errOut.Error() != errGhost.Error() || errOut.Error() != errNote.Error() {
			t.Errorf("a note of an out-of-scope vault: %v; of a missing vault: %v; a missing note: %v; want one error", errOut, errGhost, errNote)
		}
		got, err := read(homeRO, "memory://Sourdough Bread?vault=home")
		if err != nil || !strings.HasPrefix(got, "memory://Sourdough Bread?vault=home\n") || !strings.Contains(got, "HOMEMARKER") {
			t.Errorf("the home note by its vault URI: %q, %v", got, err)
		}
		if got, err := read(admin, "noema://graph/export?vault=home"); err != nil || !strings.Contains(got, "Sourdough") || containsAny(got, workMarkers) {
			t.Errorf("the home vault's export for --token: %v %.200s", err, got)
		}
	})

	t.Run("read-only token", func(t *testing.T) {
		for _, tool := range all {
			if tool.Hints.ReadOnly {
				continue
			}
			for _, vault := range []string{"", "home"} {
				args := argsOf(tool.Name)
				if vault != "" {
					args = with(args, vault)
				}
				got, isErr := answer(t, homeRO, tool.Name, args)
				if !isErr || !strings.HasPrefix(got, "read_only: this token may only read") {
					t.Errorf("%s with the read-only token: %q, want read_only", tool.Name, got)
				}
				if vault == "" {
					t.Logf("%-16s home-reader → %s", tool.Name, got)
				}
			}
		}
		ctx := context.Background()
		res, err := homeRO.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if !tool.Annotations.ReadOnlyHint {
				t.Errorf("the read-only token's tools/list shows %s", tool.Name)
			}
		}
	})

	// A client of an earlier protocol revision keeps a session: the same
	// scope on every request, and another token cannot use its session.
	t.Run("session", func(t *testing.T) {
		status, session, _ := rpc(t, url, "work-token-8f3a", "", initBody)
		if status != 200 || session == "" {
			t.Fatalf("initialize: status %d, session %q", status, session)
		}
		rpc(t, url, "work-token-8f3a", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_vaults","arguments":{}}}`
		if _, _, body := rpc(t, url, "work-token-8f3a", session, call); !strings.Contains(body, `\"name\":\"work\"`) && !strings.Contains(body, `"name":"work"`) || strings.Contains(body, "home") {
			t.Errorf("list_vaults in the work token's session: %s", body)
		}
		call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{"vault":"home"}}}`
		if _, _, body := rpc(t, url, "work-token-8f3a", session, call); !strings.Contains(body, `not_found: no vault named \"home\"`) {
			t.Errorf("status of home in the work token's session: %s", body)
		}
		// A resource of an out-of-scope vault is "Resource not found" with the
		// code of the session's revision, as a missing note is.
		for _, uri := range []string{"memory://Sourdough Bread?vault=home", "memory://No Such Note"} {
			read := `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"` + uri + `"}}`
			if _, _, body := rpc(t, url, "work-token-8f3a", session, read); !strings.Contains(body, `"code":-32002`) || !strings.Contains(body, "Resource not found") {
				t.Errorf("%s in a 2025-06-18 session: %s; want Resource not found, -32002", uri, body)
			}
		}
		if status, _, body := rpc(t, url, "home-token-2c9d", session, call); status != http.StatusForbidden {
			t.Errorf("the home token in the work token's session: status %d, %s; want 403", status, body)
		}
	})

	// Nothing the refused calls carried reached a file.
	if treeSum(t, home) != homeSum || treeSum(t, work) != workSum {
		t.Error("a refused call changed a vault's files")
	}
	// And the work token may write its own vault (its refusals above were
	// about the vault, not about writing).
	if got, isErr := answer(t, workRW, "write_note", map[string]any{"title": "Allowed", "content": "[[Kubernetes]] again"}); isErr {
		t.Errorf("the work token writing its own vault: %s", got)
	}
	if _, err := os.Stat(filepath.Join(work, "Allowed.md")); err != nil {
		t.Errorf("the work token's note is not in the work folder: %v", err)
	}
}

// TestStdioVaults: `noema mcp` serves several vaults too, without tokens:
// every vault is listed and usable, a write lands in the vault it names,
// and a vault that does not exist is not_found.
func TestStdioVaults(t *testing.T) {
	root := t.TempDir()
	work, home := filepath.Join(root, "w"), filepath.Join(root, "h")
	writeVault(t, work, workNotes)
	writeVault(t, home, homeNotes)
	cs := stdioClient(t, "work="+work, "--vault", "home="+home)
	ctx := context.Background()
	var vaults tools.ListVaultsOutput
	if err := callTool(ctx, cs, "list_vaults", map[string]any{}, &vaults); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(vaults.Vaults) != "[{work true false} {home false false}]" {
		t.Errorf("list_vaults = %v", vaults.Vaults)
	}
	if err := callTool(ctx, cs, "write_note", map[string]any{"vault": "home", "title": "Compost", "content": "[[Tomatoes]]"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "Compost.md")); err != nil {
		t.Errorf("the note written to vault home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "Compost.md")); err == nil {
		t.Error("the note written to vault home is in work too")
	}
	err := callTool(ctx, cs, "status", map[string]any{"vault": "ghost"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), `not_found: no vault named "ghost"`) {
		t.Errorf("status of vault ghost: %v", err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://Compost?vault=home"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "[[Tomatoes]]") {
		t.Errorf("memory://Compost?vault=home: %v %v", res, err)
	}
}

// rpc posts one JSON-RPC message with token (and session, when not
// empty) and returns the status, the session the answer names and its body.
func rpc(t *testing.T, url, token, session, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(m string) bool { return strings.Contains(s, m) })
}
