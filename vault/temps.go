package vault

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema/internal/lock"
)

// Temporary files. [Writer.WriteFile] writes a note to
// ".<name>.tmp-<pid>-<16 hex digits>" in the note's folder before renaming
// it into place (<name> is the note's file name, cut to 64 bytes). A writer
// killed in between leaves that file behind; [Vault.CleanTemps] removes it
// once it is old and its process is gone. (Before the PID was added the
// names were ".<name>.tmp-<16 hex digits>"; CleanTemps removes those too,
// by age alone.)

// tempMarker separates a note's name from the suffix of its temporary file.
const tempMarker = ".tmp-"

// tempName returns a new temporary file name for the note file base.
func tempName(base string) string {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	// keep the name short: base may be near the file system's limit
	if len(base) > 64 {
		base = base[:64]
	}
	return "." + strings.ToValidUTF8(base, "") + tempMarker +
		strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
}

// parseTempName reports whether name is one of noema's temporary files and
// returns the PID it carries (0 for the old format without one).
func parseTempName(name string) (pid int, ok bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	i := strings.LastIndex(name, tempMarker)
	if i < 1 {
		return 0, false
	}
	suffix := name[i+len(tempMarker):]
	if p, rnd, found := strings.Cut(suffix, "-"); found {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || p[0] == '+' || p[0] == '0' {
			return 0, false
		}
		pid, suffix = n, rnd
	}
	if len(suffix) != 16 {
		return 0, false
	}
	for i := 0; i < len(suffix); i++ {
		if c := suffix[i]; !isASCIIDigit(c) && (c < 'a' || c > 'f') {
			return 0, false
		}
	}
	return pid, true
}

// CleanTemps removes the temporary files that killed writers left behind:
// files named like [Writer.WriteFile]'s temporary files, last modified more
// than olderThan ago, whose writer — the PID in the name — is not a live
// process on this machine (names without a PID: age alone decides; the
// current process's files are always kept). It returns their
// vault-relative paths.
//
// It walks as [Vault.Walk] does (skipping dot-folders such as .noema and
// .git, never following a linked folder; a link is never removed), and is
// [Vault.WalkCleaningTemps] without notes to visit. A PID is only
// meaningful on the machine that wrote the file; a vault shared with other
// machines relies on the age: no write takes minutes, so olderThan = 5
// minutes (what sync uses) is safe. A reused PID only delays the cleanup.
func (v *Vault) CleanTemps(ctx context.Context, olderThan time.Duration) (removed []string, err error) {
	// A folder it cannot read holds no temporary file it could remove.
	removed, cleanErr, err := v.WalkCleaningTemps(ctx, olderThan, func(string, fs.FileInfo) error { return nil }, func(string, error) {})
	if err != nil {
		return removed, err
	}
	return removed, cleanErr
}

// WalkCleaningTemps is [Vault.Walk] that also removes, in the same pass
// over the folders, the temporary files [Vault.CleanTemps] would remove:
// sync uses it so that cleaning costs no second walk. Failures to remove a
// file are joined into cleanErr; err is the walk's. unreadable, when not
// nil, is called with each folder below the root that cannot be read (a
// permission denied, say) and the walk goes on without it; when nil, such
// a folder ends the walk with its error.
func (v *Vault) WalkCleaningTemps(ctx context.Context, olderThan time.Duration, fn func(rel string, info fs.FileInfo) error, unreadable func(rel string, err error)) (removed []string, cleanErr, err error) {
	var stale []string
	cutoff := time.Now().Add(-olderThan)
	self := os.Getpid()
	err = v.walk(ctx, fn, func(p string, d fs.DirEntry, pid int) {
		info, ierr := d.Info()
		if ierr != nil || !info.ModTime().Before(cutoff) || pid == self || (pid > 0 && writerAlive(pid)) {
			return
		}
		if rel, rerr := filepath.Rel(v.Root, p); rerr == nil {
			stale = append(stale, rel)
		}
	}, unreadable)
	if err != nil || len(stale) == 0 {
		return nil, nil, err
	}
	root, rerr := v.openRoot()
	if rerr != nil {
		return nil, rerr, nil
	}
	defer root.Close()
	var errs []error
	for _, rel := range stale {
		if err := root.Remove(rel); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove temporary file %s: %w", filepath.ToSlash(rel), err))
			}
			continue
		}
		removed = append(removed, filepath.ToSlash(rel))
	}
	return removed, errors.Join(errs...), nil
}

// writerAlive reports whether the process that wrote a temporary file may
// still be running: where the system cannot tell, age alone decides.
func writerAlive(pid int) bool {
	alive, known := lock.ProcessAlive(pid)
	return known && alive
}
