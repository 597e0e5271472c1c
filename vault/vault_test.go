package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/treetest"
)

func mustOpen(t *testing.T) *Vault {
	t.Helper()
	v, err := Open(filepath.Join(t.TempDir(), "vault"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
}

func writeRaw(t *testing.T, v *Vault, rel, data string) {
	t.Helper()
	treetest.Write(t, v.Root, rel, data)
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := noema.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	v, err := Open(filepath.Join(dir, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(v.Root); err != nil || !fi.IsDir() || !filepath.IsAbs(v.Root) {
		t.Errorf("root %q not created: %v", v.Root, err)
	}
	// A vault opened through a symbolic link has its real path as Root.
	link := filepath.Join(dir, "link")
	symlink(t, filepath.Join(dir, "a"), link)
	v2, err := Open(filepath.Join(link, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if v2.Root != v.Root {
		t.Errorf("Root via link = %q, want %q", v2.Root, v.Root)
	}
	if _, err := Open(""); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("Open(\"\") = %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(file); err == nil {
		t.Errorf("Open(file) succeeded")
	}
}

func TestRel(t *testing.T) {
	v := &Vault{Root: "/vault"}
	ok := []struct{ in, want string }{
		{"a.md", "a.md"},
		{"notes/a b.md", "notes/a b.md"},
		{"./notes//a.md", "notes/a.md"},
		{"notes/./a.md", "notes/a.md"},
		{"notes/", "notes"},
		{"日本語/メモ.md", "日本語/メモ.md"},
		{"a..b.md", "a..b.md"},
		{"...md", ""}, // starts with '.': refused below
	}
	for _, tt := range ok {
		if tt.want == "" {
			continue
		}
		got, err := v.Rel(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	bad := []string{
		"", ".", "./", "/", "../x", "a/../../x", "a/..", "..", "/etc/passwd", `C:\x`, "C:/x", "c:x", `\\server\share`,
		"//server/share", `a\b.md`, "a\x00b.md", "a\xffb.md", ".noema/index.db", ".git/config", "notes/.obsidian/x.md",
		".hidden.md", "notes/.draft.md", "...md",
	}
	for _, in := range bad {
		if got, err := v.Rel(in); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("Rel(%q) = %q, %v; want EINVALID", in, got, err)
		}
	}
}

func TestAbsConfinement(t *testing.T) {
	v := mustOpen(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
	writeRaw(t, v, "inside/real.md", "real")

	symlink(t, outside, filepath.Join(v.Root, "escape"))                                  // dir pointing outside
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(v.Root, "secret.md"))   // file pointing outside
	symlink(t, filepath.Join("inside", "real.md"), filepath.Join(v.Root, "alias.md"))     // relative, inside
	symlink(t, "inside", filepath.Join(v.Root, "dirlink"))                                // dir inside
	symlink(t, filepath.Join(v.Root, "missing.md"), filepath.Join(v.Root, "dangling.md")) // broken

	for _, rel := range []string{"escape/secret.md", "escape/new/deeper.md", "escape", "secret.md", "dangling.md"} {
		_, err := v.Abs(rel)
		wantCode(t, "Abs("+rel+")", err, noema.EINVALID)
		_, _, err = v.ReadFile(rel)
		wantCode(t, "ReadFile("+rel+")", err, noema.EINVALID)
		err = unlocked(v).WriteFile(rel, []byte("x"), true)
		wantCode(t, "WriteFile("+rel+")", err, noema.EINVALID)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(b) != "secret" {
		t.Errorf("file outside the vault was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Errorf("a folder was created outside the vault")
	}
	for _, rel := range []string{"alias.md", "dirlink/real.md", "new/note.md", "inside/real.md"} {
		abs, err := v.Abs(rel)
		if err != nil || abs != filepath.Join(v.Root, filepath.FromSlash(rel)) {
			t.Errorf("Abs(%q) = %q, %v", rel, abs, err)
		}
	}
	if b, _, err := v.ReadFile("alias.md"); err != nil || string(b) != "real" {
		t.Errorf("ReadFile(alias.md) = %q, %v", b, err)
	}
	for _, rel := range []string{"../x.md", "a/../../x.md", "/etc/passwd", `C:\x`, "a\x00.md"} {
		_, err := v.Abs(rel)
		wantCode(t, "Abs("+rel+")", err, noema.EINVALID)
	}
}

func TestReadFile(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "notes/a.md", "hello")
	b, info, err := v.ReadFile("notes/a.md")
	if err != nil || string(b) != "hello" || info.Size() != 5 {
		t.Errorf("ReadFile = %q, %v, %v", b, info, err)
	}
	_, _, err = v.ReadFile("notes/missing.md")
	wantCode(t, "missing", err, noema.ENOTFOUND)
	_, _, err = v.ReadFile("missing/dir/x.md")
	wantCode(t, "missing dir", err, noema.ENOTFOUND)
	_, _, err = v.ReadFile("notes")
	wantCode(t, "folder", err, noema.EINVALID)
	_, _, err = v.ReadFile("../a.md")
	wantCode(t, "traversal", err, noema.EINVALID)
}

// dotFiles lists the dot-files left anywhere in the vault (temp files).
// dotFiles returns the dot-files and dot-folders below root, but for
// .noema itself (the vault's own state: its write lock and change log),
// whose contents are checked like any folder's.
func dotFiles(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && p != root && p != filepath.Join(root, ".noema") {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestWriteFile(t *testing.T) {
	v := mustOpen(t)
	if err := unlocked(v).WriteFile("deep/er/note.md", []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, "deep", "er", "note.md")); string(b) != "one" {
		t.Errorf("content = %q", b)
	}
	err := unlocked(v).WriteFile("deep/er/note.md", []byte("two"), false)
	wantCode(t, "create existing", err, noema.ECONFLICT)
	if b, _ := os.ReadFile(filepath.Join(v.Root, "deep", "er", "note.md")); string(b) != "one" {
		t.Errorf("content after conflict = %q", b)
	}
	if runtime.GOOS != "windows" {
		os.Chmod(filepath.Join(v.Root, "deep", "er", "note.md"), 0o600)
	}
	if err := unlocked(v).WriteFile("deep/er/note.md", []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(v.Root, "deep", "er", "note.md"))
	if b, _ := os.ReadFile(filepath.Join(v.Root, "deep", "er", "note.md")); string(b) != "three" {
		t.Errorf("content after overwrite = %q", b)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after overwrite = %v, want 0600 kept", fi.Mode().Perm())
	}
	if err := unlocked(v).WriteFile("empty.md", nil, false); err != nil {
		t.Fatal(err)
	}
	if left := dotFiles(t, v.Root); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	os.Mkdir(filepath.Join(v.Root, "dir.md"), 0o755)
	wantCode(t, "write over folder", unlocked(v).WriteFile("dir.md", []byte("x"), true), noema.EINVALID)
	wantCode(t, "write into .noema", unlocked(v).WriteFile(".noema/x.md", []byte("x"), true), noema.EINVALID)
	wantCode(t, "write traversal", unlocked(v).WriteFile("../x.md", []byte("x"), true), noema.EINVALID)
}

func TestWriteFileCreateRace(t *testing.T) {
	v := mustOpen(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = unlocked(v).WriteFile("race/note.md", []byte(fmt.Sprintf("writer %d", i)), false)
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch noema.ErrorCode(err) {
		case "":
			if winner >= 0 {
				t.Errorf("writers %d and %d both created the note", winner, i)
			}
			winner = i
		case noema.ECONFLICT:
		default:
			t.Errorf("writer %d: %v", i, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(v.Root, "race", "note.md"))
	if winner < 0 || string(b) != fmt.Sprintf("writer %d", winner) {
		t.Errorf("winner %d, content %q", winner, b)
	}
	if left := dotFiles(t, v.Root); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestRemove(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "a.md", "x")
	if err := unlocked(v).Remove("a.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.Root, "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a.md still there: %v", err)
	}
	wantCode(t, "remove missing", unlocked(v).Remove("a.md"), noema.ENOTFOUND)
	os.Mkdir(filepath.Join(v.Root, "dir"), 0o755)
	wantCode(t, "remove folder", unlocked(v).Remove("dir"), noema.EINVALID)
	wantCode(t, "remove traversal", unlocked(v).Remove("../a.md"), noema.EINVALID)
}

func TestRename(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "a.md", "A")
	writeRaw(t, v, "b.md", "B")
	wantCode(t, "rename onto existing", unlocked(v).Rename("a.md", "b.md"), noema.ECONFLICT)
	wantCode(t, "rename missing", unlocked(v).Rename("zz.md", "c.md"), noema.ENOTFOUND)
	wantCode(t, "rename into dot folder", unlocked(v).Rename("a.md", ".git/a.md"), noema.EINVALID)
	wantCode(t, "rename out", unlocked(v).Rename("a.md", "../a.md"), noema.EINVALID)
	if err := unlocked(v).Rename("a.md", "new/dir/a2.md"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, "new", "dir", "a2.md")); string(b) != "A" {
		t.Errorf("moved content = %q", b)
	}
	if _, err := os.Stat(filepath.Join(v.Root, "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("source still there: %v", err)
	}
	if err := unlocked(v).Rename("b.md", "b.md"); err != nil {
		t.Errorf("rename to itself: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, "b.md")); string(b) != "B" {
		t.Errorf("b.md = %q", b)
	}
	if left := dotFiles(t, v.Root); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWalk(t *testing.T) {
	v := mustOpen(t)
	for _, rel := range []string{
		"b.md", "a.md", "Z.md", "notes/x.md", "notes/sub/y.md", "notes/readme.txt", "notes/UPPER.MD",
		".noema/index.md", ".git/x.md", ".obsidian/w.md", "notes/.draft.md", ".hidden.md", "日本語.md",
	} {
		writeRaw(t, v, rel, "x")
	}
	os.Mkdir(filepath.Join(v.Root, "folder.md"), 0o755)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "out.md"), []byte("secret"), 0o644)
	symlink(t, filepath.Join("notes", "x.md"), filepath.Join(v.Root, "link-in.md"))
	symlink(t, filepath.Join(outside, "out.md"), filepath.Join(v.Root, "link-out.md"))
	symlink(t, outside, filepath.Join(v.Root, "linkdir"))
	symlink(t, "notes", filepath.Join(v.Root, "linkdir-in"))

	var got []string
	err := v.Walk(context.Background(), func(rel string, info fs.FileInfo) error {
		if !info.Mode().IsRegular() {
			t.Errorf("%s: mode %v", rel, info.Mode())
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Z.md", "a.md", "b.md", "link-in.md", "notes/sub/y.md", "notes/x.md", "日本語.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %q\nwant   %q", got, want)
	}

	// fn's errors stop the walk; SkipDir skips the rest of a folder.
	stop := errors.New("stop")
	n := 0
	err = v.Walk(context.Background(), func(rel string, _ fs.FileInfo) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Walk with failing fn = %v after %d calls", err, n)
	}
	got = nil
	v.Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
		got = append(got, rel)
		if rel == "a.md" {
			return fs.SkipDir // skips the rest of the folder holding a.md
		}
		return nil
	})
	if want := []string{"Z.md", "a.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Walk with SkipDir = %q, want %q", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err = v.Walk(ctx, func(rel string, _ fs.FileInfo) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("Walk after cancel = %v after %d calls", err, n)
	}
}

func TestURIs(t *testing.T) {
	for _, tt := range []struct{ path, uri string }{
		{"notes/a b.md", "memory://notes/a b"},
		{"a.md", "memory://a"},
		{"日本語/メモ.md", "memory://日本語/メモ"},
	} {
		if got := noema.NoteURI(tt.path); got != tt.uri {
			t.Errorf("noema.NoteURI(%q) = %q, want %q", tt.path, got, tt.uri)
		}
		if got, err := URIToPath(tt.uri); err != nil || got != tt.path {
			t.Errorf("URIToPath(%q) = %q, %v; want %q", tt.uri, got, err, tt.path)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"memory://x", "x.md"}, {"x", "x.md"}, {"x.md", "x.md"}, {"MEMORY://Notes/X", "Notes/X.md"}, {"memory://x.md", "x.md"},
		{"a:b", "a:b.md"},
	} {
		if got, err := URIToPath(tt.in); err != nil || got != tt.want {
			t.Errorf("URIToPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "memory://", "  ", "http://example.com/x", "file:///etc/passwd", ".md"} {
		if got, err := URIToPath(in); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("URIToPath(%q) = %q, %v; want EINVALID", in, got, err)
		}
	}
}

func FuzzRel(f *testing.F) {
	for _, s := range []string{"a.md", "../x", "a/../../x", "/etc/passwd", `C:\x`, "a\x00b", "./a//b/", ".noema/x", "a/./b/../c", "日本/語.md", "..."} {
		f.Add(s)
	}
	root := filepath.FromSlash("/vault/root")
	v := &Vault{Root: root}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := v.Rel(p)
		if err != nil {
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Fatalf("Rel(%q): %v is not EINVALID", p, err)
			}
			return
		}
		if rel == "" || strings.HasPrefix(rel, "/") || strings.ContainsAny(rel, "\\\x00") {
			t.Fatalf("Rel(%q) = %q", p, rel)
		}
		for _, e := range strings.Split(rel, "/") {
			if e == "" || e == "." || e == ".." || strings.HasPrefix(e, ".") {
				t.Fatalf("Rel(%q) = %q has element %q", p, rel, e)
			}
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		if !within(root, full) || full == root {
			t.Fatalf("Rel(%q) = %q escapes the root: %q", p, rel, full)
		}
		if again, err := v.Rel(rel); err != nil || again != rel {
			t.Fatalf("Rel(Rel(%q)) = %q, %v; want %q", p, again, err, rel)
		}
	})
}

// TestIsEscape pins the text of os.Root's "escapes" error, which isEscape
// matches: an absolute link, even to a file inside the vault, is refused.
func TestIsEscape(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "real.md", "real")
	symlink(t, filepath.Join(v.Root, "real.md"), filepath.Join(v.Root, "abs.md"))
	root, err := os.OpenRoot(v.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = root.Open("abs.md")
	if !isEscape(err) {
		t.Fatalf("os.Root error for an absolute link: %v; isEscape no longer recognizes it", err)
	}
	if _, err := root.Open("../x"); !isEscape(err) {
		t.Errorf("os.Root error for ../x: %v", err)
	}
	if isEscape(fs.ErrNotExist) || isEscape(nil) {
		t.Error("isEscape matches unrelated errors")
	}
	_, _, err = v.ReadFile("abs.md")
	wantCode(t, "ReadFile(absolute link inside)", err, noema.EINVALID)
	// Walk skips it, so what Walk lists can be read.
	v.Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
		if rel == "abs.md" {
			t.Error("Walk lists abs.md")
		}
		return nil
	})
}
