package concepts

// SetSecondChannel turns find_concepts' second candidate channel on or off
// and returns a function restoring it.
func SetSecondChannel(on bool) (restore func()) {
	old := secondChannel
	secondChannel = on
	return func() { secondChannel = old }
}
