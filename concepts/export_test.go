package concepts

// SetSecondChannel turns find_concepts' second candidate channel on or off
// and returns a function restoring it.
func SetSecondChannel(on bool) (restore func()) {
	old := secondChannel
	secondChannel = on
	return func() { secondChannel = old }
}

// ResetDuplicateIndex drops the cached names, so that the next call builds
// them again as after a registry change.
func (s *Service) ResetDuplicateIndex() {
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
}

// IsFillerWord reports whether w (lower case) is a function word or a
// generic head word of the name folding.
func IsFillerWord(w string) bool { return functionWords[w] || genericHeads[w] }

// NamesBase returns the identity of the names last read in full (nil
// before the first find), to tell a reload from an update.
func (s *Service) NamesBase() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		return nil
	}
	return s.cache.base
}

// NamesFromSnapshot reports whether the names cached in full were read
// from the names snapshot (not from the index).
func (s *Service) NamesFromSnapshot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache != nil && s.cache.base.version == snapshotVersion
}

// FindIndexFromSnapshot reports whether the find index of the names
// cached in full came from the names snapshot.
func (s *Service) FindIndexFromSnapshot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache != nil && s.cache.base.findLoaded
}

// SetCodeID makes the names snapshot see the build running as id and
// returns a function restoring it.
func SetCodeID(id string) (restore func()) {
	old := codeID
	codeID = func() string { return id }
	return func() { codeID = old }
}
