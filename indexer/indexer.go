// Package indexer keeps the SQLite index in step with the vault's files:
// incremental sync (unchanged files skipped by mtime and size, changed files
// re-derived completely, deleted files removed, renames detected by content
// hash), a full rebuild (reindex), and a debounced file watcher.
package indexer

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/internal/notepath"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vault"
)

// batchSize is how many changed notes one write transaction holds, to keep
// transactions short while other processes wait for the lock.
const batchSize = 1000

// bulkNotes is how many notes a sync must have to write before it readies
// the index for a bulk load (sqlite.DB.BulkLoad).
const bulkNotes = 5000

// metaStale is the meta key that records, durably, that notes were written
// and the concept registry not yet derived from them. A sync sets it in the
// transaction that first changes a note and clears it in the transaction
// that recomputes the registry; a sync that finds it set (the previous one
// was killed in between) recomputes even when no file changed. Every
// commit of a sync therefore leaves an index the next sync completes.
const metaStale = "registry_stale"

// Indexer syncs one vault into one index.
type Indexer struct {
	Vault        *vault.Vault
	DB           *sqlite.DB
	Logger       *slog.Logger
	MaxNoteBytes int64
	// Ignore is the concepts.ignore list (nil: none).
	Ignore *LinkFilter

	mu sync.Mutex // one whole-vault sync at a time in this process

	// afterWalk, when set (by tests), runs between the walk and reading the
	// files: the window in which a file can disappear mid-sync.
	afterWalk func()
	// beforePathsWrite, when set (by tests), runs in SyncPaths between
	// reading the files and taking the index's write lock.
	beforePathsWrite func()
	// afterCommit, when set (by tests), runs after each transaction of a
	// sync or reindex commits; an error from it ends the sync there, as a
	// kill at that moment would.
	afterCommit func(point string) error
	// statesRead, when set (by tests), is told whether a sync read the
	// note states from the saved snapshot.
	statesRead func(fromSnapshot bool)
	// batch overrides batchSize when positive (tests).
	batch int
	// bulk overrides bulkNotes when positive (tests).
	bulk int
}

// committed runs the afterCommit hook.
func (ix *Indexer) committed(point string) error {
	if ix.afterCommit == nil {
		return nil
	}
	return ix.afterCommit(point)
}

// New returns an Indexer with default limits (config.DefaultMaxNoteBytes).
func New(v *vault.Vault, db *sqlite.DB, logger *slog.Logger) *Indexer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Indexer{Vault: v, DB: db, Logger: logger, MaxNoteBytes: config.DefaultMaxNoteBytes}
}

// Progress is called with the number of files processed so far and the total.
type Progress func(done, total int)

// Warning is a file sync skipped, with the reason.
type Warning struct {
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result summarizes one sync.
type Result struct {
	Scanned   int       `json:"scanned"`
	Added     int       `json:"added"`
	Updated   int       `json:"updated"`
	Removed   int       `json:"removed"`
	Renamed   int       `json:"renamed"`
	Unchanged int       `json:"unchanged"`
	Skipped   int       `json:"skipped"`
	Warnings  []Warning `json:"warnings"`
	// DurationMS is the wall time of the sync in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// unreadableWarning is the warning of a folder a sync could not read.
func unreadableWarning(rel string, err error) Warning {
	cause := err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		cause = pe.Err
	}
	return Warning{Path: rel + "/", Code: noema.EUNAVAILABLE,
		Message: fmt.Sprintf("folder not readable (%v): skipped; the notes indexed from it are kept as they were, the rest of the vault is indexed", cause)}
}

// underAny reports whether the vault path p lies under one of the folders.
func underAny(p string, folders []string) bool {
	for _, f := range folders {
		if strings.HasPrefix(p, f+"/") {
			return true
		}
	}
	return false
}

// Changed reports whether the sync changed the index.
func (r *Result) Changed() bool { return r.Added+r.Updated+r.Removed+r.Renamed > 0 }

type fileEntry struct {
	rel  string
	info fs.FileInfo
	// state is the index of the note's state in the sync's states, -1
	// when the note has none (a new file).
	state int32
}

type parsed struct {
	entry fileEntry
	rec   *sqlite.NoteRecord
	warn  *Warning
	gone  bool // the file disappeared between walk and read
}

// Sync brings the index in step with the files, doing only the work that
// changed files need.
func (ix *Indexer) Sync(ctx context.Context, progress Progress) (*Result, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.sync(ctx, progress)
}

// Reindex re-derives every note from its file and recomputes the concept
// registry, keeping access statistics. It works in place: it marks every
// note for re-derivation (sqlite.Rederive) and syncs, so readers keep
// seeing a complete index while it runs, and a reindex that is killed is
// finished by the next sync.
func (ix *Indexer) Reindex(ctx context.Context, progress Progress) (*Result, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	err := ix.DB.Write(ctx, func(tx *sqlite.Tx) error {
		if err := sqlite.MarkAllRederive(tx); err != nil {
			return err
		}
		return sqlite.SetMeta(tx, metaStale, "1")
	})
	if err != nil {
		return nil, fmt.Errorf("start reindex: %w", err)
	}
	if err := ix.committed("mark"); err != nil {
		return nil, err
	}
	return ix.sync(ctx, progress)
}

// Repair finishes the work of a sync that was killed after it committed
// notes and before it derived the concept registry from them (see
// metaStale): it recomputes the registry when the index says it is stale,
// and does nothing otherwise. Opening an index calls it, so a command run
// after such a kill never answers from a half-built registry.
func (ix *Indexer) Repair(ctx context.Context) (repaired bool, err error) {
	var stale bool
	if err := ix.DB.ReadTx(ctx, func(tx *sql.Tx) error {
		stale, err = sqlite.HasMeta(tx, metaStale)
		return err
	}); err != nil || !stale {
		return false, err
	}
	err = ix.DB.Write(ctx, func(tx *sqlite.Tx) error {
		// Checked again under the write lock: a sync may have finished.
		if still, err := sqlite.HasMeta(tx.Tx, metaStale); err != nil || !still {
			return err
		}
		if _, err := sqlite.RecomputeConcepts(tx, vault.Key); err != nil {
			return err
		}
		repaired = true
		return sqlite.DeleteMeta(tx, metaStale)
	})
	if err != nil {
		return false, fmt.Errorf("repair concept registry: %w", err)
	}
	if repaired {
		ix.Logger.Warn("the concept registry was left stale by an interrupted sync; recomputed it")
	}
	return repaired, nil
}

// StaleTempAge is how old a temporary file left by a killed writer must be
// before sync removes it (see vault.CleanTemps).
const StaleTempAge = 5 * time.Minute

func (ix *Indexer) sync(ctx context.Context, progress Progress) (*Result, error) {
	start := time.Now()
	res := &Result{Warnings: []Warning{}}
	// The states are of a snapshot taken before the walk: a note another
	// process creates and indexes meanwhile is then new to both (and found
	// indexed when written), never "indexed but not walked", which would
	// delete it. The transaction's first read fixes its snapshot; the
	// states are then read beside the walk.
	type loaded struct {
		states sqlite.NoteStateSet
		stale  bool
		err    error
	}
	snapshot, load := make(chan struct{}), make(chan loaded, 1)
	notes := 0 // how many notes the index holds, set before snapshot is closed
	go func() {
		var l loaded
		var once sync.Once
		taken := func() { once.Do(func() { close(snapshot) }) }
		l.err = ix.DB.ReadTx(ctx, func(tx *sql.Tx) error {
			var err error
			if l.stale, err = sqlite.HasMeta(tx, metaStale); err != nil {
				return err
			}
			if notes, err = sqlite.CountNotes(tx); err != nil {
				return err
			}
			taken()
			l.states, err = ix.DB.NoteStates(tx, notes)
			return err
		})
		taken()
		load <- l
	}()
	<-snapshot
	// As many entries as notes indexed, and some: 100,000 appended one by
	// one were 20 MB of copies.
	entries := make([]fileEntry, 0, notes+notes/16+16)
	inOrder := true         // the walk gave the paths in notepath.Compare's order
	var unreadable []string // folders skipped, their notes kept as indexed
	removed, cleanErr, err := ix.Vault.WalkCleaningTemps(ctx, StaleTempAge, func(rel string, info fs.FileInfo) error {
		if inOrder && len(entries) > 0 {
			inOrder = notepath.Compare(entries[len(entries)-1].rel, rel) < 0
		}
		entries = append(entries, fileEntry{rel, info, -1})
		return nil
	}, func(rel string, err error) {
		unreadable = append(unreadable, rel)
		res.Warnings = append(res.Warnings, unreadableWarning(rel, err))
	})
	l := <-load
	if l.err != nil {
		return nil, l.err
	}
	if ix.statesRead != nil {
		ix.statesRead(l.states.FromSnapshot())
	}
	stale := l.stale
	if err != nil {
		return nil, fmt.Errorf("walk vault: %w", err)
	}
	if cleanErr != nil {
		ix.Logger.Warn("could not remove stale temporary files", "err", cleanErr)
	}
	if len(removed) > 0 {
		ix.Logger.Info("removed temporary files left by killed writers", "files", removed)
	}
	res.Scanned = len(entries)
	if ix.afterWalk != nil {
		ix.afterWalk()
	}

	states := newNoteStates(&l.states)
	if len(unreadable) > 0 {
		for i := range states.set.Len() {
			if underAny(states.set.Path(i), unreadable) {
				states.mark[i] = walked // not walked, not deleted: kept as indexed
			}
		}
	}
	states.match(entries, inOrder)
	var todo []fileEntry
	for _, e := range entries {
		if i := int(e.state); i >= 0 {
			states.mark[i] = walked
			if size, mtime, file := states.set.Stat(i); unchanged(size, mtime, file, e.info) {
				res.Unchanged++
				continue
			}
		}
		todo = append(todo, e)
	}
	total := len(todo)
	bulk := bulkNotes
	if ix.bulk > 0 {
		bulk = ix.bulk
	}
	var text *sqlite.TextLoad // the text of a cold load, indexed beside the writer
	if total >= bulk {
		done, err := ix.DB.BulkLoad(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
		if states.set.Len() == 0 {
			if text, err = ix.DB.StartTextLoad(ctx); err != nil {
				ix.Logger.Warn("cannot index the text beside the writer; the writer indexes it", "err", err)
				text = nil
			} else {
				defer text.Close()
			}
		}
	}
	if progress != nil {
		progress(0, total)
	}
	// Deleted paths, by hash, for rename detection.
	deletedByHash := make(map[string][]string)
	for i, m := range states.mark {
		if m == notWalked {
			st := states.set.State(i)
			deletedByHash[st.Hash] = append(deletedByHash[st.Hash], st.Path)
		}
	}
	for h := range deletedByHash {
		sort.Strings(deletedByHash[h])
	}

	// Parse chunk k+1 on every core while chunk k is written: one writer,
	// short transactions, files in walk order (so rename matching is
	// deterministic).
	batch := batchSize
	if ix.batch > 0 {
		batch = ix.batch
	}
	chunks := make(chan []parsed, 1)
	go func() {
		defer close(chunks)
		done := 0
		for i := 0; i < len(todo); i += batch {
			chunk := todo[i:min(i+batch, len(todo))]
			out := ix.parseAll(ctx, chunk)
			if ctx.Err() != nil {
				// parseAll stopped part-way: entries it did not reach hold
				// no record and must not be written (the sync ends with
				// ctx's error after the loop).
				return
			}
			done += len(chunk)
			if progress != nil {
				progress(done, total)
			}
			select {
			case chunks <- out:
			case <-ctx.Done():
				return
			}
		}
	}()
	var writeErr error
	for results := range chunks {
		if writeErr != nil {
			continue // drain
		}
		var wrote, changed bool
		wrote, changed, writeErr = ix.writeChunk(ctx, results, states, deletedByHash, res, text)
		if wrote && writeErr == nil {
			stale = stale || changed
			writeErr = ix.committed("notes")
		}
	}
	if writeErr != nil {
		return nil, fmt.Errorf("write index: %w", writeErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if text != nil {
		if err := text.Finish(ctx); err != nil {
			return nil, fmt.Errorf("write index: %w", err)
		}
		if err := ix.committed("text"); err != nil {
			return nil, err
		}
	}
	var deleted []string
	for _, paths := range deletedByHash {
		deleted = append(deleted, paths...)
	}
	for i, m := range states.mark {
		if m == gone {
			deleted = append(deleted, states.set.Path(i)) // disappeared mid-sync
		}
	}
	sort.Strings(deleted)
	res.Removed = len(deleted)

	err = ix.DB.Write(ctx, func(tx *sqlite.Tx) error {
		for _, path := range deleted {
			if ix.exists(path) {
				continue // created again since the walk; the next sync sees it
			}
			if err := sqlite.DeleteNote(tx, path); err != nil {
				return err
			}
		}
		if stale || res.Changed() || len(deleted) > 0 {
			warns, err := sqlite.RecomputeConcepts(tx, vault.Key)
			if err != nil {
				return err
			}
			for _, w := range warns {
				res.Warnings = append(res.Warnings, Warning{Code: noema.ECONFLICT, Message: w})
			}
			if err := sqlite.DeleteMeta(tx, metaStale); err != nil {
				return err
			}
		}
		if err := ix.recordSync(tx, res); err != nil {
			return err
		}
		// The next sync reads the states from the snapshot this keeps
		// near the index.
		return sqlite.SaveNoteStates(tx, &l.states)
	})
	if err != nil {
		return nil, fmt.Errorf("finish sync: %w", err)
	}
	if err := ix.committed("finish"); err != nil {
		return nil, err
	}
	res.DurationMS = time.Since(start).Milliseconds()
	for _, w := range res.Warnings {
		ix.Logger.Warn("sync skipped a file", "path", w.Path, "code", w.Code, "message", w.Message)
	}
	return res, nil
}

// noteStates are the note states a sync read, with what its walk found of
// each.
type noteStates struct {
	set  *sqlite.NoteStateSet // in notepath.Compare's order of their paths
	mark []walkMark           // by index in set
}

// walkMark is what a sync's walk found of an indexed note.
type walkMark uint8

const (
	notWalked walkMark = iota // deleted, or renamed
	walked                    // walked, or in a folder that could not be read
	gone                      // walked, then gone before it was read
)

func newNoteStates(set *sqlite.NoteStateSet) *noteStates {
	return &noteStates{set: set, mark: make([]walkMark, set.Len())}
}

// match sets each entry's state: the index of the state of its path, or
// -1. Entries in notepath.Compare's order (inOrder; a walk gives them so)
// are merged with the states, which are in that order too; others are
// looked up by path.
func (s *noteStates) match(entries []fileEntry, inOrder bool) {
	if !inOrder {
		byPath := make(map[string]int32, s.set.Len())
		for i := range s.set.Len() {
			byPath[s.set.Path(i)] = int32(i)
		}
		for k := range entries {
			if i, ok := byPath[entries[k].rel]; ok {
				entries[k].state = i
			}
		}
		return
	}
	i, n := 0, s.set.Len()
	for k := range entries {
		e := &entries[k]
		for ; i < n; i++ {
			// Equal, the common case, is the cheap comparison.
			if p := s.set.Path(i); p == e.rel {
				e.state = int32(i)
				i++
				break
			} else if notepath.Compare(p, e.rel) > 0 {
				break
			}
		}
	}
}

// writeChunk classifies parsed files (added, updated, renamed, unchanged,
// skipped) and writes them in one transaction, which also marks the
// registry stale when a note's content or path changed. It reports whether
// it committed a transaction, and whether that changed a note. With text,
// the notes' full-text rows go to it once the transaction has committed.
func (ix *Indexer) writeChunk(ctx context.Context, results []parsed, states *noteStates,
	deletedByHash map[string][]string, res *Result, text *sqlite.TextLoad) (committed, changed bool, err error) {
	type op struct {
		renameFrom string
		p          *parsed
		counted    *int // the res counter the op was counted under
	}
	var ops []op
	for i := range results {
		p := &results[i]
		switch {
		case p.gone:
			res.Skipped++
			res.Warnings = append(res.Warnings, Warning{p.entry.rel, noema.ENOTFOUND, "file disappeared during sync"})
			if i := p.entry.state; i >= 0 {
				states.mark[i] = gone
			}
			continue
		case p.warn != nil:
			res.Skipped++
			res.Warnings = append(res.Warnings, *p.warn)
			continue
		}
		var st sqlite.NoteState
		exists := p.entry.state >= 0
		if exists {
			st = states.set.State(int(p.entry.state))
		}
		switch {
		case exists && st.Hash == p.rec.Hash && st.File.VerifiedNS != sqlite.Rederive:
			ops = append(ops, op{p: p, counted: &res.Unchanged}) // touch only
		case exists:
			ops = append(ops, op{p: p, counted: &res.Updated})
		default:
			if from := deletedByHash[p.rec.Hash]; len(from) > 0 {
				deletedByHash[p.rec.Hash] = from[1:]
				ops = append(ops, op{renameFrom: from[0], p: p, counted: &res.Renamed})
			} else {
				ops = append(ops, op{p: p, counted: &res.Added})
			}
		}
	}
	if len(ops) == 0 {
		return false, false, nil
	}
	// Only files whose content changed (or moved) change what the registry
	// derives; a batch of touches (files re-read under the racy-clean rule
	// and found identical) leaves it current. That is decided from the
	// index as it is in the transaction, not from the states read before
	// the walk: a note a tool wrote and indexed meanwhile (write_note while
	// the watcher's sync runs) is found current, counted unchanged, and
	// does not make the sync recompute the whole registry (issue 21: a
	// gigabyte and minutes at a million concepts).
	var (
		changes bool
		touched []int // ops found current in the transaction
		texts   []sqlite.TextRow
	)
	err = ix.DB.Write(ctx, func(tx *sqlite.Tx) error {
		changes, touched = false, touched[:0]
		w, err := sqlite.NewNoteWriter(tx)
		if err != nil {
			return err
		}
		defer w.Close()
		if text != nil {
			w.SideText()
		} else {
			w.DeferText()
		}
		for i, o := range ops {
			rec := o.p.rec
			if ix.changedSinceRead(rec) {
				continue // a concurrent writer indexes its own version
			}
			// Decide from the index as it is now, inside the transaction:
			// another process (a writer indexing its own file, a server's
			// watcher) may have indexed this path, or the rename's source,
			// since the states were read.
			cur, exists, err := w.State(rec.Path)
			if err != nil {
				return err
			}
			if exists && cur.Hash == rec.Hash && cur.File.VerifiedNS != sqlite.Rederive {
				ok, err := sqlite.TouchNote(tx, rec)
				if err != nil {
					return err
				}
				if ok {
					touched = append(touched, i)
					continue
				}
				// Same content, other times (a rewrite that moved the
				// mtime back): written whole below, as a rebuild would.
			}
			if !changes {
				changes = true
				if err := sqlite.SetMeta(tx, metaStale, "1"); err != nil {
					return err
				}
				if text != nil {
					if err := sqlite.MarkTextLoad(tx); err != nil {
						return err
					}
				}
			}
			if !exists && o.renameFrom != "" {
				if _, fromExists, err := w.State(o.renameFrom); err != nil {
					return err
				} else if fromExists {
					if err := sqlite.RenameNote(tx, o.renameFrom, rec.Path); err != nil {
						return err
					}
					exists = true
				}
			}
			if _, err := w.Put(rec, !exists); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		texts = w.Texts()
		return nil
	})
	if err != nil {
		return true, false, err
	}
	if text != nil {
		text.Add(texts)
	}
	// Counted from what the transaction did: touched is unchanged, and an
	// op the states called a touch but the transaction wrote is updated.
	isTouched := make(map[int]bool, len(touched))
	for _, i := range touched {
		isTouched[i] = true
	}
	for i, o := range ops {
		switch {
		case isTouched[i]:
			res.Unchanged++
		case o.counted == &res.Unchanged:
			res.Updated++
		default:
			*o.counted++
		}
	}
	return true, changes, nil
}

func (ix *Indexer) recordSync(tx *sqlite.Tx, res *Result) error {
	if err := sqlite.SetMeta(tx, "last_sync", tx.Now.UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	across, at, err := ix.acrossFiles(tx)
	if err != nil {
		return err
	}
	// A retried transaction runs this again: replace, never repeat.
	res.Warnings = slices.DeleteFunc(res.Warnings, func(w Warning) bool { return isAcrossFiles(w.Code) })
	res.Warnings = append(res.Warnings, across...)
	w, _ := json.Marshal(res.Warnings)
	if err := sqlite.SetMeta(tx, metaWarnings, string(w)); err != nil {
		return err
	}
	return sqlite.SetMeta(tx, metaWarningsAt, at)
}

// Meta keys of the warnings of the last sync, and of the index version the
// warnings across files among them were found in.
const (
	metaWarnings   = "last_sync_warnings"
	metaWarningsAt = "last_sync_warnings_at"
)

// isAcrossFiles reports whether a warning code is of a warning found across
// files (see acrossFiles).
func isAcrossFiles(code string) bool {
	return code == CodeDuplicateTitle || code == CodeDanglingRelation
}

// acrossFiles returns the warnings a sync finds across files (shared
// titles, relations without a target) and the version of the index they
// were found in: the change log's position (sqlite.GraphLogPosition). Both
// derive from note rows, names, relations and concept keys alone, each
// change to which moves the log; when it has not moved since the last
// sync recorded them (a sync that changed nothing, after no write), they
// are that sync's, and the two queries over every note and relation are
// not run again (a tenth of a no-op sync at 100,000 notes).
func (ix *Indexer) acrossFiles(tx *sqlite.Tx) ([]Warning, string, error) {
	pos, err := sqlite.GraphLogPosition(tx)
	if err != nil {
		return nil, "", err
	}
	at := "1:" + strconv.FormatInt(pos, 10)
	if prev, err := sqlite.MetaIn(tx, metaWarningsAt); err != nil {
		return nil, "", err
	} else if prev == at {
		last, err := sqlite.MetaIn(tx, metaWarnings)
		if err != nil {
			return nil, "", err
		}
		var ws []Warning
		if json.Unmarshal([]byte(last), &ws) == nil {
			return slices.DeleteFunc(ws, func(w Warning) bool { return !isAcrossFiles(w.Code) }), at, nil
		}
	}
	dups, err := sqlite.DuplicateTitles(tx.Query, vault.Key)
	if err != nil {
		return nil, "", err
	}
	dangling, err := sqlite.DanglingRelations(tx.Query)
	if err != nil {
		return nil, "", err
	}
	return append(DuplicateTitleWarnings(dups), DanglingRelationWarnings(dangling)...), at, nil
}

// Warning codes of what a whole-vault sync finds across files.
const (
	// CodeDuplicateTitle: notes that share a title.
	CodeDuplicateTitle = "duplicate_title"
	// CodeDanglingRelation: a relation whose target does not exist.
	CodeDanglingRelation = "dangling_relation"
)

// DanglingRelationWarnings turns relations without a target into warnings.
func DanglingRelationWarnings(rels []sqlite.DanglingRelation) []Warning {
	var out []Warning
	for _, r := range rels {
		target := r.ToRef
		if p, ok := strings.CutPrefix(r.ToRef, "note:"); ok {
			target = "the note " + noema.NoteURI(p)
		} else if k, ok := strings.CutPrefix(r.ToRef, "concept:"); ok {
			target = fmt.Sprintf("the concept %q", k)
		}
		out = append(out, Warning{Path: r.Path, Code: CodeDanglingRelation, Message: fmt.Sprintf(
			"relation %s (%s) points to %s, which does not exist", r.ID, r.Type, target)})
	}
	return out
}

// DuplicateTitleWarnings turns groups of notes sharing a title (their
// paths in path order) into warnings. The first path is the note the title
// means — for [[links]] and read_note by title alike — so adding a second
// file with the same title never switches silently.
func DuplicateTitleWarnings(groups [][]string) []Warning {
	var out []Warning
	for _, g := range groups {
		out = append(out, Warning{Path: g[0], Code: CodeDuplicateTitle, Message: fmt.Sprintf(
			"%d notes have this title: %s; the title and [[links]] to it mean %s (the first by path); rename or merge the others",
			len(g), strings.Join(g, ", "), g[0])})
	}
	return out
}

// RacyWindow is how close to the moment a file was read its mtime or ctime
// may be for sync to trust them: a file whose times are within it may have
// been rewritten in the same timestamp tick after the read (FAT keeps
// mtimes to 2 s, HFS+ to 1 s, and kernels stamp files from a coarse clock),
// so it is read again and compared by content — git's "racy clean" rule.
const RacyWindow = 2 * time.Second

// unchanged reports whether the file described by info is, without reading
// it, the version indexed with size, mtime and file state f: its size,
// mtime, ctime and inode all match, and its times are safely older than the
// moment it was read. ctime and inode catch rewrites that put the old mtime
// back (touch -r, cp -p, rsync -t): no tool can set a ctime.
func unchanged(size, mtimeNS int64, f sqlite.FileState, info fs.FileInfo) bool {
	return sameStat(size, mtimeNS, f, info) && !racy(f, info)
}

// sameStat reports whether info's size, mtime, ctime and inode are the
// ones recorded.
func sameStat(size, mtimeNS int64, f sqlite.FileState, info fs.FileInfo) bool {
	ctime, inode := ctimeInode(info)
	return size == info.Size() && mtimeNS == info.ModTime().UnixNano() && f.CtimeNS == ctime && f.Inode == inode
}

// racy reports whether info's times are too close to the read recorded in
// f to prove that the file was not rewritten after it (see RacyWindow).
func racy(f sqlite.FileState, info fs.FileInfo) bool {
	ctime, _ := ctimeInode(info)
	limit := f.VerifiedNS - int64(RacyWindow)
	return info.ModTime().UnixNano() >= limit || ctime >= limit
}

// fileState returns the file state to record for a file read at readAt.
func fileState(info fs.FileInfo, readAt time.Time) sqlite.FileState {
	ctime, inode := ctimeInode(info)
	return sqlite.FileState{CtimeNS: ctime, Inode: inode, VerifiedNS: readAt.UnixNano()}
}

// exists reports whether a note file is at rel now.
func (ix *Indexer) exists(rel string) bool {
	abs, err := ix.Vault.Abs(rel)
	if err != nil {
		return false
	}
	info, err := os.Stat(abs)
	return err == nil && info.Mode().IsRegular()
}

// changedSinceRead reports whether the file is no longer the one that was read.
func (ix *Indexer) changedSinceRead(rec *sqlite.NoteRecord) bool {
	info, err := os.Stat(filepath.Join(ix.Vault.Root, filepath.FromSlash(rec.Path)))
	return err != nil || !sameStat(rec.Size, rec.MtimeNS, rec.File, info)
}

// parseAll reads and parses files on every core. When ctx is done it stops
// early, leaving the entries it did not reach empty: callers check ctx.
func (ix *Indexer) parseAll(ctx context.Context, todo []fileEntry) []parsed {
	out := make([]parsed, len(todo))
	r := ix.Vault.NewReader()
	defer r.Close()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(todo) || ctx.Err() != nil {
					return
				}
				out[i] = ix.parseOne(r, todo[i])
			}
		}()
	}
	wg.Wait()
	return out
}

func (ix *Indexer) parseOne(r *vault.Reader, e fileEntry) parsed {
	p := parsed{entry: e}
	if ix.MaxNoteBytes > 0 && e.info.Size() > ix.MaxNoteBytes {
		p.warn = &Warning{e.rel, noema.ETOOLARGE, fmt.Sprintf("note is %d bytes, over the %d byte limit", e.info.Size(), ix.MaxNoteBytes)}
		return p
	}
	content, info, err := r.ReadFile(e.rel)
	if err != nil {
		if noema.ErrorCode(err) == noema.ENOTFOUND || errors.Is(err, fs.ErrNotExist) {
			p.gone = true
			return p
		}
		p.warn = &Warning{e.rel, noema.ErrorCode(err), err.Error()}
		return p
	}
	if ix.MaxNoteBytes > 0 && int64(len(content)) > ix.MaxNoteBytes {
		p.warn = &Warning{e.rel, noema.ETOOLARGE, fmt.Sprintf("note is %d bytes, over the %d byte limit", len(content), ix.MaxNoteBytes)}
		return p
	}
	n, err := vault.Parse(e.rel, content)
	if err != nil {
		p.warn = &Warning{e.rel, noema.ErrorCode(err), noema.ErrorMessage(err)}
		return p
	}
	ix.Vault.ResolvePathLinks(n)
	p.entry.info = info
	p.rec = ix.Ignore.apply(Record(n, info))
	return p
}

var _ noema.IndexSync = (*Indexer)(nil)

// SyncFiles is SyncPaths for a caller that needs only to know whether the
// files were indexed.
func (ix *Indexer) SyncFiles(ctx context.Context, paths []string, renamedFrom string) error {
	_, err := ix.SyncPaths(ctx, paths, renamedFrom)
	return err
}

// SyncWritten is SyncPaths for files a writer has just put on disk: when
// indexing them fails, the error keeps its code but says that the files
// changed (see noema.IndexBehind), so that no caller takes it for a change that did
// not happen and retries it.
func (ix *Indexer) SyncWritten(ctx context.Context, paths []string, renamedFrom string) error {
	if _, err := ix.SyncPaths(ctx, paths, renamedFrom); err != nil {
		return noema.IndexBehind(paths, err)
	}
	return nil
}

// SyncPaths indexes exactly the given vault-relative paths, in one write
// transaction with the concept registry update: an existing file is
// (re-)derived, a missing one removed. Note operations call it right after
// they change a file, so the index reflects the change when they return.
// from, when not empty, is a path the first file was renamed from.
//
// Two of them may index one path at once (a server's own write and the
// store's change it brings in as a working copy): each reads the files
// before it takes the index's write lock, so the one that commits last
// could write the older version. Under the lock each checks that every
// file still holds what it read. When one does not, it reads the files
// again outside the lock (staleRetries times), then reads the changed
// ones under it: what it commits is what the files held while it held the
// lock, and a writer that changes a file after that indexes it after.
func (ix *Indexer) SyncPaths(ctx context.Context, paths []string, renamedFrom string) (*Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := ix.syncPaths(ctx, paths, renamedFrom, attempt >= staleRetries)
		if errors.Is(err, errStale) {
			continue
		}
		return res, err
	}
}

// staleRetries bounds how often SyncPaths reads its files again, outside
// the index's write lock, because one changed between its read and its
// write.
const staleRetries = 5

// errStale: a file SyncPaths read changed before its transaction.
var errStale = errors.New("a file changed after it was read")

// pathItem is a file SyncPaths indexes: rec is nil for a file that is
// gone, skip is a warning for one it cannot index (left as indexed).
type pathItem struct {
	rel  string
	rec  *sqlite.NoteRecord
	skip *Warning
}

// readPath reads and parses the file at rel for SyncPaths.
func (ix *Indexer) readPath(rel string) (pathItem, error) {
	content, info, err := ix.Vault.ReadFile(rel)
	if err != nil {
		if noema.ErrorCode(err) == noema.ENOTFOUND || errors.Is(err, fs.ErrNotExist) {
			return pathItem{rel: rel}, nil
		}
		return pathItem{}, err
	}
	if ix.MaxNoteBytes > 0 && int64(len(content)) > ix.MaxNoteBytes {
		return pathItem{rel: rel, skip: &Warning{rel, noema.ETOOLARGE, "note over the size limit"}}, nil
	}
	n, err := vault.Parse(rel, content)
	if err != nil {
		return pathItem{rel: rel, skip: &Warning{rel, noema.ErrorCode(err), noema.ErrorMessage(err)}}, nil
	}
	ix.Vault.ResolvePathLinks(n)
	return pathItem{rel: rel, rec: ix.Ignore.apply(Record(n, info))}, nil
}

// syncPaths is one attempt of SyncPaths. Under the index's write lock it
// checks that each file still holds what it read: when one does not, it
// fails with errStale, writing nothing, unless underLock, when it reads
// the changed files again there.
func (ix *Indexer) syncPaths(ctx context.Context, paths []string, renamedFrom string, underLock bool) (*Result, error) {
	items := make([]pathItem, 0, len(paths))
	for _, rel := range paths {
		it, err := ix.readPath(rel)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if ix.beforePathsWrite != nil {
		ix.beforePathsWrite()
	}
	var res *Result
	err := ix.DB.Write(ctx, func(tx *sqlite.Tx) error {
		res = &Result{Warnings: []Warning{}} // a retried transaction counts again
		for i, it := range items {
			if it.skip != nil {
				continue // left as indexed; its writer's sync indexes a later version
			}
			read := noema.Absent
			if it.rec != nil {
				read = it.rec.Hash
			}
			if now, err := ix.Vault.FileChecksum(it.rel); err == nil && now == read {
				continue
			}
			if !underLock {
				return errStale // a later writer changed it: read it again
			}
			again, err := ix.readPath(it.rel)
			if err != nil {
				return err
			}
			items[i] = again
		}
		var recs []*sqlite.NoteRecord
		capture := []string{}
		for _, it := range items {
			if it.skip != nil {
				res.Skipped++
				res.Warnings = append(res.Warnings, *it.skip)
				continue
			}
			capture = append(capture, it.rel)
			if it.rec != nil {
				recs = append(recs, it.rec)
			}
		}
		change, err := sqlite.BeginChange(tx, capture, recs)
		if err != nil {
			return err
		}
		if renamedFrom != "" {
			change.Full() // a file name is a title: names may change
		}
		first := true
		for _, it := range items {
			if it.skip != nil {
				continue
			}
			if it.rec == nil {
				if err := sqlite.DeleteNote(tx, it.rel); err != nil {
					return err
				}
				res.Removed++
				first = false
				continue
			}
			if first && renamedFrom != "" {
				if err := sqlite.RenameNote(tx, renamedFrom, it.rel); err != nil {
					return err
				}
				res.Renamed++
			}
			first = false
			if _, err := sqlite.PutNote(tx, it.rec); err != nil {
				return err
			}
			res.Updated++
		}
		warns, err := change.Apply(tx, vault.Key)
		for _, w := range warns {
			res.Warnings = append(res.Warnings, Warning{Code: noema.ECONFLICT, Message: w})
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("index %v: %w", paths, err)
	}
	return res, nil
}
