package noema_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/noema-mem/noema"

// TestLayering checks the dependency rule of the layout (issue 22: ports
// at the root, adapters beside them): the root package, which declares the
// ports, imports only the standard library; the adapters (sqlite, vault)
// import nothing of noema but the root and internal leaves, so that a
// second store or index links none of the services, embedders or
// configuration; and the services (search, semantic, concepts, notes,
// relations, recall, graph) reach their index, the indexer and the
// embedder through the root ports, never through an adapter, the indexer
// or an embedder backend.
func TestLayering(t *testing.T) {
	deps := listDeps(t, ".", "./sqlite", "./vault", "./search", "./semantic", "./concepts", "./notes", "./relations", "./recall", "./graph", "./importer", "./app")

	for _, d := range deps[module] {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
			t.Errorf("the root package depends on %s; it may import only the standard library", d)
		}
	}

	// Stricter than issue 22's check (no embedding, search, graph,
	// semantic or config): no package of noema but the root and the
	// internal leaves.
	for _, adapter := range []string{"sqlite", "vault"} {
		for _, d := range ours(deps[module+"/"+adapter]) {
			if d != "" && !strings.HasPrefix(d, "internal/") {
				t.Errorf("%s depends on %s; an adapter may import only the root (and internal leaves)", adapter, d)
			}
		}
	}

	for _, service := range []string{"search", "semantic", "concepts", "notes", "relations", "recall", "graph", "importer"} {
		for _, d := range ours(deps[module+"/"+service]) {
			if slices.ContainsFunc([]string{"embedding", "sqlite", "config", "app", "indexer"}, under(d)) {
				t.Errorf("%s depends on %s; a service reaches the index and the embedder through the root ports", service, d)
			}
		}
	}

	// The check must see what it checks: app wires the adapters and the
	// embedder factory, so its dependencies hold all of them.
	for _, want := range []string{"sqlite", "vault", "config", "embedding/bert"} {
		if !slices.Contains(ours(deps[module+"/app"]), want) {
			t.Errorf("app's dependencies, as go list reports them, lack %s: the layering check reads them wrong", want)
		}
	}
}

// listDeps returns the transitive dependencies of each package, by import
// path, as the go command lists them (test files left out).
func listDeps(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the layering check needs the go command: %v", err)
	}
	args := append([]string{"list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`}, pkgs...)
	var stderr bytes.Buffer
	cmd := exec.Command(goCmd, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 0 {
			deps[fields[0]] = fields[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(deps) != len(pkgs) {
		t.Fatalf("go list answered for %d packages, want %d:\n%s", len(deps), len(pkgs), out)
	}
	return deps
}

// ours returns the packages of this module among deps, relative to the
// module ("" for the root).
func ours(deps []string) []string {
	var out []string
	for _, d := range deps {
		if d == module {
			out = append(out, "")
		} else if rel, ok := strings.CutPrefix(d, module+"/"); ok {
			out = append(out, rel)
		}
	}
	return out
}

// under returns a test of whether a module-relative package is pkg or
// below it.
func under(pkg string) func(string) bool {
	return func(top string) bool { return pkg == top || strings.HasPrefix(pkg, top+"/") }
}
