package indexer

// SetAfterWalk installs a hook that runs between the walk and the reads.
func (ix *Indexer) SetAfterWalk(fn func()) { ix.afterWalk = fn }

// SetBeforePathsWrite installs a hook that runs in SyncPaths between its
// reads and its transaction.
func (ix *Indexer) SetBeforePathsWrite(fn func()) { ix.beforePathsWrite = fn }

// SetAfterCommit installs a hook that runs after each committed transaction
// of a sync or reindex; its error ends the sync there.
func (ix *Indexer) SetAfterCommit(fn func(point string) error) { ix.afterCommit = fn }

// SetBatch sets how many changed notes one sync transaction holds.
func (ix *Indexer) SetBatch(n int) { ix.batch = n }

// SetBulk sets how many notes a sync must write to load them in bulk.
func (ix *Indexer) SetBulk(n int) { ix.bulk = n }

// SetStatesRead installs a hook told whether each sync read the note
// states from the saved snapshot.
func (ix *Indexer) SetStatesRead(fn func(fromSnapshot bool)) { ix.statesRead = fn }
