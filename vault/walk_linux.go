package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// walk is walkDir's walk, with its results in its order, made cheaper for
// a sync of a large vault, whose no-op is mostly this walk: each folder is
// opened once and its notes are stat'ed relative to it (fstatat: the
// kernel resolves one name instead of the whole path, and no path is
// built), on every core when the folder holds many notes. Symbolic links,
// dot-files (temporary files) and unreadable folders take walkDir's paths.
func (v *Vault) walk(ctx context.Context, fn func(rel string, info fs.FileInfo) error, temp func(p string, d fs.DirEntry, pid int), unreadable func(rel string, err error)) error {
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	w := &walker{v: v, root: root, ctx: ctx, fn: fn, temp: temp, unreadable: unreadable}
	err = w.dir("", v.Root)
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		err = nil
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("walk vault: %w", err)
	}
	return err
}

// walker is one walk's state.
type walker struct {
	v          *Vault
	root       *os.Root
	ctx        context.Context
	fn         func(rel string, info fs.FileInfo) error
	temp       func(p string, d fs.DirEntry, pid int)
	unreadable func(rel string, err error)
}

// parallelStats is how many notes a folder must hold for its stats to be
// spread over the cores.
const parallelStats = 512

// dir walks the folder at vault path rel (absolute path abs).
func (w *walker) dir(rel, abs string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, fd, f, err := readDir(abs)
	if f != nil {
		defer f.Close()
	}
	if err != nil {
		if w.unreadable != nil && rel != "" {
			w.unreadable(rel, err)
			return nil
		}
		return err
	}
	// The notes of the folder are stat'ed before its entries are visited.
	var notes []int
	for i, d := range entries {
		if name := d.Name(); !strings.HasPrefix(name, ".") && d.Type().IsRegular() && strings.HasSuffix(name, ".md") {
			notes = append(notes, i)
		}
	}
	infos := make([]*statInfo, len(notes))
	errs := make([]error, len(notes))
	statRange := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			infos[k], errs[k] = fstatat(fd, entries[notes[k]].Name())
		}
	}
	if n := min(runtime.GOMAXPROCS(0), len(notes)/parallelStats); n > 1 {
		var wg sync.WaitGroup
		for part := range n {
			wg.Go(func() { statRange(part*len(notes)/n, (part+1)*len(notes)/n) })
		}
		wg.Wait()
	} else {
		statRange(0, len(notes))
	}
	k := 0
	for i, d := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if k < len(notes) && notes[k] == i {
			info, err := infos[k], errs[k]
			k++
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed while walking
				}
				return err
			}
			if err := w.fn(joinRel(rel, name), info); err != nil {
				if errors.Is(err, fs.SkipDir) {
					return nil
				}
				return err
			}
			continue
		}
		p := filepath.Join(abs, name)
		if strings.HasPrefix(name, ".") {
			if !d.IsDir() && w.temp != nil && d.Type().IsRegular() {
				if pid, ok := parseTempName(name); ok {
					w.temp(p, d, pid)
				}
			}
			continue
		}
		if d.IsDir() {
			if err := w.dir(joinRel(rel, name), p); err != nil {
				return err
			}
			continue
		}
		if !strings.HasSuffix(name, ".md") || d.Type()&fs.ModeSymlink == 0 {
			continue
		}
		// A symbolic link: followed through the root, which refuses
		// targets outside the vault, as walkDir does.
		r := joinRel(rel, name)
		info, err := w.root.Stat(filepath.FromSlash(r))
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err != nil || !within(w.v.Root, real) || inDotPath(w.v.Root, real) {
			continue
		}
		if err := w.fn(r, info); err != nil {
			if errors.Is(err, fs.SkipDir) {
				return nil
			}
			return err
		}
	}
	return nil
}

// readDir opens the folder at abs without following a link and reads its
// entries in name order; the caller closes f (when not nil), whose
// descriptor fd the entries' stats are taken relative to.
func readDir(abs string) (entries []fs.DirEntry, fd int, f *os.File, err error) {
	fd, err = unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, -1, nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	f = os.NewFile(uintptr(fd), abs)
	entries, err = f.ReadDir(-1)
	if err != nil {
		return nil, fd, f, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, fd, f, nil
}

// joinRel joins a vault path and a name.
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// fstatat stats name in the folder open as fd, without following a link.
func fstatat(fd int, name string) (*statInfo, error) {
	s := &statInfo{name: name}
	for {
		err := unix.Fstatat(fd, name, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "fstatat", Path: name, Err: err}
		}
		return s, nil
	}
}

// statInfo is the fs.FileInfo of a stat taken by walk.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string { return s.name }
func (s *statInfo) Size() int64  { return s.st.Size }
func (s *statInfo) ModTime() time.Time {
	return time.Unix(s.st.Mtim.Unix())
}
func (s *statInfo) IsDir() bool { return s.Mode().IsDir() }
func (s *statInfo) Sys() any    { return &s.st }

// Mode is the file's mode as os.Lstat gives it.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// Identity returns the file's status-change time in nanoseconds and its
// inode number: what sync compares besides size and mtime (the indexer
// reads it from a *syscall.Stat_t otherwise).
func (s *statInfo) Identity() (ctimeNS, inode int64) {
	sec, nsec := s.st.Ctim.Unix()
	return sec*1e9 + nsec, int64(s.st.Ino)
}
