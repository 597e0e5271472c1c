package vault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/noema-mem/noema"
)

// Changesets. An operation that changes several files at once (deleting a
// concept unlinks it in every note; merging concepts, renaming a concept and
// moving a note rewrite links in many notes) plans every change first, as a
// [noema.Changeset], and then applies it with [Writer.Apply], which is
// all-or-nothing across the files:
//
//  1. Every file must still have the checksum the plan was made from (or
//     still be absent); otherwise nothing is written and the error is
//     noema.ECHECKSUM naming the file and its current checksum.
//  2. Every new version is written to a temporary file beside its target
//     (named like [Writer.WriteFile]'s) and synced, and so are the folders.
//  3. A journal, .noema/changeset.journal, records the plan: for each file
//     its path, its before-checksum, a copy of its before-bytes (so the
//     change can be rolled back), the checksum of its after-bytes and the
//     temporary file holding them. It is written to a temporary name,
//     synced, renamed into place and its folder synced.
//  4. Each temporary file is renamed over its target (or the target is
//     removed); the folders are synced. A changeset that names its
//     operation is then recorded in the operation log (see
//     operations.go), which recovery also does from the journal.
//  5. The journal is removed.
//
// A process killed in between leaves the journal; [Vault.Recover], called
// when a vault is opened (and by Apply itself before it starts), finishes
// it. Recovery rolls forward: once the journal is durable every new version
// is already on disk in its temporary file, so finishing is a few renames,
// and it completes the operation the caller asked for. It rolls back
// instead, restoring the before-bytes kept in the journal, when a
// temporary file of a file still to be replaced is missing or damaged (a
// sync removes temporary files of dead processes after 5 minutes, so a
// vault left unopened that long after a crash may have lost them). Either
// way every file ends in its before-state or every file in its after-state.
// The one exception is a file that some other program changed after the
// crash (it has neither checksum): it is never overwritten, and the
// recovery reports it in [Recovery.Conflicts].
//
// A journal is valid only when it is complete: its first line carries the
// SHA-256 of the rest, and a journal whose checksum does not match (a crash
// while it was being written, which the rename into place should already
// exclude) is set aside as changeset.journal.invalid. Since nothing is
// renamed before the journal is durable, an invalid journal means no file
// was changed, and the only leftovers are temporary files that sync removes.
//
// An error inside Apply after the journal is written (a failed rename, a
// file changed by an editor that takes no lock) rolls back what was already
// renamed, so that an error from Apply always means nothing changed.

// JournalFile is the name of the changeset journal, inside .noema/.
const JournalFile = "changeset.journal"

// Recovery describes an unfinished changeset that [Vault.Recover] found and
// finished.
type Recovery struct {
	// Action is "rolled_forward" (every file now has its new version),
	// "rolled_back" (every file has its old version again) or "discarded"
	// (an incomplete journal: no file had been changed).
	Action string `json:"action"`
	// Files are the vault-relative paths of the changeset's files.
	Files []string `json:"files"`
	// Conflicts are files changed by another program since the crash,
	// left as they are.
	Conflicts []string `json:"conflicts,omitempty"`
	// Started is when the interrupted changeset was applied.
	Started time.Time `json:"started,omitzero"`
	// At is when it was recovered.
	At time.Time `json:"at"`
}

// Recovery actions.
const (
	RolledForward = "rolled_forward"
	RolledBack    = "rolled_back"
	Discarded     = "discarded"
)

// journal is the content of .noema/changeset.journal.
type journal struct {
	Started time.Time     `json:"started"`
	PID     int           `json:"pid"`
	Files   []journalFile `json:"files"`
	// Op is the operation the changeset records in the operation log
	// (see operations.go), or nil.
	Op *opRef `json:"operation,omitempty"`
}

type journalFile struct {
	Path   string `json:"path"`
	Before string `json:"before"`         // checksum or noema.Absent
	Data   []byte `json:"data,omitempty"` // the before-bytes
	Mode   uint32 `json:"mode"`           // the before file's permissions
	After  string `json:"after"`          // checksum or noema.Absent (a deletion)
	Temp   string `json:"temp,omitempty"` // vault-relative file holding the after-bytes
}

const journalMagic = "noema-changeset 1 "

// LastRecovery returns the last unfinished changeset this process
// recovered in the vault (with [Vault.Recover] or at the start of an
// Apply), or nil.
func (v *Vault) LastRecovery() *Recovery {
	v.recoveryMu.Lock()
	defer v.recoveryMu.Unlock()
	return v.lastRecovery
}

// crash wraps a test hook's error: Apply then leaves everything as it is.
type crash struct{ err error }

func (c *crash) Error() string { return c.err.Error() }
func (c *crash) Unwrap() error { return c.err }

// Apply applies cs all-or-nothing (see the package's section on
// changesets): either every file gets its planned version or none does,
// even across a crash, once [Vault.Recover] has run. A file whose content
// no longer has its planned before-checksum stops it with noema.ECHECKSUM
// before anything is written; the error's details hold the file's "path"
// and its current "checksum" (noema.Absent for a missing file).
//
// Read the before-versions under the same lock (w's).
func (w *Writer) Apply(ctx context.Context, cs *noema.Changeset) error {
	_, err := w.apply(ctx, cs)
	return err
}

// apply is Apply, returning the changes as the feed recorded them.
func (w *Writer) apply(ctx context.Context, cs *noema.Changeset) ([]noema.Change, error) {
	a, err := w.applyChangeset(ctx, cs)
	if err != nil || a == nil {
		return nil, err
	}
	return a.changes, nil
}

// applyChangeset is Apply, returning the application (nil when cs is
// empty or a working copy left the change to its follower).
func (w *Writer) applyChangeset(ctx context.Context, cs *noema.Changeset) (*application, error) {
	if err := w.held(); err != nil {
		return nil, err
	}
	if cs == nil || len(cs.Changes) == 0 {
		return nil, nil
	}
	v := w.v
	// A journal left by a writer that died: finish it first, so that this
	// changeset's journal cannot replace it. The plan is checked below
	// against what that leaves.
	if _, err := v.recover(); err != nil {
		return nil, err
	}
	root, err := v.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	a := &application{v: v, root: root, cs: cs, dirs: map[string]bool{}, logsUpstream: w.logsUpstream()}
	if err := a.check(); err != nil {
		return nil, err
	}
	defer a.cleanUp()
	if err := a.stage(); err != nil {
		return nil, err
	}
	up := w.up()
	if up != nil {
		if err := a.pushChangeset(ctx, w, up); err != nil {
			return nil, err
		}
	}
	if err := a.journal(); err != nil {
		if up != nil && !a.crashed {
			v.lagged(err, cs.Paths()...)
			return nil, nil
		}
		return nil, err
	}
	if err := a.commit(); err != nil {
		if up != nil && !a.crashed {
			v.lagged(err, cs.Paths()...)
			return nil, nil
		}
		return nil, err
	}
	if err := a.logOperation(); err != nil {
		return nil, err
	}
	if err := a.stop(len(a.j.Files)); err != nil {
		return nil, err
	}
	a.finish()
	if a.j.Op != nil {
		v.pruneOperations(root, a.j.Op.ID)
	}
	a.changes = v.record(feedChanges(a.j, true)...)
	return a, nil
}

// feedChanges are the feed's records of j's files in their after-states
// (forward) or before-states.
func feedChanges(j *journal, forward bool) []noema.Change {
	out := make([]noema.Change, 0, len(j.Files))
	for _, f := range j.Files {
		sum := f.Before
		if forward {
			sum = f.After
		}
		kind := noema.ChangeWrite
		if sum == noema.Absent {
			kind = noema.ChangeDelete
		}
		out = append(out, noema.Change{Path: f.Path, Kind: kind, Checksum: sum})
	}
	return out
}

// application is one run of [Writer.Apply]: the changeset, the journal
// planned from it, and what has been done so far, for the cleanup.
type application struct {
	v    *Vault
	root *os.Root
	cs   *noema.Changeset
	j    *journal
	// op names the changeset's operation (nil: none); the journal names
	// it too unless logsUpstream: the upstream records it, in the same
	// step as the change, and the folder does not.
	op           *opRef
	logsUpstream bool
	// dirs are the folders whose entries changed, to be synced.
	dirs map[string]bool
	// undoDirs remove the folders created for the new files, last first.
	undoDirs []func()
	// crashed: a simulated crash (FaultHook) or a failed rollback left the
	// journal and the temporary files for the next Recover.
	crashed bool
	// applied: every file is in place.
	applied bool
	// changes are the feed's records of the applied changeset.
	changes []noema.Change
}

// check checks the plan against the files (step 1) and plans the journal:
// every path valid and listed once, every file still at its
// before-checksum, every new file's name portable.
func (a *application) check() error {
	a.j = &journal{Started: time.Now().UTC(), PID: os.Getpid()}
	if a.cs.Operation != "" {
		id := a.cs.OperationID
		if id == "" {
			id = noema.NewOperationID(a.j.Started)
		} else if err := noema.CheckOperationID(id); err != nil {
			return err
		}
		a.op = &opRef{ID: id, Tool: a.cs.Operation}
		if !a.logsUpstream {
			a.j.Op = a.op
		}
	}
	seen := map[string]bool{}
	for _, c := range a.cs.Changes {
		r, err := a.v.check(c.Path)
		if err != nil {
			return err
		}
		if seen[r] {
			return noema.Errorf(noema.EINVALID, "the changeset lists %s twice", r)
		}
		seen[r] = true
		if c.Delete && c.Before == noema.Absent {
			return noema.Errorf(noema.EINVALID, "the changeset deletes %s, planned as absent", r)
		}
		cur, mode, err := a.v.current(r)
		if err != nil {
			return err
		}
		if sum := sumOf(cur); sum != c.Before {
			return changedError(r, sum)
		}
		if cur == nil {
			if err := checkNew(a.root, r); err != nil {
				return err
			}
		}
		f := journalFile{Path: r, Before: c.Before, Data: cur, Mode: uint32(mode), After: noema.Absent}
		if !c.Delete {
			f.After = noema.Checksum(c.After)
		}
		a.j.Files = append(a.j.Files, f)
	}
	return nil
}

// stage writes every new version to a temporary file beside its target,
// creating the folders it needs, and syncs them (step 2).
func (a *application) stage() error {
	for i, c := range a.cs.Changes {
		f := &a.j.Files[i]
		if c.Delete {
			continue
		}
		dir := path.Dir(f.Path)
		undo, err := mkdirs(a.root, filepath.FromSlash(dir))
		if err != nil {
			return fsError("write", f.Path, err)
		}
		a.undoDirs = append(a.undoDirs, undo)
		tmp, err := a.v.writeTemp(a.root, f.Path, filepath.FromSlash(dir), c.After, fs.FileMode(f.Mode))
		if err != nil {
			return fsError("write", f.Path, err)
		}
		f.Temp = filepath.ToSlash(tmp)
		a.dirs[dir] = true
	}
	return a.syncDirs()
}

// journal writes the journal durably (step 3): from here on the changeset
// is finished by Recover.
func (a *application) journal() error {
	if err := writeJournal(a.root, a.j, a.v.durable()); err != nil {
		return err
	}
	return a.stop(0)
}

// commit puts every file in place (step 4), checking each against its
// before-checksum once more, as ReplaceFile does, for writers that take no
// lock. A failure rolls back what was already renamed.
func (a *application) commit() error {
	for i, c := range a.cs.Changes {
		f := a.j.Files[i]
		cur, _, err := a.v.current(f.Path)
		if err != nil {
			return a.rollback(err)
		}
		if sum := sumOf(cur); sum != f.Before {
			return a.rollback(changedError(f.Path, sum))
		}
		name := filepath.FromSlash(f.Path)
		if c.Delete {
			err = a.root.Remove(name)
		} else {
			err = a.root.Rename(filepath.FromSlash(f.Temp), name)
		}
		if err != nil {
			return a.rollback(fsError("write", f.Path, err))
		}
		a.dirs[path.Dir(f.Path)] = true
		if i+1 < len(a.j.Files) {
			if err := a.stop(i + 1); err != nil {
				return err
			}
		}
	}
	if err := a.syncDirs(); err != nil {
		return a.rollback(err)
	}
	return nil
}

// finish removes the journal (step 5). A journal that cannot be removed is
// harmless: the next recovery finds every file already in place.
func (a *application) finish() {
	_ = removeJournal(a.root, a.v.durable())
	a.applied = true
}

// stop calls the vault's FaultHook with the number of files in place; its
// error is a simulated crash, which leaves everything as it is.
func (a *application) stop(i int) error {
	if a.v.FaultHook == nil {
		return nil
	}
	if err := a.v.FaultHook(i); err != nil {
		a.crashed = true
		return &crash{err}
	}
	return nil
}

// rollback undoes what was renamed after a failure in this process and
// returns cause; when it cannot, it leaves the journal to the next Recover.
func (a *application) rollback(cause error) error {
	if _, err := a.v.settle(a.root, a.j, false); err != nil {
		a.crashed = true
		return errors.Join(cause, fmt.Errorf("roll back changeset: %w", err))
	}
	if err := removeJournal(a.root, a.v.durable()); err != nil {
		a.crashed = true
		return errors.Join(cause, err)
	}
	return cause
}

// syncDirs syncs the folders whose entries changed.
func (a *application) syncDirs() error {
	for dir := range a.dirs {
		if err := a.v.syncDir(a.root, filepath.FromSlash(dir)); err != nil {
			return err
		}
	}
	return nil
}

// cleanUp removes the temporary files left (none once every file is
// renamed), and, when the changeset was not applied, the folders created
// for it — unless a crash left them to Recover.
func (a *application) cleanUp() {
	if a.crashed {
		return
	}
	for _, f := range a.j.Files {
		if f.Temp != "" {
			a.root.Remove(filepath.FromSlash(f.Temp)) // no-op once renamed
		}
	}
	if !a.applied {
		for _, undo := range slices.Backward(a.undoDirs) {
			undo()
		}
	}
}

// current returns rel's content (nil when it does not exist) and
// permissions (0644 for a missing file).
func (v *Vault) current(rel string) ([]byte, fs.FileMode, error) {
	data, info, err := v.ReadFile(rel)
	if err != nil {
		if noema.ErrorCode(err) == noema.ENOTFOUND {
			return nil, 0o644, nil
		}
		return nil, 0, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, info.Mode().Perm(), nil
}

// FileChecksum returns the checksum of the note at rel, or noema.Absent
// when there is none: what a write to the file expects to find.
func (v *Vault) FileChecksum(rel string) (string, error) {
	cur, _, err := v.current(rel)
	if err != nil {
		return "", err
	}
	return sumOf(cur), nil
}

// sumOf is Checksum, or noema.Absent for a missing file (nil).
func sumOf(data []byte) string {
	if data == nil {
		return noema.Absent
	}
	return noema.Checksum(data)
}

func changedError(rel, sum string) error {
	return &noema.Error{Code: noema.ECHECKSUM,
		Message: noema.NoteURI(rel) + " changed since the change was planned; nothing was written; read it again and retry",
		Details: map[string]any{"path": rel, "checksum": sum}}
}

// journalPath is the journal's path relative to the vault root.
var journalPath = filepath.Join(".noema", JournalFile)

// writeJournal writes j (see [writeSealed]).
func writeJournal(root *os.Root, j *journal, sync bool) error {
	if err := writeSealed(root, journalPath, journalMagic, j, sync); err != nil {
		return fmt.Errorf("write changeset journal: %w", err)
	}
	return nil
}

// writeSealed writes v as JSON to the vault-relative file rel: a first
// line with magic and the SHA-256 of the rest, then the JSON, in a
// temporary file, synced, renamed into place, and the folder synced
// (without sync, neither is synced).
func writeSealed(root *os.Root, rel, magic string, v any, sync bool) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	var buf bytes.Buffer
	buf.WriteString(magic + "sha256:" + hex.EncodeToString(sum[:]) + "\n")
	buf.Write(body)
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := rel + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	if !sync {
		return nil
	}
	return syncDir(root, dir)
}

// parseJournal decodes a journal, refusing one that is incomplete.
func parseJournal(data []byte) (*journal, error) {
	var j journal
	if err := parseSealed(data, journalMagic, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// parseSealed decodes what [writeSealed] wrote into v, refusing a file
// that is incomplete.
func parseSealed(data []byte, magic string, v any) error {
	header, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !bytes.HasPrefix(header, []byte(magic+"sha256:")) {
		return errors.New("no header")
	}
	want := string(header[len(magic)+len("sha256:"):])
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != want {
		return errors.New("checksum does not match (incomplete file)")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

func removeJournal(root *os.Root, sync bool) error {
	if err := root.Remove(journalPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove changeset journal: %w", err)
	}
	if !sync {
		return nil
	}
	return syncDir(root, ".noema")
}

// Recover finishes a changeset that a killed writer left unfinished (see
// the package's section on changesets) and returns what it did, or nil
// when there was none. It takes the vault's write lock (only when a
// journal exists), so it never touches a changeset still being applied.
// Call it when opening a vault, before anything reads the files, and
// re-index the returned files.
func (v *Vault) Recover(ctx context.Context) (*Recovery, error) {
	_, err1 := os.Lstat(filepath.Join(v.Root, journalPath))
	_, err2 := os.Lstat(filepath.Join(v.Root, journalPath+".tmp"))
	if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) {
		return nil, nil
	}
	var rec *Recovery
	err := v.Locked(ctx, func(w *Writer) error {
		var err error
		rec, err = w.v.recover()
		return err
	})
	return rec, err
}

// recover is Recover with the write lock held.
func (v *Vault) recover() (*Recovery, error) {
	root, err := v.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// A journal never renamed into place: no file was changed.
	if err := root.Remove(journalPath + ".tmp"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove incomplete changeset journal: %w", err)
	}
	f, err := root.Open(journalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read changeset journal: %w", err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read changeset journal: %w", err)
	}
	var rec *Recovery
	j, perr := parseJournal(data)
	if perr == nil {
		perr = v.checkJournal(j)
	}
	if perr != nil {
		// Incomplete or not ours: nothing was renamed before the journal
		// was durable, so nothing is undone; keep it for inspection.
		if err := root.Rename(journalPath, journalPath+".invalid"); err != nil {
			return nil, fmt.Errorf("set aside invalid changeset journal: %w", err)
		}
		if err := v.syncDir(root, ".noema"); err != nil {
			return nil, err
		}
		rec = &Recovery{Action: Discarded, Files: []string{}, At: time.Now().UTC()}
	} else {
		if rec, err = v.settle(root, j, true); err != nil {
			return nil, fmt.Errorf("recover changeset: %w", err)
		}
		if err := v.settleOperation(root, j, rec.Action == RolledForward); err != nil {
			return nil, fmt.Errorf("recover changeset: %w", err)
		}
		if err := removeJournal(root, v.durable()); err != nil {
			return nil, err
		}
		changes := feedChanges(j, rec.Action == RolledForward)
		v.record(slices.DeleteFunc(changes, func(c noema.Change) bool { return slices.Contains(rec.Conflicts, c.Path) })...)
	}
	v.recoveryMu.Lock()
	v.lastRecovery = rec
	v.recoveryMu.Unlock()
	return rec, nil
}

// checkJournal refuses a journal naming paths outside the vault, or
// temporary files that are not beside their targets.
func (v *Vault) checkJournal(j *journal) error {
	for _, f := range j.Files {
		r, err := v.Rel(f.Path)
		if err != nil || r != f.Path {
			return fmt.Errorf("journal names an invalid path %q", f.Path)
		}
		if f.Temp == "" {
			if f.After != noema.Absent {
				return fmt.Errorf("journal has no temporary file for %s", f.Path)
			}
			continue
		}
		// beside its target, in clean form
		if f.Temp != path.Join(path.Dir(f.Path), path.Base(f.Temp)) {
			return fmt.Errorf("journal names an invalid temporary file %q", f.Temp)
		}
		if _, ok := parseTempName(path.Base(f.Temp)); !ok {
			return fmt.Errorf("journal names an invalid temporary file %q", f.Temp)
		}
	}
	return nil
}

// settle brings every file of j to its after-state (forward) or its
// before-state, then removes the temporary files. Forward falls back to
// backward when a temporary file still needed is missing or damaged. Files
// that have neither their before- nor their after-checksum are left alone
// and reported as conflicts.
func (v *Vault) settle(root *os.Root, j *journal, forward bool) (*Recovery, error) {
	type state struct{ sum string }
	states := make([]state, len(j.Files))
	rec := &Recovery{Started: j.Started, At: time.Now().UTC(), Files: []string{}}
	for i, f := range j.Files {
		cur, _, err := v.current(f.Path)
		if err != nil {
			if _, coded := errors.AsType[*noema.Error](err); !coded {
				return nil, err
			}
			// Not a note any more (a folder, a FIFO, a link out of the
			// vault): someone else's doing; leave it (a conflict).
			states[i] = state{sum: "unreadable"}
			rec.Files = append(rec.Files, f.Path)
			continue
		}
		states[i] = state{sumOf(cur)}
		rec.Files = append(rec.Files, f.Path)
		pending := states[i].sum == f.Before && f.Before != f.After
		if forward && pending && f.After != noema.Absent {
			if tmp, err := readTemp(root, f.Temp); err != nil || noema.Checksum(tmp) != f.After {
				forward = false
			}
		}
	}
	dirs := map[string]bool{}
	for i, f := range j.Files {
		st := states[i]
		name := filepath.FromSlash(f.Path)
		switch {
		case st.sum == f.Before && st.sum == f.After:
			// nothing to do either way
		case forward && st.sum == f.Before:
			var err error
			if f.After == noema.Absent {
				err = root.Remove(name)
			} else {
				err = root.Rename(filepath.FromSlash(f.Temp), name)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fsError("write", f.Path, err)
			}
		case !forward && st.sum == f.After:
			if f.Before == noema.Absent {
				if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, fsError("write", f.Path, err)
				}
				break
			}
			dir := filepath.Dir(name)
			if dir != "." {
				if err := root.MkdirAll(dir, 0o755); err != nil {
					return nil, fsError("write", f.Path, err)
				}
			}
			mode := fs.FileMode(f.Mode).Perm()
			if mode == 0 {
				mode = 0o644
			}
			data := f.Data
			if data == nil {
				data = []byte{}
			}
			tmp, err := v.writeTemp(root, f.Path, dir, data, mode)
			if err != nil {
				return nil, fsError("write", f.Path, err)
			}
			if err := root.Rename(tmp, name); err != nil {
				root.Remove(tmp)
				return nil, fsError("write", f.Path, err)
			}
		case st.sum != f.Before && st.sum != f.After:
			rec.Conflicts = append(rec.Conflicts, f.Path)
		}
		dirs[path.Dir(f.Path)] = true
	}
	for _, f := range j.Files {
		if f.Temp != "" {
			if err := root.Remove(filepath.FromSlash(f.Temp)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("remove temporary file %s: %w", f.Temp, err)
			}
		}
	}
	sorted := make([]string, 0, len(dirs))
	for d := range dirs {
		sorted = append(sorted, d)
	}
	sort.Strings(sorted)
	for _, d := range sorted {
		if err := v.syncDir(root, filepath.FromSlash(d)); err != nil {
			return nil, err
		}
	}
	rec.Action = RolledBack
	if forward {
		rec.Action = RolledForward
	}
	return rec, nil
}

// readTemp reads a temporary file of a changeset (a regular file).
func readTemp(root *os.Root, rel string) ([]byte, error) {
	name := filepath.FromSlash(rel)
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return root.ReadFile(name)
}
