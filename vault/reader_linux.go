package vault

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// Reader reads many notes, as Vault.ReadFile does, for a sync that reads
// the files its walk listed: with the vault's folder open once, each note
// is opened relative to it in one call that refuses any symbolic link on
// the way and any way out of the vault (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS), where ReadFile checks the path, resolves every
// link in it, opens the vault's root and stats the file before opening it
// (half of a cold sync's reading). A path that opening cannot take so —
// a link on the way, a file that is not a regular one, an error, a kernel
// without openat2 — is read by ReadFile, so the results and errors are
// ReadFile's.
type Reader struct {
	v    *Vault
	root int // the vault's folder, -1 when it could not be opened
}

// NewReader returns a Reader of v's notes; the caller closes it.
func (v *Vault) NewReader() *Reader {
	fd, err := unix.Open(v.Root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	return &Reader{v: v, root: fd}
}

// Close releases the vault's folder.
func (r *Reader) Close() error {
	if r.root < 0 {
		return nil
	}
	err := unix.Close(r.root)
	r.root = -1
	if err != nil {
		return fmt.Errorf("close vault folder: %w", err)
	}
	return nil
}

// ReadFile is Vault.ReadFile.
func (r *Reader) ReadFile(rel string) ([]byte, fs.FileInfo, error) {
	if data, info, ok := r.read(rel); ok {
		return data, info, nil
	}
	return r.v.ReadFile(rel)
}

// read reads the regular file at rel when it can be opened beneath the
// vault without following a link, and reports whether it did.
func (r *Reader) read(rel string) ([]byte, fs.FileInfo, bool) {
	if r.root < 0 {
		return nil, nil, false
	}
	if clean, err := r.v.Rel(rel); err != nil || clean != rel {
		return nil, nil, false // ReadFile says why
	}
	fd, err := unix.Openat2(r.root, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, nil, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, false
	}
	info := &statInfo{name: baseName(rel)}
	if info.set(&st); !info.Mode().IsRegular() {
		return nil, nil, false
	}
	// Read to the end: the file may have grown since the stat.
	data := make([]byte, 0, info.size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, false
		}
		if n == 0 {
			return data, info, true
		}
		data = data[:len(data)+n]
	}
}

// baseName is the last element of a vault path.
func baseName(rel string) string {
	for i := len(rel) - 1; i >= 0; i-- {
		if rel[i] == '/' {
			return rel[i+1:]
		}
	}
	return rel
}
