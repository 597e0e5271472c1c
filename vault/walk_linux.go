package vault

import (
	"context"
	"encoding/binary"
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
	buf        []byte // readDir's, reused: a folder is read before the next
}

// parallelStats is how many notes a folder must hold for its stats to be
// spread over the cores.
const parallelStats = 512

// dir walks the folder at vault path rel (absolute path abs).
func (w *walker) dir(rel, abs string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.buf == nil {
		w.buf = make([]byte, direntBuf)
	}
	entries, fd, err := readDir(abs, w.buf)
	if fd >= 0 {
		defer unix.Close(fd)
	}
	if err != nil {
		if w.unreadable != nil && rel != "" {
			w.unreadable(rel, err)
			return nil
		}
		return err
	}
	// The notes of the folder are stat'ed before its entries are visited,
	// into one slice (one allocation for the folder, not one a note), and
	// their vault paths are cut from one string.
	var notes []int
	var pathBytes int
	for i, d := range entries {
		if name := d.name; !strings.HasPrefix(name, ".") && d.typ == 0 && strings.HasSuffix(name, ".md") {
			notes = append(notes, i)
			pathBytes += len(rel) + 1 + len(name)
		}
	}
	infos := make([]statInfo, len(notes))
	errs := make([]error, len(notes))
	statRange := func(lo, hi int) {
		for k := lo; k < hi; k++ {
			infos[k].name = entries[notes[k]].name
			errs[k] = fstatatInto(fd, &infos[k])
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
	var paths strings.Builder
	if rel != "" {
		paths.Grow(pathBytes)
		for _, i := range notes {
			paths.WriteString(rel)
			paths.WriteByte('/')
			paths.WriteString(entries[i].name)
		}
	}
	all, at := paths.String(), 0
	k := 0
	for i, d := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := d.name
		if k < len(notes) && notes[k] == i {
			info, err := &infos[k], errs[k]
			k++
			r := name
			if rel != "" {
				r = all[at : at+len(rel)+1+len(name)]
				at += len(r)
			}
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed while walking
				}
				return err
			}
			if err := w.fn(r, info); err != nil {
				if errors.Is(err, fs.SkipDir) {
					return nil
				}
				return err
			}
			continue
		}
		p := filepath.Join(abs, name)
		if strings.HasPrefix(name, ".") {
			if w.temp != nil && d.typ == 0 {
				if pid, ok := parseTempName(name); ok {
					w.temp(p, d.entry(p), pid)
				}
			}
			continue
		}
		if d.typ == fs.ModeDir {
			if err := w.dir(joinRel(rel, name), p); err != nil {
				return err
			}
			continue
		}
		if !strings.HasSuffix(name, ".md") || d.typ&fs.ModeSymlink == 0 {
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

// dirent is a folder entry as the kernel lists it: its name and its type
// bits (fs.FileMode's, 0 for a regular file).
type dirent struct {
	name string
	typ  fs.FileMode
}

// entry returns d, at path p, as an fs.DirEntry whose Info is p's lstat,
// as os.ReadDir's entries are.
func (d dirent) entry(p string) fs.DirEntry { return lazyEntry{d, p} }

// lazyEntry is the fs.DirEntry of a dirent.
type lazyEntry struct {
	d dirent
	p string
}

func (e lazyEntry) Name() string               { return e.d.name }
func (e lazyEntry) IsDir() bool                { return e.d.typ == fs.ModeDir }
func (e lazyEntry) Type() fs.FileMode          { return e.d.typ }
func (e lazyEntry) Info() (fs.FileInfo, error) { return os.Lstat(e.p) }

// direntBuf is the size of the buffer readDir lists a folder with.
const direntBuf = 64 << 10

// readDir opens the folder at abs without following a link and lists its
// entries in name order, reading them into buf: what os.ReadDir gives,
// without an allocation per entry (the names are cut from one string per
// getdents call). The caller closes fd when it is not -1; the entries'
// stats are taken relative to it.
func readDir(abs string, buf []byte) (entries []dirent, fd int, err error) {
	for {
		fd, err = unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, -1, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fd, &fs.PathError{Op: "readdirent", Path: abs, Err: err}
		}
		if n <= 0 {
			break
		}
		if entries, err = parseDirents(fd, abs, string(buf[:n]), entries); err != nil {
			return nil, fd, err
		}
	}
	slices.SortFunc(entries, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return entries, fd, nil
}

// parseDirents appends the linux_dirent64 records in b (one getdents
// call's) to entries, skipping "." and ".."; an entry of unknown type is
// lstat'ed (relative to fd), and skipped when it is gone, as os.ReadDir
// does.
func parseDirents(fd int, abs, b string, entries []dirent) ([]dirent, error) {
	const nameOff = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
	for len(b) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16([]byte{b[16], b[17]}))
		if reclen < nameOff || reclen > len(b) {
			return nil, &fs.PathError{Op: "readdirent", Path: abs, Err: unix.EIO}
		}
		rec := b[:reclen]
		b = b[reclen:]
		if ino := rec[:8]; ino == "\x00\x00\x00\x00\x00\x00\x00\x00" {
			continue // a deleted entry
		}
		// The name ends at its NUL byte, which stays after it in b's
		// memory: lstatName passes the name to the kernel as it is.
		name := rec[nameOff:]
		i := strings.IndexByte(name, 0)
		if i < 0 {
			return nil, &fs.PathError{Op: "readdirent", Path: abs, Err: unix.EIO}
		}
		name = name[:i]
		if name == "." || name == ".." {
			continue
		}
		var typ fs.FileMode
		switch rec[18] {
		case unix.DT_REG:
		case unix.DT_DIR:
			typ = fs.ModeDir
		case unix.DT_LNK:
			typ = fs.ModeSymlink
		case unix.DT_FIFO:
			typ = fs.ModeNamedPipe
		case unix.DT_SOCK:
			typ = fs.ModeSocket
		case unix.DT_CHR:
			typ = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			typ = fs.ModeDevice
		default:
			s := statInfo{name: name}
			if err := fstatatInto(fd, &s); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, err
			}
			typ = s.Mode().Type()
		}
		entries = append(entries, dirent{name: name, typ: typ})
	}
	return entries, nil
}

// joinRel joins a vault path and a name.
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// fstatatInto stats s.name in the folder open as fd into s, without
// following a link. s.name is a name readDir cut from the kernel's
// records: a NUL byte follows it in memory (see lstatName).
func fstatatInto(fd int, s *statInfo) error {
	var st unix.Stat_t
	for {
		err := lstatName(fd, s.name, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "fstatat", Path: s.name, Err: err}
		}
		s.set(&st)
		return nil
	}
}

// statInfo is the fs.FileInfo of a stat taken by walk: the fields of the
// stat it reads, not the whole stat (a third of its size, for the
// 100,000 a sync holds).
type statInfo struct {
	name              string
	size              int64
	mtimeSec, mtimeNS int64
	ctimeNS           int64
	ino               uint64
	mode              uint32
}

// set fills s from st.
func (s *statInfo) set(st *unix.Stat_t) {
	s.size = st.Size
	s.mtimeSec, s.mtimeNS = st.Mtim.Unix()
	sec, nsec := st.Ctim.Unix()
	s.ctimeNS = sec*1e9 + nsec
	s.ino = st.Ino
	s.mode = st.Mode
}

func (s *statInfo) Name() string { return s.name }
func (s *statInfo) Size() int64  { return s.size }
func (s *statInfo) ModTime() time.Time {
	return time.Unix(s.mtimeSec, s.mtimeNS)
}
func (s *statInfo) IsDir() bool { return s.Mode().IsDir() }

// Sys is nil: Identity gives what sync reads of the stat besides the
// fs.FileInfo fields.
func (s *statInfo) Sys() any { return nil }

// Mode is the file's mode as os.Lstat gives it.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.mode & 0o777)
	switch s.mode & unix.S_IFMT {
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
	if s.mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// Identity returns the file's status-change time in nanoseconds and its
// inode number: what sync compares besides size and mtime (the indexer
// reads it from a *syscall.Stat_t otherwise).
func (s *statInfo) Identity() (ctimeNS, inode int64) {
	return s.ctimeNS, int64(s.ino)
}
