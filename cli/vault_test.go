package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema/cli"
	"github.com/noema-mem/noema/internal/noematest"
)

// TestReadOnlyOnMissingVault: a read-only command on a vault that does not
// exist says so (not_found, naming the folder) and creates nothing; a write
// creates the vault as before.
func TestReadOnlyOnMissingVault(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "nowhere", "vault")
	for _, args := range [][]string{
		{"status"}, {"note", "list"}, {"note", "recent"}, {"note", "read", "Anything"},
		{"concept", "list"}, {"concept", "find", "memory"}, {"concept", "show", "Memory"},
		{"graph", "export"}, {"graph", "node", "Memory"}, {"search", "memory"},
	} {
		var e errOut
		runJSON(t, vault, cli.ExitError, &e, args...)
		if e.Error.Code != "not_found" || !strings.Contains(e.Error.Message, "no vault at "+vault) {
			t.Errorf("%v on a missing vault: %+v", args, e.Error)
		}
		if _, err := os.Stat(filepath.Dir(vault)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%v created %s (%v)", args, filepath.Dir(vault), err)
		}
	}
	// Without --json: one line on stderr.
	_, stderr, code := runAll(t, "", "--vault", vault, "note", "list")
	if code != cli.ExitError || !strings.HasPrefix(stderr, "noema: not_found: no vault at "+vault) {
		t.Errorf("note list: exit %d, stderr %q", code, stderr)
	}
	// A write creates it.
	runJSON(t, vault, 0, nil, "note", "write", "--title", "First", "--content", "about [[Memory]]")
	var st statusOut
	runJSON(t, vault, 0, &st, "status")
	if st.Notes != 1 {
		t.Errorf("status after the first write: %+v", st)
	}
}

// TestFileAsVault: a file given as the vault is invalid_argument, for
// reads and writes alike, and is left alone.
func TestFileAsVault(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("not a vault\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, vault := range []string{file, filepath.Join(file, "sub")} {
		for _, args := range [][]string{{"status"}, {"note", "write", "--title", "X", "--content", "x"}} {
			var e errOut
			runJSON(t, vault, cli.ExitError, &e, args...)
			if e.Error.Code != "invalid_argument" || !strings.Contains(e.Error.Message, file) {
				t.Errorf("%v with --vault %s: %+v", args, vault, e.Error)
			}
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "not a vault\n" {
		t.Errorf("the file changed: %q", b)
	}
}

// TestServeAnnouncesBoundAddress: `serve` prints its URL only once the port
// is bound — with --addr 127.0.0.1:0 the URL names the port chosen, and it
// answers at once.
func TestServeAnnouncesBoundAddress(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr noematest.Buffer
	c := &cli.CLI{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr}
	done := make(chan int, 1)
	go func() { done <- c.Run(ctx, []string{"--vault", vault, "serve", "--addr", "127.0.0.1:0"}) }()
	re := regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:(\d+)/mcp)`)
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; {
		if m = re.FindStringSubmatch(stderr.String()); m == nil {
			if time.Now().After(deadline) {
				t.Fatalf("no URL printed: %q", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if m[2] == "0" {
		t.Fatalf("printed port 0: %s", m[0])
	}
	resp, err := http.Get(strings.TrimSuffix(m[1], "/mcp") + "/healthz")
	if err != nil {
		t.Fatalf("right after the URL was printed: %v", err)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != cli.ExitOK {
		t.Errorf("serve stopped with %d: %s", code, stderr.String())
	}
}

// TestServeAddressInUse: a busy port is an address_in_use error with its
// own exit status, and nothing claims to be serving.
func TestServeAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	vault := filepath.Join(t.TempDir(), "vault")
	_, stderr, code := runAll(t, "", "--vault", vault, "serve", "--addr", ln.Addr().String())
	if code != cli.ExitAddrInUse || !strings.Contains(stderr, "noema: address_in_use: "+ln.Addr().String()+" is already in use") || strings.Contains(stderr, "serving") {
		t.Errorf("serve on a busy port: exit %d, stderr %q", code, stderr)
	}
	stdout, _, code := runAll(t, "", "--vault", vault, "--json", "serve", "--addr", ln.Addr().String())
	var e errOut
	if json.Unmarshal([]byte(stdout), &e); code != cli.ExitAddrInUse || e.Error.Code != "address_in_use" {
		t.Errorf("--json serve on a busy port: exit %d, %s", code, stdout)
	}
}
