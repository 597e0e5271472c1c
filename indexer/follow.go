package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// FollowFile is the file, inside .noema/, that records which store the
// folder is a working copy of and the last change of its feed the folder
// holds.
const FollowFile = "upstream.json"

// accessPoll is how often a follower with nothing else to do brings in the
// reads other servers shared.
const accessPoll = 2 * time.Second

// followPage bounds the changes brought over in one local changeset: the
// bytes of that many notes are held at once.
const followPage = 2000

// saveEvery is how often, at most, a follower records its place in the
// feed while it keeps up with single changes: each record first syncs the
// folder's file system (the working copy's writes are not synced one by
// one), and a place recorded late only means a few changes compared again
// after a restart.
const saveEvery = time.Second

// Follower keeps a vault folder the working copy of a store of record (a
// team's database; see vault.SetUpstream): it brings the folder up to date
// from the store's change feed when it starts, and after every change any
// server commits, and indexes what it brought. Changes this server makes go
// to the store and the folder together (vault's working copies) and come
// back through the feed as changes the folder already holds.
type Follower struct {
	ix *Indexer
	up noema.Store
	id string // names the store and vault, to notice a folder that followed another
	// Server names this process in the store's shared access log
	// (noema.AccessLog): the follower brings the other servers' reads of
	// notes into the index, and skips its own.
	Server string

	mu     sync.Mutex
	access int64 // the last entry of the shared access log brought in
	// synced is the place in the feed last recorded, once everything the
	// folder holds up to it was synced; savedAt is when.
	synced  int64
	savedAt time.Time
	state   FollowState
	repair  map[string]bool // paths the folder failed to take (Behind)
	wake    chan struct{}   // closed when repair gains a path
	started bool
}

// FollowState is what `status` says about a working copy.
type FollowState struct {
	// Store names the store and vault followed (no password).
	Store string `json:"store"`
	// Seq is the last change of the store's feed the folder holds.
	Seq int64 `json:"seq"`
	// CaughtUp is when the folder last held every change the store had.
	CaughtUp time.Time `json:"caught_up,omitzero"`
	// Error is the last failure to reach or follow the store, cleared by
	// the next success: while it is set, answers come from the folder as it
	// was at CaughtUp.
	Error string `json:"error,omitempty"`
}

// NewFollower returns a follower of up for ix's folder; id names the
// store and vault (shown in status and recorded in .noema/upstream.json).
func NewFollower(ix *Indexer, up noema.Store, id string) *Follower {
	return &Follower{ix: ix, up: up, id: id, repair: map[string]bool{}, wake: make(chan struct{}), state: FollowState{Store: id}}
}

// State returns the follower's state.
func (f *Follower) State() FollowState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

// Behind takes the paths of changes the store made and the folder failed
// to take (vault.SetUpstream's callback): the follower fetches them again.
func (f *Follower) Behind(paths []string, err error) {
	f.ix.Logger.Warn("the working copy missed a change the store made; fetching it again", "paths", paths, "err", err)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range paths {
		f.repair[p] = true
	}
	close(f.wake)
	f.wake = make(chan struct{})
}

// followRecord is .noema/upstream.json.
type followRecord struct {
	Store string `json:"store"`
	Seq   int64  `json:"seq"`
	// Access is the last entry of the shared access log brought in.
	Access int64 `json:"access,omitempty"`
}

// CatchUp brings the folder up to the store's head. A folder that never
// followed this store must hold no note the store lacks or holds
// otherwise: CatchUp refuses it (noema.EINVALID) rather than overwrite or
// delete notes that exist only here — push them first, or serve the store
// from an empty folder.
func (f *Follower) CatchUp(ctx context.Context) error {
	err := f.catchUp(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.state.Error = err.Error()
		return err
	}
	f.state.Error = ""
	f.state.CaughtUp = time.Now().UTC()
	return nil
}

func (f *Follower) catchUp(ctx context.Context) error {
	f.mu.Lock()
	first := !f.started
	f.started = true
	f.mu.Unlock()
	if first {
		rec, err := f.load()
		if err != nil {
			return err
		}
		if rec.Store != f.id {
			if err := f.checkFresh(ctx); err != nil {
				return err
			}
			rec = followRecord{Store: f.id}
		}
		f.setSeq(rec.Seq)
		f.mu.Lock()
		f.access, f.synced = rec.Access, rec.Seq
		f.mu.Unlock()
	}
	if err := f.fetchRepairs(ctx); err != nil {
		return err
	}
	for {
		seq := f.State().Seq
		changes, err := f.up.ChangesSince(ctx, seq, followPage)
		if errors.Is(err, noema.ErrFeedReset) {
			f.ix.Logger.Warn("the store's change feed no longer reaches the folder's last change; reading it whole", "seq", seq)
			f.setSeq(0)
			continue
		}
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			if err := f.saveDue(false); err != nil {
				return err
			}
			return f.pullAccesses(ctx)
		}
		if err := f.apply(ctx, changes); err != nil {
			return err
		}
		f.setSeq(changes[len(changes)-1].Seq)
		if err := f.saveDue(len(changes) == followPage); err != nil {
			return err
		}
	}
}

// Run catches up, then follows the store until ctx is done, retrying with
// a growing pause (up to 10 s) while the store cannot be reached.
func (f *Follower) Run(ctx context.Context) error {
	pause := 200 * time.Millisecond
	for ctx.Err() == nil {
		if err := f.CatchUp(ctx); err != nil {
			if ctx.Err() != nil {
				break
			}
			if noema.ErrorCode(err) == noema.EINVALID {
				return err // a folder it must not overwrite: waiting changes nothing
			}
			if noema.ErrorCode(err) == noema.ECHECKSUM {
				// This server's own writers changed the files it was
				// bringing, in every attempt: no failure of the store, and
				// each of their writes leaves the file nearer the store's.
				f.ix.Logger.Debug("following the store: local writes came first; trying again", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Millisecond):
				}
				continue
			}
			f.ix.Logger.Warn("following the store", "err", err, "retry_in", pause)
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
			pause = min(2*pause, 10*time.Second)
			continue
		}
		pause = 200 * time.Millisecond
		f.mu.Lock()
		wake := f.wake
		f.mu.Unlock()
		// Reads shared by other servers change no file: look for them at
		// least every accessPoll.
		wctx, cancel := context.WithTimeout(ctx, accessPoll)
		go func() {
			select {
			case <-wake:
				cancel()
			case <-wctx.Done():
			}
		}()
		_, err := f.up.Wait(wctx, f.State().Seq)
		cancel()
		if err != nil && ctx.Err() == nil && wctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			f.ix.Logger.Warn("waiting for the store's changes", "err", err)
		}
	}
	// Stopping: record the place reached, so a restart compares no more
	// than it must.
	if err := f.saveDue(true); err != nil {
		f.ix.Logger.Warn("recording the working copy's position", "err", err)
	}
	return context.Cause(ctx)
}

// apply makes the folder hold what changes say, as local changesets (each
// all or nothing), and indexes the paths.
func (f *Follower) apply(ctx context.Context, changes []noema.Change) error {
	latest := map[string]noema.Change{}
	for _, c := range changes {
		latest[c.Path] = c
	}
	paths := slices.Sorted(maps.Keys(latest))
	return f.bring(ctx, paths, func(p string) (noema.Change, bool) { c, ok := latest[p]; return c, ok })
}

// fetchRepairs brings over the paths Behind queued, as the store has them now.
func (f *Follower) fetchRepairs(ctx context.Context) error {
	f.mu.Lock()
	paths := make([]string, 0, len(f.repair))
	for p := range f.repair {
		paths = append(paths, p)
	}
	f.mu.Unlock()
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	err := f.bring(ctx, paths, func(p string) (noema.Change, bool) {
		file, err := f.up.ReadFile(ctx, p)
		if err != nil {
			return noema.Change{Path: p, Kind: noema.ChangeDelete, Checksum: noema.Absent}, noema.ErrorCode(err) == noema.ENOTFOUND
		}
		return noema.Change{Path: p, Kind: noema.ChangeWrite, Checksum: file.Checksum}, true
	})
	if err != nil {
		return err
	}
	f.mu.Lock()
	for _, p := range paths {
		delete(f.repair, p)
	}
	f.mu.Unlock()
	return nil
}

// bring makes each of paths hold the state want gives it (skipping paths
// want does not know), reading the store for new contents, then indexes
// the paths it changed. The folder's own writers may change a file
// meanwhile; a changeset that then meets an unexpected checksum is planned
// again.
//
// A path the folder already holds as the store does is indexed too when
// the index holds another version: the folder can take a store's change
// that nothing indexes — a write refused because the folder was behind
// brings the file in (vault's refresh) and then fails, and an earlier
// bring's indexing can fail after its changeset — and the feed's change
// is the last word the follower hears of it. (The team soak found a
// server, restarted while its writers met such refusals, whose index kept
// a shared note one version behind its folder: no watcher runs before the
// first sync ends.)
func (f *Follower) bring(ctx context.Context, paths []string, want func(string) (noema.Change, bool)) error {
	for attempt := 0; ; attempt++ {
		held, err := f.held(ctx, paths)
		if err != nil {
			return err
		}
		var cs noema.Changeset
		var unindexed []string // held as wanted, indexed otherwise
		// held notes that p needs no change, and queues it for indexing
		// when the index holds another version than the folder's have.
		heldAlready := func(p, have string) error {
			behind, err := f.indexBehind(ctx, p, have)
			if behind {
				unindexed = append(unindexed, p)
			}
			return err
		}
		for _, p := range paths {
			c, ok := want(p)
			if !ok {
				continue
			}
			have := held[p]
			if have == c.Checksum {
				if err := heldAlready(p, have); err != nil {
					return err
				}
				continue
			}
			if c.Kind == noema.ChangeDelete {
				if have != noema.Absent {
					cs.Changes = append(cs.Changes, noema.FileChange{Path: p, Before: have, Delete: true})
				}
				continue
			}
			file, err := f.up.ReadFile(ctx, p)
			switch {
			case noema.ErrorCode(err) == noema.ENOTFOUND:
				if have != noema.Absent { // deleted again since: the feed says so next
					cs.Changes = append(cs.Changes, noema.FileChange{Path: p, Before: have, Delete: true})
				}
				continue
			case err != nil:
				return err
			case file.Checksum == have:
				// The folder already holds the store's current version:
				// this server's own later write, which the feed names at
				// an earlier one. Rewriting it with the same bytes would
				// fail whenever the next write came first.
				if err := heldAlready(p, have); err != nil {
					return err
				}
				continue
			}
			cs.Changes = append(cs.Changes, noema.FileChange{Path: p, Before: have, After: file.Data})
		}
		if len(cs.Changes) == 0 {
			if len(unindexed) == 0 {
				return nil
			}
			if _, err := f.ix.SyncPaths(ctx, unindexed, ""); err != nil {
				return fmt.Errorf("index the store's changes the folder held: %w", err)
			}
			return nil
		}
		err = f.ix.Vault.LockedLocal(ctx, func(w *vault.Writer) error { return w.Apply(ctx, &cs) })
		if noema.ErrorCode(err) == noema.ECHECKSUM && attempt < 3 {
			continue // a local writer changed a file meanwhile
		}
		if err != nil {
			return fmt.Errorf("bring the store's changes into the folder: %w", err)
		}
		if _, err := f.ix.SyncPaths(ctx, append(cs.Paths(), unindexed...), ""); err != nil {
			return fmt.Errorf("index the store's changes: %w", err)
		}
		return nil
	}
}

// indexBehind reports whether the index holds path at another version
// than sum, the checksum the folder holds (noema.Absent for no file).
func (f *Follower) indexBehind(ctx context.Context, path, sum string) (bool, error) {
	st, indexed, err := f.ix.DB.NoteState(ctx, path)
	if err != nil {
		return false, fmt.Errorf("read the index's state of %s: %w", path, err)
	}
	if !indexed {
		return sum != noema.Absent, nil
	}
	return st.Hash != sum, nil
}

// held returns the checksum the folder holds for each of paths (Absent
// for none), read under the vault's write lock. A change this server's
// Writer makes holds that lock from its call to the store until the folder
// has the change, and the feed can only tell of it after that call: read
// under the lock, the server's own change is already held, and is neither
// fetched from the store again nor applied in a changeset bound to fail
// (about 40% of this server's writes were, before).
func (f *Follower) held(ctx context.Context, paths []string) (map[string]string, error) {
	held := make(map[string]string, len(paths))
	err := f.ix.Vault.LockedLocal(ctx, func(*vault.Writer) error {
		for _, p := range paths {
			sum, err := f.ix.Vault.FileChecksum(p)
			if err != nil {
				return err
			}
			held[p] = sum
		}
		return nil
	})
	return held, err
}

// checkFresh refuses a folder that never followed this store but holds
// notes the store lacks or holds otherwise.
func (f *Follower) checkFresh(ctx context.Context) error {
	upstream := map[string]string{}
	changes, err := f.up.ChangesSince(ctx, 0, 0)
	if err != nil && !errors.Is(err, noema.ErrFeedReset) {
		return err
	}
	for _, c := range changes {
		upstream[c.Path] = c.Checksum
	}
	var differ []string
	err = f.ix.Vault.Walk(ctx, func(rel string, info fs.FileInfo) error {
		if !strings.HasSuffix(rel, ".md") {
			return nil
		}
		data, _, err := f.ix.Vault.ReadFile(rel)
		if err != nil {
			return err
		}
		if upstream[rel] != noema.Checksum(data) {
			differ = append(differ, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(differ) > 0 {
		return noema.Errorf(noema.EINVALID, "the folder %s holds %d notes that %s lacks or holds otherwise (first: %s); it never followed that store, so nothing was overwritten: serve the store from an empty folder, or push this folder to it first (noema vault push)",
			f.ix.Vault.Root, len(differ), f.id, differ[0])
	}
	return nil
}

func (f *Follower) setSeq(seq int64) {
	f.mu.Lock()
	f.state.Seq = seq
	f.mu.Unlock()
}

func (f *Follower) recordPath() string {
	return filepath.Join(f.ix.Vault.Root, ".noema", FollowFile)
}

func (f *Follower) load() (followRecord, error) {
	var rec followRecord
	data, err := os.ReadFile(f.recordPath())
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("read %s: %w", FollowFile, err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		f.ix.Logger.Warn("unreadable working-copy record; reading the store whole", "file", f.recordPath(), "err", err)
		return followRecord{}, nil
	}
	return rec, nil
}

// pullAccesses brings the reads other servers shared into the index
// (when the store keeps a noema.AccessLog).
func (f *Follower) pullAccesses(ctx context.Context) error {
	log, ok := f.up.(noema.AccessLog)
	if !ok {
		return nil
	}
	for {
		f.mu.Lock()
		since := f.access
		f.mu.Unlock()
		page, err := log.AccessesSince(ctx, since, followPage)
		if err != nil || len(page) == 0 {
			return err
		}
		others := slices.DeleteFunc(slices.Clone(page), func(a noema.Access) bool { return a.Server == f.Server })
		if err := f.ix.DB.Notes().PutAccesses(ctx, others); err != nil {
			return fmt.Errorf("record the reads other servers shared: %w", err)
		}
		f.mu.Lock()
		f.access = page[len(page)-1].ID
		f.mu.Unlock()
		if err := f.save(false); err != nil {
			return err
		}
	}
}

// save records the folder's position in the feed: a temporary file
// renamed into place, so a crash leaves the old or the new record.
func (f *Follower) save(sync bool) error {
	f.mu.Lock()
	seq := f.synced
	if sync {
		seq = f.state.Seq
	}
	rec := followRecord{Store: f.id, Seq: seq, Access: f.access}
	f.mu.Unlock()
	// The folder's changes up to seq are durable before the record says
	// the folder holds them: a working copy's writes are not synced one
	// by one, and a crash of the machine that lost some leaves the record
	// at an earlier place, from which the follower compares them again.
	if sync {
		if err := f.ix.Vault.SyncFS(); err != nil {
			return fmt.Errorf("record the working copy's position: %w", err)
		}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	path := f.recordPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := writeFileSynced(tmp, data, sync); err != nil {
		return fmt.Errorf("record the working copy's position: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if sync {
		f.mu.Lock()
		f.synced, f.savedAt = seq, time.Now()
		f.mu.Unlock()
	}
	return nil
}

// saveDue records the follower's place (with the sync that makes it
// true) when it moved and full is set (a page of a backlog) or the last
// record is saveEvery old.
func (f *Follower) saveDue(full bool) error {
	f.mu.Lock()
	due := f.state.Seq != f.synced && (full || time.Since(f.savedAt) >= saveEvery)
	f.mu.Unlock()
	if !due {
		return nil
	}
	return f.save(true)
}

// writeFileSynced writes data to a new file name, synced when sync.
func writeFileSynced(name string, data []byte, sync bool) error {
	file, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = file.Write(data)
	if err == nil && sync {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
