package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxLineBytes bounds one line of `noema mcp`'s input (one JSON-RPC message
// or batch, its newline not counted). A longer line is read to its end
// without being kept, answered with a parse error, and the session goes on.
const MaxLineBytes = 16 << 20

// DrainTimeout bounds how long `noema mcp`, its input ended, waits for the
// requests in flight to be answered before it stops (and cancels what is
// left, within ExitGrace).
const DrainTimeout = 60 * time.Second

// stdio sits between `noema mcp`'s standard streams and the SDK's
// IOTransport, which reads newline-delimited JSON-RPC. It makes two things
// hold that the SDK alone does not:
//
//   - A line that is not JSON gets a JSON-RPC parse error (-32700), and one
//     that is JSON but no JSON-RPC message an invalid-request error (-32600),
//     and the session goes on: the SDK would end the session on either.
//   - A line longer than MaxLineBytes gets a parse error too, without being
//     held in memory, and the session goes on: the SDK's own frame limit
//     (16 MiB in v1.8.0) ends the session without a word.
//   - At the end of the input, the requests already read are answered, and
//     their replies written, before the SDK sees the end (which ends the
//     session): it waits until every request read has its response, or
//     DrainTimeout. onEnd is called then, once.
//
// It tracks the requests in flight by their ids: incremented as a request
// is read, decremented as the SDK writes its response.
type stdio struct {
	src   io.Reader // closed by Close when it can be
	in    *bufio.Reader
	max   int // MaxLineBytes, or less in tests
	out   io.Writer
	onEnd func()

	wmu sync.Mutex // one whole line at a time on out

	mu      sync.Mutex
	pending map[string]int // request id (its JSON) -> requests in flight
	drained chan struct{}  // closed (and replaced) when pending empties
	buf     []byte         // the current line, not yet read by the SDK
	ended   sync.Once
}

func newStdio(in io.Reader, out io.Writer, onEnd func()) *stdio {
	return &stdio{src: in, in: bufio.NewReaderSize(in, 64<<10), max: MaxLineBytes, out: out, onEnd: onEnd,
		pending: map[string]int{}, drained: make(chan struct{})}
}

// Read gives the SDK the next well-formed line.
func (s *stdio) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		line, long, err := s.readLine()
		switch {
		case long > 0:
			s.reply(nil, -32700, fmt.Sprintf("parse error: a line of %d bytes, over the limit of %d bytes (%d MiB) per message", long, s.max, s.max>>20))
		case len(bytes.TrimSpace(line)) > 0:
			s.take(line)
		}
		if err != nil && len(s.buf) == 0 {
			if err == io.EOF {
				s.drain()
			}
			s.ended.Do(s.onEnd)
			return 0, err
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// readLine reads the next line. A line longer than s.max (its line ending
// not counted) is read to its end and dropped: readLine then returns its
// length in long, and no line.
func (s *stdio) readLine() ([]byte, int, error) {
	var line []byte
	n := 0
	for {
		frag, err := s.in.ReadSlice('\n')
		n += len(frag)
		if n <= s.max+2 { // room for "\r\n"
			line = append(line, frag...)
		} else {
			line = nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		body := n - (len(frag) - len(bytes.TrimRight(frag, "\r\n")))
		if body > s.max {
			return nil, body, err
		}
		return line, 0, err
	}
}

// take checks one line: a JSON-RPC message (or batch) becomes the next
// thing the SDK reads; anything else is answered with an error here.
func (s *stdio) take(line []byte) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		s.reply(nil, -32700, fmt.Sprintf("parse error: %v", err))
		return
	}
	items := []json.RawMessage{line}
	if line[0] == '[' {
		if json.Unmarshal(line, &items) != nil || len(items) == 0 {
			s.reply(nil, -32600, "invalid request: an empty batch")
			return
		}
	}
	var ids, cancelled []string
	for _, raw := range items {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			var m struct{ ID json.RawMessage }
			json.Unmarshal(raw, &m)
			s.reply(m.ID, -32600, fmt.Sprintf("invalid request: %v", err))
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case ok && req.IsCall():
			ids = append(ids, idKey(raw))
		case ok && req.Method == "notifications/cancelled":
			// A cancelled request may get no response (the specification
			// says it should not): stop waiting for one.
			var p struct {
				Params struct {
					RequestID any `json:"requestId"`
				} `json:"params"`
			}
			if json.Unmarshal(raw, &p) == nil && p.Params.RequestID != nil {
				b, _ := json.Marshal(p.Params.RequestID)
				cancelled = append(cancelled, string(b))
			}
		}
	}
	s.mu.Lock()
	for _, id := range ids {
		s.pending[id]++
	}
	for _, id := range cancelled {
		s.doneLocked(id)
	}
	s.mu.Unlock()
	s.buf = append(line, '\n')
}

// drain waits until every request read has been answered, or DrainTimeout.
func (s *stdio) drain() {
	s.mu.Lock()
	if len(s.pending) == 0 {
		s.mu.Unlock()
		return
	}
	drained := s.drained
	s.mu.Unlock()
	select {
	case <-drained:
	case <-time.After(DrainTimeout):
	}
}

// reply writes an error response of this layer's own.
func (s *stdio) reply(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	s.writeLine(append(b, '\n'))
}

// Write passes the SDK's messages to out, one whole message per call (as
// the SDK writes them), and counts the responses among them.
func (s *stdio) Write(p []byte) (int, error) {
	s.answered(p)
	if err := s.writeLine(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *stdio) writeLine(p []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.out.Write(p)
	return err
}

// answered notes the responses in p, a message or a batch.
func (s *stdio) answered(p []byte) {
	p = bytes.TrimSpace(p)
	items := []json.RawMessage{p}
	if len(p) > 0 && p[0] == '[' {
		if json.Unmarshal(p, &items) != nil {
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, raw := range items {
		var m struct {
			ID     json.RawMessage
			Method *string
		}
		if json.Unmarshal(raw, &m) != nil || m.Method != nil || len(m.ID) == 0 {
			continue
		}
		s.doneLocked(idKey(raw))
	}
}

// doneLocked notes that the request id has its answer (or will get none).
func (s *stdio) doneLocked(id string) {
	n, ok := s.pending[id]
	switch {
	case !ok:
		return
	case n > 1:
		s.pending[id]--
		return
	}
	delete(s.pending, id)
	if len(s.pending) == 0 {
		close(s.drained)
		s.drained = make(chan struct{})
	}
}

// idKey is a message's id in one spelling for either direction: its JSON
// re-encoded ("1", "1.0" and "1e0" are one number; strings keep quotes).
func idKey(raw json.RawMessage) string {
	var m struct{ ID any }
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	b, _ := json.Marshal(m.ID)
	return string(b)
}

// Close closes the input when it can be closed.
func (s *stdio) Close() error {
	if c, ok := s.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

var _ io.ReadWriter = (*stdio)(nil)
