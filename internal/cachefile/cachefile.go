// Package cachefile writes and names the files noema keeps beside an
// index to start faster (find_concepts' names, the note chunks' vectors):
// caches of what the index holds, never the truth, each checked by its
// reader (identity, checksum) and read as absent at any doubt.
package cachefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"
)

// BuildID returns the name of the running build, for caches whose
// contents depend on the code that wrote them (the concept names' find
// index, the chunk vectors' int8 codes): the main module's version (a
// pseudo-version names the commit, "+dirty" a modified tree) with the
// executable's size and modification time, so that another build — even
// of the same commit — has another. "" when the executable cannot be
// found: then a cache that needs it is not kept.
var BuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return fmt.Sprintf("%s %d %d", version, fi.Size(), fi.ModTime().UnixNano())
})

// Write writes path through write, atomically: into a temporary file of
// the same folder, renamed over path, so that a process killed while
// writing leaves the old file or none. No fsync: a cache the system lost
// part of fails its reader's checksum and is read as absent. Temporary
// files of path older than an hour (a process killed while writing) are
// removed.
func Write(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if old, err := filepath.Glob(filepath.Join(dir, base+".*.tmp")); err == nil {
		for _, o := range old {
			if fi, err := os.Stat(o); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(o)
			}
		}
	}
	f, err := os.CreateTemp(dir, base+".*.tmp")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
