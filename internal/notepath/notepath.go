// Package notepath holds the rules for the path of a note file in a store
// of record — the folder (package vault) and the database (package
// postgres) accept exactly the same paths, so a vault moves between them
// without a file it cannot hold.
package notepath

import (
	"cmp"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Clean validates a caller-supplied vault-relative path and returns its
// clean form with forward slashes ("./notes//a.md" -> "notes/a.md"). It
// refuses, with noema.EINVALID: an empty path; absolute paths (including
// Windows drive "C:…" and UNC forms); any ".." element; NUL bytes; invalid
// UTF-8; backslashes; any element starting with '.' (dot-folders such as
// .noema/ and .git/, and dot-files); and, on Windows, ':' and reserved
// device names.
func Clean(p string) (string, error) {
	invalid := func(why string) error {
		return noema.Errorf(noema.EINVALID, "invalid path %q: %s", p, why)
	}
	switch {
	case p == "":
		return "", noema.Errorf(noema.EINVALID, "path must not be empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", invalid("contains a NUL byte")
	case !utf8.ValidString(p):
		return "", invalid("not valid UTF-8")
	case strings.IndexByte(p, '\\') >= 0:
		return "", invalid("contains a backslash; use '/'")
	case p[0] == '/':
		return "", invalid("absolute paths are not allowed")
	case len(p) >= 2 && p[1] == ':' && asciiLetter(p[0]):
		return "", invalid("absolute paths are not allowed")
	}
	var elems []string
	for _, e := range strings.Split(p, "/") {
		switch {
		case e == "" || e == ".":
			continue
		case e == "..":
			return "", invalid("'..' is not allowed")
		case e[0] == '.':
			return "", invalid("hidden files and folders (starting with '.') are not part of the vault")
		case runtime.GOOS == "windows" && strings.IndexByte(e, ':') >= 0:
			return "", invalid("':' is not allowed")
		case runtime.GOOS == "windows" && WindowsReserved(e):
			return "", invalid("reserved file name on Windows")
		}
		elems = append(elems, e)
	}
	if len(elems) == 0 {
		return "", invalid("names no file")
	}
	// A drive-like first element ("C:") is absolute on Windows whatever
	// came before it ("./C:"), so the clean form is refused too.
	if first := elems[0]; len(first) >= 2 && first[1] == ':' && asciiLetter(first[0]) {
		return "", invalid("absolute paths are not allowed")
	}
	return strings.Join(elems, "/"), nil
}

// Note is [Clean] for the path of a note, which ends in ".md".
func Note(p string) (string, error) {
	r, err := Clean(p)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(r, ".md") {
		return "", noema.Errorf(noema.EINVALID, "invalid path %q: a note's path ends in .md", p)
	}
	return r, nil
}

// WindowsReserved reports whether name (without extension) is a device name
// that Windows refuses as a file name, whatever the extension.
func WindowsReserved(name string) bool {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimRight(name, " ")
	switch strings.ToLower(name) {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(name) < 4 {
		return false
	}
	prefix := strings.ToLower(name[:3])
	if prefix != "com" && prefix != "lpt" {
		return false
	}
	switch rest := name[3:]; rest {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

func asciiLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// Compare orders vault paths ("a/b.md") as a walk of the vault visits
// them: folder by folder, each folder's entries by name in byte order,
// a folder's notes where its name sorts. It is byte order with the
// separator '/' below every other byte: "a/z.md" < "a b.md" < "a.md",
// because the folder "a" sorts before the names "a b.md" and "a.md".
// It returns -1, 0 or +1.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && a[i:i+8] == b[i:i+8] { // paths share long prefixes
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return cmp.Compare(len(a), len(b))
	case a[i] == '/':
		return -1
	case b[i] == '/':
		return 1
	}
	return cmp.Compare(a[i], b[i])
}
