package vault

// unlocked returns a Writer of v that does not hold v's write lock, for
// tests of the file operations themselves: a single test goroutine with no
// other writer, or a test of what they guarantee to writers that take no
// lock (two creates racing for one name).
func unlocked(v *Vault) *Writer { return &Writer{v: v} }
