package embeddingtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/noema-mem/noema"
)

// Recorder is the bookkeeping of a fake network backend: the requests it
// was sent, in order, and a test's hook that may answer one itself.
type Recorder[R any] struct {
	mu    sync.Mutex
	calls []R
	// Hook, when set, may answer request number n (0-based) itself and
	// return true.
	Hook func(n int, req R, w http.ResponseWriter, r *http.Request) bool
}

// Receive decodes r's JSON body into a request, refusing unknown fields,
// records it and offers it to the hook. err is the decoding error;
// answered is true when the hook answered.
func (rec *Recorder[R]) Receive(w http.ResponseWriter, r *http.Request) (req R, answered bool, err error) {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, false, err
	}
	rec.mu.Lock()
	n := len(rec.calls)
	rec.calls = append(rec.calls, req)
	hook := rec.Hook
	rec.mu.Unlock()
	return req, hook != nil && hook(n, req, w, r), nil
}

// Requests returns the requests received so far.
func (rec *Recorder[R]) Requests() []R {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]R(nil), rec.calls...)
}

// WantError checks that an Embed call that returned vecs and err failed
// with the error code, with each of msgs in its message, and returned no
// vectors.
func WantError(t testing.TB, vecs [][]float32, err error, code string, msgs ...string) {
	t.Helper()
	if err == nil || vecs != nil {
		t.Fatalf("Embed = %d vectors, %v; want an error and nothing else", len(vecs), err)
	}
	if got := noema.ErrorCode(err); got != code {
		t.Errorf("code = %q, want %q (err: %v)", got, code, err)
	}
	for _, m := range msgs {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not contain %q", err, m)
		}
	}
}
