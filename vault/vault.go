package vault

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Vault is a folder of Markdown notes.
//
// Every method takes vault-relative paths with forward slashes and checks
// them with [Vault.Rel] and [Vault.Abs]; file operations then go through an
// [os.Root], so that no path, symbolic link or concurrent change to the tree
// can make them touch anything outside the vault. (os.Root refuses absolute
// symbolic links even when they point inside the vault; Walk skips those
// files too, so what Walk lists can always be read.)
//
// A Vault is safe for concurrent use.
type Vault struct {
	// Root is the vault folder: absolute, with symbolic links resolved.
	Root string
}

// Open opens the vault at root, creating the folder if needed.
func Open(root string) (*Vault, error) {
	if root == "" {
		return nil, noema.Errorf(noema.EINVALID, "vault folder must not be empty")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create vault: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	if !fi.IsDir() {
		return nil, noema.Errorf(noema.EINVALID, "vault %s is not a folder", root)
	}
	return &Vault{Root: abs}, nil
}

// Rel validates a caller-supplied vault-relative path and returns its clean
// form with forward slashes ("./notes//a.md" -> "notes/a.md"). It refuses,
// with noema.EINVALID: an empty path; absolute paths (including Windows
// drive "C:…" and UNC forms); any ".." element; NUL bytes; invalid UTF-8;
// backslashes; any element starting with '.' (dot-folders such as .noema/
// and .git/, and dot-files, which Walk skips too); and, on Windows, ':' and
// reserved device names.
//
// Rel does not look at the disk; [Vault.Abs] also checks symbolic links.
func (v *Vault) Rel(p string) (string, error) {
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
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
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
		case runtime.GOOS == "windows" && isWindowsReserved(e):
			return "", invalid("reserved file name on Windows")
		}
		elems = append(elems, e)
	}
	if len(elems) == 0 {
		return "", invalid("names no file")
	}
	// A drive-like first element ("C:") is absolute on Windows whatever
	// came before it ("./C:"), so the clean form is refused too.
	if first := elems[0]; len(first) >= 2 && first[1] == ':' && isASCIILetter(first[0]) {
		return "", invalid("absolute paths are not allowed")
	}
	return strings.Join(elems, "/"), nil
}

// Abs returns the absolute path of a vault-relative path after [Vault.Rel],
// refusing (noema.EINVALID) a path whose existing part resolves, through
// symbolic links, to a place outside the vault, or that is a broken
// symbolic link.
func (v *Vault) Abs(rel string) (string, error) {
	r, err := v.Rel(rel)
	if err != nil {
		return "", err
	}
	full := filepath.Join(v.Root, filepath.FromSlash(r))
	// The deepest part of the path that exists.
	existing := full
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("check path %s: %w", r, err)
		}
		parent := filepath.Dir(existing)
		if parent == existing || len(parent) < len(v.Root) {
			existing = v.Root
			break
		}
		existing = parent
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", noema.Errorf(noema.EINVALID, "invalid path %q: broken symbolic link", rel)
		}
		return "", fmt.Errorf("check path %s: %w", r, err)
	}
	if !within(v.Root, resolved) {
		return "", noema.Errorf(noema.EINVALID, "invalid path %q: resolves outside the vault", rel)
	}
	return full, nil
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// check validates rel and returns its clean form.
func (v *Vault) check(rel string) (string, error) {
	r, err := v.Rel(rel)
	if err != nil {
		return "", err
	}
	if _, err := v.Abs(r); err != nil {
		return "", err
	}
	return r, nil
}

// fsError turns an error from a file operation on rel into a coded error
// where the cause is the caller's path, and wraps it otherwise.
func fsError(op, rel string, err error) error {
	if isEscape(err) {
		return noema.Errorf(noema.EINVALID, "invalid path %q: leaves the vault through a symbolic link (absolute links are refused too)", rel)
	}
	return fmt.Errorf("%s %s: %w", op, rel, err)
}

// isEscape reports whether err is os.Root refusing a path that leaves the
// root. The os package does not export that error, so its text is matched
// here and only here (TestIsEscape pins it).
func isEscape(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return err != nil && err.Error() == "path escapes from parent"
}

func (v *Vault) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(v.Root)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	return root, nil
}

// ReadFile reads a note. A missing file is noema.ENOTFOUND; a folder is
// noema.EINVALID.
func (v *Vault) ReadFile(rel string) ([]byte, fs.FileInfo, error) {
	r, err := v.check(rel)
	if err != nil {
		return nil, nil, err
	}
	root, err := v.openRoot()
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(r))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, noema.Errorf(noema.ENOTFOUND, "note %s not found", r)
		}
		return nil, nil, fsError("read", r, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fsError("read", r, err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, noema.Errorf(noema.EINVALID, "%s is not a file", r)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fsError("read", r, err)
	}
	return data, info, nil
}

// WriteFile writes a note atomically: the data goes to a temporary dot-file
// in the same folder, is synced, and then replaces the note in one rename;
// the folder is synced after. Parent folders are created. An overwritten
// file keeps its permissions; a new one gets 0644 (less the umask).
//
// With overwrite false an existing note is a noema.ECONFLICT error. The new
// file is then put in place with a hard link, which fails if the name is
// taken, so two processes racing to create the same note cannot both win.
// (On a file system without hard links it falls back to an exclusive
// create, which is race-free too but briefly shows an empty file.)
func (v *Vault) WriteFile(rel string, data []byte, overwrite bool) error {
	r, err := v.check(rel)
	if err != nil {
		return err
	}
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(r)
	dir := filepath.Dir(name)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fsError("write", r, err)
		}
	}
	mode := fs.FileMode(0o644)
	if fi, err := root.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return noema.Errorf(noema.EINVALID, "%s is not a file", r)
		}
		if !overwrite {
			return noema.Errorf(noema.ECONFLICT, "note %s already exists", r)
		}
		mode = fi.Mode().Perm()
	}

	tmp, err := writeTemp(root, dir, path.Base(r), data, mode)
	if err != nil {
		return fsError("write", r, err)
	}
	defer root.Remove(tmp) // no-op once renamed; cleans up after a failure

	if overwrite {
		if err := root.Rename(tmp, name); err != nil {
			return fsError("write", r, err)
		}
	} else if err := createFrom(root, tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return noema.Errorf(noema.ECONFLICT, "note %s already exists", r)
		}
		return fsError("write", r, err)
	}
	return syncDir(root, dir)
}

// writeTemp writes data to a new temporary dot-file in dir and syncs it.
func writeTemp(root *os.Root, dir, base string, data []byte, mode fs.FileMode) (string, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	// keep the name short: base may be near the file system's limit
	if len(base) > 64 {
		base = base[:64]
	}
	tmp := filepath.Join(dir, "."+strings.ToValidUTF8(base, "")+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed an existing file's mode
		if errors.Is(err, errors.ErrUnsupported) || runtime.GOOS == "windows" {
			err = nil
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// createFrom gives the file tmp the name name unless name exists.
func createFrom(root *os.Root, tmp, name string) error {
	err := root.Link(tmp, name)
	if err == nil || errors.Is(err, fs.ErrExist) || !linkUnsupported(err) {
		return err
	}
	// No hard links here: reserve the name, then replace it.
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return root.Rename(tmp, name)
}

// linkUnsupported reports whether a hard link failed because the file
// system does not support them.
func linkUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.EXDEV)
}

// syncDir flushes a folder's entries to disk (not possible on Windows, where
// renames are journaled by NTFS).
func syncDir(root *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync folder: %w", err)
	}
	return nil
}

// Remove deletes a note. A missing file is noema.ENOTFOUND; a folder is
// noema.EINVALID.
func (v *Vault) Remove(rel string) error {
	r, err := v.check(rel)
	if err != nil {
		return err
	}
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(r)
	fi, err := root.Lstat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noema.Errorf(noema.ENOTFOUND, "note %s not found", r)
		}
		return fsError("remove", r, err)
	}
	if fi.IsDir() {
		return noema.Errorf(noema.EINVALID, "%s is a folder", r)
	}
	if err := root.Remove(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noema.Errorf(noema.ENOTFOUND, "note %s not found", r)
		}
		return fsError("remove", r, err)
	}
	return syncDir(root, filepath.Dir(name))
}

// Rename moves a note, creating the target's parent folders. A missing
// source is noema.ENOTFOUND; an existing target is noema.ECONFLICT (checked
// atomically with a hard link where the file system has them), except when
// it is the source itself under another case on a case-insensitive file
// system, which makes a case-only rename work.
func (v *Vault) Rename(from, to string) error {
	rf, err := v.check(from)
	if err != nil {
		return err
	}
	rt, err := v.check(to)
	if err != nil {
		return err
	}
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	src, dst := filepath.FromSlash(rf), filepath.FromSlash(rt)
	fi, err := root.Lstat(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return noema.Errorf(noema.ENOTFOUND, "note %s not found", rf)
		}
		return fsError("rename", rf, err)
	}
	if fi.IsDir() {
		return noema.Errorf(noema.EINVALID, "%s is a folder", rf)
	}
	if rf == rt {
		return nil
	}
	if dir := filepath.Dir(dst); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fsError("rename", rf, err)
		}
	}
	if ti, err := root.Lstat(dst); err == nil {
		if !os.SameFile(fi, ti) {
			return noema.Errorf(noema.ECONFLICT, "note %s already exists", rt)
		}
		// the same file under another case: a plain rename does it
		if err := root.Rename(src, dst); err != nil {
			return fsError("rename", rf, err)
		}
		return syncDir(root, filepath.Dir(dst))
	}
	switch err := root.Link(src, dst); {
	case err == nil:
		if err := root.Remove(src); err != nil {
			return fsError("rename", rf, err)
		}
	case errors.Is(err, fs.ErrExist):
		return noema.Errorf(noema.ECONFLICT, "note %s already exists", rt)
	case linkUnsupported(err):
		if err := root.Rename(src, dst); err != nil {
			return fsError("rename", rf, err)
		}
	default:
		return fsError("rename", rf, err)
	}
	if err := syncDir(root, filepath.Dir(dst)); err != nil {
		return err
	}
	return syncDir(root, filepath.Dir(src))
}

// Walk calls fn for every note (a regular *.md file; the extension is
// matched exactly) in lexical order, with its vault-relative path and file
// information. It skips dot-folders (.noema, .git, .obsidian, …) and
// dot-files, does not descend into symbolically linked folders, and includes
// a symbolically linked file only when it resolves to a regular file inside
// the vault (fn then sees the target's information). It stops with ctx's
// error when ctx is done, and with fn's error when fn fails; fn may return
// fs.SkipDir to skip the rest of the current folder, or fs.SkipAll.
func (v *Vault) Walk(ctx context.Context, fn func(rel string, info fs.FileInfo) error) error {
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	err = filepath.WalkDir(v.Root, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			return err
		}
		if p == v.Root {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(name, ".md") {
			return nil
		}
		rel, err := filepath.Rel(v.Root, p)
		if err != nil {
			return err
		}
		var info fs.FileInfo
		switch t := d.Type(); {
		case t.IsRegular():
			if info, err = d.Info(); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed while walking
				}
				return err
			}
		case t&fs.ModeSymlink != 0:
			// Followed through the root: refuses targets outside the vault.
			if info, err = root.Stat(rel); err != nil || !info.Mode().IsRegular() {
				return nil
			}
		default:
			return nil
		}
		return fn(filepath.ToSlash(rel), info)
	})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("walk vault: %w", err)
	}
	return err
}

// PathToURI returns the URI of a note: "notes/a b.md" -> "memory://notes/a b".
func PathToURI(rel string) string {
	return noema.URIScheme + strings.TrimSuffix(rel, ".md")
}

// URIToPath returns the vault-relative path of a note URI. It accepts
// "memory://x", and also a bare "x" or "x.md"; the result always ends in .md
// ("x.md"). URIs are not percent-decoded: noema's URIs carry paths as they
// are. An empty path or another scheme ("http://…") is a noema.EINVALID
// error; the path itself is checked by [Vault.Rel], not here.
func URIToPath(uri string) (string, error) {
	p := uri
	if len(p) >= len(noema.URIScheme) && strings.EqualFold(p[:len(noema.URIScheme)], noema.URIScheme) {
		p = p[len(noema.URIScheme):]
	} else if i := strings.Index(p, "://"); i > 0 && isScheme(p[:i]) {
		return "", noema.Errorf(noema.EINVALID, "invalid note URI %q: want %s<path>", uri, noema.URIScheme)
	}
	if strings.TrimSpace(p) == "" || p == ".md" {
		return "", noema.Errorf(noema.EINVALID, "invalid note URI %q: no path", uri)
	}
	if !strings.HasSuffix(p, ".md") {
		p += ".md"
	}
	return p, nil
}

// isScheme reports whether s is a URI scheme (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.').
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && (i == 0 || !(isASCIIDigit(c) || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}
