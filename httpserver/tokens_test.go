package httpserver_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/httpserver"
)

const tokenFile = `tokens:
  - name: work-agent
    token: work-secret-1
    vaults: [work]
    access: read_write
  - name: auditor
    token: audit-secret-2
    vaults: ["*"]
    access: read_only
`

func TestParseTokens(t *testing.T) {
	tokens, err := httpserver.ParseTokens([]byte(tokenFile))
	if err != nil {
		t.Fatal(err)
	}
	want := []httpserver.Token{
		{Name: "work-agent", Secret: "work-secret-1", Access: httpserver.Access{Vaults: []string{"work"}}},
		{Name: "auditor", Secret: "audit-secret-2", Access: httpserver.Access{ReadOnly: true}},
	}
	if fmt.Sprint(tokens) != fmt.Sprint(want) {
		t.Errorf("tokens = %+v, want %+v", tokens, want)
	}
	if !tokens[1].Access.Allows("anything") || tokens[0].Access.Allows("home") || !tokens[0].Access.Allows("work") {
		t.Error("Allows disagrees with the file")
	}
}

// TestParseTokensRefuses: every malformed file is invalid_argument naming
// the line and what is wrong.
func TestParseTokensRefuses(t *testing.T) {
	entry := func(fields string) string { return "tokens:\n  - " + fields + "\n" }
	scenarios := []struct {
		Name, File, Want string
	}{
		{"empty", "", "empty"},
		{"no tokens", "tokens: []\n", "lists no tokens"},
		{"not yaml", "tokens: [\n", "line"},
		{"unknown key", entry("{name: a, token: abcdefgh, vaults: [w], access: read_only, role: admin}"), "field role not found"},
		{"top-level typo", "tokenz: []\n", "field tokenz not found"},
		{"no name", entry("{token: abcdefgh, vaults: [w], access: read_only}"), "line 2: name is required"},
		{"no token", entry("{name: a, vaults: [w], access: read_only}"), "line 2: token is required"},
		{"no vaults", entry("{name: a, token: abcdefgh, access: read_only}"), "line 2: vaults is required"},
		{"no access", entry("{name: a, token: abcdefgh, vaults: [w]}"), "line 2: access is required"},
		{"bad access", entry("{name: a, token: abcdefgh, vaults: [w], access: rw}"), `line 2: access "rw": want read_only or read_write`},
		{"spaced token", entry("{name: a, token: 'ab cd', vaults: [w], access: read_only}"), "printable ASCII"},
		{"star and more", entry(`{name: a, token: abcdefgh, vaults: ["*", w], access: read_only}`), "grants every vault"},
		{"name twice", "tokens:\n  - {name: a, token: abcdefgh, vaults: [w], access: read_only}\n  - {name: a, token: ijklmnop, vaults: [w], access: read_only}\n", `line 3: name "a" is given twice`},
		{"token twice", "tokens:\n  - {name: a, token: abcdefgh, vaults: [w], access: read_only}\n  - {name: b, token: abcdefgh, vaults: [w], access: read_only}\n", `line 3: the token of "b" is also the token of "a"`},
	}
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			_, err := httpserver.ParseTokens([]byte(s.File))
			if err == nil {
				t.Fatal("accepted")
			}
			if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), s.Want) {
				t.Errorf("error %q, want invalid_argument containing %q", err, s.Want)
			}
		})
	}
}

func TestLoadTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(path, []byte(tokenFile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, warning, err := httpserver.LoadTokenFile(path)
	if err != nil || !strings.Contains(warning, "readable by others") {
		t.Errorf("mode 644: warning %q, err %v; want a warning", warning, err)
	}
	os.Chmod(path, 0o600)
	if _, warning, err = httpserver.LoadTokenFile(path); err != nil || warning != "" {
		t.Errorf("mode 600: warning %q, err %v; want none", warning, err)
	}
	os.WriteFile(path, []byte("tokens: [{name: a}]\n"), 0o600)
	if _, _, err = httpserver.LoadTokenFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("malformed: %v, want an error naming the file", err)
	}
	if _, _, err = httpserver.LoadTokenFile(path + ".missing"); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("missing: %v, want invalid_argument", err)
	}
}

// TestTokenAccess: each token's requests carry its access to the handler
// (what the web view and the MCP server read); a request with --token's
// token may do everything; an unknown token is 401.
func TestTokenAccess(t *testing.T) {
	tokens, err := httpserver.ParseTokens([]byte(tokenFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan httpserver.Access, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- httpserver.AccessFromContext(r.Context())
	})
	ts, _ := startServer(t, httpserver.Options{Token: token, Tokens: tokens}, h)
	scenarios := []struct {
		Name, Bearer string
		Status       int
		Want         httpserver.Access
	}{
		{"scoped", "work-secret-1", 200, httpserver.Access{Vaults: []string{"work"}}},
		{"read-only", "audit-secret-2", 200, httpserver.Access{ReadOnly: true}},
		{"--token", token, 200, httpserver.Access{}},
		{"unknown", "work-secret-", 401, httpserver.Access{}},
		{"none", "", 401, httpserver.Access{}},
	}
	for _, s := range scenarios {
		t.Run(s.Name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL+httpserver.DefaultPath, nil)
			if s.Bearer != "" {
				req.Header.Set("Authorization", "Bearer "+s.Bearer)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != s.Status {
				t.Fatalf("status %d, want %d", resp.StatusCode, s.Status)
			}
			if s.Status == 200 {
				if got := <-seen; fmt.Sprint(got) != fmt.Sprint(s.Want) {
					t.Errorf("access %+v, want %+v", got, s.Want)
				}
			}
		})
	}
	if _, err := httpserver.New(h, httpserver.Options{Token: "work-secret-1", Tokens: tokens}); err == nil {
		t.Error("--token equal to a file's token accepted")
	}
	if _, err := httpserver.New(h, httpserver.Options{Addr: "0.0.0.0:0", Tokens: tokens}); err != nil {
		t.Errorf("a token file alone should allow listening beyond loopback: %v", err)
	}
}

func FuzzParseTokens(f *testing.F) {
	f.Add([]byte(tokenFile))
	f.Add([]byte("tokens: [{name: a, token: b, vaults: ['*'], access: read_only}]"))
	f.Add([]byte("tokens:\n  - name: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens, err := httpserver.ParseTokens(data)
		if err != nil {
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Fatalf("error without invalid_argument: %v", err)
			}
			return
		}
		names := map[string]bool{}
		for _, tk := range tokens {
			if tk.Name == "" || names[tk.Name] || httpserver.CheckToken(tk.Secret) != nil {
				t.Fatalf("accepted a bad token %+v", tk)
			}
			names[tk.Name] = true
		}
	})
}
