package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/noema-mem/noema"
)

// sharedReads is the note index of a team server: an explicit read of a
// note is recorded in the server's own index, as for a folder, and also
// queued for the store's shared access log (noema.AccessLog), which the
// other servers' followers bring into their indexes, so decay weighs a
// note by its last read on any server. Sending never makes a read wait: a
// full queue (the store away for long) drops the oldest reads' sharing, not
// the reads.
type sharedReads struct {
	noema.NoteIndex
	server string
	queue  chan noema.Access
}

// sharedReadsQueue bounds the reads waiting to be shared.
const sharedReadsQueue = 4096

func newSharedReads(idx noema.NoteIndex) *sharedReads {
	return &sharedReads{NoteIndex: idx, server: serverName(), queue: make(chan noema.Access, sharedReadsQueue)}
}

// LogAccess records the read here and queues it for the other servers.
func (s *sharedReads) LogAccess(ctx context.Context, path string) {
	s.NoteIndex.LogAccess(ctx, path)
	a := noema.Access{Path: path, At: time.Now().UTC(), Server: s.server}
	for {
		select {
		case s.queue <- a:
			return
		default:
		}
		select { // full: make room by dropping the oldest
		case <-s.queue:
		default:
		}
	}
}

// run sends queued reads to log until ctx is done, in batches, retrying
// while the store is away; then it sends what is left (flush).
func (s *sharedReads) run(ctx context.Context, log noema.AccessLog, logger *slog.Logger) {
	pause := 200 * time.Millisecond
	for {
		var batch []noema.Access
		select {
		case a := <-s.queue:
			batch = append(batch, a)
		case <-ctx.Done():
			s.flush(log, logger)
			return
		}
		batch = s.drain(batch)
		for {
			err := log.RecordAccesses(ctx, batch)
			if err == nil {
				pause = 200 * time.Millisecond
				break
			}
			if ctx.Err() != nil {
				s.requeue(batch)
				s.flush(log, logger)
				return
			}
			logger.Warn("sharing note reads with the store", "err", err, "retry_in", pause)
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
			pause = min(2*pause, 10*time.Second)
		}
	}
}

// drain adds every queued read to batch.
func (s *sharedReads) drain(batch []noema.Access) []noema.Access {
	for {
		select {
		case a := <-s.queue:
			batch = append(batch, a)
		default:
			return batch
		}
	}
}

func (s *sharedReads) requeue(batch []noema.Access) {
	for _, a := range batch {
		select {
		case s.queue <- a:
		default:
			return
		}
	}
}

// flush sends what is queued, waiting at most 2 s: a command that reads a
// note and exits still shares its read.
func (s *sharedReads) flush(log noema.AccessLog, logger *slog.Logger) {
	batch := s.drain(nil)
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := log.RecordAccesses(ctx, batch); err != nil {
		logger.Warn("note reads not shared with the store", "reads", len(batch), "err", err)
	}
}

// serverName names this process in the shared access log: host, pid and a
// random suffix, unique among the servers of a vault.
func serverName() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
}
