package noematest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for a writer and a reader at once (a
// command's stderr written by its goroutines while the test reads it).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
