package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

// snapshot returns the files below dir with their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := make(map[string]string)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		m[p] = string(b)
		return nil
	})
	return m
}

// Symbolic links into a dot-folder (.noema, the index) give no access to
// it: not through a linked folder, not through a linked file, and Walk does
// not list such files.
func TestSymlinksIntoDotFolders(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, ".noema/index.db", "db")
	writeRaw(t, v, ".noema/secret.md", "secret")
	writeRaw(t, v, ".git/x.md", "git")
	writeRaw(t, v, "notes/real.md", "real")
	writeRaw(t, v, "a.md", "A")
	symlink(t, ".noema", filepath.Join(v.Root, "lnk"))
	symlink(t, filepath.Join(".noema", "secret.md"), filepath.Join(v.Root, "flink.md"))
	symlink(t, filepath.Join("..", ".git", "x.md"), filepath.Join(v.Root, "notes", "up.md"))
	symlink(t, filepath.Join("notes", "real.md"), filepath.Join(v.Root, "ok.md"))
	symlink(t, "notes", filepath.Join(v.Root, "okdir"))
	before := snapshot(t, filepath.Join(v.Root, ".noema"))

	for _, rel := range []string{"lnk", "lnk/secret.md", "lnk/index.db", "lnk/new.md", "lnk/sub/new.md", "flink.md", "notes/up.md"} {
		_, err := v.Abs(rel)
		wantCode(t, "Abs("+rel+")", err, noema.EINVALID)
		_, _, err = v.ReadFile(rel)
		wantCode(t, "ReadFile("+rel+")", err, noema.EINVALID)
		wantCode(t, "WriteFile("+rel+", overwrite)", unlocked(v).WriteFile(rel, []byte("x"), true), noema.EINVALID)
		wantCode(t, "WriteFile("+rel+", create)", unlocked(v).WriteFile(rel, []byte("x"), false), noema.EINVALID)
		wantCode(t, "ReplaceFile("+rel+")", unlocked(v).ReplaceFile(rel, []byte("secret"), []byte("x")), noema.EINVALID)
		wantCode(t, "Remove("+rel+")", unlocked(v).Remove(rel), noema.EINVALID)
		wantCode(t, "Rename("+rel+", moved.md)", unlocked(v).Rename(rel, "moved.md"), noema.EINVALID)
		wantCode(t, "Rename(a.md, "+rel+")", unlocked(v).Rename("a.md", rel), noema.EINVALID)
	}
	if after := snapshot(t, filepath.Join(v.Root, ".noema")); !reflect.DeepEqual(after, before) {
		t.Errorf(".noema changed through a link:\nbefore %q\nafter  %q", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, ".git", "x.md")); string(b) != "git" {
		t.Errorf(".git/x.md = %q", b)
	}
	for _, rel := range []string{"lnk", "flink.md", "notes/up.md", "a.md"} {
		if _, err := os.Lstat(filepath.Join(v.Root, filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(v.Root, "moved.md")); err == nil {
		t.Errorf("moved.md was created")
	}

	// Links to notes keep working.
	if b, _, err := v.ReadFile("ok.md"); err != nil || string(b) != "real" {
		t.Errorf("ReadFile(ok.md) = %q, %v", b, err)
	}
	if b, _, err := v.ReadFile("okdir/real.md"); err != nil || string(b) != "real" {
		t.Errorf("ReadFile(okdir/real.md) = %q, %v", b, err)
	}
	if err := unlocked(v).WriteFile("okdir/new.md", []byte("new"), false); err != nil {
		t.Errorf("WriteFile(okdir/new.md): %v", err)
	}

	var got []string
	if err := v.Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
		got = append(got, rel)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.md", "notes/new.md", "notes/real.md", "ok.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}

	// Removing a link to a note removes the link; moving a link is refused
	// (a relative link would point elsewhere from its new folder).
	wantCode(t, "Rename(ok.md)", unlocked(v).Rename("ok.md", "notes/ok.md"), noema.EINVALID)
	if err := unlocked(v).Remove("ok.md"); err != nil {
		t.Errorf("Remove(ok.md): %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, "notes", "real.md")); string(b) != "real" {
		t.Errorf("the link's target changed: %q", b)
	}
}

func TestCheckPortableName(t *testing.T) {
	good := []string{
		"a.md", "notes/Café déjà vu.md", "日本語/メモ.md", "console.md", "com10.md", "lpt.md", "nul-and-void.md",
		"a..b.md", "x'y (2) [z] #1 & {w}.md", strings.Repeat("a", MaxNameBytes-3) + ".md", strings.Repeat("é", 126) + ".md",
	}
	for _, p := range good {
		if err := CheckPortableName(p); err != nil {
			t.Errorf("CheckPortableName(%q) = %v", p, err)
		}
	}
	bad := map[string]string{
		"a\tb.md": "control", "a\nb.md": "control", "a\rb.md": "control", "a\x01b.md": "control",
		"a\x7fb.md": "control", "a\u0085b.md": "control", "a\u009fb.md": "control", "dir\x1b/x.md": "control",
		"con.md": "reserved", "CON": "reserved", "Nul.txt.md": "reserved", "prn.md": "reserved", "aux.md": "reserved",
		"com1.md": "reserved", "COM9.md": "reserved", "lpt1.md": "reserved", "LPT9.MD": "reserved", "x/aux/y.md": "reserved",
		"a<b.md": "Windows", "a>b.md": "Windows", "a:b.md": "Windows", `a"b.md`: "Windows", "a|b.md": "Windows",
		"a?b.md": "Windows", "a*b.md": "Windows", "x.md ": "ends in", "x.": "ends in", "folder /x.md": "ends in",
		"folder./x.md": "ends in", strings.Repeat("a", MaxNameBytes-2) + ".md": "too long",
		strings.Repeat("é", 127) + ".md": "too long", "ok/" + strings.Repeat("b", 300) + "/x.md": "too long",
		"a\xffb.md": "UTF-8",
	}
	for p, why := range bad {
		err := CheckPortableName(p)
		wantCode(t, fmt.Sprintf("CheckPortableName(%q)", p), err, noema.EINVALID)
		if err != nil && !strings.Contains(err.Error(), why) {
			t.Errorf("CheckPortableName(%q) = %v, want a message about %q", p, err, why)
		}
	}
}

// Noema refuses to create unportable names (new notes, move targets, new
// folders), but existing files with such names stay readable and writable.
func TestCreateRefusesUnportableNames(t *testing.T) {
	v := mustOpen(t)
	writeRaw(t, v, "a.md", "A")
	bad := []string{
		"tab\there.md", "line\nbreak.md", "cr\r.md", "del\x7f.md", "c1\u0085.md", "con.md", "CON", "nul.md", "Com1.md",
		"lpt9.md", "aux/x.md", "x.md ", "dot.", "trailing /x.md", "a<b.md", "a:b.md", `q"uote.md`, "p|ipe.md", "q?.md",
		"star*.md", strings.Repeat("n", 300) + ".md", "new/" + strings.Repeat("d", 256) + "/x.md",
	}
	for _, rel := range bad {
		wantCode(t, fmt.Sprintf("WriteFile(%q, create)", rel), unlocked(v).WriteFile(rel, []byte("x"), false), noema.EINVALID)
		wantCode(t, fmt.Sprintf("WriteFile(%q, overwrite)", rel), unlocked(v).WriteFile(rel, []byte("x"), true), noema.EINVALID)
		wantCode(t, fmt.Sprintf("Rename(a.md, %q)", rel), unlocked(v).Rename("a.md", rel), noema.EINVALID)
	}
	if got := snapshot(t, v.Root); !reflect.DeepEqual(got, map[string]string{filepath.Join(v.Root, "a.md"): "A"}) {
		t.Errorf("files after refused creations: %q", got)
	}
	if _, err := os.Stat(filepath.Join(v.Root, "new")); err == nil {
		t.Errorf("a folder was created for a refused name")
	}

	// Names over the file system's limit are invalid_argument everywhere,
	// never an internal error.
	long := strings.Repeat("l", 300) + ".md"
	_, _, err := v.ReadFile(long)
	wantCode(t, "ReadFile(long)", err, noema.EINVALID)
	wantCode(t, "Remove(long)", unlocked(v).Remove(long), noema.EINVALID)
	wantCode(t, "Rename(long, a)", unlocked(v).Rename(long, "b.md"), noema.EINVALID)
	_, err = v.Abs(long)
	wantCode(t, "Abs(long)", err, noema.EINVALID)
	for _, e := range []error{syscall.ENAMETOOLONG, &fs.PathError{Op: "open", Path: "x", Err: syscall.ENAMETOOLONG}} {
		wantCode(t, fmt.Sprintf("fsError(%v)", e), fsError("write", "x.md", e), noema.EINVALID)
	}

	if runtime.GOOS == "windows" {
		return // the odd names below cannot exist there
	}
	// Files and folders that exist keep working, whatever their names.
	for _, rel := range []string{"con.md", "odd: name?.md", "tab\there.md", "odd:dir/x.md"} {
		writeRaw(t, v, rel, "old")
		if b, _, err := v.ReadFile(rel); err != nil || string(b) != "old" {
			t.Errorf("ReadFile(%q) = %q, %v", rel, b, err)
		}
		if err := unlocked(v).WriteFile(rel, []byte("new"), true); err != nil {
			t.Errorf("WriteFile(%q, overwrite): %v", rel, err)
		}
		if err := unlocked(v).ReplaceFile(rel, []byte("new"), []byte("newer")); err != nil {
			t.Errorf("ReplaceFile(%q): %v", rel, err)
		}
	}
	if err := unlocked(v).WriteFile("odd:dir/new.md", []byte("x"), false); err != nil {
		t.Errorf("new note in an existing oddly named folder: %v", err)
	}
	if err := unlocked(v).Rename("con.md", "console.md"); err != nil {
		t.Errorf("Rename(con.md, console.md): %v", err)
	}
	if err := unlocked(v).Remove("tab\there.md"); err != nil {
		t.Errorf("Remove(tab): %v", err)
	}
}

func TestTempNames(t *testing.T) {
	name := tempName("note.md")
	pid, ok := parseTempName(name)
	if !ok || pid != os.Getpid() || !strings.HasPrefix(name, ".note.md.tmp-") {
		t.Errorf("tempName = %q, parsed %d %v", name, pid, ok)
	}
	if n := tempName(strings.Repeat("é", 100)); len(n) > 64+len(".tmp-")+1+20+1+16 {
		t.Errorf("tempName of a long name is %d bytes", len(n))
	}
	for _, tt := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".a.md.tmp-0123456789abcdef", 0, true},
		{".a b.md.tmp-4242-0123456789abcdef", 4242, true},
		{".a.tmp-1.md.tmp-7-fedcba9876543210", 7, true},
		{"a.md.tmp-0123456789abcdef", 0, false},
		{".a.md.tmp-0123456789ABCDEF", 0, false},
		{".a.md.tmp-0123456789abcde", 0, false},
		{".a.md.tmp-12-0123456789abcdef0", 0, false},
		{".a.md.tmp--0123456789abcdef", 0, false},
		{".a.md.tmp-0-0123456789abcdef", 0, false},
		{".a.md.tmp-x1-0123456789abcdef", 0, false},
		{".tmp-0123456789abcdef", 0, false},
		{".a.md", 0, false},
	} {
		if pid, ok := parseTempName(tt.name); pid != tt.pid || ok != tt.ok {
			t.Errorf("parseTempName(%q) = %d, %v; want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
		}
	}
}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if writerAlive(pid) {
		t.Skipf("PID %d was reused already", pid)
	}
	return pid
}

func TestCleanTemps(t *testing.T) {
	v := mustOpen(t)
	dead := deadPID(t)
	const hex = "0123456789abcdef"
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // path -> removed
		fmt.Sprintf("notes/.a.md.tmp-%d-%s", dead, hex): true, // old, writer gone
		".b.md.tmp-" + hex: true, // old format, old
		fmt.Sprintf("deep/er/.c.md.tmp-%d-%s", dead, hex):              true,  // deeper
		fmt.Sprintf(".d.md.tmp-%d-%s", os.Getpid(), hex):               false, // this process
		fmt.Sprintf("notes/.f.md.tmp-%d-%s", dead, "fedcba9876543210"): false, // recent (mtime set below)
		fmt.Sprintf(".noema/.g.md.tmp-%d-%s", dead, hex):               false, // in a dot-folder
		fmt.Sprintf(".obsidian/x/.h.md.tmp-%d-%s", dead, hex):          false,
		"notes/readme.tmp-" + hex:                                      false, // not a dot-file
		"notes/.draft.md":                                              false, // not a temp file
		"notes/a.md":                                                   false,
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		// a live process other than this one
		files[fmt.Sprintf("notes/.e.md.tmp-%d-%s", os.Getppid(), hex)] = false
	}
	for rel := range files {
		writeRaw(t, v, rel, "x")
		mtime := old
		if strings.Contains(rel, "fedcba") {
			mtime = time.Now().Add(-time.Minute)
		}
		if err := os.Chtimes(filepath.Join(v.Root, filepath.FromSlash(rel)), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	// A link named like a temp file is not followed, nor removed.
	linked := fmt.Sprintf("notes/.l.md.tmp-%d-%s", dead, hex)
	symlink(t, "a.md", filepath.Join(v.Root, filepath.FromSlash(linked)))
	files[linked] = false

	removed, err := v.CleanTemps(context.Background(), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rel, gone := range files {
		if gone {
			want = append(want, rel)
		}
		_, err := os.Lstat(filepath.Join(v.Root, filepath.FromSlash(rel)))
		if exists := err == nil; exists == gone {
			t.Errorf("%s: exists %v after CleanTemps", rel, exists)
		}
	}
	slices.Sort(want)
	slices.Sort(removed)
	if !reflect.DeepEqual(removed, want) {
		t.Errorf("CleanTemps removed %q\nwant %q", removed, want)
	}
	if b, _ := os.ReadFile(filepath.Join(v.Root, "notes", "a.md")); string(b) != "x" {
		t.Errorf("the link's target changed: %q", b)
	}

	// Nothing left to do; a done context stops it.
	if removed, err := v.CleanTemps(context.Background(), 5*time.Minute); err != nil || len(removed) > 0 {
		t.Errorf("second CleanTemps = %q, %v", removed, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.CleanTemps(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("CleanTemps with a done context: %v", err)
	}
	// A zero age removes the recent one too.
	if removed, err := v.CleanTemps(context.Background(), 0); err != nil || len(removed) != 1 || !strings.Contains(removed[0], "fedcba") {
		t.Errorf("CleanTemps(0) = %q, %v", removed, err)
	}
}

// WriteFile's temporary files carry the writer's PID, so that CleanTemps
// can tell a live writer's file from a dead one's.
func TestWriteFileTempHasPID(t *testing.T) {
	v := mustOpen(t)
	root, err := os.OpenRoot(v.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tmp, err := v.writeTemp(root, "n.md", ".", []byte("x"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Remove(tmp)
	if pid, ok := parseTempName(filepath.Base(tmp)); !ok || pid != os.Getpid() {
		t.Errorf("temporary file %q: pid %d, %v", tmp, pid, ok)
	}
}
