package indexer

// SetAfterWalk installs a hook that runs between the walk and the reads.
func (ix *Indexer) SetAfterWalk(fn func()) { ix.afterWalk = fn }
