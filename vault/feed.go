package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/noema-mem/noema"
)

// The change feed of the folder store. Every change a [Writer] makes —
// and so every change made through noema, by any process — is recorded,
// under the write lock and after the change is durable, in
// .noema/changes.log: a header line "noema-changes 1 base=N", then one
// JSON line a change ({"seq":…,"path":…,"kind":…,"checksum":…}), synced
// before the write returns. Sequence numbers start above the base, which a
// new log takes from the clock (microseconds since 1970), so that a log
// made again (the .noema folder deleted) numbers above every log before it
// and a consumer that followed the old one is told to list the files again
// ([noema.ErrFeedReset]) instead of missing changes. Head is 0 while there
// is no log, and "since 0" is every change the log holds.
//
// A working copy of another store ([Vault.SetUpstream]) keeps no log: its
// feed is the store of record's.
//
// What the log cannot hold, the indexer's walk and watcher find, as they
// always have: edits by other programs (an editor, a sync client, git), and
// a change whose record was lost (a crash after the file was renamed into
// place and before its line was synced; a full disk). A record that cannot
// be written does not fail the change, which is on disk: its [noema.Change]
// then has sequence number 0.
//
// The log is folded when it grows past twice its paths: each path keeps its
// latest change, deletions included, so that "since N" stays answerable
// from the log's base on.

// FeedFile is the name of the change log, inside .noema/.
const FeedFile = "changes.log"

const feedMagic = "noema-changes 1 base="

// feedPollInterval is how often Wait looks at the log for the records of
// other processes.
const feedPollInterval = 200 * time.Millisecond

// feed is the change log of one vault as this process last read it.
type feed struct {
	path string

	mu      sync.Mutex
	read    os.FileInfo // the log as last read; nil: none read
	end     int64       // the offset after its last complete line
	base    int64
	entries []noema.Change // in sequence order
	// foldCheck is the length of entries past which record counts the
	// log's paths again to see whether it is due for folding (0: count at
	// the next record). Counting builds a set of every entry's path, so it
	// is done at most once every foldSlack records, not on each.
	foldCheck int
	// wake is closed, and replaced, each time this process records.
	wake chan struct{}
}

// feed returns v's change log.
func (v *Vault) feed() *feed {
	v.feedOnce.Do(func() {
		v.changes = &feed{path: filepath.Join(v.Root, ".noema", FeedFile), wake: make(chan struct{})}
	})
	return v.changes
}

// head is the sequence number of the latest change, or the base; f.mu held.
func (f *feed) head() int64 {
	if n := len(f.entries); n > 0 {
		return f.entries[n-1].Seq
	}
	return f.base
}

// load brings f up to date with the log on disk; f.mu held. The log as
// last read, grown by other processes' records, is read from where it
// ended; a log replaced (folded, made again) is read whole.
func (f *feed) load() error {
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		f.read, f.end, f.base, f.entries = nil, 0, 0, nil
		return nil
	} else if err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	if f.read != nil && os.SameFile(fi, f.read) && fi.Size() == f.read.Size() && fi.ModTime().Equal(f.read.ModTime()) {
		return nil
	}
	file, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	defer file.Close()
	if fi, err = file.Stat(); err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	from := int64(0)
	if f.read != nil && os.SameFile(fi, f.read) && fi.Size() >= f.end {
		from = f.end
	}
	data := make([]byte, fi.Size()-from)
	if _, err := file.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read change log: %w", err)
	}
	if from > 0 {
		entries, n := parseChanges(data, f.head())
		f.read, f.end, f.entries = fi, from+n, append(f.entries, entries...)
		return nil
	}
	header, rest, ok := bytes.Cut(data, []byte("\n"))
	base, err := strconv.ParseInt(string(bytes.TrimPrefix(header, []byte(feedMagic))), 10, 64)
	if !ok || !bytes.HasPrefix(header, []byte(feedMagic)) || err != nil {
		// No complete header: a crash while the log was being made,
		// before it recorded anything. The next record starts it again.
		f.read, f.end, f.base, f.entries = nil, 0, 0, nil
		return nil
	}
	entries, n := parseChanges(rest, base)
	f.read, f.end, f.base, f.entries = fi, int64(len(header)+1)+n, base, entries
	return nil
}

// parseChanges decodes the records of data, which follow the sequence
// number last, and returns them and the length of data they take. It stops
// at an incomplete last line (a record a crash interrupted, never
// acknowledged) and at anything that is not a record numbered after the
// one before.
func parseChanges(data []byte, last int64) ([]noema.Change, int64) {
	var out []noema.Change
	n := 0
	for {
		line, _, ok := bytes.Cut(data[n:], []byte("\n"))
		if !ok {
			break
		}
		var c noema.Change
		if json.Unmarshal(line, &c) != nil || c.Seq <= last {
			break
		}
		out = append(out, c)
		last = c.Seq
		n += len(line) + 1
	}
	return out, int64(n)
}

// record appends changes to v's log, numbering them, and returns them with
// their numbers (0 when they could not be recorded). The caller holds the
// write lock and has made the changes durable.
//
// A working copy ([Vault.SetUpstream]) records nothing: its change feed is
// its store of record's, and its own log, which nothing reads, would cost
// every write a write and an fsync of .noema/changes.log.
func (v *Vault) record(changes ...noema.Change) []noema.Change {
	if len(changes) == 0 || v.upstream != nil {
		return changes
	}
	for i := range changes {
		if r, err := v.Rel(changes[i].Path); err == nil {
			changes[i].Path = r
		}
	}
	f := v.feed()
	f.mu.Lock()
	defer f.mu.Unlock()
	numbered, err := f.append(changes)
	if err != nil {
		return changes
	}
	close(f.wake)
	f.wake = make(chan struct{})
	if len(f.entries) > f.foldCheck {
		if due := 2*f.paths() + 1024; len(f.entries) > due {
			_ = f.fold() // a log not folded is only longer
			f.foldCheck = 0
		} else {
			f.foldCheck = max(due, len(f.entries)+foldSlack)
		}
	}
	return numbered
}

// foldSlack is how many records may pass between two counts of the log's
// paths: a fold comes at most that many records later than it could.
const foldSlack = 256

// append writes changes to the log, numbered from its head; f.mu held.
func (f *feed) append(changes []noema.Change) ([]noema.Change, error) {
	if err := f.load(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return nil, err
	}
	file, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var buf bytes.Buffer
	if f.read == nil {
		f.base, f.end, f.entries = time.Now().UnixMicro(), 0, nil
		buf.WriteString(feedMagic + strconv.FormatInt(f.base, 10) + "\n")
	}
	// A torn last line (a crash mid-record) is cut off first, so that the
	// next line starts clean.
	if err := file.Truncate(f.end); err != nil {
		return nil, err
	}
	numbered := make([]noema.Change, len(changes))
	seq := f.head()
	for i, c := range changes {
		seq++
		c.Seq = seq
		numbered[i] = c
		line, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if _, err := file.WriteAt(buf.Bytes(), f.end); err != nil {
		return nil, err
	}
	if err := file.Sync(); err != nil {
		return nil, err
	}
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	f.read, f.end = fi, f.end+int64(buf.Len())
	f.entries = append(f.entries, numbered...)
	return numbered, nil
}

// paths counts the paths the log names; f.mu held.
func (f *feed) paths() int {
	seen := make(map[string]bool, len(f.entries))
	for _, c := range f.entries {
		seen[c.Path] = true
	}
	return len(seen)
}

// fold rewrites the log with the latest change of each path only; f.mu
// held, and the write lock.
func (f *feed) fold() error {
	latest := map[string]noema.Change{}
	for _, c := range f.entries {
		latest[c.Path] = c
	}
	kept := make([]noema.Change, 0, len(latest))
	for _, c := range latest {
		kept = append(kept, c)
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Seq < kept[j].Seq })
	var buf bytes.Buffer
	buf.WriteString(feedMagic + strconv.FormatInt(f.base, 10) + "\n")
	for _, c := range kept {
		line, err := json.Marshal(c)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	tmp := f.path + ".tmp"
	if err := writeSynced(tmp, buf.Bytes()); err != nil {
		return err
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return err
	}
	f.read = nil // read again: a new file
	return f.load()
}

// writeSynced writes data to a new file name and syncs it.
func writeSynced(name string, data []byte) error {
	file, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = file.Write(data)
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// changesSince answers [noema.ChangeFeed.ChangesSince] from the log.
func (f *feed) changesSince(since int64, limit int) ([]noema.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.load(); err != nil {
		return nil, err
	}
	// 0 is the head of a vault without a log: every change its log holds
	// came after.
	if (since < f.base && since != 0) || since > f.head() {
		return nil, noema.WrapError(noema.ErrFeedReset, noema.ENOTFOUND,
			"the change log of this vault starts at %d and ends at %d, not at %d: list the files again and follow the changes from the head", f.base, f.head(), since)
	}
	i := sort.Search(len(f.entries), func(i int) bool { return f.entries[i].Seq > since })
	out := f.entries[i:]
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return append([]noema.Change(nil), out...), nil
}

// headNow returns the head and the channel closed at this process's next
// record.
func (f *feed) headNow() (int64, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.load(); err != nil {
		return 0, nil, err
	}
	return f.head(), f.wake, nil
}

// wait answers [noema.ChangeFeed.Wait]: woken at once by this process's
// records, and within feedPollInterval by other processes'.
func (f *feed) wait(ctx context.Context, after int64) (int64, error) {
	tick := time.NewTicker(feedPollInterval)
	defer tick.Stop()
	for {
		head, wake, err := f.headNow()
		if err != nil || head > after {
			return head, err
		}
		select {
		case <-ctx.Done():
			return head, context.Cause(ctx)
		case <-wake:
		case <-tick.C:
		}
	}
}

// writeChange is the feed's record of rel now holding data.
func writeChange(rel string, data []byte) noema.Change {
	return noema.Change{Path: rel, Kind: noema.ChangeWrite, Checksum: noema.Checksum(data)}
}

// deleteChange is the feed's record of rel removed.
func deleteChange(rel string) noema.Change {
	return noema.Change{Path: rel, Kind: noema.ChangeDelete, Checksum: noema.Absent}
}
