package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/lock"
	"github.com/noema-mem/noema/internal/notepath"
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
// Symbolic links are followed only to regular files and folders inside the
// vault and outside every dot-folder and dot-file: no element of the
// resolved path, relative to the vault, may start with '.', so that no link
// leads to .noema/ (the index), .git/ or .obsidian/. Notes are regular
// files: FIFOs, sockets and devices are refused without being opened (an
// open could block). Moving a note moves a regular file, never a link.
//
// Names that noema creates (a new note, a move's target, new folders) must
// be portable ([CheckPortableName]); existing files keep working whatever
// their names.
//
// A Vault is safe for concurrent use.
type Vault struct {
	// Root is the vault folder: absolute, with symbolic links resolved.
	Root string
	dir  os.FileInfo // the folder Open found at Root (see Check)

	// FaultHook, when set, is called by [Writer.Apply] each time i files of
	// a changeset are in place (i = 0 right after the journal is durable,
	// …, len = all renamed, before the journal is removed). An error from
	// it simulates a crash there: Apply returns it at once and leaves the
	// journal and temporary files as a killed process would. Fault-injection
	// tests set it; it is nil otherwise.
	FaultHook func(i int) error

	// OperationLimits bound the operation log (see operations.go); the
	// zero value means the defaults.
	OperationLimits OperationLimits

	// WriteFault, when set, is called by every write of a file's new
	// content (a note written, edited or moved; a changeset's files) with
	// the file's vault path, after its temporary file is created and
	// before anything is written to it. An error from it stands for the
	// write's error: fault-injection tests return syscall.ENOSPC from it
	// to fill the disk. It is nil otherwise.
	WriteFault func(rel string) error

	recoveryMu   sync.Mutex
	lastRecovery *Recovery // the last changeset recovered in this process

	lockOnce sync.Once
	sem      chan struct{} // the write lock within this process (see Locked)
	fileLock *lock.Mutex   // the write lock among processes

	feedOnce sync.Once
	changes  *feed // the change log (see feed.go)

	// upstream is the store v is a working copy of (see upstream.go);
	// behind hears of its changes the folder failed to take.
	upstream noema.Store
	behind   func(paths []string, err error)
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
	return &Vault{Root: abs, dir: fi}, nil
}

// Check reports, as noema.EUNAVAILABLE naming the folder, a vault whose
// folder is no longer the one Open opened: moved, renamed or deleted (and
// perhaps another folder made in its place) while noema serves it. Nothing
// may be written then — writing would create a vault nobody asked for at
// the old path — and the index no longer describes the files.
func (v *Vault) Check() error {
	fi, err := os.Stat(v.Root)
	switch {
	case v.dir == nil:
		return nil // a Vault not made by Open
	case err == nil && os.SameFile(fi, v.dir):
		return nil
	case err == nil:
		return noema.Errorf(noema.EUNAVAILABLE, "the vault folder %s was replaced by another folder while noema was serving it; nothing was written: restart noema on the vault", v.Root)
	}
	return noema.WrapError(err, noema.EUNAVAILABLE, "the vault folder %s was moved or deleted while noema was serving it; nothing was written: restart noema on the vault's new location", v.Root)
}

// Rel validates a caller-supplied vault-relative path and returns its clean
// form with forward slashes ("./notes//a.md" -> "notes/a.md"); the rules are
// [notepath.Clean]'s, which every store of record shares. It refuses them
// with noema.EINVALID.
//
// Rel does not look at the disk; [Vault.Abs] also checks symbolic links.
func (v *Vault) Rel(p string) (string, error) {
	return notepath.Clean(p)
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
			return "", fsError("check path", r, err)
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
		return "", fsError("check path", r, err)
	}
	if !within(v.Root, resolved) {
		return "", noema.Errorf(noema.EINVALID, "invalid path %q: resolves outside the vault", rel)
	}
	if inDotPath(v.Root, resolved) {
		return "", noema.Errorf(noema.EINVALID, "invalid path %q: a symbolic link leads into a hidden file or folder (starting with '.')", rel)
	}
	return full, nil
}

// inDotPath reports whether p, which is within root, has an element
// starting with '.' below root.
func inDotPath(root, p string) bool {
	r, err := filepath.Rel(root, p)
	if err != nil || r == "." {
		return false
	}
	for _, e := range strings.Split(filepath.ToSlash(r), "/") {
		if strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
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
	switch {
	case isEscape(err):
		return noema.Errorf(noema.EINVALID, "invalid path %q: leaves the vault through a symbolic link (absolute links are refused too)", rel)
	case isNameTooLong(err):
		return noema.Errorf(noema.EINVALID, "invalid path %q: name too long for the file system (at most %d bytes a name)", rel, MaxNameBytes)
	case errors.Is(err, syscall.ENOTDIR):
		return noema.Errorf(noema.EINVALID, "invalid path %q: a part of it is a file, not a folder", rel)
	case errors.Is(err, syscall.ENOSPC):
		return noema.WrapError(err, noema.ENOSPACE, "no space left on the device to %s %s; it is as it was", op, noema.NoteURI(rel))
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

// IsNote reports whether rel (after [Vault.Rel]) is a regular file in the
// vault, reached without leaving it.
func (v *Vault) IsNote(rel string) bool {
	root, err := v.openRoot()
	if err != nil {
		return false
	}
	defer root.Close()
	info, err := root.Stat(filepath.FromSlash(rel))
	return err == nil && info.Mode().IsRegular()
}

// RemoveEmptyDirs removes the folder dir (vault-relative) and then each of
// its parents while they are empty, as Obsidian leaves no empty folder
// behind a move. It stops at the first folder that is not empty (or
// cannot be removed) and never removes the vault itself; errors are not
// reported, an empty folder being harmless.
func (w *Writer) RemoveEmptyDirs(dir string) {
	if w.held() != nil {
		return
	}
	root, err := w.v.openRoot()
	if err != nil {
		return
	}
	defer root.Close()
	for dir = path.Clean(dir); dir != "." && dir != "/" && !strings.HasPrefix(dir, ".."); dir = path.Dir(dir) {
		if root.Remove(filepath.FromSlash(dir)) != nil {
			return
		}
	}
}

func (v *Vault) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(v.Root)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	return root, nil
}

// openChecked checks rel (see check) and opens the vault's root, which the
// caller closes.
func (v *Vault) openChecked(rel string) (string, *os.Root, error) {
	r, err := v.check(rel)
	if err != nil {
		return "", nil, err
	}
	root, err := v.openRoot()
	if err != nil {
		return "", nil, err
	}
	return r, root, nil
}

// noteError is fsError, except that a missing note is noema.ENOTFOUND.
func noteError(op, rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return noema.Errorf(noema.ENOTFOUND, "note %s not found", rel)
	}
	return fsError(op, rel, err)
}

// ReadFile reads a note. A missing file is noema.ENOTFOUND; a folder or
// any other file that is not a regular file (a FIFO, a device) is
// noema.EINVALID, and is never opened in a way that could block.
func (v *Vault) ReadFile(rel string) ([]byte, fs.FileInfo, error) {
	r, root, err := v.openChecked(rel)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	name := filepath.FromSlash(r)
	// The type is checked before the open, which could block on a FIFO;
	// the non-blocking open covers a FIFO put in place in between.
	if fi, err := root.Stat(name); err != nil {
		return nil, nil, noteError("read", r, err)
	} else if err := checkRegular(r, fi); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, noteError("read", r, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fsError("read", r, err)
	}
	if err := checkRegular(r, info); err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fsError("read", r, err)
	}
	return data, info, nil
}

// checkRegular refuses (noema.EINVALID) anything but a regular file.
func checkRegular(r string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return noema.Errorf(noema.EINVALID, "%s is a folder, not a note", r)
	default:
		return noema.Errorf(noema.EINVALID, "%s is not a regular file (%s)", r, fileKind(m))
	}
}

// fileKind names the type of a file that is not regular.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "type " + m.Type().String()
	}
}

// ReadNote reads the note at rel (see ReadFile) and parses it (see Parse),
// returning the note, its content and its file's information.
func (v *Vault) ReadNote(rel string) (*Note, []byte, fs.FileInfo, error) {
	content, info, err := v.ReadFile(rel)
	if err != nil {
		return nil, nil, nil, err
	}
	n, err := Parse(rel, content)
	if err != nil {
		return nil, nil, nil, err
	}
	return n, content, info, nil
}

// WriteFile writes a note atomically: the data goes to a temporary dot-file
// in the same folder, is synced, and then replaces the note in one rename;
// the folder is synced after. Parent folders are created. An overwritten
// file keeps its permissions; a new one gets 0644 (less the umask). The
// name of a new file, and of the folders created for it, must pass
// [CheckPortableName]; an existing file that is not a regular file is
// noema.EINVALID.
//
// With overwrite false an existing note is a noema.ECONFLICT error. The new
// file is then put in place with a hard link, which fails if the name is
// taken, so two processes racing to create the same note cannot both win.
// (On a file system without hard links it falls back to an exclusive
// create, which is race-free too but briefly shows an empty file.)
func (w *Writer) WriteFile(rel string, data []byte, overwrite bool) error {
	if err := w.held(); err != nil {
		return err
	}
	if up := w.up(); up != nil {
		r, err := w.pushWrite(up, rel, data, overwrite)
		if err != nil {
			return err
		}
		if err := w.v.writeFile(r, data, true, nil); err != nil {
			w.v.lagged(err, r)
			return nil
		}
		w.v.record(writeChange(r, data))
		return nil
	}
	if err := w.v.writeFile(rel, data, overwrite, nil); err != nil {
		return err
	}
	w.v.record(writeChange(rel, data))
	return nil
}

// writeFile is WriteFile; beforeRename, when not nil, runs after the new
// content is on disk and just before it replaces the file (see ReplaceFile),
// and a non-nil error from it leaves the file alone.
func (v *Vault) writeFile(rel string, data []byte, overwrite bool, beforeRename func() error) error {
	r, root, err := v.openChecked(rel)
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(r)
	dir := filepath.Dir(name)
	mode := fs.FileMode(0o644)
	if fi, err := root.Stat(name); err == nil {
		if err := checkRegular(r, fi); err != nil {
			return err
		}
		if !overwrite {
			return noema.Errorf(noema.ECONFLICT, "note %s already exists", r)
		}
		mode = fi.Mode().Perm()
	} else if err := checkNew(root, r); err != nil {
		return err
	}
	undo, err := mkdirs(root, dir)
	if err != nil {
		return fsError("write", r, err)
	}
	tmp, err := v.writeTemp(root, r, dir, data, mode)
	if err != nil {
		undo()
		return fsError("write", r, err)
	}
	defer root.Remove(tmp) // no-op once renamed; cleans up after a failure

	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			return err
		}
	}
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
	return v.syncDir(root, dir)
}

// mkdirs creates the folder dir and its missing parents, and returns a
// function that removes the ones it created (if still empty): a write that
// fails leaves no folder behind.
func mkdirs(root *os.Root, dir string) (undo func(), err error) {
	var missing []string
	for d := dir; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := root.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	undo = func() {
		for _, d := range missing { // deepest first
			root.Remove(d)
		}
	}
	if len(missing) == 0 {
		return func() {}, nil
	}
	if err := root.MkdirAll(dir, 0o755); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// writeTemp writes data, the new content of the file rel, to a new
// temporary dot-file in dir (see tempName) and syncs it.
func (v *Vault) writeTemp(root *os.Root, rel, dir string, data []byte, mode fs.FileMode) (string, error) {
	tmp := filepath.Join(dir, tempName(path.Base(rel)))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", err
	}
	if v.WriteFault != nil {
		err = v.WriteFault(rel)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed an existing file's mode
		if errors.Is(err, errors.ErrUnsupported) || runtime.GOOS == "windows" {
			err = nil
		}
	}
	if err == nil && v.durable() {
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

// durable reports whether v's changes are synced to disk as they are
// made: not in a working copy, a cache of its store of record, which a
// follower makes durable in one sync of the file system before it records
// its place in the store's feed (see [Vault.SyncFS]) — where that sync is
// one call (Linux).
func (v *Vault) durable() bool { return v.upstream == nil || !syncFSCheap }

// syncDir is the package's syncDir unless v is not durable.
func (v *Vault) syncDir(root *os.Root, dir string) error {
	if !v.durable() {
		return nil
	}
	return syncDir(root, dir)
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

// Remove deletes a note. A missing file is noema.ENOTFOUND; a folder or any
// other file that is not a regular file is noema.EINVALID. A symbolic link
// to a note (see [Vault]) is removed itself, not its target.
func (w *Writer) Remove(rel string) error {
	if err := w.held(); err != nil {
		return err
	}
	if up := w.up(); up != nil {
		r, err := w.pushRemove(up, rel)
		if err != nil {
			return err
		}
		if err := w.v.remove(r); err != nil {
			w.v.lagged(err, r)
			return nil
		}
		w.v.record(deleteChange(r))
		return nil
	}
	if err := w.v.remove(rel); err != nil {
		return err
	}
	w.v.record(deleteChange(rel))
	return nil
}

// remove is Remove; the caller holds the write lock.
func (v *Vault) remove(rel string) error {
	r, root, err := v.openChecked(rel)
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(r)
	fi, err := root.Lstat(name)
	if err != nil {
		return noteError("remove", r, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// a link to a note: Abs checked where it leads; it must be a note
		if fi, err = root.Stat(name); err != nil {
			return fsError("remove", r, err)
		}
	}
	if err := checkRegular(r, fi); err != nil {
		return err
	}
	if err := root.Remove(name); err != nil {
		return noteError("remove", r, err)
	}
	return v.syncDir(root, filepath.Dir(name))
}

// Rename moves a note, creating the target's parent folders. A missing
// source is noema.ENOTFOUND; a source that is not a regular file (a folder,
// a FIFO, a symbolic link, which would point elsewhere once moved) is
// noema.EINVALID, and so is a target name that fails [CheckPortableName]
// (only the file name and the folders to create are checked). An existing
// target is noema.ECONFLICT (checked
// atomically with a hard link where the file system has them), except when
// it is the source itself under another case on a case-insensitive file
// system, which makes a case-only rename work.
func (w *Writer) Rename(from, to string) error {
	if err := w.held(); err != nil {
		return err
	}
	if up := w.up(); up != nil {
		if err := w.pushMove(up, from, to); err != nil {
			return err
		}
		if _, err := w.move(from, to); err != nil {
			w.v.lagged(err, from, to)
		}
		return nil
	}
	_, err := w.move(from, to)
	return err
}

// move is Rename, returning the changes as the feed recorded them.
func (w *Writer) move(from, to string) ([]noema.Change, error) {
	if err := w.v.rename(from, to); err != nil {
		return nil, err
	}
	rf, _ := w.v.Rel(from)
	rt, _ := w.v.Rel(to)
	if rf == rt {
		return nil, nil
	}
	data, _, err := w.v.ReadFile(rt)
	if err != nil {
		return nil, err
	}
	return w.v.record(deleteChange(rf), writeChange(rt, data)), nil
}

// rename is Rename; the caller holds the write lock.
func (v *Vault) rename(from, to string) error {
	rf, err := v.check(from)
	if err != nil {
		return err
	}
	rt, root, err := v.openChecked(to)
	if err != nil {
		return err
	}
	defer root.Close()
	src, dst := filepath.FromSlash(rf), filepath.FromSlash(rt)
	fi, err := root.Lstat(src)
	if err != nil {
		return noteError("rename", rf, err)
	}
	if err := checkRegular(rf, fi); err != nil {
		return err
	}
	if rf == rt {
		return nil
	}
	if err := checkNew(root, rt); err != nil {
		return err
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
		return v.syncDir(root, filepath.Dir(dst))
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
	if err := v.syncDir(root, filepath.Dir(dst)); err != nil {
		return err
	}
	return v.syncDir(root, filepath.Dir(src))
}

// Walk calls fn for every note (a regular *.md file; the extension is
// matched exactly) in lexical order, with its vault-relative path and file
// information. It skips dot-folders (.noema, .git, .obsidian, …) and
// dot-files, does not descend into symbolically linked folders, and includes
// a symbolically linked file only when it resolves to a regular file inside
// the vault and outside dot-folders and dot-files (fn then sees the target's
// information). It stops with ctx's
// error when ctx is done, and with fn's error when fn fails; fn may return
// fs.SkipDir to skip the rest of the current folder, or fs.SkipAll.
func (v *Vault) Walk(ctx context.Context, fn func(rel string, info fs.FileInfo) error) error {
	return v.walk(ctx, fn, nil, nil)
}

// walkDir is the portable walk (filepath.WalkDir; see walk): Walk; temp,
// when not nil, is also called with every regular dot-file named like a
// temporary file (see parseTempName), so that sync cleans them in the same
// pass. unreadable, when not nil, is called with a folder below the root
// that cannot be read (its vault path and the error), and the walk goes on
// without it; when nil, such a folder stops the walk.
func (v *Vault) walkDir(ctx context.Context, fn func(rel string, info fs.FileInfo) error, temp func(p string, d fs.DirEntry, pid int), unreadable func(rel string, err error)) error {
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
			if unreadable != nil && p != v.Root && d != nil && d.IsDir() {
				if rel, rerr := filepath.Rel(v.Root, p); rerr == nil {
					unreadable(filepath.ToSlash(rel), err)
					return filepath.SkipDir
				}
			}
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
			if temp != nil && d.Type().IsRegular() {
				if pid, ok := parseTempName(name); ok {
					temp(p, d, pid)
				}
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
			if real, err := filepath.EvalSymlinks(p); err != nil || !within(v.Root, real) || inDotPath(v.Root, real) {
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
