package vault

import (
	"bytes"
	"cmp"
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
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// walk is walkDir's walk, with its results in its order, made cheaper for
// a sync of a large vault, whose no-op is mostly this walk: each folder is
// opened once and its notes are stat'ed relative to it (fstatat: the
// kernel resolves one name instead of the whole path, and no path is
// built). Folders are read — listed, sorted, their notes stat'ed — on
// several goroutines ahead of the visit, which calls fn in walkDir's
// order: listing one folder overlaps the stats of another, a large
// folder's stats are spread over the cores in parts, and a vault of many
// small folders uses every core too. Symbolic links, dot-files (temporary
// files) and unreadable folders take walkDir's paths.
func (v *Vault) walk(ctx context.Context, fn func(rel string, info fs.FileInfo) error, temp func(p string, d fs.DirEntry, pid int), unreadable func(rel string, err error)) error {
	root, err := v.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	w := &walker{v: v, root: root, ctx: ctx, fn: fn, temp: temp, unreadable: unreadable}
	top := w.start(v.Root)
	err = w.visit(top)
	w.stop()
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		err = nil
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("walk vault: %w", err)
	}
	return err
}

// walker is one walk's state: the folders to read, the goroutines reading
// them, and the visit's callbacks.
type walker struct {
	v          *Vault
	root       *os.Root
	ctx        context.Context
	fn         func(rel string, info fs.FileInfo) error
	temp       func(p string, d fs.DirEntry, pid int)
	unreadable func(rel string, err error)

	mu      sync.Mutex
	wake    sync.Cond // signalled when a task is queued or the last one ends
	queue   []readTask
	pending int  // tasks queued or running
	skip    bool // the visit ended: what is left is not read
	readers sync.WaitGroup
}

// folder is a folder of the walk: where it is and, once done is closed,
// what reading it found.
type folder struct {
	rel, abs string
	done     chan struct{}
	left     atomic.Int32 // its read tasks not finished
	fd       int          // open while its notes are stat'ed, then -1
	err      error        // why it could not be listed
	// names holds, for each entry, its vault path followed by a NUL
	// byte; the entries' names and paths are cut from it.
	names string
	ents  []dirent   // in name order
	infos []statInfo // the notes' stats, in the order of ents
	notes []int32    // the index in ents of each note
	subs  []*folder  // the folders among ents, in name order
}

// readTask is a part of reading a folder: listing it (lo < 0), or
// stat'ing its notes lo to hi.
type readTask struct {
	f      *folder
	lo, hi int
}

// statPart is how many notes one read task stats: a large folder's stats
// are spread over the readers in parts of this size.
const statPart = 256

// readersFor returns how many goroutines read folders: one a core, and at
// least four, so that stats waiting on the disk (a cold cache) overlap.
func readersFor() int { return max(4, runtime.GOMAXPROCS(0)) }

// start queues the root folder at abs and starts the readers.
func (w *walker) start(abs string) *folder {
	w.wake.L = &w.mu
	top := w.newFolder("", abs)
	w.queue = append(w.queue, readTask{f: top, lo: -1})
	w.pending = 1
	for range readersFor() {
		w.readers.Go(w.read)
	}
	return top
}

// stop ends the readers once what they were given is done (skipped when
// the visit ended early) and waits for them: every folder's descriptor is
// closed when it returns.
func (w *walker) stop() {
	w.mu.Lock()
	w.skip = true
	w.mu.Unlock()
	w.readers.Wait()
}

func (w *walker) newFolder(rel, abs string) *folder {
	return &folder{rel: rel, abs: abs, done: make(chan struct{}), fd: -1}
}

// read runs read tasks until none is queued or running. The queue is a
// stack: the parts of the folder just listed come first, then its first
// subfolder — roughly the visit's order.
func (w *walker) read() {
	var buf []byte // readDir's, reused
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for len(w.queue) == 0 && w.pending > 0 {
			w.wake.Wait()
		}
		if len(w.queue) == 0 {
			return
		}
		t := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		skip := w.skip || w.ctx.Err() != nil
		w.mu.Unlock()
		var more []readTask
		if t.lo < 0 {
			more = w.list(t.f, &buf, skip)
		} else {
			if !skip {
				t.f.stat(t.lo, t.hi)
			}
			t.f.finished()
		}
		w.mu.Lock()
		w.queue = append(w.queue, more...)
		w.pending += len(more) - 1
		if len(more) > 0 || w.pending == 0 {
			w.wake.Broadcast()
		}
	}
}

// list lists f and returns the tasks it leaves: its subfolders' listings
// (the first last, to be taken first) and the stats of its notes past the
// first part, which it stats itself.
func (w *walker) list(f *folder, buf *[]byte, skip bool) []readTask {
	if skip {
		f.err = w.ctx.Err()
		if f.err == nil {
			f.err = fs.SkipAll
		}
		close(f.done)
		return nil
	}
	prefix := ""
	if f.rel != "" {
		prefix = f.rel + "/"
	}
	f.names, f.ents, f.fd, f.err = readDir(f.abs, prefix, buf)
	if f.err != nil {
		if f.fd >= 0 {
			unix.Close(f.fd)
			f.fd = -1
		}
		close(f.done)
		return nil
	}
	var subs int
	for i := range f.ents {
		d := &f.ents[i]
		name := f.name(d)
		switch {
		case d.typ == fs.ModeDir && !strings.HasPrefix(name, "."):
			subs++
		case d.typ == 0 && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".md"):
			f.notes = append(f.notes, int32(i))
		}
	}
	f.infos = make([]statInfo, len(f.notes))
	f.subs = make([]*folder, 0, subs)
	var tasks []readTask
	for i := range f.ents {
		d := &f.ents[i]
		if name := f.name(d); d.typ == fs.ModeDir && !strings.HasPrefix(name, ".") {
			f.subs = append(f.subs, w.newFolder(f.path(d), filepath.Join(f.abs, name)))
		}
	}
	for i := len(f.subs) - 1; i >= 0; i-- {
		tasks = append(tasks, readTask{f: f.subs[i], lo: -1})
	}
	parts := max(1, (len(f.notes)+statPart-1)/statPart)
	f.left.Store(int32(parts))
	for p := parts - 1; p >= 1; p-- {
		tasks = append(tasks, readTask{f: f, lo: p * statPart, hi: min((p+1)*statPart, len(f.notes))})
	}
	f.stat(0, min(statPart, len(f.notes)))
	f.finished()
	return tasks
}

// stat stats f's notes lo to hi.
func (f *folder) stat(lo, hi int) {
	for k := lo; k < hi; k++ {
		s := &f.infos[k]
		s.name = f.name(&f.ents[f.notes[k]])
		s.errno = 0
		if err := fstatatInto(f.fd, s); err != nil {
			e := unix.EIO
			errors.As(err, &e)
			s.errno = uint32(e)
		}
	}
}

// finished records that one of f's read tasks ended; the last closes its
// descriptor and tells the visit.
func (f *folder) finished() {
	if f.left.Add(-1) == 0 {
		unix.Close(f.fd)
		f.fd = -1
		close(f.done)
	}
}

// name returns d's name, followed in memory by a NUL byte.
func (f *folder) name(d *dirent) string { return f.names[d.at : d.at+d.n] }

// path returns d's vault path.
func (f *folder) path(d *dirent) string {
	return f.names[int(d.at)-len(f.rel)-min(1, len(f.rel)) : d.at+d.n]
}

// visit calls the walk's callbacks for f's entries, in name order, and
// visits its subfolders where they come.
func (w *walker) visit(f *folder) error {
	<-f.done
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if f.err != nil {
		if w.unreadable != nil && f.rel != "" {
			w.unreadable(f.rel, f.err)
			return nil
		}
		return f.err
	}
	k, sub := 0, 0
	for i := range f.ents {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		d := &f.ents[i]
		name := f.name(d)
		if k < len(f.notes) && int(f.notes[k]) == i {
			info := &f.infos[k]
			k++
			if info.errno != 0 {
				if err := unix.Errno(info.errno); err != unix.ENOENT {
					return &fs.PathError{Op: "fstatat", Path: name, Err: err}
				}
				continue // removed while walking
			}
			if err := w.fn(f.path(d), info); err != nil {
				if errors.Is(err, fs.SkipDir) {
					return nil
				}
				return err
			}
			continue
		}
		p := filepath.Join(f.abs, name)
		if strings.HasPrefix(name, ".") {
			if w.temp != nil && d.typ == 0 {
				if pid, ok := parseTempName(name); ok {
					w.temp(p, lazyEntry{name, d.typ, p}, pid)
				}
			}
			continue
		}
		if d.typ == fs.ModeDir {
			if err := w.visit(f.subs[sub]); err != nil {
				return err
			}
			sub++
			continue
		}
		if !strings.HasSuffix(name, ".md") || d.typ&fs.ModeSymlink == 0 {
			continue
		}
		// A symbolic link: followed through the root, which refuses
		// targets outside the vault, as walkDir does.
		r := f.path(d)
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

// dirent is a folder entry as the kernel lists it: where its name is in
// its folder's names, and its type bits (fs.FileMode's, 0 for a regular
// file). It holds no pointer: a folder of 100,000 entries is one
// allocation the collector does not scan.
type dirent struct {
	// key is the name's first eight bytes, big-endian, zeros after a
	// shorter name (a name holds no NUL byte): keys that differ order
	// their names as their bytes do, and the sort compares the names
	// only where they are equal.
	key   uint64
	at, n uint32
	typ   fs.FileMode
}

// lazyEntry is the fs.DirEntry of a folder entry at path p, whose Info is
// p's lstat, as os.ReadDir's entries are.
type lazyEntry struct {
	name string
	typ  fs.FileMode
	p    string
}

func (e lazyEntry) Name() string               { return e.name }
func (e lazyEntry) IsDir() bool                { return e.typ == fs.ModeDir }
func (e lazyEntry) Type() fs.FileMode          { return e.typ }
func (e lazyEntry) Info() (fs.FileInfo, error) { return os.Lstat(e.p) }

// direntBuf is the size of the buffer readDir reads the kernel's records
// into.
const direntBuf = 64 << 10

// readDir opens the folder at abs without following a link and lists its
// entries in name order: what os.ReadDir gives, without an allocation per
// entry. Each entry's vault path (prefix, then its name) is in names,
// followed by a NUL byte. The kernel's records are read into *buf, kept
// for the next folder. The caller closes fd when it is not -1; the
// entries' stats are taken relative to it.
func readDir(abs, prefix string, buf *[]byte) (names string, entries []dirent, fd int, err error) {
	for {
		fd, err = unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return "", nil, -1, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	if *buf == nil {
		*buf = make([]byte, direntBuf)
	}
	// The folder's size (its records' on most file systems) sizes its
	// names and entries: a folder of many notes grows neither. A wrong
	// guess costs an allocation.
	var st unix.Stat_t
	var guess int64
	if unix.Fstat(fd, &st) == nil {
		guess = min(max(st.Size, 0), 64<<20)
	}
	b := make([]byte, 0, guess+guess/24*int64(len(prefix)+1))
	ents := make([]dirent, 0, guess/24)
	for {
		n, err := unix.Getdents(fd, *buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", nil, fd, &fs.PathError{Op: "readdirent", Path: abs, Err: err}
		}
		if n <= 0 {
			break
		}
		if b, ents, err = parseDirents(fd, abs, prefix, (*buf)[:n], b, ents); err != nil {
			return "", nil, fd, err
		}
	}
	if len(b) > 0 {
		names = unsafe.String(&b[0], len(b)) // b is not written again
	}
	slices.SortFunc(ents, func(a, b dirent) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return strings.Compare(names[a.at:a.at+a.n], names[b.at:b.at+b.n])
	})
	return names, ents, fd, nil
}

// parseDirents appends to entries the linux_dirent64 records in b (one
// getdents call's), skipping "." and ".."; an entry of unknown type is
// lstat'ed (relative to fd), and skipped when it is gone, as os.ReadDir
// does. Each entry's vault path, prefix then its name, is appended to
// names with a NUL byte after it; the entry holds where its name is.
func parseDirents(fd int, abs, prefix string, b, names []byte, entries []dirent) ([]byte, []dirent, error) {
	const nameOff = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
	for len(b) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < nameOff || reclen > len(b) {
			return nil, nil, &fs.PathError{Op: "readdirent", Path: abs, Err: unix.EIO}
		}
		rec := b[:reclen]
		b = b[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 {
			continue // a deleted entry
		}
		name := rec[nameOff:]
		i := bytes.IndexByte(name, 0)
		if i < 0 {
			return nil, nil, &fs.PathError{Op: "readdirent", Path: abs, Err: unix.EIO}
		}
		name = name[:i]
		if string(name) == "." || string(name) == ".." {
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
			// The record's name is NUL-terminated: the kernel reads it
			// in place.
			s := statInfo{name: unsafe.String(&name[0], len(name))}
			if err := fstatatInto(fd, &s); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, nil, err
			}
			typ = s.Mode().Type()
		}
		names = append(names, prefix...)
		at := len(names)
		names = append(names, name...)
		names = append(names, 0)
		var k [8]byte
		copy(k[:], name)
		entries = append(entries, dirent{key: binary.BigEndian.Uint64(k[:]), at: uint32(at), n: uint32(len(name)), typ: typ})
	}
	return names, entries, nil
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
	errno             uint32 // the stat's error, 0 for none (walk)
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
