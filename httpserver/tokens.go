package httpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.yaml.in/yaml/v3"

	"github.com/noema-mem/noema"
)

// Token is one bearer token a server accepts and what it may do.
type Token struct {
	// Name names the token in logs and in session checks (never the
	// secret itself). Unique among a server's tokens.
	Name string
	// Secret is what clients send: "Authorization: Bearer <Secret>".
	// Printable ASCII without spaces.
	Secret string
	Access Access
}

// Access is what a request may do: which vaults it may use, and whether
// it may change them. The zero Access may do everything (a request
// without a token on a server that needs none, or with --token).
type Access struct {
	// Vaults the request may use, by name; nil: every vault. A vault not
	// listed must look to the request as if it did not exist.
	Vaults []string
	// ReadOnly requests may not call tools that change a vault.
	ReadOnly bool
}

// AllVaults is the Vaults entry of a token file that grants every vault.
const AllVaults = "*"

// Allows reports whether a may use the vault named name.
func (a Access) Allows(name string) bool {
	return a.Vaults == nil || slices.Contains(a.Vaults, name)
}

// accessKey is where the request's Access travels in an [auth.TokenInfo].
const accessKey = "noema.access"

// AccessOf returns the Access of a request whose token info is ti (the
// MCP SDK's RequestExtra.TokenInfo, or [auth.TokenInfoFromContext] of an
// HTTP request): everything when ti is nil (no token needed or given).
func AccessOf(ti *auth.TokenInfo) Access {
	if ti == nil {
		return Access{}
	}
	if a, ok := ti.Extra[accessKey].(Access); ok {
		return a
	}
	return Access{}
}

// AccessFromContext returns the Access of the HTTP request whose context
// is ctx, once the server's token check has passed it (a handler behind
// [Server]'s chain): the same Access an MCP call with the same token gets.
func AccessFromContext(ctx context.Context) Access {
	return AccessOf(auth.TokenInfoFromContext(ctx))
}

// tokenFile is the schema of a --token-file.
type tokenFile struct {
	Tokens []struct {
		Name   string   `yaml:"name"`
		Token  string   `yaml:"token"`
		Vaults []string `yaml:"vaults"`
		Access string   `yaml:"access"`
	} `yaml:"tokens"`
}

// Access values of a token file.
const (
	ReadWrite = "read_write"
	ReadOnly  = "read_only"
)

// LoadTokenFile reads a token file (YAML; see docs/vaults.md):
//
//	tokens:
//	  - name: work-agent          # unique; shown in logs instead of the token
//	    token: 6f1c…              # what the client sends as its bearer token
//	    vaults: [work]            # the vaults it may use; ["*"]: all
//	    access: read_write        # or read_only
//
// Every key is required and no other is allowed. A malformed file is
// invalid_argument naming the file, the line and what is wrong. warning is
// not empty when others than the owner may read the file.
func LoadTokenFile(path string) (tokens []Token, warning string, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", noema.Errorf(noema.EINVALID, "token file %s does not exist", path)
		}
		return nil, "", fmt.Errorf("read token file: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o044 != 0 {
		warning = fmt.Sprintf("token file %s is readable by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return nil, "", fmt.Errorf("read token file: %w", err)
	}
	if len(data) > 1<<20 {
		return nil, "", noema.Errorf(noema.EINVALID, "token file %s is larger than 1 MiB", path)
	}
	tokens, err = ParseTokens(data)
	if err != nil {
		return nil, "", noema.Errorf(noema.EINVALID, "token file %s: %s", path, noema.ErrorMessage(err))
	}
	return tokens, warning, nil
}

// ParseTokens parses the contents of a token file (see [LoadTokenFile]).
func ParseTokens(data []byte) ([]Token, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var file tokenFile
	if err := dec.Decode(&file); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, noema.Errorf(noema.EINVALID, "empty: it must list tokens")
		}
		return nil, noema.Errorf(noema.EINVALID, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// The line of each entry, to name it in errors.
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	lines := entryLines(&root)
	if len(file.Tokens) == 0 {
		return nil, noema.Errorf(noema.EINVALID, "it lists no tokens (want tokens: [{name, token, vaults, access}])")
	}
	var tokens []Token
	names, secrets := map[string]bool{}, map[string]string{}
	for i, e := range file.Tokens {
		where := fmt.Sprintf("token %d", i+1)
		if i < len(lines) {
			where = fmt.Sprintf("line %d", lines[i])
		}
		fail := func(format string, args ...any) error {
			return noema.Errorf(noema.EINVALID, "%s: %s", where, fmt.Sprintf(format, args...))
		}
		switch {
		case e.Name == "":
			return nil, fail("name is required")
		case names[e.Name]:
			return nil, fail("name %q is given twice", e.Name)
		case e.Token == "":
			return nil, fail("token is required")
		case secrets[e.Token] != "":
			return nil, fail("the token of %q is also the token of %q", e.Name, secrets[e.Token])
		case len(e.Vaults) == 0:
			return nil, fail("vaults is required: the vaults %q may use, or [\"*\"] for all", e.Name)
		}
		if err := CheckToken(e.Token); err != nil {
			return nil, fail("the token of %q: %s", e.Name, noema.ErrorMessage(err))
		}
		names[e.Name], secrets[e.Token] = true, e.Name
		t := Token{Name: e.Name, Secret: e.Token}
		switch e.Access {
		case ReadWrite:
		case ReadOnly:
			t.Access.ReadOnly = true
		case "":
			return nil, fail("access is required: %s or %s", ReadOnly, ReadWrite)
		default:
			return nil, fail("access %q: want %s or %s", e.Access, ReadOnly, ReadWrite)
		}
		if !slices.Contains(e.Vaults, AllVaults) {
			t.Access.Vaults = slices.Clone(e.Vaults)
		} else if len(e.Vaults) > 1 {
			return nil, fail("vaults: %q grants every vault; list no other", AllVaults)
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// entryLines returns the line of each entry of the file's tokens list.
func entryLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "tokens" && m.Content[i+1].Kind == yaml.SequenceNode {
			var lines []int
			for _, n := range m.Content[i+1].Content {
				lines = append(lines, n.Line)
			}
			return lines
		}
	}
	return nil
}

// CheckToken refuses a token that cannot travel in an Authorization
// header: empty, or with anything but printable ASCII without spaces.
func CheckToken(token string) error {
	if token == "" {
		return noema.Errorf(noema.EINVALID, "empty token")
	}
	for _, c := range token {
		if c <= ' ' || c > '~' {
			return noema.Errorf(noema.EINVALID, "invalid token: use printable ASCII without spaces")
		}
	}
	return nil
}

// tokenHash is a token as the server keeps it.
type tokenHash struct {
	name   string
	sum    [sha256.Size]byte
	access Access
}

// tokenName is the name of Options.Token in logs and session checks.
const tokenName = "token"

// hashTokens checks the server's tokens and keeps their sums.
func hashTokens(token string, tokens []Token) ([]tokenHash, error) {
	var out []tokenHash
	if token != "" {
		if err := CheckToken(token); err != nil {
			return nil, err
		}
		out = append(out, tokenHash{name: tokenName, sum: sha256.Sum256([]byte(token))})
	}
	for _, t := range tokens {
		if err := CheckToken(t.Secret); err != nil {
			return nil, noema.Errorf(noema.EINVALID, "token %q: %s", t.Name, noema.ErrorMessage(err))
		}
		if t.Secret == token || slices.ContainsFunc(out, func(h tokenHash) bool { return h.name == t.Name }) {
			return nil, noema.Errorf(noema.EINVALID, "token %q: its name or secret is another token's", t.Name)
		}
		out = append(out, tokenHash{name: t.Name, sum: sha256.Sum256([]byte(t.Secret)), access: t.Access})
	}
	return out, nil
}

// match returns the token whose secret a request's credential is,
// comparing SHA-256 sums in constant time against every token (so that
// neither the token's length nor which token came close leaks).
func match(tokens []tokenHash, cred string) (*tokenHash, bool) {
	got := sha256.Sum256([]byte(cred))
	var found *tokenHash
	for i := range tokens {
		if subtle.ConstantTimeCompare(got[:], tokens[i].sum[:]) == 1 {
			found = &tokens[i]
		}
	}
	return found, found != nil
}

// withAccess puts the access of the token t into the request's context
// as the MCP SDK's token info: the SDK hands it to every call the request
// carries (RequestExtra.TokenInfo), and pins a session to the token that
// opened it (its UserID), so that another token cannot use that session.
// It fails only when the SDK does not read the credential the server's own
// check read, which the caller refuses.
func withAccess(r *http.Request, t *tokenHash) (*http.Request, bool) {
	ti := &auth.TokenInfo{UserID: t.name, Extra: map[string]any{accessKey: t.access}}
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil }
	var out *http.Request
	auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(
		http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { out = r }),
	).ServeHTTP(discard{}, r)
	return out, out != nil
}

// discard is a ResponseWriter for withAccess, which never writes (the
// token was checked before).
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
